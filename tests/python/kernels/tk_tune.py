"""A kernel to autotune in tests/python/test_autotune.py: a tiled copy-and-scale whose
block sizes are the tuned arguments."""
import tilec
import tilelang.language as T


def configs(M, N):
    return [{"block_M": bm, "block_N": bn} for bm, bn in ((16, 32), (32, 32), (64, 64))]


@tilec.jit(out_idx=[-1])
def scale(M=128, N=128, block_M=None, block_N=None, dtype="float32"):
    """B = 3 * A, one block per (block_M, block_N) tile."""

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            tile = T.alloc_fragment((block_M, block_N), dtype)
            T.copy(A[by * block_M, bx * block_N], tile)
            for i, j in T.Parallel(block_M, block_N):
                tile[i, j] = tile[i, j] * 3
            T.copy(tile, B[by * block_M, bx * block_N])

    return main
