"""Raw pointers as kernel arguments (src/frontend/tileops_ptr.c, src/rt/args.c) on the C
target against NumPy: tables of addresses (T.Tensor(..., T.ptr)) made tensors with
T.make_tensor, in the shape of TileLang's grouped GEMM example; T.ptr parameters given
as a number (an array's address) or as an array; T.isnullptr; and the argument errors.
The kernels are tests/exec/kernels/ptr_*.py (test_emit_cuda compiles and simulates them
for CUDA sm_80 and sm_90a)."""
from pysupport import ROOT, pytestmark  # noqa: F401 (the ASan skip); first: sets sys.path

import importlib.util
import math

import numpy as np
import pytest

import tilec

KERNELS = ROOT / "tests" / "exec" / "kernels"


def load(name):
    spec = importlib.util.spec_from_file_location(name, KERNELS / (name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def addresses(arrays):
    return np.array([a.ctypes.data if a is not None else 0 for a in arrays], np.int64)


@pytest.mark.parametrize("sizes,block_M", [((16, 33, 64), 32), ((5, 40), 16)])
def test_grouped_gemm_pointer_tables(sizes, block_M):
    K, N = 64, 48
    kernel = load("ptr_tables").grouped_gemm(sizes, K, N, block_M=block_M)
    rng = np.random.default_rng(len(sizes))
    G, max_M = len(sizes), max(sizes)
    a = [np.zeros((max_M, K), np.float16) for _ in sizes]
    for x, m in zip(a, sizes):
        x[:m] = rng.standard_normal((m, K))
    b = [rng.standard_normal((K, N)).astype(np.float16) for _ in sizes]
    c = [np.full((max_M, N), 7, np.float16) for _ in sizes]
    skipped = G - 1  # a null C address: the group is skipped
    c_addr = addresses([None if g == skipped else c[g] for g in range(G)])
    storage = [np.zeros((G * max_M, K), np.float16), np.zeros((G * K, N), np.float16),
               np.zeros((G * max_M, N), np.float16)]
    kernel(addresses(a), addresses(b), c_addr, *storage)
    for g, m in enumerate(sizes):
        if g == skipped:
            assert (c[g] == 7).all()
            continue
        want = a[g][:m].astype(np.float32) @ b[g].astype(np.float32)
        np.testing.assert_allclose(c[g][:m].astype(np.float32), want, rtol=1e-2, atol=2e-2)
    assert not storage[2].any()  # the storage parameters are only there for the simulation


def test_pointer_parameters():
    M, N = 40, 24
    kernel = load("ptr_param").scale_add(M, N)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((M, N)).astype(np.float32)
    y = rng.standard_normal((M, N)).astype(np.float32)
    unused = np.zeros((M, N), np.float32)
    out = np.zeros((M, N), np.float32)
    kernel(x.ctypes.data, y, unused, unused, out)  # a number and an array
    np.testing.assert_array_equal(out, x * 2 + y)
    kernel(x, 0, unused, unused, out)  # a null Y: nothing added
    np.testing.assert_array_equal(out, x * 2)
    kernel(np.int64(x.ctypes.data), np.uint64(y.ctypes.data), unused, unused, out)
    np.testing.assert_array_equal(out, x * 2 + y)
    info = [p for p in kernel.params if p.name in ("X_ptr", "Y_ptr")]
    assert [p.is_pointer and p.dtype == "int64" for p in info] == [True, True]
    with pytest.raises(tilec.TilecError, match="X_ptr"):
        kernel(1.5, y, unused, unused, out)


def test_upstream_example_kernel_shape(tmp_path):
    """The factory of TileLang's example as written (T.Tensor([n], T.ptr) tables and a
    tensor of tile offsets), compiled and run on the C target."""
    src = (KERNELS / "ptr_tables.py").read_text()
    assert "T.make_tensor(A_ptrs[g]" in src
    sizes, K, N, bm = (16, 33, 64), 128, 96, 32
    kernel = load("ptr_tables").grouped_gemm(sizes, K, N, block_M=bm, block_N=32)
    rng = np.random.default_rng(0)
    a = [rng.standard_normal((64, K)).astype(np.float16) for _ in sizes]
    b = [rng.standard_normal((K, N)).astype(np.float16) for _ in sizes]
    c = [np.zeros((64, N), np.float16) for _ in sizes]
    st = [np.zeros((3 * 64, K), np.float16), np.zeros((3 * K, N), np.float16),
          np.zeros((3 * 64, N), np.float16)]
    kernel(addresses(a), addresses(b), addresses(c), *st)
    for g, m in enumerate(sizes):
        rows = math.ceil(m / bm) * bm  # whole tiles: rows up to there are computed too
        want = a[g][:rows].astype(np.float32) @ b[g].astype(np.float32)
        np.testing.assert_allclose(c[g][:rows].astype(np.float32), want, rtol=1e-2, atol=3e-2)
