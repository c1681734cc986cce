/* linear.c - linear layouts over GF(2): construction, apply, product, elimination,
 * compose, sublayouts, reshapes, divide, fit-by-enumeration and printing (linear.h). */
#include "layout/linear.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ----------------------------------------------------------------------- */
static uint32_t mask32(int n) { return n >= 32 ? ~0u : (1u << n) - 1; }

/* Shifts that give 0 for a shift of 32 (a size-1 dim may sit at flat position 32). */
static uint32_t shl32(uint32_t x, int s) { return s >= 32 ? 0 : x << s; }
static uint32_t shr32(uint32_t x, int s) { return s >= 32 ? 0 : x >> s; }

/* Extent of a full out dim of 2^log2 (2^32 saturates). */
static uint32_t full_extent(int log2) { return log2 >= 32 ? ~0u : 1u << log2; }

static bool is_pow2(uint32_t n) { return n && !(n & (n - 1)); }

static int log2u(uint32_t n) {
    TL_ASSERT(is_pow2(n));
    return __builtin_ctz(n);
}

static int find_dim(const uint8_t *dims, int n, int d) {
    for (int i = 0; i < n; i++)
        if (dims[i] == d) return i;
    return -1;
}

static int in_idx(const LL *l, LLDim d) { return find_dim(l->in_dim, l->nin, (int)d); }
static int out_idx(const LL *l, LLDim d) { return find_dim(l->out_dim, l->nout, (int)d); }

static int in_shift_i(const LL *l, int i) {
    int s = 0;
    for (int k = 0; k < i; k++) s += l->in_log2[k];
    return s;
}

static int out_shift_i(const LL *l, int i) {
    int s = 0;
    for (int k = 0; k < i; k++) s += l->out_log2[k];
    return s;
}

static const char *const dim_names[LL_NUM_DIMS] = {
    "register", "lane", "warp", "block", "offset", "dim0", "dim1", "dim2", "dim3",
};

const char *ll_dim_name(LLDim d) {
    TL_ASSERT((unsigned)d < LL_NUM_DIMS);
    return dim_names[d];
}

const char *ll_status_name(LLStatus s) {
    switch (s) {
    case LL_OK: return "ok";
    case LL_ENOTINV: return "not invertible";
    case LL_ENODIV: return "does not divide";
    case LL_ENONLINEAR: return "not linear";
    case LL_ENOTQUOT: return "not a quotient";
    case LL_EUNSUPPORTED: return "unsupported";
    }
    return "?";
}

/* ---- GF(2) elimination ------------------------------------------------------------------- */
void ll_gf2_init(LLGf2 *g) { memset(g, 0, sizeof *g); }

static int top_bit64(uint64_t v) { return 63 - __builtin_clzll(v); }

uint64_t ll_gf2_reduce(const LLGf2 *g, uint64_t v, uint32_t *comb) {
    uint32_t c = 0;
    while (v & g->have) {
        int b = top_bit64(v & g->have);
        v ^= g->vec[b];
        c ^= g->comb[b];
    }
    if (comb) *comb = c;
    return v;
}

bool ll_gf2_insert(LLGf2 *g, uint64_t v, uint32_t comb) {
    uint32_t c;
    uint64_t r = ll_gf2_reduce(g, v, &c);
    if (!r) return false;
    int b = top_bit64(r);
    g->vec[b] = r;
    g->comb[b] = c ^ comb;
    g->have |= 1ull << b;
    return true;
}

int ll_gf2_rank(const LLGf2 *g) { return __builtin_popcountll(g->have); }

/* Pivot analysis of l's columns in flat order; returns the free-column mask. */
static uint32_t gf2_columns(LLGf2 *g, const LL *l) {
    ll_gf2_init(g);
    uint32_t free_mask = 0;
    for (int i = 0; i < ll_in_bits(l); i++)
        if (!ll_gf2_insert(g, l->basis[i], 1u << i)) free_mask |= 1u << i;
    return free_mask;
}

/* ---- 1. make ----------------------------------------------------------------------------- */
LL ll_empty(void) {
    LL l;
    memset(&l, 0, sizeof l);
    return l;
}

void ll_add_out(LL *l, LLDim d, int log2) {
    TL_ASSERT((unsigned)d < LL_NUM_DIMS && out_idx(l, d) < 0 && l->nout < LL_MAX_DIMS);
    TL_ASSERT(log2 >= 0 && ll_out_bits(l) + log2 <= LL_MAX_BITS);
    l->out_dim[l->nout] = (uint8_t)d;
    l->out_log2[l->nout] = (uint8_t)log2;
    l->extent[l->nout] = full_extent(log2);
    l->nout++;
}

void ll_add_in(LL *l, LLDim d, int log2) {
    TL_ASSERT((unsigned)d < LL_NUM_DIMS && in_idx(l, d) < 0 && l->nin < LL_MAX_DIMS);
    TL_ASSERT(log2 >= 0 && ll_in_bits(l) + log2 <= LL_MAX_BITS);
    l->in_dim[l->nin] = (uint8_t)d;
    l->in_log2[l->nin] = (uint8_t)log2;
    l->nin++;
}

void ll_push_basis(LL *l, LLDim in, const LLIdx c) {
    for (int d = 0; d < LL_NUM_DIMS; d++) TL_ASSERT(c[d] == 0 || out_idx(l, (LLDim)d) >= 0);
    if (in_idx(l, in) < 0) ll_add_in(l, in, 0);
    int i = in_idx(l, in), total = ll_in_bits(l);
    TL_ASSERT(total < LL_MAX_BITS);
    int pos = in_shift_i(l, i) + l->in_log2[i];
    memmove(&l->basis[pos + 1], &l->basis[pos], sizeof(uint32_t) * (size_t)(total - pos));
    l->basis[pos] = ll_pack_out(l, c);
    l->in_log2[i]++;
}

