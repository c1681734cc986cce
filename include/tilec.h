/* tilec.h - the public C API of tilec, a compiler for TileLang kernels.
 *
 *   tl_kernel *k;
 *   tl_options opt = tl_options_default();
 *   opt.target = "c";
 *   if (tl_compile_file("gemm.py", &opt, &k) != TL_OK) { puts(tl_last_error()); ... }
 *   tl_kernel_launch(k, args, nargs, NULL);   // DLTensor *args[], one per parameter
 *   tl_kernel_destroy(k);
 *
 * Every function returns a tl_status; on failure tl_last_error() (thread-local) holds a
 * message ("file:line:col: error: ..." plus the source line and a caret for program
 * errors). Nothing in the library exits or aborts on a user error. */
#ifndef TILEC_H
#define TILEC_H

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILEC_VERSION "0.1.0"

typedef enum tl_status {
    TL_OK = 0,
    TL_ERROR_PROGRAM = 1,   /* the kernel program is wrong (syntax, names, shapes, dtypes) */
    TL_ERROR_ARGUMENT = 2,  /* a launch argument or option does not fit */
    TL_ERROR_TOOLCHAIN = 3, /* C compiler / NVRTC / driver missing or failing */
    TL_ERROR_IO = 4,        /* a file could not be read or written */
    TL_ERROR_RUNTIME = 5,   /* the kernel failed while running (T.device_assert, launch) */
    TL_ERROR_INTERNAL = 6,
} tl_status;

/* "-D NAME=VALUE": a factory argument (or module constant). VALUE is a Python literal
 * (42, 1.5, True, "float16", (64, 64)); a bare word is taken as a string. */
typedef struct tl_define {
    const char *name;
    const char *value;
} tl_define;

/* Values of tl_options.build. */
enum { TL_BUILD_NONE = 0, TL_BUILD_LOAD = 1, TL_BUILD_ONLY = 2 };

typedef struct tl_options {
    const char *target;  /* "auto" (GPU if usable, else "c"), "c", "cuda"; NULL = auto */
    const char *factory; /* function to call or prim_func to take; NULL = the only/last one */
    const tl_define *defines;
    int ndefines;
    int use_cache;         /* 1 (default): reuse compiled kernels from the disk cache */
    const char *cache_dir; /* NULL: $TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec, ~/.cache/tilec */
    int build;             /* TL_BUILD_LOAD (1, default): compile to a loaded, runnable
                                  kernel; TL_BUILD_NONE (0): stop after codegen;
                                  TL_BUILD_ONLY (2): compile (into the cache) but do not load:
                                  needs the toolchain (NVRTC for cuda) but no device */
    const int *out_idx;    /* overrides the program's out_idx when non-NULL */
    int nout_idx;
    /* Eager-style kernels (T.const sizes): the call's tensors, of which only ndim, shape
     * and strides are read; inputs[i] is the parameter input_names[i], or, when
     * input_names is NULL, the i-th tensor parameter in signature order. The T.const sizes
     * that no define gives are read from them and the kernel is specialized to them;
     * without them those sizes stay symbolic (bound at launch, like T.dynamic ones). */
    DLTensor *const *inputs;
    const char *const *input_names;
    int ninputs;
    /* TileLang's pass configs, key -> value (a Python literal), as
     * @tilelang.jit(pass_configs=...) gives them; they add to (and override) the ones the
     * kernel file's own decorator gives. */
    const tl_define *pass_configs;
    int npass_configs;
    /* ---- added in 0.2; fields are only ever added here, at the end, and
     * tl_options_default() zero-fills every one (zero: the default) ---- */
    /* Dumping the IR after passes: "all", or pass names separated by commas (`tilec info
     * --passes` lists each target's); NULL: $TILEC_PRINT_AFTER when it is set. Each dump
     * is the IR printer's text after a "# IR after PASS (TARGET)" line, appended to the
     * file print_after_path, or written to stderr when that is NULL. */
    const char *print_after;
    const char *print_after_path;
    /* CUDA architecture to compile for: "sm_80", "sm_90a", ...; NULL: $TILEC_CUDA_ARCH,
     * else the current GPU's. */
    const char *arch;
    /* tilec's settings, key -> value ("no_ws" -> "1"; docs/c-api.md lists them, `tilec
     * help settings` too); each overrides its TILEC_* environment variable, and a key
     * given twice takes the last value. "arch" here is the same as the field above
     * (which wins when both are set). */
    const tl_define *settings;
    int nsettings;
} tl_options;

