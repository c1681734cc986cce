"""TileLang's math and arithmetic names (src/frontend/tileops_math.c, the TL_INTRINSICS of
src/ir/ir.h) against independent references: NumPy in float64 for the libm and fast
functions (with tolerances for the dtype and, for CUDA's fast approximations, for their
documented error bounds), exact rational arithmetic (fractions) for the IEEE operations
of every rounding mode (bit for bit), Python integers for the integer names and the bit
reductions. Edge values: signed zeros, infinities, NaN, denormals, the integer minimum.
The kernels are tests/unit/kernels/math_*.py (test_emit_cuda runs them on the simulated
GPU); TILEC_TARGET=cuda runs these on a GPU. Bad uses are errors at the user's line."""
from fractions import Fraction

import numpy as np
import pytest

KERNELS = "tests/unit/kernels/"
F16 = np.float16
DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64,
          "bfloat16": None}


def assert_close(got, want, rtol, atol=0.0, what=""):
    """Equal NaN positions, equal infinities, finite values within atol + rtol * |want|,
    and the sign of an exact zero kept."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    assert got.shape == want.shape
    nan = np.isnan(want)
    bad = np.isnan(got) != nan
    inf = np.isinf(want)
    bad |= inf & (got != want)
    fin = ~nan & ~inf
    with np.errstate(invalid="ignore", over="ignore"):
        bad |= fin & ~(np.abs(got - want) <= atol + rtol * np.abs(want))
    bad |= (want == 0) & (got == 0) & (np.signbit(got) != np.signbit(want))
    idx = np.nonzero(bad)[0]
    assert idx.size == 0, "%s: %d bad, first at %d: got %r, want %r" % (
        what, idx.size, idx[0], got[idx[0]], want[idx[0]])


def assert_same(got, want, what=""):
    """Bit-for-bit equal values (NaN equal to NaN)."""
    assert_close(got, want, 0.0, 0.0, what)


# ---- libm ---------------------------------------------------------------------------------
def edge_floats(dt, n, rng, lo=-1.5, hi=1.5):
    """n values of dt: signed zeros, infinities, NaN, a denormal, +-1, ties of rounding, big
    values, then uniform ones in [lo, hi)."""
    tiny = np.finfo(dt).smallest_subnormal if hasattr(np.finfo(dt), "smallest_subnormal") \
        else np.finfo(dt).tiny / 8
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, float(tiny) * 3, -float(tiny), 1.0, -1.0,
             0.5, -0.5, 2.5, -2.5, 3.5, 1.5, 0.999, -0.999, 1e4, -3e4, 0.25]
    x = rng.uniform(lo, hi, n).astype(dt)
    x[:len(edges)] = np.array(edges, np.float64).astype(dt)
    return x


LIBM_TOL = {"float16": (2e-3, 1e-7), "float32": (8e-6, 1e-37), "float64": (1e-13, 1e-300)}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_libm(tilec, dtype):
    dt, N = DTYPES[dtype], 200
    rng = np.random.default_rng(1)
    a = edge_floats(dt, N, rng)
    b = np.roll(edge_floats(dt, N, rng), 3)
    e = rng.integers(-30, 30, N).astype(np.int32)
    e[:6] = [0, -200, 200, 2**31 - 1, -2**31, 1]
    out = tilec.run(KERNELS + "math_libm.py", dict(N=N, dtype=dtype), {"A": a, "B": b, "E": e})
    u, f = out["U"], out["F"]
    x, y = a.astype(np.float64), b.astype(np.float64)
    rtol, atol = LIBM_TOL[dtype]
    with np.errstate(all="ignore"):
        x1 = (np.abs(a) + dt(1)).astype(np.float64)  # in the dtype, as the kernel adds
        approx = [np.arccos(x), np.arccosh(x1), np.arcsin(x), np.arcsinh(x), np.arctan(x),
                  np.arctanh(x), np.cosh(x), np.sinh(x), None, None, np.hypot(x, y)]
        for k, want in enumerate(approx):
            if want is not None:
                assert_close(u[k], want.astype(dt), rtol, atol, "row %d" % k)
        assert_same(u[8], np.rint(b), "nearbyint")
        assert_same(u[9], np.copysign(a, b), "copysign")
        assert_same(u[11], np.ldexp(a, e), "ldexp")
        assert_same(u[12], np.nextafter(a, b) if dtype != "float16" else a, "nextafter")
        assert_same(u[13], np.rint(a * dt(4)) + np.ldexp(b, 2), "tirx.nearbyint + ldexp")
        np.testing.assert_array_equal(f[0], np.isfinite(a))
        np.testing.assert_array_equal(f[1], np.isfinite(a * b))
        assert f[2].all()
    assert np.isnan(u[0]).any() and (u[8] == 2).any() and (u[8] == -2).any()


# ---- CUDA's fast approximations -------------------------------------------------------------
def bf16_round(x):
    """float32 values rounded to bfloat16's (nearest even), as float32."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7fff + ((b >> 16) & 1)) & 0xffff0000
    return b.astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_fast(tilec, dtype):
    """Within the CUDA fast intrinsics' documented bounds on [-1.4, 1.4] (the device's
    __sinf/__cosf/__logf: 2^-21.41 absolute, __expf/__exp10f a few ulp; the C target
    is the accurate function), NumPy in float64 the reference."""
    N = 200
    rng = np.random.default_rng(2)
    a = rng.uniform(-1.4, 1.4, N).astype(np.float32)
    a[:8] = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-3, 1.39, -1.39]
    if dtype == "bfloat16":  # (bfloat16 travels as float32: .npy has no bfloat16)
        a = bf16_round(a)
    u = tilec.run(KERNELS + "math_fast.py", dict(N=N, dtype=dtype), {"A": a})["U"]
    x = a.astype(np.float64)
    with np.errstate(all="ignore"):
        want = [np.cos(x), np.exp(x), 10.0**x, np.log(np.abs(x)), np.log2(np.abs(x)),
                np.log10(np.abs(x)), np.sin(x), np.tan(x), 1.0 / x if dtype == "float32" else x]
    rtol, atol = (1e-5, 2e-6) if dtype == "float32" else (1e-2, 1e-2)
    for k, w in enumerate(want):
        assert_close(u[k], w, rtol, atol, "row %d" % k)


