/* chunk_staging.c - an epilogue staged through shared memory, in chunks when the whole
 * staging tile would not fit beside the pipeline.
 *
 * The canonical Hopper epilogue is
 *     T.copy(C_local, C_shared)          # a fragment into a shared tile of its shape
 *     T.copy(C_shared, C[by * bM, bx * bN])
 * A warp-specialized kernel keeps its pipeline's stages live for the whole kernel (the
 * producer runs ahead into the next tile), so C_shared cannot reuse their bytes: with
 * 4 stages of 256x128x64 fp16 tiles (192 KB) a 64 KB C_shared does not fit in 227 KB.
 * This pass then stages the tile a column chunk at a time:
 *     for h in T.unroll(H):
 *         T.copy(C_local[0:bM, h * w : h * w + w], C_shared')    # C_shared' is bM x w
 *         T.copy(C_shared', C[by * bM, bx * bN + h * w])
 * which is the same computation (the barriers between chunks come from
 * pass_insert_sync_threads). Column chunks of a wgmma accumulator are register windows
 * (frag_window: every thread holds a part of each chunk), so each chunk is written by all
 * threads; H is the smallest power of two that fits, chunks at least 8 columns wide.
 *
 * Applies on sm_90a (options_wgmma) to a pair of statements of one sequence, outside
 * any pipelined loop, where the shared tile is used by these two copies only, the fragment
 * is the accumulator of a T.gemm, and the kernel's estimated shared memory (each shared
 * buffer copied into inside a T.Pipelined loop counted num_stages times) is over the
 * limit. Runs before pass_lower_tile_ops. */
#include "targets/cuda/passes/cuda_passes.h"
#include "ir/ir_walk.h"

/* Shared memory a block of sm_90 may have (the opt-in dynamic maximum). */
enum { SM90_SMEM_BYTES = 232448, MIN_CHUNK_COLS = 8 };

typedef struct Uses {
    const Buffer *buf;
    int count;
} Uses;

static void uses_region(Region *r, void *ud) {
    Uses *u = ud;
    u->count += r->buf == u->buf;
}

static void uses_expr(Expr **slot, void *ud) {
    Uses *u = ud;
    if ((*slot)->kind == EXPR_LOAD) u->count += (*slot)->u.load.buf == u->buf;
    ir_expr_children(*slot, uses_expr, ud);
}

static void uses_stmt(Stmt **slot, void *ud) {
    Stmt *s = *slot;
    Uses *u = ud;
    if (s->kind == STMT_STORE) u->count += s->u.store.buf == u->buf;
    if (s->kind != STMT_ALLOC) {
        ir_stmt_regions(s, uses_region, ud);
        ir_stmt_exprs(s, uses_expr, ud);
    }
    ir_stmt_children(s, uses_stmt, ud);
}

/* References to b in s (its allocation aside). */
static int uses_of(Stmt *s, const Buffer *b) {
    Uses u = {b, 0};
    uses_stmt(&s, &u);
    return u.count;
}

static int64_t buffer_bytes(const Buffer *b) {
    int64_t n = dtype_bytes(b->dtype), e;
    for (int d = 0; d < b->ndim; d++) n *= ir_is_const_int(b->shape[d], &e) ? e : 0;
    return n;
}

/* ---- the estimate -------------------------------------------------------------------------- */
typedef struct Estimate {
    Vec(const Buffer *) shared;
    Vec(int) stages;
    Vec(const Buffer *) accumulators; /* C operands of T.gemm */
} Estimate;

