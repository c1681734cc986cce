/* lower_tile_ops.c - replaces every tile operation by loops of scalar loads and stores,
 * so a plain emitter (the C target) can print the kernel.
 *
 * Requires: pass_check_tile_ops has run (shapes agree; reduce/cumsum dims normalized,
 * though negative dims are still accepted here).
 * Provides: no STMT_COPY, STMT_FILL, STMT_GEMM, STMT_REDUCE, STMT_CUMSUM and no tile-form
 * STMT_ATOMIC remain. PRINT, ASSERT, SYNC, ANNOTATE_LAYOUT, SWIZZLE are left as they are.
 *
 * What the emitter sees (contract with src/targets/):
 *  - Each lowered op is a STMT_SEQ (possibly nested in the enclosing SEQ; pass_simplify
 *    flattens it) of STMT_FOR loops with fresh int32 loop Vars named i, j, k, l, ...
 *    (names repeat between ops: the emitter must scope each loop var to its loop or
 *    make names unique). Loop kinds: LOOP_PARALLEL where iterations are independent
 *    (element-wise copy/fill, the M and N loops of gemm, the kept dims of reduce and
 *    cumsum), LOOP_SERIAL for carried dependences (gemm K, reduce and cumsum axes). A
 *    LOOP_PARALLEL loop here means "independent iterations, run by the whole block",
 *    exactly like a user T.Parallel; it may sit inside a serial loop.
 *  - No scalar accumulator variables are introduced: gemm accumulates straight into C
 *    (C[i, j] = C[i, j] + cast(A[i, k]) * cast(B[k, j]), after C = 0 when clear_accum),
 *    reduce straight into dst, cumsum reads dst's previous element. So the emitter
 *    only needs loads and stores of buffers.
 *  - Values stored are cast to the destination dtype (EXPR_CAST, omitted when equal);
 *    gemm operands are cast to C's dtype before the multiply; a float32 gemm's operands
 *    are rounded to TF32 first (FN_TF32_RNA, gemm_is_tf32).
 *  - Reduce initial values: 0 for sum/abssum/absmax, -inf/+inf for float max/min
 *    (EXPR_FLOAT holding +-INFINITY in the dst dtype: the emitter must print infinity
 *    for every float dtype), the dtype's min/max (EXPR_INT) for integer max/min.
 *  - A scalar atomic is STMT_ATOMIC with src.buf == NULL, value != NULL of the dst
 *    dtype, and a dst region whose extents are all the constant 1 (the starts are the
 *    element's indices).
 *  - Region starts are deep-copied into each index, so no expression node is shared. */
#include "passes/passes.h"
#include "ir/ir_walk.h"

#include <math.h>

enum { MAX_DIMS = 8 };

typedef struct Lower {
    Ctx *ctx;
    Loc loc;
    bool (*keep)(const Stmt *s); /* tile ops to leave as they are, or NULL */
    int par;                     /* > 0 inside a T.Parallel loop: nothing is kept there */
} Lower;

static const char *const loop_names[MAX_DIMS] = {"i", "j", "k", "l", "p", "q", "r", "s"};

static Expr *cp(Lower *L, const Expr *e) { return ir_subst(L->ctx, e, NULL, NULL); }
static Expr *vref(Lower *L, Var *v) { return ir_varref(L->ctx, v, L->loc); }
static Expr *cint(Lower *L, int64_t v) { return ir_int(L->ctx, v, DT_INT32, L->loc); }
static Expr *add(Lower *L, const Expr *a, Expr *b) {
    return ir_bin(L->ctx, OP_ADD, cp(L, a), b, L->loc);
}

static Stmt *mk_store(Lower *L, Buffer *buf, Expr **idx, Expr *value) {
    Stmt *s = ir_stmt(L->ctx, STMT_STORE, L->loc);
    s->u.store.buf = buf;
    s->u.store.idx = NEW_ARRAY(&L->ctx->arena, Expr *, buf->ndim > 0 ? buf->ndim : 1);
    for (int d = 0; d < buf->ndim; d++) s->u.store.idx[d] = idx[d];
    s->u.store.value = ir_cast(L->ctx, buf->dtype, value, L->loc);
    return s;
}