void ll_push2(LL *l, LLDim in, uint32_t dim0, uint32_t dim1) {
    LLIdx c = {0};
    c[LL_DIM0] = dim0;
    c[LL_DIM1] = dim1;
    ll_push_basis(l, in, c);
}

LL ll_identity1d(int n, LLDim in, LLDim out) {
    LL l = ll_empty();
    int k = log2u((uint32_t)n);
    ll_add_out(&l, out, k);
    ll_add_in(&l, in, k);
    for (int i = 0; i < k; i++) l.basis[i] = 1u << i;
    return l;
}

LL ll_zeros1d(int n, LLDim in, LLDim out) {
    LL l = ll_empty();
    ll_add_out(&l, out, 0);
    ll_add_in(&l, in, log2u((uint32_t)n));
    return l;
}

LL ll_strided1d(int n, int stride, LLDim in, LLDim out, int out_size) {
    LL l = ll_empty();
    int k = log2u((uint32_t)n), s = log2u((uint32_t)stride);
    ll_add_out(&l, out, log2u((uint32_t)out_size));
    ll_add_in(&l, in, k);
    TL_ASSERT(k == 0 || s + k - 1 < l.out_log2[0]);
    for (int i = 0; i < k; i++) l.basis[i] = 1u << (s + i);
    return l;
}

void ll_check(const LL *l) {
    TL_ASSERT(l->nin <= LL_MAX_DIMS && l->nout <= LL_MAX_DIMS);
    for (int i = 0; i < l->nin; i++) {
        TL_ASSERT(l->in_dim[i] < LL_NUM_DIMS && find_dim(l->in_dim, i, l->in_dim[i]) < 0);
    }
    for (int i = 0; i < l->nout; i++) {
        TL_ASSERT(l->out_dim[i] < LL_NUM_DIMS && find_dim(l->out_dim, i, l->out_dim[i]) < 0);
        TL_ASSERT(l->extent[i] >= 1 && l->extent[i] - 1 <= mask32(l->out_log2[i]));
    }
    int nb = ll_in_bits(l), ob = ll_out_bits(l);
    TL_ASSERT(nb <= LL_MAX_BITS && ob <= LL_MAX_BITS);
    for (int i = 0; i < LL_MAX_BITS; i++)
        TL_ASSERT(i < nb ? (l->basis[i] & ~mask32(ob)) == 0 : l->basis[i] == 0);
}

/* ---- queries ----------------------------------------------------------------------------- */
int ll_in_log2(const LL *l, LLDim d) {
    int i = in_idx(l, d);
    return i < 0 ? 0 : l->in_log2[i];
}

int ll_out_log2(const LL *l, LLDim d) {
    int i = out_idx(l, d);
    return i < 0 ? 0 : l->out_log2[i];
}

int ll_in_shift(const LL *l, LLDim d) {
    int i = in_idx(l, d);
    TL_ASSERT(i >= 0);
    return in_shift_i(l, i);
}

int ll_out_shift(const LL *l, LLDim d) {
    int i = out_idx(l, d);
    TL_ASSERT(i >= 0);
    return out_shift_i(l, i);
}

int ll_in_bits(const LL *l) { return in_shift_i(l, l->nin); }
int ll_out_bits(const LL *l) { return out_shift_i(l, l->nout); }

uint32_t ll_basis(const LL *l, LLDim in, int k) {
    int i = in_idx(l, in);
    TL_ASSERT(i >= 0 && k >= 0 && k < l->in_log2[i]);
    return l->basis[in_shift_i(l, i) + k];
}

uint32_t ll_basis_coord(const LL *l, LLDim in, int k, LLDim out) {
    return ll_out_coord(l, ll_basis(l, in, k), out);
}

uint32_t ll_extent(const LL *l, LLDim out) {
    int i = out_idx(l, out);
    return i < 0 ? 1 : l->extent[i];
}

void ll_set_extent(LL *l, LLDim out, uint32_t extent) {
    int i = out_idx(l, out);
    TL_ASSERT(i >= 0 && extent >= 1 && extent - 1 <= mask32(l->out_log2[i]));
    l->extent[i] = extent;
}

/* ---- 2. apply ---------------------------------------------------------------------------- */
static uint32_t pack_fields(const uint8_t *dims, const uint8_t *log2, int n, const LLIdx v) {
    uint32_t x = 0;
    int s = 0;
    for (int i = 0; i < n; i++) {
        TL_ASSERT(v[dims[i]] <= mask32(log2[i]));
        if (log2[i]) x |= v[dims[i]] << s;
        s += log2[i];
    }
    return x;
}

static void unpack_fields(const uint8_t *dims, const uint8_t *log2, int n, uint32_t x,
                          LLIdx v) {
    memset(v, 0, sizeof(LLIdx));
    int s = 0;
    for (int i = 0; i < n; i++) {
        if (log2[i]) v[dims[i]] = (x >> s) & mask32(log2[i]);
        s += log2[i];
    }
}

uint32_t ll_pack_in(const LL *l, const LLIdx in) {
    return pack_fields(l->in_dim, l->in_log2, l->nin, in);
}

void ll_unpack_in(const LL *l, uint32_t x, LLIdx in) {
    unpack_fields(l->in_dim, l->in_log2, l->nin, x, in);
}

uint32_t ll_pack_out(const LL *l, const LLIdx c) {
    return pack_fields(l->out_dim, l->out_log2, l->nout, c);
}

void ll_unpack_out(const LL *l, uint32_t y, LLIdx c) {
    unpack_fields(l->out_dim, l->out_log2, l->nout, y, c);
}

uint32_t ll_out_coord(const LL *l, uint32_t y, LLDim d) {
    int i = out_idx(l, d);
    if (i < 0) return 0;
    return shr32(y, out_shift_i(l, i)) & mask32(l->out_log2[i]);
}

