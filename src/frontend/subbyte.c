/* subbyte.c - TileLang's 4-bit integers (T.int4, T.uint4) as packed bytes.
 *
 * Contract: subbyte_pack(ctx, f) runs once at the end of elaboration. Every buffer of
 * dtype int4 (uint4) becomes an int8 (uint8) buffer of the same shape but the last
 * dimension halved: two elements per byte, the even one in the low nibble. That is
 * TileLang's storage (a T.int4 tensor of shape (M, K) is passed as an int8 tensor of
 * shape (M, K / 2)), so the kernel's parameters describe what callers pass, and no pass
 * or target after the front end sees a 4-bit dtype. What it rewrites:
 *   - element loads: the byte at the halved index, its nibble sign- (zero-) extended
 *     (ir_nibble); other 4-bit values (constants, casts, arithmetic) are int8 (uint8)
 *     wrapped to 4 bits (ir_wrap4), as TileLang's int4 arithmetic wraps;
 *   - T.copy between two int4 (two uint4) tiles and T.fill / T.clear: the same op on the
 *     bytes (a fill value v is the byte v | v << 4);
 *   - T.gemm with int4 / uint4 A (M, K) and B (N, K) (transpose_B=True: K is the packed
 *     dimension on both, as mma.sync's .s4 wants): the bytes, Stmt.gemm.int4 set.
 * Regions must start and end at even columns (constants, or expressions provably even).
 * Anything else on a 4-bit buffer is an error at the user's line: stores of one element
 * (two threads may share a byte), copies that convert, other tile ops, strided tensors,
 * views, a last dimension that is not a constant even number. */
#include "frontend/eval.h"
#include "ir/ir_walk.h"

typedef struct Pack {
    Ctx *ctx;
    Vec(Buffer *) packed;
} Pack;

static bool is4(DType t) { return t == DT_INT4 || t == DT_UINT4; }
static DType storage_of(DType t) { return t == DT_INT4 ? DT_INT8 : DT_UINT8; }

static bool packed(const Pack *P, const Buffer *b) {
    for (int i = 0; i < P->packed.len; i++)
        if (P->packed.data[i] == b) return true;
    return false;
}

/* e / 2 for an e that is provably even, else NULL. */
static Expr *half(Ctx *ctx, Expr *e) {
    int64_t c;
    if (ir_is_const_int(e, &c)) return c % 2 ? NULL : ir_int(ctx, c / 2, e->dtype, e->loc);
    if (!ir_multiple_of(e, 2)) return NULL;
    if (e->kind == EXPR_BIN && (e->u.bin.op == OP_ADD || e->u.bin.op == OP_SUB)) {
        Expr *a = half(ctx, e->u.bin.a), *b = half(ctx, e->u.bin.b);
        if (a && b) return ir_bin(ctx, e->u.bin.op, a, b, e->loc);
    }
    if (e->kind == EXPR_BIN && e->u.bin.op == OP_MUL) {
        Expr *a = half(ctx, e->u.bin.a);
        if (a) return ir_bin(ctx, OP_MUL, a, e->u.bin.b, e->loc);
        Expr *b = half(ctx, e->u.bin.b);
        if (b) return ir_bin(ctx, OP_MUL, e->u.bin.a, b, e->loc);
    }
    return ir_bin(ctx, OP_FLOORDIV, e, ir_int(ctx, 2, e->dtype, e->loc), e->loc);
}

static void pack_buffer(Pack *P, Buffer *b) {
    if (!is4(b->dtype) || packed(P, b)) return;
    const char *t = dtype_name(b->dtype);
    if (b->ndim < 1) ctx_fail(P->ctx, b->loc, "%s buffer '%s' needs a dimension", t, b->name);
    if (b->strides || b->base)
        ctx_fail(P->ctx, b->loc,
                 "%s buffer '%s': strided tensors and views of %s are not supported (two "
                 "elements share a byte)",
                 t, b->name, t);
    int64_t n;
    if (!ir_is_const_int(b->shape[b->ndim - 1], &n) || n % 2)
        ctx_fail(P->ctx, b->loc,
                 "%s buffer '%s': its last dimension must be a constant even number (two "
                 "%s per byte)",
                 t, b->name, t);
    b->shape[b->ndim - 1] = ir_int(P->ctx, n / 2, b->shape[b->ndim - 1]->dtype, b->loc);
    b->dtype = storage_of(b->dtype);
    VEC_PUSH(&P->ctx->arena, P->packed, b);
}

