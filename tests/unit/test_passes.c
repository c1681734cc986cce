/* test_passes.c - the generic passes (check_tile_ops, lower_tile_ops, safe_memory_access,
 * simplify) on hand-built functions. The lowered IR is run by a small tree-walking
 * interpreter over double arrays that counts out-of-bounds accesses and refuses tile ops,
 * and its results are compared with plain C loops computing the same thing. */
#include "frontend/frontend.h"
#include "passes/passes.h"
#include "targets/cuda/passes/cuda_passes.h"
#include "targets/target.h"
#include "ir/ir_walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static Ctx ctx;
static Loc L0;

/* ---- builders --------------------------------------------------------------------- */
static Expr *I(int64_t v) { return ir_int(&ctx, v, DT_INT32, L0); }
static Expr *F(double v) { return ir_float(&ctx, v, DT_FLOAT32, L0); }
static Expr *V(Var *v) { return ir_varref(&ctx, v, L0); }
static Expr *B(BinOp op, Expr *a, Expr *b) { return ir_bin(&ctx, op, a, b, L0); }
static Expr *ceildiv(Expr *a, int64_t b) { return B(OP_FLOORDIV, B(OP_ADD, a, I(b - 1)), I(b)); }

static Expr **ex(int n, Expr *const *src) {
    Expr **a = NEW_ARRAY(&ctx.arena, Expr *, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) a[i] = src[i];
    return a;
}
#define EX(...) ex(sizeof((Expr *[]){__VA_ARGS__}) / sizeof(Expr *), (Expr *[]){__VA_ARGS__})

static Buffer *buf(const char *name, DType t, Scope s, int n, Expr **shape) {
    Buffer *b = ir_buffer(&ctx, name, t, s, n, L0);
    for (int d = 0; d < n; d++) b->shape[d] = shape[d];
    return b;
}
#define BUF(name, t, s, ...)                                                                       \
    buf(name, t, s, sizeof((Expr *[]){__VA_ARGS__}) / sizeof(Expr *), EX(__VA_ARGS__))

static Region reg(Buffer *b, Expr **start, Expr **extent) {
    return (Region){b, b->ndim, start, extent};
}

static Region full(Buffer *b) {
    Expr **z = NEW_ARRAY(&ctx.arena, Expr *, b->ndim);
    for (int d = 0; d < b->ndim; d++) z[d] = I(0);
    return (Region){b, b->ndim, z, ex(b->ndim, b->shape)};
}

static Stmt *st(StmtKind k) { return ir_stmt(&ctx, k, L0); }

static Stmt *alloc(Buffer *b) {
    Stmt *s = st(STMT_ALLOC);
    s->u.alloc.buf = b;
    return s;
}

static Stmt *copy(Region src, Region dst) {
    Stmt *s = st(STMT_COPY);
    s->u.copy.src = src;
    s->u.copy.dst = dst;
    return s;
}

static Stmt *fill(Region dst, Expr *v) {
    Stmt *s = st(STMT_FILL);
    s->u.fill.dst = dst;
    s->u.fill.value = v;
    return s;
}

static Stmt *gemm(Region a, Region b, Region c, bool ta, bool tb, bool clear) {
    Stmt *s = st(STMT_GEMM);
    s->u.gemm.a = a;
    s->u.gemm.b = b;
    s->u.gemm.c = c;
    s->u.gemm.trans_a = ta;
    s->u.gemm.trans_b = tb;
    s->u.gemm.clear_accum = clear;
    return s;
}

static Stmt *reduce(ReduceOp op, Region src, Region dst, int dim, bool clear) {
    Stmt *s = st(STMT_REDUCE);
    s->u.reduce.op = op;
    s->u.reduce.src = src;
    s->u.reduce.dst = dst;
    s->u.reduce.dim = dim;
    s->u.reduce.clear = clear;
    return s;
}

static Stmt *cumsum(Region src, Region dst, int dim, bool reverse) {
    Stmt *s = st(STMT_CUMSUM);
    s->u.cumsum.src = src;
    s->u.cumsum.dst = dst;
    s->u.cumsum.dim = dim;
    s->u.cumsum.reverse = reverse;
    return s;
}

static Stmt *loop(Var *v, Expr *min, Expr *extent, LoopKind k, Stmt *body) {
    Stmt *s = st(STMT_FOR);
    s->u.for_.var = v;
    s->u.for_.min = min;
    s->u.for_.extent = extent;
    s->u.for_.kind = k;
    s->u.for_.body = body;
    return s;
}

static Stmt *store(Buffer *b, Expr **idx, Expr *value) {
    Stmt *s = st(STMT_STORE);
    s->u.store.buf = b;
    s->u.store.idx = idx;
    s->u.store.value = value;
    return s;
}

static Stmt *seq(int n, Stmt *const *items) {
    Stmt *s = ir_seq(&ctx, L0);
    for (int i = 0; i < n; i++) ir_seq_push(&ctx, s, items[i]);
    return s;
}
#define SEQ(...) seq(sizeof((Stmt *[]){__VA_ARGS__}) / sizeof(Stmt *), (Stmt *[]){__VA_ARGS__})

static Func *func_new(void) {
    Func *f = NEW(&ctx.arena, Func);
    f->name = "main";
    return f;
}

static void param(Func *f, Buffer *b, bool out) {
    Param p = {.name = b->name, .buf = b, .is_output = out};
    VEC_PUSH(&ctx.arena, f->params, p);
}

/* A kernel with a 1-D or 2-D grid; block vars bx, by. */
static Stmt *kernel(int ngrid, Expr *g0, Expr *g1, Var **bx, Var **by, Stmt *body) {
    Stmt *k = st(STMT_KERNEL);
    k->u.kernel.ngrid = ngrid;
    k->u.kernel.grid[0] = g0;
    k->u.kernel.block[0] = *bx = ir_var(&ctx, "bx", DT_INT32);
    if (ngrid > 1) {
        k->u.kernel.grid[1] = g1;
        k->u.kernel.block[1] = *by = ir_var(&ctx, "by", DT_INT32);
    }
    k->u.kernel.threads[0] = 128;
    k->u.kernel.nthreads_dims = 1;
    k->u.kernel.body = body;
    return k;
}

static const char *text_of_stmt(const Stmt *s) {
    StrBuf sb = {0};
    ir_print_stmt(&sb, s, 0);
    char *r = arena_strdup(&ctx.arena, sb.buf ? sb.buf : "");
    sb_free(&sb);
    return r;
}

