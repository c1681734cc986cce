/* pipeline_schedule.c - TileLang's statement-level schedule of a T.Pipelined loop
 * (order=, stage=, group=; PipeSchedule): checking it (pass_check_schedules, on every
 * target) and the helpers on a scheduled loop's groups and on what statements touch
 * (schedule.h) that the CUDA target's pipelines use as well (its wgmma waits and
 * warp-group turns are src/targets/cuda/passes/wgmma_waits.c).
 *
 * Group g of iteration k runs in iteration k + stage[g] of the scheduled loop, order[g]-th
 * among that iteration's groups. It computes what program order does when every two
 * groups g before h (in the body) that touch a common buffer, one of them writing it,
 * keep the order of all their instances: stage[h] - 1 <= stage[g] <= stage[h], with
 * order[g] < order[h] in the same stage and order[h] < order[g] when g is a stage ahead
 * (the instances (g, k) and (h, k - 1) swap). A schedule that breaks this is an error, so
 * running the body in program order (the C target; pipelines that do not apply the
 * schedule) gives the same results. Groups of stage -1 hold the copies global -> shared
 * that a producer loads; the pipeline's stages order those. */
#include "passes/schedule.h"

#include "ir/ir_walk.h"

/* ---- what statements touch -------------------------------------------------------------- */
static void touch(StmtAccess *a, const Region *r, bool write) {
    if (!r->buf) return;
    if (write) VEC_PUSH(&a->ctx->arena, a->wr, r->buf);
    else VEC_PUSH(&a->ctx->arena, a->rd, r->buf);
}

static void access_expr(Expr **slot, void *ud) {
    StmtAccess *a = ud;
    Expr *e = *slot;
    if (e->kind == EXPR_LOAD) VEC_PUSH(&a->ctx->arena, a->rd, e->u.load.buf);
    if (e->kind == EXPR_VAR) VEC_PUSH(&a->ctx->arena, a->uses, e->u.var);
    ir_expr_children(e, access_expr, ud);
}

static void access_stmt(Stmt **slot, void *ud) {
    StmtAccess *a = ud;
    Stmt *s = *slot;
    switch (s->kind) {
    case STMT_COPY: touch(a, &s->u.copy.src, false), touch(a, &s->u.copy.dst, true); break;
    case STMT_FILL: touch(a, &s->u.fill.dst, true); break;
    case STMT_GEMM:
        touch(a, &s->u.gemm.a, false), touch(a, &s->u.gemm.b, false);
        touch(a, &s->u.gemm.c, false), touch(a, &s->u.gemm.c, true);
        if (s->u.gemm.e.buf) touch(a, &s->u.gemm.e, false); /* T.gemm_sp */
        break;
    case STMT_REDUCE:
        touch(a, &s->u.reduce.src, false), touch(a, &s->u.reduce.dst, true);
        if (!s->u.reduce.clear) touch(a, &s->u.reduce.dst, false);
        if (s->u.reduce.workspace) {
            VEC_PUSH(&a->ctx->arena, a->rd, s->u.reduce.workspace);
            VEC_PUSH(&a->ctx->arena, a->wr, s->u.reduce.workspace);
        }
        break;
    case STMT_CUMSUM: touch(a, &s->u.cumsum.src, false), touch(a, &s->u.cumsum.dst, true); break;
    case STMT_ATOMIC:
        touch(a, &s->u.atomic.src, false), touch(a, &s->u.atomic.dst, false);
        touch(a, &s->u.atomic.dst, true);
        break;
    case STMT_PRINT: touch(a, &s->u.print.region, false); break;
    case STMT_EXTERN:
        for (int i = 0; i < s->u.extern_.nargs; i++) {
            const ExternArg *x = &s->u.extern_.args[i];
            if (!x->value && (x->rw & 1)) VEC_PUSH(&a->ctx->arena, a->rd, x->buf);
            if (!x->value && (x->rw & 2)) VEC_PUSH(&a->ctx->arena, a->wr, x->buf);
        }
        if (s->u.extern_.result) VEC_PUSH(&a->ctx->arena, a->wr, s->u.extern_.result);
        break;
    case STMT_STORE: VEC_PUSH(&a->ctx->arena, a->wr, s->u.store.buf); break;
    case STMT_LET: VEC_PUSH(&a->ctx->arena, a->defs, s->u.let.var); break;
    default: break;
    }
    ir_stmt_exprs(s, access_expr, ud);
    ir_stmt_children(s, access_stmt, ud);
}

StmtAccess stmt_access(Ctx *ctx, Stmt *s) {
    StmtAccess a = {.ctx = ctx};
    access_stmt(&s, &a);
    return a;
}

bool buffer_among(const Buffer *const *v, int n, const Buffer *b) {
    for (int i = 0; i < n; i++)
        if (v[i] == b) return true;
    return false;
}

const Buffer *access_conflict(const StmtAccess *a, const StmtAccess *b) {
    for (int i = 0; i < a->wr.len; i++)
        if (buffer_among(b->rd.data, b->rd.len, a->wr.data[i]) ||
            buffer_among(b->wr.data, b->wr.len, a->wr.data[i]))
            return a->wr.data[i];
    for (int i = 0; i < b->wr.len; i++)
        if (buffer_among(a->rd.data, a->rd.len, b->wr.data[i])) return b->wr.data[i];
    return NULL;
}

