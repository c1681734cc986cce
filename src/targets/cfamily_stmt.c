/* cfamily_stmt.c - the statements that the C-family emitters write alike (cfamily.h):
 * control flow, stores, lets, atomics, T.print and T.device_assert, with the target's
 * differences taken from its CfHooks. */
#include "cfamily.h"
#include "ir/ir_walk.h"

#include <string.h>

/* The hook's prefix that makes a side effect on b (NULL: output) happen once. */
static const char *once(CfEmit *em, const Buffer *b) {
    return em->hooks->once ? em->hooks->once(em, b) : "";
}

/* once(), unless the side effect at idx (n indices) with value is each thread's own. */
static const char *once_unless_varying(CfEmit *em, const Buffer *b, Expr *const *idx, int n,
                                       const Expr *value) {
    return em->varying || ir_effect_varies(idx, n, value) ? "" : once(em, b);
}

/* body between braces (the opening one is written), per thread when s's condition or
 * bounds vary. */
static void block_body_of(CfEmit *em, const Stmt *s, const Stmt *body) {
    bool varies = ir_stmt_varies(s);
    em->varying += varies;
    cf_block_body(em, body);
    em->varying -= varies;
}

void cf_block_body(CfEmit *em, const Stmt *body) {
    int mark = em->live.len;
    em->indent++;
    if (body) cf_stmt(em, body);
    em->indent--;
    em->live.len = mark;
    cf_line(em, "}");
}

/* ---- control flow ------------------------------------------------------------------------ */
static void stmt_for(CfEmit *em, const Stmt *s) {
    const Var *v = s->u.for_.var;
    DType t = v->dtype;
    const char *i = cf_var(em, v), *ty = cf_value(t);
    const char *mn = cf_ex_str(em, s->u.for_.min, t, false);
    const char *ext = cf_ex_str(em, s->u.for_.extent, t, false);
    int64_t cmin, cext;
    const char *kind = s->u.for_.kind == LOOP_SERIAL ? ""
                                                     : arena_printf(&em->ctx->arena, "  /* %s */",
                                                                    loop_kind_name(s->u.for_.kind));
    bool kmin = ir_is_const_int(s->u.for_.min, &cmin);
    if (kmin && ir_is_const_int(s->u.for_.extent, &cext)) {
        if (s->u.for_.kind == LOOP_UNROLL && em->hooks->unroll_pragma)
            cf_line(em, "%s", em->hooks->unroll_pragma);
        cf_line(em, "for (%s %s = %lld; %s < %lld; ++%s) {%s", ty, i, (long long)cmin, i,
                (long long)(cmin + cext), i, kind);
    } else if (ir_expr_loads(s->u.for_.min) || ir_expr_loads(s->u.for_.extent)) {
        const char *end = cf_tmp(em, "end"); /* the bounds are read once */
        cf_line(em, "for (%s %s = %s, %s = %s + %s; %s < %s; ++%s) {%s", ty, i,
                cf_ex_str(em, s->u.for_.min, t, true), end, i, ext, i, end, i, kind);
    } else if (kmin && cmin == 0) {
        cf_line(em, "for (%s %s = 0; %s < %s; ++%s) {%s", ty, i, i, ext, i, kind);
    } else {
        cf_line(em, "for (%s %s = %s; %s < %s + %s; ++%s) {%s", ty, i,
                cf_ex_str(em, s->u.for_.min, t, true), i, mn, ext, i, kind);
    }
    cf_live_add(em, v);
    block_body_of(em, s, s->u.for_.body);
}

static void stmt_if(CfEmit *em, const Stmt *s, bool chained) {
    StrBuf *o = em->out;
    if (!chained) sb_indent(o, em->indent);
    sb_puts(o, "if (");
    cf_ex_top(em, o, s->u.if_.cond, DT_BOOL);
    sb_puts(o, ") {\n");
    bool varies = ir_stmt_varies(s);
    em->varying += varies;
    int mark = em->live.len;
    em->indent++;
    cf_stmt(em, s->u.if_.then);
    em->indent--;
    em->live.len = mark;
    const Stmt *e = s->u.if_.orelse;
    if (!e) {
        cf_line(em, "}");
    } else if (e->kind == STMT_IF) {
        sb_indent(o, em->indent);
        sb_puts(o, "} else ");
        stmt_if(em, e, true);
    } else {
        cf_line(em, "} else {");
        cf_block_body(em, e);
    }
    em->varying -= varies;
}

