/* test_elaborate.c - the front end from source text to tile IR: program shapes (factory,
 * direct, several kernels), defines, out_idx, symbolic sizes, and user errors. */
#include "frontend/frontend.h"
#include "passes/passes.h"
#include "targets/target.h"
#include "ir/work.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct Result {
    Ctx ctx;
    Program *prog;
    char *ir;    /* printed IR or NULL */
    char *error; /* error text or NULL */
} Result;

static Result *run_passes(const char *text, const char *factory, const Define *defs, int ndefs,
                          bool check_schedules);

static Result *run(const char *text, const char *factory, const Define *defs, int ndefs) {
    return run_passes(text, factory, defs, ndefs, false);
}

/* The front end, then (check_schedules) pass_check_schedules. */
static Result *run_passes(const char *text, const char *factory, const Define *defs, int ndefs,
                          bool check_schedules) {
    Result *r = calloc(1, sizeof *r);
    Source *src = NEW(&r->ctx.arena, Source);
    src->name = "k.py";
    src->text = text;
    src->len = strlen(text);
    jmp_buf jb;
    if (CTX_TRY(&r->ctx, &jb)) {
        r->error = strdup(r->ctx.err.buf ? r->ctx.err.buf : "(empty)");
        return r;
    }
    r->prog = elaborate(&r->ctx, src, factory, defs, ndefs, NULL, 0);
    if (check_schedules) pass_check_schedules(&r->ctx, r->prog->func);
    StrBuf sb = {0};
    ir_print_func(&sb, r->prog->func);
    r->ir = sb.buf;
    return r;
}

static void done(Result *r) {
    free(r->ir);
    free(r->error);
    sb_free(&r->ctx.err);
    arena_free(&r->ctx.arena);
    free(r);
}

static const char *GEMM =
    "import tilelang\n"
    "import tilelang.language as T\n"
    "import torch\n"
    "\n"
    "@tilelang.jit(out_idx=[-1])\n"
    "def matmul(M, N, K, block_M=128, block_N=128, block_K=32, dtype=\"float16\",\n"
    "           accum_dtype=\"float\"):\n"
    "    @T.prim_func\n"
    "    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),\n"
    "             C: T.Tensor((M, N), dtype)):\n"
    "        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):\n"
    "            A_shared = T.alloc_shared((block_M, block_K), dtype)\n"
    "            B_shared = T.alloc_shared((block_K, block_N), dtype)\n"
    "            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)\n"
    "            T.clear(C_local)\n"
    "            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):\n"
    "                T.copy(A[by * block_M, k * block_K], A_shared)\n"
    "                T.copy(B[k * block_K, bx * block_N], B_shared)\n"
    "                T.gemm(A_shared, B_shared, C_local)\n"
    "            T.copy(C_local, C[by * block_M, bx * block_N])\n"
    "    return main\n"
    "\n"
    "def ref(a, b):\n"
    "    return torch.matmul(a, b)\n"
    "\n"
    "if __name__ == \"__main__\":\n"
    "    kernel = matmul(1024, 1024, 1024)\n"
    "    print(f\"{kernel}\")\n";

static void test_factory(void) {
    Define defs[] = {{"M", "256"}, {"N", "128"}, {"K", "64"}};
    Result *r = run(GEMM, NULL, defs, 3);
    CHECK(r->ir, "%s", r->error);
    if (r->ir) {
        Func *f = r->prog->func;
        CHECK(!strcmp(f->name, "matmul"), "name %s", f->name);
        CHECK(f->params.len == 3, "%d params", f->params.len);
        CHECK(f->params.data[2].is_output && !f->params.data[0].is_output, "out_idx");
        CHECK(f->params.data[0].buf->dtype == DT_FLOAT16, "dtype");
        CHECK(strstr(r->ir, "gemm") && strstr(r->ir, "pipelined"), "%s", r->ir);
        CHECK(strstr(r->ir, "A_shared"), "buffer names kept: %s", r->ir);
        Work *w = work_model(&r->ctx, f);
        double flops = work_flops(w, f, NULL);
        CHECK(flops == 2.0 * 256 * 128 * 64, "gemm flops %g", flops);
    }
    done(r);
}

static void test_missing_arg(void) {
    Result *r = run(GEMM, NULL, NULL, 0);
    CHECK(r->error && strstr(r->error, "needs a value for its parameters M, N, K") && strstr(r->error, "-D M=... -D N=... -D K=..."), "%s", r->error);
    done(r);
}