/* ---- grouping ----------------------------------------------------------------------------- */
void pipe_flatten_into(Ctx *ctx, Stmt *seq, Stmt *s) {
    if (s->kind != STMT_SEQ) {
        ir_seq_push(ctx, seq, s);
        return;
    }
    for (int i = 0; i < s->u.seq.len; i++) pipe_flatten_into(ctx, seq, s->u.seq.data[i]);
}

bool pipe_grouped(const Stmt *L) {
    const PipeSchedule *ps = L->u.for_.sched;
    const Stmt *b = L->u.for_.body;
    if (!ps || !ps->grouped || b->kind != STMT_SEQ || b->u.seq.len != ps->ngroups) return false;
    for (int g = 0; g < ps->ngroups; g++)
        if (b->u.seq.data[g]->kind != STMT_SEQ) return false;
    return true;
}

void pipe_flatten_groups(Ctx *ctx, Stmt *L) {
    PipeSchedule *ps = L->u.for_.sched;
    if (!ps || !ps->grouped) return;
    Stmt *flat = ir_seq(ctx, L->u.for_.body->loc);
    pipe_flatten_into(ctx, flat, L->u.for_.body);
    L->u.for_.body = flat;
    ps->grouped = false;
}

static bool global_to_shared(const Stmt *s) {
    return s->kind == STMT_COPY && s->u.copy.src.buf->scope == SCOPE_GLOBAL &&
           s->u.copy.dst.buf->scope == SCOPE_SHARED;
}

/* Whether the instances of groups g before h keep their order (the rule above). */
static bool keeps_order(const PipeSchedule *ps, int g, int h) {
    int sg = ps->stage[g], sh = ps->stage[h], og = ps->order[g], oh = ps->order[h];
    return (sg == sh && og < oh) || (sg == sh - 1 && oh < og);
}

/* Checks loop L's schedule against its body, then groups the body (one SEQ per group). */
static void check_schedule(Ctx *ctx, Stmt *L) {
    PipeSchedule *ps = L->u.for_.sched;
    int G = ps->ngroups;
    Stmt *flat = ir_seq(ctx, L->u.for_.body->loc), *body = ir_seq(ctx, L->u.for_.body->loc);
    pipe_flatten_into(ctx, flat, L->u.for_.body);
    if (flat->u.seq.len != ps->first[G])
        ctx_fail(ctx, ps->loc,
                 "T.Pipelined: group= names %d statements and the loop body has %d (each tile "
                 "operation, T.Parallel loop and statement of a T.macro counts one)",
                 ps->first[G], flat->u.seq.len);
    StmtAccess *acc = NEW_ARRAY(&ctx->arena, StmtAccess, G);
    for (int g = 0; g < G; g++) {
        Stmt *grp = ir_seq(ctx, flat->u.seq.data[ps->first[g]]->loc);
        for (int i = ps->first[g]; i < ps->first[g + 1]; i++) {
            Stmt *s = flat->u.seq.data[i];
            if (ps->stage[g] < 0 && !global_to_shared(s))
                ctx_fail(ctx, s->loc,
                         "T.Pipelined: statement %d is in group %d of stage -1, which holds only "
                         "copies from a global tensor into shared memory (what a producer loads)",
                         i, g);
            ir_seq_push(ctx, grp, s);
        }
        acc[g] = stmt_access(ctx, grp);
        ir_seq_push(ctx, body, grp);
    }
    for (int g = 0; g < G; g++)
        for (int h = 0; h < G; h++) {
            if (g == h) continue;
            if (h > g && ps->order[g] >= 0 && ps->order[g] == ps->order[h])
                ctx_fail(ctx, ps->loc, "T.Pipelined: groups %d and %d have the same order %d", g, h,
                         ps->order[g]);
            for (int i = 0; i < acc[g].defs.len; i++)
                for (int j = 0; j < acc[h].uses.len; j++)
                    if (acc[g].defs.data[i] == acc[h].uses.data[j])
                        ctx_fail(ctx, body->u.seq.data[h]->loc,
                                 "T.Pipelined: group %d uses '%s', which group %d binds; a "
                                 "scheduled loop's groups share no variables",
                                 h, acc[h].uses.data[j]->name, g);
            const Buffer *b;
            if (h < g || ps->stage[g] < 0 || ps->stage[h] < 0 || keeps_order(ps, g, h) ||
                !(b = access_conflict(&acc[g], &acc[h])))
                continue;
            ctx_note(ctx, body->u.seq.data[h]->loc, "group %d (stage %d, order %d) starts here", h,
                     ps->stage[h], ps->order[h]);
            bool same = ps->stage[g] == ps->stage[h], ahead = ps->stage[g] == ps->stage[h] - 1;
            ctx_fail(ctx, body->u.seq.data[g]->loc,
                     "T.Pipelined: the schedule would change the result: group %d (stage %d, "
                     "order %d) and group %d after it use '%s', and the schedule runs %s",
                     g, ps->stage[g], ps->order[g], h, b->name,
                     same    ? "the later group first (in the same stage it needs the higher order)"
                     : ahead ? "the later group's previous iteration after this one (a stage "
                               "behind, it needs the lower order)"
                             : "them more than a stage apart");
        }
    L->u.for_.body = body;
    ps->grouped = true;
}

static void check_slot(Stmt **slot, void *ud) {
    Stmt *s = *slot;
    if (s->kind == STMT_FOR && s->u.for_.sched) check_schedule(ud, s);
    ir_stmt_children(s, check_slot, ud);
}

void pass_check_schedules(Ctx *ctx, Func *f) {
    if (f->body) check_slot(&f->body, ctx);
}
