"""tilelang.tvm and tilelang.DataType without TVM.

tilec reads kernels without TVM, so TVM's objects do not exist here. DataType is the
one TVM name TileLang scripts use outside kernels: here a dtype name (a str) with
TVM's fields (bits, lanes, type_code) and TileLang's spellings accepted. Any other
tilelang.tvm name raises an error saying what tilec offers instead."""
from .._tensor import DL_CODES, dtype_name
from .._lib import TilecError


class DataType(str):
    """DataType("float16"): a str equal to tilec's canonical name, with .bits, .lanes
    (always 1), .type_code (DLPack's code: 0 int, 1 uint, 2 float, 4 bfloat)."""

    def __new__(cls, name):
        canon = dtype_name(name)
        if canon is None:
            raise TilecError("DataType(%r): not a dtype tilec knows (%s)"
                             % (name, ", ".join(sorted(DL_CODES))))
        self = super().__new__(cls, canon)
        self.type_code, self.bits = DL_CODES[canon]
        self.lanes = 1
        return self

    @property
    def tilec_dtype(self):
        return str(self)

    def is_float(self):
        return self.type_code in (2, 4, 10, 12)

    def as_torch(self):
        from .._tensor import torch_dtype
        return torch_dtype(str(self))


class TVMNotInTilec(ImportError, TilecError):
    """A TVM or TileLang-internal name that tilec does not have (an ImportError, so that
    `from tilelang.x import y` shows this message)."""
    status, kind = 0, "python"


def unsupported(module, name, hint):
    return TVMNotInTilec("%s.%s: tilec reads TileLang kernels without TVM, and this TileLang "
                         "internal has no equivalent here. %s" % (module, name, hint))


class _TVMType:
    """A TVM class named in annotations (`val: tirx.PrimExpr`): tilec has no TVM objects,
    so nothing is an instance of it; it exists for scripts that annotate with it."""

    def __init__(self, *args, **kwargs):
        raise unsupported(type(self).__module__, type(self).__name__,
                          "tilec has no TVM objects; this name exists for annotations.")


TVM_TYPES = ("PrimExpr", "Var", "Buffer", "IntImm", "FloatImm", "Expr", "Stmt", "PrimFunc",
             "IRModule", "Call", "Cast", "StringImm", "BufferLoad", "Target")


def tvm_type(module, name):
    """The stand-in class `module.name` (one per pair)."""
    key = (module, name)
    cls = _tvm_types.get(key)
    if cls is None:
        cls = _tvm_types[key] = type(name, (_TVMType,), {"__module__": module})
    return cls


_tvm_types = {}


# ---- tilelang.contrib.nvcc ------------------------------------------------------------------
def get_target_compute_version(target=None):
    """"9.0" for the GPU libtilec sees (TileLang reads it from the target or the GPU)."""
    from .tl_carver import _capability
    return "%d.%d" % _capability(0)


def parse_compute_version(version):
    major, minor = str(version).split(".")[:2]
    return int(major), int(minor)


NVCC = dict(get_target_compute_version=get_target_compute_version,
            parse_compute_version=parse_compute_version)


# ---- tilelang.engine.callback ---------------------------------------------------------------
def _postproc_refused(kind):
    def register(func=None, override=True):
        raise unsupported("tilelang.engine.callback", "register_%s_postproc_callback" % kind,
                          "tilec builds the CUDA it generates with NVRTC in-process and "
                          "takes no hand-edited source; `tilec emit FILE --source` prints it.")
    return register


CALLBACK = dict(register_cuda_postproc_callback=_postproc_refused("cuda"),
                register_hip_postproc_callback=_postproc_refused("hip"))
