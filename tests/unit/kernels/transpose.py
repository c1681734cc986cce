# A transposed read: one barrier.
import tilelang
import tilelang.language as T

def transpose(N=40, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((N, N), dtype), B: T.Tensor((N, N), dtype)):
        with T.Kernel(1, threads=64) as bx:
            A_s = T.alloc_shared((N, N), dtype)
            T.copy(A, A_s)
            for i, j in T.Parallel(N, N):
                B[i, j] = A_s[j, i] * A_s[i, j]
    return main
