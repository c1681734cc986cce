/* eval.c - the interpreter core: values, environments, expressions, statements and
 * calls. Requires: an AST from parse_module. Provides: module execution (meta level)
 * and IR emission inside prim_func bodies (see eval.h). */
#include "frontend/eval.h"
#include "ir/ir_walk.h"

#include <math.h>
#include <string.h>

/* ---- values ----------------------------------------------------------------------- */
static const char *const value_kind_names[] = {
#define X(e, s) s,
    TL_VALUE_KINDS(X)
#undef X
};

const char *val_kind_name(ValueKind k) { return value_kind_names[k]; }

Value *val_new(Interp *in, ValueKind k) {
    Value *v = NEW(&in->ctx->arena, Value);
    v->kind = k;
    return v;
}

Value *val_none(Interp *in) { return val_new(in, V_NONE); }

Value *val_int(Interp *in, int64_t i) {
    Value *v = val_new(in, V_INT);
    v->u.i = i;
    return v;
}

Value *val_float(Interp *in, double f) {
    Value *v = val_new(in, V_FLOAT);
    v->u.f = f;
    return v;
}

Value *val_bool(Interp *in, bool b) {
    Value *v = val_new(in, V_BOOL);
    v->u.b = b;
    return v;
}

Value *val_str(Interp *in, const char *s) {
    Value *v = val_new(in, V_STR);
    v->u.s = s;
    return v;
}

/* IR constants fold back into meta values so that `x = 3` inside a kernel stays 3. */
Value *val_expr(Interp *in, Expr *e) {
    if (e->kind == EXPR_INT && e->dtype == DT_INT32) return val_int(in, e->u.i);
    Value *v = val_new(in, V_EXPR);
    v->u.expr = e;
    return v;
}

Value *val_dtype(Interp *in, DType t) {
    Value *v = val_new(in, V_DTYPE);
    v->u.dtype = t;
    return v;
}

const char *val_describe(Interp *in, const Value *v) {
    Arena *a = &in->ctx->arena;
    switch (v->kind) {
    case V_INT: return arena_printf(a, "int %lld", (long long)v->u.i);
    case V_FLOAT: return arena_printf(a, "float %g", v->u.f);
    case V_BOOL: return v->u.b ? "True" : "False";
    case V_STR: return arena_printf(a, "string \"%s\"", v->u.s);
    case V_MODULE: return arena_printf(a, "module %s", v->u.s);
    case V_OPAQUE: return arena_printf(a, "'%s'", v->u.s);
    case V_DTYPE: return arena_printf(a, "dtype %s", dtype_name(v->u.dtype));
    case V_VEC_DTYPE:
        return arena_printf(a, "dtype %sx%d", dtype_name(v->u.vec.elem), v->u.vec.lanes);
    case V_VEC: return arena_printf(a, "%sx%d vector", dtype_name(v->u.vec.elem), v->u.vec.lanes);
    case V_BUFFER: return arena_printf(a, "buffer %s", v->u.buf->name);
    case V_REGION: return arena_printf(a, "region of %s", v->u.region.buf->name);
    case V_FUNC: return arena_printf(a, "function %s", v->u.func->name);
    case V_BUILTIN: return arena_printf(a, "%s", v->u.builtin->name);
    case V_ATOM: return v->u.s;
    case V_OBJECT: return arena_printf(a, "a %s", v->u.obj.type);
    case V_PTR: return arena_printf(a, "a pointer into %s", v->u.ptr.buf->name);
    default: return val_kind_name(v->kind);
    }
}

bool val_is_const_int(const Value *v, int64_t *out) {
    if (v->kind == V_INT) return *out = v->u.i, true;
    if (v->kind == V_BOOL) return *out = v->u.b, true;
    if (v->kind == V_EXPR && v->u.expr->kind == EXPR_INT) return *out = v->u.expr->u.i, true;
    return false;
}

static _Noreturn void fail_error_value(Interp *in, Value *v, Loc loc) {
    if (v->u.error.use_msg) {
        if (v->u.error.note) ctx_note(in->ctx, v->u.error.loc, "%s", v->u.error.note);
        ctx_fail(in->ctx, loc, "%s", v->u.error.use_msg);
    }
    ctx_note(in->ctx, loc, "the value was used here");
    Ctx *ctx = in->ctx;
    StrBuf all = {0};
    sb_puts(&all, v->u.error.text);
    sb_puts(&all, ctx->err.buf ? ctx->err.buf : "");
    sb_free(&ctx->err);
    ctx->err = all;
    longjmp(*ctx->on_error, 1);
}

int64_t val_to_int(Interp *in, Value *v, Loc loc, const char *what) {
    int64_t i;
    if (v->kind == V_ERROR) fail_error_value(in, v, loc);
    if (val_is_const_int(v, &i)) return i;
    if (v->kind == V_FLOAT && v->u.f == floor(v->u.f) && fabs(v->u.f) < 9e18)
        return (int64_t)v->u.f;
    if (v->kind == V_EXPR)
        ctx_fail(in->ctx, loc,
                 "%s must be a compile-time integer, but it depends on run-time "
                 "values",
                 what);
    ctx_fail(in->ctx, loc, "%s must be an integer, got %s", what, val_describe(in, v));
}

Expr *val_to_expr(Interp *in, Value *v, Loc loc, const char *what) {
    Ctx *ctx = in->ctx;
    switch (v->kind) {
    case V_INT:
        if (v->u.i > INT32_MAX || v->u.i < INT32_MIN) return ir_int(ctx, v->u.i, DT_INT64, loc);
        return ir_int(ctx, v->u.i, DT_INT32, loc);
    case V_BOOL: return ir_int(ctx, v->u.b, DT_BOOL, loc);
    case V_FLOAT: return ir_float(ctx, v->u.f, DT_FLOAT32, loc);
    case V_EXPR: return v->u.expr;
    case V_ERROR: fail_error_value(in, v, loc);
    case V_VEC:
        ctx_fail(ctx, loc, "%s must be a scalar, got a %sx%d vector (T.extract_lane takes a lane)",
                 what, dtype_name(v->u.vec.elem), v->u.vec.lanes);
    case V_BUFFER:
        if (v->u.buf->vec_var)
            ctx_fail(ctx, loc,
                     "%s must be a scalar, got the %sx%d vector '%s' (T.extract_lane takes a "
                     "lane)",
                     what, dtype_name(v->u.buf->dtype), v->u.buf->lanes, v->u.buf->name);
        if (v->u.buf->scope == SCOPE_VAR) {
            Expr **idx = NEW_ARRAY(&ctx->arena, Expr *, 1);
            idx[0] = ir_int(ctx, 0, DT_INT32, loc);
            return ir_load(ctx, v->u.buf, idx, loc);
        }
        ctx_fail(ctx, loc,
                 "%s must be a scalar, but buffer '%s' is a whole %s buffer; index it "
                 "(%s[i])",
                 what, v->u.buf->name, scope_name(v->u.buf->scope), v->u.buf->name);
    default:
        ctx_fail(ctx, loc, "%s must be a number or an expression, got %s", what,
                 val_describe(in, v));
    }
}

DType val_to_dtype(Interp *in, Value *v, Loc loc, const char *what) {
    if (v->kind == V_DTYPE) return v->u.dtype;
    if (val_is_ptr_type(v)) return DT_INT64; /* T.ptr: an address, stored as TileLang does */
    if (v->kind == V_STR) {
        DType t = dtype_parse(v->u.s);
        if (t == DT_INVALID) ctx_fail(in->ctx, loc, "unknown dtype \"%s\"", v->u.s);
        return t;
    }
    if (v->kind == V_ERROR) fail_error_value(in, v, loc);
    ctx_fail(in->ctx, loc, "%s must be a dtype (e.g. \"float16\" or T.float16), got %s", what,
             val_describe(in, v));
}

bool val_truthy(Interp *in, Value *v, Loc loc) {
    switch (v->kind) {
    case V_NONE: return false;
    case V_BOOL: return v->u.b;
    case V_INT: return v->u.i != 0;
    case V_FLOAT: return v->u.f != 0;
    case V_STR: return v->u.s[0] != 0;
    case V_TUPLE:
    case V_LIST: return v->u.items.len != 0;
    case V_DICT: return v->u.dict.keys.len != 0;
    case V_EXPR:
        if (v->u.expr->kind == EXPR_INT) return v->u.expr->u.i != 0;
        ctx_fail(in->ctx, loc,
                 "this condition depends on run-time values; it cannot be "
                 "decided at compile time here");
    case V_ERROR: fail_error_value(in, v, loc);
    default: return true;
    }
}

/* ---- environments ----------------------------------------------------------------- */
Env *env_new(Interp *in, Env *parent) {
    Env *e = NEW(&in->ctx->arena, Env);
    e->parent = parent;
    return e;
}

void env_set(Interp *in, Env *e, const char *name, Value *v) {
    for (int i = 0; i < e->vars.len; i++)
        if (!strcmp(e->vars.data[i].name, name)) {
            e->vars.data[i].value = v;
            return;
        }
    Binding b = {name, v};
    VEC_PUSH(&in->ctx->arena, e->vars, b);
}

Value *env_get(Env *e, const char *name) {
    for (; e; e = e->parent)
        for (int i = e->vars.len - 1; i >= 0; i--)
            if (!strcmp(e->vars.data[i].name, name)) return e->vars.data[i].value;
    return NULL;
}

static Value *lookup(Interp *in, Env *env, const char *name, Loc loc) {
    Value *v = env_get(env, name);
    if (!v) v = env_get(in->builtins, name);
    if (!v) ctx_fail(in->ctx, loc, "name '%s' is not defined", name);
    if (v->kind == V_ERROR) fail_error_value(in, v, loc);
    if (v->kind == V_REF) return val_expr(in, ir_load(in->ctx, v->u.ptr.buf, v->u.ptr.idx, loc));
    return v;
}

