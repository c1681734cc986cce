/* tileops_py.c - TileLang 0.1.15's Python-level names of the T namespace: the types of
 * annotations and isinstance checks, meta-level dtype helpers, decorators, hints, and a
 * few small scalar helpers, each with the meaning TileLang gives it.
 *
 *   T.SharedBuffer / T.FragmentBuffer / T.LocalBuffer(shape, dtype="float32", scope=)
 *                               a buffer type of scope shared.dyn / local.fragment /
 *                               local (proxy.py): the annotation of a T.macro parameter;
 *                               a kernel's parameter takes T.Tensor (an error otherwise)
 *   T.PrimFunc, T.JITFunc, T.PrimExpr, T.IntImm, T.StringImm, T.KernelLaunchFrame,
 *   T.WarpSpecializeFrame, T.AnyDType, T.Any
 *                               types: annotations, and isinstance(x, T.<type>)
 *                               (tl_py_isinstance); T.IntImm(dtype, value) is the constant,
 *                               T.StringImm(s) the string
 *   T.Ref                       `x: T.Ref` on a T.macro parameter passes a T.alloc_var or
 *                               a buffer element by reference (eval.c's macro_ref)
 *   T.meta_class, T.inline      decorators (meta.py); tilec runs methods inline already
 *   T.get_tvm_dtype(d)          the dtype d names; T.is_float4_e2m1fn / _e2m1_unpacked /
 *   T.is_float4 / T.is_f8f6f4_family(d), T.validate_gemm_ab_dtypes(a, b, ...)
 *                               dtypes.py's predicates, on a dtype or its name
 *   T.Vectorized                T.vectorized (loop.py's alias)
 *   T.annotate_restrict_buffers(*bufs)
 *                               a hint (no aliasing): checked, no effect
 *   T.align_up(x, y)            T.ceildiv(x, y) * y
 *   T.has_let_value(v), T.get_let_value(v)
 *                               whether v is a kernel name `v = expr` bound / expr (None)
 *   T.annotate_pass_configs(d)  d as @tilelang.jit(pass_configs=d) means it
 *   T.annotate_compile_flags(f) nvcc flags: --use_fast_math honoured, others a warning
 *   T.tvm_thread_invariant(c)   c (a hint that c is the same on every thread)
 *   T.reduce(buf, out, reduce_type, dim, clear)
 *                               T.reduce_<reduce_type>(buf, out, dim, clear)
 *   T.reducer_init(r, init=None), T.reducer_update(r[i], v)
 *                               fill a T.alloc_reducer buffer with init (its identity 0
 *                               without one) and a barrier; r[i] += v (an atomic add)
 *   T.allocate(shape, dtype="float32", scope="global")
 *                               TVM's alloc_buffer: T.alloc_global, or T.alloc_buffer's
 *                               scopes
 *   T.transpose(src, dst)       dst[..., j, i] = src[..., i, j], a T.Parallel nest
 *   T.q_multiply_shift(x, y, q, s), T.q_multiply_shift_per_axis(x, y, ls, rs, q, l, r)
 *                               TVM's fixed-point multiply of int32 Q-numbers (its
 *                               general lowering, intrin_rule.cc): in int64,
 *                               ((x << ls) * y + 2^(q+rs-1)) >> (q+rs), as int32; s > 0
 *                               is ls = s, else rs = -s; per axis, ls counts only when
 *                               is_lshift_required (rs always, as TVM lowers it). TVM's
 *                               shortcut for y == 2^30 gives the same for q = 31 but
 *                               overflows int32 near its ends; tilec has no shortcut.
 *
 * TVM names with no meaning in tilec (T.undef, T.ret) are errors that say
 * what to write instead. They are the table tl_py_names (tl_lang_attr, tileops.c). */
#include "frontend/eval.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

static Value *call_t(Interp *in, const char *name, CallArgs *a) {
    return call_value(in, tl_lang_attr(in, name, a->loc), a);
}

static CallArgs args_of(Interp *in, Loc loc, int n, Value **v) {
    CallArgs b = {.loc = loc};
    for (int i = 0; i < n; i++) VEC_PUSH(ARENA, b.pos, v[i]);
    return b;
}

