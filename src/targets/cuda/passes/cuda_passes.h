/* cuda_passes.h - the CUDA target's lowering passes (src/targets/cuda/passes) and the
 * facts about lowered IR that they establish for the emitter. Run in the order of
 * src/targets/cuda/lower.c. */
#ifndef TILEC_CUDA_PASSES_H
#define TILEC_CUDA_PASSES_H

#include "passes/passes.h"
#include "targets/cuda/arch.h"

/* CUDA: symbolic row lengths and strides of the tensor parameters assumed multiples of
 * 16 bytes (Var.multiple, Func.sym_multiple; the first pass, assume_aligned.c). */
void pass_assume_aligned(Ctx *ctx, Func *f);
/* How integer e changes over a run v = b .. b + V - 1, b a multiple of V (vector_runs.c):
 * ok when e(b + r) = e(b) + coef * r over the run; base_mult: e(b) is a multiple of V. */
typedef struct RunStep {
    bool ok;
    int64_t coef;
    bool base_mult;
} RunStep;
RunStep cuda_run_step(const Expr *e, const Var *v, int64_t V);
/* e has one value over each run. */
bool cuda_run_uniform(const Expr *e, const Var *v, int64_t V);
/* b[idx] is one aligned vector of V elements per run: contiguous, its row a multiple of
 * V, the last index stepping by 1 from a multiple of V, the others uniform. */
bool cuda_run_vector(const Buffer *b, Expr *const *idx, const Var *v, int64_t V);
/* CUDA (SIMT model, see src/targets/cuda/passes/map_threads.c): thread-distributed loops, barriers. */
void pass_map_threads(Ctx *ctx, Func *f);         /* which loops the block's threads share */
void pass_insert_sync_threads(Ctx *ctx, Func *f); /* __syncthreads from memory hazards */
/* CUDA: drops the warp-group turns (STMT_TURN) of kernels where a block barrier falls
 * inside a turn (pipeline_schedule.c). */
void pass_check_turns(Ctx *ctx, Func *f);
/* CUDA: tensor-core gemms and fragment reductions kept as tile ops (cuda_keep_tile_op);
 * register fragments, their layouts and the loops' thread mappings (infer_layouts.c). */
bool cuda_keep_tile_op(const Stmt *s);
/* CUDA: whether a T.gemm_sp whose operands sit where a kept gemm's do runs on mma.sp
 * (gemm_sp.c; runtime/cuda/tl_cuda.h tl_gemm_sp_ss), else it is lowered to loops. */
bool cuda_gemm_sp_kept(const Stmt *s);
/* Whether operand r (A or B) of gemm s is a K slice of whole 128-byte column panels of a
 * wider shared tile (Q[:, j * 64:(j + 1) * 64] with j * 64 a multiple of 64): the tile is
 * then stored in panels, so the slice is a whole tile at start * rows elements. */
bool cuda_gemm_kslice(const Stmt *s, const Region *r);
void pass_infer_layouts(Ctx *ctx, Func *f);
/* CUDA sm_90a: a fragment -> shared -> global epilogue that does not fit beside the
 * pipeline's stages, in column chunks (chunk_staging.c; before pass_lower_tile_ops). */
void pass_chunk_staging(Ctx *ctx, Func *f);
/* CUDA: a shared tile whose accesses each stay in one of several column ranges becomes a
 * tile per range, so that gemms on those slices read whole tiles (split_shared.c; before
 * pass_stage_gemm_operands). */
void pass_split_shared(Ctx *ctx, Func *f);
/* CUDA: a T.gemm whose B (or transposed A) is a fragment reads a shared copy of it, so
 * that it runs on tensor cores (stage_operands.c; before pass_lower_tile_ops). */
void pass_stage_gemm_operands(Ctx *ctx, Func *f);
/* CUDA: elements per vector of a T.copy between global and shared that runs as a vector
 * copy, else 0; software pipelining of T.Pipelined loops (pipeline_async.c: cp.async, or
 * on sm_90a a TMA producer warp group and mbarriers, warp_specialize.c). */
