/* tileops_expert.c - the T namespace's Tier 3 (LANGUAGE.md): what Hopper experts use to
 * schedule a kernel by hand. Warp-group regions (`with T.ws(g...)`), mbarriers
 * (T.alloc_barrier, T.create_list_of_mbarrier, T.mbarrier_* / T.barrier_*), TMA copies
 * that complete on a barrier (T.tma_copy), register budgets (T.set_max_nreg, and TileLang's
 * hints T.annotate_producer_reg_dealloc / T.annotate_consumer_reg_alloc), the async
 * proxy fence, and the wait for T.wgmma_gemm (T.wait_wgmma; the gemm is tileops.c's).
 * TileLang's PTX spellings of the same (T.ptx_*_barrier*, T.create_barriers), its
 * per-thread cp.async (T.ptx_cp_async and its groups and barrier arrivals),
 * T.ptx_cp_async_bulk (a bulk copy completing on a barrier),
 * T.tvm_storage_sync and T.tma_store_arrive / wait, and the program's named barriers
 * (T.sync_threads(id, n), T.named_barrier_arrive: STMT_NAMED_BAR) (section below).
 *
 * Semantics (docs/language.md, "Expert primitives"): a region runs in its warp groups
 * only, which see it as a block of their threads; arrive and wait run in every thread
 * that reaches them, expect_tx in the first one; T.tma_copy is issued by the first
 * thread and its bytes count on the barrier. The C target runs regions in program order
 * and ignores the rest (pass_program_order). */
#include "frontend/eval.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

enum { WARP_GROUP = 128, MAX_BARRIERS = 1024 };

static Stmt *mbar_stmt(Interp *in, MbarOp op, Buffer *bar, Expr *idx, Expr *arg, Loc loc) {
    Stmt *s = ir_stmt(in->ctx, STMT_MBAR, loc);
    s->u.mbar.op = op, s->u.mbar.bar = bar, s->u.mbar.idx = idx, s->u.mbar.arg = arg;
    return s;
}

/* A barrier buffer of n entries with its arrival counts, initialized where it is made
 * (by one thread; pass_insert_sync_threads puts a barrier before its first use). */
static Buffer *make_barriers(Interp *in, ValueList counts, Loc loc, const char *fname) {
    if (counts.len < 1 || counts.len > MAX_BARRIERS)
        ctx_fail(in->ctx, loc, "%s: 1 to %d barriers, %d given", fname, MAX_BARRIERS, counts.len);
    Buffer *b = ir_buffer(in->ctx, arena_printf(ARENA, "__tmp%d", in->ctx->next_id), DT_UINT64,
                          SCOPE_BARRIER, 1, loc);
    b->shape[0] = ir_int(in->ctx, counts.len, DT_INT32, loc);
    Stmt *a = ir_stmt(in->ctx, STMT_ALLOC, loc);
    a->u.alloc.buf = b;
    emit_stmt(in, a);
    int64_t *c = NEW_ARRAY(ARENA, int64_t, counts.len);
    bool same = true;
    for (int i = 0; i < counts.len; i++) {
        c[i] = val_to_int(in, counts.data[i], loc, "arrive_count");
        if (c[i] < 1 || c[i] > 1024)
            ctx_fail(in->ctx, loc, "%s: an arrive count must be 1 to 1024, got %lld", fname,
                     (long long)c[i]);
        same &= c[i] == c[0];
    }
    for (int i = 0; i < (same ? 1 : counts.len); i++)
        emit_stmt(in, mbar_stmt(in, MBAR_INIT, b, same ? NULL : ir_int(in->ctx, i, DT_INT32, loc),
                                ir_int(in->ctx, c[i], DT_INT32, loc), loc));
    return b;
}

static ValueList items_of(Interp *in, Value *v) {
    ValueList items = {0};
    if (v->kind == V_TUPLE || v->kind == V_LIST) return v->u.items;
    VEC_PUSH(ARENA, items, v);
    return items;
}

/* T.alloc_barrier(arrive_count): one barrier per count (an int or a list). */
static Value *t_alloc_barrier(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.alloc_barrier", "arrive_count", av, 1);
    need_kernel(in, a->loc, "T.alloc_barrier");
    Value *v = val_new(in, V_BUFFER);
    v->u.buf = make_barriers(in, items_of(in, av[0]), a->loc, "T.alloc_barrier");
    return v;
}

/* T.create_list_of_mbarrier(counts...): the kernel's barrier list, named by index. */
static Value *t_create_list_of_mbarrier(Interp *in, CallArgs *a, void *d) {
    (void)d;
    need_kernel(in, a->loc, "T.create_list_of_mbarrier");
    if (a->kw.len) ctx_fail(in->ctx, a->loc, "T.create_list_of_mbarrier takes no keywords");
    if (in->mbar_list)
        ctx_fail(in->ctx, a->loc, "T.create_list_of_mbarrier: the kernel has a list already");
    ValueList counts = a->pos.len == 1 ? items_of(in, a->pos.data[0]) : a->pos;
    in->mbar_list = make_barriers(in, counts, a->loc, "T.create_list_of_mbarrier");
    in->mbar_list->name = "mbarrier";
    return val_none(in);
}

static Buffer *mbar_list(Interp *in, Loc loc, const char *fname) {
    if (!in->mbar_list)
        ctx_fail(in->ctx, loc,
                 "%s: a barrier number needs T.create_list_of_mbarrier first "
                 "(or pass a T.alloc_barrier barrier)",
                 fname);
    return in->mbar_list;
}

