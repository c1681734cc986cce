/* cuda_plan.c - where a kernel's buffers live, the launch plan of a lowered Func, and the
 * evaluation of grid and size expressions at launch (cuda.h). The emitter, cuda_plan and
 * pass_insert_sync_threads (which must see two buffers sharing bytes as one) derive the
 * shared-memory layout from the lowered IR with cuda_kernel_buffers, so the offsets in
 * the source, smem_bytes and the barriers always agree. */
#include "cuda_emit.h"
#include "ir_walk.h"
#include "layout/frag.h"

#include "../../../runtime/c/tl_c.h" /* the integer helpers of the generated code */

/* ---- buffers of a kernel ------------------------------------------------------------------ */
static int64_t buffer_elems(const Buffer *b) {
    int64_t n = 1, c;
    for (int d = 0; d < b->ndim; d++) {
        if (!ir_is_const_int(b->shape[d], &c)) return -1;
        if (c <= 0) return 0;
        if (__builtin_mul_overflow(n, c, &n)) return -1;
    }
    return n;
}

/* ---- lifetimes ------------------------------------------------------------------------------ */
/* The kernel body's statements in order, nested sequences flattened: a buffer is live
 * from the first to the last of them that touches it (a loop touches what its body
 * does, so a buffer used in a loop lives through all of it). */
typedef struct Life {
    Buffer *buf;
    int first, last; /* statement indices, -1 when never touched */
    bool fresh;      /* the first statement writes all of it before any read */
} Life;

typedef Vec(Stmt *) StmtOrder;

/* The statements first .. end - 1 of a one-armed if's branch (numbered in line). */
typedef struct Span {
    int first, end;
} Span;

typedef struct LifeWalk {
    Vec(Life) lives;
    Vec(Span) ifs;
    int at; /* index of the statement being walked */
} LifeWalk;

static Life *life_of(LifeWalk *w, const Buffer *b) {
    for (int i = 0; i < w->lives.len; i++)
        if (w->lives.data[i].buf == b) return &w->lives.data[i];
    return NULL;
}

static void life_touch(LifeWalk *w, const Buffer *b) {
    Life *l = b ? life_of(w, b) : NULL;
    if (!l) return;
    if (l->first < 0) l->first = w->at;
    l->last = w->at;
}

static void life_expr(Expr **slot, void *ud) {
    const Expr *e = *slot;
    if (e->kind == EXPR_LOAD) life_touch(ud, e->u.load.buf);
    ir_expr_children((Expr *)e, life_expr, ud);
}

static void life_region(Region *r, void *ud) { life_touch(ud, r->buf); }

static void life_stmt(Stmt **slot, void *ud) {
    LifeWalk *w = ud;
    Stmt *s = *slot;
    if (s->kind == STMT_ALLOC || s->kind == STMT_ANNOTATE_LAYOUT) return; /* not a use */
    if (s->kind == STMT_STORE) life_touch(w, s->u.store.buf);
    if (s->kind == STMT_REDUCE) life_touch(w, s->u.reduce.workspace);
    ir_stmt_regions(s, life_region, ud);
    ir_stmt_exprs(s, life_expr, ud);
    ir_stmt_children(s, life_stmt, ud);
}

typedef struct LoadOf {
    const Buffer *b;
    bool found;
} LoadOf;

static void load_of(Expr **slot, void *ud) {
    LoadOf *l = ud;
    if ((*slot)->kind == EXPR_LOAD && (*slot)->u.load.buf == l->b) l->found = true;
    ir_expr_children(*slot, load_of, ud);
}

static bool loads_buf(Expr *e, const Buffer *b) {
    LoadOf l = {b, false};
    load_of(&e, &l);
    return l.found;
}

/* Whether statement s writes every element of b before anything reads it: a whole-
 * buffer copy into it, a reduction's workspace, a parallel nest whose only statement
 * stores b at its loop variables over all of b, without reading b, or a serial loop that
 * runs and whose body starts (past barriers) with one of those. */
