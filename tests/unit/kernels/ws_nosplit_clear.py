# Split-K (tl_sk_parts): one tile of 14 iterations on SIM_RESIDENT = 3 blocks, in parts
# of 4, 5 and 5 (the first block adds the other two); ragged M, N and K; the epilogue
# through C_s and TMA stores only in the unit that finishes the tile (C_s, written whole
# there, is not zeroed).
import tilelang
import tilelang.language as T

def wsk(M=60, N=56, K=880, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128) as (bx, by):
            A_s = T.alloc_shared((64, 64), dtype)
            B_s = T.alloc_shared((64, 64), dtype)
            C_s = T.alloc_shared((64, 64), dtype)
            acc = T.alloc_fragment((64, 64), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 64), num_stages=3):
                T.copy(A[by * 64, k * 64], A_s)
                T.copy(B[k * 64, bx * 64], B_s)
                T.gemm(A_s, B_s, acc, clear_accum=True)
            T.copy(acc, C_s)
            T.copy(C_s, C[by * 64, bx * 64])
    return main
