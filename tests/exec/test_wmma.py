"""TVM's WMMA intrinsics (src/frontend/tileops_wmma.c) on the C target against NumPy: a
GEMM as TVM programs write it (tests/unit/kernels/wmma_gemm.py: fragments of scope
wmma.*, T.tvm_fill_fragment or an accumulator T.tvm_load_matrix_sync, T.tvm_mma_sync
over K, T.tvm_store_matrix_sync) in each layout and dtype tilec has; T.tvm_tuple; and the
bad uses, each an error at the user's line. test_emit_cuda compiles the same kernel for
sm_80 and sm_90a and simulates it against the C target."""
import numpy as np
import pytest

GEMM = "tests/unit/kernels/wmma_gemm.py"


@pytest.mark.parametrize("cfg", [
    dict(),  # float16 -> float32, A row-major, B col-major, filled accumulator
    dict(A_COL=True, B_COL=False, C_COL=True),
    dict(ACC="float16", BIAS=True),
    dict(DT="bfloat16", BIAS=True, A_COL=True, WARPS=1, M=48, N=96, K=32),
    dict(ACC="float16", B_COL=False, C_COL=True, WARPS=4, M=128, K=48),
])
def test_wmma_gemm(tilec, cfg):
    p = dict(M=64, N=64, K=64, DT="float16", ACC="float32", A_COL=False, B_COL=True,
             C_COL=False, BIAS=False)
    p.update(cfg)
    m, n, k = p["M"], p["N"], p["K"]
    rng = np.random.default_rng(len(cfg))
    # halves and small integers: every product and partial sum is exact in float16
    a = (rng.integers(-4, 5, (m, k)) / 2).astype(np.float32)
    b = rng.integers(-2, 3, (k, n)).astype(np.float32)
    bias = (rng.integers(-64, 65, (m, n)) / 4).astype(np.float32)
    store = np.float16 if p["DT"] == "float16" else np.float32  # bfloat16: float32 in .npy
    acc = np.float16 if p["ACC"] == "float16" else np.float32
    args = {"A": (a.T if p["A_COL"] else a).astype(store),
            "B": (b.T if p["B_COL"] else b).astype(store), "Bias": bias.astype(acc)}
    out = tilec.run(GEMM, cfg, args)["C"]
    ref = a.astype(np.float64) @ b.astype(np.float64) + (bias if p["BIAS"] else 0.5)
    if p["C_COL"]:
        out = out.T
    np.testing.assert_array_equal(out.astype(np.float64), ref.astype(acc).astype(np.float64))


def test_tvm_tuple(tilec, tmp_path):
    """T.tvm_tuple is a tuple value: the value of a T.attr annotation, or indexed."""
    src = tmp_path / "tup.py"
    src.write_text(
        "import tilelang.language as T\n\n"
        "@T.prim_func\n"
        "def main(X: T.Tensor((4,), \"int32\")):\n"
        "    with T.Kernel(1, threads=32) as bx:\n"
        "        t = T.tvm_tuple(3, bx + 5, 7)\n"
        "        with T.attr(0, \"pragma_tuple\", T.tvm_tuple(1, 2)):\n"
        "            X[0] = t[0]\n"
        "            X[1] = t[1]\n"
        "            X[2] = t[2]\n"
        "            X[3] = len(t)\n")
    out = tilec.run(str(src))["X"]
    assert list(out) == [3, 5, 7, 3]


