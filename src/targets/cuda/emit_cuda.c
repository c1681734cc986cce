/* emit_cuda.c - the CUDA target's CUDA C++ code generation: the kernel frame and the
 * SIMT model for what has no register layout; the layout-driven parts (register
 * fragments, vector accesses, tensor cores, cp.async) are emit_tiles.c's.
 *
 * Requires: a Func lowered by cuda_lower (lower.c). Provides: one source file, compiled by NVRTC
 * with no include path: the prelude (runtime/c/tl_c.h, the scalar semantics shared with
 * the C target, then runtime/cuda/tl_cuda.h, the device's own part), then per top-level
 * STMT_KERNEL i an `extern "C" __global__ tilec_kernel_<i>` with the launch ABI of
 * cuda.h. One CUDA block runs one block of the T.Kernel (blockIdx.x/y/z = its block
 * variables in order); which thread runs what:
 *   - serial statements run in every thread; their stores, atomics and prints to
 *     block-wide memory are guarded by `if (tl_tid == 0)` (src/targets/cuda/passes/map_threads.c);
 *   - a T.Parallel nest with a register layout (pass_infer_layouts) runs each thread's
 *     own iterations (cu_layout_nest); any other nest is flattened:
 *     `for (t = tl_tid; t < N; t += nthreads)`;
 *   - register fragments are per-thread arrays; shared buffers and fragments without a
 *     layout sit at offsets of one `extern __shared__` allocation (tl_dynamic_smem;
 *     mbarriers at its end; cuda_kernel_buffers:
 *     those read before written are zeroed at block start like the C target's scratch
 *     memory, the others may share bytes); local/var buffers are per-thread arrays,
 *     zero-initialized;
 *   - kept tile ops (T.gemm on tensor cores, register T.reduce, vector T.copy, cp.async
 *     commit/wait) are emit_tiles.c's;
 *   - barriers are the STMT_SYNCs placed by pass_insert_sync_threads (and T.sync_threads),
 *     with fence.proxy.async before them in kernels that use wgmma;
 *   - atomics: tl_atomic_<op>_<dtype> of tl_cuda.h (one thread in serial code); on a
 *     per-thread buffer a plain update;
 *   - T.print: printf in the C target's format (thread 0 in serial code, the owning
 *     thread in a distributed loop); T.device_assert: tl_assert_fail (the C target's
 *     message), then __trap(), so the launch fails and the CUDA context is unusable
 *     afterwards;
 *   - T.use_swizzle(panel, order) with a constant panel on a 2-D/3-D grid remaps
 *     blockIdx.x/y (tl_swizzle_2d, TileLang's row or column rasterization); otherwise it
 *     is ignored (it only changes the order of blocks); T.annotate_layout asks for a
 *     swizzled shared buffer (pass_infer_layouts) and is otherwise a hint the inference
 *     does not need.
 * Expressions and the statements both C-family targets write alike are the shared
 * printer's (src/targets/cfamily.h); the CfHooks below supply the thread-dependent parts.
 * Host-level lets that a kernel uses are recomputed at the top of the kernel (they are
 * functions of parameters and symbols); T.alloc_global buffers are kernel parameters
 * that the runtime allocates (zeroed) for each launch. Lets nothing reads are dropped,
 * so NVRTC compiles the output without warnings. */
#include "cuda_emit.h"
#include "targets/cuda/arch.h"
#include "ir/ir_walk.h"
#include "targets/cfamily.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-const-variable"
#include "embedded_runtime.h"
#pragma GCC diagnostic pop

/* MAX_SMEM: the largest dynamic shared memory of a block on any GPU tilec targets
 * (sm_90's opt-in limit); the launch checks the GPU's own limit. */
enum { MAX_NEST = 16, MAX_THREADS = 1024, MAX_SMEM = 232448 };

static void emit_distributed(CfEmit *em, const Stmt *root);

/* ---- hooks of the shared printer -------------------------------------------------------- */
/* C++ keywords, CUDA built-ins and the library names the generated code uses besides
 * cfamily.c's. */
static const char *const cu_reserved[] = {
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "bitand",
    "bitor",
    "catch",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "delete",
    "dynamic_cast",
    "explicit",
    "export",
    "friend",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "reinterpret_cast",
    "requires",
    "static_assert",
    "static_cast",
    "template",
    "this",
    "thread_local",
    "throw",
    "try",
    "typeid",
    "typename",
    "using",
    "virtual",
    "wchar_t",
    "xor",
    "xor_eq",
    "uintptr_t",
    "INT64_MAX",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "memcpy",
    "min",
    "max",
    "uint4",
    "make_uint4",
    "dim3",
    "atomicAdd",
    "atomicCAS",
    "atomicMax",
    "atomicMin",
    "std",
    "cuda",
    "uint", /* tl_cuda.h's names for T.import_source code */
    "ushort",
    "uchar",
    "ulong",
    NULL,
};

/* CfHooks.once: serial code runs in every thread; a side effect on block-wide memory or
 * on output is done by thread 0 alone. */
static const char *cu_once(CfEmit *em, const Buffer *b) {
    if (b && !simt_block_wide(b)) return "";
    const char *rep = cu_primary_replica(em);
    if (rep) return arena_printf(&em->ctx->arena, "if (%s) ", rep);
    return !cu_of(em)->dist ? "if (tl_tid == 0) " : "";
}

static bool used_var(CfEmit *em, const Var *v) {
    const CfVarVec *used = &cu_of(em)->used;
    for (int i = 0; i < used->len; i++)
        if (used->data[i] == v) return true;
    return false;
}

/* Storage is set up at the top of the kernel; a T.alloc_var's initial value is stored. */
static void emit_alloc(CfEmit *em, const Stmt *s) {
    Buffer *b = s->u.alloc.buf;
    if (b->init) cf_loc_comment(em, s->loc);
    if (b->scope == SCOPE_GLOBAL)
        ctx_fail(em->ctx, s->loc, "T.alloc_global must be called outside 'with T.Kernel'");
    if (b->init) cf_store_init(em, s);
}

/* A barrier of the threads running this code; after a TMA store (in program order, or in
 * a loop that has one), thread 0, which issued it, first waits until the stores have
 * read shared memory (tma_store.c). */
void cu_barrier(CfEmit *em) {
    CuEmit *cu = cu_of(em);
    if (cu->stores_issued && !cu->region_count)
        cf_line(em, "if (tl_tid == 0) tl_tma_store_wait_read();");
    if (cu->region_count) cf_line(em, "tl_bar_sync<%d, %d>();", cu->region_id, cu->region_count);
    else if (cu->consumer) cf_line(em, "tl_bar_sync<1, %d>();", cu->nthreads);
    else cf_line(em, "__syncthreads();");
}

/* An mbarrier operation (runtime/cuda/tl_cuda.h); INIT by thread 0 for every entry (or
 * entry idx). Without TMA (below sm_90a) no copy has transaction bytes: an expect is
 * nothing, an arrive-and-expect an arrival. */
static void emit_mbar(CfEmit *em, const Stmt *s) {
    const Buffer *b = s->u.mbar.bar;
    const char *bar = cf_buf(em, b);
    if (s->u.mbar.op == MBAR_INIT) {
        int64_t n = 0;
        ir_is_const_int(b->shape[0], &n);
        const char *count = cf_ex_str(em, s->u.mbar.arg, DT_INT32, true);
        if (s->u.mbar.cluster && cu_of(em)->cluster > 1)
            count = arena_printf(&em->ctx->arena, "%d * (%s)", cu_of(em)->cluster, count);
        cf_line(em, "if (tl_tid == 0) {");
        if (s->u.mbar.idx)
            cf_line(em, "    tl_mbar_init(&%s[%s], %s);", bar,
                    cf_ex_str(em, s->u.mbar.idx, DT_INT32, true), count);
        else
            cf_line(em, "    for (int tl_i = 0; tl_i < %lld; ++tl_i) tl_mbar_init(&%s[tl_i], %s);",
                    (long long)n, bar, count);
        cf_line(em, "    tl_fence_mbar_init();");
        cf_line(em, "}");
        return;
    }
    const char *idx = cf_ex_str(em, s->u.mbar.idx, DT_INT32, true);
    int cluster = s->u.mbar.cluster ? cu_of(em)->cluster : 1;
    const char *who = s->u.mbar.per_group ? "if (tl_tid % 128 == 0) "
                      : s->u.mbar.once    ? "if (tl_tid == 0) "
                                          : "";
    bool tx = cu_of(em)->sm90a;
    if (cu_of(em)->fence_arrive && (s->u.mbar.op == MBAR_ARRIVE || s->u.mbar.op == MBAR_EXPECT_TX))
        cf_line(em, "tl_fence_proxy_async();  /* this thread's shared stores, for wgmma */");
    switch (s->u.mbar.op) {
    case MBAR_ARRIVE:
        if (s->u.mbar.cta && ir_cluster_size(em->kernel) > 1) /* a block of the cluster's barrier */
            cf_line(em, "%stl_mbar_arrive_peer(&%s[%s], %s);", who, bar, idx,
                    cf_ex_str(em, s->u.mbar.cta, DT_INT32, true));
        else if (cluster == 1) /* (a cluster of one block: its cta_id is 0) */
            cf_line(em, "%stl_mbar_arrive(&%s[%s]);", who, bar, idx);
        for (int r = 0; cluster > 1 && r < cluster; r++) /* from different warps, as CUTLASS */
            cf_line(em, "%stl_mbar_arrive_cluster(&%s[%s], %d);",
                    s->u.mbar.per_group ? arena_printf(&em->ctx->arena, "if (tl_tid %% 128 == %d) ",
                                                       r * 128 / cluster)
                                        : "",
                    bar, idx, r);
        break;
    case MBAR_EXPECT_TX:
        if (tx)
            cf_line(em, "%stl_mbar_arrive_expect_tx(&%s[%s], %s);", who, bar, idx,
                    cf_ex_str(em, s->u.mbar.arg, DT_INT32, true));
        else cf_line(em, "%stl_mbar_arrive(&%s[%s]);  /* no TMA bytes here */", who, bar, idx);
        break;
    case MBAR_EXPECT:
        if (tx)
            cf_line(em, "%stl_mbar_expect_tx(&%s[%s], %s);", who, bar, idx,
                    cf_ex_str(em, s->u.mbar.arg, DT_INT32, true));
        else cf_line(em, "/* T.mbarrier_expect_tx: no TMA bytes below sm_90a */");
        break;
    case MBAR_CP_ASYNC:
    case MBAR_CP_ASYNC_NOINC:
        cf_line(em, "tl_mbar_cp_async_arrive<%s>(&%s[%s]);",
                s->u.mbar.op == MBAR_CP_ASYNC_NOINC ? "true" : "false", bar, idx);
        break;
    default: /* a cluster barrier's wait acquires its peers' writes */
        cf_line(em, "tl_mbar_wait%s(&%s[%s], %s);",
                b->cluster_barrier && ir_cluster_size(em->kernel) > 1 ? "_cluster" : "", bar, idx,
                cf_ex_str(em, s->u.mbar.arg, DT_INT32, true));
        break;
    }
}

