/* target_c.c - the C target: pass pipeline, system C compiler, dlopen.
 *
 * The generated source (emit_c.c) is compiled by $CC (default `cc`) into a shared
 * object with -fopenmp (retried without it when OpenMP is unavailable; the pragmas are
 * then ignored and blocks run one after the other), written to a temporary name next to
 * the destination and renamed onto it, so readers of a shared cache never see a
 * partial file. The compiler runs through posix_spawnp with its output captured through
 * a pipe: no shell, so paths with spaces or quotes are safe. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../../runtime/c/tl_c.h"

#include "passes/passes.h"
#include "targets/target.h"
#include "emit_c.h"

extern char **environ;

/* Flags of every build; part of the toolchain id. -march=native stays off: the kernel
 * cache may be shared between machines. -ffp-contract=off: no fused multiply-adds, so
 * results do not depend on the compiler's defaults. */
static const char *const c_flags[] = {"-std=c11", "-O2",     "-fPIC",
                                      "-shared",  "-fwrapv", "-ffp-contract=off"};
#define N_C_FLAGS ((int)(sizeof c_flags / sizeof c_flags[0]))
#define MAX_ARGV 64

/* ---- the pipeline ---------------------------------------------------------------- */
static void c_lower(Ctx *ctx, Func *f) {
    pass_run(ctx, f, "check_tile_ops", pass_check_tile_ops);
    pass_run(ctx, f, "thread_regions", pass_thread_regions);
    pass_run(ctx, f, "mark_varying", pass_mark_varying);
    pass_run(ctx, f, "check_schedules", pass_check_schedules);
    pass_run(ctx, f, "program_order", pass_program_order);
    pass_run(ctx, f, "lower_tile_ops", pass_lower_tile_ops);
    pass_run(ctx, f, "safe_memory_access", pass_safe_memory_access);
    pass_run(ctx, f, "simplify", pass_simplify);
    pass_run(ctx, f, "mark_nonneg", pass_mark_nonneg);
}

/* ---- running the compiler ----------------------------------------------------------- */
/* $CC split on blanks (e.g. "ccache gcc"), or "cc". */
typedef struct CcWords {
    char buf[1024];
    char *argv[MAX_ARGV];
    int argc;
} CcWords;

static void cc_words(CcWords *w) {
    const char *cc = getenv("CC");
    if (!cc || !*cc) cc = "cc";
    snprintf(w->buf, sizeof w->buf, "%s", cc);
    w->argc = 0;
    char *save = NULL; /* strtok_r: compiles run in several threads at once */
    for (char *p = strtok_r(w->buf, " \t", &save); p && w->argc < MAX_ARGV / 2;
         p = strtok_r(NULL, " \t", &save))
        w->argv[w->argc++] = p;
    if (!w->argc) w->argv[w->argc++] = "cc";
}

/* Runs argv (NULL-terminated) with stdout+stderr appended to out. Returns the exit
 * status (128+signal if killed), or -1 with *spawn_err = errno if it could not start. */
static int run_capture(char *const *argv, StrBuf *out, int *spawn_err) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC)) {
        *spawn_err = errno;
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        *spawn_err = rc;
        return -1;
    }
    char buf[4096];
    for (;;) {
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n > 0) sb_printf(out, "%.*s", (int)n, buf);
        else if (n == 0 || errno != EINTR) break;
    }
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void not_found(StrBuf *sb, const char *cc) {
    sb_printf(sb, "C compiler '%s' not found: install gcc or set CC\n", cc);
}

/* ---- availability and toolchain id (cached per $CC) --------------------------------- */
typedef struct CcInfo {
    char cc[1024];
    int ok;
    char why[512];
    char id[1536];
} CcInfo;

static pthread_mutex_t cc_lock = PTHREAD_MUTEX_INITIALIZER;
static CcInfo cc_cache;

/* Full path of the program argv0 along $PATH (argv0 itself when it has a '/'). */
static void cc_path(const char *argv0, char *out, size_t n) {
    snprintf(out, n, "%s", argv0);
    if (strchr(argv0, '/')) return;
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        char cand[1024];
        snprintf(cand, sizeof cand, "%.*s/%s", (int)len, len ? path : ".", argv0);
        if (access(cand, X_OK) == 0) {
            snprintf(out, n, "%s", cand);
            return;
        }
        path = end ? end + 1 : NULL;
    }
}

