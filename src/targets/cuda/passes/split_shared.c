/* split_shared.c - a shared tile used in column slices becomes one tile per slice.
 *
 * TileLang code packs operands side by side in one shared tile: DeepSeek-V3.2's sparse
 * MLA keeps Q in Q_shared[:, :512] for Q K^T and its rope part in Q_shared[:, 512:] for
 * a second gemm into the same scores, and its pipelined form keeps K and V in one stage
 * buffer KV_shared[stage, :, :576] read as KV_shared[stage, :, :256],
 * KV_shared[stage, :, 256:512] and KV_shared[stage, :, 512:]. A gemm on tensor cores
 * reads whole tiles (cuda_keep_tile_op), so on such slices it would run as scalar loops.
 *
 * The columns (the last dimension) of a shared buffer of rank >= 2 are split into
 * pieces, each a buffer of its own with the same leading dimensions, and every access
 * is rebased onto its piece: the same program, with slices that are whole tiles.
 *   - An access must lie in one piece: an element (load, store, the destination of a
 *     T.ptx_cp_async), a gemm operand or another tile op's region, by the interval of
 *     its column (interval.h) plus its width. Where that interval spans pieces only
 *     because of a serial loop (cp.async in `for u in T.serial(9)` at column
 *     64 * u + ...), each iteration counts alone and the loop is split into runs of
 *     iterations that stay in one piece (a loop per run, in order).
 *   - A T.copy (T.tma_copy too) or T.fill over a constant column range may span pieces:
 *     it becomes one copy per piece (TMA copies then expect their bytes on the same
 *     barrier, one transaction each, which is what the program's wait counts).
 * The pieces are the merged ranges of the accesses that must stay whole, and the
 * columns between them that copies touch, joined where they meet unless a gemm operand
 * starts or ends there: a buffer no gemm reads in column slices stays whole. Buffers
 * with a layout annotation, raw-bits accesses, a pointer passed to other extern code, or
 * an access outside their columns are left alone. Runs before
 * pass_stage_gemm_operands. */
#include "targets/cuda/passes/cuda_passes.h"
#include "ir/ir_walk.h"
#include "passes/interval.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_PIECES = 8, MAX_SPLIT_ITERS = 64 };

typedef struct Range {
    int64_t lo, hi; /* columns [lo, hi) */
} Range;

typedef Vec(Range) Ranges;
typedef Vec(int) Pieces; /* a signature: the piece of each access, -1 for several */

typedef struct Cand {
    Buffer *buf;
    int64_t cols; /* the last dimension */
    Ranges hard;  /* ranges an access needs in one piece */
    Ranges soft;  /* ranges of copies and fills, which split at piece boundaries */
    Ranges gemm;  /* ranges of gemm operands: the pieces' boundaries */
    bool bad;     /* some use the pass cannot rebase */
    int npieces;  /* after the plan: 0 (not split) or its pieces */
    Range piece[MAX_PIECES];
    Buffer *tile[MAX_PIECES];
} Cand;

typedef struct Split {
    Ctx *ctx;
    Vec(Cand) cands;
    IvEnv env;               /* ranges of the variables in scope */
    Vec(const Stmt *) loops; /* collecting: the enclosing loops that may be split */
    Pieces *sig;             /* NULL: collecting; else the signature being taken */
} Split;

static Cand *cand_of(Split *S, const Buffer *b) {
    for (int i = 0; i < S->cands.len; i++)
        if (S->cands.data[i].buf == b) return &S->cands.data[i];
    return NULL;
}

/* The candidate the walk looks at: any while collecting, a split one for signatures. */
static Cand *walked(Split *S, const Buffer *b) {
    Cand *c = cand_of(S, b);
    return c && (!S->sig || c->npieces) ? c : NULL;
}

static Interval col_interval(Split *S, const Expr *col, int64_t width) {
    Interval iv = iv_of(&S->env, col);
    if (iv.has_hi) iv.hi += width; /* [lo, hi) */
    return iv;
}

