/* emit_c.c - C11 code generation for the C target (the reference semantics).
 *
 * Requires: a Func lowered by target_c.lower (tile ops replaced by loops; scalar
 * STMT_ATOMIC, PRINT, ASSERT, SYNC, ANNOTATE_LAYOUT and SWIZZLE may remain).
 * Provides: one C file = the tl_c.h prelude, per STMT_KERNEL a block function
 * `kernelN_block` (one call runs one block, sequentially) and a launcher `kernelN`
 * (OpenMP loop over the grid, per-thread scratch memory for the block's non-global
 * buffers; a kernel with barriers across blocks, T.sync_grid or T.cluster_* in clusters
 * of several blocks, runs the blocks each barrier spans at once instead, one POSIX
 * thread per block: tl_c_run_teams in tl_c.h), and `tilec_entry`, which binds
 * parameters and symbols and runs the host-level statements (kernels in order, one
 * after the other).
 *
 * Expressions and most statements are printed by the shared C-family printer
 * (src/targets/cfamily.h; values as in runtime/c/tl_c.h); this file has what only the C
 * target does: its hooks (OpenMP atomics, host allocations, nested kernel calls), the
 * kernels' block functions and launchers, and the entry point. Indexing is done in
 * int64_t. Generated names: user names made valid/unique; ours start with tl_. */
#include "emit_c.h"

#include <stdio.h>
#include <string.h>

#include "ir/ir_walk.h"
#include "targets/cfamily.h"
/* The generated header may hold other targets' files too; only tl_c.h is used here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-const-variable"
#include "embedded_runtime.h"
#pragma GCC diagnostic pop

/* ---- emitter state ----------------------------------------------------------------- */
typedef struct CEmit {
    CfEmit cf;         /* first: the hooks get &cf */
    StrBuf kbuf, hbuf; /* kernel functions, entry function */
    int nkernels;
    Vec(Buffer *) host_allocs;
    /* thread-level code (a kernel that reads a thread index): its block's threads, its
     * buffers with a copy per thread, and whether a loop over the threads is open */
    int simt_threads;
    Vec(Buffer *) simt_bufs;
    bool in_threads;
    /* the threads that run the code being written: the block's, or a T.ws region's
     * [simt_lo, simt_hi) */
    int simt_lo, simt_hi;
    /* the calls that read other threads in the statement being written (shuffles,
     * votes), and for each the array of every thread's argument (a block vote: the
     * scalar of its result) */
    Vec(const Expr *) cross;
    Vec(const char *) cross_vals;
    /* the kernel's barriers across blocks (ir_group_syncs), and whether its blocks run
     * in teams (T.sync_grid, or cluster barriers in clusters of several blocks) */
    unsigned gsyncs;
    bool teams;
    int arrive_threads; /* the threads that run the code being written (a T.ws region's) */
    bool at_once;       /* writing regions that run at once (no return from there) */
} CEmit;

static CEmit *c_of(CfEmit *em) { return (CEmit *)em; }

/* The most blocks that T.sync_grid runs at once (one thread each); CUDA's grid barrier
 * needs them resident, a few per SM. */
enum { C_TEAM_MAX = 4096 };

/* Names of the C library and of the generated file besides cfamily.c's. */
static const char *const c_reserved[] = {
    "INFINITY",    "NAN",    "args",   "syms", "fprintf", "stdout",     "stderr", "flockfile",
    "funlockfile", "malloc", "calloc", "free", "errno",   "fpclassify", NULL,
};

/* kernelN and kernelN_block are the generated functions. */
static bool c_reserved_name(const char *s) {
    if (strncmp(s, "kernel", 6)) return false;
    const char *p = s + 6;
    while (*p >= '0' && *p <= '9') p++;
    return p > s + 6 && (!*p || !strcmp(p, "_block"));
}

/* ---- statements only the C target has ----------------------------------------------- */
static void emit_kernel_call(CfEmit *em, const Stmt *k);

/* Host-level T.alloc_global: zeroed heap memory, freed at the end of tilec_entry. */
static void emit_host_alloc(CfEmit *em, Buffer *b) {
    StrBuf *o = em->out;
    const char *n = cf_buf(em, b);
    VEC_PUSH(&em->ctx->arena, c_of(em)->host_allocs, b);
    sb_indent(o, em->indent);
    sb_printf(o, "%s = (%s *)calloc((size_t)(1", n, cf_storage(b->dtype));
    for (int d = 0; d < b->ndim; d++) {
        sb_puts(o, " * ");
        cf_ex_index(em, o, b->shape[d], true);
    }
    sb_printf(o, ") + 1, sizeof(%s));\n", cf_storage(b->dtype));
    cf_line(em, "if (!%s) {", n);
    cf_line(em,
            "    fprintf(stderr, \"tilec: out of memory for T.alloc_global '%%s'\\n\", "
            "\"%s\");",
            n);
    cf_line(em, "    tl_status = TL_C_NOMEM;");
    cf_line(em, "    goto tl_done;");
    cf_line(em, "}");
}

/* Block buffers only reserve scratch memory (a T.alloc_var's initial value is stored). */
static void emit_alloc(CfEmit *em, const Stmt *s) {
    Buffer *b = s->u.alloc.buf;
    if (!em->kernel || b->scope == SCOPE_GLOBAL || b->init) cf_loc_comment(em, s->loc);
    if (b->scope == SCOPE_BARRIER) return; /* program_order kept it: scratch, set by its init */
    if (b->scope == SCOPE_GLOBAL) {
        if (em->kernel)
            ctx_fail(em->ctx, s->loc,
                     "T.alloc_global inside T.Kernel is not supported on the C target");
        emit_host_alloc(em, b);
        return;
    }
    if (!em->kernel)
        ctx_fail(em->ctx, s->loc, "T.alloc_%s '%s' outside T.Kernel", scope_name(b->scope),
                 b->name);
    if (b->init) cf_store_init(em, s);
}

static bool simt_stmt(CfEmit *em, const Stmt *s);
static void c_cross_thread(CfEmit *em, StrBuf *o, const Expr *e);
static void emit_region(CfEmit *em, const Stmt *s);
static void emit_at_once(CfEmit *em, const Stmt *s);
static void warp_extern(CfEmit *em, const Stmt *s);

/* T.sync_grid, T.cluster_*: the team's barriers (tl_c_bar in tl_c.h); a cluster of one
 * block has nothing to wait for. */
static void emit_group_sync(CfEmit *em, const Stmt *s) {
    cf_loc_comment(em, s->loc);
    GroupSyncOp op = s->u.gsync.op;
    if (op != GSYNC_GRID && ir_cluster_size(em->kernel) == 1) {
        cf_line(em, "/* T.%s: a cluster of one block */", group_sync_op_name(op));
        return;
    }
    switch (op) {
    case GSYNC_GRID: cf_line(em, "tl_c_bar_sync(tl_grid_bar);"); break;
    case GSYNC_CLUSTER_ARRIVE:
    case GSYNC_CLUSTER_ARRIVE_RELAXED:
        cf_line(em, "tl_cluster_phase = tl_c_bar_arrive(tl_cluster_bar);");
        break;
    case GSYNC_CLUSTER_WAIT: cf_line(em, "tl_c_bar_wait(tl_cluster_bar, tl_cluster_phase);"); break;
    default: cf_line(em, "tl_c_bar_sync(tl_cluster_bar);"); break;
    }
}

/* An mbarrier operation (program_order keeps those of cluster barriers in clusters of
 * several blocks, and every one of a kernel with regions at once): tl_c_mbar_* of
 * tl_c.h, under tl_mbar_lock (the cluster's or the block's mutex). Arrivals count as on
 * CUDA: one per thread that runs the statement (the threads of the block or T.ws region,
 * or this one in thread-level code), one for an op that the first thread alone runs; an
 * expected transaction is an arrival without bytes (copies land at issue here). */
