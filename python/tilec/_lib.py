"""ctypes bindings of libtilec (include/tilec.h) and the library's errors.

The library is found on first use, not at import, so `import tilec` works where it is
not built yet; the search order is

1. $TILEC_LIBRARY (a path to libtilec.so),
2. the copy installed inside this package (tilec/libtilec.so, put there by `pip install`),
3. the source tree this package sits in (../../build/libtilec.so: development checkouts),
4. the system's library path (ctypes.util.find_library("tilec")).

ctypes releases the GIL around every foreign call, and libtilec is thread-safe for
compiles and launches, so Python threads compile in parallel (the autotuner does)."""
import ctypes
import ctypes.util
import os
import threading
from pathlib import Path

# ---- errors ---------------------------------------------------------------------------
TL_OK = 0
STATUS_NAMES = {1: "program", 2: "argument", 3: "toolchain", 4: "io", 5: "runtime",
                6: "internal"}


class TilecError(RuntimeError, ValueError):
    """A failure reported by libtilec (or a misuse found on the Python side).

    `status` is the library's tl_status number (0 for errors found in Python) and `kind`
    its name: "program" (the kernel is wrong), "argument" (a launch argument or option
    does not fit; the message names the parameter and the field), "toolchain", "io",
    "runtime", "internal". The message is the library's text unchanged."""

    def __init__(self, message, status=0):
        super().__init__(message)
        self.status = status
        self.kind = STATUS_NAMES.get(status, "python")


class TilecWarning(UserWarning):
    """A warning of a compilation (tl_kernel_warnings)."""


# ---- DLPack and tilec structures ------------------------------------------------------
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


DLTensorP = ctypes.POINTER(DLTensor)

# DLDeviceType values the package uses.
kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13


class Define(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class Options(ctypes.Structure):
    _fields_ = [("target", ctypes.c_char_p), ("factory", ctypes.c_char_p),
                ("defines", ctypes.POINTER(Define)), ("ndefines", ctypes.c_int),
                ("use_cache", ctypes.c_int), ("cache_dir", ctypes.c_char_p),
                ("build", ctypes.c_int), ("out_idx", ctypes.POINTER(ctypes.c_int)),
                ("nout_idx", ctypes.c_int), ("inputs", ctypes.POINTER(DLTensorP)),
                ("input_names", ctypes.POINTER(ctypes.c_char_p)), ("ninputs", ctypes.c_int),
                ("pass_configs", ctypes.POINTER(Define)), ("npass_configs", ctypes.c_int),
                ("print_after", ctypes.c_char_p), ("print_after_path", ctypes.c_char_p),
                ("arch", ctypes.c_char_p), ("settings", ctypes.POINTER(Define)),
                ("nsettings", ctypes.c_int)]


class CaptureFunc(ctypes.Structure):
    _fields_ = [("filename", ctypes.c_char_p), ("source", ctypes.c_char_p),
                ("line", ctypes.c_int), ("name", ctypes.c_char_p), ("kind", ctypes.c_int),
                ("env", ctypes.POINTER(Define)), ("nenv", ctypes.c_int),
                ("defaults", ctypes.POINTER(Define)), ("ndefaults", ctypes.c_int)]


class Capture(ctypes.Structure):
    _fields_ = [("version", ctypes.c_int), ("funcs", ctypes.POINTER(CaptureFunc)),
                ("nfuncs", ctypes.c_int), ("objects", ctypes.POINTER(ctypes.c_char_p)),
                ("nobjects", ctypes.c_int)]


class ParamInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", DLDataType), ("ndim", ctypes.c_int),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("shape_names", ctypes.POINTER(ctypes.c_char_p)),
                ("is_output", ctypes.c_int), ("is_scalar", ctypes.c_int),
                ("is_pointer", ctypes.c_int)]


# ---- loading ----------------------------------------------------------------------------
_PKG_DIR = Path(__file__).resolve().parent
_lock = threading.Lock()
_lib = None