static bool writes_whole(const Stmt *s, const Buffer *b) {
    s = ir_only_stmt((Stmt *)s);
    int64_t trips;
    if (s->kind == STMT_FOR && s->u.for_.kind != LOOP_PARALLEL &&
        ir_is_const_int(s->u.for_.extent, &trips) && trips > 0) {
        const Stmt *body = s->u.for_.body;
        if (body->kind == STMT_SEQ) { /* past barriers: they touch no memory */
            int i = 0;
            while (i < body->u.seq.len && body->u.seq.data[i]->kind == STMT_SYNC) i++;
            body = i < body->u.seq.len ? body->u.seq.data[i] : NULL;
        }
        return body && writes_whole(body, b);
    }
    if (s->kind == STMT_COPY)
        return s->u.copy.dst.buf == b && s->u.copy.src.buf != b && ir_region_whole(&s->u.copy.dst);
    if (s->kind == STMT_REDUCE) return s->u.reduce.workspace == b;
    if (s->kind != STMT_FOR || s->u.for_.kind != LOOP_PARALLEL || b->ndim > 8) return false;
    const Var *vars[8];
    int n = 0;
    for (; s->kind == STMT_FOR && s->u.for_.kind == LOOP_PARALLEL && n < b->ndim;
         s = ir_only_stmt(s->u.for_.body)) {
        int64_t lo, ext, dim;
        if (!ir_is_const_int(s->u.for_.min, &lo) || lo ||
            !ir_is_const_int(s->u.for_.extent, &ext) || !ir_is_const_int(b->shape[n], &dim) ||
            ext != dim)
            return false;
        vars[n++] = s->u.for_.var;
    }
    if (n != b->ndim || s->kind != STMT_STORE || s->u.store.buf != b ||
        loads_buf(s->u.store.value, b))
        return false;
    for (int d = 0; d < n; d++)
        if (s->u.store.idx[d]->kind != EXPR_VAR || s->u.store.idx[d]->u.var != vars[d])
            return false;
    return true;
}

/* Numbers the kernel body's statements (sequences flattened) and records lifetimes. A
 * warp-specialized part: the consumer's statements in order, and what the producer
 * touches (it runs beside all of them) live from the first to the last. A one-armed if
 * whose condition reads no memory is flattened too (a split-K unit's epilogue): a
 * buffer first written whole in it is fresh if it also dies in it (fresh_in_ifs). */
static void lives_seq(LifeWalk *w, Stmt *s, StmtOrder *order, Arena *a) {
    if (s->kind == STMT_SEQ) {
        for (int i = 0; i < s->u.seq.len; i++) lives_seq(w, s->u.seq.data[i], order, a);
        return;
    }
    if (s->kind == STMT_IF && !s->u.if_.orelse && !ir_expr_loads(s->u.if_.cond)) {
        int first = order->len;
        lives_seq(w, s->u.if_.then, order, a);
        VEC_PUSH(a, w->ifs, ((Span){first, order->len}));
        return;
    }
    if (s->kind == STMT_WS) {
        int first = order->len;
        lives_seq(w, s->u.ws.consumer, order, a);
        if (order->len == first) VEC_PUSH(a, *order, s); /* an empty consumer */
        Stmt *slot = s->u.ws.producer;
        w->at = first;
        life_stmt(&slot, w);
        w->at = order->len - 1;
        life_stmt(&slot, w);
        return;
    }
    w->at = order->len;
    VEC_PUSH(a, *order, s);
    Stmt *slot = s;
    life_stmt(&slot, w);
}

/* ---- placement ------------------------------------------------------------------------------ */
static bool shared_slot(const Buffer *b) {
    return b->scope != SCOPE_GLOBAL && b->scope != SCOPE_BARRIER && b->scope != SCOPE_LOCAL &&
           b->scope != SCOPE_VAR && !b->layout;
}

typedef struct BufWalk {
    Arena *a;
    CudaBuffers *out;
    LifeWalk lw;
    Vec(Buffer *) bars; /* mbarriers: live throughout, after the others */
} BufWalk;

static void collect_allocs(BufWalk *w, const Stmt *s) {
    if (!s) return;
    switch (s->kind) {
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) collect_allocs(w, s->u.seq.data[i]);
        break;
    case STMT_FOR: collect_allocs(w, s->u.for_.body); break;
    case STMT_WHILE: collect_allocs(w, s->u.while_.body); break;
    case STMT_IF:
        collect_allocs(w, s->u.if_.then);
        collect_allocs(w, s->u.if_.orelse);
        break;
    case STMT_WS:
        collect_allocs(w, s->u.ws.producer);
        collect_allocs(w, s->u.ws.consumer);
        break;
    case STMT_ALLOC: {
        Buffer *b = s->u.alloc.buf;
        CudaSlot slot = {.buf = b, .offset = -1, .elems = buffer_elems(b)};
        if (b->scope == SCOPE_BARRIER) VEC_PUSH(w->a, w->bars, b);
        if (b->scope == SCOPE_GLOBAL || b->scope == SCOPE_BARRIER) break;
        if (!shared_slot(b)) {
            if (b->layout) slot.elems = b->layout->nlocal;
            VEC_PUSH(w->a, w->out->regs, slot);
        } else {
            VEC_PUSH(w->a, w->lw.lives, ((Life){b, -1, -1, false}));
        }
        break;
    }
    default: break;
    }
}