# ---- IEEE operations: exact rational references ----------------------------------------------
def bracket(v, dt):
    """The adjacent values lo <= v <= hi of dt (lo == hi when v is one; +-inf past the
    largest finite value) for a rational v."""
    mx = np.finfo(dt).max
    if v > Fraction(float(mx)):
        return dt(mx), dt(np.inf)
    if v < -Fraction(float(mx)):
        return dt(-np.inf), dt(-mx)
    c = dt(float(v))  # the double nearest v, then dt's: lo or hi
    fc = Fraction(float(c))
    if fc == v:
        return c, c
    return (c, np.nextafter(c, dt(np.inf))) if fc < v else (np.nextafter(c, dt(-np.inf)), c)


def value_of(f, dt):
    """A finite or infinite dt value as a rational (infinity: the value one step past the
    largest finite one, which is where rounding to nearest overflows)."""
    if np.isinf(f):
        fi = np.finfo(dt)
        return (-1 if f < 0 else 1) * (Fraction(float(fi.max)) + Fraction(2)**(fi.maxexp - 1 - fi.nmant))
    return Fraction(float(f))


def round_mode(lo, hi, mode, dt, above_mid):
    """The rounding of a value strictly between lo and hi; above_mid(m): whether it is
    above the rational m (their midpoint)."""
    if mode == "rz":
        return lo if hi > 0 else hi
    if mode == "ru":
        return hi
    if mode == "rd":
        return lo
    mid = (value_of(lo, dt) + value_of(hi, dt)) / 2
    if above_mid(mid) is None:  # a tie: the even one
        return lo if int(np.array(lo, dt).view(np.uint64 if dt == np.float64 else
                                             np.uint32 if dt == np.float32 else np.uint16)) % 2 == 0 else hi
    return hi if above_mid(mid) else lo


