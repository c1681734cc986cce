/* tl_cuda.h - device prelude of every CUDA file that tilec generates (the CUDA target).
 * It is pasted at the top of the generated source, which NVRTC compiles with no include
 * path at all: nothing here includes a header when __CUDACC_RTC__ is defined.
 *
 * Scalar semantics are those of the C target (runtime/c/tl_c.h, the reference):
 *   - float16/bfloat16 are stored as uint16_t bit patterns, fp8 as uint8_t, and handled
 *     in expressions as a float holding a representable value; every arithmetic result
 *     of a narrow dtype is rounded back (tl_round_*), round-to-nearest-even.
 *   - f16 and bf16 conversions are single PTX instructions (cvt.rn.f16.f32, cvt.f32.f16,
 *     cvt.rn.bf16.f32 (sm_80+); bf16 -> f32 is a shift). They give the same values as
 *     tl_c.h for every input; only the bit pattern of a NaN may differ (PTX returns the
 *     canonical NaN), which comparisons treat as equal.
 *   - fp8 conversions, double -> narrow rounding (through float rounded to odd), the
 *     integer helpers (division by zero gives 0, floordiv/floormod as in Python, masked
 *     shifts) and saturating float -> int conversions are the algorithms of tl_c.h,
 *     written once below in a "portable" section that the unit test
 *     (tests/unit/test_emit_cuda.c) also compiles for the host and compares with tl_c.h
 *     bit for bit.
 *   - Results of float32 arithmetic match the C target only if NVRTC runs with
 *     --fmad=false (no contraction into FMA) and without fast-math (IEEE division and
 *     square root, denormals kept): the target's runtime passes those options.
 *
 * Atomics: native atomicAdd for float/double/int32/uint32/int64/uint64 and atomicMax/Min
 * for int32/uint32; compare-and-swap loops for the rest (16-bit types with the 16-bit
 * atomicCAS, 8-bit types through their aligned 32-bit word).
 *
 * Host-test mode: with TL_CUDA_HOST_TEST defined, only the portable section is compiled,
 * as C11, and its functions are named tlcu_* (TL_P) so they can sit next to tl_c.h.
 * Simulation mode (TL_CUDA_SIM): the unit test compiles whole generated files as host
 * C++, with the CUDA built-ins and the f16/bf16 conversions defined by its harness. */
#ifndef TILEC_TL_CUDA_H
#define TILEC_TL_CUDA_H

#ifdef TL_CUDA_HOST_TEST
#define TL_DEV static inline
#define TL_P(name) tlcu_##name
#define TL_AS_U32(f) tl_f32_bits(f)
#define TL_AS_F32(u) tl_bits_f32(u)
#else
#define TL_DEV __device__ __forceinline__
#define TL_P(name) tl_##name
#define TL_AS_U32(f) __float_as_uint(f)
#define TL_AS_F32(u) __uint_as_float(u)
#ifdef __CUDACC_RTC__
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
#include <stdint.h> /* offline builds with nvcc only; NVRTC takes the branch above */
#endif
#define TL_INFF (__int_as_float(0x7f800000))
#define TL_NANF (__int_as_float(0x7fc00000))
#define TL_INF (__longlong_as_double(0x7ff0000000000000LL))
#define TL_NAN (__longlong_as_double(0x7ff8000000000000LL))
#endif

/* ==== portable section: C11 and CUDA C++ ============================================ */

