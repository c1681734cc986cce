/* pass.c - runs one pass and, in debug builds (-DTILEC_DEBUG) or when the environment
 * has TILEC_VERIFY=1, verifies the IR it produced (an invalid IR aborts naming the pass). */
#include "passes/passes.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool verify_enabled(void) {
#ifdef TILEC_DEBUG
    return true;
#else
    const char *env = getenv("TILEC_VERIFY");
    return env && !strcmp(env, "1");
#endif
}

void pass_run(Ctx *ctx, Func *f, const char *name, PassFn fn) {
    fn(ctx, f);
    if (verify_enabled()) ir_verify(ctx, f, name);
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
