/* vector_runs.c - how an integer expression changes over a run of V consecutive values
 * of a loop variable (cuda_run_step): the question behind vectorizing the accesses of a
 * T.Parallel nest whose threads each take V consecutive elements of its last dimension.
 *
 * A run is v = b, b + 1, ..., b + V - 1 with b a multiple of V. An expression is linear
 * over it, e(b + r) = e(b) + coef * r for 0 <= r < V, when it is built from v, values free
 * of v, + - and multiplication by constants, and floor division or modulo by a constant
 * multiple of V of an operand that steps by 1 from a multiple of V (the run then stays
 * inside one block of the divisor). A comparison a < b or a >= b whose difference steps
 * by 1 from a multiple of V has one value over the run; so does any expression whose
 * coefficient is 0. An access whose last index steps by 1 from a multiple of V and whose
 * other indices have coefficient 0 reads or writes one aligned vector per run. */
#include "cuda_passes.h"

static RunStep fail(void) { return (RunStep){.ok = false}; }

static RunStep uniform(const Expr *e, int64_t V) {
    return (RunStep){.ok = true, .coef = 0, .base_mult = ir_multiple_of(e, V)};
}

/* A comparison's value over the run: uniform when its difference d = a - b has
 * coefficient 0, or coefficient 1 from a multiple of V for < and >= (d + r < 0 iff
 * d < 0 then). */
static RunStep compare(const Expr *e, RunStep a, RunStep b) {
    if (!a.ok || !b.ok) return fail();
    int64_t c = a.coef - b.coef;
    BinOp op = e->u.bin.op;
    bool ok = c == 0 || (c == 1 && a.base_mult && b.base_mult && (op == OP_LT || op == OP_GE));
    return ok ? (RunStep){.ok = true, .coef = 0} : fail();
}

static RunStep bin(const Expr *e, const Var *v, int64_t V) {
    RunStep a = cuda_run_step(e->u.bin.a, v, V), b = cuda_run_step(e->u.bin.b, v, V);
    int64_t c;
    switch (e->u.bin.op) {
    case OP_ADD:
    case OP_SUB:
        if (!a.ok || !b.ok) return fail();
        return (RunStep){.ok = true,
                         .coef = e->u.bin.op == OP_ADD ? a.coef + b.coef : a.coef - b.coef,
                         .base_mult = a.base_mult && b.base_mult};
    case OP_MUL: {
        if (!a.ok || !b.ok) return fail();
        if (a.coef == 0 && b.coef == 0) return uniform(e, V);
        RunStep x = a.coef ? a : b, y = a.coef ? b : a; /* x varies: y must be a constant */
        if (y.coef != 0 || !ir_is_const_int(a.coef ? e->u.bin.b : e->u.bin.a, &c)) return fail();
        return (RunStep){.ok = true, .coef = x.coef * c, .base_mult = x.base_mult || c % V == 0};
    }
    case OP_FLOORDIV:
    case OP_FLOORMOD:
        if (!a.ok || !ir_is_const_int(e->u.bin.b, &c) || c <= 0) return fail();
        if (a.coef == 0) return uniform(e, V);
        if (a.coef != 1 || !a.base_mult || c % V) return fail();
        return e->u.bin.op == OP_FLOORDIV ? (RunStep){.ok = true, .coef = 0}
                                          : (RunStep){.ok = true, .coef = 1, .base_mult = true};
    case OP_LT:
    case OP_GE:
    case OP_LE:
    case OP_GT:
    case OP_EQ:
    case OP_NE: return compare(e, a, b);
    default: return a.ok && b.ok && a.coef == 0 && b.coef == 0 ? uniform(e, V) : fail();
    }
}

RunStep cuda_run_step(const Expr *e, const Var *v, int64_t V) {
    switch (e->kind) {
    case EXPR_INT:
    case EXPR_FLOAT: return uniform(e, V);
    case EXPR_VAR:
        return e->u.var == v ? (RunStep){.ok = true, .coef = 1, .base_mult = true} : uniform(e, V);
    case EXPR_BIN: return bin(e, v, V);
    case EXPR_CAST: {
        RunStep a = cuda_run_step(e->u.cast.value, v, V);
        return a.ok && (a.coef == 0 || dtype_is_int(e->dtype)) ? a : fail();
    }
    case EXPR_UN: {
        RunStep a = cuda_run_step(e->u.un.a, v, V);
        if (!a.ok) return fail();
        if (e->u.un.op == OP_NEG) return (RunStep){true, -a.coef, a.base_mult};
        return a.coef == 0 ? uniform(e, V) : fail();
    }
    case EXPR_SELECT: {
        RunStep c = cuda_run_step(e->u.select.cond, v, V);
        RunStep t = cuda_run_step(e->u.select.then, v, V),
                f = cuda_run_step(e->u.select.orelse, v, V);
        return c.ok && c.coef == 0 && t.ok && f.ok && t.coef == 0 && f.coef == 0 ? uniform(e, V)
                                                                                 : fail();
    }
    case EXPR_LOAD:
        for (int d = 0; d < e->u.load.buf->ndim; d++)
            if (!cuda_run_uniform(e->u.load.idx[d], v, V)) return fail();
        return uniform(e, V);
    case EXPR_CALL:
        for (int i = 0; i < intrinsic_nargs(e->u.call.fn); i++)
            if (!cuda_run_uniform(e->u.call.args[i], v, V)) return fail();
        return uniform(e, V);
    default: return fail();
    }
}

bool cuda_run_uniform(const Expr *e, const Var *v, int64_t V) {
    RunStep s = cuda_run_step(e, v, V);
    return s.ok && s.coef == 0;
}

bool cuda_run_vector(const Buffer *b, Expr *const *idx, const Var *v, int64_t V) {
    int last = b->ndim - 1;
    if (b->ndim < 1 || b->strides || b->addr || !ir_multiple_of(b->shape[last], V))
        return false; /* (T.make_tensor: no launch checks its alignment) */
    for (int d = 0; d < last; d++)
        if (!cuda_run_uniform(idx[d], v, V)) return false;
    RunStep s = cuda_run_step(idx[last], v, V);
    return s.ok && s.coef == 1 && s.base_mult;
}
