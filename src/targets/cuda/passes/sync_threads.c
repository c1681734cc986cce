/* sync_threads.c - inserts the barriers (STMT_SYNC, __syncthreads()) that the SIMT model
 * of pass_map_threads needs: between two accesses to one block-wide buffer (global,
 * shared, fragment) of which at least one writes, when different threads may make them
 * (read-after-write, write-after-read, write-after-write), and on loop back edges when
 * the end of an iteration conflicts with the start of the next.
 *
 * Requires: pass_map_threads. Provides: no missing barrier under the model; every
 * inserted STMT_SYNC sits in serial code (never inside a distributed loop; serial `if`
 * and loop conditions are uniform, so every thread reaches it).
 *
 * Two different shared buffers conflict too when their bytes overlap: the placement
 * (cuda_smem_ranges) lets a buffer reuse the bytes of one whose lifetime has ended, and
 * other threads may still be reading the old one.
 *
 * Who makes an access: in serial code, a statement that writes block-wide memory (store,
 * atomic, alloc init) or prints runs in thread 0 alone (ONE), unless its index or value
 * differs between threads (ir_effect_varies: thread-level code); other serial accesses
 * are made by every thread (ALL); an `if` or loop whose condition or bounds differ
 * between threads is one simple statement whose accesses are ALL (no barrier goes inside
 * it); accesses inside a distributed loop by the thread owning the iteration (DIST). Two
 * accesses are by the same thread, so need no barrier, when both are ONE, or when both
 * are DIST in nests of the same constant shape and index the buffer with the same
 * injective map of the nest's loop variables (each index a constant,
 * `var + constant`, or a wildcard that uses no nest variable (an inner loop's index, say);
 * every nest variable used once): then an element is touched in the same iteration,
 * hence by the same thread, in both loops.
 *
 * Placement: a linear scan keeps the accesses made since the last barrier ("pending").
 * A barrier goes right before a simple statement (or a distributed loop) that conflicts
 * with them; compound serial statements (if, serial loops) are entered so barriers land
 * inside them, as late as possible, except that a conflict between the pending set and
 * what a serial loop does before its own first barrier puts one barrier before the loop
 * rather than one per iteration inside it. For a loop, the pending set at the back edge (end of
 * the body and each `continue`) is checked against the accesses the body can make before
 * its first barrier; a conflict puts a barrier at the end of the body and before each of
 * its `continue`s. Before that, such a conflict plans the body again entered with the
 * back edges' accesses, which puts the barrier before the first statement that conflicts
 * instead, as late as possible; the end of the body gets one only if a conflict remains.
 * A warp-specialized region (STMT_WS) is planned on its consumer, as the body of a loop
 * over the block's tiles when it has a tile var: the producer's TMA writes are ordered by
 * mbarriers, like cp.async by the pipeline's waits.
 * A reduction across warps contains barriers of its own, which order what precedes it
 * (reduce_accesses). */
#include "targets/cuda/passes/cuda_passes.h"
#include "ir/ir_walk.h"
#include "layout/frag.h"

enum { MAX_DIMS = 8, MAX_NEST = 16 };

typedef enum Who { WHO_ONE, WHO_ALL, WHO_DIST } Who;

typedef struct Access {
    const Buffer *buf;
    bool write;
    Who who;
    int lo, count;             /* made in T.ws region threads lo .. lo + count - 1; count 0: by
                            code that every thread of the block runs */
    bool exact;                /* DIST: pos/off give an injective map of the nest's variables */
    const Stmt *nest;          /* DIST and exact: root of the nest */
    signed char pos[MAX_DIMS]; /* nest loop of the index's variable, -1 for a constant */
    int64_t off[MAX_DIMS];
    Expr *const *idx; /* an element's indices, or NULL (a tile): accesses with different
                         constants in one dimension never meet */
    /* thread-level code indexing dimension owner_dim with the thread index plus
     * owner_off (Sync.tid): each thread touches elements of its own there */
    bool owned;
    int owner_dim;
    int64_t owner_off;
} Access;

typedef Vec(Access) AccSet;

typedef struct LoopCtx {
    AccSet brk, cont; /* pending sets at its break and continue statements */
    bool has_break, has_continue;
} LoopCtx;

