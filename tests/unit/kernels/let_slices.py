# A slice between two lets that load nothing has the constant extent their values give
# (MLA decode's KV[kv_start:kv_end]); one whose end loads keeps its expression.
import tilelang
import tilelang.language as T

def f(N=256):
    @T.prim_func
    def main(A: T.Tensor((N, 64), "float16"), I: T.Tensor((8,), "int32"),
             B: T.Tensor((N, 64), "float16")):
        with T.Kernel(2, threads=128) as bz:
            S = T.alloc_shared((32, 64), "float16")
            for k in T.serial(4):
                s0 = 128 * bz + k * 32
                s1 = 128 * bz + (k + 1) * 32
                T.copy(A[s0:s1, :], S)
                T.copy(S, B[s0:s1, :])
                e = s0 + I[k]
                T.copy(A[s0:e, 0:32], B[s0:e, 0:32])
    return main