static void check_text(int line, const char *got, const char *want) {
    checks++;
    if (strcmp(got, want)) {
        failures++;
        fprintf(stderr, "line %d: got\n%s---- want\n%s----\n", line, got, want);
    }
}

/* ---- the interpreter -------------------------------------------------------------- */
enum { MAX_MEM = 4096, MAX_VARS = 512 };

typedef struct Mem {
    const Buffer *buf;
    double *data;
    int ndim;
    int64_t shape[8], size;
} Mem;

typedef struct Interp {
    Mem mem[MAX_MEM];
    int nmem;
    const Var *vars[MAX_VARS];
    double vals[MAX_VARS];
    int nvars;
    int oob, unsupported, unbound;
    int brk, cont;
} Interp;

static Interp *interp_new(void) { return calloc(1, sizeof(Interp)); }

static void interp_free(Interp *in) {
    for (int i = 0; i < in->nmem; i++) free(in->mem[i].data);
    free(in);
}

static double ev(Interp *in, const Expr *e);

static void bind(Interp *in, const Var *v, double x) {
    TL_ASSERT(in->nvars < MAX_VARS);
    in->vars[in->nvars] = v;
    in->vals[in->nvars++] = x;
}

static double lookup(Interp *in, const Var *v) {
    for (int i = in->nvars - 1; i >= 0; i--)
        if (in->vars[i] == v) return in->vals[i];
    in->unbound++;
    return NAN;
}

static Mem *mem_of(Interp *in, const Buffer *b) {
    for (int i = in->nmem - 1; i >= 0; i--)
        if (in->mem[i].buf == b) return &in->mem[i];
    return NULL;
}

/* Gives b storage (NaN-filled: reading an element never written shows up in results). */
static Mem *mem_new(Interp *in, const Buffer *b) {
    TL_ASSERT(in->nmem < MAX_MEM);
    Mem *m = &in->mem[in->nmem++];
    m->buf = b;
    m->ndim = b->ndim;
    m->size = 1;
    for (int d = 0; d < b->ndim; d++) {
        m->shape[d] = (int64_t)ev(in, b->shape[d]);
        m->size *= m->shape[d];
    }
    m->data = malloc(sizeof(double) * (size_t)(m->size > 0 ? m->size : 1));
    double init = b->init ? ev(in, b->init) : NAN;
    for (int64_t i = 0; i < m->size; i++) m->data[i] = init;
    return m;
}

static double *elem(Interp *in, const Buffer *b, Expr *const *idx) {
    Mem *m = mem_of(in, b);
    if (!m) {
        in->unbound++;
        return NULL;
    }
    int64_t off = 0;
    for (int d = 0; d < m->ndim; d++) {
        double x = ev(in, idx[d]);
        if (!(x >= 0 && x < (double)m->shape[d])) {
            in->oob++;
            return NULL;
        }
        off = off * m->shape[d] + (int64_t)x;
    }
    return &m->data[off];
}

static double round_to(DType t, double v) {
    if (t == DT_BOOL) return v != 0;
    if (dtype_is_int(t)) return trunc(v);
    if (t == DT_FLOAT32) return (float)v;
    return v;
}

static double floordiv_d(double a, double b) { return floor(a / b); }

static double ev_bin(Interp *in, const Expr *e) {
    double a = ev(in, e->u.bin.a), b = ev(in, e->u.bin.b);
    bool ints = dtype_is_int(e->u.bin.a->dtype) && dtype_is_int(e->u.bin.b->dtype);
    int64_t ia = ints ? (int64_t)a : 0, ib = ints ? (int64_t)b : 0;
    switch (e->u.bin.op) {
    case OP_ADD: return round_to(e->dtype, a + b);
    case OP_SUB: return round_to(e->dtype, a - b);
    case OP_MUL: return round_to(e->dtype, a * b);
    case OP_DIV: return ints ? (double)(ia / ib) : round_to(e->dtype, a / b);
    case OP_FLOORDIV: return floordiv_d(a, b);
    case OP_FLOORMOD: return a - floordiv_d(a, b) * b;
    case OP_MIN: return a < b ? a : b;
    case OP_MAX: return a > b ? a : b;
    case OP_POW: return pow(a, b);
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    case OP_EQ: return a == b;
    case OP_NE: return a != b;
    case OP_AND: return a != 0 && b != 0;
    case OP_OR: return a != 0 || b != 0;
    case OP_BITAND: return (double)(ia & ib);
    case OP_BITOR: return (double)(ia | ib);
    case OP_BITXOR: return (double)(ia ^ ib);
    case OP_SHL: return (double)(ia << ib);
    case OP_SHR: return (double)(ia >> ib);
    default: in->unsupported++; return NAN;
    }
}

static double ev(Interp *in, const Expr *e) {
    switch (e->kind) {
    case EXPR_INT: return (double)e->u.i;
    case EXPR_FLOAT: return e->u.f;
    case EXPR_VAR: return lookup(in, e->u.var);
    case EXPR_BIN: return ev_bin(in, e);
    case EXPR_UN: {
        double a = ev(in, e->u.un.a);
        return e->u.un.op == OP_NEG ? -a : e->u.un.op == OP_NOT ? a == 0 : (double)~(int64_t)a;
    }
    case EXPR_CALL:
        if (e->u.call.fn == FN_ABS) return fabs(ev(in, e->u.call.args[0]));
        if (e->u.call.fn == FN_EXP) return exp(ev(in, e->u.call.args[0]));
        in->unsupported++;
        return NAN;
    case EXPR_CAST: return round_to(e->dtype, ev(in, e->u.cast.value));
    case EXPR_LOAD: {
        double *p = elem(in, e->u.load.buf, e->u.load.idx);
        return p ? *p : NAN;
    }
    case EXPR_SELECT:
        return ev(in, e->u.select.cond) != 0 ? ev(in, e->u.select.then)
                                             : ev(in, e->u.select.orelse);
    default: in->unsupported++; return NAN;
    }
}

static void exec(Interp *in, const Stmt *s);

