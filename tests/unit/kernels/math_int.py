"""TileLang's integer names (tileops_math.c): T.popcount, T.clz and T.__ffs (32- and 64-bit
operands), T.truncdiv, T.truncmod, T.cdiv and T.likely, also as tvm.tirx spells them.
tests/exec/test_math_names.py has the NumPy reference; test_emit_cuda runs it on the
simulated GPU against the C target."""
import tilelang
import tilelang.language as T
from tilelang import tvm as tvm
from tvm import tirx


@tilelang.jit(out_idx=[2, 3])
def math_int(N=200, dtype="int32", bn=64):
    wide = dtype in ("int32", "int64", "uint32", "uint64")

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), U: T.Tensor((6, N), dtype),
             C: T.Tensor((3, N), "int32")):
        with T.Kernel(T.ceildiv(N, bn), threads=64) as bx:
            for i in T.Parallel(bn):
                j = bx * bn + i
                x = A[j]
                y = B[j]
                U[0, j] = T.popcount(x)
                U[1, j] = tirx.truncdiv(x, y)
                U[2, j] = tirx.truncmod(x, y)
                U[3, j] = T.cdiv(x, 4)
                U[4, j] = T.if_then_else(T.likely(x > y), x, y)
                U[5, j] = T.truncdiv(x, -3) * 16 + T.truncmod(x, 5)
                C[0, j] = T.clz(x) if wide else 0
                C[1, j] = T.__ffs(x) if wide else 0
                C[2, j] = (tirx.clz(T.cast(x, "int64")) + T.__ffs(T.cast(x, "uint64")) * 100 +
                           T.cast(tirx.popcount(x) - T.popcount(x), "int32"))

    return main
