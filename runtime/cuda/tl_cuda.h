/* tl_cuda.h - the device part of the prelude of every CUDA file that tilec generates
 * (the CUDA target). The generated source is runtime/c/tl_c.h (the scalar semantics,
 * shared with the C target: narrow-float conversions and rounding, integer helpers,
 * saturating float -> int, float helpers), then this file, then the kernels. NVRTC
 * compiles it with no include path at all: nothing here includes a header.
 *
 * Here:
 *   - f16 and bf16 conversions as single PTX instructions (cvt.rn.f16.f32, cvt.f32.f16,
 *     cvt.rn.bf16.f32 (sm_80+); bf16 -> f32 is a shift), in place of tl_c.h's software
 *     ones (TL_F16_PTX). They give the same values for every input; only the bit pattern
 *     of a NaN may differ (PTX returns the canonical NaN), which comparisons treat as
 *     equal. The unit test's host simulation (TL_CUDA_SIM) uses tl_c.h's instead.
 *   - Results of float32 arithmetic match the C target only if NVRTC runs with
 *     --fmad=false (no contraction into FMA) and without fast-math (IEEE division and
 *     square root, denormals kept): the target's runtime passes those options.
 *   - Math intrinsics under tl_c.h's names: __popc, __clz, __ffs; the fast approximations
 *     (__expf, __sinf, ..., rcp.approx.ftz); the IEEE operations of a rounding mode
 *     (__fadd_rz, __dsqrt_ru, __frsqrt_rn, ...).
 *   - Atomics: native atomicAdd for float/double/int32/uint32/int64/uint64,
 *     atomicMax/Min for int32/uint32, atomicOr for 32- and 64-bit ints; compare-and-swap
 *     loops for the rest (16-bit types with the 16-bit atomicCAS, 8-bit types through
 *     their aligned 32-bit word); each returns the previous value. Atomic loads are
 *     volatile accesses; memory orders are fences (tl_fence) around the atomic.
 *   - T.__ldg (tl_ldg) and the raw 32-bit words of T.ldg32 .. T.sts128.
 *   - Block-level helpers: shared memory zeroing, T.use_swizzle, T.device_assert.
 *   - uint, ushort, uchar, ulong for T.import_source code.
 *   - Tensor cores (sm_80+): the shared-memory swizzle, cp.async copies, and T.gemm on
 *     one block tile with ldmatrix + mma.sync (A and B in shared memory, or A in registers;
 *     float32 operands on TF32 mma.sync, rounded with cvt.rna.tf32.f32 as tl_c.h does).
 * Simulation mode (TL_CUDA_SIM): tests/unit/test_emit_cuda.c compiles whole generated
 * files as host C++, with the CUDA built-ins defined by its harness. */
#ifndef TILEC_TL_CUDA_H
#define TILEC_TL_CUDA_H

#ifndef TILEC_TL_C_H
#error "runtime/c/tl_c.h comes first in a generated CUDA file"
#endif

#define TL_DEV __device__ __forceinline__

/* ---- names that T.import_source code assumes ------------------------------------------- */
/* CUDA code written for TileLang's T.import_source (its dequantization examples'
 * `uint *h = reinterpret_cast<uint *>(out)`) uses the short unsigned type names that
 * nvcc's host headers and TileLang's prelude declare; NVRTC, with no headers, has none.
 * The same types as glibc's (a repeated typedef of the same type is allowed in C++). */
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
typedef unsigned long ulong;

/* ---- float16 and bfloat16 (PTX) --------------------------------------------------------- */
#ifdef TL_F16_PTX
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

TL_ROUNDING(TL_DEV, f16)
TL_ROUNDING(TL_DEV, bf16)
#endif

/* ---- math intrinsics (tl_c.h's names, TL_DEVICE_MATH) -------------------------------- */
#ifdef TL_DEVICE_MATH
TL_DEV int32_t tl_popc32(uint32_t x) { return __popc(x); }
TL_DEV int32_t tl_popc64(uint64_t x) { return __popcll(x); }
TL_DEV int32_t tl_clz32(uint32_t x) { return __clz((int)x); }
TL_DEV int32_t tl_clz64(uint64_t x) { return __clzll((long long)x); }
TL_DEV int32_t tl_ffs32(uint32_t x) { return __ffs((int)x); }
TL_DEV int32_t tl_ffs64(uint64_t x) { return __ffsll((long long)x); }
TL_DEV uint32_t tl_fns(uint32_t mask, uint32_t base, int32_t offset) {
    return __fns(mask, base, offset);
}

TL_DEV float tl_fast_cos_f32(float x) { return __cosf(x); }
TL_DEV float tl_fast_exp_f32(float x) { return __expf(x); }
TL_DEV float tl_fast_exp10_f32(float x) { return __exp10f(x); }
TL_DEV float tl_fast_log_f32(float x) { return __logf(x); }
TL_DEV float tl_fast_log2_f32(float x) { return __log2f(x); }
TL_DEV float tl_fast_log10_f32(float x) { return __log10f(x); }
TL_DEV float tl_fast_sin_f32(float x) { return __sinf(x); }
TL_DEV float tl_fast_tan_f32(float x) { return __tanf(x); }
TL_DEV float tl_fast_rcp_f32(float x) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

/* tl_<op>_<M>_<f32|f64>: CUDA's IEEE intrinsics of rounding M */
#define TL_IEEE_DEV(M)                                                                             \
    TL_DEV float tl_add_##M##_f32(float x, float y) { return __fadd_##M(x, y); }                   \
    TL_DEV float tl_sub_##M##_f32(float x, float y) { return __fsub_##M(x, y); }                   \
    TL_DEV float tl_mul_##M##_f32(float x, float y) { return __fmul_##M(x, y); }                   \
    TL_DEV float tl_div_##M##_f32(float x, float y) { return __fdiv_##M(x, y); }                   \
    TL_DEV float tl_fma_##M##_f32(float x, float y, float z) { return __fmaf_##M(x, y, z); }       \
    TL_DEV float tl_rcp_##M##_f32(float x) { return __frcp_##M(x); }                               \
    TL_DEV float tl_sqrt_##M##_f32(float x) { return __fsqrt_##M(x); }                             \
    TL_DEV double tl_add_##M##_f64(double x, double y) { return __dadd_##M(x, y); }                \
    TL_DEV double tl_sub_##M##_f64(double x, double y) { return __dsub_##M(x, y); }                \
    TL_DEV double tl_mul_##M##_f64(double x, double y) { return __dmul_##M(x, y); }                \
    TL_DEV double tl_div_##M##_f64(double x, double y) { return __ddiv_##M(x, y); }                \
    TL_DEV double tl_fma_##M##_f64(double x, double y, double z) { return __fma_##M(x, y, z); }    \
    TL_DEV double tl_rcp_##M##_f64(double x) { return __drcp_##M(x); }                             \
    TL_DEV double tl_sqrt_##M##_f64(double x) { return __dsqrt_##M(x); }
TL_IEEE_DEV(rn)
TL_IEEE_DEV(rz)
TL_IEEE_DEV(ru)
TL_IEEE_DEV(rd)
TL_DEV float tl_rsqrt_rn_f32(float x) { return __frsqrt_rn(x); }
#endif

