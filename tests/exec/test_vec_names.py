"""TileLang's vector values and packed x2 arithmetic (src/frontend/tileops_vec.c) against
an independent reference: every lane's result is the exact rational result rounded once
to the dtype, to nearest even (what __hadd2, __hsub2, __hmul2, __hfma2 and the float2
forms compute per lane), NaN-ignoring max/min as __hmax2 / fmaxf, and the lane moves of
T.Shuffle, T.vectorlow / vectorhigh / vectorcombine and T.reinterpret done by hand.
The kernel is tests/unit/kernels/math_vec.py (test_emit_cuda runs it on the simulated
GPU for sm_80 and sm_90a); TILEC_TARGET=cuda runs this on a GPU. Bad uses are errors at
the user's line."""
from fractions import Fraction
import math

import numpy as np
import pytest

KERNEL = "tests/unit/kernels/math_vec.py"
N, BN = 100, 32
# (significand bits, least normal exponent, largest finite value) of each dtype
FORMATS = {"float16": (11, -14, 65504.0),
           "bfloat16": (8, -126, float.fromhex("0x1.fep127")),
           "float32": (24, -126, float(np.finfo(np.float32).max))}


def round_to(v, dtype):
    """The rational v rounded to nearest even in dtype (subnormals, overflow to inf)."""
    p, emin, top = FORMATS[dtype]
    if v == 0:
        return 0.0
    e = v.numerator.bit_length() - v.denominator.bit_length()  # 2^(e-1) <= |v| < 2^(e+1)
    if abs(v) >= Fraction(2) ** e:
        e += 1
    ulp = Fraction(2) ** (max(e, emin + 1) - p)
    r = round(v / ulp) * ulp  # round() of a Fraction: half to even
    return math.copysign(math.inf, v) if abs(r) > Fraction(top) else float(r)


def op(dtype, f, *xs):
    """f of dtype values xs, rounded once: exactly (Fractions) for finite operands, by
    float64 arithmetic (exact for infinities and NaN) otherwise."""
    if all(math.isfinite(x) for x in xs):
        r = f(*(Fraction(x) for x in xs))
        if r == 0:  # (float64 gives an exact zero its IEEE sign)
            return float(f(*xs))
        return round_to(r, dtype)
    with np.errstate(all="ignore"):
        return float(f(*(np.float64(x) for x in xs)))


def fmax(x, y):
    return y if math.isnan(x) else x if math.isnan(y) else max(x, y)


def fmin(x, y):
    return y if math.isnan(x) else x if math.isnan(y) else min(x, y)


def inputs(dtype, rng):
    """Pairs of moderate values of dtype (exactly), y never 0; a NaN in x's first lane, exact
    cancellations, ties of rounding."""
    def make():
        return rng.standard_normal((N, 2)) * 2.0 ** rng.uniform(-4, 4, (N, 2))
    a, b, c = make(), make(), make()
    b[np.abs(b) < 2.0 ** -6] = 0.75
    a[0, 0] = math.nan
    a[1], b[1], c[1] = (1.5, -2.0), (1.5, 0.25), (-2.25, 3.0)  # x - y == 0, x * y + z == 0
    a[2], b[2] = (1.0, 3.0), (2.0 ** -11, 2.0 ** -9)  # ties for float16 adds
    a[3], b[3] = (1.0, 256.0), (2.0 ** -8, 1.0 / 3.0)
    exact = np.vectorize(lambda t: t if math.isnan(t) else round_to(Fraction(t), dtype))
    return exact(a), exact(b), exact(c)


