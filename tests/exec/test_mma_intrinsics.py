"""TileLang's warp-level tensor-core primitives (src/frontend/tileops_mma.c) on the C
target against NumPy: T.ptx_mma for every shape and type tilec has, with each lane's
registers loaded and stored by the lane index (tests/exec/kernels/mma_frag.py), so that
the reference's fragment layouts, written here from the PTX ISA's tables ("Matrix
fragments for mma.m16n8k16 / m16n8k32 / m16n8k8"), are what is checked; T.ptx_ldmatrix
(.x1/.x2/.x4, .trans) and T.mma_store / T.mma_fill (mma_ldst.py); and the bad uses, each
an error at the user's line. test_emit_cuda compiles the same kernels for sm_80 and
sm_90a and simulates them against the C target."""
import numpy as np
import pytest

FRAG = "tests/exec/kernels/mma_frag.py"
LDST = "tests/exec/kernels/mma_ldst.py"


# ---- the PTX ISA's fragment tables (g = groupID, t = threadID_in_group) ----------------------
def a_rc(shape, lane, i):
    g, t = lane // 4, lane % 4
    if shape == "m16n8k16":  # a0..a7: rows g (a0, a1, a4, a5) / g + 8; cols 2t + (i & 1) (+8 from a4)
        return g + (8 if i in (2, 3, 6, 7) else 0), 2 * t + (i & 1) + (8 if i >= 4 else 0)
    if shape == "m16n8k32":  # a0..a15: rows g (a0-a3, a8-a11) / g + 8; cols 4t + (i & 3) (+16 from a8)
        return g + (8 if i in range(4, 8) or i in range(12, 16) else 0), \
            4 * t + (i & 3) + (16 if i >= 8 else 0)
    # m16n8k8 tf32: a0, a2 row g, a1, a3 row g + 8; a0, a1 col t, a2, a3 col t + 4
    return g + (8 if i in (1, 3) else 0), t + (4 if i >= 2 else 0)


def b_rc(shape, lane, i):
    g, t = lane // 4, lane % 4
    if shape == "m16n8k16":  # b0..b3: row 2t + (i & 1) (+8 from b2), col g
        return 2 * t + (i & 1) + (8 if i >= 2 else 0), g
    if shape == "m16n8k32":  # b0..b7: row 4t + (i & 3) (+16 from b4), col g
        return 4 * t + (i & 3) + (16 if i >= 4 else 0), g
    return t + (4 if i == 1 else 0), g  # tf32: b0 row t, b1 row t + 4


def c_rc(lane, i):
    g, t = lane // 4, lane % 4  # c0, c1 row g; c2, c3 row g + 8; col 2t + (i & 1)
    return g + (8 if i >= 2 else 0), 2 * t + (i & 1)


KDIM = {"m16n8k16": 16, "m16n8k32": 32, "m16n8k8": 8}


def warp_mma(shape, af, bf, cf):
    """D fragments of one warp from its 32 lanes' A, B, C fragments (float64)."""
    k = KDIM[shape]
    A, B = np.full((16, k), np.nan), np.full((k, 8), np.nan)
    for lane in range(32):
        for i in range(af.shape[1]):
            A[a_rc(shape, lane, i)] = af[lane, i]
        for i in range(bf.shape[1]):
            B[b_rc(shape, lane, i)] = bf[lane, i]
    assert not np.isnan(A).any() and not np.isnan(B).any()
    P = A @ B
    d = np.empty_like(cf)
    for lane in range(32):
        for i in range(4):
            d[lane, i] = cf[lane, i] + P[c_rc(lane, i)]
    return d


def tf32(x):
    """float32 values as the tensor core reads tf32 (the low 13 mantissa bits dropped)."""
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xffffe000)).view(np.float32)


