/* tileops_vec.c - TileLang's vector dtypes and values, and its packed x2 arithmetic.
 *
 * A vector dtype is a scalar dtype and a lane count: "float16x2", "int8x4", T.float32x2
 * (any scalar dtype but bool, 2 to 64 lanes). tilec keeps vectors in the front end
 * only: a vector value (V_VEC) is its lanes, one scalar IR expression each, and the IR
 * the passes and targets see is scalar. So each lane is computed, rounded and stored
 * exactly as the same scalar operation would be, which is what CUDA's packed
 * intrinsics do per lane (__hadd2 rounds each lane's exact sum to nearest, __hfma2
 * each lane's exact a * b + c once); the CUDA target prints the scalar operations.
 *
 *   T.float16x2(a, b)            packs scalars (one scalar: every lane; one vector of as
 *                                many lanes: converted lane by lane, as T.cast(v, dtype))
 *   T.add2, sub2, mul2, max2, min2 (x, y), fma2 (x, y, z), abs2 (x)
 *                                lane-wise, of float16x2, bfloat16x2 or float32x2 values
 *                                of one dtype (TileLang's _PACKED_X2_DTYPES); fma2 is one
 *                                rounding per lane; max2 / min2 return the other operand
 *                                where one is NaN (__hmax2, fmaxf)
 *   T.extract_lane(v, i)         lane i (a compile-time int) of vector v
 *   T.Shuffle(vectors, indices)  the lanes `indices` of the vectors' lanes concatenated
 *                                (one index: a scalar)
 *   T.vectorlow(dtype, v), T.vectorhigh(dtype, v)
 *                                the low / high half of v's lanes, of dtype
 *   T.vectorcombine(dtype, a, b) a's lanes then b's, of dtype
 *   a + b, a - b, a * b, a / b, -a
 *                                lane-wise (TVM's vector arithmetic); a Python number or a
 *                                scalar of the element dtype applies to every lane
 *   T.reinterpret(dtype, v)      the same bits: a vector as a scalar of its whole width
 *                                (lane 0 in the low bits, as the GPU's registers hold
 *                                them), a scalar as a vector, a vector as another
 *
 * Buffers of a vector dtype (T.alloc_local / alloc_fragment / alloc_shared(shape,
 * "float16x2")) are buffers of the element dtype with one more dimension, the lanes
 * (Buffer.lanes); buf[i] is a vector, buf[i] = v stores its lanes. A vector
 * T.alloc_var is a local buffer of one vector whose name reads as the vector and
 * rebinding the name stores (Buffer.vec_var). Tile operations on vector buffers, slices
 * of them and vector kernel parameters are errors (tilec has no vector tensors), and so
 * are T.float4_e2m1fn and T.float8_e8m0fnu (T.int4 and T.uint4 are dtypes: subbyte.c).
 * Errors name the T function and point at the user's line. */
#include "frontend/eval.h"
#include "ir/ir_walk.h"

#include <stdlib.h>
#include <string.h>

#define ARENA (&in->ctx->arena)

typedef Vec(Expr *) Lanes;

/* ---- vector dtypes ------------------------------------------------------------------------ */
bool vec_dtype_parse(const char *name, DType *elem, int *lanes) {
    const char *x = strrchr(name, 'x');
    if (!x || x == name || !x[1] || x[1] == '0') return false;
    char *end;
    long n = strtol(x + 1, &end, 10);
    if (*end || n < 2 || n > 64) return false;
    char scalar[64];
    size_t len = (size_t)(x - name);
    if (len >= sizeof scalar) return false;
    memcpy(scalar, name, len);
    scalar[len] = 0;
    DType t = dtype_parse(scalar);
    if (t == DT_INVALID || t == DT_BOOL) return false;
    *elem = t, *lanes = (int)n;
    return true;
}

static Value *vdtype(Interp *in, DType elem, int lanes) {
    Value *v = val_new(in, V_VEC_DTYPE);
    v->u.vec.elem = elem;
    v->u.vec.lanes = lanes;
    return v;
}

