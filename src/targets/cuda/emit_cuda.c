/* emit_cuda.c - the CUDA target's pass pipeline and its CUDA C++ code generation (first,
 * SIMT version: correct for every construct the C target runs; speed comes from later
 * layout inference, mma/wgmma and cp.async pipelining, which replace pieces of this).
 *
 * Requires: a Func lowered by cuda_lower. Provides: one source file, compiled by NVRTC
 * with no include path: the runtime/cuda/tl_cuda.h prelude, then per top-level
 * STMT_KERNEL i an `extern "C" __global__ tilec_kernel_<i>` with the launch ABI of
 * cuda.h. One CUDA block runs one block of the T.Kernel (blockIdx.x/y/z = its block
 * variables in order); the execution model (which thread runs what) is the one stated
 * in src/passes/map_threads.c:
 *   - serial statements run in every thread; their stores, atomics and prints to
 *     block-wide memory are guarded by `if (tl_tid == 0)`;
 *   - a distributed loop nest is flattened: `for (t = tl_tid; t < N; t += nthreads)`;
 *   - shared and fragment buffers sit at fixed offsets of one `extern __shared__`
 *     allocation (cuda_kernel_buffers), zeroed at block start like the C target's
 *     scratch memory; local/var buffers are per-thread arrays, zero-initialized;
 *   - barriers are the STMT_SYNCs placed by pass_insert_sync_threads (and T.sync_threads);
 *   - atomics: tl_atomic_<op>_<dtype> of tl_cuda.h (one thread in serial code); on a
 *     per-thread buffer a plain update;
 *   - T.print: printf in the C target's format (thread 0 in serial code, the owning
 *     thread in a distributed loop); T.device_assert: the message, then __trap(), so the
 *     launch fails and the CUDA context is unusable afterwards;
 *   - T.use_swizzle(panel) with a constant panel on a 2-D/3-D grid remaps blockIdx.x/y
 *     (tl_swizzle_2d, TileLang's row rasterization); otherwise it is ignored (it only
 *     changes the order of blocks); T.annotate_layout is ignored (no layouts yet).
 * Host-level lets that a kernel uses are recomputed at the top of the kernel (they are
 * functions of parameters and symbols); T.alloc_global buffers are kernel parameters
 * that the runtime allocates (zeroed) for each launch. Lets nothing reads are dropped,
 * so NVRTC compiles the output without warnings. */
#include "cuda_emit.h"
#include "ir_walk.h"

#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-const-variable"
#include "embedded_runtime.h"
#pragma GCC diagnostic pop

enum { MAX_NEST = 16, MAX_THREADS = 1024 };

/* ---- the pipeline --------------------------------------------------------------------- */
void cuda_lower(Ctx *ctx, Func *f) {
    pass_run(ctx, f, "check_tile_ops", pass_check_tile_ops);
    pass_run(ctx, f, "lower_tile_ops", pass_lower_tile_ops);
    pass_run(ctx, f, "safe_memory_access", pass_safe_memory_access);
    pass_run(ctx, f, "simplify", pass_simplify);
    pass_run(ctx, f, "map_threads", pass_map_threads);
    pass_run(ctx, f, "insert_sync_threads", pass_insert_sync_threads);
}

/* ---- small helpers ------------------------------------------------------------------------ */
static const char *loc_where(CuEmit *em, Loc loc) {
    if (!loc.src || !loc.src->name) return "kernel";
    const char *base = strrchr(loc.src->name, '/');
    return arena_printf(&em->ctx->arena, "%s:%d", base ? base + 1 : loc.src->name, loc.line);
}

static void loc_comment(CuEmit *em, Loc loc) {
    if (!loc.src || (loc.src == em->last_src && loc.line == em->last_line)) return;
    em->last_src = loc.src, em->last_line = loc.line;
    cu_line(em, "// %s", loc_where(em, loc));
}

/* "if (tl_tid == 0) " when serial code touches block-wide memory (one thread does it). */
static const char *one_thread(const CuEmit *em, bool block_wide) {
    return !em->dist && block_wide ? "if (tl_tid == 0) " : "";
}

static void emit_stmt(CuEmit *em, const Stmt *s);

/* Emits body as a braced block: "{" is already written by the caller. */
static void emit_block_body(CuEmit *em, const Stmt *body) {
    int mark = em->live.len;
    em->indent++;
    if (body) emit_stmt(em, body);
    em->indent--;
    em->live.len = mark;
    cu_line(em, "}");
}

