/* warp_specialize.c - the Hopper form of a T.Pipelined loop: a producer warp group
 * that loads the loop's tiles with TMA, and the block's threads (the consumers) that
 * run the rest, synchronised by two rings of mbarriers (pipe_warp_specialize, called by
 * pass_pipeline_async for each kernel before it tries cp.async pipelining).
 *
 * With S stages, iteration k of T.Pipelined(n) from min (j = k - min, s = j % S) becomes
 *     producer (one thread of an extra warp group of 128):
 *         for k: wait empty[s] (parity (j / S & 1) ^ 1); arrive_expect_tx full[s], bytes;
 *                TMA of iteration k's tiles into stage s, completing on full[s]
 *     consumers (the kernel's threads, all of its statements):
 *         for k: wait full[s] (parity j / S & 1); the body, reading stage s;
 *                arrive empty[s]
 * A wgmma of the body that can stay in flight (pipe_inflight_gemm) reads its stage until
 * the next iteration's gemm retires it, so the consumers then release stage(k - 1) right
 * after iteration k's gemm (k > min), and wait for the last one after the loop. The
 * producer's first S waits pass at once (a fresh barrier has completed the phase of
 * parity 1); every full phase completes once per iteration that uses it, so any trip
 * count (0, 1, fewer than S, symbolic) runs without deadlock. When only that wgmma reads
 * the stages, one thread per consumer warp group releases them (empty counts groups).
 * With the setting cluster (TILEC_CLUSTER=1), plan_cluster may pair blocks into 2-block
 * clusters that multicast the copies they share (empty then counts both blocks'
 * releases). Without clusters, plan_splitk may let a tile's iterations be split across
 * blocks (split-K units, STMT_WS.sk) when that cannot change the result.
 *
 * Conditions (else the loop is left to the cp.async pipeline): compiling for sm_90 with
 * wgmma (options_wgmma) and the setting no_ws off; no barrier across blocks
 * (T.sync_grid, T.cluster_*: every thread of the block takes part, and a persistent grid
 * would move blocks out of their clusters) and no cluster_dims= of the program; 1-D threads, a multiple of 128 and
 * at most 896; the loop is the kernel's only T.Pipelined, an item of the kernel body,
 * without break or continue; every gemm of the kernel is a wgmma; every producer copy is
 * TMA-able (pipe_tma_plan: from a contiguous tensor parameter whose rows are a multiple of 16
 * bytes, into a tile whose layout a TMA box writes); the producer's expressions use only
 * the loop variable and what is known at kernel entry (block indices, parameters,
 * symbols, and the kernel body's load-free lets before the loop, which move up front).
 *
 * Requires: pass_infer_layouts (the tiles' swizzles are chosen). Provides: STMT_WS as
 * the kernel body's last item, after the barrier inits and a block-wide barrier;
 * kernel.producer_threads and kernel.tmaps; STMT_SYNC inside the consumer means a
 * barrier of the consumer threads only. */
#include "ir/ir_walk.h"
#include "layout/frag.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

enum { PRODUCER_THREADS = 128, MAX_THREADS = 1024, MAX_STAGES = 8, MAX_DIMS = 8, REG_SLACK = 8 };

/* ---- what the kernel holds ------------------------------------------------------------ */
typedef struct Scan {
    Ctx *ctx;
    int pipelined, jumps, simt_gemms;
    Vec(const Var *) inner; /* vars defined inside the kernel body */
} Scan;

static void scan_stmt(Stmt **slot, void *ud) {
    Scan *c = ud;
    Stmt *s = *slot;
    switch (s->kind) {
    case STMT_FOR:
        c->pipelined += s->u.for_.kind == LOOP_PIPELINED;
        VEC_PUSH(&c->ctx->arena, c->inner, s->u.for_.var);
        break;
    case STMT_LET: VEC_PUSH(&c->ctx->arena, c->inner, s->u.let.var); break;
    case STMT_BREAK:
    case STMT_CONTINUE: c->jumps++; break;
    case STMT_GEMM: c->simt_gemms += !s->u.gemm.wgmma; break;
    default: break;
    }
    ir_stmt_children(s, scan_stmt, ud);
}

/* Whether e uses a var of `inner` other than those of `known`. */
typedef struct Uses {
    const Scan *scan;
    const Var *const *known;
    int nknown;
    bool bad;
} Uses;

static void uses_expr(Expr **slot, void *ud) {
    Uses *u = ud;
    const Expr *e = *slot;
    if (e->kind == EXPR_LOAD) u->bad = true; /* the producer reads no memory */
    if (e->kind == EXPR_VAR) {
        bool inner = false, known = false;
        for (int i = 0; i < u->scan->inner.len; i++) inner |= u->scan->inner.data[i] == e->u.var;
        for (int i = 0; i < u->nknown; i++) known |= u->known[i] == e->u.var;
        u->bad |= inner && !known;
    }
    ir_expr_children((Expr *)e, uses_expr, ud);
}

static bool entry_known(Uses *u, Expr *e) {
    u->bad = false;
    uses_expr(&e, u);
    return !u->bad;
}

/* ---- TMA boxes ------------------------------------------------------------------------- */
static bool is_param(const Func *f, const Buffer *b) {
    for (int i = 0; i < f->params.len; i++)
        if (f->params.data[i].buf == ir_buffer_root(b)) return true;
    return false;
}

static int64_t const_of(const Expr *e) {
    int64_t v = -1;
    return ir_is_const_int(e, &v) ? v : -1;
}

/* The tensor map and boxes of a TMA copy between region g of a global tensor and the
 * shared tile t (a whole tile, a stage of a stacked one, or a column slice of whole
 * panels of a 2-D tile in panels: cu_tma_copy starts it start * rows elements in; 1-D or
 * 2-D after dropping unit dims), or NULL when TMA cannot move the tile's layout:
 *   - 128-byte column panels (Buffer.panel): one 128B-swizzled box per panel;
 *   - rows of exactly 32, 64 or 128 bytes swizzled alike (tl_swizzle = the hardware's);
 *   - plain rows of at most 256 elements and a multiple of 16 bytes.
 * Row counts over 256 split into chunks of 256. Every box lands 128-byte aligned and
 * swizzled ones on a whole swizzle pattern, stage after stage. */
