"""@tilec.autotune: pick the fastest configuration of a kernel factory.

    @tilec.autotune(configs=[{"block_M": 64, "block_N": 64}, {"block_M": 128, ...}],
                    warmup=25, rep=100)
    @tilec.jit(out_idx=[-1])
    def matmul(M, N, K, block_M=64, block_N=64): ...

    kernel = matmul(1024, 1024, 1024)   # tunes block_M/block_N; kernel.config is the best

configs: a list of dicts of factory arguments, or a function called with the call's
arguments that returns one. Every config is compiled (in parallel threads: libtilec's
compiles are thread-safe and ctypes releases the GIL), those that fail to compile or to
run (too much shared memory, ...) are skipped with a one-line message, the rest are
timed with the Profiler on one set of generated inputs (and checked against ref_prog
when given), and the fastest wins. The result is cached as JSON in
<tilec cache dir>/autotune/, keyed by the source file's hash, the factory's name, the
arguments that are not tuned, the configs, the input shapes and dtypes, the target, the
device's name and the tilec version; the next call with the same key compiles only the
cached config. A call that gives a tuned argument explicitly skips tuning."""
import concurrent.futures
import hashlib
import inspect
import json
import os
import platform
import sys
import tempfile
import threading
from pathlib import Path

from .jit import JITFunction, cache_dir, info, literal, normalize_target
from ._lib import TilecError
from .profiler import Profiler


class AutotuneResult:
    """What a tuning produced: config (dict), latency (ms), kernel, from_cache, results
    (list of (config, latency ms or None, message)), cache_path."""

    def __init__(self, config, latency, kernel, from_cache, results, cache_path):
        self.config = config
        self.latency = latency
        self.kernel = kernel
        self.from_cache = from_cache
        self.results = results
        self.cache_path = cache_path


def autotune(configs=None, warmup=25, rep=100, timeout=None, supply_type=None, ref_prog=None,
             rtol=1e-2, atol=1e-2, skip_check=False, max_mismatched_ratio=0.01, cache=True,
             max_workers=None, verbose=True, backend="event", early_stop=False,
             early_stop_factor=2.0, **ignored):
    """Decorator over a @tilec.jit factory (or a plain factory). See the module docstring.
    warmup, rep: do_bench's budgets in ms. supply_type: a TensorSupplyType for the
    inputs. ref_prog: a reference (inputs -> outputs) each candidate must match unless
    skip_check. backend: do_bench's timing backend ("event", "cudagraph", "cupti").
    cache: read and write the on-disk result. verbose: progress and skip
    messages on stderr. early_stop: a config whose first estimate (5 runs) is slower
    than early_stop_factor times the best so far keeps that estimate, untimed further.
    timeout and TileLang's other options are accepted and ignored."""
    if configs is None:
        raise TilecError("autotune needs configs: a list of dicts of factory arguments")
    check_early_stop(early_stop, early_stop_factor)

    def wrap(fn):
        return AutotunedFunction(fn, configs, dict(
            warmup=warmup, rep=rep, supply_type=supply_type, ref_prog=ref_prog, rtol=rtol,
            atol=atol, skip_check=skip_check, max_mismatched_ratio=max_mismatched_ratio,
            cache=cache, max_workers=max_workers, verbose=verbose, backend=backend,
            early_stop_factor=early_stop_factor if early_stop else None))
    return wrap


def check_early_stop(early_stop, factor):
    if early_stop and not factor >= 1.0:
        raise TilecError("early_stop_factor must be >= 1.0, got %r" % (factor,))


