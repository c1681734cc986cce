# Votes in thread-level code after a pipelined gemm: on sm_90a the kernel gets a TMA
# producer warp group, and the block votes are the consumers' (tl_bar_vote at their
# named barrier), on sm_80 the whole block's (__syncthreads_count).
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-2, -1])
def ws_votes(M=128, N=128, K=128):

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float32"), D: T.Tensor((M // 64, N // 64, 128), "int32")):
        with T.Kernel(N // 64, M // 64, threads=128) as (bx, by):
            As = T.alloc_shared((64, 32), "float16")
            Bs = T.alloc_shared((32, 64), "float16")
            Cl = T.alloc_fragment((64, 64), "float32")
            T.clear(Cl)
            for k in T.Pipelined(K // 32, num_stages=2):
                T.copy(A[by * 64, k * 32], As)
                T.copy(B[k * 32, bx * 64], Bs)
                T.gemm(As, Bs, Cl)
            T.copy(Cl, C[by * 64, bx * 64])
            tx = T.get_thread_binding()
            p = A[by * 64 + tx % 64, tx // 64 + bx] > 0
            D[by, bx, tx] = (T.syncthreads_count(p) * 1000 + T.syncthreads_and(p) * 100 +
                             T.syncthreads_or(p) * 10 + T.any_sync(p))
    return main