static Stmt *mk_for(Lower *L, Var *v, Expr *min, Expr *extent, LoopKind kind, Stmt *body) {
    Stmt *s = ir_stmt(L->ctx, STMT_FOR, L->loc);
    s->u.for_.var = v;
    s->u.for_.min = min;
    s->u.for_.extent = extent;
    s->u.for_.kind = kind;
    s->u.for_.body = body;
    return s;
}

/* A loop nest over n extents; `inner` is the SEQ inside the innermost loop. */
typedef struct Nest {
    Stmt *root, *inner;
    Var *vars[MAX_DIMS];
} Nest;

static Nest nest_build(Lower *L, int n, Expr *const *extents, LoopKind kind, int name0) {
    Nest nest = {0};
    TL_ASSERT(n <= MAX_DIMS);
    nest.inner = ir_seq(L->ctx, L->loc);
    Stmt *body = nest.inner;
    for (int i = 0; i < n; i++)
        nest.vars[i] = ir_var(L->ctx, loop_names[(name0 + i) % MAX_DIMS], DT_INT32);
    for (int i = n - 1; i >= 0; i--)
        body = mk_for(L, nest.vars[i], cint(L, 0), cp(L, extents[i]), kind, body);
    nest.root = body;
    return nest;
}

static Expr **idx_new(Lower *L, int n) { return NEW_ARRAY(&L->ctx->arena, Expr *, n > 0 ? n : 1); }

/* Indices of region r: start[d] + var for the dims listed in dims (paired with vars),
 * start[d] elsewhere. */
static Expr **region_index(Lower *L, const Region *r, const int *dims, Var *const *vars, int n) {
    Expr **idx = idx_new(L, r->ndim);
    for (int d = 0; d < r->ndim; d++) idx[d] = cp(L, r->start[d]);
    for (int i = 0; i < n; i++) idx[dims[i]] = add(L, r->start[dims[i]], vref(L, vars[i]));
    return idx;
}

static Expr *pick_extent(const Expr *a, const Expr *b) {
    return (Expr *)(ir_is_const_int(a, NULL) || !ir_is_const_int(b, NULL) ? a : b);
}

static void squeeze_pair(Lower *L, const char *op, const Region *src, const Region *dst, int *ds,
                         int *dd, int *n) {
    TL_ASSERT(src->ndim <= MAX_DIMS && dst->ndim <= MAX_DIMS);
    int ns = ir_region_squeeze(src, ds), nd = ir_region_squeeze(dst, dd);
    if (ns != nd)
        ctx_fail(L->ctx, L->loc,
                 "%s: cannot match the shape of %s (%d non-unit dims) with "
                 "%s (%d non-unit dims)",
                 op, src->buf->name, ns, dst->buf->name, nd);
    *n = ns;
}

/* ---- copy, fill ---------------------------------------------------------------------- */
static bool per_thread(const Buffer *b) { return b->scope == SCOPE_LOCAL || b->scope == SCOPE_VAR; }

/* Whether a copy is each thread's own (mark_varying allows it under thread-dependent
 * regions): into a per-thread buffer, or out of one into a region that depends on the
 * thread index. Every thread then runs the whole copy, as serial code. */
static bool copy_per_thread(const Region *src, const Region *dst) {
    if (per_thread(dst->buf)) return true;
    if (!per_thread(src->buf)) return false;
    for (int d = 0; d < dst->ndim; d++)
        if (ir_expr_varies(dst->start[d])) return true;
    return false;
}

static Stmt *lower_copy(Lower *L, const Region *src, const Region *dst) {
    int ds[MAX_DIMS], dd[MAX_DIMS], n;
    squeeze_pair(L, "T.copy", src, dst, ds, dd, &n);
    Expr *ext[MAX_DIMS] = {0};
    for (int i = 0; i < n; i++) ext[i] = pick_extent(src->extent[ds[i]], dst->extent[dd[i]]);
    LoopKind kind = src->buf == dst->buf || copy_per_thread(src, dst) ? LOOP_SERIAL : LOOP_PARALLEL;
    Nest nest = nest_build(L, n, ext, kind, 0);
    Expr *val = ir_load(L->ctx, src->buf, region_index(L, src, ds, nest.vars, n), L->loc);
    ir_seq_push(L->ctx, nest.inner,
                mk_store(L, dst->buf, region_index(L, dst, dd, nest.vars, n), val));
    return nest.root;
}

