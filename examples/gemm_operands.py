"""GEMM with operands in registers: C = A @ B (A.T / B.T with trans_A / trans_B), where
a_frag / b_frag copy the shared tile of A / B into a register fragment that T.gemm then
reads, as TileLang's gemm_ss / gemm_rs / gemm_sr / gemm_rr tests do.

fp16 (or bf16) inputs, fp32 accumulation. Adapted from TileLang's
testing/python/tilelibrary/test_tilelang_tilelibrary_gemm.py.
"""
import torch
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M=256,
           N=256,
           K=256,
           block_M=64,
           block_N=64,
           block_K=32,
           trans_A=False,
           trans_B=False,
           a_frag=False,
           b_frag=True,
           in_dtype="float16",
           out_dtype="float16",
           accum_dtype="float",
           num_stages=2,
           threads=128):
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_tile = (block_K, block_M) if trans_A else (block_M, block_K)
    B_tile = (block_N, block_K) if trans_B else (block_K, block_N)

    @T.prim_func
    def main(
            A: T.Tensor(A_shape, in_dtype),
            B: T.Tensor(B_shape, in_dtype),
            C: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared(A_tile, in_dtype)
            B_shared = T.alloc_shared(B_tile, in_dtype)
            A_local = T.alloc_fragment(A_tile, in_dtype)
            B_local = T.alloc_fragment(B_tile, in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                if trans_A:
                    T.copy(A[k * block_K, by * block_M], A_shared)
                else:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                if trans_B:
                    T.copy(B[bx * block_N, k * block_K], B_shared)
                else:
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                if a_frag:
                    T.copy(A_shared, A_local)
                if b_frag:
                    T.copy(B_shared, B_local)
                T.gemm(A_local if a_frag else A_shared,
                       B_local if b_frag else B_shared,
                       C_local,
                       transpose_A=trans_A,
                       transpose_B=trans_B)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def ref_program(A, B, trans_A=False, trans_B=False):
    if trans_A:
        A = A.T
    if trans_B:
        B = B.T
    return (A.float() @ B.float()).half()


def main(M=512, N=512, K=512):
    for a_frag, b_frag in ((False, False), (True, False), (False, True), (True, True)):
        kernel = matmul(M, N, K, a_frag=a_frag, b_frag=b_frag)
        a = torch.randn(M, K).cuda().half()
        b = torch.randn(K, N).cuda().half()
        torch.testing.assert_close(kernel(a, b), ref_program(a, b), rtol=1e-2, atol=1e-2)
    print("All check passed.")


if __name__ == "__main__":
    main()
