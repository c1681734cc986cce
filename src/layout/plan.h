/* plan.h - decisions built on linear layouts: how to convert between two register
 * layouts (LAYOUTS.md 3.1/3.2), how to reduce along an axis (section 5), how wide a
 * vector access can be (1.4), and how many bank conflicts a warp's shared-memory access
 * has (3.3). Register layouts have in dims register, lane (32), warp [, block] and tensor
 * out dims; memory layouts have in dim offset (elements). */
#ifndef TILEC_LAYOUT_PLAN_H
#define TILEC_LAYOUT_PLAN_H

#include "layout/linear.h"

/* ---- conversions ------------------------------------------------------------------------- */
typedef enum CvtKind {
    CVT_NOOP,         /* same layout */
    CVT_REG_PERMUTE,  /* per-thread renaming of registers: no instruction */
    CVT_WARP_SHUFFLE, /* data moves between lanes of a warp only */
    CVT_SHARED,       /* data crosses warps: through shared memory (barrier) */
    CVT_DIST_SHARED,  /* data crosses CTAs of a cluster */
} CvtKind;

const char *plan_cvt_kind_name(CvtKind k);

/* Classify src -> dst: C = dst.invert_and_compose(src) (dst slot -> src slot), then the
 * dims block, warp, lane are quotiented away while C is the identity on them. *cvt gets
 * the remaining C (in and out dims: the ones that move data, plus register).
 * LL_ENOTINV when src does not hold some element that dst holds. */
LLStatus plan_cvt_classify(const LL *src, const LL *dst, CvtKind *kind, LL *cvt);

/* For CVT_NOOP / CVT_REG_PERMUTE: dst register i = src register perm[i], i < n. */
void plan_reg_permutation(const LL *cvt, uint32_t *perm, int n);

/* Warp-shuffle lowering of a (register, lane) -> (register, lane) conversion C. One
 * round per destination register t; in round t
 *   receiver lane l reads lane  src_lane(t, l) = C_lane(t) ^ M(l)
 *                  into dst register t ^ A(l),
 *   sender lane s sends src register C_reg(t) ^ S(s ^ C_lane(t)),
 * with linear A (lane -> dst register, a select), M (lane -> lane) and S (lane -> src
 * register, a select) chosen so that every sender is asked for one register only.
 * A = 0 and S = 0 is the plain one-shfl-per-register case; lane<->register transposes
 * need A != 0. Rounds where every lane reads itself need no shfl (local_rounds). */
typedef struct ShufflePlan {
    LL cvt;
    int lane_bits, rounds, local_rounds;
    uint32_t recv_reg[5];  /* A(lane bit j) */
    uint32_t lane_map[5];  /* M(lane bit j) */
    uint32_t send_reg[5];  /* S(lane bit j) */
} ShufflePlan;

/* LL_EUNSUPPORTED when no such A exists (go through shared memory). */
LLStatus plan_warp_shuffle(const LL *cvt, ShufflePlan *p);
uint32_t plan_shfl_dst_reg(const ShufflePlan *p, uint32_t t, uint32_t lane);
uint32_t plan_shfl_src_lane(const ShufflePlan *p, uint32_t t, uint32_t lane);
uint32_t plan_shfl_send_reg(const ShufflePlan *p, uint32_t t, uint32_t lane);

/* ---- reductions -------------------------------------------------------------------------- */
/* Reduce along tensor dim `axis` with a commutative, associative op:
 *   1. in thread: every register r combines r ^ span(reg_vecs);
 *   2. butterfly: for each lane vector m: v = op(v, shfl_xor(v, m));
 *   3. cross warp: for each warp vector w: v = op(v, value of warp ^ w) (shared memory).
 * The vectors pick one copy of every element (replicated bits are skipped), so sums are
 * not double counted. With hardware layouts the vectors are single bits and the masks are
 * exact (reg_mask = registers combined, lane_mask = xor offsets, warp_mask). */
typedef struct ReducePlan {
    int axis;
    int n_reg, n_lane, n_warp;
    uint32_t reg_vecs[LL_MAX_BITS], lane_vecs[LL_MAX_BITS], warp_vecs[LL_MAX_BITS];
    uint32_t reg_mask, lane_mask, warp_mask;
    LL result;           /* input with the axis zeroed and dropped, zero registers removed */
    uint32_t kept_regs;  /* input register bits that remain result register bits */
} ReducePlan;

/* LL_EUNSUPPORTED when elements of one output are spread over mixed register/lane/warp
 * combinations (convert first) or across blocks. */
LLStatus plan_reduce(const LL *l, int axis, bool keepdim, ReducePlan *p);

/* ---- vectorization and bank conflicts ---------------------------------------------------- */
/* Largest v <= max_elems such that, after a register permutation, every thread's
 * registers come in runs of v elements contiguous and v-aligned in cvt's offset out dim
 * (cvt: (register, lane, warp) -> offset). *perm (optional) gets the permutation. */
int plan_vector_width_cvt(const LL *cvt, int max_elems, uint8_t perm[LL_MAX_BITS]);
/* Same for a register layout accessing a memory layout (offset -> coords), vectors of at
 * most max_bits (128 for 16-byte accesses). 1 when the layouts do not match (no cover). */
int plan_vector_width(const LL *reg, const LL *mem, int elem_bits, int max_bits);

/* Extra shared-memory wavefronts of one warp-wide access (0 = conflict free). addr maps
 * lane (other in dims ignored) -> offset in elements; every lane moves vec_elems
 * contiguous, aligned elements. Accesses of 8/16 bytes per lane run in 2/4 phases of
 * 16/8 lanes; each phase costs 2^dim(span(words) & span(segment)) wavefronts, where words
 * are the 4-byte words touched (bank = word bits 0..4, segment = the higher bits); the
 * minimum is one per phase. Replicated addresses are broadcasts. */
int plan_bank_conflicts(const LL *addr, int elem_bits, int vec_elems);
/* A register layout reading/writing a memory layout: vector width (max 128 bits) and the
 * extra wavefronts of the lane part. -1 when mem does not cover reg's elements. */
int plan_access_conflicts(const LL *reg, const LL *mem, int elem_bits, int *vec_out);

/* Shared-memory layout for a conversion src -> dst through shared memory (LAYOUTS.md 3.3,
 * after Triton's optimal swizzling): offset bits = [vector | bank | segment] where the
 * vector bits are register bases common to src and dst (up to 128 bits), the segment
 * bits avoid the spans of both sides' lane bases (unit coordinate bits first, then XORs
 * of two), and the bank bits complete the basis. Both the store (src) and the load (dst)
 * are conflict-free when such segment bits exist; otherwise conflicts are accepted.
 * src and dst must cover the same tile; *smem maps offset -> the tile's dims. */
void plan_smem_swizzle(const LL *src, const LL *dst, int elem_bits, LL *smem);

#endif
