/* pipeline_async.c - the CUDA target's tile copies between global and shared memory:
 * which run as vector copies (cuda_copy_vector), and software pipelining of T.Pipelined
 * loops with cp.async (pass_pipeline_async).
 *
 * A kept T.copy moves whole 4-, 8- or 16-byte vectors: the regions' last dimensions are
 * their buffers' contiguous ones, and every vector is provably aligned (the extents, the
 * row lengths and the starts of the last dimension are multiples of the vector). A
 * vector lies wholly inside or wholly outside the global tensor, so one bounds check
 * per vector keeps T.copy's semantics (zeros read outside, nothing written outside).
 *
 * Pipelining. A T.Pipelined(n, num_stages=S), 2 <= S <= 8, loop whose body begins with kept
 * copies global -> shared, into shared buffers that nothing else in the kernel writes and
 * nothing outside the loop reads, becomes (stage(k) = (k - min) % S):
 *     sync
 *     for s in 0 .. S-2:  if s < n: copies of iteration min+s into stage s;  commit
 *     for k in loop:
 *         wait(S-2); sync            -- iteration k's tiles landed, stage(k-1) is free
 *         if k+S-1 < min+n: copies of iteration k+S-1 into stage(k+S-1);  commit
 *         rest of the body, reading stage(k)
 *     wait(0)
 * A wgmma gemm of the body on the pipelined tiles whose accumulator nothing else in the
 * loop touches (nor clears: clear_accum) stays in flight into the next iteration
 * (Stmt.gemm.inflight: each call waits for the previous one); loads then run S - 2
 * iterations ahead instead of S - 1, so a refill never hits the stage the running wgmma
 * reads, and a wgmma wait follows the loop. Each such buffer gets a leading dimension of
 * S (multi-buffering). The copies become cp.async (Stmt.copy.async); groups are committed
 * even when empty, so wait(S-2) at iteration k always means "iteration k's group is
 * complete". The barrier at the top both publishes iteration k's tiles and ends every
 * read of the stage the iteration refills, so pass_insert_sync_threads ignores async
 * copies. When the body is just the copies and an mma.sync gemm of the tiles (the GEMM
 * mainloop), the wait and barrier of iteration k + 1 happen instead inside iteration k's
 * gemm, after its last fragment loads and before its last mmas (Stmt.gemm.pipe_wait; the
 * first ones before the loop), so the warps meet at the barrier with mmas still in their
 * tensor pipes.
 *
 * On sm_90a a kernel is first offered to pipe_warp_specialize (warp_specialize.c: TMA
 * and mbarriers instead, in a producer warp group); what it does not take gets this.
 *
 * Requires: pass_infer_layouts (runs after it: swizzles are chosen on the 2-D tiles;
 * tl_swizzle of a stacked tile is the tile's, as a tile is a whole number of swizzle
 * patterns). Provides: STMT_ASYNC statements, async copies only in the shape above. */
#include "ir/ir_walk.h"
#include "pipeline.h"

enum { MAX_DIMS = 8, MAX_STAGES = 8 /* deeper loops run unpipelined */ };

/* ---- vector copies ---------------------------------------------------------------------- */
/* The last dimension of r is its buffer's last, contiguous one, and non-unit. */
static bool last_contiguous(const Region *r, const int *dims, int n) {
    return n > 0 && dims[n - 1] == r->ndim - 1 && r->ndim == r->buf->ndim && !r->buf->strides;
}

/* The row length may be a symbolic size that pass_assume_aligned assumed aligned. */
static bool vector_fits(const Region *r, int last, int64_t v) {
    int64_t e;
    return ir_is_const_int(r->extent[last], &e) && e % v == 0 &&
           ir_multiple_of(r->buf->shape[last], v) && ir_multiple_of(r->start[last], v);
}

int cuda_copy_vector(const Stmt *s) {
    if (s->kind != STMT_COPY) return 0;
    const Region *src = &s->u.copy.src, *dst = &s->u.copy.dst;
    const Buffer *sb = src->buf, *db = dst->buf;
    bool down = sb->scope == SCOPE_GLOBAL && db->scope == SCOPE_SHARED;
    bool up = sb->scope == SCOPE_SHARED && db->scope == SCOPE_GLOBAL;
    int es = dtype_bytes(sb->dtype);
    if ((!down && !up) || sb->dtype != db->dtype || sb->dtype == DT_BOOL || es <= 0 || es > 16 ||
        sb->safe_value || db->safe_value || src->ndim > MAX_DIMS || dst->ndim > MAX_DIMS ||
        sb->addr || db->addr) /* T.make_tensor: no launch checks the address's alignment */
        return 0;
    int ds[MAX_DIMS], dd[MAX_DIMS];
    int ns = ir_region_squeeze(src, ds), nd = ir_region_squeeze(dst, dd);
    if (ns != nd || !last_contiguous(src, ds, ns) || !last_contiguous(dst, dd, nd)) return 0;
    for (int k = 0; k < ns; k++) {
        int64_t a, b;
        if (!ir_is_const_int(src->extent[ds[k]], &a) || !ir_is_const_int(dst->extent[dd[k]], &b) ||
            a != b)
            return 0;
    }
    for (int64_t v = 16 / es; v * es >= 4; v /= 2)
        if (vector_fits(src, ds[ns - 1], v) && vector_fits(dst, dd[nd - 1], v)) return (int)v;
    return 0;
}

