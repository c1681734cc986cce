/* driver.c - loads libcuda.so.1 and libnvrtc with dlopen, once per process, and wraps
 * the few driver services the runtime needs: contexts, device memory, copies.
 *
 * The libraries are never unloaded: their function tables and the retained primary
 * contexts live as long as the process (as the CUDA runtime's do). Every call is checked
 * and a failure names the call and the driver's error (see driver.h). */
#include "targets/cuda/driver.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const cuda_driver_symbols[] = {
#define X(field, sym, params, req) sym,
    CUDA_DRIVER_FUNCS(X)
#undef X
        NULL};

const char *const cuda_nvrtc_symbols[] = {
#define X(field, sym, params, req) sym,
    CUDA_NVRTC_FUNCS(X)
#undef X
        NULL};

/* ---- libcuda ---------------------------------------------------------------------------- */
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;
static CudaDriver drv;
static int drv_resolved; /* the table is filled (cuGetErrorName usable) */
static int drv_ok;       /* ... and cuInit succeeded with a device */
static char drv_why[512];
static CuContext *drv_primary; /* [ndevices] retained primary contexts */
static pthread_mutex_t drv_primary_lock = PTHREAD_MUTEX_INITIALIZER;

/* dlsym every entry of a table (the body of drv_resolve / nvrtc_resolve): 0, or -1 with
 * the first required symbol that is missing in missing_. */
#define RESOLVE_ONE(field, sym, params, req)                                                       \
    p_ = dlsym(lib_, sym);                                                                         \
    if (!p_ && (req)) {                                                                            \
        snprintf(missing_, missing_n_, "%s", sym);                                                 \
        return -1;                                                                                 \
    }                                                                                              \
    memcpy(&tbl_->field, &p_, sizeof p_); /* object -> function pointer (POSIX) */

static int drv_resolve(void *lib_, CudaDriver *tbl_, char *missing_, size_t missing_n_) {
    void *p_;
    CUDA_DRIVER_FUNCS(RESOLVE_ONE)
    return 0;
}

static int nvrtc_resolve(void *lib_, CudaNvrtc *tbl_, char *missing_, size_t missing_n_) {
    void *p_;
    CUDA_NVRTC_FUNCS(RESOLVE_ONE)
    p_ = dlsym(lib_, "nvrtcGetErrorString");
    memcpy(&tbl_->GetErrorString, &p_, sizeof p_);
    return 0;
}

static void drv_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void drv_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(drv_why, sizeof drv_why, fmt, ap);
    va_end(ap);
}

/* "NAME (text)" of a driver error, once the table is resolved. */
static void cu_error_text(CuResult r, StrBuf *out) {
    const char *name = NULL, *text = NULL;
    if (drv_resolved && drv.GetErrorName(r, &name) != CUDRV_SUCCESS) name = NULL;
    if (drv_resolved && drv.GetErrorString(r, &text) != CUDRV_SUCCESS) text = NULL;
    if (name) sb_printf(out, "%s (%s)", name, text ? text : "no description");
    else sb_printf(out, "CUDA driver error %d", r);
}

/* cuInit, the devices, and the table of primary contexts. */
static void drv_init_devices(void) {
    StrBuf e = {0};
    CuResult r = drv.Init(0);
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (r == CUDRV_ERROR_STUB_LIBRARY) {
        drv_fail("no NVIDIA driver (libcuda.so.1 is the CUDA toolkit's stub library)");
    } else if (r != CUDRV_ERROR_NO_DEVICE &&
               (cuda_check(r, "cuInit", &e) || CU_CALL(&drv, &e, DeviceGetCount, (&drv.ndevices)) ||
                CU_CALL(&drv, &e, DriverGetVersion, (&drv.version)))) {
        drv_fail("%s", e.buf);
    } else if (r == CUDRV_ERROR_NO_DEVICE || drv.ndevices < 1) {
        drv_fail("no CUDA device%s%s%s", vis ? " (CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "",
                 vis ? ")" : "");
    } else {
        drv_primary = calloc((size_t)drv.ndevices, sizeof *drv_primary);
        drv_ok = drv_primary != NULL;
        if (!drv_ok) drv_fail("out of memory");
    }
    sb_free(&e);
}

static void drv_load(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        if (e && !strstr(e, "No such file")) drv_fail("cannot load libcuda.so.1: %s", e);
        else drv_fail("no NVIDIA driver (libcuda.so.1 not found)");
        return;
    }
    char missing[128];
    if (drv_resolve(lib, &drv, missing, sizeof missing)) {
        drv_fail("the NVIDIA driver is too old: libcuda.so.1 has no %s", missing);
        return;
    }
    drv_resolved = 1;
    drv_init_devices();
}

