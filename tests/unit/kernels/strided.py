# A T.StridedTensor with a symbolic row stride, and a scalar parameter.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def scale(N=64, dtype="float32"):
    M = T.dynamic("M")
    S = T.dynamic("S")

    @T.prim_func
    def main(A: T.StridedTensor((M, N), (S, 1), dtype), alpha: T.float32,
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, 32), threads=32) as bx:
            for i, j in T.Parallel(32, N):
                C[bx * 32 + i, j] = A[bx * 32 + i, j] * alpha
    return main
