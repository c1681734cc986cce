/* kernel_buffers.c - where a kernel's buffers live (cuda_kernel_buffers, cuda_passes.h).
 * The emitter, the launch plan and pass_insert_sync_threads (which must see two buffers
 * sharing bytes as one) derive the shared-memory layout from the lowered IR with it, so
 * the offsets in the source, smem_bytes and the barriers always agree. */
#include "targets/cuda/passes/cuda_passes.h"

#include "ir/ir_walk.h"
#include "layout/frag.h"

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
    int at;        /* index of the statement being walked */
    Span producer; /* walking a producer: its consumer's statements; else end 0 */
} LifeWalk;

static Life *life_of(LifeWalk *w, const Buffer *b) {
    for (int i = 0; i < w->lives.len; i++)
        if (w->lives.data[i].buf == b) return &w->lives.data[i];
    return NULL;
}

/* Widens b's life to the statement being walked. What a producer touches (it is walked
 * after its consumer, with the consumer's span) lives through all of the consumer: the
 * producer runs from the start, beside the consumer's work before its loop, and on a
 * persistent grid loads the next tile's stages beside the epilogue. */
static void life_touch(LifeWalk *w, const Buffer *b) {
    Life *l = b ? life_of(w, b) : NULL;
    if (!l) return;
    if (w->producer.end) {
        l->first = w->producer.first, l->last = w->producer.end - 1;
        return;
    }
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
    for (int i = 0; s->kind == STMT_EXTERN && i < s->u.extern_.nargs; i++)
        if (!s->u.extern_.args[i].value) life_touch(w, s->u.extern_.args[i].buf); /* pointers */
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
 * warp-specialized part: the consumer's statements in order, then the producer, which
 * runs beside all of them (life_touch says how long its buffers live). A one-armed if
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
        w->producer = (Span){first, order->len};
        life_stmt(&slot, w);
        w->producer = (Span){0, 0};
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

static bool collected(const BufWalk *w, const Buffer *b) {
    for (int i = 0; i < w->out->regs.len; i++)
        if (w->out->regs.data[i].buf == b) return true;
    for (int i = 0; i < w->lw.lives.len; i++)
        if (w->lw.lives.data[i].buf == b) return true;
    for (int i = 0; i < w->bars.len; i++)
        if (w->bars.data[i] == b) return true;
    return false;
}

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
    case STMT_THREADS: /* a T.ws region (split_warp_groups: the chain of its copies) */
        collect_allocs(w, s->u.threads.body);
        collect_allocs(w, s->u.threads.orelse);
        break;
    case STMT_WS:
        collect_allocs(w, s->u.ws.producer);
        collect_allocs(w, s->u.ws.consumer);
        break;
    case STMT_ALLOC: {
        Buffer *b = s->u.alloc.buf;
        if (collected(w, b)) break; /* a region in several warp groups' copies */
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
        lives[i].fresh = lives[i].first >= 0 &&
                         (lives[i].buf->overwritten ||
                          writes_whole(order.data[lives[i].first], lives[i].buf)) &&
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
