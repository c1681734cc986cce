/* ir_verify.c - checks the invariants of the tile IR. A violation is an internal error
 * (a pass or the elaborator built bad IR), never a user error: ir_verify prints what is
 * wrong, the pass that ran last and the offending node, then aborts.
 *
 * Invariants: load/store indices and region ranks match buf->ndim and are ints; every
 * Var used is defined (func sym, scalar param, kernel block var, enclosing loop var, an
 * earlier LET of an enclosing SEQ) and defined once along any path; every buffer used is
 * a parameter or ALLOCed earlier in an enclosing SEQ; dtypes are valid (comparisons and
 * logic give bool); STMT_KERNEL is never nested in a kernel; break/continue sit in a
 * loop; intrinsic calls have their number of arguments. */
#include "ir/ir_walk.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct PtrStack {
    const void **data;
    int len, cap;
} PtrStack;

typedef struct Verifier {
    PtrStack vars, bufs;
    int loop_depth;
    bool in_kernel;
    const Stmt *stmt; /* innermost statement being checked, for the report */
    StrBuf *msg;
    jmp_buf fail;
} Verifier;

static void stack_push(PtrStack *s, const void *p) {
    if (s->len == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 32;
        s->data = realloc(s->data, sizeof(void *) * (size_t)s->cap);
        TL_ASSERT(s->data);
    }
    s->data[s->len++] = p;
}

static bool stack_has(const PtrStack *s, const void *p) {
    for (int i = s->len - 1; i >= 0; i--)
        if (s->data[i] == p) return true;
    return false;
}

