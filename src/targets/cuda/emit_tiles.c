/* emit_tiles.c - the layout-driven parts of the CUDA emitter: T.Parallel nests mapped by
 * a register layout, register-fragment and swizzled-shared element references, and the
 * kept tile ops (tensor-core T.gemm, register T.reduce). Decisions come from
 * pass_infer_layouts (src/targets/cuda/passes/infer_layouts.c); the device side is
 * runtime/cuda/tl_cuda.h (tl_gemm_ss, tl_gemm_rs, tl_swizzle).
 *
 * A layout nest is printed as
 *     for (int tl_l = 0; tl_l < nlocal; ++tl_l) {   // unrolled
 *         const int i = <digits of dimension 0 from tl_tid and tl_l>; ...
 *         body
 *     }
 * so that, once unrolled, every register index is a constant and the fragments stay in
 * registers. A register fragment F indexed by the nest variables is F[<its local digits,
 * read from tl_l>] (frag_local_map). */
#include "cuda_emit.h"
#include "ir/ir_walk.h"

#include <math.h>
#include <string.h>

static int64_t dim_of(const Buffer *b, int d) {
    int64_t c = 0;
    ir_is_const_int(b->shape[d], &c);
    return c;
}

/* A global buffer read or written in vectors of `bytes`: the launch checks its alignment
 * (Buffer.align), so that a misaligned view is an argument error, not a fault. */
static void need_alignment(Buffer *b, int bytes) {
    if (b->base) b = b->base; /* a view: its base's pointer is what the launch checks */
    if (b->scope == SCOPE_GLOBAL && b->align < bytes) b->align = bytes;
}

/* ---- digits ------------------------------------------------------------------------------- */
/* "((src / step) % extent) * stride", without the parts that do nothing; top is the
 * range of src (so "% extent" goes when step * extent covers it). */
static void digit_term(StrBuf *o, const FragDigit *d, const char *src, int64_t top, int64_t mult) {
    bool div = d->step != 1, mod = d->step * d->extent < top;
    sb_puts(o, div && mod ? "(" : "");
    sb_puts(o, src);
    if (div) sb_printf(o, " / %lld", (long long)d->step);
    if (div && mod) sb_puts(o, ")");
    if (mod) sb_printf(o, " %% %lld", (long long)d->extent);
    if (mult != 1) sb_printf(o, " * %lld", (long long)mult);
}

static void sum_term(StrBuf *o, bool *first) {
    if (!*first) sb_puts(o, " + ");
    *first = false;
}

/* The index along dimension dim of f for thread `tid` and local index `l`. */
static const char *dim_index_at(CfEmit *em, const Frag *f, int dim, const char *tid,
                                const char *l) {
    StrBuf o = {0};
    bool first = true;
    for (int i = 0; i < f->ndig; i++) {
        const FragDigit *d = &f->dig[i];
        if (d->dim != dim) continue;
        sum_term(&o, &first);
        sb_puts(&o, "(");
        digit_term(&o, d, d->thread ? tid : l, d->thread ? f->nthreads : f->nlocal, d->stride);
        sb_puts(&o, ")");
    }
    const char *r = arena_strdup(&em->ctx->arena, first ? "0" : o.buf);
    sb_free(&o);
    return r;
}

static const char *dim_index(CfEmit *em, const Frag *f, int dim, const char *l) {
    return dim_index_at(em, f, dim, "tl_tid", l);
}

const char *cu_primary_replica(CfEmit *em) {
    const CuLoop *lp = cu_of(em)->loop;
    if (!lp || !frag_replicated(lp->lay)) return NULL;
    StrBuf o = {0};
    bool first = true;
    sb_puts(&o, "tl_tid == ");
    for (int i = 0; i < lp->lay->ndig; i++) {
        const FragDigit *d = &lp->lay->dig[i];
        if (!d->thread) continue;
        sum_term(&o, &first);
        sb_puts(&o, "(");
        digit_term(&o, d, "tl_tid", lp->lay->nthreads, d->step);
        sb_puts(&o, ")");
    }
    if (first) sb_puts(&o, "0");
    const char *r = arena_strdup(&em->ctx->arena, o.buf);
    sb_free(&o);
    return r;
}

/* ---- layout nests ------------------------------------------------------------------------ */
typedef struct Uses {
    const Var *v;
    bool found;
    const CuLoop *lp; /* its vector accesses are printed without their indices; or NULL */
} Uses;

/* Whether an element reference is printed without its index expressions: register
 * fragments (by tl_l) and vector accesses (by tl_e). */
static bool index_free(const Uses *u, const Buffer *b, Expr *const *idx) {
    for (int i = 0; u->lp && i < u->lp->nvec; i++)
        if (u->lp->vec[i].idx == idx) return true;
    return b->layout != NULL;
}

static void uses_expr(Expr **slot, void *ud) {
    Uses *u = ud;
    const Expr *e = *slot;
    if (e->kind == EXPR_VAR && e->u.var == u->v) u->found = true;
    if (e->kind == EXPR_LOAD && index_free(u, e->u.load.buf, e->u.load.idx)) return;
    ir_expr_children((Expr *)e, uses_expr, ud);
}

static void uses_stmt(Stmt **slot, void *ud) {
    const Stmt *s = *slot;
    if (s->kind == STMT_STORE && index_free(ud, s->u.store.buf, s->u.store.idx)) {
        uses_expr(&((Stmt *)s)->u.store.value, ud);
        return;
    }
    ir_stmt_exprs((Stmt *)s, uses_expr, ud);
    ir_stmt_children((Stmt *)s, uses_stmt, ud);
}

/* Whether the printed body reads v (register-fragment and lp's vector references do not;
 * lp may be NULL). */
static bool stmt_uses_var(Stmt *body, const Var *v, const CuLoop *lp) {
    Uses u = {v, false, lp};
    uses_stmt(&body, &u);
    return u.found;
}

/* ---- vectors ------------------------------------------------------------------------------ */
/* The vector digit of a layout: local, step 1, stride 1, with every other digit of its
 * dimension at a stride that is a multiple of its extent (so each run of extent
 * elements starts aligned). -1 if none. */
static int vector_digit(const Frag *f) {
    for (int i = 0; i < f->ndig; i++) {
        const FragDigit *d = &f->dig[i];
        if (d->thread || d->step != 1 || d->stride != 1 || d->extent < 2) continue;
        for (int j = 0; j < f->ndig; j++)
            if (j != i && f->dig[j].dim == d->dim && f->dig[j].stride % d->extent) return -1;
        return i;
    }
    return -1;
}

static bool uses(const Expr *e, const Var *v) {
    Uses u = {v, false, NULL};
    Expr *x = (Expr *)e;
    uses_expr(&x, &u);
    return u.found;
}

/* Whether b[idx] is one vector of V elements per run of the vector variable vl: global or
 * shared, in 4- to 64-byte runs, and cuda_run_vector (contiguous, aligned, the last index
 * stepping with vl, the others uniform over the run). */
static bool vector_access(const Buffer *b, Expr *const *idx, const Var *vl, int64_t V) {
    int64_t bytes = V * dtype_bytes(b->dtype);
    return !b->layout && b->dtype != DT_BOOL &&
           (b->scope == SCOPE_GLOBAL || b->scope == SCOPE_SHARED) &&
           (bytes == 4 || bytes == 8 || bytes == 16 || bytes == 32 || bytes == 64) &&
           cuda_run_vector(b, idx, vl, V);
}

/* The type of one access of a run of `bytes` (16-byte pieces for longer runs). */
static const char *vector_type(int64_t bytes) {
    return bytes >= 16 ? "uint4" : bytes == 8 ? "uint2" : "unsigned";
}

typedef struct VecScan {
    CfEmit *em;
    CuLoop *lp;
    const Var *vl;
    int64_t V;
    Vec(const Buffer *) stored; /* buffers the body writes, when it is more than one store */
} VecScan;

/* Records in w->stored the buffers s writes. */
static void scan_stores(Stmt **slot, void *ud) {
    VecScan *w = ud;
    const Stmt *s = *slot;
    if (s->kind == STMT_STORE) VEC_PUSH(&w->em->ctx->arena, w->stored, s->u.store.buf);
    if (s->kind == STMT_ATOMIC) VEC_PUSH(&w->em->ctx->arena, w->stored, s->u.atomic.dst.buf);
    for (int i = 0; s->kind == STMT_EXTERN && i < s->u.extern_.nargs; i++)
        if (!s->u.extern_.args[i].value && (s->u.extern_.args[i].rw & 2))
            VEC_PUSH(&w->em->ctx->arena, w->stored, s->u.extern_.args[i].buf);
    ir_stmt_children((Stmt *)s, scan_stores, ud);
}

/* guard: the condition under which the access is made (uniform over a run), or NULL. */
static void add_vec(VecScan *w, Buffer *b, Expr *const *idx, const char *base, Expr *guard) {
    CuLoop *lp = w->lp;
    for (int i = 0; i < lp->nvec; i++)
        if (lp->vec[i].idx == idx) return;
    for (int i = 0; i < w->stored.len; i++) /* a load hoisted above an earlier store */
        if (w->stored.data[i] == b) return;
    if (lp->nvec == CU_MAX_VEC || !vector_access(b, idx, w->vl, w->V)) return;
    lp->vec[lp->nvec++] = (CuVecAccess){b, idx, cf_tmp(w->em, base), cf_storage(b->dtype), guard};
}

