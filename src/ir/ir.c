/* ir.c - construction helpers of the tile IR, with constant folding and the trivial
 * algebraic simplifications every builder wants (x+0, x*1, ...), and the names of the
 * X-macro enumerations. All nodes live in ctx->arena; ids come from ctx->next_id. */
#include "ir/ir.h"

#include <math.h>
#include <string.h>

/* ---- enumeration names ------------------------------------------------------------- */
#define X_NAME(e, name, ...) [e] = name,
static const char *const scope_names[] = {TL_SCOPES(X_NAME)};
static const char *const binop_names[] = {TL_BINOPS(X_NAME)};
static const char *const unop_names[] = {TL_UNOPS(X_NAME)};
static const char *const intrinsic_names[] = {TL_INTRINSICS(X_NAME)};
static const char *const loop_kind_names[] = {TL_LOOP_KINDS(X_NAME)};
static const char *const reduce_op_names[] = {TL_REDUCE_OPS(X_NAME)};
static const char *const atomic_op_names[] = {TL_ATOMIC_OPS(X_NAME)};
static const char *const gemm_policy_names[] = {TL_GEMM_POLICIES(X_NAME)};
static const char *const mbar_op_names[] = {TL_MBAR_OPS(X_NAME)};
static const char *const turn_op_names[] = {TL_TURN_OPS(X_NAME)};
static const char *const group_sync_op_names[] = {TL_GROUP_SYNC_OPS(X_NAME)};
static const char *const sk_op_names[] = {TL_SK_OPS(X_NAME)};
static const char *const rounding_names[] = {TL_ROUNDINGS(X_NAME)};
static const char *const mem_order_names[] = {TL_MEM_ORDERS(X_NAME)};
static const char *const load_mode_names[] = {TL_LOAD_MODES(X_NAME)};
#undef X_NAME
#define X_NARGS(e, name, n) [e] = n,
static const int intrinsic_nargs_table[] = {TL_INTRINSICS(X_NARGS)};
#undef X_NARGS

#define NAME_OF(table, v, count) ((unsigned)(v) < (unsigned)(count) ? table[v] : "?")
const char *scope_name(Scope s) { return NAME_OF(scope_names, s, SCOPE_COUNT); }
const char *binop_name(BinOp op) { return NAME_OF(binop_names, op, BINOP_COUNT); }
const char *unop_name(UnOp op) { return NAME_OF(unop_names, op, UNOP_COUNT); }
const char *intrinsic_name(Intrinsic fn) { return NAME_OF(intrinsic_names, fn, FN_COUNT); }
const char *loop_kind_name(LoopKind k) { return NAME_OF(loop_kind_names, k, LOOP_KIND_COUNT); }
const char *reduce_op_name(ReduceOp op) { return NAME_OF(reduce_op_names, op, REDUCE_OP_COUNT); }
const char *atomic_op_name(AtomicOp op) { return NAME_OF(atomic_op_names, op, ATOMIC_OP_COUNT); }
const char *gemm_policy_name(GemmPolicy p) {
    return NAME_OF(gemm_policy_names, p, GEMM_POLICY_COUNT);
}
const char *mbar_op_name(MbarOp op) { return NAME_OF(mbar_op_names, op, MBAR_OP_COUNT); }
const char *group_sync_op_name(GroupSyncOp op) {
    return NAME_OF(group_sync_op_names, op, GSYNC_OP_COUNT);
}
const char *turn_op_name(TurnOp op) { return NAME_OF(turn_op_names, op, TURN_OP_COUNT); }
const char *sk_op_name(SkOp op) { return NAME_OF(sk_op_names, op, SK_OP_COUNT); }
const char *mem_order_name(MemOrder o) { return NAME_OF(mem_order_names, o, MEM_ORDER_COUNT); }
const char *load_mode_name(LoadMode m) { return NAME_OF(load_mode_names, m, LOAD_MODE_COUNT); }
int intrinsic_nargs(Intrinsic fn) {
    return (unsigned)fn < (unsigned)FN_COUNT ? intrinsic_nargs_table[fn] : 0;
}

bool intrinsic_is_shfl(Intrinsic fn) {
    return fn == FN_SHFL_XOR || fn == FN_SHFL_DOWN || fn == FN_SHFL_UP || fn == FN_SHFL_IDX;
}

bool intrinsic_is_block_vote(Intrinsic fn) {
    return fn == FN_SYNCTHREADS_AND || fn == FN_SYNCTHREADS_OR || fn == FN_SYNCTHREADS_COUNT;
}

