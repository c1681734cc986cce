# TileLang's naive gemv (examples/gemv/example_gemv.py, naive_gemv) at small sizes: each
# thread fills its own row of a shared tile in a serial loop (B_shared[tn, tk]), so no
# barrier is needed inside that loop, only around it; the thread index has the range
# [0, threads), so with N a multiple of BLOCK_N its loads and stores need no bounds checks.
import tilelang
import tilelang.language as T


def naive_gemv(N=256, K=96, BLOCK_N=128, BLOCK_K=32, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((K,), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, BLOCK_N)) as bn:
            tn = T.get_thread_binding(0)
            A_shared = T.alloc_shared((BLOCK_K,), dtype)
            B_shared = T.alloc_shared((BLOCK_N, BLOCK_K), dtype)
            C_reg = T.alloc_local((1,), accum_dtype)
            T.clear(C_reg)
            for bk in T.serial(T.ceildiv(K, BLOCK_K)):
                for tk in T.serial(BLOCK_K):
                    A_shared[tk] = A[bk * BLOCK_K + tk]
                    B_shared[tn, tk] = B[bn * BLOCK_N + tn, bk * BLOCK_K + tk]
                for tk in T.serial(BLOCK_K):
                    C_reg[0] += A_shared[tk].astype(accum_dtype) * B_shared[tn, tk].astype(
                        accum_dtype)
            C[bn * BLOCK_N + tn] = C_reg[0]

    return main
