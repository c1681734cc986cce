/* split_shared.c - a shared tile used only in column slices becomes one tile per slice.
 *
 * TileLang code packs operands side by side in one shared tile: DeepSeek-V3.2's sparse
 * MLA keeps Q in Q_shared[:, :512] for Q K^T and its rope part in Q_shared[:, 512:] for
 * a second gemm into the same scores. A gemm on tensor cores reads whole tiles
 * (cuda_keep_tile_op), so on such slices it would run as scalar loops. When every access
 * to a 2-D shared buffer falls in one of several disjoint constant column ranges (a
 * region by its constant column start and extent, an element access by a constant
 * column), each range becomes a buffer of its own and the accesses are rebased onto it:
 * the same program, with slices that are whole tiles. Buffers with a layout annotation,
 * raw-bits accesses or any other use, and kernels that pass pointers to extern code,
 * are left alone. Runs before pass_stage_gemm_operands. */
#include "targets/cuda/passes/cuda_passes.h"
#include "ir/ir_walk.h"

#include <stdlib.h>

enum { MAX_PIECES = 8 };

typedef struct Range {
    int64_t lo, hi; /* columns [lo, hi) */
} Range;

typedef struct Cand {
    Buffer *buf;
    Vec(Range) used; /* the column ranges its accesses touch */
    bool bad;        /* some use is not a constant column range */
    int npieces;     /* after the plan: 0 (not split) or its pieces */
    Range piece[MAX_PIECES];
    Buffer *tile[MAX_PIECES];
} Cand;

typedef struct Split {
    Ctx *ctx;
    Vec(Cand) cands;
    bool externs; /* a T.call_extern: pointers the walk cannot see */
} Split;

static Cand *cand_of(Split *S, const Buffer *b) {
    for (int i = 0; i < S->cands.len; i++)
        if (S->cands.data[i].buf == b) return &S->cands.data[i];
    return NULL;
}

static void use(Split *S, const Buffer *b, Expr *start, Expr *extent) {
    Cand *c = cand_of(S, b);
    int64_t lo, n;
    if (!c) return;
    if (!start || !ir_is_const_int(start, &lo) || !ir_is_const_int(extent, &n) || n <= 0) {
        c->bad = true;
        return;
    }
    VEC_PUSH(&S->ctx->arena, c->used, ((Range){lo, lo + n}));
}

/* ---- what the accesses touch ---------------------------------------------------------------- */
static void collect_expr(Expr **slot, void *ud) {
    Split *S = ud;
    Expr *e = *slot;
    if (e->kind == EXPR_LOAD && cand_of(S, e->u.load.buf)) {
        if (e->u.load.mode != LOAD_PLAIN) cand_of(S, e->u.load.buf)->bad = true;
        else use(S, e->u.load.buf, e->u.load.idx[1], ir_int(S->ctx, 1, DT_INT32, e->loc));
    }
    ir_expr_children(e, collect_expr, ud);
}

static void collect_region(Region *r, void *ud) {
    Split *S = ud;
    if (!cand_of(S, r->buf)) return;
    if (r->ndim != 2) cand_of(S, r->buf)->bad = true;
    else use(S, r->buf, r->start[1], r->extent[1]);
}

static void collect_stmt(Stmt **slot, void *ud) {
    Split *S = ud;
    Stmt *s = *slot;
    if (s->kind == STMT_ALLOC) {
        Buffer *b = s->u.alloc.buf;
        int64_t rows, cols;
        if (b->scope == SCOPE_SHARED && b->ndim == 2 && !b->strides && !b->init && !b->reducer &&
            ir_is_const_int(b->shape[0], &rows) && ir_is_const_int(b->shape[1], &cols))
            VEC_PUSH(&S->ctx->arena, S->cands, ((Cand){.buf = b}));
        return;
    }
    if (s->kind == STMT_ANNOTATE_LAYOUT && cand_of(S, s->u.annotate.buf))
        cand_of(S, s->u.annotate.buf)->bad = true;
    if (s->kind == STMT_EXTERN) S->externs = true;
    if (s->kind == STMT_STORE && cand_of(S, s->u.store.buf)) {
        if (s->u.store.bits) cand_of(S, s->u.store.buf)->bad = true;
        else use(S, s->u.store.buf, s->u.store.idx[1], ir_int(S->ctx, 1, DT_INT32, s->loc));
    }
    ir_stmt_regions(s, collect_region, ud);
    ir_stmt_exprs(s, collect_expr, ud);
    ir_stmt_children(s, collect_stmt, ud);
}

