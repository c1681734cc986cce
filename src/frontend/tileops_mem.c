/* tileops_mem.c - memory access and foreign code in the T namespace (TileLang 0.1.15's
 * atomic.py, builtin.py and tir/op.py), lowered to the IR every target has.
 *
 *   T.atomic_load(src, memory_order="seq_cst")
 *                               the element, read atomically (an EXPR_LOAD of LOAD_ATOMIC)
 *   T.atomic_store(dst, value, memory_order="seq_cst"), T.atomic_or(dst, value,
 *   memory_order=None)          scalar STMT_ATOMICs (or: integers only)
 *   T.ldg32/64/128/256(src, pred=None), T.lds32/64/128(src)
 *                               the 4 .. 32 bytes from src on (an element, or a slice of
 *                               that many bytes along the last dimension) of global /
 *                               shared memory, as uint32 words: one uint32 (32 bits), a
 *                               tuple of 2 .. 8 (TileLang's uint32x2 .. x8); 0 where pred
 *                               is false. Each word is read once, where the call is (a let)
 *   T.stg32/64/128/256(dst, value, pred=None), T.sts32/64/128(dst, value)
 *                               the words stored: value is one 32-bit value (its bits), or
 *                               a tuple of the words (T.ldg128's value), or for 64 bits one
 *                               64-bit value; nothing where pred is false. Words of 8- and
 *                               16-bit elements move as raw 32-bit accesses (LOAD_BITS,
 *                               Stmt.store.bits), so every bit pattern survives
 *   T.__ldg(x[i]) or T.__ldg(x, i)
 *                               x[i] through the read-only data cache (LOAD_NC)
 *   T.async_copy(src, dst)      T.copy: done when the call returns, which is as soon as a
 *                               cp.async copy may be (the program's own waits find it done)
 *   T.rng_init(seed, seq=None, off=0), T.rng_rand(), T.rng_rand_float()
 *                               cuRAND's Philox4x32-10 per thread (curand_init, curand,
 *                               curand_uniform), written in runtime/c/tl_c.h for both
 *                               targets: a local state that opens the kernel body
 *
 *   T.import_source(text)       C or CUDA source compiled into the kernel's translation unit
 *                               (Func.imports; the CUDA target's NVRTC has no include path)
 *   T.call_extern(dtype, name, *args), T.call_pure_extern(...) (dtype= may come last)
 *                               a STMT_EXTERN calling name, a function of an imported
 *                               source or of the C math library; its result (dtype other
 *                               than "handle") is a var buffer's element. T.call_extern is
 *                               thread-level code: every thread of the block makes the call,
 *                               on both targets
 *   T.access_ptr(base, access_type="r", *extents, offset=0, extent=None,
 *   ignore_last_ndim=0), T.address_of(x[i]), T.tvm_access_ptr(ptype, x.data, offset,
 *   extent, rw_mask)           a pointer to a buffer element (V_PTR): an argument of an
 *                               extern call
 *
 * Errors name the T function and point at the call. */
#include "frontend/eval.h"
#include "ir/ir_walk.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

/* ---- elements and result slots ------------------------------------------------------------ */
typedef struct Elem {
    Buffer *buf;
    Expr **idx;
    Expr *extent; /* elements of a region or buffer, NULL for one element */
    bool region;  /* given as a slice (its extents must fit what is asked) */
} Elem;

static Expr *i32(Interp *in, int64_t v, Loc loc) { return ir_int(in->ctx, v, DT_INT32, loc); }

/* The element v names (x[i]), or the first of a region or buffer. */
static Elem elem_of(Interp *in, Value *v, Loc loc, const char *fname, const char *what) {
    Elem e = {0};
    if (v->kind == V_EXPR && v->u.expr->kind == EXPR_LOAD && !v->u.expr->u.load.mode) {
        e.buf = v->u.expr->u.load.buf;
        e.idx = v->u.expr->u.load.idx;
        return e;
    }
    if (v->kind != V_REGION && v->kind != V_BUFFER)
        ctx_fail(in->ctx, loc, "%s: %s must be a buffer, a buffer element or a slice, got %s",
                 fname, what, val_describe(in, v));
    Region r = value_to_region(in, v, NULL, loc, fname);
    e.buf = r.buf, e.idx = r.start, e.region = v->kind == V_REGION;
    if (is_local_view(e.buf)) /* the same memory (views.c) */
        e.idx = local_view_index(in, e.buf, e.idx, loc), e.buf = e.buf->base;
    e.extent = i32(in, 1, loc);
    for (int d = 0; d < r.ndim; d++) e.extent = ir_bin(in->ctx, OP_MUL, e.extent, r.extent[d], loc);
    return e;
}

static void need_scope(Interp *in, const Buffer *b, bool global, bool shared, Loc loc,
                       const char *fname) {
    if ((global && b->scope == SCOPE_GLOBAL) || (shared && b->scope == SCOPE_SHARED)) return;
    ctx_fail(in->ctx, loc, "%s: '%s' is a %s buffer; %s acts on %s memory", fname, b->name,
             scope_name(b->scope), fname,
             global && shared ? "global or shared"
             : global         ? "global"
                              : "shared");
}

Buffer *mem_result_slot(Interp *in, DType dtype, Loc loc) {
    Buffer *b = ir_buffer(in->ctx, "ret", dtype, SCOPE_VAR, 1, loc);
    b->shape[0] = i32(in, 1, loc);
    Stmt *s = ir_stmt(in->ctx, STMT_ALLOC, loc);
    s->u.alloc.buf = b;
    emit_stmt(in, s);
    return b;
}

Expr *mem_slot_load(Interp *in, Buffer *slot, Loc loc) {
    Expr **idx = NEW_ARRAY(ARENA, Expr *, 1);
    idx[0] = i32(in, 0, loc);
    return ir_load(in->ctx, slot, idx, loc);
}

