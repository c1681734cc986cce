# sm_90a, as the warp-specialized FlashMLA example: T.wgmma_gemm on K slices
# Q_s[:, j * 64:(j + 1) * 64] whose start is the variable of a T.unroll loop, the tile
# filled slice by slice by T.tma_copy (a barrier each), and a whole-tile gemm reading
# the same tile MN-major: the tiles are stored in 64-column panels, each slice a whole
# tile of them, and every gemm is a wgmma. wgmma=False: T.gemm (sm_80: mma.sync on the
# panels, the T.tma_copy a plain copy, P through shared memory).
import tilelang
import tilelang.language as T


def kslices(H=64, N=128, D=256, dtype="float16", wgmma=True):
    nk = D // 64

    @T.prim_func
    def main(Q: T.Tensor((H, D), dtype), KV: T.Tensor((N, D), dtype),
             O: T.Tensor((H, D), "float32")):
        with T.Kernel(1, threads=128) as bx:
            Q_s = T.alloc_shared((H, D), dtype)
            KV_s = T.alloc_shared((64, D), dtype)
            acc_s = T.alloc_fragment((H, 64), "float32")
            S_cast = T.alloc_fragment((H, 64), dtype)
            acc_o = T.alloc_fragment((H, D), "float32")
            S_s = T.alloc_shared((H, 64), dtype)
            q_ready = T.alloc_barrier(arrive_count=128)
            kv_ready = T.alloc_barrier(arrive_count=[128] * nk)
            T.tma_copy(Q[0:H, 0:D], Q_s, barrier=q_ready)
            T.barrier_arrive(q_ready)
            T.barrier_wait(q_ready, 0)
            T.clear(acc_o)
            for k in T.serial(N // 64):
                for j in T.unroll(nk):
                    T.tma_copy(KV[k * 64:(k + 1) * 64, j * 64:(j + 1) * 64],
                               KV_s[:, j * 64:(j + 1) * 64], barrier=kv_ready[j])
                    T.barrier_arrive(kv_ready[j])
                for j in T.unroll(nk):
                    T.barrier_wait(kv_ready[j], k % 2)
                    if wgmma:
                        T.wgmma_gemm(Q_s[:, j * 64:(j + 1) * 64], KV_s[:, j * 64:(j + 1) * 64],
                                     acc_s, transpose_B=True, clear_accum=(j == 0))
                    else:
                        T.gemm(Q_s[:, j * 64:(j + 1) * 64], KV_s[:, j * 64:(j + 1) * 64],
                               acc_s, transpose_B=True, clear_accum=(j == 0))
                if wgmma:
                    T.wait_wgmma(0)
                for i, c in T.Parallel(H, 64):
                    S_cast[i, c] = acc_s[i, c] * 0.0625
                if wgmma:
                    T.wgmma_gemm(S_cast, KV_s, acc_o)
                    T.wait_wgmma(0)
                else:
                    T.copy(S_cast, S_s)
                    T.gemm(S_s, KV_s, acc_o)
            T.copy(acc_o, O)

    return main
