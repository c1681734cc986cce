/* builtins.c - the names a kernel program can reach: Python builtins, the `T` namespace
 * (tilelang.language), `tilelang`, `math`, and opaque modules (torch, numpy, ...).
 * Also the statements whose meaning is TileLang's: imports, decorated defs, T.Kernel.
 * Tile operations live in tileops.c. */
#include "frontend/eval.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

Value *dict_get(Interp *in, Value *dict, Value *key);
Stmt *exec_into_seq(Interp *in, Env *env, AstList *body, Loc loc);

/* ---- builtin values ----------------------------------------------------------------- */
static Value *builtin_value(Interp *in, const char *name, BuiltinFn fn, void *data) {
    Builtin *b = NEW(&in->ctx->arena, Builtin);
    b->name = name;
    b->fn = fn;
    b->data = data;
    Value *v = val_new(in, V_BUILTIN);
    v->u.builtin = b;
    return v;
}

static Value *opaque(Interp *in, const char *path) {
    Value *v = val_new(in, V_OPAQUE);
    v->u.s = path;
    return v;
}

static Value *module_value(Interp *in, const char *path) {
    Value *v = val_new(in, V_MODULE);
    v->u.s = path;
    return v;
}

static Value *one_arg(Interp *in, CallArgs *a, const char *fname) {
    if (a->pos.len != 1 || a->kw.len)
        ctx_fail(in->ctx, a->loc, "%s() takes exactly one argument (%d given)", fname,
                 a->pos.len + a->kw.len);
    return a->pos.data[0];
}

static Value *tuple_of(Interp *in, int n, Value **items) {
    Value *t = val_new(in, V_TUPLE);
    for (int i = 0; i < n; i++) VEC_PUSH(&in->ctx->arena, t->u.items, items[i]);
    return t;
}

/* ---- Python builtins -------------------------------------------------------------- */
static Value *loop_value(Interp *in, LoopKind kind, int n, Expr **min, Expr **ext,
                         const char *annot) {
    LoopSpec *L = NEW(&in->ctx->arena, LoopSpec);
    L->kind = kind;
    L->n = n;
    for (int i = 0; i < n; i++) {
        L->min[i] = min[i];
        L->extent[i] = ext[i];
    }
    L->annot = annot;
    Value *v = val_new(in, V_LOOP);
    v->u.loop = L;
    return v;
}

static Expr *index_expr(Interp *in, Value *v, Loc loc, const char *what) {
    Expr *e = val_to_expr(in, v, loc, what);
    if (!dtype_is_int(e->dtype))
        ctx_fail(in->ctx, loc, "%s must be an integer, got a %s value", what, dtype_name(e->dtype));
    return e;
}

/* range(stop) / range(start, stop): a serial loop; unrolled at compile time outside
 * kernels. A step other than 1 is only supported at compile time. */
static Value *py_range(Interp *in, CallArgs *a, void *data) {
    (void)data;
    Ctx *ctx = in->ctx;
    int n = a->pos.len;
    if (n < 1 || n > 3 || a->kw.len)
        ctx_fail(ctx, a->loc, "range() takes 1 to 3 positional arguments");
    Value *lo = n >= 2 ? a->pos.data[0] : val_int(in, 0);
    Value *hi = n >= 2 ? a->pos.data[1] : a->pos.data[0];
    if (n == 3) {
        int64_t s = val_to_int(in, a->pos.data[2], a->loc, "range() step");
        int64_t l = val_to_int(in, lo, a->loc, "range() start");
        int64_t h = val_to_int(in, hi, a->loc, "range() stop");
        if (s == 0) ctx_fail(ctx, a->loc, "range() step must not be zero");
        Value *r = val_new(in, V_LIST);
        /* elements: ceil((h - l) / s), computed without overflow */
        uint64_t span = s > 0 ? (h > l ? (uint64_t)h - (uint64_t)l : 0)
                              : (l > h ? (uint64_t)l - (uint64_t)h : 0);
        uint64_t step = s > 0 ? (uint64_t)s : 0 - (uint64_t)s;
        uint64_t count = span ? (span - 1) / step + 1 : 0;
        eval_elements(in, count > INT64_MAX ? INT64_MAX : (int64_t)count, a->loc);
        for (int64_t k = 0; k < (int64_t)count; k++) /* within [l, h): no overflow */
            VEC_PUSH(&ctx->arena, r->u.items, val_int(in, l + k * s));
        return r;
    }
    Expr *mn = index_expr(in, lo, a->loc, "range() start");
    Expr *ext = arith_simplify(ctx, ir_bin(ctx, OP_SUB, index_expr(in, hi, a->loc, "range() stop"),
                                           mn, a->loc));
    return loop_value(in, LOOP_SERIAL, 1, &mn, &ext, "range");
}

static Value *py_len(Interp *in, CallArgs *a, void *data) {
    (void)data;
    Value *v = one_arg(in, a, "len");
    switch (v->kind) {
    case V_TUPLE:
    case V_LIST: return val_int(in, v->u.items.len);
    case V_DICT: return val_int(in, v->u.dict.keys.len);
    case V_STR: return val_int(in, (int64_t)strlen(v->u.s));
    case V_BUFFER: {
        if (!v->u.buf->ndim) ctx_fail(in->ctx, a->loc, "len() of a scalar buffer");
        return val_expr(in, v->u.buf->shape[0]);
    }
    default: ctx_fail(in->ctx, a->loc, "len() of %s", val_describe(in, v));
    }
}

