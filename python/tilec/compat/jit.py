"""tilelang.jit / compile / par_compile / JITKernel under the compatibility layer.

Kernels made here are tilec.Kernel objects (JITKernel is that class) with TileLang's
defaults: their profiler's do_bench returns the mean. pass_configs given as Python
values reach libtilec as tl_options.pass_configs (tilec.jit does that), as well as those
written in the kernel file. With TILELANG_PRINT_ON_COMPILATION on (the default, as in
TileLang) each compile is logged on the "tilelang" logger."""
import concurrent.futures
import logging

from ..jit import JITFunction, compile as _tilec_compile
from ..kernel import Kernel

JITKernel = Kernel
logger = logging.getLogger("tilelang")


def _options():
    """Cache options from tilelang.env (TILELANG_DISABLE_CACHE, TILELANG_CACHE_DIR)."""
    from .env import env
    kw = {} if env.is_cache_enabled() else {"use_cache": False}
    if env.cache_dir_override():
        kw["cache_dir"] = env.cache_dir_override()
    return kw


def _mark(kernel):
    kernel.tilelang_defaults = True
    return kernel


def _log(msg, *args):
    from .env import env
    if env.is_print_on_compilation_enabled():
        logger.info(msg, *args)


class TLJITFunction(JITFunction):
    """@tilelang.jit: a tilec JITFunction with TileLang's defaults."""

    def __init__(self, func, out_idx=None, target=None, pass_configs=None, **kw):
        super().__init__(func, out_idx=out_idx, target=target, pass_configs=pass_configs, **kw)

    def _compile(self, args, kwargs, target=None, pass_configs=None):
        opts = _options()  # read now: tilelang.disable_cache() may come after @jit
        self.use_cache, self.cache_dir = opts.get("use_cache"), opts.get("cache_dir")
        k, tensors = super()._compile(args, kwargs, target, pass_configs)
        return _mark(k), tensors

    def get_tir(self, *args, **kwargs):
        """TileLang returns the PrimFunc for these arguments (for tilelang.tools.Analyzer
        or tilelang.compile); tilec has no TVM IR: the compiled Kernel for them, which
        carries the tile IR (.ir, .get_ir()) and its work count (.work())."""
        return self.compile(*args, **kwargs)

    def _compiling(self, starts):
        if starts:
            _log("TileLang begins to compile kernel `%s` with `out_idx=%s`", self.__name__,
                 self.out_idx)
        else:
            _log("TileLang completes to compile kernel `%s`", self.__name__)


def jit(func=None, *, out_idx=None, target="auto", pass_configs=None, **ignored):
    """@tilelang.jit / @tilelang.jit(out_idx=..., target=..., pass_configs=...)."""
    def wrap(f):
        return TLJITFunction(f, out_idx=out_idx, target=target, pass_configs=pass_configs)
    return wrap if func is None else wrap(func)


def compile(func, out_idx=None, target="auto", pass_configs=None, **kwargs):
    """tilelang.compile(func, out_idx=..., target=..., pass_configs=...)."""
    for k, v in _options().items():
        kwargs.setdefault(k, v)
    name = getattr(func, "__name__", "kernel")
    _log("TileLang begins to compile kernel `%s` with `out_idx=%s`", name, out_idx)
    k = _mark(_tilec_compile(func, out_idx=out_idx, target=target, pass_configs=pass_configs,
                             **kwargs))
    _log("TileLang completes to compile kernel `%s`", name)
    return k


def par_compile(funcs, out_idx=None, target="auto", num_workers=None, ignore_error=False,
                **kwargs):
    """Compiles several prim_funcs in threads (libtilec compiles in parallel): the kernels
    in order (None for a failure when ignore_error)."""
    def one(f):
        try:
            return compile(f, out_idx=out_idx, target=target, **kwargs)
        except Exception:
            if ignore_error:
                return None
            raise
    with concurrent.futures.ThreadPoolExecutor(max_workers=num_workers) as pool:
        return list(pool.map(one, funcs))
