/* pipeline_schedule.c - TileLang's statement-level schedule of a T.Pipelined loop
 * (order=, stage=, group=; PipeSchedule): checking it (pass_check_schedules, on every
 * target), the wgmma waits of a scheduled loop's straight-line code (the CUDA target's
 * warp-specialized consumers, warp_specialize.c), and the turns of FlashAttention-3's
 * warp-group ping-pong around its wgmma issues (the setting pingpong, TILEC_PINGPONG=1).
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
#include "ir_walk.h"
#include "pipeline.h"

/* ---- what statements touch -------------------------------------------------------------- */
typedef struct Access {
    Ctx *ctx;
    Vec(const Buffer *) rd, wr;
    Vec(const Var *) defs, uses;
} Access;

static void touch(Access *a, const Region *r, bool write) {
    if (!r->buf) return;
    if (write) VEC_PUSH(&a->ctx->arena, a->wr, r->buf);
    else VEC_PUSH(&a->ctx->arena, a->rd, r->buf);
}

static void access_expr(Expr **slot, void *ud) {
    Access *a = ud;
    Expr *e = *slot;
    if (e->kind == EXPR_LOAD) VEC_PUSH(&a->ctx->arena, a->rd, e->u.load.buf);
    if (e->kind == EXPR_VAR) VEC_PUSH(&a->ctx->arena, a->uses, e->u.var);
    ir_expr_children(e, access_expr, ud);
}

static void access_stmt(Stmt **slot, void *ud) {
    Access *a = ud;
    Stmt *s = *slot;
    switch (s->kind) {
    case STMT_COPY: touch(a, &s->u.copy.src, false), touch(a, &s->u.copy.dst, true); break;
    case STMT_FILL: touch(a, &s->u.fill.dst, true); break;
    case STMT_GEMM:
        touch(a, &s->u.gemm.a, false), touch(a, &s->u.gemm.b, false);
        touch(a, &s->u.gemm.c, false), touch(a, &s->u.gemm.c, true);
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
    case STMT_STORE: VEC_PUSH(&a->ctx->arena, a->wr, s->u.store.buf); break;
    case STMT_LET: VEC_PUSH(&a->ctx->arena, a->defs, s->u.let.var); break;
    default: break;
    }
    ir_stmt_exprs(s, access_expr, ud);
    ir_stmt_children(s, access_stmt, ud);
}

static Access access_of(Ctx *ctx, Stmt *s) {
    Access a = {.ctx = ctx};
    access_stmt(&s, &a);
    return a;
}

static bool has_buf(const Buffer *const *v, int n, const Buffer *b) {
    for (int i = 0; i < n; i++)
        if (v[i] == b) return true;
    return false;
}