/* ---- types -------------------------------------------------------------------------- */
static Value *t_scoped_buffer(Interp *in, CallArgs *a, void *d) {
    const char *fname = ((const char *const *)d)[0];
    Value *av[3];
    args_bind(in, a, fname, "shape, dtype=, scope=", av, 3);
    CallArgs b = args_of(in, a->loc, av[1] ? 2 : 1, av);
    Value *v = call_t(in, "Tensor", &b);
    TensorType *t = NEW(ARENA, TensorType);
    *t = *v->u.tensor;
    if (av[2] && av[2]->kind != V_NONE && av[2]->kind != V_STR)
        ctx_fail(in->ctx, a->loc, "%s: scope must be a string, got %s", fname,
                 val_describe(in, av[2]));
    t->scope = av[2] && av[2]->kind == V_STR ? av[2]->u.s : ((const char *const *)d)[1];
    if (!strcmp(t->scope, "global")) t->scope = NULL;
    v->u.tensor = t;
    return v;
}

static const char *const shared_buffer[] = {"T.SharedBuffer", "shared.dyn"},
                         *const fragment_buffer[] = {"T.FragmentBuffer", "local.fragment"},
                         *const local_buffer[] = {"T.LocalBuffer", "local"};

/* A type called as a function: only T.IntImm and T.StringImm construct values. */
static Value *t_type(Interp *in, CallArgs *a, void *d) {
    const char *name = d;
    if (!strcmp(name, "IntImm")) {
        Value *av[2];
        args_bind(in, a, "T.IntImm", "dtype, value", av, 2);
        DType dt = val_to_dtype(in, av[0], a->loc, "T.IntImm dtype");
        if (!dtype_is_int(dt))
            ctx_fail(in->ctx, a->loc, "T.IntImm: dtype must be an integer or bool type, got %s",
                     dtype_name(dt));
        int64_t v = val_to_int(in, av[1], a->loc, "T.IntImm value");
        if (dt == DT_BOOL && v != 0 && v != 1)
            ctx_fail(in->ctx, a->loc, "T.IntImm: a bool is 0 or 1, got %lld", (long long)v);
        Value *r = val_new(in, V_EXPR); /* (val_expr would make an int32 a Python int) */
        r->u.expr = ir_int(in->ctx, v, dt, a->loc);
        return r;
    }
    if (!strcmp(name, "StringImm")) {
        Value *av[1];
        args_bind(in, a, "T.StringImm", "value", av, 1);
        if (av[0]->kind != V_STR)
            ctx_fail(in->ctx, a->loc, "T.StringImm takes a string, got %s",
                     val_describe(in, av[0]));
        return av[0];
    }
    ctx_fail(in->ctx, a->loc,
             "T.%s is a type: use it in annotations and isinstance(x, T.%s), not as a function",
             name, name);
}

static bool is_dtype_like(const Value *v) { return v->kind == V_DTYPE || v->kind == V_STR; }

/* isinstance(v, T.<type>) for the types above (type: the builtin's name, "T.<type>");
 * false with *known false when type is not one of them. */
bool tl_py_isinstance(Interp *in, Value *v, const char *type, bool *known) {
    (void)in;
    *known = true;
    const Expr *e = v->kind == V_EXPR ? v->u.expr : NULL;
    if (!strcmp(type, "T.PrimExpr")) return e != NULL;
    if (!strcmp(type, "T.IntImm")) return e && e->kind == EXPR_INT;
    if (!strcmp(type, "T.StringImm")) return v->kind == V_STR;
    if (!strcmp(type, "T.KernelLaunchFrame")) return v->kind == V_KERNEL;
    if (!strcmp(type, "T.WarpSpecializeFrame")) return v->kind == V_WS;
    if (!strcmp(type, "T.PrimFunc")) return v->kind == V_FUNC && v->u.func->is_prim_func;
    if (!strcmp(type, "T.JITFunc")) return v->kind == V_FUNC && v->u.func->jit.is_jit;
    if (!strcmp(type, "T.AnyDType")) return is_dtype_like(v);
    *known = false;
    return false;
}

