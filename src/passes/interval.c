/* interval.c - interval arithmetic over index expressions (interval.h). */
#include "interval.h"

#include <stdlib.h>

struct IvBinding {
    const Var *var;
    Interval iv;
};

static const Interval unknown = {false, false, 0, 0};

void iv_env_push(IvEnv *E, const Var *v, Interval iv) {
    if (E->len == E->cap) {
        E->cap = E->cap ? 2 * E->cap : 32;
        E->env = realloc(E->env, sizeof(IvBinding) * (size_t)E->cap);
        TL_ASSERT(E->env);
    }
    E->env[E->len++] = (IvBinding){v, iv};
}

void iv_env_free(IvEnv *E) {
    free(E->env);
    *E = (IvEnv){0};
}

static Interval env_get(const IvEnv *E, const Var *v) {
    for (int i = E->len - 1; i >= 0; i--)
        if (E->env[i].var == v) return E->env[i].iv;
    return unknown;
}

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

static Interval iv_bin(const IvEnv *E, const Expr *e) {
    Interval a = iv_of(E, e->u.bin.a), b = iv_of(E, e->u.bin.b);
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

Interval iv_of(const IvEnv *E, const Expr *e) {
    if (!dtype_is_int(e->dtype)) return unknown;
    switch (e->kind) {
    case EXPR_INT: return iv_point(e->u.i);
    case EXPR_VAR: return env_get(E, e->u.var);
    case EXPR_BIN: return iv_bin(E, e);
    case EXPR_CAST:
        if (!dtype_is_int(e->u.cast.value->dtype) || dtype_bits(e->dtype) < 32) return unknown;
        return iv_of(E, e->u.cast.value);
    case EXPR_SELECT: return iv_union(iv_of(E, e->u.select.then), iv_of(E, e->u.select.orelse));
    default: return unknown;
    }
}

static Interval loop_interval(const IvEnv *E, const Stmt *s) {
    Interval lo = iv_of(E, s->u.for_.min), ext = iv_of(E, s->u.for_.extent);
    Interval r = {lo.has_lo, false, lo.lo, 0};
    int64_t last;
    r.has_hi = lo.has_hi && ext.has_hi && !__builtin_sub_overflow(ext.hi, 1, &last) &&
               !__builtin_add_overflow(lo.hi, last, &r.hi);
    return r;
}

void iv_env_enter(IvEnv *E, const Stmt *s) {
    switch (s->kind) {
    case STMT_FOR: iv_env_push(E, s->u.for_.var, loop_interval(E, s)); break;
    case STMT_LET: iv_env_push(E, s->u.let.var, iv_of(E, s->u.let.value)); break;
    case STMT_KERNEL:
        for (int d = 0; d < s->u.kernel.ngrid; d++) {
            if (!s->u.kernel.block[d]) continue;
            Interval g = iv_of(E, s->u.kernel.grid[d]);
            Interval iv = {true, false, 0, 0};
            iv.has_hi = g.has_hi && !__builtin_sub_overflow(g.hi, 1, &iv.hi);
            iv_env_push(E, s->u.kernel.block[d], iv);
        }
        for (int d = 0; d < 3; d++) /* thread indices: [0, threads[d]) */
            if (s->u.kernel.thread[d])
                iv_env_push(E, s->u.kernel.thread[d],
                            (Interval){true, true, 0, (int64_t)s->u.kernel.threads[d] - 1});
        break;
    default: break;
    }
}