/* ---- fp8 (OCP 8-bit floating point v1.0): e4m3fn 1.4.3 bias 7, e5m2 1.5.2 bias 15 ---- */
/* Round the 24-bit significand m right by s bits, to nearest, ties to even. */
TL_DEV uint32_t TL_P(rshift_rne)(uint32_t m, int s) {
    if (s >= 32) return 0;
    uint32_t q = m >> s, rem = m & ((1u << s) - 1), half = 1u << (s - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    return q;
}

/* Magnitude code of the finite float with bits ax (sign cleared), rounded to nearest-even
 * in a format with mbits mantissa bits and the given bias (subnormals included); the
 * caller saturates a code past the format's largest finite value. */
TL_DEV uint32_t TL_P(encode_small)(uint32_t ax, int mbits, int bias) {
    int e = (int)(ax >> 23) - 127, emin = 1 - bias;
    if (ax < 0x00800000u) return 0; /* float32 subnormals are far below any target's */
    if (e >= emin) {
        int sh = 23 - mbits;
        uint32_t r = ax - ((uint32_t)(127 - bias) << 23);
        r += (1u << (sh - 1)) - 1 + ((r >> sh) & 1);
        return r >> sh;
    }
    uint32_t m = (ax & 0x7fffffu) | 0x800000u;
    return TL_P(rshift_rne)(m, 23 - mbits + (emin - e));
}

TL_DEV float TL_P(e4m3_to_f32)(uint8_t v) {
    uint32_t sign = (uint32_t)(v & 0x80u) << 24;
    uint32_t exp = (v >> 3) & 0xfu, man = v & 7u;
    if (exp == 0xf && man == 7) return TL_AS_F32(sign | 0x7fc00000u); /* NaN */
    if (exp != 0) return TL_AS_F32(sign | ((exp + 120) << 23) | (man << 20));
    float sub = (float)man * 0x1p-9f;
    return sign ? -sub : sub;
}

/* Saturating, like cvt.rn.satfinite: beyond +-448 (infinity included) gives +-448. */
TL_DEV uint8_t TL_P(f32_to_e4m3)(float f) {
    uint32_t x = TL_AS_U32(f), ax = x & 0x7fffffffu;
    uint8_t sign = (uint8_t)((x >> 24) & 0x80u);
    if (ax > 0x7f800000u) return 0x7f;
    if (ax >= 0x43e00000u) return (uint8_t)(sign | 0x7eu);
    uint32_t code = TL_P(encode_small)(ax, 3, 7);
    return (uint8_t)(sign | (code > 0x7eu ? 0x7eu : code));
}

TL_DEV float TL_P(e5m2_to_f32)(uint8_t v) {
    uint32_t sign = (uint32_t)(v & 0x80u) << 24;
    uint32_t exp = (v >> 2) & 0x1fu, man = v & 3u;
    if (exp == 0x1f) return TL_AS_F32(sign | 0x7f800000u | (man << 21));
    if (exp != 0) return TL_AS_F32(sign | ((exp + 112) << 23) | (man << 21));
    float sub = (float)man * 0x1p-16f;
    return sign ? -sub : sub;
}

TL_DEV uint8_t TL_P(f32_to_e5m2)(float f) {
    uint32_t x = TL_AS_U32(f), ax = x & 0x7fffffffu;
    uint8_t sign = (uint8_t)((x >> 24) & 0x80u);
    if (ax > 0x7f800000u) return 0x7f;
    if (ax >= 0x47600000u) return (uint8_t)(sign | 0x7bu);
    uint32_t code = TL_P(encode_small)(ax, 2, 15);
    return (uint8_t)(sign | (code > 0x7bu ? 0x7bu : code));
}

/* double -> float rounded to odd (truncate, then set the last bit if inexact), so that a
 * following round-to-nearest-even into a narrow format rounds only once. */
TL_DEV float TL_P(f64_to_f32_odd)(double d) {
    float f = (float)d;
    if (isnan(d) || (double)f == d) return f;
    if (fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);
    return TL_AS_F32(TL_AS_U32(f) | 1u);
}

/* ---- integer helpers: S = i32, i64 (signed), u32, u64 (unsigned) --------------------- */
#define TL_CU_SIGNED(S, T, UT, BITS)                                                        \
    TL_DEV T TL_P(neg_##S)(T a) { return (T)(0u - (UT)a); }                                 \
    TL_DEV T TL_P(div_##S)(T a, T b) {                                                      \
        if (b == 0) return 0;                                                               \
        return b == -1 ? TL_P(neg_##S)(a) : a / b;                                          \
    }                                                                                       \
    TL_DEV T TL_P(floordiv_##S)(T a, T b) {                                                 \
        if (b == 0) return 0;                                                               \
        if (b == -1) return TL_P(neg_##S)(a);                                               \
        T q = a / b;                                                                        \
        return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;                            \
    }                                                                                       \
    TL_DEV T TL_P(floormod_##S)(T a, T b) {                                                 \
        if (b == 0 || b == -1) return 0;                                                    \
        T r = a % b;                                                                        \
        return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;                                \
    }                                                                                       \
    TL_DEV T TL_P(min_##S)(T a, T b) { return a < b ? a : b; }                              \
    TL_DEV T TL_P(max_##S)(T a, T b) { return a > b ? a : b; }                              \
    TL_DEV T TL_P(abs_##S)(T a) { return a < 0 ? TL_P(neg_##S)(a) : a; }                   \
    TL_DEV T TL_P(shl_##S)(T a, T b) { return (T)((UT)a << ((UT)b & (BITS - 1))); }         \
    TL_DEV T TL_P(shr_##S)(T a, T b) { return a >> ((UT)b & (BITS - 1)); }                  \
    TL_DEV T TL_P(pow_##S)(T a, T b) {                                                      \
        if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;                    \
        UT r = 1, x = (UT)a;                                                                \
        for (; b; b >>= 1, x *= x)                                                          \
            if (b & 1) r *= x;                                                              \
        return (T)r;                                                                        \
    }

#define TL_CU_UNSIGNED(S, T, BITS)                                                          \
    TL_DEV T TL_P(div_##S)(T a, T b) { return b == 0 ? 0 : a / b; }                         \
    TL_DEV T TL_P(floordiv_##S)(T a, T b) { return b == 0 ? 0 : a / b; }                    \
    TL_DEV T TL_P(floormod_##S)(T a, T b) { return b == 0 ? 0 : a % b; }                    \
    TL_DEV T TL_P(min_##S)(T a, T b) { return a < b ? a : b; }                              \
    TL_DEV T TL_P(max_##S)(T a, T b) { return a > b ? a : b; }                              \
    TL_DEV T TL_P(abs_##S)(T a) { return a; }                                               \
    TL_DEV T TL_P(shl_##S)(T a, T b) { return (T)(a << (b & (BITS - 1))); }                 \
    TL_DEV T TL_P(shr_##S)(T a, T b) { return (T)(a >> (b & (BITS - 1))); }                 \
    TL_DEV T TL_P(pow_##S)(T a, T b) {                                                      \
        T r = 1;                                                                            \
        for (; b; b >>= 1, a *= a)                                                          \
            if (b & 1) r *= a;                                                              \
        return r;                                                                           \
    }

TL_CU_SIGNED(i32, int32_t, uint32_t, 32)
TL_CU_SIGNED(i64, int64_t, uint64_t, 64)
TL_CU_UNSIGNED(u32, uint32_t, 32)
TL_CU_UNSIGNED(u64, uint64_t, 64)

/* float -> int: truncate toward zero, saturate, NaN -> 0 (as cvt.rzi.sat). */
#define TL_CU_F2I(S, T, LO, HI)                                                             \
    TL_DEV T TL_P(f2##S)(double x) {                                                        \
        if (x != x) return 0;                                                               \
        if (x <= (double)(LO)) return (LO);                                                 \
        if (x >= (double)(HI)) return (HI);                                                 \
        return (T)x;                                                                        \
    }
TL_CU_F2I(i8, int8_t, INT8_MIN, INT8_MAX)
TL_CU_F2I(i16, int16_t, INT16_MIN, INT16_MAX)
TL_CU_F2I(i32, int32_t, INT32_MIN, INT32_MAX)
TL_CU_F2I(i64, int64_t, INT64_MIN, INT64_MAX)
TL_CU_F2I(u8, uint8_t, 0, UINT8_MAX)
TL_CU_F2I(u16, uint16_t, 0, UINT16_MAX)
TL_CU_F2I(u32, uint32_t, 0, UINT32_MAX)
TL_CU_F2I(u64, uint64_t, 0, UINT64_MAX)

/* ==== device section ================================================================= */
#ifndef TL_CUDA_HOST_TEST

/* ---- float16 and bfloat16 (PTX) --------------------------------------------------------- */
#ifndef TL_CUDA_SIM /* the host simulation of the unit test brings its own */
TL_DEV float tl_f16_to_f32(uint16_t h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

TL_DEV uint16_t tl_f32_to_f16(float x) {
    uint16_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
    return h;
}

TL_DEV float tl_bf16_to_f32(uint16_t h) { return __uint_as_float((uint32_t)h << 16); }

TL_DEV uint16_t tl_f32_to_bf16(float x) {
    uint16_t h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
    return h;
}
#endif

/* ---- rounding a float (or double) to a narrow dtype's value ------------------------- */
TL_DEV float tl_round_f16(float x) { return tl_f16_to_f32(tl_f32_to_f16(x)); }
TL_DEV float tl_round_bf16(float x) { return tl_bf16_to_f32(tl_f32_to_bf16(x)); }
TL_DEV float tl_round_e4m3(float x) { return tl_e4m3_to_f32(tl_f32_to_e4m3(x)); }
TL_DEV float tl_round_e5m2(float x) { return tl_e5m2_to_f32(tl_f32_to_e5m2(x)); }
TL_DEV float tl_round64_f16(double x) { return tl_round_f16(tl_f64_to_f32_odd(x)); }
TL_DEV float tl_round64_bf16(double x) { return tl_round_bf16(tl_f64_to_f32_odd(x)); }
TL_DEV float tl_round64_e4m3(double x) { return tl_round_e4m3(tl_f64_to_f32_odd(x)); }
TL_DEV float tl_round64_e5m2(double x) { return tl_round_e5m2(tl_f64_to_f32_odd(x)); }

/* ---- float helpers (IEEE: 1/sqrt, not the approximate rsqrtf) ------------------------ */
TL_DEV float tl_floormod_f32(float a, float b) { return a - floorf(a / b) * b; }
TL_DEV double tl_floormod_f64(double a, double b) { return a - floor(a / b) * b; }
TL_DEV float tl_sigmoid_f32(float x) { return 1.0f / (1.0f + expf(-x)); }
TL_DEV double tl_sigmoid_f64(double x) { return 1.0 / (1.0 + exp(-x)); }
TL_DEV float tl_rsqrt_f32(float x) { return 1.0f / sqrtf(x); }
TL_DEV double tl_rsqrt_f64(double x) { return 1.0 / sqrt(x); }

/* ---- atomics: tl_atomic_<op>_<dtype>(storage pointer, value) -------------------------- */
TL_DEV void tl_atomic_add_f32(float *p, float v) { atomicAdd(p, v); }
TL_DEV void tl_atomic_add_f64(double *p, double v) { atomicAdd(p, v); }
TL_DEV void tl_atomic_add_i32(int32_t *p, int32_t v) { atomicAdd((int *)p, (int)v); }
TL_DEV void tl_atomic_add_u32(uint32_t *p, uint32_t v) { atomicAdd((unsigned *)p, v); }
TL_DEV void tl_atomic_add_i64(int64_t *p, int64_t v) {
    atomicAdd((unsigned long long *)p, (unsigned long long)v); /* two's complement */
}
TL_DEV void tl_atomic_add_u64(uint64_t *p, uint64_t v) {
    atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
TL_DEV void tl_atomic_max_i32(int32_t *p, int32_t v) { atomicMax((int *)p, (int)v); }
TL_DEV void tl_atomic_min_i32(int32_t *p, int32_t v) { atomicMin((int *)p, (int)v); }
TL_DEV void tl_atomic_max_u32(uint32_t *p, uint32_t v) { atomicMax((unsigned *)p, v); }
TL_DEV void tl_atomic_min_u32(uint32_t *p, uint32_t v) { atomicMin((unsigned *)p, v); }

/* *p = ENC(OP(DEC(*p), v)) with a CAS loop on a 32- or 64-bit word W. */
#define TL_CAS_WORD(NAME, ST, W, VT, DEC, ENC, OP)                                          \
    TL_DEV void NAME(ST *p, VT v) {                                                         \
        W *w = (W *)p;                                                                      \
        W old = *w, assumed;                                                                \
        do {                                                                                \
            assumed = old;                                                                  \
            ST cur;                                                                         \
            memcpy(&cur, &assumed, sizeof cur);                                             \
            ST nw = ENC(OP(DEC(cur), v));                                                   \
            W nww;                                                                          \
            memcpy(&nww, &nw, sizeof nww);                                                  \
            old = atomicCAS(w, assumed, nww);                                               \
        } while (old != assumed);                                                           \
    }

/* The same for a 16-bit element (16-bit atomicCAS, sm_70+). */
#define TL_CAS_16(NAME, ST, VT, DEC, ENC, OP)                                               \
    TL_DEV void NAME(ST *p, VT v) {                                                         \
        unsigned short *w = (unsigned short *)p;                                            \
        unsigned short old = *w, assumed;                                                   \
        do {                                                                                \
            assumed = old;                                                                  \
            ST nw = (ST)ENC(OP(DEC((ST)assumed), v));                                       \
            old = atomicCAS(w, assumed, (unsigned short)nw);                                \
        } while (old != assumed);                                                           \
    }

/* The same for an 8-bit element, through the aligned 32-bit word that holds it. */
#define TL_CAS_8(NAME, ST, VT, DEC, ENC, OP)                                                \
    TL_DEV void NAME(ST *p, VT v) {                                                         \
        uintptr_t a = (uintptr_t)p;                                                         \
        unsigned *w = (unsigned *)(a & ~(uintptr_t)3);                                      \
        unsigned sh = (unsigned)(a & 3) * 8, mask = 0xffu << sh;                            \
        unsigned old = *w, assumed;                                                         \
        do {                                                                                \
            assumed = old;                                                                  \
            ST cur = (ST)((assumed & mask) >> sh);                                          \
            unsigned nw = (unsigned)(uint8_t)ENC(OP(DEC(cur), v));                          \
            old = atomicCAS(w, assumed, (assumed & ~mask) | (nw << sh));                    \
        } while (old != assumed);                                                           \
    }

#define TL_ID(x) (x)
#define TL_ADD(a, b) ((a) + (b))
TL_CAS_WORD(tl_atomic_max_f32, float, unsigned, float, TL_ID, TL_ID, fmaxf)
TL_CAS_WORD(tl_atomic_min_f32, float, unsigned, float, TL_ID, TL_ID, fminf)
TL_CAS_WORD(tl_atomic_max_f64, double, unsigned long long, double, TL_ID, TL_ID, fmax)
TL_CAS_WORD(tl_atomic_min_f64, double, unsigned long long, double, TL_ID, TL_ID, fmin)
TL_CAS_WORD(tl_atomic_max_i64, int64_t, unsigned long long, int64_t, TL_ID, TL_ID, tl_max_i64)
TL_CAS_WORD(tl_atomic_min_i64, int64_t, unsigned long long, int64_t, TL_ID, TL_ID, tl_min_i64)
TL_CAS_WORD(tl_atomic_max_u64, uint64_t, unsigned long long, uint64_t, TL_ID, TL_ID, tl_max_u64)
TL_CAS_WORD(tl_atomic_min_u64, uint64_t, unsigned long long, uint64_t, TL_ID, TL_ID, tl_min_u64)
#define TL_CU_ATOMIC_16F(S)                                                                 \
    TL_CAS_16(tl_atomic_add_##S, uint16_t, float, tl_##S##_to_f32, tl_f32_to_##S, TL_ADD)   \
    TL_CAS_16(tl_atomic_max_##S, uint16_t, float, tl_##S##_to_f32, tl_f32_to_##S, fmaxf)    \
    TL_CAS_16(tl_atomic_min_##S, uint16_t, float, tl_##S##_to_f32, tl_f32_to_##S, fminf)
TL_CU_ATOMIC_16F(f16)
TL_CU_ATOMIC_16F(bf16)
#define TL_CU_ATOMIC_8F(S)                                                                  \
    TL_CAS_8(tl_atomic_add_##S, uint8_t, float, tl_##S##_to_f32, tl_f32_to_##S, TL_ADD)     \
    TL_CAS_8(tl_atomic_max_##S, uint8_t, float, tl_##S##_to_f32, tl_f32_to_##S, fmaxf)      \
    TL_CAS_8(tl_atomic_min_##S, uint8_t, float, tl_##S##_to_f32, tl_f32_to_##S, fminf)
TL_CU_ATOMIC_8F(e4m3)
TL_CU_ATOMIC_8F(e5m2)
#define TL_CU_ATOMIC_SMALL_INT(CAS, S, T, CS)                                               \
    CAS(tl_atomic_add_##S, T, T, TL_ID, (T), TL_ADD)                                        \
    CAS(tl_atomic_max_##S, T, T, TL_ID, (T), tl_max_##CS)                                   \
    CAS(tl_atomic_min_##S, T, T, TL_ID, (T), tl_min_##CS)
TL_CU_ATOMIC_SMALL_INT(TL_CAS_8, i8, int8_t, i32)
TL_CU_ATOMIC_SMALL_INT(TL_CAS_8, u8, uint8_t, u32)
TL_CU_ATOMIC_SMALL_INT(TL_CAS_16, i16, int16_t, i32)
TL_CU_ATOMIC_SMALL_INT(TL_CAS_16, u16, uint16_t, u32)

/* ---- block-level helpers --------------------------------------------------------------- */
/* Zeroes the first `bytes` (a multiple of 16) of the dynamic shared memory, cooperatively;
 * the caller synchronizes afterwards. The C target starts every block with zeroed
 * buffers, and so does this one. */
TL_DEV void tl_smem_zero(unsigned char *smem, int bytes, int tid, int nthreads) {
    uint4 *p = (uint4 *)smem;
    for (int i = tid; i < bytes / 16; i += nthreads) p[i] = make_uint4(0u, 0u, 0u, 0u);
}

/* T.use_swizzle(panel): block rasterization in row panels (as TileLang's
 * rasterization2DRow). A bijection of the 2-D grid onto itself: consecutive blocks walk
 * down a panel of `panel` rows, column by column, alternating direction per panel. */
TL_DEV void tl_swizzle_2d(int panel, int *bx, int *by) {
    unsigned gx = gridDim.x, gy = gridDim.y;
    if (panel <= 0 || gx == 0 || gy == 0) return;
    unsigned bid = blockIdx.x + blockIdx.y * gx, size = gx * gy;
    unsigned psize = (unsigned)panel * gx, poff = bid % psize, pidx = bid / psize;
    unsigned npanels = (size + psize - 1) / psize;
    unsigned stride = pidx + 1 < npanels ? (unsigned)panel : (size - pidx * psize) / gx;
    unsigned col = (pidx & 1) ? gx - 1 - poff / stride : poff / stride;
    *bx = (int)col;
    *by = (int)(poff % stride + pidx * (unsigned)panel);
}

#endif /* TL_CUDA_HOST_TEST */
#endif
