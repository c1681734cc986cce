/* plan_launch.c - pass_plan_launch, the last CUDA pass: each kernel's launch shape,
 * recorded on its STMT_KERNEL (persistent, cluster, sk_bytes) and printed with the IR, so
 * the lowered IR says what runs. The emitter and the launch plan (cuda_plan.c) read it.
 *
 * Requires: the lowered kernels (after pass_split_warp_groups: their buffers are final,
 * cuda_kernel_buffers). Provides: STMT_KERNEL.persistent, .cluster, .sk_bytes, as
 * cuda.h's launch ABI describes them (CudaKernelPlan); for a kernel with T.sync_grid,
 * STMT_KERNEL.grid_bar, a T.alloc_global of two uint32 words before the kernel (the
 * runtime zeroes each launch's), which tl_grid_sync counts on. */
#include "targets/cuda/passes/cuda_passes.h"

#include "ir/ir_walk.h"
#include "layout/frag.h"

/* Whether the kernel runs on a persistent grid: its warp-specialized loop counts tiles
 * (STMT_WS.tile), no shared memory is zeroed at entry (bufs), and the setting
 * no_persistent is off. Each CUDA block then runs the T.Kernel blocks (tiles) blockIdx.x,
 * blockIdx.x + gridDim.x, ... in the order of T.use_swizzle (cuda.h). */
static bool kernel_persistent(const Stmt *kernel, const CudaBuffers *bufs, const Options *o) {
    const Stmt *ws = cuda_kernel_ws(kernel);
    return ws && ws->u.ws.tile && !bufs->zero_bytes && !o->no_persistent;
}

/* The most blocks of kernel that a GPU of options_sm_count SMs (default 132: the H100
 * SXM's and the H200's, the most of the sm_90 parts) runs at once: the SMs times the
 * blocks that its threads and shared memory let share an SM (228 KB, 1 KB of it reserved
 * per block). An upper bound of a persistent launch's grid (target_cuda.c: resident). */
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

/* Bytes of one block's partial result in a split-K launch (CudaKernelPlan.sk_bytes): the
 * accumulators of STMT_WS.sk of every consumer thread; 0 unless the kernel is persistent,
 * has split-K units and may have few enough tiles to split (a constant grid of more than
 * half the blocks a GPU of options_sm_count SMs holds never splits). */
static int64_t kernel_sk_bytes(const Stmt *kernel, const CudaBuffers *bufs, const Options *o) {
    const Stmt *ws = cuda_kernel_ws(kernel);
    if (!ws || !ws->u.ws.sk || !kernel_persistent(kernel, bufs, o) || never_splits(kernel, bufs, o))
        return 0;
    int64_t n = 0;
    for (int i = 0; i < ws->u.ws.sk->nacc; i++) n += ws->u.ws.sk->acc[i]->layout->nlocal;
    return n * kernel->u.kernel.threads[0] * 4;
}

/* Blocks per cluster (__cluster_dims__): STMT_WS.cluster on a persistent grid, else 1
 * (a kernel that cannot walk tiles runs its multicast copies as plain ones). */
static int kernel_cluster(const Stmt *kernel, const CudaBuffers *bufs, const Options *o) {
    const Stmt *ws = cuda_kernel_ws(kernel);
    return ws && ws->u.ws.cluster > 1 && kernel_persistent(kernel, bufs, o) ? ws->u.ws.cluster : 1;
}

/* A host-level SEQ of f's body with the barrier words of each kernel with T.sync_grid
 * before it. */
static void plan_grid_bars(Ctx *ctx, Func *f) {
    Stmt *body = f->body;
    int n = body && body->kind == STMT_SEQ ? body->u.seq.len : body ? 1 : 0;
    Stmt **items = body && body->kind == STMT_SEQ ? body->u.seq.data : &f->body;
    Stmt *seq = ir_seq(ctx, body ? body->loc : f->loc);
    bool any = false;
    for (int i = 0; i < n; i++) {
        Stmt *s = items[i];
        if (s->kind == STMT_KERNEL && !s->u.kernel.grid_bar &&
            ir_group_syncs(s->u.kernel.body) & 1u << GSYNC_GRID) {
            Buffer *b = ir_buffer(ctx, "grid_barrier", DT_UINT32, SCOPE_GLOBAL, 1, s->loc);
            b->shape[0] = ir_int(ctx, 2, DT_INT32, s->loc);
            Stmt *a = ir_stmt(ctx, STMT_ALLOC, s->loc);
            a->u.alloc.buf = b;
            ir_seq_push(ctx, seq, a);
            s->u.kernel.grid_bar = b, any = true;
        }
        ir_seq_push(ctx, seq, s);
    }
    if (any) f->body = seq;
}

void pass_plan_launch(Ctx *ctx, Func *f) {
    plan_grid_bars(ctx, f);
    Stmt *body = f->body;
    int n = body && body->kind == STMT_SEQ ? body->u.seq.len : body ? 1 : 0;
    Stmt **items = body && body->kind == STMT_SEQ ? body->u.seq.data : &f->body;
    for (int i = 0; i < n; i++) {
        Stmt *s = items[i];
        if (s->kind != STMT_KERNEL) continue;
        CudaBuffers bufs;
        cuda_kernel_buffers(&ctx->arena, s, &bufs);
        s->u.kernel.persistent = kernel_persistent(s, &bufs, &ctx->opts);
        s->u.kernel.cluster = kernel_cluster(s, &bufs, &ctx->opts);
        s->u.kernel.sk_bytes = kernel_sk_bytes(s, &bufs, &ctx->opts);
    }
}
