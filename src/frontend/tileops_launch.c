/* tileops_launch.c - the names of the T namespace about a kernel's launch rather than its
 * data: its shape as values, index arithmetic, and launch hints.
 *
 *   T.get_thread_extent(dim=0)    the T.Kernel's threads along x / y / z (1 along a
 *                                 dimension not given), an int; T.get_thread_extents():
 *                                 all three, a list
 *   T.get_block_extent(dim=0)     its grid along x / y / z (1 along a dimension not
 *                                 given): an int, or the grid's expression when it
 *                                 depends on a symbolic size; T.get_block_extents(): all
 *   T.index_to_coordinates(index, shape)
 *                                 the row-major coordinates of a linear index, a list:
 *                                 index % shape[-1], then (index // shape[-1]) %
 *                                 shape[-2], ... (Python's % and //, TVM's floormod and
 *                                 floordiv; folded when index is a compile-time int)
 *   T.pdl_trigger(), T.pdl_sync() programmatic dependent launch (STMT_PDL): CUDA sm_90's
 *                                 griddepcontrol.launch_dependents / .wait. They only
 *                                 order a launch that uses PDL, which tilec's launches do
 *                                 not, so nothing changes; below sm_90 and on the C target
 *                                 they are nothing
 *   T.annotate_min_blocks_per_sm(n)
 *                                 CUDA's second __launch_bounds__ argument (the blocks
 *                                 per SM that ptxas budgets registers for); no effect on
 *                                 the C target
 *   T.annotate_l2_hit_ratio({buffer: ratio})
 *                                 a hint for an L2 persisting window over global
 *                                 buffers: checked, no effect in tilec
 *   T.sync_grid()                 a barrier of every thread of every block of the grid
 *                                 (STMT_GROUP_SYNC; CUDA: a cooperative launch, C: the
 *                                 blocks run at once, one POSIX thread each)
 *   T.cluster_arrive(), T.cluster_arrive_relaxed(), T.cluster_wait(), T.cluster_sync()
 *                                 the same across the blocks of the T.Kernel's cluster
 *                                 (cluster_dims=; a block alone without), split into
 *                                 arrive and wait (barrier.cluster on sm_90)
 *   T.get_cluster_dims(), T.get_cluster_size(), T.get_cluster_id(s)(dim=0),
 *   T.get_cluster_extent(s)(dim=0), T.block_rank_in_cluster()
 *                                 a cluster is a cluster_dims-shaped tile of the grid:
 *                                 ids are block // cluster_dims, extents ceildiv(grid,
 *                                 cluster_dims), the rank x + cx * (y + cy * z) of the
 *                                 block inside (CUDA's %cluster_ctarank): plain
 *                                 arithmetic on the block indices, the same on every
 *                                 target
 *
 * Errors name the T function and point at the call. */
#include "frontend/eval.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

/* dim=0 of the extent functions: 0, 1 or 2. */
static int dim_arg(Interp *in, Value *v, Loc loc, const char *fname) {
    int64_t d = v ? val_to_int(in, v, loc, "dim") : 0;
    if (d < 0 || d > 2)
        ctx_fail(in->ctx, loc, "%s: dim must be 0, 1 or 2, got %lld", fname, (long long)d);
    return (int)d;
}

static Value *thread_extent(Interp *in, int d) {
    return val_int(in, in->kernel->u.kernel.threads[d]);
}

static Value *block_extent(Interp *in, int d) {
    Expr *g = in->kernel->u.kernel.grid[d];
    int64_t c;
    return ir_is_const_int(g, &c) ? val_int(in, c) : val_expr(in, g);
}

typedef struct Extent {
    const char *fname;
    bool all;
    Value *(*of)(Interp *in, int d);
} Extent;

static const Extent x_thread = {"T.get_thread_extent", false, thread_extent},
                    x_threads = {"T.get_thread_extents", true, thread_extent},
                    x_block = {"T.get_block_extent", false, block_extent},
                    x_blocks = {"T.get_block_extents", true, block_extent};

static Value *t_extent(Interp *in, CallArgs *a, void *d) {
    const Extent *x = d;
    Value *av[1] = {NULL};
    args_bind(in, a, x->fname, x->all ? "" : "dim=", av, x->all ? 0 : 1);
    need_kernel(in, a->loc, x->fname);
    if (!x->all) return x->of(in, dim_arg(in, av[0], a->loc, x->fname));
    Value *l = val_new(in, V_LIST);
    for (int k = 0; k < 3; k++) VEC_PUSH(ARENA, l->u.items, x->of(in, k));
    return l;
}

