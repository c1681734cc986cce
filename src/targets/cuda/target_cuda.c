/* target_cuda.c - the CUDA target's runtime half: NVRTC compile to CUBIN, module load,
 * launch through the driver API (the pipeline is lower.c, the emitter emit_cuda.c; the
 * launch ABI between both halves is in cuda.h).
 *
 * Architecture: the settings' (Options.arch: tl_options.arch, the setting arch or
 * $TILEC_CUDA_ARCH), which options_fill takes from Target.arch (cuda_target_arch, arch.c):
 * the one given, checked, else the current device's. Building needs NVRTC only, not a
 * GPU, when the architecture is given. A module lives in the context that was current
 * when it was loaded (device 0's primary context if none was, which is PyTorch's too);
 * launches enter that context and queue every kernel on the caller's stream. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "targets/cuda/arch.h"
#include "targets/cuda/cuda.h"
#include "targets/cuda/driver.h"

/* Options of every NVRTC compile besides the architecture (in the settings, options_key)
 * and include directory; part of the toolchain id. The last one is the arithmetic:
 * --fmad=false (no fused multiply-add, so float results match the C target bit for bit),
 * or --use_fast_math with the setting fast_math (pass_configs tl.enable_fast_math,
 * TileLang's meaning; the source names it on its second line, CUDA_FAST_MATH_OPTS). */
static const char *const nvrtc_flags[] = {"-default-device", "--std=c++17", "-lineinfo",
                                          "--fmad=false"};
#define N_NVRTC_FLAGS ((int)(sizeof nvrtc_flags / sizeof nvrtc_flags[0]))
#define SOURCE_NAME "kernel.cu" /* the name NVRTC's messages give the generated source */

/* ---- availability ------------------------------------------------------------------------ */
/* Runs here: a driver with a device, and NVRTC to compile for it. */
static int cuda_available(StrBuf *why) { return cuda_driver(why) && cuda_nvrtc(why); }

/* ---- toolchain ------------------------------------------------------------------------- */
/* The toolkit's include directory, or NULL: the generated code needs none, but a
 * kernel may include toolkit headers (cuda_fp16.h, ...). */
static const char *cuda_include_dir(char *buf, size_t n) {
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    char probe[1100];
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        if (!roots[i] || !*roots[i]) continue;
        snprintf(probe, sizeof probe, "%s/include/cuda.h", roots[i]);
        if (access(probe, R_OK) != 0) continue;
        snprintf(buf, n, "-I%s/include", roots[i]);
        return buf;
    }
    return NULL;
}

typedef struct NvrtcOpts {
    char arch[64], include[1100];
    const char *v[N_NVRTC_FLAGS + 2];
    int n;
} NvrtcOpts;

/* arch NULL: the options without it (the toolchain id). */
static void opts_make(NvrtcOpts *o, const char *arch, bool fast_math) {
    o->n = 0;
    snprintf(o->arch, sizeof o->arch, "--gpu-architecture=%s", arch ? arch : "");
    if (arch) o->v[o->n++] = o->arch;
    for (int i = 0; i < N_NVRTC_FLAGS; i++) o->v[o->n++] = nvrtc_flags[i];
    if (fast_math) o->v[o->n - 1] = "--use_fast_math";
    if (cuda_include_dir(o->include, sizeof o->include)) o->v[o->n++] = o->include;
}

static const char *cuda_toolchain_id(Arena *a) {
    const CudaNvrtc *nv = cuda_nvrtc(NULL);
    StrBuf id = {0};
    NvrtcOpts o;
    opts_make(&o, NULL, false);
    if (nv) sb_printf(&id, "nvrtc %d.%d (%s)", nv->major, nv->minor, nv->path);
    else sb_puts(&id, "nvrtc not found");
    for (int i = 0; i < o.n; i++) sb_printf(&id, " %s", o.v[i]);
    const char *s = arena_strdup(a, id.buf);
    sb_free(&id);
    return s;
}

/* ---- build ----------------------------------------------------------------------------- */
/* NVRTC knows the architecture (it lists those it supports since CUDA 11.2). */
static int arch_supported(const CudaNvrtc *nv, const char *arch, StrBuf *log) {
    int n = 0, want = atoi(arch + 3);
    if (!nv->GetNumSupportedArchs || !nv->GetSupportedArchs ||
        nv->GetNumSupportedArchs(&n) != CUDRV_NVRTC_SUCCESS || n <= 0)
        return 1; /* cannot tell: let the compile say */
    int *archs = calloc((size_t)n, sizeof *archs), ok = 0;
    if (!archs || nv->GetSupportedArchs(archs) != CUDRV_NVRTC_SUCCESS) {
        free(archs);
        return 1;
    }
    for (int i = 0; i < n; i++) ok |= archs[i] == want;
    if (!ok)
        sb_printf(log,
                  "NVRTC %d.%d cannot compile for %s (it supports sm_%d to sm_%d): set "
                  "TILEC_CUDA_ARCH or use a newer CUDA toolkit\n",
                  nv->major, nv->minor, arch, archs[0], archs[n - 1]);
    free(archs);
    return ok;
}

