/* base.h - arena memory, growable arrays, string builder, source locations and
 * user-error reporting shared by every part of the compiler.
 *
 * Contract: all compiler data of one compilation lives in one Arena (freed once).
 * A user error calls ctx_fail(), which formats "file:line:col: error: msg", the
 * source line and a caret into ctx->err, and longjmps to the API boundary that
 * called ctx_try(). Nothing here exits or aborts on user error. */
#ifndef TILEC_BASE_H
#define TILEC_BASE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/options.h"

/* ---- arena ------------------------------------------------------------------------ */
typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
    ArenaChunk *head;
} Arena;

void *arena_alloc(Arena *a, size_t size); /* zeroed, 16-byte aligned */
void *arena_realloc(Arena *a, void *old, size_t old_size, size_t new_size);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free(Arena *a);

#define NEW(arena, T) ((T *)arena_alloc((arena), sizeof(T)))
#define NEW_ARRAY(arena, T, n) ((T *)arena_alloc((arena), sizeof(T) * (size_t)(n)))

/* ---- growable array in an arena: Vec(T) v = {0}; VEC_PUSH(arena, v, x); ---------- */
#define Vec(T)                                                                                     \
    struct {                                                                                       \
        T *data;                                                                                   \
        int len, cap;                                                                              \
    }
#define VEC_PUSH(arena, v, x)                                                                      \
    do {                                                                                           \
        if ((v).len == (v).cap) {                                                                  \
            int ncap_ = (v).cap ? 2 * (v).cap : 8;                                                 \
            (v).data = arena_realloc((arena), (v).data, sizeof(*(v).data) * (v).cap,               \
                                     sizeof(*(v).data) * ncap_);                                   \
            (v).cap = ncap_;                                                                       \
        }                                                                                          \
        (v).data[(v).len++] = (x);                                                                 \
    } while (0)

/* ---- string builder (heap; caller frees sb.buf or hands it to an arena) ------------ */
typedef struct StrBuf {
    char *buf;
    size_t len, cap;
} StrBuf;

void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
void sb_indent(StrBuf *sb, int level); /* 4 spaces per level */
/* s as a JSON string literal (quotes, escapes); `null` when s is NULL. Bytes >= 0x80
 * pass through: s is UTF-8. */
void sb_json_str(StrBuf *sb, const char *s);
void sb_free(StrBuf *sb);

/* ---- sources and locations ---------------------------------------------------------- */
typedef struct Source {
    const char *name; /* file name as the user gave it */
    const char *text; /* NUL-terminated */
    size_t len;
} Source;

typedef struct Loc {
    const Source *src; /* NULL for locations that come from no file */
    int line, col;     /* 1-based */
} Loc;

/* ---- compilation context ------------------------------------------------------------ */
typedef struct Ctx {
    Arena arena;
    jmp_buf *on_error;       /* set by CTX_TRY */
    StrBuf err;              /* formatted error text of the last failure */
    int next_id;             /* unique ids for vars and buffers */
    bool internal;           /* the failure was an internal error (TL_ERROR_INTERNAL) */
    struct PassHook *passes; /* what pass_run does besides running passes (passes.h:
                                IR dumps, listing the pipeline), or NULL */
    Options opts;            /* the compilation's settings (options.h); zero: the defaults */
} Ctx;

/* Report a user error at loc and unwind to the innermost ctx_try. */
_Noreturn void ctx_fail(Ctx *ctx, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
_Noreturn void ctx_vfail(Ctx *ctx, Loc loc, const char *fmt, va_list ap);
/* Report an error without a source location ("error: msg"). */
_Noreturn void ctx_fail_noloc(Ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append a note ("file:line:col: note: msg" + source line) to ctx->err; used before ctx_fail
 * when an error involves two places (e.g. conflicting layouts). */
void ctx_note(Ctx *ctx, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Format "file:line:col: KIND: msg\n<source line>\n<caret>\n" into sb. */
void loc_format(StrBuf *sb, Loc loc, const char *kind, const char *msg);

/* Usage:   jmp_buf jb; if (CTX_TRY(ctx, &jb)) { ...error in ctx->err... } else { work; }
 * Only as the whole controlling expression of an if (C11 7.13.1.1: where setjmp may
 * appear); ctx_arm sets ctx->on_error and returns jbp. -- see api.c */
#define CTX_TRY(ctx, jbp) setjmp(*ctx_arm((ctx), (jbp)))
jmp_buf *ctx_arm(Ctx *ctx, jmp_buf *jbp);

/* Internal invariant: never a user error. */
#define TL_ASSERT(cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) tl_internal_error(__FILE__, __LINE__, #cond);                                 \
    } while (0)
/* An internal error (or running out of memory) unwinds like ctx_fail to the innermost
 * CTX_TRY of the ctx this thread guards (ctx_guard), with ctx->internal set, so that the
 * API returns TL_ERROR_INTERNAL; with no guarded ctx it prints and aborts (a bug in a
 * caller outside the API). */
_Noreturn void tl_internal_error(const char *file, int line, const char *what);
_Noreturn void ctx_internal(Ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Makes ctx the one this thread's internal errors unwind (NULL: none); returns the
 * previous one, to restore. */
Ctx *ctx_guard(Ctx *ctx);

/* Read a whole file of at most max bytes into the arena. Returns NULL and sets errno on
 * failure (EFBIG: the file has more than max bytes, or never ends, like /dev/zero). */
char *read_file_arena(Arena *a, const char *path, size_t max, size_t *len);
/* The largest kernel source file (or module it imports) read. */
enum { TL_MAX_SOURCE_BYTES = 16 << 20 };

/* Calls fn(ud, start, len) for each identifier of C or C++ source text (outside comments
 * and string or character literals; preprocessor lines included); stops when fn returns
 * false. For T.import_source: the names a source may define. */
typedef bool (*CIdentFn)(void *ud, const char *start, size_t len);
void c_source_idents(const char *text, CIdentFn fn, void *ud);

#endif
