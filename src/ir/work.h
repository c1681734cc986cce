/* work.h - the work a kernel does (tensor-core FLOPs of its T.gemm operations, bytes
 * moved to and from global memory), counted before lowering and evaluated at launch for
 * benchmark reports and tl_kernel_work. */
#ifndef TILEC_WORK_H
#define TILEC_WORK_H

#include "ir/ir.h"

typedef struct KernelWork {
    int ngrid;
    Expr *grid[3];
    Var *block[3];
    Expr *flops; /* per block, over syms and block vars (NULL: none) */
    Expr *bytes; /* global bytes per block, the same way (NULL: none) */
} KernelWork;

typedef struct Work {
    Vec(KernelWork) kernels;
    /* a count that cannot be made statically (a gemm or a global access in a while loop,
       or in a loop whose bound depends on another loop's variable) */
    bool flops_unknown, bytes_unknown;
} Work;

/* Call before any lowering pass. */
Work *work_model(Ctx *ctx, const Func *f);
/* FLOPs for the given sym values (f->syms order); 0 if unknown or no gemm. */
double work_flops(const Work *w, const Func *f, const int64_t *syms);
/* Global bytes moved for the given sym values; -1 if unknown. */
double work_global_bytes(const Work *w, const Func *f, const int64_t *syms);

#endif
