# 16-bit K-major A and B with rows of 256 bytes (block_K 128): two 128-byte panels each;
# ragged M, N and K.
import tilelang
import tilelang.language as T

def wsw(M=200, N=136, K=328, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 128), threads=256) as (bx, by):
            A_s = T.alloc_shared((128, 128), dtype)
            B_s = T.alloc_shared((64, 128), dtype)
            acc = T.alloc_fragment((128, 64), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 128), num_stages=2):
                T.copy(A[by * 128, k * 128], A_s)
                T.copy(B[bx * 64, k * 128], B_s)
                T.gemm(A_s, B_s, acc, transpose_B=True)
            T.copy(acc, C[by * 128, bx * 64])
    return main
