# Conversions to every narrow float, int casts, floordiv/floormod, select.
import tilelang
import tilelang.language as T

def convert():
    @T.prim_func
    def main(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "bfloat16"),
             C: T.Tensor((256,), "float8_e4m3"), D: T.Tensor((256,), "float8_e5m2"),
             E: T.Tensor((256,), "int32"), F: T.Tensor((256,), "float16"),
             G: T.Tensor((256,), "int8")):
        with T.Kernel(2, threads=64) as bx:
            for i in T.Parallel(128):
                B[bx * 128 + i] = A[bx * 128 + i] * 3.0
                C[bx * 128 + i] = A[bx * 128 + i] * 100.0
                D[bx * 128 + i] = A[bx * 128 + i] * 1000.0
                E[bx * 128 + i] = T.cast(A[bx * 128 + i] * 10.0, "int32") // 3 + i % 7
                F[bx * 128 + i] = T.exp(A[bx * 128 + i]) + T.sigmoid(F[bx * 128 + i])
                G[bx * 128 + i] = T.if_then_else(i % 3 == 0, G[bx * 128 + i] * 20, T.cast(A[bx * 128 + i] * 100.0, "int8"))
    return main
