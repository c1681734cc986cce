/* mark_varying.c - what may differ between the threads of a block, in a kernel that reads a
 * thread index (T.get_thread_binding): Var.varying for the thread indices, for lets whose
 * value reads a varying value and for variables of loops whose bounds do; Buffer.varying
 * for local and var buffers written with a varying index or value, or under a varying
 * condition (a fixed point: loads of such a buffer vary). Code under a varying condition
 * (an `if` on a thread index, a loop with varying bounds) runs per thread, as the thread
 * level of TileLang's language is: tile operations there are an error, as are
 * T.sync_threads and the calls that read other threads' values (warp shuffles and votes,
 * block votes: intrinsic_reads_threads), which threads that skip them would never meet;
 * so are such calls inside a T.Parallel loop (whose iterations the layout gives to
 * threads), and a tile operation whose region varies. Such a call's value varies (a
 * kernel with one has a thread index, and the front end makes each call the value of a
 * let of its own, so that no expression evaluates it in some threads only:
 * tileops_thread.c). An impure extern call (T.call_extern) varies: every thread makes it
 * (its kernel has a thread index: tileops_mem.c), as does what it writes (its result,
 * per-thread buffers through its pointers); so does an atomic that returns its previous
 * value (return_prev=True), which every thread makes, as TileLang does. Both are an error
 * inside a T.Parallel loop. Kernels that read no thread index get that check only.
 *
 * Requires: tile IR (before lower_tile_ops). Provides: the marks ir_expr_varies and
 * ir_stmt_varies read; the variables that later passes make are uniform. */
#include "passes/passes.h"
#include "ir/ir_walk.h"

static void expr_varies_slot(Expr **slot, void *ud);

bool ir_expr_varies(const Expr *e) {
    if (!e) return false;
    if (e->kind == EXPR_VAR) return e->u.var->varying;
    if (e->kind == EXPR_LOAD && e->u.load.buf->varying) return true;
    if (e->kind == EXPR_CALL && intrinsic_reads_threads(e->u.call.fn)) return true;
    bool found = false;
    ir_expr_children((Expr *)e, expr_varies_slot, &found);
    return found;
}

static void expr_varies_slot(Expr **slot, void *ud) {
    if (!*(bool *)ud && ir_expr_varies(*slot)) *(bool *)ud = true;
}

bool ir_effect_varies(Expr *const *idx, int n, const Expr *value) {
    bool varies = ir_expr_varies(value);
    for (int d = 0; d < n && !varies; d++) varies = ir_expr_varies(idx[d]);
    return varies;
}

bool ir_stmt_varies(const Stmt *s) {
    switch (s->kind) {
    case STMT_IF: return ir_expr_varies(s->u.if_.cond);
    case STMT_WHILE: return ir_expr_varies(s->u.while_.cond);
    case STMT_FOR: return ir_expr_varies(s->u.for_.min) || ir_expr_varies(s->u.for_.extent);
    default: return false;
    }
}

typedef struct Mark {
    Ctx *ctx;
    bool changed, check;
    int depth;    /* varying conditions around the statement walked */
    int parallel; /* T.Parallel loops around it */
} Mark;

/* Whether any expression s owns (not its children's) varies. */
static bool own_exprs_vary(Stmt *s) {
    bool found = false;
    ir_stmt_exprs(s, expr_varies_slot, &found);
    return found;
}

static void find_cross(Expr **slot, void *ud) {
    Expr *e = *slot;
    if (e->kind == EXPR_CALL && intrinsic_reads_threads(e->u.call.fn)) {
        if (!*(const Expr **)ud) *(const Expr **)ud = e;
    } else {
        ir_expr_children(e, find_cross, ud);
    }
}

bool ir_expr_reads_threads(const Expr *e) {
    const Expr *found = NULL;
    Expr *slot = (Expr *)e;
    if (e) find_cross(&slot, &found);
    return found != NULL;
}

static bool per_thread(const Buffer *b) {
    return b && (b->scope == SCOPE_LOCAL || b->scope == SCOPE_VAR);
}

/* The buffer s writes, for the tile statements and stores. */
static Buffer *written(const Stmt *s) {
    switch (s->kind) {
    case STMT_STORE: return s->u.store.buf;
    case STMT_COPY: return s->u.copy.dst.buf;
    case STMT_FILL: return s->u.fill.dst.buf;
    case STMT_GEMM: return s->u.gemm.c.buf;
    case STMT_REDUCE: return s->u.reduce.dst.buf;
    case STMT_CUMSUM: return s->u.cumsum.dst.buf;
    case STMT_ATOMIC: return s->u.atomic.dst.buf;
    default: return NULL;
    }
}

