# T.ptx_mma_sp on per-lane fragments (tileops_mma.c): each lane loads its 8 kept values of
# A, 8 values of B and its metadata word (two int16: rows g and g + 8 of k half lane % 2)
# straight from global memory (the lane layout is the test's to check), runs one mma.sp
# per warp, and writes its 4 accumulators back; two warps, each its own problem.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def mma_sp(AT="float16"):
    an = {"float16": "fp16", "bfloat16": "bf16"}[AT]

    @T.prim_func
    def main(A: T.Tensor((64, 8), AT), B: T.Tensor((64, 8), AT), E: T.Tensor((64, 2), "int16"),
             C: T.Tensor((64, 4), "float32")):
        with T.Kernel(1, threads=64) as bx:
            tx = T.get_thread_binding()
            a = T.alloc_local((8,), AT)
            b = T.alloc_local((8,), AT)
            e = T.alloc_local((2,), "int16")
            c = T.alloc_local((4,), "float32")
            for i in T.serial(8):
                a[i] = A[tx + bx, i]
                b[i] = B[tx + bx, i]
            for i in T.serial(2):
                e[i] = E[tx + bx, i]
            for i in T.serial(4):
                c[i] = 0.0
            T.ptx_mma_sp("float32", "m16n8k32", "row", "col", an, an, "fp32", a.data, 0, b.data,
                         0, c.data, 0, e.data, 0, 0, False)
            for i in T.serial(4):
                C[tx + bx, i] = c[i]

    return main
