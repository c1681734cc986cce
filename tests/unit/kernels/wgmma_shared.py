# sm_90a share mode (infer_layouts.c): a transposed A read by wgmma as an MN-major operand
# ([K][M] in 64-column panels, two warpgroups each at its own panel), and one shared tile
# read by two gemms, K-major (C1's B) and MN-major (C3's B), in one layout (a stage of a
# 3-D tile).
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-2, -1])
def k(M=128, N=64, K=64):
    @T.prim_func
    def main(A: T.Tensor((K, M), "float16"), B: T.Tensor((N, K), "float16"),
             Q: T.Tensor((M, N), "float16"), C1: T.Tensor((M, N), "float32"),
             C3: T.Tensor((M, K), "float32")):
        with T.Kernel(1, threads=256) as bx:
            A_s = T.alloc_shared((K, M), "float16")
            B_s = T.alloc_shared((2, N, K), "float16")
            Q_s = T.alloc_shared((M, N), "float16")
            acc1 = T.alloc_fragment((M, N), "float32")
            acc3 = T.alloc_fragment((M, K), "float32")
            T.copy(A, A_s)
            T.copy(B, B_s[1, :, :])
            T.copy(Q, Q_s)
            T.clear(acc1)
            T.clear(acc3)
            T.gemm(A_s, B_s[1, :, :], acc1, transpose_A=True, transpose_B=True)
            T.gemm(Q_s, B_s[1, :, :], acc3)
            T.copy(acc1, C1)
            T.copy(acc3, C3)
    return main
