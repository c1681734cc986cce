/* test_ir.c - IR construction, constant folding, printing and the verifier. */
#include "frontend/frontend.h"
#include "passes/passes.h"
#include "targets/target.h"
#include "ir/ir_walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static Ctx ctx;
static Loc L0;

static const char *pe(const Expr *e) {
    StrBuf sb = {0};
    ir_print_expr(&sb, e);
    char *s = arena_strdup(&ctx.arena, sb.buf);
    sb_free(&sb);
    return s;
}

static Expr *I(int64_t v) { return ir_int(&ctx, v, DT_INT32, L0); }
static Expr *F(double v) { return ir_float(&ctx, v, DT_FLOAT32, L0); }
static Expr *V(Var *v) { return ir_varref(&ctx, v, L0); }
static Expr *B(BinOp op, Expr *a, Expr *b) { return ir_bin(&ctx, op, a, b, L0); }

static bool is_int(const Expr *e, int64_t v, DType t) {
    return e->kind == EXPR_INT && e->u.i == v && e->dtype == t;
}
static bool is_float(const Expr *e, double v, DType t) {
    return e->kind == EXPR_FLOAT && e->u.f == v && e->dtype == t;
}

static void test_enum_names(void) {
    CHECK_STR(scope_name(SCOPE_FRAGMENT), "fragment");
    CHECK_STR(binop_name(OP_FLOORDIV), "//");
    CHECK_STR(unop_name(OP_BITNOT), "~");
    CHECK_STR(intrinsic_name(FN_ATAN2), "atan2");
    CHECK(intrinsic_nargs(FN_ATAN2) == 2 && intrinsic_nargs(FN_EXP) == 1);
    CHECK_STR(loop_kind_name(LOOP_PIPELINED), "pipelined");
    CHECK_STR(reduce_op_name(RED_ABSMAX), "absmax");
    CHECK_STR(atomic_op_name(ATOMIC_MIN), "min");
    CHECK_STR(gemm_policy_name(POLICY_FULL_COL), "FullCol");
}

static void test_int_folding(void) {
    CHECK(is_int(B(OP_ADD, I(2), I(3)), 5, DT_INT32));
    CHECK(is_int(B(OP_FLOORDIV, I(-7), I(2)), -4, DT_INT32));
    CHECK(is_int(B(OP_FLOORMOD, I(-7), I(2)), 1, DT_INT32));
    CHECK(is_int(B(OP_FLOORMOD, I(7), I(-2)), -1, DT_INT32));
    CHECK(is_int(B(OP_FLOORDIV, I(7), I(-2)), -4, DT_INT32));
    CHECK(is_int(B(OP_DIV, I(-7), I(2)), -3, DT_INT32));
    CHECK(is_int(B(OP_POW, I(3), I(4)), 81, DT_INT32));
    CHECK(is_int(B(OP_MIN, I(3), I(-4)), -4, DT_INT32));
    CHECK(is_int(B(OP_SHL, I(1), I(10)), 1024, DT_INT32));
    CHECK(B(OP_SHL, I(1), I(40))->kind == EXPR_BIN); /* targets mask the count: leave it */
    CHECK(is_int(B(OP_SHR, I(-8), I(1)), -4, DT_INT32));
    /* operands are converted to the promoted dtype first (unsigned wins at equal width) */
    Expr *um1 = ir_int(&ctx, -1, DT_UINT64, L0), *u2 = ir_int(&ctx, 2, DT_UINT64, L0);
    CHECK(is_int(B(OP_LT, um1, u2), 0, DT_BOOL));
    CHECK(is_int(B(OP_FLOORDIV, um1, u2), INT64_MAX, DT_UINT64));
    Expr *u32 = ir_int(&ctx, 1, DT_UINT32, L0);
    CHECK(is_int(B(OP_LT, I(-1), u32), 0, DT_BOOL));
    CHECK(is_int(B(OP_LT, I(1), I(2)), 1, DT_BOOL));
    CHECK(is_int(B(OP_AND, I(1), I(0)), 0, DT_BOOL));
    /* no folding of division by zero */
    CHECK(B(OP_FLOORDIV, I(1), I(0))->kind == EXPR_BIN);
    CHECK(B(OP_DIV, I(1), I(0))->kind == EXPR_BIN);
    CHECK(B(OP_FLOORMOD, I(1), I(0))->kind == EXPR_BIN);
    /* wrap to the dtype's width */
    Expr *a = ir_int(&ctx, 127, DT_INT8, L0), *b = ir_int(&ctx, 1, DT_INT8, L0);
    CHECK(is_int(B(OP_ADD, a, b), -128, DT_INT8));
    CHECK(is_int(ir_int(&ctx, 300, DT_UINT8, L0), 44, DT_UINT8));
    /* promotion */
    Expr *l = ir_int(&ctx, 1LL << 40, DT_INT64, L0);
    CHECK(is_int(B(OP_ADD, l, I(1)), (1LL << 40) + 1, DT_INT64));
    CHECK(is_float(B(OP_ADD, I(1), F(0.5)), 1.5, DT_FLOAT32));
}

