/* test_cli.c - the tilec command (tools/tilec.c) as a user runs it: exit statuses, the
 * messages of bad usage and bad --in/-D, --out-dir (outputs only), --seed determinism,
 * symbolic sizes from -D, --check, emit, --ir-after and info --passes, cache dir/clear.
 * Results are read back with npy_read and compared with sums computed here. Runs
 * BUILD/tilec next to BUILD/tests. */
#include "rt/rt.h"

#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_CONTEXT() fprintf(stderr, "  stdout: %s\n  stderr: %s\n", out, err)
#include "check.h"
#include "kernels.h"

static char tilec[4096], tmp[64], out[1 << 16], err[1 << 16];

static const char *path(const char *name) {
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmp, name);
    return buf[k];
}

static void slurp(const char *file, char *dst, size_t cap) {
    FILE *f = fopen(file, "r");
    size_t n = f ? fread(dst, 1, cap - 1, f) : 0;
    dst[n] = 0;
    if (f) fclose(f);
}

/* Runs "tilec ARGS" (ARGS is shell text) in tmp; returns the exit status. */
static int tilec_run(const char *args) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >stdout.txt 2>stderr.txt", tmp, tilec, args);
    int st = system(cmd);
    slurp(path("stdout.txt"), out, sizeof out);
    slurp(path("stderr.txt"), err, sizeof err);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_text(const char *file, const char *text) {
    FILE *f = fopen(file, "w");
    fputs(text, f);
    fclose(f);
}

static int load(const char *file, NpyArray *a) {
    StrBuf e = {0};
    int rc = npy_read(file, DT_INVALID, a, &e);
    if (rc) fprintf(stderr, "%s\n", e.buf);
    sb_free(&e);
    return rc;
}

static void test_usage(void) {
    CHECK(tilec_run("--version") == 0 && strstr(out, "tilec " TILEC_VERSION));
    CHECK(tilec_run("") == 2 && strstr(err, "usage: tilec"));
    CHECK(tilec_run("frob") == 2 && strstr(err, "unknown command 'frob'"));
    CHECK(tilec_run("run") == 2 && strstr(err, "needs a FILE"));
    CHECK(tilec_run("run add.py --bogus") == 2 && strstr(err, "unknown option '--bogus'"));
    CHECK(tilec_run("run add.py -D foo") == 2 && strstr(err, "bad -D 'foo'"));
    CHECK(tilec_run("run add.py -D =3") == 2 && strstr(err, "bad -D '=3'"));
    CHECK(tilec_run("run add.py --in A") == 2 && strstr(err, "bad --in 'A'"));
    CHECK(tilec_run("run add.py --seed x") == 2 && strstr(err, "bad --seed 'x'"));
    CHECK(tilec_run("run add.py --target") == 2 && strstr(err, "--target needs a value"));
    CHECK(tilec_run("run add.py --out-dir ''") == 2 &&
          strstr(err, "--out-dir needs a directory, not an empty string"));
    CHECK(tilec_run("run add.py --out-dir=") == 2 && strstr(err, "--out-dir needs"));
    CHECK(tilec_run("help run") == 0 && strstr(out, "--check") && strstr(out, "--seed"));
    CHECK(tilec_run("help nope") == 2 && strstr(err, "no help for 'nope'"));
    CHECK(tilec_run("run missing.py") == 1 && strstr(err, "cannot read 'missing.py'"));
    CHECK(tilec_run("run add.py --target tpu") == 1 && strstr(err, "unknown target 'tpu'"));
    CHECK(tilec_run("run add.py -D nonsense=1") == 1 && strstr(err, "nonsense"));
    /* no C compiler: run fails with the reason, emit (which builds nothing) works */
    const char *cc = getenv("CC");
    char saved[256];
    snprintf(saved, sizeof saved, "%s", cc ? cc : "");
    setenv("CC", "/nonexistent/cc", 1);
    CHECK(tilec_run("run add.py --target c") == 1 && strstr(err, "cannot build kernels here") &&
          strstr(err, "/nonexistent/cc"));
    CHECK(tilec_run("emit add.py") == 0 && strlen(out) > 100);
    if (cc) setenv("CC", saved, 1);
    else unsetenv("CC");
}

