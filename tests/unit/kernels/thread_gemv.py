# Thread-level code (TileLang's gemv/example_gemv.py, naive_gemv): each thread computes
# one output from its own T.alloc_local accumulator, the block's threads share tiles of A
# and B in shared memory (the barriers are tilec's); T.get_thread_binding.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def gemv(N=128, K=256, BLOCK_N=64, BLOCK_K=64):
    @T.prim_func
    def main(A: T.Tensor((K,), "float16"), B: T.Tensor((N, K), "float16"), C: T.Tensor((N,), "float16")):
        with T.Kernel(T.ceildiv(N, BLOCK_N), threads=BLOCK_N) as bn:
            tn = T.get_thread_binding(0)
            A_shared = T.alloc_shared((BLOCK_K,), "float16")
            B_shared = T.alloc_shared((BLOCK_N, BLOCK_K), "float16")
            C_reg = T.alloc_local((1,), "float32")
            T.clear(C_reg)
            for bk in T.serial(T.ceildiv(K, BLOCK_K)):
                for tk in T.serial(BLOCK_K):
                    A_shared[tk] = A[bk * BLOCK_K + tk]
                    B_shared[tn, tk] = B[bn * BLOCK_N + tn, bk * BLOCK_K + tk]
                for tk in T.serial(BLOCK_K):
                    C_reg[0] += A_shared[tk].astype("float32") * B_shared[tn, tk].astype("float32")
            C[bn * BLOCK_N + tn] = C_reg[0]
    return main