static void emit_mbar(CfEmit *em, const Stmt *s) {
    CEmit *ce = c_of(em);
    const Buffer *b = s->u.mbar.bar;
    const char *m = arena_printf(&em->ctx->arena, "&%s[%s]", cf_buf(em, b),
                                 s->u.mbar.idx ? cf_ex_str(em, s->u.mbar.idx, DT_INT32, true)
                                               : "0");
    int threads = ce->in_threads || s->u.mbar.once ? 1 : ce->arrive_threads;
    cf_loc_comment(em, s->loc);
    switch (s->u.mbar.op) {
    case MBAR_INIT:
        if (s->u.mbar.idx)
            cf_line(em, "tl_c_mbar_init(tl_mbar_lock, %s, %s);", m,
                    cf_ex_str(em, s->u.mbar.arg, DT_INT32, true));
        else
            cf_line(em,
                    "for (int tl_i = 0; tl_i < %s; ++tl_i) tl_c_mbar_init(tl_mbar_lock, "
                    "&%s[tl_i], %s);",
                    cf_ex_str(em, b->shape[0], DT_INT32, true), cf_buf(em, b),
                    cf_ex_str(em, s->u.mbar.arg, DT_INT32, true));
        break;
    case MBAR_WAIT:
        cf_line(em, "tl_c_mbar_wait(tl_mbar_lock, %s, %s);", m,
                cf_ex_str(em, s->u.mbar.arg, DT_INT32, true));
        break;
    case MBAR_EXPECT: cf_line(em, "/* expect_tx: the copies have landed */"); break;
    case MBAR_CP_ASYNC: cf_line(em, "/* cp.async arrival: counted by the raise */"); break;
    default: /* ARRIVE, EXPECT_TX, CP_ASYNC_NOINC */
        if (!s->u.mbar.cta) {
            cf_line(em, "tl_c_mbar_arrive(tl_mbar_lock, %s, %d);", m, threads);
            break;
        }
        cf_line(em, "{");
        cf_line(em,
                "    uint64_t *tl_peer = tl_c_mbar_peer(tl_cluster_bar, tl_scratch, %s, %s, %d);",
                m, cf_ex_str(em, s->u.mbar.cta, DT_INT32, true), ir_cluster_size(em->kernel));
        cf_line(em, "    if (!tl_peer) return TL_C_ASSERT;");
        cf_line(em, "    tl_c_mbar_arrive(tl_mbar_lock, tl_peer, %d);", threads);
        cf_line(em, "}");
    }
}

/* CfHooks.stmt: thread-level code, allocations, kernels, and what has no effect on a
 * CPU. */
static bool c_stmt(CfEmit *em, const Stmt *s) {
    if (s->kind == STMT_THREADS && s->u.threads.at_once) {
        emit_at_once(em, s);
        return true;
    }
    if (s->kind == STMT_THREADS) {
        emit_region(em, s);
        return true;
    }
    if (s->kind == STMT_EXTERN && s->u.extern_.warp) {
        warp_extern(em, s);
        return true;
    }
    if (c_of(em)->simt_threads && !c_of(em)->in_threads && simt_stmt(em, s)) return true;
    if (s->kind == STMT_ALLOC) {
        emit_alloc(em, s);
        return true;
    }
    if (s->kind == STMT_GROUP_SYNC) {
        emit_group_sync(em, s);
        return true;
    }
    if (s->kind == STMT_MBAR) {
        emit_mbar(em, s);
        return true;
    }
    if (s->kind != STMT_KERNEL && s->kind != STMT_SYNC && s->kind != STMT_ANNOTATE_LAYOUT &&
        s->kind != STMT_SWIZZLE)
        return false;
    cf_loc_comment(em, s->loc);
    if (s->kind == STMT_KERNEL) {
        if (em->kernel) ctx_fail(em->ctx, s->loc, "T.Kernel inside T.Kernel");
        emit_kernel_call(em, s);
    } else if (s->kind == STMT_SYNC) {
        cf_line(em, "/* T.sync_threads: a block runs on one CPU thread */");
    } else if (s->kind == STMT_ANNOTATE_LAYOUT) {
        cf_line(em, "/* T.annotate_layout: no effect on the C target */");
    } else {
        cf_line(em, "/* T.use_swizzle: block order does not matter here */");
    }
    return true;
}

/* CfHooks.atomic: adds of int32/int64/uint32/uint64/float/double as `omp atomic` (not
 * when the previous value is asked for). */
static bool c_atomic(CfEmit *em, const Stmt *s) {
    const Region *d = &s->u.atomic.dst;
    DType t = d->buf->dtype;
    if (s->u.atomic.op != ATOMIC_ADD || s->u.atomic.prev ||
        !(t == DT_INT32 || t == DT_INT64 || t == DT_UINT32 || t == DT_UINT64 || t == DT_FLOAT32 ||
          t == DT_FLOAT64))
        return false;
    StrBuf *o = em->out;
    cf_line(em, "#pragma omp atomic update");
    sb_indent(o, em->indent);
    cf_ex_elem(em, o, d->buf, d->start);
    sb_puts(o, " += ");
    cf_ex_top(em, o, s->u.atomic.value, t);
    sb_puts(o, ";\n");
    return true;
}

/* A region's elements are printed under one stdout lock. */
static void c_print_begin(CfEmit *em) { cf_line(em, "flockfile(stdout);"); }
static void c_print_end(CfEmit *em) { cf_line(em, "funlockfile(stdout);"); }

/* A failed T.device_assert ends the block (then the launch) with TL_C_ASSERT. */
static void c_assert_exit(CfEmit *em) {
    if (c_of(em)->at_once)
        ctx_fail(em->ctx, em->kernel->loc,
                 "T.device_assert inside T.ws regions that the C target runs at once (they "
                 "wait for each other's mbarrier arrivals) is not supported");
    if (em->kernel) {
        cf_line(em, "return TL_C_ASSERT;");
    } else {
        cf_line(em, "tl_status = TL_C_ASSERT;");
        cf_line(em, "goto tl_done;");
    }
}

static const CfHooks c_hooks = {
    .reserved = c_reserved,
    .reserved_name = c_reserved_name,
    .wide_local_index = true,
    .stmt = c_stmt,
    .atomic = c_atomic,
    .cross_thread = c_cross_thread,
    .print_region_begin = c_print_begin,
    .print_region_end = c_print_end,
    .assert_exit = c_assert_exit,
};

/* ---- thread-level code ------------------------------------------------------------------
 * A kernel that reads a thread index (T.get_thread_binding) runs its block's threads one
 * after the other around each statement that needs them: a statement that reads a value
 * differing between threads (ir_expr_varies) or writes a buffer each thread has its own
 * copy of (local and var buffers) becomes `for (tl_tid ...) { statement }`; other
 * statements run once, reading thread 0's copies; an `if` or loop of uniform condition is
 * entered, so that its statements are taken one by one. Each statement thus ends in every
 * thread before the next starts: a barrier between any two, which orders whatever the
 * CUDA target's barriers order. A let of a varying value is an array with an element per
 * thread. Each loop over the threads opens with the thread indices, the varying lets in
 * scope and the thread's copy of each per-thread buffer. */
static bool simt_own_copy(const Buffer *b) {
    return b->scope == SCOPE_LOCAL || b->scope == SCOPE_VAR;
}

/* Elements of a block buffer (constant: scratch_layout checks). */
static int64_t const_elems(const Buffer *b) {
    int64_t n = 1, c;
    for (int d = 0; d < b->ndim; d++) n *= ir_is_const_int(b->shape[d], &c) && c > 0 ? c : 0;
    return n;
}

typedef struct SimtScan {
    bool per_thread, jumps; /* jumps: a break/continue out of the statement */
    int loops;
} SimtScan;

static void simt_scan_expr(Expr **slot, void *ud) {
    if (ir_expr_varies(*slot)) ((SimtScan *)ud)->per_thread = true;
}

/* Whether extern call s writes a buffer each thread has its own copy of (its result, a
 * pointer it writes through), or is impure (thread-level code: every thread calls it). */
static bool extern_per_thread(const Stmt *s) {
    if (!s->u.extern_.pure || s->u.extern_.result) return true;
    for (int i = 0; i < s->u.extern_.nargs; i++) {
        const ExternArg *a = &s->u.extern_.args[i];
        if (!a->value && (a->rw & 2) && simt_own_copy(a->buf)) return true;
    }
    return false;
}

static void simt_scan(Stmt **slot, void *ud) {
    SimtScan *sc = ud;
    Stmt *s = *slot;
    const Buffer *w = s->kind == STMT_STORE                           ? s->u.store.buf
                      : s->kind == STMT_ATOMIC                        ? s->u.atomic.dst.buf
                      : s->kind == STMT_ALLOC && s->u.alloc.buf->init ? s->u.alloc.buf
                                                                      : NULL;
    if (w && simt_own_copy(w)) sc->per_thread = true;
    if ((s->kind == STMT_ATOMIC && s->u.atomic.prev) ||
        (s->kind == STMT_EXTERN && extern_per_thread(s)))
        sc->per_thread = true;
    if ((s->kind == STMT_BREAK || s->kind == STMT_CONTINUE) && !sc->loops) sc->jumps = true;
    ir_stmt_exprs(s, simt_scan_expr, ud);
    bool loop = s->kind == STMT_FOR || s->kind == STMT_WHILE;
    sc->loops += loop;
    ir_stmt_children(s, simt_scan, ud);
    sc->loops -= loop;
}

