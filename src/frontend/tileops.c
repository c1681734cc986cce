/* tileops.c - the T namespace (tilelang.language): buffers and their subscripts, tile
 * operations, loops, T.Kernel, math and dtypes. Each T.* function turns its arguments
 * into IR (or a compile-time value) at the call's location. */
#include "frontend/eval.h"

#include <math.h>
#include <string.h>

#define ARENA (&in->ctx->arena)
#define ANON_PREFIX "__tmp"

static Value *bval(Interp *in, const char *name, BuiltinFn fn, void *data) {
    Builtin *b = NEW(ARENA, Builtin);
    b->name = name;
    b->fn = fn;
    b->data = data;
    Value *v = val_new(in, V_BUILTIN);
    v->u.builtin = b;
    return v;
}

void need_kernel(Interp *in, Loc loc, const char *what) {
    if (!in->builder || !in->in_kernel)
        ctx_fail(in->ctx, loc, "%s is only allowed inside a 'with T.Kernel(...)' block", what);
}

void need_warps(Interp *in, Loc loc, const char *fname) {
    need_kernel(in, loc, fname);
    if (in->kernel_threads % 32)
        ctx_fail(in->ctx, loc,
                 "%s is warp-collective: the block's thread count (%d) must be a multiple "
                 "of 32",
                 fname, in->kernel_threads);
    if (in->parallel_depth)
        ctx_fail(in->ctx, loc,
                 "%s is warp-collective (each warp makes it once): it cannot be inside a "
                 "T.Parallel loop",
                 fname);
    mem_thread_level(in);
}

void emit_runtime_call(Interp *in, const char *name, ExternArg *args, int n, bool warp, Loc loc) {
    Stmt *s = ir_stmt(in->ctx, STMT_EXTERN, loc);
    s->u.extern_.name = name;
    s->u.extern_.args = args, s->u.extern_.nargs = n;
    s->u.extern_.warp = warp;
    VEC_PUSH(ARENA, in->func->externs, name);
    emit_stmt(in, s);
}

/* ---- shapes and buffers ------------------------------------------------------------ */
static Expr *dim_expr(Interp *in, Value *v, Loc loc, const char *what) {
    Expr *e = val_to_expr(in, v, loc, what);
    if (!dtype_is_int(e->dtype))
        ctx_fail(in->ctx, loc, "%s must be an integer, got %s", what, val_describe(in, v));
    int64_t c;
    if (ir_is_const_int(e, &c) && c < 0) ctx_fail(in->ctx, loc, "%s must not be negative", what);
    return e;
}

/* An integer (of any sign), as an expression: a stepped loop's bounds and step. */
static Expr *int_expr(Interp *in, Value *v, Loc loc, const char *what) {
    Expr *e = val_to_expr(in, v, loc, what);
    if (!dtype_is_int(e->dtype))
        ctx_fail(in->ctx, loc, "%s must be an integer, got %s", what, val_describe(in, v));
    return e;
}

/* A shape given as an int, a tuple or a list. */
static int shape_of(Interp *in, Value *v, Loc loc, const char *what, Expr ***out) {
    ValueList items = {0};
    if (v->kind == V_TUPLE || v->kind == V_LIST) items = v->u.items;
    else VEC_PUSH(ARENA, items, v);
    if (items.len > 8) ctx_fail(in->ctx, loc, "%s has more than 8 dimensions", what);
    Expr **dims = NEW_ARRAY(ARENA, Expr *, items.len + 1);
    for (int i = 0; i < items.len; i++) dims[i] = dim_expr(in, items.data[i], loc, what);
    *out = dims;
    return items.len;
}

static Value *buffer_value(Interp *in, Buffer *b) {
    Value *v = val_new(in, V_BUFFER);
    v->u.buf = b;
    return v;
}

static Value *alloc_buffer(Interp *in, CallArgs *a, Scope scope, const char *fname) {
    Value *av[3];
    args_bind(in, a, fname, "shape, dtype=, scope=", av, 3);
    if (av[2] && av[2]->kind == V_STR && !strncmp(av[2]->u.s, "wmma.", 5))
        return tl_wmma_alloc(in, av[0], av[1], av[2]->u.s, a->loc, fname);
    if (scope != SCOPE_GLOBAL) need_kernel(in, a->loc, fname);
    else if (!in->builder)
        ctx_fail(in->ctx, a->loc, "%s is only allowed inside a @T.prim_func", fname);
    int lanes = 0;
    DType dt = av[1] ? vec_dtype_arg(in, av[1], &lanes, a->loc, "dtype") : DT_FLOAT32;
    Expr **shape;
    int nd = shape_of(in, av[0], a->loc, "buffer shape", &shape);
    if (lanes && scope == SCOPE_GLOBAL)
        ctx_fail(in->ctx, a->loc, "%s: vector dtypes are for local, fragment and shared buffers",
                 fname);
    if (lanes) shape[nd++] = ir_int(in->ctx, lanes, DT_INT32, a->loc); /* the lanes */
    if (scope != SCOPE_GLOBAL)
        for (int d = 0; d < nd; d++) {
            int64_t c;
            if (!ir_is_const_int(shape[d], &c))
                ctx_fail(in->ctx, a->loc, "%s: shape must be compile-time constants", fname);
        }
    Buffer *b = ir_buffer(in->ctx, arena_printf(ARENA, ANON_PREFIX "%d", in->ctx->next_id), dt,
                          scope, nd, a->loc);
    for (int d = 0; d < nd; d++) b->shape[d] = shape[d];
    b->lanes = lanes;
    Stmt *s = ir_stmt(in->ctx, STMT_ALLOC, a->loc);
    s->u.alloc.buf = b;
    emit_stmt(in, s);
    return buffer_value(in, b);
}

static Value *t_alloc_shared(Interp *in, CallArgs *a, void *d) {
    (void)d;
    return alloc_buffer(in, a, SCOPE_SHARED, "T.alloc_shared");
}
static Value *t_alloc_fragment(Interp *in, CallArgs *a, void *d) {
    (void)d;
    return alloc_buffer(in, a, SCOPE_FRAGMENT, "T.alloc_fragment");
}
static Value *t_alloc_local(Interp *in, CallArgs *a, void *d) {
    (void)d;
    return alloc_buffer(in, a, SCOPE_LOCAL, "T.alloc_local");
}
static Value *t_alloc_global(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (in->in_kernel)
        ctx_fail(in->ctx, a->loc, "T.alloc_global must be called outside 'with T.Kernel'");
    return alloc_buffer(in, a, SCOPE_GLOBAL, "T.alloc_global");
}

static Value *t_alloc_var(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[3];
    args_bind(in, a, "T.alloc_var", "dtype, init=, scope=", av, 3);
    need_kernel(in, a->loc, "T.alloc_var");
    int lanes;
    DType dt = vec_dtype_arg(in, av[0], &lanes, a->loc, "dtype");
    if (lanes) return vec_alloc_var(in, dt, lanes, av[1], a->loc);
    Buffer *b = ir_buffer(in->ctx, arena_printf(ARENA, ANON_PREFIX "%d", in->ctx->next_id), dt,
                          SCOPE_VAR, 1, a->loc);
    b->shape[0] = ir_int(in->ctx, 1, DT_INT32, a->loc);
    if (av[1]) b->init = ir_cast(in->ctx, dt, val_to_expr(in, av[1], a->loc, "init"), a->loc);
    Stmt *s = ir_stmt(in->ctx, STMT_ALLOC, a->loc);
    s->u.alloc.buf = b;
    emit_stmt(in, s);
    return buffer_value(in, b);
}

Value *tensor_type_of(Interp *in, Value *shape, Value *dtype, Loc loc) {
    TensorType *t = NEW(ARENA, TensorType);
    t->ndim = shape_of(in, shape, loc, "tensor shape", &t->shape);
    t->dtype = dtype ? val_to_dtype(in, dtype, loc, "dtype") : DT_FLOAT32;
    Value *v = val_new(in, V_TENSOR_TYPE);
    v->u.tensor = t;
    return v;
}

