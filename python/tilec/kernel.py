"""A compiled kernel: introspection and calls with numpy arrays or torch tensors.

Arguments reach libtilec as DLPack DLTensor structs that point at the caller's memory
(no copies). Each thread has its own preallocated DLTensor array, shape and stride
arrays per kernel, so a call allocates no ctypes objects on its usual path; only fields
that changed since the last call are written.

kernel(*inputs) (the parameters not marked out_idx) returns the outputs:
* numpy inputs: tl_kernel_call allocates them; each comes back as a numpy array over
  that memory, freed with tl_tensor_free when the array is collected.
* torch inputs: outputs are allocated with torch.empty on the inputs' device and the
  kernel runs through tl_kernel_launch (on torch's current CUDA stream for CUDA).
kernel(*all_params) runs in place and returns None."""
import ast
import os
import sys
import threading

import numpy as np

from . import _lib
from . import _tensor
from ._lib import DLTensor, DLTensorP, TilecError, check, lib

_c_int64_p = _lib.ctypes.POINTER(_lib.ctypes.c_int64)
_c_void_p = _lib.ctypes.c_void_p
_CPU = (_lib.kDLCPU, 0)
_MIN_SCRATCH_DIMS = 8
_SPECIAL = ("bfloat16", "float8_e4m3", "float8_e5m2")  # dtypes numpy itself lacks


class Param:
    """One parameter of a kernel: name, dtype (canonical name, e.g. "float16"), shape
    (a tuple of ints, with the symbol's text, e.g. "M", where a dimension is symbolic),
    is_output (allocated by the call), is_scalar, is_pointer (a T.ptr scalar: an address,
    given as an int or as an array/tensor whose data address it takes)."""
    __slots__ = ("index", "name", "dtype", "shape", "is_output", "is_scalar", "is_pointer",
                 "code")

    def __init__(self, index, info):
        self.index = index
        self.name = _lib.text(info.name)
        self.code = (info.dtype.code, info.dtype.bits)
        self.dtype = _tensor.dtype_name_of_code(*self.code)
        shape = []
        for d in range(info.ndim):
            v = info.shape[d]
            shape.append(v if v >= 0 else _lib.text(info.shape_names[d]))
        self.shape = tuple(shape)
        self.is_output = bool(info.is_output)
        self.is_scalar = bool(info.is_scalar)
        self.is_pointer = bool(info.is_pointer)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def torch_dtype(self):
        return _tensor.torch_dtype(self.dtype)

    @property
    def numpy_dtype(self):
        return _tensor.numpy_dtype(self.dtype)

    def shape_text(self):
        dims = ", ".join(str(s) for s in self.shape)
        return "(%s,)" % dims if self.ndim == 1 else "(%s)" % dims

    def __repr__(self):
        kind = "pointer " if self.is_pointer else "scalar " if self.is_scalar else ""
        out = ", output" if self.is_output else ""
        dims = "" if self.is_scalar else "[%s]" % ", ".join(str(s) for s in self.shape)
        return "Param(%s: %s%s%s%s)" % (self.name, kind, self.dtype, dims, out)


# ---- output shapes from the inputs' symbols ---------------------------------------------
_SAFE_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
                ast.Mod: lambda a, b: a % b}