uint32_t ll_apply(const LL *l, uint32_t x) {
    uint32_t y = 0;
    while (x) {
        y ^= l->basis[__builtin_ctz(x)];
        x &= x - 1;
    }
    return y;
}

void ll_apply_idx(const LL *l, const LLIdx in, LLIdx out) {
    ll_unpack_out(l, ll_apply(l, ll_pack_in(l, in)), out);
}

/* Flat input bits that belong to the dims of a dim set. */
static uint32_t dims_bits(const LL *l, unsigned dims) {
    uint32_t m = 0;
    for (int i = 0; i < l->nin; i++)
        if (dims & LL_BIT(l->in_dim[i])) m |= shl32(mask32(l->in_log2[i]), in_shift_i(l, i));
    return m;
}

uint32_t ll_apply_dims(const LL *l, uint32_t x, unsigned dims) {
    return ll_apply(l, x & dims_bits(l, dims));
}

static uint32_t or_of_bases(const LL *l, uint32_t bits) {
    uint32_t m = 0;
    for (int i = 0; i < LL_MAX_BITS; i++)
        if (bits >> i & 1) m |= l->basis[i];
    return m;
}

bool ll_dims_disjoint(const LL *l, unsigned a, unsigned b) {
    return (or_of_bases(l, dims_bits(l, a)) & or_of_bases(l, dims_bits(l, b))) == 0;
}

/* ---- layout skeletons: copy dims, bases re-packed by name -------------------------------- */
/* Extent of out dim d of size 2^log2 in a layout derived from src. */
static uint32_t derived_extent(const LL *src, LLDim d, int log2) {
    int i = out_idx(src, d);
    uint32_t full = full_extent(log2);
    if (i < 0 || src->out_log2[i] < log2) return full;
    return src->extent[i] < full ? src->extent[i] : full;
}

static void inherit_extents(LL *dst, const LL *src) {
    for (int i = 0; i < dst->nout; i++)
        dst->extent[i] = derived_extent(src, (LLDim)dst->out_dim[i], dst->out_log2[i]);
}

/* Re-pack an out value of `from` into the out fields of `to` (by name, must fit). */
static uint32_t repack_out(const LL *from, uint32_t y, const LL *to) {
    LLIdx c;
    ll_unpack_out(from, y, c);
    for (int d = 0; d < LL_NUM_DIMS; d++) TL_ASSERT(c[d] == 0 || out_idx(to, (LLDim)d) >= 0);
    return ll_pack_out(to, c);
}

/* Set basis k of in dim d of l from the coordinate tuple c. */
static void set_basis(LL *l, LLDim d, int k, const LLIdx c) {
    int i = in_idx(l, d);
    TL_ASSERT(i >= 0 && k < l->in_log2[i]);
    l->basis[in_shift_i(l, i) + k] = ll_pack_out(l, c);
}

static void get_basis(const LL *l, LLDim d, int k, LLIdx c) {
    ll_unpack_out(l, ll_basis(l, d, k), c);
}

/* Copy of l whose in dim d keeps only the old bits bits[0..n) (new bit j = old bits[j]). */
static LL select_in_bits(const LL *l, LLDim d, const uint8_t *bits, int n) {
    int i = in_idx(l, d);
    TL_ASSERT(i >= 0);
    LL r = *l;
    int s = in_shift_i(l, i), old = l->in_log2[i], total = ll_in_bits(l);
    memset(r.basis, 0, sizeof r.basis);
    memcpy(r.basis, l->basis, sizeof(uint32_t) * (size_t)s);
    for (int j = 0; j < n; j++) {
        TL_ASSERT(bits[j] < old);
        r.basis[s + j] = l->basis[s + bits[j]];
    }
    memcpy(&r.basis[s + n], &l->basis[s + old], sizeof(uint32_t) * (size_t)(total - s - old));
    r.in_log2[i] = (uint8_t)n;
    return r;
}

/* ---- 3. product -------------------------------------------------------------------------- */
static void merge_dims(LL *r, const LL *a, const LL *b, bool ins) {
    int na = ins ? a->nin : a->nout, nb = ins ? b->nin : b->nout;
    for (int i = 0; i < na; i++) {
        LLDim d = (LLDim)(ins ? a->in_dim[i] : a->out_dim[i]);
        int lg = ins ? a->in_log2[i] + ll_in_log2(b, d) : a->out_log2[i] + ll_out_log2(b, d);
        if (ins) ll_add_in(r, d, lg);
        else ll_add_out(r, d, lg);
    }
    for (int i = 0; i < nb; i++) {
        LLDim d = (LLDim)(ins ? b->in_dim[i] : b->out_dim[i]);
        if ((ins ? in_idx(a, d) : out_idx(a, d)) >= 0) continue;
        if (ins) ll_add_in(r, d, b->in_log2[i]);
        else ll_add_out(r, d, b->out_log2[i]);
    }
}

LL ll_product(const LL *a, const LL *b) {
    LL r = ll_empty();
    merge_dims(&r, a, b, true);
    merge_dims(&r, a, b, false);
    LLIdx c;
    for (int i = 0; i < a->nin; i++)
        for (int k = 0; k < a->in_log2[i]; k++) {
            get_basis(a, (LLDim)a->in_dim[i], k, c);
            set_basis(&r, (LLDim)a->in_dim[i], k, c);
        }
    for (int i = 0; i < b->nin; i++) {
        LLDim d = (LLDim)b->in_dim[i];
        for (int k = 0; k < b->in_log2[i]; k++) {
            get_basis(b, d, k, c);
            for (int o = 0; o < LL_NUM_DIMS; o++)
                if (c[o]) c[o] <<= ll_out_log2(a, (LLDim)o);
            set_basis(&r, d, ll_in_log2(a, d) + k, c);
        }
    }
    for (int i = 0; i < r.nout; i++) {
        LLDim d = (LLDim)r.out_dim[i];
        const LL *src = out_idx(b, d) < 0 ? a : out_idx(a, d) < 0 ? b : NULL;
        if (src) r.extent[i] = ll_extent(src, d);
    }
    return r;
}

