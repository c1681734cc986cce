/* emit_c.c - C11 code generation for the C target (the reference semantics).
 *
 * Requires: a Func lowered by target_c.lower (tile ops replaced by loops; scalar
 * STMT_ATOMIC, PRINT, ASSERT, SYNC, ANNOTATE_LAYOUT and SWIZZLE may remain).
 * Provides: one C file = the tl_c.h prelude, per STMT_KERNEL a block function
 * `kernelN_block` (one call runs one block, sequentially) and a launcher `kernelN`
 * (OpenMP loop over the grid, per-thread scratch memory for the block's non-global
 * buffers), and `tilec_entry`, which binds parameters and symbols and runs the
 * host-level statements (kernels in order, one after the other).
 *
 * Values: see runtime/c/tl_c.h. Narrow floats (f16, bf16, fp8) are C floats holding a
 * representable value; each narrow arithmetic result is rounded back. Indexing is done
 * in int64_t. Generated names: user names made valid/unique; ours start with tl_. */
#include "emit_c.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../../runtime/c/tl_c.h"
/* The generated header may hold other targets' files too; only tl_c.h is used here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-const-variable"
#include "embedded_runtime.h"
#pragma GCC diagnostic pop

/* ---- unique C names for vars, buffers and temporaries ------------------------------ */
typedef struct Names {
    Arena *a;
    const void **keys; /* pointer -> name map (open addressing) */
    const char **vals;
    int cap, len;
    const char **set; /* names in use (open addressing) */
    int scap, slen;
} Names;

