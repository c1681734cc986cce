/* test_hostile.c - hostile inputs to the whole library (issue 29), each checked for the
 * exact failure it must give (or the result it must compute):
 *   - a kernel file name with a comment terminator and newlines, pasted into the
 *     generated C and CUDA sources, must stay a comment (the C build would fail on the
 *     injected #error; the CUDA text is checked line by line);
 *   - compile-time integers and sequences: exact as in Python where they fit int64 and
 *     the element limit, a clear error otherwise, never a wrapped or truncated value;
 *   - internal errors and out of memory, compiling or launching: TL_ERROR_INTERNAL with
 *     a message, no abort;
 *   - launch limits: grids of 2^31 blocks or more (constant: a compile error; symbolic: a
 *     launch error before any block runs), CUDA grid y/z and shared memory at emit; out
 *     of memory on the C target reported as such;
 *   - compilers run from several threads at once with a multi-word $CC. */
#include "tilec.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_CONTEXT() fprintf(stderr, "  last error: %s\n", tl_last_error())
#include "check.h"
#include "kernels.h"

static tl_options opts(const char *target, int build) {
    tl_options o = tl_options_default();
    o.target = target;
    o.use_cache = 0;
    o.build = build;
    return o;
}

/* The injected text is still inside a comment: no line starts with it, no comment
 * closes before it, no // comment line ends in a line splice. */
static int injected(const char *src) {
    for (const char *l = src; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (!strncmp(l, "#error injected", 15) || !strncmp(l, "int injected", 12)) return 1;
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(n < 511 ? n : 511), l);
        const char *t = line + strspn(line, " ");
        bool comment = !strncmp(t, "/*", 2) || !strncmp(t, "//", 2) || *t == '*';
        if (comment && strstr(line, "*/ int injected")) return 1;
        if (!strncmp(line, "//", 2) && n && (line[n - 1] == '\\' || strstr(line, "?\?/"))) return 1;
    }
    return 0;
}

static void test_file_name(void) {
    static const char *const names[] = {
        "dir*/ int injected = 1; /*/k.py",
        "evil\n#error injected\n.py",
        "a/b*/\n#error injected\n/*.py",
        "splice\\",
        "trigraph?\?/",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        tl_kernel *k = NULL;
        tl_options o = opts("c", TL_BUILD_LOAD);
        CHECK(tl_compile_source(test_kernel("hostile_add"), names[i], &o, &k) == TL_OK,
              " c, name %zu", i);
        if (k) CHECK(!injected(tl_kernel_source(k)), " c source, name %zu", i);
        tl_kernel_destroy(k);
        o = opts("cuda", TL_BUILD_NONE);
        k = NULL;
        CHECK(tl_compile_source(test_kernel("hostile_add"), names[i], &o, &k) == TL_OK,
              " cuda, name %zu", i);
        if (k) CHECK(!injected(tl_kernel_source(k)), " cuda source, name %zu", i);
        if (k && i == 1) CHECK(strstr(tl_kernel_source(k), "evil\\x0a#error injected\\x0a.py"));
        tl_kernel_destroy(k);
    }
}

/* A 1-D kernel whose length is the compile-time expression `len_expr`. */
static tl_status compile_len(const char *len_expr, int64_t *len) {
    char src[1024];
    snprintf(src, sizeof src,
             "import tilelang.language as T\n"
             "def f(dtype=\"float32\"):\n"
             "    M = %s\n"
             "    @T.prim_func\n"
             "    def main(A: T.Tensor((M,), dtype)):\n"
             "        with T.Kernel(1, threads=32) as bx:\n"
             "            A[0] = 1.0\n"
             "    return main\n",
             len_expr);
    tl_kernel *k = NULL;
    tl_options o = opts("c", TL_BUILD_NONE);
    tl_status st = tl_compile_source(src, "len.py", &o, &k);
    tl_param_info p;
    *len = -1;
    if (st == TL_OK && tl_kernel_param(k, 0, &p) == TL_OK) *len = p.shape[0];
    tl_kernel_destroy(k);
    return st;
}