TmaMap *pipe_tma_plan_tile(Ctx *ctx, const Func *f, const Region *g, const Region *t) {
    Buffer *G = g->buf, *T = t->buf;
    int es = dtype_bytes(G->dtype), ds[MAX_DIMS];
    if (!is_param(f, G) || G->strides || G->ndim > TMA_MAX_RANK || es <= 0 || 16 % es ||
        !ir_multiple_of(G->shape[G->ndim - 1], 16 / es))
        return NULL;
    int n = ir_region_squeeze(g, ds);
    int o = T->ndim - n; /* 1: into a stage of a stacked tile (ir_region_tile) */
    if (n < 1 || n > 2 || (o && !(o == 1 && n == 2 && ir_region_tile(t)))) return NULL;
    int64_t C = const_of(g->extent[ds[n - 1]]), R = n == 2 ? const_of(g->extent[ds[0]]) : 1;
    bool panels = !o && n == 2 && T->panel && ir_region_col_slice(t, T->panel); /* of T */
    if (C <= 0 || R <= 0 || (const_of(T->shape[o + n - 1]) != C && !panels) ||
        (n == 2 && const_of(T->shape[o]) != R))
        return NULL;
    TmaMap *m = NEW(&ctx->arena, TmaMap);
    int64_t inner = C, step_elems = C;
    m->npanel = 1;
    if (T->panel) {
        if (T->panel * es != 128 || C % T->panel) return NULL;
        inner = step_elems = T->panel, m->swizzle = 128, m->npanel = (int)(C / T->panel);
        m->panel_step = R * T->panel;
    } else if (T->swizzle) {
        if ((T->swizzle != 32 && T->swizzle != 64 && T->swizzle != 128) || C * es != T->swizzle)
            return NULL;
        m->swizzle = T->swizzle;
    } else if ((C * es) % 16) {
        return NULL;
    }
    int64_t rows = R <= 256 ? R : 256;
    if (inner > 256 || R % rows) return NULL;
    m->nchunk = (int)(R / rows);
    m->chunk_step = rows * step_elems;
    int64_t unit = m->swizzle ? 8 * m->swizzle : 128;
    if ((R * C * es) % unit || (m->npanel > 1 && (m->panel_step * es) % unit) ||
        (m->nchunk > 1 && (m->chunk_step * es) % unit))
        return NULL;
    m->buf = G;
    m->rank = G->ndim;
    m->outer = n == 2 ? G->ndim - 1 - ds[0] : 0;
    for (int d = 0; d < G->ndim; d++) {
        int64_t e = const_of(g->extent[d]);
        if (d == ds[n - 1]) e = inner;
        else if (n == 2 && d == ds[0]) e = rows;
        if (e < 1 || e > 256) return NULL;
        m->box[G->ndim - 1 - d] = (int)e;
    }
    m->bytes = R * C * es;
    return m;
}

TmaMap *pipe_tma_plan(Ctx *ctx, const Func *f, const Stmt *c) {
    return pipe_tma_plan_tile(ctx, f, &c->u.copy.src, &c->u.copy.dst);
}

/* ---- building ---------------------------------------------------------------------------- */
static Stmt *mbar(Ctx *ctx, MbarOp op, Buffer *bar, Expr *idx, Expr *arg, Loc loc) {
    Stmt *s = ir_stmt(ctx, STMT_MBAR, loc);
    s->u.mbar.op = op, s->u.mbar.bar = bar, s->u.mbar.idx = idx, s->u.mbar.arg = arg;
    return s;
}

static Buffer *ring(Ctx *ctx, const char *name, int stages, Loc loc) {
    Buffer *b = ir_buffer(ctx, name, DT_UINT64, SCOPE_BARRIER, 1, loc);
    b->shape[0] = ir_int(ctx, stages, DT_INT32, loc);
    return b;
}

static Stmt *alloc_of(Ctx *ctx, Buffer *b) {
    Stmt *s = ir_stmt(ctx, STMT_ALLOC, b->loc);
    s->u.alloc.buf = b;
    return s;
}

/* (k - min) // S % 2, XORed with flip: the parity of iteration k's phase. */
static Expr *parity(Ctx *ctx, Expr *k, const Stmt *L, int S, int flip) {
    Loc loc = L->loc;
    DType t = k->dtype;
    Expr *j = ir_bin(ctx, OP_SUB, k, ir_subst(ctx, L->u.for_.min, NULL, NULL), loc);
    Expr *p = ir_bin(ctx, OP_FLOORMOD, ir_bin(ctx, OP_FLOORDIV, j, ir_int(ctx, S, t, loc), loc),
                     ir_int(ctx, 2, t, loc), loc);
    return flip ? ir_bin(ctx, OP_BITXOR, p, ir_int(ctx, 1, t, loc), loc) : p;
}

typedef struct Ws {
    Ctx *ctx;
    Func *f;
    Stmt *L;
    int S, nprod;
    const Stmt *prods[PIPE_MAX_PRODUCERS];
    Buffer *bufs[PIPE_MAX_PRODUCERS];
    TmaMap *maps[PIPE_MAX_PRODUCERS];
    Buffer *full, *empty;
    Stmt *gemm;     /* the in-flight wgmma, or NULL */
    Var *tile;      /* STMT_WS.tile, or NULL when the trip count depends on the block */
    bool per_group; /* only the in-flight gemm reads the stages: one release per warp group */
    int cluster, cluster_dim;           /* STMT_WS.cluster, cluster_dim */
    bool multicast[PIPE_MAX_PRODUCERS]; /* the copy is the same in every block of a cluster */
    SplitK *sk;                         /* STMT_WS.sk, or NULL */
} Ws;

/* Iteration k of the loop counted over the block's tiles so far: k + extent * tile (the
 * stages and phases run on across tiles), or k + base over split-K units; k itself
 * without a tile var. */
static Expr *global_iter(Ws *W, Expr *k) {
    if (!W->tile) return k;
    Ctx *ctx = W->ctx;
    Loc loc = W->L->loc;
    Expr *done = W->sk ? ir_varref(ctx, W->sk->base, loc)
                       : ir_bin(ctx, OP_MUL, ir_subst(ctx, W->L->u.for_.extent, NULL, NULL),
                                ir_varref(ctx, W->tile, loc), loc);
    return ir_bin(ctx, OP_ADD, k, ir_cast(ctx, k->dtype, done, loc), loc);
}

/* The first iteration of the loop in this unit (min + lo in a split-K unit, else min),
 * and the unit's trip count; fresh expressions. */
