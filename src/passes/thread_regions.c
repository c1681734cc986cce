/* thread_regions.c - tile operations under a condition on the thread index, as TileLang
 * programs write them (`if T.get_thread_binding() < 32: T.copy(...); T.reduce_max(...)`,
 * examples/deepseek_mhc): TileLang narrows the tile operations under such an `if` to the
 * threads its condition admits. tilec's matching mechanism is the T.ws region
 * (STMT_THREADS, a range of the block's threads running a body), so an `if` whose
 * condition bounds the block's thread index to a range (`tx < c`, `tx >= c`, `c0 <= tx <
 * c1`, `c0 <= tx and tx < c1`, either side of the comparison) and whose branches hold a
 * tile operation becomes the region of the range running its `then`
 * branch, followed by the region of the other threads running its `else` branch (an
 * `elif` chain of such conditions: each branch the region of the threads it admits among
 * those the earlier ones left). Inside
 * a region, T.get_thread_binding() stays the block's thread index (both targets).
 *
 * Left as they are (pass_mark_varying's errors then apply): ifs inside a T.Parallel loop,
 * a T.ws region, or another condition on the thread index; kernels with threads in y or
 * z; other conditions. Errors: a range that is not made of whole warps (the region's
 * barriers are named barriers of whole warps), an `else` whose threads are not one range,
 * and a kernel with named barriers of its own (the regions' barriers are named barriers).
 *
 * Requires: tile IR (before pass_mark_varying). Provides: no such `if` with tile ops. */
#include "passes/passes.h"
#include "ir/ir_walk.h"

enum { WARP = 32 };

typedef struct Regions {
    Ctx *ctx;
    const Var *tx;   /* the kernel's thread index along x (threads in x only) */
    int nthreads;    /* of the block */
    int parallel;    /* T.Parallel loops around the statement walked */
    int guarded;     /* T.ws regions and conditions on the thread index around it */
    bool named_bars; /* the kernel has named barriers of its own */
} Regions;

static bool reads_thread(const Regions *R, const Expr *e);

static void reads_thread_slot(Expr **slot, void *ud) {
    const Regions *R = ((const void **)ud)[0];
    if (reads_thread(R, *slot)) ((const void **)ud)[1] = R;
}

/* Whether e reads the thread index (directly: lets of it are not followed). */
static bool reads_thread(const Regions *R, const Expr *e) {
    if (!e) return false;
    if (e->kind == EXPR_VAR) return e->u.var == R->tx;
    const void *ud[2] = {R, NULL};
    ir_expr_children((Expr *)e, reads_thread_slot, ud);
    return ud[1] != NULL;
}

static bool block_level(const Stmt *s);

static void block_level_slot(Stmt **slot, void *ud) {
    if (block_level(*slot)) *(bool *)ud = true;
}

/* Whether s holds what the whole block does (a tile operation on shared or global data,
 * a T.Parallel or T.Pipelined loop). A block barrier alone is not (threads that skip it
 * would never meet it: pass_mark_varying's error); beside tile ops it is the region's. */
static bool block_level(const Stmt *s) {
    if (!s) return false;
    switch (s->kind) {
    case STMT_COPY:
        return s->u.copy.dst.buf->scope != SCOPE_LOCAL && s->u.copy.dst.buf->scope != SCOPE_VAR;
    case STMT_FILL:
        return s->u.fill.dst.buf->scope != SCOPE_LOCAL && s->u.fill.dst.buf->scope != SCOPE_VAR;
    case STMT_GEMM:
    case STMT_REDUCE:
    case STMT_CUMSUM: return true;
    case STMT_FOR:
        if (s->u.for_.kind == LOOP_PARALLEL || s->u.for_.kind == LOOP_PIPELINED) return true;
        break;
    default: break;
    }
    bool found = false;
    ir_stmt_children((Stmt *)s, block_level_slot, &found);
    return found;
}

/* The region of threads [lo, hi) running body, or body itself for the whole block, or an
 * empty statement for no thread. */
