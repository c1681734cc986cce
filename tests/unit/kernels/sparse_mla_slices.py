# sparse_mla_pipelined.py's kernel in one warp group, without T.ws regions (the C target
# runs regions one after the other, so it cannot run that kernel's producer/consumer
# protocol): the same column slices of Q (loaded by T.tma_copy) and of the 3-D K/V stage
# buffer (filled by T.ptx_cp_async over 64-column panels) as T.wgmma_gemm and T.gemm
# operands, which split_shared.c makes tiles of their own on CUDA. It is also the C
# target's reference for sparse_mla_pipelined.py (same parameters, same result). With
# wgmma=False the score gemms are T.gemm (sm_80: mma.sync, the T.tma_copy a plain copy).
import tilelang
import tilelang.language as T


def sparse_mla_slices(heads=64, dim=256, tail_dim=64, topk=256, kv_stride=1, block_I=64,
                      wgmma=True):
    num_stages = 2
    sm_scale = (1.0 / (dim + tail_dim)) ** 0.5 * 1.44269504
    batch, seq_len, seq_len_kv = T.dynamic("batch, seq_len, seq_len_kv")
    dtype, accum_dtype, indices_dtype = "bfloat16", "float32", "int32"
    H, BI, D, D_tail = heads, block_I, dim, tail_dim
    NI = topk // block_I

    @T.prim_func
    def main(Q: T.Tensor([batch, seq_len, heads, dim + tail_dim], dtype),
             KV: T.Tensor([batch, seq_len_kv, 1, dim + tail_dim], dtype),
             Indices: T.Tensor([batch, seq_len, 1, topk], indices_dtype),
             q_start_index_s: T.Tensor([1], indices_dtype),
             Output: T.Tensor([batch, seq_len, heads, dim], dtype)):
        with T.Kernel(seq_len - kv_stride + 1, batch, 1, threads=128) as (bx, by, bz):
            Q_shared = T.alloc_shared([H, D + D_tail], dtype)
            KV_shared = T.alloc_shared([num_stages, BI, D + D_tail], dtype)
            O_shared = Q_shared
            is_kv_valid = T.alloc_shared([num_stages, BI], "bool", scope="shared")
            acc_o_l = T.alloc_fragment([H, D // 2], accum_dtype)
            acc_o_r = T.alloc_fragment([H, D // 2], accum_dtype)
            acc_s = T.alloc_fragment([H, BI], accum_dtype)
            S_shared = T.alloc_shared([H, BI], dtype)
            sumexp = T.alloc_fragment([H], accum_dtype)
            sumexp_i = T.alloc_fragment([H], accum_dtype)
            alpha_local = T.alloc_fragment([H], accum_dtype)
            m_i = T.alloc_fragment([H], accum_dtype)
            m_i_prev = T.alloc_fragment([H], accum_dtype)
            indices_local = T.alloc_var(indices_dtype)
            bar_q = T.alloc_barrier(arrive_count=128)
            bar_k_ready = T.alloc_barrier(arrive_count=[128] * num_stages)

            b_i, g_i = by, bz
            s_i = bx + kv_stride - 1
            max_kv_i = (T.max(q_start_index_s[0], 0) + s_i + 1 - kv_stride) // kv_stride
            H0 = g_i * heads
            tx = T.get_thread_binding()

            T.tma_copy(Q[b_i, s_i, H0:H0 + H, :], Q_shared, barrier=bar_q)
            T.barrier_arrive(bar_q)
            T.fill(sumexp, 0)
            T.fill(m_i, -(2**30))
            T.fill(acc_o_l, 0)
            T.fill(acc_o_r, 0)
            T.barrier_wait(bar_q, 0)
            for i_i in T.serial(T.ceildiv(NI, num_stages)):
                for stage in T.unroll(num_stages):
                    for r in T.serial(4):
                        indices_local = Indices[b_i, s_i, g_i,
                                                (i_i * num_stages + stage) * BI + r * 16 + tx // 8]
                        is_kv_valid[stage, r * 16 + tx // 8] = (indices_local <= max_kv_i and
                                                                indices_local >= 0)
                        if is_kv_valid[stage, r * 16 + tx // 8]:
                            for u in T.serial((D + D_tail) // 64):
                                T.ptx_cp_async(
                                    T.access_ptr(KV_shared[stage, r * 16 + tx // 8,
                                                           64 * u + tx % 8 * 8], "w", 8),
                                    T.access_ptr(KV[b_i, indices_local, g_i, 64 * u + tx % 8 * 8],
                                                 "r", 8), 8)
                    T.cp_async_barrier_noinc(bar_k_ready[stage])
                    T.barrier_wait(bar_k_ready[stage], i_i & 1)
                    for h_i, bi_i in T.Parallel(H, BI):
                        acc_s[h_i, bi_i] = T.if_then_else(is_kv_valid[stage, bi_i], 0,
                                                          -T.infinity(acc_s.dtype))
                    if wgmma:
                        T.wgmma_gemm(Q_shared[:, :D // 2], KV_shared[stage, :, :D // 2], acc_s,
                                     transpose_B=True)
                        T.wgmma_gemm(Q_shared[:, D // 2:D], KV_shared[stage, :, D // 2:D], acc_s,
                                     transpose_B=True)
                        T.wgmma_gemm(Q_shared[:, D:], KV_shared[stage, :, D:], acc_s,
                                     transpose_B=True)
                        T.wait_wgmma(0)
                    else:
                        T.gemm(Q_shared[:, :D // 2], KV_shared[stage, :, :D // 2], acc_s,
                               transpose_B=True)
                        T.gemm(Q_shared[:, D // 2:D], KV_shared[stage, :, D // 2:D], acc_s,
                               transpose_B=True)
                        T.gemm(Q_shared[:, D:], KV_shared[stage, :, D:], acc_s, transpose_B=True)
                    T.copy(m_i, m_i_prev)
                    T.reduce_max(acc_s, m_i, dim=1, clear=False)
                    for h_i in T.Parallel(H):
                        m_i[h_i] = T.max(m_i[h_i], m_i_prev[h_i])
                    for h_i in T.Parallel(H):
                        alpha_local[h_i] = T.exp2((m_i_prev[h_i] - m_i[h_i]) * sm_scale)
                    for h_i, bi_i in T.Parallel(H, BI):
                        acc_s[h_i, bi_i] = T.exp2(acc_s[h_i, bi_i] * sm_scale - m_i[h_i] * sm_scale)
                    T.reduce_sum(acc_s, sumexp_i, dim=1)
                    for h_i in T.Parallel(H):
                        sumexp[h_i] = sumexp[h_i] * alpha_local[h_i] + sumexp_i[h_i]
                    for h_i, d_i in T.Parallel(H, D // 2):
                        acc_o_l[h_i, d_i] *= alpha_local[h_i]
                        acc_o_r[h_i, d_i] *= alpha_local[h_i]
                    T.copy(acc_s, S_shared)
                    T.gemm(S_shared, KV_shared[stage, :, :D // 2], acc_o_l)
                    T.gemm(S_shared, KV_shared[stage, :, D // 2:D], acc_o_r)
            for h_i, d_i in T.Parallel(H, D // 2):
                acc_o_l[h_i, d_i] /= sumexp[h_i]
                acc_o_r[h_i, d_i] /= sumexp[h_i]
            T.copy(acc_o_l, O_shared[:, :D // 2])
            T.copy(O_shared[:, :D // 2], Output[b_i, s_i, H0:H0 + H, 0:D // 2])
            T.copy(acc_o_r, O_shared[:, D // 2:D])
            T.copy(O_shared[:, D // 2:D], Output[b_i, s_i, H0:H0 + H, D // 2:D])

    return main
