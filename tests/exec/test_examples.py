"""Runs every kernel in examples/ through `tilec run` and compares its outputs with an
independent NumPy reference computed in float64, at sizes that divide the tiles and at
sizes that do not."""
import numpy as np
import pytest

RNG_SEED = 1234

# (rtol, atol) for an output of this dtype when the computation itself is exact enough.
TOL = {np.float16: (2e-3, 2e-3), np.float32: (1e-5, 1e-5), np.float64: (1e-12, 1e-12)}


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(RNG_SEED + seed)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def check(out, ref, dtype, rtol=None, atol=None):
    """Compares out with the float64 reference ref. Also requires the reference to be
    non-trivial at this tolerance, so that a kernel writing zeros cannot pass."""
    d_rtol, d_atol = TOL[dtype]
    rtol = d_rtol if rtol is None else rtol
    atol = d_atol if atol is None else atol
    assert out.dtype == dtype, "output dtype %s, expected %s" % (out.dtype, np.dtype(dtype))
    assert out.shape == ref.shape, "output shape %s, expected %s" % (out.shape, ref.shape)
    assert np.all(np.isfinite(out)), "output has inf/nan"
    assert np.abs(ref).max() > 20 * atol, "reference too small for the tolerance"
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=rtol, atol=atol)


# ---- gemm ----------------------------------------------------------------------------
GEMM_CASES = [
    # M, N, K, trans_A, trans_B, extra defines
    (128, 128, 64, False, False, {}),
    (128, 128, 64, False, True, {}),
    (128, 64, 96, True, False, {}),
    (100, 72, 50, False, False, {}),
    (100, 72, 50, False, True, {}),
    (70, 100, 40, True, True, {}),
    (96, 80, 64, False, False, {"block_M": 32, "block_N": 16, "block_K": 16,
                                "num_stages": 3, "out_dtype": "float32"}),
    (90, 70, 72, False, True, {"block_M": 48, "block_N": 32, "block_K": 24}),
    (200, 136, 200, False, False, {"block_M": 128, "block_N": 128, "block_K": 64,
                                   "shared_epilogue": True}),
]


# operands in registers: (a_frag, b_frag) over the transposes, ragged edges
GEMM_OPERAND_CASES = [
    (96, 80, 64, False, False, True, False),
    (100, 72, 50, True, True, True, False),
    (70, 100, 40, False, True, True, True),
    (128, 64, 96, True, False, True, True),
    (64, 64, 64, True, False, False, False),
]


@pytest.mark.parametrize("M,N,K,ta,tb,af,bf", GEMM_OPERAND_CASES)
def test_gemm_operands(tilec, M, N, K, ta, tb, af, bf):
    a = rand((K, M) if ta else (M, K), np.float16, 1)
    b = rand((N, K) if tb else (K, N), np.float16, 2)
    defines = dict(M=M, N=N, K=K, trans_A=ta, trans_B=tb, a_frag=af, b_frag=bf)
    out = tilec.run("examples/gemm_operands.py", defines, {"A": a, "B": b})["C"]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = (a64.T if ta else a64) @ (b64.T if tb else b64)
    check(out, ref, np.float16, rtol=2e-3, atol=1e-4)


# hand-scheduled (T.ws, mbarriers, T.tma_copy): the C target runs the regions in program
# order; ragged edges, fewer iterations than stages, one iteration
@pytest.mark.parametrize("M,N,K,stages,wg", [(256, 256, 256, 3, False), (200, 136, 200, 3, False),
                                             (128, 128, 64, 2, False), (130, 250, 100, 4, False),
                                             (200, 136, 200, 3, True)])
def test_gemm_warp_specialized(tilec, M, N, K, stages, wg):
    a = rand((M, K), np.float16, 1)
    b = rand((K, N), np.float16, 2)
    out = tilec.run("examples/gemm_warp_specialized.py",
                    dict(M=M, N=N, K=K, num_stages=stages, async_wgmma=wg),
                    {"A": a, "B": b})["C"]
    check(out, a.astype(np.float64) @ b.astype(np.float64), np.float16, rtol=2e-3, atol=1e-4)


@pytest.mark.parametrize("M,N,K,ta,tb", [(128, 128, 128, False, False),
                                         (100, 72, 80, True, True),
                                         (70, 100, 96, False, True)])
