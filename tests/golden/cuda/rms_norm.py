# RMS norm over rows: a fragment row reduction (T.reduce_sum) between element-wise
# T.Parallel nests that share its layout.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def rms_norm(M=64, N=256, blk_m=4, eps=1e-6):

    @T.prim_func
    def main(A: T.Tensor((M, N), "float"), B: T.Tensor((M, N), "float")):
        with T.Kernel(T.ceildiv(M, blk_m), threads=128) as bx:
            A_shared = T.alloc_shared((blk_m, N), "float")
            A_pow_local = T.alloc_fragment((blk_m, N), "float")
            A_local = T.alloc_fragment((blk_m, N), "float")
            A_powsum = T.alloc_fragment((blk_m,), "float")
            T.copy(A[bx * blk_m:(bx + 1) * blk_m, :], A_shared)
            T.copy(A_shared, A_local)
            for i, j in T.Parallel(blk_m, N):
                A_pow_local[i, j] = A_local[i, j] * A_local[i, j]
            T.reduce_sum(A_pow_local, A_powsum, dim=1)
            for i in T.Parallel(blk_m):
                A_powsum[i] = T.rsqrt(A_powsum[i] / N + eps)
            for i, j in T.Parallel(blk_m, N):
                A_local[i, j] *= A_powsum[i]
            T.copy(A_local, B[bx * blk_m:(bx + 1) * blk_m, :])

    return main