/* value bound to a fresh let here: evaluated once, at this point of the program */
static Expr *pin(Interp *in, Expr *value, const char *name, Loc loc) {
    if (value->kind == EXPR_INT || value->kind == EXPR_FLOAT || value->kind == EXPR_VAR)
        return value;
    Var *v = ir_var(in->ctx, name, value->dtype);
    Stmt *s = ir_stmt(in->ctx, STMT_LET, loc);
    s->u.let.var = v, s->u.let.value = value;
    emit_stmt(in, s);
    return ir_varref(in->ctx, v, loc);
}

/* ---- atomics -------------------------------------------------------------------------------- */
enum {
    ORDERS_ALL = (1u << MEM_ORDER_COUNT) - 1,
    ORDERS_LOAD = 1u << ORDER_RELAXED | 1u << ORDER_CONSUME | 1u << ORDER_ACQUIRE |
                  1u << ORDER_SEQ_CST,
    ORDERS_STORE = 1u << ORDER_RELAXED | 1u << ORDER_RELEASE | 1u << ORDER_SEQ_CST,
};

MemOrder mem_order_arg(Interp *in, Value *v, MemOrder dflt, unsigned allowed, Loc loc,
                       const char *fname) {
    if (!v || v->kind == V_NONE) return dflt;
    for (int o = 0; v->kind == V_STR && o < MEM_ORDER_COUNT; o++)
        if (!strcmp(v->u.s, mem_order_name((MemOrder)o)) && (allowed & 1u << o)) return (MemOrder)o;
    StrBuf ok = {0};
    for (int o = 0; o < MEM_ORDER_COUNT; o++)
        if (allowed & 1u << o) sb_printf(&ok, "%s\"%s\"", ok.len ? ", " : "", mem_order_name(o));
    const char *list = arena_strdup(ARENA, ok.buf);
    sb_free(&ok);
    ctx_fail(in->ctx, loc, "%s does not support memory_order=%s; expected one of %s", fname,
             val_describe(in, v), list);
}

static void need_atomic_dtype(Interp *in, const Buffer *b, bool ints, Loc loc, const char *fname) {
    if (b->dtype == DT_BOOL || (ints && !dtype_is_int(b->dtype)))
        ctx_fail(in->ctx, loc, "%s: '%s' is %s; %s takes %s", fname, b->name, dtype_name(b->dtype),
                 fname, ints ? "an integer buffer" : "a numeric buffer");
}

static Value *t_atomic_load(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.atomic_load", "src, memory_order=", av, 2);
    need_kernel(in, a->loc, "T.atomic_load");
    Elem e = elem_of(in, av[0], a->loc, "T.atomic_load", "src");
    need_scope(in, e.buf, true, true, a->loc, "T.atomic_load");
    need_atomic_dtype(in, e.buf, false, a->loc, "T.atomic_load");
    Expr *ld = ir_load(in->ctx, e.buf, e.idx, a->loc);
    ld->u.load.mode = LOAD_ATOMIC;
    ld->u.load.order = mem_order_arg(in, av[1], ORDER_SEQ_CST, ORDERS_LOAD, a->loc,
                                     "T.atomic_load");
    return val_expr(in, ld);
}

/* T.atomic_store / T.atomic_or: a scalar STMT_ATOMIC on the element dst names. */
static Value *t_atomic_scalar(Interp *in, CallArgs *a, void *d) {
    AtomicOp op = (AtomicOp)(intptr_t)d;
    const char *fname = op == ATOMIC_OR ? "T.atomic_or" : "T.atomic_store";
    Value *av[3];
    args_bind(in, a, fname,
              op == ATOMIC_OR ? "dst, value, memory_order=" : "dst, src, memory_order=", av, 3);
    need_kernel(in, a->loc, fname);
    if (av[0]->kind == V_REGION || av[1]->kind == V_REGION ||
        (av[1]->kind == V_BUFFER && av[1]->u.buf->scope != SCOPE_VAR))
        ctx_fail(in->ctx, a->loc, "%s takes one element and a scalar value (no tiles)", fname);
    Elem e = elem_of(in, av[0], a->loc, fname, "dst");
    need_scope(in, e.buf, true, true, a->loc, fname);
    need_atomic_dtype(in, e.buf, op == ATOMIC_OR, a->loc, fname);
    Stmt *s = ir_stmt(in->ctx, STMT_ATOMIC, a->loc);
    s->u.atomic.op = op;
    Region r = {e.buf, e.buf->ndim, e.idx, NEW_ARRAY(ARENA, Expr *, e.buf->ndim + 1)};
    for (int k = 0; k < e.buf->ndim; k++) r.extent[k] = i32(in, 1, a->loc);
    s->u.atomic.dst = r;
    Expr *v = av[1]->kind == V_FLOAT && dtype_is_float(e.buf->dtype)
                  ? ir_float(in->ctx, av[1]->u.f, e.buf->dtype, a->loc)
                  : val_to_expr(in, av[1], a->loc, "value");
    if (op == ATOMIC_OR && !dtype_is_int(v->dtype) && v->dtype != DT_BOOL)
        ctx_fail(in->ctx, a->loc, "T.atomic_or: the value is %s, not an integer",
                 dtype_name(v->dtype));
    s->u.atomic.value = ir_cast(in->ctx, e.buf->dtype, v, a->loc);
    s->u.atomic.order = mem_order_arg(in, av[2], op == ATOMIC_OR ? ORDER_RELAXED : ORDER_SEQ_CST,
                                      op == ATOMIC_OR ? ORDERS_ALL : ORDERS_STORE, a->loc, fname);
    emit_stmt(in, s);
    return val_none(in);
}

/* ---- explicit widths: T.ldg32 .. T.sts128 ------------------------------------------------ */
/* data: bytes | WIDE_LOAD | WIDE_SHARED */
enum { WIDE_LOAD = 1 << 8, WIDE_SHARED = 1 << 9 };