static void test_unknown_define(void) {
    Define defs[] = {{"M", "256"}, {"N", "128"}, {"K", "64"}, {"Q", "1"}};
    Result *r = run(GEMM, NULL, defs, 4);
    CHECK(r->error && strstr(r->error, "has no parameter 'Q'"), "%s", r->error);
    done(r);
}

static void test_bad_define(void) {
    Define defs[] = {{"M", "(1,"}, {"N", "128"}, {"K", "64"}};
    Result *r = run(GEMM, NULL, defs, 3);
    CHECK(r->error && strstr(r->error, "-D M"), "%s", r->error);
    done(r);
}

static const char *DIRECT =
    "import tilelang.language as T\n"
    "N = 64\n"
    "M = T.dynamic(\"M\")\n"
    "@T.prim_func\n"
    "def add(A: T.Tensor((M, N), \"float32\"), B: T.Tensor((M, N), \"float32\")):\n"
    "    with T.Kernel(T.ceildiv(M, 32), threads=128) as bx:\n"
    "        for i, j in T.Parallel(32, N):\n"
    "            B[bx * 32 + i, j] = A[bx * 32 + i, j] * 2.0 + 1\n";

/* FLOPs of a loop whose trip count depends on the block index (causal attention). */
static const char *TRIANGLE =
    "import tilelang.language as T\n"
    "@T.prim_func\n"
    "def tri(A: T.Tensor((64, 16), \"float16\"), C: T.Tensor((64, 64), \"float32\")):\n"
    "    with T.Kernel(4, threads=128) as bx:\n"
    "        a = T.alloc_shared((16, 16), \"float16\")\n"
    "        acc = T.alloc_fragment((16, 16), \"float32\")\n"
    "        n = T.min(bx + 1, 4)\n"
    "        for k in T.serial(n):\n"
    "            T.gemm(a, a, acc)\n";

static void test_work_per_block(void) {
    Result *r = run(TRIANGLE, NULL, NULL, 0);
    CHECK(r->ir, "%s", r->error);
    if (r->ir) {
        Work *w = work_model(&r->ctx, r->prog->func);
        double flops = work_flops(w, r->prog->func, NULL);
        CHECK(flops == 2.0 * 16 * 16 * 16 * (1 + 2 + 3 + 4), "triangle flops %g", flops);
    }
    done(r);
}

static void test_direct_dynamic(void) {
    Result *r = run(DIRECT, NULL, NULL, 0);
    CHECK(r->ir, "%s", r->error);
    if (r->ir) {
        Func *f = r->prog->func;
        CHECK(f->syms.len == 1 && !strcmp(f->syms.data[0]->name, "M"), "syms");
        CHECK(f->params.data[0].buf->shape[1]->kind == EXPR_INT, "N folded");
    }
    done(r);
    Define defs[] = {{"N", "128"}};
    r = run(DIRECT, NULL, defs, 1);
    CHECK(r->ir && r->prog->func->params.data[0].buf->shape[1]->u.i == 128, "override %s", r->error);
    done(r);
}

static const char *TWO_KERNELS =
    "import tilelang.language as T\n"
    "def f(n=64):\n"
    "    @T.prim_func\n"
    "    def main(A: T.Tensor((n,), \"float32\"), P: T.Tensor((4, n), \"float32\"),\n"
    "             O: T.Tensor((n,), \"float32\")):\n"
    "        with T.Kernel(4, threads=32) as s:\n"
    "            for i in T.Parallel(n):\n"
    "                P[s, i] = A[i] * s\n"
    "        with T.Kernel(1, threads=32) as bx:\n"
    "            acc = T.alloc_fragment((n,), \"float32\")\n"
    "            T.clear(acc)\n"
    "            for s in T.serial(4):\n"
    "                for i in T.Parallel(n):\n"
    "                    acc[i] += P[s, i]\n"
    "            T.copy(acc, O)\n"
    "    return main\n";

