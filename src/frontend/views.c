/* views.c - T.reshape / T.view of shared, fragment and local buffers (TileLang: a buffer
 * over the same data, the same number of elements in another shape), resolved at
 * elaboration so that the IR never names such a view and no pass needs to know them:
 *  - an element of the view is the element of its base at the same row-major position
 *    (local_view_index; dimensions grouped where the two shapes' running products meet,
 *    so that s[i, j * H + k] stands for view[i, j, k] without a division);
 *  - a tile op over a region of a view works on a temporary buffer of the region's
 *    shape in the base's scope, copied in from the base before the op (operands it
 *    reads) and back after it (operands it writes) by T.Parallel loops
 *    (local_view_tile_ops, which emit_stmt calls on every statement);
 *  - a pointer into a view (T.access_ptr, x.data) points into the base, at the element
 *    of the same position (tileops_mem.c, tileops_mma.c, ...); local_views_check asserts
 *    that no view is left in the IR (it would be a front-end bug).
 * On CUDA, infer_layouts.c reads such an index of a register fragment (s[i, j * H + k]
 * in a nest over the view's shape) through the fragment's layout split the view's way
 * (frag_split), so the fragment keeps its registers. Views of global buffers are the
 * IR's own (Buffer.base), not these. */
#include "frontend/eval.h"
#include "ir/ir_walk.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

bool is_local_view(const Buffer *b) { return b && b->base && b->base->scope != SCOPE_GLOBAL; }

static int64_t const_dim(const Expr *e) {
    int64_t c = -1;
    return ir_is_const_int(e, &c) ? c : -1;
}

Buffer *local_view(Interp *in, Buffer *base, int nd, Expr **dims, Loc loc, const char *fname) {
    if ((base->scope != SCOPE_SHARED && base->scope != SCOPE_FRAGMENT &&
         base->scope != SCOPE_LOCAL) ||
        base->lanes)
        ctx_fail(in->ctx, loc,
                 "%s: tilec takes views of global, shared, fragment and local buffers of "
                 "scalars ('%s' is %s%s)",
                 fname, base->name, base->lanes ? "a buffer of vectors in " : "",
                 scope_name(base->scope));
    int64_t have = 1, want = 1;
    for (int d = 0; d < base->ndim; d++) have *= const_dim(base->shape[d]);
    for (int d = 0; d < nd; d++) {
        int64_t c = const_dim(dims[d]);
        if (c < 0)
            ctx_fail(in->ctx, loc, "%s: a view of the %s buffer '%s' needs a constant shape", fname,
                     scope_name(base->scope), base->name);
        want *= c;
    }
    if (want != have)
        ctx_fail(in->ctx, loc,
                 "%s: a view of %lld elements of the %s buffer '%s', which has %lld (a "
                 "view of a shared, fragment or local buffer has all of its elements)",
                 fname, (long long)want, scope_name(base->scope), base->name, (long long)have);
    Buffer *v = ir_buffer(in->ctx, arena_printf(ARENA, "__tmp%d", in->ctx->next_id), base->dtype,
                          base->scope, nd, loc);
    for (int d = 0; d < nd; d++) v->shape[d] = dims[d];
    v->base = base;
    return v;
}

/* index[d] of the base for view index idx: per group of dimensions whose running
 * products meet, the view's position in the group split over the base's dimensions. */
Expr **local_view_index(Interp *in, const Buffer *v, Expr *const *idx, Loc loc) {
    const Buffer *b = v->base;
    Expr **out = NEW_ARRAY(ARENA, Expr *, b->ndim + 1);
    Ctx *ctx = in->ctx;
    int i = 0, j = 0;
    while (i < v->ndim || j < b->ndim) {
        int i0 = i, j0 = j;
        int64_t pv = 1, pb = 1;
        if (i < v->ndim) pv *= const_dim(v->shape[i++]);
        else pb *= const_dim(b->shape[j++]);
        while (pv != pb) {
            if (pv < pb && i < v->ndim) pv *= const_dim(v->shape[i++]);
            else if (j < b->ndim) pb *= const_dim(b->shape[j++]);
            else TL_ASSERT(false); /* local_view checked the element counts */
        }
        Expr *lin = ir_int(ctx, 0, DT_INT32, loc);
        for (int m = i0; m < i; m++) { /* the view's position in the group */
            lin = ir_bin(ctx, OP_MUL, lin, ir_int(ctx, const_dim(v->shape[m]), DT_INT32, loc), loc);
            lin = ir_bin(ctx, OP_ADD, lin, ir_subst(ctx, idx[m], NULL, NULL), loc);
        }
        int64_t stride = pb;
        for (int n = j0; n < j; n++) {
            int64_t ext = const_dim(b->shape[n]);
            stride /= ext;
            Expr *e = ir_subst(ctx, lin, NULL, NULL);
            if (stride > 1)
                e = ir_bin(ctx, OP_FLOORDIV, e, ir_int(ctx, stride, DT_INT32, loc), loc);
            if (n > j0) e = ir_bin(ctx, OP_FLOORMOD, e, ir_int(ctx, ext, DT_INT32, loc), loc);
            out[n] = ext == 1 ? ir_int(ctx, 0, DT_INT32, loc) : arith_simplify(ctx, e);
        }
    }
    return out;
}

