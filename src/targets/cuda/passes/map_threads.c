/* map_threads.c - the SIMT execution model of the CUDA target, made explicit enough in
 * the IR for pass_insert_sync_threads and the emitter.
 *
 * Model (one CUDA block runs one T.Kernel block with its `threads` threads):
 *  - Serial code, i.e. everything outside a distributed loop, is executed by every thread
 *    redundantly: lets, loop bounds and conditions compute the same (uniform) value in
 *    every thread, so a __syncthreads() under a serial `if`/loop is reached by all.
 *    Its stores, atomics and prints that touch block-wide memory (global, shared,
 *    fragment) are performed by thread 0 alone; stores to per-thread buffers (local, var)
 *    by every thread, each keeping an identical copy.
 *  - A LOOP_PARALLEL loop that is not inside another is *distributed*: its nest (see
 *    simt_parallel_nest) is flattened and iteration t runs on thread t % nthreads, or,
 *    when pass_infer_layouts gave it a register layout (For.layout), each thread runs
 *    the iterations its layout assigns it. Everything inside runs in the thread that
 *    owns the iteration.
 *  - Fragments with a register layout are per-thread; the others are block-wide and
 *    live in shared memory, like shared buffers.
 *
 * Requires: pass_lower_tile_ops (tile ops are loops of scalar statements, except the
 * kept ones that run block-wide), pass_infer_layouts.
 * Provides:
 *  - every LOOP_PARALLEL loop inside a distributed nest but not one of its nest loops is
 *    LOOP_SERIAL (the owning thread runs it);
 *  - user errors for T.sync_threads, a `break` out of the nest, or T.Kernel inside a
 *    distributed loop;
 *  - a local/var buffer written inside a distributed loop and read in serial code is made
 *    block-wide (scope shared): serial code must see every iteration's write, as on the C
 *    target. If it is also read inside a distributed loop (a per-iteration temporary
 *    too), that is a user error: one buffer cannot be both. */
#include "targets/cuda/passes/cuda_passes.h"
#include "ir/ir_walk.h"

enum { MAX_NEST = 16 };

int simt_parallel_nest(Stmt *root, Stmt **loops, int max) {
    int n = 0;
    for (Stmt *s = root; s && s->kind == STMT_FOR && s->u.for_.kind == LOOP_PARALLEL && n < max;
         s = ir_only_stmt(s->u.for_.body))
        loops[n++] = s;
    return n;
}

/* ---- buffer use flags ---------------------------------------------------------------- */
typedef struct Use {
    Buffer *buf;
    bool write_dist, read_dist, read_serial;
    Loc loc; /* first read in serial code */
} Use;

typedef struct Map {
    Ctx *ctx;
    Vec(Use) uses;
    int dist;        /* > 0 inside a distributed loop */
    int inner_loops; /* loops opened inside the distributed loop (a break binds to those) */
} Map;

static Use *use_of(Map *M, Buffer *b) {
    for (int i = 0; i < M->uses.len; i++)
        if (M->uses.data[i].buf == b) return &M->uses.data[i];
    Use u = {.buf = b};
    VEC_PUSH(&M->ctx->arena, M->uses, u);
    return &M->uses.data[M->uses.len - 1];
}

static void note_read(Map *M, Buffer *b, Loc loc) {
    Use *u = use_of(M, b);
    if (M->dist) u->read_dist = true;
    else if (!u->read_serial) u->read_serial = true, u->loc = loc;
}

static void note_write(Map *M, Buffer *b) {
    if (M->dist) use_of(M, b)->write_dist = true;
}

static void reads_expr(Map *M, Expr *e);
static void reads_slot(Expr **slot, void *ud) { reads_expr(ud, *slot); }

static void reads_expr(Map *M, Expr *e) {
    if (!e) return;
    if (e->kind == EXPR_LOAD) note_read(M, e->u.load.buf, e->loc);
    ir_expr_children(e, reads_slot, M);
}

/* ---- the walk -------------------------------------------------------------------------- */
static void map_stmt(Map *M, Stmt *s);
static void map_child(Stmt **slot, void *ud) { map_stmt(ud, *slot); }

/* Inside a distributed nest: parallel loops off the nest chain run serially. */
static void demote_parallel(Stmt *s);
static void demote_child(Stmt **slot, void *ud) {
    (void)ud;
    demote_parallel(*slot);
}

static void demote_parallel(Stmt *s) {
    if (s->kind == STMT_FOR && s->u.for_.kind == LOOP_PARALLEL) s->u.for_.kind = LOOP_SERIAL;
    ir_stmt_children(s, demote_child, NULL);
}

