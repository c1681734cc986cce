"""TileLang's PTX spellings of cp.async and mbarriers (src/frontend/tileops_expert.c) on the
C target against NumPy: the kernel tests/exec/kernels/ptx_names.py, and the errors of bad
uses at the user's line."""
import numpy as np
import pytest


def ptx_names_ref(a, f, i, steps):
    nb = a.shape[0] // (16 * steps)
    b = (a.astype(np.float32) * 2).astype(np.float16)  # each row, moved by its mirror thread
    tx = np.arange(256)
    e = np.zeros((nb, 1024), np.float32)
    j = np.zeros((nb, 512), np.int32)
    g = np.zeros((nb, 256), np.float32)
    for bx in range(nb):
        s2 = f[bx].reshape(256, 4) * (tx % 5 != 0)[:, None]  # zeros where the predicate fails
        e[bx] = (s2[255 - tx] + 1.0).reshape(-1)
        s3 = i[bx].reshape(256, 2)
        j[bx] = (s3[(tx + 7) % 256] * 3).reshape(-1)
        s4 = f[bx, tx * 3]
        g[bx] = s4[(tx + 100) % 256] - 1.0
    return b, e, j, g


@pytest.mark.parametrize("M,steps,stages", [(128, 4, 2), (96, 3, 3), (32, 1, 2)])
def test_ptx_names(tilec, M, steps, stages):
    rng = np.random.default_rng(26)
    a = rng.uniform(-4.0, 4.0, (M, 64)).astype(np.float16)
    f = rng.uniform(-1.0, 1.0, (M // (16 * steps), 1024)).astype(np.float32)
    i = rng.integers(-2**20, 2**20, (M // (16 * steps), 512), dtype=np.int32)
    out = tilec.run("tests/exec/kernels/ptx_names.py", dict(M=M, steps=steps, stages=stages),
                    {"A": a, "F": f, "I": i})
    b, e, j, g = ptx_names_ref(a, f, i, steps)
    np.testing.assert_array_equal(out["B"], b)
    np.testing.assert_array_equal(out["E"], e)
    np.testing.assert_array_equal(out["J"], j)
    np.testing.assert_array_equal(out["G"], g)
    assert (e[:, :4] == 1.0).all() and (e != 1.0).any()  # some copies zero-filled, not all


ERRORS = [
    ("T.ptx_cp_async(T.access_ptr(S[0], \"w\"), T.access_ptr(X[0], \"r\"), 3)",
     "T.ptx_cp_async copies 4, 8 or 16 bytes; 3 float32 elements are 12 bytes"),
    ("T.ptx_cp_async(T.access_ptr(S[0], \"w\"), T.access_ptr(H[0], \"r\"), 4)",
     "the destination's elements (float32) and the source's (float16) must have one size"),
    ("T.ptx_cp_async(T.access_ptr(X[0], \"w\"), T.access_ptr(Y[0], \"r\"), 4)",
     "T.ptx_cp_async copies global into shared memory; the destination 'X' is global"),
    ("T.ptx_cp_async(S[0], X[0], 4)",
     "T.ptx_cp_async: the destination must be a pointer (T.access_ptr(x[i], ...))"),
    ("T.ptx_wait_group(8)", "T.ptx_wait_group: 0 to 7 groups may stay in flight, got 8"),
    ("T.create_barriers(2)\n            T.ptx_init_barrier_thread_count(0, 32)\n"
     "            T.ptx_arrive_barrier(1)",
     "T.ptx_arrive_barrier: barrier 1 is used before T.ptx_init_barrier_thread_count"),
    ("T.create_barriers(1)\n            T.ptx_wait_barrier(0)",
     "T.ptx_wait_barrier: barrier 0 is used before T.ptx_init_barrier_thread_count"),
    ("T.create_barriers(1)\n            T.ptx_init_barrier_thread_count(0, 0)",
     "T.ptx_init_barrier_thread_count: a thread count must be 1 to 1024, got 0"),
    ("T.ptx_arrive_barrier(0)", "a barrier number needs T.create_list_of_mbarrier first"),
    ("T.tvm_storage_sync(\"global\")",
     "a grid-wide (\"global\") barrier is not supported"),
    ("tx = T.get_thread_binding()\n            T.create_barriers(1)\n            if tx == 0:\n"
     "                T.ptx_init_barrier_thread_count(0, 32)",
     "T.ptx_init_barrier_thread_count under a condition that depends on the thread index"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_errors_at_the_users_line(tilec, tmp_path, line, message):
    src = tmp_path / "bad.py"
    head = ("import tilelang.language as T\n\n"
            "@T.prim_func\n"
            "def main(X: T.Tensor((64,), \"float32\"), Y: T.Tensor((64,), \"float32\"),\n"
            "         H: T.Tensor((64,), \"float16\")):\n"
            "        with T.Kernel(1, threads=32) as bx:\n"
            "            S = T.alloc_shared((64,), \"float32\")\n")
    src.write_text(head + "            " + line + "\n")
    last = head.count("\n") + 1 + line.count("\n")
    proc = tilec.command(["emit", src, "--target", "c"])
    assert proc.returncode != 0
    assert message in proc.stderr, proc.stderr
    assert "bad.py:%d:" % last in proc.stderr, proc.stderr
