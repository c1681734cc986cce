# expect: error: .*(index|indices|subscript|dimension)
# line: 14
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def add_one(M=64, N=32, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(1, threads=128) as bx:
            for i, j in T.Parallel(M, N):
                B[i, j] = A[i] + 1

    return main
