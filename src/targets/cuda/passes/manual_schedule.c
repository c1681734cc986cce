/* manual_schedule.c - the CUDA target's lowering of kernels scheduled by hand with the
 * Tier 3 primitives (tileops_expert.c): T.ws regions, mbarriers, T.tma_copy,
 * T.wgmma_gemm, T.set_max_nreg, the raw T.ptx_wgmma_* (cuda_hand_scheduled).
 *
 * Such a kernel is left as written: its T.Pipelined loops run as serial loops (its
 * program pipelines itself), and neither the cp.async pipeline nor the automatic warp
 * specialization touch it. Per statement:
 *   - a T.tma_copy becomes a TMA copy (Stmt.copy.tma, a tensor map of the kernel) when
 *     the target has TMA (sm_90a) and the tile allows one (pipe_tma_plan), issued by
 *     the first thread that runs it, which expects its bytes on the barrier; otherwise
 *     it is a copy by all the threads that run it followed by their barrier, so that
 *     any one of them may then arrive for all (its bytes are not counted: there is no
 *     transaction to wait for);
 *   - a T.wgmma_gemm that did not get wgmma (pass_infer_layouts) is an error;
 *   - on sm_90a, T.set_max_nreg budgets that cannot all hold at once are an error
 *     (register_budgets: setmaxnreg.inc would wait forever);
 * (A T.wait_wgmma is the emitter's: it also fences the accumulators of the kernel's
 * T.wgmma_gemm.)
 *
 * Requires: pass_infer_layouts (swizzles and wgmma chosen). Runs before
 * pass_pipeline_async. */
#include "ir/ir_walk.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

typedef struct Manual {
    Ctx *ctx;
    Func *f;
    Stmt *kernel;
    bool tma; /* the target has TMA */
} Manual;

static bool scheduled_stmt(const Stmt *s);
static void scheduled_child(Stmt **slot, void *ud) { *(bool *)ud |= scheduled_stmt(*slot); }

static bool scheduled_stmt(const Stmt *s) {
    switch (s->kind) {
    case STMT_THREADS:
    case STMT_MBAR:
    case STMT_FENCE:
    case STMT_SETMAXNREG:
    case STMT_NAMED_BAR:
    case STMT_ASYNC: return true;
    case STMT_COPY: return s->u.copy.manual;
    case STMT_GEMM: return s->u.gemm.manual;
    case STMT_EXTERN: return !strncmp(s->u.extern_.name, "tl_wgmma_raw_", 13); /* T.ptx_wgmma */
    default: break;
    }
    bool any = false;
    ir_stmt_children((Stmt *)s, scheduled_child, &any);
    return any;
}

bool cuda_hand_scheduled(const Stmt *kernel) {
    return !kernel->u.kernel.producer_threads && scheduled_stmt(kernel->u.kernel.body);
}

/* A copy that is not TMA: by every thread that runs it, then their barrier. */
static void plain_copy(Manual *M, Stmt **slot) {
    Stmt *c = *slot, *seq = ir_seq(M->ctx, c->loc);
    c->u.copy.manual = false, c->u.copy.bar = NULL, c->u.copy.bar_idx = NULL;
    ir_seq_push(M->ctx, seq, c);
    ir_seq_push(M->ctx, seq, ir_stmt(M->ctx, STMT_SYNC, c->loc));
    *slot = seq;
}

static void tma_copy(Manual *M, Stmt **slot) {
    Stmt *c = *slot;
    TmaMap *m = M->tma ? pipe_tma_plan(M->ctx, M->f, c) : NULL;
    if (!m) {
        plain_copy(M, slot);
        return;
    }
    Buffer *T = c->u.copy.dst.buf;
    if (!m->swizzle && T->align < 128) T->align = 128; /* a TMA destination */
    if (m->buf->align < 16) m->buf->align = 16;        /* the map's base */
    pipe_add_tmaps(M->ctx, M->kernel, &m, 1);
    c->u.copy.tma = M->kernel->u.kernel.ntmaps;
    c->u.copy.async = true; /* ordered by its barrier, not by pass_insert_sync_threads */
}

void cuda_fail_manual_gemm(Ctx *ctx, const Stmt *s) {
    ctx_fail(ctx, s->loc, "T.wgmma_gemm: this gemm cannot run on wgmma %s",
             gemm_is_tf32(s) ? "(float32 operands run on mma.sync: no TF32 wgmma yet; use T.gemm)"
             : options_wgmma(&ctx->opts)
                 ? "(it needs A and B as shared tiles, column slices of constant ranges or K "
                   "slices of whole 64-column panels, A K-major with rows of 64 or 128 bytes, M "
                   "a multiple of 64 per warp group of the threads running it, N / warp groups "
                   "one of 16, 32, 64, 128, 192, 256, and no other gemm reading A or B but "
                   "alike)"
                 : "on this target (wgmma is sm_90a's, with the setting no_wgmma off; use "
                   "T.gemm)");
}