bool intrinsic_reads_threads(Intrinsic fn) {
    switch (fn) {
    case FN_BALLOT:
    case FN_ANY_SYNC:
    case FN_ALL_SYNC:
    case FN_MATCH_ANY:
    case FN_MATCH_ALL:
    case FN_ELECT_ONE: return true;
    default: return intrinsic_is_shfl(fn) || intrinsic_is_block_vote(fn);
    }
}

/* The dtype of a vote's value (DT_INVALID: not a vote). */
static DType vote_dtype(Intrinsic fn) {
    switch (fn) {
    case FN_BALLOT: return DT_UINT64;
    case FN_MATCH_ANY:
    case FN_MATCH_ALL: return DT_UINT32;
    case FN_ELECT_ONE: return DT_BOOL;
    case FN_ANY_SYNC:
    case FN_ALL_SYNC: return DT_INT32;
    default: return intrinsic_is_block_vote(fn) ? DT_INT32 : DT_INVALID;
    }
}
const char *rounding_name(Rounding r) { return NAME_OF(rounding_names, r, ROUNDING_COUNT); }
#undef NAME_OF

Rounding rounding_parse(const char *name) {
    for (int r = 0; r < ROUNDING_COUNT; r++)
        if (name && !strcmp(name, rounding_names[r])) return (Rounding)r;
    return ROUNDING_COUNT;
}

/* ---- leaves ------------------------------------------------------------------------ */
Var *ir_var(Ctx *ctx, const char *name, DType dtype) {
    Var *v = NEW(&ctx->arena, Var);
    v->name = arena_strdup(&ctx->arena, name ? name : "v");
    v->dtype = dtype;
    v->id = ctx->next_id++;
    return v;
}

Buffer *ir_buffer(Ctx *ctx, const char *name, DType dtype, Scope scope, int ndim, Loc loc) {
    Buffer *b = NEW(&ctx->arena, Buffer);
    b->name = arena_strdup(&ctx->arena, name ? name : "buf");
    b->dtype = dtype;
    b->scope = scope;
    b->ndim = ndim;
    b->shape = NEW_ARRAY(&ctx->arena, Expr *, ndim > 0 ? ndim : 1);
    b->id = ctx->next_id++;
    b->loc = loc;
    return b;
}

const Buffer *ir_buffer_root(const Buffer *b) { return b && b->base ? b->base : b; }

static Expr *expr_new(Ctx *ctx, ExprKind kind, DType dtype, Loc loc) {
    Expr *e = NEW(&ctx->arena, Expr);
    e->kind = kind;
    e->dtype = dtype;
    e->loc = loc;
    return e;
}

/* Wraps v to the range of integer dtype t (two's complement), as C would on store. */
static int64_t int_wrap(int64_t v, DType t) {
    int bits = dtype_bits(t);
    if (t == DT_BOOL) return v != 0;
    if (bits <= 0 || bits >= 64) return v;
    uint64_t mask = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & mask;
    if (dtype_is_signed(t) && (u >> (bits - 1))) u |= ~mask;
    return (int64_t)u;
}

Expr *ir_int(Ctx *ctx, int64_t v, DType dtype, Loc loc) {
    Expr *e = expr_new(ctx, EXPR_INT, dtype, loc);
    e->u.i = dtype_is_int(dtype) ? int_wrap(v, dtype) : v;
    return e;
}

Expr *ir_float(Ctx *ctx, double v, DType dtype, Loc loc) {
    Expr *e = expr_new(ctx, EXPR_FLOAT, dtype, loc);
    e->u.f = v;
    return e;
}

Expr *ir_varref(Ctx *ctx, Var *v, Loc loc) {
    Expr *e = expr_new(ctx, EXPR_VAR, v->dtype, loc);
    e->u.var = v;
    return e;
}

bool ir_is_const_int(const Expr *e, int64_t *out) {
    if (!e || e->kind != EXPR_INT) return false;
    if (out) *out = e->u.i;
    return true;
}

static bool is_const(const Expr *e) { return e->kind == EXPR_INT || e->kind == EXPR_FLOAT; }
static double const_f(const Expr *e) { return e->kind == EXPR_INT ? (double)e->u.i : e->u.f; }
static bool is_int_const_val(const Expr *e, int64_t v) {
    return (e->kind == EXPR_INT && e->u.i == v) || (e->kind == EXPR_FLOAT && e->u.f == v);
}

