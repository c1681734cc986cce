"""TileLang's PTX spellings of cp.async and mbarriers (src/frontend/tileops_expert.c) and its
random numbers (tileops_mem.c) on the C target: the kernels tests/exec/kernels/ptx_names.py
against NumPy and rng_names.py against a Python Philox4x32-10, and the errors of bad uses
at the user's line."""
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



@pytest.mark.parametrize("N,steps", [(1024, 4), (256, 1)])
def test_named_barriers(tilec, N, steps):
    a = np.random.default_rng(26).uniform(-1.0, 1.0, N).astype(np.float32)
    out = tilec.run("tests/exec/kernels/named_bar.py", dict(N=N, steps=steps), {"A": a})
    tiles = a.reshape(-1, 128)  # consumer c reads what producer 127 - c wrote
    np.testing.assert_array_equal(out["B"], (tiles[:, ::-1] * 2.0 + 1.0).reshape(-1))


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
    ("X[0] = T.cast(T.rng_rand(), \"float32\")",
     "T.rng_rand before T.rng_init: the thread's generator has no state"),
    ("T.rng_init(1, generator=\"curandStateXORWOW_t\")",
     "T.rng_init: tilec's generator is \"curandStatePhilox4_32_10_t\""),
    ("T.rng_init(1.5)", "T.rng_init: seed must be an integer, got float32"),
    ("T.sync_threads(16, 32)",
     "T.sync_threads: a named barrier is 1 to 15 (0 is the block's: T.sync_threads()), got 16"),
    ("T.named_barrier_arrive(1, 48)",
     "T.named_barrier_arrive: the thread count must be a multiple of 32 from 32 to the "
     "block's 32, got 48"),
    ("T.named_barrier_arrive(1)", "T.named_barrier_arrive() missing"),

    ("T.rng_init(1)\n            X[0] = T.rng_rand_float(64)",
     "T.rng_rand_float: only bit=32 is supported (curand_uniform)"),
    ("T.rng_init(1)\n            X[0] = T.rng_rand_float(dist=\"normal\")",
     "T.rng_rand_float: only dist=\"uniform\" is supported, got string \"normal\""),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_errors_at_the_users_line(tilec, tmp_path, line, message):
    head = ("import tilelang.language as T\n\n"
            "@T.prim_func\n"
            "def main(X: T.Tensor((64,), \"float32\"), Y: T.Tensor((64,), \"float32\"),\n"
            "         H: T.Tensor((64,), \"float16\")):\n"
            "        with T.Kernel(1, threads=32) as bx:\n"
            "            S = T.alloc_shared((64,), \"float32\")\n")
    tilec.emit_error(tmp_path, head, line, message, last_only=True)


# ---- T.rng_*: cuRAND's Philox4x32-10, written here from its published description -------
PHILOX_M = (0xD2511F53, 0xCD9E8D57)
PHILOX_W = (0x9E3779B9, 0xBB67AE85)
MASK32 = 0xFFFFFFFF


def philox4x32_10(ctr, key):
    """Ten rounds of Philox4x32 (Salmon et al., SC'11) on 4 counter and 2 key words."""
    c, k = list(ctr), list(key)
    for _ in range(10):
        p0, p1 = PHILOX_M[0] * c[0], PHILOX_M[1] * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & MASK32, (p0 >> 32) ^ c[3] ^ k[1], p0 & MASK32]
        k = [(k[0] + PHILOX_W[0]) & MASK32, (k[1] + PHILOX_W[1]) & MASK32]
    return c


def test_philox_known_answers():
    """Random123's known-answer vectors for philox4x32_10."""
    assert philox4x32_10([0, 0, 0, 0], [0, 0]) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    assert philox4x32_10([MASK32] * 4, [MASK32] * 2) == [
        0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
    assert philox4x32_10([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                         [0xa4093822, 0x299f31d0]) == [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]


def curand_draws(seed, subsequence, offset, n):
    """curand_init(seed, subsequence, offset) then n curand() words: the 128-bit counter
    starts at subsequence << 64 (its high half wraps) plus offset // 4, word offset % 4."""
    hi = subsequence % 2**64
    ctr = (hi << 64) + offset // 4
    word, out = offset % 4, []
    while len(out) < n:
        block = philox4x32_10([(ctr >> (32 * i)) & MASK32 for i in range(4)],
                              [seed & MASK32, (seed >> 32) & MASK32])
        out += block[word:]
        word, ctr = 0, (ctr + 1) % 2**128
    return out[:n]


def curand_uniform(words):
    return (np.array(words, np.float64).astype(np.float32) * np.float32(2.0**-32) +
            np.float32(2.0**-33)).astype(np.float32)


@pytest.mark.parametrize("N,threads,per,seed", [(1000, 128, 4, 42), (300, 32, 6, 7)])
def test_rng_names(tilec, N, threads, per, seed):
    out = tilec.run("tests/exec/kernels/rng_names.py",
                    dict(N=N, threads=threads, per=per, seed=seed), {})
    a, u, d = (np.zeros(N, np.uint32), np.zeros(N, np.float32), np.zeros(N, np.uint32))
    nb = -(-N // (threads * per))
    for bx in range(nb):
        for tx in range(threads):
            first = (bx * threads + tx) * per
            n = max(0, min(per, N - first))
            if not n:
                continue
            a[first:first + n] = curand_draws(seed, 0, first, n)
            u[first:first + n] = curand_uniform(curand_draws(seed + 1, tx + bx * threads, 0, n))
            d[first:first + n] = curand_draws(seed * 3 + 2**32, tx * 7 + bx, 5 + tx % 4, n)
    np.testing.assert_array_equal(out["A"], a)
    np.testing.assert_array_equal(out["U"], u)
    np.testing.assert_array_equal(out["D"], d)
    assert a[0] == 0x6627e8d5 or seed != 0  # (seed 0, offset 0: the first known answer)
    assert len(set(a.tolist())) > N * 0.99 and 0.0 < u.min() and u.max() <= 1.0
