/* assume_aligned.c - the CUDA target's assumption on symbolic sizes (pass_assume_aligned).
 *
 * A tensor parameter whose row length (its last dimension, or a stride) is a symbolic
 * size (T.dynamic) cannot be proved to hold whole 16-byte vectors per row, so without an
 * assumption its tiles are copied element by element: no vector loads, no cp.async, no
 * TMA (its global strides must be multiples of 16 bytes). This pass assumes every such
 * size a multiple of 16 bytes' worth of the tensor's elements (Var.multiple, which
 * ir_multiple_of reads) and records the assumption per sym (Func.sym_multiple). The
 * runtime checks it at each launch (api.c): a launch whose sizes break it runs the
 * kernel's general variant, lowered with the setting no_assume_aligned, where this pass
 * does nothing. api.c builds that variant only when its source differs, so a kernel the
 * assumption does not speed up is compiled once.
 *
 * Runs first. Provides: Var.multiple of the assumed syms, Func.sym_multiple (NULL when
 * nothing is assumed). */
#include "cuda_passes.h"

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

/* The sym that e is, else NULL. */
static Var *sym_of(const Func *f, const Expr *e) {
    if (!e || e->kind != EXPR_VAR) return NULL;
    for (int i = 0; i < f->syms.len; i++)
        if (f->syms.data[i] == e->u.var) return e->u.var;
    return NULL;
}

/* Assumes e (a row length or stride of b, in elements) a multiple of 16 bytes of b. */
static void assume_row(const Func *f, const Buffer *b, const Expr *e) {
    Var *v = sym_of(f, e);
    int es = dtype_bytes(b->dtype);
    if (!v || es <= 0 || es >= 16 || 16 % es) return;
    int64_t want = 16 / es, have = v->multiple > 1 ? v->multiple : 1;
    v->multiple = have / gcd64(have, want) * want;
}

void pass_assume_aligned(Ctx *ctx, Func *f) {
    if (ctx->opts.no_assume_aligned) return;
    for (int i = 0; i < f->params.len; i++) {
        const Buffer *b = f->params.data[i].buf;
        if (!b || b->ndim < 1 || b->base) continue;
        if (!b->strides) assume_row(f, b, b->shape[b->ndim - 1]);
        else
            for (int d = 0; d < b->ndim - 1; d++) assume_row(f, b, b->strides[d]);
    }
    bool any = false;
    for (int i = 0; i < f->syms.len; i++) any |= f->syms.data[i]->multiple > 1;
    if (!any) return;
    f->sym_multiple = NEW_ARRAY(&ctx->arena, int64_t, f->syms.len);
    for (int i = 0; i < f->syms.len; i++) {
        int64_t m = f->syms.data[i]->multiple;
        f->sym_multiple[i] = m > 1 ? m : 1;
    }
}
