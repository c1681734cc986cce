/* tileops_lang.c - the long tail of the T namespace: TileLang 0.1.15's scalar helpers and
 * aliases that lower to the IR tilec already has, so they mean the same on every target
 * (the C target is the reference; the CUDA target prints the same expressions).
 *
 *   T.clamp(x, lo, hi)          T.min(T.max(x, lo), hi)  (customize.py: max first)
 *   T.exp10(x)                  T.pow(10, x) in x's float dtype (float32 for ints)
 *   T.fabs(x)                   T.abs of x as a float
 *   T.bitwise_and/or/xor(x, y), T.bitwise_not(x), T.shift_left/right(x, y)
 *                               the integer operators & | ^ ~ << >> (ints only)
 *   T.Select(c, t, f)           T.if_then_else(c, t, f) (both sides are plain values)
 *   T.Serial, T.Unroll          T.serial, T.unroll (loop.py's aliases)
 *   T.loop_break()              `break` out of the innermost kernel loop
 *   T.alloc_buffer(shape, dtype, scope=)
 *                               T.alloc_shared / alloc_fragment / alloc_local /
 *                               alloc_var by TVM's scope names ("shared", "shared.dyn",
 *                               "local.fragment", "local", "local.var"); "wmma.*":
 *                               a WMMA fragment (tileops_wmma.c)
 *   T.assume(cond)              a hint: nothing (TVM's builtin.assume)
 *   T.dtype(x)                  the dtype x names (a string or a dtype)
 *   T.get_block_binding(dim=0), T.get_block_bindings()
 *                               the enclosing T.Kernel's block index dim (all of them)
 *   T.atomic_addx2/x4(dst, value)
 *                               T.atomic_add of the 2 / 4 elements at dst (an element or
 *                               a slice, along its last dimension) and value (the same),
 *                               each element atomically (the hardware's vector atomics
 *                               are per element too); no return_prev
 *   T.reinterpret(value, dtype) the same bits as dtype, of the same width (a float16's
 *                               uint16 code, a uint32's float32, ...)
 *   T.alloc_reducer(shape, dtype, op="sum"), T.finalize_reducer(r)
 *                               a shared buffer whose `+=` is an atomic add; a barrier
 *   T.any_of(buf), T.all_of(buf)
 *                               whether any / every element of a buffer or region is
 *                               nonzero (logical.py), as one expression of its loads
 *                               (constant extents, at most 4096 elements)
 *
 *   T.call_intrin(dtype, op, *args)
 *                               the TVM op named op where it is a T function of tilec's
 *                               ("tir.exp" is T.exp, "tl.__fns" T.__fns; intrin_tir,
 *                               intrin_tl), its result checked against dtype
 *
 * They are the table tl_lang_names (tl_lang_attr in tileops.c looks them up). Errors
 * name the T function and point at the call.
 *
 * Also here: the status notes of docs/language.md's table of every T name
 * (tl_lang_status; the table is tl_lang_table's, tileops.c). TileLang names tilec does
 * not have are a compile error at the call (tileops.c). */
#include "frontend/eval.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

/* The builtin T.<name> (tileops.c's tables), called with a's arguments. */
static Value *call_t(Interp *in, const char *name, CallArgs *a) {
    return call_value(in, tl_lang_attr(in, name, a->loc), a);
}

static void nargs(Interp *in, CallArgs *a, int n, const char *fname) {
    if (a->pos.len != n || a->kw.len)
        ctx_fail(in->ctx, a->loc, "%s() takes %d positional argument%s", fname, n,
                 n == 1 ? "" : "s");
}

static Value *call2(Interp *in, const char *name, Value *x, Value *y, Loc loc) {
    CallArgs b = {0};
    b.loc = loc;
    VEC_PUSH(ARENA, b.pos, x);
    VEC_PUSH(ARENA, b.pos, y);
    return call_value(in, tl_lang_attr(in, name, loc), &b);
}

static Value *t_alias(Interp *in, CallArgs *a, void *d) { return call_t(in, d, a); }

static Value *t_clamp(Interp *in, CallArgs *a, void *d) {
    (void)d;
    nargs(in, a, 3, "T.clamp");
    Value *lo = call2(in, "max", a->pos.data[0], a->pos.data[1], a->loc);
    return call2(in, "min", lo, a->pos.data[2], a->loc);
}

static Expr *as_float(Interp *in, Value *v, Loc loc, const char *fname) {
    Expr *e = val_to_expr(in, v, loc, fname);
    return dtype_is_float(e->dtype) ? e : ir_cast(in->ctx, DT_FLOAT32, e, loc);
}

static Value *t_exp10(Interp *in, CallArgs *a, void *d) {
    (void)d;
    nargs(in, a, 1, "T.exp10");
    Expr *x = as_float(in, a->pos.data[0], a->loc, "T.exp10");
    Expr *ten = ir_float(in->ctx, 10.0, x->dtype, a->loc);
    return val_expr(in, ir_call(in->ctx, FN_POW, ten, x, a->loc));
}

static Value *t_fabs(Interp *in, CallArgs *a, void *d) {
    (void)d;
    nargs(in, a, 1, "T.fabs");
    return val_expr(in, ir_call(in->ctx, FN_ABS, as_float(in, a->pos.data[0], a->loc, "T.fabs"),
                                NULL, a->loc));
}