/* `for (tl_tid ...) {` and the thread's view of the kernel's values. */
static void simt_open(CfEmit *em) {
    CEmit *ce = c_of(em);
    const Stmt *k = em->kernel;
    const int *n = k->u.kernel.threads;
    cf_line(em, "for (int32_t tl_tid = %d; tl_tid < %d; ++tl_tid) { /* each thread */", ce->simt_lo,
            ce->simt_hi);
    em->indent++;
    const char *idx[3] = {arena_printf(&em->ctx->arena, "tl_tid %% %d", n[0]),
                          arena_printf(&em->ctx->arena, "tl_tid / %d %% %d", n[0], n[1]),
                          arena_printf(&em->ctx->arena, "tl_tid / %d", n[0] * n[1])};
    for (int d = 0; d < 3; d++)
        if (k->u.kernel.thread[d])
            cf_line(em, "const int32_t %s = %s;", cf_var(em, k->u.kernel.thread[d]), idx[d]);
    for (int i = 0; i < em->live.len; i++) {
        const Var *v = em->live.data[i];
        if (v->varying)
            cf_line(em, "const %s %s = tl_pt_%s[tl_tid];", cf_value(v->dtype), cf_var(em, v),
                    cf_var(em, v));
    }
    for (int i = 0; i < ce->simt_bufs.len; i++) {
        Buffer *b = ce->simt_bufs.data[i];
        cf_line(em, "%s *%s = tl_pt_%s + (int64_t)tl_tid * %lld;", cf_storage(b->dtype),
                cf_buf(em, b), cf_buf(em, b), (long long)const_elems(b));
    }
    ce->in_threads = true;
}

static void simt_close(CfEmit *em) {
    c_of(em)->in_threads = false;
    em->indent--;
    cf_line(em, "}");
}

/* body run by the threads [lo, hi) alone: its statements run as anywhere else, but the
 * loops over the threads cover only those, which keep the block's thread indices (as
 * CUDA's threadIdx); code that runs once reads thread lo's copies. */
static void emit_thread_range(CfEmit *em, int lo, int hi, const Stmt *body, const char *what) {
    CEmit *ce = c_of(em);
    int lo0 = ce->simt_lo, hi0 = ce->simt_hi;
    cf_line(em, "{ /* %s: threads %d..%d */", what, lo, hi - 1);
    em->indent++;
    int mark = em->live.len;
    if (ce->simt_threads) {
        ce->simt_lo = lo, ce->simt_hi = hi;
        for (int i = 0; lo && i < ce->simt_bufs.len; i++) {
            Buffer *b = ce->simt_bufs.data[i];
            cf_line(em, "%s *%s = tl_pt_%s + (int64_t)%d * %lld; /* thread %d's */",
                    cf_storage(b->dtype), cf_buf(em, b), cf_buf(em, b), lo,
                    (long long)const_elems(b), lo);
        }
    }
    cf_stmt(em, body);
    em->live.len = mark;
    ce->simt_lo = lo0, ce->simt_hi = hi0;
    em->indent--;
    cf_line(em, "}");
}

/* A T.ws region (STMT_THREADS): the threads of its range run its body. */
static void emit_region(CfEmit *em, const Stmt *s) {
    CEmit *ce = c_of(em);
    int lo = s->u.threads.lo, hi = lo + s->u.threads.count;
    cf_loc_comment(em, s->loc);
    if (ce->simt_threads && (lo < ce->simt_lo || hi > ce->simt_hi))
        ctx_fail(em->ctx, s->loc, "T.ws blocks cannot be nested");
    int threads = ce->arrive_threads;
    ce->arrive_threads = hi - lo;
    emit_thread_range(em, lo, hi, s->u.threads.body, "T.ws");
    ce->arrive_threads = threads;
}

/* Regions that hand work back and forth through mbarriers (program_order's at_once
 * group): each runs in a CPU thread of its own, all at once (an OpenMP team; the
 * launcher runs such a kernel's blocks one after the other, so that this is the only
 * active parallel level), sharing the block's scratch; the mbarriers order them. */
static void emit_at_once(CfEmit *em, const Stmt *s) {
    CEmit *ce = c_of(em);
    const Stmt *seq = s->u.threads.body;
    int n = seq->u.seq.len;
    cf_loc_comment(em, s->loc);
    cf_line(em, "{ /* %d T.ws regions at once, one CPU thread each */", n);
    em->indent++;
    cf_line(em, "int tl_team = 0;");
    cf_line(em, "#pragma omp parallel num_threads(%d)", n);
    cf_line(em, "{");
    cf_line(em, "    #pragma omp single");
    cf_line(em, "    tl_team = tl_c_team_size();");
    cf_line(em, "    if (tl_team == %d) {", n);
    cf_line(em, "        switch (tl_c_team_rank()) {");
    em->indent += 3;
    ce->at_once = true;
    for (int i = 0; i < n; i++) {
        cf_line(em, "case %d: {", i);
        em->indent++;
        emit_region(em, seq->u.seq.data[i]);
        cf_line(em, "break;");
        em->indent--;
        cf_line(em, "}");
    }
    ce->at_once = false;
    em->indent -= 3;
    cf_line(em, "        }");
    cf_line(em, "    }");
    cf_line(em, "}");
    cf_line(em, "if (tl_team != %d) {", n);
    cf_line(em,
            "    fprintf(stderr, \"tilec: %d T.ws regions must run at once, but OpenMP gave "
            "%%d threads (or is unavailable)\\n\", tl_team);",
            n);
    cf_line(em, "    return TL_C_ASSERT;");
    cf_line(em, "}");
    em->indent--;
    cf_line(em, "}");
}

/* ---- barriers under a condition on the thread index --------------------------------------
 * `if tx < 256: ... T.sync_threads(3, 256) ...` (TileLang's topk selector): the threads
 * the condition admits run the branch in step, its named barriers between its
 * statements. Run per thread as a whole, the branch would lose them; so when the
 * condition bounds the thread index (x, the block's only thread dimension) to a range
 * and a branch holds a barrier, each branch runs as the threads of its range (for the
 * `else`, the other threads: one range, else an error). */
static bool has_sync(const Stmt *s);
static void has_sync_slot(Stmt **slot, void *ud) { *(bool *)ud |= has_sync(*slot); }
static bool has_sync(const Stmt *s) {
    bool any = s->kind == STMT_SYNC;
    if (!any) ir_stmt_children((Stmt *)s, has_sync_slot, &any);
    return any;
}

/* Writes the thread-range `if` s (see above) and returns true, or returns false. */
static bool synced_branches(CfEmit *em, const Stmt *s) {
    CEmit *ce = c_of(em);
    const Stmt *k = em->kernel;
    if (s->kind != STMT_IF || !has_sync(s) || k->u.kernel.threads[1] * k->u.kernel.threads[2] != 1)
        return false;
    int64_t lo = ce->simt_lo, hi = ce->simt_hi;
    if (!k->u.kernel.thread[0] || !ir_var_range(s->u.if_.cond, k->u.kernel.thread[0], &lo, &hi))
        return false;
    if (hi < lo) hi = lo;
    cf_loc_comment(em, s->loc);
    if (lo < hi) emit_thread_range(em, (int)lo, (int)hi, s->u.if_.then, "if");
    const Stmt *e = s->u.if_.orelse;
    if (!e) return true;
    if (lo <= ce->simt_lo || hi >= ce->simt_hi) { /* the other threads: one range */
        if (lo > ce->simt_lo) emit_thread_range(em, ce->simt_lo, (int)lo, e, "else");
        else if (hi < ce->simt_hi) emit_thread_range(em, (int)hi, ce->simt_hi, e, "else");
        return true;
    }
    if (has_sync(e))
        ctx_fail(em->ctx, s->loc,
                 "the C target cannot run barriers in an else branch whose threads are two "
                 "ranges (%d..%lld and %lld..%d)",
                 ce->simt_lo, (long long)lo - 1, (long long)hi, ce->simt_hi - 1);
    Stmt *other = ir_stmt(em->ctx, STMT_IF, s->loc); /* each thread: if (!cond) else */
    other->u.if_.cond = ir_un(em->ctx, OP_NOT, s->u.if_.cond, s->loc);
    other->u.if_.then = (Stmt *)e;
    int mark = em->live.len;
    simt_open(em);
    cf_stmt(em, other);
    simt_close(em);
    em->live.len = mark;
    return true;
}

