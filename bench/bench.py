"""tilec against its peers on the GPU, in one process, on the same inputs, with the same
timer (CUDA events, median). GEMM and attention rows time the two sides interleaved, a
cache flush before each call (interleaved_ms); the others use triton.testing.do_bench.
Prints a table and appends the rows to bench/results.csv.

    PYTHONPATH=python TILEC_LIBRARY=build/libtilec.so python3 bench/bench.py [--quick]
        [--only gemm|mma|splitk|fp8|rowwise|copy|manual|attention|compile ...]
        [--gemm-config bM,bN,bK,stages,threads[,1] | --gemm-configs-sweep] [--time-limit S]

Peers (../shared/PERF.md): cuBLAS through torch.matmul, cuBLASLt fp8 through
torch._scaled_mm, torch's softmax, an RMSNorm written in torch, torch SDPA (cuDNN or flash
backend, whichever is faster) for attention, and the device-copy bandwidth ceiling.

GEMM (issues 3 and 4): C = A @ B, A (M,K) and B (K,N) row-major, fp16 and bf16 in and out,
fp32 accumulation; tilec runs examples/gemm.py's matmul. The full run measures 4096^3,
8192^3, 4096x7168x2048 and TileLang's M0-M7 shapes; --quick measures 4096^3. Each shape's
error is relative to a float32 reference; a shape that fails to compile or run is recorded
with tilec 0 and its message, and the run goes on. The table ends with the geometric mean
of tilec / cuBLAS per dtype (row "gemm geomean <dtype>", over the shapes tilec ran).
"gemm by hand" rows run examples/gemm_warp_specialized.py, the same GEMM scheduled with
TileLang's Tier 3 primitives (fp16, 4096^3 and 8192^3; --quick: 4096^3). "gemm split-k" rows
(group splitk) run the same matmul on shapes with fewer tiles than SMs and a long K, whose
tiles tilec cuts along K over the idle SMs (split-K; the setting no_splitk turns it off).
"gemm mma.sync" rows (group mma, issue 3) run the same matmul compiled for the mma.sync path
(the setting no_wgmma: on sm_90 the code sm_80 gets) on 4096^3, 8192^3 and 4096x7168x2048
against cuBLAS and against Triton's GEMM on the same instructions (bench/triton_mma.py,
its fastest config per shape), the three timed interleaved. "compile cold" rows (group
compile) time a compile without the disk cache, source to loaded cubin, against
../shared/PERF.md's 0.5 s, as compiles per second."""
import argparse
import concurrent.futures
import contextlib
import csv
import datetime
import importlib.util
import math
import os
import statistics
import sys
import time

os.environ.setdefault("TILEC_AS_TILELANG", "1")  # examples `import tilelang`: use tilec's
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
torch = do_bench = None  # imported by load_gpu_modules() once the arguments parse (--help
# needs neither torch nor triton)

# GEMM shapes (M, N, K). TileLang's M0-M7 are the last eight, less M5 (8192^3, listed first).
GEMM_QUICK = [(4096, 4096, 4096)]
GEMM_FULL = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 7168, 2048),
             (4096, 1024, 8192), (4096, 8192, 8192), (4096, 28672, 8192), (4096, 8192, 28672),
             (8192, 1024, 8192), (8192, 28672, 8192), (8192, 8192, 28672)]
# tilec GEMM configs (block_M, block_N, block_K, num_stages, threads[, 1: shared_epilogue]):
# TileLang's sm80 default and what --gemm-configs-sweep tries.
GEMM_DEFAULT = (128, 128, 64, 3, 128)
GEMM_DEFAULT_SM90 = (128, 256, 64, 4, 256, 1)  # the fastest measured on the H200 (docs/journal.md)
GEMM_SWEEP = [(128, 128, 64, 2, 128), (128, 128, 64, 3, 128), (128, 128, 64, 4, 128),
              (128, 128, 32, 4, 128), (128, 256, 64, 3, 256), (128, 256, 64, 4, 256),
              (256, 128, 64, 4, 256), (256, 128, 64, 3, 256, 1), (128, 256, 64, 3, 256, 1),
              (256, 128, 64, 4, 256, 1), (128, 256, 64, 4, 256, 1)]
GEMM_DTYPES = ("float16", "bfloat16")
# fp8 (issue 4): C = A @ B.T, A (M,K) and B (N,K) e4m3, bfloat16 out; tilec runs
# examples/gemm_fp8.py with the fastest of FP8_SWEEP on the first shape.
FP8_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192)]
# split-K (the sm_90 default config): 28 to 64 tiles of 128 x 256 on 132 SMs; the first is
# ../shared/PERF.md's small-M peer shape
SPLITK_SHAPES = [(128, 7168, 4096), (1024, 1024, 16384), (512, 2048, 16384), (2048, 1024, 8192)]
FP8_SWEEP = [(256, 128, 128, 4, 256), (128, 256, 128, 4, 256), (128, 128, 128, 4, 128),
             (256, 128, 128, 3, 256, 1), (128, 256, 128, 3, 256, 1),
             (256, 128, 128, 4, 256, 1), (128, 256, 128, 4, 256, 1)]
