/* test_target_c.c - the C target: the scalar conversions of runtime/c/tl_c.h checked
 * exhaustively against references computed here from the format definitions (and,
 * where the compiler has it, its own _Float16), then whole kernels built by hand in IR,
 * lowered, emitted, compiled with the system compiler, loaded and run. */
#include "frontend/frontend.h"
#include "passes/passes.h"
#include "targets/target.h"
#include "targets/c/emit_c.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../runtime/c/tl_c.h"

#define CHECK_MAX_REPORTS 30
#include "check.h"

/* Counts a whole sweep as one check, reporting the first few mismatches. */
#define SWEEP_BEGIN int sweep_bad_ = 0
#define SWEEP_CHECK(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond) && sweep_bad_++ < 5) {                                                         \
            fprintf(stderr, "%s:%d: sweep mismatch: ", __FILE__, __LINE__);                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)
#define SWEEP_END(what) CHECK(sweep_bad_ == 0, "%s: %d mismatches", what, sweep_bad_)

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static const Options no_settings; /* the C target's build and load read none */

static uint64_t rng(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float f32_of(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* ---- reference formats, from their definitions ------------------------------------- */
typedef struct Format {
    const char *name;
    int ebits, mbits, bias;
    bool ieee;     /* all-ones exponent = inf/NaN (else e4m3fn: only S.1111.111 is NaN) */
    bool saturate; /* overflow -> largest finite (fp8, as CUDA's satfinite) */
    int maxcode;   /* largest positive finite code */
    double *vals;  /* value of codes 0..maxcode+1 (maxcode+1: the next binade = inf) */
    uint32_t (*enc)(float);
    float (*dec)(uint32_t);
    float (*round64)(double);
} Format;

static double fmt_formula(const Format *F, uint32_t code) {
    uint32_t m = code & ((1u << F->mbits) - 1);
    uint32_t e = (code >> F->mbits) & ((1u << F->ebits) - 1);
    bool neg = (code >> (F->ebits + F->mbits)) & 1;
    uint32_t eall = (1u << F->ebits) - 1;
    double v;
    if (F->ieee && e == eall) v = m ? NAN : INFINITY;
    else if (!F->ieee && e == eall && m == (1u << F->mbits) - 1) v = NAN;
    else if (e == 0) v = ldexp((double)m, 1 - F->bias - F->mbits);
    else v = ldexp((double)((1u << F->mbits) + m), (int)e - F->bias - F->mbits);
    return neg ? -v : v;
}

static void fmt_init(Format *F) {
    uint32_t eall = (1u << F->ebits) - 1;
    F->maxcode = F->ieee ? (int)((eall << F->mbits) - 1)
                         : (int)((eall << F->mbits) | ((1u << F->mbits) - 2));
    F->vals = malloc(sizeof(double) * (size_t)(F->maxcode + 2));
    for (int c = 0; c <= F->maxcode; c++) F->vals[c] = fmt_formula(F, (uint32_t)c);
    /* one step past the largest finite value: where IEEE rounding overflows to inf */
    F->vals[F->maxcode + 1] = 2 * F->vals[F->maxcode] - F->vals[F->maxcode - 1];
}

/* Code of the nearest value to x >= 0 (finite), ties to the even code. */
static uint32_t ref_encode_pos(const Format *F, double x) {
    int top = F->maxcode + 1;
    if (x >= F->vals[F->maxcode] && F->saturate) return (uint32_t)F->maxcode;
    if (x >= F->vals[top]) return (uint32_t)top;
    int lo = 0, hi = top; /* vals[lo] <= x < vals[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (F->vals[mid] <= x) lo = mid;
        else hi = mid;
    }
    double dl = x - F->vals[lo], dh = F->vals[hi] - x;
    if (dl < dh) return (uint32_t)lo;
    if (dh < dl) return (uint32_t)hi;
    return (uint32_t)((lo & 1) ? hi : lo);
}

/* Reference value of rounding x (any double) into F. */
static double ref_round(const Format *F, double x) {
    if (isnan(x)) return NAN;
    double ax = fabs(x);
    if (isinf(ax)) ax = F->saturate ? F->vals[F->maxcode] : INFINITY;
    else ax = fmt_formula(F, ref_encode_pos(F, ax));
    return signbit(x) ? -ax : ax;
}

static uint32_t enc_f16(float f) { return tl_f32_to_f16(f); }
static uint32_t enc_bf16(float f) { return tl_f32_to_bf16(f); }
static uint32_t enc_e4m3(float f) { return tl_f32_to_e4m3(f); }
static uint32_t enc_e5m2(float f) { return tl_f32_to_e5m2(f); }
static float dec_f16(uint32_t c) { return tl_f16_to_f32((uint16_t)c); }
static float dec_bf16(uint32_t c) { return tl_bf16_to_f32((uint16_t)c); }
static float dec_e4m3(uint32_t c) { return tl_e4m3_to_f32((uint8_t)c); }
static float dec_e5m2(uint32_t c) { return tl_e5m2_to_f32((uint8_t)c); }

static Format F16 = {"f16", 5, 10, 15, true, false, 0, 0, enc_f16, dec_f16, tl_round64_f16};
static Format BF16 = {"bf16", 8, 7, 127, true, false, 0, 0, enc_bf16, dec_bf16, tl_round64_bf16};
static Format E4M3 = {"e4m3", 4, 3, 7, false, true, 0, 0, enc_e4m3, dec_e4m3, tl_round64_e4m3};
static Format E5M2 = {"e5m2", 5, 2, 15, true, true, 0, 0, enc_e5m2, dec_e5m2, tl_round64_e5m2};

static bool same_value(double a, double b) {
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

/* Every code decodes to the formula; every non-NaN code round trips exactly. */
static void test_decode_all(Format *F) {
    int bits = 1 + F->ebits + F->mbits;
    SWEEP_BEGIN;
    for (uint32_t c = 0; c < (1u << bits); c++) {
        double want = fmt_formula(F, c);
        float got = F->dec(c);
        SWEEP_CHECK(same_value(got, want), "%s code 0x%x decodes to %g, want %g", F->name, c,
                    (double)got, want);
        uint32_t back = F->enc(got);
        uint32_t expect = c; /* saturating formats turn infinity into the largest finite */
        if (F->saturate && isinf(want)) expect = (c & ~0x7fu) | (uint32_t)F->maxcode;
        if (isnan(want)) SWEEP_CHECK(isnan(F->dec(back)), "%s NaN 0x%x -> 0x%x", F->name, c, back);
        else SWEEP_CHECK(back == expect, "%s code 0x%x round trips to 0x%x", F->name, c, back);
    }
    SWEEP_END(F->name);
}

/* F->enc(x) against the reference for one float. */
static bool enc_ok(const Format *F, float x) {
    double got = F->dec(F->enc(x));
    return same_value(got, ref_round(F, x));
}

static void test_encode(Format *F, uint32_t step) {
    SWEEP_BEGIN;
    /* every halfway point between neighbours, and its two neighbouring floats */
    for (int c = 0; c <= F->maxcode; c++) {
        float mid = (float)((F->vals[c] + F->vals[c + 1]) / 2);
        float xs[] = {mid, nextafterf(mid, 0), nextafterf(mid, INFINITY), (float)F->vals[c]};
        for (int k = 0; k < 4; k++) {
            SWEEP_CHECK(enc_ok(F, xs[k]), "%s(%a) = %a, want %a", F->name, (double)xs[k],
                        (double)F->dec(F->enc(xs[k])), ref_round(F, xs[k]));
            SWEEP_CHECK(enc_ok(F, -xs[k]), "%s(%a)", F->name, -(double)xs[k]);
        }
    }
    /* a dense sweep of float bit patterns up to past the format's range */
    double top = F->vals[F->maxcode + 1] * 4;
    for (uint32_t u = 0; f32_of(u) < top; u += step) {
        float x = f32_of(u);
        SWEEP_CHECK(enc_ok(F, x) && enc_ok(F, -x), "%s(%a) = %a, want %a", F->name, (double)x,
                    (double)F->dec(F->enc(x)), ref_round(F, x));
    }
    /* random float bit patterns, NaN and infinities included */
    for (int i = 0; i < 1000000; i++) {
        float x = f32_of((uint32_t)rng());
        SWEEP_CHECK(enc_ok(F, x), "%s(%a)", F->name, (double)x);
    }
    float specials[] = {INFINITY, -INFINITY, NAN, -NAN, 0.0f, -0.0f, 3.4e38f, -3.4e38f, 1e-45f};
    for (size_t i = 0; i < sizeof specials / sizeof *specials; i++)
        SWEEP_CHECK(enc_ok(F, specials[i]), "%s(%g)", F->name, (double)specials[i]);
    SWEEP_END(F->name);
}

/* double -> narrow rounds once (round-to-odd step): values just off a float midpoint. */
static void test_round64(Format *F) {
    SWEEP_BEGIN;
    for (int i = 0; i < 200000; i++) {
        int c = (int)(rng() % (uint64_t)F->maxcode);
        double mid = (F->vals[c] + F->vals[c + 1]) / 2;
        double eps = ldexp(mid ? mid : 1e-40, -40 - (int)(rng() % 8));
        double xs[] = {mid + eps, mid - eps, mid, ldexp((double)(rng() >> 11), -52) * mid};
        for (int k = 0; k < 4; k++) {
            double got = F->round64(xs[k]);
            SWEEP_CHECK(same_value(got, ref_round(F, xs[k])), "%s64(%a) = %a want %a", F->name,
                        xs[k], got, ref_round(F, xs[k]));
        }
    }
    SWEEP_END(F->name);
}

#ifdef __FLT16_MAX__
/* The compiler's own float -> _Float16 conversion as a second, independent reference. */
static void test_f16_vs_compiler(void) {
    SWEEP_BEGIN;
    for (int i = 0; i < 4000000; i++) {
        uint32_t u = (uint32_t)rng();
        if (i & 1) u = (u & 0x807fffffu) | ((uint32_t)(100 + rng() % 46) << 23); /* f16 range */
        float x = f32_of(u);
        _Float16 h = (_Float16)x;
        uint16_t want;
        memcpy(&want, &h, 2);
        uint16_t got = tl_f32_to_f16(x);
        bool ok = isnan(x) ? (got & 0x7c00) == 0x7c00 && (got & 0x3ff) : got == want;
        SWEEP_CHECK(ok, "f16(%a) = 0x%04x, compiler says 0x%04x", (double)x, got, want);
    }
    for (uint32_t c = 0; c < 65536; c++) {
        uint16_t b = (uint16_t)c;
        _Float16 h;
        memcpy(&h, &b, 2);
        SWEEP_CHECK(same_value((float)h, tl_f16_to_f32(b)), "decode 0x%04x", c);
    }
    SWEEP_END("f16 vs _Float16");
}
#endif

/* bf16: round to nearest even by integer arithmetic on the float's bits. */
static void test_bf16_int(void) {
    SWEEP_BEGIN;
    for (int i = 0; i < 4000000; i++) {
        uint32_t u = (uint32_t)rng();
        if (i < 65536 * 8) /* every upper half, with ties and random lower halves */
            u = ((uint32_t)(i >> 3) << 16) | (i & 7 ? (uint32_t)rng() & 0xffff : 0x8000);
        float x = f32_of(u);
        uint16_t got = tl_f32_to_bf16(x);
        if (isnan(x)) {
            SWEEP_CHECK(isnan(tl_bf16_to_f32(got)), "bf16(NaN 0x%08x) = 0x%04x", u, got);
            continue;
        }
        uint32_t hi = u >> 16, lo = u & 0xffff;
        uint32_t want = hi + (lo > 0x8000 || (lo == 0x8000 && (hi & 1)));
        SWEEP_CHECK(got == (uint16_t)want, "bf16(0x%08x) = 0x%04x want 0x%04x", u, got, want);
    }
    SWEEP_END("bf16 integer RNE");
}

/* floordiv/floormod by their definition: a == b*q + r, r has b's sign, |r| < |b|. */
static void test_int_helpers(void) {
    SWEEP_BEGIN;
    int32_t edge[] = {0, 1, -1, 2, -2, 3, -3, 7, -7, INT32_MAX, INT32_MIN, INT32_MIN + 1};
    for (int i = 0; i < 400000; i++) {
        int32_t a = i < 144 ? edge[i / 12] : (int32_t)rng();
        int32_t b = i < 144 ? edge[i % 12] : (int32_t)rng();
        if (i >= 144 && i % 3 == 0) b = (int32_t)(rng() % 17) - 8;
        int32_t q = tl_floordiv_i32(a, b), r = tl_floormod_i32(a, b);
        if (b == 0) {
            SWEEP_CHECK(q == 0 && r == 0 && tl_div_i32(a, b) == 0, "%d / 0", a);
            continue;
        }
        if (b == -1 && a == INT32_MIN) {
            SWEEP_CHECK(q == INT32_MIN && r == 0, "INT_MIN // -1 wraps");
            continue;
        }
        bool sign_ok = r == 0 || ((r < 0) == (b < 0));
        bool ok = (int64_t)b * q + r == a && sign_ok && llabs(r) < llabs(b);
        SWEEP_CHECK(ok, "floordiv/mod(%d, %d) = %d, %d", a, b, q, r);
        SWEEP_CHECK(tl_div_i32(a, b) == a / b, "div(%d, %d)", a, b);
        int64_t a64 = (int64_t)rng(), b64 = (int64_t)rng() >> (rng() % 63);
        if (b64 == 0 || (b64 == -1 && a64 == INT64_MIN)) continue;
        int64_t q64 = tl_floordiv_i64(a64, b64), r64 = tl_floormod_i64(a64, b64);
        __int128 back = (__int128)b64 * q64 + r64;
        SWEEP_CHECK(back == a64 && (r64 == 0 || (r64 < 0) == (b64 < 0)), "i64 %lld %lld",
                    (long long)a64, (long long)b64);
    }
    SWEEP_END("floordiv/floormod");
    CHECK(tl_f2i32(3e9) == INT32_MAX && tl_f2i32(-3e9) == INT32_MIN && tl_f2i32(NAN) == 0,
          "f2i32 saturates");
    CHECK(tl_f2i8(-1.9) == -1 && tl_f2u8(300.0) == 255 && tl_f2u8(-5.0) == 0, "f2i8/u8");
    CHECK(tl_f2i64(1e30) == INT64_MAX && tl_f2u64(1e30) == UINT64_MAX, "f2i64 saturates");
    CHECK(tl_shl_i32(1, 33) == 2 && tl_shr_i32(-8, 1) == -4 && tl_shl_u32(1u, 31) == 0x80000000u,
          "shifts are masked");
    CHECK(tl_pow_i32(3, 4) == 81 && tl_pow_i64(2, 40) == (int64_t)1 << 40 && tl_pow_i32(2, -1) == 0,
          "integer pow");
    CHECK(tl_abs_i32(INT32_MIN) == INT32_MIN && tl_neg_i64(5) == -5, "abs/neg wrap");
}

static void test_conversions(void) {
    Format *fmts[] = {&F16, &BF16, &E4M3, &E5M2};
    for (int i = 0; i < 4; i++) {
        fmt_init(fmts[i]);
        test_decode_all(fmts[i]);
    }
    CHECK(F16.vals[F16.maxcode] == 65504 && F16.vals[F16.maxcode + 1] == 65536, "f16 table");
    CHECK(E4M3.vals[E4M3.maxcode] == 448 && E5M2.vals[E5M2.maxcode] == 57344, "fp8 max");
    test_encode(&F16, 257);
    test_encode(&BF16, 4099);
    test_encode(&E4M3, 397);
    test_encode(&E5M2, 397);
    for (int i = 0; i < 4; i++) test_round64(fmts[i]);
#ifdef __FLT16_MAX__
    test_f16_vs_compiler();
#endif
    test_bf16_int();
    CHECK(tl_f32_to_e4m3(INFINITY) == 0x7e && tl_f32_to_e4m3(-INFINITY) == 0xfe, "e4m3 inf");
    CHECK(tl_f32_to_e5m2(INFINITY) == 0x7b && tl_f32_to_e5m2(-1e6f) == 0xfb, "e5m2 saturates");
    CHECK(tl_f32_to_e4m3(NAN) == 0x7f && isnan(tl_e5m2_to_f32(tl_f32_to_e5m2(NAN))), "fp8 NaN");
    CHECK(tl_f32_to_f16(65519.99f) == 0x7bff && tl_f32_to_f16(65520.0f) == 0x7c00, "f16 ovf");
    CHECK(tl_f32_to_bf16(f32_of(0x7f7fffff)) == 0x7f80, "bf16 overflow to inf");
    test_int_helpers();
}

/* ---- IR building helpers ----------------------------------------------------------- */
static Ctx *ctx;
static const char kernel_text[] = "# kernel.py (line numbers only)\n"
                                  "import tilelang.language as T\n";
static Source src = {"examples/kernel.py", kernel_text, sizeof kernel_text - 1};
static Loc L(int line) { return (Loc){&src, line, 1}; }
static const Loc L0 = {0};

static Expr *I(int64_t v) { return ir_int(ctx, v, DT_INT32, L0); }
static Expr *FL(double v, DType t) { return ir_float(ctx, v, t, L0); }
static Expr *V(Var *v) { return ir_varref(ctx, v, L0); }
static Expr *BIN(BinOp op, Expr *a, Expr *b) { return ir_bin(ctx, op, a, b, L0); }
static Expr *CAST(DType t, Expr *a) { return ir_cast(ctx, t, a, L0); }

static Buffer *BUF(const char *name, DType t, Scope sc, int ndim, Expr *d0, Expr *d1) {
    Buffer *b = ir_buffer(ctx, name, t, sc, ndim, L(3));
    b->shape[0] = d0;
    if (ndim > 1) b->shape[1] = d1;
    return b;
}

static Expr **IDX(Expr *i0, Expr *i1) {
    Expr **idx = NEW_ARRAY(&ctx->arena, Expr *, 2);
    idx[0] = i0, idx[1] = i1;
    return idx;
}

static Expr *LD(Buffer *b, Expr *i0, Expr *i1) { return ir_load(ctx, b, IDX(i0, i1), L0); }

static Stmt *ST(Buffer *b, Expr *i0, Expr *i1, Expr *value, int line) {
    Stmt *s = ir_stmt(ctx, STMT_STORE, L(line));
    s->u.store.buf = b, s->u.store.idx = IDX(i0, i1), s->u.store.value = value;
    return s;
}

static Stmt *SEQ(int n, ...) {
    Stmt *s = ir_seq(ctx, L0);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) ir_seq_push(ctx, s, va_arg(ap, Stmt *));
    va_end(ap);
    return s;
}

static Stmt *FOR(Var *v, Expr *mn, Expr *ext, LoopKind k, Stmt *body, int line) {
    Stmt *s = ir_stmt(ctx, STMT_FOR, L(line));
    s->u.for_.var = v, s->u.for_.min = mn, s->u.for_.extent = ext, s->u.for_.kind = k;
    s->u.for_.body = body;
    return s;
}

static Stmt *LET(Var *v, Expr *value) {
    Stmt *s = ir_stmt(ctx, STMT_LET, L0);
    s->u.let.var = v, s->u.let.value = value;
    return s;
}

static Stmt *ALLOC(Buffer *b) {
    Stmt *s = ir_stmt(ctx, STMT_ALLOC, b->loc);
    s->u.alloc.buf = b;
    return s;
}

static Stmt *IF(Expr *cond, Stmt *then) {
    Stmt *s = ir_stmt(ctx, STMT_IF, L0);
    s->u.if_.cond = cond, s->u.if_.then = then;
    return s;
}

static Stmt *KERNEL(Expr *g0, Var *b0, Expr *g1, Var *b1, Stmt *body, int line) {
    Stmt *s = ir_stmt(ctx, STMT_KERNEL, L(line));
    s->u.kernel.ngrid = g1 ? 2 : 1;
    s->u.kernel.grid[0] = g0, s->u.kernel.block[0] = b0;
    s->u.kernel.grid[1] = g1, s->u.kernel.block[1] = b1;
    s->u.kernel.threads[0] = 128, s->u.kernel.nthreads_dims = 1;
    s->u.kernel.body = body;
    return s;
}

static Region REG1(Buffer *b, Expr *start) {
    Region r = {b, 1, NEW_ARRAY(&ctx->arena, Expr *, 1), NEW_ARRAY(&ctx->arena, Expr *, 1)};
    r.start[0] = start, r.extent[0] = I(1);
    return r;
}

static Stmt *ATOMIC(AtomicOp op, Buffer *b, Expr *value) {
    Stmt *s = ir_stmt(ctx, STMT_ATOMIC, L(20));
    s->u.atomic.op = op, s->u.atomic.dst = REG1(b, I(0)), s->u.atomic.value = value;
    return s;
}

static Func *FUNC(const char *name) {
    Func *f = NEW(&ctx->arena, Func);
    f->name = name, f->loc = L(1);
    return f;
}

static void PARAM_BUF(Func *f, Buffer *b) {
    Param p = {.name = b->name, .buf = b};
    VEC_PUSH(&ctx->arena, f->params, p);
}

static void PARAM_SCALAR(Func *f, Var *v) {
    Param p = {.name = v->name, .scalar = v};
    VEC_PUSH(&ctx->arena, f->params, p);
}

/* ---- compile and run ---------------------------------------------------------------- */
static char tmpdir[128];
static int nbuilt;
static const char *last_source;

/* Lowers, emits, builds, loads and launches f. Returns the launch status (0 ok), or -1
 * when any earlier step failed (a check records why). err gets the launch error. */
static int run_func(Func *f, void *const *args, const int64_t *syms, StrBuf *err) {
    jmp_buf jb;
    if (CTX_TRY(ctx, &jb)) {
        CHECK(0, "compile error: %s", ctx->err.buf ? ctx->err.buf : "?");
        return -1;
    }
    target_c.lower(ctx, f);
    char *source = target_c.emit(ctx, f);
    ctx->on_error = NULL;
    last_source = source;
    if (getenv("TEST_TARGET_C_DUMP")) fprintf(stderr, "%s\n", strstr(source, "/* ---- kernels"));
    char path[256];
    snprintf(path, sizeof path, "%s/k%d%s", tmpdir, nbuilt++, target_c.binary_ext);
    StrBuf log = {0};
    int rc = target_c.build(source, &no_settings, path, &log);
    CHECK(rc == 0, "build %s failed:\n%s\n--- source ---\n%s", f->name, log.buf,
          strstr(source, "/* ---- kernels"));
    sb_free(&log);
    if (rc) return -1;
    StrBuf lerr = {0};
    void *m = target_c.load(path, &no_settings, &lerr);
    CHECK(m != NULL, "load: %s", lerr.buf);
    sb_free(&lerr);
    if (!m) return -1;
    rc = target_c.launch(m, args, syms, NULL, err);
    target_c.unload(m);
    unlink(path);
    return rc;
}

/* A[bx, i] = bx * 10 + i through a T.Parallel loop, 4 blocks. */
static void test_parallel_store(void) {
    Func *f = FUNC("parallel_store");
    Buffer *A = BUF("A", DT_FLOAT32, SCOPE_GLOBAL, 2, I(4), I(10));
    PARAM_BUF(f, A);
    Var *bx = ir_var(ctx, "bx", DT_INT32), *i = ir_var(ctx, "i", DT_INT32);
    Expr *val = CAST(DT_FLOAT32, BIN(OP_ADD, BIN(OP_MUL, V(bx), I(10)), V(i)));
    Stmt *loop = FOR(i, I(0), I(10), LOOP_PARALLEL, ST(A, V(bx), V(i), val, 6), 5);
    f->body = SEQ(1, KERNEL(I(4), bx, NULL, NULL, loop, 4));
    float a[40];
    for (int k = 0; k < 40; k++) a[k] = -1;
    void *args[] = {a};
    StrBuf err = {0};
    CHECK(run_func(f, args, NULL, &err) == 0, "launch: %s", err.buf);
    sb_free(&err);
    bool ok = true;
    for (int k = 0; k < 40; k++) ok &= a[k] == (float)k;
    CHECK(ok, "A[bx, i] == bx * 10 + i");
    CHECK(last_source && strstr(last_source, "// kernel.py:6"), "location comments");
    CHECK(last_source && strstr(last_source, "#pragma omp parallel"), "OpenMP grid loop");
}

/* A fragment accumulator filled by a serial loop; a let named like a libm function; an
 * alloc_var with init; float intrinsics and integer floordiv/floormod. */
static void test_fragment_serial(void) {
    Func *f = FUNC("fragment_serial");
    Buffer *X = BUF("X", DT_FLOAT32, SCOPE_GLOBAL, 2, I(3), I(6));
    Buffer *Y = BUF("Y", DT_FLOAT32, SCOPE_GLOBAL, 2, I(3), I(8));
    Buffer *Z = BUF("int", DT_INT32, SCOPE_GLOBAL, 2, I(3), I(8)); /* a C keyword */
    PARAM_BUF(f, X), PARAM_BUF(f, Y), PARAM_BUF(f, Z);
    Buffer *acc = BUF("acc", DT_FLOAT32, SCOPE_FRAGMENT, 1, I(8), NULL);
    Buffer *cnt = BUF("tl_cnt", DT_INT32, SCOPE_VAR, 1, I(1), NULL);
    cnt->init = I(5);
    Var *bx = ir_var(ctx, "bx", DT_INT32), *k = ir_var(ctx, "k", DT_INT32);
    Var *i1 = ir_var(ctx, "i", DT_INT32), *i2 = ir_var(ctx, "i", DT_INT32);
    Var *i3 = ir_var(ctx, "i", DT_INT32), *e = ir_var(ctx, "exp", DT_FLOAT32);
    Stmt *zero = FOR(i1, I(0), I(8), LOOP_PARALLEL, ST(acc, V(i1), NULL, FL(0, DT_FLOAT32), 8), 8);
    Expr *upd = BIN(OP_ADD, LD(acc, V(i2), NULL), BIN(OP_MUL, V(e), CAST(DT_FLOAT32, V(i2))));
    Stmt *inner = FOR(i2, I(0), I(8), LOOP_PARALLEL, ST(acc, V(i2), NULL, upd, 11), 10);
    Stmt *kloop = FOR(k, I(0), I(6), LOOP_PIPELINED, SEQ(2, LET(e, LD(X, V(bx), V(k))), inner), 9);
    Expr *a = LD(acc, V(i3), NULL);
    Expr *y = BIN(OP_ADD, ir_call(ctx, FN_SQRT, BIN(OP_MUL, a, a), NULL, L0),
                  CAST(DT_FLOAT32, LD(cnt, I(0), NULL)));
    Expr *m = BIN(OP_SUB, V(i3), I(4));
    Expr *z = BIN(OP_ADD, BIN(OP_MUL, BIN(OP_FLOORDIV, m, I(3)), I(100)),
                  BIN(OP_FLOORMOD, m, I(3)));
    Stmt *out = FOR(i3, I(0), I(8), LOOP_PARALLEL,
                    SEQ(2, ST(Y, V(bx), V(i3), y, 13), ST(Z, V(bx), V(i3), z, 14)), 12);
    Stmt *body = SEQ(5, ALLOC(acc), ALLOC(cnt), zero, kloop, out);
    f->body = SEQ(1, KERNEL(I(3), bx, NULL, NULL, body, 7));
    float x[18], yv[24];
    int32_t zv[24];
    for (int j = 0; j < 18; j++) x[j] = (float)(j % 5 + 1);
    void *args[] = {x, yv, zv};
    StrBuf err = {0};
    CHECK(run_func(f, args, NULL, &err) == 0, "launch: %s", err.buf);
    sb_free(&err);
    bool ok = true, zok = true;
    for (int b = 0; b < 3; b++) {
        float s = 0;
        for (int j = 0; j < 6; j++) s += x[b * 6 + j];
        for (int j = 0; j < 8; j++) {
            ok &= yv[b * 8 + j] == s * (float)j + 5.0f;
            int mm = j - 4, q = mm >= 0 ? mm / 3 : -((-mm + 2) / 3);
            zok &= zv[b * 8 + j] == q * 100 + (mm - 3 * q);
        }
    }
    CHECK(ok, "fragment accumulation, alloc_var init, sqrt");
    CHECK(zok, "floordiv/floormod with negative operands (Python semantics)");
}

/* fp16 storage and arithmetic rounding, bf16 and fp8 stores, casts to float32. */
static void test_narrow_storage(void) {
    Func *f = FUNC("narrow");
    Buffer *X = BUF("X", DT_FLOAT16, SCOPE_GLOBAL, 1, I(64), NULL);
    Buffer *Y = BUF("Y", DT_FLOAT16, SCOPE_GLOBAL, 1, I(64), NULL);
    Buffer *Zb = BUF("Zb", DT_BFLOAT16, SCOPE_GLOBAL, 1, I(64), NULL);
    Buffer *W = BUF("W", DT_FLOAT8_E4M3, SCOPE_GLOBAL, 1, I(64), NULL);
    Buffer *Vf = BUF("Vf", DT_FLOAT32, SCOPE_GLOBAL, 1, I(64), NULL);
    PARAM_BUF(f, X), PARAM_BUF(f, Y), PARAM_BUF(f, Zb), PARAM_BUF(f, W), PARAM_BUF(f, Vf);
    Var *bx = ir_var(ctx, "bx", DT_INT32), *i = ir_var(ctx, "i", DT_INT32);
    Var *h = ir_var(ctx, "h", DT_FLOAT16);
    Expr *idx = BIN(OP_ADD, BIN(OP_MUL, V(bx), I(16)), V(i));
    Expr *y = BIN(OP_ADD, BIN(OP_MUL, V(h), FL(3.0, DT_FLOAT16)), FL(0.1, DT_FLOAT16));
    Expr *w = CAST(DT_FLOAT8_E4M3, BIN(OP_MUL, V(h), FL(100, DT_FLOAT16)));
    Stmt *body = SEQ(5, LET(h, LD(X, idx, NULL)), ST(Y, idx, NULL, y, 30),
                     ST(Zb, idx, NULL, CAST(DT_BFLOAT16, V(h)), 31), ST(W, idx, NULL, w, 32),
                     ST(Vf, idx, NULL, CAST(DT_FLOAT32, V(h)), 33));
    Stmt *loop = FOR(i, I(0), I(16), LOOP_PARALLEL, body, 29);
    f->body = SEQ(1, KERNEL(I(4), bx, NULL, NULL, loop, 28));
    uint16_t xv[64], yv[64], zb[64];
    uint8_t wv[64];
    float vf[64];
    for (int j = 0; j < 64; j++) xv[j] = (uint16_t)(j == 63 ? 0x7c00 : rng() & 0xbfff); /* |x|<2 */
    void *args[] = {xv, yv, zb, wv, vf};
    StrBuf err = {0};
    CHECK(run_func(f, args, NULL, &err) == 0, "launch: %s", err.buf);
    sb_free(&err);
    SWEEP_BEGIN;
    for (int j = 0; j < 64; j++) {
        double xd = fmt_formula(&F16, xv[j]);
        double t = ref_round(&F16, xd * 3.0), c = ref_round(&F16, 0.1);
        double want = ref_round(&F16, t + c);
        SWEEP_CHECK(same_value(fmt_formula(&F16, yv[j]), want), "Y[%d] = %g want %g (x=%g)", j,
                    fmt_formula(&F16, yv[j]), want, xd);
        SWEEP_CHECK(same_value(fmt_formula(&BF16, zb[j]), ref_round(&BF16, xd)), "Zb[%d]", j);
        double w = ref_round(&E4M3, ref_round(&F16, xd * 100));
        SWEEP_CHECK(same_value(fmt_formula(&E4M3, wv[j]), w), "W[%d] = %g want %g", j,
                    fmt_formula(&E4M3, wv[j]), w);
        SWEEP_CHECK(same_value(vf[j], xd), "Vf[%d]", j);
    }
    SWEEP_END("f16/bf16/e4m3 storage");
}

/* Two kernels: the second reads what the first wrote in other blocks. */
static void test_two_kernels(void) {
    Func *f = FUNC("two_kernels");
    Buffer *A = BUF("float", DT_INT32, SCOPE_GLOBAL, 1, I(64), NULL);
    Buffer *B = BUF("B", DT_INT32, SCOPE_GLOBAL, 1, I(64), NULL);
    PARAM_BUF(f, A), PARAM_BUF(f, B);
    Var *bx1 = ir_var(ctx, "bx", DT_INT32), *i1 = ir_var(ctx, "i", DT_INT32);
    Var *bx2 = ir_var(ctx, "bx", DT_INT32), *i2 = ir_var(ctx, "i", DT_INT32);
    Expr *j1 = BIN(OP_ADD, BIN(OP_MUL, V(bx1), I(16)), V(i1));
    Expr *j2 = BIN(OP_ADD, BIN(OP_MUL, V(bx2), I(16)), V(i2));
    Stmt *k1 = KERNEL(I(4), bx1, NULL, NULL,
                      FOR(i1, I(0), I(16), LOOP_PARALLEL, ST(A, j1, NULL, j1, 41), 40), 39);
    Expr *rd = BIN(OP_MUL, LD(A, BIN(OP_SUB, I(63), j2), NULL), I(2));
    Stmt *k2 = KERNEL(I(4), bx2, NULL, NULL,
                      FOR(i2, I(0), I(16), LOOP_PARALLEL, ST(B, j2, NULL, rd, 44), 43), 42);
    f->body = SEQ(2, k1, k2);
    int32_t a[64], b[64];
    void *args[] = {a, b};
    StrBuf err = {0};
    CHECK(run_func(f, args, NULL, &err) == 0, "launch: %s", err.buf);
    sb_free(&err);
    bool ok = true;
    for (int j = 0; j < 64; j++) ok &= a[j] == j && b[j] == (63 - j) * 2;
    CHECK(ok, "second kernel sees the first one's writes");
}

/* T.alloc_global at function level: a zeroed workspace shared by two kernels, with a
 * symbolic size; the host-level let feeds a kernel. */
static void test_global_workspace(void) {
    Func *f = FUNC("workspace");
    Var *N = ir_var(ctx, "N", DT_INT32), *half = ir_var(ctx, "half", DT_INT32);
    VEC_PUSH(&ctx->arena, f->syms, N);
    Buffer *Out = BUF("Out", DT_INT64, SCOPE_GLOBAL, 1, V(N), NULL);
    PARAM_BUF(f, Out);
    Buffer *W = BUF("W", DT_INT64, SCOPE_GLOBAL, 1, V(N), NULL);
    Var *b1 = ir_var(ctx, "bx", DT_INT32), *b2 = ir_var(ctx, "bx", DT_INT32);
    Stmt *k1 = KERNEL(V(N), b1, NULL, NULL,
                      ST(W, V(b1), NULL, BIN(OP_MUL, CAST(DT_INT64, V(b1)), V(half)), 71), 70);
    Expr *rd = BIN(OP_ADD, LD(W, BIN(OP_SUB, BIN(OP_SUB, V(N), I(1)), V(b2)), NULL), I(1));
    Stmt *k2 = KERNEL(V(N), b2, NULL, NULL, ST(Out, V(b2), NULL, rd, 73), 72);
    f->body = SEQ(4, ALLOC(W), LET(half, BIN(OP_FLOORDIV, V(N), I(2))), k1, k2);
    int64_t out[10], syms[] = {10};
    void *args[] = {out};
    StrBuf err = {0};
    CHECK(run_func(f, args, syms, &err) == 0, "launch: %s", err.buf);
    sb_free(&err);
    bool ok = true;
    for (int j = 0; j < 10; j++) ok &= out[j] == (int64_t)(9 - j) * 5 + 1;
    CHECK(ok, "T.alloc_global workspace between kernels");
}

/* Scalar atomics from 256 blocks: int32/float32 add (omp atomic), int max, f16 add and
 * float64 min (CAS loops); 200 contended int32 and int16 adds per block, so lost updates
 * would show. */
static void test_atomics(void) {
    Func *f = FUNC("atomics");
    Buffer *cnt = BUF("cnt", DT_INT32, SCOPE_GLOBAL, 1, I(1), NULL);
    Buffer *sum = BUF("sum", DT_FLOAT32, SCOPE_GLOBAL, 1, I(1), NULL);
    Buffer *mx = BUF("mx", DT_INT32, SCOPE_GLOBAL, 1, I(1), NULL);
    Buffer *hs = BUF("hs", DT_FLOAT16, SCOPE_GLOBAL, 1, I(1), NULL);
    Buffer *mn = BUF("mn", DT_FLOAT64, SCOPE_GLOBAL, 1, I(1), NULL);
    Buffer *c16 = BUF("c16", DT_INT16, SCOPE_GLOBAL, 1, I(1), NULL);
    PARAM_BUF(f, cnt), PARAM_BUF(f, sum), PARAM_BUF(f, mx), PARAM_BUF(f, hs), PARAM_BUF(f, mn);
    PARAM_BUF(f, c16);
    Var *bx = ir_var(ctx, "bx", DT_INT32), *by = ir_var(ctx, "by", DT_INT32);
    Var *j = ir_var(ctx, "j", DT_INT32);
    Stmt *many = FOR(j, I(0), I(200), LOOP_SERIAL,
                     SEQ(2, ATOMIC(ATOMIC_ADD, cnt, I(1)),
                         ATOMIC(ATOMIC_ADD, c16, ir_int(ctx, 1, DT_INT16, L0))),
                     21);
    Expr *fmin = BIN(OP_SUB, CAST(DT_FLOAT64, V(bx)), FL(10, DT_FLOAT64));
    Stmt *body = SEQ(5, many, ATOMIC(ATOMIC_ADD, sum, FL(0.5, DT_FLOAT32)),
                     ATOMIC(ATOMIC_MAX, mx, BIN(OP_ADD, BIN(OP_MUL, V(bx), I(4)), V(by))),
                     ATOMIC(ATOMIC_ADD, hs, FL(1.0, DT_FLOAT16)), ATOMIC(ATOMIC_MIN, mn, fmin));
    f->body = SEQ(1, KERNEL(I(64), bx, I(4), by, body, 19));
    int32_t c = 0, m = -1;
    int16_t c2 = 0;
    float s = 0;
    uint16_t h = 0;
    double d = 0;
    void *args[] = {&c, &s, &m, &h, &d, &c2};
    StrBuf err = {0};
    CHECK(run_func(f, args, NULL, &err) == 0, "launch: %s", err.buf);
    sb_free(&err);
    CHECK(c == 51200 && s == 128.0f && m == 255, "atomics: cnt %d sum %g max %d", c, (double)s, m);
    CHECK(c2 == (int16_t)(51200 - 65536), "int16 CAS add wraps: %d", c2);
    CHECK(h == 0x5c00 && d == -10.0, "atomics: f16 sum 0x%04x, f64 min %g", h, d);
}

/* Symbolic sizes: grid ceildiv(M, 32), a guarded tail, a scalar parameter, and a
 * strided 2-D buffer whose row stride is a symbol. */
static void test_symbolic(void) {
    Func *f = FUNC("symbolic");
    Var *M = ir_var(ctx, "M", DT_INT32), *ldb = ir_var(ctx, "ldb", DT_INT32);
    VEC_PUSH(&ctx->arena, f->syms, M);
    VEC_PUSH(&ctx->arena, f->syms, ldb);
    Buffer *A = BUF("A", DT_FLOAT32, SCOPE_GLOBAL, 1, V(M), NULL);
    Buffer *B = BUF("B", DT_FLOAT32, SCOPE_GLOBAL, 2, V(M), I(4));
    B->strides = NEW_ARRAY(&ctx->arena, Expr *, 2);
    B->strides[0] = V(ldb), B->strides[1] = I(1);
    Var *n = ir_var(ctx, "n", DT_INT32);
    PARAM_BUF(f, A), PARAM_SCALAR(f, n), PARAM_BUF(f, B);
    Var *bx = ir_var(ctx, "bx", DT_INT32), *i = ir_var(ctx, "i", DT_INT32);
    Var *r = ir_var(ctx, "r", DT_INT32), *c = ir_var(ctx, "c", DT_INT32);
    Expr *grid = BIN(OP_FLOORDIV, BIN(OP_ADD, V(M), I(31)), I(32));
    Expr *upd = BIN(OP_ADD, BIN(OP_MUL, LD(A, V(r), NULL), FL(2, DT_FLOAT32)),
                    CAST(DT_FLOAT32, V(n)));
    Expr *bv = CAST(DT_FLOAT32, BIN(OP_ADD, BIN(OP_MUL, V(r), I(100)), V(c)));
    Stmt *guarded = IF(BIN(OP_LT, V(r), V(M)),
                       SEQ(2, ST(A, V(r), NULL, upd, 52),
                           FOR(c, I(0), I(4), LOOP_SERIAL, ST(B, V(r), V(c), bv, 54), 53)));
    Stmt *body = FOR(i, I(0), I(32), LOOP_PARALLEL,
                     SEQ(2, LET(r, BIN(OP_ADD, BIN(OP_MUL, V(bx), I(32)), V(i))), guarded), 50);
    f->body = SEQ(1, KERNEL(grid, bx, NULL, NULL, body, 49));
    float a[100], b[800];
    for (int j = 0; j < 100; j++) a[j] = (float)j;
    for (int j = 0; j < 800; j++) b[j] = -1;
    int64_t nv = 7, syms[] = {100, 8};
    void *args[] = {a, &nv, b};
    StrBuf err = {0};
    CHECK(run_func(f, args, syms, &err) == 0, "launch: %s", err.buf);
    sb_free(&err);
    bool ok = true;
    for (int j = 0; j < 100; j++) ok &= a[j] == (float)(2 * j + 7);
    for (int j = 0; j < 800; j++) /* row stride 8: columns 4..7 untouched */
        ok &= b[j] == ((j % 8) < 4 ? (float)((j / 8) * 100 + j % 8) : -1);
    CHECK(ok, "symbolic sizes, scalar parameter, strided buffer");
}

/* T.print writes each value (or region element) with the block index to stdout. */
static void test_print(void) {
    Func *f = FUNC("print");
    Buffer *P = BUF("P", DT_INT32, SCOPE_GLOBAL, 1, I(3), NULL);
    PARAM_BUF(f, P);
    Var *bx = ir_var(ctx, "bx", DT_INT32);
    Stmt *pv = ir_stmt(ctx, STMT_PRINT, L(60));
    pv->u.print.msg = "value \"q\"?", pv->u.print.value = BIN(OP_ADD, V(bx), I(42));
    Stmt *pr = ir_stmt(ctx, STMT_PRINT, L(61));
    pr->u.print.msg = "region";
    pr->u.print.region = (Region){P, 1, IDX(I(1), NULL), IDX(I(2), NULL)};
    Stmt *printing = IF(BIN(OP_EQ, V(bx), I(1)), SEQ(2, pv, pr));
    f->body = SEQ(1, KERNEL(I(4), bx, NULL, NULL, printing, 59));
    int32_t p[3] = {7, 8, 9};
    void *args[] = {p};
    char out_path[256];
    snprintf(out_path, sizeof out_path, "%s/stdout.txt", tmpdir);
    fflush(stdout);
    int saved = dup(1), fd = open(out_path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    dup2(fd, 1);
    close(fd);
    StrBuf err = {0};
    int rc = run_func(f, args, NULL, &err);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    CHECK(rc == 0, "launch: %s", err.buf);
    sb_free(&err);
    char text[1024] = {0};
    FILE *fp = fopen(out_path, "r");
    size_t nread = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
    text[nread] = 0;
    if (fp) fclose(fp);
    unlink(out_path);
    CHECK(strstr(text, "value \"q\"?: BlockIdx=(1, 0, 0) dtype=int32 value=43\n") != NULL,
          "scalar print: %s", text);
    CHECK(strstr(text, "region: BlockIdx=(1, 0, 0) P[1] dtype=int32 value=8\n") &&
              strstr(text, "P[2] dtype=int32 value=9\n") && !strstr(text, "P[0]"),
          "region print: %s", text);
}

/* T.device_assert fails in block 3: the launch reports it (message on stderr). */
static void test_assert(void) {
    Func *f = FUNC("assert");
    Var *bx = ir_var(ctx, "bx", DT_INT32);
    Stmt *as = ir_stmt(ctx, STMT_ASSERT, L(62));
    as->u.assert_.cond = BIN(OP_LT, V(bx), I(3)), as->u.assert_.msg = "bx < 3";
    f->body = SEQ(1, KERNEL(I(4), bx, NULL, NULL, as, 59));
    fprintf(stderr, "(an expected device assert message follows)\n");
    StrBuf err = {0};
    int rc = run_func(f, NULL, NULL, &err);
    CHECK(rc == 1 && err.buf && strstr(err.buf, "device_assert"), "assert reported: %d %s", rc,
          err.buf);
    sb_free(&err);
    CHECK(last_source && strstr(last_source, "\"kernel.py:62\""), "assert names its line");
}

/* Toolchain behaviour: errors are reported with the compiler's output; a missing
 * compiler is named. */
static void test_toolchain(void) {
    StrBuf why = {0};
    CHECK(target_c.available(&why) == 1, "cc available: %s", why.buf);
    sb_free(&why);
    Arena a = {0};
    const char *id = target_c.toolchain_id(&a);
    CHECK(id && strstr(id, "-fwrapv"), "toolchain id: %s", id);
    arena_free(&a);
    char path[256];
    snprintf(path, sizeof path, "%s/bad.so", tmpdir);
    StrBuf log = {0};
    CHECK(target_c.build("int x = ;\n", &no_settings, path, &log) != 0 && log.len > 0,
          "bad source fails");
    CHECK(access(path, F_OK) != 0, "no binary after a failed build");
    sb_free(&log);
    const char *old = getenv("CC");
    char *saved = old ? strdup(old) : NULL;
    setenv("CC", "/nonexistent/tilec-no-cc", 1);
    CHECK(target_c.available(&why) == 0 && why.buf && strstr(why.buf, "not found"),
          "missing compiler: %s", why.buf);
    sb_free(&why);
    CHECK(target_c.build("int x;\n", &no_settings, path, &log) != 0 && log.buf &&
              strstr(log.buf, "C compiler '/nonexistent/tilec-no-cc' not found"),
          "missing compiler on build: %s", log.buf);
    sb_free(&log);
    /* a compiler without OpenMP: the build is retried without -fopenmp */
    char fake[64];
    snprintf(fake, sizeof fake, "/tmp/tilec_nomp_cc_%d.sh", (int)getpid());
    FILE *fp = fopen(fake, "w");
    fprintf(fp, "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = -fopenmp ] && "
                "{ echo 'no OpenMP here' >&2; exit 1; }; done\nexec cc \"$@\"\n");
    fclose(fp);
    chmod(fake, 0700);
    setenv("CC", fake, 1);
    CHECK(target_c.build("#pragma omp parallel\nint x;\n", &no_settings, path, &log) == 0,
          "no-OpenMP retry: %s", log.buf);
    CHECK(access(path, F_OK) == 0, "binary built without OpenMP");
    sb_free(&log);
    unlink(fake);
    unlink(path);
    if (saved) setenv("CC", saved, 1);
    else unsetenv("CC");
    free(saved);
    StrBuf lerr = {0};
    CHECK(target_c.load(path, &no_settings, &lerr) == NULL && lerr.len > 0,
          "load of a missing file fails");
    sb_free(&lerr);
    CHECK(target_find("c") == &target_c && target_find("nope") == NULL, "target_find");
}

int main(void) {
    test_conversions();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tilec test_c_XXXXXX"); /* a space on purpose */
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    Ctx c = {0};
    ctx = &c;
    test_toolchain();
    test_parallel_store();
    test_fragment_serial();
    test_narrow_storage();
    test_two_kernels();
    test_global_workspace();
    test_atomics();
    test_symbolic();
    test_print();
    test_assert();
    rmdir(tmpdir);
    free(F16.vals), free(BF16.vals), free(E4M3.vals), free(E5M2.vals);
    sb_free(&c.err);
    arena_free(&c.arena);
    if (failures) {
        printf("test_target_c: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("test_target_c: %d checks passed\n", checks);
    return 0;
}