int cuda_copy_vector(const Stmt *s);
void pass_pipeline_async(Ctx *ctx, Func *f);
/* CUDA: kernels scheduled by hand with the Tier 3 primitives (manual_schedule.c): whether
 * a kernel is one (before pass_pipeline_async, which then leaves it alone), and their
 * TMA copies and checks (after pass_infer_layouts). */
bool cuda_hand_scheduled(const Stmt *kernel);
void pass_manual_schedule(Ctx *ctx, Func *f);
/* Fails with why T.wgmma_gemm s cannot be a wgmma (also where an earlier pass would
 * lower it to loops). */
void cuda_fail_manual_gemm(Ctx *ctx, const Stmt *s);
/* CUDA sm_90a: whether copy c of kernel could become TMA stores, its tile's layout aside
 * (pass_infer_layouts gives the tile one TMA reads), and those stores (tma_store.c;
 * after pass_pipeline_async). */
bool cuda_tma_store_candidate(const Options *o, const Func *f, Stmt *kernel, const Stmt *c);
void pass_tma_store(Ctx *ctx, Func *f);
/* After the barriers: one copy of such a kernel's control flow per warp-group set
 * (manual_schedule.c). */
void pass_split_warp_groups(Ctx *ctx, Func *f);
/* The launch shape of each kernel (persistent grid, cluster, split-K bytes), recorded on
 * its STMT_KERNEL (plan_launch.c; the last pass). */
void pass_plan_launch(Ctx *ctx, Func *f);
/* After pass_map_threads: the loops of the distributed nest rooted at LOOP_PARALLEL loop
 * `root` (root, then each LOOP_PARALLEL loop that is the only statement of the previous
 * one's body), at most max; returns their number. */
int simt_parallel_nest(Stmt *root, Stmt **loops, int max);
/* Whether b is block-wide in the SIMT model (global, shared, or a fragment without a
 * register layout), not per-thread. */
bool simt_block_wide(const Buffer *b);

/* ---- buffers of one kernel (kernel_buffers.c) ------------------------------------------ */
/* Block-wide buffers (shared, fragments without a register layout, and per-thread ones
 * made block-wide by pass_map_threads) get 16-byte aligned offsets (1024 for swizzled
 * tiles) in one dynamic shared allocation. Those a program may read before writing come
 * first, in the order of their T.alloc, and are zeroed at block entry; the others (whose
 * first use writes all of them, or Buffer.overwritten) follow, and one may reuse the
 * bytes of another whose lifetime has ended;
 * per-thread buffers (local, var) and register fragments (layout->nlocal elements)
 * become arrays in each thread. No lifetime reuse yet. */
typedef struct CudaSlot {
    Buffer *buf;
    int64_t offset; /* in the dynamic shared memory; -1 for per-thread buffers */
    int64_t elems;  /* number of elements; -1 if the shape is not constant */
} CudaSlot;

typedef struct CudaBuffers {
    Vec(CudaSlot) smem, regs;
    int64_t smem_bytes; /* multiple of 16 */
    int64_t zero_bytes; /* the prefix zeroed at entry (overwritten buffers come after) */
} CudaBuffers;

void cuda_kernel_buffers(Arena *a, const Stmt *kernel, CudaBuffers *out);

/* The shared-memory bytes [lo, hi) of each block-wide buffer of a kernel; buffers whose
 * lifetimes do not meet may share bytes. Returns the count. */
typedef struct SmemRange {
    const Buffer *buf;
    int64_t lo, hi;
} SmemRange;
int cuda_smem_ranges(Arena *a, const Stmt *kernel, SmemRange **out);
/* The kernel's STMT_WS (the last item of its body after pass_warp_specialize), or NULL. */
const Stmt *cuda_kernel_ws(const Stmt *kernel);

#endif
