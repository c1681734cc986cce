"""Inclusive prefix sum along one dimension of each (block_M, block_N) tile.

Each block scans its own tile (a segmented scan over the matrix); with block_M >= M
(dim=0) or block_N >= N (dim=1) it is a full cumsum. reverse=True scans from the end.
scope="shared" scans the shared tile in place instead of a fragment copy of it.
Adapted from TileLang's cumsum tests (testing/python/language/test_tilelang_language_cumsum.py).
"""
import torch
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def cumsum(M=256, N=256, block_M=64, block_N=64, dim=1, reverse=False, dtype="float32",
           scope="fragment"):

    @T.prim_func
    def main(
            A: T.Tensor((M, N), dtype),
            B: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_N), dtype)
            A_fragment = T.alloc_fragment((block_M, block_N), dtype)

            T.copy(A[by * block_M, bx * block_N], A_shared)
            if scope == "shared":
                T.cumsum(src=A_shared, dim=dim, reverse=reverse)
                T.copy(A_shared, B[by * block_M, bx * block_N])
            else:
                T.copy(A_shared, A_fragment)
                T.cumsum(src=A_fragment, dim=dim, reverse=reverse)
                T.copy(A_fragment, B[by * block_M, bx * block_N])

    return main


def ref_program(A, block_M=64, block_N=64, dim=1, reverse=False):
    out = torch.empty_like(A)
    for i in range(0, A.shape[0], block_M):
        for j in range(0, A.shape[1], block_N):
            tile = A[i:i + block_M, j:j + block_N]
            if reverse:
                tile = tile.flip(dim).cumsum(dim).flip(dim)
            else:
                tile = tile.cumsum(dim)
            out[i:i + block_M, j:j + block_N] = tile
    return out


if __name__ == "__main__":
    for dim in [0, 1]:
        for reverse in [False, True]:
            kernel = cumsum(1024, 1024, 128, 128, dim, reverse)
            a = torch.randn(1024, 1024, device="cuda")
            ref = ref_program(a, 128, 128, dim, reverse)
            torch.testing.assert_close(kernel(a), ref, rtol=1e-3, atol=1e-3)
    print("All checks pass.")