static void scan_guarded(VecScan *w, const Expr *e, Expr *guard);

/* The loads every iteration makes (not under &&, || or a branch), and those under a
 * select whose condition has one value over each run (made as that condition says). */
static void scan_loads(VecScan *w, const Expr *e) { scan_guarded(w, e, NULL); }

static void scan_guarded(VecScan *w, const Expr *e, Expr *guard) {
    if (e->kind == EXPR_SELECT) {
        Expr *c = e->u.select.cond;
        scan_guarded(w, c, guard);
        if (!cuda_run_uniform(c, w->vl, w->V)) return;
        Ctx *ctx = w->em->ctx;
        Expr *no = ir_un(ctx, OP_NOT, c, c->loc);
        scan_guarded(w, e->u.select.then, guard ? ir_bin(ctx, OP_AND, guard, c, c->loc) : c);
        scan_guarded(w, e->u.select.orelse, guard ? ir_bin(ctx, OP_AND, guard, no, c->loc) : no);
        return;
    }
    if (e->kind == EXPR_BIN && (e->u.bin.op == OP_AND || e->u.bin.op == OP_OR)) {
        scan_guarded(w, e->u.bin.a, guard);
        return;
    }
    if (e->kind == EXPR_LOAD) add_vec(w, e->u.load.buf, e->u.load.idx, "vld", guard);
    for (int i = 0; e->kind == EXPR_LOAD && i < e->u.load.buf->ndim; i++)
        scan_guarded(w, e->u.load.idx[i], guard);
    if (e->kind == EXPR_BIN) scan_guarded(w, e->u.bin.a, guard), scan_guarded(w, e->u.bin.b, guard);
    if (e->kind == EXPR_UN) scan_guarded(w, e->u.un.a, guard);
    if (e->kind == EXPR_CAST) scan_guarded(w, e->u.cast.value, guard);
    for (int i = 0; e->kind == EXPR_CALL && i < intrinsic_nargs(e->u.call.fn); i++)
        scan_guarded(w, e->u.call.args[i], guard);
}

/* Vector loads of the body's unconditional stores and lets; the store itself when it is
 * the whole body. Returns the vector store's index in lp->vec, or -1. */
static int scan_body(VecScan *w, const Stmt *body) {
    body = ir_only_stmt((Stmt *)body);
    if (body->kind != STMT_STORE) { /* the vector loads go before all of the body */
        Stmt *b = (Stmt *)body;
        scan_stores(&b, w);
    }
    int n = body->kind == STMT_SEQ ? body->u.seq.len : 1;
    for (int i = 0; i < n; i++) {
        const Stmt *s = body->kind == STMT_SEQ ? body->u.seq.data[i] : body;
        if (s->kind == STMT_LET) scan_loads(w, s->u.let.value);
        if (s->kind != STMT_STORE) continue;
        scan_loads(w, s->u.store.value);
        for (int d = 0; d < s->u.store.buf->ndim; d++) scan_loads(w, s->u.store.idx[d]);
    }
    if (body->kind != STMT_STORE) return -1;
    int before = w->lp->nvec;
    add_vec(w, body->u.store.buf, body->u.store.idx, "vst", NULL);
    return w->lp->nvec > before ? before : -1;
}

/* The element reference of a vector access at element `plus` of the run: the nest
 * variables replaced by their values at element 0 (base[k]), plus added to the last
 * index (each 16-byte piece is addressed on its own: a swizzle moves pieces apart). */
static const char *vector_elem(CfEmit *em, const CuLoop *lp, const Buffer *b, Expr *const *idx,
                               Var *const *base, int64_t plus) {
    Expr **at = NEW_ARRAY(&em->ctx->arena, Expr *, b->ndim);
    for (int d = 0; d < b->ndim; d++) {
        at[d] = idx[d];
        for (int k = 0; k < lp->n; k++)
            at[d] = ir_subst(em->ctx, at[d], lp->vars[k], ir_varref(em->ctx, base[k], at[d]->loc));
    }
    Expr *last = at[b->ndim - 1];
    if (plus)
        at[b->ndim - 1] = ir_bin(em->ctx, OP_ADD, last,
                                 ir_int(em->ctx, plus, last->dtype, last->loc), last->loc);
    StrBuf o = {0};
    cf_ex_elem(em, &o, b, at);
    const char *r = arena_strdup(&em->ctx->arena, o.buf);
    sb_free(&o);
    return r;
}

/* Whether a cast to `to` of a value of `from` keeps every value exactly (a wider float,
 * or a wider integer). */
static bool exact_cast(DType from, DType to) {
    if (dtype_is_float(from))
        return dtype_is_float(to) && dtype_bits(to) >= 32 && dtype_bits(from) <= 32;
    return dtype_is_int(from) && dtype_is_int(to) && dtype_bits(to) > dtype_bits(from);
}

static bool is_zero(const Expr *e) {
    return (e->kind == EXPR_INT && e->u.i == 0) ||
           (e->kind == EXPR_FLOAT && e->u.f == 0 && !signbit(e->u.f));
}

/* The vector access whose elements a store of value e (of dtype dt) writes unchanged: e is
 * that load, through exact casts and back to dt, and selects whose other branch is zero
 * (the vector load's guard gives those zeros). -1 if none. */
static int copied_access(const CuLoop *lp, const Expr *e, DType dt) {
    for (;;) { /* every value on the way is a value of dt, held exactly */
        if (e->kind == EXPR_CAST && (e->dtype == dt || exact_cast(dt, e->dtype)))
            e = e->u.cast.value;
        else if (e->kind == EXPR_SELECT && is_zero(e->u.select.orelse)) e = e->u.select.then;
        else break;
    }
    if (e->kind != EXPR_LOAD || e->u.load.buf->dtype != dt) return -1;
    for (int i = 0; i < lp->nvec; i++)
        if (lp->vec[i].idx == e->u.load.idx) return i;
    return -1;
}

/* A vector load's guard at the run's first element (the same over the run), in parens. */
static const char *guard_at(CfEmit *em, const CuLoop *lp, const Expr *guard, Var *const *base) {
    Expr *g = (Expr *)guard;
    for (int k = 0; k < lp->n; k++)
        g = ir_subst(em->ctx, g, lp->vars[k], ir_varref(em->ctx, base[k], g->loc));
    return arena_printf(&em->ctx->arena, "(%s)", cf_ex_str(em, g, DT_BOOL, true));
}

static void register_ref_expr(Expr **slot, void *ud) {
    const Expr *e = *slot;
    if (e->kind == EXPR_LOAD && e->u.load.buf->layout) *(bool *)ud = true;
    ir_expr_children((Expr *)e, register_ref_expr, ud);
}

static void register_ref_stmt(Stmt **slot, void *ud) {
    const Stmt *s = *slot;
    if (s->kind == STMT_STORE && s->u.store.buf->layout) *(bool *)ud = true;
    ir_stmt_exprs((Stmt *)s, register_ref_expr, ud);
    ir_stmt_children((Stmt *)s, register_ref_stmt, ud);
}

/* Whether the printed body reads the element's local index: a register fragment or a
 * nest variable (not only vector elements). */
static bool reads_local_index(const CuLoop *lp, const Stmt *body) {
    bool any = false;
    Stmt *b = (Stmt *)body;
    register_ref_stmt(&b, &any);
    for (int k = 0; k < lp->n && !any; k++) any = stmt_uses_var(b, lp->vars[k], lp);
    return any;
}

/* ---- layout nests ------------------------------------------------------------------------ */
/* The nest variables that `body` uses, from local index l. */
static void declare_nest_vars(CfEmit *em, const CuLoop *lp, const Stmt *body, const char *l) {
    for (int k = 0; k < lp->n; k++) {
        const char *ty = cf_value(lp->vars[k]->dtype);
        if (!stmt_uses_var((Stmt *)body, lp->vars[k], lp)) continue;
        cf_line(em, "const %s %s = (%s)(%s);", ty, cf_var(em, lp->vars[k]), ty,
                dim_index(em, lp->lay, k, l));
        cf_live_add(em, lp->vars[k]);
    }
}

static void emit_body(CfEmit *em, CuLoop *lp, const Stmt *body) {
    CuEmit *cu = cu_of(em);
    const CuLoop *saved = cu->loop;
    cu->loop = lp;
    cu->dist++;
    cf_stmt(em, body);
    cu->dist--;
    cu->loop = saved;
}

/* ldmatrix, or stmatrix (sm_90+), for a nest whose only vector access is a load of 16-bit
 * elements from shared memory (ldmatrix), or its whole body, a store of them to shared
 * memory (stmatrix), laid out the way these instructions give and take 8x8 matrices:
 * lane l holds row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 (the vector digit of 2 and
 * thread digits of 4 columns and 8 rows on tid bits 0-4), other column digits at
 * multiples of 8 (each matrix row is 16 aligned bytes; the swizzles move 16-byte pieces
 * whole). Local indices l0 + 2 m (m < 4, or 2) are then matrix m of one instruction, in
 * place of a 4-byte access per thread per pair. Returns the matrices per instruction,
 * or 0. */
