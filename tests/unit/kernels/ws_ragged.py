# Warp specialization (sm_90a): ragged edges (partial tiles in M, N and K: TMA fills
# zeros), B transposed, 64-byte swizzled K tiles of 32, a stage count above...
import tilelang
import tilelang.language as T

def ws(M=200, N=136, K=200, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128) as (bx, by):
            A_s = T.alloc_shared((64, 32), dtype)
            B_s = T.alloc_shared((64, 32), dtype)
            acc = T.alloc_fragment((64, 64), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 32), num_stages=4):
                T.copy(A[by * 64, k * 32], A_s)
                T.copy(B[bx * 64, k * 32], B_s)
                T.gemm(A_s, B_s, acc, transpose_B=True)
            T.copy(acc, C[by * 64, bx * 64])
    return main
