# tests/exec/kernels/mma_frag.py with float8 operands (mma.sync m16n8k32 .e4m3.e5m2, sm_89
# and newer): test_emit_cuda simulates it for sm_90a and expects the error for sm_80.
import tilelang
import tilelang.language as T

PTX_NAMES = {"float8_e4m3": "e4m3", "float8_e5m2": "e5m2"}


@tilelang.jit(out_idx=[-1])
def mma_fp8(SHAPE="m16n8k32", AT="float8_e4m3", BT="float8_e5m2", CT="float32", WARPS=2):
    K = {"m16n8k16": 16, "m16n8k32": 32, "m16n8k8": 8}[SHAPE]
    NA = 16 * K // 32
    NB = 8 * K // 32
    NT = 32 * WARPS
    an = "tf32" if SHAPE == "m16n8k8" else PTX_NAMES[AT]
    bn = "tf32" if SHAPE == "m16n8k8" else PTX_NAMES[BT]
    cn = "fp32" if CT == "float32" else PTX_NAMES[CT]

    @T.prim_func
    def main(A: T.Tensor((2, NT, 2 * NA), AT), B: T.Tensor((2, NT, 2 * NB), BT),
             C: T.Tensor((2, NT, 8), CT), D: T.Tensor((2, NT, 8), CT)):
        with T.Kernel(2, threads=NT) as bx:
            tx = T.get_thread_binding()
            a = T.alloc_local((2 * NA,), AT)
            b = T.alloc_local((2 * NB,), BT)
            c = T.alloc_local((8,), CT)
            for i in T.serial(2 * NA):
                a[i] = A[bx, tx, i]
            for i in T.serial(2 * NB):
                b[i] = B[bx, tx, i]
            for i in T.serial(8):
                c[i] = C[bx, tx, i]
            for r in T.unroll(2):
                T.ptx_mma(CT, SHAPE, "row", "col", an, bn, cn, a.data, r * NA, b.data,
                          (1 - r) * NB, c.data, r * 4, T.bool(False))
            for i in T.serial(8):
                D[bx, tx, i] = c[i]

    return main
