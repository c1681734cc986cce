/* stage_operands.c - gemm operands that tensor cores cannot read where they are, staged
 * through shared memory.
 *
 * The tensor-core gemms (tl_gemm_ss / tl_gemm_rs / tl_wgmma_ss) read B from shared
 * memory, and A from shared memory or, not transposed and not int8, from registers. A
 * T.gemm whose B is a fragment (or whose A is a fragment they cannot read) would run as
 * scalar loops, orders of magnitude slower; this pass rewrites it as
 *     T.copy(B_frag[region], B_staged)      # a fresh shared tile of the region's shape
 *     T.gemm(A, B_staged, C, ...)
 * which computes the same (the barriers come from pass_insert_sync_threads; the copy is
 * a layout nest, with stmatrix where its layout allows). Only where the rewritten gemm
 * is one the target keeps (cuda_keep_tile_op). Runs before pass_lower_tile_ops. */
#include "targets/cuda/passes/cuda_passes.h"
#include "ir/ir_walk.h"

typedef struct Stage {
    Ctx *ctx;
    StmtList allocs; /* of the kernel being rewritten */
} Stage;

/* A shared tile with the shape of r's non-unit dimensions, or NULL if they are not two
 * constants. */
static Buffer *staging_tile(Ctx *ctx, const Region *r, Loc loc) {
    int dims[8];
    if (r->ndim > 8 || ir_region_squeeze(r, dims) != 2) return NULL;
    Buffer *t = ir_buffer(ctx, arena_printf(&ctx->arena, "%s_staged", r->buf->name), r->buf->dtype,
                          SCOPE_SHARED, 2, loc);
    for (int k = 0; k < 2; k++) {
        int64_t e;
        if (!ir_is_const_int(r->extent[dims[k]], &e)) return NULL;
        t->shape[k] = ir_int(ctx, e, DT_INT32, loc);
    }
    return t;
}

static Region whole(Ctx *ctx, Buffer *b) {
    Region r = {.buf = b, .ndim = b->ndim};
    r.start = NEW_ARRAY(&ctx->arena, Expr *, b->ndim);
    r.extent = NEW_ARRAY(&ctx->arena, Expr *, b->ndim);
    for (int d = 0; d < b->ndim; d++) {
        r.start[d] = ir_int(ctx, 0, DT_INT32, b->shape[d]->loc);
        r.extent[d] = ir_subst(ctx, b->shape[d], NULL, NULL);
    }
    return r;
}

/* A gemm, its operands that need staging replaced by staged tiles if it is then kept:
 * the copies into them (in *pre) and their allocations (S->allocs). */
static void stage_gemm(Stage *S, Stmt *g, StmtList *pre) {
    Region *ops[2], saved[2];
    Buffer *tiles[2];
    int n = 0;
    if (g->u.gemm.a.buf->scope == SCOPE_FRAGMENT &&
        (g->u.gemm.trans_a || g->u.gemm.a.buf->dtype == DT_INT8))
        ops[n++] = &g->u.gemm.a;
    if (g->u.gemm.b.buf->scope == SCOPE_FRAGMENT) ops[n++] = &g->u.gemm.b;
    for (int i = 0; i < n; i++)
        if (!(tiles[i] = staging_tile(S->ctx, ops[i], g->loc))) return;
    for (int i = 0; i < n; i++) saved[i] = *ops[i], *ops[i] = whole(S->ctx, tiles[i]);
    if (!n || !cuda_keep_tile_op(g)) {
        for (int i = 0; i < n; i++) *ops[i] = saved[i];
        return;
    }
    for (int i = 0; i < n; i++) {
        Stmt *a = ir_stmt(S->ctx, STMT_ALLOC, g->loc), *c = ir_stmt(S->ctx, STMT_COPY, g->loc);
        a->u.alloc.buf = tiles[i];
        VEC_PUSH(&S->ctx->arena, S->allocs, a);
        c->u.copy.src = saved[i];
        c->u.copy.dst = whole(S->ctx, tiles[i]);
        VEC_PUSH(&S->ctx->arena, *pre, c);
    }
}

static void stage_slot(Stmt **slot, void *ud) {
    Stage *S = ud;
    Stmt *s = *slot;
    if (s->kind != STMT_GEMM) {
        ir_stmt_children(s, stage_slot, ud);
        return;
    }
    if (cuda_keep_tile_op(s)) return;
    StmtList pre = {0};
    stage_gemm(S, s, &pre);
    if (!pre.len) return;
    Stmt *seq = ir_seq(S->ctx, s->loc);
    for (int i = 0; i < pre.len; i++) ir_seq_push(S->ctx, seq, pre.data[i]);
    ir_seq_push(S->ctx, seq, s);
    *slot = seq;
}

static void stage_kernels(Stmt **slot, void *ud) {
    Ctx *ctx = ud;
    Stmt *k = *slot;
    if (k->kind != STMT_KERNEL) {
        ir_stmt_children(k, stage_kernels, ud);
        return;
    }
    Stage S = {.ctx = ctx};
    stage_slot(&k->u.kernel.body, &S);
    if (!S.allocs.len) return;
    Stmt *seq = ir_seq(ctx, k->u.kernel.body->loc); /* the tiles first, as T.alloc_shared */
    for (int i = 0; i < S.allocs.len; i++) ir_seq_push(ctx, seq, S.allocs.data[i]);
    ir_seq_push(ctx, seq, k->u.kernel.body);
    k->u.kernel.body = seq;
}

void pass_stage_gemm_operands(Ctx *ctx, Func *f) {
    if (f->body) stage_kernels(&f->body, ctx);
}
