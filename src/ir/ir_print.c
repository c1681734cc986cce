/* ir_print.c - the readable text form of the tile IR (`tilec emit --ir`, golden tests).
 *
 * Contract: the output is deterministic. Expressions use Python precedence with the
 * fewest parentheses; ints print plain when int32 (bool as True/False), floats print
 * plain when float32, in the shortest form that reads back exactly (1.0, 0.5); other
 * dtypes print as `dtype(value)`. Vars and buffers print by name; when two distinct
 * Vars (or Buffers) share a name, the later ones (in order of first appearance in the
 * printed text) get `_<n>` suffixes, so the text never depends on raw ids.
 * Indentation is 4 spaces per level (sb_indent).
 * What the CUDA passes attach shows where it is attached: a buffer's register layout
 * (frag_print's one line), shared-memory swizzle, column panels and alignment on its
 * alloc line (or parameter), a T.Parallel nest's layout on its loop, tensor-core choices
 * on the gemm, a kernel's producer warp group and TMA maps under its header. */
#include "ir/ir_walk.h"
#include "layout/frag.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- display names: pointer -> unique name ----------------------------------------- */
typedef struct NameTab {
    const void **keys; /* open addressing on pointers */
    char **vals;
    size_t cap, len;
    char **used; /* open addressing on names (strings owned by vals or base names) */
    size_t ucap, ulen;
} NameTab;

enum { PRINT_MAX_LAID = 64 };
typedef struct Printer {
    StrBuf *sb;
    NameTab vars, bufs;
    const Buffer *laid[PRINT_MAX_LAID]; /* buffers whose layout was printed, in order */
    int nlaid;
} Printer;

static size_t hash_ptr(const void *p) {
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(x ^ (x >> 29));
}

