# MLA decode as TileLang's examples/deepseek_mla/example_mla_decode.py writes it (the
# no-split kernel), at small sizes: Q K^T and the rope part Q_pe K_pe^T accumulate into
# one score tile, and KV_shared is also P V's B operand. On sm_90a the two score gemms
# agree (KV_shared's two readers are alike in share mode), and with M = 64 the second
# warpgroup splits N: all three gemms are wgmmas over N, the scores stay in registers,
# and the row max and sum cross the two warpgroups through one shared workspace.
import tilelang
import tilelang.language as T


def mla_decode(batch=1, heads=64, seqlen_kv=128, dim=128, pe_dim=32, block_N=64, block_H=64):
    scale = (dim + pe_dim) ** -0.5 * 1.44269504
    dtype, accum_dtype = "float16", "float32"

    @T.prim_func
    def main(Q: T.Tensor([batch, heads, dim], dtype), Q_pe: T.Tensor([batch, heads, pe_dim], dtype),
             KV: T.Tensor([batch, seqlen_kv, 1, dim], dtype),
             K_pe: T.Tensor([batch, seqlen_kv, 1, pe_dim], dtype),
             Output: T.Tensor([batch, heads, dim], dtype)):
        with T.Kernel(heads // block_H, batch, threads=256) as (hid, bid):
            Q_shared = T.alloc_shared([block_H, dim], dtype)
            S_shared = T.alloc_shared([block_H, block_N], dtype)
            Q_pe_shared = T.alloc_shared([block_H, pe_dim], dtype)
            KV_shared = T.alloc_shared([block_N, dim], dtype)
            K_pe_shared = T.alloc_shared([block_N, pe_dim], dtype)
            O_shared = T.alloc_shared([block_H, dim], dtype)
            acc_s = T.alloc_fragment([block_H, block_N], accum_dtype)
            acc_o = T.alloc_fragment([block_H, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_H], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_H], accum_dtype)
            scores_scale = T.alloc_fragment([block_H], accum_dtype)
            scores_sum = T.alloc_fragment([block_H], accum_dtype)
            logsum = T.alloc_fragment([block_H], accum_dtype)
            T.copy(Q[bid, hid * block_H:(hid + 1) * block_H, :], Q_shared)
            T.copy(Q_pe[bid, hid * block_H:(hid + 1) * block_H, :], Q_pe_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))
            for k in T.Pipelined(T.ceildiv(seqlen_kv, block_N), num_stages=2):
                T.copy(KV[bid, k * block_N:(k + 1) * block_N, 0, :], KV_shared)
                T.copy(K_pe[bid, k * block_N:(k + 1) * block_N, 0, :], K_pe_shared)
                T.gemm(Q_shared, KV_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullCol, clear_accum=True)
                T.gemm(Q_pe_shared, K_pe_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullCol)
                T.copy(scores_max, scores_max_prev)
                T.fill(scores_max, -T.infinity(accum_dtype))
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_H):
                    scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
                for i in T.Parallel(block_H):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_H, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                T.copy(acc_s, S_shared)
                for i in T.Parallel(block_H):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                for i, j in T.Parallel(block_H, dim):
                    acc_o[i, j] *= scores_scale[i]
                T.gemm(S_shared, KV_shared, acc_o, policy=T.GemmWarpPolicy.FullCol)
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bid, hid * block_H:(hid + 1) * block_H, :])

    return main
