"""Elementwise C = A + B with a dtype conversion (float16 in, float32 out).

Adapted from TileLang's examples/elementwise/example_elementwise_add.py.
"""
import torch
import tilelang
import tilelang.language as T


def ref_program(x, y):
    return (x + y).float()


@tilelang.jit(out_idx=[-1])
def elementwise_add(M=512,
                    N=512,
                    block_M=32,
                    block_N=64,
                    in_dtype="float16",
                    out_dtype="float32",
                    threads=128):

    @T.prim_func
    def elem_add(
            A: T.Tensor((M, N), in_dtype),
            B: T.Tensor((M, N), in_dtype),
            C: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_N), in_dtype)
            B_shared = T.alloc_shared((block_M, block_N), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), out_dtype)
            C_shared = T.alloc_shared((block_M, block_N), out_dtype)

            T.copy(A[by * block_M, bx * block_N], A_shared)
            T.copy(B[by * block_M, bx * block_N], B_shared)
            for (local_y, local_x) in T.Parallel(block_M, block_N):
                C_local[local_y, local_x] = A_shared[local_y, local_x] + B_shared[local_y, local_x]
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return elem_add


def main(M=4096, N=4096):
    a = torch.randn(M, N, dtype=torch.float16, device="cuda")
    b = torch.randn(M, N, dtype=torch.float16, device="cuda")
    kernel = elementwise_add(M, N)
    out = kernel(a, b)
    torch.testing.assert_close(out, ref_program(a, b), rtol=1e-2, atol=1e-2)
    print("All checks pass.")


if __name__ == "__main__":
    main()
