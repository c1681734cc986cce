"""2:4 sparsity through the compatibility layer (python/tilec/compat/tl_sparse.py): the
kernel of TileLang's examples/gemm_sp (kernels/tl_gemm_sp.py) built from Python on the C
target, its operands compressed by tilelang.utils.sparse.compress, against NumPy; the
metadata helpers of tilelang.cuda.intrinsics.sparse_layout; compress's layout against
its definition (docs/language.md, T.gemm_sp), on numpy arrays and torch tensors."""
from pysupport import pytestmark  # noqa: F401 (the ASan skip); first: sets sys.path

import numpy as np
import pytest

import tilec  # noqa: F401


def sparse_a(rng, M, K, group=4, kept=2):
    a = rng.standard_normal((M, K)).astype(np.float16)
    for r in range(M):
        for g in range(K // group):
            drop = rng.choice(group, group - kept, replace=False)
            a[r, g * group + drop] = 0
    return a


@pytest.mark.parametrize("e_dtype", ["int16", "int8", "int32"])
def test_example_gemm_sp(e_dtype):
    import tilelang.language as T
    import tl_gemm_sp as ex
    from tilelang.utils.sparse import compress
    M, N, K = 128, 128, 128
    rng = np.random.default_rng(2)
    a = sparse_a(rng, M, K)
    b = rng.standard_normal((K, N)).astype(np.float16)
    kernel = ex.matmul_sp_fp16(M, N, K, T.float, T.dtype(e_dtype), 64, 64, 64, 2, 128,
                               T.GemmWarpPolicy.Square, True)
    a_sparse, e = compress(a, meta_dtype=e_dtype)
    assert a_sparse.shape == (M, K // 2) and e.dtype == np.dtype(e_dtype)
    c = kernel(a_sparse, e, b)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-3,
                               atol=1e-3)


def test_sparse_layout_helpers():
    import tilelang.language as T
    from tilelang.cuda.intrinsics.sparse_layout import (GROUP_CONFIG, get_e_factor,
                                                        get_e_replicate_factor)
    from tilelang.language.dtypes import dtype
    assert GROUP_CONFIG[T.float16] == (2, 4) and GROUP_CONFIG[T.float32] == (1, 2)
    assert GROUP_CONFIG[dtype("bfloat16")] == (2, 4)
    assert get_e_factor(T.float16, T.int16) == 16 and get_e_factor(T.float16, T.int8) == 8
    assert get_e_factor(T.int8, T.int32) == 32 and get_e_factor(T.float32, T.int16) == 8
    assert get_e_replicate_factor(T.float16) == 2 and get_e_replicate_factor(T.int8) == 1


def decompress(vals, meta, group=4):
    """The dense A that (vals, meta) describe, read by the definition."""
    M = vals.shape[0]
    per = meta.dtype.itemsize * 2
    bits = meta.view("uint%d" % (8 * meta.dtype.itemsize)).astype(np.uint64)
    K = vals.shape[1] * 2
    a = np.zeros((M, K), vals.dtype)
    for r in range(M):
        for g in range(K // group):
            f = int(bits[r, g // per]) >> (4 * (g % per)) & 15
            if group == 2:
                a[r, 2 * g + (f & 3) // 2] = vals[r, g]
            else:
                assert (f & 3) < (f >> 2), "indices in increasing order"
                a[r, 4 * g + (f & 3)] += vals[r, 2 * g]
                a[r, 4 * g + (f >> 2)] += vals[r, 2 * g + 1]
    return a


@pytest.mark.parametrize("meta", ["int8", "int16", "int32", "uint16"])
def test_compress_numpy(meta):
    from tilelang.utils.sparse import compress
    rng = np.random.default_rng(4)
    a = sparse_a(rng, 8, 64)
    a[0, :4] = [0, 0, 0, 1]  # one nonzero, at the end: indices (0, 3)
    a[1, :4] = 0  # none: (0, 1)
    vals, e = compress(a, meta_dtype=meta)
    assert e.dtype == np.dtype(meta) and e.shape == (8, 64 * 4 // (8 * e.dtype.itemsize) // 4)
    np.testing.assert_array_equal(decompress(vals, e), a)
    assert int(e.view(np.uint8)[0, 0]) & 15 == 0b1100 and int(e.view(np.uint8)[1, 0]) & 15 == 0b0100
    a32 = rng.standard_normal((4, 32)).astype(np.float32) * (np.arange(32) % 2 == 1)
    vals, e = compress(a32)
    np.testing.assert_array_equal(decompress(vals, e, group=2), a32)
    with pytest.raises(ValueError, match="more than 2 of 4"):
        compress(np.ones((2, 32), np.float16))


def test_compress_torch():
    torch = pytest.importorskip("torch")
    from tilelang.utils.sparse import compress, randn_semi_sparse
    a = randn_semi_sparse(16, 64, dtype=torch.float16, device="cpu")
    vals, e = compress(a)
    assert vals.dtype == torch.float16 and e.dtype == torch.int16
    n_vals, n_e = compress(a.numpy())
    np.testing.assert_array_equal(e.numpy(), n_e)
    np.testing.assert_array_equal(vals.numpy(), n_vals)
    b = randn_semi_sparse(16, 64, dtype=torch.bfloat16, device="cpu")
    vals, e = compress(b, meta_dtype=torch.int8)
    assert vals.dtype == torch.bfloat16 and e.dtype == torch.int8
    np.testing.assert_array_equal(decompress(vals.float().numpy(), e.numpy()), b.float().numpy())
