/* ir_walk.c - slot visitors, structural equality and substitution over the tile IR. */
#include "ir/ir_walk.h"

#include <string.h>

void ir_expr_children(Expr *e, ExprSlotFn fn, void *ud) {
    switch (e->kind) {
    case EXPR_BIN:
        fn(&e->u.bin.a, ud);
        fn(&e->u.bin.b, ud);
        break;
    case EXPR_UN: fn(&e->u.un.a, ud); break;
    case EXPR_CALL:
        for (int i = 0; i < 3 && e->u.call.args[i]; i++) fn(&e->u.call.args[i], ud);
        break;
    case EXPR_CAST: fn(&e->u.cast.value, ud); break;
    case EXPR_LOAD:
        for (int d = 0; d < e->u.load.buf->ndim; d++) fn(&e->u.load.idx[d], ud);
        break;
    case EXPR_SELECT:
        fn(&e->u.select.cond, ud);
        fn(&e->u.select.then, ud);
        fn(&e->u.select.orelse, ud);
        break;
    default: break;
    }
}

static void region_exprs(Region *r, ExprSlotFn fn, void *ud) {
    if (!r->buf) return;
    for (int d = 0; d < r->ndim; d++) {
        if (r->start && r->start[d]) fn(&r->start[d], ud);
        if (r->extent && r->extent[d]) fn(&r->extent[d], ud);
    }
}

static void opt(Expr **slot, ExprSlotFn fn, void *ud) {
    if (*slot) fn(slot, ud);
}

static void alloc_exprs(Buffer *b, ExprSlotFn fn, void *ud) {
    for (int d = 0; d < b->ndim; d++) {
        opt(&b->shape[d], fn, ud);
        if (b->strides) opt(&b->strides[d], fn, ud);
    }
    opt(&b->init, fn, ud);
    opt(&b->safe_value, fn, ud);
}

void ir_stmt_exprs(Stmt *s, ExprSlotFn fn, void *ud) {
    switch (s->kind) {
    case STMT_FOR:
        fn(&s->u.for_.min, ud);
        fn(&s->u.for_.extent, ud);
        break;
    case STMT_WHILE: fn(&s->u.while_.cond, ud); break;
    case STMT_IF: fn(&s->u.if_.cond, ud); break;
    case STMT_STORE:
        for (int d = 0; d < s->u.store.buf->ndim; d++) fn(&s->u.store.idx[d], ud);
        fn(&s->u.store.value, ud);
        break;
    case STMT_LET: fn(&s->u.let.value, ud); break;
    case STMT_ALLOC: alloc_exprs(s->u.alloc.buf, fn, ud); break;
    case STMT_KERNEL:
        for (int d = 0; d < s->u.kernel.ngrid; d++) fn(&s->u.kernel.grid[d], ud);
        break;
    case STMT_COPY:
        region_exprs(&s->u.copy.src, fn, ud);
        region_exprs(&s->u.copy.dst, fn, ud);
        opt(&s->u.copy.bar_idx, fn, ud);
        break;
    case STMT_MBAR:
        opt(&s->u.mbar.idx, fn, ud);
        opt(&s->u.mbar.arg, fn, ud);
        opt(&s->u.mbar.cta, fn, ud);
        break;
    case STMT_FILL:
        region_exprs(&s->u.fill.dst, fn, ud);
        fn(&s->u.fill.value, ud);
        break;
    case STMT_GEMM:
        region_exprs(&s->u.gemm.a, fn, ud);
        region_exprs(&s->u.gemm.b, fn, ud);
        region_exprs(&s->u.gemm.c, fn, ud);
        region_exprs(&s->u.gemm.e, fn, ud);
        break;
    case STMT_REDUCE:
        region_exprs(&s->u.reduce.src, fn, ud);
        region_exprs(&s->u.reduce.dst, fn, ud);
        break;
    case STMT_CUMSUM:
        region_exprs(&s->u.cumsum.src, fn, ud);
        region_exprs(&s->u.cumsum.dst, fn, ud);
        break;
    case STMT_ATOMIC:
        region_exprs(&s->u.atomic.dst, fn, ud);
        region_exprs(&s->u.atomic.src, fn, ud);
        opt(&s->u.atomic.value, fn, ud);
        break;
    case STMT_PRINT:
        opt(&s->u.print.value, fn, ud);
        region_exprs(&s->u.print.region, fn, ud);
        break;
    case STMT_ASSERT: fn(&s->u.assert_.cond, ud); break;
    case STMT_SWIZZLE: opt(&s->u.swizzle.panel, fn, ud); break;
    case STMT_WS:
        if (s->u.ws.sk) fn(&s->u.ws.sk->iters, ud);
        break;
    case STMT_EXTERN:
        for (int i = 0; i < s->u.extern_.nargs; i++) {
            ExternArg *a = &s->u.extern_.args[i];
            if (a->value) fn(&a->value, ud);
            for (int d = 0; !a->value && d < a->buf->ndim; d++) fn(&a->idx[d], ud);
            opt(&a->extent, fn, ud);
        }
        break;
    default: break;
    }
}