static Value *minmax(Interp *in, CallArgs *a, bool is_max, const char *fname) {
    ValueList items = a->pos;
    if (items.len == 1 && (items.data[0]->kind == V_TUPLE || items.data[0]->kind == V_LIST))
        items = items.data[0]->u.items;
    if (items.len == 0) ctx_fail(in->ctx, a->loc, "%s() needs at least one value", fname);
    Value *acc = items.data[0];
    for (int i = 1; i < items.len; i++) {
        Value *b = items.data[i];
        if (acc->kind == V_EXPR || b->kind == V_EXPR || (acc->kind == V_BUFFER) ||
            (b->kind == V_BUFFER)) {
            Expr *x = val_to_expr(in, acc, a->loc, "argument");
            Expr *y = val_to_expr(in, b, a->loc, "argument");
            if (y->kind == EXPR_INT || y->kind == EXPR_FLOAT)
                y = ir_cast(in->ctx, x->dtype, y, a->loc);
            else if (x->kind == EXPR_INT || x->kind == EXPR_FLOAT)
                x = ir_cast(in->ctx, y->dtype, x, a->loc);
            acc = val_expr(in, ir_bin(in->ctx, is_max ? OP_MAX : OP_MIN, x, y, a->loc));
        } else {
            Value *gt = eval_binop(in, ">", b, acc, a->loc);
            if (gt->u.b == is_max) acc = b;
        }
    }
    return acc;
}

static Value *py_min(Interp *in, CallArgs *a, void *d) {
    (void)d;
    return minmax(in, a, false, "min");
}
static Value *py_max(Interp *in, CallArgs *a, void *d) {
    (void)d;
    return minmax(in, a, true, "max");
}

static Value *py_abs(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *v = one_arg(in, a, "abs");
    if (v->kind == V_INT && v->u.i == INT64_MIN)
        ctx_fail(in->ctx, a->loc, "integer overflow: abs(%lld) does not fit in 64 bits",
                 (long long)v->u.i);
    if (v->kind == V_INT) return val_int(in, v->u.i < 0 ? -v->u.i : v->u.i);
    if (v->kind == V_FLOAT) return val_float(in, fabs(v->u.f));
    return val_expr(in, ir_call(in->ctx, FN_ABS, val_to_expr(in, v, a->loc, "abs() argument"), NULL,
                                a->loc));
}

static Value *py_int(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *v = one_arg(in, a, "int");
    if (v->kind == V_FLOAT) return val_int(in, val_float_to_int(in, v->u.f, a->loc));
    if (v->kind == V_STR) {
        char *end;
        errno = 0;
        long long x = strtoll(v->u.s, &end, 10);
        if (*end || !*v->u.s) ctx_fail(in->ctx, a->loc, "invalid literal for int(): '%s'", v->u.s);
        if (errno == ERANGE)
            ctx_fail(in->ctx, a->loc, "integer overflow: int('%s') does not fit in 64 bits",
                     v->u.s);
        return val_int(in, x);
    }
    if (v->kind == V_EXPR) return val_expr(in, ir_cast(in->ctx, DT_INT32, v->u.expr, a->loc));
    return val_int(in, val_to_int(in, v, a->loc, "int() argument"));
}

static Value *py_float(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *v = one_arg(in, a, "float");
    if (v->kind == V_FLOAT) return v;
    if (v->kind == V_STR) {
        if (!strcmp(v->u.s, "inf")) return val_float(in, INFINITY);
        if (!strcmp(v->u.s, "-inf")) return val_float(in, -INFINITY);
        char *end;
        double x = strtod(v->u.s, &end);
        if (*end || !*v->u.s) ctx_fail(in->ctx, a->loc, "could not convert string to float");
        return val_float(in, x);
    }
    if (v->kind == V_EXPR) return val_expr(in, ir_cast(in->ctx, DT_FLOAT32, v->u.expr, a->loc));
    return val_float(in, (double)val_to_int(in, v, a->loc, "float() argument"));
}

static Value *py_bool(Interp *in, CallArgs *a, void *d) {
    (void)d;
    return val_bool(in, val_truthy(in, one_arg(in, a, "bool"), a->loc));
}

static Value *py_str(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *v = one_arg(in, a, "str");
    if (v->kind == V_STR) return v;
    if (v->kind == V_INT)
        return val_str(in, arena_printf(&in->ctx->arena, "%lld", (long long)v->u.i));
    if (v->kind == V_DTYPE) return val_str(in, dtype_name(v->u.dtype));
    return val_str(in, val_describe(in, v));
}

static Value *py_seq(Interp *in, CallArgs *a, void *d) {
    ValueKind k = (ValueKind)(intptr_t)d;
    Value *r = val_new(in, k);
    if (a->pos.len == 0) return r;
    Value *v = one_arg(in, a, k == V_TUPLE ? "tuple" : "list");
    if (v->kind == V_TUPLE || v->kind == V_LIST) {
        for (int i = 0; i < v->u.items.len; i++)
            VEC_PUSH(&in->ctx->arena, r->u.items, v->u.items.data[i]);
        return r;
    }
    if (v->kind == V_LOOP) { /* list(range(n)) */
        int64_t lo, n;
        if (ir_is_const_int(v->u.loop->min[0], &lo) && ir_is_const_int(v->u.loop->extent[0], &n)) {
            eval_elements(in, n, a->loc);
            for (int64_t i = 0; i < n; i++)
                VEC_PUSH(&in->ctx->arena, r->u.items, val_int(in, lo + i));
            return r;
        }
    }
    ctx_fail(in->ctx, a->loc, "cannot convert %s to a sequence", val_describe(in, v));
}

static Value *py_ignore(Interp *in, CallArgs *a, void *d) {
    (void)a;
    (void)d;
    return val_none(in);
}