static void collect_allocs(Stmt **slot, void *ud) {
    Stmt *s = *slot;
    if (!s) return;
    if (s->kind == STMT_ALLOC) pack_buffer(ud, s->u.alloc.buf);
    ir_stmt_children(s, collect_allocs, ud);
}

/* ---- expressions ---------------------------------------------------------------------- */
static void rewrite_expr(Expr **slot, void *ud);

static Expr *packed_load(Pack *P, Expr *e) {
    Buffer *b = e->u.load.buf;
    if (e->u.load.mode != LOAD_PLAIN)
        ctx_fail(P->ctx, e->loc, "a load of 4-bit buffer '%s' can only be a plain read", b->name);
    int last = b->ndim - 1;
    Expr **idx = NEW_ARRAY(&P->ctx->arena, Expr *, b->ndim);
    for (int d = 0; d < b->ndim; d++) idx[d] = e->u.load.idx[d];
    Expr *col = idx[last];
    idx[last] = ir_bin(P->ctx, OP_SHR, col, ir_int(P->ctx, 1, col->dtype, e->loc), e->loc);
    Expr *byte = ir_load(P->ctx, b, idx, e->loc);
    return ir_nibble(P->ctx, byte, col, b->dtype == DT_INT8, e->loc);
}

static Expr *rewrite(Pack *P, Expr *e) {
    ir_expr_children(e, rewrite_expr, P);
    if (e->kind == EXPR_LOAD && packed(P, e->u.load.buf)) return packed_load(P, e);
    if (!is4(e->dtype)) return e;
    bool sign = e->dtype == DT_INT4;
    DType st = storage_of(e->dtype);
    switch (e->kind) {
    case EXPR_INT: return ir_int(P->ctx, e->u.i, st, e->loc);
    case EXPR_VAR: e->dtype = st; return e;
    case EXPR_CAST: return ir_wrap4(P->ctx, e->u.cast.value, sign, e->loc);
    default: e->dtype = st; return ir_wrap4(P->ctx, e, sign, e->loc);
    }
}

static void rewrite_expr(Expr **slot, void *ud) {
    if (*slot) *slot = rewrite(ud, *slot);
}

/* ---- tile operations ------------------------------------------------------------------ */
static void halve_region(Pack *P, Region *r, Loc loc, const char *op) {
    int last = r->ndim - 1;
    Expr *s = half(P->ctx, r->start[last]), *n = half(P->ctx, r->extent[last]);
    if (!s || !n)
        ctx_fail(P->ctx, loc,
                 "%s: a region of 4-bit buffer '%s' must start and end at even positions of "
                 "its last dimension (two elements per byte)",
                 op, r->buf->name);
    r->start[last] = s;
    r->extent[last] = n;
}

static const char *name4(const Buffer *b) { return b->dtype == DT_INT8 ? "int4" : "uint4"; }

static void pack_copy(Pack *P, Stmt *s) {
    Region *src = &s->u.copy.src, *dst = &s->u.copy.dst;
    bool ps = packed(P, src->buf), pd = packed(P, dst->buf);
    if (!ps && !pd) return;
    if (ps != pd || src->buf->dtype != dst->buf->dtype)
        ctx_fail(P->ctx, s->loc,
                 "T.copy from '%s' (%s) to '%s' (%s): tilec copies 4-bit tiles only to tiles "
                 "of the same dtype (read the elements in a T.Parallel loop to convert)",
                 src->buf->name, ps ? name4(src->buf) : dtype_name(src->buf->dtype), dst->buf->name,
                 pd ? name4(dst->buf) : dtype_name(dst->buf->dtype));
    halve_region(P, src, s->loc, "T.copy");
    halve_region(P, dst, s->loc, "T.copy");
}

static void pack_fill(Pack *P, Stmt *s) {
    if (!packed(P, s->u.fill.dst.buf)) return;
    halve_region(P, &s->u.fill.dst, s->loc, "T.fill");
    Ctx *ctx = P->ctx;
    Expr *low = ir_bin(ctx, OP_BITAND, ir_cast(ctx, DT_INT32, s->u.fill.value, s->loc),
                       ir_int(ctx, 15, DT_INT32, s->loc), s->loc);
    Expr *both = ir_bin(ctx, OP_BITOR, low,
                        ir_bin(ctx, OP_SHL, low, ir_int(ctx, 4, DT_INT32, s->loc), s->loc), s->loc);
    s->u.fill.value = ir_cast(ctx, s->u.fill.dst.buf->dtype, both, s->loc);
}