static int matrix_count(CfEmit *em, const CuLoop *lp, int vd, bool store) {
    const Frag *f = lp->lay;
    const CuVecAccess *v = &lp->vec[0];
    const Expr *off = NULL;
    int64_t row = 0;
    int cd = f->dig[vd].dim, rd = -1;
    bool cols = false;
    if ((store && !cu_of(em)->stmatrix) || lp->nvec != 1 || v->buf->scope != SCOPE_SHARED ||
        dtype_bytes(v->buf->dtype) != 2 || f->dig[vd].extent != 2 ||
        !ir_is_const_int(v->buf->shape[v->buf->ndim - 1], &row) || row % 8 ||
        ir_var_plus_offset(v->idx[v->buf->ndim - 1], (Var *const *)&lp->vars[cd], 1, &off) ||
        (off && !ir_multiple_of(off, 8)))
        return 0;
    for (int i = 0; i < f->ndig; i++) {
        const FragDigit *d = &f->dig[i];
        if (i == vd) continue;
        if (d->thread && d->step == 1 && d->extent == 4 && d->dim == cd && d->stride == 2)
            cols = true;
        else if (d->thread && d->step == 4 && d->extent == 8 && d->dim != cd) rd = d->dim;
        else if ((d->thread && d->step % 32) || (d->dim == cd && d->stride % 8)) return 0;
    }
    if (!cols || rd < 0) return 0;
    return f->nlocal % 8 == 0 ? 4 : f->nlocal % 4 == 0 ? 2 : 0;
}

/* The vectorized form: for each run of V elements (the vector digit), the vector loads,
 * the V elements in an unrolled loop, the vector store; with smx matrices per ldmatrix or
 * stmatrix (V = 2 smx, matrix_count), one of them in place of the load or store, lane l
 * giving the address of row l % 8 of matrix l / 8: the nest's element at a thread of its
 * warp whose row digit is l % 8 and column digit 0, and local index l0 + 2 (l / 8). */
static void emit_vector_nest(CfEmit *em, CuLoop *lp, const Stmt *body, int64_t V, int store,
                             int smx) {
    Arena *a = &em->ctx->arena;
    Var *base[FRAG_MAX_DIMS];
    const char *tid = "tl_tid", *l0 = lp->l;
    if (smx) {
        tid = "(tl_tid / 32 * 32 + tl_tid % 8 * 4)";
        l0 = arena_printf(a, "(%s + tl_tid %% %d / 8 * 2)", lp->l, 8 * smx);
    }
    for (int k = 0; k < lp->n; k++) { /* the nest variables at the vector's first element */
        base[k] = ir_var(em->ctx, arena_printf(a, "%s0", lp->vars[k]->name), DT_INT32);
        bool used = false;
        for (int i = 0; i < lp->nvec; i++) {
            for (int d = 0; d < lp->vec[i].buf->ndim; d++)
                used |= uses(lp->vec[i].idx[d], lp->vars[k]);
            used |= lp->vec[i].guard && uses(lp->vec[i].guard, lp->vars[k]);
        }
        if (used)
            cf_line(em, "const int32_t %s = %s;", cf_var(em, base[k]),
                    dim_index_at(em, lp->lay, k, tid, l0));
    }
    /* a store of a vector load's elements unchanged: the loaded vector is stored */
    int copy = store >= 0 && !smx ? copied_access(lp, ir_only_stmt((Stmt *)body)->u.store.value,
                                                  lp->vec[store].buf->dtype)
                                  : -1;
    for (int i = 0; i < lp->nvec; i++) { /* runs over 16 bytes: several 16-byte pieces */
        const CuVecAccess *v = &lp->vec[i];
        if (i == store && copy >= 0) continue;
        int64_t bytes = V * dtype_bytes(v->buf->dtype), pieces = bytes > 16 ? bytes / 16 : 1;
        const char *vt = vector_type(bytes);
        need_alignment(v->buf, bytes > 16 ? 16 : (int)bytes);
        if (i == store || smx) cf_line(em, "%s %s[%lld];", vt, v->tmp, (long long)pieces);
        if (i == store) continue;
        if (smx) {
            cf_line(em, "tl_ldmatrix<%d>((unsigned *)%s, &%s);", smx, v->tmp,
                    vector_elem(em, lp, v->buf, v->idx, base, 0));
            continue;
        }
        StrBuf init = {0};
        const char *guard = v->guard ? guard_at(em, lp, v->guard, base) : NULL;
        for (int64_t p = 0; p < pieces; p++)
            sb_printf(&init, "%s%s%s*(const %s *)&%s%s%s", p ? ", " : "", guard ? guard : "",
                      guard ? " ? " : "", vt,
                      vector_elem(em, lp, v->buf, v->idx, base, p * V / pieces), guard ? " : " : "",
                      guard ? arena_printf(a, "%s{}", vt) : "");
        cf_line(em, "const %s %s[%lld] = {%s};", vt, v->tmp, (long long)pieces, init.buf);
        sb_free(&init);
    }
    const char *outer = lp->l;
    if (copy < 0) { /* each element computed from the loaded vectors */
        lp->e = cf_tmp(em, "e");
        cf_line(em, "#pragma unroll");
        cf_line(em, "for (int %s = 0; %s < %lld; ++%s) {", lp->e, lp->e, (long long)V, lp->e);
        em->indent++;
        lp->l = cf_tmp(em, "l");
        if (reads_local_index(lp, body))
            cf_line(em, "const int %s = %s + %s;", lp->l, outer, lp->e);
        int mark = em->live.len;
        declare_nest_vars(em, lp, body, lp->l);
        emit_body(em, lp, body);
        em->live.len = mark;
        em->indent--;
        cf_line(em, "}");
    }
    if (store >= 0) {
        const CuVecAccess *v = &lp->vec[store];
        const char *from = copy >= 0 ? lp->vec[copy].tmp : v->tmp;
        const CuLoop *saved = cu_of(em)->loop;
        cu_of(em)->loop = lp; /* replicas: one thread stores */
        const char *rep = cu_primary_replica(em);
        cu_of(em)->loop = saved;
        int64_t bytes = V * dtype_bytes(v->buf->dtype), pieces = bytes > 16 ? bytes / 16 : 1;
        const char *vt = vector_type(bytes);
        if (smx)
            cf_line(em, "%stl_stmatrix<%d>(&%s, (const unsigned *)%s);",
                    rep ? arena_printf(a, "if (%s) ", rep) : "", smx,
                    vector_elem(em, lp, v->buf, v->idx, base, 0), v->tmp);
        for (int64_t p = 0; !smx && p < pieces; p++)
            cf_line(em, "%s*(%s *)&%s = %s[%lld];", rep ? arena_printf(a, "if (%s) ", rep) : "", vt,
                    vector_elem(em, lp, v->buf, v->idx, base, p * V / pieces), from, (long long)p);
    }
    lp->l = outer;
}

void cu_layout_nest(CfEmit *em, const Stmt *root) {
    CuLoop lp = {.lay = root->u.for_.layout};
    const Stmt *s = root;
    for (int k = 0; k < lp.lay->ndim; k++) {
        TL_ASSERT(s->kind == STMT_FOR && s->u.for_.kind == LOOP_PARALLEL);
        lp.vars[lp.n++] = s->u.for_.var;
        if (k + 1 < lp.lay->ndim) { s = ir_only_stmt(s->u.for_.body); }
    }
    const Stmt *body = s->u.for_.body;
    int vd = vector_digit(lp.lay), store = -1;
    int64_t V = vd >= 0 ? lp.lay->dig[vd].extent : 1;
    if (vd >= 0) {
        VecScan w = {.em = em, .lp = &lp, .vl = lp.vars[lp.lay->dig[vd].dim], .V = V};
        store = scan_body(&w, body);
    }
    int smx = lp.nvec == 1 && store <= 0 ? matrix_count(em, &lp, vd, store == 0) : 0;
    if (smx) V = 2 * smx;
    lp.l = cf_tmp(em, "l");
    StrBuf names = {0};
    for (int k = 0; k < lp.n; k++) sb_printf(&names, "%s%s", k ? ", " : "", cf_var(em, lp.vars[k]));
    int64_t step = lp.nvec ? V : 1;
    cf_line(em, "#pragma unroll");
    cf_line(em,
            "for (int %s = 0; %s < %lld; %s) {  /* parallel %s: %s layout, %lld registers "
            "per thread%s */",
            lp.l, lp.l, (long long)lp.lay->nlocal,
            step > 1 ? arena_printf(&em->ctx->arena, "%s += %lld", lp.l, (long long)step)
                     : arena_printf(&em->ctx->arena, "++%s", lp.l),
            names.buf, lp.lay->origin, (long long)lp.lay->nlocal,
            smx       ? arena_printf(&em->ctx->arena, "; %smatrix x%d", store ? "ld" : "st", smx)
            : lp.nvec ? arena_printf(&em->ctx->arena, "; %lld-element vectors", (long long)V)
                      : "");
    sb_free(&names);
    int mark = em->live.len;
    em->indent++;
    if (lp.nvec) {
        emit_vector_nest(em, &lp, body, V, store, smx);
    } else {
        declare_nest_vars(em, &lp, body, lp.l);
        emit_body(em, &lp, body);
    }
    em->indent--;
    em->live.len = mark;
    cf_line(em, "}");
}

