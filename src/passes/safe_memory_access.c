/* safe_memory_access.c - makes accesses to global tensors safe when a tile does not
 * divide the problem: a load outside the tensor reads 0 (or the buffer's safe_value)
 * and a store or scalar atomic outside it is dropped (LANGUAGE.md section 5).
 *
 * Requires: pass_lower_tile_ops has run (accesses are scalar loads, stores, atomics).
 * Provides: every EXPR_LOAD of a SCOPE_GLOBAL buffer whose indices are not provably in
 * bounds is wrapped as SELECT(in_bounds, load, cast(safe_value or 0)); the emitter prints
 * SELECT as C's lazy `?:`, so the load is never evaluated out of bounds. Every STMT_STORE
 * and scalar STMT_ATOMIC to a global buffer that is not provably in bounds sits in an
 * IF(in_bounds). The bounds are the logical shape (0 <= idx[d] < shape[d]).
 * A dim is provably in bounds by interval arithmetic: constants, loop vars (range from
 * their min and extent), kernel block vars (>= 0, and < grid when constant), let-bound
 * vars, +, -, *, //, %, min, max, & and >> over those; only the half of the check that is
 * not proved is emitted (e.g. `by * 64 + i >= 0` is proved, `< M` is kept). */
#include "compiler.h"
#include "ir_walk.h"

#include <stdlib.h>

typedef struct Interval {
    bool has_lo, has_hi;
    int64_t lo, hi;
} Interval;

typedef struct Binding {
    const Var *var;
    Interval iv;
} Binding;

typedef struct Safe {
    Ctx *ctx;
    Binding *env;
    int len, cap;
} Safe;

static const Interval unknown = {false, false, 0, 0};

static void env_push(Safe *S, const Var *v, Interval iv) {
    if (S->len == S->cap) {
        S->cap = S->cap ? 2 * S->cap : 32;
        S->env = realloc(S->env, sizeof(Binding) * (size_t)S->cap);
        TL_ASSERT(S->env);
    }
    S->env[S->len++] = (Binding){v, iv};
}

static Interval env_get(const Safe *S, const Var *v) {
    for (int i = S->len - 1; i >= 0; i--)
        if (S->env[i].var == v) return S->env[i].iv;
    return unknown;
}

/* ---- interval arithmetic (overflow makes a bound unknown) ----------------------------- */
static Interval iv_point(int64_t v) { return (Interval){true, true, v, v}; }

static Interval iv_add(Interval a, Interval b, bool negate_b) {
    Interval r = unknown;
    int64_t blo = b.lo, bhi = b.hi;
    bool has_blo = b.has_lo, has_bhi = b.has_hi;
    if (negate_b) {
        if ((has_blo && blo == INT64_MIN) || (has_bhi && bhi == INT64_MIN)) return unknown;
        blo = -b.hi, bhi = -b.lo, has_blo = b.has_hi, has_bhi = b.has_lo;
    }
    r.has_lo = a.has_lo && has_blo && !__builtin_add_overflow(a.lo, blo, &r.lo);
    r.has_hi = a.has_hi && has_bhi && !__builtin_add_overflow(a.hi, bhi, &r.hi);
    return r;
}

static Interval iv_mul_const(Interval a, int64_t c) {
    Interval r = unknown;
    if (c >= 0) {
        r.has_lo = a.has_lo && !__builtin_mul_overflow(a.lo, c, &r.lo);
        r.has_hi = a.has_hi && !__builtin_mul_overflow(a.hi, c, &r.hi);
    } else {
        r.has_lo = a.has_hi && !__builtin_mul_overflow(a.hi, c, &r.lo);
        r.has_hi = a.has_lo && !__builtin_mul_overflow(a.lo, c, &r.hi);
    }
    return r;
}

static Interval iv_mul(Interval a, Interval b) {
    if (b.has_lo && b.has_hi && b.lo == b.hi) return iv_mul_const(a, b.lo);
    if (a.has_lo && a.has_hi && a.lo == a.hi) return iv_mul_const(b, a.lo);
    Interval r = unknown;
    if (a.has_lo && b.has_lo && a.lo >= 0 && b.lo >= 0) {
        r.has_lo = !__builtin_mul_overflow(a.lo, b.lo, &r.lo);
        r.has_hi = a.has_hi && b.has_hi && !__builtin_mul_overflow(a.hi, b.hi, &r.hi);
    }
    return r;
}

