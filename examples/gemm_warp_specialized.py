"""Hand-scheduled warp-specialized GEMM: C = A @ B, scheduled with TileLang's Tier 3
(expert) primitives instead of the compiler's automatic pipelining.

Each iteration of the K loop has a part for each side. Warp group 2, the producer,
waits until the iteration's stage is free, then loads its A and B tiles with the TMA
engine (T.tma_copy), whose bytes complete on the stage's `full` barrier. Warp groups 0
and 1, the consumers, wait for the stage, run the tensor-core GEMM on it and release it
on `empty`. Each side runs ahead through the loop as far as the barriers let it, so the
producer fills up to num_stages stages ahead. T.dec_max_nreg / T.inc_max_nreg move
registers from the producer to the consumers. With async_wgmma (sm_90a), the consumers
issue each stage's GEMM with T.wgmma_gemm and keep it running while they wait for the
next stage, releasing a stage once the GEMM after it has started (T.wait_wgmma(1)).
Written after TileLang's
examples/warp_specialize/example_warp_specialize_gemm_barrierpipe_stage2.py.
"""
import torch
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M=512,
           N=512,
           K=512,
           block_M=128,
           block_N=128,
           block_K=64,
           num_stages=3,
           dtype="float16",
           accum_dtype="float",
           async_wgmma=False):

    @T.prim_func
    def main(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=384) as (bx, by):
            A_shared = T.alloc_shared((num_stages, block_M, block_K), dtype)
            B_shared = T.alloc_shared((num_stages, block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            full = T.alloc_barrier([128] * num_stages)  # the producer's threads
            empty = T.alloc_barrier([256] * num_stages)  # the consumers' threads

            with T.ws(2):
                T.dec_max_nreg(40)
            with T.ws(0, 1):
                T.inc_max_nreg(232)
                T.clear(C_local)
            for ko in range(T.ceildiv(K, block_K)):
                with T.ws(2):
                    # a fresh barrier has completed the phase before its first: parity 1
                    T.barrier_wait(empty[ko % num_stages], (ko // num_stages) % 2 ^ 1)
                    T.tma_copy(A[by * block_M, ko * block_K], A_shared[ko % num_stages, :, :],
                               barrier=full[ko % num_stages])
                    T.tma_copy(B[ko * block_K, bx * block_N], B_shared[ko % num_stages, :, :],
                               barrier=full[ko % num_stages])
                    T.barrier_arrive(full[ko % num_stages])
                with T.ws(0, 1):
                    T.barrier_wait(full[ko % num_stages], (ko // num_stages) % 2)
                    if async_wgmma:  # keep one wgmma running: release the previous stage
                        T.wgmma_gemm(A_shared[ko % num_stages, :, :],
                                     B_shared[ko % num_stages, :, :], C_local)
                        T.wait_wgmma(1)
                        if ko > 0:
                            T.barrier_arrive(empty[(ko - 1) % num_stages])
                    else:
                        T.gemm(A_shared[ko % num_stages, :, :], B_shared[ko % num_stages, :, :],
                               C_local)
                        T.barrier_arrive(empty[ko % num_stages])
            with T.ws(0, 1):
                if async_wgmma:
                    T.wait_wgmma(0)
                T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def main():
    kernel = matmul()
    a = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    b = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    c = kernel(a, b)
    torch.testing.assert_close(c, a @ b, rtol=1e-2, atol=1e-2)
    print("gemm_warp_specialized: matches torch")


if __name__ == "__main__":
    main()
