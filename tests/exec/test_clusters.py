"""Barriers across blocks (T.sync_grid, T.cluster_*) and clusters (T.Kernel(cluster_dims=),
T.ClusterKernel, the cluster ids, extents and ranks; tileops_launch.c) on the C target
against NumPy: blocks exchange rows through global memory across the barriers, so a
barrier that does not wait for the other blocks leaves stale rows (the C target runs the
blocks a barrier spans at once, one thread each). The kernels are
tests/unit/kernels/grid_sync.py and cluster.py, which test_emit_cuda also compiles for
CUDA and simulates; then the errors at the user's line."""
import os

import numpy as np
import pytest

TARGET = os.environ.get("TILEC_TARGET", "c")

GRID_SYNC = "tests/unit/kernels/grid_sync.py"
CLUSTER = "tests/unit/kernels/cluster.py"


@pytest.mark.parametrize("G,N", [(6, 64), (1, 64), (33, 16)])
def test_sync_grid(tilec, G, N):
    a = np.random.default_rng(G).uniform(-1, 1, (G, N)).astype(np.float32)
    out = tilec.run(GRID_SYNC, dict(G=G, N=N), {"A": a})
    w = a * 2 + np.arange(G, dtype=np.float32)[:, None]
    b = np.roll(w, -1, 0) + w[G - 1] * np.float32(0.5)
    np.testing.assert_allclose(out["B"], b, rtol=1e-6)
    np.testing.assert_allclose(out["W"], np.roll(b, 1, 0), rtol=1e-6)


