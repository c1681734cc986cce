/* infer_layouts.c - layout inference for the CUDA target: which fragments live in
 * registers, with which layout (src/layout/frag.h), how each T.Parallel nest is mapped to
 * threads, which shared tiles are swizzled, and how kept tile ops run.
 *
 * Requires: lower_tile_ops_keeping(cuda_keep_tile_op), pass_safe_memory_access,
 * pass_simplify. Runs before pass_map_threads.
 *
 * Per kernel, over its constraints, to a fixed point:
 *  - a kept T.gemm (tensor cores) fixes its accumulator's layout: wgmma's over the
 *    warpgroups on sm_90a when its tiles allow (wgmma_groups), else mma.sync's over the
 *    warps its GemmWarpPolicy picks and, for an A operand in a fragment, A's;
 *  - a kept T.reduce gives its destination the projection of its source's layout;
 *  - a T.Parallel nest (the outermost parallel loops) of constant extents that indexes a
 *    fragment with distinct nest variables, one per dimension, is mapped like a
 *    fragment it indexes with every nest variable (whose layout is known), and then
 *    gives the projection of that mapping to each fragment it touches. A nest with no
 *    such known fragment but an unknown one gets a blocked layout (16-byte runs of the
 *    last dimension per thread, threads next). An index may also be a nest variable
 *    plus an offset free of the nest's variables, a multiple of its extent and provably
 *    in range (interval.h): the nest then reads a window of a fragment whose layout is
 *    known elsewhere (frag_window), mapped like it, if every thread holds its part. A
 *    nest that reaches only the leading part of its fragments' dimensions is first
 *    widened to their whole extent, the rest skipped (widen_to_fragments). An
 *    index may also be the row-major position of several nest variables (a view of the
 *    fragment, T.reshape: s[i, j * H + k], ir_fused_vars): the fragment's layout with
 *    that dimension split (frag_split) stands for it.
 * On sm_90a a kernel also tries share mode (Infer.share: tiles read by several gemms,
 * transposed A on wgmma) and keeps it unless it leaves more fragments out of registers
 * or warpgroups idle (choose_mode); mma.sync gemms then read wgmma's panels. Warpgroups
 * that M leaves over split N (split_n) where that does better than replicas.
 * A fragment that meets two layouts that disagree, or is touched anywhere else (serial
 * code, a computed index, a nest of run-time extent), stays block-wide: the SIMT model
 * of map_threads.c, correct but slow. A kept op with such an operand is lowered to
 * loops and the inference starts over. So every program compiles; layouts only make it
 * faster. The generated source shows the decisions (a comment on each layout loop and
 * register array), and conflicts become remarks (Func.remarks) naming both lines.
 *
 * Provides: Buffer.layout on register fragments, For.layout on the nests that touch
 * them (and on no others), Buffer.swizzle on the shared operands of kept gemms whose
 * rows allow it (Buffer.panel too for wgmma operands wider than 128 bytes),
 * Stmt.gemm.warp_m/warp_n or Stmt.gemm.wgmma, Stmt.reduce.workspace (a shared buffer
 * allocated at the top of the kernel) when the reduced dimension spans warps. Every
 * register-fragment access sits in a nest with a layout consistent with the fragment's
 * (frag_consistent), indexed by the nest variables (plus window offsets); no register
 * fragment is accessed anywhere else except by the kept ops. */
#include "targets/cuda/passes/cuda_passes.h"
#include "ir/ir_walk.h"
#include "passes/interval.h"
#include "layout/frag.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_NEST = 16, MAX_REGS = 1024 };

typedef struct Access {
    Buffer *buf;
    bool write;
    int n;                   /* the buffer's dimensions */
    int dims[FRAG_MAX_DIMS]; /* nest position of each, -1 for one of extent 1 (index 0) */
    int covered;             /* nest variables used */
    /* a dimension indexed by the row-major position of several nest variables (a view of
     * the fragment, s[i, j * H + k]: ir_fused_vars), or -1: the access then has n =
     * ndim + nsplit - 1 dimensions, those of frag_split(layout, split, nsplit, split_ext) */
    int split, nsplit;
    int64_t split_ext[FRAG_MAX_DIMS];
    bool window; /* some index is a nest variable plus an offset (frag_window) */
} Access;

typedef struct Nest {
    Stmt *root;
    int nthreads; /* of the block, or of its T.ws region */
    int n;
    int64_t ext[MAX_NEST];
    Var *vars[MAX_NEST];
    int min_bytes; /* smallest element size the nest touches */
    Vec(Access) acc;
} Nest;

/* Where a fragment's layout came from (for the remark when another use disagrees). */
typedef struct Origin {
    const Buffer *buf;
    Loc loc;
    const char *what;
} Origin;

/* Warpgroups of a wgmma gemm along M and N (m = 0: mma.sync). */
typedef struct WgSplit {
    int m, n;
} WgSplit;

typedef struct Infer {
    Ctx *ctx;
    Func *f;
    bool wgmma; /* sm_90a: gemms may use wgmma */
    Vec(Origin) origins;
    Stmt *kernel;
    int nthreads;          /* of the block, or of the T.ws region being walked or constrained */
    Vec(Buffer *) demoted; /* kept across restarts */
    /* Tiles read by several gemms may be wgmma operands, and a transposed A too (sm_90a;
     * see choose_mode). */
    bool share;
    /* Warpgroups that M leaves over split N instead of being replicas (see choose_mode). */
    bool split_n;
    Vec(Nest *) nests;
    Vec(Stmt *) ops;       /* kept gemms and reduces */
    Vec(int) op_threads;   /* the threads that run each */
    Vec(Stmt *) op_region; /* the T.ws region (STMT_THREADS) of each, or NULL */
    Stmt *region;          /* the T.ws region being walked, or NULL */
    Nest *cur;             /* the nest being walked, or NULL */
    IvEnv env;             /* ranges of the variables in scope (window offsets) */
    int in_other;          /* > 0 inside a parallel nest that gets no layout */
    bool changed;
} Infer;

/* ---- candidates ------------------------------------------------------------------------- */
static bool demoted(const Infer *I, const Buffer *b) {
    for (int i = 0; i < I->demoted.len; i++)
        if (I->demoted.data[i] == b) return true;
    return false;
}

static void demote(Infer *I, Buffer *b) {
    if (demoted(I, b)) return;
    VEC_PUSH(&I->ctx->arena, I->demoted, b);
    b->layout = NULL;
    I->changed = true;
}

static bool const_shape(const Buffer *b, int64_t *shape) {
    if (b->ndim < 1 || b->ndim > FRAG_MAX_DIMS || b->strides) return false;
    for (int d = 0; d < b->ndim; d++)
        if (!ir_is_const_int(b->shape[d], &shape[d]) || shape[d] <= 0) return false;
    return true;
}

/* Extent d (0: rows, 1: columns) of the 2-D tiles of a gemm operand (ir_region_tile),
 * 0 when not constant. */
static int64_t tile_dim(const Buffer *b, int d) {
    int64_t n = 0;
    return ir_is_const_int(b->shape[b->ndim - 2 + d], &n) ? n : 0;
}

/* K of gemm s: the extent of its A region (a K slice's width, cuda_gemm_kslice). */
static int64_t gemm_k(const Stmt *s) {
    const Region *a = &s->u.gemm.a;
    int64_t k = 0;
    return ir_is_const_int(a->extent[a->ndim - (s->u.gemm.trans_a ? 2 : 1)], &k) ? k : 0;
}

