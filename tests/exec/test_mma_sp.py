"""T.ptx_mma_sp (tileops_mma.c: mma.sp m16n8k32 f16/bf16 -> f32, sparsity selector 0) on
the C target against NumPy: each lane's registers are loaded from the layouts written
here (the kept values of A as a dense m16n8k16 A, B as two k16 B fragments, the
metadata word of lane 4g + h: rows g and g + 8 of k half h, T.gemm_sp's 4 bits per
group), so that the reference's layouts are what is checked; on the GPU (tests/gpu) the
same test checks them against the hardware. test_emit_cuda simulates the kernel against
the C target. Bad uses are errors at the user's line."""
import numpy as np
import pytest

KERNEL = "tests/exec/kernels/mma_sp.py"


def warp_problem(rng):
    """A (16 x 32, two kept per group of 4), B (32 x 8), and the lane fragments."""
    A = np.zeros((16, 32))
    idx = np.zeros((16, 8, 2), int)
    for r in range(16):
        for g in range(8):
            i0, i1 = sorted(rng.choice(4, 2, replace=False))
            idx[r, g] = i0, i1
            A[r, 4 * g + i0], A[r, 4 * g + i1] = rng.integers(-4, 5, 2)
    B = rng.integers(-4, 5, (32, 8)).astype(float)
    kept = np.array([[A[r, 4 * g + idx[r, g, j]] for g in range(8) for j in range(2)]
                     for r in range(16)])  # 16 x 16 compressed
    meta = np.zeros((16, 2), np.uint16)  # natural: 16 bits = 4 groups of one k half
    for r in range(16):
        for g in range(8):
            meta[r, g // 4] |= (idx[r, g, 0] | idx[r, g, 1] << 2) << 4 * (g % 4)
    af, bf, ef = np.zeros((32, 8)), np.zeros((32, 8)), np.zeros((32, 2), np.uint16)
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for i in range(8):
            af[lane, i] = kept[g + 8 * (i // 2 % 2), 2 * t + i % 2 + 8 * (i // 4)]
            bf[lane, i] = B[2 * t + i % 2 + 8 * (i // 2), g]
        ef[lane] = meta[g, t % 2], meta[g + 8, t % 2]  # lanes 4g + 2, 4g + 3: unread copies
    return A @ B, af, bf, ef.view(np.int16)


@pytest.mark.parametrize("dtype", ["float16"])
def test_ptx_mma_sp(tilec, dtype):
    rng = np.random.default_rng(5)
    want, af, bf, ef = zip(*[warp_problem(rng) for _ in range(2)])
    out = tilec.run(KERNEL, dict(AT=dtype),
                    {"A": np.concatenate(af).astype(dtype), "B": np.concatenate(bf).astype(dtype),
                     "E": np.concatenate(ef)})["C"]
    for w in range(2):
        got = np.zeros((16, 8))
        for lane in range(32):
            g, t = lane // 4, lane % 4
            for i in range(4):
                got[g + 8 * (i // 2), 2 * t + i % 2] = out[32 * w + lane, i]
        np.testing.assert_array_equal(got, want[w])


HEAD = '''import tilelang.language as T


@T.prim_func
def main(X: T.Tensor((32,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            a = T.alloc_local((8,), "float16")
            b = T.alloc_local((8,), "float16")
            c = T.alloc_local((4,), "float32")
            e = T.alloc_local((2,), "int16")
            f = T.alloc_local((2,), "float32")
'''
CALL = ('T.ptx_mma_sp("float32", "%s", "row", "col", "%s", "fp16", "fp32", a.data, 0, b.data, '
        '0, c.data, 0, %s.data, 0, %d, False)')
ERRORS = [
    (CALL % ("m16n8k16", "fp16", "e", 0), "tilec has m16n8k32 row.col f16/bf16 -> f32"),
    (CALL % ("m16n8k32", "bf16", "e", 0), "tilec has m16n8k32 row.col f16/bf16 -> f32"),
    (CALL % ("m16n8k32", "fp16", "e", 1), "sparse_selector must be 0"),
    (CALL % ("m16n8k32", "fp16", "f", 0), "the metadata 'f' must be an integer buffer"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_ptx_mma_sp_errors(tilec, tmp_path, line, message):
    tilec.emit_error(tmp_path, HEAD, line, message, targets=("c", "cuda"))
