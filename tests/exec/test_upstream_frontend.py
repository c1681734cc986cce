"""Constructs of TileLang's upstream examples that tilec's front end and CUDA launch now
take, on the C target against NumPy (test_emit_cuda compiles the kernels of
tests/unit/kernels/ named here for sm_80 and sm_90a with NVRTC and simulates them):
T.dynamic's name lists (deepseek_v32 sparse_mla_fwd_pipelined.py), tile ops given one
element (topk_selector.py's T.fill(s_num_input[0], 0)), T.reshape / T.view of fragment,
shared and local buffers (fp8_lighting_indexer.py), grids over CUDA's y/z limit
(analyze/example_conv_analyze.py), T.import_source code that uses the prelude's
short type names (the dequantize GEMV examples) and named barriers under a condition on
the thread index (topk_selector.py's suffix sums), which the C target runs in step."""
import numpy as np
import pytest

KERNELS = "tests/unit/kernels/"

DYNAMIC = '''import tilelang.language as T

M, N = T.dynamic("M, N")
R, C = T.dynamic("R C", "int32")
M2 = T.dynamic("M")


@T.prim_func
def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M2, N), "float32"),
         X: T.Tensor((R, C), "int32"), Y: T.Tensor((R, C), "int32")):
    with T.Kernel(T.ceildiv(M, 4), threads=32) as bx:
        for i, j in T.Parallel(4, N):
            if bx * 4 + i < M:
                B[bx * 4 + i, j] = A[bx * 4 + i, j] * 2.0 + M
    with T.Kernel(R, threads=32) as bx:
        for j in T.Parallel(C):
            Y[bx, j] = X[bx, j] + R * 100 + C
'''


def test_dynamic_name_lists(tilec, tmp_path):
    """T.dynamic("M, N") and T.dynamic("R C", dtype) are tuples of symbolic sizes; a name
    given again is the same size."""
    path = tmp_path / "dyn.py"
    path.write_text(DYNAMIC)
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (10, 7)).astype(np.float32)
    x = rng.integers(-50, 50, (3, 5)).astype(np.int32)
    out = tilec.run(str(path), None, {"A": a, "X": x})
    np.testing.assert_array_equal(out["B"], a * 2 + 10)
    np.testing.assert_array_equal(out["Y"], x + 3 * 100 + 5)


def test_dynamic_symbols_are_sizes(tilec, tmp_path):
    """The tuple's names are the kernel's symbolic sizes, in order (tilec emit --ir)."""
    path = tmp_path / "dyn.py"
    path.write_text(DYNAMIC)
    proc = tilec.command(["emit", path, "--ir"])
    assert proc.returncode == 0, proc.stderr
    assert "syms: M, N, R, C" in proc.stdout, proc.stdout


def test_fill_and_copy_of_one_element(tilec):
    """T.fill / T.clear of x[i] cover that element alone; T.copy(x[i], y[j]) is a store."""
    n = 64
    x = np.random.default_rng(4).uniform(-4, 4, n).astype(np.float32)
    out = tilec.run(KERNELS + "fill_element.py", dict(n=n), {"X": x})
    rows = np.stack([x, x])
    rows[1, 3] = -1
    rows[0, n - 1] = 0
    rows[0, 1] = rows[1, 0]
    np.testing.assert_array_equal(out["Y"], rows)
    np.testing.assert_array_equal(out["C"], np.array([0, 5, 0, int(x[n - 1])], np.int32))


def test_barriers_in_thread_range_branches(tilec):
    """A suffix sum by the first 64 threads between named barriers under `if tx < 64`,
    and the other threads' `else` with a barrier of its own: each step sees the last."""
    x = np.random.default_rng(7).integers(-50, 50, 64).astype(np.int32)
    out = tilec.run(KERNELS + "branch_barriers.py", dict(n=64, threads=128), {"X": x})
    np.testing.assert_array_equal(out["Y"], np.cumsum(x[::-1])[::-1].astype(np.int32))
    tx = np.arange(64, 128)
    np.testing.assert_array_equal(out["Z"], ((127 - tx + 64) * 2 + 1).astype(np.int32))