/* The piece holding columns iv, or -1. */
static int piece_of(const Cand *c, Interval iv) {
    for (int k = 0; iv.has_lo && iv.has_hi && k < c->npieces; k++)
        if (iv.lo >= c->piece[k].lo && iv.hi <= c->piece[k].hi) return k;
    return -1;
}

static void alloc_in(Stmt **slot, void *ud) {
    *(bool *)ud |= (*slot)->kind == STMT_ALLOC;
    if (!*(bool *)ud) ir_stmt_children(*slot, alloc_in, ud);
}

/* A loop whose iterations may run as several loops: serial, constant bounds, no
 * allocation in its body (the copies would declare it again). */
static bool splittable_loop(const Stmt *s, int64_t *min, int64_t *ext) {
    bool alloc = false;
    if (s->kind != STMT_FOR || (s->u.for_.kind != LOOP_SERIAL && s->u.for_.kind != LOOP_UNROLL) ||
        !ir_is_const_int(s->u.for_.min, min) || !ir_is_const_int(s->u.for_.extent, ext) ||
        *ext < 2 || *ext > MAX_SPLIT_ITERS)
        return false;
    alloc_in((Stmt **)&s->u.for_.body, &alloc);
    return !alloc;
}

/* ---- collecting: the column ranges of the accesses ------------------------------------- */
static void push_range(Split *S, Cand *c, bool soft, int64_t lo, int64_t hi) {
    VEC_PUSH(&S->ctx->arena, *(soft ? &c->soft : &c->hard), ((Range){lo, hi}));
}

/* Per-iteration ranges of col over enclosing loop L: the widest of them, or -1 when one
 * is not inside the buffer's columns. ranges (may be NULL) gets them. */
static int64_t per_iteration(Split *S, Cand *c, const Stmt *L, const Expr *col, int64_t width,
                             Range *ranges) {
    int64_t min, ext, widest = 0;
    splittable_loop(L, &min, &ext);
    for (int64_t v = min; v < min + ext; v++) {
        iv_env_push(&S->env, L->u.for_.var, (Interval){true, true, v, v});
        Interval iv = col_interval(S, col, width);
        S->env.len--;
        if (!iv.has_lo || !iv.has_hi || iv.lo < 0 || iv.hi > c->cols) return -1;
        if (iv.hi - iv.lo > widest) widest = iv.hi - iv.lo;
        if (ranges) ranges[v - min] = (Range){iv.lo, iv.hi};
    }
    return widest;
}

/* An access of `width` columns from col: its range, or one range per iteration of the
 * enclosing loop over which those are narrowest. */
static void collect_access(Split *S, Cand *c, const Expr *col, int64_t width) {
    Interval iv = col_interval(S, col, width);
    if (!iv.has_lo || !iv.has_hi || iv.lo < 0 || iv.hi > c->cols) {
        push_range(S, c, false, 0, c->cols); /* keeps the buffer whole */
        return;
    }
    const Stmt *best = NULL;
    int64_t narrowest = iv.hi - iv.lo;
    for (int i = S->loops.len - 1; i >= 0; i--) {
        const Stmt *L = S->loops.data[i];
        if (!ir_expr_uses_any(col, (const Var *const *)&L->u.for_.var, 1)) continue;
        int64_t w = per_iteration(S, c, L, col, width, NULL);
        if (w >= 0 && w < narrowest) narrowest = w, best = L;
    }
    if (!best) {
        push_range(S, c, false, iv.lo, iv.hi);
        return;
    }
    int64_t n = ir_is_const_int(best->u.for_.extent, &n) ? n : 0;
    Range *ranges = NEW_ARRAY(&S->ctx->arena, Range, n);
    per_iteration(S, c, best, col, width, ranges);
    for (int64_t k = 0; k < n; k++) push_range(S, c, false, ranges[k].lo, ranges[k].hi);
}

/* An access found by the walk (collecting or taking a signature). */
static void access(Split *S, Cand *c, const Expr *col, int64_t width) {
    if (!S->sig) collect_access(S, c, col, width);
    else VEC_PUSH(&S->ctx->arena, *S->sig, piece_of(c, col_interval(S, col, width)));
}