static int64_t slot_bytes(const Buffer *b) {
    int64_t n = buffer_elems(b);
    return ((n > 0 ? n * dtype_bytes(b->dtype) : 0) + 15) / 16 * 16;
}

static int64_t align_up(int64_t x, const Buffer *b) {
    /* swizzled tiles: a whole swizzle pattern; TMA destinations: 128 (Buffer.align) */
    int64_t a = b->swizzle ? 1024 : b->align > 16 ? b->align : 16;
    return (x + a - 1) / a * a;
}

/* The lowest offset >= base for l whose bytes overlap no placed buffer live at the same
 * time. */
static int64_t first_fit(const CudaBuffers *out, const Life *lives, int n, const Life *l,
                         int64_t base) {
    int64_t at = align_up(base, l->buf), size = slot_bytes(l->buf);
    for (bool moved = true; moved;) {
        moved = false;
        for (int i = 0; i < out->smem.len; i++) {
            const CudaSlot *s = &out->smem.data[i];
            const Life *o = NULL;
            for (int k = 0; k < n && !o; k++)
                if (lives[k].buf == s->buf) o = &lives[k];
            bool apart = o && o->fresh && (o->last < l->first || l->last < o->first);
            int64_t end = s->offset + slot_bytes(s->buf);
            if (apart || at >= end || at + size <= s->offset) continue;
            at = align_up(end, l->buf), moved = true;
        }
    }
    return at;
}

/* Whether l, if first touched in a flattened if, is last touched there too: a path that
 * skips the if does not read it unwritten after it. */
static bool fresh_in_ifs(const LifeWalk *w, const Life *l) {
    for (int i = 0; i < w->ifs.len; i++) {
        const Span *s = &w->ifs.data[i];
        if (l->first >= s->first && l->first < s->end && l->last >= s->end) return false;
    }
    return true;
}

void cuda_kernel_buffers(Arena *a, const Stmt *kernel, CudaBuffers *out) {
    BufWalk w = {.a = a, .out = out};
    *out = (CudaBuffers){0};
    collect_allocs(&w, kernel->u.kernel.body);
    StmtOrder order = {0};
    lives_seq(&w.lw, kernel->u.kernel.body, &order, a);
    Life *lives = w.lw.lives.data;
    int n = w.lw.lives.len;
    for (int i = 0; i < n; i++)
        lives[i].fresh =
            lives[i].first >= 0 &&
            (lives[i].buf->overwritten || writes_whole(order.data[lives[i].first], lives[i].buf)) &&
            fresh_in_ifs(&w.lw, &lives[i]);
    /* zeroed at entry, in allocation order: the buffers a program may read first (but not
     * one that nothing touches, which gets no bytes) */
    for (int i = 0; i < n; i++) {
        if (lives[i].fresh || (lives[i].first < 0 && !lives[i].buf->init)) continue;
        int64_t at = align_up(out->smem_bytes, lives[i].buf);
        VEC_PUSH(a, out->smem, ((CudaSlot){lives[i].buf, at, buffer_elems(lives[i].buf)}));
        out->smem_bytes = at + slot_bytes(lives[i].buf);
    }
    out->zero_bytes = out->smem_bytes;
    /* then the ones written before read: a buffer may reuse the bytes of one that is dead
     * before it is first written (disjoint lifetimes) */
    for (int i = 0; i < n; i++) {
        if (!lives[i].fresh) continue;
        int64_t at = first_fit(out, lives, n, &lives[i], out->zero_bytes);
        VEC_PUSH(a, out->smem, ((CudaSlot){lives[i].buf, at, buffer_elems(lives[i].buf)}));
        if (at + slot_bytes(lives[i].buf) > out->smem_bytes)
            out->smem_bytes = at + slot_bytes(lives[i].buf);
    }
    /* in dynamic shared memory, so that each block of a cluster has them at one offset */
    for (int i = 0; i < w.bars.len; i++) {
        Buffer *b = w.bars.data[i];
        VEC_PUSH(a, out->smem, ((CudaSlot){b, out->smem_bytes, buffer_elems(b)}));
        out->smem_bytes += slot_bytes(b);
    }
}