static Expr *unit_min(Ws *W) {
    Ctx *ctx = W->ctx;
    Loc loc = W->L->loc;
    Expr *min = ir_subst(ctx, W->L->u.for_.min, NULL, NULL);
    if (!W->sk) return min;
    return ir_bin(ctx, OP_ADD, min, ir_cast(ctx, min->dtype, ir_varref(ctx, W->sk->lo, loc), loc),
                  loc);
}

static Expr *unit_extent(Ws *W) {
    Ctx *ctx = W->ctx;
    Loc loc = W->L->loc;
    if (!W->sk) return ir_subst(ctx, W->L->u.for_.extent, NULL, NULL);
    return ir_cast(ctx, W->L->u.for_.extent->dtype,
                   ir_bin(ctx, OP_SUB, ir_varref(ctx, W->sk->hi, loc),
                          ir_varref(ctx, W->sk->lo, loc), loc),
                   loc);
}

/* A let of a fresh var g = global_iter(k) at the top of body, and the loop shape with g
 * as its variable (what pipe_stage_of and pipe_restage count stages with). */
static Stmt *global_loop(Ws *W, Stmt *body, Expr *k, Stmt *Lg) {
    const Stmt *L = W->L;
    *Lg = *L;
    Lg->u.for_.var = ir_var(W->ctx, "tl_it", L->u.for_.var->dtype);
    Stmt *let = ir_stmt(W->ctx, STMT_LET, L->loc);
    let->u.let.var = Lg->u.for_.var;
    let->u.let.value = global_iter(W, k);
    ir_seq_push(W->ctx, body, let);
    return Lg;
}

/* `load` (iteration k's expected bytes and copies), or, when every producer copy was
 * moved out of the same `if` (Stmt.copy.when) and no cluster shares the loads,
 * `if (when(k)) load else arrive on full[stage]`: a step whose tiles nothing reads
 * loads nothing, and its consumers still find the stage full. */
static Stmt *skippable(Ws *W, Stmt *load, Expr *k, Expr *stage) {
    Ctx *ctx = W->ctx;
    const Expr *when = W->prods[0]->u.copy.when;
    for (int i = 0; i < W->nprod; i++)
        if (W->prods[i]->u.copy.when != when || W->multicast[i]) return load;
    if (!when) return load;
    Stmt *g = ir_stmt(ctx, STMT_IF, load->loc);
    g->u.if_.cond = ir_subst(ctx, when, W->L->u.for_.var, ir_subst(ctx, k, NULL, NULL));
    g->u.if_.then = load;
    g->u.if_.orelse = mbar(ctx, MBAR_ARRIVE, W->full, ir_subst(ctx, stage, NULL, NULL), NULL,
                           load->loc);
    return g;
}

/* for k: wait empty[s]; expect the bytes on full[s]; the TMA copies of iteration k. */
static Stmt *producer(Ws *W, int map0) {
    Ctx *ctx = W->ctx;
    Stmt *L = W->L, Lg;
    Loc loc = L->loc;
    Var *kp = ir_var(ctx, L->u.for_.var->name, L->u.for_.var->dtype);
    Expr *k = ir_varref(ctx, kp, loc);
    Stmt *body = ir_seq(ctx, loc);
    global_loop(W, body, ir_subst(ctx, k, NULL, NULL), &Lg);
    Expr *g = ir_varref(ctx, Lg.u.for_.var, loc);
    int64_t bytes = 0;
    for (int i = 0; i < W->nprod; i++) bytes += W->maps[i]->bytes;
    Expr *stage = pipe_stage_of(ctx, ir_subst(ctx, g, NULL, NULL), L, W->S);
    ir_seq_push(ctx, body,
                mbar(ctx, MBAR_WAIT, W->empty, stage,
                     parity(ctx, ir_subst(ctx, g, NULL, NULL), L, W->S, 1), loc));
    Stmt *load = ir_seq(ctx, loc); /* the bytes expected, the copies */
    ir_seq_push(ctx, load,
                mbar(ctx, MBAR_EXPECT_TX, W->full, ir_subst(ctx, stage, NULL, NULL),
                     ir_int(ctx, bytes, DT_INT32, loc), loc));
    ir_seq_push(ctx, body, skippable(W, load, k, stage));
    for (int i = 0; i < W->nprod; i++) {
        Stmt *c = pipe_produce(ctx, W->prods[i], L, k, W->S); /* coordinates of k */
        c->u.copy.dst.start[0] = ir_subst(ctx, stage, NULL, NULL);
        c->u.copy.async = true;
        c->u.copy.tma = map0 + i + 1;
        c->u.copy.bar = W->full;
        c->u.copy.bar_idx = ir_subst(ctx, stage, NULL, NULL);
        c->u.copy.multicast = W->multicast[i];
        ir_seq_push(ctx, load, c);
    }
    Stmt *loop = ir_stmt(ctx, STMT_FOR, loc);
    loop->u.for_ = L->u.for_;
    loop->u.for_.var = kp;
    loop->u.for_.kind = LOOP_SERIAL;
    loop->u.for_.num_stages = 0;
    loop->u.for_.min = unit_min(W);
    loop->u.for_.extent = unit_extent(W);
    loop->u.for_.body = body;
    return loop;
}

/* The consumers' release of a stage: an arrival on empty[idx] (of every block of the
 * cluster, whose producers all write the stage). */
static Stmt *arrive_empty(Ws *W, Expr *idx, Loc loc) {
    Stmt *a = mbar(W->ctx, MBAR_ARRIVE, W->empty, idx, NULL, loc);
    a->u.mbar.per_group = W->per_group;
    a->u.mbar.cluster = W->cluster > 1;
    return a;
}

/* Consumers' arrival on empty[stage(g - delta)] (Lg's var g); with delta 1 only when the
 * tile's iteration k is past the first. The stage is taken of g + S - delta, the same
 * stage of an index that stays non-negative: the modulo compiles to a mask. */
static Stmt *release(Ws *W, const Stmt *Lg, int delta) {
    Ctx *ctx = W->ctx;
    const Stmt *L = W->L;
    Loc loc = L->loc;
    Expr *g = ir_varref(ctx, Lg->u.for_.var, loc);
    if (delta) g = ir_bin(ctx, OP_ADD, g, ir_int(ctx, W->S - delta, g->dtype, loc), loc);
    Stmt *a = arrive_empty(W, pipe_stage_of(ctx, g, L, W->S), loc);
    if (!delta) return a;
    Stmt *c = ir_stmt(ctx, STMT_IF, loc);
    c->u.if_.cond = ir_bin(ctx, OP_GT, ir_varref(ctx, L->u.for_.var, loc), unit_min(W), loc);
    c->u.if_.then = a;
    return c;
}

