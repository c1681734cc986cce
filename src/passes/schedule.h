/* schedule.h - a T.Pipelined loop's schedule (PipeSchedule) after pass_check_schedules
 * (pipeline_schedule.c), for the passes of any target that pipelines loops: its groups,
 * and what the statements of a group touch. */
#ifndef TILEC_PASSES_SCHEDULE_H
#define TILEC_PASSES_SCHEDULE_H

#include "passes/passes.h"

/* Appends s to seq, the statements of nested SEQs (T.macro calls,
 * schedule groups) in place: a SEQ opens no scope. */
void pipe_flatten_into(Ctx *ctx, Stmt *seq, Stmt *s);
/* Whether loop L's body is still its schedule's groups, one SEQ each (passes keep them:
 * pass_simplify does not flatten them). */
bool pipe_grouped(const Stmt *L);
/* Loop L's body as one SEQ again when pass_check_schedules grouped it (its schedule is
 * then not applied; program order computes the same). */
void pipe_flatten_groups(Ctx *ctx, Stmt *L);

/* The buffers a statement (and the statements in it) reads and writes, the variables it
 * binds and uses. */
typedef struct StmtAccess {
    Ctx *ctx;
    Vec(const Buffer *) rd, wr;
    Vec(const Var *) defs, uses;
} StmtAccess;

StmtAccess stmt_access(Ctx *ctx, Stmt *s);
/* Whether b is one of v[0..n). */
bool buffer_among(const Buffer *const *v, int n, const Buffer *b);
/* A buffer that one of a, b writes and the other touches, or NULL. */
const Buffer *access_conflict(const StmtAccess *a, const StmtAccess *b);

#endif
