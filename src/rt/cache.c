/* cache.c - the disk cache of built kernels.
 *
 * An entry is one file "<dir>/<key>.<target><binary_ext>.entry", key = XXH3-128 of
 * everything that decides the binary (cache_key: the source, the target, its toolchain,
 * the settings of options_key): a text header naming the format, the
 * key, the target, the binary's size and its XXH3-128, then the binary. Entries are
 * written atomically (temporary file, then rename) and verified before every use: a
 * reader copies the checked bytes into a fresh private file and loads that, so what runs
 * is what was hashed. An entry that fails the check (truncated, bit flips, another
 * kernel's binary) is deleted and rebuilt with one warning.
 *
 * The directory must be private: it is created 0700, and before use it must be owned by
 * this user and writable by no one else (a planted folder in /tmp is refused), since a
 * binary in it is code this process runs.
 * Nothing here keeps state between calls: two threads or processes may share a dir. */
#include "rt/rt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

/* The home directory of this user from the password database (HOME unset), or NULL. */
static const char *passwd_home(void) {
    static _Thread_local char buf[4096];
    struct passwd pw, *res = NULL;
    if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &res) != 0 || !res || !res->pw_dir ||
        !*res->pw_dir)
        return NULL;
    return res->pw_dir;
}

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
    } else if ((env = passwd_home()) != NULL) {
        sb_printf(out, "%s/.cache/tilec", env);
    } else { /* checked like any other: private, ours (cache_dir_check) */
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

void cache_key(const char *source, const char *target, const char *toolchain, const char *settings,
               char hex[33]) {
    XXH3_state_t *st = XXH3_createState();
    TL_ASSERT(st);
    XXH3_128bits_reset(st);
    hash_field(st, source);
    hash_field(st, target);
    hash_field(st, toolchain ? toolchain : "");
    hash_field(st, settings ? settings : "");
    hash_field(st, TILEC_VERSION);
    hash_field(st, RT_CACHE_FORMAT);
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
    XXH3_freeState(st);
    for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", c.digest[i]);
}

int cache_entry_name(const char *name) {
    for (int i = 0; i < 32; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f'))) return 0;
    if (name[32] != '.' || !name[33]) return 0;
    for (const char *p = name + 33; *p; p++)
        if (!(strchr("._-", *p) || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z')))
            return 0;
    return 1;
}

int rt_mkdir_p(const char *path, int mode, StrBuf *err) {
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
        if (mkdir(p, (mode_t)mode) != 0 && errno != EEXIST) rc = -1;
        else if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) rc = -1, errno = ENOTDIR;
        if (rc && i == n) sb_printf(err, "cannot create directory '%s': %s", path, strerror(errno));
        else if (rc)
            sb_printf(err, "cannot create directory '%s': '%s': %s", path, p, strerror(errno));
        p[i] = c;
    }
    free(p);
    return rc;
}

#define CACHE_HINT "(set TILEC_CACHE_DIR to a private directory of yours, or TILEC_NO_CACHE=1)"

int cache_dir_check(const char *dir, StrBuf *err) {
    StrBuf why = {0};
    if (rt_mkdir_p(dir, 0700, &why) != 0) {
        sb_printf(err, "kernel cache: %s\n" CACHE_HINT, why.buf);
        sb_free(&why);
        return -1;
    }
    struct stat st;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        sb_printf(err, "kernel cache: cannot open '%s': %s\n" CACHE_HINT, dir, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    close(fd);
    if (st.st_uid != geteuid()) {
        sb_printf(err,
                  "kernel cache: '%s' belongs to user %ld, not to you (%ld): refusing to "
                  "load kernels from it\n" CACHE_HINT,
                  dir, (long)st.st_uid, (long)geteuid());
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        sb_printf(err,
                  "kernel cache: '%s' is writable by other users (mode %03o): refusing "
                  "to load kernels from it (chmod 700 it)\n" CACHE_HINT,
                  dir, (unsigned)(st.st_mode & 0777));
        return -1;
    }
    return 0;
}

/* ---- entries -------------------------------------------------------------------------- */
enum { HEADER_MAX = 512 };
#define ENTRY_MAGIC "tilec cache entry 1\n"

static void hash_hex(const void *p, size_t n, char hex[33]) {
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(p, n));
    for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", c.digest[i]);
}

static void entry_header(StrBuf *sb, const char *key, const Target *t, const void *bin, size_t n) {
    char hex[33];
    hash_hex(bin, n, hex);
    sb_printf(sb, ENTRY_MAGIC "key %s\ntarget %s\nsize %zu\nxxh3 %s\n\n", key, t->name, n, hex);
}

/* Reads a whole regular file (at most max bytes) into *out (malloc). 0, else -1 with
 * errno set (EFBIG when larger). */
static int slurp(const char *path, size_t max, unsigned char **out, size_t *n) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    *out = NULL;
    if (fd < 0) return -1;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
        close(fd);
        errno = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
        return -1;
    }
    unsigned char *p = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    ssize_t k = 1;
    while (p && got < (size_t)st.st_size && (k = read(fd, p + got, (size_t)st.st_size - got)) > 0)
        got += (size_t)k;
    close(fd);
    if (!p || k < 0) {
        free(p);
        errno = p ? EIO : ENOMEM;
        return -1;
    }
    *out = p, *n = got;
    return 0;
}