static void test_float_folding(void) {
    CHECK(is_float(B(OP_DIV, F(7), F(2)), 3.5, DT_FLOAT32));
    CHECK(is_float(B(OP_FLOORDIV, F(-7), F(2)), -4, DT_FLOAT32));
    CHECK(is_float(B(OP_FLOORMOD, F(-7), F(2)), 1, DT_FLOAT32));
    CHECK(is_int(B(OP_GE, F(2), F(2)), 1, DT_BOOL));
    CHECK(is_float(ir_un(&ctx, OP_NEG, F(2), L0), -2, DT_FLOAT32));
    CHECK(is_float(ir_call(&ctx, FN_EXP, F(0), NULL, L0), 1, DT_FLOAT32));
    CHECK(is_float(ir_call(&ctx, FN_POW, F(2), F(3), L0), 8, DT_FLOAT32));
    CHECK(is_int(ir_call(&ctx, FN_ISINF, F(INFINITY), NULL, L0), 1, DT_BOOL));
    CHECK(is_int(ir_call(&ctx, FN_ABS, I(-3), NULL, L0), 3, DT_INT32));
}

static void test_simplify(void) {
    Var *x = ir_var(&ctx, "x", DT_INT32);
    Var *y = ir_var(&ctx, "y", DT_FLOAT32);
    Expr *ex = V(x), *ey = V(y);
    CHECK(B(OP_ADD, ex, I(0)) == ex);
    CHECK(B(OP_ADD, I(0), ex) == ex);
    CHECK(B(OP_SUB, ex, I(0)) == ex);
    CHECK(B(OP_MUL, ex, I(1)) == ex);
    CHECK(B(OP_MUL, I(1), ex) == ex);
    CHECK(is_int(B(OP_MUL, ex, I(0)), 0, DT_INT32));
    CHECK(is_int(B(OP_MUL, I(0), ex), 0, DT_INT32));
    CHECK(B(OP_FLOORDIV, ex, I(1)) == ex);
    CHECK(is_int(B(OP_FLOORMOD, ex, I(1)), 0, DT_INT32));
    CHECK(B(OP_MUL, ey, I(0))->kind == EXPR_BIN); /* not for floats (NaN, inf) */
    CHECK(B(OP_MUL, ey, F(1)) == ey);
    /* int constant with a float expr: the node keeps the promoted dtype */
    Expr *m = B(OP_MUL, ex, F(1));
    CHECK(m->kind == EXPR_BIN && m->dtype == DT_FLOAT32);
    Expr *c = B(OP_LT, ex, I(3));
    CHECK(B(OP_AND, ir_int(&ctx, 1, DT_BOOL, L0), c) == c);
    CHECK(is_int(B(OP_AND, c, ir_int(&ctx, 0, DT_BOOL, L0)), 0, DT_BOOL));
    CHECK(B(OP_OR, c, ir_int(&ctx, 0, DT_BOOL, L0)) == c);
    CHECK(c->dtype == DT_BOOL);
    CHECK(ir_select(&ctx, ir_int(&ctx, 1, DT_BOOL, L0), ex, I(4), L0) == ex);
}