/* An integer operand of a bitwise T function (a Python int, or an int expression). */
static Value *int_operand(Interp *in, Value *v, Loc loc, const char *fname) {
    if (v->kind == V_INT || v->kind == V_BOOL) return v;
    Expr *e = val_to_expr(in, v, loc, fname);
    if (!dtype_is_int(e->dtype) && e->dtype != DT_BOOL)
        ctx_fail(in->ctx, loc, "%s: operands must be integers, got %s", fname,
                 dtype_name(e->dtype));
    return val_expr(in, e);
}

static const struct {
    const char *name, *op;
} bit_ops[] = {
    {"bitwise_and", "&"}, {"bitwise_or", "|"},   {"bitwise_xor", "^"},
    {"shift_left", "<<"}, {"shift_right", ">>"},
};

static Value *t_bitwise(Interp *in, CallArgs *a, void *d) {
    int i = (int)(intptr_t)d;
    const char *fname = arena_printf(ARENA, "T.%s", bit_ops[i].name);
    nargs(in, a, 2, fname);
    Value *x = int_operand(in, a->pos.data[0], a->loc, fname);
    Value *y = int_operand(in, a->pos.data[1], a->loc, fname);
    return eval_binop(in, bit_ops[i].op, x, y, a->loc);
}

static Value *t_bitwise_not(Interp *in, CallArgs *a, void *d) {
    (void)d;
    nargs(in, a, 1, "T.bitwise_not");
    Value *x = int_operand(in, a->pos.data[0], a->loc, "T.bitwise_not");
    if (x->kind != V_EXPR) return val_int(in, ~val_to_int(in, x, a->loc, "T.bitwise_not"));
    return val_expr(in, ir_un(in->ctx, OP_BITNOT, x->u.expr, a->loc));
}

static Value *t_loop_break(Interp *in, CallArgs *a, void *d) {
    (void)d;
    nargs(in, a, 0, "T.loop_break");
    if (!in->builder || !in->in_kernel)
        ctx_fail(in->ctx, a->loc, "T.loop_break is only allowed inside a kernel loop");
    emit_stmt(in, ir_stmt(in->ctx, STMT_BREAK, a->loc));
    return val_none(in);
}

static Value *t_alloc_buffer(Interp *in, CallArgs *a, void *d) {
    (void)d;
    static const struct {
        const char *scope, *fn;
    } scopes[] = {
        {"shared", "alloc_shared"},           {"shared.dyn", "alloc_shared"},
        {"local.fragment", "alloc_fragment"}, {"local", "alloc_local"},
        {"local.var", "alloc_var"},
    };
    Value *av[3];
    args_bind(in, a, "T.alloc_buffer", "shape, dtype=, scope=", av, 3);
    if (!av[1] || av[1]->kind == V_NONE)
        ctx_fail(in->ctx, a->loc, "T.alloc_buffer(shape, dtype, scope=) needs a dtype");
    if (av[2] && av[2]->kind != V_STR && av[2]->kind != V_NONE)
        ctx_fail(in->ctx, a->loc, "T.alloc_buffer: scope must be a string");
    const char *scope = av[2] && av[2]->kind == V_STR ? av[2]->u.s : "global";
    if (!strncmp(scope, "wmma.", 5))
        return tl_wmma_alloc(in, av[0], av[1], scope, a->loc, "T.alloc_buffer");
    CallArgs b = {0};
    b.loc = a->loc;
    VEC_PUSH(ARENA, b.pos, av[0]);
    VEC_PUSH(ARENA, b.pos, av[1]);
    for (size_t i = 0; i < sizeof scopes / sizeof *scopes; i++)
        if (!strcmp(scope, scopes[i].scope)) {
            if (!strcmp(scopes[i].fn, "alloc_var")) { /* (shape must be one element) */
                int64_t n = 1;
                Value *sh = b.pos.data[0];
                if (sh->kind == V_TUPLE || sh->kind == V_LIST)
                    for (int j = 0; j < sh->u.items.len; j++)
                        n *= val_to_int(in, sh->u.items.data[j], a->loc, "shape");
                else n = val_to_int(in, sh, a->loc, "shape");
                if (n != 1)
                    ctx_fail(in->ctx, a->loc,
                             "T.alloc_buffer: a \"local.var\" buffer holds one "
                             "element");
                b.pos.data[0] = b.pos.data[1], b.pos.len = 1;
            }
            return call_t(in, scopes[i].fn, &b);
        }
    ctx_fail(in->ctx, a->loc,
             "T.alloc_buffer: scope \"%s\" is not supported by tilec (use "
             "\"shared\", \"shared.dyn\", \"local.fragment\", \"local\" or "
             "\"local.var\"; global buffers: T.alloc_global)",
             scope);
}

static Value *t_dtype(Interp *in, CallArgs *a, void *d) {
    (void)d;
    nargs(in, a, 1, "T.dtype");
    return val_dtype(in, val_to_dtype(in, a->pos.data[0], a->loc, "T.dtype argument"));
}

