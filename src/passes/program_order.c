/* program_order.c - the C target's meaning of the Tier 3 primitives (tileops_expert.c).
 * A block runs in one CPU thread, in program order: a T.ws region (STMT_THREADS, kept:
 * emit_c.c runs its thread-level code in the region's threads only) runs its body there
 * like any other code, and what only orders threads or hints the hardware does nothing
 * (mbarrier operations, named barrier arrivals, T.fence_proxy_async, T.set_max_nreg,
 * T.wait_wgmma, T.pdl_trigger / T.pdl_sync: no launch of the C target depends on another's
 * start). A named barrier's wait (T.sync_threads(id, n)) becomes a plain barrier
 * (STMT_SYNC), which the C emitter keeps in mind: a branch on the thread index that
 * holds one runs as the range of threads it admits, its statements one after the other
 * in all of them (emit_c.c).
 * The exception: the cluster barriers (T.alloc_cluster_barrier) of a kernel whose
 * clusters have several blocks, which run at once (emit_c.c), stay real mbarriers.
 * T.tma_copy and T.ptx_cp_async_bulk are copies and T.wgmma_gemm a gemm. That is the reference result of every
 * program whose barrier protocol lets the code that comes first in the source run
 * first (a producer ahead of its consumers, as pipelines are written). A region that
 * waits, inside a loop of its own, on an mbarrier that a later region of the same
 * sequence arrives on (two regions that hand work back and forth for a whole loop,
 * FlashMLA's ping-pong) has no such order: such regions, when they follow one another,
 * become one STMT_THREADS (at_once) whose body is them, which emit_c.c runs at once, one
 * CPU thread per region, and that kernel keeps all its mbarriers; otherwise (other code
 * between them, clusters of several blocks) an error, not a different result.
 *
 * Requires: elaborated IR. Provides: no STMT_FENCE, STMT_SETMAXNREG, STMT_ASYNC,
 * STMT_PDL or STMT_NAMED_BAR (a named barrier's wait is an STMT_SYNC), and no STMT_MBAR or
 * barrier buffers but the cluster barriers of kernels of clusters of several blocks and
 * those of kernels with an at_once group. */
#include "passes/passes.h"
#include "ir/ir_walk.h"

#include <string.h>

static void order_slot(Stmt **slot, void *ud);

typedef struct Order {
    Ctx *ctx;
    bool cluster;    /* inside a kernel of clusters of several blocks */
    bool real_mbars; /* inside a kernel with regions at once: every mbarrier stays */
} Order;

/* A cluster barrier of a kernel whose blocks run at once (clusters of several blocks):
 * its mbarrier and its operations stay (emit_c.c counts the arrivals of every block). */
static bool cluster_mbar(const Order *o, const Stmt *s) {
    if (o->real_mbars)
        return s->kind == STMT_MBAR ||
               (s->kind == STMT_ALLOC && s->u.alloc.buf->scope == SCOPE_BARRIER);
    if (!o->cluster) return false;
    if (s->kind == STMT_MBAR) return s->u.mbar.bar->cluster_barrier;
    return s->kind == STMT_ALLOC && s->u.alloc.buf->cluster_barrier;
}

static bool hardware_only(const Order *o, const Stmt *s) {
    if (cluster_mbar(o, s)) return false;
    switch (s->kind) {
    case STMT_MBAR:
    case STMT_FENCE:
    case STMT_SETMAXNREG:
    case STMT_ASYNC:
    case STMT_TURN:
    case STMT_SPLITK:
    case STMT_PDL:
    case STMT_NAMED_BAR: return true;
    case STMT_ALLOC: return s->u.alloc.buf->scope == SCOPE_BARRIER;
    default: return false;
    }
}

/* ---- regions that no program order runs ------------------------------------------- */
typedef struct Waits {
    int loops;            /* loops around the statement walked, inside the region */
    const Stmt *wait;     /* the first wait found inside one of them */
    const Buffer *arrive; /* looking for arrivals on this barrier instead (else NULL) */
    const Stmt *arrival;
} Waits;

static void find_waits(Stmt **slot, void *ud) {
    Waits *w = ud;
    const Stmt *s = *slot;
    if (s->kind == STMT_MBAR && s->u.mbar.op != MBAR_INIT) {
        if (w->arrive && s->u.mbar.op != MBAR_WAIT && s->u.mbar.bar == w->arrive && !w->arrival)
            w->arrival = s;
        if (!w->arrive && s->u.mbar.op == MBAR_WAIT && w->loops && !w->wait) w->wait = s;
    }
    bool loop = s->kind == STMT_FOR || s->kind == STMT_WHILE;
    w->loops += loop;
    ir_stmt_children(*slot, find_waits, ud);
    w->loops -= loop;
}

/* Whether region i of seq waits in a loop for an mbarrier that a later region j arrives
 * on (the first such pair; *wait and *arrival the two operations). */