static Value *t_get_mbarrier(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.get_mbarrier", "id", av, 1);
    need_kernel(in, a->loc, "T.get_mbarrier");
    Expr **idx = NEW_ARRAY(ARENA, Expr *, 1);
    idx[0] = val_to_expr(in, av[0], a->loc, "barrier number");
    return val_expr(in, ir_load(in->ctx, mbar_list(in, a->loc, "T.get_mbarrier"), idx, a->loc));
}

/* The barrier an op names: a T.alloc_barrier of one entry, an entry of one (bars[i]), or
 * a number in the kernel's T.create_list_of_mbarrier list. */
static void barrier_ref_of(Interp *in, Value *v, Loc loc, const char *fname, Buffer **bar,
                           Expr **idx) {
    if (v && v->kind == V_BUFFER && v->u.buf->scope == SCOPE_BARRIER) {
        int64_t n = 0;
        ir_is_const_int(v->u.buf->shape[0], &n);
        if (n != 1)
            ctx_fail(in->ctx, loc, "%s: '%s' holds %lld barriers; name one of them (%s[i])", fname,
                     v->u.buf->name, (long long)n, v->u.buf->name);
        *bar = v->u.buf, *idx = ir_int(in->ctx, 0, DT_INT32, loc);
        return;
    }
    if (v && v->kind == V_EXPR && v->u.expr->kind == EXPR_LOAD &&
        v->u.expr->u.load.buf->scope == SCOPE_BARRIER) {
        *bar = v->u.expr->u.load.buf, *idx = v->u.expr->u.load.idx[0];
        return;
    }
    if (v && (v->kind == V_INT || (v->kind == V_EXPR && dtype_is_int(v->u.expr->dtype)))) {
        *bar = mbar_list(in, loc, fname);
        *idx = val_to_expr(in, v, loc, "barrier number");
        return;
    }
    ctx_fail(in->ctx, loc,
             "%s: the barrier must be a T.alloc_barrier barrier, one entry of "
             "one, or a T.create_list_of_mbarrier number; got %s",
             fname, v ? val_describe(in, v) : "nothing");
}

static const char *expr_text(Interp *in, const Expr *e) {
    StrBuf sb = {0};
    ir_print_expr(&sb, e);
    const char *t = arena_strdup(ARENA, sb.buf ? sb.buf : "?");
    sb_free(&sb);
    return t;
}

/* Whether entry idx of a T.create_barriers list has been initialized (as far as the
 * compiler can tell: a constant index, or any after an init with a run-time one). */
static bool mbar_inited(const Interp *in, const Expr *idx) {
    int64_t k = -1;
    if (in->mbar_any_init) return true;
    if (ir_is_const_int(idx, &k))
        return k >= 0 && k < 1024 && (in->mbar_inited[k / 64] >> (k % 64) & 1);
    for (int w = 0; w < 16; w++) /* a run-time index: some entry at least */
        if (in->mbar_inited[w]) return true;
    return false;
}

/* barrier_ref_of, and an error for an entry of a T.create_barriers list used before
 * T.ptx_init_barrier_thread_count gave it its count. */
static void barrier_ref(Interp *in, Value *v, Loc loc, const char *fname, Buffer **bar,
                        Expr **idx) {
    barrier_ref_of(in, v, loc, fname, bar, idx);
    if (*bar == in->mbar_list && in->mbar_need_init && !mbar_inited(in, *idx))
        ctx_fail(in->ctx, loc,
                 "%s: barrier %s is used before T.ptx_init_barrier_thread_count gave it its "
                 "thread count",
                 fname, expr_text(in, *idx));
}

/* T.mbarrier_wait_parity / T.barrier_wait(barrier, parity): every thread that runs it. */
static Value *t_mbar_wait(Interp *in, CallArgs *a, void *d) {
    const char *fname = d;
    Value *av[2];
    args_bind(in, a, fname, "mbarrier, parity", av, 2);
    need_kernel(in, a->loc, fname);
    Buffer *bar;
    Expr *idx;
    barrier_ref(in, av[0], a->loc, fname, &bar, &idx);
    Expr *parity = val_to_expr(in, av[1], a->loc, "parity");
    if (!dtype_is_int(parity->dtype))
        ctx_fail(in->ctx, a->loc, "%s: parity must be an integer", fname);
    emit_stmt(in, mbar_stmt(in, MBAR_WAIT, bar, idx, ir_cast(in->ctx, DT_INT32, parity, a->loc),
                            a->loc));
    return val_none(in);
}

/* The block rank cta_id of an arrival on a cluster barrier's twin: an int, checked
 * against the cluster's size when it is a constant. */
static Expr *peer_rank(Interp *in, const Buffer *bar, Value *v, Loc loc, const char *fname) {
    if (!bar->cluster_barrier)
        ctx_fail(in->ctx, loc,
                 "%s: cta_id names a block of the cluster, whose barriers are "
                 "T.alloc_cluster_barrier's; '%s' is a T.alloc_barrier barrier",
                 fname, bar->name);
    Expr *cta = val_to_expr(in, v, loc, "cta_id");
    int64_t r, n = ir_cluster_size(in->kernel);
    if (!dtype_is_int(cta->dtype)) ctx_fail(in->ctx, loc, "%s: cta_id must be an integer", fname);
    if (ir_is_const_int(cta, &r) && (r < 0 || r >= n))
        ctx_fail(in->ctx, loc, "%s: cta_id %lld is not a block of the cluster (of %lld)", fname,
                 (long long)r, (long long)n);
    return ir_cast(in->ctx, DT_INT32, cta, loc);
}