/* ---- atomics: tl_atomic_<op>_<dtype>(storage pointer, value) -> the previous value -------- */
TL_DEV float tl_atomic_add_f32(float *p, float v) { return atomicAdd(p, v); }
TL_DEV double tl_atomic_add_f64(double *p, double v) { return atomicAdd(p, v); }
TL_DEV int32_t tl_atomic_add_i32(int32_t *p, int32_t v) { return atomicAdd((int *)p, (int)v); }
TL_DEV uint32_t tl_atomic_add_u32(uint32_t *p, uint32_t v) { return atomicAdd((unsigned *)p, v); }
TL_DEV int64_t tl_atomic_add_i64(int64_t *p, int64_t v) { /* two's complement */
    return (int64_t)atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
TL_DEV uint64_t tl_atomic_add_u64(uint64_t *p, uint64_t v) {
    return atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
TL_DEV int32_t tl_atomic_max_i32(int32_t *p, int32_t v) { return atomicMax((int *)p, (int)v); }
TL_DEV int32_t tl_atomic_min_i32(int32_t *p, int32_t v) { return atomicMin((int *)p, (int)v); }
TL_DEV uint32_t tl_atomic_max_u32(uint32_t *p, uint32_t v) { return atomicMax((unsigned *)p, v); }
TL_DEV uint32_t tl_atomic_min_u32(uint32_t *p, uint32_t v) { return atomicMin((unsigned *)p, v); }
TL_DEV int32_t tl_atomic_or_i32(int32_t *p, int32_t v) { return atomicOr((int *)p, (int)v); }
TL_DEV uint32_t tl_atomic_or_u32(uint32_t *p, uint32_t v) { return atomicOr((unsigned *)p, v); }
TL_DEV int64_t tl_atomic_or_i64(int64_t *p, int64_t v) {
    return (int64_t)atomicOr((unsigned long long *)p, (unsigned long long)v);
}
TL_DEV uint64_t tl_atomic_or_u64(uint64_t *p, uint64_t v) {
    return atomicOr((unsigned long long *)p, (unsigned long long)v);
}

/* *p = ENC(OP(DEC(*p), v)) with a CAS loop on a 32- or 64-bit word W; returns DEC(old). */
#define TL_CAS_WORD(NAME, ST, W, VT, DEC, ENC, OP)                                                 \
    TL_DEV VT NAME(ST *p, VT v) {                                                                  \
        W *w = (W *)p;                                                                             \
        W old = *w, assumed;                                                                       \
        ST cur;                                                                                    \
        do {                                                                                       \
            assumed = old;                                                                         \
            memcpy(&cur, &assumed, sizeof cur);                                                    \
            ST nw = ENC(OP(DEC(cur), v));                                                          \
            W nww;                                                                                 \
            memcpy(&nww, &nw, sizeof nww);                                                         \
            old = atomicCAS(w, assumed, nww);                                                      \
        } while (old != assumed);                                                                  \
        return DEC(cur);                                                                           \
    }

/* The same for a 16-bit element (16-bit atomicCAS, sm_70+). */
#define TL_CAS_16(NAME, ST, VT, DEC, ENC, OP)                                                      \
    TL_DEV VT NAME(ST *p, VT v) {                                                                  \
        unsigned short *w = (unsigned short *)p;                                                   \
        unsigned short old = *w, assumed;                                                          \
        do {                                                                                       \
            assumed = old;                                                                         \
            ST nw = (ST)ENC(OP(DEC((ST)assumed), v));                                              \
            old = atomicCAS(w, assumed, (unsigned short)nw);                                       \
        } while (old != assumed);                                                                  \
        return DEC((ST)assumed);                                                                   \
    }

/* The same for an 8-bit element, through the aligned 32-bit word that holds it. */
#define TL_CAS_8(NAME, ST, VT, DEC, ENC, OP)                                                       \
    TL_DEV VT NAME(ST *p, VT v) {                                                                  \
        uintptr_t a = (uintptr_t)p;                                                                \
        unsigned *w = (unsigned *)(a & ~(uintptr_t)3);                                             \
        unsigned sh = (unsigned)(a & 3) * 8, mask = 0xffu << sh;                                   \
        unsigned old = *w, assumed;                                                                \
        ST cur;                                                                                    \
        do {                                                                                       \
            assumed = old;                                                                         \
            cur = (ST)((assumed & mask) >> sh);                                                    \
            unsigned nw = (unsigned)(uint8_t)ENC(OP(DEC(cur), v));                                 \
            old = atomicCAS(w, assumed, (assumed & ~mask) | (nw << sh));                           \
        } while (old != assumed);                                                                  \
        return DEC(cur);                                                                           \
    }

TL_CAS_WORD(tl_atomic_max_f32, float, unsigned, float, TL_ID, TL_ID, fmaxf)
TL_CAS_WORD(tl_atomic_min_f32, float, unsigned, float, TL_ID, TL_ID, fminf)
TL_CAS_WORD(tl_atomic_max_f64, double, unsigned long long, double, TL_ID, TL_ID, fmax)
TL_CAS_WORD(tl_atomic_min_f64, double, unsigned long long, double, TL_ID, TL_ID, fmin)
TL_CAS_WORD(tl_atomic_max_i64, int64_t, unsigned long long, int64_t, TL_ID, TL_ID, tl_max_i64)
TL_CAS_WORD(tl_atomic_min_i64, int64_t, unsigned long long, int64_t, TL_ID, TL_ID, tl_min_i64)
TL_CAS_WORD(tl_atomic_max_u64, uint64_t, unsigned long long, uint64_t, TL_ID, TL_ID, tl_max_u64)
TL_CAS_WORD(tl_atomic_min_u64, uint64_t, unsigned long long, uint64_t, TL_ID, TL_ID, tl_min_u64)
TL_CAS_WORD(tl_atomic_store_f32, float, unsigned, float, TL_ID, TL_ID, TL_SECOND)
TL_CAS_WORD(tl_atomic_store_f64, double, unsigned long long, double, TL_ID, TL_ID, TL_SECOND)
TL_CAS_WORD(tl_atomic_store_i32, int32_t, unsigned, int32_t, TL_ID, TL_ID, TL_SECOND)
TL_CAS_WORD(tl_atomic_store_u32, uint32_t, unsigned, uint32_t, TL_ID, TL_ID, TL_SECOND)
TL_CAS_WORD(tl_atomic_store_i64, int64_t, unsigned long long, int64_t, TL_ID, TL_ID, TL_SECOND)
TL_CAS_WORD(tl_atomic_store_u64, uint64_t, unsigned long long, uint64_t, TL_ID, TL_ID, TL_SECOND)
#define TL_CU_ATOMIC_16F(S)                                                                        \
    TL_CAS_16(tl_atomic_add_##S, uint16_t, float, tl_##S##_to_f32, tl_f32_to_##S, TL_ADD)          \
    TL_CAS_16(tl_atomic_max_##S, uint16_t, float, tl_##S##_to_f32, tl_f32_to_##S, fmaxf)           \
    TL_CAS_16(tl_atomic_min_##S, uint16_t, float, tl_##S##_to_f32, tl_f32_to_##S, fminf)           \
    TL_CAS_16(tl_atomic_store_##S, uint16_t, float, tl_##S##_to_f32, tl_f32_to_##S, TL_SECOND)
TL_CU_ATOMIC_16F(f16)
TL_CU_ATOMIC_16F(bf16)
#define TL_CU_ATOMIC_8F(S)                                                                         \
    TL_CAS_8(tl_atomic_add_##S, uint8_t, float, tl_##S##_to_f32, tl_f32_to_##S, TL_ADD)            \
    TL_CAS_8(tl_atomic_max_##S, uint8_t, float, tl_##S##_to_f32, tl_f32_to_##S, fmaxf)             \
    TL_CAS_8(tl_atomic_min_##S, uint8_t, float, tl_##S##_to_f32, tl_f32_to_##S, fminf)             \
    TL_CAS_8(tl_atomic_store_##S, uint8_t, float, tl_##S##_to_f32, tl_f32_to_##S, TL_SECOND)
TL_CU_ATOMIC_8F(e4m3)
TL_CU_ATOMIC_8F(e5m2)
#define TL_CU_ATOMIC_SMALL_INT(CAS, S, T, CS)                                                      \
    CAS(tl_atomic_add_##S, T, T, TL_ID, (T), TL_ADD)                                               \
    CAS(tl_atomic_max_##S, T, T, TL_ID, (T), tl_max_##CS)                                          \
    CAS(tl_atomic_min_##S, T, T, TL_ID, (T), tl_min_##CS)                                          \
    CAS(tl_atomic_or_##S, T, T, TL_ID, (T), TL_OR)                                                 \
    CAS(tl_atomic_store_##S, T, T, TL_ID, (T), TL_SECOND)
TL_CU_ATOMIC_SMALL_INT(TL_CAS_8, i8, int8_t, i32)
TL_CU_ATOMIC_SMALL_INT(TL_CAS_8, u8, uint8_t, u32)
TL_CU_ATOMIC_SMALL_INT(TL_CAS_16, i16, int16_t, i32)
TL_CU_ATOMIC_SMALL_INT(TL_CAS_16, u16, uint16_t, u32)

/* A fence of the device's memory: what acquire, release and seq_cst ask of the accesses
 * around an atomic (the C target's tl_fence). */
TL_DEV void tl_fence() {
#ifndef TL_CUDA_SIM
    __threadfence();
#endif
}

/* tl_atomic_load_<dtype>(storage pointer, memory order id): the element's storage, read as
 * one access the compiler may not cache or move (an aligned access of 8 to 64 bits is
 * single-copy atomic), with tl_c.h's fences. */
#define TL_CU_ATOMIC_LOAD(S, ST)                                                                   \
    TL_DEV ST tl_atomic_load_##S(const ST *p, int order) {                                         \
        if (order == 5) tl_fence();                                                                \
        ST v = *(const volatile ST *)p;                                                            \
        if (order == 1 || order == 2 || order == 5) tl_fence();                                    \
        return v;                                                                                  \
    }
TL_CU_ATOMIC_LOAD(i8, int8_t)
TL_CU_ATOMIC_LOAD(i16, int16_t)
TL_CU_ATOMIC_LOAD(i32, int32_t)
TL_CU_ATOMIC_LOAD(i64, int64_t)
TL_CU_ATOMIC_LOAD(u8, uint8_t)
TL_CU_ATOMIC_LOAD(u16, uint16_t)
TL_CU_ATOMIC_LOAD(u32, uint32_t)
TL_CU_ATOMIC_LOAD(u64, uint64_t)
TL_CU_ATOMIC_LOAD(f16, uint16_t)
TL_CU_ATOMIC_LOAD(bf16, uint16_t)
TL_CU_ATOMIC_LOAD(e4m3, uint8_t)
TL_CU_ATOMIC_LOAD(e5m2, uint8_t)
TL_CU_ATOMIC_LOAD(f32, float)
TL_CU_ATOMIC_LOAD(f64, double)

/* ---- explicit memory access (T.__ldg, T.ldg32 .. T.sts128) ------------------------------
 * tl_ldg: a load through the read-only data cache. tl_ld_bits32 / tl_st_bits32: the 32 bits
 * at p as one 4-byte access when p is 4-byte aligned, else byte by byte (the C target's
 * result at any address; a GPU's vector access would fault there). */
#ifdef TL_CUDA_SIM
template <class T> TL_DEV T tl_ldg(const T *p) { return *p; }
#else
template <class T> TL_DEV T tl_ldg(const T *p) { return __ldg(p); }
#endif
TL_DEV uint32_t tl_ld_bits32(const void *p) {
    if (((uintptr_t)p & 3) == 0) return *(const uint32_t *)p;
    const uint8_t *b = (const uint8_t *)p;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
TL_DEV void tl_st_bits32(void *p, uint32_t v) {
    if (((uintptr_t)p & 3) == 0) {
        *(uint32_t *)p = v;
        return;
    }
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)v, b[1] = (uint8_t)(v >> 8), b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

/* ---- block-level helpers --------------------------------------------------------------- */
/* Zeroes the first `bytes` (a multiple of 16) of the dynamic shared memory, cooperatively;
 * the caller synchronizes afterwards. The C target starts every block with zeroed
 * buffers, and so does this one. */
TL_DEV void tl_smem_zero(unsigned char *smem, int bytes, int tid, int nthreads) {
    uint4 *p = (uint4 *)smem;
    for (int i = tid; i < bytes / 16; i += nthreads) p[i] = make_uint4(0u, 0u, 0u, 0u);
}

/* T.use_swizzle(panel): block rasterization in row panels (as TileLang's
 * rasterization2DRow). A bijection of the gx x gy grid onto itself: block bid (= x + y *
 * gx) walks down a panel of `panel` rows, column by column, alternating direction per
 * panel. */
TL_DEV void tl_raster(int panel, unsigned gx, unsigned gy, unsigned bid, int *bx, int *by) {
    if (panel <= 0 || gx == 0 || gy == 0) return;
    unsigned size = gx * gy;
    unsigned psize = (unsigned)panel * gx, poff = bid % psize, pidx = bid / psize;
    unsigned npanels = (size + psize - 1) / psize;
    unsigned stride = pidx + 1 < npanels ? (unsigned)panel : (size - pidx * psize) / gx;
    unsigned col = (pidx & 1) ? gx - 1 - poff / stride : poff / stride;
    *bx = (int)col;
    *by = (int)(poff % stride + pidx * (unsigned)panel);
}

/* T.use_swizzle(panel, order="column") (TileLang's rasterization2DColumn): the same walk
 * with x and y exchanged, down a panel of `panel` columns, row by row. */
TL_DEV void tl_raster_any(int panel, bool column, unsigned gx, unsigned gy, unsigned bid, int *bx,
                          int *by) {
    if (column) tl_raster(panel, gy, gx, bid, by, bx);
    else tl_raster(panel, gx, gy, bid, bx, by);
}

/* This block's (bx, by) under T.use_swizzle(panel, order). */
TL_DEV void tl_swizzle_2d(int panel, int *bx, int *by, bool column = false) {
    tl_raster_any(panel, column, gridDim.x, gridDim.y, blockIdx.x + blockIdx.y * gridDim.x, bx, by);
}

/* A persistent kernel's tile t of a gx x gy x gz grid (x fastest) as block indices b[3],
 * the x-y plane in T.use_swizzle(panel, order) order when panel > 0. */
TL_DEV void tl_tile_index(int t, int gx, int gy, int panel, int b[3], bool column = false) {
    const int plane = gx * gy, i = t % plane;
    b[0] = i % gx, b[1] = i / gx, b[2] = t / plane;
    tl_raster_any(panel, column, (unsigned)gx, (unsigned)gy, (unsigned)i, &b[0], &b[1]);
}

/* ---- split-K on a persistent grid --------------------------------------------------------
 * Of a grid of g blocks walking `tiles` tiles of `iters` loop iterations each: with at
 * least as many tiles as blocks, block b takes the tiles b, b + g, ... whole. With fewer
 * and split (there is a workspace), every tile is cut into p = g / tiles parts at the same
 * iterations (parts of at least TL_SK_MIN_PART), so that the blocks running at once read
 * the same k-slices, which L2 then serves once: block b < tiles * p runs part b % p of
 * tile b / p, iterations [lo, hi), and the other blocks idle. (Stream-K's uneven ranges
 * over the last waves, tried on 2026-12-04, lost 2-13% on the H200: blocks at different
 * k-offsets share nothing in L2.) The block that runs part 0 finishes the tile, adding
 * the partial results of the blocks after it that run the others (one slot each). */
enum { TL_SK_MIN_PART = 4 };

typedef struct TlSkPart {
    int tile, lo, hi, parts;
} TlSkPart;

/* How many parts each tile is cut into (1: the blocks walk whole tiles). */
TL_HOSTDEV inline int tl_sk_parts(int tiles, int iters, int g, bool split) {
    int parts = split && tiles < g ? g / tiles : 1;
    if (parts > iters / TL_SK_MIN_PART) parts = iters / TL_SK_MIN_PART;
    return parts > 1 ? parts : 1;
}

/* Block b's part (of `parts` > 1 per tile); false when it idles. */
TL_HOSTDEV inline bool tl_sk_part_of(int b, int tiles, int iters, int parts, TlSkPart *p) {
    if (b >= tiles * parts) return false;
    const int i = b % parts;
    p->tile = b / parts, p->parts = parts;
    p->lo = (int)((long long)iters * i / parts);
    p->hi = (int)((long long)iters * (i + 1) / parts);
    return true;
}

/* Whether block q runs a part of p's tile (q after the block that finishes it). */
TL_HOSTDEV inline bool tl_sk_holds(const TlSkPart *p, int q) {
    return q < (p->tile + 1) * p->parts;
}

/* The workspace of a split-K launch (cuda.h; CUDA_SK_MAX_BLOCKS there is this one): a flag
 * per block, TL_SK_MAX_BLOCKS of them whatever the grid (the stream's launches share the
 * workspace, and the flags' bytes must be flags in every one), then per block its partial
 * result of `bytes` (a multiple of 16). */
enum { TL_SK_MAX_BLOCKS = 4096 };
TL_HOSTDEV inline unsigned *tl_sk_flag(unsigned char *ws, int p) { return (unsigned *)ws + p; }
TL_HOSTDEV inline float *tl_sk_part(unsigned char *ws, int p, long long bytes) {
    return (float *)(ws + 4 * TL_SK_MAX_BLOCKS + bytes * p);
}

/* T.device_assert's message: the C target's text, on the device's stdout. */
TL_DEV void tl_assert_fail(const char *where, const char *msg, long long bx, long long by,
                           long long bz) {
    printf("%s: device assert failed: %s (block (%lld, %lld, %lld))\n", where, msg, bx, by, bz);
}

/* ---- tensor cores: swizzled shared tiles, cp.async, mma.sync GEMM ----------------------- */
/* T.gemm on sm_80+: A and B tiles in shared memory (or A in registers), read with ldmatrix
 * and multiplied with mma.sync.m16n8k16 (f16 or bf16 in, f32 accumulate); int8 on
 * m16n8k32, float32 on m16n8k8 TF32 (tl_gemm_ss_s8, tl_gemm_ss_tf32, tl_gemm_rs_tf32). Element types
 * are the storage ones: f16 and bf16 as uint16_t. Under TL_CUDA_SIM (host simulation) the
 * same functions are plain C++ with the same contracts: the copies are immediate, the
 * GEMMs scalar loops over each thread's accumulator elements. */

/* log2 of a power of two, at compile time. */
TL_HOSTDEV constexpr int tl_ilog2(int n) { return n > 1 ? 1 + tl_ilog2(n >> 1) : 0; }

/* Physical element offset of logical element offset o (elements of ES bytes) in a
 * shared buffer with rows of ROW_BYTES (a power of two): with byte offset a = o * ES, the
 * 16-byte chunk index (bits 4..6) is XORed with the row bits above bit S = max(log2(
 * ROW_BYTES), 7), masked to the chunks of one row: a ^ (((a >> S) & m) << 4), m = 7 for
 * rows of 128 bytes or more, 3 for 64, 1 for 32, 0 for 16. For 128-, 64- and 32-byte rows
 * this is the hardware's 128B / 64B / 32B swizzle (TMA, wgmma descriptors) when the
 * buffer is 1024-byte aligned; ldmatrix reads of 8 rows at one column hit distinct banks.
 * A bijection that keeps each 16-byte chunk whole. */
template <int ROW_BYTES, int ES> TL_DEV int tl_swizzle(int o) {
    static_assert(ROW_BYTES >= 16 && (ROW_BYTES & (ROW_BYTES - 1)) == 0,
                  "tl_swizzle: rows are a power of two of at least 16 bytes");
    static_assert(ES > 0 && 16 % ES == 0, "tl_swizzle: elements do not straddle 16 bytes");
    constexpr int S = tl_ilog2(ROW_BYTES) > 7 ? tl_ilog2(ROW_BYTES) : 7;
    constexpr int M = ROW_BYTES >= 128 ? 7 : ROW_BYTES / 16 - 1;
    int a = o * ES;
    return (a ^ (((a >> S) & M) << 4)) / ES;
}

/* The tile contract that tl_gemm_ss and tl_gemm_rs share. */
template <int M, int N, int K, int WARP_M, int WARP_N, int KSTEP = 16> TL_DEV void tl_gemm_check() {
    static_assert(M % (16 * WARP_M) == 0, "tl_gemm: M is a multiple of 16 * WARP_M");
    static_assert(N % (8 * WARP_N) == 0, "tl_gemm: N is a multiple of 8 * WARP_N");
    static_assert(K % KSTEP == 0, "tl_gemm: K is a multiple of the mma's k (16; int8 32, tf32 8)");
}

/* Element offset of logical element offset o in a stack of R x C tiles of ES-byte
 * elements stored as column panels of [R][P], P = 128 / ES (128-byte rows), each
 * 128B-swizzled: the layout of wgmma operands whose rows exceed 128 bytes, MN-major or
 * K-major (../shared/HOPPER-NOTES.md section 1.2), and of TMA boxes; C a multiple of P. */
template <int R, int C, int ES = 2> TL_DEV int tl_panel_swizzle(int o) {
    constexpr int P = 128 / ES;
    static_assert(C % P == 0, "tl_panel_swizzle: rows are whole 128-byte panels");
    const int tile = o / (R * C), rem = o % (R * C), r = rem / C, c = rem % C;
    return tl_swizzle<128, ES>(tile * R * C + (c / P) * R * P + r * P + c % P);
}

/* How a shared gemm operand tile is stored (tl_tile_off's SWZ): TL_SMEM_ROWS plain rows,
 * TL_SMEM_SWIZZLED rows swizzled by tl_swizzle<row bytes>, TL_SMEM_PANELS 128-byte column
 * panels (tl_panel_swizzle, the layout of wgmma operands: mma.sync gemms read tiles that
 * wgmma gemms read too). */
enum { TL_SMEM_ROWS = 0, TL_SMEM_SWIZZLED = 1, TL_SMEM_PANELS = 2 };

/* Element offset of logical element (i, j) of an I x J shared tile of ES-byte elements
 * stored [I][J] ([J][I] when TRANS), laid out as SWZ says (TL_SMEM_*). */
template <int I, int J, bool TRANS, int SWZ, int ES = 2> TL_DEV int tl_tile_off(int i, int j) {
    const int o = TRANS ? j * I + i : i * J + j;
    if constexpr (SWZ == TL_SMEM_PANELS)
        return tl_panel_swizzle < TRANS ? J : I, TRANS ? I : J, ES > (o);
    else if constexpr (SWZ == TL_SMEM_SWIZZLED) return tl_swizzle<(TRANS ? I : J) * ES, ES>(o);
    else return o;
}

/* Element offset of element (r, k) of an R x K K-major wgmma operand of ES-byte
 * elements: rows of 64 or 128 bytes swizzled as wide (tl_swizzle), wider rows in
 * 128-byte panels (tl_panel_swizzle). */
template <int R, int K, int ES> TL_DEV int tl_kmajor_off(int r, int k) {
    if constexpr (K * ES <= 128) return tl_swizzle<K * ES, ES>(r * K + k);
    else return tl_panel_swizzle<R, K, ES>(r * K + k);
}

/* tl_dynamic_smem(): the block's dynamic shared memory (1024-aligned: swizzled tiles
 * follow the hardware pattern of absolute addresses). TlTensorMap: a TMA tensor map, a
 * `const __grid_constant__` kernel parameter (CUtensorMap, encoded by the runtime; under
 * TL_CUDA_SIM the geometry the simulation reads). */
#ifndef TL_CUDA_SIM
TL_DEV unsigned char *tl_dynamic_smem() {
    extern __shared__ __align__(1024) unsigned char tl_dynamic_smem_base[];
    return tl_dynamic_smem_base;
}
struct __align__(64) TlTensorMap {
    unsigned long long opaque[16];
};
#else
unsigned char *sim_smem(unsigned rank); /* the harness: each block's shared memory, */
unsigned sim_rank(void);                /* the running thread's block in its cluster */
void sim_cluster_bar(void);
TL_DEV unsigned char *tl_dynamic_smem() { return sim_smem(sim_rank()); }
/* The async proxy (TMA stores) sees the threads' shared stores only after a
 * tl_fence_proxy_async: per block of the cluster, whether a thread fenced since the
 * block's TMA stores last read shared memory (reset at block start by the harness). A
 * TMA store that reads without one writes 0xff bytes (NaN), so a missing fence shows as
 * wrong data. Any thread's fence counts: lenient, the hardware needs every writer's. */
static bool tl_sim_proxy_fenced[8];
struct TlTensorMap {
    const unsigned char *base;
    int rank, elem_bytes, swizzle;
    long long dims[5], strides[5]; /* dims innermost first; byte strides of dims 1.. */
    int box[5];
};
#endif

/* wgmma input types (tl_wgmma_ss's TA, TB) and their element bytes. */
enum { TL_MMA_F16 = 0, TL_MMA_BF16 = 1, TL_MMA_E4M3 = 2, TL_MMA_E5M2 = 3 };
TL_HOSTDEV constexpr int tl_mma_bytes(int t) { return t >= TL_MMA_E4M3 ? 1 : 2; }

/* Makes generic-proxy writes of shared memory (stores, cp.async) visible to the async
 * proxy (wgmma); before the barrier that precedes a wgmma. */
TL_DEV void tl_fence_proxy_async() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#elif defined(TL_CUDA_SIM)
    tl_sim_proxy_fenced[sim_rank()] = true;
#endif
}
#ifndef TL_CUDA_SIM
/* Shared-window address of a generic pointer into shared memory (ldmatrix, cp.async). */
TL_DEV uint32_t tl_smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* Asynchronous 16/8/4-byte copies global -> shared (both aligned to the size): with
 * valid false they write zeros and do not read gmem at all (src-size 0), so gmem may
 * point anywhere. Complete after tl_cp_async_commit and tl_cp_async_wait (then a
 * barrier before other threads read them). */
TL_DEV void tl_cp_async16(void *smem, const void *gmem, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(tl_smem_addr(smem)),
                 "l"(gmem), "r"(valid ? 16 : 0)
                 : "memory");
}

TL_DEV void tl_cp_async8(void *smem, const void *gmem, bool valid) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(tl_smem_addr(smem)),
                 "l"(gmem), "r"(valid ? 8 : 0)
                 : "memory");
}

TL_DEV void tl_cp_async4(void *smem, const void *gmem, bool valid) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(tl_smem_addr(smem)),
                 "l"(gmem), "r"(valid ? 4 : 0)
                 : "memory");
}

/* Closes the group of this thread's copies issued since the last commit. */
TL_DEV void tl_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/* Waits until at most N of this thread's committed groups are still in flight. */
template <int N> TL_DEV void tl_cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* ldmatrix .x4 / .x2 (.trans): lane l gives the shared address of row l % 8 of matrix
 * l / 8 (16 contiguous bytes); register i gets matrix i, lane l its row l / 4, elements
 * 2 (l % 4) and 2 (l % 4) + 1 (.trans: of the transposed matrix). */
template <bool TRANS> TL_DEV void tl_ldsm_x4(uint32_t *r, uint32_t addr) {
    if constexpr (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr));
}

template <bool TRANS> TL_DEV void tl_ldsm_x2(uint32_t *r, uint32_t addr) {
    if constexpr (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                     : "=r"(r[0]), "=r"(r[1])
                     : "r"(addr));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                     : "=r"(r[0]), "=r"(r[1])
                     : "r"(addr));
}

/* ldmatrix .xX, X = 4 or 2, for layout loops: lane l gives the shared address p of row
 * l % 8 of matrix l / 8 (16 aligned bytes); r[i] of lane l gets row l / 4, elements
 * 2 (l % 4) and 2 (l % 4) + 1 of matrix i. All lanes of the warp take part. */
template <int X> TL_DEV void tl_ldmatrix(unsigned *r, const uint16_t *p) {
    static_assert(X == 4 || X == 2, "tl_ldmatrix: 4 or 2 matrices");
    if constexpr (X == 4) tl_ldsm_x4<false>(r, tl_smem_addr(p));
    else tl_ldsm_x2<false>(r, tl_smem_addr(p));
}

/* ---- TileLang's warp-level primitives (T.ptx_ldmatrix, T.ptx_mma, T.mma_store) ----------
 * On the thread's registers through pointers into its local arrays (memcpy: the arrays
 * need only their element's alignment); the lane layouts are tl_c.h's (the PTX ISA's). */
TL_DEV int tl_lane_id() {
    int l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

#define TL_ARGS(...) __VA_ARGS__
#define TL_PTX_LDMATRIX(NAME, NUM, SUFFIX, REGS, OUTS)                                             \
    TL_DEV void NAME(void *dst, const void *src) {                                                 \
        uint32_t r[NUM];                                                                           \
        asm volatile("ldmatrix.sync.aligned.m8n8.x" #NUM SUFFIX ".shared.b16 " REGS ", [%" #NUM    \
                     "];\n"                                                                        \
                     : OUTS                                                                        \
                     : "r"(tl_smem_addr(src)));                                                    \
        memcpy(dst, r, sizeof r);                                                                  \
    }
TL_PTX_LDMATRIX(tl_ptx_ldmatrix_x1, 1, "", "{%0}", "=r"(r[0]))
TL_PTX_LDMATRIX(tl_ptx_ldmatrix_x2, 2, "", "{%0, %1}", TL_ARGS("=r"(r[0]), "=r"(r[1])))
TL_PTX_LDMATRIX(tl_ptx_ldmatrix_x4, 4, "", "{%0, %1, %2, %3}",
                TL_ARGS("=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])))
TL_PTX_LDMATRIX(tl_ptx_ldmatrix_x1_trans, 1, ".trans", "{%0}", "=r"(r[0]))
TL_PTX_LDMATRIX(tl_ptx_ldmatrix_x2_trans, 2, ".trans", "{%0, %1}", TL_ARGS("=r"(r[0]), "=r"(r[1])))
TL_PTX_LDMATRIX(tl_ptx_ldmatrix_x4_trans, 4, ".trans", "{%0, %1, %2, %3}",
                TL_ARGS("=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])))
#undef TL_PTX_LDMATRIX
#undef TL_ARGS

/* mma.sync.aligned.SHAPE.row.col.C.A.B.C with four A and two B registers; C is four
 * 32-bit registers (CT, constraint CC) or, for f16, two f16x2 registers. */
#define TL_PTX_MMA4(NAME, PTX, CT, CC)                                                             \
    TL_DEV void NAME(const void *a, const void *b, void *c) {                                      \
        uint32_t A[4], B[2];                                                                       \
        CT C[4];                                                                                   \
        memcpy(A, a, sizeof A), memcpy(B, b, sizeof B), memcpy(C, c, sizeof C);                    \
        asm volatile("mma.sync.aligned." PTX " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "     \
                     "{%0, %1, %2, %3};\n"                                                         \
                     : "+" CC(C[0]), "+" CC(C[1]), "+" CC(C[2]), "+" CC(C[3])                      \
                     : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));          \
        memcpy(c, C, sizeof C);                                                                    \
    }
TL_PTX_MMA4(tl_ptx_mma_m16n8k16_f32_f16_f16, "m16n8k16.row.col.f32.f16.f16.f32", float, "f")
TL_PTX_MMA4(tl_ptx_mma_m16n8k16_f32_bf16_bf16, "m16n8k16.row.col.f32.bf16.bf16.f32", float, "f")
TL_PTX_MMA4(tl_ptx_mma_m16n8k32_s32_s8_s8, "m16n8k32.row.col.s32.s8.s8.s32", int32_t, "r")
TL_PTX_MMA4(tl_ptx_mma_m16n8k32_s32_s8_u8, "m16n8k32.row.col.s32.s8.u8.s32", int32_t, "r")
TL_PTX_MMA4(tl_ptx_mma_m16n8k32_s32_u8_s8, "m16n8k32.row.col.s32.u8.s8.s32", int32_t, "r")
TL_PTX_MMA4(tl_ptx_mma_m16n8k32_s32_u8_u8, "m16n8k32.row.col.s32.u8.u8.s32", int32_t, "r")
TL_PTX_MMA4(tl_ptx_mma_m16n8k8_f32_tf32_tf32, "m16n8k8.row.col.f32.tf32.tf32.f32", float, "f")
#if __CUDA_ARCH__ >= 890 /* fp8 operands: sm_89+ (the target refuses them for sm_80) */
TL_PTX_MMA4(tl_ptx_mma_m16n8k32_f32_e4m3_e4m3, "m16n8k32.row.col.f32.e4m3.e4m3.f32", float, "f")
TL_PTX_MMA4(tl_ptx_mma_m16n8k32_f32_e4m3_e5m2, "m16n8k32.row.col.f32.e4m3.e5m2.f32", float, "f")
TL_PTX_MMA4(tl_ptx_mma_m16n8k32_f32_e5m2_e4m3, "m16n8k32.row.col.f32.e5m2.e4m3.f32", float, "f")
TL_PTX_MMA4(tl_ptx_mma_m16n8k32_f32_e5m2_e5m2, "m16n8k32.row.col.f32.e5m2.e5m2.f32", float, "f")
#endif
#undef TL_PTX_MMA4

/* Volta's mma.sync.aligned.m8n8k4 (T.ptx_mma_sm70): two f16x2 registers of A and of B;
 * C eight f32 or four f16x2 registers (valid on sm_70 and later). */
#define TL_PTX_MMA_SM70_F32(AL, BL)                                                                \
    TL_DEV void tl_ptx_mma_sm70_##AL##_##BL##_f32(const void *a, const void *b, void *c) {         \
        uint32_t A[2], B[2];                                                                       \
        float C[8];                                                                                \
        memcpy(A, a, sizeof A), memcpy(B, b, sizeof B), memcpy(C, c, sizeof C);                    \
        asm volatile("mma.sync.aligned.m8n8k4." #AL "." #BL ".f32.f16.f16.f32 "                    \
                     "{%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9}, {%10, %11}, "                    \
                     "{%0, %1, %2, %3, %4, %5, %6, %7};\n"                                         \
                     : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3]), "+f"(C[4]), "+f"(C[5]),     \
                       "+f"(C[6]), "+f"(C[7])                                                      \
                     : "r"(A[0]), "r"(A[1]), "r"(B[0]), "r"(B[1]));                                \
        memcpy(c, C, sizeof C);                                                                    \
    }
#define TL_PTX_MMA_SM70_F16(AL, BL)                                                                \
    TL_DEV void tl_ptx_mma_sm70_##AL##_##BL##_f16(const void *a, const void *b, void *c) {         \
        uint32_t A[2], B[2], C[4];                                                                 \
        memcpy(A, a, sizeof A), memcpy(B, b, sizeof B), memcpy(C, c, sizeof C);                    \
        asm volatile("mma.sync.aligned.m8n8k4." #AL "." #BL ".f16.f16.f16.f16 "                    \
                     "{%0, %1, %2, %3}, {%4, %5}, {%6, %7}, {%0, %1, %2, %3};\n"                   \
                     : "+r"(C[0]), "+r"(C[1]), "+r"(C[2]), "+r"(C[3])                              \
                     : "r"(A[0]), "r"(A[1]), "r"(B[0]), "r"(B[1]));                                \
        memcpy(c, C, sizeof C);                                                                    \
    }
TL_PTX_MMA_SM70_F32(row, row)
TL_PTX_MMA_SM70_F32(row, col)
TL_PTX_MMA_SM70_F32(col, row)
TL_PTX_MMA_SM70_F32(col, col)
TL_PTX_MMA_SM70_F16(row, row)
TL_PTX_MMA_SM70_F16(row, col)
TL_PTX_MMA_SM70_F16(col, row)
TL_PTX_MMA_SM70_F16(col, col)
#undef TL_PTX_MMA_SM70_F32
#undef TL_PTX_MMA_SM70_F16

TL_DEV void tl_ptx_mma_m16n8k16_f16_f16_f16(const void *a, const void *b, void *c) {
    uint32_t A[4], B[2], C[2];
    memcpy(A, a, sizeof A), memcpy(B, b, sizeof B), memcpy(C, c, sizeof C);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, "
                 "{%6, %7}, {%0, %1};\n"
                 : "+r"(C[0]), "+r"(C[1])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));
    memcpy(c, C, sizeof C);
}

/* stmatrix .xX (sm_90+), X = 4 or 2: the inverse of ldmatrix (not .trans): lane l gives
 * the shared address p of row l % 8 of matrix l / 8 (16 aligned bytes); register r[i]
 * of lane l is row l / 4, elements 2 (l % 4) and 2 (l % 4) + 1 of matrix i. All lanes of
 * the warp take part. */
template <int X> TL_DEV void tl_stmatrix(uint16_t *p, const unsigned *r) {
    static_assert(X == 4 || X == 2, "tl_stmatrix: 4 or 2 matrices");
    if constexpr (X == 4)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(
                         tl_smem_addr(p)),
                     "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
                     : "memory");
    else
        asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(
                         tl_smem_addr(p)),
                     "r"(r[0]), "r"(r[1])
                     : "memory");
}

/* c[0..3] += A (16x16, registers a[0..3]) * B (16x8, b[0..1]), the mma.sync fragments
 * (not volatile: no memory effects, so the compiler may interleave it with the loads):
 * with g = lane / 4, t = lane % 4: a0 = (row g, k 2t..2t+1), a1 = (g + 8, 2t),
 * a2 = (g, 8 + 2t), a3 = (g + 8, 8 + 2t); b0 = (k 2t..2t+1, n g), b1 = (k 8 + 2t, n g);
 * c0, c1 = (row g, n 2t, 2t + 1), c2, c3 = (row g + 8, the same). */
template <bool BF16> TL_DEV void tl_mma_16816(float *c, const uint32_t *a, const uint32_t *b) {
    if constexpr (BF16)
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
            "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
            "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* The B fragments b[ni][0..1] (ni < NT) of k-step k0 for the warp's columns n0.. of the
 * shared B tile ([K][N], or [N][K] when TRANS_B): ldmatrix.x4 for each pair of n8 tiles
 * (matrices (n, k0), (n, k0 + 8), (n + 8, k0), (n + 8, k0 + 8)), .x2 for an odd last one.
 * [N][K] rows are the fragment's n, so it is read as is; [K][N] is read transposed. */
template <int N, int K, int NT, bool TRANS_B, int SWZ_B>
TL_DEV void tl_gemm_load_b(uint32_t (*b)[2], uint32_t sb, int n0, int k0, int lane) {
#pragma unroll
    for (int ni = 0; ni < NT; ni += 2) {
        const bool pair = ni + 1 < NT;
        const int r = lane % 8, j = lane / 8;
        const int n = n0 + ni * 8 + (pair ? 8 * (j / 2) : 0), k = k0 + 8 * (j % 2);
        const uint32_t addr = sb + 2 * tl_tile_off<K, N, TRANS_B, SWZ_B>(TRANS_B ? k : k + r,
                                                                         TRANS_B ? n + r : n);
        if (pair) {
            uint32_t q[4];
            tl_ldsm_x4<!TRANS_B>(q, addr);
            b[ni][0] = q[0], b[ni][1] = q[1], b[ni + 1][0] = q[2], b[ni + 1][1] = q[3];
        } else {
            tl_ldsm_x2<!TRANS_B>(b[ni], addr);
        }
    }
}

/* C += A * B for one block tile on tensor cores; every thread of the block calls it
 * (tid in [0, 32 * WARP_M * WARP_N)), after a barrier that makes A and B visible.
 * A: shared [M][K] ([K][M] when TRANS_A); B: shared [K][N] ([N][K] when TRANS_B); stored
 * as SWZ_A / SWZ_B say (TL_SMEM_*: plain rows as long as the last dim, rows swizzled, or
 * 64-column panels); 128-byte aligned (1024 when swizzled). fp16, or bf16
 * when BF16; fp32 accumulation.
 * Warp w = tid / 32 computes rows warp_m * (M / WARP_M) .. and columns
 * warp_n * (N / WARP_N) .. (warp_m = w / WARP_N, warp_n = w % WARP_N): MT = M / WARP_M / 16
 * by NT = N / WARP_N / 8 mma tiles. C is the thread's MT * NT * 4 floats: C[(mi * NT + ni)
 * * 4 + c] is element (warp_m * (M / WARP_M) + mi * 16 + lane / 4 + 8 * (c / 2),
 * warp_n * (N / WARP_N) + ni * 8 + 2 * (lane % 4) + c % 2), lane = tid % 32.
 * SYNC >= 0 (the cp.async pipeline's loop): once the fragments of the last k-step are
 * loaded, before its mmas, tl_cp_async_wait<SYNC> and a block barrier: the next
 * iteration's tiles have landed and every read of A and B is done, while each warp's
 * tensor pipe still runs the mmas issued before the barrier. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_A, bool TRANS_B, bool BF16,
          int SWZ_A, int SWZ_B, int SYNC = -1>
TL_DEV void tl_gemm_ss(const uint16_t *A, const uint16_t *B, float *C, int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N>();
    constexpr int MT = M / WARP_M / 16, NT = N / WARP_N / 8;
    const int lane = tid % 32, warp = tid / 32;
    const int m0 = warp / WARP_N * (M / WARP_M), n0 = warp % WARP_N * (N / WARP_N);
    const uint32_t sa = tl_smem_addr(A), sb = tl_smem_addr(B);
    /* A matrices a0..a3 = (m, k0), (m + 8, k0), (m, k0 + 8), (m + 8, k0 + 8): lane l
     * addresses row l % 8 of matrix j = l / 8; [K][M] is read transposed. */
    const int r = lane % 8, dm = 8 * (lane / 8 % 2), dk = 8 * (lane / 16);
    auto load = [&](uint32_t(*a)[4], uint32_t(*b)[2], int k0) {
#pragma unroll
        for (int mi = 0; mi < MT; mi++) {
            const int m = m0 + mi * 16 + dm, k = k0 + dk;
            tl_ldsm_x4<TRANS_A>(a[mi],
                                sa + 2 * tl_tile_off<M, K, TRANS_A, SWZ_A>(TRANS_A ? m : m + r,
                                                                           TRANS_A ? k + r : k));
        }
        tl_gemm_load_b<N, K, NT, TRANS_B, SWZ_B>(b, sb, n0, k0, lane);
    };
    /* fragments double-buffered: the loads of k-step s + 1 are issued before the mmas of
     * k-step s, so their latency hides behind MT * NT mmas (the asm is volatile: issue
     * order is program order) */
    uint32_t a[2][MT][4], b[2][NT][2];
    load(a[0], b[0], 0);
#pragma unroll
    for (int s = 0; s < K / 16; s++) {
        if (s + 1 < K / 16) load(a[(s + 1) % 2], b[(s + 1) % 2], (s + 1) * 16);
        if (SYNC >= 0 && s + 1 == K / 16) {
            tl_cp_async_wait<(SYNC >= 0 ? SYNC : 0)>();
            __syncthreads();
        }
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int ni = 0; ni < NT; ni++)
                tl_mma_16816<BF16>(C + (mi * NT + ni) * 4, a[s % 2][mi], b[s % 2][ni]);
    }
}
/* c[0..3] += A (16 x 32, 2:4 sparse: its 16 x 16 kept values in a[0..3], the layout of
 * tl_mma_16816's A) * B (32 x 8, b[0..3]: b0, b1 k 0..15 and b2, b3 k 16..31, each as
 * tl_mma_16816's b0, b1) with metadata e: lane l (g = l / 4) gives rows g (bits 0..15) and
 * g + 8 (bits 16..31) of k half l % 2, 4 bits per group of 4 (sparsity selector 0: lanes
 * 4g and 4g + 1 give it). ::ordered_metadata (PTX 8.5) where NVRTC has it: the same
 * meaning for the ordered indices tl_gemm_sp_ss's metadata holds. */
template <bool BF16>
TL_DEV void tl_mma_sp_16832(float *c, const uint32_t *a, const uint32_t *b, uint32_t e) {
#if defined(__CUDACC_VER_MAJOR__) &&                                                               \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 5))
#define TL_MMA_SP "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32."
#else
#define TL_MMA_SP "mma.sp.sync.aligned.m16n8k32.row.col.f32."
#endif
    if constexpr (BF16)
        asm(TL_MMA_SP "bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "
                      "{%0, %1, %2, %3}, %12, 0x0;\n"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]),
              "r"(b[3]), "r"(e));
    else
        asm(TL_MMA_SP "f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "
                      "{%0, %1, %2, %3}, %12, 0x0;\n"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]),
              "r"(b[3]), "r"(e));
