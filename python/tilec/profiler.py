"""Profiler: inputs for a kernel, correctness against a reference, timing.

    profiler = kernel.get_profiler(tensor_supply_type=tilec.TensorSupplyType.Randn)
    profiler.assert_allclose(ref_program, rtol=1e-2, atol=1e-2)
    ms = profiler.do_bench(warmup=25, rep=100)          # median milliseconds
    ms = profiler.do_bench(backend="cudagraph", quantiles=[0.5, 0.9])   # CUDA: [p50, p90]

Inputs are numpy arrays, or torch tensors when torch is importable (backend="auto"),
on the kernel's device (torch CUDA tensors for the CUDA target). They are generated
from a seeded numpy generator, one draw per input parameter in order, so they are the
same on every machine for the same seed."""
import enum
import statistics
import time

import numpy as np

from . import _tensor
from ._lib import TilecError


class TensorSupplyType(enum.Enum):
    """How input tensors are filled (TileLang's names)."""
    Integer = 1  # integers in [-2, 3) ([0, 3) for unsigned types)
    Uniform = 2  # uniform in [-1, 1)
    Normal = 3   # normal, mean -1, deviation 1 (TileLang's normal_(-1.0, 1.0))
    Randn = 4    # normal, mean 0, deviation 1
    Zero = 5
    One = 6
    Auto = 7     # floats uniform in [-1, 1), signed ints [-8, 8), unsigned [0, 8), bools


def _draw(rng, kind, shape, dtype):
    """float64 or int64 values of one input, before the cast to dtype."""
    is_float = dtype.startswith(("float", "bfloat"))
    lo = 0 if dtype.startswith("uint") or dtype == "bool" else None
    if kind in (TensorSupplyType.Zero, TensorSupplyType.One):
        return np.full(shape, 0 if kind is TensorSupplyType.Zero else 1, np.int64)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape)
    if kind is TensorSupplyType.Integer:
        return rng.integers(0 if lo == 0 else -2, 3, size=shape)
    if not is_float:
        return rng.integers(0 if lo == 0 else -8, 8, size=shape)
    if kind is TensorSupplyType.Normal:
        return rng.normal(-1.0, 1.0, size=shape)
    if kind is TensorSupplyType.Randn:
        return rng.standard_normal(size=shape)
    return rng.uniform(-1.0, 1.0, size=shape)


def _draw_torch(gen, kind, shape, dtype, device):
    """_draw's distributions drawn by torch on the device (CUDA inputs: no host draw, cast
    and copy of every element), as a tensor of dtype."""
    import torch
    tdt = _tensor.torch_dtype(dtype)
    is_float = dtype.startswith(("float", "bfloat"))
    lo = 0 if dtype.startswith("uint") or dtype == "bool" else None
    if kind in (TensorSupplyType.Zero, TensorSupplyType.One):
        fill = torch.zeros if kind is TensorSupplyType.Zero else torch.ones
        return fill(shape, device=device).to(tdt)
    if dtype == "bool" or kind is TensorSupplyType.Integer or not is_float:
        low, high = ((0, 2) if dtype == "bool" else
                     (0 if lo == 0 else -2, 3) if kind is TensorSupplyType.Integer else
                     (0 if lo == 0 else -8, 8))
        vals = torch.randint(low, high, shape, generator=gen, device=device)
        return vals.to(torch.float32 if is_float else torch.int64).to(tdt)
    vals = torch.empty(shape, dtype=torch.float32, device=device)
    if kind is TensorSupplyType.Normal:
        vals.normal_(-1.0, 1.0, generator=gen)
    elif kind is TensorSupplyType.Randn:
        vals.normal_(0.0, 1.0, generator=gen)
    else:
        vals.uniform_(-1.0, 1.0, generator=gen)
    return vals.to(tdt)


