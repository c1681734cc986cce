/* tileops_math.c - TileLang 0.1.15's math and arithmetic names that take more than the
 * float-in, float-out intrinsics of tileops.c (T.acos, T.hypot, ... go there, by their
 * TL_INTRINSICS names). Each checks its operands as TileLang does and builds the IR both
 * targets print (the C target is the reference; tl_c.h and tl_cuda.h say how each is
 * computed):
 *
 *   T.nextafter(x, y)          the next float32/float64 after x toward y
 *   T.ldexp(x, e)              x * 2^e, e an integer
 *   T.popcount(x)              set bits of an integer, in its dtype
 *   T.clz(x), T.__ffs(x)       leading zeros; 1-based lowest set bit (0 for 0); int32 of a
 *                              32- or 64-bit integer (clz(0) is the width)
 *   T.__fns(mask, base, offset)
 *                              CUDA's n-th set bit: the offset-th set bit of mask (uint32)
 *                              from bit base up (offset > 0) or down (< 0), base itself if
 *                              set (0), else 0xFFFFFFFF; uint32 (PTX fns; tl_c.h's tl_fns)
 *   T.truncdiv(a, b), T.truncmod(a, b)
 *                              C's integer / and %: the quotient rounded toward zero; the
 *                              remainder a - truncdiv(a, b) * b (b = 0: quotient 0)
 *   T.cdiv(a, b)               T.ceildiv
 *   T.likely(cond)             cond (a branch hint)
 *   T.__cos, __exp, __exp10, __log, __log2, __log10, __sin, __tan, T.fast_rcp
 *                              CUDA's fast approximations of float32 (and narrower) values;
 *                              the C target computes them accurately
 *   T.ieee_add, ieee_sub, ieee_mul, ieee_fdiv (x, y, rounding_mode="rn"),
 *   T.ieee_fmaf(x, y, z, rounding_mode="rn"), T.ieee_frcp, ieee_fsqrt (x, rounding_mode),
 *   T.ieee_frsqrt(x)            IEEE operations rounded to nearest, toward zero, up or down
 *                              (float32 and float64; narrower floats to nearest only;
 *                              ieee_frsqrt float32 only, as TileLang's CUDA code)
 *   T.fma(x, y, z), T.fmul(x, y)
 *                              one fused multiply-add; a multiply never fused, both to
 *                              nearest
 *
 * (TileLang's packed x2 operations, T.add2 ... T.abs2, are tileops_vec.c's.) Errors name
 * the T function and point at the call. */
#include "frontend/eval.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

static void nargs(Interp *in, CallArgs *a, int n, const char *fname) {
    if (a->pos.len != n || a->kw.len)
        ctx_fail(in->ctx, a->loc, "%s() takes %d positional argument%s", fname, n,
                 n == 1 ? "" : "s");
}

static const char *fname_of(Interp *in, Intrinsic fn) {
    return arena_printf(ARENA, "T.%s", intrinsic_name(fn));
}

/* ---- operands --------------------------------------------------------------------------- */
/* A float operand; an integer becomes float32 (as T.exp's), unless strict (TileLang's
 * fast-math and IEEE functions reject integers). */
static Expr *float_arg(Interp *in, Value *v, Loc loc, const char *fname, bool strict) {
    if (v->kind == V_FLOAT) return ir_float(in->ctx, v->u.f, DT_FLOAT32, loc);
    Expr *e = val_to_expr(in, v, loc, fname);
    if (dtype_is_float(e->dtype)) return e;
    if (strict)
        ctx_fail(in->ctx, loc, "%s only supports floating-point inputs, but got %s", fname,
                 dtype_name(e->dtype));
    return ir_cast(in->ctx, DT_FLOAT32, e, loc);
}

/* n float operands of one dtype: a Python number takes the others' dtype. */
static DType same_floats(Interp *in, Value **v, int n, Expr **out, Loc loc, const char *fname) {
    DType t = DT_INVALID;
    for (int i = 0; i < n; i++)
        if (v[i]->kind != V_FLOAT && v[i]->kind != V_INT) {
            out[i] = float_arg(in, v[i], loc, fname, true);
            if (t != DT_INVALID && out[i]->dtype != t)
                ctx_fail(in->ctx, loc,
                         "%s expects all inputs to have the same dtype, got %s and %s", fname,
                         dtype_name(t), dtype_name(out[i]->dtype));
            t = out[i]->dtype;
        }
    if (t == DT_INVALID) t = DT_FLOAT32;
    for (int i = 0; i < n; i++)
        if (v[i]->kind == V_FLOAT || v[i]->kind == V_INT)
            out[i] = ir_float(in->ctx, v[i]->kind == V_FLOAT ? v[i]->u.f : (double)v[i]->u.i, t,
                              loc);
    return t;
}

