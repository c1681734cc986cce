# Cluster barriers (T.alloc_cluster_barrier): in clusters of two blocks (CLUSTER=1: a
# block is its own peer) each block writes a round of data, arrives on its peer's barrier
# for that round (every thread: T.ptx_arrive_cluster_barrier; thread 0 alone on a barrier
# of count 1: T.mbarrier_arrive with cta_id=), waits on its own, and copies the peer's
# round. Three rounds, a barrier each (a parity wait cannot tell a phase from the one two
# later).
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def cluster_mbar(N=128, ROUNDS=3, CLUSTER=2):
    @T.prim_func
    def main(X: T.Tensor((4, ROUNDS, N), "float32"), Y: T.Tensor((4, ROUNDS, N), "float32")):
        with T.Kernel(4, threads=N, cluster_dims=CLUSTER) as bx:
            tx = T.get_thread_binding()
            full = T.alloc_cluster_barrier([N] * ROUNDS)
            one = T.alloc_cluster_barrier(1)
            rank = T.block_rank_in_cluster()
            peer = (rank + 1) % CLUSTER
            for r in T.serial(ROUNDS):
                X[bx, r, tx] = T.cast(bx * 1000 + r * 100 + tx, "float32")
                T.ptx_arrive_cluster_barrier(full[r], peer)
                T.mbarrier_wait_parity(full[r], 0)
                Y[bx, r, tx] = X[bx - rank + peer, r, tx]
            if tx == 0:
                T.mbarrier_arrive(one, cta_id=peer)
            T.mbarrier_wait_parity(one, 0)
            T.cluster_sync()

    return main