/* Given inputs: C.npy (only the output) equals a + b. */
static void test_in_out(void) {
    float a[64 * 128], b[64 * 128];
    for (int i = 0; i < 64 * 128; i++) a[i] = (float)i * 0.25f, b[i] = 1.0f - (float)(i % 7);
    int64_t shape[2] = {64, 128};
    StrBuf e = {0};
    CHECK(npy_write(path("a.npy"), DT_FLOAT32, 2, shape, a, &e) == 0);
    CHECK(npy_write(path("b.npy"), DT_FLOAT32, 2, shape, b, &e) == 0);
    double d[4] = {0};
    CHECK(npy_write(path("d.npy"), DT_FLOAT64, 2, (int64_t[]){2, 2}, d, &e) == 0);
    sb_free(&e);
    CHECK(tilec_run("run add.py:add -D M=64 --in A=a.npy --in B=b.npy --out-dir o1 --target c") ==
          0);
    CHECK(strstr(out, " (c): ") && strstr(out, " ms\n"));
    NpyArray c;
    CHECK(load(path("o1/C.npy"), &c) == 0);
    CHECK(c.dtype == DT_FLOAT32 && c.ndim == 2 && c.shape[0] == 64 && c.shape[1] == 128);
    int bad = 0;
    for (int i = 0; c.data && i < 64 * 128; i++) bad += ((float *)c.data)[i] != a[i] + b[i];
    CHECK(bad == 0);
    npy_free(&c);
    CHECK(access(path("o1/A.npy"), F_OK) != 0); /* inputs are not written */
    CHECK(tilec_run("run add.py -D M=64 --in X=a.npy") == 1 &&
          strstr(err, "no parameter 'X' (parameters: A, B, C)"));
    CHECK(tilec_run("run add.py -D M=64 --in A=d.npy") == 1 &&
          strstr(err, "--in A=d.npy: dtype is float64 but parameter 'A' is float32"));
    CHECK(tilec_run("run add.py --in A=a.npy") == 1 &&
          strstr(err, "shape[0] is 64 but parameter 'A' has shape (256, 128)"));
    CHECK(tilec_run("run add.py -D M=64 --in C=a.npy") == 1 && strstr(err, "is an output"));
    CHECK(tilec_run("run add.py -D M=64 --in A=none.npy") == 1 &&
          strstr(err, "none.npy: cannot open"));
    write_text(path("bad.npy"), "not numpy at all");
    CHECK(tilec_run("run add.py -D M=64 --in A=bad.npy") == 1 && strstr(err, "bad magic"));
}

static int same_file(const char *x, const char *y) {
    static char bx[1 << 18], by[1 << 18];
    FILE *f = fopen(x, "rb"), *g = fopen(y, "rb");
    size_t nx = f ? fread(bx, 1, sizeof bx, f) : 0, ny = g ? fread(by, 1, sizeof by, g) : 1;
    if (f) fclose(f);
    if (g) fclose(g);
    return nx == ny && nx > 0 && memcmp(bx, by, nx) == 0;
}

/* Generated inputs: deterministic per seed, in [-1, 1) each, so C in [-2, 2). */
static void test_seed_and_check(void) {
    CHECK(tilec_run("run add.py --seed 5 --out-dir s5") == 0);
    CHECK(tilec_run("run add.py --seed=5 --out-dir s5b") == 0);
    CHECK(tilec_run("run add.py --seed 6 --out-dir s6 --check") == 0);
    CHECK(strstr(out, "check: OK (max abs err 0)"));
    CHECK(same_file(path("s5/C.npy"), path("s5b/C.npy")));
    CHECK(!same_file(path("s5/C.npy"), path("s6/C.npy")));
    NpyArray c;
    CHECK(load(path("s5/C.npy"), &c) == 0);
    int out_of_range = 0, distinct = 0;
    for (size_t i = 0; c.data && i < c.numel; i++) {
        float v = ((float *)c.data)[i];
        out_of_range += !(v >= -2.0f && v < 2.0f);
        distinct += i && v != ((float *)c.data)[i - 1];
    }
    CHECK(c.numel == 256 * 128 && out_of_range == 0 && distinct > 1000);
    npy_free(&c);
    /* NaN where the reference has NaN agrees, with a note */
    CHECK(tilec_run("run nan.py --check") == 0 && strstr(out, "check: OK") &&
          strstr(out, "check: note: output 'C' has ") &&
          strstr(out, " NaN elements (the first at ["));
    CHECK(tilec_run("run add.py --check") == 0 && !strstr(out, "NaN"));
    CHECK(tilec_run("run add.py --bench -D M=64") == 0 && strstr(out, "median") &&
          strstr(out, "runs"));
}

/* A symbolic size: -D gives it; a kernel without outputs writes all its tensors. */
static void test_symbolic(void) {
    CHECK(tilec_run("run dyn.py") == 1 && strstr(err, "parameter 'A' has shape (M, 128)") &&
          strstr(err, "-D M=VALUE"));
    CHECK(tilec_run("run dyn.py -D M=70 --out-dir y --check") == 0);
    CHECK(strstr(out, "check: OK"));
    NpyArray a, b, c;
    CHECK(load(path("y/A.npy"), &a) == 0 && load(path("y/B.npy"), &b) == 0 &&
          load(path("y/C.npy"), &c) == 0);
    CHECK(c.ndim == 2 && c.shape[0] == 70 && a.numel == c.numel && b.numel == c.numel);
    int bad = 0;
    for (size_t i = 0; c.data && a.numel == c.numel && i < c.numel; i++)
        bad += ((float *)c.data)[i] != ((float *)a.data)[i] + ((float *)b.data)[i];
    CHECK(bad == 0);
    npy_free(&a), npy_free(&b), npy_free(&c);
    CHECK(tilec_run("run dyn.py -D M=64 --in A=a.npy") == 0); /* M from -D agrees */
    CHECK(tilec_run("run dyn.py -D M=65 --in A=a.npy") == 1 &&
          strstr(err, "shape[0] is 64 but M is 65 (from -D M=65)"));
}