const CudaDriver *cuda_driver(StrBuf *why) {
    pthread_once(&drv_once, drv_load);
    if (drv_ok) return &drv;
    if (why) sb_puts(why, drv_why);
    return NULL;
}

int cuda_check(CuResult r, const char *call, StrBuf *err) {
    if (r == CUDRV_SUCCESS) return 0;
    sb_printf(err, "%s failed: ", call);
    cu_error_text(r, err);
    return -1;
}

/* ---- libnvrtc ---------------------------------------------------------------------------- */
static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT;
static CudaNvrtc nvrtc;
static int nvrtc_ok;
static char nvrtc_why[1024];
static char nvrtc_path[1024];

/* dlopen of path; a failure other than "not there" is remembered in err (first one). */
static void *nvrtc_try(const char *path, char *err, size_t n) {
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib) return lib;
    const char *e = dlerror();
    if (e && !strstr(e, "No such file") && !err[0]) snprintf(err, n, "%s", e);
    return NULL;
}

static void *nvrtc_open(char *err, size_t n) {
    static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    char path[1100];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD); /* already loaded (PyTorch) */
        if (lib) return lib;
    }
    for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++) {
        if (!roots[r] || !*roots[r]) continue;
        for (int sub = 0; sub < 2; sub++)
            for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
                snprintf(path, sizeof path, "%s/%s/%s", roots[r], sub ? "lib" : "lib64", names[i]);
                void *lib = access(path, F_OK) == 0 ? nvrtc_try(path, err, n) : NULL;
                if (lib) return lib;
            }
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *lib = nvrtc_try(names[i], err, n);
        if (lib) return lib;
    }
    return NULL;
}

static void nvrtc_load(void) {
    char err[512] = "";
    const char *env = getenv("TILEC_NVRTC");
    void *lib = env && *env ? nvrtc_try(env, err, sizeof err) : nvrtc_open(err, sizeof err);
    if (!lib && env && *env) {
        snprintf(nvrtc_why, sizeof nvrtc_why, "cannot load NVRTC from TILEC_NVRTC=%s%s%s", env,
                 err[0] ? ": " : " (no such file)", err);
        return;
    }
    if (!lib) {
        snprintf(nvrtc_why, sizeof nvrtc_why,
                 "NVRTC (libnvrtc.so) not found in $CUDA_HOME, "
                 "$CUDA_PATH, /usr/local/cuda or the library path: install the CUDA "
                 "toolkit, or set CUDA_HOME or TILEC_NVRTC%s%s",
                 err[0] ? "; " : "", err);
        return;
    }
    char missing[128];
    if (nvrtc_resolve(lib, &nvrtc, missing, sizeof missing)) {
        snprintf(nvrtc_why, sizeof nvrtc_why,
                 "NVRTC is too old: it has no %s (CUDA 11.2 "
                 "or newer is needed)",
                 missing);
        return;
    }
    struct link_map *lm = NULL;
    snprintf(nvrtc_path, sizeof nvrtc_path, "%s",
             dlinfo(lib, RTLD_DI_LINKMAP, &lm) == 0 && lm ? lm->l_name : "libnvrtc");
    nvrtc.path = nvrtc_path;
    if (nvrtc.Version(&nvrtc.major, &nvrtc.minor) != CUDRV_NVRTC_SUCCESS) {
        snprintf(nvrtc_why, sizeof nvrtc_why, "nvrtcVersion failed (%.900s)", nvrtc_path);
        return;
    }
    nvrtc_ok = 1;
}

const CudaNvrtc *cuda_nvrtc(StrBuf *why) {
    pthread_once(&nvrtc_once, nvrtc_load);
    if (nvrtc_ok) return &nvrtc;
    if (why) sb_puts(why, nvrtc_why);
    return NULL;
}

int nvrtc_check(NvrtcResult r, const char *call, StrBuf *err) {
    if (r == CUDRV_NVRTC_SUCCESS) return 0;
    const char *s = nvrtc_ok && nvrtc.GetErrorString ? nvrtc.GetErrorString(r) : NULL;
    if (s) sb_printf(err, "%s failed: %s", call, s);
    else sb_printf(err, "%s failed: NVRTC error %d", call, r);
    return -1;
}