/* Registers a thread may hold (setmaxnreg): the producer warp group gives up most of its
 * registers to the consumers. The total must fit the block's allocation at launch
 * (cuda_launch_regs: 168 for 384 threads = 128 x 40 + 256 x 232), or setmaxnreg.inc
 * waits forever. */
enum { PRODUCER_REGS = 40 };

static int consumer_regs(int consumers, int producers) {
    int total = cuda_launch_regs(consumers + producers) * (consumers + producers);
    int r = (total - producers * PRODUCER_REGS) / consumers / 8 * 8;
    return r > 240 ? 240 : r;
}

static bool vars_has(const CfVarVec *vs, const Var *v);
static bool has_kind(const Stmt *s, StmtKind kind);

/* The block indices of tile tl_tile (in T.use_swizzle order), and the consumer's
 * registers zeroed, as at entry. */
static void tile_entry(CfEmit *em, const Stmt *ws, bool consumer) {
    CuEmit *cu = cu_of(em);
    const Stmt *k = cu->kernel;
    int64_t panel = 0;
    if (cu->swizzle) ir_is_const_int(cu->swizzle->u.swizzle.panel, &panel);
    int c = cu->cluster;
    cf_line(em, "int tl_b[3];");
    cf_line(em, "tl_tile_index(tl_tile, tl_gx, tl_gy, %lld, tl_b%s);", (long long)panel,
            panel && cu->swizzle->u.swizzle.column ? ", true" : "");
    if (c > 1)
        cf_line(em, "tl_b[%d] = tl_b[%d] * %d + (int)tl_cluster_rank();", ws->u.ws.cluster_dim,
                ws->u.ws.cluster_dim, c);
    for (int d = 0; d < k->u.kernel.ngrid; d++)
        if (k->u.kernel.block[d] && vars_has(&cu->used, k->u.kernel.block[d]))
            cf_line(em, "%s = tl_b[%d];", cf_var(em, k->u.kernel.block[d]), d);
    for (int i = 0; consumer && i < cu->bufs->regs.len; i++) {
        const CudaSlot *r = &cu->bufs->regs.data[i];
        cf_line(em, "for (int tl_c = 0; tl_c < %lld; ++tl_c) %s[tl_c] = 0;",
                (long long)(r->elems > 0 ? r->elems : 1), cf_buf(em, r->buf));
    }
}

/* The loop over the block's tiles of a persistent grid: blockIdx.x, + gridDim.x, ...
 * (with clusters of c blocks, the cluster's tiles c * i .. c * i + c - 1 of its dim).
 * With split-K units (lo, hi, base), each tile whole. */
static void tile_loop(CfEmit *em, const Stmt *ws, const Stmt *body, bool consumer) {
    CuEmit *cu = cu_of(em);
    const char *t = cf_var(em, ws->u.ws.tile);
    int c = cu->cluster;
    cf_line(em, "for (int32_t %s = 0;; ++%s) {  /* the block's tiles */", t, t);
    em->indent++;
    if (c > 1)
        cf_line(em, "const int tl_tile = (int)blockIdx.x / %d + %s * ((int)gridDim.x / %d);", c, t,
                c);
    else cf_line(em, "const int tl_tile = (int)blockIdx.x + %s * (int)gridDim.x;", t);
    cf_line(em, "if (tl_tile >= tl_ntiles) break;");
    const SplitK *sk = ws->u.ws.sk; /* planned units, even where no launch splits (!cu->sk) */
    if (sk)
        cf_line(em, "const int32_t %s = 0, %s = %s, %s = %s * %s;", cf_var(em, sk->lo),
                cf_var(em, sk->hi), cf_ex_str(em, sk->iters, DT_INT32, true), cf_var(em, sk->base),
                cf_var(em, sk->hi), t);
    tile_entry(em, ws, consumer);
    cf_stmt(em, body);
    em->indent--;
    cf_line(em, "}");
}

/* A split-K grid (cu->sk): the tile loop when the tiles are not split (tl_sk_parts), else
 * the block's one part of a tile, if any. The body is emitted for both: in the tile loop,
 * lo, hi and base are the whole tile's and the split-K code folds away. (The tile var is
 * not used: the loop's iterations count from base.) */
static void splitk_units(CfEmit *em, const Stmt *ws, const Stmt *body, bool consumer) {
    CuEmit *cu = cu_of(em);
    const SplitK *sk = cu->sk;
    const char *iters = cf_ex_str(em, sk->iters, DT_INT32, true);
    cf_line(em,
            "const int tl_parts = tl_sk_parts(tl_ntiles, %s, (int)gridDim.x, "
            "tl_sk_ws != nullptr);",
            iters);
    cf_line(em, "TlSkPart tl_part = {0, 0, 0, 1};");
    cf_line(em, "if (tl_parts == 1) {");
    em->indent++;
    tile_loop(em, ws, body, consumer);
    em->indent--;
    cf_line(em,
            "} else if (tl_sk_part_of((int)blockIdx.x, tl_ntiles, %s, tl_parts, &tl_part)) {"
            "  /* split-K */",
            iters);
    em->indent++;
    cf_line(em, "const int tl_tile = tl_part.tile;");
    cf_line(em, "const int32_t %s = tl_part.lo, %s = tl_part.hi, %s = -tl_part.lo;",
            cf_var(em, sk->lo), cf_var(em, sk->hi), cf_var(em, sk->base));
    /* parts are never empty; where ptxas cannot prove that a wgmma loop runs, it
     * serializes every wgmma of the kernel (C7515) */
    cf_line(em, "tl_assume(%s > %s);", cf_var(em, sk->hi), cf_var(em, sk->lo));
    tile_entry(em, ws, consumer);
    cf_stmt(em, body);
    em->indent--;
    cf_line(em, "}");
}

/* One side of a STMT_WS inside its braces: once with tile 0, or on a persistent grid for
 * every tile of the block (tile_loop, splitk_units), its block indices decoded first.
 * pass_insert_sync_threads planned the consumer as the body of this loop over tiles: the
 * barriers between one tile and the next are in it. */
static void ws_side(CfEmit *em, const Stmt *ws, const Stmt *body, bool consumer) {
    CuEmit *cu = cu_of(em);
    const Var *t = ws->u.ws.tile;
    const SplitK *sk = ws->u.ws.sk;
    int mark = em->live.len;
    em->indent++;
    if (t) cf_live_add(em, t);
    if (sk) cf_live_add(em, sk->lo), cf_live_add(em, sk->hi), cf_live_add(em, sk->base);
    if (t && cu->persistent && consumer) cu->stores_issued |= has_kind(body, STMT_COPY);
    if (t && cu->persistent) {
        if (cu->sk) splitk_units(em, ws, body, consumer);
        else tile_loop(em, ws, body, consumer);
    } else {
        if (t) cf_line(em, "const int32_t %s = 0;", cf_var(em, t));
        if (sk) /* one unit: the whole tile */
            cf_line(em, "const int32_t %s = 0, %s = %s, %s = 0;", cf_var(em, sk->lo),
                    cf_var(em, sk->hi), cf_ex_str(em, sk->iters, DT_INT32, true),
                    cf_var(em, sk->base));
        cf_stmt(em, body);
    }
    /* the block's shared memory outlives the TMA stores' reads; here, not after the
     * producer's branch, so that the producer keeps no register for it */
    if (consumer && cu->tma_stores) cf_line(em, "if (tl_tid == 0) tl_tma_store_wait_read();");
    em->indent--;
    em->live.len = mark;
    cf_line(em, "}");
}

