"""@tilec.jit and tilec.compile: hand a kernel to libtilec.

From Python, Python runs the Python: a factory runs in CPython (dataclass configs,
helpers imported from other modules, closures, anything), and libtilec compiles only the
@T.prim_func it returns, or an eager-style kernel's body, together with the values of the
names they read (tilec.capture). So a kernel must be a function defined in a .py file
(not a REPL or exec), but where and how it is built is ordinary Python.

compile_file is the other way in, the one `tilec run` takes: libtilec evaluates the file
and the factory itself from literal arguments."""
import contextlib
import functools
import inspect
import math
import os
import sys
import threading

import numpy as np

from . import _lib
from ._lib import TilecError, TilecWarning, check, lib
from .kernel import Kernel
from . import _tensor, capture
from ._tensor import dtype_name

# Defaults for every compile; tilelang.disable_cache() turns the disk cache off here;
# "settings": libtilec's settings under every compile's own (tilec.settings()).
DEFAULTS = {"use_cache": True, "cache_dir": None, "settings": {}}


@contextlib.contextmanager
def settings(**values):
    """Settings (docs/python.md; `tilec help settings` lists them: arch="sm_90a",
    no_wgmma=True, ...) for every compile in the block, in any thread, under the options=
    a compile gives itself; for code that compiles through layers it does not call
    directly (TileLang's examples). Process-wide: threads that need different settings
    at once pass options= instead.

        with tilec.settings(no_ws=True):
            kernel = gemm(1024, 1024, 1024)"""
    saved = DEFAULTS["settings"]
    DEFAULTS["settings"] = dict(saved, **values)
    try:
        yield
    finally:
        DEFAULTS["settings"] = saved


def settings_texts(options):
    """{key: value text} of the settings a compile uses: tilec.settings()'s, then options
    ({key: value}; True/False as 1/0)."""
    if options is not None and not isinstance(options, dict):
        raise TilecError("options must be a dict of settings, not %s" % type(options).__name__)
    out = {}
    for k, v in list(DEFAULTS["settings"].items()) + list((options or {}).items()):
        out[str(k)] = ("1" if v else "0") if isinstance(v, bool) else str(v)
    return out


def default_target():
    """$TILEC_TARGET, else "auto" (CUDA when usable, else the C target)."""
    return os.environ.get("TILEC_TARGET") or "auto"


def normalize_target(target):
    """tilec's name for a target given as tilec or TileLang spell it ("auto", "c", "cuda",
    "cpu", "llvm", "cuda -arch=sm_90", a TVM Target)."""
    if target is None:
        return default_target()
    t = str(target).strip()
    if t in ("", "auto"):
        return default_target()
    word = t.split()[0].lower()
    if word in ("c", "cpu", "llvm", "c-host"):
        return "c"
    if word.startswith("cuda") or word == "nvidia":
        return "cuda"
    return t


# ---- arguments as Python literals ------------------------------------------------------
def literal(value, what="argument"):
    """The Python-literal text libtilec reads for a factory argument."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return repr(None if value is None else bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isfinite(v):
            return repr(v)
        return "float('%s')" % ("nan" if math.isnan(v) else "inf" if v > 0 else "-inf")
    if isinstance(value, str):
        name = getattr(value, "tilec_dtype", None)  # TileLang shim dtypes: str subclass
        return repr(str(name or value))
    if isinstance(value, (tuple, list)):
        items = [literal(v, what) for v in value]
        if isinstance(value, tuple):
            return "(%s)" % (items[0] + "," if len(items) == 1 else ", ".join(items))
        return "[%s]" % ", ".join(items)
    if isinstance(value, dict):
        return "{%s}" % ", ".join("%s: %s" % (literal(k, what), literal(v, what))
                                  for k, v in value.items())
    name = dtype_name(value) if _is_dtype_object(value) else None
    if name is not None:
        return repr(name)
    raise TilecError("%s: a %s cannot be passed to a tilec kernel factory (tilec reads the "
                     "kernel's source, so arguments must be literals: ints, floats, bools, "
                     "strings, None, dtypes, and tuples/lists/dicts of those)"
                     % (what, type(value).__name__))


def _is_dtype_object(v):
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        return True
    mod = type(v).__module__
    return mod.startswith("torch") or mod.startswith("ml_dtypes") or hasattr(v, "tilec_dtype")


class PrimFunc:
    """A @T.prim_func as the TileLang compatibility layer records it: the Python function,
    and, when it was made by calling a plain (undecorated) factory function in Python, that
    factory's name and arguments, so that tilec.compile(prim_func) compiles the factory."""

    def __init__(self, func, factory=None, factory_args=None, frame_locals=None):
        self.func = func
        self.factory = factory
        self.factory_args = factory_args
        self.frame_locals = frame_locals  # the defining function's locals, at the def
        functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        raise TilecError("a @T.prim_func is not called from Python under tilec: compile it "
                         "with tilelang.compile(func, out_idx=...) and call the kernel")

    @classmethod
    def from_decorator(cls, func, depth=2):
        """Wraps func; if the decorator runs inside a module-level function of the same
        file (a factory called in Python), records that function and its arguments."""
        try:
            frame = sys._getframe(depth)
        except ValueError:
            frame = None
        code = frame.f_code if frame is not None else None
        if code is not None and code.co_name != "<module>":
            local = dict(frame.f_locals)
            outer = frame.f_globals.get(code.co_name)
            outer = inspect.unwrap(outer) if callable(outer) else None
            if getattr(outer, "__code__", None) is code:
                nargs = code.co_argcount + code.co_kwonlyargcount
                names = code.co_varnames[:nargs]
                args = {n: local[n] for n in names if n in local}
                return cls(func, outer, args, local)
            return cls(func, frame_locals=local)
        return cls(func)


