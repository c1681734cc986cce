/* cuda.h - the CUDA target's internal interface, shared by its compiler half (lower.c,
 * the pass pipeline; emit_cuda.c, the source; cuda_plan.c, the launch plan) and its
 * runtime half (target_cuda.c: NVRTC, driver API, launch).
 *
 * Launch ABI of the generated source (the contract between both halves):
 *   - Each top-level STMT_KERNEL i of the lowered Func becomes
 *       extern "C" __global__ void __launch_bounds__(threads) tilec_kernel_<i>(
 *           <one argument per Func param, in order: a pointer (device address) for a
 *            buffer, the value as int64_t (ints, bool) or double (floats) for a scalar>,
 *           <one int64_t per Func sym, in f->syms order>,
 *           <one pointer per T.alloc_global buffer, in the order of CudaPlan.globals>,
 *           <one `const __grid_constant__ TlTensorMap` per TMA map of the kernel, in
 *            CudaKernelPlan.tmaps order: a CUtensorMap the runtime encodes at each
 *            launch from the argument (cuda_tmap_geometry)>,
 *           <with CudaKernelPlan.sk_bytes > 0: `unsigned char *tl_sk_ws`, the split-K
 *            workspace of the launch's g <= CUDA_SK_MAX_BLOCKS blocks (tl_sk_part in
 *            tl_cuda.h: CUDA_SK_MAX_BLOCKS 32-bit flags, zero at launch and left zero,
 *            then g x sk_bytes), or NULL: no tile is split>)
 *   - The block has CudaKernelPlan.block threads: the T.Kernel's, plus a producer warp
 *     group after them in a warp-specialized kernel.
 *   - The grid is the T.Kernel's (folded into x when its y or z is a constant over CUDA's
 *     limit: cuda_grid_folded), or for a persistent kernel (CudaKernelPlan.persistent)
 *     (min(tiles, blocks the GPU holds at once), 1, 1), tiles = the product of the
 *     T.Kernel's grid, which the kernel evaluates itself (with sk_bytes > 0 all the blocks
 *     the GPU holds: fewer tiles are split along K); with CudaKernelPlan.cluster > 1
 *     (the kernel's __cluster_dims__(cluster, 1, 1)) a multiple of the cluster, at most
 *     cluster x cuOccupancyMaxActiveClusters.
 *   - A kernel with T.sync_grid (CudaKernelPlan.cooperative) is launched cooperatively,
 *     its grid at most the blocks the GPU holds at once (else the launch fails with an
 *     error that says so); one with cluster_dims= has __cluster_dims__ and a grid that
 *     is a multiple of them.
 *   - Kernels run one after another on the caller's stream.
 *   - Dynamic shared memory of kernel i is CudaKernelPlan.smem_bytes (the runtime sets
 *     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES when it exceeds 48 KB). */
#ifndef TILEC_TARGET_CUDA_H
#define TILEC_TARGET_CUDA_H

#include "ir/ir.h"
#include "targets/target.h"

/* The flags of a split-K workspace: as many as the most blocks a split-K launch may have
 * (TL_SK_MAX_BLOCKS of tl_cuda.h). */
enum { CUDA_SK_MAX_BLOCKS = 4096 };

/* The arithmetic options a generated source names on its second line (emit_cuda.c) and
 * its build uses (target_cuda.c): IEEE without contraction, the C target's arithmetic, or
 * fast math for a kernel with pass_configs tl.enable_fast_math. */
#define CUDA_IEEE_OPTS "--fmad=false (the C target's arithmetic)"
#define CUDA_FAST_MATH_OPTS "--use_fast_math (pass_configs tl.enable_fast_math)"

typedef struct CudaKernelPlan {
    const char *name; /* "tilec_kernel_0" */
    int ngrid;
    const Expr *grid[3]; /* over f->syms and int scalars; cuda_eval_launch_int */
    int block[3];        /* threads */
    int64_t smem_bytes;  /* dynamic shared memory */
    bool persistent;     /* STMT_KERNEL.persistent: the grid is what the GPU holds */
    int cluster;         /* STMT_KERNEL.cluster: blocks per cluster (1: no cluster) */
    int cluster_dims[3]; /* the program's clusters (T.Kernel cluster_dims=, its
                            __cluster_dims__): the grid must be a multiple; 1s: none */
    bool cooperative;    /* T.sync_grid: launched with cuLaunchCooperativeKernel, every
                            block resident at once (STMT_KERNEL.grid_bar) */
    int64_t sk_bytes;    /* STMT_KERNEL.sk_bytes: a block's split-K partial result */
    int ntmaps;
    const TmaMap *const *tmaps; /* its TMA tensor maps (kernel.tmaps) */
    bool folded;                /* cuda_grid_folded: launched as (x * y * z, 1, 1) */
} CudaKernelPlan;

/* What cuTensorMapEncodeTiled takes for a map at one launch: the tensor parameter, its
 * dims innermost first, the byte strides of dims 1 .. rank-1, the box. */
typedef struct CudaTmapGeom {
    int param; /* index of the tensor in f->params */
    int rank, elem_bytes, swizzle;
    uint64_t dims[TMA_MAX_RANK], strides[TMA_MAX_RANK];
    uint32_t box[TMA_MAX_RANK];
} CudaTmapGeom;

typedef struct CudaPlan {
    int nkernels;
    CudaKernelPlan *kernels;
    int nglobals;
    const Buffer **globals; /* T.alloc_global buffers: the runtime allocates them per launch */
} CudaPlan;

/* The CUDA target (target_cuda.c), the entry of target.c's table. */
extern const Target target_cuda;

/* lower.c: the pass pipeline; emit_cuda.c: the source of a lowered Func; cuda_plan.c:
 * its launch plan. */
void cuda_lower(Ctx *ctx, Func *f);
char *cuda_emit(Ctx *ctx, const Func *f);
CudaPlan cuda_plan(Arena *a, const Func *f);
/* Whether kernel (lowered, not persistent, no cluster_dims=) has a constant grid whose y
 * or z exceeds CUDA's 65535 blocks while x * y * z fits grid x (2^31 - 1): it is then
 * launched as a 1-D grid, and its block indices are blockIdx.x's digits in the grid's
 * mixed radix, x fastest (the program's blocks, in the order CUDA runs a 3-D grid).
 * grid (if not NULL) gets the three extents. */
bool cuda_grid_folded(const Stmt *kernel, int64_t grid[3]);

/* Evaluates an integer expression over the syms (values in f->syms order). Returns 0 and
 * sets *out, or -1 if the expression uses anything else. */
int cuda_eval_int(const Func *f, const Expr *e, const int64_t *syms, int64_t *out);
/* The same at a launch: int scalar parameters take their values from args (Target.launch's;
 * NULL: none), so a grid may be sized by a scalar argument (T.Kernel(T.ceildiv(max_len, 64))). */
int cuda_eval_launch_int(const Func *f, const Expr *e, const int64_t *syms, void *const *args,
                         int64_t *out);
/* The geometry of map m for these syms; -1 with err when the tensor cannot have one (an
 * empty dimension, strides the hardware does not take). */
int cuda_tmap_geometry(const Func *f, const TmaMap *m, const int64_t *syms, CudaTmapGeom *g,
                       StrBuf *err);

#endif
