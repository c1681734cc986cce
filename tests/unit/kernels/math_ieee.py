"""TileLang's IEEE operations with a rounding mode (tileops_math.c): T.ieee_add, ieee_sub,
ieee_mul, ieee_fdiv, ieee_fmaf, ieee_frcp, ieee_fsqrt in each of 'rn', 'rz', 'ru', 'rd'
(float32, float64; 'rn' only for float16), T.ieee_frsqrt (float32), and T.fma and
T.fmul of tilelang.language's CUDA dialect. tests/exec/test_math_names.py checks every
result bit for bit against exact rational arithmetic; test_emit_cuda the simulated GPU
against the C target."""
import tilelang
import tilelang.language as T

MODES = ("rn", "rz", "ru", "rd")


@T.macro
def ieee_ops(U, j, x, y, z, row, mode):
    U[row + 0, j] = T.ieee_add(x, y, mode)
    U[row + 1, j] = T.ieee_sub(x, y, rounding_mode=mode)
    U[row + 2, j] = T.ieee_mul(x, y, mode)
    U[row + 3, j] = T.ieee_fdiv(x, y, mode)
    U[row + 4, j] = T.ieee_fmaf(x, y, z, mode)
    U[row + 5, j] = T.ieee_frcp(y, mode)
    U[row + 6, j] = T.ieee_fsqrt(T.abs(x), mode)


@tilelang.jit(out_idx=[3])
def math_ieee(N=200, dtype="float32", bn=64):
    wide = dtype in ("float32", "float64")

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype),
             U: T.Tensor((31, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), threads=64) as bx:
            for i in T.Parallel(bn):
                j = bx * bn + i
                x = A[j]
                y = B[j]
                z = C[j]
                ieee_ops(U, j, x, y, z, 0, "rn")
                if wide:
                    ieee_ops(U, j, x, y, z, 7, "rz")
                    ieee_ops(U, j, x, y, z, 14, "ru")
                    ieee_ops(U, j, x, y, z, 21, "rd")
                U[28, j] = T.ieee_frsqrt(T.abs(x)) if dtype == "float32" else x
                U[29, j] = T.fma(x, y, z)
                U[30, j] = T.fmul(x, 3.0)

    return main