def test_gemm_int8(tilec, M, N, K, ta, tb):
    rng = np.random.default_rng(RNG_SEED + 3)
    a = rng.integers(-128, 128, size=(K, M) if ta else (M, K), dtype=np.int8)
    b = rng.integers(-128, 128, size=(N, K) if tb else (K, N), dtype=np.int8)
    defines = dict(M=M, N=N, K=K, trans_A=ta, trans_B=tb, in_dtype="int8",
                   out_dtype="int32", accum_dtype="int32")
    out = tilec.run("examples/gemm.py", defines, {"A": a, "B": b})["C"]
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    ref = (a64.T if ta else a64) @ (b64.T if tb else b64)
    assert out.dtype == np.int32 and np.array_equal(out, ref)  # exact


@pytest.mark.parametrize("M,N,K,ta,tb,extra", GEMM_CASES)
def test_gemm(tilec, M, N, K, ta, tb, extra):
    a = rand((K, M) if ta else (M, K), np.float16, 1)
    b = rand((N, K) if tb else (K, N), np.float16, 2)
    defines = dict(M=M, N=N, K=K, trans_A=ta, trans_B=tb, **extra)
    out = tilec.run("examples/gemm.py", defines, {"A": a, "B": b})["C"]
    a64 = a.astype(np.float64)
    b64 = b.astype(np.float64)
    ref = (a64.T if ta else a64) @ (b64.T if tb else b64)
    out_dtype = np.float32 if extra.get("out_dtype") == "float32" else np.float16
    # fp32 accumulation of exact fp16 products: relative error ~K * 2^-24.
    check(out, ref, out_dtype, rtol=2e-3 if out_dtype == np.float16 else 1e-5, atol=1e-4)


def test_gemm_check_default(tilec):
    """The README's first command: default sizes, --check against the C target."""
    proc = tilec.command(["run", "examples/gemm.py", "--check"])
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("M,N,K,b_dtype,extra", [
    (128, 128, 256, "float8_e4m3", {}),
    (100, 72, 200, "float8_e5m2", {"block_M": 64, "block_N": 32, "block_K": 64}),
    (136, 200, 256, "float8_e4m3", {"block_N": 64, "shared_epilogue": True}),
])
def test_gemm_fp8(tilec, M, N, K, b_dtype, extra):
    # multiples of 1/4 up to 7/4: exact in e4m3 and e5m2, so the float32 inputs convert
    # without rounding and the products are exact
    rng = np.random.default_rng(RNG_SEED)
    a = (rng.integers(-7, 8, size=(M, K)) / 4).astype(np.float32)
    b = (rng.integers(-7, 8, size=(N, K)) / 4).astype(np.float32)
    defines = dict(M=M, N=N, K=K, b_dtype=b_dtype, **extra)
    out = tilec.run("examples/gemm_fp8.py", defines, {"A": a, "B": b})["C"]
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    # bfloat16 output (written as float32): relative error 2^-9
    check(out, ref, np.float32, rtol=4e-3, atol=1e-2)


# ---- elementwise add -------------------------------------------------------------------
@pytest.mark.parametrize("M,N", [(128, 256), (100, 130)])
def test_elementwise_add(tilec, M, N):
    a = rand((M, N), np.float16, 1)
    b = rand((M, N), np.float16, 2)
    out = tilec.run("examples/elementwise_add.py", dict(M=M, N=N), {"A": a, "B": b})["C"]
    ref = a.astype(np.float64) + b.astype(np.float64)
    # The sum may be rounded to float16 before the conversion: half an ulp below 2.
    check(out, ref, np.float32, rtol=0, atol=1e-3)


# ---- softmax ---------------------------------------------------------------------------
@pytest.mark.parametrize("M,N,block_M", [(256, 512, 8), (100, 256, 8), (37, 1024, 4),
                                             (20, 1000, 8)])
def test_softmax(tilec, M, N, block_M):
    x = (rand((M, N), np.float16, 3) * 4).astype(np.float16)
    out = tilec.run("examples/softmax.py", dict(M=M, N=N, block_M=block_M), {"X": x})["Y"]
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    check(out, ref, np.float16, rtol=5e-3, atol=2e-5)