/* ---- loops -------------------------------------------------------------------------------- */
static void emit_serial_for(CuEmit *em, const Stmt *s) {
    const Var *v = s->u.for_.var;
    DType t = v->dtype;
    const char *i = cu_var(em, v), *ty = cu_value(t);
    const char *mn = cu_ex_str(em, s->u.for_.min, t, false);
    const char *ext = cu_ex_str(em, s->u.for_.extent, t, false);
    int64_t cmin, cext;
    const char *kind = s->u.for_.kind == LOOP_SERIAL ? ""
                       : arena_printf(&em->ctx->arena, "  /* %s */",
                                      loop_kind_name(s->u.for_.kind));
    bool kmin = ir_is_const_int(s->u.for_.min, &cmin);
    if (kmin && ir_is_const_int(s->u.for_.extent, &cext)) {
        if (s->u.for_.kind == LOOP_UNROLL) cu_line(em, "#pragma unroll");
        cu_line(em, "for (%s %s = %lld; %s < %lld; ++%s) {%s", ty, i, (long long)cmin, i,
                (long long)(cmin + cext), i, kind);
    } else if (cu_expr_has_load(s->u.for_.min) || cu_expr_has_load(s->u.for_.extent)) {
        const char *end = cu_tmp(em, "end");
        cu_line(em, "for (%s %s = %s, %s = %s + %s; %s < %s; ++%s) {%s", ty, i,
                cu_ex_str(em, s->u.for_.min, t, true), end, i, ext, i, end, i, kind);
    } else if (kmin && cmin == 0) {
        cu_line(em, "for (%s %s = 0; %s < %s; ++%s) {%s", ty, i, i, ext, i, kind);
    } else {
        cu_line(em, "for (%s %s = %s; %s < %s + %s; ++%s) {%s", ty, i,
                cu_ex_str(em, s->u.for_.min, t, true), i, mn, ext, i, kind);
    }
    cu_live_add(em, v);
    emit_block_body(em, s->u.for_.body);
}

/* A value every thread computes once before a distributed loop: a literal, or a
 * `const` temporary. */
static const char *dist_bound(CuEmit *em, const Expr *e, const char *base) {
    int64_t c;
    if (ir_is_const_int(e, &c)) return arena_printf(&em->ctx->arena, "%lld", (long long)c);
    const char *n = cu_tmp(em, base);
    cu_line(em, "const int64_t %s = %s;", n, cu_ex_str(em, e, DT_INT64, true));
    return n;
}

/* A distributed loop of constant bounds: `for (i = lo + tl_tid; i < hi; i += nthreads)`. */
static void emit_distributed_1d(CuEmit *em, const Stmt *s, int64_t lo, int64_t n) {
    const Var *v = s->u.for_.var;
    const char *i = cu_var(em, v), *ty = cu_value(v->dtype);
    StrBuf start = {0};
    if (lo) sb_printf(&start, "%lld + ", (long long)lo);
    sb_puts(&start, "tl_tid");
    cu_line(em, "for (%s %s = %s; %s < %lld; %s += %d) {  /* parallel: %d threads */", ty, i,
            start.buf, i, (long long)(lo + n), i, em->nthreads, em->nthreads);
    sb_free(&start);
    cu_live_add(em, v);
    em->dist++;
    emit_block_body(em, s->u.for_.body);
    em->dist--;
}

/* A distributed nest: iterations flattened, iteration t on thread t % nthreads. */
static void emit_distributed(CuEmit *em, const Stmt *root) {
    Stmt *loops[MAX_NEST];
    int n = simt_parallel_nest((Stmt *)root, loops, MAX_NEST);
    int64_t lo1, n1;
    if (n == 1 && ir_is_const_int(root->u.for_.min, &lo1) &&
        ir_is_const_int(root->u.for_.extent, &n1) && n1 >= 0 && lo1 >= INT32_MIN &&
        lo1 + n1 <= INT32_MAX && (root->u.for_.var->dtype == DT_INT32 ||
                                  root->u.for_.var->dtype == DT_INT64)) {
        emit_distributed_1d(em, root, lo1, n1);
        return;
    }
    Arena *a = &em->ctx->arena;
    const char *ext[MAX_NEST], *mins[MAX_NEST];
    bool constant = true;
    int64_t total = 1, c;
    for (int k = 0; k < n; k++) {
        const Expr *e = loops[k]->u.for_.extent;
        if (ir_is_const_int(e, &c) && ir_is_const_int(loops[k]->u.for_.min, NULL)) {
            c = c < 0 ? 0 : c;
            if (__builtin_mul_overflow(total, c, &total)) constant = false;
        } else {
            constant = false;
        }
    }
    for (int k = 0; k < n; k++) {
        const Expr *e = loops[k]->u.for_.extent;
        mins[k] = dist_bound(em, loops[k]->u.for_.min, "lo");
        if (ir_is_const_int(e, &c)) ext[k] = arena_printf(a, "%lld", (long long)(c < 0 ? 0 : c));
        else {
            ext[k] = cu_tmp(em, "n");
            cu_line(em, "const int64_t %s = tl_max_i64(%s, 0);", ext[k],
                    cu_ex_str(em, e, DT_INT64, true));
        }
    }
    bool narrow = constant && total <= 0x7fffffff;
    const char *tt = narrow ? "int32_t" : "int64_t";
    const char *t = cu_tmp(em, "t");
    StrBuf lim = {0}, names = {0};
    if (constant) sb_printf(&lim, "%lld", (long long)total);
    for (int k = 0; k < n; k++) {
        if (!constant) sb_printf(&lim, "%s%s", k ? " * " : "", ext[k]);
        sb_printf(&names, "%s%s", k ? ", " : "", cu_var(em, loops[k]->u.for_.var));
    }
    cu_line(em, "for (%s %s = tl_tid; %s < %s; %s += %d) {  /* parallel %s: %d threads */", tt, t,
             t, lim.buf, t, em->nthreads, names.buf, em->nthreads);
    sb_free(&lim);
    sb_free(&names);
    int mark = em->live.len;
    em->indent++;
    for (int k = 0; k < n; k++) { /* var k = min + (t / (ext[k+1] * ...)) % ext[k] */
        const Var *v = loops[k]->u.for_.var;
        StrBuf idx = {0};
        sb_puts(&idx, t);
        if (k + 1 < n) {
            sb_puts(&idx, " / ");
            if (n - k - 1 > 1 && !constant) sb_puts(&idx, "(");
            for (int l = k + 1; l < n; l++)
                sb_printf(&idx, "%s%s", l > k + 1 ? " * " : "", ext[l]);
            if (n - k - 1 > 1 && !constant) sb_puts(&idx, ")");
        }
        if (k > 0) {
            char *q = arena_printf(a, "(%s) %% %s", idx.buf, ext[k]);
            sb_free(&idx);
            sb_puts(&idx, k + 1 < n ? q : arena_printf(a, "%s %% %s", t, ext[k]));
        }
        const char *ty = cu_value(v->dtype);
        if (!strcmp(mins[k], "0"))
            cu_line(em, "%s %s = (%s)(%s);", ty, cu_var(em, v), ty, idx.buf);
        else cu_line(em, "%s %s = (%s)(%s + %s);", ty, cu_var(em, v), ty, mins[k], idx.buf);
        sb_free(&idx);
        cu_live_add(em, v);
    }
    em->dist++;
    emit_stmt(em, loops[n - 1]->u.for_.body);
    em->dist--;
    em->indent--;
    em->live.len = mark;
    cu_line(em, "}");
}

