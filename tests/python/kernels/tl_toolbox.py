"""Kernels for tests/python/test_toolbox.py, written as a TileLang user writes them
(`import tilelang`, answered by tilec's compatibility layer)."""
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def double(M=64, N=32, dtype="float32"):
    """B = 2 * A."""

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, 16), threads=128) as bx:
            for i, j in T.Parallel(16, N):
                B[bx * 16 + i, j] = A[bx * 16 + i, j] * 2

    return main


def tiled_add_one(M=64, N=64, block_M=None, block_N=None, dtype="float32"):
    """B = A + 1 in (block_M, block_N) tiles: a plain factory for AutoTuner."""

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            tile = T.alloc_fragment((block_M, block_N), dtype)
            T.copy(A[by * block_M, bx * block_N], tile)
            for i, j in T.Parallel(block_M, block_N):
                tile[i, j] = tile[i, j] + 1
            T.copy(tile, B[by * block_M, bx * block_N])

    return main