static const char *vname(Interp *in, DType elem, int lanes) {
    return arena_printf(ARENA, "%sx%d", dtype_name(elem), lanes);
}

/* TileLang's fp4 and scale dtypes, which tilec does not have yet: values whose use is an
 * error saying so (comparing a dtype with them too). */
static const char *const unsupported_dtypes[] = {"float4_e2m1fn", "float8_e8m0fnu"};

Value *vec_dtype_attr(Interp *in, const char *attr) {
    DType elem;
    int lanes;
    if (vec_dtype_parse(attr, &elem, &lanes)) return vdtype(in, elem, lanes);
    for (size_t i = 0; i < sizeof unsupported_dtypes / sizeof *unsupported_dtypes; i++)
        if (!strcmp(attr, unsupported_dtypes[i])) {
            Value *v = val_new(in, V_ERROR);
            v->u.error.use_msg = arena_printf(ARENA,
                                              "T.%s is not supported yet by tilec (no fp4 "
                                              "or scale dtypes; packed uint8 storage with bit "
                                              "operations is)",
                                              attr);
            return v;
        }
    return NULL;
}

DType vec_dtype_arg(Interp *in, Value *v, int *lanes, Loc loc, const char *what) {
    DType elem;
    *lanes = 0;
    if (v->kind == V_VEC_DTYPE) {
        *lanes = v->u.vec.lanes;
        return v->u.vec.elem;
    }
    if (v->kind == V_STR && vec_dtype_parse(v->u.s, &elem, lanes)) return elem;
    return val_to_dtype(in, v, loc, what);
}

/* ---- vector values --------------------------------------------------------------------- */
static Value *vec_new(Interp *in, DType elem, int lanes) {
    Value *v = val_new(in, V_VEC);
    v->u.vec.elem = elem;
    v->u.vec.lanes = lanes;
    v->u.vec.lane = NEW_ARRAY(ARENA, Expr *, lanes);
    return v;
}

static const char *vdesc(Interp *in, Value *v) {
    if (v->kind == V_VEC) return vname(in, v->u.vec.elem, v->u.vec.lanes);
    if (v->kind == V_EXPR) return dtype_name(v->u.expr->dtype);
    return val_describe(in, v);
}

/* The loads of buf's element idx (ndim - 1 indices), one per lane. */
static Value *vec_load(Interp *in, Buffer *buf, Expr **idx, Loc loc) {
    Value *r = vec_new(in, buf->dtype, buf->lanes);
    for (int k = 0; k < buf->lanes; k++) {
        Expr **full = NEW_ARRAY(ARENA, Expr *, buf->ndim);
        for (int d = 0; d + 1 < buf->ndim; d++) full[d] = idx[d];
        full[buf->ndim - 1] = ir_int(in->ctx, k, DT_INT32, loc);
        r->u.vec.lane[k] = ir_load(in->ctx, buf, full, loc);
    }
    return r;
}

static void vec_store_at(Interp *in, Buffer *buf, Expr **idx, Value *v, Loc loc) {
    Value *x = vec_value(in, v, loc);
    if (!x || x->u.vec.elem != buf->dtype || x->u.vec.lanes != buf->lanes)
        ctx_fail(in->ctx, loc, "buffer '%s' holds %s values; cannot store %s", buf->name,
                 vname(in, buf->dtype, buf->lanes), vdesc(in, v));
    for (int k = 0; k < buf->lanes; k++) {
        Expr **full = NEW_ARRAY(ARENA, Expr *, buf->ndim);
        for (int d = 0; d + 1 < buf->ndim; d++) full[d] = idx[d];
        full[buf->ndim - 1] = ir_int(in->ctx, k, DT_INT32, loc);
        Stmt *s = ir_stmt(in->ctx, STMT_STORE, loc);
        s->u.store.buf = buf;
        s->u.store.idx = full;
        s->u.store.value = x->u.vec.lane[k];
        emit_stmt(in, s);
    }
}