/* Rounds v to the nearest value of float dtype t (ties to even); false on overflow. */
static bool float_round(double v, DType t, double *out) {
    int p, emin;
    double maxv;
    switch (t) {
    case DT_FLOAT64: *out = v; return true;
    case DT_FLOAT32: *out = (double)(float)v; return isinf(*out) == isinf(v);
    case DT_FLOAT16: p = 11, emin = -14, maxv = 65504.0; break;
    case DT_BFLOAT16: p = 8, emin = -126, maxv = 3.3895313892515355e38; break;
    case DT_FLOAT8_E4M3: p = 4, emin = -6, maxv = 448.0; break;
    case DT_FLOAT8_E5M2: p = 3, emin = -14, maxv = 57344.0; break;
    default: return false;
    }
    if (v == 0 || !isfinite(v)) {
        *out = v;
        return t != DT_FLOAT8_E4M3 || !isinf(v);
    }
    int e = ilogb(v);
    if (e < emin) e = emin;
    double scale = ldexp(1.0, e - (p - 1));
    double r = nearbyint(v / scale) * scale;
    if (fabs(r) > maxv) return false;
    *out = r;
    return true;
}

/* ---- binary folding ---------------------------------------------------------------- */
static bool binop_is_cmp(BinOp op) { return op >= OP_LT && op <= OP_NE; }
static bool binop_is_logic(BinOp op) { return op == OP_AND || op == OP_OR; }

static int64_t floordiv_i(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static int64_t floormod_i(int64_t a, int64_t b) {
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

/* A comparison given the ordering c of its operands (-1, 0, 1). */
static bool cmp_order(BinOp op, int c) {
    switch (op) {
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    case OP_GE: return c >= 0;
    case OP_EQ: return c == 0;
    default: return c != 0;
    }
}

static bool cmp_d(BinOp op, double a, double b) {
    if (a != a || b != b) return op == OP_NE; /* NaN is unordered: only != holds */
    return cmp_order(op, (a > b) - (a < b));
}

static bool cmp_i(BinOp op, int64_t a, int64_t b) { return cmp_order(op, (a > b) - (a < b)); }
static bool cmp_u(BinOp op, uint64_t a, uint64_t b) { return cmp_order(op, (a > b) - (a < b)); }

static bool fold_div_int(BinOp op, bool u64, int64_t a, int64_t b, int64_t *r) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    if (b == 0 || (!u64 && a == INT64_MIN && b == -1)) return false;
    if (u64) *r = (int64_t)(op == OP_FLOORMOD ? ua % ub : ua / ub);
    else if (op == OP_DIV) *r = a / b;
    else *r = op == OP_FLOORDIV ? floordiv_i(a, b) : floormod_i(a, b);
    return true;
}

static int64_t ipow(int64_t a, int64_t b) {
    if (a == -1) return (b & 1) ? -1 : 1;
    if (b >= 64 && (a < -1 || a > 1)) return 0; /* 2^64 divides the result: wraps to 0 */
    uint64_t acc = 1;
    for (int64_t k = 0; k < b; k++) acc *= (uint64_t)a;
    return (int64_t)acc;
}

/* Integer folding with both operands first converted to the operand dtype ot, as the
 * targets do. False when the operation must stay: division by zero, INT64_MIN / -1,
 * negative powers, shift counts outside [0, bits) (targets mask them). Arithmetic wraps
 * (ir_int wraps the result to the result dtype). */
static bool fold_int(BinOp op, DType ot, int64_t a, int64_t b, int64_t *r) {
    a = int_wrap(a, ot);
    b = int_wrap(b, ot);
    bool u64 = ot == DT_UINT64; /* narrower unsigned values are non-negative in int64 */
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case OP_ADD: *r = (int64_t)(ua + ub); return true;
    case OP_SUB: *r = (int64_t)(ua - ub); return true;
    case OP_MUL: *r = (int64_t)(ua * ub); return true;
    case OP_DIV:
    case OP_FLOORDIV:
    case OP_FLOORMOD: return fold_div_int(op, u64, a, b, r);
    case OP_MIN: *r = (u64 ? ua < ub : a < b) ? a : b; return true;
    case OP_MAX: *r = (u64 ? ua > ub : a > b) ? a : b; return true;
    case OP_POW:
        if (b < 0) return false;
        *r = ipow(a, b);
        return true;
    case OP_AND: *r = a && b; return true;
    case OP_OR: *r = a || b; return true;
    case OP_BITAND: *r = a & b; return true;
    case OP_BITOR: *r = a | b; return true;
    case OP_BITXOR: *r = a ^ b; return true;
    case OP_SHL:
    case OP_SHR:
        if (b < 0 || b >= dtype_bits(ot)) return false;
        if (op == OP_SHL) *r = (int64_t)(ua << b);
        else *r = u64 ? (int64_t)(ua >> b) : a >> b; /* arithmetic shift for signed */
        return true;
    default: *r = u64 ? cmp_u(op, ua, ub) : cmp_i(op, a, b); return true;
    }
}