/* ---- tile ops over regions of views -------------------------------------------------- */
typedef struct Staged {
    Region *r;   /* the op's region, rewritten to tmp */
    Region view; /* the region of the view it was */
    Buffer *tmp; /* of the region's shape (constant extents) or the view's */
    bool read, written;
} Staged;

typedef struct Finder {
    Stmt *s;
    Staged st[8];
    int n;
} Finder;

/* Whether the op reads / writes operand r (a write-only copy or fill destination is not
 * copied in; every operand an op may update is copied back). */
static void access_of(const Stmt *s, const Region *r, bool *read, bool *written) {
    *read = !(s->kind == STMT_COPY && r == &s->u.copy.dst) &&
            !(s->kind == STMT_FILL && r == &s->u.fill.dst);
    *written = (s->kind == STMT_COPY && r == &s->u.copy.dst) ||
               (s->kind == STMT_FILL && r == &s->u.fill.dst) ||
               (s->kind == STMT_GEMM && r == &s->u.gemm.c) ||
               (s->kind == STMT_REDUCE && r == &s->u.reduce.dst) ||
               (s->kind == STMT_CUMSUM && r == &s->u.cumsum.dst) ||
               (s->kind == STMT_ATOMIC && r == &s->u.atomic.dst);
}

static void find_view_region(Region *r, void *ud) {
    Finder *f = ud;
    if (!is_local_view(r->buf) || f->n == 8) return;
    Staged *st = &f->st[f->n++];
    st->r = r;
    st->view = *r;
    access_of(f->s, r, &st->read, &st->written);
}

/* A nest of loops over the region's extents whose body copies between the view's
 * elements (through the base) and tmp's, one way or the other. */
static Stmt *copy_nest(Interp *in, const Staged *st, bool in_to_tmp, Loc loc) {
    Ctx *ctx = in->ctx;
    const Region *vr = &st->view;
    int nd = vr->ndim;
    Var **vars = NEW_ARRAY(ARENA, Var *, nd + 1);
    Expr **vidx = NEW_ARRAY(ARENA, Expr *, nd + 1), **tidx = NEW_ARRAY(ARENA, Expr *, nd + 1);
    for (int d = 0; d < nd; d++) { /* view[start + v], tmp[tmp start + v] */
        vars[d] = ir_var(ctx, arena_printf(ARENA, "v%d", d), DT_INT32);
        vidx[d] = ir_bin(ctx, OP_ADD, ir_subst(ctx, vr->start[d], NULL, NULL),
                         ir_varref(ctx, vars[d], loc), loc);
        tidx[d] = ir_bin(ctx, OP_ADD, ir_subst(ctx, st->r->start[d], NULL, NULL),
                         ir_varref(ctx, vars[d], loc), loc);
    }
    Buffer *base = (Buffer *)st->view.buf->base;
    Expr **bidx = local_view_index(in, st->view.buf, vidx, loc);
    Stmt *store = ir_stmt(ctx, STMT_STORE, loc);
    if (in_to_tmp) {
        store->u.store.buf = st->tmp;
        store->u.store.idx = tidx;
        store->u.store.value = ir_load(ctx, base, bidx, loc);
    } else {
        store->u.store.buf = base;
        store->u.store.idx = bidx;
        store->u.store.value = ir_load(ctx, st->tmp, tidx, loc);
    }
    LoopKind kind = base->scope == SCOPE_LOCAL ? LOOP_SERIAL : LOOP_PARALLEL;
    Stmt *body = store;
    for (int d = nd - 1; d >= 0; d--) {
        Stmt *loop = ir_stmt(ctx, STMT_FOR, loc);
        loop->u.for_.var = vars[d];
        loop->u.for_.min = ir_int(ctx, 0, DT_INT32, loc);
        loop->u.for_.extent = ir_subst(ctx, vr->extent[d], NULL, NULL);
        loop->u.for_.kind = kind;
        loop->u.for_.body = body;
        body = loop;
    }
    return body;
}

