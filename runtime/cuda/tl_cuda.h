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
 *   - Atomics: native atomicAdd for float/double/int32/uint32/int64/uint64 and
 *     atomicMax/Min for int32/uint32; compare-and-swap loops for the rest (16-bit types
 *     with the 16-bit atomicCAS, 8-bit types through their aligned 32-bit word).
 *   - Block-level helpers: shared memory zeroing, T.use_swizzle, T.device_assert.
 * Simulation mode (TL_CUDA_SIM): tests/unit/test_emit_cuda.c compiles whole generated
 * files as host C++, with the CUDA built-ins defined by its harness. */
#ifndef TILEC_TL_CUDA_H
#define TILEC_TL_CUDA_H

#ifndef TILEC_TL_C_H
#error "runtime/c/tl_c.h comes first in a generated CUDA file"
#endif

#define TL_DEV __device__ __forceinline__

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

/* T.device_assert's message: the C target's text, on the device's stdout. */
TL_DEV void tl_assert_fail(const char *where, const char *msg, long long bx, long long by,
                           long long bz) {
    printf("%s: device assert failed: %s (block (%lld, %lld, %lld))\n", where, msg, bx, by,
           bz);
}

#endif