/* ---- pipelining ---------------------------------------------------------------------------- */
/* Why a copy global -> shared of a loop body cannot run first (hoistable). */
typedef enum {
    KEPT_NOT_VECTOR = 1, /* not a whole shared tile in 4-, 8- or 16-byte vectors */
    KEPT_SRC_WRITTEN,    /* the kernel writes its source */
    KEPT_TILE_USED,      /* a statement before it uses its tile */
    KEPT_INDEX_LOADS,    /* its indices read memory */
    KEPT_MANY_LETS,      /* more lets before it than hoist_producers records */
} Kept;

typedef struct Pipe {
    Ctx *ctx;
    Func *f;
    Stmt *kernel;
    struct {
        const Stmt *loop, *copy;
        Kept why;
    } kept[8]; /* the first such copy of each
                                                             pipelined loop (its remark) */
    int nkept;
} Pipe;

/* Counts the statements of s (outside `skip`) that touch b: writes (stores, atomics,
 * copies into it) and reads (loads, copies and gemms from it). */
typedef struct Touch {
    const Buffer *b;
    const Stmt *skip;
    int writes, reads;
} Touch;

static void touch_expr(Expr **slot, void *ud) {
    Touch *t = ud;
    const Expr *e = *slot;
    if (e->kind == EXPR_LOAD && e->u.load.buf == t->b) t->reads++;
    ir_expr_children((Expr *)e, touch_expr, ud);
}

/* A tile op the pipeline does not rewrite counts as a read and a write of its buffers. */
static void touch_any(Touch *t, bool touches) { t->reads += touches, t->writes += touches; }

static void touch_stmt(Stmt **slot, void *ud) {
    Touch *t = ud;
    Stmt *s = *slot;
    if (s == t->skip) return;
    switch (s->kind) {
    case STMT_STORE: t->writes += s->u.store.buf == t->b; break;
    case STMT_ATOMIC: t->writes += s->u.atomic.dst.buf == t->b; break;
    case STMT_COPY:
        t->writes += s->u.copy.dst.buf == t->b;
        t->reads += s->u.copy.src.buf == t->b;
        break;
    case STMT_GEMM:
        t->reads += s->u.gemm.a.buf == t->b || s->u.gemm.b.buf == t->b ||
                    s->u.gemm.e.buf == t->b; /* (T.gemm_sp's metadata) */
        t->writes += s->u.gemm.c.buf == t->b;
        break;
    case STMT_REDUCE: /* on a pipelined tile (pipe_restage does not restage them): refuse */
        touch_any(t, s->u.reduce.src.buf == t->b || s->u.reduce.dst.buf == t->b ||
                         s->u.reduce.workspace == t->b);
        break;
    case STMT_CUMSUM:
        touch_any(t, s->u.cumsum.src.buf == t->b || s->u.cumsum.dst.buf == t->b);
        break;
    case STMT_FILL: touch_any(t, s->u.fill.dst.buf == t->b); break;
    case STMT_PRINT: touch_any(t, s->u.print.region.buf == t->b); break;
    case STMT_EXTERN: touch_any(t, ir_extern_points_to(s, t->b, 3)); break;
    default: break;
    }
    ir_stmt_exprs(s, touch_expr, ud);
    ir_stmt_children(s, touch_stmt, ud);
}

/* Whether anything in kernel writes the global tensor copy c reads: a prefetch of it
 * could then read what an earlier iteration has not written yet. */
static bool source_written(Stmt *kernel, const Stmt *c) {
    Touch t = {c->u.copy.src.buf, NULL, 0, 0};
    touch_stmt(&kernel->u.kernel.body, &t);
    return t.writes > 0;
}

int pipe_producer_count(Stmt *kernel, Stmt *L) {
    Stmt *body = L->u.for_.body;
    if (body->kind != STMT_SEQ) return 0;
    int n = 0;
    for (; n < body->u.seq.len; n++) {
        Stmt *c = body->u.seq.data[n];
        if (c->kind != STMT_COPY || c->u.copy.src.buf->scope != SCOPE_GLOBAL ||
            !cuda_copy_vector(c) || !ir_region_whole(&c->u.copy.dst) || source_written(kernel, c))
            break;
        const Buffer *b = c->u.copy.dst.buf;
        Touch in = {b, c, 0, 0}, all = {b, L, 0, 0};
        touch_stmt(&L->u.for_.body, &in);
        touch_stmt(&kernel->u.kernel.body, &all);
        if (in.writes || all.reads || all.writes) break;
        for (int k = 0; k < n; k++)
            if (body->u.seq.data[k]->u.copy.dst.buf == b) return k;
    }
    return n;
}

