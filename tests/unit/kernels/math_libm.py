"""TileLang's libm names (tileops.c's intrinsics, tileops_math.c's checked ones) and their
tvm.tirx spellings, on a ragged last block: T.acos ... T.sinh, T.nearbyint, T.copysign,
T.hypot, T.nextafter (float32, float64), T.ldexp, T.isfinite. tests/exec/test_math_names.py
has the NumPy reference; test_emit_cuda runs it on the simulated GPU against the C
target."""
import tilelang
import tilelang.language as T
from tilelang import tvm as tvm
from tvm import tirx


@tilelang.jit(out_idx=[3, 4])
def math_libm(N=200, dtype="float32", bn=64):
    wide = dtype in ("float32", "float64")

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), E: T.Tensor((N,), "int32"),
             U: T.Tensor((14, N), dtype), F: T.Tensor((3, N), "bool")):
        with T.Kernel(T.ceildiv(N, bn), threads=64) as bx:
            for i in T.Parallel(bn):
                j = bx * bn + i
                x = A[j]
                y = B[j]
                U[0, j] = T.acos(x)
                U[1, j] = T.acosh(T.abs(x) + 1.0)
                U[2, j] = T.asin(x)
                U[3, j] = tirx.asinh(x)
                U[4, j] = T.atan(x)
                U[5, j] = T.atanh(x)
                U[6, j] = T.cosh(x)
                U[7, j] = tirx.sinh(x)
                U[8, j] = T.nearbyint(y)
                U[9, j] = T.copysign(x, y)
                U[10, j] = tirx.hypot(x, y)
                U[11, j] = T.ldexp(x, E[j])
                U[12, j] = T.nextafter(x, y) if wide else x
                U[13, j] = tirx.nearbyint(x * 4.0) + T.ldexp(y, 2)
                F[0, j] = T.isfinite(x)
                F[1, j] = tirx.isfinite(x * y)
                F[2, j] = T.isfinite(E[j])

    return main