/* Line `line` (1-based) of text: pointer and length, or NULL. */
static const char *text_line(const char *text, int line, int *len) {
    for (int i = 1; i < line && text; i++) {
        text = strchr(text, '\n');
        if (text) text++;
    }
    if (!text || !*text || line < 1) return NULL;
    *len = (int)strcspn(text, "\n");
    return text;
}

static int has_py_origin(const char *s, int len) {
    for (int i = 0; i + 4 < len; i++)
        if (!strncmp(s + i, ".py:", 4) && s[i + 4] >= '0' && s[i + 4] <= '9') return 1;
    return 0;
}

/* Trimmed text of [s, s+len) equals that of [t, t+tlen). */
static int same_trimmed(const char *s, int len, const char *t, int tlen) {
    while (len && (*s == ' ' || *s == '\t')) s++, len--;
    while (tlen && (*t == ' ' || *t == '\t')) t++, tlen--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\r')) len--;
    while (tlen && (t[tlen - 1] == ' ' || t[tlen - 1] == '\r')) tlen--;
    return len == tlen && !memcmp(s, t, (size_t)len);
}

/* After an NVRTC message about generated line `line`: the nearest `// kernel.py:LINE`
 * comment at or above it (unless the line carries one itself), and the line itself when
 * NVRTC does not quote it (next: the log's next line). */
static void annotate_line(const char *source, int line, const char *next, StrBuf *out) {
    int len, nlen = (int)strcspn(next, "\n");
    const char *s = text_line(source, line, &len);
    if (!s) return;
    for (int l = line - 1; !has_py_origin(s, len) && l >= 1 && l >= line - 200; l--) {
        int plen;
        const char *p = text_line(source, l, &plen);
        int skip = p ? (int)strspn(p, " \t") : 0;
        if (!p || strncmp(p + skip, "//", 2) != 0 || !has_py_origin(p, plen)) continue;
        sb_printf(out, "  in code generated from %.*s\n", plen - skip, p + skip);
        break;
    }
    if (!same_trimmed(s, len, next, nlen)) sb_printf(out, "%6d | %.*s\n", line, len, s);
}

/* The NVRTC log with each diagnostic followed by where it comes from. */
static void annotate_log(const char *log, const char *source, StrBuf *out) {
    size_t nlen = strlen(SOURCE_NAME);
    while (log && *log) {
        size_t n = strcspn(log, "\n");
        for (size_t i = 0; i < n; i++) sb_putc(out, log[i]);
        sb_putc(out, '\n');
        const char *next = log + n + (log[n] == '\n');
        int line = 0;
        if (!strncmp(log, SOURCE_NAME "(", nlen + 1) && sscanf(log + nlen + 1, "%d", &line) == 1)
            annotate_line(source, line, next, out);
        log = next;
    }
}

/* Compiles source; *cubin (malloc) and *n on success, else the log in log. */
static int nvrtc_compile(const CudaNvrtc *nv, const char *source, const NvrtcOpts *o, char **cubin,
                         size_t *n, StrBuf *log) {
    NvrtcProgram prog = NULL;
    *cubin = NULL;
    if (NVRTC_CALL(nv, log, CreateProgram, (&prog, source, SOURCE_NAME, 0, NULL, NULL))) return 1;
    NvrtcResult cr = nv->CompileProgram(prog, o->n, o->v);
    size_t lsize = 0;
    char *text = NULL;
    int rc = 1;
    if (NVRTC_CALL(nv, log, GetProgramLogSize, (prog, &lsize))) goto done;
    if (cr != CUDRV_NVRTC_SUCCESS) {
        text = calloc(lsize + 1, 1);
        if (text && !NVRTC_CALL(nv, log, GetProgramLog, (prog, text)))
            annotate_log(text, source, log);
        nvrtc_check(cr, "nvrtcCompileProgram", log);
        sb_putc(log, '\n');
        goto done;
    }
    if (NVRTC_CALL(nv, log, GetCUBINSize, (prog, n))) goto done;
    *cubin = malloc(*n ? *n : 1);
    if (!*cubin) sb_puts(log, "out of memory\n");
    else rc = NVRTC_CALL(nv, log, GetCUBIN, (prog, *cubin)) != 0;
done:
    free(text);
    if (rc) free(*cubin), *cubin = NULL;
    (void)nv->DestroyProgram(&prog);
    return rc;
}

