/* tl_c.h - the scalar semantics of the code tilec generates: the whole prelude of every
 * C file (the C target, the reference the other targets are checked against), and the
 * first part of every CUDA file (the CUDA target pastes it before runtime/cuda/tl_cuda.h).
 *
 * Value model: float16, bfloat16 and the fp8 formats are stored as their bit patterns
 * (uint16_t / uint8_t) and handled in expressions as a C `float` that holds a value
 * exactly representable in the narrow format. Loads decode exactly; stores encode
 * (exactly, since the value is representable); every arithmetic result of a narrow
 * dtype is rounded back with tl_round_*(), round-to-nearest-even, which gives the
 * same result as hardware half arithmetic for + - * / sqrt (float has >= 2p+2 bits).
 *
 * Conversions (written from IEEE 754-2008 binary16 and the OCP 8-bit floating point
 * specification v1.0):
 *   float16  1.5.10, bias 15, subnormals, inf, NaN.
 *   bfloat16 1.8.7, the top half of a float32; NaN stays NaN (made quiet).
 *   e4m3fn   1.4.3, bias 7, max 448, no infinities, NaN = S.1111.111.
 *   e5m2     1.5.2, bias 15, max 57344, inf, NaN.
 * float -> fp8 saturates like CUDA's __nv_fp8_*(float) (cvt.rn.satfinite): any
 * magnitude beyond the largest finite value, infinity included, becomes +-max finite;
 * NaN becomes NaN (0x7f). float -> f16/bf16 overflow gives infinity (IEEE).
 * double -> narrow float rounds once: the double is first rounded to float with
 * round-to-odd, which makes the following RNE step exact (float keeps >= p+2 bits).
 *
 * Math intrinsics (tilec's names, so that both targets' sources read alike; tl_cuda.h
 * defines the device's under TL_DEVICE_MATH): tl_popc/clz/ffs32/64 as CUDA's __popc,
 * __clz (the width for 0), __ffs (1-based, 0 for 0); CUDA's fast approximations
 * tl_fast_<fn>_f32 (__expf, __sinf, rcp.approx, ...) are the accurate functions here (the
 * device's differ within their documented error bounds and flush denormals to zero);
 * the IEEE operations tl_<op>_<rn|rz|ru|rd>_<f32|f64> (CUDA's __fadd_rz, __dsqrt_ru, ...)
 * round to nearest by plain C arithmetic (fmaf and sqrtf are correctly rounded) and in
 * the directed modes by the hardware, the rounding mode set around the one operation.
 *
 * Integers: arithmetic wraps (the generated C is compiled with -fwrapv). Division
 * and modulo by zero are defined to give 0 (C would trap); INT_MIN / -1 wraps. floordiv
 * and floormod follow Python (the remainder has the sign of the divisor). Shift counts
 * are masked to the width of the operand. float -> int conversions truncate and
 * saturate at the type's limits, NaN gives 0 (as CUDA's cvt.rzi.sat does).
 *
 * Compiled as C11 (the C target; the compiler itself includes it to fold constants), as
 * CUDA C++ by NVRTC (no include path: nothing is included under __CUDACC_RTC__) or nvcc,
 * and as host C++ by the CUDA unit test's simulation (TL_CUDA_SIM). In the CUDA cases
 * (TL_CUDA_FILE) every function is __host__ __device__ (TL_FN), a device compile leaves
 * the f16/bf16 conversions to tl_cuda.h's PTX instructions (TL_F16_PTX: same values; a
 * NaN may get another payload), and the C target's runtime (CPU atomics, block scratch
 * memory, assert messages) is left out. */
#ifndef TILEC_TL_C_H
#define TILEC_TL_C_H

#if defined(__CUDACC__) || defined(TL_CUDA_SIM)
#define TL_CUDA_FILE 1
#endif
#ifdef __CUDACC__
#define TL_HOSTDEV __host__ __device__
#define TL_FN __forceinline__ TL_HOSTDEV /* not static: NVRTC warns on unused static ones */
#define TL_F16_PTX 1
#define TL_DEVICE_MATH 1 /* tl_cuda.h has the device's bit, fast-math and IEEE intrinsics */
#else
#define TL_HOSTDEV
#define TL_FN static inline
#endif

#ifdef __CUDACC_RTC__ /* NVRTC: no headers; what they would define */
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
#define INT8_MIN (-128)
#define INT8_MAX 127
#define INT16_MIN (-32768)
#define INT16_MAX 32767
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define INT64_MAX 9223372036854775807LL
#define INT64_MIN (-INT64_MAX - 1)
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295u
#define UINT64_MAX 18446744073709551615ull
#define INT64_C(x) x##LL
#define UINT64_C(x) x##ULL
#else
#include <fenv.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifndef TL_CUDA_FILE
#include <pthread.h>
#endif
#endif

/* What a C-target kernel entry returns (target_c.c turns it into the error message). */
enum { TL_C_OK = 0, TL_C_ASSERT = 1, TL_C_NOMEM = 2, TL_C_GRID = 3 };

/* Special values as the generated code spells them (NVRTC has no <math.h>; the host
 * pass of nvcc, which compiles TL_FN functions too, has). */
#ifdef __CUDA_ARCH__
#define TL_INFF (__int_as_float(0x7f800000))
#define TL_NANF (__int_as_float(0x7fc00000))
#define TL_INF (__longlong_as_double(0x7ff0000000000000LL))
#define TL_NAN (__longlong_as_double(0x7ff8000000000000LL))
#else
#define TL_INFF INFINITY
#define TL_NANF NAN
#define TL_INF ((double)INFINITY)
#define TL_NAN ((double)NAN)
#endif

/* ---- bit casts (a 4-byte memcpy compiles to a register move, on the device too) -------- */
TL_FN uint32_t tl_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

TL_FN float tl_bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

TL_FN uint64_t tl_f64_bits(double f) {
    uint64_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

TL_FN double tl_bits_f64(uint64_t u) {
    double f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- encoding into a narrow format ------------------------------------------------- */
/* Round the 24-bit significand m (implicit bit included) right by s bits, to nearest,
 * ties to even. 1 <= s <= 31. */
TL_FN uint32_t tl_rshift_rne(uint32_t m, int s) {
    if (s >= 32) return 0;
    uint32_t q = m >> s, rem = m & ((1u << s) - 1), half = 1u << (s - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    return q;
}

/* Magnitude code (exponent << mbits | mantissa) of the finite float with bits ax (sign
 * cleared), rounded to nearest-even in a format with mbits mantissa bits and the given
 * exponent bias, subnormals included. No overflow handling: a result past the format's
 * largest finite code is returned as is and the caller saturates. */
TL_FN uint32_t tl_encode_small(uint32_t ax, int mbits, int bias) {
    int e = (int)(ax >> 23) - 127, emin = 1 - bias;
    if (ax < 0x00800000u) return 0; /* float32 subnormals are far below any target's */
    if (e >= emin) {
        int sh = 23 - mbits;
        uint32_t r = ax - ((uint32_t)(127 - bias) << 23);
        r += (1u << (sh - 1)) - 1 + ((r >> sh) & 1);
        return r >> sh;
    }
    /* subnormal in the target: value / 2^(emin - mbits), rounded to an integer */
    uint32_t m = (ax & 0x7fffffu) | 0x800000u;
    return tl_rshift_rne(m, 23 - mbits + (emin - e));
}

#ifndef TL_F16_PTX /* a device compile takes tl_cuda.h's single instructions instead */
/* ---- float16 ----------------------------------------------------------------------- */
TL_FN float tl_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    if (exp == 0x1f) return tl_bits_f32(sign | 0x7f800000u | (man << 13)); /* inf, NaN */
    if (exp != 0) return tl_bits_f32(sign | ((exp + 112) << 23) | (man << 13));
    float sub = (float)man * 0x1p-24f; /* subnormal (or zero): man * 2^-24, exact */
    return sign ? -sub : sub;
}

TL_FN uint16_t tl_f32_to_f16(float f) {
    uint32_t x = tl_f32_bits(f), ax = x & 0x7fffffffu;
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu)); /* NaN */
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to inf */
    return (uint16_t)(sign | tl_encode_small(ax, 10, 15));
}

/* ---- bfloat16 ---------------------------------------------------------------------- */
TL_FN float tl_bf16_to_f32(uint16_t h) { return tl_bits_f32((uint32_t)h << 16); }

TL_FN uint16_t tl_f32_to_bf16(float f) {
    uint32_t x = tl_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x0040u); /* quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1); /* RNE; a carry into the exponent is correct */
    return (uint16_t)(x >> 16);
}
#endif

/* ---- fp8: e4m3fn (1.4.3, bias 7) and e5m2 (1.5.2, bias 15) ---------------------------- */
/* The value of the fp8 code v with mbits mantissa bits and the given bias. ieee: the
 * all-ones exponent holds inf and NaN (e5m2); else only S.1111.111 is NaN (e4m3fn). */
TL_FN float tl_fp8_to_f32(uint8_t v, int mbits, int bias, bool ieee) {
    uint32_t sign = (uint32_t)(v & 0x80u) << 24;
    uint32_t exp = (v & 0x7fu) >> mbits, man = v & ((1u << mbits) - 1);
    if (ieee && exp == 0x7fu >> mbits) /* inf, NaN */
        return tl_bits_f32(sign | 0x7f800000u | (man << (23 - mbits)));
    if (!ieee && (v & 0x7fu) == 0x7fu) return tl_bits_f32(sign | 0x7fc00000u); /* NaN */
    if (exp != 0) return tl_bits_f32(sign | ((exp + 127 - bias) << 23) | (man << (23 - mbits)));
    /* subnormal (or zero): man * 2^(1 - bias - mbits), exact */
    float sub = (float)man * tl_bits_f32((uint32_t)(128 - bias - mbits) << 23);
    return sign ? -sub : sub;
}