/* The dimension of copy s's other region that matches r's last one (the last of the
 * dimensions of extent > 1, as T.copy pairs them), with the same constant extent; -1 if
 * none, or if that region is a candidate too. */
static int matching_dim(Split *S, const Stmt *s, const Region *r) {
    const Region *o = r == &s->u.copy.src ? &s->u.copy.dst : &s->u.copy.src;
    int dr[8], dother[8];
    int64_t e, eo;
    if (cand_of(S, o->buf) || r->ndim > 8 || o->ndim > 8) return -1;
    int nr = ir_region_squeeze(r, dr), no = ir_region_squeeze(o, dother);
    if (!nr || nr != no || dr[nr - 1] != r->ndim - 1) return -1;
    int m = dother[no - 1];
    return ir_is_const_int(r->extent[r->ndim - 1], &e) && ir_is_const_int(o->extent[m], &eo) &&
                   e == eo
               ? m
               : -1;
}

/* Whether region r of statement s may span pieces: a copy (with a matching dimension)
 * or a fill, over a constant column range. */
static bool soft_region(Split *S, const Stmt *s, const Region *r) {
    int64_t lo;
    if (!ir_is_const_int(r->start[r->ndim - 1], &lo)) return false;
    if (s->kind == STMT_FILL) return true;
    return s->kind == STMT_COPY && matching_dim(S, s, r) >= 0;
}

typedef struct RegionWalk {
    Split *S;
    const Stmt *s;
} RegionWalk;

static void walk_region(Region *r, void *ud) {
    RegionWalk *w = ud;
    Split *S = w->S;
    Cand *c = walked(S, r->buf);
    int64_t width, lo;
    if (!c) return;
    if (r->ndim != r->buf->ndim || !ir_is_const_int(r->extent[r->ndim - 1], &width)) {
        c->bad = true;
        return;
    }
    if (!S->sig && w->s->kind == STMT_GEMM && ir_is_const_int(r->start[r->ndim - 1], &lo))
        VEC_PUSH(&S->ctx->arena, c->gemm, ((Range){lo, lo + width}));
    if (!soft_region(S, w->s, r)) access(S, c, r->start[r->ndim - 1], width);
    else if (!S->sig && ir_is_const_int(r->start[r->ndim - 1], &lo))
        push_range(S, c, true, lo, lo + width);
}

static void walk_expr(Expr **slot, void *ud) {
    Split *S = ud;
    Expr *e = *slot;
    Cand *c = e->kind == EXPR_LOAD ? walked(S, e->u.load.buf) : NULL;
    if (c && e->u.load.mode != LOAD_PLAIN) c->bad = true;
    else if (c) access(S, c, e->u.load.idx[c->buf->ndim - 1], 1);
    ir_expr_children(e, walk_expr, ud);
}

/* The bytes a runtime cp.async writes at its destination (tl_cp_async16: 16), or 0 for
 * another extern function. */
static int cp_async_bytes(const Stmt *s) {
    const char *p = "tl_cp_async";
    if (strncmp(s->u.extern_.name, p, strlen(p))) return 0;
    return atoi(s->u.extern_.name + strlen(p));
}

static void walk_extern(Split *S, Stmt *s) {
    for (int i = 0; i < s->u.extern_.nargs; i++) {
        ExternArg *a = &s->u.extern_.args[i];
        Cand *c = a->value ? NULL : walked(S, a->buf);
        int bytes = cp_async_bytes(s);
        if (!c) continue;
        if (i || bytes <= 0 || bytes % dtype_bytes(c->buf->dtype)) c->bad = true;
        else access(S, c, a->idx[c->buf->ndim - 1], bytes / dtype_bytes(c->buf->dtype));
    }
}

static void walk_stmt(Split *S, Stmt *s);
static void walk_child(Stmt **slot, void *ud) { walk_stmt(ud, *slot); }

