/* rt.h - internal runtime interfaces behind include/tilec.h: the disk cache of built
 * kernels (cache.c), checking DLPack arguments against a kernel's parameters (args.c),
 * memory on the host and on target devices (device.c), element conversions and numpy .npy
 * files (npy.c).
 *
 * Contract: nothing here exits or aborts on a user error; every failure returns nonzero
 * (or a tl_status) with a message in the caller's StrBuf that names what is wrong in the
 * user's terms (the file, the parameter and field). */
#ifndef TILEC_RT_H
#define TILEC_RT_H

#include "targets/target.h"
#include "tilec.h"

/* ---- disk cache (cache.c) ---------------------------------------------------------- */
/* Bumped when the layout of cache entries or the key recipe changes. */
#define RT_CACHE_FORMAT "3"

/* The cache directory for an explicit dir (NULL or "" = not given): dir, else
 * $TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec, else $HOME/.cache/tilec, else the
 * password database's home/.cache/tilec, else /tmp/tilec-cache-<uid>. */
void cache_dir_resolve(const char *dir, StrBuf *out);
/* Creates dir if missing (mode 0700, parents too) and checks that it is a directory
 * owned by this user that no other user can write. 0, else -1 with err saying why. */
int cache_dir_check(const char *dir, StrBuf *err);
/* 1 when caching is off for this call: use_cache == 0 or $TILEC_NO_CACHE is set to a
 * value other than "" and "0". */
int cache_disabled(int use_cache);
/* 32 lowercase hex digits (+ NUL) of XXH3-128 over source, target name, toolchain id,
 * settings (options_key: two compilations with different settings never share an
 * entry), tilec version and RT_CACHE_FORMAT (each length-prefixed, so fields cannot
 * blur). */
void cache_key(const char *source, const char *target, const char *toolchain, const char *settings,
               char hex[33]);
/* 1 if a directory entry name looks like a cache entry: 32 hex digits, '.', then a
 * non-empty tail of [A-Za-z0-9._-] ("<key>.c.so.entry", and temporary files). */
int cache_entry_name(const char *name);
/* Builds source, generated with settings o, with t (or takes it from the cache in dir,
 * after cache_dir_check and a check of the entry; dir NULL = no cache: build in a private
 * temporary directory that is removed after loading) and loads it. A bad entry is rebuilt
 * and a line "warning: ..." appended to warn. TL_OK with *module set, else a status and
 * the message in err. */
tl_status cache_load_or_build(const Target *t, const Options *o, const char *source,
                              const char *dir, void **module, StrBuf *warn, StrBuf *err);
/* Build only (no device needed to load): puts the binary into the cache in dir (nothing
 * to do if a valid entry is there), or with dir NULL builds it in a temporary directory
 * and deletes it (a compile check). TL_OK, else a status and the message in err. */
tl_status cache_build(const Target *t, const Options *o, const char *source, const char *dir,
                      StrBuf *warn, StrBuf *err);
/* Removes the cache entries (cache_entry_name) in dir, nothing else. */
tl_status cache_clear_dir(const char *dir, int *nremoved, StrBuf *err);
/* mkdir -p path (missing directories get mode). 0 on success, else -1 with err set. */
int rt_mkdir_p(const char *path, int mode, StrBuf *err);

/* ---- launch arguments (args.c) ----------------------------------------------------- */
/* "cpu", "cuda:0", "cuda_host", ... for messages. */
void rt_device_name(DLDevice d, StrBuf *out);
/* "float32", or "code=7 bits=32 lanes=1" for types tilec does not know. */
void rt_dldtype_name(DLDataType t, StrBuf *out);

/* Values of f->syms for one launch, with who bound each (for messages). */
typedef struct SymEnv {
    const Func *f;
    int nsyms;
    int64_t *val;
    int *bound_by; /* param index that bound the sym, -1 while unbound */
} SymEnv;

/* Allocates (malloc) and clears an environment for f; sym_env_free releases it. */
void sym_env_init(SymEnv *env, const Func *f);
void sym_env_free(SymEnv *env);
/* Binds sym `name` (a T.dynamic symbol) to v on behalf of no parameter (bound_by = -2).
 * Returns 0 if f has no such sym. */
int sym_env_define(SymEnv *env, const char *name, int64_t v);
/* Index of v in f->syms, or -1. */
int sym_index(const Func *f, const Var *v);

/* Checks argument t against parameter i of f (device, dtype, ndim, shape, strides, data)
 * and binds the syms it determines. 0 on success, else -1 with err naming the parameter
 * and field. */
int args_check(const Func *f, const Target *target, int i, const DLTensor *t, SymEnv *env,
               StrBuf *err);
/* Buffer argument i must be on device `device_id` of the target's device (where the
 * kernel was loaded). */
int args_check_device_id(const Func *f, const Target *target, int i, const DLTensor *t,
                         int device_id, StrBuf *err);
/* After every parameter was checked: evaluates compound shape/stride expressions
 * (e.g. M * 2) against the arguments and fails for syms no argument bound. */
