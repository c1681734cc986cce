/* tileops_thread.c - the thread level of the T namespace: code that names the thread it
 * runs in. The thread indices are the kernel's Vars (STMT_KERNEL.thread, made on first
 * use); pass_mark_varying works out what they make differ between threads, and each
 * target runs such code per thread (CUDA: in each thread; C: a loop over the block's
 * threads around each statement that needs it, emit_c.c).
 *
 *   T.get_thread_binding(dim=0)   threadIdx.x / y / z
 *   T.get_thread_bindings()       all three
 *   T.thread_binding(start, extent, thread="threadIdx.x")
 *                                 start + the index along the named dimension (TVM's
 *                                 iterator, used as a value as TileLang's examples do)
 *   T.launch_thread(thread, extent)   the same, start 0
 *   T.get_lane_idx(warp_size=32)  the linear thread index (x fastest) % warp_size
 *   T.get_warp_idx(warp_size=32), T.get_warp_idx_sync(warp_size=32)
 *                                 the linear thread index / warp_size
 *   T.get_warp_group_idx(warp_size=32, warps_per_group=4)
 *                                 the linear thread index / (warp_size * warps_per_group)
 *
 *   T.shfl_xor/down/up(value, delta, width=32, mask=0xFFFFFFFF), T.shfl_sync(value,
 *   src_lane, ...)                the value lane ^ delta / + delta / - delta / src_lane of
 *                                 the warp holds (CUDA's __shfl_*_sync: the argument's
 *                                 low 5 bits; its own past the warp); width a power of
 *                                 two: within segments of width lanes, as CUDA's width
 *                                 (a shfl_sync of the whole warp and a select, shfl_part)
 *   T.tvm_warp_shuffle(mask, value, src_lane, width, warp_size), T.tvm_warp_shuffle_up /
 *   _down(mask, value, offset, width, warp_size)
 *                                 TVM's spellings: T.shfl_sync / up / down
 *   T.warp_reduce_sum/max/min/bitand/bitor(value)
 *                                 the reduction over the warp, in every lane: lets of a
 *                                 shfl_xor butterfly (offsets 16 .. 1)
 *   T.ballot(predicate), T.ballot_sync(predicate, mask=0xFFFFFFFF)
 *                                 uint64: bit i set where lane i's predicate is
 *   T.activemask()                uint64: the lanes that exist (every lane runs
 *                                 thread-level code that reaches it): a ballot of true;
 *                                 T.tvm_warp_activemask(): the same as uint32
 *   T.any_sync / all_sync(predicate, mask=)  int32 1 or 0
 *   T.match_any_sync(value, mask=)  uint32: the lanes holding this lane's value (bit for
 *                                 bit; 32- and 64-bit values, narrower ones widened)
 *   T.match_all_sync(value, mask=)  uint32: the lanes that exist (0xFFFFFFFF in a whole
 *                                 warp) when every lane holds the same value, else 0
 *   T.shuffle_elect(thread_extent)
 *                                 bool: one thread per group of thread_extent threads
 *                                 (0: of the block): the lowest lane of the group's
 *                                 first warp (elect_one && warp % ceil(extent / 32) == 0)
 *   T.syncthreads_and / or / count(predicate)
 *                                 a barrier of the block, then int32: whether all / any
 *                                 of its threads' predicates are set, how many are
 *   Predicates are integers or bools (a float is an error, as in TileLang). Every mask
 *   must be 0xFFFFFFFF (or T.activemask()): every lane runs the call.
 *
 *   T.sync_warp(mask=None)        a block barrier (stronger than the warp's, and like
 *                                 T.sync_threads every thread must reach it)
 *
 * Shuffles and votes read other threads' values (intrinsic_reads_threads): every lane of
 * the warp (every thread of the block, for the block votes) must reach them, so under a
 * thread-dependent condition they are an error (pass_mark_varying).
 *
 * Errors name the T function and point at the call. */
#include "frontend/eval.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

static void need_kernel_of(Interp *in, Loc loc, const char *fname) {
    if (!in->builder || !in->in_kernel || !in->kernel)
        ctx_fail(in->ctx, loc, "%s is only allowed inside a 'with T.Kernel(...)' block", fname);
}

/* The thread index along d, made on first use. */
static Expr *thread_index(Interp *in, int d, Loc loc) {
    static const char *const names[] = {"tx", "ty", "tz"};
    Stmt *k = in->kernel;
    if (!k->u.kernel.thread[d]) k->u.kernel.thread[d] = ir_var(in->ctx, names[d], DT_INT32);
    return ir_varref(in->ctx, k->u.kernel.thread[d], loc);
}