Value *vec_value(Interp *in, Value *v, Loc loc) {
    if (v->kind == V_VEC) return v;
    if (v->kind == V_BUFFER && v->u.buf->vec_var) return vec_load(in, v->u.buf, NULL, loc);
    return NULL;
}

/* v as a vector of elem x lanes: a vector of exactly that, or a scalar put in every lane
 * (a Python number, or a scalar of dtype elem). */
static Value *vec_as(Interp *in, Value *v, DType elem, int lanes, Loc loc, const char *fname) {
    Value *x = vec_value(in, v, loc);
    if (x) {
        if (x->u.vec.elem != elem || x->u.vec.lanes != lanes)
            ctx_fail(in->ctx, loc, "%s: mixing %s and %s vectors", fname, vname(in, elem, lanes),
                     vdesc(in, x));
        return x;
    }
    Expr *e;
    if (v->kind == V_FLOAT && dtype_is_float(elem)) e = ir_float(in->ctx, v->u.f, elem, loc);
    else if (v->kind == V_INT || v->kind == V_BOOL || v->kind == V_FLOAT)
        e = ir_cast(in->ctx, elem, val_to_expr(in, v, loc, fname), loc);
    else {
        e = val_to_expr(in, v, loc, fname);
        if (e->dtype != elem)
            ctx_fail(in->ctx, loc, "%s: mixing %s vectors and a %s scalar", fname,
                     vname(in, elem, lanes), dtype_name(e->dtype));
    }
    Value *r = vec_new(in, elem, lanes);
    for (int k = 0; k < lanes; k++) r->u.vec.lane[k] = e;
    return r;
}

/* ---- dtype calls, arithmetic, names, stores ------------------------------------------- */
Value *vec_dtype_call(Interp *in, Value *dt, CallArgs *a) {
    DType elem = dt->u.vec.elem;
    int lanes = dt->u.vec.lanes, n = a->pos.len;
    const char *name = vname(in, elem, lanes);
    if (a->kw.len || (n != 1 && n != lanes))
        ctx_fail(in->ctx, a->loc, "%s() takes 1 or %d arguments (its lanes), got %d", name, lanes,
                 n + a->kw.len);
    Value *one = n == 1 ? vec_value(in, a->pos.data[0], a->loc) : NULL;
    if (one) { /* a vector converted lane by lane */
        if (one->u.vec.lanes != lanes)
            ctx_fail(in->ctx, a->loc, "%s(): cannot convert a %s vector (lanes differ)", name,
                     vdesc(in, one));
        Value *r = vec_new(in, elem, lanes);
        for (int k = 0; k < lanes; k++)
            r->u.vec.lane[k] = ir_cast(in->ctx, elem, one->u.vec.lane[k], a->loc);
        return r;
    }
    Value *r = vec_new(in, elem, lanes);
    for (int k = 0; k < lanes; k++) {
        Value *x = a->pos.data[n == 1 ? 0 : k];
        if (x->kind == V_VEC || (x->kind == V_BUFFER && x->u.buf->vec_var))
            ctx_fail(in->ctx, a->loc, "%s(): lane %d must be a scalar, got a %s vector", name, k,
                     vdesc(in, vec_value(in, x, a->loc)));
        r->u.vec.lane[k] = x->kind == V_FLOAT && dtype_is_float(elem)
                               ? ir_float(in->ctx, x->u.f, elem, a->loc)
                               : ir_cast(in->ctx, elem, val_to_expr(in, x, a->loc, name), a->loc);
    }
    return r;
}

Value *vec_cast(Interp *in, Value *x, DType elem, int lanes, Loc loc) {
    CallArgs a = {.loc = loc};
    VEC_PUSH(ARENA, a.pos, x);
    return vec_dtype_call(in, vdtype(in, elem, lanes), &a);
}

