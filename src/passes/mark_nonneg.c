/* mark_nonneg.c - Var.nonneg for the integer variables that are never negative: loop
 * variables whose start is not (ir_nonneg), the block and thread indices, and lets whose value is
 * not. The C family then divides and takes remainders of them as unsigned numbers, a
 * shift or a mask for a power of two, where signed floor division needs a fix-up. Run
 * last, on the final IR; a variable's flag is set where it is bound, before its uses. */
#include "passes/passes.h"
#include "ir/ir_walk.h"

static void mark(Stmt **slot, void *ud) {
    Stmt *s = *slot;
    switch (s->kind) {
    case STMT_FOR: s->u.for_.var->nonneg = ir_nonneg(s->u.for_.min); break;
    case STMT_LET:
        if (dtype_is_int(s->u.let.var->dtype) && ir_nonneg(s->u.let.value))
            s->u.let.var->nonneg = true;
        break;
    case STMT_KERNEL:
        for (int d = 0; d < 3; d++)
            for (Var *v = s->u.kernel.block[d], *t = s->u.kernel.thread[d]; v || t; v = t, t = NULL)
                if (v) v->nonneg = true;
        break;
    default: break;
    }
    ir_stmt_children(s, mark, ud);
}

void pass_mark_nonneg(Ctx *ctx, Func *f) {
    (void)ctx;
    if (f->body) mark(&f->body, NULL);
}