/* T.meta_class / T.inline: the class or function itself. */
static Value *t_decorator(Interp *in, CallArgs *a, void *d) {
    if (a->pos.len != 1 || a->kw.len)
        ctx_fail(in->ctx, a->loc, "%s decorates one class or function", (const char *)d);
    Value *f = a->pos.data[0];
    if (f->kind != V_FUNC && f->kind != V_OBJECT)
        ctx_fail(in->ctx, a->loc, "%s decorates a class or function, got %s", (const char *)d,
                 val_describe(in, f));
    return f;
}

/* ---- dtype helpers ------------------------------------------------------------------ */
/* The canonical name of a dtype-like value (TileLang's FP4 spellings tilec has no dtype
 * for kept as given), erroring on anything else. */
static const char *dtype_name_of(Interp *in, Value *v, Loc loc, const char *fname) {
    if (v->kind == V_STR && (!strncmp(v->u.s, "float4", 6) || !strncmp(v->u.s, "float6", 6)))
        return v->u.s;
    if (!is_dtype_like(v))
        ctx_fail(in->ctx, loc, "%s takes a dtype or its name, got %s", fname, val_describe(in, v));
    return dtype_name(val_to_dtype(in, v, loc, fname));
}

enum { IS_E2M1FN, IS_E2M1_UNPACKED, IS_FLOAT4, IS_F8F6F4 };

static bool dtype_pred(const char *n, int which) {
    bool fn = !strcmp(n, "float4_e2m1fn"), unpacked = !strcmp(n, "float4_e2m1fn_unpacked");
    switch (which) {
    case IS_E2M1FN: return fn;
    case IS_E2M1_UNPACKED: return unpacked;
    case IS_FLOAT4: return fn || unpacked;
    default: return fn || unpacked || !strncmp(n, "float8", 6) || !strncmp(n, "float6", 6);
    }
}

static const char *const pred_names[] = {"T.is_float4_e2m1fn", "T.is_float4_e2m1_unpacked",
                                         "T.is_float4", "T.is_f8f6f4_family"};

static Value *t_dtype_pred(Interp *in, CallArgs *a, void *d) {
    int which = (int)(intptr_t)d;
    Value *av[1];
    args_bind(in, a, pred_names[which], "value", av, 1);
    return val_bool(in, dtype_pred(dtype_name_of(in, av[0], a->loc, pred_names[which]), which));
}

static Value *t_get_tvm_dtype(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.get_tvm_dtype", "value", av, 1);
    if (!is_dtype_like(av[0]))
        ctx_fail(in->ctx, a->loc, "T.get_tvm_dtype takes a dtype or its name, got %s",
                 val_describe(in, av[0]));
    return val_dtype(in, val_to_dtype(in, av[0], a->loc, "T.get_tvm_dtype"));
}

static Value *t_validate_gemm_ab(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *f = "T.validate_gemm_ab_dtypes";
    Value *av[4];
    args_bind(in, a, f, "a_dtype, b_dtype, a_in_tmem=, allow_f8f6f4_mixed=", av, 4);
    const char *x = dtype_name_of(in, av[0], a->loc, f), *y = dtype_name_of(in, av[1], a->loc, f);
    bool in_tmem = av[2] && val_truthy(in, av[2], a->loc);
    bool mixed = av[3] && val_truthy(in, av[3], a->loc);
    if (in_tmem || !strcmp(x, y) || (mixed && dtype_pred(x, IS_F8F6F4) && dtype_pred(y, IS_F8F6F4)))
        return val_none(in);
    ctx_fail(in->ctx, a->loc,
             "%s: mixed-dtype GEMM only supports f8f6f4 family operands, got A=%s, B=%s", f, x, y);
}

/* ---- hints and scalar helpers -------------------------------------------------------- */
static Value *t_alias(Interp *in, CallArgs *a, void *d) { return call_t(in, d, a); }

static Value *t_restrict_buffers(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->kw.len) ctx_fail(in->ctx, a->loc, "T.annotate_restrict_buffers takes buffers only");
    for (int i = 0; i < a->pos.len; i++)
        if (a->pos.data[i]->kind != V_BUFFER)
            ctx_fail(in->ctx, a->loc, "T.annotate_restrict_buffers takes buffers, got %s",
                     val_describe(in, a->pos.data[i]));
    return val_none(in);
}

