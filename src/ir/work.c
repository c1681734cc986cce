/* work.c - how much work a kernel does, for `--bench` reports and tl_kernel_work:
 * tensor-core FLOPs counted from its T.gemm operations, and the bytes it moves to and
 * from global memory: each tile copy's global regions, each element load or store of a
 * global buffer (T.Parallel nests, T.im2col), every access counted (no cache reuse).
 * Loops multiply by their trip counts; an `if` counts its larger branch. Requires: the
 * elaborated Func before lowering (tile ops present). Provides: a Work model whose
 * expressions are private copies (later passes may rewrite the Func), evaluated at
 * launch with the bound sizes. */
#include "ir/work.h"

#include "ir/ir_walk.h"

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
    case STMT_THREADS: return block_flops(ctx, s->u.threads.body, lets, unknown);
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
        if (s->u.gemm.int4) k *= 2;  /* K counted in bytes of two elements */
        if (s->u.gemm.e.buf) k *= 2; /* T.gemm_sp: A holds half of K (dense FLOPs, as TileLang) */
        return ir_int(ctx, 2 * m * n * k, DT_INT64, loc);
    }
    default: return NULL;
    }
}

/* ---- global memory traffic --------------------------------------------------------- */
typedef struct Loads {
    Ctx *ctx;
    Expr *sum; /* bytes of the global loads found */
    Loc loc;
} Loads;

static Expr *add(Ctx *ctx, Expr *a, Expr *b, Loc loc) {
    return !a ? b : !b ? a : ir_bin(ctx, OP_ADD, a, b, loc);
}

static void global_loads(Expr **slot, void *ud) {
    Loads *l = ud;
    const Expr *e = *slot;
    if (e->kind == EXPR_LOAD && e->u.load.buf->scope == SCOPE_GLOBAL)
        l->sum = add(l->ctx, l->sum,
                     ir_int(l->ctx, dtype_bytes(e->u.load.buf->dtype), DT_INT64, l->loc), l->loc);
    ir_expr_children(*slot, global_loads, ud);
}

/* Bytes of region r when its buffer is global (NULL otherwise). */
static Expr *region_bytes(Ctx *ctx, const Region *r, const Lets *lets, Loc loc) {
    if (!r->buf || r->buf->scope != SCOPE_GLOBAL) return NULL;
    Expr *n = ir_int(ctx, dtype_bytes(r->buf->dtype), DT_INT64, loc);
    for (int d = 0; d < r->ndim; d++)
        n = ir_bin(ctx, OP_MUL, n,
                   ir_cast(ctx, DT_INT64, expand_lets(ctx, r->extent[d], lets), loc), loc);
    return n;
}

/* The global bytes statement s moves itself (its loads, its regions, a store), not its
 * child statements'. */
static Expr *own_bytes(Ctx *ctx, Stmt *s, const Lets *lets) {
    Loads l = {ctx, NULL, s->loc};
    if (s->kind == STMT_COPY) {
        l.sum = add(ctx, region_bytes(ctx, &s->u.copy.src, lets, s->loc),
                    region_bytes(ctx, &s->u.copy.dst, lets, s->loc), s->loc);
        return l.sum; /* (its starts' loads are addresses, not data) */
    }
    if (s->kind == STMT_FILL) return region_bytes(ctx, &s->u.fill.dst, lets, s->loc);
    if (s->kind == STMT_ATOMIC)
        l.sum = add(ctx, region_bytes(ctx, &s->u.atomic.src, lets, s->loc),
                    region_bytes(ctx, &s->u.atomic.dst, lets, s->loc), s->loc);
    if (s->kind == STMT_STORE && s->u.store.buf->scope == SCOPE_GLOBAL)
        l.sum = ir_int(ctx, dtype_bytes(s->u.store.buf->dtype), DT_INT64, s->loc);
    if (s->kind != STMT_KERNEL && s->kind != STMT_ALLOC) ir_stmt_exprs(s, global_loads, &l);
    return l.sum;
}

