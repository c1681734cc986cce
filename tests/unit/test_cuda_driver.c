/* test_cuda_driver.c - the CUDA target's runtime half on a machine without a GPU (CI):
 * NVRTC loads and compiles to CUBIN for sm_80 and sm_90a, compile errors point at the
 * generated line and its kernel.py origin, the target reports why it cannot run, and
 * every example compiles through the whole pipeline (the CI gate "generated CUDA
 * compiles through NVRTC for sm_80 and sm_90a", in build-only mode). With a GPU it also
 * checks device memory, argument checks and a launch against host arithmetic.
 *
 * The SASS of the tensor-core GEMM is checked with cuobjdump when one is found: HGMMA
 * (wgmma) for sm_90a, HMMA (mma.sync) for sm_80, and no local memory (spills); TMA stores
 * (UTMASTG) in the 4-stage GEMM with a shared epilogue, and flash attention's P * V as a
 * wgmma with A from registers.
 *
 * The driver's types, constants and symbol names (driver.h) are checked against the
 * toolkit's cuda.h when it is installed. Prints SKIP and passes only when NVRTC itself
 * is missing. */
#include "rt/rt.h"
#include "targets/cuda/cuda.h"
#include "targets/cuda/driver.h"

#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "kernels.h"

static char tmpdir[256];

/* The settings of the compiles below (test_options): the architecture (NULL: the
 * current GPU's) and the setting cluster. */
static const char *test_arch;
static bool test_cluster;

static void arch_set(const char *arch) { test_arch = arch; }

static tl_options test_options(void) {
    static const tl_define cluster = {"cluster", "1"};
    tl_options o = tl_options_default();
    o.arch = test_arch;
    if (test_cluster) o.settings = &cluster, o.nsettings = 1;
    return o;
}

/* ---- the toolkit's headers agree with driver.h ------------------------------------------ */
#if defined(__has_include)
#if __has_include("/usr/local/cuda/include/cuda.h") &&                                             \
                  __has_include("/usr/local/cuda/include/nvrtc.h")
#define HAVE_CUDA_H 1
#include "/usr/local/cuda/include/cuda.h"
#include "/usr/local/cuda/include/nvrtc.h"
#endif
#endif