static void map_distributed(Map *M, Stmt *root) {
    Stmt *loops[MAX_NEST];
    int n = simt_parallel_nest(root, loops, MAX_NEST);
    for (int i = 0; i < n; i++) {
        reads_expr(M, loops[i]->u.for_.min); /* bounds are evaluated by every thread */
        reads_expr(M, loops[i]->u.for_.extent);
    }
    demote_parallel(loops[n - 1]->u.for_.body);
    int saved_inner = M->inner_loops;
    M->dist++;
    M->inner_loops = 0;
    map_stmt(M, loops[n - 1]->u.for_.body);
    M->dist--;
    M->inner_loops = saved_inner;
}

static void dist_error(Map *M, Stmt *s, const char *what) {
    ctx_fail(M->ctx, s->loc,
             "%s inside a T.Parallel loop is not supported on the CUDA target "
             "(the loop's iterations run on different threads)",
             what);
}

static void map_loop(Map *M, Stmt *s) {
    if (s->kind == STMT_FOR && s->u.for_.kind == LOOP_PARALLEL && !M->dist) {
        map_distributed(M, s);
        return;
    }
    ir_stmt_exprs(s, reads_slot, M);
    M->inner_loops++;
    ir_stmt_children(s, map_child, M);
    M->inner_loops--;
}

static void map_stmt(Map *M, Stmt *s) {
    switch (s->kind) {
    case STMT_FOR:
    case STMT_WHILE: map_loop(M, s); return;
    case STMT_BREAK:
        if (M->dist && !M->inner_loops) dist_error(M, s, "'break' out of the loop");
        return;
    case STMT_SYNC:
        if (M->dist) dist_error(M, s, "T.sync_threads");
        return;
    case STMT_GROUP_SYNC:
        if (M->dist)
            dist_error(M, s,
                       arena_printf(&M->ctx->arena, "T.%s", group_sync_op_name(s->u.gsync.op)));
        return;
    case STMT_KERNEL:
        if (M->dist) dist_error(M, s, "T.Kernel");
        break;
    case STMT_STORE: note_write(M, s->u.store.buf); break;
    case STMT_ATOMIC:
        note_write(M, s->u.atomic.dst.buf);
        note_read(M, s->u.atomic.dst.buf, s->loc);
        break;
    case STMT_EXTERN:
        for (int i = 0; i < s->u.extern_.nargs; i++) {
            const ExternArg *x = &s->u.extern_.args[i];
            if (x->value) continue;
            if (x->rw & 2) note_write(M, x->buf);
            if (x->rw & 1) note_read(M, x->buf, s->loc);
        }
        if (s->u.extern_.result) note_write(M, s->u.extern_.result);
        break;
    case STMT_PRINT:
        if (s->u.print.region.buf) note_read(M, s->u.print.region.buf, s->loc);
        break;
    case STMT_ALLOC:
        if (s->u.alloc.buf->init) note_write(M, s->u.alloc.buf);
        break;
    default: break;
    }
    ir_stmt_exprs(s, reads_slot, M);
    ir_stmt_children(s, map_child, M);
}

/* Per-thread buffers whose distributed writes serial code reads become block-wide. */
static void place_buffers(Map *M) {
    for (int i = 0; i < M->uses.len; i++) {
        Use *u = &M->uses.data[i];
        Buffer *b = u->buf;
        if ((b->scope != SCOPE_LOCAL && b->scope != SCOPE_VAR) || !u->write_dist || !u->read_serial)
            continue;
        if (u->read_dist) {
            ctx_note(M->ctx, b->loc, "'%s' is declared here", b->name);
            ctx_fail(M->ctx, u->loc,
                     "'%s' (T.alloc_%s) is written inside a T.Parallel loop and "
                     "read both inside it and here, outside it: on the CUDA target each thread "
                     "would need its own copy and the block one shared copy; use a separate "
                     "T.alloc_fragment for the value read outside the loop",
                     b->name, scope_name(b->scope));
        }
        b->scope = SCOPE_SHARED;
    }
}

void pass_map_threads(Ctx *ctx, Func *f) {
    if (!f->body) return;
    Map M = {.ctx = ctx};
    map_stmt(&M, f->body);
    place_buffers(&M);
}

bool simt_block_wide(const Buffer *b) {
    return b->scope == SCOPE_GLOBAL || b->scope == SCOPE_SHARED ||
           (b->scope == SCOPE_FRAGMENT && !b->layout);
}