typedef struct Wide {
    const char *fname;
    Buffer *buf;
    Expr **idx; /* the first element */
    int bytes, esize;
    Loc loc;
} Wide;

static const char *wide_name(Interp *in, int data) {
    return arena_printf(ARENA, "T.%s%s%d", data & WIDE_LOAD ? "ld" : "st",
                        data & WIDE_SHARED ? "s" : "g", (data & 0xff) * 8);
}

static Wide wide_of(Interp *in, Value *v, int data, Loc loc) {
    Wide w = {.bytes = data & 0xff, .loc = loc, .fname = wide_name(in, data)};
    Elem e = elem_of(in, v, loc, w.fname, data & WIDE_LOAD ? "src" : "dst");
    w.buf = e.buf, w.idx = e.idx;
    need_scope(in, w.buf, !(data & WIDE_SHARED), data & WIDE_SHARED, loc, w.fname);
    if (w.buf->dtype == DT_BOOL)
        ctx_fail(in->ctx, loc, "%s: '%s' is a bool buffer; give one of numbers", w.fname,
                 w.buf->name);
    w.esize = dtype_bytes(w.buf->dtype);
    if (w.esize > w.bytes)
        ctx_fail(in->ctx, loc, "%s moves %d bytes, but an element of '%s' (%s) has %d", w.fname,
                 w.bytes, w.buf->name, dtype_name(w.buf->dtype), w.esize);
    int64_t n = 0;
    if (e.region && (!ir_is_const_int(e.extent, &n) || n * w.esize != w.bytes))
        ctx_fail(in->ctx, loc,
                 "%s moves %d bytes (%d %s elements), but the slice of '%s' has %s elements",
                 w.fname, w.bytes, w.bytes / w.esize, dtype_name(w.buf->dtype), w.buf->name,
                 n ? arena_printf(ARENA, "%lld", (long long)n) : "a run-time number of");
    if (w.buf->strides || (e.region && w.buf->ndim > 1)) { /* one run of the last dimension */
        Region r = value_to_region(in, v, NULL, loc, w.fname);
        for (int d = 0; d < r.ndim - 1; d++)
            if (!ir_is_const_int(r.extent[d], &n) || n != 1)
                ctx_fail(in->ctx, loc, "%s: the slice must lie along the last dimension", w.fname);
        if (w.buf->strides && (!ir_is_const_int(w.buf->strides[w.buf->ndim - 1], &n) || n != 1))
            ctx_fail(in->ctx, loc, "%s: '%s' is not contiguous in its last dimension", w.fname,
                     w.buf->name);
    }
    return w;
}

/* Indices of the element k elements after w's first, along the last dimension. */
static Expr **wide_at(Interp *in, const Wide *w, int k) {
    int nd = w->buf->ndim;
    Expr **idx = NEW_ARRAY(ARENA, Expr *, nd + 1);
    for (int d = 0; d < nd; d++) idx[d] = w->idx[d];
    if (nd) idx[nd - 1] = ir_bin(in->ctx, OP_ADD, idx[nd - 1], i32(in, k, w->loc), w->loc);
    return idx;
}

/* The k-th 32-bit word of w's bytes (little-endian, as the GPU stores them). */
static Expr *wide_word(Interp *in, const Wide *w, int k) {
    Ctx *c = in->ctx;
    Loc loc = w->loc;
    if (w->esize < 4) { /* a raw access of 4 / esize elements */
        Expr *e = ir_load(c, w->buf, wide_at(in, w, k * 4 / w->esize), loc);
        e->dtype = DT_UINT32, e->u.load.mode = LOAD_BITS;
        return e;
    }
    Expr *x = ir_load(c, w->buf, wide_at(in, w, k * 4 / w->esize), loc);
    if (w->esize == 4)
        return dtype_is_int(x->dtype) ? ir_cast(c, DT_UINT32, x, loc)
                                      : ir_bitcast(c, DT_UINT32, x, loc);
    Expr *u = dtype_is_int(x->dtype) ? ir_cast(c, DT_UINT64, x, loc)
                                     : ir_bitcast(c, DT_UINT64, x, loc);
    if (k % 2) u = ir_bin(c, OP_SHR, u, ir_int(c, 32, DT_UINT64, loc), loc);
    return ir_cast(c, DT_UINT32, u, loc);
}

static Value *t_wide_load(Interp *in, CallArgs *a, void *d) {
    int data = (int)(intptr_t)d;
    Value *av[2];
    args_bind(in, a, wide_name(in, data), data & WIDE_SHARED ? "src" : "src, pred=", av, 2);
    need_kernel(in, a->loc, wide_name(in, data));
    Wide w = wide_of(in, av[0], data, a->loc);
    Expr *pred = av[1] && av[1]->kind != V_NONE
                     ? ir_cast(in->ctx, DT_BOOL, val_to_expr(in, av[1], a->loc, "pred"), a->loc)
                     : NULL;
    Value *words = val_new(in, V_TUPLE);
    for (int k = 0; k < w.bytes / 4; k++) {
        Expr *x = wide_word(in, &w, k);
        if (pred) x = ir_select(in->ctx, pred, x, ir_int(in->ctx, 0, DT_UINT32, a->loc), a->loc);
        VEC_PUSH(ARENA, words->u.items, val_expr(in, pin(in, x, "word", a->loc)));
    }
    return w.bytes == 4 ? words->u.items.data[0] : words;
}