static void test_cast(void) {
    Var *x = ir_var(&ctx, "x", DT_FLOAT16);
    Expr *ex = V(x);
    CHECK(ir_cast(&ctx, DT_FLOAT16, ex, L0) == ex);
    Expr *c = ir_cast(&ctx, DT_FLOAT32, ex, L0);
    CHECK(c->kind == EXPR_CAST && c->dtype == DT_FLOAT32 && c->u.cast.value == ex);
    CHECK(is_int(ir_cast(&ctx, DT_INT32, F(-2.7), L0), -2, DT_INT32));
    CHECK(is_int(ir_cast(&ctx, DT_INT32, F(2.7), L0), 2, DT_INT32));
    CHECK(is_int(ir_cast(&ctx, DT_BOOL, F(0.25), L0), 1, DT_BOOL));
    CHECK(is_int(ir_cast(&ctx, DT_BOOL, I(0), L0), 0, DT_BOOL));
    CHECK(is_float(ir_cast(&ctx, DT_FLOAT32, I(3), L0), 3, DT_FLOAT32));
    CHECK(is_int(ir_cast(&ctx, DT_INT8, I(200), L0), -56, DT_INT8));
    Expr *d = ir_float(&ctx, 0.1, DT_FLOAT64, L0);
    CHECK(is_float(ir_cast(&ctx, DT_FLOAT32, d, L0), (double)0.1f, DT_FLOAT32));
    /* float16: 11 significant bits, round to nearest even */
    CHECK(is_float(ir_cast(&ctx, DT_FLOAT16, F(1.0 / 3), L0), 0.333251953125, DT_FLOAT16));
    CHECK(is_float(ir_cast(&ctx, DT_FLOAT16, F(2049), L0), 2048, DT_FLOAT16));
    CHECK(is_float(ir_cast(&ctx, DT_FLOAT16, F(2051), L0), 2052, DT_FLOAT16));
    CHECK(ir_cast(&ctx, DT_FLOAT16, F(1e6), L0)->kind == EXPR_CAST); /* overflow: kept */
    CHECK(is_float(ir_cast(&ctx, DT_BFLOAT16, F(1.0 + 1.0 / 256), L0), 1.0, DT_BFLOAT16));
    CHECK(is_float(ir_cast(&ctx, DT_FLOAT8_E4M3, F(17), L0), 16, DT_FLOAT8_E4M3));
    CHECK(ir_cast(&ctx, DT_INT32, F(NAN), L0)->kind == EXPR_CAST);
    /* float -> int saturates like the targets */
    CHECK(is_int(ir_cast(&ctx, DT_INT32, F(3e9), L0), 2147483647, DT_INT32));
    CHECK(is_int(ir_cast(&ctx, DT_INT8, F(-300), L0), -128, DT_INT8));
    CHECK(is_int(ir_cast(&ctx, DT_UINT8, F(-3), L0), 0, DT_UINT8));
    /* folded float arithmetic gives the value the dtype holds */
    Expr *h = ir_float(&ctx, 1, DT_FLOAT16, L0), *h3 = ir_float(&ctx, 3, DT_FLOAT16, L0);
    CHECK(is_float(B(OP_DIV, h, h3), 0.333251953125, DT_FLOAT16));
    CHECK(is_float(B(OP_DIV, F(1), F(3)), (double)(1.0f / 3.0f), DT_FLOAT32));
}