/* The fp8 code of f, rounded to nearest-even: NaN gives 0x7f; a magnitude from the
 * largest finite value up (max_bits: its float32 bits), infinity included, saturates to
 * that value's code max_code. */
TL_FN uint8_t tl_f32_to_fp8(float f, int mbits, int bias, uint32_t max_bits, uint32_t max_code) {
    uint32_t x = tl_f32_bits(f), ax = x & 0x7fffffffu;
    uint8_t sign = (uint8_t)((x >> 24) & 0x80u);
    if (ax > 0x7f800000u) return 0x7f;
    if (ax >= max_bits) return (uint8_t)(sign | max_code);
    uint32_t code = tl_encode_small(ax, mbits, bias);
    return (uint8_t)(sign | (code > max_code ? max_code : code));
}

TL_FN float tl_e4m3_to_f32(uint8_t v) { return tl_fp8_to_f32(v, 3, 7, false); }
TL_FN float tl_e5m2_to_f32(uint8_t v) { return tl_fp8_to_f32(v, 2, 15, true); }
/* e4m3fn saturates at 448 (0x43e00000), e5m2 at 57344 (0x47600000) */
TL_FN uint8_t tl_f32_to_e4m3(float f) { return tl_f32_to_fp8(f, 3, 7, 0x43e00000u, 0x7eu); }
TL_FN uint8_t tl_f32_to_e5m2(float f) { return tl_f32_to_fp8(f, 2, 15, 0x47600000u, 0x7bu); }

/* ---- rounding a float (or double) to a narrow dtype's value ----------------------------- */
/* double -> float rounded to odd: truncate, then set the last bit if inexact. */
TL_FN float tl_f64_to_f32_odd(double d) {
    float f = (float)d;
    if (isnan(d) || (double)f == d) return f;
    if (fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);
    return tl_bits_f32(tl_f32_bits(f) | 1u);
}

/* tl_round_S(float) and tl_round64_S(double) for the narrow float S, declared with the
 * specifiers SPEC (tl_cuda.h instantiates f16/bf16 over its device-only conversions). */
#define TL_ROUNDING(SPEC, S)                                                                       \
    SPEC float tl_round_##S(float x) { return tl_##S##_to_f32(tl_f32_to_##S(x)); }                 \
    SPEC float tl_round64_##S(double x) { return tl_round_##S(tl_f64_to_f32_odd(x)); }
#ifndef TL_F16_PTX
TL_ROUNDING(TL_FN, f16)
TL_ROUNDING(TL_FN, bf16)
#endif
TL_ROUNDING(TL_FN, e4m3)
TL_ROUNDING(TL_FN, e5m2)

/* x rounded to TF32 (the float32 exponent, 10 mantissa bits): to nearest, ties away from
 * zero, as PTX's cvt.rna.tf32.f32 (adding half of the dropped bits' unit to the
 * magnitude; a carry into the exponent is correct, infinity stays); NaN as it is. A
 * float32 T.gemm multiplies its operands so rounded (FN_TF32_RNA; tl_cuda.h's TF32 mma). */
TL_FN float tl_tf32_rna_f32(float x) {
    uint32_t u = tl_f32_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return x;
    return tl_bits_f32((u + 0x1000u) & 0xffffe000u);
}

/* ---- integer helpers: S = i32, i64 (signed), u32, u64 (unsigned) ------------------- */
#define TL_SIGNED_HELPERS(S, T, UT, BITS)                                                          \
    TL_FN T tl_neg_##S(T a) { return (T)(0u - (UT)a); }                                            \
    TL_FN T tl_div_##S(T a, T b) {                                                                 \
        if (b == 0) return 0;                                                                      \
        return b == -1 ? tl_neg_##S(a) : a / b;                                                    \
    }                                                                                              \
    TL_FN T tl_floordiv_##S(T a, T b) {                                                            \
        if (b == 0) return 0;                                                                      \
        if (b == -1) return tl_neg_##S(a);                                                         \
        T q = a / b;                                                                               \
        return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;                                   \
    }                                                                                              \
    TL_FN T tl_floormod_##S(T a, T b) {                                                            \
        if (b == 0 || b == -1) return 0;                                                           \
        T r = a % b;                                                                               \
        return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;                                       \
    }                                                                                              \
    TL_FN T tl_min_##S(T a, T b) { return a < b ? a : b; }                                         \
    TL_FN T tl_max_##S(T a, T b) { return a > b ? a : b; }                                         \
    TL_FN T tl_abs_##S(T a) { return a < 0 ? tl_neg_##S(a) : a; }                                  \
    TL_FN T tl_shl_##S(T a, T b) { return (T)((UT)a << ((UT)b & (BITS - 1))); }                    \
    TL_FN T tl_shr_##S(T a, T b) { return a >> ((UT)b & (BITS - 1)); }                             \
    TL_FN T tl_pow_##S(T a, T b) {                                                                 \
        if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;                           \
        UT r = 1, x = (UT)a;                                                                       \
        for (; b; b >>= 1, x *= x)                                                                 \
            if (b & 1) r *= x;                                                                     \
        return (T)r;                                                                               \
    }

#define TL_UNSIGNED_HELPERS(S, T, BITS)                                                            \
    TL_FN T tl_div_##S(T a, T b) { return b == 0 ? 0 : a / b; }                                    \
    TL_FN T tl_floordiv_##S(T a, T b) { return b == 0 ? 0 : a / b; }                               \
    TL_FN T tl_floormod_##S(T a, T b) { return b == 0 ? 0 : a % b; }                               \
    TL_FN T tl_min_##S(T a, T b) { return a < b ? a : b; }                                         \
    TL_FN T tl_max_##S(T a, T b) { return a > b ? a : b; }                                         \
    TL_FN T tl_abs_##S(T a) { return a; }                                                          \
    TL_FN T tl_shl_##S(T a, T b) { return (T)(a << (b & (BITS - 1))); }                            \
    TL_FN T tl_shr_##S(T a, T b) { return (T)(a >> (b & (BITS - 1))); }                            \
    TL_FN T tl_pow_##S(T a, T b) {                                                                 \
        T r = 1;                                                                                   \
        for (; b; b >>= 1, a *= a)                                                                 \
            if (b & 1) r *= a;                                                                     \
        return r;                                                                                  \
    }

TL_SIGNED_HELPERS(i32, int32_t, uint32_t, 32)
TL_SIGNED_HELPERS(i64, int64_t, uint64_t, 64)
TL_UNSIGNED_HELPERS(u32, uint32_t, 32)
TL_UNSIGNED_HELPERS(u64, uint64_t, 64)

/* float -> int: truncate toward zero, saturate, NaN -> 0. */
#define TL_F2I(S, T, LO, HI)                                                                       \
    TL_FN T tl_f2##S(double x) {                                                                   \
        if (x != x) return 0;                                                                      \
        if (x <= (double)(LO)) return (LO);                                                        \
        if (x >= (double)(HI)) return (HI);                                                        \
        return (T)x;                                                                               \
    }
TL_F2I(i8, int8_t, INT8_MIN, INT8_MAX)
TL_F2I(i16, int16_t, INT16_MIN, INT16_MAX)
TL_F2I(i32, int32_t, INT32_MIN, INT32_MAX)
TL_F2I(i64, int64_t, INT64_MIN, INT64_MAX)
TL_F2I(u8, uint8_t, 0, UINT8_MAX)
TL_F2I(u16, uint16_t, 0, UINT16_MAX)
TL_F2I(u32, uint32_t, 0, UINT32_MAX)
TL_F2I(u64, uint64_t, 0, UINT64_MAX)

/* ---- float helpers (IEEE: 1/sqrt, not an approximate rsqrt) -------------------------- */
TL_FN float tl_floormod_f32(float a, float b) { return a - floorf(a / b) * b; }
TL_FN double tl_floormod_f64(double a, double b) { return a - floor(a / b) * b; }
TL_FN float tl_sigmoid_f32(float x) { return 1.0f / (1.0f + expf(-x)); }
TL_FN double tl_sigmoid_f64(double x) { return 1.0 / (1.0 + exp(-x)); }
TL_FN float tl_rsqrt_f32(float x) { return 1.0f / sqrtf(x); }
TL_FN double tl_rsqrt_f64(double x) { return 1.0 / sqrt(x); }

/* x * y + z of narrow-float values (their product is exact in a double), rounded to odd
 * (the sum's error by TwoSum): tl_round64_<S> then rounds it once, exactly. */
TL_FN double tl_fma_odd(double x, double y, double z) {
    double p = x * y, s = p + z, bb = s - p, e = (p - (s - bb)) + (z - bb);
    if (isfinite(s) && e != 0 && !(tl_f64_bits(s) & 1)) s = nextafter(s, e > 0 ? TL_INF : -TL_INF);
    return s;
}

#ifndef TL_DEVICE_MATH /* ---- math intrinsics (tl_cuda.h: the device's) ------------------- */
TL_FN int32_t tl_popc32(uint32_t x) { return __builtin_popcount(x); }
TL_FN int32_t tl_popc64(uint64_t x) { return __builtin_popcountll(x); }
TL_FN int32_t tl_clz32(uint32_t x) { return x ? __builtin_clz(x) : 32; }
TL_FN int32_t tl_clz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }
TL_FN int32_t tl_ffs32(uint32_t x) { return __builtin_ffs((int)x); }
TL_FN int32_t tl_ffs64(uint64_t x) { return __builtin_ffsll((long long)x); }
/* PTX fns: the offset-th set bit of mask from bit base, stepping up (offset > 0) or down
 * (< 0); base itself if set (offset 0); else 0xFFFFFFFF. */
TL_FN uint32_t tl_fns(uint32_t mask, uint32_t base, int32_t offset) {
    if (offset == 0) return base < 32 && ((mask >> base) & 1) ? base : 0xFFFFFFFFu;
    int64_t count = (offset < 0 ? -(int64_t)offset : offset) - 1;
    for (int64_t pos = base; pos >= 0 && pos<32; pos += offset> 0 ? 1 : -1)
        if (((mask >> pos) & 1) && count-- == 0) return (uint32_t)pos;
    return 0xFFFFFFFFu;
}