/* ---- element references ------------------------------------------------------------------- */
/* F[local index] of register fragment b in the current layout loop; an index that is a
 * nest variable plus an offset reads a window of b (infer_layouts.c checked that it is one):
 * the window's local digits from tl_l, the dropped ones from the offsets. */
static void reg_elem(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx) {
    const CuLoop *lp = cu_of(em)->loop;
    int dims[FRAG_MAX_DIMS] = {0}, map[FRAG_MAX_DIGITS], n = 0, split = -1, m = 0;
    const Expr *off[FRAG_MAX_DIMS];
    int64_t ext[FRAG_MAX_DIMS], split_ext[FRAG_MAX_DIMS];
    bool window = false;
    if (!lp) tl_internal_error(__FILE__, __LINE__, "register fragment outside a layout loop");
    for (int d = 0; d < b->ndim; d++) { /* a nest variable (+ offset), or 0 for extent 1 */
        int64_t c, dim = 0;
        int pos[FRAG_MAX_DIMS];
        int p = ir_var_plus_offset(idx[d], (Var *const *)lp->vars, lp->n, &off[d]);
        ir_is_const_int(b->shape[d], &dim);
        int fused = p < 0 && split < 0 ? ir_fused_vars(idx[d], (Var *const *)lp->vars, lp->n,
                                                       lp->lay->shape, dim, pos)
                                       : 0;
        if (fused) { /* a view's dimensions (infer_layouts.c: Access.split) */
            split = d, m = fused;
            for (int t = 0; t < m; t++)
                dims[n] = pos[t], split_ext[t] = ext[n] = lp->lay->shape[dims[n]], n++;
            continue;
        }
        if (p < 0 && (!ir_is_const_int(idx[d], &c) || c != 0))
            tl_internal_error(__FILE__, __LINE__, "register fragment index");
        dims[n] = p;
        ext[n++] = p < 0 ? 1 : lp->lay->shape[p];
        window |= off[d] != NULL;
    }
    const Frag *part = split >= 0 ? frag_split(&em->ctx->arena, b->layout, split, m, split_ext)
                       : window   ? frag_window(&em->ctx->arena, b->layout, ext)
                                  : b->layout;
    if (!part || !frag_consistent(lp->lay, part, n, dims))
        tl_internal_error(__FILE__, __LINE__, "register fragment layout mismatch");
    frag_local_map(lp->lay, part, n, dims, map);
    sb_printf(o, "%s[", cf_buf(em, b));
    if (!window && part->nlocal == lp->lay->nlocal) { /* the same local digits */
        bool same = true;
        for (int i = 0; i < part->ndig; i++)
            same &= part->dig[i].thread || part->dig[i].step == lp->lay->dig[map[i]].step;
        if (same) {
            sb_printf(o, "%s]", lp->l);
            return;
        }
    }
    bool first = true;
    for (int i = 0; i < part->ndig; i++) {
        const FragDigit *d = &part->dig[i];
        if (d->thread) continue;
        sum_term(o, &first);
        digit_term(o, &lp->lay->dig[map[i]], lp->l, lp->lay->nlocal, d->step);
    }
    for (int i = 0; window && i < b->layout->ndig; i++) { /* the digits the offsets fix */
        const FragDigit *d = &b->layout->dig[i];
        if (d->thread || d->stride * d->extent <= ext[d->dim]) continue;
        sum_term(o, &first);
        sb_printf(o, "((%s) / %lld %% %lld) * %lld", cf_ex_str(em, off[d->dim], DT_INT32, true),
                  (long long)d->stride, (long long)d->extent, (long long)d->step);
    }
    sb_puts(o, first ? "0]" : "]");
}

bool cu_elem(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx) {
    const CuLoop *lp = cu_of(em)->loop;
    for (int i = 0; lp && lp->e && i < lp->nvec; i++)
        if (lp->vec[i].idx == idx) { /* element e of a vector temporary */
            sb_printf(o, "((%s *)&%s)[%s]", lp->vec[i].storage, lp->vec[i].tmp, lp->e);
            return true;
        }
    if (b->layout) {
        reg_elem(em, o, b, idx);
        return true;
    }
    if (b->panel) {
        sb_printf(o, "%s[tl_panel_swizzle<%lld, %lld, %d>(", cf_buf(em, b),
                  (long long)dim_of(b, b->ndim - 2), (long long)dim_of(b, b->ndim - 1),
                  dtype_bytes(b->dtype));
        cf_ex_offset(em, o, b, idx);
        sb_puts(o, ")]");
        return true;
    }
    if (!b->swizzle) return false;
    sb_printf(o, "%s[tl_swizzle<%d, %d>(", cf_buf(em, b), b->swizzle, dtype_bytes(b->dtype));
    cf_ex_offset(em, o, b, idx);
    sb_puts(o, ")]");
    return true;
}

/* ---- T.gemm on tensor cores ------------------------------------------------------------------ */
/* The tile of a gemm operand in shared memory: its pointer (the stage's tile of a
 * multi-buffered one, pass_pipeline_async) and its rows and columns as stored. A K slice
 * of a tile in column panels (cuda_gemm_kslice) is the tile of its panels: start * rows
 * elements in, as wide as the slice. */
static const char *operand(CfEmit *em, const Region *r, int64_t *rows, int64_t *cols) {
    const Buffer *b = r->buf;
    int last = b->ndim - 1;
    int64_t start = -1, width = 0;
    *rows = dim_of(b, last - 1), *cols = dim_of(b, last);
    const char *p = cf_buf(em, b);
    if (b->ndim == 3)
        p = arena_printf(&em->ctx->arena, "%s + (%s) * %lld", p,
                         cf_ex_str(em, r->start[0], DT_INT32, true), (long long)(*rows * *cols));
    ir_is_const_int(r->extent[last], &width);
    if ((ir_is_const_int(r->start[last], &start) && !start && width == *cols) || r->ndim != b->ndim)
        return p;
    TL_ASSERT(b->panel && width % b->panel == 0 && "a gemm operand slice of whole panels");
    *cols = width;
    return arena_printf(&em->ctx->arena, "%s + (%s) * %lld", p,
                        cf_ex_str(em, r->start[last], DT_INT32, true), (long long)*rows);
}

/* tl_cuda.h's name of a wgmma input type. */
static const char *mma_type(DType t) {
    switch (t) {
    case DT_BFLOAT16: return "TL_MMA_BF16";
    case DT_FLOAT8_E4M3: return "TL_MMA_E4M3";
    case DT_FLOAT8_E5M2: return "TL_MMA_E5M2";
    default: return "TL_MMA_F16";
    }
}

/* tl_cuda.h's TL_SMEM_* name of how shared gemm operand b is stored. */
static const char *smem_form(const Buffer *b) {
    return b->panel ? "TL_SMEM_PANELS" : b->swizzle ? "TL_SMEM_SWIZZLED" : "TL_SMEM_ROWS";
}

/* T.gemm_sp kept for sparse tensor cores (cuda_gemm_sp_kept): tl_gemm_sp_ss, E's tile as
 * bytes. */
static void cu_gemm_sp(CfEmit *em, const Stmt *s, const char *tid) {
    const Buffer *A = s->u.gemm.a.buf, *B = s->u.gemm.b.buf, *C = s->u.gemm.c.buf;
    int64_t ar, ac, br, bc, er, ec;
    const char *pa = operand(em, &s->u.gemm.a, &ar, &ac), *pb = operand(em, &s->u.gemm.b, &br, &bc);
    const char *pe = operand(em, &s->u.gemm.e, &er, &ec);
    bool tb = s->u.gemm.trans_b;
    cf_line(em,
            "tl_gemm_sp_ss<%lld, %lld, %lld, %d, %d, %s, %s, %s, %s%s>(%s, (const unsigned char "
            "*)(%s), %s, %s, %s);",
            (long long)dim_of(C, 0), (long long)dim_of(C, 1), (long long)(2 * ac), s->u.gemm.warp_m,
            s->u.gemm.warp_n, tb ? "true" : "false", A->dtype == DT_BFLOAT16 ? "true" : "false",
            smem_form(A), smem_form(B),
            s->u.gemm.pipe_wait ? arena_printf(&em->ctx->arena, ", %d", s->u.gemm.pipe_wait - 1)
                                : "",
            pa, pe, pb, cf_buf(em, C), tid);
}