/* ---- producers first ------------------------------------------------------------------ */
/* The lets of the loop body before the statement being looked at: var -> value, with the
 * earlier lets inlined; value NULL when it loads (a copy that needs it stays). A body
 * with more lets than MAX_LETS moves no copy past the later ones. */
enum { MAX_LETS = 64 };
typedef struct Lets {
    const Var *var[MAX_LETS];
    Expr *value[MAX_LETS];
    int n;
    bool full;
} Lets;

typedef struct Inline {
    Ctx *ctx;
    const Lets *lets;
    Stmt *kernel; /* non-NULL: loads of global tensors it never writes may stay */
    bool ok;
} Inline;

static bool read_only(Stmt *kernel, const Buffer *b) {
    Touch t = {b, NULL, 0, 0};
    touch_stmt(&kernel->u.kernel.body, &t);
    return b->scope == SCOPE_GLOBAL && t.writes == 0;
}

static void inline_slot(Expr **slot, void *ud) {
    Inline *in = ud;
    Expr *e = *slot;
    if (e->kind == EXPR_LOAD && !(in->kernel && read_only(in->kernel, e->u.load.buf)))
        in->ok = false;
    if (e->kind == EXPR_VAR)
        for (int i = 0; i < in->lets->n; i++)
            if (in->lets->var[i] == e->u.var) {
                if (!in->lets->value[i]) in->ok = false;
                else *slot = ir_subst(in->ctx, in->lets->value[i], NULL, NULL);
                return;
            }
    ir_expr_children(*slot, inline_slot, ud);
}

/* e (a fresh copy) with the lets inlined; NULL if it loads or needs a let that does. */
static Expr *inlined(Ctx *ctx, const Lets *lets, const Expr *e) {
    Inline in = {ctx, lets, NULL, true};
    Expr *c = ir_subst(ctx, e, NULL, NULL);
    inline_slot(&c, &in);
    return in.ok ? c : NULL;
}

/* Whether s copies a global tensor into a shared tile. */
static bool global_to_shared(const Stmt *s) {
    return s->kind == STMT_COPY && s->u.copy.src.buf->scope == SCOPE_GLOBAL &&
           s->u.copy.dst.buf->scope == SCOPE_SHARED;
}

/* Copy c (global_to_shared) of the body with the lets inlined into its regions, when it
 * can run at the top of the iteration: a kept vector copy into a whole shared tile whose
 * regions do not load, whose source nothing in the kernel writes and whose tile no
 * statement of the body before it (before[0..n)) touches. NULL otherwise, and *why. */
static Stmt *hoistable(Ctx *ctx, Stmt *kernel, Stmt *const *before, int n, const Lets *lets,
                       const Stmt *c, Kept *why) {
    *why = lets->full                                                 ? KEPT_MANY_LETS
           : !cuda_copy_vector(c) || !ir_region_whole(&c->u.copy.dst) ? KEPT_NOT_VECTOR
                                                                      : 0;
    if (!*why && source_written(kernel, c)) *why = KEPT_SRC_WRITTEN;
    for (int i = 0; i < n && !*why; i++) {
        Touch t = {c->u.copy.dst.buf, NULL, 0, 0};
        touch_stmt((Stmt **)&before[i], &t);
        if (t.reads || t.writes) *why = KEPT_TILE_USED;
    }
    if (*why) return NULL;
    Stmt *h = ir_stmt(ctx, STMT_COPY, c->loc);
    h->u.copy = c->u.copy;
    Region *r[2] = {&h->u.copy.src, &h->u.copy.dst};
    for (int k = 0; k < 2; k++) {
        Expr **start = NEW_ARRAY(&ctx->arena, Expr *, r[k]->ndim);
        Expr **ext = NEW_ARRAY(&ctx->arena, Expr *, r[k]->ndim);
        for (int d = 0; d < r[k]->ndim; d++) {
            start[d] = inlined(ctx, lets, r[k]->start[d]);
            ext[d] = inlined(ctx, lets, r[k]->extent[d]);
            if (!start[d] || !ext[d]) {
                *why = KEPT_INDEX_LOADS;
                return NULL;
            }
        }
        r[k]->start = start, r[k]->extent = ext;
    }
    return h;
}

/* cond with the lets inlined, where it may also read global tensors the kernel never
 * writes (evaluating it at another iteration reads what that iteration would); NULL if it
 * reads anything else. */
