/* work.c - how much work a kernel does, for `--bench` reports: tensor-core FLOPs counted
 * from its T.gemm operations. Requires: the elaborated Func before lowering (tile ops
 * present). Provides: a Work model whose expressions are private copies (later passes
 * may rewrite the Func), evaluated at launch with the bound sizes. */
#include "ir/work.h"

#include <string.h>

typedef struct Binding {
    const Var *var;
    int64_t value;
} Binding;

typedef struct Bindings {
    Binding b[16];
    int n;
} Bindings;

static int lookup_binding(void *env, const Var *v, int64_t *out) {
    const Bindings *b = env;
    for (int i = 0; i < b->n; i++)
        if (b->b[i].var == v) return *out = b->b[i].value, 0;
    return -1;
}

static int eval_int(const Expr *e, Bindings *env, int64_t *out) {
    return ir_eval_int(e, lookup_binding, env, out);
}

/* Let-bound values in scope, substituted into loop bounds (`loop_range = T.min(...)`). */
typedef struct Lets {
    const Stmt *let[64];
    int n;
} Lets;

static Expr *expand_lets(Ctx *ctx, const Expr *e, const Lets *lets) {
    Expr *r = ir_subst(ctx, e, NULL, NULL);
    for (int i = lets->n - 1; i >= 0; i--)
        r = ir_subst(ctx, r, lets->let[i]->u.let.var, lets->let[i]->u.let.value);
    return r;
}

/* FLOPs of one block as an expression over syms and block vars; NULL when unknown
 * (a loop bound that depends on another loop's variable). */
static Expr *block_flops(Ctx *ctx, const Stmt *s, Lets *lets, bool *unknown) {
    Loc loc = s->loc;
    switch (s->kind) {
    case STMT_SEQ: {
        Expr *sum = NULL;
        int outer = lets->n;
        for (int i = 0; i < s->u.seq.len; i++) {
            const Stmt *c = s->u.seq.data[i];
            if (c->kind == STMT_LET && lets->n < 64) lets->let[lets->n++] = c;
            Expr *x = block_flops(ctx, c, lets, unknown);
            if (x) sum = sum ? ir_bin(ctx, OP_ADD, sum, x, loc) : x;
        }
        lets->n = outer;
        return sum;
    }
    case STMT_FOR: {
        Expr *body = block_flops(ctx, s->u.for_.body, lets, unknown);
        if (!body) return NULL;
        Expr *trip = ir_cast(ctx, DT_INT64, expand_lets(ctx, s->u.for_.extent, lets), loc);
        return ir_bin(ctx, OP_MUL, trip, body, loc);
    }
    case STMT_WHILE: {
        if (block_flops(ctx, s->u.while_.body, lets, unknown)) *unknown = true;
        return NULL;
    }
    case STMT_IF: { /* an upper bound: the larger branch */
        Expr *t = block_flops(ctx, s->u.if_.then, lets, unknown);
        Expr *f = s->u.if_.orelse ? block_flops(ctx, s->u.if_.orelse, lets, unknown) : NULL;
        if (t && f) return ir_bin(ctx, OP_MAX, t, f, loc);
        return t ? t : f;
    }
    case STMT_GEMM: {
        const Region *a = &s->u.gemm.a, *c = &s->u.gemm.c;
        int64_t m = 1, n = 1, k = 1, e;
        for (int d = 0; d < c->ndim; d++) {
            if (!ir_is_const_int(c->extent[d], &e)) return *unknown = true, NULL;
            if (d == c->ndim - 2) m = e;
            if (d == c->ndim - 1) n = e;
        }
        int kd = s->u.gemm.trans_a ? a->ndim - 2 : a->ndim - 1;
        if (kd < 0 || !ir_is_const_int(a->extent[kd], &k)) return *unknown = true, NULL;
        return ir_int(ctx, 2 * m * n * k, DT_INT64, loc);
    }
    default: return NULL;
    }
}

Work *work_model(Ctx *ctx, const Func *f) {
    Work *w = NEW(&ctx->arena, Work);
    const StmtList *top = &f->body->u.seq;
    for (int i = 0; i < top->len; i++) {
        const Stmt *s = top->data[i];
        if (s->kind != STMT_KERNEL) continue;
        bool unknown = false;
        Lets lets = {.n = 0};
        Expr *per_block = block_flops(ctx, s->u.kernel.body, &lets, &unknown);
        if (unknown) return NULL;
        if (!per_block) continue;
        KernelWork kw = {.ngrid = s->u.kernel.ngrid, .flops = per_block};
        for (int d = 0; d < kw.ngrid; d++) {
            kw.grid[d] = ir_subst(ctx, s->u.kernel.grid[d], NULL, NULL);
            kw.block[d] = s->u.kernel.block[d];
        }
        VEC_PUSH(&ctx->arena, w->kernels, kw);
    }
    return w;
}

static bool uses_var(const Expr *e, const Var *v) {
    switch (e->kind) {
    case EXPR_VAR: return e->u.var == v;
    case EXPR_BIN: return uses_var(e->u.bin.a, v) || uses_var(e->u.bin.b, v);
    case EXPR_UN: return uses_var(e->u.un.a, v);
    case EXPR_CAST: return uses_var(e->u.cast.value, v);
    case EXPR_SELECT:
        return uses_var(e->u.select.cond, v) || uses_var(e->u.select.then, v) ||
               uses_var(e->u.select.orelse, v);
    default: return false;
    }
}

enum { MAX_BLOCKS_SUMMED = 1 << 22 };

/* Sums per-block FLOPs over the grid: one evaluation when they do not depend on the block
 * index, else one per block (causal attention). */
static double kernel_flops(const KernelWork *kw, Bindings env) {
    int64_t grid[3] = {1, 1, 1}, total = 1;
    bool per_block = false;
    for (int d = 0; d < kw->ngrid; d++) {
        if (eval_int(kw->grid[d], &env, &grid[d]) || grid[d] < 0) return -1;
        total *= grid[d];
        per_block |= uses_var(kw->flops, kw->block[d]);
    }
    int64_t v;
    if (!per_block) {
        if (eval_int(kw->flops, &env, &v)) return -1;
        return (double)v * (double)total;
    }
    if (total > MAX_BLOCKS_SUMMED || env.n + 3 > 16) return -1;
    double sum = 0;
    int base = env.n;
    env.n += kw->ngrid;
    for (int64_t b = 0; b < total; b++) {
        int64_t r = b;
        for (int d = 0; d < kw->ngrid; d++) {
            env.b[base + d] = (Binding){kw->block[d], r % grid[d]};
            r /= grid[d];
        }
        if (eval_int(kw->flops, &env, &v)) return -1;
        sum += (double)v;
    }
    return sum;
}

double work_flops(const Work *w, const Func *f, const int64_t *syms) {
    if (!w) return 0;
    Bindings env = {0};
    for (int i = 0; i < f->syms.len && i < 12; i++)
        env.b[env.n++] = (Binding){f->syms.data[i], syms[i]};
    double total = 0;
    for (int i = 0; i < w->kernels.len; i++) {
        double x = kernel_flops(&w->kernels.data[i], env);
        if (x < 0) return 0;
        total += x;
    }
    return total;
}