/* tx + X * (ty + Y * tz), leaving out the dimensions of one thread. */
static Expr *linear_index(Interp *in, Loc loc) {
    const int *n = in->kernel->u.kernel.threads;
    Expr *e = NULL;
    for (int d = 2; d >= 0; d--) {
        if (n[d] <= 1 && (d || e)) continue;
        Expr *t = thread_index(in, d, loc);
        e = e ? ir_bin(in->ctx, OP_ADD, t,
                       ir_bin(in->ctx, OP_MUL, ir_int(in->ctx, n[d], DT_INT32, loc), e, loc), loc)
              : t;
    }
    return e;
}

static Value *t_thread_binding(Interp *in, CallArgs *a, void *d) {
    bool all = d != NULL;
    const char *fname = all ? "T.get_thread_bindings" : "T.get_thread_binding";
    Value *av[1] = {NULL};
    args_bind(in, a, fname, all ? "" : "dim=", av, all ? 0 : 1);
    need_kernel_of(in, a->loc, fname);
    if (all) {
        Value *t = val_new(in, V_TUPLE);
        for (int k = 0; k < 3; k++)
            VEC_PUSH(ARENA, t->u.items, val_expr(in, thread_index(in, k, a->loc)));
        return t;
    }
    int64_t dim = av[0] ? val_to_int(in, av[0], a->loc, "dim") : 0;
    if (dim < 0 || dim > 2)
        ctx_fail(in->ctx, a->loc, "%s: dim must be 0, 1 or 2, got %lld", fname, (long long)dim);
    return val_expr(in, thread_index(in, (int)dim, a->loc));
}

/* T.thread_binding(start, extent, thread="threadIdx.x") as TileLang's examples use it, a
 * value: start + the thread index along x, y or z; extent must be that dimension's
 * thread count. */
static Value *thread_of_tag(Interp *in, CallArgs *a, const char *fname, Value *tagv, Value *startv,
                            Value *extentv);

static Value *t_thread_binding_tvm(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[3] = {NULL, NULL, NULL};
    args_bind(in, a, "T.thread_binding", "start,extent,thread", av, 3);
    return thread_of_tag(in, a, "T.thread_binding", av[2], av[0], av[1]);
}

/* T.launch_thread(thread, extent) (TVM's, in TileLang's AMD examples): the index along
 * the named dimension, as T.thread_binding(0, extent, thread). */
static Value *t_launch_thread(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2] = {NULL, NULL};
    args_bind(in, a, "T.launch_thread", "thread,extent", av, 2);
    return thread_of_tag(in, a, "T.launch_thread", av[0], NULL, av[1]);
}

static Value *thread_of_tag(Interp *in, CallArgs *a, const char *fname, Value *tagv, Value *startv,
                            Value *extentv) {
    need_kernel_of(in, a->loc, fname);
    if (tagv->kind != V_STR) ctx_fail(in->ctx, a->loc, "%s: thread must be a string", fname);
    const char *tag = tagv->u.s;
    int dim = !strcmp(tag, "threadIdx.x")   ? 0
              : !strcmp(tag, "threadIdx.y") ? 1
              : !strcmp(tag, "threadIdx.z") ? 2
                                            : -1;
    if (dim < 0)
        ctx_fail(in->ctx, a->loc,
                 "%s: thread must be \"threadIdx.x\", \"threadIdx.y\" or "
                 "\"threadIdx.z\", got \"%s\"",
                 fname, tag);
    int64_t start = startv ? val_to_int(in, startv, a->loc, "start") : 0;
    int64_t extent = val_to_int(in, extentv, a->loc, "extent");
    int have = in->kernel->u.kernel.threads[dim];
    if (extent != have)
        ctx_fail(in->ctx, a->loc, "%s: extent %lld, but the kernel has %d threads along %s", fname,
                 (long long)extent, have, tag + 10);
    Expr *t = thread_index(in, dim, a->loc);
    return val_expr(in, start ? ir_bin(in->ctx, OP_ADD, ir_int(in->ctx, start, DT_INT32, a->loc), t,
                                       a->loc)
                              : t);
}

/* An optional positive size argument (None: dflt). */
static int64_t size_arg(Interp *in, Value *v, int64_t dflt, Loc loc, const char *what) {
    if (!v || v->kind == V_NONE) return dflt;
    int64_t n = val_to_int(in, v, loc, what);
    if (n <= 0) ctx_fail(in->ctx, loc, "%s must be positive, got %lld", what, (long long)n);
    return n;
}

