# TVM's spelling of T.ptx_ldmatrix (dtype, trans, num, ".b16", local.data, local_offset,
# smem.data, smem_offset): lane l gives row l of a 32 x 8 float16 shared tile, and the
# registers land at offset 4 of a local buffer.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def ldmatrix_tvm(TRANS=False):
    @T.prim_func
    def main(S: T.Tensor((32, 8), "float16"), R: T.Tensor((32, 8), "float16")):
        with T.Kernel(1, threads=32) as bx:
            tx = T.get_thread_binding()
            s = T.alloc_shared((32, 8), "float16")
            r = T.alloc_local((12,), "float16")
            T.copy(S, s)
            T.ptx_ldmatrix("float16", TRANS, 4, ".b16", r.data, 4, s.data, tx * 8)
            for i in T.serial(8):
                R[tx, i] = r[4 + i]

    return main