/* T.mbarrier_arrive / T.barrier_arrive(barrier, cta_id=None): an arrival per thread that
 * runs it, on this block's barrier or (cta_id) its twin in that block of the cluster. */
static Value *t_mbar_arrive(Interp *in, CallArgs *a, void *d) {
    const char *fname = d;
    Value *av[2];
    args_bind(in, a, fname, "mbarrier, cta_id=", av, 2);
    need_kernel(in, a->loc, fname);
    Buffer *bar;
    Expr *idx;
    barrier_ref(in, av[0], a->loc, fname, &bar, &idx);
    Stmt *s = mbar_stmt(in, MBAR_ARRIVE, bar, idx, NULL, a->loc);
    if (av[1] && av[1]->kind != V_NONE) s->u.mbar.cta = peer_rank(in, bar, av[1], a->loc, fname);
    emit_stmt(in, s);
    return val_none(in);
}

/* T.mbarrier_expect_tx / T.mbarrier_arrive_expect_tx(barrier, tx): the first thread. */
static Value *t_mbar_expect(Interp *in, CallArgs *a, void *d) {
    bool arrive = d != NULL;
    const char *fname = arrive ? "T.mbarrier_arrive_expect_tx" : "T.mbarrier_expect_tx";
    Value *av[2];
    args_bind(in, a, fname, "mbarrier, tx", av, 2);
    need_kernel(in, a->loc, fname);
    Buffer *bar;
    Expr *idx;
    barrier_ref(in, av[0], a->loc, fname, &bar, &idx);
    Expr *tx = val_to_expr(in, av[1], a->loc, "tx");
    if (!dtype_is_int(tx->dtype)) ctx_fail(in->ctx, a->loc, "%s: tx must be a byte count", fname);
    Stmt *s = mbar_stmt(in, arrive ? MBAR_EXPECT_TX : MBAR_EXPECT, bar, idx,
                        ir_cast(in->ctx, DT_INT32, tx, a->loc), a->loc);
    s->u.mbar.once = true;
    emit_stmt(in, s);
    return val_none(in);
}

/* T.tma_copy(src, dst, barrier=): a global -> shared tile through the TMA engine, its
 * bytes expected on the barrier (the program arrives and waits). */
static Value *t_tma_copy(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[4];
    args_bind(in, a, "T.tma_copy", "src, dst, barrier=, eviction_policy=", av, 4);
    need_kernel(in, a->loc, "T.tma_copy");
    Stmt *s = ir_stmt(in->ctx, STMT_COPY, a->loc);
    Region *src = &s->u.copy.src, *dst = &s->u.copy.dst;
    if (av[0]->kind == V_EXPR) { /* a head address: the extents are the tile's */
        *dst = value_to_region(in, av[1], NULL, a->loc, "T.tma_copy destination");
        *src = value_to_region(in, av[0], dst, a->loc, "T.tma_copy source");
    } else {
        *src = value_to_region(in, av[0], NULL, a->loc, "T.tma_copy source");
        *dst = value_to_region(in, av[1], src, a->loc, "T.tma_copy destination");
    }
    if (src->buf->scope != SCOPE_GLOBAL || dst->buf->scope != SCOPE_SHARED)
        ctx_fail(in->ctx, a->loc,
                 "T.tma_copy copies a global tensor into a shared buffer "
                 "(got %s -> %s)",
                 scope_name(src->buf->scope), scope_name(dst->buf->scope));
    if (!av[2]) ctx_fail(in->ctx, a->loc, "T.tma_copy needs barrier=, where its bytes complete");
    barrier_ref(in, av[2], a->loc, "T.tma_copy", &s->u.copy.bar, &s->u.copy.bar_idx);
    s->u.copy.manual = true;
    emit_stmt(in, s);
    return val_none(in);
}

/* T.ws(g...): warp groups g (consecutive) of the block, as `with T.ws(...)`. */
static Value *t_ws(Interp *in, CallArgs *a, void *d) {
    (void)d;
    need_kernel(in, a->loc, "T.ws");
    if (a->kw.len || a->pos.len < 1) ctx_fail(in->ctx, a->loc, "T.ws takes warp group numbers");
    int64_t lo = 0, prev = 0;
    for (int i = 0; i < a->pos.len; i++) {
        int64_t g = val_to_int(in, a->pos.data[i], a->loc, "warp group");
        if (i == 0) lo = g;
        else if (g != prev + 1)
            ctx_fail(in->ctx, a->loc, "T.ws: warp groups must be consecutive and increasing");
        prev = g;
    }
    int64_t hi = (prev + 1) * WARP_GROUP;
    if (lo < 0 || hi > in->kernel_threads)
        ctx_fail(in->ctx, a->loc,
                 "T.ws: warp group %lld is outside the block (%d threads: "
                 "warp groups 0 to %d)",
                 (long long)(lo < 0 ? lo : prev), in->kernel_threads,
                 in->kernel_threads / WARP_GROUP - 1);
    if (in->named_bars)
        ctx_fail(in->ctx, a->loc,
                 "T.ws in a kernel with named barriers of its own (T.sync_threads(id, n), "
                 "T.named_barrier_arrive): the regions' barriers are named barriers too");
    in->kernel_ws = true;
    Value *v = val_new(in, V_WS);
    v->u.ws.lo = (int)(lo * WARP_GROUP), v->u.ws.count = (int)(hi - lo * WARP_GROUP);
    return v;
}

