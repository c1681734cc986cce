"""The capture: a kernel function and the Python values it reads, for libtilec.

From Python, Python runs the Python: a factory runs in CPython, and libtilec compiles only
the kernel function it produced (a @T.prim_func, or an eager-style @jit function) and the
functions that one calls. This module describes such a function to libtilec
(tl_compile_capture, include/tilec.h): the text of its file, the line and name of its
`def`, and the value of every free name its text mentions (closure cells, the factory's
locals the annotations read, module globals), each as a small Python expression:

* numbers, strings, bools, None, dtypes (`T.float16`), and tuples/lists/dicts of them;
* functions: their own capture (`__func__(i)`), recursively;
* modules: `__module__("math")`;
* other objects (dataclass configs, enum members, plain objects, classes): their
  attributes (`__object__("Config", block_M=128, ...)`), shared through `__obj__(i)` so
  that identity holds;
* a function of no arguments that asks the host (it reads torch, numpy or another module
  libtilec cannot evaluate: `is_hopper()`): called once, here, `__result__("name", v)`;
* anything else (a tensor, a lambda, a method): `__opaque__("...")`, an error that names
  the value only if the kernel uses it.
"""
import ast
import builtins
import dataclasses
import enum
import functools
import inspect
import linecache
import math
import sys
import textwrap
import types

import numpy as np

from . import _lib
from ._lib import TilecError
from ._tensor import dtype_name

PLAIN, PRIM, MACRO, JIT = 0, 1, 2, 3
VERSION = 2
MAX_DEPTH = 8            # nesting of objects/sequences followed before giving up
MAX_ITEMS = 100000       # elements of one sequence


# Modules libtilec knows by name (the T namespace, math, torch/numpy dtypes, tilec); any
# other module a kernel reads is captured as an object of the attributes it reads.
KNOWN_MODULES = ("tilelang", "tilec", "math", "torch", "numpy", "builtins", "tvm")
# Modules whose functions libtilec's meta level evaluates (a helper reading any other one
# asks the host: see _host_result).
KERNEL_MODULES = ("tilelang", "tilec", "math", "tvm", "builtins")


@functools.lru_cache(maxsize=256)
def _names_in(source):
    """({identifier: None} of every name the function's text mentions, in order,
    {identifier: attributes read on it} (`cm.LOG2E` -> {"cm": {"LOG2E"}}))."""
    tree = ast.parse(textwrap.dedent(source))
    seen, attrs = {}, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            seen.setdefault(node.id, None)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            attrs.setdefault(node.value.id, set()).add(node.attr)
    return tuple(seen), attrs


def _source_of(fn):
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        raise TilecError("tilec compiles a kernel from its source, and %r has none "
                         "(defined with exec?)" % getattr(fn, "__qualname__", fn)) from None


def _language_module():
    return sys.modules.get("tilelang.language")


