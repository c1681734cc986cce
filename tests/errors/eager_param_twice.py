# expect: error: parameter .B. is annotated twice
# line: 13
import tilelang
import tilelang.language as T


@tilelang.jit
def add(A, B: T.Tensor((16,), T.float32), C=None):
    N = T.const("N")
    A: T.Tensor((N,), T.float32)
    C: T.Tensor((N,), T.float32)
    B: T.Tensor((N,), T.float32)
    B: T.Tensor((N,), T.float32)
    with T.Kernel(1, threads=32):
        for i in T.Parallel(N):
            C[i] = A[i]