/* One 32-bit value's bits as a uint32 (an int of 32 bits, a float32, a Python number). */
static Expr *word_bits(Interp *in, Value *v, const Wide *w) {
    Expr *x = v->kind == V_INT ? ir_int(in->ctx, (uint32_t)v->u.i, DT_UINT32, w->loc)
                               : val_to_expr(in, v, w->loc, "value");
    if (dtype_bits(x->dtype) != 32)
        ctx_fail(in->ctx, w->loc, "%s stores 32-bit words; the value is %s (%d bits)", w->fname,
                 dtype_name(x->dtype), dtype_bits(x->dtype));
    return dtype_is_int(x->dtype) ? ir_cast(in->ctx, DT_UINT32, x, w->loc)
                                  : ir_bitcast(in->ctx, DT_UINT32, x, w->loc);
}

/* The words of a store's value: n 32-bit values, or (8 bytes) one 64-bit value. */
static void store_words(Interp *in, Value *v, const Wide *w, Expr **out) {
    int n = w->bytes / 4;
    Ctx *c = in->ctx;
    if (n == 1) {
        out[0] = word_bits(in, v, w);
    } else if (v->kind == V_TUPLE || v->kind == V_LIST) {
        if (v->u.items.len != n)
            ctx_fail(c, w->loc, "%s stores %d words of 32 bits; the value has %d", w->fname, n,
                     v->u.items.len);
        for (int k = 0; k < n; k++) out[k] = word_bits(in, v->u.items.data[k], w);
    } else {
        Expr *x = n == 2 && v->kind != V_INT ? val_to_expr(in, v, w->loc, "value") : NULL;
        if (!x || dtype_bits(x->dtype) != 64)
            ctx_fail(c, w->loc,
                     "%s stores %d words of 32 bits: give the value of T.ld%c%d, or a tuple of "
                     "%d uint32 values%s",
                     w->fname, n, w->fname[4], w->bytes * 8, n,
                     n == 2 ? " (or one 64-bit value)" : "");
        Expr *u = dtype_is_int(x->dtype) ? ir_cast(c, DT_UINT64, x, w->loc)
                                         : ir_bitcast(c, DT_UINT64, x, w->loc);
        out[0] = ir_cast(c, DT_UINT32, u, w->loc);
        out[1] = ir_cast(c, DT_UINT32,
                         ir_bin(c, OP_SHR, u, ir_int(c, 32, DT_UINT64, w->loc), w->loc), w->loc);
    }
    for (int k = 0; k < n; k++) out[k] = pin(in, out[k], "word", w->loc);
}

static Stmt *store_at(Interp *in, const Wide *w, int k, Expr *value, bool bits) {
    Stmt *s = ir_stmt(in->ctx, STMT_STORE, w->loc);
    s->u.store.buf = w->buf;
    s->u.store.idx = wide_at(in, w, k);
    s->u.store.value = value;
    s->u.store.bits = bits;
    return s;
}

/* Word k (and k + 1 for 8-byte elements) of words stored from w's element on. */
static Stmt *store_word(Interp *in, const Wide *w, Expr **words, int k) {
    Ctx *c = in->ctx;
    DType t = w->buf->dtype;
    if (w->esize < 4) return store_at(in, w, k * 4 / w->esize, words[k], true);
    if (w->esize == 4)
        return store_at(in, w, k,
                        dtype_is_int(t) ? ir_cast(c, t, words[k], w->loc)
                                        : ir_bitcast(c, t, words[k], w->loc),
                        false);
    Expr *hi = ir_bin(c, OP_SHL, ir_cast(c, DT_UINT64, words[k + 1], w->loc),
                      ir_int(c, 32, DT_UINT64, w->loc), w->loc);
    Expr *u = ir_bin(c, OP_BITOR, ir_cast(c, DT_UINT64, words[k], w->loc), hi, w->loc);
    return store_at(in, w, k / 2,
                    dtype_is_int(t) ? ir_cast(c, t, u, w->loc) : ir_bitcast(c, t, u, w->loc),
                    false);
}

static Value *t_wide_store(Interp *in, CallArgs *a, void *d) {
    int data = (int)(intptr_t)d;
    Value *av[3];
    args_bind(in, a, wide_name(in, data),
              data & WIDE_SHARED ? "dst, value" : "dst, value, pred=", av, 3);
    need_kernel(in, a->loc, wide_name(in, data));
    Wide w = wide_of(in, av[0], data, a->loc);
    Expr *words[8];
    store_words(in, av[1], &w, words);
    Stmt *seq = ir_seq(in->ctx, a->loc);
    for (int k = 0; k < w.bytes / 4; k += w.esize == 8 ? 2 : 1)
        ir_seq_push(in->ctx, seq, store_word(in, &w, words, k));
    if (av[2] && av[2]->kind != V_NONE) {
        Stmt *s = ir_stmt(in->ctx, STMT_IF, a->loc);
        s->u.if_.cond = ir_cast(in->ctx, DT_BOOL, val_to_expr(in, av[2], a->loc, "pred"), a->loc);
        s->u.if_.then = seq;
        seq = s;
    }
    emit_stmt(in, seq);
    return val_none(in);
}

static Value *t_ldg_nc(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.__ldg", "load_or_buf, index=", av, 2);
    need_kernel(in, a->loc, "T.__ldg");
    Value *v = av[0];
    if (v->kind == V_BUFFER && av[1] && av[1]->kind != V_NONE) {
        if (v->u.buf->ndim != 1)
            ctx_fail(in->ctx, a->loc,
                     "T.__ldg(buffer, index): '%s' is %d-dimensional; index it "
                     "(T.__ldg(%s[...]))",
                     v->u.buf->name, v->u.buf->ndim, v->u.buf->name);
        v = buffer_subscript(in, v->u.buf, av[1], a->loc);
    }
    if (v->kind != V_EXPR || v->u.expr->kind != EXPR_LOAD || v->u.expr->u.load.mode)
        ctx_fail(in->ctx, a->loc,
                 "T.__ldg expects a buffer element (x[i]) or a buffer and an "
                 "index, got %s",
                 val_describe(in, av[0]));
    need_scope(in, v->u.expr->u.load.buf, true, false, a->loc, "T.__ldg");
    Expr *e = ir_subst(in->ctx, v->u.expr, NULL, NULL);
    e->u.load.mode = LOAD_NC;
    return val_expr(in, e);
}

