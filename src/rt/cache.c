/* cache.c - the disk cache of built kernels.
 *
 * An entry is one file "<dir>/<key>.<target><binary_ext>", key = XXH3-128 of everything
 * that decides the binary (cache_key). Targets build atomically (temporary file, then
 * rename), so a reader sees a whole file or none; a file that fails to load anyway
 * (truncated by a crash of an older version, disk corruption) is deleted and rebuilt.
 * Nothing here keeps state between calls: two threads or processes may share a dir. */
#include "rt/rt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

void cache_dir_resolve(const char *dir, StrBuf *out) {
    const char *env;
    out->len = 0;
    sb_puts(out, "");
    if (dir && *dir) {
        sb_puts(out, dir);
    } else if ((env = getenv("TILEC_CACHE_DIR")) && *env) {
        sb_puts(out, env);
    } else if ((env = getenv("XDG_CACHE_HOME")) && *env) {
        sb_printf(out, "%s/tilec", env);
    } else if ((env = getenv("HOME")) && *env) {
        sb_printf(out, "%s/.cache/tilec", env);
    } else {
        sb_printf(out, "/tmp/tilec-cache-%ld", (long)getuid());
    }
}

int cache_disabled(int use_cache) {
    const char *env = getenv("TILEC_NO_CACHE");
    return !use_cache || (env && *env && strcmp(env, "0") != 0);
}

static void hash_field(XXH3_state_t *st, const char *s) {
    uint64_t n = strlen(s);
    XXH3_128bits_update(st, &n, sizeof n);
    XXH3_128bits_update(st, s, n);
}

void cache_key(const char *source, const char *target, const char *toolchain, char hex[33]) {
    XXH3_state_t *st = XXH3_createState();
    TL_ASSERT(st);
    XXH3_128bits_reset(st);
    hash_field(st, source);
    hash_field(st, target);
    hash_field(st, toolchain ? toolchain : "");
    hash_field(st, TILEC_VERSION);
    hash_field(st, RT_CACHE_FORMAT);
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
    XXH3_freeState(st);
    for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", c.digest[i]);
}

int cache_entry_name(const char *name) {
    for (int i = 0; i < 32; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return 0;
    if (name[32] != '.' || !name[33]) return 0;
    for (const char *p = name + 33; *p; p++)
        if (!(strchr("._-", *p) || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z')))
            return 0;
    return 1;
}

int rt_mkdir_p(const char *path, StrBuf *err) {
    size_t n = strlen(path);
    char *p = malloc(n + 1);
    TL_ASSERT(p);
    memcpy(p, path, n + 1);
    int rc = 0;
    for (size_t i = 1; i <= n && rc == 0; i++) {
        if (p[i] != '/' && p[i] != 0) continue;
        char c = p[i];
        p[i] = 0;
        struct stat st;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) rc = -1;
        else if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) rc = -1, errno = ENOTDIR;
        if (rc && i == n) sb_printf(err, "cannot create directory '%s': %s", path,
                                    strerror(errno));
        else if (rc) sb_printf(err, "cannot create directory '%s': '%s': %s", path, p,
                               strerror(errno));
        p[i] = c;
    }
    free(p);
    return rc;
}

/* The directory exists and a file can be created in it (a read-only or full cache dir
 * gives this clear message instead of a compiler's "cannot open output file"). */
static int dir_writable(const char *dir, StrBuf *err) {
    StrBuf why = {0};
    if (rt_mkdir_p(dir, &why) != 0) {
        sb_printf(err, "kernel cache: %s\n(set TILEC_CACHE_DIR to a writable directory, or "
                  "TILEC_NO_CACHE=1)", why.buf);
        sb_free(&why);
        return -1;
    }
    StrBuf probe = {0};
    sb_printf(&probe, "%s/.tilec-probe-XXXXXX", dir);
    int fd = mkstemp(probe.buf);
    int rc = 0;
    if (fd < 0 || write(fd, "x", 1) != 1) {
        sb_printf(err, "cannot write to the kernel cache directory '%s': %s\n"
                  "(set TILEC_CACHE_DIR to a writable directory, or TILEC_NO_CACHE=1)",
                  dir, strerror(errno));
        rc = -1;
    }
    if (fd >= 0) close(fd), unlink(probe.buf);
    sb_free(&probe);
    return rc;
}

/* A compiler log can be long: keep its first lines. */
static void append_log(StrBuf *err, const StrBuf *log) {
    enum { MAX_LINES = 40, MAX_CHARS = 6000 };
    if (!log->len) return;
    const char *p = log->buf;
    int lines = 0;
    while (*p && lines < MAX_LINES && p - log->buf < MAX_CHARS) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        sb_printf(err, "\n%.*s", (int)n, p);
        p += n + (e != NULL);
        lines++;
    }
    if (*p) {
        int rest = 0;
        for (const char *q = p; *q; q++) rest += *q == '\n';
        sb_printf(err, "\n... (%d more lines of compiler output)", rest + 1);
    }
}