def _shape_expr(text):
    """A function env -> int for a symbolic dimension's text ("M", "M * 2", "(N + 1) // 2",
    "min(M, 64)"), or None if the text uses anything else."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None

    def ok(n):
        if isinstance(n, ast.Name) or (isinstance(n, ast.Constant) and type(n.value) is int):
            return True
        if isinstance(n, ast.BinOp):
            return type(n.op) in _SAFE_BINOPS and ok(n.left) and ok(n.right)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return ok(n.operand)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            return n.func.id in ("min", "max") and not n.keywords and all(map(ok, n.args))
        return False

    if not ok(tree):
        return None

    def ev(n, env):
        if isinstance(n, ast.Name):
            return env[n.id]
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.BinOp):
            return _SAFE_BINOPS[type(n.op)](ev(n.left, env), ev(n.right, env))
        if isinstance(n, ast.UnaryOp):
            return -ev(n.operand, env)
        return (min if n.func.id == "min" else max)(ev(a, env) for a in n.args)

    return lambda env: ev(tree, env)


# ---- per-thread argument slots ----------------------------------------------------------
class _Slot:
    """The DLTensor of one parameter in a scratch array, with its shape/stride arrays and
    the values last written (to skip unchanged fields)."""
    __slots__ = ("t", "dtype", "device", "shape", "strides", "strides_p", "cap", "ndim",
                 "code", "dev", "scalar", "scalar_addr", "param", "strided", "keep")

    def __init__(self, t, param):
        self.t = t
        self.param = param
        self.dtype = t.dtype
        self.dtype.lanes = 1
        self.device = t.device
        self.cap = max(param.ndim, _MIN_SCRATCH_DIMS)
        self.shape = (_lib.ctypes.c_int64 * self.cap)()
        self.strides = (_lib.ctypes.c_int64 * self.cap)()
        self.strides_p = _lib.ctypes.cast(self.strides, _c_int64_p)
        t.shape = _lib.ctypes.cast(self.shape, _c_int64_p)
        self.ndim = self.code = self.dev = None
        self.strided = False  # t.strides is NULL (it starts zeroed)
        self.keep = None  # a DLPack capsule the DLTensor points into
        self.scalar = _scalar_buffer(param) if param.is_scalar else None
        self.scalar_addr = _lib.ctypes.addressof(self.scalar) if self.scalar is not None else 0

    def set_meta(self, ndim, code, dev):
        if ndim != self.ndim:
            if ndim > self.cap:  # rare: more dims than the parameter has; the library
                self.cap = ndim  # will reject it, with the right message
                self.shape = (_lib.ctypes.c_int64 * ndim)()
                self.strides = (_lib.ctypes.c_int64 * ndim)()
                self.strides_p = _lib.ctypes.cast(self.strides, _c_int64_p)
                self.t.shape = _lib.ctypes.cast(self.shape, _c_int64_p)
            self.t.ndim = self.ndim = ndim
        if code is not self.code:
            self.dtype.code, self.dtype.bits = self.code = code
        if dev is not self.dev:
            self.device.device_type, self.device.device_id = self.dev = dev


def _scalar_buffer(p):
    ct = _lib.ctypes
    kinds = {0: {8: ct.c_int8, 16: ct.c_int16, 32: ct.c_int32, 64: ct.c_int64},
             1: {8: ct.c_uint8, 16: ct.c_uint16, 32: ct.c_uint32, 64: ct.c_uint64},
             2: {16: ct.c_uint16, 32: ct.c_float, 64: ct.c_double},
             4: {16: ct.c_uint16}, 6: {8: ct.c_uint8}, 10: {8: ct.c_uint8},
             12: {8: ct.c_uint8}}
    return kinds[p.code[0]][p.code[1]]()


def _scalar_value(p, x):
    """x converted to the raw value the scalar buffer of p stores."""
    code, bits = p.code
    if isinstance(x, (bool, np.bool_)) or code == 6:
        if code not in (0, 1, 6):
            raise TilecError("argument '%s' (param %d): a bool was given but the kernel "
                             "expects a %s scalar" % (p.name, p.index, p.dtype))
        return int(bool(x))
    if code in (0, 1):
        if not isinstance(x, (int, np.integer)):
            raise TilecError("argument '%s' (param %d): %r is not an integer but the kernel "
                             "expects a %s scalar" % (p.name, p.index, x, p.dtype))
        return int(x)
    if code == 2 and bits == 16:
        return int(np.array(x, np.float16).view(np.uint16))
    if code == 4:  # bfloat16: round float32 to nearest even
        u = int(np.array(x, np.float32).view(np.uint32))
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
    if code in (10, 12):
        return int(np.array(x, _tensor.numpy_dtype(p.dtype)).view(np.uint8))
    return float(x)


_NUMBER_TYPES = (int, float, bool, np.number, np.bool_)


_np_codes = _tensor._np_codes
_torch_tensor_type = None  # torch.Tensor once torch is seen (never imported here)
_raw_stream = None         # torch's "current CUDA stream of device i" function


def _is_torch_tensor(x):
    global _torch_tensor_type
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(x, torch.Tensor):
        return False
    _torch_tensor_type = torch.Tensor
    return True

_from_buffer = _lib.ctypes.c_char.from_buffer
_addressof = _lib.ctypes.addressof


def _fill(slot, x):
    """Points slot's DLTensor at x; returns the CUDA device index of x, or -1."""
    t = slot.t
    if type(x) is np.ndarray:
        try:  # C-contiguous and writable (the usual case): the cheapest way to its address
            t.data = _addressof(_from_buffer(x))
            strides = None
        except (TypeError, ValueError, BufferError):
            ai = x.__array_interface__
            t.data = ai["data"][0]
            strides = ai["strides"]
        shape = x.shape
        nd = len(shape)
        code = _np_codes.get(x.dtype) or _tensor.numpy_code(x.dtype)
        if nd != slot.ndim or code is not slot.code or slot.dev is not _CPU:
            slot.set_meta(nd, code, _CPU)
        sh = slot.shape
        for d in range(nd):
            sh[d] = shape[d]
        if strides is None:
            if slot.strided:
                t.strides = None
                slot.strided = False
        else:
            _set_strides(slot, strides, x.itemsize)
        return -1
    if type(x) is _torch_tensor_type:
        return _fill_torch(slot, x)
    if isinstance(x, _NUMBER_TYPES) and slot.scalar is not None:
        slot.scalar.value = _scalar_value(slot.param, x)
        slot.set_meta(0, slot.param.code, _CPU)
        t.data = slot.scalar_addr
        t.strides = None
        slot.strided = False
        return -1
    if _is_torch_tensor(x):
        return _fill_torch(slot, x)
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        return _fill_cai(slot, x, cai)
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return _fill_dlpack(slot, x)
    if hasattr(x, "__array_interface__") or hasattr(x, "__array__"):
        return _fill(slot, np.asarray(x))
    p = slot.param
    raise TilecError("argument '%s' (param %d): expected a numpy array or a torch tensor%s, "
                     "got %s" % (p.name, p.index, " or a number" if p.is_scalar else "",
                                 type(x).__name__))