/* Records the first violation (with the node that shows it) and unwinds. */
static _Noreturn void fail_at(Verifier *v, const Expr *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail_node(Verifier *v, const Expr *e) {
    if (e) {
        sb_puts(v->msg, "\n  in expression: ");
        ir_print_expr(v->msg, e);
    }
    if (v->stmt) {
        StrBuf node = {0};
        ir_print_stmt(&node, v->stmt, 2);
        if (node.len > 2000) node.buf[2000] = 0, sb_puts(&node, "...\n");
        sb_puts(v->msg, "\n  in statement:\n");
        sb_puts(v->msg, node.buf ? node.buf : "");
        sb_free(&node);
    }
}

static void fail_at(Verifier *v, const Expr *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(v->msg, fmt, ap);
    va_end(ap);
    fail_node(v, e);
    longjmp(v->fail, 1);
}

static bool dtype_valid(DType t) { return t > DT_INVALID && t < DT_COUNT; }

static void check_buf_use(Verifier *v, const Buffer *b, const Expr *e) {
    if (!b) fail_at(v, e, "buffer is NULL");
    if (b->base && (b->base->base || b->base->scope != SCOPE_GLOBAL || b->scope != SCOPE_GLOBAL))
        fail_at(v, e, "view '%s' is not a view of a global buffer", b->name);
    if (b->addr) { /* T.make_tensor: at the address its let holds */
        if (b->base || b->scope != SCOPE_GLOBAL || !stack_has(&v->vars, b->addr))
            fail_at(v, e, "tensor '%s' is used where its address is not defined", b->name);
        return;
    }
    if (!stack_has(&v->bufs, ir_buffer_root(b)))
        fail_at(v, e, "buffer '%s' is used where it is not declared", b->name);
}

static void check_expr(Verifier *v, const Expr *e);

static void check_index(Verifier *v, const Expr *idx, const Expr *owner) {
    if (!idx) fail_at(v, owner, "missing index expression");
    check_expr(v, idx);
    if (!dtype_is_int(idx->dtype))
        fail_at(v, owner, "index has dtype %s, not an integer", dtype_name(idx->dtype));
}

static void check_expr_kind(Verifier *v, const Expr *e) {
    switch (e->kind) {
    case EXPR_INT:
    case EXPR_FLOAT:
    case EXPR_CAST: break;
    case EXPR_VAR:
        if (!e->u.var) fail_at(v, e, "var reference without a Var");
        if (!stack_has(&v->vars, e->u.var))
            fail_at(v, e, "var '%s' is used where it is not defined", e->u.var->name);
        break;
    case EXPR_BIN:
        if ((unsigned)e->u.bin.op >= BINOP_COUNT) fail_at(v, e, "bad binary operator");
        if (e->u.bin.op >= OP_LT && e->u.bin.op <= OP_OR && e->dtype != DT_BOOL)
            fail_at(v, e, "comparison or logic operator with dtype %s", dtype_name(e->dtype));
        break;
    case EXPR_UN:
        if ((unsigned)e->u.un.op >= UNOP_COUNT) fail_at(v, e, "bad unary operator");
        break;
    case EXPR_CALL:
        if ((unsigned)e->u.call.fn >= FN_COUNT) fail_at(v, e, "bad intrinsic");
        for (int i = 0, n = e->u.call.fn == FN_BITCAST ? 1 : intrinsic_nargs(e->u.call.fn); i < 3;
             i++)
            if ((i < n) != (e->u.call.args[i] != NULL))
                fail_at(v, e, "%s takes %d arguments", intrinsic_name(e->u.call.fn), n);
        if ((unsigned)e->u.call.round >= ROUNDING_COUNT) fail_at(v, e, "bad rounding");
        break;
    case EXPR_LOAD:
        check_buf_use(v, e->u.load.buf, e);
        for (int d = 0; d < e->u.load.buf->ndim; d++) check_index(v, e->u.load.idx[d], e);
        if (e->u.load.mode >= LOAD_MODE_COUNT || e->u.load.order >= MEM_ORDER_COUNT)
            fail_at(v, e, "bad load mode");
        if ((e->u.load.mode == LOAD_BITS) != (e->dtype != e->u.load.buf->dtype) ||
            (e->u.load.mode == LOAD_BITS &&
             (e->dtype != DT_UINT32 || dtype_bits(e->u.load.buf->dtype) >= 32)))
            fail_at(v, e, "a load of dtype %s from a %s buffer", dtype_name(e->dtype),
                    dtype_name(e->u.load.buf->dtype));
        return; /* indices checked */
    case EXPR_SELECT:
        if (!e->u.select.cond || !e->u.select.then || !e->u.select.orelse)
            fail_at(v, e, "select with a missing operand");
        break;
    default: fail_at(v, e, "unknown expression kind %d", (int)e->kind);
    }
}

static void check_child(Expr **slot, void *ud) {
    Verifier *v = ud;
    if (!*slot) fail_at(v, NULL, "missing operand");
    check_expr(v, *slot);
}

static void check_expr(Verifier *v, const Expr *e) {
    if (!e) fail_at(v, NULL, "missing expression");
    if (!dtype_valid(e->dtype)) fail_at(v, e, "expression has an invalid dtype");
    check_expr_kind(v, e);
    if (e->kind != EXPR_LOAD) ir_expr_children((Expr *)e, check_child, v);
}

static void check_int_expr(Verifier *v, const Expr *e, const char *what) {
    check_expr(v, e);
    if (!dtype_is_int(e->dtype))
        fail_at(v, e, "%s has dtype %s, not an integer", what, dtype_name(e->dtype));
}

static void check_region(Verifier *v, const Region *r, const char *what) {
    check_buf_use(v, r->buf, NULL);
    if (r->ndim != r->buf->ndim)
        fail_at(v, NULL, "%s region of '%s' has %d dims but the buffer has %d", what, r->buf->name,
                r->ndim, r->buf->ndim);
    for (int d = 0; d < r->ndim; d++) {
        if (!r->start || !r->extent || !r->start[d] || !r->extent[d])
            fail_at(v, NULL, "%s region of '%s' misses dim %d", what, r->buf->name, d);
        check_int_expr(v, r->start[d], "region start");
        check_int_expr(v, r->extent[d], "region extent");
    }
}

static void define_var(Verifier *v, const Var *var) {
    if (!var) fail_at(v, NULL, "missing Var");
    if (!dtype_valid(var->dtype)) fail_at(v, NULL, "var '%s' has invalid dtype", var->name);
    if (stack_has(&v->vars, var)) fail_at(v, NULL, "var '%s' is defined twice", var->name);
    stack_push(&v->vars, var);
}

static void declare_buf(Verifier *v, const Buffer *b) {
    if (!b) fail_at(v, NULL, "missing buffer");
    if (!dtype_valid(b->dtype)) fail_at(v, NULL, "buffer '%s' has invalid dtype", b->name);
    if ((unsigned)b->scope >= SCOPE_COUNT) fail_at(v, NULL, "buffer '%s' has bad scope", b->name);
    if (stack_has(&v->bufs, b)) fail_at(v, NULL, "buffer '%s' is declared twice", b->name);
    for (int d = 0; d < b->ndim; d++) {
        if (!b->shape[d]) fail_at(v, NULL, "buffer '%s' misses extent %d", b->name, d);
        check_int_expr(v, b->shape[d], "buffer extent");
        if (b->strides) check_int_expr(v, b->strides[d], "buffer stride");
    }
    if (b->init) check_expr(v, b->init);
    if (b->safe_value) check_expr(v, b->safe_value);
    stack_push(&v->bufs, b);
}

static void check_stmt(Verifier *v, const Stmt *s);

/* Checks s in a scope of its own: definitions inside do not leak out. */
static void check_scoped(Verifier *v, const Stmt *s) {
    int nv = v->vars.len, nb = v->bufs.len;
    check_stmt(v, s);
    v->vars.len = nv;
    v->bufs.len = nb;
}

static void check_for(Verifier *v, const Stmt *s) {
    if ((unsigned)s->u.for_.kind >= LOOP_KIND_COUNT) fail_at(v, NULL, "bad loop kind");
    check_int_expr(v, s->u.for_.min, "loop min");
    check_int_expr(v, s->u.for_.extent, "loop extent");
    int nv = v->vars.len;
    define_var(v, s->u.for_.var);
    v->loop_depth++;
    check_scoped(v, s->u.for_.body);
    v->loop_depth--;
    v->vars.len = nv;
}

static void check_kernel(Verifier *v, const Stmt *s) {
    if (v->in_kernel) fail_at(v, NULL, "kernel nested in a kernel");
    if (s->u.kernel.ngrid < 1 || s->u.kernel.ngrid > 3) fail_at(v, NULL, "bad grid rank");
    for (int d = 0; d < s->u.kernel.ngrid; d++)
        check_int_expr(v, s->u.kernel.grid[d], "grid extent");
    int nv = v->vars.len;
    for (int d = 0; d < s->u.kernel.ngrid; d++)
        if (s->u.kernel.block[d]) define_var(v, s->u.kernel.block[d]);
    for (int d = 0; d < 3; d++)
        if (s->u.kernel.thread[d]) define_var(v, s->u.kernel.thread[d]);
    v->in_kernel = true;
    int depth = v->loop_depth;
    v->loop_depth = 0;
    check_scoped(v, s->u.kernel.body);
    v->loop_depth = depth;
    v->in_kernel = false;
    v->vars.len = nv;
}

static void check_store(Verifier *v, const Stmt *s) {
    check_buf_use(v, s->u.store.buf, NULL);
    for (int d = 0; d < s->u.store.buf->ndim; d++) check_index(v, s->u.store.idx[d], NULL);
    check_expr(v, s->u.store.value);
    if (s->u.store.bits &&
        (s->u.store.value->dtype != DT_UINT32 || dtype_bits(s->u.store.buf->dtype) >= 32))
        fail_at(v, s->u.store.value, "a store of raw %s bits into a %s buffer",
                dtype_name(s->u.store.value->dtype), dtype_name(s->u.store.buf->dtype));
}

static void check_extern(Verifier *v, const Stmt *s) {
    if (!s->u.extern_.name || !*s->u.extern_.name) fail_at(v, NULL, "extern call without a name");
    for (int i = 0; i < s->u.extern_.nargs; i++) {
        const ExternArg *a = &s->u.extern_.args[i];
        if (a->value) {
            check_expr(v, a->value);
            continue;
        }
        check_buf_use(v, a->buf, NULL);
        for (int d = 0; d < a->buf->ndim; d++) check_index(v, a->idx[d], NULL);
        if (a->extent) check_expr(v, a->extent);
    }
    if (s->u.extern_.result) check_buf_use(v, s->u.extern_.result, NULL);
}

static void check_region_cb(Region *r, void *ud) { check_region(ud, r, "tile op"); }

static void check_tile(Verifier *v, const Stmt *s) {
    ir_stmt_regions((Stmt *)s, check_region_cb, v);
    switch (s->kind) {
    case STMT_FILL: check_expr(v, s->u.fill.value); break;
    case STMT_ATOMIC:
        if (!s->u.atomic.dst.buf) fail_at(v, NULL, "atomic without destination");
        if (!s->u.atomic.src.buf && !s->u.atomic.value) fail_at(v, NULL, "atomic without value");
        if (s->u.atomic.value) check_expr(v, s->u.atomic.value);
        if (s->u.atomic.prev) check_buf_use(v, s->u.atomic.prev, NULL);
        break;
    case STMT_PRINT:
        if (s->u.print.value) check_expr(v, s->u.print.value);
        break;
    case STMT_REDUCE:
        if ((unsigned)s->u.reduce.op >= REDUCE_OP_COUNT) fail_at(v, NULL, "bad reduce op");
        break;
    case STMT_COPY:
        if (s->u.copy.tma && s->u.copy.bar) { /* a TMA load (a store has no barrier) */
            check_buf_use(v, s->u.copy.bar, NULL);
            check_expr(v, s->u.copy.bar_idx);
        }
        break;
    case STMT_GEMM:
    case STMT_CUMSUM: break;
    default: break;
    }
}

static void check_seq(Verifier *v, const Stmt *s) {
    int nv = v->vars.len, nb = v->bufs.len;
    for (int i = 0; i < s->u.seq.len; i++) {
        if (!s->u.seq.data[i]) fail_at(v, NULL, "NULL statement in a sequence");
        check_stmt(v, s->u.seq.data[i]); /* LET/ALLOC stay visible to later items */
    }
    v->vars.len = nv;
    v->bufs.len = nb;
}

static void check_stmt(Verifier *v, const Stmt *s) {
    if (!s) fail_at(v, NULL, "missing statement");
    const Stmt *outer = v->stmt;
    v->stmt = s;
    switch (s->kind) {
    case STMT_SEQ: check_seq(v, s); break;
    case STMT_FOR: check_for(v, s); break;
    case STMT_WHILE:
        check_expr(v, s->u.while_.cond);
        v->loop_depth++;
        check_scoped(v, s->u.while_.body);
        v->loop_depth--;
        break;
    case STMT_IF:
        check_expr(v, s->u.if_.cond);
        check_scoped(v, s->u.if_.then);
        if (s->u.if_.orelse) check_scoped(v, s->u.if_.orelse);
        break;
    case STMT_BREAK:
    case STMT_CONTINUE:
        if (!v->loop_depth) fail_at(v, NULL, "break/continue outside a loop");
        break;
    case STMT_STORE: check_store(v, s); break;
    case STMT_LET:
        check_expr(v, s->u.let.value);
        define_var(v, s->u.let.var);
        break;
    case STMT_ALLOC: declare_buf(v, s->u.alloc.buf); break;
    case STMT_KERNEL: check_kernel(v, s); break;
    case STMT_ASSERT: check_expr(v, s->u.assert_.cond); break;
    case STMT_ANNOTATE_LAYOUT: check_buf_use(v, s->u.annotate.buf, NULL); break;
    case STMT_SWIZZLE:
        if (s->u.swizzle.panel) check_expr(v, s->u.swizzle.panel);
        break;
    case STMT_SYNC:
    case STMT_ASYNC:
    case STMT_FENCE:
    case STMT_SETMAXNREG:
    case STMT_TURN:
    case STMT_SPLITK:
    case STMT_PDL:
    case STMT_GROUP_SYNC:
    case STMT_NAMED_BAR: break;
    case STMT_THREADS:
        check_scoped(v, s->u.threads.body);
        if (s->u.threads.orelse) check_scoped(v, s->u.threads.orelse);
        break;
    case STMT_WS: {
        int nv = v->vars.len;
        if (s->u.ws.tile) define_var(v, s->u.ws.tile);
        if (s->u.ws.sk) {
            check_expr(v, s->u.ws.sk->iters);
            define_var(v, s->u.ws.sk->lo), define_var(v, s->u.ws.sk->hi);
            define_var(v, s->u.ws.sk->base);
        }
        check_scoped(v, s->u.ws.producer);
        check_scoped(v, s->u.ws.consumer);
        v->vars.len = nv;
        break;
    }
    case STMT_EXTERN: check_extern(v, s); break;
    case STMT_MBAR:
        check_buf_use(v, s->u.mbar.bar, NULL);
        if (s->u.mbar.idx) check_expr(v, s->u.mbar.idx);
        if (s->u.mbar.arg) check_expr(v, s->u.mbar.arg);
        if (s->u.mbar.cta) check_expr(v, s->u.mbar.cta);
        break;
    default:
        if ((unsigned)s->kind >= STMT_KIND_COUNT) fail_at(v, NULL, "bad statement kind");
        check_tile(v, s);
        break;
    }
    v->stmt = outer;
}

static void check_params(Verifier *v, const Func *f) {
    for (int i = 0; i < f->syms.len; i++) define_var(v, f->syms.data[i]);
    for (int i = 0; i < f->params.len; i++) {
        const Param *p = &f->params.data[i];
        if (!p->buf == !p->scalar)
            fail_at(v, NULL, "parameter %d is not exactly one of buffer or scalar", i);
        if (p->scalar) define_var(v, p->scalar);
    }
    for (int i = 0; i < f->params.len; i++)
        if (f->params.data[i].buf) declare_buf(v, f->params.data[i].buf);
}

bool ir_check(const Func *f, StrBuf *msg) {
    Verifier v = {.msg = msg};
    bool ok = true;
    if (setjmp(v.fail)) {
        ok = false;
    } else {
        check_params(&v, f);
        if (!f->body) fail_at(&v, NULL, "function without a body");
        check_stmt(&v, f->body);
    }
    free(v.vars.data);
    free(v.bufs.data);
    return ok;
}

void ir_verify(Ctx *ctx, const Func *f, const char *after_pass) {
    StrBuf msg = {0};
    if (ir_check(f, &msg)) return;
    char text[512];
    snprintf(text, sizeof text, "%s", msg.buf ? msg.buf : "");
    sb_free(&msg);
    ctx_internal(ctx, "internal error: invalid IR after %s: %s (please report it)",
                 after_pass ? after_pass : "elaboration", text);
}
