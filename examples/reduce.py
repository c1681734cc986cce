"""Reduce a matrix along one dimension: sum, max, min, abssum or absmax.

dim=1 reduces each row (output shape (M,)); dim=0 reduces each column (output (N,)).
A block loads a whole slab of rows (or columns) into a fragment and reduces it.
"""
import torch
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def reduce(M=256, N=128, op="sum", dim=1, block=32, dtype="float32", threads=128):
    out_len = M if dim == 1 else N
    tile = (block, N) if dim == 1 else (M, block)

    @T.prim_func
    def main(
            A: T.Tensor((M, N), dtype),
            B: T.Tensor((out_len,), dtype),
    ):
        with T.Kernel(T.ceildiv(out_len, block), threads=threads) as bx:
            A_local = T.alloc_fragment(tile, dtype)
            B_local = T.alloc_fragment((block,), dtype)

            if dim == 1:
                T.copy(A[bx * block, 0], A_local)
            else:
                T.copy(A[0, bx * block], A_local)

            if op == "sum":
                T.reduce_sum(A_local, B_local, dim=dim)
            elif op == "max":
                T.reduce_max(A_local, B_local, dim=dim)
            elif op == "min":
                T.reduce_min(A_local, B_local, dim=dim)
            elif op == "abssum":
                T.reduce_abssum(A_local, B_local, dim=dim)
            else:
                T.reduce_absmax(A_local, B_local, dim=dim)

            T.copy(B_local, B[bx * block])

    return main


def ref_program(A, op="sum", dim=1):
    if op == "sum":
        return A.sum(dim)
    if op == "max":
        return A.amax(dim)
    if op == "min":
        return A.amin(dim)
    if op == "abssum":
        return A.abs().sum(dim)
    return A.abs().amax(dim)


if __name__ == "__main__":
    for op in ["sum", "max", "min", "abssum", "absmax"]:
        for dim in [0, 1]:
            kernel = reduce(1024, 1024, op, dim)
            a = torch.randn(1024, 1024, device="cuda")
            torch.testing.assert_close(kernel(a), ref_program(a, op, dim), rtol=1e-3, atol=1e-3)
    print("All checks pass.")