def _set_strides(slot, strides, item):
    st = slot.strides
    for d, s in enumerate(strides):
        if s % item:
            p = slot.param
            raise TilecError("argument '%s' (param %d): strides[%d] is %d bytes, not a "
                             "multiple of the element size %d" % (p.name, p.index, d, s, item))
        st[d] = s // item
    slot.t.strides = slot.strides_p
    slot.strided = True


_CUDA_DEVS = {}


def _fill_cai(slot, x, cai):
    """A CUDA array of another library (CuPy, Numba: __cuda_array_interface__); its device
    is x.device.id where the object has one, else 0."""
    t = slot.t
    dt = np.dtype(cai["typestr"])
    shape = tuple(cai["shape"])
    dev = getattr(getattr(x, "device", None), "id", 0)
    slot.set_meta(len(shape), _tensor.numpy_code(dt), _cuda_dev(dev))
    t.data = cai["data"][0]
    for d, n in enumerate(shape):
        slot.shape[d] = n
    if cai.get("strides") is None:
        t.strides = None
        slot.strided = False
    else:
        _set_strides(slot, cai["strides"], dt.itemsize)
    return dev


class _DLManagedTensor(_lib.ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", _c_void_p), ("deleter", _c_void_p)]


_capsule_pointer = None


def _fill_dlpack(slot, x):
    """An array of any DLPack producer (JAX, CuPy, TensorFlow, PaddlePaddle, numpy...):
    its DLTensor is read from x.__dlpack__()'s capsule, zero-copy. The capsule is not
    consumed (its deleter runs when it is collected): x owns the memory, and slot keeps
    the capsule until the slot is filled again. CUDA producers are asked to order their
    work before the legacy default stream (stream=1), which launches without torch use."""
    global _capsule_pointer
    if _capsule_pointer is None:
        api = _lib.ctypes.pythonapi
        api.PyCapsule_GetPointer.restype = _c_void_p
        api.PyCapsule_GetPointer.argtypes = [_lib.ctypes.py_object, _lib.ctypes.c_char_p]
        _capsule_pointer = api.PyCapsule_GetPointer
    dev_type, dev_id = x.__dlpack_device__()
    p = slot.param
    if int(dev_type) not in (_lib.kDLCPU, _lib.kDLCUDA, _lib.kDLCUDAHost, _lib.kDLCUDAManaged):
        raise TilecError("argument '%s' (param %d): a DLPack array on device type %d; tilec "
                         "takes host (1) or CUDA (2) memory" % (p.name, p.index, dev_type))
    cap = x.__dlpack__(stream=1) if int(dev_type) == _lib.kDLCUDA else x.__dlpack__()
    src = _DLManagedTensor.from_address(_capsule_pointer(cap, b"dltensor")).dl_tensor
    code = (src.dtype.code, src.dtype.bits)
    if code not in _tensor.DL_NAMES or src.dtype.lanes != 1:
        raise TilecError("argument '%s' (param %d): DLPack dtype code %d, %d bits, %d lanes "
                         "has no tilec equivalent" % (p.name, p.index, code[0], code[1],
                                                      src.dtype.lanes))
    code = _tensor.DL_CODES[_tensor.DL_NAMES[code]]  # the interned tuple set_meta compares
    dev = _CPU if int(dev_type) != _lib.kDLCUDA else _cuda_dev(int(dev_id))
    slot.set_meta(src.ndim, code, dev)
    slot.keep = cap
    t = slot.t
    t.data = (src.data or 0) + src.byte_offset
    for d in range(src.ndim):
        slot.shape[d] = src.shape[d]
    if src.strides:
        st = slot.strides
        for d in range(src.ndim):
            st[d] = src.strides[d]
        t.strides = slot.strides_p
        slot.strided = True
    elif slot.strided:
        t.strides = None
        slot.strided = False
    return dev[1] if dev is not _CPU else -1


def _cuda_dev(i):
    return _CUDA_DEVS.setdefault(i, (_lib.kDLCUDA, i))


_torch_codes = _tensor._torch_codes


def _fill_torch(slot, x):
    t = slot.t
    dev = x.get_device()
    shape = x.shape
    nd = len(shape)
    code = _torch_codes.get(x.dtype) or _tensor.torch_code(x.dtype)
    devt = _CPU if dev < 0 else _CUDA_DEVS.get(dev) or _cuda_dev(dev)
    if nd != slot.ndim or code is not slot.code or devt is not slot.dev:
        slot.set_meta(nd, code, devt)
    t.data = x.data_ptr()
    sh = slot.shape
    for d in range(nd):
        sh[d] = shape[d]
    if x.is_contiguous():
        if slot.strided:
            t.strides = None
            slot.strided = False
    else:
        st = slot.strides
        for d, s in enumerate(x.stride()):
            st[d] = s
        t.strides = slot.strides_p
        slot.strided = True
    return dev


class _Scratch:
    """One thread's argument arrays for one kernel."""

    def __init__(self, params, inputs, outputs):
        ct = _lib.ctypes
        n = len(params)
        self.tensors = (DLTensor * max(n, 1))()
        self.slots = [_Slot(self.tensors[i], p) for i, p in enumerate(params)]
        self.ptrs = (DLTensorP * max(n, 1))(*[ct.pointer(self.tensors[i]) for i in range(n)])
        self.in_slots = [self.slots[i] for i in inputs]
        self.in_ptrs = (DLTensorP * max(len(inputs), 1))(*[self.ptrs[i] for i in inputs])
        self.out_ptrs = (DLTensorP * max(len(outputs), 1))()
        # The same memory read as addresses: indexing out_ptrs would give pointer objects
        # that alias the array (and see the next call's outputs).
        self.out_addrs = (ct.c_void_p * max(len(outputs), 1)).from_buffer(self.out_ptrs)


# ---- outputs allocated by tl_kernel_call ----------------------------------------------
class _TilecMemory:
    """Owner of a DLTensor that tl_kernel_call allocated (t: its address): numpy arrays
    view it through __array_interface__ and keep it alive; collected, it calls
    tl_tensor_free."""
    __slots__ = ("__array_interface__", "_t", "_free")

    def __init__(self, t, interface, free):
        self._t = t
        self._free = free
        self.__array_interface__ = interface

    def __del__(self):
        if self._t is not None:
            try:
                self._free(self._t)
            except Exception:  # interpreter shutdown: the library may be gone
                pass
            self._t = None


class Kernel:
    """A compiled tilec kernel (see the module docstring for calls).

    Attributes: name, target ("c" or "cuda"), params (list of Param), out_idx (indices
    of the output parameters), ir (tile IR text), source (generated code), warnings,
    source_file, factory and defines (what it was compiled from), config and latency
    (set by the autotuner)."""

    def __init__(self, handle, source_file=None, factory=None, defines=None):
        L = lib()
        self._handle = handle
        self._hv = _c_void_p(handle)  # converted once, not per call
        self._L = L
        self._launch_fn = L.tl_kernel_launch
        self._call_fn = L.tl_kernel_call
        self.name = _lib.text(L.tl_kernel_name(handle))
        self.target = _lib.text(L.tl_kernel_target(handle))
        self.ir = _lib.text(L.tl_kernel_ir(handle))
        self.source = _lib.text(L.tl_kernel_source(handle))
        self.warnings = _lib.text(L.tl_kernel_warnings(handle))
        self.source_file = source_file
        self.factory = factory
        self.defines = dict(defines or {})
        self.config = None
        self.latency = None
        info = _lib.ParamInfo()
        self.params = []
        for i in range(L.tl_kernel_num_params(handle)):
            check(L.tl_kernel_param(handle, i, _lib.ctypes.byref(info)))
            self.params.append(Param(i, info))
        self._inputs = [p.index for p in self.params if not p.is_output]
        self.out_idx = [p.index for p in self.params if p.is_output]
        self._nin, self._nout, self._n = len(self._inputs), len(self.out_idx), len(self.params)
        self._tls = threading.local()
        self._out_plans = [self._output_plan(self.params[i]) for i in self.out_idx]
        self._out_iface = {}
        self._out_torch = None  # torch dtypes of the outputs, on the first torch call
        self._out_const = [p.shape if all(isinstance(d, int) for d in p.shape) else None
                           for p in self.output_params]
        self._special_out = any(self.params[i].dtype in _SPECIAL for i in self.out_idx)

    def __del__(self):
        h, self._handle = getattr(self, "_handle", None), None
        if h:
            try:
                self._L.tl_kernel_destroy(h)
            except Exception:
                pass

    def __repr__(self):
        return "<tilec.Kernel %s (%s): %s>" % (
            self.name, self.target, ", ".join(repr(p)[6:-1] for p in self.params))

    # ---- introspection ----------------------------------------------------------------
    def get_kernel_source(self, kernel_only=True):
        """The generated C or CUDA source (kernel_only: TileLang's flag; tilec's source is
        the kernel alone either way)."""
        return self.source

    @property
    def kernel_source(self):
        return self.source

    def get_ir(self):
        return self.ir

    @property
    def input_params(self):
        return [self.params[i] for i in self._inputs]

    @property
    def output_params(self):
        return [self.params[i] for i in self.out_idx]

    def get_profiler(self, tensor_supply_type=None, **kwargs):
        """A tilec.Profiler for this kernel (see tilec.profiler.Profiler)."""
        from .profiler import Profiler
        return Profiler(self, tensor_supply_type=tensor_supply_type, **kwargs)

    # ---- TileLang's JITKernel toolbox ------------------------------------------------------
    def get_host_source(self):
        """The host-side code: on the C target the generated C is all host code; a CUDA
        kernel has none (libtilec launches it from its launch plan), so TilecError."""
        if self.target == "c":
            return self.source
        raise TilecError("kernel '%s' (cuda) has no generated host source: libtilec launches "
                         "the device code (get_kernel_source()) itself, from the launch plan "
                         "(src/targets/cuda/target_cuda.c)" % self.name)

    def show_source(self, which="kernel"):
        """Prints the kernel source ("kernel"), the host source ("host") or both."""
        if which not in ("kernel", "host", "both"):
            raise ValueError("which must be 'kernel', 'host' or 'both', not %r" % (which,))
        if which == "both":
            print("===== Kernel Source =====")
        if which in ("kernel", "both"):
            print(self.get_kernel_source())
        if which == "both":
            print("===== Host Source =====")
        if which in ("host", "both"):
            print(self.get_host_source() if self.target == "c" else
                  "// none: libtilec launches the CUDA kernel itself")

    def print_source_code(self, which="kernel", file=None):
        """TileLang's older name: export_sources(kernel_path=file) or show_source(which)."""
        if file is not None:
            self.export_sources(kernel_path=file)
        else:
            self.show_source(which)

    def get_tuner_result(self):
        """{"latency", "config", "ref_latency"} of an autotuned kernel."""
        if self.latency is None:
            raise ValueError("kernel '%s' was not tuned" % self.name)
        return {"latency": self.latency, "config": self.config, "ref_latency": None}

    def export_sources(self, kernel_path=None, host_path=None):
        """Writes the kernel source to kernel_path and/or the host source to host_path
        (directories are created)."""
        if kernel_path is None and host_path is None:
            raise ValueError("at least one of kernel_path or host_path must be given")
        for path, text in ((kernel_path, self.source), (host_path, None)):
            if path is None:
                continue
            text = self.get_host_source() if text is None else text
            d = os.path.dirname(os.path.abspath(path))
            os.makedirs(d, exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

    def export_library(self, path):
        """Writes the built binary to path: for the C target a shared object whose
        `tilec_entry(args, syms)` runs the kernel (docs/internals.md), for CUDA the cubin
        libtilec loads. Built again with libtilec into a private directory (nothing is
        loaded), so it is exactly what the cache holds for this kernel."""
        import shutil
        import tempfile
        with tempfile.TemporaryDirectory(prefix="tilec-export-") as tmp:
            built = self._build_binary(tmp)
            d = os.path.dirname(os.path.abspath(path))
            os.makedirs(d, exist_ok=True)
            shutil.copyfile(built, path)
        return path

    def _build_binary(self, directory):
        """Compiles this kernel again with TL_BUILD_ONLY into the cache directory
        `directory` (empty); returns the path of the one binary there."""
        rebuild = getattr(self, "rebuild", None)  # a captured kernel (tilec.jit)
        if rebuild is not None:
            rebuild(directory)
            return self._one_binary(directory)
        if not self.source_file:
            raise TilecError("kernel '%s' was not compiled from a file here; cannot rebuild "
                             "its binary" % self.name)
        keep = []

        def c(text):
            keep.append(text.encode("utf-8"))
            return keep[-1]

        opt = self._L.tl_options_default()
        opt.target, opt.use_cache, opt.cache_dir, opt.build = c(self.target), 1, c(directory), 2
        opt.factory = c(self.factory) if self.factory else None
        defs = (_lib.Define * max(len(self.defines), 1))()
        for i, (k, v) in enumerate(self.defines.items()):
            defs[i].name, defs[i].value = c(k), c(v)
        opt.defines, opt.ndefines = defs, len(self.defines)
        idx = (_lib.ctypes.c_int * max(self._nout, 1))(*self.out_idx)
        opt.out_idx, opt.nout_idx = idx, self._nout
        h = _c_void_p()
        check(self._L.tl_compile_file(c(self.source_file), _lib.ctypes.byref(opt),
                                      _lib.ctypes.byref(h)))
        self._L.tl_kernel_destroy(h)
        return self._one_binary(directory)

    def _one_binary(self, directory):
        """The binary of the one cache entry in directory, written beside it; an entry is
        a text header ending in an empty line, then the binary (src/rt/cache.c)."""
        files = [f for f in os.listdir(directory) if f.endswith(".entry")]
        if len(files) != 1:
            raise TilecError("kernel '%s': the build left %d cache entries, expected one (is "
                             "TILEC_NO_CACHE set?)" % (self.name, len(files)))
        with open(os.path.join(directory, files[0]), "rb") as f:
            data = f.read()
        head, sep, binary = data.partition(b"\n\n")
        size = [ln for ln in head.split(b"\n") if ln.startswith(b"size ")]
        if not sep or not size or int(size[0].split()[1]) != len(binary):
            raise TilecError("kernel '%s': the cache entry %s is malformed" % (self.name,
                                                                              files[0]))
        out = os.path.join(directory, files[0][:-len(".entry")].split(".", 1)[1])
        with open(out, "wb") as f:
            f.write(binary)
        return out

    def work(self, *args):
        """(FLOPs, global bytes) of the kernel's tile program (tl_kernel_work): tensor-core
        FLOPs of its T.gemm operations and the bytes it moves to and from global memory,
        every access counted, summed over the grid. args: every parameter, as launch takes
        them; none when no size is symbolic."""
        flops, nbytes = _lib.ctypes.c_double(), _lib.ctypes.c_double()
        ptrs, n = None, 0
        if args:
            if len(args) != self._n:
                raise TilecError(self._count_message(len(args)))
            s = self._scratch()
            for slot, x in zip(s.slots, args):
                _fill(slot, x)
            ptrs, n = s.ptrs, self._n
        check(self._L.tl_kernel_work(self._handle, ptrs, n, _lib.ctypes.byref(flops),
                                     _lib.ctypes.byref(nbytes)))
        return flops.value, nbytes.value

    @property
    def resource_usage(self):
        """CUDA: {device function name: {"registers": per thread, "static_shared_bytes"}}
        read from the kernel's cubin (tilec.cubin.resource_usage). The C target has no
        such limits: TilecError."""
        if self.target != "cuda":
            raise TilecError("kernel '%s' runs on the %s target: registers and shared memory "
                             "are CUDA resources" % (self.name, self.target))
        if getattr(self, "_usage", None) is None:
            import tempfile
            from .cubin import resource_usage
            with tempfile.TemporaryDirectory(prefix="tilec-usage-") as tmp:
                with open(self._build_binary(tmp), "rb") as f:
                    self._usage = resource_usage(f.read())
        return self._usage

    @property
    def n_regs(self):
        """Registers per thread (the most of the kernel's device functions; CUDA only)."""
        return max((u["registers"] for u in self.resource_usage.values()), default=0)

    # ---- calls ----------------------------------------------------------------------------
    def _scratch(self):
        s = getattr(self._tls, "s", None)
        if s is None:
            s = self._tls.s = _Scratch(self.params, self._inputs, self.out_idx)
        return s

    def __call__(self, *args):
        n = len(args)
        if n == self._nin and self._nout:
            first = args[0] if n else None
            tt = type(first)
            if tt is np.ndarray:
                return self._call_alloc(args)
            if tt is not _torch_tensor_type:
                for a in args:  # the first argument that is not a number decides
                    if not isinstance(a, _NUMBER_TYPES):
                        first = a
                        break
                if not _is_torch_tensor(first):
                    return self._call_alloc(args)
            return self._call_torch(args, first)
        if n == self._n:
            self._launch(args, None)
            return None
        raise TilecError(self._count_message(n))

    def _count_message(self, n):
        names = ", ".join(p.name for p in self.input_params)
        allnames = ", ".join(p.name for p in self.params)
        if self._nout:
            return ("kernel '%s' takes %d inputs (%s), or all %d parameters (%s), but %d "
                    "%s given" % (self.name, self._nin, names, self._n, allnames, n,
                                  "was" if n == 1 else "were"))
        return "kernel '%s' takes %d arguments (%s) but %d %s given" % (
            self.name, self._n, allnames, n, "was" if n == 1 else "were")

    def launch(self, *args, stream=None):
        """Runs the kernel in place with every parameter (outputs included). stream: a
        CUDA stream handle (int) for CUDA kernels; default: torch's current stream when
        the arguments are CUDA tensors, else the default stream."""
        if len(args) != self._n:
            raise TilecError(self._count_message(len(args)))
        self._launch(args, stream)

    def _launch(self, args, stream):
        s = self._scratch()
        dev = -1
        for slot, x in zip(s.slots, args):
            if _fill(slot, x) >= 0:
                dev = slot.dev[1]
        if stream is None and dev >= 0:
            stream = _torch_stream(dev)
        st = self._launch_fn(self._hv, s.ptrs, self._n, stream)
        if st:
            check(st)

    def _call_alloc(self, args, raw=False):
        """Inputs only (host memory), outputs allocated by tl_kernel_call. raw: return
        bfloat16/float8 outputs as their unsigned bits (for torch.from_numpy)."""
        if self._special_out and not raw:
            for j in range(self._nout):
                p = self.params[self.out_idx[j]]
                if p.dtype in _SPECIAL:
                    _tensor.numpy_dtype(p.dtype)  # raises without ml_dtypes
        s = self._scratch()
        for slot, x in zip(s.in_slots, args):
            if _fill(slot, x) >= 0:
                raise TilecError("kernel '%s': outputs are allocated for device arrays only "
                                 "when they are torch tensors; pass every parameter (outputs "
                                 "included) to run in place" % self.name)
        st = self._call_fn(self._handle, s.in_ptrs, self._nin, s.out_ptrs, self._nout, None)
        if st:
            check(st)
        addrs = s.out_addrs
        outs = [self._wrap(addrs[j], j, raw) for j in range(self._nout)]
        return outs[0] if self._nout == 1 else outs

    def _wrap(self, addr, j, raw=False):
        """A numpy array over an output tensor of tl_kernel_call (at addr); frees it when
        collected."""
        p = self.params[self.out_idx[j]]
        shape = self._out_const[j]
        if shape is None:
            t = DLTensor.from_address(addr)
            shape, data = tuple(t.shape[d] for d in range(t.ndim)), t.data
        else:  # data is the first field of a DLTensor
            data = _c_void_p.from_address(addr).value
        typestr, view = self._out_iface.get(j) or self._out_interface(j, p, raw)
        iface = {"shape": shape, "typestr": typestr, "data": (data or 0, False),
                 "version": 3}
        arr = np.asarray(_TilecMemory(addr, iface, self._L.tl_tensor_free))
        return arr if view is None or raw else arr.view(view)

    def _out_interface(self, j, p, raw):
        if p.dtype in _SPECIAL:  # numpy's own types lack these: unsigned bits, then a view
            view = None if raw else _tensor.numpy_dtype(p.dtype)
            return "<u%d" % (p.code[1] // 8), view
        self._out_iface[j] = (_tensor.numpy_dtype(p.dtype).str, None)
        return self._out_iface[j]

    # ---- torch: allocate outputs with torch.empty and launch -------------------------
    def _output_plan(self, p):
        """Per dimension an int or a function of the symbol env; None if some dimension
        cannot be computed in Python (then the library allocates it)."""
        plan = []
        for dim in p.shape:
            if isinstance(dim, int):
                plan.append(dim)
            else:
                f = _shape_expr(dim)
                if f is None:
                    return None
                plan.append(f)
        return plan

    def _symbols(self, args):
        """Values of the symbolic sizes the inputs bind (first binding wins; the library
        checks the rest)."""
        env = {}
        for x, i in zip(args, self._inputs):
            p = self.params[i]
            shape = getattr(x, "shape", None)
            if shape is None or len(shape) != p.ndim:
                continue
            for d, dim in enumerate(p.shape):
                if isinstance(dim, str) and dim.isidentifier() and dim not in env:
                    env[dim] = int(shape[d])
        return env

    def _call_torch(self, args, first):
        if self._out_torch is None:
            self._out_torch = [p.torch_dtype for p in self.output_params]
        shapes = self._out_const
        if None in shapes:
            shapes = self._torch_output_shapes(args)
            if shapes is None:
                return self._call_torch_fallback(args, first)
        outs = [first.new_empty(shape, dtype=dt) for shape, dt in zip(shapes, self._out_torch)]
        full = list(args)
        for i, o in zip(self.out_idx, outs):  # ascending: each insert lands in place
            full.insert(i, o)
        self._launch(full, None)
        return outs[0] if self._nout == 1 else outs

    def _torch_output_shapes(self, args):
        """Output shapes from the symbols the inputs bind; None if some shape has an
        expression the package cannot evaluate."""
        env = None
        shapes = []
        for j, plan in enumerate(self._out_plans):
            if plan is None:
                return None
            p = self.params[self.out_idx[j]]
            env = env if env is not None else self._symbols(args)
            try:
                shapes.append([d(env) if callable(d) else d for d in plan])
            except KeyError as e:
                raise TilecError("output '%s' (param %d): shape %s: no input binds %s"
                                 % (p.name, p.index, p.shape_text(), e.args[0])) from None
        return shapes

    def _call_torch_fallback(self, args, first):
        import torch
        if first.device.type != "cpu":
            raise TilecError("kernel '%s': an output shape cannot be computed from the inputs "
                             "here; allocate the outputs and pass every parameter" % self.name)
        outs = self._call_alloc(args, raw=True)
        outs = outs if isinstance(outs, list) else [outs]
        res = []
        for j, a in enumerate(outs):
            p = self.params[self.out_idx[j]]
            if p.dtype in _SPECIAL:
                res.append(torch.from_numpy(a).view(p.torch_dtype))
            else:
                res.append(torch.from_numpy(a))
        return res[0] if len(res) == 1 else res

    # ---- prepared launches (benchmarks) ----------------------------------------------
    def prepare(self, *args, stream=None):
        """A function of no arguments that launches the kernel with these arguments (every
        parameter), its DLTensors (and the CUDA stream, torch's current one unless given)
        built once: the leanest call, for benchmarks."""
        if len(args) != self._n:
            raise TilecError(self._count_message(len(args)))
        s = _Scratch(self.params, self._inputs, self.out_idx)
        dev = -1
        for slot, x in zip(s.slots, args):
            d = _fill(slot, x)
            dev = d if d >= 0 else dev
        if stream is None and dev >= 0:
            stream = _torch_stream(dev)
        fn, h, ptrs, n = self._launch_fn, self._hv, s.ptrs, self._n

        def run(_keep=(s, args, self)):  # _keep: the arrays and structs stay alive
            st = fn(h, ptrs, n, stream)
            if st:
                check(st)

        return run


def _torch_stream(dev):
    """torch's current CUDA stream of device dev, as a handle; None (the default stream)
    when torch is not in use (arrays of other libraries)."""
    global _raw_stream
    if _raw_stream is None:
        torch = sys.modules.get("torch")
        if torch is None:
            return None
        _raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
            lambda d: torch.cuda.current_stream(d).cuda_stream)
    try:
        return _raw_stream(dev)
    except Exception:  # torch without a usable CUDA (no driver): the arrays are not its;
        return None    # libtilec reports what is wrong with them
