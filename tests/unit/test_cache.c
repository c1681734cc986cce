/* test_cache.c - the kernel cache against hostile and damaged folders and entries
 * (issue 29): a planted folder (another user's, or writable by others) is refused, a new
 * folder is private, and an entry that is truncated, has flipped bits or holds another
 * kernel's binary is rebuilt with exactly one warning and never run. Results are checked
 * against sums computed here, so a wrong binary that ran would show. */
#include "rt/rt.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK_CONTEXT() fprintf(stderr, "  last error: %s\n", tl_last_error())
#include "check.h"
#include "kernels.h"

static char root[64];

static const char *at(const char *name) {
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", root, name);
    return buf[k];
}

/* Compiles add (M rows) with the cache in dir; returns its status, *warn its warnings. */
static tl_status compile(const char *dir, const char *m, tl_kernel **k) {
    tl_options o = tl_options_default();
    tl_define d = {"M", m};
    o.target = "c";
    o.cache_dir = dir;
    o.defines = &d;
    o.ndefines = 1;
    return tl_compile_source(test_kernel("cache_add"), "add.py", &o, k);
}

/* Runs k on 256 x 64 inputs; 1 when C == A + B everywhere. */
static int runs_right(tl_kernel *k) {
    enum { M = 256, N = 64 };
    static float a[M * N], b[M * N];
    for (int i = 0; i < M * N; i++) a[i] = (float)i, b[i] = 0.5f * (float)(i % 7);
    int64_t shape[2] = {M, N};
    DLTensor ta = {.data = a,
                   .device = {kDLCPU, 0},
                   .ndim = 2,
                   .dtype = {kDLFloat, 32, 1},
                   .shape = shape};
    DLTensor tb = ta;
    tb.data = b;
    DLTensor *in[2] = {&ta, &tb}, *out[1] = {NULL};
    if (tl_kernel_call(k, in, 2, out, 1, NULL) != TL_OK) return 0;
    int ok = 1;
    for (int i = 0; i < M * N; i++) ok &= ((float *)out[0]->data)[i] == a[i] + b[i];
    tl_tensor_free(out[0]);
    return ok;
}