typedef struct Sync {
    Ctx *ctx;
    LoopCtx *loop;
    int lo, count;     /* the T.ws region being planned (count 0: the block's code) */
    SmemRange *ranges; /* the kernel's shared-memory placement (cuda_smem_ranges) */
    int nranges;
    const Var *tid; /* the kernel's thread index when its threads lie along one dimension */
} Sync;

/* ---- access sets ----------------------------------------------------------------------- */
/* Same iteration, same thread: nests of one shape mapped alike (both by the flat SIMT
 * split, or by equal register layouts without replicas). */
static bool nest_shape_equal(const Stmt *a, const Stmt *b) {
    Stmt *la[MAX_NEST], *lb[MAX_NEST];
    const Frag *fa = a->u.for_.layout, *fb = b->u.for_.layout;
    if ((fa && frag_replicated(fa)) || (fb && frag_replicated(fb))) return false;
    if (a == b) return true;
    if (!fa != !fb || (fa && !frag_equal(fa, fb))) return false;
    int n = simt_parallel_nest((Stmt *)a, la, MAX_NEST);
    if (n != simt_parallel_nest((Stmt *)b, lb, MAX_NEST)) return false;
    for (int i = 0; i < n; i++) {
        int64_t ma, mb, ea, eb;
        if (!ir_is_const_int(la[i]->u.for_.min, &ma) || !ir_is_const_int(lb[i]->u.for_.min, &mb) ||
            !ir_is_const_int(la[i]->u.for_.extent, &ea) ||
            !ir_is_const_int(lb[i]->u.for_.extent, &eb) || ma != mb || ea != eb)
            return false;
    }
    return true;
}

static bool same_thread(const Access *a, const Access *b) {
    if (a->lo != b->lo || a->count != b->count) return false; /* thread numbers differ */
    if (a->who == WHO_ONE && b->who == WHO_ONE) return true;
    if (a->owned && b->owned && a->owner_dim == b->owner_dim && a->owner_off == b->owner_off)
        return true; /* an element both touch has index tid + off there: one thread */
    if (a->who != WHO_DIST || b->who != WHO_DIST || !a->exact || !b->exact) return false;
    if (!nest_shape_equal(a->nest, b->nest)) return false;
    for (int d = 0; d < a->buf->ndim; d++)
        if (a->pos[d] != b->pos[d] || a->off[d] != b->off[d]) return false;
    return true;
}

/* Two buffers whose shared-memory bytes overlap (lifetime reuse: one is dead before the
 * other is written, but other threads may still be reading it). */
static bool aliased(const Sync *S, const Buffer *a, const Buffer *b) {
    const SmemRange *ra = NULL, *rb = NULL;
    for (int i = 0; i < S->nranges; i++) {
        if (S->ranges[i].buf == a) ra = &S->ranges[i];
        if (S->ranges[i].buf == b) rb = &S->ranges[i];
    }
    return ra && rb && ra->lo < rb->hi && rb->lo < ra->hi;
}

static bool other_elements(const Access *a, const Access *b) {
    int64_t x, y;
    for (int d = 0; a->idx && b->idx && d < a->buf->ndim; d++)
        if (ir_is_const_int(a->idx[d], &x) && ir_is_const_int(b->idx[d], &y) && x != y) return true;
    return false;
}

static bool access_conflict(const Sync *S, const Access *a, const Access *b) {
    if (!a->write && !b->write) return false;
    if (a->count && b->count && !S->count) return false; /* regions: the program's mbarriers */
    if (a->buf == b->buf) return !same_thread(a, b) && !other_elements(a, b);
    return aliased(S, a->buf, b->buf) && !(a->who == WHO_ONE && b->who == WHO_ONE);
}

static bool set_conflict(const Sync *S, const AccSet *p, const AccSet *a) {
    for (int i = 0; i < p->len; i++)
        for (int j = 0; j < a->len; j++)
            if (access_conflict(S, &p->data[i], &a->data[j])) return true;
    return false;
}

static bool access_same(const Access *a, const Access *b) {
    if (a->buf != b->buf || a->write != b->write || a->who != b->who || a->exact != b->exact)
        return false;
    if (!a->exact) return true;
    if (a->nest != b->nest) return false;
    for (int d = 0; d < a->buf->ndim; d++)
        if (a->pos[d] != b->pos[d] || a->off[d] != b->off[d]) return false;
    return true;
}

