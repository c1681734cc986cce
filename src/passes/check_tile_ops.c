/* check_tile_ops.c - user errors for tile operations whose operands do not fit.
 *
 * Requires: elaborated IR (tile ops not yet lowered).
 * Provides: every T.copy / T.atomic_* (tile form) has the same shape on both sides after
 * dropping extent-1 dims; T.gemm operands are 2-D tiles with consistent M, N, K and
 * legal scopes; reduce/cumsum dims are normalized to [0, ndim) and shapes agree; regions
 * of non-global buffers have constant extents and lie inside their buffer. Extents that
 * are not compile-time constants are compared only when provably unequal. `break`,
 * `continue` and T.loop_break sit inside a loop of their kernel.
 * Messages use the user's terms: "T.gemm: A is 64x32 but B is 16x64 (...)". */
#include "passes/passes.h"
#include "ir/ir_walk.h"

#include <stdlib.h>
#include <string.h>

/* ---- formatting helpers (arena strings) --------------------------------------------- */
static const char *region_str(Ctx *ctx, const Region *r) {
    StrBuf sb = {0};
    ir_print_region_user(&sb, r);
    char *s = arena_strdup(&ctx->arena, sb.buf ? sb.buf : "");
    sb_free(&sb);
    return s;
}

/* "64x32" for the extents dims[0..n) of r (all dims when dims is NULL). */
static const char *extents_str(Ctx *ctx, const Region *r, const int *dims, int n) {
    StrBuf sb = {0};
    if (!dims) n = r->ndim;
    for (int i = 0; i < n; i++) {
        if (i) sb_putc(&sb, 'x');
        ir_print_expr(&sb, r->extent[dims ? dims[i] : i]);
    }
    if (n == 0) sb_putc(&sb, '1');
    char *s = arena_strdup(&ctx->arena, sb.buf);
    sb_free(&sb);
    return s;
}

static const char *scope_words(Scope s) {
    switch (s) {
    case SCOPE_GLOBAL: return "a global tensor";
    case SCOPE_SHARED: return "in shared memory";
    case SCOPE_FRAGMENT: return "a fragment";
    case SCOPE_LOCAL: return "a local buffer";
    case SCOPE_VAR: return "a T.alloc_var";
    default: return "a barrier";
    }
}

/* 1: provably equal, 0: provably different, -1: unknown. */
static int extent_cmp(const Expr *a, const Expr *b) {
    int64_t x, y;
    if (ir_is_const_int(a, &x) && ir_is_const_int(b, &y)) return x == y;
    return ir_expr_equal(a, b) ? 1 : -1;
}

/* ---- regions of non-global buffers --------------------------------------------------- */
static const char *buffer_shape_str(Ctx *ctx, const Buffer *b) {
    Region whole = {.buf = (Buffer *)b, .ndim = b->ndim, .start = b->shape, .extent = b->shape};
    return extents_str(ctx, &whole, NULL, 0);
}

static void check_local_region(Ctx *ctx, Loc loc, const char *op, const Region *r) {
    const Buffer *b = r->buf;
    if (b->scope == SCOPE_GLOBAL || r->ndim != b->ndim) return;
    for (int d = 0; d < r->ndim; d++) {
        int64_t s, e, n;
        if (!ir_is_const_int(r->extent[d], &e))
            ctx_fail(ctx, loc, "%s: the size of %s is not a compile-time constant", op,
                     region_str(ctx, r));
        if (e <= 0) ctx_fail(ctx, loc, "%s: %s is empty", op, region_str(ctx, r));
        if (!ir_is_const_int(r->start[d], &s) || !ir_is_const_int(b->shape[d], &n)) continue;
        if (s < 0 || s + e > n)
            ctx_fail(ctx, loc, "%s: %s is out of bounds of %s, which is %s", op, region_str(ctx, r),
                     b->name, buffer_shape_str(ctx, b));
    }
}

/* Extents a[da[i]] vs b[db[i]]: true when provably different (a rank difference counts
 * only when every extent is constant, since a symbolic extent may be 1). */
static bool shapes_differ(const Region *a, const int *da, int na, const Region *b, const int *db,
                          int nb) {
    if (na == nb) {
        for (int i = 0; i < na; i++)
            if (extent_cmp(a->extent[da[i]], b->extent[db[i]]) == 0) return true;
        return false;
    }
    for (int i = 0; i < na; i++)
        if (!ir_is_const_int(a->extent[da[i]], NULL)) return false;
    for (int i = 0; i < nb; i++)
        if (!ir_is_const_int(b->extent[db[i]], NULL)) return false;
    return true;
}

