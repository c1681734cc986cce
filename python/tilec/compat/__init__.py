"""A `tilelang` module backed by tilec, so TileLang scripts run unchanged.

How `import tilelang` reaches it:
* installed with `pip install ./python`: a .pth file registers an import hook at the
  END of sys.meta_path, so it answers `import tilelang` only when the real TileLang is
  not installed; TILEC_AS_TILELANG=1 puts it first (tilec even where TileLang exists);
* explicitly: `import tilec.compat.tilelang_shim` (before `import tilelang`), or
  `python -m tilec.compat script.py args...` to run a TileLang script with it.

What it provides (tests/python/test_toolbox.py checks each): tilelang.jit / lazy_jit /
compile / par_compile / JITKernel (compat/jit.py: tilec kernels with TileLang's
defaults, pass_configs from Python values), tilelang.language (as T: inert
placeholders, language.py; language.fp8), tilelang.autotuner (autotune, AutoTuner,
set_autotune_inputs), tilelang.profiler (do_bench with TileLang's signature, Profiler),
tilelang.testing (with TileLang 0.1.15's perf-regression process_func and regression),
tilelang.utils (tensor.get_tensor_supply, target up to 0.1.11),
tilelang.cache (cached, clear_cache), tilelang.env (TILELANG_* settings), tilelang.tvm
and tilelang.DataType (dtype names; TVM class names as annotation stand-ins),
tilelang.carver (the GPU's facts and a GEMM tile recommender, compat/tl_carver.py),
tilelang.tools.Analyzer (FLOPs, global bytes and TileLang's roofline estimate from
libtilec's count, compat/tl_analyzer.py; kernel.get_tir gives it a kernel),
tilelang.contrib.nvcc's compute version, tilelang.PassConfigKey, tilelang.TensorSupplyType,
disable_cache / enable_cache / is_cache_enabled, set_log_level. Every other module path
of TileLang 0.1.9 to 0.1.15 (tilelang_modules.txt) imports; the kernel-language ones
(layout, math, tileop) are inert, and a name of the others (TVM internals: carver,
engine, ...) raises an ImportError naming tilec's equivalent; tilelang.cuda.intrinsics
and tilelang.intrinsics have tilec's mma.sync emitter and layout helpers
(compat/intrinsics/), their other names that ImportError."""
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
        from .language import Inert, _vector_dtype
        if self.__name__ == "tilelang.language" and _vector_dtype(name):
            return _vector_dtype(name)  # T.float16x2
        return Inert("%s.%s" % (self.__name__, name))


def _module(name, cls=_StrictModule, **attrs):
    m = cls(name)
    m.__dict__.update(attrs)
    m.__file__ = __file__  # scripts print tilelang.__file__
    setattr(m, SHIM_FLAG, True)
    m.__path__ = []  # a package: its submodules are the ones registered below
    if m.__dict__.get("__spec__") is None:  # importlib.util.find_spec("tilelang") (fla)
        import importlib.machinery
        m.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        m.__spec__.submodule_search_locations = []
    return m


# Hints for TileLang modules tilec has no equivalent of (by longest matching prefix).
_HINTS = {
    "tilelang": "tilec compiles the kernel file with libtilec (tilec.compile, @tilelang.jit).",
    "tilelang.tvm": "dtypes are names here (T.float16 == 'float16', tilelang.DataType), "
                    "targets the strings 'c' and 'cuda'.",
    "tvm": "dtypes are names here (T.float16 == 'float16', tvm.DataType), targets the "
           "strings 'c' and 'cuda'.",
    "tilelang.carver": "pick configurations with @tilelang.autotune(configs=[...]) and "
                       "lists of dicts; tilec.info() describes the GPU.",
    "tilelang.engine": "libtilec lowers and builds kernels itself: tilec.compile, or "
                       "`tilec emit FILE --ir/--source` to see each stage.",
    "tilelang.transform": "libtilec runs its own passes (docs/internals.md); pass configs "
                          "go to @tilelang.jit(pass_configs=...).",
    "tilelang.tools": "`tilec emit FILE --ir` prints the tile IR, `--source` the code.",
    "tilelang.contrib": "tilec compiles CUDA with NVRTC in-process and C with $CC: "
                        "tilec.info() shows both.",
    "tilelang.intrinsics": "T.gemm lowers to mma.sync/wgmma itself (docs/cuda.md).",
    "tilelang.cuda": "T.gemm lowers to mma.sync/wgmma itself (docs/cuda.md).",
    "tilelang.cuda.intrinsics": "tilec has TileLang's mma.sync emitter "
                                "(TensorCoreIntrinEmitter) and its layout helpers "
                                "(compat/intrinsics); T.gemm lowers to mma.sync/wgmma itself.",
    "tilelang.jit.adapter": "kernels are tilec.Kernel objects called with arrays "
                            "(docs/python.md).",
    "tilelang.rocm": "tilec has CUDA and C targets, no ROCm.",
}
# Modules whose names are evaluated inside kernels or factories: inert placeholders.
_INERT = ("tilelang.language", "tilelang.layout", "tilelang.math", "tilelang.tileop")
# Modules with some content whose other names are TileLang internals.
_PARTIAL = ("tilelang.tvm", "tilelang.transform", "tilelang.utils", "tilelang.jit",
            "tilelang.cache", "tilelang.carver", "tilelang.contrib", "tilelang.engine",
            "tilelang.tools", "tilelang.intrinsics", "tilelang.cuda.intrinsics")
