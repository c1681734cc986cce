/* test_options.c - a compilation's settings (src/base/options.c) through the public API:
 *  1. the same kernel compiled on two threads at once with different settings (arch sm_80
 *     against sm_90a, and no_ws on against off), many times over: each compile's CUDA
 *     source is the one a compile with its settings alone gives (no GPU needed: build 0);
 *  2. settings in the kernel cache key: two settings, two entries (C target);
 *  3. options_fill: the order of the sources, the errors, options_key;
 *  4. the setting print_after (as tl_options.print_after: IR dumps after passes).
 * Run from the repository root. */
#include "targets/target.h"
#include "tilec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define GEMM "examples/gemm.py"
enum { ROUNDS = 12 };

/* The generated CUDA source of examples/gemm.py for arch with settings (malloc'd), or
 * NULL with the error in err. */
static char *gemm_source(const char *arch, const tl_define *sets, int nsets, char *err,
                         size_t nerr) {
    tl_options o = tl_options_default();
    o.target = "cuda";
    o.build = TL_BUILD_NONE;
    o.arch = arch;
    o.settings = sets;
    o.nsettings = nsets;
    tl_kernel *k = NULL;
    if (tl_compile_file(GEMM, &o, &k) != TL_OK) {
        snprintf(err, nerr, "%s", tl_last_error());
        return NULL;
    }
    char *s = strdup(tl_kernel_source(k));
    tl_kernel_destroy(k);
    return s;
}

/* One thread's work: ROUNDS compiles with its settings, each compared with want. */
typedef struct Job {
    const char *arch;
    const tl_define *sets;
    int nsets;
    const char *want;
    int same, compiled;
    char err[512];
} Job;

static void *job_run(void *p) {
    Job *j = p;
    for (int r = 0; r < ROUNDS; r++) {
        char *s = gemm_source(j->arch, j->sets, j->nsets, j->err, sizeof j->err);
        j->compiled += s != NULL;
        j->same += s && !strcmp(s, j->want);
        free(s);
    }
    return NULL;
}

/* Two threads at once, settings a and b: every compile gets its own settings' source. */
static void race(const char *what, Job a, Job b) {
    CHECK(a.want && b.want && strcmp(a.want, b.want),
          "%s: the two settings give the same "
          "source, so the test could not tell them apart",
          what);
    pthread_t ta, tb;
    CHECK(!pthread_create(&ta, NULL, job_run, &a) && !pthread_create(&tb, NULL, job_run, &b));
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK(a.compiled == ROUNDS && b.compiled == ROUNDS, "%s: %s%s", what, a.err, b.err);
    CHECK(a.same == ROUNDS, "%s: thread A got its own source %d of %d times", what, a.same, ROUNDS);
    CHECK(b.same == ROUNDS, "%s: thread B got its own source %d of %d times", what, b.same, ROUNDS);
}

/* The generated kernels of a CUDA source, after the embedded runtime headers. */
static const char *kernels(const char *src) {
    const char *k = strstr(src, "// ---- kernels ----");
    return k ? k : "";
}

static void test_two_threads(void) {
    char err[512] = "";
    static const tl_define no_ws = {"no_ws", "1"}, ws = {"no_ws", "0"};
    char *sm80 = gemm_source("sm_80", NULL, 0, err, sizeof err);
    char *sm90 = gemm_source("sm_90a", &ws, 1, err, sizeof err);
    char *sm90_nows = gemm_source("sm_90a", &no_ws, 1, err, sizeof err);
    CHECK(sm80 && sm90 && sm90_nows, "%s", err);
    if (!sm80 || !sm90 || !sm90_nows) return;
    const char *k80 = kernels(sm80), *k90 = kernels(sm90), *k90_nows = kernels(sm90_nows);
    CHECK(!strstr(k80, "tl_wgmma_ss<") && strstr(k90, "tl_wgmma_ss<") &&
              strstr(k90, "tl_tma_load(") && !strstr(k90_nows, "tl_tma_load("),
          "the arch and no_ws reach the lowering");
    race("sm_80 / sm_90a", (Job){.arch = "sm_80", .want = sm80},
         (Job){.arch = "sm_90a", .sets = &ws, .nsets = 1, .want = sm90});
    race("no_ws 1 / 0", (Job){.arch = "sm_90a", .sets = &no_ws, .nsets = 1, .want = sm90_nows},
         (Job){.arch = "sm_90a", .sets = &ws, .nsets = 1, .want = sm90});
    free(sm80), free(sm90), free(sm90_nows);
}

static int entries(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '\\.entry$'", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p && fscanf(p, "%d", &n) != 1) n = -1;
    if (p) pclose(p);
    return n;
}