CASES = [  # shape, A, B, C types
    ("m16n8k16", "float16", "float16", "float32"),
    ("m16n8k16", "bfloat16", "bfloat16", "float32"),
    ("m16n8k16", "float16", "float16", "float16"),
    ("m16n8k32", "int8", "int8", "int32"),
    ("m16n8k32", "uint8", "int8", "int32"),
    ("m16n8k32", "int8", "uint8", "int32"),
    ("m16n8k32", "uint8", "uint8", "int32"),
    ("m16n8k8", "float32", "float32", "float32"),
    ("m16n8k32", "float8_e4m3", "float8_e4m3", "float32"),
    ("m16n8k32", "float8_e4m3", "float8_e5m2", "float32"),
    ("m16n8k32", "float8_e5m2", "float8_e4m3", "float32"),
    ("m16n8k32", "float8_e5m2", "float8_e5m2", "float32"),
]


def operand(rng, dtype, shape):
    if dtype in ("int8", "uint8"):
        lo, hi = (-128, 128) if dtype == "int8" else (0, 256)
        return rng.integers(lo, hi, shape).astype(dtype)
    if dtype == "bfloat16":  # travels as float32; values bfloat16 holds exactly
        return (rng.integers(-64, 64, shape) / 16).astype(np.float32)
    if dtype.startswith("float8"):  # as float32: halves to 4, which e4m3 and e5m2 hold
        return (rng.integers(-8, 9, shape) / 2).astype(np.float32)
    return rng.uniform(-2, 2, shape).astype(dtype)


@pytest.mark.parametrize("shape,at,bt,ct", CASES)
def test_ptx_mma_lane_layouts(tilec, shape, at, bt, ct):
    k, warps = KDIM[shape], 2
    na, nb, nt = 16 * k // 32, 8 * k // 32, 32 * warps
    rng = np.random.default_rng(KDIM[shape] + len(at) + len(bt) + len(ct))
    a = operand(rng, at, (2, nt, 2 * na))
    b = operand(rng, bt, (2, nt, 2 * nb))
    c = operand(rng, "int8" if ct == "int32" else ct, (2, nt, 8)).astype(
        "float32" if ct == "bfloat16" else ct)
    out = tilec.run(FRAG, dict(SHAPE=shape, AT=at, BT=bt, CT=ct, WARPS=warps),
                    {"A": a, "B": b, "C": c})["D"]
    f64 = np.float64
    if shape == "m16n8k8":
        a, b = tf32(a), tf32(b)
    ref = c.astype(f64).copy()
    for blk in range(2):
        for w in range(warps):
            lanes = slice(32 * w, 32 * w + 32)
            for r in range(2):  # mma r: A registers r * na.., B (1 - r) * nb.., C r * 4..
                ref[blk, lanes, 4 * r:4 * r + 4] = warp_mma(
                    shape, a[blk, lanes, r * na:(r + 1) * na].astype(f64),
                    b[blk, lanes, (1 - r) * nb:(2 - r) * nb].astype(f64),
                    c[blk, lanes, 4 * r:4 * r + 4].astype(f64))
    if ct == "int32":
        np.testing.assert_array_equal(out, ref.astype(np.int64).astype(np.int32))
    elif ct == "float16":
        np.testing.assert_allclose(out.astype(f64), ref, rtol=1e-3, atol=1e-2)
    else:
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


# ---- ldmatrix, mma_fill, mma_store ------------------------------------------------------------
def ldmatrix_ref(rows, num, trans, dtype):
    """Each lane's registers: rows[r] is the 16-byte row whose address lane r gave."""
    size = np.dtype(dtype).itemsize
    by = rows.view(np.uint8).reshape(32, 16)
    out = np.zeros((32, num * 4), np.uint8)
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for m in range(num):
            if not trans:  # bytes 4t .. 4t + 3 of row g of matrix m
                out[lane, 4 * m:4 * m + 4] = by[8 * m + g, 4 * t:4 * t + 4]
            else:  # 16-bit cells (2t, g) and (2t + 1, g) of matrix m
                for h in range(2):
                    out[lane, 4 * m + 2 * h:4 * m + 2 * h + 2] = by[8 * m + 2 * t + h, 2 * g:2 * g + 2]
    return out.view(dtype)