Value *vec_binop(Interp *in, const char *op, Value *a, Value *b, Loc loc) {
    Value *va = vec_value(in, a, loc), *vb = vec_value(in, b, loc);
    if (!va && !vb) return NULL;
    if (strcmp(op, "+") && strcmp(op, "-") && strcmp(op, "*") && strcmp(op, "/"))
        ctx_fail(in->ctx, loc, "operator '%s' is not supported on %s vectors (+ - * / are)", op,
                 vdesc(in, va ? va : vb));
    Value *v = va ? va : vb;
    const char *what = arena_printf(ARENA, "operator '%s'", op);
    va = vec_as(in, a, v->u.vec.elem, v->u.vec.lanes, loc, what);
    vb = vec_as(in, b, v->u.vec.elem, v->u.vec.lanes, loc, what);
    Value *r = vec_new(in, v->u.vec.elem, v->u.vec.lanes);
    for (int k = 0; k < v->u.vec.lanes; k++) {
        Value *x = eval_binop(in, op, val_expr(in, va->u.vec.lane[k]),
                              val_expr(in, vb->u.vec.lane[k]), loc);
        r->u.vec.lane[k] = val_to_expr(in, x, loc, what);
    }
    return r;
}

Value *vec_unary(Interp *in, const char *op, Value *v, Loc loc) {
    Value *x = vec_value(in, v, loc);
    if (!x) return NULL;
    if (strcmp(op, "-") && strcmp(op, "+"))
        ctx_fail(in->ctx, loc, "operator '%s' is not supported on %s vectors", op, vdesc(in, x));
    if (op[0] == '+') return x;
    Value *r = vec_new(in, x->u.vec.elem, x->u.vec.lanes);
    for (int k = 0; k < x->u.vec.lanes; k++)
        r->u.vec.lane[k] = ir_un(in->ctx, OP_NEG, x->u.vec.lane[k], loc);
    return r;
}

/* The indices of a vector buffer's element: one per dimension but the lanes'. */
static Expr **vec_index(Interp *in, Buffer *buf, Value *index, Loc loc) {
    ValueList items = {0};
    if (index->kind == V_TUPLE) items = index->u.items;
    else VEC_PUSH(ARENA, items, index);
    int want = buf->ndim - 1;
    if (items.len != want)
        ctx_fail(in->ctx, loc, "buffer '%s' of %s has %d dimension%s but %d ind%s given", buf->name,
                 vname(in, buf->dtype, buf->lanes), want, want == 1 ? "" : "s", items.len,
                 items.len == 1 ? "ex is" : "ices are");
    Expr **idx = NEW_ARRAY(ARENA, Expr *, want + 1);
    for (int i = 0; i < want; i++) {
        Value *it = items.data[i];
        if (it->kind == V_SLICE || it->kind == V_ELLIPSIS)
            ctx_fail(in->ctx, loc,
                     "slices of buffer '%s' of %s are not supported (tilec has no tile "
                     "operations on vector buffers; index one element)",
                     buf->name, vname(in, buf->dtype, buf->lanes));
        idx[i] = val_to_expr(in, it, loc, "index");
        if (!dtype_is_int(idx[i]->dtype) || idx[i]->dtype == DT_BOOL)
            ctx_fail(in->ctx, loc, "buffer index must be an integer, got a %s value",
                     dtype_name(idx[i]->dtype));
    }
    return idx;
}

Value *vec_subscript(Interp *in, Buffer *buf, Value *index, Loc loc) {
    return vec_load(in, buf, vec_index(in, buf, index, loc), loc);
}

void vec_store(Interp *in, Buffer *buf, Value *index, Value *v, Loc loc) {
    vec_store_at(in, buf, vec_index(in, buf, index, loc), v, loc);
}

bool vec_assign_name(Interp *in, Value *old, Value **v, const char *name, Loc loc) {
    if (old && old->kind == V_BUFFER && old->u.buf->vec_var && (*v)->kind != V_BUFFER) {
        vec_store_at(in, old->u.buf, NULL, *v, loc);
        return true;
    }
    if ((*v)->kind != V_VEC) return false;
    Value *r = vec_new(in, (*v)->u.vec.elem, (*v)->u.vec.lanes);
    for (int k = 0; k < r->u.vec.lanes; k++) {
        Expr *e = (*v)->u.vec.lane[k];
        if (e->kind != EXPR_INT && e->kind != EXPR_FLOAT && e->kind != EXPR_VAR) {
            Var *var = ir_var(in->ctx, arena_printf(ARENA, "%s_%d", name, k), e->dtype);
            if (!ir_expr_loads(e)) var->let_value = e;
            var->bound_value = e;
            Stmt *s = ir_stmt(in->ctx, STMT_LET, loc);
            s->u.let.var = var;
            s->u.let.value = e;
            emit_stmt(in, s);
            e = ir_varref(in->ctx, var, loc);
        }
        r->u.vec.lane[k] = e;
    }
    *v = r;
    return false;
}

