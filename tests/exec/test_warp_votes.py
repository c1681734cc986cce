"""Warp and block votes, shuffles of a part of the warp and TVM's warp spellings
(src/frontend/tileops_thread.c) on the C target against NumPy: the kernel
tests/unit/kernels/warp_votes.py (which test_emit_cuda also compiles for sm_80 and sm_90a
and simulates), on 2-D blocks with and without a partial last warp; and the programs that
are an error, each at the user's line."""
import numpy as np
import pytest

KERNEL = "tests/unit/kernels/warp_votes.py"


def bits(pred):
    """The mask of the lanes whose predicate is set."""
    return sum(1 << l for l, p in enumerate(pred) if p)


def shfl(vals, lane, j, ok=True):
    """CUDA's shuffle: lane j's value, or the caller's own where j is outside."""
    return vals[j] if ok and 0 <= j < len(vals) else vals[lane]


def block_ref(xs, fs, bx, warp_rows):
    """Each thread's 18 results for one block (xs, fs: its threads' inputs)."""
    nt = xs.size
    y = np.zeros((nt, 18), np.int64)
    for t in range(nt):
        lane, first = t % 32, t - t % 32
        n = min(32, nt - first)
        v, w = int(xs[t]), t // 32
        wv = [int(a) for a in xs[first:first + n]]
        full = (1 << n) - 1
        y[t, 0] = bits([a > w - 2 for a in wv])
        y[t, 1] = bits([a % 3 != 0 for a in wv]) + full * 1073741824
        y[t, 2] = any(a > 6 - 4 * w for a in wv) + all(a >= -8 + 4 * w for a in wv) * 2
        y[t, 3] = bits([a % 5 == v % 5 for a in wv])
        y[t, 4] = full if len({min(a, w * 8 - 9) for a in wv}) == 1 else 0
        zero = (fs[first:first + n] * np.float32(0)).view(np.uint32)
        y[t, 5] = bits(zero == zero[lane])
        y[t, 6] = (lane == 0 and w % 2 == 0) + (t == 0) * 2 + (lane == 0) * 4
        y[t, 7] = all(int(a) > -9 + 20 * bx for a in xs) + any(int(a) > 6 + bx for a in xs) * 2
        y[t, 8] = sum(int(a) > 0 for a in xs)
        y[t, 9] = full
        tx = warp_rows[t]
        y[t, 10] = wv[(lane & ~7) | ((tx ^ 3) & 7)]
        up, down = lane - 2, lane + 5
        y[t, 11] = (shfl(wv, lane, up, up >= (lane & ~15)) +
                    shfl(wv, lane, down, down <= (lane & ~15) + 15) * 100)
        x9 = lane ^ 9
        y[t, 12] = shfl(wv, lane, x9, x9 <= (lane & ~7) + 7) + wv[(lane & ~3) | 1] * 100
        y[t, 13] = full
        ballot = bits([a > 0 for a in wv])
        all_of = [all(int(a) > -7 for a in xs[k - k % 32:k - k % 32 + 32]) for k in range(nt)]
        y[t, 14] = (ballot > 65535) + sum(all_of)
        y[t, 15] = shfl(wv, lane, lane - 1) + shfl(wv, lane, lane ^ 8) * 100
        y[t, 16] = ((any(a > 5 for a in wv) if tx < 4 else v) +
                    (tx > 3 and all(a > -7 + 8 * w for a in wv)) * 100)
        y[t, 17] = xs[t ^ 1]
    return y