# ---- rms norm --------------------------------------------------------------------------
@pytest.mark.parametrize("M,N,blk_m", [(256, 512, 4), (102, 256, 4), (33, 384, 8)])
def test_rms_norm(tilec, M, N, blk_m):
    a = rand((M, N), np.float32, 4)
    eps = 1e-6
    out = tilec.run("examples/rms_norm.py", dict(M=M, N=N, blk_m=blk_m), {"A": a})["B"]
    a64 = a.astype(np.float64)
    ref = a64 / np.sqrt((a64 * a64).mean(axis=1, keepdims=True) + eps)
    check(out, ref, np.float32, rtol=1e-5, atol=1e-5)


# ---- reduce ----------------------------------------------------------------------------
REDUCE_REF = {
    "sum": lambda a, d: a.sum(axis=d),
    "max": lambda a, d: a.max(axis=d),
    "min": lambda a, d: a.min(axis=d),
    "abssum": lambda a, d: np.abs(a).sum(axis=d),
    "absmax": lambda a, d: np.abs(a).max(axis=d),
}

REDUCE_CASES = [(op, dim, 256, 128) for op in ("sum", "max") for dim in (0, 1)]
REDUCE_CASES += [(op, dim, 100, 72) for op in ("sum", "max") for dim in (0, 1)]
REDUCE_CASES += [("min", 1, 100, 72), ("abssum", 0, 64, 96), ("absmax", 1, 64, 96)]


@pytest.mark.parametrize("op,dim,M,N", REDUCE_CASES)
def test_reduce(tilec, op, dim, M, N):
    a = rand((M, N), np.float32, 5)
    out = tilec.run("examples/reduce.py", dict(M=M, N=N, op=op, dim=dim), {"A": a})["B"]
    ref = REDUCE_REF[op](a.astype(np.float64), dim)
    check(out, ref, np.float32, rtol=1e-5, atol=1e-4)


# ---- cumsum ----------------------------------------------------------------------------
def tile_cumsum(a, bm, bn, dim, reverse):
    out = np.empty_like(a)
    for i in range(0, a.shape[0], bm):
        for j in range(0, a.shape[1], bn):
            t = a[i:i + bm, j:j + bn]
            if reverse:
                t = np.flip(np.cumsum(np.flip(t, dim), axis=dim), dim)
            else:
                t = np.cumsum(t, axis=dim)
            out[i:i + bm, j:j + bn] = t
    return out


CUMSUM_CASES = [(dim, rev, 128, 128, 64, 32, "fragment") for dim in (0, 1)
                for rev in (False, True)]
CUMSUM_CASES += [(0, False, 100, 72, 64, 32, "fragment"), (1, True, 100, 72, 64, 32, "fragment")]
# issue 26: a shared (8, 64) tile over 13 rows (wrong on sm_90a: TMA store without a fence)
CUMSUM_CASES += [(1, False, 13, 64, 8, 64, "shared"), (0, True, 37, 40, 16, 32, "shared")]


@pytest.mark.parametrize("dim,reverse,M,N,bm,bn,scope", CUMSUM_CASES)
def test_cumsum(tilec, dim, reverse, M, N, bm, bn, scope):
    a = rand((M, N), np.float32, 6)
    defines = dict(M=M, N=N, block_M=bm, block_N=bn, dim=dim, reverse=reverse, scope=scope)
    out = tilec.run("examples/cumsum.py", defines, {"A": a})["B"]
    ref = tile_cumsum(a.astype(np.float64), bm, bn, dim, reverse)
    check(out, ref, np.float32, rtol=1e-5, atol=1e-5)


# ---- flash attention -------------------------------------------------------------------
def attention_ref(q, k, v, causal):
    """q, k, v: (batch, seq, heads, dim) float64 -> (batch, seq, heads, dim)."""
    s = np.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(q.shape[-1])
    if causal:
        n = q.shape[1]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("bhqk,bkhd->bqhd", p, v)