/* ---- calls that read other threads (warp shuffles and votes, block votes): every
 * thread's argument first, in an array (for a block vote, then its result, once), then
 * the statement reads what the call needs of it (tl_c.h: tl_shfl_src, tl_warp_*).
 * Inner calls come first. */
static void collect_cross(Expr **slot, void *ud) {
    CfEmit *em = ud;
    ir_expr_children(*slot, collect_cross, ud);
    if ((*slot)->kind == EXPR_CALL && intrinsic_reads_threads((*slot)->u.call.fn))
        VEC_PUSH(&em->ctx->arena, c_of(em)->cross, *slot);
}

/* tl_c.h's number of a block vote (tl_block_vote). */
static int block_vote_kind(Intrinsic fn) {
    return fn == FN_SYNCTHREADS_AND ? 0 : fn == FN_SYNCTHREADS_OR ? 1 : 2;
}

static void hoist_cross(CfEmit *em, const Stmt *s) {
    CEmit *ce = c_of(em);
    ce->cross.len = ce->cross_vals.len = 0;
    ir_stmt_exprs((Stmt *)s, collect_cross, em);
    for (int i = 0; i < ce->cross.len; i++) {
        const Expr *e = ce->cross.data[i], *arg = e->u.call.args[0];
        const char *vals = cf_tmp(em, "each");
        cf_line(em, "%s %s[%d];", cf_value(arg->dtype), vals, ce->simt_threads);
        int mark = em->live.len;
        simt_open(em);
        StrBuf *o = em->out;
        sb_indent(o, em->indent);
        sb_printf(o, "%s[tl_tid] = ", vals);
        cf_ex_top(em, o, arg, arg->dtype);
        sb_puts(o, ";\n");
        simt_close(em);
        em->live.len = mark;
        if (intrinsic_is_block_vote(e->u.call.fn)) { /* the same in every thread */
            const char *r = cf_tmp(em, "vote");
            cf_line(em, "const int32_t %s = tl_block_vote(%d, %s + %d, %d);", r,
                    block_vote_kind(e->u.call.fn), vals, ce->simt_lo, ce->simt_hi - ce->simt_lo);
            vals = r;
        }
        VEC_PUSH(&em->ctx->arena, ce->cross_vals, vals);
    }
}

/* A warp vote of the hoisted arguments vals, in thread tl_tid. */
static void c_warp_vote(CfEmit *em, StrBuf *o, const Expr *e, const char *vals) {
    int n = c_of(em)->simt_threads;
    const char *args = arena_printf(&em->ctx->arena, "%s, tl_tid, %d", vals, n);
    const char *bits = dtype_bits(e->u.call.args[0]->dtype) == 64 ? "u64" : "u32";
    switch (e->u.call.fn) {
    case FN_BALLOT: sb_printf(o, "tl_warp_ballot(%s)", args); break;
    case FN_ANY_SYNC: sb_printf(o, "((int32_t)(tl_warp_ballot(%s) != 0))", args); break;
    case FN_ALL_SYNC:
        sb_printf(o, "((int32_t)(tl_warp_ballot(%s) == tl_warp_lanes(tl_tid, %d)))", args, n);
        break;
    case FN_ELECT_ONE: sb_printf(o, "tl_warp_elect(%s)", args); break;
    case FN_MATCH_ANY: sb_printf(o, "tl_warp_match_any_%s(%s)", bits, args); break;
    default: sb_printf(o, "tl_warp_match_all_%s(%s)", bits, args); break;
    }
}

/* CfHooks.cross_thread: the source thread's element of the hoisted values (a shuffle),
 * the vote over the warp's elements, or a block vote's result. */
static void c_cross_thread(CfEmit *em, StrBuf *o, const Expr *e) {
    CEmit *ce = c_of(em);
    int k = 0;
    while (k < ce->cross.len && ce->cross.data[k] != e) k++;
    if (k == ce->cross.len || !ce->in_threads)
        tl_internal_error(__FILE__, __LINE__, "a cross-thread call outside thread-level code");
    Intrinsic fn = e->u.call.fn;
    const char *vals = ce->cross_vals.data[k];
    if (intrinsic_is_block_vote(fn)) {
        sb_puts(o, vals);
        return;
    }
    if (!intrinsic_is_shfl(fn)) {
        c_warp_vote(em, o, e, vals);
        return;
    }
    sb_printf(o, "%s[tl_shfl_src(%d, tl_tid, ", vals,
              fn == FN_SHFL_XOR    ? 0
              : fn == FN_SHFL_DOWN ? 1
              : fn == FN_SHFL_UP   ? 2
                                   : 3);
    cf_ex_top(em, o, e->u.call.args[1], DT_INT32);
    sb_printf(o, ", %d)]", ce->simt_threads);
}

/* A warp-collective call (T.ptx_mma, T.ptx_ldmatrix, T.mma_store): every thread's
 * arguments into arrays (its pointers into its own copy of a per-thread buffer), then
 * one call for the block, which takes each warp's lanes together (tl_c.h). */
static void warp_extern(CfEmit *em, const Stmt *s) {
    CEmit *ce = c_of(em);
    if (ce->in_threads)
        ctx_fail(em->ctx, s->loc,
                 "%s is warp-collective: on the C target it cannot run under a condition or "
                 "loop that depends on the thread index",
                 s->u.extern_.name);
    if (!ce->simt_threads)
        tl_internal_error(__FILE__, __LINE__, "a warp-collective call without thread-level code");
    cf_loc_comment(em, s->loc);
    int n = s->u.extern_.nargs;
    const char **vals = NEW_ARRAY(&em->ctx->arena, const char *, n + 1);
    for (int i = 0; i < n; i++) {
        vals[i] = cf_tmp(em, "lanes");
        cf_line(em, "%s %s[%d];", s->u.extern_.args[i].value ? "int64_t" : "void *", vals[i],
                ce->simt_threads);
    }
    int mark = em->live.len;
    simt_open(em);
    StrBuf *o = em->out;
    for (int i = 0; i < n; i++) {
        const ExternArg *a = &s->u.extern_.args[i];
        sb_indent(o, em->indent);
        sb_printf(o, "%s[tl_tid] = ", vals[i]);
        if (a->value) cf_ex_top(em, o, a->value, DT_INT64);
        else {
            sb_puts(o, "(void *)");
            cf_ex_addr(em, o, a->buf, a->idx, s->u.extern_.name);
        }
        sb_puts(o, ";\n");
    }
    simt_close(em);
    em->live.len = mark;
    sb_indent(o, em->indent);
    sb_printf(o, "%s(%d", s->u.extern_.name, ce->simt_threads);
    for (int i = 0; i < n; i++) sb_printf(o, ", %s", vals[i]);
    sb_puts(o, ");\n");
}

/* A let of a varying value: an element per thread. */
static void simt_let(CfEmit *em, const Stmt *s) {
    Var *v = s->u.let.var;
    v->varying = true; /* (a let the lowering made: its uses vary too) */
    const char *name = cf_var(em, v);
    if (!cf_live_has(em, v))
        cf_line(em, "%s tl_pt_%s[%d];", cf_value(v->dtype), name, c_of(em)->simt_threads);
    hoist_cross(em, s);
    int mark = em->live.len;
    simt_open(em);
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_printf(o, "tl_pt_%s[tl_tid] = ", name);
    cf_ex_top(em, o, s->u.let.value, v->dtype);
    sb_puts(o, ";\n");
    simt_close(em);
    em->live.len = mark;
    if (!cf_live_has(em, v)) cf_live_add(em, v);
}

/* Writes s per thread and returns true when it needs the threads, or returns false (the
 * shared printer writes it once, entering a uniform if or loop). */
static bool simt_stmt(CfEmit *em, const Stmt *s) {
    SimtScan sc = {0};
    Stmt *slot = (Stmt *)s;
    simt_scan(&slot, &sc);
    if (!sc.per_thread) return false;
    bool compound = s->kind == STMT_FOR || s->kind == STMT_WHILE || s->kind == STMT_IF;
    if (compound && !ir_stmt_varies(s)) return false;
    cf_loc_comment(em, s->loc);
    if (s->kind == STMT_LET) {
        simt_let(em, s);
        return true;
    }
    if (sc.jumps)
        ctx_fail(em->ctx, s->loc,
                 "the C target cannot run a break or continue under a condition that "
                 "depends on the thread index yet");
    if (synced_branches(em, s)) return true;
    hoist_cross(em, s);
    int mark = em->live.len;
    simt_open(em);
    cf_stmt(em, s);
    simt_close(em);
    em->live.len = mark;
    return true;
}

