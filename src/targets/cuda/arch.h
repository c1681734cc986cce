/* arch.h - the GPU architecture the CUDA target compiles for (arch.c) and what the
 * lowering derives from it; read by the CUDA passes, the emitter and the build. */
#ifndef TILEC_CUDA_ARCH_H
#define TILEC_CUDA_ARCH_H

#include "targets/cuda/driver.h"

/* The architecture kernels are compiled for ("sm_80", "sm_90a"): $TILEC_CUDA_ARCH if set,
 * else the current device's (the current context's, else device 0), sm_90 as sm_90a.
 * 0, else -1 with the reason in why. The lowering may use it to pick a code path. */
int cuda_arch(char *out, size_t n, StrBuf *why);
/* "sm_<major><minor>" of device dev, sm_90 as sm_90a; 0, else -1 with the reason. */
int cuda_device_arch(const CudaDriver *d, int dev, char *out, size_t n, StrBuf *why);
/* The compute capability compiled for (90 for sm_90a), 0 if unknown. */
int cuda_lowering_arch(void);
/* Whether kernels are compiled for sm_90 (wgmma) and TILEC_NO_WGMMA is not set. */
bool cuda_lowering_wgmma(void);
/* Registers a thread holds in a block of `threads` launched one per SM
 * (__launch_bounds__(threads, 1)): the SM's 64K over the threads in multiples of 8, at
 * most 255. setmaxnreg budgets must fit that block's total. */
int cuda_launch_regs(int threads);

#endif
