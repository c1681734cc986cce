"""fp8 GEMM: C = A @ B.T, A (M, K) and B (N, K) in float8_e4m3 (or e5m2), fp32
accumulation in a register fragment, C in bfloat16.

On sm_90a T.gemm becomes fp8 wgmma (QGMMA), which needs both operands K-major: hence
B as (N, K) and transpose_B=True, as in TileLang's fp8 examples. K tiles of 128 fp8
elements are the 128-byte rows of the 128B swizzle. Adapted from TileLang's
examples/gemm_fp8/example_tilelang_gemm_fp8.py. shared_epilogue: C goes through shared
memory, as in examples/gemm.py.
"""
import torch
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M=256,
           N=256,
           K=256,
           block_M=128,
           block_N=128,
           block_K=128,
           in_dtype="float8_e4m3",
           b_dtype=None,
           out_dtype="bfloat16",
           accum_dtype="float",
           num_stages=3,
           threads=128,
           shared_epilogue=False):
    b_dtype = in_dtype if b_dtype is None else b_dtype

    @T.prim_func
    def main(
            A: T.Tensor((M, K), in_dtype),
            B: T.Tensor((N, K), b_dtype),
            C: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), in_dtype)
            B_shared = T.alloc_shared((block_N, block_K), b_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_shared = T.alloc_shared((block_M, block_N), out_dtype)

            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)

            if shared_epilogue:
                T.copy(C_local, C_shared)
                T.copy(C_shared, C[by * block_M, bx * block_N])
            else:
                T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def ref_program(A, B):
    return (A.float() @ B.float().T).bfloat16()


def main(M=1024, N=1024, K=1024):
    kernel = matmul(M, N, K)
    a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
    c = kernel(a, b)
    torch.testing.assert_close(c.float(), ref_program(a, b).float(), rtol=2e-2, atol=2e-2)
    print("All check passed.")


if __name__ == "__main__":
    main()