static Stmt *lower_fill(Lower *L, const Region *dst, Expr *value) {
    int dd[MAX_DIMS];
    TL_ASSERT(dst->ndim <= MAX_DIMS);
    int n = ir_region_squeeze(dst, dd);
    Expr *ext[MAX_DIMS] = {0};
    for (int i = 0; i < n; i++) ext[i] = dst->extent[dd[i]];
    /* a local buffer is each thread's own (TileLang's T.alloc_local): every thread fills
       its copy, as serial code does, so that it stays in registers on CUDA */
    LoopKind kind = dst->buf->scope == SCOPE_LOCAL ? LOOP_SERIAL : LOOP_PARALLEL;
    Nest nest = nest_build(L, n, ext, kind, 0);
    Expr **idx = region_index(L, dst, dd, nest.vars, n);
    ir_seq_push(L->ctx, nest.inner, mk_store(L, dst->buf, idx, cp(L, value)));
    return nest.root;
}

/* ---- gemm ---------------------------------------------------------------------------- */
/* Index of a 2-D tile (its last two dims) at (row, col). */
static Expr **tile_index(Lower *L, const Region *r, Expr *row, Expr *col) {
    Expr **idx = idx_new(L, r->ndim);
    for (int d = 0; d < r->ndim; d++) idx[d] = cp(L, r->start[d]);
    idx[r->ndim - 2] = add(L, r->start[r->ndim - 2], row);
    idx[r->ndim - 1] = add(L, r->start[r->ndim - 1], col);
    return idx;
}

bool gemm_is_tf32(const Stmt *s) {
    return s->kind == STMT_GEMM && s->u.gemm.a.buf->dtype == DT_FLOAT32 &&
           s->u.gemm.b.buf->dtype == DT_FLOAT32 && s->u.gemm.c.buf->dtype == DT_FLOAT32;
}

static Stmt *lower_gemm(Lower *L, const Stmt *s) {
    const Region *a = &s->u.gemm.a, *b = &s->u.gemm.b, *c = &s->u.gemm.c;
    TL_ASSERT(a->ndim >= 2 && b->ndim >= 2 && c->ndim >= 2);
    bool ta = s->u.gemm.trans_a, tb = s->u.gemm.trans_b;
    Expr *m = c->extent[c->ndim - 2], *n = c->extent[c->ndim - 1];
    Expr *k = a->extent[a->ndim - (ta ? 2 : 1)];
    Var *vi = ir_var(L->ctx, "i", DT_INT32), *vj = ir_var(L->ctx, "j", DT_INT32);
    Var *vk = ir_var(L->ctx, "k", DT_INT32);
    DType t = c->buf->dtype;
    Expr *av, *bv;
    if (s->u.gemm.int4) { /* A (M, K) and B (N, K), two 4-bit elements per byte along K */
        k = ir_bin(L->ctx, OP_MUL, cp(L, k), cint(L, 2), L->loc);
        Expr *byte = ir_bin(L->ctx, OP_SHR, vref(L, vk), cint(L, 1), L->loc);
        av = ir_nibble(L->ctx, ir_load(L->ctx, a->buf, tile_index(L, a, vref(L, vi), byte), L->loc),
                       vref(L, vk), a->buf->dtype == DT_INT8, L->loc);
        bv = ir_nibble(L->ctx, ir_load(L->ctx, b->buf, tile_index(L, b, vref(L, vj), byte), L->loc),
                       vref(L, vk), b->buf->dtype == DT_INT8, L->loc);
    } else {
        av = ir_load(L->ctx, a->buf,
                     ta ? tile_index(L, a, vref(L, vk), vref(L, vi))
                        : tile_index(L, a, vref(L, vi), vref(L, vk)),
                     L->loc);
        bv = ir_load(L->ctx, b->buf,
                     tb ? tile_index(L, b, vref(L, vj), vref(L, vk))
                        : tile_index(L, b, vref(L, vk), vref(L, vj)),
                     L->loc);
    }
    if (gemm_is_tf32(s)) { /* TF32 tensor cores' operands (docs/language.md, T.gemm) */
        av = ir_call(L->ctx, FN_TF32_RNA, av, NULL, L->loc);
        bv = ir_call(L->ctx, FN_TF32_RNA, bv, NULL, L->loc);
    }
    Expr *prod = ir_bin(L->ctx, OP_MUL, ir_cast(L->ctx, t, av, L->loc),
                        ir_cast(L->ctx, t, bv, L->loc), L->loc);
    Expr *old = ir_load(L->ctx, c->buf, tile_index(L, c, vref(L, vi), vref(L, vj)), L->loc);
    Stmt *upd = mk_store(L, c->buf, tile_index(L, c, vref(L, vi), vref(L, vj)),
                         ir_bin(L->ctx, OP_ADD, old, prod, L->loc));
    Stmt *loop_j = mk_for(L, vj, cint(L, 0), cp(L, n), LOOP_PARALLEL, upd);
    Stmt *loop_k = mk_for(L, vk, cint(L, 0), cp(L, k), LOOP_SERIAL, loop_j);
    Stmt *seq = ir_seq(L->ctx, L->loc);
    if (s->u.gemm.clear_accum) {
        Region cr = *c;
        ir_seq_push(L->ctx, seq, lower_fill(L, &cr, cint(L, 0)));
    }
    ir_seq_push(L->ctx, seq, mk_for(L, vi, cint(L, 0), cp(L, m), LOOP_PARALLEL, loop_k));
    return seq;
}