void cu_gemm(CfEmit *em, const Stmt *s) {
    const Buffer *A = s->u.gemm.a.buf, *B = s->u.gemm.b.buf, *C = s->u.gemm.c.buf;
    bool ta = s->u.gemm.trans_a, tb = s->u.gemm.trans_b, bf16 = A->dtype == DT_BFLOAT16;
    int64_t ar, ac, br, bc, M = dim_of(C, 0), N = dim_of(C, 1);
    const char *pa = A->layout ? cf_buf(em, A) : operand(em, &s->u.gemm.a, &ar, &ac);
    const char *pb = operand(em, &s->u.gemm.b, &br, &bc);
    int64_t K = tb ? bc : br;
    if (s->u.gemm.wgmma) {
        int gn = s->u.gemm.wgmma_n, used = 128 * s->u.gemm.wgmma * gn; /* more: replicas */
        if (s->u.gemm.clear_accum)
            cf_line(em, "for (int tl_c = 0; tl_c < %lld; ++tl_c) %s[tl_c] = 0.0f;",
                    (long long)C->layout->nlocal, cf_buf(em, C));
        const char *tid = used == cu_of(em)->nthreads
                              ? "tl_tid"
                              : arena_printf(&em->ctx->arena, "tl_tid %% %d", used);
        int wait = s->u.gemm.manual || s->u.gemm.deferred ? -1 : s->u.gemm.inflight ? 1 : 0;
        /* the trailing template arguments, spelled only where not the defaults */
        const char *split = gn > 1 ? arena_printf(&em->ctx->arena, ", %d", gn) : "";
        const char *trans_a = ta ? ", true" : gn > 1 ? ", false" : "";
        if (A->layout) /* A in registers (one input type) */
            cf_line(em, "tl_wgmma_rs<%lld, %lld, %lld, %d, %s, %s, %d%s>(%s, %s, %s, %s);",
                    (long long)M, (long long)N, (long long)K, s->u.gemm.wgmma,
                    tb ? "true" : "false", mma_type(A->dtype), wait, split, pa, pb, cf_buf(em, C),
                    tid);
        else
            cf_line(em, "tl_wgmma_ss<%lld, %lld, %lld, %d, %s, %s, %s, %d%s%s>(%s, %s, %s, %s);",
                    (long long)M, (long long)N, (long long)K, s->u.gemm.wgmma,
                    tb ? "true" : "false", mma_type(A->dtype), mma_type(B->dtype), wait, trans_a,
                    split, pa, pb, cf_buf(em, C), tid);
        return;
    }
    int used = 32 * s->u.gemm.warp_m * s->u.gemm.warp_n; /* further warps: replicas */
    const char *tid = used == cu_of(em)->nthreads
                          ? "tl_tid"
                          : arena_printf(&em->ctx->arena, "tl_tid %% %d", used);
    if (s->u.gemm.clear_accum)
        cf_line(em, "for (int tl_c = 0; tl_c < %lld; ++tl_c) %s[tl_c] = 0.0f;",
                (long long)C->layout->nlocal, cf_buf(em, C));
    TL_ASSERT(!s->u.gemm.pipe_wait || A->dtype == DT_FLOAT16 || A->dtype == DT_BFLOAT16);
    if (s->u.gemm.e.buf) cu_gemm_sp(em, s, tid);
    else if (gemm_is_tf32(s) && A->layout) /* A's registers as frag_mma_a_tf32 lays them out */
        cf_line(em, "tl_gemm_rs_tf32<%lld, %lld, %lld, %d, %d, %s, %s>(%s, %s, %s, %s);",
                (long long)M, (long long)N, (long long)K, s->u.gemm.warp_m, s->u.gemm.warp_n,
                tb ? "true" : "false", smem_form(B), pa, pb, cf_buf(em, C), tid);
    else if (gemm_is_tf32(s))
        cf_line(em, "tl_gemm_ss_tf32<%lld, %lld, %lld, %d, %d, %s, %s, %s, %s>(%s, %s, %s, %s);",
                (long long)M, (long long)N, (long long)K, s->u.gemm.warp_m, s->u.gemm.warp_n,
                ta ? "true" : "false", tb ? "true" : "false", smem_form(A), smem_form(B), pa, pb,
                cf_buf(em, C), tid);
    else if (s->u.gemm.int4) /* packed int4 (subbyte.c): A [M][K/2], B [N][K/2] bytes */
        cf_line(em, "tl_gemm_ss_s4<%lld, %lld, %lld, %d, %d, %s, %s>(%s, %s, %s, %s);",
                (long long)M, (long long)N, (long long)K, s->u.gemm.warp_m, s->u.gemm.warp_n,
                smem_form(A), smem_form(B), pa, pb, cf_buf(em, C), tid);
    else if (A->dtype == DT_INT8)
        cf_line(em, "tl_gemm_ss_s8<%lld, %lld, %lld, %d, %d, %s, %s, %s, %s>(%s, %s, %s, %s);",
                (long long)M, (long long)N, (long long)K, s->u.gemm.warp_m, s->u.gemm.warp_n,
                ta ? "true" : "false", tb ? "true" : "false", smem_form(A), smem_form(B), pa, pb,
                cf_buf(em, C), tid);
    else if (A->layout)
        cf_line(em, "tl_gemm_rs<%lld, %lld, %lld, %d, %d, %s, %s, %s>(%s, %s, %s, %s);",
                (long long)M, (long long)N, (long long)K, s->u.gemm.warp_m, s->u.gemm.warp_n,
                tb ? "true" : "false", bf16 ? "true" : "false", smem_form(B), pa, pb, cf_buf(em, C),
                tid);
    else
        cf_line(em, "tl_gemm_ss<%lld, %lld, %lld, %d, %d, %s, %s, %s, %s, %s%s>(%s, %s, %s, %s);",
                (long long)M, (long long)N, (long long)K, s->u.gemm.warp_m, s->u.gemm.warp_n,
                ta ? "true" : "false", tb ? "true" : "false", bf16 ? "true" : "false", smem_form(A),
                smem_form(B),
                s->u.gemm.pipe_wait ? arena_printf(&em->ctx->arena, ", %d", s->u.gemm.pipe_wait - 1)
                                    : "",
                pa, pb, cf_buf(em, C), tid);
}

/* ---- T.copy between global and shared, in vectors -------------------------------------------- */
/* "(uint64_t)(idx) < (uint64_t)(extent)" for every dimension of global buffer b but the
 * proven ones (bit d: dim d; Stmt.copy.proven). */
static const char *in_bounds(CfEmit *em, const Buffer *b, Expr *const *idx, unsigned proven) {
    StrBuf o = {0};
    for (int d = 0; d < b->ndim; d++)
        if (!(d < 32 && proven >> d & 1))
            sb_printf(&o, "%s(uint64_t)(%s) < (uint64_t)(%s)", o.len ? " && " : "",
                      cf_ex_str(em, idx[d], DT_INT64, true),
                      cf_ex_str(em, b->shape[d], DT_INT64, true));
    const char *r = arena_strdup(&em->ctx->arena, o.buf ? o.buf : "true");
    sb_free(&o);
    return r;
}

/* Indices of region r: start + the nest variable for its squeezed dimensions. */
static Expr **region_idx(CfEmit *em, const Region *r, const int *dims, int n, Var *const *vars) {
    Expr **idx = NEW_ARRAY(&em->ctx->arena, Expr *, r->ndim);
    for (int d = 0; d < r->ndim; d++) idx[d] = r->start[d];
    for (int k = 0; k < n; k++) {
        Loc loc = r->start[dims[k]]->loc;
        idx[dims[k]] = ir_bin(em->ctx, OP_ADD, ir_subst(em->ctx, r->start[dims[k]], NULL, NULL),
                              ir_varref(em->ctx, vars[k], loc), loc);
    }
    return idx;
}

static const char *elem_text(CfEmit *em, const Buffer *b, Expr *const *idx) {
    StrBuf o = {0};
    cf_ex_elem(em, &o, b, idx);
    const char *r = arena_strdup(&em->ctx->arena, o.buf);
    sb_free(&o);
    return r;
}

/* The coordinates (innermost first) of box (p, c) of map m at the copy's corner at[]. */
static void tma_coords(StrBuf *o, const TmaMap *m, const char *const *at, int p, int c) {
    for (int i = 0; i < m->rank; i++) {
        int64_t off = (i == 0 ? (int64_t)p * m->box[0] : 0) +
                      (i == m->outer && i ? (int64_t)c * m->box[i] : 0);
        if (off) sb_printf(o, ", %s + %lld", at[i], (long long)off);
        else sb_printf(o, ", %s", at[i]);
    }
}

/* TMA stores (tma_store.c), by thread 0: every box of the tile, then their commit. */
static void tma_stores(CfEmit *em, const TmaMap *m, int map, const char *base,
                       const char *const *at) {
    cf_line(em, "if (tl_tid == 0) {  /* TMA stores; the block's barriers wait for their reads */");
    em->indent++;
    for (int p = 0; p < m->npanel; p++)
        for (int c = 0; c < m->nchunk; c++) {
            StrBuf o = {0};
            sb_printf(&o, "tl_tma_store(&tl_tmap%d, %s + %lld", map, base,
                      (long long)(p * m->panel_step + c * m->chunk_step));
            tma_coords(&o, m, at, p, c);
            cf_line(em, "%s);", o.buf);
            sb_free(&o);
        }
    cf_line(em, "tl_tma_store_commit();");
    em->indent--;
    cf_line(em, "}");
    cu_of(em)->stores_issued = true;
}

/* A TMA copy, in one thread: the boxes of its map (TmaMap), each completing on the
 * copy's mbarrier. A multicast copy in a cluster of c blocks: block r issues boxes
 * [r * n / c, (r + 1) * n / c) of the n, each into every block. Or TMA stores from the
 * tile (a global destination). */