/* (An access of another site stays an entry of its own: it may name other elements.) */
static void set_add(Sync *S, AccSet *s, const Access *a) {
    for (int i = 0; i < s->len; i++)
        if (access_same(&s->data[i], a) && s->data[i].idx == a->idx) return;
    VEC_PUSH(&S->ctx->arena, *s, *a);
}

static AccSet set_union(Sync *S, const AccSet *a, const AccSet *b) {
    AccSet r = {0};
    for (int i = 0; i < a->len; i++) set_add(S, &r, &a->data[i]);
    for (int i = 0; i < b->len; i++) set_add(S, &r, &b->data[i]);
    return r;
}

/* ---- collecting the accesses of a statement ------------------------------------------- */
typedef struct Collect {
    Sync *S;
    AccSet *out;
    Who who;
    const Stmt *nest;    /* DIST: root of the distributed nest */
    Var *vars[MAX_NEST]; /* DIST: its loop variables */
    int nvars;
} Collect;

static bool uses_nest_var(const Collect *C, const Expr *e) {
    if (!e) return false;
    switch (e->kind) {
    case EXPR_VAR:
        for (int k = 0; k < C->nvars; k++)
            if (C->vars[k] == e->u.var) return true;
        return false;
    case EXPR_BIN: return uses_nest_var(C, e->u.bin.a) || uses_nest_var(C, e->u.bin.b);
    case EXPR_UN: return uses_nest_var(C, e->u.un.a);
    case EXPR_CALL:
        return uses_nest_var(C, e->u.call.args[0]) || uses_nest_var(C, e->u.call.args[1]) ||
               uses_nest_var(C, e->u.call.args[2]);
    case EXPR_CAST: return uses_nest_var(C, e->u.cast.value);
    case EXPR_LOAD:
        for (int d = 0; d < e->u.load.buf->ndim; d++)
            if (uses_nest_var(C, e->u.load.idx[d])) return true;
        return false;
    case EXPR_SELECT:
        return uses_nest_var(C, e->u.select.cond) || uses_nest_var(C, e->u.select.then) ||
               uses_nest_var(C, e->u.select.orelse);
    default: return false;
    }
}

/* An index of a distributed access: `const` or `var + const` of a nest variable (its
 * position in pos; -1 for a constant), or an expression of no nest variable at all (a
 * wildcard, pos -2: it may take any value in the iteration, e.g. an inner loop's). */
static bool index_term(const Collect *C, const Expr *e, signed char *pos, int64_t *off) {
    int64_t c;
    if (ir_is_const_int(e, &c)) {
        *pos = -1, *off = c;
        return true;
    }
    if (!uses_nest_var(C, e)) {
        *pos = -2, *off = 0;
        return true;
    }
    const Expr *v = e;
    *off = 0;
    if (e->kind == EXPR_BIN && e->u.bin.op == OP_ADD) {
        if (ir_is_const_int(e->u.bin.b, off)) v = e->u.bin.a;
        else if (ir_is_const_int(e->u.bin.a, off)) v = e->u.bin.b;
        else return false;
    }
    if (v->kind != EXPR_VAR) return false;
    for (int k = 0; k < C->nvars; k++)
        if (C->vars[k] == v->u.var) {
            *pos = (signed char)k;
            return true;
        }
    return false;
}

static void index_map(const Collect *C, Access *a, Expr *const *idx) {
    unsigned used = 0;
    a->exact = false;
    if (!C->nest || a->buf->ndim > MAX_DIMS) return;
    for (int d = 0; d < a->buf->ndim; d++) {
        if (!index_term(C, idx[d], &a->pos[d], &a->off[d])) return;
        if (a->pos[d] >= 0) {
            if (used & (1u << a->pos[d])) return; /* a variable used twice */
            used |= 1u << a->pos[d];
        }
    }
    if (used != (1u << C->nvars) - 1) return; /* not injective: a variable unused */
    a->exact = true;
    a->nest = C->nest;
}

/* Whether e is tid or tid plus a constant (*off). */
static bool thread_offset(const Var *tid, const Expr *e, int64_t *off) {
    if (e->kind == EXPR_VAR && e->u.var == tid) return *off = 0, true;
    if (e->kind != EXPR_BIN || e->u.bin.op != OP_ADD) return false;
    const Expr *v = e->u.bin.a, *c = e->u.bin.b;
    if (v->kind != EXPR_VAR) v = e->u.bin.b, c = e->u.bin.a;
    return v->kind == EXPR_VAR && v->u.var == tid && ir_is_const_int(c, off);
}