Value *vec_alloc_var(Interp *in, DType elem, int lanes, Value *init, Loc loc) {
    Buffer *b = ir_buffer(in->ctx, arena_printf(ARENA, "__tmp%d", in->ctx->next_id), elem,
                          SCOPE_LOCAL, 1, loc);
    b->shape[0] = ir_int(in->ctx, lanes, DT_INT32, loc);
    b->lanes = lanes;
    b->vec_var = true;
    Stmt *s = ir_stmt(in->ctx, STMT_ALLOC, loc);
    s->u.alloc.buf = b;
    emit_stmt(in, s);
    if (init && init->kind != V_NONE)
        vec_store_at(in, b, NULL, vec_as(in, init, elem, lanes, loc, "T.alloc_var init"), loc);
    Value *v = val_new(in, V_BUFFER);
    v->u.buf = b;
    return v;
}

/* ---- reinterpret ------------------------------------------------------------------------- */
static DType uint_of_bits(int bits) {
    return bits == 8 ? DT_UINT8 : bits == 16 ? DT_UINT16 : bits == 32 ? DT_UINT32 : DT_UINT64;
}

/* The bits of scalar e as an unsigned integer of its width. */
static Expr *bits_of(Interp *in, Expr *e, Loc loc) {
    DType u = uint_of_bits(dtype_bits(e->dtype));
    return dtype_is_float(e->dtype) ? ir_bitcast(in->ctx, u, e, loc) : ir_cast(in->ctx, u, e, loc);
}

/* Unsigned bits u as dtype t of the same width. */
static Expr *from_bits(Interp *in, Expr *u, DType t, Loc loc) {
    return dtype_is_float(t) ? ir_bitcast(in->ctx, t, u, loc) : ir_cast(in->ctx, t, u, loc);
}

/* A vector's lanes as one unsigned integer, lane 0 in the low bits. */
static Expr *vec_pack(Interp *in, Value *x, Loc loc) {
    int eb = dtype_bits(x->u.vec.elem);
    DType u = uint_of_bits(eb * x->u.vec.lanes);
    Expr *r = NULL;
    for (int k = 0; k < x->u.vec.lanes; k++) {
        Expr *w = ir_cast(in->ctx, u, bits_of(in, x->u.vec.lane[k], loc), loc);
        if (k) w = ir_bin(in->ctx, OP_SHL, w, ir_int(in->ctx, k * eb, u, loc), loc);
        r = r ? ir_bin(in->ctx, OP_BITOR, r, w, loc) : w;
    }
    return r;
}

static Value *vec_unpack(Interp *in, Expr *u, DType elem, int lanes, Loc loc) {
    int eb = dtype_bits(elem);
    Value *r = vec_new(in, elem, lanes);
    for (int k = 0; k < lanes; k++) {
        Expr *w = k ? ir_bin(in->ctx, OP_SHR, u, ir_int(in->ctx, k * eb, u->dtype, loc), loc) : u;
        r->u.vec.lane[k] = from_bits(in, ir_cast(in->ctx, uint_of_bits(eb), w, loc), elem, loc);
    }
    return r;
}