typedef enum Which { LANE, WARP, WARP_GROUP } Which;

typedef struct WarpIndex {
    Which which;
    const char *fname;
} WarpIndex;

static const WarpIndex lane_idx = {LANE, "T.get_lane_idx"}, warp_idx = {WARP, "T.get_warp_idx"},
                       warp_idx_sync = {WARP, "T.get_warp_idx_sync"},
                       warp_group_idx = {WARP_GROUP, "T.get_warp_group_idx"};

static Value *t_warp_index(Interp *in, CallArgs *a, void *d) {
    const WarpIndex *w = d;
    bool group = w->which == WARP_GROUP;
    Value *av[2] = {NULL, NULL};
    args_bind(in, a, w->fname, group ? "warp_size=,warps_per_group=" : "warp_size=", av,
              group ? 2 : 1);
    need_kernel_of(in, a->loc, w->fname);
    int64_t size = size_arg(in, av[0], 32, a->loc, "warp_size");
    if (group) size *= size_arg(in, av[1], 4, a->loc, "warps_per_group");
    Ctx *c = in->ctx;
    Expr *n = ir_int(c, size, DT_INT32, a->loc), *t = linear_index(in, a->loc);
    return val_expr(in, ir_bin(c, w->which == LANE ? OP_FLOORMOD : OP_FLOORDIV, t, n, a->loc));
}

/* ---- warp level ------------------------------------------------------------------- */
/* Whether e is T.activemask() (or TVM's, a uint32 of it): every lane, in thread-level
 * code that every lane reaches. */
static bool is_activemask(const Expr *e) {
    while (e->kind == EXPR_CAST) e = e->u.cast.value;
    if (e->kind == EXPR_VAR && e->u.var->let_value) e = e->u.var->let_value;
    return e->kind == EXPR_CALL && e->u.call.fn == FN_BALLOT &&
           e->u.call.args[0]->kind == EXPR_INT && e->u.call.args[0]->u.i;
}

/* The CUDA warp functions' mask: every lane (every lane of the warp reaches them, and a
 * lane outside the mask may not call them). */
static void whole_warp(Interp *in, Value *mask, Loc loc, const char *fname) {
    int64_t m;
    if (!mask || mask->kind == V_NONE) return;
    if (val_is_const_int(mask, &m) ? (m & 0xffffffffLL) == 0xffffffffLL
                                   : mask->kind == V_EXPR && is_activemask(mask->u.expr))
        return;
    ctx_fail(in->ctx, loc, "%s: only mask=0xFFFFFFFF (every lane) is supported", fname);
}

/* A shuffle's width: a power of two up to the warp's 32 lanes. */
static int shfl_width(Interp *in, Value *v, Loc loc, const char *fname) {
    int64_t w = size_arg(in, v, 32, loc, "width");
    if (w > 32 || (w & (w - 1)))
        ctx_fail(in->ctx, loc, "%s: width must be a power of two from 1 to 32, got %lld", fname,
                 (long long)w);
    return (int)w;
}

/* A let of value, named name (each step of a warp reduction is a value of its own). */
static Var *let_var(Interp *in, const char *name, Expr *value, Loc loc) {
    Var *var = ir_var(in->ctx, name, value->dtype);
    Stmt *s = ir_stmt(in->ctx, STMT_LET, loc);
    s->u.let.var = var, s->u.let.value = value;
    emit_stmt(in, s);
    return var;
}

static Expr *let_of(Interp *in, Expr *value, Loc loc) {
    return ir_varref(in->ctx, let_var(in, "tl_red", value, loc), loc);
}

/* A call that reads other threads, as the value of a let of its own: every lane runs it
 * where the statement stands, whatever expression reads it (a T.if_then_else branch, the
 * right side of `and`, a load's index that the bounds check repeats). It makes its
 * kernel thread-level code, as a thread index does. */
static Var *cross_let(Interp *in, Intrinsic fn, Expr *a, Expr *b, Loc loc) {
    thread_index(in, 0, loc);
    return let_var(in, "tl_warp", ir_call(in->ctx, fn, a, b, loc), loc);
}

static Expr *cross_call(Interp *in, Intrinsic fn, Expr *a, Expr *b, Loc loc) {
    return ir_varref(in->ctx, cross_let(in, fn, a, b, loc), loc);
}

