"""T.__fns, T.call_intrin, T.PersistentTileScheduler and TileLang's register hints T.annotate_producer_reg_dealloc /
T.annotate_consumer_reg_alloc on the C target against NumPy (tests/exec/kernels/
misc_names.py; test_emit_cuda compiles it for CUDA sm_80 and sm_90a and simulates it, and
checks the hints' setmaxnreg), then their misuse, each an error at the user's line."""
import numpy as np
import pytest

KERNELS = "tests/exec/kernels/"


def fns_reference(mask, base, offset):
    """The offset-th set bit of mask counted from bit base (PTX fns), from the list of the
    set bits' positions."""
    bits = [b for b in range(32) if (int(mask) >> b) & 1]
    if offset == 0:
        return base if base in bits else 0xFFFFFFFF
    side = [b for b in bits if b >= base] if offset > 0 else \
        [b for b in reversed(bits) if b <= base]
    return side[abs(offset) - 1] if abs(offset) <= len(side) else 0xFFFFFFFF


def test_fns_and_call_intrin(tilec):
    n = 300
    rng = np.random.default_rng(5)
    mask = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    mask[:8] = [0, 0xFFFFFFFF, 1, 0x80000000, 0x80000001, 0x00F0F000, 5, 0]
    base = rng.integers(-40, 40, n).astype(np.int32)
    off = rng.integers(-34, 35, n).astype(np.int32)
    off[:4] = [0, 32, -32, 33]
    x = rng.uniform(-4, 4, n).astype(np.float32)
    out = tilec.run(KERNELS + "misc_names.py", dict(n=n),
                    {"Mask": mask, "Base": base, "Off": off, "X": x})
    want = [fns_reference(m, b & 31, o) for m, b, o in zip(mask, base, off)]
    np.testing.assert_array_equal(out["F"], np.array(want, np.uint32))
    np.testing.assert_allclose(out["Y"], np.exp2(x) + np.abs(x), rtol=1e-6)
    ffs = [(int(m) & -int(m)).bit_length() for m in mask]  # 1-based lowest set bit, 0 for 0
    first = [fns_reference(m, 0, 1) for m in mask]
    np.testing.assert_array_equal(out["P"], (np.array(ffs) + np.array(first)).astype(np.int32))


def test_register_hints_are_the_budgets(tilec, tmp_path):
    """The hand-scheduled GEMM with TileLang's hints in place of T.dec_max_nreg /
    T.inc_max_nreg: the same product (the C target runs the regions in program order)."""
    src = (tilec_root() / "examples" / "gemm_warp_specialized.py").read_text()
    src = src.replace("T.dec_max_nreg(40)", "T.annotate_producer_reg_dealloc()")
    src = src.replace("T.inc_max_nreg(232)", "T.annotate_consumer_reg_alloc(reg_count=232)")
    assert "annotate_producer_reg_dealloc" in src and "annotate_consumer_reg_alloc" in src
    path = tmp_path / "ws_hints.py"
    path.write_text(src)
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (200, 200)).astype(np.float16)
    b = rng.uniform(-1, 1, (200, 136)).astype(np.float16)
    out = tilec.run(path, dict(M=200, N=136, K=200), {"A": a, "B": b})["C"]
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=2e-3, atol=2e-2)