#undef TL_MMA_SP
}

/* T.ptx_mma_sp (m16n8k32 f16/bf16 -> f32, sparsity selector 0): tl_mma_sp_16832 on the
 * lane's registers through pointers into its local arrays (tl_c.h tl_mma_sp_warp has the
 * layouts). */
#define TL_PTX_MMA_SP(A, BF16)                                                                     \
    TL_DEV void tl_ptx_mma_sp_m16n8k32_f32_##A##_##A(const void *a, const void *b, void *c,        \
                                                     const void *e) {                              \
        uint32_t Ar[4], Br[4], Er;                                                                 \
        float C[4];                                                                                \
        memcpy(Ar, a, sizeof Ar), memcpy(Br, b, sizeof Br), memcpy(&Er, e, 4);                     \
        memcpy(C, c, sizeof C);                                                                    \
        tl_mma_sp_16832<BF16>(C, Ar, Br, Er);                                                      \
        memcpy(c, C, sizeof C);                                                                    \
    }
TL_PTX_MMA_SP(f16, false)
TL_PTX_MMA_SP(bf16, true)
#undef TL_PTX_MMA_SP

/* Metadata word e with each 4-bit field whose two indices are equal (the zeros past the
 * end of K that a padded tile reads) set to 0b0100 (indices 0 and 1), which
 * ::ordered_metadata accepts; the kept values there are zeros, so either choice adds
 * nothing. */
TL_DEV uint32_t tl_sp_meta_ordered(uint32_t e) {
    const uint32_t d = (e ^ e >> 2) & 0x33333333u, same = ~(d | d >> 1) & 0x11111111u;
    return (e & ~(same * 15u)) | same * 4u;
}

/* T.gemm_sp on sparse tensor cores (mma.sp m16n8k32, sm_80+): C += A * B for one block
 * tile, A (M x K) 2:4 sparse along K. A: shared [M][K/2], the kept values in order
 * (swizzled as tl_gemm_ss's A when SWZ_A); E: shared [M][K/8] bytes, the natural
 * row-major metadata (4 bits per group of 4 along K, lowest group in the lowest bits:
 * bits 1:0 and 3:2 the in-group indices of the two kept values, in increasing order);
 * B, C, the warps, SWZ_B and SYNC as tl_gemm_ss's; fp16, or bf16 when BF16. Each k-step
 * of 32 loads A's kept 16 x 16 by ldmatrix.x4 (a dense k16 A), B's two k16 fragments and
 * the metadata of tl_mma_sp_16832, double-buffered as in tl_gemm_ss. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_B, bool BF16, int SWZ_A,
          int SWZ_B, int SYNC = -1>
TL_DEV void tl_gemm_sp_ss(const uint16_t *A, const unsigned char *E, const uint16_t *B, float *C,
                          int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N, 32>();
    constexpr int MT = M / WARP_M / 16, NT = N / WARP_N / 8, KH = K / 2, ER = K / 8;
    const int lane = tid % 32, warp = tid / 32;
    const int m0 = warp / WARP_N * (M / WARP_M), n0 = warp % WARP_N * (N / WARP_N);
    const uint32_t sa = tl_smem_addr(A), sb = tl_smem_addr(B);
    const int r = lane % 8, dm = 8 * (lane / 8 % 2), dk = 8 * (lane / 16);
    const unsigned char *erow = E + (m0 + lane / 4) * ER + 2 * (lane % 2);
    auto load = [&](uint32_t(*a)[4], uint32_t(*b)[4], uint32_t *e, int s) {
#pragma unroll
        for (int mi = 0; mi < MT; mi++) {
            const int m = m0 + mi * 16 + dm;
            tl_ldsm_x4<false>(a[mi], sa + 2 * tl_tile_off<M, KH, false, SWZ_A>(m + r, s * 16 + dk));
            const unsigned char *p = erow + mi * 16 * ER + 4 * s;
            e[mi] = tl_sp_meta_ordered(*(const uint16_t *)p |
                                       (uint32_t) * (const uint16_t *)(p + 8 * ER) << 16);
        }
        uint32_t lo[NT][2], hi[NT][2];
        tl_gemm_load_b<N, K, NT, TRANS_B, SWZ_B>(lo, sb, n0, s * 32, lane);
        tl_gemm_load_b<N, K, NT, TRANS_B, SWZ_B>(hi, sb, n0, s * 32 + 16, lane);
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
            b[ni][0] = lo[ni][0], b[ni][1] = lo[ni][1], b[ni][2] = hi[ni][0], b[ni][3] = hi[ni][1];
    };
    uint32_t a[2][MT][4], b[2][NT][4], e[2][MT];
    load(a[0], b[0], e[0], 0);
#pragma unroll
    for (int s = 0; s < K / 32; s++) {
        if (s + 1 < K / 32) load(a[(s + 1) % 2], b[(s + 1) % 2], e[(s + 1) % 2], s + 1);
        if (SYNC >= 0 && s + 1 == K / 32) {
            tl_cp_async_wait<(SYNC >= 0 ? SYNC : 0)>();
            __syncthreads();
        }
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int ni = 0; ni < NT; ni++)
                tl_mma_sp_16832<BF16>(C + (mi * NT + ni) * 4, a[s % 2][mi], b[s % 2][ni],
                                      e[s % 2][mi]);
    }
}

/* tl_gemm_ss with A in registers: A is the thread's (M / WARP_M / 16) * (K / 8) * 4
 * 16-bit values of the M x K tile in the accumulator layout without the warp_n split:
 * A[(mi * (K / 8) + ki) * 4 + c] is element (warp_m * (M / WARP_M) + mi * 16 + lane / 4 +
 * 8 * (c / 2), ki * 8 + 2 * (lane % 4) + c % 2), the same in every warp_n (how flash
 * attention feeds P = softmax(Q K^T) to P V). The mma A registers of k-step kk are the
 * pairs (c0, c1), (c2, c3) of ki = 2 kk, then of ki = 2 kk + 1. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_B, bool BF16, int SWZ_B>
TL_DEV void tl_gemm_rs(const uint16_t *A, const uint16_t *B, float *C, int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N>();
    constexpr int MT = M / WARP_M / 16, NT = N / WARP_N / 8;
    const int lane = tid % 32, warp = tid / 32;
    const int n0 = warp % WARP_N * (N / WARP_N);
    const uint32_t sb = tl_smem_addr(B);
    uint32_t b[2][NT][2]; /* double-buffered as in tl_gemm_ss */
    tl_gemm_load_b<N, K, NT, TRANS_B, SWZ_B>(b[0], sb, n0, 0, lane);
#pragma unroll
    for (int s = 0; s < K / 16; s++) {
        if (s + 1 < K / 16)
            tl_gemm_load_b<N, K, NT, TRANS_B, SWZ_B>(b[(s + 1) % 2], sb, n0, (s + 1) * 16, lane);
        uint32_t a[MT][4];
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int l = (mi * (K / 8) + 2 * s + i / 2) * 4 + i % 2 * 2;
                a[mi][i] = (uint32_t)A[l] | (uint32_t)A[l + 1] << 16;
            }
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int ni = 0; ni < NT; ni++)
                tl_mma_16816<BF16>(C + (mi * NT + ni) * 4, a[mi], b[s % 2][ni]);
    }
}
/* c[0..3] += A (16x32 int8, a[0..3]) * B (32x8, b[0..1]), int32 accumulation (exact
 * while the sums fit in int32): with g = lane / 4, t = lane % 4:
 * a0 = (row g, k 4t..4t+3), a1 = (g + 8, 4t), a2 = (g, 16 + 4t), a3 = (g + 8, 16 + 4t);
 * b0 = (k 4t..4t+3, n g), b1 = (k 16 + 4t, n g); c as tl_mma_16816's. */
