"""T.__fns (src/frontend/tileops_math.c: CUDA's n-th set bit; tl_c.h's tl_fns on the C
target) and T.call_intrin (src/frontend/tileops_lang.c: TVM ops by name) over random
inputs. tests/exec/test_misc_names.py has the NumPy reference; test_emit_cuda compiles
it with NVRTC for sm_80 and sm_90a and simulates it against the C target."""
import tilelang
import tilelang.language as T


@tilelang.jit
def misc_names(n=256, threads=128):

    @T.prim_func
    def main(Mask: T.Tensor((n,), "uint32"), Base: T.Tensor((n,), "int32"),
             Off: T.Tensor((n,), "int32"), X: T.Tensor((n,), "float32"),
             F: T.Tensor((n,), "uint32"), Y: T.Tensor((n,), "float32"),
             P: T.Tensor((n,), "int32")):
        with T.Kernel(T.ceildiv(n, threads), threads=threads) as bx:
            for i in T.Parallel(threads):
                k = bx * threads + i
                if k < n:
                    F[k] = T.__fns(Mask[k], Base[k] & 31, Off[k])
                    Y[k] = T.call_intrin("float32", "tir.exp2", X[k]) + T.call_intrin(
                        "float32", "tir.fabs", X[k])
                    P[k] = T.call_intrin("int32", "tl.__ffs", Mask[k]) + T.call_intrin(
                        "uint32", "tl.__fns", Mask[k], 0, 1)

    return main