/* ---- stores, lets -------------------------------------------------------------------------- */
void cf_store(CfEmit *em, const Buffer *b, Expr *const *idx, const Expr *value) {
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_puts(o, once_unless_varying(em, b, idx, b->ndim, value));
    cf_ex_elem(em, o, b, idx);
    sb_puts(o, " = ");
    if (value->kind == EXPR_LOAD && value->dtype == b->dtype &&
        value->u.load.buf->dtype == b->dtype) {
        cf_ex_elem(em, o, value->u.load.buf, value->u.load.idx);
        sb_puts(o, ";\n");
        return;
    }
    bool nf = cf_narrow_float(b->dtype);
    if (nf && value->kind == EXPR_CAST && value->dtype == b->dtype &&
        (value->u.cast.value->dtype == DT_FLOAT32 || cf_narrow_float(value->u.cast.value->dtype)))
        value = value->u.cast.value; /* as float32: encoded below */
    if (nf) sb_printf(o, "tl_f32_to_%s(", cf_nf(b->dtype));
    if (b->dtype == DT_BOOL) {
        sb_puts(o, "(uint8_t)");
        cf_ex_as(em, o, value, b->dtype);
    } else {
        bool as_f32 = value->dtype == DT_FLOAT32 || cf_narrow_float(value->dtype);
        cf_ex_top(em, o, value, nf && as_f32 ? DT_FLOAT32 : b->dtype);
    }
    sb_puts(o, nf ? ");\n" : ";\n");
}

void cf_let(CfEmit *em, const Stmt *s) {
    const Var *v = s->u.let.var;
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    if (!cf_live_has(em, v)) sb_printf(o, "%s ", cf_value(v->dtype));
    sb_printf(o, "%s = ", cf_var(em, v));
    cf_ex_top(em, o, s->u.let.value, v->dtype);
    sb_puts(o, ";\n");
    if (!cf_live_has(em, v)) cf_live_add(em, v);
}

void cf_store_init(CfEmit *em, const Stmt *s) {
    Buffer *b = s->u.alloc.buf;
    Expr *zero[8] = {0};
    TL_ASSERT(b->ndim <= 8 && b->init);
    for (int d = 0; d < b->ndim; d++) zero[d] = ir_int(em->ctx, 0, DT_INT32, s->loc);
    cf_store(em, b, zero, b->init);
}

void cf_declare_scalar(CfEmit *em, const Var *v, const char *arg) {
    DType t = v->dtype;
    const char *n = cf_var(em, v), *ty = cf_value(t);
    if (t == DT_BOOL) cf_line(em, "bool %s = %s != 0;", n, arg);
    else if (dtype_is_int(t)) cf_line(em, "%s %s = (%s)%s;", ty, n, ty, arg);
    else if (cf_narrow_float(t)) cf_line(em, "float %s = tl_round64_%s(%s);", n, cf_nf(t), arg);
    else cf_line(em, "%s %s = (%s)%s;", ty, n, ty, arg);
    cf_live_add(em, v);
}

const char *cf_shape_text(CfEmit *em, const Buffer *b) {
    StrBuf sb = {0};
    for (int d = 0; d < b->ndim; d++) {
        sb_puts(&sb, d ? ", " : "");
        cf_ex(em, &sb, b->shape[d]);
    }
    const char *s = arena_printf(&em->ctx->arena, "%s %s[%s]", scope_name(b->scope),
                                 dtype_name(b->dtype), sb.buf ? sb.buf : "");
    sb_free(&sb);
    return s;
}

/* ---- atomics ------------------------------------------------------------------------------- */
/* `elem = ` of a scalar buffer element that is to hold a value of b's value type (the
 * caller writes the value and closes with cf_store_value_close). */
static void store_value_open(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx) {
    cf_ex_elem(em, o, b, idx);
    sb_puts(o, " = ");
    if (cf_narrow_float(b->dtype)) sb_printf(o, "tl_f32_to_%s(", cf_nf(b->dtype));
    else if (b->dtype == DT_BOOL) sb_puts(o, "(uint8_t)(");
}

static void store_value_close(StrBuf *o, const Buffer *b) {
    if (cf_narrow_float(b->dtype) || b->dtype == DT_BOOL) sb_puts(o, ")");
}

/* Fences of a memory order around an atomic read-modify-write (tl_c.h): release before,
 * acquire after, both for acq_rel and seq_cst. */
static bool fence_before(MemOrder o) {
    return o == ORDER_RELEASE || o == ORDER_ACQ_REL || o == ORDER_SEQ_CST;
}

static bool fence_after(MemOrder o) {
    return o == ORDER_CONSUME || o == ORDER_ACQUIRE || o == ORDER_ACQ_REL || o == ORDER_SEQ_CST;
}

/* Index 0 of a var buffer (a result slot: a prev value, an extern call's result). */
static Expr *const *slot0(CfEmit *em) {
    Expr **idx = NEW_ARRAY(&em->ctx->arena, Expr *, 1);
    idx[0] = ir_int(em->ctx, 0, DT_INT32, (Loc){0});
    return idx;
}