def round_exact(v, mode, dt):
    """A rational v rounded to dt as mode says (v != 0)."""
    lo, hi = bracket(v, dt)
    if lo == hi:
        return lo
    return round_mode(lo, hi, mode, dt, lambda m: None if v == m else v > m)


def zero_sign(terms, mode):
    """The sign of an exact zero sum of two terms (their signs, None for a nonzero term):
    zeros of one sign keep it; otherwise +0, or -0 rounding down (IEEE 754 6.3)."""
    if None not in terms and terms[0] == terms[1]:
        return -0.0 if terms[0] else 0.0
    return -0.0 if mode == "rd" else 0.0


def ieee_ref(op, mode, x, y, z, dt):
    """op of dt values x, y, z rounded as mode says (IEEE 754): specials by dt's own
    arithmetic (exact in every mode), the rest by exact rationals."""
    with np.errstate(all="ignore"):
        special = {"add": x + y, "sub": x - y, "mul": x * y, "div": x / y,
                   "fma": x * y + z if np.isfinite(x * y) or not np.isfinite(x) or
                   not np.isfinite(y) else x * y + z,
                   "rcp": dt(1) / x, "sqrt": np.sqrt(x), "rsqrt": dt(1) / np.sqrt(x)}[op]
    ops = [x] + ([y] if op in ("add", "sub", "mul", "div", "fma") else []) + \
        ([z] if op == "fma" else [])
    if not all(np.isfinite(o) for o in ops) or (op in ("div", "rcp", "rsqrt") and ops[-1] == 0) \
            or (op in ("sqrt", "rsqrt") and x < 0) or (op == "mul" and (x == 0 or y == 0)):
        return dt(special)
    X, Y, Z = (Fraction(float(o)) for o in (ops + [dt(0), dt(0)])[:3])
    if op in ("add", "sub", "fma"):
        p, q = (X, Y) if op == "add" else (X, -Y) if op == "sub" else (X * Y, Z)
        v = p + q
        if v == 0:  # zero terms, or opposite ones
            s1 = np.signbit(x) != np.signbit(y) if op == "fma" else np.signbit(x)
            s2 = not np.signbit(y) if op == "sub" else np.signbit(z if op == "fma" else y)
            terms = (s1 if p == 0 else None, s2 if q == 0 else None)
            return dt(zero_sign(terms, mode))
        return round_exact(v, mode, dt)
    if op == "mul":
        return round_exact(X * Y, mode, dt)
    if op == "div":
        return dt(special) if x == 0 else round_exact(X / Y, mode, dt)
    if op == "rcp":
        return round_exact(1 / X, mode, dt)
    if x == 0:
        return dt(special)
    if op == "sqrt":  # v = sqrt(X): compare squares
        c = dt(np.sqrt(np.float64(x)))
        if Fraction(float(c))**2 == X:
            return c
        lo, hi = (c, np.nextafter(c, dt(np.inf))) if Fraction(float(c))**2 < X else \
            (np.nextafter(c, dt(0)), c)
        return round_mode(lo, hi, mode, dt, lambda m: X > m * m)
    c = dt(1 / np.sqrt(np.float64(x)))  # rsqrt: v = 1/sqrt(X) > m iff m^2 X < 1
    if Fraction(float(c))**2 * X == 1:
        return c
    lo, hi = (c, np.nextafter(c, dt(np.inf))) if Fraction(float(c))**2 * X > 1 else \
        (np.nextafter(c, dt(0)), c)
    return round_mode(lo, hi, mode, dt, lambda m: m * m * X < 1)