/* Checks an entry's bytes against key and target: 0 with the binary's offset in *off,
 * else -1 with the reason in why. */
static int entry_verify(const unsigned char *e, size_t n, const char *key, const Target *t,
                        size_t *off, StrBuf *why) {
    const unsigned char *end = n > 2 ? memmem(e, n < HEADER_MAX ? n : HEADER_MAX, "\n\n", 2) : NULL;
    size_t magic = strlen(ENTRY_MAGIC);
    if (n < magic || memcmp(e, ENTRY_MAGIC, magic) != 0 || !end) {
        sb_puts(why, "not a tilec cache entry");
        return -1;
    }
    char k[40] = "", tn[40] = "", hex[40] = "";
    size_t size = 0;
    StrBuf hdr = {0};
    for (const unsigned char *c = e; c < end; c++) sb_putc(&hdr, (char)*c);
    int ok = sscanf(hdr.buf + magic, "key %39s target %39s size %zu xxh3 %39s", k, tn, &size,
                    hex) == 4;
    sb_free(&hdr);
    *off = (size_t)(end - e) + 2;
    char got[33];
    if (!ok) sb_puts(why, "malformed header");
    else if (strcmp(k, key) || strcmp(tn, t->name))
        sb_puts(why, "it holds another kernel (its header names another key or target)");
    else if (n - *off != size)
        sb_printf(why, "truncated or extended: %zu bytes of binary, the header says %zu", n - *off,
                  size);
    else if (hash_hex(e + *off, size, got), strcmp(got, hex))
        sb_puts(why, "its contents do not match the hash recorded when it was written");
    else return 0;
    return -1;
}

