/* safe_memory_access.c - makes accesses to global tensors safe when a tile does not
 * divide the problem: a load outside the tensor reads 0 (or the buffer's safe_value)
 * and a store or scalar atomic outside it is dropped (LANGUAGE.md section 5).
 *
 * Requires: pass_lower_tile_ops has run (accesses are scalar loads, stores, atomics).
 * Provides: every EXPR_LOAD of a SCOPE_GLOBAL buffer whose indices are not provably in
 * bounds is wrapped as SELECT(in_bounds, load, cast(safe_value or 0)); the emitter prints
 * SELECT as C's lazy `?:`, so the load is never evaluated out of bounds. Every STMT_STORE
 * and scalar STMT_ATOMIC to a global buffer that is not provably in bounds sits in an
 * IF(in_bounds). The bounds are the logical shape (0 <= idx[d] < shape[d]); a raw 32-bit
 * access of 8- or 16-bit elements (T.ldg32 ..) is in bounds when its first and last
 * elements are.
 * A dim is provably in bounds by interval arithmetic (interval.h); only the half of the
 * check that is not proved is emitted (`by * 64 + i >= 0` is proved, `< M` is kept).
 * Tile copies kept for the target get the dims of their global region that are proved
 * (Stmt.copy.proven): the target checks only the others. */
#include "passes/passes.h"
#include "interval.h"
#include "ir/ir_walk.h"

#include <stdlib.h>

typedef struct Safe {
    Ctx *ctx;
    IvEnv env;
} Safe;

/* ---- guards ------------------------------------------------------------------------- */
static Expr *cp(Safe *S, const Expr *e) { return ir_subst(S->ctx, e, NULL, NULL); }

/* The conjunction of the bounds checks of idx that are not provably true; NULL if none. */
static Expr *in_bounds(Safe *S, const Buffer *b, Expr *const *idx, Loc loc) {
    Expr *cond = NULL;
    for (int d = 0; d < b->ndim; d++) {
        Interval iv = iv_of(&S->env, idx[d]);
        int64_t n;
        bool n_const = ir_is_const_int(b->shape[d], &n);
        Expr *parts[2] = {NULL, NULL};
        if (!(iv.has_lo && iv.lo >= 0))
            parts[0] = ir_bin(S->ctx, OP_GE, cp(S, idx[d]), ir_int(S->ctx, 0, DT_INT32, loc), loc);
        if (!(n_const && iv.has_hi && iv.hi < n))
            parts[1] = ir_bin(S->ctx, OP_LT, cp(S, idx[d]), cp(S, b->shape[d]), loc);
        for (int i = 0; i < 2; i++)
            if (parts[i]) cond = cond ? ir_bin(S->ctx, OP_AND, cond, parts[i], loc) : parts[i];
    }
    return cond;
}

/* The dims of the global region of kept copy s that lie inside the tensor (Stmt.copy.proven). */
static unsigned proven_dims(Safe *S, const Stmt *s) {
    const Region *r = s->u.copy.src.buf->scope == SCOPE_GLOBAL ? &s->u.copy.src : &s->u.copy.dst;
    if (r->buf->scope != SCOPE_GLOBAL || r->ndim != r->buf->ndim) return 0;
    unsigned proven = 0;
    for (int d = 0; d < r->ndim && d < 32; d++) {
        Interval iv = iv_of(&S->env, r->start[d]);
        int64_t e, n;
        if (iv.has_lo && iv.lo >= 0 && iv.has_hi && ir_is_const_int(r->extent[d], &e) &&
            ir_is_const_int(r->buf->shape[d], &n) && iv.hi <= n - e)
            proven |= 1u << d;
    }
    return proven;
}

/* in_bounds of a raw 32-bit access at idx (LOAD_BITS, Stmt.store.bits): its last element
 * too, 4 bytes on along the last dimension. */
static Expr *bits_in_bounds(Safe *S, const Buffer *b, Expr *const *idx, Loc loc) {
    Expr *first = in_bounds(S, b, idx, loc);
    int n = b->ndim, k = 4 / dtype_bytes(b->dtype) - 1;
    if (!n || k < 1) return first;
    Expr **last = NEW_ARRAY(&S->ctx->arena, Expr *, n);
    for (int d = 0; d < n; d++) last[d] = idx[d];
    last[n - 1] = ir_bin(S->ctx, OP_ADD, cp(S, idx[n - 1]), ir_int(S->ctx, k, DT_INT32, loc), loc);
    Expr *more = in_bounds(S, b, last, loc);
    return !first ? more : !more ? first : ir_bin(S->ctx, OP_AND, first, more, loc);
}

static Expr *guard_expr(Safe *S, const Expr *e);

static void guard_slot(Expr **slot, void *ud) { *slot = guard_expr(ud, *slot); }