/* T.set_max_nreg(n, is_inc), T.inc_max_nreg(n), T.dec_max_nreg(n): the register budget of
 * the warp group from here on (sm_90a setmaxnreg; elsewhere nothing). */
static Value *t_set_max_nreg(Interp *in, CallArgs *a, void *d) {
    int mode = (int)(intptr_t)d; /* 0: set, 1: inc, 2: dec */
    static const char *const names[] = {"T.set_max_nreg", "T.inc_max_nreg", "T.dec_max_nreg"};
    Value *av[2];
    args_bind(in, a, names[mode], mode ? "reg_count" : "reg_count, is_inc", av, mode ? 1 : 2);
    need_kernel(in, a->loc, names[mode]);
    int64_t n = val_to_int(in, av[0], a->loc, "reg_count");
    if (n < 24 || n > 256 || n % 8)
        ctx_fail(in->ctx, a->loc, "%s: reg_count must be a multiple of 8 from 24 to 256, got %lld",
                 names[mode], (long long)n);
    Stmt *s = ir_stmt(in->ctx, STMT_SETMAXNREG, a->loc);
    s->u.setmaxnreg.regs = (int)n;
    s->u.setmaxnreg.inc = mode ? mode == 1 : val_to_int(in, av[1], a->loc, "is_inc") != 0;
    emit_stmt(in, s);
    return val_none(in);
}

/* T.annotate_producer_reg_dealloc(reg_count=24) / T.annotate_consumer_reg_alloc(
 * reg_count=240): TileLang's register hints for the producer / consumer side of a
 * warp-specialized kernel, which it lowers to setmaxnreg.dec / .inc: T.dec_max_nreg /
 * T.inc_max_nreg with those defaults. */
static Value *t_annotate_reg(Interp *in, CallArgs *a, void *d) {
    bool consumer = d != NULL;
    const char *fname = consumer ? "T.annotate_consumer_reg_alloc"
                                 : "T.annotate_producer_reg_dealloc";
    Value *av[1];
    args_bind(in, a, fname, "reg_count=", av, 1);
    int64_t n = av[0] ? val_to_int(in, av[0], a->loc, "reg_count") : consumer ? 240 : 24;
    if (n < 24 || n > 256 || n % 8) /* (named here: the error is the user's call) */
        ctx_fail(in->ctx, a->loc, "%s: reg_count must be a multiple of 8 from 24 to 256, got %lld",
                 fname, (long long)n);
    CallArgs b = {0};
    b.loc = a->loc;
    VEC_PUSH(ARENA, b.pos, val_int(in, n));
    return t_set_max_nreg(in, &b, (void *)(intptr_t)(consumer ? 1 : 2));
}

static Value *t_fence_proxy_async(Interp *in, CallArgs *a, void *d) {
    (void)d;
    args_bind(in, a, "T.fence_proxy_async", "", NULL, 0);
    need_kernel(in, a->loc, "T.fence_proxy_async");
    emit_stmt(in, ir_stmt(in->ctx, STMT_FENCE, a->loc));
    return val_none(in);
}

/* T.wait_wgmma(n) / T.warpgroup_wait(n): until at most n wgmma groups are in flight. */
static Value *t_wait_wgmma(Interp *in, CallArgs *a, void *d) {
    const char *fname = d;
    Value *av[1];
    args_bind(in, a, fname, "id", av, 1);
    need_kernel(in, a->loc, fname);
    int64_t n = val_to_int(in, av[0], a->loc, "the number of groups left in flight");
    if (n < 0 || n > 7) ctx_fail(in->ctx, a->loc, "%s: 0 to 7 groups may stay in flight", fname);
    Stmt *s = ir_stmt(in->ctx, STMT_ASYNC, a->loc);
    s->u.async_.wait = (int)n;
    s->u.async_.wgmma = true;
    emit_stmt(in, s);
    return val_none(in);
}

/* ---- TileLang's PTX spellings (language/tir/op.py, builtin.py) ------------------------------
 * The same IR as the names above: T.ptx_arrive_barrier is T.mbarrier_arrive,
 * T.ptx_arrive_barrier_expect_tx T.mbarrier_arrive_expect_tx, T.ptx_wait_barrier a wait
 * for parity 0 (TVM's: the barrier's first phase), T.create_barriers(n) a barrier list
 * whose entries the program initializes, T.ptx_init_barrier_thread_count(b, n) an init
 * by the block's first thread. T.ptx_cp_async is a per-thread copy of 4, 8 or 16 bytes
 * from global into shared memory, T.ptx_commit_group / T.ptx_wait_group(n) its groups,
 * T.ptx_cp_async_barrier / T.cp_async_barrier_noinc an arrival once the thread's copies
 * have landed. The C target copies at issue (runtime/c/tl_c.h), which every wait then
 * finds done. */

