"""Memory access and foreign code (src/frontend/tileops_mem.c) on the C target against
NumPy: atomics (load, store, or, memory orders, return_prev), the explicit widths
T.ldg32 .. T.sts128 and T.__ldg, T.import_source with T.call_extern / T.call_pure_extern
and the pointers T.access_ptr / T.address_of / T.tvm_access_ptr. The kernels
tests/unit/kernels/mem_*.py are also simulated on the CUDA target by test_emit_cuda. Then
the programs that are an error, each at the user's line."""
import numpy as np
import pytest

KERNELS = "tests/unit/kernels/"


@pytest.mark.parametrize("n,threads", [(64, 32), (128, 64)])
def test_atomics(tilec, n, threads):
    rng = np.random.default_rng(1)
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    cnt = np.array([0, 7, 0x100, 5], np.int32)
    f = np.array([-3.0, 2.0, 0.0, 0.0], np.float32)
    g = np.array([-100.0], np.float32)
    seen = rng.integers(0, 9, n).astype(np.int32)
    out = tilec.run(KERNELS + "mem_atomic.py", dict(n=n, threads=threads),
                    {"X": x, "Cnt": cnt, "Seen": seen, "F": f, "G": g,
                     "Bits": np.array([0x10, 0], np.uint64)})
    tickets = np.arange(n, dtype=np.int64)
    bits = np.bitwise_or.reduce(1 << (np.arange(n) % 31))
    want_cnt = [n, (7 + tickets.sum()) % 2**32, cnt[2] | bits, 5]
    np.testing.assert_array_equal(out["Cnt"].astype(np.int64) % 2**32,
                                  np.array(want_cnt, np.int64) % 2**32)
    np.testing.assert_array_equal(out["Seen"], seen + 1)  # every ticket once
    all_bits = 0x10 | (2**n - 1 if n < 64 else 2**64 - 1)
    np.testing.assert_array_equal(out["Bits"], np.array([all_bits, all_bits >> 1], np.uint64))
    assert out["F"][0] == max(-3.0, (x * 0.5).max())
    assert out["F"][1] == min(2.0, x.min())
    assert out["F"][2] == 2.5 and out["F"][3] == 3.5
    assert out["G"][0] == 2.0  # the largest value atomic_min replaced: F[1]'s first
    assert out["H"][0] == np.float16(-1.5)
    np.testing.assert_array_equal(out["O"], x + np.roll(x, -1))


def test_tickets_and_previous_values(tilec, tmp_path):
    """return_prev=True in code the whole block runs: each thread makes the atomic (as in
    TileLang) and gets the value it replaced."""
    src = tmp_path / "tickets.py"
    src.write_text(
        "import tilelang.language as T\n\n@T.prim_func\n"
        "def main(C: T.Tensor((2,), \"int64\"), P: T.Tensor((256,), \"int64\"),\n"
        "         M: T.Tensor((256,), \"float32\"), F: T.Tensor((1,), \"float32\")):\n"
        "    with T.Kernel(4, threads=64) as bx:\n"
        "        t = T.atomic_add(C[0], 1, return_prev=True)\n"
        "        P[t] = T.atomic_add(C[1], 2, return_prev=True)\n"
        "        M[t] = T.atomic_max(F[0], T.cast(t, \"float32\"), return_prev=True)\n")
    out = tilec.run(src, inputs={"C": np.zeros(2, np.int64), "F": np.array([-1.0], np.float32)})
    assert out["C"].tolist() == [256, 512]
    assert sorted(out["P"].tolist()) == list(range(0, 512, 2))
    assert out["F"][0] == 255.0
    m = out["M"]  # values F[0] held: -1 first, then tickets
    assert m.min() == -1.0 and set(m.tolist()) <= set(range(-1, 256))