static void exec_for(Interp *in, const Stmt *s) {
    int64_t lo = (int64_t)ev(in, s->u.for_.min), n = (int64_t)ev(in, s->u.for_.extent);
    int mark = in->nvars;
    bind(in, s->u.for_.var, 0);
    for (int64_t i = lo; i < lo + n; i++) {
        in->vals[mark] = (double)i;
        exec(in, s->u.for_.body);
        in->nvars = mark + 1;
        in->cont = 0;
        if (in->brk) break;
    }
    in->brk = 0;
    in->nvars = mark;
}

static void exec_kernel(Interp *in, const Stmt *s) {
    int64_t g[3] = {1, 1, 1};
    for (int d = 0; d < s->u.kernel.ngrid; d++) g[d] = (int64_t)ev(in, s->u.kernel.grid[d]);
    int mark = in->nvars;
    for (int64_t z = 0; z < g[2]; z++)
        for (int64_t y = 0; y < g[1]; y++)
            for (int64_t x = 0; x < g[0]; x++) {
                int64_t b[3] = {x, y, z};
                for (int d = 0; d < s->u.kernel.ngrid; d++) bind(in, s->u.kernel.block[d], b[d]);
                exec(in, s->u.kernel.body);
                in->nvars = mark;
            }
}

static void exec_atomic(Interp *in, const Stmt *s) {
    if (s->u.atomic.src.buf) {
        in->unsupported++;
        return;
    }
    double v = ev(in, s->u.atomic.value);
    double *p = elem(in, s->u.atomic.dst.buf, s->u.atomic.dst.start);
    if (!p) return;
    if (s->u.atomic.op == ATOMIC_ADD) *p += v;
    else if (s->u.atomic.op == ATOMIC_MAX) *p = *p > v ? *p : v;
    else *p = *p < v ? *p : v;
}

static void exec(Interp *in, const Stmt *s) {
    switch (s->kind) {
    case STMT_SEQ: {
        int mark = in->nvars;
        for (int i = 0; i < s->u.seq.len && !in->brk && !in->cont; i++) exec(in, s->u.seq.data[i]);
        in->nvars = mark;
        break;
    }
    case STMT_FOR: exec_for(in, s); break;
    case STMT_WHILE:
        while (!in->brk && ev(in, s->u.while_.cond) != 0) {
            exec(in, s->u.while_.body);
            in->cont = 0;
        }
        in->brk = 0;
        break;
    case STMT_IF:
        if (ev(in, s->u.if_.cond) != 0) exec(in, s->u.if_.then);
        else if (s->u.if_.orelse) exec(in, s->u.if_.orelse);
        break;
    case STMT_BREAK: in->brk = 1; break;
    case STMT_CONTINUE: in->cont = 1; break;
    case STMT_STORE: {
        double v = ev(in, s->u.store.value);
        double *p = elem(in, s->u.store.buf, s->u.store.idx);
        if (p) *p = round_to(s->u.store.buf->dtype, v);
        break;
    }
    case STMT_LET: bind(in, s->u.let.var, ev(in, s->u.let.value)); break;
    case STMT_ALLOC: mem_new(in, s->u.alloc.buf); break;
    case STMT_KERNEL: exec_kernel(in, s); break;
    case STMT_ATOMIC: exec_atomic(in, s); break;
    case STMT_SYNC:
    case STMT_ASSERT:
    case STMT_PRINT: break;
    default: in->unsupported++; break; /* tile ops must be lowered */
    }
}

/* Binds a global parameter to caller-owned data (copied in; read back with mem_of). */
static Mem *bind_param(Interp *in, const Buffer *b, const double *data) {
    Mem *m = mem_new(in, b);
    for (int64_t i = 0; i < m->size; i++) m->data[i] = data ? data[i] : -777;
    return m;
}

enum { WITH_SAFE = 1, NO_SAFE = 0 };

static void lower_all(Func *f, int safe) {
    pass_run(&ctx, f, "check_tile_ops", pass_check_tile_ops);
    pass_run(&ctx, f, "lower_tile_ops", pass_lower_tile_ops);
    if (safe) pass_run(&ctx, f, "safe_memory_access", pass_safe_memory_access);
    pass_run(&ctx, f, "simplify", pass_simplify);
}

static void run(Interp *in, Func *f) {
    exec(in, f->body);
    CHECK(in->unsupported == 0);
    CHECK(in->unbound == 0);
}

static bool near(double a, double b) { return a == b || fabs(a - b) <= 1e-9 * fabs(b); }

/* ---- 1. copy of a 4x6 tile with out-of-bounds parts ---------------------------------- */
static Func *build_copy(Buffer **A, Buffer **Bo, Buffer **P, Var **M, Var **N) {
    Func *f = func_new();
    *M = ir_var(&ctx, "M", DT_INT32);
    *N = ir_var(&ctx, "N", DT_INT32);
    VEC_PUSH(&ctx.arena, f->syms, *M);
    VEC_PUSH(&ctx.arena, f->syms, *N);
    *A = BUF("A", DT_FLOAT32, SCOPE_GLOBAL, V(*M), V(*N));
    *Bo = BUF("B", DT_FLOAT32, SCOPE_GLOBAL, V(*M), V(*N));
    *P = BUF("P", DT_FLOAT32, SCOPE_GLOBAL, I(8), I(12));
    param(f, *A, false);
    param(f, *Bo, true);
    param(f, *P, true);
    Var *bx, *by;
    Buffer *S = BUF("S", DT_FLOAT32, SCOPE_SHARED, I(4), I(6));
    Stmt *body = ir_seq(&ctx, L0);
    Stmt *k = kernel(2, ceildiv(V(*N), 6), ceildiv(V(*M), 4), &bx, &by, body);
    Expr **start = EX(B(OP_MUL, V(by), I(4)), B(OP_MUL, V(bx), I(6)));
    ir_seq_push(&ctx, body, alloc(S));
    ir_seq_push(&ctx, body, copy(reg(*A, start, EX(I(4), I(6))), full(S)));
    ir_seq_push(&ctx, body, copy(full(S), reg(*Bo, start, EX(I(4), I(6)))));
    ir_seq_push(&ctx, body, copy(full(S), reg(*P, start, EX(I(4), I(6)))));
    f->body = SEQ(k);
    return f;
}