/* ---- gemm_sp: A 2:4 sparse (tileops_sparse.c has E's format) ------------------------- */
static Expr *bin(Lower *L, BinOp op, Expr *a, int64_t c) {
    return ir_bin(L->ctx, op, a, cint(L, c), L->loc);
}

/* The row of B (the index along K) of kept value kk of row i of A_sparse: group g of K's
 * groups (4 elements, 2 kept; float32: 2, 1 kept), its field in E[i, g / q] (q fields of
 * 4 bits per element), the first or second 2-bit index in it. */
static Expr *sparse_k(Lower *L, const Stmt *s, Var *vi, Var *vkk) {
    const Region *e = &s->u.gemm.e;
    bool f32 = s->u.gemm.a.buf->dtype == DT_FLOAT32;
    int q = dtype_bits(e->buf->dtype) / 4, kept = f32 ? 1 : 2;
    Expr *g = bin(L, OP_FLOORDIV, vref(L, vkk), kept);
    Expr *col = bin(L, OP_FLOORDIV, cp(L, g), q);
    Expr *ev = ir_load(L->ctx, e->buf,
                       s->u.gemm.trans_e ? tile_index(L, e, col, vref(L, vi))
                                         : tile_index(L, e, vref(L, vi), col),
                       L->loc);
    Expr *shift = bin(L, OP_MUL, bin(L, OP_FLOORMOD, cp(L, g), q), 4);
    if (!f32)
        shift = ir_bin(L->ctx, OP_ADD, shift,
                       bin(L, OP_MUL, bin(L, OP_FLOORMOD, vref(L, vkk), 2), 2), L->loc);
    Expr *idx = bin(L, OP_BITAND,
                    ir_bin(L->ctx, OP_SHR, ir_cast(L->ctx, DT_INT32, ev, L->loc), shift, L->loc),
                    3);
    if (f32) idx = bin(L, OP_SHR, idx, 1); /* 0b00 / 0b10: element 0 / 1 */
    return ir_bin(L->ctx, OP_ADD, bin(L, OP_MUL, g, f32 ? 2 : 4), idx, L->loc);
}