Value *vec_reinterpret(Interp *in, Value *value, Value *dtype, Loc loc) {
    int lanes;
    DType to = vec_dtype_arg(in, dtype, &lanes, loc, "dtype");
    Value *x = vec_value(in, value, loc);
    if (!x && !lanes) return NULL;
    int from_bits_n = x ? dtype_bits(x->u.vec.elem) * x->u.vec.lanes : 0;
    Expr *s = x                        ? NULL
              : value->kind == V_FLOAT ? ir_float(in->ctx, value->u.f, DT_FLOAT32, loc)
                                       : val_to_expr(in, value, loc, "T.reinterpret value");
    if (s) from_bits_n = dtype_bits(s->dtype);
    int to_bits = dtype_bits(to) * (lanes ? lanes : 1);
    const char *from_name = x ? vdesc(in, x) : dtype_name(s->dtype);
    const char *to_name = lanes ? vname(in, to, lanes) : dtype_name(to);
    if (from_bits_n != to_bits || (s && s->dtype == DT_BOOL) || to == DT_BOOL)
        ctx_fail(in->ctx, loc, "T.reinterpret: %s and %s differ in width (or are bool)", from_name,
                 to_name);
    if (x && lanes && x->u.vec.lanes == lanes) { /* lane by lane */
        Value *r = vec_new(in, to, lanes);
        for (int k = 0; k < lanes; k++)
            r->u.vec.lane[k] = from_bits(in, bits_of(in, x->u.vec.lane[k], loc), to, loc);
        return r;
    }
    if (to_bits > 64)
        ctx_fail(in->ctx, loc,
                 "T.reinterpret: %s as %s needs a %d-bit integer on the way (64 bits at most)",
                 from_name, to_name, to_bits);
    Expr *u = x ? vec_pack(in, x, loc) : bits_of(in, s, loc);
    if (!lanes) return val_expr(in, from_bits(in, u, to, loc));
    return vec_unpack(in, u, to, lanes, loc);
}

/* ---- T names -------------------------------------------------------------------------- */
static void nargs(Interp *in, CallArgs *a, int n, const char *fname) {
    if (a->pos.len != n || a->kw.len)
        ctx_fail(in->ctx, a->loc, "%s() takes %d positional argument%s, got %d", fname, n,
                 n == 1 ? "" : "s", a->pos.len + a->kw.len);
}

/* A vector operand of a function (errors name it). */
static Value *vec_arg(Interp *in, Value *v, Loc loc, const char *fname) {
    Value *x = vec_value(in, v, loc);
    if (!x)
        ctx_fail(in->ctx, loc, "%s expects a vector expression, but got %s", fname,
                 v->kind == V_EXPR ? arena_printf(ARENA, "dtype %s", dtype_name(v->u.expr->dtype))
                                   : val_describe(in, v));
    return x;
}

/* A compile-time int argument. */
static int64_t const_arg(Interp *in, Value *v, Loc loc, const char *fname, const char *what) {
    int64_t c;
    if (v->kind == V_BOOL || !val_is_const_int(v, &c))
        ctx_fail(in->ctx, loc, "%s expects a compile-time integer %s, but got %s", fname, what,
                 val_describe(in, v));
    return c;
}

typedef enum { P_ADD, P_SUB, P_MUL, P_FMA, P_MAX, P_MIN, P_ABS } PackedOp;

static Expr *packed_lane(Interp *in, PackedOp op, Expr **x, Loc loc) {
    static const BinOp bin[] =
        {[P_ADD] = OP_ADD, [P_SUB] = OP_SUB, [P_MUL] = OP_MUL, [P_MAX] = OP_MAX, [P_MIN] = OP_MIN};
    switch (op) {
    case P_FMA: return ir_call_n(in->ctx, FN_IEEE_FMA, x, ROUND_RN, loc);
    case P_ABS: return ir_call(in->ctx, FN_ABS, x[0], NULL, loc);
    default: return ir_bin(in->ctx, bin[op], x[0], x[1], loc);
    }
}

static const struct {
    const char *name;
    int n;
} packed_ops[] = {
    [P_ADD] = {"add2", 2}, [P_SUB] = {"sub2", 2}, [P_MUL] = {"mul2", 2}, [P_FMA] = {"fma2", 3},
    [P_MAX] = {"max2", 2}, [P_MIN] = {"min2", 2}, [P_ABS] = {"abs2", 1}};

