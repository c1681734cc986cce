"""T.PersistentTileScheduler (src/frontend/tileops_sched.c): `workers` persistent blocks
walk a tile grid of mt x nt (M tiles grouped by cluster) in TileLang's swizzled order.
Each tile records its linear index and the block's iteration there and doubles its part
of A into B; a stateless scheduler's coord() decodes every worker's tiles of `waves`
rounds. tests/exec/test_misc_names.py has the NumPy reference; test_emit_cuda
simulates it for CUDA sm_80 and sm_90a."""
import tilelang
import tilelang.language as T


@tilelang.jit
def tile_sched(mt=7, nt=10, workers=4, swizzle=3, column_major=True, cluster=1, bm=8, bn=16,
               waves=3):
    mc = (mt + cluster - 1) // cluster

    @T.prim_func
    def main(A: T.Tensor((mc * bm, nt * bn), "float32"), B: T.Tensor((mc * bm, nt * bn), "float32"),
             Order: T.Tensor((mc, nt), "int32"), Iter: T.Tensor((mc, nt), "int32"),
             Coord: T.Tensor((waves * workers, 2), "int32")):
        with T.Kernel(workers, threads=64) as w:
            sched = T.PersistentTileScheduler(mt, nt, num_workers=workers, swizzle_size=swizzle,
                                              column_major=column_major, cluster_size=cluster,
                                              name="s")
            sched.init(w)
            while sched.valid():
                m, n = sched.m_idx, sched.n_idx
                Order[m, n] = sched.linear_idx
                Iter[m, n] = sched.current_iter
                for i, j in T.Parallel(bm, bn):
                    B[m * bm + i, n * bn + j] = A[m * bm + i, n * bn + j] * 2.0
                sched.next_tile()
            flat = T.PersistentTileScheduler(mt, nt, swizzle_size=swizzle,
                                             column_major=column_major, cluster_size=cluster,
                                             stateful=False)
            for t in T.serial(waves):
                cm, cn = flat.coord(t * workers + w)
                Coord[t * workers + w, 0] = cm
                Coord[t * workers + w, 1] = cn

    return main