/* Thread-level code (made by every thread, not split over them) that indexes some
 * dimension with the thread index: Access.owned. */
static void thread_owner(const Collect *C, Access *a, Expr *const *idx) {
    for (int d = 0; C->S->tid && d < a->buf->ndim; d++)
        if (thread_offset(C->S->tid, idx[d], &a->owner_off)) {
            a->owned = true, a->owner_dim = d;
            return;
        }
}

static void add_access(Collect *C, const Buffer *b, bool write, Expr *const *idx) {
    if (!simt_block_wide(b) && b->scope != SCOPE_BARRIER) return;
    Access a =
        {.buf = b, .write = write, .who = C->who, .lo = C->S->lo, .count = C->S->count, .idx = idx};
    if (C->who == WHO_DIST && idx) index_map(C, &a, idx);
    if (C->who == WHO_ALL && idx) thread_owner(C, &a, idx);
    set_add(C->S, C->out, &a);
}

static void reads_expr(Collect *C, Expr *e);
static void reads_slot(Expr **slot, void *ud) { reads_expr(ud, *slot); }

static void reads_expr(Collect *C, Expr *e) {
    if (!e) return;
    if (e->kind == EXPR_LOAD) add_access(C, e->u.load.buf, false, e->u.load.idx);
    ir_expr_children(e, reads_slot, C);
}

static void collect_stmt(Collect *C, Stmt *s);
static void collect_child(Stmt **slot, void *ud) { collect_stmt(ud, *slot); }

/* Accesses of s and everything inside it, all made by C->who. */
static void collect_stmt(Collect *C, Stmt *s) {
    switch (s->kind) {
    case STMT_STORE: add_access(C, s->u.store.buf, true, s->u.store.idx); break;
    case STMT_ATOMIC: { /* a scalar one names its element */
        Expr *const *at = s->u.atomic.src.buf ? NULL : s->u.atomic.dst.start;
        add_access(C, s->u.atomic.dst.buf, true, at);
        add_access(C, s->u.atomic.dst.buf, false, at);
        break;
    }
    case STMT_PRINT:
        if (s->u.print.region.buf) add_access(C, s->u.print.region.buf, false, NULL);
        break;
    case STMT_EXTERN: /* through its pointers, anywhere from their elements on */
        for (int i = 0; i < s->u.extern_.nargs; i++) {
            const ExternArg *x = &s->u.extern_.args[i];
            if (!x->value && (x->rw & 1)) add_access(C, x->buf, false, NULL);
            if (!x->value && (x->rw & 2)) add_access(C, x->buf, true, NULL);
        }
        break;
    case STMT_ALLOC:
        if (s->u.alloc.buf->init) add_access(C, s->u.alloc.buf, true, NULL);
        break;
    case STMT_MBAR: /* an init by one thread; the other operations order, not conflict */
        add_access(C, s->u.mbar.bar, s->u.mbar.op == MBAR_INIT, NULL);
        break;
    case STMT_COPY: /* kept vector copy, by every thread; async ones are ordered by the
                       pipeline's own wait and barrier (pipeline_async.c) */
        if (s->u.copy.async) break;
        add_access(C, s->u.copy.src.buf, false, NULL);
        add_access(C, s->u.copy.dst.buf, true, NULL);
        break;
    case STMT_GEMM: /* kept for tensor cores: every thread reads A and B */
        add_access(C, s->u.gemm.a.buf, false, NULL);
        add_access(C, s->u.gemm.b.buf, false, NULL);
        if (s->u.gemm.e.buf) add_access(C, s->u.gemm.e.buf, false, NULL); /* T.gemm_sp */
        add_access(C, s->u.gemm.c.buf, true, NULL);
        break;
    case STMT_REDUCE: /* kept: register fragments; with a workspace see reduce_accesses */
        add_access(C, s->u.reduce.src.buf, false, NULL);
        add_access(C, s->u.reduce.dst.buf, true, NULL);
        if (s->u.reduce.workspace) add_access(C, s->u.reduce.workspace, true, NULL);
        break;
    default: break;
    }
    ir_stmt_exprs(s, reads_slot, C);
    ir_stmt_children(s, collect_child, C);
}

