/* cfamily.c - the C-family printer shared by the C and CUDA emitters (cfamily.h). */
#include "cfamily.h"
#include "../ir/ir_walk.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../runtime/c/tl_c.h" /* rounding of literals at compile time */

static void names_add(CfNames *n, const char *s);
static uint64_t hash_str(const char *s);

static bool reserve_ident(void *ud, const char *s, size_t len) {
    CfEmit *em = ud;
    names_add(&em->names, arena_strndup(&em->ctx->arena, s, len));
    return true;
}

void cf_init(CfEmit *em, Ctx *ctx, const Func *f, const CfHooks *hooks) {
    em->ctx = ctx, em->f = f, em->hooks = hooks, em->names.a = &ctx->arena;
    for (int i = 0; i < f->imports.len; i++) /* the kernel's names never meet the source's */
        c_source_idents(f->imports.data[i].text, reserve_ident, em);
    for (int i = 0; i < f->externs.len; i++) names_add(&em->names, f->externs.data[i]);
}

/* ---- imported sources ------------------------------------------------------------------- */
static int count_lines(const StrBuf *sb) {
    int n = 1;
    for (size_t i = 0; i < sb->len; i++) n += sb->buf[i] == '\n';
    return n;
}

void cf_imports(CfEmit *em, StrBuf *all, const char *generated_name) {
    for (int i = 0; i < em->f->imports.len; i++) {
        const ImportedSource *im = &em->f->imports.data[i];
        uint64_t h = hash_str(im->text);
        const char *where = cf_loc_where(em, im->loc);
        sb_printf(all, "/* ---- T.import_source at %s ---- */\n",
                  cf_comment_text(&em->ctx->arena, where));
        /* once per translation unit (the CUDA unit test includes many generated files) */
        sb_printf(all, "#ifndef TL_IMPORT_%016llx\n#define TL_IMPORT_%016llx\n#line 1 ",
                  (unsigned long long)h, (unsigned long long)h);
        cf_string(all, arena_printf(&em->ctx->arena, "%s (T.import_source)", where));
        sb_printf(all, "\n%s\n", im->text);
        sb_printf(all, "#line %d ", count_lines(all) + 1);
        cf_string(all, generated_name);
        sb_puts(all, "\n#endif\n");
    }
}