/* tl_sk_<op> (put or add) of every accumulator with block p's slot. */
static void splitk_each(CfEmit *em, const char *op, const char *p) {
    CuEmit *cu = cu_of(em);
    int64_t bytes = cu->kernel->u.kernel.sk_bytes, off = 0;
    for (int i = 0; i < cu->sk->nacc; i++) {
        const Buffer *b = cu->sk->acc[i];
        cf_line(em, "tl_sk_%s<%lld, %d>(tl_sk_part(tl_sk_ws, %s, %lld) + %lld, %s, tl_tid);", op,
                (long long)b->layout->nlocal, cu->nthreads, p, (long long)bytes, (long long)off,
                cf_buf(em, b));
        off += b->layout->nlocal * cu->nthreads;
    }
}

/* STMT_SPLITK on a split-K grid (cu->sk; else nothing: every unit is a whole tile).
 * ZERO: a part that does not start its tile sums its iterations from zero. COMBINE, when
 * the tiles are split: a part that does not start its tile stores its sums in its block's
 * slot and sets its flag; the one that starts it adds those of the blocks after it that
 * run the rest, in block order. */
static void emit_splitk(CfEmit *em, SkOp op) {
    CuEmit *cu = cu_of(em);
    const SplitK *sk = cu->sk;
    if (!sk) return;
    const char *lo = cf_var(em, sk->lo);
    if (op == SK_ZERO) {
        cf_line(em, "if (%s > 0) {  /* split-K: this unit's part of the sums */", lo);
        for (int i = 0; i < sk->nacc; i++)
            cf_line(em, "    for (int tl_c = 0; tl_c < %lld; ++tl_c) %s[tl_c] = 0.0f;",
                    (long long)sk->acc[i]->layout->nlocal, cf_buf(em, sk->acc[i]));
        cf_line(em, "}");
        return;
    }
    cf_line(em, "if (tl_parts > 1) {  /* split-K: a part of the tile */");
    em->indent++;
    cf_line(em, "if (%s > 0) {", lo);
    em->indent++;
    splitk_each(em, "put", "(int)blockIdx.x");
    cf_line(em, "tl_sk_signal<%d>(tl_sk_flag(tl_sk_ws, (int)blockIdx.x), tl_tid);", cu->nthreads);
    em->indent--;
    cf_line(em, "} else {");
    em->indent++;
    cf_line(em, "for (int tl_p = (int)blockIdx.x + 1; tl_sk_holds(&tl_part, tl_p); ++tl_p) {");
    em->indent++;
    cf_line(em, "tl_sk_wait<%d>(tl_sk_flag(tl_sk_ws, tl_p), tl_tid);", cu->nthreads);
    splitk_each(em, "add", "tl_p");
    em->indent--;
    cf_line(em, "}");
    em->indent--;
    cf_line(em, "}");
    em->indent--;
    cf_line(em, "}");
}

/* The producer in one thread of the extra warp group, the consumer in the others. */
static void emit_ws(CfEmit *em, const Stmt *s) {
    CuEmit *cu = cu_of(em);
    int nc = cu->nthreads, np = cu->kernel->u.kernel.producer_threads;
    if (cu->cluster > 1) /* the peers' barriers are set up before anyone signals them */
        cf_line(em, "tl_cluster_sync();");
    cf_line(em, "if (tl_tid >= %d) {  /* the producer warp group: TMA */", nc);
    em->indent++;
    bool regs = !em->f->no_set_max_nreg;
    if (regs) cf_line(em, "tl_setmaxnreg_dec<%d>();", PRODUCER_REGS);
    cf_line(em, "if (tl_tid == %d) {", nc);
    ws_side(em, s, s->u.ws.producer, false);
    em->indent--;
    cf_line(em, "} else {  /* the consumer warp groups */");
    em->indent++;
    if (regs) cf_line(em, "tl_setmaxnreg_inc<%d>();", consumer_regs(nc, np));
    em->indent--;
    cu->consumer = true;
    ws_side(em, s, s->u.ws.consumer, true);
    cu->consumer = false;
    if (cu->cluster > 1)
        cf_line(em, "tl_cluster_sync();  /* no block leaves while its peers may signal it */");
}

static bool writes_shared(const Stmt *s);
static void shared_child(Stmt **slot, void *ud) { *(bool *)ud |= writes_shared(*slot); }

/* The named barrier of region (lo, count) of the kernel: 1 + its number among the
 * kernel's distinct regions (ids 1..15; 0 is __syncthreads'). */
static int region_barrier(CfEmit *em, const Stmt *s) {
    CuEmit *cu = cu_of(em);
    int lo = s->u.threads.lo, n = s->u.threads.count;
    for (int i = 0; i < cu->nregions; i++)
        if (cu->regions[i][0] == lo && cu->regions[i][1] == n) return i + 1;
    if (cu->nregions == 15)
        ctx_fail(em->ctx, s->loc,
                 "T.ws: a kernel may have at most 15 different regions "
                 "(the named barriers of a block)");
    cu->regions[cu->nregions][0] = lo, cu->regions[cu->nregions][1] = n;
    return ++cu->nregions;
}

/* The copies of the block's code of pass_split_warp_groups: an if / else if chain. */
static void emit_split(CfEmit *em, const Stmt *s) {
    for (const Stmt *g = s; g; g = g->u.threads.orelse) {
        int lo = g->u.threads.lo, hi = lo + g->u.threads.count;
        const char *kw = g == s ? "if" : "} else if";
        if (!g->u.threads.orelse && g != s)
            cf_line(em, "} else {  /* threads %d..%d */", lo, hi - 1);
        else if (lo)
            cf_line(em, "%s (tl_tid >= %d && tl_tid < %d) {  /* threads %d..%d */", kw, lo, hi, lo,
                    hi - 1);
        else cf_line(em, "%s (tl_tid < %d) {  /* threads 0..%d */", kw, hi, hi - 1);
        em->indent++;
        int mark = em->live.len;
        cf_stmt(em, g->u.threads.body);
        em->live.len = mark;
        em->indent--;
    }
    cf_line(em, "}");
}

/* Whether s stores into shared memory through the generic proxy (stores, vector copies). */
static bool writes_shared(const Stmt *s) {
    if (s->kind == STMT_STORE) return s->u.store.buf->scope == SCOPE_SHARED;
    if (s->kind == STMT_COPY) return !s->u.copy.tma && s->u.copy.dst.buf->scope == SCOPE_SHARED;
    bool any = false;
    ir_stmt_children((Stmt *)s, shared_child, &any);
    return any;
}

/* A T.ws region: its threads run the body as a block of their own (tl_tid from 0). */
static void emit_threads(CfEmit *em, const Stmt *s) {
    CuEmit *cu = cu_of(em);
    int lo = s->u.threads.lo, n = s->u.threads.count;
    if (s->u.threads.split) {
        emit_split(em, s);
        return;
    }
    if (cu->region_count) ctx_fail(em->ctx, s->loc, "T.ws blocks cannot be nested");
    int id = region_barrier(em, s), outer = cu->nthreads, mark = em->live.len;
    if (lo)
        cf_line(em, "if (tl_tid >= %d && tl_tid < %d) {  /* T.ws: threads %d..%d */", lo, lo + n,
                lo, lo + n - 1);
    else cf_line(em, "if (tl_tid < %d) {  /* T.ws: threads 0..%d */", n, n - 1);
    em->indent++;
    if (lo) {
        cf_line(em, "const int tl_ws_tid = tl_tid - %d;", lo);
        cf_line(em, "{");
        em->indent++;
        cf_line(em, "const int tl_tid = tl_ws_tid;");
        cf_line(em, "(void)tl_tid;");
    }
    bool fence = cu->fence_arrive;
    cu->nthreads = n, cu->region_count = n, cu->region_id = id;
    cu->fence_arrive = cu->wgmma && writes_shared(s->u.threads.body);
    cf_stmt(em, s->u.threads.body);
    cu->nthreads = outer, cu->region_count = 0, cu->fence_arrive = fence;
    em->live.len = mark;
    for (int k = lo ? 2 : 1; k > 0; k--) {
        em->indent--;
        cf_line(em, "}");
    }
}

/* T.set_max_nreg: setmaxnreg on sm_90a (the kernel then has __launch_bounds__(.., 1)). */
static void emit_setmaxnreg(CfEmit *em, const Stmt *s) {
    if (!cu_of(em)->sm90a) {
        cf_line(em, "/* T.set_max_nreg(%d): sm_90a only */", s->u.setmaxnreg.regs);
        return;
    }
    cf_line(em, "tl_setmaxnreg_%s<%d>();", s->u.setmaxnreg.inc ? "inc" : "dec",
            s->u.setmaxnreg.regs);
}

/* After a program's wgmma wait (T.wait_wgmma): the accumulators of its T.wgmma_gemm are
 * read next, not before the wait. */
static void fence_manual_accs(CfEmit *em, const Stmt *s) {
    if (s->kind == STMT_GEMM && s->u.gemm.manual) {
        const Buffer *c = s->u.gemm.c.buf;
        cf_line(em, "for (int tl_c = 0; tl_c < %lld; ++tl_c) tl_wgmma_fence_operand(%s[tl_c]);",
                (long long)c->layout->nlocal, cf_buf(em, c));
        return;
    }
    switch (s->kind) { /* ir_stmt_children's kinds, read-only */
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) fence_manual_accs(em, s->u.seq.data[i]);
        break;
    case STMT_FOR: fence_manual_accs(em, s->u.for_.body); break;
    case STMT_WHILE: fence_manual_accs(em, s->u.while_.body); break;
    case STMT_IF:
        fence_manual_accs(em, s->u.if_.then);
        if (s->u.if_.orelse) fence_manual_accs(em, s->u.if_.orelse);
        break;
    case STMT_THREADS: fence_manual_accs(em, s->u.threads.body); break;
    default: break;
    }
}