/* After the drain of an in-flight gemm with a tile var: the release of the tile's last
 * stage, which the next tile's producer waits for. */
static Stmt *release_last(Ws *W) {
    Ctx *ctx = W->ctx;
    const Stmt *L = W->L;
    Loc loc = L->loc;
    DType t = L->u.for_.var->dtype;
    Expr *last = ir_bin(ctx, OP_SUB, ir_bin(ctx, OP_ADD, unit_min(W), unit_extent(W), loc),
                        ir_int(ctx, 1, t, loc), loc);
    Stmt *c = ir_stmt(ctx, STMT_IF, loc);
    c->u.if_.cond = ir_bin(ctx, OP_GT, unit_extent(W), ir_int(ctx, 0, t, loc), loc);
    c->u.if_.then = arrive_empty(W, pipe_stage_of(ctx, global_iter(W, last), L, W->S), loc);
    return c;
}

/* The consumers' loop: wait for the stage, the body reading it, the release. */
static Stmt *consumer_loop(Ws *W) {
    Ctx *ctx = W->ctx;
    Stmt *L = W->L, *body = L->u.for_.body, Lg;
    Loc loc = L->loc;
    Stmt *nb = ir_seq(ctx, body->loc);
    global_loop(W, nb, ir_varref(ctx, L->u.for_.var, loc), &Lg);
    Expr *g = ir_varref(ctx, Lg.u.for_.var, loc);
    ir_seq_push(ctx, nb,
                mbar(ctx, MBAR_WAIT, W->full, pipe_stage_of(ctx, g, L, W->S),
                     parity(ctx, ir_subst(ctx, g, NULL, NULL), L, W->S, 0), loc));
    for (int i = W->nprod; i < body->u.seq.len; i++) {
        Stmt *s = body->u.seq.data[i];
        pipe_restage(ctx, &s, W->bufs, W->nprod, &Lg, W->S);
        ir_seq_push(ctx, nb, s);
        if (body->u.seq.data[i] == W->gemm) ir_seq_push(ctx, nb, release(W, &Lg, 1));
    }
    if (!W->gemm) ir_seq_push(ctx, nb, release(W, &Lg, 0));
    L->u.for_.body = nb;
    L->u.for_.kind = LOOP_SERIAL;
    return L;
}

/* ---- a scheduled loop (T.Pipelined(order=, stage=, group=), pipeline_schedule.c) ---- */
/* The largest stage of the loop's schedule if the consumers can apply it, else -1: the
 * stage -1 groups all went to the producer, stages are 0 or 1 and the ring has a stage
 * more than that (iteration k - 1 holds its stage while k's is read), no group declares
 * a buffer. */
static int sched_depth(Ws *W) {
    const PipeSchedule *ps = W->L->u.for_.sched;
    Stmt *body = W->L->u.for_.body;
    if (!ps || !ps->grouped || body->u.seq.len != W->nprod + ps->ngroups) return -1;
    int D = 0;
    for (int g = 0; g < ps->ngroups; g++) {
        Stmt *grp = body->u.seq.data[W->nprod + g];
        if (grp->kind != STMT_SEQ || (ps->stage[g] < 0 && grp->u.seq.len) || ps->stage[g] > 1)
            return -1;
        for (int i = 0; i < grp->u.seq.len; i++)
            if (grp->u.seq.data[i]->kind == STMT_ALLOC) return -1;
        if (ps->stage[g] > D) D = ps->stage[g];
    }
    return W->S > D ? D : -1;
}

/* A let of a fresh var = value, pushed on seq; the var. */
static Var *let_var(Ctx *ctx, Stmt *seq, const char *name, Expr *value, Loc loc) {
    Stmt *let = ir_stmt(ctx, STMT_LET, loc);
    let->u.let.var = ir_var(ctx, name, value->dtype);
    let->u.let.value = value;
    ir_seq_push(ctx, seq, let);
    return let->u.let.var;
}

/* The groups of stages lo..hi in their order, pushed on seq: group g of stage s for
 * iteration kk[s] (an expression of the loop's var), reading the stages of global
 * iteration it[s]. */
static void instances(Ws *W, Stmt *seq, int lo, int hi, Expr *const *kk, Var *const *it) {
    const PipeSchedule *ps = W->L->u.for_.sched;
    for (int o = 0; o < ps->ngroups; o++)
        for (int g = 0; g < ps->ngroups; g++) {
            int st = ps->stage[g];
            if (ps->order[g] != o || st < lo || st > hi) continue;
            Stmt L = *W->L, *c = ir_stmt_clone(W->ctx, W->L->u.for_.body->u.seq.data[W->nprod + g],
                                               W->L->u.for_.var, kk[st]);
            L.u.for_.var = it[st];
            pipe_restage(W->ctx, &c, W->bufs, W->nprod, &L, W->S);
            ir_seq_push(W->ctx, seq, c);
        }
}

/* A fresh copy of e, plus d. */
static Expr *shifted(Ws *W, const Expr *e, int d) {
    Loc loc = W->L->loc;
    Expr *c = ir_subst(W->ctx, e, NULL, NULL);
    if (!d) return c;
    return ir_bin(W->ctx, d > 0 ? OP_ADD : OP_SUB, c, ir_int(W->ctx, d > 0 ? d : -d, c->dtype, loc),
                  loc);
}

/* The ring stage that global iteration it (a var) uses. */
static Expr *stage_at(Ws *W, Var *it) {
    return pipe_stage_of(W->ctx, ir_varref(W->ctx, it, W->L->loc), W->L, W->S);
}

/* The part of a scheduled loop for iteration k (an expression): its global iteration,
 * the wait for its stage (when the groups include stage 0), the groups of stages lo..hi
 * (stage 1 for iteration k - 1) with their wgmma waits, and the release of the stage
 * that the iteration of stage hi read (when release). With turns, the wgmma issues in a
 * warp-group turn where pipe_turn_window can (*turns says whether). */
