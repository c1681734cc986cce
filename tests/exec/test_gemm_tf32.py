"""float32 T.gemm: each operand rounded to TF32 (to nearest, ties away from zero), sums in
float32 (docs/language.md, T.gemm), against NumPy with independently rounded inputs
(conftest.tf32). On the CUDA target (tests/gpu) the same tests run the TF32 tensor-core
path (mma.sync m16n8k8)."""
import numpy as np
import pytest
from conftest import tf32

KERNEL = "tests/exec/kernels/gemm_tf32.py:gemm"


@pytest.mark.parametrize("ta,tb,rs", [(False, False, False), (False, True, False),
                                      (True, False, False), (True, True, False),
                                      (False, False, True), (False, True, True)])
def test_gemm_tf32(tilec, ta, tb, rs):
    M, N, K = 100, 72, 88
    rng = np.random.default_rng(7)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    out = tilec.run(KERNEL, dict(M=M, N=N, K=K, ta=ta, tb=tb, rs=rs),
                    {"A": a.T if ta else a, "B": b.T if tb else b})["C"]
    want = tf32(a).astype(np.float64) @ tf32(b).astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
    exact = a.astype(np.float64) @ b.astype(np.float64)  # the rounding is visible
    assert np.abs(out - exact).max() > 1e-3


def test_tf32_rounding(tilec):
    """Ties go away from zero (not to even), below a tie rounds down, values already
    TF32 stay: A's column times B = 1."""
    one = np.float32(1.0)
    ulp = 2.0**-10  # of TF32 at 1
    vals = np.array([1 + ulp / 2, -(1 + ulp / 2), 1 + ulp / 2 - 2.0**-23, 1 + 3 * ulp / 2,
                     1 + ulp, 3.0, 1 / 3, -1e-3], np.float64)
    M = len(vals)
    a = np.zeros((M, 16), np.float32)
    a[:, 0] = vals
    b = np.zeros((16, 8), np.float32)
    b[0, :] = one
    out = tilec.run(KERNEL, dict(M=M, N=8, K=16), {"A": a, "B": b})["C"][:, 0]
    want = np.array([1 + ulp, -(1 + ulp), 1, 1 + 2 * ulp, 1 + ulp, 3, 0, 0], np.float64)
    want[6] = np.float64(tf32(np.float32(1 / 3)))
    want[7] = np.float64(tf32(np.float32(-1e-3)))
    np.testing.assert_array_equal(out, want.astype(np.float32))
    np.testing.assert_array_equal(out, tf32(a[:, 0]))
