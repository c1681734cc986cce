"""Element types and the arrays tilec kernels take: numpy arrays and torch tensors.

A dtype is named by tilec's canonical name ("float16", "bfloat16", "float8_e4m3", ...)
and travels to the library as a DLPack (code, bits) pair. numpy has no bfloat16 or
float8; those work with torch tensors, or with numpy when ml_dtypes is installed.
torch is imported only when the caller already uses it (looked up in sys.modules), so
nothing here imports torch."""
import sys

import numpy as np

from ._lib import TilecError

# canonical name -> DLPack (code, bits); codes as in src/ir/dtype.h.
DL_CODES = {
    "bool": (6, 8),
    "int8": (0, 8), "int16": (0, 16), "int32": (0, 32), "int64": (0, 64),
    "uint8": (1, 8), "uint16": (1, 16), "uint32": (1, 32), "uint64": (1, 64),
    "float16": (2, 16), "bfloat16": (4, 16), "float32": (2, 32), "float64": (2, 64),
    "float8_e4m3": (10, 8), "float8_e5m2": (12, 8),
}
DL_NAMES = {v: k for k, v in DL_CODES.items()}

# Other spellings of a dtype (numpy, torch, ml_dtypes, TileLang) -> canonical name.
ALIASES = {
    "float8_e4m3fn": "float8_e4m3", "e4m3_float8": "float8_e4m3",
    "e5m2_float8": "float8_e5m2", "float": "float32", "half": "float16",
    "double": "float64", "bf16": "bfloat16", "fp16": "float16", "fp32": "float32",
    "fp64": "float64", "int": "int32", "long": "int64", "bool_": "bool",
}


def dtype_name(x):
    """Canonical name of a dtype given as a string, numpy dtype or type, torch dtype, or
    anything whose str() is a dtype name; None if it is not one."""
    if isinstance(x, str):
        name = x
    elif isinstance(x, np.dtype):
        name = x.name
    elif isinstance(x, type) and issubclass(x, np.generic):
        name = np.dtype(x).name
    else:
        name = str(x)
        if name.startswith("torch."):
            name = name[6:]
    name = ALIASES.get(name, name)
    return name if name in DL_CODES else None


def dtype_name_of_code(code, bits):
    return DL_NAMES.get((code, bits), "code=%d bits=%d" % (code, bits))


_ml_dtypes = None


def _ml():
    """ml_dtypes (numpy's bfloat16/float8) if installed, else None."""
    global _ml_dtypes
    if _ml_dtypes is None:
        try:
            import ml_dtypes
            _ml_dtypes = ml_dtypes
        except ImportError:
            _ml_dtypes = False
    return _ml_dtypes or None


def numpy_dtype(name):
    """numpy dtype for a canonical name; TilecError when numpy cannot represent it."""
    if name in ("bfloat16", "float8_e4m3", "float8_e5m2"):
        ml = _ml()
        if ml is None:
            raise TilecError("numpy has no %s: pass torch tensors, or install ml_dtypes"
                             % name)
        return np.dtype(getattr(ml, "float8_e4m3fn" if name == "float8_e4m3" else name))
    return np.dtype(name)


def torch_dtype(name):
    torch = sys.modules.get("torch")
    if torch is None:
        import torch
    return getattr(torch, "float8_e4m3fn" if name == "float8_e4m3" else name)


# ---- per-object dtype lookups, cached by the dtype object ------------------------------
_np_codes = {}
_torch_codes = {}


def _dl_code(cache, dt, library):
    try:
        return cache[dt]
    except KeyError:
        pass
    name = dtype_name(dt)
    if name is None:
        raise TilecError("%s dtype %s has no tilec equivalent" % (library, dt))
    cache[dt] = DL_CODES[name]
    return cache[dt]


def numpy_code(dt):
    """DLPack (code, bits) of a numpy dtype; TilecError if tilec has no such dtype."""
    return _dl_code(_np_codes, dt, "numpy")


def torch_code(dt):
    """DLPack (code, bits) of a torch dtype; TilecError if tilec has no such dtype."""
    return _dl_code(_torch_codes, dt, "torch")


def is_torch_tensor(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def to_numpy(x):
    """A numpy view (or float copy for types numpy lacks) of a numpy array or a torch
    tensor, on the host; other values go through np.asarray."""
    if is_torch_tensor(x):
        x = x.detach()
        if x.device.type != "cpu":
            x = x.cpu()
        name = dtype_name(x.dtype)
        if name in ("bfloat16", "float8_e4m3", "float8_e5m2"):
            x = x.float()
        return x.numpy()
    return np.asarray(x)