# ---- compiling ------------------------------------------------------------------------------
def _is_tensor(x):
    """Whether a call argument is a tensor (numpy, torch, or any array with a shape and a
    dtype that DLPack or the CUDA array interface describes)."""
    if isinstance(x, np.ndarray) or _tensor.is_torch_tensor(x):
        return True
    return hasattr(x, "shape") and hasattr(x, "dtype") and (
        hasattr(x, "__dlpack__") or hasattr(x, "__cuda_array_interface__"))


def _strides(x):
    """x's strides in elements, or None."""
    if _tensor.is_torch_tensor(x):
        return tuple(x.stride())
    st = getattr(x, "strides", None)
    item = getattr(getattr(x, "dtype", None), "itemsize", None)
    if st is None or not item:
        return None
    return tuple(int(v) // item for v in st)


def tensor_signature(x):
    """(shape, strides, dtype name) of a tensor argument: what an eager kernel is
    specialized to."""
    return (tuple(int(d) for d in x.shape), _strides(x), dtype_name(x.dtype))


def _shape_structs(inputs, keep):
    """ctypes DLTensors (no data) describing {name: tensor_signature}."""
    arr = (_lib.DLTensorP * max(len(inputs), 1))()
    names = (_lib.ctypes.c_char_p * max(len(inputs), 1))()
    for i, (name, (shape, strides, _)) in enumerate(inputs.items()):
        t = _lib.DLTensor()
        t.ndim = len(shape)
        sh = (_lib.ctypes.c_int64 * max(len(shape), 1))(*shape)
        keep.append(sh)
        t.shape = _lib.ctypes.cast(sh, _lib.ctypes.POINTER(_lib.ctypes.c_int64))
        if strides is not None:
            st = (_lib.ctypes.c_int64 * max(len(strides), 1))(*strides)
            keep.append(st)
            t.strides = _lib.ctypes.cast(st, _lib.ctypes.POINTER(_lib.ctypes.c_int64))
        keep.append(t)
        arr[i] = _lib.ctypes.pointer(t)
        names[i] = name.encode("utf-8")
    keep.extend([arr, names])
    return arr, names


def compile_file(path, factory=None, defines=None, out_idx=None, target=None, use_cache=None,
                 cache_dir=None, inputs=None, options=None, build=1):
    """Compiles FACTORY (a function or prim_func name; None = the last one) of the file at
    path. defines: {name: literal text}. out_idx: None (the file's @jit out_idx) or a list
    of parameter indices. inputs: an eager-style kernel's tensors, {parameter name:
    tensor_signature}, whose shapes give its T.const sizes. options: settings ({key:
    value}: arch, no_ws, ...; docs/python.md). Returns a Kernel."""
    keep = []
    opt = _options(keep, defines, out_idx, target, use_cache, cache_dir, inputs, options)
    if factory:
        keep.append(factory.encode("utf-8"))
        opt.factory = keep[-1]
    opt.build = build
    handle = _lib.ctypes.c_void_p()
    check(lib().tl_compile_file(path.encode("utf-8"), _lib.ctypes.byref(opt),
                                _lib.ctypes.byref(handle)))
    if build == 2:  # TL_BUILD_ONLY: built into the cache, nothing to keep
        lib().tl_kernel_destroy(handle.value)
        return None
    k = _kernel(handle, path, factory, defines)
    fixed = settings_texts(options)  # the settings as they were for this compile

    def rebuild(directory):
        """Builds the same kernel again into cache directory `directory`, unloaded."""
        compile_file(path, factory, defines, out_idx, target, True, directory, inputs, fixed,
                     build=2)
    k.rebuild = rebuild
    return k


def compile_capture(cap, defines=None, out_idx=None, target=None, use_cache=None,
                    cache_dir=None, inputs=None, configs=None, name=None, build=1, options=None):
    """Compiles a tilec.capture.Capture (its first function is the kernel); defines: an
    eager kernel's compile-time arguments as value texts; inputs and options as for
    compile_file; configs: pass configs {key: value text}; name: the kernel's (default:
    the function's)."""
    keep = []
    opt = _options(keep, defines, out_idx, target, use_cache, cache_dir, inputs, options)
    if configs:
        arr = (_lib.Define * len(configs))()
        for i, (k, v) in enumerate(configs.items()):
            keep.extend([k.encode("utf-8"), v.encode("utf-8")])
            arr[i].name, arr[i].value = keep[-2], keep[-1]
        keep.append(arr)
        opt.pass_configs, opt.npass_configs = arr, len(configs)
    if name:
        keep.append(name.encode("utf-8"))
        opt.factory = keep[-1]
    opt.build = build
    handle = _lib.ctypes.c_void_p()
    check(lib().tl_compile_capture(_lib.ctypes.byref(cap.structs(keep)),
                                   _lib.ctypes.byref(opt), _lib.ctypes.byref(handle)))
    if build == 2:  # TL_BUILD_ONLY: built into the cache, nothing to keep
        lib().tl_kernel_destroy(handle.value)
        return None
    k = _kernel(handle, cap.funcs[0]["filename"], name or cap.funcs[0]["name"], defines)
    fixed = settings_texts(options)  # the settings as they were for this compile

    def rebuild(directory):
        """Builds the same kernel again into cache directory `directory`, unloaded."""
        compile_capture(cap, defines, out_idx, target, True, directory, inputs, configs, name,
                        build=2, options=fixed)
    k.rebuild = rebuild
    return k


def _kernel(handle, path, factory, defines):
    k = Kernel(handle.value, source_file=path, factory=factory, defines=dict(defines or {}))
    if k.warnings:
        import warnings
        for line in k.warnings.splitlines():
            warnings.warn(line, TilecWarning, stacklevel=4)
    return k


def _options(keep, defines, out_idx, target, use_cache, cache_dir, inputs, options=None):
    """A tl_options; keep holds what it points to."""
    L = lib()
    defines = dict(defines or {})
    opt = L.tl_options_default()

    def c(s):
        b = s.encode("utf-8")
        keep.append(b)
        return b

    opt.target = c(normalize_target(target))
    arr = (_lib.Define * max(len(defines), 1))()
    for i, (k, v) in enumerate(defines.items()):
        arr[i].name, arr[i].value = c(k), c(v)
    opt.defines, opt.ndefines = arr, len(defines)
    use_cache = DEFAULTS["use_cache"] if use_cache is None else use_cache
    opt.use_cache = 1 if use_cache else 0
    cache_dir = cache_dir or DEFAULTS["cache_dir"]
    opt.cache_dir = c(str(cache_dir)) if cache_dir else None
    if out_idx is not None:
        idx = (_lib.ctypes.c_int * max(len(out_idx), 1))(*out_idx)
        keep.append(idx)
        opt.out_idx, opt.nout_idx = idx, len(out_idx)
    if inputs:
        opt.inputs, opt.input_names = _shape_structs(inputs, keep)
        opt.ninputs = len(inputs)
    texts = settings_texts(options)
    if texts:
        sets = (_lib.Define * len(texts))()
        for i, (k, v) in enumerate(texts.items()):
            sets[i].name, sets[i].value = c(k), c(v)
        keep.append(sets)
        opt.settings, opt.nsettings = sets, len(texts)
    keep.append(arr)
    return opt


def normalize_out_idx(out_idx):
    if out_idx is None:
        return None
    if isinstance(out_idx, (int, np.integer)):
        return [int(out_idx)]
    return [int(i) for i in out_idx]


class JITFunction:
    """A kernel factory decorated with @tilec.jit: calling it with the factory's arguments
    returns a compiled Kernel, cached in memory per argument tuple (and on disk by
    libtilec). .compile(*args, **kwargs) does the same; .get_kernel(...) too."""

    def __init__(self, func, out_idx=None, target=None, use_cache=None, cache_dir=None,
                 pass_configs=None, options=None):
        if isinstance(func, JITFunction):
            func = func.func
        self.func = func
        self.pass_configs = pass_configs if pass_configs is not None else {}
        self.options = dict(options or {})
        self.out_idx = normalize_out_idx(out_idx)
        self.target = target
        self.use_cache = use_cache
        self.cache_dir = cache_dir
        self._kernels = {}
        self._eager = None
        self._lock = threading.Lock()
        self._sig = None if isinstance(func, PrimFunc) else inspect.signature(func)
        functools.update_wrapper(self, func.func if isinstance(func, PrimFunc) else func)

    def split(self, args, kwargs):
        """An eager-style kernel's arguments: ({name: compile-time value}, {name: tensor}).
        Keywords that name no parameter are its T.const sizes."""
        extra = {k: kwargs.pop(k) for k in list(kwargs) if k not in self._sig.parameters}
        try:
            bound = self._sig.bind_partial(*args, **kwargs)
        except TypeError as e:
            raise TypeError("%s(): %s" % (self.__name__, e)) from None
        values = dict(bound.arguments, **extra)
        tensors = {k: v for k, v in values.items() if _is_tensor(v)}
        return {k: v for k, v in values.items() if k not in tensors}, tensors

    def bind(self, args, kwargs):
        """({parameter name: literal text}, {parameter name: tensor}) for the arguments
        given, for libtilec to evaluate the file itself (the autotuner's path)."""
        if self._sig is None:
            if args or kwargs:
                raise TilecError("the prim_func '%s' takes no compile-time arguments"
                                 % self.func.__name__)
            return {}, {}
        if not self.is_eager():
            try:
                bound = self._sig.bind_partial(*args, **kwargs)
            except TypeError as e:
                raise TypeError("%s(): %s" % (self.__name__, e)) from None
            return {k: literal(v, "%s(%s=...)" % (self.__name__, k))
                    for k, v in bound.arguments.items()}, {}
        values, tensors = self.split(args, dict(kwargs))
        return {k: literal(v, "%s(%s=...)" % (self.__name__, k))
                for k, v in values.items()}, tensors

    def capture(self, args, kwargs):
        """(Capture, {name: value text}, {name: tensor}): runs a factory in Python and
        captures the prim_func it returns; captures an eager kernel with its arguments."""
        if isinstance(self.func, PrimFunc):
            if args or kwargs:
                raise TilecError("the prim_func '%s' takes no compile-time arguments"
                                 % self.func.__name__)
            return capture_prim_func(self.func), {}, {}
        if self.is_eager():
            values, tensors = self.split(args, dict(kwargs))
            cap = capture.capture_kernel(self.func, capture.JIT)
            defines = {k: cap.value(v, "the argument '%s'" % k) for k, v in values.items()}
            return cap, defines, tensors
        result = self.func(*args, **kwargs)
        if not isinstance(result, PrimFunc):
            raise TilecError("the factory '%s' returned %s, not a @T.prim_func"
                             % (self.__name__, type(result).__name__))
        return capture_prim_func(result), {}, {}

    def _compiling(self, starts):
        """Called before (starts) and after a new kernel compiles (the compat layer logs)."""

    def _arguments_text(self, args, kwargs):
        """{name: text} of the factory arguments given (Kernel.defines): Python literals
        where they are literals, else their repr."""
        if self._sig is None:
            return {}
        try:
            bound = self._sig.bind_partial(*args, **kwargs).arguments
        except TypeError:
            return {}
        out = {}
        for k, v in bound.items():
            if _is_tensor(v):
                continue
            try:
                out[k] = literal(v)
            except TilecError:
                out[k] = repr(v)
        return out

    def kernel_name(self):
        """The kernel's name: the factory's (a prim_func made by an undecorated factory:
        that factory's), else the function's."""
        if isinstance(self.func, PrimFunc):
            return self.func.factory.__name__ if self.func.factory else self.func.__name__
        return self.__name__

    def is_eager(self):
        """Whether the function is an eager-style kernel (its body is the kernel: it uses
        T.const, T.empty or T.Kernel and defines no @T.prim_func)."""
        if self._eager is None:
            self._eager = not isinstance(self.func, PrimFunc) and _body_is_eager(self.func)
        return self._eager

    def __call__(self, *args, **kwargs):
        """A factory: its Kernel. An eager-style kernel called with tensors: runs it on
        them and returns its outputs (TileLang's eager call)."""
        kernel, tensors = self._compile(args, kwargs)
        if not tensors or not self.is_eager():
            return kernel
        names = [p.name for p in kernel.input_params]
        missing = [n for n in names if n not in tensors]
        if missing:
            raise TypeError("%s(): missing tensor argument%s %s" % (
                self.__name__, "s" if len(missing) > 1 else "", ", ".join(missing)))
        return kernel(*[tensors[n] for n in names])

    def get_kernel(self, *args, **kwargs):
        return self.compile(*args, **kwargs)

    def get_kernel_source(self, *args, **kwargs):
        """The generated source of the kernel for these arguments (TileLang's JITImpl)."""
        return self.compile(*args, **kwargs).get_kernel_source()

    def par_compile(self, configs, num_workers=None, ignore_error=False):
        """Kernels for several configs (dicts of keyword arguments or tuples of positional
        ones), compiled on threads (TileLang's JITImpl.par_compile); with ignore_error a
        config that fails gives None."""
        import concurrent.futures

        def one(cfg):
            try:
                if isinstance(cfg, dict):
                    return self.compile(**cfg)
                return self.compile(*cfg)
            except Exception:
                if ignore_error:
                    return None
                raise
        with concurrent.futures.ThreadPoolExecutor(max_workers=num_workers) as pool:
            return list(pool.map(one, list(configs)))

    def compile(self, *args, **kwargs):
        return self._compile(args, kwargs)[0]

    def _config_texts(self, cap, extra=None):
        """pass_configs (the function's, then extra's over them) as {key: value text};
        keys are strings or TileLang's PassConfigKey members (their names)."""
        out = {}
        for configs in (self.pass_configs, extra or {}):
            if not isinstance(configs, dict):
                raise TilecError("pass_configs must be a dict, not %s" % type(configs).__name__)
        for k, v in dict(self.pass_configs, **(extra or {})).items():
            key = getattr(k, "value", None) or getattr(k, "name", None) or str(k)
            out[str(key)] = cap.value(v, "pass_configs[%r]" % (key,))
        return out

    def _compile(self, args, kwargs, target=None, pass_configs=None):
        """(Kernel, tensors): compiled once per captured program, arguments, tensor
        signature and pass configs (the factory itself runs on every call, as Python code
        does). pass_configs: a config's own, over the function's (the autotuner's)."""
        cap, defines, tensors = self.capture(args, dict(kwargs))
        target = normalize_target(target or self.target)
        inputs = {k: tensor_signature(v) for k, v in tensors.items()}
        configs = self._config_texts(cap, pass_configs)
        sets = settings_texts(self.options)
        key = (cap.key(), tuple(sorted(defines.items())), tuple(sorted(inputs.items())),
               target, tuple(sorted(configs.items())), tuple(sorted(sets.items())))
        k = self._kernels.get(key)
        if k is None:
            self._compiling(True)
            k = compile_capture(cap, defines, self.out_idx, target, self.use_cache,
                                self.cache_dir, inputs=inputs, configs=configs,
                                name=self.kernel_name(), options=sets)
            k.defines = self._arguments_text(args, kwargs)
            self._compiling(False)
            with self._lock:
                k = self._kernels.setdefault(key, k)
        return k, tensors

    def compile_defines(self, defines, target=None, tensors=None, pass_configs=None):
        """The Kernel for these arguments given as Python-literal texts ({name: text}, as
        literal() writes them: the autotuner's configs) and, for an eager-style kernel,
        these tensors; compiled as a call with the values would be, with pass_configs
        over the function's."""
        values = {k: eval(v, {"__builtins__": {}}, {"float": float})  # our own literals
                  for k, v in defines.items()}
        values.update(tensors or {})
        return self._compile((), values, target, pass_configs)[0]

    def identity(self):
        """What names the function's code for a disk cache: (source path, qualified name,
        the literal texts of the values it closes over), or None when it has no source
        file or closes over a value with no literal (then nothing may be cached)."""
        fn = inspect.unwrap(self.func.func if isinstance(self.func, PrimFunc) else self.func)
        try:
            path = inspect.getsourcefile(fn)
            cells = {n: literal(c.cell_contents) for n, c in zip(
                fn.__code__.co_freevars, fn.__closure__ or ())}
        except (TypeError, ValueError, TilecError):
            return None
        if not path or path.startswith("<") or not os.path.isfile(path):
            return None
        return os.path.abspath(path), fn.__qualname__, cells

    def __repr__(self):
        return "<tilec.JITFunction %s>" % self.__name__


def capture_prim_func(pf):
    """The Capture of a PrimFunc: its function, with the locals of the function that
    defined it for the names its annotations read."""
    return capture.capture_kernel(pf.func, capture.PRIM, pf.frame_locals)


def _body_is_eager(func):
    """Whether func's body is an eager-style kernel (as libtilec decides, eager.c)."""
    import ast
    import textwrap
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(func))))
    except (OSError, TypeError, SyntaxError):
        return False
    fn = tree.body[0] if tree.body else None
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    eager = False
    for node in ast.walk(fn):
        if node is not fn and isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                d = d.func if isinstance(d, ast.Call) else d
                if getattr(d, "attr", getattr(d, "id", None)) == "prim_func":
                    return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("const", "empty", "Kernel"):
            eager = True
    return eager


