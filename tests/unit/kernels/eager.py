# Eager style: T.const sizes symbolic without shapes, constants from defines or from the
# call's tensors (the second phase), and a clear error when shapes disagree.
import tilelang
import tilelang.language as T
@tilelang.jit
def add(A, B, block=32):
    M, N = T.const('M, N')
    A: T.Tensor((M, N), T.float32)
    B: T.Tensor((N,), T.float32)
    C = T.empty((M, N), T.float32)
    with T.Kernel(T.ceildiv(M, block), threads=block) as bx:
        for i, j in T.Parallel(block, N):
            C[bx * block + i, j] = A[bx * block + i, j] + B[j]
    return C