void ir_stmt_children(Stmt *s, StmtSlotFn fn, void *ud) {
    switch (s->kind) {
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) fn(&s->u.seq.data[i], ud);
        break;
    case STMT_FOR: fn(&s->u.for_.body, ud); break;
    case STMT_WHILE: fn(&s->u.while_.body, ud); break;
    case STMT_IF:
        fn(&s->u.if_.then, ud);
        if (s->u.if_.orelse) fn(&s->u.if_.orelse, ud);
        break;
    case STMT_KERNEL: fn(&s->u.kernel.body, ud); break;
    case STMT_WS:
        fn(&s->u.ws.producer, ud);
        fn(&s->u.ws.consumer, ud);
        break;
    case STMT_THREADS:
        fn(&s->u.threads.body, ud);
        if (s->u.threads.orelse) fn(&s->u.threads.orelse, ud);
        break;
    default: break;
    }
}

static void region_if(Region *r, RegionFn fn, void *ud) {
    if (r->buf) fn(r, ud);
}

void ir_stmt_regions(Stmt *s, RegionFn fn, void *ud) {
    switch (s->kind) {
    case STMT_COPY:
        region_if(&s->u.copy.src, fn, ud);
        region_if(&s->u.copy.dst, fn, ud);
        break;
    case STMT_FILL: region_if(&s->u.fill.dst, fn, ud); break;
    case STMT_GEMM:
        region_if(&s->u.gemm.a, fn, ud);
        region_if(&s->u.gemm.b, fn, ud);
        region_if(&s->u.gemm.c, fn, ud);
        region_if(&s->u.gemm.e, fn, ud);
        break;
    case STMT_REDUCE:
        region_if(&s->u.reduce.src, fn, ud);
        region_if(&s->u.reduce.dst, fn, ud);
        break;
    case STMT_CUMSUM:
        region_if(&s->u.cumsum.src, fn, ud);
        region_if(&s->u.cumsum.dst, fn, ud);
        break;
    case STMT_ATOMIC:
        region_if(&s->u.atomic.dst, fn, ud);
        region_if(&s->u.atomic.src, fn, ud);
        break;
    case STMT_PRINT: region_if(&s->u.print.region, fn, ud); break;
    default: break;
    }
}

typedef struct ReadsBuf {
    const Buffer *b;
    bool found;
} ReadsBuf;

static void reads_expr_slot(Expr **slot, void *ud) {
    ReadsBuf *r = ud;
    if ((*slot)->kind == EXPR_LOAD && (*slot)->u.load.buf == r->b) r->found = true;
    if (!r->found) ir_expr_children(*slot, reads_expr_slot, ud);
}

static void reads_stmt_slot(Stmt **slot, void *ud) {
    ReadsBuf *r = ud;
    if (r->found) return;
    ir_stmt_exprs(*slot, reads_expr_slot, ud);
    ir_stmt_children(*slot, reads_stmt_slot, ud);
}

bool ir_stmt_reads(Stmt *s, const Buffer *b) {
    ReadsBuf r = {b, false};
    if (s) reads_stmt_slot(&s, &r);
    return r.found;
}

bool ir_extern_points_to(const Stmt *s, const Buffer *b, int rw) {
    for (int i = 0; s->kind == STMT_EXTERN && i < s->u.extern_.nargs; i++) {
        const ExternArg *a = &s->u.extern_.args[i];
        if (!a->value && (a->rw & rw) && ir_buffer_root(a->buf) == ir_buffer_root(b)) return true;
    }
    return false;
}

static void group_syncs_of(Stmt **slot, void *ud) { *(unsigned *)ud |= ir_group_syncs(*slot); }

unsigned ir_group_syncs(Stmt *s) {
    unsigned ops = 0;
    if (!s) return 0;
    if (s->kind == STMT_GROUP_SYNC) return 1u << s->u.gsync.op;
    ir_stmt_children(s, group_syncs_of, &ops);
    return ops;
}