/* ---- contexts ---------------------------------------------------------------------------- */
int cuda_primary_ctx(int dev, CuContext *out, StrBuf *err) {
    const CudaDriver *d = cuda_driver(err);
    if (!d) return -1;
    if (dev < 0 || dev >= d->ndevices) {
        sb_printf(err, "CUDA device %d does not exist (this machine has %d)", dev, d->ndevices);
        return -1;
    }
    int rc = 0;
    pthread_mutex_lock(&drv_primary_lock);
    if (!drv_primary[dev]) {
        CuDevice h;
        CuContext c;
        rc = CU_CALL(d, err, DeviceGet, (&h, dev)) ||
             CU_CALL(d, err, DevicePrimaryCtxRetain, (&c, h));
        if (!rc) drv_primary[dev] = c;
    }
    *out = drv_primary[dev];
    pthread_mutex_unlock(&drv_primary_lock);
    return rc ? -1 : 0;
}

int cuda_ctx_current(CuContext *ctx, int *dev, StrBuf *err) {
    const CudaDriver *d = cuda_driver(err);
    if (!d || CU_CALL(d, err, CtxGetCurrent, (ctx))) return -1;
    if (*ctx) {
        CuDevice h;
        if (CU_CALL(d, err, CtxGetDevice, (&h))) return -1;
        *dev = h; /* device handles are the ordinals */
        return 0;
    }
    *dev = 0;
    return cuda_primary_ctx(0, ctx, err) || CU_CALL(d, err, CtxSetCurrent, (*ctx)) ? -1 : 0;
}

int cuda_ctx_for_device(int dev, CuContext *ctx, StrBuf *err) {
    const CudaDriver *d = cuda_driver(err);
    if (!d || CU_CALL(d, err, CtxGetCurrent, (ctx))) return -1;
    CuDevice h;
    if (*ctx && d->CtxGetDevice(&h) == CUDRV_SUCCESS && h == dev) return 0;
    return cuda_primary_ctx(dev, ctx, err);
}

int cuda_ctx_enter(CuContext ctx, CudaCtxScope *s, StrBuf *err) {
    const CudaDriver *d = cuda_driver(err);
    CuContext cur = NULL;
    s->pushed = 0;
    if (!d || CU_CALL(d, err, CtxGetCurrent, (&cur))) return -1;
    if (cur == ctx) return 0;
    if (!cur) return CU_CALL(d, err, CtxSetCurrent, (ctx));
    if (CU_CALL(d, err, CtxPushCurrent, (ctx))) return -1;
    s->pushed = 1;
    return 0;
}

void cuda_ctx_leave(CudaCtxScope *s) {
    CuContext popped;
    if (s->pushed) (void)drv.CtxPopCurrent(&popped);
    s->pushed = 0;
}

/* ---- memory ------------------------------------------------------------------------------ */
static int mem_enter(int dev, CudaCtxScope *s, StrBuf *err) {
    CuContext ctx;
    return cuda_ctx_for_device(dev, &ctx, err) || cuda_ctx_enter(ctx, s, err) ? -1 : 0;
}

int cuda_mem_alloc(int dev, size_t n, void *stream, void **out, StrBuf *err) {
    *out = NULL;
    if (n == 0) return 0;
    CudaCtxScope s;
    if (mem_enter(dev, &s, err)) return -1;
    CuDevPtr p = 0;
    int rc = CU_CALL(&drv, err, MemAlloc, (&p, n));
    if (!rc && CU_CALL(&drv, err, MemsetD8Async, (p, 0, n, (CuStream)stream))) {
        (void)drv.MemFree(p);
        rc = -1;
    }
    cuda_ctx_leave(&s);
    if (!rc) *out = (void *)(uintptr_t)p;
    return rc;
}

void cuda_mem_free(int dev, void *p) {
    StrBuf err = {0};
    CudaCtxScope s;
    if (p && mem_enter(dev, &s, &err) == 0) {
        (void)drv.MemFree((CuDevPtr)(uintptr_t)p); /* nothing to report it to */
        cuda_ctx_leave(&s);
    }
    sb_free(&err);
}

int cuda_memcpy(void *dst, int dst_dev, const void *src, int src_dev, size_t n, StrBuf *err) {
    if (n == 0) return 0;
    if (dst_dev < 0 && src_dev < 0) return memcpy(dst, src, n), 0;
    CudaCtxScope s;
    if (mem_enter(dst_dev >= 0 ? dst_dev : src_dev, &s, err)) return -1;
    CuDevPtr dp = (CuDevPtr)(uintptr_t)dst, sp = (CuDevPtr)(uintptr_t)src;
    int rc;
    if (src_dev < 0) rc = CU_CALL(&drv, err, MemcpyHtoD, (dp, src, n));
    else if (dst_dev < 0) rc = CU_CALL(&drv, err, MemcpyDtoH, (dst, sp, n));
    else rc = CU_CALL(&drv, err, MemcpyDtoD, (dp, sp, n));
    /* HtoD from pageable memory and DtoD may return before the copy is done. */
    if (!rc && dst_dev >= 0) rc = CU_CALL(&drv, err, StreamSynchronize, (NULL));
    cuda_ctx_leave(&s);
    return rc;
}