static size_t hash_str(const char *s) {
    size_t h = 1469598103934665603ull;
    while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static bool used_has(const NameTab *t, const char *name) {
    if (!t->ucap) return false;
    for (size_t i = hash_str(name) & (t->ucap - 1); t->used[i]; i = (i + 1) & (t->ucap - 1))
        if (!strcmp(t->used[i], name)) return true;
    return false;
}

static void used_add(NameTab *t, char *name) {
    if (2 * (t->ulen + 1) > t->ucap) {
        size_t ncap = t->ucap ? 2 * t->ucap : 64;
        char **old = t->used;
        size_t ocap = t->ucap;
        t->used = calloc(ncap, sizeof(char *));
        TL_ASSERT(t->used);
        t->ucap = ncap;
        for (size_t i = 0; i < ocap; i++) {
            if (!old[i]) continue;
            size_t j = hash_str(old[i]) & (ncap - 1);
            while (t->used[j]) j = (j + 1) & (ncap - 1);
            t->used[j] = old[i];
        }
        free(old);
    }
    size_t j = hash_str(name) & (t->ucap - 1);
    while (t->used[j]) j = (j + 1) & (t->ucap - 1);
    t->used[j] = name;
    t->ulen++;
}

static size_t tab_slot(const NameTab *t, const void *key) {
    size_t i = hash_ptr(key) & (t->cap - 1);
    while (t->keys[i] && t->keys[i] != key) i = (i + 1) & (t->cap - 1);
    return i;
}

static const char *tab_get(const NameTab *t, const void *key) {
    if (!t->cap) return NULL;
    size_t i = tab_slot(t, key);
    return t->keys[i] ? t->vals[i] : NULL;
}

static void tab_grow(NameTab *t) {
    size_t ocap = t->cap, ncap = ocap ? 2 * ocap : 64;
    const void **okeys = t->keys;
    char **ovals = t->vals;
    t->keys = calloc(ncap, sizeof(void *));
    t->vals = calloc(ncap, sizeof(char *));
    TL_ASSERT(t->keys && t->vals);
    t->cap = ncap;
    for (size_t i = 0; i < ocap; i++) {
        if (!okeys[i]) continue;
        size_t j = tab_slot(t, okeys[i]);
        t->keys[j] = okeys[i];
        t->vals[j] = ovals[i];
    }
    free(okeys);
    free(ovals);
}

/* Registers key with a unique display name derived from base (first come keeps it). */
static void tab_add(NameTab *t, const void *key, const char *base) {
    if (tab_get(t, key)) return;
    if (2 * (t->len + 1) > t->cap) tab_grow(t);
    size_t n = strlen(base) + 24;
    char *name = malloc(n);
    TL_ASSERT(name);
    snprintf(name, n, "%s", base);
    for (int k = 1; used_has(t, name); k++) snprintf(name, n, "%s_%d", base, k);
    used_add(t, name);
    size_t i = tab_slot(t, key);
    t->keys[i] = key;
    t->vals[i] = name;
    t->len++;
}

static void tab_free(NameTab *t) {
    for (size_t i = 0; i < t->cap; i++) free(t->vals[i]);
    free(t->keys);
    free(t->vals);
    free(t->used);
    memset(t, 0, sizeof *t);
}

static void printer_free(Printer *p) {
    tab_free(&p->vars);
    tab_free(&p->bufs);
}

/* ---- collecting names in order of first appearance ---------------------------------- */
static void collect_var(Printer *p, const Var *v) {
    if (v) tab_add(&p->vars, v, v->name);
}
static void collect_buf(Printer *p, const Buffer *b);

static void collect_expr_slot(Expr **slot, void *ud);

static void collect_expr(Printer *p, const Expr *e) {
    if (!e) return;
    if (e->kind == EXPR_VAR) collect_var(p, e->u.var);
    if (e->kind == EXPR_LOAD) collect_buf(p, e->u.load.buf);
    ir_expr_children((Expr *)e, collect_expr_slot, p);
}

static void collect_expr_slot(Expr **slot, void *ud) { collect_expr(ud, *slot); }

static void collect_buf(Printer *p, const Buffer *b) {
    if (!b || tab_get(&p->bufs, b)) return;
    tab_add(&p->bufs, b, b->name);
    for (int d = 0; d < b->ndim; d++) {
        collect_expr(p, b->shape[d]);
        if (b->strides) collect_expr(p, b->strides[d]);
    }
}

static void collect_region(Region *r, void *ud) { collect_buf(ud, r->buf); }

static void collect_stmt(Printer *p, const Stmt *s);
static void collect_stmt_slot(Stmt **slot, void *ud) { collect_stmt(ud, *slot); }

static void collect_stmt(Printer *p, const Stmt *s) {
    Stmt *m = (Stmt *)s;
    switch (s->kind) {
    case STMT_FOR: collect_var(p, s->u.for_.var); break;
    case STMT_LET: collect_var(p, s->u.let.var); break;
    case STMT_ALLOC: collect_buf(p, s->u.alloc.buf); break;
    case STMT_STORE: collect_buf(p, s->u.store.buf); break;
    case STMT_ANNOTATE_LAYOUT: collect_buf(p, s->u.annotate.buf); break;
    case STMT_MBAR: collect_buf(p, s->u.mbar.bar); break;
    case STMT_EXTERN:
        for (int i = 0; i < s->u.extern_.nargs; i++) collect_buf(p, s->u.extern_.args[i].buf);
        collect_buf(p, s->u.extern_.result);
        break;
    case STMT_KERNEL:
        for (int d = 0; d < s->u.kernel.ngrid; d++) collect_expr(p, s->u.kernel.grid[d]);
        for (int d = 0; d < s->u.kernel.ngrid; d++) collect_var(p, s->u.kernel.block[d]);
        for (int d = 0; d < 3; d++)
            if (s->u.kernel.thread[d]) collect_var(p, s->u.kernel.thread[d]);
        break;
    default: ir_stmt_regions(m, collect_region, p); break;
    }
    if (s->kind == STMT_ATOMIC) collect_buf(p, s->u.atomic.prev);
    ir_stmt_exprs(m, collect_expr_slot, p);
    ir_stmt_children(m, collect_stmt_slot, p);
}

static void collect_func(Printer *p, const Func *f) {
    for (int i = 0; i < f->params.len; i++) {
        const Param *pa = &f->params.data[i];
        if (pa->buf) collect_buf(p, pa->buf);
        collect_var(p, pa->scalar);
    }
    for (int i = 0; i < f->syms.len; i++) collect_var(p, f->syms.data[i]);
    if (f->body) collect_stmt(p, f->body);
}

static const char *var_name(Printer *p, const Var *v) {
    const char *n = tab_get(&p->vars, v);
    return n ? n : v->name;
}

static const char *buf_name(Printer *p, const Buffer *b) {
    const char *n = tab_get(&p->bufs, b);
    return n ? n : b->name;
}

/* ---- constants ---------------------------------------------------------------------- */
static void put_double(StrBuf *sb, double v) {
    if (isnan(v)) {
        sb_puts(sb, "nan");
        return;
    }
    if (isinf(v)) {
        sb_puts(sb, v < 0 ? "-inf" : "inf");
        return;
    }
    char buf[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    sb_puts(sb, buf);
    if (!strpbrk(buf, ".e")) sb_puts(sb, ".0");
}

static void put_const(StrBuf *sb, const Expr *e) {
    if (e->kind == EXPR_INT && e->dtype == DT_BOOL) {
        sb_puts(sb, e->u.i ? "True" : "False");
        return;
    }
    bool plain = e->dtype == (e->kind == EXPR_INT ? DT_INT32 : DT_FLOAT32);
    if (!plain) sb_printf(sb, "%s(", dtype_name(e->dtype));
    if (e->kind == EXPR_INT) sb_printf(sb, "%lld", (long long)e->u.i);
    else put_double(sb, e->u.f);
    if (!plain) sb_putc(sb, ')');
}

/* ---- expressions -------------------------------------------------------------------- */
enum {
    PREC_OR = 1,
    PREC_AND,
    PREC_NOTL,
    PREC_CMP,
    PREC_BITOR,
    PREC_BITXOR,
    PREC_BITAND,
    PREC_SHIFT,
    PREC_ADD,
    PREC_MUL,
    PREC_UNARY,
    PREC_POW,
    PREC_ATOM
};

static int binop_prec(BinOp op) {
    switch (op) {
    case OP_OR: return PREC_OR;
    case OP_AND: return PREC_AND;
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE:
    case OP_EQ:
    case OP_NE: return PREC_CMP;
    case OP_BITOR: return PREC_BITOR;
    case OP_BITXOR: return PREC_BITXOR;
    case OP_BITAND: return PREC_BITAND;
    case OP_SHL:
    case OP_SHR: return PREC_SHIFT;
    case OP_ADD:
    case OP_SUB: return PREC_ADD;
    case OP_MUL:
    case OP_DIV:
    case OP_FLOORDIV:
    case OP_FLOORMOD: return PREC_MUL;
    case OP_POW: return PREC_POW;
    default: return PREC_ATOM; /* min, max: call syntax */
    }
}

static int expr_prec(const Expr *e) {
    switch (e->kind) {
    case EXPR_INT: return (e->u.i < 0 && e->dtype == DT_INT32) ? PREC_UNARY : PREC_ATOM;
    case EXPR_FLOAT:
        return (e->dtype == DT_FLOAT32 && (signbit(e->u.f) && !isnan(e->u.f))) ? PREC_UNARY
                                                                               : PREC_ATOM;
    case EXPR_BIN: return binop_prec(e->u.bin.op);
    case EXPR_UN: return PREC_UNARY;
    default: return PREC_ATOM;
    }
}

static void print_expr(Printer *p, const Expr *e, int min_prec);

static void print_args(Printer *p, Expr *const *args, int n) {
    for (int i = 0; i < n; i++) {
        if (i) sb_puts(p->sb, ", ");
        print_expr(p, args[i], 0);
    }
}

static void print_bin(Printer *p, const Expr *e) {
    BinOp op = e->u.bin.op;
    int prec = binop_prec(op);
    if (prec == PREC_ATOM) {
        sb_printf(p->sb, "%s(", binop_name(op));
        print_args(p, (Expr *const[]){e->u.bin.a, e->u.bin.b}, 2);
        sb_putc(p->sb, ')');
        return;
    }
    int lp = prec, rp = prec + 1;
    if (op == OP_POW) lp = prec + 1, rp = prec;
    if (prec == PREC_CMP) lp = prec + 1;
    print_expr(p, e->u.bin.a, lp);
    sb_printf(p->sb, " %s ", binop_name(op));
    print_expr(p, e->u.bin.b, rp);
}

/* buf[idx]; ldg(buf[idx]), atomic_load_<order>(buf[idx]), bits<uint32>(buf[idx]) */
static void print_load(Printer *p, const Expr *e) {
    const Buffer *b = e->u.load.buf;
    LoadMode m = (LoadMode)e->u.load.mode;
    if (m == LOAD_ATOMIC) sb_printf(p->sb, "atomic_load_%s(", mem_order_name(e->u.load.order));
    else if (m == LOAD_BITS) sb_printf(p->sb, "bits<%s>(", dtype_name(e->dtype));
    else if (m != LOAD_PLAIN) sb_printf(p->sb, "%s(", load_mode_name(m));
    sb_puts(p->sb, buf_name(p, b));
    if (b->ndim) {
        sb_putc(p->sb, '[');
        print_args(p, e->u.load.idx, b->ndim);
        sb_putc(p->sb, ']');
    }
    if (m != LOAD_PLAIN) sb_putc(p->sb, ')');
}

static void print_expr_inner(Printer *p, const Expr *e) {
    StrBuf *sb = p->sb;
    switch (e->kind) {
    case EXPR_INT:
    case EXPR_FLOAT: put_const(sb, e); break;
    case EXPR_VAR: sb_puts(sb, var_name(p, e->u.var)); break;
    case EXPR_BIN: print_bin(p, e); break;
    case EXPR_UN:
        sb_puts(sb, unop_name(e->u.un.op));
        print_expr(p, e->u.un.a, PREC_UNARY + (expr_prec(e->u.un.a) == PREC_UNARY));
        break;
    case EXPR_CALL:
        if (e->u.call.fn == FN_BITCAST) sb_printf(sb, "reinterpret<%s>(", dtype_name(e->dtype));
        else sb_printf(sb, "%s(", intrinsic_name(e->u.call.fn));
        print_args(p, e->u.call.args,
                   e->u.call.fn == FN_BITCAST ? 1 : intrinsic_nargs(e->u.call.fn));
        if (e->u.call.round != ROUND_RN) sb_printf(sb, ", %s", rounding_name(e->u.call.round));
        sb_putc(sb, ')');
        break;
    case EXPR_CAST:
        sb_printf(sb, "cast<%s>(", dtype_name(e->dtype));
        print_expr(p, e->u.cast.value, 0);
        sb_putc(sb, ')');
        break;
    case EXPR_LOAD: print_load(p, e); break;
    case EXPR_SELECT:
        sb_puts(sb, "if_then_else(");
        print_args(p, (Expr *const[]){e->u.select.cond, e->u.select.then, e->u.select.orelse}, 3);
        sb_putc(sb, ')');
        break;
    default: sb_puts(sb, "<?>"); break;
    }
}

static void print_expr(Printer *p, const Expr *e, int min_prec) {
    if (!e) {
        sb_puts(p->sb, "<null>");
        return;
    }
    bool paren = expr_prec(e) < min_prec;
    if (paren) sb_putc(p->sb, '(');
    print_expr_inner(p, e);
    if (paren) sb_putc(p->sb, ')');
}

/* start + extent, folded when both are int constants. */
static void print_stop(Printer *p, const Expr *start, const Expr *extent) {
    int64_t a, b;
    if (ir_is_const_int(start, &a) && ir_is_const_int(extent, &b)) {
        sb_printf(p->sb, "%lld", (long long)(a + b));
        return;
    }
    print_expr(p, start, PREC_ADD);
    sb_puts(p->sb, " + ");
    print_expr(p, extent, PREC_ADD + 1);
}

/* ---- regions ------------------------------------------------------------------------ */
static bool region_is_full(const Region *r) {
    if (r->ndim != r->buf->ndim) return false;
    for (int d = 0; d < r->ndim; d++) {
        int64_t s;
        if (!ir_is_const_int(r->start[d], &s) || s != 0) return false;
        if (!ir_expr_equal(r->extent[d], r->buf->shape[d])) return false;
    }
    return true;
}

static void print_region(Printer *p, const Region *r, bool short_if_full) {
    StrBuf *sb = p->sb;
    sb_puts(sb, buf_name(p, r->buf));
    if (r->ndim == 0 || (short_if_full && region_is_full(r))) return;
    sb_putc(sb, '[');
    for (int d = 0; d < r->ndim; d++) {
        int64_t s, e;
        if (d) sb_puts(sb, ", ");
        bool cs = ir_is_const_int(r->start[d], &s), ce = ir_is_const_int(r->extent[d], &e);
        if (ce && e == 1) {
            print_expr(p, r->start[d], 0);
        } else if (cs && ce) {
            sb_printf(sb, "%lld:%lld", (long long)s, (long long)(s + e));
        } else {
            print_expr(p, r->start[d], 0);
            sb_puts(sb, " : +");
            print_expr(p, r->extent[d], PREC_UNARY);
        }
    }
    sb_putc(sb, ']');
}

/* What lowering attached to a buffer (pass_infer_layouts, the pipelines, TMA). */
static void print_buf_attrs(Printer *p, const Buffer *b) {
    StrBuf *sb = p->sb;
    if (b->layout) {
        sb_puts(sb, " layout(");
        frag_print(sb, b->layout);
        sb_putc(sb, ')');
        if (p->nlaid < PRINT_MAX_LAID) p->laid[p->nlaid++] = b;
    }
    if (b->swizzle) sb_printf(sb, " swizzle=%dB", b->swizzle);
    if (b->panel) sb_printf(sb, " panel=%d", b->panel);
    if (b->align) sb_printf(sb, " align=%d", b->align);
    if (b->overwritten) sb_puts(sb, " overwritten");
}

static void print_shape(Printer *p, const Buffer *b) {
    sb_printf(p->sb, "%s[", dtype_name(b->dtype));
    print_args(p, b->shape, b->ndim);
    sb_putc(p->sb, ']');
    if (b->strides) {
        sb_puts(p->sb, " strides(");
        print_args(p, b->strides, b->ndim);
        sb_putc(p->sb, ')');
    }
}

static void put_quoted(StrBuf *sb, const char *s) {
    sb_putc(sb, '"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') sb_putc(sb, '\\');
        if (*s == '\n') sb_puts(sb, "\\n");
        else sb_putc(sb, *s);
    }
    sb_putc(sb, '"');
}

/* ---- statements --------------------------------------------------------------------- */
static void print_stmt(Printer *p, const Stmt *s, int indent);
static void print_ws(Printer *p, const Stmt *s, int indent);

static void print_body(Printer *p, const Stmt *s, int indent) {
    if (!s || (s->kind == STMT_SEQ && s->u.seq.len == 0)) {
        sb_indent(p->sb, indent);
        sb_puts(p->sb, "pass\n");
        return;
    }
    print_stmt(p, s, indent);
}

/* A nest's layout: by the name of a buffer printed before with the same layout. */
static void print_loop_layout(Printer *p, const Frag *f) {
    for (int i = 0; i < p->nlaid; i++)
        if (frag_equal(p->laid[i]->layout, f)) {
            sb_printf(p->sb, ", layout of %s", buf_name(p, p->laid[i]));
            return;
        }
    sb_puts(p->sb, ", layout(");
    frag_print(p->sb, f);
    sb_putc(p->sb, ')');
}

static void print_for(Printer *p, const Stmt *s, int indent) {
    StrBuf *sb = p->sb;
    sb_printf(sb, "for %s in %s(", var_name(p, s->u.for_.var), loop_kind_name(s->u.for_.kind));
    print_expr(p, s->u.for_.min, 0);
    sb_puts(sb, ", ");
    print_stop(p, s->u.for_.min, s->u.for_.extent);
    if (s->u.for_.num_stages) sb_printf(sb, ", stages=%d", s->u.for_.num_stages);
    if (s->u.for_.annot) sb_printf(sb, ", %s", s->u.for_.annot);
    const PipeSchedule *ps = s->u.for_.sched;
    for (int g = 0; ps && g < ps->ngroups; g++) /* group [first, next first) */
        sb_printf(sb, "%s[%d:%d] stage %d order %d", g ? ", " : ", schedule: ", ps->first[g],
                  ps->first[g + 1], ps->stage[g], ps->order[g]);
    if (s->u.for_.layout) print_loop_layout(p, s->u.for_.layout);
    sb_puts(sb, "):\n");
    print_body(p, s->u.for_.body, indent + 1);
}

static void print_if(Printer *p, const Stmt *s, int indent) {
    sb_puts(p->sb, "if ");
    print_expr(p, s->u.if_.cond, 0);
    sb_puts(p->sb, ":\n");
    print_body(p, s->u.if_.then, indent + 1);
    if (!s->u.if_.orelse) return;
    sb_indent(p->sb, indent);
    sb_puts(p->sb, "else:\n");
    print_body(p, s->u.if_.orelse, indent + 1);
}

/* A TMA tensor map: its tensor, box (outermost dimension first, as the tensor's
 * indices), byte swizzle, and how many boxes one copy moves. */
static void print_tmap(Printer *p, int i, const TmaMap *m, int indent) {
    StrBuf *sb = p->sb;
    sb_indent(sb, indent);
    sb_printf(sb, "tma_map %d: %s box[", i, buf_name(p, m->buf));
    for (int d = m->rank - 1; d >= 0; d--) sb_printf(sb, "%d%s", m->box[d], d ? ", " : "");
    sb_putc(sb, ']');
    if (m->swizzle) sb_printf(sb, " swizzle=%dB", m->swizzle);
    if (m->npanel > 1 || m->nchunk > 1)
        sb_printf(sb, " boxes=%dx%d (dim %d)", m->npanel, m->nchunk, m->outer);
    sb_printf(sb, " bytes=%lld\n", (long long)m->bytes);
}

static void print_kernel(Printer *p, const Stmt *s, int indent) {
    StrBuf *sb = p->sb;
    sb_puts(sb, "kernel grid(");
    print_args(p, s->u.kernel.grid, s->u.kernel.ngrid);
    sb_puts(sb, ") threads(");
    int nt = s->u.kernel.nthreads_dims > 0 ? s->u.kernel.nthreads_dims : 1;
    for (int d = 0; d < nt && d < 3; d++)
        sb_printf(sb, "%s%d", d ? ", " : "", s->u.kernel.threads[d]);
    sb_putc(sb, ')');
    if (s->u.kernel.producer_threads)
        sb_printf(sb, " + producer(%d)", s->u.kernel.producer_threads);
    sb_puts(sb, " as (");
    for (int d = 0; d < s->u.kernel.ngrid; d++) {
        const Var *v = s->u.kernel.block[d];
        sb_printf(sb, "%s%s", d ? ", " : "", v ? var_name(p, v) : "_");
    }
    sb_putc(sb, ')');
    for (int d = 0, first = 1; d < 3; d++) /* T.get_thread_binding's indices */
        if (s->u.kernel.thread[d]) {
            sb_printf(sb, "%s%c=%s", first ? " thread(" : ", ", "xyz"[d],
                      var_name(p, s->u.kernel.thread[d]));
            first = 0;
        }
    if (s->u.kernel.thread[0] || s->u.kernel.thread[1] || s->u.kernel.thread[2]) sb_putc(sb, ')');
    if (ir_cluster_size(s) > 1)
        sb_printf(sb, " cluster_dims(%d, %d, %d)", s->u.kernel.cluster_dims[0],
                  s->u.kernel.cluster_dims[1], s->u.kernel.cluster_dims[2]);
    if (s->u.kernel.grid_bar) sb_printf(sb, " grid_sync(%s)", buf_name(p, s->u.kernel.grid_bar));
    if (s->u.kernel.persistent) sb_puts(sb, " persistent"); /* CUDA launch shape */
    if (s->u.kernel.cluster > 1) sb_printf(sb, " cluster(%d)", s->u.kernel.cluster);
    if (s->u.kernel.sk_bytes)
        sb_printf(sb, " split_k(%lld bytes per block)", (long long)s->u.kernel.sk_bytes);
    sb_puts(sb, ":\n");
    for (int i = 0; i < s->u.kernel.ntmaps; i++) print_tmap(p, i, s->u.kernel.tmaps[i], indent + 1);
    print_body(p, s->u.kernel.body, indent + 1);
}

static void print_alloc(Printer *p, const Stmt *s) {
    const Buffer *b = s->u.alloc.buf;
    sb_printf(p->sb, "alloc %s %s %s", scope_name(b->scope), dtype_name(b->dtype), buf_name(p, b));
    if (b->ndim) {
        sb_putc(p->sb, '[');
        print_args(p, b->shape, b->ndim);
        sb_putc(p->sb, ']');
    }
    if (b->strides) {
        sb_puts(p->sb, " strides(");
        print_args(p, b->strides, b->ndim);
        sb_putc(p->sb, ')');
    }
    if (b->init) {
        sb_puts(p->sb, " = ");
        print_expr(p, b->init, 0);
    }
    if (b->safe_value) {
        sb_puts(p->sb, " safe_value=");
        print_expr(p, b->safe_value, 0);
    }
    if (b->cluster_barrier) sb_puts(p->sb, " (the cluster's blocks arrive)");
    print_buf_attrs(p, b);
}

static void print_store(Printer *p, const Stmt *s) {
    const Buffer *b = s->u.store.buf;
    if (s->u.store.bits) sb_printf(p->sb, "bits<%s>", dtype_name(s->u.store.value->dtype));
    sb_puts(p->sb, buf_name(p, b));
    if (b->ndim) {
        sb_putc(p->sb, '[');
        print_args(p, s->u.store.idx, b->ndim);
        sb_putc(p->sb, ']');
    }
    sb_puts(p->sb, " = ");
    print_expr(p, s->u.store.value, 0);
}

static void print_gemm(Printer *p, const Stmt *s) {
    StrBuf *sb = p->sb;
    sb_puts(sb, s->u.gemm.e.buf ? "gemm_sp " : "gemm ");
    print_region(p, &s->u.gemm.a, true);
    sb_puts(sb, ", ");
    if (s->u.gemm.e.buf) {
        print_region(p, &s->u.gemm.e, true);
        sb_puts(sb, s->u.gemm.trans_e ? " (trans_e), " : ", ");
    }
    print_region(p, &s->u.gemm.b, true);
    sb_puts(sb, " -> ");
    print_region(p, &s->u.gemm.c, true);
    sb_puts(sb, " (");
    if (s->u.gemm.trans_a) sb_puts(sb, "trans_a, ");
    if (s->u.gemm.trans_b) sb_puts(sb, "trans_b, ");
    if (s->u.gemm.clear_accum) sb_puts(sb, "clear_accum, ");
    if (s->u.gemm.int4) sb_puts(sb, "int4, ");
    sb_printf(sb, "policy=%s", gemm_policy_name(s->u.gemm.policy));
    if (s->u.gemm.k_pack > 1) sb_printf(sb, ", k_pack=%d", s->u.gemm.k_pack);
    if (s->u.gemm.wg_wait) sb_printf(sb, ", wg_wait=%d", s->u.gemm.wg_wait);
    if (s->u.gemm.manual) sb_puts(sb, ", wgmma_gemm");
    if (s->u.gemm.wgmma) sb_printf(sb, ", wgmma warpgroups=%d", s->u.gemm.wgmma);
    if (s->u.gemm.wgmma_n > 1) sb_printf(sb, "x%d (along N)", s->u.gemm.wgmma_n);
    else if (s->u.gemm.warp_m)
        sb_printf(sb, ", mma.sync warps=%dx%d", s->u.gemm.warp_m, s->u.gemm.warp_n);
    if (s->u.gemm.inflight) sb_puts(sb, ", inflight");
    if (s->u.gemm.deferred) sb_puts(sb, ", deferred");
    if (s->u.gemm.pipe_wait) sb_printf(sb, ", pipe_wait=%d", s->u.gemm.pipe_wait);
    sb_putc(sb, ')');
}

static void print_src_dst(Printer *p, const char *op, const Region *src, const Region *dst) {
    sb_printf(p->sb, "%s ", op);
    print_region(p, src, true);
    sb_puts(p->sb, " -> ");
    print_region(p, dst, true);
}

static void print_reduce(Printer *p, const Stmt *s) {
    sb_printf(p->sb, "reduce_%s", reduce_op_name(s->u.reduce.op));
    print_src_dst(p, "", &s->u.reduce.src, &s->u.reduce.dst);
    sb_printf(p->sb, " (dim=%d%s", s->u.reduce.dim, s->u.reduce.clear ? "" : ", clear=False");
    if (s->u.reduce.workspace)
        sb_printf(p->sb, ", workspace %s", buf_name(p, s->u.reduce.workspace));
    sb_putc(p->sb, ')');
}

static void print_atomic(Printer *p, const Stmt *s) {
    if (s->u.atomic.prev) sb_printf(p->sb, "%s[0] = ", buf_name(p, s->u.atomic.prev));
    sb_printf(p->sb, "atomic_%s ", atomic_op_name(s->u.atomic.op));
    print_region(p, &s->u.atomic.dst, false);
    sb_puts(p->sb, ", ");
    if (s->u.atomic.src.buf) print_region(p, &s->u.atomic.src, false);
    else print_expr(p, s->u.atomic.value, 0);
    if (s->u.atomic.order != ORDER_RELAXED)
        sb_printf(p->sb, " (%s)", mem_order_name(s->u.atomic.order));
}

/* [result[0] = ]name(value, &buf[idx] (r, 8 elements), ...) [pure] */
static void print_extern(Printer *p, const Stmt *s) {
    StrBuf *sb = p->sb;
    if (s->u.extern_.result) sb_printf(sb, "%s[0] = ", buf_name(p, s->u.extern_.result));
    sb_printf(sb, "extern %s(", s->u.extern_.name);
    for (int i = 0; i < s->u.extern_.nargs; i++) {
        const ExternArg *a = &s->u.extern_.args[i];
        if (i) sb_puts(sb, ", ");
        if (a->value) {
            print_expr(p, a->value, 0);
            continue;
        }
        sb_printf(sb, "&%s", buf_name(p, a->buf));
        if (a->buf->ndim) {
            sb_putc(sb, '[');
            print_args(p, a->idx, a->buf->ndim);
            sb_putc(sb, ']');
        }
        sb_printf(sb, " (%s%s", a->rw & 1 ? "r" : "", a->rw & 2 ? "w" : "");
        if (a->extent) {
            sb_puts(sb, ", ");
            print_expr(p, a->extent, 0);
        }
        sb_putc(sb, ')');
    }
    sb_puts(sb, s->u.extern_.pure ? ") pure" : ")");
}

static void print_print(Printer *p, const Stmt *s) {
    sb_puts(p->sb, "print(");
    if (s->u.print.msg) put_quoted(p->sb, s->u.print.msg);
    if (s->u.print.msg && (s->u.print.value || s->u.print.region.buf)) sb_puts(p->sb, ", ");
    if (s->u.print.value) print_expr(p, s->u.print.value, 0);
    else if (s->u.print.region.buf) print_region(p, &s->u.print.region, true);
    sb_putc(p->sb, ')');
}

/* Statements printed on one line (no body). */
static void print_simple(Printer *p, const Stmt *s) {
    StrBuf *sb = p->sb;
    switch (s->kind) {
    case STMT_BREAK: sb_puts(sb, "break"); break;
    case STMT_CONTINUE: sb_puts(sb, "continue"); break;
    case STMT_STORE: print_store(p, s); break;
    case STMT_LET:
        sb_printf(sb, "let %s = ", var_name(p, s->u.let.var));
        print_expr(p, s->u.let.value, 0);
        break;
    case STMT_ALLOC: print_alloc(p, s); break;
    case STMT_COPY:
        sb_puts(sb, s->u.copy.tma ? "copy_tma " : s->u.copy.async ? "copy_async " : "copy ");
        print_region(p, &s->u.copy.src, false);
        sb_puts(sb, " -> ");
        print_region(p, &s->u.copy.dst, false);
        if (s->u.copy.tma && !s->u.copy.bar) {
            sb_printf(sb, " (map %d, TMA store)", s->u.copy.tma - 1);
        } else if (s->u.copy.tma || s->u.copy.manual) {
            if (s->u.copy.tma) sb_printf(sb, " (map %d,", s->u.copy.tma - 1);
            else sb_puts(sb, " (tma_copy,");
            sb_printf(sb, " mbarrier %s[", buf_name(p, s->u.copy.bar));
            print_expr(p, s->u.copy.bar_idx, 0);
            sb_puts(sb, s->u.copy.multicast ? "], multicast)" : "])");
        }
        break;
    case STMT_FILL:
        sb_puts(sb, "fill ");
        print_region(p, &s->u.fill.dst, false);
        sb_puts(sb, ", ");
        print_expr(p, s->u.fill.value, 0);
        break;
    case STMT_GEMM: print_gemm(p, s); break;
    case STMT_REDUCE: print_reduce(p, s); break;
    case STMT_CUMSUM:
        print_src_dst(p, s->u.cumsum.max ? "cummax" : "cumsum", &s->u.cumsum.src, &s->u.cumsum.dst);
        sb_printf(sb, " (dim=%d%s)", s->u.cumsum.dim, s->u.cumsum.reverse ? ", reverse" : "");
        break;
    case STMT_ATOMIC: print_atomic(p, s); break;
    case STMT_EXTERN: print_extern(p, s); break;
    case STMT_PRINT: print_print(p, s); break;
    case STMT_ASSERT:
        sb_puts(sb, "assert ");
        print_expr(p, s->u.assert_.cond, 0);
        if (s->u.assert_.msg) {
            sb_puts(sb, ", ");
            put_quoted(sb, s->u.assert_.msg);
        }
        break;
    case STMT_SYNC: sb_puts(sb, "sync_threads"); break;
    case STMT_FENCE: sb_puts(sb, "fence_proxy_async"); break;
    case STMT_SETMAXNREG:
        sb_printf(sb, "set_max_nreg(%d, %s)", s->u.setmaxnreg.regs,
                  s->u.setmaxnreg.inc ? "inc" : "dec");
        break;
    case STMT_TURN: sb_printf(sb, "pingpong_%s", turn_op_name(s->u.turn.op)); break;
    case STMT_SPLITK: sb_printf(sb, "split_k_%s", sk_op_name(s->u.splitk.op)); break;
    case STMT_PDL: sb_puts(sb, s->u.pdl.sync ? "pdl_sync" : "pdl_trigger"); break;
    case STMT_GROUP_SYNC: sb_puts(sb, group_sync_op_name(s->u.gsync.op)); break;
    case STMT_NAMED_BAR:
        sb_printf(sb, "named_barrier_%s(%d, %d)", s->u.named_bar.arrive ? "arrive" : "sync",
                  s->u.named_bar.id, s->u.named_bar.count);
        break;
    case STMT_MBAR:
        sb_printf(sb, "mbarrier_%s %s", mbar_op_name(s->u.mbar.op), buf_name(p, s->u.mbar.bar));
        if (s->u.mbar.idx) {
            sb_putc(sb, '[');
            print_expr(p, s->u.mbar.idx, 0);
            sb_putc(sb, ']');
        }
        if (s->u.mbar.arg) {
            sb_puts(sb, ", ");
            print_expr(p, s->u.mbar.arg, 0);
        }
        if (s->u.mbar.per_group) sb_puts(sb, " (one thread per warp group)");
        if (s->u.mbar.cluster) sb_puts(sb, " (every block of the cluster)");
        if (s->u.mbar.once) sb_puts(sb, " (one thread)");
        if (s->u.mbar.cta) {
            sb_puts(sb, " (on block ");
            print_expr(p, s->u.mbar.cta, 0);
            sb_puts(sb, " of the cluster)");
        }
        break;
    case STMT_ASYNC:
        if (s->u.async_.commit) sb_puts(sb, "async_commit");
        else
            sb_printf(sb, "%s(%d)", s->u.async_.wgmma ? "wgmma_wait" : "async_wait",
                      s->u.async_.wait);
        for (int i = 0; i < ASYNC_MAX_FENCED && s->u.async_.acc[i]; i++)
            sb_printf(sb, "%s%s", i ? ", " : " fencing ", buf_name(p, s->u.async_.acc[i]));
        break;
    case STMT_ANNOTATE_LAYOUT:
        sb_printf(sb, "annotate_layout %s: %s", buf_name(p, s->u.annotate.buf),
                  s->u.annotate.layout ? s->u.annotate.layout : "?");
        break;
    case STMT_SWIZZLE:
        sb_puts(sb, "use_swizzle(");
        print_expr(p, s->u.swizzle.panel, 0);
        sb_printf(sb, "%s%s)", s->u.swizzle.column ? ", order=\"column\"" : "",
                  s->u.swizzle.enable ? "" : ", enable=False");
        break;
    default: sb_printf(sb, "<stmt %d>", (int)s->kind); break;
    }
    sb_putc(sb, '\n');
}

static void print_stmt(Printer *p, const Stmt *s, int indent) {
    if (s->kind == STMT_SEQ) {
        for (int i = 0; i < s->u.seq.len; i++) print_stmt(p, s->u.seq.data[i], indent);
        return;
    }
    sb_indent(p->sb, indent);
    switch (s->kind) {
    case STMT_FOR: print_for(p, s, indent); break;
    case STMT_WHILE:
        sb_puts(p->sb, "while ");
        print_expr(p, s->u.while_.cond, 0);
        sb_puts(p->sb, ":\n");
        print_body(p, s->u.while_.body, indent + 1);
        break;
    case STMT_IF: print_if(p, s, indent); break;
    case STMT_KERNEL: print_kernel(p, s, indent); break;
    case STMT_THREADS:
        sb_printf(p->sb, "%s %d..%d%s:\n", s->u.threads.split ? "program of threads" : "threads",
                  s->u.threads.lo, s->u.threads.lo + s->u.threads.count - 1,
                  s->u.threads.at_once ? " (regions at once)" : "");
        print_body(p, s->u.threads.body, indent + 1);
        if (s->u.threads.orelse) {
            sb_indent(p->sb, indent);
            sb_puts(p->sb, "other threads:\n");
            print_body(p, s->u.threads.orelse, indent + 1);
        }
        break;
    case STMT_WS: print_ws(p, s, indent); break;
    default: print_simple(p, s); break;
    }
}

/* STMT_WS: producer and consumer, under the tile loop of a persistent grid when there is
 * a tile counter. */
static void print_ws(Printer *p, const Stmt *s, int indent) {
    if (s->u.ws.tile) sb_printf(p->sb, "for each tile %s", var_name(p, s->u.ws.tile));
    if (s->u.ws.tile && s->u.ws.cluster > 1)
        sb_printf(p->sb, " (clusters of %d blocks along dim %d)", s->u.ws.cluster,
                  s->u.ws.cluster_dim);
    if (s->u.ws.sk) {
        const SplitK *k = s->u.ws.sk;
        sb_printf(p->sb, " in split-K units %s .. %s of ", k->lo->name, k->hi->name);
        print_expr(p, k->iters, 0);
        sb_printf(p->sb, " iterations, from %s", k->base->name);
    }
    if (s->u.ws.tile) {
        sb_puts(p->sb, ":\n");
        indent++;
        sb_indent(p->sb, indent);
    }
    sb_puts(p->sb, "producer:\n");
    print_body(p, s->u.ws.producer, indent + 1);
    sb_indent(p->sb, indent);
    sb_puts(p->sb, "consumer:\n");
    print_body(p, s->u.ws.consumer, indent + 1);
}

/* ---- entry points ------------------------------------------------------------------- */
static void print_params(Printer *p, const Func *f) {
    for (int i = 0; i < f->params.len; i++) {
        const Param *pa = &f->params.data[i];
        if (i) sb_puts(p->sb, ", ");
        if (pa->buf) {
            sb_printf(p->sb, "%s: %s ", buf_name(p, pa->buf), scope_name(pa->buf->scope));
            print_shape(p, pa->buf);
            if (pa->buf->safe_value) {
                sb_puts(p->sb, " safe_value=");
                print_expr(p, pa->buf->safe_value, 0);
            }
            print_buf_attrs(p, pa->buf);
        } else if (pa->scalar) {
            sb_printf(p->sb, "%s: %s", var_name(p, pa->scalar), dtype_name(pa->scalar->dtype));
        } else {
            sb_printf(p->sb, "%s: ?", pa->name ? pa->name : "?");
        }
        if (pa->is_output) sb_puts(p->sb, " /*out*/");
    }
}

void ir_print_func(StrBuf *sb, const Func *f) {
    Printer p = {.sb = sb};
    collect_func(&p, f);
    sb_printf(sb, "func %s(", f->name ? f->name : "?");
    print_params(&p, f);
    sb_puts(sb, ")\n");
    if (f->syms.len) {
        sb_indent(sb, 1);
        sb_puts(sb, "syms: ");
        for (int i = 0; i < f->syms.len; i++)
            sb_printf(sb, "%s%s", i ? ", " : "", var_name(&p, f->syms.data[i]));
        sb_putc(sb, '\n');
    }
    if (f->flops) {
        sb_indent(sb, 1);
        sb_printf(sb, "flops: %s\n", f->flops);
    }
    print_body(&p, f->body, 1);
    printer_free(&p);
}

void ir_print_expr(StrBuf *sb, const Expr *e) {
    Printer p = {.sb = sb};
    collect_expr(&p, e);
    print_expr(&p, e, 0);
    printer_free(&p);
}

void ir_print_stmt(StrBuf *sb, const Stmt *s, int indent) {
    Printer p = {.sb = sb};
    collect_stmt(&p, s);
    print_body(&p, s, indent);
    printer_free(&p);
}

/* Python slice syntax for user messages: `A[0:64, k * 32:k * 32 + 32]`, an index for an
 * extent-1 dim, the bare name for a region that covers its whole buffer. */
void ir_print_region_user(StrBuf *sb, const Region *r) {
    Printer p = {.sb = sb};
    sb_puts(sb, r->buf->name);
    if (r->ndim == 0 || region_is_full(r)) return;
    sb_putc(sb, '[');
    for (int d = 0; d < r->ndim; d++) {
        int64_t e;
        if (d) sb_puts(sb, ", ");
        print_expr(&p, r->start[d], 0);
        if (ir_is_const_int(r->extent[d], &e) && e == 1) continue;
        sb_putc(sb, ':');
        print_stop(&p, r->start[d], r->extent[d]);
    }
    sb_putc(sb, ']');
}