/* A fragment that may still get a register layout. */
static bool candidate(Infer *I, const Buffer *b) {
    int64_t shape[FRAG_MAX_DIMS];
    return b->scope == SCOPE_FRAGMENT && !demoted(I, b) && const_shape(b, shape) &&
           b->dtype != DT_BOOL;
}

/* ---- collecting accesses ------------------------------------------------------------------ */
/* Whether a fragment dimension of extent dim can be indexed as nest variable (of extent
 * ext) + off with every element in its registers: off is a multiple of ext and provably in
 * [0, dim - ext]. */
static bool window_offset(const Infer *I, const Expr *off, int64_t ext, int64_t dim) {
    Interval r = iv_of(&I->env, off);
    return ext > 0 && ext < dim && ir_multiple_of(off, ext) && r.has_lo && r.lo >= 0 && r.has_hi &&
           r.hi <= dim - ext;
}

static void note_access(Infer *I, Buffer *b, Expr *const *idx, bool write) {
    if (!candidate(I, b)) return;
    Nest *N = I->cur;
    if (!N) {
        demote(I, b);
        return;
    }
    Access a = {.buf = b, .write = write, .split = -1};
    unsigned used = 0;
    for (int d = 0; d < b->ndim; d++) {
        int p = -1, pos[FRAG_MAX_DIMS];
        int64_t c, i;
        ir_is_const_int(b->shape[d], &c);
        if (c == 1 && ir_is_const_int(idx[d], &i) && i == 0) {
            a.dims[a.n++] = -1;
            continue;
        }
        const Expr *off;
        p = ir_var_plus_offset(idx[d], N->vars, N->n, &off);
        int m = p < 0 && a.split < 0 ? ir_fused_vars(idx[d], N->vars, N->n, N->ext, c, pos) : 0;
        if (m && a.n + (b->ndim - d) + m - 1 <= FRAG_MAX_DIMS) { /* a view's dimensions */
            a.split = d, a.nsplit = m;
            for (int t = 0; t < m; t++) {
                if (used >> pos[t] & 1) {
                    demote(I, b);
                    return;
                }
                used |= 1u << pos[t];
                a.split_ext[t] = N->ext[pos[t]];
                a.dims[a.n++] = pos[t];
                a.covered++;
            }
            continue;
        }
        bool fits = p >= 0 && (off ? window_offset(I, off, N->ext[p], c) : c == N->ext[p]);
        if (!fits || (used >> p & 1)) {
            demote(I, b);
            return;
        }
        a.window |= off != NULL;
        used |= 1u << p;
        a.dims[a.n++] = p;
        a.covered++;
    }
    if (a.window && a.split >= 0) {
        demote(I, b);
        return;
    }
    for (int i = 0; i < N->acc.len; i++) { /* one entry per (buffer, map) */
        const Access *o = &N->acc.data[i];
        bool same = o->buf == b && o->n == a.n && o->split == a.split;
        same &= o->window == a.window;
        for (int d = 0; same && d < a.n; d++) same = o->dims[d] == a.dims[d];
        if (same) {
            N->acc.data[i].write |= write;
            return;
        }
    }
    VEC_PUSH(&I->ctx->arena, N->acc, a);
}

static void note_bytes(Infer *I, const Buffer *b) {
    int bytes = dtype_bytes(b->dtype);
    if (I->cur && bytes > 0 && bytes < I->cur->min_bytes) I->cur->min_bytes = bytes;
}

static void walk_expr(Infer *I, Expr *e);
static void walk_expr_slot(Expr **slot, void *ud) { walk_expr(ud, *slot); }

static void walk_expr(Infer *I, Expr *e) {
    if (!e) return;
    if (e->kind == EXPR_LOAD) {
        note_bytes(I, e->u.load.buf);
        note_access(I, e->u.load.buf, e->u.load.idx, false);
    }
    ir_expr_children(e, walk_expr_slot, I);
}

static void walk_stmt(Infer *I, Stmt *s);
static void walk_child(Stmt **slot, void *ud) { walk_stmt(ud, *slot); }

/* ---- nests over a leading part of a fragment -------------------------------------------- */
/* The extent every dimension of a register fragment indexed by loop variable v alone has:
 * 0 while none is seen, -1 when they differ or v appears in such an index otherwise. */
typedef struct Prefix {
    Infer *I;
    const Var *v;
    int64_t dim;
} Prefix;

static void prefix_index(Prefix *p, const Buffer *b, Expr *const *idx) {
    if (!candidate(p->I, b)) return; /* (one in shared memory gains nothing) */
    for (int d = 0; d < b->ndim; d++) {
        int64_t c;
        if (idx[d]->kind == EXPR_VAR && idx[d]->u.var == p->v) {
            if (!ir_is_const_int(b->shape[d], &c)) c = -1;
            p->dim = p->dim == 0 || p->dim == c ? c : -1;
        } else if (ir_expr_uses_any(idx[d], &p->v, 1)) p->dim = -1;
    }
}

static void prefix_expr(Expr **slot, void *ud) {
    Expr *e = *slot;
    if (e->kind == EXPR_LOAD) prefix_index(ud, e->u.load.buf, e->u.load.idx);
    ir_expr_children(e, prefix_expr, ud);
}

static void prefix_stmt(Stmt **slot, void *ud) {
    Stmt *s = *slot;
    if (s->kind == STMT_STORE) prefix_index(ud, s->u.store.buf, s->u.store.idx);
    ir_stmt_exprs(s, prefix_expr, ud);
    ir_stmt_children(s, prefix_stmt, ud);
}

/* A nest that reaches only the leading part of the fragments it indexes (T.copy(acc[:4,
 * :], S), `for i in T.Parallel(4)` over a 64-row accumulator) runs over their whole
 * extent with the rest of the iterations skipped: `if (i < 4)` around its body. The
 * threads then hold their elements in the fragments' own layout, where a part that
 * splits no register window (rows of the threads of one warp) would keep the fragments
 * in shared memory. Each loop variable of constant extent that indexes fragment
 * dimensions of one larger constant extent, and no fragment otherwise, is widened. */
static void widen_to_fragments(Infer *I, Stmt *s) {
    Expr *guard = NULL;
    Stmt *inner = s;
    for (Stmt *l = s; l && l->kind == STMT_FOR && l->u.for_.kind == LOOP_PARALLEL;
         l = ir_only_stmt(l->u.for_.body)) {
        inner = l;
        int64_t lo, ext;
        if (!ir_is_const_int(l->u.for_.min, &lo) || lo != 0 ||
            !ir_is_const_int(l->u.for_.extent, &ext))
            continue;
        Prefix p = {.I = I, .v = l->u.for_.var};
        prefix_stmt(&l->u.for_.body, &p);
        if (p.dim <= ext) continue;
        Loc loc = l->loc;
        DType t = l->u.for_.extent->dtype;
        Expr *in = ir_bin(I->ctx, OP_LT, ir_varref(I->ctx, l->u.for_.var, loc),
                          ir_int(I->ctx, ext, t, loc), loc);
        guard = guard ? ir_bin(I->ctx, OP_AND, guard, in, loc) : in;
        l->u.for_.extent = ir_int(I->ctx, p.dim, t, loc);
    }
    if (!guard) return;
    Stmt *w = ir_stmt(I->ctx, STMT_IF, inner->loc);
    w->u.if_.cond = guard;
    w->u.if_.then = inner->u.for_.body;
    inner->u.for_.body = w;
}