static Expr *inlined_reads(Ctx *ctx, Stmt *kernel, const Lets *lets, const Expr *cond) {
    Inline in = {ctx, lets, kernel, true};
    Expr *c = ir_subst(ctx, cond, NULL, NULL);
    inline_slot(&c, &in);
    return in.ok ? c : NULL;
}

/* Moves the copies that begin the body of `if` s (flat item i of the loop body, no else)
 * to `front` when they can run first and their tiles are read only under s: where its
 * condition is false nothing reads what they load, so loading is harmless, and the
 * condition (Stmt.copy.when, when it can be evaluated ahead) lets a prefetch skip it.
 * s keeps the rest of its body. */
static void hoist_from_if(Pipe *P, Stmt *flat, int i, const Lets *lets, Stmt *s, Stmt *front) {
    Ctx *ctx = P->ctx;
    Stmt *inner = ir_seq(ctx, s->loc), *rest = ir_seq(ctx, s->loc);
    pipe_flatten_into(ctx, inner, s->u.if_.then);
    Expr *when = inlined_reads(ctx, P->kernel, lets, s->u.if_.cond);
    int j = 0;
    for (; j < inner->u.seq.len && global_to_shared(inner->u.seq.data[j]); j++) {
        Stmt *c = inner->u.seq.data[j];
        bool used_after = false;
        for (int k = i + 1; k < flat->u.seq.len && !used_after; k++) {
            Touch t = {c->u.copy.dst.buf, NULL, 0, 0};
            touch_stmt(&flat->u.seq.data[k], &t);
            used_after = t.reads || t.writes;
        }
        Kept why = 0;
        Stmt *h = used_after ? NULL : hoistable(ctx, P->kernel, flat->u.seq.data, i, lets, c, &why);
        if (!h) break;
        h->u.copy.when = when;
        ir_seq_push(ctx, front, h);
    }
    if (!j) return;
    for (; j < inner->u.seq.len; j++) ir_seq_push(ctx, rest, inner->u.seq.data[j]);
    s->u.if_.then = rest;
}

/* Puts the copies of loop L's body (in kernel) that can run first at its front, as
 * TileLang's pipeline planner makes every load of a tile a producer stage: T.macro calls
 * are flattened (a scheduled body's groups stay, as SEQs after the copies), and a copy
 * moves up past lets (inlined into it), past statements that do not touch its tile and
 * past other copies (hoistable). The loop computes the same. */
static void hoist_producers(Pipe *P, Stmt *L) {
    Ctx *ctx = P->ctx;
    bool grouped = pipe_grouped(L); /* the statements that stay, stay in their groups */
    if (!grouped) pipe_flatten_groups(ctx, L);
    int ngroups = grouped ? L->u.for_.sched->ngroups : 1, g = 0;
    Stmt *flat = ir_seq(ctx, L->u.for_.body->loc), *front = ir_seq(ctx, flat->loc);
    Stmt **rest = NEW_ARRAY(&ctx->arena, Stmt *, ngroups);
    int *end = NEW_ARRAY(&ctx->arena, int, ngroups); /* group g: flat items before end[g] */
    for (int i = 0; i < ngroups; i++) {
        rest[i] = ir_seq(ctx, flat->loc);
        pipe_flatten_into(ctx, flat, grouped ? L->u.for_.body->u.seq.data[i] : L->u.for_.body);
        end[i] = flat->u.seq.len;
    }
    Lets lets = {.n = 0};
    bool noted = false;
    for (int i = 0; i < flat->u.seq.len; i++) {
        Stmt *s = flat->u.seq.data[i], *h = NULL;
        while (i >= end[g]) g++;
        Kept why = 0;
        if (global_to_shared(s)) h = hoistable(ctx, P->kernel, flat->u.seq.data, i, &lets, s, &why);
        if (s->kind == STMT_IF && !s->u.if_.orelse && !lets.full)
            hoist_from_if(P, flat, i, &lets, s, front);
        if (why && !noted && P->nkept < 8) {
            P->kept[P->nkept].loop = L, P->kept[P->nkept].copy = s, P->kept[P->nkept++].why = why;
            noted = true;
        }
        ir_seq_push(ctx, h ? front : rest[g], h ? h : s);
        if (s->kind == STMT_LET && lets.n == MAX_LETS) lets.full = true;
        else if (s->kind == STMT_LET) {
            lets.var[lets.n] = s->u.let.var;
            lets.value[lets.n++] = inlined(ctx, &lets, s->u.let.value);
        }
    }
    for (int i = 0; i < ngroups; i++) {
        if (grouped) ir_seq_push(ctx, front, rest[i]);
        else pipe_flatten_into(ctx, front, rest[i]);
    }
    L->u.for_.body = front;
}

/* hoist_producers for every T.Pipelined loop with stages of P->kernel at or under *slot
 * (before either pipeline looks at them). */
