"""The program shapes of TileLang code as written today, from Python on the C target:
eager-style kernels called with tensors (specialized per shape) or compiled with their
sizes, annotated factories, pipelined schedules without group=. Kernels live in
kernels/tl_eager.py; references are numpy."""
from pysupport import pytestmark  # noqa: F401 (ASan skip); first

import numpy as np
import pytest

import tilec


@pytest.fixture
def tl_eager():
    import tl_eager
    return tl_eager


def rand(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(dtype)


def gemm_ref(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("m,n,k", [(128, 64, 96), (100, 72, 50)])
def test_eager_call_runs_on_tensors(m, n, k, tl_eager):
    a, b = rand((m, k), np.float16, 1), rand((k, n), np.float16, 2)
    c = tl_eager.matmul(a, b, 64, 64, 32)
    assert c.shape == (m, n) and c.dtype == np.float16
    np.testing.assert_allclose(c.astype(np.float64), gemm_ref(a, b), rtol=2e-2, atol=2e-2)


def test_eager_kernel_is_specialized_per_shape(tl_eager):
    """One kernel per shape signature, with the T.const sizes as constants."""
    a1, b1 = rand((64, 32), np.float16), rand((32, 64), np.float16)
    a2, b2 = rand((96, 32), np.float16), rand((32, 64), np.float16)
    k1 = tl_eager.matmul.compile(a1, b1, 64, 64, 32)
    k2 = tl_eager.matmul.compile(a2, b2, 64, 64, 32)
    assert k1 is not k2 and k1 is tl_eager.matmul.compile(a1, b1, 64, 64, 32)
    assert [p.shape for p in k1.params] == [(64, 32), (32, 64), (64, 64)]
    assert [p.shape for p in k2.params] == [(96, 32), (32, 64), (96, 64)]
    np.testing.assert_allclose(k2(a2, b2).astype(np.float64), gemm_ref(a2, b2), rtol=2e-2,
                               atol=2e-2)


def test_eager_compile_with_sizes_as_keywords(tl_eager):
    """upstream's `matmul.compile(M=..., N=..., K=..., block_M=...)`."""
    k = tl_eager.matmul.compile(M=80, N=48, K=40, block_M=32, block_N=16, block_K=8)
    a, b = rand((80, 40), np.float16, 3), rand((40, 48), np.float16, 4)
    np.testing.assert_allclose(k(a, b).astype(np.float64), gemm_ref(a, b), rtol=2e-2,
                               atol=2e-2)


def test_eager_without_sizes_stays_symbolic(tl_eager):
    """Compiled without tensors or sizes, the T.const sizes are bound at launch."""
    k = tl_eager.matmul.compile(block_M=32, block_N=32, block_K=16)
    assert k.params[0].shape_text() == "(M, K)"
    for m, n, kk in [(32, 32, 16), (50, 70, 30)]:
        a, b = rand((m, kk), np.float16, m), rand((kk, n), np.float16, n)
        np.testing.assert_allclose(k(a, b).astype(np.float64), gemm_ref(a, b), rtol=2e-2,
                                   atol=2e-2)


def test_eager_outputs_in_return_order_and_scalar_param(tl_eager):
    x = rand((150,), np.float32, 5)
    k = tl_eager.sum_and_scaled.compile(x, scale=0.5)
    assert [p.name for p in k.params] == ["X", "bias", "S", "Y"]
    s, y = k(x, np.float32(0.25))
    np.testing.assert_allclose(y, x * 0.5 + 0.25, rtol=1e-6)
    np.testing.assert_allclose(s[0], x.astype(np.float64).sum(), rtol=1e-4)


def test_eager_errors_name_the_problem(tl_eager):
    a = rand((64, 32), np.float16)
    with pytest.raises(tilec.TilecError, match="T.const size 'N' needs the tensor 'B'"):
        tl_eager.matmul(a, block_M=64, block_N=64, block_K=32)
    with pytest.raises(tilec.TilecError, match="'A' has 2 dimensions, but the tensor given "
                                               "for it has 1"):
        tl_eager.matmul(rand((64,), np.float16), rand((32, 64), np.float16), 64, 64, 32)
    with pytest.raises(tilec.TilecError, match="needs a value for its parameters block_M, "
                                               "block_N, block_K"):
        tl_eager.matmul.compile(M=64, N=64, K=64)


def test_annotated_factory(tl_eager):
    a = rand((10, 24), np.float32, 6)
    b = tl_eager.cast_rows(10, 24)(a)
    assert b.dtype == np.float16
    np.testing.assert_allclose(b, a.astype(np.float16))
    b64 = tl_eager.cast_rows(10, 24, out_dtype="float64")(a)
    assert b64.dtype == np.float64


def test_pipelined_schedule_without_group(tl_eager):
    a = rand((256,), np.float32, 7)
    np.testing.assert_allclose(tl_eager.scaled_copy_pipelined()(a), a * 3.0, rtol=1e-6)


@pytest.mark.parametrize("seq_len", [100, 64])
def test_eager_size_from_cdiv_of_a_const(seq_len, tl_eager):
    """tilelang.cdiv of a T.const size: symbolic in the first phase, then the call's."""
    x = rand((2, seq_len))
    y = tl_eager.block_sums(x)
    starts = list(range(0, seq_len, 32))
    assert y.shape == (2, len(starts))
    np.testing.assert_allclose(y, np.add.reduceat(x, starts, axis=1), rtol=1e-5, atol=1e-5)