/* Writes n bytes into a new file path-template (mkstemps, suffix length sfx). 0 or -1. */
static int write_new(char *tmpl, int sfx, const void *a, size_t an, const void *b, size_t bn) {
    int fd = mkstemps(tmpl, sfx);
    if (fd < 0) return -1;
    int bad = 0;
    const void *parts[2] = {a, b};
    size_t lens[2] = {an, bn};
    for (int i = 0; i < 2 && !bad; i++)
        for (const char *p = parts[i]; lens[i] && !bad;) {
            ssize_t k = write(fd, p, lens[i]);
            if (k < 0 && errno == EINTR) continue;
            bad = k <= 0;
            if (!bad) p += k, lens[i] -= (size_t)k;
        }
    bad |= close(fd) != 0;
    if (bad) unlink(tmpl);
    return bad ? -1 : 0;
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

static tl_status load_file(const Target *t, const Options *o, const char *path, void **module,
                           StrBuf *err) {
    StrBuf why = {0};
    *module = t->load(path, o, &why);
    if (!*module)
        sb_printf(err, "cannot load the built kernel '%s': %s", path,
                  why.buf ? why.buf : "unknown reason");
    sb_free(&why);
    return *module ? TL_OK : TL_ERROR_TOOLCHAIN;
}

/* Builds source into path; then loads it into *module, unless module is NULL (build
 * only: the binary stays at path). */
static tl_status build_and_load(const Target *t, const Options *o, const char *source,
                                const char *path, void **module, StrBuf *err) {
    StrBuf log = {0};
    if (t->build(source, o, path, &log) != 0) {
        sb_printf(err, "the '%s' target failed to build the generated kernel", t->name);
        append_log(err, &log);
        sb_free(&log);
        unlink(path); /* in case a target left something behind */
        return TL_ERROR_TOOLCHAIN;
    }
    sb_free(&log);
    return module ? load_file(t, o, path, module, err) : TL_OK;
}

static tl_status build_private(const Target *t, const Options *o, const char *source, void **module,
                               StrBuf *err) {
    const char *tmp = getenv("TMPDIR");
    StrBuf dir = {0}, path = {0};
    sb_printf(&dir, "%s/tilec-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir.buf)) {
        sb_printf(err, "cannot create a temporary directory '%s': %s", dir.buf, strerror(errno));
        sb_free(&dir);
        return TL_ERROR_IO;
    }
    sb_printf(&path, "%s/kernel.%s%s", dir.buf, t->name, t->binary_ext);
    tl_status st = build_and_load(t, o, source, path.buf, module, err);
    unlink(path.buf); /* a loaded module does not need its file any more */
    rmdir(dir.buf);
    sb_free(&dir);
    sb_free(&path);
    return st;
}

/* A private file "<dir>/<key>.<target>.<what>-XXXXXX<ext>" holding bytes (NULL: empty,
 * a name reserved for a build); its path in out. 0, else -1 with err set. */
static int scratch_file(const Target *t, const char *dir, const char *key, const char *what,
                        const void *bytes, size_t n, StrBuf *out, StrBuf *err) {
    out->len = 0;
    sb_printf(out, "%s/%s.%s.%s-XXXXXX%s", dir, key, t->name, what, t->binary_ext);
    if (write_new(out->buf, (int)strlen(t->binary_ext), bytes, n, NULL, 0) == 0) return 0;
    sb_printf(err, "cannot write to the kernel cache directory '%s': %s\n" CACHE_HINT, dir,
              strerror(errno));
    return -1;
}

/* Loads a verified entry's binary from a fresh private copy (what was hashed is what
 * runs, whatever happens to the entry meanwhile). */
static tl_status load_bytes(const Target *t, const Options *o, const char *dir, const char *key,
                            const unsigned char *bin, size_t n, void **module, StrBuf *err) {
    StrBuf copy = {0};
    tl_status st = TL_ERROR_IO;
    if (scratch_file(t, dir, key, "load", bin, n, &copy, err) == 0) {
        st = load_file(t, o, copy.buf, module, err);
        unlink(copy.buf);
    }
    sb_free(&copy);
    return st;
}

/* Uses the entry at path: TL_OK when it was verified (and loaded, if module), -1 when
 * there is none or it was bad (deleted, with one warning), else a failure status. */
static int entry_use(const Target *t, const Options *o, const char *dir, const char *key,
                     const char *path, void **module, StrBuf *warn, StrBuf *err) {
    unsigned char *e;
    size_t n = 0, off = 0;
    StrBuf why = {0};
    if (slurp(path, (size_t)1 << 30, &e, &n) != 0) {
        if (errno == ENOENT) return -1;
        sb_printf(&why, "%s", errno == EINVAL ? "not a regular file" : strerror(errno));
    } else if (entry_verify(e, n, key, t, &off, &why) == 0) {
        int st = module ? (int)load_bytes(t, o, dir, key, e + off, n - off, module, err) : TL_OK;
        free(e);
        return st;
    }
    free(e);
    sb_printf(warn, "warning: kernel cache: entry '%s' is bad (%s); rebuilt it\n", path, why.buf);
    sb_free(&why);
    unlink(path);
    return -1;
}

/* Builds into a scratch file, records it as the entry at path (atomically), then loads
 * the scratch file if module. */
static tl_status entry_build(const Target *t, const Options *o, const char *source, const char *dir,
                             const char *key, const char *path, void **module, StrBuf *err) {
    StrBuf bin = {0}, hdr = {0}, tmp = {0};
    unsigned char *bytes = NULL;
    size_t n = 0;
    if (scratch_file(t, dir, key, "new", NULL, 0, &bin, err) != 0) return TL_ERROR_IO;
    tl_status st = build_and_load(t, o, source, bin.buf, NULL, err);
    if (st == TL_OK && slurp(bin.buf, (size_t)1 << 30, &bytes, &n) != 0) {
        sb_printf(err, "cannot read the built kernel '%s': %s", bin.buf, strerror(errno));
        st = TL_ERROR_IO;
    }
    if (st == TL_OK) {
        entry_header(&hdr, key, t, bytes, n);
        sb_printf(&tmp, "%s.tmp-XXXXXX", path);
        if (write_new(tmp.buf, 0, hdr.buf, hdr.len, bytes, n) != 0 || rename(tmp.buf, path)) {
            sb_printf(err, "cannot write to the kernel cache directory '%s': %s\n" CACHE_HINT, dir,
                      strerror(errno));
            unlink(tmp.buf);
            st = TL_ERROR_IO;
        }
    }
    if (st == TL_OK && module) st = load_file(t, o, bin.buf, module, err);
    unlink(bin.buf);
    free(bytes);
    sb_free(&bin), sb_free(&hdr), sb_free(&tmp);
    return st;
}

/* cache_load_or_build, and cache_build when module is NULL. */
static tl_status cache_get(const Target *t, const Options *o, const char *source, const char *dir,
                           void **module, StrBuf *warn, StrBuf *err) {
    if (module) *module = NULL;
    if (!dir) return build_private(t, o, source, module, err);
    if (cache_dir_check(dir, err) != 0) return TL_ERROR_IO;
    Arena a = {0};
    char key[33];
    char *settings = options_key(o);
    cache_key(source, t->name, t->toolchain_id(&a), settings, key);
    free(settings);
    arena_free(&a);
    StrBuf path = {0};
    sb_printf(&path, "%s/%s.%s%s.entry", dir, key, t->name, t->binary_ext);
    int st = entry_use(t, o, dir, key, path.buf, module, warn, err);
    if (st < 0) st = entry_build(t, o, source, dir, key, path.buf, module, err);
    sb_free(&path);
    return (tl_status)st;
}

tl_status cache_load_or_build(const Target *t, const Options *o, const char *source,
                              const char *dir, void **module, StrBuf *warn, StrBuf *err) {
    TL_ASSERT(module);
    return cache_get(t, o, source, dir, module, warn, err);
}

tl_status cache_build(const Target *t, const Options *o, const char *source, const char *dir,
                      StrBuf *warn, StrBuf *err) {
    return cache_get(t, o, source, dir, NULL, warn, err);
}

tl_status cache_clear_dir(const char *dir, int *nremoved, StrBuf *err) {
    if (nremoved) *nremoved = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) return TL_OK; /* nothing cached yet */
        sb_printf(err, "cannot read the cache directory '%s': %s", dir, strerror(errno));
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