/* An integer operand (not bool): a Python int is int32. */
static Expr *int_arg(Interp *in, Value *v, Loc loc, const char *fname) {
    Expr *e = val_to_expr(in, v, loc, fname);
    if (!dtype_is_int(e->dtype) || e->dtype == DT_BOOL)
        ctx_fail(in->ctx, loc, "%s expects an integer argument, but got %s", fname,
                 v->kind == V_EXPR ? dtype_name(e->dtype) : val_describe(in, v));
    return e;
}

/* ---- libm names with checks ------------------------------------------------------------ */
static Value *t_nextafter(Interp *in, CallArgs *a, void *d) {
    (void)d;
    nargs(in, a, 2, "T.nextafter");
    Expr *x = float_arg(in, a->pos.data[0], a->loc, "T.nextafter", false);
    Expr *y = float_arg(in, a->pos.data[1], a->loc, "T.nextafter", false);
    if (a->pos.data[1]->kind == V_FLOAT) y = ir_cast(in->ctx, x->dtype, y, a->loc);
    if (a->pos.data[0]->kind == V_FLOAT) x = ir_cast(in->ctx, y->dtype, x, a->loc);
    DType t = dtype_promote(x->dtype, y->dtype);
    if (t != DT_FLOAT32 && t != DT_FLOAT64)
        ctx_fail(in->ctx, a->loc,
                 "T.nextafter supports float32 and float64 (a step of %s's spacing is not "
                 "implemented)",
                 dtype_name(t));
    return val_expr(in, ir_call(in->ctx, FN_NEXTAFTER, x, y, a->loc));
}

static Value *t_ldexp(Interp *in, CallArgs *a, void *d) {
    (void)d;
    nargs(in, a, 2, "T.ldexp");
    Expr *x = float_arg(in, a->pos.data[0], a->loc, "T.ldexp", false);
    Value *ev = a->pos.data[1];
    Expr *e = ev->kind == V_FLOAT ? NULL : val_to_expr(in, ev, a->loc, "T.ldexp exponent");
    if (!e || !dtype_is_int(e->dtype) || e->dtype == DT_BOOL)
        ctx_fail(in->ctx, a->loc, "T.ldexp: the exponent must be an integer, got %s",
                 e ? dtype_name(e->dtype) : val_describe(in, ev));
    return val_expr(in,
                    ir_call(in->ctx, FN_LDEXP, x, ir_cast(in->ctx, DT_INT32, e, a->loc), a->loc));
}

/* ---- integer bits and division ---------------------------------------------------------- */
static Value *t_bits(Interp *in, CallArgs *a, void *d) {
    Intrinsic fn = (Intrinsic)(intptr_t)d;
    const char *fname = fname_of(in, fn);
    nargs(in, a, 1, fname);
    Expr *x = int_arg(in, a->pos.data[0], a->loc, fname);
    int bits = dtype_bits(x->dtype);
    if (fn != FN_POPCOUNT && bits != 32 && bits != 64)
        ctx_fail(in->ctx, a->loc, "%s expects a 32-bit or 64-bit integer argument, but got %s",
                 fname, dtype_name(x->dtype));
    return val_expr(in, ir_call(in->ctx, fn, x, NULL, a->loc));
}

/* T.__fns(mask, base, offset): CUDA's n-th set bit (FN_FNS), of the integers as uint32,
 * uint32 and int32 as CUDA's prototype converts them. */
static Value *t_fns(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[3];
    args_bind(in, a, "T.__fns", "mask, base, offset", av, 3);
    static const char *const what[] = {"mask", "base", "offset"};
    const DType as[3] = {DT_UINT32, DT_UINT32, DT_INT32};
    Expr *x[3];
    for (int i = 0; i < 3; i++) {
        Expr *e = val_to_expr(in, av[i], a->loc, what[i]);
        if (!dtype_is_int(e->dtype))
            ctx_fail(in->ctx, a->loc, "T.__fns: %s must be an integer, got %s", what[i],
                     dtype_name(e->dtype));
        x[i] = e->dtype == as[i] ? e : ir_cast(in->ctx, as[i], e, a->loc);
    }
    return val_expr(in, ir_call_n(in->ctx, FN_FNS, x, ROUND_RN, a->loc));
}