static void add_candidate(Split *S, Buffer *b) {
    int64_t n;
    if (b->scope != SCOPE_SHARED || b->ndim < 2 || b->strides || b->init || b->reducer) return;
    for (int d = 0; d < b->ndim; d++)
        if (!ir_is_const_int(b->shape[d], &n) || n <= 0) return;
    VEC_PUSH(&S->ctx->arena, S->cands, ((Cand){.buf = b, .cols = n}));
}

/* Every access to a candidate, with the variables' ranges in scope (a let's to the end
 * of its sequence). */
static void walk_stmt(Split *S, Stmt *s) {
    int mark = S->env.len, loops = S->loops.len;
    int64_t min, ext;
    if (s->kind == STMT_ALLOC && !S->sig) add_candidate(S, s->u.alloc.buf);
    if (s->kind == STMT_ANNOTATE_LAYOUT && walked(S, s->u.annotate.buf))
        walked(S, s->u.annotate.buf)->bad = true;
    if (s->kind == STMT_STORE && walked(S, s->u.store.buf)) {
        Cand *c = walked(S, s->u.store.buf);
        if (s->u.store.bits) c->bad = true;
        else access(S, c, s->u.store.idx[c->buf->ndim - 1], 1);
    }
    if (s->kind == STMT_EXTERN) walk_extern(S, s);
    RegionWalk rw = {S, s};
    ir_stmt_regions(s, walk_region, &rw);
    ir_stmt_exprs(s, walk_expr, S);
    if (s->kind == STMT_FOR || s->kind == STMT_KERNEL || s->kind == STMT_LET)
        iv_env_enter(&S->env, s);
    if (!S->sig && splittable_loop(s, &min, &ext)) VEC_PUSH(&S->ctx->arena, S->loops, s);
    ir_stmt_children(s, walk_child, S);
    S->loops.len = loops;
    if (s->kind != STMT_LET) S->env.len = mark;
}

/* ---- the plan: what must stay whole, merged, and the columns between that copies touch -- */
static int range_cmp(const void *a, const void *b) {
    const Range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorted ranges merged where they overlap (also where they touch, with `touching`). */
static int merge(Range *r, int n, bool touching) {
    qsort(r, (size_t)n, sizeof *r, range_cmp);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m && (r[i].lo < r[m - 1].hi || (touching && r[i].lo == r[m - 1].hi))) {
            if (r[i].hi > r[m - 1].hi) r[m - 1].hi = r[i].hi;
        } else {
            r[m++] = r[i];
        }
    }
    return m;
}

/* The parts of the soft ranges outside the hard pieces hard[0..nh), into out (room for
 * nh + 1 parts per soft range); returns their count. */
static int gaps(const Cand *c, const Range *hard, int nh, Range *out) {
    int n = 0;
    for (int i = 0; i < c->soft.len; i++) {
        int64_t lo = c->soft.data[i].lo, hi = c->soft.data[i].hi;
        for (int k = 0; k <= nh && lo < hi; k++) {
            int64_t end = k < nh ? hard[k].lo : hi; /* a gap ends at the next piece */
            if (end > lo) out[n++] = (Range){lo, end < hi ? end : hi};
            if (k < nh && hard[k].hi > lo) lo = hard[k].hi;
        }
    }
    return n;
}

/* Whether a gemm operand of c starts or ends at column x. */
static bool gemm_boundary(const Cand *c, int64_t x) {
    for (int i = 0; i < c->gemm.len; i++)
        if (c->gemm.data[i].lo == x || c->gemm.data[i].hi == x) return true;
    return false;
}

/* Sorted pieces that touch joined where no gemm operand needs the boundary (a cp.async
 * loop's panels stay in one piece unless gemms read them apart). */
static int coalesce(const Cand *c, Range *r, int n) {
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m && r[i].lo == r[m - 1].hi && !gemm_boundary(c, r[i].lo)) r[m - 1].hi = r[i].hi;
        else r[m++] = r[i];
    }
    return m;
}