_MODULE_LIST = __file__.rsplit("/", 1)[0] + "/tilelang_modules.txt"


class _UnsupportedModule(types.ModuleType):
    """A TileLang module tilec has no equivalent of: it imports (scripts import it at
    the top), and each name raises an ImportError saying what tilec offers instead."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        from .tl_tvm import TVM_TYPES, tvm_type, unsupported
        if _under(self.__name__, ("tvm", "tilelang.tvm")):
            if name.islower():
                return _tvm_submodule("%s.%s" % (self.__name__, name))  # tvm.tirx, ...
            if name in TVM_TYPES:
                return tvm_type(self.__name__, name)  # annotations: val: tirx.PrimExpr
        raise unsupported(self.__name__, name, _hint(self.__name__))

    def __call__(self, *args, **kwargs):  # a function TileLang exports under a module's name
        from .tl_tvm import unsupported
        parent, _, leaf = self.__name__.rpartition(".")
        raise unsupported(parent, leaf, _hint(self.__name__))


def _hint(module):
    return _HINTS[max((k for k in _HINTS if _under(module, (k,))), key=len)]


def _tvm_submodule(name):
    """The module `name` of the TVM tree (made and registered on first use)."""
    m = sys.modules.get(name)
    if m is None:
        m = sys.modules[name] = _module(name, _UnsupportedModule)
        parent, _, leaf = name.rpartition(".")
        if parent in sys.modules:
            sys.modules[parent].__dict__[leaf] = m
    return m


class _TVMFinder:
    """Answers `import tvm` / `import tvm.X` when no TVM is installed (it sits at the end
    of sys.meta_path): TileLang scripts import TVM, which TileLang bundles. `tvm` has
    DataType; the names of every tvm module raise the layer's ImportError."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "tvm" and not name.startswith("tvm."):
            return None
        import importlib.machinery
        return importlib.machinery.ModuleSpec(name, cls, is_package=True)

    @staticmethod
    def create_module(spec):
        from .tl_tvm import DataType
        extra = {"DataType": DataType} if spec.name == "tvm" else {}
        return _module(spec.name, _UnsupportedModule, **extra)

    @staticmethod
    def exec_module(module):
        pass


def _set_cache(enabled):
    from .env import env
    (env.enable_cache if enabled else env.disable_cache)()


