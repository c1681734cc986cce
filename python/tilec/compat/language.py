"""TileLang's `T` namespace (tilelang.language) as inert placeholders.

libtilec reads kernel bodies from the source file; Python never runs them. What Python
does run is the module's top level and decorators: `@T.prim_func`, `@T.macro`, the
parameter annotations of a prim_func (`A: T.Tensor((M, K), dtype)`), `T.dynamic("M")`,
dtype names. Those exist here and do nothing but record what tilec needs: prim_func
returns a tilec.PrimFunc, dtypes are strings with their names. Any other T.name is an
inert placeholder (callable, indexable, usable in arithmetic), since it can only appear
where Python does not evaluate it for real."""
import builtins

from ..jit import PrimFunc

_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "bfloat16", "float32", "float64", "float8_e4m3", "float8_e5m2",
           "float8_e4m3fn", "int4", "uint4"]
_ALIASES = {"float": "float32", "half": "float16", "double": "float64", "bf16": "bfloat16",
            "fp16": "float16", "fp32": "float32", "e4m3_float8": "float8_e4m3",
            "e5m2_float8": "float8_e5m2", "int": "int32", "uint": "uint32", "long": "int64",
            "short": "int16", "ulong": "uint64", "tfloat32": "float32"}


class DType(str):
    """A dtype name (T.float16 == "float16"); calling it (T.float32(0)) is inert."""

    @property
    def tilec_dtype(self):
        return str(self)

    def __call__(self, *args, **kwargs):
        return Inert("T.%s(...)" % self)

    @property
    def bits(self):
        """The width in bits (TileLang's dtype.bits, DataType(x).bits)."""
        from .._tensor import DL_CODES, dtype_name
        if self in ("int4", "uint4"):  # stored two per int8 / uint8 byte
            return 4
        return DL_CODES[dtype_name(str(self)) or str(self)][1]

    @property
    def itemsize(self):
        return max(1, self.bits // 8)

    def as_torch(self):
        """The torch dtype (TileLang's dtype.as_torch())."""
        from .._tensor import dtype_name, torch_dtype
        return torch_dtype(dtype_name(str(self)) or str(self))


class Inert:
    """Stands for any T.* value Python evaluates but tilec does not need."""
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "<tilec placeholder %s>" % self._name

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return Inert("%s.%s" % (self._name, attr))

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs and hasattr(args[0], "__code__"):
            return args[0]  # used as a decorator: keep the function
        return Inert("%s(...)" % self._name)

    def __getitem__(self, item):
        return Inert("%s[...]" % self._name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __iter__(self):
        return iter(())

    def _op(self, *other):
        return Inert(self._name)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _op
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _op
    __neg__ = __pow__ = __rpow__ = __lshift__ = __rshift__ = __and__ = __or__ = _op


def prim_func(func=None, **kwargs):
    """@T.prim_func or @T.prim_func(private=True): records the function (tilec.PrimFunc);
    inside a factory called from Python, also the factory and its arguments."""
    if func is None:
        return lambda f: PrimFunc.from_decorator(f, depth=2)
    return PrimFunc.from_decorator(func, depth=2)


def macro(func=None, **kwargs):
    """@T.macro: the function itself, marked (tilec inlines macros from the source)."""
    def mark(f):
        try:
            f.__tilec_macro__ = True
        except (AttributeError, TypeError):  # a builtin: not a macro tilec inlines
            pass
        return f
    return mark(func) if func is not None else mark


def dtype(x):
    """T.dtype("float16") / T.dtype(torch.float16): the dtype (T.float16)."""
    if isinstance(x, str):
        name = _ALIASES.get(str(x), str(x))
    else:
        from .._tensor import dtype_name
        name = dtype_name(x)
    if name not in _DTYPES:
        raise TypeError("T.dtype: unknown dtype %r" % (x,))
    return DType(name)


class Sym:
    """A size made in Python from T.dynamic symbols: kept as the text of its expression
    (tilec_expr), which libtilec evaluates when a kernel captures it."""
    __slots__ = ("tilec_expr",)

    def __init__(self, text):
        self.tilec_expr = text

    def __repr__(self):
        return "<tilec symbolic size %s>" % self.tilec_expr


def _text(x):
    return x.tilec_expr if isinstance(x, Sym) else repr(x)


def _sym_op(op, reverse=False):
    def f(self, other):
        if not isinstance(other, (builtins.int, Sym)):
            return NotImplemented
        a, b = (other, self) if reverse else (self, other)
        return Sym("(%s %s %s)" % (_text(a), op, _text(b)))
    return f


for _op, _name in [("+", "add"), ("-", "sub"), ("*", "mul"), ("//", "floordiv"),
                   ("%", "mod")]:
    setattr(Sym, "__%s__" % _name, _sym_op(_op))
    setattr(Sym, "__r%s__" % _name, _sym_op(_op, True))


def dynamic(name, dtype="int32"):
    """A symbolic size; for a list of names ("B, S" or "B S") a tuple of them, split as
    TileLang splits it (and libtilec's T.dynamic: at commas if any, else at blanks)."""
    if "," in name:
        names = [n.strip() for n in name.split(",")]
        if not all(names):
            raise ValueError("T.dynamic: an empty name in %r" % name)
    elif name.split() != [name]:
        names = name.split()
    else:
        return Sym("T.dynamic(%r, %r)" % (name, str(dtype)))
    return tuple(Sym("T.dynamic(%r, %r)" % (n, str(dtype))) for n in names)


def ceildiv(a, b):
    if isinstance(a, builtins.int) and isinstance(b, builtins.int):
        return -(-a // b)
    if isinstance(a, (builtins.int, Sym)) and isinstance(b, (builtins.int, Sym)):
        return Sym("T.ceildiv(%s, %s)" % (_text(a), _text(b)))
    return Inert("T.ceildiv(...)")


symbolic = dynamic


class _PolicyValue:
    """T.GemmWarpPolicy.Square / FullRow / FullCol as a Python value (a factory argument):
    libtilec reads it as the expression it names (tilec_expr)."""
    __slots__ = ("name", "tilec_expr")

    def __init__(self, name):
        self.name, self.tilec_expr = name, "T.GemmWarpPolicy.%s" % name

    def __repr__(self):
        return self.tilec_expr


class GemmWarpPolicy:
    Square, FullRow, FullCol = _PolicyValue("Square"), _PolicyValue("FullRow"), _PolicyValue("FullCol")


def _vector_dtype(name):
    """T.float16x2 and the other vector dtypes (a scalar dtype and 2 to 64 lanes), or None."""
    scalar, _, lanes = name.rpartition("x")
    d = globals().get(scalar)
    n = builtins.int(lanes) if lanes.isdigit() else 0
    if 2 <= n <= 64 and isinstance(d, DType) and d != "bool":
        return DType("%sx%s" % (d, lanes))
    return None


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _vector_dtype(name) or Inert("T.%s" % name)


for _n in _DTYPES:
    globals()[_n] = DType(_n)
for _a, _n in _ALIASES.items():
    globals()[_a] = DType(_n)
del _n, _a

__all__ = ["prim_func", "macro", "dynamic", "symbolic", "ceildiv", "dtype", "DType", "GemmWarpPolicy"] + _DTYPES + list(_ALIASES)