/* A buffer that one of a, b writes and the other touches, or NULL. */
static const Buffer *conflict(const Access *a, const Access *b) {
    for (int i = 0; i < a->wr.len; i++)
        if (has_buf(b->rd.data, b->rd.len, a->wr.data[i]) ||
            has_buf(b->wr.data, b->wr.len, a->wr.data[i]))
            return a->wr.data[i];
    for (int i = 0; i < b->wr.len; i++)
        if (has_buf(a->rd.data, a->rd.len, b->wr.data[i])) return b->wr.data[i];
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
    Access *acc = NEW_ARRAY(&ctx->arena, Access, G);
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
        acc[g] = access_of(ctx, grp);
        ir_seq_push(ctx, body, grp);
    }
    for (int g = 0; g < G; g++)
        for (int h = 0; h < G; h++) {
            if (g == h) continue;
            if (h > g && ps->order[g] >= 0 && ps->order[g] == ps->order[h])
                ctx_fail(ctx, ps->loc, "T.Pipelined: groups %d and %d have the same order %d", g,
                         h, ps->order[g]);
            for (int i = 0; i < acc[g].defs.len; i++)
                for (int j = 0; j < acc[h].uses.len; j++)
                    if (acc[g].defs.data[i] == acc[h].uses.data[j])
                        ctx_fail(ctx, body->u.seq.data[h]->loc,
                                 "T.Pipelined: group %d uses '%s', which group %d binds; a "
                                 "scheduled loop's groups share no variables",
                                 h, acc[h].uses.data[j]->name, g);
            const Buffer *b;
            if (h < g || ps->stage[g] < 0 || ps->stage[h] < 0 || keeps_order(ps, g, h) ||
                !(b = conflict(&acc[g], &acc[h])))
                continue;
            ctx_note(ctx, body->u.seq.data[h]->loc, "group %d (stage %d, order %d) starts here",
                     h, ps->stage[h], ps->order[h]);
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

/* ---- wgmma waits ---------------------------------------------------------------------------- */
static bool is_wgmma(const Stmt *s) {
    return s->kind == STMT_GEMM && s->u.gemm.wgmma > 0 && !s->u.gemm.manual;
}

static void find_wgmma(Stmt **slot, void *ud) {
    *(bool *)ud |= is_wgmma(*slot);
    ir_stmt_children(*slot, find_wgmma, ud);
}

static void fence(Stmt *w, int *k, const Buffer *b) {
    if (b->scope == SCOPE_FRAGMENT && *k < ASYNC_MAX_FENCED &&
        !has_buf((const Buffer *const *)w->u.async_.acc, *k, b))
        w->u.async_.acc[(*k)++] = (Buffer *)b;
}

/* A wait until `left` of the groups run, fencing the register operands of the retired
 * gemms fl[0..n) (not reused before the wait) and the fragments that the next statement
 * (next) touches: computing those values cannot move above the wait either (a cast into
 * a retired gemm's A, hoisted by the compiler, makes ptxas wait for every gemm there). */
static Stmt *wait_for(Ctx *ctx, Stmt *const *fl, int n, int left, const Access *next, Loc loc) {
    Stmt *w = ir_stmt(ctx, STMT_ASYNC, loc);
    w->u.async_.wait = left;
    w->u.async_.wgmma = true;
    int k = 0;
    for (int i = 0; i < n; i++) {
        fence(w, &k, fl[i]->u.gemm.c.buf);
        fence(w, &k, fl[i]->u.gemm.a.buf);
    }
    for (int i = 0; next && i < next->rd.len; i++) fence(w, &k, next->rd.data[i]);
    for (int i = 0; next && i < next->wr.len; i++) fence(w, &k, next->wr.data[i]);
    return w;
}

Stmt *pipe_wgmma_waits(Ctx *ctx, Stmt *seq) {
    enum { MAX_INFLIGHT = ASYNC_MAX_FENCED / 2 };
    Stmt *flat = ir_seq(ctx, seq->loc), *out = ir_seq(ctx, seq->loc);
    pipe_flatten_into(ctx, flat, seq);
    Stmt *fl[MAX_INFLIGHT];
    Access fa[MAX_INFLIGHT];
    int n = 0;
    for (int i = 0; i < flat->u.seq.len; i++) {
        Stmt *s = flat->u.seq.data[i];
        bool nested = false;
        if (!is_wgmma(s)) find_wgmma(&s, &nested);
        Access a = access_of(ctx, s);
        int j = nested || (is_wgmma(s) && n == MAX_INFLIGHT) ? n - 1 : -1;
        for (int f = n - 1; f > j; f--)
            if (conflict(&fa[f], &a)) j = f;
        if (j >= 0) {
            ir_seq_push(ctx, out, wait_for(ctx, fl, j + 1, n - 1 - j, &a, s->loc));
            for (int f = j + 1; f < n; f++) fl[f - j - 1] = fl[f], fa[f - j - 1] = fa[f];
            n -= j + 1;
        }
        ir_seq_push(ctx, out, s);
        if (is_wgmma(s)) {
            s->u.gemm.deferred = true;
            fl[n] = s, fa[n++] = a;
        }
    }
    if (n) ir_seq_push(ctx, out, wait_for(ctx, fl, n, 0, NULL, seq->loc));
    return out;
}

/* ---- warp-group ping-pong (TILEC_PINGPONG=1) ------------------------------------------- */
Stmt *pipe_turn(Ctx *ctx, TurnOp op, Loc loc) {
    Stmt *t = ir_stmt(ctx, STMT_TURN, loc);
    t->u.turn.op = op;
    return t;
}

bool pipe_turn_window(Ctx *ctx, Stmt *seq) {
    int first = -1, last = -1;
    for (int i = 0; i < seq->u.seq.len; i++)
        if (is_wgmma(seq->u.seq.data[i])) last = i, first = first < 0 ? i : first;
    if (first < 0) return false;
    for (int i = first + 1; i < last; i++) { /* the wgmmas' shared operands need no barrier */
        if (is_wgmma(seq->u.seq.data[i])) continue;
        Access a = access_of(ctx, seq->u.seq.data[i]);
        for (int k = 0; k < a.rd.len + a.wr.len; k++)
            if ((k < a.rd.len ? a.rd.data[k] : a.wr.data[k - a.rd.len])->scope == SCOPE_SHARED)
                return false;
    }
    Stmt *out = ir_seq(ctx, seq->loc);
    for (int i = 0; i < seq->u.seq.len; i++) {
        Stmt *s = seq->u.seq.data[i];
        if (i == first) ir_seq_push(ctx, out, pipe_turn(ctx, TURN_WAIT, s->loc));
        ir_seq_push(ctx, out, s);
        if (i == last) ir_seq_push(ctx, out, pipe_turn(ctx, TURN_PASS, s->loc));
    }
    seq->u.seq = out->u.seq;
    return true;
}

/* Whether a block barrier lies between a TURN_WAIT and the next TURN_PASS (open: after a
 * wait). */
typedef struct Turns {
    bool open, unsafe;
} Turns;

static void turns_scan(Stmt **slot, void *ud) {
    Turns *t = ud;
    Stmt *s = *slot;
    if (s->kind == STMT_TURN) t->open = s->u.turn.op == TURN_WAIT;
    if (s->kind == STMT_SYNC && t->open) t->unsafe = true;
    ir_stmt_children(s, turns_scan, ud);
}

static void turns_drop(Stmt **slot, void *ud) {
    if ((*slot)->kind == STMT_TURN) *slot = ir_seq(ud, (*slot)->loc);
    else ir_stmt_children(*slot, turns_drop, ud);
}

void pass_check_turns(Ctx *ctx, Func *f) {
    for (int i = 0; f->body && f->body->kind == STMT_SEQ && i < f->body->u.seq.len; i++) {
        Stmt **k = &f->body->u.seq.data[i];
        Turns t = {false, false};
        if ((*k)->kind == STMT_KERNEL) turns_scan(k, &t);
        if (!t.unsafe) continue;
        turns_drop(k, ctx);
        pass_remark(ctx, f, (*k)->loc,
                    "TILEC_PINGPONG: a block barrier falls between a warp group's turn and its "
                    "pass; this kernel runs without the ping-pong");
    }
}
