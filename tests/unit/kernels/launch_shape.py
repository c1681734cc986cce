# The launch shape as values (T.get_thread_extent(s), T.get_block_extent(s), 1 along a
# dimension not given), T.index_to_coordinates, and the launch hints: programmatic
# dependent launch (T.pdl_sync / T.pdl_trigger), T.annotate_min_blocks_per_sm and
# T.annotate_l2_hit_ratio (tileops_launch.c), on a 2-D grid of 2-D blocks.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-2, -1])
def launch(M=96, N=40, BM=32, BN=8):

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32"),
             E: T.Tensor((10,), "int32")):
        with T.Kernel(T.ceildiv(N, BN), T.ceildiv(M, BM), threads=(BN, 4)) as (bx, by):
            T.annotate_min_blocks_per_sm(2)
            T.annotate_l2_hit_ratio({A: 0.5, B: 1})
            T.pdl_sync()
            tx, ty = T.get_thread_binding(0), T.get_thread_binding(1)
            ext = T.get_thread_extents()
            for k in T.serial(BM // ext[1]):
                i, j = T.index_to_coordinates((k * ext[1] + ty) * BN + tx, [BM, BN])
                r, c = by * BM + i, bx * BN + j
                if r < M and c < N:
                    B[r, c] = A[r, c] * 2.0 + T.get_block_extent(1) * 10 + T.get_thread_extent()
            if bx == 1 and by == 2 and tx == 3 and ty == 1:
                grid = T.get_block_extents()
                E[0] = grid[0]
                E[1] = grid[1]
                E[2] = grid[2] + T.get_block_extent(dim=2) * 10
                E[3] = ext[0]
                E[4] = ext[1]
                E[5] = ext[2] + T.get_thread_extent(2) * 10
                E[6] = len(grid) * 10 + len(ext)
                a, b, c = T.index_to_coordinates(23, (2, 3, 4))
                E[7] = a * 100 + b * 10 + c
                p, q = T.index_to_coordinates(tx * 7 + ty, [5, 4])
                E[8] = p * 10 + q
                E[9] = (-3) % 4 * 10 + (-3) // 4
            T.pdl_trigger()
    return main