/* ---- statement emission ---------------------------------------------------------- */
void emit_stmt(Interp *in, Stmt *s) {
    if (!in->builder)
        ctx_fail(in->ctx, s->loc, "this statement is only allowed inside a @T.prim_func body");
    ir_seq_push(in->ctx, in->builder, local_view_tile_ops(in, s)); /* views.c */
}

/* ---- binary and unary operators --------------------------------------------------- */
static int64_t py_floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static int64_t py_mod(int64_t a, int64_t b) {
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
}

static bool is_num(const Value *v) {
    return v->kind == V_INT || v->kind == V_FLOAT || v->kind == V_BOOL;
}

static double num_f(const Value *v) {
    return v->kind == V_FLOAT ? v->u.f : v->kind == V_INT ? (double)v->u.i : (double)v->u.b;
}

static int64_t num_i(const Value *v) { return v->kind == V_INT ? v->u.i : v->u.b; }

static Value *meta_compare(Interp *in, const char *op, double x, double y) {
    bool r = !strcmp(op, "<")    ? x < y
             : !strcmp(op, "<=") ? x <= y
             : !strcmp(op, ">")  ? x > y
             : !strcmp(op, ">=") ? x >= y
             : !strcmp(op, "==") ? x == y
                                 : x != y;
    return val_bool(in, r);
}

/* Compile-time ints are int64 (LANGUAGE.md): a result Python would give as a bigger int is
 * a clear error, never a wrapped value. */
_Noreturn static void int_overflow(Interp *in, Loc loc, int64_t x, const char *op, int64_t y) {
    ctx_fail(in->ctx, loc,
             "integer overflow: %lld %s %lld does not fit in 64 bits "
             "(compile-time integers are int64)",
             (long long)x, op, (long long)y);
}

static int64_t int_pow(Interp *in, int64_t x, int64_t y, Loc loc) {
    int64_t r = 1, b = x;
    for (int64_t e = y; e; e >>= 1) {
        if ((e & 1) && __builtin_mul_overflow(r, b, &r)) int_overflow(in, loc, x, "**", y);
        if (e > 1 && __builtin_mul_overflow(b, b, &b)) int_overflow(in, loc, x, "**", y);
    }
    return r;
}

static int64_t int_shift(Interp *in, const char *op, int64_t x, int64_t y, Loc loc) {
    if (y < 0) ctx_fail(in->ctx, loc, "negative shift count: %lld", (long long)y);
    if (op[0] == '>') return y > 63 ? (x < 0 ? -1 : 0) : x >> y;
    if (x == 0) return 0;
    if (y > 62 || (x > 0 ? x > INT64_MAX >> y : x < INT64_MIN >> y))
        int_overflow(in, loc, x, "<<", y);
    return (int64_t)((uint64_t)x << y);
}

static Value *meta_int_binop(Interp *in, const char *op, int64_t x, int64_t y, Loc loc) {
    Ctx *ctx = in->ctx;
    int64_t r;
    if (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*")) {
        bool o = op[0] == '+'   ? __builtin_add_overflow(x, y, &r)
                 : op[0] == '-' ? __builtin_sub_overflow(x, y, &r)
                                : __builtin_mul_overflow(x, y, &r);
        if (o) int_overflow(in, loc, x, op, y);
        return val_int(in, r);
    }
    if (!strcmp(op, "/")) {
        if (!y) ctx_fail(ctx, loc, "division by zero");
        return val_float(in, (double)x / (double)y);
    }
    if (!strcmp(op, "//") || !strcmp(op, "%")) {
        if (!y) ctx_fail(ctx, loc, "integer division or modulo by zero");
        if (x == INT64_MIN && y == -1) int_overflow(in, loc, x, op, y);
        return val_int(in, op[0] == '/' ? py_floordiv(x, y) : py_mod(x, y));
    }
    if (!strcmp(op, "**")) {
        if (y < 0) return val_float(in, pow((double)x, (double)y));
        return val_int(in, int_pow(in, x, y, loc));
    }
    if (!strcmp(op, "<<") || !strcmp(op, ">>")) return val_int(in, int_shift(in, op, x, y, loc));
    if (!strcmp(op, "&")) return val_int(in, x & y);
    if (!strcmp(op, "|")) return val_int(in, x | y);
    if (!strcmp(op, "^")) return val_int(in, x ^ y);
    return meta_compare(in, op, (double)x, (double)y);
}

int64_t val_float_to_int(Interp *in, double f, Loc loc) {
    if (f != f) ctx_fail(in->ctx, loc, "cannot convert float NaN to integer");
    if (isinf(f)) ctx_fail(in->ctx, loc, "cannot convert float infinity to integer");
    if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0))
        ctx_fail(in->ctx, loc,
                 "integer overflow: %g does not fit in 64 bits (compile-time "
                 "integers are int64)",
                 f);
    return (int64_t)f;
}

static Value *meta_float_binop(Interp *in, const char *op, double x, double y, Loc loc) {
    if (!strcmp(op, "+")) return val_float(in, x + y);
    if (!strcmp(op, "-")) return val_float(in, x - y);
    if (!strcmp(op, "*")) return val_float(in, x * y);
    if (!strcmp(op, "/")) {
        if (y == 0) ctx_fail(in->ctx, loc, "float division by zero");
        return val_float(in, x / y);
    }
    if (!strcmp(op, "//")) {
        if (y == 0) ctx_fail(in->ctx, loc, "float floor division by zero");
        return val_float(in, floor(x / y));
    }
    if (!strcmp(op, "%")) {
        if (y == 0) ctx_fail(in->ctx, loc, "float modulo by zero");
        double m = fmod(x, y);
        if (m != 0 && ((m < 0) != (y < 0))) m += y;
        return val_float(in, m);
    }
    if (!strcmp(op, "**")) return val_float(in, pow(x, y));
    if (strchr("<>=!", op[0])) return meta_compare(in, op, x, y);
    ctx_fail(in->ctx, loc, "operator '%s' is not defined for floats", op);
}

static BinOp binop_of(const char *op) {
    static const struct {
        const char *s;
        BinOp op;
    } t[] = {
        {"+", OP_ADD},      {"-", OP_SUB},  {"*", OP_MUL},  {"/", OP_DIV},    {"//", OP_FLOORDIV},
        {"%", OP_FLOORMOD}, {"**", OP_POW}, {"<", OP_LT},   {"<=", OP_LE},    {">", OP_GT},
        {">=", OP_GE},      {"==", OP_EQ},  {"!=", OP_NE},  {"&", OP_BITAND}, {"|", OP_BITOR},
        {"^", OP_BITXOR},   {"<<", OP_SHL}, {">>", OP_SHR}, {"and", OP_AND},  {"or", OP_OR},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].s, op)) return t[i].op;
    return BINOP_COUNT;
}

/* A Python literal next to a typed expression takes the expression's type (TVM's rule),
 * except a float literal next to an integer expression, which makes both float32. */
static Expr *literal_as(Interp *in, Value *lit, Expr *other, Loc loc) {
    Ctx *ctx = in->ctx;
    if (lit->kind == V_FLOAT) {
        DType t = dtype_is_float(other->dtype) ? other->dtype : DT_FLOAT32;
        return ir_float(ctx, lit->u.f, t, loc);
    }
    int64_t i = num_i(lit);
    if (dtype_is_float(other->dtype)) return ir_float(ctx, (double)i, other->dtype, loc);
    if (other->dtype == DT_BOOL) return ir_int(ctx, i, DT_INT32, loc);
    return ir_int(ctx, i, other->dtype, loc);
}

static Value *expr_binop(Interp *in, const char *op, Value *a, Value *b, Loc loc) {
    Ctx *ctx = in->ctx;
    BinOp bop = binop_of(op);
    if (bop == BINOP_COUNT) ctx_fail(ctx, loc, "operator '%s' is not supported in kernels", op);
    Expr *x, *y;
    if (is_num(a) && b->kind == V_EXPR) {
        y = b->u.expr;
        x = literal_as(in, a, y, loc);
    } else if (is_num(b) && a->kind == V_EXPR) {
        x = a->u.expr;
        y = literal_as(in, b, x, loc);
    } else {
        x = val_to_expr(in, a, loc, "operand");
        y = val_to_expr(in, b, loc, "operand");
    }
    if (bop == OP_DIV && dtype_is_int(x->dtype) && dtype_is_int(y->dtype)) {
        int64_t yc;
        if (ir_is_const_int(y, &yc) && yc == 0) ctx_fail(ctx, loc, "division by zero");
    }
    return val_expr(in, ir_bin(ctx, bop, x, y, loc));
}

void eval_work(Interp *in, int64_t n, Loc loc) {
    in->steps += n;
    if (in->steps > EVAL_MAX_STEPS)
        ctx_fail(in->ctx, loc,
                 "compile-time work limit reached: more than %d steps "
                 "(statements, expressions, sequence elements); a compile-time loop, "
                 "recursion or sequence is too large",
                 EVAL_MAX_STEPS);
}

void eval_elements(Interp *in, int64_t n, Loc loc) {
    if (n > EVAL_MAX_ELEMENTS)
        ctx_fail(in->ctx, loc,
                 "sequence too long for compile time: %lld elements (the limit "
                 "is %d)",
                 (long long)n, EVAL_MAX_ELEMENTS);
    eval_work(in, n, loc);
}

static Value *seq_binop(Interp *in, const char *op, Value *a, Value *b, Loc loc) {
    Arena *ar = &in->ctx->arena;
    if (!strcmp(op, "+") && a->kind == b->kind && (a->kind == V_TUPLE || a->kind == V_LIST)) {
        eval_elements(in, (int64_t)a->u.items.len + b->u.items.len, loc);
        Value *r = val_new(in, a->kind);
        for (int i = 0; i < a->u.items.len; i++) VEC_PUSH(ar, r->u.items, a->u.items.data[i]);
        for (int i = 0; i < b->u.items.len; i++) VEC_PUSH(ar, r->u.items, b->u.items.data[i]);
        return r;
    }
    if (!strcmp(op, "*") && (a->kind == V_TUPLE || a->kind == V_LIST) && b->kind == V_INT) {
        Value *r = val_new(in, a->kind);
        int64_t n = b->u.i > 0 ? b->u.i : 0, len = a->u.items.len;
        int64_t total;
        eval_elements(in, __builtin_mul_overflow(n, len, &total) ? INT64_MAX : total, loc);
        for (int64_t k = 0; k < n; k++)
            for (int i = 0; i < a->u.items.len; i++) VEC_PUSH(ar, r->u.items, a->u.items.data[i]);
        return r;
    }
    if (!strcmp(op, "+") && a->kind == V_STR && b->kind == V_STR) {
        eval_work(in, (int64_t)strlen(a->u.s) + (int64_t)strlen(b->u.s), loc);
        return val_str(in, arena_printf(ar, "%s%s", a->u.s, b->u.s));
    }
    ctx_fail(in->ctx, loc, "unsupported operand types for %s: %s and %s", op, val_describe(in, a),
             val_describe(in, b));
}