/* A new tree where every unsafe global load is wrapped in a SELECT. */
static Expr *guard_expr(Safe *S, const Expr *e) {
    if (e->kind == EXPR_INT || e->kind == EXPR_FLOAT || e->kind == EXPR_VAR) return (Expr *)e;
    Expr *c = NEW(&S->ctx->arena, Expr);
    *c = *e;
    if (e->kind != EXPR_LOAD) {
        ir_expr_children(c, guard_slot, S);
        return c;
    }
    const Buffer *b = e->u.load.buf;
    c->u.load.idx = NEW_ARRAY(&S->ctx->arena, Expr *, b->ndim > 0 ? b->ndim : 1);
    for (int d = 0; d < b->ndim; d++) c->u.load.idx[d] = guard_expr(S, e->u.load.idx[d]);
    if (b->scope != SCOPE_GLOBAL) return c;
    Expr *cond = e->u.load.mode == LOAD_BITS ? bits_in_bounds(S, b, c->u.load.idx, e->loc)
                                             : in_bounds(S, b, c->u.load.idx, e->loc);
    if (!cond) return c;
    Expr *safe = b->safe_value && e->u.load.mode != LOAD_BITS /* (raw words read 0) */
                     ? cp(S, b->safe_value)
                     : ir_int(S->ctx, 0, DT_INT32, e->loc);
    return ir_select(S->ctx, cond, c, ir_cast(S->ctx, e->dtype, safe, e->loc), e->loc);
}

static Stmt *wrap_if(Safe *S, Expr *cond, Stmt *s) {
    if (!cond) return s;
    Stmt *w = ir_stmt(S->ctx, STMT_IF, s->loc);
    w->u.if_.cond = cond;
    w->u.if_.then = s;
    return w;
}

/* A store or atomic of *value guarded by cond; the value first, unguarded, when it reads
 * other threads (every lane must reach a shuffle or vote). */
static Stmt *wrap_value_if(Safe *S, Expr *cond, Stmt *s, Expr **value) {
    if (!cond || !ir_expr_reads_threads(*value)) return wrap_if(S, cond, s);
    Var *v = ir_var(S->ctx, "tl_value", (*value)->dtype);
    v->varying = true;
    Stmt *let = ir_stmt(S->ctx, STMT_LET, s->loc);
    let->u.let.var = v, let->u.let.value = *value;
    *value = ir_varref(S->ctx, v, s->loc);
    Stmt *seq = ir_stmt(S->ctx, STMT_SEQ, s->loc);
    VEC_PUSH(&S->ctx->arena, seq->u.seq, let);
    VEC_PUSH(&S->ctx->arena, seq->u.seq, wrap_if(S, cond, s));
    return seq;
}

static bool is_scalar_atomic(const Stmt *s) {
    if (s->u.atomic.src.buf) return false;
    for (int d = 0; d < s->u.atomic.dst.ndim; d++) {
        int64_t e;
        if (!ir_is_const_int(s->u.atomic.dst.extent[d], &e) || e != 1) return false;
    }
    return true;
}

/* ---- statements --------------------------------------------------------------------- */
static void safe_stmt(Safe *S, Stmt **slot);
static void safe_child(Stmt **slot, void *ud) { safe_stmt(ud, slot); }

static void safe_stmt(Safe *S, Stmt **slot) {
    Stmt *s = *slot;
    int mark = S->env.len;
    if (s->kind != STMT_ALLOC) ir_stmt_exprs(s, guard_slot, S);
    switch (s->kind) {
    case STMT_FOR:
    case STMT_KERNEL: iv_env_enter(&S->env, s); break;
    case STMT_LET: iv_env_enter(&S->env, s); return; /* visible to the end of its SEQ */
    case STMT_STORE:
        if (s->u.store.buf->scope == SCOPE_GLOBAL)
            *slot = wrap_value_if(S,
                                  s->u.store.bits
                                      ? bits_in_bounds(S, s->u.store.buf, s->u.store.idx, s->loc)
                                      : in_bounds(S, s->u.store.buf, s->u.store.idx, s->loc),
                                  s, &s->u.store.value);
        return;
    case STMT_COPY: /* kept for the target (vector copies): checked by the emitter */
        s->u.copy.proven = proven_dims(S, s);
        return;
    case STMT_ATOMIC:
        if (s->u.atomic.dst.buf->scope == SCOPE_GLOBAL && is_scalar_atomic(s))
            *slot = wrap_value_if(S,
                                  in_bounds(S, s->u.atomic.dst.buf, s->u.atomic.dst.start, s->loc),
                                  s, &s->u.atomic.value);
        return;
    default: break;
    }
    ir_stmt_children(s, safe_child, S);
    S->env.len = mark;
}

void pass_safe_memory_access(Ctx *ctx, Func *f) {
    Safe S = {.ctx = ctx};
    if (f->body) safe_stmt(&S, &f->body);
    iv_env_free(&S.env);
}