class Profiler:
    """See the module docstring. backend: "auto" (torch when importable, else numpy),
    "numpy" or "torch". symbols: sizes of symbolic dimensions ({"M": 1000}) for the
    generated inputs. seed: of the input generator."""

    def __init__(self, kernel, tensor_supply_type=None, seed=0, backend="auto", symbols=None):
        self.kernel = kernel
        self.supply_type = _supply(tensor_supply_type)
        self.seed = seed
        self.symbols = dict(symbols or {})
        self.backend = _backend(backend, kernel.target)
        self._inputs = None
        self._l2 = None

    @property
    def func(self):
        """The kernel itself (TileLang's Profiler.func): profiler.func(*tensors)."""
        return self.kernel

    # ---- inputs ------------------------------------------------------------------------
    def _shape(self, p):
        shape = []
        for d in p.shape:
            if isinstance(d, str):
                if d not in self.symbols:
                    raise TilecError("parameter '%s' has the symbolic size %s: give it with "
                                     "get_profiler(symbols={'%s': ...})" % (p.name, d, d))
                d = self.symbols[d]
            shape.append(int(d))
        return tuple(shape)

    def supply_inputs(self, seed=None):
        """New inputs, one per input parameter (numbers for scalar parameters). CUDA
        tensors are drawn on the GPU by torch, others by NumPy (the same distributions;
        the values of a seed differ between the two)."""
        seed = self.seed if seed is None else seed
        rng = np.random.default_rng(seed)
        gen = None
        if self.backend == "torch" and self.kernel.target == "cuda":
            import torch
            gen = torch.Generator(device="cuda").manual_seed(seed)
        out = []
        for p in self.kernel.input_params:
            if gen is not None and not p.is_scalar:
                out.append(_draw_torch(gen, self.supply_type, self._shape(p), p.dtype, "cuda"))
                continue
            vals = _draw(rng, self.supply_type, self._shape(p), p.dtype)
            if p.is_scalar:
                out.append(vals.item() if p.dtype.startswith(("float", "bfloat"))
                           else int(vals.item()))
            else:
                out.append(self._convert(vals, p.dtype))
        return out

    def _convert(self, vals, dtype):
        if self.backend == "numpy":
            return np.ascontiguousarray(vals.astype(_tensor.numpy_dtype(dtype)))
        import torch
        src = vals.astype(np.float32 if vals.dtype.kind == "f" else np.int64)
        dev = "cuda" if self.kernel.target == "cuda" else "cpu"
        return torch.from_numpy(src).to(device=dev, dtype=_tensor.torch_dtype(dtype))

    @property
    def inputs(self):
        """The inputs this profiler uses (made on first use)."""
        if self._inputs is None:
            self._inputs = self.supply_inputs()
        return self._inputs

    def run_once(self, func=None, input_tensors=None):
        """Runs the kernel (or func) once on the inputs; returns the outputs as a list."""
        ins = list(input_tensors) if input_tensors is not None else self.inputs
        res = (func or self.kernel)(*ins)
        return list(res) if isinstance(res, (list, tuple)) else [res]

    # ---- correctness -------------------------------------------------------------------
    def assert_allclose(self, reference_program, input_tensors=None, atol=1e-2, rtol=1e-2,
                        max_mismatched_ratio=0.01):
        """Runs the kernel and reference_program(*inputs) (a Python function returning the
        outputs, one or a tuple/list) on the same inputs and compares each output:
        |got - ref| <= atol + rtol * |ref| must hold for all but max_mismatched_ratio of
        the elements. AssertionError names the output and the first bad element."""
        if not self.kernel.out_idx:
            raise TilecError("kernel '%s' has no outputs (no out_idx) to compare"
                             % self.kernel.name)
        ins = list(input_tensors) if input_tensors is not None else self.inputs
        got = self.run_once(input_tensors=ins)
        ref = reference_program(*ins)
        refs = list(ref) if isinstance(ref, (list, tuple)) else [ref]
        if len(refs) != len(got):
            raise AssertionError("the reference returned %d outputs but kernel '%s' has %d"
                                 % (len(refs), self.kernel.name, len(got)))
        for p, g, r in zip(self.kernel.output_params, got, refs):
            assert_close(g, r, rtol=rtol, atol=atol, max_mismatched_ratio=max_mismatched_ratio,
                         name="output '%s'" % p.name)

    def manual_assert_close(self, reference_program, input_tensors=None,
                            manual_check_prog=None):
        """Runs the kernel and reference_program on the same inputs and hands both output
        lists to manual_check_prog(outputs, reference_outputs), which checks them."""
        ins = list(input_tensors) if input_tensors is not None else self.inputs
        got = self.run_once(input_tensors=ins)
        ref = reference_program(*ins)
        manual_check_prog(got, list(ref) if isinstance(ref, (list, tuple)) else [ref])

    def assert_consistent(self, repeat=10):
        """Runs the kernel repeat more times on the same inputs: every run's outputs must
        equal the first's exactly (a race or an uninitialized read shows up here)."""
        first = [_tensor.to_numpy(o).copy() for o in self.run_once()]
        for r in range(repeat):
            for p, a, b in zip(self.kernel.output_params, first, self.run_once()):
                b = _tensor.to_numpy(b)
                if not np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
                    raise AssertionError("output '%s' differs between runs 1 and %d"
                                         % (p.name, r + 2))

    # ---- timing --------------------------------------------------------------------------
    def do_bench(self, func=None, warmup=25, rep=100, n_warmup=0, n_repeat=0,
                 input_tensors=None, return_mode=None, flush_l2=True, backend="event",
                 quantiles=None, dynamic_symbolic_constraints=None, early_stop_baseline=None,
                 **ignored):
        """Milliseconds per run of the kernel (func=None; arguments prepared once) or of
        func(*inputs): warm up for about `warmup` ms, then time runs for about `rep` ms
        (n_warmup / n_repeat > 0 fix the counts). return_mode: "median" (tilec's
        default), "mean" (TileLang's, the default of kernels made through the tilelang
        layer), "min", "max"; quantiles=[0.5, 0.9] returns those quantiles instead (one
        number for one quantile). backend (CUDA): "event" (CUDA events around each run,
        the L2 cache flushed before each), "cudagraph" (n_repeat runs captured in one CUDA
        graph, replayed 10 times), "cupti" (the kernels' own device time, from torch's
        profiler: launch overhead excluded). The C target times with time.perf_counter
        whatever the backend. dynamic_symbolic_constraints ({"M": 1000}): sizes of
        symbolic dimensions for inputs made for this call. early_stop_baseline (ms): when
        the first estimate (5 runs) is slower than this, that estimate is returned
        without the full timing (the autotuner's early_stop). TileLang's `device` keyword
        is ignored."""
        if input_tensors is None and dynamic_symbolic_constraints:
            saved = self.symbols
            self.symbols = dict(saved, **dynamic_symbolic_constraints)
            try:
                input_tensors = self.supply_inputs()
            finally:
                self.symbols = saved
        ins = list(input_tensors) if input_tensors is not None else self.inputs
        if func is not None:
            fn = lambda: func(*ins)  # noqa: E731
        else:  # a graph captures on a side stream: launch on the stream current then
            fn = self._prepared(ins, fixed_stream=backend != "cudagraph")
        if return_mode is None:
            return_mode = "mean" if getattr(self.kernel, "tilelang_defaults", False) else "median"
        cuda = self.kernel.target == "cuda" and self.backend == "torch"
        if cuda and flush_l2 and self._l2 is None:
            import torch
            self._l2 = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
        times = bench_times(fn, warmup, rep, n_warmup, n_repeat, backend, cuda,
                            self._l2 if flush_l2 else None, early_stop_baseline)
        return summarize(times, return_mode, quantiles)

    def _prepared(self, ins, fixed_stream=True):
        outs = self.run_once(input_tensors=ins)
        args = list(ins)
        for j, i in enumerate(self.kernel.out_idx):
            args.insert(i, outs[j])
        if fixed_stream:
            return self.kernel.prepare(*args)
        return lambda: self.kernel.launch(*args)


