/* driver.h - the CUDA driver API (libcuda.so.1) and NVRTC (libnvrtc), loaded with dlopen
 * on first use, once per process, so that nothing needs a GPU or a CUDA toolkit to build
 * or load libtilec. The few types and constants used are declared here (no cuda.h
 * needed); tests/unit/test_cuda_driver.c checks them against the toolkit's headers when
 * those are installed.
 *
 * Contract: every function that can fail returns 0 on success, else -1 with a message
 * in err that names the failing call and the driver's error name and text
 * ("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"). Loading is
 * thread-safe (pthread_once); the tables are read-only afterwards. */
#ifndef TILEC_CUDA_DRIVER_H
#define TILEC_CUDA_DRIVER_H

#include <stddef.h>

#include "base/base.h"

/* ---- driver API types and constants (values as in cuda.h) ------------------------------ */
typedef int CuResult;
typedef int CuDevice;
typedef unsigned long long CuDevPtr;
typedef struct CuCtxSt *CuContext;
typedef struct CuModSt *CuModule;
typedef struct CuFuncSt *CuFunction;
typedef struct CuStreamSt *CuStream;

enum {
    CUDRV_SUCCESS = 0,
    CUDRV_ERROR_STUB_LIBRARY = 34,
    CUDRV_ERROR_NO_DEVICE = 100,
    CUDRV_DEV_ATTR_MAX_THREADS_PER_BLOCK = 1,
    CUDRV_DEV_ATTR_MAX_GRID_DIM_X = 5,
    CUDRV_DEV_ATTR_MAX_GRID_DIM_Y = 6,
    CUDRV_DEV_ATTR_MAX_GRID_DIM_Z = 7,
    CUDRV_DEV_ATTR_MULTIPROCESSOR_COUNT = 16,
    CUDRV_DEV_ATTR_CC_MAJOR = 75,
    CUDRV_DEV_ATTR_CC_MINOR = 76,
    CUDRV_DEV_ATTR_SMEM_PER_BLOCK_OPTIN = 97,
    CUDRV_DEV_ATTR_MEMORY_POOLS_SUPPORTED = 115,
    CUDRV_FUNC_ATTR_MAX_THREADS_PER_BLOCK = 0,
    CUDRV_FUNC_ATTR_SHARED_SIZE_BYTES = 1,
    CUDRV_FUNC_ATTR_NUM_REGS = 4,
    CUDRV_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CUDRV_FUNC_ATTR_PREFERRED_SHARED_MEMORY_CARVEOUT = 9, /* percent of L1 given to shared */
    /* cuTensorMapEncodeTiled: element types by size, swizzles, L2 promotion */
    CUDRV_TMAP_UINT8 = 0,
    CUDRV_TMAP_UINT16 = 1,
    CUDRV_TMAP_UINT32 = 2,
    CUDRV_TMAP_UINT64 = 4,
    CUDRV_TMAP_INTERLEAVE_NONE = 0,
    CUDRV_TMAP_SWIZZLE_NONE = 0,
    CUDRV_TMAP_SWIZZLE_32B = 1,
    CUDRV_TMAP_SWIZZLE_64B = 2,
    CUDRV_TMAP_SWIZZLE_128B = 3,
    CUDRV_TMAP_L2_PROMOTION_128B = 2,
    CUDRV_TMAP_FLOAT_OOB_FILL_NONE = 0, /* out-of-bounds elements read as zeros */
};

/* CUtensorMap: 128 opaque bytes, 64-byte aligned. */
typedef struct CuTensorMap {
    _Alignas(64) unsigned long long opaque[16];
} CuTensorMap;

/* CUlaunchConfig (cuOccupancyMaxActiveClusters); attrs NULL: the kernel's own
 * __cluster_dims__. */
typedef struct CuLaunchConfig {
    unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, smem;
    CuStream stream;
    void *attrs;
    unsigned nattrs;
} CuLaunchConfig;

/* X(field, symbol, parameters, required): the driver entry points tilec uses. The symbol
 * is the ABI name the toolkit header maps the API name to (cuMemAlloc -> cuMemAlloc_v2);
 * the legacy default-stream variants, not the _ptsz/_ptds ones. An optional entry point
 * that the installed driver lacks is NULL. */