/* A new nest rooted at parallel loop s (outside any other), walked. */
static void walk_nest(Infer *I, Stmt *s) {
    widen_to_fragments(I, s);
    Nest *N = NEW(&I->ctx->arena, Nest);
    N->root = s;
    N->nthreads = I->nthreads;
    N->min_bytes = 16;
    s->u.for_.layout = NULL;
    bool constant = true;
    Stmt *inner = s;
    for (Stmt *l = s;
         l && l->kind == STMT_FOR && l->u.for_.kind == LOOP_PARALLEL && N->n < MAX_NEST;
         l = ir_only_stmt(l->u.for_.body)) {
        int64_t lo, ext;
        if (!ir_is_const_int(l->u.for_.min, &lo) || lo != 0 ||
            !ir_is_const_int(l->u.for_.extent, &ext) || ext <= 0)
            constant = false;
        N->vars[N->n] = l->u.for_.var;
        N->ext[N->n++] = constant ? ext : 0;
        walk_expr(I, l->u.for_.min);
        walk_expr(I, l->u.for_.extent);
        inner = l;
    }
    bool laid = constant && N->n <= FRAG_MAX_DIMS;
    if (laid) {
        VEC_PUSH(&I->ctx->arena, I->nests, N);
        I->cur = N;
    }
    I->in_other += !laid; /* inner parallel loops are part of it: no nests of their own */
    walk_stmt(I, inner->u.for_.body);
    I->in_other -= !laid;
    I->cur = NULL;
}

static void walk_stmt(Infer *I, Stmt *s) {
    if (!s) return;
    int mark = I->env.len;
    iv_env_enter(&I->env, s);
    switch (s->kind) {
    case STMT_FOR:
        if (!I->cur && !I->in_other && s->u.for_.kind == LOOP_PARALLEL) {
            walk_nest(I, s);
            I->env.len = mark;
            return;
        }
        break;
    case STMT_STORE:
        note_bytes(I, s->u.store.buf);
        note_access(I, s->u.store.buf, s->u.store.idx, true);
        break;
    case STMT_ATOMIC:
        if (candidate(I, s->u.atomic.dst.buf)) demote(I, s->u.atomic.dst.buf);
        break;
    case STMT_EXTERN: /* (a pointer into a fragment is a front-end error) */
        for (int i = 0; i < s->u.extern_.nargs; i++)
            if (!s->u.extern_.args[i].value && candidate(I, s->u.extern_.args[i].buf))
                demote(I, s->u.extern_.args[i].buf);
        break;
    case STMT_PRINT:
        if (s->u.print.region.buf && candidate(I, s->u.print.region.buf))
            demote(I, s->u.print.region.buf);
        break;
    case STMT_GEMM:
    case STMT_REDUCE:
        if (I->cur) { /* inside a parallel loop: not a block-wide op, lowered */
            demote(I, s->kind == STMT_GEMM ? s->u.gemm.c.buf : s->u.reduce.src.buf);
            break;
        }
        VEC_PUSH(&I->ctx->arena, I->ops, s);
        VEC_PUSH(&I->ctx->arena, I->op_threads, I->nthreads);
        VEC_PUSH(&I->ctx->arena, I->op_region, I->region);
        break;
    case STMT_THREADS: { /* the region's fragments and nests span its threads */
        int outer = I->nthreads;
        Stmt *outer_region = I->region;
        I->nthreads = s->u.threads.count, I->region = s;
        walk_stmt(I, s->u.threads.body);
        I->nthreads = outer, I->region = outer_region;
        I->env.len = mark;
        return;
    }
    case STMT_ALLOC:
        if (s->u.alloc.buf->init && candidate(I, s->u.alloc.buf)) demote(I, s->u.alloc.buf);
        break;
    default: break;
    }
    ir_stmt_exprs(s, walk_expr_slot, I);
    ir_stmt_children(s, walk_child, I);
    if (s->kind != STMT_LET) I->env.len = mark; /* a let's var: to the end of its SEQ */
}

/* ---- constraints -------------------------------------------------------------------------- */
static const char *where(Infer *I, Loc loc) {
    return arena_printf(&I->ctx->arena, "%s:%d",
                        loc.src && loc.src->name ? loc.src->name : "<source>", loc.line);
}

/* b gets layout f, set by `what` at loc. */
static void assign(Infer *I, Buffer *b, const Frag *f, Loc loc, const char *what) {
    b->layout = f;
    I->changed = true;
    for (int i = 0; i < I->origins.len; i++)
        if (I->origins.data[i].buf == b) return;
    VEC_PUSH(&I->ctx->arena, I->origins, ((Origin){b, loc, what}));
}

/* Two uses of b want different layouts: b stays block-wide (slow but correct), and a
 * remark with both places goes to the compilation's warnings. */
static void conflict(Infer *I, Buffer *b, Loc loc, const char *what) {
    const char *from = "?";
    for (int i = 0; i < I->origins.len; i++)
        if (I->origins.data[i].buf == b)
            from = arena_printf(&I->ctx->arena, "%s at %s", I->origins.data[i].what,
                                where(I, I->origins.data[i].loc));
    VEC_PUSH(&I->ctx->arena, I->f->remarks,
             arena_printf(&I->ctx->arena,
                          "%s: note: fragment '%s' is kept in shared memory "
                          "(slower): the register layout the %s gives it does not fit this %s",
                          where(I, loc), b->name, from, what));
    demote(I, b);
}

/* An fp8 gemm that wgmma cannot run: a remark with what it would need. */
static void fp8_remark(Infer *I, const Stmt *s, int64_t M, int64_t N, int64_t K) {
    VEC_PUSH(&I->ctx->arena, I->f->remarks,
             arena_printf(&I->ctx->arena,
                          "%s: note: this fp8 T.gemm (%lldx%lldx%lld) runs on CUDA cores (slow): "
                          "fp8 tensor cores are sm_90a's wgmma, with A (M, K) and B (N, K) in "
                          "shared memory (transpose_B=True), K = 64 or a multiple of 128, M a "
                          "multiple of 64, N = 16, 32, 64, 128 or 256, threads a multiple of "
                          "128%s",
                          where(I, s->loc), (long long)M, (long long)N, (long long)K,
                          I->wgmma ? "" : " (this target is not sm_90a)"));
}

/* b must have layout f (exactly, for a kept op). */
static void require_exact(Infer *I, Buffer *b, const Frag *f, Loc loc, const char *what) {
    if (!candidate(I, b)) return;
    if (!f || f->nlocal > MAX_REGS) demote(I, b);
    else if (!b->layout) assign(I, b, f, loc, what);
    else if (!frag_equal(b->layout, f)) conflict(I, b, loc, what);
}

/* Warps (wm x wn = nwarps) for an M x N accumulator under the policy, or false. FullRow
 * puts every warp on M, or as many as M has 16-row tiles and the rest on N (FullCol
 * likewise, N's 8-column tiles), as TileLang's GemmWarpPolicy does: gemms of one row
 * count then agree on the rows' layout (sparse MLA's scores and output, 64 rows over 8
 * warps: 4 x 2 both). Square, and a split those cannot make: the most balanced tiles. */
static bool split_warps(GemmPolicy policy, int64_t M, int64_t N, int nwarps, int *wm, int *wn) {
    int m = policy == POLICY_FULL_ROW   ? (M % (16 * nwarps) ? (int)(M / 16) : nwarps)
            : policy == POLICY_FULL_COL ? (N % (8 * nwarps) ? nwarps / (int)(N / 8 ? N / 8 : 1) : 1)
                                        : 0;
    if (m >= 1 && m <= nwarps && nwarps % m == 0 && M % (16 * m) == 0 &&
        N % (8 * (nwarps / m)) == 0)
        return *wm = m, *wn = nwarps / m, true;
    double best = -1;
    for (int m = 1; m <= nwarps; m++) {
        if (nwarps % m || M % (16 * m) || N % (8 * (nwarps / m))) continue;
        double d = (double)M / m - (double)N / (nwarps / m);
        if (d < 0) d = -d;
        if ((N / (nwarps / m) / 8) % 2) d += 0.5; /* odd n8 tiles: half-width ldmatrix */
        if (best < 0 || d < best) best = d, *wm = m, *wn = nwarps / m;
    }
    return best >= 0;
}