/* ---- foreign code ------------------------------------------------------------------------- */
static bool tilec_prefix(const char *s, size_t n) {
    return (n >= 3 && (!strncmp(s, "tl_", 3) || !strncmp(s, "TL_", 3))) ||
           (n >= 6 && !strncmp(s, "tilec_", 6));
}

typedef struct IdentFind {
    const char *name; /* look for it; or NULL: look for a tilec prefix */
    const char *found;
    size_t len;
} IdentFind;

static bool ident_find(void *ud, const char *s, size_t n) {
    IdentFind *f = ud;
    bool hit = f->name ? strlen(f->name) == n && !strncmp(s, f->name, n) : tilec_prefix(s, n);
    if (hit) f->found = s, f->len = n;
    return !hit;
}

static Value *t_import_source(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.import_source", "source=", av, 1);
    if (!in->builder)
        ctx_fail(in->ctx, a->loc, "T.import_source is only allowed in a @T.prim_func");
    if (!av[0] || av[0]->kind == V_NONE) return val_none(in);
    if (av[0]->kind != V_STR)
        ctx_fail(in->ctx, a->loc, "T.import_source takes the source text (a string), got %s",
                 val_describe(in, av[0]));
    IdentFind f = {0};
    c_source_idents(av[0]->u.s, ident_find, &f);
    if (f.found)
        ctx_fail(in->ctx, a->loc,
                 "T.import_source: the source names '%.*s'; names that start with tl_, TL_ or "
                 "tilec_ are tilec's own",
                 (int)f.len, f.found);
    Func *fn = in->func;
    for (int i = 0; i < fn->imports.len; i++)
        if (!strcmp(fn->imports.data[i].text, av[0]->u.s)) return val_none(in);
    ImportedSource im = {av[0]->u.s, a->loc};
    VEC_PUSH(ARENA, fn->imports, im);
    return val_none(in);
}

/* The C math library's functions (C99 <math.h>, float versions with an f too), which
 * both targets have without an imported source. */
static const char *const math_fns[] = {
    "acos",     "acosh", "asin", "asinh", "atan",      "atan2",  "atanh",     "cbrt",   "ceil",
    "copysign", "cos",   "cosh", "erf",   "erfc",      "exp",    "exp2",      "expm1",  "fabs",
    "fdim",     "floor", "fma",  "fmax",  "fmin",      "fmod",   "hypot",     "lgamma", "log",
    "log10",    "log1p", "log2", "logb",  "nearbyint", "pow",    "remainder", "rint",   "round",
    "sin",      "sinh",  "sqrt", "tan",   "tanh",      "tgamma", "trunc",     NULL,
};

static bool math_fn(const char *s) {
    size_t n = strlen(s);
    for (const char *const *m = math_fns; *m; m++) {
        size_t k = strlen(*m);
        if (!strcmp(s, *m) || (n == k + 1 && s[k] == 'f' && !strncmp(s, *m, k))) return true;
    }
    return false;
}

static bool imported(Interp *in, const char *name) {
    for (int i = 0; i < in->func->imports.len; i++) {
        IdentFind f = {.name = name};
        c_source_idents(in->func->imports.data[i].text, ident_find, &f);
        if (f.found) return true;
    }
    return false;
}

static const char *extern_name(Interp *in, Value *v, Loc loc, const char *fname) {
    if (!v || v->kind != V_STR)
        ctx_fail(in->ctx, loc, "%s: the function's name must be a string, got %s", fname,
                 v ? val_describe(in, v) : "nothing");
    const char *s = v->u.s;
    if (!ident_ok(s)) ctx_fail(in->ctx, loc, "%s: \"%s\" is not a C identifier", fname, s);
    if (tilec_prefix(s, strlen(s)))
        ctx_fail(in->ctx, loc,
                 "%s: \"%s\": names that start with tl_, TL_ or tilec_ are tilec's own", fname, s);
    if (!imported(in, s) && !math_fn(s))
        ctx_fail(in->ctx, loc,
                 "%s: no function '%s' in the sources given to T.import_source before this call "
                 "(tilec calls functions of an imported source or of the C math library)",
                 fname, s);
    return s;
}

static ExternArg extern_arg(Interp *in, Value *v, Loc loc, const char *fname, int i) {
    ExternArg r = {0};
    if (v->kind == V_PTR) {
        r.buf = v->u.ptr.buf, r.idx = v->u.ptr.idx, r.extent = v->u.ptr.extent, r.rw = v->u.ptr.rw;
        return r;
    }
    if (v->kind == V_STR || v->kind == V_NONE || v->kind == V_REGION ||
        (v->kind == V_BUFFER && v->u.buf->scope != SCOPE_VAR))
        ctx_fail(in->ctx, loc,
                 "%s: argument %d is %s; pass numbers, expressions, or T.access_ptr(...) for a "
                 "buffer's memory",
                 fname, i + 1, val_describe(in, v));
    r.value = val_to_expr(in, v, loc, arena_printf(ARENA, "%s argument %d", fname, i + 1));
    return r;
}

void mem_thread_level(Interp *in) {
    Stmt *k = in->kernel;
    if (k && !k->u.kernel.thread[0]) k->u.kernel.thread[0] = ir_var(in->ctx, "tx", DT_INT32);
}

