/* arith.c - linear simplification of integer index expressions.
 * An expression is flattened into  c0 + sum(ci * atom_i)  where atoms are variables or
 * any non-linear subexpression (compared structurally), then rebuilt. This cancels the
 * `(bx + 1) * 64 - bx * 64` that slices produce, so region extents become constants. */
#include "frontend/eval.h"

#include <string.h>

typedef struct Term {
    const Expr *atom;
    int64_t coef;
} Term;

typedef struct Linear {
    int64_t c;
    Term t[16];
    int n;
    bool overflow; /* too many atoms: give up */
} Linear;

static bool expr_equal(const Expr *a, const Expr *b) {
    if (a == b) return true;
    if (a->kind != b->kind || a->dtype != b->dtype) return false;
    switch (a->kind) {
    case EXPR_INT: return a->u.i == b->u.i;
    case EXPR_FLOAT: return a->u.f == b->u.f;
    case EXPR_VAR: return a->u.var == b->u.var;
    case EXPR_BIN:
        return a->u.bin.op == b->u.bin.op && expr_equal(a->u.bin.a, b->u.bin.a) &&
               expr_equal(a->u.bin.b, b->u.bin.b);
    case EXPR_UN: return a->u.un.op == b->u.un.op && expr_equal(a->u.un.a, b->u.un.a);
    case EXPR_CAST: return expr_equal(a->u.cast.value, b->u.cast.value);
    default: return false; /* loads, calls: never merged (they may differ at run time) */
    }
}

static void add_term(Linear *L, const Expr *atom, int64_t coef) {
    for (int i = 0; i < L->n; i++)
        if (expr_equal(L->t[i].atom, atom)) {
            L->t[i].coef += coef;
            return;
        }
    if (L->n == 16) {
        L->overflow = true;
        return;
    }
    L->t[L->n].atom = atom;
    L->t[L->n++].coef = coef;
}

static void flatten(const Expr *e, int64_t scale, Linear *L) {
    if (e->kind == EXPR_INT) {
        L->c += scale * e->u.i;
        return;
    }
    if (e->kind == EXPR_BIN && dtype_is_int(e->dtype)) {
        const Expr *a = e->u.bin.a, *b = e->u.bin.b;
        int64_t k;
        switch (e->u.bin.op) {
        case OP_ADD:
            flatten(a, scale, L);
            flatten(b, scale, L);
            return;
        case OP_SUB:
            flatten(a, scale, L);
            flatten(b, -scale, L);
            return;
        case OP_MUL:
            if (ir_is_const_int(b, &k)) {
                flatten(a, scale * k, L);
                return;
            }
            if (ir_is_const_int(a, &k)) {
                flatten(b, scale * k, L);
                return;
            }
            break;
        default: break;
        }
    }
    if (e->kind == EXPR_UN && e->u.un.op == OP_NEG && dtype_is_int(e->dtype)) {
        flatten(e->u.un.a, -scale, L);
        return;
    }
    add_term(L, e, scale);
}

Expr *arith_simplify(Ctx *ctx, Expr *e) {
    if (!dtype_is_int(e->dtype) || e->dtype == DT_BOOL) return e;
    Linear L = {0};
    flatten(e, 1, &L);
    if (L.overflow) return e;
    Expr *r = NULL;
    for (int i = 0; i < L.n; i++) {
        if (!L.t[i].coef) continue;
        Expr *atom = (Expr *)L.t[i].atom;
        Expr *term = L.t[i].coef == 1 ? atom
                                      : ir_bin(ctx, OP_MUL, atom,
                                               ir_int(ctx, L.t[i].coef, e->dtype, e->loc), e->loc);
        r = r ? ir_bin(ctx, OP_ADD, r, term, e->loc) : term;
    }
    Expr *c = ir_int(ctx, L.c, e->dtype, e->loc);
    if (!r) return c;
    return L.c ? ir_bin(ctx, OP_ADD, r, c, e->loc) : r;
}