static bool is_distributed(const Stmt *s) {
    return s->kind == STMT_FOR && s->u.for_.kind == LOOP_PARALLEL;
}

/* Whether serial statement s runs in thread 0 alone (see the file comment). */
static bool runs_in_one_thread(const Stmt *s) {
    switch (s->kind) {
    case STMT_STORE:
        return simt_block_wide(s->u.store.buf) &&
               !ir_effect_varies(s->u.store.idx, s->u.store.buf->ndim, s->u.store.value);
    case STMT_ATOMIC:
        return simt_block_wide(s->u.atomic.dst.buf) && !s->u.atomic.prev &&
               !ir_effect_varies(s->u.atomic.dst.start, s->u.atomic.dst.ndim, s->u.atomic.value);
    case STMT_ALLOC: return s->u.alloc.buf->init && simt_block_wide(s->u.alloc.buf);
    case STMT_PRINT: return true;
    case STMT_MBAR: return s->u.mbar.op == MBAR_INIT;
    default: return false;
    }
}

/* Accesses of a simple serial statement or a distributed loop. */
static void leaf_accesses(Sync *S, Stmt *s, AccSet *out) {
    Collect C = {.S = S, .out = out, .who = runs_in_one_thread(s) ? WHO_ONE : WHO_ALL};
    if (is_distributed(s)) {
        Stmt *loops[MAX_NEST];
        int n = simt_parallel_nest(s, loops, MAX_NEST);
        C.who = WHO_ALL; /* the bounds: every thread evaluates them */
        for (int i = 0; i < n; i++) {
            reads_expr(&C, loops[i]->u.for_.min);
            reads_expr(&C, loops[i]->u.for_.extent);
        }
        C.who = WHO_DIST;
        C.nest = s;
        C.nvars = n;
        for (int i = 0; i < n; i++) {
            int64_t c;
            C.vars[i] = loops[i]->u.for_.var;
            if (!ir_is_const_int(loops[i]->u.for_.min, &c) ||
                !ir_is_const_int(loops[i]->u.for_.extent, &c))
                C.nest = NULL; /* no same-thread proofs for nests of run-time shape */
        }
        collect_stmt(&C, loops[n - 1]->u.for_.body);
        return;
    }
    collect_stmt(&C, s);
}

/* A kept reduction whose partial results cross warps (a workspace) runs, in every
 * thread, src reads and workspace writes, a barrier, workspace reads, a barrier, dst
 * writes (emit_tiles.c red_workspace): what it does before its first barrier goes to
 * before, what follows its last to after. The workspace's first write may follow other
 * buffers' reads of the same bytes; its own reads are ordered by its barriers. */
static void reduce_accesses(Sync *S, Stmt *s, AccSet *before, AccSet *after) {
    Collect C = {.S = S, .out = before, .who = WHO_ALL};
    add_access(&C, s->u.reduce.src.buf, false, NULL);
    add_access(&C, s->u.reduce.workspace, true, NULL);
    ir_stmt_exprs(s, reads_slot, &C);
    C.out = after;
    add_access(&C, s->u.reduce.dst.buf, true, NULL);
}

static bool crosses_warps(const Stmt *s) { return s->kind == STMT_REDUCE && s->u.reduce.workspace; }

/* Reads made by every thread (loop bounds, conditions). */
static void uniform_reads(Sync *S, Expr *e, AccSet *out) {
    Collect C = {.S = S, .out = out, .who = WHO_ALL};
    reads_expr(&C, e);
}

/* ---- what a T.ws region accesses ---------------------------------------------------------- */
/* Adds every access s can make (in the threads of the region being planned). */
static void all_accesses(Sync *S, Stmt *s, AccSet *F) {
    switch (s->kind) {
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) all_accesses(S, s->u.seq.data[i], F);
        return;
    case STMT_IF:
        uniform_reads(S, s->u.if_.cond, F);
        all_accesses(S, s->u.if_.then, F);
        if (s->u.if_.orelse) all_accesses(S, s->u.if_.orelse, F);
        return;
    case STMT_FOR:
        if (is_distributed(s)) break;
        uniform_reads(S, s->u.for_.min, F);
        uniform_reads(S, s->u.for_.extent, F);
        all_accesses(S, s->u.for_.body, F);
        return;
    case STMT_WHILE:
        uniform_reads(S, s->u.while_.cond, F);
        all_accesses(S, s->u.while_.body, F);
        return;
    case STMT_REDUCE:
        if (!crosses_warps(s)) break;
        reduce_accesses(S, s, F, F);
        return;
    default: break;
    }
    leaf_accesses(S, s, F);
}