TL_DEV void tl_mma_16832_s8(int32_t *c, const uint32_t *a, const uint32_t *b) {
    asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Four int8 of a shared tile along k as one mma register: (row, k .. k + 3) of a
 * R x KK tile stored [R][KK] ([KK][R] when TRANS: then four loads). */
template <int R, int KK, bool TRANS, int SWZ>
TL_DEV uint32_t tl_i8_quad(const int8_t *T, int row, int k) {
    if constexpr (!TRANS) /* 4 aligned bytes (k % 4 == 0; the swizzle moves 16 bytes) */
        return *(const uint32_t *)&T[tl_tile_off<R, KK, false, SWZ, 1>(row, k)];
    uint32_t q = 0;
#pragma unroll
    for (int i = 0; i < 4; i++)
        q |= (uint32_t)(uint8_t)T[tl_tile_off<R, KK, true, SWZ, 1>(row, k + i)] << (8 * i);
    return q;
}

/* tl_gemm_ss for int8 A and B with int32 accumulation (mma.sync m16n8k32, sm_80+): the
 * same tiles, warps and C layout; K a multiple of 32. A [M][K] and B [N][K] (TRANS_B)
 * are read in 4-byte words, the other storage orders a byte at a time. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_A, bool TRANS_B, int SWZ_A,
          int SWZ_B>
TL_DEV void tl_gemm_ss_s8(const int8_t *A, const int8_t *B, int32_t *C, int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N, 32>();
    constexpr int MT = M / WARP_M / 16, NT = N / WARP_N / 8;
    const int lane = tid % 32, warp = tid / 32, g = lane / 4, t = lane % 4;
    const int m0 = warp / WARP_N * (M / WARP_M), n0 = warp % WARP_N * (N / WARP_N);
#pragma unroll 2
    for (int k0 = 0; k0 < K; k0 += 32) {
        uint32_t a[MT][4], b[NT][2];
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int i = 0; i < 4; i++)
                a[mi][i] = tl_i8_quad<M, K, TRANS_A, SWZ_A>(A, m0 + mi * 16 + g + 8 * (i % 2),
                                                            k0 + 16 * (i / 2) + 4 * t);
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
#pragma unroll
            for (int i = 0; i < 2; i++)
                b[ni][i] = tl_i8_quad<N, K, !TRANS_B, SWZ_B>(B, n0 + ni * 8 + g,
                                                             k0 + 16 * i + 4 * t);
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int ni = 0; ni < NT; ni++) tl_mma_16832_s8(C + (mi * NT + ni) * 4, a[mi], b[ni]);
    }
}

/* c[0..3] += A (16x64 int4, a[0..3]) * B (64x8, b[0..1]), int32 accumulation: the int8
 * m16n8k32 fragments with each byte two int4 along k, the low nibble first (PTX's .s4
 * packing), so the registers are the same bytes of the same tiles. */
TL_DEV void tl_mma_16864_s4(int32_t *c, const uint32_t *a, const uint32_t *b) {
    asm("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* tl_gemm_ss for packed int4 A [M][KB] and B [N][KB] (KB = K / 2 bytes, a multiple of 32;
 * mma.sync m16n8k64 .s4, sm_80+): tl_gemm_ss_s8's loop over the bytes. */
template <int M, int N, int KB, int WARP_M, int WARP_N, int SWZ_A, int SWZ_B>
TL_DEV void tl_gemm_ss_s4(const int8_t *A, const int8_t *B, int32_t *C, int tid) {
    tl_gemm_check<M, N, KB, WARP_M, WARP_N, 32>();
    constexpr int MT = M / WARP_M / 16, NT = N / WARP_N / 8;
    const int lane = tid % 32, warp = tid / 32, g = lane / 4, t = lane % 4;
    const int m0 = warp / WARP_N * (M / WARP_M), n0 = warp % WARP_N * (N / WARP_N);
#pragma unroll 2
    for (int k0 = 0; k0 < KB; k0 += 32) {
        uint32_t a[MT][4], b[NT][2];
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int i = 0; i < 4; i++)
                a[mi][i] = tl_i8_quad<M, KB, false, SWZ_A>(A, m0 + mi * 16 + g + 8 * (i % 2),
                                                           k0 + 16 * (i / 2) + 4 * t);
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
#pragma unroll
            for (int i = 0; i < 2; i++)
                b[ni][i] = tl_i8_quad<N, KB, false, SWZ_B>(B, n0 + ni * 8 + g, k0 + 16 * i + 4 * t);
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int ni = 0; ni < NT; ni++) tl_mma_16864_s4(C + (mi * NT + ni) * 4, a[mi], b[ni]);
    }
}
/* x rounded to TF32 (cvt.rna.tf32.f32: to nearest, ties away from zero; tl_c.h's
 * tl_tf32_rna_f32 gives the same value) as an mma operand register. */
TL_DEV uint32_t tl_tf32_reg(float x) {
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

/* c[0..3] += A (16x8 tf32, a[0..3]) * B (8x8, b[0..1]), f32 accumulation: with g = lane /
 * 4, t = lane % 4: a0 = (row g, k t), a1 = (g + 8, t), a2 = (g, t + 4), a3 = (g + 8, t + 4);
 * b0 = (k t, n g), b1 = (k t + 4, n g); c as tl_mma_16816's. */
TL_DEV void tl_mma_1688_tf32(float *c, const uint32_t *a, const uint32_t *b) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* The B fragments b[ni][0..1] (ni < NT) of k-step k0 for the warp's columns n0.. of the
 * shared float32 B tile ([K][N], or [N][K] when TRANS_B): one 32-bit load each, at
 * tl_tile_off's (swizzled) offset, rounded to TF32. */
template <int N, int K, int NT, bool TRANS_B, int SWZ_B>
TL_DEV void tl_gemm_load_b_tf32(uint32_t (*b)[2], const float *B, int n0, int k0, int lane) {
#pragma unroll
    for (int ni = 0; ni < NT; ni++)
#pragma unroll
        for (int i = 0; i < 2; i++)
            b[ni][i] = tl_tf32_reg(B[tl_tile_off<K, N, TRANS_B, SWZ_B, 4>(k0 + lane % 4 + 4 * i,
                                                                          n0 + ni * 8 + lane / 4)]);
}

/* tl_gemm_ss for float32 A and B on TF32 tensor cores (mma.sync m16n8k8, sm_80+): the
 * same tiles, warps and C layout, K a multiple of 8; each operand rounded to TF32
 * (tl_tf32_reg) as it is loaded, with plain 32-bit loads from the (swizzled) tiles. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_A, bool TRANS_B, int SWZ_A,
          int SWZ_B>
TL_DEV void tl_gemm_ss_tf32(const float *A, const float *B, float *C, int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N, 8>();
    constexpr int MT = M / WARP_M / 16, NT = N / WARP_N / 8;
    const int lane = tid % 32, warp = tid / 32, g = lane / 4, t = lane % 4;
    const int m0 = warp / WARP_N * (M / WARP_M), n0 = warp % WARP_N * (N / WARP_N);
#pragma unroll 2
    for (int k0 = 0; k0 < K; k0 += 8) {
        uint32_t a[MT][4], b[NT][2];
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int i = 0; i < 4; i++)
                a[mi][i] = tl_tf32_reg(
                    A[tl_tile_off<M, K, TRANS_A, SWZ_A, 4>(m0 + mi * 16 + g + 8 * (i % 2),
                                                           k0 + t + 4 * (i / 2))]);
        tl_gemm_load_b_tf32<N, K, NT, TRANS_B, SWZ_B>(b, B, n0, k0, lane);
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int ni = 0; ni < NT; ni++) tl_mma_1688_tf32(C + (mi * NT + ni) * 4, a[mi], b[ni]);
    }
}

/* tl_gemm_ss_tf32 with A in registers: A is the thread's (M / WARP_M / 16) * (K / 8) * 4
 * floats of the M x K tile in the m16n8k8 A layout without the warp_n split
 * (frag_mma_a_tf32): A[(mi * (K / 8) + ki) * 4 + i] is element (warp_m * (M / WARP_M) +
 * mi * 16 + lane / 4 + 8 * (i % 2), ki * 8 + lane % 4 + 4 * (i / 2)), the mma's register
 * ai of k-step ki. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_B, int SWZ_B>
TL_DEV void tl_gemm_rs_tf32(const float *A, const float *B, float *C, int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N, 8>();
    constexpr int MT = M / WARP_M / 16, NT = N / WARP_N / 8;
    const int lane = tid % 32, n0 = tid / 32 % WARP_N * (N / WARP_N);
#pragma unroll /* wholly: A's register indices are constants */
    for (int ki = 0; ki < K / 8; ki++) {
        uint32_t a[MT][4], b[NT][2];
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int i = 0; i < 4; i++) a[mi][i] = tl_tf32_reg(A[(mi * (K / 8) + ki) * 4 + i]);
        tl_gemm_load_b_tf32<N, K, NT, TRANS_B, SWZ_B>(b, B, n0, ki * 8, lane);
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int ni = 0; ni < NT; ni++) tl_mma_1688_tf32(C + (mi * NT + ni) * 4, a[mi], b[ni]);
    }
}
/* ---- Hopper: wgmma (sm_90a) ------------------------------------------------------------ */
/* T.gemm on sm_90a: wgmma.mma_async with both operands in shared memory, described by
 * 64-bit matrix descriptors (PTX "Matrix Descriptor Format"; ../shared/HOPPER-NOTES.md
 * section 1). Operand tiles use the 128-byte swizzle: A is [M][K] K-major with rows of 128
 * bytes (64 16-bit or 128 fp8 elements, tl_swizzle<128, ES>; or 64-byte rows, the 64B
 * swizzle); B is [N][K] K-major likewise (TRANS_B), or (16-bit only) [K][N] MN-major
 * stored as N/64 panels of [K][64] (tl_panel_swizzle), each 1024-byte aligned. */
/* Barrier of the N threads (a multiple of 32) that reach named barrier ID (1..15; 0 is
 * __syncthreads'). */
template <int ID, int N> TL_DEV void tl_bar_sync() {
    asm volatile("bar.sync %0, %1;\n" ::"n"(ID), "n"(N) : "memory");
}
/* An arrival at named barrier ID of N threads that does not wait (T.named_barrier_arrive). */
template <int ID, int N> TL_DEV void tl_bar_arrive() {
    asm volatile("bar.arrive %0, %1;\n" ::"n"(ID), "n"(N) : "memory");
}

/* ---- mbarriers (sm_80+; transaction bytes and TMA are sm_90's, below) -----------------------
 * An mbarrier completes a phase when `count` arrivals and every expected transaction byte
 * have come; tl_mbar_wait(bar, parity) returns once the phase of that parity has
 * completed (on a fresh barrier, at once for parity 1). */
TL_DEV void tl_mbar_init(uint64_t *bar, int count) {
    asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(tl_smem_addr(bar)), "r"(count)
                 : "memory");
}

/* Makes the inits visible to the other threads and the async proxy (before a barrier). */
TL_DEV void tl_fence_mbar_init() {
#if __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

TL_DEV void tl_mbar_arrive(uint64_t *bar) {
    asm volatile(
        "{\n.reg .b64 st;\nmbarrier.arrive.shared.b64 st, [%0];\n}\n" ::"r"(tl_smem_addr(bar))
        : "memory");
}

TL_DEV void tl_mbar_wait(uint64_t *bar, int parity) {
    const uint32_t a = tl_smem_addr(bar);
    uint32_t done = 0;
    while (!done)
#if __CUDA_ARCH__ >= 900
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(a), "r"(parity)
                     : "memory");
#else
        asm volatile("{\n.reg .pred p;\nmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(a), "r"(parity)
                     : "memory");
#endif
}

/* An arrival on bar once every cp.async this thread issued before has landed (sm_80+).
 * NOINC: the arrival counts against the barrier's count; else the pending count is
 * raised first, so the barrier's count must not include it. */
template <bool NOINC> TL_DEV void tl_mbar_cp_async_arrive(uint64_t *bar) {
    if constexpr (NOINC)
        asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(tl_smem_addr(bar))
                     : "memory");
    else
        asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];\n" ::"r"(tl_smem_addr(bar))
                     : "memory");
}

#ifdef __CUDA_ARCH_FEAT_SM90_ALL
/* Descriptor of a swizzled tile at smem address addr: leading and stride byte offsets
 * lbo, sbo; base offset 0 (tiles are 1024-byte aligned); mode 1 = 128B, 2 = 64B. */
TL_DEV uint64_t tl_wgmma_desc(uint32_t addr, uint32_t lbo, uint32_t sbo, uint64_t mode) {
    return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)(lbo >> 4) << 16 |
           (uint64_t)(sbo >> 4) << 32 | mode << 62;
}

/* Descriptor d moved `bytes` (a multiple of 16) further into shared memory: the address
 * field is addr >> 4 in bits 0..13, and shared addresses stay under 0x40000, so the sum
 * never carries out of it. One add instead of the whole encoding per instruction. */
TL_DEV uint64_t tl_wgmma_desc_at(uint64_t d, uint32_t bytes) { return d + (bytes >> 4); }

/* FlashAttention-3's ping-pong of two consumer warp groups (threads 0..255) over named
 * barriers 2 (group 0's turn) and 3 (group 1's): a group waits for its turn before it
 * issues its gemms and passes the turn after, so that one group's softmax runs while
 * the other's gemms do. Per tile: start (group 1 gives group 0 the first turn), pairs of
 * wait and pass, end (group 0 takes group 1's last pass): the barriers end as they began. */
TL_DEV void tl_pingpong_start(int tid) {
    if (tid >= 128) asm volatile("bar.arrive 2, 256;\n" ::: "memory");
}
TL_DEV void tl_pingpong_wait(int tid) {
    asm volatile("bar.sync %0, 256;\n" ::"r"(2 + tid / 128) : "memory");
}
TL_DEV void tl_pingpong_pass(int tid) {
    asm volatile("bar.arrive %0, 256;\n" ::"r"(3 - tid / 128) : "memory");
}
TL_DEV void tl_pingpong_end(int tid) {
    if (tid < 128) asm volatile("bar.sync 2, 256;\n" ::: "memory");
}

