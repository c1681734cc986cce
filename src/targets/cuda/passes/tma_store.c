/* tma_store.c - on sm_90a, a T.copy of a whole shared tile into a global tensor (the
 * epilogue `T.copy(C_shared, C[...])`) becomes TMA stores: one thread hands the tile to
 * the copy engine box by box (Stmt.copy.tma with no barrier) and the block goes on.
 * Edges outside the tensor are clipped by the hardware.
 *
 * Ordering (the emitter's part, emit_cuda.c): the tile's writers fence their stores for
 * the async proxy before the barrier that pass_insert_sync_threads puts ahead of the
 * copy (which it sees as a read of the tile by every thread); the issuing thread waits
 * until its stores have read shared memory (tl_tma_store_wait_read) before each barrier
 * that may run after them (after the copy in program order, or in a loop that holds it),
 * so the barrier that orders the next write of the tile (the next column chunk, or the
 * next tile of a persistent block) after the copy also orders it after the engine's
 * reads; and once more before the kernel ends. The global writes are not waited for:
 * nothing in the kernel reads the tensor.
 *
 * Candidates (cuda_tma_store_candidate, which pass_infer_layouts also asks, to give the
 * tile a layout TMA reads: 64-column panels of 128-byte rows): the target lowers gemms to
 * wgmma (sm_90a) and the setting no_tma_store is off; the kernel has no T.ws regions; the
 * copy goes from a shared tile to a contiguous global tensor parameter of the same dtype,
 * with rows of a multiple of 16 bytes, that nothing else in the kernel reads (a TMA store
 * is not ordered with the kernel's own generic loads) or writes. pass_tma_store converts
 * the candidates whose tile TMA can read (pipe_tma_plan_tile).
 *
 * Requires: pass_infer_layouts (the tile's layout), pass_pipeline_async (a
 * warp-specialized kernel's consumer). Provides: Stmt.copy.tma on the converted copies,
 * their maps in the kernel's tensor maps. */
#include "ir/ir_walk.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

/* What the kernel does with one global buffer besides the copy being asked about. */
typedef struct Touch {
    const Buffer *buf;
    const Stmt *copy;
    bool other, regions;
} Touch;

static void touch_expr(Expr **slot, void *ud) {
    Touch *t = ud;
    if ((*slot)->kind == EXPR_LOAD && (*slot)->u.load.buf == t->buf) t->other = true;
    ir_expr_children(*slot, touch_expr, ud);
}

static void touch_stmt(Stmt **slot, void *ud) {
    Touch *t = ud;
    const Stmt *s = *slot;
    switch (s->kind) {
    case STMT_THREADS: t->regions = true; break;
    case STMT_STORE: t->other |= s->u.store.buf == t->buf; break;
    case STMT_COPY:
        t->other |= s != t->copy && (s->u.copy.src.buf == t->buf || s->u.copy.dst.buf == t->buf);
        break;
    case STMT_ATOMIC: t->other |= s->u.atomic.dst.buf == t->buf; break;
    case STMT_EXTERN: t->other |= ir_extern_points_to(s, t->buf, 3); break;
    case STMT_FILL: t->other |= s->u.fill.dst.buf == t->buf; break;
    case STMT_GEMM: t->other |= s->u.gemm.c.buf == t->buf; break;
    case STMT_REDUCE: t->other |= s->u.reduce.dst.buf == t->buf; break;
    case STMT_CUMSUM: t->other |= s->u.cumsum.dst.buf == t->buf; break;
    default: break;
    }
    ir_stmt_exprs((Stmt *)s, touch_expr, ud);
    ir_stmt_children((Stmt *)s, touch_stmt, ud);
}

static bool is_param(const Func *f, const Buffer *b) {
    for (int i = 0; i < f->params.len; i++)
        if (f->params.data[i].buf == ir_buffer_root(b)) return true;
    return false;
}

bool cuda_tma_store_candidate(const Options *o, const Func *f, Stmt *kernel, const Stmt *c) {
    if (c->kind != STMT_COPY || c->u.copy.tma || c->u.copy.async || c->u.copy.manual ||
        !options_wgmma(o) || o->no_tma_store)
        return false;
    const Buffer *S = c->u.copy.src.buf, *G = c->u.copy.dst.buf;
    int es = dtype_bytes(G->dtype);
    if (S->scope != SCOPE_SHARED || G->scope != SCOPE_GLOBAL || G->strides ||
        S->dtype != G->dtype || !is_param(f, G) || es <= 0 || 16 % es ||
        !ir_multiple_of(G->shape[G->ndim - 1], 16 / es)) /* TMA: rows of 16-byte multiples */
        return false;
    Touch t = {.buf = G, .copy = c};
    touch_stmt(&kernel->u.kernel.body, &t);
    return !t.other && !t.regions;
}

typedef struct Conv {
    Ctx *ctx;
    Func *f;
    Stmt *kernel;
} Conv;

static void convert_slot(Stmt **slot, void *ud) {
    Conv *cv = ud;
    Stmt *c = *slot;
    if (c->kind == STMT_COPY && cuda_tma_store_candidate(&cv->ctx->opts, cv->f, cv->kernel, c)) {
        TmaMap *m = pipe_tma_plan_tile(cv->ctx, cv->f, &c->u.copy.dst, &c->u.copy.src);
        if (!m) return;
        Buffer *T = c->u.copy.src.buf;
        if (!m->swizzle && T->align < 128) T->align = 128; /* a TMA source */
        if (m->buf->align < 16) m->buf->align = 16;        /* the map's base */
        pipe_add_tmaps(cv->ctx, cv->kernel, &m, 1);
        c->u.copy.tma = cv->kernel->u.kernel.ntmaps;
        return;
    }
    ir_stmt_children(c, convert_slot, ud);
}

static void kernel_slot(Stmt **slot, void *ud) {
    Conv *cv = ud;
    if ((*slot)->kind == STMT_KERNEL) {
        cv->kernel = *slot;
        ir_stmt_children(*slot, convert_slot, ud);
        return;
    }
    ir_stmt_children(*slot, kernel_slot, ud);
}

void pass_tma_store(Ctx *ctx, Func *f) {
    if (!f->body || !options_wgmma(&ctx->opts) || ctx->opts.no_tma_store) return;
    Conv cv = {ctx, f, NULL};
    kernel_slot(&f->body, &cv);
}
