/* linear.h - linear layouts (LL): GF(2)-linear maps from hardware index bits to logical
 * coordinate bits (LAYOUTS.md sections 1 and 6; Triton's LinearLayout model).
 *
 * A layout has up to LL_MAX_DIMS named input dims (register, lane, warp, block; or offset,
 * block for memory layouts; any name for inverted layouts) and up to LL_MAX_DIMS named
 * output dims, every size a power of two. The input index is flattened to bits in the
 * order of the input list (first dim = lowest bits); the output coordinates are packed
 * into one uint32 by concatenating the output fields in the order of the output list
 * (first dim = lowest bits: the "packing order", which is also the order reshape flattens
 * in). basis[i] is the packed output of the input with only flat bit i set, and
 * apply(x) = XOR of basis[i] over the set bits i of x.
 *
 * An LL is a plain value (about 190 bytes): copy it, return it, keep it in any struct;
 * nothing is allocated. Misuse (mismatched dims, sizes over 32 bits) is a TL_ASSERT;
 * "not possible" results (not invertible, does not divide, not linear) are LLStatus codes.
 * Equality and all binary operations match dims by name, so two layouts with the same
 * map but different packing orders are equal. Extents (logical, possibly non-power-of-two
 * sizes of the out dims, for masks) are carried along by the operations that keep an out
 * dim's size and reset to the full size otherwise; equality ignores them. */
#ifndef TILEC_LAYOUT_LINEAR_H
#define TILEC_LAYOUT_LINEAR_H

#include "base/base.h"

#include <stdbool.h>
#include <stdint.h>

#define LL_MAX_DIMS 4  /* input dims and output dims per layout */
#define LL_MAX_BITS 32 /* total input bits, and total output bits */

typedef enum LLDim {
    LL_REG,    /* "register": slot within a thread */
    LL_LANE,   /* lane within a warp (0..31) */
    LL_WARP,   /* warp within the CTA */
    LL_BLOCK,  /* CTA within the cluster */
    LL_OFFSET, /* element offset in a memory buffer */
    LL_DIM0,   /* tensor dims; DIM0 is the row of a 2-D tile */
    LL_DIM1,
    LL_DIM2,
    LL_DIM3,
    LL_NUM_DIMS
} LLDim;

#define LL_BIT(d) (1u << (d)) /* dim sets are bit masks over LLDim */
#define LL_HW_DIMS (LL_BIT(LL_REG) | LL_BIT(LL_LANE) | LL_BIT(LL_WARP) | LL_BIT(LL_BLOCK))

typedef enum LLStatus {
    LL_OK = 0,
    LL_ENOTINV,      /* not invertible / target does not cover the source's image */
    LL_ENODIV,       /* divide_left: the layout is not B * C */
    LL_ENONLINEAR,   /* fit: the table is not a linear map of power-of-two dims */
    LL_ENOTQUOT,     /* quotient: the dim is not an isolated identity */
    LL_EUNSUPPORTED, /* a planner cannot handle this layout (caller falls back) */
} LLStatus;

typedef struct LL {
    uint8_t nin, nout;
    uint8_t in_dim[LL_MAX_DIMS], in_log2[LL_MAX_DIMS];   /* minor -> major input bits */
    uint8_t out_dim[LL_MAX_DIMS], out_log2[LL_MAX_DIMS]; /* packing order, minor first */
    uint32_t basis[LL_MAX_BITS];                         /* basis[flat input bit] */
    uint32_t extent[LL_MAX_DIMS]; /* logical extent of out dim k (<= 1 << out_log2[k]) */
} LL;

/* A value per dim name: index tuples, coordinate tuples, shapes (0 = "not given"). */
typedef uint32_t LLIdx[LL_NUM_DIMS];

const char *ll_dim_name(LLDim d);
const char *ll_status_name(LLStatus s);

/* ---- 1. make ----------------------------------------------------------------------------- */
LL ll_empty(void);
/* Append an out dim of 2^log2 (extent = size) / an in dim of 2^log2 with zero bases. */
void ll_add_out(LL *l, LLDim d, int log2);
void ll_add_in(LL *l, LLDim d, int log2);
/* Append one more bit to input dim `in` (created at the end of the list if absent) whose
 * basis is the coordinate tuple c (indexed by out dim name; every out dim must exist). */
void ll_push_basis(LL *l, LLDim in, const LLIdx c);
void ll_push2(LL *l, LLDim in, uint32_t dim0, uint32_t dim1); /* c = (DIM0, DIM1) */
LL ll_identity1d(int n, LLDim in, LLDim out);                 /* bases 1, 2, 4, ... */
LL ll_zeros1d(int n, LLDim in, LLDim out);                    /* out size 1: replication */
LL ll_strided1d(int n, int stride, LLDim in, LLDim out, int out_size);
void ll_check(const LL *l); /* TL_ASSERT every invariant */