/* The pieces of a buffer that a gemm reads in a slice. */
static void plan(Split *S, Cand *c) {
    if (c->bad || !c->hard.len || !c->gemm.len) return;
    int nh = merge(c->hard.data, c->hard.len, false), cap = c->soft.len * (nh + 1);
    Range *all = NEW_ARRAY(&S->ctx->arena, Range, nh + cap + 1);
    memcpy(all, c->hard.data, sizeof *all * (size_t)nh);
    int ng = merge(all + nh, gaps(c, c->hard.data, nh, all + nh), true);
    qsort(all, (size_t)(nh + ng), sizeof *all, range_cmp);
    int n = coalesce(c, all, nh + ng);
    if (n < 2 || n > MAX_PIECES) return;
    for (int k = 0; k < n; k++) {
        Buffer *t = ir_buffer(S->ctx, arena_printf(&S->ctx->arena, "%s_%d", c->buf->name, k),
                              c->buf->dtype, SCOPE_SHARED, c->buf->ndim, c->buf->loc);
        for (int d = 0; d < c->buf->ndim - 1; d++) t->shape[d] = c->buf->shape[d];
        t->shape[c->buf->ndim - 1] = ir_int(S->ctx, all[k].hi - all[k].lo, DT_INT32, c->buf->loc);
        t->varying = c->buf->varying;
        t->align = c->buf->align;
        c->piece[k] = all[k], c->tile[k] = t;
    }
    c->npieces = n;
}

/* ---- rebasing the accesses ------------------------------------------------------------ */
static Cand *split_of(Split *S, const Buffer *b) {
    Cand *c = cand_of(S, b);
    return c && c->npieces ? c : NULL;
}

/* col - lo, with a constant term of col folded (64 * u + 512 - 512: 64 * u). */
static Expr *minus(Ctx *ctx, Expr *col, int64_t lo) {
    int64_t k;
    Expr *a = col->kind == EXPR_BIN && col->u.bin.op == OP_ADD ? col->u.bin.a : NULL;
    Expr *b = a ? col->u.bin.b : NULL;
    if (a && ir_is_const_int(a, &k)) return ir_bin(ctx, OP_ADD, minus(ctx, a, lo), b, col->loc);
    if (b && ir_is_const_int(b, &k)) return ir_bin(ctx, OP_ADD, a, minus(ctx, b, lo), col->loc);
    return ir_bin(ctx, OP_SUB, col, ir_int(ctx, lo, col->dtype, col->loc), col->loc);
}

/* The piece of c holding the access of `width` columns from (*idx)[last]; *idx becomes a
 * fresh copy (index arrays may be shared) with the column within that piece. */
static Buffer *rebase(Split *S, Cand *c, Expr ***idx, int64_t width) {
    int last = c->buf->ndim - 1;
    Expr **copy = NEW_ARRAY(&S->ctx->arena, Expr *, last + 2), *col = (*idx)[last];
    int k = piece_of(c, col_interval(S, col, width));
    TL_ASSERT(k >= 0 && "split_shared: an access outside the planned pieces");
    for (int d = 0; d < last; d++) copy[d] = (*idx)[d];
    copy[last] = minus(S->ctx, col, c->piece[k].lo);
    *idx = copy;
    return c->tile[k];
}

static void rewrite_expr(Expr **slot, void *ud) {
    Split *S = ud;
    Expr *e = *slot;
    Cand *c = e->kind == EXPR_LOAD ? split_of(S, e->u.load.buf) : NULL;
    if (c) { /* a new node: expressions may be shared */
        Expr *n = NEW(&S->ctx->arena, Expr);
        *n = *e;
        n->u.load.buf = rebase(S, c, &n->u.load.idx, 1);
        *slot = e = n;
    }
    ir_expr_children(e, rewrite_expr, ud);
}

static void rewrite_region(Region *r, void *ud) {
    Split *S = ud;
    Cand *c = split_of(S, r->buf);
    int64_t width = 0;
    if (!c) return;
    ir_is_const_int(r->extent[r->ndim - 1], &width);
    r->buf = rebase(S, c, &r->start, width);
}

static void rewrite_stmt(Split *S, Stmt **slot);

