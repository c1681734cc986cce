/* pass.c - runs one pass and what goes with it: the IR dump after it (--ir-after,
 * TILEC_PRINT_AFTER, tl_options.print_after: Ctx.passes), then, in debug builds
 * (-DTILEC_DEBUG) or with the setting verify (options.h; TILEC_VERIFY=1), the verifier (an
 * invalid IR aborts naming the pass). In listing mode (PassHook.list_only) it records the
 * pass's name and runs nothing: targets/target.c's pass_names lists a pipeline that way. */
#include "passes/passes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool verify_enabled(const Ctx *ctx) {
#ifdef TILEC_DEBUG
    (void)ctx;
    return true;
#else
    return ctx->opts.verify;
#endif
}

/* Whether name is in list ("all", or names separated by commas). */
static bool pass_listed(const char *list, const char *name) {
    if (!strcmp(list, "all")) return true;
    size_t n = strlen(name);
    for (const char *p = list;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return true;
        if (!end) return false;
        p = end + 1;
    }
}

/* The text in one write (O_APPEND), so that dumps of compiles running at once on other
 * threads or processes do not interleave. */
static int append_file(const char *path, const char *text, size_t len) {
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    while (len) {
        ssize_t w = write(fd, text, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        text += w, len -= (size_t)w;
    }
    int err = len ? -1 : 0;
    return close(fd) || err ? -1 : 0;
}

static void dump_after(Ctx *ctx, const Func *f, const char *name) {
    const PassHook *h = ctx->passes;
    StrBuf sb = {0};
    sb_printf(&sb, "# IR after %s (%s)\n", name, h->label ? h->label : "?");
    ir_print_func(&sb, f);
    int rc = 0;
    if (h->print_path) rc = append_file(h->print_path, sb.buf, sb.len);
    else fputs(sb.buf, stderr), fflush(stderr);
    int err = errno;
    sb_free(&sb);
    if (rc)
        ctx_fail_noloc(ctx, "cannot write the IR after %s to %s: %s", name, h->print_path,
                       strerror(err));
}

void pass_run(Ctx *ctx, Func *f, const char *name, PassFn fn) {
    PassHook *h = ctx->passes;
    if (h && h->list_only) {
        if (h->nnames < h->max) h->names[h->nnames] = name;
        h->nnames++;
        return;
    }
    fn(ctx, f);
    if (h && h->print_after && pass_listed(h->print_after, name)) dump_after(ctx, f, name);
    if (verify_enabled(ctx)) ir_verify(ctx, f, name);
}

void pass_remark(Ctx *ctx, Func *f, Loc loc, const char *fmt, ...) {
    StrBuf sb = {0};
    sb_printf(&sb, "%s:%d: note: ", loc.src && loc.src->name ? loc.src->name : "<source>",
              loc.line);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    VEC_PUSH(&ctx->arena, f->remarks, arena_strdup(&ctx->arena, sb.buf));
    sb_free(&sb);
}