/* Same shape after dropping extent-1 dims (copy, tile atomics). */
static void check_same_squeezed(Ctx *ctx, Loc loc, const char *op, const Region *src,
                                const Region *dst, const char *src_role, const char *dst_role) {
    int ds[8], dd[8];
    TL_ASSERT(src->ndim <= 8 && dst->ndim <= 8);
    int ns = ir_region_squeeze(src, ds), nd = ir_region_squeeze(dst, dd);
    if (shapes_differ(src, ds, ns, dst, dd, nd))
        ctx_fail(ctx, loc, "%s: %s %s is %s but %s %s is %s", op, src_role, region_str(ctx, src),
                 extents_str(ctx, src, NULL, 0), dst_role, region_str(ctx, dst),
                 extents_str(ctx, dst, NULL, 0));
}

/* ---- gemm ---------------------------------------------------------------------------- */
typedef struct Tile2 {
    const char *name; /* "A", "B", "C" */
    const Region *r;
    int row, col; /* the two dims used */
} Tile2;

static Tile2 gemm_tile(Ctx *ctx, Loc loc, const char *name, const Region *r) {
    Tile2 t = {name, r, r->ndim - 2, r->ndim - 1};
    if (r->ndim < 2)
        ctx_fail(ctx, loc, "T.gemm: %s must be a 2-D tile, but %s is %s", name, region_str(ctx, r),
                 extents_str(ctx, r, NULL, 0));
    for (int d = 0; d < r->ndim - 2; d++) {
        int64_t e;
        if (!ir_is_const_int(r->extent[d], &e) || e != 1)
            ctx_fail(ctx, loc, "T.gemm: %s must be a 2-D tile, but %s is %s", name,
                     region_str(ctx, r), extents_str(ctx, r, NULL, 0));
    }
    return t;
}

static const Expr *tile_dim(const Tile2 *t, bool second) {
    return t->r->extent[second ? t->col : t->row];
}

static void gemm_mismatch(Ctx *ctx, const Stmt *s, const Tile2 *x, const Tile2 *y,
                          const char *dimname, const Expr *ex, const Expr *ey) {
    if (extent_cmp(ex, ey) != 0) return;
    int dx[2] = {x->row, x->col}, dy[2] = {y->row, y->col};
    StrBuf ax = {0}, ay = {0};
    ir_print_expr(&ax, ex);
    ir_print_expr(&ay, ey);
    const char *tr = s->u.gemm.trans_a && s->u.gemm.trans_b ? ", with transpose_A=True and "
                                                              "transpose_B=True"
                     : s->u.gemm.trans_a                    ? ", with transpose_A=True"
                     : s->u.gemm.trans_b                    ? ", with transpose_B=True"
                                                            : "";
    char *msg = arena_printf(&ctx->arena, "%s is %s in %s but %s in %s%s", dimname, ax.buf, x->name,
                             ay.buf, y->name, tr);
    sb_free(&ax);
    sb_free(&ay);
    ctx_fail(ctx, s->loc, "T.gemm: %s is %s but %s is %s (%s)", x->name,
             extents_str(ctx, x->r, dx, 2), y->name, extents_str(ctx, y->r, dy, 2), msg);
}

static void check_gemm_scopes(Ctx *ctx, const Stmt *s) {
    const Region *ops[2] = {&s->u.gemm.a, &s->u.gemm.b};
    for (int i = 0; i < 2; i++) {
        Scope sc = ops[i]->buf->scope;
        if (sc != SCOPE_SHARED && sc != SCOPE_FRAGMENT && sc != SCOPE_LOCAL)
            ctx_fail(ctx, s->loc, "T.gemm: %s must be in shared memory or a fragment, but %s is %s",
                     i ? "B" : "A", ops[i]->buf->name, scope_words(sc));
    }
    Scope sc = s->u.gemm.c.buf->scope;
    if (sc != SCOPE_FRAGMENT && sc != SCOPE_LOCAL)
        ctx_fail(ctx, s->loc, "T.gemm: C must be a fragment (T.alloc_fragment), but %s is %s",
                 s->u.gemm.c.buf->name, scope_words(sc));
}

