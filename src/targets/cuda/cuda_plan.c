/* cuda_plan.c - the launch plan of a lowered Func, and the evaluation of grid and size
 * expressions at launch (cuda.h). Where a kernel's buffers live is kernel_buffers.c's;
 * the launch shape (persistent grid, clusters, split-K) is recorded on each kernel by
 * pass_plan_launch (passes/plan_launch.c) and read here. */
#include "cuda_emit.h"
#include "ir/ir_walk.h"
#include "layout/frag.h"

#include "../../../runtime/c/tl_c.h" /* the integer helpers of the generated code */

/* ---- launch plan --------------------------------------------------------------------------- */
bool cuda_grid_folded(const Stmt *kernel, int64_t grid[3]) {
    int64_t g[3] = {1, 1, 1}, total = 1;
    if (kernel->u.kernel.persistent || ir_cluster_size(kernel) > 1) return false;
    for (int d = 0; d < kernel->u.kernel.ngrid && d < 3; d++)
        if (!ir_is_const_int(kernel->u.kernel.grid[d], &g[d]) || g[d] < 1) return false;
    if (grid) grid[0] = g[0], grid[1] = g[1], grid[2] = g[2];
    for (int d = 0; d < 3; d++)
        if (__builtin_mul_overflow(total, g[d], &total)) return false;
    return (g[1] > 65535 || g[2] > 65535) && total <= INT32_MAX;
}

CudaPlan cuda_plan(Arena *a, const Func *f) {
    CudaPlan p = {0};
    const Stmt *body = f->body;
    int n = body && body->kind == STMT_SEQ ? body->u.seq.len : body ? 1 : 0;
    const Stmt *const *items = (const Stmt *const *)(body && body->kind == STMT_SEQ
                                                         ? body->u.seq.data
                                                         : &f->body);
    p.kernels = NEW_ARRAY(a, CudaKernelPlan, n + 1);
    p.globals = NEW_ARRAY(a, const Buffer *, n + 1);
    for (int i = 0; i < n; i++) {
        const Stmt *s = items[i];
        if (s->kind == STMT_ALLOC && s->u.alloc.buf->scope == SCOPE_GLOBAL) {
            p.globals[p.nglobals++] = s->u.alloc.buf;
            continue;
        }
        if (s->kind != STMT_KERNEL) continue;
        CudaKernelPlan *k = &p.kernels[p.nkernels];
        k->name = arena_printf(a, "tilec_kernel_%d", p.nkernels);
        p.nkernels++;
        k->ngrid = s->u.kernel.ngrid;
        for (int d = 0; d < 3; d++) {
            k->grid[d] = d < k->ngrid ? s->u.kernel.grid[d] : NULL;
            k->block[d] = s->u.kernel.threads[d] > 0 ? s->u.kernel.threads[d] : 1;
        }
        k->block[0] += s->u.kernel.producer_threads;
        k->ntmaps = s->u.kernel.ntmaps;
        k->tmaps = (const TmaMap *const *)s->u.kernel.tmaps;
        CudaBuffers bufs;
        cuda_kernel_buffers(a, s, &bufs);
        k->smem_bytes = bufs.smem_bytes;
        k->persistent = s->u.kernel.persistent; /* pass_plan_launch's decisions */
        k->cluster = s->u.kernel.cluster > 1 ? s->u.kernel.cluster : 1;
        k->sk_bytes = s->u.kernel.sk_bytes;
        for (int d = 0; d < 3; d++)
            k->cluster_dims[d] = s->u.kernel.cluster_dims[d] > 1 ? s->u.kernel.cluster_dims[d] : 1;
        k->cooperative = s->u.kernel.grid_bar != NULL;
        k->folded = cuda_grid_folded(s, NULL);
    }
    return p;
}

/* ---- evaluating integer expressions at launch ----------------------------------------------- */
typedef struct Eval {
    const Func *f;
    const int64_t *syms;
    void *const *args; /* the launch's arguments (Target.launch), or NULL */
    int depth;
} Eval;

static int eval_var(void *env, const Var *v, int64_t *out) {
    Eval *E = env;
    for (int i = 0; i < E->f->syms.len; i++)
        if (E->f->syms.data[i] == v) {
            *out = E->syms[i];
            return 0;
        }
    for (int i = 0; E->args && i < E->f->params.len; i++) /* an int scalar argument */
        if (E->f->params.data[i].scalar == v && !dtype_is_float(v->dtype)) {
            *out = *(const int64_t *)E->args[i];
            return 0;
        }
    const Stmt *body = E->f->body; /* a host-level let */
    if (!body || body->kind != STMT_SEQ || E->depth > 64) return -1;
    for (int i = 0; i < body->u.seq.len; i++) {
        const Stmt *s = body->u.seq.data[i];
        if (s->kind == STMT_LET && s->u.let.var == v) {
            E->depth++;
            int rc = ir_eval_int(s->u.let.value, eval_var, E, out);
            E->depth--;
            return rc;
        }
    }
    return -1;
}

int cuda_eval_int(const Func *f, const Expr *e, const int64_t *syms, int64_t *out) {
    return cuda_eval_launch_int(f, e, syms, NULL, out);
}

int cuda_eval_launch_int(const Func *f, const Expr *e, const int64_t *syms, void *const *args,
                         int64_t *out) {
    Eval E = {f, syms, args, 0};
    int64_t v;
    if (ir_eval_int(e, eval_var, &E, &v)) return -1;
    *out = v;
    return 0;
}

int cuda_tmap_geometry(const Func *f, const TmaMap *m, const int64_t *syms, CudaTmapGeom *g,
                       StrBuf *err) {
    const Buffer *b = m->buf;
    *g = (CudaTmapGeom){.param = -1,
                        .rank = m->rank,
                        .elem_bytes = dtype_bytes(b->dtype),
                        .swizzle = m->swizzle};
    for (int i = 0; i < f->params.len; i++)
        if (f->params.data[i].buf == ir_buffer_root(b)) g->param = i;
    uint64_t stride = (uint64_t)g->elem_bytes;
    for (int i = 0; i < m->rank; i++) {
        int64_t v;
        if (cuda_eval_int(f, b->shape[m->rank - 1 - i], syms, &v)) v = -1;
        if (g->param < 0 || v < 1 || v > ((int64_t)1 << 32)) {
            sb_printf(err,
                      "tensor '%s' (dim %d = %lld): a TMA tensor map needs every dimension "
                      "in 1 .. 2^32 (set no_ws=1, or TILEC_NO_WS=1, to load it without TMA)",
                      b->name, m->rank - 1 - i, (long long)v);
            return -1;
        }
        g->dims[i] = (uint64_t)v, g->box[i] = (uint32_t)m->box[i];
        if (i) g->strides[i - 1] = stride;
        if (stride > ((uint64_t)1 << 40) / (uint64_t)v) {
            sb_printf(err,
                      "tensor '%s' is too large for a TMA tensor map (strides of 2^40 "
                      "bytes or more)",
                      b->name);
            return -1;
        }
        stride *= (uint64_t)v;
    }
    return 0;
}
