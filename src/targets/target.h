/* target.h - the interface of a back end (src/targets/<name>/) and the table of them
 * (target.c). The rest of tilec (src/api, src/rt) reaches a target only through it. */
#ifndef TILEC_TARGET_H
#define TILEC_TARGET_H

#include "ir/ir.h"

typedef struct Target {
    const char *name;        /* "c", "cuda" */
    const char *source_ext;  /* ".c" */
    const char *binary_ext;  /* ".so" */
    /* 1 if the target can build and run here; else 0 with the reason in why. */
    int (*available)(StrBuf *why);
    /* Text identifying the toolchain (compiler path + version): part of the cache key. */
    const char *(*toolchain_id)(Arena *a);
    /* The whole pass pipeline of this target, one pass per line. */
    void (*lower)(Ctx *ctx, Func *f);
    /* Generated source for a lowered function (arena string). */
    char *(*emit)(Ctx *ctx, const Func *f);
    /* Build source into binary_path (atomically: write a temp file, rename).
     * 0 on success; else toolchain output in log. */
    int (*build)(const char *source, const char *binary_path, StrBuf *log);
    /* Load a built binary; NULL with a reason in err. */
    void *(*load)(const char *binary_path, StrBuf *err);
    /* Run: args[i] = data pointer of buffer parameter i (byte_offset applied) or pointer
     * to the scalar value (int64_t for ints and bool, double for floats); syms = values
     * of f->syms in order. 0 on success; else reason in err. */
    int (*launch)(void *module, void *const *args, const int64_t *syms, void *stream,
                  StrBuf *err);
    void (*unload)(void *module);
    /* Optional (NULL for targets that need nothing): called once after load with the
     * lowered Func the module was built from; it outlives the module. The CUDA target
     * takes its launch plan (grids, block sizes, shared memory) from it. */
    void (*bind)(void *module, const Func *f);
} Target;

const Target *target_find(const char *name); /* NULL if unknown */

#endif