TL_FN float tl_fast_cos_f32(float x) { return cosf(x); }
TL_FN float tl_fast_exp_f32(float x) { return expf(x); }
TL_FN float tl_fast_exp10_f32(float x) { return powf(10.0f, x); }
TL_FN float tl_fast_log_f32(float x) { return logf(x); }
TL_FN float tl_fast_log2_f32(float x) { return log2f(x); }
TL_FN float tl_fast_log10_f32(float x) { return log10f(x); }
TL_FN float tl_fast_sin_f32(float x) { return sinf(x); }
TL_FN float tl_fast_tan_f32(float x) { return tanf(x); }
TL_FN float tl_fast_rcp_f32(float x) { return 1.0f / x; }

/* One operation in the rounding mode `mode` (FE_*): the operands pass through volatile
 * objects, so that the operation happens between the two changes of the mode. */
enum { TL_IEEE_ADD, TL_IEEE_SUB, TL_IEEE_MUL, TL_IEEE_DIV, TL_IEEE_FMA, TL_IEEE_SQRT };
#define TL_IEEE_IN_MODE(S, T, SQRT, FMA)                                                           \
    static inline T tl_ieee_##S(int op, T x, T y, T z, int mode) {                                 \
        int old = fegetround();                                                                    \
        fesetround(mode);                                                                          \
        volatile T a = x, b = y, c = z, r;                                                         \
        switch (op) {                                                                              \
        case TL_IEEE_ADD: r = a + b; break;                                                        \
        case TL_IEEE_SUB: r = a - b; break;                                                        \
        case TL_IEEE_MUL: r = a * b; break;                                                        \
        case TL_IEEE_DIV: r = a / b; break;                                                        \
        case TL_IEEE_FMA: r = FMA(a, b, c); break;                                                 \
        default: r = SQRT(a);                                                                      \
        }                                                                                          \
        fesetround(old);                                                                           \
        return r;                                                                                  \
    }
TL_IEEE_IN_MODE(f32, float, sqrtf, fmaf)
TL_IEEE_IN_MODE(f64, double, sqrt, fma)

/* tl_<op>_<M>_<S>: add, sub, mul, div, fma, rcp, sqrt of dtype S rounded as M */
#define TL_IEEE_OPS(M, MODE, S, T)                                                                 \
    static inline T tl_add_##M##_##S(T x, T y) { return tl_ieee_##S(TL_IEEE_ADD, x, y, 0, MODE); } \
    static inline T tl_sub_##M##_##S(T x, T y) { return tl_ieee_##S(TL_IEEE_SUB, x, y, 0, MODE); } \
    static inline T tl_mul_##M##_##S(T x, T y) { return tl_ieee_##S(TL_IEEE_MUL, x, y, 0, MODE); } \
    static inline T tl_div_##M##_##S(T x, T y) { return tl_ieee_##S(TL_IEEE_DIV, x, y, 0, MODE); } \
    static inline T tl_fma_##M##_##S(T x, T y, T z) {                                              \
        return tl_ieee_##S(TL_IEEE_FMA, x, y, z, MODE);                                            \
    }                                                                                              \
    static inline T tl_rcp_##M##_##S(T x) { return tl_ieee_##S(TL_IEEE_DIV, 1, x, 0, MODE); }      \
    static inline T tl_sqrt_##M##_##S(T x) { return tl_ieee_##S(TL_IEEE_SQRT, x, 0, 0, MODE); }
TL_IEEE_OPS(rz, FE_TOWARDZERO, f32, float)
TL_IEEE_OPS(ru, FE_UPWARD, f32, float)
TL_IEEE_OPS(rd, FE_DOWNWARD, f32, float)
TL_IEEE_OPS(rz, FE_TOWARDZERO, f64, double)
TL_IEEE_OPS(ru, FE_UPWARD, f64, double)
TL_IEEE_OPS(rd, FE_DOWNWARD, f64, double)

/* to nearest: the default mode's arithmetic */
#define TL_IEEE_RN(S, T, SQRT, FMA)                                                                \
    static inline T tl_add_rn_##S(T x, T y) { return x + y; }                                      \
    static inline T tl_sub_rn_##S(T x, T y) { return x - y; }                                      \
    static inline T tl_mul_rn_##S(T x, T y) { return x * y; }                                      \
    static inline T tl_div_rn_##S(T x, T y) { return x / y; }                                      \
    static inline T tl_fma_rn_##S(T x, T y, T z) { return FMA(x, y, z); }                          \
    static inline T tl_rcp_rn_##S(T x) { return (T)1 / x; }                                        \
    static inline T tl_sqrt_rn_##S(T x) { return SQRT(x); }
TL_IEEE_RN(f32, float, sqrtf, fmaf)
TL_IEEE_RN(f64, double, sqrt, fma)

/* Whether 1/sqrt(x) > m (x > 0, m > 0 of at most 26 significant bits): m * m * x < 1,
 * decided exactly (m * m is exact, the fma gives the product's error). */
static inline bool tl_rsqrt_above(double m, double x) {
    double m2 = m * m, hi = m2 * x, lo = fma(m2, x, -hi);
    return hi < 1 || (hi == 1 && lo < 0);
}

/* 1/sqrt(x) rounded once to float (CUDA's __frsqrt_rn): the double estimate's rounding,
 * moved to the neighbour whose side of a midpoint the exact value is on (it is never on
 * a midpoint: 1/m^2 of a 25-bit midpoint m is no float). */
static inline float tl_rsqrt_rn_f32(float x) {
    float y = (float)(1.0 / sqrt((double)x));
    if (!(x > 0) || isinf(x) || isinf(y)) return y;
    float up = nextafterf(y, TL_INFF), down = nextafterf(y, 0.0f);
    if (tl_rsqrt_above(((double)y + up) / 2, x)) return up;
    if (!tl_rsqrt_above(((double)y + down) / 2, x)) return down;
    return y;
}
#endif

/* Operations the atomics apply (tl_atomic_<op>_<dtype> here and in tl_cuda.h). */
#define TL_ID(x) (x)
#define TL_ADD(a, b) ((a) + (b))
#define TL_OR(a, b) ((a) | (b))
#define TL_SECOND(a, b) ((void)(a), (b))

/* ---- T.rng_*: cuRAND's Philox4x32-10 (curandStatePhilox4_32_10_t) on every target ------
 * A thread's state is 11 words: the 128-bit counter (st[0] lowest), the 64-bit key (the
 * seed), the next output word's index, and the 4 output words of the counter. Init as
 * curand_init(seed, subsequence, offset): the subsequence adds to the counter's high 64
 * bits, offset / 4 to the whole counter and offset % 4 is the first word's index; each
 * draw returns the next word, moving to the next counter after the fourth. */
enum { TL_RNG_WORDS = 11 };
TL_FN void tl_philox4x32_10(uint32_t *st) {
    uint32_t c0 = st[0], c1 = st[1], c2 = st[2], c3 = st[3], k0 = st[4], k1 = st[5];
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c0 = n0, c1 = (uint32_t)p1, c2 = n2, c3 = (uint32_t)p0;
        k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
    }
    st[7] = c0, st[8] = c1, st[9] = c2, st[10] = c3;
}
/* The counter's words from w on, plus n (a 64-bit carry through the rest). */
TL_FN void tl_rng_add(uint32_t *st, int w, uint64_t n) {
    for (; w < 4 && n; w++) {
        uint64_t t = (uint64_t)st[w] + (uint32_t)n;
        st[w] = (uint32_t)t;
        n = (n >> 32) + (t >> 32);
    }
}
TL_FN void tl_rng_init(uint32_t *st, uint64_t seed, uint64_t subsequence, uint64_t offset) {
    for (int i = 0; i < 4; i++) st[i] = 0;
    st[4] = (uint32_t)seed, st[5] = (uint32_t)(seed >> 32);
    tl_rng_add(st, 2, subsequence); /* (wraps within the high half, as cuRAND's) */
    tl_rng_add(st, 0, offset >> 2);
    st[6] = (uint32_t)(offset & 3);
    tl_philox4x32_10(st);
}
TL_FN uint32_t tl_rng_rand(uint32_t *st) {
    uint32_t r = st[7 + st[6]];
    if (++st[6] == 4) {
        st[6] = 0;
        tl_rng_add(st, 0, 1);
        tl_philox4x32_10(st);
    }
    return r;
}
/* curand_uniform: (0, 1], the word times 2^-32 plus 2^-33 (the product is exact, so a
 * fused multiply-add gives the same float). */
TL_FN float tl_rng_uniform(uint32_t *st) {
    return (float)tl_rng_rand(st) * 2.3283064e-10f + 2.3283064e-10f / 2.0f;
}

/* ---- warp-level tensor cores (T.ptx_mma, T.ptx_ldmatrix, T.mma_store, T.mma_fill) -------
 * The PTX ISA's definitions ("Warp-level matrix instructions"), per lane l of a warp,
 * g = l / 4, t = l % 4. mma.m16n8k(8 E), E cells of the operand type per 32-bit register
 * (E = 2: f16/bf16, m16n8k16; 4: s8/u8, m16n8k32; 1: tf32, m16n8k8): element i of a
 * lane's fragment, register r = i / E, cell j = i % E, is
 *   A (16 x 8E): row g + 8 (r % 2), column E t + j + 4E (r / 2)
 *   B (8E x 8):  row E t + j + 4E r, column g
 *   C, D (16 x 8): row g + 8 (i / 2), column 2 t + i % 2.
 * ldmatrix .xN: lane l gives the address of row l % 8 of matrix l / 8 (16 bytes);
 * register m of lane l holds bytes 4 t .. 4 t + 3 of row g of matrix m (.trans: the
 * 16-bit cells (row 2 t, column g) and (2 t + 1, g)). mma_store's tile (16 x 8 n8) is
 * the C layout, n8 tile i / 4 from element i. T.mma_fill zeroes registers. */
