/* cuda_emit.h - internals of the CUDA emitter, shared by emit_cuda.c (statements,
 * kernels, the pipeline), cuda_expr.c (names, dtypes, expressions) and cuda_plan.c
 * (buffer placement, launch plan). Private to src/targets/cuda. */
#ifndef TILEC_CUDA_EMIT_H
#define TILEC_CUDA_EMIT_H

#include "cuda.h"

/* ---- buffers of one kernel (cuda_plan.c) ---------------------------------------------- */
/* Block-wide buffers (shared, fragment, and per-thread ones made block-wide by
 * pass_map_threads) get fixed 16-byte aligned offsets in one dynamic shared allocation,
 * in the order of their T.alloc; per-thread buffers (local, var) become arrays in each
 * thread. No lifetime reuse yet. */
typedef struct CudaSlot {
    Buffer *buf;
    int64_t offset; /* in the dynamic shared memory; -1 for per-thread buffers */
    int64_t elems;  /* number of elements; -1 if the shape is not constant */
} CudaSlot;

typedef struct CudaBuffers {
    Vec(CudaSlot) smem, regs;
    int64_t smem_bytes; /* multiple of 16 */
} CudaBuffers;

void cuda_kernel_buffers(Arena *a, const Stmt *kernel, CudaBuffers *out);

/* ---- names (cuda_expr.c) ---------------------------------------------------------------- */
typedef struct CuNames {
    Arena *a;
    const void **keys; /* pointer -> name (open addressing) */
    const char **vals;
    int cap, len;
    const char **set; /* names in use */
    int scap, slen;
} CuNames;

/* The C++ name bound to key (a Var or Buffer): the user's name, made valid and unique. */
const char *cu_name(CuNames *n, const void *key, const char *user, int id);
/* Reserves a generated name (they start with tl_, which user names never do). */
void cu_name_reserve(CuNames *n, const char *name);
/* Binds key to a generated name (from cu_tmp) as it is. */
void cu_name_bind(CuNames *n, const void *key, const char *name);

/* ---- emitter state --------------------------------------------------------------------- */
typedef struct CuEmit {
    Ctx *ctx;
    const Func *f;
    CuNames names;
    StrBuf *out;
    StrBuf body;            /* the body of the kernel being emitted */
    int indent;
    const Source *last_src; /* last "// kernel.py:LINE" comment written */
    int last_line;
    const Stmt *kernel;     /* STMT_KERNEL being emitted */
    const Stmt *swizzle;    /* its T.use_swizzle applied at entry, or NULL */
    int nthreads;           /* threads of the block */
    int dist;               /* > 0 inside a distributed loop */
    int ntmp;
    Vec(const Var *) live;  /* vars declared in the enclosing C++ scopes */
    Vec(const Var *) used;  /* vars the kernel being emitted reads */
} CuEmit;

const char *cu_var(CuEmit *em, const Var *v);
const char *cu_buf(CuEmit *em, const Buffer *b);
const char *cu_tmp(CuEmit *em, const char *base); /* fresh tl_<base><n> */
void cu_line(CuEmit *em, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool cu_live_has(const CuEmit *em, const Var *v);
void cu_live_add(CuEmit *em, const Var *v);

/* ---- dtypes and expressions (cuda_expr.c) ---------------------------------------------- */
bool cu_narrow_float(DType t);
const char *cu_nf(DType t);      /* "f16", "bf16", "e4m3", "e5m2" */
const char *cu_value(DType t);   /* type of a value in expressions */
const char *cu_storage(DType t); /* type of an element in memory */
const char *cu_short(DType t);   /* "i32", "f16", ... as in tl_atomic_add_<short> */

/* Writes e converted to dtype `to`. */
void cu_ex_as(CuEmit *em, StrBuf *o, const Expr *e, DType to);
/* The same without parentheses around the whole (statements, conditions, indices). */
void cu_ex_top(CuEmit *em, StrBuf *o, const Expr *e, DType to);
void cu_ex(CuEmit *em, StrBuf *o, const Expr *e);
/* Arena string of e as `as` (top: without outer parentheses). */
const char *cu_ex_str(CuEmit *em, const Expr *e, DType as, bool top);
/* name[offset] of element idx of b. */
void cu_ex_elem(CuEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx);
bool cu_expr_has_load(const Expr *e);
void cu_string(StrBuf *o, const char *s); /* a C string literal */

#endif
