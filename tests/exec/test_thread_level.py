"""Thread-level code (T.get_thread_binding and the lane / warp indices,
src/frontend/tileops_thread.c) against NumPy: the kernels tests/unit/kernels/thread_*.py,
which test_emit_cuda also simulates on the CUDA target; and the programs that are an
error, each at the user's line."""
import numpy as np
import pytest

KERNELS = "tests/unit/kernels/"


@pytest.mark.parametrize("N,K,BN,BK", [(128, 256, 64, 64), (100, 192, 32, 64)])
def test_gemv_per_thread(tilec, N, K, BN, BK):
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, K).astype(np.float16)
    b = rng.uniform(-1, 1, (N, K)).astype(np.float16)
    out = tilec.run(KERNELS + "thread_gemv.py", dict(N=N, K=K, BLOCK_N=BN, BLOCK_K=BK),
                    {"A": a, "B": b})
    ref = b.astype(np.float32) @ a.astype(np.float32)
    np.testing.assert_allclose(out["C"].astype(np.float32), ref, rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("N,K,BN,BK", [(96, 128, 16, 8), (40, 64, 16, 4)])
def test_splitk_two_dimensional_threads(tilec, N, K, BN, BK):
    rng = np.random.default_rng(2)
    a = rng.integers(-50, 50, K).astype(np.int32)
    b = rng.integers(-50, 50, (N, K)).astype(np.int32)
    out = tilec.run(KERNELS + "thread_splitk.py", dict(N=N, K=K, BLOCK_N=BN, BLOCK_K=BK),
                    {"A": a, "B": b})
    np.testing.assert_array_equal(out["C"], b @ a)


def test_tile_ops_under_a_thread_range(tilec):
    """`if tx < 32:` / `else:`, and an if / elif / elif chain, around tile operations run
    them in the threads each admits (TileLang's mhc_pre shape), with the block's thread
    index inside."""
    rng = np.random.default_rng(4)
    x = rng.uniform(-1, 1, (3, 8, 64)).astype(np.float32)
    w = rng.uniform(-1, 1, 8).astype(np.float32)
    out = tilec.run(KERNELS + "thread_if_tiles.py", dict(M=3, N=64, H=8), {"X": x, "W": w})
    np.testing.assert_allclose(out["R"], x.max(2) * w, rtol=1e-6)
    np.testing.assert_allclose(out["Y"], np.einsum("bhn,h->bn", x, w), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out["Z"], np.tile([131, 32, 7, 9, 5], (3, 1)))


def test_ws_region_runs_only_its_threads(tilec):
    """Per-thread code in a T.ws region runs in the region's threads, with the block's
    thread index (as on CUDA); the other threads' elements keep their values."""
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (2, 256)).astype(np.float32)
    b = np.full((2, 256), -7.0, np.float32)
    out = tilec.run(KERNELS + "ws_thread_index.py", dict(N=256), {"A": a, "B": b})
    ref = b.copy()
    ref[:, 128:] = a[:, 128:] * 2 + np.arange(128, 256) + (a[:, :1] + 1)
    np.testing.assert_allclose(out["B"], ref, rtol=1e-6)


def test_lanes_warps_and_tile_ops(tilec):
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 256).astype(np.float32)
    out = tilec.run(KERNELS + "thread_lanes.py", dict(M=256), {"X": x})
    y = np.zeros((256, 4), np.float32)
    for b in range(2):
        s = x[b * 128:(b + 1) * 128]
        tx = np.arange(128)
        n = np.array([sum(i + 1 for i in range(t % 32 % 4)) for t in tx], np.float32)
        r = s[127 - tx] * 2.0 + n
        y[b * 128 + tx, 0] = r + 1.0
        y[b * 128 + tx, 1] = tx // 32
        y[b * 128 + tx, 2] = tx // 64
        y[b * 128 + tx, 3] = r[(tx + 1) % 128]
    np.testing.assert_allclose(out["Y"], y, rtol=1e-6)


ERRORS = [
    ("T.copy(X[tx:tx + 4], S[0:4])",
     "T.copy over a region that depends on the thread index is not supported"),
    ("if tx % 2 == 0:\n                T.copy(X[0:128], S)",
     "T.copy under a condition that depends on the thread index is not supported"),
    ("if tx < 20:\n                T.copy(X[0:128], S)",
     "which must be whole warps (multiples of 32)"),
    ("if 32 <= tx < 64:\n                T.copy(X[0:128], S)\n            else:\n"
     "                T.fill(S, 0.0)",
     "the others are not one range (write two `if`s)"),
    ("for i in T.serial(2):\n                if tx < 32:\n                    T.clear(S)\n"
     "                    T.sync_threads(1, 64)",
     "in a kernel with named barriers of its own"),
    ("if tx < 32:\n                T.sync_threads()",
     "T.sync_threads under a condition that depends on the thread index"),
    ("for i in T.Parallel(tx):\n                S[i] = 0.0",
     "a T.Parallel loop whose bounds depend on the thread index"),
    ("t = T.get_thread_binding(3)", "T.get_thread_binding: dim must be 0, 1 or 2, got 3"),
    ("t = T.get_lane_idx(0)", "warp_size must be positive, got 0"),
    ("T.sync_warp(0xFFFF)", "T.sync_warp: only mask=0xFFFFFFFF (every lane) is supported"),
    ("t = T.shfl_xor(X[tx], 1, width=48)",
     "T.shfl_xor: width must be a power of two from 1 to 32, got 48"),
    ("t = T.thread_binding(0, 64, thread=\"threadIdx.x\")",
     "T.thread_binding: extent 64, but the kernel has 128 threads along x"),
    ("t = T.thread_binding(0, 1, thread=\"blockIdx.x\")",
     "T.thread_binding: thread must be \"threadIdx.x\""),
    ("r = T.alloc_reducer(4, \"float32\", op=\"max\")",
     "T.alloc_reducer: only op=\"sum\" is supported yet"),
    ("T.finalize_reducer(S)", "T.finalize_reducer takes a T.alloc_reducer buffer"),
    ("t = T.warp_reduce_bitand(X[tx])", "T.warp_reduce_bitand needs an integer value"),
    ("T.evaluate(T.tvm_thread_allreduce(T.uint32(1), X[tx], True, S[0], tx))",
     "T.tvm_thread_allreduce needs a T.comm_reducer"),
    ("T.comm_reducer(lambda x, y: x + y, [0.0])\n"
     "            T.evaluate(T.tvm_thread_allreduce(T.uint32(1), X[tx], True, S[0], bx))",
     "T.tvm_thread_allreduce: argument 5 must be a thread index"),
    ("for i in T.serial(4):\n                if tx < 3:\n                    T.loop_break()",
     "the C target cannot run a break or continue under a condition that depends on the "
     "thread index"),
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
                   "    t = T.get_thread_binding()\n")
    proc = tilec.command(["emit", src, "--target", "c"])
    assert proc.returncode != 0
    assert "bad.py:5" in proc.stderr and "only allowed inside a 'with T.Kernel" in proc.stderr