static void manual_stmt(Manual *M, Stmt **slot);
static void manual_slot(Stmt **slot, void *ud) { manual_stmt(ud, slot); }

static void manual_stmt(Manual *M, Stmt **slot) {
    Stmt *s = *slot;
    if (s->kind == STMT_FOR && s->u.for_.kind == LOOP_PIPELINED) s->u.for_.kind = LOOP_SERIAL;
    if (s->kind == STMT_GEMM && s->u.gemm.manual && !s->u.gemm.wgmma)
        cuda_fail_manual_gemm(M->ctx, s);
    if (s->kind == STMT_COPY && s->u.copy.manual) {
        tma_copy(M, slot);
        return;
    }
    ir_stmt_children(s, manual_slot, M);
}

/* ---- register budgets --------------------------------------------------------------------
 * A block launched with __launch_bounds__(T, 1) holds cuda_launch_regs(T) registers a
 * thread: its pool. setmaxnreg.inc waits until the pool has the registers, so the budgets
 * the warp groups ask for (the largest each asks for; the launch count for one that asks
 * none) must fit it together. */
enum { MAX_WARP_GROUPS = 8 };

typedef struct Budgets {
    int peak[MAX_WARP_GROUPS]; /* 0: none asked */
    const Stmt *inc;           /* the first T.inc_max_nreg, for the error's location */
    int lo, count;             /* the region being walked (count 0: the whole block) */
} Budgets;

static void budget_stmt(Budgets *B, const Stmt *s);
static void budget_child(Stmt **slot, void *ud) { budget_stmt(ud, *slot); }

static void budget_stmt(Budgets *B, const Stmt *s) {
    if (s->kind == STMT_THREADS && !s->u.threads.split) {
        int lo = B->lo, count = B->count;
        B->lo = s->u.threads.lo, B->count = s->u.threads.count;
        budget_stmt(B, s->u.threads.body);
        B->lo = lo, B->count = count;
        return;
    }
    if (s->kind == STMT_SETMAXNREG) {
        int first = B->lo / 128;
        int last = B->count ? (B->lo + B->count - 1) / 128 : MAX_WARP_GROUPS - 1;
        for (int g = first; g <= last && g < MAX_WARP_GROUPS; g++)
            if (s->u.setmaxnreg.regs > B->peak[g]) B->peak[g] = s->u.setmaxnreg.regs;
        if (s->u.setmaxnreg.inc && !B->inc) B->inc = s;
    }
    ir_stmt_children((Stmt *)s, budget_child, B);
}

static void register_budgets(Manual *M) {
    const int *th = M->kernel->u.kernel.threads;
    int nthreads = th[0] * th[1] * th[2], groups = (nthreads + 127) / 128;
    Budgets B = {{0}, NULL, 0, 0};
    budget_stmt(&B, M->kernel->u.kernel.body);
    int launch = cuda_launch_regs(nthreads);
    int64_t need = 0;
    StrBuf who = {0};
    for (int g = 0; g < groups && g < MAX_WARP_GROUPS; g++) {
        int r = B.peak[g] ? B.peak[g] : launch, n = g + 1 < groups ? 128 : nthreads - 128 * g;
        need += (int64_t)r * n;
        sb_printf(&who, "%sthreads %d..%d: %d", g ? ", " : "", 128 * g, 128 * g + n - 1, r);
    }
    if (B.inc && need > (int64_t)launch * nthreads) {
        char *text = arena_strdup(&M->ctx->arena, who.buf ? who.buf : "");
        sb_free(&who);
        ctx_fail(M->ctx, B.inc->loc,
                 "T.inc_max_nreg(%d): the warp groups' register budgets (%s) add up to %lld "
                 "registers, more than the %lld that a block of %d threads holds (%d a thread): "
                 "setmaxnreg.inc would wait forever; lower the budgets",
                 B.inc->u.setmaxnreg.regs, text, (long long)need, (long long)launch * nthreads,
                 nthreads, launch);
    }
    sb_free(&who);
}

void pass_manual_schedule(Ctx *ctx, Func *f) {
    Manual M = {ctx, f, NULL, options_arch_number(&ctx->opts) >= 90};
    if (!f->body || f->body->kind != STMT_SEQ) return;
    for (int i = 0; i < f->body->u.seq.len; i++) {
        Stmt *k = f->body->u.seq.data[i];
        if (k->kind != STMT_KERNEL || !cuda_hand_scheduled(k)) continue;
        M.kernel = k;
        if (M.tma) register_budgets(&M);
        manual_stmt(&M, &k->u.kernel.body);
    }
}

/* ---- one program per warp-group set (pass_split_warp_groups) ---------------------------
 * A hand-scheduled kernel whose code outside its T.ws regions is only control flow (serial
 * loops, ifs, lets, block barriers) after its set-up (allocations, barrier inits) runs as
 * one copy of that code per set of threads that the regions' bounds separate, each with
 * just the regions it belongs to: TileLang's lowering of T.ws. Each thread runs one copy;
 * the copies compute the same loop trips (uniform values), so they reach the same block
 * barriers. ptxas then sees each side's code apart, and a setmaxnreg moves registers
 * (in one shared copy, the producer's path reaches the consumers' code, and ptxas
 * ignores it: C7507). */
