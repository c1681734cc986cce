"""tilec: compile and run TileLang kernels with libtilec (no TileLang, TVM or torch needed).

    import tilec
    import tilelang.language as T     # or tilec.language

    @tilec.jit(out_idx=[-1])
    def add(M=1024, dtype="float32"):
        @T.prim_func
        def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype),
                 C: T.Tensor((M,), dtype)):
            ...
        return main

    kernel = add(4096)                 # a tilec.Kernel (compiled by libtilec from the file)
    c = kernel(a, b)                   # numpy arrays or torch tensors in, outputs back

docs/python.md has the whole guide. Importing this package loads nothing: libtilec is
loaded on first use, torch only when the caller passes torch tensors."""
from ._lib import TilecError, TilecWarning, library_path
from .jit import JITFunction, PrimFunc, cache_dir, clear_cache, compile, info, jit, settings
from .kernel import Kernel, Param
from .profiler import Profiler, TensorSupplyType, assert_close
from .autotuner import autotune

__version__ = "0.1.0"


def version():
    """libtilec's version (tl_version)."""
    from ._lib import lib, text
    return text(lib().tl_version())


def info_json():
    """libtilec's description of itself as a dict (tl_info_json; `tilec info --json`):
    version, targets (available, toolchain, reason), cuda (driver, gpus, nvrtc),
    auto_target, cache_dir, cache_enabled."""
    import json
    from ._lib import lib, text
    fn = getattr(lib(), "tl_info_json", None)
    if fn is None:
        raise TilecError("%s has no tl_info_json: rebuild it" % library_path())
    return json.loads(text(fn()))


def __getattr__(name):
    # tilec.language: TileLang's `T` namespace as inert placeholders (tilec.compat).
    if name == "language":
        from .compat import language
        return language
    raise AttributeError("module 'tilec' has no attribute %r" % name)


__all__ = ["TilecError", "TilecWarning", "JITFunction", "PrimFunc", "Kernel", "Param",
           "Profiler", "TensorSupplyType", "assert_close", "autotune", "jit", "compile",
           "cache_dir", "clear_cache", "info", "info_json", "library_path", "settings",
           "version"]
