"""tilelang.testing for the compatibility layer: the helpers TileLang's tests use, and
TileLang's perf-regression entry points (process_func, regression: the
`examples/**/regression_*.py` files call them), which behave as in TileLang 0.1.15."""
import collections
import fnmatch
import inspect
import json
import logging
import os
import random
import sys
import time
import warnings

from ..profiler import assert_close

__all__ = ["main", "torch_assert_close", "set_random_seed", "requires_cuda",
           "requires_package", "process_func", "regression"]


def main():
    """Runs pytest on the calling file (TileLang's `tilelang.testing.main()`)."""
    import pytest
    caller = inspect.stack()[1].filename
    sys.exit(pytest.main([caller, "-q"]))


def torch_assert_close(a, b, rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.001, **ignored):
    """Compares two tensors or arrays (see tilec.assert_close)."""
    assert_close(a, b, rtol=rtol, atol=atol, max_mismatched_ratio=max_mismatched_ratio)


def set_random_seed(seed=42):
    random.seed(seed)
    import numpy as np
    np.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)


def requires_cuda(func):
    """Skips the test (pytest) unless torch sees a CUDA device."""
    import pytest
    try:
        import torch
        ok = torch.cuda.is_available()
    except ImportError:
        ok = False
    return pytest.mark.skipif(not ok, reason="needs CUDA")(func)


def requires_package(*names):
    """A decorator marking a test to be skipped (under pytest) unless every package in
    `names` imports; a direct call runs the function as it is (as TVM's does)."""
    import importlib.util
    missing = [n for n in names if importlib.util.find_spec(n) is None]

    def mark(func):
        try:
            import pytest
        except ImportError:
            return func
        return pytest.mark.skipif(bool(missing), reason="needs %s" % ", ".join(missing))(func)
    return mark


# ---- perf regression (TileLang 0.1.15's tilelang.testing.process_func / regression) -------
PerfResult = collections.namedtuple("PerfResult", "name latency case")
RESULTS = []  # what process_func recorded since the last regression() began
JSON_MARK = "__TILELANG_PERF_RESULTS_JSON__="  # TL_PERF_REGRESSION_FORMAT=json's line
_PREFIX = "regression_"
_RETRIES = 5  # further calls while the latency is not positive
_current_case = None


def _strip(name):
    return name[len(_PREFIX):] if name.startswith(_PREFIX) else name


def process_func(func, name=None, /, **kwargs):
    """Calls func(**kwargs), a perf function that returns a latency, and records it under
    `name` (default: func's module), less a leading "regression_". A latency that is not
    positive is measured again, up to 5 more times; if it stays so, a RuntimeWarning says
    so and nothing is recorded. An exception from func propagates."""
    if name is None:
        name = getattr(func, "__module__", None) or "<unknown>"
    label = _strip(name)
    latency = float(func(**kwargs))
    tries = 0
    while latency <= 0.0 and tries < _RETRIES:
        latency = float(func(**kwargs))
        tries += 1
    if latency <= 0.0:
        warnings.warn("%s has latency %s <= 0. Please verify the profiling results."
                      % (label, latency), RuntimeWarning, stacklevel=2)
        return
    RESULTS.append(PerfResult(label, latency, _current_case))


def _only_filters():
    """TL_PERF_REGRESSION_ONLY: a JSON list (or string) of patterns, or comma-separated."""
    text = os.environ.get("TL_PERF_REGRESSION_ONLY", "").strip()
    if not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        value = text.split(",")
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    return [str(v).strip() for v in value if str(v).strip()]


def _wanted(name, patterns):
    """A case runs when some pattern matches its name or its name less "regression_",
    case-insensitively, as a glob or as a substring."""
    if not patterns:
        return True
    names = [n.lower() for n in (name, _strip(name))]
    return any(fnmatch.fnmatch(n, p.lower()) or p.lower() in n for p in patterns for n in names)


def regression(prefixes=(_PREFIX,), verbose=True):
    """Runs every callable of the calling module whose name starts with one of `prefixes`,
    in name order (those TL_PERF_REGRESSION_ONLY selects, when set), with warnings and
    log records up to WARNING silenced; then prints what process_func recorded: one
    "name: latency" line each, or with TL_PERF_REGRESSION_FORMAT=json one line
    JSON_MARK + [{"name", "latency", "case"}...]. An exception stops the run."""
    global _current_case
    caller = sys._getframe(1).f_globals
    del RESULTS[:]
    found = sorted(((k, v) for k, v in list(caller.items())
                    if callable(v) and any(k.startswith(p) for p in prefixes)),
                   key=lambda kv: kv[0])
    patterns = _only_filters()
    cases = [(k, v) for k, v in found if _wanted(k, patterns)]
    for i, (name, fn) in enumerate(cases, 1):
        _current_case = _strip(name)
        if verbose:
            print("  \u251c\u2500 [%d/%d] %s" % (i, len(cases), _current_case), end="", flush=True)
        t0 = time.perf_counter()
        root_level = logging.root.level
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                logging.disable(logging.WARNING)
                try:
                    fn()
                finally:
                    logging.disable(logging.NOTSET)
                    logging.root.setLevel(root_level)
            if verbose:
                print(" (%.2fs)" % (time.perf_counter() - t0), flush=True)
        finally:
            _current_case = None
    if os.environ.get("TL_PERF_REGRESSION_FORMAT", "text").strip().lower() == "json":
        items = [dict(name=r.name, latency=r.latency, **({} if r.case is None else
                                                            {"case": r.case}))
                 for r in RESULTS]
        print(JSON_MARK + json.dumps(items, separators=(",", ":")))
    else:
        for r in RESULTS:
            print("%s: %s" % (r.name, r.latency))