@pytest.mark.parametrize("GX,GY", [(4, 2), (2, 3)])
def test_cluster_exchange_and_ids(tilec, GX, GY):
    N = 32
    a = np.random.default_rng(GX).uniform(-1, 1, (GY, GX, N)).astype(np.float32)
    out = tilec.run(CLUSTER, dict(GX=GX, GY=GY, N=N), {"A": a})
    x = np.arange(GX)
    w = a + (x % 2)[None, :, None] * 100
    b = w[:, x ^ 1] * 2
    np.testing.assert_allclose(out["B"], b, rtol=1e-6)
    np.testing.assert_allclose(out["W"], b[:, x ^ 1] + 1, rtol=1e-6)
    e = out["E"]
    for y in range(GY):
        for bx in range(GX):
            want = [bx % 2, bx // 2 * 10 + y, 2, GX // 2 * 10 + GY, 211, 20 + bx // 2,
                    GX // 2 * 100 + GY * 10 + 1, 7]
            assert list(e[y, bx]) == want, (y, bx)


CLUSTER_2D = """import tilelang.language as T

M = T.dynamic("M")

@T.prim_func
def main(A: T.Tensor((M, 8), "int32"), B: T.Tensor((M, 8), "int32"),
         R: T.Tensor((M, 8), "int32")):
    with T.ClusterKernel(8, M, threads=16, cluster_dims=(2, 2)) as (bx, by):
        A[by, bx] = A[by, bx] * 10 + T.block_rank_in_cluster()
        T.cluster_arrive()
        T.cluster_wait()
        B[by, bx] = A[by ^ 1, bx ^ 1]
        R[by, bx] = T.get_cluster_id(1) * 100 + T.get_cluster_extent(1) * 10 + \\
            T.get_cluster_size()
"""


def test_two_dimensional_clusters_on_a_symbolic_grid(tilec, tmp_path):
    src = tmp_path / "cl2.py"
    src.write_text(CLUSTER_2D)
    a = np.arange(6 * 8, dtype=np.int32).reshape(6, 8)
    out = tilec.run(src, inputs={"A": a})
    y, x = np.mgrid[0:6, 0:8]
    a10 = a * 10 + (x % 2) + 2 * (y % 2)
    np.testing.assert_array_equal(out["B"], a10[y ^ 1, x ^ 1])
    np.testing.assert_array_equal(out["R"], y // 2 * 100 + 30 + 4)


def test_grid_not_a_multiple_of_the_cluster_at_run_time(tilec, tmp_path):
    src = tmp_path / "cl2.py"
    src.write_text(CLUSTER_2D)
    np.save(tmp_path / "a.npy", np.zeros((5, 8), np.int32))
    proc = tilec.command(["run", src, "--target", "c", "--in", "A=%s" % (tmp_path / "a.npy")])
    assert proc.returncode != 0
    assert "grid dimension 1 is 5 blocks, not a multiple of the cluster's 2" in proc.stderr


def test_a_failed_assert_before_the_barrier_ends_the_launch(tilec, tmp_path):
    src = tmp_path / "assert.py"
    src.write_text("import tilelang.language as T\n\n@T.prim_func\n"
                   "def main(X: T.Tensor((8,), \"float32\")):\n"
                   "    with T.Kernel(8, threads=32) as bx:\n"
                   "        T.device_assert(bx != 3, \"block 3\")\n"
                   "        T.sync_grid()\n"
                   "        X[bx] = X[(bx + 1) % 8] + 1.0\n")
    proc = tilec.command(["run", src, "--target", "c"], timeout=60)
    assert proc.returncode != 0 and "block 3" in proc.stderr, proc.stderr


def test_too_many_blocks_for_a_grid_barrier(tilec, tmp_path):
    src = tmp_path / "big.py"
    src.write_text("import tilelang.language as T\n\n@T.prim_func\n"
                   "def main(X: T.Tensor((5000,), \"float32\")):\n"
                   "    with T.Kernel(5000, threads=32) as bx:\n"
                   "        T.sync_grid()\n"
                   "        X[bx] = 1.0\n")
    proc = tilec.command(["run", src, "--target", "c"])
    assert proc.returncode != 0
    assert "T.sync_grid runs every block at once, one thread each: 5000 blocks" in proc.stderr


@pytest.mark.skipif(TARGET != "cuda", reason="a CUDA launch: tests/gpu/run.sh runs it")
def test_a_grid_barrier_over_the_resident_blocks_on_cuda(tilec, tmp_path):
    src = tmp_path / "big.py"
    src.write_text("import tilelang.language as T\n\n@T.prim_func\n"
                   "def main(X: T.Tensor((100000,), \"float32\")):\n"
                   "    with T.Kernel(100000, threads=1024) as bx:\n"
                   "        T.sync_grid()\n"
                   "        X[bx] = 1.0\n")
    proc = tilec.command(["run", src, "--target", "cuda"])
    assert proc.returncode != 0
    assert "uses T.sync_grid, which needs every block of the grid resident at once" in proc.stderr


def test_clusters_need_sm90_on_cuda(tilec, tmp_path):
    src = tmp_path / "bad.py"
    src.write_text("import tilelang.language as T\n\n@T.prim_func\n"
                   "def main(X: T.Tensor((8,), \"float32\")):\n"
                   "    with T.Kernel(8, threads=32, cluster_dims=2) as bx:\n"
                   "        X[bx] = 1.0\n")
    proc = tilec.command(["emit", src, "--target", "cuda", "--arch", "sm_80"])
    assert proc.returncode != 0
    assert "bad.py:5:" in proc.stderr and "needs thread block clusters (sm_90" in proc.stderr
    ok = tilec.command(["emit", src, "--target", "cuda", "--arch", "sm_90a"])
    assert ok.returncode == 0 and "__cluster_dims__(2, 1, 1)" in ok.stdout, ok.stderr
    both = src.read_text().replace("X[bx] = 1.0", "T.sync_grid()\n        X[bx] = 1.0")
    src.write_text(both)
    proc = tilec.command(["emit", src, "--target", "cuda", "--arch", "sm_90a"])
    assert proc.returncode != 0 and "bad.py:5:" in proc.stderr
    assert "T.sync_grid in a kernel with cluster_dims= is not supported on CUDA" in proc.stderr
    assert tilec.command(["emit", src, "--target", "c"]).returncode == 0
    src.write_text(src.read_text().replace("        T.sync_grid()\n", ""))
    one = src.read_text().replace("cluster_dims=2", "cluster_dims=(1, 1, 1)")
    src.write_text(one)
    ok = tilec.command(["emit", src, "--target", "cuda", "--arch", "sm_80"])
    assert ok.returncode == 0 and "__cluster_dims__(" not in ok.stdout, ok.stderr


HEAD = ("import tilelang.language as T\n\n"
        "@T.prim_func\n"
        "def main(X: T.Tensor((128,), \"float32\")):\n"
        "        with T.Kernel(4, threads=128) as bx:\n"
        "            tx = T.get_thread_binding()\n")

ERRORS = [
    ("T.sync_grid(1)", "T.sync_grid"),
    ("for i in T.Parallel(4):\n                T.sync_grid()",
     "T.sync_grid inside a T.Parallel loop"),
    ("if tx < 64:\n                T.cluster_sync()",
     "T.cluster_sync under a condition that depends on the thread index"),
    ("c = T.get_cluster_id(3)", "T.get_cluster_id: dim must be 0, 1 or 2, got 3"),
    ("with T.Kernel(6, cluster_dims=4) as b:\n                X[b] = 0.0",
     "T.Kernel: the grid's 6 blocks along x are not a multiple of cluster_dims' 4"),
    ("with T.Kernel(4, cluster_dims=(0,)) as b:\n                X[b] = 0.0",
     "T.Kernel: cluster_dims must be ints from 1 to 16, got int 0"),
    ("with T.Kernel(32, cluster_dims=(4, 4, 2)) as b:\n                X[b] = 0.0",
     "T.Kernel: a cluster of 32 blocks; CUDA clusters hold at most 16"),
    ("with T.ClusterKernel(4) as b:\n                X[b] = 0.0",
     "T.ClusterKernel() missing required keyword argument 'cluster_dims'"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_errors_at_the_users_line(tilec, tmp_path, line, message):
    head = HEAD
    if line.startswith("with T."):  # a kernel of its own
        head = head.replace("        with T.Kernel(4, threads=128) as bx:\n"
                            "            tx = T.get_thread_binding()\n", "        if True:\n")
    tilec.emit_error(tmp_path, head, line, message, targets=("c", "cuda"))


@pytest.mark.parametrize("sm_num,num_split", [(3, 2), (4, 4)])
def test_persistent_mla_decode_combines_after_the_grid_barrier(tilec, sm_num, num_split):
    """TileLang's example_mla_decode_persistent.py kernel (tests/unit/kernels): partial
    outputs per split, T.sync_grid, then each row's splits combined by another block."""
    b, h, s, d, pe = 2, 64, 256, 64, 32
    rng = np.random.default_rng(sm_num)
    q, qp = (rng.standard_normal((b, h, n)).astype(np.float16) for n in (d, pe))
    kv, kp = (rng.standard_normal((b, s, 1, n)).astype(np.float16) for n in (d, pe))
    out = tilec.run("tests/unit/kernels/mla_persistent.py",
                    dict(sm_num=sm_num, num_split=num_split),
                    {"Q": q, "Q_pe": qp, "KV": kv, "K_pe": kp})
    f = np.float64
    scores = (np.einsum("bhd,bsd->bhs", q.astype(f), kv[:, :, 0].astype(f)) +
              np.einsum("bhd,bsd->bhs", qp.astype(f), kp[:, :, 0].astype(f))) / np.sqrt(d + pe)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    want = np.einsum("bhs,bsd->bhd", p / p.sum(-1, keepdims=True), kv[:, :, 0].astype(f))
    np.testing.assert_allclose(out["Output"].astype(f), want, rtol=1e-2, atol=1e-2)
