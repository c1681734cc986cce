# Clusters (T.Kernel(cluster_dims=...)): the cluster ids, extents, sizes and ranks, and
# blocks of a cluster exchanging rows through global memory across T.cluster_sync and a
# T.cluster_arrive / T.cluster_wait pair (a block reads its peer's row, which no
# barrier that waits for the peer would leave unwritten).
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-3, -2, -1])
def cluster(GX=4, GY=2, N=32):

    @T.prim_func
    def main(A: T.Tensor((GY, GX, N), "float32"), W: T.Tensor((GY, GX, N), "float32"),
             B: T.Tensor((GY, GX, N), "float32"), E: T.Tensor((GY, GX, 8), "int32")):
        with T.Kernel(GX, GY, threads=32, cluster_dims=(2, 1, 1)) as (bx, by):
            rank = T.block_rank_in_cluster()
            for i in T.Parallel(N):
                W[by, bx, i] = A[by, bx, i] + rank * 100
            T.cluster_sync()
            peer = bx - rank + (1 - rank)
            for i in T.Parallel(N):
                B[by, bx, i] = W[by, peer, i] * 2.0
            T.cluster_arrive()
            T.cluster_wait()
            for i in T.Parallel(N):
                W[by, bx, i] = B[by, peer, i] + 1.0
            T.cluster_arrive_relaxed()
            T.cluster_wait()
            E[by, bx, 0] = rank
            E[by, bx, 1] = T.get_cluster_id(0) * 10 + T.get_cluster_id(1)
            E[by, bx, 2] = T.get_cluster_size()
            E[by, bx, 3] = T.get_cluster_extent() * 10 + T.get_cluster_extent(1)
            dims = T.get_cluster_dims()
            E[by, bx, 4] = dims[0] * 100 + dims[1] * 10 + dims[2]
            ids = T.get_cluster_ids()
            E[by, bx, 5] = len(ids) * 10 + ids[0]
            ext = T.get_cluster_extents()
            E[by, bx, 6] = ext[0] * 100 + ext[1] * 10 + ext[2]
            E[by, bx, 7] = 7
    return main