static Expr *shfl(Interp *in, Intrinsic fn, Expr *value, Expr *arg, Loc loc) {
    return cross_call(in, fn, value, ir_cast(in->ctx, DT_INT32, arg, loc), loc);
}

/* A shuffle within segments of w < 32 lanes, as PTX's shfl.sync with CUDA's width:
 * lane j of the warp (j from the lane, the segment and the argument's low bits), or the
 * caller's own value when j lies past its segment (before it, for shfl_up): a shfl_sync
 * of the whole warp reads j, and a select keeps the own value. */
static Expr *shfl_part(Interp *in, Intrinsic fn, Expr *v, Expr *arg, int w, Loc loc) {
    Ctx *c = in->ctx;
#define I(x) ir_int(c, (x), DT_INT32, loc)
    v = let_of(in, v, loc);
    Expr *lane = let_of(in, ir_bin(c, OP_FLOORMOD, linear_index(in, loc), I(32), loc), loc);
    Expr *first = ir_bin(c, OP_BITAND, lane, I(-w), loc); /* of the segment */
    Expr *b = let_of(in,
                     ir_bin(c, OP_BITAND, ir_cast(c, DT_INT32, arg, loc),
                            I(fn == FN_SHFL_IDX ? w - 1 : 31), loc),
                     loc);
    Expr *j, *ok = NULL;
    if (fn == FN_SHFL_IDX) {
        j = ir_bin(c, OP_BITOR, first, b, loc);
    } else if (fn == FN_SHFL_UP) {
        j = ir_bin(c, OP_SUB, lane, b, loc);
        ok = ir_bin(c, OP_GE, j, first, loc);
    } else {
        j = ir_bin(c, fn == FN_SHFL_XOR ? OP_BITXOR : OP_ADD, lane, b, loc);
        ok = ir_bin(c, OP_LE, j, ir_bin(c, OP_ADD, first, I(w - 1), loc), loc);
    }
#undef I
    Expr *r = shfl(in, FN_SHFL_IDX, v, j, loc);
    return ok ? ir_select(c, ok, r, v, loc) : r;
}

static Value *shfl_value(Interp *in, Intrinsic fn, Value *value, Value *arg, int w, Loc loc,
                         const char *fname) {
    Expr *v = val_to_expr(in, value, loc, "value");
    Expr *e = val_to_expr(in, arg, loc, fn == FN_SHFL_IDX ? "src_lane" : "delta");
    if (!dtype_is_int(e->dtype))
        ctx_fail(in->ctx, loc, "%s: the lane argument must be an integer", fname);
    return val_expr(in, w == 32 ? shfl(in, fn, v, e, loc) : shfl_part(in, fn, v, e, w, loc));
}

/* T.shfl_xor/down/up(value, delta, width=32, mask=0xFFFFFFFF), T.shfl_sync(value,
 * src_lane, ...): the value another lane of the warp holds. */
static Value *t_shfl(Interp *in, CallArgs *a, void *d) {
    Intrinsic fn = (Intrinsic)(intptr_t)d;
    const char *fname = arena_printf(ARENA, "T.%s", intrinsic_name(fn));
    Value *av[4] = {NULL};
    args_bind(in, a, fname,
              fn == FN_SHFL_IDX ? "value,src_lane,width=,mask=" : "value,delta,width=,mask=", av,
              4);
    need_kernel_of(in, a->loc, fname);
    int w = shfl_width(in, av[2], a->loc, fname);
    whole_warp(in, av[3], a->loc, fname);
    return shfl_value(in, fn, av[0], av[1], w, a->loc, fname);
}

/* TVM's T.tvm_warp_shuffle(mask, value, src_lane, width, warp_size) and _up / _down
 * (mask, value, offset, width, warp_size): CUDA's __shfl_sync / _up / _down with width;
 * warp_size only tells other backends whether width is legal. */
static Value *t_tvm_shfl(Interp *in, CallArgs *a, void *d) {
    Intrinsic fn = (Intrinsic)(intptr_t)d;
    const char *fname = fn == FN_SHFL_IDX  ? "T.tvm_warp_shuffle"
                        : fn == FN_SHFL_UP ? "T.tvm_warp_shuffle_up"
                                           : "T.tvm_warp_shuffle_down";
    Value *av[5] = {NULL};
    args_bind(in, a, fname, "mask,value,lane,width,warp_size", av, 5);
    need_kernel_of(in, a->loc, fname);
    whole_warp(in, av[0], a->loc, fname);
    int w = shfl_width(in, av[3], a->loc, fname);
    size_arg(in, av[4], 32, a->loc, "warp_size");
    return shfl_value(in, fn, av[1], av[2], w, a->loc, fname);
}

