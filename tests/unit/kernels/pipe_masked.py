# A block-sparse GEMM as upstream's example_blocksparse_gemm writes it: the loads and the
# gemm of each k-step under `if BlockMask[by, bx, k]`. The copies are pipelined, the
# prefetch of a k-step whose mask is false skipped (Stmt.copy.when).
import tilelang
import tilelang.language as T

def blocksparse(M=128, N=128, K=256, block_M=64, block_N=64, block_K=32, num_stages=2):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             BlockMask: T.Tensor((M // block_M, N // block_N, K // block_K), "bool"),
             C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                if BlockMask[by, bx, k]:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                    T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])
    return main
