# expect: error: T.const size 'K' is not the whole of any input tensor's dimension
# line: 8
import tilelang
import tilelang.language as T


@tilelang.jit
def double(A, block=64):
    N, K = T.const("N, K")
    A: T.Tensor((N,), T.float32)
    B = T.empty((N,), T.float32)
    with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
        for i in T.Parallel(block):
            B[bx * block + i] = A[bx * block + i] * K
    return B
