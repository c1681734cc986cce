/* cuda_plan.c - where a kernel's buffers live, the launch plan of a lowered Func, and the
 * evaluation of grid and size expressions at launch (cuda.h). Both the emitter and
 * cuda_plan derive the shared-memory layout from the lowered IR with
 * cuda_kernel_buffers, so the offsets in the source and smem_bytes always agree. */
#include "cuda_emit.h"
#include "layout/frag.h"

#include "../../../runtime/c/tl_c.h" /* the integer helpers of the generated code */

/* ---- buffers of a kernel ------------------------------------------------------------------ */
static int64_t buffer_elems(const Buffer *b) {
    int64_t n = 1, c;
    for (int d = 0; d < b->ndim; d++) {
        if (!ir_is_const_int(b->shape[d], &c)) return -1;
        if (c <= 0) return 0;
        if (__builtin_mul_overflow(n, c, &n)) return -1;
    }
    return n;
}

typedef struct BufWalk {
    Arena *a;
    CudaBuffers *out;
    int pass; /* 0: buffers zeroed at entry, 1: overwritten ones (after them) */
} BufWalk;

static void bufs_stmt(BufWalk *w, const Stmt *s);

static void bufs_alloc(BufWalk *w, Buffer *b) {
    CudaSlot slot = {.buf = b, .offset = -1, .elems = buffer_elems(b)};
    if (b->scope == SCOPE_GLOBAL || b->scope == SCOPE_BARRIER) return;
    if (b->scope == SCOPE_LOCAL || b->scope == SCOPE_VAR || b->layout) {
        if (b->layout) slot.elems = b->layout->nlocal;
        if (w->pass == 0) VEC_PUSH(w->a, w->out->regs, slot);
        return;
    }
    if (w->pass != (b->overwritten ? 1 : 0)) return;
    int64_t bytes = slot.elems > 0 ? slot.elems * dtype_bytes(b->dtype) : 0;
    if (b->swizzle) /* swizzled tiles: 1024-byte aligned (a whole swizzle pattern) */
        w->out->smem_bytes = (w->out->smem_bytes + 1023) / 1024 * 1024;
    slot.offset = w->out->smem_bytes;
    w->out->smem_bytes += (bytes + 15) / 16 * 16;
    VEC_PUSH(w->a, w->out->smem, slot);
}

static void bufs_stmt(BufWalk *w, const Stmt *s) {
    if (!s) return;
    switch (s->kind) {
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) bufs_stmt(w, s->u.seq.data[i]);
        break;
    case STMT_FOR: bufs_stmt(w, s->u.for_.body); break;
    case STMT_WHILE: bufs_stmt(w, s->u.while_.body); break;
    case STMT_IF:
        bufs_stmt(w, s->u.if_.then);
        bufs_stmt(w, s->u.if_.orelse);
        break;
    case STMT_ALLOC: bufs_alloc(w, s->u.alloc.buf); break;
    default: break;
    }
}

void cuda_kernel_buffers(Arena *a, const Stmt *kernel, CudaBuffers *out) {
    BufWalk w = {a, out, 0};
    *out = (CudaBuffers){0};
    bufs_stmt(&w, kernel->u.kernel.body);
    out->zero_bytes = out->smem_bytes;
    w.pass = 1;
    bufs_stmt(&w, kernel->u.kernel.body);
}

/* ---- launch plan --------------------------------------------------------------------------- */
CudaPlan cuda_plan(Arena *a, const Func *f) {
    CudaPlan p = {0};
    const Stmt *body = f->body;
    int n = body && body->kind == STMT_SEQ ? body->u.seq.len : body ? 1 : 0;
    const Stmt *const *items = (const Stmt *const *)(body && body->kind == STMT_SEQ
                                                         ? body->u.seq.data : &f->body);
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
        CudaBuffers bufs;
        cuda_kernel_buffers(a, s, &bufs);
        k->smem_bytes = bufs.smem_bytes;
    }
    return p;
}

/* ---- evaluating integer expressions at launch ----------------------------------------------- */
typedef struct Eval {
    const Func *f;
    const int64_t *syms;
    int depth;
} Eval;

static int eval_var(void *env, const Var *v, int64_t *out) {
    Eval *E = env;
    for (int i = 0; i < E->f->syms.len; i++)
        if (E->f->syms.data[i] == v) {
            *out = E->syms[i];
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
    Eval E = {f, syms, 0};
    int64_t v;
    if (ir_eval_int(e, eval_var, &E, &v)) return -1;
    *out = v;
    return 0;
}