class AutotunedFunction:
    def __init__(self, fn, configs, opts):
        self._tensors = {}  # an eager call's tensors, while it tunes
        self.jit = fn if isinstance(fn, JITFunction) else JITFunction(fn)
        self.configs = configs
        self.opts = opts
        self.last_result = None
        self._memo = {}  # key -> best Kernel, for calls in this process
        self.__name__ = self.jit.__name__
        self.__doc__ = self.jit.__doc__
        self.__wrapped__ = self.jit

    def __repr__(self):
        return "<tilec autotuned %s>" % self.__name__

    def compile(self, *args, **kwargs):
        """The best kernel for these arguments (tuning first if needed): the same as
        calling the function (TileLang's AutotunedFunction.compile)."""
        return self(*args, **kwargs)

    def _config_list(self, args, kwargs):
        cfgs = self.configs
        if callable(cfgs):
            cfgs = cfgs(**self._config_fn_args(cfgs, args, kwargs))
        cfgs = [dict(c) for c in cfgs]
        if not cfgs:
            raise TilecError("%s: autotune got an empty list of configs" % self.__name__)
        names = set(self.jit._sig.parameters) if self.jit._sig is not None else set()
        for c in cfgs:
            unknown = sorted(set(c) - names)
            if unknown:
                raise TilecError("%s: autotune config %s names %s, which %s not a parameter "
                                 "of the factory" % (self.__name__, c, ", ".join(unknown),
                                                     "is" if len(unknown) == 1 else "are"))
        return cfgs

    def _config_fn_args(self, fn, args, kwargs):
        """The call's arguments (defaults filled in) that the configs function takes."""
        if self.jit._sig is None:
            return {}
        bound = self.jit._sig.bind_partial(*args, **kwargs)
        bound.apply_defaults()
        params = inspect.signature(fn).parameters
        if any(p.kind == p.VAR_KEYWORD for p in params.values()):
            return dict(bound.arguments)
        return {k: v for k, v in bound.arguments.items() if k in params}

    def __call__(self, *args, **kwargs):
        cfgs = self._config_list(args, kwargs)
        base, tensors = self.jit.bind(args, kwargs)
        tuned = set().union(*cfgs)
        if tuned & set(base):  # the caller fixed a tuned argument: no tuning
            return self.jit(*args, **kwargs)
        kernel = self._tuned(cfgs, base, tensors)
        if tensors and self.jit.is_eager():  # an eager call runs the kernel
            return kernel(*[tensors[p.name] for p in kernel.input_params])
        return kernel

    def _tuned(self, cfgs, base, tensors):
        """The best kernel over cfgs (an eager kernel's specialized to tensors)."""
        self._tensors = tensors
        cands = [dict(base, **{k: literal(v, "config %s" % k) for k, v in c.items()})
                 for c in cfgs]
        target = _resolved_target(self.jit.target)
        key = self._key(base, cfgs, target)
        memo = json.dumps(key, sort_keys=True)
        if memo in self._memo:
            return self._memo[memo]
        path = _cache_path(self.__name__, key)
        kernel = None
        if self.opts["cache"]:
            kernel = self._from_cache(path, key, base, target)
        if kernel is None:
            kernel = self._tune(cfgs, cands, target, key, path)
        self._memo[memo] = kernel
        return kernel

    # ---- the cache -------------------------------------------------------------------------
    def _key(self, base, cfgs, target):
        src, name = self.jit.source_info()
        with open(src, "rb") as f:
            src_hash = hashlib.sha256(f.read()).hexdigest()
        from . import version
        return {"source": src, "source_sha256": src_hash, "factory": name,
                "args": dict(sorted(base.items())),
                "configs": [{k: literal(v) for k, v in c.items()} for c in cfgs],
                "out_idx": self.jit.out_idx, "target": target,
                "device": _device_name(target), "tilec_version": version()}

    def _from_cache(self, path, key, base, target):
        try:
            with open(path) as f:
                entry = json.load(f)
        except (OSError, ValueError):
            return None
        if entry.get("key") != key or not isinstance(entry.get("config"), dict):
            return None
        cfg = entry["config"]
        defines = dict(base, **{k: literal(v) for k, v in cfg.items()})
        try:
            kernel = self.jit.compile_defines(defines, target, self._tensors)
        except TilecError:
            return None
        if _signature(kernel) != entry.get("inputs"):  # shapes/dtypes changed: tune again
            return None
        kernel.config, kernel.latency = cfg, entry.get("latency_ms")
        self.last_result = AutotuneResult(cfg, kernel.latency, kernel, True,
                                          entry.get("results", []), str(path))
        if self.opts["verbose"]:
            _say("tilec autotune %s: cached best config %s (%.4g ms) from %s"
                 % (self.__name__, cfg, kernel.latency or 0, path))
        return kernel

    # ---- tuning --------------------------------------------------------------------------
    def _tune(self, cfgs, cands, target, key, path):
        name, verbose = self.__name__, self.opts["verbose"]
        kernels = [None] * len(cands)
        results = [[c, None, ""] for c in cfgs]
        workers = self.opts["max_workers"] or min(len(cands), os.cpu_count() or 1)
        bar = _Progress(len(cands), "tilec autotune %s: compile" % name, verbose)
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            futs = {pool.submit(self.jit.compile_defines, d, target, self._tensors): i
                    for i, d in enumerate(cands)}
            for fut in concurrent.futures.as_completed(futs):
                i = futs[fut]
                try:
                    kernels[i] = fut.result()
                except TilecError as e:
                    results[i][2] = "compile failed: " + _first_line(e)
                    bar.write("tilec autotune %s: skipped config %s: %s"
                              % (name, cfgs[i], results[i][2]))
                bar.update()
        bar.close()
        inputs, sig = get_autotune_inputs(), None
        built = [k for k in kernels if k is not None]
        if inputs is not None and built:  # set_autotune_inputs: the caller's tensors
            sig = _signature(built[0])
        bar = _Progress(len(cands), "tilec autotune %s: bench" % name, verbose)
        for i, k in enumerate(kernels):
            if k is not None:
                if inputs is None:
                    prof = Profiler(k, tensor_supply_type=self.opts["supply_type"])
                    inputs, sig = prof.inputs, _signature(k)
                results[i][1], results[i][2] = self._bench(k, inputs, sig, _best(results))
                if results[i][1] is None:
                    bar.write("tilec autotune %s: skipped config %s: %s"
                              % (name, cfgs[i], results[i][2]))
            bar.update()
        bar.close()
        timed = [i for i in range(len(cands)) if results[i][1] is not None]
        if not timed:
            raise TilecError("%s: autotune found no config that compiles and runs:\n  %s"
                             % (name, "\n  ".join("%s: %s" % (c, m) for c, _, m in results)))
        best = min(timed, key=lambda i: results[i][1])
        kernel = kernels[best]
        kernel.config, kernel.latency = cfgs[best], results[best][1]
        if verbose:
            _say("tilec autotune %s: best config %s (%.4g ms of %d timed)"
                 % (name, kernel.config, kernel.latency, len(timed)))
        if self.opts["cache"]:
            _write_json(path, {"key": key, "config": kernel.config, "latency_ms": kernel.latency,
                               "inputs": sig, "results": results})
        self.last_result = AutotuneResult(kernel.config, kernel.latency, kernel, False, results,
                                          str(path))
        return kernel

    def _bench(self, kernel, inputs, sig, best):
        """(latency ms, "") or (None, why). best: the fastest latency so far, or None."""
        if _signature(kernel) != sig:
            return None, "its inputs differ from the other configs' (%s)" % _signature(kernel)
        prof = Profiler(kernel, tensor_supply_type=self.opts["supply_type"])
        o = self.opts
        try:
            if o["ref_prog"] is not None and not o["skip_check"]:
                prof.assert_allclose(o["ref_prog"], input_tensors=inputs, rtol=o["rtol"],
                                     atol=o["atol"],
                                     max_mismatched_ratio=o["max_mismatched_ratio"])
            factor = o.get("early_stop_factor")
            baseline = best * factor if factor and best is not None else None
            return prof.do_bench(warmup=o["warmup"], rep=o["rep"], input_tensors=inputs,
                                 backend=o.get("backend", "event"),
                                 early_stop_baseline=baseline), ""
        except TilecError as e:
            return None, "run failed: " + _first_line(e)
        except AssertionError as e:
            return None, "wrong result: " + _first_line(e)