static Stmt *region(Regions *R, Stmt *body, int64_t lo, int64_t hi, Loc loc) {
    if (!body || lo >= hi) return ir_seq(R->ctx, loc);
    if (lo == 0 && hi == R->nthreads) return body;
    if (lo % WARP || (hi - lo) % WARP)
        ctx_fail(R->ctx, loc,
                 "tile operations under a condition on the thread index run in the threads "
                 "it admits (%lld..%lld here), which must be whole warps (multiples of %d)",
                 (long long)lo, (long long)hi - 1, WARP);
    if (R->named_bars)
        ctx_fail(R->ctx, loc,
                 "tile operations under a condition on the thread index in a kernel with named "
                 "barriers of its own (T.sync_threads(id, n), T.named_barrier_arrive): their "
                 "threads' barriers are named barriers too");
    Stmt *r = ir_stmt(R->ctx, STMT_THREADS, loc);
    r->u.threads.lo = (int)lo, r->u.threads.count = (int)(hi - lo), r->u.threads.body = body;
    return r;
}

/* The if's `else` when it is one `if` on the thread range (an `elif`), else NULL. */
static Stmt *elif_of(const Regions *R, const Stmt *s) {
    Stmt *e = ir_only_stmt(s->u.if_.orelse);
    int64_t lo = 0, hi = R->nthreads;
    return e && e->kind == STMT_IF && ir_var_range(e->u.if_.cond, R->tx, &lo, &hi) ? e : NULL;
}

/* Pushes onto seq what threads [rlo, rhi) run for `if cond: A else: B` (cond a thread
 * range): the region of the threads cond admits running A, then the others running B,
 * and for an `elif` chain its conditions among the others in turn. */
static void split_if(Regions *R, Stmt *s, int64_t rlo, int64_t rhi, Stmt *seq) {
    int64_t lo = rlo, hi = rhi;
    ir_var_range(s->u.if_.cond, R->tx, &lo, &hi);
    lo = lo < rlo ? rlo : lo, hi = hi > rhi ? rhi : hi;
    ir_seq_push(R->ctx, seq, region(R, s->u.if_.then, lo, hi, s->loc));
    Stmt *other = s->u.if_.orelse;
    if (!other || (other->kind == STMT_SEQ && !other->u.seq.len)) return;
    if (lo > rlo && hi < rhi && lo < hi)
        ctx_fail(R->ctx, s->loc,
                 "tile operations in the `else` of a condition on the thread index that "
                 "admits threads %lld..%lld: the others are not one range (write two `if`s)",
                 (long long)lo, (long long)hi - 1);
    int64_t olo = lo >= hi || lo > rlo ? rlo : hi, ohi = lo >= hi ? rhi : lo > rlo ? lo : rhi;
    Stmt *elif = elif_of(R, s);
    if (elif) split_if(R, elif, olo, ohi, seq);
    else ir_seq_push(R->ctx, seq, region(R, other, olo, ohi, other->loc));
}

static void walk(Stmt **slot, void *ud) {
    Regions *R = ud;
    Stmt *s = *slot;
    int64_t lo = 0, hi = R->nthreads;
    if (s->kind == STMT_IF && !R->parallel && !R->guarded &&
        ir_var_range(s->u.if_.cond, R->tx, &lo, &hi) &&
        (block_level(s->u.if_.then) || block_level(s->u.if_.orelse))) {
        Stmt *seq = ir_seq(R->ctx, s->loc);
        split_if(R, s, 0, R->nthreads, seq);
        *slot = s = seq;
        R->guarded++; /* (the regions' bodies: their ifs stay ifs) */
        ir_stmt_children(s, walk, ud);
        R->guarded--;
        return;
    }
    bool guard = s->kind == STMT_THREADS || (s->kind == STMT_IF && reads_thread(R, s->u.if_.cond));
    bool par = s->kind == STMT_FOR && s->u.for_.kind == LOOP_PARALLEL;
    R->guarded += guard, R->parallel += par;
    ir_stmt_children(s, walk, ud);
    R->guarded -= guard, R->parallel -= par;
}

static void find_named_bars(Stmt **slot, void *ud) {
    if ((*slot)->kind == STMT_NAMED_BAR) *(bool *)ud = true;
    else ir_stmt_children(*slot, find_named_bars, ud);
}

static void find_kernels(Stmt **slot, void *ud) {
    Stmt *k = *slot;
    if (k->kind != STMT_KERNEL) {
        ir_stmt_children(k, find_kernels, ud);
        return;
    }
    const int *th = k->u.kernel.threads;
    if (!k->u.kernel.thread[0] || th[1] * th[2] != 1) return;
    Regions R = {.ctx = ud, .tx = k->u.kernel.thread[0], .nthreads = th[0]};
    find_named_bars(&k->u.kernel.body, &R.named_bars);
    walk(&k->u.kernel.body, &R);
}

void pass_thread_regions(Ctx *ctx, Func *f) {
    if (f->body) find_kernels(&f->body, ctx);
}