# ---- timing backends ------------------------------------------------------------------------
BACKENDS = ("event", "cudagraph", "cupti")
_CACHE_FLUSH = "tilec::cache_flush"


def bench_times(fn, warmup, rep, n_warmup, n_repeat, backend, cuda, flush=None,
                early_stop_baseline=None):
    """Per-run milliseconds of fn() (see Profiler.do_bench). cuda: fn queues work on
    torch's current CUDA stream (timed on the device); else the CPU clock times it.
    flush: a CUDA tensor zeroed before each timed run (the L2 flush), or None.
    early_stop_baseline: [estimate] alone when the first estimate exceeds it."""
    if backend not in BACKENDS:
        raise TilecError("backend must be one of %s, not %r" % (", ".join(BACKENDS), backend))
    if not cuda:
        return _times_cpu(fn, warmup, rep, n_warmup, n_repeat, early_stop_baseline)
    import torch
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        if flush is not None:
            flush.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    est = max(start.elapsed_time(end) / 5, 1e-4)
    if early_stop_baseline is not None and est > early_stop_baseline:
        return [est]
    nw = n_warmup or max(1, int(warmup / est))
    nr = n_repeat or max(1, min(int(rep / est), 100000))
    for _ in range(nw):
        fn()
    timer = {"event": _times_events, "cudagraph": _times_graph, "cupti": _times_cupti}[backend]
    return timer(torch, fn, nr, flush)