/* Waits until at most N wgmma groups of this warpgroup are running. */
template <int N> TL_DEV void tl_wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Keeps the compiler from moving accesses of the accumulators across the asynchronous
 * window (CUTLASS's warpgroup_fence_operand). */
TL_DEV void tl_wgmma_fence_operand(float &r) { asm volatile("" : "+f"(r)::"memory"); }
/* The same for other register fragments, as 32-bit words (a 16-bit A operand as the
 * words the wgmma reads): no access of them moves across the wait. */
TL_DEV void tl_wgmma_fence_operand(uint32_t &r) { asm volatile("" : "+r"(r)::"memory"); }

/* ---- generated by tools/gen_wgmma.py: begin ---- */
TL_DEV void tl_wgmma_16_f16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_16_f16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_16_f16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "{%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_16_f16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_16_f16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_16_f16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "{%8, %9, %10, %11}, %12, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_16_bf16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_16_bf16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_16_bf16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "{%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_16_bf16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_16_bf16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_16_bf16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "{%8, %9, %10, %11}, %12, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_16_e4m3_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_16_e4m3_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_16_e5m2_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k32.f32.e5m2.e4m3 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_16_e5m2_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n16k32.f32.e5m2.e5m2 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "%8, %9, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_f16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_f16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_32_f16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "{%16, %17, %18, %19}, %20, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_f16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_f16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_32_f16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "{%16, %17, %18, %19}, %20, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_bf16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_bf16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_32_bf16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "{%16, %17, %18, %19}, %20, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_bf16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_bf16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_32_bf16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "{%16, %17, %18, %19}, %20, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_e4m3_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_e4m3_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e5m2 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_e5m2_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k32.f32.e5m2.e4m3 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_32_e5m2_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k32.f32.e5m2.e5m2 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_f16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_f16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_64_f16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "{%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_f16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_f16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_64_f16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "{%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_bf16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_bf16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_64_bf16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "{%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_bf16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_bf16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_64_bf16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "{%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_e4m3_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_e4m3_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_e5m2_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e4m3 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_64_e5m2_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_f16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_f16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_128_f16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "{%64, %65, %66, %67}, %68, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_f16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_f16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_128_f16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "{%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_bf16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_bf16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_128_bf16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "{%64, %65, %66, %67}, %68, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_bf16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_bf16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_128_bf16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "{%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_e4m3_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_e4m3_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_e5m2_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_128_e5m2_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e5m2 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_f16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_f16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_192_f16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %101, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "{%96, %97, %98, %99}, %100, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_f16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_f16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_192_f16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %101, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "{%96, %97, %98, %99}, %100, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_bf16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_bf16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_192_bf16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %101, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "{%96, %97, %98, %99}, %100, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_bf16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_bf16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_192_bf16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %101, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "{%96, %97, %98, %99}, %100, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_e4m3_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_e4m3_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e5m2 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_e5m2_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k32.f32.e5m2.e4m3 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_192_e5m2_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k32.f32.e5m2.e5m2 {"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                 "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
                 "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
                 "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
                 "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
                 "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
                 "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
                 "%96, %97, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
                   "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                   "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
                   "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                   "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
                   "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_f16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_f16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 1, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_256_f16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "{%128, %129, %130, %131}, %132, p, 1, 1, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_f16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 0, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_f16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_256_f16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "{%128, %129, %130, %131}, %132, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_bf16_0(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_bf16_0_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 1, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_256_bf16_0(float *d, const uint32_t *a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "{%128, %129, %130, %131}, %132, p, 1, 1, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_bf16_1(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 0, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_bf16_1_a1(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_rs_256_bf16_1(float *d, const uint32_t *a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "{%128, %129, %130, %131}, %132, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_e4m3_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_e4m3_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e5m2 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_e5m2_e4m3(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e4m3 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
TL_DEV void tl_wgmma_256_e5m2_e5m2(float *d, uint64_t a, uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
        "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}
/* ---- generated by tools/gen_wgmma.py: end ---- */

/* One m64nNk16 (16-bit) or m64nNk32 (fp8) wgmma of the instantiated shape and types. */
/* clang-format off */
template <int N, int TA, int TB, bool MN_B, bool MN_A = false>
TL_DEV void tl_wgmma_one(float *d, uint64_t a, uint64_t b) {
#define TL_WGMMA_F8(n, TA_, ta, TB_, tb)                                                   \
    if constexpr (TA == TL_MMA_##TA_ && TB == TL_MMA_##TB_) tl_wgmma_##n##_##ta##_##tb(d, a, b);
#define TL_WGMMA_CASE(n)                                                                   \
    if constexpr (N == n) {                                                                \
        if constexpr (TA == TL_MMA_BF16 && MN_A)                                           \
            MN_B ? tl_wgmma_##n##_bf16_1_a1(d, a, b) : tl_wgmma_##n##_bf16_0_a1(d, a, b);  \
        else if constexpr (TA == TL_MMA_F16 && MN_A)                                       \
            MN_B ? tl_wgmma_##n##_f16_1_a1(d, a, b) : tl_wgmma_##n##_f16_0_a1(d, a, b);    \
        else if constexpr (TA == TL_MMA_BF16)                                              \
            MN_B ? tl_wgmma_##n##_bf16_1(d, a, b) : tl_wgmma_##n##_bf16_0(d, a, b);        \
        else if constexpr (TA == TL_MMA_F16)                                               \
            MN_B ? tl_wgmma_##n##_f16_1(d, a, b) : tl_wgmma_##n##_f16_0(d, a, b);          \
        TL_WGMMA_F8(n, E4M3, e4m3, E4M3, e4m3) TL_WGMMA_F8(n, E4M3, e4m3, E5M2, e5m2)      \
        TL_WGMMA_F8(n, E5M2, e5m2, E4M3, e4m3) TL_WGMMA_F8(n, E5M2, e5m2, E5M2, e5m2)      \
    }
    TL_WGMMA_CASE(16) TL_WGMMA_CASE(32) TL_WGMMA_CASE(64) TL_WGMMA_CASE(128) TL_WGMMA_CASE(192)
    TL_WGMMA_CASE(256)
#undef TL_WGMMA_CASE
#undef TL_WGMMA_F8
    static_assert(N == 16 || N == 32 || N == 64 || N == 128 || N == 192 || N == 256,
                  "tl_wgmma: N is 16, 32, 64, 128, 192 or 256");
}
/* clang-format on */

/* C += A * B for one block tile: NWG x NWG_N warpgroups split M and N (warpgroup w =
 * wm * NWG_N + wn: rows wm * (M / NWG) .. in MT = M / NWG / 64 m64 slices, columns
 * wn * NI .. of NI = N / NWG_N); every thread of those warpgroups calls it, after
 * a barrier (and fence.proxy.async by the threads that wrote A and B). TA, TB: the input
 * types (TL_MMA_*: f16 or bf16 both, or any two fp8). A: [M][K] K-major (tl_kmajor_off:
 * rows of 64 bytes, 64B-swizzled, or whole 128-byte panels, 128B-swizzled), or, 16-bit
 * only (TRANS_A), [K][M] in 64-column panels; B: [N][K] likewise (TRANS_B), or, 16-bit
 * only, [K][N] in 64-column panels (NI a multiple of 64). C: the
 * thread's MT * NI / 2 floats, C[(mi * NI / 8 + ni) * 4 + c] = element
 * (wm * (M / NWG) + mi * 64 + 16 * (warp % 4) + lane / 4 + 8 * (c / 2), wn * NI + ni * 8 +
 * 2 * (lane % 4) + c % 2). Returns with at most WAIT of its wgmma groups (one per call)
 * still running: with WAIT = 1 the previous call's wgmmas are done, this call's may
 * still read A, B and write C (the caller waits, tl_wgmma_wait, before it touches them). */
template <int M, int N, int K, int NWG, bool TRANS_B, int TA, int TB, int WAIT,
          bool TRANS_A = false, int NWG_N = 1>
TL_DEV void tl_wgmma_ss(const void *A, const void *B, float *C, int tid) {
    constexpr int ES = tl_mma_bytes(TA), ROW = K * ES; /* bytes per K-major row */
    constexpr int NI = N / NWG_N;                      /* a warpgroup's columns */
    static_assert((ROW == 64 || ROW % 128 == 0 || (TRANS_A && !TRANS_B && K % 16 == 0)) &&
                      M % (64 * NWG) == 0 && N % NWG_N == 0 && NI % 8 == 0 && NI <= 256 &&
                      (TRANS_B || NI % 64 == 0) && tl_mma_bytes(TB) == ES &&
                      (ES == 2 ? TA == TB : TRANS_B && !TRANS_A),
                  "tl_wgmma_ss: rows of 64 bytes or whole 128-byte panels, M a multiple of "
                  "64 * NWG, N / NWG_N <= 256; fp8 A and B are K-major");
    constexpr int MT = M / NWG / 64, R = MT * NI / 2;
    constexpr int SW = ROW < 128 ? ROW : 128;    /* a row's bytes in one (swizzled) panel */
    constexpr uint64_t MODE = SW == 128 ? 1 : 2; /* 128B or 64B swizzle */
    const int wm = tid / 128 / NWG_N, wn = tid / 128 % NWG_N;
    /* MN-major A: warpgroup wm's rows start at panel wm * M / NWG / 64, K * 128 bytes each;
     * K-major B: wn's rows at wn * NI rows of SW bytes in each panel; MN-major B: at panel
     * wn * NI / 64 */
    const uint64_t da = TRANS_A ? tl_wgmma_desc(tl_smem_addr((const char *)A +
                                                             wm * (M / NWG) / 64 * K * 128),
                                                K * 128, 1024, 1)
                                : tl_wgmma_desc(tl_smem_addr((const char *)A + wm * (M / NWG) * SW),
                                                16, 8 * SW, MODE),
                   db = TRANS_B
                            ? tl_wgmma_desc(tl_smem_addr((const char *)B + wn * NI * SW), 16,
                                            8 * SW, MODE)
                            : tl_wgmma_desc(tl_smem_addr((const char *)B + wn * NI / 64 * K * 128),
                                            K * 128, 1024, 1);
#pragma unroll
    for (int i = 0; i < R; i++) tl_wgmma_fence_operand(C[i]);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int s = 0; s < ROW / 32; s++) {
        /* one instruction's K (k16 16-bit, k32 fp8) is 32 bytes of the row: A and K-major
         * B advance 32 bytes inside a panel, then to the next panel (M or N rows of 128
         * bytes on); MN-major B: two 8-row atoms (2 * 1024 bytes) per k16, panels K * 128
         * bytes apart */
        const int KOFF = 32 * s % SW, PANEL = 32 * s / SW;
        const uint64_t dbs = tl_wgmma_desc_at(db, TRANS_B ? PANEL * N * SW + KOFF : 2048 * s);
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
            tl_wgmma_one<NI, TA, TB, !TRANS_B, TRANS_A>(
                C + mi * (NI / 2),
                tl_wgmma_desc_at(da, TRANS_A ? mi * K * 128 + 2048 * s
                                             : PANEL * M * SW + mi * 64 * SW + KOFF),
                dbs);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    if constexpr (WAIT >= 0) tl_wgmma_wait<WAIT>(); /* -1: the program waits (T.wait_wgmma) */
#pragma unroll
    for (int i = 0; i < R; i++) tl_wgmma_fence_operand(C[i]);
}

/* tl_wgmma_ss with A (16-bit, M x K) in registers, laid out as the accumulator of an
 * M x K wgmma over NWG warpgroups (the element order of C above, with K for N, the same
 * in each of the NWG_N warpgroups of a row wm): the thread's 16-bit values
 * 8 s .. 8 s + 7 of m64 slice mi (from mi * K / 2) are the a0..a3 words of k-step s, so
 * an accumulator converted in place feeds the next gemm (P = softmax(Q K^T), then P V).
 * B as in tl_wgmma_ss; K-major B needs rows of 64 bytes or whole 128-byte panels,
 * MN-major B any K that is a multiple of 16. The registers of A must not change until the
 * wgmma is waited for. */
template <int M, int N, int K, int NWG, bool TRANS_B, int T, int WAIT, int NWG_N = 1>
TL_DEV void tl_wgmma_rs(const void *A, const void *B, float *C, int tid) {
    constexpr int NI = N / NWG_N; /* a warpgroup's columns, as in tl_wgmma_ss */
    static_assert(tl_mma_bytes(T) == 2 && K % 16 == 0 && M % (64 * NWG) == 0 && N % NWG_N == 0 &&
                      (NI == 16 || NI == 32 || NI == 64 || NI == 128 || NI == 192 || NI == 256) &&
                      (TRANS_B ? K * 2 == 64 || K * 2 % 128 == 0 : NI % 64 == 0),
                  "tl_wgmma_rs: 16-bit, K a multiple of 16, M of 64 * NWG, N / NWG_N 16, 32, 64, "
                  "128, 192 or 256; K-major B rows of 64 bytes or whole 128-byte panels, "
                  "MN-major B in 64-column panels");
    constexpr int MT = M / NWG / 64, R = MT * NI / 2, ROW = 2 * K, SW = ROW < 128 ? ROW : 128;
    constexpr uint64_t MODE = SW == 128 ? 1 : 2;
    const uint32_t *a = (const uint32_t *)A;
    const int wn = tid / 128 % NWG_N;
    const uint64_t db = TRANS_B
                            ? tl_wgmma_desc(tl_smem_addr((const char *)B + wn * NI * SW), 16,
                                            8 * SW, MODE)
                            : tl_wgmma_desc(tl_smem_addr((const char *)B + wn * NI / 64 * K * 128),
                                            K * 128, 1024, 1);
#pragma unroll
    for (int i = 0; i < R; i++) tl_wgmma_fence_operand(C[i]);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int s = 0; s < K / 16; s++) {
        const uint64_t dbs = tl_wgmma_desc_at(db, TRANS_B ? 32 * s / SW * N * SW + 32 * s % SW
                                                          : 2048 * s);
#pragma unroll
        for (int mi = 0; mi < MT; mi++) {
            const uint32_t *w = a + mi * K / 4 + 4 * s;
#define TL_WGMMA_RS(n)                                                                             \
    if constexpr (NI == n) {                                                                       \
        if constexpr (T == TL_MMA_BF16)                                                            \
            TRANS_B ? tl_wgmma_rs_##n##_bf16_0(C + mi * (NI / 2), w, dbs)                          \
                    : tl_wgmma_rs_##n##_bf16_1(C + mi * (NI / 2), w, dbs);                         \
        else                                                                                       \
            TRANS_B ? tl_wgmma_rs_##n##_f16_0(C + mi * (NI / 2), w, dbs)                           \
                    : tl_wgmma_rs_##n##_f16_1(C + mi * (NI / 2), w, dbs);                          \
    }
            TL_WGMMA_RS(16)
            TL_WGMMA_RS(32) TL_WGMMA_RS(64) TL_WGMMA_RS(128) TL_WGMMA_RS(192) TL_WGMMA_RS(256)
#undef TL_WGMMA_RS
        }
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    if constexpr (WAIT >= 0) tl_wgmma_wait<WAIT>();
#pragma unroll
    for (int i = 0; i < R; i++) tl_wgmma_fence_operand(C[i]);
}

/* ---- TMA (sm_90) ------------------------------------------------------------------------
 * A copy's bytes are expected on an mbarrier (with an arrival, or without), then its
 * boxes complete them there. */
TL_DEV void tl_mbar_arrive_expect_tx(uint64_t *bar, int bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                     tl_smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
}

/* Expects `bytes` more transaction bytes in the current phase, without arriving. */
TL_DEV void tl_mbar_expect_tx(uint64_t *bar, int bytes) {
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(
                     tl_smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
}

/* One box of map at coordinates c (innermost first) into shared memory at smem (128-byte
 * aligned), zeros outside the tensor; completes its bytes on bar. With MC (multicast), at
 * smem's offset in every block of the cluster in mask, completing on bar's twin there. */
template <bool MC, class... C>
TL_DEV void tl_tma_box(const TlTensorMap *map, void *smem, uint64_t *bar, uint16_t mask, C... c) {
    constexpr int N = sizeof...(C);
    static_assert(N >= 1 && N <= 5, "tl_tma_load: 1 to 5 coordinates");
    const int x[5] = {(int)c...};
    const uint64_t m = (uint64_t)map;
    const uint32_t d = tl_smem_addr(smem), b = tl_smem_addr(bar);
#define TL_TMA(n, mc, tail, coords, ...)                                                           \
    asm volatile("cp.async.bulk.tensor." #n "d.shared::cluster.global.mbarrier::complete_tx"       \
                 "::bytes" mc " [%0], [%1, {" coords "}], [%2]" tail ";\n" ::"r"(d),               \
                 "l"(m), "r"(b), "h"(mask), __VA_ARGS__                                            \
                 : "memory")
#define TL_TMA_RANKS(mc, tail)                                                                     \
    if constexpr (N == 1) TL_TMA(1, mc, tail, "%4", "r"(x[0]));                                    \
    else if constexpr (N == 2) TL_TMA(2, mc, tail, "%4, %5", "r"(x[0]), "r"(x[1]));                \
    else if constexpr (N == 3) TL_TMA(3, mc, tail, "%4, %5, %6", "r"(x[0]), "r"(x[1]), "r"(x[2])); \
    else if constexpr (N == 4)                                                                     \
        TL_TMA(4, mc, tail, "%4, %5, %6, %7", "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]));         \
    else                                                                                           \
        TL_TMA(5, mc, tail, "%4, %5, %6, %7, %8", "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]),      \
               "r"(x[4]))
    if constexpr (MC) {
        TL_TMA_RANKS(".multicast::cluster", ", %3");
    } else {
        TL_TMA_RANKS("", "");
    }
#undef TL_TMA_RANKS
#undef TL_TMA
}
template <class... C>
TL_DEV void tl_tma_load(const TlTensorMap *map, void *smem, uint64_t *bar, C... c) {
    tl_tma_box<false>(map, smem, bar, 0, c...);
}

/* TMA stores, by one thread: one box of map at coordinates c (innermost first) from
 * shared memory at smem (laid out with the map's swizzle; the writers fenced it for the
 * async proxy, tl_fence_proxy_async, before a barrier); the part outside the tensor is
 * not written. The thread's stores since its last commit form a bulk group;
 * tl_tma_store_wait_read returns once all of its groups have read their shared memory,
 * which may then be written again (and must not be released before: kernel exit). */
template <class... C> TL_DEV void tl_tma_store(const TlTensorMap *map, const void *smem, C... c) {
    constexpr int N = sizeof...(C);
    static_assert(N >= 1 && N <= 5, "tl_tma_store: 1 to 5 coordinates");
    const int x[5] = {(int)c...};
    const uint64_t m = (uint64_t)map;
    const uint32_t s = tl_smem_addr(smem);
#define TL_TMA_ST(n, coords, ...)                                                                  \
    asm volatile("cp.async.bulk.tensor." #n "d.global.shared::cta.bulk_group [%0, {" coords        \
                 "}], [%1];\n" ::"l"(m),                                                           \
                 "r"(s), __VA_ARGS__                                                               \
                 : "memory")
    if constexpr (N == 1) TL_TMA_ST(1, "%2", "r"(x[0]));
    else if constexpr (N == 2) TL_TMA_ST(2, "%2, %3", "r"(x[0]), "r"(x[1]));
    else if constexpr (N == 3) TL_TMA_ST(3, "%2, %3, %4", "r"(x[0]), "r"(x[1]), "r"(x[2]));
    else if constexpr (N == 4)
        TL_TMA_ST(4, "%2, %3, %4, %5", "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]));
    else TL_TMA_ST(5, "%2, %3, %4, %5, %6", "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(x[4]));
#undef TL_TMA_ST
}
TL_DEV void tl_tma_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
TL_DEV void tl_tma_store_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

/* Register budget of the calling warp group from here on (warp specialization). */
template <int N> TL_DEV void tl_setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> TL_DEV void tl_setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

/* ---- clusters (sm_90, __cluster_dims__) -----------------------------------------------------
 * The blocks of a cluster run at once, each with its own shared memory at the same
 * offsets; a block reaches its peers' mbarriers through the cluster window (mapa). */
TL_DEV unsigned tl_cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

/* Every thread of every block of the cluster (converged or not): what each wrote before
 * (mbarrier inits included) is visible to all after; no block leaves while a peer may
 * still signal it. */
TL_DEV void tl_cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

/* T.cluster_arrive(_relaxed) / T.cluster_wait: tl_cluster_sync in two halves. A release
 * arrive orders what the thread wrote before it ahead of every peer's acquire wait; a
 * relaxed one orders nothing. */
TL_DEV void tl_cluster_arrive() { asm volatile("barrier.cluster.arrive.release;\n" ::: "memory"); }
TL_DEV void tl_cluster_arrive_relaxed() {
    asm volatile("barrier.cluster.arrive.relaxed;\n" ::: "memory");
}
TL_DEV void tl_cluster_wait() { asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory"); }

/* Arrives on bar's twin in block `rank` of the cluster (this block's included). Relaxed:
 * it signals that this block's wgmma reads of a stage are done (a wgmma wait retired them
 * before), which orders no memory the peer reads. A release arrive (.release.cluster, or
 * the default) makes ptxas put a MEMBAR.ALL.GPU before each one. */
TL_DEV void tl_mbar_arrive_cluster(uint64_t *bar, unsigned rank) {
    asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\n"
                 "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [r];\n}\n" ::"r"(
                     tl_smem_addr(bar)),
                 "r"(rank)
                 : "memory");
}

/* tl_mbar_wait acquiring at cluster scope what the cluster's blocks released with their
 * arrivals (a cluster barrier's wait). */
TL_DEV void tl_mbar_wait_cluster(uint64_t *bar, int parity) {
    const uint32_t a = tl_smem_addr(bar);
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(a), "r"(parity)
                     : "memory");
}

/* Arrives on bar's twin in block `rank` of the cluster, releasing this thread's writes at
 * cluster scope (T.ptx_arrive_cluster_barrier). */
TL_DEV void tl_mbar_arrive_peer(uint64_t *bar, unsigned rank) {
    asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\n"
                 "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];\n}\n" ::"r"(
                     tl_smem_addr(bar)),
                 "r"(rank)
                 : "memory");
}

/* tl_tma_load into every block of the cluster in mask (tl_tma_box). */
template <class... C>
TL_DEV void tl_tma_load_multicast(const TlTensorMap *map, void *smem, uint64_t *bar, uint16_t mask,
                                  C... c) {
    tl_tma_box<true>(map, smem, bar, mask, c...);
}
#endif

/* T.sync_grid: every thread of every block of the grid, which a cooperative launch keeps
 * resident. bar: two words of a zeroed buffer of the launch (STMT_KERNEL.grid_bar), the
 * blocks arrived in this phase and the phase. Thread 0 of a block reads the phase before
 * it arrives (the phase cannot end before its arrival); the last to arrive zeroes the
 * count, then moves the phase on; the others wait for that. The fences around make the
 * block's writes before the barrier (ordered by the first __syncthreads) visible to
 * every block after it. */
TL_DEV void tl_grid_sync(unsigned *bar) {
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        const unsigned n = gridDim.x * gridDim.y * gridDim.z;
        volatile unsigned *phase = bar + 1;
        const unsigned mine = *phase;
        __threadfence();
        if (atomicAdd(bar, 1u) == n - 1) {
            atomicExch(bar, 0u);
            __threadfence();
            atomicAdd(bar + 1, 1u);
        } else {
            while (*phase == mine) asm volatile("nanosleep.u32 32;\n" ::: "memory");
        }
        __threadfence();
    }
    __syncthreads();
}

/* Tells the compiler that c holds. */
TL_DEV void tl_assume(bool c) { __builtin_assume(c); }

/* ---- split-K: partial results (the workspace of tl_sk_part) -----------------------------
 * N accumulator registers of each of the NT consumer threads, as float4s interleaved by
 * thread (coalesced); through L2 (.cg), where the other block reads them. */
template <int N, int NT> TL_DEV void tl_sk_put(float *part, const float *acc, int tid) {
    static_assert(N % 4 == 0, "tl_sk_put: accumulators in whole float4s");
#pragma unroll
    for (int r = 0; r < N / 4; r++)
        __stcg((float4 *)part + r * NT + tid,
               make_float4(acc[4 * r], acc[4 * r + 1], acc[4 * r + 2], acc[4 * r + 3]));
}
template <int N, int NT> TL_DEV void tl_sk_add(const float *part, float *acc, int tid) {
#pragma unroll
    for (int r = 0; r < N / 4; r++) {
        const float4 v = __ldcg((const float4 *)part + r * NT + tid);
        acc[4 * r] += v.x, acc[4 * r + 1] += v.y, acc[4 * r + 2] += v.z, acc[4 * r + 3] += v.w;
    }
}
/* After every consumer thread's tl_sk_put: the partial result is there (a release at GPU
 * scope, cumulative over the barrier: the block's stores before it are visible to whoever
 * acquires the flag). */
template <int NT> TL_DEV void tl_sk_signal(unsigned *flag, int tid) {
    tl_bar_sync<1, NT>();
    if (tid == 0)
        asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(1u) : "memory");
}
/* Before any consumer thread's tl_sk_add: waits for the flag and clears it for the next
 * launch (each flag is set once and read once per launch). */
template <int NT> TL_DEV void tl_sk_wait(unsigned *flag, int tid) {
    if (tid == 0) {
        unsigned v = 0;
        for (;;) {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
            if (v) break;
            __nanosleep(64);
        }
        *(volatile unsigned *)flag = 0u;
    }
    tl_bar_sync<1, NT>();
}

/* ---- warp shuffles (T.shfl_*, T.warp_reduce_*): the whole warp, width 32 ------------ */
#define TL_SHFL(T)                                                                                 \
    TL_DEV T tl_shfl_xor(T v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }                \
    TL_DEV T tl_shfl_down(T v, int d) { return __shfl_down_sync(0xffffffffu, v, (unsigned)d); }    \
    TL_DEV T tl_shfl_up(T v, int d) { return __shfl_up_sync(0xffffffffu, v, (unsigned)d); }        \
    TL_DEV T tl_shfl_sync(T v, int l) { return __shfl_sync(0xffffffffu, v, l); }
TL_SHFL(int)
TL_SHFL(unsigned)
TL_SHFL(long)
TL_SHFL(unsigned long)
TL_SHFL(long long)
TL_SHFL(unsigned long long)
TL_SHFL(float)
TL_SHFL(double)
#undef TL_SHFL

/* ---- warp votes (T.ballot, T.any_sync, ...): the whole warp; 0 / 1 where CUDA says
 * "non-zero" (the C target's values) ------------------------------------------------- */
TL_DEV unsigned long long tl_ballot(bool p) { return __ballot_sync(0xffffffffu, p); }
TL_DEV int tl_any_sync(bool p) { return __any_sync(0xffffffffu, p) != 0; }
TL_DEV int tl_all_sync(bool p) { return __all_sync(0xffffffffu, p) != 0; }
/* whether this is the lowest lane whose p is set (elect.sync for p true everywhere) */
TL_DEV bool tl_elect_one(bool p) {
    unsigned m = __ballot_sync(0xffffffffu, p), lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return m && (m & (0u - m)) == 1u << lane;
}
#define TL_MATCH(T)                                                                                \
    TL_DEV unsigned tl_match_any_sync(T v) { return __match_any_sync(0xffffffffu, v); }            \
    TL_DEV unsigned tl_match_all_sync(T v) {                                                       \
        int pred;                                                                                  \
        return __match_all_sync(0xffffffffu, v, &pred);                                            \
    }
TL_MATCH(unsigned)
TL_MATCH(unsigned long)
TL_MATCH(unsigned long long)
#undef TL_MATCH

/* ---- block votes (T.syncthreads_and / _or / _count): a barrier of the whole block, or
 * (tl_bar_vote) of named barrier ID's N threads (a T.ws region, a warp-specialized
 * kernel's consumers): kind 0 and, 1 or, 2 count ------------------------------------------ */
TL_DEV int tl_syncthreads_and(bool p) { return __syncthreads_and(p) != 0; }
TL_DEV int tl_syncthreads_or(bool p) { return __syncthreads_or(p) != 0; }
TL_DEV int tl_syncthreads_count(bool p) { return __syncthreads_count(p); }
template <int KIND, int ID, int N> TL_DEV int tl_bar_vote(bool p) {
    unsigned r;
    if constexpr (KIND == 2)
        asm volatile("{\n .reg .pred q;\n setp.ne.u32 q, %1, 0;\n"
                     " bar.red.popc.u32 %0, %2, %3, q;\n}\n"
                     : "=r"(r)
                     : "r"((unsigned)p), "n"(ID), "n"(N)
                     : "memory");
    else if constexpr (KIND == 1)
        asm volatile("{\n .reg .pred q, d;\n setp.ne.u32 q, %1, 0;\n"
                     " bar.red.or.pred d, %2, %3, q;\n selp.u32 %0, 1, 0, d;\n}\n"
                     : "=r"(r)
                     : "r"((unsigned)p), "n"(ID), "n"(N)
                     : "memory");
    else
        asm volatile("{\n .reg .pred q, d;\n setp.ne.u32 q, %1, 0;\n"
                     " bar.red.and.pred d, %2, %3, q;\n selp.u32 %0, 1, 0, d;\n}\n"
                     : "=r"(r)
                     : "r"((unsigned)p), "n"(ID), "n"(N)
                     : "memory");
    return (int)r;
}

/* ---- programmatic dependent launch (T.pdl_trigger / T.pdl_sync): griddepcontrol on
 * sm_90; without a launch that uses PDL (tilec's launches do not) both return at once,
 * and below sm_90 they are nothing ----------------------------------------------------- */
TL_DEV void tl_pdl_trigger() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
TL_DEV void tl_pdl_sync() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* ---- the program's own wgmma (T.initialize_wgmma_descriptor, T.ptx_wgmma_ss: the
 * emitter writes the wgmma itself, its accumulators as registers) ----------------------- */
TL_DEV void tl_gmma_desc_init(uint64_t *d, const void *smem, int32_t layout, int32_t lbo,
                              int32_t sbo) {
    *d = tl_gmma_desc_encode(tl_smem_addr(smem), layout, lbo, sbo);
}
/* T.warpgroup_fence_operand: n registers from p on, which no access may cross. */
TL_DEV void tl_fence_regs(float *p, int n) {
    for (int i = 0; i < n; i++) asm volatile("" : "+f"(p[i])::"memory");
}
TL_DEV void tl_fence_regs(void *p, int n) { /* words of narrower elements */
    for (int i = 0; i < n; i++) {
        uint32_t w;
        memcpy(&w, (unsigned char *)p + 4 * i, 4);
        asm volatile("" : "+r"(w)::"memory");
        memcpy((unsigned char *)p + 4 * i, &w, 4);
    }
}
/* T.ptx_cp_async_bulk: with TMA (an sm_90a lowering) cp.async.bulk, its bytes completing
 * on bar; else the thread's own copy (the lowering counts no transaction bytes). */
template <bool TMA>
TL_DEV void tl_bulk_copy(void *smem, const void *gmem, int bytes, uint64_t *bar) {
#if __CUDA_ARCH__ >= 900
    if (TMA) {
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
            "%2, [%3];\n" ::"r"(tl_smem_addr(smem)),
            "l"(gmem), "r"(bytes), "r"(tl_smem_addr(bar))
            : "memory");
        return;
    }
#endif
    memcpy(smem, gmem, bytes);
}
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
TL_DEV void tl_warpgroup_arrive() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
TL_DEV void tl_warpgroup_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
#endif

#else /* TL_CUDA_SIM: the same contracts in host C++ */
/* Asynchronous work happens at the extremes the hardware allows, so that a missing wait
 * or barrier shows as wrong data: a wgmma left in flight computes when tl_wgmma_wait
 * retires it (reading shared memory then, as late as possible); a cp.async lands either
 * when a wait retires its group (as late as possible: a read before the wait sees stale
 * data) or at once (as early as possible: it overwrites what a running wgmma still
 * reads), as the harness's sim_early_copies() says (it alternates between runs). The
 * source is read at issue. Per simulated thread (sim_thread()), in order. */
enum { TL_SIM_THREADS = 2048 }; /* of a cluster */
typedef struct TlSimCopy {
    void *dst;
    unsigned char data[16];
    int bytes, group;
} TlSimCopy;
typedef struct TlSimQueue {
    TlSimCopy *copies;
    int len, cap, group; /* group: the number of commits so far */
    void (*gemm[8])(const void *, const void *, float *, int);
    const void *ga[8], *gb[8];
    float *gc[8];
    int gtid[8], ngemm;
    int issued; /* wgmmas issued so far: entry i of gemm is number issued - ngemm + i */
} TlSimQueue;
static TlSimQueue tl_sim_queues[TL_SIM_THREADS];

TL_DEV void tl_cp_async_sim(void *smem, const void *gmem, bool valid, int bytes) {
    TlSimQueue *q = &tl_sim_queues[sim_thread()];
    if (q->len == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 64;
        q->copies = (TlSimCopy *)realloc(q->copies, sizeof(TlSimCopy) * q->cap);
    }
    TlSimCopy *c = &q->copies[q->len++];
    c->dst = smem, c->bytes = bytes, c->group = q->group;
    if (valid) memcpy(c->data, gmem, bytes);
    else memset(c->data, 0, bytes);
    if (sim_early_copies()) memcpy(smem, c->data, bytes), q->len--;
}
TL_DEV void tl_cp_async16(void *smem, const void *gmem, bool valid) {
    tl_cp_async_sim(smem, gmem, valid, 16);
}
TL_DEV void tl_cp_async8(void *smem, const void *gmem, bool valid) {
    tl_cp_async_sim(smem, gmem, valid, 8);
}
TL_DEV void tl_cp_async4(void *smem, const void *gmem, bool valid) {
    tl_cp_async_sim(smem, gmem, valid, 4);
}
TL_DEV void tl_cp_async_commit() { tl_sim_queues[sim_thread()].group++; }
/* Lands every copy of the groups older than the newest N (uncommitted ones stay). */
template <int N> TL_DEV void tl_cp_async_wait() {
    TlSimQueue *q = &tl_sim_queues[sim_thread()];
    int keep = 0;
    for (int i = 0; i < q->len; i++) {
        TlSimCopy *c = &q->copies[i];
        if (c->group < q->group - N) memcpy(c->dst, c->data, c->bytes);
        else q->copies[keep++] = *c;
    }
    q->len = keep;
}

/* ldmatrix / stmatrix: the warp's row addresses meet in a slot per thread; the result's
 * [8 i + r] is row r of matrix i, valid until the caller's closing sim_warp_sync(). */
TL_DEV uint16_t *const *tl_sim_matrix_rows(const uint16_t *p) {
    static uint16_t *rows[TL_SIM_THREADS];
    const int t = sim_thread();
    rows[t] = (uint16_t *)p;
    sim_warp_sync();
    return &rows[t - t % 32];
}

/* Lane l writes its pair of each matrix i into row l / 4 of it. */
template <int X> TL_DEV void tl_stmatrix(uint16_t *p, const unsigned *r) {
    uint16_t *const *rows = tl_sim_matrix_rows(p);
    const int lane = sim_thread() % 32;
    for (int i = 0; i < X; i++) memcpy(rows[8 * i + lane / 4] + 2 * (lane % 4), &r[i], 4);
    sim_warp_sync();
}

/* Lane l reads its pair of each matrix i from row l / 4 of it. */
template <int X> TL_DEV void tl_ldmatrix(unsigned *r, const uint16_t *p) {
    uint16_t *const *rows = tl_sim_matrix_rows(p);
    const int lane = sim_thread() % 32;
    for (int i = 0; i < X; i++) memcpy(&r[i], rows[8 * i + lane / 4] + 2 * (lane % 4), 4);
    sim_warp_sync();
}

/* TileLang's warp-level primitives: the warp's lanes post their pointers (slot k of
 * the call's operands), then lane 0 runs tl_c.h's reference for the warp while the others
 * wait at the closing sim_warp_sync(). */
TL_DEV int tl_lane_id() { return sim_thread() % 32; }

TL_DEV void *const *tl_sim_lanes(const void *p, int k) {
    static void *slots[4][TL_SIM_THREADS];
    const int t = sim_thread();
    slots[k][t] = (void *)p;
    sim_warp_sync();
    return &slots[k][t - t % 32];
}

#define TL_SIM_LDMATRIX(NAME, NUM, TRANS)                                                          \
    TL_DEV void NAME(void *dst, const void *src) {                                                 \
        void *const *d = tl_sim_lanes(dst, 0), *const *s = tl_sim_lanes(src, 1);                   \
        if (tl_lane_id() == 0) tl_ldmatrix_warp(NUM, TRANS, d, s);                                 \
        sim_warp_sync();                                                                           \
    }
TL_SIM_LDMATRIX(tl_ptx_ldmatrix_x1, 1, false)
TL_SIM_LDMATRIX(tl_ptx_ldmatrix_x2, 2, false)
TL_SIM_LDMATRIX(tl_ptx_ldmatrix_x4, 4, false)
TL_SIM_LDMATRIX(tl_ptx_ldmatrix_x1_trans, 1, true)
TL_SIM_LDMATRIX(tl_ptx_ldmatrix_x2_trans, 2, true)
TL_SIM_LDMATRIX(tl_ptx_ldmatrix_x4_trans, 4, true)
#undef TL_SIM_LDMATRIX

#define TL_SIM_MMA(SHAPE, E, C, A, B, TC, TA, TB)                                                  \
    TL_DEV void tl_ptx_mma_##SHAPE##_##C##_##A##_##B(const void *a, const void *b, void *c) {      \
        void *const *pa = tl_sim_lanes(a, 0), *const *pb = tl_sim_lanes(b, 1);                     \
        void *const *pc = tl_sim_lanes(c, 2);                                                      \
        if (tl_lane_id() == 0) tl_mma_warp(E, TA, TB, TC, pa, pb, pc);                             \
        sim_warp_sync();                                                                           \
    }
TL_SIM_MMA(m16n8k16, 2, f32, f16, f16, TL_WMMA_F32, TL_WMMA_F16, TL_WMMA_F16)
TL_SIM_MMA(m16n8k16, 2, f32, bf16, bf16, TL_WMMA_F32, TL_WMMA_BF16, TL_WMMA_BF16)
TL_SIM_MMA(m16n8k16, 2, f16, f16, f16, TL_WMMA_F16, TL_WMMA_F16, TL_WMMA_F16)
TL_SIM_MMA(m16n8k32, 4, s32, s8, s8, TL_WMMA_S32, TL_WMMA_S8, TL_WMMA_S8)
TL_SIM_MMA(m16n8k32, 4, s32, s8, u8, TL_WMMA_S32, TL_WMMA_S8, TL_WMMA_U8)
TL_SIM_MMA(m16n8k32, 4, s32, u8, s8, TL_WMMA_S32, TL_WMMA_U8, TL_WMMA_S8)
TL_SIM_MMA(m16n8k32, 4, s32, u8, u8, TL_WMMA_S32, TL_WMMA_U8, TL_WMMA_U8)
TL_SIM_MMA(m16n8k8, 1, f32, tf32, tf32, TL_WMMA_F32, TL_WMMA_TF32, TL_WMMA_TF32)
TL_SIM_MMA(m16n8k32, 4, f32, e4m3, e4m3, TL_WMMA_F32, TL_WMMA_E4M3, TL_WMMA_E4M3)
TL_SIM_MMA(m16n8k32, 4, f32, e4m3, e5m2, TL_WMMA_F32, TL_WMMA_E4M3, TL_WMMA_E5M2)
TL_SIM_MMA(m16n8k32, 4, f32, e5m2, e4m3, TL_WMMA_F32, TL_WMMA_E5M2, TL_WMMA_E4M3)
TL_SIM_MMA(m16n8k32, 4, f32, e5m2, e5m2, TL_WMMA_F32, TL_WMMA_E5M2, TL_WMMA_E5M2)
#undef TL_SIM_MMA
#define TL_SIM_MMA_SP(A, TA)                                                                       \
    TL_DEV void tl_ptx_mma_sp_m16n8k32_f32_##A##_##A(const void *a, const void *b, void *c,        \
                                                     const void *e) {                              \
        void *const *pa = tl_sim_lanes(a, 0), *const *pb = tl_sim_lanes(b, 1);                     \
        void *const *pc = tl_sim_lanes(c, 2), *const *pe = tl_sim_lanes(e, 3);                     \
        if (tl_lane_id() == 0) tl_mma_sp_warp(TA, pa, pb, pc, pe);                                 \
        sim_warp_sync();                                                                           \
    }
TL_SIM_MMA_SP(f16, TL_WMMA_F16)
TL_SIM_MMA_SP(bf16, TL_WMMA_BF16)
#undef TL_SIM_MMA_SP

#define TL_SIM_MMA_SM70(AL, BL, C, ACOL, BCOL, TC)                                                 \
    TL_DEV void tl_ptx_mma_sm70_##AL##_##BL##_##C(const void *a, const void *b, void *c) {         \
        void *const *pa = tl_sim_lanes(a, 0), *const *pb = tl_sim_lanes(b, 1);                     \
        void *const *pc = tl_sim_lanes(c, 2);                                                      \
        if (tl_lane_id() == 0) tl_mma_sm70_warp(ACOL, BCOL, TC, pa, pb, pc);                       \
        sim_warp_sync();                                                                           \
    }