def sweep_order(mt, nt, swizzle, column_major, cluster):
    """The tiles (m, n) in the scheduler's linear order, enumerated: panels of `swizzle`
    slow-axis tiles (the last narrower), the fast axis swept in each."""
    mc = -(-mt // cluster)
    fast_n, slow_n = (mc, nt) if column_major else (nt, mc)
    order = []
    for p0 in range(0, slow_n, swizzle):
        for fast in range(fast_n):
            for slow in range(p0, min(p0 + swizzle, slow_n)):
                order.append((fast, slow) if column_major else (slow, fast))
    return order


@pytest.mark.parametrize("mt,nt,workers,swizzle,column_major,cluster",
                         [(7, 10, 4, 3, True, 1), (7, 10, 3, 1, False, 1),
                          (5, 6, 4, 4, False, 2), (9, 4, 5, 8, True, 3)])
def test_persistent_tile_scheduler(tilec, mt, nt, workers, swizzle, column_major, cluster):
    bm, bn, waves = 8, 16, 3
    mc = -(-mt // cluster)
    rng = np.random.default_rng(mt * nt)
    a = rng.standard_normal((mc * bm, nt * bn)).astype(np.float32)
    out = tilec.run(KERNELS + "tile_sched.py",
                    dict(mt=mt, nt=nt, workers=workers, swizzle=swizzle,
                         column_major=column_major, cluster=cluster, waves=waves),
                    {"A": a})
    order = sweep_order(mt, nt, swizzle, column_major, cluster)
    assert len(order) == mc * nt
    want_order = np.zeros((mc, nt), np.int32)
    for lin, (m, n) in enumerate(order):
        want_order[m, n] = lin
    np.testing.assert_array_equal(out["Order"], want_order)
    np.testing.assert_array_equal(out["Iter"], want_order // workers)
    np.testing.assert_array_equal(out["B"], a * 2)
    for t in range(waves * workers):
        if t < len(order):
            assert tuple(out["Coord"][t]) == order[t]


def tilec_root():
    from conftest import ROOT
    return ROOT


ERRORS = [
    ("v = T.__fns(X[0], 0, 1)", "T.__fns: mask must be an integer, got float32"),
    ("v = T.__fns(I[0], 0)", "T.__fns() missing"),
    ("v = T.call_intrin(\"float32\", \"tir.no_such\", X[0])",
     "T.call_intrin: the op \"tir.no_such\" has no meaning in tilec"),
    ("v = T.call_intrin(\"float32\", \"tl.tma_load\", X[0])",
     "T.call_intrin: the op \"tl.tma_load\" has no meaning in tilec"),
    ("v = T.call_intrin(\"float16\", \"tir.exp\", X[0])",
     "T.call_intrin: tir.exp gives float32 here, not float16"),
    ("v = T.call_intrin(\"float32\", 3, X[0])", "T.call_intrin: the op must be a name"),
    ("v = T.call_intrin(\"float32\")", "T.call_intrin(dtype, op, *args) takes a dtype"),
    ("T.annotate_producer_reg_dealloc(20)",
     "T.annotate_producer_reg_dealloc: reg_count must be a multiple of 8 from 24 to 256, got 20"),
    ("T.annotate_consumer_reg_alloc(241)",
     "T.annotate_consumer_reg_alloc: reg_count must be a multiple of 8 from 24 to 256, got 241"),
    ("T.annotate_consumer_reg_alloc(240, 1)", "T.annotate_consumer_reg_alloc() takes"),
    ("s = T.PersistentTileScheduler(4, 4, stateful=False)\n            s.init(bx)",
     "sched.init: this scheduler was made with stateful=False"),
    ("s = T.PersistentTileScheduler(4, 4, swizzle_size=0)",
     "T.PersistentTileScheduler: swizzle_size and cluster_size must be at least 1"),
    ("s = T.PersistentTileScheduler(4, X[0])",
     "T.PersistentTileScheduler: num_n_tiles must be an integer, got float32"),
    ("s = T.PersistentTileScheduler(4, 4)\n            s.next_tile(1)", "sched.next_tile() takes"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_errors_at_the_users_line(tilec, tmp_path, line, message):
    head = ("import tilelang.language as T\n\n"
            "@T.prim_func\n"
            "def main(X: T.Tensor((64,), \"float32\"), I: T.Tensor((4,), \"int32\")):\n"
            "        with T.Kernel(1, threads=32) as bx:\n")
    tilec.emit_error(tmp_path, head, line, message)