bool ir_expr_loads(const Expr *e) {
    switch (e->kind) {
    case EXPR_LOAD: return true;
    case EXPR_BIN: return ir_expr_loads(e->u.bin.a) || ir_expr_loads(e->u.bin.b);
    case EXPR_UN: return ir_expr_loads(e->u.un.a);
    case EXPR_CAST: return ir_expr_loads(e->u.cast.value);
    case EXPR_CALL:
        for (int i = 0; i < 3 && e->u.call.args[i]; i++)
            if (ir_expr_loads(e->u.call.args[i])) return true;
        return false;
    case EXPR_SELECT:
        return ir_expr_loads(e->u.select.cond) || ir_expr_loads(e->u.select.then) ||
               ir_expr_loads(e->u.select.orelse);
    default: return false;
    }
}

bool ir_expr_equal(const Expr *a, const Expr *b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind || a->dtype != b->dtype) return false;
    switch (a->kind) {
    case EXPR_INT: return a->u.i == b->u.i;
    case EXPR_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof(double)) == 0;
    case EXPR_VAR: return a->u.var == b->u.var;
    case EXPR_BIN:
        return a->u.bin.op == b->u.bin.op && ir_expr_equal(a->u.bin.a, b->u.bin.a) &&
               ir_expr_equal(a->u.bin.b, b->u.bin.b);
    case EXPR_UN: return a->u.un.op == b->u.un.op && ir_expr_equal(a->u.un.a, b->u.un.a);
    case EXPR_CALL:
        return a->u.call.fn == b->u.call.fn && a->u.call.round == b->u.call.round &&
               ir_expr_equal(a->u.call.args[0], b->u.call.args[0]) &&
               ir_expr_equal(a->u.call.args[1], b->u.call.args[1]) &&
               ir_expr_equal(a->u.call.args[2], b->u.call.args[2]);
    case EXPR_CAST: return ir_expr_equal(a->u.cast.value, b->u.cast.value);
    case EXPR_LOAD:
        if (a->u.load.buf != b->u.load.buf || a->u.load.mode != b->u.load.mode ||
            a->u.load.order != b->u.load.order)
            return false;
        for (int d = 0; d < a->u.load.buf->ndim; d++)
            if (!ir_expr_equal(a->u.load.idx[d], b->u.load.idx[d])) return false;
        return true;
    case EXPR_SELECT:
        return ir_expr_equal(a->u.select.cond, b->u.select.cond) &&
               ir_expr_equal(a->u.select.then, b->u.select.then) &&
               ir_expr_equal(a->u.select.orelse, b->u.select.orelse);
    default: return false;
    }
}

typedef struct SubstCtx {
    Ctx *ctx;
    const Var *from;
    Expr *to;
} SubstCtx;

static void subst_expr_slot(Expr **slot, void *ud) {
    SubstCtx *sc = ud;
    *slot = ir_subst(sc->ctx, *slot, sc->from, sc->to);
}

static void subst_stmt_slot(Stmt **slot, void *ud) {
    SubstCtx *sc = ud;
    ir_stmt_subst(sc->ctx, *slot, sc->from, sc->to);
}

void ir_stmt_subst(Ctx *ctx, Stmt *s, const Var *from, Expr *to) {
    SubstCtx sc = {ctx, from, to};
    ir_stmt_exprs(s, subst_expr_slot, &sc);
    ir_stmt_children(s, subst_stmt_slot, &sc);
}

/* Fresh start and extent arrays for a cloned region. */
static void own_region(Region *r, void *ud) {
    Ctx *ctx = ud;
    Expr **start = NEW_ARRAY(&ctx->arena, Expr *, r->ndim + 1);
    Expr **ext = NEW_ARRAY(&ctx->arena, Expr *, r->ndim + 1);
    for (int d = 0; d < r->ndim; d++) {
        start[d] = r->start ? r->start[d] : NULL;
        ext[d] = r->extent ? r->extent[d] : NULL;
    }
    r->start = r->start ? start : NULL;
    r->extent = r->extent ? ext : NULL;
}

static void clone_stmt_slot(Stmt **slot, void *ud) {
    SubstCtx *sc = ud;
    *slot = ir_stmt_clone(sc->ctx, *slot, sc->from, sc->to);
}