static Value *t_call_extern(Interp *in, CallArgs *a, void *d) {
    bool pure = d != NULL;
    const char *fname = pure ? "T.call_pure_extern" : "T.call_extern";
    Value *dtype = NULL;
    for (int k = 0; k < a->kw.len; k++) {
        if (strcmp(a->names.data[k], "dtype"))
            ctx_fail(in->ctx, a->loc, "%s() got an unexpected keyword argument '%s'", fname,
                     a->names.data[k]);
        dtype = a->kw.data[k];
    }
    int first = dtype ? 0 : 1; /* (dtype, name, *args) or (name, *args, dtype=) */
    if (a->pos.len < first + 1)
        ctx_fail(in->ctx, a->loc,
                 "%s takes the result's dtype, the function's name and its "
                 "arguments",
                 fname);
    if (!dtype) dtype = a->pos.data[0];
    need_kernel(in, a->loc, fname);
    Stmt *s = ir_stmt(in->ctx, STMT_EXTERN, a->loc);
    s->u.extern_.name = extern_name(in, a->pos.data[first], a->loc, fname);
    s->u.extern_.pure = pure;
    int n = a->pos.len - first - 1;
    s->u.extern_.nargs = n;
    s->u.extern_.args = NEW_ARRAY(ARENA, ExternArg, n + 1);
    for (int i = 0; i < n; i++)
        s->u.extern_.args[i] = extern_arg(in, a->pos.data[first + 1 + i], a->loc, fname, i);
    bool none = dtype->kind == V_NONE || (dtype->kind == V_STR && !strcmp(dtype->u.s, "handle"));
    if (!none)
        s->u.extern_.result = mem_result_slot(in, val_to_dtype(in, dtype, a->loc, "dtype"), a->loc);
    if (!pure) mem_thread_level(in);
    VEC_PUSH(ARENA, in->func->externs, s->u.extern_.name);
    emit_stmt(in, s);
    return none ? val_none(in) : val_expr(in, mem_slot_load(in, s->u.extern_.result, a->loc));
}

typedef struct Unread {
    Arena *a;
    Func *f;
    Vec(const Buffer *) dropped;
} Unread;

static void drop_unread(Stmt **slot, void *ud) {
    Unread *u = ud;
    Stmt *s = *slot;
    if (s->kind == STMT_EXTERN && s->u.extern_.result &&
        !ir_stmt_reads(u->f->body, s->u.extern_.result)) {
        VEC_PUSH(u->a, u->dropped, s->u.extern_.result);
        s->u.extern_.result = NULL;
    }
    ir_stmt_children(s, drop_unread, ud);
}

static void drop_allocs(Stmt **slot, void *ud) {
    Unread *u = ud;
    Stmt *s = *slot;
    for (int i = 0; s->kind == STMT_ALLOC && i < u->dropped.len; i++)
        if (s->u.alloc.buf == u->dropped.data[i]) s->kind = STMT_SEQ, s->u.seq = (StmtList){0};
    ir_stmt_children(s, drop_allocs, ud);
}

void mem_finish(Interp *in, Func *f) {
    if (!f->externs.len || !f->body) return;
    Unread u = {ARENA, f, {0}};
    drop_unread(&f->body, &u);
    if (u.dropped.len) drop_allocs(&f->body, &u);
}

/* ---- pointers ------------------------------------------------------------------------------ */
static Value *ptr_value(Interp *in, Buffer *b, Expr **idx, Expr *extent, int rw, Loc loc,
                        const char *fname) {
    if (is_local_view(b)) /* the same memory: a pointer into the base (views.c) */
        idx = local_view_index(in, b, idx, loc), b = b->base;
    if (b->scope == SCOPE_FRAGMENT || b->scope == SCOPE_BARRIER)
        ctx_fail(in->ctx, loc,
                 "%s of %s buffer '%s': its elements are spread over the threads' registers; "
                 "point into a T.alloc_local buffer (each thread's own), shared or global memory",
                 fname, scope_name(b->scope), b->name);
    Value *v = val_new(in, V_PTR);
    v->u.ptr.buf = b, v->u.ptr.idx = idx, v->u.ptr.extent = extent, v->u.ptr.rw = rw;
    return v;
}

static int rw_mask(Interp *in, Value *v, Loc loc, const char *fname) {
    if (!v) return 1;
    if (v->kind == V_STR && (!strcmp(v->u.s, "r") || !strcmp(v->u.s, "w") || !strcmp(v->u.s, "rw")))
        return (strchr(v->u.s, 'r') ? 1 : 0) | (strchr(v->u.s, 'w') ? 2 : 0);
    int64_t m;
    if (val_is_const_int(v, &m) && m >= 1 && m <= 3) return (int)m;
    ctx_fail(in->ctx, loc, "%s: access_type must be \"r\", \"w\", \"rw\" or 1 to 3, got %s", fname,
             val_describe(in, v));
}

static Value *t_access_ptr(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[6];
    args_bind(in, a, "T.access_ptr",
              "base, access_type=, *extents, offset=, extent=, ignore_last_ndim=", av, 6);
    need_kernel(in, a->loc, "T.access_ptr");
    Elem e = elem_of(in, av[0], a->loc, "T.access_ptr", "base");
    int rw = rw_mask(in, av[1], a->loc, "T.access_ptr");
    int nd = e.buf->ndim;
    Expr **idx = NEW_ARRAY(ARENA, Expr *, nd + 1);
    for (int k = 0; k < nd; k++) idx[k] = e.idx[k];
    int64_t ign = av[5] ? val_to_int(in, av[5], a->loc, "ignore_last_ndim") : 0;
    for (int k = nd - (int)(ign < nd ? ign : nd); k < nd; k++) idx[k] = i32(in, 0, a->loc);
    if (av[3] && !(val_is_const_int(av[3], &ign) && ign == 0)) {
        if (nd != 1)
            ctx_fail(in->ctx, a->loc,
                     "T.access_ptr(offset=) is for 1-dimensional buffers; "
                     "index '%s' instead",
                     e.buf->name);
        idx[0] = ir_bin(in->ctx, OP_ADD, idx[0], val_to_expr(in, av[3], a->loc, "offset"), a->loc);
    }
    Expr *ext = e.extent ? e.extent : i32(in, 1, a->loc);
    ValueList exts = {0}; /* the positional arguments after access_type */
    for (int k = 2; k < a->pos.len; k++) VEC_PUSH(ARENA, exts, a->pos.data[k]);
    if (exts.len == 1 && (exts.data[0]->kind == V_TUPLE || exts.data[0]->kind == V_LIST))
        exts = exts.data[0]->u.items;
    if (exts.len > nd)
        ctx_fail(in->ctx, a->loc, "T.access_ptr got %d extents for the %d-dimensional '%s'",
                 exts.len, nd, e.buf->name);
    if (exts.len) ext = i32(in, 1, a->loc);
    for (int k = 0; k < exts.len; k++)
        ext = ir_bin(in->ctx, OP_MUL, ext, val_to_expr(in, exts.data[k], a->loc, "extent"), a->loc);
    if (av[4] && av[4]->kind != V_NONE) ext = val_to_expr(in, av[4], a->loc, "extent");
    return ptr_value(in, e.buf, idx, ext, rw, a->loc, "T.access_ptr");
}

