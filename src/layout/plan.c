/* plan.c - conversion classifier and warp-shuffle plan, reduction planner, vector width
 * and bank-conflict count, all on linear layouts (plan.h). */
#include "layout/plan.h"

#include <string.h>

static uint32_t mask32(int n) { return n >= 32 ? ~0u : (1u << n) - 1; }

/* ---- conversions ------------------------------------------------------------------------- */
const char *plan_cvt_kind_name(CvtKind k) {
    switch (k) {
    case CVT_NOOP: return "no-op";
    case CVT_REG_PERMUTE: return "register permutation";
    case CVT_WARP_SHUFFLE: return "warp shuffle";
    case CVT_SHARED: return "shared memory";
    case CVT_DIST_SHARED: return "distributed shared memory";
    }
    return "?";
}

LLStatus plan_cvt_classify(const LL *src, const LL *dst, CvtKind *kind, LL *cvt) {
    static const LLDim dims[3] = {LL_BLOCK, LL_WARP, LL_LANE};
    static const CvtKind needs[3] = {CVT_DIST_SHARED, CVT_SHARED, CVT_WARP_SHUFFLE};
    LL c, q;
    LLStatus st = ll_invert_and_compose(dst, src, &c);
    if (st != LL_OK) return st;
    for (int i = 0; i < 3; i++) {
        if (ll_quotient(&c, dims[i], &q) != LL_OK) {
            *kind = needs[i];
            *cvt = c;
            return LL_OK;
        }
        c = q;
    }
    *kind = ll_quotient(&c, LL_REG, &q) == LL_OK ? CVT_NOOP : CVT_REG_PERMUTE;
    *cvt = c;
    return LL_OK;
}

void plan_reg_permutation(const LL *cvt, uint32_t *perm, int n) {
    TL_ASSERT(n <= (1 << ll_in_log2(cvt, LL_REG)));
    for (int i = 0; i < n; i++) {
        LLIdx in = {0}, out;
        in[LL_REG] = (uint32_t)i;
        ll_apply_idx(cvt, in, out);
        for (int d = 0; d < LL_NUM_DIMS; d++) TL_ASSERT(d == LL_REG || out[d] == 0);
        perm[i] = out[LL_REG];
    }
}

/* ---- warp shuffles ----------------------------------------------------------------------- */
/* C(reg, lane) split into its source register and source lane. */
static void cvt_at(const LL *c, uint32_t reg, uint32_t lane, uint32_t *sreg, uint32_t *slane) {
    LLIdx in = {0}, out;
    in[LL_REG] = reg;
    in[LL_LANE] = lane;
    ll_apply_idx(c, in, out);
    *sreg = out[LL_REG];
    *slane = out[LL_LANE];
}

typedef struct ShflSearch {
    const LL *cvt;
    int lane_bits, nodes;
    uint32_t a[5], m[5], n[5];
} ShflSearch;

/* Choose A(lane bit j) for j >= depth keeping ker M within ker N: each new column either
 * raises rank(M) or lies in the span of the earlier (M, N) columns. */
static bool shfl_search(ShflSearch *s, int j, const LLGf2 *gm, const LLGf2 *gmn) {
    if (j == s->lane_bits) return true;
    uint32_t nregs = 1u << ll_in_log2(s->cvt, LL_REG), lr, ll;
    cvt_at(s->cvt, 0, 1u << j, &lr, &ll);
    for (uint32_t a = 0; a < nregs && s->nodes < (1 << 16); a++, s->nodes++) {
        uint32_t ar, al;
        cvt_at(s->cvt, a, 0, &ar, &al);
        uint32_t m = al ^ ll, n = ar ^ lr;
        uint64_t mn = m | (uint64_t)n << 32;
        LLGf2 gm2 = *gm, gmn2 = *gmn;
        bool m_new = ll_gf2_insert(&gm2, m, 0), mn_new = ll_gf2_insert(&gmn2, mn, 0);
        if (m_new != mn_new) continue;
        s->a[j] = a;
        s->m[j] = m;
        s->n[j] = n;
        if (shfl_search(s, j + 1, &gm2, &gmn2)) return true;
    }
    return false;
}

/* S on a basis of sender lanes: S(M(l)) = N(l) on the image of M, 0 on a complement. */
static void shfl_sender_map(ShufflePlan *p, const ShflSearch *s) {
    LLGf2 g;
    ll_gf2_init(&g);
    for (int j = 0; j < p->lane_bits; j++) ll_gf2_insert(&g, s->m[j], 1u << j);
    for (int k = 0; k < p->lane_bits; k++) ll_gf2_insert(&g, 1u << k, 1u << (8 + k));
    for (int k = 0; k < p->lane_bits; k++) {
        uint32_t comb;
        TL_ASSERT(ll_gf2_reduce(&g, 1u << k, &comb) == 0);
        p->send_reg[k] = 0;
        for (int j = 0; j < p->lane_bits; j++)
            if (comb >> j & 1) p->send_reg[k] ^= s->n[j];
    }
}