static Value *t_align_up(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.align_up", "x, y", av, 2);
    CallArgs b = args_of(in, a->loc, 2, av);
    return eval_binop(in, "*", call_t(in, "ceildiv", &b), av[1], a->loc);
}

static Value *t_thread_invariant(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.tvm_thread_invariant", "cond", av, 1);
    val_to_expr(in, av[0], a->loc, "T.tvm_thread_invariant");
    return av[0];
}

/* T.annotate_pass_configs({key: value}) / T.annotate_compile_flags(flags): the
 * function's configs, as @tilelang.jit(pass_configs=) gives them / its nvcc flags. */
static Value *t_annotate_configs(Interp *in, CallArgs *a, void *d) {
    const char *fname = d ? "T.annotate_compile_flags" : "T.annotate_pass_configs";
    Value *av[1];
    args_bind(in, a, fname, d ? "flags" : "configs", av, 1);
    if (!in->builder || !in->func)
        ctx_fail(in->ctx, a->loc, "%s can only be used inside @tilelang.jit or @T.prim_func",
                 fname);
    if (!d) {
        read_pass_configs(in, in->func, av[0], a->loc);
        return val_none(in);
    }
    bool one = av[0]->kind == V_STR;
    if (!one && av[0]->kind != V_LIST && av[0]->kind != V_TUPLE)
        ctx_fail(in->ctx, a->loc, "%s takes a flag or a list of flags, got %s", fname,
                 val_describe(in, av[0]));
    for (int i = 0; i < (one ? 1 : av[0]->u.items.len); i++) {
        Value *f = one ? av[0] : av[0]->u.items.data[i];
        if (f->kind != V_STR)
            ctx_fail(in->ctx, a->loc, "%s: a flag is a string, got %s", fname, val_describe(in, f));
        compile_flag_apply(in->ctx, in->func, f->u.s, a->loc);
    }
    return val_none(in);
}

/* T.has_let_value(v) / T.get_let_value(v): whether v is a name a kernel's `v = expr`
 * bound (TileLang's eager builder binds a PrimExpr so) / that expr, else None. */
static Value *t_let_value(Interp *in, CallArgs *a, void *d) {
    Value *av[1];
    args_bind(in, a, d ? "T.get_let_value" : "T.has_let_value", "var", av, 1);
    const Expr *e = av[0]->kind == V_EXPR ? av[0]->u.expr : NULL;
    const Expr *bound = e && e->kind == EXPR_VAR ? e->u.var->bound_value : NULL;
    if (!d) return val_bool(in, bound != NULL);
    return bound ? val_expr(in, (Expr *)bound) : val_none(in);
}

/* T.allocate(shape, dtype="float32", scope="global", annotations=None): TVM's
 * alloc_buffer, which TileLang re-exports: T.alloc_global for "global", else
 * T.alloc_buffer's scopes. */
static Value *t_allocate(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[4];
    args_bind(in, a, "T.allocate", "shape, dtype=, scope=, annotations=", av, 4);
    Value *v[3] = {av[0], av[1] && av[1]->kind != V_NONE ? av[1] : val_str(in, "float32"),
                   av[2] && av[2]->kind != V_NONE ? av[2] : val_str(in, "global")};
    if (v[2]->kind == V_STR && !strcmp(v[2]->u.s, "global")) {
        CallArgs b = args_of(in, a->loc, 2, v);
        return call_t(in, "alloc_global", &b);
    }
    CallArgs b = args_of(in, a->loc, 2, v);
    VEC_PUSH(ARENA, b.kw, v[2]);
    VEC_PUSH(ARENA, b.names, "scope");
    return call_t(in, "alloc_buffer", &b);
}