static Value *t_assume(Interp *in, CallArgs *a, void *d) {
    (void)d;
    nargs(in, a, 1, "T.assume");
    val_to_expr(in, a->pos.data[0], a->loc, "T.assume condition");
    return val_none(in);
}

/* T.no_set_max_nreg() (T.disable_warp_group_reg_alloc() before 0.1.15): the kernel's
 * TMA producer and consumer warp groups keep the registers of the launch (no setmaxnreg). */
static Value *t_no_set_max_nreg(Interp *in, CallArgs *a, void *d) {
    nargs(in, a, 0, d);
    need_kernel(in, a->loc, d);
    in->func->no_set_max_nreg = true;
    return val_none(in);
}

/* T.alloc_reducer(shape, dtype, op="sum", replication=None): a shared buffer that
 * threads reduce into with `+=` (atomic adds; TileLang keeps per-thread replicas and
 * combines them at T.finalize_reducer, with the same result). */
static Value *t_alloc_reducer(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[4];
    args_bind(in, a, "T.alloc_reducer", "shape, dtype, op=, replication=", av, 4);
    if (av[2] && av[2]->kind != V_NONE && (av[2]->kind != V_STR || strcmp(av[2]->u.s, "sum")))
        ctx_fail(in->ctx, a->loc, "T.alloc_reducer: only op=\"sum\" is supported yet");
    CallArgs b = {.loc = a->loc};
    VEC_PUSH(ARENA, b.pos, av[0]);
    VEC_PUSH(ARENA, b.pos, av[1]);
    Value *v = call_t(in, "alloc_shared", &b);
    v->u.buf->reducer = true;
    return v;
}

/* T.finalize_reducer(r): a barrier, after which every thread's adds are in r. */
static Value *t_finalize_reducer(Interp *in, CallArgs *a, void *d) {
    (void)d;
    nargs(in, a, 1, "T.finalize_reducer");
    Value *r = a->pos.data[0];
    if (r->kind != V_BUFFER || !r->u.buf->reducer)
        ctx_fail(in->ctx, a->loc, "T.finalize_reducer takes a T.alloc_reducer buffer");
    emit_stmt(in, ir_stmt(in->ctx, STMT_SYNC, a->loc));
    return val_none(in);
}