/* Same dims as l with out dim sizes replaced by log2s[] (index = out position). */
static LL resized_outs(const LL *l, const int *log2s) {
    LL r = ll_empty();
    for (int i = 0; i < l->nin; i++) ll_add_in(&r, (LLDim)l->in_dim[i], l->in_log2[i]);
    for (int i = 0; i < l->nout; i++) ll_add_out(&r, (LLDim)l->out_dim[i], log2s[i]);
    inherit_extents(&r, l);
    return r;
}

LL ll_not_larger(const LL *l, const LLIdx shape, bool drop_regs) {
    int lg[LL_MAX_DIMS];
    for (int i = 0; i < l->nout; i++) {
        uint32_t want = shape[l->out_dim[i]];
        lg[i] = l->out_log2[i];
        if (want && want < (1ull << lg[i])) lg[i] = log2u(want);
    }
    LL r = resized_outs(l, lg);
    uint32_t made_zero = 0;
    for (int x = 0; x < ll_in_bits(l); x++) {
        LLIdx c;
        ll_unpack_out(l, l->basis[x], c);
        for (int i = 0; i < l->nout; i++) c[l->out_dim[i]] &= mask32(lg[i]);
        r.basis[x] = ll_pack_out(&r, c);
        if (l->basis[x] && !r.basis[x]) made_zero |= 1u << x;
    }
    if (!drop_regs || in_idx(&r, LL_REG) < 0) return r;
    int rs = ll_in_shift(&r, LL_REG), rn = ll_in_log2(&r, LL_REG);
    uint8_t keep[LL_MAX_BITS];
    int nk = 0;
    for (int k = 0; k < rn; k++)
        if (!(made_zero >> (rs + k) & 1)) keep[nk++] = (uint8_t)k;
    return select_in_bits(&r, LL_REG, keep, nk);
}

LL ll_not_smaller(const LL *l, const LLIdx shape) {
    LL r = *l;
    LLDim order[LL_NUM_DIMS];
    int n = 0;
    for (int i = 0; i < l->nout; i++) order[n++] = (LLDim)l->out_dim[i];
    for (int d = 0; d < LL_NUM_DIMS; d++)
        if (shape[d] && out_idx(l, (LLDim)d) < 0) order[n++] = (LLDim)d;
    for (int i = 0; i < n; i++) {
        uint64_t want = shape[order[i]], have = 1ull << ll_out_log2(&r, order[i]);
        if (!want || want <= have) continue;
        LL rep = ll_identity1d((int)(want / have), LL_REG, order[i]);
        r = ll_product(&r, &rep);
    }
    return r;
}

/* ---- 4. rank and free variables ---------------------------------------------------------- */
int ll_rank(const LL *l) {
    LLGf2 g;
    return ll_in_bits(l) - __builtin_popcount(gf2_columns(&g, l));
}

uint32_t ll_free_mask(const LL *l) {
    LLGf2 g;
    return gf2_columns(&g, l);
}

uint32_t ll_free_mask_dim(const LL *l, LLDim d) {
    int i = in_idx(l, d);
    if (i < 0) return 0;
    return shr32(ll_free_mask(l), in_shift_i(l, i)) & mask32(l->in_log2[i]);
}

bool ll_is_injective(const LL *l) { return ll_free_mask(l) == 0; }
bool ll_is_surjective(const LL *l) { return ll_rank(l) == ll_out_bits(l); }
bool ll_is_bijective(const LL *l) {
    return ll_is_injective(l) && ll_in_bits(l) == ll_out_bits(l);
}

/* ---- 5. invert --------------------------------------------------------------------------- */
/* Skeleton with l's outs as ins and l's ins as outs. */
static LL swapped_dims(const LL *l) {
    LL r = ll_empty();
    for (int i = 0; i < l->nout; i++) ll_add_in(&r, (LLDim)l->out_dim[i], l->out_log2[i]);
    for (int i = 0; i < l->nin; i++) ll_add_out(&r, (LLDim)l->in_dim[i], l->in_log2[i]);
    return r;
}

LLStatus ll_pseudo_invert(const LL *l, LL *out) {
    LLGf2 g;
    gf2_columns(&g, l); /* only pivot columns are inserted: free bits stay 0 */
    LL r = swapped_dims(l);
    for (int j = 0; j < ll_out_bits(l); j++) {
        uint32_t comb;
        if (ll_gf2_reduce(&g, 1ull << j, &comb)) return LL_ENOTINV;
        r.basis[j] = comb;
    }
    *out = r;
    return LL_OK;
}

LLStatus ll_invert(const LL *l, LL *out) {
    if (!ll_is_bijective(l)) return LL_ENOTINV;
    return ll_pseudo_invert(l, out);
}

/* ---- 6/7. compose ------------------------------------------------------------------------ */
LL ll_compose(const LL *outer, const LL *inner) {
    for (int i = 0; i < inner->nout; i++)
        TL_ASSERT(inner->out_log2[i] <= ll_in_log2(outer, (LLDim)inner->out_dim[i]));
    LL r = ll_empty();
    for (int i = 0; i < inner->nin; i++)
        ll_add_in(&r, (LLDim)inner->in_dim[i], inner->in_log2[i]);
    for (int i = 0; i < outer->nout; i++) {
        ll_add_out(&r, (LLDim)outer->out_dim[i], outer->out_log2[i]);
        r.extent[i] = outer->extent[i];
    }
    for (int x = 0; x < ll_in_bits(inner); x++) {
        LLIdx c;
        ll_unpack_out(inner, inner->basis[x], c);
        r.basis[x] = ll_apply(outer, ll_pack_in(outer, c));
    }
    return r;
}

