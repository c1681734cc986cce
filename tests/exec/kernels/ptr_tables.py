"""Raw pointers (src/frontend/tileops_ptr.c) in the shape of TileLang's
examples/grouped_gemm/example_grouped_gemm_fwd_ptr.py: each group's A, B and C are
separate tensors reached through tables of their addresses (T.Tensor(..., T.ptr)), made
tensors in the kernel with T.make_tensor, and a group whose C address is null is skipped
(T.isnullptr). The storage tensors A, B, C are parameters too, so that test_emit_cuda
can point the tables into them (A_ptrs[g]: chunk g of A); tests/python/test_pointers.py
gives separate arrays from Python and checks against NumPy."""
import math

import tilelang
import tilelang.language as T


@tilelang.jit
def grouped_gemm(sizes=(16, 33, 64), K=64, N=48, block_M=32, block_N=16, block_K=32,
                 threads=128, dtype="float16"):
    G = len(sizes)
    max_M = max(sizes)
    first_tile = [0]
    for m in sizes[:-1]:
        first_tile.append(first_tile[-1] + math.ceil(m / block_M))
    tiles = sum(math.ceil(m / block_M) for m in sizes)

    def group_of(bx, i=G - 1):  # the last group whose first tile is at or before bx
        if i == 0:
            return 0
        return T.if_then_else(bx >= first_tile[i], i, group_of(bx, i - 1))

    def tile_of(g, i=G - 1):  # group g's first tile
        if i == 0:
            return 0
        return T.if_then_else(g == i, first_tile[i], tile_of(g, i - 1))

    @T.prim_func
    def main(A_ptrs: T.Tensor((G,), T.ptr), B_ptrs: T.Tensor((G,), T.ptr),
             C_ptrs: T.Tensor([G], T.ptr), A: T.Tensor((G * max_M, K), dtype),
             B: T.Tensor((G * K, N), dtype), C: T.Tensor((G * max_M, N), dtype)):
        with T.Kernel(tiles, T.ceildiv(N, block_N), threads=threads) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), dtype)
            B_s = T.alloc_shared((block_K, block_N), dtype)
            acc = T.alloc_fragment((block_M, block_N), "float32")
            g = group_of(bx)
            m0 = (bx - tile_of(g)) * block_M
            Ag = T.make_tensor(A_ptrs[g], (max_M, K), dtype)
            Bg = T.make_tensor(B_ptrs[g], (K, N), dtype)
            Cg = T.make_tensor(C_ptrs[g], (max_M, N), dtype)
            if not T.isnullptr(Cg):
                T.clear(acc)
                for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=1):
                    T.copy(Ag[m0, ko * block_K], A_s)
                    T.copy(Bg[ko * block_K, by * block_N], B_s)
                    T.gemm(A_s, B_s, acc)
                T.copy(acc, Cg[m0, by * block_N])

    return main
