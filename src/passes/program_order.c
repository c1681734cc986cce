/* program_order.c - the C target's meaning of the Tier 3 primitives (tileops_expert.c).
 * A block runs in one CPU thread, in program order: a T.ws region runs its body there
 * like any other code, and what only orders threads or hints the hardware does nothing
 * (mbarrier operations and barriers, named ones too, T.fence_proxy_async, T.set_max_nreg, T.wait_wgmma,
 * T.pdl_trigger / T.pdl_sync: no launch of the C target depends on another's start).
 * T.tma_copy and T.ptx_cp_async_bulk are copies and T.wgmma_gemm a gemm. That is the reference result of every
 * program whose barrier protocol lets the code that comes first in the source run
 * first (a producer ahead of its consumers, as pipelines are written).
 *
 * Requires: elaborated IR. Provides: no STMT_THREADS, STMT_MBAR, STMT_FENCE,
 * STMT_SETMAXNREG, STMT_ASYNC, STMT_PDL, STMT_NAMED_BAR or barrier buffers. */
#include "passes/passes.h"
#include "ir/ir_walk.h"

#include <string.h>

static void order_slot(Stmt **slot, void *ud);

static bool hardware_only(const Stmt *s) {
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

static void order_slot(Stmt **slot, void *ud) {
    Ctx *ctx = ud;
    Stmt *s = *slot;
    if (hardware_only(s)) {
        *slot = ir_seq(ctx, s->loc);
        return;
    }
    if (s->kind == STMT_THREADS) *slot = s = s->u.threads.body;
    if (s->kind == STMT_EXTERN && !strcmp(s->u.extern_.name, "tl_bulk_copy"))
        s->u.extern_.nargs = 3; /* T.ptx_cp_async_bulk: a copy; its barrier goes */
    if (s->kind == STMT_COPY)
        s->u.copy.manual = false, s->u.copy.bar = NULL, s->u.copy.bar_idx = NULL;
    if (s->kind == STMT_GEMM) s->u.gemm.manual = false;
    ir_stmt_children(s, order_slot, ctx);
}

void pass_program_order(Ctx *ctx, Func *f) {
    if (f->body) order_slot(&f->body, ctx);
}
