/* arch.h - the GPU architecture the CUDA target compiles for (arch.c): Target.arch, which
 * options_fill asks once per compilation; the passes, the emitter and the build read the
 * result from the settings (Options.arch, options_arch_number, options_wgmma). */
#ifndef TILEC_CUDA_ARCH_H
#define TILEC_CUDA_ARCH_H

#include "targets/cuda/driver.h"

/* Target.arch (OptionsArchFn): given ("sm_80", "sm_90a", ...; NULL: none) checked, else
 * the current device's (the current context's, else device 0), sm_90 as sm_90a. 0; 1
 * when none was given and no device says (why); -1 when given is not one (why). *sms:
 * that device's multiprocessors (0 without one), whether or not the arch was given. */
int cuda_target_arch(const char *given, char *out, size_t n, int *sms, StrBuf *why);
/* "sm_<major><minor>" of device dev, sm_90 as sm_90a; 0, else -1 with the reason. */
int cuda_device_arch(const CudaDriver *d, int dev, char *out, size_t n, StrBuf *why);
/* Registers a thread holds in a block of `threads` launched one per SM
 * (__launch_bounds__(threads, 1)): the SM's 64K over the threads in multiples of 8, at
 * most 255. setmaxnreg budgets must fit that block's total. */
int cuda_launch_regs(int threads);

#endif