/* C[i, j] += A_sparse[i, kk] * B[k(i, kk), j] over the kept values kk (K / 2 of them). */
static Stmt *lower_gemm_sp(Lower *L, const Stmt *s) {
    const Region *a = &s->u.gemm.a, *b = &s->u.gemm.b, *c = &s->u.gemm.c;
    bool ta = s->u.gemm.trans_a, tb = s->u.gemm.trans_b;
    Var *vi = ir_var(L->ctx, "i", DT_INT32), *vj = ir_var(L->ctx, "j", DT_INT32);
    Var *vkk = ir_var(L->ctx, "k", DT_INT32);
    DType t = c->buf->dtype;
    Expr *k = sparse_k(L, s, vi, vkk);
    Expr *av = ir_load(L->ctx, a->buf,
                       ta ? tile_index(L, a, vref(L, vkk), vref(L, vi))
                          : tile_index(L, a, vref(L, vi), vref(L, vkk)),
                       L->loc);
    Expr *bv = ir_load(L->ctx, b->buf,
                       tb ? tile_index(L, b, vref(L, vj), k) : tile_index(L, b, k, vref(L, vj)),
                       L->loc);
    if (gemm_is_tf32(s)) { /* as T.gemm's float32 operands */
        av = ir_call(L->ctx, FN_TF32_RNA, av, NULL, L->loc);
        bv = ir_call(L->ctx, FN_TF32_RNA, bv, NULL, L->loc);
    }
    Expr *prod = ir_bin(L->ctx, OP_MUL, ir_cast(L->ctx, t, av, L->loc),
                        ir_cast(L->ctx, t, bv, L->loc), L->loc);
    Expr *old = ir_load(L->ctx, c->buf, tile_index(L, c, vref(L, vi), vref(L, vj)), L->loc);
    Stmt *upd = mk_store(L, c->buf, tile_index(L, c, vref(L, vi), vref(L, vj)),
                         ir_bin(L->ctx, OP_ADD, old, prod, L->loc));
    Stmt *loop_j = mk_for(L, vj, cint(L, 0), cp(L, c->extent[c->ndim - 1]), LOOP_PARALLEL, upd);
    Stmt *loop_k = mk_for(L, vkk, cint(L, 0), cp(L, a->extent[a->ndim - (ta ? 2 : 1)]), LOOP_SERIAL,
                          loop_j);
    Stmt *seq = ir_seq(L->ctx, L->loc);
    if (s->u.gemm.clear_accum) {
        Region cr = *c;
        ir_seq_push(L->ctx, seq, lower_fill(L, &cr, cint(L, 0)));
    }
    ir_seq_push(L->ctx, seq,
                mk_for(L, vi, cint(L, 0), cp(L, c->extent[c->ndim - 2]), LOOP_PARALLEL, loop_k));
    return seq;
}

/* ---- reduce -------------------------------------------------------------------------- */
Expr *reduce_init_value(Ctx *ctx, ReduceOp op, DType t, Loc loc) {
    bool want_max = op == RED_MIN; /* min starts at the largest value, max at the smallest */
    if (op == RED_BITAND) return ir_int(ctx, -1, t, loc); /* all ones */
    if (op != RED_MAX && op != RED_MIN) return ir_cast(ctx, t, ir_int(ctx, 0, DT_INT32, loc), loc);
    if (dtype_is_float(t)) return ir_float(ctx, want_max ? INFINITY : -INFINITY, t, loc);
    int bits = dtype_bits(t);
    int64_t lo, hi;
    if (t == DT_BOOL) lo = 0, hi = 1;
    else if (dtype_is_signed(t)) {
        hi = (int64_t)((bits >= 64 ? ~(uint64_t)0 >> 1 : ((uint64_t)1 << (bits - 1)) - 1));
        lo = -hi - 1;
    } else {
        lo = 0;
        hi = bits >= 64 ? -1 : (int64_t)(((uint64_t)1 << bits) - 1);
    }
    return ir_int(ctx, want_max ? hi : lo, t, loc);
}

Expr *reduce_combine_value(Ctx *ctx, ReduceOp op, Expr *acc, Expr *x, Loc loc) {
    x = ir_cast(ctx, acc->dtype, x, loc);
    if (op == RED_ABSSUM || op == RED_ABSMAX) x = ir_call(ctx, FN_ABS, x, NULL, loc);
    BinOp b = (op == RED_SUM || op == RED_ABSSUM) ? OP_ADD
              : op == RED_MIN                     ? OP_MIN
              : op == RED_BITAND                  ? OP_BITAND
              : op == RED_BITOR                   ? OP_BITOR
              : op == RED_BITXOR                  ? OP_BITXOR
                                                  : OP_MAX;
    return ir_bin(ctx, b, acc, x, loc);
}

static Expr *reduce_init(Lower *L, ReduceOp op, DType t) {
    return reduce_init_value(L->ctx, op, t, L->loc);
}