def _times_events(torch, fn, nr, flush):
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(nr)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(nr)]
    for i in range(nr):
        if flush is not None:
            flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def _times_graph(torch, fn, nr, flush, replays=10):
    """nr calls captured in one graph (on a side stream, as capture requires), replayed
    `replays` times; the L2 flush runs before each replay, outside the graph."""
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            for _ in range(nr):
                fn()
        torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(replays)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(replays)]
        for i in range(replays):
            if flush is not None:
                flush.zero_()
            starts[i].record()
            graph.replay()
            ends[i].record()
        torch.cuda.synchronize()
    return [s.elapsed_time(e) / nr for s, e in zip(starts, ends)]


def _times_cupti(torch, fn, nr, flush):
    """The device time of the kernels fn launches, per call, from torch's profiler
    (CUPTI): every CUDA activity of the second round of nr calls except the annotated L2
    flushes. One number (the mean): the profiler reports totals."""
    prof = torch.profiler
    sched = prof.schedule(wait=1, warmup=0, active=1, repeat=1)
    acts = [prof.ProfilerActivity.CPU, prof.ProfilerActivity.CUDA]
    with prof.profile(activities=acts, schedule=sched) as p:
        for _ in range(2):
            for _ in range(nr):
                if flush is not None:
                    with prof.record_function(_CACHE_FLUSH):
                        flush.zero_()
                fn()
            p.step()
    total = flushed = 0.0
    for ev in p.events():
        if getattr(getattr(ev, "device_type", None), "name", "") != "CUDA":
            continue
        t = getattr(ev, "self_device_time_total", None)
        t = ev.self_cuda_time_total if t is None else t
        if not getattr(ev, "is_user_annotation", False):
            total += t
        elif ev.key == _CACHE_FLUSH:
            flushed += t
    return [(total - flushed) / nr * 1e-3]


def summarize(times, return_mode="median", quantiles=None):
    """One number (return_mode) or the quantiles (a list; one number for one) of times,
    linearly interpolated as torch.quantile does."""
    if quantiles is not None:
        qs = [float(q) for q in quantiles]
        if not qs or any(not 0.0 <= q <= 1.0 for q in qs):
            raise TilecError("quantiles must be numbers in [0, 1], not %r" % (quantiles,))
        vals = [float(v) for v in np.quantile(np.asarray(times, np.float64), qs)]
        return vals[0] if len(vals) == 1 else vals
    return _reduce(times, return_mode)