class Capture:
    """The functions and objects of one kernel, as libtilec's tl_capture takes them."""

    def __init__(self):
        self.funcs = []     # dicts: filename, source, line, name, kind, env, defaults
        self._func_ids = {}
        self.objects = []   # value texts
        self._obj_ids = {}
        self._keep = []     # objects whose id() is a key here stay alive

    # ---- functions ------------------------------------------------------------------------
    def add_function(self, fn, kind=PLAIN, extra_names=None):
        """Index of fn's capture. extra_names: values of names the text reads that neither
        the closure nor the globals hold (a factory's locals, read by the annotations of
        the prim_func it defines)."""
        fn = inspect.unwrap(fn)
        if id(fn) in self._func_ids:
            return self._func_ids[id(fn)]
        if not isinstance(fn, types.FunctionType):
            raise TilecError("%r is not a Python function" % (fn,))
        if fn.__name__ == "<lambda>":
            raise TilecError("a lambda cannot be captured as a kernel function")
        code = fn.__code__
        filename = code.co_filename
        text = "".join(linecache.getlines(filename, fn.__globals__))
        if not text:
            raise TilecError("tilec compiles a kernel from its source, and %r has none "
                             "(defined with exec, or its file %s is gone?)"
                             % (fn.__qualname__, filename))
        index = len(self.funcs)
        self._func_ids[id(fn)] = index
        self._keep.append(fn)
        entry = {"filename": filename, "source": text, "line": code.co_firstlineno,
                 "name": fn.__name__, "kind": kind, "env": {}, "defaults": {}}
        self.funcs.append(entry)
        cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
        local = set(code.co_varnames)
        names, attrs = _names_in(_source_of(fn))
        for name in names:
            if name in local:
                continue
            found, value = self._lookup(name, cells, extra_names or {}, fn.__globals__)
            if not found:
                continue
            if isinstance(value, types.ModuleType) and not self._known(value):
                entry["env"][name] = self._module_object(value, attrs.get(name, ()), name)
            else:
                entry["env"][name] = self.value(value, "'%s'" % name)
        sig = inspect.signature(fn)
        for p in sig.parameters.values():
            if p.default is not p.empty:
                entry["defaults"][p.name] = self.value(p.default, "the default of '%s'" % p.name)
        return index

    @staticmethod
    def _lookup(name, cells, extra, globs):
        if name in cells:
            try:
                return True, cells[name].cell_contents
            except ValueError:  # a cell not yet assigned
                return False, None
        if name in extra:
            return True, extra[name]
        if name in globs:
            return True, globs[name]
        return False, None

    # ---- values ---------------------------------------------------------------------------
    def value(self, v, what, depth=0):
        """The value text of v."""
        if depth > MAX_DEPTH:
            return self._opaque(what, "nested too deeply")
        if v is None or isinstance(v, (bool, np.bool_)):
            return repr(None if v is None else bool(v))
        if isinstance(v, enum.Enum):
            return self._object(v, what, depth)
        if isinstance(v, (int, np.integer)):
            return str(int(v))
        if isinstance(v, (float, np.floating)):
            f = float(v)
            if math.isfinite(f):
                return repr(f)
            return "float('%s')" % ("nan" if math.isnan(f) else "inf" if f > 0 else "-inf")
        if isinstance(v, types.ModuleType):
            return self._module(v)
        if isinstance(v, type) and isinstance(v.__dict__.get("tilec_capture"), str):
            return v.tilec_capture  # a class kernels use by name (DataType: T.dtype)
        if isinstance(v, str) and isinstance(getattr(v, "tilec_dtype", None), str):
            return "T.%s" % v.tilec_dtype  # compat T.float16 (a str)
        if isinstance(getattr(v, "tilec_expr", None), str):  # compat T.dynamic sizes
            return v.tilec_expr
        if isinstance(v, str):
            return repr(str(v))
        if isinstance(v, (tuple, list)):
            if len(v) > MAX_ITEMS:
                return self._opaque(what, "a sequence of %d elements" % len(v))
            items = [self.value(x, what, depth + 1) for x in v]
            if isinstance(v, list):
                return "[%s]" % ", ".join(items)
            return "(%s)" % (items[0] + "," if len(items) == 1 else ", ".join(items))
        if isinstance(v, dict):
            return "{%s}" % ", ".join("%s: %s" % (self.value(k, what, depth + 1),
                                                  self.value(x, what, depth + 1))
                                      for k, x in v.items())
        dt = _dtype_text(v)
        if dt:
            return dt
        return self._callable_or_object(v, what, depth)

    def _callable_or_object(self, v, what, depth):
        from .jit import JITFunction, PrimFunc
        if _is_array(v):
            return self._opaque(what, "a %s (tensors reach a kernel as its arguments, not "
                                      "as captured values)" % type(v).__name__)
        if isinstance(v, PrimFunc):
            return "__func__(%d)" % self.add_function(v.func, PRIM)
        if isinstance(v, JITFunction):
            inner = v.func.func if isinstance(v.func, PrimFunc) else v.func
            return "__func__(%d)" % self.add_function(inner, PLAIN)
        if isinstance(v, types.FunctionType) and isinstance(getattr(v, "tilec_capture", None),
                                                            str):
            return v.tilec_capture  # a function libtilec has by name (compat/intrinsics)
        if isinstance(v, types.FunctionType):
            if v.__name__ == "<lambda>":
                return self._opaque(what, "a lambda (tilec captures functions defined with "
                                          "def)")
            kind = MACRO if getattr(v, "__tilec_macro__", False) else PLAIN
            result = self._host_result(v, what, depth) if kind == PLAIN else None
            if result is not None:
                return result
            try:
                return "__func__(%d)" % self.add_function(v, kind)
            except TilecError as e:  # an error only if a kernel calls it
                return "__opaque__(%r)" % ("%s: %s" % (what, e))
        if isinstance(v, types.BuiltinFunctionType):
            mod = getattr(v, "__module__", None)
            if mod == "math":
                return '__module__("math").%s' % v.__name__
            if mod == "builtins" and getattr(builtins, v.__name__, None) is v:
                return v.__name__
            return self._opaque(what, "the built-in function %s" % v.__name__)
        if isinstance(v, type) or dataclasses.is_dataclass(v) or hasattr(v, "__dict__"):
            return self._object(v, what, depth)
        return self._opaque(what, "an object of type %s" % type(v).__name__)

    @staticmethod
    def _known(m):
        return m is _language_module() or m.__name__.split(".")[0] in KNOWN_MODULES

    def _module_object(self, m, read, name):
        """A user's module as an object of the attributes the kernel reads of it."""
        parts = []
        for attr in sorted(read):
            if hasattr(m, attr):
                parts.append(", %s=%s" % (attr, self.value(getattr(m, attr),
                                                           "'%s.%s'" % (name, attr))))
        return "__object__(%r%s)" % ("module " + m.__name__, "".join(parts))

    def _module(self, m):
        if m is _language_module() or m.__name__ in ("tilec.compat.language",):
            return '__module__("tilelang.language")'
        return "__module__(%r)" % m.__name__

    @staticmethod
    def _opaque(what, desc):
        return "__opaque__(%r)" % ("%s is %s, which cannot reach a kernel (captured values "
                                   "are numbers, strings, dtypes, sequences, functions and "
                                   "objects of those)" % (what, desc))

    def _object(self, v, what, depth):
        """__obj__(i), the object's attributes as __object__(...), made once per object."""
        if id(v) in self._obj_ids:
            return "__obj__(%d)" % self._obj_ids[id(v)]
        index = len(self.objects)
        self._obj_ids[id(v)] = index
        self._keep.append(v)
        self.objects.append(None)
        attrs = {}
        for name, x in _attributes(v):
            attrs[name] = self.value(x, "%s.%s" % (what, name), depth + 1)
        methods = _methods(type(v)) if not isinstance(v, (type, enum.Enum)) else {}
        if methods:
            attrs["__class__"] = self._methods_object(type(v), methods, what)
        tname = v.__name__ if isinstance(v, type) else type(v).__name__
        self.objects[index] = "__object__(%r%s)" % (
            tname, "".join(", %s=%s" % (k, t) for k, t in attrs.items()))
        return "__obj__(%d)" % index

    def _methods_object(self, cls, methods, what):
        """__obj__(i) of an object whose attributes are cls's methods (captured functions;
        one that cannot be captured is an error only if a kernel calls it)."""
        key = ("methods", id(cls))
        if key in self._obj_ids:
            return "__obj__(%d)" % self._obj_ids[key]
        index = len(self.objects)
        self._obj_ids[key] = index
        self._keep.append(cls)
        self.objects.append(None)
        parts = []
        for name, fn in methods.items():
            try:
                text = "__func__(%d)" % self.add_function(fn, PLAIN)
            except TilecError as e:
                text = self._opaque("%s.%s()" % (what, name), "a method tilec cannot read "
                                    "(%s)" % e)
            parts.append(", %s=%s" % (name, text))
        self.objects[index] = "__object__(%r%s)" % ("class " + cls.__name__, "".join(parts))
        return "__obj__(%d)" % index

    # ---- to libtilec ------------------------------------------------------------------------
    def structs(self, keep):
        """A ctypes tl_capture; keep holds what it points to."""
        def c(s):
            b = s.encode("utf-8")
            keep.append(b)
            return b

        def defines(d):
            arr = (_lib.Define * max(len(d), 1))()
            for i, (k, v) in enumerate(d.items()):
                arr[i].name, arr[i].value = c(k), c(v)
            keep.append(arr)
            return arr, len(d)

        funcs = (_lib.CaptureFunc * len(self.funcs))()
        for i, f in enumerate(self.funcs):
            funcs[i].filename, funcs[i].source = c(f["filename"]), c(f["source"])
            funcs[i].line, funcs[i].name, funcs[i].kind = f["line"], c(f["name"]), f["kind"]
            funcs[i].env, funcs[i].nenv = defines(f["env"])
            funcs[i].defaults, funcs[i].ndefaults = defines(f["defaults"])
        objs = (_lib.ctypes.c_char_p * max(len(self.objects), 1))(
            *[c(o) for o in self.objects])
        keep.extend([funcs, objs])
        cap = _lib.Capture(version=VERSION, funcs=funcs, nfuncs=len(self.funcs), objects=objs,
                           nobjects=len(self.objects))
        keep.append(cap)
        return cap

    def _host_result(self, fn, what, depth):
        """__result__(...) for a function of no parameters that reads a module libtilec
        cannot evaluate (torch, numpy, os, ...): its result, from one call now; None for any
        other function, or when the call fails or returns what cannot be captured (the
        function is then captured as usual, and an error shows where it is used)."""
        try:
            if inspect.signature(fn).parameters:
                return None
            names, _ = _names_in(_source_of(fn))
        except (TypeError, ValueError, OSError):
            return None
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        host = False
        for name in names:
            found, v = self._lookup(name, cells, {}, fn.__globals__)
            if found and isinstance(v, types.ModuleType):
                host = host or v.__name__.split(".")[0] not in KERNEL_MODULES
        if not host:
            return None
        try:
            text = self.value(fn(), what, depth + 1)
        except Exception:
            return None
        if text.startswith("__opaque__"):
            return None
        return "__result__(%r, %s)" % (fn.__name__, text)

    def key(self):
        """What the compiled kernel depends on, hashable (the texts of everything)."""
        return (tuple((f["filename"], f["line"], f["name"], f["kind"],
                       tuple(sorted(f["env"].items())), tuple(sorted(f["defaults"].items())))
                      for f in self.funcs), tuple(self.objects))


