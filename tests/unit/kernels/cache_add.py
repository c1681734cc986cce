import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def add(M=256, N=64, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, 64), threads=64) as bx:
            for i, j in T.Parallel(64, N):
                C[bx * 64 + i, j] = A[bx * 64 + i, j] + B[bx * 64 + i, j]
    return main