/* ---- name tables ---------------------------------------------------------------------- */
static uint64_t hash_ptr(const void *p) {
    return ((uint64_t)(uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ull;
}

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static const char *names_lookup(const CfNames *n, const void *key) {
    if (!n->cap) return NULL;
    for (uint64_t i = hash_ptr(key) & (uint64_t)(n->cap - 1);; i = (i + 1) & (n->cap - 1))
        if (!n->keys[i] || n->keys[i] == key) return n->keys[i] ? n->vals[i] : NULL;
}

static bool names_used(const CfNames *n, const char *s) {
    if (!n->scap) return false;
    for (uint64_t i = hash_str(s) & (uint64_t)(n->scap - 1);; i = (i + 1) & (n->scap - 1))
        if (!n->set[i] || !strcmp(n->set[i], s)) return n->set[i] != NULL;
}

static void put_str(const char **set, int cap, const char *s) {
    uint64_t i = hash_str(s) & (uint64_t)(cap - 1);
    while (set[i]) i = (i + 1) & (uint64_t)(cap - 1);
    set[i] = s;
}

static void names_add(CfNames *n, const char *s) {
    if (2 * (n->slen + 1) > n->scap) {
        int ncap = n->scap ? 2 * n->scap : 256;
        const char **nset = NEW_ARRAY(n->a, const char *, ncap);
        for (int i = 0; i < n->scap; i++)
            if (n->set[i]) put_str(nset, ncap, n->set[i]);
        n->set = nset, n->scap = ncap;
    }
    put_str(n->set, n->scap, s);
    n->slen++;
}

static void put_ptr(const void **keys, const char **vals, int cap, const void *k, const char *v) {
    uint64_t i = hash_ptr(k) & (uint64_t)(cap - 1);
    while (keys[i]) i = (i + 1) & (uint64_t)(cap - 1);
    keys[i] = k, vals[i] = v;
}

static void names_bind(CfNames *n, const void *key, const char *name) {
    if (2 * (n->len + 1) > n->cap) {
        int ncap = n->cap ? 2 * n->cap : 256;
        const void **nk = NEW_ARRAY(n->a, const void *, ncap);
        const char **nv = NEW_ARRAY(n->a, const char *, ncap);
        for (int i = 0; i < n->cap; i++)
            if (n->keys[i]) put_ptr(nk, nv, ncap, n->keys[i], n->vals[i]);
        n->keys = nk, n->vals = nv, n->cap = ncap;
    }
    put_ptr(n->keys, n->vals, n->cap, key, name);
    n->len++;
    names_add(n, name);
}

/* ---- user names ------------------------------------------------------------------------ */
/* Keywords of C (and C++) and the library names every target's source uses. */
static const char *const common_reserved[] = {
    "auto",      "break",     "case",    "char",     "const",    "continue", "default",  "do",
    "double",    "else",      "enum",    "extern",   "float",    "for",      "goto",     "if",
    "inline",    "int",       "long",    "register", "restrict", "return",   "short",    "signed",
    "sizeof",    "static",    "struct",  "switch",   "typedef",  "union",    "unsigned", "void",
    "volatile",  "while",     "bool",    "true",     "false",    "NULL",     "int8_t",   "int16_t",
    "int32_t",   "int64_t",   "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t",   "INT64_C",
    "UINT64_C",  "INT64_MIN", "main",    "printf",   "memset",   "abs",      "assert",   "isinf",
    "isnan",     "exp",       "exp2",    "log",      "log2",     "log10",    "sqrt",     "fabs",
    "floor",     "ceil",      "round",   "trunc",    "tanh",     "sin",      "cos",      "tan",
    "erf",       "log1p",     "expm1",   "pow",      "fmod",     "atan2",    "fmin",     "fmax",
    "nextafter", "signbit",   NULL,
};
/* and the math library's names of the intrinsics tileops_math.c added */
static const char *const math_reserved[] = {
    "acos",      "acosh",    "asin",  "asinh", "atan",     "atanh", "cosh", "sinh",
    "nearbyint", "copysign", "hypot", "ldexp", "isfinite", "fma",   NULL,
};

/* s is w, or w + "f" (the float32 version of a libm name). */
static bool in_list(const char *const *list, const char *s) {
    size_t n = strlen(s);
    for (; list && *list; list++) {
        size_t wn = strlen(*list);
        if (!strcmp(s, *list)) return true;
        if (n == wn + 1 && s[wn] == 'f' && !strncmp(s, *list, wn)) return true; /* expf */
    }
    return false;
}

static bool name_reserved(const CfHooks *h, const char *s) {
    return in_list(common_reserved, s) || in_list(math_reserved, s) || in_list(h->reserved, s) ||
           (h->reserved_name && h->reserved_name(s));
}

/* A valid identifier close to the user's name; never starts with tl_, TL_, tilec_ or _
 * (prefixes of our names and macros, and of the implementation's). */
static char *name_sanitize(Arena *a, const char *user) {
    size_t n = user ? strlen(user) : 0;
    char *s = arena_alloc(a, n + 3);
    size_t k = 0;
    if (!n || (user[0] >= '0' && user[0] <= '9') || user[0] == '_' || !strncmp(user, "tl_", 3) ||
        !strncmp(user, "TL_", 3) || !strncmp(user, "tilec_", 6))
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

static const char *name_get(CfEmit *em, const void *key, const char *user, int id) {
    CfNames *n = &em->names;
    const char *got = names_lookup(n, key);
    if (got) return got;
    char *c = name_sanitize(n->a, user);
    if (name_reserved(em->hooks, c) || names_used(n, c)) {
        char *base = c;
        c = arena_printf(n->a, "%s_%d", base, id);
        for (int k = 2; names_used(n, c); k++) c = arena_printf(n->a, "%s_%d_%d", base, id, k);
    }
    names_bind(n, key, c);
    return c;
}

const char *cf_var(CfEmit *em, const Var *v) { return name_get(em, v, v->name, v->id); }

const char *cf_buf(CfEmit *em, const Buffer *b) {
    if (b->addr) /* T.make_tensor: the address its let holds, as a pointer */
        return arena_printf(&em->ctx->arena, "((%s *)%s)", cf_storage(b->dtype),
                            cf_var(em, b->addr));
    b = ir_buffer_root(b); /* a view is its base's memory, addressed by its own shape */
    return name_get(em, b, b->name, b->id);
}

void cf_reserve_params(CfEmit *em) {
    for (int i = 0; i < em->f->params.len; i++) {
        const Param *p = &em->f->params.data[i];
        if (p->buf) cf_buf(em, p->buf);
        else if (p->scalar) cf_var(em, p->scalar);
    }
    for (int i = 0; i < em->f->syms.len; i++) cf_var(em, em->f->syms.data[i]);
}

const char *cf_tmp(CfEmit *em, const char *base) {
    const char *s = arena_printf(&em->ctx->arena, "tl_%s%d", base, em->ntmp++);
    names_add(&em->names, s);
    return s;
}

void cf_bind(CfEmit *em, const void *key, const char *name) { names_bind(&em->names, key, name); }

/* ---- output ---------------------------------------------------------------------------- */
void cf_line(CfEmit *em, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_indent(em->out, em->indent);
    sb_vprintf(em->out, fmt, ap);
    sb_putc(em->out, '\n');
    va_end(ap);
}

bool cf_live_has(const CfEmit *em, const Var *v) {
    for (int i = 0; i < em->live.len; i++)
        if (em->live.data[i] == v) return true;
    return false;
}

void cf_live_add(CfEmit *em, const Var *v) { VEC_PUSH(&em->ctx->arena, em->live, v); }

const char *cf_comment_text(Arena *a, const char *s) {
    StrBuf sb = {0};
    sb_puts(&sb, "");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr(" ._-+,:=@%#()[]{}<>!~^&|;$/", c))
            sb_putc(&sb, (char)c);
        else sb_printf(&sb, "\\x%02x", c);
    }
    char *r = arena_strdup(a, sb.buf);
    sb_free(&sb);
    return r;
}

void cf_check_grid(CfEmit *em, const Stmt *k, const int64_t max[3], const char *target) {
    static const char axis[3] = {'x', 'y', 'z'};
    for (int d = 0; d < k->u.kernel.ngrid && d < 3; d++) {
        int64_t n;
        if (ir_is_const_int(k->u.kernel.grid[d], &n) && n > max[d])
            ctx_fail(em->ctx, k->loc,
                     "T.Kernel: grid dimension %d (%c) is %lld blocks; %s "
                     "allows at most %lld",
                     d, axis[d], (long long)n, target, (long long)max[d]);
    }
}

const char *cf_loc_where(CfEmit *em, Loc loc) {
    if (!loc.src || !loc.src->name) return "kernel";
    const char *base = strrchr(loc.src->name, '/');
    return arena_printf(&em->ctx->arena, "%s:%d",
                        cf_comment_text(&em->ctx->arena, base ? base + 1 : loc.src->name),
                        loc.line);
}

void cf_loc_comment(CfEmit *em, Loc loc) {
    if (!loc.src || (loc.src == em->last_src && loc.line == em->last_line)) return;
    em->last_src = loc.src, em->last_line = loc.line;
    cf_line(em, "// %s", cf_loc_where(em, loc));
}

void cf_string(StrBuf *o, const char *s) {
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

/* Start of the line that holds o[at] (o nonempty). */
static size_t line_start(const StrBuf *o, size_t at) {
    while (at > 0 && o->buf[at - 1] != '\n') at--;
    return at;
}

void cf_list_item(StrBuf *o, bool first, const char *item) {
    size_t start = o->len ? line_start(o, o->len) : 0, head = start;
    if (!first && o->len - start + strlen(item) + 2 > 96) {
        /* continuation lines (the lines before end with ',') sit 8 beyond the first line */
        while (head >= 2 && o->buf[head - 2] == ',') head = line_start(o, head - 1);
        sb_printf(o, ",\n%*s", (int)strspn(o->buf + head, " ") + 8, "");
    } else if (!first) {
        sb_puts(o, ", ");
    }
    sb_puts(o, item);
}

/* ---- dtypes ------------------------------------------------------------------------------ */
bool cf_narrow_float(DType t) {
    return t == DT_FLOAT16 || t == DT_BFLOAT16 || t == DT_FLOAT8_E4M3 || t == DT_FLOAT8_E5M2;
}

const char *cf_nf(DType t) {
    switch (t) {
    case DT_FLOAT16: return "f16";
    case DT_BFLOAT16: return "bf16";
    case DT_FLOAT8_E4M3: return "e4m3";
    default: return "e5m2";
    }
}

const char *cf_value(DType t) {
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

const char *cf_storage(DType t) {
    if (t == DT_BOOL || t == DT_FLOAT8_E4M3 || t == DT_FLOAT8_E5M2) return "uint8_t";
    if (t == DT_FLOAT16 || t == DT_BFLOAT16) return "uint16_t";
    return cf_value(t);
}

/* Helper class of an integer dtype: narrow ints compute in the 32-bit helpers. */
static const char *icls(DType t) {
    if (t == DT_INT64) return "i64";
    if (t == DT_UINT64) return "u64";
    return dtype_is_signed(t) ? "i32" : "u32";
}

static bool int_narrow(DType t) { return dtype_is_int(t) && dtype_bits(t) < 32; }

const char *cf_short(DType t) {
    switch (t) {
    case DT_INT8: return "i8";
    case DT_INT16: return "i16";
    case DT_INT32: return "i32";
    case DT_INT64: return "i64";
    case DT_UINT8:
    case DT_BOOL: return "u8";
    case DT_UINT16: return "u16";
    case DT_UINT32: return "u32";
    case DT_UINT64: return "u64";
    case DT_FLOAT32: return "f32";
    case DT_FLOAT64: return "f64";
    default: return cf_nf(t);
    }
}

/* ---- conversions and literals ------------------------------------------------------------ */
/* The conversion of a value from `from` to `to`, around the text that the caller writes
 * between conv_open and conv_close. */
static void conv_open(StrBuf *o, DType from, DType to) {
    if (from == to) return;
    if (to == DT_BOOL) sb_puts(o, "(");
    else if (dtype_is_int(to) && dtype_is_float(from)) sb_printf(o, "tl_f2%s(", cf_short(to));
    else if (dtype_is_int(to) || to == DT_FLOAT64) sb_printf(o, "((%s)", cf_value(to));
    else if (to == DT_FLOAT32) sb_puts(o, cf_narrow_float(from) ? "" : "((float)");
    else if (from == DT_FLOAT32 || cf_narrow_float(from)) sb_printf(o, "tl_round_%s(", cf_nf(to));
    else sb_printf(o, "tl_round64_%s(", cf_nf(to));
}

static void conv_close(StrBuf *o, DType from, DType to) {
    if (from == to || (to == DT_FLOAT32 && cf_narrow_float(from))) return;
    sb_puts(o, to == DT_BOOL ? " != 0)" : ")");
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

void cf_ex_as(CfEmit *em, StrBuf *o, const Expr *e, DType to) {
    bool lit = e->kind == EXPR_INT && dtype_is_int(e->dtype) && e->dtype != DT_BOOL;
    if (lit && (to == DT_INT64 || (to == DT_INT32 && e->u.i == (int32_t)e->u.i))) {
        lit_int(o, e->u.i, to); /* a literal needs no conversion code */
        return;
    }
    conv_open(o, e->dtype, to);
    cf_ex(em, o, e);
    conv_close(o, e->dtype, to);
}

void cf_ex_top(CfEmit *em, StrBuf *o, const Expr *e, DType to) {
    StrBuf t = {0};
    cf_ex_as(em, &t, e, to);
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

/* A float literal of dtype t, rounded to t's values; infinities and NaN as tl_c.h's
 * TL_INFF/TL_INF/TL_NANF/TL_NAN. */
static void lit_float(StrBuf *o, double v, DType t) {
    if (dtype_is_int(t)) {
        lit_int(o, (int64_t)v, t);
        return;
    }
    bool dbl = t == DT_FLOAT64;
    if (isinf(v) && t != DT_FLOAT8_E4M3) { /* +-inf exists in the dtype (reduce inits) */
    } else if (t == DT_FLOAT16) v = tl_round64_f16(v);
    else if (t == DT_BFLOAT16) v = tl_round64_bf16(v);
    else if (t == DT_FLOAT8_E4M3) v = tl_round64_e4m3(v);
    else if (t == DT_FLOAT8_E5M2) v = tl_round64_e5m2(v);
    if (isnan(v)) sb_puts(o, dbl ? "TL_NAN" : "TL_NANF");
    else if (isinf(v))
        sb_printf(o, "%s%s%s", v > 0 ? "" : "(-", dbl ? "TL_INF" : "TL_INFF", v > 0 ? "" : ")");
    else if (dbl) lit_number(o, "%.17g", v, "");
    else lit_number(o, "%.9g", (double)(float)v, "f");
}

/* ---- operators ------------------------------------------------------------------------------ */
/* Name of the math function for a float dtype: "exp" -> "expf" unless float64. */
static void fmath(StrBuf *o, DType t, const char *fn) {
    sb_printf(o, "%s%s(", fn, t == DT_FLOAT64 ? "" : "f");
}

static void ex_bin_float(CfEmit *em, StrBuf *o, const Expr *e) {
    DType t = e->dtype;
    BinOp op = e->u.bin.op;
    bool narrow = cf_narrow_float(t);
    if (narrow && op != OP_MIN && op != OP_MAX) sb_printf(o, "tl_round_%s(", cf_nf(t));
    const char *infix = op == OP_ADD   ? " + "
                        : op == OP_SUB ? " - "
                        : op == OP_MUL ? " * "
                        : op == OP_DIV ? " / "
                                       : NULL;
    if (infix) sb_puts(o, "(");
    else if (op == OP_FLOORDIV) {
        fmath(o, t, "floor");
        if (narrow) sb_printf(o, "tl_round_%s(", cf_nf(t));
        sb_puts(o, "(");
        infix = " / ";
    } else if (op == OP_FLOORMOD) sb_printf(o, "tl_floormod_%s(", t == DT_FLOAT64 ? "f64" : "f32");
    else if (op == OP_MIN) fmath(o, t, "fmin");
    else if (op == OP_MAX) fmath(o, t, "fmax");
    else if (op == OP_POW) fmath(o, t, "pow");
    else tl_internal_error(__FILE__, __LINE__, "bit operation on a float in the emitter");
    cf_ex_as(em, o, e->u.bin.a, t);
    sb_puts(o, infix ? infix : ", ");
    cf_ex_as(em, o, e->u.bin.b, t);
    sb_puts(o, ")");
    if (op == OP_FLOORDIV) sb_puts(o, narrow ? "))" : ")");
    if (narrow && op != OP_MIN && op != OP_MAX) sb_puts(o, ")");
}

/* Whether e's value may come from memory: a load, or a let variable bound to one (x =
 * A[j]; x + 4), up to a few lets deep. Index arithmetic (loop and thread variables,
 * sizes) is not: it stays signed, for the compiler's address arithmetic. */
static bool from_data(const Expr *e, int depth) {
    if (ir_expr_loads(e)) return true;
    if (depth > 4) return false;
    switch (e->kind) {
    case EXPR_VAR: return e->u.var->bound_value && from_data(e->u.var->bound_value, depth + 1);
    case EXPR_BIN: return from_data(e->u.bin.a, depth) || from_data(e->u.bin.b, depth);
    case EXPR_UN: return from_data(e->u.un.a, depth);
    case EXPR_CAST: return from_data(e->u.cast.value, depth);
    case EXPR_SELECT:
        return from_data(e->u.select.then, depth) || from_data(e->u.select.orelse, depth);
    default: return false;
    }
}

static void ex_bin_int(CfEmit *em, StrBuf *o, const Expr *e) {
    static const char *const helper[BINOP_COUNT] = {
        [OP_DIV] = "div", [OP_FLOORDIV] = "floordiv", [OP_FLOORMOD] = "floormod", [OP_MIN] = "min",
        [OP_MAX] = "max", [OP_POW] = "pow",           [OP_SHL] = "shl",           [OP_SHR] = "shr",
    };
    static const char *const infix[BINOP_COUNT] = {
        [OP_ADD] = " + ",    [OP_SUB] = " - ",   [OP_MUL] = " * ",
        [OP_BITAND] = " & ", [OP_BITOR] = " | ", [OP_BITXOR] = " ^ ",
    };
    DType t = e->dtype;
    BinOp op = e->u.bin.op;
    bool wrap = int_narrow(t);
    TL_ASSERT(helper[op] || infix[op]);
    int64_t c;
    if ((op == OP_FLOORDIV || op == OP_FLOORMOD) && t == DT_INT32 && ir_nonneg(e) &&
        ir_is_const_int(e->u.bin.b, &c)) { /* a shift or a mask for a power of two */
        sb_puts(o, "((int32_t)((uint32_t)");
        cf_ex_as(em, o, e->u.bin.a, t);
        sb_printf(o, " %s %lldu))", op == OP_FLOORDIV ? "/" : "%", (long long)c);
        return;
    }
    if (em->hooks->wrap_data_ints && (op == OP_ADD || op == OP_SUB || op == OP_MUL) &&
        dtype_is_signed(t) && !wrap && from_data(e, 0)) {
        const char *u = t == DT_INT64 ? "uint64_t" : "uint32_t";
        sb_printf(o, "((%s)((%s)", cf_value(t), u);
        cf_ex_as(em, o, e->u.bin.a, t);
        sb_printf(o, "%s(%s)", infix[op], u);
        cf_ex_as(em, o, e->u.bin.b, t);
        sb_puts(o, "))");
        return;
    }
    if (wrap) sb_printf(o, "((%s)", cf_value(t));
    if (helper[op]) sb_printf(o, "tl_%s_%s(", helper[op], icls(t));
    else sb_puts(o, "(");
    cf_ex_as(em, o, e->u.bin.a, t);
    sb_puts(o, helper[op] ? ", " : infix[op]);
    cf_ex_as(em, o, e->u.bin.b, t);
    sb_puts(o, wrap ? "))" : ")");
}

/* "(a OP b)" with both sides as dtype t. */
static void ex_infix(CfEmit *em, StrBuf *o, const Expr *e, DType t, const char *op) {
    sb_puts(o, "(");
    cf_ex_as(em, o, e->u.bin.a, t);
    sb_puts(o, op);
    cf_ex_as(em, o, e->u.bin.b, t);
    sb_puts(o, ")");
}

static void ex_bin(CfEmit *em, StrBuf *o, const Expr *e) {
    static const char *const cmp[] = {" < ", " <= ", " > ", " >= ", " == ", " != "};
    BinOp op = e->u.bin.op;
    if (op >= OP_LT && op <= OP_NE)
        ex_infix(em, o, e, dtype_promote(e->u.bin.a->dtype, e->u.bin.b->dtype), cmp[op - OP_LT]);
    else if (op == OP_AND || op == OP_OR)
        ex_infix(em, o, e, DT_BOOL, op == OP_AND ? " && " : " || ");
    else if (dtype_is_float(e->dtype)) ex_bin_float(em, o, e);
    else ex_bin_int(em, o, e);
}

static void ex_un(CfEmit *em, StrBuf *o, const Expr *e) {
    DType t = e->dtype;
    bool wrap = int_narrow(t) && t != DT_BOOL;
    if (e->u.un.op == OP_NOT) {
        sb_puts(o, "(!");
        cf_ex(em, o, e->u.un.a);
        sb_puts(o, ")");
        return;
    }
    if (wrap) sb_printf(o, "((%s)", cf_value(t));
    if (e->u.un.op == OP_NEG && dtype_is_signed(t) && !dtype_is_float(t))
        sb_printf(o, "tl_neg_%s(", icls(t));
    else sb_puts(o, e->u.un.op == OP_NEG ? "(-" : "(~");
    cf_ex_as(em, o, e->u.un.a, t);
    sb_puts(o, wrap ? "))" : ")");
}

/* ---- intrinsics ------------------------------------------------------------------------ */
/* Float intrinsics: math library name (f-suffixed for float32) or a tl_c.h helper. */
static const char *intrinsic_cname(Intrinsic fn) {
    switch (fn) {
    case FN_ABS: return "fabs";
    case FN_RSQRT: return "tl_rsqrt";
    case FN_SIGMOID: return "tl_sigmoid";
    case FN_FAST_COS: return "tl_fast_cos";
    case FN_FAST_EXP: return "tl_fast_exp";
    case FN_FAST_EXP10: return "tl_fast_exp10";
    case FN_FAST_LOG: return "tl_fast_log";
    case FN_FAST_LOG2: return "tl_fast_log2";
    case FN_FAST_LOG10: return "tl_fast_log10";
    case FN_FAST_SIN: return "tl_fast_sin";
    case FN_FAST_TAN: return "tl_fast_tan";
    case FN_FAST_RCP: return "tl_fast_rcp";
    case FN_TF32_RNA: return "tl_tf32_rna";
    default: return intrinsic_name(fn);
    }
}

/* The operands as dtype t (ldexp's exponent as int32), then ")". */
static void ex_call_args(CfEmit *em, StrBuf *o, const Expr *e, DType t) {
    int n = intrinsic_nargs(e->u.call.fn);
    for (int i = 0; i < n; i++) {
        if (i) sb_puts(o, ", ");
        cf_ex_as(em, o, e->u.call.args[i], e->u.call.fn == FN_LDEXP && i ? DT_INT32 : t);
    }
    sb_puts(o, ")");
}

/* popcount, clz, __ffs: tl_c.h's tl_popc32/64, tl_clz32/64, tl_ffs32/64 (the device's
 * __popc, __clz, __ffs and their ll forms on CUDA) of the operand's bits as unsigned. */
static void ex_bits(CfEmit *em, StrBuf *o, const Expr *e) {
    const Expr *x = e->u.call.args[0];
    Intrinsic fn = e->u.call.fn;
    int bits = dtype_bits(x->dtype);
    const char *name = fn == FN_POPCOUNT ? "popc" : fn == FN_CLZ ? "clz" : "ffs";
    const char *ubits = bits == 64   ? "uint64_t"
                        : bits == 32 ? "uint32_t"
                        : bits == 16 ? "uint16_t"
                                     : "uint8_t";
    sb_printf(o, "((%s)tl_%s%d((%s)", cf_value(e->dtype), name, bits == 64 ? 64 : 32, ubits);
    cf_ex(em, o, x);
    sb_puts(o, "))");
}

/* FN_IEEE_*: tl_<op>_<rounding>_<f32|f64>(...) (tl_c.h; CUDA's __fadd_rz and the like in
 * tl_cuda.h). A narrower float only has fma (the others are plain arithmetic there):
 * rounded to odd in double (exact: the product of two narrow values is), then once to the
 * dtype. */
static void ex_ieee(CfEmit *em, StrBuf *o, const Expr *e) {
    static const char *const op[] = {
        [FN_IEEE_ADD - FN_IEEE_ADD] = "add",   [FN_IEEE_SUB - FN_IEEE_ADD] = "sub",
        [FN_IEEE_MUL - FN_IEEE_ADD] = "mul",   [FN_IEEE_DIV - FN_IEEE_ADD] = "div",
        [FN_IEEE_FMA - FN_IEEE_ADD] = "fma",   [FN_IEEE_RCP - FN_IEEE_ADD] = "rcp",
        [FN_IEEE_SQRT - FN_IEEE_ADD] = "sqrt", [FN_IEEE_RSQRT - FN_IEEE_ADD] = "rsqrt",
    };
    DType t = e->dtype;
    Intrinsic fn = e->u.call.fn;
    if (cf_narrow_float(t)) {
        TL_ASSERT(fn == FN_IEEE_FMA && e->u.call.round == ROUND_RN);
        sb_printf(o, "tl_round64_%s(tl_fma_odd(", cf_nf(t));
        ex_call_args(em, o, e, DT_FLOAT64);
        sb_puts(o, ")");
        return;
    }
    sb_printf(o, "tl_%s_%s_%s(", op[fn - FN_IEEE_ADD], rounding_name(e->u.call.round),
              t == DT_FLOAT64 ? "f64" : "f32");
    ex_call_args(em, o, e, t);
}

static bool intrinsic_is_ieee(Intrinsic fn) { return fn >= FN_IEEE_ADD && fn <= FN_IEEE_RSQRT; }

static void ex_call_int(CfEmit *em, StrBuf *o, const Expr *e) {
    DType t = e->dtype;
    Intrinsic fn = e->u.call.fn;
    bool wrap = int_narrow(t);
    if (fn == FN_FLOOR || fn == FN_CEIL || fn == FN_ROUND || fn == FN_TRUNC) {
        cf_ex_as(em, o, e->u.call.args[0], t); /* integral already */
        return;
    }
    if (fn == FN_POPCOUNT || fn == FN_CLZ || fn == FN_FFS) {
        ex_bits(em, o, e);
        return;
    }
    if (fn == FN_FNS) { /* tl_fns: tl_c.h's reference, CUDA's __fns */
        const DType as[3] = {DT_UINT32, DT_UINT32, DT_INT32};
        sb_puts(o, "tl_fns(");
        for (int i = 0; i < 3; i++) {
            if (i) sb_puts(o, ", ");
            cf_ex_as(em, o, e->u.call.args[i], as[i]);
        }
        sb_puts(o, ")");
        return;
    }
    if (fn != FN_ABS && fn != FN_POW)
        ctx_fail(em->ctx, e->loc, "T.%s needs a floating-point argument, got %s",
                 intrinsic_name(fn), dtype_name(t));
    if (wrap) sb_printf(o, "((%s)", cf_value(t));
    sb_printf(o, "tl_%s_%s(", fn == FN_ABS ? "abs" : "pow", icls(t));
    ex_call_args(em, o, e, t);
    if (wrap) sb_puts(o, ")");
}

/* The bits of a float value as its storage integer, and back (tl_c.h), by dtype. */
static const char *float_to_bits(DType t) {
    switch (t) {
    case DT_FLOAT16: return "tl_f32_to_f16";
    case DT_BFLOAT16: return "tl_f32_to_bf16";
    case DT_FLOAT8_E4M3: return "tl_f32_to_e4m3";
    case DT_FLOAT8_E5M2: return "tl_f32_to_e5m2";
    case DT_FLOAT64: return "tl_f64_bits";
    default: return "tl_f32_bits";
    }
}

static const char *bits_to_float(DType t) {
    switch (t) {
    case DT_FLOAT16: return "tl_f16_to_f32";
    case DT_BFLOAT16: return "tl_bf16_to_f32";
    case DT_FLOAT8_E4M3: return "tl_e4m3_to_f32";
    case DT_FLOAT8_E5M2: return "tl_e5m2_to_f32";
    case DT_FLOAT64: return "tl_bits_f64";
    default: return "tl_bits_f32";
    }
}

/* FN_BITCAST: a float value goes to its storage bits, those to the unsigned integer of
 * the width (two's complement for a signed one), and back to a float value. */
static void ex_bitcast(CfEmit *em, StrBuf *o, const Expr *e) {
    DType from = e->u.call.args[0]->dtype, to = e->dtype;
    const char *ubits = dtype_bits(to) == 64   ? "uint64_t"
                        : dtype_bits(to) == 32 ? "uint32_t"
                        : dtype_bits(to) == 16 ? "uint16_t"
                                               : "uint8_t";
    sb_printf(o, "((%s)", cf_value(to));
    if (dtype_is_float(to)) sb_printf(o, "%s((%s)", bits_to_float(to), ubits);
    if (dtype_is_float(from)) sb_printf(o, "%s(", float_to_bits(from));
    else sb_printf(o, "((%s)", ubits);
    cf_ex(em, o, e->u.call.args[0]);
    sb_puts(o, dtype_is_float(to) ? ")))" : "))");
}

static void ex_call(CfEmit *em, StrBuf *o, const Expr *e) {
    Intrinsic fn = e->u.call.fn;
    const Expr *arg = e->u.call.args[0];
    if (fn == FN_BITCAST) {
        ex_bitcast(em, o, e);
        return;
    }
    if (intrinsic_reads_threads(fn)) {
        em->hooks->cross_thread(em, o, e);
        return;
    }
    if (fn == FN_ISINF || fn == FN_ISNAN || fn == FN_ISFINITE) {
        if (!dtype_is_float(arg->dtype)) {
            sb_puts(o, fn == FN_ISFINITE ? "true" : "false");
            return;
        }
        sb_printf(o, "(%s(", intrinsic_name(fn));
        cf_ex(em, o, arg);
        sb_puts(o, ") != 0)");
        return;
    }
    DType t = e->dtype;
    if (!dtype_is_float(t)) {
        ex_call_int(em, o, e);
        return;
    }
    if (intrinsic_is_ieee(fn)) {
        ex_ieee(em, o, e);
        return;
    }
    bool narrow = cf_narrow_float(t);
    if (narrow) sb_printf(o, "tl_round_%s(", cf_nf(t));
    const char *name = intrinsic_cname(fn);
    if (!strncmp(name, "tl_", 3)) sb_printf(o, "%s_%s(", name, t == DT_FLOAT64 ? "f64" : "f32");
    else fmath(o, t, name);
    ex_call_args(em, o, e, t);
    if (narrow) sb_puts(o, ")");
}

/* ---- memory ------------------------------------------------------------------------------ */
void cf_ex_index(CfEmit *em, StrBuf *o, const Expr *e, bool wide) {
    int64_t c;
    if (ir_is_const_int(e, &c)) {
        sb_printf(o, "%lld", (long long)c);
        return;
    }
    if (wide && e->dtype != DT_INT64 && e->dtype != DT_UINT64) sb_puts(o, "(int64_t)");
    cf_ex(em, o, e);
}

/* The element offset of b at idx. Global offsets are computed in int64_t (tensors may
 * exceed 2^31 elements); others too when the target asks (wide_local_index). */
void cf_ex_offset(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx) {
    bool wide = b->scope == SCOPE_GLOBAL || em->hooks->wide_local_index;
    if (b->ndim == 0) {
        sb_puts(o, "0");
    } else if (b->strides) {
        for (int d = 0; d < b->ndim; d++) {
            int64_t c;
            if (d) sb_puts(o, " + ");
            cf_ex_index(em, o, idx[d], wide);
            if (ir_is_const_int(b->strides[d], &c) && c == 1) continue;
            sb_puts(o, " * ");
            cf_ex(em, o, b->strides[d]);
        }
    } else if (b->ndim == 1) {
        cf_ex_top(em, o, idx[0], idx[0]->dtype);
    } else {
        for (int d = 2; d < b->ndim; d++) sb_puts(o, "(");
        cf_ex_index(em, o, idx[0], wide);
        for (int d = 1; d < b->ndim; d++) {
            sb_puts(o, " * ");
            cf_ex(em, o, b->shape[d]);
            sb_puts(o, " + ");
            cf_ex(em, o, idx[d]);
            if (d < b->ndim - 1) sb_puts(o, ")");
        }
    }
}

void cf_ex_elem(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx) {
    if (em->hooks->elem && em->hooks->elem(em, o, b, idx)) return;
    sb_printf(o, "%s[", cf_buf(em, b));
    cf_ex_offset(em, o, b, idx);
    sb_puts(o, "]");
}

/* Whether the `elems` elements of b from idx on lie in one 16-byte chunk, which every
 * swizzle (tl_swizzle, tl_panel_swizzle) keeps whole: the swizzled element's address
 * then reaches them all (an ldmatrix row, a 16-byte cp.async), as in TileLang. */
static bool in_one_chunk(const Buffer *b, Expr *const *idx, const Expr *elems) {
    int64_t n, bytes = dtype_bytes(b->dtype);
    return elems && ir_is_const_int(elems, &n) && n > 0 && 16 % (n * bytes) == 0 &&
           ir_multiple_of(idx[b->ndim - 1], n);
}

void cf_ex_addr_of(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx, const Expr *elems,
                   const char *what) {
    if ((b->swizzle || b->panel) && !in_one_chunk(b, idx, elems))
        ctx_fail(em->ctx, b->loc,
                 "%s of shared buffer '%s', which T.gemm reads in a swizzled layout: its "
                 "elements are not in row-major order (copy them to a buffer of their own)",
                 what, b->name);
    sb_puts(o, "&");
    cf_ex_elem(em, o, b, idx);
}

void cf_ex_addr(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx, const char *what) {
    cf_ex_addr_of(em, o, b, idx, NULL, what);
}

/* The element's storage as an explicit access reads it (LoadMode): through the read-only
 * cache, atomically (a fence before a seq_cst one, after an acquiring one: tl_c.h), or its
 * raw 32 bits. */
static void ex_elem_access(CfEmit *em, StrBuf *o, const Expr *e) {
    const Buffer *b = e->u.load.buf;
    switch ((LoadMode)e->u.load.mode) {
    case LOAD_NC: sb_puts(o, "tl_ldg("); break;
    case LOAD_ATOMIC: sb_printf(o, "tl_atomic_load_%s(", cf_short(b->dtype)); break;
    case LOAD_BITS: sb_puts(o, "tl_ld_bits32("); break;
    default: cf_ex_elem(em, o, b, e->u.load.idx); return;
    }
    cf_ex_addr(em, o, b, e->u.load.idx, "an explicit memory access");
    if (e->u.load.mode == LOAD_ATOMIC) sb_printf(o, ", %d", (int)e->u.load.order);
    sb_puts(o, ")");
}

static void ex_load(CfEmit *em, StrBuf *o, const Expr *e) {
    const Buffer *b = e->u.load.buf;
    if (e->u.load.mode == LOAD_BITS) { /* uint32 bits, no conversion */
        ex_elem_access(em, o, e);
        return;
    }
    conv_open(o, b->dtype, e->dtype); /* a load's dtype is normally its buffer's */
    if (cf_narrow_float(b->dtype)) sb_printf(o, "tl_%s_to_f32(", cf_nf(b->dtype));
    else if (b->dtype == DT_BOOL) sb_puts(o, "(");
    ex_elem_access(em, o, e);
    if (cf_narrow_float(b->dtype)) sb_puts(o, ")");
    else if (b->dtype == DT_BOOL) sb_puts(o, " != 0)");
    conv_close(o, b->dtype, e->dtype);
}

static void ex_select(CfEmit *em, StrBuf *o, const Expr *e) {
    sb_puts(o, "(");
    cf_ex_as(em, o, e->u.select.cond, DT_BOOL);
    sb_puts(o, " ? ");
    cf_ex_as(em, o, e->u.select.then, e->dtype);
    sb_puts(o, " : ");
    cf_ex_as(em, o, e->u.select.orelse, e->dtype);
    sb_puts(o, ")");
}

void cf_ex(CfEmit *em, StrBuf *o, const Expr *e) {
    switch (e->kind) {
    case EXPR_INT: lit_int(o, e->u.i, e->dtype); break;
    case EXPR_FLOAT: lit_float(o, e->u.f, e->dtype); break;
    case EXPR_VAR: sb_puts(o, cf_var(em, e->u.var)); break;
    case EXPR_BIN: ex_bin(em, o, e); break;
    case EXPR_UN: ex_un(em, o, e); break;
    case EXPR_CALL: ex_call(em, o, e); break;
    case EXPR_CAST: cf_ex_as(em, o, e->u.cast.value, e->dtype); break;
    case EXPR_LOAD: ex_load(em, o, e); break;
    case EXPR_SELECT: ex_select(em, o, e); break;
    default: tl_internal_error(__FILE__, __LINE__, "unknown expression kind");
    }
}

const char *cf_ex_str(CfEmit *em, const Expr *e, DType as, bool top) {
    StrBuf sb = {0};
    if (top) cf_ex_top(em, &sb, e, as);
    else cf_ex_as(em, &sb, e, as);
    char *s = arena_strdup(&em->ctx->arena, sb.buf ? sb.buf : "");
    sb_free(&sb);
    return s;
}