static Expr *reduce_combine(Lower *L, ReduceOp op, Expr *acc, Expr *x) {
    return reduce_combine_value(L->ctx, op, acc, x, L->loc);
}

static Stmt *lower_reduce(Lower *L, const Stmt *s) {
    const Region *src = &s->u.reduce.src, *dst = &s->u.reduce.dst;
    int dim = s->u.reduce.dim < 0 ? s->u.reduce.dim + src->ndim : s->u.reduce.dim;
    TL_ASSERT(dim >= 0 && dim < src->ndim && src->ndim <= MAX_DIMS && dst->ndim <= MAX_DIMS);
    int keep[MAX_DIMS], nk = 0, dd[MAX_DIMS];
    for (int d = 0; d < src->ndim; d++) {
        int64_t e;
        if (d != dim && !(ir_is_const_int(src->extent[d], &e) && e == 1)) keep[nk++] = d;
    }
    int nd = ir_region_squeeze(dst, dd);
    if (nk != nd)
        ctx_fail(L->ctx, L->loc, "T.reduce_%s: cannot match the shape of %s with %s",
                 reduce_op_name(s->u.reduce.op), src->buf->name, dst->buf->name);
    Expr *ext[MAX_DIMS] = {0};
    for (int i = 0; i < nk; i++) ext[i] = pick_extent(src->extent[keep[i]], dst->extent[dd[i]]);
    Nest nest = nest_build(L, nk, ext, LOOP_PARALLEL, 0);
    Var *r = ir_var(L->ctx, loop_names[nk % MAX_DIMS], DT_INT32);
    Expr **di = region_index(L, dst, dd, nest.vars, nk);
    if (s->u.reduce.clear)
        ir_seq_push(L->ctx, nest.inner,
                    mk_store(L, dst->buf, di, reduce_init(L, s->u.reduce.op, dst->buf->dtype)));
    int sdims[MAX_DIMS];
    Var *svars[MAX_DIMS];
    for (int i = 0; i < nk; i++) sdims[i] = keep[i], svars[i] = nest.vars[i];
    sdims[nk] = dim, svars[nk] = r;
    Expr *x = ir_load(L->ctx, src->buf, region_index(L, src, sdims, svars, nk + 1), L->loc);
    Expr *acc = ir_load(L->ctx, dst->buf, region_index(L, dst, dd, nest.vars, nk), L->loc);
    Stmt *upd = mk_store(L, dst->buf, region_index(L, dst, dd, nest.vars, nk),
                         reduce_combine(L, s->u.reduce.op, acc, x));
    ir_seq_push(L->ctx, nest.inner,
                mk_for(L, r, cint(L, 0), cp(L, src->extent[dim]), LOOP_SERIAL, upd));
    return nest.root;
}

/* ---- cumsum -------------------------------------------------------------------------- */
typedef struct ScanMap {
    const Region *src, *dst;
    int dim;                           /* scanned src dim */
    int ds[MAX_DIMS], dd[MAX_DIMS], n; /* paired non-unit dims of src and dst */
    Var *vars[MAX_DIMS];               /* loop var of src dim ds[i] (NULL for the scanned dim) */
    bool max;                          /* T.cummax */
} ScanMap;

/* src (dst when of_dst) indices at position p along the scanned dim. */
static Expr **scan_index(Lower *L, const ScanMap *m, bool of_dst, Expr *p) {
    const Region *r = of_dst ? m->dst : m->src;
    const int *dims = of_dst ? m->dd : m->ds;
    Expr **idx = idx_new(L, r->ndim);
    for (int d = 0; d < r->ndim; d++) idx[d] = cp(L, r->start[d]);
    for (int i = 0; i < m->n; i++) {
        Expr *off = m->ds[i] == m->dim ? cp(L, p) : vref(L, m->vars[i]);
        idx[dims[i]] = add(L, r->start[dims[i]], off);
    }
    if (!of_dst) idx[m->dim] = add(L, r->start[m->dim], cp(L, p));
    return idx;
}

/* dst[p] = dst[prev] + src[p] (max(dst[prev], src[p]) for T.cummax; just src[p] when prev
 * is NULL), cast to dst's dtype. */