static void hoist_all(Stmt **slot, void *ud) {
    Pipe *P = ud;
    Stmt *s = *slot;
    if (s->kind == STMT_FOR && s->u.for_.kind == LOOP_PIPELINED && s->u.for_.num_stages >= 2)
        hoist_producers(P, s);
    ir_stmt_children(s, hoist_all, P);
}

static Stmt *async_stmt(Ctx *ctx, bool commit, int wait, Loc loc) {
    Stmt *s = ir_stmt(ctx, STMT_ASYNC, loc);
    s->u.async_.commit = commit;
    s->u.async_.wait = wait;
    return s;
}

Expr *pipe_stage_of(Ctx *ctx, Expr *k, const Stmt *L, int stages) {
    Loc loc = L->loc;
    Expr *rel = ir_bin(ctx, OP_SUB, k, ir_subst(ctx, L->u.for_.min, NULL, NULL), loc);
    return ir_bin(ctx, OP_FLOORMOD, rel, ir_int(ctx, stages, k->dtype, loc), loc);
}

/* Region r of a stacked buffer: the stage first. */
static void region_stage(Ctx *ctx, Region *r, Expr *stage) {
    Expr **start = NEW_ARRAY(&ctx->arena, Expr *, r->ndim + 1);
    Expr **ext = NEW_ARRAY(&ctx->arena, Expr *, r->ndim + 1);
    start[0] = stage;
    ext[0] = ir_int(ctx, 1, DT_INT32, stage->loc);
    for (int d = 0; d < r->ndim; d++) start[d + 1] = r->start[d], ext[d + 1] = r->extent[d];
    r->ndim++, r->start = start, r->extent = ext;
}

Stmt *pipe_produce(Ctx *ctx, const Stmt *c, const Stmt *L, Expr *k, int stages) {
    Stmt *s = ir_stmt(ctx, STMT_COPY, c->loc);
    s->u.copy = c->u.copy;
    s->u.copy.async = true;
    Region *src = &s->u.copy.src;
    Expr **start = NEW_ARRAY(&ctx->arena, Expr *, src->ndim);
    for (int d = 0; d < src->ndim; d++)
        start[d] = ir_subst(ctx, c->u.copy.src.start[d], L->u.for_.var, k);
    src->start = start;
    Expr **sext = NEW_ARRAY(&ctx->arena, Expr *, src->ndim);
    for (int d = 0; d < src->ndim; d++)
        sext[d] = ir_subst(ctx, c->u.copy.src.extent[d], NULL, NULL);
    src->extent = sext;
    Region dst = c->u.copy.dst;
    Expr **dstart = NEW_ARRAY(&ctx->arena, Expr *, dst.ndim);
    Expr **dext = NEW_ARRAY(&ctx->arena, Expr *, dst.ndim);
    for (int d = 0; d < dst.ndim; d++) {
        dstart[d] = ir_subst(ctx, dst.start[d], NULL, NULL);
        dext[d] = ir_subst(ctx, dst.extent[d], NULL, NULL);
    }
    dst.start = dstart, dst.extent = dext;
    region_stage(ctx, &dst, pipe_stage_of(ctx, ir_subst(ctx, k, NULL, NULL), L, stages));
    s->u.copy.dst = dst;
    return s;
}

/* A producer copy of iteration k into its stage, guarded when it may be past the end. */
static Stmt *produce(Pipe *P, const Stmt *c, const Stmt *L, Expr *k, Expr *guard, int stages) {
    Ctx *ctx = P->ctx;
    Stmt *s = pipe_produce(ctx, c, L, k, stages);
    if (c->u.copy.when) { /* the iteration's condition, after the guard that it exists */
        Expr *when = ir_subst(ctx, c->u.copy.when, L->u.for_.var, k);
        guard = guard ? ir_bin(ctx, OP_AND, guard, when, c->loc) : when;
    }
    int64_t always;
    if (!guard || (ir_is_const_int(guard, &always) && always)) return s;
    Stmt *g = ir_stmt(ctx, STMT_IF, c->loc);
    g->u.if_.cond = guard;
    g->u.if_.then = s;
    return g;
}

/* Rewrites the rest of the body: accesses of stacked buffers read stage(k). */
typedef struct Restage {
    Ctx *ctx;
    Buffer *const *bufs;
    int n;
    const Stmt *L;
    int stages;
} Restage;

static bool stacked(const Restage *R, const Buffer *b) {
    for (int i = 0; i < R->n; i++)
        if (R->bufs[i] == b) return true;
    return false;
}

static Expr *stage_now(const Restage *R, Loc loc) {
    return pipe_stage_of(R->ctx, ir_varref(R->ctx, R->L->u.for_.var, loc), R->L, R->stages);
}

static Expr **idx_stage(const Restage *R, Expr **idx, int ndim, Loc loc) {
    Expr **n = NEW_ARRAY(&R->ctx->arena, Expr *, ndim + 1);
    n[0] = stage_now(R, loc);
    for (int d = 0; d < ndim; d++) n[d + 1] = idx[d];
    return n;
}