@pytest.mark.parametrize("TX,TY", [(16, 5), (8, 12), (32, 2)])
def test_votes_against_numpy(tilec, TX, TY):
    nt = TX * TY
    m = 2 * nt
    rng = np.random.default_rng(7)
    x = rng.integers(-8, 8, m).astype(np.int32)
    x[:nt // 2] = np.abs(x[:nt // 2])  # a warp whose tests hold in every lane
    f = rng.uniform(-2, 2, m).astype(np.float32)
    out = tilec.run(KERNEL, dict(M=m, TX=TX, TY=TY), {"X": x, "F": f})
    tx = np.arange(nt) % TX
    ref = np.concatenate([block_ref(x[b * nt:(b + 1) * nt], f[b * nt:(b + 1) * nt], b, tx)
                          for b in range(2)])
    for col in range(18):
        np.testing.assert_array_equal(out["Y"][:, col], ref[:, col], err_msg="column %d" % col)


def test_block_votes_after_a_pipelined_gemm(tilec):
    """tests/unit/kernels/ws_votes.py: on sm_90a its votes are a warp-specialized kernel's
    consumers' (test_emit_cuda); here the C target's values against NumPy."""
    rng = np.random.default_rng(8)
    a = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    b = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    out = tilec.run("tests/unit/kernels/ws_votes.py", inputs={"A": a, "B": b})
    np.testing.assert_allclose(out["C"], a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)
    tx = np.arange(128)
    for by in range(2):
        for bx in range(2):
            p = a[by * 64 + tx % 64, tx // 64 + bx] > 0
            warp_any = np.repeat([p[w * 32:(w + 1) * 32].any() for w in range(4)], 32)
            ref = p.sum() * 1000 + p.all() * 100 + p.any() * 10 + warp_any
            np.testing.assert_array_equal(out["D"][by, bx], ref)


ERRORS = [
    ("if tx < 16:\n                X[tx] = T.ballot(X[tx] > 0)",
     "a warp vote under a condition that depends on the thread index is not supported: every "
     "lane of the warp must reach it"),
    ("if tx % 2 == 0:\n                X[tx] = T.syncthreads_count(X[tx] > 0)",
     "T.syncthreads_count under a condition that depends on the thread index is not "
     "supported: every thread of the block must reach it"),
    ("for i in T.serial(tx % 3):\n                X[tx] = T.match_any_sync(X[tx])",
     "a warp vote under a condition that depends on the thread index"),
    ("while T.any_sync(X[tx] > 0):\n                X[tx] = X[tx] - 1",
     "a warp shuffle or vote (or a warp reduction) in a `while` condition is not supported"),
    ("while T.warp_reduce_max(X[tx]) > 0:\n                X[tx] = X[tx] - 1",
     "a warp shuffle or vote (or a warp reduction) in a `while` condition is not supported"),
    ("for i in T.Parallel(128):\n                X[i] = T.shfl_xor(X[i], 1)",
     "a warp shuffle inside a T.Parallel loop is not supported"),
    ("X[tx] = T.ballot_sync(X[tx] > 0, 0xFFFF)",
     "T.ballot_sync: only mask=0xFFFFFFFF (every lane) is supported"),
    ("X[tx] = T.any_sync(X[tx] > 0, mask=tx)",
     "T.any_sync: only mask=0xFFFFFFFF (every lane) is supported"),
    ("X[tx] = T.tvm_warp_shuffle(0xFF, X[tx], 0, 32, 32)",
     "T.tvm_warp_shuffle: only mask=0xFFFFFFFF (every lane) is supported"),
    ("X[tx] = T.shfl_down(X[tx], 1, width=12)",
     "T.shfl_down: width must be a power of two from 1 to 32, got 12"),
    ("X[tx] = T.ballot(F[tx])", "T.ballot needs an integer or bool predicate, got float32"),
    ("X[tx] = T.syncthreads_or(1.5)",
     "T.syncthreads_or needs an integer or bool predicate, got float32"),
    ("X[tx] = T.shuffle_elect(-1)", "T.shuffle_elect: thread_extent must not be negative"),
    ("X[tx] = T.match_all_sync()", "T.match_all_sync"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_errors_at_the_users_line(tilec, tmp_path, line, message):
    head = ("import tilelang.language as T\n\n"
            "@T.prim_func\n"
            "def main(X: T.Tensor((128,), \"int32\"), F: T.Tensor((128,), \"float32\")):\n"
            "        with T.Kernel(1, threads=128) as bx:\n"
            "            S = T.alloc_shared((128,), \"float32\")\n"
            "            tx = T.get_thread_binding()\n")
    tilec.emit_error(tmp_path, head, line, message, targets=("c", "cuda"))
