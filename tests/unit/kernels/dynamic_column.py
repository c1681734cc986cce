# A distributed nest of run-time extent; a strided tensor; T.use_swizzle on a 5x7 grid
# (a block computed twice or never would show), in row or column order; T.unroll.
import tilelang
import tilelang.language as T

def dyn(block=8):
    N = T.dynamic("N")
    S = T.dynamic("S")

    @T.prim_func
    def main(A: T.StridedTensor((N, 3), (S, 1), "float32"), B: T.Tensor((N, 3), "float32"),
             C: T.Tensor((7, 5), "int32")):
        with T.Kernel(5, 7, threads=32) as (bx, by):
            T.use_swizzle(3, order="column")
            for i, j in T.Parallel(T.min(block, N - (by * 5 + bx) * block), 3):
                B[(by * 5 + bx) * block + i, j] = A[(by * 5 + bx) * block + i, j] + j
            for u in T.unroll(2):
                C[by, bx] = C[by, bx] + bx * 10 + by * 100 + u
    return main