static Value *py_isinstance(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len != 2) ctx_fail(in->ctx, a->loc, "isinstance() takes 2 arguments");
    Value *v = a->pos.data[0], *t = a->pos.data[1];
    const char *want = t->kind == V_BUILTIN ? t->u.builtin->name : "";
    bool known;
    bool tl = !strncmp(want, "T.", 2) && tl_py_isinstance(in, v, want, &known);
    if (!strncmp(want, "T.", 2) && !known)
        ctx_fail(in->ctx, a->loc, "isinstance() with %s is not supported", want);
    bool r = tl || (!strcmp(want, "int") && v->kind == V_INT) ||
             (!strcmp(want, "float") && v->kind == V_FLOAT) ||
             (!strcmp(want, "str") && v->kind == V_STR) ||
             (!strcmp(want, "bool") && v->kind == V_BOOL) ||
             (!strcmp(want, "tuple") && v->kind == V_TUPLE) ||
             (!strcmp(want, "list") && v->kind == V_LIST) ||
             (!strcmp(want, "dict") && v->kind == V_DICT);
    return val_bool(in, r);
}

static Value *py_enumerate(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *v = one_arg(in, a, "enumerate");
    if (v->kind != V_TUPLE && v->kind != V_LIST)
        ctx_fail(in->ctx, a->loc, "enumerate() needs a tuple or list here");
    Value *r = val_new(in, V_LIST);
    for (int i = 0; i < v->u.items.len; i++) {
        Value *pair[2] = {val_int(in, i), v->u.items.data[i]};
        VEC_PUSH(&in->ctx->arena, r->u.items, tuple_of(in, 2, pair));
    }
    return r;
}

static Value *py_zip(Interp *in, CallArgs *a, void *d) {
    (void)d;
    int n = 1 << 30;
    for (int k = 0; k < a->pos.len; k++) {
        Value *v = a->pos.data[k];
        if (v->kind != V_TUPLE && v->kind != V_LIST)
            ctx_fail(in->ctx, a->loc, "zip() needs tuples or lists here");
        if (v->u.items.len < n) n = v->u.items.len;
    }
    Value *r = val_new(in, V_LIST);
    for (int i = 0; i < n && a->pos.len; i++) {
        Value *t = val_new(in, V_TUPLE);
        for (int k = 0; k < a->pos.len; k++)
            VEC_PUSH(&in->ctx->arena, t->u.items, a->pos.data[k]->u.items.data[i]);
        VEC_PUSH(&in->ctx->arena, r->u.items, t);
    }
    return r;
}

static Value *py_sum(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *v = a->pos.len ? a->pos.data[0] : NULL;
    if (!v || (v->kind != V_TUPLE && v->kind != V_LIST))
        ctx_fail(in->ctx, a->loc, "sum() needs a tuple or list");
    Value *acc = a->pos.len > 1 ? a->pos.data[1] : val_int(in, 0);
    for (int i = 0; i < v->u.items.len; i++)
        acc = eval_binop(in, "+", acc, v->u.items.data[i], a->loc);
    return acc;
}

static Value *py_round(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *v = a->pos.len ? a->pos.data[0] : NULL;
    if (!v) ctx_fail(in->ctx, a->loc, "round() needs an argument");
    if (v->kind == V_FLOAT) return val_int(in, val_float_to_int(in, nearbyint(v->u.f), a->loc));
    return v;
}

/* dict(), dict(pairs), dict(mapping), dict(**kw) */
static Value *py_dict(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *r = val_new(in, V_DICT);
    Arena *ar = &in->ctx->arena;
    if (a->pos.len > 1) ctx_fail(in->ctx, a->loc, "dict() takes at most one positional argument");
    if (a->pos.len == 1) {
        Value *src = a->pos.data[0];
        if (src->kind == V_DICT) {
            r->u.dict = src->u.dict;
        } else if (src->kind == V_LIST || src->kind == V_TUPLE) {
            for (int i = 0; i < src->u.items.len; i++) {
                Value *p = src->u.items.data[i];
                if ((p->kind != V_TUPLE && p->kind != V_LIST) || p->u.items.len != 2)
                    ctx_fail(in->ctx, a->loc, "dict(): each item must be a (key, value) pair");
                VEC_PUSH(ar, r->u.dict.keys, p->u.items.data[0]);
                VEC_PUSH(ar, r->u.dict.values, p->u.items.data[1]);
            }
        } else {
            ctx_fail(in->ctx, a->loc, "dict() of %s is not supported", val_describe(in, src));
        }
    }
    for (int k = 0; k < a->kw.len; k++) {
        VEC_PUSH(ar, r->u.dict.keys, val_str(in, a->names.data[k]));
        VEC_PUSH(ar, r->u.dict.values, a->kw.data[k]);
    }
    return r;
}

static Value *py_set(Interp *in, CallArgs *a, void *d) {
    (void)d;
    ctx_fail(in->ctx, a->loc, "set displays and set() are not supported by tilec");
}

static void install(Interp *in, Env *env, const char *name, BuiltinFn fn, void *data) {
    env_set(in, env, name, builtin_value(in, name, fn, data));
}

void builtins_install(Interp *in) {
    Env *b = in->builtins;
    install(in, b, "range", py_range, NULL);
    install(in, b, "len", py_len, NULL);
    install(in, b, "min", py_min, NULL);
    install(in, b, "max", py_max, NULL);
    install(in, b, "abs", py_abs, NULL);
    install(in, b, "int", py_int, NULL);
    install(in, b, "float", py_float, NULL);
    install(in, b, "bool", py_bool, NULL);
    install(in, b, "str", py_str, NULL);
    install(in, b, "tuple", py_seq, (void *)(intptr_t)V_TUPLE);
    install(in, b, "list", py_seq, (void *)(intptr_t)V_LIST);
    install(in, b, "print", py_ignore, NULL);
    install(in, b, "isinstance", py_isinstance, NULL);
    install(in, b, "enumerate", py_enumerate, NULL);
    install(in, b, "zip", py_zip, NULL);
    install(in, b, "sum", py_sum, NULL);
    install(in, b, "round", py_round, NULL);
    install(in, b, "set", py_set, NULL);
    env_set(in, b, "__name__", val_str(in, "__tilec__"));
    install(in, b, "dict", py_dict, NULL);
}