static void test_print_expr(void) {
    Var *a = ir_var(&ctx, "a", DT_INT32), *b = ir_var(&ctx, "b", DT_INT32);
    Var *c = ir_var(&ctx, "c", DT_INT32);
    Expr *ea = V(a), *eb = V(b), *ec = V(c);
    CHECK_STR(pe(B(OP_MUL, B(OP_ADD, ea, eb), ec)), "(a + b) * c");
    CHECK_STR(pe(B(OP_ADD, ea, B(OP_MUL, eb, ec))), "a + b * c");
    CHECK_STR(pe(B(OP_SUB, ea, B(OP_SUB, eb, ec))), "a - (b - c)");
    CHECK_STR(pe(B(OP_SUB, B(OP_SUB, ea, eb), ec)), "a - b - c");
    CHECK_STR(pe(B(OP_FLOORDIV, B(OP_ADD, ea, I(127)), I(128))), "(a + 127) // 128");
    CHECK_STR(pe(B(OP_POW, ea, B(OP_POW, eb, ec))), "a ** b ** c");
    CHECK_STR(pe(B(OP_POW, B(OP_POW, ea, eb), ec)), "(a ** b) ** c");
    CHECK_STR(pe(B(OP_MIN, B(OP_ADD, ea, eb), ec)), "min(a + b, c)");
    CHECK_STR(pe(ir_un(&ctx, OP_NEG, B(OP_ADD, ea, eb), L0)), "-(a + b)");
    CHECK_STR(pe(B(OP_MUL, I(-2), ea)), "-2 * a");
    CHECK_STR(pe(ir_un(&ctx, OP_NEG, ir_un(&ctx, OP_BITNOT, ea, L0), L0)), "-(~a)");
    CHECK_STR(pe(B(OP_POW, ea, I(-1))), "a ** (-1)");
    CHECK_STR(pe(B(OP_SUB, ea, I(-1))), "a - -1");
    CHECK_STR(pe(B(OP_AND, B(OP_LT, ea, I(3)), B(OP_GE, eb, I(0)))), "a < 3 && b >= 0");
    CHECK_STR(pe(B(OP_OR, B(OP_AND, B(OP_LT, ea, eb), B(OP_LT, eb, ec)), B(OP_EQ, ea, ec))),
              "a < b && b < c || a == c");
    CHECK_STR(pe(B(OP_AND, B(OP_OR, B(OP_LT, ea, eb), B(OP_LT, eb, ec)), B(OP_EQ, ea, ec))),
              "(a < b || b < c) && a == c");
    CHECK_STR(pe(ir_cast(&ctx, DT_FLOAT16, ea, L0)), "cast<float16>(a)");
    CHECK_STR(pe(ir_call(&ctx, FN_EXP2, ir_cast(&ctx, DT_FLOAT32, ea, L0), NULL, L0)),
              "exp2(cast<float32>(a))");
    CHECK_STR(pe(ir_select(&ctx, B(OP_LT, ea, eb), ea, eb, L0)), "if_then_else(a < b, a, b)");
    CHECK_STR(pe(F(1)), "1.0");
    CHECK_STR(pe(F(0.5)), "0.5");
    CHECK_STR(pe(F(0.1)), "0.1");
    CHECK_STR(pe(F(1.0 / 3)), "0.3333333333333333");
    CHECK_STR(pe(F(1e20)), "1e+20");
    CHECK_STR(pe(F(-INFINITY)), "-inf");
    CHECK_STR(pe(ir_float(&ctx, 1.5, DT_FLOAT16, L0)), "float16(1.5)");
    CHECK_STR(pe(ir_int(&ctx, 5, DT_INT64, L0)), "int64(5)");
    CHECK_STR(pe(ir_int(&ctx, 1, DT_BOOL, L0)), "True");
    /* two distinct vars named i: the later one gets a suffix */
    Var *i1 = ir_var(&ctx, "i", DT_INT32), *i2 = ir_var(&ctx, "i", DT_INT32);
    Var *i3 = ir_var(&ctx, "i_1", DT_INT32);
    CHECK_STR(pe(B(OP_ADD, B(OP_ADD, V(i2), V(i1)), V(i2))), "i + i_1 + i");
    CHECK_STR(pe(B(OP_ADD, B(OP_ADD, V(i3), V(i1)), V(i2))), "i_1 + i + i_2");
}

static void test_subst(void) {
    Var *x = ir_var(&ctx, "x", DT_INT32), *y = ir_var(&ctx, "y", DT_INT32);
    Expr *e = B(OP_MUL, B(OP_ADD, V(x), V(y)), V(x));
    Expr *s = ir_subst(&ctx, e, x, I(7));
    CHECK_STR(pe(s), "(7 + y) * 7");
    CHECK_STR(pe(e), "(x + y) * x");
    Expr *c = ir_subst(&ctx, e, NULL, NULL);
    CHECK(c != e && ir_expr_equal(c, e));
    CHECK(!ir_expr_equal(s, e));
}