/* T.index_to_coordinates(index, shape): TileLang's loop, last dimension first. */
static Value *t_index_to_coordinates(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.index_to_coordinates";
    Value *av[2];
    args_bind(in, a, fname, "index,shape", av, 2);
    Value *shape = av[1];
    if (shape->kind != V_LIST && shape->kind != V_TUPLE)
        ctx_fail(in->ctx, a->loc, "%s: shape must be a list or tuple of extents, got %s", fname,
                 val_describe(in, shape));
    int n = shape->u.items.len;
    if (n < 1) ctx_fail(in->ctx, a->loc, "%s: shape needs at least one extent", fname);
    Value *l = val_new(in, V_LIST), *index = av[0];
    for (int k = 0; k < n; k++) VEC_PUSH(ARENA, l->u.items, NULL);
    for (int k = n - 1; k >= 0; k--) {
        Value *e = shape->u.items.data[k];
        l->u.items.data[k] = eval_binop(in, "%", index, e, a->loc);
        index = eval_binop(in, "//", index, e, a->loc);
    }
    return l;
}

/* T.pdl_trigger(), T.pdl_sync(): STMT_PDL. */
static Value *t_pdl(Interp *in, CallArgs *a, void *d) {
    const char *fname = d ? "T.pdl_sync" : "T.pdl_trigger";
    args_bind(in, a, fname, "", NULL, 0);
    need_kernel(in, a->loc, fname);
    Stmt *s = ir_stmt(in->ctx, STMT_PDL, a->loc);
    s->u.pdl.sync = d != NULL;
    emit_stmt(in, s);
    return val_none(in);
}

static Value *t_min_blocks(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.annotate_min_blocks_per_sm";
    Value *av[1];
    args_bind(in, a, fname, "n", av, 1);
    need_kernel(in, a->loc, fname);
    int64_t n;
    if (!val_is_const_int(av[0], &n) || av[0]->kind == V_BOOL || n < 1 || n > 64)
        ctx_fail(in->ctx, a->loc, "%s: n must be an int from 1 to 64, got %s", fname,
                 val_describe(in, av[0]));
    in->kernel->u.kernel.min_blocks = (int)n;
    return val_none(in);
}

static Value *t_l2_hit_ratio(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.annotate_l2_hit_ratio";
    Value *av[1];
    args_bind(in, a, fname, "l2_hit_ratio_map", av, 1);
    if (av[0]->kind != V_DICT) ctx_fail(in->ctx, a->loc, "%s takes a dict", fname);
    for (int i = 0; i < av[0]->u.dict.keys.len; i++) {
        Value *k = av[0]->u.dict.keys.data[i], *r = av[0]->u.dict.values.data[i];
        if (k->kind != V_BUFFER || k->u.buf->scope != SCOPE_GLOBAL)
            ctx_fail(in->ctx, a->loc,
                     "%s: keys must be global buffers (persistent L2 applies "
                     "to global memory), got %s",
                     fname, val_describe(in, k));
        double f = r->kind == V_FLOAT ? r->u.f : (double)val_to_int(in, r, a->loc, "hit ratio");
        if (!(f >= 0.0 && f <= 1.0))
            ctx_fail(in->ctx, a->loc, "%s: the hit ratio of '%s' must be from 0 to 1", fname,
                     k->u.buf->name);
    }
    return val_none(in);
}

/* ---- clusters and the grid barrier ------------------------------------------------ */
/* T.sync_grid(), T.cluster_*(): STMT_GROUP_SYNC. */
static Value *t_group_sync(Interp *in, CallArgs *a, void *d) {
    GroupSyncOp op = (GroupSyncOp)(intptr_t)d;
    const char *fname = arena_printf(ARENA, "T.%s", group_sync_op_name(op));
    args_bind(in, a, fname, "", NULL, 0);
    need_kernel(in, a->loc, fname);
    Stmt *s = ir_stmt(in->ctx, STMT_GROUP_SYNC, a->loc);
    s->u.gsync.op = op;
    emit_stmt(in, s);
    return val_none(in);
}

static int cluster_dim(Interp *in, int d) {
    int c = in->kernel->u.kernel.cluster_dims[d];
    return c > 1 ? c : 1;
}

static Value *block_index(Interp *in, int d, Loc loc) {
    Var *v = d < in->kernel->u.kernel.ngrid ? in->kernel->u.kernel.block[d] : NULL;
    return v ? val_expr(in, ir_varref(in->ctx, v, loc)) : val_int(in, 0);
}

static Value *cluster_dims_of(Interp *in, int d, Loc loc) {
    (void)loc;
    return val_int(in, cluster_dim(in, d));
}

static Value *cluster_id(Interp *in, int d, Loc loc) {
    Value *b = block_index(in, d, loc);
    return cluster_dim(in, d) == 1 ? b
                                   : eval_binop(in, "//", b, val_int(in, cluster_dim(in, d)), loc);
}

static Value *cluster_extent(Interp *in, int d, Loc loc) {
    Value *g = block_extent(in, d), *c = val_int(in, cluster_dim(in, d));
    Value *up = eval_binop(in, "+", g, val_int(in, cluster_dim(in, d) - 1), loc);
    return cluster_dim(in, d) == 1 ? g : eval_binop(in, "//", up, c, loc);
}