/* T.sync_grid (tl_grid_sync on the launch's barrier words) and T.cluster_*: barrier.cluster
 * in a cluster of several blocks; in a cluster of one, a wait is a block barrier and an
 * arrive nothing. Each orders the block's own threads as a barrier does, after the fence
 * that STMT_SYNC has for wgmma and TMA stores. */
static void emit_group_sync(CfEmit *em, const Stmt *s) {
    CuEmit *cu = cu_of(em);
    GroupSyncOp op = s->u.gsync.op;
    bool arrive = op == GSYNC_CLUSTER_ARRIVE || op == GSYNC_CLUSTER_ARRIVE_RELAXED;
    bool alone = op != GSYNC_GRID && ir_cluster_size(cu->kernel) == 1;
    if ((cu->wgmma || cu->tma_stores) && !(alone && arrive)) cf_line(em, "tl_fence_proxy_async();");
    if (op == GSYNC_GRID) {
        cu_barrier(em); /* (waits for TMA stores' reads where there are some) */
        TL_ASSERT(cu->kernel->u.kernel.grid_bar); /* pass_plan_launch */
        cf_line(em, "tl_grid_sync((unsigned *)%s);", cf_buf(em, cu->kernel->u.kernel.grid_bar));
    } else if (alone) {
        if (arrive) cf_line(em, "/* T.%s: a cluster of one block */", group_sync_op_name(op));
        else cu_barrier(em);
    } else if (op == GSYNC_CLUSTER_SYNC) {
        cu_barrier(em); /* the block's threads, then the cluster */
        cf_line(em, "tl_cluster_sync();");
    } else {
        cf_line(em, "tl_%s();", group_sync_op_name(op));
    }
}

/* The one-line statements of CUDA (after the location comment). */
static void emit_simple(CfEmit *em, const Stmt *s) {
    if (s->kind == STMT_KERNEL) ctx_fail(em->ctx, s->loc, "T.Kernel inside T.Kernel");
    if (s->kind == STMT_SYNC) {
        /* wgmma and TMA stores read shared memory through the async proxy: each
         * thread's earlier stores and cp.async writes are fenced before the barrier (a
         * kernel with TMA stores but no gemm too: issue 26's scan read stale tiles) */
        if (cu_of(em)->wgmma || cu_of(em)->tma_stores) cf_line(em, "tl_fence_proxy_async();");
        cu_barrier(em);
    } else if (s->kind == STMT_ANNOTATE_LAYOUT)
        cf_line(em, "/* T.annotate_layout(%s): %s */", s->u.annotate.buf->name,
                s->u.annotate.buf->swizzle ? "swizzled (tl_swizzle)"
                                           : "layouts are inferred; the hint is not needed");
    else if (s == cu_of(em)->swizzle) cf_line(em, "/* T.use_swizzle: applied at kernel entry */");
    else cf_line(em, "/* T.use_swizzle: ignored (block order only) */");
}

/* ---- the program's own wgmma (tileops_wgmma.c's runtime calls) --------------------------- */
/* `name = value;` on a line of its own. */
static void cu_value_line(CfEmit *em, const char *decl, const Expr *e, DType t) {
    sb_indent(em->out, em->indent);
    sb_puts(em->out, decl);
    cf_ex_top(em, em->out, e, t);
    sb_puts(em->out, ";\n");
}

/* The wgmma of T.ptx_wgmma_ss (args: accumulators, descriptors A and B, scale-d, thread,
 * then the constants N, A and B types, A and B K-major, scale-a, scale-b) or of
 * T.ptx_wgmma_rs (args: accumulators, A's registers, descriptor B, scale-d, thread, N,
 * types, B K-major, scales): the instruction with the N / 2 accumulators as registers,
 * or under TL_CUDA_SIM the simulation's queued model. */
static void cu_wgmma_raw(CfEmit *em, const Stmt *s, bool rs) {
    static const char *const ptx[] = {"f16", "bf16", "e4m3", "e5m2"};
    static const char *const tl[] = {"TL_MMA_F16", "TL_MMA_BF16", "TL_MMA_E4M3", "TL_MMA_E5M2"};
    const ExternArg *x = s->u.extern_.args;
    int64_t c[7] = {0};
    for (int i = 0; i < (rs ? 6 : 7); i++) ir_is_const_int(x[5 + i].value, &c[i]);
    int n = (int)c[0], ta = (int)c[1], tb = (int)c[2], regs = n / 2;
    bool ak = rs || c[3], bk = c[rs ? 3 : 4];
    int sa = (int)c[rs ? 4 : 5], sb = (int)c[rs ? 5 : 6], in = regs + (rs ? 4 : 1);
    StrBuf *o = em->out;
    cf_line(em, "{");
    em->indent++;
    sb_indent(o, em->indent);
    sb_puts(o, "float *tl_d = ");
    cf_ex_addr(em, o, x[0].buf, x[0].idx, "T.ptx_wgmma");
    sb_puts(o, ";\n");
    if (rs) { /* A's 16 bytes as words (a local array of narrow elements) */
        sb_indent(o, em->indent);
        sb_puts(o, "const void *tl_ap = ");
        cf_ex_addr(em, o, x[1].buf, x[1].idx, "T.ptx_wgmma_rs");
        sb_puts(o, ";\n");
    } else cu_value_line(em, "const uint64_t tl_da = ", x[1].value, DT_UINT64);
    cu_value_line(em, "const uint64_t tl_db = ", x[2].value, DT_UINT64);
    cu_value_line(em, "const int tl_sd = ", x[3].value, DT_INT32);
    sb_puts(o, "#ifdef TL_CUDA_SIM\n");
    sb_indent(o, em->indent);
    if (rs)
        sb_printf(o, "tl_wgmma_raw_rs<%d, %s, %s, %s, %d, %d>(tl_d, tl_ap, tl_db, tl_sd, ", n,
                  tl[ta], tl[tb], bk ? "true" : "false", sa, sb);
    else
        sb_printf(o, "tl_wgmma_raw_ss<%d, %s, %s, %s, %s, %d, %d>(tl_d, tl_da, tl_db, tl_sd, ", n,
                  tl[ta], tl[tb], ak ? "true" : "false", bk ? "true" : "false", sa, sb);
    cf_ex_top(em, o, x[4].value, DT_INT32);
    sb_puts(o, ");\n#else\n");
    if (rs) {
        cf_line(em, "uint32_t tl_a[4];");
        cf_line(em, "memcpy(tl_a, tl_ap, 16);");
    }
    sb_indent(o, em->indent);
    sb_printf(o, "asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %%%d, 0;\\n\"\n", in + 1);
    sb_indent(o, em->indent + 1);
    sb_printf(o, "\"wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s.%s {", n, ta >= 2 ? 32 : 16,
              ptx[ta], ptx[tb]);
    for (int i = 0; i < regs; i++) sb_printf(o, "%s%%%d", i ? ", " : "", i);
    if (rs)
        sb_printf(o, "}, {%%%d, %%%d, %%%d, %%%d}, %%%d, p, %d, %d", regs, regs + 1, regs + 2,
                  regs + 3, in, sa, sb);
    else sb_printf(o, "}, %%%d, %%%d, p, %d, %d", regs, in, sa, sb);
    if (ta < 2 && !rs) sb_printf(o, ", %d", !ak); /* imm-trans-a (16-bit, A in smem) */
    if (ta < 2) sb_printf(o, ", %d", !bk);        /* imm-trans-b */
    sb_puts(o, ";\\n}\\n\"\n");
    sb_indent(o, em->indent + 1);
    sb_puts(o, ":");
    for (int i = 0; i < regs; i++) sb_printf(o, "%s\"+f\"(tl_d[%d])", i ? ", " : " ", i);
    sb_puts(o, "\n");
    sb_indent(o, em->indent + 1);
    if (rs)
        sb_puts(o, ": \"r\"(tl_a[0]), \"r\"(tl_a[1]), \"r\"(tl_a[2]), \"r\"(tl_a[3]), "
                   "\"l\"(tl_db), \"r\"(tl_sd));\n#endif\n");
    else sb_puts(o, ": \"l\"(tl_da), \"l\"(tl_db), \"r\"(tl_sd));\n#endif\n");
    em->indent--;
    cf_line(em, "}");
}

/* The runtime calls of tileops_wgmma.c that are sm_90a's instructions: written here (the
 * wgmma) or checked for the architecture, at the program's line. */
static bool cu_wgmma_call(CfEmit *em, const Stmt *s) {
    if (!strcmp(s->u.extern_.name, "tl_bulk_copy")) { /* T.ptx_cp_async_bulk */
        const ExternArg *x = s->u.extern_.args;
        StrBuf *o = em->out;
        cf_loc_comment(em, s->loc);
        sb_indent(o, em->indent);
        sb_printf(o, "tl_bulk_copy<%s>(", cu_of(em)->sm90a ? "true" : "false");
        cf_ex_addr(em, o, x[0].buf, x[0].idx, "T.ptx_cp_async_bulk");
        sb_puts(o, ", ");
        cf_ex_addr(em, o, x[1].buf, x[1].idx, "T.ptx_cp_async_bulk");
        sb_puts(o, ", ");
        cf_ex_top(em, o, x[2].value, DT_INT32);
        sb_puts(o, ", ");
        cf_ex_addr(em, o, x[3].buf, x[3].idx, "T.ptx_cp_async_bulk");
        sb_puts(o, ");\n");
        return true;
    }
    static const char *const names[][2] = {{"tl_wgmma_raw_ss", "T.ptx_wgmma_ss"},
                                           {"tl_wgmma_raw_rs", "T.ptx_wgmma_rs"},
                                           {"tl_warpgroup_arrive", "T.warpgroup_arrive"},
                                           {"tl_warpgroup_commit", "T.warpgroup_commit_batch"}};
    for (int i = 0; i < 4; i++) {
        if (strcmp(s->u.extern_.name, names[i][0])) continue;
        if (!cu_of(em)->sm90a)
            ctx_fail(em->ctx, s->loc,
                     "%s: wgmma is an sm_90a instruction; this kernel is compiled for %s",
                     names[i][1],
                     em->ctx->opts.arch[0] ? em->ctx->opts.arch : "another architecture");
        if (i > 1) return false;
        cf_loc_comment(em, s->loc);
        cu_wgmma_raw(em, s, i == 1);
        return true;
    }
    return false;
}

