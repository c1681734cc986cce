/* tileops_sched.c - TileLang's persistent tile scheduler (tile_schedule.py) as an object
 * of the meta level whose methods emit IR:
 *
 *   sched = T.PersistentTileScheduler(num_m_tiles, num_n_tiles, num_workers=None,
 *               swizzle_size=1, column_major=True, cluster_size=1, stateful=True,
 *               name=None)
 *
 * The tile grid (num_m_tiles / cluster_size rounded up, by num_n_tiles) is walked in a
 * linear order that worker w takes from w in strides of num_workers (by default the SM
 * count over cluster_size). The order sweeps the fast axis (M when column_major) inside
 * panels of swizzle_size tiles of the slow axis (a narrower last panel). Stateful, the
 * object holds int32 T.alloc_var state: sched.m_idx, sched.n_idx, sched.linear_idx,
 * sched.current_iter (reads of it where they are used), with sched.init(worker_id),
 * sched.next_tile() and sched.valid() for a `while` loop; sched.coord(tile_id) is the
 * (m, n) of a linear tile index as expressions (the stateless form has only that).
 * Errors name the method and point at the call. */
#include "frontend/eval.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

typedef struct Sched {
    Buffer *m, *n, *linear, *iter; /* the state; NULL when stateless */
    Expr *primary, *secondary;     /* the fast axis' tiles, the slow axis' */
    Expr *total, *workers;         /* tiles; the stride of a worker */
    Expr *swizzle;
    bool column_major;
} Sched;

static Expr *int32_of(Interp *in, Value *v, Loc loc, const char *what) {
    Expr *e = val_to_expr(in, v, loc, what);
    if (!dtype_is_int(e->dtype))
        ctx_fail(in->ctx, loc, "T.PersistentTileScheduler: %s must be an integer, got %s", what,
                 dtype_name(e->dtype));
    return e->dtype == DT_INT32 ? e : ir_cast(in->ctx, DT_INT32, e, loc);
}

static Expr *bin(Interp *in, BinOp op, Expr *a, Expr *b, Loc loc) {
    return ir_bin(in->ctx, op, a, b, loc);
}

static Expr *num(Interp *in, int64_t v, Loc loc) { return ir_int(in->ctx, v, DT_INT32, loc); }

static Expr *state(Interp *in, Buffer *b, Loc loc) {
    Expr **idx = NEW_ARRAY(ARENA, Expr *, 1);
    idx[0] = num(in, 0, loc);
    return ir_load(in->ctx, b, idx, loc);
}

static void store(Interp *in, Buffer *b, Expr *value, Loc loc) {
    Stmt *s = ir_stmt(in->ctx, STMT_STORE, loc);
    s->u.store.buf = b;
    s->u.store.idx = NEW_ARRAY(ARENA, Expr *, 1);
    s->u.store.idx[0] = num(in, 0, loc);
    s->u.store.value = value;
    emit_stmt(in, s);
}

/* (m, n) of linear tile index t: panels of `swizzle` slow-axis tiles, the fast axis swept
 * in each (tile_schedule.py's coord). */
static void coord(Interp *in, const Sched *S, Expr *t, Expr **m, Expr **n, Loc loc) {
    Expr *panel = bin(in, OP_MUL, S->primary, S->swizzle, loc);
    Expr *group = bin(in, OP_FLOORDIV, t, panel, loc);
    Expr *base = bin(in, OP_MUL, group, S->swizzle, loc);
    Expr *width = bin(in, OP_MAX, num(in, 1, loc),
                      bin(in, OP_MIN, S->swizzle, bin(in, OP_SUB, S->secondary, base, loc), loc),
                      loc);
    Expr *in_group = bin(in, OP_SUB, t, bin(in, OP_MUL, group, panel, loc), loc);
    Expr *fast = bin(in, OP_FLOORDIV, in_group, width, loc);
    Expr *slow = bin(in, OP_ADD, base, bin(in, OP_FLOORMOD, in_group, width, loc), loc);
    *m = S->column_major ? fast : slow;
    *n = S->column_major ? slow : fast;
}

static const Sched *stateful(Interp *in, const Sched *S, Loc loc, const char *method) {
    if (!S->m)
        ctx_fail(in->ctx, loc,
                 "sched.%s: this scheduler was made with stateful=False and has only "
                 "sched.coord(tile_id)",
                 method);
    return S;
}

static void update(Interp *in, const Sched *S, Loc loc) {
    Expr *m, *n;
    coord(in, S, state(in, S->linear, loc), &m, &n, loc);
    store(in, S->m, m, loc);
    store(in, S->n, n, loc);
}

static Value *m_coord(Interp *in, CallArgs *a, void *d) {
    Value *av[1];
    args_bind(in, a, "sched.coord", "tile_id", av, 1);
    Expr *m, *n;
    coord(in, d, int32_of(in, av[0], a->loc, "tile_id"), &m, &n, a->loc);
    Value *t = val_new(in, V_TUPLE);
    VEC_PUSH(ARENA, t->u.items, val_expr(in, m));
    VEC_PUSH(ARENA, t->u.items, val_expr(in, n));
    return t;
}

static Value *m_init(Interp *in, CallArgs *a, void *d) {
    Value *av[1];
    args_bind(in, a, "sched.init", "worker_id", av, 1);
    const Sched *S = stateful(in, d, a->loc, "init");
    store(in, S->iter, num(in, 0, a->loc), a->loc);
    store(in, S->linear, int32_of(in, av[0], a->loc, "worker_id"), a->loc);
    update(in, S, a->loc);
    return val_none(in);
}