static void cc_probe(CcInfo *ci) {
    CcWords w;
    cc_words(&w);
    snprintf(ci->cc, sizeof ci->cc, "%s", getenv("CC") && *getenv("CC") ? getenv("CC") : "cc");
    w.argv[w.argc] = "--version";
    w.argv[w.argc + 1] = NULL;
    StrBuf out = {0};
    int err = 0, rc = run_capture(w.argv, &out, &err);
    ci->ok = rc == 0;
    ci->why[0] = 0;
    if (rc < 0) {
        StrBuf m = {0};
        not_found(&m, w.argv[0]);
        snprintf(ci->why, sizeof ci->why, "%s", m.buf);
        sb_free(&m);
    } else if (rc) {
        snprintf(ci->why, sizeof ci->why, "'%.200s --version' failed (exit %d): %.250s", ci->cc, rc,
                 out.buf ? out.buf : "");
    }
    char path[1024];
    cc_path(w.argv[0], path, sizeof path);
    const char *first = out.buf ? out.buf : "";
    size_t flen = strcspn(first, "\n");
    StrBuf id = {0};
    sb_printf(&id, "%s | %.*s |", path, ci->ok ? (int)flen : 1, ci->ok ? first : "?");
    for (int i = 1; i < w.argc; i++) sb_printf(&id, " %s", w.argv[i]);
    for (int i = 0; i < N_C_FLAGS; i++) sb_printf(&id, " %s", c_flags[i]);
    sb_puts(&id, " -fopenmp -lm");
    snprintf(ci->id, sizeof ci->id, "%s", id.buf);
    sb_free(&id);
    sb_free(&out);
}

/* A copy of the cached probe for the current $CC. */
static CcInfo cc_info(void) {
    const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
    pthread_mutex_lock(&cc_lock);
    if (!cc_cache.cc[0] || strcmp(cc_cache.cc, cc)) cc_probe(&cc_cache);
    CcInfo copy = cc_cache;
    pthread_mutex_unlock(&cc_lock);
    return copy;
}

static int c_available(StrBuf *why) {
    CcInfo ci = cc_info();
    if (!ci.ok && why) sb_puts(why, ci.why);
    return ci.ok;
}

static const char *c_toolchain_id(Arena *a) {
    CcInfo ci = cc_info();
    return arena_strdup(a, ci.id);
}

/* ---- build ------------------------------------------------------------------------ */
static int write_all(int fd, const char *s, size_t n) {
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        s += k, n -= (size_t)k;
    }
    return 0;
}

/* One compiler run: cc [CC words] flags [-fopenmp] -o out src -lm. */
static int compile_once(const char *src, const char *out, bool openmp, StrBuf *log,
                        int *spawn_err) {
    CcWords w;
    cc_words(&w);
    char *argv[MAX_ARGV + 16];
    int n = 0;
    for (int i = 0; i < w.argc; i++) argv[n++] = w.argv[i];
    for (int i = 0; i < N_C_FLAGS; i++) argv[n++] = (char *)c_flags[i];
    if (openmp) argv[n++] = "-fopenmp";
    argv[n++] = "-o";
    argv[n++] = (char *)out;
    argv[n++] = (char *)src;
    argv[n++] = "-lm";
    argv[n] = NULL;
    return run_capture(argv, log, spawn_err);
}

/* Compiles src into out, retrying without OpenMP. 0 on success. */
static int compile_with_fallback(const char *src, const char *out, StrBuf *log) {
    CcWords w;
    cc_words(&w);
    int err = 0;
    StrBuf first = {0};
    int rc = compile_once(src, out, true, &first, &err);
    if (rc < 0) {
        not_found(log, w.argv[0]);
        sb_free(&first);
        return 1;
    }
    if (rc == 0) {
        sb_free(&first);
        return 0;
    }
    StrBuf second = {0};
    rc = compile_once(src, out, false, &second, &err);
    if (rc != 0) {
        sb_printf(log, "%s\n(retried without -fopenmp:)\n%s", first.buf ? first.buf : "",
                  second.buf ? second.buf : "");
    }
    sb_free(&first);
    sb_free(&second);
    return rc != 0;
}