/* Every access of region s, made by its threads. */
static void region_accesses(Sync *S, Stmt *s, AccSet *F) {
    int lo = S->lo, count = S->count;
    S->lo = s->u.threads.lo, S->count = s->u.threads.count;
    all_accesses(S, s->u.threads.body, F);
    S->lo = lo, S->count = count;
}

/* ---- what a statement can access before its first barrier ------------------------------ */
/* A barrier across blocks that orders the block's own threads too (T.sync_grid,
 * T.cluster_sync; the emitter puts a block barrier in them). A T.cluster_arrive /
 * T.cluster_wait pair orders only what comes before the arrive. */
static bool is_block_barrier(const Stmt *s) {
    return s->kind == STMT_GROUP_SYNC &&
           (s->u.gsync.op == GSYNC_GRID || s->u.gsync.op == GSYNC_CLUSTER_SYNC);
}

/* Adds to F the accesses s can make before it executes a barrier; returns true when every
 * path through s executes one. */
static bool first_accesses(Sync *S, Stmt *s, AccSet *F) {
    if (is_block_barrier(s)) return true;
    switch (s->kind) {
    case STMT_SYNC: return true;
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++)
            if (first_accesses(S, s->u.seq.data[i], F)) return true;
        return false;
    case STMT_IF: {
        uniform_reads(S, s->u.if_.cond, F);
        bool t = first_accesses(S, s->u.if_.then, F);
        bool e = s->u.if_.orelse && first_accesses(S, s->u.if_.orelse, F);
        return t && e;
    }
    case STMT_FOR:
        if (is_distributed(s)) break;
        uniform_reads(S, s->u.for_.min, F);
        uniform_reads(S, s->u.for_.extent, F);
        first_accesses(S, s->u.for_.body, F);
        return false; /* the loop may run no iteration */
    case STMT_WHILE:
        uniform_reads(S, s->u.while_.cond, F);
        first_accesses(S, s->u.while_.body, F);
        return false;
    case STMT_BREAK:
    case STMT_CONTINUE: return false;
    case STMT_WS: return first_accesses(S, s->u.ws.consumer, F);
    case STMT_THREADS: /* its barriers order only its own threads */
        region_accesses(S, s, F);
        return false;
    case STMT_REDUCE:
        if (!crosses_warps(s)) break;
        AccSet after = {0};
        reduce_accesses(S, s, F, &after);
        return true;
    default: break;
    }
    leaf_accesses(S, s, F);
    return false;
}

/* ---- placement --------------------------------------------------------------------------- */
static Stmt *new_sync(Sync *S, Loc loc) { return ir_stmt(S->ctx, STMT_SYNC, loc); }

static AccSet visit_block(Sync *S, Stmt **slot, AccSet P);

/* A barrier before the statement about to be pushed to out when it conflicts with P. */
static void sync_if_conflict(Sync *S, StmtList *out, AccSet *P, const AccSet *A, Loc loc) {
    if (!set_conflict(S, P, A)) return;
    VEC_PUSH(&S->ctx->arena, *out, new_sync(S, loc));
    P->len = 0;
}

/* Puts a barrier before every `continue` of the loop whose body is s. */
static void sync_continues(Sync *S, Stmt *s) {
    if (s->kind == STMT_FOR || s->kind == STMT_WHILE) return; /* their continues are theirs */
    if (s->kind == STMT_SEQ) {
        StmtList out = {0};
        for (int i = 0; i < s->u.seq.len; i++) {
            Stmt *c = s->u.seq.data[i];
            if (c->kind == STMT_CONTINUE) VEC_PUSH(&S->ctx->arena, out, new_sync(S, c->loc));
            else sync_continues(S, c);
            VEC_PUSH(&S->ctx->arena, out, c);
        }
        s->u.seq = out;
    } else if (s->kind == STMT_IF) {
        sync_continues(S, s->u.if_.then);
        if (s->u.if_.orelse) sync_continues(S, s->u.if_.orelse);
    }
}