/* ---- a whole function: printer and verifier --------------------------------------- */
static Region region(Buffer *b, Expr **start, Expr **extent) {
    Region r = {b, b->ndim, NEW_ARRAY(&ctx.arena, Expr *, b->ndim),
                NEW_ARRAY(&ctx.arena, Expr *, b->ndim)};
    for (int d = 0; d < b->ndim; d++) r.start[d] = start[d], r.extent[d] = extent[d];
    return r;
}

static Region full(Buffer *b) {
    Region r = {b, b->ndim, NEW_ARRAY(&ctx.arena, Expr *, b->ndim), b->shape};
    for (int d = 0; d < b->ndim; d++) r.start[d] = I(0);
    return r;
}

static Buffer *buf2(const char *name, DType t, Scope s, Expr *d0, Expr *d1) {
    Buffer *b = ir_buffer(&ctx, name, t, s, 2, L0);
    b->shape[0] = d0;
    b->shape[1] = d1;
    return b;
}

static Stmt *alloc(Stmt *seq, Buffer *b) {
    Stmt *s = ir_stmt(&ctx, STMT_ALLOC, L0);
    s->u.alloc.buf = b;
    ir_seq_push(&ctx, seq, s);
    return s;
}

typedef struct Gemm {
    Func *f;
    Stmt *kseq, *kernel, *loop, *store;
    Var *bx, *by, *i, *j;
    Buffer *C_local;
} Gemm;

