/* simplify.c - small clean-ups after lowering: constant folding through every
 * expression (by rebuilding it with the folding constructors of ir.c), removal of loops
 * whose extent is a constant <= 0, inlining of serial/unrolled loops of extent 1, IF and
 * WHILE with constant conditions, flattening of nested STMT_SEQ (but for the groups
 * of a scheduled T.Pipelined body), and the multiples of let variables (let_multiple).
 *
 * Requires: nothing. Provides: no directly nested SEQ, no empty SEQ inside a SEQ, no
 * IF with a constant condition. Expression dtypes are preserved (a rebuilt node whose
 * promoted dtype differs from the original is cast back). Flattening a nested SEQ
 * extends the scope of its LETs and ALLOCs to the end of the outer SEQ, which is
 * harmless because Vars and Buffers are distinct objects. */
#include "passes/passes.h"
#include "ir/ir_walk.h"

static Expr *simp_expr(Ctx *ctx, const Expr *e);

typedef struct Simp {
    Ctx *ctx;
} Simp;

static Expr *keep_dtype(Ctx *ctx, Expr *r, const Expr *orig) {
    return r->dtype == orig->dtype ? r : ir_cast(ctx, orig->dtype, r, orig->loc);
}

static Expr *simp_expr(Ctx *ctx, const Expr *e) {
    Loc loc = e->loc;
    switch (e->kind) {
    case EXPR_BIN: {
        Expr *a = simp_expr(ctx, e->u.bin.a), *b = simp_expr(ctx, e->u.bin.b);
        return keep_dtype(ctx, ir_bin(ctx, e->u.bin.op, a, b, loc), e);
    }
    case EXPR_UN: return keep_dtype(ctx, ir_un(ctx, e->u.un.op, simp_expr(ctx, e->u.un.a), loc), e);
    case EXPR_CALL: {
        Expr *args[3] = {0};
        for (int i = 0; i < 3 && e->u.call.args[i]; i++)
            args[i] = simp_expr(ctx, e->u.call.args[i]);
        if (e->u.call.fn == FN_BITCAST) return ir_bitcast(ctx, e->dtype, args[0], loc);
        return keep_dtype(ctx, ir_call_n(ctx, e->u.call.fn, args, e->u.call.round, loc), e);
    }
    case EXPR_CAST: return ir_cast(ctx, e->dtype, simp_expr(ctx, e->u.cast.value), loc);
    case EXPR_LOAD: {
        int n = e->u.load.buf->ndim;
        Expr **idx = NEW_ARRAY(&ctx->arena, Expr *, n > 0 ? n : 1);
        for (int d = 0; d < n; d++) idx[d] = simp_expr(ctx, e->u.load.idx[d]);
        return ir_load_like(ctx, e, idx, loc);
    }
    case EXPR_SELECT: {
        Expr *c = simp_expr(ctx, e->u.select.cond);
        Expr *t = simp_expr(ctx, e->u.select.then), *f = simp_expr(ctx, e->u.select.orelse);
        return keep_dtype(ctx, ir_select(ctx, c, t, f, loc), e);
    }
    default: return (Expr *)e;
    }
}

static void simp_expr_slot(Expr **slot, void *ud) {
    Simp *S = ud;
    *slot = simp_expr(S->ctx, *slot);
}

static bool const_value(const Expr *e, bool *truth) {
    if (e->kind == EXPR_INT) *truth = e->u.i != 0;
    else if (e->kind == EXPR_FLOAT) *truth = e->u.f != 0;
    else return false;
    return true;
}

static void simp_stmt(Simp *S, Stmt **slot);
static void simp_child(Stmt **slot, void *ud) { simp_stmt(ud, slot); }

static void flatten_seq(Simp *S, Stmt *s) {
    StmtList out = {0};
    for (int i = 0; i < s->u.seq.len; i++) {
        Stmt *c = s->u.seq.data[i];
        if (c->kind != STMT_SEQ) {
            VEC_PUSH(&S->ctx->arena, out, c);
            continue;
        }
        for (int j = 0; j < c->u.seq.len; j++) VEC_PUSH(&S->ctx->arena, out, c->u.seq.data[j]);
    }
    s->u.seq = out;
}

/* Whether s holds a break/continue that belongs to the loop around s. */
static bool exits_loop(const Stmt *s);
static void exits_child(Stmt **slot, void *ud) { *(bool *)ud |= exits_loop(*slot); }

static bool exits_loop(const Stmt *s) {
    if (s->kind == STMT_BREAK || s->kind == STMT_CONTINUE) return true;
    if (s->kind == STMT_FOR || s->kind == STMT_WHILE || s->kind == STMT_KERNEL) return false;
    bool found = false;
    ir_stmt_children((Stmt *)s, exits_child, &found);
    return found;
}

/* Replaces *slot by the statement it reduces to, if any. */
static bool simp_control(Simp *S, Stmt **slot) {
    Stmt *s = *slot;
    int64_t n;
    bool truth;
    switch (s->kind) {
    case STMT_FOR:
        if (!ir_is_const_int(s->u.for_.extent, &n)) return false;
        if (n <= 0) {
            *slot = ir_seq(S->ctx, s->loc);
            return true;
        }
        if (n != 1 || (s->u.for_.kind != LOOP_SERIAL && s->u.for_.kind != LOOP_UNROLL) ||
            exits_loop(s->u.for_.body))
            return false;
        ir_stmt_subst(S->ctx, s->u.for_.body, s->u.for_.var, s->u.for_.min);
        *slot = s->u.for_.body;
        return true;
    case STMT_IF:
        if (!const_value(s->u.if_.cond, &truth)) return false;
        *slot = truth ? s->u.if_.then : s->u.if_.orelse;
        if (!*slot) *slot = ir_seq(S->ctx, s->loc);
        return true;
    case STMT_WHILE:
        if (!const_value(s->u.while_.cond, &truth) || truth) return false;
        *slot = ir_seq(S->ctx, s->loc);
        return true;
    default: return false;
    }
}

/* A let of an integer value that is provably a multiple of a power of two (up to 64)
 * passes that on to its variable (Var.multiple), for the alignment proofs that read
 * ir_multiple_of (ldmatrix rows at `k0 + col`, col = 8 * (lane // 16)). */
static void let_multiple(Stmt *s) {
    Var *v = s->u.let.var;
    if (!dtype_is_int(v->dtype) || v->multiple > 1) return;
    for (int64_t m = 64; m > 1; m /= 2)
        if (ir_multiple_of(s->u.let.value, m)) {
            v->multiple = m;
            return;
        }
}

static void simp_stmt(Simp *S, Stmt **slot) {
    ir_stmt_exprs(*slot, simp_expr_slot, S);
    if ((*slot)->kind == STMT_LET) let_multiple(*slot);
    if (simp_control(S, slot)) {
        simp_stmt(S, slot); /* the replacement may simplify further */
        return;
    }
    Stmt *s = *slot, *b = s->kind == STMT_FOR ? s->u.for_.body : NULL;
    if (b && s->u.for_.sched && s->u.for_.sched->grouped && b->kind == STMT_SEQ) {
        for (int i = 0; i < b->u.seq.len; i++) simp_stmt(S, &b->u.seq.data[i]);
        return; /* a scheduled loop's groups stay SEQs (PipeSchedule) */
    }
    ir_stmt_children(s, simp_child, S);
    if (s->kind == STMT_SEQ) flatten_seq(S, s);
}

void pass_simplify(Ctx *ctx, Func *f) {
    Simp S = {ctx};
    if (f->body) simp_stmt(&S, &f->body);
}