def shfl_ref(x):
    """TileLang's shuffles and warp reductions (CUDA's __shfl_*_sync, width 32)."""
    y = np.zeros((x.size, 8), np.int64)
    for t in range(x.size):
        lane, base = t % 32, t - t % 32
        def at(src, own, vals=x):
            return vals[base + src] if 0 <= src < 32 else own
        warp = x[base:base + 32].astype(np.int64)
        y[t, 0] = at(lane ^ 5, x[t])
        y[t, 1] = at(lane + 3, x[t])
        y[t, 2] = at(lane - 7, x[t])
        y[t, 3] = x[base + (lane * 3 + 1) % 32]
        y[t, 4] = warp.sum()
        y[t, 5] = warp.max()
        y[t, 6] = warp.min() + np.bitwise_or.reduce(warp & 7)
        down = np.array([at(l + 1, x[base + l]) for l in range(32)])
        y[t, 7] = down[lane ^ 16] * 2
    return y


def test_warp_shuffles_and_reductions(tilec):
    rng = np.random.default_rng(4)
    x = rng.integers(-1000, 1000, 128).astype(np.int32)
    out = tilec.run(KERNELS + "thread_shfl.py", dict(M=128), {"X": x})
    np.testing.assert_array_equal(out["Y"], shfl_ref(x))


def test_shuffle_under_a_thread_condition_is_an_error(tilec, tmp_path):
    src = tmp_path / "bad.py"
    src.write_text("import tilelang.language as T\n\n@T.prim_func\n"
                   "def main(X: T.Tensor((128,), \"int32\")):\n"
                   "    with T.Kernel(1, threads=128) as bx:\n"
                   "        tx = T.get_thread_binding()\n"
                   "        if tx < 64:\n"
                   "            X[tx] = T.shfl_xor(X[tx], 1)\n")
    proc = tilec.command(["emit", src, "--target", "cuda"])
    assert proc.returncode != 0
    assert "bad.py:8" in proc.stderr and "a warp shuffle under a condition" in proc.stderr, \
        proc.stderr


@pytest.mark.parametrize("N,K,BN,RT", [(64, 256, 8, 16), (40, 128, 8, 4)])
def test_tvm_thread_allreduce(tilec, N, K, BN, RT):
    rng = np.random.default_rng(5)
    a = rng.integers(-30, 30, K).astype(np.int32)
    b = rng.integers(-30, 30, (N, K)).astype(np.int32)
    out = tilec.run(KERNELS + "thread_allreduce.py", dict(N=N, K=K, BLOCK_N=BN, RT=RT),
                    {"A": a, "B": b})
    np.testing.assert_array_equal(out["C"], b @ a)


@pytest.mark.parametrize("M,N,bm,bn", [(128, 256, 64, 64), (100, 72, 64, 32)])
def test_alloc_reducer(tilec, M, N, bm, bn):
    rng = np.random.default_rng(6)
    a = rng.integers(-20, 20, (M, N)).astype(np.int32)
    x = rng.integers(-20, 20, N).astype(np.int32)
    out = tilec.run(KERNELS + "reducer.py", dict(M=M, N=N, block_M=bm, block_N=bn),
                    {"a": a, "x": x})
    np.testing.assert_array_equal(out["o"], a @ x)


def test_launch_thread(tilec, tmp_path):
    """TVM's T.launch_thread(thread, extent), as TileLang's AMD examples write it."""
    src = tmp_path / "lt.py"
    src.write_text("import tilelang.language as T\n\n@T.prim_func\n"
                   "def main(A: T.Tensor((64,), \"float32\"), B: T.Tensor((64,), \"float32\")):\n"
                   "    with T.Kernel(1, threads=64) as bx:\n"
                   "        tx = T.launch_thread(\"threadIdx.x\", 64)\n"
                   "        B[63 - tx] = A[tx] * 2.0 + tx\n")
    a = np.arange(64, dtype=np.float32) / 7
    out = tilec.run(src, inputs={"A": a})
    np.testing.assert_allclose(out["B"], (a * 2 + np.arange(64))[::-1], rtol=1e-6)
