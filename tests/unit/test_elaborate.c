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
#include "kernels.h"

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

static void test_factory(void) {
    Define defs[] = {{"M", "256"}, {"N", "128"}, {"K", "64"}};
    Result *r = run(test_kernel("gemm"), NULL, defs, 3);
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
    Result *r = run(test_kernel("gemm"), NULL, NULL, 0);
    CHECK(r->error && strstr(r->error, "needs a value for its parameters M, N, K") &&
              strstr(r->error, "-D M=... -D N=... -D K=..."),
          "%s", r->error);
    done(r);
}

static void test_unknown_define(void) {
    Define defs[] = {{"M", "256"}, {"N", "128"}, {"K", "64"}, {"Q", "1"}};
    Result *r = run(test_kernel("gemm"), NULL, defs, 4);
    CHECK(r->error && strstr(r->error, "has no parameter 'Q'"), "%s", r->error);
    done(r);
}

static void test_bad_define(void) {
    Define defs[] = {{"M", "(1,"}, {"N", "128"}, {"K", "64"}};
    Result *r = run(test_kernel("gemm"), NULL, defs, 3);
    CHECK(r->error && strstr(r->error, "-D M"), "%s", r->error);
    done(r);
}

static void test_work_per_block(void) {
    Result *r = run(test_kernel("triangle"), NULL, NULL, 0);
    CHECK(r->ir, "%s", r->error);
    if (r->ir) {
        Work *w = work_model(&r->ctx, r->prog->func);
        double flops = work_flops(w, r->prog->func, NULL);
        CHECK(flops == 2.0 * 16 * 16 * 16 * (1 + 2 + 3 + 4), "triangle flops %g", flops);
    }
    done(r);
}

static void test_direct_dynamic(void) {
    Result *r = run(test_kernel("direct"), NULL, NULL, 0);
    CHECK(r->ir, "%s", r->error);
    if (r->ir) {
        Func *f = r->prog->func;
        CHECK(f->syms.len == 1 && !strcmp(f->syms.data[0]->name, "M"), "syms");
        CHECK(f->params.data[0].buf->shape[1]->kind == EXPR_INT, "N folded");
    }
    done(r);
    Define defs[] = {{"N", "128"}};
    r = run(test_kernel("direct"), NULL, defs, 1);
    CHECK(r->ir && r->prog->func->params.data[0].buf->shape[1]->u.i == 128, "override %s",
          r->error);
    done(r);
}

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
        CHECK(b->shape[0]->u.i == 3 && b->shape[1]->u.i == 16 && b->shape[2]->u.i == 19, "%s",
              r->ir);
        CHECK(strstr(r->ir, "B: global float32[128, 1, 3, 2]"), "%s", r->ir);
    }
    done(r);
}

static void test_two_kernels(void) {
    Result *r = run(test_kernel("two_kernels"), "f", NULL, 0);
    CHECK(r->ir, "%s", r->error);
    if (r->ir) {
        StmtList *seq = &r->prog->func->body->u.seq;
        int k = 0;
        for (int i = 0; i < seq->len; i++) k += seq->data[i]->kind == STMT_KERNEL;
        CHECK(k == 2, "two kernels: %s", r->ir);
    }
    done(r);
}

static void test_let_slices(void) {
    Result *r = run(test_kernel("let_slices"), "f", NULL, 0);
    CHECK(r->ir && strstr(r->ir, "copy A[s0 : +32, 0:64] -> S[0:32, 0:64]") &&
              strstr(r->ir, "copy S[0:32, 0:64] -> B[s0 : +32, 0:64]") &&
              strstr(r->ir, "copy A[s0 : +(e + s0 * -1), 0:32]"),
          "constant extents between lets, not through a load: %s", r->ir ? r->ir : r->error);
    done(r);
}

static void expect_error(const char *text, const char *needle, const char *where) {
    Result *r = run(text, NULL, NULL, 0);
    CHECK(r->error && strstr(r->error, needle), "want '%s' got: %s", needle,
          r->error ? r->error : r->ir);
    if (where)
        CHECK(r->error && strstr(r->error, where), "want location '%s' in: %s", where, r->error);
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
    expect_schedule_error("Pipelined", ", order=1, stage=[0], group=[[0]]", "order= must be a list",
                          6);
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

static Result *run_eager(const Define *defs, int ndefs, const ArgShape *in, int nin) {
    Result *r = calloc(1, sizeof *r);
    Source *src = NEW(&r->ctx.arena, Source);
    src->name = "k.py";
    src->text = test_kernel("eager");
    src->len = strlen(test_kernel("eager"));
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
    CHECK(r->ir && strstr(r->ir, "A: global float32[M, N]") &&
              strstr(r->ir, "C: global "
                            "float32[M, N] /*out*/") &&
              r->prog->sizes.len == 2,
          "%s", r->ir ? r->ir : r->error);
    done(r);
    int64_t a[2] = {100, 48}, b[1] = {48};
    ArgShape in[2] = {{NULL, 2, a, NULL}, {NULL, 1, b, NULL}};
    r = run_eager(NULL, 0, in, 2);
    CHECK(r->ir && strstr(r->ir, "A: global float32[100, 48]") && !strstr(r->ir, "syms") &&
              strstr(r->ir, "grid(4)"),
          "%s", r->ir ? r->ir : r->error);
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