tl_options tl_options_default(void);

typedef struct tl_kernel tl_kernel;

tl_status tl_compile_file(const char *path, const tl_options *opt, tl_kernel **out);
/* filename is used in messages only. */
tl_status tl_compile_source(const char *source, const char *filename, const tl_options *opt,
                            tl_kernel **out);
void tl_kernel_destroy(tl_kernel *k);

/* ---- a kernel captured from a running Python program ------------------------------------
 * The Python package runs a kernel's factory in Python and hands libtilec the kernel
 * function with the values of its free names, so that any Python (dataclass configs,
 * helpers imported from other modules, closures) can build a kernel; only the kernel
 * function and the functions it calls are compiled. A value is text: a Python expression
 * of literals (numbers, strings, True/False/None, tuples, lists, dicts), `T.<dtype>`, and
 *   __module__("math")              a module (tilelang.language, math, ...)
 *   __func__(i)                     captured function funcs[i]
 *   __obj__(i)                      objects[i], evaluated once (so `is` holds)
 *   __object__("Type", a=v, ...)    an object with these attributes (dataclass, enum member;
 *                                   __class__=v: an object whose functions are its methods)
 *   __opaque__("message")           a value that cannot reach a kernel: using it is an
 *                                   error with this message at the use
 *   __result__("name", v)           (version 2) a function of no arguments that asks the
 *                                   host (torch, the GPU): it ran once in Python, and a
 *                                   call name() is v
 * libtilec reads versions 1 and 2. */
#define TL_CAPTURE_VERSION 2
enum { TL_FUNC_PLAIN = 0, TL_FUNC_PRIM = 1, TL_FUNC_MACRO = 2, TL_FUNC_JIT = 3 };

typedef struct tl_capture_func {
    const char *filename; /* where it is defined; messages point into this file */
    const char *source;   /* that file's whole text (as the program ran it) */
    int line;             /* the line of its `def` or of its first decorator */
    const char *name;
    int kind;             /* TL_FUNC_*: PRIM a @T.prim_func, JIT an eager-style kernel */
    const tl_define *env; /* its free names: name -> value text */
    int nenv;
    const tl_define *defaults; /* parameter name -> default value text (Python's values) */
    int ndefaults;
} tl_capture_func;

typedef struct tl_capture {
    int version;                  /* TL_CAPTURE_VERSION */
    const tl_capture_func *funcs; /* funcs[0] is the kernel */
    int nfuncs;
    const char *const *objects; /* value texts */
    int nobjects;
} tl_capture;

/* Compiles funcs[0]: a prim_func as it is; an eager-style kernel with opt->defines as its
 * compile-time arguments (value texts as above) and opt->inputs. opt->factory, when set,
 * names the kernel (the factory that made the prim_func); by default it is funcs[0]'s
 * name. */
tl_status tl_compile_capture(const tl_capture *cap, const tl_options *opt, tl_kernel **out);

/* Thread-local text of the last failure in this thread ("" if none). */
const char *tl_last_error(void);

/* ---- introspection ---------------------------------------------------------------- */
typedef struct tl_param_info {
    const char *name;
    DLDataType dtype;
    int ndim;                       /* 0 for a scalar parameter */
    const int64_t *shape;           /* ndim entries; -1 where symbolic */
    const char *const *shape_names; /* ndim entries; symbol name where symbolic, else NULL */
    int is_output;                  /* allocated by tl_kernel_call */
    int is_scalar;
    int is_pointer; /* a scalar annotated T.ptr (int64): the argument is an address, a 0-d
                       64-bit integer tensor on the host, or any tensor of the kernel's
                       device, whose data (plus byte_offset) is the address */
} tl_param_info;