static Value *t_packed(Interp *in, CallArgs *a, void *d) {
    PackedOp op = (PackedOp)(intptr_t)d;
    const char *fname = arena_printf(ARENA, "T.%s", packed_ops[op].name);
    int n = packed_ops[op].n;
    nargs(in, a, n, fname);
    Value *x[3];
    for (int i = 0; i < n; i++) {
        x[i] = vec_value(in, a->pos.data[i], a->loc);
        DType t = x[i] ? x[i]->u.vec.elem : DT_INVALID;
        bool ok = x[i] && x[i]->u.vec.lanes == 2 &&
                  (t == DT_FLOAT16 || t == DT_BFLOAT16 || t == DT_FLOAT32);
        if (!ok)
            ctx_fail(in->ctx, a->loc,
                     "%s: expected dtype in ['bfloat16x2', 'float16x2', 'float32x2'], got '%s'",
                     fname, vdesc(in, x[i] ? x[i] : a->pos.data[i]));
        if (i && (x[i]->u.vec.elem != x[0]->u.vec.elem))
            ctx_fail(in->ctx, a->loc,
                     "%s: expected all packed x2 arguments to have the same dtype, got %s and %s",
                     fname, vdesc(in, x[0]), vdesc(in, x[i]));
    }
    Value *r = vec_new(in, x[0]->u.vec.elem, 2);
    for (int k = 0; k < 2; k++) {
        Expr *lane[3];
        for (int i = 0; i < n; i++) lane[i] = x[i]->u.vec.lane[k];
        r->u.vec.lane[k] = packed_lane(in, op, lane, a->loc);
    }
    return r;
}

static Value *t_extract_lane(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.extract_lane", "vector, lane", av, 2);
    Value *x = vec_arg(in, av[0], a->loc, "T.extract_lane");
    int64_t i = const_arg(in, av[1], a->loc, "T.extract_lane", "lane");
    if (i < 0 || i >= x->u.vec.lanes)
        ctx_fail(in->ctx, a->loc,
                 "T.extract_lane: lane index %lld is out of bounds for dtype %s with %d lanes",
                 (long long)i, vdesc(in, x), x->u.vec.lanes);
    return val_expr(in, x->u.vec.lane[i]);
}

/* The lanes of v appended to out (a scalar is one lane); all of one element dtype. */
static void push_lanes(Interp *in, Value *v, DType *elem, Lanes *out, Loc loc, const char *fname) {
    Value *x = vec_value(in, v, loc);
    int n = x ? x->u.vec.lanes : 1;
    for (int k = 0; k < n; k++) {
        Expr *e = x ? x->u.vec.lane[k] : val_to_expr(in, v, loc, fname);
        if (*elem != DT_INVALID && e->dtype != *elem)
            ctx_fail(in->ctx, loc, "%s: mixing %s and %s lanes", fname, dtype_name(*elem),
                     dtype_name(e->dtype));
        *elem = e->dtype;
        VEC_PUSH(ARENA, *out, e);
    }
}

/* A vector (or scalar, of one lane) of the given lanes. */
static Value *of_lanes(Interp *in, DType elem, Expr **lanes, int n) {
    if (n == 1) return val_expr(in, lanes[0]);
    Value *r = vec_new(in, elem, n);
    memcpy(r->u.vec.lane, lanes, sizeof *lanes * (size_t)n);
    return r;
}

