/* wgmma_waits.c - the CUDA target's parts of a scheduled T.Pipelined loop
 * (src/passes/pipeline_schedule.c checks and groups the schedule): the wgmma waits of a
 * scheduled loop's straight-line code (the warp-specialized consumers,
 * warp_specialize.c), and the turns of FlashAttention-3's warp-group ping-pong around its
 * wgmma issues (the setting pingpong), which pass_check_turns drops from a kernel where a
 * block barrier lands inside a turn. */
#include "passes/schedule.h"
#include "pipeline.h"

#include "ir/ir_walk.h"

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
        !buffer_among((const Buffer *const *)w->u.async_.acc, *k, b))
        w->u.async_.acc[(*k)++] = (Buffer *)b;
}

/* A wait until `left` of the groups run, fencing the register operands of the retired
 * gemms fl[0..n) (not reused before the wait) and the fragments that the next statement
 * (next) touches: computing those values cannot move above the wait either (a cast into
 * a retired gemm's A, hoisted by the compiler, makes ptxas wait for every gemm there). */
static Stmt *wait_for(Ctx *ctx, Stmt *const *fl, int n, int left, const StmtAccess *next, Loc loc) {
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
    StmtAccess fa[MAX_INFLIGHT];
    int n = 0;
    for (int i = 0; i < flat->u.seq.len; i++) {
        Stmt *s = flat->u.seq.data[i];
        bool nested = false;
        if (!is_wgmma(s)) find_wgmma(&s, &nested);
        StmtAccess a = stmt_access(ctx, s);
        int j = nested || (is_wgmma(s) && n == MAX_INFLIGHT) ? n - 1 : -1;
        for (int f = n - 1; f > j; f--)
            if (access_conflict(&fa[f], &a)) j = f;
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

/* ---- warp-group ping-pong (the setting pingpong) -------------------------------------- */
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
        StmtAccess a = stmt_access(ctx, seq->u.seq.data[i]);
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