static int c_build(const char *source, const Options *opt, const char *binary_path, StrBuf *log) {
    (void)opt; /* nothing the settings choose changes the C build */
    size_t n = strlen(binary_path);
    char *src = malloc(n + 16), *out = malloc(n + 16);
    if (!src || !out) {
        free(src), free(out);
        sb_puts(log, "out of memory\n");
        return 1;
    }
    snprintf(src, n + 16, "%s.XXXXXX.c", binary_path);
    int fd = mkstemps(src, 2), rc = 1;
    if (fd < 0) {
        sb_printf(log, "cannot create a file next to %s: %s\n", binary_path, strerror(errno));
        goto done_nofile;
    }
    snprintf(out, n + 16, "%.*s.so", (int)(strlen(src) - 2), src);
    int werr = write_all(fd, source, strlen(source));
    if (close(fd) || werr) {
        sb_printf(log, "cannot write %s: %s\n", src, strerror(errno));
        goto done;
    }
    if (compile_with_fallback(src, out, log)) goto done;
    if (rename(out, binary_path)) {
        sb_printf(log, "cannot rename %s to %s: %s\n", out, binary_path, strerror(errno));
        goto done;
    }
    rc = 0;
done:
    unlink(src);
    if (rc) unlink(out);
done_nofile:
    free(src);
    free(out);
    return rc;
}

/* ---- load and run ------------------------------------------------------------------ */
typedef int (*CEntry)(void *const *args, const int64_t *syms);

typedef struct CModule {
    void *dl;
    CEntry entry;
} CModule;

/* The OpenMP runtime keeps its worker threads after a parallel region; unloading it
 * with the last kernel would unmap the code they sleep in. Whatever runtime a module
 * pulled in is therefore pinned (RTLD_NOLOAD: only if already loaded; NODELETE: never
 * unloaded). The handles are deliberately kept. */
static void pin_openmp_runtime(void) {
    static const char *const names[] = {"libgomp.so.1", "libomp.so.5", "libomp.so", "libiomp5.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        (void)dlopen(names[i], RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

/* OpenMP runtimes spin-wait between parallel regions by default (libgomp: about 300k
 * spins per wait); where the process has other busy threads or the CPUs are shared,
 * kernels of a few microseconds then take milliseconds (a small add: 26 ms instead of
 * 0.03 ms). Unless the caller chose a policy (OMP_WAIT_POLICY, GOMP_SPINCOUNT,
 * KMP_BLOCKTIME) or an OpenMP runtime is already loaded (it has read its settings), the
 * first kernel load sets OMP_WAIT_POLICY=passive, before the runtime it pulls in starts. */
static void quiet_openmp_default(void) {
    static const char *const vars[] = {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return;
    static const char *const names[] = {"libgomp.so.1", "libomp.so.5", "libomp.so", "libiomp5.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD);
        if (h) {
            dlclose(h);
            return;
        }
    }
    setenv("OMP_WAIT_POLICY", "passive", 0);
}

static void *c_load(const char *binary_path, const Options *opt, StrBuf *err) {
    (void)opt;
    static pthread_once_t omp_once = PTHREAD_ONCE_INIT;
    pthread_once(&omp_once, quiet_openmp_default);
    void *dl = dlopen(binary_path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        sb_printf(err, "cannot load %s: %s", binary_path, dlerror());
        return NULL;
    }
    pin_openmp_runtime();
    void *sym = dlsym(dl, "tilec_entry");
    CModule *m = sym ? malloc(sizeof *m) : NULL;
    if (!m) {
        sb_printf(err, "cannot load %s: %s", binary_path, sym ? "out of memory" : dlerror());
        dlclose(dl);
        return NULL;
    }
    m->dl = dl;
    memcpy(&m->entry, &sym, sizeof sym); /* object pointer -> function pointer (POSIX) */
    return m;
}

static int c_launch(void *module, void *const *args, const int64_t *syms, void *stream,
                    StrBuf *err) {
    CModule *m = module;
    (void)stream;
    switch (m->entry(args, syms)) {
    case TL_C_OK: return 0;
    case TL_C_NOMEM:
        sb_puts(err, "out of memory: the kernel could not allocate its block "
                     "scratch or T.alloc_global memory");
        break;
    case TL_C_GRID:
        sb_puts(err, "the grid is too large: a dimension has more than 2^31 - 1 "
                     "blocks (the message is on stderr)");
        break;
    default: sb_puts(err, "T.device_assert failed (the message is on stderr)");
    }
    return 1;
}

static void c_unload(void *module) {
    CModule *m = module;
    if (!m) return;
    dlclose(m->dl);
    free(m);
}

const Target target_c = {
    .name = "c",
    .source_ext = ".c",
    .binary_ext = ".so",
    .available = c_available,
    .toolchain_id = c_toolchain_id,
    .lower = c_lower,
    .emit = emit_c,
    .build = c_build,
    .load = c_load,
    .launch = c_launch,
    .unload = c_unload,
    .reference = true,
};