/* Writes data to path through a temporary file and a rename. */
static int write_atomic(const char *path, const char *data, size_t n, StrBuf *log) {
    StrBuf tmp = {0};
    sb_printf(&tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp.buf), rc = -1;
    if (fd < 0) {
        sb_printf(log, "cannot create a file next to %s: %s\n", path, strerror(errno));
        sb_free(&tmp);
        return -1;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(fd, data + done, n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        done += (size_t)k;
    }
    if (close(fd) != 0 || done != n)
        sb_printf(log, "cannot write %s: %s\n", tmp.buf, strerror(errno));
    else if (rename(tmp.buf, path) != 0)
        sb_printf(log, "cannot rename %s to %s: %s\n", tmp.buf, path, strerror(errno));
    else rc = 0;
    if (rc) unlink(tmp.buf);
    sb_free(&tmp);
    return rc;
}

static int cuda_build(const char *source, const Options *opt, const char *binary_path,
                      StrBuf *log) {
    StrBuf why = {0};
    const char *arch = opt->arch;
    const CudaNvrtc *nv = cuda_nvrtc(&why);
    if (!nv || !arch[0]) {
        sb_printf(log, "%s\n", nv ? opt->arch_why : why.buf);
        sb_free(&why);
        return 1;
    }
    if (!arch_supported(nv, arch, log)) return 1;
    NvrtcOpts o;
    opts_make(&o, arch, opt->fast_math);
    char *cubin;
    size_t n;
    int rc = nvrtc_compile(nv, source, &o, &cubin, &n, log);
    if (!rc) rc = write_atomic(binary_path, cubin, n, log) != 0;
    free(cubin);
    return rc;
}

/* ---- load ------------------------------------------------------------------------------ */
typedef struct CudaModule {
    CuContext ctx;
    int dev;
    CuModule mod;
    int max_grid[3], smem_optin, pools; /* device limits; cuMemAllocAsync usable */
    int sms;                            /* multiprocessors */
    int *resident;                      /* per kernel: blocks the GPU holds at once */
    char dev_name[128];
    Arena arena; /* the plan */
    const Func *f;
    CudaPlan plan;
    CuFunction *fns;
    StrBuf bind_err; /* why bind failed; reported by every launch */
    bool sync;       /* the setting cuda_sync: wait for every launch */
} CudaModule;

static int module_limits(const CudaDriver *d, CudaModule *m, StrBuf *err) {
    CuDevice h;
    if (CU_CALL(d, err, DeviceGet, (&h, m->dev))) return -1;
    static const int grid_attr[3] = {CUDRV_DEV_ATTR_MAX_GRID_DIM_X, CUDRV_DEV_ATTR_MAX_GRID_DIM_Y,
                                     CUDRV_DEV_ATTR_MAX_GRID_DIM_Z};
    for (int i = 0; i < 3; i++)
        if (CU_CALL(d, err, DeviceGetAttribute, (&m->max_grid[i], grid_attr[i], h))) return -1;
    if (CU_CALL(d, err, DeviceGetAttribute,
                (&m->smem_optin, CUDRV_DEV_ATTR_SMEM_PER_BLOCK_OPTIN, h)) ||
        CU_CALL(d, err, DeviceGetAttribute, (&m->sms, CUDRV_DEV_ATTR_MULTIPROCESSOR_COUNT, h)))
        return -1;
    m->pools = 0; /* stream-ordered allocation needs CUDA 11.2 and device support */
    if (d->MemAllocAsync && d->MemFreeAsync &&
        d->DeviceGetAttribute(&m->pools, CUDRV_DEV_ATTR_MEMORY_POOLS_SUPPORTED, h) != 0)
        m->pools = 0;
    return CU_CALL(d, err, DeviceGetName, (m->dev_name, (int)sizeof m->dev_name, h));
}

/* When a module does not load because it was compiled for another architecture than this
 * GPU's, say so. */
static void load_hint(const CudaDriver *d, int dev, const char *compiled, StrBuf *err) {
    char arch[32];
    StrBuf why = {0};
    if (!cuda_device_arch(d, dev, arch, sizeof arch, &why) && strcmp(compiled, arch))
        sb_printf(err,
                  "; the kernel was compiled for %s but GPU %d is %s (give no arch, "
                  "or unset TILEC_CUDA_ARCH, to compile for it)",
                  compiled, dev, arch);
    sb_free(&why);
}

static void *cuda_load(const char *binary_path, const Options *opt, StrBuf *err) {
    const CudaDriver *d = cuda_driver(err);
    if (!d) return NULL;
    Arena a = {0};
    size_t n;
    char *image = read_file_arena(&a, binary_path, (size_t)1 << 30, &n);
    if (!image) {
        sb_printf(err, "cannot read %s: %s", binary_path, strerror(errno));
        arena_free(&a);
        return NULL;
    }
    CudaModule *m = calloc(1, sizeof *m);
    if (!m) {
        sb_puts(err, "out of memory");
        arena_free(&a);
        return NULL;
    }
    m->sync = opt->cuda_sync;
    int rc = cuda_ctx_current(&m->ctx, &m->dev, err);
    if (!rc && CU_CALL(d, err, ModuleLoadData, (&m->mod, image))) {
        load_hint(d, m->dev, opt->arch, err);
        rc = -1;
    }
    arena_free(&a);
    if (!rc && module_limits(d, m, err)) (void)d->ModuleUnload(m->mod), rc = -1;
    if (rc) free(m), m = NULL;
    return m;
}

static void cuda_unload(void *module) {
    CudaModule *m = module;
    if (!m) return;
    StrBuf err = {0};
    CudaCtxScope s;
    const CudaDriver *d = cuda_driver(NULL);
    if (d && cuda_ctx_enter(m->ctx, &s, &err) == 0) {
        (void)d->ModuleUnload(m->mod); /* a failure here has no one to tell */
        cuda_ctx_leave(&s);
    }
    sb_free(&err);
    sb_free(&m->bind_err);
    arena_free(&m->arena);
    free(m);
}

static int cuda_module_device(const void *module) { return ((const CudaModule *)module)->dev; }

/* ---- bind: functions and their shared memory ---------------------------------------------- */
static int block_threads(const CudaKernelPlan *k) {
    int t = 1;
    for (int i = 0; i < 3; i++) t *= k->block[i] > 0 ? k->block[i] : 1;
    return t;
}

/* The blocks of kernel i (clusters of k->cluster, its __cluster_dims__) that the GPU
 * holds at once: m->resident[i], a multiple of the cluster. */
static int bind_clusters(const CudaDriver *d, CudaModule *m, int i, CuFunction fn, StrBuf *err) {
    const CudaKernelPlan *k = &m->plan.kernels[i];
    int n = 0;
    if (!d->OccupancyMaxActiveClusters) {
        sb_printf(err,
                  "kernel '%s' (%s) runs in clusters of %d blocks, which this CUDA driver "
                  "(%d) cannot size (no cuOccupancyMaxActiveClusters); unset cluster "
                  "(TILEC_CLUSTER)",
                  m->f->name, k->name, k->cluster, d->version);
        return -1;
    }
    CuLaunchConfig c = {(unsigned)k->cluster,
                        1,
                        1,
                        (unsigned)k->block[0],
                        (unsigned)k->block[1],
                        (unsigned)k->block[2],
                        (unsigned)k->smem_bytes,
                        NULL,
                        NULL,
                        0};
    if (CU_CALL(d, err, OccupancyMaxActiveClusters, (&n, fn, &c))) return -1;
    if (n < 1) {
        sb_printf(err,
                  "kernel '%s' (%s): no cluster of %d blocks with %lld bytes of shared "
                  "memory each fits GPU %d (%s); unset cluster (TILEC_CLUSTER)",
                  m->f->name, k->name, k->cluster, (long long)k->smem_bytes, m->dev, m->dev_name);
        return -1;
    }
    m->resident[i] = n * k->cluster;
    return 0;
}

/* Kernel i of the module: its function, shared memory and block size against the
 * device's and the compiled function's limits. */
static int bind_kernel(const CudaDriver *d, CudaModule *m, int i, StrBuf *err) {
    const CudaKernelPlan *k = &m->plan.kernels[i];
    CuFunction fn;
    int stat = 0, max_threads = 0, regs = 0;
    if (CU_CALL(d, err, ModuleGetFunction, (&fn, m->mod, k->name)) ||
        CU_CALL(d, err, FuncGetAttribute, (&stat, CUDRV_FUNC_ATTR_SHARED_SIZE_BYTES, fn)) ||
        CU_CALL(d, err, FuncGetAttribute,
                (&max_threads, CUDRV_FUNC_ATTR_MAX_THREADS_PER_BLOCK, fn)) ||
        CU_CALL(d, err, FuncGetAttribute, (&regs, CUDRV_FUNC_ATTR_NUM_REGS, fn)))
        return -1;
    m->fns[i] = fn;
    int64_t smem = k->smem_bytes + stat;
    if (smem > m->smem_optin) {
        sb_printf(err,
                  "kernel '%s' (%s) needs %lld bytes of shared memory per block but "
                  "GPU %d (%s) allows at most %d: use smaller tiles or fewer pipeline "
                  "stages",
                  m->f->name, k->name, (long long)smem, m->dev, m->dev_name, m->smem_optin);
        return -1;
    }
    if (block_threads(k) > max_threads) {
        sb_printf(err,
                  "kernel '%s' (%s) runs %d threads per block but, using %d registers "
                  "per thread, it can run at most %d on GPU %d (%s)",
                  m->f->name, k->name, block_threads(k), regs, max_threads, m->dev, m->dev_name);
        return -1;
    }
    /* Over 48 KB (static and dynamic together) needs the opt-in; the whole carveout as
     * shared memory lets as many such blocks share an SM as the shared memory allows
     * (without the hint the driver may configure less and run fewer blocks per SM). */
    if (smem > 48 * 1024 &&
        (CU_CALL(d, err, FuncSetAttribute,
                 (fn, CUDRV_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)k->smem_bytes)) ||
         CU_CALL(d, err, FuncSetAttribute,
                 (fn, CUDRV_FUNC_ATTR_PREFERRED_SHARED_MEMORY_CARVEOUT, 100))))
        return -1;
    if (k->cluster > 1) return bind_clusters(d, m, i, fn, err);
    int per_sm = 0;
    if ((k->persistent || k->cooperative) &&
        CU_CALL(d, err, OccupancyMaxActiveBlocksPerMultiprocessor,
                (&per_sm, fn, block_threads(k), (size_t)k->smem_bytes)))
        return -1;
    if (k->cooperative && per_sm < 1) {
        sb_printf(err,
                  "kernel '%s' (%s) uses T.sync_grid, but no block of %d threads with %lld "
                  "bytes of shared memory fits an SM of GPU %d (%s)",
                  m->f->name, k->name, block_threads(k), (long long)k->smem_bytes, m->dev,
                  m->dev_name);
        return -1;
    }
    m->resident[i] = (per_sm > 0 ? per_sm : 1) * (m->sms > 0 ? m->sms : 1);
    return 0;
}