Value *eval_binop(Interp *in, const char *op, Value *a, Value *b, Loc loc) {
    if (a->kind == V_ERROR) fail_error_value(in, a, loc);
    if (b->kind == V_ERROR) fail_error_value(in, b, loc);
    Value *vec = vec_binop(in, op, a, b, loc);
    if (vec) return vec;
    if (a->kind == V_BUFFER && a->u.buf->scope == SCOPE_VAR)
        a = val_expr(in, val_to_expr(in, a, loc, ""));
    if (b->kind == V_BUFFER && b->u.buf->scope == SCOPE_VAR)
        b = val_expr(in, val_to_expr(in, b, loc, ""));
    if (is_num(a) && is_num(b)) {
        if (a->kind != V_FLOAT && b->kind != V_FLOAT) {
            Value *r = meta_int_binop(in, op, num_i(a), num_i(b), loc);
            if (a->kind == V_BOOL && b->kind == V_BOOL && strchr("&|^", op[0]) && !op[1])
                return val_bool(in, r->u.i != 0);
            return r;
        }
        return meta_float_binop(in, op, num_f(a), num_f(b), loc);
    }
    if (a->kind == V_EXPR || b->kind == V_EXPR) return expr_binop(in, op, a, b, loc);
    if (!strcmp(op, "==") || !strcmp(op, "!=")) {
        bool eq = values_equal(in, a, b);
        return val_bool(in, op[0] == '=' ? eq : !eq);
    }
    if (a->kind == V_STR && b->kind == V_STR && strchr("<>", op[0])) {
        int c = strcmp(a->u.s, b->u.s);
        return meta_compare(in, op, c, 0);
    }
    return seq_binop(in, op, a, b, loc);
}

bool values_equal(Interp *in, Value *a, Value *b) {
    if (is_num(a) && is_num(b)) return num_f(a) == num_f(b);
    if (a->kind == V_DTYPE || b->kind == V_DTYPE) {
        DType x = a->kind == V_DTYPE ? a->u.dtype
                  : a->kind == V_STR ? dtype_parse(a->u.s)
                                     : DT_INVALID;
        DType y = b->kind == V_DTYPE ? b->u.dtype
                  : b->kind == V_STR ? dtype_parse(b->u.s)
                                     : DT_INVALID;
        return x != DT_INVALID && x == y;
    }
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case V_NONE: return true;
    case V_STR:
    case V_ATOM:
    case V_MODULE:
    case V_OPAQUE: return !strcmp(a->u.s, b->u.s);
    case V_TUPLE:
    case V_LIST:
        if (a->u.items.len != b->u.items.len) return false;
        for (int i = 0; i < a->u.items.len; i++)
            if (!values_equal(in, a->u.items.data[i], b->u.items.data[i])) return false;
        return true;
    case V_BUFFER: return a->u.buf == b->u.buf;
    case V_FUNC: return a->u.func == b->u.func;
    default: return a == b;
    }
}

static Value *eval_unary(Interp *in, const char *op, Value *v, Loc loc) {
    Ctx *ctx = in->ctx;
    Value *vec = vec_unary(in, op, v, loc);
    if (vec) return vec;
    if (v->kind == V_BUFFER && v->u.buf->scope == SCOPE_VAR)
        v = val_expr(in, val_to_expr(in, v, loc, ""));
    if (!strcmp(op, "not")) {
        if (v->kind == V_EXPR) return val_expr(in, ir_un(ctx, OP_NOT, v->u.expr, loc));
        return val_bool(in, !val_truthy(in, v, loc));
    }
    if (v->kind == V_EXPR) {
        if (!strcmp(op, "+")) return v;
        return val_expr(in, ir_un(ctx, op[0] == '-' ? OP_NEG : OP_BITNOT, v->u.expr, loc));
    }
    if (!strcmp(op, "-")) {
        if (v->kind == V_FLOAT) return val_float(in, -v->u.f);
        if (is_num(v) && num_i(v) == INT64_MIN) int_overflow(in, loc, 0, "-", INT64_MIN);
        if (is_num(v)) return val_int(in, -num_i(v));
    } else if (!strcmp(op, "+")) {
        if (is_num(v)) return v->kind == V_BOOL ? val_int(in, v->u.b) : v;
    } else if (!strcmp(op, "~")) {
        if (v->kind == V_INT || v->kind == V_BOOL) return val_int(in, ~num_i(v));
    }
    ctx_fail(ctx, loc, "bad operand for unary %s: %s", op, val_describe(in, v));
}

/* ---- expressions ------------------------------------------------------------------ */
static Value *iterate_values(Interp *in, Value *it, Loc loc);

static Value *make_seq(Interp *in, Env *env, AstList *elts, ValueKind kind) {
    Value *v = val_new(in, kind);
    for (int i = 0; i < elts->len; i++) {
        Ast *e = elts->data[i];
        if (e->kind == AST_STARRED) {
            Value *s = iterate_values(in, eval_expr(in, env, e->u.starred.value), e->loc);
            for (int k = 0; k < s->u.items.len; k++)
                VEC_PUSH(&in->ctx->arena, v->u.items, s->u.items.data[k]);
            continue;
        }
        VEC_PUSH(&in->ctx->arena, v->u.items, eval_expr(in, env, e));
    }
    return v;
}

static Value *eval_dict(Interp *in, Env *env, Ast *e) {
    Value *v = val_new(in, V_DICT);
    for (int i = 0; i < e->u.dict.keys.len; i++) {
        Ast *k = e->u.dict.keys.data[i];
        if (!k) ctx_fail(in->ctx, e->loc, "'**' in a dict display is not supported");
        VEC_PUSH(&in->ctx->arena, v->u.dict.keys, eval_expr(in, env, k));
        VEC_PUSH(&in->ctx->arena, v->u.dict.values, eval_expr(in, env, e->u.dict.values.data[i]));
    }
    return v;
}

Value *dict_get(Interp *in, Value *dict, Value *key) {
    for (int i = 0; i < dict->u.dict.keys.len; i++)
        if (values_equal(in, dict->u.dict.keys.data[i], key)) return dict->u.dict.values.data[i];
    return NULL;
}

static int64_t norm_index(Interp *in, int64_t i, int64_t n, Loc loc) {
    if (i < 0) i += n;
    if (i < 0 || i >= n) ctx_fail(in->ctx, loc, "index out of range");
    return i;
}

static int64_t slice_bound(Interp *in, Value *v, int64_t n, int64_t dflt, Loc loc) {
    if (!v || v->kind == V_NONE) return dflt;
    int64_t i = val_to_int(in, v, loc, "slice index");
    if (i < 0) i += n;
    return i < 0 ? 0 : i > n ? n : i;
}

static Value *subscript_seq(Interp *in, Value *seq, Value *idx, Loc loc) {
    int n = seq->u.items.len;
    if (idx->kind == V_SLICE) {
        int64_t step = idx->u.slice.step && idx->u.slice.step->kind != V_NONE
                           ? val_to_int(in, idx->u.slice.step, loc, "slice step")
                           : 1;
        if (step != 1) ctx_fail(in->ctx, loc, "slices with a step are not supported here");
        int64_t lo = slice_bound(in, idx->u.slice.lower, n, 0, loc);
        int64_t hi = slice_bound(in, idx->u.slice.upper, n, n, loc);
        Value *r = val_new(in, seq->kind);
        for (int64_t i = lo; i < hi; i++)
            VEC_PUSH(&in->ctx->arena, r->u.items, seq->u.items.data[i]);
        return r;
    }
    int64_t i = norm_index(in, val_to_int(in, idx, loc, "index"), n, loc);
    return seq->u.items.data[i];
}

static Value *eval_subscript(Interp *in, Env *env, Ast *e) {
    Loc loc = e->loc;
    Value *base = eval_expr(in, env, e->u.subscript.value);
    Value *idx = eval_expr(in, env, e->u.subscript.index);
    switch (base->kind) {
    case V_BUFFER: return buffer_subscript(in, base->u.buf, idx, loc);
    case V_TUPLE:
    case V_LIST: return subscript_seq(in, base, idx, loc);
    case V_DICT: {
        Value *v = dict_get(in, base, idx);
        if (!v) ctx_fail(in->ctx, loc, "key %s not found", val_describe(in, idx));
        return v;
    }
    case V_STR: {
        int64_t n = (int64_t)strlen(base->u.s);
        int64_t i = norm_index(in, val_to_int(in, idx, loc, "index"), n, loc);
        return val_str(in, arena_strndup(&in->ctx->arena, base->u.s + i, 1));
    }
    case V_BUILTIN:
    case V_MODULE:
    case V_OPAQUE:
        /* T.Tensor[(M, N), dtype] and typing generics: call with the index items */
        if (base->kind == V_BUILTIN) {
            CallArgs a = {.loc = loc};
            if (idx->kind == V_TUPLE) a.pos = idx->u.items;
            else VEC_PUSH(&in->ctx->arena, a.pos, idx);
            return call_value(in, base, &a);
        }
        return base;
    default: ctx_fail(in->ctx, loc, "%s is not subscriptable", val_describe(in, base));
    }
}