static Gemm build_gemm(void) {
    Gemm g = {0};
    Func *f = g.f = NEW(&ctx.arena, Func);
    f->name = "main";
    Var *M = ir_var(&ctx, "M", DT_INT32), *N = ir_var(&ctx, "N", DT_INT32);
    VEC_PUSH(&ctx.arena, f->syms, M);
    VEC_PUSH(&ctx.arena, f->syms, N);
    Buffer *A = buf2("A", DT_FLOAT16, SCOPE_GLOBAL, V(M), I(1024));
    Buffer *Bb = buf2("B", DT_FLOAT16, SCOPE_GLOBAL, I(1024), V(N));
    Buffer *C = buf2("C", DT_FLOAT32, SCOPE_GLOBAL, V(M), V(N));
    Param pa = {.name = "A", .buf = A}, pb = {.name = "B", .buf = Bb},
          pc = {.name = "C", .buf = C, .is_output = true};
    VEC_PUSH(&ctx.arena, f->params, pa);
    VEC_PUSH(&ctx.arena, f->params, pb);
    VEC_PUSH(&ctx.arena, f->params, pc);
    Stmt *k = g.kernel = ir_stmt(&ctx, STMT_KERNEL, L0);
    k->u.kernel.ngrid = 2;
    k->u.kernel.grid[0] = B(OP_FLOORDIV, B(OP_ADD, V(N), I(127)), I(128));
    k->u.kernel.grid[1] = B(OP_FLOORDIV, B(OP_ADD, V(M), I(127)), I(128));
    g.bx = k->u.kernel.block[0] = ir_var(&ctx, "bx", DT_INT32);
    g.by = k->u.kernel.block[1] = ir_var(&ctx, "by", DT_INT32);
    k->u.kernel.threads[0] = 128;
    k->u.kernel.nthreads_dims = 1;
    Stmt *body = g.kseq = k->u.kernel.body = ir_seq(&ctx, L0);
    Buffer *As = buf2("A_shared", DT_FLOAT16, SCOPE_SHARED, I(128), I(32));
    Buffer *Bs = buf2("B_shared", DT_FLOAT16, SCOPE_SHARED, I(128), I(32));
    Buffer *Cl = g.C_local = buf2("C_local", DT_FLOAT32, SCOPE_FRAGMENT, I(128), I(128));
    alloc(body, As);
    alloc(body, Bs);
    alloc(body, Cl);
    Stmt *clear = ir_stmt(&ctx, STMT_FILL, L0);
    clear->u.fill.dst = full(Cl);
    clear->u.fill.value = F(0);
    ir_seq_push(&ctx, body, clear);
    Var *kv = ir_var(&ctx, "k", DT_INT32);
    Stmt *loop = g.loop = ir_stmt(&ctx, STMT_FOR, L0);
    loop->u.for_.var = kv;
    loop->u.for_.min = I(0);
    loop->u.for_.extent = I(32);
    loop->u.for_.kind = LOOP_PIPELINED;
    loop->u.for_.num_stages = 3;
    Stmt *lb = loop->u.for_.body = ir_seq(&ctx, L0);
    Stmt *cp = ir_stmt(&ctx, STMT_COPY, L0);
    cp->u.copy.src = region(A, (Expr *[]){B(OP_MUL, V(g.by), I(128)), B(OP_MUL, V(kv), I(32))},
                            (Expr *[]){I(128), I(32)});
    cp->u.copy.dst = full(As);
    ir_seq_push(&ctx, lb, cp);
    Stmt *cpb = ir_stmt(&ctx, STMT_COPY, L0);
    cpb->u.copy.src = region(Bb, (Expr *[]){B(OP_MUL, V(kv), I(32)), B(OP_MUL, V(g.bx), I(128))},
                             (Expr *[]){I(32), I(128)});
    cpb->u.copy.dst = region(Bs, (Expr *[]){I(0), I(0)}, (Expr *[]){I(128), I(32)});
    ir_seq_push(&ctx, lb, cpb);
    Stmt *gm = ir_stmt(&ctx, STMT_GEMM, L0);
    gm->u.gemm.a = full(As);
    gm->u.gemm.b = full(Bs);
    gm->u.gemm.c = full(Cl);
    gm->u.gemm.trans_b = true;
    gm->u.gemm.policy = POLICY_SQUARE;
    ir_seq_push(&ctx, lb, gm);
    ir_seq_push(&ctx, body, loop);
    /* for i, j in parallel: C[by * 128 + i, bx * 128 + j] = cast(C_local[i, j]) */
    g.i = ir_var(&ctx, "i", DT_INT32);
    g.j = ir_var(&ctx, "j", DT_INT32);
    Stmt *st = g.store = ir_stmt(&ctx, STMT_STORE, L0);
    st->u.store.buf = C;
    st->u.store.idx = (Expr *[]){B(OP_ADD, B(OP_MUL, V(g.by), I(128)), V(g.i)),
                                 B(OP_ADD, B(OP_MUL, V(g.bx), I(128)), V(g.j))};
    st->u.store.idx = memcpy(NEW_ARRAY(&ctx.arena, Expr *, 2), st->u.store.idx, 2 * sizeof(Expr *));
    st->u.store.value = ir_load(&ctx, Cl, (Expr *[]){V(g.i), V(g.j)}, L0);
    Stmt *fj = ir_stmt(&ctx, STMT_FOR, L0);
    fj->u.for_ = (__typeof__(fj->u.for_)){g.j, I(0), I(128), LOOP_PARALLEL, st,
                                          0,   NULL, NULL,   NULL};
    Stmt *fi = ir_stmt(&ctx, STMT_FOR, L0);
    fi->u.for_ = (__typeof__(fi->u.for_)){g.i, I(0), I(128), LOOP_PARALLEL, fj,
                                          0,   NULL, NULL,   NULL};
    ir_seq_push(&ctx, body, fi);
    f->body = ir_seq(&ctx, L0);
    ir_seq_push(&ctx, f->body, k);
    return g;
}

static const char *gemm_text =
    "func main(A: global float16[M, 1024], B: global float16[1024, N], "
    "C: global float32[M, N] /*out*/)\n"
    "    syms: M, N\n"
    "    kernel grid((N + 127) // 128, (M + 127) // 128) threads(128) as (bx, by):\n"
    "        alloc shared float16 A_shared[128, 32]\n"
    "        alloc shared float16 B_shared[128, 32]\n"
    "        alloc fragment float32 C_local[128, 128]\n"
    "        fill C_local[0:128, 0:128], 0.0\n"
    "        for k in pipelined(0, 32, stages=3):\n"
    "            copy A[by * 128 : +128, k * 32 : +32] -> A_shared[0:128, 0:32]\n"
    "            copy B[k * 32 : +32, bx * 128 : +128] -> B_shared[0:128, 0:32]\n"
    "            gemm A_shared, B_shared -> C_local (trans_b, policy=Square)\n"
    "        for i in parallel(0, 128):\n"
    "            for j in parallel(0, 128):\n"
    "                C[by * 128 + i, bx * 128 + j] = C_local[i, j]\n";