/* ---- warp and block votes ------------------------------------------------------------ */
/* A vote's predicate: an integer or bool value (TileLang rejects floats), as a bool. */
static Expr *predicate(Interp *in, Value *v, Loc loc, const char *fname) {
    Ctx *c = in->ctx;
    Expr *p = val_to_expr(in, v, loc, "predicate");
    if (p->dtype == DT_BOOL) return p;
    if (!dtype_is_int(p->dtype))
        ctx_fail(c, loc, "%s needs an integer or bool predicate, got %s", fname,
                 dtype_name(p->dtype));
    return ir_bin(c, OP_NE, p, ir_cast(c, p->dtype, ir_int(c, 0, DT_INT32, loc), loc), loc);
}

/* A value to match, as the unsigned integer of its bits (CUDA matches 32- and 64-bit
 * values bit for bit; narrower ones widen to 32 bits). */
static Expr *match_bits(Interp *in, Value *v, Loc loc) {
    Ctx *c = in->ctx;
    Expr *e = val_to_expr(in, v, loc, "value");
    int bits = dtype_bits(e->dtype);
    if (e->dtype == DT_BOOL) return ir_cast(c, DT_UINT32, e, loc);
    DType u = bits == 64 ? DT_UINT64 : bits == 32 ? DT_UINT32 : bits == 16 ? DT_UINT16 : DT_UINT8;
    e = ir_bitcast(c, u, e, loc);
    return bits == 64 ? e : ir_cast(c, DT_UINT32, e, loc);
}

typedef struct Vote {
    Intrinsic fn;
    const char *fname, *spec; /* spec: "predicate" or "value" first, then "mask=" */
} Vote;

static const Vote v_ballot = {FN_BALLOT, "T.ballot", "predicate"},
                  v_ballot_sync = {FN_BALLOT, "T.ballot_sync", "predicate,mask="},
                  v_any = {FN_ANY_SYNC, "T.any_sync", "predicate,mask="},
                  v_all = {FN_ALL_SYNC, "T.all_sync", "predicate,mask="},
                  v_match_any = {FN_MATCH_ANY, "T.match_any_sync", "value,mask="},
                  v_match_all = {FN_MATCH_ALL, "T.match_all_sync", "value,mask="},
                  v_and = {FN_SYNCTHREADS_AND, "T.syncthreads_and", "predicate"},
                  v_or = {FN_SYNCTHREADS_OR, "T.syncthreads_or", "predicate"},
                  v_count = {FN_SYNCTHREADS_COUNT, "T.syncthreads_count", "predicate"};

/* T.ballot(predicate), T.ballot_sync / any_sync / all_sync(predicate, mask=0xFFFFFFFF),
 * T.match_any_sync / match_all_sync(value, mask=), T.syncthreads_and / or /
 * count(predicate): a vote over the warp's lanes or the block's threads. */
static Value *t_vote(Interp *in, CallArgs *a, void *d) {
    const Vote *v = d;
    Value *av[2] = {NULL, NULL};
    args_bind(in, a, v->fname, v->spec, av, 2);
    need_kernel_of(in, a->loc, v->fname);
    whole_warp(in, av[1], a->loc, v->fname);
    bool match = v->fn == FN_MATCH_ANY || v->fn == FN_MATCH_ALL;
    Expr *arg = match ? match_bits(in, av[0], a->loc) : predicate(in, av[0], a->loc, v->fname);
    return val_expr(in, cross_call(in, v->fn, arg, NULL, a->loc));
}

/* T.activemask() (uint64), TVM's T.tvm_warp_activemask() (uint32): the lanes of the warp
 * that run the call, which in tilec's thread-level code is every lane that exists: a
 * ballot of true. */
static Value *t_activemask(Interp *in, CallArgs *a, void *d) {
    const char *fname = d ? "T.tvm_warp_activemask" : "T.activemask";
    args_bind(in, a, fname, "", NULL, 0);
    need_kernel_of(in, a->loc, fname);
    Var *v = cross_let(in, FN_BALLOT, ir_int(in->ctx, 1, DT_BOOL, a->loc), NULL, a->loc);
    v->let_value = ir_call(in->ctx, FN_BALLOT, ir_int(in->ctx, 1, DT_BOOL, a->loc), NULL, a->loc);
    Expr *m = ir_varref(in->ctx, v, a->loc);
    return val_expr(in, d ? ir_cast(in->ctx, DT_UINT32, m, a->loc) : m);
}

