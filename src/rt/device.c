/* device.c - memory where tensors live: host memory here, and the memory of each target
 * with a device through its TargetDevice (a GPU target loads its driver on first use, so
 * the host-only paths never touch it). No target is named here. */
#include "rt/rt.h"

#include <stdlib.h>
#include <string.h>

/* d as memory: -1 for host memory, the device index for a target device's memory (that
 * device in *owner), -2 for anything else. */
static int dev_ordinal(DLDevice d, const TargetDevice **owner) {
    *owner = NULL;
    if (d.device_type == kDLCPU) return -1;
    const Target *t;
    for (int i = 0; (t = target_at(i)); i++) {
        int o = t->device ? t->device->ordinal(d) : -2;
        if (o >= 0) *owner = t->device;
        if (o >= -1) return o;
    }
    return -2;
}

/* The target device that allocates memory of DLPack type dl_type, or NULL. */
static const TargetDevice *allocator(int dl_type) {
    const Target *t;
    for (int i = 0; (t = target_at(i)); i++)
        if (t->device && t->device->dl_type == dl_type) return t->device;
    return NULL;
}

bool rt_dev_allocatable(int dl_type) { return dl_type == kDLCPU || allocator(dl_type); }

void rt_dev_kinds(StrBuf *out) {
    const Target *t;
    int n = 0, k = 0;
    for (int i = 0; (t = target_at(i)); i++) n += t->device != NULL;
    sb_puts(out, "cpu");
    for (int i = 0; (t = target_at(i)); i++)
        if (t->device) sb_printf(out, "%s%s", ++k == n ? " and " : ", ", t->device->name);
}

static int dev_unsupported(DLDevice d, const char *what, StrBuf *err) {
    StrBuf name = {0}, kinds = {0};
    rt_device_name(d, &name);
    rt_dev_kinds(&kinds);
    sb_printf(err, "cannot %s memory on %s: tilec handles %s memory only", what, name.buf,
              kinds.buf);
    sb_free(&name);
    sb_free(&kinds);
    return -1;
}

int rt_dev_alloc(DLDevice dev, size_t n, void *stream, void **out, StrBuf *err) {
    *out = NULL;
    const TargetDevice *td = allocator((int)dev.device_type);
    if (td && dev.device_id >= 0) return td->mem_alloc(dev.device_id, n, stream, out, err);
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
    const TargetDevice *td = allocator((int)dev.device_type);
    if (td) td->mem_free(dev.device_id, p);
    else free(p);
}

int rt_dev_copy(void *dst, DLDevice dst_dev, const void *src, DLDevice src_dev, size_t n,
                StrBuf *err) {
    const TargetDevice *dt, *st;
    int dd = dev_ordinal(dst_dev, &dt), sd = dev_ordinal(src_dev, &st);
    if (dd == -2) return dev_unsupported(dst_dev, "copy to", err);
    if (sd == -2) return dev_unsupported(src_dev, "copy from", err);
    if (dt && st && dt != st) {
        sb_puts(err, "cannot copy between the devices of two targets");
        return -1;
    }
    if (!dt && !st) {
        if (n) memcpy(dst, src, n);
        return 0;
    }
    return (dt ? dt : st)->mem_copy(dst, dd, src, sd, n, err);
}

int rt_dev_sync(DLDevice dev, void *stream, StrBuf *err) {
    const TargetDevice *td;
    int d = dev_ordinal(dev, &td);
    if (d == -2) return dev_unsupported(dev, "wait for", err);
    return td ? td->stream_sync(d, stream, err) : 0;
}