static void cuda_bind(void *module, const Func *f) {
    CudaModule *m = module;
    const CudaDriver *d = cuda_driver(&m->bind_err);
    m->f = f;
    m->plan = cuda_plan(&m->arena, f);
    m->fns = NEW_ARRAY(&m->arena, CuFunction, m->plan.nkernels + 1);
    m->resident = NEW_ARRAY(&m->arena, int, m->plan.nkernels + 1);
    CudaCtxScope s;
    if (!d || cuda_ctx_enter(m->ctx, &s, &m->bind_err)) return;
    for (int i = 0; i < m->plan.nkernels; i++)
        if (bind_kernel(d, m, i, &m->bind_err)) break;
    cuda_ctx_leave(&s);
}

/* ---- launch ------------------------------------------------------------------------------ */
/* One launch: the globals it allocated and the parameter array it passes. */
typedef struct Launch {
    const CudaDriver *d;
    CudaModule *m;
    CuStream stream;
    void *const *args;
    CuDevPtr *globals;
    void **params;     /* the common part, then the running kernel's tensor maps */
    CuTensorMap *maps; /* of the running kernel */
} Launch;

/* Bytes of T.alloc_global buffer j for these syms; -1 with err if not computable. */
static int64_t global_bytes(const Launch *l, int j, const int64_t *syms, StrBuf *err) {
    const Buffer *b = l->m->plan.globals[j];
    int64_t n = dtype_bytes(b->dtype), v;
    for (int dim = 0; dim < b->ndim; dim++) {
        if (cuda_eval_launch_int(l->m->f, b->shape[dim], syms, l->args, &v) != 0 || v < 0 ||
            (v && n > INT64_MAX / v)) {
            sb_printf(err,
                      "cannot compute the size of the T.alloc_global buffer '%s' (shape "
                      "dim %d) for these arguments",
                      b->name, dim);
            return -1;
        }
        n *= v;
    }
    return n;
}