/* docs/language.md's status of names that are not plainly "C, CUDA". */
static const char *const notes[][2] = {
    {"Kernel", "C, CUDA (`cluster_dims=`: sm_90 clusters; C: a cluster's blocks at once)"},
    {"ClusterKernel", "C, CUDA sm_90 (C: a cluster's blocks at once)"},
    {"Pipelined", "C, CUDA (step 1 only)"},
    {"vectorized", "C, CUDA (step 1 only)"},
    {"atomic_add", "C, CUDA"},
    {"annotate_layout", "C, CUDA (swizzled shared tiles honoured; other layouts inferred)"},
    {"Layout", "accepted in T.annotate_layout, not honoured"},
    {"Fragment", "accepted in T.annotate_layout, not honoured"},
    {"use_swizzle", "C, CUDA (block order only; the C target ignores it)"},
    {"ws", "CUDA; C: program order"},
    {"alloc_barrier", "CUDA; C: no effect"},
    {"create_list_of_mbarrier", "CUDA; C: no effect"},
    {"get_mbarrier", "CUDA; C: no effect"},
    {"mbarrier_wait_parity", "CUDA; C: no effect"},
    {"barrier_wait", "CUDA; C: no effect"},
    {"mbarrier_arrive", "CUDA; C: no effect"},
    {"barrier_arrive", "CUDA; C: no effect"},
    {"mbarrier_expect_tx", "CUDA; C: no effect"},
    {"mbarrier_arrive_expect_tx", "CUDA; C: no effect"},
    {"tma_copy", "C, CUDA (TMA on sm_90a)"},
    {"set_max_nreg", "CUDA sm_90a; else no effect"},
    {"inc_max_nreg", "CUDA sm_90a; else no effect"},
    {"dec_max_nreg", "CUDA sm_90a; else no effect"},
    {"fence_proxy_async", "CUDA sm_90a; else no effect"},
    {"wait_wgmma", "CUDA sm_90a; else no effect"},
    {"warpgroup_wait", "CUDA sm_90a; else no effect"},
    {"wgmma_gemm", "C, CUDA (wgmma on sm_90a, else an error)"},
    {"assume", "C, CUDA (a hint: no effect)"},
    {"no_set_max_nreg", "CUDA sm_90a; else no effect"},
    {"disable_warp_group_reg_alloc", "CUDA sm_90a; else no effect"},
    {"atomic_addx2", "C, CUDA (no `return_prev`)"},
    {"atomic_addx4", "C, CUDA (no `return_prev`)"},
    {"pdl_trigger", "CUDA sm_90 (griddepcontrol); else no effect"},
    {"pdl_sync", "CUDA sm_90 (griddepcontrol); else no effect"},
    {"annotate_min_blocks_per_sm", "CUDA (`__launch_bounds__`); C: no effect"},
    {"annotate_l2_hit_ratio", "C, CUDA (a hint: no effect)"},
    {"tvm_warp_shuffle", "C, CUDA (`warp_size` not used)"},
    {"tvm_warp_shuffle_up", "C, CUDA (`warp_size` not used)"},
    {"tvm_warp_shuffle_down", "C, CUDA (`warp_size` not used)"},
    {"ldg64", "C, CUDA (`uint32x2` as a tuple of 2 uint32)"},
    {"ldg128", "C, CUDA (`uint32x4` as a tuple of 4 uint32)"},
    {"ldg256", "C, CUDA (`uint32x8` as a tuple of 8 uint32)"},
    {"lds64", "C, CUDA (`uint32x2` as a tuple of 2 uint32)"},
    {"lds128", "C, CUDA (`uint32x4` as a tuple of 4 uint32)"},
    {"__ldg", "C, CUDA (C: a plain load)"},
    {"import_source", "C, CUDA (C code for the C target: `#ifdef __CUDACC__`)"},
    {"call_extern", "C, CUDA (thread-level: each thread calls; not in `T.Parallel`)"},
    {"access_ptr", "C, CUDA (arguments of `T.call_extern`; not of fragments)"},
    {"address_of", "C, CUDA (arguments of `T.call_extern`)"},
    {"tvm_access_ptr", "C, CUDA (arguments of `T.call_extern`)"},
    {"async_copy", "C, CUDA (`T.copy`: complete when it returns)"},
    {"create_barriers", "CUDA; C: no effect"},
    {"ptx_init_barrier_thread_count", "CUDA; C: no effect"},
    {"ptx_arrive_barrier", "CUDA; C: no effect"},
    {"ptx_arrive_barrier_expect_tx", "CUDA; C: no effect"},
    {"ptx_wait_barrier", "CUDA (parity 0); C: no effect"},
    {"ptx_fence_barrier_init", "C, CUDA (no effect: tilec fences each init)"},
    {"ptx_cp_async", "C, CUDA (thread-level; C: complete at issue)"},
    {"ptx_commit_group", "CUDA; C: no effect (copies complete at issue)"},
    {"ptx_wait_group", "CUDA; C: no effect (copies complete at issue)"},
    {"ptx_cp_async_barrier", "CUDA; C: no effect"},
    {"cp_async_barrier_noinc", "CUDA; C: no effect"},
    {"tvm_storage_sync", "C, CUDA (`\"shared\"`, `\"warp\"`: a block barrier; no `\"global\"`)"},
    {"tma_store_arrive", "C, CUDA (no effect: tilec waits for its own TMA stores)"},
    {"tma_store_wait", "C, CUDA (no effect: tilec waits for its own TMA stores)"},
    {"rng_init", "C, CUDA (Philox4_32_10 only; thread-level)"},
    {"rng_rand", "C, CUDA (thread-level)"},
    {"rng_rand_float", "C, CUDA (`bit=32`, `dist=\"uniform\"` only; thread-level)"},
    {"named_barrier_arrive", "CUDA; C: no effect (not in kernels with `T.ws`)"},
    {"sync_threads", "C, CUDA (named `(barrier_id, arrive_count)`: CUDA; C: no effect)"},
    {"alloc_descriptor", "C, CUDA (kind `\"wgmma\"` only)"},
    {"ptx_wgmma_ss", "C, CUDA sm_90a (f16/bf16/fp8, float32 accumulators; else an error)"},
    {"ptx_wgmma_rs", "C, CUDA sm_90a (f16/bf16/fp8, float32 accumulators; else an error)"},
    {"warpgroup_arrive", "C, CUDA sm_90a (C: no effect; else an error)"},
    {"warpgroup_commit_batch", "C, CUDA sm_90a (C: no effect; else an error)"},
    {"warpgroup_fence_operand", "C, CUDA (C: no effect)"},
    {"wgmma_mma", "C, CUDA (wgmma on sm_90a, else an error)"},
    {"ptx_cp_async_bulk", "C, CUDA (cp.async.bulk on sm_90a; else the thread's copy)"},
};

const char *tl_lang_status(const char *name, const char *dflt) {
    for (size_t i = 0; i < sizeof notes / sizeof *notes; i++)
        if (!strcmp(name, notes[i][0])) return notes[i][1];
    return dflt;
}

/* OR (any) or AND (all) of the elements' truth, balanced: loads of r's elements lo..hi-1
 * (row-major over r's extents ext). */
static Expr *fold_elems(Interp *in, const Region *r, const int64_t *ext, int64_t lo, int64_t hi,
                        bool any, Loc loc) {
    Ctx *c = in->ctx;
    if (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        return ir_bin(c, any ? OP_OR : OP_AND, fold_elems(in, r, ext, lo, mid, any, loc),
                      fold_elems(in, r, ext, mid, hi, any, loc), loc);
    }
    Expr **idx = NEW_ARRAY(ARENA, Expr *, r->ndim);
    for (int d = r->ndim - 1; d >= 0; lo /= ext[d], d--)
        idx[d] = ir_bin(c, OP_ADD, ir_subst(c, r->start[d], NULL, NULL),
                        ir_int(c, lo % ext[d], DT_INT32, loc), loc);
    Expr *x = ir_load(c, r->buf, idx, loc);
    return x->dtype == DT_BOOL
               ? x
               : ir_bin(c, OP_NE, x, ir_cast(c, x->dtype, ir_int(c, 0, DT_INT32, loc), loc), loc);
}