static uint32_t xor_of(const uint32_t *v, uint32_t bits) {
    uint32_t r = 0;
    for (int j = 0; bits; j++, bits >>= 1)
        if (bits & 1) r ^= v[j];
    return r;
}

LLStatus plan_warp_shuffle(const LL *cvt, ShufflePlan *p) {
    memset(p, 0, sizeof *p);
    p->cvt = *cvt;
    p->lane_bits = ll_in_log2(cvt, LL_LANE);
    TL_ASSERT(p->lane_bits <= 5 && ll_out_log2(cvt, LL_LANE) <= 5);
    for (int d = 0; d < LL_NUM_DIMS; d++)
        if (d != LL_REG && d != LL_LANE)
            TL_ASSERT(ll_in_log2(cvt, (LLDim)d) == 0 && ll_out_log2(cvt, (LLDim)d) == 0);
    ShflSearch s = {.cvt = cvt, .lane_bits = p->lane_bits};
    LLGf2 gm, gmn;
    ll_gf2_init(&gm);
    ll_gf2_init(&gmn);
    if (!shfl_search(&s, 0, &gm, &gmn)) return LL_EUNSUPPORTED;
    memcpy(p->recv_reg, s.a, sizeof s.a);
    memcpy(p->lane_map, s.m, sizeof s.m);
    shfl_sender_map(p, &s);
    p->rounds = 1 << ll_in_log2(cvt, LL_REG);
    bool m_id = true;
    for (int j = 0; j < p->lane_bits; j++) m_id = m_id && s.m[j] == 1u << j;
    for (int t = 0; t < p->rounds && m_id; t++)
        if (plan_shfl_src_lane(p, (uint32_t)t, 0) == 0) p->local_rounds++;
    return LL_OK;
}

uint32_t plan_shfl_dst_reg(const ShufflePlan *p, uint32_t t, uint32_t lane) {
    return t ^ xor_of(p->recv_reg, lane);
}

uint32_t plan_shfl_src_lane(const ShufflePlan *p, uint32_t t, uint32_t lane) {
    uint32_t r, l;
    cvt_at(&p->cvt, t, 0, &r, &l);
    return l ^ xor_of(p->lane_map, lane);
}

uint32_t plan_shfl_send_reg(const ShufflePlan *p, uint32_t t, uint32_t lane) {
    uint32_t r, l;
    cvt_at(&p->cvt, t, 0, &r, &l);
    return r ^ xor_of(p->send_reg, lane ^ l);
}

/* ---- reductions -------------------------------------------------------------------------- */
/* Kernel vectors (over input bits [lo, lo + n)) of x -> l(x) with the axis bits cleared. */
static int other_kernel(const LL *l, uint32_t axis_bits, int lo, int n, uint32_t *kv) {
    LLGf2 g;
    ll_gf2_init(&g);
    int nk = 0;
    for (int k = 0; k < n; k++) {
        uint32_t col = l->basis[lo + k] & ~axis_bits, comb;
        if (ll_gf2_reduce(&g, col, &comb) == 0) kv[nk++] = comb | 1u << k;
        else ll_gf2_insert(&g, col, 1u << k);
    }
    return nk;
}

/* Pick, among the kernel vectors of in dim d, those whose elements are new (independent
 * images); returns their count, vectors in dim-local bits. */
static int pick_dim(const LL *l, LLDim d, uint32_t axis_bits, LLGf2 *img, uint32_t *out) {
    if (ll_in_log2(l, d) == 0) return 0;
    uint32_t kv[LL_MAX_BITS];
    int lo = ll_in_shift(l, d), n = 0;
    int nk = other_kernel(l, axis_bits, lo, ll_in_log2(l, d), kv);
    for (int i = 0; i < nk; i++)
        if (ll_gf2_insert(img, ll_apply(l, kv[i] << lo), 0)) out[n++] = kv[i];
    return n;
}

/* Every position holding an element of the same output must be reachable. */
static bool reduce_covered(const LL *l, uint32_t axis_bits, const LLGf2 *img) {
    uint32_t kv[LL_MAX_BITS];
    int nk = other_kernel(l, axis_bits, 0, ll_in_bits(l), kv);
    for (int i = 0; i < nk; i++)
        if (ll_gf2_reduce(img, ll_apply(l, kv[i]), NULL)) return false;
    return true;
}