/* Allocates and zero-fills the globals, in stream order when the device has pools. */
static int globals_alloc(Launch *l, const int64_t *syms, StrBuf *err) {
    const CudaDriver *d = l->d;
    for (int j = 0; j < l->m->plan.nglobals; j++) {
        int64_t n = global_bytes(l, j, syms, err);
        if (n < 0) return -1;
        if (n == 0) continue;
        int rc = l->m->pools
                     ? CU_CALL(d, err, MemAllocAsync, (&l->globals[j], (size_t)n, l->stream))
                     : CU_CALL(d, err, MemAlloc, (&l->globals[j], (size_t)n));
        if (!rc) rc = CU_CALL(d, err, MemsetD8Async, (l->globals[j], 0, (size_t)n, l->stream));
        if (rc) {
            sb_printf(err, " (allocating %lld bytes for T.alloc_global buffer '%s')", (long long)n,
                      l->m->plan.globals[j]->name);
            return -1;
        }
    }
    return 0;
}

/* Frees the globals after the kernels that use them (stream order, or a sync). */
static int globals_free(Launch *l, StrBuf *err) {
    const CudaDriver *d = l->d;
    int any = 0, rc = 0;
    for (int j = 0; j < l->m->plan.nglobals; j++) any |= l->globals[j] != 0;
    if (any && !l->m->pools) rc = CU_CALL(d, err, StreamSynchronize, (l->stream));
    for (int j = 0; j < l->m->plan.nglobals; j++) {
        if (!l->globals[j]) continue;
        CuResult r = l->m->pools ? d->MemFreeAsync(l->globals[j], l->stream)
                                 : d->MemFree(l->globals[j]);
        if (!rc) rc = cuda_check(r, l->m->pools ? "cuMemFreeAsync" : "cuMemFree", err);
        l->globals[j] = 0;
    }
    return rc;
}

/* Grid of kernel i; 0 with the dims (a zero dim: nothing to run), -1 with err. *split:
 * whether a split-K kernel has fewer tiles than blocks (tl_sk_parts may cut them). */