static Value *eval_slice(Interp *in, Env *env, Ast *e) {
    Value *v = val_new(in, V_SLICE);
    if (e->u.slice.lower) v->u.slice.lower = eval_expr(in, env, e->u.slice.lower);
    if (e->u.slice.upper) v->u.slice.upper = eval_expr(in, env, e->u.slice.upper);
    if (e->u.slice.step) v->u.slice.step = eval_expr(in, env, e->u.slice.step);
    return v;
}

static Value *eval_attr(Interp *in, Env *env, Ast *e) {
    Value *base = eval_expr(in, env, e->u.attr.value);
    const char *attr = e->u.attr.attr;
    Loc loc = e->loc;
    switch (base->kind) {
    case V_MODULE:
    case V_OPAQUE:
    case V_ATOM: return module_attr(in, base, attr, loc);
    case V_BUFFER:
        if (!strcmp(attr, "shape")) {
            Value *t = val_new(in, V_TUPLE);
            for (int d = 0; d < base->u.buf->ndim; d++)
                VEC_PUSH(&in->ctx->arena, t->u.items, val_expr(in, base->u.buf->shape[d]));
            return t;
        }
        if (!strcmp(attr, "dtype")) return val_dtype(in, base->u.buf->dtype);
        if (!strcmp(attr, "ndim")) return val_int(in, base->u.buf->ndim);
        if (!strcmp(attr, "name")) return val_str(in, base->u.buf->name);
        if (!strcmp(attr, "data")) return base; /* its memory: T.Tensor(shape, dtype, b.data) */
        break;
    case V_EXPR: {
        if (!strcmp(attr, "dtype")) return val_dtype(in, base->u.expr->dtype);
        Value *m = expr_method(in, base, attr);
        if (m) return m;
        break;
    }
    case V_DTYPE:
        if (!strcmp(attr, "bits")) return val_int(in, dtype_bits(base->u.dtype));
        if (!strcmp(attr, "itemsize")) return val_int(in, dtype_bytes(base->u.dtype));
        break;
    case V_DICT:
    case V_LIST:
    case V_STR:
        return module_attr(in, base, attr, loc); /* methods: items, keys, append, format... */
    case V_OBJECT: return object_attr(in, base, attr, loc);
    case V_ERROR: fail_error_value(in, base, loc);
    default: break;
    }
    ctx_fail(in->ctx, loc, "%s has no attribute '%s'", val_describe(in, base), attr);
}

/* An operand of a comparison: a name bound to a value that cannot reach a kernel (a
 * captured tensor: V_ERROR) is kept, so that `x is None` / `x is not None` can answer. */
static Value *eval_operand(Interp *in, Env *env, Ast *e) {
    if (e->kind == AST_NAME) {
        Value *v = env_get(env, e->u.name);
        if (v && v->kind == V_ERROR) return v;
    }
    return eval_expr(in, env, e);
}

/* `a is b` where one side stands for a Python object tilec does not model (V_ERROR):
 * false against None (that object is not None); any other use is the value's error. */
static bool identity_with_error(Interp *in, Value *a, Value *b, Loc loc) {
    Value *err = a->kind == V_ERROR ? a : b, *other = err == a ? b : a;
    if (other->kind != V_NONE) fail_error_value(in, err, loc);
    return false;
}

static Value *eval_compare(Interp *in, Env *env, Ast *e) {
    Value *left = eval_operand(in, env, e->u.compare.left);
    Value *result = NULL;
    for (int i = 0; i < e->u.compare.ops.len; i++) {
        const char *op = e->u.compare.ops.data[i];
        Value *right = eval_operand(in, env, e->u.compare.comparators.data[i]);
        bool identity = !strcmp(op, "is") || !strcmp(op, "is not");
        if (!identity && (left->kind == V_ERROR || right->kind == V_ERROR))
            fail_error_value(in, left->kind == V_ERROR ? left : right, e->loc);
        Value *r;
        if (!strcmp(op, "in") || !strcmp(op, "not in")) {
            bool found = false;
            if (right->kind == V_TUPLE || right->kind == V_LIST) {
                for (int k = 0; k < right->u.items.len && !found; k++)
                    found = values_equal(in, left, right->u.items.data[k]);
            } else if (right->kind == V_DICT) {
                found = dict_get(in, right, left) != NULL;
            } else if (right->kind == V_STR && left->kind == V_STR) {
                found = strstr(right->u.s, left->u.s) != NULL;
            } else {
                ctx_fail(in->ctx, e->loc, "'in' needs a tuple, list, dict or string");
            }
            r = val_bool(in, op[0] == 'i' ? found : !found);
        } else if (identity && (left->kind == V_ERROR || right->kind == V_ERROR)) {
            bool same = identity_with_error(in, left, right, e->loc);
            r = val_bool(in, !strcmp(op, "is") ? same : !same);
        } else if (identity) {
            bool same = (left->kind == V_NONE && right->kind == V_NONE) ||
                        (left->kind == right->kind && values_equal(in, left, right) &&
                         (left->kind == V_BOOL || left->kind == V_NONE || left == right ||
                          left->kind == V_DTYPE || left->kind == V_BUFFER));
            r = val_bool(in, !strcmp(op, "is") ? same : !same);
        } else {
            r = eval_binop(in, op, left, right, e->loc);
        }
        if (!result) result = r; /* a < b < c is (a < b) and (b < c) */
        else if (result->kind == V_EXPR || r->kind == V_EXPR)
            result = val_expr(in,
                              ir_bin(in->ctx, OP_AND, val_to_expr(in, result, e->loc, "comparison"),
                                     val_to_expr(in, r, e->loc, "comparison"), e->loc));
        else if (val_truthy(in, result, e->loc)) result = r;
        left = right;
    }
    return result;
}

static Value *eval_boolop(Interp *in, Env *env, Ast *e) {
    bool is_and = !strcmp(e->u.boolop.op, "and");
    Value *acc = NULL;
    for (int i = 0; i < e->u.boolop.values.len; i++) {
        Value *v = eval_expr(in, env, e->u.boolop.values.data[i]);
        if (v->kind == V_BUFFER && v->u.buf->scope == SCOPE_VAR)
            v = val_expr(in, val_to_expr(in, v, e->loc, "operand"));
        if (!acc) {
            acc = v;
        } else if (acc->kind == V_EXPR || v->kind == V_EXPR) {
            Expr *x = val_to_expr(in, acc, e->loc, "operand");
            Expr *y = val_to_expr(in, v, e->loc, "operand");
            acc = val_expr(in, ir_bin(in->ctx, is_and ? OP_AND : OP_OR, x, y, e->loc));
        } else {
            acc = v;
        }
        /* short-circuit on a compile-time value, as Python does */
        if (acc->kind != V_EXPR && val_truthy(in, acc, e->loc) != is_and) return acc;
    }
    return acc;
}

static Value *eval_ifexp(Interp *in, Env *env, Ast *e) {
    Value *c = eval_expr(in, env, e->u.ifexp.cond);
    if (c->kind == V_BUFFER && c->u.buf->scope == SCOPE_VAR)
        c = val_expr(in, val_to_expr(in, c, e->loc, "condition"));
    if (c->kind == V_EXPR && c->u.expr->kind != EXPR_INT) {
        Expr *t = val_to_expr(in, eval_expr(in, env, e->u.ifexp.then), e->loc, "value");
        Expr *f = val_to_expr(in, eval_expr(in, env, e->u.ifexp.orelse), e->loc, "value");
        return val_expr(in, ir_select(in->ctx, c->u.expr, t, f, e->loc));
    }
    return eval_expr(in, env, val_truthy(in, c, e->loc) ? e->u.ifexp.then : e->u.ifexp.orelse);
}

static Value *make_function(Interp *in, Env *env, Ast *def, const char *name) {
    Value *v = val_new(in, V_FUNC);
    Function *f = NEW(&in->ctx->arena, Function);
    f->def = def;
    f->closure = env;
    f->name = name;
    v->u.func = f;
    return v;
}

static void assign_target(Interp *in, Env *env, Ast *target, Value *v, Loc loc);
static Value *iterate_values(Interp *in, Value *it, Loc loc);

/* One for-clause (clause 0 is the node itself, then listcomp.more), recursively. */
static void listcomp_clause(Interp *in, Env *scope, Ast *e, int k, Value *out) {
    Ast *c = k == 0 ? e : e->u.listcomp.more.data[k - 1];
    Value *it = iterate_values(in, eval_expr(in, scope, c->u.listcomp.iter), c->loc);
    for (int i = 0; i < it->u.items.len; i++) {
        assign_target(in, scope, c->u.listcomp.target, it->u.items.data[i], c->loc);
        bool keep = true;
        for (int f = 0; f < c->u.listcomp.ifs.len && keep; f++)
            keep = val_truthy(in, eval_expr(in, scope, c->u.listcomp.ifs.data[f]), c->loc);
        if (!keep) continue;
        if (k < e->u.listcomp.more.len) listcomp_clause(in, scope, e, k + 1, out);
        else VEC_PUSH(&in->ctx->arena, out->u.items, eval_expr(in, scope, e->u.listcomp.elt));
    }
}

/* [elt for ... in ... if ...]; generator expressions are evaluated eagerly as lists. */
static Value *eval_listcomp(Interp *in, Env *env, Ast *e) {
    Value *out = val_new(in, V_LIST);
    listcomp_clause(in, env_new(in, env), e, 0, out);
    return out;
}