/* Fit a layout to a point map given as a callback (hardware index -> coordinates, both
 * indexed by dim name). `shape` declares the in and out dims (its bases are ignored).
 * Reads the bases at the power-of-two inputs, then verifies every input (at most 2^24).
 * LL_ENONLINEAR if any point disagrees or the callback returns false. */
typedef bool (*LLPointFn)(void *ud, const LLIdx in, LLIdx out);
LLStatus ll_fit_from_table(LL *out, const LL *shape, LLPointFn fn, void *ud);
/* TileLang direction: fn maps (coords, rep < reps) -> hardware index (thread split into
 * lane/warp by the caller, or offset). The inverse table is built by enumeration; holes,
 * collisions (two elements in one slot) and out-of-range indices give LL_ENONLINEAR. */
typedef bool (*LLForwardFn)(void *ud, const LLIdx coords, uint32_t rep, LLIdx hw);
LLStatus ll_fit_from_forward(LL *out, const LL *shape, uint32_t reps, LLForwardFn fn,
                             void *ud);

/* ---- queries ----------------------------------------------------------------------------- */
int ll_in_log2(const LL *l, LLDim d);  /* 0 when absent */
int ll_out_log2(const LL *l, LLDim d); /* 0 when absent */
int ll_in_shift(const LL *l, LLDim d); /* flat position of the dim's first bit */
int ll_out_shift(const LL *l, LLDim d);
int ll_in_bits(const LL *l);  /* total input bits */
int ll_out_bits(const LL *l); /* total output bits */
uint32_t ll_basis(const LL *l, LLDim in, int k);            /* packed basis */
uint32_t ll_basis_coord(const LL *l, LLDim in, int k, LLDim out);
uint32_t ll_extent(const LL *l, LLDim out);
void ll_set_extent(LL *l, LLDim out, uint32_t extent);

/* ---- 2. apply ---------------------------------------------------------------------------- */
uint32_t ll_pack_in(const LL *l, const LLIdx in);
void ll_unpack_in(const LL *l, uint32_t x, LLIdx in);
uint32_t ll_pack_out(const LL *l, const LLIdx c);
void ll_unpack_out(const LL *l, uint32_t y, LLIdx c);
uint32_t ll_out_coord(const LL *l, uint32_t y, LLDim d);
uint32_t ll_apply(const LL *l, uint32_t x); /* packed in -> packed out */
void ll_apply_idx(const LL *l, const LLIdx in, LLIdx out);
/* Codegen split: the part of apply(x) contributed by the in dims in `dims` only, so that
 * apply(x) = apply_dims(x, runtime) ^ apply_dims(x, constant). */
uint32_t ll_apply_dims(const LL *l, uint32_t x, unsigned dims);
/* True when the output bits touched by dims a and dims b are disjoint: then the XOR of
 * the two parts may be emitted as + or | (folds into immediate offsets). */
bool ll_dims_disjoint(const LL *l, unsigned a, unsigned b);

/* ---- 3. product and fitting to a tile ---------------------------------------------------- */
/* Direct sum: dims are merged by name; a dim present in both has a's bits low and b's
 * bits above them (in and out alike). */
LL ll_product(const LL *a, const LL *b);
/* Project each out dim d with shape[d] != 0 and size > shape[d] onto its low bits (the
 * high bases become replication). With drop_regs, register bases made zero are removed. */
LL ll_not_larger(const LL *l, const LLIdx shape, bool drop_regs);
/* Append register bases (repetitions) for every out dim smaller than shape[d] != 0. */
LL ll_not_smaller(const LL *l, const LLIdx shape);

/* ---- 4. rank and free variables (RREF over GF(2), columns in flat input order) ----------- */
int ll_rank(const LL *l);
uint32_t ll_free_mask(const LL *l);              /* flat input bits that are free */
uint32_t ll_free_mask_dim(const LL *l, LLDim d); /* bit k = bit k of dim d is free */
bool ll_is_injective(const LL *l);
bool ll_is_surjective(const LL *l);
bool ll_is_bijective(const LL *l);

/* ---- 5. invert --------------------------------------------------------------------------- */
/* Inverse of a bijective layout (in and out dims swap roles). */
LLStatus ll_invert(const LL *l, LL *out);
/* Right inverse P of a surjective layout: l(P(y)) = y for every y, and P(y) only uses
 * pivot input bits (free/replicated bits are 0): one owner per element. */
LLStatus ll_pseudo_invert(const LL *l, LL *out);

/* ---- 6/7. compose ------------------------------------------------------------------------ */
/* outer o inner: inner's out dims must be outer's in dims (by name, sizes <=). */
LL ll_compose(const LL *outer, const LL *inner);
/* C with a = b o C ("apply a, then b^-1"): a's out dims must be among b's (sizes <=).
 * Where b is not injective, the preimage prefers, for an input bit of a dim that both
 * share, b's same bit (so replicated warps/lanes map to themselves, not across). Else
 * pivot bits only. LL_ENOTINV if some basis of a is outside b's image. */