static void check_gemm(Ctx *ctx, const Stmt *s) {
    check_gemm_scopes(ctx, s);
    Tile2 a = gemm_tile(ctx, s->loc, "A", &s->u.gemm.a);
    Tile2 b = gemm_tile(ctx, s->loc, "B", &s->u.gemm.b);
    Tile2 c = gemm_tile(ctx, s->loc, "C", &s->u.gemm.c);
    bool ta = s->u.gemm.trans_a, tb = s->u.gemm.trans_b;
    const Expr *m = tile_dim(&a, ta), *ka = tile_dim(&a, !ta);
    const Expr *kb = tile_dim(&b, tb), *n = tile_dim(&b, !tb);
    gemm_mismatch(ctx, s, &a, &b, "K", ka, kb);
    gemm_mismatch(ctx, s, &a, &c, "M", m, tile_dim(&c, false));
    gemm_mismatch(ctx, s, &b, &c, "N", n, tile_dim(&c, true));
}

/* ---- gemm_sp (2:4 sparse A, tileops_sparse.c) ---------------------------------------- */
/* The constant extents (rows, cols) of 2-D tile r, operand `name` of T.gemm_sp. */
static void sp_tile(Ctx *ctx, const Stmt *s, const char *name, const Region *r, int64_t *rows,
                    int64_t *cols) {
    Tile2 t = gemm_tile(ctx, s->loc, name, r);
    if (!ir_is_const_int(tile_dim(&t, false), rows) || !ir_is_const_int(tile_dim(&t, true), cols))
        ctx_fail(ctx, s->loc, "T.gemm_sp: %s must have a constant shape, but %s is %s", name,
                 region_str(ctx, r), extents_str(ctx, r, NULL, 0));
}

static bool sp_input(DType t) {
    return t == DT_FLOAT16 || t == DT_BFLOAT16 || t == DT_FLOAT32 || t == DT_INT8 ||
           t == DT_UINT8 || t == DT_FLOAT8_E4M3 || t == DT_FLOAT8_E5M2;
}

static void check_gemm_sp_types(Ctx *ctx, const Stmt *s) {
    DType a = s->u.gemm.a.buf->dtype, b = s->u.gemm.b.buf->dtype, e = s->u.gemm.e.buf->dtype;
    DType c = s->u.gemm.c.buf->dtype;
    if (a != b || !sp_input(a))
        ctx_fail(ctx, s->loc,
                 "T.gemm_sp: A_sparse and B must have one dtype of float16, bfloat16, float32, "
                 "int8, uint8, float8_e4m3, float8_e5m2, but they are %s and %s",
                 dtype_name(a), dtype_name(b));
    if (!dtype_is_int(e) || e == DT_BOOL ||
        (dtype_bits(e) != 8 && dtype_bits(e) != 16 && dtype_bits(e) != 32))
        ctx_fail(ctx, s->loc, "T.gemm_sp: E must be an 8-, 16- or 32-bit integer buffer, not %s",
                 dtype_name(e));
    bool ints = a == DT_INT8 || a == DT_UINT8;
    if (ints ? c != DT_INT32 : c != DT_FLOAT32 && c != DT_FLOAT16)
        ctx_fail(ctx, s->loc, "T.gemm_sp: C must be %s for %s inputs, not %s",
                 ints ? "int32" : "float32 or float16", dtype_name(a), dtype_name(c));
}