/* T.shuffle_elect(thread_extent): true in one thread of each group of thread_extent
 * threads (0: of the block), as TileLang's tl_shuffle_elect: the warp's elected lane
 * (the lowest) in the first warp of each group of ceil(thread_extent / 32) warps. */
static Value *t_shuffle_elect(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1] = {NULL};
    args_bind(in, a, "T.shuffle_elect", "thread_extent", av, 1);
    need_kernel_of(in, a->loc, "T.shuffle_elect");
    int64_t n = val_to_int(in, av[0], a->loc, "thread_extent");
    if (n < 0)
        ctx_fail(in->ctx, a->loc, "T.shuffle_elect: thread_extent must not be negative, got %lld",
                 (long long)n);
    Ctx *c = in->ctx;
    Expr *e = cross_call(in, FN_ELECT_ONE, ir_int(c, 1, DT_BOOL, a->loc), NULL, a->loc);
    if (n == 32) return val_expr(in, e);
    Expr *warp = ir_bin(c, OP_FLOORDIV, linear_index(in, a->loc), ir_int(c, 32, DT_INT32, a->loc),
                        a->loc);
    if (n) warp = ir_bin(c, OP_FLOORMOD, warp, ir_int(c, (n + 31) / 32, DT_INT32, a->loc), a->loc);
    /* the vote first: && evaluates its right side only where the left holds */
    return val_expr(in,
                    ir_bin(c, OP_AND, e,
                           ir_bin(c, OP_EQ, warp, ir_int(c, 0, DT_INT32, a->loc), a->loc), a->loc));
}

/* T.warp_reduce_sum/max/min/bitand/bitor(value): the reduction over the warp's 32 lanes,
 * in every lane (a butterfly of shfl_xor, offsets 16 down to 1). */
static Value *t_warp_reduce(Interp *in, CallArgs *a, void *d) {
    static const char *const names[] = {"sum", "max", "min", "bitand", "bitor"};
    static const BinOp ops[] = {OP_ADD, OP_MAX, OP_MIN, OP_BITAND, OP_BITOR};
    int k = (int)(intptr_t)d;
    const char *fname = arena_printf(ARENA, "T.warp_reduce_%s", names[k]);
    Value *av[1] = {NULL};
    args_bind(in, a, fname, "value", av, 1);
    need_kernel_of(in, a->loc, fname);
    Expr *r = val_to_expr(in, av[0], a->loc, "value");
    if (ops[k] >= OP_BITAND && !dtype_is_int(r->dtype))
        ctx_fail(in->ctx, a->loc, "%s needs an integer value, got %s", fname, dtype_name(r->dtype));
    r = let_of(in, r, a->loc);
    for (int off = 16; off; off /= 2) {
        Expr *other = shfl(in, FN_SHFL_XOR, r, ir_int(in->ctx, off, DT_INT32, a->loc), a->loc);
        r = let_of(in, ir_bin(in->ctx, ops[k], r, other, a->loc), a->loc);
    }
    return val_expr(in, r);
}

/* T.sync_warp(mask=None): a block barrier (T.sync_threads), which orders what the warp's
 * lanes did and more; like it, every thread must reach it. */
static Value *t_sync_warp(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1] = {NULL};
    args_bind(in, a, "T.sync_warp", "mask=", av, 1);
    need_kernel_of(in, a->loc, "T.sync_warp");
    whole_warp(in, av[0], a->loc, "T.sync_warp");
    emit_stmt(in, ir_stmt(in->ctx, STMT_SYNC, a->loc));
    return val_none(in);
}

/* ---- TVM's cross-thread reduction ---------------------------------------------------
 * with T.attr(T.comm_reducer(lambda x, y: x + y, [identity]), "reduce_scope", ...):
 *     T.evaluate(T.tvm_thread_allreduce(T.uint32(1), value, True, dst[i], *threads,
 *                                       dtype="handle"))
 * as TileLang's gemv examples write it: dst[i] of every thread becomes the reduction of
 * value over the threads that differ only in the named thread indices. Lowered to a
 * shared buffer of every thread's value, a barrier, and each thread's loop over the
 * values of its group (in thread order). */
static Value *opaque(Interp *in, const char *what) {
    Value *v = val_new(in, V_OPAQUE);
    v->u.s = what;
    return v;
}

