/* cuda_emit.h - internals of the CUDA emitter shared by emit_cuda.c (the pipeline and
 * the source) and cuda_plan.c (buffer placement, launch plan): where a kernel's buffers
 * live. Private to src/targets/cuda. */
#ifndef TILEC_CUDA_EMIT_H
#define TILEC_CUDA_EMIT_H

#include "cuda.h"

/* ---- buffers of one kernel (cuda_plan.c) ---------------------------------------------- */
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

/* The kernel's STMT_WS (the last item of its body after pass_warp_specialize), or NULL. */
const Stmt *cuda_kernel_ws(const Stmt *kernel);
/* Whether the kernel runs on a persistent grid: its warp-specialized loop counts tiles
 * (STMT_WS.tile), no shared memory is zeroed at entry (bufs), and the setting
 * no_persistent is off. Each CUDA block then runs the T.Kernel blocks (tiles) blockIdx.x,
 * blockIdx.x + gridDim.x, ... in the order of T.use_swizzle (cuda.h). */
bool cuda_kernel_persistent(const Stmt *kernel, const CudaBuffers *bufs, const Options *o);
/* Bytes of one block's partial result in a split-K launch (CudaKernelPlan.sk_bytes): the
 * accumulators of STMT_WS.sk of every consumer thread; 0 unless the kernel is persistent,
 * has split-K units and may have few enough tiles to split (a constant grid of more than
 * half the blocks a GPU of options_sm_count SMs holds never splits). */
int64_t cuda_kernel_sk_bytes(const Stmt *kernel, const CudaBuffers *bufs, const Options *o);
/* Blocks per cluster (__cluster_dims__): STMT_WS.cluster on a persistent grid, else 1
 * (a kernel that cannot walk tiles runs its multicast copies as plain ones). */
int cuda_kernel_cluster(const Stmt *kernel, const CudaBuffers *bufs, const Options *o);

/* ---- the emitter's state (emit_cuda.c) and its tile parts (emit_tiles.c) ------------ */
#include "targets/cfamily.h"
#include "layout/frag.h"

/* A global or shared access of a layout loop done as one vector per V elements: the
 * element reference (idx, by identity) reads or writes element tl_e of the temporary. */
typedef struct CuVecAccess {
    Buffer *buf;
    Expr *const *idx;
    const char *tmp;
    const char *storage; /* element type of the buffer */
} CuVecAccess;

enum { CU_MAX_VEC = 16 };

/* The layout loop being emitted: its nest variables (dimension k of lay), the name of its
 * local-index variable, and its vector accesses (e: the element within the vector). */
typedef struct CuLoop {
    const Frag *lay;
    const Var *vars[FRAG_MAX_DIMS];
    int n;
    const char *l;
    const char *e;
    CuVecAccess vec[CU_MAX_VEC];
    int nvec;
} CuLoop;

typedef struct CuEmit {
    CfEmit cf;              /* first: the hooks get &cf */
    StrBuf body;            /* the body of the kernel being emitted */
    const Stmt *swizzle;    /* its T.use_swizzle applied at entry, or NULL */
    int nthreads;           /* threads of the block */
    int dist;               /* > 0 inside a distributed loop */
    CfVarVec used;          /* vars the kernel being emitted reads */
    const CuLoop *loop;     /* the layout loop being emitted, or NULL */
    bool wgmma;             /* the kernel has wgmma gemms: barriers fence the async proxy */
    bool stmatrix;          /* the target has stmatrix (sm_90+; TILEC_NO_STMATRIX unset) */
    bool consumer;          /* inside the consumer of a STMT_WS: barriers are of its threads */
    int region_count;       /* inside a T.ws region of this many threads (else 0): its
                               barriers are named barrier region_id's */
    int region_id;
    int regions[15][2];     /* the kernel's distinct regions (lo, count): region i has
                               named barrier i + 1 */
    int nregions;
    bool sm90a;             /* the target is sm_90a: setmaxnreg, TMA, expect_tx */
    bool tma_stores;        /* the kernel has TMA stores */
    bool stores_issued;     /* the code being emitted may run after one: its barriers wait
                               for their reads (cu_barrier) */
    bool fence_arrive;      /* the code being emitted writes shared memory that a wgmma
                               may read after an mbarrier: its arrivals fence the async
                               proxy first */
    const Stmt *kernel;     /* the T.Kernel being emitted */
    bool persistent;        /* cuda_kernel_persistent: each side of its WS walks the tiles */
    int cluster;            /* cuda_kernel_cluster */
    const SplitK *sk;       /* its split-K units (persistent kernels), or NULL */
    const CudaBuffers *bufs; /* its buffers */
} CuEmit;

static inline CuEmit *cu_of(CfEmit *em) { return (CuEmit *)em; }

/* A T.Parallel nest with a register layout (For.layout): each thread runs the iterations
 * it owns, one per local index, in an unrolled loop. */
void cu_layout_nest(CfEmit *em, const Stmt *root);
/* CfHooks.elem: register fragments (local index from the layout loop) and swizzled
 * shared tiles. */
bool cu_elem(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx);
/* Inside a layout loop whose layout has replicas: the condition that picks one thread
 * per element ("tl_tid == ..."), else NULL. */
const char *cu_primary_replica(CfEmit *em);
/* Kept tile ops: T.gemm on tensor cores (tl_gemm_ss / tl_gemm_rs), T.reduce over
 * register fragments (per thread, then warp shuffles, then shared memory across warps). */
void cu_gemm(CfEmit *em, const Stmt *s);
/* A kept T.copy between global and shared: vectors spread over the threads, cp.async
 * when Stmt.copy.async. */
void cu_copy(CfEmit *em, const Stmt *s);
void cu_reduce(CfEmit *em, const Stmt *s);
/* A barrier of the threads that run the code being emitted: __syncthreads(), or the
 * named barrier of the consumer warp groups of a warp-specialized kernel or of a T.ws
 * region. */
void cu_barrier(CfEmit *em);

#endif