static void estimate_stmt(Ctx *ctx, Estimate *E, Stmt *s, int stages) {
    if (s->kind == STMT_ALLOC && s->u.alloc.buf->scope == SCOPE_SHARED) {
        VEC_PUSH(&ctx->arena, E->shared, s->u.alloc.buf);
        VEC_PUSH(&ctx->arena, E->stages, 1);
    } else if (s->kind == STMT_COPY && stages > 1) {
        for (int i = 0; i < E->shared.len; i++)
            if (E->shared.data[i] == s->u.copy.dst.buf && E->stages.data[i] < stages)
                E->stages.data[i] = stages;
    } else if (s->kind == STMT_GEMM) {
        VEC_PUSH(&ctx->arena, E->accumulators, s->u.gemm.c.buf);
    } else if (s->kind == STMT_FOR && s->u.for_.kind == LOOP_PIPELINED) {
        stages = s->u.for_.num_stages;
    }
    if (s->kind == STMT_SEQ)
        for (int i = 0; i < s->u.seq.len; i++) estimate_stmt(ctx, E, s->u.seq.data[i], stages);
    else if (s->kind == STMT_FOR) estimate_stmt(ctx, E, s->u.for_.body, stages);
    else if (s->kind == STMT_IF) {
        estimate_stmt(ctx, E, s->u.if_.then, stages);
        if (s->u.if_.orelse) estimate_stmt(ctx, E, s->u.if_.orelse, stages);
    }
}

static int64_t estimated_bytes(const Estimate *E) {
    int64_t total = 0;
    for (int i = 0; i < E->shared.len; i++)
        total += (buffer_bytes(E->shared.data[i]) + 127) / 128 * 128 * E->stages.data[i];
    return total;
}

/* ---- the rewrite --------------------------------------------------------------------------- */
/* The staging pair s1, s2 (F -> S, S -> global) of kernel k, or false. */
static bool staging_pair(Stmt *k, const Estimate *E, const Stmt *s1, const Stmt *s2) {
    if (s1->kind != STMT_COPY || s2->kind != STMT_COPY) return false;
    const Region *f = &s1->u.copy.src, *sh = &s1->u.copy.dst;
    bool acc = false;
    for (int i = 0; i < E->accumulators.len; i++) acc |= E->accumulators.data[i] == f->buf;
    int64_t rows, cols, r2, c2;
    return acc && f->buf->scope == SCOPE_FRAGMENT && sh->buf->scope == SCOPE_SHARED &&
           f->buf->ndim == 2 && sh->buf->ndim == 2 && ir_region_whole(f) && ir_region_whole(sh) &&
           ir_is_const_int(sh->buf->shape[0], &rows) && ir_is_const_int(sh->buf->shape[1], &cols) &&
           ir_is_const_int(f->buf->shape[0], &r2) && ir_is_const_int(f->buf->shape[1], &c2) &&
           rows == r2 && cols == c2 && s2->u.copy.src.buf == sh->buf &&
           ir_region_whole(&s2->u.copy.src) && s2->u.copy.dst.buf->scope == SCOPE_GLOBAL &&
           s2->u.copy.dst.ndim >= 2 && uses_of(k, sh->buf) == 2;
}

/* The chunk count for a staging tile of `bytes` with `cols` columns, or 0 if none fits. */
static int chunk_count(int64_t over, int64_t bytes, int64_t cols) {
    for (int h = 2; cols % h == 0 && cols / h >= MIN_CHUNK_COLS; h *= 2)
        if (bytes - bytes / h >= over) return h;
    return 0;
}

static Expr *plus(Ctx *ctx, const Expr *a, Expr *b, Loc loc) {
    return ir_bin(ctx, OP_ADD, ir_subst(ctx, a, NULL, NULL), b, loc);
}