TL_SIM_MMA_SM70(row, row, f16, false, false, TL_WMMA_F16)
TL_SIM_MMA_SM70(row, col, f16, false, true, TL_WMMA_F16)
TL_SIM_MMA_SM70(col, row, f16, true, false, TL_WMMA_F16)
TL_SIM_MMA_SM70(col, col, f16, true, true, TL_WMMA_F16)
TL_SIM_MMA_SM70(row, row, f32, false, false, TL_WMMA_F32)
TL_SIM_MMA_SM70(row, col, f32, false, true, TL_WMMA_F32)
TL_SIM_MMA_SM70(col, row, f32, true, false, TL_WMMA_F32)
TL_SIM_MMA_SM70(col, col, f32, true, true, TL_WMMA_F32)
#undef TL_SIM_MMA_SM70

template <bool BF16> TL_DEV float tl_gemm_in(uint16_t v) {
    return BF16 ? tl_bf16_to_f32(v) : tl_f16_to_f32(v);
}

/* C += A * B for this thread's accumulator elements, k in order; a(row, k) and b(k, col)
 * give the inputs as float (int32 for int8). */
template <int M, int N, int WARP_M, int WARP_N, int K, class FA, class FB, class ACC>
TL_DEV void tl_gemm_sim(FA a, FB b, ACC *C, int tid) {
    constexpr int MT = M / WARP_M / 16, NT = N / WARP_N / 8;
    const int lane = tid % 32, warp = tid / 32;
    const int m0 = warp / WARP_N * (M / WARP_M), n0 = warp % WARP_N * (N / WARP_N);
    for (int mi = 0; mi < MT; mi++)
        for (int ni = 0; ni < NT; ni++)
            for (int c = 0; c < 4; c++) {
                int row = m0 + mi * 16 + lane / 4 + 8 * (c / 2);
                int col = n0 + ni * 8 + 2 * (lane % 4) + c % 2;
                ACC *acc = &C[(mi * NT + ni) * 4 + c];
                for (int k = 0; k < K; k++) *acc += a(row, k) * b(k, col);
            }
}

/* With SYNC >= 0, the wait and the barrier come after every read of A and B. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_A, bool TRANS_B, bool BF16,
          int SWZ_A, int SWZ_B, int SYNC = -1>
TL_DEV void tl_gemm_ss(const uint16_t *A, const uint16_t *B, float *C, int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N>();
    tl_gemm_sim<M, N, WARP_M, WARP_N, K>(
        [A](int m, int k) { return tl_gemm_in<BF16>(A[tl_tile_off<M, K, TRANS_A, SWZ_A>(m, k)]); },
        [B](int k, int n) { return tl_gemm_in<BF16>(B[tl_tile_off<K, N, TRANS_B, SWZ_B>(k, n)]); },
        C, tid);
    if constexpr (SYNC >= 0) {
        tl_cp_async_wait<SYNC>();
        __syncthreads();
    }
}

/* The dense A the metadata describes: element k of row m is A's kept value 2 g + j when
 * k % 4 is index j of group g = k / 4, else 0 (adding the zero products keeps the sums
 * of the C target's kept-values-only loop). */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_B, bool BF16, int SWZ_A,
          int SWZ_B, int SYNC = -1>