static void cu_tma_copy(CfEmit *em, const Stmt *s) {
    Arena *a = &em->ctx->arena;
    const TmaMap *m = cu_of(em)->kernel->u.kernel.tmaps[s->u.copy.tma - 1];
    bool store = s->u.copy.dst.buf->scope == SCOPE_GLOBAL;
    const Region *g = store ? &s->u.copy.dst : &s->u.copy.src;
    const Region *t = store ? &s->u.copy.src : &s->u.copy.dst;
    const Buffer *T = t->buf;
    int64_t tile = 1;
    for (int d = 1; d < T->ndim; d++) tile *= dim_of(T, d);
    const char *base = arena_printf(a, "%s + (%s) * %lld", cf_buf(em, T),
                                    cf_ex_str(em, t->start[0], DT_INT32, true), (long long)tile);
    int64_t col = 0;
    if (T->panel && T->ndim == 2 && !(ir_is_const_int(t->start[1], &col) && !col))
        base = arena_printf(a, "%s + (%s) * %lld", base, /* a slice of panels (TmaMap) */
                            cf_ex_str(em, t->start[1], DT_INT32, true), (long long)dim_of(T, 0));
    const char *at[TMA_MAX_RANK];
    for (int i = 0; i < m->rank; i++) {
        at[i] = cf_tmp(em, "c");
        cf_line(em, "const int %s = %s;", at[i],
                cf_ex_str(em, g->start[m->rank - 1 - i], DT_INT32, true));
    }
    if (store) {
        tma_stores(em, m, s->u.copy.tma - 1, base, at);
        return;
    }
    const char *bar = arena_printf(a, "&%s[%s]", cf_buf(em, s->u.copy.bar),
                                   cf_ex_str(em, s->u.copy.bar_idx, DT_INT32, true));
    int cluster = s->u.copy.multicast ? cu_of(em)->cluster : 1, nbox = m->npanel * m->nchunk;
    if (s->u.copy.manual) { /* T.tma_copy: its first thread, its bytes on the barrier */
        cf_line(em, "if (tl_tid == 0) {");
        em->indent++;
        cf_line(em, "tl_mbar_expect_tx(%s, %lld);", bar, (long long)m->bytes);
    }
    for (int p = 0; p < m->npanel; p++)
        for (int c = 0; c < m->nchunk; c++) {
            StrBuf o = {0};
            if (cluster > 1)
                sb_printf(&o,
                          "if (tl_cluster_rank() == %d) tl_tma_load_multicast(&tl_tmap%d, "
                          "%s + %lld, %s, %d",
                          (p * m->nchunk + c) * cluster / nbox, s->u.copy.tma - 1, base,
                          (long long)(p * m->panel_step + c * m->chunk_step), bar,
                          (1 << cluster) - 1);
            else
                sb_printf(&o, "tl_tma_load(&tl_tmap%d, %s + %lld, %s", s->u.copy.tma - 1, base,
                          (long long)(p * m->panel_step + c * m->chunk_step), bar);
            tma_coords(&o, m, at, p, c);
            cf_line(em, "%s);", o.buf);
            sb_free(&o);
        }
    if (s->u.copy.manual) {
        em->indent--;
        cf_line(em, "}");
    }
}

/* A kept vector copy (cuda_copy_vector): n squeezed dimensions of extents ext (the
 * region dims ds of the source, dd of the destination), v elements a vector. */
enum { COPY_MAXD = 8 };
typedef struct VecCopy {
    const Stmt *s;
    int n, v, bytes, ds[COPY_MAXD], dd[COPY_MAXD];
    int64_t ext[COPY_MAXD];
} VecCopy;

/* Defines the index variables vars[0..n-1] of vector number `t` (C text). */
static void copy_vars(CfEmit *em, const VecCopy *C, const char *t, Var **vars) {
    static const char *const names[] = {"i", "j", "k", "l", "p", "q", "r", "s"};
    int64_t below = 1; /* vectors per step of dimension k */
    for (int k = C->n - 1; k >= 0; k--) {
        vars[k] = ir_var(em->ctx, names[k], DT_INT32);
        int64_t e = k == C->n - 1 ? C->ext[k] / C->v : C->ext[k];
        StrBuf o = {0};
        sb_printf(&o, "%s", t);
        if (below > 1) sb_printf(&o, " / %lld", (long long)below);
        if (k > 0) sb_printf(&o, " %% %lld", (long long)e);
        cf_line(em, "const int32_t %s = (%s)%s;", cf_var(em, vars[k]), o.buf,
                k == C->n - 1 && C->v > 1 ? arena_printf(&em->ctx->arena, " * %d", C->v) : "");
        sb_free(&o);
        cf_live_add(em, vars[k]);
        below *= e;
    }
}

/* The bounds check of the vector at vars (the global side's). */
static const char *copy_ok(CfEmit *em, const VecCopy *C, Var *const *vars) {
    const Region *src = &C->s->u.copy.src, *dst = &C->s->u.copy.dst;
    unsigned proven = C->s->u.copy.proven;
    if (src->buf->scope == SCOPE_GLOBAL)
        return in_bounds(em, src->buf, region_idx(em, src, C->ds, C->n, vars), proven);
    return in_bounds(em, dst->buf, region_idx(em, dst, C->dd, C->n, vars), proven);
}

/* Whether copy_ok checks the outer (first squeezed) dimension of the copy. */
static bool copy_checks_outer(const VecCopy *C) {
    bool global_src = C->s->u.copy.src.buf->scope == SCOPE_GLOBAL;
    int d = global_src ? C->ds[0] : C->dd[0];
    return !(d < 32 && C->s->u.copy.proven >> d & 1);
}

/* The address of the vector at vars in region r (squeezed dims). */
static const char *copy_ptr(CfEmit *em, const Region *r, const int *dims, int n, Var *const *vars) {
    Expr **idx = region_idx(em, r, dims, n, vars);
    return arena_printf(&em->ctx->arena, "&%s", elem_text(em, r->buf, idx));
}

/* The statement moving one vector from address ps to pd, when ok. */
static void copy_access(CfEmit *em, const VecCopy *C, const char *pd, const char *ps,
                        const char *ok) {
    const char *vt = C->bytes == 16 ? "uint4" : C->bytes == 8 ? "uint2" : "unsigned";
    if (C->s->u.copy.async) cf_line(em, "tl_cp_async%d(%s, %s, %s);", C->bytes, pd, ps, ok);
    else if (C->s->u.copy.src.buf->scope == SCOPE_GLOBAL)
        cf_line(em, "*(%s *)(%s) = %s ? *(const %s *)(%s) : %s;", vt, pd, ok, vt, ps,
                C->bytes == 16  ? "make_uint4(0, 0, 0, 0)"
                : C->bytes == 8 ? "make_uint2(0, 0)"
                                : "0u");
    else cf_line(em, "if (%s) *(%s *)(%s) = *(const %s *)(%s);", ok, vt, pd, vt, ps);
}

/* Elements between consecutive rows of dimension d of contiguous buffer b (int64 text). */
static const char *row_stride(CfEmit *em, const Buffer *b, int d) {
    Ctx *ctx = em->ctx;
    Loc loc = b->loc;
    Expr *e = ir_int(ctx, 1, DT_INT64, loc);
    for (int k = d + 1; k < b->ndim; k++)
        e = ir_bin(ctx, OP_MUL, e,
                   ir_cast(ctx, DT_INT64, ir_subst(ctx, b->shape[k], NULL, NULL), loc), loc);
    return cf_ex_str(em, e, DT_INT64, true);
}

/* Whether moving by delta elements in shared buffer b commutes with its layout:
 * tl_swizzle permutes 16-byte chunks inside periods of 8 rows of at least 128 bytes. */
static bool shift_commutes(const Buffer *b, int64_t delta) {
    if (b->scope != SCOPE_SHARED) return true;
    if (b->panel) return false;
    if (!b->swizzle) return true;
    int sh = 7;
    while ((1 << sh) < b->swizzle) sh++;
    return delta * dtype_bytes(b->dtype) % ((int64_t)8 << sh) == 0;
}

/* Every thread moves `per` vectors, nthreads apart, and nthreads is a multiple of the
 * vectors of one step of the outer dimension: thread tid's vectors share their inner
 * indices and step the outer one by R = nthreads / inner. Both addresses are then the
 * first vector's plus a constant per step (when the shared layout allows it): one
 * address computation per thread, an unrolled loop of constant offsets. False if the
 * copy does not have that shape. */
