"""T.ws regions that hand work back and forth through mbarriers for a whole loop
(warp_specialize_flashmla's structure): the C target runs them at once, one CPU thread
each, with real mbarriers (program_order's at_once groups, emit_c.c). The reduced kernel
is tests/unit/kernels/ping_pong.py (test_emit_cuda runs it on the simulated GPU for sm_80
and sm_90a); results against NumPy. What still cannot run is an error."""
import numpy as np
import pytest

KERNEL = "tests/unit/kernels/ping_pong.py"


@pytest.mark.parametrize("K", [1, 2, 7])
def test_ping_pong(tilec, K):
    x = np.random.default_rng(K).standard_normal((K, 64)).astype(np.float32)
    out = tilec.run(KERNEL, dict(K=K), {"X": x})["Y"]
    want = (2 * x.astype(np.float64) + np.arange(K)[:, None]).sum(axis=0)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


PROGRAM = '''import tilelang.language as T

@T.prim_func
def main(X: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=256) as bx:
        S = T.alloc_shared((64,), "float32")
        full = T.alloc_barrier(arrive_count=128)
        free = T.alloc_barrier(arrive_count=128)
        tx = T.get_thread_binding()
        if tx < 128:
            for k in T.serial(4):
                T.barrier_wait(free, k % 2)
                T.fill(S, k)
                T.barrier_arrive(full)
        X[0] = 1.0
        if tx >= 128:
            for k in T.serial(4):
                T.barrier_wait(full, k % 2)
                T.copy(S, X)
                T.barrier_arrive(free)
'''


def test_regions_apart(tilec, tmp_path):
    """Regions with code between them cannot run at once: an error at the wait."""
    src = tmp_path / "apart.py"
    src.write_text(PROGRAM)
    proc = tilec.command(["emit", src, "--target", "c"])
    assert proc.returncode != 0
    assert "apart.py:12:" in proc.stderr and "runs such regions at once only when they " \
        "follow one another" in proc.stderr, proc.stderr


def test_assert_in_regions_at_once(tilec, tmp_path):
    """A T.device_assert cannot leave regions that run at once: an error, not a hang."""
    text = open(KERNEL).read().replace(
        "                    T.barrier_arrive(full)\n",
        "                    T.device_assert(k >= 0)\n                    T.barrier_arrive(full)\n")
    assert "T.device_assert" in text
    src = tmp_path / "pp_assert.py"
    src.write_text(text)
    proc = tilec.command(["emit", src, "--target", "c"])
    assert proc.returncode != 0
    assert "T.device_assert inside T.ws regions that the C target runs at once" in proc.stderr, \
        proc.stderr