/* Global bytes of one block, as block_flops counts FLOPs. */
static Expr *block_bytes(Ctx *ctx, Stmt *s, Lets *lets, bool *unknown) {
    Loc loc = s->loc;
    switch (s->kind) {
    case STMT_SEQ: {
        Expr *sum = NULL;
        int outer = lets->n;
        for (int i = 0; i < s->u.seq.len; i++) {
            Stmt *c = s->u.seq.data[i];
            sum = add(ctx, sum, block_bytes(ctx, c, lets, unknown), loc);
            if (c->kind == STMT_LET && lets->n < 64) lets->let[lets->n++] = c;
        }
        lets->n = outer;
        return sum;
    }
    case STMT_FOR: {
        Expr *body = block_bytes(ctx, s->u.for_.body, lets, unknown);
        if (!body) return NULL;
        Expr *trip = ir_cast(ctx, DT_INT64, expand_lets(ctx, s->u.for_.extent, lets), loc);
        return ir_bin(ctx, OP_MUL, trip, body, loc);
    }
    case STMT_WHILE:
        if (block_bytes(ctx, s->u.while_.body, lets, unknown) || own_bytes(ctx, s, lets))
            *unknown = true;
        return NULL;
    case STMT_IF: {
        Expr *t = block_bytes(ctx, s->u.if_.then, lets, unknown);
        Expr *f = s->u.if_.orelse ? block_bytes(ctx, s->u.if_.orelse, lets, unknown) : NULL;
        Expr *branch = t && f ? ir_bin(ctx, OP_MAX, t, f, loc) : t ? t : f;
        return add(ctx, own_bytes(ctx, s, lets), branch, loc);
    }
    case STMT_THREADS: return block_bytes(ctx, s->u.threads.body, lets, unknown);
    default: return own_bytes(ctx, s, lets);
    }
}

Work *work_model(Ctx *ctx, const Func *f) {
    Work *w = NEW(&ctx->arena, Work);
    const StmtList *top = &f->body->u.seq;
    for (int i = 0; i < top->len; i++) {
        const Stmt *s = top->data[i];
        if (s->kind != STMT_KERNEL) continue;
        bool unknown = false, bytes_unknown = false;
        Lets lets = {.n = 0};
        Expr *per_block = block_flops(ctx, s->u.kernel.body, &lets, &unknown);
        Expr *bytes = block_bytes(ctx, s->u.kernel.body, &lets, &bytes_unknown);
        w->flops_unknown |= unknown, w->bytes_unknown |= bytes_unknown;
        if (!per_block && !bytes) continue;
        KernelWork kw = {.ngrid = s->u.kernel.ngrid, .flops = per_block, .bytes = bytes};
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

/* Sums a per-block count (FLOPs, bytes; NULL: none) over the grid: one evaluation when
 * it does not depend on the block index, else one per block (causal attention). */
static double kernel_sum(const KernelWork *kw, const Expr *count, Bindings env) {
    if (!count) return 0;
    int64_t grid[3] = {1, 1, 1}, total = 1;
    bool per_block = false;
    for (int d = 0; d < kw->ngrid; d++) {
        if (eval_int(kw->grid[d], &env, &grid[d]) || grid[d] < 0) return -1;
        total *= grid[d];
        per_block |= uses_var(count, kw->block[d]);
    }
    int64_t v;
    if (!per_block) {
        if (eval_int(count, &env, &v)) return -1;
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
        if (eval_int(count, &env, &v)) return -1;
        sum += (double)v;
    }
    return sum;
}

/* The sum over the kernels of the count each one's `field` selects; -1 when unknown. */
static double work_sum(const Work *w, const Func *f, const int64_t *syms, bool bytes) {
    if (!w || (bytes ? w->bytes_unknown : w->flops_unknown)) return -1;
    Bindings env = {0};
    for (int i = 0; i < f->syms.len && i < 12; i++)
        env.b[env.n++] = (Binding){f->syms.data[i], syms[i]};
    double total = 0;
    for (int i = 0; i < w->kernels.len; i++) {
        const KernelWork *kw = &w->kernels.data[i];
        double x = kernel_sum(kw, bytes ? kw->bytes : kw->flops, env);
        if (x < 0) return -1;
        total += x;
    }
    return total;
}

double work_flops(const Work *w, const Func *f, const int64_t *syms) {
    double x = work_sum(w, f, syms, false);
    return x < 0 ? 0 : x;
}

double work_global_bytes(const Work *w, const Func *f, const int64_t *syms) {
    return work_sum(w, f, syms, true);
}
