# GEMM in TileLang, as in TileLang's quick-start: a jit factory returning a prim_func.
import argparse

import tilelang
import tilelang.language as T
import torch


def ref_program(A, B):
    """Reference: C = A @ B^T in float32, cast back."""
    return (A.float() @ B.float().T).to(torch.float16)


@tilelang.jit(out_idx=[-1], pass_configs={"tl.disable_tma_lower": True})
def matmul(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):
    """Tiled GEMM factory; block sizes are compile-time parameters."""

    @T.prim_func
    def gemm(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((N, K), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        # one block computes a (block_M, block_N) tile of C
        with T.Kernel(
                T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm


def main(M=1024, N=1024, K=1024):
    kernel = matmul(M, N, K, 128, 128, 32)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)
    c = kernel(a, b)
    torch.testing.assert_close(c, ref_program(a, b), rtol=1e-2, atol=1e-2)
    print("All checks passed. \u2713")

    profiler = kernel.get_profiler(tensor_supply_type=tilelang.TensorSupplyType.Normal)
    latency = profiler.do_bench(ref_program, warmup=500)
    print(f"Ref latency: {latency:.3f} ms")
    latency = profiler.do_bench(warmup=500)
    print(f"TileLang latency: {latency:.3f} ms, "
          f"TFlops: {2 * M * N * K / latency * 1e-9:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="GEMM benchmark")
    parser.add_argument("--m", type=int, default=1024, help="Matrix dimension M")
    parser.add_argument("--n", type=int, default=1024, help="Matrix dimension N")
    parser.add_argument("--k", type=int, default=1024, help="Matrix dimension K")
    args, _ = parser.parse_known_args()
    main(args.m, args.n, args.k)