def test_explicit_widths(tilec):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 64)).astype(np.float16)
    a.view(np.uint16)[0, 0] = 0x7e01  # a NaN whose payload a value copy could lose
    x = rng.standard_normal(64).astype(np.float32)
    d = rng.standard_normal(32)
    d.view(np.uint64)[3] = 0x7ff0000000000123  # and a float64 one
    i8 = rng.integers(-128, 128, 128).astype(np.int8)
    out = tilec.run(KERNELS + "mem_wide.py", inputs={"A": a, "X": x, "D": d, "I8": i8,
                                                     "B": np.zeros((4, 64), np.float16),
                                                     "J8": np.zeros(128, np.int8)})
    b = np.zeros((4, 64), np.float16)
    for tx in range(8):
        b[:, tx * 8:tx * 8 + 4] = a[:, (7 - tx) * 8:(7 - tx) * 8 + 4]
        if tx < 4:
            b[:, tx * 8 + 4:tx * 8 + 8] = a[:, tx * 8 + 4:tx * 8 + 8]
    np.testing.assert_array_equal(out["B"].view(np.uint16), b.view(np.uint16))
    y = x.copy()
    y[1::2] *= 2
    np.testing.assert_array_equal(out["Y"], y)
    e = np.concatenate([d[k * 8:k * 8 + 8] for k in range(4)])
    np.testing.assert_array_equal(out["E"].view(np.uint64), e.view(np.uint64))
    j8 = np.zeros(128, np.int8)
    for bx in range(4):
        for tx in range(0, 8, 2):
            j8[bx * 32 + tx * 4:bx * 32 + tx * 4 + 4] = i8[bx * 32 + tx * 4:bx * 32 + tx * 4 + 4]
    np.testing.assert_array_equal(out["J8"], j8)
    words = a.view(np.uint32)  # (4, 32): word k holds elements 2k and 2k + 1
    w = np.array([words[bx, tx] ^ (a.view(np.uint16)[bx, tx * 2 + 1].astype(np.uint32) |
                                   a.view(np.uint16)[bx, tx * 2 + 2].astype(np.uint32) << 16)
                  for bx in range(4) for tx in range(8)], np.uint32)
    np.testing.assert_array_equal(out["W"], w)


def test_a_word_past_the_tensor_reads_zero(tilec, tmp_path):
    """A raw word is in bounds when all its elements are: one that straddles the end of
    the tensor reads 0 and is not stored (tilec's safe global accesses)."""
    src = tmp_path / "edge.py"
    src.write_text(
        "import tilelang.language as T\n\n@T.prim_func\n"
        "def main(A: T.Tensor((7,), \"float16\"), W: T.Tensor((4,), \"uint32\"),\n"
        "         B: T.Tensor((7,), \"float16\")):\n"
        "    with T.Kernel(1, threads=4) as bx:\n"
        "        tx = T.get_thread_binding()\n"
        "        W[tx] = T.ldg32(A[tx * 2])\n"
        "        T.stg32(B[tx * 2], T.ldg32(A[tx * 2]))\n")
    a = np.arange(1, 8, dtype=np.float16)
    out = tilec.run(src, inputs={"A": a, "B": np.full(7, 9, np.float16)})
    u = a.view(np.uint16).astype(np.uint32)
    np.testing.assert_array_equal(out["W"], [u[0] | u[1] << 16, u[2] | u[3] << 16,
                                             u[4] | u[5] << 16, 0])
    np.testing.assert_array_equal(out["B"], np.concatenate([a[:6], [9]]).astype(np.float16))