/* ---- math ------------------------------------------------------------------------- */
static Value *math_fn(Interp *in, CallArgs *a, void *d) {
    const char *name = d;
    int n = a->pos.len;
    double x = n > 0 ? (a->pos.data[0]->kind == V_FLOAT
                            ? a->pos.data[0]->u.f
                            : (double)val_to_int(in, a->pos.data[0], a->loc, "argument"))
                     : 0;
    double y = n > 1 ? (a->pos.data[1]->kind == V_FLOAT
                            ? a->pos.data[1]->u.f
                            : (double)val_to_int(in, a->pos.data[1], a->loc, "argument"))
                     : 0;
    if (!strcmp(name, "log2")) return val_float(in, log2(x));
    if (!strcmp(name, "log")) return val_float(in, n > 1 ? log(x) / log(y) : log(x));
    if (!strcmp(name, "log10")) return val_float(in, log10(x));
    if (!strcmp(name, "exp")) return val_float(in, exp(x));
    if (!strcmp(name, "sqrt")) return val_float(in, sqrt(x));
    if (!strcmp(name, "pow")) return val_float(in, pow(x, y));
    if (!strcmp(name, "ceil")) return val_int(in, val_float_to_int(in, ceil(x), a->loc));
    if (!strcmp(name, "floor")) return val_int(in, val_float_to_int(in, floor(x), a->loc));
    if (!strcmp(name, "isqrt")) return val_int(in, val_float_to_int(in, floor(sqrt(x)), a->loc));
    if (!strcmp(name, "gcd") || !strcmp(name, "lcm")) {
        int64_t p = val_float_to_int(in, x, a->loc), q = val_float_to_int(in, y, a->loc), g;
        if (p == INT64_MIN || q == INT64_MIN)
            ctx_fail(in->ctx, a->loc, "integer overflow in math.%s", name);
        int64_t u = p < 0 ? -p : p, w = q < 0 ? -q : q;
        while (w) {
            int64_t t = u % w;
            u = w;
            w = t;
        }
        g = u;
        if (name[0] == 'g') return val_int(in, g);
        int64_t l = 0;
        if (g && (__builtin_mul_overflow(p / g, q, &l) || l == INT64_MIN))
            ctx_fail(in->ctx, a->loc,
                     "integer overflow: math.lcm(%lld, %lld) does not fit in "
                     "64 bits",
                     (long long)p, (long long)q);
        return val_int(in, l < 0 ? -l : l);
    }
    ctx_fail(in->ctx, a->loc, "math.%s is not supported", name);
}

static Value *math_attr(Interp *in, const char *attr, Loc loc) {
    if (!strcmp(attr, "pi")) return val_float(in, M_PI);
    if (!strcmp(attr, "e")) return val_float(in, M_E);
    if (!strcmp(attr, "inf")) return val_float(in, INFINITY);
    static const char *const fns[] = {"log2", "log",   "log10", "exp", "sqrt", "pow",
                                      "ceil", "floor", "isqrt", "gcd", "lcm"};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (!strcmp(attr, fns[i]))
            return builtin_value(in, arena_printf(&in->ctx->arena, "math.%s", attr), math_fn,
                                 (void *)fns[i]);
    ctx_fail(in->ctx, loc, "math.%s is not supported", attr);
}

/* ---- tilelang ---------------------------------------------------------------------- */
Value *tl_lang_attr(Interp *in, const char *attr, Loc loc); /* tileops.c: the T namespace */

static Value *jit_decorator(Interp *in, CallArgs *a, void *d) {
    (void)d;
    /* @tilelang.jit(out_idx=..., target=..., pass_configs=...) -> a decorator value;
     * @tilelang.jit applied directly to a function -> that function, marked. */
    if (a->pos.len == 1 && a->pos.data[0]->kind == V_FUNC && !a->kw.len) {
        a->pos.data[0]->u.func->jit.is_jit = true;
        return a->pos.data[0];
    }
    JitInfo *j = NEW(&in->ctx->arena, JitInfo);
    j->is_jit = true;
    for (int k = 0; k < a->kw.len; k++)
        if (!strcmp(a->names.data[k], "out_idx")) j->out_idx = a->kw.data[k];
        else if (!strcmp(a->names.data[k], "pass_configs")) j->pass_configs = a->kw.data[k];
    return builtin_value(in, "tilelang.jit", jit_decorator, j);
}

static Value *ignore_decorator(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len == 1 && a->pos.data[0]->kind == V_FUNC && !a->kw.len) return a->pos.data[0];
    return builtin_value(in, "decorator", ignore_decorator, NULL);
}

/* tilelang.math's (also tilelang's): cdiv(a, b) and next_power_of_2(x) on ints. cdiv of
 * a symbolic size (a T.const in an eager kernel's first phase, a T.dynamic one) is the
 * expression (a + b - 1) // b, as TileLang's Python computes it on a TVM variable. */
static Value *tl_math(Interp *in, CallArgs *a, void *d) {
    bool pow2 = d != NULL;
    Value *av[2];
    args_bind(in, a, pow2 ? "next_power_of_2" : "cdiv", pow2 ? "x" : "a, b", av, pow2 ? 1 : 2);
    if (!pow2 && (av[0]->kind == V_EXPR || av[1]->kind == V_EXPR)) {
        Value *num = eval_binop(in, "-", eval_binop(in, "+", av[0], av[1], a->loc), val_int(in, 1),
                                a->loc);
        return eval_binop(in, "//", num, av[1], a->loc);
    }
    int64_t x = val_to_int(in, av[0], a->loc, "argument");
    if (pow2) {
        if (x <= 1) return val_int(in, 1);
        if (x > (INT64_C(1) << 62))
            ctx_fail(in->ctx, a->loc, "next_power_of_2(%lld) is too large", (long long)x);
        int64_t p = 1;
        while (p < x) p <<= 1;
        return val_int(in, p);
    }
    int64_t b = val_to_int(in, av[1], a->loc, "argument");
    if (b == 0) ctx_fail(in->ctx, a->loc, "cdiv: division by zero");
    int64_t q = x / b, r = x % b; /* Python's floor of (a + b - 1) // b for b > 0 */
    return val_int(in, q + ((r != 0) && ((r > 0) == (b > 0))));
}