def _best(results):
    times = [r[1] for r in results if r[1] is not None]
    return min(times) if times else None


# ---- the caller's inputs ------------------------------------------------------------------
_captured = threading.local()


class set_autotune_inputs:
    """with set_autotune_inputs(a, b) (or ([a, b])): tunings started inside time every
    config on these tensors (the kernel's inputs, in order) instead of generated ones."""

    def __init__(self, *args):
        self.tensors = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) \
            else list(args)

    def __enter__(self):
        stack = getattr(_captured, "stack", None)
        if stack is None:
            stack = _captured.stack = []
        stack.append(self.tensors)
        return self

    def __exit__(self, *exc):
        _captured.stack.pop()
        return False


def get_autotune_inputs():
    """The tensors of the innermost set_autotune_inputs in this thread, or None."""
    stack = getattr(_captured, "stack", None)
    return stack[-1] if stack else None


# ---- helpers ----------------------------------------------------------------------------------
def _signature(kernel):
    return [[p.name, p.dtype, [d if isinstance(d, int) else str(d) for d in p.shape]]
            for p in kernel.input_params]


def _first_line(e):
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    for ln in lines:  # "file:line:col: error: msg" is the informative line
        if "error:" in ln:
            return ln.strip()
    return lines[0].strip() if lines else type(e).__name__


def _resolved_target(target):
    t = normalize_target(target)
    if t != "auto":
        return t
    for line in info().splitlines():
        if line.startswith("auto target:"):
            return line.split(":", 1)[1].strip()
    return "c"


def _device_name(target):
    if target == "cuda":
        try:
            import torch
            if torch.cuda.is_available():
                return torch.cuda.get_device_name()
        except ImportError:
            pass
        return "cuda"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cache_path(name, key):
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]
    return Path(cache_dir()) / "autotune" / ("%s-%s.json" % (name, digest))


def _write_json(path, obj):
    """Write-then-rename, so concurrent processes never read half a file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=str(path.parent), suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(obj, f, indent=1, default=str)
        os.replace(tmp, path)
    except OSError as e:
        _say("tilec autotune: cannot write the cache %s: %s" % (path, e))


def _say(msg):
    print(msg, file=sys.stderr, flush=True)


class _Progress:
    """tqdm when installed, else a line on stderr rewritten in place (on a terminal) or
    printed once at the end."""

    def __init__(self, total, desc, enabled):
        self.total, self.desc, self.n, self.enabled = total, desc, 0, enabled
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, desc=desc, file=sys.stderr, leave=False)
            except ImportError:
                pass
        self.tty = enabled and sys.stderr.isatty()

    def update(self):
        self.n += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.tty:
            sys.stderr.write("\r%s %d/%d" % (self.desc, self.n, self.total))
            sys.stderr.flush()

    def write(self, msg):
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.write(msg, file=sys.stderr)
        else:
            if self.tty:
                sys.stderr.write("\r")
            _say(msg)

    def close(self):
        if self.bar is not None:
            self.bar.close()
        elif self.enabled:
            sys.stderr.write("%s%s %d/%d\n" % ("\r" if self.tty else "", self.desc, self.n,
                                               self.total))
            sys.stderr.flush()
