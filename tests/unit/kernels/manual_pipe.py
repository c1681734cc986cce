# Tier 3, TileLang's barrierpipe style: a list of mbarriers named by number, plain T.copy
# in the producer region (its 128 threads arrive), T.gemm in the consumer's.
import tilelang
import tilelang.language as T

def mp(M=200, N=136, K=200, stages=2, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=256) as (bx, by):
            A_s = T.alloc_shared((stages, 64, 32), dtype)
            B_s = T.alloc_shared((stages, 32, 64), dtype)
            acc = T.alloc_fragment((64, 64), "float32")
            T.create_list_of_mbarrier([128, 128] * stages)
            with T.ws(0):
                T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, 32), num_stages=stages):
                with T.ws(1):
                    T.mbarrier_wait_parity(mbarrier=k % stages + stages,
                                           parity=((k // stages) % 2) ^ 1)
                    T.copy(A[by * 64, k * 32], A_s[k % stages, :, :])
                    T.copy(B[k * 32, bx * 64], B_s[k % stages, :, :])
                    T.mbarrier_arrive(mbarrier=k % stages)
                with T.ws(0):
                    T.mbarrier_wait_parity(T.get_mbarrier(k % stages), (k // stages) % 2)
                    T.gemm(A_s[k % stages, :, :], B_s[k % stages, :, :], acc)
                    T.mbarrier_arrive(k % stages + stages)
            with T.ws(0):
                T.copy(acc, C[by * 64, bx * 64])
    return main