/* ---- T.reduce and the reducer API ---------------------------------------------------- */
static Value *t_reduce_generic(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[5];
    args_bind(in, a, "T.reduce", "buffer, out, reduce_type, dim, clear", av, 5);
    static const char *const kinds[] = {"sum",    "max",    "min",   "abssum",
                                        "absmax", "bitand", "bitor", "bitxor"};
    const char *k = av[2]->kind == V_STR ? av[2]->u.s : "";
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (!strcmp(k, kinds[i])) {
            Value *rest[4] = {av[0], av[1], av[3], av[4]};
            CallArgs b = args_of(in, a->loc, 4, rest);
            return call_t(in, arena_printf(ARENA, "reduce_%s", k), &b);
        }
    ctx_fail(in->ctx, a->loc,
             "T.reduce: reduce_type must be one of \"sum\", \"max\", \"min\", \"abssum\", "
             "\"absmax\", \"bitand\", \"bitor\", \"bitxor\", got %s",
             val_describe(in, av[2]));
}

static Value *t_reducer_init(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.reducer_init", "reducer, init=", av, 2);
    if (av[0]->kind != V_BUFFER || !av[0]->u.buf->reducer)
        ctx_fail(in->ctx, a->loc, "T.reducer_init takes a T.alloc_reducer buffer, got %s",
                 val_describe(in, av[0]));
    Value *fill[2] = {av[0], av[1] && av[1]->kind != V_NONE ? av[1] : val_int(in, 0)};
    CallArgs b = args_of(in, a->loc, 2, fill);
    call_t(in, "fill", &b);
    emit_stmt(in, ir_stmt(in->ctx, STMT_SYNC, a->loc)); /* the fill before any update */
    return val_none(in);
}

static Value *t_reducer_update(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.reducer_update", "target, value", av, 2);
    const Expr *e = av[0]->kind == V_EXPR ? av[0]->u.expr : NULL;
    if (!e || e->kind != EXPR_LOAD || !e->u.load.buf->reducer)
        ctx_fail(in->ctx, a->loc,
                 "T.reducer_update expects `acc[indices]` of a T.alloc_reducer buffer, got %s",
                 val_describe(in, av[0]));
    CallArgs b = args_of(in, a->loc, 2, av);
    call_t(in, "atomic_add", &b);
    return val_none(in);
}

/* ---- T.transpose ----------------------------------------------------------------------- */
/* dst[..., j, i] = src[..., i, j]: a T.Parallel nest over dst's extents (copy_op.py: src
 * (..., M, N), dst (..., N, M); constant extents). */
static Value *t_transpose(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *f = "T.transpose";
    Value *av[3];
    args_bind(in, a, f, "src, dst, annotations=", av, 3);
    need_kernel(in, a->loc, f);
    Region src = value_to_region(in, av[0], NULL, a->loc, f);
    Region dst = value_to_region(in, av[1], NULL, a->loc, f);
    int n = dst.ndim;
    int64_t se[8], de[8];
    bool ok = n >= 2 && n <= 8 && src.ndim == n;
    for (int k = 0; ok && k < n; k++)
        ok = ir_is_const_int(src.extent[k], &se[k]) && ir_is_const_int(dst.extent[k], &de[k]);
    for (int k = 0; ok && k < n; k++) ok = de[k] == se[k < n - 2 ? k : 2 * n - 3 - k];
    if (!ok)
        ctx_fail(in->ctx, a->loc,
                 "%s: src (..., M, N) and dst (..., N, M) of equal rank (2 to 8) and constant "
                 "extents",
                 f);
    Ctx *c = in->ctx;
    Var *v[8];
    Expr **si = NEW_ARRAY(ARENA, Expr *, n), **di = NEW_ARRAY(ARENA, Expr *, n);
    for (int k = 0; k < n; k++) v[k] = ir_var(c, arena_printf(ARENA, "t%d_transpose", k), DT_INT32);
    for (int k = 0; k < n; k++) {
        Var *at = v[k < n - 2 ? k : 2 * n - 3 - k];
        di[k] = ir_bin(c, OP_ADD, dst.start[k], ir_varref(c, v[k], a->loc), a->loc);
        si[k] = ir_bin(c, OP_ADD, src.start[k], ir_varref(c, at, a->loc), a->loc);
    }
    Stmt *loop = ir_stmt(c, STMT_STORE, a->loc);
    loop->u.store.buf = dst.buf;
    loop->u.store.idx = di;
    loop->u.store.value = ir_cast(c, dst.buf->dtype, ir_load(c, src.buf, si, a->loc), a->loc);
    for (int k = n - 1; k >= 0; k--) {
        Stmt *fo = ir_stmt(c, STMT_FOR, a->loc);
        fo->u.for_.var = v[k], fo->u.for_.min = ir_int(c, 0, DT_INT32, a->loc);
        fo->u.for_.extent = ir_int(c, de[k], DT_INT32, a->loc);
        fo->u.for_.kind = LOOP_PARALLEL, fo->u.for_.body = loop;
        loop = fo;
    }
    emit_stmt(in, loop);
    return val_none(in);
}