SWEEP_MAX_ERR = 2e-2  # a swept config whose relative error exceeds this is not chosen
INTERLEAVED_ROUNDS = 500  # at most this many calls of each side per row (interleaved_ms)
WARM_UP_S = 3.0  # seconds of load before a group of GEMM rows (warm_up_gpu)
GPU_BUDGET_MS = 900.0  # GPU time one GEMM measurement aims to stay under


def load_gpu_modules():
    global torch, do_bench
    import torch
    from triton.testing import do_bench
    import tilec.compat.tilelang_shim  # noqa: F401


def example(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Rows(list):
    """Results, each printed as it is measured (a cut-off run still reports), and the
    failures (work, first line of the message), listed again after the table."""

    def __init__(self):
        super().__init__()
        self.failures = []

    def append(self, r):
        super().append(r)
        print("measured:", r, flush=True)

    def fail(self, work, what, e):
        text = str(e).strip()
        print("FAILED %s (%s): %s: %s" % (work, what, type(e).__name__, text[:4000]),
              flush=True)
        lines = text.splitlines() or [""]
        first = next((ln.strip() for ln in lines if "error" in ln.lower()), lines[0].strip())
        self.failures.append((work, "%s: %s: %s" % (what, type(e).__name__, first)))


def bench(fn, rep):
    return do_bench(fn, warmup=max(rep // 4, 1), rep=rep, return_mode="median")


def event_ms(fn):
    """(GPU milliseconds of one call of fn, what it returned)."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    out = fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e), out


def timed_ms(fn):
    """Median milliseconds per call of fn (run at least once already), within about
    GPU_BUDGET_MS of GPU time. do_bench calls fn about six times before its warm-up and
    repetitions, so it is used only when a call takes under GPU_BUDGET_MS / 8; a slower fn
    is timed by up to three single calls."""
    t = event_ms(fn)[0]
    if 8 * t <= GPU_BUDGET_MS:
        return do_bench(fn, warmup=25, rep=200, return_mode="median")
    times = [t]
    while len(times) < 3 and sum(times) + t <= GPU_BUDGET_MS:
        times.append(event_ms(fn)[0])
    return statistics.median(times)


# ---- GEMM ----------------------------------------------------------------------------------
def gemm_config(text):
    """--gemm-config's value: five positive ints bM,bN,bK,stages,threads, and a sixth, 1,
    for the epilogue through shared memory (examples/gemm.py's shared_epilogue)."""
    try:
        cfg = tuple(int(v) for v in text.split(","))
    except ValueError:
        cfg = ()
    if len(cfg) not in (5, 6) or min(cfg[:5]) <= 0 or cfg[5:] not in ((), (0,), (1,)):
        raise argparse.ArgumentTypeError("expected five positive ints bM,bN,bK,stages,threads "
                                         "and an optional 0 or 1, got %r" % text)
    return cfg[:5] if cfg[5:] == (0,) else cfg


def cfg_name(cfg):
    return "%dx%dx%d/%d/%d" % cfg[:5] + ("/smem-epilogue" if cfg[5:] == (1,) else "")


def cfg_args(cfg):
    """The matmul keyword arguments (examples/gemm.py, gemm_fp8.py) of a config."""
    bm, bn, bk, stages, threads = cfg[:5]
    return dict(block_M=bm, block_N=bn, block_K=bk, num_stages=stages, threads=threads,
                shared_epilogue=cfg[5:] == (1,))


def compile_all(build, jobs):
    """{job: future of build(*job)} for the tuples in jobs, compiled in parallel (libtilec
    compiles are thread-safe; the autotuner does the same); returns when all are done, so
    compiling does not load the CPU while the GPU is timed."""
    jobs = list(dict.fromkeys(jobs))
    t0 = time.monotonic()
    workers = max(1, min(len(jobs), (os.cpu_count() or 2) - 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futs = {j: pool.submit(build, *j) for j in jobs}
        concurrent.futures.wait(futs.values())
    print("compiled %d tilec kernels in %.1f s" % (len(jobs), time.monotonic() - t0),
          flush=True)
    return futs


def compile_gemms(mod, jobs):
    """compile_all of examples/gemm.py's matmul for jobs [(shape, dtype, cfg)]."""
    def build(shape, dtype, cfg):
        m, n, k = shape
        return mod.matmul(M=m, N=n, K=k, trans_A=False, trans_B=False, in_dtype=dtype,
                          out_dtype=dtype, accum_dtype="float", **cfg_args(cfg))

    return compile_all(build, jobs)


def gemm_inputs(shape, dtype):
    m, n, k = shape
    tdt = getattr(torch, dtype)
    return (torch.randn(m, k, device="cuda", dtype=tdt),
            torch.randn(k, n, device="cuda", dtype=tdt))


def rel_err(c, a, b):
    """max |c - A@B| / max |A@B|, A@B in float32 (no TF32)."""
    ref = a.float() @ b.float()
    return ((c.float() - ref).abs().max() / ref.abs().max()).item()


def run_tilec(kern, a, b, error=None):
    """(milliseconds per call, relative error: error(c, a, b), default rel_err) of a tilec
    GEMM kernel on a, b. The first call (which also loads the module) is the measurement
    when it alone is over budget."""
    first, c = event_ms(lambda: kern(a, b))
    err = (error or rel_err)(c, a, b)
    del c
    return (first if first > GPU_BUDGET_MS else timed_ms(lambda: kern(a, b))), err


def sweep_gemm_configs(rows, mod):
    """{dtype: fastest config of GEMM_SWEEP on GEMM_QUICK[0]} (the default when none runs
    correctly)."""
    shape = GEMM_QUICK[0]
    flops = 2.0 * math.prod(shape)
    futs = compile_gemms(mod, [(shape, d, c) for d in GEMM_DTYPES for c in GEMM_SWEEP])
    chosen = {}
    for dtype in GEMM_DTYPES:
        a, b = gemm_inputs(shape, dtype)
        best = None
        for cfg in GEMM_SWEEP:
            what = "sweep %s %s" % (dtype, cfg_name(cfg))
            try:
                ms, err = run_tilec(futs[(shape, dtype, cfg)].result(), a, b)
            except Exception as e:  # noqa: BLE001 (a config that fails is skipped)
                rows.fail("gemm %s %dx%dx%d" % ((dtype,) + shape), what, e)
                continue
            ok = err <= SWEEP_MAX_ERR
            print("%s: %.4g TFLOP/s, err %.3g%s" % (what, flops / ms / 1e9, err,
                                                   "" if ok else " (error too large)"),
                  flush=True)
            if ok and (best is None or ms < best[0]):
                best = (ms, cfg)
        chosen[dtype] = best[1] if best else GEMM_DEFAULT
        print("gemm config for %s: %s%s" % (dtype, cfg_name(chosen[dtype]),
                                            "" if best else " (default: no config ran)"),
              flush=True)
        del a, b
    return chosen


def warm_up_gpu():
    """Runs cuBLAS GEMMs for WARM_UP_S seconds, so that the timings that follow see the
    clocks of a GPU under steady load: a GPU that has idled (compiling, say) runs its
    first hundreds of milliseconds several percent faster (docs/journal.md, 2026-12-04)."""
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    end = time.monotonic() + WARM_UP_S
    while time.monotonic() < end:
        for _ in range(20):
            a @ a
        torch.cuda.synchronize()
    del a


def interleaved_ms(fns, budget_ms=2 * GPU_BUDGET_MS):
    """Median milliseconds per call of each of fns (each run at least once already), their
    calls interleaved (in turn, the order reversed every round), each after do_bench's
    256 MB cache flush and timed by events. So every fn sees the same clocks: under load
    the H200's clock moves the time of one kernel by 10% and more within a second
    (docs/journal.md, ninth session), more than the differences being measured."""
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    one = sum(event_ms(f)[0] for f in fns)
    rounds = max(3, min(INTERLEAVED_ROUNDS, int(budget_ms / max(one, 1e-3))))
    ev = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
           for _ in range(rounds)] for _ in fns]
    for r in range(rounds):
        for j in (range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))):
            flush.zero_()
            ev[j][r][0].record()
            fns[j]()
            ev[j][r][1].record()
    torch.cuda.synchronize()
    return [statistics.median(s.elapsed_time(e) for s, e in row) for row in ev]


def race(work, rows, peer, peer_name, tilec, deadline):
    """(peer ms, tilec ms), timed interleaved (interleaved_ms). The peer is timed alone
    first, so that its number survives a tilec fault that breaks the CUDA context, and
    tilec's first call comes after that. tilec is not run past the deadline; a failing
    side is recorded in rows and yields 0."""
    peer_ms = tl_ms = 0.0
    if peer is not None:
        try:
            peer()
            peer_ms = timed_ms(peer)
        except Exception as e:  # noqa: BLE001 (one shape never stops the run)
            rows.fail(work, peer_name, e)
            peer = None
    if tilec is not None:
        try:
            if time.monotonic() > deadline:
                raise TimeoutError("skipped: the run is past --time-limit")
            event_ms(tilec)
            if peer is None:
                tl_ms = timed_ms(tilec)
            else:
                peer_ms, tl_ms = interleaved_ms([peer, tilec])
        except Exception as e:  # noqa: BLE001
            rows.fail(work, "tilec", e)
    return peer_ms, tl_ms


def gemm_row(rows, fut, shape, dtype, deadline, kind="gemm"):
    """One row: tilec's kernel fut against cuBLAS (torch.matmul) on the same inputs (race)."""
    m, n, k = shape
    work = "%s %s %dx%dx%d" % (kind, dtype, m, n, k)
    flops = 2.0 * m * n * k
    err = float("nan")
    try:
        a, b = gemm_inputs(shape, dtype)
    except Exception as e:  # noqa: BLE001
        rows.fail(work, "inputs", e)
        rows.append((work, "cuBLAS", 0.0, 0.0, "TFLOP/s", err))
        return
    tilec = None
    try:
        kern = fut.result()
        tilec = lambda: kern(a, b)  # noqa: E731
    except Exception as e:  # noqa: BLE001 (a compile error)
        rows.fail(work, "tilec", e)
    a @ b
    peer_ms, tl_ms = race(work, rows, lambda: a @ b, "cuBLAS", tilec, deadline)
    if tl_ms:
        err = rel_err(kern(a, b), a, b)
    rows.append((work, "cuBLAS", flops / tl_ms / 1e9 if tl_ms else 0.0,
                 flops / peer_ms / 1e9 if peer_ms else 0.0, "TFLOP/s", err))


def geomean_row(work, peer, done):
    """A row of the geometric means of tilec's and the peer's numbers in the rows done, over
    those both ran (the ratio of the means is the geomean of the ratios), and their largest
    error."""
    ran = [r for r in done if r[2] > 0 and r[3] > 0]
    gm = [math.exp(statistics.fmean(math.log(r[i]) for r in ran)) if ran else 0.0
          for i in (2, 3)]
    worst = max((r[5] for r in ran), default=float("nan"),
                key=lambda e: math.inf if math.isnan(e) else e)
    return (work, "%s (%d of %d shapes)" % (peer, len(ran), len(done)), gm[0], gm[1],
            "TFLOP/s", worst)


def gemm_rows(rows, quick, cfg, sweep, deadline):
    torch.backends.cuda.matmul.allow_tf32 = False  # the reference is true float32
    mod = example("gemm")
    shapes = GEMM_QUICK if quick else GEMM_FULL
    cfgs = sweep_gemm_configs(rows, mod) if sweep else {d: cfg for d in GEMM_DTYPES}
    for d in GEMM_DTYPES:
        print("gemm %s: tilec config %s (bM x bN x bK / stages / threads)"
              % (d, cfg_name(cfgs[d])), flush=True)
    futs = compile_gemms(mod, [(s, d, cfgs[d]) for d in GEMM_DTYPES for s in shapes])
    warm_up_gpu()
    for dtype in GEMM_DTYPES:
        done = []
        for shape in shapes:
            gemm_row(rows, futs[(shape, dtype, cfgs[dtype])], shape, dtype, deadline)
            done.append(rows[-1])
        rows.append(geomean_row("gemm geomean %s" % dtype, "cuBLAS", done))


def splitk_rows(rows, quick, cfg, deadline):
    """gemm_row for SPLITK_SHAPES (--quick: the first) in both GEMM dtypes."""
    torch.backends.cuda.matmul.allow_tf32 = False
    shapes = SPLITK_SHAPES[:1] if quick else SPLITK_SHAPES
    futs = compile_gemms(example("gemm"), [(s, d, cfg) for d in GEMM_DTYPES for s in shapes])
    warm_up_gpu()
    for dtype in GEMM_DTYPES:
        for shape in shapes:
            gemm_row(rows, futs[(shape, dtype, cfg)], shape, dtype, deadline,
                     kind="gemm split-k")


# ---- the mma.sync path (issue 3) against cuBLAS and Triton on the same instructions ---------
MMA_SHAPES = GEMM_FULL[:3]  # issue 3's large GEMMs
# 128x128x64 tiles (TileLang's sm80 default) in 2 stages with the shared-memory epilogue:
# two 128-thread blocks share an SM, so that one block's barrier waits do not idle it; the
# fastest measured (docs/journal.md, thirteenth session)
MMA_CONFIG = (128, 128, 64, 2, 128, 1)


@contextlib.contextmanager
def environ(**values):
    """The environment variables in values set (to strings) inside the block, restored after."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def triton_peers(rows, work, a, b):
    """[(config name, fn)] of the bench/triton_mma.py configs that compile to mma.sync and
    compute a @ b correctly."""
    import triton_mma
    peers = []
    for cfg in triton_mma.CONFIGS:
        try:
            with environ(DISABLE_MMA_V3="1"):  # sm_90: mma.sync, not wgmma
                f = triton_mma.compile(cfg, a, b)
            err = rel_err(f(a, b), a, b)
            if err > SWEEP_MAX_ERR:
                raise ValueError("relative error %.3g" % err)
            peers.append((triton_mma.name(cfg), lambda f=f: f(a, b)))
        except Exception as e:  # noqa: BLE001 (a config that fails is left out)
            rows.fail(work, "Triton %s" % triton_mma.name(cfg), e)
    return peers


def mma_row(rows, fut, shape, dtype, deadline):
    """Rows of one shape: tilec's kernel fut against cuBLAS and against Triton's fastest
    mma.sync config, cuBLAS, every Triton config and tilec timed interleaved (the fastest
    of several Triton medians: if anything, in Triton's favour). The peers are first timed
    alone, before tilec's first call: their numbers survive a tilec fault that breaks the
    CUDA context."""
    m, n, k = shape
    work = "gemm mma.sync %s %dx%dx%d" % (dtype, m, n, k)
    flops = 2.0 * m * n * k
    a, b = gemm_inputs(shape, dtype)
    a @ b
    peers = [("cuBLAS", lambda: a @ b)] + triton_peers(rows, work, a, b)
    peer_ms = [timed_ms(fn) for _, fn in peers]
    tl_ms, err = 0.0, float("nan")
    try:
        if time.monotonic() > deadline:
            raise TimeoutError("skipped: the run is past --time-limit")
        kern = fut.result()
        err = rel_err(kern(a, b), a, b)
        *peer_ms, tl_ms = interleaved_ms([fn for _, fn in peers] + [lambda: kern(a, b)])
    except Exception as e:  # noqa: BLE001
        rows.fail(work, "tilec", e)
    tl = flops / tl_ms / 1e9 if tl_ms else 0.0
    rows.append((work, "cuBLAS", tl, flops / peer_ms[0] / 1e9, "TFLOP/s", err))
    if len(peers) > 1:
        ms, name = min(zip(peer_ms[1:], (p[0] for p in peers[1:])))
        rows.append((work, "Triton mma.sync %s" % name, tl, flops / ms / 1e9, "TFLOP/s", err))
    del a, b


def mma_rows(rows, quick, deadline):
    """examples/gemm.py on the mma.sync path (compiled with the setting no_wgmma: on sm_90
    the code sm_80 gets), MMA_CONFIG, on MMA_SHAPES (--quick: the first) in both dtypes, against
    cuBLAS and Triton (mma_row); a geometric-mean row per dtype and peer."""
    torch.backends.cuda.matmul.allow_tf32 = False
    shapes = MMA_SHAPES[:1] if quick else MMA_SHAPES
    import tilec
    with tilec.settings(no_wgmma=True):  # compile_gemms returns when all are compiled
        futs = compile_gemms(example("gemm"), [(s, d, MMA_CONFIG) for d in GEMM_DTYPES
                                               for s in shapes])
    print("gemm mma.sync: tilec config %s" % cfg_name(MMA_CONFIG), flush=True)
    warm_up_gpu()
    for dtype in GEMM_DTYPES:
        first = len(rows)
        for shape in shapes:
            mma_row(rows, futs[(shape, dtype, MMA_CONFIG)], shape, dtype, deadline)
        for peer in ("cuBLAS", "Triton mma.sync"):
            done = [r for r in rows[first:] if r[1].startswith(peer)]
            if done:
                rows.append(geomean_row("gemm mma.sync geomean %s" % dtype, peer, done))


# ---- the GEMM scheduled by hand (Tier 3) against cuBLAS ------------------------------------
MANUAL_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192)]
MANUAL_CFG = dict(block_M=128, block_N=256, block_K=64, num_stages=4, async_wgmma=True)


def manual_rows(rows, quick, deadline):
    """examples/gemm_warp_specialized.py (T.ws regions, mbarriers, T.tma_copy, setmaxnreg,
    T.wgmma_gemm kept in flight), fp16, 128x256x64 tiles in 4 stages."""
    mod = example("gemm_warp_specialized")
    shapes = MANUAL_SHAPES[:1] if quick else MANUAL_SHAPES
    futs = compile_all(lambda m, n, k: mod.matmul(M=m, N=n, K=k, **MANUAL_CFG), shapes)
    warm_up_gpu()
    for shape in shapes:
        gemm_row(rows, futs[shape], shape, "float16", deadline, kind="gemm by hand")


# ---- fp8 GEMM against cuBLASLt ------------------------------------------------------------
def fp8_inputs(shape):
    m, n, k = shape
    return (torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn),
            torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn))


def fp8_rel_err(c, a, b):
    ref = a.float() @ b.float().T
    return ((c.float() - ref).abs().max() / ref.abs().max()).item()


def fp8_rows(rows, quick, deadline):
    """tilec's fp8 GEMM against torch._scaled_mm (cuBLASLt, unit scales, bfloat16 out):
    FP8_SWEEP timed on each shape (as an autotuner would), its fastest raced."""
    mod = example("gemm_fp8")
    shapes = FP8_SHAPES[:1] if quick else FP8_SHAPES

    def build(shape, cfg):
        m, n, k = shape
        return mod.matmul(M=m, N=n, K=k, **cfg_args(cfg))

    futs = compile_all(build, [(shape, c) for shape in shapes for c in FP8_SWEEP])
    warm_up_gpu()
    for shape in shapes:
        m, n, k = shape
        work = "gemm fp8 e4m3 %dx%dx%d" % shape
        flops = 2.0 * m * n * k
        a, b = fp8_inputs(shape)
        one = torch.ones((), device="cuda")
        lt = lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,  # noqa: E731
                                      out_dtype=torch.bfloat16)
        peer_first = 0.0  # before any tilec kernel: it survives a fault that breaks the context
        try:
            lt()
            peer_first = timed_ms(lt)
        except Exception as ex:  # noqa: BLE001
            rows.fail(work, "cuBLASLt", ex)
            lt = None
        best, err, chosen = 0.0, float("nan"), None
        for cfg in FP8_SWEEP:  # the sweep: one median each
            try:
                if time.monotonic() > deadline:
                    raise TimeoutError("skipped: the run is past --time-limit")
                ms, e = run_tilec(futs[(shape, cfg)].result(), a, b, fp8_rel_err)
            except Exception as ex:  # noqa: BLE001
                rows.fail(work, "tilec %s" % cfg_name(cfg), ex)
                continue
            print("%s %s: %.4g TFLOP/s, err %.3g" % (work, cfg_name(cfg), flops / ms / 1e9, e),
                  flush=True)
            if e <= SWEEP_MAX_ERR and flops / ms / 1e9 > best:
                best, err, chosen = flops / ms / 1e9, e, cfg
        if chosen:
            print("%s: tilec config %s" % (work, cfg_name(chosen)), flush=True)
        kern = futs[(shape, chosen)].result() if chosen else None
        peer_ms, tl_ms = race(work, rows, lt, "cuBLASLt",
                              (lambda: kern(a, b)) if kern else None, deadline)
        peer_ms = peer_ms or peer_first  # the sweep's numbers only when the race failed
        tl_ms = tl_ms or (flops / best / 1e9 if best else 0.0)
        rows.append((work, "cuBLASLt", flops / tl_ms / 1e9 if tl_ms else 0.0,
                     flops / peer_ms / 1e9 if peer_ms else 0.0, "TFLOP/s", err))
        del a, b


# ---- flash attention against torch SDPA ------------------------------------------------------
# (batch, seq_len, heads, dim), 16k tokens as ../shared/PERF.md's; fp16 (the example's type)
ATTN_SHAPES = [(4, 4096, 16, 128), (1, 16384, 16, 128), (4, 4096, 32, 64)]
# Tiles per head dim: TileLang's Hopper choice, 128 x 128 over two consumer warp groups
# and a TMA producer warp group (docs/journal.md, ninth session: at dim 128 480-485 TFLOP/s
# against 425-432 for 128 x 64; at dim 64 340-343, against 306 for 128 x 64 and 353-358
# for 128 x 128 on cp.async, which the compiler chose before it admitted these tiles).
# At dim 64 the example's overlap (T.Pipelined order/stage/group) gains 1.8%, at dim 128
# it loses 2% (tenth session: 345.5 against 339.3, 468.3 against 477.0).
ATTN_CFGS = {128: dict(block_M=128, block_N=128, num_stages=2, threads=256),
             64: dict(block_M=128, block_N=128, num_stages=2, threads=256, overlap=True)}


def sdpa_peer(q, k, v, causal):
    """(name, fn) of the fastest torch SDPA backend that runs (cuDNN, then flash), on BSHD
    tensors seen as BHSD."""
    from torch.nn.attention import sdpa_kernel, SDPBackend
    import torch.nn.functional as F
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    best = None
    for name, be in (("cuDNN SDPA", SDPBackend.CUDNN_ATTENTION),
                     ("flash SDPA", SDPBackend.FLASH_ATTENTION)):
        def fn(be=be):
            with sdpa_kernel([be]):
                return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
        try:
            fn()
            ms = timed_ms(fn)
        except Exception:  # noqa: BLE001 (a backend this build lacks)
            continue
        if best is None or ms < best[2]:
            best = (name, fn, ms)
    if best is None:
        raise RuntimeError("no torch SDPA backend ran")
    return best[0], best[1]


def attention_rows(rows, quick, deadline, overlap=None, pingpong=False):
    """examples/flash_attention.py (ATTN_CFGS; overlap= True or False overrides the
    schedule choice at every head dim; pingpong: the setting pingpong, the warp-group
    ping-pong) against torch SDPA on the same fp16 inputs, full and causal; error relative
    to the largest output of SDPA."""
    import tilec
    mod = example("flash_attention")
    shapes = ATTN_SHAPES[:1] if quick else ATTN_SHAPES
    jobs = [(sh, c) for sh in shapes for c in (False, True)]

    def build(sh, causal):
        b, n, h, d = sh
        cfg = dict(ATTN_CFGS[d], **({} if overlap is None else {"overlap": overlap}))
        return mod.flashattn(batch=b, seq_len=n, heads=h, dim=d, is_causal=causal, **cfg)

    with tilec.settings(**({"pingpong": True} if pingpong else {})):
        futs = compile_all(build, jobs)
    warm_up_gpu()
    for (b, n, h, d), causal in jobs:
        work = "attention fp16 b%d s%d h%d d%d %s%s%s" % (
            b, n, h, d, "causal" if causal else "full",
            "" if overlap is None else " overlap" if overlap else " no-overlap",
            " pingpong" if pingpong else "")
        flops = 4.0 * b * h * n * n * d / (2 if causal else 1)
        try:
            q, k, v = (torch.randn(b, n, h, d, device="cuda", dtype=torch.float16)
                       for _ in range(3))
            peer_name, peer = sdpa_peer(q, k, v, causal)
            ref = peer().transpose(1, 2).float()
        except Exception as e:  # noqa: BLE001
            rows.fail(work, "peer", e)
            rows.append((work, "torch SDPA", 0.0, 0.0, "TFLOP/s", float("nan")))
            continue
        tilec, err = None, float("nan")
        try:
            kern = futs[((b, n, h, d), causal)].result()
            tilec = lambda: kern(q, k, v)  # noqa: E731
        except Exception as e:  # noqa: BLE001 (a compile error)
            rows.fail(work, "tilec", e)
        peer_ms, tl_ms = race(work, rows, peer, peer_name, tilec, deadline)
        if tl_ms:
            err = ((kern(q, k, v).float() - ref).abs().max() / ref.abs().max()).item()
            if not math.isfinite(err):
                rows.fail(work, "tilec", RuntimeError("NaN or inf in the output"))
        rows.append((work, peer_name, flops / tl_ms / 1e9 if tl_ms else 0.0,
                     flops / peer_ms / 1e9 if peer_ms else 0.0, "TFLOP/s", err))
        del q, k, v, ref


# ---- row-wise and copy -------------------------------------------------------------------
ROWWISE_THREADS = (128, 256, 512)  # block sizes tried; the fastest correct one is reported


def fastest_rowwise(make, x, check, byts):
    """(GB/s, max error, threads) of the fastest kernel make(threads) over ROWWISE_THREADS
    whose output passes check (one block per row, as TileLang's autotuner would pick)."""
    best, errs = (0.0, float("nan"), 0), []
    for th in ROWWISE_THREADS:
        k = make(th)
        err = check(k(x))
        errs.append("%d threads: %.3g" % (th, err))
        if not err <= 1e-2:
            continue
        gbs = byts / bench(lambda: k(x), 400) / 1e6
        if gbs > best[0]:
            best = (gbs, err, th)
    if not best[2]:
        raise RuntimeError("no block size gives a correct result (max errors %s)" % ", ".join(errs))
    return best


def rowwise_rows(rows, quick):
    m, n = (8192, 4096) if quick else (16384, 8192)
    x = torch.randn(m, n, device="cuda", dtype=torch.float16)
    byts = 2.0 * x.numel() * x.element_size()
    ref = torch.softmax(x.float(), -1)
    sm = example("softmax").softmax
    gbs, err, th = fastest_rowwise(lambda th: sm(M=m, N=n, block_M=1, threads=th), x,
                                   lambda y: (y.float() - ref).abs().max().item(), byts)
    t_peer = bench(lambda: torch.softmax(x, -1), 400)
    rows.append(("softmax fp16 %dx%d (%d threads)" % (m, n, th), "torch.softmax", gbs,
                 byts / t_peer / 1e6, "GB/s", err))
    xf = x.float()
    byts = 2.0 * xf.numel() * xf.element_size()
    ref = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
    rn = example("rms_norm").rms_norm
    gbs, err, th = fastest_rowwise(lambda th: rn(M=m, N=n, blk_m=1, threads=th), xf,
                                   lambda y: (y - ref).abs().max().item(), byts)
    t_peer = bench(lambda: xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6), 400)
    rows.append(("rmsnorm fp32 %dx%d (%d threads)" % (m, n, th), "torch (eager)", gbs,
                 byts / t_peer / 1e6, "GB/s", err))


# ---- compile time ----------------------------------------------------------------------------
# Kernels whose cold compile (source to a loaded cubin) ../shared/PERF.md wants under
# COMPILE_TARGET_S: issue 4's GEMM and the attention benchmark's flash attention, each with
# the size parameter that compile_rows varies and its step (a tile).
COMPILE_KERNELS = [
    ("gemm", "matmul", dict(M=4096, N=4096, K=4096, block_M=128, block_N=256, block_K=64,
                            num_stages=4, threads=256, shared_epilogue=True), "M", 128),
    ("flash_attention", "flashattn", dict(batch=4, heads=16, seq_len=4096, dim=128, block_M=128,
                                          block_N=128, num_stages=2, threads=256), "seq_len", 128),
]
COMPILE_TARGET_S = 0.5


def compile_rows(rows):
    """Seconds of a cold compile of each of COMPILE_KERNELS, the median of three after one
    that loads NVRTC, as compiles per second against the target's 1 / 0.5 s. Cold: no
    tilec disk cache, and a source no cache has seen (the size parameter moved by a random
    number of tiles each time): the CUDA driver's compute cache also keeps what NVRTC
    built (measured: 0.07 s for a source compiled before in another process, 1.1 s for a
    new one; docs/journal.md, thirteenth session)."""
    import random
    from tilec.jit import compile_file
    for name, factory, args, size, step in COMPILE_KERNELS:
        work = "compile cold %s (%s)" % (name, " ".join("%s=%s" % kv for kv in args.items()))
        path = os.path.join(ROOT, "examples", name + ".py")
        try:
            times = []
            for _ in range(4):
                defines = {k: repr(v) for k, v in args.items()}
                # a few hundred tiles more: the sizes stay in 32-bit index arithmetic
                defines[size] = repr(args[size] + step * random.randrange(1, 1000))
                t0 = time.perf_counter()
                compile_file(path, factory, defines, target="cuda", use_cache=False)
                times.append(time.perf_counter() - t0)
            t = statistics.median(times[1:])
            print("%s: %.3f s" % (work, t), flush=True)
            rows.append((work, "PERF.md target", 1.0 / t, 1.0 / COMPILE_TARGET_S, "1/s",
                         float("nan")))
        except Exception as e:  # noqa: BLE001
            rows.fail(work, "tilec", e)


def copy_row(rows):
    x = torch.empty(2 ** 30 // 2, dtype=torch.float16, device="cuda").normal_()
    y = torch.empty_like(x)
    t = bench(lambda: y.copy_(x), 400)
    rows.append(("device copy 1 GiB", "-", 0.0, 2.0 * x.numel() * 2 / t / 1e6, "GB/s", 0.0))


CSV_HEADER = ["date", "device", "work", "peer", "tilec", "peer_value", "unit", "ratio",
              "max_err"]


def append_csv(path, date, dev, rows):
    """Adds rows (work, peer, tilec, peer value, unit, max err) to the CSV at path, which
    keeps every earlier run (the header only when the file is new or empty)."""
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        if new:
            w.writerow(CSV_HEADER)
        for r in rows:
            ratio = r[2] / r[3] if r[3] and r[2] else 0.0
            w.writerow([date, dev, r[0], r[1], "%.4g" % r[2], "%.4g" % r[3], r[4],
                        "%.4f" % ratio, "%.3g" % r[5]])


def main():
    start = time.monotonic()
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller sizes; GEMM 4096^3 only")
    ap.add_argument("--only", action="append",
                    choices=("gemm", "mma", "splitk", "fp8", "rowwise", "copy", "manual",
                             "attention", "compile"),
                    help="run only this group (repeatable; default: all)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--gemm-config", type=gemm_config, default=None,
                   metavar="bM,bN,bK,STAGES,THREADS[,1]",
                   help="tilec GEMM config, a sixth field 1 for the shared-memory epilogue "
                   "(default %s, on sm_90 %s)" % (",".join(map(str, GEMM_DEFAULT)),
                                                  ",".join(map(str, GEMM_DEFAULT_SM90))))
    g.add_argument("--gemm-configs-sweep", action="store_true",
                   help="time %s on %s per dtype first and keep the fastest"
                   % (", ".join(map(cfg_name, GEMM_SWEEP)), "x".join(map(str, GEMM_QUICK[0]))))
    ap.add_argument("--time-limit", type=float, default=330.0, metavar="S",
                    help="seconds after which the remaining tilec GEMMs are skipped (recorded "
                    "as 0; cuBLAS is still measured); default %(default)s")
    ap.add_argument("--attention-overlap", choices=("on", "off"), default=None,
                    help="flash attention with (on) or without (off) the example's "
                    "T.Pipelined schedule at every head dim (default: ATTN_CFGS's choice)")
    ap.add_argument("--attention-pingpong", action="store_true",
                    help="flash attention compiled with the setting pingpong (the warp-group "
                    "ping-pong, experimental)")
    ap.add_argument("--csv", default=os.path.join(ROOT, "bench", "results.csv"),
                    help="CSV the rows are appended to (default %(default)s)")
    args = ap.parse_args()
    only = set(args.only or ("gemm", "mma", "splitk", "fp8", "rowwise", "copy", "manual",
                             "attention", "compile"))
    load_gpu_modules()
    torch.manual_seed(0)
    dev = torch.cuda.get_device_name(0)
    rows = Rows()
    if "compile" in only:
        compile_rows(rows)
    if "copy" in only:
        copy_row(rows)
    if "rowwise" in only:
        rowwise_rows(rows, args.quick)
    cfg = args.gemm_config or (GEMM_DEFAULT_SM90 if torch.cuda.get_device_capability() >= (9, 0)
                               else GEMM_DEFAULT)
    if "gemm" in only:
        gemm_rows(rows, args.quick, cfg, args.gemm_configs_sweep,
                  start + args.time_limit)
    if "mma" in only:
        mma_rows(rows, args.quick, start + args.time_limit)
    if "splitk" in only:
        splitk_rows(rows, args.quick, cfg, start + args.time_limit)
    if "fp8" in only:
        fp8_rows(rows, args.quick, start + args.time_limit)
    if "manual" in only:
        manual_rows(rows, args.quick, start + args.time_limit)
    if "attention" in only:
        attention_rows(rows, args.quick, start + args.time_limit,
                       None if args.attention_overlap is None else args.attention_overlap == "on",
                       args.attention_pingpong)
    date = datetime.date.today().isoformat()
    append_csv(args.csv, date, dev, rows)
    print("%s, %s (%.0f s)" % (date, dev, time.monotonic() - start))
    print("| work | peer | tilec | peer | unit | ratio | max err |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = r[2] / r[3] if r[3] and r[2] else 0.0
        print("| %s | %s | %.4g | %.4g | %s | %.4f | %.3g |" % (r[0], r[1], r[2], r[3], r[4],
                                                              ratio, r[5]))
    for work, msg in rows.failures:
        print("failed: %s: %s" % (work, msg))


if __name__ == "__main__":
    main()