/* ---- the plan: overlapping ranges merged; split where that leaves several ------------------ */
static int range_cmp(const void *a, const void *b) {
    const Range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void plan(Split *S, Cand *c) {
    if (c->bad || S->externs || !c->used.len) return;
    qsort(c->used.data, (size_t)c->used.len, sizeof(Range), range_cmp);
    int n = 0;
    for (int i = 0; i < c->used.len; i++) {
        Range r = c->used.data[i];
        if (n && r.lo < c->piece[n - 1].hi) {
            if (r.hi > c->piece[n - 1].hi) c->piece[n - 1].hi = r.hi;
        } else if (n == MAX_PIECES) {
            return;
        } else {
            c->piece[n++] = r;
        }
    }
    if (n < 2) return;
    for (int k = 0; k < n; k++) {
        Buffer *t = ir_buffer(S->ctx, arena_printf(&S->ctx->arena, "%s_%d", c->buf->name, k),
                              c->buf->dtype, SCOPE_SHARED, 2, c->buf->loc);
        t->shape[0] = c->buf->shape[0];
        t->varying = c->buf->varying;
        t->shape[1] = ir_int(S->ctx, c->piece[k].hi - c->piece[k].lo, DT_INT32, c->buf->loc);
        c->tile[k] = t;
    }
    c->npieces = n;
}

/* ---- rebasing the accesses ------------------------------------------------------------------- */
/* The piece of c holding column idx[1]; *idx becomes a fresh copy (index arrays may be
 * shared) with the column within that piece. */
static Buffer *rebase(Split *S, Cand *c, Expr ***idx) {
    Expr **copy = NEW_ARRAY(&S->ctx->arena, Expr *, 2), *col = (*idx)[1];
    int64_t v = 0;
    ir_is_const_int(col, &v);
    copy[0] = (*idx)[0];
    *idx = copy;
    for (int k = 0; k < c->npieces; k++)
        if (v >= c->piece[k].lo && v < c->piece[k].hi) {
            copy[1] = ir_int(S->ctx, v - c->piece[k].lo, col->dtype, col->loc);
            return c->tile[k];
        }
    TL_ASSERT(!"split_shared: an access outside the planned pieces");
    return NULL;
}

static Cand *split_of(Split *S, const Buffer *b) {
    Cand *c = cand_of(S, b);
    return c && c->npieces ? c : NULL;
}

static void rewrite_expr(Expr **slot, void *ud) {
    Split *S = ud;
    Expr *e = *slot;
    Cand *c = e->kind == EXPR_LOAD ? split_of(S, e->u.load.buf) : NULL;
    if (c) e->u.load.buf = rebase(S, c, &e->u.load.idx);
    ir_expr_children(e, rewrite_expr, ud);
}

static void rewrite_region(Region *r, void *ud) {
    Split *S = ud;
    Cand *c = split_of(S, r->buf);
    if (c) r->buf = rebase(S, c, &r->start);
}

static void rewrite_stmt(Stmt **slot, void *ud);

/* A SEQ: each split buffer's allocation becomes its pieces' allocations. */
static void rewrite_seq(Split *S, Stmt *seq) {
    StmtList out = {0};
    for (int i = 0; i < seq->u.seq.len; i++) {
        Stmt *s = seq->u.seq.data[i];
        Cand *c = s->kind == STMT_ALLOC ? split_of(S, s->u.alloc.buf) : NULL;
        if (!c) {
            rewrite_stmt(&seq->u.seq.data[i], S);
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
}

static void rewrite_stmt(Stmt **slot, void *ud) {
    Split *S = ud;
    Stmt *s = *slot;
    if (s->kind == STMT_SEQ) {
        rewrite_seq(S, s);
        return;
    }
    if (s->kind == STMT_ALLOC && split_of(S, s->u.alloc.buf)) { /* (not in a SEQ) */
        Stmt *seq = ir_seq(S->ctx, s->loc);
        ir_seq_push(S->ctx, seq, s);
        rewrite_seq(S, seq);
        *slot = seq;
        return;
    }
    Cand *c = s->kind == STMT_STORE ? split_of(S, s->u.store.buf) : NULL;
    if (c) s->u.store.buf = rebase(S, c, &s->u.store.idx);
    ir_stmt_regions(s, rewrite_region, ud);
    ir_stmt_exprs(s, rewrite_expr, ud);
    ir_stmt_children(s, rewrite_stmt, ud);
}

void pass_split_shared(Ctx *ctx, Func *f) {
    Split S = {.ctx = ctx};
    collect_stmt(&f->body, &S);
    bool any = false;
    for (int i = 0; i < S.cands.len; i++) {
        plan(&S, &S.cands.data[i]);
        any |= S.cands.data[i].npieces > 0;
    }
    if (any) rewrite_stmt(&f->body, &S);
}
