"""T.ptx_mma_sm70 (TileLang's m16n16k4 of a warp, Volta's mma.sync.m8n8k4; tileops_mma.c,
runtime/c/tl_c.h's tl_mma_sm70_warp) against NumPy: each lane of two warps loads its
registers by TileLang's sm70 lane layouts (tests/unit/kernels/mma_sm70.py, which
test_emit_cuda also runs on the simulated GPU for sm_80 and sm_90a), two k-steps of 4,
every combination of A and B storage order and an f32 or f16 accumulator. Bad uses are
errors at the user's line."""
import numpy as np
import pytest

KERNEL = "tests/unit/kernels/mma_sm70.py"


@pytest.mark.parametrize("a_col", [False, True])
@pytest.mark.parametrize("b_col", [False, True])
@pytest.mark.parametrize("ct", ["float32", "float16"])
def test_mma_sm70(tilec, a_col, b_col, ct):
    rng = np.random.default_rng(int(a_col) + 2 * int(b_col) + 4 * (ct == "float16"))
    a = rng.standard_normal((2, 16, 8)).astype(np.float16)
    b = rng.standard_normal((2, 8, 16)).astype(np.float16)
    c = rng.standard_normal((2, 16, 16)).astype(ct)
    out = tilec.run(KERNEL, dict(A_COL=a_col, B_COL=b_col, CT=ct), {"A": a, "B": b, "C": c})["D"]
    want = np.einsum("wmk,wkn->wmn", a.astype(np.float64), b.astype(np.float64)) + c
    if ct == "float32":
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    else:  # rounded to float16 after each k-step
        np.testing.assert_allclose(out.astype(np.float64), want, rtol=4e-3, atol=4e-3)


HEAD = ("import tilelang.language as T\n\n"
        "@T.prim_func\n"
        "def main(X: T.Tensor((32,), \"float16\")):\n"
        "        with T.Kernel(1, threads=32) as bx:\n"
        "            a = T.alloc_local((4,), \"float16\")\n"
        "            c = T.alloc_local((8,), \"float32\")\n"
        "            s = T.alloc_shared((8,), \"float32\")\n")
ERRORS = [
    ('T.ptx_mma_sm70("m16n8k16", "row", "col", "fp16", "fp16", "fp32", a.data, 0, a.data, 0, '
     'c.data, 0)', 'the shape is "m16n16k4"'),
    ('T.ptx_mma_sm70("m16n16k4", "rows", "col", "fp16", "fp16", "fp32", a.data, 0, a.data, 0, '
     'c.data, 0)', 'A_layout must be "row" or "col"'),
    ('T.ptx_mma_sm70("m16n16k4", "row", "col", "bf16", "bf16", "fp32", a.data, 0, a.data, 0, '
     'c.data, 0)', "takes f16 A and B and f16 or f32 C"),
    ('T.ptx_mma_sm70("m16n16k4", "row", "col", "fp16", "fp16", "fp16", a.data, 0, a.data, 0, '
     'c.data, 0)', "the accumulator 'c' holds float32"),
    ('T.ptx_mma_sm70("m16n16k4", "row", "col", "fp16", "fp16", "fp32", a.data, 0, a.data, 0, '
     's.data, 0)', "must be a T.alloc_local buffer"),
    ('T.ptx_mma_sm70("m16n16k4", "row", "col", "fp16", "fp16", "fp32", a.data, 0, a.data)',
     "T.ptx_mma_sm70"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_mma_sm70_errors(tilec, tmp_path, line, message):
    tilec.emit_error(tmp_path, HEAD, line, message, targets=("c", "cuda"))