bool ident_ok(const char *s) {
    if (!(*s == '_' || ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z'))) return false;
    for (; *s; s++)
        if (!(*s == '_' || ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z') || (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* A view of buffer src's memory with another shape (dtype: src's when NULL), named at its
 * assignment. Views are of contiguous global buffers, in their dtype (or vectors of it: the
 * view gets a last dimension, the lanes); when both sizes are constants the view may not
 * hold more elements than src. */
static Value *make_view(Interp *in, Value *src, Value *shape, Value *dtype, Loc loc,
                        const char *fname) {
    if (src->kind != V_BUFFER)
        ctx_fail(in->ctx, loc, "%s: %s is not a buffer", fname, val_describe(in, src));
    Buffer *b = (Buffer *)ir_buffer_root(src->u.buf);
    int lanes = 0; /* a view of vectors of b's dtype (tileops_vec.c) */
    DType dt = dtype ? vec_dtype_arg(in, dtype, &lanes, loc, "dtype") : b->dtype;
    if (b->strides || dt != b->dtype || (lanes && b->scope != SCOPE_GLOBAL))
        ctx_fail(in->ctx, loc,
                 "%s: tilec takes views of contiguous buffers in their own dtype ('%s' is "
                 "%s %s%s)",
                 fname, b->name, scope_name(b->scope), dtype_name(b->dtype),
                 b->strides ? ", strided" : "");
    Expr **dims;
    int nd = shape_of(in, shape, loc, "view shape", &dims);
    if (b->scope != SCOPE_GLOBAL) return buffer_value(in, local_view(in, b, nd, dims, loc, fname));
    int64_t have = 1, want = 1, c;
    bool known = true;
    for (int d = 0; d < b->ndim; d++)
        known = known && ir_is_const_int(b->shape[d], &c) && (have *= c, 1);
    for (int d = 0; d < nd; d++) known = known && ir_is_const_int(dims[d], &c) && (want *= c, 1);
    if (lanes) want *= lanes, dims[nd++] = ir_int(in->ctx, lanes, DT_INT32, loc);
    if (known && want > have)
        ctx_fail(in->ctx, loc, "%s: a view of %lld elements of '%s', which has %lld", fname,
                 (long long)want, b->name, (long long)have);
    Buffer *v = ir_buffer(in->ctx, arena_printf(ARENA, ANON_PREFIX "%d", in->ctx->next_id), dt,
                          SCOPE_GLOBAL, nd, loc);
    for (int d = 0; d < nd; d++) v->shape[d] = dims[d];
    v->base = b;
    v->lanes = lanes;
    return buffer_value(in, v);
}

/* T.view(buf, shape=None, dtype=None) / T.reshape(buf, shape): buf's memory in another
 * shape (make_view). */
static Value *t_view(Interp *in, CallArgs *a, void *d) {
    const char *fname = d ? "T.reshape" : "T.view";
    Value *av[3];
    if (d) args_bind(in, a, fname, "src, shape", av, 2), av[2] = NULL;
    else args_bind(in, a, fname, "src, shape=, dtype=", av, 3);
    Value *shape = av[1];
    if (!shape) { /* T.view(buf, dtype=...): the same shape */
        if (av[0]->kind != V_BUFFER) ctx_fail(in->ctx, a->loc, "%s: not a buffer", fname);
        shape = val_new(in, V_TUPLE);
        for (int k = 0; k < av[0]->u.buf->ndim; k++)
            VEC_PUSH(ARENA, shape->u.items, val_expr(in, av[0]->u.buf->shape[k]));
    }
    return make_view(in, av[0], shape, av[2], a->loc, fname);
}

/* T.Tensor((M, N), dtype) / T.Buffer(...) / T.StridedTensor(shape, strides, dtype); with
 * data= (another buffer's .data) a view of that buffer's memory. */
static Value *t_tensor(Interp *in, CallArgs *a, void *d) {
    bool strided = d != NULL;
    Value *av[4];
    if (strided) args_bind(in, a, "T.StridedTensor", "shape, strides, dtype=, scope=", av, 4);
    else args_bind(in, a, "T.Tensor", "shape, dtype=, data=, scope=", av, 4);
    if (!strided && av[2] && av[2]->kind != V_NONE)
        return make_view(in, av[2], av[0], av[1], a->loc, "T.Tensor(..., data=)");
    TensorType *t = NEW(ARENA, TensorType);
    t->ndim = shape_of(in, av[0], a->loc, "tensor shape", &t->shape);
    Value *dt = strided ? av[2] : av[1];
    t->dtype = dt ? val_to_dtype(in, dt, a->loc, "dtype") : DT_FLOAT32;
    if (strided) {
        Expr **st;
        int n = shape_of(in, av[1], a->loc, "tensor strides", &st);
        if (n != t->ndim)
            ctx_fail(in->ctx, a->loc, "T.StridedTensor: %d strides for %d dimensions", n, t->ndim);
        t->strides = st;
    }
    Value *v = val_new(in, V_TENSOR_TYPE);
    v->u.tensor = t;
    return v;
}

/* The symbolic size `name` of dtype dt: the one of that name made before, else a new one. */
static Value *dynamic_sym(Interp *in, const char *name, DType dt, Loc loc) {
    for (int i = 0; i < in->dyn_syms.len; i++)
        if (!strcmp(in->dyn_syms.data[i]->name, name))
            return val_expr(in, ir_varref(in->ctx, in->dyn_syms.data[i], loc));
    Var *v = ir_var(in->ctx, name, dt);
    VEC_PUSH(ARENA, in->dyn_syms, v);
    return val_expr(in, ir_varref(in->ctx, v, loc));
}

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

/* The tuple of the symbolic sizes a T.dynamic list names, split as TileLang splits it:
   at commas (each name stripped of blanks; an empty one is an error) when it has one,
   else at runs of blanks. */
static Value *dynamic_tuple(Interp *in, const char *list, DType dt, Loc loc) {
    bool commas = strchr(list, ',') != NULL;
    Value *t = val_new(in, V_TUPLE);
    for (const char *s = list;;) {
        while (is_blank(*s)) s++;
        const char *e = s;
        while (*e && (commas ? *e != ',' : !is_blank(*e))) e++;
        const char *end = e;
        while (end > s && is_blank(end[-1])) end--;
        if (end > s) {
            const char *name = arena_strndup(ARENA, s, (size_t)(end - s));
            VEC_PUSH(ARENA, t->u.items, dynamic_sym(in, name, dt, loc));
        } else if (commas) ctx_fail(in->ctx, loc, "T.dynamic: an empty name in \"%s\"", list);
        if (!*e) break;
        s = e + (commas ? 1 : 0);
    }
    return t;
}

/* T.dynamic("M") / T.symbolic("M"): a size known at launch; T.dynamic("B, S, H") (or
   "B S H") a tuple of them, all of the one dtype. */
static Value *t_dynamic(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.dynamic", "name, dtype=", av, 2);
    if (av[0]->kind != V_STR) ctx_fail(in->ctx, a->loc, "T.dynamic: the name must be a string");
    DType dt = av[1] ? val_to_dtype(in, av[1], a->loc, "dtype") : DT_INT32;
    if (!dtype_is_int(dt))
        ctx_fail(in->ctx, a->loc, "T.dynamic: the dtype must be an integer type");
    const char *list = av[0]->u.s;
    if (!strchr(list, ',') && !strpbrk(list, " \t\n")) return dynamic_sym(in, list, dt, a->loc);
    return dynamic_tuple(in, list, dt, a->loc);
}

/* ---- subscripts -------------------------------------------------------------------- */
static Expr *idx_expr(Interp *in, Value *v, Loc loc) {
    Expr *e = val_to_expr(in, v, loc, "index");
    if (!dtype_is_int(e->dtype) || e->dtype == DT_BOOL)
        ctx_fail(in->ctx, loc, "buffer index must be an integer, got a %s value",
                 dtype_name(e->dtype));
    return e;
}

static ValueList index_items(Interp *in, Buffer *buf, Value *index, Loc loc) {
    ValueList items = {0};
    if (index->kind == V_TUPLE) items = index->u.items;
    else VEC_PUSH(ARENA, items, index);
    for (int i = 0; i < items.len; i++)
        if (items.data[i]->kind == V_ELLIPSIS) { /* A[..., 0]: fill with full slices */
            ValueList full = {0};
            for (int k = 0; k < i; k++) VEC_PUSH(ARENA, full, items.data[k]);
            for (int k = 0; k < buf->ndim - (items.len - 1); k++)
                VEC_PUSH(ARENA, full, val_new(in, V_SLICE));
            for (int k = i + 1; k < items.len; k++) VEC_PUSH(ARENA, full, items.data[k]);
            items = full;
            break;
        }
    if (items.len != buf->ndim)
        ctx_fail(in->ctx, loc, "buffer '%s' has %d dimension%s but %d ind%s given", buf->name,
                 buf->ndim, buf->ndim == 1 ? "" : "s", items.len,
                 items.len == 1 ? "ex is" : "ices are");
    return items;
}

/* e with every let variable that has a pure value (Var.let_value) replaced by it. */
static Expr *with_lets(Ctx *ctx, const Expr *e) {
    if (e->kind == EXPR_VAR && e->u.var->let_value) return with_lets(ctx, e->u.var->let_value);
    Expr *c = NEW(&ctx->arena, Expr);
    *c = *e;
    switch (e->kind) {
    case EXPR_BIN:
        c->u.bin.a = with_lets(ctx, e->u.bin.a);
        c->u.bin.b = with_lets(ctx, e->u.bin.b);
        break;
    case EXPR_UN: c->u.un.a = with_lets(ctx, e->u.un.a); break;
    case EXPR_CAST: c->u.cast.value = with_lets(ctx, e->u.cast.value); break;
    default: break; /* constants, loop and block vars, calls: kept as they are */
    }
    return c;
}

/* The extent stop - start of a slice, simplified; a constant when it is one once the lets
 * both sides name are inlined (KV[kv_start:kv_end] with kv_end = kv_start + 32 written
 * over the loop variable), so that the tile op keeps a constant shape. */
static Expr *slice_extent(Ctx *ctx, Expr *stop, Expr *start, Loc loc) {
    Expr *e = arith_simplify(ctx, ir_bin(ctx, OP_SUB, stop, start, loc));
    int64_t c;
    if (ir_is_const_int(e, &c)) return e;
    Expr *inl = arith_simplify(ctx, ir_bin(ctx, OP_SUB, with_lets(ctx, stop), with_lets(ctx, start),
                                           loc));
    return ir_is_const_int(inl, &c) ? inl : e;
}

/* A WMMA fragment's elements sit where the tensor cores put them: no element access. */
static void not_wmma(Interp *in, const Buffer *buf, Loc loc) {
    if (buf->wmma)
        ctx_fail(in->ctx, loc,
                 "'%s' is a WMMA fragment: its elements are opaque (T.tvm_fill_fragment, "
                 "T.tvm_load_matrix_sync, T.tvm_store_matrix_sync and T.tvm_mma_sync use it)",
                 buf->name);
}

Value *buffer_subscript(Interp *in, Buffer *buf, Value *index, Loc loc) {
    Ctx *ctx = in->ctx;
    not_wmma(in, buf, loc);
    if (buf->lanes) return vec_subscript(in, buf, index, loc);
    ValueList items = index_items(in, buf, index, loc);
    bool any_slice = false;
    for (int i = 0; i < items.len; i++) any_slice |= items.data[i]->kind == V_SLICE;
    if (!any_slice) {
        Expr **idx = NEW_ARRAY(ARENA, Expr *, items.len + 1);
        for (int i = 0; i < items.len; i++) idx[i] = idx_expr(in, items.data[i], loc);
        if (is_local_view(buf))
            return val_expr(in, ir_load(ctx, buf->base, local_view_index(in, buf, idx, loc), loc));
        return val_expr(in, ir_load(ctx, buf, idx, loc));
    }
    Value *v = val_new(in, V_REGION);
    Region *r = &v->u.region;
    r->buf = buf;
    r->ndim = buf->ndim;
    r->start = NEW_ARRAY(ARENA, Expr *, buf->ndim);
    r->extent = NEW_ARRAY(ARENA, Expr *, buf->ndim);
    for (int d = 0; d < buf->ndim; d++) {
        Value *it = items.data[d];
        if (it->kind != V_SLICE) {
            r->start[d] = idx_expr(in, it, loc);
            r->extent[d] = ir_int(ctx, 1, DT_INT32, loc);
            continue;
        }
        if (it->u.slice.step && it->u.slice.step->kind != V_NONE) {
            int64_t st;
            if (!val_is_const_int(it->u.slice.step, &st) || st != 1)
                ctx_fail(ctx, loc, "buffer slices with a step are not supported");
        }
        Value *lo = it->u.slice.lower, *hi = it->u.slice.upper;
        r->start[d] = lo && lo->kind != V_NONE ? idx_expr(in, lo, loc)
                                               : ir_int(ctx, 0, DT_INT32, loc);
        Expr *stop = hi && hi->kind != V_NONE ? idx_expr(in, hi, loc) : buf->shape[d];
        r->extent[d] = slice_extent(ctx, stop, r->start[d], loc);
        int64_t c;
        if (ir_is_const_int(r->extent[d], &c) && c <= 0)
            ctx_fail(ctx, loc, "empty slice of buffer '%s' in dimension %d", buf->name, d);
    }
    return v;
}

void buffer_store(Interp *in, Buffer *buf, Value *index, Value *v, Loc loc) {
    Ctx *ctx = in->ctx;
    if (!in->builder || (!in->in_kernel && buf->scope != SCOPE_GLOBAL))
        ctx_fail(ctx, loc, "storing to buffer '%s' is only allowed inside a kernel", buf->name);
    if (!in->in_kernel) ctx_fail(ctx, loc, "stores must be inside a 'with T.Kernel(...)' block");
    not_wmma(in, buf, loc);
    if (buf->lanes) {
        vec_store(in, buf, index, v, loc);
        return;
    }
    ValueList items = index_items(in, buf, index, loc);
    Expr **idx = NEW_ARRAY(ARENA, Expr *, items.len + 1);
    for (int i = 0; i < items.len; i++) {
        if (items.data[i]->kind == V_SLICE)
            ctx_fail(ctx, loc,
                     "assigning to a slice is not supported; use T.copy or T.fill, or "
                     "a T.Parallel loop");
        idx[i] = idx_expr(in, items.data[i], loc);
    }
    if (is_local_view(buf)) idx = local_view_index(in, buf, idx, loc), buf = buf->base;
    Stmt *s = ir_stmt(ctx, STMT_STORE, loc);
    s->u.store.buf = buf;
    s->u.store.idx = idx;
    Expr *e;
    if (v->kind == V_FLOAT && dtype_is_float(buf->dtype))
        e = ir_float(ctx, v->u.f, buf->dtype, loc);
    else e = val_to_expr(in, v, loc, "stored value");
    s->u.store.value = ir_cast(ctx, buf->dtype, e, loc);
    emit_stmt(in, s);
}

static Region full_region(Interp *in, Buffer *b) {
    Region r = {b, b->ndim, NEW_ARRAY(ARENA, Expr *, b->ndim + 1),
                NEW_ARRAY(ARENA, Expr *, b->ndim + 1)};
    for (int d = 0; d < b->ndim; d++) {
        r.start[d] = ir_int(in->ctx, 0, DT_INT32, b->loc);
        r.extent[d] = b->shape[d];
    }
    return r;
}

Region value_to_region(Interp *in, Value *v, const Region *like, Loc loc, const char *what) {
    if (v->kind == V_BUFFER && v->u.buf->lanes)
        ctx_fail(in->ctx, loc,
                 "%s: buffer '%s' holds %sx%d vectors; tile operations take buffers of scalars",
                 what, v->u.buf->name, dtype_name(v->u.buf->dtype), v->u.buf->lanes);
    if (v->kind == V_BUFFER) return full_region(in, v->u.buf);
    if (v->kind == V_REGION) return v->u.region;
    if (v->kind == V_EXPR && v->u.expr->kind == EXPR_LOAD) {
        Expr *ld = v->u.expr;
        Buffer *b = ld->u.load.buf;
        Region r = {b, b->ndim, ld->u.load.idx, NEW_ARRAY(ARENA, Expr *, b->ndim + 1)};
        if (!like)
            ctx_fail(in->ctx, loc,
                     "%s: cannot tell the size of the region starting at %s[...]; "
                     "give a whole buffer or a slice",
                     what, b->name);
        /* align the other side's extents to the trailing dims, dropping its unit dims */
        int m = like->ndim, skip = 0;
        while (m - skip > b->ndim) {
            int64_t c;
            if (!ir_is_const_int(like->extent[skip], &c) || c != 1)
                ctx_fail(in->ctx, loc, "%s: region of %s has more dimensions than %s", what,
                         like->buf->name, b->name);
            skip++;
        }
        int k = m - skip;
        for (int d = 0; d < b->ndim; d++)
            r.extent[d] = d < b->ndim - k ? ir_int(in->ctx, 1, DT_INT32, loc)
                                          : like->extent[skip + d - (b->ndim - k)];
        return r;
    }
    ctx_fail(in->ctx, loc, "%s must be a buffer, a buffer slice or a buffer element, got %s", what,
             val_describe(in, v));
}

static bool is_head_address(Value *v) { return v->kind == V_EXPR && v->u.expr->kind == EXPR_LOAD; }

/* The region a tile op that writes one operand takes for it (T.fill, T.clear): an element
   x[i, j] stands for the region of extent 1 in each dimension from there, as in TileLang. */
static Region unit_or_region(Interp *in, Value *v, Loc loc, const char *what) {
    if (!is_head_address(v)) return value_to_region(in, v, NULL, loc, what);
    Buffer *b = v->u.expr->u.load.buf;
    Region r = {b, b->ndim, v->u.expr->u.load.idx, NEW_ARRAY(ARENA, Expr *, b->ndim + 1)};
    for (int d = 0; d < b->ndim; d++) r.extent[d] = ir_int(in->ctx, 1, DT_INT32, loc);
    return r;
}

/* Both regions of a binary tile op; a head address takes its extents from the other side. */
static void two_regions(Interp *in, Value *x, Value *y, Loc loc, const char *fname, Region *rx,
                        Region *ry) {
    const char *wx = arena_printf(ARENA, "%s source", fname);
    const char *wy = arena_printf(ARENA, "%s destination", fname);
    TL_ASSERT(!(is_head_address(x) && is_head_address(y))); /* T.copy made a store */
    if (is_head_address(x)) {
        *ry = value_to_region(in, y, NULL, loc, wy);
        *rx = value_to_region(in, x, ry, loc, wx);
    } else {
        *rx = value_to_region(in, x, NULL, loc, wx);
        *ry = value_to_region(in, y, rx, loc, wy);
    }
}

/* ---- tile operations ---------------------------------------------------------------- */
static Value *t_copy(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[8];
    args_bind(in, a, "T.copy",
              "src, dst, coalesced_width=, disable_tma=, eviction_policy=, "
              "loop_layout=, annotations=, force_async_copy=",
              av, 8);
    need_kernel(in, a->loc, "T.copy");
    if (is_head_address(av[0]) && is_head_address(av[1])) { /* one element: a store */
        Expr *dst = av[1]->u.expr;
        Stmt *s = ir_stmt(in->ctx, STMT_STORE, a->loc);
        s->u.store.buf = dst->u.load.buf;
        s->u.store.idx = dst->u.load.idx;
        s->u.store.value = ir_cast(in->ctx, dst->u.load.buf->dtype, av[0]->u.expr, a->loc);
        emit_stmt(in, s);
        return val_none(in);
    }
    Stmt *s = ir_stmt(in->ctx, STMT_COPY, a->loc);
    two_regions(in, av[0], av[1], a->loc, "T.copy", &s->u.copy.src, &s->u.copy.dst);
    emit_stmt(in, s);
    return val_none(in);
}

static Value *t_fill(Interp *in, CallArgs *a, void *d) {
    bool clear = d != NULL;
    Value *av[2];
    if (clear) args_bind(in, a, "T.clear", "buffer", av, 1);
    else args_bind(in, a, "T.fill", "buffer, value", av, 2);
    need_kernel(in, a->loc, clear ? "T.clear" : "T.fill");
    Stmt *s = ir_stmt(in->ctx, STMT_FILL, a->loc);
    s->u.fill.dst = unit_or_region(in, av[0], a->loc, clear ? "T.clear" : "T.fill");
    DType dt = s->u.fill.dst.buf->dtype;
    Value *v = clear ? val_int(in, 0) : av[1];
    Expr *e = v->kind == V_FLOAT && dtype_is_float(dt) ? ir_float(in->ctx, v->u.f, dt, a->loc)
                                                       : val_to_expr(in, v, a->loc, "fill value");
    s->u.fill.value = ir_cast(in->ctx, dt, e, a->loc);
    emit_stmt(in, s);
    return val_none(in);
}

static bool opt_bool(Interp *in, Value *v, bool dflt, Loc loc) {
    return v ? val_truthy(in, v, loc) : dflt;
}

static GemmPolicy policy_of(Interp *in, Value *v, Loc loc) {
    if (!v) return POLICY_SQUARE;
    const char *s = v->kind == V_ATOM || v->kind == V_OPAQUE ? v->u.s : "";
    const char *dot = strrchr(s, '.');
    const char *n = dot ? dot + 1 : s;
    for (int p = 0; p < GEMM_POLICY_COUNT; p++)
        if (!strcmp(n, gemm_policy_name((GemmPolicy)p))) return (GemmPolicy)p;
    ctx_fail(in->ctx, loc, "T.gemm: policy must be T.GemmWarpPolicy.Square, FullRow or FullCol");
}

/* `if cond: T.clear(C)` for a gemm's clear_accum= that is a run-time value (TileLang
 * passes it to the gemm as an expression: `clear_accum=(j == 0)` in an unrolled loop). */
static Stmt *clear_when(Interp *in, Value *cond, const Region *c, Loc loc) {
    Stmt *fill = ir_stmt(in->ctx, STMT_FILL, loc);
    fill->u.fill.dst = *c;
    fill->u.fill.value = ir_cast(in->ctx, c->buf->dtype, ir_int(in->ctx, 0, DT_INT32, loc), loc);
    Stmt *s = ir_stmt(in->ctx, STMT_IF, loc);
    s->u.if_.cond = ir_cast(in->ctx, DT_BOOL, val_to_expr(in, cond, loc, "clear_accum"), loc);
    s->u.if_.then = fill;
    return s;
}

/* T.gemm, or (d set) T.wgmma_gemm: a wgmma left in flight for T.wait_wgmma (Tier 3). */
static Value *t_gemm(Interp *in, CallArgs *a, void *d) {
    bool manual = d != NULL;
    const char *fname = manual ? "T.wgmma_gemm" : "T.gemm";
    Value *av[10];
    args_bind(in, a, fname,
              manual ? "A, B, C, transpose_A=, transpose_B=, policy=, clear_accum="
                     : "A, B, C, transpose_A=, transpose_B=, policy=, clear_accum=, "
                       "k_pack=, wg_wait=, mbar=",
              av, 10);
    need_kernel(in, a->loc, fname);
    Stmt *s = ir_stmt(in->ctx, STMT_GEMM, a->loc);
    s->u.gemm.a = value_to_region(in, av[0], NULL, a->loc, "T.gemm A");
    s->u.gemm.b = value_to_region(in, av[1], NULL, a->loc, "T.gemm B");
    s->u.gemm.c = value_to_region(in, av[2], NULL, a->loc, "T.gemm C");
    s->u.gemm.trans_a = opt_bool(in, av[3], false, a->loc);
    s->u.gemm.trans_b = opt_bool(in, av[4], false, a->loc);
    s->u.gemm.policy = policy_of(in, av[5], a->loc);
    bool run_time_clear = av[6] && av[6]->kind == V_EXPR;
    s->u.gemm.clear_accum = !run_time_clear && opt_bool(in, av[6], false, a->loc);
    s->u.gemm.k_pack = av[7] ? (int)val_to_int(in, av[7], a->loc, "k_pack") : 1;
    s->u.gemm.wg_wait = av[8] ? (int)val_to_int(in, av[8], a->loc, "wg_wait") : 0;
    s->u.gemm.manual = manual;
    if (run_time_clear) emit_stmt(in, clear_when(in, av[6], &s->u.gemm.c, a->loc));
    emit_stmt(in, s);
    return val_none(in);
}

/* For T.gemm_sp (tileops_sparse.c): the policy= and clear_accum= of T.gemm. */
GemmPolicy gemm_policy_arg(Interp *in, Value *v, Loc loc) { return policy_of(in, v, loc); }
void gemm_clear_arg(Interp *in, Stmt *s, Value *v, Loc loc) {
    bool run_time_clear = v && v->kind == V_EXPR;
    s->u.gemm.clear_accum = !run_time_clear && opt_bool(in, v, false, loc);
    if (run_time_clear) emit_stmt(in, clear_when(in, v, &s->u.gemm.c, loc));
}

static Value *t_reduce(Interp *in, CallArgs *a, void *d) {
    ReduceOp op = (ReduceOp)(intptr_t)d;
    const char *fname = arena_printf(ARENA, "T.reduce_%s", reduce_op_name(op));
    Value *av[4];
    args_bind(in, a, fname, "buffer, out, dim=, clear=", av, 4);
    need_kernel(in, a->loc, fname);
    Stmt *s = ir_stmt(in->ctx, STMT_REDUCE, a->loc);
    s->u.reduce.op = op;
    s->u.reduce.src = value_to_region(in, av[0], NULL, a->loc, fname);
    s->u.reduce.dst = value_to_region(in, av[1], NULL, a->loc, fname);
    int nd = s->u.reduce.src.ndim;
    int64_t dim = av[2] ? val_to_int(in, av[2], a->loc, "dim") : -1;
    if (dim < 0) dim += nd;
    if (dim < 0 || dim >= nd)
        ctx_fail(in->ctx, a->loc, "%s: dim is out of range for a %d-dimensional buffer", fname, nd);
    s->u.reduce.dim = (int)dim;
    s->u.reduce.clear = opt_bool(in, av[3], true, a->loc);
    emit_stmt(in, s);
    return val_none(in);
}

/* T.cumsum, or (d set) T.cummax: the running maximum */
static Value *t_cumsum(Interp *in, CallArgs *a, void *d) {
    const char *fname = d ? "T.cummax" : "T.cumsum";
    Value *av[4];
    args_bind(in, a, fname, "src, dst=, dim=, reverse=", av, 4);
    need_kernel(in, a->loc, fname);
    Stmt *s = ir_stmt(in->ctx, STMT_CUMSUM, a->loc);
    s->u.cumsum.max = d != NULL;
    s->u.cumsum.src = value_to_region(in, av[0], NULL, a->loc, fname);
    s->u.cumsum.dst = av[1] && av[1]->kind != V_NONE
                          ? value_to_region(in, av[1], &s->u.cumsum.src, a->loc, fname)
                          : s->u.cumsum.src;
    int nd = s->u.cumsum.src.ndim;
    int64_t dim = av[2] ? val_to_int(in, av[2], a->loc, "dim") : 0;
    if (dim < 0) dim += nd;
    if (dim < 0 || dim >= nd)
        ctx_fail(in->ctx, a->loc, "%s: dim is out of range for a %d-dimensional buffer", fname, nd);
    s->u.cumsum.dim = (int)dim;
    s->u.cumsum.reverse = opt_bool(in, av[3], false, a->loc);
    emit_stmt(in, s);
    return val_none(in);
}

static Value *t_atomic(Interp *in, CallArgs *a, void *d) {
    AtomicOp op = (AtomicOp)(intptr_t)d;
    const char *fname = arena_printf(ARENA, "T.atomic_%s", atomic_op_name(op));
    Value *av[5];
    args_bind(in, a, fname, "dst, value, memory_order=, return_prev=, use_tma=", av, 5);
    need_kernel(in, a->loc, fname);
    Stmt *s = ir_stmt(in->ctx, STMT_ATOMIC, a->loc);
    s->u.atomic.op = op;
    s->u.atomic.order = mem_order_arg(in, av[2], ORDER_RELAXED, (1u << MEM_ORDER_COUNT) - 1, a->loc,
                                      fname);
    bool prev = av[3] && val_truthy(in, av[3], a->loc);
    Value *dst = av[0], *val = av[1];
    bool val_is_tile = val->kind == V_BUFFER || val->kind == V_REGION;
    if (is_head_address(dst) && !val_is_tile) {
        Expr *ld = dst->u.expr;
        Buffer *b = ld->u.load.buf;
        Region r = {b, b->ndim, ld->u.load.idx, NEW_ARRAY(ARENA, Expr *, b->ndim + 1)};
        for (int k = 0; k < b->ndim; k++) r.extent[k] = ir_int(in->ctx, 1, DT_INT32, a->loc);
        s->u.atomic.dst = r;
        Expr *e = val->kind == V_FLOAT && dtype_is_float(b->dtype)
                      ? ir_float(in->ctx, val->u.f, b->dtype, a->loc)
                      : val_to_expr(in, val, a->loc, "value");
        s->u.atomic.value = ir_cast(in->ctx, b->dtype, e, a->loc);
        if (prev && b->dtype == DT_BOOL)
            ctx_fail(in->ctx, a->loc, "%s(return_prev=True) on the bool buffer '%s'", fname,
                     b->name);
        if (prev) s->u.atomic.prev = mem_result_slot(in, b->dtype, a->loc);
        if (prev) mem_thread_level(in);
    } else {
        if (!val_is_tile && !is_head_address(val))
            ctx_fail(in->ctx, a->loc,
                     "%s: a whole-buffer destination needs a buffer or region "
                     "value",
                     fname);
        if (prev)
            ctx_fail(in->ctx, a->loc,
                     "%s(return_prev=True) takes one element (x[i]) and a scalar value: a "
                     "tile has no single previous value",
                     fname);
        two_regions(in, val, dst, a->loc, fname, &s->u.atomic.src, &s->u.atomic.dst);
    }
    emit_stmt(in, s);
    return prev ? val_expr(in, mem_slot_load(in, s->u.atomic.prev, a->loc)) : val_none(in);
}

/* ---- loops and kernels ------------------------------------------------------------- */
static Value *loop_of(Interp *in, LoopKind kind, int n, Expr **mn, Expr **ext, int stages) {
    LoopSpec *L = NEW(ARENA, LoopSpec);
    L->kind = kind;
    L->n = n;
    L->num_stages = stages;
    for (int i = 0; i < n; i++) {
        L->min[i] = mn[i];
        L->extent[i] = ext[i];
    }
    Value *v = val_new(in, V_LOOP);
    v->u.loop = L;
    return v;
}

static Value *t_parallel(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len < 1 || a->pos.len > 8)
        ctx_fail(in->ctx, a->loc, "T.Parallel takes 1 to 8 extents");
    for (int k = 0; k < a->kw.len; k++) /* scheduling hints: the same loop either way */
        if (strcmp(a->names.data[k], "coalesced_width") &&
            strcmp(a->names.data[k], "loop_layout") && strcmp(a->names.data[k], "prefer_async") &&
            strcmp(a->names.data[k], "annotations"))
            ctx_fail(in->ctx, a->loc, "T.Parallel() got an unexpected keyword argument '%s'",
                     a->names.data[k]);
    Expr *mn[8], *ext[8];
    for (int i = 0; i < a->pos.len; i++) {
        mn[i] = ir_int(in->ctx, 0, DT_INT32, a->loc);
        ext[i] = dim_expr(in, a->pos.data[i], a->loc, "T.Parallel extent");
    }
    return loop_of(in, LOOP_PARALLEL, a->pos.len, mn, ext, 0);
}

/* T.parallel(start, stop=None, annotations=None): TVM's parallel loop, iterations
 * independent, as T.Parallel over start..stop (both make TIR's parallel For). */
static Value *t_parallel_range(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[3];
    args_bind(in, a, "T.parallel", "start, stop=, annotations=", av, 3);
    Value *lo = av[1] && av[1]->kind != V_NONE ? av[0] : val_int(in, 0);
    Value *hi = av[1] && av[1]->kind != V_NONE ? av[1] : av[0];
    Expr *mn = dim_expr(in, lo, a->loc, "T.parallel start");
    Expr *ext = arith_simplify(in->ctx,
                               ir_bin(in->ctx, OP_SUB, dim_expr(in, hi, a->loc, "T.parallel stop"),
                                      mn, a->loc));
    return loop_of(in, LOOP_PARALLEL, 1, &mn, &ext, 0);
}

/* The items of T.Pipelined's list argument `what` (a list or tuple; else an error). */
static ValueList list_arg(Interp *in, Value *v, Loc loc, const char *what) {
    if (v->kind != V_TUPLE && v->kind != V_LIST)
        ctx_fail(in->ctx, loc, "T.Pipelined: %s= must be a list, got %s", what,
                 val_describe(in, v));
    return v->u.items;
}

static int int_item(Interp *in, Value *v, Loc loc, const char *what) {
    int64_t x;
    if (!val_is_const_int(v, &x) || x < -1 || x > 1 << 20)
        ctx_fail(in->ctx, loc, "T.Pipelined: %s= holds %s; it takes integers from -1 up", what,
                 val_describe(in, v));
    return (int)x;
}

/* T.Pipelined's order=, stage=, group= (TileLang's statement-level schedule): one entry
 * per group, each group a list of consecutive statement indices, the groups in order
 * from statement 0; without group= (TileLang 0.1.15 has none) each statement is a group.
 * Whether they cover the body is checked once it exists (pass_check_schedules). */
static PipeSchedule *parse_schedule(Interp *in, Value *order, Value *stage, Value *group, Loc loc) {
    if (!order || !stage)
        ctx_fail(in->ctx, loc, "T.Pipelined: order= and stage= are given together");
    ValueList o = list_arg(in, order, loc, "order"), st = list_arg(in, stage, loc, "stage");
    ValueList g = {0};
    if (group) {
        g = list_arg(in, group, loc, "group");
    } else {
        for (int i = 0; i < o.len; i++) {
            Value *one = val_new(in, V_LIST);
            VEC_PUSH(ARENA, one->u.items, val_int(in, i));
            VEC_PUSH(ARENA, g, one);
        }
    }
    if (o.len != g.len || st.len != g.len || !g.len)
        ctx_fail(in->ctx, loc,
                 "T.Pipelined: order= has %d entries, stage= %d and group= %d; they need one "
                 "per group",
                 o.len, st.len, g.len);
    PipeSchedule *ps = NEW(ARENA, PipeSchedule);
    ps->ngroups = g.len, ps->loc = loc;
    ps->first = NEW_ARRAY(ARENA, int, g.len + 1);
    ps->stage = NEW_ARRAY(ARENA, int, g.len);
    ps->order = NEW_ARRAY(ARENA, int, g.len);
    int next = 0;
    for (int i = 0; i < g.len; i++) {
        ps->stage[i] = int_item(in, st.data[i], loc, "stage");
        ps->order[i] = int_item(in, o.data[i], loc, "order");
        if ((ps->stage[i] < 0) != (ps->order[i] < 0))
            ctx_fail(in->ctx, loc,
                     "T.Pipelined: group %d has stage %d and order %d; -1 (a "
                     "producer copy) goes in both or neither",
                     i, ps->stage[i], ps->order[i]);
        ValueList idx = list_arg(in, g.data[i], loc, "group");
        ps->first[i] = next;
        for (int j = 0; j < idx.len; j++)
            if (int_item(in, idx.data[j], loc, "group") != next++)
                ctx_fail(in->ctx, loc,
                         "T.Pipelined: group %d should continue with statement %d; tilec "
                         "takes groups of consecutive statements, in order from 0",
                         i, next - 1);
        if (!idx.len) ctx_fail(in->ctx, loc, "T.Pipelined: group %d is empty", i);
    }
    ps->first[g.len] = next;
    return ps;
}

/* T.serial / T.unroll / T.vectorized (start, stop) or (stop); T.Pipelined adds stages. */
/* Iterations of range(start, start + span, step), as Python counts them:
 * max(0, (span + step - sign(step)) // step); a zero constant step is an error (a
 * run-time zero divides by zero, as in the generated code's `range`). */
static Expr *stepped_extent(Interp *in, Expr *span, Expr *step, Loc loc, const char *fname) {
    Ctx *c = in->ctx;
    int64_t s;
    if (ir_is_const_int(step, &s) && s == 0)
        ctx_fail(c, loc, "%s: the step must not be zero", fname);
    Expr *sign = ir_is_const_int(step, &s)
                     ? ir_int(c, s > 0 ? 1 : -1, DT_INT32, loc)
                     : ir_select(c,
                                 ir_bin(c, OP_GT, ir_subst(c, step, NULL, NULL),
                                        ir_int(c, 0, DT_INT32, loc), loc),
                                 ir_int(c, 1, DT_INT32, loc), ir_int(c, -1, DT_INT32, loc), loc);
    Expr *n = ir_bin(c, OP_FLOORDIV,
                     ir_bin(c, OP_SUB, ir_bin(c, OP_ADD, span, ir_subst(c, step, NULL, NULL), loc),
                            sign, loc),
                     ir_subst(c, step, NULL, NULL), loc);
    return arith_simplify(c, ir_bin(c, OP_MAX, n, ir_int(c, 0, DT_INT32, loc), loc));
}

static Value *t_range_loop(Interp *in, CallArgs *a, void *d) {
    LoopKind kind = (LoopKind)(intptr_t)d;
    const char *fname = arena_printf(ARENA, "T.%s",
                                     kind == LOOP_PIPELINED ? "Pipelined" : loop_kind_name(kind));
    Value *av[8];
    args_bind(in, a, fname, "start, stop=, step=, num_stages=, order=, stage=, group=, *rest", av,
              8);
    Expr *mn, *ext, *step = NULL;
    Value *lo = av[1] ? av[0] : val_int(in, 0), *hi = av[1] ? av[1] : av[0];
    int64_t st = 1;
    bool stepped = av[2] && av[2]->kind != V_NONE && (!val_is_const_int(av[2], &st) || st != 1);
    if (stepped && kind != LOOP_SERIAL && kind != LOOP_UNROLL)
        ctx_fail(in->ctx, a->loc, "%s: a step other than 1 is not supported", fname);
    Expr *(*bound)(Interp *, Value *, Loc, const char *) = stepped ? int_expr : dim_expr;
    mn = bound(in, lo, a->loc, "loop start");
    ext = arith_simplify(in->ctx,
                         ir_bin(in->ctx, OP_SUB, bound(in, hi, a->loc, "loop stop"), mn, a->loc));
    if (stepped) {
        step = int_expr(in, av[2], a->loc, "loop step");
        ext = stepped_extent(in, ext, step, a->loc, fname);
    }
    int stages = av[3] && av[3]->kind != V_NONE ? (int)val_to_int(in, av[3], a->loc, "num_stages")
                                                : 0;
    if (stages < 0) ctx_fail(in->ctx, a->loc, "%s: num_stages must not be negative", fname);
    Value *v = loop_of(in, kind, 1, &mn, &ext, stages);
    v->u.loop->step = step;
    for (int i = 4; i < 7; i++) /* None: not given */
        if (av[i] && av[i]->kind == V_NONE) av[i] = NULL;
    bool sched = av[4] || av[5] || av[6];
    if (sched && kind != LOOP_PIPELINED)
        ctx_fail(in->ctx, a->loc, "%s takes no order=, stage= or group=", fname);
    if (sched) v->u.loop->sched = parse_schedule(in, av[4], av[5], av[6], a->loc);
    return v;
}

static Value *t_grid(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len < 1 || a->pos.len > 8) ctx_fail(in->ctx, a->loc, "T.grid takes 1 to 8 extents");
    Expr *mn[8], *ext[8];
    for (int i = 0; i < a->pos.len; i++) {
        mn[i] = ir_int(in->ctx, 0, DT_INT32, a->loc);
        ext[i] = dim_expr(in, a->pos.data[i], a->loc, "T.grid extent");
    }
    return loop_of(in, LOOP_SERIAL, a->pos.len, mn, ext, 0);
}

/* cluster_dims=: an int (along x) or 1 to 3 ints, each 1 .. 16 (CUDA's largest cluster,
 * non-portable), at most 16 blocks in all. */
static void kernel_cluster_dims(Interp *in, KernelSpec *K, Value *v, Loc loc, const char *fname) {
    ValueList items = {0};
    if (v->kind == V_TUPLE || v->kind == V_LIST) items = v->u.items;
    else VEC_PUSH(ARENA, items, v);
    if (items.len < 1 || items.len > 3)
        ctx_fail(in->ctx, loc, "%s: cluster_dims must be an int or 1 to 3 ints, got %s", fname,
                 val_describe(in, v));
    int64_t size = 1;
    for (int i = 0; i < items.len; i++) {
        int64_t c;
        if (!val_is_const_int(items.data[i], &c) || items.data[i]->kind == V_BOOL || c < 1 ||
            c > 16)
            ctx_fail(in->ctx, loc, "%s: cluster_dims must be ints from 1 to 16, got %s", fname,
                     val_describe(in, items.data[i]));
        K->cluster_dims[i] = (int)c, size *= c;
    }
    if (size > 16)
        ctx_fail(in->ctx, loc,
                 "%s: a cluster of %lld blocks; CUDA clusters hold at most 16 (8 portable)", fname,
                 (long long)size);
}

static Value *t_kernel(Interp *in, CallArgs *a, void *d) {
    const char *fname = d ? "T.ClusterKernel" : "T.Kernel";
    Ctx *ctx = in->ctx;
    KernelSpec *K = NEW(ARENA, KernelSpec);
    bool clustered = false;
    for (int i = 0; i < 3; i++) K->cluster_dims[i] = 1;
    if (a->pos.len < 1 || a->pos.len > 3)
        ctx_fail(ctx, a->loc, "T.Kernel takes 1 to 3 grid extents, %d given", a->pos.len);
    K->ngrid = a->pos.len;
    for (int i = 0; i < 3; i++) {
        K->grid[i] = ir_int(ctx, 1, DT_INT32, a->loc);
        K->threads[i] = 1;
    }
    for (int i = 0; i < a->pos.len; i++)
        K->grid[i] = dim_expr(in, a->pos.data[i], a->loc, "grid extent");
    K->threads[0] = 128;
    K->nthreads_dims = 1;
    for (int k = 0; k < a->kw.len; k++) {
        const char *n = a->names.data[k];
        Value *v = a->kw.data[k];
        if (!strcmp(n, "threads")) {
            ValueList items = {0};
            if (v->kind == V_TUPLE || v->kind == V_LIST) items = v->u.items;
            else VEC_PUSH(ARENA, items, v);
            if (items.len < 1 || items.len > 3)
                ctx_fail(ctx, a->loc, "T.Kernel: threads must be an int or 1 to 3 ints");
            K->nthreads_dims = items.len;
            for (int i = 0; i < items.len; i++) {
                int64_t t = val_to_int(in, items.data[i], a->loc, "threads");
                if (t < 1 || t > 1024) ctx_fail(ctx, a->loc, "T.Kernel: threads must be 1..1024");
                K->threads[i] = (int)t;
            }
        } else if (!strcmp(n, "cluster_dims")) {
            clustered = v->kind != V_NONE;
            if (clustered) kernel_cluster_dims(in, K, v, a->loc, fname);
        } else if (strcmp(n, "prelude") && strcmp(n, "is_cpu")) {
            ctx_fail(ctx, a->loc, "%s() got an unexpected keyword argument '%s'", fname, n);
        }
    }
    if (d && !clustered)
        ctx_fail(ctx, a->loc, "T.ClusterKernel() missing required keyword argument 'cluster_dims'");
    static const char axes[] = "xyz";
    for (int i = 0; i < 3; i++) { /* a cluster is a tile of the grid */
        int64_t g, c = K->cluster_dims[i];
        if (c > 1 && ir_is_const_int(K->grid[i], &g) && g % c)
            ctx_fail(ctx, a->loc,
                     "%s: the grid's %lld blocks along %c are not a multiple of cluster_dims' "
                     "%lld",
                     fname, (long long)g, axes[i], (long long)c);
    }
    Value *v = val_new(in, V_KERNEL);
    v->u.kernel = K;
    return v;
}

/* attr's entry in table t, or NULL. */
static const TName *names_find(const TNames *t, const char *attr) {
    for (int i = 0; i < t->count; i++)
        if (!strcmp(attr, t->names[i].name)) return &t->names[i];
    return NULL;
}

/* ---- math -------------------------------------------------------------------------- */
static Expr *float_operand(Interp *in, Value *v, Loc loc, const char *fname) {
    Expr *e = val_to_expr(in, v, loc, fname);
    if (!dtype_is_float(e->dtype)) e = ir_cast(in->ctx, DT_FLOAT32, e, loc);
    return e;
}

/* An intrinsic that T.<its name> calls through t_intrinsic (float operands, ints made
 * float32): not the shuffles (tileops_thread.c), T.reinterpret (tileops_lang.c) or those
 * tileops_math.c checks its own way. */
static bool intrinsic_is_plain(Intrinsic fn) {
    return fn != FN_BITCAST && fn != FN_TF32_RNA && !intrinsic_reads_threads(fn) &&
           !names_find(&tl_math_names, intrinsic_name(fn));
}

static Value *t_intrinsic(Interp *in, CallArgs *a, void *d) {
    Intrinsic fn = (Intrinsic)(intptr_t)d;
    int n = intrinsic_nargs(fn);
    const char *fname = arena_printf(ARENA, "T.%s", intrinsic_name(fn));
    if (a->pos.len != n || a->kw.len)
        ctx_fail(in->ctx, a->loc, "%s() takes %d argument%s", fname, n, n == 1 ? "" : "s");
    Expr *x, *y = NULL;
    if (fn == FN_ABS) x = val_to_expr(in, a->pos.data[0], a->loc, fname);
    else x = float_operand(in, a->pos.data[0], a->loc, fname);
    if (n == 2) {
        y = float_operand(in, a->pos.data[1], a->loc, fname);
        if (x->kind == EXPR_FLOAT) x = ir_cast(in->ctx, y->dtype, x, a->loc);
        if (y->kind == EXPR_FLOAT) y = ir_cast(in->ctx, x->dtype, y, a->loc);
    }
    return val_expr(in, ir_call(in->ctx, fn, x, y, a->loc));
}

static Value *t_minmax(Interp *in, CallArgs *a, void *d) {
    BinOp op = (BinOp)(intptr_t)d;
    if (a->pos.len != 2) ctx_fail(in->ctx, a->loc, "T.%s() takes 2 arguments", binop_name(op));
    Value *x = a->pos.data[0], *y = a->pos.data[1];
    int64_t cx, cy;
    if (val_is_const_int(x, &cx) && val_is_const_int(y, &cy) && x->kind != V_EXPR &&
        y->kind != V_EXPR)
        return val_int(in, op == OP_MAX ? (cx > cy ? cx : cy) : (cx < cy ? cx : cy));
    Expr *ex = val_to_expr(in, x, a->loc, "argument"), *ey = val_to_expr(in, y, a->loc, "argument");
    if (ey->kind == EXPR_INT || ey->kind == EXPR_FLOAT)
        ey = ir_cast(in->ctx, ex->dtype, ey, a->loc);
    else if (ex->kind == EXPR_INT || ex->kind == EXPR_FLOAT)
        ex = ir_cast(in->ctx, ey->dtype, ex, a->loc);
    return val_expr(in, ir_bin(in->ctx, op, ex, ey, a->loc));
}

static Value *t_binop(Interp *in, CallArgs *a, void *d) {
    const char *op = d;
    if (a->pos.len != 2) ctx_fail(in->ctx, a->loc, "this function takes 2 arguments");
    return eval_binop(in, op, a->pos.data[0], a->pos.data[1], a->loc);
}

static Value *t_ceildiv(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len != 2) ctx_fail(in->ctx, a->loc, "T.ceildiv() takes 2 arguments");
    Value *x = a->pos.data[0], *y = a->pos.data[1];
    int64_t cx, cy;
    if (val_is_const_int(x, &cx) && val_is_const_int(y, &cy)) {
        if (cy == 0) ctx_fail(in->ctx, a->loc, "T.ceildiv: division by zero");
        int64_t q = cx / cy, r = cx % cy;
        return val_int(in, q + (r != 0 && ((r > 0) == (cy > 0))));
    }
    Value *num = eval_binop(in, "-", eval_binop(in, "+", x, y, a->loc), val_int(in, 1), a->loc);
    return eval_binop(in, "//", num, y, a->loc);
}

static Value *t_if_then_else(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len != 3) ctx_fail(in->ctx, a->loc, "T.if_then_else() takes 3 arguments");
    Expr *c = val_to_expr(in, a->pos.data[0], a->loc, "condition");
    Value *tv = a->pos.data[1], *fv = a->pos.data[2];
    Expr *t, *f;
    if ((tv->kind == V_INT || tv->kind == V_FLOAT) && fv->kind == V_EXPR) {
        f = fv->u.expr;
        t = ir_cast(in->ctx, f->dtype, val_to_expr(in, tv, a->loc, "value"), a->loc);
    } else {
        t = val_to_expr(in, tv, a->loc, "value");
        f = ir_cast(in->ctx, t->dtype, val_to_expr(in, fv, a->loc, "value"), a->loc);
    }
    if (t->dtype != f->dtype) f = ir_cast(in->ctx, t->dtype, f, a->loc);
    return val_expr(in, ir_select(in->ctx, c, t, f, a->loc));
}

static Value *t_cast(Interp *in, CallArgs *a, void *d) {
    bool tvm_order = d != NULL; /* T.Cast(dtype, x) vs T.cast(x, dtype) */
    if (a->pos.len != 2) ctx_fail(in->ctx, a->loc, "T.cast() takes 2 arguments");
    Value *x = a->pos.data[tvm_order ? 1 : 0], *t = a->pos.data[tvm_order ? 0 : 1];
    int lanes;
    DType dt = vec_dtype_arg(in, t, &lanes, a->loc, "dtype");
    if (lanes) return vec_cast(in, x, dt, lanes, a->loc); /* T.cast(h2, "float32x2") */
    if (x->kind == V_FLOAT) return val_expr(in, ir_float(in->ctx, x->u.f, dt, a->loc));
    return val_expr(in, ir_cast(in->ctx, dt, val_to_expr(in, x, a->loc, "value"), a->loc));
}

static Value *t_limit(Interp *in, CallArgs *a, void *d) {
    int which = (int)(intptr_t)d; /* 0 infinity, 1 max_value, 2 min_value */
    static const char *const names[] = {"T.infinity", "T.max_value", "T.min_value"};
    if (a->pos.len != 1) ctx_fail(in->ctx, a->loc, "%s() takes 1 argument", names[which]);
    DType dt = val_to_dtype(in, a->pos.data[0], a->loc, "dtype");
    Ctx *ctx = in->ctx;
    if (dtype_is_int(dt)) {
        if (which == 0) ctx_fail(ctx, a->loc, "T.infinity: %s has no infinity", dtype_name(dt));
        int bits = dtype_bits(dt);
        int64_t mx, mn;
        if (dt == DT_BOOL) mx = 1, mn = 0;
        else if (dtype_is_signed(dt))
            mx = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1, mn = -mx - 1;
        else mx = bits == 64 ? -1 : (INT64_C(1) << bits) - 1, mn = 0;
        return val_expr(in, ir_int(ctx, which == 1 ? mx : mn, dt, a->loc));
    }
    double big;
    switch (dt) {
    case DT_FLOAT16: big = 65504.0; break;
    case DT_BFLOAT16: big = 3.3895313892515355e38; break;
    case DT_FLOAT32: big = 3.4028234663852886e38; break;
    case DT_FLOAT8_E4M3: big = 448.0; break;
    case DT_FLOAT8_E5M2: big = 57344.0; break;
    default: big = 1.7976931348623157e308; break;
    }
    if (which == 0) {
        if (dt == DT_FLOAT8_E4M3) ctx_fail(ctx, a->loc, "T.infinity: float8_e4m3 has no infinity");
        big = INFINITY;
    }
    return val_expr(in, ir_float(ctx, which == 2 ? -big : big, dt, a->loc));
}

/* ---- misc statements ----------------------------------------------------------------- */
static Value *t_use_swizzle(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[3];
    args_bind(in, a, "T.use_swizzle", "panel_size=, order=, enable=", av, 3);
    need_kernel(in, a->loc, "T.use_swizzle");
    Stmt *s = ir_stmt(in->ctx, STMT_SWIZZLE, a->loc);
    s->u.swizzle.panel = av[0] ? val_to_expr(in, av[0], a->loc, "panel_size")
                               : ir_int(in->ctx, 10, DT_INT32, a->loc);
    s->u.swizzle.enable = opt_bool(in, av[2], true, a->loc);
    if (av[1] &&
        (av[1]->kind != V_STR ||
         (strcmp(av[1]->u.s, "row") && strcmp(av[1]->u.s, "column") && strcmp(av[1]->u.s, "col"))))
        ctx_fail(in->ctx, a->loc, "T.use_swizzle: order must be \"row\" or \"column\", not %s",
                 val_describe(in, av[1]));
    s->u.swizzle.column = av[1] && strcmp(av[1]->u.s, "row");
    emit_stmt(in, s);
    return val_none(in);
}

static Value *t_annotate_layout(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.annotate_layout", "layout_map", av, 1);
    need_kernel(in, a->loc, "T.annotate_layout");
    if (av[0]->kind != V_DICT)
        ctx_fail(in->ctx, a->loc, "T.annotate_layout takes a dict {buffer: layout}");
    for (int i = 0; i < av[0]->u.dict.keys.len; i++) {
        Value *k = av[0]->u.dict.keys.data[i], *v = av[0]->u.dict.values.data[i];
        if (k->kind != V_BUFFER)
            ctx_fail(in->ctx, a->loc, "T.annotate_layout: keys must be buffers");
        Stmt *s = ir_stmt(in->ctx, STMT_ANNOTATE_LAYOUT, a->loc);
        s->u.annotate.buf = k->u.buf;
        s->u.annotate.layout = val_describe(in, v);
        emit_stmt(in, s);
    }
    return val_none(in);
}

static Value *t_annotate_safe_value(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.annotate_safe_value", "safe_value_map", av, 1);
    if (av[0]->kind != V_DICT) ctx_fail(in->ctx, a->loc, "T.annotate_safe_value takes a dict");
    for (int i = 0; i < av[0]->u.dict.keys.len; i++) {
        Value *k = av[0]->u.dict.keys.data[i];
        if (k->kind != V_BUFFER)
            ctx_fail(in->ctx, a->loc, "T.annotate_safe_value: keys must be buffers");
        k->u.buf->safe_value = ir_cast(in->ctx, k->u.buf->dtype,
                                       val_to_expr(in, av[0]->u.dict.values.data[i], a->loc,
                                                   "safe value"),
                                       a->loc);
    }
    return val_none(in);
}

static Value *t_print(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.print", "obj, msg=", av, 2);
    need_kernel(in, a->loc, "T.print");
    Stmt *s = ir_stmt(in->ctx, STMT_PRINT, a->loc);
    s->u.print.msg = av[1] && av[1]->kind == V_STR ? av[1]->u.s : "";
    if (av[0]->kind == V_BUFFER || av[0]->kind == V_REGION)
        s->u.print.region = value_to_region(in, av[0], NULL, a->loc, "T.print");
    else s->u.print.value = val_to_expr(in, av[0], a->loc, "T.print argument");
    emit_stmt(in, s);
    return val_none(in);
}

static Value *t_device_assert(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.device_assert", "condition, msg=", av, 2);
    need_kernel(in, a->loc, "T.device_assert");
    Stmt *s = ir_stmt(in->ctx, STMT_ASSERT, a->loc);
    s->u.assert_.cond = val_to_expr(in, av[0], a->loc, "condition");
    s->u.assert_.msg = av[1] && av[1]->kind == V_STR ? av[1]->u.s : "";
    emit_stmt(in, s);
    return val_none(in);
}

static Value *t_sync(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len || a->kw.len) return tl_named_barrier(in, a, NULL); /* (barrier_id, n) */
    need_kernel(in, a->loc, "T.sync_threads");
    emit_stmt(in, ir_stmt(in->ctx, STMT_SYNC, a->loc));
    return val_none(in);
}

static Value *t_unsupported(Interp *in, CallArgs *a, void *d) {
    ctx_fail(in->ctx, a->loc, "%s is not supported yet by tilec", (const char *)d);
}

static Value *t_decorator_mark(Interp *in, CallArgs *a, void *d) {
    /* T.prim_func / T.macro applied as a plain call: mark and return the function */
    Value *f = a->pos.len == 1 ? a->pos.data[0] : NULL;
    if (!f || f->kind != V_FUNC)
        ctx_fail(in->ctx, a->loc, "%s must decorate a function", (const char *)d);
    if (!strcmp(d, "T.prim_func")) f->u.func->is_prim_func = true;
    else f->u.func->is_macro = true;
    return f;
}

/* ---- the T namespace ----------------------------------------------------------------- */
typedef struct TEntry {
    const char *name;
    BuiltinFn fn;
    intptr_t data;
} TEntry;

#define I(x) ((intptr_t)(x))
static const TEntry t_entries[] = {
    {"Kernel", t_kernel, 0},
    {"Tensor", t_tensor, 0},
    {"view", t_view, 0},
    {"reshape", t_view, 1},
    {"Buffer", t_tensor, 0},
    {"StridedTensor", t_tensor, 1},
    {"alloc_shared", t_alloc_shared, 0},
    {"alloc_fragment", t_alloc_fragment, 0},
    {"alloc_local", t_alloc_local, 0},
    {"alloc_var", t_alloc_var, 0},
    {"alloc_global", t_alloc_global, 0},
    {"copy", t_copy, 0},
    {"gemm", t_gemm, 0},
    {"wgmma_gemm", t_gemm, 1},
    {"fill", t_fill, 0},
    {"clear", t_fill, 1},
    {"reduce_sum", t_reduce, I(RED_SUM)},
    {"reduce_max", t_reduce, I(RED_MAX)},
    {"reduce_min", t_reduce, I(RED_MIN)},
    {"reduce_abssum", t_reduce, I(RED_ABSSUM)},
    {"reduce_absmax", t_reduce, I(RED_ABSMAX)},
    {"cumsum", t_cumsum, 0},
    {"atomic_add", t_atomic, I(ATOMIC_ADD)},
    {"atomic_max", t_atomic, I(ATOMIC_MAX)},
    {"atomic_min", t_atomic, I(ATOMIC_MIN)},
    {"Parallel", t_parallel, 0},
    {"Pipelined", t_range_loop, I(LOOP_PIPELINED)},
    {"serial", t_range_loop, I(LOOP_SERIAL)},
    {"unroll", t_range_loop, I(LOOP_UNROLL)},
    {"vectorized", t_range_loop, I(LOOP_VECTORIZED)},
    {"grid", t_grid, 0},
    {"ceildiv", t_ceildiv, 0},
    {"floordiv", t_binop, I("//")},
    {"floormod", t_binop, I("%")},
    {"max", t_minmax, I(OP_MAX)},
    {"min", t_minmax, I(OP_MIN)},
    {"if_then_else", t_if_then_else, 0},
    {"cast", t_cast, 0},
    {"Cast", t_cast, 1},
    {"infinity", t_limit, 0},
    {"max_value", t_limit, 1},
    {"min_value", t_limit, 2},
    {"use_swizzle", t_use_swizzle, 0},
    {"annotate_layout", t_annotate_layout, 0},
    {"annotate_safe_value", t_annotate_safe_value, 0},
    {"dynamic", t_dynamic, 0},
    {"symbolic", t_dynamic, 0},
    {"print", t_print, 0},
    {"device_assert", t_device_assert, 0},
    {"sync_threads", t_sync, 0},
    {"prim_func", t_decorator_mark, I("T.prim_func")},
    {"macro", t_decorator_mark, I("T.macro")},
    {"reduce_bitand", t_reduce, I(RED_BITAND)},
    {"reduce_bitor", t_reduce, I(RED_BITOR)},
    {"reduce_bitxor", t_reduce, I(RED_BITXOR)},
    {"cummax", t_cumsum, 1},
    {"const", t_const, 0},
    {"empty", t_empty, 0},
    {"parallel", t_parallel_range, 0},
    {"ClusterKernel", t_kernel, 1},
};
#undef I

/* The T names of the other tileops_*.c files, in tilec info --names' order. */
static const TNames *const tables[] = {&tl_expert_names,     &tl_thread_names, &tl_lang_names,
                                       &tl_launch_names,     &tl_math_names,   &tl_mem_names,
                                       &tl_py_names,         &tl_vec_names,    &tl_wgmma_names,
                                       &tl_ptr_names,        &tl_sched_names,  &tl_mma_names,
                                       &tl_intrinsics_names, &tl_wmma_names,   &tl_sparse_names};
enum { NTABLES = sizeof tables / sizeof *tables };

/* attr's entry in those tables, or NULL. */
static const TName *tl_name_find(const char *attr) {
    const TName *n = NULL;
    for (int t = 0; t < NTABLES && !n; t++) n = names_find(tables[t], attr);
    return n;
}

/* Every name of the T namespace and its status, "T.<name>\t<status>\n" lines in table
 * order (tilec info --names; tools/gen_lang_table.py makes docs/language.md's table). */
char *tl_lang_table(void) {
    StrBuf sb = {0};
    const char *ok = "C, CUDA", *no = "not yet (compile error)";
    for (size_t i = 0; i < sizeof t_entries / sizeof *t_entries; i++)
        sb_printf(&sb, "T.%s\t%s\n", t_entries[i].name,
                  tl_lang_status(t_entries[i].name, t_entries[i].fn == t_unsupported ? no : ok));
    for (int t = 0; t < NTABLES; t++)
        for (int i = 0; i < tables[t]->count; i++) {
            const TName *n = &tables[t]->names[i];
            sb_printf(&sb, "T.%s\t%s\n", n->name,
                      n->status ? n->status : tl_lang_status(n->name, ok));
        }
    for (int fn = 0; fn < FN_COUNT; fn++)
        if (intrinsic_is_plain((Intrinsic)fn))
            sb_printf(&sb, "T.%s\t%s\n", intrinsic_name((Intrinsic)fn),
                      tl_lang_status(intrinsic_name((Intrinsic)fn), ok));
    sb_printf(&sb, "T.GemmWarpPolicy\t%s\n", tl_lang_status("GemmWarpPolicy", ok));
    sb_printf(&sb, "T.Layout\t%s\n", tl_lang_status("Layout", ok));
    sb_printf(&sb, "T.Fragment\t%s\n", tl_lang_status("Fragment", ok));
    for (int t = 1; t < DT_COUNT; t++)
        sb_printf(&sb, "T.%s\tC, CUDA (dtype)\n", dtype_name((DType)t));
    return sb.buf;
}

Value *tl_lang_attr(Interp *in, const char *attr, Loc loc) {
    for (size_t i = 0; i < sizeof t_entries / sizeof t_entries[0]; i++)
        if (!strcmp(attr, t_entries[i].name))
            return bval(in, arena_printf(ARENA, "T.%s", attr), t_entries[i].fn,
                        (void *)t_entries[i].data);
    const TName *n = tl_name_find(attr);
    if (n) return bval(in, arena_printf(ARENA, "T.%s", attr), n->fn, (void *)n->data);
    for (int fn = 0; fn < FN_COUNT; fn++)
        if (intrinsic_is_plain((Intrinsic)fn) && !strcmp(attr, intrinsic_name((Intrinsic)fn)))
            return bval(in, arena_printf(ARENA, "T.%s", attr), t_intrinsic, (void *)(intptr_t)fn);
    DType dt = dtype_parse(attr);
    if (dt != DT_INVALID) return val_dtype(in, dt);
    Value *vdt = vec_dtype_attr(in, attr);
    if (vdt) return vdt;
    if (!strcmp(attr, "GemmWarpPolicy")) {
        Value *v = val_new(in, V_ATOM);
        v->u.s = "T.GemmWarpPolicy";
        return v;
    }
    if (!strcmp(attr, "Fragment") || !strcmp(attr, "Layout")) {
        Value *v = val_new(in, V_OPAQUE);
        v->u.s = arena_printf(ARENA, "tilelang.language.%s", attr);
        return v;
    }
    ctx_fail(in->ctx, loc, "T.%s is not a TileLang function known to tilec", attr);
}