def ieee_inputs(dt, N, rng):
    """Values of many magnitudes and the edge cases of each operation: exact cancellation,
    signed zeros, overflow, underflow into denormals, infinities, NaN."""
    fi = np.finfo(dt)
    tiny = float(fi.tiny)
    big = float(fi.max)
    mag = 10.0 ** rng.uniform(-3, 3, N) if dt != np.float16 else 2.0 ** rng.uniform(-6, 6, N)
    a = (rng.standard_normal(N) * mag).astype(dt)
    b = (rng.standard_normal(N) * mag[::-1]).astype(dt)
    c = (rng.standard_normal(N) * mag).astype(dt)
    rows = [  # (x, y, z)
        (0.0, -0.0, 0.0), (-0.0, -0.0, -0.0), (-0.0, 0.0, -0.0), (1.5, -1.5, 0.0),
        (big, big, -big), (-big, big / 2, big), (tiny, tiny, 0.0), (tiny * 3, -0.5, tiny),
        (np.inf, 1.0, -np.inf), (np.nan, 2.0, 1.0), (-np.inf, -np.inf, np.inf), (2.0, 0.0, -1.0),
        (-3.0, -0.0, 0.0), (1.0, 3.0, -1.0 / 3.0), (-7.0, 3.0, 21.0), (0.1, 10.0, -1.0),
        (tiny / 4, 0.75, -tiny), (1.0, tiny / 2, 0.0), (4.0, -2.0, -8.0), (1e-3, -1e-3, 1e-6),
    ]
    for k, (x, y, z) in enumerate(rows):
        a[k], b[k], c[k] = dt(x), dt(y), dt(z)
    return a, b, c