static void restage_expr(Expr **slot, void *ud) {
    Restage *R = ud;
    Expr *e = *slot;
    ir_expr_children(e, restage_expr, ud);
    if (e->kind == EXPR_LOAD && stacked(R, e->u.load.buf))
        e->u.load.idx = idx_stage(R, e->u.load.idx, e->u.load.buf->ndim,
                                  e->loc); /* stacked after */
}

static void restage_stmt(Stmt **slot, void *ud) {
    Restage *R = ud;
    Stmt *s = *slot;
    ir_stmt_exprs(s, restage_expr, ud);
    ir_stmt_children(s, restage_stmt, ud);
    if (s->kind == STMT_GEMM) {
        if (stacked(R, s->u.gemm.a.buf)) region_stage(R->ctx, &s->u.gemm.a, stage_now(R, s->loc));
        if (stacked(R, s->u.gemm.b.buf)) region_stage(R->ctx, &s->u.gemm.b, stage_now(R, s->loc));
        if (s->u.gemm.e.buf && stacked(R, s->u.gemm.e.buf))
            region_stage(R->ctx, &s->u.gemm.e, stage_now(R, s->loc));
    } else if (s->kind == STMT_COPY && stacked(R, s->u.copy.src.buf)) {
        region_stage(R->ctx, &s->u.copy.src, stage_now(R, s->loc));
    }
}

void pipe_restage(Ctx *ctx, Stmt **s, Buffer *const *bufs, int n, const Stmt *L, int stages) {
    Restage R = {ctx, bufs, n, L, stages};
    restage_stmt(s, &R);
}

void pipe_stack_buffer(Ctx *ctx, Buffer *b, int stages) {
    Expr **shape = NEW_ARRAY(&ctx->arena, Expr *, b->ndim + 1);
    shape[0] = ir_int(ctx, stages, DT_INT32, b->loc);
    for (int d = 0; d < b->ndim; d++) shape[d + 1] = b->shape[d];
    b->shape = shape;
    b->ndim++;
    b->overwritten = true; /* each stage is filled before it is read */
}

/* The body's wgmma gemm that can stay in flight into the next iteration: its operands
 * are pipelined tiles and nothing else in the body touches its accumulator (the wait for
 * it is then at the top of the next iteration's gemm, or after the loop). NULL if none. */
Stmt *pipe_inflight_gemm(Stmt *body, int nprod, Buffer *const *bufs) {
    Stmt *g = NULL;
    for (int i = nprod; i < body->u.seq.len; i++) {
        Stmt *s = body->u.seq.data[i];
        if (s->kind != STMT_GEMM || !s->u.gemm.wgmma) continue;
        if (g) return NULL;
        g = s;
    }
    if (!g) return NULL;
    bool a = false, b = false;
    for (int i = 0; i < nprod; i++)
        a |= bufs[i] == g->u.gemm.a.buf, b |= bufs[i] == g->u.gemm.b.buf;
    Touch t = {g->u.gemm.c.buf, g, 0, 0};
    for (int i = nprod; i < body->u.seq.len; i++) touch_stmt(&body->u.seq.data[i], &t);
    return a && b && !t.reads && !t.writes && !g->u.gemm.clear_accum ? g : NULL;
}

bool pipe_touches(Stmt *s, const Buffer *b) {
    Touch t = {b, NULL, 0, 0};
    touch_stmt(&s, &t);
    return t.reads || t.writes;
}

bool pipe_only_gemm_reads(Stmt *body, int nprod, Buffer *const *bufs, const Stmt *g) {
    for (int b = 0; b < nprod; b++) {
        Touch t = {bufs[b], g, 0, 0};
        for (int i = nprod; i < body->u.seq.len; i++) touch_stmt(&body->u.seq.data[i], &t);
        if (t.reads || t.writes) return false;
    }
    return true;
}

/* The body's one statement after the producers when it is an mma.sync gemm (tl_gemm_ss)
 * of two 16-bit pipelined tiles: the loop's wait and barrier can move into it
 * (Stmt.gemm.pipe_wait), before its last k-step, so that no warp's tensor pipe idles at
 * the barrier. NULL otherwise. */
static Stmt *barrier_gemm(Stmt *body, int nprod, Buffer *const *bufs) {
    if (body->u.seq.len != nprod + 1) return NULL;
    Stmt *g = body->u.seq.data[nprod];
    if (g->kind != STMT_GEMM || g->u.gemm.wgmma || !g->u.gemm.warp_m) return NULL;
    const Buffer *A = g->u.gemm.a.buf, *B = g->u.gemm.b.buf;
    bool a = false, b = false;
    for (int i = 0; i < nprod; i++) a |= bufs[i] == A, b |= bufs[i] == B;
    return a && b && (A->dtype == DT_FLOAT16 || A->dtype == DT_BFLOAT16) ? g : NULL;
}

