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
 * FlashMLA's ping-pong) has no such order: an error, not a different result.
 *
 * Requires: elaborated IR. Provides: no STMT_FENCE, STMT_SETMAXNREG, STMT_ASYNC,
 * STMT_PDL or STMT_NAMED_BAR (a named barrier's wait is an STMT_SYNC), and no STMT_MBAR or
 * barrier buffers but the cluster barriers of kernels of clusters of several blocks. */
#include "passes/passes.h"
#include "ir/ir_walk.h"

#include <string.h>

static void order_slot(Stmt **slot, void *ud);

typedef struct Order {
    Ctx *ctx;
    bool cluster; /* inside a kernel of clusters of several blocks */
} Order;

/* A cluster barrier of a kernel whose blocks run at once (clusters of several blocks):
 * its mbarrier and its operations stay (emit_c.c counts the arrivals of every block). */
static bool cluster_mbar(const Order *o, const Stmt *s) {
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

/* Regions i and later of seq: region i must not wait in a loop for a later one. */
static void check_region_order(Ctx *ctx, const Stmt *seq) {
    for (int i = 0; i < seq->u.seq.len; i++) {
        Stmt *r = seq->u.seq.data[i];
        if (r->kind != STMT_THREADS) continue;
        Waits w = {0};
        find_waits(&r, &w);
        if (!w.wait) continue;
        for (int j = i + 1; j < seq->u.seq.len; j++) {
            Stmt *later = seq->u.seq.data[j];
            Waits a = {.arrive = w.wait->u.mbar.bar};
            if (later->kind == STMT_THREADS) find_waits(&later, &a);
            if (a.arrival)
                ctx_fail(ctx, w.wait->loc,
                         "this region waits in a loop for mbarrier '%s', which a later region "
                         "(line %d) arrives on: the C target runs regions one after the other "
                         "and cannot run this protocol (it runs on CUDA)",
                         w.wait->u.mbar.bar->name, a.arrival->loc.line);
        }
    }
}

static void order_slot(Stmt **slot, void *ud) {
    Order *o = ud;
    Ctx *ctx = o->ctx;
    Stmt *s = *slot;
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
    if (s->kind == STMT_SEQ) check_region_order(ctx, s);
    bool outer = o->cluster;
    if (s->kind == STMT_KERNEL) o->cluster = ir_cluster_size(s) > 1;
    ir_stmt_children(s, order_slot, o);
    o->cluster = outer;
}

void pass_program_order(Ctx *ctx, Func *f) {
    Order o = {.ctx = ctx};
    if (f->body) order_slot(&f->body, &o);
}