/* The same kernel and source with two settings: two cache entries, each reused. */
static void test_cache_key(void) {
    char dir[] = "/tmp/test_options-XXXXXX";
    if (!mkdtemp(dir)) return;
    static const tl_define splitk[2] = {{"no_splitk", "1"}, {"no_splitk", "0"}};
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 2; i++) {
            tl_options o = tl_options_default();
            o.target = "c";
            o.build = TL_BUILD_ONLY;
            o.cache_dir = dir;
            o.settings = &splitk[i];
            o.nsettings = 1;
            tl_kernel *k = NULL;
            CHECK(tl_compile_file("examples/elementwise_add.py", &o, &k) == TL_OK, "%s",
                  tl_last_error());
            tl_kernel_destroy(k);
            CHECK(entries(dir) == (round ? 2 : i + 1), "%d entries after round %d, setting %d",
                  entries(dir), round, i);
        }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/* options_fill: the environment under the settings under the arch field; errors. */
static void test_fill(void) {
    Options o;
    StrBuf err = {0};
    OptionsArchFn cuda_arch = target_find("cuda")->arch, c_arch = target_find("c")->arch;
    static const tl_define sets[] = {{"cluster", "true"},
                                     {"sm_count", "114"},
                                     {"no_ws", "1"},
                                     {"no_ws", "off"},
                                     {"arch", "sm_80"}};
    tl_options t = tl_options_default();
    t.settings = sets;
    t.nsettings = 5;
    CHECK(options_fill(&o, &t, cuda_arch, &err) == 0, "%s", err.buf);
    CHECK(o.cluster && o.sm_count == 114 && !o.no_ws && !strcmp(o.arch, "sm_80"),
          "settings in order, the last of a key wins");
    t.arch = "sm_90a";
    CHECK(options_fill(&o, &t, cuda_arch, &err) == 0 && !strcmp(o.arch, "sm_90a") &&
              options_wgmma(&o),
          "the arch field over the setting");
    CHECK(options_fill(&o, &t, c_arch, &err) == 0 && !o.arch[0],
          "the C target has no architecture");
    char *key = options_key(&(Options){.arch = "sm_90a", .no_ws = true});
    CHECK(strstr(key, "arch=sm_90a") && strstr(key, "sm_count=132") && strstr(key, "no_ws=1") &&
              !strstr(key, "verify") && !strstr(key, "fault"),
          "%s", key);
    free(key);
    static const struct {
        const char *key, *value, *msg;
    } bad[] = {
        {"no_such", "1", "unknown setting 'no_such' (settings: arch sm_count no_ws"},
        {"no_ws", "2", "setting no_ws='2': expected 0 or 1"},
        {"sm_count", "-3", "setting sm_count='-3': expected a non-negative integer"},
        {"arch", "sm80", "setting arch='sm80': not a CUDA architecture"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tl_define d = {bad[i].key, bad[i].value};
        t = tl_options_default();
        t.settings = &d;
        t.nsettings = 1;
        err.len = 0;
        CHECK(options_fill(&o, &t, cuda_arch, &err) != 0 && err.buf && strstr(err.buf, bad[i].msg),
              "%s: %s", bad[i].key, err.buf ? err.buf : "");
        tl_kernel *k = NULL;
        t.target = "cuda";
        t.build = TL_BUILD_NONE;
        CHECK(tl_compile_file(GEMM, &t, &k) == TL_ERROR_ARGUMENT && !k &&
                  strstr(tl_last_error(), bad[i].msg),
              "%s", tl_last_error());
    }
    sb_free(&err);
}

/* The setting print_after dumps the IR as the print_after field does; a bad pass name is
 * TL_ERROR_ARGUMENT; the field wins over the setting. */
static void test_print_after(void) {
    char path[] = "/tmp/test_options-dump-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return;
    close(fd);
    static const tl_define lower = {"print_after", "lower_tile_ops"}, bad = {"print_after", "frob"};
    tl_options o = tl_options_default();
    o.target = "c";
    o.build = TL_BUILD_NONE;
    o.print_after_path = path;
    o.settings = &lower, o.nsettings = 1;
    tl_kernel *k = NULL;
    CHECK(tl_compile_file("examples/elementwise_add.py", &o, &k) == TL_OK, "%s", tl_last_error());
    tl_kernel_destroy(k);
    char text[4096] = "";
    FILE *fp = fopen(path, "r");
    size_t n = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
    text[n] = 0;
    if (fp) fclose(fp);
    CHECK(strstr(text, "# IR after lower_tile_ops (c)\n"), "the dump: %.200s", text);
    o.settings = &bad;
    CHECK(tl_compile_file("examples/elementwise_add.py", &o, &k) == TL_ERROR_ARGUMENT && !k &&
              strstr(tl_last_error(), "no pass 'frob'"),
          "%s", tl_last_error());
    o.print_after = "simplify"; /* the field over the setting */
    CHECK(tl_compile_file("examples/elementwise_add.py", &o, &k) == TL_OK, "%s", tl_last_error());
    tl_kernel_destroy(k);
    unlink(path);
}

int main(void) {
    if (getenv("TILEC_CUDA_ARCH") || getenv("TILEC_NO_WS") || getenv("TILEC_NO_WGMMA"))
        printf("note: TILEC_* variables set; the settings given here override them\n");
    test_two_threads();
    test_cache_key();
    test_fill();
    test_print_after();
    if (failures) {
        printf("test_options: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("test_options: %d checks passed\n", checks);
    return 0;
}