def _is_array(v):
    return isinstance(v, np.ndarray) or type(v).__module__.startswith("torch") or \
        hasattr(v, "__dlpack__") or hasattr(v, "__cuda_array_interface__")


def _dtype_text(v):
    """T.<name> for a numpy, torch or ml_dtypes dtype, else None."""
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        pass
    elif not type(v).__module__.startswith(("torch", "ml_dtypes")) or _is_array(v):
        return None
    try:
        name = dtype_name(v)
    except Exception:
        return None
    return "T.%s" % name if name else None


def _attributes(v):
    """(name, value) of what a kernel may read of an object: an enum member's name and
    value, a class's members, an instance's fields, class attributes and properties."""
    if isinstance(v, enum.Enum):
        return [("name", v.name), ("value", v.value)]
    if isinstance(v, type):
        if issubclass(v, enum.Enum):
            return list(v.__members__.items())
        return [(k, x) for k, x in _class_attrs(v)]
    out = {}
    for k, x in _class_attrs(type(v)):
        if isinstance(x, property):
            try:
                x = getattr(v, k)
            except Exception:  # a property that fails is left out, as if absent
                continue
        out[k] = x
    if dataclasses.is_dataclass(v):
        out.update((f.name, getattr(v, f.name)) for f in dataclasses.fields(v))
    out.update(getattr(v, "__dict__", {}))
    return list(out.items())


def _methods(cls):
    """{name: function} of cls's plain methods (not dunder), bases first."""
    out = {}
    for base in reversed(cls.__mro__[:-1]):
        if base.__module__ == "builtins":
            continue
        for k, x in vars(base).items():
            if isinstance(x, types.FunctionType) and not (k.startswith("__") and
                                                          k.endswith("__")):
                out[k] = x
    return out


def _class_attrs(cls):
    """Non-dunder data attributes and property values of cls and its bases."""
    out = {}
    for base in reversed(cls.__mro__[:-1]):
        for k, x in vars(base).items():
            if k.startswith("__") or callable(x) and not isinstance(x, type):
                continue
            if isinstance(x, (staticmethod, classmethod)):
                continue
            out[k] = x
    return out.items()


def capture_kernel(fn, kind, extra_names=None):
    """A Capture whose first function is the kernel fn."""
    cap = Capture()
    cap.add_function(fn, kind, extra_names)
    return cap