LLStatus plan_reduce(const LL *l, int axis, bool keepdim, ReducePlan *p) {
    LLDim ad = (LLDim)(LL_DIM0 + axis);
    memset(p, 0, sizeof *p);
    p->axis = axis;
    uint32_t axis_bits = 0, block_vecs[LL_MAX_BITS];
    if (ll_out_log2(l, ad)) axis_bits = mask32(ll_out_log2(l, ad)) << ll_out_shift(l, ad);
    LLGf2 img;
    ll_gf2_init(&img);
    p->n_reg = pick_dim(l, LL_REG, axis_bits, &img, p->reg_vecs);
    p->n_lane = pick_dim(l, LL_LANE, axis_bits, &img, p->lane_vecs);
    p->n_warp = pick_dim(l, LL_WARP, axis_bits, &img, p->warp_vecs);
    if (pick_dim(l, LL_BLOCK, axis_bits, &img, block_vecs) || !reduce_covered(l, axis_bits, &img))
        return LL_EUNSUPPORTED;
    for (int i = 0; i < p->n_reg; i++) p->reg_mask |= p->reg_vecs[i];
    for (int i = 0; i < p->n_lane; i++) p->lane_mask |= p->lane_vecs[i];
    for (int i = 0; i < p->n_warp; i++) p->warp_mask |= p->warp_vecs[i];
    LL r = ll_reduce_axis(l, axis, keepdim);
    p->result = ll_remove_zero_bases(&r, LL_REG, &p->kept_regs);
    return LL_OK;
}

/* ---- vectorization ----------------------------------------------------------------------- */
int plan_vector_width_cvt(const LL *cvt, int max_elems, uint8_t perm[LL_MAX_BITS]) {
    uint8_t tmp[LL_MAX_BITS];
    if (!perm) perm = tmp;
    for (int v = max_elems; v >= 2; v /= 2) {
        LL b = ll_identity1d(v, LL_REG, LL_OFFSET), pc, c;
        if (!ll_reg_perm_for_divide(cvt, &b, perm)) continue;
        pc = ll_permute_in(cvt, LL_REG, perm);
        if (ll_divide_left(&pc, &b, &c) == LL_OK) return v;
    }
    for (int k = 0; k < LL_MAX_BITS; k++) perm[k] = (uint8_t)k;
    return 1;
}

int plan_vector_width(const LL *reg, const LL *mem, int elem_bits, int max_bits) {
    LL cvt;
    if (ll_invert_and_compose(reg, mem, &cvt) != LL_OK) return 1;
    return plan_vector_width_cvt(&cvt, max_bits / elem_bits, NULL);
}

/* ---- bank conflicts ---------------------------------------------------------------------- */
int plan_bank_conflicts(const LL *addr, int elem_bits, int vec_elems) {
    TL_ASSERT(elem_bits % 8 == 0 && vec_elems >= 1);
    int eb = elem_bits / 8, vb = vec_elems * eb;
    TL_ASSERT(!(vb & (vb - 1)) && vb <= 16);
    int phase_lanes = vb <= 4 ? 32 : 128 / vb, phases = 32 / phase_lanes;
    LLGf2 words, banks;
    ll_gf2_init(&words);
    ll_gf2_init(&banks);
    for (int b = 4; b < vb; b *= 2) { /* words inside one lane's vector */
        ll_gf2_insert(&words, (uint64_t)b / 4, 0);
        ll_gf2_insert(&banks, (uint64_t)(b / 4) & 31, 0);
    }
    for (int j = 0; (1 << j) < phase_lanes && j < ll_in_log2(addr, LL_LANE); j++) {
        uint64_t w = (uint64_t)ll_basis_coord(addr, LL_LANE, j, LL_OFFSET) * (uint64_t)eb >> 2;
        ll_gf2_insert(&words, w, 0);
        ll_gf2_insert(&banks, w & 31, 0);
    }
    /* A phase touches at most 32 words (128 bytes), so its minimum is one wavefront. */
    int same_bank = ll_gf2_rank(&words) - ll_gf2_rank(&banks);
    return phases * ((1 << same_bank) - 1);
}

int plan_access_conflicts(const LL *reg, const LL *mem, int elem_bits, int *vec_out) {
    LL cvt;
    uint8_t perm[LL_MAX_BITS];
    if (ll_invert_and_compose(reg, mem, &cvt) != LL_OK) return -1;
    int v = plan_vector_width_cvt(&cvt, 128 / elem_bits, perm);
    if (vec_out) *vec_out = v;
    return plan_bank_conflicts(&cvt, elem_bits, v);
}

/* ---- generated swizzle -------------------------------------------------------------------- */
typedef struct VecSet {
    int n;
    uint32_t v[LL_MAX_BITS];
} VecSet;

static int span_rank(const VecSet *a, const VecSet *b, uint32_t extra) {
    LLGf2 g;
    ll_gf2_init(&g);
    for (int i = 0; a && i < a->n; i++) ll_gf2_insert(&g, a->v[i], 0);
    for (int i = 0; b && i < b->n; i++) ll_gf2_insert(&g, b->v[i], 0);
    if (extra) ll_gf2_insert(&g, extra, 0);
    return ll_gf2_rank(&g);
}