static void stmt_atomic(CfEmit *em, const Stmt *s) {
    const Region *d = &s->u.atomic.dst;
    if (s->u.atomic.src.buf || !s->u.atomic.value)
        tl_internal_error(__FILE__, __LINE__, "tile atomic reached the emitter");
    const char *pre = s->u.atomic.prev
                          ? "" /* thread-level: every thread's own */
                          : once_unless_varying(em, d->buf, d->start, d->ndim, s->u.atomic.value);
    if (fence_before(s->u.atomic.order)) cf_line(em, "%stl_fence();", pre);
    if (!em->hooks->atomic || !em->hooks->atomic(em, s)) {
        DType t = d->buf->dtype;
        StrBuf *o = em->out;
        const Buffer *prev = s->u.atomic.prev;
        sb_indent(o, em->indent);
        sb_puts(o, pre);
        if (prev) store_value_open(em, o, prev, slot0(em));
        sb_printf(o, "tl_atomic_%s_%s(&", atomic_op_name(s->u.atomic.op), cf_short(t));
        cf_ex_elem(em, o, d->buf, d->start);
        sb_puts(o, ", ");
        cf_ex_top(em, o, s->u.atomic.value, t == DT_BOOL ? DT_UINT8 : t);
        sb_puts(o, ")");
        if (prev) store_value_close(o, prev);
        sb_puts(o, ";\n");
    }
    if (fence_after(s->u.atomic.order)) cf_line(em, "%stl_fence();", pre);
}

/* ---- explicit accesses, extern calls ---------------------------------------------------- */
/* tl_st_bits32(&elem, value): T.stg32 .. T.sts128's raw word (once, like any store). */
static void stmt_store_bits(CfEmit *em, const Stmt *s) {
    const Buffer *b = s->u.store.buf;
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_puts(o, once_unless_varying(em, b, s->u.store.idx, b->ndim, s->u.store.value));
    sb_puts(o, "tl_st_bits32(");
    cf_ex_addr(em, o, b, s->u.store.idx, "an explicit memory access");
    sb_puts(o, ", ");
    cf_ex_top(em, o, s->u.store.value, DT_UINT32);
    sb_puts(o, ");\n");
}

/* [result[0] = ]name(args); in every thread that runs it (T.call_extern is thread-level
 * code; a pure call is a value every thread may compute). Values are passed in their
 * value type (float for the narrow floats), pointers as the element's storage type. */
static void stmt_extern(CfEmit *em, const Stmt *s) {
    StrBuf *o = em->out;
    const Buffer *r = s->u.extern_.result;
    sb_indent(o, em->indent);
    if (r) store_value_open(em, o, r, slot0(em));
    sb_printf(o, "%s(", s->u.extern_.name);
    for (int i = 0; i < s->u.extern_.nargs; i++) {
        const ExternArg *a = &s->u.extern_.args[i];
        if (i) sb_puts(o, ", ");
        if (a->value) cf_ex_top(em, o, a->value, a->value->dtype);
        else cf_ex_addr_of(em, o, a->buf, a->idx, a->extent, "T.access_ptr");
    }
    sb_puts(o, ")");
    if (r) store_value_close(o, r);
    sb_puts(o, ";\n");
}

/* ---- T.print, T.device_assert -------------------------------------------------------------- */
/* ", bx, by, bz": the block indices as long long (0 for missing dimensions). */
static void block_idx_args(CfEmit *em, StrBuf *o) {
    for (int d = 0; d < 3; d++) {
        const Stmt *k = em->kernel;
        if (k && d < k->u.kernel.ngrid && k->u.kernel.block[d])
            sb_printf(o, ", (long long)%s", cf_var(em, k->u.kernel.block[d]));
        else sb_puts(o, ", 0LL");
    }
}

static const char *print_fmt(DType t) {
    if (dtype_is_float(t)) return "%g";
    if (t == DT_BOOL) return "%d";
    return dtype_is_signed(t) ? "%lld" : "%llu";
}

static const char *print_cast(DType t) {
    if (dtype_is_float(t)) return "(double)";
    if (t == DT_BOOL) return "(int)";
    return dtype_is_signed(t) ? "(long long)" : "(unsigned long long)";
}

static void print_value(CfEmit *em, const Stmt *s) {
    const Expr *v = s->u.print.value;
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_printf(o, "%sprintf(\"%%s: BlockIdx=(%%lld, %%lld, %%lld) dtype=%s value=%s\\n\", ",
              once(em, NULL), dtype_name(v->dtype), print_fmt(v->dtype));
    cf_string(o, s->u.print.msg ? s->u.print.msg : "");
    block_idx_args(em, o);
    sb_printf(o, ", %s", print_cast(v->dtype));
    cf_ex(em, o, v);
    sb_puts(o, ");\n");
}