/* Meta-level Python: comprehensions with several clauses, dict displays, starred ranges. */
static void test_meta_python(void) {
    const char *text =
        "import tilelang\n"
        "import tilelang.language as T\n"
        "pairs = [(i, j) for i in range(4) for j in range(i) if j > 0]\n"
        "p2 = (tilelang.math.next_power_of_2(100), tilelang.math.next_power_of_2(1),\n"
        "      -tilelang.cdiv(-7, 2), tilelang.cdiv(8, 4))\n"
        "sq = {k: k * k for k in [*range(5)]}\n"
        "cfg = dict(block=16, **{'n': 3})\n"
        "@T.prim_func\n"
        "def main(A: T.Tensor((len(pairs), sq[4], cfg['block'] + cfg['n']), \"float32\"),\n"
        "         B: T.Tensor(p2, \"float32\")):\n"
        "    with T.Kernel(1) as bx:\n"
        "        A[0, 0, 0] = 1.0\n";
    Result *r = run(text, NULL, NULL, 0);
    CHECK(r->ir, "%s", r->error);
    if (r->ir) {
        Buffer *b = r->prog->func->params.data[0].buf;
        CHECK(b->shape[0]->u.i == 3 && b->shape[1]->u.i == 16 && b->shape[2]->u.i == 19,
              "%s", r->ir);
        CHECK(strstr(r->ir, "B: global float32[128, 1, 3, 2]"), "%s", r->ir);
    }
    done(r);
}

static void test_two_kernels(void) {
    Result *r = run(TWO_KERNELS, "f", NULL, 0);
    CHECK(r->ir, "%s", r->error);
    if (r->ir) {
        StmtList *seq = &r->prog->func->body->u.seq;
        int k = 0;
        for (int i = 0; i < seq->len; i++) k += seq->data[i]->kind == STMT_KERNEL;
        CHECK(k == 2, "two kernels: %s", r->ir);
    }
    done(r);
}

/* A slice between two lets that load nothing has the constant extent their values give
 * (MLA decode's KV[kv_start:kv_end]); one whose end loads keeps its expression. */
static const char *LET_SLICES =
    "import tilelang\n"
    "import tilelang.language as T\n"
    "\n"
    "def f(N=256):\n"
    "    @T.prim_func\n"
    "    def main(A: T.Tensor((N, 64), \"float16\"), I: T.Tensor((8,), \"int32\"),\n"
    "             B: T.Tensor((N, 64), \"float16\")):\n"
    "        with T.Kernel(2, threads=128) as bz:\n"
    "            S = T.alloc_shared((32, 64), \"float16\")\n"
    "            for k in T.serial(4):\n"
    "                s0 = 128 * bz + k * 32\n"
    "                s1 = 128 * bz + (k + 1) * 32\n"
    "                T.copy(A[s0:s1, :], S)\n"
    "                T.copy(S, B[s0:s1, :])\n"
    "                e = s0 + I[k]\n"
    "                T.copy(A[s0:e, 0:32], B[s0:e, 0:32])\n"
    "    return main\n";

static void test_let_slices(void) {
    Result *r = run(LET_SLICES, "f", NULL, 0);
    CHECK(r->ir && strstr(r->ir, "copy A[s0 : +32, 0:64] -> S[0:32, 0:64]") &&
              strstr(r->ir, "copy S[0:32, 0:64] -> B[s0 : +32, 0:64]") &&
              strstr(r->ir, "copy A[s0 : +(e + s0 * -1), 0:32]"),
          "constant extents between lets, not through a load: %s",
          r->ir ? r->ir : r->error);
    done(r);
}

static void expect_error(const char *text, const char *needle, const char *where) {
    Result *r = run(text, NULL, NULL, 0);
    CHECK(r->error && strstr(r->error, needle), "want '%s' got: %s", needle,
          r->error ? r->error : r->ir);
    if (where) CHECK(r->error && strstr(r->error, where), "want location '%s' in: %s", where, r->error);
    done(r);
}

static void test_errors(void) {
    const char *head = "import tilelang.language as T\n@T.prim_func\n"
                       "def main(A: T.Tensor((64, 64), \"float16\")):\n"
                       "    with T.Kernel(1, threads=128) as bx:\n";
    char buf[2048];
    snprintf(buf, sizeof buf, "%s        x = undefined_name + 1\n", head);
    expect_error(buf, "name 'undefined_name' is not defined", "k.py:5:13: error");
    snprintf(buf, sizeof buf, "%s        T.frobnicate(A)\n", head);
    expect_error(buf, "T.frobnicate is not a TileLang function", "k.py:5:");
    snprintf(buf, sizeof buf, "%s        s = T.alloc_shared((64, 64), \"float17\")\n", head);
    expect_error(buf, "unknown dtype \"float17\"", NULL);
    snprintf(buf, sizeof buf, "%s        T.copy(A)\n", head);
    expect_error(buf, "missing required argument 'dst'", NULL);
    snprintf(buf, sizeof buf, "%s        A[0, 0, 0] = 1\n", head);
    expect_error(buf, "has 2 dimensions but 3 indices", NULL);
    snprintf(buf, sizeof buf, "%s        y = torch.zeros(3)\n", head);
    expect_error(buf, "name 'torch' is not defined", NULL);
    snprintf(buf, sizeof buf, "import torch\n%s        y = torch.zeros(3)\n", head);
    expect_error(buf, "cannot be evaluated at compile time", NULL);
    expect_error("import tilelang.language as T\nx = 1\n", "no kernel found", NULL);
    expect_error("import tilelang.language as T\n@T.prim_func\ndef main(A):\n    pass\n",
                 "needs a type", "k.py:3:10");
}