static Value *block_var(Interp *in, int d, Loc loc) {
    return val_expr(in, ir_varref(in->ctx, in->kernel->u.kernel.block[d], loc));
}

static Value *t_block_binding(Interp *in, CallArgs *a, void *d) {
    bool all = d != NULL;
    const char *fname = all ? "T.get_block_bindings" : "T.get_block_binding";
    Value *av[1] = {NULL};
    args_bind(in, a, fname, all ? "" : "dim=", av, all ? 0 : 1);
    if (!in->builder || !in->in_kernel || !in->kernel)
        ctx_fail(in->ctx, a->loc, "%s is only allowed inside a 'with T.Kernel(...)' block", fname);
    int n = in->kernel->u.kernel.ngrid;
    if (all) {
        Value *t = val_new(in, V_TUPLE);
        for (int k = 0; k < n; k++) VEC_PUSH(ARENA, t->u.items, block_var(in, k, a->loc));
        return t;
    }
    int64_t dim = av[0] ? val_to_int(in, av[0], a->loc, "dim") : 0;
    if (dim < 0 || dim >= n)
        ctx_fail(in->ctx, a->loc, "%s: dim %lld, but the kernel's grid has %d dimension%s", fname,
                 (long long)dim, n, n == 1 ? "" : "s");
    return block_var(in, (int)dim, a->loc);
}

/* n elements along the last dimension from v (an element, or a slice of n there). */
static Region vec_region(Interp *in, Value *v, int n, Loc loc, const char *what) {
    Expr *ext = ir_int(in->ctx, n, DT_INT32, loc);
    Region like = {NULL, 1, NULL, &ext};
    if (v->kind == V_EXPR && v->u.expr->kind == EXPR_LOAD) {
        like.buf = v->u.expr->u.load.buf;
        return value_to_region(in, v, &like, loc, what);
    }
    Region r = value_to_region(in, v, NULL, loc, what);
    int64_t e = 0, total = 1;
    for (int d = 0; d < r.ndim; d++) {
        if (!ir_is_const_int(r.extent[d], &e)) e = -1;
        total = e < 0 || total < 0 ? -1 : total * e;
    }
    if (r.ndim < 1 || total != n || !ir_is_const_int(r.extent[r.ndim - 1], &e) || e != n)
        ctx_fail(in->ctx, loc, "%s must be an element or %d consecutive elements of one row", what,
                 n);
    return r;
}

static Value *t_atomic_addx(Interp *in, CallArgs *a, void *d) {
    int n = (int)(intptr_t)d;
    const char *fname = n == 2 ? "T.atomic_addx2" : "T.atomic_addx4";
    Value *av[3];
    args_bind(in, a, fname, "dst, value, return_prev=", av, 3);
    if (!in->builder || !in->in_kernel)
        ctx_fail(in->ctx, a->loc, "%s is only allowed inside a 'with T.Kernel(...)' block", fname);
    if (av[2] && val_truthy(in, av[2], a->loc))
        ctx_fail(in->ctx, a->loc, "%s(return_prev=True) is not supported yet by tilec", fname);
    Stmt *s = ir_stmt(in->ctx, STMT_ATOMIC, a->loc);
    s->u.atomic.op = ATOMIC_ADD;
    s->u.atomic.dst = vec_region(in, av[0], n, a->loc, arena_printf(ARENA, "%s: dst", fname));
    s->u.atomic.src = vec_region(in, av[1], n, a->loc, arena_printf(ARENA, "%s: value", fname));
    emit_stmt(in, s);
    return val_none(in);
}

static bool dtype_like(const Value *v) {
    return v->kind == V_DTYPE || v->kind == V_VEC_DTYPE || v->kind == V_STR;
}

static Value *t_reinterpret(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.reinterpret", "value, dtype", av, 2);
    if (dtype_like(av[0]) && !dtype_like(av[1])) { /* TVM's (dtype, value) order */
        Value *t = av[0];
        av[0] = av[1], av[1] = t;
    }
    if (av[1]->kind == V_STR && !strcmp(av[1]->u.s, "handle")) { /* TVM's pointer: T.attr's */
        Value *h = val_new(in, V_OPAQUE);
        h->u.s = "T.reinterpret(..., \"handle\")";
        return h;
    }
    Value *vec = vec_reinterpret(in, av[0], av[1], a->loc);
    if (vec) return vec;
    DType to = val_to_dtype(in, av[1], a->loc, "dtype");
    Expr *x = av[0]->kind == V_FLOAT ? ir_float(in->ctx, av[0]->u.f, DT_FLOAT32, a->loc)
                                     : val_to_expr(in, av[0], a->loc, "T.reinterpret value");
    if (to == DT_BOOL || x->dtype == DT_BOOL || dtype_bits(to) != dtype_bits(x->dtype))
        ctx_fail(in->ctx, a->loc, "T.reinterpret: %s and %s differ in width (or are bool)",
                 dtype_name(x->dtype), dtype_name(to));
    return val_expr(in, ir_bitcast(in->ctx, to, x, a->loc));
}