static Stmt *scheduled_part(Ws *W, Expr *k, int lo, int hi, bool release, bool *turns) {
    Ctx *ctx = W->ctx;
    const Stmt *L = W->L;
    Loc loc = L->loc;
    Stmt *part = ir_seq(ctx, loc), *groups = ir_seq(ctx, loc);
    /* stage 1 is for k - 1, but in the epilogue (stage 1 alone) for the last iteration k */
    Expr *kk[2] = {k, lo ? k : shifted(W, k, -1)};
    Var *it[2];
    it[0] = let_var(ctx, part, "tl_it", global_iter(W, shifted(W, k, 0)), loc);
    /* the stage of it - 1 through a non-negative index (the modulo compiles to a mask) */
    it[1] = lo || !hi ? it[0]
                      : let_var(ctx, part, "tl_it_prev",
                                shifted(W, ir_varref(ctx, it[0], loc), W->S - 1), loc);
    if (!lo)
        ir_seq_push(ctx, part,
                    mbar(ctx, MBAR_WAIT, W->full, stage_at(W, it[0]),
                         parity(ctx, ir_varref(ctx, it[0], loc), L, W->S, 0), loc));
    instances(W, groups, lo, hi, kk, it);
    Stmt *issued = pipe_wgmma_waits(ctx, groups);
    if (turns) *turns = pipe_turn_window(ctx, issued);
    ir_seq_push(ctx, part, issued);
    if (release) ir_seq_push(ctx, part, arrive_empty(W, stage_at(W, it[hi]), loc));
    return part;
}

/* if (the loop runs at all) body */
static Stmt *if_runs(Ws *W, Stmt *body) {
    Ctx *ctx = W->ctx;
    Expr *n = shifted(W, W->L->u.for_.extent, 0);
    Stmt *c = ir_stmt(ctx, STMT_IF, W->L->loc);
    c->u.if_.cond = ir_bin(ctx, OP_GT, n, ir_int(ctx, 0, n->dtype, W->L->loc), W->L->loc);
    c->u.if_.then = body;
    return c;
}

/* The consumers under a schedule of depth D (0 or 1): each iteration runs the groups in
 * their order, those of stage 1 for the iteration before, peeled so that every part is
 * straight-line code whose wgmmas overlap the statements after them (pipe_wgmma_waits):
 *     if (n > 0) { wait full(min); the stage-0 groups of min }                  (D = 1)
 *     for k in [min + D, min + n): wait full(k); the groups of k and k - D; release k - D
 *     if (n > 0) { the stage-1 groups of min + n - 1; release it }              (D = 1)
 * Flash attention's schedule (FlashAttention-3's intra-warpgroup overlap) issues Q K^T
 * of block k, then P V of block k - 1, and runs block k's softmax while P V runs. With
 * the setting pingpong (TILEC_PINGPONG=1; experimental, not yet timed) two consumer warp
 * groups also take turns at issuing the steady loop's wgmmas (FA3's ping-pong:
 * tl_pingpong_*). */
static Stmt *consumer_scheduled(Ws *W, int D, int threads) {
    bool pingpong = W->ctx->opts.pingpong; /* opt-in until timed on the GPU */
    Ctx *ctx = W->ctx;
    const Stmt *L = W->L;
    Loc loc = L->loc;
    Stmt *out = ir_seq(ctx, loc), *loop = ir_stmt(ctx, STMT_FOR, loc);
    if (D) /* prologue */
        ir_seq_push(ctx, out,
                    if_runs(W, scheduled_part(W, shifted(W, L->u.for_.min, 0), 0, 0, false, NULL)));
    loop->u.for_ = L->u.for_;
    loop->u.for_.kind = LOOP_SERIAL;
    loop->u.for_.num_stages = 0;
    loop->u.for_.sched = NULL;
    loop->u.for_.min = shifted(W, L->u.for_.min, D);
    loop->u.for_.extent = shifted(W, L->u.for_.extent, -D);
    bool turns = false;
    loop->u.for_.body = scheduled_part(W, ir_varref(ctx, L->u.for_.var, loc), 0, D, true,
                                       pingpong && threads == 256 ? &turns : NULL);
    if (turns) ir_seq_push(ctx, out, pipe_turn(ctx, TURN_START, loc));
    ir_seq_push(ctx, out, loop);
    if (turns) ir_seq_push(ctx, out, pipe_turn(ctx, TURN_END, loc));
    if (D) { /* epilogue */
        Expr *end = ir_bin(ctx, OP_ADD, shifted(W, L->u.for_.min, 0),
                           shifted(W, L->u.for_.extent, 0), loc);
        ir_seq_push(ctx, out, if_runs(W, scheduled_part(W, shifted(W, end, -1), 1, 1, true, NULL)));
    }
    return out;
}

void pipe_add_tmaps(Ctx *ctx, Stmt *k, TmaMap *const *maps, int n) {
    int old = k->u.kernel.ntmaps;
    TmaMap **all = NEW_ARRAY(&ctx->arena, TmaMap *, old + n);
    for (int i = 0; i < old; i++) all[i] = k->u.kernel.tmaps[i];
    for (int i = 0; i < n; i++) all[old + i] = maps[i];
    k->u.kernel.tmaps = all;
    k->u.kernel.ntmaps = old + n;
}

/* The producer fills the stage buffers from the start: one allocated in the pipelined
 * loop's body (`a_s = T.alloc_shared(...)` inside T.Pipelined) is declared up front. */
static void hoist_stage_allocs(Ws *W, Stmt *front) {
    Stmt *body = W->L->u.for_.body;
    if (body->kind != STMT_SEQ) return;
    int keep = 0;
    for (int i = 0; i < body->u.seq.len; i++) {
        Stmt *s = body->u.seq.data[i];
        bool stage = false;
        for (int b = 0; s->kind == STMT_ALLOC && b < W->nprod; b++)
            stage |= s->u.alloc.buf == W->bufs[b];
        if (stage) ir_seq_push(W->ctx, front, s);
        else body->u.seq.data[keep++] = s;
    }
    body->u.seq.len = keep;
}

/* Kernel body items before the loop that move up front: allocations without an initial
 * value, T.use_swizzle (applied at entry), and lets of load-free values over what is
 * known at entry. */
static bool hoisted(const Stmt *s, Uses *u) {
    if (s->kind == STMT_ALLOC) return !s->u.alloc.buf->init;
    if (s->kind == STMT_SWIZZLE) return true;
    return s->kind == STMT_LET && entry_known(u, s->u.let.value);
}

/* A set of vars (ir_expr_uses_any). */
typedef struct VarSet {
    const Var **vars;
    int n;
} VarSet;

static bool uses_any(const VarSet *s, const Expr *e) { return ir_expr_uses_any(e, s->vars, s->n); }