IEEE_ROWS = ["add", "sub", "mul", "div", "fma", "rcp", "sqrt"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_ieee(tilec, dtype):
    dt, N = DTYPES[dtype], 200
    a, b, c = ieee_inputs(dt, N, np.random.default_rng(3))
    u = tilec.run(KERNELS + "math_ieee.py", dict(N=N, dtype=dtype), {"A": a, "B": b, "C": c})["U"]
    modes = ["rn", "rz", "ru", "rd"] if dtype != "float16" else ["rn"]
    for m, mode in enumerate(modes):
        for k, op in enumerate(IEEE_ROWS):
            xs = np.abs(a) if op == "sqrt" else b if op == "rcp" else a
            want = [ieee_ref(op, mode, xs[i], b[i], c[i], dt) for i in range(N)]
            assert_same(u[7 * m + k], np.array(want, dt), "%s %s" % (op, mode))
    if dtype == "float32":
        want = [ieee_ref("rsqrt", "rn", v, v, v, dt) for v in np.abs(a)]
        assert_same(u[28], np.array(want, dt), "ieee_frsqrt")
    assert_same(u[29], np.array([ieee_ref("fma", "rn", a[i], b[i], c[i], dt)
                                 for i in range(N)], dt), "T.fma")
    assert_same(u[30], np.array([ieee_ref("mul", "rn", v, dt(3), 0, dt) for v in a], dt),
                "T.fmul")
    if dtype != "float16":  # the directed modes differ where they should
        assert (u[7 + 0] != u[14 + 0]).any() and (u[14 + 3] != u[21 + 3]).any()


# ---- integers -------------------------------------------------------------------------------
def wrap(v, dt):
    """Python int v wrapped to integer dtype dt (two's complement)."""
    bits = np.iinfo(dt).bits
    v &= (1 << bits) - 1
    return v - (1 << bits) if np.iinfo(dt).min < 0 and v >> (bits - 1) else v


def trunc_div(a, b, dt):
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return wrap(q, dt), wrap(a - q * b, dt)


def clz(v, bits):
    v &= (1 << bits) - 1
    return bits - v.bit_length()


def ffs(v, bits):
    v &= (1 << bits) - 1
    return (v & -v).bit_length()


@pytest.mark.parametrize("dtype", ["int32", "int64", "int8", "uint32"])
def test_int(tilec, dtype):
    dt, N = np.dtype(dtype).type, 200
    info = np.iinfo(dt)
    rng = np.random.default_rng(4)
    a = rng.integers(info.min, info.max, N, dtype=dt, endpoint=True)
    b = rng.integers(info.min, info.max, N, dtype=dt, endpoint=True)
    b[N // 2:] = rng.integers(1, 20, N - N // 2) * rng.choice([-1, 1] if info.min else [1],
                                                                  N - N // 2)
    a[:8] = [info.min, info.max, 0, -1 if info.min else 1, 7, info.min, 1, info.max]
    b[:8] = [-1 if info.min else 3, 2, 5, 3, -2 if info.min else 2, 1, info.max, info.min or 7]
    b[b == 0] = 1  # (C, CUDA and TileLang leave division by zero undefined)
    out = tilec.run(KERNELS + "math_int.py", dict(N=N, dtype=dtype), {"A": a, "B": b})
    u, c = out["U"], out["C"]
    bits = info.bits
    wide = bits >= 32
    for i in range(N):
        x, y = int(a[i]), int(b[i])
        q, r = trunc_div(x, y, dt)
        q3, _ = trunc_div(x, wrap(-3, dt), dt)
        _, r5 = trunc_div(x, 5, dt)
        cdiv = wrap(wrap(x + 4, dt) - 1, dt) // 4
        want_u = [bin(x & ((1 << bits) - 1)).count("1"), q, r, cdiv, max(x, y),
                  wrap(wrap(q3 * 16, dt) + r5, dt)]
        assert [int(v) for v in u[:, i]] == want_u, (i, x, y)
        x64 = x & ((1 << 64) - 1)  # int64 (sign-extended) and uint64 views agree
        want_c = [clz(x, bits) if wide else 0, ffs(x, bits) if wide else 0,
                  clz(x64, 64) + ffs(x64, 64) * 100]
        assert [int(v) for v in c[:, i]] == want_c, (i, x)


# ---- bit reductions and cummax --------------------------------------------------------------
def bit_rows(dt, M, N, rng):
    """Rows that are mostly all-ones (bitand informative) and mostly zero (bitor)."""
    bits = np.iinfo(dt).bits
    ones = wrap(-1, dt) if np.iinfo(dt).min else (1 << bits) - 1
    a = np.zeros((M, N), dt)
    for r in range(M):
        for j in range(N):
            k = int(rng.integers(0, bits))
            flip = rng.random() < 0.1
            if r % 2 == 0:
                a[r, j] = wrap(ones & ~(1 << k), dt) if flip else ones
            else:
                a[r, j] = wrap(1 << k, dt) if flip else 0
    a[5] = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, N, dtype=dt, endpoint=True)
    return a


@pytest.mark.parametrize("dtype,bm,bn,N", [("int32", 16, 32, 40), ("uint64", 16, 32, 40),
                                           ("int8", 16, 32, 40), ("int32", 2, 128, 256)])
def test_reduce_bits_cummax(tilec, dtype, bm, bn, N):
    """On ragged tiles (a tile reads 0 past the tensor: that 0 takes part) and, with
    bm=2, bn=128, reductions across warps on the CUDA target."""
    dt, M = np.dtype(dtype).type, 50
    rng = np.random.default_rng(5)
    a = bit_rows(dt, M, N, rng)
    x = rng.uniform(-2, 1, (M, N)).astype(np.float32)
    x[7, :] = -np.inf
    out = tilec.run(KERNELS + "math_reduce.py", dict(M=M, N=N, bm=bm, bn=bn, dtype=dtype),
                    {"A": a, "X": x})
    nb = -(-N // bn)
    pad = np.zeros((-(-M // bm) * bm, nb * bn), dt)  # a tile reads 0 past the tensor
    pad[:M, :N] = a
    tiles = pad.reshape(pad.shape[0], nb, bn)
    band = np.bitwise_and.reduce(tiles, axis=2)[:M]
    bor = np.bitwise_or.reduce(tiles, axis=2)[:M]
    bxor = np.bitwise_xor.reduce(tiles, axis=2)[:M]
    want = np.stack([band, bor, bxor, bxor, bxor | bor, bxor & band])
    np.testing.assert_array_equal(out["R"], want)
    assert (band != 0).any() and (bor != 0).any() and (band != bor).any()
    run = np.maximum.accumulate(tiles, axis=2).reshape(pad.shape)
    np.testing.assert_array_equal(out["S"], run[:M, :N])
    xp = np.zeros((-(-M // bm) * bm, nb * bn), np.float32)
    xp[:M, :N] = x
    blocks = xp.reshape(-1, bm, xp.shape[1])
    rev = np.maximum.accumulate(blocks[:, ::-1], axis=1)[:, ::-1].reshape(xp.shape)
    np.testing.assert_array_equal(out["Y"], rev[:M, :N])


# ---- errors at the user's line -----------------------------------------------------------------
ERROR_KERNEL = '''import tilelang.language as T

@T.prim_func
def k(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "int32"), H: T.Tensor((64,), "float16"),
      D: T.Tensor((64,), "float64"), S: T.Tensor((64,), "int16"), R: T.Tensor((1,), "float32")):
    with T.Kernel(1, threads=64) as bx:
        for i in T.Parallel(64):
            %s
'''

ERRORS = [
    ("A[i] = T.popcount(A[i])", "T.popcount expects an integer argument, but got float32"),
    ("B[i] = T.clz(S[i])", "T.clz expects a 32-bit or 64-bit integer argument, but got int16"),
    ("B[i] = T.__ffs(True)", "T.__ffs expects an integer argument"),
    ("A[i] = T.ieee_add(A[i], A[i], \"rx\")",
     "T.ieee_add: invalid rounding mode 'rx' (must be one of 'rn', 'rz', 'ru', 'rd')"),
    ("A[i] = T.ieee_fsqrt(A[i], rounding_mode=3)", "T.ieee_fsqrt: invalid rounding mode int 3"),
    ("H[i] = T.ieee_mul(H[i], H[i], \"rz\")",
     "T.ieee_mul: rounding mode 'rz' is not supported for float16"),
    ("D[i] = T.ieee_frsqrt(D[i])", "T.ieee_frsqrt supports float32 only, but got float64"),
    ("A[i] = T.ieee_fmaf(A[i], D[i], A[i])",
     "T.ieee_fmaf expects all inputs to have the same dtype, got float32 and float64"),
    ("A[i] = T.fma(A[i], B[i], A[i])", "T.fma only supports floating-point inputs, but got int32"),
    ("A[i] = T.__exp(B[i])", "T.__exp only supports floating-point inputs, but got int32"),
    ("D[i] = T.__log(D[i])", "T.__log: CUDA has no fast float64 version (use T.log)"),
    ("H[i] = T.fast_rcp(H[i])", "T.fast_rcp supports float32 only, but got float16"),
    ("H[i] = T.nextafter(H[i], H[i])", "T.nextafter supports float32 and float64"),
    ("A[i] = T.ldexp(A[i], 1.5)", "T.ldexp: the exponent must be an integer, got float 1.5"),
    ("B[i] = T.truncdiv(A[i], 2)", "T.truncdiv expects an integer argument, but got float32"),
    ("B[i] = T.truncmod(7, 0)", "T.truncmod: division by zero"),
    ("A[i] = T.acos(A[i], A[i])", "T.acos() takes 1 argument"),
    ("A[i] = T.add2(A[i], A[i])", "T.add2: expected dtype in ['bfloat16x2', 'float16x2', "
     "'float32x2'], got 'float32'"),
    ("T.reduce_bitor(A, R)", "T.reduce_bitor requires integer or bool buffers, got float32"),
    ("T.cummax(A, dim=1)", "T.cummax: dim is out of range for a 1-dimensional buffer"),
]


@pytest.mark.parametrize("stmt,msg", ERRORS)
def test_errors(tilec, tmp_path, stmt, msg):
    path = tmp_path / "k.py"
    path.write_text(ERROR_KERNEL % stmt)
    proc = tilec.command(["run", path, "--target", "c"])
    assert proc.returncode == 1, proc.stderr
    assert "k.py:8:" in proc.stderr and "error: " in proc.stderr, proc.stderr
    assert msg in proc.stderr, proc.stderr