def mma_store_ref(c, n, stride):
    """The 16 x stride tile a warp's T.mma_store writes from its lanes' registers c."""
    tile = np.zeros((16, stride), c.dtype)
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for i in range(n // 2):  # n8 tile i // 4, in it the C fragment's element i % 4
            tile[8 * (i % 4 // 2) + g, 8 * (i // 4) + 2 * t + i % 2] = c[lane, i]
    return tile


@pytest.mark.parametrize("dt,num,trans,ct,n", [
    ("float16", 4, False, "float32", 16), ("float16", 4, True, "float16", 8),
    ("float16", 2, True, "float32", 8), ("float16", 1, False, "int32", 16),
    ("int8", 4, False, "float32", 16), ("int8", 2, False, "float32", 8),
    ("float32", 4, False, "float32", 16), ("float16", 1, True, "float32", 16),
])
def test_ldmatrix_fill_store(tilec, dt, num, trans, ct, n):
    warps, width = 2, 16 // np.dtype(dt).itemsize
    rng = np.random.default_rng(num * 7 + trans)
    if dt == "int8":
        s = rng.integers(-128, 128, (warps, 32, width)).astype(np.int8)
    else:
        s = rng.uniform(-4, 4, (warps, 32, width)).astype(dt)
    p = rng.permutation(32).astype(np.int32)
    c = rng.integers(-50, 50, (2, 32 * warps, 8)).astype(ct)
    out = tilec.run(LDST, dict(DT=dt, NUM=num, TRANS=trans, CT=ct, N=n, WARPS=warps),
                    {"S": s, "P": p, "C": c})
    for blk in range(2):
        for w in range(warps):
            lanes = slice(32 * w, 32 * w + 32)
            ref = ldmatrix_ref(s[w][p], num, trans, dt)
            np.testing.assert_array_equal(out["R"][blk, lanes], ref)
            cz = c[blk, lanes].copy()
            cz[:, 2:4] = 0  # T.mma_fill(CT, 2, c.data, 2)
            np.testing.assert_array_equal(out["O"][blk, 16 * w:16 * w + 16],
                                          mma_store_ref(cz, n, n + 8))


# ---- the emitter (compat/intrinsics/mma.py) through the command line ----------------------------
GEMM = "tests/exec/kernels/mma_gemm.py"


@pytest.mark.parametrize("cfg", [
    dict(),  # float16 -> float32, B [N][K] (the example's)
    dict(out_dtype="float16", A_T=True, B_T=False),  # ldmatrix .trans for both
    dict(in_dtype="bfloat16", warp_n=16, warps_n=1, N=48),  # ragged N: 3 blocks of 16
    dict(in_dtype="int8", out_dtype="int32", accum_dtype="int32", chunk=64, K=128),
    dict(in_dtype="int8", out_dtype="int32", accum_dtype="int32", chunk=32, A_T=True,
         B_T=False),  # no ldmatrix: each lane loads its fragment elements
    dict(in_dtype="float32", chunk=16, K=32, warp_n=8, warps_n=2, N=32),  # tf32, n8 tiles
    dict(in_dtype="float8_e4m3", chunk=32, K=64),  # fp8 (sm_89+ on the GPU)
])
def test_emitter_gemm(tilec, cfg):
    p = dict(M=128, N=64, K=64, in_dtype="float16", out_dtype="float32", A_T=False, B_T=True)
    p.update(cfg)
    rng = np.random.default_rng(len(cfg))
    m, n, k = p["M"], p["N"], p["K"]
    if p["in_dtype"] == "int8":
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (n, k)).astype(np.int8)
    elif p["in_dtype"] == "float8_e4m3":  # as float32: halves, which e4m3 holds
        a = (rng.integers(-8, 9, (m, k)) / 2).astype(np.float32)
        b = (rng.integers(-8, 9, (n, k)) / 2).astype(np.float32)
    else:
        a = (rng.integers(-32, 32, (m, k)) / 16).astype(np.float32)
        b = (rng.integers(-32, 32, (n, k)) / 16).astype(np.float32)
        if p["in_dtype"] == "float16":
            a, b = a.astype(np.float16), b.astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    args = {"A": a.T.copy() if p["A_T"] else a, "B": b if p["B_T"] else b.T.copy()}
    out = tilec.run(GEMM, cfg, args)["C"]
    if p["out_dtype"] == "int32":
        np.testing.assert_array_equal(out, ref.astype(np.int32))
    else:
        np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2e-3, atol=2e-2)


# ---- bad uses: an error at the user's line ----------------------------------------------------
def mma(a="a.data", b="b.data", c="c.data", shape="m16n8k16", types='"fp16", "fp16", "fp32"',
        dtype='"float32"'):
    return ("T.ptx_mma(%s, \"%s\", \"row\", \"col\", %s, %s, 0, %s, 0, %s, 0, False)"
            % (dtype, shape, types, a, b, c))


ERRORS = [
    (mma(shape="m16n8k4"), "T.ptx_mma: m16n8k4 with A f16, B f16, C f32 is not supported"),
    (mma(types='"fp16", "fp16", "fp64"'), "T.ptx_mma: C_dtype 'fp64' is not one tilec supports"),
    (mma(types='"bf16", "bf16", "fp32"'),
     "T.ptx_mma: the A operand 'a' holds float16, but the instruction's type is bfloat16"),
    (mma(a="s.data"), "T.ptx_mma: the A operand 's' is a shared buffer; it must be a "
                      "T.alloc_local buffer"),
    (mma(a="a[0]"), "T.ptx_mma: the A operand must be a buffer's .data, got"),
    (mma(dtype='"float16"'), "T.ptx_mma: dtype float16 differs from C_dtype's float32"),
    ("T.ptx_mma(\"float32\", \"m16n8k16\", \"col\", \"col\", \"fp16\", \"fp16\", \"fp32\", "
     "a.data, 0, b.data, 0, c.data, 0, False)", "takes A row-major and B column-major"),
    ("T.ptx_mma(\"float32\", \"m16n8k16\", \"row\", \"col\", \"fp16\", \"fp16\", \"fp32\", "
     "a.data, 0, b.data, 0, c.data, 0, True)", "T.ptx_mma: saturate=True is not supported"),
    ("T.ptx_mma(\"float32\", \"m16n8k16\")", "T.ptx_mma() missing"),
    ("T.ptx_ldmatrix(False, 3, T.access_ptr(s[0], \"r\"), T.access_ptr(a[0], \"w\"))",
     "T.ptx_ldmatrix: num is the number of 8x8 matrices, 1, 2 or 4; got 3"),
    ("T.ptx_ldmatrix(True, 4, T.access_ptr(s8[0], \"r\"), T.access_ptr(q[0], \"w\"))",
     "T.ptx_ldmatrix: .trans transposes 16-bit elements; 's8' holds int8"),
    ("T.ptx_ldmatrix(False, 4, T.access_ptr(b[0], \"r\"), T.access_ptr(a[0], \"w\"))",
     "T.ptx_ldmatrix: the source 'b' is a local buffer; it must be in shared memory"),
    ("T.ptx_ldmatrix(False, 4, T.access_ptr(s[0], \"r\"), T.access_ptr(c[0], \"w\"))",
     "must have elements of one size"),
    ("T.mma_store(\"float32\", 8, 16, T.access_ptr(Y[0], \"w\"), c.data, 0, 16)",
     "T.mma_store stores a 16 x 8 or 16 x 16 tile, got 8 x 16"),
    ("T.mma_store(\"float16\", 16, 16, T.access_ptr(Y[0], \"w\"), c.data, 0, 16)",
     "T.mma_store: 'Y' holds float32, not the dtype float16"),
    ("T.mma_fill(\"float32\", 0, c.data, 0)", "T.mma_fill: local_size must be positive"),
    ("if tx < 16:\n                " + mma(),
     "tl_ptx_mma_m16n8k16_f32_f16_f16 is warp-collective: on the C target it cannot run "
     "under a condition"),
    ("for i in T.Parallel(32):\n                    " + mma(),
     "T.ptx_mma is warp-collective (each warp makes it once): it cannot be inside a "
     "T.Parallel loop"),
    ("e = T.TensorCoreIntrinEmitter(warp_row_tiles=24)",
     "TensorCoreIntrinEmitter: warp_row_tiles must be a multiple of 16"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_errors_at_the_users_line(tilec, tmp_path, line, message):
    head = ("import tilelang.language as T\n\n"
            "@T.prim_func\n"
            "def main(X: T.Tensor((64,), \"float16\"), Y: T.Tensor((256,), \"float32\")):\n"
            "        with T.Kernel(1, threads=64) as bx:\n"
            "            tx = T.get_thread_binding()\n"
            "            s = T.alloc_shared((256,), \"float16\")\n"
            "            s8 = T.alloc_shared((256,), \"int8\")\n"
            "            a = T.alloc_local((8,), \"float16\")\n"
            "            q = T.alloc_local((16,), \"int8\")\n"
            "            b = T.alloc_local((4,), \"float16\")\n"
            "            c = T.alloc_local((4,), \"float32\")\n")
    tilec.emit_error(tmp_path, head, line, message, last_only=True)


def test_whole_warps(tilec, tmp_path):
    head = ("import tilelang.language as T\n\n"
            "@T.prim_func\n"
            "def main(X: T.Tensor((64,), \"float16\")):\n"
            "        with T.Kernel(1, threads=48) as bx:\n"
            "            s = T.alloc_shared((256,), \"float16\")\n"
            "            a = T.alloc_local((8,), \"float16\")\n")
    tilec.emit_error(tmp_path, head,
                     "T.ptx_ldmatrix(False, 4, T.access_ptr(s[0], \"r\"), "
                     "T.access_ptr(a[0], \"w\"))",
                     "T.ptx_ldmatrix is warp-collective: the block's thread count (48) must be "
                     "a multiple of 32")


def test_t_spellings(tilec):
    """T.get_ldmatrix_offset, T.mma_store_index_map, T.get_mma_micro_size,
    T.get_swizzle_layout and T.TensorCoreIntrinEmitter inside a kernel, per lane, against
    the PTX layouts (the same as tests/python/test_compat_intrinsics.py checks in Python)."""
    out = tilec.run("tests/exec/kernels/mma_tnames.py")["O"]
    for lane in range(32):
        m, r, g, t = lane // 8, lane % 8, lane // 4, lane % 4
        assert tuple(out[lane, 0:2]) == (8 * (m % 2) + r, 8 * (m // 2))
        assert tuple(out[lane, 2:4]) == (8 * (m // 2) + r, 16 * (m % 2) + 5)
        for i in range(8):
            assert out[lane, 4 + i] == (g + 8 * (i % 4 // 2)) * 16 + 8 * (i // 4) + 2 * t + i % 2
        row, col = lane % 16, lane * 2
        assert out[lane, 13] == row * 100 + ((col // 8) ^ (row % 8)) * 8 + col % 8
    assert (out[:, 12] == 161632).all()
    assert tuple(out[0, 14:20]) == (1616, 201, 32, 128, 16, 8)  # 2 x 2 warps (defaults)


@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_tvm_spelling(tilec, trans):
    s = np.random.default_rng(3).uniform(-4, 4, (32, 8)).astype(np.float16)
    out = tilec.run("tests/exec/kernels/mma_ldmatrix_tvm.py", {"TRANS": trans}, {"S": s})["R"]
    np.testing.assert_array_equal(out, ldmatrix_ref(s, 4, trans, "float16"))


def test_missing_intrinsics_name(tilec, tmp_path):
    """An emitter tilec lacks imports (scripts import at the top) and is an error where
    it is used."""
    head = ("import tilelang.language as T\n"
            "from tilelang.cuda.intrinsics.macro.mma_macro_generator import (\n"
            "    INT4TensorCoreIntrinEmitter)\n\n"
            "@T.prim_func\n"
            "def main(X: T.Tensor((64,), \"float16\")):\n"
            "        with T.Kernel(1, threads=64) as bx:\n")
    tilec.emit_error(tmp_path, head, "e = INT4TensorCoreIntrinEmitter(warp_row_tiles=32)",
                     "mma_macro_generator.INT4TensorCoreIntrinEmitter is not in tilec")