static void pack_gemm(Pack *P, Stmt *s) {
    bool pa = packed(P, s->u.gemm.a.buf), pb = packed(P, s->u.gemm.b.buf);
    if (packed(P, s->u.gemm.c.buf))
        ctx_fail(P->ctx, s->loc, "T.gemm: C '%s' cannot be 4-bit (int32 accumulates int4)",
                 s->u.gemm.c.buf->name);
    if (!pa && !pb) return;
    if (pa != pb)
        ctx_fail(P->ctx, s->loc,
                 "T.gemm: A '%s' and B '%s' are both 4-bit or neither (mma.sync has no int4 x "
                 "int8)",
                 s->u.gemm.a.buf->name, s->u.gemm.b.buf->name);
    if (s->u.gemm.trans_a || !s->u.gemm.trans_b)
        ctx_fail(P->ctx, s->loc,
                 "T.gemm of 4-bit operands: A must be (M, K) and B (N, K) with "
                 "transpose_B=True (K, the packed dimension, last in both)");
    if (s->u.gemm.a.ndim < 2 || s->u.gemm.b.ndim < 2)
        ctx_fail(P->ctx, s->loc, "T.gemm: 4-bit operands must be 2-D tiles");
    halve_region(P, &s->u.gemm.a, s->loc, "T.gemm");
    halve_region(P, &s->u.gemm.b, s->loc, "T.gemm");
    s->u.gemm.int4 = true;
}

static void refuse_region(Region *r, void *ud) {
    Pack *P = ((void **)ud)[0];
    const Stmt *s = ((void **)ud)[1];
    if (packed(P, r->buf))
        ctx_fail(P->ctx, s->loc,
                 "%s buffer '%s': tilec supports T.copy, T.fill, T.clear and T.gemm on 4-bit "
                 "tiles, not this operation",
                 name4(r->buf), r->buf->name);
}

static void pack_stmt(Stmt **slot, void *ud) {
    Pack *P = ud;
    Stmt *s = *slot;
    if (!s) return;
    ir_stmt_exprs(s, rewrite_expr, P);
    switch (s->kind) {
    case STMT_COPY: pack_copy(P, s); break;
    case STMT_FILL: pack_fill(P, s); break;
    case STMT_GEMM: pack_gemm(P, s); break;
    case STMT_STORE:
        if (packed(P, s->u.store.buf))
            ctx_fail(P->ctx, s->loc,
                     "a store into one element of %s buffer '%s' is not supported (two "
                     "elements share a byte, which threads may write at once); write whole "
                     "tiles with T.copy, or pack bytes into an int8 buffer",
                     name4(s->u.store.buf), s->u.store.buf->name);
        break;
    case STMT_LET:
        if (is4(s->u.let.var->dtype)) s->u.let.var->dtype = storage_of(s->u.let.var->dtype);
        break;
    case STMT_EXTERN:
        for (int i = 0; i < s->u.extern_.nargs; i++) {
            const Buffer *b = s->u.extern_.args[i].buf;
            if (b && packed(P, b))
                ctx_fail(P->ctx, s->loc, "a pointer into %s buffer '%s' is not supported", name4(b),
                         b->name);
        }
        break;
    default: {
        void *pair[2] = {P, s};
        ir_stmt_regions(s, refuse_region, pair);
    }
    }
    ir_stmt_children(s, pack_stmt, P);
}

void subbyte_pack(Ctx *ctx, Func *f) {
    Pack P = {.ctx = ctx};
    for (int i = 0; i < f->params.len; i++)
        if (f->params.data[i].buf) pack_buffer(&P, f->params.data[i].buf);
    if (f->body) collect_allocs(&f->body, &P);
    for (int i = 0; i < f->syms.len; i++)
        if (is4(f->syms.data[i]->dtype))
            ctx_fail(ctx, f->loc, "a 4-bit symbolic size is not supported");
    if (!P.packed.len) return;
    if (f->body) pack_stmt(&f->body, &P);
}
