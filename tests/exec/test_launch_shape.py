"""The launch shape as values, T.index_to_coordinates and the launch hints
(src/frontend/tileops_launch.c) on the C target against NumPy: the kernel
tests/unit/kernels/launch_shape.py (which test_emit_cuda also compiles for sm_80 and
sm_90a and simulates); a grid over a symbolic size; and the errors at the user's line."""
import numpy as np
import pytest

KERNEL = "tests/unit/kernels/launch_shape.py"


@pytest.mark.parametrize("M,N,BM,BN", [(96, 40, 32, 8), (50, 70, 16, 16)])
def test_extents_and_coordinates(tilec, M, N, BM, BN):
    a = np.random.default_rng(1).uniform(-1, 1, (M, N)).astype(np.float32)
    out = tilec.run(KERNEL, dict(M=M, N=N, BM=BM, BN=BN), {"A": a})
    gx, gy = -(-N // BN), -(-M // BM)
    np.testing.assert_array_equal(out["B"], a * 2 + gy * 10 + BN)
    e = out["E"]
    if gx > 1 and gy > 2:  # the thread that writes E exists
        k = 3 * 7 + 1  # row-major coordinates in (5, 4), the outer one wrapped too
        np.testing.assert_array_equal(
            e, [gx, gy, 11, BN, 4, 11, 33, 123, (k // 4 % 5) * 10 + k % 4, 9])


def test_block_extent_of_a_symbolic_grid(tilec, tmp_path):
    src = tmp_path / "dyn.py"
    src.write_text("import tilelang.language as T\n\nM = T.dynamic(\"M\")\n\n@T.prim_func\n"
                   "def main(A: T.Tensor((M,), \"int32\"), B: T.Tensor((M,), \"int32\")):\n"
                   "    with T.Kernel(T.ceildiv(M, 32), threads=32) as bx:\n"
                   "        tx = T.get_thread_binding()\n"
                   "        if bx * 32 + tx < M:\n"
                   "            B[bx * 32 + tx] = A[bx * 32 + tx] + T.get_block_extent() * 1000\n")
    a = np.arange(100, dtype=np.int32)
    out = tilec.run(src, inputs={"A": a})
    np.testing.assert_array_equal(out["B"], a + 4000)


ERRORS = [
    ("t = T.get_thread_extent(3)", "T.get_thread_extent: dim must be 0, 1 or 2, got 3"),
    ("t = T.get_block_extent(-1)", "T.get_block_extent: dim must be 0, 1 or 2, got -1"),
    ("T.annotate_min_blocks_per_sm(0)",
     "T.annotate_min_blocks_per_sm: n must be an int from 1 to 64, got int 0"),
    ("T.annotate_l2_hit_ratio({S: 0.5})", "T.annotate_l2_hit_ratio: keys must be global buffers"),
    ("T.annotate_l2_hit_ratio({X: 1.5})",
     "T.annotate_l2_hit_ratio: the hit ratio of 'X' must be from 0 to 1"),
    ("i, j = T.index_to_coordinates(tx, 4)",
     "T.index_to_coordinates: shape must be a list or tuple of extents"),
    ("T.pdl_sync(1)", "T.pdl_sync"),
]


HEAD = ("import tilelang.language as T\n\n"
        "@T.prim_func\n"
        "def main(X: T.Tensor((128,), \"float32\")):\n"
        "        with T.Kernel(1, threads=128) as bx:\n"
        "            S = T.alloc_shared((128,), \"float32\")\n"
        "            tx = T.get_thread_binding()\n")


@pytest.mark.parametrize("line,message", ERRORS)
def test_errors_at_the_users_line(tilec, tmp_path, line, message):
    tilec.emit_error(tmp_path, HEAD, line, message)


def test_outside_a_kernel_is_an_error(tilec, tmp_path):
    src = tmp_path / "bad.py"
    src.write_text("import tilelang.language as T\n\n@T.prim_func\n"
                   "def main(X: T.Tensor((128,), \"float32\")):\n"
                   "    t = T.get_thread_extent()\n")
    proc = tilec.command(["emit", src, "--target", "c"])
    assert proc.returncode != 0
    assert "bad.py:5" in proc.stderr and "only allowed inside a 'with T.Kernel" in proc.stderr
