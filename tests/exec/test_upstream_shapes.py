"""Program shapes from TileLang's upstream examples that tilec lowers in a general way,
against NumPy: a gemm whose clear_accum= is a run-time value (warp_specialize_flashmla's
`clear_accum=(j == 0)`); T.Parallel's scheduling hints (minference's `prefer_async=`,
`annotations=`); and T.ws regions that hand work back and forth in loops, which the C
target runs at once."""
import numpy as np

KERNELS = "tests/unit/kernels/"


def test_gemm_clear_accum_at_run_time(tilec):
    rng = np.random.default_rng(6)
    a = rng.uniform(-1, 1, (64, 128)).astype(np.float16)
    b = rng.uniform(-1, 1, (128, 64)).astype(np.float16)
    out = tilec.run(KERNELS + "gemm_clear_when.py", dict(M=64, N=64, K=128), {"A": a, "B": b})
    ref = a[:, 64:].astype(np.float32) @ b[64:].astype(np.float32)
    np.testing.assert_allclose(out["C"], ref, rtol=1e-3, atol=1e-3)


HINTS = '''import tilelang.language as T

@T.prim_func
def main(X: T.Tensor((8, 64), "float16"), Y: T.Tensor((8, 64), "float16")):
    with T.Kernel(1, threads=128) as bx:
        S = T.alloc_shared((8, 64), "float16")
        for i, j in T.Parallel(8, 64, prefer_async=True,
                               annotations={"parallel_async_without_async_commit_wait": True}):
            S[i, j] = X[i, j]
        for i, j in T.Parallel(8, 64, coalesced_width=8):
            Y[i, j] = S[i, j] * 2
'''


def test_parallel_hints(tilec, tmp_path):
    path = tmp_path / "hints.py"
    path.write_text(HINTS)
    x = np.random.default_rng(2).uniform(-1, 1, (8, 64)).astype(np.float16)
    out = tilec.run(str(path), None, {"X": x})
    np.testing.assert_array_equal(out["Y"], x * 2)


PING_PONG = '''import tilelang.language as T

@T.prim_func
def main(X: T.Tensor((128,), "float32"), Y: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=256) as bx:
        S = T.alloc_shared((128,), "float32")
        mine = T.alloc_barrier(arrive_count=128)
        theirs = T.alloc_barrier(arrive_count=128)
        tx = T.get_thread_binding()
        if tx < 128:
            for k in T.serial(4):
                T.barrier_wait(theirs, k % 2)
                for i in T.Parallel(128):
                    S[i] = S[i] + X[i]
                T.barrier_arrive(mine)
        else:
            for k in T.serial(4):
                T.barrier_arrive(theirs)
                T.barrier_wait(mine, k % 2)
            T.copy(S, Y)
'''


def test_ping_pong_regions_run_at_once_on_c(tilec, tmp_path):
    """Regions that hand work back and forth run at once on the C target (program_order's
    at_once groups; they were an error there before)."""
    src = tmp_path / "pp.py"
    src.write_text(PING_PONG)
    x = np.random.default_rng(3).uniform(-1, 1, 128).astype(np.float32)
    out = tilec.run(str(src), None, {"X": x})["Y"]
    np.testing.assert_allclose(out, 4 * x.astype(np.float64), rtol=1e-6, atol=1e-6)
    assert tilec.command(["emit", src, "--target", "cuda", "--arch", "sm_90a"]).returncode == 0