/* Region `which` of copy or fill s: 0 the source (a fill's destination), 1 the
 * destination. */
static Region *region_at(Stmt *s, int which) {
    if (s->kind == STMT_FILL) return &s->u.fill.dst;
    return which ? &s->u.copy.dst : &s->u.copy.src;
}

/* A copy or fill whose region `which` (of split c) spans pieces: one per piece it
 * touches. */
static Stmt *split_tile_op(Split *S, Stmt *s, int which, Cand *c) {
    Region *r = region_at(s, which);
    int last = r->ndim - 1, m = s->kind == STMT_COPY ? matching_dim(S, s, r) : -1;
    int64_t lo, width;
    ir_is_const_int(r->start[last], &lo);
    ir_is_const_int(r->extent[last], &width);
    Stmt *seq = ir_seq(S->ctx, s->loc);
    for (int k = 0; k < c->npieces; k++) {
        int64_t a = c->piece[k].lo > lo ? c->piece[k].lo : lo;
        int64_t b = c->piece[k].hi < lo + width ? c->piece[k].hi : lo + width;
        if (a >= b) continue;
        Stmt *t = ir_stmt_clone(S->ctx, s, NULL, NULL);
        Region *tr = region_at(t, which);
        tr->start[last] = ir_int(S->ctx, a, r->start[last]->dtype, s->loc);
        tr->extent[last] = ir_int(S->ctx, b - a, r->extent[last]->dtype, s->loc);
        if (m >= 0) { /* the same columns of the other side */
            Region *o = region_at(t, !which);
            o->start[m] = ir_bin(S->ctx, OP_ADD, o->start[m],
                                 ir_int(S->ctx, a - lo, o->start[m]->dtype, s->loc), s->loc);
            o->extent[m] = ir_int(S->ctx, b - a, o->extent[m]->dtype, s->loc);
        }
        ir_seq_push(S->ctx, seq, t);
    }
    return seq;
}

/* The region of copy or fill s (region_at's index) that spans pieces of a split buffer,
 * or -1. */
static int spanning_region(Split *S, Stmt *s, Cand **c) {
    for (int which = 0; which < (s->kind == STMT_COPY ? 2 : 1); which++) {
        Region *r = region_at(s, which);
        int64_t width;
        if (!(*c = split_of(S, r->buf)) || !soft_region(S, s, r)) continue;
        ir_is_const_int(r->extent[r->ndim - 1], &width);
        if (piece_of(*c, col_interval(S, r->start[r->ndim - 1], width)) < 0) return which;
    }
    return -1;
}

/* The pieces the accesses of body reach while var runs over [lo, hi]. */
static void signature(Split *S, Stmt *body, const Var *var, int64_t lo, int64_t hi, Pieces *out) {
    out->len = 0;
    iv_env_push(&S->env, var, (Interval){true, true, lo, hi});
    S->sig = out;
    walk_stmt(S, body);
    S->sig = NULL;
    S->env.len--;
}

static bool same_sig(const Pieces *a, const Pieces *b) {
    return a->len == b->len && !memcmp(a->data, b->data, sizeof(int) * (size_t)a->len);
}

/* Loop s split into runs of iterations whose accesses each stay in one piece, or NULL
 * when one run takes them all. */
static Stmt *split_loop(Split *S, Stmt *s) {
    int64_t min, ext;
    if (!splittable_loop(s, &min, &ext)) return NULL;
    Var *v = s->u.for_.var;
    Pieces first = {0}, run = {0};
    Stmt *seq = ir_seq(S->ctx, s->loc);
    for (int64_t a = min, b; a < min + ext; a = b) {
        signature(S, s->u.for_.body, v, a, a, &first);
        for (b = a + 1; b < min + ext; b++) {
            signature(S, s->u.for_.body, v, a, b, &run);
            if (!same_sig(&first, &run)) break;
        }
        if (a == min && b == min + ext) return NULL;
        Var *nv = ir_var(S->ctx, v->name, v->dtype);
        int id = nv->id;
        *nv = *v, nv->id = id;
        Stmt *f = ir_stmt(S->ctx, STMT_FOR, s->loc);
        f->u.for_ = s->u.for_;
        f->u.for_.var = nv;
        f->u.for_.min = ir_int(S->ctx, a, s->u.for_.min->dtype, s->loc);
        f->u.for_.extent = ir_int(S->ctx, b - a, s->u.for_.extent->dtype, s->loc);
        f->u.for_.body = ir_stmt_clone(S->ctx, s->u.for_.body, v, ir_varref(S->ctx, nv, s->loc));
        ir_seq_push(S->ctx, seq, f);
    }
    return seq;
}