/* Columns of b and a, extended so that every free column of b whose (dim, bit) also is an
 * input bit of a gets a private extra row shared with that bit of a: the solver must
 * then use b's same bit for it (identity on shared replicated dims). */
static void extend_for_identity(const LL *a, const LL *b, uint64_t *ax, uint64_t *bx) {
    LLGf2 g;
    uint32_t free_b = gf2_columns(&g, b);
    int e = 0;
    for (int i = 0; i < b->nin; i++) {
        LLDim d = (LLDim)b->in_dim[i];
        for (int k = 0; k < b->in_log2[i]; k++) {
            int col = in_shift_i(b, i) + k;
            if (!(free_b >> col & 1) || k >= ll_in_log2(a, d)) continue;
            bx[col] |= 1ull << (32 + e);
            ax[ll_in_shift(a, d) + k] |= 1ull << (32 + e);
            e++;
        }
    }
}

LLStatus ll_invert_and_compose(const LL *a, const LL *b, LL *out) {
    for (int i = 0; i < a->nout; i++)
        TL_ASSERT(a->out_log2[i] <= ll_out_log2(b, (LLDim)a->out_dim[i]));
    uint64_t ax[LL_MAX_BITS] = {0}, bx[LL_MAX_BITS] = {0};
    for (int x = 0; x < ll_in_bits(a); x++) ax[x] = repack_out(a, a->basis[x], b);
    for (int x = 0; x < ll_in_bits(b); x++) bx[x] = b->basis[x];
    extend_for_identity(a, b, ax, bx);
    LLGf2 g;
    ll_gf2_init(&g);
    for (int x = 0; x < ll_in_bits(b); x++) ll_gf2_insert(&g, bx[x], 1u << x);
    LL r = ll_empty();
    for (int i = 0; i < a->nin; i++) ll_add_in(&r, (LLDim)a->in_dim[i], a->in_log2[i]);
    for (int i = 0; i < b->nin; i++) ll_add_out(&r, (LLDim)b->in_dim[i], b->in_log2[i]);
    for (int x = 0; x < ll_in_bits(a); x++) {
        uint32_t comb;
        if (ll_gf2_reduce(&g, ax[x], &comb)) return LL_ENOTINV;
        r.basis[x] = comb;
    }
    *out = r;
    return LL_OK;
}

/* ---- 8. sublayouts ----------------------------------------------------------------------- */
LL ll_sublayout(const LL *l, unsigned ins, unsigned outs) {
    LL r = ll_empty();
    for (int i = 0; i < l->nin; i++)
        if (ins & LL_BIT(l->in_dim[i])) ll_add_in(&r, (LLDim)l->in_dim[i], l->in_log2[i]);
    for (int i = 0; i < l->nout; i++)
        if (outs & LL_BIT(l->out_dim[i])) ll_add_out(&r, (LLDim)l->out_dim[i], l->out_log2[i]);
    inherit_extents(&r, l);
    for (int i = 0; i < r.nin; i++)
        for (int k = 0; k < r.in_log2[i]; k++) {
            LLIdx c;
            get_basis(l, (LLDim)r.in_dim[i], k, c);
            set_basis(&r, (LLDim)r.in_dim[i], k, c);
        }
    return r;
}

/* True when every basis of in dim d is exactly 2^k on out dim d and nothing else. */
static bool is_identity_dim(const LL *l, LLDim d) {
    LLIdx c;
    for (int k = 0; k < ll_in_log2(l, d); k++) {
        get_basis(l, d, k, c);
        for (int o = 0; o < LL_NUM_DIMS; o++)
            if (c[o] != (o == (int)d ? 1u << k : 0u)) return false;
    }
    return true;
}

LLStatus ll_quotient(const LL *l, LLDim d, LL *out) {
    if (ll_in_log2(l, d) != ll_out_log2(l, d) || !is_identity_dim(l, d)) return LL_ENOTQUOT;
    for (int i = 0; i < l->nin; i++) {
        if (l->in_dim[i] == d) continue;
        for (int k = 0; k < l->in_log2[i]; k++)
            if (ll_basis_coord(l, (LLDim)l->in_dim[i], k, d)) return LL_ENOTQUOT;
    }
    *out = ll_sublayout(l, ~LL_BIT(d), ~LL_BIT(d));
    return LL_OK;
}

LL ll_remove_zero_bases(const LL *l, LLDim d, uint32_t *kept) {
    uint8_t bits[LL_MAX_BITS];
    int n = 0;
    uint32_t m = 0;
    for (int k = 0; k < ll_in_log2(l, d); k++)
        if (ll_basis(l, d, k)) {
            bits[n++] = (uint8_t)k;
            m |= 1u << k;
        }
    if (kept) *kept = m;
    if (in_idx(l, d) < 0) return *l;
    return select_in_bits(l, d, bits, n);
}

LL ll_permute_in(const LL *l, LLDim d, const uint8_t *perm) {
    int n = ll_in_log2(l, d);
    uint32_t seen = 0;
    for (int k = 0; k < n; k++) {
        TL_ASSERT(perm[k] < n && !(seen >> perm[k] & 1));
        seen |= 1u << perm[k];
    }
    if (in_idx(l, d) < 0) return *l;
    return select_in_bits(l, d, perm, n);
}

/* ---- 9. reshape / transpose / slice ------------------------------------------------------ */
LL ll_reorder_outs(const LL *l, int n, const LLDim *order) {
    TL_ASSERT(n == l->nout);
    LL r = ll_empty();
    for (int i = 0; i < l->nin; i++) ll_add_in(&r, (LLDim)l->in_dim[i], l->in_log2[i]);
    for (int i = 0; i < n; i++) {
        TL_ASSERT(out_idx(l, order[i]) >= 0);
        ll_add_out(&r, order[i], ll_out_log2(l, order[i]));
    }
    inherit_extents(&r, l);
    for (int x = 0; x < ll_in_bits(l); x++) r.basis[x] = repack_out(l, l->basis[x], &r);
    return r;
}

