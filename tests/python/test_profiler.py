"""Profiler: generated inputs, assert_allclose against numpy references (which must be
able to fail), do_bench."""
from pysupport import ops, pytestmark  # noqa: F401,F811 (fixture, ASan skip); first

import numpy as np
import pytest

import tilec
from tilec import TensorSupplyType


def test_supplied_inputs_are_seeded_and_typed(ops):
    k = ops.scale_add(M=32, N=16)
    p = k.get_profiler(backend="numpy")
    a, b = p.inputs
    assert a.dtype == np.float32 and a.shape == (32, 16) and not np.array_equal(a, b)
    assert np.all((a >= -1) & (a < 1)) and a.std() > 0.3
    a2, _ = k.get_profiler(backend="numpy").inputs
    np.testing.assert_array_equal(a, a2)  # same seed, same data
    a3, _ = k.get_profiler(backend="numpy", seed=1).inputs
    assert not np.array_equal(a, a3)


@pytest.mark.parametrize("kind,check", [
    (TensorSupplyType.Zero, lambda x: np.all(x == 0)),
    (TensorSupplyType.One, lambda x: np.all(x == 1)),
    (TensorSupplyType.Integer, lambda x: set(np.unique(x)) <= {-2, -1, 0, 1, 2}),
    (TensorSupplyType.Randn, lambda x: abs(x.mean()) < 0.2 and 0.8 < x.std() < 1.2
                             and np.abs(x).max() > 1.5),
    (TensorSupplyType.Normal, lambda x: abs(x.mean() + 1) < 0.2 and 0.8 < x.std() < 1.2),
])
def test_supply_types(ops, kind, check):
    a, _ = ops.scale_add(M=64, N=32).get_profiler(kind, backend="numpy").inputs
    assert check(a), a


def test_integer_and_scalar_inputs(ops):
    k = ops.axpy(N=64)
    x, alpha, shift = k.get_profiler(backend="numpy").inputs
    assert isinstance(alpha, float) and isinstance(shift, int) and -8 <= shift < 8


def test_symbolic_inputs_need_sizes(ops):
    k = ops.row_sum(N=32)
    with pytest.raises(tilec.TilecError, match=r"symbolic size M: give it with "
                                               r"get_profiler\(symbols="):
        k.get_profiler(backend="numpy").inputs
    (a,) = k.get_profiler(backend="numpy", symbols={"M": 24}).inputs
    assert a.shape == (24, 32)


def test_assert_allclose(ops):
    k = ops.scale_add(M=64, N=32, alpha=2.0)
    p = k.get_profiler(backend="numpy")
    p.assert_allclose(lambda a, b: 2 * a + b, rtol=1e-5, atol=1e-5)
    with pytest.raises(AssertionError, match=r"output 'C': 2048 of 2048 elements"):
        p.assert_allclose(lambda a, b: 2 * a - b, rtol=1e-5, atol=1e-5)
    # A reference wrong in one element of 2048: within max_mismatched_ratio=0.01, not 0.
    def almost(a, b):
        r = 2 * a + b
        r[5, 7] += 1
        return r
    p.assert_allclose(almost, rtol=1e-5, atol=1e-5, max_mismatched_ratio=0.01)
    with pytest.raises(AssertionError, match=r"first at \[5, 7\]"):
        p.assert_allclose(almost, rtol=1e-5, atol=1e-5, max_mismatched_ratio=0)
    with pytest.raises(AssertionError, match="shape"):
        p.assert_allclose(lambda a, b: (2 * a + b)[:10], rtol=1e-5, atol=1e-5)


def test_assert_allclose_several_outputs(ops):
    k = ops.two_outputs(N=16)
    p = k.get_profiler(TensorSupplyType.Integer, backend="numpy")
    p.assert_allclose(lambda a: (a + 1, (a * 2).astype(np.int32)), rtol=0, atol=0)
    with pytest.raises(AssertionError, match="output 'C'"):
        p.assert_allclose(lambda a: (a + 1, (a * 3).astype(np.int32)), rtol=0, atol=0)
    with pytest.raises(AssertionError, match="returned 1 outputs"):
        p.assert_allclose(lambda a: a + 1)


def test_do_bench(ops):
    k = ops.scale_add(M=64, N=32)
    p = k.get_profiler(backend="numpy")
    ms = p.do_bench(warmup=2, rep=10)
    assert 0 < ms < 100
    for mode in ("median", "mean", "min", "max"):
        assert p.do_bench(n_warmup=1, n_repeat=3, return_mode=mode) > 0
    slow = p.do_bench(lambda a, b: [np.sort(a.ravel()) for _ in range(20)], warmup=1, rep=5)
    assert slow > 0
    with pytest.raises(tilec.TilecError, match="return_mode"):
        p.do_bench(n_repeat=1, return_mode="p99")


def test_overhead_tool(capsys):
    from tilec import overhead
    assert overhead.main(["--target", "c", "--batch", "50"]) == 0
    out = capsys.readouterr().out
    assert "launch (prepared)" in out and "call (alloc out)" in out