/* T.Persistent(domain, wave_size, index, group_size=8): a persistent kernel's tiles, as
 * `for bx, by in T.Persistent([m_tiles, n_tiles], sm_num, block_id)` (eval.c runs it). */
static Value *t_persistent(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[4];
    args_bind(in, a, "T.Persistent", "domain, wave_size, index, group_size=", av, 4);
    need_kernel(in, a->loc, "T.Persistent");
    if (av[0]->kind != V_LIST && av[0]->kind != V_TUPLE)
        ctx_fail(in->ctx, a->loc, "T.Persistent: the domain is a list of extents");
    int n = av[0]->u.items.len;
    if (n < 1 || n > 8) ctx_fail(in->ctx, a->loc, "T.Persistent: 1 to 8 extents, not %d", n);
    LoopSpec *L = NEW(&in->ctx->arena, LoopSpec);
    L->kind = LOOP_SERIAL, L->n = n;
    for (int k = 0; k < n; k++) {
        L->min[k] = ir_int(in->ctx, 0, DT_INT32, a->loc);
        L->extent[k] = val_to_expr(in, av[0]->u.items.data[k], a->loc, "T.Persistent extent");
    }
    L->wave = val_to_expr(in, av[1], a->loc, "wave_size");
    L->index = val_to_expr(in, av[2], a->loc, "index");
    L->group = av[3] && av[3]->kind != V_NONE ? val_to_expr(in, av[3], a->loc, "group_size")
                                              : ir_int(in->ctx, 8, DT_INT32, a->loc);
    Value *v = val_new(in, V_LOOP);
    v->u.loop = L;
    return v;
}

/* ---- T.im2col: a convolution's image patches as the rows of a GEMM operand ---------- */
typedef struct Im2col {
    Interp *in;
    Loc loc;
} Im2col;

static Expr *ic_bin(Im2col *c, BinOp op, Expr *x, Expr *y) {
    return ir_bin(c->in->ctx, op, x, y, c->loc);
}
static Expr *ic_int(Im2col *c, int64_t v) { return ir_int(c->in->ctx, v, DT_INT32, c->loc); }

/* One output size of the convolution: (dim + 2 pad - (kernel - 1) dilation - 1) // stride + 1. */
static Expr *ic_out_dim(Im2col *c, Expr *dim, int64_t kernel, int64_t stride, int64_t dil,
                        int64_t pad) {
    Expr *e = ic_bin(c, OP_ADD, dim, ic_int(c, 2 * pad - (kernel - 1) * dil - 1));
    return ic_bin(c, OP_ADD, ic_bin(c, OP_FLOORDIV, e, ic_int(c, stride)), ic_int(c, 1));
}

/* T.im2col(img, col, nhw_step, c_step, kernel, stride, dilation, pad): col[i, j] (its last
 * two dims) = img[n, h, w, ch] for row m = nhw_step * block_m + i (n, oh, ow of an NHWC
 * output) and column k = c_step * block_k + j (kh, kw, ch), 0 where (h, w) falls in the
 * padding: TileLang's im2col as a T.Parallel nest, so both targets lower it as one. */