int cuda_smem_ranges(Arena *a, const Stmt *kernel, SmemRange **out) {
    CudaBuffers b;
    cuda_kernel_buffers(a, kernel, &b);
    *out = NEW_ARRAY(a, SmemRange, b.smem.len + 1);
    for (int i = 0; i < b.smem.len; i++)
        (*out)[i] = (SmemRange){b.smem.data[i].buf, b.smem.data[i].offset,
                                b.smem.data[i].offset + slot_bytes(b.smem.data[i].buf)};
    return b.smem.len;
}

const Stmt *cuda_kernel_ws(const Stmt *kernel) {
    const Stmt *b = kernel->u.kernel.body;
    if (b->kind == STMT_SEQ && b->u.seq.len) b = b->u.seq.data[b->u.seq.len - 1];
    return b->kind == STMT_WS ? b : NULL;
}

bool cuda_kernel_persistent(const Stmt *kernel, const CudaBuffers *bufs, const Options *o) {
    const Stmt *ws = cuda_kernel_ws(kernel);
    return ws && ws->u.ws.tile && !bufs->zero_bytes && !o->no_persistent;
}

/* The most blocks of kernel that a GPU the kernel runs on holds at once: its SMs
 * (options_sm_count: 132 by default, the H100 SXM's and the H200's, the most of the sm_90
 * parts) times the blocks that its threads and shared memory let share an SM (228 KB, 1
 * KB of it reserved per block). An upper bound of a persistent launch's grid
 * (target_cuda.c: resident). */
static int64_t max_resident(const Stmt *kernel, const CudaBuffers *bufs, const Options *o) {
    enum { SM_SMEM = 233472, BLOCK_RESERVED = 1024, SM_THREADS = 2048 };
    int64_t threads = kernel->u.kernel.threads[0] + kernel->u.kernel.producer_threads;
    int64_t per_sm = 32, by_smem = SM_SMEM / (bufs->smem_bytes + BLOCK_RESERVED);
    if (threads > 0 && SM_THREADS / threads < per_sm) per_sm = SM_THREADS / threads;
    if (by_smem < per_sm) per_sm = by_smem;
    return options_sm_count(o) * (per_sm > 1 ? per_sm : 1);
}

/* Whether the kernel's tiles are a constant number that no launch splits: tl_sk_parts
 * gives each tile grid / tiles parts, and the grid is at most max_resident. Such a
 * kernel is emitted without split-K code, which would double its compile time. */
static bool never_splits(const Stmt *kernel, const CudaBuffers *bufs, const Options *o) {
    int64_t tiles = 1, n;
    for (int d = 0; d < kernel->u.kernel.ngrid; d++) {
        if (!ir_is_const_int(kernel->u.kernel.grid[d], &n)) return false;
        tiles *= n;
    }
    return 2 * tiles > max_resident(kernel, bufs, o);
}

int64_t cuda_kernel_sk_bytes(const Stmt *kernel, const CudaBuffers *bufs, const Options *o) {
    const Stmt *ws = cuda_kernel_ws(kernel);
    if (!ws || !ws->u.ws.sk || !cuda_kernel_persistent(kernel, bufs, o) ||
        never_splits(kernel, bufs, o))
        return 0;
    int64_t n = 0;
    for (int i = 0; i < ws->u.ws.sk->nacc; i++) n += ws->u.ws.sk->acc[i]->layout->nlocal;
    return n * kernel->u.kernel.threads[0] * 4;
}

int cuda_kernel_cluster(const Stmt *kernel, const CudaBuffers *bufs, const Options *o) {
    const Stmt *ws = cuda_kernel_ws(kernel);
    return ws && ws->u.ws.cluster > 1 && cuda_kernel_persistent(kernel, bufs, o)
               ? ws->u.ws.cluster
               : 1;
}