/* tmp for st: of the region's shape when its extents are constants (the op's region then
 * starts at 0), else of the view's shape (the region keeps its starts); its allocation
 * goes into seq. */
static void stage(Interp *in, Staged *st, Stmt *seq, Loc loc) {
    const Region *vr = &st->view;
    bool whole_shape = true;
    for (int d = 0; d < vr->ndim; d++) whole_shape = whole_shape && const_dim(vr->extent[d]) > 0;
    Buffer *v = vr->buf;
    Buffer *t = ir_buffer(in->ctx, arena_printf(ARENA, "%s_tile", v->name), v->dtype,
                          v->base->scope, vr->ndim, loc);
    Region *r = st->r;
    r->buf = t;
    r->start = NEW_ARRAY(ARENA, Expr *, vr->ndim + 1);
    for (int d = 0; d < vr->ndim; d++) {
        t->shape[d] = ir_subst(in->ctx, whole_shape ? vr->extent[d] : v->shape[d], NULL, NULL);
        r->start[d] = whole_shape ? ir_int(in->ctx, 0, DT_INT32, loc)
                                  : ir_subst(in->ctx, vr->start[d], NULL, NULL);
    }
    st->tmp = t;
    Stmt *alloc = ir_stmt(in->ctx, STMT_ALLOC, loc);
    alloc->u.alloc.buf = t;
    ir_seq_push(in->ctx, seq, alloc);
}

/* *slot, a tile op over regions of views, as the sequence that stages them around it;
 * tile ops inside a compound statement likewise (a gemm's run-time clear_accum= is an
 * `if` around a fill of its accumulator). */
static void stage_slot(Stmt **slot, void *ud) {
    Interp *in = ud;
    Stmt *s = *slot;
    Finder f = {s, {{0}}, 0};
    ir_stmt_regions(s, find_view_region, &f);
    if (!f.n) {
        ir_stmt_children(s, stage_slot, ud);
        return;
    }
    Stmt *seq = ir_seq(in->ctx, s->loc);
    for (int k = 0; k < f.n; k++) stage(in, &f.st[k], seq, s->loc);
    for (int k = 0; k < f.n; k++)
        if (f.st[k].read) ir_seq_push(in->ctx, seq, copy_nest(in, &f.st[k], true, s->loc));
    ir_seq_push(in->ctx, seq, s);
    for (int k = 0; k < f.n; k++)
        if (f.st[k].written) ir_seq_push(in->ctx, seq, copy_nest(in, &f.st[k], false, s->loc));
    *slot = seq;
}

Stmt *local_view_tile_ops(Interp *in, Stmt *s) {
    stage_slot(&s, in);
    return s;
}

/* ---- none is left in the IR --------------------------------------------------------- */
static void check_expr(Expr **slot, void *ud) {
    TL_ASSERT(!((*slot)->kind == EXPR_LOAD && is_local_view((*slot)->u.load.buf)));
    ir_expr_children(*slot, check_expr, ud);
}

static void check_region(Region *r, void *ud) {
    (void)ud;
    TL_ASSERT(!is_local_view(r->buf));
}

static void check_stmt(Stmt **slot, void *ud) {
    Stmt *s = *slot;
    TL_ASSERT(!(s->kind == STMT_STORE && is_local_view(s->u.store.buf)));
    TL_ASSERT(!(s->kind == STMT_ALLOC && is_local_view(s->u.alloc.buf)));
    for (int i = 0; s->kind == STMT_EXTERN && i < s->u.extern_.nargs; i++)
        TL_ASSERT(!is_local_view(s->u.extern_.args[i].buf));
    ir_stmt_regions(s, check_region, ud);
    ir_stmt_exprs(s, check_expr, ud);
    ir_stmt_children(s, check_stmt, ud);
}

void local_views_check(Func *f) {
    if (f->body) check_stmt(&f->body, NULL);
}