int cuda_stream_sync(int dev, void *stream, StrBuf *err) {
    CudaCtxScope s;
    if (mem_enter(dev, &s, err)) return -1;
    int rc = CU_CALL(&drv, err, StreamSynchronize, ((CuStream)stream));
    cuda_ctx_leave(&s);
    return rc;
}

/* ---- tilec info ----------------------------------------------------------------------- */
typedef struct DeviceFacts {
    char name[256];
    int major, minor, sms;
    size_t mem;
} DeviceFacts;

/* 0 and the facts of device i, or -1 if the driver does not give it. */
static int device_facts(const CudaDriver *d, int i, DeviceFacts *f) {
    CuDevice h;
    *f = (DeviceFacts){.name = "?"};
    if (d->DeviceGet(&h, i) != CUDRV_SUCCESS) return -1;
    (void)d->DeviceGetName(f->name, (int)sizeof f->name, h);
    (void)d->DeviceGetAttribute(&f->major, CUDRV_DEV_ATTR_CC_MAJOR, h);
    (void)d->DeviceGetAttribute(&f->minor, CUDRV_DEV_ATTR_CC_MINOR, h);
    (void)d->DeviceGetAttribute(&f->sms, CUDRV_DEV_ATTR_MULTIPROCESSOR_COUNT, h);
    (void)d->DeviceTotalMem(&f->mem, h);
    return 0;
}

static void describe_device(const CudaDriver *d, int i, StrBuf *sb) {
    DeviceFacts f;
    if (device_facts(d, i, &f)) return;
    sb_printf(sb, "  GPU %d: %s, compute capability %d.%d, %d SMs, %.1f GiB\n", i, f.name, f.major,
              f.minor, f.sms, (double)f.mem / (1024.0 * 1024.0 * 1024.0));
}

void cuda_describe_json(StrBuf *sb) {
    StrBuf why = {0};
    const CudaDriver *d = cuda_driver(&why);
    sb_puts(sb, "{\"driver\": ");
    if (d) sb_printf(sb, "\"%d.%d\"", d->version / 1000, d->version % 1000 / 10);
    else sb_puts(sb, "null");
    sb_puts(sb, ", \"driver_error\": ");
    sb_json_str(sb, d ? NULL : why.buf);
    sb_puts(sb, ", \"gpus\": [");
    for (int i = 0, n = 0; d && i < d->ndevices; i++) {
        DeviceFacts f;
        if (device_facts(d, i, &f)) continue;
        sb_printf(sb, "%s{\"index\": %d, \"name\": ", n++ ? ", " : "", i);
        sb_json_str(sb, f.name);
        sb_printf(sb,
                  ", \"compute_capability\": \"%d.%d\", \"sms\": %d, \"memory_bytes\": "
                  "%zu}",
                  f.major, f.minor, f.sms, f.mem);
    }
    why.len = 0;
    const CudaNvrtc *n = cuda_nvrtc(&why);
    sb_puts(sb, "], \"nvrtc\": ");
    if (n) {
        sb_printf(sb, "{\"version\": \"%d.%d\", \"path\": ", n->major, n->minor);
        sb_json_str(sb, n->path);
        sb_puts(sb, "}, \"nvrtc_error\": null}");
    } else {
        sb_puts(sb, "null, \"nvrtc_error\": ");
        sb_json_str(sb, why.buf);
        sb_puts(sb, "}");
    }
    sb_free(&why);
}

void cuda_describe(StrBuf *sb) {
    StrBuf why = {0};
    const CudaDriver *d = cuda_driver(&why);
    if (d) {
        sb_printf(sb, "  CUDA driver: %d.%d (libcuda.so.1)\n", d->version / 1000,
                  d->version % 1000 / 10);
        for (int i = 0; i < d->ndevices; i++) describe_device(d, i, sb);
    } else {
        sb_printf(sb, "  CUDA driver: not available: %s\n", why.buf);
    }
    why.len = 0;
    const CudaNvrtc *n = cuda_nvrtc(&why);
    if (n) sb_printf(sb, "  NVRTC: %d.%d (%s)\n", n->major, n->minor, n->path);
    else sb_printf(sb, "  NVRTC: not available: %s\n", why.buf);
    sb_free(&why);
}