/* ---- fixed-point multiply ------------------------------------------------------------ */
static Expr *int32_arg(Interp *in, Value *v, Loc loc, const char *fname, const char *what) {
    Expr *e = val_to_expr(in, v, loc, what);
    if (e->dtype != DT_INT32) {
        int64_t c;
        if (!ir_is_const_int(e, &c) || c < INT32_MIN || c > INT32_MAX)
            ctx_fail(in->ctx, loc, "%s: %s must be an int32, got %s", fname, what,
                     val_describe(in, v));
        e = ir_int(in->ctx, c, DT_INT32, loc);
    }
    return e;
}

/* round(x * y * 2^ls / 2^(q + rs)), half up, in int64, as int32 (TVM's lowering). */
static Expr *q_multiply(Interp *in, Expr *x, Expr *y, Expr *ls, Expr *rs, Expr *q, Loc loc) {
    Ctx *c = in->ctx;
    Expr *one = ir_int(c, 1, DT_INT64, loc);
    Expr *prod = ir_bin(c, OP_MUL, ir_cast(c, DT_INT64, x, loc), ir_cast(c, DT_INT64, y, loc), loc);
    /* x << ls as a multiply by 2^ls: the same bits, without C's undefined left shift of a
     * negative number */
    prod = ir_bin(c, OP_MUL, prod, ir_bin(c, OP_SHL, one, ir_cast(c, DT_INT64, ls, loc), loc), loc);
    Expr *total = ir_cast(c, DT_INT64, ir_bin(c, OP_ADD, rs, q, loc), loc);
    Expr *round = ir_bin(c, OP_SHL, one, ir_bin(c, OP_SUB, total, one, loc), loc);
    Expr *r = ir_bin(c, OP_SHR, ir_bin(c, OP_ADD, prod, round, loc), total, loc);
    return ir_cast(c, DT_INT32, r, loc);
}

static Value *t_q_multiply_shift(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *f = "T.q_multiply_shift";
    Value *av[4];
    args_bind(in, a, f, "x, y, q, s", av, 4);
    Ctx *c = in->ctx;
    Expr *x = int32_arg(in, av[0], a->loc, f, "x"), *y = int32_arg(in, av[1], a->loc, f, "y");
    Expr *q = int32_arg(in, av[2], a->loc, f, "q"), *s = int32_arg(in, av[3], a->loc, f, "s");
    Expr *zero = ir_int(c, 0, DT_INT32, a->loc);
    Expr *pos = ir_bin(c, OP_GT, s, zero, a->loc);
    Expr *ls = ir_select(c, pos, s, zero, a->loc);
    Expr *rs = ir_select(c, pos, zero, ir_bin(c, OP_SUB, zero, s, a->loc), a->loc);
    return val_expr(in, q_multiply(in, x, y, ls, rs, q, a->loc));
}

static Value *t_q_multiply_shift_per_axis(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *f = "T.q_multiply_shift_per_axis";
    Value *av[7];
    args_bind(in, a, f, "x, y, ls, rs, q, is_lshift_required, is_rshift_required", av, 7);
    Ctx *c = in->ctx;
    Expr *x = int32_arg(in, av[0], a->loc, f, "x"), *y = int32_arg(in, av[1], a->loc, f, "y");
    Expr *ls = int32_arg(in, av[2], a->loc, f, "ls"), *rs = int32_arg(in, av[3], a->loc, f, "rs");
    Expr *q = int32_arg(in, av[4], a->loc, f, "q");
    Expr *zero = ir_int(c, 0, DT_INT32, a->loc);
    if (!val_truthy(in, av[5], a->loc)) ls = zero;
    (void)val_truthy(in, av[6], a->loc); /* TVM's lowering shifts by rs either way */
    return val_expr(in, q_multiply(in, x, y, ls, rs, q, a->loc));
}