/* T.create_barriers(n): n barriers named by number, each initialized by the program. */
static Value *t_create_barriers(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.create_barriers", "barrier_count", av, 1);
    need_kernel(in, a->loc, "T.create_barriers");
    if (in->mbar_list)
        ctx_fail(in->ctx, a->loc, "T.create_barriers: the kernel has a barrier list already");
    int64_t n = val_to_int(in, av[0], a->loc, "barrier_count");
    if (n < 1 || n > MAX_BARRIERS)
        ctx_fail(in->ctx, a->loc, "T.create_barriers: 1 to %d barriers, %lld given", MAX_BARRIERS,
                 (long long)n);
    Buffer *b = ir_buffer(in->ctx, "mbarrier", DT_UINT64, SCOPE_BARRIER, 1, a->loc);
    b->shape[0] = ir_int(in->ctx, n, DT_INT32, a->loc);
    Stmt *s = ir_stmt(in->ctx, STMT_ALLOC, a->loc);
    s->u.alloc.buf = b;
    emit_stmt(in, s);
    in->mbar_list = b;
    in->mbar_need_init = true, in->mbar_any_init = false;
    memset(in->mbar_inited, 0, sizeof in->mbar_inited);
    return val_none(in);
}

/* T.ptx_init_barrier_thread_count(barrier, thread_count): the block's first thread. */
static Value *t_ptx_init_barrier(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.ptx_init_barrier_thread_count";
    Value *av[2];
    args_bind(in, a, fname, "barrier_id, thread_count", av, 2);
    need_kernel(in, a->loc, fname);
    Buffer *bar;
    Expr *idx;
    barrier_ref_of(in, av[0], a->loc, fname, &bar, &idx);
    int64_t n = val_to_int(in, av[1], a->loc, "thread_count");
    if (n < 1 || n > 1024)
        ctx_fail(in->ctx, a->loc, "%s: a thread count must be 1 to 1024, got %lld", fname,
                 (long long)n);
    int64_t k = -1;
    if (!ir_is_const_int(idx, &k)) in->mbar_any_init = true;
    else if (k >= 0 && k < 1024) in->mbar_inited[k / 64] |= 1ull << (k % 64);
    emit_stmt(in, mbar_stmt(in, MBAR_INIT, bar, idx, ir_int(in->ctx, n, DT_INT32, a->loc), a->loc));
    return val_none(in);
}

/* T.ptx_wait_barrier(barrier): until its phase of parity 0 has completed. */
static Value *t_ptx_wait_barrier(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.ptx_wait_barrier", "barrier_id", av, 1);
    need_kernel(in, a->loc, "T.ptx_wait_barrier");
    Buffer *bar;
    Expr *idx;
    barrier_ref(in, av[0], a->loc, "T.ptx_wait_barrier", &bar, &idx);
    emit_stmt(in, mbar_stmt(in, MBAR_WAIT, bar, idx, ir_int(in->ctx, 0, DT_INT32, a->loc), a->loc));
    return val_none(in);
}

/* T.ptx_cp_async_barrier / T.cp_async_barrier_noinc(barrier): every thread that runs it. */
static Value *t_cp_async_arrive(Interp *in, CallArgs *a, void *d) {
    bool noinc = d != NULL;
    const char *fname = noinc ? "T.cp_async_barrier_noinc" : "T.ptx_cp_async_barrier";
    Value *av[1];
    args_bind(in, a, fname, "barrier", av, 1);
    need_kernel(in, a->loc, fname);
    Buffer *bar;
    Expr *idx;
    barrier_ref(in, av[0], a->loc, fname, &bar, &idx);
    emit_stmt(in,
              mbar_stmt(in, noinc ? MBAR_CP_ASYNC_NOINC : MBAR_CP_ASYNC, bar, idx, NULL, a->loc));
    mem_thread_level(in);
    return val_none(in);
}

/* T.ptx_fence_barrier_init(): tilec fences every init where it makes it (tl_mbar_init is
 * followed by tl_fence_mbar_init), so the program's fence has nothing left to do. */
static Value *t_fence_barrier_init(Interp *in, CallArgs *a, void *d) {
    (void)d;
    args_bind(in, a, "T.ptx_fence_barrier_init", "", NULL, 0);
    need_kernel(in, a->loc, "T.ptx_fence_barrier_init");
    return val_none(in);
}

static Value *t_ptx_commit_group(Interp *in, CallArgs *a, void *d) {
    (void)d;
    args_bind(in, a, "T.ptx_commit_group", "", NULL, 0);
    need_kernel(in, a->loc, "T.ptx_commit_group");
    Stmt *s = ir_stmt(in->ctx, STMT_ASYNC, a->loc);
    s->u.async_.commit = true;
    emit_stmt(in, s);
    return val_none(in);
}

static Value *t_ptx_wait_group(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.ptx_wait_group", "num", av, 1);
    need_kernel(in, a->loc, "T.ptx_wait_group");
    int64_t n = val_to_int(in, av[0], a->loc, "the number of groups left in flight");
    if (n < 0 || n > 7)
        ctx_fail(in->ctx, a->loc, "T.ptx_wait_group: 0 to 7 groups may stay in flight, got %lld",
                 (long long)n);
    Stmt *s = ir_stmt(in->ctx, STMT_ASYNC, a->loc);
    s->u.async_.wait = (int)n;
    emit_stmt(in, s);
    return val_none(in);
}

/* One pointer argument of T.ptx_cp_async, into memory of the given scope. */
static ExternArg cp_async_ptr(Interp *in, Value *v, Scope scope, int rw, Loc loc,
                              const char *what) {
    if (!v || v->kind != V_PTR)
        ctx_fail(in->ctx, loc,
                 "T.ptx_cp_async: the %s must be a pointer (T.access_ptr(x[i], ...)), got %s", what,
                 v ? val_describe(in, v) : "nothing");
    if (v->u.ptr.buf->scope != scope)
        ctx_fail(in->ctx, loc, "T.ptx_cp_async copies global into shared memory; the %s '%s' is %s",
                 what, v->u.ptr.buf->name, scope_name(v->u.ptr.buf->scope));
    ExternArg r = {0};
    r.buf = v->u.ptr.buf, r.idx = v->u.ptr.idx, r.extent = v->u.ptr.extent, r.rw = rw;
    return r;
}

