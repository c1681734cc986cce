/* arch.c - the GPU architecture the CUDA target compiles for, and what the lowering
 * derives from it (arch.h). The one the settings give (tl_options.arch, the setting arch,
 * $TILEC_CUDA_ARCH: options.c reads them), checked here, else the compute capability of
 * the current device (the current context's, else device 0), with sm_90 compiled as
 * sm_90a so that Hopper-only instructions are usable. */
#include "targets/cuda/arch.h"

#include <stdio.h>
#include <string.h>

/* "sm_" + 2 or 3 digits + an optional feature letter ("a", "f"). */
static int arch_valid(const char *s) {
    if (strncmp(s, "sm_", 3) != 0) return 0;
    int digits = 0;
    for (s += 3; *s >= '0' && *s <= '9'; s++) digits++;
    if (*s >= 'a' && *s <= 'z') s++;
    return (digits == 2 || digits == 3) && !*s;
}

/* The device kernels of this thread would run on, without creating a context. */
static int arch_device(const CudaDriver *d, StrBuf *why) {
    CuContext c = NULL;
    CuDevice h = 0;
    if (CU_CALL(d, why, CtxGetCurrent, (&c))) return -1;
    if (c && CU_CALL(d, why, CtxGetDevice, (&h))) return -1;
    return h;
}

int cuda_device_arch(const CudaDriver *d, int dev, char *out, size_t n, StrBuf *why) {
    CuDevice h;
    int major = 0, minor = 0;
    if (CU_CALL(d, why, DeviceGet, (&h, dev)) ||
        CU_CALL(d, why, DeviceGetAttribute, (&major, CUDRV_DEV_ATTR_CC_MAJOR, h)) ||
        CU_CALL(d, why, DeviceGetAttribute, (&minor, CUDRV_DEV_ATTR_CC_MINOR, h)))
        return -1;
    snprintf(out, n, "sm_%d%d%s", major, minor, major == 9 && minor == 0 ? "a" : "");
    return 0;
}

/* The multiprocessors of the device kernels would run on, 0 when no driver says. */
static int device_sms(void) {
    StrBuf w = {0};
    const CudaDriver *d = cuda_driver(&w);
    int dev = d ? arch_device(d, &w) : -1, sms = 0;
    CuDevice h;
    if (dev < 0 || d->DeviceGet(&h, dev) ||
        d->DeviceGetAttribute(&sms, CUDRV_DEV_ATTR_MULTIPROCESSOR_COUNT, h))
        sms = 0;
    sb_free(&w);
    return sms;
}

int cuda_target_arch(const char *given, char *out, size_t n, int *sms, StrBuf *why) {
    *sms = device_sms();
    if (given) {
        if (!arch_valid(given)) {
            sb_puts(why, "not a CUDA architecture (expected e.g. sm_80 or sm_90a)");
            return -1;
        }
        snprintf(out, n, "%s", given);
        return 0;
    }
    StrBuf w = {0};
    const CudaDriver *d = cuda_driver(&w);
    int dev = d ? arch_device(d, &w) : -1;
    int rc = dev < 0 || cuda_device_arch(d, dev, out, n, &w) ? 1 : 0;
    if (rc)
        sb_printf(why,
                  "cannot tell which GPU architecture to compile for (%s): give one "
                  "(--arch, options arch, or set TILEC_CUDA_ARCH), e.g. sm_80 or sm_90a",
                  w.buf);
    sb_free(&w);
    return rc;
}

/* ---- what the lowering derives from it ------------------------------------------------- */
int cuda_launch_regs(int threads) {
    int r = 65536 / threads / 8 * 8;
    return r > 255 ? 255 : r;
}