/* A top-level statement that fails only matters when a kernel uses its names. */
static void test_deferred_errors(void) {
    const char *ok = "import torch\nimport tilelang.language as T\n"
                     "x = torch.randn(3)\nclass Foo:\n    pass\n"
                     "@T.prim_func\ndef main(A: T.Tensor((8,), \"float32\")):\n"
                     "    with T.Kernel(1) as bx:\n        A[0] = 1.0\n";
    Result *r = run(ok, NULL, NULL, 0);
    CHECK(r->ir, "unused failing top-level code is skipped: %s", r->error);
    done(r);
    const char *bad = "import torch\nimport tilelang.language as T\n"
                      "n = torch.randn(3)\n"
                      "@T.prim_func\ndef main(A: T.Tensor((n,), \"float32\")):\n"
                      "    with T.Kernel(1) as bx:\n        A[0] = 1.0\n";
    r = run(bad, NULL, NULL, 0);
    CHECK(r->error && strstr(r->error, "k.py:3:") && strstr(r->error, "note: the value was used"),
          "%s", r->error);
    done(r);
}

/* T.Pipelined(order=, stage=, group=) that does not fit: a kernel whose loop body is
 * four statements (copy in, a let, scale, copy out) with the schedule `sched`; the error
 * at line `line` (6: the loop, 11: the last copy). */
static void expect_schedule_error(const char *loop, const char *sched, const char *needle,
                                  int line) {
    char buf[1024], where[32];
    snprintf(where, sizeof where, "k.py:%d:", line);
    snprintf(buf, sizeof buf,
             "import tilelang.language as T\n@T.prim_func\n"
             "def main(A: T.Tensor((256,), \"float32\"), B: T.Tensor((256,), \"float32\")):\n"
             "    with T.Kernel(1, threads=64) as bx:\n"
             "        A_s = T.alloc_shared((64,), \"float32\")\n"
             "        for k in T.%s(4, num_stages=2%s):\n"
             "            T.copy(A[k * 64], A_s)\n"
             "            j = k * 64\n"
             "            for i in T.Parallel(64):\n"
             "                A_s[i] *= 2.0\n"
             "            T.copy(A_s, B[j])\n",
             loop, sched);
    Result *r = run_passes(buf, NULL, NULL, 0, true);
    CHECK(r->error && strstr(r->error, needle) && strstr(r->error, where),
          "want '%s' at %s, got: %s", needle, where, r->error ? r->error : r->ir);
    done(r);
}

static void test_schedule_errors(void) {
    const char *groups = ", group=[[0], [1], [2], [3]]";
    char buf[256];
    expect_schedule_error("Pipelined", ", order=[-1, 0, 1, 2]", "given together", 6);
    expect_schedule_error("Pipelined", ", order=1, stage=[0], group=[[0]]",
                          "order= must be a list", 6);
    snprintf(buf, sizeof buf, ", order=[-1, 0, 1], stage=[-1, 0, 0, 0]%s", groups);
    expect_schedule_error("Pipelined", buf, "they need one per group", 6);
    snprintf(buf, sizeof buf, ", order=[-1, 0, 1, \"a\"], stage=[-1, 0, 0, 0]%s", groups);
    expect_schedule_error("Pipelined", buf, "takes integers from -1 up", 6);
    snprintf(buf, sizeof buf, ", order=[-1, 0, 1, 2], stage=[0, 0, 0, 0]%s", groups);
    expect_schedule_error("Pipelined", buf, "-1 (a producer copy) goes in both or neither", 6);
    expect_schedule_error("Pipelined",
                          ", order=[-1, 0, 1, 2], stage=[-1, 0, 0, 0], "
                          "group=[[0], [], [1], [2, 3]]",
                          "group 1 is empty", 6);
    snprintf(buf, sizeof buf, ", order=[-1, 0, 0, 1], stage=[-1, 0, 0, 0]%s", groups);
    expect_schedule_error("Pipelined", buf, "groups 1 and 2 have the same order 0", 6);
    snprintf(buf, sizeof buf, ", order=[-1, 0, 1, -1], stage=[-1, 0, 0, -1]%s", groups);
    expect_schedule_error("Pipelined", buf, "statement 3 is in group 3 of stage -1", 11);
    snprintf(buf, sizeof buf, ", order=[-1, 0, 1, 2], stage=[-1, 0, 0, 0]%s", groups);
    expect_schedule_error("Pipelined", buf, "group 3 uses 'j', which group 1 binds", 11);
    expect_schedule_error("serial", ", order=[0]", "T.serial takes no order=, stage= or group=", 6);
}