/* tilelang.carver.arch.driver.get_num_sms(device_id=0): the SM count the kernel is
 * compiled for (the setting sm_count: given, else the GPU's; 132 without one). */
static Value *tl_num_sms(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "get_num_sms", "device_id=", av, 1);
    return val_int(in, options_sm_count(&in->ctx->opts));
}

static bool is_carver_driver(const char *path) {
    return !strcmp(path, "tilelang.carver.arch.driver") ||
           !strcmp(path, "tilelang.carver.arch.driver.cuda_driver");
}

static Value *tilelang_attr(Interp *in, const char *path, const char *attr, Loc loc) {
    Arena *ar = &in->ctx->arena;
    if (is_carver_driver(path) && !strcmp(attr, "get_num_sms"))
        return builtin_value(in, "get_num_sms", tl_num_sms, NULL);
    if (!strcmp(path, "tilelang") || !strcmp(path, "tilelang.math")) {
        if (!strcmp(attr, "cdiv")) return builtin_value(in, "tilelang.cdiv", tl_math, NULL);
        if (!strcmp(attr, "next_power_of_2"))
            return builtin_value(in, "tilelang.next_power_of_2", tl_math, (void *)1);
    }
    if (!strcmp(path, "tilelang")) {
        if (!strcmp(attr, "language")) return module_value(in, "tilelang.language");
        if (!strcmp(attr, "jit") || !strcmp(attr, "lazy_jit"))
            return builtin_value(in, "tilelang.jit", jit_decorator, NULL);
        if (!strcmp(attr, "autotune"))
            return builtin_value(in, "tilelang.autotune", ignore_decorator, NULL);
    }
    if (!strcmp(path, "tilelang.language")) return tl_lang_attr(in, attr, loc);
    Value *intrin = tl_intrinsics_attr(in, path, attr);
    if (intrin) return intrin;
    if (!strcmp(path, "tilelang.autotuner") && !strcmp(attr, "autotune"))
        return builtin_value(in, "tilelang.autotune", ignore_decorator, NULL);
    if (!strcmp(attr, "jit") && !strncmp(path, "tilelang", 8))
        return builtin_value(in, "tilelang.jit", jit_decorator, NULL);
    return module_value(in, arena_printf(ar, "%s.%s", path, attr));
}

/* x.astype(dtype) on a kernel expression (TVM's PrimExpr method): x cast to dtype. */
static Value *expr_astype(Interp *in, CallArgs *a, void *d) {
    Value *self = d, *av[1];
    args_bind(in, a, "astype", "dtype", av, 1);
    DType dt = val_to_dtype(in, av[0], a->loc, "dtype");
    return val_expr(in, ir_cast(in->ctx, dt, self->u.expr, a->loc));
}

Value *expr_method(Interp *in, Value *self, const char *attr) {
    if (!strcmp(attr, "astype")) return builtin_value(in, "astype", expr_astype, self);
    return NULL;
}

/* tvm.tirx.const(value, dtype="int32"/"float32"): a constant of that dtype. */
static Value *tir_const(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "tvm.tirx.const", "value, dtype=", av, 2);
    DType dt = av[1]                    ? val_to_dtype(in, av[1], a->loc, "dtype")
               : av[0]->kind == V_FLOAT ? DT_FLOAT32
                                        : DT_INT32;
    if (av[0]->kind == V_FLOAT) return val_expr(in, ir_float(in->ctx, av[0]->u.f, dt, a->loc));
    return val_expr(in, ir_cast(in->ctx, dt, val_to_expr(in, av[0], a->loc, "value"), a->loc));
}

/* Whether path is TVM's TIR module (tvm.tir, or tvm.tirx since TVM 0.22), also as
 * tilelang.tvm re-exports it. */
static bool is_tir_module(const char *path) {
    if (!strncmp(path, "tilelang.", 9)) path += 9;
    return !strcmp(path, "tvm.tir") || !strcmp(path, "tvm.tirx");
}

/* tvm.tirx's functions that TileLang helpers call on expressions: those T has under the
 * same name (or as Select/Cast), and const. Other names stay TVM's (an error if called). */
static Value *tir_attr(Interp *in, const char *path, const char *attr, Loc loc) {
    static const char *const same[] = {"reinterpret", "if_then_else", "Select",      "Cast",
                                       "max",         "min",          "exp",         "exp2",
                                       "log",         "log2",         "sqrt",        "rsqrt",
                                       "abs",         "floor",        "ceil",        "round",
                                       "floordiv",    "floormod",     "truncdiv",    "truncmod",
                                       "max_value",   "min_value",    "infinity",    "bitwise_and",
                                       "bitwise_or",  "bitwise_xor",  "bitwise_not", "shift_left",
                                       "shift_right", "sigmoid",      "tanh",        "pow",
                                       "fmod",        "isnan",        "isinf",       "popcount",
                                       "clz",         "nearbyint",    "trunc"};
    static const char *const math[] = {"acos",  "acosh",     "asin",     "asinh",    "atan",
                                       "atanh", "cosh",      "sinh",     "copysign", "hypot",
                                       "ldexp", "nextafter", "isfinite", "likely",   "ceildiv"};
    if (!strcmp(attr, "const")) return builtin_value(in, "tvm.tirx.const", tir_const, NULL);
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        if (!strcmp(attr, same[i])) return tl_lang_attr(in, attr, loc);
    for (size_t i = 0; i < sizeof math / sizeof *math; i++) /* (tileops_math.c's too) */
        if (!strcmp(attr, math[i])) return tl_lang_attr(in, attr, loc);
    return opaque(in, arena_printf(&in->ctx->arena, "%s.%s", path, attr));
}

