"""A forward/backward kernel pair for tests/python/test_torch.py and tests/gpu: C = A * B
(elementwise) and its gradients dA = G * B, dB = G * A. docs/python.md wraps them in a
torch.autograd.Function."""
import tilec
import tilelang.language as T


@tilec.jit(out_idx=[-1])
def mul_fwd(M=64, N=64, block_M=16, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i, j in T.Parallel(block_M, N):
                C[bx * block_M + i, j] = A[bx * block_M + i, j] * B[bx * block_M + i, j]

    return main


@tilec.jit(out_idx=[3, 4])
def mul_bwd(M=64, N=64, block_M=16, dtype="float32"):
    @T.prim_func
    def main(G: T.Tensor((M, N), dtype), A: T.Tensor((M, N), dtype),
             B: T.Tensor((M, N), dtype), dA: T.Tensor((M, N), dtype),
             dB: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i, j in T.Parallel(block_M, N):
                dA[bx * block_M + i, j] = G[bx * block_M + i, j] * B[bx * block_M + i, j]
                dB[bx * block_M + i, j] = G[bx * block_M + i, j] * A[bx * block_M + i, j]

    return main
