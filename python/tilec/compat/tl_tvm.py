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