/* The most warps (a divisor of the block's) that split the tile; the other warps are
 * replicas of these (a tile too small for the block). */
static bool pick_warps(GemmPolicy policy, int64_t M, int64_t N, int nwarps, int *wm, int *wn) {
    for (int use = nwarps; use >= 1; use--)
        if (nwarps % use == 0 && split_warps(policy, M, N, use, wm, wn)) return true;
    return false;
}

/* The number of kept gemms of the kernel that read b. */
static int gemm_readers(const Infer *I, const Buffer *b) {
    int n = 0;
    for (int i = 0; i < I->ops.len; i++) {
        const Stmt *s = I->ops.data[i];
        n += s->kind == STMT_GEMM && (s->u.gemm.a.buf == b || s->u.gemm.b.buf == b);
    }
    return n;
}

static bool fp8(DType t) { return t == DT_FLOAT8_E4M3 || t == DT_FLOAT8_E5M2; }

/* Whether K-major wgmma operand rows of this many bytes have a shared layout wgmma
 * reads: 64 bytes (the 64B swizzle) or whole 128-byte panels (the 128B swizzle; rows
 * over 128 bytes are stored as 128-byte column panels, Buffer.panel). */
static bool kmajor_rows(int64_t row) { return row == 64 || (row > 0 && row % 128 == 0); }

/* Whether every wgmma use of shared tile b lays it out alike: 16-bit rows of whole
 * 128-byte panels, which K-major and MN-major operands both store as 64-column panels of
 * 128B-swizzled rows (kmajor_layout, finish), so gemms that read one tile (attention
 * backward's Q and dO, as B of S = K Q^T and of dK = dS Q) can all be wgmmas. */
static bool alike_panels(const Buffer *b) {
    int64_t cols = tile_dim(b, 1);
    return b->scope == SCOPE_SHARED && dtype_bytes(b->dtype) == 2 && cols > 0 && cols % 64 == 0;
}

/* Whether shared tile b may be a wgmma operand as far as its other readers go. */
static bool sole_or_alike(const Infer *I, const Buffer *b) {
    return gemm_readers(I, b) == 1 || (I->share && alike_panels(b));
}

/* Whether one wgmma instruction may be NI columns wide (MN-major B: whole 64-column
 * panels). */
static bool wgmma_width(int64_t NI, bool kmajor_b) {
    return (NI == 16 || NI == 32 || NI == 64 || NI == 128 || NI == 192 || NI == 256) &&
           (kmajor_b || NI % 64 == 0);
}

/* Warpgroups for a wgmma gemm (sm_90a), m = 0 for mma.sync: A in shared memory [M][K]
 * (K-major, kmajor_rows: K = 32 or a multiple of 64 16-bit elements, 64 or a multiple
 * of 128 fp8), or [K][M] (transposed, 16-bit, in share mode), or a 16-bit register
 * fragment (K a multiple of 16; it takes the accumulator layout, tl_wgmma_rs); B [N][K]
 * (kmajor_rows) or (16-bit) [K][N]; shared operands read by this gemm only, or
 * alike_panels in share mode; M a multiple of 64. As many warpgroups as split M (m); in
 * split mode (Infer.split_n) the rest split N (n) where the columns allow (wgmma_width),
 * else they are replicas. */
static WgSplit wgmma_groups(const Infer *I, const Stmt *s, int64_t M, int64_t N, int64_t K) {
    const Buffer *A = s->u.gemm.a.buf, *B = s->u.gemm.b.buf;
    int64_t row = K * dtype_bytes(A->dtype);
    bool ta = s->u.gemm.trans_a, tb = s->u.gemm.trans_b;
    bool regs = A->scope == SCOPE_FRAGMENT && !demoted(I, A) && dtype_bytes(A->dtype) == 2 &&
                A->dtype == B->dtype && K % 16 == 0 && (!tb || kmajor_rows(row));
    bool kmajor = !ta && A->scope == SCOPE_SHARED && kmajor_rows(row) && sole_or_alike(I, A);
    bool mn_major = ta && I->share && alike_panels(A) && A->dtype == B->dtype && K % 16 == 0 &&
                    (!tb || kmajor_rows(row));
    WgSplit none = {0, 0};
    int nwg = I->nthreads / 128;
    if (!I->wgmma || s->u.gemm.e.buf || A->dtype == DT_INT8 || A->dtype == DT_FLOAT32 ||
        !(regs || kmajor || mn_major) || M % 64 || (!tb && fp8(B->dtype)) || I->nthreads % 128 ||
        !sole_or_alike(I, B) || A == B)
        return none;
    for (int m = nwg; m >= 1; m--) {
        if (nwg % m || M % (64 * m)) continue;
        for (int n = I->split_n ? nwg / m : 1; n >= 1; n--)
            if ((nwg / m) % n == 0 && N % n == 0 && wgmma_width(N / n, tb)) return (WgSplit){m, n};
    }
    return none;
}

/* wgmma_groups of gemm s, from its tiles' shapes. */
static WgSplit gemm_wgmma_groups(const Infer *I, const Stmt *s) {
    const Buffer *C = s->u.gemm.c.buf;
    int64_t M, N;
    if (!ir_is_const_int(C->shape[0], &M)) M = 0;
    if (!ir_is_const_int(C->shape[1], &N)) N = 0;
    return wgmma_groups(I, s, M, N, gemm_k(s));
}

/* Gemm s's warpgroups, where every kept gemm that accumulates into s's C could run with
 * as many: gemms that share an accumulator must agree on its register layout, and
 * mma.sync for all of them keeps C in registers where a mix would put it in shared
 * memory (MLA decode: Q K^T's B is also P V's, so it is mma.sync, and the rope part's
 * Q_pe K_pe^T into the same scores must be too). */
static WgSplit agreed_wgmma_groups(Infer *I, const Stmt *s) {
    WgSplit g = gemm_wgmma_groups(I, s);
    int own = I->nthreads;
    for (int i = 0; g.m && i < I->ops.len; i++) {
        const Stmt *t = I->ops.data[i];
        if (t == s || t->kind != STMT_GEMM || t->u.gemm.c.buf != s->u.gemm.c.buf) continue;
        I->nthreads = I->op_threads.data[i]; /* (t may be in another T.ws region) */
        WgSplit h = gemm_wgmma_groups(I, t);
        if (h.m != g.m || h.n != g.n) g.m = g.n = 0;
        I->nthreads = own;
    }
    return g;
}