static void test_copy_oob(double safe) {
    Buffer *A, *Bo, *P;
    Var *M, *N;
    Func *f = build_copy(&A, &Bo, &P, &M, &N);
    if (safe != 0) A->safe_value = F(safe);
    lower_all(f, WITH_SAFE);
    Interp *in = interp_new();
    bind(in, M, 5);
    bind(in, N, 7);
    double a[35];
    for (int i = 0; i < 35; i++) a[i] = i / 7 * 10 + i % 7 + 1;
    bind_param(in, A, a);
    Mem *mb = bind_param(in, Bo, NULL), *mp = bind_param(in, P, NULL);
    run(in, f);
    CHECK(in->oob == 0);
    int bad = 0;
    for (int i = 0; i < 35; i++) bad += mb->data[i] != a[i];
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 12; c++)
            bad += mp->data[r * 12 + c] != (r < 5 && c < 7 ? a[r * 7 + c] : safe);
    CHECK(bad == 0);
    interp_free(in);
}

static void test_copy_without_guard_faults(void) {
    Buffer *A, *Bo, *P;
    Var *M, *N;
    Func *f = build_copy(&A, &Bo, &P, &M, &N);
    lower_all(f, NO_SAFE);
    Interp *in = interp_new();
    bind(in, M, 5);
    bind(in, N, 7);
    bind_param(in, A, NULL);
    bind_param(in, Bo, NULL);
    bind_param(in, P, NULL);
    exec(in, f->body);
    CHECK(in->oob > 0); /* the interpreter does see unguarded accesses */
    interp_free(in);
}

static void test_copy_text(void) {
    Buffer *A, *Bo, *P;
    Var *M, *N;
    Func *f = build_copy(&A, &Bo, &P, &M, &N);
    pass_run(&ctx, f, "lower_tile_ops", pass_lower_tile_ops);
    pass_run(&ctx, f, "safe_memory_access", pass_safe_memory_access);
    pass_run(&ctx, f, "simplify", pass_simplify);
    Stmt *kbody = f->body->u.seq.data[0]->u.kernel.body;
    check_text(__LINE__, text_of_stmt(kbody->u.seq.data[1]),
               "for i in parallel(0, 4):\n"
               "    for j in parallel(0, 6):\n"
               "        S[i, j] = if_then_else(by * 4 + i < M && bx * 6 + j < N, "
               "A[by * 4 + i, bx * 6 + j], 0.0)\n");
    check_text(__LINE__, text_of_stmt(kbody->u.seq.data[3]),
               "for i in parallel(0, 4):\n"
               "    for j in parallel(0, 6):\n"
               "        if by * 4 + i < 8 && bx * 6 + j < 12:\n"
               "            P[by * 4 + i, bx * 6 + j] = S[i, j]\n");
}

/* ---- 2. gemm with every transpose ---------------------------------------------------- */
enum { GM = 4, GN = 5, GK = 3 };

static double gA(int i, int k) { return (i * 3 + k) % 5 - 2 + 0.5 * (k == 1); }
static double gB(int k, int j) { return (k * 2 + j * 3) % 7 - 3; }

static void test_gemm(bool ta, bool tb, bool staged) {
    Func *f = func_new();
    Buffer *A = ta ? BUF("A", DT_FLOAT16, SCOPE_GLOBAL, I(GK), I(GM))
                   : BUF("A", DT_FLOAT16, SCOPE_GLOBAL, I(GM), I(GK));
    Buffer *Bb = tb ? BUF("B", DT_FLOAT16, SCOPE_GLOBAL, I(GN), I(GK))
                    : BUF("B", DT_FLOAT16, SCOPE_GLOBAL, I(GK), I(GN));
    Buffer *C = BUF("C", DT_FLOAT32, SCOPE_GLOBAL, I(GM), I(GN));
    param(f, A, false);
    param(f, Bb, false);
    param(f, C, true);
    Buffer *As = staged ? BUF("A_s", DT_FLOAT16, SCOPE_SHARED, I(2), A->shape[0], A->shape[1])
                        : BUF("A_s", DT_FLOAT16, SCOPE_SHARED, A->shape[0], A->shape[1]);
    Buffer *Bs = BUF("B_s", DT_FLOAT16, SCOPE_LOCAL, Bb->shape[0], Bb->shape[1]);
    Buffer *Cf = BUF("C_f", DT_FLOAT32, SCOPE_FRAGMENT, I(GM), I(GN));
    Region ra = staged ? reg(As, EX(I(1), I(0), I(0)), EX(I(1), A->shape[0], A->shape[1]))
                       : full(As);
    Var *bx, *by;
    Stmt *body = SEQ(alloc(As), alloc(Bs), alloc(Cf), copy(full(A), ra), copy(full(Bb), full(Bs)),
                     gemm(ra, full(Bs), full(Cf), ta, tb, true),
                     gemm(ra, full(Bs), full(Cf), ta, tb, false), copy(full(Cf), full(C)));
    f->body = SEQ(kernel(1, I(1), NULL, &bx, &by, body));
    lower_all(f, WITH_SAFE);
    Interp *in = interp_new();
    double a[GM * GK], b[GK * GN];
    for (int i = 0; i < GM; i++)
        for (int k = 0; k < GK; k++) a[ta ? k * GM + i : i * GK + k] = gA(i, k);
    for (int k = 0; k < GK; k++)
        for (int j = 0; j < GN; j++) b[tb ? j * GK + k : k * GN + j] = gB(k, j);
    bind_param(in, A, a);
    bind_param(in, Bb, b);
    Mem *mc = bind_param(in, C, NULL);
    run(in, f);
    int bad = 0;
    for (int i = 0; i < GM; i++)
        for (int j = 0; j < GN; j++) {
            double want = 0;
            for (int k = 0; k < GK; k++) want += gA(i, k) * gB(k, j);
            bad += !near(mc->data[i * GN + j], 2 * want);
        }
    CHECK(bad == 0);
    CHECK(in->oob == 0);
    interp_free(in);
}

/* ---- 3. reductions -------------------------------------------------------------------- */
enum { RR = 4, RC = 6 };
static double rX(int r, int c) { return (r * 7 + c * 5) % 11 - 5 + 0.25 * (c == 2); }

static double red_ref(ReduceOp op, int dim, int o, double old, bool clear) {
    double acc = clear ? (op == RED_MAX ? -INFINITY : op == RED_MIN ? INFINITY : 0) : old;
    int n = dim == 1 ? RC : RR;
    for (int t = 0; t < n; t++) {
        double x = dim == 1 ? rX(o, t) : rX(t, o);
        if (op == RED_ABSSUM || op == RED_ABSMAX) x = fabs(x);
        if (op == RED_SUM || op == RED_ABSSUM) acc += x;
        else if (op == RED_MAX || op == RED_ABSMAX) acc = acc > x ? acc : x;
        else acc = acc < x ? acc : x;
    }
    return acc;
}