static void rename_list(uint8_t *dims, int n, const LLIdx map) {
    for (int i = 0; i < n; i++) {
        TL_ASSERT(map[dims[i]] < LL_NUM_DIMS);
        dims[i] = (uint8_t)map[dims[i]];
    }
    for (int i = 0; i < n; i++) TL_ASSERT(find_dim(dims, i, dims[i]) < 0);
}

LL ll_rename_outs(const LL *l, const LLIdx map) {
    LL r = *l;
    rename_list(r.out_dim, r.nout, map);
    return r;
}

LL ll_rename_ins(const LL *l, const LLIdx map) {
    LL r = *l;
    rename_list(r.in_dim, r.nin, map);
    return r;
}

static void identity_map(LLIdx map) {
    for (int d = 0; d < LL_NUM_DIMS; d++) map[d] = (uint32_t)d;
}

LL ll_transpose(const LL *l, int rank, const int *perm) {
    LLIdx map;
    identity_map(map);
    for (int i = 0; i < rank; i++) {
        TL_ASSERT(perm[i] >= 0 && perm[i] < rank && rank <= 4);
        map[LL_DIM0 + perm[i]] = (uint32_t)(LL_DIM0 + i);
    }
    return ll_rename_outs(l, map);
}

LL ll_reshape_outs(const LL *l, int n, const LLDim *dims, const int *log2) {
    LL r = *l;
    int total = 0;
    r.nout = 0;
    for (int i = 0; i < n; i++) {
        ll_add_out(&r, dims[i], log2[i]);
        total += log2[i];
    }
    TL_ASSERT(total == ll_out_bits(l));
    return r;
}

LL ll_reshape_ins(const LL *l, int n, const LLDim *dims, const int *log2) {
    LL r = *l;
    int total = 0;
    r.nin = 0;
    for (int i = 0; i < n; i++) {
        ll_add_in(&r, dims[i], log2[i]);
        total += log2[i];
    }
    TL_ASSERT(total == ll_in_bits(l));
    return r;
}

LL ll_reshape_tensor(const LL *l, int rank, const int *new_log2) {
    LLDim order[LL_MAX_DIMS], dims[LL_MAX_DIMS];
    int lg[LL_MAX_DIMS], old = l->nout;
    TL_ASSERT(rank >= 1 && rank <= LL_MAX_DIMS);
    for (int i = 0; i < old; i++) order[i] = (LLDim)(LL_DIM0 + old - 1 - i);
    LL t = ll_reorder_outs(l, old, order); /* row-major: last dim minor */
    for (int i = 0; i < rank; i++) {
        dims[i] = (LLDim)(LL_DIM0 + rank - 1 - i);
        lg[i] = new_log2[rank - 1 - i];
    }
    return ll_reshape_outs(&t, rank, dims, lg);
}

LL ll_reduce_axis(const LL *l, int axis, bool keepdim) {
    LLDim d = (LLDim)(LL_DIM0 + axis);
    LL r = ll_sublayout(l, ~0u, ~LL_BIT(d));
    if (keepdim) {
        ll_add_out(&r, d, 0);
        return r;
    }
    LLIdx map;
    identity_map(map);
    for (int j = LL_DIM0 + axis + 1; j <= LL_DIM3; j++) map[j] = (uint32_t)(j - 1);
    return ll_rename_outs(&r, map);
}

LL ll_expand_dims(const LL *l, int axis) {
    LLIdx map;
    identity_map(map);
    for (int j = LL_DIM0 + axis; j <= LL_DIM3; j++) {
        TL_ASSERT(out_idx(l, (LLDim)j) < 0 || j < LL_DIM3);
        map[j] = (uint32_t)(j < LL_DIM3 ? j + 1 : j);
    }
    LL r = ll_rename_outs(l, map);
    ll_add_out(&r, (LLDim)(LL_DIM0 + axis), 0);
    return r;
}

/* ---- 10. divide -------------------------------------------------------------------------- */
/* b's leading bases of every in dim equal a's, and b's dims fit into a's. */
static bool divide_prefix_ok(const LL *a, const LL *b) {
    for (int i = 0; i < b->nout; i++)
        if (b->out_log2[i] > ll_out_log2(a, (LLDim)b->out_dim[i])) return false;
    for (int i = 0; i < b->nin; i++) {
        LLDim d = (LLDim)b->in_dim[i];
        if (b->in_log2[i] > ll_in_log2(a, d)) return false;
        for (int k = 0; k < b->in_log2[i]; k++) {
            LLIdx ca, cb;
            get_basis(a, d, k, ca);
            get_basis(b, d, k, cb);
            if (memcmp(ca, cb, sizeof ca)) return false;
        }
    }
    return true;
}

LLStatus ll_divide_left(const LL *a, const LL *b, LL *c) {
    if (!divide_prefix_ok(a, b)) return LL_ENODIV;
    LL r = ll_empty();
    for (int i = 0; i < a->nin; i++) {
        LLDim d = (LLDim)a->in_dim[i];
        ll_add_in(&r, d, a->in_log2[i] - ll_in_log2(b, d));
    }
    for (int i = 0; i < a->nout; i++) {
        LLDim d = (LLDim)a->out_dim[i];
        ll_add_out(&r, d, a->out_log2[i] - ll_out_log2(b, d));
    }
    for (int i = 0; i < a->nin; i++) {
        LLDim d = (LLDim)a->in_dim[i];
        for (int k = ll_in_log2(b, d); k < a->in_log2[i]; k++) {
            LLIdx ca;
            get_basis(a, d, k, ca);
            for (int o = 0; o < LL_NUM_DIMS; o++) {
                int lb = ll_out_log2(b, (LLDim)o);
                if (ca[o] & mask32(lb)) return LL_ENODIV;
                ca[o] >>= lb;
            }
            set_basis(&r, d, k - ll_in_log2(b, d), ca);
        }
    }
    *c = r;
    return LL_OK;
}

