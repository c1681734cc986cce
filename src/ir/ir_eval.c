/* ir_eval.c - evaluates integer IR expressions on the host (grid sizes, buffer shapes,
 * FLOP counts) with exactly the generated code's semantics: the integer helpers of
 * runtime/c/tl_c.h (wrapping, division by zero gives 0, Python floor division/modulo,
 * masked shift counts) and wrapping to each node's dtype. */
#include "ir/ir.h"

#include "../../runtime/c/tl_c.h"

/* Wraps v to the width and signedness of an integer dtype (bool: != 0). */
static int64_t wrap_int(int64_t v, DType t) {
    int bits = dtype_bits(t);
    if (t == DT_BOOL) return v != 0;
    if (bits >= 64) return v;
    uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & m;
    if (dtype_is_signed(t) && (u >> (bits - 1))) u |= ~m;
    return (int64_t)u;
}

static int eval_bin(BinOp op, int64_t a, int64_t b, int64_t *out) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case OP_ADD: *out = (int64_t)(ua + ub); return 0;
    case OP_SUB: *out = (int64_t)(ua - ub); return 0;
    case OP_MUL: *out = (int64_t)(ua * ub); return 0;
    case OP_DIV: *out = tl_div_i64(a, b); return 0;
    case OP_FLOORDIV: *out = tl_floordiv_i64(a, b); return 0;
    case OP_FLOORMOD: *out = tl_floormod_i64(a, b); return 0;
    case OP_MIN: *out = a < b ? a : b; return 0;
    case OP_MAX: *out = a > b ? a : b; return 0;
    case OP_LT: *out = a < b; return 0;
    case OP_LE: *out = a <= b; return 0;
    case OP_GT: *out = a > b; return 0;
    case OP_GE: *out = a >= b; return 0;
    case OP_EQ: *out = a == b; return 0;
    case OP_NE: *out = a != b; return 0;
    case OP_AND: *out = a && b; return 0;
    case OP_OR: *out = a || b; return 0;
    case OP_BITAND: *out = a & b; return 0;
    case OP_BITOR: *out = a | b; return 0;
    case OP_BITXOR: *out = a ^ b; return 0;
    case OP_SHL: *out = tl_shl_i64(a, b); return 0;
    case OP_SHR: *out = tl_shr_i64(a, b); return 0;
    default: return -1;
    }
}

int ir_eval_int(const Expr *e, IrLookup lookup, void *env, int64_t *out) {
    int64_t a, b, c;
    if (!e || (!dtype_is_int(e->dtype) && e->kind != EXPR_CAST)) return -1;
    switch (e->kind) {
    case EXPR_INT: *out = e->u.i; return 0;
    case EXPR_VAR: return lookup(env, e->u.var, out);
    case EXPR_CAST:
        if (!dtype_is_int(e->dtype) || ir_eval_int(e->u.cast.value, lookup, env, &a)) return -1;
        *out = wrap_int(a, e->dtype);
        return 0;
    case EXPR_UN:
        if (ir_eval_int(e->u.un.a, lookup, env, &a)) return -1;
        a = e->u.un.op == OP_NEG ? (int64_t)(0 - (uint64_t)a) : e->u.un.op == OP_NOT ? !a : ~a;
        *out = wrap_int(a, e->dtype);
        return 0;
    case EXPR_BIN:
        if (ir_eval_int(e->u.bin.a, lookup, env, &a) || ir_eval_int(e->u.bin.b, lookup, env, &b))
            return -1;
        if (e->dtype == DT_UINT64 &&
            (e->u.bin.op == OP_DIV || e->u.bin.op == OP_FLOORDIV || e->u.bin.op == OP_FLOORMOD))
            return -1; /* unsigned 64-bit division: never needed for sizes */
        if (eval_bin(e->u.bin.op, a, b, &c)) return -1;
        *out = wrap_int(c, e->dtype);
        return 0;
    case EXPR_SELECT:
        if (ir_eval_int(e->u.select.cond, lookup, env, &a)) return -1;
        return ir_eval_int(a ? e->u.select.then : e->u.select.orelse, lookup, env, out);
    default: return -1;
    }
}