/* ---- kernels: what a kernel body uses ------------------------------------------------ */
typedef struct Uses {
    Vec(const Var *) defined;
    Vec(const Var *) free; /* used before (outside) any definition in the kernel */
    Vec(Buffer *) globals;
    Vec(Buffer *) scratch;
} Uses;

#define VEC_HAS(v, x, found)                                                                       \
    do {                                                                                           \
        found = false;                                                                             \
        for (int i_ = 0; i_ < (v).len && !found; i_++) found = (v).data[i_] == (x);                \
    } while (0)

static void uses_expr(CfEmit *em, Uses *u, const Expr *e);

static void uses_var(CfEmit *em, Uses *u, const Var *v) {
    bool found;
    VEC_HAS(u->defined, v, found);
    if (!found) VEC_HAS(u->free, v, found);
    if (!found) VEC_PUSH(&em->ctx->arena, u->free, v);
}

static void uses_buf(CfEmit *em, Uses *u, Buffer *b) {
    if (b->addr) { /* T.make_tensor: its address and shape are values, not memory to pass */
        uses_var(em, u, b->addr);
        for (int d = 0; d < b->ndim; d++) {
            uses_expr(em, u, b->shape[d]);
            if (b->strides) uses_expr(em, u, b->strides[d]);
        }
        return;
    }
    if (b->base) { /* a view: its shape's variables, and its base's memory */
        for (int d = 0; d < b->ndim; d++) uses_expr(em, u, b->shape[d]);
        b = b->base;
    }
    bool found;
    if (b->scope == SCOPE_GLOBAL) VEC_HAS(u->globals, b, found);
    else VEC_HAS(u->scratch, b, found);
    if (found) return;
    if (b->scope == SCOPE_GLOBAL) VEC_PUSH(&em->ctx->arena, u->globals, b);
    else VEC_PUSH(&em->ctx->arena, u->scratch, b);
    for (int d = 0; d < b->ndim; d++) {
        uses_expr(em, u, b->shape[d]);
        if (b->strides) uses_expr(em, u, b->strides[d]);
    }
    if (b->init) uses_expr(em, u, b->init);
    if (b->safe_value) uses_expr(em, u, b->safe_value);
}

static void uses_expr(CfEmit *em, Uses *u, const Expr *e) {
    if (!e) return;
    switch (e->kind) {
    case EXPR_VAR: uses_var(em, u, e->u.var); break;
    case EXPR_BIN: uses_expr(em, u, e->u.bin.a), uses_expr(em, u, e->u.bin.b); break;
    case EXPR_UN: uses_expr(em, u, e->u.un.a); break;
    case EXPR_CALL:
        for (int i = 0; i < 3; i++) uses_expr(em, u, e->u.call.args[i]);
        break;
    case EXPR_CAST: uses_expr(em, u, e->u.cast.value); break;
    case EXPR_LOAD:
        uses_buf(em, u, e->u.load.buf);
        for (int d = 0; d < e->u.load.buf->ndim; d++) uses_expr(em, u, e->u.load.idx[d]);
        break;
    case EXPR_SELECT:
        uses_expr(em, u, e->u.select.cond);
        uses_expr(em, u, e->u.select.then);
        uses_expr(em, u, e->u.select.orelse);
        break;
    default: break;
    }
}

static void uses_region(CfEmit *em, Uses *u, const Region *r) {
    if (!r->buf) return;
    uses_buf(em, u, r->buf);
    for (int d = 0; d < r->ndim; d++) {
        uses_expr(em, u, r->start[d]);
        if (r->extent) uses_expr(em, u, r->extent[d]);
    }
}

static void uses_stmt(CfEmit *em, Uses *u, const Stmt *s) {
    if (!s) return;
    switch (s->kind) {
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) uses_stmt(em, u, s->u.seq.data[i]);
        break;
    case STMT_FOR:
        uses_expr(em, u, s->u.for_.min);
        uses_expr(em, u, s->u.for_.extent);
        VEC_PUSH(&em->ctx->arena, u->defined, s->u.for_.var);
        uses_stmt(em, u, s->u.for_.body);
        break;
    case STMT_WHILE: uses_expr(em, u, s->u.while_.cond), uses_stmt(em, u, s->u.while_.body); break;
    case STMT_IF:
        uses_expr(em, u, s->u.if_.cond);
        uses_stmt(em, u, s->u.if_.then);
        uses_stmt(em, u, s->u.if_.orelse);
        break;
    case STMT_STORE:
        uses_buf(em, u, s->u.store.buf);
        for (int d = 0; d < s->u.store.buf->ndim; d++) uses_expr(em, u, s->u.store.idx[d]);
        uses_expr(em, u, s->u.store.value);
        break;
    case STMT_LET:
        uses_expr(em, u, s->u.let.value);
        VEC_PUSH(&em->ctx->arena, u->defined, s->u.let.var);
        break;
    case STMT_ALLOC: uses_buf(em, u, s->u.alloc.buf); break;
    case STMT_KERNEL:
        for (int d = 0; d < s->u.kernel.ngrid; d++) {
            uses_expr(em, u, s->u.kernel.grid[d]);
            if (s->u.kernel.block[d]) VEC_PUSH(&em->ctx->arena, u->defined, s->u.kernel.block[d]);
        }
        for (int d = 0; d < 3; d++)
            if (s->u.kernel.thread[d]) VEC_PUSH(&em->ctx->arena, u->defined, s->u.kernel.thread[d]);
        uses_stmt(em, u, s->u.kernel.body);
        break;
    case STMT_ATOMIC:
        uses_region(em, u, &s->u.atomic.dst);
        uses_region(em, u, &s->u.atomic.src);
        uses_expr(em, u, s->u.atomic.value);
        if (s->u.atomic.prev) uses_buf(em, u, s->u.atomic.prev);
        break;
    case STMT_EXTERN:
        for (int i = 0; i < s->u.extern_.nargs; i++) {
            const ExternArg *a = &s->u.extern_.args[i];
            uses_expr(em, u, a->value);
            if (a->value) continue;
            uses_buf(em, u, a->buf);
            for (int d = 0; d < a->buf->ndim; d++) uses_expr(em, u, a->idx[d]);
        }
        if (s->u.extern_.result) uses_buf(em, u, s->u.extern_.result);
        break;
    case STMT_PRINT:
        uses_expr(em, u, s->u.print.value);
        uses_region(em, u, &s->u.print.region);
        break;
    case STMT_ASSERT: uses_expr(em, u, s->u.assert_.cond); break;
    case STMT_THREADS: uses_stmt(em, u, s->u.threads.body); break;
    default: break;
    }
}

/* ---- kernels: block function, launcher, call ---------------------------------------- */
/* Places b at offset total (*off), returning the end (64-byte aligned). */
static int64_t scratch_place(CfEmit *em, Buffer *b, int64_t *off, int64_t total) {
    int64_t n = c_of(em)->simt_threads && simt_own_copy(b) ? c_of(em)->simt_threads : 1, c;
    for (int d = 0; d < b->ndim; d++) {
        if (!ir_is_const_int(b->shape[d], &c))
            ctx_fail(em->ctx, b->loc, "the C target needs a constant shape for %s buffer '%s'",
                     scope_name(b->scope), b->name);
        n *= c > 0 ? c : 0;
    }
    *off = total;
    return total + (n * dtype_bytes(b->dtype) + 63) / 64 * 64;
}

/* Whether the program makes wgmma descriptors (T.initialize_wgmma_descriptor): they
 * address shared memory from the scratch's start (tl_c_smem of tl_c.h) in 18 bits. */
static bool makes_gmma_descs(const CfEmit *em) {
    for (int i = 0; i < em->f->externs.len; i++)
        if (!strcmp(em->f->externs.data[i], "tl_gmma_desc_init")) return true;
    return false;
}

/* Scratch layout: each non-global buffer at a 64-byte aligned offset (a copy per thread
 * of the per-thread ones in thread-level code). With wgmma descriptors the shared
 * buffers come first, 1024-byte aligned as swizzled tiles are on the GPU. Returns the
 * total. */