static void emit_for(CuEmit *em, const Stmt *s) {
    if (s->u.for_.kind == LOOP_PARALLEL && !em->dist) emit_distributed(em, s);
    else emit_serial_for(em, s);
}

static void emit_if(CuEmit *em, const Stmt *s, bool chained) {
    StrBuf *o = em->out;
    if (!chained) sb_indent(o, em->indent);
    sb_puts(o, "if (");
    cu_ex_top(em, o, s->u.if_.cond, DT_BOOL);
    sb_puts(o, ") {\n");
    int mark = em->live.len;
    em->indent++;
    emit_stmt(em, s->u.if_.then);
    em->indent--;
    em->live.len = mark;
    const Stmt *e = s->u.if_.orelse;
    if (!e) {
        cu_line(em, "}");
    } else if (e->kind == STMT_IF) {
        sb_indent(o, em->indent);
        sb_puts(o, "} else ");
        emit_if(em, e, true);
    } else {
        cu_line(em, "} else {");
        emit_block_body(em, e);
    }
}

/* ---- stores, lets, allocations -------------------------------------------------------------- */
/* b[idx] = value, with the C target's conversions: a same-dtype load is copied bit for
 * bit; a float32 value cast to a narrow dtype is encoded directly. */
static void emit_store(CuEmit *em, const Buffer *b, Expr *const *idx, const Expr *value) {
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_puts(o, one_thread(em, simt_block_wide(b)));
    cu_ex_elem(em, o, b, idx);
    sb_puts(o, " = ");
    if (value->kind == EXPR_LOAD && value->dtype == b->dtype &&
        value->u.load.buf->dtype == b->dtype) {
        cu_ex_elem(em, o, value->u.load.buf, value->u.load.idx);
        sb_puts(o, ";\n");
        return;
    }
    bool nf = cu_narrow_float(b->dtype);
    if (nf && value->kind == EXPR_CAST && value->dtype == b->dtype &&
        (value->u.cast.value->dtype == DT_FLOAT32 || cu_narrow_float(value->u.cast.value->dtype)))
        value = value->u.cast.value; /* as float32: encoded below */
    if (nf) sb_printf(o, "tl_f32_to_%s(", cu_nf(b->dtype));
    if (b->dtype == DT_BOOL) {
        sb_puts(o, "(uint8_t)");
        cu_ex_as(em, o, value, b->dtype);
    } else {
        bool as_f32 = value->dtype == DT_FLOAT32 || cu_narrow_float(value->dtype);
        cu_ex_top(em, o, value, nf && as_f32 ? DT_FLOAT32 : b->dtype);
    }
    sb_puts(o, nf ? ");\n" : ";\n");
}

static void emit_let(CuEmit *em, const Stmt *s) {
    const Var *v = s->u.let.var;
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    if (!cu_live_has(em, v)) sb_printf(o, "%s ", cu_value(v->dtype));
    sb_printf(o, "%s = ", cu_var(em, v));
    cu_ex_top(em, o, s->u.let.value, v->dtype);
    sb_puts(o, ";\n");
    if (!cu_live_has(em, v)) cu_live_add(em, v);
}

static void emit_alloc(CuEmit *em, const Stmt *s) {
    Buffer *b = s->u.alloc.buf;
    if (b->scope == SCOPE_GLOBAL)
        ctx_fail(em->ctx, s->loc, "T.alloc_global must be called outside 'with T.Kernel'");
    if (b->scope == SCOPE_BARRIER)
        ctx_fail(em->ctx, s->loc, "T.alloc_barrier: mbarriers are not supported by the CUDA "
                 "target yet");
    if (!b->init) return; /* storage is set up at the top of the kernel */
    Expr *zero[8] = {0};
    TL_ASSERT(b->ndim <= 8);
    for (int d = 0; d < b->ndim; d++) zero[d] = ir_int(em->ctx, 0, DT_INT32, s->loc);
    emit_store(em, b, zero, b->init);
}