static void gemm_constraints(Infer *I, Stmt *s) {
    Buffer *A = s->u.gemm.a.buf, *C = s->u.gemm.c.buf;
    int64_t M, N, K, c0, c1;
    M = ir_is_const_int(C->shape[0], &c0) ? c0 : 0;
    N = ir_is_const_int(C->shape[1], &c1) ? c1 : 0;
    K = gemm_k(s);
    WgSplit g = agreed_wgmma_groups(I, s);
    s->u.gemm.wgmma = g.m, s->u.gemm.wgmma_n = g.n;
    if (g.m) {
        require_exact(I, C, frag_wgmma_acc(&I->ctx->arena, M, N, g.m, g.n, I->nthreads), s->loc,
                      "T.gemm");
        if (A->scope == SCOPE_FRAGMENT) /* tl_wgmma_rs: A as an M x K accumulator */
            require_exact(I, A, frag_wgmma_a(&I->ctx->arena, M, K, g.m, g.n, I->nthreads), s->loc,
                          "T.gemm");
        return;
    }
    if (fp8(A->dtype)) { /* fp8 tensor cores are wgmma's only: the op is lowered to loops */
        if (!demoted(I, C)) fp8_remark(I, s, M, N, K);
        demote(I, C);
        return;
    }
    int wm = 0, wn = 0;
    if (I->nthreads % 32 || !pick_warps(s->u.gemm.policy, M, N, I->nthreads / 32, &wm, &wn)) {
        demote(I, C); /* no warp split: the op is lowered to loops */
        return;
    }
    s->u.gemm.warp_m = wm, s->u.gemm.warp_n = wn;
    require_exact(I, C, frag_mma_acc(&I->ctx->arena, M, N, wm, wn, I->nthreads), s->loc, "T.gemm");
    if (A->scope == SCOPE_FRAGMENT)
        require_exact(I, A,
                      (gemm_is_tf32(s) ? frag_mma_a_tf32 : frag_mma_a)(&I->ctx->arena, M, K, wm, wn,
                                                                       I->nthreads),
                      s->loc, "T.gemm");
}

static void reduce_constraints(Infer *I, Stmt *s) {
    Buffer *src = s->u.reduce.src.buf, *dst = s->u.reduce.dst.buf;
    if (!src->layout) return;
    int dims[FRAG_MAX_DIMS], n = 0, dim = s->u.reduce.dim;
    if (dim < 0) s->u.reduce.dim = dim += src->ndim;
    for (int d = 0; d < src->ndim; d++)
        if (d != dim) dims[n++] = d;
    if (dst->ndim != n) { /* a reduce that keeps the dimension as extent 1 */
        demote(I, dst);
        return;
    }
    require_exact(I, dst, frag_project(&I->ctx->arena, src->layout, n, dims), s->loc, "T.reduce");
}

/* The layout of the part of a's fragment that nest N reaches through a (all of it, or a
 * window of the nest's extents); NULL if that part is not a register window. */
static const Frag *accessed(Infer *I, const Nest *N, const Access *a) {
    if (a->split >= 0)
        return frag_split(&I->ctx->arena, a->buf->layout, a->split, a->nsplit, a->split_ext);
    if (!a->window) return a->buf->layout;
    int64_t ext[FRAG_MAX_DIMS];
    for (int d = 0; d < a->n; d++) ext[d] = a->dims[d] < 0 ? 1 : N->ext[a->dims[d]];
    return frag_window(&I->ctx->arena, a->buf->layout, ext);
}

/* The nest's mapping from a fragment it indexes with all its variables (through a
 * window: the window's digits, local ones renumbered densely). */
static const Frag *nest_from(Infer *I, const Nest *N, const Access *a) {
    const Frag *f = accessed(I, N, a);
    if (!f) return NULL;
    if (a->window) {
        int same[FRAG_MAX_DIMS];
        for (int d = 0; d < f->ndim; d++) same[d] = d;
        f = frag_project(&I->ctx->arena, f, f->ndim, same);
    }
    Frag *g = NEW(&I->ctx->arena, Frag);
    *g = *f;
    g->ndim = N->n;
    for (int d = 0; d < a->n; d++)
        if (a->dims[d] >= 0) g->shape[a->dims[d]] = f->shape[d];
    for (int i = 0; i < g->ndig; i++) g->dig[i].dim = a->dims[f->dig[i].dim];
    return g;
}

static void nest_constraints(Infer *I, Nest *N) {
    Frag *L = (Frag *)N->root->u.for_.layout;
    for (int i = 0; !L && i < N->acc.len; i++) {
        const Access *a = &N->acc.data[i];
        if (a->covered == N->n && a->buf->layout && !demoted(I, a->buf))
            L = (Frag *)nest_from(I, N, a);
    }
    if (!L) return;
    if (N->root->u.for_.layout != L) N->root->u.for_.layout = L, I->changed = true;
    for (int i = 0; i < N->acc.len; i++) {
        const Access *a = &N->acc.data[i];
        Buffer *b = a->buf;
        if (!candidate(I, b)) continue;
        if (a->write && a->covered < N->n) { /* written by some of the threads that hold it */
            demote(I, b);
            continue;
        }
        if (!b->layout) {
            if (a->window) continue; /* a window does not lay out the whole fragment */
            Frag *p = frag_project(&I->ctx->arena, L, a->n, a->dims);
            if (p && a->split >= 0) p = frag_merge(&I->ctx->arena, p, a->split, a->nsplit);
            if (!p || p->nlocal > MAX_REGS) demote(I, b);
            else assign(I, b, p, N->root->loc, "T.Parallel loop");
        } else {
            const Frag *part = accessed(I, N, a);
            if (!part || !frag_consistent(L, part, a->n, a->dims))
                conflict(I, b, N->root->loc, "T.Parallel loop");
        }
    }
}

/* The first nest without a mapping that indexes an unknown fragment with all its
 * variables gets a blocked one. */
static bool seed_blocked(Infer *I) {
    for (int i = 0; i < I->nests.len; i++) {
        Nest *N = I->nests.data[i];
        if (N->root->u.for_.layout) continue;
        for (int k = 0; k < N->acc.len; k++) {
            const Access *a = &N->acc.data[k];
            if (a->covered != N->n || a->window || a->buf->layout || !candidate(I, a->buf))
                continue;
            Frag *L = frag_blocked(&I->ctx->arena, N->n, N->ext, N->nthreads,
                                   16 / (N->min_bytes > 0 ? N->min_bytes : 1));
            if (!L || L->nlocal > MAX_REGS) {
                demote(I, a->buf);
                return true;
            }
            N->root->u.for_.layout = L;
            return true;
        }
    }
    return false;
}

/* A nest left without a mapping cannot touch register fragments, nor one with a mapping
 * a window of a fragment that got no layout: they are demoted. */
static bool demote_unmapped(Infer *I) {
    bool any = false;
    for (int i = 0; i < I->nests.len; i++) {
        Nest *N = I->nests.data[i];
        for (int k = 0; k < N->acc.len; k++) {
            Buffer *b = N->acc.data[k].buf;
            bool mapped = N->root->u.for_.layout != NULL;
            if ((!mapped && b->layout) ||
                (mapped && N->acc.data[k].window && !b->layout && candidate(I, b)))
                demote(I, b), any = true;
        }
    }
    return any;
}

/* ---- after the fixed point ------------------------------------------------------------------ */
static bool op_ready(const Stmt *s) {
    if (s->kind == STMT_GEMM) {
        const Buffer *A = s->u.gemm.a.buf, *C = s->u.gemm.c.buf;
        return C->layout && (A->scope != SCOPE_FRAGMENT || A->layout);
    }
    return s->u.reduce.src.buf->layout && s->u.reduce.dst.buf->layout;
}

/* Replaces a kept op that cannot run as kept by its loops; true if any. */
static bool lower_unready(Infer *I, Stmt **slot);
static void lower_slot(Stmt **slot, void *ud) {
    Infer *I = ud;
    if (lower_unready(I, slot)) I->changed = true;
}