/* dim_arg: the dim as the user wrote it; keep: dst keeps the reduced dim with extent 1. */
static void test_reduce(ReduceOp op, int dim_arg, bool keep, bool clear) {
    int dim = dim_arg < 0 ? dim_arg + 2 : dim_arg, no = dim == 1 ? RR : RC;
    Func *f = func_new();
    Buffer *X = BUF("X", DT_FLOAT32, SCOPE_GLOBAL, I(RR), I(RC));
    Buffer *Y = BUF("Y", DT_FLOAT32, SCOPE_GLOBAL, I(no));
    param(f, X, false);
    param(f, Y, true);
    Buffer *S = BUF("S", DT_FLOAT32, SCOPE_FRAGMENT, I(RR), I(RC));
    Buffer *D = keep ? (dim == 1 ? BUF("D", DT_FLOAT32, SCOPE_FRAGMENT, I(RR), I(1))
                                 : BUF("D", DT_FLOAT32, SCOPE_FRAGMENT, I(1), I(RC)))
                     : BUF("D", DT_FLOAT32, SCOPE_FRAGMENT, I(no));
    Var *bx, *by;
    Region ry = keep ? reg(Y, EX(I(0)), EX(I(no))) : full(Y);
    Stmt *body = SEQ(alloc(S), alloc(D), copy(full(X), full(S)), fill(full(D), F(3)),
                     reduce(op, full(S), full(D), dim_arg, clear), copy(full(D), ry));
    f->body = SEQ(kernel(1, I(1), NULL, &bx, &by, body));
    lower_all(f, WITH_SAFE);
    Interp *in = interp_new();
    double x[RR * RC];
    for (int r = 0; r < RR; r++)
        for (int c = 0; c < RC; c++) x[r * RC + c] = rX(r, c);
    bind_param(in, X, x);
    Mem *my = bind_param(in, Y, NULL);
    run(in, f);
    int bad = 0;
    for (int o = 0; o < no; o++) bad += !near(my->data[o], red_ref(op, dim, o, 3, clear));
    CHECK(bad == 0);
    if (bad)
        fprintf(stderr, "  reduce_%s dim=%d keep=%d clear=%d\n", reduce_op_name(op), dim_arg, keep,
                clear);
    CHECK(in->oob == 0);
    interp_free(in);
}

/* ---- 4. cumsum ------------------------------------------------------------------------ */
static void test_cumsum(int dim, bool reverse, bool in_place) {
    Func *f = func_new();
    Buffer *X = BUF("X", DT_FLOAT32, SCOPE_GLOBAL, I(RR), I(RC));
    Buffer *Y = BUF("Y", DT_FLOAT32, SCOPE_GLOBAL, I(RR), I(RC));
    param(f, X, false);
    param(f, Y, true);
    Buffer *S = BUF("S", DT_FLOAT32, SCOPE_SHARED, I(RR), I(RC));
    Buffer *D = in_place ? S : BUF("D", DT_FLOAT32, SCOPE_FRAGMENT, I(RR), I(RC));
    Var *bx, *by;
    Stmt *body = SEQ(alloc(S), in_place ? ir_seq(&ctx, L0) : alloc(D), copy(full(X), full(S)),
                     cumsum(full(S), full(D), dim, reverse), copy(full(D), full(Y)));
    f->body = SEQ(kernel(1, I(1), NULL, &bx, &by, body));
    lower_all(f, WITH_SAFE);
    Interp *in = interp_new();
    double x[RR * RC], want[RR * RC];
    for (int r = 0; r < RR; r++)
        for (int c = 0; c < RC; c++) x[r * RC + c] = rX(r, c);
    for (int r = 0; r < RR; r++)
        for (int c = 0; c < RC; c++) {
            double s = 0;
            int p = dim == 1 ? c : r, n = dim == 1 ? RC : RR;
            for (int t = reverse ? p : 0; t < (reverse ? n : p + 1); t++)
                s += dim == 1 ? x[r * RC + t] : x[t * RC + c];
            want[r * RC + c] = s;
        }
    bind_param(in, X, x);
    Mem *my = bind_param(in, Y, NULL);
    run(in, f);
    int bad = 0;
    for (int i = 0; i < RR * RC; i++) bad += !near(my->data[i], want[i]);
    CHECK(bad == 0);
    CHECK(in->oob == 0);
    interp_free(in);
}

/* ---- 5. fill of a sub-region, 6. tile and scalar atomics ------------------------------ */
static void test_fill(void) {
    Func *f = func_new();
    Buffer *Y = BUF("Y", DT_INT32, SCOPE_GLOBAL, I(RR), I(RC));
    param(f, Y, true);
    Buffer *S = BUF("S", DT_INT32, SCOPE_LOCAL, I(RR), I(RC));
    Var *bx, *by;
    Stmt *body = SEQ(alloc(S), fill(full(S), I(0)),
                     fill(reg(S, EX(I(1), I(2)), EX(I(2), I(3))), F(9.75)), copy(full(S), full(Y)));
    f->body = SEQ(kernel(1, I(1), NULL, &bx, &by, body));
    lower_all(f, WITH_SAFE);
    Interp *in = interp_new();
    Mem *my = bind_param(in, Y, NULL);
    run(in, f);
    int bad = 0;
    for (int r = 0; r < RR; r++)
        for (int c = 0; c < RC; c++)
            bad += my->data[r * RC + c] != ((r >= 1 && r < 3 && c >= 2 && c < 5) ? 9 : 0);
    CHECK(bad == 0);
    interp_free(in);
}