static int64_t floordiv64(int64_t a, int64_t c) { /* c > 0 */
    return a / c - ((a % c != 0) && (a < 0));
}

static Interval iv_div_const(Interval a, int64_t c, bool floor_div) {
    if (c <= 0 || (!floor_div && !(a.has_lo && a.lo >= 0))) return unknown;
    Interval r = a;
    if (r.has_lo) r.lo = floordiv64(a.lo, c);
    if (r.has_hi) r.hi = floordiv64(a.hi, c);
    return r;
}

static Interval iv_minmax(Interval a, Interval b, bool is_min) {
    Interval r = unknown;
    if (is_min) {
        r.has_lo = a.has_lo && b.has_lo;
        r.lo = a.lo < b.lo ? a.lo : b.lo;
        r.has_hi = a.has_hi || b.has_hi;
        r.hi = !a.has_hi ? b.hi : !b.has_hi ? a.hi : a.hi < b.hi ? a.hi : b.hi;
    } else {
        r.has_hi = a.has_hi && b.has_hi;
        r.hi = a.hi > b.hi ? a.hi : b.hi;
        r.has_lo = a.has_lo || b.has_lo;
        r.lo = !a.has_lo ? b.lo : !b.has_lo ? a.lo : a.lo > b.lo ? a.lo : b.lo;
    }
    return r;
}

static Interval iv_union(Interval a, Interval b) {
    Interval r = unknown;
    r.has_lo = a.has_lo && b.has_lo;
    r.lo = a.lo < b.lo ? a.lo : b.lo;
    r.has_hi = a.has_hi && b.has_hi;
    r.hi = a.hi > b.hi ? a.hi : b.hi;
    return r;
}

static bool iv_const(Interval a, int64_t *c) {
    if (!(a.has_lo && a.has_hi && a.lo == a.hi)) return false;
    *c = a.lo;
    return true;
}

static Interval interval(const Safe *S, const Expr *e);

static Interval interval_bin(const Safe *S, const Expr *e) {
    Interval a = interval(S, e->u.bin.a), b = interval(S, e->u.bin.b);
    int64_t c = 0;
    bool bc = iv_const(b, &c);
    switch (e->u.bin.op) {
    case OP_ADD: return iv_add(a, b, false);
    case OP_SUB: return iv_add(a, b, true);
    case OP_MUL: return iv_mul(a, b);
    case OP_FLOORDIV: return bc ? iv_div_const(a, c, true) : unknown;
    case OP_DIV: return bc ? iv_div_const(a, c, false) : unknown;
    case OP_FLOORMOD:
        if (!bc || c <= 0) return unknown;
        if (a.has_lo && a.has_hi && a.lo >= 0 && a.hi < c) return a;
        return (Interval){true, true, 0, c - 1};
    case OP_MIN: return iv_minmax(a, b, true);
    case OP_MAX: return iv_minmax(a, b, false);
    case OP_BITAND: return bc && c >= 0 ? (Interval){true, true, 0, c} : unknown;
    case OP_SHR:
        if (!bc || c < 0 || c > 62 || !(a.has_lo && a.lo >= 0)) return unknown;
        return (Interval){true, a.has_hi, a.lo >> c, a.hi >> c};
    default: return unknown;
    }
}

static Interval interval(const Safe *S, const Expr *e) {
    if (!dtype_is_int(e->dtype)) return unknown;
    switch (e->kind) {
    case EXPR_INT: return iv_point(e->u.i);
    case EXPR_VAR: return env_get(S, e->u.var);
    case EXPR_BIN: return interval_bin(S, e);
    case EXPR_CAST:
        if (!dtype_is_int(e->u.cast.value->dtype) || dtype_bits(e->dtype) < 32) return unknown;
        return interval(S, e->u.cast.value);
    case EXPR_SELECT:
        return iv_union(interval(S, e->u.select.then), interval(S, e->u.select.orelse));
    default: return unknown;
    }
}

/* ---- guards ------------------------------------------------------------------------- */
static Expr *cp(Safe *S, const Expr *e) { return ir_subst(S->ctx, e, NULL, NULL); }