/* The one file in dir whose name ends with ".entry" (static buffer), or NULL. */
static const char *entry_in(const char *dir, const char *not_this) {
    static char path[512];
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls %s/*.entry 2>/dev/null", dir);
    FILE *p = popen(cmd, "r");
    const char *found = NULL;
    while (p && fgets(path, sizeof path, p)) {
        path[strcspn(path, "\n")] = 0;
        if (!not_this || strcmp(path, not_this)) {
            found = path;
            break;
        }
    }
    if (p) pclose(p);
    return found;
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
    return n;
}

/* Damages the entry with f, then compiles again: one warning, rebuilt, right results,
 * and the next compile is a clean hit. */
static void damaged(const char *dir, const char *what, void (*f)(const char *path),
                    const char *reason) {
    tl_kernel *k = NULL;
    char path[512];
    CHECK(compile(dir, "256", &k) == TL_OK);
    tl_kernel_destroy(k);
    const char *e = entry_in(dir, NULL);
    CHECK(e != NULL, " %s: no entry", what);
    if (!e) return;
    snprintf(path, sizeof path, "%s", e);
    f(path);
    CHECK(compile(dir, "256", &k) == TL_OK, " %s", what);
    if (!k) return;
    const char *w = tl_kernel_warnings(k);
    CHECK(count(w, "warning: kernel cache: entry") == 1 && strstr(w, reason), " %s: '%s'", what, w);
    CHECK(runs_right(k), " %s: wrong results", what);
    tl_kernel_destroy(k);
    CHECK(compile(dir, "256", &k) == TL_OK);
    CHECK(k && !strstr(tl_kernel_warnings(k), "kernel cache"), " %s: warned twice", what);
    CHECK(k && runs_right(k));
    tl_kernel_destroy(k);
}

static void truncate_half(const char *path) {
    struct stat st;
    CHECK(stat(path, &st) == 0 && truncate(path, st.st_size / 2) == 0);
}

static void flip_bits(const char *path) {
    FILE *f = fopen(path, "r+b");
    struct stat st;
    CHECK(f && stat(path, &st) == 0);
    if (!f) return;
    fseek(f, st.st_size / 2, SEEK_SET);
    int c = fgetc(f);
    fseek(f, st.st_size / 2, SEEK_SET);
    fputc(c ^ 0x10, f);
    fclose(f);
}

/* Another kernel's (valid) entry in this kernel's slot. */
static const char *swap_dir;
static void other_kernel(const char *path) {
    tl_kernel *k = NULL;
    CHECK(compile(swap_dir, "128", &k) == TL_OK);
    tl_kernel_destroy(k);
    const char *other = entry_in(swap_dir, path);
    CHECK(other != NULL);
    if (other) CHECK(rename(other, path) == 0);
}

static void test_entries(void) {
    const char *dir = at("entries");
    damaged(dir, "truncated", truncate_half, "truncated");
    damaged(dir, "bit flip", flip_bits, "do not match the hash");
    swap_dir = dir;
    damaged(dir, "other kernel", other_kernel, "it holds another kernel");
}

static void test_folders(void) {
    tl_kernel *k = NULL;
    /* a new folder (and its parents) is private */
    const char *fresh = at("new/deeper");
    CHECK(compile(fresh, "256", &k) == TL_OK);
    tl_kernel_destroy(k);
    struct stat st;
    CHECK(stat(fresh, &st) == 0 && (st.st_mode & 0777) == 0700, " mode %o", st.st_mode & 0777);
    /* a planted folder writable by others: refused, the entry in it never loaded */
    const char *open_dir = at("open");
    CHECK(mkdir(open_dir, 0700) == 0 && chmod(open_dir, 0777) == 0);
    CHECK(compile(open_dir, "256", &k) == TL_ERROR_IO);
    CHECK(strstr(tl_last_error(), "is writable by other users (mode 777)") &&
          strstr(tl_last_error(), open_dir));
    CHECK(chmod(open_dir, 0775) == 0); /* group-writable too */
    CHECK(compile(open_dir, "256", &k) == TL_ERROR_IO);
    rmdir(open_dir);
    /* another user's folder: as root, one made for uid 4242; otherwise root's "/" */
    const char *theirs = "/";
    if (geteuid() == 0) {
        theirs = at("theirs");
        CHECK(mkdir(theirs, 0755) == 0 && chown(theirs, 4242, 4242) == 0);
    }
    CHECK(compile(theirs, "256", &k) == TL_ERROR_IO);
    CHECK(strstr(tl_last_error(), "not to you"), " %s", tl_last_error());
    if (strcmp(theirs, "/")) rmdir(theirs);
}

/* HOME unset: the cache goes to the password database's home, not a fixed name in the
 * world-writable /tmp. */
static void test_no_home(void) {
    const char *names[] = {"HOME", "XDG_CACHE_HOME", "TILEC_CACHE_DIR"};
    char *saved[3];
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(names[i]);
        saved[i] = v ? strdup(v) : NULL;
        unsetenv(names[i]);
    }
    struct passwd *pw = getpwuid(getuid());
    char want[512];
    snprintf(want, sizeof want, "%s/.cache/tilec", pw ? pw->pw_dir : "?");
    CHECK(pw && !strcmp(tl_cache_dir(NULL), want), " got %s", tl_cache_dir(NULL));
    for (int i = 0; i < 3; i++)
        if (saved[i]) setenv(names[i], saved[i], 1), free(saved[i]);
}

int main(void) {
    snprintf(root, sizeof root, "/tmp/test_cache-XXXXXX");
    if (!mkdtemp(root)) return 1;
    test_entries();
    test_folders();
    test_no_home();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) CHECK(0, " cannot remove %s", root);
    if (failures) {
        printf("test_cache: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("test_cache: %d checks passed\n", checks);
    return 0;
}