/* A loop holding a TMA store: from it on, barriers may run after one (cu_barrier). */
static void stores_in_loop(CuEmit *cu, const Stmt *loop) {
    if (cu->tma_stores && !cu->stores_issued) cu->stores_issued = has_kind(loop, STMT_COPY);
}

/* CfHooks.stmt: distributed loops, allocations, barriers; lets nothing reads (after
 * lowering) are dropped, so the source has no unused variable. */
/* fp8 mma.sync (T.ptx_mma .e4m3/.e5m2) needs sm_89 or newer. */
static void check_mma_arch(CfEmit *em, const Stmt *s) {
    int arch = options_arch_number(&em->ctx->opts);
    if (s->u.extern_.warp && arch < 89 &&
        (strstr(s->u.extern_.name, "_e4m3") || strstr(s->u.extern_.name, "_e5m2")))
        ctx_fail(em->ctx, s->loc,
                 "T.ptx_mma with float8 operands needs sm_89 or newer (mma.sync .e4m3/.e5m2); "
                 "this compilation is for sm_%d",
                 arch);
}

static bool cu_stmt(CfEmit *em, const Stmt *s) {
    switch (s->kind) {
    case STMT_LET: return em->kernel && !used_var(em, s->u.let.var);
    case STMT_WHILE: /* a loop with a TMA store: its barriers may follow one (cu_barrier) */
        stores_in_loop(cu_of(em), s);
        return false;
    case STMT_FOR:
        stores_in_loop(cu_of(em), s);
        if (s->u.for_.kind == LOOP_VECTORIZED) return cu_vectorized_loop(em, s);
        if (s->u.for_.kind != LOOP_PARALLEL || cu_of(em)->dist) return false;
        cf_loc_comment(em, s->loc);
        if (s->u.for_.layout) cu_layout_nest(em, s);
        else emit_distributed(em, s);
        return true;
    case STMT_GEMM:
        cf_loc_comment(em, s->loc);
        cu_gemm(em, s);
        return true;
    case STMT_REDUCE:
        cf_loc_comment(em, s->loc);
        cu_reduce(em, s);
        return true;
    case STMT_COPY:
        cf_loc_comment(em, s->loc);
        cu_copy(em, s);
        return true;
    case STMT_ASYNC:
        if (s->u.async_.commit) cf_line(em, "tl_cp_async_commit();");
        else
            cf_line(em, "tl_%s_wait<%d>();", s->u.async_.wgmma ? "wgmma" : "cp_async",
                    s->u.async_.wait);
        /* the registers are used next: not before the wait, nor reused before it */
        for (int i = 0; i < ASYNC_MAX_FENCED && s->u.async_.acc[i]; i++) {
            const Buffer *b = s->u.async_.acc[i]; /* float32, or 32-bit words of the rest */
            int64_t bytes = b->layout->nlocal * dtype_bytes(b->dtype);
            bool f32 = b->dtype == DT_FLOAT32;
            if (f32 || bytes % 4 == 0)
                cf_line(
                    em,
                    "for (int tl_c = 0; tl_c < %lld; ++tl_c) tl_wgmma_fence_operand(%s%s%s[tl_c]);",
                    (long long)(f32 ? b->layout->nlocal : bytes / 4), f32 ? "" : "((uint32_t *)",
                    cf_buf(em, b), f32 ? "" : ")");
        }
        if (s->u.async_.wgmma && !s->u.async_.acc[0])
            fence_manual_accs(em, cu_of(em)->kernel->u.kernel.body);
        return true;
    case STMT_THREADS:
        cf_loc_comment(em, s->loc);
        emit_threads(em, s);
        return true;
    case STMT_EXTERN: check_mma_arch(em, s); return cu_wgmma_call(em, s);
    case STMT_FENCE:
        cf_loc_comment(em, s->loc);
        cf_line(em, "tl_fence_proxy_async();");
        return true;
    case STMT_SETMAXNREG:
        cf_loc_comment(em, s->loc);
        emit_setmaxnreg(em, s);
        return true;
    case STMT_TURN: cf_line(em, "tl_pingpong_%s(tl_tid);", turn_op_name(s->u.turn.op)); return true;
    case STMT_SPLITK: emit_splitk(em, s->u.splitk.op); return true;
    case STMT_PDL:
        cf_loc_comment(em, s->loc);
        cf_line(em, "tl_pdl_%s(); /* every thread (nothing below sm_90) */",
                s->u.pdl.sync ? "sync" : "trigger");
        return true;
    case STMT_ALLOC: emit_alloc(em, s); return true;
    case STMT_MBAR: emit_mbar(em, s); return true;
    case STMT_NAMED_BAR:
        cf_loc_comment(em, s->loc);
        cf_line(em, "tl_bar_%s<%d, %d>();", s->u.named_bar.arrive ? "arrive" : "sync",
                s->u.named_bar.id, s->u.named_bar.count);
        return true;
    case STMT_GROUP_SYNC:
        cf_loc_comment(em, s->loc);
        emit_group_sync(em, s);
        return true;
    case STMT_WS:
        cf_loc_comment(em, s->loc);
        emit_ws(em, s);
        return true;
    case STMT_KERNEL:
    case STMT_SYNC:
    case STMT_ANNOTATE_LAYOUT:
    case STMT_SWIZZLE:
        cf_loc_comment(em, s->loc);
        emit_simple(em, s);
        return true;
    default: return false;
    }
}

/* CfHooks.atomic: a thread's own copy of a buffer is updated plainly (its previous value
 * first copied to prev). */
static bool cu_atomic(CfEmit *em, const Stmt *s) {
    const Region *d = &s->u.atomic.dst;
    Buffer *b = d->buf;
    if (simt_block_wide(b)) return false;
    AtomicOp op = s->u.atomic.op;
    Expr *old = ir_load(em->ctx, b, d->start, s->loc), *v = s->u.atomic.value;
    if (s->u.atomic.prev) {
        Expr **zero = NEW_ARRAY(&em->ctx->arena, Expr *, 1);
        zero[0] = ir_int(em->ctx, 0, DT_INT32, s->loc);
        cf_store(em, s->u.atomic.prev, zero, old);
    }
    Expr *nv = op == ATOMIC_STORE ? v
                                  : ir_bin(em->ctx,
                                           op == ATOMIC_ADD   ? OP_ADD
                                           : op == ATOMIC_MAX ? OP_MAX
                                           : op == ATOMIC_MIN ? OP_MIN
                                                              : OP_BITOR,
                                           old, v, s->loc);
    cf_store(em, b, d->start, ir_cast(em->ctx, b->dtype, nv, s->loc));
    return true;
}

/* A region is printed by thread 0 in serial code, by the owning thread in a loop. */
static void cu_print_begin(CfEmit *em) {
    if (cu_of(em)->dist) return;
    cf_line(em, "if (tl_tid == 0) {");
    em->indent++;
}

static void cu_print_end(CfEmit *em) {
    if (cu_of(em)->dist) return;
    em->indent--;
    cf_line(em, "}");
}

/* A block vote: __syncthreads_<op> of the whole block, or the vote at the barrier the
 * code's block barriers use (cu_barrier: a T.ws region's, a warp-specialized kernel's
 * consumers'). */
static void cu_block_vote(CfEmit *em, StrBuf *o, const Expr *e) {
    CuEmit *cu = cu_of(em);
    Intrinsic fn = e->u.call.fn;
    int kind = fn == FN_SYNCTHREADS_AND ? 0 : fn == FN_SYNCTHREADS_OR ? 1 : 2;
    if (cu->region_count)
        sb_printf(o, "tl_bar_vote<%d, %d, %d>(", kind, cu->region_id, cu->region_count);
    else if (cu->consumer) sb_printf(o, "tl_bar_vote<%d, 1, %d>(", kind, cu->nthreads);
    else sb_printf(o, "tl_%s(", intrinsic_name(fn));
    cf_ex_top(em, o, e->u.call.args[0], DT_BOOL);
    sb_puts(o, ")");
}

/* CfHooks.cross_thread: tl_cuda.h's tl_shfl_<kind>(value, lane argument), tl_<vote>(arg). */
static void cu_cross_thread(CfEmit *em, StrBuf *o, const Expr *e) {
    Intrinsic fn = e->u.call.fn;
    if (intrinsic_is_block_vote(fn)) {
        cu_block_vote(em, o, e);
        return;
    }
    sb_printf(o, "tl_%s(", intrinsic_name(fn));
    cf_ex(em, o, e->u.call.args[0]);
    if (e->u.call.args[1]) {
        sb_puts(o, ", ");
        cf_ex_top(em, o, e->u.call.args[1], DT_INT32);
    }
    sb_puts(o, ")");
}