TL_DEV void tl_gemm_sp_ss(const uint16_t *A, const unsigned char *E, const uint16_t *B, float *C,
                          int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N, 32>();
    tl_gemm_sim<M, N, WARP_M, WARP_N, K>(
        [A, E](int m, int k) {
            const int g = k / 4, bits = E[m * (K / 8) + g / 2] >> 4 * (g % 2);
            const int j = (bits & 3) == k % 4 ? 0 : (bits >> 2 & 3) == k % 4 ? 1 : -1;
            return j < 0 ? 0.0f
                         : tl_gemm_in<BF16>(A[tl_tile_off<M, K / 2, false, SWZ_A>(m, 2 * g + j)]);
        },
        [B](int k, int n) { return tl_gemm_in<BF16>(B[tl_tile_off<K, N, TRANS_B, SWZ_B>(k, n)]); },
        C, tid);
    if constexpr (SYNC >= 0) {
        tl_cp_async_wait<SYNC>();
        __syncthreads();
    }
}

template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_A, bool TRANS_B, int SWZ_A,
          int SWZ_B>
TL_DEV void tl_gemm_ss_s8(const int8_t *A, const int8_t *B, int32_t *C, int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N, 32>();
    tl_gemm_sim<M, N, WARP_M, WARP_N, K>(
        [A](int m, int k) { return (int32_t)A[tl_tile_off<M, K, TRANS_A, SWZ_A, 1>(m, k)]; },
        [B](int k, int n) { return (int32_t)B[tl_tile_off<K, N, TRANS_B, SWZ_B, 1>(k, n)]; }, C,
        tid);
}

/* The int4 of byte-packed row r (low nibble first) at k, sign-extended. */
TL_DEV int32_t tl_s4_at(const int8_t *T, int off, int k) {
    int v = ((uint8_t)T[off] >> (4 * (k % 2))) & 15;
    return v - 2 * (v & 8);
}

template <int M, int N, int KB, int WARP_M, int WARP_N, int SWZ_A, int SWZ_B>
TL_DEV void tl_gemm_ss_s4(const int8_t *A, const int8_t *B, int32_t *C, int tid) {
    tl_gemm_check<M, N, KB, WARP_M, WARP_N, 32>();
    tl_gemm_sim<M, N, WARP_M, WARP_N, 2 * KB>(
        [A](int m, int k) { return tl_s4_at(A, tl_tile_off<M, KB, false, SWZ_A, 1>(m, k / 2), k); },
        [B](int k, int n) { return tl_s4_at(B, tl_tile_off<N, KB, false, SWZ_B, 1>(n, k / 2), k); },
        C, tid);
}

/* Every thread's registers hold part of A: they meet in a block-wide copy of the tile
 * between two barriers (every thread of the block calls it, as on the device); a copy per
 * block of the cluster (or of a cooperative grid) that the harness runs at once. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_B, bool BF16, int SWZ_B>
TL_DEV void tl_gemm_rs(const uint16_t *A, const uint16_t *B, float *C, int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N>();
    static float tiles[8][M][K];
    float(*tile)[K] = tiles[sim_rank()];
    const int lane = tid % 32, m0 = tid / 32 / WARP_N * (M / WARP_M);
    for (int mi = 0; mi < M / WARP_M / 16; mi++)
        for (int ki = 0; ki < K / 8; ki++)
            for (int c = 0; c < 4; c++)
                tile[m0 + mi * 16 + lane / 4 + 8 * (c / 2)][ki * 8 + 2 * (lane % 4) + c % 2] =
                    tl_gemm_in<BF16>(A[(mi * (K / 8) + ki) * 4 + c]);
    __syncthreads();
    tl_gemm_sim<M, N, WARP_M, WARP_N, K>([tile](int m, int k) { return tile[m][k]; },
                                         [B](int k, int n) {
                                             return tl_gemm_in<BF16>(
                                                 B[tl_tile_off<K, N, TRANS_B, SWZ_B>(k, n)]);
                                         },
                                         C, tid);
    __syncthreads();
}
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_A, bool TRANS_B, int SWZ_A,
          int SWZ_B>
TL_DEV void tl_gemm_ss_tf32(const float *A, const float *B, float *C, int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N, 8>();
    tl_gemm_sim<M, N, WARP_M, WARP_N, K>(
        [A](int m, int k) {
            return tl_tf32_rna_f32(A[tl_tile_off<M, K, TRANS_A, SWZ_A, 4>(m, k)]);
        },
        [B](int k, int n) {
            return tl_tf32_rna_f32(B[tl_tile_off<K, N, TRANS_B, SWZ_B, 4>(k, n)]);
        },
        C, tid);
}

/* A's registers meet in a block-wide tile, as in tl_gemm_rs. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_B, int SWZ_B>
TL_DEV void tl_gemm_rs_tf32(const float *A, const float *B, float *C, int tid) {
    tl_gemm_check<M, N, K, WARP_M, WARP_N, 8>();
    static float tiles[8][M][K];
    float(*tile)[K] = tiles[sim_rank()];
    const int lane = tid % 32, m0 = tid / 32 / WARP_N * (M / WARP_M);
    for (int mi = 0; mi < M / WARP_M / 16; mi++)
        for (int ki = 0; ki < K / 8; ki++)
            for (int i = 0; i < 4; i++)
                tile[m0 + mi * 16 + lane / 4 + 8 * (i % 2)][ki * 8 + lane % 4 + 4 * (i / 2)] =
                    tl_tf32_rna_f32(A[(mi * (K / 8) + ki) * 4 + i]);
    __syncthreads();
    tl_gemm_sim<M, N, WARP_M, WARP_N, K>([tile](int m, int k) { return tile[m][k]; },
                                         [B](int k, int n) {
                                             return tl_tf32_rna_f32(
                                                 B[tl_tile_off<K, N, TRANS_B, SWZ_B, 4>(k, n)]);
                                         },
                                         C, tid);
    __syncthreads();
}
/* tl_wgmma_ss's contract: element (row, col) of the accumulator as its layout says, the
 * operands read through their swizzled (and paneled) shared layouts. */
TL_DEV void tl_wgmma_fence_operand(float &) {}
TL_DEV void tl_wgmma_fence_operand(uint32_t &) {}

/* Runs q's wgmmas numbered below `done`. */
TL_DEV void tl_wgmma_retire(TlSimQueue *q, int done) {
    int run = q->ngemm - (q->issued - done);
    for (int i = 0; i < q->ngemm; i++) {
        if (i < run) q->gemm[i](q->ga[i], q->gb[i], q->gc[i], q->gtid[i]);
        else {
            int j = i - (run > 0 ? run : 0);
            q->gemm[j] = q->gemm[i], q->ga[j] = q->ga[i], q->gb[j] = q->gb[i];
            q->gc[j] = q->gc[i], q->gtid[j] = q->gtid[i];
        }
    }
    if (run > 0) q->ngemm -= run;
}

/* Runs the wgmmas left in flight but the newest N. A wgmma is one operation of its warp
 * group: it completes, for all 128 threads, once all of them have issued it (so one
 * thread past the wait may release the operands' stage for the whole group). */
template <int N> TL_DEV void tl_wgmma_wait() {
    const int t = sim_thread(), wg = t - t % 128, done = tl_sim_queues[t].issued - N;
    for (int u = wg; u < wg + 128; u++)
        while (tl_sim_queues[u].issued < done) sim_yield();
    for (int u = wg; u < wg + 128; u++) tl_wgmma_retire(&tl_sim_queues[u], done);
    sim_progress(); /* (a round of threads that only pass waits is not a deadlock) */
}

/* Element i of a wgmma operand of type T (TL_MMA_*), as float. */
template <int T> TL_DEV float tl_mma_in(const void *p, int i) {
    if constexpr (T == TL_MMA_E4M3) return tl_e4m3_to_f32(((const uint8_t *)p)[i]);
    else if constexpr (T == TL_MMA_E5M2) return tl_e5m2_to_f32(((const uint8_t *)p)[i]);
    else return tl_gemm_in<T == TL_MMA_BF16>(((const uint16_t *)p)[i]);
}

template <int M, int N, int K, int NWG, bool TRANS_B, int TA, int TB, bool TRANS_A, int NWG_N>
TL_DEV void tl_wgmma_sim(const void *A, const void *B, float *C, int tid) {
    constexpr int MT = M / NWG / 64, ES = tl_mma_bytes(TA), NI = N / NWG_N;
    const int wm = tid / 128 / NWG_N, wn = tid / 128 % NWG_N, q = tid / 32 % 4, lane = tid % 32;
    for (int mi = 0; mi < MT; mi++)
        for (int ni = 0; ni < NI / 8; ni++)
            for (int c = 0; c < 4; c++) {
                int row = wm * (M / NWG) + mi * 64 + 16 * q + lane / 4 + 8 * (c / 2);
                int col = wn * NI + ni * 8 + 2 * (lane % 4) + c % 2;
                float *acc = &C[(mi * NI / 8 + ni) * 4 + c];
                for (int k = 0; k < K; k++) {
                    float b;
                    if constexpr (TRANS_B) b = tl_mma_in<TB>(B, tl_kmajor_off<N, K, ES>(col, k));
                    else b = tl_mma_in<TB>(B, tl_panel_swizzle<K, N>(k * N + col));
                    int a = TRANS_A ? tl_panel_swizzle<K, M>(k * M + row)
                                    : tl_kmajor_off<M, K, ES>(row, k);
                    *acc += tl_mma_in<TA>(A, a) * b;
                }
            }
}

/* Queued, then run by tl_wgmma_wait<WAIT> (at once when WAIT is 0). */
template <int M, int N, int K, int NWG, bool TRANS_B, int TA, int TB, int WAIT,
          bool TRANS_A = false, int NWG_N = 1>
TL_DEV void tl_wgmma_ss(const void *A, const void *B, float *C, int tid) {
    static_assert((K * tl_mma_bytes(TA) == 64 || K * tl_mma_bytes(TA) % 128 == 0 ||
                   (TRANS_A && !TRANS_B && K % 16 == 0)) &&
                      N % NWG_N == 0 && (TRANS_B || N / NWG_N % 64 == 0) &&
                      tl_mma_bytes(TB) == tl_mma_bytes(TA) &&
                      (tl_mma_bytes(TA) == 2 ? TA == TB : TRANS_B && !TRANS_A) &&
                      (!TRANS_A || M % 64 == 0),
                  "tl_wgmma_ss: rows of 64 bytes or whole 128-byte panels; fp8 A and B are "
                  "K-major");
    TlSimQueue *q = &tl_sim_queues[sim_thread()];
    int i = q->ngemm++;
    q->issued++;
    q->gemm[i] = tl_wgmma_sim<M, N, K, NWG, TRANS_B, TA, TB, TRANS_A, NWG_N>;
    q->ga[i] = A, q->gb[i] = B, q->gc[i] = C, q->gtid[i] = tid;
    if constexpr (WAIT >= 0) tl_wgmma_wait<WAIT>();
}

/* tl_wgmma_rs: at issue each thread leaves the address of its A registers in the slot of
 * its issue number (the warpgroup's threads issue the same sequence); the wgmma reads
 * them all when it runs (as late as the hardware may: a program that changes A before
 * the wait gets wrong results), building the warpgroup's M / NWG x K tile. */
static const uint16_t *tl_sim_rs_a[TL_SIM_THREADS][8];

template <int M, int N, int K, int NWG, bool TRANS_B, int T, int NWG_N>
TL_DEV void tl_wgmma_rs_sim(const void *slot, const void *B, float *C, int tid) {
    constexpr int MT = M / NWG / 64, NI = N / NWG_N;
    const int wg0 = sim_thread() - sim_thread() % 128, n = (int)(uintptr_t)slot;
    static float tile[M][K];
    for (int u = 0; u < 128; u++) /* the accumulator layout, for an M / NWG x K tile */
        for (int mi = 0; mi < MT; mi++)
            for (int ki = 0; ki < K / 8; ki++)
                for (int c = 0; c < 4; c++)
                    tile[mi * 64 + 16 * (u / 32) + u % 32 / 4 + 8 * (c / 2)]
                        [ki * 8 + 2 * (u % 4) + c % 2] = tl_mma_in<T>(tl_sim_rs_a[wg0 + u][n],
                                                                      (mi * K / 8 + ki) * 4 + c);
    const int q = tid / 32 % 4, lane = tid % 32, wn = tid / 128 % NWG_N;
    for (int mi = 0; mi < MT; mi++)
        for (int ni = 0; ni < NI / 8; ni++)
            for (int c = 0; c < 4; c++) {
                int row = mi * 64 + 16 * q + lane / 4 + 8 * (c / 2);
                int col = wn * NI + ni * 8 + 2 * (lane % 4) + c % 2;
                float *acc = &C[(mi * NI / 8 + ni) * 4 + c];
                for (int k = 0; k < K; k++) {
                    float b;
                    if constexpr (TRANS_B) b = tl_mma_in<T>(B, tl_kmajor_off<N, K, 2>(col, k));
                    else b = tl_mma_in<T>(B, tl_panel_swizzle<K, N>(k * N + col));
                    *acc += tile[row][k] * b;
                }
            }
}

template <int M, int N, int K, int NWG, bool TRANS_B, int T, int WAIT, int NWG_N = 1>
TL_DEV void tl_wgmma_rs(const void *A, const void *B, float *C, int tid) {
    static_assert(tl_mma_bytes(T) == 2 && K % 16 == 0 && N % NWG_N == 0 &&
                      (TRANS_B ? K == 32 || K % 64 == 0 : N / NWG_N % 64 == 0),
                  "tl_wgmma_rs: 16-bit; K-major B rows of 64 bytes or whole 128-byte panels");
    TlSimQueue *q = &tl_sim_queues[sim_thread()];
    int i = q->ngemm++, n = q->issued++ % 8;
    tl_sim_rs_a[sim_thread()][n] = (const uint16_t *)A;
    q->gemm[i] = tl_wgmma_rs_sim<M, N, K, NWG, TRANS_B, T, NWG_N>;
    q->ga[i] = (const void *)(uintptr_t)n, q->gb[i] = B, q->gc[i] = C, q->gtid[i] = tid;
    if constexpr (WAIT >= 0) tl_wgmma_wait<WAIT>();
}

TL_DEV void tl_assume(bool c) {
    if (!c) __trap();
}
/* Split-K partial results: the same layout; a waiting thread yields (the harness runs a
 * split-K kernel's blocks one after another from the last, so a flag a block waits for
 * is set already). */
template <int N, int NT> TL_DEV void tl_sk_put(float *part, const float *acc, int tid) {
    for (int r = 0; r < N; r++) part[(r / 4 * NT + tid) * 4 + r % 4] = acc[r];
}
template <int N, int NT> TL_DEV void tl_sk_add(const float *part, float *acc, int tid) {
    for (int r = 0; r < N; r++) acc[r] += part[(r / 4 * NT + tid) * 4 + r % 4];
}
template <int NT> TL_DEV void tl_sk_signal(unsigned *flag, int tid) {
    sim_bar(1, NT);
    if (tid == 0) *flag = 1u, sim_progress();
}
template <int NT> TL_DEV void tl_sk_wait(unsigned *flag, int tid) {
    if (tid == 0) {
        while (!*flag) sim_yield();
        *flag = 0u;
    }
    sim_bar(1, NT);
}

/* Named barriers of the harness (sim_bar: id, thread count). */
template <int ID, int N> TL_DEV void tl_bar_sync() { sim_bar(ID, N); }
template <int ID, int N> TL_DEV void tl_bar_arrive() { sim_bar_arrive(ID, N); }
/* The warp groups' turns (sim_bar_arrive: an arrival that does not wait). */
TL_DEV void tl_pingpong_start(int tid) {
    if (tid >= 128) sim_bar_arrive(2, 256);
}
TL_DEV void tl_pingpong_wait(int tid) { sim_bar(2 + tid / 128, 256); }
TL_DEV void tl_pingpong_pass(int tid) { sim_bar_arrive(3 - tid / 128, 256); }
TL_DEV void tl_pingpong_end(int tid) {
    if (tid < 128) sim_bar(2, 256);
}

/* An mbarrier word: pending arrivals (bits 0..10), count (11..21), phase (22), expected
 * transaction bytes (32..63, signed). A TMA box lands when issued (early copies) or when
 * a thread waits on its barrier (late), writing shared memory with the hardware's swizzle
 * (bits 4.. of the byte address XORed with bits 7..: the 32B, 64B and 128B modes). */
typedef struct TlSimBox {
    unsigned char *dst;
    unsigned char *data;
    int bytes, swizzle;
    uint64_t *bar;
} TlSimBox;
static TlSimBox *tl_sim_boxes;
static int tl_sim_nbox, tl_sim_capbox;

TL_DEV void tl_mbar_set(uint64_t *bar, int pending, int count, int phase, int tx) {
    *bar = (uint64_t)(uint32_t)tx << 32 | (uint64_t)phase << 22 | (uint64_t)count << 11 |
           (uint64_t)pending;
}
TL_DEV int tl_mbar_field(const uint64_t *bar, int shift, int bits) {
    return (int)(*bar >> shift & ((1ull << bits) - 1));
}
/* Arrivals and transaction bytes: the phase completes when both reach zero. */
TL_DEV void tl_mbar_update(uint64_t *bar, int arrivals, int tx) {
    int pending = tl_mbar_field(bar, 0, 11) - arrivals, count = tl_mbar_field(bar, 11, 11);
    int phase = tl_mbar_field(bar, 22, 1), bytes = (int)(int32_t)(*bar >> 32) + tx;
    if (pending < 0) {
        fprintf(stderr, "mbarrier: more arrivals than its count %d\n", count);
        __trap();
    }
    if (!pending && !bytes) pending = count, phase ^= 1;
    tl_mbar_set(bar, pending, count, phase, bytes);
    sim_progress();
}
TL_DEV void tl_mbar_init(uint64_t *bar, int count) { tl_mbar_set(bar, count, count, 0, 0); }
TL_DEV void tl_fence_mbar_init() {}
TL_DEV void tl_mbar_arrive(uint64_t *bar) { tl_mbar_update(bar, 1, 0); }
TL_DEV void tl_mbar_arrive_expect_tx(uint64_t *bar, int bytes) { tl_mbar_update(bar, 1, bytes); }
TL_DEV void tl_mbar_expect_tx(uint64_t *bar, int bytes) { tl_mbar_update(bar, 0, bytes); }
/* The thread's cp.asyncs land now (committed or not), then it arrives: NOINC, one
 * arrival of the count; else the raise and the arrival cancel. */
template <bool NOINC> TL_DEV void tl_mbar_cp_async_arrive(uint64_t *bar) {
    TlSimQueue *q = &tl_sim_queues[sim_thread()];
    for (int i = 0; i < q->len; i++)
        memcpy(q->copies[i].dst, q->copies[i].data, q->copies[i].bytes);
    q->len = 0;
    if (NOINC) tl_mbar_update(bar, 1, 0);
    else sim_progress();
}