static Value *t_im2col(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[10];
    args_bind(in, a, "T.im2col",
              "img, col, nhw_step, c_step, kernel, stride=, dilation=, pad=, "
              "eviction_policy=, annotations=",
              av, 10);
    need_kernel(in, a->loc, "T.im2col");
    Im2col c = {in, a->loc};
    Region img = value_to_region(in, av[0], NULL, a->loc, "T.im2col image");
    Region col = value_to_region(in, av[1], NULL, a->loc, "T.im2col columns");
    int64_t bm, bk, kernel = val_to_int(in, av[4], a->loc, "kernel");
    int64_t stride = av[5] ? val_to_int(in, av[5], a->loc, "stride") : 1;
    int64_t dil = av[6] ? val_to_int(in, av[6], a->loc, "dilation") : 1;
    int64_t pad = av[7] ? val_to_int(in, av[7], a->loc, "pad") : 0;
    if (img.buf->ndim != 4 || img.buf->scope != SCOPE_GLOBAL || col.ndim < 2 ||
        col.buf->dtype != img.buf->dtype)
        ctx_fail(in->ctx, a->loc,
                 "T.im2col takes a 4-d NHWC global image and a 2-d tile of "
                 "its dtype");
    if (!ir_is_const_int(col.extent[col.ndim - 2], &bm) ||
        !ir_is_const_int(col.extent[col.ndim - 1], &bk) || kernel < 1 || stride < 1 || dil < 1 ||
        pad < 0)
        ctx_fail(in->ctx, a->loc,
                 "T.im2col: the tile's extents must be constants, kernel, stride "
                 "and dilation positive, pad not negative");
    Expr **shape = img.buf->shape;
    Expr *out_w = ic_out_dim(&c, shape[2], kernel, stride, dil, pad);
    Expr *out_hw = ic_bin(&c, OP_MUL, ic_out_dim(&c, shape[1], kernel, stride, dil, pad), out_w);
    Var *i = ir_var(in->ctx, "i_im2col", DT_INT32), *j = ir_var(in->ctx, "j_im2col", DT_INT32);
    Expr *m = ic_bin(&c, OP_ADD,
                     ic_bin(&c, OP_MUL, val_to_expr(in, av[2], a->loc, "nhw_step"), ic_int(&c, bm)),
                     ir_varref(in->ctx, i, a->loc));
    Expr *k = ic_bin(&c, OP_ADD,
                     ic_bin(&c, OP_MUL, val_to_expr(in, av[3], a->loc, "c_step"), ic_int(&c, bk)),
                     ir_varref(in->ctx, j, a->loc));
    Expr *kc = ic_bin(&c, OP_MUL, ic_int(&c, kernel), shape[3]);
    Expr *h = ic_bin(&c, OP_SUB,
                     ic_bin(&c, OP_ADD,
                            ic_bin(&c, OP_MUL,
                                   ic_bin(&c, OP_FLOORDIV, ic_bin(&c, OP_FLOORMOD, m, out_hw),
                                          out_w),
                                   ic_int(&c, stride)),
                            ic_bin(&c, OP_MUL, ic_bin(&c, OP_FLOORDIV, k, kc), ic_int(&c, dil))),
                     ic_int(&c, pad));
    Expr *w = ic_bin(&c, OP_SUB,
                     ic_bin(&c, OP_ADD,
                            ic_bin(&c, OP_MUL, ic_bin(&c, OP_FLOORMOD, m, out_w),
                                   ic_int(&c, stride)),
                            ic_bin(&c, OP_MUL,
                                   ic_bin(&c, OP_FLOORMOD, ic_bin(&c, OP_FLOORDIV, k, shape[3]),
                                          ic_int(&c, kernel)),
                                   ic_int(&c, dil))),
                     ic_int(&c, pad));
    Expr *inside = ic_bin(&c, OP_AND,
                          ic_bin(&c, OP_AND, ic_bin(&c, OP_GE, h, ic_int(&c, 0)),
                                 ic_bin(&c, OP_GE, w, ic_int(&c, 0))),
                          ic_bin(&c, OP_AND, ic_bin(&c, OP_LT, h, shape[1]),
                                 ic_bin(&c, OP_LT, w, shape[2])));
    Expr *idx[4] = {ic_bin(&c, OP_FLOORDIV, m, out_hw), h, w, ic_bin(&c, OP_FLOORMOD, k, shape[3])};
    Expr *zero = dtype_is_float(img.buf->dtype) ? ir_float(in->ctx, 0.0, img.buf->dtype, a->loc)
                                                : ir_int(in->ctx, 0, img.buf->dtype, a->loc);
    Stmt *st = ir_stmt(in->ctx, STMT_STORE, a->loc);
    st->u.store.buf = col.buf;
    st->u.store.idx = NEW_ARRAY(&in->ctx->arena, Expr *, col.buf->ndim);
    for (int dim = 0; dim < col.ndim; dim++) {
        Expr *at = dim == col.ndim - 2   ? ir_varref(in->ctx, i, a->loc)
                   : dim == col.ndim - 1 ? ir_varref(in->ctx, j, a->loc)
                                         : NULL;
        st->u.store.idx[dim] = at ? ic_bin(&c, OP_ADD, col.start[dim], at) : col.start[dim];
    }
    st->u.store.value = ir_select(in->ctx, inside, ir_load(in->ctx, img.buf, idx, a->loc), zero,
                                  a->loc);
    Stmt *loop = st;
    Var *vars[2] = {j, i};
    int64_t ext[2] = {bk, bm};
    for (int n = 0; n < 2; n++) {
        Stmt *f = ir_stmt(in->ctx, STMT_FOR, a->loc);
        f->u.for_.var = vars[n], f->u.for_.min = ic_int(&c, 0),
        f->u.for_.extent = ic_int(&c, ext[n]);
        f->u.for_.kind = LOOP_PARALLEL, f->u.for_.body = loop;
        loop = f;
    }
    emit_stmt(in, loop);
    return val_none(in);
}

static Value *t_any_all(Interp *in, CallArgs *a, void *d) {
    bool any = d != NULL;
    const char *fname = any ? "T.any_of" : "T.all_of";
    nargs(in, a, 1, fname);
    Region r = value_to_region(in, a->pos.data[0], NULL, a->loc, fname);
    int64_t ext[8], n = 1;
    for (int k = 0; k < r.ndim; k++) {
        if (!ir_is_const_int(r.extent[k], &ext[k]))
            ctx_fail(in->ctx, a->loc, "%s: the region's extents must be compile-time constants",
                     fname);
        n *= ext[k];
    }
    if (n < 1 || n > 4096)
        ctx_fail(in->ctx, a->loc, "%s: %lld elements; 1 to 4096 are supported", fname,
                 (long long)n);
    return val_expr(in, fold_elems(in, &r, ext, 0, n, any, a->loc));
}

/* The TVM ops T.call_intrin reaches by name: tir.<name> is T.<name> (tir.fabs T.fabs), and
 * the tl.<name> ops whose arguments T.<name> takes as they are. */
