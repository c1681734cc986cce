# DeepSeek-V3.2's sparse MLA forward as TileLang's examples/deepseek_v32/sparse_mla_fwd.py
# writes it, at small sizes: Q and its rope part side by side in one shared tile
# (Q_shared[:, :D] and Q_shared[:, D:], each a gemm's A: split_shared.c makes them tiles
# of their own, so both gemms run on tensor cores), the top-k rows of KV gathered by
# index, 64 head rows over 8 warps with FullRow (4 x 2 for the scores and the output
# alike, so the row statistics stay in registers).
import tilelang
import tilelang.language as T


def sparse_mla(seq_len=4, seq_len_kv=64, heads=64, dim=64, tail_dim=32, topk=64, block_I=32):
    dtype, accum_dtype = "bfloat16", "float32"
    sm_scale = (1.0 / (dim + tail_dim)) ** 0.5 * 1.44269504
    BI, D, D_tail, NI = block_I, dim, tail_dim, topk // block_I

    @T.prim_func
    def main(Q: T.Tensor([seq_len, heads, dim + tail_dim], dtype),
             KV: T.Tensor([seq_len_kv, dim + tail_dim], dtype),
             Indices: T.Tensor([seq_len, topk], "int32"),
             Output: T.Tensor([seq_len, heads, dim], dtype)):
        with T.Kernel(seq_len, threads=256) as s_i:
            Q_shared = T.alloc_shared([heads, D + D_tail], dtype)
            KV_shared = T.alloc_shared([BI, D], dtype)
            K_tail_shared = T.alloc_shared([BI, D_tail], dtype)
            mask = T.alloc_fragment([BI], "bool")
            acc_o = T.alloc_fragment([heads, D], accum_dtype)
            acc_s = T.alloc_fragment([heads, BI], accum_dtype)
            S_shared = T.alloc_shared([heads, BI], dtype)
            sumexp = T.alloc_fragment([heads], accum_dtype)
            sumexp_i = T.alloc_fragment([heads], accum_dtype)
            alpha = T.alloc_fragment([heads], accum_dtype)
            m_i = T.alloc_fragment([heads], accum_dtype)
            m_i_prev = T.alloc_fragment([heads], accum_dtype)
            T.fill(acc_o, 0)
            T.fill(sumexp, 0)
            T.fill(m_i, -(2**30))
            T.copy(Q[s_i, :, :D], Q_shared[:, :D])
            T.copy(Q[s_i, :, D:], Q_shared[:, D:])
            for i_i in T.Pipelined(NI, num_stages=2):
                for bi_i in T.Parallel(BI):
                    mask[bi_i] = Indices[s_i, i_i * BI + bi_i] <= s_i * 16
                for bi_i, d_i in T.Parallel(BI, D):
                    KV_shared[bi_i, d_i] = KV[Indices[s_i, i_i * BI + bi_i], d_i]
                for bi_i, d_i in T.Parallel(BI, D_tail):
                    K_tail_shared[bi_i, d_i] = KV[Indices[s_i, i_i * BI + bi_i], D + d_i]
                for h_i, bi_i in T.Parallel(heads, BI):
                    acc_s[h_i, bi_i] = T.if_then_else(mask[bi_i], 0, -T.infinity(acc_s.dtype))
                T.gemm(Q_shared[:, :D], KV_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                T.gemm(Q_shared[:, D:], K_tail_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                T.copy(m_i, m_i_prev)
                T.reduce_max(acc_s, m_i, dim=1, clear=False)
                for h_i in T.Parallel(heads):
                    m_i[h_i] = T.max(m_i[h_i], m_i_prev[h_i])
                for h_i in T.Parallel(heads):
                    alpha[h_i] = T.exp2((m_i_prev[h_i] - m_i[h_i]) * sm_scale)
                for h_i, bi_i in T.Parallel(heads, BI):
                    acc_s[h_i, bi_i] = T.exp2(acc_s[h_i, bi_i] * sm_scale - m_i[h_i] * sm_scale)
                T.reduce_sum(acc_s, sumexp_i, dim=1)
                for h_i in T.Parallel(heads):
                    sumexp[h_i] = sumexp[h_i] * alpha[h_i] + sumexp_i[h_i]
                for h_i, d_i in T.Parallel(heads, D):
                    acc_o[h_i, d_i] = acc_o[h_i, d_i] * alpha[h_i]
                T.copy(acc_s, S_shared)
                T.gemm(S_shared, KV_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for h_i, d_i in T.Parallel(heads, D):
                acc_o[h_i, d_i] /= sumexp[h_i]
            T.copy(acc_o, Output[s_i, :, :])

    return main