TL_DEV void tl_sim_land(TlSimBox *b) {
    const long mask = b->swizzle ? b->swizzle / 16 - 1 : 0;
    for (int o = 0; o < b->bytes; o += 16) {
        uintptr_t a = (uintptr_t)b->dst + (uintptr_t)o; /* shared memory is 1024-aligned */
        memcpy((unsigned char *)(a ^ ((a >> 7 & mask) << 4)), b->data + o, 16);
    }
    free(b->data);
    tl_mbar_update(b->bar, 0, -b->bytes);
}
/* Lands the boxes that complete on bar (all of them when bar is NULL). */
TL_DEV void tl_sim_land_boxes(uint64_t *bar) {
    int keep = 0;
    for (int i = 0; i < tl_sim_nbox; i++) {
        TlSimBox b = tl_sim_boxes[i];
        if (!bar || b.bar == bar) tl_sim_land(&b);
        else tl_sim_boxes[keep++] = b;
    }
    tl_sim_nbox = keep;
}
TL_DEV void tl_mbar_wait(uint64_t *bar, int parity) {
    for (;;) {
        tl_sim_land_boxes(bar);
        if (tl_mbar_field(bar, 22, 1) != parity) return;
        sim_yield();
    }
}

/* Reads the box at issue (zeros outside the tensor). */
template <class... C>
TL_DEV void tl_tma_load(const TlTensorMap *map, void *smem, uint64_t *bar, C... c) {
    const int n = (int)sizeof...(C), x[5] = {(int)c...};
    int total = map->elem_bytes, at[5] = {0};
    for (int i = 0; i < n; i++) total *= map->box[i];
    TlSimBox b = {(unsigned char *)smem, (unsigned char *)malloc(total), total, map->swizzle, bar};
    for (int o = 0; o < total; o += map->elem_bytes) {
        bool in = true;
        long long off = 0;
        for (int i = 0; i < n; i++) {
            long long v = (long long)x[i] + at[i];
            in = in && v >= 0 && v < map->dims[i];
            off += v * (i ? map->strides[i - 1] : map->elem_bytes);
        }
        if (in) memcpy(b.data + o, map->base + off, map->elem_bytes);
        else memset(b.data + o, 0, map->elem_bytes);
        for (int i = 0; i < n && ++at[i] == map->box[i]; i++) at[i] = 0;
    }
    if (tl_sim_nbox == tl_sim_capbox) {
        tl_sim_capbox = tl_sim_capbox ? 2 * tl_sim_capbox : 64;
        tl_sim_boxes = (TlSimBox *)realloc(tl_sim_boxes, sizeof(TlSimBox) * tl_sim_capbox);
    }
    if (sim_early_copies()) tl_sim_land(&b);
    else tl_sim_boxes[tl_sim_nbox++] = b;
}

/* A TMA store reads shared memory at issue (early copies) or when its thread waits
 * (late: as late as the hardware may), then writes the box's elements inside the tensor. */
typedef struct TlSimStore {
    const TlTensorMap *map;
    const unsigned char *smem;
    int n, x[5];
} TlSimStore;
static TlSimStore *tl_sim_stores[TL_SIM_THREADS];
static int tl_sim_nstore[TL_SIM_THREADS], tl_sim_capstore[TL_SIM_THREADS];

TL_DEV void tl_sim_store_box(const TlSimStore *s) {
    const TlTensorMap *map = s->map;
    const long mask = map->swizzle ? map->swizzle / 16 - 1 : 0;
    int total = map->elem_bytes, at[5] = {0};
    for (int i = 0; i < s->n; i++) total *= map->box[i];
    for (int o = 0; o < total; o += map->elem_bytes) {
        bool in = true;
        long long off = 0;
        for (int i = 0; i < s->n; i++) {
            long long v = (long long)s->x[i] + at[i];
            in = in && v >= 0 && v < map->dims[i];
            off += v * (i ? map->strides[i - 1] : map->elem_bytes);
        }
        uintptr_t a = (uintptr_t)(s->smem + o); /* shared memory is 1024-aligned */
        if (in && tl_sim_proxy_fenced[sim_rank()])
            memcpy((unsigned char *)map->base + off, (const void *)(a ^ ((a >> 7 & mask) << 4)),
                   map->elem_bytes);
        else if (in) memset((unsigned char *)map->base + off, 0xff, map->elem_bytes);
        for (int i = 0; i < s->n && ++at[i] == map->box[i]; i++) at[i] = 0;
    }
}
template <class... C> TL_DEV void tl_tma_store(const TlTensorMap *map, const void *smem, C... c) {
    TlSimStore s = {map, (const unsigned char *)smem, (int)sizeof...(C), {(int)c...}};
    int t = sim_thread();
    if (sim_early_copies()) {
        tl_sim_store_box(&s);
        return;
    }
    if (tl_sim_nstore[t] == tl_sim_capstore[t]) {
        tl_sim_capstore[t] = tl_sim_capstore[t] ? 2 * tl_sim_capstore[t] : 16;
        tl_sim_stores[t] = (TlSimStore *)realloc(tl_sim_stores[t],
                                                 sizeof(TlSimStore) * tl_sim_capstore[t]);
    }
    tl_sim_stores[t][tl_sim_nstore[t]++] = s;
}
/* A group's reads use up the fence (early copies: at its commit; late: at the wait). */
TL_DEV void tl_tma_store_commit() {
    if (sim_early_copies()) tl_sim_proxy_fenced[sim_rank()] = false;
}
TL_DEV void tl_tma_store_wait_read() {
    int t = sim_thread();
    for (int i = 0; i < tl_sim_nstore[t]; i++) tl_sim_store_box(&tl_sim_stores[t][i]);
    if (tl_sim_nstore[t]) tl_sim_proxy_fenced[sim_rank()] = false;
    tl_sim_nstore[t] = 0;
}
template <int N> TL_DEV void tl_setmaxnreg_inc() {}
template <int N> TL_DEV void tl_setmaxnreg_dec() {}

TL_DEV unsigned tl_cluster_rank() { return sim_rank(); }
TL_DEV void tl_cluster_sync() { sim_cluster_bar(); }
void sim_cluster_arrive(void); /* the harness: a cluster barrier's halves, and the grid's */
void sim_cluster_wait(void);
void sim_grid_bar(void);
TL_DEV void tl_cluster_arrive() { sim_cluster_arrive(); }
TL_DEV void tl_cluster_arrive_relaxed() { sim_cluster_arrive(); }
TL_DEV void tl_cluster_wait() { sim_cluster_wait(); }
TL_DEV void tl_grid_sync(unsigned *bar) {
    (void)bar;
    sim_grid_bar();
}
/* The lanes of the running thread's warp: the simulated thread of its first lane, and
 * how many exist (a partial last warp of the block has fewer than 32). */
TL_DEV int tl_sim_warp(int *count) {
    const int t = sim_thread(), nb = (int)(blockDim.x * blockDim.y * blockDim.z);
    const int first = t % nb - t % nb % 32;
    *count = nb - first < 32 ? nb - first : 32;
    return t - t % nb + first;
}
/* Each lane's value meets in a slot per thread between two warp barriers (the warp's
 * lanes must all come: sim_warp_sync counts them); f reads the warp's slots. */
template <class F> TL_DEV auto tl_sim_warp_meet(unsigned long long v, F f) {
    static unsigned long long slots[TL_SIM_THREADS];
    int n, first = tl_sim_warp(&n);
    slots[sim_thread()] = v;
    sim_warp_sync();
    auto r = f(slots + first, n, sim_thread() - first);
    sim_warp_sync();
    return r;
}
/* Warp shuffles: the source lane as the hardware picks it (its own past the warp's lanes
 * or where that lane does not exist). */
template <class T> TL_DEV T tl_sim_shfl(T v, int src) {
    static double slots[TL_SIM_THREADS];
    const int t = sim_thread();
    int n, first = tl_sim_warp(&n);
    slots[t] = (double)v; /* exact for the values the tests shuffle (not 64-bit ints) */
    sim_warp_sync();
    T r = src >= 0 && src < n ? (T)slots[first + src] : v;
    sim_warp_sync();
    return r;
}
TL_DEV int tl_sim_lane() {
    int n;
    return sim_thread() - tl_sim_warp(&n);
}
template <class T> TL_DEV T tl_shfl_xor(T v, int m) {
    return tl_sim_shfl(v, tl_sim_lane() ^ (m & 31));
}
template <class T> TL_DEV T tl_shfl_down(T v, int d) {
    return tl_sim_shfl(v, tl_sim_lane() + (d & 31));
}
template <class T> TL_DEV T tl_shfl_up(T v, int d) {
    return tl_sim_shfl(v, tl_sim_lane() - (d & 31));
}
template <class T> TL_DEV T tl_shfl_sync(T v, int l) { return tl_sim_shfl(v, l & 31); }

/* Warp votes over the lanes that exist. */
TL_DEV unsigned long long tl_ballot(bool p) {
    return tl_sim_warp_meet(p, [](const unsigned long long *s, int n, int) {
        unsigned long long m = 0;
        for (int l = 0; l < n; l++) m |= (unsigned long long)(s[l] != 0) << l;
        return m;
    });
}
TL_DEV int tl_any_sync(bool p) { return tl_ballot(p) != 0; }
TL_DEV int tl_all_sync(bool p) { return tl_ballot(!p) == 0; }
TL_DEV bool tl_elect_one(bool p) {
    unsigned long long m = tl_ballot(p);
    return m && (m & (0ull - m)) == 1ull << tl_sim_lane();
}
TL_DEV unsigned tl_match_any_sync(unsigned long long v) {
    return tl_sim_warp_meet(v, [](const unsigned long long *s, int n, int me) {
        unsigned m = 0;
        for (int l = 0; l < n; l++) m |= (unsigned)(s[l] == s[me]) << l;
        return m;
    });
}
TL_DEV unsigned tl_match_all_sync(unsigned long long v) {
    return tl_sim_warp_meet(v, [](const unsigned long long *s, int n, int) {
        for (int l = 1; l < n; l++)
            if (s[l] != s[0]) return 0u;
        return n == 32 ? 0xffffffffu : (1u << n) - 1; /* the lanes that exist, as an H100 */
    });
}

/* Block votes: each thread adds its predicate at barrier ID of N threads (the block's
 * __syncthreads: 0 and all of them), reads the sum after it, and the last reader clears
 * it before a second barrier lets anyone vote again. */
template <int KIND, int ID, int N> TL_DEV int tl_bar_vote(bool p) {
    static int sum[8][16], read[8][16];
    const unsigned r = sim_rank();
    sum[r][ID] += p;
    sim_bar(ID, N);
    int k = sum[r][ID];
    if (++read[r][ID] == N) sum[r][ID] = read[r][ID] = 0;
    sim_bar(ID, N);
    return KIND == 0 ? k == N : KIND == 1 ? k > 0 : k;
}
TL_DEV int tl_sim_block() { return (int)(blockDim.x * blockDim.y * blockDim.z); }
template <int KIND> TL_DEV int tl_sim_block_vote(bool p) {
    static int sum[8], read[8];
    const unsigned r = sim_rank();
    const int n = tl_sim_block();
    sum[r] += p;
    __syncthreads();
    int k = sum[r];
    if (++read[r] == n) sum[r] = read[r] = 0;
    __syncthreads();
    return KIND == 0 ? k == n : KIND == 1 ? k > 0 : k;
}
TL_DEV int tl_syncthreads_and(bool p) { return tl_sim_block_vote<0>(p); }
TL_DEV int tl_syncthreads_or(bool p) { return tl_sim_block_vote<1>(p); }
TL_DEV int tl_syncthreads_count(bool p) { return tl_sim_block_vote<2>(p); }
TL_DEV void tl_pdl_trigger() {}
TL_DEV void tl_pdl_sync() {}

/* p's twin in the shared memory of block rank of the cluster. */
template <class T> TL_DEV T *tl_sim_peer(T *p, unsigned rank) {
    return (T *)(sim_smem(rank) + ((unsigned char *)p - sim_smem(sim_rank())));
}
TL_DEV void tl_mbar_arrive_cluster(uint64_t *bar, unsigned rank) {
    tl_mbar_update(tl_sim_peer(bar, rank), 1, 0);
}
TL_DEV void tl_mbar_arrive_peer(uint64_t *bar, unsigned rank) {
    tl_mbar_update(tl_sim_peer(bar, rank), 1, 0);
}
TL_DEV void tl_mbar_wait_cluster(uint64_t *bar, int parity) { tl_mbar_wait(bar, parity); }
template <class... C>
TL_DEV void tl_tma_load_multicast(const TlTensorMap *map, void *smem, uint64_t *bar, uint16_t mask,
                                  C... c) {
    for (unsigned r = 0; r < 16; r++)
        if (mask >> r & 1)
            tl_tma_load(map, tl_sim_peer((unsigned char *)smem, r), tl_sim_peer(bar, r), c...);
}
/* The program's own wgmma: descriptors address the block's shared memory from its start;
 * a wgmma is queued as tl_wgmma_ss's are and computes when a wait retires it. */
TL_DEV void tl_gmma_desc_init(uint64_t *d, const void *smem, int32_t layout, int32_t lbo,
                              int32_t sbo) {
    uint32_t addr = (uint32_t)((const unsigned char *)smem - tl_dynamic_smem());
    *d = tl_gmma_desc_encode(addr, layout, lbo, sbo);
}
TL_DEV void tl_fence_regs(void *, int) {}
template <bool TMA>
TL_DEV void tl_bulk_copy(void *smem, const void *gmem, int bytes, uint64_t *bar) {
    memcpy(smem, gmem, bytes); /* lands at issue */
    if (TMA) tl_mbar_update(bar, 0, -bytes);
}
TL_DEV void tl_warpgroup_arrive() {}
TL_DEV void tl_warpgroup_commit() {}
template <int N, int TA, int TB, bool AK, bool BK, int SA, int SB>
TL_DEV void tl_wgmma_raw_sim(const void *a, const void *b, float *d, int x) {
    tl_gmma_apply(tl_dynamic_smem(), d, (uint64_t)(uintptr_t)a, NULL, (uint64_t)(uintptr_t)b, N, TA,
                  TB, AK, BK, x >> 8 & 1, SA, SB, x & 127);
}
template <int N, int TA, int TB, bool AK, bool BK, int SA, int SB>
TL_DEV void tl_wgmma_raw_ss(float *d, uint64_t da, uint64_t db, int scale_d, int tid) {
    TlSimQueue *q = &tl_sim_queues[sim_thread()];
    if (q->ngemm == 8) tl_wgmma_retire(q, q->issued - 7); /* a full queue: the oldest ends */
    int i = q->ngemm++;
    q->issued++;
    q->gemm[i] = tl_wgmma_raw_sim<N, TA, TB, AK, BK, SA, SB>;
    q->ga[i] = (const void *)(uintptr_t)da, q->gb[i] = (const void *)(uintptr_t)db;
    q->gc[i] = d, q->gtid[i] = tid % 128 | (scale_d != 0) << 8;
}
/* T.ptx_wgmma_rs: each thread leaves the address of its A registers in the slot of its
 * issue number (as tl_wgmma_rs); the wgmma reads the warpgroup's when a wait retires it. */
template <int N, int TA, int TB, bool BK, int SA, int SB>
TL_DEV void tl_wgmma_raw_rs_sim(const void *slot, const void *b, float *d, int x) {
    const int wg0 = sim_thread() - sim_thread() % 128, n = (int)(uintptr_t)slot;
    const unsigned char *regs[128];
    for (int u = 0; u < 128; u++) regs[u] = (const unsigned char *)tl_sim_rs_a[wg0 + u][n];
    tl_gmma_apply(tl_dynamic_smem(), d, 0, regs, (uint64_t)(uintptr_t)b, N, TA, TB, true, BK,
                  x >> 8 & 1, SA, SB, x & 127);
}
template <int N, int TA, int TB, bool BK, int SA, int SB>
TL_DEV void tl_wgmma_raw_rs(float *d, const void *a, uint64_t db, int scale_d, int tid) {
    TlSimQueue *q = &tl_sim_queues[sim_thread()];
    if (q->ngemm == 8) { /* the slots of A would be reused before their wgmma ran */
        fprintf(stderr, "tl_wgmma_raw_rs: more than 8 wgmmas in flight\n");
        abort();
    }
    int i = q->ngemm++, n = q->issued++ % 8;
    tl_sim_rs_a[sim_thread()][n] = (const uint16_t *)a;
    q->gemm[i] = tl_wgmma_raw_rs_sim<N, TA, TB, BK, SA, SB>;
    q->ga[i] = (const void *)(uintptr_t)n, q->gb[i] = (const void *)(uintptr_t)db;
    q->gc[i] = d, q->gtid[i] = tid % 128 | (scale_d != 0) << 8;
}
#endif

/* T.mma_store: each lane stores its own accumulator elements (tl_c.h's layout). */
#define TL_MMA_STORE(N, BYTES)                                                                     \
    TL_DEV void tl_mma_store_16x##N##_b##BYTES(void *dst, const void *src, int stride) {           \
        tl_mma_store_lane(N, BYTES, tl_lane_id(), dst, src, stride);                               \
    }
TL_MMA_STORE(8, 1)
TL_MMA_STORE(8, 2)
TL_MMA_STORE(8, 4)
TL_MMA_STORE(16, 1)
TL_MMA_STORE(16, 2)
TL_MMA_STORE(16, 4)
#undef TL_MMA_STORE

/* TVM's WMMA intrinsics (tl_c.h's fragment layout): each lane loads and stores its own
 * elements; D = A B + C is two mma.sync m16n8k16 (the n8 tiles of B and D), C copied to
 * D first. */
#define TL_WMMA_LOAD(R, ROLE, BYTES, SUF, COL)                                                     \
    TL_DEV void tl_wmma_load_##R##_b##BYTES##SUF(void *frag, const void *mem, int stride) {        \
        tl_wmma_ldst_lane(ROLE, COL, false, BYTES, tl_lane_id(), frag, (void *)mem, stride);       \
    }
TL_WMMA_LOAD(a, 1, 2, , false)
TL_WMMA_LOAD(a, 1, 2, _col, true)
TL_WMMA_LOAD(b, 2, 2, , false)
TL_WMMA_LOAD(b, 2, 2, _col, true)
TL_WMMA_LOAD(c, 3, 2, , false)
TL_WMMA_LOAD(c, 3, 2, _col, true)
TL_WMMA_LOAD(c, 3, 4, , false)
TL_WMMA_LOAD(c, 3, 4, _col, true)
#undef TL_WMMA_LOAD
#define TL_WMMA_STORE(BYTES, SUF, COL)                                                             \
    TL_DEV void tl_wmma_store_c_b##BYTES##SUF(const void *frag, void *mem, int stride) {           \
        tl_wmma_ldst_lane(3, COL, true, BYTES, tl_lane_id(), (void *)frag, mem, stride);           \
    }
TL_WMMA_STORE(2, , false)
TL_WMMA_STORE(2, _col, true)
TL_WMMA_STORE(4, , false)
TL_WMMA_STORE(4, _col, true)
#undef TL_WMMA_STORE
#define TL_WMMA_MMA(C, AB, CBYTES, MMA)                                                            \
    TL_DEV void tl_wmma_mma_##C##_##AB(void *d, const void *a, const void *b, const void *c) {     \
        if (d != c) memcpy(d, c, 8 * CBYTES);                                                      \
        MMA(a, b, d);                                                                              \
        MMA(a, (const unsigned char *)b + 8, (unsigned char *)d + 4 * CBYTES);                     \
    }
TL_WMMA_MMA(f32, f16, 4, tl_ptx_mma_m16n8k16_f32_f16_f16)
TL_WMMA_MMA(f16, f16, 2, tl_ptx_mma_m16n8k16_f16_f16_f16)
TL_WMMA_MMA(f32, bf16, 4, tl_ptx_mma_m16n8k16_f32_bf16_bf16)
#undef TL_WMMA_MMA

#endif