static void test_emit_cache(void) {
    CHECK(tilec_run("emit dyn.py --ir") == 0 && strstr(out, "M") && strstr(out, "C["));
    CHECK(tilec_run("emit add.py") == 0 && strlen(out) > 100);
    CHECK(tilec_run("info") == 0 && strstr(out, "targets:") && strstr(out, "cache dir:"));
    CHECK(tilec_run("cache dir") == 0 && strstr(out, path("cache")));
    write_text(path("cache/keep.txt"), "mine");
    CHECK(tilec_run("cache clear") == 0);
    DIR *d = opendir(path("cache"));
    int left = 0;
    for (struct dirent *e; d && (e = readdir(d));) left += e->d_name[0] != '.';
    if (d) closedir(d);
    CHECK(left == 1 && access(path("cache/keep.txt"), F_OK) == 0);
    CHECK(tilec_run("cache frob") == 2);
}

static int count_of(const char *text, const char *what) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

/* --ir-after: the IR after one pass, a list, or every pass (info --passes names them),
 * to stderr or --ir-file; an unknown pass is an error that lists the target's passes;
 * TILEC_PRINT_AFTER does the same as --ir-after. */
static void test_ir_after(void) {
    CHECK(tilec_run("info --passes") == 0 && strstr(out, "c\tsimplify\n") &&
          strstr(out, "cuda\tinfer_layouts\n") && strstr(out, "cuda\tinsert_sync_threads\n"));
    int c_passes = 0;
    for (const char *p = out; (p = strstr(p, "\n")); p++) c_passes += p[1] == 'c' && p[2] == '\t';
    c_passes += out[0] == 'c' && out[1] == '\t';
    CHECK(tilec_run("emit add.py --target c --ir-after simplify") == 0 &&
          count_of(err, "# IR after") == 1 && strstr(err, "# IR after simplify (c)\nfunc add(") &&
          strstr(out, "Generated by tilec"));
    CHECK(tilec_run("emit add.py --target c --ir-after program_order,mark_nonneg") == 0 &&
          count_of(err, "# IR after") == 2 && strstr(err, "# IR after mark_nonneg (c)"));
    CHECK(tilec_run("emit add.py --target c --ir-after all") == 0 &&
              count_of(err, "# IR after") == c_passes && c_passes >= 7,
          "%d passes", c_passes);
    CHECK(tilec_run("emit add.py --target c --ir-after nope") == 1 &&
          strstr(err, "no pass 'nope' in the c target's pipeline (its passes: check_tile_ops,"));
    CHECK(tilec_run("emit add.py --target cuda --ir-after infer_layouts,nope") == 1 &&
          strstr(err, "no pass 'nope' in the cuda target's pipeline"));
    CHECK(tilec_run("emit add.py --ir-file x.ir") == 2 &&
          strstr(err, "--ir-file needs --ir-after"));
    write_text(path("dump.ir"), "old text\n");
    CHECK(tilec_run("emit add.py --target c --ir-after simplify --ir-file dump.ir") == 0 &&
          !strstr(err, "# IR after"));
    slurp(path("dump.ir"), err, sizeof err);
    CHECK(!strncmp(err, "# IR after simplify (c)\n", 24) && count_of(err, "# IR after") == 1);
    /* the cuda target lowers without a GPU */
    CHECK(tilec_run("emit add.py --target cuda --ir-after map_threads") == 0 &&
          strstr(err, "# IR after map_threads (cuda)\nfunc add("));
    setenv("TILEC_PRINT_AFTER", "lower_tile_ops", 1);
    CHECK(tilec_run("emit add.py --target c") == 0 && count_of(err, "# IR after") == 1 &&
          strstr(err, "# IR after lower_tile_ops (c)"));
    setenv("TILEC_PRINT_AFTER", "frob", 1);
    CHECK(tilec_run("emit add.py --target c") == 1 && strstr(err, "TILEC_PRINT_AFTER") &&
          strstr(err, "no pass 'frob'"));
    unsetenv("TILEC_PRINT_AFTER");
}

int main(int argc, char **argv) {
    (void)argc;
    char self[1024], cand[1100];
    snprintf(self, sizeof self, "%s", argv[0]);
    snprintf(cand, sizeof cand, "%s/../tilec", dirname(self));
    if (!realpath(cand, tilec) || access(tilec, X_OK) != 0) {
        printf("test_cli: FAILED: %s not found (build it with make)\n", cand);
        return 1;
    }
    snprintf(tmp, sizeof tmp, "/tmp/test_cli-XXXXXX");
    if (!mkdtemp(tmp)) return 1;
    setenv("TILEC_CACHE_DIR", path("cache"), 1);
    unsetenv("TILEC_NO_CACHE");
    write_text(path("add.py"), test_kernel("add"));
    write_text(path("dyn.py"), test_kernel("dyn"));
    write_text(path("nan.py"), test_kernel("nan"));
    test_usage();
    test_in_out();
    test_seed_and_check();
    test_symbolic();
    test_emit_cache();
    test_ir_after();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
    if (failures) {
        printf("test_cli: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("test_cli: %d checks passed\n", checks);
    return 0;
}