def jit(func=None, *, out_idx=None, target=None, use_cache=None, cache_dir=None,
        pass_configs=None, options=None, **ignored):
    """Decorator for a kernel factory (or a top-level @T.prim_func):

        @tilec.jit(out_idx=[-1], target="c")
        def matmul(M, N, K, block_M=64, ...):
            @T.prim_func
            def main(A: T.Tensor((M, K), "float16"), ...): ...
            return main

        kernel = matmul(1024, 1024, 1024)      # a tilec.Kernel, cached per arguments

    out_idx: the output parameters (int or list; negative counts from the end), returned
    by kernel(*inputs); None keeps the file's own @tilelang.jit(out_idx=...). target:
    "auto" (default; $TILEC_TARGET overrides), "c" or "cuda". use_cache / cache_dir:
    libtilec's disk cache of built kernels. pass_configs: TileLang's pass configs
    ({key: value}; docs/language.md says which tilec acts on). options: tilec's settings
    ({"arch": "sm_90a", "no_ws": True, ...}; docs/python.md), over the TILEC_* variables.
    Other keywords TileLang takes (execution_backend, verbose, ...) are accepted and
    ignored."""
    def wrap(f):
        return JITFunction(f, out_idx=out_idx, target=target, use_cache=use_cache,
                           cache_dir=cache_dir, pass_configs=pass_configs, options=options)
    return wrap if func is None else wrap(func)


