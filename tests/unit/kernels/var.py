# A per-thread var computed redundantly: no barrier; a passing assert.
import tilelang
import tilelang.language as T

def var(dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((2, 64), dtype), B: T.Tensor((2, 64), dtype)):
        with T.Kernel(2, threads=32) as bx:
            acc = T.alloc_var(dtype)
            acc = 0
            for k in T.serial(64):
                acc = acc + A[bx, k]
            T.device_assert(acc < 1000.0, "sum too large")
            for i in T.Parallel(64):
                B[bx, i] = A[bx, i] - acc
    return main
