/* cuda_plan.c - where a kernel's buffers live, the launch plan of a lowered Func, and the
 * evaluation of grid and size expressions at launch (cuda.h). Both the emitter and
 * cuda_plan derive the shared-memory layout from the lowered IR with
 * cuda_kernel_buffers, so the offsets in the source and smem_bytes always agree. */
#include "cuda_emit.h"

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
} BufWalk;

static void bufs_stmt(BufWalk *w, const Stmt *s);

static void bufs_alloc(BufWalk *w, Buffer *b) {
    CudaSlot slot = {.buf = b, .offset = -1, .elems = buffer_elems(b)};
    if (b->scope == SCOPE_GLOBAL || b->scope == SCOPE_BARRIER) return;
    if (b->scope == SCOPE_LOCAL || b->scope == SCOPE_VAR) {
        VEC_PUSH(w->a, w->out->regs, slot);
        return;
    }
    int64_t bytes = slot.elems > 0 ? slot.elems * dtype_bytes(b->dtype) : 0;
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
    BufWalk w = {a, out};
    *out = (CudaBuffers){0};
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

static int eval(Eval *E, const Expr *e, int64_t *out);

/* Wraps v to the width and signedness of an integer dtype (bool: != 0). */
static int64_t wrap_int(int64_t v, DType t) {
    int bits = dtype_bits(t);
    if (t == DT_BOOL) return v != 0;
    if (bits >= 64) return v;
    uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & m;
    if (dtype_is_signed(t) && (u >> (bits - 1))) u |= ~m;
    return (int64_t)u;
}

static int eval_var(Eval *E, const Var *v, int64_t *out) {
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
            int rc = eval(E, s->u.let.value, out);
            E->depth--;
            if (!rc) *out = wrap_int(*out, v->dtype);
            return rc;
        }
    }
    return -1;
}

/* a op b in int64_t with the generated code's semantics (tl_c.h: wrapping, division by
 * zero gives 0, floor division and modulo as in Python, masked shift counts). */
static int eval_bin(BinOp op, int64_t a, int64_t b, int64_t *out) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case OP_ADD: *out = (int64_t)(ua + ub); return 0;
    case OP_SUB: *out = (int64_t)(ua - ub); return 0;
    case OP_MUL: *out = (int64_t)(ua * ub); return 0;
    case OP_DIV: *out = tl_div_i64(a, b); return 0;
    case OP_FLOORDIV: *out = tl_floordiv_i64(a, b); return 0;
    case OP_FLOORMOD: *out = tl_floormod_i64(a, b); return 0;
    case OP_MIN: *out = a < b ? a : b; return 0;
    case OP_MAX: *out = a > b ? a : b; return 0;
    case OP_LT: *out = a < b; return 0;
    case OP_LE: *out = a <= b; return 0;
    case OP_GT: *out = a > b; return 0;
    case OP_GE: *out = a >= b; return 0;
    case OP_EQ: *out = a == b; return 0;
    case OP_NE: *out = a != b; return 0;
    case OP_AND: *out = a && b; return 0;
    case OP_OR: *out = a || b; return 0;
    case OP_BITAND: *out = a & b; return 0;
    case OP_BITOR: *out = a | b; return 0;
    case OP_BITXOR: *out = a ^ b; return 0;
    case OP_SHL: *out = tl_shl_i64(a, b); return 0;
    case OP_SHR: *out = tl_shr_i64(a, b); return 0;
    default: return -1;
    }
}

static int eval(Eval *E, const Expr *e, int64_t *out) {
    int64_t a, b, c;
    if (!e || (!dtype_is_int(e->dtype) && e->kind != EXPR_CAST)) return -1;
    switch (e->kind) {
    case EXPR_INT: *out = e->u.i; return 0;
    case EXPR_VAR: return eval_var(E, e->u.var, out);
    case EXPR_CAST:
        if (!dtype_is_int(e->dtype) || eval(E, e->u.cast.value, &a)) return -1;
        *out = wrap_int(a, e->dtype);
        return 0;
    case EXPR_UN:
        if (eval(E, e->u.un.a, &a)) return -1;
        a = e->u.un.op == OP_NEG ? (int64_t)(0 - (uint64_t)a) : e->u.un.op == OP_NOT ? !a : ~a;
        *out = wrap_int(a, e->dtype);
        return 0;
    case EXPR_BIN:
        if (eval(E, e->u.bin.a, &a) || eval(E, e->u.bin.b, &b)) return -1;
        if (!dtype_is_signed(e->dtype) && e->dtype == DT_UINT64 &&
            (e->u.bin.op == OP_DIV || e->u.bin.op == OP_FLOORDIV || e->u.bin.op == OP_FLOORMOD))
            return -1; /* unsigned 64-bit division: not needed for sizes */
        if (eval_bin(e->u.bin.op, a, b, &c)) return -1;
        *out = wrap_int(c, e->dtype);
        return 0;
    case EXPR_SELECT:
        if (eval(E, e->u.select.cond, &a)) return -1;
        return eval(E, a ? e->u.select.then : e->u.select.orelse, out);
    default: return -1;
    }
}

int cuda_eval_int(const Func *f, const Expr *e, const int64_t *syms, int64_t *out) {
    Eval E = {f, syms, 0};
    int64_t v;
    if (eval(&E, e, &v)) return -1;
    *out = v;
    return 0;
}