def expected(dtype, a, b, c):
    R = lambda f, *xs: op(dtype, f, *xs)
    u = np.zeros((16, N, 2))
    f_ = np.zeros((N, 2))
    s_ = np.zeros((N, 2))
    for j in range(N):
        for l in range(2):
            x, y, z = a[j, l], b[j, l], c[j, l]
            u[0, j, l] = R(lambda p, q: p + q, x, y)
            u[1, j, l] = R(lambda p, q: p - q, x, y)
            u[2, j, l] = R(lambda p, q: p * q, x, y)
            u[3, j, l] = R(lambda p, q, r: p * q + r, x, y, z)
            u[4, j, l] = fmax(x, y)
            u[5, j, l] = fmin(x, y)
            u[6, j, l] = abs(x)
            u[15, j, l] = fmax(x, z)
            t = R(lambda p, q: p + q, x, R(lambda p: p * 2, y))
            u[7, j, l] = R(lambda p, q: p - q, t, R(lambda p, q: p / q, z, y))
            f_[j, l] = R(lambda p, q: p * q, x, z)
            s_[j, l] = -R(lambda p, q: p - q, y, z)
        u[8, j] = u[9, j] = (a[j, 1], b[j, 0])
        u[10, j] = (a[j, 1], a[j, 0])
    for j in range(N):
        blk, i = divmod(j, BN)
        jr = blk * BN + BN - 1 - i
        fr = f_[jr] if jr < N else (0.0, 0.0)  # (out-of-bounds loads read 0)
        u[11, j] = f_[j]
        u[12, j] = [R(lambda p, q: p + q, s_[j, l], fr[l]) for l in range(2)]
        u[13, j] = (f_[j, 1], s_[j, 0])
        u[14, j] = [round_to(Fraction(op("float32", lambda p: p * 3, s_[j, l])), dtype)
                    if math.isfinite(s_[j, l]) else s_[j, l] * 3 for l in range(2)]
    d = np.zeros(((N + BN - 1) // BN, 2))
    for bx in range(d.shape[0]):
        acc = [0.0, 1.0]
        for k in range(BN):
            j = min(bx * BN + k, N - 1)
            acc = [R(lambda p, q, r: p * q + r, a[j, l], b[j, l], acc[l]) for l in range(2)]
        d[bx] = acc
    return u, d


def assert_same(got, want, what):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape, what
    bad = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    bad |= (got == 0) & (want == 0) & (np.signbit(got) != np.signbit(want))
    idx = np.argwhere(bad)
    assert idx.size == 0, "%s: %d bad, first at %s: got %r, want %r" % (
        what, len(idx), tuple(idx[0]), got[tuple(idx[0])], want[tuple(idx[0])])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_vec(tilec, dtype):
    a, b, c = inputs(dtype, np.random.default_rng(7))
    w = inputs(dtype, np.random.default_rng(8))[1]
    # (bfloat16 travels as float32: .npy has no bfloat16)
    npdt = np.float16 if dtype == "float16" else np.float32
    out = tilec.run(KERNEL, dict(N=N, dtype=dtype, bn=BN),
                    {"A": a.astype(npdt), "B": b.astype(npdt), "C": c.astype(npdt),
                     "W": packed_bits(w, dtype)})
    u, d = expected(dtype, a, b, c)
    names = ["add2", "sub2", "mul2", "fma2", "max2", "min2", "abs2", "operators", "Shuffle",
             "vectorcombine", "reinterpret", "fragment", "shared", "extract_lane",
             "cast", "register fragment"]
    for k, name in enumerate(names):
        assert_same(out["U"][k], u[k], "%s: row %d (%s)" % (dtype, k, name))
    assert_same(out["D"], d, "%s: alloc_var fma2 chain" % dtype)
    R = lambda f, *xs: op(dtype, f, *xs)
    v = np.zeros((3, N, 2))
    for j in range(N):
        v[0, j] = [R(lambda p, q: p * p + q, a[j, l], (1.0, -1.0)[l]) for l in range(2)]
        v[1, j] = [R(lambda p, q: p * q, w[j, l], a[j, l]) for l in range(2)]
        v[2, j] = (a[j, 1], 0.0)
    for k, name in enumerate(["fma2 on a view", "reinterpret of a word", "view bits"]):
        assert_same(out["V"][k], v[k], "%s: %s" % (dtype, name))


def packed_bits(w, dtype):
    """Each pair of dtype values as one word of the pair's width, lane 0 in the low bits."""
    if dtype == "float32":
        bits = w.astype(np.float32).view(np.uint32).astype(np.uint64)
        return bits[:, 0] | (bits[:, 1] << np.uint64(32))
    if dtype == "float16":
        bits = w.astype(np.float16).view(np.uint16).astype(np.uint32)
    else:
        bits = w.astype(np.float32).view(np.uint32) >> np.uint32(16)
    return bits[:, 0] | (bits[:, 1] << np.uint32(16))


HEAD = '''import tilelang.language as T


@T.prim_func
def k(A: T.Tensor((8,), "float16"), B: T.Tensor((8,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        for i in T.serial(4):
            x = T.float16x2(A[i], A[i + 1])
            w = T.float32x2(B[i], B[i + 1])
'''

ERRORS = [
    ("A[i] = T.add2(A[i], A[i])",
     "T.add2: expected dtype in ['bfloat16x2', 'float16x2', 'float32x2'], got 'float16'"),
    ("v = T.add2(x, w)",
     "T.add2: expected all packed x2 arguments to have the same dtype, got float16x2 and "
     "float32x2"),
    ("v = T.fma2(x, x)", "T.fma2() takes 3 positional arguments, got 2"),
    ("v = T.mul2(T.float16x4(1, 2, 3, 4), x)",
     "T.mul2: expected dtype in ['bfloat16x2', 'float16x2', 'float32x2'], got 'float16x4'"),
    ("v = T.float16x2(A[i], A[i], A[i])", "float16x2() takes 1 or 2 arguments (its lanes), got 3"),
    ("v = x + w", "operator '+': mixing float16x2 and float32x2 vectors"),
    ("v = x + B[i]", "operator '+': mixing float16x2 vectors and a float32 scalar"),
    ("A[i] = x", "stored value must be a scalar, got a float16x2 vector"),
    ("A[i] = T.extract_lane(x, 2)",
     "T.extract_lane: lane index 2 is out of bounds for dtype float16x2 with 2 lanes"),
    ("A[i] = T.extract_lane(A[i], 0)",
     "T.extract_lane expects a vector expression, but got dtype float16"),
    ("A[i] = T.extract_lane(x, i)", "T.extract_lane expects a compile-time integer lane"),
    ("v = T.Shuffle([x, w], [0, 2])", "T.Shuffle: mixing float16 and float32 lanes"),
    ("v = T.Shuffle([x], [0, 5])", "T.Shuffle: index 5 is out of range for 2 lanes"),
    ("v = T.vectorlow(\"float32\", x)", "T.vectorlow: the result has dtype float16, not float32"),
    ("v = T.vectorcombine(\"float16x2\", x, x)",
     "T.vectorcombine: the result has dtype float16x4, not float16x2"),
    ("v = T.reinterpret(\"uint16\", x)",
     "T.reinterpret: float16x2 and uint16 differ in width (or are bool)"),
    ("L = T.alloc_local((4,), \"float16x2\")\n            L[i] = w",
     "buffer 'L' holds float16x2 values; cannot store float32x2"),
    ("L = T.alloc_local((4,), \"float16x2\")\n            T.fill(L, 0)",
     "buffer 'L' holds float16x2 vectors; tile operations take buffers of scalars"),
    ("L = T.alloc_local((4,), \"float16x2\")\n            A[i] = T.extract_lane(L[0:2], 0)",
     "slices of buffer 'L' of float16x2 are not supported"),
    ("v = x < x", "operator '<' is not supported on float16x2 vectors"),
    ("v = T.float8_e8m0fnu(3)", "T.float8_e8m0fnu is not supported yet by tilec (no fp4 or scale"),
    ("L = T.alloc_local((4,), T.float4_e2m1fn)", "T.float4_e2m1fn is not supported yet"),
]


@pytest.mark.parametrize("stmt,msg", ERRORS)
def test_errors(tilec, tmp_path, stmt, msg):
    tilec.emit_error(tmp_path, HEAD, stmt, msg, targets=("c", "cuda"), last_only=True)
