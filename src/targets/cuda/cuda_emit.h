/* cuda_emit.h - internals of the CUDA emitter shared by emit_cuda.c (the pipeline and
 * the source) and cuda_plan.c (buffer placement, launch plan): where a kernel's buffers
 * live. Private to src/targets/cuda. */
#ifndef TILEC_CUDA_EMIT_H
#define TILEC_CUDA_EMIT_H

#include "cuda.h"

/* ---- buffers of one kernel (cuda_plan.c) ---------------------------------------------- */
/* Block-wide buffers (shared, fragment, and per-thread ones made block-wide by
 * pass_map_threads) get fixed 16-byte aligned offsets in one dynamic shared allocation,
 * in the order of their T.alloc; per-thread buffers (local, var) become arrays in each
 * thread. No lifetime reuse yet. */
typedef struct CudaSlot {
    Buffer *buf;
    int64_t offset; /* in the dynamic shared memory; -1 for per-thread buffers */
    int64_t elems;  /* number of elements; -1 if the shape is not constant */
} CudaSlot;

typedef struct CudaBuffers {
    Vec(CudaSlot) smem, regs;
    int64_t smem_bytes; /* multiple of 16 */
} CudaBuffers;

void cuda_kernel_buffers(Arena *a, const Stmt *kernel, CudaBuffers *out);

#endif