static bool fold_float(BinOp op, double a, double b, double *r) {
    switch (op) {
    case OP_ADD: *r = a + b; return true;
    case OP_SUB: *r = a - b; return true;
    case OP_MUL: *r = a * b; return true;
    case OP_DIV:
        if (b == 0) return false;
        *r = a / b;
        return true;
    case OP_FLOORDIV:
        if (b == 0) return false;
        *r = floor(a / b);
        return true;
    case OP_FLOORMOD: {
        if (b == 0) return false;
        double m = fmod(a, b);
        if (m != 0 && ((m < 0) != (b < 0))) m += b;
        *r = m;
        return true;
    }
    case OP_MIN: *r = a < b ? a : b; return true;
    case OP_MAX: *r = a > b ? a : b; return true;
    case OP_POW: *r = pow(a, b); return true;
    case OP_AND: *r = (a != 0) && (b != 0); return true;
    case OP_OR: *r = (a != 0) || (b != 0); return true;
    default:
        if (!binop_is_cmp(op)) return false; /* bit operations on floats: leave them */
        *r = cmp_d(op, a, b);
        return true;
    }
}

static Expr *fold_bin(Ctx *ctx, BinOp op, Expr *a, Expr *b, DType t, Loc loc) {
    DType ot = dtype_promote(a->dtype, b->dtype);
    if (a->kind == EXPR_INT && b->kind == EXPR_INT && dtype_is_int(ot)) {
        int64_t r;
        if (!fold_int(op, ot, a->u.i, b->u.i, &r)) return NULL;
        return ir_int(ctx, r, t, loc);
    }
    double r;
    if (!fold_float(op, const_f(a), const_f(b), &r)) return NULL;
    if (t == DT_BOOL) return ir_int(ctx, r != 0, t, loc);
    if (dtype_is_int(t)) return NULL;        /* float constant typed int: leave to a cast */
    if (!float_round(r, t, &r)) return NULL; /* the value the target computes */
    return ir_float(ctx, r, t, loc);
}

/* x op c, c op x with identity constants. Only when x already has the result dtype so
 * the node can be dropped without changing the expression's type. */
static Expr *simplify_bin(Ctx *ctx, BinOp op, Expr *a, Expr *b, DType t, Loc loc) {
    bool int_t = dtype_is_int(t) && t != DT_BOOL;
    if (is_const(b) && a->dtype == t) {
        if ((op == OP_ADD || op == OP_SUB) && is_int_const_val(b, 0)) return a;
        if (op == OP_MUL && is_int_const_val(b, 1)) return a;
        if (int_t && op == OP_FLOORDIV && is_int_const_val(b, 1)) return a;
        if (int_t && op == OP_DIV && is_int_const_val(b, 1)) return a;
    }
    if (is_const(a) && b->dtype == t) {
        if (op == OP_ADD && is_int_const_val(a, 0)) return b;
        if (op == OP_MUL && is_int_const_val(a, 1)) return b;
    }
    if (int_t && op == OP_MUL && (is_int_const_val(a, 0) || is_int_const_val(b, 0)))
        return ir_int(ctx, 0, t, loc);
    if (int_t && op == OP_FLOORMOD && is_int_const_val(b, 1)) return ir_int(ctx, 0, t, loc);
    if (int_t && op == OP_FLOORDIV && b->kind == EXPR_INT && b->u.i > 0 && a->kind == EXPR_BIN &&
        a->u.bin.op == OP_MUL && a->dtype == t) { /* (x * c1) // c2 = x * (c1 / c2) if c2 | c1 */
        Expr *x = a->u.bin.a, *c = a->u.bin.b;
        if (x->kind == EXPR_INT) x = a->u.bin.b, c = a->u.bin.a;
        if (c->kind == EXPR_INT && c->u.i % b->u.i == 0)
            return ir_bin(ctx, OP_MUL, x, ir_int(ctx, c->u.i / b->u.i, c->dtype, loc), loc);
    }
    if (binop_is_logic(op) && t == DT_BOOL) {
        Expr *c = is_const(a) ? a : is_const(b) ? b : NULL, *x = c == a ? b : a;
        if (c && x->dtype == DT_BOOL) {
            bool cv = const_f(c) != 0;
            if (op == OP_AND) return cv ? x : ir_int(ctx, 0, DT_BOOL, loc);
            return cv ? ir_int(ctx, 1, DT_BOOL, loc) : x;
        }
    }
    return NULL;
}