static int kernel_grid(const Launch *l, int i, const int64_t *syms, unsigned g[3], bool *split,
                       StrBuf *err) {
    const CudaKernelPlan *k = &l->m->plan.kernels[i];
    int64_t v[3] = {1, 1, 1};
    for (int dim = 0; dim < k->ngrid && dim < 3; dim++)
        if (cuda_eval_launch_int(l->m->f, k->grid[dim], syms, l->args, &v[dim]) != 0) {
            sb_printf(err,
                      "%s: cannot compute grid dim %d for these arguments (internal "
                      "error)",
                      k->name, dim);
            return -1;
        }
    if (k->folded) v[0] *= v[1] * v[2], v[1] = v[2] = 1; /* (constants that fit x) */
    for (int dim = 0; dim < 3; dim++)
        if (v[dim] < 0 || (!k->persistent && v[dim] > l->m->max_grid[dim])) {
            sb_printf(err,
                      "%s: grid (%lld, %lld, %lld) is outside GPU %d's limits (0..%d, "
                      "0..%d, 0..%d)",
                      k->name, (long long)v[0], (long long)v[1], (long long)v[2], l->m->dev,
                      l->m->max_grid[0], l->m->max_grid[1], l->m->max_grid[2]);
            return -1;
        }
    for (int dim = 0; dim < 3; dim++) g[dim] = (unsigned)v[dim];
    if (k->persistent) { /* every tile's index fits the kernel's int */
        int64_t tiles;
        if (__builtin_mul_overflow(v[0], v[1], &tiles) ||
            __builtin_mul_overflow(tiles, v[2], &tiles) || tiles > INT32_MAX) {
            sb_printf(err,
                      "%s: %lld blocks are more than a persistent kernel counts (2^31 - "
                      "1); set no_persistent=1 (TILEC_NO_PERSISTENT=1)",
                      k->name, (long long)tiles);
            return -1;
        }
        /* a split-K kernel cuts fewer tiles than blocks into parts (tl_sk_parts) */
        *split = k->sk_bytes && tiles < l->m->resident[i];
        g[0] = (unsigned)(tiles < l->m->resident[i] && !*split ? tiles : l->m->resident[i]);
        g[0] = g[0] / (unsigned)k->cluster * (unsigned)k->cluster; /* whole clusters */
        g[1] = g[2] = 1;
    }
    return 0;
}

static int common_params(const Launch *l) {
    const Func *f = l->m->f;
    return f->params.len + f->syms.len + l->m->plan.nglobals;
}

static int max_tmaps(const CudaPlan *p) {
    int n = 0;
    for (int i = 0; i < p->nkernels; i++)
        if (p->kernels[i].ntmaps > n) n = p->kernels[i].ntmaps;
    return n;
}

/* Encodes kernel k's tensor maps for these arguments, after the common parameters. */
static int tmaps_encode(Launch *l, const CudaKernelPlan *k, const int64_t *syms, StrBuf *err) {
    static const int types[] = {0, CUDRV_TMAP_UINT8, CUDRV_TMAP_UINT16, 0, CUDRV_TMAP_UINT32, 0, 0,
                                0, CUDRV_TMAP_UINT64};
    static const int swizzles[] = {CUDRV_TMAP_SWIZZLE_NONE, CUDRV_TMAP_SWIZZLE_32B,
                                   CUDRV_TMAP_SWIZZLE_64B, 0, CUDRV_TMAP_SWIZZLE_128B};
    if (k->ntmaps && !l->d->TensorMapEncodeTiled) {
        sb_printf(err,
                  "%s loads tiles with TMA, and this CUDA driver has no "
                  "cuTensorMapEncodeTiled (it needs CUDA 12 or newer); set no_ws=1 "
                  "(TILEC_NO_WS=1)",
                  k->name);
        return -1;
    }
    for (int t = 0; t < k->ntmaps; t++) {
        CudaTmapGeom g;
        if (cuda_tmap_geometry(l->m->f, k->tmaps[t], syms, &g, err)) return -1;
        static const unsigned ones[TMA_MAX_RANK] = {1, 1, 1, 1, 1};
        int rc = CU_CALL(l->d, err, TensorMapEncodeTiled,
                         (&l->maps[t], types[g.elem_bytes], (unsigned)g.rank, l->args[g.param],
                          (const unsigned long long *)g.dims, (const unsigned long long *)g.strides,
                          g.box, ones, CUDRV_TMAP_INTERLEAVE_NONE, swizzles[g.swizzle / 32],
                          CUDRV_TMAP_L2_PROMOTION_128B, CUDRV_TMAP_FLOAT_OOB_FILL_NONE));
        if (rc) {
            sb_printf(err, " (%s: the tensor map of '%s')", k->name, k->tmaps[t]->buf->name);
            return -1;
        }
        l->params[common_params(l) + t] = &l->maps[t];
    }
    return 0;
}

/* ---- split-K workspaces ------------------------------------------------------------------
 * One per (context, stream), grown as needed and kept for the process: the launches of a
 * stream run in order, so all its split-K kernels share one; its flags are zeroed when
 * it is allocated, and the kernels leave them zero. The lock is held from the lookup
 * until the kernel is queued, so a growth never frees a workspace another thread has
 * handed to a launch. Without one (the table is full, the allocation failed, or the
 * stream is being captured into a CUDA graph, where allocating and zeroing would
 * invalidate the capture) the kernel splits no tile. */
enum { SK_SPACES = 16 };
typedef struct SkSpace {
    CuContext ctx;
    CuStream stream;
    CuDevPtr ptr;
    size_t bytes;
} SkSpace;
static SkSpace sk_spaces[SK_SPACES];
static int sk_nspaces;
static pthread_mutex_t sk_lock = PTHREAD_MUTEX_INITIALIZER;

