"""Tiled GEMM: C = A @ B (or A @ B.T with trans_B, A.T @ B with trans_A).

fp16 inputs, fp32 accumulation in a register fragment, software-pipelined K loop.
With shared_epilogue the result tile goes through shared memory (C_shared), so that the
global stores are whole 16-byte rows of lines, as in TileLang's matmul benchmark.
Adapted from TileLang's examples/gemm/example_gemm.py.
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
           in_dtype="float16",
           out_dtype="float16",
           accum_dtype="float",
           num_stages=2,
           threads=128,
           enable_rasterization=True,
           panel_size=10,
           shared_epilogue=False):
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_shared_shape = (block_K, block_M) if trans_A else (block_M, block_K)
    B_shared_shape = (block_N, block_K) if trans_B else (block_K, block_N)

    @T.prim_func
    def main(
            A: T.Tensor(A_shape, in_dtype),
            B: T.Tensor(B_shape, in_dtype),
            C: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared(A_shared_shape, in_dtype)
            B_shared = T.alloc_shared(B_shared_shape, in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_shared = T.alloc_shared((block_M, block_N), out_dtype)

            # blocks in panels of panel_size block rows, walked column by column: blocks
            # that run at once share A and B tiles in L2
            T.use_swizzle(panel_size=panel_size, enable=enable_rasterization)
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
                T.gemm(A_shared, B_shared, C_local, transpose_A=trans_A, transpose_B=trans_B)

            if shared_epilogue:
                T.copy(C_local, C_shared)
                T.copy(C_shared, C[by * block_M, bx * block_N])
            else:
                T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def ref_program(A, B, trans_A=False, trans_B=False):
    if trans_A:
        A = A.T
    if trans_B:
        B = B.T
    return (A.float() @ B.float()).half()


def main(M=1024, N=1024, K=1024, trans_A=False, trans_B=False):
    kernel = matmul(M, N, K, 128, 128, 32, trans_A=trans_A, trans_B=trans_B, num_stages=3)
    a = torch.randn(K, M) if trans_A else torch.randn(M, K)
    b = torch.randn(N, K) if trans_B else torch.randn(K, N)
    a = a.cuda().half()
    b = b.cuda().half()
    c = kernel(a, b)
    torch.testing.assert_close(c, ref_program(a, b, trans_A, trans_B), rtol=1e-2, atol=1e-2)
    print("All check passed.")

    profiler = kernel.get_profiler()
    latency = profiler.do_bench()
    print(f"Latency: {latency} ms")
    print(f"TFlops: {2 * M * N * K / latency * 1e-9}")


if __name__ == "__main__":
    main()
