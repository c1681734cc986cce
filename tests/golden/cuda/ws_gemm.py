# A warp-specialized GEMM scheduled by hand (TileLang's Tier 3): warp group 2 loads the
# stages with TMA, groups 0 and 1 run the gemm; mbarriers between them, registers moved
# with set_max_nreg (pass_manual_schedule, pass_split_warp_groups).
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M=256, N=256, K=256, block_M=128, block_N=128, block_K=64, num_stages=2):

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=384) as (bx, by):
            A_shared = T.alloc_shared((num_stages, block_M, block_K), "float16")
            B_shared = T.alloc_shared((num_stages, block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float")
            full = T.alloc_barrier([128] * num_stages)
            empty = T.alloc_barrier([256] * num_stages)
            with T.ws(2):
                T.dec_max_nreg(40)
            with T.ws(0, 1):
                T.inc_max_nreg(232)
                T.clear(C_local)
            for ko in range(T.ceildiv(K, block_K)):
                with T.ws(2):
                    T.barrier_wait(empty[ko % num_stages], (ko // num_stages) % 2 ^ 1)
                    T.tma_copy(A[by * block_M, ko * block_K], A_shared[ko % num_stages, :, :],
                               barrier=full[ko % num_stages])
                    T.tma_copy(B[ko * block_K, bx * block_N], B_shared[ko % num_stages, :, :],
                               barrier=full[ko % num_stages])
                    T.barrier_arrive(full[ko % num_stages])
                with T.ws(0, 1):
                    T.barrier_wait(full[ko % num_stages], (ko // num_stages) % 2)
                    T.gemm(A_shared[ko % num_stages, :, :], B_shared[ko % num_stages, :, :],
                           C_local)
                    T.barrier_arrive(empty[ko % num_stages])
            with T.ws(0, 1):
                T.copy(C_local, C[by * block_M, bx * block_N])

    return main