/* TileLang's truncdiv (d NULL) and truncmod of two integers, as C computes them. */
static Value *t_trunc_div(Interp *in, CallArgs *a, void *d) {
    const char *fname = d ? "T.truncmod" : "T.truncdiv";
    nargs(in, a, 2, fname);
    Value *x = a->pos.data[0], *y = a->pos.data[1];
    int64_t cx, cy;
    if (x->kind == V_INT && y->kind == V_INT && val_is_const_int(x, &cx) &&
        val_is_const_int(y, &cy)) {
        if (cy == 0) ctx_fail(in->ctx, a->loc, "%s: division by zero", fname);
        int64_t q = cx == INT64_MIN && cy == -1 ? cx : cx / cy;
        return val_int(in, d ? (int64_t)((uint64_t)cx - (uint64_t)q * (uint64_t)cy) : q);
    }
    Expr *ex = int_arg(in, x, a->loc, fname), *ey = int_arg(in, y, a->loc, fname);
    if (x->kind == V_INT) ex = ir_cast(in->ctx, ey->dtype, ex, a->loc);
    if (y->kind == V_INT) ey = ir_cast(in->ctx, ex->dtype, ey, a->loc);
    Ctx *c = in->ctx;
    Expr *q = ir_bin(c, OP_DIV, ex, ey, a->loc); /* int OP_DIV: C's truncating division */
    if (!d) return val_expr(in, q);
    return val_expr(in, ir_bin(c, OP_SUB, ex, ir_bin(c, OP_MUL, q, ey, a->loc), a->loc));
}

static Value *t_cdiv(Interp *in, CallArgs *a, void *d) {
    (void)d;
    return call_value(in, tl_lang_attr(in, "ceildiv", a->loc), a);
}

static Value *t_likely(Interp *in, CallArgs *a, void *d) {
    (void)d;
    nargs(in, a, 1, "T.likely");
    return a->pos.data[0];
}

/* ---- CUDA's fast approximations ---------------------------------------------------------- */
static Value *t_fast(Interp *in, CallArgs *a, void *d) {
    Intrinsic fn = (Intrinsic)(intptr_t)d;
    const char *fname = fname_of(in, fn);
    nargs(in, a, 1, fname);
    Expr *x = float_arg(in, a->pos.data[0], a->loc, fname, true);
    if (fn == FN_FAST_RCP && x->dtype != DT_FLOAT32)
        ctx_fail(in->ctx, a->loc, "T.fast_rcp supports float32 only, but got %s",
                 dtype_name(x->dtype));
    if (x->dtype == DT_FLOAT64)
        ctx_fail(in->ctx, a->loc, "%s: CUDA has no fast float64 version (use T.%s)", fname,
                 intrinsic_name(fn) + 2);
    return val_expr(in, ir_call(in->ctx, fn, x, NULL, a->loc));
}

/* ---- IEEE operations ----------------------------------------------------------------------- */
typedef struct IeeeOp {
    Intrinsic fn;
    const char *name, *spec; /* T.<name>'s parameters */
    bool fixed_rn;           /* no rounding_mode parameter: to nearest */
} IeeeOp;

static const IeeeOp ieee_ops[] = {
    {FN_IEEE_ADD, "ieee_add", "x, y, rounding_mode=", false},
    {FN_IEEE_SUB, "ieee_sub", "x, y, rounding_mode=", false},
    {FN_IEEE_MUL, "ieee_mul", "x, y, rounding_mode=", false},
    {FN_IEEE_DIV, "ieee_fdiv", "x, y, rounding_mode=", false},
    {FN_IEEE_FMA, "ieee_fmaf", "x, y, z, rounding_mode=", false},
    {FN_IEEE_RCP, "ieee_frcp", "x, rounding_mode=", false},
    {FN_IEEE_SQRT, "ieee_fsqrt", "x, rounding_mode=", false},
    {FN_IEEE_RSQRT, "ieee_frsqrt", "x", true},
    {FN_IEEE_FMA, "fma", "x, y, z", true},
    {FN_IEEE_MUL, "fmul", "x, y", true},
};

static Rounding rounding_arg(Interp *in, Value *v, Loc loc, const char *fname) {
    Rounding r = v && v->kind == V_STR ? rounding_parse(v->u.s) : v ? ROUNDING_COUNT : ROUND_RN;
    if (r == ROUNDING_COUNT)
        ctx_fail(in->ctx, loc,
                 "%s: invalid rounding mode %s (must be one of 'rn', 'rz', 'ru', 'rd')", fname,
                 v->kind == V_STR ? arena_printf(ARENA, "'%s'", v->u.s) : val_describe(in, v));
    return r;
}

/* A narrower float's rounded-to-nearest operation as the plain arithmetic (which rounds
 * each result to the dtype once, exactly), or NULL (fma: the emitter's). */
