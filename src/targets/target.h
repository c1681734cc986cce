/* target.h - the interface of a back end (src/targets/<name>/) and the table of them
 * (target.c). The rest of tilec (src/api, src/rt) reaches a target only through it: its
 * pipeline, source, build and retry policy, modules and launches, and the memory, streams
 * and devices of an accelerator. docs/internals.md says how to add one. */
#ifndef TILEC_TARGET_H
#define TILEC_TARGET_H

#include "ir/ir.h"
#include "tilec.h" /* DLPack: DLDevice */

/* The device of a target whose kernels run on an accelerator: where their tensors live
 * and how src/rt reaches that memory. Device indices are the DLPack device_id. */
typedef struct TargetDevice {
    const char *name;   /* the device as DLPack names it, for messages: "cuda" */
    const char *memory; /* what its kernels need, for messages: "CUDA memory" */
    int dl_type;        /* the DLPack device type of the memory it allocates: kDLCUDA */
    /* Whether its kernels take a tensor on d. */
    bool (*takes)(DLDevice d);
    /* d as this device's memory: its device index (>= 0), -1 for host memory it copies
     * to and from (pinned host memory), -2 for memory it does not know. */
    int (*ordinal)(DLDevice d);
    /* n zero bytes on device dev (the zeroing queued on stream, NULL = default); *out is
     * NULL for n == 0. 0, else -1 with the reason in err. */
    int (*mem_alloc)(int dev, size_t n, void *stream, void **out, StrBuf *err);
    void (*mem_free)(int dev, void *p);
    /* Synchronous copy; a device of -1 is host memory. 0, else -1 and err. */
    int (*mem_copy)(void *dst, int dst_dev, const void *src, int src_dev, size_t n, StrBuf *err);
    /* Waits for the work queued on stream (NULL = default stream) of device dev. */
    int (*stream_sync)(int dev, void *stream, StrBuf *err);
    /* The device a loaded module runs on. */
    int (*module_device)(const void *module);
    /* tl_info: lines (each starting with two spaces) on the devices and the toolchain,
     * or why it is unavailable; tl_info_json: the same as one JSON object. */
    void (*describe)(StrBuf *sb);
    void (*describe_json)(StrBuf *sb);
} TargetDevice;

typedef struct Target {
    const char *name;       /* "c", "cuda" */
    const char *source_ext; /* ".c" */
    const char *binary_ext; /* ".so" */
    /* 1 if the target can build and run here; else 0 with the reason in why. */
    int (*available)(StrBuf *why);
    /* Text identifying the toolchain (compiler path + version): part of the cache key,
     * with the source and options_key. */
    const char *(*toolchain_id)(Arena *a);
    /* Optional (NULL: the target has no architectures): the architecture to compile for,
     * for options_fill (OptionsArchFn, options.h): given (NULL: none) checked and
     * normalized into out; without one, the current device's. 0 on success; 1 when none
     * was given and no device says (why says so; building then fails with it); -1 when
     * given is not one (why). *sms: the current device's multiprocessors, 0 when none
     * says (options_fill's default of sm_count). */
    int (*arch)(const char *given, char *out, size_t n, int *sms, StrBuf *why);
    /* The whole pass pipeline of this target, one pass per line; ctx->opts holds the
     * compilation's settings. */
    void (*lower)(Ctx *ctx, Func *f);
    /* Generated source for a lowered function (arena string). */
    char *(*emit)(Ctx *ctx, const Func *f);
    /* Build source, generated with the settings opt, into binary_path (atomically:
     * write a temp file, rename). 0 on success; else toolchain output in log. */
    int (*build)(const char *source, const Options *opt, const char *binary_path, StrBuf *log);
    /* Load a built binary (built with the settings opt); NULL with a reason in err. */
    void *(*load)(const char *binary_path, const Options *opt, StrBuf *err);
    /* Run: args[i] = data pointer of buffer parameter i (byte_offset applied) or pointer
     * to the scalar value (int64_t for ints and bool, double for floats); syms = values
     * of f->syms in order. 0 on success; else reason in err. */
    int (*launch)(void *module, void *const *args, const int64_t *syms, void *stream, StrBuf *err);
    void (*unload)(void *module);
    /* Optional (NULL for targets that need nothing): called once after load with the
     * lowered Func the module was built from; it outlives the module. The CUDA target
     * takes its launch plan (grids, block sizes, shared memory) from it. */
    void (*bind)(void *module, const Func *f);
    /* Optional retry policy: after a build of lowered f failed with log, the note (static
     * text, for the kernel's warnings) when compiling it again with `fallback` applied to
     * the compilation's settings may succeed; NULL: no retry. */
    const char *(*retry)(const Func *f, const char *log);
    void (*fallback)(Options *o);
    /* NULL for a target whose kernels run on the host and take host memory. */
    const TargetDevice *device;
    /* The reference semantics (the C target): `auto` picks it when no other target can
     * run here. */
    bool reference;
} Target;

/* The targets in the table's order (i = 0, 1, ...; NULL after the last). */
const Target *target_at(int i);
const Target *target_find(const char *name); /* NULL if unknown */
/* The names of target t's passes in pipeline order (its lower in listing mode,
 * on an empty Func: a pass that a pipeline runs only for some kernels is listed when an
 * empty Func would run it) into out[0..max); returns their number. */
int pass_names(const Target *t, const char **out, int max);
/* Whether every name of list ("all", or pass names separated by commas) is one of t's
 * passes; if not, why names the first that is not and lists t's passes. */
bool pass_list_valid(const Target *t, const char *list, StrBuf *why);
/* "TARGET\tPASS\n" for every pass of every target in this build, in pipeline order
 * (malloc'd; tilec info --passes). */
char *tl_pass_table(void);
/* What target "auto" means here: the first target that can build and run (available),
 * else the reference target. */
const Target *target_auto(void);

#endif