def _content():
    """{module name: {attribute: value}} of the modules with content."""
    from .. import __version__
    from ..autotuner import autotune, get_autotune_inputs, set_autotune_inputs
    from ..jit import clear_cache
    from ..profiler import Profiler, TensorSupplyType, assert_close
    from . import env as env_mod, language, testing, tl_utils
    from .jit import JITKernel, compile, jit, par_compile
    from .tl_autotuner import AutoTuner
    from .tl_profiler import do_bench
    from .tl_tvm import CALLBACK, NVCC, DataType
    from . import testing as tl_testing, tl_carver as carver
    from .tl_analyzer import ARCH_CONFIGS, AnalysisResult, Analyzer

    def cdiv(a, b):
        return (a + b - 1) // b

    def next_power_of_2(x):
        return 1 << (x - 1).bit_length()

    math_attrs = dict(cdiv=cdiv, next_power_of_2=next_power_of_2)

    def cached(func=None, out_idx=None, *args, target="auto", pass_configs=None, **ignored):
        return compile(func, out_idx=out_idx, target=target, pass_configs=pass_configs)

    lang = {k: v for k, v in vars(language).items() if not k.startswith("_")}
    utils_tensor = {"TensorSupplyType": TensorSupplyType, "get_tensor_supply":
                    tl_utils.get_tensor_supply, "torch_assert_close": testing.torch_assert_close}
    target = {k: getattr(tl_utils, k) for k in (
        "determine_target", "determine_fp8_type", "determine_torch_fp8_type",
        "check_cuda_availability", "check_hip_availability", "check_metal_availability",
        "target_is_cuda", "target_is_hip")}
    fp8 = {k: target[k] for k in ("determine_fp8_type", "determine_torch_fp8_type")}
    env_attrs = {k: getattr(env_mod, k) for k in (
        "env", "EnvVar", "Environment", "CacheState", "enable_cache", "disable_cache",
        "is_cache_enabled")}
    return {
        "tilelang": dict(
            jit=jit, lazy_jit=jit, compile=compile, par_compile=par_compile,
            autotune=autotune, JITKernel=JITKernel, Profiler=Profiler, DataType=DataType,
            PassConfigKey=PassConfigKey, TensorSupplyType=TensorSupplyType,
            disable_cache=lambda: _set_cache(False), enable_cache=lambda: _set_cache(True),
            is_cache_enabled=env_mod.is_cache_enabled, set_log_level=_set_log_level,
            assert_close=assert_close, env=env_mod.env, **math_attrs,
            __version__="0.1.0+tilec%s" % __version__,
            __doc__="tilec's TileLang compatibility layer (tilec.compat)"),
        "tilelang.language": lang,
        "tilelang.language.fp8": fp8,
        "tilelang.math": math_attrs,
        "tilelang.autotuner": dict(autotune=autotune, AutoTuner=AutoTuner,
                                   set_autotune_inputs=set_autotune_inputs,
                                   get_autotune_inputs=get_autotune_inputs),
        "tilelang.autotuner.tuner": dict(autotune=autotune, AutoTuner=AutoTuner),
        "tilelang.autotuner.capture": dict(set_autotune_inputs=set_autotune_inputs,
                                           get_autotune_inputs=get_autotune_inputs),
        "tilelang.profiler": dict(do_bench=do_bench, Profiler=Profiler,
                                  TensorSupplyType=TensorSupplyType),
        "tilelang.profiler.bench": dict(do_bench=do_bench),
        "tilelang.testing": {k: getattr(testing, k) for k in testing.__all__},
        "tilelang.testing.perf_regression": {k: getattr(testing, k) for k in (
            "process_func", "regression", "PerfResult")},
        "tilelang.utils": dict(utils_tensor, **{k: target[k] for k in (
            "determine_target", "determine_fp8_type", "determine_torch_fp8_type")}),
        "tilelang.utils.tensor": utils_tensor,
        "tilelang.utils.target": target,
        "tilelang.jit": dict(jit=jit, lazy_jit=jit, compile=compile, par_compile=par_compile,
                             JITKernel=JITKernel),
        "tilelang.jit.kernel": dict(JITKernel=JITKernel),
        "tilelang.cache": dict(cached=cached, clear_cache=clear_cache),
        "tilelang.env": env_attrs,
        "tilelang.transform": dict(PassConfigKey=PassConfigKey),
        "tilelang.transform.pass_config": dict(PassConfigKey=PassConfigKey),
        "tilelang.tvm": dict(DataType=DataType),
        "tilelang.tvm.testing": dict(requires_package=tl_testing.requires_package),
        "tilelang.contrib.nvcc": NVCC,
        "tilelang.engine.callback": CALLBACK,
        "tilelang.tools": dict(Analyzer=Analyzer),
        "tilelang.tools.Analyzer": dict(Analyzer=Analyzer, AnalysisResult=AnalysisResult,
                                        ARCH_CONFIGS=ARCH_CONFIGS),
        **_carver_content(carver),
        **_intrinsics_content(),
        **_sparse_content(language),
    }


def _sparse_content(language):
    """2:4 sparsity's helpers (compat/tl_sparse.py): the metadata layout T.gemm_sp reads,
    the compressor making it, and the dtype lookups TileLang's examples use with them."""
    from . import tl_sparse as sp
    layout = {k: getattr(sp, k) for k in ("GROUP_CONFIG", "get_e_factor",
                                          "get_e_replicate_factor")}
    utils = {k: getattr(sp, k) for k in ("compress", "randn_semi_sparse",
                                         "randint_semi_sparse", "arange_semi_sparse")}
    dtypes = {k: v for k, v in vars(language).items() if isinstance(v, language.DType)}
    dtypes.update(dtype=language.dtype, DType=language.DType,
                  _TORCH_DTYPE_TO_STR=sp._TORCH_DTYPE_TO_STR)
    return {"tilelang.cuda.intrinsics.sparse_layout": layout,
            "tilelang.utils.sparse": utils, "tilelang.language.dtypes": dtypes}