static Stmt *scan_step(Lower *L, const ScanMap *m, Expr *p, Expr *prev) {
    Expr *x = ir_cast(L->ctx, m->dst->buf->dtype,
                      ir_load(L->ctx, m->src->buf, scan_index(L, m, false, p), L->loc), L->loc);
    if (prev) {
        Expr *acc = ir_load(L->ctx, m->dst->buf, scan_index(L, m, true, prev), L->loc);
        x = ir_bin(L->ctx, m->max ? OP_MAX : OP_ADD, acc, x, L->loc);
    }
    return mk_store(L, m->dst->buf, scan_index(L, m, true, p), x);
}

static Expr *sub(Lower *L, Expr *a, Expr *b) { return ir_bin(L->ctx, OP_SUB, a, b, L->loc); }

static Stmt *lower_cumsum(Lower *L, const Stmt *s) {
    ScanMap m = {.src = &s->u.cumsum.src, .dst = &s->u.cumsum.dst, .max = s->u.cumsum.max};
    m.dim = s->u.cumsum.dim < 0 ? s->u.cumsum.dim + m.src->ndim : s->u.cumsum.dim;
    TL_ASSERT(m.dim >= 0 && m.dim < m.src->ndim);
    squeeze_pair(L, m.max ? "T.cummax" : "T.cumsum", m.src, m.dst, m.ds, m.dd, &m.n);
    Expr *ext[MAX_DIMS] = {0};
    int no = 0, pos[MAX_DIMS];
    for (int i = 0; i < m.n; i++)
        if (m.ds[i] != m.dim) pos[no] = i, ext[no++] = m.src->extent[m.ds[i]];
    Nest nest = nest_build(L, no, ext, LOOP_PARALLEL, 0);
    for (int i = 0; i < no; i++) m.vars[pos[i]] = nest.vars[i];
    Expr *n = m.src->extent[m.dim];
    Var *t = ir_var(L->ctx, loop_names[no % MAX_DIMS], DT_INT32);
    Expr *first, *p, *prev;
    if (!s->u.cumsum.reverse) { /* dst[0] = src[0]; dst[t] = dst[t - 1] + src[t], t >= 1 */
        first = cint(L, 0);
        p = vref(L, t);
        prev = sub(L, vref(L, t), cint(L, 1));
    } else { /* dst[n-1] = src[n-1]; p = n - 2 - t: dst[p] = dst[p + 1] + src[p] */
        first = sub(L, cp(L, n), cint(L, 1));
        p = sub(L, sub(L, cp(L, n), cint(L, 2)), vref(L, t));
        prev = ir_bin(L->ctx, OP_ADD, cp(L, p), cint(L, 1), L->loc);
    }
    Stmt *body = ir_seq(L->ctx, L->loc);
    ir_seq_push(L->ctx, body, scan_step(L, &m, first, NULL));
    Expr *rest = sub(L, cp(L, n), cint(L, 1));
    int64_t rest_c;
    if (!ir_is_const_int(rest, &rest_c) || rest_c > 0)
        ir_seq_push(L->ctx, body,
                    mk_for(L, t, cint(L, s->u.cumsum.reverse ? 0 : 1), rest, LOOP_SERIAL,
                           scan_step(L, &m, p, prev)));
    Stmt *guarded = body;
    if (!ir_is_const_int(n, NULL)) {
        guarded = ir_stmt(L->ctx, STMT_IF, L->loc);
        guarded->u.if_.cond = ir_bin(L->ctx, OP_GT, cp(L, n), cint(L, 0), L->loc);
        guarded->u.if_.then = body;
    }
    ir_seq_push(L->ctx, nest.inner, guarded);
    return nest.root;
}

/* ---- atomics ------------------------------------------------------------------------- */
static Stmt *mk_atomic(Lower *L, AtomicOp op, Buffer *dst, Expr **idx, Expr *value) {
    Stmt *s = ir_stmt(L->ctx, STMT_ATOMIC, L->loc);
    s->u.atomic.op = op;
    s->u.atomic.dst.buf = dst;
    s->u.atomic.dst.ndim = dst->ndim;
    s->u.atomic.dst.start = idx;
    s->u.atomic.dst.extent = idx_new(L, dst->ndim);
    for (int d = 0; d < dst->ndim; d++) s->u.atomic.dst.extent[d] = cint(L, 1);
    s->u.atomic.value = ir_cast(L->ctx, dst->dtype, value, L->loc);
    return s;
}