/* Opens one loop per dimension of r; idx[d] becomes start[d] + its variable. */
static int print_loops(CfEmit *em, const Stmt *s, const Region *r, Expr **idx) {
    for (int d = 0; d < r->ndim; d++) {
        Var *iv = ir_var(em->ctx, "i", DT_INT64);
        const char *nm = cf_tmp(em, "i");
        cf_bind(em, iv, nm);
        cf_line(em, "for (int64_t %s = 0; %s < %s; ++%s) {", nm, nm,
                cf_ex_str(em, r->extent[d], DT_INT64, false), nm);
        em->indent++;
        Expr *start = ir_cast(em->ctx, DT_INT64, r->start[d], s->loc);
        idx[d] = ir_bin(em->ctx, OP_ADD, start, ir_varref(em->ctx, iv, s->loc), s->loc);
    }
    return r->ndim;
}

/* Every element of the region, with its index. */
static void print_region(CfEmit *em, const Stmt *s) {
    const Region *r = &s->u.print.region;
    Buffer *b = r->buf;
    Expr **idx = NEW_ARRAY(&em->ctx->arena, Expr *, r->ndim > 0 ? r->ndim : 1);
    em->hooks->print_region_begin(em);
    int depth = print_loops(em, s, r, idx);
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_printf(o, "printf(\"%%s: BlockIdx=(%%lld, %%lld, %%lld) %%s[");
    for (int d = 0; d < r->ndim; d++) sb_puts(o, d ? ", %lld" : "%lld");
    sb_printf(o, "] dtype=%s value=%s\\n\", ", dtype_name(b->dtype), print_fmt(b->dtype));
    cf_string(o, s->u.print.msg ? s->u.print.msg : "");
    block_idx_args(em, o);
    sb_puts(o, ", ");
    cf_string(o, b->name);
    for (int d = 0; d < r->ndim; d++) {
        sb_puts(o, ", (long long)");
        cf_ex(em, o, idx[d]);
    }
    sb_printf(o, ", %s", print_cast(b->dtype));
    cf_ex(em, o, ir_load(em->ctx, b, idx, s->loc));
    sb_puts(o, ");\n");
    for (; depth > 0; depth--) {
        em->indent--;
        cf_line(em, "}");
    }
    em->hooks->print_region_end(em);
}

static void stmt_assert(CfEmit *em, const Stmt *s) {
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_puts(o, "if (!");
    cf_ex_as(em, o, s->u.assert_.cond, DT_BOOL);
    sb_puts(o, ") {\n");
    sb_indent(o, em->indent + 1);
    sb_printf(o, "%stl_assert_fail(", once(em, NULL));
    cf_string(o, cf_loc_where(em, s->loc));
    sb_puts(o, ", ");
    cf_string(o, s->u.assert_.msg ? s->u.assert_.msg : "T.device_assert");
    block_idx_args(em, o);
    sb_puts(o, ");\n");
    em->indent++;
    em->hooks->assert_exit(em);
    em->indent--;
    cf_line(em, "}");
}

/* ---- the dispatcher ------------------------------------------------------------------------- */
void cf_stmt(CfEmit *em, const Stmt *s) {
    if (s->kind == STMT_SEQ) {
        for (int i = 0; i < s->u.seq.len; i++) cf_stmt(em, s->u.seq.data[i]);
        return;
    }
    if (em->hooks->stmt(em, s)) return;
    cf_loc_comment(em, s->loc);
    switch (s->kind) {
    case STMT_FOR: stmt_for(em, s); break;
    case STMT_WHILE:
        cf_line(em, "while (%s) {", cf_ex_str(em, s->u.while_.cond, DT_BOOL, true));
        block_body_of(em, s, s->u.while_.body);
        break;
    case STMT_IF: stmt_if(em, s, false); break;
    case STMT_BREAK: cf_line(em, "break;"); break;
    case STMT_CONTINUE: cf_line(em, "continue;"); break;
    case STMT_STORE:
        if (s->u.store.bits) stmt_store_bits(em, s);
        else cf_store(em, s->u.store.buf, s->u.store.idx, s->u.store.value);
        break;
    case STMT_LET: cf_let(em, s); break;
    case STMT_ATOMIC: stmt_atomic(em, s); break;
    case STMT_EXTERN: stmt_extern(em, s); break;
    case STMT_PRINT:
        if (s->u.print.region.buf) print_region(em, s);
        else print_value(em, s);
        break;
    case STMT_ASSERT: stmt_assert(em, s); break;
    default: tl_internal_error(__FILE__, __LINE__, "tile op reached the emitter unlowered");
    }
}