bool ll_reg_perm_for_divide(const LL *a, const LL *b, uint8_t perm[LL_MAX_BITS]) {
    int na = ll_in_log2(a, LL_REG), nb = ll_in_log2(b, LL_REG), n = 0;
    if (nb > na) return false;
    uint32_t used = 0;
    for (int k = 0; k < nb; k++) {
        LLIdx cb, ca;
        get_basis(b, LL_REG, k, cb);
        int j = 0;
        for (; j < na; j++) {
            if (used >> j & 1) continue;
            get_basis(a, LL_REG, j, ca);
            if (!memcmp(ca, cb, sizeof ca)) break;
        }
        if (j == na) return false;
        used |= 1u << j;
        perm[n++] = (uint8_t)j;
    }
    for (int j = 0; j < na; j++)
        if (!(used >> j & 1)) perm[n++] = (uint8_t)j;
    return true;
}

int ll_num_consecutive(const LL *l, LLDim in, LLDim out) {
    int n = 0, nin = ll_in_log2(l, in);
    while (n < nin) {
        LLIdx c;
        get_basis(l, in, n, c);
        uint32_t want = 1u << n;
        c[out] ^= want;
        bool pure = true;
        for (int o = 0; o < LL_NUM_DIMS; o++) pure = pure && c[o] == 0;
        if (!pure) break;
        n++;
    }
    uint32_t lead = in_idx(l, in) < 0 ? 0 : shl32(mask32(n), ll_in_shift(l, in));
    for (int x = 0; x < ll_in_bits(l); x++) {
        uint32_t v = ll_out_coord(l, l->basis[x], out);
        if ((lead >> x & 1) || !v) continue;
        if (__builtin_ctz(v) < n) n = __builtin_ctz(v);
    }
    return 1 << n;
}

/* ---- equality ---------------------------------------------------------------------------- */
bool ll_equal(const LL *a, const LL *b) {
    for (int d = 0; d < LL_NUM_DIMS; d++) {
        if (ll_in_log2(a, (LLDim)d) != ll_in_log2(b, (LLDim)d)) return false;
        if (ll_out_log2(a, (LLDim)d) != ll_out_log2(b, (LLDim)d)) return false;
    }
    for (int i = 0; i < a->nin; i++)
        for (int k = 0; k < a->in_log2[i]; k++) {
            LLIdx ca, cb;
            get_basis(a, (LLDim)a->in_dim[i], k, ca);
            get_basis(b, (LLDim)a->in_dim[i], k, cb);
            if (memcmp(ca, cb, sizeof ca)) return false;
        }
    return true;
}

/* ---- fit by enumeration ------------------------------------------------------------------ */
/* Query fn at input x of r; false if undefined or outside r's out dims. */
static bool fit_point(const LL *r, LLPointFn fn, void *ud, uint32_t x, uint32_t *y) {
    LLIdx in, c;
    ll_unpack_in(r, x, in);
    memset(c, 0, sizeof c);
    if (!fn(ud, in, c)) return false;
    for (int d = 0; d < LL_NUM_DIMS; d++) {
        int i = out_idx(r, (LLDim)d);
        if (c[d] && (i < 0 || c[d] > mask32(r->out_log2[i]))) return false;
    }
    *y = ll_pack_out(r, c);
    return true;
}

LLStatus ll_fit_from_table(LL *out, const LL *shape, LLPointFn fn, void *ud) {
    LL r = *shape;
    int nb = ll_in_bits(&r);
    TL_ASSERT(nb <= 24);
    memset(r.basis, 0, sizeof r.basis);
    for (int i = 0; i < nb; i++)
        if (!fit_point(&r, fn, ud, 1u << i, &r.basis[i])) return LL_ENONLINEAR;
    for (uint32_t x = 0; x < (1u << nb); x++) {
        uint32_t y;
        if (!fit_point(&r, fn, ud, x, &y) || y != ll_apply(&r, x)) return LL_ENONLINEAR;
    }
    *out = r;
    return LL_OK;
}

typedef struct FwdTable {
    const LL *shape;
    uint32_t *tab; /* packed coords + 1 per hardware index; 0 = hole */
} FwdTable;

static bool fwd_lookup(void *ud, const LLIdx in, LLIdx out) {
    FwdTable *t = ud;
    uint32_t v = t->tab[ll_pack_in(t->shape, in)];
    if (!v) return false;
    ll_unpack_out(t->shape, v - 1, out);
    return true;
}

/* Hardware index hw inside shape's in dims? */
static bool hw_fits(const LL *shape, const LLIdx hw) {
    for (int d = 0; d < LL_NUM_DIMS; d++) {
        int i = in_idx(shape, (LLDim)d);
        if (hw[d] && (i < 0 || hw[d] > mask32(shape->in_log2[i]))) return false;
    }
    return true;
}

static bool fwd_fill(const LL *shape, uint32_t reps, LLForwardFn fn, void *ud, uint32_t *tab) {
    for (uint32_t y = 0; y < (1u << ll_out_bits(shape)); y++) {
        LLIdx c;
        ll_unpack_out(shape, y, c);
        for (uint32_t rep = 0; rep < reps; rep++) {
            LLIdx hw;
            memset(hw, 0, sizeof hw);
            if (!fn(ud, c, rep, hw) || !hw_fits(shape, hw)) return false;
            uint32_t x = ll_pack_in(shape, hw);
            if (tab[x] && tab[x] != y + 1) return false;
            tab[x] = y + 1;
        }
    }
    return true;
}

