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
};

const TNames tl_launch_names = {launch_fns, (int)(sizeof launch_fns / sizeof *launch_fns)};
