"""tilelang.profiler.do_bench with TileLang's signature and defaults (the mean)."""
from ..profiler import do_bench as _do_bench


def do_bench(fn, warmup=25, rep=100, _n_warmup=0, _n_repeat=0, quantiles=None,
             fast_flush=True, backend="event", return_mode="mean", device=None,
             cache_size=256, early_stop_baseline=None):
    """Milliseconds per call of fn() (see tilec.profiler.do_bench): backend "event",
    "cupti" or "cudagraph" on CUDA, the CPU clock otherwise; the mean unless return_mode
    or quantiles say otherwise. fast_flush, device, cache_size, early_stop_baseline are
    accepted and ignored (the L2 flush is always 256 MB on the current device)."""
    return _do_bench(fn, warmup=warmup, rep=rep, n_warmup=_n_warmup, n_repeat=_n_repeat,
                     return_mode=return_mode, backend=backend, quantiles=quantiles)