/* The workspace of l's stream with room for g blocks of kernel k (cuda.h), or 0. */
static CuDevPtr sk_workspace(Launch *l, const CudaKernelPlan *k, unsigned g) {
    const CudaDriver *d = l->d;
    size_t flags = 4 * CUDA_SK_MAX_BLOCKS, need = flags + (size_t)k->sk_bytes * g;
    if (g > CUDA_SK_MAX_BLOCKS) return 0;
    SkSpace *s = NULL;
    for (int i = 0; i < sk_nspaces && !s; i++)
        if (sk_spaces[i].ctx == l->m->ctx && sk_spaces[i].stream == l->stream) s = &sk_spaces[i];
    if (s && s->bytes >= need) return s->ptr;
    int capturing = 0;
    if (d->StreamIsCapturing && (d->StreamIsCapturing(l->stream, &capturing) || capturing))
        return 0;
    if (!s && sk_nspaces == SK_SPACES) return 0;
    if (!s) s = &sk_spaces[sk_nspaces++], *s = (SkSpace){l->m->ctx, l->stream, 0, 0};
    if (s->ptr && (d->StreamSynchronize(l->stream) || d->MemFree(s->ptr))) return 0;
    s->ptr = 0, s->bytes = 0;
    if (d->MemAlloc(&s->ptr, need)) return s->ptr = 0;
    if (d->MemsetD8Async(s->ptr, 0, flags, l->stream)) {
        d->MemFree(s->ptr);
        return s->ptr = 0;
    }
    s->bytes = need;
    return s->ptr;
}

/* A kernel's grid against its clusters (a multiple of cluster_dims) and, with
 * T.sync_grid, against the blocks the GPU holds at once (m->resident). */
static int check_launch_shape(const Launch *l, int i, const unsigned g[3], StrBuf *err) {
    const CudaKernelPlan *k = &l->m->plan.kernels[i];
    for (int d = 0; d < 3; d++)
        if (g[d] % (unsigned)k->cluster_dims[d]) {
            sb_printf(err,
                      "%s: grid (%u, %u, %u) is not a multiple of its cluster_dims (%d, %d, "
                      "%d): CUDA launches whole clusters",
                      k->name, g[0], g[1], g[2], k->cluster_dims[0], k->cluster_dims[1],
                      k->cluster_dims[2]);
            return -1;
        }
    uint64_t blocks = (uint64_t)g[0] * g[1] * g[2];
    if (k->cooperative && blocks > (uint64_t)l->m->resident[i]) {
        sb_printf(err,
                  "%s uses T.sync_grid, which needs every block of the grid resident at once, "
                  "but its %llu blocks (%d threads, %lld bytes of shared memory each) are more "
                  "than GPU %d (%s) holds at once (%d): launch at most that many (e.g. one per "
                  "SM) and loop over the work inside",
                  k->name, (unsigned long long)blocks, block_threads(k), (long long)k->smem_bytes,
                  l->m->dev, l->m->dev_name, l->m->resident[i]);
        return -1;
    }
    if (k->cooperative && !l->d->LaunchCooperativeKernel) {
        sb_printf(err, "%s uses T.sync_grid, and this CUDA driver has no cuLaunchCooperativeKernel",
                  k->name);
        return -1;
    }
    return 0;
}

