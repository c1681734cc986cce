/* pass.c - runs one pass and, in debug builds (-DTILEC_DEBUG) or with the setting verify
 * (options.h; TILEC_VERIFY=1), verifies the IR it produced (an invalid IR aborts naming
 * the pass). */
#include "compiler.h"

#include <stdarg.h>

static bool verify_enabled(const Ctx *ctx) {
#ifdef TILEC_DEBUG
    (void)ctx;
    return true;
#else
    return ctx->opts.verify;
#endif
}

void pass_run(Ctx *ctx, Func *f, const char *name, PassFn fn) {
    fn(ctx, f);
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