static const char *const intrin_tir[] = {"exp",       "exp2",     "exp10", "log",       "log2",
                                         "log10",     "log1p",    "expm1", "sqrt",      "rsqrt",
                                         "sigmoid",   "tanh",     "sin",   "cos",       "tan",
                                         "sinh",      "cosh",     "asin",  "acos",      "atan",
                                         "asinh",     "acosh",    "atanh", "atan2",     "erf",
                                         "fabs",      "floor",    "ceil",  "round",     "trunc",
                                         "nearbyint", "pow",      "fmod",  "isnan",     "isinf",
                                         "isfinite",  "copysign", "hypot", "nextafter", "ldexp",
                                         "popcount",  "clz"};
static const char *const intrin_tl[] = {"__ffs", "__fns", "annotate_producer_reg_dealloc",
                                        "annotate_consumer_reg_alloc", "no_set_max_nreg"};

static bool name_in(const char *name, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, list[i])) return true;
    return false;
}

/* T.call_intrin(dtype, op, *args): the TVM op named op (a string) on args, where it is a
 * T function of tilec's (intrin_tir, intrin_tl); its result must have dtype ("handle" for
 * a statement's). Another op is an error that names it. */
static Value *t_call_intrin(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len < 2 || a->kw.len)
        ctx_fail(in->ctx, a->loc,
                 "T.call_intrin(dtype, op, *args) takes a dtype, an op name "
                 "and the op's arguments");
    Value *op = a->pos.data[1];
    if (op->kind != V_STR) ctx_fail(in->ctx, a->loc, "T.call_intrin: the op must be a name");
    const char *name = op->u.s;
    bool tir = !strncmp(name, "tir.", 4), tl = !strncmp(name, "tl.", 3);
    const char *fn = name + (tir ? 4 : tl ? 3 : 0);
    if (!(tir && name_in(fn, intrin_tir, sizeof intrin_tir / sizeof *intrin_tir)) &&
        !(tl && name_in(fn, intrin_tl, sizeof intrin_tl / sizeof *intrin_tl)))
        ctx_fail(in->ctx, a->loc,
                 "T.call_intrin: the op \"%s\" has no meaning in tilec (it knows tir.<math "
                 "function> and tl.__ffs, tl.__fns and the register hints)",
                 name);
    Value *dt = a->pos.data[0];
    bool handle = dt->kind == V_NONE || (dt->kind == V_STR && !strcmp(dt->u.s, "handle"));
    DType want = handle ? DT_INVALID : val_to_dtype(in, dt, a->loc, "T.call_intrin: dtype");
    CallArgs b = {0};
    b.loc = a->loc;
    for (int i = 2; i < a->pos.len; i++) VEC_PUSH(ARENA, b.pos, a->pos.data[i]);
    Value *r = call_t(in, fn, &b);
    DType got = r->kind == V_NONE ? DT_INVALID : val_to_expr(in, r, a->loc, name)->dtype;
    if (got != want)
        ctx_fail(in->ctx, a->loc, "T.call_intrin: %s gives %s here, not %s", name,
                 got == DT_INVALID ? "no value" : dtype_name(got),
                 handle ? "a statement (\"handle\")" : dtype_name(want));
    return r;
}

static const TName lang[] = {
    {"clamp", t_clamp, NULL, NULL},
    {"exp10", t_exp10, NULL, NULL},
    {"fabs", t_fabs, NULL, NULL},
    {"bitwise_and", t_bitwise, (void *)0, NULL},
    {"bitwise_or", t_bitwise, (void *)1, NULL},
    {"bitwise_xor", t_bitwise, (void *)2, NULL},
    {"shift_left", t_bitwise, (void *)3, NULL},
    {"shift_right", t_bitwise, (void *)4, NULL},
    {"bitwise_not", t_bitwise_not, NULL, NULL},
    {"Select", t_alias, "if_then_else", NULL},
    {"Serial", t_alias, "serial", NULL},
    {"Unroll", t_alias, "unroll", NULL},
    {"loop_break", t_loop_break, NULL, NULL},
    {"alloc_buffer", t_alloc_buffer, NULL, NULL},
    {"assume", t_assume, NULL, NULL},
    {"no_set_max_nreg", t_no_set_max_nreg, "T.no_set_max_nreg", NULL},
    {"disable_warp_group_reg_alloc", t_no_set_max_nreg, "T.disable_warp_group_reg_alloc", NULL},
    {"dtype", t_dtype, NULL, NULL},
    {"get_block_binding", t_block_binding, NULL, NULL},
    {"get_block_bindings", t_block_binding, "all", NULL},
    {"atomic_addx2", t_atomic_addx, (void *)2, NULL},
    {"atomic_addx4", t_atomic_addx, (void *)4, NULL},
    {"reinterpret", t_reinterpret, NULL, NULL},
    {"im2col", t_im2col, NULL, NULL},
    {"Persistent", t_persistent, NULL, NULL},
    {"c2d_im2col", t_im2col, NULL, NULL},
    {"any_of", t_any_all, "any", NULL},
    {"alloc_reducer", t_alloc_reducer, NULL, NULL},
    {"finalize_reducer", t_finalize_reducer, NULL, NULL},
    {"all_of", t_any_all, NULL, NULL},
    {"call_intrin", t_call_intrin, NULL,
     "C, CUDA (`tir.<math function>`, `tl.__ffs`, `tl.__fns`, the register hints)"},
};

const TNames tl_lang_names = {lang, (int)(sizeof lang / sizeof *lang)};