/* ---- launch plan --------------------------------------------------------------------------- */
CudaPlan cuda_plan(Arena *a, const Func *f, const Options *o) {
    CudaPlan p = {0};
    const Stmt *body = f->body;
    int n = body && body->kind == STMT_SEQ ? body->u.seq.len : body ? 1 : 0;
    const Stmt *const *items =
        (const Stmt *const *)(body && body->kind == STMT_SEQ ? body->u.seq.data : &f->body);
    p.kernels = NEW_ARRAY(a, CudaKernelPlan, n + 1);
    p.globals = NEW_ARRAY(a, const Buffer *, n + 1);
    for (int i = 0; i < n; i++) {
        const Stmt *s = items[i];
        if (s->kind == STMT_ALLOC && s->u.alloc.buf->scope == SCOPE_GLOBAL) {
            p.globals[p.nglobals++] = s->u.alloc.buf;
            continue;
        }
        if (s->kind != STMT_KERNEL) continue;
        CudaKernelPlan *k = &p.kernels[p.nkernels];
        k->name = arena_printf(a, "tilec_kernel_%d", p.nkernels);
        p.nkernels++;
        k->ngrid = s->u.kernel.ngrid;
        for (int d = 0; d < 3; d++) {
            k->grid[d] = d < k->ngrid ? s->u.kernel.grid[d] : NULL;
            k->block[d] = s->u.kernel.threads[d] > 0 ? s->u.kernel.threads[d] : 1;
        }
        k->block[0] += s->u.kernel.producer_threads;
        k->ntmaps = s->u.kernel.ntmaps;
        k->tmaps = (const TmaMap *const *)s->u.kernel.tmaps;
        CudaBuffers bufs;
        cuda_kernel_buffers(a, s, &bufs);
        k->smem_bytes = bufs.smem_bytes;
        k->persistent = cuda_kernel_persistent(s, &bufs, o);
        k->cluster = cuda_kernel_cluster(s, &bufs, o);
        k->sk_bytes = cuda_kernel_sk_bytes(s, &bufs, o);
    }
    return p;
}

/* ---- evaluating integer expressions at launch ----------------------------------------------- */
typedef struct Eval {
    const Func *f;
    const int64_t *syms;
    int depth;
} Eval;

static int eval_var(void *env, const Var *v, int64_t *out) {
    Eval *E = env;
    for (int i = 0; i < E->f->syms.len; i++)
        if (E->f->syms.data[i] == v) {
            *out = E->syms[i];
            return 0;
        }
    const Stmt *body = E->f->body; /* a host-level let */
    if (!body || body->kind != STMT_SEQ || E->depth > 64) return -1;
    for (int i = 0; i < body->u.seq.len; i++) {
        const Stmt *s = body->u.seq.data[i];
        if (s->kind == STMT_LET && s->u.let.var == v) {
            E->depth++;
            int rc = ir_eval_int(s->u.let.value, eval_var, E, out);
            E->depth--;
            return rc;
        }
    }
    return -1;
}

int cuda_eval_int(const Func *f, const Expr *e, const int64_t *syms, int64_t *out) {
    Eval E = {f, syms, 0};
    int64_t v;
    if (ir_eval_int(e, eval_var, &E, &v)) return -1;
    *out = v;
    return 0;
}

int cuda_tmap_geometry(const Func *f, const TmaMap *m, const int64_t *syms, CudaTmapGeom *g,
                       StrBuf *err) {
    const Buffer *b = m->buf;
    *g = (CudaTmapGeom){.param = -1, .rank = m->rank, .elem_bytes = dtype_bytes(b->dtype),
                        .swizzle = m->swizzle};
    for (int i = 0; i < f->params.len; i++)
        if (f->params.data[i].buf == b) g->param = i;
    uint64_t stride = (uint64_t)g->elem_bytes;
    for (int i = 0; i < m->rank; i++) {
        int64_t v;
        if (cuda_eval_int(f, b->shape[m->rank - 1 - i], syms, &v)) v = -1;
        if (g->param < 0 || v < 1 || v > ((int64_t)1 << 32)) {
            sb_printf(err, "tensor '%s' (dim %d = %lld): a TMA tensor map needs every dimension "
                      "in 1 .. 2^32 (set no_ws=1, or TILEC_NO_WS=1, to load it without TMA)",
                      b->name, m->rank - 1 - i, (long long)v);
            return -1;
        }
        g->dims[i] = (uint64_t)v, g->box[i] = (uint32_t)m->box[i];
        if (i) g->strides[i - 1] = stride;
        if (stride > ((uint64_t)1 << 40) / (uint64_t)v) {
            sb_printf(err, "tensor '%s' is too large for a TMA tensor map (strides of 2^40 "
                      "bytes or more)", b->name);
            return -1;
        }
        stride *= (uint64_t)v;
    }
    return 0;
}
