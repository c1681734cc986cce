# TileLang's T spellings of the mma.sync helpers (compat/intrinsics/mma.py, which libtilec
# embeds): per lane, the ldmatrix row each layout helper gives, the accumulator layout,
# the micro sizes, the swizzle, and fields of an emitter made with T.TensorCoreIntrinEmitter.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def mma_tnames():
    e = T.TensorCoreIntrinEmitter(a_dtype="int8", b_dtype="int8", accum_dtype="int32",
                                  b_transposed=True, warp_row_tiles=32, warp_col_tiles=16,
                                  chunk=64)

    @T.prim_func
    def main(O: T.Tensor((32, 20), "int32")):
        with T.Kernel(1, threads=32) as bx:
            tx = T.get_thread_binding()
            r0, c0 = T.get_ldmatrix_offset("A", tx, 0, 64, "float16", False)
            r1, c1 = T.get_ldmatrix_offset("B", tx, 5, 64, "int8", True)
            O[tx, 0] = r0
            O[tx, 1] = c0
            O[tx, 2] = r1
            O[tx, 3] = c1
            for i in T.unroll(8):
                row, col = T.mma_store_index_map(tx, i)
                O[tx, 4 + i] = row * 16 + col
            mx, my, mk = T.get_mma_micro_size("int8")
            O[tx, 12] = mx * 10000 + my * 100 + mk
            tile, srow, scol = T.get_swizzle_layout(tx % 16, tx * 2, 64, "float16")
            O[tx, 13] = tile * 10000 + srow * 100 + scol
            O[tx, 14] = e.local_size_a * 100 + e.local_size_b
            O[tx, 15] = e.warp_rows * 100 + e.warp_cols
            O[tx, 16] = e.k_dim
            O[tx, 17] = e.threads
            O[tx, 18] = e.n_dim
            O[tx, 19] = e.local_size_out

    return main