/* T.ptx_cp_async(dst, src, num_elems, predicate=None): num_elems elements of dst's dtype
 * (4, 8 or 16 bytes), zeros where predicate is false. Thread-level, as T.call_extern. */
static Value *t_ptx_cp_async(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.ptx_cp_async";
    Value *av[4];
    args_bind(in, a, fname, "dst_access_ptr, src_access_ptr, num_elems, predicate=", av, 4);
    need_kernel(in, a->loc, fname);
    Stmt *s = ir_stmt(in->ctx, STMT_EXTERN, a->loc);
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 3);
    args[0] = cp_async_ptr(in, av[0], SCOPE_SHARED, 2, a->loc, "destination");
    args[1] = cp_async_ptr(in, av[1], SCOPE_GLOBAL, 1, a->loc, "source");
    DType dt = args[0].buf->dtype, st = args[1].buf->dtype;
    if (dtype_bytes(dt) != dtype_bytes(st))
        ctx_fail(in->ctx, a->loc,
                 "%s copies raw bytes: the destination's elements (%s) and the source's (%s) "
                 "must have one size",
                 fname, dtype_name(dt), dtype_name(st));
    int64_t n = val_to_int(in, av[2], a->loc, "num_elems"), bytes = n * dtype_bytes(dt);
    if (n < 1 || (bytes != 4 && bytes != 8 && bytes != 16))
        ctx_fail(in->ctx, a->loc, "%s copies 4, 8 or 16 bytes; %lld %s elements are %lld bytes",
                 fname, (long long)n, dtype_name(dt), (long long)bytes);
    Expr *pred = av[3] && av[3]->kind != V_NONE ? val_to_expr(in, av[3], a->loc, "predicate")
                                                : ir_int(in->ctx, 1, DT_INT32, a->loc);
    args[2].value = ir_cast(in->ctx, DT_BOOL, pred, a->loc);
    s->u.extern_.name = arena_printf(ARENA, "tl_cp_async%lld", (long long)bytes);
    s->u.extern_.args = args, s->u.extern_.nargs = 3;
    mem_thread_level(in);
    VEC_PUSH(ARENA, in->func->externs, s->u.extern_.name);
    emit_stmt(in, s);
    return val_none(in);
}

/* A pointer to element off (flat) of the buffer v names (x.data or x), of scope. */
static ExternArg bulk_ptr(Interp *in, Value *v, Value *off, Scope scope, int rw, int64_t bytes,
                          Loc loc, const char *what) {
    Buffer *b = v && v->kind == V_BUFFER ? v->u.buf : NULL;
    if (is_local_view(b)) b = b->base; /* the same memory (views.c) */
    if (!b || b->scope != scope)
        ctx_fail(in->ctx, loc, "T.ptx_cp_async_bulk: the %s must be a %s buffer (x.data), got %s",
                 what, scope_name(scope), v ? val_describe(in, v) : "nothing");
    Expr *o = val_to_expr(in, off, loc, "offset");
    if (!dtype_is_int(o->dtype))
        ctx_fail(in->ctx, loc, "T.ptx_cp_async_bulk: the %s offset must be an integer", what);
    ExternArg r = {.buf = b, .rw = rw};
    r.extent = ir_int(in->ctx, bytes / dtype_bytes(b->dtype), DT_INT32, loc);
    r.idx = NEW_ARRAY(ARENA, Expr *, b->ndim + 1);
    for (int d = b->ndim - 1; d >= 0; d--) { /* row-major position of the flat offset */
        r.idx[d] = d ? ir_bin(in->ctx, OP_FLOORMOD, o, b->shape[d], loc) : o;
        if (d) o = ir_bin(in->ctx, OP_FLOORDIV, o, b->shape[d], loc);
    }
    return r;
}

/* T.ptx_cp_async_bulk(dtype, shared_ptr, shared_offset, global_ptr, global_offset, bytes,
 * barrier_id): `bytes` (a multiple of 16) from global into shared memory (offsets in
 * elements) by the bulk copy engine (cp.async.bulk, sm_90), the bytes completing as
 * transactions on barrier barrier_id (of the kernel's list, or a barrier), in each thread
 * that runs it. Below sm_90a the thread copies them itself (expect_tx counts nothing
 * there); the C target copies at issue. */