/* ---- atomics, prints, asserts ------------------------------------------------------------ */
static void emit_atomic(CuEmit *em, const Stmt *s) {
    const Region *d = &s->u.atomic.dst;
    if (s->u.atomic.src.buf || !s->u.atomic.value)
        tl_internal_error(__FILE__, __LINE__, "tile atomic reached the CUDA emitter");
    Buffer *b = d->buf;
    DType t = b->dtype;
    AtomicOp op = s->u.atomic.op;
    if (!simt_block_wide(b)) { /* a thread's own copy: a plain update */
        BinOp bop = op == ATOMIC_ADD ? OP_ADD : op == ATOMIC_MAX ? OP_MAX : OP_MIN;
        Expr *old = ir_load(em->ctx, b, d->start, s->loc);
        Expr *nv = ir_cast(em->ctx, t, ir_bin(em->ctx, bop, old, s->u.atomic.value, s->loc),
                           s->loc);
        emit_store(em, b, d->start, nv);
        return;
    }
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_printf(o, "%stl_atomic_%s_%s(&", one_thread(em, true), atomic_op_name(op), cu_short(t));
    cu_ex_elem(em, o, b, d->start);
    sb_puts(o, ", ");
    cu_ex_top(em, o, s->u.atomic.value, t == DT_BOOL ? DT_UINT8 : t);
    sb_puts(o, ");\n");
}

