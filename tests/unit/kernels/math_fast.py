"""CUDA's fast approximations as TileLang names them (tileops_math.c): T.__cos, __exp,
__exp10, __log, __log2, __log10, __sin, __tan of float32 (or float16, computed in float32)
values, and T.fast_rcp (float32). The C target computes the accurate functions;
tests/exec/test_math_names.py compares both with NumPy within the device's error bounds,
test_emit_cuda the simulated GPU with the C target."""
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1])
def math_fast(N=200, dtype="float32", bn=64):

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), U: T.Tensor((9, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), threads=64) as bx:
            for i in T.Parallel(bn):
                j = bx * bn + i
                x = A[j]
                U[0, j] = T.__cos(x)
                U[1, j] = T.__exp(x)
                U[2, j] = T.__exp10(x)
                U[3, j] = T.__log(T.abs(x))
                U[4, j] = T.__log2(T.abs(x))
                U[5, j] = T.__log10(T.abs(x))
                U[6, j] = T.__sin(x)
                U[7, j] = T.__tan(x)
                U[8, j] = T.fast_rcp(x) if dtype == "float32" else x

    return main