static bool copy_unrolled(CfEmit *em, const VecCopy *C, int nthreads, int64_t nvec) {
    const Region *src = &C->s->u.copy.src, *dst = &C->s->u.copy.dst;
    int64_t inner = 1;
    for (int k = 1; k < C->n; k++) inner *= k == C->n - 1 ? C->ext[k] / C->v : C->ext[k];
    int64_t per = nvec / nthreads, R = nthreads / inner;
    const Buffer *sh = src->buf->scope == SCOPE_SHARED ? src->buf : dst->buf;
    int shd = sh == src->buf ? C->ds[0] : C->dd[0];
    int64_t sh_stride = 1;
    for (int k = shd + 1; k < sh->ndim; k++) sh_stride *= dim_of(sh, k);
    if (nvec % nthreads || per > 64 || nthreads % inner ||
        !shift_commutes(sh, R * (C->n > 1 ? sh_stride : C->v)))
        return false;
    Arena *a = &em->ctx->arena;
    int mark = em->live.len;
    cf_line(em, "{  /* %d-byte vectors%s, %lld per thread */", C->bytes,
            C->s->u.copy.async ? ", cp.async" : "", (long long)per);
    em->indent++;
    Var *vars[COPY_MAXD];
    copy_vars(em, C, "tl_tid", vars); /* the thread's first vector */
    const char *pd = cf_tmp(em, "d"), *ps = cf_tmp(em, "s");
    cf_line(em, "auto *const %s = %s;", pd, copy_ptr(em, dst, C->dd, C->n, vars));
    cf_line(em, "const auto *const %s = %s;", ps, copy_ptr(em, src, C->ds, C->n, vars));
    /* elements from one of the thread's vectors to the next, each side */
    const char *step[2];
    for (int side = 0; side < 2; side++) {
        const Region *r = side ? src : dst;
        int d0 = side ? C->ds[0] : C->dd[0];
        step[side] = C->n > 1
                         ? arena_printf(a, "%lld * %s", (long long)R, row_stride(em, r->buf, d0))
                         : arena_printf(a, "%lld", (long long)(R * C->v));
    }
    const char *u = cf_tmp(em, "u");
    cf_line(em, "#pragma unroll");
    cf_line(em, "for (int %s = 0; %s < %lld; ++%s) {", u, u, (long long)per, u);
    em->indent++;
    Var *at[COPY_MAXD];
    for (int k = 1; k < C->n; k++) at[k] = vars[k];
    at[0] = ir_var(em->ctx, "i", DT_INT32);
    const char *ok = copy_ok(em, C, at);
    if (copy_checks_outer(C)) { /* the bounds check reads the outer index */
        cf_line(em, "const int32_t %s = %s + %s * %lld;", cf_var(em, at[0]), cf_var(em, vars[0]), u,
                (long long)(C->n > 1 ? R : R * C->v));
        cf_live_add(em, at[0]);
    }
    copy_access(em, C, arena_printf(a, "%s + (int64_t)%s * %s", pd, u, step[0]),
                arena_printf(a, "%s + (int64_t)%s * %s", ps, u, step[1]), ok);
    em->indent--;
    cf_line(em, "}");
    em->indent--;
    em->live.len = mark;
    cf_line(em, "}");
    return true;
}

void cu_copy(CfEmit *em, const Stmt *s) {
    if (s->u.copy.tma) {
        cu_tma_copy(em, s);
        return;
    }
    const Region *src = &s->u.copy.src, *dst = &s->u.copy.dst;
    VecCopy C = {.s = s, .v = cuda_copy_vector(s)};
    C.n = ir_region_squeeze(src, C.ds);
    TL_ASSERT(C.v > 0 && C.n == ir_region_squeeze(dst, C.dd) && C.n <= COPY_MAXD);
    int64_t total = 1;
    for (int k = 0; k < C.n; k++) {
        ir_is_const_int(src->extent[C.ds[k]], &C.ext[k]);
        total *= C.ext[k];
    }
    C.bytes = C.v * dtype_bytes(src->buf->dtype);
    need_alignment(src->buf, C.bytes);
    need_alignment(dst->buf, C.bytes);
    int nthreads = cu_of(em)->nthreads;
    if (copy_unrolled(em, &C, nthreads, total / C.v)) return;
    const char *t = cf_tmp(em, "v");
    cf_line(em, "for (int %s = tl_tid; %s < %lld; %s += %d) {  /* %d-byte vectors%s */", t, t,
            (long long)(total / C.v), t, nthreads, C.bytes, s->u.copy.async ? ", cp.async" : "");
    int mark = em->live.len;
    em->indent++;
    Var *vars[COPY_MAXD];
    copy_vars(em, &C, t, vars);
    copy_access(em, &C, copy_ptr(em, dst, C.dd, C.n, vars), copy_ptr(em, src, C.ds, C.n, vars),
                copy_ok(em, &C, vars));
    em->indent--;
    em->live.len = mark;
    cf_line(em, "}");
}

/* ---- T.reduce over register fragments -------------------------------------------------------- */
/* A nest of fresh parallel loops over b's shape, mapped by `lay`, around body(vars). */
typedef Stmt *(*NestBody)(CfEmit *em, Expr **vars, void *ud);

static void layout_nest(CfEmit *em, const Buffer *shape_of, const Frag *lay, NestBody body,
                        void *ud, Loc loc) {
    Ctx *ctx = em->ctx;
    Expr *vars[FRAG_MAX_DIMS];
    Var *v[FRAG_MAX_DIMS];
    static const char *const names[FRAG_MAX_DIMS] = {"i", "j", "k", "q"};
    for (int d = 0; d < lay->ndim; d++) {
        v[d] = ir_var(ctx, names[d], DT_INT32);
        vars[d] = ir_varref(ctx, v[d], loc);
    }
    Stmt *s = body(em, vars, ud);
    for (int d = lay->ndim - 1; d >= 0; d--) {
        Stmt *f = ir_stmt(ctx, STMT_FOR, loc);
        f->u.for_.var = v[d];
        f->u.for_.min = ir_int(ctx, 0, DT_INT32, loc);
        f->u.for_.extent = ir_int(ctx, dim_of(shape_of, d), DT_INT32, loc);
        f->u.for_.kind = LOOP_PARALLEL;
        f->u.for_.body = s;
        f->u.for_.layout = lay;
        s = f;
    }
    cu_layout_nest(em, s);
}

typedef struct Red {
    const Stmt *s;
    Buffer *acc; /* the per-thread partial results, laid out like dst */
    int dim;
} Red;

static Stmt *store(Ctx *ctx, Buffer *b, Expr **idx, Expr *value, Loc loc) {
    Stmt *s = ir_stmt(ctx, STMT_STORE, loc);
    s->u.store.buf = b;
    s->u.store.idx = NEW_ARRAY(&ctx->arena, Expr *, b->ndim);
    for (int d = 0; d < b->ndim; d++) s->u.store.idx[d] = idx[d];
    s->u.store.value = ir_cast(ctx, b->dtype, value, loc);
    return s;
}

static Stmt *red_init(CfEmit *em, Expr **vars, void *ud) {
    Red *R = ud;
    return store(em->ctx, R->acc, vars,
                 reduce_init_value(em->ctx, R->s->u.reduce.op, R->acc->dtype, R->s->loc),
                 R->s->loc);
}

static Stmt *red_local(CfEmit *em, Expr **vars, void *ud) {
    Red *R = ud;
    Ctx *ctx = em->ctx;
    Loc loc = R->s->loc;
    Expr *kept[FRAG_MAX_DIMS];
    for (int d = 0, n = 0; d < R->s->u.reduce.src.buf->ndim; d++)
        if (d != R->dim) kept[n++] = vars[d];
    Expr *x = ir_load(ctx, R->s->u.reduce.src.buf, vars, loc);
    Expr *acc = ir_load(ctx, R->acc, kept, loc);
    return store(ctx, R->acc, kept, reduce_combine_value(ctx, R->s->u.reduce.op, acc, x, loc), loc);
}

static Stmt *red_final(CfEmit *em, Expr **vars, void *ud) {
    Red *R = ud;
    Ctx *ctx = em->ctx;
    Buffer *dst = R->s->u.reduce.dst.buf;
    Expr *v = ir_load(ctx, R->acc, vars, R->s->loc);
    if (!R->s->u.reduce.clear) { /* dst = dst op reduce(src): abs applies to src only */
        ReduceOp op = R->s->u.reduce.op;
        op = op == RED_ABSSUM ? RED_SUM : op == RED_ABSMAX ? RED_MAX : op;
        Expr *old = ir_cast(ctx, R->acc->dtype, ir_load(ctx, dst, vars, R->s->loc), R->s->loc);
        v = reduce_combine_value(ctx, op, old, v, R->s->loc);
    }
    return store(ctx, dst, vars, v, R->s->loc);
}

/* The combine of two partial results a and b as C source (the dtypes cuda_keep_tile_op
 * keeps: 32- and 64-bit floats and ints). */
static const char *combine_text(CfEmit *em, ReduceOp op, DType t, const char *a, const char *b) {
    Arena *ar = &em->ctx->arena;
    if (op == RED_SUM || op == RED_ABSSUM) return arena_printf(ar, "%s + %s", a, b);
    if (op == RED_BITAND || op == RED_BITOR || op == RED_BITXOR)
        return arena_printf(ar, "%s %s %s", a,
                            op == RED_BITAND  ? "&"
                            : op == RED_BITOR ? "|"
                                              : "^",
                            b);
    const char *f = op == RED_MIN ? "min" : "max";
    if (dtype_is_float(t))
        return arena_printf(ar, "f%s%s(%s, %s)", f, t == DT_FLOAT64 ? "" : "f", a, b);
    return arena_printf(ar, "tl_%s_%s(%s, %s)", f, cf_short(t), a, b);
}

/* The first of the workspace's nacc slots of thread `tid` (an expression): the digits u
 * collapsed, as frag_collapse. */