static bool plan(Ws *W, const Func *f, Stmt *k, Uses *u) {
    Stmt *L = W->L;
    for (int i = 0; i < W->nprod; i++) {
        const Stmt *c = L->u.for_.body->u.seq.data[i];
        W->prods[i] = c;
        W->bufs[i] = c->u.copy.dst.buf;
        W->maps[i] = pipe_tma_plan(W->ctx, f, c);
        if (!W->maps[i]) return false;
        for (int d = 0; d < c->u.copy.src.ndim; d++)
            if (!entry_known(u, c->u.copy.src.start[d])) return false;
    }
    return entry_known(u, L->u.for_.min) && entry_known(u, L->u.for_.extent) &&
           k->u.kernel.threads[0] > 0;
}

/* The hoisted lets that depend on the block (its indices, or such lets): each side
 * computes them per tile (marked in per_tile[i] for body item i); the trip count must
 * not, for a tile var (W->tile). */
static void per_tile_lets(Ws *W, Stmt *k, Uses *u, int li, bool *per_tile) {
    Stmt *body = k->u.kernel.body;
    VarSet set = {NEW_ARRAY(&W->ctx->arena, const Var *, 3 + li), 0};
    for (int d = 0; d < k->u.kernel.ngrid; d++)
        if (k->u.kernel.block[d]) set.vars[set.n++] = k->u.kernel.block[d];
    for (int i = 0; i < li; i++) {
        Stmt *s = body->u.seq.data[i];
        per_tile[i] = s->kind == STMT_LET && hoisted(s, u) && uses_any(&set, s->u.let.value);
        if (per_tile[i]) set.vars[set.n++] = s->u.let.var;
    }
    if (!uses_any(&set, W->L->u.for_.min) && !uses_any(&set, W->L->u.for_.extent)) {
        W->tile = ir_var(W->ctx, "tl_tile_iter", DT_INT32);
        W->tile->nonneg = true; /* the block's tiles counted from 0 (emit_ws binds it) */
    }
}

/* ---- clusters -------------------------------------------------------------------------- */
enum { CLUSTER = 2 };

/* Opt-in (the setting cluster, TILEC_CLUSTER=1): on the H200 on 2026-12-03 the clustered
 * GEMM ran at 0.98-0.99x the unclustered one (docs/journal.md). */

/* Whether the CLUSTER blocks can share map m's boxes evenly: their count divides, or
 * (apply: made to) by halving the rows of each box on whole swizzle patterns. */
static bool split_boxes(TmaMap *m, bool apply) {
    if (m->npanel * m->nchunk % CLUSTER == 0) return true;
    int64_t rows = m->box[m->outer], step = m->chunk_step / rows;
    int64_t unit = m->swizzle ? 8 * m->swizzle : 128, es = dtype_bytes(m->buf->dtype);
    if (!m->outer || rows % 2 || (rows / 2 * step * es) % unit) return false;
    if (apply) m->box[m->outer] = (int)(rows / 2), m->nchunk *= 2, m->chunk_step = rows / 2 * step;
    return true;
}

/* The block index of grid dim d and the hoisted lets (before body item li) that use it. */
static VarSet block_deps(Ws *W, Stmt *k, Uses *u, int li, int d) {
    Stmt *body = k->u.kernel.body;
    VarSet set = {NEW_ARRAY(&W->ctx->arena, const Var *, 1 + li), 0};
    set.vars[set.n++] = k->u.kernel.block[d];
    for (int i = 0; i < li; i++) {
        Stmt *s = body->u.seq.data[i];
        if (s->kind == STMT_LET && hoisted(s, u) && uses_any(&set, s->u.let.value))
            set.vars[set.n++] = s->u.let.var;
    }
    return set;
}

/* Copy i reads the same tile in blocks that differ only in the index `set` depends on. */
static bool copy_shared(Ws *W, const VarSet *set, int i) {
    const Region *r = &W->prods[i]->u.copy.src;
    for (int d = 0; d < r->ndim; d++)
        if (uses_any(set, r->start[d])) return false;
    return true;
}

/* Clusters of CLUSTER blocks along the grid dim (of a constant extent they divide) whose
 * index the most copy bytes do not use: the blocks of a cluster load those once, each
 * its share of the boxes multicast to all (TMA multicast; cuBLAS's 2-CTA clusters).
 * Only on a persistent grid (a tile var), where a cluster's blocks walk tiles together. */
static void plan_cluster(Ws *W, Stmt *k, Uses *u, int li) {
    int64_t best = 0;
    for (int d = 0; W->tile && W->ctx->opts.cluster && d < k->u.kernel.ngrid && d < 2; d++) {
        int64_t ext = 0, bytes = 0;
        if (!k->u.kernel.block[d] || !ir_is_const_int(k->u.kernel.grid[d], &ext) || ext < CLUSTER ||
            ext % CLUSTER)
            continue;
        VarSet set = block_deps(W, k, u, li, d);
        for (int i = 0; i < W->nprod; i++)
            if (copy_shared(W, &set, i) && split_boxes(W->maps[i], false))
                bytes += W->maps[i]->bytes;
        if (bytes > best) best = bytes, W->cluster_dim = d;
    }
    if (!best) return;
    W->cluster = CLUSTER;
    VarSet set = block_deps(W, k, u, li, W->cluster_dim);
    for (int i = 0; i < W->nprod; i++)
        W->multicast[i] = copy_shared(W, &set, i) && split_boxes(W->maps[i], true);
}

/* ---- split-K ------------------------------------------------------------------------- */
static void escapes_stmt(Stmt **slot, void *ud) {
    const Stmt *s = *slot;
    const Buffer *w = s->kind == STMT_STORE    ? s->u.store.buf
                      : s->kind == STMT_COPY   ? s->u.copy.dst.buf
                      : s->kind == STMT_FILL   ? s->u.fill.dst.buf
                      : s->kind == STMT_ATOMIC ? s->u.atomic.dst.buf
                      : s->kind == STMT_REDUCE ? s->u.reduce.dst.buf
                      : s->kind == STMT_CUMSUM ? s->u.cumsum.dst.buf
                                               : NULL;
    *(bool *)ud |= s->kind == STMT_PRINT || (w && w->scope == SCOPE_GLOBAL) ||
                   (s->kind == STMT_EXTERN && !s->u.extern_.pure);
    ir_stmt_children(*slot, escapes_stmt, ud);
}