Stmt *ir_stmt_clone(Ctx *ctx, const Stmt *s, const Var *from, Expr *to) {
    Stmt *c = NEW(&ctx->arena, Stmt);
    *c = *s;
    if (c->kind == STMT_SEQ) {
        Stmt **items = NEW_ARRAY(&ctx->arena, Stmt *, s->u.seq.len + 1);
        for (int i = 0; i < s->u.seq.len; i++) items[i] = s->u.seq.data[i];
        c->u.seq.data = items, c->u.seq.cap = s->u.seq.len;
    } else if (c->kind == STMT_STORE) {
        Expr **idx = NEW_ARRAY(&ctx->arena, Expr *, s->u.store.buf->ndim + 1);
        for (int d = 0; d < s->u.store.buf->ndim; d++) idx[d] = s->u.store.idx[d];
        c->u.store.idx = idx;
    } else if (c->kind == STMT_EXTERN) {
        int n = s->u.extern_.nargs;
        c->u.extern_.args = NEW_ARRAY(&ctx->arena, ExternArg, n + 1);
        for (int i = 0; i < n; i++) {
            ExternArg *a = &c->u.extern_.args[i];
            *a = s->u.extern_.args[i];
            if (a->value) continue;
            a->idx = NEW_ARRAY(&ctx->arena, Expr *, a->buf->ndim + 1);
            for (int d = 0; d < a->buf->ndim; d++) a->idx[d] = s->u.extern_.args[i].idx[d];
        }
    }
    ir_stmt_regions(c, own_region, ctx);
    SubstCtx sc = {ctx, from, to};
    if (c->kind != STMT_ALLOC) ir_stmt_exprs(c, subst_expr_slot, &sc); /* the buffer's own */
    ir_stmt_children(c, clone_stmt_slot, &sc);
    return c;
}

int ir_region_squeeze(const Region *r, int *dims) {
    int n = 0;
    for (int d = 0; d < r->ndim; d++) {
        int64_t e;
        if (ir_is_const_int(r->extent[d], &e) && e == 1) continue;
        dims[n++] = d;
    }
    return n;
}

bool ir_region_whole(const Region *r) {
    if (r->ndim != r->buf->ndim) return false;
    for (int d = 0; d < r->ndim; d++) {
        int64_t s, e, n;
        if (!ir_is_const_int(r->start[d], &s) || s || !ir_is_const_int(r->extent[d], &e) ||
            !ir_is_const_int(r->buf->shape[d], &n) || e != n)
            return false;
    }
    return true;
}

bool ir_region_tile(const Region *r) {
    const Buffer *b = r->buf;
    if (b->ndim == 2) return ir_region_whole(r);
    if (b->ndim != 3 || r->ndim != 3) return false;
    int64_t one;
    if (!ir_is_const_int(r->extent[0], &one) || one != 1) return false;
    for (int d = 1; d < 3; d++) {
        int64_t s, e, n;
        if (!ir_is_const_int(r->start[d], &s) || s || !ir_is_const_int(r->extent[d], &e) ||
            !ir_is_const_int(b->shape[d], &n) || e != n)
            return false;
    }
    return true;
}

bool ir_region_col_slice(const Region *r, int64_t unit) {
    const Buffer *b = r->buf;
    int last = b->ndim - 1;
    int64_t s, e, n;
    if (b->ndim < 2 || b->ndim > 3 || r->ndim != b->ndim || unit <= 0) return false;
    if (b->ndim == 3 && (!ir_is_const_int(r->extent[0], &e) || e != 1)) return false;
    if (!ir_is_const_int(r->start[last - 1], &s) || s ||
        !ir_is_const_int(r->extent[last - 1], &e) || !ir_is_const_int(b->shape[last - 1], &n) ||
        e != n)
        return false;
    if (!ir_is_const_int(r->extent[last], &e) || !ir_is_const_int(b->shape[last], &n) || e <= 0 ||
        e > n || e % unit || n % unit || !ir_multiple_of(r->start[last], unit))
        return false;
    return !ir_is_const_int(r->start[last], &s) || (s >= 0 && s + e <= n);
}

Stmt *ir_only_stmt(Stmt *s) {
    while (s && s->kind == STMT_SEQ && s->u.seq.len == 1) s = s->u.seq.data[0];
    return s;
}

/* ---- variables in expressions ----------------------------------------------------------- */
typedef struct VarsUse {
    const Var *const *vars;
    int n;
    bool found;
} VarsUse;

static void vars_use_slot(Expr **slot, void *ud) {
    VarsUse *u = ud;
    if ((*slot)->kind == EXPR_VAR)
        for (int i = 0; i < u->n; i++) u->found |= (*slot)->u.var == u->vars[i];
    if (!u->found) ir_expr_children(*slot, vars_use_slot, ud);
}