/* torch.float16 and friends are dtypes; everything else of torch is opaque. */
static Value *torch_attr(Interp *in, const char *attr) {
    static const struct {
        const char *name;
        DType t;
    } map[] = {
        {"float16", DT_FLOAT16},
        {"half", DT_FLOAT16},
        {"bfloat16", DT_BFLOAT16},
        {"float32", DT_FLOAT32},
        {"float", DT_FLOAT32},
        {"float64", DT_FLOAT64},
        {"double", DT_FLOAT64},
        {"int8", DT_INT8},
        {"int16", DT_INT16},
        {"int32", DT_INT32},
        {"int", DT_INT32},
        {"int64", DT_INT64},
        {"long", DT_INT64},
        {"uint8", DT_UINT8},
        {"bool", DT_BOOL},
        {"float8_e4m3fn", DT_FLOAT8_E4M3},
        {"float8_e5m2", DT_FLOAT8_E5M2},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(attr, map[i].name)) return val_dtype(in, map[i].t);
    return opaque(in, arena_printf(&in->ctx->arena, "torch.%s", attr));
}

/* ---- methods of meta values (dict.items(), list.append(), str.format()) ------------ */
typedef struct Method {
    Value *self;
    const char *name;
} Method;

static Value *call_method(Interp *in, CallArgs *a, void *d) {
    Method *m = d;
    Value *self = m->self;
    Arena *ar = &in->ctx->arena;
    if (self->kind == V_DICT) {
        if (!strcmp(m->name, "get")) {
            Value *v = a->pos.len ? dict_get(in, self, a->pos.data[0]) : NULL;
            return v ? v : a->pos.len > 1 ? a->pos.data[1] : val_none(in);
        }
        Value *r = val_new(in, V_LIST);
        for (int i = 0; i < self->u.dict.keys.len; i++) {
            Value *pair[2] = {self->u.dict.keys.data[i], self->u.dict.values.data[i]};
            Value *item = !strcmp(m->name, "keys")     ? pair[0]
                          : !strcmp(m->name, "values") ? pair[1]
                                                       : tuple_of(in, 2, pair);
            VEC_PUSH(ar, r->u.items, item);
        }
        return r;
    }
    if (self->kind == V_LIST && !strcmp(m->name, "append")) {
        VEC_PUSH(ar, self->u.items, one_arg(in, a, "append"));
        return val_none(in);
    }
    if (self->kind == V_STR) return self; /* str.format etc.: the text is only a message */
    ctx_fail(in->ctx, a->loc, "%s has no method '%s'", val_describe(in, self), m->name);
}

Value *module_attr(Interp *in, Value *base, const char *attr, Loc loc) {
    Arena *ar = &in->ctx->arena;
    if (base->kind == V_DICT || base->kind == V_LIST || base->kind == V_STR) {
        Method *m = NEW(ar, Method);
        m->self = base;
        m->name = attr;
        return builtin_value(in, arena_printf(ar, "%s.%s", val_kind_name(base->kind), attr),
                             call_method, m);
    }
    if (base->kind == V_ATOM) {
        if (!strcmp(attr, "__call__")) return base;
        return opaque(in, arena_printf(ar, "%s.%s", base->u.s, attr));
    }
    const char *path = base->u.s;
    if (!strcmp(attr, "__call__")) {
        if (!strncmp(path, "tilelang", 8)) /* e.g. layout helpers: kept as opaque text */
            return opaque(in, arena_printf(ar, "%s(...)", path));
        ctx_fail(in->ctx, loc,
                 "'%s' cannot be evaluated at compile time (tilec evaluates only "
                 "the kernel's meta level; torch and other libraries are not available)",
                 path);
    }
    if (base->kind == V_MODULE) {
        if (!strcmp(path, "math")) return math_attr(in, attr, loc);
        if (is_tir_module(path)) return tir_attr(in, path, attr, loc);
        if (!strcmp(attr, "DataType") &&
            (!strcmp(path, "tvm") || !strcmp(path, "tilelang.tvm") || !strcmp(path, "tilelang")))
            return tl_lang_attr(in, "dtype", loc); /* DataType(x).bits: T.dtype's */
        if (!strcmp(path, "tvm") && islower((unsigned char)attr[0])) /* tvm.tirx, ... */
            return module_value(in, arena_printf(ar, "tvm.%s", attr));
        if (!strncmp(path, "tilelang", 8)) return tilelang_attr(in, path, attr, loc);
        if (!strcmp(path, "torch")) return torch_attr(in, attr);
        if (!strcmp(path, "tilec")) { /* the Python package's decorators mean the same */
            if (!strcmp(attr, "jit")) return builtin_value(in, "tilelang.jit", jit_decorator, NULL);
            if (!strcmp(attr, "autotune"))
                return builtin_value(in, "tilelang.autotune", ignore_decorator, NULL);
        }
    }
    return opaque(in, arena_printf(ar, "%s.%s", path, attr));
}

/* ---- import ------------------------------------------------------------------------ */
static Value *import_module(Interp *in, const char *dotted) {
    if (!strcmp(dotted, "tilelang.language")) return module_value(in, "tilelang.language");
    return module_value(in, dotted);
}

