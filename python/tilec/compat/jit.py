"""tilelang.jit / compile / par_compile / JITKernel under the compatibility layer.

Kernels made here are tilec.Kernel objects (JITKernel is that class) with TileLang's
defaults: their profiler's do_bench returns the mean. pass_configs given as Python
values reach libtilec as the `__pass_configs__` define ("KEY=0|1,..."), so they count
as well as those written in the kernel file. With TILELANG_PRINT_ON_COMPILATION on (the
default, as in TileLang) each compile is logged on the "tilelang" logger."""
import concurrent.futures
import logging

from ..jit import JITFunction, compile as _tilec_compile, literal
from ..kernel import Kernel

JITKernel = Kernel
PASS_CONFIGS_DEFINE = "__pass_configs__"
logger = logging.getLogger("tilelang")


def config_key(key):
    """A pass config key as TileLang spells it ("tl.disable_tma_lower", or
    PassConfigKey.TL_DISABLE_TMA_LOWER, which this layer gives as "TL_DISABLE_TMA_LOWER")
    as libtilec reads it ("tl.disable_tma_lower")."""
    k = str(getattr(key, "value", key))
    return "tl." + k[3:].lower() if k.startswith("TL_") else k


def pass_configs_text(configs):
    """"KEY=1,KEY=0" for a pass_configs dict ("" for None/empty). Only on/off values
    switch anything; TileLang's other knobs (strings, lists) are left out."""
    if not configs:
        return ""
    if not isinstance(configs, dict):
        raise TypeError("pass_configs must be a dict, not %s" % type(configs).__name__)
    return ",".join("%s=%d" % (config_key(k), 1 if v else 0) for k, v in configs.items()
                    if v is None or isinstance(v, (bool, int, float)))


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
    """@tilelang.jit: a tilec JITFunction with TileLang's defaults and pass_configs."""

    def __init__(self, func, out_idx=None, target=None, pass_configs=None, **kw):
        super().__init__(func, out_idx=out_idx, target=target, **kw)
        self.pass_configs = pass_configs
        self._compiled = set()

    def bind(self, args, kwargs):
        defines = super().bind(args, kwargs)
        text = pass_configs_text(self.pass_configs)
        if text:
            defines[PASS_CONFIGS_DEFINE] = literal(text)
        return defines

    def compile_defines(self, defines, target=None):
        opts = _options()  # read now: tilelang.disable_cache() may come after @jit
        self.use_cache, self.cache_dir = opts.get("use_cache"), opts.get("cache_dir")
        key = (tuple(sorted(defines.items())), target)
        new = key not in self._compiled
        if new:
            _log("TileLang begins to compile kernel `%s` with `out_idx=%s`", self.__name__,
                 self.out_idx)
        k = _mark(super().compile_defines(defines, target))
        if new:
            self._compiled.add(key)
            _log("TileLang completes to compile kernel `%s`", self.__name__)
        return k


def jit(func=None, *, out_idx=None, target="auto", pass_configs=None, **ignored):
    """@tilelang.jit / @tilelang.jit(out_idx=..., target=..., pass_configs=...)."""
    def wrap(f):
        return TLJITFunction(f, out_idx=out_idx, target=target, pass_configs=pass_configs)
    return wrap if func is None else wrap(func)


def compile(func, out_idx=None, target="auto", pass_configs=None, **kwargs):
    """tilelang.compile(func, out_idx=..., target=..., pass_configs=...)."""
    text = pass_configs_text(pass_configs)
    if text:
        kwargs[PASS_CONFIGS_DEFINE] = text
    for k, v in _options().items():
        kwargs.setdefault(k, v)
    name = getattr(func, "__name__", "kernel")
    _log("TileLang begins to compile kernel `%s` with `out_idx=%s`", name, out_idx)
    k = _mark(_tilec_compile(func, out_idx=out_idx, target=target, **kwargs))
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