static Value *t_shuffle(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.Shuffle", "vectors, indices", av, 2);
    if ((av[0]->kind != V_LIST && av[0]->kind != V_TUPLE) ||
        (av[1]->kind != V_LIST && av[1]->kind != V_TUPLE) || !av[1]->u.items.len)
        ctx_fail(in->ctx, a->loc, "T.Shuffle takes a list of vectors and a list of lane indices");
    Lanes all = {0};
    DType elem = DT_INVALID;
    for (int i = 0; i < av[0]->u.items.len; i++)
        push_lanes(in, av[0]->u.items.data[i], &elem, &all, a->loc, "T.Shuffle");
    int n = av[1]->u.items.len;
    if (n > 64) ctx_fail(in->ctx, a->loc, "T.Shuffle: %d lanes (64 at most)", n);
    Expr **out = NEW_ARRAY(ARENA, Expr *, n);
    for (int k = 0; k < n; k++) {
        int64_t i = const_arg(in, av[1]->u.items.data[k], a->loc, "T.Shuffle", "index");
        if (i < 0 || i >= all.len)
            ctx_fail(in->ctx, a->loc, "T.Shuffle: index %lld is out of range for %d lanes",
                     (long long)i, all.len);
        out[k] = all.data[i];
    }
    return of_lanes(in, elem, out, n);
}

/* The result dtype of vectorlow / vectorhigh / vectorcombine: elem x lanes (lanes 1: a
 * scalar dtype), checked against the argument. */
static void result_dtype(Interp *in, Value *dt, DType elem, int lanes, Loc loc, const char *fname) {
    int l;
    DType t = vec_dtype_arg(in, dt, &l, loc, "dtype");
    if (t != elem || (l ? l : 1) != lanes)
        ctx_fail(in->ctx, loc, "%s: the result has dtype %s, not %s", fname,
                 lanes == 1 ? dtype_name(elem) : vname(in, elem, lanes),
                 l ? vname(in, t, l) : dtype_name(t));
}

static Value *t_vector_half(Interp *in, CallArgs *a, void *d) {
    bool high = d != NULL;
    const char *fname = high ? "T.vectorhigh" : "T.vectorlow";
    Value *av[2];
    args_bind(in, a, fname, "dtype, vec", av, 2);
    Value *x = vec_arg(in, av[1], a->loc, fname);
    int h = x->u.vec.lanes / 2;
    if (x->u.vec.lanes % 2)
        ctx_fail(in->ctx, a->loc, "%s: %s has an odd number of lanes", fname, vdesc(in, x));
    result_dtype(in, av[0], x->u.vec.elem, h, a->loc, fname);
    return of_lanes(in, x->u.vec.elem, x->u.vec.lane + (high ? h : 0), h);
}

static Value *t_vectorcombine(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[3];
    args_bind(in, a, "T.vectorcombine", "dtype, vec1, vec2", av, 3);
    Lanes all = {0};
    DType elem = DT_INVALID;
    for (int i = 1; i < 3; i++) push_lanes(in, av[i], &elem, &all, a->loc, "T.vectorcombine");
    if (all.len > 64) ctx_fail(in->ctx, a->loc, "T.vectorcombine: %d lanes (64 at most)", all.len);
    result_dtype(in, av[0], elem, all.len, a->loc, "T.vectorcombine");
    return of_lanes(in, elem, all.data, all.len);
}

#define I(x) ((void *)(intptr_t)(x))
#define PACKED_NOTE "C, CUDA (float16x2, bfloat16x2, float32x2: lane by lane)"
static const TName vec_names[] = {
    {"add2", t_packed, I(P_ADD), PACKED_NOTE},
    {"sub2", t_packed, I(P_SUB), PACKED_NOTE},
    {"mul2", t_packed, I(P_MUL), PACKED_NOTE},
    {"fma2", t_packed, I(P_FMA), PACKED_NOTE},
    {"max2", t_packed, I(P_MAX), PACKED_NOTE},
    {"min2", t_packed, I(P_MIN), PACKED_NOTE},
    {"abs2", t_packed, I(P_ABS), PACKED_NOTE},
    {"extract_lane", t_extract_lane, NULL, "C, CUDA (vector values)"},
    {"Shuffle", t_shuffle, NULL, "C, CUDA (vector values)"},
    {"vectorlow", t_vector_half, NULL, "C, CUDA (vector values)"},
    {"vectorhigh", t_vector_half, I(1), "C, CUDA (vector values)"},
    {"vectorcombine", t_vectorcombine, NULL, "C, CUDA (vector values)"},
};
#undef I

const TNames tl_vec_names = {vec_names, (int)(sizeof vec_names / sizeof *vec_names)};