def test_views_of_fragments_and_shared(tilec):
    """A gemm accumulator seen in 3-D (updated element-wise, reduced over its last
    dimension), a shared tile in 3-D, and fills and stores through a fragment's view."""
    N, Q, H, D = 64, 4, 8, 32
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (N, D)).astype(np.float16)
    b = rng.uniform(-1, 1, (Q * H, D)).astype(np.float16)
    w = rng.uniform(-1, 1, (Q, H)).astype(np.float32)
    out = tilec.run(KERNELS + "local_views.py", dict(N=N, Q=Q, H=H, D=D),
                    {"A": a, "B": b, "W": w})
    s = a.astype(np.float64) @ b.astype(np.float64).T
    logits = (np.maximum(s.reshape(N, Q, H), 0) * w).sum(-1)
    assert np.abs(logits).max() > 1
    np.testing.assert_allclose(out["L"], logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(out["S"], a.reshape(N // 2, 2, D))
    z = np.full((Q, H), 0.5, np.float32)
    z[1, :] = 2
    z[Q - 1, H - 1] = 7
    np.testing.assert_array_equal(out["Z"], z)


GEMM_VIEW = '''import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 32), "float16"),
         C: T.Tensor((64, 2, 16), "float32")):
    with T.Kernel(1, threads=128) as bx:
        a = T.alloc_shared((64, 32), "float16")
        b = T.alloc_shared((32, 32), "float16")
        c3 = T.alloc_fragment((64, 2, 16), "float32")
        c = T.reshape(c3, (64, 32))
        T.fill(c3, 1.0)
        for k in T.unroll(2):
            T.copy(A[0, k * 32], a)
            T.copy(B[k * 32, 0], b)
            T.gemm(a, b, c, clear_accum=(k == 1))
        T.copy(c3, C)
'''


def test_gemm_into_a_view(tilec, tmp_path):
    """A gemm accumulates into a 2-D view of a 3-D fragment, cleared where its run-time
    clear_accum= holds (the fill under that `if` is staged too)."""
    path = tmp_path / "gemm_view.py"
    path.write_text(GEMM_VIEW)
    rng = np.random.default_rng(8)
    a = rng.uniform(-1, 1, (64, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64, 32)).astype(np.float16)
    out = tilec.run(str(path), None, {"A": a, "B": b})
    want = a[:, 32:].astype(np.float64) @ b[32:].astype(np.float64)
    np.testing.assert_allclose(out["C"], want.reshape(64, 2, 16), rtol=1e-4, atol=1e-4)
    for arch in ("sm_80", "sm_90a"):
        cuda = tilec.command(["emit", path, "--target", "cuda", "--arch", arch])
        assert cuda.returncode == 0, cuda.stderr


POINTER = '''import tilelang.language as T

SRC = r"""
#ifdef __CUDACC__
__device__
#endif
static inline void twice(float *x, int n) {
    for (int i = 0; i < n; i++) x[i] *= 2.0f;
}
"""


@T.prim_func
def main(A: T.Tensor((8,), "float32"), B: T.Tensor((8,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        q = T.alloc_local((8,), "float32")
        T.import_source(SRC)
        for i in T.serial(8):
            q[i] = A[i]
        W = T.reshape(q, (2, 4))
        T.call_extern("twice", T.access_ptr(W[1, 0], "rw"), 4, dtype="float32")
        for i in T.serial(8):
            B[i] = q[i]
'''


def test_pointer_into_a_view(tilec, tmp_path):
    """T.access_ptr of a view's element points at the base's element of that position."""
    path = tmp_path / "ptr.py"
    path.write_text(POINTER)
    a = np.arange(8, dtype=np.float32) + 1
    out = tilec.run(str(path), None, {"A": a})
    np.testing.assert_array_equal(out["B"], np.concatenate([a[:4], 2 * a[4:]]))
    cuda = tilec.command(["emit", path, "--target", "cuda", "--arch", "sm_90a"])
    assert cuda.returncode == 0, cuda.stderr
    assert "twice(&q[4], 4)" in cuda.stdout.replace("(int64_t)", ""), cuda.stdout[-2000:]


def test_grid_over_cuda_limits(tilec):
    """Every block of grids whose y or z exceed 65535 runs once, with its own indices (on
    CUDA they are folded into a 1-D grid: the source reads them from blockIdx.x)."""
    gx, gy, gz = 3, 65537, 65537
    out = tilec.run(KERNELS + "big_grid.py", dict(gx=gx, gy=gy, gz=gz))
    want_y = np.arange(gy)[:, None] * 8 + np.arange(gx)[None, :]
    np.testing.assert_array_equal(out["Y"], want_y.astype(np.int32))
    want_z = (np.arange(gz)[:, None, None] * 16 + np.arange(2)[None, :, None] * 4 +
              np.arange(2)[None, None, :])
    np.testing.assert_array_equal(out["Z"], want_z.astype(np.int32))
    proc = tilec.command(["emit", KERNELS + "big_grid.py", "--target", "cuda", "--arch",
                          "sm_80"])
    assert proc.returncode == 0, proc.stderr
    for line in ["bx = (int32_t)(blockIdx.x % 3u);", "by = (int32_t)(blockIdx.x / 3u % 65537u);",
                 "bz = (int32_t)(blockIdx.x / 4u % 65537u);"]:
        assert line in proc.stdout, line


@pytest.mark.parametrize("grid,message", [
    ("T.Kernel(2, 65536 * 16384, threads=32)", "grid dimension 1 (y) is 1073741824 blocks"),
    ("T.Kernel(1, 1, 70000, threads=32, cluster_dims=(1, 1, 2))",
     "grid dimension 2 (z) is 70000 blocks"),
])
def test_grid_that_cannot_fold(tilec, tmp_path, grid, message):
    """A grid of more blocks than grid x holds, or with thread block clusters, stays an
    error of the CUDA build (the C target runs it)."""
    src = ("import tilelang.language as T\n\n@T.prim_func\n"
           "def main(Y: T.Tensor((4,), 'int32')):\n    with %s as (bx, by%s):\n"
           "        Y[0] = 1\n") % (grid, ", bz" if "70000" in grid else "")
    path = tmp_path / "grid.py"
    path.write_text(src)
    proc = tilec.command(["emit", path, "--target", "cuda", "--arch", "sm_90a"])
    assert proc.returncode != 0 and message in proc.stderr, proc.stderr
    assert "grid.py:5:" in proc.stderr, proc.stderr
    assert tilec.command(["emit", path, "--target", "c"]).returncode == 0


def test_import_source_type_names(tilec):
    """Imported code's uint/ushort/uchar/ulong (CUDA: tl_cuda.h; here its C half)."""
    q = np.random.default_rng(6).integers(0, 256, (64, 4)).astype(np.uint8)
    out = tilec.run(KERNELS + "import_names.py", dict(N=64), {"B": q})
    word = q.astype(np.uint32) @ (np.uint32(1) << (8 * np.arange(4, dtype=np.uint32)))
    nib = (word[:, None] >> (4 * np.arange(8, dtype=np.uint32))) & 15
    want = nib * 3 + 0x100 * (np.arange(8) // 2)
    np.testing.assert_array_equal(out["C"], want.astype(np.uint16))