bool ir_expr_uses_any(const Expr *e, const Var *const *vars, int n) {
    VarsUse u = {vars, n, false};
    Expr *root = (Expr *)e;
    vars_use_slot(&root, &u);
    return u.found;
}

enum { MAX_FUSED = 4 };

/* The terms var * coef of sum e into v/c (at most MAX_FUSED); false for anything else. */
static bool fused_terms(const Expr *e, Var *const *vars, int n, int *v, int64_t *c, int *m) {
    if (e->kind == EXPR_BIN && e->u.bin.op == OP_ADD)
        return fused_terms(e->u.bin.a, vars, n, v, c, m) &&
               fused_terms(e->u.bin.b, vars, n, v, c, m);
    int64_t coef = 1;
    if (e->kind == EXPR_BIN && e->u.bin.op == OP_MUL) {
        const Expr *a = e->u.bin.a, *b = e->u.bin.b;
        if (ir_is_const_int(a, &coef)) e = b;
        else if (ir_is_const_int(b, &coef)) e = a;
        else return false;
    }
    if (e->kind != EXPR_VAR || *m == MAX_FUSED) return false;
    for (int i = 0; i < n; i++)
        if (vars[i] == e->u.var) {
            for (int k = 0; k < *m; k++)
                if (v[k] == i) return false;
            v[*m] = i, c[*m] = coef, (*m)++;
            return true;
        }
    return false;
}

int ir_fused_vars(const Expr *e, Var *const *vars, int n, const int64_t *ext, int64_t extent,
                  int *pos) {
    int v[MAX_FUSED], m = 0;
    int64_t c[MAX_FUSED];
    if (!fused_terms(e, vars, n, v, c, &m) || m < 2) return 0;
    int64_t inner = 1; /* the terms from the innermost (coefficient 1) out */
    for (int t = m - 1; t >= 0; t--) {
        int k = 0;
        while (k < m && c[k] != inner) k++;
        if (k == m || ext[v[k]] <= 0) return 0;
        pos[t] = v[k];
        c[k] = -1; /* used */
        inner *= ext[v[k]];
    }
    return inner == extent ? m : 0;
}

int ir_var_plus_offset(const Expr *e, Var *const *vars, int n, const Expr **off) {
    *off = NULL;
    for (int i = 0; i < n; i++)
        if (e->kind == EXPR_VAR && e->u.var == vars[i]) return i;
    if (e->kind != EXPR_BIN || e->u.bin.op != OP_ADD) return -1;
    for (int side = 0; side < 2; side++) {
        const Expr *v = side ? e->u.bin.b : e->u.bin.a, *o = side ? e->u.bin.a : e->u.bin.b;
        for (int i = 0; i < n && v->kind == EXPR_VAR; i++)
            if (v->u.var == vars[i] && !ir_expr_uses_any(o, (const Var *const *)vars, n)) {
                *off = o;
                return i;
            }
    }
    return -1;
}

/* [*lo, *hi) narrowed by the comparison `v op c` (swapped: `c op v`). */
static bool narrow_cmp(BinOp op, bool swapped, int64_t c, int64_t *lo, int64_t *hi) {
    if (swapped) /* c < v is v > c */
        op = op == OP_LT   ? OP_GT
             : op == OP_LE ? OP_GE
             : op == OP_GT ? OP_LT
             : op == OP_GE ? OP_LE
                           : op;
    switch (op) {
    case OP_LT: *hi = c < *hi ? c : *hi; return true;
    case OP_LE: *hi = c + 1 < *hi ? c + 1 : *hi; return true;
    case OP_GT: *lo = c + 1 > *lo ? c + 1 : *lo; return true;
    case OP_GE: *lo = c > *lo ? c : *lo; return true;
    default: return false;
    }
}

bool ir_var_range(const Expr *cond, const Var *v, int64_t *lo, int64_t *hi) {
    if (cond->kind != EXPR_BIN) return false;
    const Expr *a = cond->u.bin.a, *b = cond->u.bin.b;
    if (cond->u.bin.op == OP_AND) return ir_var_range(a, v, lo, hi) && ir_var_range(b, v, lo, hi);
    int64_t c;
    if (a->kind == EXPR_VAR && a->u.var == v && ir_is_const_int(b, &c))
        return narrow_cmp(cond->u.bin.op, false, c, lo, hi);
    if (b->kind == EXPR_VAR && b->u.var == v && ir_is_const_int(a, &c))
        return narrow_cmp(cond->u.bin.op, true, c, lo, hi);
    return false;
}