Expr *ir_bin(Ctx *ctx, BinOp op, Expr *a, Expr *b, Loc loc) {
    TL_ASSERT(a && b);
    DType t = (binop_is_cmp(op) || binop_is_logic(op)) ? DT_BOOL
                                                       : dtype_promote(a->dtype, b->dtype);
    if (is_const(a) && is_const(b)) {
        Expr *r = fold_bin(ctx, op, a, b, t, loc);
        if (r) return r;
    }
    Expr *s = simplify_bin(ctx, op, a, b, t, loc);
    if (s) return s;
    Expr *e = expr_new(ctx, EXPR_BIN, t, loc);
    e->u.bin.op = op;
    e->u.bin.a = a;
    e->u.bin.b = b;
    return e;
}

/* ---- unary, calls, casts ------------------------------------------------------------ */
Expr *ir_un(Ctx *ctx, UnOp op, Expr *a, Loc loc) {
    TL_ASSERT(a);
    DType t = op == OP_NOT ? DT_BOOL : a->dtype;
    if (a->kind == EXPR_INT) {
        int64_t v = a->u.i;
        if (op == OP_NEG) return ir_int(ctx, (int64_t)(0 - (uint64_t)v), t, loc);
        if (op == OP_NOT) return ir_int(ctx, v == 0, t, loc);
        return ir_int(ctx, ~v, t, loc);
    }
    if (a->kind == EXPR_FLOAT && op != OP_BITNOT) {
        if (op == OP_NEG) return ir_float(ctx, -a->u.f, t, loc);
        return ir_int(ctx, a->u.f == 0, t, loc);
    }
    Expr *e = expr_new(ctx, EXPR_UN, t, loc);
    e->u.un.op = op;
    e->u.un.a = a;
    return e;
}

static bool fold_call(Intrinsic fn, double x, double y, double *r) {
    switch (fn) {
    case FN_EXP: *r = exp(x); break;
    case FN_EXP2: *r = exp2(x); break;
    case FN_LOG: *r = log(x); break;
    case FN_LOG2: *r = log2(x); break;
    case FN_LOG10: *r = log10(x); break;
    case FN_SQRT: *r = sqrt(x); break;
    case FN_RSQRT: *r = 1.0 / sqrt(x); break;
    case FN_ABS: *r = fabs(x); break;
    case FN_FLOOR: *r = floor(x); break;
    case FN_CEIL: *r = ceil(x); break;
    case FN_ROUND: *r = nearbyint(x); break; /* round half to even, as TVM/CUDA rint */
    case FN_TRUNC: *r = trunc(x); break;
    case FN_TANH: *r = tanh(x); break;
    case FN_SIGMOID: *r = 1.0 / (1.0 + exp(-x)); break;
    case FN_SIN: *r = sin(x); break;
    case FN_COS: *r = cos(x); break;
    case FN_TAN: *r = tan(x); break;
    case FN_ERF: *r = erf(x); break;
    case FN_LOG1P: *r = log1p(x); break;
    case FN_EXPM1: *r = expm1(x); break;
    case FN_POW: *r = pow(x, y); break;
    case FN_FMOD: *r = fmod(x, y); break;
    case FN_ATAN2: *r = atan2(x, y); break;
    case FN_ISINF: *r = isinf(x) != 0; break;
    case FN_ISNAN: *r = isnan(x) != 0; break;
    case FN_ISFINITE: *r = isfinite(x) != 0; break;
    case FN_ACOS: *r = acos(x); break;
    case FN_ACOSH: *r = acosh(x); break;
    case FN_ASIN: *r = asin(x); break;
    case FN_ASINH: *r = asinh(x); break;
    case FN_ATAN: *r = atan(x); break;
    case FN_ATANH: *r = atanh(x); break;
    case FN_COSH: *r = cosh(x); break;
    case FN_SINH: *r = sinh(x); break;
    case FN_NEARBYINT: *r = nearbyint(x); break; /* to nearest even: the default mode */
    case FN_COPYSIGN: *r = copysign(x, y); break;
    case FN_HYPOT: *r = hypot(x, y); break;
    case FN_LDEXP: *r = ldexp(x, y < -4096 ? -4096 : y > 4096 ? 4096 : (int)y); break;
    default: return false;
    }
    return true;
}

/* popcount, clz and __ffs of the constant v of integer dtype t. */
static int64_t fold_bits(Intrinsic fn, int64_t v, DType t) {
    int bits = dtype_bits(t);
    uint64_t u = bits >= 64 ? (uint64_t)v : (uint64_t)v & (((uint64_t)1 << bits) - 1);
    int64_t n = 0;
    if (fn == FN_POPCOUNT)
        for (; u; u &= u - 1) n++;
    else if (fn == FN_CLZ)
        for (int b = bits - 1; b >= 0 && !((u >> b) & 1); b--) n++;
    else
        for (n = u ? 1 : 0; u && !(u & 1); u >>= 1) n++;
    return n;
}