/* Whether s writes memory outside the block or prints. */
static bool escapes(Stmt *s) {
    bool any = false;
    escapes_stmt(&s, &any);
    return any;
}

/* tl_sk_parts cuts tiles into parts of at least TL_SK_MIN_PART (4) iterations: never one
 * of fewer than 8. */
enum { SK_MIN_ITERS = 8 };

/* Split-K units (SplitK; tl_sk_parts in tl_cuda.h) for the loop of a persistent tile
 * walk without clusters or a schedule (unless the setting no_splitk is on: TILEC_NO_SPLITK
 * or the pass config tilec.disable_split_k), when splitting a tile's iterations cannot change its
 * result: the loop's body after the producer copies only adds wgmma products to float32
 * register fragments (each unit sums a part of the iterations from zero, and the parts
 * add up), the kernel's code before the loop has no effect outside the block (every unit
 * runs it), and the code after it does not read the stages (whose last contents are the
 * unit's, not the tile's). */
static SplitK *plan_splitk(Ws *W, Stmt *k, int li, int D) {
    int64_t iters;
    if (!W->tile || W->cluster > 1 || D >= 0 || W->ctx->opts.no_splitk ||
        (ir_is_const_int(W->L->u.for_.extent, &iters) && iters < SK_MIN_ITERS))
        return NULL;
    Ctx *ctx = W->ctx;
    Stmt *body = W->L->u.for_.body, *kb = k->u.kernel.body;
    SplitK *sk = NEW(&ctx->arena, SplitK);
    for (int i = W->nprod; i < body->u.seq.len; i++) {
        const Stmt *g = body->u.seq.data[i];
        if (g->kind != STMT_GEMM || g->u.gemm.wgmma <= 0 || g->u.gemm.clear_accum) return NULL;
        Buffer *c = g->u.gemm.c.buf;
        if (c->scope != SCOPE_FRAGMENT || !c->layout || c->layout->nlocal % 4 ||
            c->dtype != DT_FLOAT32) /* (tl_sk_put moves float4s) */
            return NULL;
        int j = 0;
        while (j < sk->nacc && sk->acc[j] != c) j++;
        if (j == SK_MAX_ACC) return NULL;
        if (j == sk->nacc) sk->acc[sk->nacc++] = c;
    }
    for (int i = 0; i < kb->u.seq.len; i++) {
        if (i < li && escapes(kb->u.seq.data[i])) return NULL;
        for (int b = 0; i > li && b < W->nprod; b++)
            if (pipe_touches(kb->u.seq.data[i], W->bufs[b])) return NULL;
    }
    if (!sk->nacc) return NULL;
    sk->lo = ir_var(ctx, "tl_sk_lo", DT_INT32);
    sk->hi = ir_var(ctx, "tl_sk_hi", DT_INT32);
    sk->base = ir_var(ctx, "tl_sk_base", DT_INT32);
    sk->lo->nonneg = sk->hi->nonneg = sk->base->nonneg = true; /* iteration counts */
    sk->iters = ir_subst(ctx, W->L->u.for_.extent, NULL, NULL);
    return sk;
}

static Stmt *splitk_op(Ctx *ctx, SkOp op, Loc loc) {
    Stmt *s = ir_stmt(ctx, STMT_SPLITK, loc);
    s->u.splitk.op = op;
    return s;
}

/* The kernel's code after the loop, run by the units that start their tile: the one that
 * finishes a split tile, after STMT_SPLITK's combine. */
static Stmt *finishing(Ws *W, Stmt *epilogue) {
    Ctx *ctx = W->ctx;
    Loc loc = W->L->loc;
    Stmt *c = ir_stmt(ctx, STMT_IF, loc);
    c->u.if_.cond = ir_bin(ctx, OP_EQ, ir_varref(ctx, W->sk->lo, loc),
                           ir_int(ctx, 0, DT_INT32, loc), loc);
    c->u.if_.then = epilogue;
    return c;
}