static int kernel_launch(Launch *l, int i, const int64_t *syms, StrBuf *err) {
    const CudaKernelPlan *k = &l->m->plan.kernels[i];
    unsigned g[3], b[3];
    bool split = false;
    if (kernel_grid(l, i, syms, g, &split, err)) return -1;
    if (!g[0] || !g[1] || !g[2]) return 0; /* an empty grid runs nothing */
    if (check_launch_shape(l, i, g, err) || tmaps_encode(l, k, syms, err)) return -1;
    for (int dim = 0; dim < 3; dim++) b[dim] = k->block[dim] > 0 ? (unsigned)k->block[dim] : 1;
    CuDevPtr ws = 0; /* the workspace only where tiles may be split */
    if (k->sk_bytes) l->params[common_params(l) + k->ntmaps] = &ws;
    if (split) {
        pthread_mutex_lock(&sk_lock);
        ws = sk_workspace(l, k, g[0]);
    }
    CuResult r = k->cooperative
                     ? l->d->LaunchCooperativeKernel(l->m->fns[i], g[0], g[1], g[2], b[0], b[1],
                                                     b[2], (unsigned)k->smem_bytes, l->stream,
                                                     l->params)
                     : l->d->LaunchKernel(l->m->fns[i], g[0], g[1], g[2], b[0], b[1], b[2],
                                          (unsigned)k->smem_bytes, l->stream, l->params, NULL);
    if (split) pthread_mutex_unlock(&sk_lock);
    if (r == CUDRV_SUCCESS && l->m->sync) r = l->d->StreamSynchronize(l->stream);
    if (r == CUDRV_SUCCESS) return 0;
    sb_printf(err,
              "%s (launch %d of %d, grid (%u, %u, %u), block (%u, %u, %u), %lld bytes "
              "of shared memory): ",
              k->name, i + 1, l->m->plan.nkernels, g[0], g[1], g[2], b[0], b[1], b[2],
              (long long)k->smem_bytes);
    return cuda_check(r, k->cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel", err);
}

/* The kernel parameter array of the ABI in cuda.h: params, syms, globals. */
static void params_fill(Launch *l, const int64_t *syms) {
    const Func *f = l->m->f;
    void *const *args = l->args;
    int n = 0;
    for (int i = 0; i < f->params.len; i++)
        l->params[n++] = f->params.data[i].buf ? (void *)&args[i] : args[i];
    for (int s = 0; s < f->syms.len; s++) l->params[n++] = (void *)&syms[s];
    for (int j = 0; j < l->m->plan.nglobals; j++) l->params[n++] = &l->globals[j];
}

static int launch_all(Launch *l, const int64_t *syms, StrBuf *err) {
    int nmaps = max_tmaps(&l->m->plan);
    size_t np = (size_t)(common_params(l) + nmaps) + 2; /* the split-K workspace */
    l->globals = calloc((size_t)l->m->plan.nglobals + 1, sizeof *l->globals);
    l->params = calloc(np, sizeof *l->params);
    l->maps = nmaps ? aligned_alloc(64, sizeof(CuTensorMap) * (size_t)nmaps) : NULL;
    int rc = -1;
    if (!l->globals || !l->params || (nmaps && !l->maps)) sb_puts(err, "out of memory");
    else if (globals_alloc(l, syms, err) == 0) {
        params_fill(l, syms);
        rc = 0;
        for (int i = 0; i < l->m->plan.nkernels && !rc; i++) rc = kernel_launch(l, i, syms, err);
    }
    if (l->globals) {
        StrBuf ferr = {0};
        if (globals_free(l, rc ? &ferr : err)) rc = -1;
        sb_free(&ferr);
    }
    free(l->globals);
    free(l->params);
    free(l->maps);
    return rc;
}

static int cuda_launch(void *module, void *const *args, const int64_t *syms, void *stream,
                       StrBuf *err) {
    CudaModule *m = module;
    if (!m->f) {
        sb_puts(err, "internal error: the CUDA module was not bound to its kernel");
        return 1;
    }
    if (m->bind_err.len) {
        sb_puts(err, m->bind_err.buf);
        return 1;
    }
    const Func *f = m->f;
    for (int i = 0; i < f->params.len; i++) { /* vector accesses need aligned tensors */
        const Buffer *b = f->params.data[i].buf;
        if (b && b->align > 1 && (uintptr_t)args[i] % (uintptr_t)b->align) {
            sb_printf(err,
                      "argument '%s' (param %d): its data pointer %p is not %d-byte "
                      "aligned, and the CUDA kernel reads and writes it in %d-byte vectors "
                      "(a view that starts inside a tensor?): pass a copy (.clone())",
                      f->params.data[i].name, i, args[i], b->align, b->align);
            return 1;
        }
    }
    Launch l = {.d = cuda_driver(err), .m = m, .stream = (CuStream)stream, .args = args};
    CudaCtxScope s;
    if (!l.d || cuda_ctx_enter(m->ctx, &s, err)) return 1;
    int rc = launch_all(&l, syms, err);
    cuda_ctx_leave(&s);
    return rc ? 1 : 0;
}

/* ---- retry policy ------------------------------------------------------------------------ */
/* The producer warp group's registers are an estimate (warp_specialize.c regs_fit); ptxas
 * has the last word: when it could not give an instruction the registers it needs, the
 * kernel is compiled again without warp specialization. */
static const char *cuda_retry(const Func *f, const char *log) {
    bool shortage = log && (strstr(log, "C7602") || strstr(log, "Insufficient registers"));
    return f->warp_specialized && shortage
               ? "compiled without a TMA producer warp group: with one, ptxas could not "
                 "give the kernel's instructions the registers they need"
               : NULL;
}

static void cuda_fallback(Options *o) { o->no_ws = true; }

/* ---- the device ---------------------------------------------------------------------------- */
static bool cuda_takes(DLDevice d) {
    return d.device_type == kDLCUDA || d.device_type == kDLCUDAManaged;
}

static int cuda_ordinal(DLDevice d) {
    switch ((int)d.device_type) {
    case kDLCUDAHost: return -1;
    case kDLCUDA:
    case kDLCUDAManaged: return d.device_id >= 0 ? d.device_id : -2;
    default: return -2;
    }
}

static const TargetDevice cuda_device = {
    .name = "cuda",
    .memory = "CUDA memory",
    .dl_type = kDLCUDA,
    .takes = cuda_takes,
    .ordinal = cuda_ordinal,
    .mem_alloc = cuda_mem_alloc,
    .mem_free = cuda_mem_free,
    .mem_copy = cuda_memcpy,
    .stream_sync = cuda_stream_sync,
    .module_device = cuda_module_device,
    .describe = cuda_describe,
    .describe_json = cuda_describe_json,
};

const Target target_cuda = {
    .name = "cuda",
    .source_ext = ".cu",
    .binary_ext = ".cubin",
    .available = cuda_available,
    .toolchain_id = cuda_toolchain_id,
    .arch = cuda_target_arch,
    .lower = cuda_lower,
    .emit = cuda_emit,
    .build = cuda_build,
    .load = cuda_load,
    .launch = cuda_launch,
    .unload = cuda_unload,
    .bind = cuda_bind,
    .retry = cuda_retry,
    .fallback = cuda_fallback,
    .device = &cuda_device,
};
