/* base.c - arena, string builder, error reporting. */
#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------------------ */
struct ArenaChunk {
    ArenaChunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

enum { ARENA_CHUNK = 64 * 1024 };

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p) tl_internal_error(__FILE__, __LINE__, "out of memory");
    return p;
}

void *arena_alloc(Arena *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    ArenaChunk *c = a->head;
    if (!c || c->used + size > c->size) {
        size_t cap = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;
        c = xmalloc(sizeof(ArenaChunk) + cap);
        c->used = 0;
        c->size = cap;
        if (size > ARENA_CHUNK / 4 && a->head) { /* big block: keep filling the current chunk */
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

void *arena_realloc(Arena *a, void *old, size_t old_size, size_t new_size) {
    void *p = arena_alloc(a, new_size);
    if (old && old_size) memcpy(p, old, old_size < new_size ? old_size : new_size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void arena_free(Arena *a) {
    ArenaChunk *c = a->head;
    while (c) {
        ArenaChunk *n = c->next;
        free(c);
        c = n;
    }
    a->head = NULL;
}

/* ---- string builder --------------------------------------------------------------- */
static void sb_reserve(StrBuf *sb, size_t extra) {
    if (sb->len + extra + 1 <= sb->cap) return;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + extra + 1) cap *= 2;
    char *p = realloc(sb->buf, cap);
    if (!p) tl_internal_error(__FILE__, __LINE__, "out of memory");
    sb->buf = p;
    sb->cap = cap;
}

void sb_putc(StrBuf *sb, char c) {
    sb_reserve(sb, 1);
    sb->buf[sb->len++] = c;
    sb->buf[sb->len] = 0;
}

void sb_puts(StrBuf *sb, const char *s) {
    size_t n = strlen(s);
    sb_reserve(sb, n);
    memcpy(sb->buf + sb->len, s, n + 1);
    sb->len += n;
}

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    sb_reserve(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    sb->len += (size_t)n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

void sb_indent(StrBuf *sb, int level) {
    for (int i = 0; i < level; i++) sb_puts(sb, "    ");
}

void sb_json_str(StrBuf *sb, const char *s) {
    if (!s) {
        sb_puts(sb, "null");
        return;
    }
    sb_putc(sb, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') sb_printf(sb, "\\%c", *p);
        else if (*p < 0x20) sb_printf(sb, "\\u%04x", *p);
        else sb_putc(sb, (char)*p);
    }
    sb_putc(sb, '"');
}

void sb_free(StrBuf *sb) {
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

/* ---- errors ----------------------------------------------------------------------- */
void loc_format(StrBuf *sb, Loc loc, const char *kind, const char *msg) {
    if (!loc.src) {
        sb_printf(sb, "%s: %s\n", kind, msg);
        return;
    }
    sb_printf(sb, "%s:%d:%d: %s: %s\n", loc.src->name, loc.line, loc.col, kind, msg);
    /* find the line */
    const char *p = loc.src->text, *end = p + loc.src->len;
    for (int l = 1; l < loc.line && p < end; p++)
        if (*p == '\n') l++;
    if (p >= end && loc.line > 1) return;
    const char *e = p;
    while (e < end && *e != '\n') e++;
    sb_puts(sb, "    ");
    for (const char *q = p; q < e; q++) sb_putc(sb, *q == '\t' ? ' ' : *q);
    sb_puts(sb, "\n    ");
    for (int c = 1; c < loc.col && p + c - 1 < e; c++) sb_putc(sb, ' ');
    sb_puts(sb, "^\n");
}

_Noreturn void ctx_vfail(Ctx *ctx, Loc loc, const char *fmt, va_list ap) {
    StrBuf msg = {0};
    sb_vprintf(&msg, fmt, ap);
    StrBuf full = {0};
    loc_format(&full, loc, "error", msg.buf);
    if (ctx->err.len) sb_puts(&full, ctx->err.buf); /* notes recorded before the error */
    sb_free(&ctx->err);
    ctx->err = full;
    sb_free(&msg);
    if (!ctx->on_error)
        ctx_internal(NULL, "internal error: ctx_fail outside CTX_TRY: %s", ctx->err.buf);
    longjmp(*ctx->on_error, 1);
}

_Noreturn void ctx_fail(Ctx *ctx, Loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ctx_vfail(ctx, loc, fmt, ap);
}

_Noreturn void ctx_fail_noloc(Ctx *ctx, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Loc none = {0};
    ctx_vfail(ctx, none, fmt, ap);
}

void ctx_note(Ctx *ctx, Loc loc, const char *fmt, ...) {
    StrBuf msg = {0};
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&msg, fmt, ap);
    va_end(ap);
    loc_format(&ctx->err, loc, "note", msg.buf);
    sb_free(&msg);
}

jmp_buf *ctx_arm(Ctx *ctx, jmp_buf *jbp) {
    ctx->on_error = jbp;
    return jbp;
}

static _Thread_local Ctx *guarded;

Ctx *ctx_guard(Ctx *ctx) {
    Ctx *old = guarded;
    guarded = ctx;
    return old;
}

_Noreturn void ctx_internal(Ctx *ctx, const char *fmt, ...) {
    char msg[1024]; /* no heap: this may report that there is none left */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!ctx || !ctx->on_error) {
        fprintf(stderr, "tilec: %s\n", msg);
        abort(); /* not under the API: nowhere to report it */
    }
    ctx->internal = true;
    sb_free(&ctx->err);
    ctx->err.buf = malloc(strlen(msg) + 9);
    if (ctx->err.buf) {
        ctx->err.len = (size_t)sprintf(ctx->err.buf, "error: %s\n", msg);
        ctx->err.cap = ctx->err.len + 1;
    }
    longjmp(*ctx->on_error, 1);
}

_Noreturn void tl_internal_error(const char *file, int line, const char *what) {
    if (!strcmp(what, "out of memory")) ctx_internal(guarded, "out of memory");
    ctx_internal(guarded, "internal error at %s:%d: %s (please report it)", file, line, what);
}

char *read_file_arena(Arena *a, const char *path, size_t max, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    StrBuf sb = {0};
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (n > max - sb.len) { /* /dev/zero, a huge file: stop at the limit */
            fclose(f);
            sb_free(&sb);
            errno = EFBIG;
            return NULL;
        }
        sb_reserve(&sb, n);
        memcpy(sb.buf + sb.len, buf, n);
        sb.len += n;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        sb_free(&sb);
        errno = EIO;
        return NULL;
    }
    char *p = arena_strndup(a, sb.buf ? sb.buf : "", sb.len);
    if (len) *len = sb.len;
    sb_free(&sb);
    return p;
}

/* ---- identifiers of C source ---------------------------------------------------------- */
static bool ident_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

/* The end of the literal opened by the quote at p (past its closing quote, or the end). */
static const char *skip_literal(const char *p) {
    char q = *p++;
    while (*p && *p != q && *p != '\n') p += *p == '\\' && p[1] ? 2 : 1;
    return *p == q ? p + 1 : p;
}

void c_source_idents(const char *text, CIdentFn fn, void *ud) {
    const char *p = text ? text : "";
    while (*p) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            p = end ? end + 2 : p + strlen(p);
        } else if (*p == '"' || *p == '\'') {
            p = skip_literal(p);
        } else if (ident_start(*p)) {
            const char *s = p;
            while (ident_char(*p)) p++;
            if (!fn(ud, s, (size_t)(p - s))) return;
        } else if (*p >= '0' && *p <= '9') { /* a number, suffixes and exponents included */
            while (ident_char(*p) || *p == '.') p++;
        } else {
            p++;
        }
    }
}