typedef struct ClusterQuery {
    const char *fname;
    int dims; /* 0: no dim argument, all three (a list); 1: dim=0; -1: the grid's dims */
    Value *(*of)(Interp *in, int d, Loc loc);
} ClusterQuery;

static const ClusterQuery q_dims = {"T.get_cluster_dims", 0, cluster_dims_of},
                          q_id = {"T.get_cluster_id", 1, cluster_id},
                          q_ids = {"T.get_cluster_ids", -1, cluster_id},
                          q_extent = {"T.get_cluster_extent", 1, cluster_extent},
                          q_extents = {"T.get_cluster_extents", 0, cluster_extent};

static Value *t_cluster_query(Interp *in, CallArgs *a, void *d) {
    const ClusterQuery *q = d;
    Value *av[1] = {NULL};
    args_bind(in, a, q->fname, q->dims == 1 ? "dim=" : "", av, q->dims == 1);
    need_kernel(in, a->loc, q->fname);
    if (q->dims == 1) return q->of(in, dim_arg(in, av[0], a->loc, q->fname), a->loc);
    int n = q->dims < 0 ? in->kernel->u.kernel.ngrid : 3;
    Value *l = val_new(in, V_LIST);
    for (int k = 0; k < n; k++) VEC_PUSH(ARENA, l->u.items, q->of(in, k, a->loc));
    return l;
}

static Value *t_cluster_size(Interp *in, CallArgs *a, void *d) {
    (void)d;
    args_bind(in, a, "T.get_cluster_size", "", NULL, 0);
    need_kernel(in, a->loc, "T.get_cluster_size");
    return val_int(in, ir_cluster_size(in->kernel));
}

/* T.block_rank_in_cluster(): x + cx * (y + cy * z) over the block's place in its cluster. */
static Value *t_block_rank(Interp *in, CallArgs *a, void *d) {
    (void)d;
    args_bind(in, a, "T.block_rank_in_cluster", "", NULL, 0);
    need_kernel(in, a->loc, "T.block_rank_in_cluster");
    Value *r = val_int(in, 0);
    for (int k = 2; k >= 0; k--) {
        if (cluster_dim(in, k) == 1) continue;
        Value *c = val_int(in, cluster_dim(in, k));
        Value *in_cluster = eval_binop(in, "%", block_index(in, k, a->loc), c, a->loc);
        int64_t below = 1;
        for (int j = 0; j < k; j++) below *= cluster_dim(in, j);
        r = eval_binop(in, "+", r, eval_binop(in, "*", in_cluster, val_int(in, below), a->loc),
                       a->loc);
    }
    return r;
}

#define CLUSTER_NOTE "C, CUDA (clusters of several blocks: sm_90; C: blocks as POSIX threads)"
static const TName launch_fns[] = {
    {"get_thread_extent", t_extent, &x_thread, NULL},
    {"get_thread_extents", t_extent, &x_threads, NULL},
    {"get_block_extent", t_extent, &x_block, NULL},
    {"get_block_extents", t_extent, &x_blocks, NULL},
    {"index_to_coordinates", t_index_to_coordinates, NULL, NULL},
    {"pdl_trigger", t_pdl, NULL, NULL},
    {"pdl_sync", t_pdl, "sync", NULL},
    {"annotate_min_blocks_per_sm", t_min_blocks, NULL, NULL},
    {"annotate_l2_hit_ratio", t_l2_hit_ratio, NULL, NULL},
    {"sync_grid", t_group_sync, (void *)GSYNC_GRID,
     "C (blocks as POSIX threads), CUDA (cooperative launch)"},
    {"cluster_arrive", t_group_sync, (void *)GSYNC_CLUSTER_ARRIVE, CLUSTER_NOTE},
    {"cluster_arrive_relaxed", t_group_sync, (void *)GSYNC_CLUSTER_ARRIVE_RELAXED, CLUSTER_NOTE},
    {"cluster_wait", t_group_sync, (void *)GSYNC_CLUSTER_WAIT, CLUSTER_NOTE},
    {"cluster_sync", t_group_sync, (void *)GSYNC_CLUSTER_SYNC, CLUSTER_NOTE},
    {"get_cluster_dims", t_cluster_query, (void *)&q_dims, NULL},
    {"get_cluster_id", t_cluster_query, (void *)&q_id, NULL},
    {"get_cluster_ids", t_cluster_query, (void *)&q_ids, NULL},
    {"get_cluster_extent", t_cluster_query, (void *)&q_extent, NULL},
    {"get_cluster_extents", t_cluster_query, (void *)&q_extents, NULL},
    {"get_cluster_size", t_cluster_size, NULL, NULL},
    {"block_rank_in_cluster", t_block_rank, NULL, NULL},
};
#undef CLUSTER_NOTE

const TNames tl_launch_names = {launch_fns, (int)(sizeof launch_fns / sizeof *launch_fns)};
