import tilelang.language as T
N = 64
M = T.dynamic("M")
@T.prim_func
def add(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
    with T.Kernel(T.ceildiv(M, 32), threads=128) as bx:
        for i, j in T.Parallel(32, N):
            B[bx * 32 + i, j] = A[bx * 32 + i, j] * 2.0 + 1