static Value *m_next_tile(Interp *in, CallArgs *a, void *d) {
    args_bind(in, a, "sched.next_tile", "", NULL, 0);
    const Sched *S = stateful(in, d, a->loc, "next_tile");
    store(in, S->iter, bin(in, OP_ADD, state(in, S->iter, a->loc), num(in, 1, a->loc), a->loc),
          a->loc);
    store(in, S->linear, bin(in, OP_ADD, state(in, S->linear, a->loc), S->workers, a->loc), a->loc);
    update(in, S, a->loc);
    return val_none(in);
}

static Value *m_valid(Interp *in, CallArgs *a, void *d) {
    args_bind(in, a, "sched.valid", "", NULL, 0);
    const Sched *S = stateful(in, d, a->loc, "valid");
    return val_expr(in, bin(in, OP_LT, state(in, S->linear, a->loc), S->total, a->loc));
}

static Value *method(Interp *in, const char *name, BuiltinFn fn, Sched *S) {
    Builtin *b = NEW(ARENA, Builtin);
    *b = (Builtin){arena_printf(ARENA, "sched.%s", name), fn, S};
    Value *v = val_new(in, V_BUILTIN);
    v->u.builtin = b;
    return v;
}

/* A fresh int32 T.alloc_var, named name_suffix when the scheduler has a name. */
static Buffer *state_var(Interp *in, const char *name, const char *suffix, Loc loc) {
    CallArgs b = {0};
    b.loc = loc;
    VEC_PUSH(ARENA, b.pos, val_dtype(in, DT_INT32));
    Value *v = call_value(in, tl_lang_attr(in, "alloc_var", loc), &b);
    TL_ASSERT(v->kind == V_BUFFER);
    v->u.buf->name = arena_printf(ARENA, "%s_%s", name ? name : "sched", suffix);
    return v->u.buf;
}

static Value *t_persistent_scheduler(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *f = "T.PersistentTileScheduler";
    Value *av[8];
    args_bind(in, a, f,
              "num_m_tiles, num_n_tiles, num_workers=, swizzle_size=, column_major=, "
              "cluster_size=, stateful=, name=",
              av, 8);
    need_kernel(in, a->loc, f);
    Loc loc = a->loc;
    int64_t swizzle = av[3] ? val_to_int(in, av[3], loc, "swizzle_size") : 1;
    int64_t cluster = av[5] ? val_to_int(in, av[5], loc, "cluster_size") : 1;
    if (swizzle < 1 || cluster < 1)
        ctx_fail(in->ctx, loc, "%s: swizzle_size and cluster_size must be at least 1", f);
    if (av[7] && av[7]->kind != V_NONE && av[7]->kind != V_STR)
        ctx_fail(in->ctx, loc, "%s: name must be a string", f);
    Sched *S = NEW(ARENA, Sched);
    S->column_major = !av[4] || val_truthy(in, av[4], loc);
    S->swizzle = num(in, swizzle, loc);
    Expr *mt = int32_of(in, av[0], loc, "num_m_tiles"),
         *nt = int32_of(in, av[1], loc, "num_n_tiles");
    Expr *m_clusters = bin(in, OP_FLOORDIV, bin(in, OP_ADD, mt, num(in, cluster - 1, loc), loc),
                           num(in, cluster, loc), loc);
    S->total = bin(in, OP_MUL, m_clusters, nt, loc);
    S->primary = S->column_major ? m_clusters : nt;
    S->secondary = S->column_major ? nt : m_clusters;
    S->workers = av[2] && av[2]->kind != V_NONE
                     ? int32_of(in, av[2], loc, "num_workers")
                     : num(in, options_sm_count(&in->ctx->opts) / cluster, loc);
    Value *obj = val_new(in, V_OBJECT);
    obj->u.obj.type = "PersistentTileScheduler";
    obj->u.obj.attrs = env_new(in, NULL);
    if (!av[6] || val_truthy(in, av[6], loc)) {
        const char *name = av[7] && av[7]->kind == V_STR ? av[7]->u.s : NULL;
        S->m = state_var(in, name, "m_idx", loc), S->n = state_var(in, name, "n_idx", loc);
        S->linear = state_var(in, name, "linear_idx", loc);
        S->iter = state_var(in, name, "current_iter", loc);
        Buffer *const bufs[4] = {S->m, S->n, S->linear, S->iter};
        static const char *const props[4] = {"m_idx", "n_idx", "linear_idx", "current_iter"};
        for (int i = 0; i < 4; i++) {
            Value *v = val_new(in, V_BUFFER);
            v->u.buf = bufs[i];
            object_set_attr(in, obj, props[i], v);
        }
    }
    object_set_attr(in, obj, "init", method(in, "init", m_init, S));
    object_set_attr(in, obj, "next_tile", method(in, "next_tile", m_next_tile, S));
    object_set_attr(in, obj, "valid", method(in, "valid", m_valid, S));
    object_set_attr(in, obj, "coord", method(in, "coord", m_coord, S));
    object_set_attr(in, obj, "num_workers", val_expr(in, S->workers));
    object_set_attr(in, obj, "swizzle_size", val_int(in, swizzle));
    object_set_attr(in, obj, "cluster_size", val_int(in, cluster));
    return obj;
}

static const TName sched_names[] = {
    {"PersistentTileScheduler", t_persistent_scheduler, NULL, NULL},
};

const TNames tl_sched_names = {sched_names, (int)(sizeof sched_names / sizeof *sched_names)};