/* T.attr(node, key, value): an annotation; `with` runs its body. */
static Value *t_attr(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[3];
    args_bind(in, a, "T.attr", "node,key,value", av, 3);
    return opaque(in, "T.attr");
}

static Value *t_comm_reducer(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.comm_reducer", "combiner,identity", av, 2);
    Value *id = av[1];
    if ((id->kind == V_LIST || id->kind == V_TUPLE) && id->u.items.len == 1)
        id = id->u.items.data[0];
    else if (id->kind == V_LIST || id->kind == V_TUPLE)
        ctx_fail(in->ctx, a->loc, "T.comm_reducer: one identity value is supported");
    Value *t = val_new(in, V_TUPLE);
    VEC_PUSH(ARENA, t->u.items, av[0]);
    VEC_PUSH(ARENA, t->u.items, id);
    in->comm_reducer = t;
    return opaque(in, "T.comm_reducer");
}

/* T.evaluate(x): x is evaluated for its effect (the call already had it). */
static Value *t_evaluate(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.evaluate", "value", av, 1);
    return val_none(in);
}

static Expr *combine(Interp *in, Expr *x, Expr *y, Loc loc) {
    CallArgs ca = {.loc = loc};
    VEC_PUSH(ARENA, ca.pos, val_expr(in, x));
    VEC_PUSH(ARENA, ca.pos, val_expr(in, y));
    return val_to_expr(in, call_value(in, in->comm_reducer->u.items.data[0], &ca), loc,
                       "the T.comm_reducer combiner's result");
}

static Stmt *store(Interp *in, Buffer *b, Expr **idx, Expr *value, Loc loc) {
    Stmt *s = ir_stmt(in->ctx, STMT_STORE, loc);
    s->u.store.buf = b, s->u.store.idx = idx;
    s->u.store.value = ir_cast(in->ctx, b->dtype, value, loc);
    return s;
}

static Value *t_thread_allreduce(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.tvm_thread_allreduce";
    need_kernel_of(in, a->loc, fname);
    if (!in->comm_reducer)
        ctx_fail(in->ctx, a->loc, "%s needs a T.comm_reducer (in the enclosing T.attr)", fname);
    if (a->pos.len < 5)
        ctx_fail(in->ctx, a->loc,
                 "%s(count, value, cond, dst, *threads) takes at least 5 "
                 "arguments",
                 fname);
    if (val_to_int(in, a->pos.data[0], a->loc, "count") != 1)
        ctx_fail(in->ctx, a->loc, "%s: one value per call is supported", fname);
    Ctx *c = in->ctx;
    Loc loc = a->loc;
    Expr *value = val_to_expr(in, a->pos.data[1], loc, "value");
    Expr *dst = val_to_expr(in, a->pos.data[3], loc, "dst");
    if (dst->kind != EXPR_LOAD)
        ctx_fail(c, loc, "%s: dst must be a buffer element (C_reduced[0])", fname);
    const Stmt *k = in->kernel;
    const int *n = k->u.kernel.threads;
    bool reduced[3] = {false, false, false};
    for (int i = 4; i < a->pos.len; i++) {
        Expr *t = val_to_expr(in, a->pos.data[i], loc, "thread");
        int dim = 0;
        while (dim < 3 && !(t->kind == EXPR_VAR && t->u.var == k->u.kernel.thread[dim])) dim++;
        if (dim == 3)
            ctx_fail(c, loc, "%s: argument %d must be a thread index (T.get_thread_binding)", fname,
                     i + 1);
        reduced[dim] = true;
    }
    /* every thread's value, at its linear index */
    Buffer *all = ir_buffer(c, "tl_allreduce", value->dtype, SCOPE_SHARED, 1, loc);
    all->shape[0] = ir_int(c, n[0] * n[1] * n[2], DT_INT32, loc);
    Stmt *alloc = ir_stmt(c, STMT_ALLOC, loc);
    alloc->u.alloc.buf = all;
    emit_stmt(in, alloc);
    Expr **at = NEW_ARRAY(ARENA, Expr *, 1);
    at[0] = linear_index(in, loc);
    emit_stmt(in, store(in, all, at, value, loc));
    emit_stmt(in, ir_stmt(c, STMT_SYNC, loc));
    /* dst = identity, then combined with each value of the group */
    Buffer *db = dst->u.load.buf;
    emit_stmt(in, store(in, db, dst->u.load.idx,
                        val_to_expr(in, in->comm_reducer->u.items.data[1], loc, "identity"), loc));
    Var *vars[3] = {NULL, NULL, NULL};
    Expr *idx = NULL;
    for (int dim = 2; dim >= 0; dim--) {
        if (n[dim] <= 1 && !reduced[dim]) continue;
        if (reduced[dim]) vars[dim] = ir_var(c, "tl_k", DT_INT32);
        Expr *t = reduced[dim] ? ir_varref(c, vars[dim], loc) : thread_index(in, dim, loc);
        idx = idx ? ir_bin(c, OP_ADD, t,
                           ir_bin(c, OP_MUL, ir_int(c, n[dim], DT_INT32, loc), idx, loc), loc)
                  : t;
    }
    Expr **ai = NEW_ARRAY(ARENA, Expr *, 1);
    ai[0] = idx;
    Stmt *body = store(in, db, dst->u.load.idx, combine(in, dst, ir_load(c, all, ai, loc), loc),
                       loc);
    for (int dim = 0; dim < 3; dim++) {
        if (!vars[dim]) continue;
        Stmt *f = ir_stmt(c, STMT_FOR, loc);
        f->u.for_.var = vars[dim], f->u.for_.min = ir_int(c, 0, DT_INT32, loc);
        f->u.for_.extent = ir_int(c, n[dim], DT_INT32, loc);
        f->u.for_.kind = LOOP_SERIAL, f->u.for_.body = body;
        body = f;
    }
    emit_stmt(in, body);
    return val_none(in);
}