static void test_atomic(void) {
    Func *f = func_new();
    Var *M = ir_var(&ctx, "M", DT_INT32);
    VEC_PUSH(&ctx.arena, f->syms, M);
    Buffer *Y = BUF("Y", DT_FLOAT32, SCOPE_GLOBAL, V(M));
    Buffer *Z = BUF("Z", DT_FLOAT32, SCOPE_GLOBAL, I(2));
    param(f, Y, true);
    param(f, Z, true);
    Buffer *S = BUF("S", DT_FLOAT32, SCOPE_FRAGMENT, I(4));
    Var *bx, *by;
    Stmt *at = st(STMT_ATOMIC);
    at->u.atomic.op = ATOMIC_ADD;
    at->u.atomic.src = full(S);
    Stmt *body = SEQ(alloc(S), fill(full(S), F(1.5)), at);
    Stmt *k = kernel(2, I(2), I(3), &bx, &by, body);
    at->u.atomic.dst = reg(Y, EX(B(OP_MUL, V(bx), I(4))), EX(I(4)));
    Stmt *sc = st(STMT_ATOMIC); /* scalar: Z[by] max= 100 + by; Z[2] is out of bounds */
    sc->u.atomic.op = ATOMIC_MAX;
    sc->u.atomic.dst = reg(Z, EX(V(by)), EX(I(1)));
    sc->u.atomic.value = B(OP_ADD, F(100), V(by));
    ir_seq_push(&ctx, body, sc);
    f->body = SEQ(k);
    lower_all(f, WITH_SAFE);
    Interp *in = interp_new();
    bind(in, M, 7);
    double y[7] = {0, 0, 0, 0, 0, 0, 0}, z[2] = {0, 0};
    Mem *my = bind_param(in, Y, y), *mz = bind_param(in, Z, z);
    run(in, f);
    /* 3 blocks along by each add 1.5 to Y[0..8); Y[7] does not exist */
    int bad = 0;
    for (int i = 0; i < 7; i++) bad += my->data[i] != 4.5;
    CHECK(bad == 0);
    CHECK(mz->data[0] == 100 && mz->data[1] == 101);
    CHECK(in->oob == 0);
    interp_free(in);
}

/* ---- 7. user errors of check_tile_ops -------------------------------------------------- */
static void expect_error(int line, Stmt *op, const char *want) {
    Func *f = func_new();
    f->body = op;
    jmp_buf jb;
    ctx.err.len = 0;
    checks++;
    if (CTX_TRY(&ctx, &jb)) {
        if (!ctx.err.buf || !strstr(ctx.err.buf, want)) {
            failures++;
            fprintf(stderr, "line %d: error\n%s\ndoes not contain\n%s\n", line,
                    ctx.err.buf ? ctx.err.buf : "", want);
        }
    } else {
        pass_check_tile_ops(&ctx, f);
        failures++;
        fprintf(stderr, "line %d: no error, wanted: %s\n", line, want);
    }
    ctx.on_error = NULL;
}

static void test_errors(void) {
    Buffer *A = BUF("A", DT_FLOAT16, SCOPE_GLOBAL, I(128), I(128));
    Buffer *As = BUF("A_shared", DT_FLOAT16, SCOPE_SHARED, I(32), I(64));
    Region a64 = reg(A, EX(I(0), I(0)), EX(I(64), I(32)));
    expect_error(__LINE__, copy(a64, full(As)),
                 "T.copy: source A[0:64, 0:32] is 64x32 but destination A_shared is 32x64");
    expect_error(__LINE__,
                 copy(reg(A, EX(I(0), I(0)), EX(I(64), I(64))),
                      reg(As, EX(I(0), I(0)), EX(I(64), I(64)))),
                 "T.copy: A_shared[0:64, 0:64] is out of bounds of A_shared, which is 32x64");
    Buffer *Ga = BUF("A_s", DT_FLOAT16, SCOPE_SHARED, I(64), I(32));
    Buffer *Gb = BUF("B_s", DT_FLOAT16, SCOPE_SHARED, I(16), I(64));
    Buffer *Gc = BUF("C_f", DT_FLOAT32, SCOPE_FRAGMENT, I(64), I(64));
    expect_error(__LINE__, gemm(full(Ga), full(Gb), full(Gc), false, false, true),
                 "T.gemm: A is 64x32 but B is 16x64 (K is 32 in A but 16 in B)");
    Buffer *Gbt = BUF("B_s", DT_FLOAT16, SCOPE_SHARED, I(64), I(16));
    expect_error(__LINE__, gemm(full(Ga), full(Gbt), full(Gc), false, true, true),
                 "T.gemm: A is 64x32 but B is 64x16 (K is 32 in A but 16 in B, "
                 "with transpose_B=True)");
    Buffer *Gb2 = BUF("B_s", DT_FLOAT16, SCOPE_SHARED, I(32), I(48));
    expect_error(__LINE__, gemm(full(Ga), full(Gb2), full(Gc), false, false, true),
                 "T.gemm: B is 32x48 but C is 64x64 (N is 48 in B but 64 in C)");
    Buffer *Gcs = BUF("C_s", DT_FLOAT32, SCOPE_SHARED, I(64), I(64));
    expect_error(__LINE__, gemm(full(Ga), full(Gb), full(Gcs), false, false, true),
                 "T.gemm: C must be a fragment (T.alloc_fragment), but C_s is in shared memory");
    expect_error(__LINE__, gemm(full(A), full(Gb), full(Gc), false, false, true),
                 "T.gemm: A must be in shared memory or a fragment, but A is a global tensor");
    Buffer *acc = BUF("acc_s", DT_FLOAT32, SCOPE_FRAGMENT, I(64), I(64));
    Buffer *mx = BUF("scores_max", DT_FLOAT32, SCOPE_FRAGMENT, I(32));
    expect_error(__LINE__, reduce(RED_MAX, full(acc), full(mx), 1, true),
                 "T.reduce_max: src acc_s is 64x64, so dst must be 64 (or 64x1) for dim=1, "
                 "but scores_max is 32");
    expect_error(__LINE__, reduce(RED_SUM, full(acc), full(mx), 2, true),
                 "T.reduce_sum: dim=2 is out of range for acc_s, which has 2 dimensions");
    expect_error(__LINE__, cumsum(full(acc), full(As), 0, false),
                 "T.cumsum: src acc_s is 64x64 but dst A_shared is 32x64");
    /* a symbolic extent is not provably different: no error */
    Var *n = ir_var(&ctx, "n", DT_INT32);
    Buffer *S32 = BUF("S", DT_FLOAT16, SCOPE_SHARED, I(32));
    Buffer *G = BUF("G", DT_FLOAT16, SCOPE_GLOBAL, V(n));
    Func *f = func_new();
    f->body = copy(reg(G, EX(I(0)), EX(V(n))), full(S32));
    jmp_buf jb;
    bool failed = false;
    if (CTX_TRY(&ctx, &jb)) failed = true; /* setjmp only as a whole condition */
    else pass_check_tile_ops(&ctx, f);
    ctx.on_error = NULL;
    CHECK(!failed);
    /* negative dims are normalized */
    Stmt *r = reduce(RED_SUM, full(acc), full(BUF("row", DT_FLOAT32, SCOPE_FRAGMENT, I(64))), -1,
                     true);
    f->body = r;
    failed = false;
    if (CTX_TRY(&ctx, &jb)) failed = true;
    else pass_check_tile_ops(&ctx, f);
    ctx.on_error = NULL;
    CHECK(!failed && r->u.reduce.dim == 1);
}

