# sm_90a: attention backward's gemm shapes (upstream example_gqa_bwd, block_M = 128,
# block_N = 32, dim_qk = 192): four gemms on wgmma (two with a register A, one N = 192)
# and dQ's, whose M = 32 is too small for a warpgroup, on mma.sync. K_s and q are read
# by both kinds: mma.sync reads them in the wgmma's 64-column panels.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-3, -2, -1])
def k(BM=128, BN=32, DQK=192, DV=128):
    @T.prim_func
    def main(K: T.Tensor((BM, DQK), "float16"), V: T.Tensor((BM, DV), "float16"),
             Q: T.Tensor((BN, DQK), "float16"), dO: T.Tensor((BN, DV), "float16"),
             dV: T.Tensor((BM, DV), "float32"), dK: T.Tensor((BM, DQK), "float32"),
             dQ: T.Tensor((BN, DQK), "float32")):
        with T.Kernel(1, threads=256) as bx:
            K_s = T.alloc_shared((BM, DQK), "float16")
            V_s = T.alloc_shared((BM, DV), "float16")
            q = T.alloc_shared((BN, DQK), "float16")
            do = T.alloc_shared((BN, DV), "float16")
            dsT_shared = T.alloc_shared((BM, BN), "float16")
            qkT = T.alloc_fragment((BM, BN), "float32")
            dsT = T.alloc_fragment((BM, BN), "float32")
            qkT_cast = T.alloc_fragment((BM, BN), "float16")
            dsT_cast = T.alloc_fragment((BM, BN), "float16")
            dv = T.alloc_fragment((BM, DV), "float32")
            dk = T.alloc_fragment((BM, DQK), "float32")
            dq = T.alloc_fragment((BN, DQK), "float32")
            T.copy(K, K_s)
            T.copy(V, V_s)
            T.copy(Q, q)
            T.copy(dO, do)
            T.clear(dv)
            T.clear(dk)
            T.gemm(K_s, q, qkT, transpose_B=True, policy=T.GemmWarpPolicy.FullRow, clear_accum=True)
            T.gemm(V_s, do, dsT, transpose_B=True, policy=T.GemmWarpPolicy.FullRow, clear_accum=True)
            T.copy(qkT, qkT_cast)
            T.gemm(qkT_cast, do, dv, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(BM, BN):
                dsT_cast[i, j] = qkT[i, j] * dsT[i, j] * 0.125
            T.gemm(dsT_cast, q, dk, policy=T.GemmWarpPolicy.FullRow)
            T.copy(dsT_cast, dsT_shared)
            T.clear(dq)
            T.gemm(dsT_shared, K_s, dq, transpose_A=True)
            T.copy(dv, dV)
            T.copy(dk, dK)
            T.copy(dq, dQ)
    return main