static const char *func_text(const Func *f) {
    StrBuf sb = {0};
    ir_print_func(&sb, f);
    char *s = arena_strdup(&ctx.arena, sb.buf);
    sb_free(&sb);
    return s;
}

static bool verify_fails_with(const Func *f, const char *needle) {
    StrBuf msg = {0};
    bool ok = ir_check(f, &msg);
    bool found = !ok && msg.buf && strstr(msg.buf, needle);
    if (!found) fprintf(stderr, "verifier said: %s\n", ok ? "(valid)" : msg.buf);
    sb_free(&msg);
    return found;
}

static void test_func_print_verify(void) {
    Gemm g = build_gemm();
    CHECK_STR(func_text(g.f), gemm_text);
    StrBuf msg = {0};
    CHECK(ir_check(g.f, &msg));
    if (msg.buf) fprintf(stderr, "%s\n", msg.buf);
    sb_free(&msg);

    /* a var used outside its loop */
    Expr *saved = g.store->u.store.value;
    g.store->u.store.value = V(g.loop->u.for_.var);
    CHECK(verify_fails_with(g.f, "var 'k' is used where it is not defined"));
    g.store->u.store.value = saved;

    /* a region whose rank differs from its buffer */
    Stmt *cp = g.loop->u.for_.body->u.seq.data[0];
    cp->u.copy.dst.ndim = 1;
    CHECK(verify_fails_with(g.f, "has 1 dims but the buffer has 2"));
    cp->u.copy.dst.ndim = 2;

    /* a buffer used before its ALLOC */
    Stmt *first = g.kseq->u.seq.data[0];
    g.kseq->u.seq.data[0] = g.kseq->u.seq.data[3]; /* the fill of C_local */
    g.kseq->u.seq.data[3] = first;
    CHECK(verify_fails_with(g.f, "buffer 'C_local' is used where it is not declared"));
    g.kseq->u.seq.data[3] = g.kseq->u.seq.data[0];
    g.kseq->u.seq.data[0] = first;

    /* a kernel inside a kernel */
    Stmt *inner = ir_stmt(&ctx, STMT_KERNEL, L0);
    inner->u.kernel.ngrid = 1;
    inner->u.kernel.grid[0] = I(1);
    inner->u.kernel.body = ir_seq(&ctx, L0);
    ir_seq_push(&ctx, g.kseq, inner);
    CHECK(verify_fails_with(g.f, "kernel nested in a kernel"));
    g.kseq->u.seq.len--;

    /* a comparison typed int, a break outside a loop */
    Stmt *brk = ir_stmt(&ctx, STMT_BREAK, L0);
    ir_seq_push(&ctx, g.kseq, brk);
    CHECK(verify_fails_with(g.f, "break/continue outside a loop"));
    g.kseq->u.seq.len--;
    CHECK(ir_check(g.f, &msg));
    sb_free(&msg);

    /* two distinct vars named like one print with a suffix */
    g.j->name = "i";
    const char *t = func_text(g.f);
    CHECK(strstr(t, "for i_1 in parallel(0, 128):") != NULL);
    CHECK(strstr(t, "C[by * 128 + i, bx * 128 + i_1] = C_local[i, i_1]") != NULL);
}

int main(void) {
    test_enum_names();
    test_int_folding();
    test_float_folding();
    test_simplify();
    test_cast();
    test_print_expr();
    test_subst();
    test_func_print_verify();
    arena_free(&ctx.arena);
    sb_free(&ctx.err);
    printf("test_ir: %d checks passed\n", checks - failures);
    if (failures) printf("test_ir: %d checks FAILED\n", failures);
    return failures != 0;
}