static Value *eval_call(Interp *in, Env *env, Ast *e) {
    Value *fn = eval_expr(in, env, e->u.call.func);
    CallArgs args = {.loc = e->loc};
    Arena *a = &in->ctx->arena;
    for (int i = 0; i < e->u.call.args.len; i++) {
        AstArg *arg = &e->u.call.args.data[i];
        Value *v = eval_expr(in, env, arg->value);
        if (arg->star == 1) {
            if (v->kind != V_TUPLE && v->kind != V_LIST)
                ctx_fail(in->ctx, arg->loc, "argument after * must be a tuple or list");
            for (int k = 0; k < v->u.items.len; k++) {
                VEC_PUSH(a, args.pos, v->u.items.data[k]);
                VEC_PUSH(a, args.pos_loc, arg->loc);
            }
        } else if (arg->star == 2) {
            if (v->kind != V_DICT) ctx_fail(in->ctx, arg->loc, "argument after ** must be a dict");
            for (int k = 0; k < v->u.dict.keys.len; k++) {
                Value *key = v->u.dict.keys.data[k];
                if (key->kind != V_STR) ctx_fail(in->ctx, arg->loc, "keywords must be strings");
                VEC_PUSH(a, args.names, key->u.s);
                VEC_PUSH(a, args.kw, v->u.dict.values.data[k]);
            }
        } else if (arg->name) {
            VEC_PUSH(a, args.names, arg->name);
            VEC_PUSH(a, args.kw, v);
        } else {
            VEC_PUSH(a, args.pos, v);
            VEC_PUSH(a, args.pos_loc, arg->value->loc);
        }
    }
    return call_value(in, fn, &args);
}

Value *eval_expr(Interp *in, Env *env, Ast *e) {
    Ctx *ctx = in->ctx;
    eval_work(in, 1, e->loc);
    switch (e->kind) {
    case AST_NAME: return lookup(in, env, e->u.name, e->loc);
    case AST_INT: return val_int(in, e->u.ival);
    case AST_FLOAT: return val_float(in, e->u.fval);
    case AST_STR:
        if (e->u.str.fstring) return val_str(in, e->u.str.value); /* kept raw: message text */
        return val_str(in, e->u.str.value);
    case AST_TRUE: return val_bool(in, true);
    case AST_FALSE: return val_bool(in, false);
    case AST_NONE: return val_none(in);
    case AST_ELLIPSIS: return val_new(in, V_ELLIPSIS);
    case AST_TUPLE: return make_seq(in, env, &e->u.elts, V_TUPLE);
    case AST_LIST: return make_seq(in, env, &e->u.elts, V_LIST);
    case AST_DICT: return eval_dict(in, env, e);
    case AST_ATTR: return eval_attr(in, env, e);
    case AST_CALL: return eval_call(in, env, e);
    case AST_SUBSCRIPT: return eval_subscript(in, env, e);
    case AST_SLICE: return eval_slice(in, env, e);
    case AST_UNARY:
        return eval_unary(in, e->u.unary.op, eval_expr(in, env, e->u.unary.operand), e->loc);
    case AST_BINARY:
        return eval_binop(in, e->u.binary.op, eval_expr(in, env, e->u.binary.left),
                          eval_expr(in, env, e->u.binary.right), e->loc);
    case AST_COMPARE: return eval_compare(in, env, e);
    case AST_BOOLOP: return eval_boolop(in, env, e);
    case AST_IFEXP: return eval_ifexp(in, env, e);
    case AST_LAMBDA: return make_function(in, env, e, "<lambda>");
    case AST_LISTCOMP: return eval_listcomp(in, env, e);
    case AST_STARRED: ctx_fail(ctx, e->loc, "a starred expression is not allowed here");
    default: ctx_fail(ctx, e->loc, "this expression is not supported (%s)", ast_kind_name(e->kind));
    }
}

/* ---- calls ------------------------------------------------------------------------ */
void args_bind(Interp *in, CallArgs *args, const char *fname, const char *spec, Value **out,
               int nout) {
    const char *names[24];
    bool optional[24];
    int n = 0, nreq = 0, rest = -1;
    Arena *a = &in->ctx->arena;
    for (const char *p = spec; *p && n < 24;) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        const char *s = p;
        while (*p && *p != ',' && *p != '=') p++;
        names[n] = arena_strndup(a, s, (size_t)(p - s));
        optional[n] = *p == '=';
        if (*p == '=') p++;
        if (names[n][0] == '*') rest = n;
        if (!optional[n] && names[n][0] != '*') nreq = n + 1;
        n++;
    }
    TL_ASSERT(n <= nout);
    for (int i = 0; i < nout; i++) out[i] = NULL;
    int npos = args->pos.len;
    int maxpos = rest >= 0 ? 1 << 20 : n;
    if (npos > maxpos)
        ctx_fail(in->ctx, args->loc,
                 "%s() takes at most %d positional argument%s but %d were "
                 "given",
                 fname, n, n == 1 ? "" : "s", npos);
    for (int i = 0; i < npos && i < n && names[i][0] != '*'; i++) out[i] = args->pos.data[i];
    for (int k = 0; k < args->kw.len; k++) {
        const char *kn = args->names.data[k];
        int idx = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(names[i], kn)) idx = i;
        if (idx < 0)
            ctx_fail(in->ctx, args->loc, "%s() got an unexpected keyword argument '%s'", fname, kn);
        if (out[idx])
            ctx_fail(in->ctx, args->loc, "%s() got multiple values for argument '%s'", fname, kn);
        out[idx] = args->kw.data[k];
    }
    for (int i = 0; i < nreq; i++)
        if (!out[i] && names[i][0] != '*')
            ctx_fail(in->ctx, args->loc, "%s() missing required argument '%s'", fname, names[i]);
}

/* `x: T.Ref` on a T.macro parameter: the argument is passed by reference. */
static bool is_ref_annotation(const Ast *a) {
    return a && ((a->kind == AST_ATTR && !strcmp(a->u.attr.attr, "Ref")) ||
                 (a->kind == AST_NAME && !strcmp(a->u.name, "Ref")));
}

/* A T.Ref argument (TileLang's macro_arg): a T.alloc_var as itself, a buffer element
 * x[i] as a reference to it, its indices evaluated here once. */
static Value *macro_ref(Interp *in, const char *name, Value *v, Loc loc) {
    if (v->kind == V_BUFFER && v->u.buf->scope == SCOPE_VAR) return v;
    Expr *e = v->kind == V_EXPR ? v->u.expr : NULL;
    if (!e || e->kind != EXPR_LOAD)
        ctx_fail(in->ctx, loc,
                 "to pass as reference (T.Ref), argument '%s' must be a T.alloc_var or a "
                 "buffer element x[i], got %s",
                 name, val_describe(in, v));
    Buffer *b = e->u.load.buf;
    if (b->scope == SCOPE_VAR) {
        Value *r = val_new(in, V_BUFFER);
        r->u.buf = b;
        return r;
    }
    Value *r = val_new(in, V_REF);
    r->u.ptr.buf = b;
    r->u.ptr.idx = NEW_ARRAY(&in->ctx->arena, Expr *, b->ndim + 1);
    for (int d = 0; d < b->ndim; d++) {
        Expr *x = e->u.load.idx[d];
        if (x->kind != EXPR_INT && x->kind != EXPR_VAR) { /* fixed at the call */
            Var *var = ir_var(in->ctx, "_", x->dtype);
            Stmt *s = ir_stmt(in->ctx, STMT_LET, loc);
            s->u.let.var = var;
            s->u.let.value = x;
            emit_stmt(in, s);
            x = ir_varref(in->ctx, var, loc);
        }
        r->u.ptr.idx[d] = x;
    }
    return r;
}

static void bind_params(Interp *in, Function *f, Env *scope, CallArgs *args) {
    Ast *def = f->def;
    AstArgList *params = def->kind == AST_DEF ? &def->u.def.params : &def->u.lambda.params;
    int npos = args->pos.len, used_pos = 0;
    bool *kw_used = NEW_ARRAY(&in->ctx->arena, bool, args->kw.len + 1);
    for (int i = 0; i < params->len; i++) {
        AstArg *p = &params->data[i];
        if (p->star == 1) {
            Value *t = val_new(in, V_TUPLE);
            while (used_pos < npos)
                VEC_PUSH(&in->ctx->arena, t->u.items, args->pos.data[used_pos++]);
            if (p->name) env_set(in, scope, p->name, t);
            continue;
        }
        if (p->star == 2) {
            Value *d = val_new(in, V_DICT);
            for (int k = 0; k < args->kw.len; k++) {
                if (kw_used[k]) continue;
                kw_used[k] = true;
                VEC_PUSH(&in->ctx->arena, d->u.dict.keys, val_str(in, args->names.data[k]));
                VEC_PUSH(&in->ctx->arena, d->u.dict.values, args->kw.data[k]);
            }
            env_set(in, scope, p->name, d);
            continue;
        }
        Value *v = NULL;
        if (used_pos < npos) v = args->pos.data[used_pos++];
        for (int k = 0; k < args->kw.len; k++)
            if (!kw_used[k] && !strcmp(args->names.data[k], p->name)) {
                if (v)
                    ctx_fail(in->ctx, args->loc, "%s() got multiple values for argument '%s'",
                             f->name, p->name);
                v = args->kw.data[k];
                kw_used[k] = true;
            }
        if (!v && f->defaults) v = env_get(f->defaults, p->name);
        if (!v && p->value) v = eval_expr(in, f->closure, p->value);
        if (!v)
            ctx_fail(in->ctx, args->loc, "%s() missing required argument '%s'", f->name, p->name);
        if (f->is_macro && is_ref_annotation(p->annotation))
            v = macro_ref(in, p->name, v, args->loc);
        env_set(in, scope, p->name, v);
    }
    if (used_pos < npos)
        ctx_fail(in->ctx, args->loc, "%s() takes %d positional arguments but %d were given",
                 f->name, used_pos, npos);
    for (int k = 0; k < args->kw.len; k++)
        if (!kw_used[k])
            ctx_fail(in->ctx, args->loc, "%s() got an unexpected keyword argument '%s'", f->name,
                     args->names.data[k]);
}

static Value *call_function(Interp *in, Function *f, CallArgs *args) {
    if (f->is_prim_func)
        ctx_fail(in->ctx, args->loc,
                 "calling a @T.prim_func from another kernel is not "
                 "supported; use @T.macro for helpers");
    if (++in->depth > EVAL_MAX_DEPTH)
        ctx_fail(in->ctx, args->loc, "recursion too deep (more than %d nested calls)",
                 EVAL_MAX_DEPTH);
    Env *scope = env_new(in, f->closure);
    bind_params(in, f, scope, args);
    Value *ret;
    if (f->def->kind == AST_LAMBDA) {
        ret = eval_expr(in, scope, f->def->u.lambda.body);
    } else {
        exec_block(in, scope, &f->def->u.def.body);
        ret = in->flow == FLOW_RETURN && in->retval ? in->retval : val_none(in);
        if (in->flow == FLOW_BREAK || in->flow == FLOW_CONTINUE)
            ctx_fail(in->ctx, f->def->loc, "'break' or 'continue' outside a loop");
        in->flow = FLOW_NORMAL;
        in->retval = NULL;
    }
    in->depth--;
    return ret;
}