static bool lower_unready(Infer *I, Stmt **slot) {
    Stmt *s = *slot;
    if ((s->kind == STMT_GEMM || s->kind == STMT_REDUCE) && !op_ready(s)) {
        if (s->kind == STMT_GEMM && s->u.gemm.manual) cuda_fail_manual_gemm(I->ctx, s);
        *slot = lower_tile_op(I->ctx, s);
        return true;
    }
    ir_stmt_children(s, lower_slot, I);
    return false;
}

/* Shared rows of a power of two of 16 bytes or more, in whole 1024-byte tiles, are
 * swizzled (tl_swizzle): the gemm's ldmatrix reads are then free of bank conflicts. A
 * tile already in 128-byte panels (a wgmma operand, a TMA store's) stays so: mma.sync
 * reads panels too (TL_SMEM_PANELS). */
static void swizzle_operand(const Buffer *b_const) {
    Buffer *b = (Buffer *)b_const;
    int64_t shape[FRAG_MAX_DIMS];
    if (b->scope != SCOPE_SHARED || b->panel || !const_shape(b, shape)) return;
    int64_t row = shape[b->ndim - 1] * dtype_bytes(b->dtype), total = row;
    for (int d = 0; d < b->ndim - 1; d++) total *= shape[d];
    int shift = 7;
    while ((1ll << shift) < row) shift++;
    if (row >= 16 && (row & (row - 1)) == 0 && total % (8ll << shift) == 0) b->swizzle = (int)row;
}

/* The elements of the shared workspace a reduction needs where its reduced dimension
 * spans warps (0 when it does not): for each round (emit_tiles.c red_workspace), one
 * value per destination register and thread, the threads that hold one value collapsed
 * (frag_reduce_uniform). */
static int64_t reduce_ws_elems(const Stmt *s, int nthreads) {
    const Frag *src = s->u.reduce.src.buf->layout, *dst = s->u.reduce.dst.buf->layout;
    int64_t elems = 0;
    for (int i = 0; i < src->ndig; i++) {
        const FragDigit *d = &src->dig[i];
        if (!d->thread || d->dim != s->u.reduce.dim || frag_digit_warp_lanes(d) >= d->extent)
            continue;
        FragDigit u[FRAG_MAX_DIGITS];
        int nu = frag_reduce_uniform(src, s->u.reduce.dim, i, u);
        int64_t slots = 0;
        for (int64_t tid = 0; tid < nthreads; tid++) {
            int64_t slot = frag_collapse(tid, u, nu) + 1;
            if (slot > slots) slots = slot;
        }
        if (slots * dst->nlocal > elems) elems = slots * dst->nlocal;
    }
    return elems;
}

/* Gives reduction s a workspace: the one of the reductions before it of the same dtype
 * in the same T.ws region (grown to fit), else a new shared buffer. They can share it:
 * each reduction's round ends with a barrier after its reads, and reductions of one
 * region run one after another. */
static void reduce_workspace(Infer *I, Stmt *s, Stmt *region, StmtList *allocs,
                             StmtList *ws_regions) {
    int64_t elems = reduce_ws_elems(s, I->nthreads), have;
    if (!elems) return;
    DType t = s->u.reduce.dst.buf->dtype;
    for (int i = 0; i < allocs->len; i++) {
        Buffer *w = allocs->data[i]->u.alloc.buf;
        if (w->dtype != t || ws_regions->data[i] != region) continue;
        if (ir_is_const_int(w->shape[0], &have) && have < elems)
            w->shape[0] = ir_int(I->ctx, elems, DT_INT32, s->loc);
        s->u.reduce.workspace = w;
        return;
    }
    Buffer *w = ir_buffer(I->ctx, "red_buf", t, SCOPE_SHARED, 1, s->loc);
    w->shape[0] = ir_int(I->ctx, elems, DT_INT32, s->loc);
    s->u.reduce.workspace = w;
    Stmt *a = ir_stmt(I->ctx, STMT_ALLOC, s->loc);
    a->u.alloc.buf = w;
    VEC_PUSH(&I->ctx->arena, *allocs, a);
    VEC_PUSH(&I->ctx->arena, *ws_regions, region);
}

/* T.annotate_layout of a shared buffer with a swizzled layout (make_swizzled_layout):
 * the buffer gets this target's swizzle where its shape allows. Other annotations are
 * hints that inference does not need (its own layouts are used). */
static void annotated_swizzles(Stmt *s);
static void annotated_slot(Stmt **slot, void *ud) {
    (void)ud;
    annotated_swizzles(*slot);
}

static void annotated_swizzles(Stmt *s) {
    if (s->kind == STMT_ANNOTATE_LAYOUT && s->u.annotate.layout &&
        strstr(s->u.annotate.layout, "swizzle"))
        swizzle_operand(s->u.annotate.buf);
    ir_stmt_children(s, annotated_slot, NULL);
}

/* Shared tiles that a layout nest stores into (a fragment staged through shared memory,
 * e.g. an epilogue before 16-byte global stores) are swizzled where their rows allow: a
 * warp's stores of 8 rows at one column then hit distinct banks. */
static void staged_swizzles(Stmt **slot, void *ud) {
    Stmt *s = *slot;
    bool in_layout = *(bool *)ud || (s->kind == STMT_FOR && s->u.for_.layout);
    if (in_layout && s->kind == STMT_STORE && !s->u.store.buf->swizzle)
        swizzle_operand(s->u.store.buf);
    ir_stmt_children(s, staged_swizzles, &in_layout);
}

/* The 16-bit shared tiles that TMA stores read (cuda_tma_store_candidate) with rows over
 * 128 bytes: 64-column panels of 128B-swizzled rows, one TMA box each. */
static void stored_panels(Stmt **slot, void *ud) {
    Infer *I = ud;
    Stmt *s = *slot;
    if (s->kind == STMT_COPY && cuda_tma_store_candidate(&I->ctx->opts, I->f, I->kernel, s)) {
        Buffer *b = s->u.copy.src.buf;
        int64_t shape[FRAG_MAX_DIMS];
        if (b->ndim == 2 && dtype_bytes(b->dtype) == 2 && const_shape(b, shape) && shape[1] > 64 &&
            shape[1] % 64 == 0 && shape[0] % 8 == 0 && !gemm_readers(I, b))
            b->swizzle = 128, b->panel = 64;
    }
    ir_stmt_children(s, stored_panels, ud);
}

/* A K-major wgmma operand with rows of `row` bytes (kmajor_rows): tl_swizzle's 64B or
 * 128B pattern, in 128-byte column panels when wider (tl_kmajor_off). */
static void kmajor_layout(Buffer *b, int row) {
    b->swizzle = row < 128 ? row : 128;
    if (row > 128) b->panel = 128 / dtype_bytes(b->dtype);
}

/* The swizzled shared tiles of wgmma gemm s: K-major operands as kmajor_layout (by the
 * tile's rows: a K slice is whole panels of it), MN-major ones in 64-column panels of
 * 128B-swizzled rows. */
static void wgmma_layouts(const Stmt *s) {
    Buffer *A = s->u.gemm.a.buf, *B = s->u.gemm.b.buf;
    int64_t n = tile_dim(B, 1);
    if (s->u.gemm.trans_a) {
        A->swizzle = 128, A->panel = tile_dim(A, 1) > 64 ? 64 : 0;
    } else if (A->scope == SCOPE_SHARED)
        kmajor_layout(A, (int)tile_dim(A, 1) * dtype_bytes(A->dtype));
    if (s->u.gemm.trans_b) kmajor_layout(B, (int)tile_dim(B, 1) * dtype_bytes(B->dtype));
    else B->swizzle = 128, B->panel = n > 64 ? 64 : 0;
}

