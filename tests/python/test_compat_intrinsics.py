"""TileLang's mma.sync emitter and layout helpers through the compatibility layer
(python/tilec/compat/intrinsics/mma.py): the kernels of TileLang's examples
gemm/example_gemm_intrinsics.py and hadamard_transform/example_hadamard.py
(kernels/tl_gemm_intrinsics.py, kernels/tl_hadamard.py, small sizes) built from Python
on the C target against NumPy; the module paths users import them from (0.1.15's
tilelang.cuda.intrinsics and the older tilelang.intrinsics); and the helpers' values
against the PTX ISA's layouts."""
from pysupport import pytestmark  # noqa: F401 (the ASan skip); first: sets sys.path

import numpy as np
import pytest

import tilec


def hadamard_matrix(n):
    h = np.array([[1.0]])
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return h


@pytest.mark.parametrize("in_dtype,out_dtype,accum", [("float16", "float16", "float32"),
                                                      ("float16", "float32", "float32"),
                                                      ("int8", "int32", "int32")])
def test_example_gemm_intrinsics(in_dtype, out_dtype, accum):
    import tl_gemm_intrinsics as ex
    rng = np.random.default_rng(1)
    if in_dtype == "int8":
        a = rng.integers(-128, 128, (256, 64)).astype(np.int8)
        b = rng.integers(-128, 128, (128, 64)).astype(np.int8)
    else:
        a = (rng.integers(-32, 32, (256, 64)) / 16).astype(np.float16)
        b = (rng.integers(-32, 32, (128, 64)) / 16).astype(np.float16)
    c = ex.tl_matmul(a, b, in_dtype, out_dtype, accum)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    if out_dtype == "int32":
        np.testing.assert_array_equal(c, ref.astype(np.int32))
    else:
        np.testing.assert_allclose(c.astype(np.float64), ref, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("n", [64, 256, 2048])
def test_example_hadamard(n):
    import tilelang.language as T
    import tl_hadamard as ex
    x = np.random.default_rng(n).standard_normal((3, n)).astype(np.float32)
    y = ex.hadamard(x, n, T.float32)
    np.testing.assert_allclose(y, x.astype(np.float64) @ hadamard_matrix(n).T, rtol=1e-4,
                               atol=1e-4)


def test_module_paths():
    from tilelang.cuda.intrinsics import TensorCoreIntrinEmitter, get_swizzle_layout
    from tilelang.cuda.intrinsics.layout.mma_layout import make_mma_swizzle_layout
    from tilelang.cuda.intrinsics.layout.utils import get_mma_micro_size, mma_store_index_map
    from tilelang.cuda.intrinsics.macro.mma_macro_generator import TensorCoreIntrinEmitter as E2
    from tilelang.intrinsics import get_ldmatrix_offset
    from tilelang.intrinsics.mma_macro_generator import TensorCoreIntrinEmitter as E3
    assert TensorCoreIntrinEmitter is E2 is E3
    assert callable(get_swizzle_layout) and callable(make_mma_swizzle_layout)
    assert get_mma_micro_size("int8") == (16, 16, 32)
    assert get_mma_micro_size("float16") == (16, 16, 16)
    assert callable(mma_store_index_map) and callable(get_ldmatrix_offset)
    with pytest.raises(ImportError, match="mma.sync emitter"):
        from tilelang.cuda.intrinsics.macro.mma_macro_generator import (  # noqa: F401
            INT4TensorCoreIntrinEmitter)


def test_emitter_fields():
    from tilelang.cuda.intrinsics import TensorCoreIntrinEmitter
    e = TensorCoreIntrinEmitter(a_dtype="int8", b_dtype="int8", accum_dtype="int32",
                                b_transposed=True, block_row_warps=2, block_col_warps=2,
                                warp_row_tiles=64, warp_col_tiles=64, chunk=32)
    assert (e.mma_prefix, e.k_dim, e.n_dim, e.warp_rows, e.warp_cols) == ("m16n8k32", 32, 16,
                                                                          4, 4)
    assert (e.local_size_a, e.local_size_b, e.local_size_out, e.threads) == (16, 16, 8, 128)
    t = TensorCoreIntrinEmitter(a_dtype="float32", b_dtype="float32", accum_dtype="float32",
                                warp_row_tiles=16, warp_col_tiles=8, chunk=32)
    assert (t.mma_prefix, t.a_dtype_abbrv, t.n_dim, t.local_size_b) == ("m16n8k8", "tf32", 8, 2)
    with pytest.raises(AssertionError, match="multiple of 16"):
        TensorCoreIntrinEmitter(warp_row_tiles=24)


def test_helpers_against_ptx_layouts():
    """Lane l of an .x4 ldmatrix addresses row l % 8 of matrix l // 8; the matrices of the
    A fragment are (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15) and of a
    16-column B tile in [n][k] (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), ...
    mma_store_index_map is the C fragment's (row g + 8 (i % 4 // 2), col 2 t + i % 2) of
    n8 tile i // 4. The swizzle XORs the 16-byte chunk with the row mod 8."""
    from tilelang.cuda.intrinsics import (get_ldmatrix_offset, get_swizzle_layout,
                                          mma_store_index_map)
    for lane in range(32):
        m, r = lane // 8, lane % 8
        a = (8 * (m % 2) + r, 8 * (m // 2))
        assert get_ldmatrix_offset("A", lane, 0, 64, "float16", False) == a
        assert get_ldmatrix_offset("A", lane, 0, 64, "float16", True) == (8 * (m // 2) + r,
                                                                           8 * (m % 2))
        assert get_ldmatrix_offset("B", lane, 0, 64, "float16", True) == (8 * (m // 2) + r,
                                                                           8 * (m % 2))
        assert get_ldmatrix_offset("A", lane, 0, 64, "int8", False) == (a[0], 2 * a[1])
        assert get_ldmatrix_offset("B", lane, 3, 64, "float32", True) == (8 * (m // 2) + r,
                                                                           4 * (m % 2) + 3)
        g, t = lane // 4, lane % 4
        for i in range(8):
            assert mma_store_index_map(lane, i) == (g + 8 * (i % 4 // 2),
                                                    8 * (i // 4) + 2 * t + i % 2)
    with pytest.raises(AssertionError, match="B transposed"):
        get_ldmatrix_offset("A", 0, 0, 64, "int8", True)
    for row in range(16):
        for col in range(64):  # 128-byte rows of float16: 8 chunks of 8
            assert get_swizzle_layout(row, col, 64, "float16") == (
                0, row, ((col // 8) ^ (row % 8)) * 8 + col % 8)
    assert get_swizzle_layout(5, 17, 32, "float16") == (0, 5, ((17 // 8) ^ (5 % 8 // 2)) * 8 + 1)
    assert tilec.compat.is_shim(__import__("tilelang"))