static Value *t_address_of(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.address_of", "buffer_load", av, 1);
    need_kernel(in, a->loc, "T.address_of");
    Value *v = av[0];
    if (v->kind != V_EXPR || v->u.expr->kind != EXPR_LOAD || v->u.expr->u.load.mode)
        ctx_fail(in->ctx, a->loc, "T.address_of expects a buffer element (x[i]), got %s",
                 val_describe(in, v));
    return ptr_value(in, v->u.expr->u.load.buf, v->u.expr->u.load.idx, i32(in, 1, a->loc), 3,
                     a->loc, "T.address_of");
}

/* T.tvm_access_ptr(ptype, x.data, offset, extent, rw_mask): offset counts elements of x
 * (contiguous) from its start. */
static Value *t_tvm_access_ptr(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[5];
    args_bind(in, a, "T.tvm_access_ptr", "ptype, data, offset, extent, rw_mask", av, 5);
    need_kernel(in, a->loc, "T.tvm_access_ptr");
    if (av[1]->kind != V_BUFFER)
        ctx_fail(in->ctx, a->loc, "T.tvm_access_ptr: data must be a buffer's .data, got %s",
                 val_describe(in, av[1]));
    Buffer *b = av[1]->u.buf;
    if (b->strides)
        ctx_fail(in->ctx, a->loc, "T.tvm_access_ptr: '%s' is strided; use T.access_ptr", b->name);
    Expr *off = val_to_expr(in, av[2], a->loc, "offset");
    Expr **idx = NEW_ARRAY(ARENA, Expr *, b->ndim + 1);
    for (int k = b->ndim - 1; k >= 0; k--) { /* the flat offset as indices */
        idx[k] = k ? ir_bin(in->ctx, OP_FLOORMOD, off, b->shape[k], a->loc) : off;
        if (k) off = ir_bin(in->ctx, OP_FLOORDIV, off, b->shape[k], a->loc);
    }
    int rw = rw_mask(in, av[4], a->loc, "T.tvm_access_ptr");
    return ptr_value(in, b, idx, val_to_expr(in, av[3], a->loc, "extent"), rw, a->loc,
                     "T.tvm_access_ptr");
}

static Value *t_async_copy(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[5];
    args_bind(in, a, "T.async_copy", "src, dst, coalesced_width=, annotations=, loop_layout=", av,
              5);
    return call_value(in, tl_lang_attr(in, "copy", a->loc), a);
}

/* ---- random numbers: cuRAND's Philox4x32-10, per thread (runtime/c/tl_c.h) ---------------- */
enum { RNG_WORDS = 11 }; /* TL_RNG_WORDS */

/* The kernel body with the threads' generator state declared first, so that every draw
 * after T.rng_init sees it wherever the init stands. */
Stmt *mem_rng_scope(Interp *in, Stmt *body) {
    Stmt *seq = ir_seq(in->ctx, body->loc), *a = ir_stmt(in->ctx, STMT_ALLOC, body->loc);
    a->u.alloc.buf = in->rng_state;
    ir_seq_push(in->ctx, seq, a);
    ir_seq_push(in->ctx, seq, body);
    return seq;
}

/* A thread-level call of the runtime's generator function name on the state, then args. */
static Stmt *rng_call(Interp *in, const char *name, Expr **vals, int nvals, Loc loc) {
    Stmt *s = ir_stmt(in->ctx, STMT_EXTERN, loc);
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, nvals + 1);
    args[0].buf = in->rng_state, args[0].rw = 3, args[0].extent = i32(in, RNG_WORDS, loc);
    args[0].idx = NEW_ARRAY(ARENA, Expr *, 1);
    args[0].idx[0] = i32(in, 0, loc);
    for (int i = 0; i < nvals; i++) args[i + 1].value = vals[i];
    s->u.extern_.name = name, s->u.extern_.args = args, s->u.extern_.nargs = nvals + 1;
    mem_thread_level(in);
    VEC_PUSH(ARENA, in->func->externs, name);
    return s;
}

static Expr *u64_arg(Interp *in, Value *v, Loc loc, const char *what) {
    Expr *e = val_to_expr(in, v, loc, what);
    if (!dtype_is_int(e->dtype))
        ctx_fail(in->ctx, loc, "T.rng_init: %s must be an integer, got %s", what,
                 dtype_name(e->dtype));
    return ir_cast(in->ctx, DT_UINT64, e, loc);
}

/* T.rng_init(seed, seq=None, off=0, generator=): curand_init(seed, seq, off) in every
 * thread; seq defaults to the thread's number in the grid (tx + bx * threads). */