/* Modules tilec knows by name; any other is looked for as a file of the user's. */
static bool known_module(const char *dotted, int level) {
    static const char *const known[] = {"tilelang",    "tilec",      "math",        "torch",
                                        "numpy",       "typing",     "dataclasses", "enum",
                                        "functools",   "itertools",  "os",          "sys",
                                        "collections", "abc",        "argparse",    "time",
                                        "random",      "__future__", "triton",      "tvm"};
    if (level) return false;
    size_t n = strcspn(dotted, ".");
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strlen(known[i]) == n && !strncmp(known[i], dotted, n)) return true;
    return false;
}

/* `from M import *`: M's public names (its __all__ when it has one). */
static void import_star(Interp *in, Env *env, Value *m) {
    Env *g = m->u.obj.attrs;
    Value *all = env_get(g, "__all__");
    if (all && (all->kind == V_LIST || all->kind == V_TUPLE)) {
        for (int i = 0; i < all->u.items.len; i++) {
            Value *n = all->u.items.data[i];
            Value *v = n->kind == V_STR ? env_get(g, n->u.s) : NULL;
            if (v) env_set(in, env, n->u.s, v);
        }
        return;
    }
    for (int i = 0; i < g->vars.len; i++)
        if (g->vars.data[i].name[0] != '_')
            env_set(in, env, g->vars.data[i].name, g->vars.data[i].value);
}

/* `from M import a, b as c` where M is a file of the user's; true when it is. */
static bool import_from_user(Interp *in, Env *env, Ast *s) {
    const char *mod = s->u.import.module ? s->u.import.module : "";
    const char *from = s->loc.src ? s->loc.src->name : NULL;
    if (known_module(mod, s->u.import.level)) return false;
    Value *m = import_user_module(in, from, mod, s->u.import.level);
    for (int i = 0; i < s->u.import.names.len; i++) {
        AstAlias *al = &s->u.import.names.data[i];
        const char *bind = al->asname ? al->asname : al->name;
        if (m && !strcmp(al->name, "*")) {
            import_star(in, env, m);
            continue;
        }
        Value *v = m ? env_get(m->u.obj.attrs, al->name) : NULL;
        if (!v) { /* a submodule: from pkg import helpers */
            const char *sub = *mod ? arena_printf(&in->ctx->arena, "%s.%s", mod, al->name)
                                   : al->name;
            v = import_user_module(in, from, sub, s->u.import.level);
        }
        if (!v && !m) return false;
        if (!v)
            ctx_fail(in->ctx, s->loc, "cannot import name '%s' from %s", al->name, m->u.obj.type);
        env_set(in, env, bind, v);
    }
    return true;
}

static void bind_dotted(Interp *in, Env *env, const char *from, const char *dotted) {
    Arena *ar = &in->ctx->arena;
    Value *parent = NULL;
    for (const char *dot = dotted;; dot++) {
        dot = strchr(dot, '.');
        const char *prefix = dot ? arena_strndup(ar, dotted, (size_t)(dot - dotted)) : dotted;
        Value *m = import_user_module(in, from, prefix, 0);
        if (!m) { /* a folder without __init__.py: a namespace package */
            m = val_new(in, V_OBJECT);
            m->u.obj.type = arena_printf(ar, "module %s", prefix);
            m->u.obj.attrs = env_new(in, NULL);
        }
        const char *last = strrchr(prefix, '.');
        if (parent) object_set_attr(in, parent, last ? last + 1 : prefix, m);
        else env_set(in, env, prefix, m);
        parent = m;
        if (!dot) return;
    }
}

void exec_import(Interp *in, Env *env, Ast *s) {
    Arena *ar = &in->ctx->arena;
    if (s->kind == AST_IMPORT_FROM && import_from_user(in, env, s)) return;
    for (int i = 0; i < s->u.import.names.len; i++) {
        AstAlias *al = &s->u.import.names.data[i];
        Value *um = s->kind == AST_IMPORT && !known_module(al->name, 0)
                        ? import_user_module(in, s->loc.src ? s->loc.src->name : NULL, al->name, 0)
                        : NULL;
        if (um && al->asname) {
            env_set(in, env, al->asname, um);
            continue;
        }
        if (um) { /* `import a.b.c` binds a; a.b and a.b.c are its attributes */
            bind_dotted(in, env, s->loc.src ? s->loc.src->name : NULL, al->name);
            continue;
        }
        if (s->kind == AST_IMPORT) {
            if (al->asname) {
                env_set(in, env, al->asname, import_module(in, al->name));
            } else { /* `import a.b` binds `a` */
                const char *dot = strchr(al->name, '.');
                const char *top = dot ? arena_strndup(ar, al->name, (size_t)(dot - al->name))
                                      : al->name;
                env_set(in, env, top, import_module(in, top));
            }
            continue;
        }
        const char *mod = s->u.import.module ? s->u.import.module : "";
        Value *m = import_module(in, mod);
        const char *bind = al->asname ? al->asname : al->name;
        if (!strcmp(al->name, "*")) continue;
        env_set(in, env, bind, module_attr(in, m, al->name, s->loc));
    }
}

/* ---- def with decorators ----------------------------------------------------------- */
/* Decorators are read for their arguments, not executed: a decorator that cannot be
 * evaluated (an autotuner config built with torch, say) is ignored. */
static Value *try_eval(Interp *in, Env *env, Ast *e) {
    Ctx *ctx = in->ctx;
    jmp_buf jb, *saved = ctx->on_error;
    Stmt *volatile builder = in->builder;
    volatile int depth = in->depth;
    Value *volatile v = NULL;
    if (!setjmp(jb)) {
        ctx->on_error = &jb;
        v = eval_expr(in, env, e);
    } else {
        sb_free(&ctx->err);
        in->builder = builder;
        in->depth = depth;
        in->flow = FLOW_NORMAL;
    }
    ctx->on_error = saved;
    return v;
}