/* __fns of constants (PTX fns: the offset-th set bit from base, stepping up or down). */
static int64_t fold_fns(uint32_t mask, uint32_t base, int32_t offset) {
    if (offset == 0) return base < 32 && ((mask >> base) & 1) ? base : 0xFFFFFFFFu;
    int64_t count = (offset < 0 ? -(int64_t)offset : offset) - 1;
    for (int64_t pos = base; pos >= 0 && pos<32; pos += offset> 0 ? 1 : -1)
        if (((mask >> pos) & 1) && count-- == 0) return pos;
    return 0xFFFFFFFFu;
}

/* The dtype of a call of fn on args (see TL_INTRINSICS). */
static DType call_dtype(Intrinsic fn, Expr *const *args) {
    if (fn == FN_ISINF || fn == FN_ISNAN || fn == FN_ISFINITE) return DT_BOOL;
    if (fn == FN_CLZ || fn == FN_FFS) return DT_INT32;
    if (fn == FN_FNS) return DT_UINT32;
    if (vote_dtype(fn) != DT_INVALID) return vote_dtype(fn);
    if (intrinsic_is_shfl(fn) || fn == FN_LDEXP) return args[0]->dtype;
    DType t = args[0]->dtype;
    for (int i = 1; i < intrinsic_nargs(fn); i++) t = dtype_promote(t, args[i]->dtype);
    return t;
}

/* The folded call, or NULL when it stays (IEEE operations and CUDA's fast ones are left
 * to the target). */
static Expr *fold_call_expr(Ctx *ctx, Intrinsic fn, Expr *const *args, DType t, Loc loc) {
    Expr *a = args[0], *b = intrinsic_nargs(fn) > 1 ? args[1] : NULL;
    if (fn == FN_ABS && a->kind == EXPR_INT)
        return ir_int(ctx, a->u.i < 0 ? (int64_t)(0 - (uint64_t)a->u.i) : a->u.i, t, loc);
    if ((fn == FN_POPCOUNT || fn == FN_CLZ || fn == FN_FFS) && a->kind == EXPR_INT)
        return ir_int(ctx, fold_bits(fn, a->u.i, a->dtype), t, loc);
    if (fn == FN_FNS && a->kind == EXPR_INT && b->kind == EXPR_INT && args[2]->kind == EXPR_INT)
        return ir_int(ctx, fold_fns((uint32_t)a->u.i, (uint32_t)b->u.i, (int32_t)args[2]->u.i), t,
                      loc);
    if (a->kind != EXPR_FLOAT || (b && !is_const(b)) || intrinsic_nargs(fn) > 2) return NULL;
    double r;
    if (fn == FN_NEXTAFTER) { /* one step of t's own spacing */
        if (t != DT_FLOAT32 && t != DT_FLOAT64) return NULL;
        r = t == DT_FLOAT32 ? nextafterf((float)a->u.f, (float)const_f(b))
                            : nextafter(a->u.f, const_f(b));
        return ir_float(ctx, r, t, loc);
    }
    if (!fold_call(fn, a->u.f, b ? const_f(b) : 0, &r)) return NULL;
    if (t == DT_BOOL) return ir_int(ctx, r != 0, t, loc);
    if (dtype_is_float(t) && float_round(r, t, &r)) return ir_float(ctx, r, t, loc);
    return NULL;
}

Expr *ir_bitcast(Ctx *ctx, DType to, Expr *a, Loc loc) {
    TL_ASSERT(a && dtype_bits(to) == dtype_bits(a->dtype));
    if (to == a->dtype) return a;
    Expr *e = expr_new(ctx, EXPR_CALL, to, loc);
    e->u.call.fn = FN_BITCAST;
    e->u.call.args[0] = a;
    return e;
}

Expr *ir_call_n(Ctx *ctx, Intrinsic fn, Expr *const *args, Rounding round, Loc loc) {
    int n = intrinsic_nargs(fn);
    TL_ASSERT(fn != FN_BITCAST && n >= 1 && n <= 3); /* (ir_bitcast: the dtype is not a's) */
    for (int i = 0; i < n; i++) TL_ASSERT(args[i]);
    DType t = call_dtype(fn, args);
    if (round == ROUND_RN) {
        Expr *r = fold_call_expr(ctx, fn, args, t, loc);
        if (r) return r;
    }
    Expr *e = expr_new(ctx, EXPR_CALL, t, loc);
    e->u.call.fn = fn;
    e->u.call.round = round;
    for (int i = 0; i < n; i++) e->u.call.args[i] = args[i];
    return e;
}