LLStatus ll_invert_and_compose(const LL *a, const LL *b, LL *out);

/* ---- 8. sublayouts ----------------------------------------------------------------------- */
/* Restrict to in dims `ins` and out dims `outs` (dim sets); other bases are dropped. */
LL ll_sublayout(const LL *l, unsigned ins, unsigned outs);
/* Drop dim d when l is the identity from in d to out d and nothing else touches either. */
LLStatus ll_quotient(const LL *l, LLDim d, LL *out);
/* Remove the zero bases of in dim d (broadcast registers). *kept (optional) gets the old
 * bit positions kept: new bit j = old bit number j of *kept. */
LL ll_remove_zero_bases(const LL *l, LLDim d, uint32_t *kept);
/* Reorder the bits of in dim d: new bit k = old bit perm[k]. */
LL ll_permute_in(const LL *l, LLDim d, const uint8_t *perm);

/* ---- 9. reshape / transpose / slice ------------------------------------------------------ */
LL ll_reorder_outs(const LL *l, int n, const LLDim *order); /* new packing order */
/* map[old] = new name, for every dim of l (identity entries included: a zero entry
 * means LL_REG); the new names must be distinct. */
LL ll_rename_outs(const LL *l, const LLIdx map);
LL ll_rename_ins(const LL *l, const LLIdx map);
/* Tensor transpose (tt.trans / T.transpose): result dim i = input dim perm[i]. */
LL ll_transpose(const LL *l, int rank, const int *perm);
/* Flatten the outs in packing order and re-split into dims[0..n) (minor first). */
LL ll_reshape_outs(const LL *l, int n, const LLDim *dims, const int *log2);
LL ll_reshape_ins(const LL *l, int n, const LLDim *dims, const int *log2);
/* Row-major tensor reshape of DIM0..DIM(rank-1) to new_shape (log2 per dim, DIM0 major). */
LL ll_reshape_tensor(const LL *l, int rank, const int *new_log2);
/* Reduction result: zero the DIM<axis> component of every basis and drop that out dim;
 * without keepdim the dims above it are renamed down. */
LL ll_reduce_axis(const LL *l, int axis, bool keepdim);
LL ll_expand_dims(const LL *l, int axis); /* insert a size-1 tensor dim at axis */

/* ---- 10. divide -------------------------------------------------------------------------- */
/* C with a = b * c: per in dim, a's first bits equal b's bases; every other basis of a is
 * zero in the low out bits that b occupies. */
LLStatus ll_divide_left(const LL *a, const LL *b, LL *c);
/* Permutation of a's register bits that makes b's register bases come first, in b's
 * order (the others keep their order); false when some b basis is not a register basis
 * of a. perm[k] = old bit of new bit k (ll_permute_in). */
bool ll_reg_perm_for_divide(const LL *a, const LL *b, uint8_t perm[LL_MAX_BITS]);
/* Leading bases of in dim `in` equal to 1, 2, 4, ... on out dim `out` (others 0), capped
 * by the lowest set bit of every other basis' `out` component: elements contiguous. */
int ll_num_consecutive(const LL *l, LLDim in, LLDim out);

/* ---- GF(2) elimination (used by the planners) -------------------------------------------- */
/* Vectors up to 64 bits; each pivot remembers which inserted columns (comb, 32 bits) XOR
 * to it. Columns are inserted in order; a dependent column is not inserted (free). */
typedef struct LLGf2 {
    uint64_t vec[64];  /* vec[b] has highest set bit b */
    uint32_t comb[64]; /* XOR of inserted combs giving vec[b] */
    uint64_t have;     /* pivot bits present */
} LLGf2;
void ll_gf2_init(LLGf2 *g);
/* Insert v (tagged comb); false if v is in the span already. */
bool ll_gf2_insert(LLGf2 *g, uint64_t v, uint32_t comb);
/* Residual of v after elimination (0 = in the span); *comb = tags of the columns used. */
uint64_t ll_gf2_reduce(const LLGf2 *g, uint64_t v, uint32_t *comb);
int ll_gf2_rank(const LLGf2 *g);

/* ---- equality and printing --------------------------------------------------------------- */
bool ll_equal(const LL *a, const LL *b); /* same map, dims matched by name */
/* "register: (0,1) (8,0)  lane: (0,2) ...  -> dim0:16 dim1:8" (tuples in out-name order). */
void ll_print(StrBuf *sb, const LL *l);
/* Grid of the output (rows = DIM0 or the first out dim, cols = the rest flattened): each
 * cell names the first owner as in-dim values, major dim first ("lane:reg"). */
void ll_dump_table(StrBuf *sb, const LL *l);

#endif
