/* device.c - memory where tensors live: host memory, and CUDA device memory through the
 * driver API (targets/cuda/driver.h, loaded on first use, so the host-only paths never
 * touch libcuda). */
#include "rt/rt.h"
#include "targets/cuda/driver.h"

#include <stdlib.h>
#include <string.h>

/* -1 for host memory, the CUDA ordinal for device memory, -2 for anything else. */
static int dev_ordinal(DLDevice d) {
    switch ((int)d.device_type) {
    case kDLCPU:
    case kDLCUDAHost: return -1;
    case kDLCUDA:
    case kDLCUDAManaged: return d.device_id >= 0 ? d.device_id : -2;
    default: return -2;
    }
}

static int dev_unsupported(DLDevice d, const char *what, StrBuf *err) {
    StrBuf name = {0};
    rt_device_name(d, &name);
    sb_printf(err, "cannot %s memory on %s: tilec handles cpu and cuda memory only", what,
              name.buf);
    sb_free(&name);
    return -1;
}

int rt_dev_alloc(DLDevice dev, size_t n, void *stream, void **out, StrBuf *err) {
    *out = NULL;
    if (dev.device_type == kDLCUDA && dev.device_id >= 0)
        return cuda_mem_alloc(dev.device_id, n, stream, out, err);
    if (dev.device_type != kDLCPU) return dev_unsupported(dev, "allocate", err);
    if (n > SIZE_MAX - 64) n = SIZE_MAX - 64; /* fails below */
    size_t bytes = (n + 63) / 64 * 64;
    *out = aligned_alloc(64, bytes ? bytes : 64);
    if (!*out) {
        sb_printf(err, "cannot allocate %zu bytes of host memory", n);
        return -1;
    }
    memset(*out, 0, bytes);
    return 0;
}

void rt_dev_free(DLDevice dev, void *p) {
    if (dev.device_type == kDLCUDA) cuda_mem_free(dev.device_id, p);
    else free(p);
}

int rt_dev_copy(void *dst, DLDevice dst_dev, const void *src, DLDevice src_dev, size_t n,
                StrBuf *err) {
    int dd = dev_ordinal(dst_dev), sd = dev_ordinal(src_dev);
    if (dd == -2) return dev_unsupported(dst_dev, "copy to", err);
    if (sd == -2) return dev_unsupported(src_dev, "copy from", err);
    return cuda_memcpy(dst, dd, src, sd, n, err);
}

int rt_dev_sync(DLDevice dev, void *stream, StrBuf *err) {
    int d = dev_ordinal(dev);
    if (d == -2) return dev_unsupported(dev, "wait for", err);
    return d < 0 ? 0 : cuda_stream_sync(d, stream, err);
}