Expr *ir_call(Ctx *ctx, Intrinsic fn, Expr *a, Expr *b, Loc loc) {
    TL_ASSERT((intrinsic_nargs(fn) == 2) == (b != NULL));
    Expr *args[2] = {a, b};
    return ir_call_n(ctx, fn, args, ROUND_RN, loc);
}

/* float -> int truncates and saturates at the type's limits, as the targets do (C
 * target: tl_c.h; CUDA: cvt.rzi.sat). NaN and values past int64 are left unfolded. */
static Expr *fold_float_to_int(Ctx *ctx, DType to, double v, Loc loc) {
    double t = trunc(v);
    int bits = dtype_bits(to);
    if (isnan(t) || (bits >= 64 && fabs(t) >= 9.2e18)) return NULL;
    double lo = dtype_is_signed(to) ? -ldexp(1.0, bits - 1) : 0;
    double hi = dtype_is_signed(to) ? ldexp(1.0, bits - 1) - 1 : ldexp(1.0, bits) - 1;
    if (t < lo) t = lo;
    if (t > hi) t = hi;
    return ir_int(ctx, (int64_t)t, to, loc);
}

static Expr *fold_cast(Ctx *ctx, DType to, const Expr *a, Loc loc) {
    if (to == DT_BOOL) return ir_int(ctx, const_f(a) != 0, to, loc);
    if (dtype_is_int(to)) {
        if (a->kind == EXPR_INT) return ir_int(ctx, a->u.i, to, loc);
        return fold_float_to_int(ctx, to, a->u.f, loc);
    }
    double r;
    if (!float_round(const_f(a), to, &r)) return NULL;
    return ir_float(ctx, r, to, loc);
}

Expr *ir_cast(Ctx *ctx, DType to, Expr *a, Loc loc) {
    TL_ASSERT(a);
    if (a->dtype == to) return a;
    if (is_const(a)) {
        Expr *r = fold_cast(ctx, to, a, loc);
        if (r) return r;
    }
    Expr *e = expr_new(ctx, EXPR_CAST, to, loc);
    e->u.cast.value = a;
    return e;
}

Expr *ir_load(Ctx *ctx, Buffer *buf, Expr **idx, Loc loc) {
    Expr *e = expr_new(ctx, EXPR_LOAD, buf->dtype, loc);
    e->u.load.buf = buf;
    e->u.load.idx = NEW_ARRAY(&ctx->arena, Expr *, buf->ndim > 0 ? buf->ndim : 1);
    for (int d = 0; d < buf->ndim; d++) e->u.load.idx[d] = idx[d];
    return e;
}

Expr *ir_load_like(Ctx *ctx, const Expr *like, Expr **idx, Loc loc) {
    Expr *e = ir_load(ctx, like->u.load.buf, idx, loc);
    e->dtype = like->dtype;
    e->u.load.mode = like->u.load.mode;
    e->u.load.order = like->u.load.order;
    return e;
}

Expr *ir_select(Ctx *ctx, Expr *cond, Expr *t, Expr *f, Loc loc) {
    TL_ASSERT(cond && t && f);
    if (is_const(cond)) return const_f(cond) != 0 ? t : f;
    Expr *e = expr_new(ctx, EXPR_SELECT, dtype_promote(t->dtype, f->dtype), loc);
    e->u.select.cond = cond;
    e->u.select.then = t;
    e->u.select.orelse = f;
    return e;
}

/* ---- statements --------------------------------------------------------------------- */
Stmt *ir_stmt(Ctx *ctx, StmtKind kind, Loc loc) {
    Stmt *s = NEW(&ctx->arena, Stmt);
    s->kind = kind;
    s->loc = loc;
    return s;
}

int ir_cluster_size(const Stmt *kernel) {
    int n = 1;
    for (int d = 0; d < 3; d++)
        n *= kernel->u.kernel.cluster_dims[d] > 1 ? kernel->u.kernel.cluster_dims[d] : 1;
    return n;
}

Stmt *ir_seq(Ctx *ctx, Loc loc) { return ir_stmt(ctx, STMT_SEQ, loc); }

void ir_seq_push(Ctx *ctx, Stmt *seq, Stmt *s) {
    TL_ASSERT(seq && seq->kind == STMT_SEQ);
    if (s) VEC_PUSH(&ctx->arena, seq->u.seq, s);
}