static const char *tile_op_name(const Stmt *s) {
    switch (s->kind) {
    case STMT_COPY: return "T.copy";
    case STMT_FILL: return "T.fill";
    case STMT_GEMM: return "T.gemm";
    case STMT_REDUCE: return "T.reduce";
    case STMT_CUMSUM: return s->u.cumsum.max ? "T.cummax" : "T.cumsum";
    case STMT_FOR:
        return s->u.for_.kind == LOOP_PARALLEL    ? "a T.Parallel loop"
               : s->u.for_.kind == LOOP_PIPELINED ? "a T.Pipelined loop"
                                                  : NULL;
    default: return NULL;
    }
}

/* What a call that reads other threads is, in errors, and who must reach it. */
static const char *cross_what(Mark *m, const Expr *e) {
    Intrinsic fn = e->u.call.fn;
    if (intrinsic_is_shfl(fn)) return "a warp shuffle";
    if (intrinsic_is_block_vote(fn))
        return arena_printf(&m->ctx->arena, "T.%s", intrinsic_name(fn));
    return "a warp vote";
}

static const char *cross_who(const Expr *e) {
    return intrinsic_is_block_vote(e->u.call.fn) ? "every thread of the block"
                                                 : "every lane of the warp";
}

/* e: the first call in s that reads other threads. */
static void check_cross(Mark *m, Stmt *s, const Expr *e) {
    if (m->depth)
        ctx_fail(m->ctx, s->loc,
                 "%s under a condition that depends on the thread index is not supported: %s "
                 "must reach it",
                 cross_what(m, e), cross_who(e));
    if (m->parallel)
        ctx_fail(m->ctx, s->loc,
                 "%s inside a T.Parallel loop is not supported: which thread runs an "
                 "iteration is the layout's choice (in thread-level code, loop with "
                 "T.serial)",
                 cross_what(m, e));
}

/* Tile operations act for the whole block: under a varying condition, or with a region
 * that varies, they would mean something different in each thread. A fill of, or a copy
 * into or out of, a per-thread buffer is each thread's own. */
static void check(Mark *m, Stmt *s) {
    const char *op = tile_op_name(s);
    if ((s->kind == STMT_FILL || s->kind == STMT_COPY) && per_thread(written(s)))
        op = NULL; /* each thread's own */
    if (s->kind == STMT_COPY && per_thread(s->u.copy.src.buf)) op = NULL;
    if (op && m->depth)
        ctx_fail(m->ctx, s->loc,
                 "%s under a condition that depends on the thread index is not supported: "
                 "tile operations act for the whole block (move it out of the `if` or loop)",
                 op);
    if (op && s->kind != STMT_FOR && own_exprs_vary(s))
        ctx_fail(m->ctx, s->loc,
                 "%s over a region that depends on the thread index is not supported: tile "
                 "operations act for the whole block (index per thread with a T.serial or "
                 "T.vectorized loop instead)",
                 op);
    if (s->kind == STMT_FOR && s->u.for_.kind == LOOP_PARALLEL && ir_stmt_varies(s))
        ctx_fail(m->ctx, s->loc,
                 "a T.Parallel loop whose bounds depend on the thread index "
                 "is not supported (use T.serial)");
    const Expr *cross = NULL;
    ir_stmt_exprs(s, find_cross, &cross);
    if (cross) check_cross(m, s, cross);
    if (s->kind == STMT_SYNC && m->depth)
        ctx_fail(m->ctx, s->loc,
                 "T.sync_threads under a condition that depends on the thread index: threads "
                 "that skip it would wait for each other forever");
    if (s->kind == STMT_GROUP_SYNC && (m->depth || m->parallel))
        ctx_fail(m->ctx, s->loc,
                 "T.%s %s: every thread of every block must reach the same barriers; call it "
                 "where the whole block runs",
                 group_sync_op_name(s->u.gsync.op),
                 m->parallel ? "inside a T.Parallel loop"
                             : "under a condition that depends on the thread index");
    if (s->kind == STMT_MBAR && s->u.mbar.op == MBAR_INIT && m->depth)
        ctx_fail(m->ctx, s->loc,
                 "T.ptx_init_barrier_thread_count under a condition that depends on the thread "
                 "index: the block's first thread initializes the barrier; call it where every "
                 "thread runs");
}