static int64_t scratch_layout(CfEmit *em, const Uses *u, int64_t *offs) {
    int64_t total = 0;
    bool descs = makes_gmma_descs(em);
    for (int pass = descs ? 0 : 1; pass < 2; pass++)
        for (int i = 0; i < u->scratch.len; i++) {
            Buffer *b = u->scratch.data[i];
            if (descs && (b->scope == SCOPE_SHARED) != !pass) continue;
            if (descs && !pass) total = (total + 1023) / 1024 * 1024;
            total = scratch_place(em, b, offs + i, total);
        }
    return total;
}

/* "float *A, int32_t M" : the kernel's global buffers and free variables. */
static void kernel_params(CfEmit *em, StrBuf *o, const Uses *u) {
    Arena *a = &em->ctx->arena;
    for (int i = 0; i < u->globals.len; i++)
        cf_list_item(o, i == 0,
                     arena_printf(a, "%s *%s", cf_storage(u->globals.data[i]->dtype),
                                  cf_buf(em, u->globals.data[i])));
    for (int i = 0; i < u->free.len; i++)
        cf_list_item(o, !u->globals.len && !i,
                     arena_printf(a, "%s %s", cf_value(u->free.data[i]->dtype),
                                  cf_var(em, u->free.data[i])));
}

static void kernel_args(CfEmit *em, StrBuf *o, const Uses *u) {
    for (int i = 0; i < u->globals.len; i++)
        cf_list_item(o, i == 0, cf_buf(em, u->globals.data[i]));
    for (int i = 0; i < u->free.len; i++)
        cf_list_item(o, !u->globals.len && !i, cf_var(em, u->free.data[i]));
}

static const char *block_var_name(CfEmit *em, const Stmt *k, int d) {
    const Var *v = k->u.kernel.block[d];
    return v ? cf_var(em, v) : arena_printf(&em->ctx->arena, "tl_block%d", d);
}

/* Whether s holds regions that run at once (program_order's at_once groups). */
static void at_once_slot(Stmt **slot, void *ud) {
    const Stmt *s = *slot;
    if (s->kind == STMT_THREADS && s->u.threads.at_once) *(bool *)ud = true;
    else ir_stmt_children(*slot, at_once_slot, ud);
}
static bool has_at_once(const Stmt *s) {
    bool any = false;
    Stmt *t = (Stmt *)s;
    at_once_slot(&t, &any);
    return any;
}

/* The block's scratch in its cluster's table, by its rank in the cluster (x fastest):
 * where peers find its cluster barriers. */
static void cluster_rank_register(CfEmit *em, const Stmt *k) {
    const char *r = "0";
    for (int d = k->u.kernel.ngrid - 1; d >= 0; d--) {
        int c = k->u.kernel.cluster_dims[d] > 1 ? k->u.kernel.cluster_dims[d] : 1;
        r = arena_printf(&em->ctx->arena, "(int64_t)%s %% %d + %d * (%s)", block_var_name(em, k, d),
                         c, c, r);
    }
    cf_line(em, "if (tl_cluster_bar) tl_cluster_bar->smem[(%s) %% 16] = tl_scratch;", r);
}

static void emit_block_fn(CfEmit *em, const Stmt *k, int id, const Uses *u, const int64_t *offs,
                          int64_t total) {
    StrBuf *o = em->out;
    sb_printf(o, "/* %s: one call runs block (", cf_loc_where(em, k->loc));
    for (int d = 0; d < k->u.kernel.ngrid; d++)
        sb_printf(o, "%s%s", d ? ", " : "", block_var_name(em, k, d));
    sb_printf(o, ") of T.Kernel %d, sequentially. */\nstatic int kernel%d_block(", id, id);
    kernel_params(em, o, u);
    for (int d = 0; d < k->u.kernel.ngrid; d++) {
        const Var *v = k->u.kernel.block[d];
        cf_list_item(o, u->globals.len + u->free.len + d == 0,
                     arena_printf(&em->ctx->arena, "%s %s", cf_value(v ? v->dtype : DT_INT32),
                                  block_var_name(em, k, d)));
    }
    if (c_of(em)->teams) cf_list_item(o, false, "tl_c_bar *tl_grid_bar, tl_c_bar *tl_cluster_bar");
    cf_list_item(o, false, "char *tl_scratch");
    sb_puts(o, ")\n{\n");
    em->indent = 1;
    if (c_of(em)->teams) {
        cf_line(em, "unsigned tl_cluster_phase = ~0u; /* of its last T.cluster_arrive */");
        cf_line(em, "(void)tl_grid_bar, (void)tl_cluster_bar, (void)tl_cluster_phase;");
        cluster_rank_register(em, k);
        cf_line(em, "tl_c_bar *tl_mbar_lock = tl_cluster_bar; /* its cluster barriers' */");
        cf_line(em, "(void)tl_mbar_lock;");
    } else if (has_at_once(k->u.kernel.body)) {
        cf_line(em, "tl_c_bar tl_block_bar = {PTHREAD_MUTEX_INITIALIZER, "
                    "PTHREAD_COND_INITIALIZER, 0, 0, 0, {0}};");
        cf_line(em, "tl_c_bar *tl_mbar_lock = &tl_block_bar; /* its mbarriers' */");
    }
    for (int i = 0; i < u->scratch.len; i++) {
        Buffer *b = u->scratch.data[i];
        const char *st = cf_storage(b->dtype), *name = cf_buf(em, b);
        if (!c_of(em)->simt_threads || !simt_own_copy(b)) {
            cf_line(em, "%s *%s = (%s *)(tl_scratch + %lld); /* %s */", st, name, st,
                    (long long)offs[i], cf_shape_text(em, b));
            continue;
        }
        cf_line(em, "%s *tl_pt_%s = (%s *)(tl_scratch + %lld); /* %s, per thread */", st, name, st,
                (long long)offs[i], cf_shape_text(em, b));
        cf_line(em, "%s *%s = tl_pt_%s; /* thread 0's */", st, name, name);
        VEC_PUSH(&em->ctx->arena, c_of(em)->simt_bufs, b);
    }
    if (makes_gmma_descs(em))
        cf_line(em, "const unsigned char *const tl_c_smem = (const unsigned char *)tl_scratch;");
    if (total) cf_line(em, "memset(tl_scratch, 0, %lld);", (long long)total);
    else cf_line(em, "(void)tl_scratch;");
    cf_stmt(em, k->u.kernel.body);
    cf_line(em, "return 0;");
    sb_puts(o, "}\n\n");
    em->indent = 0;
}

static void emit_launcher(CfEmit *em, const Stmt *k, int id, const Uses *u, int64_t total) {
    StrBuf *o = em->out;
    int n = k->u.kernel.ngrid;
    sb_printf(o, "/* T.Kernel %d (%s): every block of the grid, in parallel. */\n", id,
              cf_loc_where(em, k->loc));
    sb_printf(o, "static int kernel%d(", id);
    kernel_params(em, o, u);
    sb_puts(o, u->globals.len + u->free.len ? ")\n{\n" : "void)\n{\n");
    em->indent = 1;
    StrBuf where = {0}; /* the file name is user text: a string literal, not a format */
    cf_string(&where, k->loc.src && k->loc.src->name
                          ? arena_printf(&em->ctx->arena, "%s:%d", k->loc.src->name, k->loc.line)
                          : "kernel");
    for (int d = 0; d < n; d++) {
        cf_line(em, "const int64_t tl_grid%d = %s;", d,
                cf_ex_str(em, k->u.kernel.grid[d], DT_INT64, true));
        cf_line(em, "if (tl_grid%d > INT32_MAX) { /* block indices are int32 */", d);
        cf_line(em,
                "    fprintf(stderr, \"tilec: T.Kernel %d (%%s): grid dimension %d is %%lld "
                "blocks, over 2^31 - 1\\n\", %s, (long long)tl_grid%d);",
                id, d, where.buf, d);
        cf_line(em, "    return TL_C_GRID;");
        cf_line(em, "}");
    }
    sb_free(&where);
    cf_line(em, "int tl_failed = 0;");
    if (has_at_once(k->u.kernel.body)) /* one block at a time: its regions are the team */
        cf_line(em, "#pragma omp parallel if (0)");
    else cf_line(em, "#pragma omp parallel");
    cf_line(em, "{");
    cf_line(em, "    char *tl_scratch = tl_scratch_alloc(%lld);", (long long)total);
    if (total) {
        cf_line(em, "    if (!tl_scratch) {");
        cf_line(em, "        fprintf(stderr, \"tilec: out of memory for block scratch\\n\");");
        cf_line(em, "        #pragma omp atomic write");
        cf_line(em, "        tl_failed = TL_C_NOMEM;");
        cf_line(em, "    }");
    }
    cf_line(em, "    #pragma omp for collapse(%d) schedule(dynamic)", n);
    for (int d = n - 1; d >= 0; d--)
        cf_line(em, "%*sfor (int64_t tl_b%d = 0; tl_b%d < tl_grid%d; ++tl_b%d)%s",
                4 * (n - 1 - d) + 4, "", d, d, d, d, d ? "" : " {");
    em->indent = n + 2;
    cf_line(em, "int tl_stop;");
    cf_line(em, "#pragma omp atomic read");
    cf_line(em, "tl_stop = tl_failed;");
    sb_indent(o, em->indent);
    sb_printf(o, "if (!tl_stop && kernel%d_block(", id);
    kernel_args(em, o, u);
    for (int d = 0; d < n; d++) {
        const Var *v = k->u.kernel.block[d];
        const char *ty = cf_value(v ? v->dtype : DT_INT32);
        cf_list_item(o, u->globals.len + u->free.len + d == 0,
                     arena_printf(&em->ctx->arena, "(%s)tl_b%d", ty, d));
    }
    cf_list_item(o, false, "tl_scratch");
    sb_puts(o, ")) {\n");
    cf_line(em, "    #pragma omp atomic write");
    cf_line(em, "    tl_failed = TL_C_ASSERT;");
    cf_line(em, "}");
    em->indent = n + 1;
    cf_line(em, "}");
    em->indent = 1;
    cf_line(em, "    free(tl_scratch);");
    cf_line(em, "}");
    cf_line(em, "return tl_failed;");
    sb_puts(o, "}\n\n");
    em->indent = 0;
}