/* A K slice operand's tile in 128-byte column panels (cuda_gemm_kslice). */
static void sliced_panels(const Stmt *s, const Region *r) {
    if (!cuda_gemm_kslice(s, r)) return;
    r->buf->swizzle = 128, r->buf->panel = 128 / dtype_bytes(r->buf->dtype);
}

static void finish(Infer *I) {
    StmtList allocs = {0};
    StmtList ws_regions = {0}; /* the T.ws region of each of allocs */
    annotated_swizzles(I->kernel->u.kernel.body);
    stored_panels(&I->kernel->u.kernel.body, I);
    bool outside = false;
    staged_swizzles(&I->kernel->u.kernel.body, &outside);
    for (int i = 0; i < I->ops.len; i++) { /* mma.sync tiles first: wgmma's layouts win */
        Stmt *s = I->ops.data[i];
        if (s->kind == STMT_GEMM && !s->u.gemm.wgmma) {
            swizzle_operand(s->u.gemm.a.buf);
            swizzle_operand(s->u.gemm.b.buf);
        }
    }
    for (int i = 0; i < I->ops.len; i++) { /* K slices read panels (mma.sync too) */
        Stmt *s = I->ops.data[i];
        if (s->kind == STMT_GEMM) sliced_panels(s, &s->u.gemm.a), sliced_panels(s, &s->u.gemm.b);
    }
    for (int i = 0; i < I->ops.len; i++) {
        Stmt *s = I->ops.data[i];
        if (s->kind == STMT_GEMM && s->u.gemm.wgmma) wgmma_layouts(s);
        else if (s->kind != STMT_GEMM) {
            I->nthreads = I->op_threads.data[i];
            reduce_workspace(I, s, I->op_region.data[i], &allocs, &ws_regions);
        }
    }
    if (!allocs.len) return;
    Stmt *body = I->kernel->u.kernel.body, *seq = ir_seq(I->ctx, body->loc);
    for (int i = 0; i < allocs.len; i++) ir_seq_push(I->ctx, seq, allocs.data[i]);
    ir_seq_push(I->ctx, seq, body);
    I->kernel->u.kernel.body = seq;
}

static void clear_layouts(Stmt *s);
static void clear_slot(Stmt **slot, void *ud) {
    (void)ud;
    clear_layouts(*slot);
}

/* Forgets the decisions of a previous round (kept: the demoted set). */
static void clear_layouts(Stmt *s) {
    if (s->kind == STMT_FOR) s->u.for_.layout = NULL;
    if (s->kind == STMT_ALLOC) s->u.alloc.buf->layout = NULL;
    ir_stmt_children(s, clear_slot, NULL);
}

/* Whether the global loads of e are vectors over runs of V of v, or one value per run. */
static bool loads_by_runs(const Expr *e, const Var *v, int64_t V) {
    if (e->kind == EXPR_LOAD && e->u.load.buf->scope == SCOPE_GLOBAL &&
        !cuda_run_vector(e->u.load.buf, e->u.load.idx, v, V)) {
        for (int d = 0; d < e->u.load.buf->ndim; d++)
            if (!cuda_run_uniform(e->u.load.idx[d], v, V)) return false;
    }
    switch (e->kind) {
    case EXPR_BIN: return loads_by_runs(e->u.bin.a, v, V) && loads_by_runs(e->u.bin.b, v, V);
    case EXPR_UN: return loads_by_runs(e->u.un.a, v, V);
    case EXPR_CAST: return loads_by_runs(e->u.cast.value, v, V);
    case EXPR_SELECT:
        return loads_by_runs(e->u.select.cond, v, V) && loads_by_runs(e->u.select.then, v, V) &&
               loads_by_runs(e->u.select.orelse, v, V);
    case EXPR_CALL:
        for (int i = 0; i < intrinsic_nargs(e->u.call.fn); i++)
            if (!loads_by_runs(e->u.call.args[i], v, V)) return false;
        return true;
    default: return true;
    }
}

/* A nest that touches no register fragment and whose body is one store to global or
 * shared memory in runs of 16 bytes of its smallest element, whose global loads come in
 * such runs too (or are one value per run: no strided scalar loads), gets a blocked
 * layout: each thread then moves whole vectors (emit_tiles.c). NULL for the others, which
 * stay distributed element by element. */
static const Frag *vector_layout(Infer *I, const Nest *N) {
    int64_t V = 16 / (N->min_bytes > 0 ? N->min_bytes : 16);
    const Stmt *s = N->root;
    for (int k = 1; k < N->n; k++) s = ir_only_stmt(s->u.for_.body);
    const Var *v = N->vars[N->n - 1];
    const Stmt *body = ir_only_stmt(s->u.for_.body);
    if (V < 2 || N->ext[N->n - 1] % V || body->kind != STMT_STORE) return NULL;
    const Buffer *b = body->u.store.buf;
    int64_t bytes = V * dtype_bytes(b->dtype);
    if ((b->scope != SCOPE_GLOBAL && b->scope != SCOPE_SHARED) || bytes % 4 || bytes > 64 ||
        !cuda_run_vector(b, body->u.store.idx, v, V) || !loads_by_runs(body->u.store.value, v, V))
        return NULL;
    Frag *L = frag_blocked(&I->ctx->arena, N->n, N->ext, N->nthreads, (int)V);
    return L && L->nlocal <= MAX_REGS ? L : NULL;
}

/* Whether share mode could change a decision: a kept gemm with a transposed A or a
 * shared operand that another kept gemm reads too. */
static bool share_matters(const Infer *I) {
    for (int i = 0; i < I->ops.len; i++) {
        const Stmt *s = I->ops.data[i];
        if (s->kind == STMT_GEMM && (s->u.gemm.trans_a || gemm_readers(I, s->u.gemm.a.buf) > 1 ||
                                     gemm_readers(I, s->u.gemm.b.buf) > 1))
            return true;
    }
    return false;
}

/* How good a solution is, worst first: fragments out of registers (one passed between an
 * mma.sync gemm and a wgmma gemm, whose register layouts differ), wgmma gemms with
 * warpgroups as replicas (M = 64 in 256 threads: mma.sync or an N split use them all),
 * gemms not on wgmma. Shared tiles do not count: mma.sync reads wgmma's panels. */
typedef struct Score {
    int demoted, replicas, simt;
} Score;

static Score score(const Infer *I, int demoted_mark) {
    Score r = {I->demoted.len - demoted_mark, 0, 0};
    for (int i = 0; i < I->ops.len; i++) {
        const Stmt *s = I->ops.data[i];
        if (s->kind != STMT_GEMM) continue;
        r.simt += !s->u.gemm.wgmma;
        r.replicas += s->u.gemm.wgmma &&
                      s->u.gemm.wgmma * s->u.gemm.wgmma_n * 128 != I->op_threads.data[i];
    }
    return r;
}

static bool worse(Score a, Score b) {
    if (a.demoted != b.demoted) return a.demoted > b.demoted;
    if (a.replicas != b.replicas) return a.replicas > b.replicas;
    return a.simt > b.simt;
}