/* Wraps a lone statement into a SEQ so barriers can be put beside it. */
static void ensure_seq(Sync *S, Stmt **slot) {
    if ((*slot)->kind == STMT_SEQ) return;
    Stmt *seq = ir_seq(S->ctx, (*slot)->loc);
    ir_seq_push(S->ctx, seq, *slot);
    *slot = seq;
}

/* A serial loop whose bounds (for) or condition (while: head, read before every
 * iteration) make the reads A, entered with pending P; runs: it runs at least once.
 * Barriers go into out (before the loop) and into its body. The body is planned on its
 * own first (entered with A only), so the barriers it needs anyway are known; P then
 * needs one barrier before the loop only if it conflicts with what the body does before
 * its first barrier. That barrier runs once, where one inside the body would run every
 * iteration. Returns the pending set at the loop's exit. */
static AccSet visit_loop(Sync *S, Loc loc, Stmt **body, AccSet P, const AccSet *A, bool is_while,
                         bool runs, StmtList *out) {
    LoopCtx lc = {0}, *saved = S->loop;
    S->loop = &lc;
    AccSet end = visit_block(S, body, *A);
    S->loop = saved;
    AccSet F = {0}, none = {0};
    bool barrier = first_accesses(S, *body, &F);
    const AccSet *head = is_while ? A : &none;
    AccSet back = set_union(S, &end, &lc.cont);
    if (set_conflict(S, &back, &F) && !set_conflict(S, &back, head)) {
        /* The next iteration's start conflicts with the back edges: the body is planned
         * again, entered with their accesses too, so that the barrier lands right before
         * the first statement that conflicts, as late as possible (an iteration's last
         * TMA store then overlaps the start of the next, up to its first write of the
         * tile). */
        AccSet entry = set_union(S, A, &back);
        lc = (LoopCtx){0};
        S->loop = &lc;
        end = visit_block(S, body, entry);
        S->loop = saved;
        F.len = 0;
        barrier = first_accesses(S, *body, &F);
        back = set_union(S, &end, &lc.cont);
    }
    AccSet AF = set_union(S, A, &F);
    sync_if_conflict(S, out, &P, &AF, loc);
    AccSet next = set_union(S, head, &F);
    bool appended = set_conflict(S, &back, &next);
    if (appended) { /* the back edges: the end of the body and each continue */
        ensure_seq(S, body);
        ir_seq_push(S->ctx, *body, new_sync(S, loc));
        sync_continues(S, *body);
        end.len = 0;
    }
    bool cleared = runs && !lc.has_break && (appended || (barrier && !lc.has_continue));
    AccSet r = set_union(S, cleared ? &none : &P, &end);
    r = set_union(S, &r, &lc.brk);
    return set_union(S, &r, A);
}

static AccSet visit_leaf(Sync *S, Stmt *c, AccSet P, StmtList *out) {
    AccSet A = {0};
    leaf_accesses(S, c, &A);
    sync_if_conflict(S, out, &P, &A, c->loc);
    return set_union(S, &P, &A);
}

/* A T.ws region c, entered with pending P of the block's code: a block barrier before it
 * if P conflicts with anything it does (its own barriers order only its threads); then
 * its body planned on its own, its barriers among its threads. Everything it did stays
 * pending for the block's code after it (not for other regions: the program orders
 * regions with mbarriers). */
static AccSet visit_region(Sync *S, Stmt *c, AccSet P, StmtList *out) {
    if (S->count) ctx_fail(S->ctx, c->loc, "T.ws blocks cannot be nested");
    AccSet A = {0}, none = {0};
    region_accesses(S, c, &A);
    sync_if_conflict(S, out, &P, &A, c->loc);
    S->lo = c->u.threads.lo, S->count = c->u.threads.count;
    visit_block(S, &c->u.threads.body, none);
    S->lo = 0, S->count = 0;
    return set_union(S, &P, &A);
}

/* Visits c (an item of a SEQ being rebuilt into out) with pending P; returns the pending
 * set after it. */