TL_FN void tl_mma_fill(void *p, int bytes) {
    for (int i = 0; i < bytes; i++) ((unsigned char *)p)[i] = 0;
}

/* Lane `lane`'s part of T.mma_store: its elements of the 16 x n tile at dst (rows
 * stride elements apart) from src, elements of `bytes` bytes. */
TL_FN void tl_mma_store_lane(int n, int bytes, int lane, void *dst, const void *src,
                             int64_t stride) {
    for (int i = 0; i < n / 2; i++) {
        const int64_t row = 8 * (i % 4 / 2) + lane / 4, col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        memcpy((unsigned char *)dst + (row * stride + col) * bytes,
               (const unsigned char *)src + i * bytes, (size_t)bytes);
    }
}

/* ---- TVM's WMMA fragments (T.tvm_load_matrix_sync, ...: frontend/tileops_wmma.c) ------
 * m16n16k16, tilec's own register layout (the program never sees it): each lane of a
 * warp holds 8 elements of a fragment, mma.sync m16n8k16's A layout, and the B and
 * accumulator fragments as two n8 tiles side by side (elements 0-3, 4-7). Element i of
 * lane l (g = l / 4, t = l % 4) is, of the fragment's matrix (A 16 x 16k, B 16k x 16n,
 * accumulator 16 x 16; role 1, 2, 3):
 *   A, accumulator: row g + 8 (i / 2 % 2), column 2 t + i % 2 + 8 (i / 4)
 *   B:              row 2 t + i % 2 + 8 (i / 2 % 2), column g + 8 (i / 4). */
TL_FN void tl_wmma_rc(int role, int lane, int i, int *row, int *col) {
    const int g = lane / 4, t = lane % 4, hi = 8 * (i / 2 % 2), lo = 2 * t + i % 2;
    if (role == 2) *row = lo + hi, *col = g + 8 * (i / 4);
    else *row = g + hi, *col = lo + 8 * (i / 4);
}

/* Lane `lane`'s part of a fragment load (store: the reverse) between frag and the 16 x 16
 * matrix at mem, element (r, c) at r * stride + c (col: c * stride + r), elements of
 * `bytes` bytes. */
TL_FN void tl_wmma_ldst_lane(int role, bool col, bool store, int bytes, int lane, void *frag,
                             void *mem, int64_t stride) {
    for (int i = 0; i < 8; i++) {
        int r, c;
        tl_wmma_rc(role, lane, i, &r, &c);
        unsigned char *m = (unsigned char *)mem + (col ? c * stride + r : r * stride + c) * bytes;
        unsigned char *f = (unsigned char *)frag + i * bytes;
        if (store) memcpy(m, f, (size_t)bytes);
        else memcpy(f, m, (size_t)bytes);
    }
}

#ifndef __CUDACC__ /* the reference: the C target, and the CUDA target's host simulation */
enum {
    TL_WMMA_F16,
    TL_WMMA_BF16,
    TL_WMMA_TF32,
    TL_WMMA_F32,
    TL_WMMA_S8,
    TL_WMMA_U8,
    TL_WMMA_S32,
    TL_WMMA_E4M3,
    TL_WMMA_E5M2
};

/* Element i of a fragment of type `type` (tf32: a float32 whose low 13 mantissa bits
 * the tensor core ignores). */
static inline double tl_mma_get(int type, const void *p, int i) {
    switch (type) {
    case TL_WMMA_F16: return tl_f16_to_f32(((const uint16_t *)p)[i]);
    case TL_WMMA_BF16: return tl_bf16_to_f32(((const uint16_t *)p)[i]);
    case TL_WMMA_TF32: return tl_bits_f32(tl_f32_bits(((const float *)p)[i]) & 0xffffe000u);
    case TL_WMMA_F32: return ((const float *)p)[i];
    case TL_WMMA_S8: return ((const int8_t *)p)[i];
    case TL_WMMA_U8: return ((const uint8_t *)p)[i];
    case TL_WMMA_E4M3: return tl_e4m3_to_f32(((const uint8_t *)p)[i]);
    case TL_WMMA_E5M2: return tl_e5m2_to_f32(((const uint8_t *)p)[i]);
    default: return ((const int32_t *)p)[i];
    }
}

/* D = A B + C (in place of C) of one warp, lane l's fragments at a[l], b[l], c[l]: the
 * products exact, summed in double (integers: exactly, wrapping to int32), rounded once
 * to C's type. */
static inline void tl_mma_warp(int E, int ta, int tb, int tc, void *const *a, void *const *b,
                               void *const *c) {
    double A[16][32], B[32][8];
    for (int l = 0; l < 32; l++) {
        for (int i = 0; i < 4 * E; i++)
            A[l / 4 + 8 * (i / E % 2)][E * (l % 4) + i % E + 4 * E * (i / E / 2)] = tl_mma_get(ta,
                                                                                               a[l],
                                                                                               i);
        for (int i = 0; i < 2 * E; i++)
            B[E * (l % 4) + i % E + 4 * E * (i / E)][l / 4] = tl_mma_get(tb, b[l], i);
    }
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 4; i++) {
            const int row = l / 4 + 8 * (i / 2), col = 2 * (l % 4) + i % 2;
            double sum = 0;
            for (int k = 0; k < 8 * E; k++) sum += A[row][k] * B[k][col];
            if (tc == TL_WMMA_S32) {
                int32_t *d = (int32_t *)c[l] + i;
                *d = (int32_t)(uint32_t)((int64_t)*d + (int64_t)sum);
            } else if (tc == TL_WMMA_F16) {
                uint16_t *d = (uint16_t *)c[l] + i;
                *d = tl_f32_to_f16(tl_f64_to_f32_odd((double)tl_f16_to_f32(*d) + sum));
            } else {
                float *d = (float *)c[l] + i;
                *d = (float)((double)*d + sum);
            }
        }
}

/* Volta's mma.sync.m8n8k4 (T.ptx_mma_sm70, TileLang's m16n16k4) of one warp: each quad
 * pair q (lanes 4q .. 4q + 3, then 16 + 4q .. 16 + 4q + 3: p = 0 .. 7) computes its own
 * D = A B + C, A 8 x 4 and B 4 x 8 f16, element i of lane p's fragments (TileLang's
 * mma_sm70_layout.py, the PTX ISA's m8n8k4 fragments):
 *   A row-major: (p, i); column-major: (i + 4 (p / 4), p % 4)
 *   B row-major: (p % 4, i + 4 (p / 4)); column-major: (i, p)
 *   C f16 (8 per lane): (p, i); f32: (p % 2 + 2 (i / 2 % 2) + 4 (p / 4),
 *   2 (p % 4 / 2) + i % 2 + 4 (i / 4)).
 * Products exact, summed in double, rounded once to C's type. */
static inline void tl_mma_sm70_warp(bool acol, bool bcol, int tc, void *const *a, void *const *b,
                                    void *const *c) {
    for (int q = 0; q < 4; q++) {
        double A[8][4], B[4][8];
        int lane[8];
        for (int p = 0; p < 8; p++) {
            lane[p] = 4 * q + p % 4 + 16 * (p / 4);
            for (int i = 0; i < 4; i++) {
                double av = tl_mma_get(TL_WMMA_F16, a[lane[p]], i);
                double bv = tl_mma_get(TL_WMMA_F16, b[lane[p]], i);
                if (acol) A[i + 4 * (p / 4)][p % 4] = av;
                else A[p][i] = av;
                if (bcol) B[i][p] = bv;
                else B[p % 4][i + 4 * (p / 4)] = bv;
            }
        }
        for (int p = 0; p < 8; p++)
            for (int i = 0; i < 8; i++) {
                int row = p, col = i;
                if (tc == TL_WMMA_F32)
                    row = p % 2 + 2 * (i / 2 % 2) + 4 * (p / 4),
                    col = 2 * (p % 4 / 2) + i % 2 + 4 * (i / 4);
                double sum = 0;
                for (int k = 0; k < 4; k++) sum += A[row][k] * B[k][col];
                if (tc == TL_WMMA_F16) {
                    uint16_t *d = (uint16_t *)c[lane[p]] + i;
                    *d = tl_f32_to_f16(tl_f64_to_f32_odd((double)tl_f16_to_f32(*d) + sum));
                } else {
                    float *d = (float *)c[lane[p]] + i;
                    *d = (float)((double)*d + sum);
                }
            }
    }
}

/* D = A B + C of one warp's mma.sp m16n8k32 (f16 or bf16 in, f32 out; T.ptx_mma_sp):
 * lane l's 8 kept values of A at a[l] (the layout of a dense m16n8k16 A: the 16 x 16
 * compressed tile), its 8 B values at b[l] (k = 2 (l % 4) + i % 2 + 8 (i / 2)), the
 * metadata word of lane 4g + h (h = 0, 1; sparsity selector 0) at e[4g + h]: rows g (bits
 * 0..15) and g + 8 (bits 16..31) of k half h, 4 bits per group of 4 (bits 1:0 and 3:2
 * the in-group indices of the group's two kept values). Sums as tl_mma_warp. */