def library_candidates():
    """Paths tried in order (see the module's docstring)."""
    env = os.environ.get("TILEC_LIBRARY")
    if env:
        return [Path(env)]
    found = [_PKG_DIR / "libtilec.so", _PKG_DIR.parent.parent / "build" / "libtilec.so"]
    system = ctypes.util.find_library("tilec")
    if system:
        found.append(Path(system))
    return found


def _declare(lib):
    """Argument and result types of every function of tilec.h."""
    c_char_p, c_int, c_void_p, c_double = (ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p,
                                            ctypes.c_double)
    kp = c_void_p  # tl_kernel *
    opt_p = ctypes.POINTER(Options)
    table = {
        "tl_options_default": (Options, []),
        "tl_compile_file": (c_int, [c_char_p, opt_p, ctypes.POINTER(c_void_p)]),
        "tl_compile_source": (c_int, [c_char_p, c_char_p, opt_p, ctypes.POINTER(c_void_p)]),
        "tl_compile_capture": (c_int, [ctypes.POINTER(Capture), opt_p,
                                       ctypes.POINTER(c_void_p)]),
        "tl_kernel_destroy": (None, [kp]),
        "tl_last_error": (c_char_p, []),
        "tl_kernel_name": (c_char_p, [kp]),
        "tl_kernel_target": (c_char_p, [kp]),
        "tl_kernel_ir": (c_char_p, [kp]),
        "tl_kernel_source": (c_char_p, [kp]),
        "tl_kernel_warnings": (c_char_p, [kp]),
        "tl_kernel_num_params": (c_int, [kp]),
        "tl_kernel_param": (c_int, [kp, c_int, ctypes.POINTER(ParamInfo)]),
        "tl_kernel_flops": (c_double, [kp, ctypes.POINTER(DLTensorP), c_int]),
        "tl_kernel_work": (c_int, [kp, ctypes.POINTER(DLTensorP), c_int,
                                   ctypes.POINTER(c_double), ctypes.POINTER(c_double)]),
        "tl_kernel_launch": (c_int, [kp, ctypes.POINTER(DLTensorP), c_int, c_void_p]),
        "tl_kernel_call": (c_int, [kp, ctypes.POINTER(DLTensorP), c_int,
                                   ctypes.POINTER(DLTensorP), c_int, c_void_p]),
        "tl_tensor_free": (None, [c_void_p]),  # an address: see kernel._TilecMemory
        "tl_cache_dir": (c_char_p, [opt_p]),
        "tl_cache_clear": (c_int, [opt_p]),
        "tl_info": (c_char_p, []),
        "tl_version": (c_char_p, []),
    }
    optional = {  # newer additions; the package works without them
        "tl_kernel_device": (DLDevice, [kp]),
        "tl_info_json": (c_char_p, []),
    }
    for name, (res, args) in list(table.items()) + list(optional.items()):
        fn = getattr(lib, name, None)
        if fn is None:
            if name in optional:
                continue
            raise TilecError("%s lacks %s: it is older than this package; rebuild it"
                             % (lib._name, name))
        fn.restype = res
        fn.argtypes = args


def lib():
    """The loaded library (loaded on first call); TilecError if it cannot be found."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            _lib = _load()
    return _lib


def _load():
    tried = []
    for path in library_candidates():
        if not path.is_file() and path.is_absolute():
            tried.append("%s (missing)" % path)
            continue
        try:
            handle = ctypes.CDLL(str(path))
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        _declare(handle)
        return handle
    raise TilecError("cannot load libtilec: tried %s. Build it with `make` in the tilec "
                     "repository, install the package with `pip install ./python`, or set "
                     "TILEC_LIBRARY to the path of libtilec.so" % ("; ".join(tried) or "nothing"))


def library_path():
    """Path of the loaded library (loads it)."""
    handle = lib()
    return handle._name


# ---- helpers ----------------------------------------------------------------------------
def text(b):
    return b.decode("utf-8", "replace") if b is not None else ""


def last_error():
    return text(lib().tl_last_error())


def check(status):
    """Raises TilecError with the thread's last error unless status is TL_OK."""
    if status != TL_OK:
        raise TilecError(last_error() or "tilec failed (status %d)" % status, status)