/* A call from the user's code into libtilec's embedded Python (compat/intrinsics): an
 * error inside it is reported at the user's call, with the place in tilec's helper as a
 * note. */
static bool embedded_function(const Function *f) {
    const Source *src = f->def->loc.src;
    return src && !strncmp(src->name, "<tilec ", 7);
}

static Value *call_embedded(Interp *in, Function *f, CallArgs *args) {
    jmp_buf jb, *outer = in->ctx->on_error;
    in->embedded++;
    if (CTX_TRY(in->ctx, &jb)) {
        in->ctx->on_error = outer;
        in->embedded--;
        const char *text = in->ctx->err.buf ? in->ctx->err.buf : "";
        const char *msg = strstr(text, ": error: ");
        if (in->ctx->internal || !msg) longjmp(*outer, 1);
        const char *where = arena_strndup(&in->ctx->arena, text, (size_t)(msg - text));
        msg += 9;
        const char *line = arena_strndup(&in->ctx->arena, msg, strcspn(msg, "\n"));
        sb_free(&in->ctx->err);
        loc_format(&in->ctx->err, args->loc, "error", line);
        sb_printf(&in->ctx->err, "(raised at %s, in tilec's TileLang helpers)\n", where);
        longjmp(*outer, 1);
    }
    Value *r = call_function(in, f, args);
    in->ctx->on_error = outer;
    in->embedded--;
    return r;
}

Value *call_value(Interp *in, Value *fn, CallArgs *args) {
    switch (fn->kind) {
    case V_FUNC:
        if (!in->embedded && embedded_function(fn->u.func))
            return call_embedded(in, fn->u.func, args);
        return call_function(in, fn->u.func, args);
    case V_BUILTIN: return fn->u.builtin->fn(in, args, fn->u.builtin->data);
    case V_VEC_DTYPE: return vec_dtype_call(in, fn, args);
    case V_DTYPE: { /* T.float32(x): a cast; a Python number becomes a typed constant */
        DType t = fn->u.dtype;
        if (args->pos.len != 1 || args->kw.len)
            ctx_fail(in->ctx, args->loc, "%s() takes exactly one argument", dtype_name(t));
        Value *x = args->pos.data[0];
        if (is_num(x) && dtype_is_float(t))
            return val_expr(in, ir_float(in->ctx, num_f(x), t, args->loc));
        return val_expr(in,
                        ir_cast(in->ctx, t, val_to_expr(in, x, args->loc, "argument"), args->loc));
    }
    case V_OPAQUE:
    case V_MODULE: return module_attr(in, fn, "__call__", args->loc);
    case V_OBJECT:
        if (fn->u.obj.cls) return call_class(in, fn, args);
        ctx_fail(in->ctx, args->loc, "%s is not callable", val_describe(in, fn));
    case V_ERROR: fail_error_value(in, fn, args->loc);
    default: ctx_fail(in->ctx, args->loc, "%s is not callable", val_describe(in, fn));
    }
}

/* ---- statements ------------------------------------------------------------------- */
static Value *iterate_values(Interp *in, Value *it, Loc loc) {
    if (it->kind == V_TUPLE || it->kind == V_LIST) return it;
    if (it->kind == V_DICT) {
        Value *r = val_new(in, V_LIST);
        r->u.items = it->u.dict.keys;
        return r;
    }
    if (it->kind == V_STR) {
        Value *r = val_new(in, V_LIST);
        for (const char *p = it->u.s; *p; p++)
            VEC_PUSH(&in->ctx->arena, r->u.items,
                     val_str(in, arena_strndup(&in->ctx->arena, p, 1)));
        return r;
    }
    if (it->kind == V_LOOP && it->u.loop->kind == LOOP_SERIAL && it->u.loop->n == 1 &&
        it->u.loop->annot && !strcmp(it->u.loop->annot, "range")) {
        int64_t lo, n;
        if (ir_is_const_int(it->u.loop->min[0], &lo) &&
            ir_is_const_int(it->u.loop->extent[0], &n)) {
            eval_elements(in, n, loc);
            Value *r = val_new(in, V_LIST);
            for (int64_t i = 0; i < n; i++)
                VEC_PUSH(&in->ctx->arena, r->u.items, val_int(in, lo + i));
            return r;
        }
    }
    ctx_fail(in->ctx, loc, "cannot iterate over %s here", val_describe(in, it));
}

/* buf[idx] = v (idx NULL: the element of a T.alloc_var) */
static void assign_element(Interp *in, Buffer *buf, Expr **idx, Value *v, Loc loc) {
    if (!idx) {
        idx = NEW_ARRAY(&in->ctx->arena, Expr *, 1);
        idx[0] = ir_int(in->ctx, 0, DT_INT32, loc);
    }
    Stmt *s = ir_stmt(in->ctx, STMT_STORE, loc);
    s->u.store.buf = buf;
    s->u.store.idx = idx;
    Expr *e = val_to_expr(in, v, loc, "value");
    s->u.store.value = ir_cast(in->ctx, buf->dtype, e, loc);
    emit_stmt(in, s);
}

void buffer_store(Interp *in, Buffer *buf, Value *index, Value *v, Loc loc);

/* Binds a name. Inside a kernel a non-constant expression gets a LET so that it is
 * evaluated once, where the program computes it. */
static void assign_name(Interp *in, Env *env, const char *name, Value *v, Loc loc) {
    if (v->kind == V_BUFFER && !strncmp(v->u.buf->name, "__tmp", 5)) v->u.buf->name = name;
    if (in->builder) {
        Value *old = NULL;
        for (int i = 0; i < env->vars.len; i++)
            if (!strcmp(env->vars.data[i].name, name)) old = env->vars.data[i].value;
        if (old && old->kind == V_BUFFER && old->u.buf->scope == SCOPE_VAR && v->kind != V_BUFFER) {
            assign_element(in, old->u.buf, NULL, v, loc);
            return;
        }
        if (vec_assign_name(in, old, &v, name, loc)) return;
        if (old && old->kind == V_REF) { /* a T.Ref parameter: store through it */
            assign_element(in, old->u.ptr.buf, old->u.ptr.idx, v, loc);
            return;
        }
        if (v->kind == V_EXPR && v->u.expr->kind != EXPR_INT && v->u.expr->kind != EXPR_FLOAT &&
            v->u.expr->kind != EXPR_VAR) {
            Var *var = ir_var(in->ctx, name, v->u.expr->dtype);
            if (!ir_expr_loads(v->u.expr)) var->let_value = v->u.expr;
            var->bound_value = v->u.expr;
            Stmt *s = ir_stmt(in->ctx, STMT_LET, loc);
            s->u.let.var = var;
            s->u.let.value = v->u.expr;
            emit_stmt(in, s);
            v = val_expr(in, ir_varref(in->ctx, var, loc));
        }
    }
    env_set(in, env, name, v);
}

/* The value of item v of a tuple assigned to several targets, read before any of them is
 * stored (Python evaluates the right side first: `x[0], x[1] = x[1], x[0]` swaps): a
 * run-time value that loads memory becomes a let of its own. */
static Value *unpacked_item(Interp *in, Value *v, Loc loc) {
    if (v->kind != V_EXPR || !ir_expr_loads(v->u.expr)) return v;
    Var *var = ir_var(in->ctx, "tl_item", v->u.expr->dtype);
    Stmt *s = ir_stmt(in->ctx, STMT_LET, loc);
    s->u.let.var = var;
    s->u.let.value = v->u.expr;
    emit_stmt(in, s);
    return val_expr(in, ir_varref(in->ctx, var, loc));
}

static void assign_target(Interp *in, Env *env, Ast *target, Value *v, Loc loc) {
    switch (target->kind) {
    case AST_NAME: assign_name(in, env, target->u.name, v, loc); return;
    case AST_TUPLE:
    case AST_LIST: {
        if (v->kind != V_TUPLE && v->kind != V_LIST)
            ctx_fail(in->ctx, target->loc, "cannot unpack %s into %d names", val_describe(in, v),
                     target->u.elts.len);
        if (v->u.items.len != target->u.elts.len)
            ctx_fail(in->ctx, target->loc, "cannot unpack %d values into %d names", v->u.items.len,
                     target->u.elts.len);
        Value **items = NEW_ARRAY(&in->ctx->arena, Value *, v->u.items.len + 1);
        for (int i = 0; i < v->u.items.len; i++)
            items[i] = v->u.items.len > 1 ? unpacked_item(in, v->u.items.data[i], loc)
                                          : v->u.items.data[i];
        for (int i = 0; i < target->u.elts.len; i++)
            assign_target(in, env, target->u.elts.data[i], items[i], loc);
        return;
    }
    case AST_SUBSCRIPT: {
        Value *base = eval_expr(in, env, target->u.subscript.value);
        Value *idx = eval_expr(in, env, target->u.subscript.index);
        if (base->kind == V_BUFFER) {
            buffer_store(in, base->u.buf, idx, v, target->loc);
            return;
        }
        if (base->kind == V_LIST) {
            int64_t i = norm_index(in, val_to_int(in, idx, loc, "index"), base->u.items.len, loc);
            base->u.items.data[i] = v;
            return;
        }
        if (base->kind == V_DICT) {
            for (int i = 0; i < base->u.dict.keys.len; i++)
                if (values_equal(in, base->u.dict.keys.data[i], idx)) {
                    base->u.dict.values.data[i] = v;
                    return;
                }
            VEC_PUSH(&in->ctx->arena, base->u.dict.keys, idx);
            VEC_PUSH(&in->ctx->arena, base->u.dict.values, v);
            return;
        }
        ctx_fail(in->ctx, target->loc, "cannot assign to an item of %s", val_describe(in, base));
    }
    case AST_ATTR: {
        Value *base = eval_expr(in, env, target->u.attr.value);
        if (base->kind != V_OBJECT || base->u.obj.cls)
            ctx_fail(in->ctx, target->loc,
                     "assigning to attributes is supported on objects "
                     "only, not on %s",
                     val_describe(in, base));
        object_set_attr(in, base, target->u.attr.attr, v);
        return;
    }
    default: ctx_fail(in->ctx, target->loc, "cannot assign to this expression");
    }
}

