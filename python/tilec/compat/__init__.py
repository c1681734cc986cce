"""A `tilelang` module backed by tilec, so TileLang scripts run unchanged.

How `import tilelang` reaches it:
* installed with `pip install ./python`: a .pth file registers an import hook at the
  END of sys.meta_path, so it answers `import tilelang` only when the real TileLang is
  not installed; TILEC_AS_TILELANG=1 puts it first (tilec even where TileLang exists);
* explicitly: `import tilec.compat.tilelang_shim` (before `import tilelang`), or
  `python -m tilec.compat script.py args...` to run a TileLang script with it.

What it provides: tilelang.jit / lazy_jit / compile / autotune (tilec's), tilelang.language
(as T: inert placeholders, see language.py), tilelang.autotuner.autotune,
tilelang.PassConfigKey (names as strings), tilelang.TensorSupplyType, tilelang.profiler
(do_bench, Profiler), tilelang.testing (main, torch_assert_close, set_random_seed,
requires_cuda), tilelang.layout and tilelang.language's helpers (inert),
tilelang.disable_cache / enable_cache / is_cache_enabled. Names TileLang has and tilec
does not raise AttributeError naming this layer."""
import sys
import types

SHIM_FLAG = "__tilec_shim__"


class _StrNames(type):
    """PassConfigKey.TL_ENABLE_FAST_MATH -> "TL_ENABLE_FAST_MATH" (libtilec reads pass
    configs from the source text; Python only needs the expression to evaluate)."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return name


class PassConfigKey(metaclass=_StrNames):
    pass


class _StrictModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError("module %r (tilec's TileLang compatibility layer) has no "
                             "attribute %r" % (self.__name__, name))


class _InertModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        from .language import Inert
        return Inert("%s.%s" % (self.__name__, name))


def _module(name, cls=_StrictModule, **attrs):
    m = cls(name)
    m.__dict__.update(attrs)
    setattr(m, SHIM_FLAG, True)
    m.__path__ = []  # a package: its submodules are the ones registered below
    return m


def _jit(func=None, *, out_idx=None, target="auto", pass_configs=None, **ignored):
    from ..jit import jit
    return jit(func, out_idx=out_idx, target=target, pass_configs=pass_configs)


def _compile(func, out_idx=None, target="auto", **kwargs):
    from ..jit import compile
    return compile(func, out_idx=out_idx, target=target, **kwargs)


def _set_cache(enabled):
    from ..jit import DEFAULTS
    DEFAULTS["use_cache"] = enabled


def build_modules():
    """{module name: module} of the shim (new objects)."""
    from .. import __version__
    from ..autotuner import autotune
    from ..profiler import Profiler, TensorSupplyType, assert_close, do_bench
    from . import language, testing
    lang = _module("tilelang.language", _InertModule, **{
        k: v for k, v in vars(language).items() if not k.startswith("_")})
    autotuner = _module("tilelang.autotuner", autotune=autotune)
    profiler = _module("tilelang.profiler", do_bench=do_bench, Profiler=Profiler,
                       TensorSupplyType=TensorSupplyType)
    layout = _module("tilelang.layout", _InertModule)
    tmod = _module("tilelang.testing", **{k: getattr(testing, k) for k in testing.__all__})
    utils = _module("tilelang.utils")
    tensor = _module("tilelang.utils.tensor", TensorSupplyType=TensorSupplyType,
                     torch_assert_close=testing.torch_assert_close)
    utils.tensor = tensor
    top = _module(
        "tilelang", jit=_jit, lazy_jit=_jit, compile=_compile, autotune=autotune,
        language=lang, autotuner=autotuner, profiler=profiler, layout=layout, testing=tmod,
        utils=utils, PassConfigKey=PassConfigKey, TensorSupplyType=TensorSupplyType,
        disable_cache=lambda: _set_cache(False), enable_cache=lambda: _set_cache(True),
        is_cache_enabled=lambda: _default_cache(), set_log_level=lambda *a, **k: None,
        assert_close=assert_close, __version__="0.1.0+tilec%s" % __version__,
        __doc__="tilec's TileLang compatibility layer (tilec.compat)")
    mods = [top, lang, autotuner, profiler, layout, tmod, utils, tensor]
    return {m.__name__: m for m in mods}


def _default_cache():
    from ..jit import DEFAULTS
    return DEFAULTS["use_cache"]


_built = None


def modules():
    """The shim's modules, built once."""
    global _built
    if _built is None:
        _built = build_modules()
    return _built


def install(force=True):
    """Registers the shim as `tilelang` in sys.modules. force=False keeps a real TileLang
    that is already imported. Returns the tilelang module now in sys.modules."""
    cur = sys.modules.get("tilelang")
    if cur is not None and not getattr(cur, SHIM_FLAG, False) and not force:
        return cur
    if cur is not None and not getattr(cur, SHIM_FLAG, False):
        for name in [n for n in sys.modules if n == "tilelang" or n.startswith("tilelang.")]:
            del sys.modules[name]
    sys.modules.update(modules())
    return sys.modules["tilelang"]


def is_shim(module):
    return bool(getattr(module, SHIM_FLAG, False))