/* for h in unroll(H): { F[:, h w : +w] -> S; S -> G[..., start + h w : +w] }, S now w wide. */
static Stmt *chunked(Ctx *ctx, Stmt *s1, Stmt *s2, int H) {
    Loc loc = s1->loc;
    Buffer *S = s1->u.copy.dst.buf;
    int64_t cols;
    ir_is_const_int(S->shape[1], &cols);
    int64_t w = cols / H;
    S->shape[1] = ir_int(ctx, w, DT_INT32, loc);
    s1->u.copy.dst.extent[1] = ir_int(ctx, w, DT_INT32, loc);
    s2->u.copy.src.extent[1] = ir_int(ctx, w, DT_INT32, loc);
    Var *h = ir_var(ctx, "h", DT_INT32);
    Expr *off = ir_bin(ctx, OP_MUL, ir_varref(ctx, h, loc), ir_int(ctx, w, DT_INT32, loc), loc);
    Region *f = &s1->u.copy.src, *g = &s2->u.copy.dst;
    f->start[1] = off;
    f->extent[1] = ir_int(ctx, w, DT_INT32, loc);
    int last = g->ndim - 1; /* the global region's column dimension */
    g->start[last] = plus(ctx, g->start[last], ir_subst(ctx, off, NULL, NULL), loc);
    g->extent[last] = ir_int(ctx, w, DT_INT32, loc);
    Stmt *body = ir_seq(ctx, loc), *loop = ir_stmt(ctx, STMT_FOR, loc);
    ir_seq_push(ctx, body, s1);
    ir_seq_push(ctx, body, s2);
    loop->u.for_.var = h;
    loop->u.for_.min = ir_int(ctx, 0, DT_INT32, loc);
    loop->u.for_.extent = ir_int(ctx, H, DT_INT32, loc);
    loop->u.for_.kind = LOOP_UNROLL;
    loop->u.for_.body = body;
    return loop;
}

/* The global region's last dimension is the tile's columns (a squeezed region, e.g. one of
 * C[b, ...], keeps them last). */
static bool columns_last(const Stmt *s2, int64_t cols) {
    int64_t e;
    const Region *g = &s2->u.copy.dst;
    return ir_is_const_int(g->extent[g->ndim - 1], &e) && e == cols;
}

static void chunk_seq(Ctx *ctx, Stmt *k, const Estimate *E, Stmt *s, int64_t *over) {
    if (*over <= 0) return;
    if (s->kind == STMT_FOR && s->u.for_.kind == LOOP_PIPELINED) return;
    if (s->kind == STMT_FOR) chunk_seq(ctx, k, E, s->u.for_.body, over);
    if (s->kind != STMT_SEQ) return;
    for (int i = 0; i < s->u.seq.len; i++) {
        Stmt *s1 = s->u.seq.data[i], *s2 = i + 1 < s->u.seq.len ? s->u.seq.data[i + 1] : NULL;
        chunk_seq(ctx, k, E, s1, over);
        if (!s2 || !staging_pair(k, E, s1, s2)) continue;
        const Buffer *S = s1->u.copy.dst.buf;
        int64_t cols, bytes = (buffer_bytes(S) + 127) / 128 * 128;
        ir_is_const_int(S->shape[1], &cols);
        int H = columns_last(s2, cols) ? chunk_count(*over, bytes, cols) : 0;
        if (!H) continue;
        s->u.seq.data[i] = chunked(ctx, s1, s2, H);
        for (int j = i + 1; j + 1 < s->u.seq.len; j++) s->u.seq.data[j] = s->u.seq.data[j + 1];
        s->u.seq.len--;
        *over -= bytes - bytes / H;
    }
}

static void chunk_kernels(Stmt **slot, void *ud) {
    Ctx *ctx = ud;
    Stmt *s = *slot;
    if (s->kind != STMT_KERNEL) {
        ir_stmt_children(s, chunk_kernels, ctx);
        return;
    }
    Estimate E = {0};
    estimate_stmt(ctx, &E, s->u.kernel.body, 1);
    int64_t over = estimated_bytes(&E) - SM90_SMEM_BYTES;
    chunk_seq(ctx, s, &E, s->u.kernel.body, &over);
}

void pass_chunk_staging(Ctx *ctx, Func *f) {
    if (f->body && options_wgmma(&ctx->opts)) chunk_kernels(&f->body, ctx);
}