static void exec_augassign(Interp *in, Env *env, Ast *s) {
    char op[4] = {0};
    size_t n = strlen(s->u.augassign.op) - 1; /* "+=" -> "+" */
    memcpy(op, s->u.augassign.op, n < 3 ? n : 3);
    Ast *t = s->u.augassign.target;
    Value *rhs = eval_expr(in, env, s->u.augassign.value);
    if (t->kind == AST_SUBSCRIPT) {
        Value *base = eval_expr(in, env, t->u.subscript.value);
        Value *idx = eval_expr(in, env, t->u.subscript.index);
        if (base->kind == V_BUFFER && base->u.buf->reducer) { /* T.alloc_reducer */
            if (strcmp(op, "+"))
                ctx_fail(in->ctx, s->loc, "a T.alloc_reducer buffer takes `+=` only");
            CallArgs ca = {.loc = s->loc};
            VEC_PUSH(&in->ctx->arena, ca.pos, buffer_subscript(in, base->u.buf, idx, t->loc));
            VEC_PUSH(&in->ctx->arena, ca.pos, rhs);
            call_value(in, tl_lang_attr(in, "atomic_add", s->loc), &ca);
            return;
        }
        if (base->kind == V_BUFFER) {
            Value *old = buffer_subscript(in, base->u.buf, idx, t->loc);
            buffer_store(in, base->u.buf, idx, eval_binop(in, op, old, rhs, s->loc), t->loc);
            return;
        }
    }
    Value *old = eval_expr(in, env, t);
    assign_target(in, env, t, eval_binop(in, op, old, rhs, s->loc), s->loc);
}

/* ---- IR scopes ----------------------------------------------------------------------- */
/* Names bound inside a kernel loop, `if` or `with T.Kernel` body to run-time values (loop
 * variables, lets, buffers) do not exist after it; Python would keep them, so using them
 * afterwards is a clear error instead of IR that refers to an out-of-scope variable. */
ScopeMark scope_begin(Interp *in, Env *env) {
    ScopeMark m = {env->vars.len, NEW_ARRAY(&in->ctx->arena, Value *, env->vars.len + 1)};
    for (int i = 0; i < env->vars.len; i++) m.vals[i] = env->vars.data[i].value;
    return m;
}

static bool is_scoped_value(const Value *v) {
    if (v->kind == V_EXPR) return v->u.expr->kind != EXPR_INT && v->u.expr->kind != EXPR_FLOAT;
    if (v->kind == V_BUFFER) return v->u.buf->scope != SCOPE_GLOBAL;
    return v->kind == V_REGION;
}

void scope_end(Interp *in, Env *env, ScopeMark m, Loc loc, const char *what) {
    for (int i = 0; i < env->vars.len; i++) {
        Value *v = env->vars.data[i].value;
        if ((i < m.len && v == m.vals[i]) || !is_scoped_value(v)) continue;
        Value *e = val_new(in, V_ERROR);
        e->u.error.use_msg = arena_printf(&in->ctx->arena,
                                          "'%s' is not available here: it was "
                                          "defined inside a kernel %s that has ended",
                                          env->vars.data[i].name, what);
        e->u.error.note = arena_printf(&in->ctx->arena, "the %s that defines '%s'", what,
                                       env->vars.data[i].name);
        e->u.error.loc = loc;
        env->vars.data[i].value = e;
    }
}

/* Runs a nested block into a fresh SEQ and returns it (kernel bodies, loop bodies). */
Stmt *exec_into_seq(Interp *in, Env *env, AstList *body, Loc loc) {
    Stmt *saved = in->builder;
    Stmt *seq = ir_seq(in->ctx, loc);
    in->builder = seq;
    exec_block(in, env, body);
    in->builder = saved;
    return seq;
}

/* T.Persistent (TileLang's PersistentFor): a serial loop over waves w; in wave w this block
 * takes tile r = w * wave + index of the domain regrouped as [ceil(last / g), domain[0..n-2],
 * g] (g = group_size clamped to 1..last: tiles walk g rows of the last dimension at a
 * time, for L2 reuse); the body runs when the last coordinate falls inside the domain. */
static void exec_for_persistent(Interp *in, Env *env, Ast *s, LoopSpec *L, AstList names) {
    Ctx *ctx = in->ctx;
    Loc loc = s->loc;
    int n = L->n, G = n + 1;
#define B(op, x, y) ir_bin(ctx, op, x, y, loc)
    Expr *one = ir_int(ctx, 1, DT_INT32, loc), *last = L->extent[n - 1];
    Expr *g = B(OP_MAX, one, B(OP_MIN, L->group, last));
    Expr *gd[9];
    gd[0] = B(OP_FLOORDIV, B(OP_SUB, B(OP_ADD, last, g), one), g);
    for (int k = 0; k < n - 1; k++) gd[k + 1] = L->extent[k];
    gd[G - 1] = g;
    Expr *padded = gd[0];
    for (int k = 1; k < G; k++) padded = B(OP_MUL, padded, gd[k]);
    Var *w = ir_var(ctx, "w", DT_INT32);
    Expr *rem = B(OP_ADD, B(OP_MUL, ir_varref(ctx, w, loc), L->wave), L->index), *idx[9];
    for (int k = G - 1; k >= 1; k--) {
        idx[k] = B(OP_FLOORMOD, rem, gd[k]);
        rem = B(OP_FLOORDIV, rem, gd[k]);
    }
    idx[0] = rem;
    Expr *lastc = B(OP_ADD, B(OP_MUL, idx[0], g), idx[G - 1]);
    ScopeMark mark = scope_begin(in, env);
    for (int k = 0; k < n; k++) {
        Ast *nm = names.data[k];
        if (nm->kind != AST_NAME) ctx_fail(ctx, nm->loc, "loop variables must be names");
        env_set(in, env, nm->u.name, val_expr(in, k < n - 1 ? idx[k + 1] : lastc));
    }
    Stmt *guard = ir_stmt(ctx, STMT_IF, loc);
    guard->u.if_.cond = B(OP_LT, lastc, last);
    guard->u.if_.then = exec_into_seq(in, env, &s->u.for_.body, loc);
    scope_end(in, env, mark, loc, "loop");
    Stmt *f = ir_stmt(ctx, STMT_FOR, loc);
    f->u.for_.var = w, f->u.for_.min = ir_int(ctx, 0, DT_INT32, loc);
    f->u.for_.extent = B(OP_FLOORDIV, B(OP_SUB, B(OP_ADD, padded, L->wave), one), L->wave);
    f->u.for_.kind = LOOP_SERIAL, f->u.for_.body = guard;
#undef B
    if (in->flow == FLOW_RETURN) ctx_fail(ctx, loc, "'return' inside a kernel loop");
    in->flow = FLOW_NORMAL;
    emit_stmt(in, f);
}

static void exec_for_ir(Interp *in, Env *env, Ast *s, LoopSpec *L) {
    Ast *target = s->u.for_.target;
    int n = L->n;
    AstList names = {0};
    if (n == 1) {
        VEC_PUSH(&in->ctx->arena, names, target);
    } else {
        if ((target->kind != AST_TUPLE && target->kind != AST_LIST) || target->u.elts.len != n)
            ctx_fail(in->ctx, target->loc, "this loop has %d dimensions: write %d loop variables",
                     n, n);
        names = target->u.elts;
    }
    if (s->u.for_.orelse.len)
        ctx_fail(in->ctx, s->loc, "'for ... else' is not supported in kernels");
    if (L->wave) {
        exec_for_persistent(in, env, s, L, names);
        return;
    }
    Stmt *outer = NULL, *inner_parent = NULL;
    ScopeMark mark = scope_begin(in, env);
    in->parallel_depth += L->kind == LOOP_PARALLEL;
    for (int d = 0; d < n; d++) {
        Ast *nm = names.data[d];
        if (nm->kind != AST_NAME) ctx_fail(in->ctx, nm->loc, "loop variables must be names");
        Var *v = ir_var(in->ctx, nm->u.name, DT_INT32);
        Expr *at = ir_varref(in->ctx, v, nm->loc); /* a stepped loop counts from 0 */
        if (L->step)
            at = ir_bin(in->ctx, OP_ADD, L->min[d], ir_bin(in->ctx, OP_MUL, at, L->step, nm->loc),
                        nm->loc);
        env_set(in, env, nm->u.name, val_expr(in, at));
        Stmt *f = ir_stmt(in->ctx, STMT_FOR, s->loc);
        f->u.for_.var = v;
        f->u.for_.min = L->step ? ir_int(in->ctx, 0, DT_INT32, nm->loc) : L->min[d];
        f->u.for_.extent = L->extent[d];
        f->u.for_.kind = L->kind;
        f->u.for_.num_stages = L->num_stages;
        f->u.for_.annot = L->annot && strcmp(L->annot, "range") ? L->annot : NULL;
        f->u.for_.sched = L->sched;
        if (!outer) outer = f;
        else inner_parent->u.for_.body = f;
        inner_parent = f;
    }
    inner_parent->u.for_.body = exec_into_seq(in, env, &s->u.for_.body, s->loc);
    in->parallel_depth -= L->kind == LOOP_PARALLEL;
    scope_end(in, env, mark, s->loc, "loop");
    if (in->flow == FLOW_RETURN) ctx_fail(in->ctx, s->loc, "'return' inside a kernel loop");
    in->flow = FLOW_NORMAL;
    emit_stmt(in, outer);
}