/* A failed T.device_assert traps: the launch fails and the CUDA context is unusable. */
static void cu_assert_exit(CfEmit *em) { cf_line(em, "__trap();"); }

static const CfHooks cu_hooks = {
    .reserved = cu_reserved,
    .unroll_pragma = "#pragma unroll",
    .wrap_data_ints = true,
    .stmt = cu_stmt,
    .once = cu_once,
    .atomic = cu_atomic,
    .cross_thread = cu_cross_thread,
    .print_region_begin = cu_print_begin,
    .print_region_end = cu_print_end,
    .elem = cu_elem,
    .assert_exit = cu_assert_exit,
};

/* ---- distributed loops ------------------------------------------------------------------ */
/* A value every thread computes once before a distributed loop: a literal, or a
 * `const` temporary. */
static const char *dist_bound(CfEmit *em, const Expr *e, const char *base) {
    int64_t c;
    if (ir_is_const_int(e, &c)) return arena_printf(&em->ctx->arena, "%lld", (long long)c);
    const char *n = cf_tmp(em, base);
    cf_line(em, "const int64_t %s = %s;", n, cf_ex_str(em, e, DT_INT64, true));
    return n;
}

/* A distributed loop of constant bounds: `for (i = lo + tl_tid; i < hi; i += nthreads)`. */
static void emit_distributed_1d(CfEmit *em, const Stmt *s, int64_t lo, int64_t n) {
    const Var *v = s->u.for_.var;
    const char *i = cf_var(em, v), *ty = cf_value(v->dtype);
    int nthreads = cu_of(em)->nthreads;
    StrBuf start = {0};
    if (lo) sb_printf(&start, "%lld + ", (long long)lo);
    sb_puts(&start, "tl_tid");
    cf_line(em, "for (%s %s = %s; %s < %lld; %s += %d) {  /* parallel: %d threads */", ty, i,
            start.buf, i, (long long)(lo + n), i, nthreads, nthreads);
    sb_free(&start);
    cf_live_add(em, v);
    cu_of(em)->dist++;
    cf_block_body(em, s->u.for_.body);
    cu_of(em)->dist--;
}

/* A distributed nest: iterations flattened, iteration t on thread t % nthreads. */
static void emit_distributed(CfEmit *em, const Stmt *root) {
    Stmt *loops[MAX_NEST];
    int n = simt_parallel_nest((Stmt *)root, loops, MAX_NEST);
    int64_t lo1, n1;
    if (n == 1 && ir_is_const_int(root->u.for_.min, &lo1) &&
        ir_is_const_int(root->u.for_.extent, &n1) && n1 >= 0 && lo1 >= INT32_MIN &&
        lo1 + n1 <= INT32_MAX &&
        (root->u.for_.var->dtype == DT_INT32 || root->u.for_.var->dtype == DT_INT64)) {
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
            ext[k] = cf_tmp(em, "n");
            cf_line(em, "const int64_t %s = tl_max_i64(%s, 0);", ext[k],
                    cf_ex_str(em, e, DT_INT64, true));
        }
    }
    bool narrow = constant && total <= 0x7fffffff;
    const char *tt = narrow ? "int32_t" : "int64_t";
    const char *t = cf_tmp(em, "t");
    StrBuf lim = {0}, names = {0};
    if (constant) sb_printf(&lim, "%lld", (long long)total);
    for (int k = 0; k < n; k++) {
        if (!constant) sb_printf(&lim, "%s%s", k ? " * " : "", ext[k]);
        sb_printf(&names, "%s%s", k ? ", " : "", cf_var(em, loops[k]->u.for_.var));
    }
    int nthreads = cu_of(em)->nthreads;
    cf_line(em, "for (%s %s = tl_tid; %s < %s; %s += %d) {  /* parallel %s: %d threads */", tt, t,
            t, lim.buf, t, nthreads, names.buf, nthreads);
    sb_free(&lim);
    sb_free(&names);
    int mark = em->live.len;
    em->indent++;
    for (int k = 0; k < n; k++) { /* var k = min + (t / (ext[k+1] * ...)) % ext[k] */
        const Var *v = loops[k]->u.for_.var;
        StrBuf idx = {0};
        sb_puts(&idx, t);
        if (k + 1 < n) { /* (a product of constants is one number: t / 8 * 4 is not t / 32) */
            sb_puts(&idx, " / ");
            int64_t inner = 1;
            for (int l = k + 1; l < n && constant; l++)
                ir_is_const_int(loops[l]->u.for_.extent, &c), inner *= c < 0 ? 0 : c;
            if (constant) sb_printf(&idx, "%lld", (long long)inner);
            if (n - k - 1 > 1 && !constant) sb_puts(&idx, "(");
            for (int l = k + 1; l < n && !constant; l++)
                sb_printf(&idx, "%s%s", l > k + 1 ? " * " : "", ext[l]);
            if (n - k - 1 > 1 && !constant) sb_puts(&idx, ")");
        }
        if (k > 0) {
            char *q = arena_printf(a, "(%s) %% %s", idx.buf, ext[k]);
            sb_free(&idx);
            sb_puts(&idx, k + 1 < n ? q : arena_printf(a, "%s %% %s", t, ext[k]));
        }
        const char *ty = cf_value(v->dtype);
        if (!strcmp(mins[k], "0")) cf_line(em, "%s %s = (%s)(%s);", ty, cf_var(em, v), ty, idx.buf);
        else cf_line(em, "%s %s = (%s)(%s + %s);", ty, cf_var(em, v), ty, mins[k], idx.buf);
        sb_free(&idx);
        cf_live_add(em, v);
    }
    cu_of(em)->dist++;
    cf_stmt(em, loops[n - 1]->u.for_.body);
    cu_of(em)->dist--;
    em->indent--;
    em->live.len = mark;
    cf_line(em, "}");
}

/* ---- what a kernel uses ----------------------------------------------------------------- */
typedef CfVarVec VarList;

static bool vars_has(const VarList *vs, const Var *v) {
    for (int i = 0; i < vs->len; i++)
        if (vs->data[i] == v) return true;
    return false;
}

typedef struct VarWalk {
    CfEmit *em;
    VarList *vs;
} VarWalk;

static void vars_expr(VarWalk *w, Expr *e);
static void vars_slot(Expr **slot, void *ud) { vars_expr(ud, *slot); }