/* ---- names without a meaning in tilec -------------------------------------------------- */
static Value *t_no_meaning(Interp *in, CallArgs *a, void *d) {
    const char *const *what = d; /* {name, why} */
    ctx_fail(in->ctx, a->loc, "T.%s has no meaning in tilec: %s", what[0], what[1]);
}

static const char *const no_meaning[][2] = {
    {"undef", "give the variable a value (T.alloc_var(dtype, init))"},
    {"ret", "return from a T.macro with `return`; a kernel returns nothing"},
};

/* ---- the table ------------------------------------------------------------------------ */
#define TYPE(n)                                                                                    \
    { #n, t_type, #n, "C, CUDA (a type: annotations, isinstance)" }
static const TName py[] = {
    {"SharedBuffer", t_scoped_buffer, shared_buffer, "C, CUDA (a T.macro parameter's type)"},
    {"FragmentBuffer", t_scoped_buffer, fragment_buffer, "C, CUDA (a T.macro parameter's type)"},
    {"LocalBuffer", t_scoped_buffer, local_buffer, "C, CUDA (a T.macro parameter's type)"},
    TYPE(PrimFunc),
    TYPE(JITFunc),
    TYPE(PrimExpr),
    TYPE(IntImm),
    TYPE(StringImm),
    TYPE(KernelLaunchFrame),
    TYPE(WarpSpecializeFrame),
    TYPE(AnyDType),
    {"Any", t_type, "Any", "C, CUDA (a type: annotations)"},
    {"Ref", t_type, "Ref", "C, CUDA (a T.macro parameter passed by reference)"},
    {"meta_class", t_decorator, "T.meta_class", NULL},
    {"inline", t_decorator, "T.inline", NULL},
    {"get_tvm_dtype", t_get_tvm_dtype, NULL, "C, CUDA (meta level)"},
    {"is_float4_e2m1fn", t_dtype_pred, (void *)(intptr_t)IS_E2M1FN, "C, CUDA (meta level)"},
    {"is_float4_e2m1_unpacked", t_dtype_pred, (void *)(intptr_t)IS_E2M1_UNPACKED,
     "C, CUDA (meta level)"},
    {"is_float4", t_dtype_pred, (void *)(intptr_t)IS_FLOAT4, "C, CUDA (meta level)"},
    {"is_f8f6f4_family", t_dtype_pred, (void *)(intptr_t)IS_F8F6F4, "C, CUDA (meta level)"},
    {"validate_gemm_ab_dtypes", t_validate_gemm_ab, NULL, "C, CUDA (meta level)"},
    {"Vectorized", t_alias, "vectorized", "C, CUDA (step 1 only)"},
    {"annotate_restrict_buffers", t_restrict_buffers, NULL, "C, CUDA (a hint: no effect)"},
    {"align_up", t_align_up, NULL, NULL},
    {"tvm_thread_invariant", t_thread_invariant, NULL, "C, CUDA (a hint: the condition)"},
    {"reduce", t_reduce_generic, NULL, NULL},
    {"reducer_init", t_reducer_init, NULL, NULL},
    {"reducer_update", t_reducer_update, NULL, NULL},
    {"q_multiply_shift", t_q_multiply_shift, NULL, NULL},
    {"q_multiply_shift_per_axis", t_q_multiply_shift_per_axis, NULL, NULL},
    {"annotate_pass_configs", t_annotate_configs, NULL, NULL},
    {"annotate_compile_flags", t_annotate_configs, "flags",
     "C, CUDA (`--use_fast_math` honoured; other flags: a warning)"},
    {"transpose", t_transpose, NULL, NULL},
    {"has_let_value", t_let_value, NULL, NULL},
    {"get_let_value", t_let_value, "get", NULL},
    {"allocate", t_allocate, NULL, NULL},
    {"undef", t_no_meaning, no_meaning[0], "not yet (compile error: no meaning in tilec)"},
    {"ret", t_no_meaning, no_meaning[1], "not yet (compile error: no meaning in tilec)"},
};
#undef TYPE

const TNames tl_py_names = {py, (int)(sizeof py / sizeof *py)};