/* A kernel whose blocks run in teams: its arguments as a struct, and a member function
 * that runs one block from them (tl_c_member_fn). */
static void emit_team_member(CfEmit *em, const Stmt *k, int id, const Uses *u) {
    StrBuf *o = em->out;
    Arena *a = &em->ctx->arena;
    sb_printf(o, "typedef struct kernel%d_args {\n", id);
    for (int i = 0; i < u->globals.len; i++)
        sb_printf(o, "    %s *%s;\n", cf_storage(u->globals.data[i]->dtype),
                  cf_buf(em, u->globals.data[i]));
    for (int i = 0; i < u->free.len; i++)
        sb_printf(o, "    %s %s;\n", cf_value(u->free.data[i]->dtype), cf_var(em, u->free.data[i]));
    sb_printf(o, "    char tl_none;\n} kernel%d_args;\n\n", id);
    sb_printf(o,
              "static int kernel%d_member(void *tl_p, const int64_t *tl_b, tl_c_bar *tl_g, "
              "tl_c_bar *tl_c, char *tl_s)\n{\n",
              id);
    sb_printf(o, "    kernel%d_args *tl_a = (kernel%d_args *)tl_p;\n    (void)tl_a;\n", id, id);
    sb_printf(o, "    return kernel%d_block(", id);
    for (int i = 0; i < u->globals.len; i++)
        cf_list_item(o, i == 0, arena_printf(a, "tl_a->%s", cf_buf(em, u->globals.data[i])));
    for (int i = 0; i < u->free.len; i++)
        cf_list_item(o, !u->globals.len && !i,
                     arena_printf(a, "tl_a->%s", cf_var(em, u->free.data[i])));
    for (int d = 0; d < k->u.kernel.ngrid; d++) {
        const Var *v = k->u.kernel.block[d];
        cf_list_item(o, u->globals.len + u->free.len + d == 0,
                     arena_printf(a, "(%s)tl_b[%d]", cf_value(v ? v->dtype : DT_INT32), d));
    }
    sb_puts(o, ", tl_g, tl_c, tl_s);\n}\n\n");
}

/* The team launcher's checks of the grid (tl_grid, tl_cl): empty (nothing runs), whole
 * clusters, and with T.sync_grid at most C_TEAM_MAX blocks. */
static void emit_team_checks(CfEmit *em, const Stmt *k, int id, bool grid) {
    StrBuf where = {0}; /* the file name is user text: a string literal, not a format */
    cf_string(&where, k->loc.src && k->loc.src->name
                          ? arena_printf(&em->ctx->arena, "%s:%d", k->loc.src->name, k->loc.line)
                          : "kernel");
    cf_line(em, "for (int tl_d = 0; tl_d < 3; tl_d++)");
    cf_line(em, "    if (tl_grid[tl_d] <= 0) return 0; /* an empty grid runs nothing */");
    cf_line(em, "for (int tl_d = 0; tl_d < 3; tl_d++)");
    cf_line(em, "    if (tl_grid[tl_d] %% tl_cl[tl_d] || tl_grid[tl_d] > INT32_MAX) {");
    cf_line(em,
            "        fprintf(stderr, \"tilec: T.Kernel %d (%%s): grid dimension %%d is %%lld "
            "blocks, not a multiple of the cluster's %%lld\\n\", %s, tl_d, "
            "(long long)tl_grid[tl_d], (long long)tl_cl[tl_d]);",
            id, where.buf);
    cf_line(em, "        return TL_C_GRID;");
    cf_line(em, "    }");
    if (grid) {
        cf_line(em, "if (tl_grid[0] * tl_grid[1] * tl_grid[2] > %d) {", C_TEAM_MAX);
        cf_line(em,
                "    fprintf(stderr, \"tilec: T.Kernel %d (%%s): T.sync_grid runs every block at "
                "once, one thread each: %%lld blocks, over %d\\n\", %s, "
                "(long long)(tl_grid[0] * tl_grid[1] * tl_grid[2]));",
                id, C_TEAM_MAX, where.buf);
        cf_line(em, "    return TL_C_GRID;");
        cf_line(em, "}");
    }
    sb_free(&where);
}

/* The launcher of a kernel whose blocks run in teams (tl_c_run_teams). */
static void emit_team_launcher(CfEmit *em, const Stmt *k, int id, const Uses *u, int64_t total) {
    StrBuf *o = em->out;
    const int *cd = k->u.kernel.cluster_dims;
    bool grid = c_of(em)->gsyncs & 1u << GSYNC_GRID;
    emit_team_member(em, k, id, u);
    sb_printf(o, "/* T.Kernel %d (%s): %s, one POSIX thread per block. */\n", id,
              cf_loc_where(em, k->loc),
              grid ? "every block of the grid at once" : "cluster after cluster");
    sb_printf(o, "static int kernel%d(", id);
    kernel_params(em, o, u);
    sb_puts(o, u->globals.len + u->free.len ? ")\n{\n" : "void)\n{\n");
    em->indent = 1;
    sb_printf(o, "    kernel%d_args tl_a = {", id);
    kernel_args(em, o, u);
    if (!u->globals.len && !u->free.len) sb_puts(o, "0");
    sb_puts(o, "};\n");
    cf_line(em, "int64_t tl_grid[3] = {1, 1, 1}, tl_cl[3] = {%d, %d, %d};", cd[0] > 1 ? cd[0] : 1,
            cd[1] > 1 ? cd[1] : 1, cd[2] > 1 ? cd[2] : 1);
    for (int d = 0; d < k->u.kernel.ngrid; d++)
        cf_line(em, "tl_grid[%d] = %s;", d, cf_ex_str(em, k->u.kernel.grid[d], DT_INT64, true));
    emit_team_checks(em, k, id, grid);
    cf_line(em, "return tl_c_run_teams(kernel%d_member, &tl_a, tl_grid, tl_cl, %s, %lld);", id,
            grid ? "true" : "false", (long long)total);
    sb_puts(o, "}\n\n");
    em->indent = 0;
}

