# wgmma with A from registers (tl_wgmma_rs): a fragment loaded from shared memory takes
# the accumulator layout; B MN-major (two panels) or K-major (tb), ragged edges.
import tilelang
import tilelang.language as T

def rsg(M=130, N=136, K=128, tb=False, dtype="bfloat16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K) if tb else (K, N), dtype),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, 128), threads=256) as (bx, by):
            A_s = T.alloc_shared((128, 64), dtype)
            A_f = T.alloc_fragment((128, 64), dtype)
            B_s = T.alloc_shared((128, 64) if tb else (64, 128), dtype)
            acc = T.alloc_fragment((128, 128), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 64), num_stages=2):
                T.copy(A[by * 128, k * 64], A_s)
                if tb:
                    T.copy(B[bx * 128, k * 64], B_s)
                else:
                    T.copy(B[k * 64, bx * 128], B_s)
                T.copy(A_s, A_f)
                T.gemm(A_f, B_s, acc, transpose_B=tb)
            T.copy(acc, C[by * 128, bx * 128])
    return main