static void vars_buf(VarWalk *w, const Buffer *b) {
    if (b->addr && !vars_has(w->vs, b->addr)) /* T.make_tensor: its address's let */
        VEC_PUSH(&w->em->ctx->arena, *w->vs, b->addr);
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

/* A tile op's region: the emitter's bounds checks and addresses use its buffer's shape. */
static void vars_region(Region *r, void *ud) {
    if (r->buf) vars_buf(ud, r->buf);
}

static void vars_stmt(VarWalk *w, Stmt *s) {
    if (s->kind == STMT_STORE) vars_buf(w, s->u.store.buf);
    if (s->kind == STMT_ATOMIC) vars_buf(w, s->u.atomic.dst.buf);
    if (s->kind == STMT_ATOMIC && s->u.atomic.prev) vars_buf(w, s->u.atomic.prev);
    if (s->kind == STMT_EXTERN && s->u.extern_.result) vars_buf(w, s->u.extern_.result);
    for (int i = 0; s->kind == STMT_EXTERN && i < s->u.extern_.nargs; i++)
        if (!s->u.extern_.args[i].value) vars_buf(w, s->u.extern_.args[i].buf);
    if (s->kind == STMT_PRINT && s->u.print.region.buf) vars_buf(w, s->u.print.region.buf);
    ir_stmt_regions(s, vars_region, w);
    ir_stmt_exprs(s, vars_slot, w);
    ir_stmt_children(s, vars_child, w);
}

/* ---- host level: lets, T.alloc_global ------------------------------------------------------ */
typedef struct Host {
    Vec(const Stmt *) lets; /* host-level lets so far, in order */
    Vec(Buffer *) globals;  /* T.alloc_global buffers, in order (CudaPlan.globals) */
} Host;

/* Marks in `need` the host lets (and, through them, the vars) that vs needs. */
static void host_needs(CfEmit *em, const Host *h, VarList *vs, bool *need) {
    VarWalk w = {em, vs};
    for (int i = h->lets.len - 1; i >= 0; i--) {
        const Stmt *l = h->lets.data[i];
        need[i] = vars_has(vs, l->u.let.var);
        if (need[i]) vars_expr(&w, l->u.let.value);
    }
}

/* Grid sizes and T.alloc_global shapes are evaluated by the runtime from the symbols and
 * the int scalar arguments (cuda_eval_launch_int): they may use only those, constants and
 * host lets of them. */
static void check_launch_expr(CfEmit *em, const Host *h, Expr *e, Loc loc, const char *what) {
    VarList vs = {0};
    VarWalk w = {em, &vs};
    vars_expr(&w, e);
    bool *need = NEW_ARRAY(&em->ctx->arena, bool, h->lets.len + 1);
    host_needs(em, h, &vs, need);
    for (int i = 0; i < vs.len; i++) {
        const Var *v = vs.data[i];
        bool ok = false;
        for (int k = 0; k < em->f->syms.len && !ok; k++) ok = em->f->syms.data[k] == v;
        for (int k = 0; k < em->f->params.len && !ok; k++)
            ok = em->f->params.data[k].scalar == v && !dtype_is_float(v->dtype);
        for (int k = 0; k < h->lets.len && !ok; k++) ok = h->lets.data[k]->u.let.var == v;
        if (!ok)
            ctx_fail(em->ctx, loc,
                     "%s uses '%s': on the CUDA target it may only depend on "
                     "tensor shapes (T.dynamic sizes), int scalar arguments and constants",
                     what, v->name);
    }
}

/* ---- kernels ---------------------------------------------------------------------------- */
/* The parameter list of a kernel (cuda.h): params, syms, T.alloc_global buffers, its
 * tensor maps. */
static void kernel_params(CfEmit *em, StrBuf *o, const Host *h, const Stmt *k) {
    Arena *a = &em->ctx->arena;
    const Func *f = em->f;
    int n = 0;
    for (int i = 0; i < f->params.len; i++, n++) {
        const Param *p = &f->params.data[i];
        if (p->buf)
            cf_list_item(o, !n,
                         arena_printf(a, "%s *%s", cf_storage(p->buf->dtype), cf_buf(em, p->buf)));
        else
            cf_list_item(o, !n,
                         arena_printf(a, "%s tl_arg%d",
                                      dtype_is_float(p->scalar->dtype) ? "double" : "int64_t", i));
    }
    for (int i = 0; i < f->syms.len; i++, n++)
        cf_list_item(o, !n, arena_printf(a, "int64_t tl_sym%d", i));
    for (int i = 0; i < h->globals.len; i++, n++)
        cf_list_item(o, !n,
                     arena_printf(a, "%s *%s", cf_storage(h->globals.data[i]->dtype),
                                  cf_buf(em, h->globals.data[i])));
    for (int i = 0; i < k->u.kernel.ntmaps; i++, n++)
        cf_list_item(o, !n, arena_printf(a, "const __grid_constant__ TlTensorMap tl_tmap%d", i));
    if (cu_of(em)->sk) cf_list_item(o, !n++, "unsigned char *tl_sk_ws");
    if (!n) sb_puts(o, "void");
}

/* Scalars, symbols and host lets the kernel uses, as locals of every thread. */
static void declare_inputs(CfEmit *em, const Host *h, VarList *vs) {
    const Func *f = em->f;
    bool *need = NEW_ARRAY(&em->ctx->arena, bool, h->lets.len + 1);
    host_needs(em, h, vs, need);
    for (int i = 0; i < f->params.len; i++) {
        const Var *v = f->params.data[i].scalar;
        if (v && vars_has(vs, v))
            cf_declare_scalar(em, v, arena_printf(&em->ctx->arena, "tl_arg%d", i));
    }
    for (int i = 0; i < f->syms.len; i++) {
        const Var *v = f->syms.data[i];
        if (vars_has(vs, v) && !cf_live_has(em, v))
            cf_declare_scalar(em, v, arena_printf(&em->ctx->arena, "tl_sym%d", i));
    }
    for (int i = 0; i < h->lets.len; i++)
        if (need[i]) cf_let(em, h->lets.data[i]);
}

static void check_slot(CfEmit *em, const CudaSlot *s) {
    Buffer *b = s->buf;
    if (s->elems < 0)
        ctx_fail(em->ctx, b->loc, "the CUDA target needs a constant shape for %s buffer '%s'",
                 scope_name(b->scope), b->name);
}

/* Shared and per-thread storage of the kernel's buffers. */
static void declare_buffers(CfEmit *em, const CudaBuffers *bufs) {
    for (int i = 0; i < bufs->smem.len; i++) {
        const CudaSlot *s = &bufs->smem.data[i];
        const char *st = cf_storage(s->buf->dtype);
        check_slot(em, s);
        cf_line(em, "%s *%s = (%s *)(tl_smem + %lld); /* %s */", st, cf_buf(em, s->buf), st,
                (long long)s->offset, cf_shape_text(em, s->buf));
    }
    for (int i = 0; i < bufs->regs.len; i++) {
        const CudaSlot *s = &bufs->regs.data[i];
        check_slot(em, s);
        cf_line(em, "%s %s[%lld] = {}; /* %s */", cf_storage(s->buf->dtype), cf_buf(em, s->buf),
                (long long)(s->elems > 0 ? s->elems : 1), cf_shape_text(em, s->buf));
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

/* tl_tid, the thread and block variables (the latter remapped by T.use_swizzle), shared
 * memory. */
static void kernel_prologue(CfEmit *em, const Stmt *k, const VarList *vs, int64_t smem, bool tid) {
    const int *th = k->u.kernel.threads;
    if (smem) cf_line(em, "unsigned char *const tl_smem = tl_dynamic_smem();");
    if (!tid) {
    } else if (th[1] * th[2] > 1)
        cf_line(em,
                "const int tl_tid = (int)(threadIdx.x + %d * (threadIdx.y + %d * "
                "threadIdx.z));",
                th[0], th[1]);
    else cf_line(em, "const int tl_tid = (int)threadIdx.x;");
    static const char *const dims = "xyz";
    for (int d = 0; d < 3; d++) { /* T.get_thread_binding */
        const Var *v = k->u.kernel.thread[d];
        if (!v || !vars_has(vs, v)) continue;
        cf_line(em, "const %s %s = (%s)threadIdx.%c;", cf_value(v->dtype), cf_var(em, v),
                cf_value(v->dtype), dims[d]);
        cf_live_add(em, v);
    }
    if (cu_of(em)->persistent) { /* each side sets them per tile (ws_side) */
        for (int d = 0; d < k->u.kernel.ngrid; d++) {
            const Var *v = k->u.kernel.block[d];
            if (!v || !vars_has(vs, v)) continue;
            cf_line(em, "%s %s = 0;", cf_value(v->dtype), cf_var(em, v));
            cf_live_add(em, v);
        }
        return;
    }
    const Stmt *sw = cu_of(em)->swizzle;
    int64_t panel = 0;
    bool swz = sw && ir_is_const_int(sw->u.swizzle.panel, &panel);
    int64_t g[3];
    bool folded = cuda_grid_folded(k, g);
    for (int d = 0; d < k->u.kernel.ngrid; d++) {
        const Var *v = k->u.kernel.block[d];
        if (!v || (!vars_has(vs, v) && !(swz && d < 2))) continue;
        if (folded) { /* digit d of blockIdx.x in the grid's mixed radix (g: the extents) */
            int64_t below = d == 0 ? 1 : d == 1 ? g[0] : g[0] * g[1];
            cf_line(em, "%s %s = (%s)(blockIdx.x%s %% %lldu);", cf_value(v->dtype), cf_var(em, v),
                    cf_value(v->dtype),
                    below > 1 ? arena_printf(&em->ctx->arena, " / %lldu", (long long)below) : "",
                    (long long)g[d]);
        } else
            cf_line(em, "%s %s = (%s)blockIdx.%c;", cf_value(v->dtype), cf_var(em, v),
                    cf_value(v->dtype), dims[d]);
        cf_live_add(em, v);
    }
    if (swz)
        cf_line(em, "tl_swizzle_2d(%lld, &%s, &%s%s); /* T.use_swizzle(%lld%s) */",
                (long long)panel, cf_var(em, k->u.kernel.block[0]),
                cf_var(em, k->u.kernel.block[1]), sw->u.swizzle.column ? ", true" : "",
                (long long)panel, sw->u.swizzle.column ? ", order=\"column\"" : "");
}

/* The T.use_swizzle that kernel_prologue applies (a constant panel on a 2-D or 3-D grid),
 * or NULL. Other swizzles only change the order of blocks: ignoring them is correct. */
static const Stmt *applied_swizzle(const Stmt *k) {
    const Stmt *sw = find_swizzle(k);
    /* (the hardware makes clusters of blocks by blockIdx: a rasterized order would give
     * blocks other cluster peers than the program's ids say) */
    if (!sw || k->u.kernel.ngrid < 2 || !ir_is_const_int(sw->u.swizzle.panel, NULL) ||
        ir_cluster_size(k) > 1 || cuda_grid_folded(k, NULL)) /* (a 1-D launch: no raster) */
        return NULL;
    const Var *x = k->u.kernel.block[0], *y = k->u.kernel.block[1];
    return x && y && x->dtype == DT_INT32 && y->dtype == DT_INT32 ? sw : NULL;
}

typedef struct KindWalk {
    StmtKind kind;
    bool any;
} KindWalk;
static void kind_child(Stmt **slot, void *ud) {
    KindWalk *w = ud;
    w->any |= has_kind(*slot, w->kind);
}

/* Whether s holds a statement of this kind (STMT_GEMM: a wgmma one; STMT_COPY: TMA
 * stores). */
static bool has_kind(const Stmt *s, StmtKind kind) {
    if (s->kind == kind && kind == STMT_COPY)
        return s->u.copy.tma && s->u.copy.dst.buf->scope == SCOPE_GLOBAL;
    if (s->kind == kind) return kind != STMT_GEMM || s->u.gemm.wgmma > 0;
    KindWalk w = {kind, false};
    ir_stmt_children((Stmt *)s, kind_child, &w);
    return w.any;
}

static void emit_kernel(CfEmit *em, const Stmt *k, int id, const Host *h) {
    const int *th = k->u.kernel.threads;
    int64_t nthreads = (int64_t)th[0] * th[1] * th[2];
    int64_t launched = nthreads + k->u.kernel.producer_threads;
    if (nthreads < 1 || nthreads > MAX_THREADS)
        ctx_fail(em->ctx, k->loc, "T.Kernel: %lld threads per block; CUDA allows 1 to %d",
                 (long long)nthreads, MAX_THREADS);
    for (int d = 0; d < k->u.kernel.ngrid; d++)
        check_launch_expr(em, h, k->u.kernel.grid[d], k->loc, "the T.Kernel grid");
    VarList vs = {0};
    VarWalk w = {em, &vs};
    vars_stmt(&w, k->u.kernel.body);
    CuEmit *cu = cu_of(em);
    cu->used = vs;
    cu->wgmma = has_kind(k->u.kernel.body, STMT_GEMM);
    cu->nregions = 0;
    cu->tma_stores = has_kind(k->u.kernel.body, STMT_COPY), cu->stores_issued = false;
    cu->fence_arrive = cu->wgmma && !k->u.kernel.producer_threads &&
                       writes_shared(k->u.kernel.body);
    CudaBuffers bufs;
    cuda_kernel_buffers(&em->ctx->arena, k, &bufs);
    cu->bufs = &bufs;
    cu->persistent = k->u.kernel.persistent; /* pass_plan_launch's decisions */
    cu->cluster = k->u.kernel.cluster > 1 ? k->u.kernel.cluster : 1;
    cu->sk = k->u.kernel.sk_bytes ? cuda_kernel_ws(k)->u.ws.sk : NULL;
    for (int d = 0; cu->persistent && d < k->u.kernel.ngrid; d++)
        vars_expr(&w, k->u.kernel.grid[d]); /* the kernel counts its tiles */
    /* a persistent grid launches one block per SM instead; a folded one, a 1-D grid */
    if (!cu->persistent && !cuda_grid_folded(k, NULL))
        cf_check_grid(em, k, (const int64_t[3]){INT32_MAX, 65535, 65535}, "CUDA");
    if (ir_cluster_size(k) > 1 && options_arch_number(&em->ctx->opts) < 90)
        ctx_fail(em->ctx, k->loc,
                 "T.Kernel: cluster_dims=(%d, %d, %d) needs thread block clusters (sm_90 or "
                 "newer); this compiles for %s: drop cluster_dims or compile for sm_90a",
                 k->u.kernel.cluster_dims[0], k->u.kernel.cluster_dims[1],
                 k->u.kernel.cluster_dims[2], em->ctx->opts.arch);
    if (ir_cluster_size(k) > 1 && k->u.kernel.grid_bar)
        ctx_fail(em->ctx, k->loc,
                 "T.Kernel: T.sync_grid in a kernel with cluster_dims= is not supported on CUDA "
                 "yet (a cooperative launch of clusters); use one or the other");
    if (bufs.smem_bytes > MAX_SMEM)
        ctx_fail(em->ctx, k->loc,
                 "T.Kernel: %lld bytes of shared memory per block; CUDA GPUs "
                 "allow at most %d (227 KB, sm_90); use smaller tiles or fewer num_stages",
                 (long long)bufs.smem_bytes, MAX_SMEM);
    StrBuf *o = em->out;
    em->kernel = k, cu->kernel = k, cu->nthreads = (int)nthreads, cu->dist = 0;
    em->live.len = 0;
    em->last_src = NULL, cu->swizzle = applied_swizzle(k);
    /* the body first, into its own buffer: the prologue declares only what it uses */
    em->out = &cu->body, em->indent = 1;
    cf_stmt(em, k->u.kernel.body);
    em->out = o;
    sb_printf(o, "/* T.Kernel %d (%s): %s, %lld threads%s, %lld bytes of shared memory. */\n", id,
              cf_loc_where(em, k->loc),
              cu->cluster > 1             ? arena_printf(&em->ctx->arena,
                                                         "a persistent grid of clusters "
                                                                     "of %d blocks that share copies, walking the tiles",
                                                         cu->cluster)
              : cu->persistent            ? "a persistent grid, blocks walk the tiles"
              : cuda_grid_folded(k, NULL) ? "one CUDA block per block, on a 1-D grid"
                                          : "one CUDA block per block",
              (long long)nthreads, launched > nthreads ? " and a TMA producer warp group" : "",
              (long long)bufs.smem_bytes);
    /* warp-specialized: one block per SM, which tells ptxas the register count at entry
     * that setmaxnreg moves (else it ignores setmaxnreg, C7508); the program's
     * T.annotate_min_blocks_per_sm wins */
    bool one = launched > nthreads || (cu->sm90a && has_kind(k->u.kernel.body, STMT_SETMAXNREG));
    int min_blocks = k->u.kernel.min_blocks ? k->u.kernel.min_blocks : one;
    sb_printf(o, "extern \"C\" __global__ void __launch_bounds__(%lld", (long long)launched);
    if (min_blocks) sb_printf(o, ", %d", min_blocks);
    sb_puts(o, ") ");
    const int *cd = k->u.kernel.cluster_dims;
    if (ir_cluster_size(k) > 1) /* the program's clusters */
        sb_printf(o, "__cluster_dims__(%d, %d, %d) ", cd[0] > 1 ? cd[0] : 1, cd[1] > 1 ? cd[1] : 1,
                  cd[2] > 1 ? cd[2] : 1);
    else if (cu->cluster > 1) sb_printf(o, "__cluster_dims__(%d, 1, 1) ", cu->cluster);
    sb_printf(o, "tilec_kernel_%d(", id);
    kernel_params(em, o, h, k);
    sb_puts(o, ")\n{\n");
    bool tid = bufs.smem_bytes || (cu->body.buf && strstr(cu->body.buf, "tl_tid"));
    kernel_prologue(em, k, &vs, bufs.smem_bytes, tid);
    declare_inputs(em, h, &vs);
    if (cu->persistent) {
        const char *g[3] = {"1", "1", "1"};
        const Stmt *ws = cuda_kernel_ws(k);
        for (int d = 0; d < k->u.kernel.ngrid; d++) {
            g[d] = cf_ex_str(em, k->u.kernel.grid[d], DT_INT32, true);
            if (cu->cluster > 1 && d == ws->u.ws.cluster_dim) /* tiles of clusters */
                g[d] = arena_printf(&em->ctx->arena, "(%s) / %d", g[d], cu->cluster);
        }
        cf_line(em, "const int tl_gx = %s, tl_gy = %s, tl_ntiles = tl_gx * tl_gy * (%s);", g[0],
                g[1], g[2]);
    }
    declare_buffers(em, &bufs);
    if (bufs.zero_bytes) {
        cf_line(em, "tl_smem_zero(tl_smem, %lld, tl_tid, %lld);", (long long)bufs.zero_bytes,
                (long long)launched);
        cf_line(em, "__syncthreads();");
    }
    if (cu->body.buf) sb_puts(o, cu->body.buf);
    sb_free(&cu->body);
    if (cu->tma_stores && !k->u.kernel.producer_threads) /* (ws_side: the consumers') */
        cf_line(em, "if (tl_tid == 0) tl_tma_store_wait_read();");
    sb_puts(o, "}\n\n");
    em->indent = 0, em->kernel = NULL;
}

static void host_let(CfEmit *em, Host *h, const Stmt *s) {
    if (ir_expr_loads(s->u.let.value))
        ctx_fail(em->ctx, s->loc,
                 "outside T.Kernel, a value cannot read a tensor on the CUDA "
                 "target (the tensor is in GPU memory); move this into the kernel");
    VEC_PUSH(&em->ctx->arena, h->lets, s);
}

/* ---- the file ---------------------------------------------------------------------------- */
static void emit_kernels(CfEmit *em) {
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
            ctx_fail(em->ctx, s->loc,
                     "this statement must be inside a 'with T.Kernel(...)' "
                     "block");
        }
    }
}

char *cuda_emit(Ctx *ctx, const Func *f) {
    CuEmit *cu = NEW(&ctx->arena, CuEmit);
    CfEmit *em = &cu->cf;
    StrBuf kbuf = {0};
    cf_init(em, ctx, f, &cu_hooks);
    em->out = &kbuf;
    int arch = options_arch_number(&ctx->opts);
    cu->sm90a = arch == 90;
    cu->stmatrix = arch >= 90 && !ctx->opts.no_stmatrix;
    jmp_buf jb, *saved = ctx->on_error;
    if (CTX_TRY(ctx, &jb)) { /* free the heap buffers if a user error unwinds through here */
        sb_free(&kbuf);
        sb_free(&cu->body);
        ctx->on_error = saved;
        longjmp(*saved, 1);
    }
    cf_reserve_params(em);
    if (f->body) emit_kernels(em);
    ctx->on_error = saved;
    StrBuf all = {0};
    sb_printf(&all,
              "// Generated by tilec (target cuda) from %s: prim_func %s.\n"
              "// Launch ABI: src/targets/cuda/cuda.h. NVRTC options: %s, sm_80 or newer.\n",
              f->loc.src && f->loc.src->name ? cf_comment_text(&ctx->arena, f->loc.src->name)
                                             : "<source>",
              f->name ? f->name : "main",
              ctx->opts.fast_math ? CUDA_FAST_MATH_OPTS : CUDA_IEEE_OPTS);
    sb_puts(&all, embedded_tl_c_h); /* the scalar semantics, shared with the C target */
    sb_puts(&all, "\n");
    sb_puts(&all, embedded_tl_cuda_h);
    sb_puts(&all, "\n");
    cf_imports(em, &all, "kernel.cu"); /* target_cuda.c SOURCE_NAME: log lines annotated */
    sb_puts(&all, "\n// ---- kernels ----\n\n");
    if (kbuf.buf) sb_puts(&all, kbuf.buf);
    char *res = arena_strdup(&ctx->arena, all.buf);
    sb_free(&all);
    sb_free(&kbuf);
    return res;
}
