# DeepSeek-V3.2's sparse MLA forward as TileLang's
# examples/deepseek_v32/sparse_mla_fwd_pipelined.py writes it, at small sizes (dim 256 +
# rope 64 where the example has 512 + 64): Q loaded by T.tma_copy into one shared tile and
# read as three column slices by T.wgmma_gemm, K and V in one 3-D stage buffer filled by
# T.ptx_cp_async in a loop over 64-column panels and read as slices by the score and the
# output gemms; two consumer warp groups and a producer, ordered by mbarriers.
# split_shared.c makes each slice a tile of its own (the TMA copy one per tile, the
# cp.async loop one per tile), so every gemm is a wgmma on sm_90a. A gathered row is
# valid only when its index is also >= 0, and the start index counts from 0 at least
# (the test's random integers may be negative).
import tilelang
import tilelang.language as T


def sparse_mla_pipelined(heads=64, dim=256, tail_dim=64, topk=256, kv_stride=1, block_I=64):
    num_stages, threads = 2, 384
    sm_scale = (1.0 / (dim + tail_dim)) ** 0.5 * 1.44269504
    batch, seq_len, seq_len_kv = T.dynamic("batch, seq_len, seq_len_kv")
    dtype, accum_dtype, indices_dtype = "bfloat16", "float32", "int32"
    H_per_block, BI, D, D_tail = heads, block_I, dim, tail_dim
    NI = topk // block_I

    @T.prim_func
    def main(Q: T.Tensor([batch, seq_len, heads, dim + tail_dim], dtype),
             KV: T.Tensor([batch, seq_len_kv, 1, dim + tail_dim], dtype),
             Indices: T.Tensor([batch, seq_len, 1, topk], indices_dtype),
             q_start_index_s: T.Tensor([1], indices_dtype),
             Output: T.Tensor([batch, seq_len, heads, dim], dtype)):
        with T.Kernel(seq_len - kv_stride + 1, batch, 1, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared([H_per_block, D + D_tail], dtype)
            KV_shared = T.alloc_shared([num_stages, BI, D + D_tail], dtype)
            O_shared = Q_shared
            is_kv_valid = T.alloc_shared([num_stages, BI], "bool", scope="shared")
            acc_o_l = T.alloc_fragment([H_per_block, D // 2], accum_dtype)
            acc_o_r = T.alloc_fragment([H_per_block, D // 2], accum_dtype)
            acc_s = T.alloc_fragment([H_per_block, BI], accum_dtype)
            S_shared = T.alloc_shared([H_per_block, BI], dtype)
            sumexp = T.alloc_fragment([H_per_block], accum_dtype)
            sum_exp_shared = T.alloc_shared([H_per_block], accum_dtype)
            sumexp_i = T.alloc_fragment([H_per_block], accum_dtype)
            alpha_shared = T.alloc_shared([H_per_block], accum_dtype, scope="shared")
            alpha_local = T.alloc_fragment([H_per_block], accum_dtype)
            m_i = T.alloc_fragment([H_per_block], accum_dtype)
            m_i_prev = T.alloc_fragment([H_per_block], accum_dtype)
            indices_local = T.alloc_var(indices_dtype)

            bar_q = T.alloc_barrier(arrive_count=384)
            bar_k_ready = T.alloc_barrier(arrive_count=[128] * num_stages)
            bar_k_free = T.alloc_barrier(arrive_count=[256] * num_stages)
            bar_sScale_and_sS_ready = T.alloc_barrier(arrive_count=256)
            bar_sScale_and_sS_free = T.alloc_barrier(arrive_count=256)

            b_i, g_i = by, bz
            s_i = bx + kv_stride - 1
            q_i = T.max(q_start_index_s[0], 0) + s_i
            max_kv_i = (q_i + 1 - kv_stride) // kv_stride
            H0 = g_i * heads
            H1 = H0 + H_per_block
            tx = T.get_thread_binding()

            T.tma_copy(Q[b_i, s_i, H0:H1, :], Q_shared, barrier=bar_q)
            T.barrier_arrive(bar_q)

            if tx < 128:
                T.set_max_nreg(240, 1)
                T.fill(sumexp, 0)
                T.fill(m_i, -(2**30))
                T.fill(acc_o_l, 0)
                T.barrier_wait(bar_q, 0)
                for i_i in T.serial(T.ceildiv(NI, num_stages)):
                    for stage in T.unroll(num_stages):
                        T.barrier_wait(bar_k_ready[stage], (i_i & 1))
                        for h_i, bi_i in T.Parallel(H_per_block, BI):
                            acc_s[h_i, bi_i] = T.if_then_else(is_kv_valid[stage, bi_i], 0,
                                                              -T.infinity(acc_s.dtype))
                        T.wgmma_gemm(Q_shared[:, :D // 2], KV_shared[stage, :, :D // 2], acc_s,
                                     transpose_B=True)
                        T.wgmma_gemm(Q_shared[:, D // 2:D], KV_shared[stage, :, D // 2:D], acc_s,
                                     transpose_B=True)
                        T.wgmma_gemm(Q_shared[:, D:], KV_shared[stage, :, D:], acc_s,
                                     transpose_B=True)
                        T.wait_wgmma(0)
                        if i_i != 0 or stage != 0:
                            T.barrier_arrive(bar_sScale_and_sS_free)
                            T.barrier_wait(bar_sScale_and_sS_free,
                                           ((i_i * num_stages + stage) & 1) ^ 1)
                        T.copy(m_i, m_i_prev)
                        T.reduce_max(acc_s, m_i, dim=1, clear=False)
                        for h_i in T.Parallel(H_per_block):
                            m_i[h_i] = T.max(m_i[h_i], m_i_prev[h_i])
                        for h_i in T.Parallel(H_per_block):
                            alpha_local[h_i] = T.exp2((m_i_prev[h_i] - m_i[h_i]) * sm_scale)
                        for h_i, bi_i in T.Parallel(H_per_block, BI):
                            acc_s[h_i, bi_i] = T.exp2(acc_s[h_i, bi_i] * sm_scale -
                                                      m_i[h_i] * sm_scale)
                        T.reduce_sum(acc_s, sumexp_i, dim=1)
                        for h_i in T.Parallel(H_per_block):
                            sumexp[h_i] = sumexp[h_i] * alpha_local[h_i] + sumexp_i[h_i]
                        for h_i, d_i in T.Parallel(H_per_block, D // 2):
                            acc_o_l[h_i, d_i] *= alpha_local[h_i]
                        T.copy(alpha_local, alpha_shared)
                        T.copy(acc_s, S_shared)
                        T.gemm(S_shared, KV_shared[stage, :, :D // 2], acc_o_l)
                        T.barrier_arrive(bar_sScale_and_sS_ready)
                        T.barrier_arrive(bar_k_free[stage])
                for h_i in T.Parallel(H_per_block):
                    sum_exp_shared[h_i] = sumexp[h_i]
                for h_i, d_i in T.Parallel(H_per_block, D // 2):
                    acc_o_l[h_i, d_i] /= sumexp[h_i]
                T.copy(acc_o_l, O_shared[:, :D // 2])
                T.copy(O_shared[:, :D // 2], Output[b_i, s_i, H0:H1, 0:D // 2])
            elif tx >= 128 and tx < 256:
                T.set_max_nreg(168, 1)
                T.fill(acc_o_r, 0)
                for i_i in T.serial(T.ceildiv(NI, num_stages)):
                    for stage in T.unroll(num_stages):
                        T.barrier_arrive(bar_sScale_and_sS_ready)
                        T.barrier_wait(bar_sScale_and_sS_ready,
                                       ((i_i * num_stages + stage) & 1))
                        for h_i, d_i in T.Parallel(H_per_block, D // 2):
                            acc_o_r[h_i, d_i] *= alpha_shared[h_i]
                        T.gemm(S_shared, KV_shared[stage, :, D // 2:D], acc_o_r)
                        T.barrier_arrive(bar_k_free[stage])
                        if stage != num_stages - 1 or i_i != T.ceildiv(NI, num_stages) - 1:
                            T.barrier_arrive(bar_sScale_and_sS_free)
                for h_i, d_i in T.Parallel(H_per_block, D // 2):
                    acc_o_r[h_i, d_i] /= sum_exp_shared[h_i]
                T.copy(acc_o_r, O_shared[:, D // 2:D])
                T.copy(O_shared[:, D // 2:D], Output[b_i, s_i, H0:H1, D // 2:D])
            elif tx >= 256:
                T.set_max_nreg(80, 0)
                for i_i in T.serial(T.ceildiv(NI, num_stages)):
                    for stage in T.unroll(num_stages):
                        T.barrier_wait(bar_k_free[stage], ((i_i & 1) ^ 1))
                        for r in T.serial(4):
                            indices_local = Indices[b_i, s_i, g_i,
                                                    (i_i * num_stages + stage) * BI + r * 16 +
                                                    (tx - 256) // 8]
                            is_kv_valid[stage, r * 16 + (tx - 256) // 8] = (
                                indices_local <= max_kv_i and indices_local >= 0)
                            if is_kv_valid[stage, r * 16 + (tx - 256) // 8]:
                                for u in T.serial((D + D_tail) // 64):
                                    T.ptx_cp_async(
                                        T.access_ptr(KV_shared[stage, r * 16 + (tx - 256) // 8,
                                                               64 * u + (tx - 256) % 8 * 8],
                                                     "w", 8),
                                        T.access_ptr(KV[b_i, indices_local, g_i,
                                                        64 * u + (tx - 256) % 8 * 8], "r", 8),
                                        8)
                        T.cp_async_barrier_noinc(bar_k_ready[stage])

    return main
