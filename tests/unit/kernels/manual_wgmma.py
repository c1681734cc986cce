# Tier 3 on sm_90a: T.tma_copy into single-stage tiles (B transposed), T.wgmma_gemm left
# in flight and T.wait_wgmma before the stage is released; T.fence_proxy_async.
import tilelang
import tilelang.language as T

def mw(M=200, N=136, K=256, dtype="bfloat16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((N, K), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=256) as (bx, by):
            A_s = T.alloc_shared((64, 64), dtype)
            B_s = T.alloc_shared((64, 64), dtype)
            acc = T.alloc_fragment((64, 64), "float32")
            ready = T.alloc_barrier(arrive_count=128)
            done = T.alloc_barrier(arrive_count=128)
            with T.ws(0):
                T.clear(acc)
            for k in range(T.ceildiv(K, 64)):
                with T.ws(1):
                    T.barrier_wait(done, (k + 1) % 2)
                    T.tma_copy(A[by * 64, k * 64], A_s, barrier=ready)
                    T.tma_copy(B[bx * 64, k * 64], B_s, barrier=ready)
                    T.barrier_arrive(ready)
                with T.ws(0):
                    T.barrier_wait(ready, k % 2)
                    T.wgmma_gemm(A_s, B_s, acc, transpose_B=True)
                    T.wait_wgmma(0)
                    T.barrier_arrive(done)
            with T.ws(0):
                T.fence_proxy_async()
                T.copy(acc, C[by * 64, bx * 64])
    return main