static Expr *narrow_ieee(Interp *in, Intrinsic fn, Expr **x, Loc loc) {
    Ctx *c = in->ctx;
    switch (fn) {
    case FN_IEEE_ADD: return ir_bin(c, OP_ADD, x[0], x[1], loc);
    case FN_IEEE_SUB: return ir_bin(c, OP_SUB, x[0], x[1], loc);
    case FN_IEEE_MUL: return ir_bin(c, OP_MUL, x[0], x[1], loc);
    case FN_IEEE_DIV: return ir_bin(c, OP_DIV, x[0], x[1], loc);
    case FN_IEEE_RCP: return ir_bin(c, OP_DIV, ir_float(c, 1.0, x[0]->dtype, loc), x[0], loc);
    case FN_IEEE_SQRT: return ir_call(c, FN_SQRT, x[0], NULL, loc);
    default: return NULL;
    }
}

static Value *t_ieee(Interp *in, CallArgs *a, void *d) {
    const IeeeOp *op = d;
    const char *fname = arena_printf(ARENA, "T.%s", op->name);
    int n = intrinsic_nargs(op->fn);
    Value *av[4] = {0};
    args_bind(in, a, fname, op->spec, av, n + !op->fixed_rn);
    Rounding r = op->fixed_rn ? ROUND_RN : rounding_arg(in, av[n], a->loc, fname);
    Expr *x[3];
    DType t = same_floats(in, av, n, x, a->loc, fname);
    if (op->fn == FN_IEEE_RSQRT && t != DT_FLOAT32)
        ctx_fail(in->ctx, a->loc,
                 "%s supports float32 only, but got %s (T.ieee_fsqrt then T.ieee_frcp is the "
                 "workaround TileLang names)",
                 fname, dtype_name(t));
    if (t != DT_FLOAT32 && t != DT_FLOAT64) {
        if (r != ROUND_RN)
            ctx_fail(in->ctx, a->loc,
                     "%s: rounding mode '%s' is not supported for %s (only 'rn' is, below "
                     "float32)",
                     fname, rounding_name(r), dtype_name(t));
        Expr *e = narrow_ieee(in, op->fn, x, a->loc);
        if (e) return val_expr(in, e);
    }
    return val_expr(in, ir_call_n(in->ctx, op->fn, x, r, a->loc));
}

/* ---- the table --------------------------------------------------------------------------- */
#define I(x) ((const void *)(intptr_t)(x))
#define FAST_NOTE "C, CUDA (C: the accurate function)"
#define IEEE_NOTE "C, CUDA (float32, float64; narrower: 'rn' only)"
static const TName math[] = {
    {"nextafter", t_nextafter, NULL, "C, CUDA (float32, float64)"},
    {"ldexp", t_ldexp, NULL, NULL},
    {"popcount", t_bits, I(FN_POPCOUNT), NULL},
    {"clz", t_bits, I(FN_CLZ), NULL},
    {"__ffs", t_bits, I(FN_FFS), NULL},
    {"truncdiv", t_trunc_div, NULL, NULL},
    {"truncmod", t_trunc_div, "mod", NULL},
    {"cdiv", t_cdiv, NULL, NULL},
    {"likely", t_likely, NULL, NULL},
    {"__cos", t_fast, I(FN_FAST_COS), FAST_NOTE},
    {"__exp", t_fast, I(FN_FAST_EXP), FAST_NOTE},
    {"__exp10", t_fast, I(FN_FAST_EXP10), FAST_NOTE},
    {"__log", t_fast, I(FN_FAST_LOG), FAST_NOTE},
    {"__log2", t_fast, I(FN_FAST_LOG2), FAST_NOTE},
    {"__log10", t_fast, I(FN_FAST_LOG10), FAST_NOTE},
    {"__sin", t_fast, I(FN_FAST_SIN), FAST_NOTE},
    {"__tan", t_fast, I(FN_FAST_TAN), FAST_NOTE},
    {"fast_rcp", t_fast, I(FN_FAST_RCP), "C, CUDA (float32; C: 1/x)"},
    {"ieee_add", t_ieee, &ieee_ops[0], IEEE_NOTE},
    {"ieee_sub", t_ieee, &ieee_ops[1], IEEE_NOTE},
    {"ieee_mul", t_ieee, &ieee_ops[2], IEEE_NOTE},
    {"ieee_fdiv", t_ieee, &ieee_ops[3], IEEE_NOTE},
    {"ieee_fmaf", t_ieee, &ieee_ops[4], IEEE_NOTE},
    {"ieee_frcp", t_ieee, &ieee_ops[5], IEEE_NOTE},
    {"ieee_fsqrt", t_ieee, &ieee_ops[6], IEEE_NOTE},
    {"ieee_frsqrt", t_ieee, &ieee_ops[7], "C, CUDA (float32)"},
    {"fma", t_ieee, &ieee_ops[8], NULL},
    {"fmul", t_ieee, &ieee_ops[9], NULL},
    {"__fns", t_fns, NULL, NULL},
};
#undef I

const TNames tl_math_names = {math, (int)(sizeof math / sizeof *math)};