int args_finish(const Func *f, DLTensor *const *args, SymEnv *env, StrBuf *err);
/* Value of an integer expression over bound syms. 0 on success; -1 if it uses a sym
 * that is unbound (its index in *unbound) or a construct that is not integer math. */
int args_eval(const Expr *e, const SymEnv *env, int64_t *out, int *unbound);
/* Pointer a target's launch gets for argument i: data + byte_offset for buffers; for
 * scalars the value converted into *slot (int64_t for ints and bool, double for floats). */
void *args_pointer(const Func *f, int i, const DLTensor *t, void *slot);
/* Dims of parameter i as text: "(M, 128)". */
void args_shape_text(const Buffer *b, StrBuf *out);

/* ---- memory on a tensor's device (device.c) ------------------------------------------ */
/* Host memory, and the memory of the targets with a device (TargetDevice), through
 * their functions. */
/* Whether rt_dev_alloc can allocate on devices of type dl_type; the kinds it can, as
 * text ("cpu and cuda"), for messages. */
bool rt_dev_allocatable(int dl_type);
void rt_dev_kinds(StrBuf *out);
/* n zero bytes on dev: kDLCPU (64-byte aligned) or a target device's memory (the
 * zeroing is queued on stream, NULL = default stream; *out is NULL for n == 0). 0, else
 * -1 and err. */
int rt_dev_alloc(DLDevice dev, size_t n, void *stream, void **out, StrBuf *err);
void rt_dev_free(DLDevice dev, void *p);
/* Synchronous copy of n bytes between host memory (kDLCPU, or host memory a target
 * device knows, kDLCUDAHost) and a target device's memory, either way. 0, else -1 and
 * err. */
int rt_dev_copy(void *dst, DLDevice dst_dev, const void *src, DLDevice src_dev, size_t n,
                StrBuf *err);
/* Waits for the work queued on stream of dev (nothing to do on the host). */
int rt_dev_sync(DLDevice dev, void *stream, StrBuf *err);

/* ---- elements and .npy files (npy.c) ----------------------------------------------- */
/* Element i of an array of dtype t, as a double (bool: 0/1), and the reverse (floats
 * round to nearest even; ints truncate toward zero and wrap like a C cast of an int64). */
double rt_elem_get(DType t, const void *data, size_t i);
void rt_elem_set(DType t, void *data, size_t i, double v);
/* Exact for 64-bit ints, which a double cannot hold. */
int64_t rt_elem_get_int(DType t, const void *data, size_t i);

typedef struct NpyArray {
    DType dtype; /* element type of data */
    int ndim;
    int64_t *shape; /* malloc'ed, ndim entries (NULL if ndim == 0) */
    void *data;     /* malloc'ed, numel * dtype_bytes, 64-byte aligned */
    size_t numel;
} NpyArray;

/* Reads a .npy file (format 1.0, 2.0, 3.0; C order; little-endian or byte-order-free
 * descr; b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8). want: the dtype the caller needs, or
 * DT_INVALID; a float32 file read with want bfloat16/float8_* is converted (round to
 * nearest even), since numpy has no such types. Any other dtype is returned as stored.
 * 0 on success, else -1 with "PATH: reason" in err. */
int npy_read(const char *path, DType want, NpyArray *out, StrBuf *err);
/* Parses an in-memory .npy image; name is used in messages. */
int npy_parse(const char *name, const unsigned char *buf, size_t len, DType want, NpyArray *out,
              StrBuf *err);
/* Writes a C-order array as format 1.0 (2.0 if the header needs it). bfloat16 and
 * float8 data are written as float32 (exact widening). Writes a temporary file and
 * renames it, so a failure leaves no partial PATH. 0 on success, else -1 and err. */
int npy_write(const char *path, DType dtype, int ndim, const int64_t *shape, const void *data,
              StrBuf *err);
void npy_free(NpyArray *a);

/* ---- comparing results (compare.c), for tilec run --check ------------------------- */
/* Per-dtype tolerance: |got - ref| <= atol * max(1, max|ref|) + rtol * |ref|.
 * float64 1e-9, float32 1e-4, float16 1e-2, bfloat16 2e-2, e4m3 0.125, e5m2 0.25;
 * ints and bool exact (0, 0). */
void rt_tolerance(DType t, double *rtol, double *atol);

typedef struct RtCompare {
    size_t nbad;      /* elements outside the tolerance */
    size_t first_bad; /* index of the first of them */
    size_t nnan;      /* elements NaN in both (they agree), and the first of them */
    size_t first_nan;
    double max_abs_err; /* over all elements (NaN/inf pairs that agree count as 0) */
    double atol, rtol;  /* the tolerance used, atol already scaled */
} RtCompare;

/* Compares n elements of dtype t. NaN equals NaN, inf equals the same inf. Returns nbad. */
size_t rt_compare(DType t, const void *got, const void *ref, size_t n, RtCompare *out);

#endif