static bool ping_pong(const Stmt *seq, int *i, int *j, const Stmt **wait, const Stmt **arrival) {
    for (*i = 0; *i < seq->u.seq.len; ++*i) {
        Stmt *r = ir_only_stmt(seq->u.seq.data[*i]); /* (through a SEQ of one) */
        if (!r || r->kind != STMT_THREADS || r->u.threads.at_once) continue;
        Waits w = {0};
        find_waits(&r, &w);
        if (!w.wait) continue;
        for (*j = *i + 1; *j < seq->u.seq.len; ++*j) {
            Stmt *later = ir_only_stmt(seq->u.seq.data[*j]);
            Waits a = {.arrive = w.wait->u.mbar.bar};
            if (later && later->kind == STMT_THREADS) find_waits(&later, &a);
            if (a.arrival) return *wait = w.wait, *arrival = a.arrival, true;
        }
    }
    return false;
}

/* Regions i .. j of seq (each one a plain region) become one that runs them at once. */
static bool run_at_once(Ctx *ctx, Stmt *seq, int i, int j) {
    int lo = 1 << 30, hi = 0;
    for (int k = i; k <= j; k++) {
        const Stmt *r = ir_only_stmt(seq->u.seq.data[k]);
        if (!r || r->kind != STMT_THREADS || r->u.threads.split || r->u.threads.orelse)
            return false;
        lo = r->u.threads.lo < lo ? r->u.threads.lo : lo;
        hi = r->u.threads.lo + r->u.threads.count > hi ? r->u.threads.lo + r->u.threads.count : hi;
    }
    Stmt *group = ir_stmt(ctx, STMT_THREADS, seq->u.seq.data[i]->loc);
    group->u.threads.lo = lo, group->u.threads.count = hi - lo, group->u.threads.at_once = true;
    group->u.threads.body = ir_seq(ctx, group->loc);
    for (int k = i; k <= j; k++)
        ir_seq_push(ctx, group->u.threads.body, ir_only_stmt(seq->u.seq.data[k]));
    seq->u.seq.data[i] = group;
    for (int k = j + 1; k < seq->u.seq.len; k++) seq->u.seq.data[k - (j - i)] = seq->u.seq.data[k];
    seq->u.seq.len -= j - i;
    return true;
}

/* In a kernel's body: each sequence of regions that hand work back and forth runs at
 * once (the kernel's mbarriers then stay: o->real_mbars); what cannot is an error. */
static void group_ping_pongs(Stmt **slot, void *ud) {
    Order *o = ud;
    Stmt *s = *slot;
    int i, j;
    const Stmt *wait, *arrival;
    if (s->kind == STMT_THREADS && s->u.threads.at_once) { /* grouped: its regions' insides */
        Stmt *seq = s->u.threads.body;
        for (int k = 0; k < seq->u.seq.len; k++) group_ping_pongs(&seq->u.seq.data[k], ud);
        return;
    }
    while (s->kind == STMT_SEQ && ping_pong(s, &i, &j, &wait, &arrival)) {
        if (o->cluster || !run_at_once(o->ctx, s, i, j))
            ctx_fail(o->ctx, wait->loc,
                     "this region waits in a loop for mbarrier '%s', which a later region "
                     "(line %d) arrives on: the C target runs such regions at once only when "
                     "they follow one another%s (it runs on CUDA)",
                     wait->u.mbar.bar->name, arrival->loc.line,
                     o->cluster ? ", outside clusters of several blocks" : "");
        o->real_mbars = true;
    }
    ir_stmt_children(s, group_ping_pongs, ud);
}

static void order_slot(Stmt **slot, void *ud) {
    Order *o = ud;
    Ctx *ctx = o->ctx;
    Stmt *s = *slot;
    (void)ctx;
    if (s->kind == STMT_NAMED_BAR && !s->u.named_bar.arrive) {
        s->kind = STMT_SYNC; /* a barrier of the threads that run it (emit_c.c: synced_branches) */
        return;
    }
    if (hardware_only(o, s)) {
        *slot = ir_seq(ctx, s->loc);
        return;
    }
    if (s->kind == STMT_EXTERN && !strcmp(s->u.extern_.name, "tl_bulk_copy"))
        s->u.extern_.nargs = 3; /* T.ptx_cp_async_bulk: a copy; its barrier goes */
    if (s->kind == STMT_COPY)
        s->u.copy.manual = false, s->u.copy.bar = NULL, s->u.copy.bar_idx = NULL;
    if (s->kind == STMT_GEMM) s->u.gemm.manual = false;
    bool outer = o->cluster, outer_real = o->real_mbars;
    if (s->kind == STMT_KERNEL) {
        o->cluster = ir_cluster_size(s) > 1, o->real_mbars = false;
        group_ping_pongs(&s->u.kernel.body, o);
    }
    ir_stmt_children(s, order_slot, o);
    o->cluster = outer, o->real_mbars = outer_real;
}

void pass_program_order(Ctx *ctx, Func *f) {
    Order o = {.ctx = ctx};
    if (f->body) order_slot(&f->body, &o);
}