static Stmt *lower_atomic(Lower *L, const Stmt *s) {
    const Region *dst = &s->u.atomic.dst, *src = &s->u.atomic.src;
    int ds[MAX_DIMS], dd[MAX_DIMS], n;
    Expr *ext[MAX_DIMS] = {0};
    if (src->buf) {
        squeeze_pair(L, "T.atomic", src, dst, ds, dd, &n);
        for (int i = 0; i < n; i++) ext[i] = pick_extent(src->extent[ds[i]], dst->extent[dd[i]]);
    } else {
        TL_ASSERT(dst->ndim <= MAX_DIMS);
        n = ir_region_squeeze(dst, dd);
        for (int i = 0; i < n; i++) ext[i] = dst->extent[dd[i]];
    }
    Nest nest = nest_build(L, n, ext, LOOP_PARALLEL, 0);
    Expr *val = src->buf ? ir_load(L->ctx, src->buf, region_index(L, src, ds, nest.vars, n), L->loc)
                         : cp(L, s->u.atomic.value);
    Stmt *a = mk_atomic(L, s->u.atomic.op, dst->buf, region_index(L, dst, dd, nest.vars, n), val);
    a->u.atomic.order = s->u.atomic.order;
    ir_seq_push(L->ctx, nest.inner, a);
    return nest.root;
}

static bool atomic_is_scalar(const Stmt *s) {
    if (s->u.atomic.src.buf) return false;
    for (int d = 0; d < s->u.atomic.dst.ndim; d++) {
        int64_t e;
        if (!ir_is_const_int(s->u.atomic.dst.extent[d], &e) || e != 1) return false;
    }
    return true;
}

/* ---- traversal ----------------------------------------------------------------------- */
/* A T.tma_copy that runs as loops: then a barrier of the threads that ran them, so that
 * any one may arrive for all (manual_schedule.c). */
static Stmt *lower_manual_copy(Lower *L, Stmt *s) {
    Stmt *seq = ir_seq(L->ctx, s->loc);
    ir_seq_push(L->ctx, seq, lower_copy(L, &s->u.copy.src, &s->u.copy.dst));
    ir_seq_push(L->ctx, seq, ir_stmt(L->ctx, STMT_SYNC, s->loc));
    return seq;
}

static Stmt *lower_one(Lower *L, Stmt *s) {
    switch (s->kind) {
    case STMT_COPY:
        if (s->u.copy.manual) return lower_manual_copy(L, s);
        return lower_copy(L, &s->u.copy.src, &s->u.copy.dst);
    case STMT_FILL: return lower_fill(L, &s->u.fill.dst, s->u.fill.value);
    case STMT_GEMM: return s->u.gemm.e.buf ? lower_gemm_sp(L, s) : lower_gemm(L, s);
    case STMT_REDUCE: return lower_reduce(L, s);
    case STMT_CUMSUM: return lower_cumsum(L, s);
    case STMT_ATOMIC: return atomic_is_scalar(s) ? s : lower_atomic(L, s);
    default: return s;
    }
}

static void lower_slot(Stmt **slot, void *ud) {
    Lower *L = ud;
    Stmt *s = *slot;
    bool par = s->kind == STMT_FOR && s->u.for_.kind == LOOP_PARALLEL;
    L->par += par;
    ir_stmt_children(s, lower_slot, L);
    L->par -= par;
    L->loc = s->loc;
    if (!L->keep || L->par || !L->keep(s)) *slot = lower_one(L, s);
}

void lower_tile_ops_keeping(Ctx *ctx, Func *f, bool (*keep)(const Stmt *s)) {
    Lower L = {ctx, f->loc, keep, 0};
    if (f->body) lower_slot(&f->body, &L);
}

void pass_lower_tile_ops(Ctx *ctx, Func *f) { lower_tile_ops_keeping(ctx, f, NULL); }

Stmt *lower_tile_op(Ctx *ctx, Stmt *s) {
    Lower L = {ctx, s->loc, NULL, 0};
    return lower_one(&L, s);
}
