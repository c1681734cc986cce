# expect: error: T\.dynamic: an empty name in "M, , N"
# line: 6
import tilelang
import tilelang.language as T

M, K, N = T.dynamic("M, , N")


@T.prim_func
def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
    with T.Kernel(1, threads=32) as bx:
        for i, j in T.Parallel(M, N):
            B[i, j] = A[i, j]
