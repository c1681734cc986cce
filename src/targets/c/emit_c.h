/* emit_c.h - the C target's code generator (private to src/targets/c). */
#ifndef TILEC_EMIT_C_H
#define TILEC_EMIT_C_H

#include "passes/passes.h"
#include "targets/target.h"

/* C11 source for a lowered Func (tile ops gone except scalar STMT_ATOMIC), with the
 * runtime/c/tl_c.h prelude inlined at the top. Entry point:
 *   int tilec_entry(void *const *args, const int64_t *syms)
 * (args/syms as in Target.launch); returns 0, or 1 after a failed T.device_assert.
 * User errors (constructs with no CPU meaning) ctx_fail. Result in ctx->arena. */
char *emit_c(Ctx *ctx, const Func *f);

/* The C target (target_c.c), the entry of target.c's table. */
extern const Target target_c;

#endif
