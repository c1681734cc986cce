"""TileLang's raw wgmma names (src/frontend/tileops_wgmma.c) and T.ptx_cp_async_bulk on
the C target, the reference (tests/gpu/run.sh runs this file on the GPU too):
tests/exec/kernels/wgmma_raw.py, wgmma_rs.py and bulk_copy.py against NumPy. The shared-memory images of A
and B are built here from the PTX ISA's canonical layouts ("Shared Memory Matrix Layout":
core matrices for no swizzle, 16-byte chunk j of row r at j ^ (r % W) for the 32B / 64B /
128B swizzles) and the expected accumulators placed by wgmma's register layout ("Matrix
Fragments for wgmma.mma_async"), so a wrong decode of a descriptor, a wrong swizzle or a
wrong register layout fails. Errors of bad uses come at the user's line."""
import numpy as np
import pytest

SWIZZLE_ROW = {0: 16, 1: 128, 2: 64, 3: 32}  # layout type -> bytes of a swizzle row


def swizzle(addr, layout):
    w = SWIZZLE_ROW[layout] // 16
    return addr if layout == 0 else addr ^ (((addr >> 7) & (w - 1)) << 4)


def image(mat, es, layout, k_major, lbo, sbo, size, pad=0):
    """Bytes of shared memory holding mat (MN x K, as storage codes of es bytes), at the
    canonical layout the descriptor fields (lbo, sbo in bytes) describe."""
    out = np.zeros(size, np.uint8)
    t, row = 16 // es, SWIZZLE_ROW[layout]
    w = row // 16
    code = mat.astype(np.uint16 if es == 2 else np.uint8)
    for mn in range(mat.shape[0]):
        for k in range(mat.shape[1]):
            if k_major and layout:
                a = mn // 8 * sbo + mn % 8 * row + k * es
            elif k_major:
                a = mn // 8 * sbo + k // t * lbo + mn % 8 * 16 + k % t * es
            elif layout:
                a = mn // (t * w) * lbo + k // 8 * sbo + k % 8 * row + mn % (t * w) * es
            else:
                a = mn % t * es + mn // t * sbo + k % 8 * 16 + k // 8 * lbo
            a = pad + swizzle(a, layout)
            out[a:a + es] = np.frombuffer(code[mn, k].tobytes(), np.uint8)
    return out


def bf16_codes(x):
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def e4m3_value(c):
    s, e, m = c >> 7, (c >> 3) & 15, c & 7
    if e == 15 and m == 7:
        return np.nan
    v = m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
    return -v if s else v


def operand(rng, kind, shape):
    """(storage codes, values) of random exactly representable operands."""
    if kind == "e4m3":
        table = np.array([e4m3_value(c) for c in range(256)])
        ok = np.flatnonzero(np.abs(table) <= 2.0)
        codes = rng.choice(ok, shape).astype(np.uint8)
        return codes, table[codes]
    vals = rng.integers(-16, 17, shape) / 8.0
    if kind == "bf16":
        return bf16_codes(vals), vals
    return vals.astype(np.float16).view(np.uint16), vals


