"""A shared tile used in column slices (split_shared.c on CUDA): DeepSeek-V3.2's sparse
MLA forward in TileLang's own style (tests/unit/kernels/sparse_mla.py, which
test_emit_cuda also simulates on the CUDA target) against a NumPy reference."""
import numpy as np


def to_bf16(x):
    """x rounded to bfloat16 (nearest even), as float32."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16
    return u.astype(np.uint32).view(np.float32)


def test_sparse_mla_forward(tilec):
    S, SKV, H, D, DT, TOPK = 4, 64, 64, 64, 32, 64
    rng = np.random.default_rng(7)
    q = to_bf16(rng.uniform(-1, 1, (S, H, D + DT)))
    kv = to_bf16(rng.uniform(-1, 1, (SKV, D + DT)))
    idx = np.stack([rng.permutation(SKV)[:TOPK] for _ in range(S)]).astype(np.int32)
    out = tilec.run("tests/unit/kernels/sparse_mla.py", {},
                    {"Q": q, "KV": kv, "Indices": idx})
    scale = (1.0 / (D + DT)) ** 0.5
    ref = np.zeros((S, H, D))
    for s in range(S):
        keys = kv[idx[s]].astype(np.float64)
        logits = q[s].astype(np.float64) @ keys.T * scale
        logits[:, idx[s] > s * 16] = -np.inf
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        ref[s] = (p / p.sum(axis=1, keepdims=True)) @ keys[:, :D]
    np.testing.assert_allclose(out["Output"].astype(np.float64), ref, rtol=2e-2, atol=2e-2)


def sparse_mla_reference(q, kv, idx, q_start, dim):
    """Output of the pipelined sparse MLA forward (one KV group): softmax over the top-k
    rows whose index is in [0, q_start + s], P rounded to bfloat16 as the kernel's S
    tile, times the rows' first dim columns."""
    B, S, H, _ = q.shape
    scale = (1.0 / q.shape[-1]) ** 0.5
    out = np.zeros((B, S, H, dim))
    for b in range(B):
        for s in range(S):
            rows = idx[b, s, 0]
            valid = (rows >= 0) & (rows <= q_start + s)
            keys = kv[b, np.clip(rows, 0, None), 0].astype(np.float64)
            logits = q[b, s].astype(np.float64) @ keys.T * scale
            logits[:, ~valid] = -np.inf
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            out[b, s] = to_bf16(p) @ keys[:, :dim] / p.sum(axis=1, keepdims=True)
    return out


def test_sparse_mla_column_slices(tilec):
    """DeepSeek-V3.2's pipelined sparse MLA forward in one warp group (upstream's
    T.tma_copy tile and 3-D cp.async stage buffer read in column slices by
    T.wgmma_gemm): tests/unit/kernels/sparse_mla_slices.py."""
    B, S, SKV, H, D, DT, TOPK, START = 1, 3, 32, 64, 256, 64, 256, 5
    rng = np.random.default_rng(11)
    q = to_bf16(rng.uniform(-1, 1, (B, S, H, D + DT)))
    kv = to_bf16(rng.uniform(-1, 1, (B, SKV, 1, D + DT)))
    idx = rng.integers(-4, SKV, (B, S, 1, TOPK)).astype(np.int32)
    idx[..., 0] = 0  # every row has a valid key
    out = tilec.run("tests/unit/kernels/sparse_mla_slices.py", {},
                    {"Q": q, "KV": kv, "Indices": idx,
                     "q_start_index_s": np.array([START], np.int32)})
    ref = sparse_mla_reference(q, kv, idx, START, D)
    np.testing.assert_allclose(out["Output"].astype(np.float64), ref, rtol=2e-2, atol=2e-2)