static uint64_t hash_ptr(const void *p) {
    return ((uint64_t)(uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ull;
}

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static const char *names_lookup(const Names *n, const void *key) {
    if (!n->cap) return NULL;
    for (uint64_t i = hash_ptr(key) & (uint64_t)(n->cap - 1);; i = (i + 1) & (n->cap - 1))
        if (!n->keys[i] || n->keys[i] == key) return n->keys[i] ? n->vals[i] : NULL;
}

static bool names_used(const Names *n, const char *s) {
    if (!n->scap) return false;
    for (uint64_t i = hash_str(s) & (uint64_t)(n->scap - 1);; i = (i + 1) & (n->scap - 1))
        if (!n->set[i] || !strcmp(n->set[i], s)) return n->set[i] != NULL;
}

static void names_put_str(const char **set, int cap, const char *s) {
    uint64_t i = hash_str(s) & (uint64_t)(cap - 1);
    while (set[i]) i = (i + 1) & (uint64_t)(cap - 1);
    set[i] = s;
}

static void names_add(Names *n, const char *s) {
    if (2 * (n->slen + 1) > n->scap) {
        int ncap = n->scap ? 2 * n->scap : 256;
        const char **nset = NEW_ARRAY(n->a, const char *, ncap);
        for (int i = 0; i < n->scap; i++)
            if (n->set[i]) names_put_str(nset, ncap, n->set[i]);
        n->set = nset, n->scap = ncap;
    }
    names_put_str(n->set, n->scap, s);
    n->slen++;
}

static void names_put_ptr(const void **keys, const char **vals, int cap, const void *k,
                          const char *v) {
    uint64_t i = hash_ptr(k) & (uint64_t)(cap - 1);
    while (keys[i]) i = (i + 1) & (uint64_t)(cap - 1);
    keys[i] = k, vals[i] = v;
}

static void names_bind(Names *n, const void *key, const char *name) {
    if (2 * (n->len + 1) > n->cap) {
        int ncap = n->cap ? 2 * n->cap : 256;
        const void **nk = NEW_ARRAY(n->a, const void *, ncap);
        const char **nv = NEW_ARRAY(n->a, const char *, ncap);
        for (int i = 0; i < n->cap; i++)
            if (n->keys[i]) names_put_ptr(nk, nv, ncap, n->keys[i], n->vals[i]);
        n->keys = nk, n->vals = nv, n->cap = ncap;
    }
    names_put_ptr(n->keys, n->vals, n->cap, key, name);
    n->len++;
    names_add(n, name);
}

/* C keywords and the library names the generated code uses. */
static const char *const reserved_words[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while", "bool", "true", "false",
    "NULL", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
    "uint64_t", "size_t", "INFINITY", "NAN", "INT64_C", "UINT64_C", "INT64_MIN", "args",
    "syms", "main", "printf", "fprintf", "stdout", "stderr", "flockfile", "funlockfile",
    "malloc", "calloc", "free", "memset", "abs", "errno", "assert", "isinf", "isnan",
    "exp", "exp2", "log", "log2", "log10", "sqrt", "fabs", "floor", "ceil", "round", "trunc",
    "tanh", "sin", "cos", "tan", "erf", "log1p", "expm1", "pow", "fmod", "atan2", "fmin",
    "fmax", "nextafter", "fpclassify", "signbit",
};

static bool name_reserved(const char *s) {
    size_t n = strlen(s);
    for (size_t i = 0; i < sizeof reserved_words / sizeof *reserved_words; i++) {
        const char *w = reserved_words[i];
        size_t wn = strlen(w);
        if (!strcmp(s, w)) return true;
        if (n == wn + 1 && s[wn] == 'f' && !strncmp(s, w, wn)) return true; /* expf ... */
    }
    if (!strncmp(s, "kernel", 6)) { /* kernelN / kernelN_block are ours */
        const char *p = s + 6;
        while (*p >= '0' && *p <= '9') p++;
        if (p > s + 6 && (!*p || !strcmp(p, "_block"))) return true;
    }
    return false;
}

/* A valid C identifier close to the user's name; never starts with tl_ or _. */
static char *name_sanitize(Arena *a, const char *user) {
    size_t n = user ? strlen(user) : 0;
    char *s = arena_alloc(a, n + 3);
    size_t k = 0;
    if (!n || (user[0] >= '0' && user[0] <= '9') || user[0] == '_' || !strncmp(user, "tl_", 3))
        s[k++] = 'v';
    if (n && user[0] >= '0' && user[0] <= '9') s[k++] = '_';
    for (size_t i = 0; i < n; i++) {
        char c = user[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        s[k++] = ok || c == '_' ? c : '_';
    }
    s[k] = 0;
    return s;
}

/* The C name bound to key (a Var or Buffer), made on first use. */
static const char *names_get(Names *n, const void *key, const char *user, int id) {
    const char *got = names_lookup(n, key);
    if (got) return got;
    char *c = name_sanitize(n->a, user);
    if (name_reserved(c) || names_used(n, c)) {
        char *base = c;
        c = arena_printf(n->a, "%s_%d", base, id);
        for (int k = 2; names_used(n, c); k++) c = arena_printf(n->a, "%s_%d_%d", base, id, k);
    }
    names_bind(n, key, c);
    return c;
}

/* ---- emitter state ----------------------------------------------------------------- */
typedef Vec(const Var *) VarVec;

typedef struct Emit {
    Ctx *ctx;
    const Func *f;
    Names names;
    StrBuf kbuf, hbuf; /* kernel functions, entry function */
    StrBuf *out;       /* where statements go now */
    int indent;
    const Source *last_src; /* last "// kernel.py:LINE" comment written */
    int last_line;
    const Stmt *kernel; /* the STMT_KERNEL being emitted, NULL on the host */
    int nkernels, ntmp;
    VarVec live; /* vars declared in the enclosing C scopes */
    Vec(Buffer *) host_allocs;
} Emit;

static const char *var_name(Emit *em, const Var *v) {
    return names_get(&em->names, v, v->name, v->id);
}

static const char *buf_name(Emit *em, const Buffer *b) {
    return names_get(&em->names, b, b->name, b->id);
}

/* A fresh generated name (tl_<base><n>). */
static const char *tmp_name(Emit *em, const char *base) {
    const char *s = arena_printf(&em->ctx->arena, "tl_%s%d", base, em->ntmp++);
    names_add(&em->names, s);
    return s;
}

static void line(Emit *em, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(Emit *em, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_indent(em->out, em->indent);
    sb_vprintf(em->out, fmt, ap);
    sb_putc(em->out, '\n');
    va_end(ap);
}

static bool live_has(const Emit *em, const Var *v) {
    for (int i = 0; i < em->live.len; i++)
        if (em->live.data[i] == v) return true;
    return false;
}

static void live_add(Emit *em, const Var *v) { VEC_PUSH(&em->ctx->arena, em->live, v); }

/* ---- dtypes ------------------------------------------------------------------------ */
static bool dt_narrow_float(DType t) {
    return t == DT_FLOAT16 || t == DT_BFLOAT16 || t == DT_FLOAT8_E4M3 || t == DT_FLOAT8_E5M2;
}

/* Suffix of the tl_c.h helpers for a narrow float. */
static const char *dt_nf(DType t) {
    switch (t) {
    case DT_FLOAT16: return "f16";
    case DT_BFLOAT16: return "bf16";
    case DT_FLOAT8_E4M3: return "e4m3";
    default: return "e5m2";
    }
}

/* C type of a value of dtype t in expressions. */
static const char *dt_value(DType t) {
    switch (t) {
    case DT_BOOL: return "bool";
    case DT_INT8: return "int8_t";
    case DT_INT16: return "int16_t";
    case DT_INT32: return "int32_t";
    case DT_INT64: return "int64_t";
    case DT_UINT8: return "uint8_t";
    case DT_UINT16: return "uint16_t";
    case DT_UINT32: return "uint32_t";
    case DT_UINT64: return "uint64_t";
    case DT_FLOAT64: return "double";
    default: return "float"; /* float32 and the narrow floats */
    }
}

/* C type of an element of dtype t in memory. */
static const char *dt_storage(DType t) {
    if (t == DT_BOOL || t == DT_FLOAT8_E4M3 || t == DT_FLOAT8_E5M2) return "uint8_t";
    if (t == DT_FLOAT16 || t == DT_BFLOAT16) return "uint16_t";
    return dt_value(t);
}

/* Helper class of an integer dtype: narrow ints compute in the 32-bit helpers. */
static const char *dt_icls(DType t) {
    if (t == DT_INT64) return "i64";
    if (t == DT_UINT64) return "u64";
    return dtype_is_signed(t) ? "i32" : "u32";
}

static bool dt_int_narrow(DType t) { return dtype_is_int(t) && dtype_bits(t) < 32; }

/* Short name used by tl_f2<S> and tl_atomic_<op>_<S>. */
static const char *dt_short(DType t) {
    switch (t) {
    case DT_INT8: return "i8";
    case DT_INT16: return "i16";
    case DT_INT32: return "i32";
    case DT_INT64: return "i64";
    case DT_UINT8: case DT_BOOL: return "u8";
    case DT_UINT16: return "u16";
    case DT_UINT32: return "u32";
    case DT_UINT64: return "u64";
    case DT_FLOAT32: return "f32";
    case DT_FLOAT64: return "f64";
    default: return dt_nf(t);
    }
}

/* ---- expressions ------------------------------------------------------------------- */
static void ex(Emit *em, StrBuf *o, const Expr *e);

/* Writes the conversion of a value from `from` to `to` around the text that the caller
 * writes between conv_open and conv_close. */
static void conv_open(StrBuf *o, DType from, DType to) {
    if (from == to) return;
    if (to == DT_BOOL) sb_puts(o, "(");
    else if (dtype_is_int(to) && dtype_is_float(from)) sb_printf(o, "tl_f2%s(", dt_short(to));
    else if (dtype_is_int(to) || to == DT_FLOAT64) sb_printf(o, "((%s)", dt_value(to));
    else if (to == DT_FLOAT32) sb_puts(o, dt_narrow_float(from) ? "" : "((float)");
    else if (from == DT_FLOAT32 || dt_narrow_float(from)) sb_printf(o, "tl_round_%s(", dt_nf(to));
    else sb_printf(o, "tl_round64_%s(", dt_nf(to));
}

static void conv_close(StrBuf *o, DType from, DType to) {
    if (from == to || (to == DT_FLOAT32 && dt_narrow_float(from))) return;
    sb_puts(o, to == DT_BOOL ? " != 0)" : ")");
}

static void lit_int(StrBuf *o, int64_t v, DType t);

static void ex_as(Emit *em, StrBuf *o, const Expr *e, DType to) {
    bool lit = e->kind == EXPR_INT && dtype_is_int(e->dtype) && e->dtype != DT_BOOL;
    if (lit && (to == DT_INT64 || (to == DT_INT32 && e->u.i == (int32_t)e->u.i))) {
        lit_int(o, e->u.i, to); /* a literal needs no conversion code */
        return;
    }
    conv_open(o, e->dtype, to);
    ex(em, o, e);
    conv_close(o, e->dtype, to);
}

/* Writes e (converted to `to`) without the parentheses around the whole expression,
 * for contexts that delimit it anyway (statements, conditions, indices). */
static void ex_top(Emit *em, StrBuf *o, const Expr *e, DType to) {
    StrBuf t = {0};
    ex_as(em, &t, e, to);
    const char *s = t.buf ? t.buf : "";
    size_t n = strlen(s);
    bool strip = n >= 2 && s[0] == '(' && s[n - 1] == ')';
    for (size_t i = 0, depth = 0; strip && i + 1 < n; i++) {
        depth += s[i] == '(';
        depth -= s[i] == ')';
        if (depth == 0) strip = false; /* the first '(' closes before the end */
    }
    if (strip) sb_printf(o, "%.*s", (int)(n - 2), s + 1);
    else sb_puts(o, s);
    sb_free(&t);
}

static void lit_int(StrBuf *o, int64_t v, DType t) {
    if (t == DT_BOOL) sb_puts(o, v ? "true" : "false");
    else if (t == DT_UINT64) sb_printf(o, "UINT64_C(%llu)", (unsigned long long)v);
    else if (t == DT_UINT32) sb_printf(o, "%lluu", (unsigned long long)(uint32_t)v);
    else if (v == INT64_MIN) sb_puts(o, "INT64_MIN");
    else if (v < -2147483647 || v > 2147483647) sb_printf(o, "INT64_C(%lld)", (long long)v);
    else if (v < 0) sb_printf(o, "(%lld)", (long long)v);
    else sb_printf(o, "%lld", (long long)v);
}

/* Append ".0" when a printed number would read as an integer. */
static void lit_number(StrBuf *o, const char *fmt, double v, const char *suffix) {
    char tmp[64];
    snprintf(tmp, sizeof tmp, fmt, v);
    bool neg = tmp[0] == '-';
    sb_puts(o, neg ? "(" : "");
    sb_puts(o, tmp);
    if (!strpbrk(tmp, ".eEn")) sb_puts(o, ".0");
    sb_puts(o, suffix);
    sb_puts(o, neg ? ")" : "");
}

static void lit_float(StrBuf *o, double v, DType t) {
    if (dtype_is_int(t)) {
        lit_int(o, (int64_t)v, t);
        return;
    }
    if (isinf(v) && t != DT_FLOAT8_E4M3) { /* +-inf exists in the dtype (reduce inits) */
    } else if (t == DT_FLOAT16) v = tl_round64_f16(v);
    else if (t == DT_BFLOAT16) v = tl_round64_bf16(v);
    else if (t == DT_FLOAT8_E4M3) v = tl_round64_e4m3(v);
    else if (t == DT_FLOAT8_E5M2) v = tl_round64_e5m2(v);
    if (isnan(v)) sb_puts(o, "NAN");
    else if (isinf(v)) sb_puts(o, v > 0 ? "INFINITY" : "(-INFINITY)");
    else if (t == DT_FLOAT64) lit_number(o, "%.17g", v, "");
    else lit_number(o, "%.9g", (double)(float)v, "f");
}

/* Name of the libm function for a float dtype: "exp" -> "expf" unless float64. */
static void fmath(StrBuf *o, DType t, const char *fn) {
    sb_printf(o, "%s%s(", fn, t == DT_FLOAT64 ? "" : "f");
}

static void ex_bin_float(Emit *em, StrBuf *o, const Expr *e) {
    DType t = e->dtype;
    BinOp op = e->u.bin.op;
    bool narrow = dt_narrow_float(t);
    if (narrow && op != OP_MIN && op != OP_MAX) sb_printf(o, "tl_round_%s(", dt_nf(t));
    const char *infix = op == OP_ADD ? " + " : op == OP_SUB ? " - " : op == OP_MUL ? " * "
                        : op == OP_DIV ? " / " : NULL;
    if (infix) sb_puts(o, "(");
    else if (op == OP_FLOORDIV) {
        fmath(o, t, "floor");
        if (narrow) sb_printf(o, "tl_round_%s(", dt_nf(t));
        sb_puts(o, "(");
        infix = " / ";
    } else if (op == OP_FLOORMOD) sb_printf(o, "tl_floormod_%s(", t == DT_FLOAT64 ? "f64" : "f32");
    else if (op == OP_MIN) fmath(o, t, "fmin");
    else if (op == OP_MAX) fmath(o, t, "fmax");
    else if (op == OP_POW) fmath(o, t, "pow");
    else tl_internal_error(__FILE__, __LINE__, "bit operation on a float in the C emitter");
    ex_as(em, o, e->u.bin.a, t);
    sb_puts(o, infix ? infix : ", ");
    ex_as(em, o, e->u.bin.b, t);
    sb_puts(o, ")");
    if (op == OP_FLOORDIV) sb_puts(o, narrow ? "))" : ")");
    if (narrow && op != OP_MIN && op != OP_MAX) sb_puts(o, ")");
}

static void ex_bin_int(Emit *em, StrBuf *o, const Expr *e) {
    static const char *const helper[BINOP_COUNT] = {
        [OP_DIV] = "div", [OP_FLOORDIV] = "floordiv", [OP_FLOORMOD] = "floormod",
        [OP_MIN] = "min", [OP_MAX] = "max", [OP_POW] = "pow", [OP_SHL] = "shl",
        [OP_SHR] = "shr",
    };
    static const char *const infix[BINOP_COUNT] = {
        [OP_ADD] = " + ", [OP_SUB] = " - ", [OP_MUL] = " * ", [OP_BITAND] = " & ",
        [OP_BITOR] = " | ", [OP_BITXOR] = " ^ ",
    };
    DType t = e->dtype;
    BinOp op = e->u.bin.op;
    bool wrap = dt_int_narrow(t);
    TL_ASSERT(helper[op] || infix[op]);
    if (wrap) sb_printf(o, "((%s)", dt_value(t));
    if (helper[op]) sb_printf(o, "tl_%s_%s(", helper[op], dt_icls(t));
    else sb_puts(o, "(");
    ex_as(em, o, e->u.bin.a, t);
    sb_puts(o, helper[op] ? ", " : infix[op]);
    ex_as(em, o, e->u.bin.b, t);
    sb_puts(o, wrap ? "))" : ")");
}

static void ex_bin(Emit *em, StrBuf *o, const Expr *e) {
    BinOp op = e->u.bin.op;
    const Expr *a = e->u.bin.a, *b = e->u.bin.b;
    if (op >= OP_LT && op <= OP_NE) {
        static const char *const cmp[] = {" < ", " <= ", " > ", " >= ", " == ", " != "};
        DType pt = dtype_promote(a->dtype, b->dtype);
        sb_puts(o, "(");
        ex_as(em, o, a, pt);
        sb_puts(o, cmp[op - OP_LT]);
        ex_as(em, o, b, pt);
        sb_puts(o, ")");
    } else if (op == OP_AND || op == OP_OR) {
        sb_puts(o, "(");
        ex_as(em, o, a, DT_BOOL);
        sb_puts(o, op == OP_AND ? " && " : " || ");
        ex_as(em, o, b, DT_BOOL);
        sb_puts(o, ")");
    } else if (dtype_is_float(e->dtype)) {
        ex_bin_float(em, o, e);
    } else {
        ex_bin_int(em, o, e);
    }
}

static void ex_un(Emit *em, StrBuf *o, const Expr *e) {
    DType t = e->dtype;
    bool wrap = dt_int_narrow(t) && t != DT_BOOL;
    if (e->u.un.op == OP_NOT) {
        sb_puts(o, "(!");
        ex(em, o, e->u.un.a);
        sb_puts(o, ")");
        return;
    }
    if (wrap) sb_printf(o, "((%s)", dt_value(t));
    if (e->u.un.op == OP_NEG && dtype_is_signed(t) && !dtype_is_float(t))
        sb_printf(o, "tl_neg_%s(", dt_icls(t));
    else sb_puts(o, e->u.un.op == OP_NEG ? "(-" : "(~");
    ex_as(em, o, e->u.un.a, t);
    sb_puts(o, wrap ? "))" : ")");
}

/* Float intrinsics: libm name (f-suffixed for float32) or a tl_c.h helper. */
static const char *intrinsic_cname(Intrinsic fn) {
    switch (fn) {
    case FN_ABS: return "fabs";
    case FN_RSQRT: return "tl_rsqrt";
    case FN_SIGMOID: return "tl_sigmoid";
    default: return intrinsic_name(fn);
    }
}

static void ex_call_args(Emit *em, StrBuf *o, const Expr *e, DType t) {
    int n = intrinsic_nargs(e->u.call.fn);
    for (int i = 0; i < n; i++) {
        if (i) sb_puts(o, ", ");
        ex_as(em, o, e->u.call.args[i], t);
    }
    sb_puts(o, ")");
}

static void ex_call_int(Emit *em, StrBuf *o, const Expr *e) {
    DType t = e->dtype;
    Intrinsic fn = e->u.call.fn;
    bool wrap = dt_int_narrow(t);
    if (fn == FN_FLOOR || fn == FN_CEIL || fn == FN_ROUND || fn == FN_TRUNC) {
        ex_as(em, o, e->u.call.args[0], t); /* integral already */
        return;
    }
    if (fn != FN_ABS && fn != FN_POW)
        ctx_fail(em->ctx, e->loc, "T.%s needs a floating-point argument, got %s",
                 intrinsic_name(fn), dtype_name(t));
    if (wrap) sb_printf(o, "((%s)", dt_value(t));
    sb_printf(o, "tl_%s_%s(", fn == FN_ABS ? "abs" : "pow", dt_icls(t));
    ex_call_args(em, o, e, t);
    if (wrap) sb_puts(o, ")");
}

static void ex_call(Emit *em, StrBuf *o, const Expr *e) {
    Intrinsic fn = e->u.call.fn;
    const Expr *arg = e->u.call.args[0];
    if (fn == FN_ISINF || fn == FN_ISNAN) {
        if (!dtype_is_float(arg->dtype)) {
            sb_puts(o, "false");
            return;
        }
        sb_printf(o, "(%s(", fn == FN_ISINF ? "isinf" : "isnan");
        ex(em, o, arg);
        sb_puts(o, ") != 0)");
        return;
    }
    DType t = e->dtype;
    if (!dtype_is_float(t)) {
        ex_call_int(em, o, e);
        return;
    }
    bool narrow = dt_narrow_float(t);
    if (narrow) sb_printf(o, "tl_round_%s(", dt_nf(t));
    const char *name = intrinsic_cname(fn);
    if (!strncmp(name, "tl_", 3)) sb_printf(o, "%s_%s(", name, t == DT_FLOAT64 ? "f64" : "f32");
    else fmath(o, t, name);
    ex_call_args(em, o, e, t);
    if (narrow) sb_puts(o, ")");
}

/* Index term: a value of an index expression widened to int64_t. */
static void ex_index(Emit *em, StrBuf *o, const Expr *e) {
    int64_t c;
    if (ir_is_const_int(e, &c)) {
        sb_printf(o, "%lld", (long long)c);
        return;
    }
    if (e->dtype != DT_INT64 && e->dtype != DT_UINT64) sb_puts(o, "(int64_t)");
    ex(em, o, e);
}

/* Writes the element offset of buffer b at idx (b->ndim entries). */
static void ex_offset(Emit *em, StrBuf *o, const Buffer *b, Expr *const *idx) {
    if (b->ndim == 0) {
        sb_puts(o, "0");
    } else if (b->strides) {
        for (int d = 0; d < b->ndim; d++) {
            int64_t c;
            if (d) sb_puts(o, " + ");
            ex_index(em, o, idx[d]);
            if (ir_is_const_int(b->strides[d], &c) && c == 1) continue;
            sb_puts(o, " * ");
            ex(em, o, b->strides[d]);
        }
    } else if (b->ndim == 1) {
        ex_top(em, o, idx[0], idx[0]->dtype);
    } else {
        for (int d = 2; d < b->ndim; d++) sb_puts(o, "(");
        ex_index(em, o, idx[0]);
        for (int d = 1; d < b->ndim; d++) {
            sb_puts(o, " * ");
            ex(em, o, b->shape[d]);
            sb_puts(o, " + ");
            ex(em, o, idx[d]);
            if (d < b->ndim - 1) sb_puts(o, ")");
        }
    }
}

/* Writes the lvalue of the element: name[offset]. */
static void ex_elem(Emit *em, StrBuf *o, const Buffer *b, Expr *const *idx) {
    sb_printf(o, "%s[", buf_name(em, b));
    ex_offset(em, o, b, idx);
    sb_puts(o, "]");
}

static void ex_load(Emit *em, StrBuf *o, const Expr *e) {
    const Buffer *b = e->u.load.buf;
    conv_open(o, b->dtype, e->dtype); /* a load's dtype is normally its buffer's */
    if (dt_narrow_float(b->dtype)) sb_printf(o, "tl_%s_to_f32(", dt_nf(b->dtype));
    else if (b->dtype == DT_BOOL) sb_puts(o, "(");
    ex_elem(em, o, b, e->u.load.idx);
    if (dt_narrow_float(b->dtype)) sb_puts(o, ")");
    else if (b->dtype == DT_BOOL) sb_puts(o, " != 0)");
    conv_close(o, b->dtype, e->dtype);
}

static void ex(Emit *em, StrBuf *o, const Expr *e) {
    switch (e->kind) {
    case EXPR_INT: lit_int(o, e->u.i, e->dtype); break;
    case EXPR_FLOAT: lit_float(o, e->u.f, e->dtype); break;
    case EXPR_VAR: sb_puts(o, var_name(em, e->u.var)); break;
    case EXPR_BIN: ex_bin(em, o, e); break;
    case EXPR_UN: ex_un(em, o, e); break;
    case EXPR_CALL: ex_call(em, o, e); break;
    case EXPR_CAST: ex_as(em, o, e->u.cast.value, e->dtype); break;
    case EXPR_LOAD: ex_load(em, o, e); break;
    case EXPR_SELECT:
        sb_puts(o, "(");
        ex_as(em, o, e->u.select.cond, DT_BOOL);
        sb_puts(o, " ? ");
        ex_as(em, o, e->u.select.then, e->dtype);
        sb_puts(o, " : ");
        ex_as(em, o, e->u.select.orelse, e->dtype);
        sb_puts(o, ")");
        break;
    default: tl_internal_error(__FILE__, __LINE__, "unknown expression kind");
    }
}

/* Expression text in the arena; top: without the outer parentheses (see ex_top). */
static const char *ex_str(Emit *em, const Expr *e, DType as, bool top) {
    StrBuf sb = {0};
    if (top) ex_top(em, &sb, e, as);
    else ex_as(em, &sb, e, as);
    char *s = arena_strdup(&em->ctx->arena, sb.buf ? sb.buf : "");
    sb_free(&sb);
    return s;
}

static bool expr_has_load(const Expr *e) {
    switch (e->kind) {
    case EXPR_LOAD: return true;
    case EXPR_BIN: return expr_has_load(e->u.bin.a) || expr_has_load(e->u.bin.b);
    case EXPR_UN: return expr_has_load(e->u.un.a);
    case EXPR_CAST: return expr_has_load(e->u.cast.value);
    case EXPR_CALL:
        return expr_has_load(e->u.call.args[0]) ||
               (e->u.call.args[1] && expr_has_load(e->u.call.args[1]));
    case EXPR_SELECT:
        return expr_has_load(e->u.select.cond) || expr_has_load(e->u.select.then) ||
               expr_has_load(e->u.select.orelse);
    default: return false;
    }
}

/* A C string literal for s. */
static void c_string(StrBuf *o, const char *s) {
    sb_putc(o, '"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c == '?') sb_printf(o, "\\%c", c);
        else if (c == '\n') sb_puts(o, "\\n");
        else if (c < 0x20 || c >= 0x7f) sb_printf(o, "\\%03o", c);
        else sb_putc(o, (char)c);
    }
    sb_putc(o, '"');
}

static const char *loc_where(Emit *em, Loc loc) {
    if (!loc.src || !loc.src->name) return "kernel";
    const char *base = strrchr(loc.src->name, '/');
    return arena_printf(&em->ctx->arena, "%s:%d", base ? base + 1 : loc.src->name, loc.line);
}

/* ---- statements -------------------------------------------------------------------- */
static void emit_stmt(Emit *em, const Stmt *s);

static void loc_comment(Emit *em, Loc loc) {
    if (!loc.src || (loc.src == em->last_src && loc.line == em->last_line)) return;
    em->last_src = loc.src, em->last_line = loc.line;
    line(em, "// %s", loc_where(em, loc));
}

/* Emits body as a braced block: "{" is already written by the caller. */
static void emit_block_body(Emit *em, const Stmt *body) {
    int mark = em->live.len;
    em->indent++;
    if (body) emit_stmt(em, body);
    em->indent--;
    em->live.len = mark;
    line(em, "}");
}

static void emit_for(Emit *em, const Stmt *s) {
    const Var *v = s->u.for_.var;
    DType t = v->dtype;
    const char *i = var_name(em, v), *ty = dt_value(t);
    const char *mn = ex_str(em, s->u.for_.min, t, false);
    const char *ext = ex_str(em, s->u.for_.extent, t, false);
    int64_t cmin, cext;
    const char *kind = s->u.for_.kind == LOOP_SERIAL ? ""
                       : arena_printf(&em->ctx->arena, "  /* %s */",
                                      loop_kind_name(s->u.for_.kind));
    bool kmin = ir_is_const_int(s->u.for_.min, &cmin);
    if (kmin && ir_is_const_int(s->u.for_.extent, &cext)) {
        line(em, "for (%s %s = %lld; %s < %lld; ++%s) {%s", ty, i, (long long)cmin, i,
             (long long)(cmin + cext), i, kind);
    } else if (expr_has_load(s->u.for_.min) || expr_has_load(s->u.for_.extent)) {
        const char *end = tmp_name(em, "end");
        line(em, "for (%s %s = %s, %s = %s + %s; %s < %s; ++%s) {%s", ty, i,
             ex_str(em, s->u.for_.min, t, true), end, i, ext, i, end, i, kind);
    } else if (kmin && cmin == 0) {
        line(em, "for (%s %s = 0; %s < %s; ++%s) {%s", ty, i, i, ext, i, kind);
    } else {
        line(em, "for (%s %s = %s; %s < %s + %s; ++%s) {%s", ty, i,
             ex_str(em, s->u.for_.min, t, true), i, mn, ext, i, kind);
    }
    live_add(em, v);
    emit_block_body(em, s->u.for_.body);
}

static void emit_if(Emit *em, const Stmt *s, bool chained) {
    StrBuf *o = em->out;
    if (!chained) sb_indent(o, em->indent);
    sb_puts(o, "if (");
    ex_top(em, o, s->u.if_.cond, DT_BOOL);
    sb_puts(o, ") {\n");
    int mark = em->live.len;
    em->indent++;
    emit_stmt(em, s->u.if_.then);
    em->indent--;
    em->live.len = mark;
    const Stmt *e = s->u.if_.orelse;
    if (!e) {
        line(em, "}");
    } else if (e->kind == STMT_IF) {
        sb_indent(o, em->indent);
        sb_puts(o, "} else ");
        emit_if(em, e, true);
    } else {
        line(em, "} else {");
        emit_block_body(em, e);
    }
}

/* Stores value (any dtype; converted to the buffer's) into b[idx]. A load of the same
 * dtype is copied bit for bit (as a GPU copy does); a float32 value cast to a narrow
 * dtype is encoded directly (the cast's rounding and the encoding are one step). */
static void emit_store(Emit *em, const Buffer *b, Expr *const *idx, const Expr *value) {
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    ex_elem(em, o, b, idx);
    sb_puts(o, " = ");
    if (value->kind == EXPR_LOAD && value->dtype == b->dtype &&
        value->u.load.buf->dtype == b->dtype) {
        ex_elem(em, o, value->u.load.buf, value->u.load.idx);
        sb_puts(o, ";\n");
        return;
    }
    if (dt_narrow_float(b->dtype) && value->kind == EXPR_CAST && value->dtype == b->dtype &&
        (value->u.cast.value->dtype == DT_FLOAT32 || dt_narrow_float(value->u.cast.value->dtype)))
        value = value->u.cast.value; /* as float32: encoded below */
    if (dt_narrow_float(b->dtype)) sb_printf(o, "tl_f32_to_%s(", dt_nf(b->dtype));
    if (b->dtype == DT_BOOL) {
        sb_puts(o, "(uint8_t)");
        ex_as(em, o, value, b->dtype);
    } else {
        bool as_f32 = value->dtype == DT_FLOAT32 || dt_narrow_float(value->dtype);
        ex_top(em, o, value, dt_narrow_float(b->dtype) && as_f32 ? DT_FLOAT32 : b->dtype);
    }
    sb_puts(o, dt_narrow_float(b->dtype) ? ");\n" : ";\n");
}

static void emit_let(Emit *em, const Stmt *s) {
    const Var *v = s->u.let.var;
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    if (!live_has(em, v)) sb_printf(o, "%s ", dt_value(v->dtype));
    sb_printf(o, "%s = ", var_name(em, v));
    ex_top(em, o, s->u.let.value, v->dtype);
    sb_puts(o, ";\n");
    if (!live_has(em, v)) live_add(em, v);
}

/* Host-level T.alloc_global: zeroed heap memory, freed at the end of tilec_entry. */
static void emit_host_alloc(Emit *em, Buffer *b) {
    StrBuf *o = em->out;
    const char *n = buf_name(em, b);
    VEC_PUSH(&em->ctx->arena, em->host_allocs, b);
    sb_indent(o, em->indent);
    sb_printf(o, "%s = (%s *)calloc((size_t)(1", n, dt_storage(b->dtype));
    for (int d = 0; d < b->ndim; d++) {
        sb_puts(o, " * ");
        ex_index(em, o, b->shape[d]);
    }
    sb_printf(o, ") + 1, sizeof(%s));\n", dt_storage(b->dtype));
    line(em, "if (!%s) {", n);
    line(em, "    fprintf(stderr, \"tilec: out of memory for T.alloc_global '%%s'\\n\", "
             "\"%s\");", n);
    line(em, "    tl_status = 1;");
    line(em, "    goto tl_done;");
    line(em, "}");
}

static void emit_alloc(Emit *em, const Stmt *s) {
    Buffer *b = s->u.alloc.buf;
    if (b->scope == SCOPE_BARRIER)
        ctx_fail(em->ctx, s->loc, "T.alloc_barrier: mbarriers have no meaning on the C target");
    if (b->scope == SCOPE_GLOBAL) {
        if (em->kernel)
            ctx_fail(em->ctx, s->loc,
                     "T.alloc_global inside T.Kernel is not supported on the C target");
        emit_host_alloc(em, b);
        return;
    }
    if (!em->kernel)
        ctx_fail(em->ctx, s->loc, "T.alloc_%s '%s' outside T.Kernel", scope_name(b->scope),
                 b->name);
    if (b->scope == SCOPE_VAR && b->init) {
        Expr *zero[8] = {0};
        TL_ASSERT(b->ndim <= 8);
        for (int d = 0; d < b->ndim; d++) zero[d] = ir_int(em->ctx, 0, DT_INT32, s->loc);
        emit_store(em, b, zero, b->init);
    }
}

static void emit_block_idx_args(Emit *em, StrBuf *o) {
    for (int d = 0; d < 3; d++) {
        const Stmt *k = em->kernel;
        if (k && d < k->u.kernel.ngrid && k->u.kernel.block[d])
            sb_printf(o, ", (long long)%s", var_name(em, k->u.kernel.block[d]));
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

static void emit_print_value(Emit *em, const Stmt *s) {
    const Expr *v = s->u.print.value;
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_printf(o, "printf(\"%%s: BlockIdx=(%%lld, %%lld, %%lld) dtype=%s value=%s\\n\", ",
              dtype_name(v->dtype), print_fmt(v->dtype));
    c_string(o, s->u.print.msg ? s->u.print.msg : "");
    emit_block_idx_args(em, o);
    sb_printf(o, ", %s", print_cast(v->dtype));
    ex(em, o, v);
    sb_puts(o, ");\n");
}

/* Prints each element of the region, with its index, under one stdout lock. */
static void emit_print_region(Emit *em, const Stmt *s) {
    const Region *r = &s->u.print.region;
    Buffer *b = r->buf;
    Expr **idx = NEW_ARRAY(&em->ctx->arena, Expr *, r->ndim > 0 ? r->ndim : 1);
    line(em, "flockfile(stdout);");
    int depth = 0;
    for (int d = 0; d < r->ndim; d++, depth++) {
        Var *iv = ir_var(em->ctx, "i", DT_INT64);
        names_bind(&em->names, iv, tmp_name(em, "i"));
        line(em, "for (int64_t %s = 0; %s < %s; ++%s) {", var_name(em, iv), var_name(em, iv),
             ex_str(em, r->extent[d], DT_INT64, false), var_name(em, iv));
        em->indent++;
        Expr *start = ir_cast(em->ctx, DT_INT64, r->start[d], s->loc);
        idx[d] = ir_bin(em->ctx, OP_ADD, start, ir_varref(em->ctx, iv, s->loc), s->loc);
    }
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_printf(o, "printf(\"%%s: BlockIdx=(%%lld, %%lld, %%lld) %%s[");
    for (int d = 0; d < r->ndim; d++) sb_puts(o, d ? ", %lld" : "%lld");
    sb_printf(o, "] dtype=%s value=%s\\n\", ", dtype_name(b->dtype), print_fmt(b->dtype));
    c_string(o, s->u.print.msg ? s->u.print.msg : "");
    emit_block_idx_args(em, o);
    sb_puts(o, ", ");
    c_string(o, b->name);
    for (int d = 0; d < r->ndim; d++) {
        sb_puts(o, ", (long long)");
        ex(em, o, idx[d]);
    }
    sb_printf(o, ", %s", print_cast(b->dtype));
    ex(em, o, ir_load(em->ctx, b, idx, s->loc));
    sb_puts(o, ");\n");
    for (; depth > 0; depth--) {
        em->indent--;
        line(em, "}");
    }
    line(em, "funlockfile(stdout);");
}

static void emit_assert(Emit *em, const Stmt *s) {
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_puts(o, "if (!");
    ex_as(em, o, s->u.assert_.cond, DT_BOOL);
    sb_puts(o, ") {\n");
    sb_indent(o, em->indent + 1);
    sb_puts(o, "tl_assert_fail(");
    c_string(o, loc_where(em, s->loc));
    sb_puts(o, ", ");
    c_string(o, s->u.assert_.msg ? s->u.assert_.msg : "T.device_assert");
    emit_block_idx_args(em, o);
    sb_puts(o, ");\n");
    if (em->kernel) {
        line(em, "    return 1;");
    } else {
        line(em, "    tl_status = 1;");
        line(em, "    goto tl_done;");
    }
    line(em, "}");
}

static void emit_atomic(Emit *em, const Stmt *s) {
    const Region *d = &s->u.atomic.dst;
    if (s->u.atomic.src.buf || !s->u.atomic.value)
        tl_internal_error(__FILE__, __LINE__, "tile atomic reached the C emitter");
    DType t = d->buf->dtype;
    StrBuf *o = em->out;
    AtomicOp op = s->u.atomic.op;
    bool omp = op == ATOMIC_ADD && (t == DT_INT32 || t == DT_INT64 || t == DT_UINT32 ||
                                    t == DT_UINT64 || t == DT_FLOAT32 || t == DT_FLOAT64);
    if (omp) {
        line(em, "#pragma omp atomic update");
        sb_indent(o, em->indent);
        ex_elem(em, o, d->buf, d->start);
        sb_puts(o, " += ");
    } else {
        sb_indent(o, em->indent);
        sb_printf(o, "tl_atomic_%s_%s(&", atomic_op_name(op), dt_short(t));
        ex_elem(em, o, d->buf, d->start);
        sb_puts(o, ", ");
    }
    ex_top(em, o, s->u.atomic.value, t == DT_BOOL ? DT_UINT8 : t);
    sb_puts(o, omp ? ";\n" : ");\n");
}

static void emit_kernel_call(Emit *em, const Stmt *s);

/* Whether s writes any C (ALLOCs of block buffers only reserve scratch memory). */
static bool stmt_emits(const Emit *em, const Stmt *s) {
    if (s->kind == STMT_SEQ) return false;
    if (s->kind != STMT_ALLOC) return true;
    const Buffer *b = s->u.alloc.buf;
    return !em->kernel || b->scope == SCOPE_GLOBAL || (b->scope == SCOPE_VAR && b->init);
}

static void emit_stmt(Emit *em, const Stmt *s) {
    if (stmt_emits(em, s)) loc_comment(em, s->loc);
    switch (s->kind) {
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) emit_stmt(em, s->u.seq.data[i]);
        break;
    case STMT_FOR: emit_for(em, s); break;
    case STMT_WHILE:
        line(em, "while (%s) {", ex_str(em, s->u.while_.cond, DT_BOOL, true));
        emit_block_body(em, s->u.while_.body);
        break;
    case STMT_IF: emit_if(em, s, false); break;
    case STMT_BREAK: line(em, "break;"); break;
    case STMT_CONTINUE: line(em, "continue;"); break;
    case STMT_STORE: emit_store(em, s->u.store.buf, s->u.store.idx, s->u.store.value); break;
    case STMT_LET: emit_let(em, s); break;
    case STMT_ALLOC: emit_alloc(em, s); break;
    case STMT_KERNEL:
        if (em->kernel) ctx_fail(em->ctx, s->loc, "T.Kernel inside T.Kernel");
        emit_kernel_call(em, s);
        break;
    case STMT_ATOMIC: emit_atomic(em, s); break;
    case STMT_PRINT:
        if (s->u.print.region.buf) emit_print_region(em, s);
        else emit_print_value(em, s);
        break;
    case STMT_ASSERT: emit_assert(em, s); break;
    case STMT_SYNC: line(em, "/* T.sync_threads: a block runs on one CPU thread */"); break;
    case STMT_ANNOTATE_LAYOUT:
        line(em, "/* T.annotate_layout: no effect on the C target */");
        break;
    case STMT_SWIZZLE: line(em, "/* T.use_swizzle: block order does not matter here */"); break;
    default: tl_internal_error(__FILE__, __LINE__, "tile op reached the C emitter unlowered");
    }
}

/* ---- kernels: what a kernel body uses ------------------------------------------------ */
typedef struct Uses {
    Vec(const Var *) defined;
    Vec(const Var *) free; /* used before (outside) any definition in the kernel */
    Vec(Buffer *) globals;
    Vec(Buffer *) scratch;
} Uses;

#define VEC_HAS(v, x, found)                                                             \
    do {                                                                                 \
        found = false;                                                                   \
        for (int i_ = 0; i_ < (v).len && !found; i_++) found = (v).data[i_] == (x);      \
    } while (0)

static void uses_expr(Emit *em, Uses *u, const Expr *e);

static void uses_var(Emit *em, Uses *u, const Var *v) {
    bool found;
    VEC_HAS(u->defined, v, found);
    if (!found) VEC_HAS(u->free, v, found);
    if (!found) VEC_PUSH(&em->ctx->arena, u->free, v);
}

static void uses_buf(Emit *em, Uses *u, Buffer *b) {
    bool found;
    if (b->scope == SCOPE_GLOBAL) VEC_HAS(u->globals, b, found);
    else VEC_HAS(u->scratch, b, found);
    if (found) return;
    if (b->scope == SCOPE_GLOBAL) VEC_PUSH(&em->ctx->arena, u->globals, b);
    else VEC_PUSH(&em->ctx->arena, u->scratch, b);
    for (int d = 0; d < b->ndim; d++) {
        uses_expr(em, u, b->shape[d]);
        if (b->strides) uses_expr(em, u, b->strides[d]);
    }
    if (b->init) uses_expr(em, u, b->init);
    if (b->safe_value) uses_expr(em, u, b->safe_value);
}

static void uses_expr(Emit *em, Uses *u, const Expr *e) {
    if (!e) return;
    switch (e->kind) {
    case EXPR_VAR: uses_var(em, u, e->u.var); break;
    case EXPR_BIN: uses_expr(em, u, e->u.bin.a), uses_expr(em, u, e->u.bin.b); break;
    case EXPR_UN: uses_expr(em, u, e->u.un.a); break;
    case EXPR_CALL:
        uses_expr(em, u, e->u.call.args[0]);
        uses_expr(em, u, e->u.call.args[1]);
        break;
    case EXPR_CAST: uses_expr(em, u, e->u.cast.value); break;
    case EXPR_LOAD:
        uses_buf(em, u, e->u.load.buf);
        for (int d = 0; d < e->u.load.buf->ndim; d++) uses_expr(em, u, e->u.load.idx[d]);
        break;
    case EXPR_SELECT:
        uses_expr(em, u, e->u.select.cond);
        uses_expr(em, u, e->u.select.then);
        uses_expr(em, u, e->u.select.orelse);
        break;
    default: break;
    }
}

static void uses_region(Emit *em, Uses *u, const Region *r) {
    if (!r->buf) return;
    uses_buf(em, u, r->buf);
    for (int d = 0; d < r->ndim; d++) {
        uses_expr(em, u, r->start[d]);
        if (r->extent) uses_expr(em, u, r->extent[d]);
    }
}

static void uses_stmt(Emit *em, Uses *u, const Stmt *s) {
    if (!s) return;
    switch (s->kind) {
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) uses_stmt(em, u, s->u.seq.data[i]);
        break;
    case STMT_FOR:
        uses_expr(em, u, s->u.for_.min);
        uses_expr(em, u, s->u.for_.extent);
        VEC_PUSH(&em->ctx->arena, u->defined, s->u.for_.var);
        uses_stmt(em, u, s->u.for_.body);
        break;
    case STMT_WHILE: uses_expr(em, u, s->u.while_.cond), uses_stmt(em, u, s->u.while_.body); break;
    case STMT_IF:
        uses_expr(em, u, s->u.if_.cond);
        uses_stmt(em, u, s->u.if_.then);
        uses_stmt(em, u, s->u.if_.orelse);
        break;
    case STMT_STORE:
        uses_buf(em, u, s->u.store.buf);
        for (int d = 0; d < s->u.store.buf->ndim; d++) uses_expr(em, u, s->u.store.idx[d]);
        uses_expr(em, u, s->u.store.value);
        break;
    case STMT_LET:
        uses_expr(em, u, s->u.let.value);
        VEC_PUSH(&em->ctx->arena, u->defined, s->u.let.var);
        break;
    case STMT_ALLOC: uses_buf(em, u, s->u.alloc.buf); break;
    case STMT_KERNEL:
        for (int d = 0; d < s->u.kernel.ngrid; d++) {
            uses_expr(em, u, s->u.kernel.grid[d]);
            if (s->u.kernel.block[d])
                VEC_PUSH(&em->ctx->arena, u->defined, s->u.kernel.block[d]);
        }
        uses_stmt(em, u, s->u.kernel.body);
        break;
    case STMT_ATOMIC:
        uses_region(em, u, &s->u.atomic.dst);
        uses_region(em, u, &s->u.atomic.src);
        uses_expr(em, u, s->u.atomic.value);
        break;
    case STMT_PRINT:
        uses_expr(em, u, s->u.print.value);
        uses_region(em, u, &s->u.print.region);
        break;
    case STMT_ASSERT: uses_expr(em, u, s->u.assert_.cond); break;
    default: break;
    }
}

/* ---- kernels: block function, launcher, call ---------------------------------------- */
/* Scratch layout: each non-global buffer at a 64-byte aligned offset. Returns the total. */
static int64_t scratch_layout(Emit *em, const Uses *u, int64_t *offs) {
    int64_t total = 0;
    for (int i = 0; i < u->scratch.len; i++) {
        Buffer *b = u->scratch.data[i];
        int64_t n = 1, c;
        if (b->scope == SCOPE_BARRIER)
            ctx_fail(em->ctx, b->loc,
                     "T.alloc_barrier: mbarriers have no meaning on the C target");
        for (int d = 0; d < b->ndim; d++) {
            if (!ir_is_const_int(b->shape[d], &c))
                ctx_fail(em->ctx, b->loc, "the C target needs a constant shape for %s buffer '%s'",
                         scope_name(b->scope), b->name);
            n *= c > 0 ? c : 0;
        }
        offs[i] = total;
        total += (n * dtype_bytes(b->dtype) + 63) / 64 * 64;
    }
    return total;
}

/* Appends ", item" (or the first item), breaking the line before it gets long. */
static void list_item(StrBuf *o, bool first, const char *item) {
    const char *nl = o->buf ? strrchr(o->buf, '\n') : NULL;
    const char *start = nl ? nl + 1 : o->buf ? o->buf : "";
    size_t col = o->len - (size_t)(start - (o->buf ? o->buf : start));
    if (!first && col + strlen(item) + 2 > 96) {
        sb_printf(o, ",\n%*s", (int)strspn(start, " ") + 8, ""); /* continuation line */
    } else if (!first) {
        sb_puts(o, ", ");
    }
    sb_puts(o, item);
}

/* "float *A, int32_t M" : the kernel's global buffers and free variables. */
static void kernel_params(Emit *em, StrBuf *o, const Uses *u) {
    Arena *a = &em->ctx->arena;
    for (int i = 0; i < u->globals.len; i++)
        list_item(o, i == 0, arena_printf(a, "%s *%s", dt_storage(u->globals.data[i]->dtype),
                                          buf_name(em, u->globals.data[i])));
    for (int i = 0; i < u->free.len; i++)
        list_item(o, !u->globals.len && !i,
                  arena_printf(a, "%s %s", dt_value(u->free.data[i]->dtype),
                               var_name(em, u->free.data[i])));
}

static void kernel_args(Emit *em, StrBuf *o, const Uses *u) {
    for (int i = 0; i < u->globals.len; i++)
        list_item(o, i == 0, buf_name(em, u->globals.data[i]));
    for (int i = 0; i < u->free.len; i++)
        list_item(o, !u->globals.len && !i, var_name(em, u->free.data[i]));
}

static const char *block_var_name(Emit *em, const Stmt *k, int d) {
    const Var *v = k->u.kernel.block[d];
    return v ? var_name(em, v) : arena_printf(&em->ctx->arena, "tl_block%d", d);
}

static void emit_block_fn(Emit *em, const Stmt *k, int id, const Uses *u,
                          const int64_t *offs, int64_t total) {
    StrBuf *o = em->out;
    sb_printf(o, "/* %s: one call runs block (", loc_where(em, k->loc));
    for (int d = 0; d < k->u.kernel.ngrid; d++)
        sb_printf(o, "%s%s", d ? ", " : "", block_var_name(em, k, d));
    sb_printf(o, ") of T.Kernel %d, sequentially. */\nstatic int kernel%d_block(", id, id);
    kernel_params(em, o, u);
    for (int d = 0; d < k->u.kernel.ngrid; d++) {
        const Var *v = k->u.kernel.block[d];
        list_item(o, u->globals.len + u->free.len + d == 0,
                  arena_printf(&em->ctx->arena, "%s %s", dt_value(v ? v->dtype : DT_INT32),
                               block_var_name(em, k, d)));
    }
    list_item(o, false, "char *tl_scratch");
    sb_puts(o, ")\n{\n");
    em->indent = 1;
    for (int i = 0; i < u->scratch.len; i++) {
        Buffer *b = u->scratch.data[i];
        StrBuf shape = {0};
        for (int d = 0; d < b->ndim; d++) {
            sb_puts(&shape, d ? ", " : "");
            ex(em, &shape, b->shape[d]);
        }
        line(em, "%s *%s = (%s *)(tl_scratch + %lld); /* %s %s[%s] */", dt_storage(b->dtype),
             buf_name(em, b), dt_storage(b->dtype), (long long)offs[i], scope_name(b->scope),
             dtype_name(b->dtype), shape.buf ? shape.buf : "");
        sb_free(&shape);
    }
    if (total) line(em, "memset(tl_scratch, 0, %lld);", (long long)total);
    else line(em, "(void)tl_scratch;");
    emit_stmt(em, k->u.kernel.body);
    line(em, "return 0;");
    sb_puts(o, "}\n\n");
    em->indent = 0;
}

static void emit_launcher(Emit *em, const Stmt *k, int id, const Uses *u, int64_t total) {
    StrBuf *o = em->out;
    int n = k->u.kernel.ngrid;
    sb_printf(o, "/* T.Kernel %d (%s): every block of the grid, in parallel. */\n", id,
              loc_where(em, k->loc));
    sb_printf(o, "static int kernel%d(", id);
    kernel_params(em, o, u);
    sb_puts(o, u->globals.len + u->free.len ? ")\n{\n" : "void)\n{\n");
    em->indent = 1;
    for (int d = 0; d < n; d++)
        line(em, "const int64_t tl_grid%d = %s;", d,
             ex_str(em, k->u.kernel.grid[d], DT_INT64, true));
    line(em, "int tl_failed = 0;");
    line(em, "#pragma omp parallel");
    line(em, "{");
    line(em, "    char *tl_scratch = tl_scratch_alloc(%lld);", (long long)total);
    if (total) {
        line(em, "    if (!tl_scratch) {");
        line(em, "        fprintf(stderr, \"tilec: out of memory for block scratch\\n\");");
        line(em, "        #pragma omp atomic write");
        line(em, "        tl_failed = 1;");
        line(em, "    }");
    }
    line(em, "    #pragma omp for collapse(%d) schedule(dynamic)", n);
    for (int d = n - 1; d >= 0; d--)
        line(em, "%*sfor (int64_t tl_b%d = 0; tl_b%d < tl_grid%d; ++tl_b%d)%s",
             4 * (n - 1 - d) + 4, "", d, d, d, d, d ? "" : " {");
    em->indent = n + 2;
    line(em, "int tl_stop;");
    line(em, "#pragma omp atomic read");
    line(em, "tl_stop = tl_failed;");
    sb_indent(o, em->indent);
    sb_printf(o, "if (!tl_stop && kernel%d_block(", id);
    kernel_args(em, o, u);
    for (int d = 0; d < n; d++) {
        const Var *v = k->u.kernel.block[d];
        list_item(o, u->globals.len + u->free.len + d == 0,
                  arena_printf(&em->ctx->arena, "(%s)tl_b%d", dt_value(v ? v->dtype : DT_INT32),
                               d));
    }
    list_item(o, false, "tl_scratch");
    sb_puts(o, ")) {\n");
    line(em, "    #pragma omp atomic write");
    line(em, "    tl_failed = 1;");
    line(em, "}");
    em->indent = n + 1;
    line(em, "}");
    em->indent = 1;
    line(em, "    free(tl_scratch);");
    line(em, "}");
    line(em, "return tl_failed;");
    sb_puts(o, "}\n\n");
    em->indent = 0;
}

/* Emits kernel functions for k into kbuf and, on the host, the call that runs it. */
static void emit_kernel_call(Emit *em, const Stmt *k) {
    Uses *u = NEW(&em->ctx->arena, Uses);
    int id = em->nkernels++;
    uses_stmt(em, u, k);
    for (int i = 0; i < u->free.len; i++)
        if (!live_has(em, u->free.data[i]))
            ctx_fail(em->ctx, k->loc, "'%s' is used inside T.Kernel but has no value on the C "
                     "target", u->free.data[i]->name);
    /* switch to the kernel's own function */
    StrBuf *host_out = em->out;
    int host_indent = em->indent;
    const Source *ls = em->last_src;
    int ll = em->last_line;
    VarVec host_live = em->live;
    em->live.data = NULL, em->live.len = em->live.cap = 0;
    for (int i = 0; i < u->free.len; i++) live_add(em, u->free.data[i]);
    for (int d = 0; d < k->u.kernel.ngrid; d++)
        if (k->u.kernel.block[d]) live_add(em, k->u.kernel.block[d]);
    em->out = &em->kbuf, em->kernel = k, em->last_src = NULL;
    int64_t *offs = NEW_ARRAY(&em->ctx->arena, int64_t, u->scratch.len + 1);
    int64_t total = scratch_layout(em, u, offs);
    emit_block_fn(em, k, id, u, offs, total);
    em->last_src = NULL;
    emit_launcher(em, k, id, u, total);
    em->out = host_out, em->indent = host_indent, em->kernel = NULL;
    em->live = host_live, em->last_src = ls, em->last_line = ll;
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_printf(o, "if ((tl_status = kernel%d(", id);
    kernel_args(em, o, u);
    sb_puts(o, ")) != 0)\n");
    line(em, "    goto tl_done;");
}

/* ---- the entry point ------------------------------------------------------------------ */
static void emit_param(Emit *em, const Param *p, int i) {
    if (p->buf) {
        const char *st = dt_storage(p->buf->dtype);
        line(em, "%s *%s = (%s *)args[%d];", st, buf_name(em, p->buf), st, i);
        return;
    }
    const Var *v = p->scalar;
    DType t = v->dtype;
    const char *n = var_name(em, v), *ty = dt_value(t);
    if (t == DT_BOOL) line(em, "bool %s = *(const int64_t *)args[%d] != 0;", n, i);
    else if (dtype_is_int(t)) line(em, "%s %s = (%s)*(const int64_t *)args[%d];", ty, n, ty, i);
    else if (dt_narrow_float(t))
        line(em, "float %s = tl_round64_%s(*(const double *)args[%d]);", n, dt_nf(t), i);
    else line(em, "%s %s = (%s)*(const double *)args[%d];", ty, n, ty, i);
    live_add(em, v);
}

/* Declares every host-level T.alloc_global pointer (NULL) before the first goto. */
static void declare_host_allocs(Emit *em, const Stmt *s) {
    if (!s) return;
    switch (s->kind) {
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) declare_host_allocs(em, s->u.seq.data[i]);
        break;
    case STMT_FOR: declare_host_allocs(em, s->u.for_.body); break;
    case STMT_WHILE: declare_host_allocs(em, s->u.while_.body); break;
    case STMT_IF:
        declare_host_allocs(em, s->u.if_.then);
        declare_host_allocs(em, s->u.if_.orelse);
        break;
    case STMT_ALLOC:
        if (s->u.alloc.buf->scope == SCOPE_GLOBAL)
            line(em, "%s *%s = NULL;", dt_storage(s->u.alloc.buf->dtype),
                 buf_name(em, s->u.alloc.buf));
        break;
    default: break;
    }
}

static void emit_entry(Emit *em) {
    const Func *f = em->f;
    em->out = &em->hbuf;
    sb_printf(em->out, "/* Parameters and symbols as in Target.launch (compiler.h). */\n"
                       "int tilec_entry(void *const *args, const int64_t *syms)\n{\n");
    em->indent = 1;
    for (int i = 0; i < f->params.len; i++) emit_param(em, &f->params.data[i], i);
    for (int i = 0; i < f->syms.len; i++) {
        const Var *v = f->syms.data[i];
        if (live_has(em, v)) continue;
        line(em, "%s %s = (%s)syms[%d];", dt_value(v->dtype), var_name(em, v),
             dt_value(v->dtype), i);
        live_add(em, v);
    }
    line(em, "int tl_status = 0;");
    declare_host_allocs(em, f->body);
    line(em, "(void)args;");
    line(em, "(void)syms;");
    if (f->body) emit_stmt(em, f->body);
    line(em, "goto tl_done;");
    sb_puts(em->out, "tl_done:\n");
    for (int i = 0; i < em->host_allocs.len; i++)
        line(em, "free(%s);", buf_name(em, em->host_allocs.data[i]));
    line(em, "return tl_status;");
    sb_puts(em->out, "}\n");
}

static void emit_reserve_params(Emit *em) {
    /* Parameters take the user's names first, so they stay unchanged when possible. */
    for (int i = 0; i < em->f->params.len; i++) {
        const Param *p = &em->f->params.data[i];
        if (p->buf) buf_name(em, p->buf);
        else if (p->scalar) var_name(em, p->scalar);
    }
    for (int i = 0; i < em->f->syms.len; i++) var_name(em, em->f->syms.data[i]);
}

char *emit_c(Ctx *ctx, const Func *f) {
    Emit *em = NEW(&ctx->arena, Emit);
    em->ctx = ctx, em->f = f, em->names.a = &ctx->arena;
    /* Free the heap buffers if a user error unwinds through here. */
    jmp_buf jb, *saved = ctx->on_error;
    if (CTX_TRY(ctx, &jb)) {
        sb_free(&em->kbuf);
        sb_free(&em->hbuf);
        ctx->on_error = saved;
        longjmp(*saved, 1);
    }
    emit_reserve_params(em);
    emit_entry(em);
    ctx->on_error = saved;
    StrBuf all = {0};
    sb_printf(&all, "/* Generated by tilec (target c) from %s: prim_func %s.\n"
                    " * Build: cc -std=c11 -O2 -fPIC -shared -fopenmp -fwrapv */\n",
              f->loc.src && f->loc.src->name ? f->loc.src->name : "<source>",
              f->name ? f->name : "main");
    sb_puts(&all, "#ifndef _GNU_SOURCE\n#define _GNU_SOURCE\n#endif\n"
                  "#ifdef __clang__ /* the prelude's helpers are used selectively */\n"
                  "#pragma clang diagnostic ignored \"-Wunused-function\"\n#endif\n");
    sb_puts(&all, embedded_tl_c_h);
    sb_puts(&all, "\n/* ---- kernels ---- */\n\n");
    if (em->kbuf.buf) sb_puts(&all, em->kbuf.buf);
    sb_puts(&all, em->hbuf.buf);
    char *res = arena_strdup(&ctx->arena, all.buf);
    sb_free(&all);
    sb_free(&em->kbuf);
    sb_free(&em->hbuf);
    return res;
}