/* ---- substitution ------------------------------------------------------------------- */
Expr *ir_subst(Ctx *ctx, const Expr *e, const Var *from, Expr *to) {
    if (!e) return NULL;
    if (e->kind == EXPR_VAR && from && e->u.var == from && to) return to;
    Expr *c = expr_new(ctx, e->kind, e->dtype, e->loc);
    c->u = e->u;
    switch (e->kind) {
    case EXPR_BIN:
        c->u.bin.a = ir_subst(ctx, e->u.bin.a, from, to);
        c->u.bin.b = ir_subst(ctx, e->u.bin.b, from, to);
        break;
    case EXPR_UN: c->u.un.a = ir_subst(ctx, e->u.un.a, from, to); break;
    case EXPR_CALL:
        for (int i = 0; i < 3; i++) c->u.call.args[i] = ir_subst(ctx, e->u.call.args[i], from, to);
        break;
    case EXPR_CAST: c->u.cast.value = ir_subst(ctx, e->u.cast.value, from, to); break;
    case EXPR_LOAD: {
        int n = e->u.load.buf->ndim;
        c->u.load.idx = NEW_ARRAY(&ctx->arena, Expr *, n > 0 ? n : 1);
        for (int d = 0; d < n; d++) c->u.load.idx[d] = ir_subst(ctx, e->u.load.idx[d], from, to);
        break;
    }
    case EXPR_SELECT:
        c->u.select.cond = ir_subst(ctx, e->u.select.cond, from, to);
        c->u.select.then = ir_subst(ctx, e->u.select.then, from, to);
        c->u.select.orelse = ir_subst(ctx, e->u.select.orelse, from, to);
        break;
    default: break;
    }
    return c;
}

/* Whether integer e is provably never negative: non-negative constants and Var.nonneg
 * vars combined by +, *, min, max and floor division or modulo by positive constants. */
bool ir_nonneg(const Expr *e) {
    int64_t c;
    if (ir_is_const_int(e, &c)) return c >= 0;
    if (e->kind == EXPR_VAR) return e->u.var->nonneg;
    if (e->kind != EXPR_BIN) return false;
    const Expr *a = e->u.bin.a, *b = e->u.bin.b;
    switch (e->u.bin.op) {
    case OP_ADD:
    case OP_MUL:
    case OP_MIN: return ir_nonneg(a) && ir_nonneg(b);
    case OP_MAX: return ir_nonneg(a) || ir_nonneg(b);
    case OP_FLOORDIV:
    case OP_FLOORMOD: return ir_nonneg(a) && ir_is_const_int(b, &c) && c > 0;
    default: return false;
    }
}

Expr *ir_wrap4(Ctx *ctx, Expr *x, bool is_signed, Loc loc) {
    Expr *low = ir_bin(ctx, OP_BITAND, ir_cast(ctx, DT_INT32, x, loc),
                       ir_int(ctx, 15, DT_INT32, loc), loc);
    if (!is_signed) return ir_cast(ctx, DT_UINT8, low, loc);
    /* low - 16 when bit 3 is set: two's complement without shifting a sign into place */
    Expr *sign = ir_bin(ctx, OP_BITAND, low, ir_int(ctx, 8, DT_INT32, loc), loc);
    Expr *v = ir_bin(ctx, OP_SUB, low,
                     ir_bin(ctx, OP_MUL, sign, ir_int(ctx, 2, DT_INT32, loc), loc), loc);
    return ir_cast(ctx, DT_INT8, v, loc);
}

Expr *ir_nibble(Ctx *ctx, Expr *byte, Expr *index, bool is_signed, Loc loc) {
    Expr *u = ir_cast(ctx, DT_INT32, ir_cast(ctx, DT_UINT8, byte, loc), loc);
    Expr *odd = ir_bin(ctx, OP_BITAND, ir_cast(ctx, DT_INT32, index, loc),
                       ir_int(ctx, 1, DT_INT32, loc), loc);
    Expr *shift = ir_bin(ctx, OP_MUL, odd, ir_int(ctx, 4, DT_INT32, loc), loc);
    return ir_wrap4(ctx, ir_bin(ctx, OP_SHR, u, shift, loc), is_signed, loc);
}

/* Whether e is provably a multiple of m (m > 0). */
bool ir_multiple_of(const Expr *e, int64_t m) {
    int64_t c;
    if (ir_is_const_int(e, &c)) return c % m == 0;
    if (e->kind == EXPR_CAST) return dtype_is_int(e->dtype) && ir_multiple_of(e->u.cast.value, m);
    if (e->kind == EXPR_VAR) return e->u.var->multiple > 1 && e->u.var->multiple % m == 0;
    if (e->kind != EXPR_BIN) return false;
    const Expr *a = e->u.bin.a, *b = e->u.bin.b;
    switch (e->u.bin.op) {
    case OP_ADD:
    case OP_SUB: return ir_multiple_of(a, m) && ir_multiple_of(b, m);
    case OP_MUL: return ir_multiple_of(a, m) || ir_multiple_of(b, m);
    default: return false;
    }
}
