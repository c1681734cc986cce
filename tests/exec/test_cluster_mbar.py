"""Cluster barriers (T.alloc_cluster_barrier, T.ptx_arrive_cluster_barrier,
T.mbarrier_arrive(cta_id=)): blocks of a cluster hand rounds of data to each other through
arrivals on the peer's barrier (tests/unit/kernels/cluster_mbar.py; test_emit_cuda runs it
on the simulated GPU, clusters of two on sm_90a, of one on sm_80). On the C target a
cluster's blocks run at once and the barriers count every arrival. Bad uses are errors at
the user's line."""
import numpy as np
import pytest

KERNEL = "tests/unit/kernels/cluster_mbar.py"


@pytest.mark.parametrize("cluster", [2, 1])
def test_cluster_mbar(tilec, cluster):
    out = tilec.run(KERNEL, dict(CLUSTER=cluster), {})
    b = np.arange(4)[:, None, None]
    r = np.arange(3)[None, :, None]
    t = np.arange(128)[None, None, :]
    peer = b - b % cluster + (b % cluster + 1) % cluster
    np.testing.assert_array_equal(out["Y"], (peer * 1000 + r * 100 + t).astype(np.float32))


HEAD = ("import tilelang.language as T\n\n"
        "@T.prim_func\n"
        "def main(X: T.Tensor((128,), \"float32\")):\n"
        "        with T.Kernel(4, threads=128, cluster_dims=2) as bx:\n"
        "            bar = T.alloc_barrier(1)\n"
        "            cb = T.alloc_cluster_barrier([1, 1])\n")
ERRORS = [
    ("T.ptx_arrive_cluster_barrier(bar, 1)", "'bar' is a T.alloc_barrier barrier"),
    ("T.ptx_arrive_cluster_barrier(cb[0], 2)", "cta_id 2 is not a block of the cluster (of 2)"),
    ("T.ptx_arrive_cluster_barrier(cb[0], 0.5)", "cta_id must be an integer"),
    ("T.mbarrier_arrive(bar, cta_id=1)", "whose barriers are T.alloc_cluster_barrier's"),
    ("T.ptx_arrive_cluster_barrier(cb, 1)", "holds 2 barriers; name one of them"),
    ("c = T.alloc_cluster_barrier(0)", "an arrive count must be 1 to 1024"),
    ("T.ptx_arrive_cluster_barrier(cb[0])", "T.ptx_arrive_cluster_barrier"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_cluster_mbar_errors(tilec, tmp_path, line, message):
    tilec.emit_error(tmp_path, HEAD, line, message, targets=("c", "cuda"))
