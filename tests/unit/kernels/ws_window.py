# Warp specialization (sm_90a): register windows of the accumulator written by the program: acc[i, j + h * 32]
# read and written in place, then staged a half at a time.
import tilelang
import tilelang.language as T

def wsw(M=100, N=136, K=128, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128) as (bx, by):
            A_s = T.alloc_shared((64, 64), dtype)
            B_s = T.alloc_shared((64, 64), dtype)
            C_s = T.alloc_shared((64, 32), dtype)
            acc = T.alloc_fragment((64, 64), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 64), num_stages=2):
                T.copy(A[by * 64, k * 64], A_s)
                T.copy(B[bx * 64, k * 64], B_s)
                T.gemm(A_s, B_s, acc, transpose_B=True)
            for h in T.unroll(2):
                for i, j in T.Parallel(64, 32):
                    acc[i, j + h * 32] = acc[i, j + h * 32] * (h + 1)
            for h in T.unroll(2):
                for i, j in T.Parallel(64, 32):
                    C_s[i, j] = acc[i, h * 32 + j]
                T.copy(C_s, C[by * 64, bx * 64 + h * 32])
    return main