/* Eager style: T.const sizes symbolic without shapes, constants from defines or from the
 * call's tensors (the second phase), and a clear error when shapes disagree. */
static const char *EAGER =
    "import tilelang\n"
    "import tilelang.language as T\n"
    "@tilelang.jit\n"
    "def add(A, B, block=32):\n"
    "    M, N = T.const('M, N')\n"
    "    A: T.Tensor((M, N), T.float32)\n"
    "    B: T.Tensor((N,), T.float32)\n"
    "    C = T.empty((M, N), T.float32)\n"
    "    with T.Kernel(T.ceildiv(M, block), threads=block) as bx:\n"
    "        for i, j in T.Parallel(block, N):\n"
    "            C[bx * block + i, j] = A[bx * block + i, j] + B[j]\n"
    "    return C\n";

static Result *run_eager(const Define *defs, int ndefs, const ArgShape *in, int nin) {
    Result *r = calloc(1, sizeof *r);
    Source *src = NEW(&r->ctx.arena, Source);
    src->name = "k.py";
    src->text = EAGER;
    src->len = strlen(EAGER);
    jmp_buf jb;
    if (CTX_TRY(&r->ctx, &jb)) {
        r->error = strdup(r->ctx.err.buf ? r->ctx.err.buf : "(empty)");
        return r;
    }
    ElabRequest rq = {.defs = defs, .ndefs = ndefs, .inputs = in, .ninputs = nin};
    r->prog = elaborate_request(&r->ctx, src, &rq);
    StrBuf sb = {0};
    ir_print_func(&sb, r->prog->func);
    r->ir = sb.buf;
    return r;
}

static void test_eager(void) {
    Result *r = run_eager(NULL, 0, NULL, 0);
    CHECK(r->ir && strstr(r->ir, "A: global float32[M, N]") && strstr(r->ir, "C: global "
          "float32[M, N] /*out*/") && r->prog->sizes.len == 2, "%s", r->ir ? r->ir : r->error);
    done(r);
    int64_t a[2] = {100, 48}, b[1] = {48};
    ArgShape in[2] = {{NULL, 2, a, NULL}, {NULL, 1, b, NULL}};
    r = run_eager(NULL, 0, in, 2);
    CHECK(r->ir && strstr(r->ir, "A: global float32[100, 48]") && !strstr(r->ir, "syms") &&
          strstr(r->ir, "grid(4)"), "%s", r->ir ? r->ir : r->error);
    done(r);
    Define defs[] = {{"M", "64"}, {"N", "16"}};
    r = run_eager(defs, 2, NULL, 0);
    CHECK(r->ir && strstr(r->ir, "C: global float32[64, 16]"), "%s", r->ir ? r->ir : r->error);
    done(r);
    ArgShape named[1] = {{"B", 1, b, NULL}}; /* M has no tensor that gives it */
    r = run_eager(NULL, 0, named, 1);
    CHECK(r->error && strstr(r->error, "T.const size 'M' needs the tensor 'A'"), "%s", r->error);
    done(r);
    int64_t b2[1] = {40};
    ArgShape bad[2] = {{NULL, 2, a, NULL}, {NULL, 1, b2, NULL}};
    r = run_eager(NULL, 0, bad, 2); /* N is 48 from A, but B has 40 elements */
    CHECK(r->error && strstr(r->error, "'B'") && strstr(r->error, "40"), "%s", r->error);
    done(r);
}

int main(void) {
    test_eager();
    test_schedule_errors();
    test_factory();
    test_missing_arg();
    test_unknown_define();
    test_bad_define();
    test_direct_dynamic();
    test_work_per_block();
    test_two_kernels();
    test_let_slices();
    test_meta_python();
    test_errors();
    test_deferred_errors();
    printf("test_elaborate: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