static Stmt *pipeline(Pipe *P, Stmt *L, int nprod) {
    Ctx *ctx = P->ctx;
    Loc loc = L->loc;
    int S = L->u.for_.num_stages;
    Stmt *body = L->u.for_.body;
    Buffer *bufs[16];
    const Stmt *prods[16];
    for (int i = 0; i < nprod; i++) {
        prods[i] = body->u.seq.data[i];
        bufs[i] = prods[i]->u.copy.dst.buf;
    }
    /* Loads run D iterations ahead: S - 1, or S - 2 when the gemm of iteration k - 1 may
     * still read its stage while iteration k refills (a wgmma left in flight). */
    Stmt *gemm = S >= 3 ? pipe_inflight_gemm(body, nprod, bufs) : NULL;
    int D = gemm ? S - 2 : S - 1;
    if (gemm) gemm->u.gemm.inflight = true;
    Stmt *out = ir_seq(ctx, loc);
    /* a stage buffer allocated in the body is declared before the prologue that fills it */
    bool stage_alloc[64] = {false};
    for (int i = nprod; i < body->u.seq.len && i < 64; i++)
        for (int b = 0; b < nprod && !stage_alloc[i]; b++)
            if (body->u.seq.data[i]->kind == STMT_ALLOC &&
                body->u.seq.data[i]->u.alloc.buf == bufs[b]) {
                stage_alloc[i] = true;
                ir_seq_push(ctx, out, body->u.seq.data[i]);
            }
    Expr *min = L->u.for_.min, *n = L->u.for_.extent;
    /* prologue, after a barrier: the stages' bytes may have been read just before (by
     * the previous run of an enclosing loop, or by a buffer they reuse), and
     * pass_insert_sync_threads does not see async copies */
    ir_seq_push(ctx, out, ir_stmt(ctx, STMT_SYNC, loc));
    for (int s = 0; s < D; s++) {
        Expr *k = ir_bin(ctx, OP_ADD, ir_subst(ctx, min, NULL, NULL),
                         ir_int(ctx, s, min->dtype, loc), loc);
        Expr *guard = ir_bin(ctx, OP_LT, ir_int(ctx, s, n->dtype, loc),
                             ir_subst(ctx, n, NULL, NULL), loc);
        for (int i = 0; i < nprod; i++)
            ir_seq_push(ctx, out, produce(P, prods[i], L, k, ir_subst(ctx, guard, NULL, NULL), S));
        ir_seq_push(ctx, out, async_stmt(ctx, true, 0, loc));
    }
    /* the loop: wait, sync, refill stage(k + D), the rest; or, with a barrier gemm, the
     * first wait and sync before the loop and the others inside the gemm */
    Stmt *sync_gemm = gemm ? NULL : barrier_gemm(body, nprod, bufs);
    Stmt *nb = ir_seq(ctx, body->loc);
    Stmt *top = sync_gemm ? out : nb;
    ir_seq_push(ctx, top, async_stmt(ctx, false, D - 1, loc));
    ir_seq_push(ctx, top, ir_stmt(ctx, STMT_SYNC, loc));
    if (sync_gemm) sync_gemm->u.gemm.pipe_wait = D;
    Expr *kv = ir_varref(ctx, L->u.for_.var, loc);
    Expr *ahead = ir_bin(ctx, OP_ADD, kv, ir_int(ctx, D, kv->dtype, loc), loc);
    Expr *guard = ir_bin(ctx, OP_LT,
                         ir_bin(ctx, OP_SUB, ir_subst(ctx, ahead, NULL, NULL),
                                ir_subst(ctx, min, NULL, NULL), loc),
                         ir_subst(ctx, n, NULL, NULL), loc);
    for (int i = 0; i < nprod; i++)
        ir_seq_push(ctx, nb, produce(P, prods[i], L, ahead, ir_subst(ctx, guard, NULL, NULL), S));
    ir_seq_push(ctx, nb, async_stmt(ctx, true, 0, loc));
    for (int i = nprod; i < body->u.seq.len; i++) {
        Stmt *s = body->u.seq.data[i];
        if (i < 64 && stage_alloc[i]) continue;
        pipe_restage(ctx, &s, bufs, nprod, L, S);
        ir_seq_push(ctx, nb, s);
    }
    for (int i = 0; i < nprod; i++) pipe_stack_buffer(ctx, bufs[i], S);
    L->u.for_.body = nb;
    L->u.for_.kind = LOOP_SERIAL;
    ir_seq_push(ctx, out, L);
    ir_seq_push(ctx, out, async_stmt(ctx, false, 0, loc));
    if (gemm) ir_seq_push(ctx, out, pipe_wgmma_drain(ctx, gemm, loc));
    return out;
}