enum { MAX_GROUPS = 16 };

typedef struct Split {
    Ctx *ctx;
    int bounds[2 * MAX_GROUPS + 2], nbounds;
} Split;

/* Whether s, outside regions, is only control flow; its regions' bounds go to S. */
static bool skeleton(Split *S, const Stmt *s) {
    switch (s->kind) {
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++)
            if (!skeleton(S, s->u.seq.data[i])) return false;
        return true;
    case STMT_FOR:
        return (s->u.for_.kind == LOOP_SERIAL || s->u.for_.kind == LOOP_UNROLL) &&
               skeleton(S, s->u.for_.body);
    case STMT_IF:
        return skeleton(S, s->u.if_.then) && (!s->u.if_.orelse || skeleton(S, s->u.if_.orelse));
    case STMT_LET:
    case STMT_SYNC: return true;
    case STMT_THREADS:
        if (S->nbounds + 2 > (int)(sizeof S->bounds / sizeof *S->bounds)) return false;
        S->bounds[S->nbounds++] = s->u.threads.lo;
        S->bounds[S->nbounds++] = s->u.threads.lo + s->u.threads.count;
        return true;
    default: return false;
    }
}

static bool has_region(const Stmt *s);
static void region_child(Stmt **slot, void *ud) { *(bool *)ud |= has_region(*slot); }
static bool has_region(const Stmt *s) {
    bool any = s->kind == STMT_THREADS;
    if (!any) ir_stmt_children((Stmt *)s, region_child, &any);
    return any;
}

/* The copy of s that threads [lo, hi) run: their regions, the control flow around them. */
static Stmt *project(Split *S, Stmt *s, int lo, int hi) {
    Stmt *c;
    switch (s->kind) {
    case STMT_SEQ:
        c = ir_seq(S->ctx, s->loc);
        for (int i = 0; i < s->u.seq.len; i++)
            ir_seq_push(S->ctx, c, project(S, s->u.seq.data[i], lo, hi));
        return c;
    case STMT_FOR:
        c = ir_stmt(S->ctx, STMT_FOR, s->loc);
        c->u.for_ = s->u.for_;
        c->u.for_.body = project(S, s->u.for_.body, lo, hi);
        return c;
    case STMT_IF:
        c = ir_stmt(S->ctx, STMT_IF, s->loc);
        c->u.if_ = s->u.if_;
        c->u.if_.then = project(S, s->u.if_.then, lo, hi);
        if (s->u.if_.orelse) c->u.if_.orelse = project(S, s->u.if_.orelse, lo, hi);
        return c;
    case STMT_THREADS:
        return lo >= s->u.threads.lo && hi <= s->u.threads.lo + s->u.threads.count
                   ? s
                   : ir_seq(S->ctx, s->loc);
    default: return s; /* lets, block barriers */
    }
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static void split_kernel(Split *S, Stmt *k) {
    Stmt *body = k->u.kernel.body;
    int first = 0,
        nthreads = k->u.kernel.threads[0] * k->u.kernel.threads[1] * k->u.kernel.threads[2];
    while (first < body->u.seq.len && !has_region(body->u.seq.data[first])) first++;
    S->nbounds = 0;
    S->bounds[S->nbounds++] = 0;
    S->bounds[S->nbounds++] = nthreads;
    Stmt *rest = ir_seq(S->ctx, body->loc);
    for (int i = first; i < body->u.seq.len; i++) {
        if (!skeleton(S, body->u.seq.data[i])) return;
        ir_seq_push(S->ctx, rest, body->u.seq.data[i]);
    }
    qsort(S->bounds, (size_t)S->nbounds, sizeof *S->bounds, cmp_int);
    Stmt *chain = NULL, **tail = &chain;
    for (int i = 0; i + 1 < S->nbounds; i++) {
        int lo = S->bounds[i], hi = S->bounds[i + 1];
        if (lo == hi) continue;
        Stmt *g = ir_stmt(S->ctx, STMT_THREADS, rest->loc);
        g->u.threads.lo = lo, g->u.threads.count = hi - lo, g->u.threads.split = true;
        g->u.threads.body = project(S, rest, lo, hi);
        *tail = g;
        tail = &g->u.threads.orelse;
    }
    body->u.seq.len = first;
    ir_seq_push(S->ctx, body, chain);
}

void pass_split_warp_groups(Ctx *ctx, Func *f) {
    Split S = {ctx, {0}, 0};
    if (!f->body || f->body->kind != STMT_SEQ) return;
    for (int i = 0; i < f->body->u.seq.len; i++) {
        Stmt *k = f->body->u.seq.data[i];
        if (k->kind == STMT_KERNEL && k->u.kernel.body->kind == STMT_SEQ &&
            has_region(k->u.kernel.body))
            split_kernel(&S, k);
    }
}