const char *tl_kernel_name(const tl_kernel *k);
const char *tl_kernel_target(const tl_kernel *k); /* "c" or "cuda" */
const char *tl_kernel_ir(const tl_kernel *k);     /* tile IR as text, before lowering */
const char *tl_kernel_source(const tl_kernel *k); /* generated C or CUDA source */
/* Warnings of the compilation, one per line ("" if none). */
const char *tl_kernel_warnings(const tl_kernel *k);
int tl_kernel_num_params(const tl_kernel *k);
tl_status tl_kernel_param(const tl_kernel *k, int i, tl_param_info *info);
/* FLOPs / bytes the kernel declares for the given arguments (0 if it declares none). */
double tl_kernel_flops(const tl_kernel *k, DLTensor *const *args, int nargs);
/* The work the kernel's tile program does for the given arguments (args may be NULL and
 * nargs 0 when no size is symbolic): *flops, the tensor-core FLOPs of its T.gemm
 * operations; *global_bytes, the bytes it moves to and from global memory (each tile
 * copy's global regions, each element load and store of a global tensor; every access
 * counted, no cache reuse), loops times their trip counts, summed over the grid.
 * TL_ERROR_ARGUMENT when a count depends on run-time data (a while loop, a loop bound
 * read from memory) or an argument does not fit. */
tl_status tl_kernel_work(const tl_kernel *k, DLTensor *const *args, int nargs, double *flops,
                         double *global_bytes);

/* ---- running ---------------------------------------------------------------------- */
/* Runs the kernel with one DLTensor per parameter (outputs included). Scalars are 0-d
 * tensors. Every argument is checked first: the error names the parameter and field
 * (dtype, ndim, shape, stride, device). stream: a CUstream for CUDA kernels, NULL = default. */
tl_status tl_kernel_launch(tl_kernel *k, DLTensor *const *args, int nargs, void *stream);

/* Runs the kernel with the inputs only (parameters not marked is_output, in order);
 * allocates the outputs on the inputs' device, stores them in outputs[0..noutputs-1];
 * release each with tl_tensor_free. */
tl_status tl_kernel_call(tl_kernel *k, DLTensor *const *inputs, int ninputs, DLTensor **outputs,
                         int noutputs, void *stream);
/* Frees a tensor tl_kernel_call or tl_tensor_alloc allocated: its data (host or device
 * memory), shape, strides and the DLTensor. */
void tl_tensor_free(DLTensor *t);

/* The device a kernel's tensors must be on: kDLCPU for the c target; for cuda, kDLCUDA
 * and the GPU the kernel was loaded on (the current one when it was compiled). */
DLDevice tl_kernel_device(const tl_kernel *k);
/* A compact, zero-filled tensor on dev (kDLCPU, or kDLCUDA: device memory of that GPU);
 * release it with tl_tensor_free. */
tl_status tl_tensor_alloc(DLDataType dtype, int ndim, const int64_t *shape, DLDevice dev,
                          DLTensor **out);
/* Copies src's elements into dst: same dtype and shape, both compact; each on the host
 * or on a CUDA device. Returns when the copy is complete. */
tl_status tl_tensor_copy(DLTensor *dst, const DLTensor *src);
/* Waits until the work queued on stream (NULL: the default stream) of device dev is
 * done; nothing to wait for on kDLCPU. A CUDA kernel that faulted reports it here. */
tl_status tl_device_synchronize(DLDevice dev, void *stream);

/* ---- cache and environment -------------------------------------------------------- */
/* Directory of the kernel cache for these options (opt may be NULL). */
const char *tl_cache_dir(const tl_options *opt);
tl_status tl_cache_clear(const tl_options *opt);
/* Multi-line description: version, targets, compilers found, GPU and driver, cache dir. */
const char *tl_info(void);
/* The same facts as one JSON object (one line): {"version", "targets": {NAME: {"available",
 * "toolchain", "reason"}}, "cuda": {"driver", "driver_error", "gpus": [{"index", "name",
 * "compute_capability", "sms", "memory_bytes"}], "nvrtc": {"version", "path"},
 * "nvrtc_error"} or null, "auto_target", "cache_dir", "cache_enabled"}. */
const char *tl_info_json(void);
const char *tl_version(void);

#ifdef __cplusplus
}
#endif
#endif