/* ---- 8. what safe_memory_access proves, 9. simplify ------------------------------------ */
static void test_safe_proofs(void) {
    Func *f = func_new();
    Var *M = ir_var(&ctx, "M", DT_INT32);
    VEC_PUSH(&ctx.arena, f->syms, M);
    Buffer *A = BUF("A", DT_FLOAT32, SCOPE_GLOBAL, I(8));
    Buffer *A2 = BUF("A2", DT_FLOAT32, SCOPE_GLOBAL, V(M));
    Buffer *Bo = BUF("B", DT_FLOAT32, SCOPE_GLOBAL, I(32));
    param(f, A, false);
    param(f, A2, false);
    param(f, Bo, true);
    Var *i = ir_var(&ctx, "i", DT_INT32), *bx, *by;
    Stmt *s1 = store(Bo, EX(V(i)), ir_load(&ctx, A, EX(V(i)), L0));
    Stmt *s2 = store(Bo, EX(B(OP_ADD, B(OP_MUL, V(bx = ir_var(&ctx, "bx", DT_INT32)), I(8)), V(i))),
                     ir_load(&ctx, A2, EX(B(OP_SUB, V(i), I(1))), L0));
    Stmt *lp = loop(i, I(0), I(8), LOOP_SERIAL, SEQ(s1, s2));
    Stmt *k = kernel(1, I(4), NULL, &by, &by, SEQ(lp));
    k->u.kernel.block[0] = bx;
    f->body = SEQ(k);
    pass_run(&ctx, f, "safe_memory_access", pass_safe_memory_access);
    check_text(__LINE__, text_of_stmt(lp),
               "for i in serial(0, 8):\n"
               "    B[i] = A[i]\n"
               "    B[bx * 8 + i] = if_then_else(i - 1 >= 0 && i - 1 < M, A2[i - 1], 0.0)\n");
    Interp *in = interp_new();
    bind(in, M, 5);
    double a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, a2[5] = {10, 20, 30, 40, 50};
    bind_param(in, A, a);
    bind_param(in, A2, a2);
    Mem *mb = bind_param(in, Bo, NULL);
    run(in, f);
    CHECK(in->oob == 0);
    int bad = 0;
    for (int b = 0; b < 4; b++)
        for (int t = 0; t < 8; t++)
            bad += mb->data[b * 8 + t] != (b == 0             ? a[t] /* later blocks rewrite B[i] */
                                           : t >= 1 && t <= 5 ? a2[t - 1]
                                                              : 0);
    CHECK(bad == 0);
    interp_free(in);
}

static void test_simplify(void) {
    Func *f = func_new();
    Buffer *Y = BUF("Y", DT_INT32, SCOPE_GLOBAL, I(8));
    param(f, Y, true);
    Var *i = ir_var(&ctx, "i", DT_INT32), *j = ir_var(&ctx, "j", DT_INT32);
    Var *x = ir_var(&ctx, "x", DT_INT32);
    Stmt *iff = st(STMT_IF);
    iff->u.if_.cond = B(OP_LT, V(x), I(3)); /* folds once x is substituted by 2 */
    iff->u.if_.then = store(Y, EX(I(0)), I(1));
    iff->u.if_.orelse = store(Y, EX(I(0)), I(2));
    Stmt *s0 = store(Y, EX(B(OP_ADD, V(i), I(0))), B(OP_MUL, I(2), I(3)));
    Stmt *dead = loop(j, I(0), I(0), LOOP_PARALLEL, store(Y, EX(V(j)), I(5)));
    Stmt *one = loop(x, I(2), I(1), LOOP_SERIAL, SEQ(iff));
    f->body = SEQ(loop(i, I(0), I(8), LOOP_PARALLEL, SEQ(SEQ(s0, dead), ir_seq(&ctx, L0), one)));
    pass_run(&ctx, f, "simplify", pass_simplify);
    check_text(__LINE__, text_of_stmt(f->body),
               "for i in parallel(0, 8):\n"
               "    Y[i] = 6\n"
               "    Y[0] = 1\n");
    /* a loop of one iteration that breaks stays a loop */
    Var *w = ir_var(&ctx, "w", DT_INT32);
    f->body = SEQ(loop(w, I(0), I(1), LOOP_SERIAL, SEQ(store(Y, EX(V(w)), I(1)), st(STMT_BREAK))));
    pass_run(&ctx, f, "simplify", pass_simplify);
    check_text(__LINE__, text_of_stmt(f->body),
               "for w in serial(0, 1):\n"
               "    Y[w] = 1\n"
               "    break\n");
}

/* pass_mark_nonneg: loop variables from a start >= 0, block indices and lets of such
 * values are marked; a negative or unknown start, a difference or a min with a possibly
 * negative side are not. */
static Stmt *let(Var *v, Expr *value) {
    Stmt *s = st(STMT_LET);
    s->u.let.var = v, s->u.let.value = value;
    return s;
}