static void check_gemm_sp(Ctx *ctx, const Stmt *s) {
    check_gemm_scopes(ctx, s);
    Scope se = s->u.gemm.e.buf->scope;
    if (se != SCOPE_SHARED && se != SCOPE_FRAGMENT && se != SCOPE_LOCAL)
        ctx_fail(ctx, s->loc, "T.gemm_sp: E must be in shared memory or a fragment, but %s is %s",
                 s->u.gemm.e.buf->name, scope_words(se));
    check_gemm_sp_types(ctx, s);
    int64_t ar, ac, er, ec, br, bc, cr, cc;
    sp_tile(ctx, s, "A_sparse", &s->u.gemm.a, &ar, &ac);
    sp_tile(ctx, s, "E", &s->u.gemm.e, &er, &ec);
    sp_tile(ctx, s, "B", &s->u.gemm.b, &br, &bc);
    sp_tile(ctx, s, "C", &s->u.gemm.c, &cr, &cc);
    bool ta = s->u.gemm.trans_a, tb = s->u.gemm.trans_b, te = s->u.gemm.trans_e;
    int64_t m = ta ? ac : ar, half = ta ? ar : ac, k = tb ? bc : br, n = tb ? br : bc;
    int group = s->u.gemm.a.buf->dtype == DT_FLOAT32 ? 2 : 4;
    int64_t e_factor = dtype_bits(s->u.gemm.e.buf->dtype) / 4 * group;
    if (2 * half != k)
        ctx_fail(ctx, s->loc,
                 "T.gemm_sp: A_sparse holds half of K, but it has %lld columns of K and B has "
                 "K = %lld",
                 (long long)half, (long long)k);
    if (m != cr || n != cc)
        ctx_fail(ctx, s->loc, "T.gemm_sp: C is %lldx%lld but A_sparse and B give %lldx%lld",
                 (long long)cr, (long long)cc, (long long)m, (long long)n);
    if (k % e_factor || (te ? ec : er) != m || (te ? er : ec) != k / e_factor)
        ctx_fail(ctx, s->loc,
                 "T.gemm_sp: E (%s) must be %s%lld x %lld/%lld (M x K / e_factor: %lld K elements "
                 "per %s), but it is %lldx%lld",
                 dtype_name(s->u.gemm.e.buf->dtype), te ? "transposed, " : "", (long long)m,
                 (long long)k, (long long)e_factor, (long long)e_factor,
                 dtype_name(s->u.gemm.e.buf->dtype), (long long)er, (long long)ec);
}

/* ---- reduce, cumsum ------------------------------------------------------------------ */
static int normalize_dim(Ctx *ctx, Loc loc, const char *op, int dim, const Region *src) {
    int d = dim < 0 ? dim + src->ndim : dim;
    if (d < 0 || d >= src->ndim)
        ctx_fail(ctx, loc, "%s: dim=%d is out of range for %s, which has %d dimension%s", op, dim,
                 region_str(ctx, src), src->ndim, src->ndim == 1 ? "" : "s");
    return d;
}

static void check_reduce(Ctx *ctx, Stmt *s) {
    const char *op = arena_printf(&ctx->arena, "T.reduce_%s", reduce_op_name(s->u.reduce.op));
    const Region *src = &s->u.reduce.src, *dst = &s->u.reduce.dst;
    int dim = normalize_dim(ctx, s->loc, op, s->u.reduce.dim, src);
    s->u.reduce.dim = dim;
    ReduceOp rop = s->u.reduce.op;
    bool bits = rop == RED_BITAND || rop == RED_BITOR || rop == RED_BITXOR;
    if (bits && (!dtype_is_int(src->buf->dtype) || !dtype_is_int(dst->buf->dtype)))
        ctx_fail(ctx, s->loc, "%s requires integer or bool buffers, got %s and %s", op,
                 dtype_name(src->buf->dtype), dtype_name(dst->buf->dtype));
    int keep[8], nk = 0, dd[8];
    TL_ASSERT(src->ndim <= 8 && dst->ndim <= 8);
    for (int d = 0; d < src->ndim; d++) {
        int64_t e;
        if (d != dim && !(ir_is_const_int(src->extent[d], &e) && e == 1)) keep[nk++] = d;
    }
    int nd = ir_region_squeeze(dst, dd);
    if (!shapes_differ(src, keep, nk, dst, dd, nd)) return;
    int without[8], nw = 0;
    for (int d = 0; d < src->ndim; d++)
        if (d != dim) without[nw++] = d;
    StrBuf kept = {0};
    for (int d = 0; d < src->ndim; d++) {
        if (d) sb_putc(&kept, 'x');
        if (d == dim) sb_putc(&kept, '1');
        else ir_print_expr(&kept, src->extent[d]);
    }
    const char *k = arena_strdup(&ctx->arena, kept.buf);
    sb_free(&kept);
    ctx_fail(ctx, s->loc, "%s: src %s is %s, so dst must be %s (or %s) for dim=%d, but %s is %s",
             op, region_str(ctx, src), extents_str(ctx, src, NULL, 0),
             extents_str(ctx, src, without, nw), k, dim, region_str(ctx, dst),
             extents_str(ctx, dst, NULL, 0));
}

static void check_cumsum(Ctx *ctx, Stmt *s) {
    const Region *src = &s->u.cumsum.src, *dst = &s->u.cumsum.dst;
    const char *op = s->u.cumsum.max ? "T.cummax" : "T.cumsum";
    s->u.cumsum.dim = normalize_dim(ctx, s->loc, op, s->u.cumsum.dim, src);
    check_same_squeezed(ctx, s->loc, op, src, dst, "src", "dst");
}