static const TName thread_fns[] = {
    {"get_thread_binding", t_thread_binding, NULL, NULL},
    {"get_thread_bindings", t_thread_binding, "all", NULL},
    {"thread_binding", t_thread_binding_tvm, NULL, NULL},
    {"launch_thread", t_launch_thread, NULL, NULL},
    {"get_lane_idx", t_warp_index, &lane_idx, NULL},
    {"get_warp_idx", t_warp_index, &warp_idx, NULL},
    {"get_warp_idx_sync", t_warp_index, &warp_idx_sync, NULL},
    {"get_warp_group_idx", t_warp_index, &warp_group_idx, NULL},
    {"shfl_xor", t_shfl, (void *)FN_SHFL_XOR, NULL},
    {"shfl_down", t_shfl, (void *)FN_SHFL_DOWN, NULL},
    {"shfl_up", t_shfl, (void *)FN_SHFL_UP, NULL},
    {"shfl_sync", t_shfl, (void *)FN_SHFL_IDX, NULL},
    {"warp_reduce_sum", t_warp_reduce, (void *)0, NULL},
    {"warp_reduce_max", t_warp_reduce, (void *)1, NULL},
    {"warp_reduce_min", t_warp_reduce, (void *)2, NULL},
    {"warp_reduce_bitand", t_warp_reduce, (void *)3, NULL},
    {"warp_reduce_bitor", t_warp_reduce, (void *)4, NULL},
    {"sync_warp", t_sync_warp, NULL, NULL},
    {"attr", t_attr, NULL, NULL},
    {"comm_reducer", t_comm_reducer, NULL, NULL},
    {"evaluate", t_evaluate, NULL, NULL},
    {"tvm_thread_allreduce", t_thread_allreduce, NULL, NULL},
    {"ballot", t_vote, &v_ballot, NULL},
    {"ballot_sync", t_vote, &v_ballot_sync, NULL},
    {"activemask", t_activemask, NULL, NULL},
    {"any_sync", t_vote, &v_any, NULL},
    {"all_sync", t_vote, &v_all, NULL},
    {"match_any_sync", t_vote, &v_match_any, NULL},
    {"match_all_sync", t_vote, &v_match_all, NULL},
    {"shuffle_elect", t_shuffle_elect, NULL, NULL},
    {"syncthreads_and", t_vote, &v_and, NULL},
    {"syncthreads_or", t_vote, &v_or, NULL},
    {"syncthreads_count", t_vote, &v_count, NULL},
    {"tvm_warp_activemask", t_activemask, "tvm", NULL},
    {"tvm_warp_shuffle", t_tvm_shfl, (void *)FN_SHFL_IDX, NULL},
    {"tvm_warp_shuffle_up", t_tvm_shfl, (void *)FN_SHFL_UP, NULL},
    {"tvm_warp_shuffle_down", t_tvm_shfl, (void *)FN_SHFL_DOWN, NULL},
};

const TNames tl_thread_names = {thread_fns, (int)(sizeof thread_fns / sizeof *thread_fns)};