/* Emits kernel functions for k into kbuf and, on the host, the call that runs it. */
static void emit_kernel_call(CfEmit *em, const Stmt *k) {
    Uses *u = NEW(&em->ctx->arena, Uses);
    int id = c_of(em)->nkernels++;
    uses_stmt(em, u, k);
    cf_check_grid(em, k, (const int64_t[3]){INT32_MAX, INT32_MAX, INT32_MAX}, "the c target");
    for (int i = 0; i < u->free.len; i++)
        if (!cf_live_has(em, u->free.data[i]))
            ctx_fail(em->ctx, k->loc,
                     "'%s' is used inside T.Kernel but has no value on the C "
                     "target",
                     u->free.data[i]->name);
    /* switch to the kernel's own function */
    StrBuf *host_out = em->out;
    int host_indent = em->indent;
    const Source *ls = em->last_src;
    int ll = em->last_line;
    CfVarVec host_live = em->live;
    em->live.data = NULL, em->live.len = em->live.cap = 0;
    for (int i = 0; i < u->free.len; i++) cf_live_add(em, u->free.data[i]);
    for (int d = 0; d < k->u.kernel.ngrid; d++)
        if (k->u.kernel.block[d]) cf_live_add(em, k->u.kernel.block[d]);
    em->out = &c_of(em)->kbuf, em->kernel = k, em->last_src = NULL;
    CEmit *ce = c_of(em);
    ce->simt_threads = 0, ce->simt_bufs.len = 0;
    ce->gsyncs = ir_group_syncs(k->u.kernel.body);
    ce->teams = (ce->gsyncs & 1u << GSYNC_GRID) || (ce->gsyncs && ir_cluster_size(k) > 1);
    for (int d = 0; d < 3; d++)
        if (k->u.kernel.thread[d])
            ce->simt_threads = k->u.kernel.threads[0] * k->u.kernel.threads[1] *
                               k->u.kernel.threads[2];
    ce->simt_lo = 0, ce->simt_hi = ce->simt_threads;
    ce->arrive_threads = k->u.kernel.threads[0] * k->u.kernel.threads[1] * k->u.kernel.threads[2];
    int64_t *offs = NEW_ARRAY(&em->ctx->arena, int64_t, u->scratch.len + 1);
    int64_t total = scratch_layout(em, u, offs);
    emit_block_fn(em, k, id, u, offs, total);
    em->last_src = NULL;
    if (ce->teams) emit_team_launcher(em, k, id, u, total);
    else emit_launcher(em, k, id, u, total);
    em->out = host_out, em->indent = host_indent, em->kernel = NULL, ce->simt_threads = 0;
    em->live = host_live, em->last_src = ls, em->last_line = ll;
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_printf(o, "if ((tl_status = kernel%d(", id);
    kernel_args(em, o, u);
    sb_puts(o, ")) != 0)\n");
    cf_line(em, "    goto tl_done;");
}

/* ---- the entry point ------------------------------------------------------------------ */
static void emit_param(CfEmit *em, const Param *p, int i) {
    if (p->buf) {
        const char *st = cf_storage(p->buf->dtype);
        cf_line(em, "%s *%s = (%s *)args[%d];", st, cf_buf(em, p->buf), st, i);
        return;
    }
    const Var *v = p->scalar;
    cf_declare_scalar(em, v,
                      arena_printf(&em->ctx->arena, "*(const %s *)args[%d]",
                                   dtype_is_float(v->dtype) ? "double" : "int64_t", i));
}

/* Declares every host-level T.alloc_global pointer (NULL) before the first goto. */
static void declare_host_allocs(CfEmit *em, const Stmt *s) {
    if (!s) return;
    switch (s->kind) {
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) declare_host_allocs(em, s->u.seq.data[i]);
        break;
    case STMT_FOR: declare_host_allocs(em, s->u.for_.body); break;
    case STMT_WHILE: declare_host_allocs(em, s->u.while_.body); break;
    case STMT_IF:
        declare_host_allocs(em, s->u.if_.then);
        declare_host_allocs(em, s->u.if_.orelse);
        break;
    case STMT_ALLOC:
        if (s->u.alloc.buf->scope == SCOPE_GLOBAL)
            cf_line(em, "%s *%s = NULL;", cf_storage(s->u.alloc.buf->dtype),
                    cf_buf(em, s->u.alloc.buf));
        break;
    default: break;
    }
}

static void emit_entry(CfEmit *em) {
    const Func *f = em->f;
    em->out = &c_of(em)->hbuf;
    sb_printf(em->out, "/* Parameters and symbols as in Target.launch (targets/target.h). */\n"
                       "int tilec_entry(void *const *args, const int64_t *syms)\n{\n");
    em->indent = 1;
    for (int i = 0; i < f->params.len; i++) emit_param(em, &f->params.data[i], i);
    for (int i = 0; i < f->syms.len; i++) {
        const Var *v = f->syms.data[i];
        if (!cf_live_has(em, v))
            cf_declare_scalar(em, v, arena_printf(&em->ctx->arena, "syms[%d]", i));
    }
    cf_line(em, "int tl_status = 0;");
    declare_host_allocs(em, f->body);
    cf_line(em, "(void)args;");
    cf_line(em, "(void)syms;");
    if (f->body) cf_stmt(em, f->body);
    cf_line(em, "goto tl_done;");
    sb_puts(em->out, "tl_done:\n");
    for (int i = 0; i < c_of(em)->host_allocs.len; i++)
        cf_line(em, "free(%s);", cf_buf(em, c_of(em)->host_allocs.data[i]));
    cf_line(em, "return tl_status;");
    sb_puts(em->out, "}\n");
}

/* ---- imported sources ------------------------------------------------------------------- */
typedef struct CudaWord {
    const char *word; /* the first CUDA-only name found, or NULL */
    bool guarded;     /* the source asks __CUDACC__ (or __CUDA_ARCH__): it may be both */
} CudaWord;

static bool find_cuda_word(void *ud, const char *s, size_t n) {
    static const char *const cuda_only[] = {"__device__",      "__global__",
                                            "__shared__",      "__forceinline__",
                                            "__syncthreads",   "__shfl_sync",
                                            "__shfl_xor_sync", "__half",
                                            "half2",           NULL};
    CudaWord *w = ud;
    if ((n == 10 && !strncmp(s, "__CUDACC__", n)) || (n == 13 && !strncmp(s, "__CUDA_ARCH__", n)))
        w->guarded = true;
    for (const char *const *c = cuda_only; *c && !w->word; c++)
        if (strlen(*c) == n && !strncmp(s, *c, n)) w->word = *c;
    return true;
}

/* A T.import_source text written for CUDA alone is an error at its T.import_source. */
static void check_imports(Ctx *ctx, const Func *f) {
    for (int i = 0; i < f->imports.len; i++) {
        CudaWord w = {0};
        c_source_idents(f->imports.data[i].text, find_cuda_word, &w);
        if (w.word && !w.guarded)
            ctx_fail(ctx, f->imports.data[i].loc,
                     "T.import_source: this source is CUDA code (it uses %s), and the C target "
                     "compiles C; give the C target a C version of its functions (one source "
                     "can serve both targets with #ifdef __CUDACC__)",
                     w.word);
    }
}

char *emit_c(Ctx *ctx, const Func *f) {
    check_imports(ctx, f);
    CEmit *ce = NEW(&ctx->arena, CEmit);
    CfEmit *em = &ce->cf;
    cf_init(em, ctx, f, &c_hooks);
    /* Free the heap buffers if a user error unwinds through here. */
    jmp_buf jb, *saved = ctx->on_error;
    if (CTX_TRY(ctx, &jb)) {
        sb_free(&ce->kbuf);
        sb_free(&ce->hbuf);
        ctx->on_error = saved;
        longjmp(*saved, 1);
    }
    cf_reserve_params(em);
    emit_entry(em);
    ctx->on_error = saved;
    StrBuf all = {0};
    sb_printf(&all,
              "/* Generated by tilec (target c) from %s: prim_func %s.\n"
              " * Build: cc -std=c11 -O2 -fPIC -shared -fopenmp -fwrapv */\n",
              f->loc.src && f->loc.src->name ? cf_comment_text(&ctx->arena, f->loc.src->name)
                                             : "<source>",
              f->name ? f->name : "main");
    sb_puts(&all, "#ifndef _GNU_SOURCE\n#define _GNU_SOURCE\n#endif\n"
                  "#ifdef __clang__ /* the prelude's helpers are used selectively */\n"
                  "#pragma clang diagnostic ignored \"-Wunused-function\"\n#endif\n");
    sb_puts(&all, embedded_tl_c_h);
    sb_puts(&all, "\n");
    cf_imports(em, &all, "tilec-kernel.c");
    sb_puts(&all, "\n/* ---- kernels ---- */\n\n");
    if (ce->kbuf.buf) sb_puts(&all, ce->kbuf.buf);
    sb_puts(&all, ce->hbuf.buf);
    char *res = arena_strdup(&ctx->arena, all.buf);
    sb_free(&all);
    sb_free(&ce->kbuf);
    sb_free(&ce->hbuf);
    return res;
}
