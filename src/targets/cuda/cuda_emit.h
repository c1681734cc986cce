/* cuda_emit.h - internals of the CUDA emitter shared by emit_cuda.c (the pipeline and
 * the source) and cuda_plan.c (buffer placement, launch plan): where a kernel's buffers
 * live. Private to src/targets/cuda. */
#ifndef TILEC_CUDA_EMIT_H
#define TILEC_CUDA_EMIT_H

#include "cuda.h"
#include "targets/cuda/passes/cuda_passes.h"

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
    Expr *guard;         /* a load made only where this holds (one value per run), or NULL */
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
    CfEmit cf;           /* first: the hooks get &cf */
    StrBuf body;         /* the body of the kernel being emitted */
    const Stmt *swizzle; /* its T.use_swizzle applied at entry, or NULL */
    int nthreads;        /* threads of the block */
    int dist;            /* > 0 inside a distributed loop */
    CfVarVec used;       /* vars the kernel being emitted reads */
    const CuLoop *loop;  /* the layout loop being emitted, or NULL */
    bool wgmma;          /* the kernel has wgmma gemms: barriers fence the async proxy */
    bool stmatrix;       /* the target has stmatrix (sm_90+; the setting no_stmatrix off) */
    bool consumer;       /* inside the consumer of a STMT_WS: barriers are of its threads */
    int region_count;    /* inside a T.ws region of this many threads (else 0): its
                               barriers are named barrier region_id's */
    int region_id;
    int regions[15][2]; /* the kernel's distinct regions (lo, count): region i has
                               named barrier i + 1 */
    int nregions;
    bool sm90a;              /* the target is sm_90a: setmaxnreg, TMA, expect_tx */
    bool tma_stores;         /* the kernel has TMA stores */
    bool stores_issued;      /* the code being emitted may run after one: its barriers wait
                               for their reads (cu_barrier) */
    bool fence_arrive;       /* the code being emitted writes shared memory that a wgmma
                               may read after an mbarrier: its arrivals fence the async
                               proxy first */
    const Stmt *kernel;      /* the T.Kernel being emitted */
    bool persistent;         /* STMT_KERNEL.persistent: each side of its WS walks the tiles */
    int cluster;             /* STMT_KERNEL.cluster, at least 1 */
    const SplitK *sk;        /* its split-K units (persistent kernels), or NULL */
    const CudaBuffers *bufs; /* its buffers */
} CuEmit;

static inline CuEmit *cu_of(CfEmit *em) { return (CuEmit *)em; }

/* A T.Parallel nest with a register layout (For.layout): each thread runs the iterations
 * it owns, one per local index, in an unrolled loop. */
void cu_layout_nest(CfEmit *em, const Stmt *root);
/* A T.vectorized loop whose body copies runs of global or shared memory (one 4- to 16-byte
 * vector per store) into any buffer: a vector load each, then the elements. false (nothing
 * printed) for any other loop. */
bool cu_vectorized_loop(CfEmit *em, const Stmt *loop);
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