static inline void tl_mma_sp_warp(int ta, void *const *a, void *const *b, void *const *c,
                                  void *const *e) {
    double Ac[16][16], A[16][32] = {{0}}, B[32][8];
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 8; i++) {
            Ac[l / 4 + 8 * (i / 2 % 2)][2 * (l % 4) + i % 2 + 8 * (i / 4)] = tl_mma_get(ta, a[l],
                                                                                        i);
            B[2 * (l % 4) + i % 2 + 8 * (i / 2)][l / 4] = tl_mma_get(ta, b[l], i);
        }
    for (int g = 0; g < 8; g++)
        for (int h = 0; h < 2; h++) {
            uint32_t word;
            memcpy(&word, e[4 * g + h], 4);
            for (int r = 0; r < 2; r++)
                for (int q = 0; q < 4; q++) {
                    const unsigned f = word >> (16 * r + 4 * q) & 15;
                    double *row = A[g + 8 * r] + 16 * h + 4 * q,
                           *kept = Ac[g + 8 * r] + 8 * h + 2 * q;
                    row[f & 3] += kept[0];
                    row[f >> 2] += kept[1];
                }
        }
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 4; i++) {
            const int row = l / 4 + 8 * (i / 2), col = 2 * (l % 4) + i % 2;
            double sum = 0;
            for (int k = 0; k < 32; k++) sum += A[row][k] * B[k][col];
            float *d = (float *)c[l] + i;
            *d = (float)((double)*d + sum);
        }
}

/* ldmatrix .x<num> (.trans when trans) of one warp: src[l] lane l's row address, dst[l]
 * its registers. */
static inline void tl_ldmatrix_warp(int num, bool trans, void *const *dst, void *const *src) {
    for (int l = 0; l < 32; l++)
        for (int m = 0; m < num; m++) {
            unsigned char *d = (unsigned char *)dst[l] + 4 * m;
            if (!trans) memcpy(d, (const unsigned char *)src[8 * m + l / 4] + 4 * (l % 4), 4);
            else
                for (int h = 0; h < 2; h++)
                    memcpy(d + 2 * h,
                           (const unsigned char *)src[8 * m + 2 * (l % 4) + h] + 2 * (l / 4), 2);
        }
}
#endif

/* ---- wgmma's shared-memory matrix descriptors (T.initialize_wgmma_descriptor) ---------
 * PTX ISA "Matrix Descriptor Format": bits 0-13 the shared address >> 4, 16-29 the
 * leading byte offset >> 4, 32-45 the stride byte offset >> 4, 49-51 base offset (0: the
 * swizzle pattern starts on a 1024-byte boundary), 62-63 the layout (0 none, 1 128B, 2
 * 64B, 3 32B swizzle). lbo and sbo come already shifted (TileLang's convention). */
TL_FN uint64_t tl_gmma_desc_encode(uint32_t addr, int32_t layout, int32_t lbo, int32_t sbo) {
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | (uint64_t)(lbo & 0x3FFF) << 16 |
           (uint64_t)(sbo & 0x3FFF) << 32 | (uint64_t)(layout & 3) << 62;
}
/* T.increase_descriptor_offset: bytes further into shared memory (TileLang adds
 * bytes >> 4 to the low 32-bit word). */
TL_FN void tl_gmma_desc_add(uint64_t *d, int64_t bytes) {
    uint32_t lo = (uint32_t)*d + (uint32_t)(bytes >> 4);
    *d = (*d & 0xFFFFFFFF00000000ull) | lo;
}

#ifndef __CUDACC__ /* ---- wgmma on the host: the C target and the CUDA simulation ------ */
/* Operand types of T.ptx_wgmma_ss (tl_cuda.h's TL_MMA_* in the same order). */
enum { TL_GMMA_F16 = 0, TL_GMMA_BF16 = 1, TL_GMMA_E4M3 = 2, TL_GMMA_E5M2 = 3 };

/* The byte offset from the shared-memory base of element (mn, k) of one wgmma operand
 * (k < one instruction's K) that descriptor desc describes: es bytes an element, K
 * contiguous (k_major) or M/N contiguous. Canonical layouts of PTX ISA "Shared Memory
 * Matrix Layout" (CUTLASS's make_gmma_desc, in 16-byte units T = 16 / es elements):
 *   K-major, none:     ((8,m),(T,2)) : ((1T,SBO),(1,LBO))
 *   K-major, W-swizzle: ((8,m),(T,2)) : ((W T,SBO),(1,T))   W = 2/4/8 for 32B/64B/128B
 *   MN-major, none:    ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))
 *   MN-major, swizzle: ((T,W,m),(8,k)) : ((1,T,LBO),(W T,SBO))
 * then the swizzle of the address (16-byte chunk j of a 16 W-byte row r at j ^ r % W),
 * which the hardware applies to absolute addresses: the base is 1024-byte aligned. */
static inline uint32_t tl_gmma_offset(uint64_t desc, int mn, int k, int es, bool k_major) {
    uint32_t start = (uint32_t)(desc & 0x3FFF) << 4;
    uint32_t lbo = (uint32_t)(desc >> 16 & 0x3FFF) << 4, sbo = (uint32_t)(desc >> 32 & 0x3FFF) << 4;
    int mode = (int)(desc >> 62 & 3);
    uint32_t w = mode ? 8u >> (mode - 1) : 1u, t = 16u / (uint32_t)es, m = (uint32_t)mn,
             kk = (uint32_t)k, e = (uint32_t)es, off;
    if (k_major)
        off = mode ? m % 8 * 16 * w + m / 8 * sbo + kk * e
                   : m % 8 * 16 + m / 8 * sbo + kk % t * e + kk / t * lbo;
    else if (mode) off = m % (t * w) * e + m / (t * w) * lbo + kk % 8 * 16 * w + kk / 8 * sbo;
    else off = m % t * e + m / t * sbo + kk % 8 * 16 + kk / 8 * lbo;
    uint32_t a = start + off;
    return mode ? a ^ (a >> 7 & (w - 1)) << 4 : a;
}

static inline float tl_gmma_in(const unsigned char *p, int type) {
    uint16_t h;
    switch (type) {
    case TL_GMMA_F16: memcpy(&h, p, 2); return tl_f16_to_f32(h);
    case TL_GMMA_BF16: memcpy(&h, p, 2); return tl_bf16_to_f32(h);
    case TL_GMMA_E4M3: return tl_e4m3_to_f32(*p);
    default: return tl_e5m2_to_f32(*p);
    }
}

/* Element (row, k) of a wgmma's A held in registers: regs[u] is the warpgroup's thread
 * u's four 32-bit registers. 16-bit: a0 = (g, 2q..2q+1), a1 = (g + 8, ..), a2 = (g, 8 +
 * 2q..), a3 = (g + 8, 8 + 2q..); 8-bit: a0 = (g, 4q..4q+3), a1 = (g + 8, ..), a2 = (g, 16
 * + 4q..), a3 = (g + 8, 16 + 4q..); rows 16 w further in warp w, lower k in lower bytes
 * (g = lane / 4, q = lane % 4). */
static inline const unsigned char *tl_gmma_a_reg(const unsigned char *const *regs, int row, int k,
                                                 int es) {
    int per = 4 / es, j = k / (4 * per), q = k % (4 * per) / per,
        e = k % per; /* per: a register's */
    int owner = 32 * (row / 16) + 4 * (row % 8) + q;
    return regs[owner] + (row % 16 / 8 + 2 * j) * 4 + e * es;
}

/* Thread tid's part (tid % 128 in its warpgroup) of one wgmma D = sa sb A B (+ D when
 * scale_d), A 64 x K (through descriptor da, or a_regs: registers, tl_gmma_a_reg) and B
 * N x K (through db) read from smem: its n / 2 float32 accumulators, register i at row
 * 16 (tid / 32 % 4) + tid % 32 / 4 + 8 (i / 2 % 2) and column 8 (i / 4) + 2 (tid % 4) +
 * i % 2 (PTX ISA "Matrix Fragments for wgmma.mma_async"). K is 32 bytes of elements. */