def compile(func, out_idx=None, target=None, use_cache=None, cache_dir=None,
            pass_configs=None, options=None, **factory_args):
    """Compiles func (a factory, a @T.prim_func, or a @tilec.jit function) with the factory
    arguments given as keywords; returns a Kernel. options: tilec's settings, as for
    jit. Keywords TileLang's compile takes (execution_backend, target_host, verbose,
    compile_flags) are ignored."""
    for k in ("execution_backend", "target_host", "verbose", "compile_flags"):
        factory_args.pop(k, None)
    if isinstance(func, JITFunction):
        if out_idx is None and target is None and use_cache is None and cache_dir is None \
                and pass_configs is None and options is None:
            return func.compile(**factory_args)
        func = JITFunction(func.func, out_idx=func.out_idx if out_idx is None else out_idx,
                           target=target or func.target,
                           use_cache=func.use_cache if use_cache is None else use_cache,
                           cache_dir=cache_dir or func.cache_dir,
                           pass_configs=func.pass_configs if pass_configs is None
                           else pass_configs,
                           options=dict(func.options, **(options or {})))
        return func.compile(**factory_args)
    if not isinstance(func, PrimFunc) and not callable(func):
        raise TilecError("tilec.compile takes a function, got %s" % type(func).__name__)
    return JITFunction(func, out_idx=out_idx, target=target, use_cache=use_cache,
                       cache_dir=cache_dir, pass_configs=pass_configs,
                       options=options).compile(**factory_args)


def cache_dir():
    """libtilec's kernel cache directory ($TILEC_CACHE_DIR, $XDG_CACHE_HOME/tilec,
    ~/.cache/tilec)."""
    return _lib.text(lib().tl_cache_dir(None))


def clear_cache():
    check(lib().tl_cache_clear(None))


def info():
    """libtilec's description of itself: version, targets, compilers, GPU, cache dir."""
    return _lib.text(lib().tl_info())