/* dim(span(a + extra) & span(b)) */
static int span_meet(const VecSet *a, uint32_t extra, const VecSet *b) {
    return span_rank(a, NULL, extra) + span_rank(b, NULL, 0) - span_rank(a, b, extra);
}

static void vec_push(VecSet *s, uint32_t v) {
    TL_ASSERT(s->n < LL_MAX_BITS);
    s->v[s->n++] = v;
}

/* Bases of in dim d of l re-packed into ref's out fields; lanes limited to `max_bits`. */
static VecSet dim_vectors(const LL *l, LLDim d, int max_bits, const LL *ref) {
    VecSet s = {0};
    for (int k = 0; k < ll_in_log2(l, d) && k < max_bits; k++) {
        LLIdx c;
        ll_unpack_out(l, ll_basis(l, d, k), c);
        vec_push(&s, ll_pack_out(ref, c));
    }
    return s;
}

static bool vec_has(const VecSet *s, uint32_t v) {
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == v) return true;
    return false;
}

/* Lane bits that share one access phase, for a vector of vec_bytes per lane. */
static int phase_lane_bits(int vec_bytes) { return vec_bytes <= 4 ? 5 : vec_bytes == 8 ? 4 : 3; }

typedef struct SegPick {
    VecSet *vs;                    /* V, then the segment vectors picked so far */
    const VecSet *ls, *ld, *v;     /* src/dst lanes of one phase, vector bases */
    int want;
} SegPick;

/* Add c to the segment when it is independent and meets neither side's lanes more than V
 * does (conflict free); with accept_conflicts only independence is required. */
static void try_segment(SegPick *sp, uint32_t c, bool accept_conflicts) {
    VecSet *vs = sp->vs;
    if (sp->want == 0 || span_rank(vs, NULL, c) == span_rank(vs, NULL, 0)) return;
    if (!accept_conflicts && (span_meet(vs, c, sp->ls) != span_meet(sp->v, 0, sp->ls) ||
                              span_meet(vs, c, sp->ld) != span_meet(sp->v, 0, sp->ld)))
        return;
    vec_push(vs, c);
    sp->want--;
}

/* Unit coordinate bits first, then XORs of two, then anything independent. */
static void pick_segment(SegPick *sp, int nbits) {
    for (int i = 0; i < nbits; i++) try_segment(sp, 1u << i, false);
    for (int i = 0; i < nbits; i++)
        for (int j = i + 1; j < nbits; j++) try_segment(sp, 1u << i | 1u << j, false);
    for (int i = 0; i < nbits; i++) try_segment(sp, 1u << i, true);
    TL_ASSERT(sp->want == 0);
}

void plan_smem_swizzle(const LL *src, const LL *dst, int elem_bits, LL *smem) {
    int n = ll_out_bits(src), eb = elem_bits;
    VecSet sr = dim_vectors(src, LL_REG, LL_MAX_BITS, src);
    VecSet dr = dim_vectors(dst, LL_REG, LL_MAX_BITS, src);
    VecSet v = {0}, seg = {0}, bank = {0};
    for (int i = 0; i < sr.n && (eb << v.n) < 128; i++)
        if (vec_has(&dr, sr.v[i]) && span_rank(&v, NULL, sr.v[i]) > v.n) vec_push(&v, sr.v[i]);
    int vbytes = (eb << v.n) / 8, line = __builtin_ctz(1024u / (unsigned)eb);
    if (line > n) line = n;
    int pl = phase_lane_bits(vbytes);
    VecSet ls = dim_vectors(src, LL_LANE, pl, src), ld = dim_vectors(dst, LL_LANE, pl, src);
    VecSet vs = v;
    SegPick sp = {&vs, &ls, &ld, &v, n - line};
    pick_segment(&sp, n);
    for (int i = v.n; i < vs.n; i++) vec_push(&seg, vs.v[i]);
    for (int i = 0; i < n && vs.n < n; i++) {
        if (span_rank(&vs, NULL, 1u << i) == vs.n) continue;
        vec_push(&vs, 1u << i);
        vec_push(&bank, 1u << i);
    }
    LL l = ll_sublayout(src, 0, ~0u);
    ll_add_in(&l, LL_OFFSET, 0);
    const VecSet *parts[3] = {&v, &bank, &seg};
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < parts[p]->n; i++) {
            LLIdx c;
            ll_unpack_out(src, parts[p]->v[i], c);
            ll_push_basis(&l, LL_OFFSET, c);
        }
    TL_ASSERT(ll_is_bijective(&l));
    *smem = l;
}