static const char *ws_slot(Arena *a, const char *tid, const FragDigit *u, int n, int64_t nacc) {
    const char *e = tid;
    for (int k = 0; k < n; k++) {
        long long st = u[k].step, next = u[k].step * u[k].extent;
        e = st == 1 ? arena_printf(a, "(%s / %lld)", e, next)
                    : arena_printf(a, "(%s %% %lld + %s / %lld * %lld)", e, st, e, next, st);
    }
    return arena_printf(a, "%s * %lld", e, (long long)nacc);
}

/* Partial results of threads whose tid differs in digit i (step, extent) beyond its
 * shuffled lanes combined through the shared workspace (a round of write, barrier,
 * read, barrier). Threads that hold one value share a slot (frag_reduce_uniform: the
 * workspace is that much smaller), written by the one whose collapsed digits are 0. */
static void red_workspace(CfEmit *em, const Red *R, const char *acc, int64_t nacc, int i,
                          int64_t step, int64_t extent) {
    const Stmt *s = R->s;
    ReduceOp op = s->u.reduce.op;
    DType t = R->acc->dtype;
    Arena *a = &em->ctx->arena;
    const char *ws = cf_buf(em, s->u.reduce.workspace);
    FragDigit u[FRAG_MAX_DIGITS];
    int nu = frag_reduce_uniform(s->u.reduce.src.buf->layout, R->dim, i, u);
    long long st = step, ex = extent, na = nacc;
    /* no barrier before the writes: every reduction's round ends with one, which orders a
     * repeated round (in a loop), or another reduction's, after this one's reads */
    const char *first = "";
    for (int k = 0; k < nu; k++)
        first = arena_printf(a, "%s%stl_tid / %lld %% %lld == 0", first, k ? " && " : "",
                             (long long)u[k].step, (long long)u[k].extent);
    if (nu == 1 && u[0].step == 1)
        first = arena_printf(a, "tl_tid %% %lld == 0", (long long)u[0].extent);
    if (nu) cf_line(em, "if (%s)", first);
    cf_line(em, "%sfor (int tl_r = 0; tl_r < %lld; ++tl_r) %s[%s + tl_r] = %s[tl_r];",
            nu ? "    " : "", na, ws, ws_slot(a, "tl_tid", u, nu, nacc), acc);
    cu_barrier(em);
    cf_line(em, "for (int tl_r = 0; tl_r < %lld; ++tl_r) {", na);
    em->indent++;
    cf_line(em, "const int tl_base = tl_tid - (tl_tid / %lld %% %lld) * %lld;", st, ex, st);
    cf_line(em, "%s tl_v = %s[%s + tl_r];", cf_value(t), ws, ws_slot(a, "tl_base", u, nu, nacc));
    cf_line(em, "for (int tl_k = 1; tl_k < %lld; ++tl_k)", ex);
    cf_line(em, "    tl_v = %s;",
            combine_text(em, op, t, "tl_v",
                         arena_printf(a, "%s[%s + tl_r]", ws,
                                      ws_slot(a, arena_printf(a, "(tl_base + tl_k * %lld)", st), u,
                                              nu, nacc))));
    cf_line(em, "%s[tl_r] = tl_v;", acc);
    em->indent--;
    cf_line(em, "}");
    cu_barrier(em);
}

/* Partial results of threads that differ in the reduced dimension's thread digits: warp
 * shuffles for the power-of-two part inside a warp, the shared workspace for the rest. */
static void red_threads(CfEmit *em, const Red *R, const char *acc, int64_t nacc) {
    const Frag *src = R->s->u.reduce.src.buf->layout;
    ReduceOp op = R->s->u.reduce.op;
    DType t = R->acc->dtype;
    Arena *a = &em->ctx->arena;
    for (int i = 0; i < src->ndig; i++) {
        const FragDigit *d = &src->dig[i];
        if (!d->thread || d->dim != R->dim) continue;
        int64_t lanes = frag_digit_warp_lanes(d);
        for (int64_t m = d->step; m < d->step * lanes; m *= 2)
            cf_line(em, "for (int tl_r = 0; tl_r < %lld; ++tl_r) %s[tl_r] = %s;", (long long)nacc,
                    acc,
                    combine_text(em, op, t, arena_printf(a, "%s[tl_r]", acc),
                                 arena_printf(a, "__shfl_xor_sync(0xffffffffu, %s[tl_r], %lld)",
                                              acc, (long long)m)));
        if (lanes < d->extent)
            red_workspace(em, R, acc, nacc, i, d->step * lanes, d->extent / lanes);
    }
}

void cu_reduce(CfEmit *em, const Stmt *s) {
    Ctx *ctx = em->ctx;
    Buffer *src = s->u.reduce.src.buf, *dst = s->u.reduce.dst.buf;
    /* partial results in the value type: float for narrow floats */
    DType at = cf_narrow_float(dst->dtype) ? DT_FLOAT32 : dst->dtype;
    Buffer *acc = ir_buffer(ctx, "red_acc", at, SCOPE_FRAGMENT, dst->ndim, s->loc);
    for (int d = 0; d < dst->ndim; d++) acc->shape[d] = dst->shape[d];
    acc->layout = dst->layout;
    Red R = {s, acc, s->u.reduce.dim};
    const char *name = cf_buf(em, acc);
    cf_line(em, "{  /* T.reduce_%s(%s -> %s, dim=%d) */", reduce_op_name(s->u.reduce.op), src->name,
            dst->name, R.dim);
    em->indent++;
    cf_line(em, "%s %s[%lld];", cf_storage(at), name, (long long)dst->layout->nlocal);
    layout_nest(em, dst, dst->layout, red_init, &R, s->loc);
    layout_nest(em, src, src->layout, red_local, &R, s->loc);
    red_threads(em, &R, name, dst->layout->nlocal);
    layout_nest(em, dst, dst->layout, red_final, &R, s->loc);
    em->indent--;
    cf_line(em, "}");
}

/* ---- T.vectorized loops ------------------------------------------------------------------- */
/* Whether store s of a T.vectorized loop over v (V iterations) copies one vector: its value
 * a load of its dtype, of 4, 8 or 16 bytes per run, that cuda_run_vector allows. */
static bool vector_copy_store(const Stmt *s, const Var *v, int64_t V) {
    if (s->kind != STMT_STORE || s->u.store.value->kind != EXPR_LOAD) return false;
    const Expr *ld = s->u.store.value;
    const Buffer *src = ld->u.load.buf;
    int64_t bytes = V * dtype_bytes(src->dtype);
    return src->dtype == s->u.store.buf->dtype && !src->layout && !s->u.store.buf->layout &&
           (src->scope == SCOPE_GLOBAL || src->scope == SCOPE_SHARED) &&
           (bytes == 4 || bytes == 8 || bytes == 16) && cuda_run_vector(src, ld->u.load.idx, v, V);
}

bool cu_vectorized_loop(CfEmit *em, const Stmt *loop) {
    int64_t lo, V;
    const Var *v = loop->u.for_.var;
    const Stmt *body = loop->u.for_.body;
    if (!ir_is_const_int(loop->u.for_.min, &lo) || lo ||
        !ir_is_const_int(loop->u.for_.extent, &V) || V < 2)
        return false;
    int n = body->kind == STMT_SEQ ? body->u.seq.len : 1;
    for (int i = 0; i < n; i++) {
        const Stmt *s = body->kind == STMT_SEQ ? body->u.seq.data[i] : body;
        if (!vector_copy_store(s, v, V)) return false;
        for (int j = 0; j < n; j++) /* every load first: no store may feed another's load */
            if ((body->kind == STMT_SEQ ? body->u.seq.data[j] : body)->u.store.buf ==
                s->u.store.value->u.load.buf)
                return false;
    }
    Arena *a = &em->ctx->arena;
    cf_loc_comment(em, loop->loc);
    for (int i = 0; i < n; i++) {
        const Stmt *s = body->kind == STMT_SEQ ? body->u.seq.data[i] : body;
        const Expr *ld = s->u.store.value;
        Buffer *src = ld->u.load.buf;
        const char *vt = vector_type(V * dtype_bytes(src->dtype)), *t = cf_tmp(em, "vec");
        need_alignment(src, (int)(V * dtype_bytes(src->dtype)));
        Expr **at = NEW_ARRAY(a, Expr *, src->ndim);
        for (int d = 0; d < src->ndim; d++)
            at[d] = ir_subst(em->ctx, ld->u.load.idx[d], v, ir_int(em->ctx, 0, v->dtype, ld->loc));
        StrBuf o = {0};
        cf_ex_elem(em, &o, src, at);
        cf_line(em, "const %s %s = *(const %s *)&%s;  /* T.vectorized: one %lld-byte load */", vt,
                t, vt, o.buf, (long long)(V * dtype_bytes(src->dtype)));
        sb_free(&o);
        const char *k = cf_var(em, v), *ty = cf_value(v->dtype);
        cf_line(em, "#pragma unroll");
        cf_line(em, "for (%s %s = 0; %s < %lld; ++%s) {", ty, k, k, (long long)V, k);
        em->indent++;
        int mark = em->live.len;
        cf_live_add(em, v);
        cf_ex_elem(em, &o, s->u.store.buf, s->u.store.idx);
        cf_line(em, "%s = ((const %s *)&%s)[%s];", o.buf, cf_storage(src->dtype), t, k);
        sb_free(&o);
        em->live.len = mark;
        em->indent--;
        cf_line(em, "}");
    }
    return true;
}