#define CUDA_DRIVER_FUNCS(X)                                                                       \
    X(GetErrorName, "cuGetErrorName", (CuResult e, const char **s), 1)                             \
    X(GetErrorString, "cuGetErrorString", (CuResult e, const char **s), 1)                         \
    X(Init, "cuInit", (unsigned flags), 1)                                                         \
    X(DriverGetVersion, "cuDriverGetVersion", (int *v), 1)                                         \
    X(DeviceGetCount, "cuDeviceGetCount", (int *n), 1)                                             \
    X(DeviceGet, "cuDeviceGet", (CuDevice * d, int ordinal), 1)                                    \
    X(DeviceGetName, "cuDeviceGetName", (char *name, int len, CuDevice d), 1)                      \
    X(DeviceGetAttribute, "cuDeviceGetAttribute", (int *v, int attr, CuDevice d), 1)               \
    X(DeviceTotalMem, "cuDeviceTotalMem_v2", (size_t * bytes, CuDevice d), 1)                      \
    X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CuContext * c, CuDevice d), 1)          \
    X(CtxGetCurrent, "cuCtxGetCurrent", (CuContext * c), 1)                                        \
    X(CtxSetCurrent, "cuCtxSetCurrent", (CuContext c), 1)                                          \
    X(CtxPushCurrent, "cuCtxPushCurrent_v2", (CuContext c), 1)                                     \
    X(CtxPopCurrent, "cuCtxPopCurrent_v2", (CuContext * c), 1)                                     \
    X(CtxGetDevice, "cuCtxGetDevice", (CuDevice * d), 1)                                           \
    X(ModuleLoadData, "cuModuleLoadData", (CuModule * m, const void *image), 1)                    \
    X(ModuleUnload, "cuModuleUnload", (CuModule m), 1)                                             \
    X(ModuleGetFunction, "cuModuleGetFunction", (CuFunction * f, CuModule m, const char *n), 1)    \
    X(FuncGetAttribute, "cuFuncGetAttribute", (int *v, int attr, CuFunction f), 1)                 \
    X(FuncSetAttribute, "cuFuncSetAttribute", (CuFunction f, int attr, int v), 1)                  \
    X(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor",    \
      (int *n, CuFunction f, int block, size_t smem), 1)                                           \
    X(OccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters",                                  \
      (int *n, CuFunction f, const CuLaunchConfig *c), 0)                                          \
    X(LaunchKernel, "cuLaunchKernel",                                                              \
      (CuFunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, \
       unsigned smem, CuStream s, void **params, void **extra),                                    \
      1)                                                                                           \
    X(MemAlloc, "cuMemAlloc_v2", (CuDevPtr * p, size_t n), 1)                                      \
    X(MemFree, "cuMemFree_v2", (CuDevPtr p), 1)                                                    \
    X(MemAllocAsync, "cuMemAllocAsync", (CuDevPtr * p, size_t n, CuStream s), 0)                   \
    X(MemFreeAsync, "cuMemFreeAsync", (CuDevPtr p, CuStream s), 0)                                 \
    X(MemsetD8Async, "cuMemsetD8Async", (CuDevPtr p, unsigned char v, size_t n, CuStream s), 1)    \
    X(MemcpyHtoD, "cuMemcpyHtoD_v2", (CuDevPtr dst, const void *src, size_t n), 1)                 \
    X(MemcpyDtoH, "cuMemcpyDtoH_v2", (void *dst, CuDevPtr src, size_t n), 1)                       \
    X(MemcpyDtoD, "cuMemcpyDtoD_v2", (CuDevPtr dst, CuDevPtr src, size_t n), 1)                    \
    X(StreamSynchronize, "cuStreamSynchronize", (CuStream s), 1)                                   \
    X(StreamIsCapturing, "cuStreamIsCapturing", (CuStream s, int *status), 0)                      \
    X(TensorMapEncodeTiled, "cuTensorMapEncodeTiled",                                              \
      (CuTensorMap * map, int dtype, unsigned rank, void *addr, const unsigned long long *dims,    \
       const unsigned long long *strides, const unsigned *box, const unsigned *elem_strides,       \
       int interleave, int swizzle, int l2, int oob),                                              \
      0)                                                                                           \
    X(LaunchCooperativeKernel, "cuLaunchCooperativeKernel",                                        \
      (CuFunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, \
       unsigned smem, CuStream s, void **params),                                                  \
      0)

typedef struct CudaDriver {
#define X(field, sym, params, req) CuResult(*field) params;
    CUDA_DRIVER_FUNCS(X)
#undef X
    int version;  /* cuDriverGetVersion: 13000 for CUDA 13.0 */
    int ndevices; /* >= 1 */
} CudaDriver;

/* ---- NVRTC --------------------------------------------------------------------------- */
typedef int NvrtcResult;
typedef struct NvrtcProgSt *NvrtcProgram;
enum { CUDRV_NVRTC_SUCCESS = 0 };

