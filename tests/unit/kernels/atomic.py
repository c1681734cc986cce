# Atomics: tile-level from T.Parallel, scalar from serial code (one thread), 16-bit.
import tilelang
import tilelang.language as T

def atom():
    @T.prim_func
    def main(A: T.Tensor((4, 64), "int32"), S: T.Tensor((8,), "int32"),
             Cnt: T.Tensor((1,), "int32"), Mx: T.Tensor((1,), "int64"),
             H: T.Tensor((4,), "float16"), F: T.Tensor((2,), "float32")):
        with T.Kernel(4, threads=32) as bx:
            for i in T.Parallel(64):
                T.atomic_add(S[i % 8], A[bx, i])
                T.atomic_add(H[i % 4], 1.0)
            T.atomic_add(Cnt[0], 1)
            T.atomic_max(Mx[0], bx * 3)
            T.atomic_min(F[0], bx * 1.0)
            T.atomic_max(F[1], bx * 1.0)
    return main