static void test_meta_ints(void) {
    static const struct {
        const char *expr;
        int64_t want;
    } exact[] = {
        {"len([0] * 200000)", 200000},          /* was silently 100000 */
        {"len(list(range(1000000)))", 1000000}, /* the limit itself */
        {"len(list(range(0, 1000000, 1)))", 1000000},
        {"len(list(range(9223372036854775806, 0, -4611686018427387903)))", 2},
        {"2**62 // 2**60", 4},
        {"(2**62 - 1 + 2**62) % 1000", 807}, /* INT64_MAX */
        {"-(-2**62 * 2 + 1)", 9223372036854775807LL},
        {"(1 << 62) >> 60", 4},
        {"(-1 >> 100) + 2", 1}, /* -1 >> 100 is -1 */
        {"int('9223372036854775807') % 10", 7},
        {"abs(-(2**62)) >> 61", 2},
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        int64_t got;
        tl_status st = compile_len(exact[i].expr, &got);
        CHECK(st == TL_OK && got == exact[i].want, " %s: got %lld (%s)", exact[i].expr,
              (long long)got, tl_last_error());
    }
    static const struct {
        const char *expr, *msg;
    } bad[] = {
        {"2**64", "integer overflow: 2 ** 64 does not fit in 64 bits"},
        {"10**19", "integer overflow: 10 ** 19"},
        {"2**63", "integer overflow: 2 ** 63"},
        {"-2**62 * 2 - 1", "integer overflow: -9223372036854775808 - 1"},
        {"(2**62) * 2", "integer overflow: 4611686018427387904 * 2"},
        {"(2**62) + (2**62)", "integer overflow"},
        {"1 << 64", "integer overflow: 1 << 64"},
        {"3 << 62", "integer overflow: 3 << 62"},
        {"1 << -1", "negative shift count"},
        {"-(-2**62 * 2)", "integer overflow"},
        {"(-2**62 * 2) // -1", "integer overflow"},
        {"abs(-2**62 * 2)", "integer overflow: abs(-9223372036854775808)"},
        {"int(1e30)", "integer overflow: 1e+30 does not fit"},
        {"int(float('nan'))", "cannot convert float NaN to integer"},
        {"int('99999999999999999999')", "integer overflow: int('99999999999999999999')"},
        {"len([0] * 2000000)", "sequence too long for compile time: 2000000 elements"},
        {"len([0, 0] * 2**62)", "sequence too long"},
        {"len(list(range(2000000)))", "sequence too long for compile time: 2000000 elements"},
        {"len(list(range(0, 2**62, 3)))", "sequence too long"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t got;
        tl_status st = compile_len(bad[i].expr, &got);
        CHECK(st == TL_ERROR_PROGRAM && strstr(tl_last_error(), bad[i].msg), " %s: %s", bad[i].expr,
              st == TL_OK ? "accepted" : tl_last_error());
    }
}

/* The setting fault (TILEC_FAULT) injects an internal error or out of memory. */
static void test_internal_errors(void) {
    tl_kernel *k = NULL;
    tl_options o = opts("c", TL_BUILD_NONE);
    static const tl_define internal = {"fault", "internal"}, oom = {"fault", "oom"},
                           launch = {"fault", "launch"};
    o.settings = &internal, o.nsettings = 1;
    CHECK(tl_compile_source(test_kernel("hostile_add"), "add.py", &o, &k) == TL_ERROR_INTERNAL &&
          !k);
    CHECK(strstr(tl_last_error(), "internal error at ") &&
              strstr(tl_last_error(), "TILEC_FAULT=internal"),
          " %s", tl_last_error());
    o.settings = &oom;
    CHECK(tl_compile_source(test_kernel("hostile_add"), "add.py", &o, &k) == TL_ERROR_INTERNAL &&
          !k);
    CHECK(strstr(tl_last_error(), "out of memory"), " %s", tl_last_error());
    o.settings = NULL, o.nsettings = 0;
    CHECK(tl_compile_source(test_kernel("hostile_add"), "add.py", &o, &k) ==
          TL_OK); /* and it goes on */
    tl_kernel_destroy(k);
    /* the same in a launch and a call of a kernel compiled with fault=launch */
    o = opts("c", TL_BUILD_LOAD);
    o.settings = &launch, o.nsettings = 1;
    CHECK(tl_compile_source(test_kernel("hostile_add"), "add.py", &o, &k) == TL_OK);
    if (!k) return;
    float a[128], b[128] = {0};
    for (int i = 0; i < 128; i++) a[i] = (float)i;
    int64_t shape[1] = {128};
    DLTensor ta = {.data = a,
                   .device = {kDLCPU, 0},
                   .ndim = 1,
                   .dtype = {kDLFloat, 32, 1},
                   .shape = shape};
    DLTensor tb = ta;
    tb.data = b;
    DLTensor *args[2] = {&ta, &tb}, *out[1] = {NULL};
    CHECK(tl_kernel_launch(k, args, 2, NULL) == TL_ERROR_INTERNAL &&
              strstr(tl_last_error(), "TILEC_FAULT=launch"),
          " %s", tl_last_error());
    CHECK(tl_kernel_call(k, args, 1, out, 1, NULL) == TL_ERROR_INTERNAL && !out[0]);
    tl_kernel_destroy(k);
    o.settings = NULL, o.nsettings = 0;
    CHECK(tl_compile_source(test_kernel("hostile_add"), "add.py", &o, &k) == TL_OK);
    if (!k) return;
    CHECK(tl_kernel_launch(k, args, 2, NULL) == TL_OK && b[5] == 6.0f && b[127] == 128.0f);
    tl_kernel_destroy(k);
}

/* The file name of compile_grid's kernels (a hostile one is pasted into messages). */
static const char *grid_file = "grid.py";

/* kernel(grid, body dims): a kernel over a grid given as Python text. */
static tl_status compile_grid(const char *target, const char *params, const char *grid,
                              const char *body, tl_kernel **k, int build) {
    char src[2048];
    snprintf(src, sizeof src,
             "import tilelang.language as T\n"
             "def f(dtype=\"float32\"):\n"
             "    M = T.dynamic(\"M\", \"int64\")\n"
             "    N = T.dynamic(\"N\")\n"
             "    @T.prim_func\n"
             "    def main(%s):\n"
             "        with T.Kernel(%s, threads=32) as %s:\n"
             "%s"
             "    return main\n",
             params, grid, strchr(grid, ',') ? "(bx, by)" : "bx", body);
    tl_options o = opts(target, build);
    *k = NULL;
    return tl_compile_source(src, grid_file, &o, k);
}

static void test_launch_limits(void) {
    tl_kernel *k;
    const char *body = "            A[0] = 1.0\n";
    const char *fixed = "A: T.Tensor((8,), dtype)";
    /* constant grids: compile errors on both targets */
    CHECK(compile_grid("c", fixed, "2**31", body, &k, TL_BUILD_NONE) == TL_ERROR_PROGRAM &&
              strstr(tl_last_error(), "grid dimension 0 (x) is 2147483648 blocks; the c target "
                                      "allows at most 2147483647"),
          " %s", tl_last_error());
    CHECK(compile_grid("c", fixed, "2**31 - 1", body, &k, TL_BUILD_NONE) == TL_OK);
    tl_kernel_destroy(k);
    CHECK(compile_grid("cuda", fixed, "2**31", body, &k, TL_BUILD_NONE) == TL_ERROR_PROGRAM &&
          strstr(tl_last_error(), "is 2147483648 blocks; CUDA allows at most 2147483647"));
    /* y over 65535: a 1-D launch when the blocks fit grid x (cuda_grid_folded), else refused */
    CHECK(compile_grid("cuda", fixed, "1, 65536", body, &k, TL_BUILD_NONE) == TL_OK, " %s",
          tl_last_error());
    tl_kernel_destroy(k);
    CHECK(compile_grid("cuda", fixed, "65536, 65536", body, &k, TL_BUILD_NONE) ==
                  TL_ERROR_PROGRAM &&
              strstr(tl_last_error(), "grid dimension 1 (y) is 65536 blocks; CUDA allows at most "
                                      "65535"),
          " %s", tl_last_error());
    CHECK(compile_grid("cuda", fixed, "1",
                       "            S = T.alloc_shared((60000,), dtype)\n"
                       "            T.fill(S, 0)\n"
                       "            A[0] = S[bx]\n",
                       &k, TL_BUILD_NONE) == TL_ERROR_PROGRAM &&
              strstr(tl_last_error(), "240000 bytes of shared memory per block; CUDA GPUs allow at "
                                      "most 232448"),
          " %s", tl_last_error());
    /* a symbolic grid of 2^31 blocks on the C target: refused at launch, before any block
     * runs (the tensor's data is a few bytes: a block that ran would write past it); the
     * message names a file whose name is a printf format and a hex escape's digits */
    grid_file = "g%s%n*ab\"c.py";
    CHECK(compile_grid("c", "A: T.Tensor((M,), dtype)", "M", body, &k, TL_BUILD_LOAD) == TL_OK,
          " %s", tl_last_error());
    grid_file = "grid.py";
    if (k) {
        float small[4] = {0};
        int64_t shape[1] = {(int64_t)1 << 31};
        DLTensor t = {.data = small,
                      .device = {kDLCPU, 0},
                      .ndim = 1,
                      .dtype = {kDLFloat, 32, 1},
                      .shape = shape};
        DLTensor *args[1] = {&t};
        CHECK(tl_kernel_launch(k, args, 1, NULL) == TL_ERROR_RUNTIME &&
                  strstr(tl_last_error(), "the grid is too large"),
              " %s", tl_last_error());
        CHECK(small[0] == 0);
        shape[0] = 4;
        tl_kernel_destroy(k);
    }
    /* an int32 symbol bound to 2^31: an argument error, not a wrapped (negative) size */
    CHECK(compile_grid("c", "A: T.Tensor((N,), dtype)", "N", body, &k, TL_BUILD_LOAD) == TL_OK);
    if (k) {
        float small[4] = {0};
        int64_t shape[1] = {(int64_t)1 << 31};
        DLTensor t = {.data = small,
                      .device = {kDLCPU, 0},
                      .ndim = 1,
                      .dtype = {kDLFloat, 32, 1},
                      .shape = shape};
        DLTensor *args[1] = {&t};
        CHECK(tl_kernel_launch(k, args, 1, NULL) == TL_ERROR_ARGUMENT &&
                  strstr(tl_last_error(), "more than the kernel's int32 symbol N holds"),
              " %s", tl_last_error());
        shape[0] = 4;
        CHECK(tl_kernel_launch(k, args, 1, NULL) == TL_OK && small[0] == 1.0f);
        tl_kernel_destroy(k);
    }
    /* out of memory on the C target: the block scratch of a huge shared tile */
    CHECK(compile_grid("c", fixed, "1",
                       "            S = T.alloc_shared((1 << 42,), \"int8\")\n"
                       "            S[7] = 1\n"
                       "            A[0] = S[7]\n",
                       &k, TL_BUILD_LOAD) == TL_OK,
          " %s", tl_last_error());
    if (k) {
        float a[8] = {0};
        int64_t shape[1] = {8};
        DLTensor t = {.data = a,
                      .device = {kDLCPU, 0},
                      .ndim = 1,
                      .dtype = {kDLFloat, 32, 1},
                      .shape = shape};
        DLTensor *args[1] = {&t};
        CHECK(tl_kernel_launch(k, args, 1, NULL) == TL_ERROR_RUNTIME &&
                  strstr(tl_last_error(), "out of memory"),
              " %s", tl_last_error());
        tl_kernel_destroy(k);
    }
}

/* Threads compile at once with a $CC of several words (strtok was not thread-safe). */
static void *compile_thread(void *arg) {
    char m[16];
    snprintf(m, sizeof m, "%d", 64 * (1 + (int)(intptr_t)arg));
    tl_define d = {"M", m};
    tl_options o = opts("c", TL_BUILD_LOAD);
    o.defines = &d, o.ndefines = 1;
    intptr_t ok = 1;
    for (int i = 0; i < 2; i++) {
        tl_kernel *k = NULL;
        ok &= tl_compile_source(test_kernel("hostile_add"), "add.py", &o, &k) == TL_OK;
        tl_kernel_destroy(k);
    }
    return (void *)ok;
}

static void test_concurrent_cc(void) {
    setenv("CC", "cc -std=c11   -w", 1);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, compile_thread, (void *)(intptr_t)i);
    for (int i = 0; i < 4; i++) {
        void *ok;
        pthread_join(th[i], &ok);
        CHECK(ok == (void *)1);
    }
    unsetenv("CC");
}

int main(void) {
    test_file_name();
    test_meta_ints();
    test_internal_errors();
    test_launch_limits();
    test_concurrent_cc();
    if (failures) {
        printf("test_hostile: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("test_hostile: %d checks passed\n", checks);
    return 0;
}