#define CUDA_NVRTC_FUNCS(X)                                                                        \
    X(Version, "nvrtcVersion", (int *major, int *minor), 1)                                        \
    X(CreateProgram, "nvrtcCreateProgram",                                                         \
      (NvrtcProgram * p, const char *src, const char *name, int nheaders,                          \
       const char *const *headers, const char *const *include_names),                              \
      1)                                                                                           \
    X(CompileProgram, "nvrtcCompileProgram", (NvrtcProgram p, int nopt, const char *const *opts),  \
      1)                                                                                           \
    X(GetProgramLogSize, "nvrtcGetProgramLogSize", (NvrtcProgram p, size_t * n), 1)                \
    X(GetProgramLog, "nvrtcGetProgramLog", (NvrtcProgram p, char *log), 1)                         \
    X(GetCUBINSize, "nvrtcGetCUBINSize", (NvrtcProgram p, size_t * n), 1)                          \
    X(GetCUBIN, "nvrtcGetCUBIN", (NvrtcProgram p, char *cubin), 1)                                 \
    X(DestroyProgram, "nvrtcDestroyProgram", (NvrtcProgram * p), 1)                                \
    X(GetNumSupportedArchs, "nvrtcGetNumSupportedArchs", (int *n), 0)                              \
    X(GetSupportedArchs, "nvrtcGetSupportedArchs", (int *archs), 0)

typedef struct CudaNvrtc {
#define X(field, sym, params, req) NvrtcResult(*field) params;
    CUDA_NVRTC_FUNCS(X)
#undef X
    const char *(*GetErrorString)(NvrtcResult r); /* nvrtcGetErrorString */
    int major, minor;                             /* nvrtcVersion */
    const char *path;                             /* the library file that was loaded */
} CudaNvrtc;

/* ---- loading ------------------------------------------------------------------------- */
/* The driver, initialized (cuInit(0)) with at least one device; NULL with the reason in
 * why ("no NVIDIA driver (libcuda.so.1 not found)", "no CUDA device", ...). */
const CudaDriver *cuda_driver(StrBuf *why);
/* NVRTC: $TILEC_NVRTC if set (a library path), else one the process has loaded already
 * (PyTorch's), else libnvrtc.so, .so.13, .so.12 under $CUDA_HOME, $CUDA_PATH and
 * /usr/local/cuda (lib64, then lib), then the default search path. NULL with the reason
 * in why. */
const CudaNvrtc *cuda_nvrtc(StrBuf *why);
/* Symbol names of the driver and NVRTC tables, in X-macro order, NULL-terminated (for
 * tests). */
extern const char *const cuda_driver_symbols[];
extern const char *const cuda_nvrtc_symbols[];

/* Checks a driver result: 0 on success, else -1 and "CALL failed: NAME (text)" in err. */
int cuda_check(CuResult r, const char *call, StrBuf *err);
/* cuda_check for d->fn(args), naming the call "cu<fn>". */
#define CU_CALL(d, err, fn, args) cuda_check((d)->fn args, "cu" #fn, (err))
int nvrtc_check(NvrtcResult r, const char *call, StrBuf *err);
#define NVRTC_CALL(n, err, fn, args) nvrtc_check((n)->fn args, "nvrtc" #fn, (err))

/* ---- contexts -------------------------------------------------------------------------- */
/* The primary context of device dev, retained once per process and never released, so
 * that memory tl_kernel_call hands out outlives the kernels (and it is the context the
 * CUDA runtime and PyTorch use). */
int cuda_primary_ctx(int dev, CuContext *out, StrBuf *err);
/* The context the calling thread works in: the current one (PyTorch's, the user's) if
 * any, else device 0's primary context, which is then made current (as the CUDA runtime
 * does). *dev is its device. */
int cuda_ctx_current(CuContext *ctx, int *dev, StrBuf *err);
/* The context to use for memory of CUDA device dev: the current one if it is on dev,
 * else dev's primary context. */
int cuda_ctx_for_device(int dev, CuContext *ctx, StrBuf *err);
/* Makes ctx current for the calling thread until cuda_ctx_leave: nothing changes if it
 * is current; it is set if none is (and stays: as the runtime does); it is pushed (and
 * popped on leave) if another context is current. */
typedef struct CudaCtxScope {
    int pushed;
} CudaCtxScope;
int cuda_ctx_enter(CuContext ctx, CudaCtxScope *s, StrBuf *err);
void cuda_ctx_leave(CudaCtxScope *s);

/* ---- memory for the API layer (device = CUDA ordinal) ------------------------------------ */
/* n zero bytes on device dev (the zeroing is queued on stream, NULL = default); *out
 * NULL for n == 0. */
int cuda_mem_alloc(int dev, size_t n, void *stream, void **out, StrBuf *err);
void cuda_mem_free(int dev, void *p);
/* Synchronous copies; a device of -1 means host memory. */
int cuda_memcpy(void *dst, int dst_dev, const void *src, int src_dev, size_t n, StrBuf *err);
/* Waits for the work queued on stream (NULL = default stream) of device dev. */
int cuda_stream_sync(int dev, void *stream, StrBuf *err);
/* Lines for tl_info: the GPUs (name, compute capability, memory), driver and NVRTC
 * versions, or why CUDA is unavailable. Each line starts with two spaces. */
void cuda_describe(StrBuf *sb);
/* The same as one JSON object (tl_info_json's "cuda"). */
void cuda_describe_json(StrBuf *sb);

#endif