static Value *t_ptx_cp_async_bulk(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.ptx_cp_async_bulk";
    Value *av[7];
    args_bind(in, a, fname,
              "dtype, shared_ptr, shared_offset, global_ptr, global_offset, bytes, barrier_id", av,
              7);
    need_kernel(in, a->loc, fname);
    int64_t bytes = val_to_int(in, av[5], a->loc, "bytes");
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 4);
    args[0] = bulk_ptr(in, av[1], av[2], SCOPE_SHARED, 2, bytes, a->loc, "destination");
    args[1] = bulk_ptr(in, av[3], av[4], SCOPE_GLOBAL, 1, bytes, a->loc, "source");
    int64_t es = dtype_bytes(args[0].buf->dtype);
    if (bytes < 16 || bytes % 16 || bytes >= 1 << 20 || bytes % es ||
        bytes % dtype_bytes(args[1].buf->dtype))
        ctx_fail(in->ctx, a->loc,
                 "%s: bytes must be a multiple of 16 (and of both buffers' elements) below "
                 "2^20, got %lld",
                 fname, (long long)bytes);
    args[2].value = ir_int(in->ctx, bytes, DT_INT32, a->loc);
    Buffer *bar;
    Expr *idx;
    barrier_ref(in, av[6], a->loc, fname, &bar, &idx);
    args[3] = (ExternArg){.buf = bar, .rw = 3, .extent = ir_int(in->ctx, 1, DT_INT32, a->loc)};
    args[3].idx = NEW_ARRAY(ARENA, Expr *, 1);
    args[3].idx[0] = idx;
    Stmt *s = ir_stmt(in->ctx, STMT_EXTERN, a->loc);
    s->u.extern_.name = "tl_bulk_copy", s->u.extern_.args = args, s->u.extern_.nargs = 4;
    mem_thread_level(in);
    VEC_PUSH(ARENA, in->func->externs, s->u.extern_.name);
    emit_stmt(in, s);
    return val_none(in);
}

/* T.sync_threads(barrier_id, arrive_count=all) (tileops.c's T.sync_threads with
 * arguments) / T.named_barrier_arrive(barrier_id, thread_count): named barrier 1..15 of
 * that many threads (a multiple of 32), waited for (bar.sync) or only arrived at
 * (bar.arrive), in each thread that runs it, also under thread-dependent conditions. */
Value *tl_named_barrier(Interp *in, CallArgs *a, void *arrive) {
    const char *fname = arrive ? "T.named_barrier_arrive" : "T.sync_threads";
    Value *av[2];
    args_bind(in, a, fname, arrive ? "barrier_id, thread_count" : "barrier_id=, arrive_count=", av,
              2);
    need_kernel(in, a->loc, fname);
    int64_t id = av[0] ? val_to_int(in, av[0], a->loc, "barrier_id") : 0;
    int64_t n = av[1] ? val_to_int(in, av[1], a->loc, "the thread count") : in->kernel_threads;
    if (!av[0] && !arrive) { /* T.sync_threads(arrive_count=n) */
        emit_stmt(in, ir_stmt(in->ctx, STMT_SYNC, a->loc));
        return val_none(in);
    }
    if (id < 1 || id > 15)
        ctx_fail(in->ctx, a->loc,
                 "%s: a named barrier is 1 to 15 (0 is the block's: T.sync_threads()), got %lld",
                 fname, (long long)id);
    if (n < 32 || n > in->kernel_threads || n % 32)
        ctx_fail(in->ctx, a->loc,
                 "%s: the thread count must be a multiple of 32 from 32 to the block's %d, got "
                 "%lld",
                 fname, in->kernel_threads, (long long)n);
    if (in->kernel_ws)
        ctx_fail(in->ctx, a->loc,
                 "%s: named barriers of the program's in a kernel with T.ws regions (whose "
                 "barriers are named barriers too) are not supported",
                 fname);
    in->named_bars = true;
    Stmt *s = ir_stmt(in->ctx, STMT_NAMED_BAR, a->loc);
    s->u.named_bar.id = (int)id, s->u.named_bar.count = (int)n;
    s->u.named_bar.arrive = arrive != NULL;
    emit_stmt(in, s);
    return val_none(in);
}

/* T.tvm_storage_sync(scope): "shared" (or "shared.dyn") a block barrier, as
 * T.sync_threads; "warp" the same barrier (stronger than the warp's, as T.sync_warp). */
static Value *t_storage_sync(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.tvm_storage_sync", "storage_scope", av, 1);
    need_kernel(in, a->loc, "T.tvm_storage_sync");
    const char *sc = av[0]->kind == V_STR ? av[0]->u.s : "";
    if (strcmp(sc, "shared") && strcmp(sc, "shared.dyn") && strcmp(sc, "warp"))
        ctx_fail(in->ctx, a->loc,
                 "T.tvm_storage_sync(%s): tilec synchronizes \"shared\" (a block barrier) and "
                 "\"warp\"; a grid-wide (\"global\") barrier is not supported",
                 val_describe(in, av[0]));
    emit_stmt(in, ir_stmt(in->ctx, STMT_SYNC, a->loc));
    return val_none(in);
}

/* T.tma_store_arrive() / T.tma_store_wait(count=0, read=True): the program's bulk groups
 * of TMA stores. tilec issues, commits and waits for its own TMA stores (tma_store.c)
 * before their shared memory is written again or the block ends, so no group of the
 * program's is ever outstanding: both have nothing to do. */
static Value *t_tma_store_sync(Interp *in, CallArgs *a, void *d) {
    const char *fname = d ? "T.tma_store_wait" : "T.tma_store_arrive";
    Value *av[2];
    args_bind(in, a, fname, d ? "count=, read=" : "", av, d ? 2 : 0);
    need_kernel(in, a->loc, fname);
    if (d && av[0] && val_to_int(in, av[0], a->loc, "count") < 0)
        ctx_fail(in->ctx, a->loc, "T.tma_store_wait: count must be 0 or more");
    return val_none(in);
}