/* Walks kernel k and solves its constraints to a fixed point (no lowering). */
static void solve(Infer *I, Stmt *k) {
    const int *th = k->u.kernel.threads;
    clear_layouts(k->u.kernel.body);
    I->nests.len = 0, I->ops.len = 0, I->op_threads.len = 0, I->op_region.len = 0;
    I->cur = NULL, I->region = NULL;
    I->nthreads = th[0] * th[1] * th[2];
    int mark = I->env.len;
    iv_env_enter(&I->env, k);
    walk_stmt(I, k->u.kernel.body);
    I->env.len = mark;
    do {
        do {
            I->changed = false;
            for (int i = 0; i < I->ops.len; i++) {
                Stmt *s = I->ops.data[i];
                I->nthreads = I->op_threads.data[i];
                if (s->kind == STMT_GEMM) gemm_constraints(I, s);
                else reduce_constraints(I, s);
            }
            for (int i = 0; i < I->nests.len; i++) nest_constraints(I, I->nests.data[i]);
        } while (I->changed);
    } while (seed_blocked(I) || demote_unmapped(I));
}

/* Solves kernel k in the best of its modes (sm_90a): plain, share mode (where
 * share_matters), and each of those with split_n (where it leaves replicas); on a tie the
 * later mode. The kernel's solution is the last solve's. What a rejected mode demoted,
 * and its remarks, are forgotten (nothing is lowered before the choice). */
static void choose_mode(Infer *I, Stmt *k) {
    int demoted_mark = I->demoted.len, remarks_mark = I->f->remarks.len;
    I->share = I->split_n = false;
    solve(I, k);
    if (!I->wgmma) return;
    bool share = share_matters(I);
    Score best = score(I, demoted_mark), got[4] = {best};
    int pick = 0, last = 0;
    for (int mode = 1; mode < 4; mode++) {
        if ((mode & 1 && !share) || (mode & 2 && !got[mode & 1].replicas)) continue;
        I->share = mode & 1, I->split_n = mode & 2;
        I->demoted.len = demoted_mark, I->f->remarks.len = remarks_mark;
        solve(I, k);
        got[mode] = score(I, demoted_mark), last = mode;
        if (!worse(got[mode], best)) best = got[mode], pick = mode;
    }
    if (pick == last) return;
    I->share = pick & 1, I->split_n = pick & 2;
    I->demoted.len = demoted_mark, I->f->remarks.len = remarks_mark;
    solve(I, k);
}

static void infer_kernel(Infer *I, Stmt *k) {
    I->kernel = k;
    choose_mode(I, k);
    for (;;) {
        I->changed = false;
        lower_unready(I, &k->u.kernel.body);
        if (!I->changed) break; /* else: new loops from lowered ops; start over */
        solve(I, k);
    }
    for (int i = 0; i < I->nests.len; i++) { /* nests that touch no register fragment */
        Nest *N = I->nests.data[i];
        bool any = false;
        for (int a = 0; a < N->acc.len; a++) any |= N->acc.data[a].buf->layout != NULL;
        if (!any) N->root->u.for_.layout = vector_layout(I, N);
    }
    finish(I);
}

static void infer_stmt(Infer *I, Stmt *s);
static void infer_slot(Stmt **slot, void *ud) { infer_stmt(ud, *slot); }

static void infer_stmt(Infer *I, Stmt *s) {
    if (s->kind == STMT_KERNEL) infer_kernel(I, s);
    else ir_stmt_children(s, infer_slot, I);
}

void pass_infer_layouts(Ctx *ctx, Func *f) {
    Infer I = {.ctx = ctx, .f = f, .wgmma = options_wgmma(&ctx->opts)};
    if (f->body) infer_stmt(&I, f->body);
    iv_env_free(&I.env);
}

/* ---- which tile ops the CUDA target keeps -------------------------------------------------- */
static bool mma_input(DType t) {
    return t == DT_FLOAT16 || t == DT_BFLOAT16 || fp8(t) || t == DT_INT8;
}

/* The operand shapes and places a kept gemm needs, whatever its dtypes: C a whole 2-D
 * register fragment, B a shared tile, A a shared tile or a 2-D fragment (not transposed),
 * all of constant shape; a shared tile may be a K slice of whole panels of one. */
static bool gemm_places(const Stmt *s) {
    const Buffer *A = s->u.gemm.a.buf, *B = s->u.gemm.b.buf, *C = s->u.gemm.c.buf;
    int64_t shape[FRAG_MAX_DIMS];
    return C->scope == SCOPE_FRAGMENT && B->scope == SCOPE_SHARED &&
           (A->scope == SCOPE_SHARED ||
            (A->scope == SCOPE_FRAGMENT && !s->u.gemm.trans_a && A->ndim == 2)) &&
           C->ndim == 2 && (ir_region_tile(&s->u.gemm.a) || cuda_gemm_kslice(s, &s->u.gemm.a)) &&
           (ir_region_tile(&s->u.gemm.b) || cuda_gemm_kslice(s, &s->u.gemm.b)) &&
           ir_region_whole(&s->u.gemm.c) && const_shape(A, shape) && const_shape(B, shape) &&
           const_shape(C, shape);
}

bool cuda_gemm_kslice(const Stmt *s, const Region *r) {
    const Buffer *b = r->buf;
    int es = dtype_bytes(b->dtype);
    bool k_last = r == &s->u.gemm.a ? !s->u.gemm.trans_a : r == &s->u.gemm.b && s->u.gemm.trans_b;
    return k_last && b->scope == SCOPE_SHARED && (es == 2 || fp8(b->dtype)) &&
           tile_dim(b, 0) % 8 == 0 && !ir_region_tile(r) && ir_region_col_slice(r, 128 / es);
}

bool cuda_keep_tile_op(const Stmt *s) {
    if (s->kind == STMT_COPY) return cuda_copy_vector(s) > 0;
    if (s->kind == STMT_GEMM) {
        const Buffer *A = s->u.gemm.a.buf, *B = s->u.gemm.b.buf, *C = s->u.gemm.c.buf;
        if (!gemm_places(s)) return false;
        if (s->u.gemm.e.buf) return cuda_gemm_sp_kept(s);
        if (gemm_is_tf32(s)) /* mma.sync m16n8k8 tf32: M a multiple of 16, K of 8 */
            return tile_dim(A, s->u.gemm.trans_a) % 16 == 0 &&
                   tile_dim(A, !s->u.gemm.trans_a) % 8 == 0;
        bool same = A->dtype == B->dtype || (fp8(A->dtype) && fp8(B->dtype));
        bool s8 = A->dtype == DT_INT8; /* int32 accumulation, A in shared memory, k32 */
        return same && mma_input(A->dtype) && mma_input(B->dtype) &&
               C->dtype == (s8 ? DT_INT32 : DT_FLOAT32) && !(s8 && A->scope == SCOPE_FRAGMENT) &&
               tile_dim(A, 0) % 16 == 0 && tile_dim(A, 1) % 16 == 0 &&
               !(s8 && tile_dim(A, s->u.gemm.trans_a ? 0 : 1) % 32);
    }
    if (s->kind == STMT_REDUCE) {
        const Buffer *src = s->u.reduce.src.buf, *dst = s->u.reduce.dst.buf;
        int64_t shape[FRAG_MAX_DIMS];
        DType t = dst->dtype; /* partial results shuffled as 32/64-bit values */
        bool wide = t == DT_FLOAT32 || t == DT_FLOAT64 || t == DT_FLOAT16 || t == DT_BFLOAT16 ||
                    t == DT_INT32 || t == DT_INT64 || t == DT_UINT32 || t == DT_UINT64;
        return src->scope == SCOPE_FRAGMENT && dst->scope == SCOPE_FRAGMENT && wide &&
               ir_region_whole(&s->u.reduce.src) && ir_region_whole(&s->u.reduce.dst) &&
               const_shape(src, shape) && const_shape(dst, shape) && src->dtype != DT_BOOL;
    }
    return false;
}
