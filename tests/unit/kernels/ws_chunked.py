# Warp specialization (sm_90a): the canonical epilogue with 4 stages of 256x128x64 tiles: C_s (64 KB) does not fit
# beside them, so it is staged in two column chunks (chunk_staging.c) on ragged edges.
import tilelang
import tilelang.language as T

def wsc(M=300, N=200, K=256, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, 256), threads=256) as (bx, by):
            A_s = T.alloc_shared((256, 64), dtype)
            B_s = T.alloc_shared((64, 128), dtype)
            C_s = T.alloc_shared((256, 128), dtype)
            acc = T.alloc_fragment((256, 128), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 64), num_stages=4):
                T.copy(A[by * 256, k * 64], A_s)
                T.copy(B[k * 64, bx * 128], B_s)
                T.gemm(A_s, B_s, acc)
            T.copy(acc, C_s)
            T.copy(C_s, C[by * 256, bx * 128])
    return main