/* ---- cluster barriers ---------------------------------------------------------------------
 * T.alloc_cluster_barrier(arrive_count): barriers as T.alloc_barrier's, whose arrivals may
 * come from the other blocks of the cluster (T.ptx_arrive_cluster_barrier(bar, cta_id),
 * T.mbarrier_arrive(bar, cta_id=)); waits are local. In a cluster of several blocks a
 * T.cluster_sync() follows the initialization, so that no block arrives on a peer's
 * barrier before the peer has initialized it. */
static Value *t_alloc_cluster_barrier(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.alloc_cluster_barrier";
    Value *av[1];
    args_bind(in, a, fname, "arrive_count", av, 1);
    need_kernel(in, a->loc, fname);
    Value *v = val_new(in, V_BUFFER);
    v->u.buf = make_barriers(in, items_of(in, av[0]), a->loc, fname);
    v->u.buf->cluster_barrier = true;
    if (ir_cluster_size(in->kernel) > 1) {
        Stmt *s = ir_stmt(in->ctx, STMT_GROUP_SYNC, a->loc);
        s->u.gsync.op = GSYNC_CLUSTER_SYNC;
        emit_stmt(in, s);
    }
    return v;
}

/* T.ptx_arrive_cluster_barrier(mbarrier, cta_id): an arrival per thread that runs it on
 * the barrier's twin in block cta_id of the cluster. */
static Value *t_ptx_arrive_cluster_barrier(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.ptx_arrive_cluster_barrier";
    Value *av[2];
    args_bind(in, a, fname, "mbarrier, cta_id", av, 2);
    need_kernel(in, a->loc, fname);
    Buffer *bar;
    Expr *idx;
    barrier_ref(in, av[0], a->loc, fname, &bar, &idx);
    Stmt *s = mbar_stmt(in, MBAR_ARRIVE, bar, idx, NULL, a->loc);
    s->u.mbar.cta = peer_rank(in, bar, av[1], a->loc, fname);
    emit_stmt(in, s);
    return val_none(in);
}

#define I(x) ((void *)(intptr_t)(x))
static const TName expert[] = {
    {"alloc_barrier", t_alloc_barrier, NULL, NULL},
    {"create_list_of_mbarrier", t_create_list_of_mbarrier, NULL, NULL},
    {"get_mbarrier", t_get_mbarrier, NULL, NULL},
    {"mbarrier_wait_parity", t_mbar_wait, "T.mbarrier_wait_parity", NULL},
    {"barrier_wait", t_mbar_wait, "T.barrier_wait", NULL},
    {"mbarrier_arrive", t_mbar_arrive, "T.mbarrier_arrive", NULL},
    {"barrier_arrive", t_mbar_arrive, "T.barrier_arrive", NULL},
    {"mbarrier_expect_tx", t_mbar_expect, NULL, NULL},
    {"mbarrier_arrive_expect_tx", t_mbar_expect, I(1), NULL},
    {"tma_copy", t_tma_copy, NULL, NULL},
    {"ws", t_ws, NULL, NULL},
    {"set_max_nreg", t_set_max_nreg, I(0), NULL},
    {"inc_max_nreg", t_set_max_nreg, I(1), NULL},
    {"dec_max_nreg", t_set_max_nreg, I(2), NULL},
    {"fence_proxy_async", t_fence_proxy_async, NULL, NULL},
    {"wait_wgmma", t_wait_wgmma, "T.wait_wgmma", NULL},
    {"warpgroup_wait", t_wait_wgmma, "T.warpgroup_wait", NULL},
    {"create_barriers", t_create_barriers, NULL, NULL},
    {"ptx_init_barrier_thread_count", t_ptx_init_barrier, NULL, NULL},
    {"ptx_arrive_barrier", t_mbar_arrive, "T.ptx_arrive_barrier", NULL},
    {"ptx_arrive_barrier_expect_tx", t_mbar_expect, I(1), NULL},
    {"ptx_wait_barrier", t_ptx_wait_barrier, NULL, NULL},
    {"ptx_fence_barrier_init", t_fence_barrier_init, NULL, NULL},
    {"ptx_cp_async", t_ptx_cp_async, NULL, NULL},
    {"ptx_commit_group", t_ptx_commit_group, NULL, NULL},
    {"ptx_wait_group", t_ptx_wait_group, NULL, NULL},
    {"ptx_cp_async_barrier", t_cp_async_arrive, NULL, NULL},
    {"cp_async_barrier_noinc", t_cp_async_arrive, I(1), NULL},
    {"tvm_storage_sync", t_storage_sync, NULL, NULL},
    {"tma_store_arrive", t_tma_store_sync, NULL, NULL},
    {"tma_store_wait", t_tma_store_sync, I(1), NULL},
    {"named_barrier_arrive", tl_named_barrier, I(1), NULL},
    {"ptx_cp_async_bulk", t_ptx_cp_async_bulk, NULL, NULL},
    {"annotate_producer_reg_dealloc", t_annotate_reg, NULL, "CUDA sm_90a; else no effect"},
    {"annotate_consumer_reg_alloc", t_annotate_reg, I(1), "CUDA sm_90a; else no effect"},
    {"alloc_cluster_barrier", t_alloc_cluster_barrier, NULL,
     "C, CUDA (peers' arrivals in clusters of several blocks: sm_90; C: blocks as POSIX "
     "threads)"},
    {"ptx_arrive_cluster_barrier", t_ptx_arrive_cluster_barrier, NULL,
     "C, CUDA (clusters of several blocks: sm_90; C: blocks as POSIX threads)"},
};
#undef I

const TNames tl_expert_names = {expert, (int)(sizeof expert / sizeof *expert)};