static void exec_for(Interp *in, Env *env, Ast *s) {
    Value *it = eval_expr(in, env, s->u.for_.iter);
    if (it->kind == V_LOOP) {
        int64_t n;
        bool const_range = it->u.loop->annot && !strcmp(it->u.loop->annot, "range") &&
                           ir_is_const_int(it->u.loop->extent[0], &n);
        if (in->builder && !(const_range && !in->in_kernel)) {
            exec_for_ir(in, env, s, it->u.loop);
            return;
        }
        if (!const_range)
            ctx_fail(in->ctx, s->loc, "%s loops are only allowed inside a kernel",
                     loop_kind_name(it->u.loop->kind));
    }
    Value *items = iterate_values(in, it, s->loc);
    for (int i = 0; i < items->u.items.len; i++) {
        assign_target(in, env, s->u.for_.target, items->u.items.data[i], s->loc);
        exec_block(in, env, &s->u.for_.body);
        if (in->flow == FLOW_BREAK) {
            in->flow = FLOW_NORMAL;
            return;
        }
        if (in->flow == FLOW_CONTINUE) in->flow = FLOW_NORMAL;
        if (in->flow == FLOW_RETURN) return;
    }
    exec_block(in, env, &s->u.for_.orelse);
}

static Value *cond_value(Interp *in, Env *env, Ast *cond) {
    Value *c = eval_expr(in, env, cond);
    if (c->kind == V_BUFFER && c->u.buf->scope == SCOPE_VAR)
        c = val_expr(in, val_to_expr(in, c, cond->loc, "condition"));
    return c;
}

static void exec_if(Interp *in, Env *env, Ast *s) {
    Value *c = cond_value(in, env, s->u.if_.cond);
    if (c->kind == V_EXPR && c->u.expr->kind != EXPR_INT) {
        Stmt *st = ir_stmt(in->ctx, STMT_IF, s->loc);
        st->u.if_.cond = c->u.expr;
        ScopeMark mark = scope_begin(in, env);
        st->u.if_.then = exec_into_seq(in, env, &s->u.if_.body, s->loc);
        scope_end(in, env, mark, s->loc, "'if' body");
        if (in->flow == FLOW_RETURN)
            ctx_fail(in->ctx, s->loc, "'return' under a run-time condition");
        mark = scope_begin(in, env);
        if (s->u.if_.orelse.len)
            st->u.if_.orelse = exec_into_seq(in, env, &s->u.if_.orelse, s->loc);
        scope_end(in, env, mark, s->loc, "'else' body");
        if (in->flow == FLOW_RETURN)
            ctx_fail(in->ctx, s->loc, "'return' under a run-time condition");
        emit_stmt(in, st);
        return;
    }
    exec_block(in, env, val_truthy(in, c, s->loc) ? &s->u.if_.body : &s->u.if_.orelse);
}

static void find_cross_thread(Expr **slot, void *ud) {
    Expr *e = *slot;
    if (e->kind == EXPR_CALL && intrinsic_reads_threads(e->u.call.fn)) *(bool *)ud = true;
    else ir_expr_children(e, find_cross_thread, ud);
}

/* Statements that evaluating a run-time `while` condition emitted (from index `from` of
 * the builder) run once, before the loop: an error when they shuffle or vote across the
 * warp (tileops_thread.c makes each such call a let of its own), whose values the loop
 * would never renew. */
static void while_cond_stmts(Interp *in, int from, Loc loc) {
    bool found = false;
    for (int i = from; in->builder && i < in->builder->u.seq.len; i++)
        ir_stmt_exprs(in->builder->u.seq.data[i], find_cross_thread, &found);
    if (found)
        ctx_fail(in->ctx, loc,
                 "a warp shuffle or vote (or a warp reduction) in a `while` condition is not "
                 "supported: it would run once, before the loop");
}

static void exec_while(Interp *in, Env *env, Ast *s) {
    int before = in->builder ? in->builder->u.seq.len : 0;
    Value *c = cond_value(in, env, s->u.if_.cond);
    if (c->kind == V_EXPR && c->u.expr->kind != EXPR_INT) {
        while_cond_stmts(in, before, s->loc);
        if (in->builder->u.seq.len != before) /* (T.call_extern, T.ldg32: statements) */
            ctx_fail(in->ctx, s->loc,
                     "this `while` condition makes a call that runs once, before the loop; "
                     "make it in the loop (`while True:` ... `if not cond: break`)");
        Stmt *st = ir_stmt(in->ctx, STMT_WHILE, s->loc);
        st->u.while_.cond = c->u.expr;
        ScopeMark mark = scope_begin(in, env);
        st->u.while_.body = exec_into_seq(in, env, &s->u.if_.body, s->loc);
        scope_end(in, env, mark, s->loc, "loop");
        in->flow = FLOW_NORMAL;
        emit_stmt(in, st);
        return;
    }
    for (int iter = 0; val_truthy(in, c, s->loc); iter++) {
        if (iter > 1000000) ctx_fail(in->ctx, s->loc, "compile-time loop does not terminate");
        exec_block(in, env, &s->u.if_.body);
        if (in->flow == FLOW_BREAK) {
            in->flow = FLOW_NORMAL;
            return;
        }
        if (in->flow == FLOW_CONTINUE) in->flow = FLOW_NORMAL;
        if (in->flow == FLOW_RETURN) return;
        c = cond_value(in, env, s->u.if_.cond);
    }
}

void exec_with(Interp *in, Env *env, Ast *s);   /* builtins.c: T.Kernel */
void exec_import(Interp *in, Env *env, Ast *s); /* builtins.c */
void exec_def(Interp *in, Env *env, Ast *s);    /* builtins.c: decorators */

static void exec_loop_jump(Interp *in, Ast *s, int flow) {
    if (in->builder && in->in_kernel) {
        Stmt *st = ir_stmt(in->ctx, flow == FLOW_BREAK ? STMT_BREAK : STMT_CONTINUE, s->loc);
        emit_stmt(in, st);
        return;
    }
    in->flow = flow;
}

static void exec_assert(Interp *in, Env *env, Ast *s) {
    Value *c = cond_value(in, env, s->u.assert_.cond);
    const char *msg = "";
    if (s->u.assert_.msg) {
        Value *m = eval_expr(in, env, s->u.assert_.msg);
        msg = m->kind == V_STR ? m->u.s : val_describe(in, m);
    }
    if (c->kind == V_EXPR && c->u.expr->kind != EXPR_INT) {
        Stmt *st = ir_stmt(in->ctx, STMT_ASSERT, s->loc);
        st->u.assert_.cond = c->u.expr;
        st->u.assert_.msg = msg;
        emit_stmt(in, st);
        return;
    }
    if (!val_truthy(in, c, s->loc))
        ctx_fail(in->ctx, s->loc, "assertion failed%s%s", *msg ? ": " : "", msg);
}

/* Python statements that have no meaning inside a kernel body. */
static void reject_in_kernel(Interp *in, Ast *s) {
    static const struct {
        AstKind k;
        const char *what;
    } bad[] = {
        {AST_CLASS, "'class'"},
        {AST_DEL, "'del'"},
        {AST_GLOBAL, "'global'/'nonlocal'"},
        {AST_TRY, "'try'"},
        {AST_RAISE, "'raise'"},
        {AST_IMPORT, "'import'"},
        {AST_IMPORT_FROM, "'import'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (s->kind == bad[i].k)
            ctx_fail(in->ctx, s->loc, "%s is not supported inside a kernel", bad[i].what);
}

static void exec_stmt(Interp *in, Env *env, Ast *s) {
    eval_work(in, 1, s->loc);
    if (in->builder) reject_in_kernel(in, s);
    switch (s->kind) {
    case AST_EXPR_STMT: eval_expr(in, env, s->u.expr_stmt.value); return;
    case AST_ASSIGN: {
        Value *v = eval_expr(in, env, s->u.assign.value);
        for (int i = 0; i < s->u.assign.targets.len; i++)
            assign_target(in, env, s->u.assign.targets.data[i], v, s->loc);
        return;
    }
    case AST_AUGASSIGN: exec_augassign(in, env, s); return;
    case AST_ANNASSIGN:
        if (eager_declare(in, env, s)) return;
        if (s->u.annassign.value)
            assign_target(in, env, s->u.annassign.target, eval_expr(in, env, s->u.annassign.value),
                          s->loc);
        return;
    case AST_DEF: exec_def(in, env, s); return;
    case AST_RETURN:
        in->retval = s->u.expr_stmt.value ? eval_expr(in, env, s->u.expr_stmt.value) : val_none(in);
        in->flow = FLOW_RETURN;
        return;
    case AST_IF: exec_if(in, env, s); return;
    case AST_FOR: exec_for(in, env, s); return;
    case AST_WHILE: exec_while(in, env, s); return;
    case AST_WITH: exec_with(in, env, s); return;
    case AST_BREAK: exec_loop_jump(in, s, FLOW_BREAK); return;
    case AST_CONTINUE: exec_loop_jump(in, s, FLOW_CONTINUE); return;
    case AST_PASS:
    case AST_GLOBAL:
    case AST_DEL: return;
    case AST_ASSERT: exec_assert(in, env, s); return;
    case AST_IMPORT:
    case AST_IMPORT_FROM: exec_import(in, env, s); return;
    case AST_TRY: exec_block(in, env, &s->u.body); return;
    case AST_RAISE: ctx_fail(in->ctx, s->loc, "the program raised an exception here");
    case AST_CLASS: exec_class(in, env, s); return;
    case AST_BAD_STMT: {
        StrBuf *err = &in->ctx->err;
        sb_free(err);
        sb_puts(err, s->u.bad.error);
        longjmp(*in->ctx->on_error, 1);
    }
    default: ctx_fail(in->ctx, s->loc, "this statement is not supported here");
    }
}

void exec_block(Interp *in, Env *env, AstList *body) {
    for (int i = 0; i < body->len && in->flow == FLOW_NORMAL; i++)
        exec_stmt(in, env, body->data[i]);
}