static Value *t_rng_init(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[4];
    args_bind(in, a, "T.rng_init", "seed, seq=, off=, generator=", av, 4);
    need_kernel(in, a->loc, "T.rng_init");
    if (av[3] && (av[3]->kind != V_STR || strcmp(av[3]->u.s, "curandStatePhilox4_32_10_t")))
        ctx_fail(in->ctx, a->loc,
                 "T.rng_init: tilec's generator is \"curandStatePhilox4_32_10_t\" (cuRAND's "
                 "Philox4x32-10), got %s",
                 val_describe(in, av[3]));
    mem_thread_level(in);
    Stmt *k = in->kernel;
    Expr *seq;
    if (av[1] && av[1]->kind != V_NONE) seq = u64_arg(in, av[1], a->loc, "seq");
    else {
        Expr *tx = ir_varref(in->ctx, k->u.kernel.thread[0], a->loc);
        Expr *bx = k->u.kernel.block[0] ? ir_varref(in->ctx, k->u.kernel.block[0], a->loc)
                                        : i32(in, 0, a->loc);
        seq = ir_bin(in->ctx, OP_ADD, tx,
                     ir_bin(in->ctx, OP_MUL, bx, i32(in, k->u.kernel.threads[0], a->loc), a->loc),
                     a->loc);
        seq = ir_cast(in->ctx, DT_UINT64, seq, a->loc);
    }
    Expr *vals[3] = {u64_arg(in, av[0], a->loc, "seed"), seq,
                     av[2] ? u64_arg(in, av[2], a->loc, "off")
                           : ir_int(in->ctx, 0, DT_UINT64, a->loc)};
    if (!in->rng_state) {
        in->rng_state = ir_buffer(in->ctx, "rng_state", DT_UINT32, SCOPE_LOCAL, 1, a->loc);
        in->rng_state->shape[0] = i32(in, RNG_WORDS, a->loc);
    }
    emit_stmt(in, rng_call(in, "tl_rng_init", vals, 3, a->loc));
    return val_none(in);
}

/* T.rng_rand() (uint32) / T.rng_rand_float(bit=32, dist="uniform"): the thread's next
 * draw (curand / curand_uniform). */
static Value *t_rng_rand(Interp *in, CallArgs *a, void *d) {
    bool fl = d != NULL;
    const char *fname = fl ? "T.rng_rand_float" : "T.rng_rand";
    Value *av[2];
    args_bind(in, a, fname, fl ? "bit=, dist=" : "", av, fl ? 2 : 0);
    need_kernel(in, a->loc, fname);
    if (fl && av[0] && val_to_int(in, av[0], a->loc, "bit") != 32)
        ctx_fail(in->ctx, a->loc, "%s: only bit=32 is supported (curand_uniform)", fname);
    if (fl && av[1] && (av[1]->kind != V_STR || strcmp(av[1]->u.s, "uniform")))
        ctx_fail(in->ctx, a->loc, "%s: only dist=\"uniform\" is supported, got %s", fname,
                 val_describe(in, av[1]));
    if (!in->rng_state)
        ctx_fail(in->ctx, a->loc, "%s before T.rng_init: the thread's generator has no state",
                 fname);
    Stmt *s = rng_call(in, fl ? "tl_rng_uniform" : "tl_rng_rand", NULL, 0, a->loc);
    s->u.extern_.result = mem_result_slot(in, fl ? DT_FLOAT32 : DT_UINT32, a->loc);
    emit_stmt(in, s);
    return val_expr(in, mem_slot_load(in, s->u.extern_.result, a->loc));
}

/* ---- the table ------------------------------------------------------------------------------ */
#define I(x) ((const void *)(intptr_t)(x))
static const TName mem_fns[] = {
    {"atomic_load", t_atomic_load, NULL, NULL},
    {"atomic_store", t_atomic_scalar, I(ATOMIC_STORE), NULL},
    {"atomic_or", t_atomic_scalar, I(ATOMIC_OR), NULL},
    {"ldg32", t_wide_load, I(4 | WIDE_LOAD), NULL},
    {"ldg64", t_wide_load, I(8 | WIDE_LOAD), NULL},
    {"ldg128", t_wide_load, I(16 | WIDE_LOAD), NULL},
    {"ldg256", t_wide_load, I(32 | WIDE_LOAD), NULL},
    {"lds32", t_wide_load, I(4 | WIDE_LOAD | WIDE_SHARED), NULL},
    {"lds64", t_wide_load, I(8 | WIDE_LOAD | WIDE_SHARED), NULL},
    {"lds128", t_wide_load, I(16 | WIDE_LOAD | WIDE_SHARED), NULL},
    {"stg32", t_wide_store, I(4), NULL},
    {"stg64", t_wide_store, I(8), NULL},
    {"stg128", t_wide_store, I(16), NULL},
    {"stg256", t_wide_store, I(32), NULL},
    {"sts32", t_wide_store, I(4 | WIDE_SHARED), NULL},
    {"sts64", t_wide_store, I(8 | WIDE_SHARED), NULL},
    {"sts128", t_wide_store, I(16 | WIDE_SHARED), NULL},
    {"__ldg", t_ldg_nc, NULL, NULL},
    {"import_source", t_import_source, NULL, NULL},
    {"call_extern", t_call_extern, NULL, NULL},
    {"call_pure_extern", t_call_extern, I(1), NULL},
    {"access_ptr", t_access_ptr, NULL, NULL},
    {"address_of", t_address_of, NULL, NULL},
    {"tvm_access_ptr", t_tvm_access_ptr, NULL, NULL},
    {"async_copy", t_async_copy, NULL, NULL},
    {"rng_init", t_rng_init, NULL, NULL},
    {"rng_rand", t_rng_rand, NULL, NULL},
    {"rng_rand_float", t_rng_rand, I(1), NULL},
};
#undef I
const TNames tl_mem_names = {mem_fns, (int)(sizeof mem_fns / sizeof *mem_fns)};