LLStatus ll_fit_from_forward(LL *out, const LL *shape, uint32_t reps, LLForwardFn fn,
                             void *ud) {
    TL_ASSERT(ll_in_bits(shape) <= 24 && ll_out_bits(shape) <= 24 && reps >= 1);
    uint32_t *tab = calloc((size_t)1 << ll_in_bits(shape), sizeof *tab); /* scratch */
    TL_ASSERT(tab);
    LLStatus st = LL_ENONLINEAR;
    if (fwd_fill(shape, reps, fn, ud, tab)) {
        FwdTable t = {shape, tab};
        st = ll_fit_from_table(out, shape, fwd_lookup, &t);
    }
    free(tab);
    return st;
}

/* ---- printing ---------------------------------------------------------------------------- */
/* Out positions sorted by dim name. */
static int sorted_outs(const LL *l, int *pos) {
    int n = 0;
    for (int d = 0; d < LL_NUM_DIMS; d++) {
        int i = out_idx(l, (LLDim)d);
        if (i >= 0) pos[n++] = i;
    }
    return n;
}

static void print_tuple(StrBuf *sb, const LL *l, uint32_t y) {
    int pos[LL_MAX_DIMS], n = sorted_outs(l, pos);
    sb_putc(sb, '(');
    for (int j = 0; j < n; j++)
        sb_printf(sb, "%s%u", j ? "," : "", ll_out_coord(l, y, (LLDim)l->out_dim[pos[j]]));
    sb_putc(sb, ')');
}

static void print_outs(StrBuf *sb, const LL *l) {
    int pos[LL_MAX_DIMS], n = sorted_outs(l, pos);
    bool reordered = false;
    sb_puts(sb, "->");
    for (int j = 0; j < n; j++) {
        int i = pos[j];
        sb_printf(sb, " %s:%llu", dim_names[l->out_dim[i]], 1ull << l->out_log2[i]);
        if (l->extent[i] != full_extent(l->out_log2[i]))
            sb_printf(sb, "(extent %u)", l->extent[i]);
        reordered = reordered || pos[j] != j;
    }
    if (!reordered) return;
    sb_puts(sb, " [packed");
    for (int i = 0; i < l->nout; i++)
        sb_printf(sb, "%s%s", i ? "," : " ", dim_names[l->out_dim[i]]);
    sb_putc(sb, ']');
}

void ll_print(StrBuf *sb, const LL *l) {
    for (int i = 0; i < l->nin; i++) {
        if (!l->in_log2[i]) continue;
        sb_printf(sb, "%s:", dim_names[l->in_dim[i]]);
        for (int k = 0; k < l->in_log2[i]; k++) {
            sb_putc(sb, ' ');
            print_tuple(sb, l, l->basis[in_shift_i(l, i) + k]);
        }
        sb_puts(sb, "  ");
    }
    print_outs(sb, l);
}

/* "v1:v0" for input x: values of the non-empty in dims, major dim first. */
static void format_owner(char *buf, size_t n, const LL *l, uint32_t x) {
    LLIdx in;
    ll_unpack_in(l, x, in);
    size_t len = 0;
    buf[0] = 0;
    for (int i = l->nin - 1; i >= 0; i--) {
        if (!l->in_log2[i]) continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%u", len ? ":" : "", in[l->in_dim[i]]);
        if (len >= n) return;
    }
}

/* Cell of packed out y: rows = first out dim by name, cols = the rest (last name minor). */
static uint32_t table_cell(const LL *l, uint32_t y, uint32_t *ncols) {
    int pos[LL_MAX_DIMS], n = sorted_outs(l, pos);
    uint32_t col = 0, cols = 1;
    for (int j = 1; j < n; j++) {
        int lg = l->out_log2[pos[j]];
        col = (col << lg) | ll_out_coord(l, y, (LLDim)l->out_dim[pos[j]]);
        cols <<= lg;
    }
    *ncols = cols;
    return (n ? ll_out_coord(l, y, (LLDim)l->out_dim[pos[0]]) : 0) * cols + col;
}

static void dump_header(StrBuf *sb, const LL *l) {
    int pos[LL_MAX_DIMS], n = sorted_outs(l, pos);
    sb_printf(sb, "# rows: %s, cols:", n ? dim_names[l->out_dim[pos[0]]] : "-");
    for (int j = 1; j < n; j++) sb_printf(sb, " %s", dim_names[l->out_dim[pos[j]]]);
    sb_puts(sb, ", cell:");
    for (int i = l->nin - 1, first = 1; i >= 0; i--)
        if (l->in_log2[i]) {
            sb_printf(sb, "%s%s", first ? " " : ":", dim_names[l->in_dim[i]]);
            first = 0;
        }
    sb_puts(sb, " (first owner)\n");
}

void ll_dump_table(StrBuf *sb, const LL *l) {
    int ob = ll_out_bits(l), nb = ll_in_bits(l);
    if (ob > 12 || nb > 20) {
        sb_puts(sb, "(table too large)\n");
        return;
    }
    uint32_t ncells = 1u << ob, ncols = 1, owner[4096];
    for (uint32_t c = 0; c < ncells; c++) owner[c] = ~0u;
    for (uint32_t x = 0; x < (1u << nb); x++) {
        uint32_t c = table_cell(l, ll_apply(l, x), &ncols);
        if (owner[c] == ~0u) owner[c] = x;
    }
    int width = 1;
    char buf[64];
    for (uint32_t c = 0; c < ncells; c++) {
        if (owner[c] == ~0u) continue;
        format_owner(buf, sizeof buf, l, owner[c]);
        if ((int)strlen(buf) > width) width = (int)strlen(buf);
    }
    dump_header(sb, l);
    for (uint32_t c = 0; c < ncells; c++) {
        if (owner[c] == ~0u) snprintf(buf, sizeof buf, ".");
        else format_owner(buf, sizeof buf, l, owner[c]);
        sb_printf(sb, "%*s%s", width, buf, (c + 1) % ncols ? " " : "\n");
    }
}
