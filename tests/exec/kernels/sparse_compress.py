# A 2:4 compressor written as TileLang's examples/gemm_sp/sparse_utils.py writes it
# (thread-level code): each thread copies its 32 elements of a row from global memory into
# a local buffer (T.copy with a thread-dependent region), finds each group's nonzeros,
# swaps indices with a tuple assignment, and copies its kept values and metadata back to
# thread-dependent global regions. float16 in, int16 metadata.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def compress(S=32, D=256, block_M=16, block_K=128, elem_per_thread=32):
    e_factor, elem, group = 16, 2, 4

    @T.prim_func
    def main(dense: T.Tensor((S, D), "float16"), nonzero: T.Tensor((S, D // 2), "float16"),
             meta: T.Tensor((S, D // e_factor), "int16")):
        with T.Kernel(S // block_M, D // block_K, threads=(block_M, block_K // elem_per_thread)) as (bz, bk):
            tm = T.get_thread_binding(0)
            tn = T.get_thread_binding(1)
            dense_local = T.alloc_local([elem_per_thread], "float16")
            sparse_local = T.alloc_local([elem_per_thread // 2], "float16")
            meta_local = T.alloc_local([elem_per_thread // e_factor], "int16")
            nz_idx = T.alloc_local([elem], "uint8")
            nz_count = T.alloc_var(dtype="uint8")
            T.clear(sparse_local)
            T.clear(meta_local)
            k_base = bk * block_K
            T.copy(dense[bz * block_M + tm, k_base + tn * elem_per_thread:k_base + (tn + 1) * elem_per_thread],
                   dense_local)
            for gid in T.unroll(elem_per_thread // group):
                T.clear(nz_idx)
                local_idx = gid * group
                nz_count = 0
                for i in T.unroll(group):
                    nz_idx[nz_count] = T.if_then_else(dense_local[local_idx + i] != 0, i, nz_idx[nz_count])
                    nz_count = T.if_then_else(dense_local[local_idx + i] != 0, nz_count + 1, nz_count)
                if nz_count == 1:
                    if nz_idx[0] == 0:
                        nz_idx[1] = 1
                    else:
                        nz_idx[0], nz_idx[1] = nz_idx[1], nz_idx[0]
                elif nz_count == 0:
                    nz_idx[0], nz_idx[1] = 0, 1
                for i in T.unroll(elem):
                    sparse_local[local_idx // 2 + i] = dense_local[local_idx + nz_idx[i]]
                    meta_local[local_idx // e_factor] |= T.shift_left(
                        nz_idx[i].astype("int16"), 4 * (gid % (e_factor // group)) + 2 * i)
            per = elem_per_thread // 2
            T.copy(sparse_local, nonzero[bz * block_M + tm, k_base // 2 + tn * per:k_base // 2 + (tn + 1) * per])
            T.copy(meta_local, meta[bz * block_M + tm, k_base // e_factor + tn * 2:k_base // e_factor + tn * 2 + 2])

    return main