def _times_cpu(fn, warmup, rep, n_warmup, n_repeat, early_stop_baseline=None):
    clock = time.perf_counter
    t0 = clock()
    fn()
    first = (clock() - t0) * 1e3
    k = 1 if first > 10 else 5
    t0 = clock()
    for _ in range(k):
        fn()
    est = max((clock() - t0) * 1e3 / k, 1e-5)
    if early_stop_baseline is not None and est > early_stop_baseline:
        return [est]
    nw = n_warmup or max(1, int(warmup / est))
    nr = n_repeat or max(1, min(int(rep / est), 1000000))
    for _ in range(nw):
        fn()
    times = []
    for _ in range(nr):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return [t * 1e3 for t in times]


def _reduce(times, mode):
    fns = {"median": statistics.median, "mean": statistics.fmean, "min": min, "max": max}
    if mode not in fns:
        raise TilecError("return_mode must be one of %s, not %r" % (", ".join(fns), mode))
    return fns[mode](times)


def _supply(kind):
    if kind is None:
        return TensorSupplyType.Auto
    if isinstance(kind, TensorSupplyType):
        return kind
    name = getattr(kind, "name", kind)  # another enum with TileLang's names
    try:
        return TensorSupplyType[str(name)]
    except KeyError:
        raise TilecError("unknown tensor_supply_type %r (valid: %s)" % (
            kind, ", ".join(t.name for t in TensorSupplyType))) from None


def _backend(backend, target):
    if backend not in ("auto", "numpy", "torch"):
        raise TilecError("backend must be 'auto', 'numpy' or 'torch', not %r" % backend)
    if backend == "auto":
        try:
            import torch  # noqa: F401
            backend = "torch"
        except ImportError:
            backend = "numpy"
    if backend == "numpy" and target == "cuda":
        raise TilecError("the cuda target needs device tensors: install torch (the profiler "
                         "makes torch CUDA tensors)")
    return backend


# ---- comparing ------------------------------------------------------------------------------
def assert_close(actual, expected, rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.0,
                 name="output"):
    """Compares two arrays (numpy or torch, any device): same shape, and
    |actual - expected| <= atol + rtol * |expected| for all but max_mismatched_ratio of the
    elements (NaN matches only NaN). Raises AssertionError with the first bad element."""
    a = _tensor.to_numpy(actual)
    e = _tensor.to_numpy(expected)
    if a.shape != e.shape:
        raise AssertionError("%s: shape %s, but the reference has shape %s"
                             % (name, a.shape, e.shape))
    a64 = a.astype(np.float64)
    e64 = e.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.abs(a64 - e64) <= atol + rtol * np.abs(e64)
        ok |= (a64 == e64) | (np.isnan(a64) & np.isnan(e64))
    bad = int(a.size - np.count_nonzero(ok))
    if a.size == 0 or bad <= max_mismatched_ratio * a.size:
        return
    first = tuple(int(i) for i in np.argwhere(~ok)[0])
    with np.errstate(invalid="ignore"):
        err = np.nanmax(np.abs(a64 - e64)) if a.size else 0.0
    raise AssertionError(
        "%s: %d of %d elements (%.2f%%, allowed %.2f%%) differ by more than atol=%g + "
        "rtol=%g*|ref|; first at %s: got %r, reference %r; max abs error %.4g"
        % (name, bad, a.size, 100.0 * bad / a.size, 100.0 * max_mismatched_ratio, atol, rtol,
           list(first), a64[first].item(), e64[first].item(), err))


def do_bench(fn, warmup=25, rep=100, n_warmup=0, n_repeat=0, return_mode="median",
             backend="event", quantiles=None, flush_l2=True):
    """Milliseconds per call of fn() (a function of no arguments). When torch has CUDA in
    use (initialized), fn is timed on the device with `backend` ("event", "cudagraph",
    "cupti"; see Profiler.do_bench), the L2 cache flushed before each run; otherwise on
    the CPU clock, each call followed by a synchronize when torch's CUDA is initialized."""
    import sys
    torch = sys.modules.get("torch")
    cuda = bool(torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized())
    flush = None
    if cuda and flush_l2:
        flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    times = bench_times(fn, warmup, rep, n_warmup, n_repeat, backend, cuda, flush)
    return summarize(times, return_mode, quantiles)