/* Builds source into path; then loads it into *module, unless module is NULL (build
 * only: the binary stays at path). */
static tl_status build_and_load(const Target *t, const char *source, const char *path,
                                void **module, StrBuf *err) {
    StrBuf log = {0};
    if (t->build(source, path, &log) != 0) {
        sb_printf(err, "the '%s' target failed to build the generated kernel", t->name);
        append_log(err, &log);
        sb_free(&log);
        unlink(path); /* in case a target left something behind */
        return TL_ERROR_TOOLCHAIN;
    }
    sb_free(&log);
    if (!module) return TL_OK;
    StrBuf why = {0};
    *module = t->load(path, &why);
    if (!*module) {
        sb_printf(err, "cannot load the built kernel '%s': %s", path,
                  why.buf ? why.buf : "unknown reason");
        sb_free(&why);
        return TL_ERROR_TOOLCHAIN;
    }
    sb_free(&why);
    return TL_OK;
}

static tl_status build_private(const Target *t, const char *source, void **module,
                               StrBuf *err) {
    const char *tmp = getenv("TMPDIR");
    StrBuf dir = {0}, path = {0};
    sb_printf(&dir, "%s/tilec-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir.buf)) {
        sb_printf(err, "cannot create a temporary directory '%s': %s", dir.buf,
                  strerror(errno));
        sb_free(&dir);
        return TL_ERROR_IO;
    }
    sb_printf(&path, "%s/kernel.%s%s", dir.buf, t->name, t->binary_ext);
    tl_status st = build_and_load(t, source, path.buf, module, err);
    unlink(path.buf); /* a loaded module does not need its file any more */
    rmdir(dir.buf);
    sb_free(&dir);
    sb_free(&path);
    return st;
}

/* cache_load_or_build, and cache_build when module is NULL. */
static tl_status cache_get(const Target *t, const char *source, const char *dir,
                           void **module, StrBuf *err) {
    if (module) *module = NULL;
    if (!dir) return build_private(t, source, module, err);
    Arena a = {0};
    char key[33];
    cache_key(source, t->name, t->toolchain_id(&a), key);
    arena_free(&a);
    StrBuf path = {0};
    sb_printf(&path, "%s/%s.%s%s", dir, key, t->name, t->binary_ext);
    tl_status st = TL_OK;
    if (access(path.buf, F_OK) == 0) {
        if (!module) goto done; /* built before; it is loaded (and checked) when it runs */
        StrBuf why = {0};
        *module = t->load(path.buf, &why);
        sb_free(&why);
        if (*module) goto done;
        unlink(path.buf); /* corrupt entry: rebuild it */
    }
    if (dir_writable(dir, err) != 0) {
        st = TL_ERROR_IO;
        goto done;
    }
    st = build_and_load(t, source, path.buf, module, err);
done:
    sb_free(&path);
    return st;
}

tl_status cache_load_or_build(const Target *t, const char *source, const char *dir,
                              void **module, StrBuf *err) {
    TL_ASSERT(module);
    return cache_get(t, source, dir, module, err);
}

tl_status cache_build(const Target *t, const char *source, const char *dir, StrBuf *err) {
    return cache_get(t, source, dir, NULL, err);
}

tl_status cache_clear_dir(const char *dir, int *nremoved, StrBuf *err) {
    if (nremoved) *nremoved = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) return TL_OK; /* nothing cached yet */
        sb_printf(err, "cannot read the cache directory '%s': %s", dir,
                  strerror(errno));
        return TL_ERROR_IO;
    }
    tl_status st = TL_OK;
    struct dirent *e;
    StrBuf path = {0};
    while ((e = readdir(d))) {
        if (!cache_entry_name(e->d_name)) continue;
        path.len = 0;
        sb_printf(&path, "%s/%s", dir, e->d_name);
        if (unlink(path.buf) == 0) {
            if (nremoved) (*nremoved)++;
        } else if (errno != ENOENT && st == TL_OK) {
            sb_printf(err, "cannot remove '%s': %s", path.buf, strerror(errno));
            st = TL_ERROR_IO;
        }
    }
    closedir(d);
    sb_free(&path);
    return st;
}