/* The conjunction of the bounds checks of idx that are not provably true; NULL if none. */
static Expr *in_bounds(Safe *S, const Buffer *b, Expr *const *idx, Loc loc) {
    Expr *cond = NULL;
    for (int d = 0; d < b->ndim; d++) {
        Interval iv = interval(S, idx[d]);
        int64_t n;
        bool n_const = ir_is_const_int(b->shape[d], &n);
        Expr *parts[2] = {NULL, NULL};
        if (!(iv.has_lo && iv.lo >= 0))
            parts[0] = ir_bin(S->ctx, OP_GE, cp(S, idx[d]), ir_int(S->ctx, 0, DT_INT32, loc),
                              loc);
        if (!(n_const && iv.has_hi && iv.hi < n))
            parts[1] = ir_bin(S->ctx, OP_LT, cp(S, idx[d]), cp(S, b->shape[d]), loc);
        for (int i = 0; i < 2; i++)
            if (parts[i]) cond = cond ? ir_bin(S->ctx, OP_AND, cond, parts[i], loc) : parts[i];
    }
    return cond;
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
    Expr *cond = in_bounds(S, b, c->u.load.idx, e->loc);
    if (!cond) return c;
    Expr *safe = b->safe_value ? cp(S, b->safe_value) : ir_int(S->ctx, 0, DT_INT32, e->loc);
    return ir_select(S->ctx, cond, c, ir_cast(S->ctx, b->dtype, safe, e->loc), e->loc);
}

static Stmt *wrap_if(Safe *S, Expr *cond, Stmt *s) {
    if (!cond) return s;
    Stmt *w = ir_stmt(S->ctx, STMT_IF, s->loc);
    w->u.if_.cond = cond;
    w->u.if_.then = s;
    return w;
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

static Interval loop_interval(const Safe *S, const Stmt *s) {
    Interval lo = interval(S, s->u.for_.min), ext = interval(S, s->u.for_.extent);
    Interval r = {lo.has_lo, false, lo.lo, 0};
    int64_t last;
    r.has_hi = lo.has_hi && ext.has_hi && !__builtin_sub_overflow(ext.hi, 1, &last) &&
               !__builtin_add_overflow(lo.hi, last, &r.hi);
    return r;
}

static void push_kernel_vars(Safe *S, const Stmt *s) {
    for (int d = 0; d < s->u.kernel.ngrid; d++) {
        if (!s->u.kernel.block[d]) continue;
        Interval g = interval(S, s->u.kernel.grid[d]);
        Interval iv = {true, false, 0, 0};
        iv.has_hi = g.has_hi && !__builtin_sub_overflow(g.hi, 1, &iv.hi);
        env_push(S, s->u.kernel.block[d], iv);
    }
}

static void safe_stmt(Safe *S, Stmt **slot) {
    Stmt *s = *slot;
    int mark = S->len;
    if (s->kind != STMT_ALLOC) ir_stmt_exprs(s, guard_slot, S);
    switch (s->kind) {
    case STMT_FOR: env_push(S, s->u.for_.var, loop_interval(S, s)); break;
    case STMT_KERNEL: push_kernel_vars(S, s); break;
    case STMT_LET:
        env_push(S, s->u.let.var, interval(S, s->u.let.value));
        return; /* visible until the end of the enclosing SEQ */
    case STMT_STORE:
        if (s->u.store.buf->scope == SCOPE_GLOBAL)
            *slot = wrap_if(S, in_bounds(S, s->u.store.buf, s->u.store.idx, s->loc), s);
        return;
    case STMT_ATOMIC:
        if (s->u.atomic.dst.buf->scope == SCOPE_GLOBAL && is_scalar_atomic(s))
            *slot = wrap_if(
                S, in_bounds(S, s->u.atomic.dst.buf, s->u.atomic.dst.start, s->loc), s);
        return;
    default: break;
    }
    ir_stmt_children(s, safe_child, S);
    S->len = mark;
}

void pass_safe_memory_access(Ctx *ctx, Func *f) {
    Safe S = {.ctx = ctx};
    if (f->body) safe_stmt(&S, &f->body);
    free(S.env);
}
