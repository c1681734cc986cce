/* work.h - the work a kernel does (tensor-core FLOPs of its T.gemm operations), counted
 * before lowering and evaluated at launch for benchmark reports. */
#ifndef TILEC_WORK_H
#define TILEC_WORK_H

#include "ir/ir.h"

typedef struct KernelWork {
    int ngrid;
    Expr *grid[3];
    Var *block[3];
    Expr *flops; /* per block, over syms and block vars */
} KernelWork;

typedef struct Work {
    Vec(KernelWork) kernels;
} Work;

/* NULL when the FLOPs cannot be counted statically (a gemm in a loop whose bound
 * depends on another loop). Call before any lowering pass. */
Work *work_model(Ctx *ctx, const Func *f);
/* FLOPs for the given sym values (f->syms order); 0 if unknown or no gemm. */
double work_flops(const Work *w, const Func *f, const int64_t *syms);

#endif