/* A SEQ: each split buffer's allocation becomes its pieces' allocations. */
static void rewrite_seq(Split *S, Stmt *seq) {
    StmtList out = {0};
    int mark = S->env.len;
    for (int i = 0; i < seq->u.seq.len; i++) {
        Stmt *s = seq->u.seq.data[i];
        Cand *c = s->kind == STMT_ALLOC ? split_of(S, s->u.alloc.buf) : NULL;
        if (!c) {
            rewrite_stmt(S, &seq->u.seq.data[i]);
            VEC_PUSH(&S->ctx->arena, out, seq->u.seq.data[i]);
            continue;
        }
        for (int k = 0; k < c->npieces; k++) {
            Stmt *a = ir_stmt(S->ctx, STMT_ALLOC, s->loc);
            a->u.alloc.buf = c->tile[k];
            VEC_PUSH(&S->ctx->arena, out, a);
        }
    }
    seq->u.seq = out;
    S->env.len = mark;
}

static void rewrite_child(Stmt **slot, void *ud) { rewrite_stmt(ud, slot); }

static void rewrite_stmt(Split *S, Stmt **slot) {
    Stmt *s = *slot, *repl = NULL;
    Cand *c = NULL;
    int which = -1;
    if (s->kind == STMT_SEQ) {
        rewrite_seq(S, s);
        return;
    }
    if (s->kind == STMT_ALLOC && split_of(S, s->u.alloc.buf)) { /* (not in a SEQ) */
        repl = ir_seq(S->ctx, s->loc);
        ir_seq_push(S->ctx, repl, s);
    } else if (s->kind == STMT_FOR) {
        repl = split_loop(S, s);
    } else if ((s->kind == STMT_COPY || s->kind == STMT_FILL) &&
               (which = spanning_region(S, s, &c)) >= 0) {
        repl = split_tile_op(S, s, which, c);
    }
    if (repl) {
        *slot = repl;
        rewrite_seq(S, repl);
        return;
    }
    int mark = S->env.len;
    c = s->kind == STMT_STORE ? split_of(S, s->u.store.buf) : NULL;
    if (c) s->u.store.buf = rebase(S, c, &s->u.store.idx, 1);
    for (int i = 0; s->kind == STMT_EXTERN && i < s->u.extern_.nargs; i++) {
        ExternArg *a = &s->u.extern_.args[i];
        if (!a->value && (c = split_of(S, a->buf)))
            a->buf = rebase(S, c, &a->idx, cp_async_bytes(s) / dtype_bytes(c->buf->dtype));
    }
    ir_stmt_regions(s, rewrite_region, S);
    ir_stmt_exprs(s, rewrite_expr, S);
    if (s->kind == STMT_FOR || s->kind == STMT_KERNEL || s->kind == STMT_LET)
        iv_env_enter(&S->env, s);
    ir_stmt_children(s, rewrite_child, S);
    if (s->kind != STMT_LET) S->env.len = mark;
}

void pass_split_shared(Ctx *ctx, Func *f) {
    Split S = {.ctx = ctx};
    if (!f->body) return;
    walk_stmt(&S, f->body);
    bool any = false;
    for (int i = 0; i < S.cands.len; i++) {
        plan(&S, &S.cands.data[i]);
        any |= S.cands.data[i].npieces > 0;
    }
    S.env.len = 0;
    if (any) rewrite_stmt(&S, &f->body);
    iv_env_free(&S.env);
}