static void block_idx_args(CuEmit *em, StrBuf *o) {
    for (int d = 0; d < 3; d++) {
        const Stmt *k = em->kernel;
        if (k && d < k->u.kernel.ngrid && k->u.kernel.block[d])
            sb_printf(o, ", (long long)%s", cu_var(em, k->u.kernel.block[d]));
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

/* T.print(value): printf from thread 0 in serial code, from the owning thread inside a
 * distributed loop; the format of the C target. */
static void emit_print_value(CuEmit *em, const Stmt *s) {
    const Expr *v = s->u.print.value;
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_printf(o, "%sprintf(\"%%s: BlockIdx=(%%lld, %%lld, %%lld) dtype=%s value=%s\\n\", ",
              one_thread(em, true), dtype_name(v->dtype), print_fmt(v->dtype));
    cu_string(o, s->u.print.msg ? s->u.print.msg : "");
    block_idx_args(em, o);
    sb_printf(o, ", %s", print_cast(v->dtype));
    cu_ex(em, o, v);
    sb_puts(o, ");\n");
}

static void emit_print_region(CuEmit *em, const Stmt *s) {
    const Region *r = &s->u.print.region;
    Buffer *b = r->buf;
    Expr **idx = NEW_ARRAY(&em->ctx->arena, Expr *, r->ndim > 0 ? r->ndim : 1);
    int depth = 0;
    if (!em->dist) {
        cu_line(em, "if (tl_tid == 0) {");
        em->indent++;
    }
    for (int d = 0; d < r->ndim; d++, depth++) {
        Var *iv = ir_var(em->ctx, "i", DT_INT64);
        const char *nm = cu_tmp(em, "i");
        cu_name_bind(&em->names, iv, nm);
        cu_line(em, "for (int64_t %s = 0; %s < %s; ++%s) {", nm, nm,
                cu_ex_str(em, r->extent[d], DT_INT64, false), nm);
        em->indent++;
        Expr *start = ir_cast(em->ctx, DT_INT64, r->start[d], s->loc);
        idx[d] = ir_bin(em->ctx, OP_ADD, start, ir_varref(em->ctx, iv, s->loc), s->loc);
    }
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_printf(o, "printf(\"%%s: BlockIdx=(%%lld, %%lld, %%lld) %%s[");
    for (int d = 0; d < r->ndim; d++) sb_puts(o, d ? ", %lld" : "%lld");
    sb_printf(o, "] dtype=%s value=%s\\n\", ", dtype_name(b->dtype), print_fmt(b->dtype));
    cu_string(o, s->u.print.msg ? s->u.print.msg : "");
    block_idx_args(em, o);
    sb_puts(o, ", ");
    cu_string(o, b->name);
    for (int d = 0; d < r->ndim; d++) {
        sb_puts(o, ", (long long)");
        cu_ex(em, o, idx[d]);
    }
    sb_printf(o, ", %s", print_cast(b->dtype));
    cu_ex(em, o, ir_load(em->ctx, b, idx, s->loc));
    sb_puts(o, ");\n");
    for (; depth > 0; depth--) {
        em->indent--;
        cu_line(em, "}");
    }
    if (!em->dist) {
        em->indent--;
        cu_line(em, "}");
    }
}

/* T.device_assert: the message (from thread 0 in serial code), then __trap(): the
 * launch fails with an error and the CUDA context cannot run anything more. */
static void emit_assert(CuEmit *em, const Stmt *s) {
    StrBuf *o = em->out;
    sb_indent(o, em->indent);
    sb_puts(o, "if (!");
    cu_ex_as(em, o, s->u.assert_.cond, DT_BOOL);
    sb_puts(o, ") {\n");
    sb_indent(o, em->indent + 1);
    sb_printf(o, "%sprintf(\"%%s: device assert failed: %%s (block (%%lld, %%lld, %%lld))\\n\", ",
              one_thread(em, true));
    cu_string(o, loc_where(em, s->loc));
    sb_puts(o, ", ");
    cu_string(o, s->u.assert_.msg ? s->u.assert_.msg : "T.device_assert");
    block_idx_args(em, o);
    sb_puts(o, ");\n");
    cu_line(em, "    __trap();");
    cu_line(em, "}");
}

/* ---- statements ------------------------------------------------------------------------- */
static bool stmt_emits(const Stmt *s) {
    if (s->kind == STMT_SEQ) return false;
    return s->kind != STMT_ALLOC || s->u.alloc.buf->init;
}

static bool used_var(const CuEmit *em, const Var *v) {
    for (int i = 0; i < em->used.len; i++)
        if (em->used.data[i] == v) return true;
    return false;
}

static void emit_stmt(CuEmit *em, const Stmt *s) {
    if (s->kind == STMT_LET && em->kernel && !used_var(em, s->u.let.var))
        return; /* a value nothing reads (after lowering): no unused variable in the source */
    if (stmt_emits(s)) loc_comment(em, s->loc);
    switch (s->kind) {
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) emit_stmt(em, s->u.seq.data[i]);
        break;
    case STMT_FOR: emit_for(em, s); break;
    case STMT_WHILE:
        cu_line(em, "while (%s) {", cu_ex_str(em, s->u.while_.cond, DT_BOOL, true));
        emit_block_body(em, s->u.while_.body);
        break;
    case STMT_IF: emit_if(em, s, false); break;
    case STMT_BREAK: cu_line(em, "break;"); break;
    case STMT_CONTINUE: cu_line(em, "continue;"); break;
    case STMT_STORE: emit_store(em, s->u.store.buf, s->u.store.idx, s->u.store.value); break;
    case STMT_LET: emit_let(em, s); break;
    case STMT_ALLOC: emit_alloc(em, s); break;
    case STMT_KERNEL: ctx_fail(em->ctx, s->loc, "T.Kernel inside T.Kernel");
    case STMT_ATOMIC: emit_atomic(em, s); break;
    case STMT_PRINT:
        if (s->u.print.region.buf) emit_print_region(em, s);
        else emit_print_value(em, s);
        break;
    case STMT_ASSERT: emit_assert(em, s); break;
    case STMT_SYNC: cu_line(em, "__syncthreads();"); break;
    case STMT_ANNOTATE_LAYOUT:
        cu_line(em, "/* T.annotate_layout(%s): no layouts in this back end yet */",
                s->u.annotate.buf->name);
        break;
    case STMT_SWIZZLE:
        cu_line(em, s == em->swizzle ? "/* T.use_swizzle: applied at kernel entry */"
                                     : "/* T.use_swizzle: ignored (block order only) */");
        break;
    default: tl_internal_error(__FILE__, __LINE__, "tile op reached the CUDA emitter unlowered");
    }
}

/* ---- what a kernel uses ----------------------------------------------------------------- */
typedef Vec(const Var *) VarList;

static bool vars_has(const VarList *vs, const Var *v) {
    for (int i = 0; i < vs->len; i++)
        if (vs->data[i] == v) return true;
    return false;
}

typedef struct VarWalk {
    CuEmit *em;
    VarList *vs;
} VarWalk;

static void vars_expr(VarWalk *w, Expr *e);
static void vars_slot(Expr **slot, void *ud) { vars_expr(ud, *slot); }

static void vars_buf(VarWalk *w, const Buffer *b) {
    for (int d = 0; d < b->ndim; d++) {
        vars_expr(w, b->shape[d]);
        if (b->strides) vars_expr(w, b->strides[d]);
    }
}

static void vars_expr(VarWalk *w, Expr *e) {
    if (!e) return;
    if (e->kind == EXPR_VAR && !vars_has(w->vs, e->u.var))
        VEC_PUSH(&w->em->ctx->arena, *w->vs, e->u.var);
    if (e->kind == EXPR_LOAD) vars_buf(w, e->u.load.buf);
    ir_expr_children(e, vars_slot, w);
}

static void vars_stmt(VarWalk *w, Stmt *s);
static void vars_child(Stmt **slot, void *ud) { vars_stmt(ud, *slot); }

static void vars_stmt(VarWalk *w, Stmt *s) {
    if (s->kind == STMT_STORE) vars_buf(w, s->u.store.buf);
    if (s->kind == STMT_ATOMIC) vars_buf(w, s->u.atomic.dst.buf);
    if (s->kind == STMT_PRINT && s->u.print.region.buf) vars_buf(w, s->u.print.region.buf);
    ir_stmt_exprs(s, vars_slot, w);
    ir_stmt_children(s, vars_child, w);
}

/* ---- host level: lets, T.alloc_global ------------------------------------------------------ */
typedef struct Host {
    Vec(const Stmt *) lets;  /* host-level lets so far, in order */
    Vec(Buffer *) globals;   /* T.alloc_global buffers, in order (CudaPlan.globals) */
} Host;

/* Marks in `need` the host lets (and, through them, the vars) that vs needs. */
static void host_needs(CuEmit *em, const Host *h, VarList *vs, bool *need) {
    VarWalk w = {em, vs};
    for (int i = h->lets.len - 1; i >= 0; i--) {
        const Stmt *l = h->lets.data[i];
        need[i] = vars_has(vs, l->u.let.var);
        if (need[i]) vars_expr(&w, l->u.let.value);
    }
}

/* Grid sizes and T.alloc_global shapes are evaluated by the runtime from the symbols
 * (cuda_eval_int): they may use only symbols, constants and host lets of those. */
static void check_launch_expr(CuEmit *em, const Host *h, Expr *e, Loc loc, const char *what) {
    VarList vs = {0};
    VarWalk w = {em, &vs};
    vars_expr(&w, e);
    bool *need = NEW_ARRAY(&em->ctx->arena, bool, h->lets.len + 1);
    host_needs(em, h, &vs, need);
    for (int i = 0; i < vs.len; i++) {
        const Var *v = vs.data[i];
        bool ok = false;
        for (int k = 0; k < em->f->syms.len && !ok; k++) ok = em->f->syms.data[k] == v;
        for (int k = 0; k < h->lets.len && !ok; k++) ok = h->lets.data[k]->u.let.var == v;
        if (!ok)
            ctx_fail(em->ctx, loc, "%s uses '%s': on the CUDA target it may only depend on "
                     "tensor shapes (T.dynamic sizes) and constants", what, v->name);
    }
}

/* ---- kernels ---------------------------------------------------------------------------- */
/* Appends ", item" (or the first item), breaking the line before it gets long. */
static void list_item(StrBuf *o, bool first, const char *item) {
    const char *nl = o->buf ? strrchr(o->buf, '\n') : NULL;
    const char *start = nl ? nl + 1 : o->buf ? o->buf : "";
    size_t col = o->len - (size_t)(start - (o->buf ? o->buf : start));
    if (!first && col + strlen(item) + 2 > 96) sb_puts(o, ",\n        ");
    else if (!first) sb_puts(o, ", ");
    sb_puts(o, item);
}

/* The parameter list of every kernel (cuda.h): params, syms, T.alloc_global buffers. */
static void kernel_params(CuEmit *em, StrBuf *o, const Host *h) {
    Arena *a = &em->ctx->arena;
    const Func *f = em->f;
    int n = 0;
    for (int i = 0; i < f->params.len; i++, n++) {
        const Param *p = &f->params.data[i];
        if (p->buf)
            list_item(o, !n, arena_printf(a, "%s *%s", cu_storage(p->buf->dtype),
                                          cu_buf(em, p->buf)));
        else
            list_item(o, !n, arena_printf(a, "%s tl_arg%d", dtype_is_float(p->scalar->dtype)
                                                                ? "double" : "int64_t", i));
    }
    for (int i = 0; i < f->syms.len; i++, n++)
        list_item(o, !n, arena_printf(a, "int64_t tl_sym%d", i));
    for (int i = 0; i < h->globals.len; i++, n++)
        list_item(o, !n, arena_printf(a, "%s *%s", cu_storage(h->globals.data[i]->dtype),
                                      cu_buf(em, h->globals.data[i])));
    if (!n) sb_puts(o, "void");
}

static void declare_scalar(CuEmit *em, const Var *v, const char *arg) {
    DType t = v->dtype;
    const char *n = cu_var(em, v), *ty = cu_value(t);
    if (t == DT_BOOL) cu_line(em, "bool %s = %s != 0;", n, arg);
    else if (dtype_is_int(t)) cu_line(em, "%s %s = (%s)%s;", ty, n, ty, arg);
    else if (cu_narrow_float(t)) cu_line(em, "float %s = tl_round64_%s(%s);", n, cu_nf(t), arg);
    else cu_line(em, "%s %s = (%s)%s;", ty, n, ty, arg);
    cu_live_add(em, v);
}

/* Scalars, symbols and host lets the kernel uses, as locals of every thread. */
static void declare_inputs(CuEmit *em, const Host *h, VarList *vs) {
    const Func *f = em->f;
    bool *need = NEW_ARRAY(&em->ctx->arena, bool, h->lets.len + 1);
    host_needs(em, h, vs, need);
    for (int i = 0; i < f->params.len; i++) {
        const Var *v = f->params.data[i].scalar;
        if (v && vars_has(vs, v))
            declare_scalar(em, v, arena_printf(&em->ctx->arena, "tl_arg%d", i));
    }
    for (int i = 0; i < f->syms.len; i++) {
        const Var *v = f->syms.data[i];
        if (vars_has(vs, v) && !cu_live_has(em, v))
            declare_scalar(em, v, arena_printf(&em->ctx->arena, "tl_sym%d", i));
    }
    for (int i = 0; i < h->lets.len; i++)
        if (need[i]) emit_let(em, h->lets.data[i]);
}

static const char *shape_text(CuEmit *em, const Buffer *b) {
    StrBuf sb = {0};
    for (int d = 0; d < b->ndim; d++) {
        sb_puts(&sb, d ? ", " : "");
        cu_ex(em, &sb, b->shape[d]);
    }
    const char *s = arena_printf(&em->ctx->arena, "%s %s[%s]", scope_name(b->scope),
                                 dtype_name(b->dtype), sb.buf ? sb.buf : "");
    sb_free(&sb);
    return s;
}

static void check_slot(CuEmit *em, const CudaSlot *s) {
    Buffer *b = s->buf;
    if (s->elems < 0)
        ctx_fail(em->ctx, b->loc, "the CUDA target needs a constant shape for %s buffer '%s'",
                 scope_name(b->scope), b->name);
}

/* Shared and per-thread storage of the kernel's buffers. */
static void declare_buffers(CuEmit *em, const CudaBuffers *bufs) {
    for (int i = 0; i < bufs->smem.len; i++) {
        const CudaSlot *s = &bufs->smem.data[i];
        const char *st = cu_storage(s->buf->dtype);
        check_slot(em, s);
        cu_line(em, "%s *%s = (%s *)(tl_smem + %lld); /* %s */", st, cu_buf(em, s->buf), st,
                (long long)s->offset, shape_text(em, s->buf));
    }
    for (int i = 0; i < bufs->regs.len; i++) {
        const CudaSlot *s = &bufs->regs.data[i];
        check_slot(em, s);
        cu_line(em, "%s %s[%lld] = {}; /* %s */", cu_storage(s->buf->dtype), cu_buf(em, s->buf),
                (long long)(s->elems > 0 ? s->elems : 1), shape_text(em, s->buf));
    }
}

static const Stmt *find_swizzle(const Stmt *k) {
    const Stmt *b = k->u.kernel.body;
    for (int i = 0; b->kind == STMT_SEQ && i < b->u.seq.len; i++) {
        const Stmt *s = b->u.seq.data[i];
        if (s->kind == STMT_SWIZZLE && s->u.swizzle.enable && s->u.swizzle.panel) return s;
    }
    return NULL;
}

/* tl_tid, the block variables (remapped by T.use_swizzle), shared memory. */
static void kernel_prologue(CuEmit *em, const Stmt *k, const VarList *vs, int64_t smem,
                            bool tid) {
    const int *th = k->u.kernel.threads;
    if (smem) cu_line(em, "extern __shared__ __align__(16) unsigned char tl_smem[];");
    if (!tid) {
    } else if (th[1] * th[2] > 1)
        cu_line(em, "const int tl_tid = (int)(threadIdx.x + %d * (threadIdx.y + %d * "
                "threadIdx.z));", th[0], th[1]);
    else cu_line(em, "const int tl_tid = (int)threadIdx.x;");
    static const char *const dims = "xyz";
    const Stmt *sw = em->swizzle;
    int64_t panel = 0;
    bool swz = sw && ir_is_const_int(sw->u.swizzle.panel, &panel);
    for (int d = 0; d < k->u.kernel.ngrid; d++) {
        const Var *v = k->u.kernel.block[d];
        if (!v || (!vars_has(vs, v) && !(swz && d < 2))) continue;
        cu_line(em, "%s %s = (%s)blockIdx.%c;", cu_value(v->dtype), cu_var(em, v),
                cu_value(v->dtype), dims[d]);
        cu_live_add(em, v);
    }
    if (swz)
        cu_line(em, "tl_swizzle_2d(%lld, &%s, &%s); /* T.use_swizzle(%lld) */", (long long)panel,
                cu_var(em, k->u.kernel.block[0]), cu_var(em, k->u.kernel.block[1]),
                (long long)panel);
}

/* The T.use_swizzle that kernel_prologue applies (a constant panel on a 2-D or 3-D grid),
 * or NULL. Other swizzles only change the order of blocks: ignoring them is correct. */
static const Stmt *applied_swizzle(const Stmt *k) {
    const Stmt *sw = find_swizzle(k);
    if (!sw || k->u.kernel.ngrid < 2 || !ir_is_const_int(sw->u.swizzle.panel, NULL)) return NULL;
    const Var *x = k->u.kernel.block[0], *y = k->u.kernel.block[1];
    return x && y && x->dtype == DT_INT32 && y->dtype == DT_INT32 ? sw : NULL;
}

static void emit_kernel(CuEmit *em, const Stmt *k, int id, const Host *h) {
    const int *th = k->u.kernel.threads;
    int64_t nthreads = (int64_t)th[0] * th[1] * th[2];
    if (nthreads < 1 || nthreads > MAX_THREADS)
        ctx_fail(em->ctx, k->loc, "T.Kernel: %lld threads per block; CUDA allows 1 to %d",
                 (long long)nthreads, MAX_THREADS);
    for (int d = 0; d < k->u.kernel.ngrid; d++)
        check_launch_expr(em, h, k->u.kernel.grid[d], k->loc, "the T.Kernel grid");
    VarList vs = {0};
    VarWalk w = {em, &vs};
    vars_stmt(&w, k->u.kernel.body);
    em->used.data = vs.data, em->used.len = vs.len, em->used.cap = vs.cap;
    CudaBuffers bufs;
    cuda_kernel_buffers(&em->ctx->arena, k, &bufs);
    StrBuf *o = em->out;
    em->kernel = k, em->nthreads = (int)nthreads, em->dist = 0, em->live.len = 0;
    em->last_src = NULL, em->swizzle = applied_swizzle(k);
    /* the body first, into its own buffer: the prologue declares only what it uses */
    em->out = &em->body, em->indent = 1;
    emit_stmt(em, k->u.kernel.body);
    em->out = o;
    sb_printf(o, "/* T.Kernel %d (%s): one CUDA block per block, %lld threads, %lld bytes of "
              "shared memory. */\n", id, loc_where(em, k->loc), (long long)nthreads,
              (long long)bufs.smem_bytes);
    sb_printf(o, "extern \"C\" __global__ void __launch_bounds__(%lld) tilec_kernel_%d(",
              (long long)nthreads, id);
    kernel_params(em, o, h);
    sb_puts(o, ")\n{\n");
    bool tid = bufs.smem_bytes || (em->body.buf && strstr(em->body.buf, "tl_tid"));
    kernel_prologue(em, k, &vs, bufs.smem_bytes, tid);
    declare_inputs(em, h, &vs);
    declare_buffers(em, &bufs);
    if (bufs.smem_bytes) {
        cu_line(em, "tl_smem_zero(tl_smem, %lld, tl_tid, %lld);", (long long)bufs.smem_bytes,
                (long long)nthreads);
        cu_line(em, "__syncthreads();");
    }
    if (em->body.buf) sb_puts(o, em->body.buf);
    sb_free(&em->body);
    sb_puts(o, "}\n\n");
    em->indent = 0, em->kernel = NULL;
}

static void host_let(CuEmit *em, Host *h, const Stmt *s) {
    if (cu_expr_has_load(s->u.let.value))
        ctx_fail(em->ctx, s->loc, "outside T.Kernel, a value cannot read a tensor on the CUDA "
                 "target (the tensor is in GPU memory); move this into the kernel");
    VEC_PUSH(&em->ctx->arena, h->lets, s);
}

/* ---- the file ---------------------------------------------------------------------------- */
static void emit_kernels(CuEmit *em) {
    const Func *f = em->f;
    Host h = {0};
    const Stmt *body = f->body;
    int n = body->kind == STMT_SEQ ? body->u.seq.len : 1;
    for (int i = 0; i < n; i++) { /* the globals first: every kernel takes them all */
        const Stmt *s = body->kind == STMT_SEQ ? body->u.seq.data[i] : body;
        if (s->kind == STMT_ALLOC && s->u.alloc.buf->scope == SCOPE_GLOBAL)
            VEC_PUSH(&em->ctx->arena, h.globals, s->u.alloc.buf);
    }
    int nk = 0;
    for (int i = 0; i < n; i++) {
        const Stmt *s = body->kind == STMT_SEQ ? body->u.seq.data[i] : body;
        if (s->kind == STMT_LET) host_let(em, &h, s);
        else if (s->kind == STMT_KERNEL) emit_kernel(em, s, nk++, &h);
        else if (s->kind == STMT_ALLOC && s->u.alloc.buf->scope == SCOPE_GLOBAL) {
            Buffer *b = s->u.alloc.buf;
            for (int d = 0; d < b->ndim; d++)
                check_launch_expr(em, &h, b->shape[d], s->loc, "the shape of T.alloc_global");
        } else {
            ctx_fail(em->ctx, s->loc, "this statement must be inside a 'with T.Kernel(...)' "
                     "block");
        }
    }
}

static void reserve_params(CuEmit *em) {
    /* Parameters take the user's names first, so they stay unchanged when possible. */
    for (int i = 0; i < em->f->params.len; i++) {
        const Param *p = &em->f->params.data[i];
        if (p->buf) cu_buf(em, p->buf);
        else if (p->scalar) cu_var(em, p->scalar);
    }
    for (int i = 0; i < em->f->syms.len; i++) cu_var(em, em->f->syms.data[i]);
}

char *cuda_emit(Ctx *ctx, const Func *f) {
    CuEmit *em = NEW(&ctx->arena, CuEmit);
    StrBuf kbuf = {0};
    em->ctx = ctx, em->f = f, em->names.a = &ctx->arena, em->out = &kbuf;
    jmp_buf jb, *saved = ctx->on_error;
    if (CTX_TRY(ctx, &jb)) { /* free the heap buffers if a user error unwinds through here */
        sb_free(&kbuf);
        sb_free(&em->body);
        ctx->on_error = saved;
        longjmp(*saved, 1);
    }
    reserve_params(em);
    if (f->body) emit_kernels(em);
    ctx->on_error = saved;
    StrBuf all = {0};
    sb_printf(&all, "// Generated by tilec (target cuda) from %s: prim_func %s.\n"
                    "// Launch ABI: src/targets/cuda/cuda.h. NVRTC options: --fmad=false "
                    "(the C target's arithmetic), sm_80 or newer.\n",
              f->loc.src && f->loc.src->name ? f->loc.src->name : "<source>",
              f->name ? f->name : "main");
    sb_puts(&all, embedded_tl_cuda_h);
    sb_puts(&all, "\n// ---- kernels ----\n\n");
    if (kbuf.buf) sb_puts(&all, kbuf.buf);
    char *res = arena_strdup(&ctx->arena, all.buf);
    sb_free(&all);
    sb_free(&kbuf);
    return res;
}