@pytest.mark.parametrize("N,K,threads", [(64, 64, 32), (80, 128, 32)])
def test_dequantize_gemv_with_an_imported_function(tilec, N, K, threads):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(K).astype(np.float32)
    b = rng.integers(0, 256, (N, K // 2)).astype(np.uint8)
    s = rng.random(N).astype(np.float32)
    out = tilec.run(KERNELS + "mem_extern.py", dict(N=N, K=K, threads=threads),
                    {"A": a, "B": b, "S": s})
    lo, hi = (b & 15).astype(np.float64) - 8, (b >> 4).astype(np.float64) - 8
    w = np.stack([lo, hi], -1).reshape(N, K) * s[:, None]
    np.testing.assert_allclose(out["C"], w @ a, rtol=1e-5, atol=1e-5)
    x = (np.arange(N, dtype=np.uint64) * 40503) % 2**32
    np.testing.assert_array_equal(out["P"], [bin(int(v)).count("1") for v in x])
    np.testing.assert_allclose(out["E"], np.sqrt(s), rtol=1e-6)


def test_pointers_and_results(tilec, tmp_path):
    """T.access_ptr with extents and offset=, T.address_of, T.tvm_access_ptr, and a
    function's result used in an expression."""
    src = tmp_path / "ptrs.py"
    src.write_text(
        "import tilelang.language as T\n\n"
        "SRC = '''\n"
        "static float sum_and_scale(const float *a, float *b, int n, float k) {\n"
        "    float s = 0;\n"
        "    for (int i = 0; i < n; i++) { s += a[i]; b[i] = a[i] * k; }\n"
        "    return s;\n"
        "}\n"
        "'''\n\n@T.prim_func\n"
        "def main(A: T.Tensor((4, 8), \"float32\"), B: T.Tensor((4, 8), \"float32\"),\n"
        "         F: T.Tensor((32,), \"float32\"), G: T.Tensor((32,), \"float32\"),\n"
        "         S: T.Tensor((4, 3), \"float32\")):\n"
        "    with T.Kernel(4, threads=1) as bx:\n"
        "        T.import_source(SRC)\n"
        "        S[bx, 0] = T.call_extern(\"float32\", \"sum_and_scale\",\n"
        "            T.access_ptr(A[bx, 0], \"r\", 8), T.access_ptr(B[bx, 0:8], \"w\"), 8, 2.0)\n"
        "        S[bx, 1] = T.call_extern(\"float32\", \"sum_and_scale\", T.address_of(A[bx, 4]),\n"
        "            T.tvm_access_ptr(T.float32, G.data, bx * 8 + 4, 4, 2), 4, 3.0) + 1.0\n"
        "        S[bx, 2] = T.call_extern(\"float32\", \"sum_and_scale\",\n"
        "            T.access_ptr(F, \"r\", offset=bx * 8, extent=8), T.access_ptr(G[bx * 8], \"w\"),\n"
        "            2, 0.5)\n")
    rng = np.random.default_rng(4)
    a = rng.standard_normal((4, 8)).astype(np.float32)
    f = rng.standard_normal(32).astype(np.float32)
    out = tilec.run(src, inputs={"A": a, "F": f, "G": np.zeros(32, np.float32)})
    np.testing.assert_allclose(out["B"], a * 2, rtol=1e-6)
    g = np.zeros(32, np.float32)
    for bx in range(4):
        g[bx * 8:bx * 8 + 2] = f[bx * 8:bx * 8 + 2] * 0.5
        g[bx * 8 + 4:bx * 8 + 8] = a[bx, 4:] * 3
    np.testing.assert_allclose(out["G"], g, rtol=1e-6)
    s = np.stack([a.sum(1), a[:, 4:].sum(1) + 1, f.reshape(4, 8)[:, :2].sum(1)], 1)
    np.testing.assert_allclose(out["S"], s, rtol=1e-5)


def test_the_imported_source_is_part_of_the_cache_key(tilec, tmp_path):
    """Two compilations that differ only in the imported source's text (the session's
    cache is shared) give each its own function."""
    src = tmp_path / "keyed.py"
    src.write_text(
        "import tilelang.language as T\n\n"
        "def k(source=\"static int f(int x) { return x + 1; }\"):\n"
        "    @T.prim_func\n"
        "    def main(X: T.Tensor((4,), \"int32\")):\n"
        "        with T.Kernel(1, threads=4) as bx:\n"
        "            tx = T.get_thread_binding()\n"
        "            T.import_source(source)\n"
        "            X[tx] = T.call_extern(\"int32\", \"f\", X[tx])\n"
        "    return main\n")
    x = np.arange(4, dtype=np.int32)
    one = tilec.run(src, inputs={"X": x})
    two = tilec.run(src, {"source": "static int f(int x) { return x * 10; }"}, {"X": x})
    np.testing.assert_array_equal(one["X"], x + 1)
    np.testing.assert_array_equal(two["X"], x * 10)


def test_async_copy_is_a_copy(tilec, tmp_path):
    src = tmp_path / "ac.py"
    src.write_text(
        "import tilelang.language as T\n\n@T.prim_func\n"
        "def main(A: T.Tensor((64, 64), \"float16\"), B: T.Tensor((64, 64), \"float16\")):\n"
        "    with T.Kernel(2, threads=128) as bx:\n"
        "        S = T.alloc_shared((32, 64), \"float16\")\n"
        "        T.async_copy(A[bx * 32:bx * 32 + 32, 0:64], S, coalesced_width=8)\n"
        "        for i, j in T.Parallel(32, 64):\n"
        "            B[bx * 32 + i, j] = S[i, j] * 2.0\n")
    a = np.random.default_rng(5).standard_normal((64, 64)).astype(np.float16)
    out = tilec.run(src, inputs={"A": a})
    np.testing.assert_array_equal(out["B"], a * np.float16(2))


def test_names_are_in_the_table(tilec):
    proc = tilec.command(["info", "--names"])
    assert proc.returncode == 0, proc.stderr
    table = dict(line.split("\t", 1) for line in proc.stdout.splitlines() if "\t" in line)
    for name in ["atomic_load", "atomic_store", "atomic_or", "ldg32", "ldg64", "ldg128",
                 "ldg256", "lds32", "lds64", "lds128", "stg32", "stg64", "stg128", "stg256",
                 "sts32", "sts64", "sts128", "__ldg", "import_source", "call_extern",
                 "call_pure_extern", "access_ptr", "address_of", "tvm_access_ptr",
                 "async_copy", "atomic_add", "atomic_max", "atomic_min"]:
        assert table.get("T." + name, "").startswith("C, CUDA"), (name, table.get("T." + name))


DEQ = "static void dq(const unsigned char *q, float *w) { w[0] = q[0]; }"

ERRORS = [
    ("v = T.ldg32(D[0])", "T.ldg32 moves 4 bytes, but an element of 'D' (float64) has 8"),
    ("T.stg64(X[0:4], T.ldg64(X[0]))",
     "T.stg64 moves 8 bytes (2 float32 elements), but the slice of 'X' has 4 elements"),
    ("v = T.ldg32(S[0])", "T.ldg32: 'S' is a shared buffer; T.ldg32 acts on global memory"),
    ("T.sts32(X[0], 1)", "T.sts32: 'X' is a global buffer; T.sts32 acts on shared memory"),
    ("T.stg128(X[0:4], 1)", "T.stg128 stores 4 words of 32 bits: give the value of T.ldg128"),
    ("T.stg32(X[0], H[0])", "T.stg32 stores 32-bit words; the value is float16 (16 bits)"),
    ("T.stg64(X[0:2], (1, 2, 3))", "T.stg64 stores 2 words of 32 bits; the value has 3"),
    ("v = T.__ldg(S[0])", "T.__ldg: 'S' is a shared buffer; T.__ldg acts on global memory"),
    ("T.call_extern(\"handle\", \"nope\", 1)",
     "T.call_extern: no function 'nope' in the sources given to T.import_source"),
    ("T.call_extern(\"handle\", \"tl_fence\")",
     "names that start with tl_, TL_ or tilec_ are tilec's own"),
    ("T.import_source(\"static int tl_x(void) { return 0; }\")",
     "T.import_source: the source names 'tl_x'"),
    ("T.import_source(3)", "T.import_source takes the source text (a string), got int 3"),
    ("T.call_extern(\"float32\", \"expf\", \"hi\")",
     "T.call_extern: argument 1 is string \"hi\"; pass numbers, expressions, or T.access_ptr"),
    ("p = T.access_ptr(3, \"r\")",
     "T.access_ptr: base must be a buffer, a buffer element or a slice, got int 3"),
    ("p = T.access_ptr(R, \"r\")", "T.access_ptr of fragment buffer 'R'"),
    ("p = T.access_ptr(X, \"x\")", "T.access_ptr: access_type must be \"r\", \"w\", \"rw\""),
    ("p = T.access_ptr(L[0, 0], \"r\", offset=1)",
     "T.access_ptr(offset=) is for 1-dimensional buffers"),
    ("p = T.address_of(X)", "T.address_of expects a buffer element (x[i]), got buffer X"),
    ("T.import_source(\"" + DEQ + "\")\n"
     "            for i in T.Parallel(4):\n"
     "                T.call_extern(\"handle\", \"dq\", T.access_ptr(Q, \"r\"), T.access_ptr(X, \"w\"))",
     "T.call_extern inside a T.Parallel loop is not supported"),
    ("for i in T.Parallel(4):\n                X[i] = T.atomic_add(X[0], 1.0, return_prev=True)",
     "T.atomic_add(return_prev=True) inside a T.Parallel loop is not supported"),
    ("v = T.atomic_add(X, Y, return_prev=True)",
     "T.atomic_add(return_prev=True) takes one element (x[i]) and a scalar value"),
    ("T.atomic_or(X[0], 1)", "T.atomic_or: 'X' is float32; T.atomic_or takes an integer buffer"),
    ("v = T.atomic_load(X[0], memory_order=\"release\")",
     "T.atomic_load does not support memory_order=string \"release\""),
    ("T.atomic_store(X[0], 1.0, memory_order=\"acquire\")",
     "T.atomic_store does not support memory_order=string \"acquire\""),
    ("v = T.atomic_load(L[0, 0])", "T.atomic_load: 'L' is a local buffer"),
    ("T.import_source(\"static int f(int x) { return x; }\")\n"
     "            while T.call_extern(\"int32\", \"f\", I[0]) > 0:\n"
     "                I[0] = I[0] - 1",
     "this `while` condition makes a call that runs once, before the loop"),
    ("T.import_source(\"__device__ int f(int x) { return x; }\")",
     "T.import_source: this source is CUDA code (it uses __device__), and the C target"),
    ("T.atomic_store(X[0:4], Y[0:4])", "T.atomic_store takes one element and a scalar value"),
    ("T.atomic_or(I[0], 1.5)", "T.atomic_or: the value is float32, not an integer"),
    ("v = T.ldg64(L[0:2, 0])", "T.ldg64: 'L' is a local buffer; T.ldg64 acts on global memory"),
    ("v = T.lds64(S2[0:4, 0:1])", "T.lds64: the slice must lie along the last dimension"),
    ("v = T.ldg32(B[0])", "T.ldg32: 'B' is a bool buffer"),
    ("v = T.__ldg(X2, 1)", "T.__ldg(buffer, index): 'X2' is 2-dimensional"),
    ("v = T.__ldg(3)", "T.__ldg expects a buffer element (x[i]) or a buffer and an index"),
    ("T.call_extern(\"handle\", \"no-such\")", "T.call_extern: \"no-such\" is not a C identifier"),
    ("T.call_extern(\"handle\", 3)", "T.call_extern: the function's name must be a string"),
    ("T.call_extern(\"handle\")", "T.call_extern takes the result's dtype, the function's name"),
    ("T.call_extern(\"expf\", 1.0, dtpe=\"float32\")",
     "T.call_extern() got an unexpected keyword argument 'dtpe'"),
    ("p = T.tvm_access_ptr(T.float32, 3, 0, 1, 1)",
     "T.tvm_access_ptr: data must be a buffer's .data, got int 3"),
    ("p = T.access_ptr(X[0], \"r\", 1, 2)", "T.access_ptr got 2 extents for the 1-dimensional 'X'"),
    ("T.async_copy(X, S, disable_tma=True)",
     "T.async_copy() got an unexpected keyword argument 'disable_tma'"),
    ("v = T.atomic_add(B[0], True, return_prev=True)",
     "T.atomic_add(return_prev=True) on the bool buffer 'B'"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_errors_at_the_users_line(tilec, tmp_path, line, message):
    head = ("import tilelang.language as T\n\n"
            "@T.prim_func\n"
            "def main(X: T.Tensor((64,), \"float32\"), Y: T.Tensor((64,), \"float32\"),\n"
            "         D: T.Tensor((8,), \"float64\"), H: T.Tensor((8,), \"float16\"),\n"
            "         I: T.Tensor((4,), \"int32\"), B: T.Tensor((4,), \"bool\"),\n"
            "         X2: T.Tensor((4, 4), \"float32\")):\n"
            "        with T.Kernel(1, threads=32) as bx:\n"
            "            S = T.alloc_shared((64,), \"float32\")\n"
            "            R = T.alloc_fragment((4,), \"float32\")\n"
            "            L = T.alloc_local((2, 2), \"float32\")\n"
            "            Q = T.alloc_local((4,), \"uint8\")\n"
            "            S2 = T.alloc_shared((4, 4), \"float16\")\n")
    tilec.emit_error(tmp_path, head, line, message)