static AccSet visit_item(Sync *S, Stmt *c, AccSet P, StmtList *out) {
    AccSet A = {0};
    if (ir_stmt_varies(c)) { /* divergent: one simple statement, no barrier inside */
        P = visit_leaf(S, c, P, out);
        VEC_PUSH(&S->ctx->arena, *out, c);
        return P;
    }
    if (is_block_barrier(c)) {
        VEC_PUSH(&S->ctx->arena, *out, c);
        return A;
    }
    switch (c->kind) {
    case STMT_SYNC: VEC_PUSH(&S->ctx->arena, *out, c); return A;
    case STMT_SEQ: P = visit_block(S, &c, P); break;
    case STMT_IF: {
        uniform_reads(S, c->u.if_.cond, &A);
        sync_if_conflict(S, out, &P, &A, c->loc);
        P = set_union(S, &P, &A);
        AccSet t = visit_block(S, &c->u.if_.then, P);
        AccSet e = c->u.if_.orelse ? visit_block(S, &c->u.if_.orelse, P) : P;
        P = set_union(S, &t, &e);
        break;
    }
    case STMT_WHILE:
        uniform_reads(S, c->u.while_.cond, &A);
        P = visit_loop(S, c->loc, &c->u.while_.body, P, &A, true, false, out);
        break;
    case STMT_BREAK:
    case STMT_CONTINUE:
        if (S->loop) {
            AccSet *to = c->kind == STMT_BREAK ? &S->loop->brk : &S->loop->cont;
            *to = set_union(S, to, &P);
            if (c->kind == STMT_BREAK) S->loop->has_break = true;
            else S->loop->has_continue = true;
        }
        break;
    case STMT_WS: /* the producer only issues TMA, ordered by the mbarriers; the consumer's
                     barriers are among its own threads. With a tile var the consumer is
                     the body of a loop over the block's tiles (a persistent grid). */
        if (c->u.ws.tile) P = visit_loop(S, c->loc, &c->u.ws.consumer, P, &A, false, true, out);
        else P = visit_block(S, &c->u.ws.consumer, P);
        break;
    case STMT_THREADS: P = visit_region(S, c, P, out); break;
    case STMT_FOR:
        if (is_distributed(c)) { /* one simple statement */
            P = visit_leaf(S, c, P, out);
            break;
        }
        uniform_reads(S, c->u.for_.min, &A);
        uniform_reads(S, c->u.for_.extent, &A);
        int64_t trips;
        P = visit_loop(S, c->loc, &c->u.for_.body, P, &A, false,
                       ir_is_const_int(c->u.for_.extent, &trips) && trips > 0, out);
        break;
    case STMT_REDUCE:
        if (crosses_warps(c)) { /* its own barriers end every pending access */
            AccSet after = {0};
            reduce_accesses(S, c, &A, &after);
            sync_if_conflict(S, out, &P, &A, c->loc);
            P = after;
            break;
        }
        P = visit_leaf(S, c, P, out);
        break;
    default: P = visit_leaf(S, c, P, out); break;
    }
    VEC_PUSH(&S->ctx->arena, *out, c);
    return P;
}

static AccSet visit_block(Sync *S, Stmt **slot, AccSet P) {
    ensure_seq(S, slot);
    Stmt *seq = *slot;
    StmtList out = {0};
    for (int i = 0; i < seq->u.seq.len; i++) P = visit_item(S, seq->u.seq.data[i], P, &out);
    seq->u.seq = out;
    return P;
}

void pass_insert_sync_threads(Ctx *ctx, Func *f) {
    if (!f->body) return;
    Sync S = {.ctx = ctx};
    ensure_seq(&S, &f->body);
    for (int i = 0; i < f->body->u.seq.len; i++) {
        Stmt *k = f->body->u.seq.data[i];
        if (k->kind != STMT_KERNEL) continue;
        AccSet none = {0};
        S.nranges = cuda_smem_ranges(&ctx->arena, k, &S.ranges);
        S.tid = NULL;
        for (int d = 0; d < 3; d++) /* the thread index, if the threads lie along d only */
            if (k->u.kernel.threads[d] > 1)
                S.tid = S.tid || !k->u.kernel.thread[d] ? (const Var *)-1 : k->u.kernel.thread[d];
        if (S.tid == (const Var *)-1) S.tid = NULL;
        visit_block(&S, &k->u.kernel.body, none); /* blocks start after a barrier */
    }
}