static inline void tl_gmma_apply(const unsigned char *smem, float *d, uint64_t da,
                                 const unsigned char *const *a_regs, uint64_t db, int n, int ta,
                                 int tb, bool a_k, bool b_k, bool scale_d, int sa, int sb,
                                 int tid) {
    int es = ta >= TL_GMMA_E4M3 ? 1 : 2, kk = 32 / es, lane = tid % 32;
    int row0 = 16 * (tid / 32 % 4) + lane / 4;
    for (int i = 0; i < n / 2; i++) {
        int row = row0 + 8 * (i / 2 % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        float s = 0.0f;
        for (int k = 0; k < kk; k++) {
            const unsigned char *a = a_regs ? tl_gmma_a_reg(a_regs, row, k, es)
                                            : smem + tl_gmma_offset(da, row, k, es, a_k);
            s += tl_gmma_in(a, ta) * tl_gmma_in(smem + tl_gmma_offset(db, col, k, es, b_k), tb);
        }
        d[i] = (scale_d ? d[i] : 0.0f) + (float)(sa * sb) * s;
    }
}
#endif /* !__CUDACC__ */

#ifndef TL_CUDA_FILE /* ==== the C target's runtime ==================================== */
/* ---- atomics (lock-free compare-and-swap loops on the storage word) -------------------
 * tl_atomic_<op>_<dtype>(storage pointer, value): *p = round(op(*p, v)), returning the
 * previous value (T.atomic_add(..., return_prev=True)). Scalar atomic adds of
 * int32/int64/uint32/uint64/float/double are emitted as `#pragma omp atomic`. A memory
 * order other than relaxed puts tl_fence() before (release) and after (acquire) them. */
#define TL_ATOMIC_CAS(NAME, ST, VT, DEC, ENC, OP)                                                  \
    static inline VT NAME(ST *p, VT v) {                                                           \
        ST old, nw;                                                                                \
        __atomic_load(p, &old, __ATOMIC_RELAXED);                                                  \
        do {                                                                                       \
            VT cur = DEC(old);                                                                     \
            nw = ENC(OP(cur, v));                                                                  \
        } while (!__atomic_compare_exchange(p, &old, &nw, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
        return DEC(old);                                                                           \
    }
#define TL_ATOMIC_FLOAT(S, ST, VT, DEC, ENC, MAXF, MINF)                                           \
    TL_ATOMIC_CAS(tl_atomic_add_##S, ST, VT, DEC, ENC, TL_ADD)                                     \
    TL_ATOMIC_CAS(tl_atomic_max_##S, ST, VT, DEC, ENC, MAXF)                                       \
    TL_ATOMIC_CAS(tl_atomic_min_##S, ST, VT, DEC, ENC, MINF)                                       \
    TL_ATOMIC_CAS(tl_atomic_store_##S, ST, VT, DEC, ENC, TL_SECOND)                                \
    TL_ATOMIC_LOAD(S, ST)
/* A full fence: what acquire, release and seq_cst ask of the accesses around an atomic. */
static inline void tl_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
/* tl_atomic_load_<dtype>(storage pointer, memory order id of atomic.py): the element's
 * storage, read atomically; seq_cst fences before, consume, acquire and seq_cst after. */
#define TL_ATOMIC_LOAD(S, ST)                                                                      \
    static inline ST tl_atomic_load_##S(const ST *p, int order) {                                  \
        ST v;                                                                                      \
        if (order == 5) tl_fence();                                                                \
        __atomic_load(p, &v, __ATOMIC_RELAXED);                                                    \
        if (order == 1 || order == 2 || order == 5) tl_fence();                                    \
        return v;                                                                                  \
    }
TL_ATOMIC_FLOAT(f16, uint16_t, float, tl_f16_to_f32, tl_f32_to_f16, fmaxf, fminf)
TL_ATOMIC_FLOAT(bf16, uint16_t, float, tl_bf16_to_f32, tl_f32_to_bf16, fmaxf, fminf)
TL_ATOMIC_FLOAT(e4m3, uint8_t, float, tl_e4m3_to_f32, tl_f32_to_e4m3, fmaxf, fminf)
TL_ATOMIC_FLOAT(e5m2, uint8_t, float, tl_e5m2_to_f32, tl_f32_to_e5m2, fmaxf, fminf)
TL_ATOMIC_FLOAT(f32, float, float, TL_ID, TL_ID, fmaxf, fminf)
TL_ATOMIC_FLOAT(f64, double, double, TL_ID, TL_ID, fmax, fmin)
#define TL_ATOMIC_INT(S, T, CS)                                                                    \
    TL_ATOMIC_CAS(tl_atomic_add_##S, T, T, TL_ID, (T), TL_ADD)                                     \
    TL_ATOMIC_CAS(tl_atomic_max_##S, T, T, TL_ID, (T), tl_max_##CS)                                \
    TL_ATOMIC_CAS(tl_atomic_min_##S, T, T, TL_ID, (T), tl_min_##CS)                                \
    TL_ATOMIC_CAS(tl_atomic_or_##S, T, T, TL_ID, (T), TL_OR)                                       \
    TL_ATOMIC_CAS(tl_atomic_store_##S, T, T, TL_ID, (T), TL_SECOND)                                \
    TL_ATOMIC_LOAD(S, T)
TL_ATOMIC_INT(i8, int8_t, i32)
TL_ATOMIC_INT(i16, int16_t, i32)
TL_ATOMIC_INT(i32, int32_t, i32)
TL_ATOMIC_INT(i64, int64_t, i64)
TL_ATOMIC_INT(u8, uint8_t, u32)
TL_ATOMIC_INT(u16, uint16_t, u32)
TL_ATOMIC_INT(u32, uint32_t, u32)
TL_ATOMIC_INT(u64, uint64_t, u64)

/* ---- explicit memory access (T.__ldg, T.ldg32 .. T.sts128) ----------------------------
 * The CPU has no read-only data cache: T.__ldg is a load. tl_ld_bits32 / tl_st_bits32 move
 * the 32 bits at p (any alignment; little-endian, as the GPU) to or from a uint32_t. */
#define tl_ldg(p) (*(p))
static inline uint32_t tl_ld_bits32(const void *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void tl_st_bits32(void *p, uint32_t v) { memcpy(p, &v, sizeof v); }

/* ---- block scratch memory and diagnostics -------------------------------------------- */
/* Per-thread memory for a kernel's shared/fragment/local/var buffers (64-byte aligned).
 * NULL when size is 0, and when the threads' scratch together is more than the machine's
 * memory: an overcommitting kernel would hand it out, and the zero fill of each block
 * would then bring in the OOM killer instead of an error. */
static inline char *tl_scratch_alloc(size_t size) {
#ifdef _OPENMP
    size_t threads = (size_t)omp_get_num_threads();
#else
    size_t threads = 1;
#endif
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (!size || (pages > 0 && page > 0 && size / (size_t)page >= (size_t)pages / threads))
        return NULL;
    return (char *)aligned_alloc(64, (size + 63) / 64 * 64);
}

/* Thread-level code: the thread whose value a warp shuffle in thread tid of a block of n
 * reads (kind 0: lane ^ arg, 1: lane + arg, 2: lane - arg, 3: lane arg; arg's low 5 bits,
 * as PTX's shfl.sync reads them), its own past the warp's 32 lanes or the block's
 * threads, as CUDA's __shfl_*_sync. */
static inline int tl_shfl_src(int kind, int tid, int arg, int n) {
    int lane = tid % 32, b = arg & 31;
    int src = kind == 0 ? lane ^ b : kind == 1 ? lane + b : kind == 2 ? lane - b : b;
    if (src < 0 || src > 31) return tid;
    src += tid - lane;
    return src < n ? src : tid;
}

/* Warp votes in thread tid of a block of n threads, over the lanes of its warp that exist
 * (a partial last warp has fewer), each lane's argument at p[its thread]: the mask of
 * those lanes; of the lanes whose predicate is set (CUDA's __ballot_sync); whether tid is
 * the lowest of them (elect.sync); the lanes holding tid's value (__match_any_sync); the
 * lanes that exist when every lane holds the same value, else 0 (__match_all_sync's
 * result: a partial warp's own lanes, as an H100 gives). */
static inline uint64_t tl_warp_lanes(int tid, int n) {
    int base = tid - tid % 32, k = n - base < 32 ? n - base : 32;
    return k == 32 ? 0xffffffffull : (1ull << k) - 1;
}
static inline uint64_t tl_warp_ballot(const bool *p, int tid, int n) {
    int base = tid - tid % 32;
    uint64_t m = 0;
    for (int l = 0; l < 32 && base + l < n; l++) m |= (uint64_t)(p[base + l] != 0) << l;
    return m;
}
static inline bool tl_warp_elect(const bool *p, int tid, int n) {
    uint64_t m = tl_warp_ballot(p, tid, n);
    return m && (m & (0 - m)) == 1ull << (tid % 32);
}
#define TL_WARP_MATCH(S, T)                                                                        \
    static inline uint32_t tl_warp_match_any_##S(const T *v, int tid, int n) {                     \
        int base = tid - tid % 32;                                                                 \
        uint32_t m = 0;                                                                            \
        for (int l = 0; l < 32 && base + l < n; l++) m |= (uint32_t)(v[base + l] == v[tid]) << l;  \
        return m;                                                                                  \
    }                                                                                              \
    static inline uint32_t tl_warp_match_all_##S(const T *v, int tid, int n) {                     \
        uint32_t lanes = (uint32_t)tl_warp_lanes(tid, n);                                          \
        return tl_warp_match_any_##S(v, tid, n) == lanes ? lanes : 0u;                             \
    }
TL_WARP_MATCH(u32, uint32_t)
TL_WARP_MATCH(u64, uint64_t)
#undef TL_WARP_MATCH

/* A block vote over the predicates p of the block's n threads (kind 0: all set, 1: any
 * set, 2: how many), as CUDA's __syncthreads_and / _or / _count. */
static inline int32_t tl_block_vote(int kind, const bool *p, int n) {
    int32_t k = 0;
    for (int t = 0; t < n; t++) k += p[t] != 0;
    return kind == 0 ? k == n : kind == 1 ? k > 0 : k;
}

/* The message of a failed T.device_assert (tl_cuda.h has the device's, same text). */
static inline void tl_assert_fail(const char *where, const char *msg, long long bx, long long by,
                                  long long bz) {
    fprintf(stderr, "%s: device assert failed: %s (block (%lld, %lld, %lld))\n", where, msg, bx, by,
            bz);
}

/* T.ptx_cp_async on the C target: the copy is done when it is issued (the earliest the
 * hardware may finish it); valid false writes zeros and reads nothing. */
#define TL_CP_ASYNC(N)                                                                             \
    static inline void tl_cp_async##N(void *smem, const void *gmem, bool valid) {                  \
        if (valid) memcpy(smem, gmem, N);                                                          \
        else memset(smem, 0, N);                                                                   \
    }
TL_CP_ASYNC(4)
TL_CP_ASYNC(8)
TL_CP_ASYNC(16)
#undef TL_CP_ASYNC

/* The warp-collective primitives on the C target: one call for the block's n threads
 * (a multiple of 32), each argument an array of every thread's (its pointers point into
 * its own registers), warp by warp. */
#define TL_C_MMA(SHAPE, E, C, A, B, TC, TA, TB)                                                    \
    static inline void tl_ptx_mma_##SHAPE##_##C##_##A##_##B(int n, void *const *a, void *const *b, \
                                                            void *const *c) {                      \
        for (int w = 0; w < n; w += 32) tl_mma_warp(E, TA, TB, TC, a + w, b + w, c + w);           \
    }
#define TL_C_MMA_SP(A, TA)                                                                         \
    static inline void tl_ptx_mma_sp_m16n8k32_f32_##A##_##A(int n, void *const *a, void *const *b, \
                                                            void *const *c, void *const *e) {      \
        for (int w = 0; w < n; w += 32) tl_mma_sp_warp(TA, a + w, b + w, c + w, e + w);            \
    }
TL_C_MMA_SP(f16, TL_WMMA_F16)
TL_C_MMA_SP(bf16, TL_WMMA_BF16)
#undef TL_C_MMA_SP
TL_C_MMA(m16n8k16, 2, f32, f16, f16, TL_WMMA_F32, TL_WMMA_F16, TL_WMMA_F16)
TL_C_MMA(m16n8k16, 2, f32, bf16, bf16, TL_WMMA_F32, TL_WMMA_BF16, TL_WMMA_BF16)
TL_C_MMA(m16n8k16, 2, f16, f16, f16, TL_WMMA_F16, TL_WMMA_F16, TL_WMMA_F16)
TL_C_MMA(m16n8k32, 4, s32, s8, s8, TL_WMMA_S32, TL_WMMA_S8, TL_WMMA_S8)
TL_C_MMA(m16n8k32, 4, s32, s8, u8, TL_WMMA_S32, TL_WMMA_S8, TL_WMMA_U8)
TL_C_MMA(m16n8k32, 4, s32, u8, s8, TL_WMMA_S32, TL_WMMA_U8, TL_WMMA_S8)
TL_C_MMA(m16n8k32, 4, s32, u8, u8, TL_WMMA_S32, TL_WMMA_U8, TL_WMMA_U8)
TL_C_MMA(m16n8k8, 1, f32, tf32, tf32, TL_WMMA_F32, TL_WMMA_TF32, TL_WMMA_TF32)
TL_C_MMA(m16n8k32, 4, f32, e4m3, e4m3, TL_WMMA_F32, TL_WMMA_E4M3, TL_WMMA_E4M3)
TL_C_MMA(m16n8k32, 4, f32, e4m3, e5m2, TL_WMMA_F32, TL_WMMA_E4M3, TL_WMMA_E5M2)
TL_C_MMA(m16n8k32, 4, f32, e5m2, e4m3, TL_WMMA_F32, TL_WMMA_E5M2, TL_WMMA_E4M3)
TL_C_MMA(m16n8k32, 4, f32, e5m2, e5m2, TL_WMMA_F32, TL_WMMA_E5M2, TL_WMMA_E5M2)
#undef TL_C_MMA

#define TL_C_MMA_SM70(AL, BL, C, ACOL, BCOL, TC)                                                   \
    static inline void tl_ptx_mma_sm70_##AL##_##BL##_##C(int n, void *const *a, void *const *b,    \
                                                         void *const *c) {                         \
        for (int w = 0; w < n; w += 32) tl_mma_sm70_warp(ACOL, BCOL, TC, a + w, b + w, c + w);     \
    }
TL_C_MMA_SM70(row, row, f16, false, false, TL_WMMA_F16)
TL_C_MMA_SM70(row, col, f16, false, true, TL_WMMA_F16)
TL_C_MMA_SM70(col, row, f16, true, false, TL_WMMA_F16)
TL_C_MMA_SM70(col, col, f16, true, true, TL_WMMA_F16)
TL_C_MMA_SM70(row, row, f32, false, false, TL_WMMA_F32)
TL_C_MMA_SM70(row, col, f32, false, true, TL_WMMA_F32)
TL_C_MMA_SM70(col, row, f32, true, false, TL_WMMA_F32)
TL_C_MMA_SM70(col, col, f32, true, true, TL_WMMA_F32)
#undef TL_C_MMA_SM70

#define TL_C_LDMATRIX(NAME, NUM, TRANS)                                                            \
    static inline void NAME(int n, void *const *dst, void *const *src) {                           \
        for (int w = 0; w < n; w += 32) tl_ldmatrix_warp(NUM, TRANS, dst + w, src + w);            \
    }
TL_C_LDMATRIX(tl_ptx_ldmatrix_x1, 1, false)
TL_C_LDMATRIX(tl_ptx_ldmatrix_x2, 2, false)
TL_C_LDMATRIX(tl_ptx_ldmatrix_x4, 4, false)
TL_C_LDMATRIX(tl_ptx_ldmatrix_x1_trans, 1, true)
TL_C_LDMATRIX(tl_ptx_ldmatrix_x2_trans, 2, true)
TL_C_LDMATRIX(tl_ptx_ldmatrix_x4_trans, 4, true)
#undef TL_C_LDMATRIX

#define TL_C_MMA_STORE(N, BYTES)                                                                   \
    static inline void tl_mma_store_16x##N##_b##BYTES(int n, void *const *dst, void *const *src,   \
                                                      const int64_t *stride) {                     \
        for (int t = 0; t < n; t++)                                                                \
            tl_mma_store_lane(N, BYTES, t % 32, dst[t], src[t], stride[t]);                        \
    }
TL_C_MMA_STORE(8, 1)
TL_C_MMA_STORE(8, 2)
TL_C_MMA_STORE(8, 4)
TL_C_MMA_STORE(16, 1)
TL_C_MMA_STORE(16, 2)
TL_C_MMA_STORE(16, 4)
#undef TL_C_MMA_STORE

/* TVM's WMMA intrinsics (the layout above): loads and stores lane by lane; D = A B + C as
 * two mma.sync m16n8k16 per warp (tl_mma_warp), C copied to D first. */
#define TL_C_WMMA_LDST(OP, R, ROLE, BYTES, SUF, COL, STORE)                                        \
    static inline void tl_wmma_##OP##_##R##_b##BYTES##SUF(int n, void *const *frag,                \
                                                          void *const *mem,                        \
                                                          const int64_t *stride) {                 \
        for (int t = 0; t < n; t++)                                                                \
            tl_wmma_ldst_lane(ROLE, COL, STORE, BYTES, t % 32, frag[t], mem[t], stride[t]);        \
    }
#define TL_C_WMMA_LDST2(OP, R, ROLE, BYTES, STORE)                                                 \
    TL_C_WMMA_LDST(OP, R, ROLE, BYTES, , false, STORE)                                             \
    TL_C_WMMA_LDST(OP, R, ROLE, BYTES, _col, true, STORE)
TL_C_WMMA_LDST2(load, a, 1, 2, false)
TL_C_WMMA_LDST2(load, b, 2, 2, false)
TL_C_WMMA_LDST2(load, c, 3, 2, false)
TL_C_WMMA_LDST2(load, c, 3, 4, false)
TL_C_WMMA_LDST2(store, c, 3, 2, true)
TL_C_WMMA_LDST2(store, c, 3, 4, true)
#undef TL_C_WMMA_LDST2
#undef TL_C_WMMA_LDST

static inline void tl_wmma_mma_warps(int n, int tc, int tab, int cbytes, void *const *d,
                                     void *const *a, void *const *b, void *const *c) {
    for (int w = 0; w < n; w += 32) {
        void *b1[32], *d1[32]; /* the second n8 tile */
        for (int l = 0; l < 32; l++) {
            if (d[w + l] != c[w + l]) memcpy(d[w + l], c[w + l], (size_t)(8 * cbytes));
            b1[l] = (unsigned char *)b[w + l] + 8, d1[l] = (unsigned char *)d[w + l] + 4 * cbytes;
        }
        tl_mma_warp(2, tab, tab, tc, a + w, b + w, d + w);
        tl_mma_warp(2, tab, tab, tc, a + w, b1, d1);
    }
}
#define TL_C_WMMA_MMA(C, AB, TC, TAB, CBYTES)                                                      \
    static inline void tl_wmma_mma_##C##_##AB(int n, void *const *d, void *const *a,               \
                                              void *const *b, void *const *c) {                    \
        tl_wmma_mma_warps(n, TC, TAB, CBYTES, d, a, b, c);                                         \
    }
TL_C_WMMA_MMA(f32, f16, TL_WMMA_F32, TL_WMMA_F16, 4)
TL_C_WMMA_MMA(f16, f16, TL_WMMA_F16, TL_WMMA_F16, 2)
TL_C_WMMA_MMA(f32, bf16, TL_WMMA_F32, TL_WMMA_BF16, 4)
#undef TL_C_WMMA_MMA

/* ---- wgmma (T.ptx_wgmma_ss and its descriptors) ----------------------------------------
 * The block's shared memory, which the block function sets: descriptors address it from
 * here as the hardware's 18-bit shared window (the C target lays shared buffers out
 * first, 1024-byte aligned, in a kernel that makes descriptors). A wgmma computes when
 * it is issued (each thread its own accumulators): fences, commits and waits have
 * nothing to order; a_smem and b_smem name what it reads, for the passes. */
static inline void tl_gmma_desc_init_at(const unsigned char *smem0, uint64_t *d, const void *smem,
                                        int32_t layout, int32_t lbo, int32_t sbo) {
    *d = tl_gmma_desc_encode((uint32_t)((const unsigned char *)smem - smem0), layout, lbo, sbo);
}
static inline void tl_wgmma_raw_ss_at(const unsigned char *smem0, float *d, uint64_t da,
                                      uint64_t db, int32_t scale_d, int32_t tid, int32_t n,
                                      int32_t ta, int32_t tb, int32_t a_k, int32_t b_k, int32_t sa,
                                      int32_t sb, const void *a_smem, const void *b_smem) {
    (void)a_smem, (void)b_smem;
    tl_gmma_apply(smem0, d, da, NULL, db, n, ta, tb, a_k, b_k, scale_d != 0, sa, sb, tid % 128);
}
/* T.ptx_wgmma_rs: A in the registers a of each thread of the warpgroup, whose copies
 * lie a_stride bytes apart on the C target (the per-thread buffers of thread-level
 * code). */
static inline void tl_wgmma_raw_rs_at(const unsigned char *smem0, float *d, const void *a,
                                      uint64_t db, int32_t scale_d, int32_t tid, int32_t n,
                                      int32_t ta, int32_t tb, int32_t b_k, int32_t sa, int32_t sb,
                                      int64_t a_stride, const void *b_smem) {
    const unsigned char *regs[128];
    (void)b_smem;
    for (int u = 0; u < 128; u++) regs[u] = (const unsigned char *)a + (u - tid % 128) * a_stride;
    tl_gmma_apply(smem0, d, 0, regs, db, n, ta, tb, true, b_k, scale_d != 0, sa, sb, tid % 128);
}
/* The calls the kernel makes, with the block's shared memory (tl_c_smem, a local of the
 * block function that emit_c.c declares) first: a thread-local variable instead broke
 * LeakSanitizer's scan of the OpenMP threads' TLS in the dlopened kernel. */
#define tl_gmma_desc_init(...) tl_gmma_desc_init_at(tl_c_smem, __VA_ARGS__)
#define tl_wgmma_raw_ss(...) tl_wgmma_raw_ss_at(tl_c_smem, __VA_ARGS__)
#define tl_wgmma_raw_rs(...) tl_wgmma_raw_rs_at(tl_c_smem, __VA_ARGS__)
/* T.ptx_cp_async_bulk: the copy, done at issue (its barrier has no meaning here). */
static inline void tl_bulk_copy(void *smem, const void *gmem, int32_t bytes) {
    memcpy(smem, gmem, (size_t)bytes);
}
static inline void tl_warpgroup_arrive(void) {}
static inline void tl_warpgroup_commit(void) {}
static inline void tl_fence_regs(const void *p, int32_t n) { (void)p, (void)n; }

/* ---- barriers across blocks (T.sync_grid, T.cluster_*) ---------------------------------
 * A kernel with such barriers runs each team of blocks they span (the whole grid for
 * T.sync_grid, else one cluster) with one POSIX thread per block, all at once
 * (tl_c_run_teams); teams run one after the other. A tl_c_bar counts the team's blocks
 * still running: a block that ends (returns, or fails an assert) leaves it, so that the
 * others never wait for it. Arrive returns the phase it arrived in; wait sleeps until
 * that phase is complete. The mutex orders memory: what a block wrote before arriving is
 * visible to every block of the team after its wait. */
typedef struct tl_c_bar {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int count, arrived;
    unsigned phase;
    char *smem[16]; /* a cluster's: each block's scratch (its shared memory), by rank */
} tl_c_bar;
static inline void tl_c_bar_complete(tl_c_bar *b) {
    b->arrived = 0, b->phase++;
    pthread_cond_broadcast(&b->cv);
}
static inline unsigned tl_c_bar_arrive(tl_c_bar *b) {
    pthread_mutex_lock(&b->mu);
    unsigned ph = b->phase;
    if (++b->arrived >= b->count) tl_c_bar_complete(b);
    pthread_mutex_unlock(&b->mu);
    return ph;
}
static inline void tl_c_bar_wait(tl_c_bar *b, unsigned ph) {
    pthread_mutex_lock(&b->mu);
    while (b->phase == ph) pthread_cond_wait(&b->cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
}
static inline void tl_c_bar_sync(tl_c_bar *b) { tl_c_bar_wait(b, tl_c_bar_arrive(b)); }
static inline void tl_c_bar_leave(tl_c_bar *b) {
    pthread_mutex_lock(&b->mu);
    if (--b->count <= b->arrived && b->arrived) tl_c_bar_complete(b);
    pthread_mutex_unlock(&b->mu);
}

/* The OpenMP team running T.ws regions at once (emit_c.c): its size and this thread's
 * place (1 and 0 without OpenMP, where such regions cannot run). */
static inline int tl_c_team_size(void) {
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}
static inline int tl_c_team_rank(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* Cluster mbarriers (T.alloc_cluster_barrier): a uint64_t in the block's scratch holds
 * the arrivals pending (bits 0-10), the count (11-21) and the phase's parity (bit 22),
 * changed under the cluster's mutex; a phase completes when the pending arrivals reach
 * zero (then the count is pending again and waiters wake), as the hardware's does. A
 * block's barrier is found in a peer at the same offset of the peer's scratch. */
static inline void tl_c_mbar_init(tl_c_bar *c, uint64_t *m, int count) {
    pthread_mutex_lock(&c->mu);
    *m = (uint64_t)count << 11 | (uint64_t)count;
    pthread_mutex_unlock(&c->mu);
}
static inline void tl_c_mbar_arrive(tl_c_bar *c, uint64_t *m, int arrivals) {
    pthread_mutex_lock(&c->mu);
    for (int i = 0; i < arrivals; i++) {
        uint64_t pending = (*m & 0x7ff) - 1, count = *m >> 11 & 0x7ff, phase = *m >> 22 & 1;
        if (!pending) pending = count, phase ^= 1, pthread_cond_broadcast(&c->cv);
        *m = phase << 22 | count << 11 | pending;
    }
    pthread_mutex_unlock(&c->mu);
}
static inline void tl_c_mbar_wait(tl_c_bar *c, const uint64_t *m, int parity) {
    pthread_mutex_lock(&c->mu);
    while ((int)(*m >> 22 & 1) == (parity & 1)) pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
}
/* m's twin in block `rank` of a cluster of n blocks (own: this block's scratch), or NULL
 * (with a message) when there is no such block. */
static inline uint64_t *tl_c_mbar_peer(tl_c_bar *c, char *own, uint64_t *m, int32_t rank, int n) {
    if (rank < 0 || rank >= n || rank >= 16 || !c->smem[rank]) {
        fprintf(stderr, "tilec: an arrival on block %d of a cluster of %d blocks\n", (int)rank, n);
        return NULL;
    }
    return (uint64_t *)(c->smem[rank] + ((char *)m - own));
}

/* One block of a team: fn(args, its block indices, the grid's barrier (NULL when the
 * team is a cluster), its cluster's, its scratch memory). */
typedef int (*tl_c_member_fn)(void *args, const int64_t *b, tl_c_bar *grid, tl_c_bar *cluster,
                              char *scratch);
typedef struct tl_c_member {
    tl_c_member_fn fn;
    void *args;
    int64_t b[3];
    tl_c_bar *grid, *cluster;
    size_t scratch;
    int rc;
    pthread_t thread;
} tl_c_member;
static void *tl_c_member_run(void *p) {
    tl_c_member *m = (tl_c_member *)p;
    char *s = m->scratch ? (char *)aligned_alloc(64, (m->scratch + 63) / 64 * 64) : NULL;
    m->rc = m->scratch && !s ? TL_C_NOMEM : m->fn(m->args, m->b, m->grid, m->cluster, s);
    if (m->rc == TL_C_NOMEM) fprintf(stderr, "tilec: out of memory for block scratch\n");
    free(s);
    if (m->grid) tl_c_bar_leave(m->grid);
    tl_c_bar_leave(m->cluster);
    return NULL;
}

/* Member i of a team (x fastest): its place r in the team, and its cluster's index there. */
static inline int64_t tl_c_team_place(const int64_t *team, const int64_t *cl, int64_t i,
                                      int64_t *r) {
    r[0] = i % team[0], r[1] = i / team[0] % team[1], r[2] = i / (team[0] * team[1]);
    int64_t c = 0;
    for (int d = 2; d >= 0; d--) c = c * (team[d] / cl[d]) + r[d] / cl[d];
    return c;
}

/* Runs the team of blocks at origin (extent team[d] along d, whole clusters of cl[d]):
 * one thread per block, a barrier per cluster, and one for the grid when with_grid. */
static inline int tl_c_run_team(tl_c_member_fn fn, void *args, const int64_t *origin,
                                const int64_t *team, const int64_t *cl, bool with_grid,
                                size_t scratch) {
    int64_t n = team[0] * team[1] * team[2], ncl = n / (cl[0] * cl[1] * cl[2]);
    tl_c_member *m = (tl_c_member *)calloc((size_t)n, sizeof *m);
    tl_c_bar *bars = (tl_c_bar *)calloc((size_t)ncl + 1, sizeof *bars);
    int rc = m && bars ? TL_C_OK : TL_C_NOMEM;
    for (int64_t i = 0; rc == TL_C_OK && i <= ncl; i++) {
        pthread_mutex_init(&bars[i].mu, NULL), pthread_cond_init(&bars[i].cv, NULL);
        bars[i].count = (int)(i == ncl ? n : cl[0] * cl[1] * cl[2]);
    }
    int64_t started = 0;
    for (; rc == TL_C_OK && started < n; started++) {
        tl_c_member *b = &m[started];
        int64_t r[3], c = tl_c_team_place(team, cl, started, r);
        b->fn = fn, b->args = args, b->scratch = scratch;
        for (int d = 0; d < 3; d++) b->b[d] = origin[d] + r[d];
        b->grid = with_grid ? &bars[ncl] : NULL, b->cluster = &bars[c];
        if (pthread_create(&b->thread, NULL, tl_c_member_run, b)) {
            fprintf(stderr,
                    "tilec: cannot start a thread for each of the %lld blocks that "
                    "run at once (T.sync_grid or a cluster)\n",
                    (long long)n);
            rc = TL_C_NOMEM;
            break;
        }
    }
    for (int64_t i = started; rc != TL_C_OK && bars && i < n; i++) { /* never started */
        int64_t r[3];
        if (with_grid) tl_c_bar_leave(&bars[ncl]);
        tl_c_bar_leave(&bars[tl_c_team_place(team, cl, i, r)]);
    }
    for (int64_t i = 0; i < started; i++) {
        pthread_join(m[i].thread, NULL);
        if (rc == TL_C_OK) rc = m[i].rc;
    }
    for (int64_t i = 0; bars && m && i <= ncl; i++)
        pthread_mutex_destroy(&bars[i].mu), pthread_cond_destroy(&bars[i].cv);
    free(m), free(bars);
    return rc;
}

/* Every team of the grid in turn: the whole grid when with_grid, else each cluster. */
static inline int tl_c_run_teams(tl_c_member_fn fn, void *args, const int64_t *grid,
                                 const int64_t *cl, bool with_grid, size_t scratch) {
    const int64_t *team = with_grid ? grid : cl;
    for (int64_t z = 0; z < grid[2]; z += team[2])
        for (int64_t y = 0; y < grid[1]; y += team[1])
            for (int64_t x = 0; x < grid[0]; x += team[0]) {
                const int64_t origin[3] = {x, y, z};
                int rc = tl_c_run_team(fn, args, origin, team, cl, with_grid, scratch);
                if (rc) return rc;
            }
    return TL_C_OK;
}
#endif /* TL_CUDA_FILE */

#endif