static void test_mark_nonneg(void) {
    Func *f = func_new();
    Buffer *Y = BUF("Y", DT_INT32, SCOPE_GLOBAL, I(8));
    param(f, Y, true);
    const char *names[] = {"k", "j", "m", "n", "a", "b", "c", "d"};
    Var *v[8];
    for (int i = 0; i < 8; i++) v[i] = ir_var(&ctx, names[i], DT_INT32);
    Var *k = v[0], *j = v[1], *m = v[2], *n = v[3], *a = v[4], *b = v[5], *c = v[6], *d = v[7];
    Param pn = {.name = "n", .scalar = n}; /* a scalar parameter: its sign is unknown */
    VEC_PUSH(&ctx.arena, f->params, pn);
    Var *bx, *by;
    Stmt *kern = kernel(1, I(4), NULL, &bx, &by, NULL);
    Stmt *body = SEQ(let(a, B(OP_ADD, B(OP_MUL, V(k), I(3)), V(bx))), let(b, B(OP_SUB, V(k), I(1))),
                     let(c, B(OP_FLOORMOD, B(OP_MAX, V(j), V(k)), I(4))),
                     let(d, B(OP_MIN, V(j), V(k))),
                     store(Y, EX(I(0)), B(OP_ADD, B(OP_ADD, V(a), V(b)), B(OP_ADD, V(c), V(d)))));
    Stmt *loops = loop(k, I(0), I(8), LOOP_SERIAL,
                       loop(j, I(-2), I(4), LOOP_SERIAL, loop(m, V(n), I(2), LOOP_SERIAL, body)));
    kern->u.kernel.body = SEQ(loops);
    f->body = SEQ(kern);
    pass_run(&ctx, f, "mark_nonneg", pass_mark_nonneg);
    const bool want[8] = {true, false, false, false, true, false, true, false};
    for (int i = 0; i < 8; i++) {
        checks++;
        if (v[i]->nonneg != want[i]) {
            failures++;
            fprintf(stderr, "mark_nonneg: %s is%s marked\n", names[i], v[i]->nonneg ? "" : " not");
        }
    }
    checks++;
    if (!bx->nonneg) failures++, fprintf(stderr, "mark_nonneg: the block index is not marked\n");
}

/* ---- the printed form of lowered ops (a contract the emitters read) ------------------- */
static void test_lowered_text(void) {
    Buffer *As = BUF("A_s", DT_FLOAT16, SCOPE_SHARED, I(64), I(32));
    Buffer *Bs = BUF("B_s", DT_FLOAT16, SCOPE_SHARED, I(64), I(32));
    Buffer *Cf = BUF("C_f", DT_FLOAT32, SCOPE_FRAGMENT, I(64), I(64));
    Buffer *mx = BUF("m", DT_FLOAT32, SCOPE_FRAGMENT, I(64));
    Func *f = func_new();
    f->body = SEQ(alloc(As), alloc(Bs), alloc(Cf), alloc(mx),
                  gemm(full(As), full(Bs), full(Cf), false, true, true),
                  reduce(RED_MAX, full(Cf), full(mx), 1, true));
    lower_all(f, WITH_SAFE);
    check_text(__LINE__, text_of_stmt(f->body),
               "alloc shared float16 A_s[64, 32]\n"
               "alloc shared float16 B_s[64, 32]\n"
               "alloc fragment float32 C_f[64, 64]\n"
               "alloc fragment float32 m[64]\n"
               "for i in parallel(0, 64):\n"
               "    for j in parallel(0, 64):\n"
               "        C_f[i, j] = 0.0\n"
               "for i_1 in parallel(0, 64):\n"
               "    for k in serial(0, 32):\n"
               "        for j_1 in parallel(0, 64):\n"
               "            C_f[i_1, j_1] = C_f[i_1, j_1] + cast<float32>(A_s[i_1, k]) * "
               "cast<float32>(B_s[j_1, k])\n"
               "for i_2 in parallel(0, 64):\n"
               "    m[i_2] = -inf\n"
               "    for j_2 in serial(0, 64):\n"
               "        m[i_2] = max(m[i_2], C_f[i_2, j_2])\n");
}

/* pass_check_turns: the warp-group turns of a kernel with a block barrier inside a turn
 * (which would deadlock the two warp groups) are dropped, with a remark; others stay. */
static Stmt *turn_stmt(TurnOp op) {
    Stmt *t = st(STMT_TURN);
    t->u.turn.op = op;
    return t;
}

static int count_turns(const Stmt *s) {
    if (s->kind == STMT_TURN) return 1;
    int n = 0;
    for (int i = 0; s->kind == STMT_SEQ && i < s->u.seq.len; i++)
        n += count_turns(s->u.seq.data[i]);
    return n + (s->kind == STMT_KERNEL ? count_turns(s->u.kernel.body) : 0);
}

static void test_check_turns(void) {
    for (int unsafe = 0; unsafe < 2; unsafe++) {
        Func *f = func_new();
        Var *bx, *by;
        Stmt *inside = unsafe ? st(STMT_SYNC) : ir_seq(&ctx, L0);
        Stmt *k = kernel(1, I(1), NULL, &bx, &by,
                         SEQ(turn_stmt(TURN_START), turn_stmt(TURN_WAIT), inside,
                             turn_stmt(TURN_PASS), st(STMT_SYNC), turn_stmt(TURN_END)));
        f->body = SEQ(k);
        pass_check_turns(&ctx, f);
        checks++;
        if (count_turns(f->body->u.seq.data[0]) != (unsafe ? 0 : 4) ||
            (f->remarks.len > 0) != unsafe) {
            failures++;
            fprintf(stderr, "check_turns (%s barrier inside): %d turns left, %d remarks\n",
                    unsafe ? "a" : "no", count_turns(f->body->u.seq.data[0]), f->remarks.len);
        }
    }
}

int main(void) {
    ctx.opts.verify = true; /* ir_verify after every pass (the setting verify) */
    test_copy_oob(0);
    test_copy_oob(-1.5);
    test_copy_without_guard_faults();
    test_copy_text();
    for (int t = 0; t < 4; t++) test_gemm(t & 1, t & 2, false);
    test_gemm(false, false, true);
    test_gemm(true, true, true);
    for (int op = 0; op <= RED_ABSMAX; op++) { /* (the bit ones: test_math_names.py) */
        test_reduce((ReduceOp)op, 1, false, true);
        test_reduce((ReduceOp)op, 0, false, true);
        test_reduce((ReduceOp)op, -1, true, true);
        test_reduce((ReduceOp)op, 0, true, false);
    }
    for (int t = 0; t < 8; t++) test_cumsum(t & 1, t & 2, t & 4);
    test_fill();
    test_atomic();
    test_errors();
    test_safe_proofs();
    test_simplify();
    test_mark_nonneg();
    test_check_turns();
    test_lowered_text();
    arena_free(&ctx.arena);
    sb_free(&ctx.err);
    printf("test_passes: %d checks passed\n", checks - failures);
    if (failures) printf("test_passes: %d checks FAILED\n", failures);
    return failures != 0;
}
