/* interval.h - integer intervals of index expressions by interval arithmetic (an overflow
 * makes a bound unknown), over the ranges of the variables in scope, which a pass keeps
 * while it walks the IR: constants, loop vars (from their min and extent), kernel block
 * vars (>= 0, and < grid when constant), let-bound vars; +, -, *, //, %, min, max, & and
 * >> over those. */
#ifndef TILEC_PASSES_INTERVAL_H
#define TILEC_PASSES_INTERVAL_H

#include "passes/passes.h"

typedef struct Interval {
    bool has_lo, has_hi;
    int64_t lo, hi;
} Interval;

typedef struct IvBinding IvBinding;
typedef struct IvEnv { /* a stack: truncate len to leave a scope */
    IvBinding *env;
    int len, cap;
} IvEnv;

void iv_env_push(IvEnv *E, const Var *v, Interval iv);
/* Binds what s introduces for what follows it: a loop's var, a kernel's block vars, a
 * let's var (nothing for other statements). */
void iv_env_enter(IvEnv *E, const Stmt *s);
void iv_env_free(IvEnv *E);
Interval iv_of(const IvEnv *E, const Expr *e);

#endif