static void mark_var(Mark *m, Var *v) {
    if (!v->varying) v->varying = true, m->changed = true;
}

/* Whether extern call s varies between threads: an impure one always (every thread makes
 * the call), a pure one when a value or a buffer it reads through a pointer does. */
static bool extern_varies(const Mark *m, Stmt *s) {
    if (!s->u.extern_.pure || m->depth || own_exprs_vary(s)) return true;
    for (int i = 0; i < s->u.extern_.nargs; i++)
        if (!s->u.extern_.args[i].value && s->u.extern_.args[i].buf->varying) return true;
    return false;
}

static void mark_buf(Mark *m, Buffer *b) {
    if (per_thread(b) && !b->varying) b->varying = true, m->changed = true;
}

/* The per-thread buffers an extern call or an atomic's previous value writes, when the
 * statement varies. */
static void mark_results(Mark *m, Stmt *s) {
    if (s->kind == STMT_ATOMIC && s->u.atomic.prev) mark_buf(m, s->u.atomic.prev);
    if (s->kind != STMT_EXTERN || !extern_varies(m, s)) return;
    if (s->u.extern_.result) mark_buf(m, s->u.extern_.result);
    for (int i = 0; i < s->u.extern_.nargs; i++)
        if (!s->u.extern_.args[i].value && (s->u.extern_.args[i].rw & 2))
            mark_buf(m, s->u.extern_.args[i].buf);
}

/* T.call_extern and an atomic that returns its previous value run in every thread of the
 * block: thread-level code, which a T.Parallel loop (whose iterations the compiler gives
 * to threads) is not. */
static void check_thread_level(Mark *m, Stmt *s) {
    bool prev = s->kind == STMT_ATOMIC && s->u.atomic.prev;
    bool impure = s->kind == STMT_EXTERN && !s->u.extern_.pure;
    if (m->parallel && (prev || impure))
        ctx_fail(m->ctx, s->loc,
                 "%s inside a T.Parallel loop is not supported: each thread makes it, and the "
                 "compiler decides which thread runs an iteration (use a T.serial loop under "
                 "T.get_thread_binding)",
                 prev ? arena_printf(&m->ctx->arena, "T.atomic_%s(return_prev=True)",
                                     atomic_op_name(s->u.atomic.op))
                      : "T.call_extern");
}

static void walk(Stmt **slot, void *ud) {
    Mark *m = ud;
    Stmt *s = *slot;
    if (m->check) check(m, s);
    if (s->kind == STMT_LET && ir_expr_varies(s->u.let.value)) mark_var(m, s->u.let.var);
    if (s->kind == STMT_FOR && ir_stmt_varies(s)) mark_var(m, s->u.for_.var);
    Buffer *w = written(s);
    if (per_thread(w) && !w->varying && (m->depth || own_exprs_vary(s)))
        w->varying = true, m->changed = true;
    mark_results(m, s);
    if (m->check) check_thread_level(m, s);
    bool cond = ir_stmt_varies(s);
    bool par = s->kind == STMT_FOR && s->u.for_.kind == LOOP_PARALLEL;
    m->depth += cond, m->parallel += par;
    ir_stmt_children(s, walk, ud);
    m->depth -= cond, m->parallel -= par;
}

/* A T.Parallel body is one iteration's, a tile op's region an element's: loads of varying
 * buffers inside them are what the checks above look at, through own_exprs_vary. */
static void mark_kernel(Ctx *ctx, Stmt *k) {
    bool any = false;
    for (int d = 0; d < 3; d++)
        if (k->u.kernel.thread[d]) k->u.kernel.thread[d]->varying = any = true;
    Mark m = {.ctx = ctx, .changed = any};
    while (m.changed) {
        m.changed = false;
        walk(&k->u.kernel.body, &m);
    }
    m.check = true; /* (a kernel that reads no thread index: the return_prev check only) */
    walk(&k->u.kernel.body, &m);
}

static void find_kernels(Stmt **slot, void *ud) {
    if ((*slot)->kind == STMT_KERNEL) mark_kernel(ud, *slot);
    else ir_stmt_children(*slot, find_kernels, ud);
}

void pass_mark_varying(Ctx *ctx, Func *f) {
    if (f->body) find_kernels(&f->body, ctx);
}