Stmt *pipe_wgmma_drain(Ctx *ctx, const Stmt *gemm, Loc loc) {
    Stmt *w = async_stmt(ctx, false, 0, loc);
    w->u.async_.wgmma = true;
    w->u.async_.acc[0] = gemm->u.gemm.c.buf;
    return w;
}

static void pipe_slot(Stmt **slot, void *ud);

/* What stops copy c (global_to_shared) of a pipelined loop: why, or 0 when it could run
 * first but its tile is used elsewhere (pipe_producer_count). */
static const char *kept_text(Arena *a, const Stmt *c, Kept why) {
    const char *src = c->u.copy.src.buf->name, *tile = c->u.copy.dst.buf->name;
    int line = c->loc.line;
    switch (why) {
    case KEPT_NOT_VECTOR:
        return arena_printf(a,
                            "its T.copy into '%s' (line %d) does not move a whole shared "
                            "tile in 4-, 8- or 16-byte vectors",
                            tile, line);
    case KEPT_SRC_WRITTEN:
        return arena_printf(a,
                            "the kernel writes '%s', which its T.copy into '%s' (line %d) "
                            "reads",
                            src, tile, line);
    case KEPT_TILE_USED:
        return arena_printf(a,
                            "a statement before its T.copy into '%s' (line %d) uses that "
                            "tile",
                            tile, line);
    case KEPT_INDEX_LOADS:
        return arena_printf(a, "the indices of its T.copy into '%s' (line %d) read memory", tile,
                            line);
    case KEPT_MANY_LETS:
        return arena_printf(a,
                            "more than %d assignments come before its T.copy into '%s' "
                            "(line %d)",
                            MAX_LETS, tile, line);
    default:
        return arena_printf(a,
                            "'%s' (filled at line %d) is also used outside the loop, or "
                            "written again in it",
                            tile, line);
    }
}

/* A T.Pipelined loop that runs in order: the user asked for stages and gets none; the
 * remark says what stops its first copy global -> shared. */
static void unpipelined_remark(Pipe *P, const Stmt *L) {
    const Stmt *c = NULL, *body = L->u.for_.body;
    Kept why = 0;
    for (int i = 0; i < P->nkept; i++)
        if (P->kept[i].loop == L) c = P->kept[i].copy, why = P->kept[i].why;
    for (int i = 0; !c && body->kind == STMT_SEQ && i < body->u.seq.len; i++)
        if (global_to_shared(body->u.seq.data[i])) c = body->u.seq.data[i];
    pass_remark(P->ctx, P->f, L->loc,
                "T.Pipelined(num_stages=%d) runs without software pipelining: %s",
                L->u.for_.num_stages,
                c ? kept_text(&P->ctx->arena, c, why)
                  : "its body has no T.copy from a global tensor into a shared tile outside "
                    "if and loop statements");
}

/* Schedules (order=, stage=, group=) that no pipeline applies: the loops run in program
 * order, which computes the same (pass_check_schedules). */
static void unscheduled(Stmt **slot, void *ud) {
    Pipe *P = ud;
    Stmt *s = *slot;
    if (s->kind == STMT_FOR && s->u.for_.sched && s->u.for_.sched->grouped) {
        pipe_flatten_groups(P->ctx, s);
        pass_remark(P->ctx, P->f, s->loc,
                    "T.Pipelined(order=, stage=, group=): only a TMA producer warp group "
                    "(sm_90a, num_stages of 2 or more) applies the schedule; this loop runs "
                    "in program order");
    }
    ir_stmt_children(s, unscheduled, ud);
}

static void pipe_stmt(Pipe *P, Stmt **slot) {
    Stmt *s = *slot;
    if (s->kind == STMT_KERNEL) {
        P->kernel = s;
        if (cuda_hand_scheduled(s)) {
            unscheduled(slot, P);
            return;
        }
        P->nkept = 0;
        hoist_all(slot, P);
        if (pipe_warp_specialize(P->ctx, P->f, s)) return;
        unscheduled(slot, P);
    }
    if (s->kind == STMT_FOR && s->u.for_.kind == LOOP_PARALLEL) return; /* not inside nests */
    ir_stmt_children(s, pipe_slot, P);
    if (s->kind == STMT_FOR && s->u.for_.kind == LOOP_PIPELINED && s->u.for_.num_stages >= 2 &&
        s->u.for_.num_stages <= MAX_STAGES && P->kernel) {
        int n = pipe_producer_count(P->kernel, s);
        if (n > 0 && n <= PIPE_MAX_PRODUCERS) *slot = pipeline(P, s, n);
        else unpipelined_remark(P, s);
    }
}

static void pipe_slot(Stmt **slot, void *ud) { pipe_stmt(ud, slot); }

void pass_pipeline_async(Ctx *ctx, Func *f) {
    Pipe P = {.ctx = ctx, .f = f};
    if (f->body) pipe_stmt(&P, &f->body);
}
