# Two T.ws regions that hand work back and forth through mbarriers for a whole loop, as
# warp_specialize_flashmla's do (reduced): threads 0..127 fill a shared tile per step
# once the others have consumed the last one; threads 128..255 accumulate each step's
# tile. The C target runs such regions at once (program_order's at_once group).
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def ping_pong(K=6, N=64):
    @T.prim_func
    def main(X: T.Tensor((K, N), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=256) as bx:
            S = T.alloc_shared((N,), "float32")
            acc = T.alloc_fragment((N,), "float32")
            full = T.alloc_barrier(arrive_count=128)
            free = T.alloc_barrier(arrive_count=128)
            tx = T.get_thread_binding()
            if tx < 128:
                for k in T.serial(K):
                    if k > 0:
                        T.barrier_wait(free, (k - 1) % 2)
                    for i in T.Parallel(N):
                        S[i] = X[k, i] * 2.0
                    T.barrier_arrive(full)
            else:
                T.fill(acc, 0)
                for k in T.serial(K):
                    T.barrier_wait(full, k % 2)
                    for i in T.Parallel(N):
                        acc[i] += S[i] + k
                    T.barrier_arrive(free)
                T.copy(acc, Y)

    return main