# ---- bad uses: an error at the user's line ----------------------------------------------------
ERRORS = [
    ("T.tvm_mma_sync(c.data, 0, a.data, 0, b.data, 0, c.data, 0)\n"
     "            for i in T.Parallel(32):\n"
     "                T.tvm_fill_fragment(c.data, 16, 16, 16, 0, 0.0)",
     "T.tvm_fill_fragment is warp-collective (each warp makes it once): it cannot be inside "
     "a T.Parallel loop"),
    ("T.tvm_fill_fragment(c.data, 16, 16, 8, 0, 0.0)",
     "T.tvm_fill_fragment: m16n16k8 is not supported (tilec has m16n16k16)"),
    ("T.tvm_load_matrix_sync(a.data, 32, 8, 16, 0, T.access_ptr(s[0], \"r\"), 16, "
     "\"row_major\")", "T.tvm_load_matrix_sync: m32n8k16 is not supported"),
    ("T.tvm_mma_sync(c.data, 0, b.data, 0, b.data, 0, c.data, 0)",
     "T.tvm_mma_sync: the fragment_a 'b' is a \"wmma.matrix_b\" fragment; it must be "
     "\"wmma.matrix_a\""),
    ("T.tvm_mma_sync(c.data, 0, a.data, 0, b.data, 0, a.data, 0)",
     "T.tvm_mma_sync: the fragment_c 'a' is a \"wmma.matrix_a\" fragment; it must be "
     "\"wmma.accumulator\""),
    ("T.tvm_mma_sync(c.data, 2, a.data, 0, b.data, 0, c.data, 0)",
     "T.tvm_mma_sync: fragment index 2 is out of range: 'c' holds 2"),
    ("T.tvm_mma_sync(h.data, 0, a.data, 0, b.data, 0, c.data, 0)",
     "T.tvm_mma_sync: A float16, B float16, C float32, D float16 is not supported"),
    ("T.tvm_mma_sync(c.data, 0, a.data, 0, l.data, 0, c.data, 0)",
     "T.tvm_mma_sync: the fragment_b must be a WMMA fragment (a buffer of scope \"wmma.*\"), "
     "got buffer l"),
    ("T.tvm_store_matrix_sync(a.data, 16, 16, 16, 0, T.access_ptr(s[0], \"w\"), 16, "
     "\"row_major\")", "T.tvm_store_matrix_sync: the fragment 'a' is a \"wmma.matrix_a\" "
     "fragment; it must be \"wmma.accumulator\""),
    ("T.tvm_store_matrix_sync(c.data, 16, 16, 16, 0, T.access_ptr(Y[0], \"w\"), 16, "
     "\"diagonal\")", "T.tvm_store_matrix_sync: layout must be \"row_major\" or \"col_major\""),
    ("T.tvm_store_matrix_sync(c.data, 16, 16, 16, 0, T.access_ptr(s[0], \"w\"), 16, "
     "\"row_major\")", "T.tvm_store_matrix_sync: 's' holds float16 and the fragment 'c' float32"),
    ("T.tvm_load_matrix_sync(a.data, 16, 16, 16, 0, T.access_ptr(l[0], \"r\"), 16, "
     "\"row_major\")", "T.tvm_load_matrix_sync: 'l' is a local buffer; the matrix must be in "
     "shared or global memory"),
    ("T.tvm_load_matrix_sync(a.data, 16, 16, 16, 0, s.data, 16, \"row_major\")",
     "T.tvm_load_matrix_sync: buffer_ptr must be T.access_ptr(x[i], ...) or "
     "T.tvm_access_ptr(...), got buffer s"),
    ("x = c[0, 0]", "'c' is a WMMA fragment: its elements are opaque"),
    ("a[0, 1] = 1.0", "'a' is a WMMA fragment: its elements are opaque"),
    ("w = T.alloc_buffer((16, 8), \"float16\", scope=\"wmma.matrix_a\")",
     "T.alloc_buffer: a WMMA fragment buffer holds whole 16 x 16 fragments (tilec's shape "
     "is m16n16k16); this one has 128 elements"),
    ("w = T.alloc_fragment((16, 16), \"float32\", scope=\"wmma.matrix_a\")",
     "T.alloc_fragment: a \"wmma.matrix_a\" fragment holds float16 or bfloat16, not float32"),
    ("w = T.alloc_buffer((16, 16), \"float16\", scope=\"wmma.matrix_c\")",
     "T.alloc_buffer: scope \"wmma.matrix_c\" is not a WMMA fragment scope"),
    ("if tx < 32:\n"
     "                T.tvm_mma_sync(c.data, 0, a.data, 0, b.data, 0, c.data, 0)",
     "tl_wmma_mma_f32_f16 is warp-collective: on the C target it cannot run under a "
     "condition"),
    ("T.tvm_bmma_sync(c.data, 0, a.data, 0, b.data, 0, c.data, 0)",
     "T.tvm_bmma_sync is not supported by tilec (1-bit operands: tilec has no 1-bit dtype)"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_errors_at_the_users_line(tilec, tmp_path, line, message):
    head = ("import tilelang.language as T\n\n"
            "@T.prim_func\n"
            "def main(X: T.Tensor((64,), \"float16\"), Y: T.Tensor((256,), \"float32\")):\n"
            "        with T.Kernel(1, threads=64) as bx:\n"
            "            tx = T.get_thread_binding()\n"
            "            s = T.alloc_shared((256,), \"float16\")\n"
            "            l = T.alloc_local((8,), \"float16\")\n"
            "            a = T.alloc_buffer((16, 16), \"float16\", scope=\"wmma.matrix_a\")\n"
            "            b = T.alloc_buffer((16, 16), \"float16\", scope=\"wmma.matrix_b\")\n"
            "            c = T.alloc_buffer((2, 16, 16), \"float32\", scope=\"wmma.accumulator\")\n"
            "            h = T.alloc_buffer((16, 16), \"float16\", scope=\"wmma.accumulator\")\n")
    tilec.emit_error(tmp_path, head, line, message, last_only=True)


def test_whole_warps(tilec, tmp_path):
    head = ("import tilelang.language as T\n\n"
            "@T.prim_func\n"
            "def main(X: T.Tensor((64,), \"float16\")):\n"
            "        with T.Kernel(1, threads=48) as bx:\n"
            "            c = T.alloc_buffer((16, 16), \"float32\", scope=\"wmma.accumulator\")\n")
    tilec.emit_error(tmp_path, head, "T.tvm_fill_fragment(c.data, 16, 16, 16, 0, 0.0)",
                     "T.tvm_fill_fragment is warp-collective: the block's thread count (48) "
                     "must be a multiple of 32")