/* ---- traversal ----------------------------------------------------------------------- */
typedef struct RegionCheck {
    Ctx *ctx;
    const Stmt *s;
    const char *op;
} RegionCheck;

static void check_region_cb(Region *r, void *ud) {
    RegionCheck *rc = ud;
    check_local_region(rc->ctx, rc->s->loc, rc->op, r);
}

static const char *op_name(Ctx *ctx, const Stmt *s) {
    switch (s->kind) {
    case STMT_COPY: return "T.copy";
    case STMT_FILL: return "T.fill";
    case STMT_GEMM: return s->u.gemm.e.buf ? "T.gemm_sp" : "T.gemm";
    case STMT_REDUCE:
        return arena_printf(&ctx->arena, "T.reduce_%s", reduce_op_name(s->u.reduce.op));
    case STMT_CUMSUM: return s->u.cumsum.max ? "T.cummax" : "T.cumsum";
    case STMT_ATOMIC:
        return arena_printf(&ctx->arena, "T.atomic_%s", atomic_op_name(s->u.atomic.op));
    default: return "T.print";
    }
}

/* A barrier (T.alloc_barrier) is an operand of the mbarrier ops only, never a value. */
static void check_no_barrier(Expr **slot, void *ud) {
    const Expr *e = *slot;
    if (e->kind == EXPR_LOAD && e->u.load.buf->scope == SCOPE_BARRIER)
        ctx_fail(ud, e->loc,
                 "barrier '%s' is not a value: pass it to T.mbarrier_wait_parity, "
                 "T.mbarrier_arrive, T.mbarrier_expect_tx or T.tma_copy(barrier=)",
                 e->u.load.buf->name);
    ir_expr_children((Expr *)e, check_no_barrier, ud);
}

static void check_stmt(Ctx *ctx, Stmt *s);
static void check_child(Stmt **slot, void *ud) { check_stmt(ud, *slot); }

static void check_stmt(Ctx *ctx, Stmt *s) {
    switch (s->kind) {
    case STMT_COPY:
        check_same_squeezed(ctx, s->loc, "T.copy", &s->u.copy.src, &s->u.copy.dst, "source",
                            "destination");
        break;
    case STMT_GEMM: s->u.gemm.e.buf ? check_gemm_sp(ctx, s) : check_gemm(ctx, s); break;
    case STMT_REDUCE: check_reduce(ctx, s); break;
    case STMT_CUMSUM: check_cumsum(ctx, s); break;
    case STMT_ATOMIC:
        if (s->u.atomic.src.buf)
            check_same_squeezed(ctx, s->loc, op_name(ctx, s), &s->u.atomic.src, &s->u.atomic.dst,
                                "source", "destination");
        break;
    default: break;
    }
    ir_stmt_exprs(s, check_no_barrier, ctx);
    if (s->kind >= STMT_COPY && s->kind <= STMT_PRINT) {
        RegionCheck rc = {ctx, s, op_name(ctx, s)};
        ir_stmt_regions(s, check_region_cb, &rc);
    }
    ir_stmt_children(s, check_child, ctx);
}

/* `break` / `continue` / T.loop_break only inside a loop of the kernel. */
typedef struct JumpCheck {
    Ctx *ctx;
    int loops;
} JumpCheck;

static void check_jumps(Stmt **slot, void *ud) {
    JumpCheck *j = ud;
    const Stmt *s = *slot;
    if ((s->kind == STMT_BREAK || s->kind == STMT_CONTINUE) && !j->loops)
        ctx_fail(j->ctx, s->loc,
                 "'%s' outside a loop (T.loop_break leaves the innermost "
                 "kernel loop)",
                 s->kind == STMT_BREAK ? "break" : "continue");
    int outer = j->loops; /* (a kernel's body starts outside every loop) */
    j->loops = s->kind == STMT_KERNEL ? 0 : outer + (s->kind == STMT_FOR || s->kind == STMT_WHILE);
    ir_stmt_children(*slot, check_jumps, ud);
    j->loops = outer;
}

void pass_check_tile_ops(Ctx *ctx, Func *f) {
    if (!f->body) return;
    check_stmt(ctx, f->body);
    JumpCheck j = {ctx, 0};
    check_jumps(&f->body, &j);
}