def accumulators(d):
    """C[thread, register] of wgmma's fp32 accumulator layout, d 64 x N."""
    n = d.shape[1]
    tid = np.arange(128)[:, None]
    i = np.arange(n // 2)[None, :]
    row = 16 * (tid // 32) + tid % 32 // 4 + 8 * (i // 2 % 2)
    col = 8 * (i // 4) + 2 * (tid % 4) + i % 2
    return d[row, col]


# name: operand type, N, K, A (layout, K-major, lbo, sbo), B (layout, K-major, lbo, sbo),
# descriptor steps per instruction (16-byte units), B's offset, scales
CASES = {
    "bf16_128B": ("bf16", 64, 64, (1, True, 16, 1024), (1, True, 16, 1024), 2, 2, 0, 1, 1),
    "f16_none": ("fp16", 32, 32, (0, True, 128, 512), (0, True, 128, 512), 16, 16, 0, 1, 1),
    "bf16_64B_Bmn128B": ("bf16", 128, 32, (2, True, 16, 512), (1, False, 4096, 1024), 2, 128,
                         0, 1, 1),
    "f16_32B_Bmn_none": ("fp16", 16, 16, (3, True, 16, 256), (0, False, 128, 256), 2, 16,
                         1024, 1, -1),
    "e4m3_128B": ("e4m3", 48, 128, (1, True, 16, 1024), (1, True, 16, 1024), 2, 2, 1024, -1, 1),
}


def check(got, kind, a, b, scale=1.0):
    """got against scale * a @ b.T in wgmma's register layout. An e4m3 wgmma adds its
    products in fewer bits than fp32 on an H100 (DeepSeek-V3's report: about 14), so
    there each element may miss by 2^-10 of its sum of magnitudes; a misplaced element
    still misses by the size of an element. Other types are exact (their products and
    sums of these sizes fit an fp32)."""
    want = accumulators(scale * (a @ b.T))
    slack = 2.0 ** -10 * accumulators(abs(scale) * (np.abs(a) @ np.abs(b).T)) if kind == "e4m3" else 0
    np.testing.assert_array_less(np.abs(got - want), slack + 1e-6)


def run_case(tilec, name, swizzled=True):
    kind, n, k, la, lb, sta, stb, pad, sa, sb = CASES[name]
    es = 1 if kind == "e4m3" else 2
    kinst = 32 // es
    rng = np.random.default_rng(26)
    a_codes, a_vals = operand(rng, kind, (64, k))
    b_codes, b_vals = operand(rng, kind, (n, k))
    size_a = 64 * k * es + 1024
    size_b = n * k * es + 2048
    img_a = image(a_codes, es, la[0] if swizzled else 0, la[1], la[2], la[3], size_a)
    img_b = image(b_codes, es, lb[0], lb[1], lb[2], lb[3], size_b, pad)
    store = "uint8" if es == 1 else "uint16"
    defines = dict(N=n, KSTEPS=k // kinst, SA=size_a // es, SB=size_b // es, A_LAYOUT=la[0],
                   A_LBO=la[2] // 16, A_SBO=la[3] // 16, B_LAYOUT=lb[0], B_LBO=lb[2] // 16,
                   B_SBO=lb[3] // 16, A_STEP=sta, B_STEP=stb, A_K=la[1], B_K=lb[1], AB=kind,
                   STORE=store, B_PAD=pad, SCALE_A=sa, SCALE_B=sb)
    out = tilec.run("tests/exec/kernels/wgmma_raw.py", defines,
                    {"A": img_a.view(store), "B": img_b.view(store)})
    return out["C"], kind, a_vals, b_vals, sa * sb


@pytest.mark.parametrize("name", sorted(CASES))
def test_wgmma_raw(tilec, name):
    check(*run_case(tilec, name))


RS_CASES = {  # operand type, N, K, B (layout, K-major, lbo, sbo), B's step
    "bf16_rs_128B": ("bf16", 64, 32, (1, True, 16, 1024), 2),
    "f16_rs_Bmn128B": ("fp16", 64, 32, (1, False, 2048, 1024), 128),
    "e4m3_rs_64B": ("e4m3", 32, 64, (2, True, 16, 512), 2),
}


@pytest.mark.parametrize("name", sorted(RS_CASES))
def test_wgmma_rs(tilec, name):
    kind, n, k, lb, stb = RS_CASES[name]
    es = 1 if kind == "e4m3" else 2
    rng = np.random.default_rng(27)
    a_codes, a_vals = operand(rng, kind, (64, k))
    b_codes, b_vals = operand(rng, kind, (n, k))
    size_b = n * max(k * es, 128) + 1024
    img_b = image(b_codes, es, lb[0], lb[1], lb[2], lb[3], size_b)
    store = "uint8" if es == 1 else "uint16"
    defines = dict(N=n, KSTEPS=k // (32 // es), SB=size_b // es, B_LAYOUT=lb[0],
                   B_LBO=lb[2] // 16, B_SBO=lb[3] // 16, B_STEP=stb, B_K=lb[1], AB=kind,
                   STORE=store)
    out = tilec.run("tests/exec/kernels/wgmma_rs.py", defines,
                    {"A": a_codes.view(store), "B": img_b.view(store)})
    check(out["C"], kind, a_vals, b_vals)


@pytest.mark.parametrize("N,chunk", [(1024, 256), (512, 128)])
def test_bulk_copy(tilec, N, chunk):
    a = np.random.default_rng(28).uniform(-4.0, 4.0, N).astype(np.float32)
    out = tilec.run("tests/exec/kernels/bulk_copy.py", dict(N=N, CHUNK=chunk), {"A": a})
    np.testing.assert_array_equal(out["B"], a * 2.0)


@pytest.mark.parametrize("name", ["bf16_128B", "e4m3_128B"])
def test_a_wrong_swizzle_fails(tilec, name):
    """The check above sees a layout error, e4m3's slack included: A stored without its
    swizzle gives other sums."""
    with pytest.raises(AssertionError):
        check(*run_case(tilec, name, swizzled=False))


HEAD = ("import tilelang.language as T\n\n"
        "@T.prim_func\n"
        "def main(X: T.Tensor((64,), \"float32\")):\n"
        "        with T.Kernel(1, threads=128) as bx:\n"
        "            S = T.alloc_shared((4096,), \"bfloat16\")\n"
        "            F = T.alloc_fragment((64, 64), \"float32\")\n"
        "            acc = T.alloc_local((32,), \"float32\")\n"
        "            d = T.alloc_wgmma_desc()\n")
WG = ("T.ptx_wgmma_ss(\"float32\", %s, True, True, %s, %s, \"fp32\", d.data, 0, d.data, 0, "
      "%s, 0, 1, 1, 1)")

ERRORS = [
    ("d2 = T.alloc_descriptor(\"tcgen05_smem\")",
     "the tcgen05 ones are Blackwell's (sm_100)"),
    ("d2 = T.alloc_wgmma_desc(\"uint32\")", "a wgmma descriptor is a uint64"),
    ("T.initialize_wgmma_descriptor(d, T.access_ptr(X, \"r\"), 1, 1, 64)",
     "start_address must point into a shared buffer"),
    ("T.initialize_wgmma_descriptor(d, S, 4, 1, 64)", "layout_type_ must be 0 to 3"),
    ("T.initialize_wgmma_descriptor(d, S, 1, 1, 16384)", "stride_byte_offset must be 0 to 16383"),
    ("T.initialize_wgmma_descriptor(acc, S, 1, 1, 64)",
     "the descriptor must be a buffer of T.alloc_wgmma_desc()"),
    (WG % ("\"m64n64k16\"", "\"bf16\"", "\"bf16\"", "F.data"),
     "C_data must be a float32 T.alloc_local buffer"),
    (WG % ("\"m64n72k16\"", "\"bf16\"", "\"bf16\"", "acc.data"),
     "the 36 accumulators from C_offset 0 pass the end of 'acc' (32)"),
    (WG % ("\"m64n64k32\"", "\"bf16\"", "\"bf16\"", "acc.data"),
     "wgmma_prefix \"m64n64k32\" is not a wgmma shape of these operands: m64nNk16"),
    (WG % ("\"m64n64k16\"", "\"bf16\"", "\"fp16\"", "acc.data"),
     "fp16 and bf16 operands must be of one type"),
    (WG % ("\"m64n64k16\"", "\"tf32\"", "\"tf32\"", "acc.data"),
     "tilec's wgmma takes fp16 or bf16"),
    ("T.ptx_wgmma_ss(\"float16\", \"m64n64k16\", True, True, \"bf16\", \"bf16\", \"fp16\", "
     "d.data, 0, d.data, 0, acc.data, 0, 1, 1, 1)", "tilec's wgmma accumulates in float32"),
    ("T.ptx_wgmma_ss(\"float32\", \"m64n64k32\", True, False, \"e4m3\", \"e4m3\", \"fp32\", "
     "d.data, 0, d.data, 0, acc.data, 0, 1, 1, 1)", "fp8 wgmma reads both operands K-major"),
    ("T.ptx_wgmma_ss(\"float32\", \"m64n64k16\", True, True, \"bf16\", \"bf16\", \"fp32\", "
     "d.data, 0, d.data, 0, acc.data, 0, 1, 2, 1)", "scale_in_a must be 1 or -1, got 2"),
    ("T.warpgroup_fence_operand(F)", "the operand must be a T.alloc_local buffer"),
    ("T.create_barriers(1)\n            T.ptx_init_barrier_thread_count(0, 1)\n"
     "            T.ptx_cp_async_bulk(\"float32\", S.data, 0, X.data, 0, 24, 0)",
     "T.ptx_cp_async_bulk: bytes must be a multiple of 16"),
    ("T.create_barriers(1)\n            T.ptx_init_barrier_thread_count(0, 1)\n"
     "            T.ptx_cp_async_bulk(\"float32\", X.data, 0, S.data, 0, 64, 0)",
     "T.ptx_cp_async_bulk: the destination must be a shared buffer (x.data)"),
    ("T.ptx_cp_async_bulk(\"float32\", S.data, 0, X.data, 0, 64, 0)",
     "a barrier number needs T.create_list_of_mbarrier first"),
    ("T.warpgroup_fence_operand(acc, num_regs=33)", "33 registers from element 0 do not fit"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_errors_at_the_users_line(tilec, tmp_path, line, message):
    tilec.emit_error(tmp_path, HEAD, line, message, targets=("c", "cuda"), last_only=True)


def test_a_warpgroup_is_128_threads(tilec, tmp_path):
    head = HEAD.replace("threads=128", "threads=96")
    tilec.emit_error(tmp_path, head, WG % ("\"m64n64k16\"", "\"bf16\"", "\"bf16\"", "acc.data"),
                     "a wgmma is issued by a warpgroup of 128 threads; the block has 96")