def _intrinsics_content():
    """tilelang.cuda.intrinsics (and its pre-0.1.13 path tilelang.intrinsics): tilec's own
    emitters and layout helpers (compat/intrinsics/). Each object names itself to the
    capture (tilec_capture: its T name), so a kernel libtilec compiles uses libtilec's
    copy of the same source."""
    from . import intrinsics, language
    mma = intrinsics.load("mma", language)
    names = ("get_ldmatrix_offset", "get_mma_micro_size", "get_swizzle_layout",
             "make_mma_swizzle_layout", "mma_store_index_map", "TensorCoreIntrinEmitter")
    for n in names:
        getattr(mma, n).tilec_capture = "T." + n
    every = {n: getattr(mma, n) for n in names}
    layout = {n: every[n] for n in names if n != "TensorCoreIntrinEmitter"}
    macro = dict(TensorCoreIntrinEmitter=mma.TensorCoreIntrinEmitter)
    out = {}
    for root, old in (("tilelang.cuda.intrinsics", False), ("tilelang.intrinsics", True)):
        out[root] = every
        out[root + ".utils" if old else root + ".layout.utils"] = layout
        out[root + ".mma_layout" if old else root + ".layout.mma_layout"] = layout
        out[root + ".mma_macro_generator" if old else root + ".macro.mma_macro_generator"] = macro
        if not old:
            out[root + ".layout"] = layout
            out[root + ".macro"] = macro
    return out


def _carver_content(carver):
    """tilelang.carver's device facts and GEMM recommender (compat/tl_carver.py)."""
    arch = dict(CUDA=carver.CUDA, CDNA=carver.CDNA, get_arch=carver.get_arch,
                auto_infer_current_arch=carver.auto_infer_current_arch,
                is_hopper_arch=carver.is_hopper_arch, is_ampere_arch=carver.is_ampere_arch)
    raster = dict(Rasterization=carver.Rasterization, NoRasterization=carver.NoRasterization,
                  Rasterization2DRow=carver.Rasterization2DRow,
                  Rasterization2DColumn=carver.Rasterization2DColumn)
    return {
        "tilelang.carver": dict(MatmulTemplate=carver.MatmulTemplate, **arch),
        "tilelang.carver.arch": arch,
        "tilelang.carver.arch.cuda": dict(CUDA=carver.CUDA, is_hopper_arch=carver.is_hopper_arch,
                                          is_ampere_arch=carver.is_ampere_arch),
        "tilelang.carver.arch.cdna": dict(CDNA=carver.CDNA),
        "tilelang.carver.arch.driver": carver.DRIVER,
        "tilelang.carver.arch.driver.cuda_driver": carver.DRIVER,
        "tilelang.carver.template": dict(MatmulTemplate=carver.MatmulTemplate),
        "tilelang.carver.template.matmul": dict(MatmulTemplate=carver.MatmulTemplate),
        "tilelang.carver.roller": dict(Hint=carver.Hint, **raster),
        "tilelang.carver.roller.hint": dict(Hint=carver.Hint),
        "tilelang.carver.roller.rasterization": raster,
    }


def _set_log_level(level):
    import logging
    if isinstance(level, str):
        level = getattr(logging, level.upper(), logging.INFO)
    logging.getLogger("tilelang").setLevel(level)


def _module_names():
    with open(_MODULE_LIST) as f:
        names = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    return sorted(set(names) | {"tilelang.tvm"})


def _under(name, prefixes):
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _kind(name, content):
    if name == "tilelang.language" or (name not in content and _under(name, _INERT)):
        return _InertModule
    if name in content and not _under(name, _PARTIAL):
        return _StrictModule
    return _UnsupportedModule


def build_modules():
    """{module name: module} of the shim (new objects): every module path of TileLang
    0.1.9 to 0.1.15 (tilelang_modules.txt); those with content as _content says, the
    kernel-language ones inert, the rest _UnsupportedModule. Each is an attribute of its
    parent, as after an import."""
    content = _content()
    mods = {}
    for name in _module_names() + sorted(content):
        if name in mods:
            continue
        m = _module(name, _kind(name, content), **content.get(name, {}))
        mods[name] = m
    for name, m in mods.items():
        parent, _, leaf = name.rpartition(".")
        if parent in mods and leaf not in mods[parent].__dict__:
            setattr(mods[parent], leaf, m)
    _setup_logger()
    if _TVMFinder not in sys.meta_path:
        sys.meta_path.append(_TVMFinder)
    return mods


def _setup_logger():
    """The "tilelang" logger prints INFO to stderr, as TileLang's does."""
    import logging
    log = logging.getLogger("tilelang")
    if not any(getattr(h, "_tilec", False) for h in log.handlers):
        h = logging.StreamHandler()
        h._tilec = True
        h.setFormatter(logging.Formatter("%(asctime)s  [TileLang:tilec:%(levelname)s]: "
                                         "%(message)s", "%Y-%m-%d %H:%M:%S"))
        log.addHandler(h)
        log.propagate = False
        if log.level == logging.NOTSET:
            log.setLevel(logging.INFO)


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