FA_CASES = [
    # batch, heads, seq_len, dim, is_causal, extra
    (1, 2, 128, 64, False, {}),
    (1, 2, 128, 64, True, {}),
    (2, 1, 100, 32, False, {}),
    (2, 1, 100, 32, True, {}),
    (1, 2, 96, 64, True, {"block_M": 32, "block_N": 64, "num_stages": 2}),
    # rows that a whole key block masks (block_M > block_N): the running maximum
    (1, 1, 256, 64, True, {"block_M": 128, "block_N": 64, "threads": 256, "num_stages": 2}),
    # TileLang's schedule (T.Pipelined order/stage/group): the same result
    (1, 2, 100, 64, True, {"num_stages": 2, "overlap": True}),
    (1, 1, 256, 128, False, {"block_M": 128, "block_N": 128, "threads": 256, "num_stages": 2,
                             "overlap": True}),
]


@pytest.mark.parametrize("batch,heads,seq,dim,causal,extra", FA_CASES)
def test_flash_attention(tilec, batch, heads, seq, dim, causal, extra):
    shape = (batch, seq, heads, dim)
    q = (rand(shape, np.float16, 7) * 2).astype(np.float16)
    k = (rand(shape, np.float16, 8) * 2).astype(np.float16)
    v = rand(shape, np.float16, 9)
    defines = dict(batch=batch, heads=heads, seq_len=seq, dim=dim, is_causal=causal, **extra)
    out = tilec.run("examples/flash_attention.py", defines, {"Q": q, "K": k, "V": v})["Output"]
    ref = attention_ref(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64),
                        causal)
    # P is rounded to float16 before P @ V (acc_s_cast), as on the GPU.
    check(out, ref, np.float16, rtol=1e-2, atol=2e-3)


# ---- MLA decode ------------------------------------------------------------------------
def mla_ref(q, q_pe, kv, k_pe):
    """q (b, h, d), q_pe (b, h, p), kv (b, s, 1, d), k_pe (b, s, 1, p) -> (b, h, d)."""
    scale = (q.shape[-1] + q_pe.shape[-1]) ** -0.5
    s = (np.einsum("bhd,bsd->bhs", q, kv[:, :, 0]) +
         np.einsum("bhp,bsp->bhs", q_pe, k_pe[:, :, 0])) * scale
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("bhs,bsd->bhd", p, kv[:, :, 0])


MLA_CASES = [
    # batch, heads, seqlen_kv, dim, pe_dim, block_N, block_H, num_split
    (2, 16, 256, 64, 32, 32, 16, 2),
    (2, 16, 256, 64, 32, 32, 16, 1),
    (1, 32, 512, 64, 32, 64, 16, 4),
]


@pytest.mark.parametrize("batch,heads,seq,dim,pe,bn,bh,split", MLA_CASES)
def test_mla_decode(tilec, batch, heads, seq, dim, pe, bn, bh, split):
    q = (rand((batch, heads, dim), np.float16, 10) * 3).astype(np.float16)
    q_pe = (rand((batch, heads, pe), np.float16, 11) * 3).astype(np.float16)
    kv = rand((batch, seq, 1, dim), np.float16, 12)
    k_pe = rand((batch, seq, 1, pe), np.float16, 13)
    defines = dict(batch=batch, heads=heads, kv_head_num=1, seqlen_kv=seq, dim=dim,
                   pe_dim=pe, block_N=bn, block_H=bh, num_split=split)
    inputs = {"Q": q, "Q_pe": q_pe, "KV": kv, "K_pe": k_pe}
    out = tilec.run("examples/mla_decode.py", defines, inputs)["Output"]
    ref = mla_ref(*(x.astype(np.float64) for x in (q, q_pe, kv, k_pe)))
    # glse and Output_partial are float16 in the kernel (as in TileLang's example).
    check(out, ref, np.float16, rtol=1e-2, atol=1e-3)


# ---- the run command itself ------------------------------------------------------------
def test_seeded_inputs_are_reproducible(tilec):
    """Inputs not given are seeded random: the same seed gives the same output, another
    seed a different one."""
    d = dict(M=64, N=32, op="sum", dim=1)
    a = tilec.run("examples/reduce.py", d, seed=5)["B"]
    b = tilec.run("examples/reduce.py", d, seed=5)["B"]
    c = tilec.run("examples/reduce.py", d, seed=6)["B"]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # Row sums of 32 values uniform in [-1, 1): |sum| <= 32, and not all zero.
    assert np.abs(a).max() <= 32 and np.abs(a).max() > 0