void exec_def(Interp *in, Env *env, Ast *s) {
    Value *fv = val_new(in, V_FUNC);
    Function *f = NEW(&in->ctx->arena, Function);
    f->def = s;
    f->closure = env;
    f->name = s->u.def.name;
    fv->u.func = f;
    for (int i = s->u.def.decorators.len - 1; i >= 0; i--) {
        Value *d = try_eval(in, env, s->u.def.decorators.data[i]);
        if (!d || d->kind != V_BUILTIN) continue;
        const char *name = d->u.builtin->name;
        if (!strcmp(name, "T.prim_func")) f->is_prim_func = true;
        else if (!strcmp(name, "T.macro")) f->is_macro = true;
        else if (!strcmp(name, "tilelang.jit")) {
            f->jit.is_jit = true;
            if (d->u.builtin->data) {
                f->jit.out_idx = ((JitInfo *)d->u.builtin->data)->out_idx;
                f->jit.pass_configs = ((JitInfo *)d->u.builtin->data)->pass_configs;
            }
        }
    }
    env_set(in, env, s->u.def.name, fv);
}

/* ---- with T.Kernel(...) as (bx, by) ---------------------------------------------- */
/* with T.ws(g...): the body runs in the region's threads (STMT_THREADS). */
static void exec_with_ws(Interp *in, Env *env, Ast *s, Value *v) {
    if (s->u.with.targets.len && s->u.with.targets.data[0])
        ctx_fail(in->ctx, s->loc, "'with T.ws(...)' binds no names");
    if (in->in_ws) ctx_fail(in->ctx, s->loc, "T.ws blocks cannot be nested");
    Stmt *st = ir_stmt(in->ctx, STMT_THREADS, s->loc);
    st->u.threads.lo = v->u.ws.lo, st->u.threads.count = v->u.ws.count;
    ScopeMark mark = scope_begin(in, env);
    in->in_ws = true;
    st->u.threads.body = exec_into_seq(in, env, &s->u.with.body, s->loc);
    in->in_ws = false;
    scope_end(in, env, mark, s->loc, "'with T.ws' block");
    if (in->flow == FLOW_RETURN) ctx_fail(in->ctx, s->loc, "'return' inside a T.ws block");
    emit_stmt(in, st);
}

void exec_with(Interp *in, Env *env, Ast *s) {
    Ctx *ctx = in->ctx;
    if (s->u.with.items.len != 1)
        ctx_fail(ctx, s->loc, "only one context manager per 'with' is supported");
    Value *v = eval_expr(in, env, s->u.with.items.data[0]);
    if (v->kind == V_WS) {
        exec_with_ws(in, env, s, v);
        return;
    }
    if (v->kind == V_OPAQUE && !strcmp(v->u.s, "T.attr")) { /* an annotation: the body */
        if (s->u.with.targets.len && s->u.with.targets.data[0])
            ctx_fail(ctx, s->loc, "'with T.attr(...)' binds no names");
        exec_block(in, env, &s->u.with.body);
        return;
    }
    if (v->kind != V_KERNEL)
        ctx_fail(ctx, s->loc, "'with %s' is not supported; kernels use 'with T.Kernel(...)'",
                 val_describe(in, v));
    if (!in->builder) ctx_fail(ctx, s->loc, "T.Kernel is only allowed inside a @T.prim_func");
    if (in->in_kernel) ctx_fail(ctx, s->loc, "T.Kernel blocks cannot be nested");
    KernelSpec *K = v->u.kernel;
    Stmt *st = ir_stmt(ctx, STMT_KERNEL, s->loc);
    st->u.kernel.ngrid = K->ngrid;
    st->u.kernel.nthreads_dims = K->nthreads_dims;
    for (int d = 0; d < 3; d++) {
        st->u.kernel.grid[d] = K->grid[d];
        st->u.kernel.threads[d] = K->threads[d];
        st->u.kernel.cluster_dims[d] = K->cluster_dims[d];
    }
    ScopeMark mark = scope_begin(in, env);
    static const char *const default_names[] = {"bx", "by", "bz"};
    Ast *target = s->u.with.targets.len ? s->u.with.targets.data[0] : NULL;
    int ntargets = !target                                                   ? 0
                   : (target->kind == AST_TUPLE || target->kind == AST_LIST) ? target->u.elts.len
                                                                             : 1;
    if (target && ntargets != K->ngrid)
        ctx_fail(ctx, target->loc, "T.Kernel has %d grid dimension%s but %d name%s given", K->ngrid,
                 K->ngrid == 1 ? "" : "s", ntargets, ntargets == 1 ? " is" : "s are");
    for (int d = 0; d < K->ngrid; d++) {
        Ast *nm = ntargets == 1 ? target : ntargets ? target->u.elts.data[d] : NULL;
        if (nm && nm->kind != AST_NAME) ctx_fail(ctx, nm->loc, "T.Kernel binds names only");
        Var *var = ir_var(ctx, nm ? nm->u.name : default_names[d], DT_INT32);
        st->u.kernel.block[d] = var;
        if (nm) env_set(in, env, nm->u.name, val_expr(in, ir_varref(ctx, var, nm->loc)));
    }
    in->in_kernel = true, in->kernel = st;
    in->kernel_threads = K->threads[0] * K->threads[1] * K->threads[2];
    in->mbar_list = NULL, in->rng_state = NULL, in->kernel_ws = in->named_bars = false;
    st->u.kernel.body = exec_into_seq(in, env, &s->u.with.body, s->loc);
    if (in->rng_state) st->u.kernel.body = mem_rng_scope(in, st->u.kernel.body);
    in->in_kernel = false;
    scope_end(in, env, mark, s->loc, "'with T.Kernel' block");
    if (in->flow == FLOW_RETURN) ctx_fail(ctx, s->loc, "'return' inside a T.Kernel block");
    emit_stmt(in, st);
}