#ifdef HAVE_CUDA_H
#define XSTR(x) STR(x)
#define STR(x) #x
/* API name -> the ABI symbol cuda.h maps it to. */
static const struct {
    const char *api, *sym;
} header_syms[] = {
#define H(api)                                                                                     \
    { #api, XSTR(api) }
    H(cuGetErrorName),
    H(cuGetErrorString),
    H(cuInit),
    H(cuDriverGetVersion),
    H(cuDeviceGetCount),
    H(cuDeviceGet),
    H(cuDeviceGetName),
    H(cuDeviceGetAttribute),
    H(cuDeviceTotalMem),
    H(cuDevicePrimaryCtxRetain),
    H(cuCtxGetCurrent),
    H(cuCtxSetCurrent),
    H(cuCtxPushCurrent),
    H(cuCtxPopCurrent),
    H(cuCtxGetDevice),
    H(cuModuleLoadData),
    H(cuModuleUnload),
    H(cuModuleGetFunction),
    H(cuFuncGetAttribute),
    H(cuFuncSetAttribute),
    H(cuOccupancyMaxActiveBlocksPerMultiprocessor),
    H(cuOccupancyMaxActiveClusters),
    H(cuLaunchKernel),
    H(cuMemAlloc),
    H(cuMemFree),
    H(cuMemAllocAsync),
    H(cuMemFreeAsync),
    H(cuMemsetD8Async),
    H(cuMemcpyHtoD),
    H(cuMemcpyDtoH),
    H(cuMemcpyDtoD),
    H(cuStreamSynchronize),
    H(cuStreamIsCapturing),
    H(cuTensorMapEncodeTiled),
    H(cuLaunchCooperativeKernel),
#undef H
};

static void test_header_agreement(void) {
    int n = 0;
    for (const char *const *s = cuda_driver_symbols; *s; s++, n++) {
        char api[64];
        snprintf(api, sizeof api, "%s", *s);
        char *v2 = strstr(api, "_v2");
        if (v2) *v2 = 0;
        const char *want = NULL;
        for (size_t i = 0; i < sizeof header_syms / sizeof header_syms[0]; i++)
            if (!strcmp(header_syms[i].api, api)) want = header_syms[i].sym;
        CHECK(want && !strcmp(want, *s), "driver.h resolves %s but cuda.h maps %s to %s", *s, api,
              want ? want : "(not listed in the test)");
    }
    CHECK(n == (int)(sizeof header_syms / sizeof header_syms[0]), "%d symbols", n);
    static const struct {
        const char *name;
        int ours, theirs;
    } consts[] = {
#define C(ours, theirs) {#ours, (int)(ours), (int)(theirs)}
        C(CUDRV_SUCCESS, CUDA_SUCCESS),
        C(CUDRV_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE),
        C(CUDRV_ERROR_STUB_LIBRARY, CUDA_ERROR_STUB_LIBRARY),
        C(CUDRV_DEV_ATTR_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        C(CUDRV_DEV_ATTR_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
        C(CUDRV_DEV_ATTR_MAX_GRID_DIM_Y, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
        C(CUDRV_DEV_ATTR_MAX_GRID_DIM_Z, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z),
        C(CUDRV_DEV_ATTR_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        C(CUDRV_DEV_ATTR_CC_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
        C(CUDRV_DEV_ATTR_CC_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
        C(CUDRV_DEV_ATTR_SMEM_PER_BLOCK_OPTIN,
          CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
        C(CUDRV_DEV_ATTR_MEMORY_POOLS_SUPPORTED, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED),
        C(CUDRV_FUNC_ATTR_MAX_THREADS_PER_BLOCK, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        C(CUDRV_FUNC_ATTR_SHARED_SIZE_BYTES, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
        C(CUDRV_FUNC_ATTR_NUM_REGS, CU_FUNC_ATTRIBUTE_NUM_REGS),
        C(CUDRV_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
        C(CUDRV_TMAP_UINT8, CU_TENSOR_MAP_DATA_TYPE_UINT8),
        C(CUDRV_TMAP_UINT16, CU_TENSOR_MAP_DATA_TYPE_UINT16),
        C(CUDRV_TMAP_UINT32, CU_TENSOR_MAP_DATA_TYPE_UINT32),
        C(CUDRV_TMAP_UINT64, CU_TENSOR_MAP_DATA_TYPE_UINT64),
        C(CUDRV_TMAP_INTERLEAVE_NONE, CU_TENSOR_MAP_INTERLEAVE_NONE),
        C(CUDRV_TMAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE),
        C(CUDRV_TMAP_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_32B),
        C(CUDRV_TMAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_64B),
        C(CUDRV_TMAP_SWIZZLE_128B, CU_TENSOR_MAP_SWIZZLE_128B),
        C(CUDRV_TMAP_L2_PROMOTION_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B),
        C(CUDRV_TMAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        C((int)sizeof(CuTensorMap), (int)sizeof(CUtensorMap)),
        C((int)sizeof(CuLaunchConfig), (int)sizeof(CUlaunchConfig)),
        C((int)offsetof(CuLaunchConfig, stream), (int)offsetof(CUlaunchConfig, hStream)),
        C((int)offsetof(CuLaunchConfig, nattrs), (int)offsetof(CUlaunchConfig, numAttrs)),
        C(CUDRV_NVRTC_SUCCESS, NVRTC_SUCCESS),
#undef C
    };
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
        CHECK(consts[i].ours == consts[i].theirs, "%s is %d, the header says %d", consts[i].name,
              consts[i].ours, consts[i].theirs);
    CHECK(sizeof(CuDevPtr) == sizeof(CUdeviceptr) && sizeof(CuResult) == sizeof(CUresult) &&
              sizeof(CuDevice) == sizeof(CUdevice),
          "type sizes");
}
#else
static void test_header_agreement(void) {
    printf("note: /usr/local/cuda/include/cuda.h not found; driver.h not checked against it\n");
}
#endif

/* ---- NVRTC through the target's build ------------------------------------------------ */
static unsigned char *file_read(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)len + 1);
    *n = fread(buf, 1, (size_t)len, f);
    fclose(f);
    return buf;
}

static int dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

/* Builds source for arch (settings as options_fill makes them) into a fresh file;
 * returns the build's status, log in log. */
static int build_for(const char *arch, const char *source, const char *path, StrBuf *log) {
    unlink(path);
    log->len = 0;
    sb_puts(log, "");
    Options set;
    tl_options o = test_options();
    o.arch = arch;
    if (options_fill(&set, &o, target_cuda.arch, log)) return 1;
    return target_cuda.build(source, &set, path, log);
}

/* ELF64, machine EM_CUDA (190): an NVIDIA cubin, not PTX text. */
static int is_cubin(const char *path) {
    size_t n = 0;
    unsigned char *b = file_read(path, &n);
    int ok = b && n > 64 &&
             !memcmp(b,
                     "\x7f"
                     "ELF",
                     4) &&
             b[4] == 2 && (b[18] | b[19] << 8) == 190;
    free(b);
    return ok;
}

static const char tiny_kernel[] =
    "extern \"C\" __global__ void tilec_kernel_0(float *a, long long n) {\n"
    "    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "    if (i < n) a[i] = a[i] * 2.0f + 1.0f;\n"
    "}\n";

/* Compiles only for an architecture with wgmma: shows the arch option is applied. */
static const char hopper_kernel[] =
    "extern \"C\" __global__ void tilec_kernel_0(float *a) {\n"
    "    asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");\n"
    "    a[threadIdx.x] = 1.0f;\n"
    "}\n";

static const char bad_kernel[] = "extern \"C\" __global__ void tilec_kernel_0(float *a) {\n"
                                 "    // bad.py:7  T.copy(A, B)\n"
                                 "    a[threadIdx.x] = undefined_thing;\n"
                                 "}\n";

static void test_build(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/k.cubin", tmpdir);
    StrBuf log = {0};
    CHECK(build_for("sm_80", tiny_kernel, path, &log) == 0, "sm_80: %s", log.buf);
    CHECK(is_cubin(path), "sm_80 output is not a cubin");
    CHECK(dir_entries(tmpdir) == 1, "temporary files left in %s", tmpdir);
    CHECK(build_for("sm_90a", tiny_kernel, path, &log) == 0, "sm_90a: %s", log.buf);
    CHECK(is_cubin(path), "sm_90a output is not a cubin");
    CHECK(build_for("sm_90a", hopper_kernel, path, &log) == 0, "wgmma on sm_90a: %s", log.buf);
    CHECK(build_for("sm_80", hopper_kernel, path, &log) != 0 && access(path, F_OK) != 0,
          "wgmma compiled for sm_80: the architecture option is not applied");

    CHECK(build_for("sm_80", bad_kernel, path, &log) != 0, "a compile error was accepted");
    CHECK(strstr(log.buf, "kernel.cu(3)") && strstr(log.buf, "undefined_thing") &&
              strstr(log.buf, "a[threadIdx.x] = undefined_thing;") &&
              strstr(log.buf, "in code generated from // bad.py:7  T.copy(A, B)") &&
              strstr(log.buf, "NVRTC_ERROR_COMPILATION"),
          "log without the line and its origin:\n%s", log.buf);
    CHECK(access(path, F_OK) != 0 && dir_entries(tmpdir) == 0, "failed build left files");

    CHECK(build_for("sm80", tiny_kernel, path, &log) != 0 &&
              strstr(log.buf, "arch='sm80': not a CUDA architecture"),
          "bad arch: %s", log.buf);
    CHECK(build_for("sm_20", tiny_kernel, path, &log) != 0 &&
              strstr(log.buf, "cannot compile for sm_20"),
          "old arch: %s", log.buf);
    sb_free(&log);
}

static void test_toolchain_id(const CudaNvrtc *nv) {
    Arena a = {0};
    char want[32];
    snprintf(want, sizeof want, "nvrtc %d.%d", nv->major, nv->minor);
    const char *id = target_cuda.toolchain_id(&a);
    CHECK(strstr(id, want) && !strstr(id, "--gpu-architecture") && strstr(id, "--std=c++17") &&
              !strstr(id, "fast_math"),
          "%s", id);
    /* the architecture is in the settings' part of the cache key */
    Options o80 = {.arch = "sm_80"}, o90 = {.arch = "sm_90a"};
    char *k80 = options_key(&o80), *k90 = options_key(&o90);
    CHECK(strstr(k80, "arch=sm_80") && strstr(k90, "arch=sm_90a") && strcmp(k80, k90), "%s", k90);
    free(k80), free(k90);
    arena_free(&a);
}

/* ---- availability and the API without a GPU --------------------------------------------- */
static void test_unavailable(void) {
    StrBuf why = {0};
    int avail = target_cuda.available(&why);
    if (avail) {
        printf("note: a CUDA device is available\n");
    } else {
        printf("note: cuda target unavailable here: %s\n", why.buf);
        CHECK(why.buf && *why.buf, "no reason given");
        StrBuf log = {0};
        char path[512];
        snprintf(path, sizeof path, "%s/k.cubin", tmpdir);
        CHECK(build_for(NULL, tiny_kernel, path, &log) != 0 &&
                  strstr(log.buf, "set TILEC_CUDA_ARCH"),
              "no arch, no GPU: %s", log.buf);
        sb_free(&log);
        tl_kernel *k = NULL;
        tl_options o = test_options();
        o.target = "cuda";
        CHECK(tl_compile_file("examples/elementwise_add.py", &o, &k) == TL_ERROR_TOOLCHAIN &&
                  strstr(tl_last_error(), why.buf),
              "%s", tl_last_error());
        CHECK(!k, "kernel returned on failure");
    }
    sb_free(&why);
}

/* ---- every example, build only -------------------------------------------------------- */
static int example_names(char names[][128], int max) {
    DIR *d = opendir("examples");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) && n < max;) {
        size_t len = strlen(e->d_name);
        if (len > 3 && !strcmp(e->d_name + len - 3, ".py"))
            snprintf(names[n++], 128, "examples/%s", e->d_name);
    }
    if (d) closedir(d);
    return n;
}

static void test_examples(void) {
    char names[64][128];
    int n = example_names(names, 64);
    CHECK(n >= 8, "found %d examples (run from the repository root)", n);
    static const char *const archs[] = {"sm_80", "sm_90a"};
    for (int a = 0; a < 2; a++) {
        arch_set(archs[a]);
        for (int i = 0; i < n; i++) {
            tl_options o = test_options();
            o.target = "cuda";
            o.build = TL_BUILD_ONLY;
            o.use_cache = 0;
            tl_kernel *k = NULL;
            tl_status st = tl_compile_file(names[i], &o, &k);
            CHECK(st == TL_OK, "%s for %s: %s", names[i], archs[a], tl_last_error());
            if (st == TL_OK) printf("ok: %s compiles for %s\n", names[i], archs[a]);
            tl_kernel_destroy(k);
        }
    }
}

static void test_ws_register_retry(void) {
    arch_set("sm_90a");
    tl_options o = test_options();
    o.target = "cuda";
    o.build = TL_BUILD_ONLY;
    o.use_cache = 0;
    tl_kernel *k = NULL;
    tl_status st = tl_compile_source(test_kernel("ws_regs"), "wsr.py", &o, &k);
    CHECK(st == TL_OK, "wsr: %s", tl_last_error());
    const char *src = k ? tl_kernel_source(k) : NULL, *w = k ? tl_kernel_warnings(k) : NULL;
    CHECK(src && !strstr(src, "tl_tma_load(&") && strstr(src, "tl_cp_async16(") &&
              strstr(src, "tl_wgmma_ss<192, 256, 64, 3,") && w &&
              strstr(w, "compiled without a TMA producer warp group"),
          "wsr: compiled again on cp.async, with a note: %s", w ? w : "(no kernel)");
    tl_kernel_destroy(k);
    arch_set(NULL);
}

/* Build only through the cache: the cubin is cached, the kernel cannot run. */
static void test_build_only_cache(void) {
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", tmpdir);
    arch_set("sm_80");
    tl_options o = test_options();
    o.target = "cuda";
    o.build = TL_BUILD_ONLY;
    o.cache_dir = cache;
    tl_kernel *k = NULL;
    CHECK(tl_compile_file("examples/elementwise_add.py", &o, &k) == TL_OK, "%s", tl_last_error());
    CHECK(dir_entries(cache) == 1, "%d cache entries", dir_entries(cache));
    DIR *d = opendir(cache);
    struct dirent *e = NULL;
    while (d && (e = readdir(d)) && e->d_name[0] == '.') {}
    CHECK(e && cache_entry_name(e->d_name) && strstr(e->d_name, ".cuda.cubin"), "%s",
          e ? e->d_name : "none");
    if (d) closedir(d);
    CHECK(k && tl_kernel_launch(k, NULL, 0, NULL) == TL_ERROR_ARGUMENT &&
              strstr(tl_last_error(), "TL_BUILD_ONLY"),
          "%s", tl_last_error());
    tl_kernel_destroy(k);
    k = NULL;
    CHECK(tl_compile_file("examples/elementwise_add.py", &o, &k) == TL_OK &&
              dir_entries(cache) == 1,
          "second build-only: %s", tl_last_error());
    tl_kernel_destroy(k);
    CHECK(tl_cache_clear(&o) == TL_OK && dir_entries(cache) == 0, "cache clear");
    rmdir(cache);
    o.build = 7;
    CHECK(tl_compile_file("examples/elementwise_add.py", &o, &k) == TL_ERROR_ARGUMENT &&
              strstr(tl_last_error(), "options.build is 7"),
          "%s", tl_last_error());
}

/* ---- SASS of the tensor-core GEMM (no GPU) ---------------------------------------------- */
/* The binary of the one cache entry in dir (a text header ending in an empty line, then
 * the cubin: src/rt/cache.c) written to out; false if there is none. */
static bool entry_binary(const char *dir, const char *out) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[600] = "";
    while (d && (e = readdir(d)))
        if (cache_entry_name(e->d_name)) snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (d) closedir(d);
    FILE *f = *path ? fopen(path, "rb") : NULL;
    if (!f) return false;
    static char buf[8 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    char *end = memmem(buf, n, "\n\n", 2);
    FILE *o = end ? fopen(out, "wb") : NULL;
    if (!o) return false;
    size_t off = (size_t)(end + 2 - buf);
    bool ok = fwrite(buf + off, 1, n - off, o) == n - off;
    return fclose(o) == 0 && ok;
}

/* cuobjdump: $CUOBJDUMP, else on PATH or in the toolkit, else the one of the
 * nvidia-cuda-cuobjdump wheel (.ci/run installs it with nvidia-cuda-nvdisasm). */
static bool find_cuobjdump(char *out, size_t n) {
    const char *env = getenv("CUOBJDUMP");
    if (env && *env) return snprintf(out, n, "%s", env), true;
    FILE *p = popen("command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null || "
                    "python3 -c 'import nvidia, os; [print(os.path.join(d, \"cu13/bin/cuobjdump\"))"
                    " for d in nvidia.__path__ if os.path.exists(os.path.join(d, "
                    "\"cu13/bin/cuobjdump\"))]' 2>/dev/null",
                    "r");
    if (!p) return false;
    bool ok = fgets(out, (int)n, p) != NULL;
    pclose(p);
    if (ok) out[strcspn(out, "\n")] = 0;
    return ok && *out;
}

/* `also` for a wgmma with A from registers: "HGMMA.64xNx16.F32 Rd, Ra, gdesc[..]" (an SS
 * one has the descriptor right after the destination). */
static const char SASS_HGMMA_RS[] = "HGMMA with A from registers";

static bool sass_has(const char *line, const char *what) {
    if (what != SASS_HGMMA_RS) return strstr(line, what) != NULL;
    const char *h = strstr(line, "HGMMA"), *d = h ? strstr(h, ", gdesc") : NULL;
    const char *a = h ? strstr(h, ", R") : NULL;
    return d && a && a < d;
}

/* The SASS of example `file` (a GEMM) built with defs for arch has want and also (unless
 * NULL), no local-memory access (LDL/STL: spills) and at most max_gpu_membars
 * MEMBAR.ALL.GPU (unless negative). */
static void check_gemm_sass(const char *tool, const char *arch, const char *file,
                            const tl_define *defs, int ndefs, const char *want, const char *also,
                            int max_gpu_membars) {
    char cache[300], cmd[1400], line[512];
    static int calls; /* a cache of its own per call: its one entry is this kernel */
    snprintf(cache, sizeof cache, "%s/sass-%s-%d", tmpdir, arch, calls++);
    arch_set(arch);
    tl_options o = test_options();
    o.target = "cuda";
    o.build = TL_BUILD_ONLY;
    o.cache_dir = cache;
    o.defines = defs;
    o.ndefines = ndefs;
    tl_kernel *k = NULL;
    CHECK(tl_compile_file(file, &o, &k) == TL_OK, "%s", tl_last_error());
    tl_kernel_destroy(k);
    char cubin[320];
    snprintf(cubin, sizeof cubin, "%s.cubin", cache);
    CHECK(entry_binary(cache, cubin), "%s for %s: no cache entry in %s", file, arch, cache);
    snprintf(cmd, sizeof cmd, "PATH=\"$(dirname '%s')\":$PATH '%s' -sass '%s' 2>&1", tool, tool,
             cubin);
    FILE *p = popen(cmd, "r");
    int found = 0, found_also = 0, local = 0, lines = 0, membars = 0;
    while (p && fgets(line, sizeof line, p)) {
        lines++;
        membars += strstr(line, "MEMBAR.ALL.GPU") != NULL;
        found += strstr(line, want) != NULL;
        found_also += also && sass_has(line, also);
        local += strstr(line, " LDL") != NULL || strstr(line, " STL") != NULL;
    }
    if (p) pclose(p);
    unlink(cubin);
    tl_cache_clear(&o);
    rmdir(cache);
    CHECK(!also || found_also > 0, "%s for %s: no %s in %d lines of SASS", file, arch, also, lines);
    CHECK(max_gpu_membars < 0 || membars <= max_gpu_membars,
          "%s for %s: %d MEMBAR.ALL.GPU, at most %d expected", file, arch, membars,
          max_gpu_membars);
    CHECK(found > 0 && local == 0,
          "%s for %s: %d %s, %d local-memory instructions in %d "
          "lines of SASS",
          file, arch, found, want, local, lines);
    if (found > 0 && local == 0)
        printf("ok: %s for %s: %d %s, no local memory\n", file, arch, found, want);
    o.build = TL_BUILD_ONLY;
    tl_cache_clear(&o);
    rmdir(cache);
}

static void test_gemm_sass(void) {
    char tool[512];
    if (!find_cuobjdump(tool, sizeof tool)) {
        printf("SKIP SASS checks: no cuobjdump (set CUOBJDUMP, or pip install "
               "nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)\n");
        return;
    }
    static const tl_define gemm[] = {{"M", "512"},       {"N", "512"},       {"K", "512"},
                                     {"block_M", "128"}, {"block_N", "128"}, {"block_K", "64"},
                                     {"num_stages", "3"}};
    static const tl_define epi[] = {
        {"M", "512"},        {"N", "512"},       {"K", "512"},
        {"block_M", "128"},  {"block_N", "256"}, {"block_K", "64"},
        {"num_stages", "4"}, {"threads", "256"}, {"shared_epilogue", "True"}};
    static const tl_define fp8[] = {{"M", "512"},
                                    {"N", "512"},
                                    {"K", "512"},
                                    {"block_M", "256"},
                                    {"threads", "256"}};
    const int ng = (int)(sizeof gemm / sizeof *gemm), nf = (int)(sizeof fp8 / sizeof *fp8);
    /* wgmma and TMA loads; fp8 wgmma; mma.sync. The one GPU-wide fence: the release of a
     * split-K part's partial result (tl_sk_signal; gemm_fp8's 4 iterations a tile are too
     * few to split, and it has none) */
    check_gemm_sass(tool, "sm_90a", "examples/gemm.py", gemm, ng, "HGMMA", "UTMALDG", 1);
    check_gemm_sass(tool, "sm_90a", "examples/gemm_fp8.py", fp8, nf, "QGMMA", "UTMALDG", 0);
    /* flash attention: P * V on wgmma with P in registers */
    static const tl_define fa[] = {{"batch", "1"},
                                   {"heads", "2"},
                                   {"seq_len", "256"},
                                   {"dim", "64"}};
    check_gemm_sass(tool, "sm_90a", "examples/flash_attention.py", fa,
                    (int)(sizeof fa / sizeof *fa), "HGMMA", SASS_HGMMA_RS, -1);
    /* TileLang's Hopper tiles at head dim 128: 128 x 128 over two consumer warp groups
     * and a producer warp group (TMA), both gemms on wgmma, no spills */
    static const tl_define fa128[] = {{"batch", "1"},     {"heads", "2"},     {"seq_len", "256"},
                                      {"dim", "128"},     {"block_M", "128"}, {"block_N", "128"},
                                      {"threads", "256"}, {"num_stages", "2"}};
    check_gemm_sass(tool, "sm_90a", "examples/flash_attention.py", fa128,
                    (int)(sizeof fa128 / sizeof *fa128), "UTMALDG", SASS_HGMMA_RS, -1);
    /* the bench's configuration: 4 stages, an epilogue in chunks leaving by TMA stores */
    check_gemm_sass(tool, "sm_90a", "examples/gemm.py", epi, (int)(sizeof epi / sizeof *epi),
                    "HGMMA", "UTMASTG", 1);
    check_gemm_sass(tool, "sm_80", "examples/gemm.py", gemm, ng, "HMMA", NULL, -1);
    /* the mma.sync bench configuration: 128 accumulators and the fragments a thread */
    static const tl_define wide[] = {{"M", "512"},        {"N", "512"},       {"K", "512"},
                                     {"block_M", "128"},  {"block_N", "256"}, {"block_K", "64"},
                                     {"num_stages", "4"}, {"threads", "256"}};
    check_gemm_sass(tool, "sm_80", "examples/gemm.py", wide, (int)(sizeof wide / sizeof *wide),
                    "HMMA", NULL, -1);
    /* 2-block clusters: cluster barriers (UCGABAR) at entry and exit, with the only GPU-wide
     * fences (the remote arrivals of the mainloop are relaxed) */
    test_cluster = true;
    check_gemm_sass(tool, "sm_90a", "examples/gemm.py", gemm, ng, "UTMALDG.2D.MULTICAST",
                    "UCGABAR_ARV", 2);
    test_cluster = false;
    arch_set(NULL);
}

/* ---- with a GPU ------------------------------------------------------------------------- */
static void test_device_memory(void) {
    DLDevice gpu = {kDLCUDA, 0}, cpu = {kDLCPU, 0};
    DLDataType f32 = {kDLFloat, 32, 1};
    int64_t shape[2] = {3, 1000};
    DLTensor *h = NULL, *g = NULL, *back = NULL;
    CHECK(tl_tensor_alloc(f32, 2, shape, cpu, &h) == TL_OK, "%s", tl_last_error());
    CHECK(tl_tensor_alloc(f32, 2, shape, gpu, &g) == TL_OK, "%s", tl_last_error());
    CHECK(tl_tensor_alloc(f32, 2, shape, cpu, &back) == TL_OK, "%s", tl_last_error());
    if (!h || !g || !back) return;
    CHECK(tl_tensor_copy(back, g) == TL_OK, "%s", tl_last_error());
    int zero = 1;
    for (int i = 0; i < 3000; i++) zero &= ((float *)back->data)[i] == 0.0f;
    CHECK(zero, "device tensor not zero-filled");
    for (int i = 0; i < 3000; i++) ((float *)h->data)[i] = (float)i * 0.5f;
    CHECK(tl_tensor_copy(g, h) == TL_OK && tl_tensor_copy(back, g) == TL_OK, "%s", tl_last_error());
    CHECK(!memcmp(h->data, back->data, 3000 * sizeof(float)), "round trip differs");
    int64_t other[2] = {3, 999};
    DLTensor *o = NULL;
    CHECK(tl_tensor_alloc(f32, 2, other, gpu, &o) == TL_OK, "%s", tl_last_error());
    CHECK(tl_tensor_copy(o, h) == TL_ERROR_ARGUMENT && strstr(tl_last_error(), "(3, 999)"), "%s",
          tl_last_error());
    CHECK(tl_device_synchronize(gpu, NULL) == TL_OK, "%s", tl_last_error());
    tl_tensor_free(o);
    tl_tensor_free(h);
    tl_tensor_free(g);
    tl_tensor_free(back);
}

/* tl_kernel_call in a thread, which starts with no current CUDA context. */
typedef struct CallJob {
    tl_kernel *k;
    DLTensor **in, *out[1];
    tl_status st;
    char err[512];
} CallJob;

static void *call_thread(void *p) {
    CallJob *j = p;
    j->out[0] = NULL;
    j->st = tl_kernel_call(j->k, j->in, 2, j->out, 1, NULL);
    if (j->st == TL_OK) j->st = tl_device_synchronize(tl_kernel_device(j->k), NULL);
    snprintf(j->err, sizeof j->err, "%s", tl_last_error());
    return NULL;
}

/* C == A + B for the 100x130 inputs of test_gpu_launch. */
static int wrong_sums(DLTensor *dev_c, DLTensor *host_c) {
    if (!dev_c || tl_tensor_copy(host_c, dev_c) != TL_OK) return -1;
    int bad = 0;
    for (int i = 0; i < 13000; i++)
        bad += ((float *)host_c->data)[i] != (float)((i % 17) * 0.125 + (i % 5) - 2.0);
    return bad;
}

/* elementwise_add on the GPU: device inputs, outputs from tl_kernel_call (here and in
 * another thread), and tensors on the wrong device rejected with the parameter's name. */
static void test_gpu_launch(void) {
    tl_options o = test_options();
    o.target = "cuda";
    o.use_cache = 0;
    tl_define defs[2] = {{"M", "100"}, {"N", "130"}};
    o.defines = defs;
    o.ndefines = 2;
    arch_set(NULL);
    tl_kernel *k = NULL;
    if (tl_compile_file("examples/elementwise_add.py", &o, &k) != TL_OK) {
        CHECK(0, "compile: %s", tl_last_error());
        return;
    }
    DLDevice dev = tl_kernel_device(k), cpu = {kDLCPU, 0};
    CHECK(dev.device_type == kDLCUDA, "kernel device %d", dev.device_type);
    DLDataType f16 = {kDLFloat, 16, 1};
    int64_t shape[2] = {100, 130};
    DLTensor *ha, *hb, *da, *db, *out[1] = {NULL}, *hc;
    tl_tensor_alloc(f16, 2, shape, cpu, &ha);
    tl_tensor_alloc(f16, 2, shape, cpu, &hb);
    tl_tensor_alloc(f16, 2, shape, dev, &da);
    tl_tensor_alloc(f16, 2, shape, dev, &db);
    tl_tensor_alloc((DLDataType){kDLFloat, 32, 1}, 2, shape, cpu, &hc);
    for (int i = 0; i < 13000; i++) {
        rt_elem_set(DT_FLOAT16, ha->data, (size_t)i, (i % 17) * 0.125);
        rt_elem_set(DT_FLOAT16, hb->data, (size_t)i, (i % 5) - 2.0);
    }
    tl_tensor_copy(da, ha);
    tl_tensor_copy(db, hb);
    DLTensor *cpu_in[2] = {ha, db};
    CHECK(tl_kernel_call(k, cpu_in, 2, out, 1, NULL) == TL_ERROR_ARGUMENT &&
              strstr(tl_last_error(), "argument 'A'") &&
              strstr(tl_last_error(), "device is cpu but the 'cuda' target needs CUDA memory"),
          "%s", tl_last_error());
    DLTensor *in[2] = {da, db};
    da->device.device_id = dev.device_id + 1;
    CHECK(tl_kernel_call(k, in, 2, out, 1, NULL) == TL_ERROR_ARGUMENT &&
              strstr(tl_last_error(), "argument 'A'") &&
              strstr(tl_last_error(), "but the kernel was loaded on cuda:"),
          "%s", tl_last_error());
    da->device.device_id = dev.device_id;
    CHECK(tl_kernel_call(k, in, 2, out, 1, NULL) == TL_OK, "%s", tl_last_error());
    CHECK(tl_device_synchronize(dev, NULL) == TL_OK, "%s", tl_last_error());
    int bad = wrong_sums(out[0], hc);
    CHECK(bad == 0, "%d wrong elements", bad);
    CallJob job = {.k = k, .in = in};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, call_thread, &job) == 0 && pthread_join(th, NULL) == 0,
          "thread");
    CHECK(job.st == TL_OK, "in a thread: %s", job.err);
    bad = wrong_sums(job.out[0], hc);
    CHECK(bad == 0, "in a thread: %d wrong elements", bad);
    DLTensor *list[] = {ha, hb, da, db, out[0], job.out[0], hc};
    for (int i = 0; i < 7; i++) tl_tensor_free(list[i]);
    tl_kernel_destroy(k);
}

/* examples/gemm.py for the GPU with these defines (M, N, K first), or NULL. */
static tl_kernel *gemm_kernel(const tl_define *defs, int n) {
    tl_options o = test_options();
    o.target = "cuda";
    o.use_cache = 0;
    o.defines = defs;
    o.ndefines = n;
    tl_kernel *k = NULL;
    CHECK(tl_compile_file("examples/gemm.py", &o, &k) == TL_OK, "compile: %s", tl_last_error());
    return k;
}

/* Elements of the device result c (M x N, float16) that differ from A @ B (float16
 * inputs whose products and sums are exact in float32) by more than float16 rounding. */
static int wrong_products(DLTensor *c, const DLTensor *a, const DLTensor *b, int M, int N, int K) {
    DLTensor *h = NULL;
    int64_t shape[2] = {M, N};
    tl_tensor_alloc(c->dtype, 2, shape, (DLDevice){kDLCPU, 0}, &h);
    if (!h || tl_tensor_copy(h, c) != TL_OK) return -1;
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double ref = 0;
            for (int k = 0; k < K; k++)
                ref += rt_elem_get(DT_FLOAT16, a->data, (size_t)i * K + k) *
                       rt_elem_get(DT_FLOAT16, b->data, (size_t)k * N + j);
            double got = rt_elem_get(DT_FLOAT16, h->data, (size_t)i * N + j);
            bad += fabs(got - ref) > fabs(ref) / 1024 + 1e-6;
        }
    tl_tensor_free(h);
    return bad;
}

/* Two split-K GEMMs of different grids and partial-result sizes, called in turn on the
 * one stream (so on its one workspace), each twice: every result exact to float16. */
static void test_gpu_splitk(void) {
    enum { NK = 2 };
    static const tl_define a[] = {
        {"M", "256"},        {"N", "512"},       {"K", "1024"},
        {"block_M", "128"},  {"block_N", "256"}, {"block_K", "64"},
        {"num_stages", "4"}, {"threads", "256"}, {"shared_epilogue", "True"}};
    static const tl_define b[] = {{"M", "192"},        {"N", "256"},       {"K", "2048"},
                                  {"block_M", "64"},   {"block_N", "128"}, {"block_K", "64"},
                                  {"num_stages", "3"}, {"threads", "128"}};
    static const int dims[NK][3] = {{256, 512, 1024}, {192, 256, 2048}};
    arch_set(NULL);
    tl_kernel *k[NK] = {gemm_kernel(a, 9), gemm_kernel(b, 8)};
    DLTensor *in[NK][2] = {{NULL}}, *dev[NK][2] = {{NULL}}, *out[2 * NK] = {NULL};
    DLDataType f16 = {kDLFloat, 16, 1};
    for (int i = 0; i < NK && k[0] && k[1]; i++)
        for (int t = 0; t < 2; t++) {
            int64_t shape[2] = {t ? dims[i][2] : dims[i][0], t ? dims[i][1] : dims[i][2]};
            tl_tensor_alloc(f16, 2, shape, (DLDevice){kDLCPU, 0}, &in[i][t]);
            tl_tensor_alloc(f16, 2, shape, tl_kernel_device(k[i]), &dev[i][t]);
            for (int64_t e = 0; e < shape[0] * shape[1]; e++)
                rt_elem_set(DT_FLOAT16, in[i][t]->data, (size_t)e,
                            (double)((e * 7 + t) % 9 - 4) / 4);
            tl_tensor_copy(dev[i][t], in[i][t]);
        }
    for (int r = 0; r < 2 * NK && k[0] && k[1]; r++)
        CHECK(tl_kernel_call(k[r % NK], dev[r % NK], 2, &out[r], 1, NULL) == TL_OK, "%s",
              tl_last_error());
    for (int r = 0; r < 2 * NK && out[r]; r++) {
        const int *d = dims[r % NK];
        int bad = wrong_products(out[r], in[r % NK][0], in[r % NK][1], d[0], d[1], d[2]);
        CHECK(bad == 0, "split-K gemm %d (call %d): %d wrong elements", r % NK, r, bad);
    }
    for (int i = 0; i < NK; i++) {
        for (int t = 0; t < 2; t++) tl_tensor_free(in[i][t]), tl_tensor_free(dev[i][t]);
        tl_tensor_free(out[i]), tl_tensor_free(out[i + NK]);
        tl_kernel_destroy(k[i]);
    }
}

int main(void) {
    StrBuf why = {0};
    const CudaNvrtc *nv = cuda_nvrtc(&why);
    if (!nv) {
        printf("SKIP test_cuda_driver: %s\n", why.buf);
        sb_free(&why);
        return 0;
    }
    printf("NVRTC %d.%d from %s\n", nv->major, nv->minor, nv->path);
    snprintf(tmpdir, sizeof tmpdir, "%s/tilec-cuda-XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) return perror("mkdtemp"), 1;
    test_header_agreement();
    test_build();
    test_toolchain_id(nv);
    test_unavailable();
    test_build_only_cache();
    test_ws_register_retry();
    test_examples();
    test_gemm_sass();
    if (target_cuda.available(NULL)) {
        test_device_memory();
        test_gpu_launch();
        test_gpu_splitk();
    }
    rmdir(tmpdir);
    sb_free(&why);
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