static void build(Ws *W, Stmt *k, Uses *u, int li) {
    Ctx *ctx = W->ctx;
    Stmt *body = k->u.kernel.body, *L = W->L;
    Loc loc = L->loc;
    int nthreads = k->u.kernel.threads[0];
    bool *per_tile = NEW_ARRAY(&ctx->arena, bool, li + 1);
    per_tile_lets(W, k, u, li, per_tile);
    int D = sched_depth(W);
    if (D < 0 && L->u.for_.sched && L->u.for_.sched->grouped) {
        pipe_flatten_groups(ctx, L);
        pass_remark(ctx, W->f, L->loc,
                    "T.Pipelined(order=, stage=, group=): runs in program order; the TMA "
                    "producer warp group applies schedules of stages 0 and 1 whose stage -1 "
                    "groups are all copies it loads, with num_stages above the largest stage");
    }
    W->gemm = D >= 0 ? NULL : pipe_inflight_gemm(L->u.for_.body, W->nprod, W->bufs);
    if (W->gemm) W->gemm->u.gemm.inflight = true;
    /* after its wait, the gemm's warp group is done with the stage: one thread tells */
    W->per_group = W->gemm && pipe_only_gemm_reads(L->u.for_.body, W->nprod, W->bufs, W->gemm);
    plan_cluster(W, k, u, li);
    W->sk = plan_splitk(W, k, li, D);
    W->full = ring(ctx, "full_barrier", W->S, loc);
    W->empty = ring(ctx, "empty_barrier", W->S, loc);
    Stmt *front = ir_seq(ctx, body->loc), *cons = ir_seq(ctx, body->loc);
    Stmt *prod = ir_seq(ctx, body->loc), *epilogue = ir_seq(ctx, body->loc);
    hoist_stage_allocs(W, front);
    for (int i = 0; i < body->u.seq.len; i++) {
        Stmt *s = body->u.seq.data[i];
        if (i == li) {
            if (W->sk) ir_seq_push(ctx, cons, splitk_op(ctx, SK_ZERO, loc));
            ir_seq_push(ctx, cons, D >= 0 ? consumer_scheduled(W, D, nthreads) : consumer_loop(W));
            if (W->gemm) ir_seq_push(ctx, cons, pipe_wgmma_drain(ctx, W->gemm, loc));
            if (W->gemm && W->tile) ir_seq_push(ctx, cons, release_last(W));
            if (W->sk) ir_seq_push(ctx, cons, splitk_op(ctx, SK_COMBINE, loc));
        } else if (i > li && W->sk) {
            ir_seq_push(ctx, epilogue, s);
        } else if (i < li && per_tile[i] && W->tile) {
            Stmt *copy = ir_stmt(ctx, STMT_LET, s->loc); /* the same var, in both scopes */
            copy->u.let = s->u.let;
            copy->u.let.value = ir_subst(ctx, s->u.let.value, NULL, NULL);
            ir_seq_push(ctx, prod, copy);
            ir_seq_push(ctx, cons, s);
        } else if (i < li && hoisted(s, u)) {
            ir_seq_push(ctx, front, s);
        } else {
            ir_seq_push(ctx, cons, s);
        }
    }
    if (W->sk) ir_seq_push(ctx, cons, finishing(W, epilogue));
    ir_seq_push(ctx, front, alloc_of(ctx, W->full));
    ir_seq_push(ctx, front, alloc_of(ctx, W->empty));
    ir_seq_push(ctx, front,
                mbar(ctx, MBAR_INIT, W->full, NULL, ir_int(ctx, 1, DT_INT32, loc), loc));
    Stmt *init = mbar(ctx, MBAR_INIT, W->empty, NULL,
                      ir_int(ctx, W->per_group ? nthreads / 128 : nthreads, DT_INT32, loc), loc);
    init->u.mbar.cluster = W->cluster > 1;
    ir_seq_push(ctx, front, init);
    ir_seq_push(ctx, front, ir_stmt(ctx, STMT_SYNC, loc));
    Stmt *ws = ir_stmt(ctx, STMT_WS, loc);
    ir_seq_push(ctx, prod, producer(W, k->u.kernel.ntmaps));
    if (W->sk) { /* the consumers' loop runs the unit's iterations (last: both sides count
                    stages and phases from the loop's own bounds) */
        Expr *min = unit_min(W), *n = unit_extent(W);
        L->u.for_.min = min, L->u.for_.extent = n;
    }
    ws->u.ws.producer = prod;
    ws->u.ws.consumer = cons;
    ws->u.ws.tile = W->tile;
    ws->u.ws.cluster = W->cluster, ws->u.ws.cluster_dim = W->cluster_dim;
    ws->u.ws.sk = W->sk;
    ir_seq_push(ctx, front, ws);
    for (int i = 0; i < W->nprod; i++) {
        pipe_stack_buffer(ctx, W->bufs[i], W->S);
        if (!W->maps[i]->swizzle && W->bufs[i]->align < 128) W->bufs[i]->align = 128;
        if (W->maps[i]->buf->align < 16) W->maps[i]->buf->align = 16; /* the map's base */
    }
    pipe_add_tmaps(ctx, k, W->maps, W->nprod);
    k->u.kernel.body = front;
    k->u.kernel.producer_threads = PRODUCER_THREADS;
}

/* 32-bit registers per thread of the kernel's register fragments. */
static void frag_regs(Stmt **slot, void *ud) {
    const Stmt *s = *slot;
    if (s->kind == STMT_ALLOC && s->u.alloc.buf->layout)
        *(int64_t *)ud += (s->u.alloc.buf->layout->nlocal * dtype_bytes(s->u.alloc.buf->dtype) +
                           3) /
                          4;
    ir_stmt_children(*slot, frag_regs, ud);
}

/* Whether the fragments fit the registers ptxas may give each thread of the block with
 * the producer warp group added (cuda_launch_regs). Their sum overstates what is live at
 * once (a cast copy replaces its source as it is written: flash attention's 128 x 128
 * tiles at head dim 128 sum to 170 and fit in 168 without spills), so it may exceed the
 * registers by REG_SLACK; where ptxas then cannot fit an instruction (C7602) the kernel
 * is compiled again without the producer warp group (api.c). Else the kernel keeps
 * cp.async. */
static bool regs_fit(Ctx *ctx, Func *f, Stmt *k) {
    int64_t need = 0, cap = cuda_launch_regs(k->u.kernel.threads[0] + PRODUCER_THREADS);
    frag_regs(&k->u.kernel.body, &need);
    if (need <= cap + REG_SLACK) return true;
    pass_remark(ctx, f, k->loc,
                "no TMA producer warp group for this kernel: with its %d more threads a thread "
                "may hold %lld registers, and the fragments need %lld of them; fewer threads "
                "or smaller tiles would allow it",
                PRODUCER_THREADS, (long long)cap, (long long)need);
    return false;
}

bool pipe_warp_specialize(Ctx *ctx, Func *f, Stmt *k) {
    const int *th = k->u.kernel.threads;
    Stmt *body = k->u.kernel.body;
    if (ctx->opts.no_ws || !options_wgmma(&ctx->opts) || th[1] * th[2] != 1 || th[0] % 128 ||
        th[0] + PRODUCER_THREADS > MAX_THREADS || body->kind != STMT_SEQ || ir_group_syncs(body) ||
        ir_cluster_size(k) > 1)
        return false;
    Scan scan = {.ctx = ctx};
    scan_stmt(&k->u.kernel.body, &scan);
    int li = -1;
    for (int i = 0; i < body->u.seq.len; i++) {
        Stmt *s = body->u.seq.data[i];
        if (s->kind == STMT_FOR && s->u.for_.kind == LOOP_PIPELINED) li = i;
    }
    bool ok = li >= 0 && scan.pipelined == 1 && !scan.jumps && !scan.simt_gemms;
    Ws W = {.ctx = ctx, .f = f, .L = ok ? body->u.seq.data[li] : NULL};
    if (ok) {
        W.S = W.L->u.for_.num_stages;
        W.nprod = pipe_producer_count(k, W.L);
        ok = W.S >= 2 && W.S <= MAX_STAGES && W.nprod > 0 && W.nprod <= PIPE_MAX_PRODUCERS;
    }
    /* what the producer may use: the loop variable and the lets that move up front */
    const Var **known = ok ? NEW_ARRAY(&ctx->arena, const Var *, body->u.seq.len + 1) : NULL;
    Uses u = {&scan, known, 0, false};
    if (ok) {
        known[u.nknown++] = W.L->u.for_.var;
        for (int i = 0; i < li; i++) {
            const Stmt *s = body->u.seq.data[i];
            if (s->kind == STMT_LET && hoisted(s, &u)) known[u.nknown++] = s->u.let.var;
        }
        ok = plan(&W, f, k, &u) && regs_fit(ctx, f, k);
    }
    if (ok) build(&W, k, &u, li);
    f->warp_specialized |= ok;
    return ok;
}
