/* cfamily.h - the printer shared by the back ends that write C-family source (the C
 * target, src/targets/c, and the CUDA target, src/targets/cuda): unique names, dtypes,
 * expressions with the value rules of runtime/c/tl_c.h, and the statements both write
 * alike. What differs between targets goes through a CfHooks table. Private to
 * src/targets.
 *
 * Values: narrow floats (f16, bf16, fp8) are `float`s holding a representable value,
 * rounded back (tl_round_*) after each arithmetic result; integer division, modulo,
 * shifts and powers go through the tl_* helpers; float -> int conversions saturate;
 * narrow integers wrap. Generated names start with tl_ (user names never do). */
#ifndef TILEC_CFAMILY_H
#define TILEC_CFAMILY_H

#include "passes/passes.h"
#include "targets/target.h"

typedef Vec(const Var *) CfVarVec;
typedef struct CfEmit CfEmit;

/* What a target does its own way. Hooks marked "may be NULL" default as stated. */
typedef struct CfHooks {
    /* Names the target's source uses besides the C ones every target reserves (NULL
     * ends the list); a user name equal to one, or to one plus "f", is renamed. */
    const char *const *reserved;
    /* Whether a user name is reserved for a reason a list cannot say; may be NULL. */
    bool (*reserved_name)(const char *name);
    /* Offsets into non-global buffers are computed in int64_t too (global ones always). */
    bool wide_local_index;
    /* Signed 32- and 64-bit + - * of values read from memory wrap (computed unsigned): the
     * C target's -fwrapv where the compiler has no such flag (NVRTC). Index arithmetic
     * over loop variables and shapes stays signed, for the optimizer. */
    bool wrap_data_ints;
    /* Line written before a T.unroll loop of constant bounds, or NULL. */
    const char *unroll_pragma;
    /* Writes s and returns true when the target handles it (it writes the location
     * comment, cf_loc_comment, itself); false leaves s to the shared printer. Must take
     * STMT_ALLOC, STMT_KERNEL, STMT_SYNC, STMT_ANNOTATE_LAYOUT and STMT_SWIZZLE. */
    bool (*stmt)(CfEmit *em, const Stmt *s);
    /* Prefix of a statement of serial code with a side effect on buffer b (NULL: on
     * output) that makes it happen once per block, e.g. "if (tl_tid == 0) "; may be NULL
     * (no prefix). Not asked for a side effect that differs between threads (an index
     * or value that varies, or under a varying condition): each thread makes its own. */
    const char *(*once)(CfEmit *em, const Buffer *b);
    /* Writes the scalar atomic s its own way and returns true, or returns false for the
     * shared `once tl_atomic_<op>_<dtype>(&elem, value);`. May be NULL. */
    bool (*atomic)(CfEmit *em, const Stmt *s);
    /* Lines before and after the loops that print a region (T.print of a buffer). */
    void (*print_region_begin)(CfEmit *em);
    void (*print_region_end)(CfEmit *em);
    /* Writes the element reference `name[offset]` of b at idx its own way and returns
     * true (register fragments, swizzled shared tiles), or false; may be NULL. */
    bool (*elem)(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx);
    /* Writes e, a call that reads other threads' values (a warp shuffle, a warp or
     * block vote: intrinsic_reads_threads), as an expression. */
    void (*cross_thread)(CfEmit *em, StrBuf *o, const Expr *e);
    /* Lines after tl_assert_fail(...) in a failed T.device_assert: stop the block. */
    void (*assert_exit)(CfEmit *em);
} CfHooks;

/* Unique identifiers: pointer (Var, Buffer) -> name, and the set of names in use. */
typedef struct CfNames {
    Arena *a;
    const void **keys; /* open addressing */
    const char **vals;
    int cap, len;
    const char **set;
    int scap, slen;
} CfNames;

/* Printer state. A target embeds it as the first member of its own state. */
struct CfEmit {
    Ctx *ctx;
    const Func *f;
    const CfHooks *hooks;
    CfNames names;
    StrBuf *out; /* where statements go now */
    int indent;
    const Source *last_src; /* last "// kernel.py:LINE" comment written */
    int last_line;
    const Stmt *kernel; /* the STMT_KERNEL being emitted, NULL on the host */
    int ntmp;
    CfVarVec live; /* vars declared in the enclosing scopes */
    int varying;   /* enclosing ifs and loops whose condition differs between threads
                      (ir_stmt_varies): their code runs per thread, never "once" */
};

/* Also reserves every identifier of the kernel's T.import_source texts. */
void cf_init(CfEmit *em, Ctx *ctx, const Func *f, const CfHooks *hooks);
/* The T.import_source texts, each between #line directives (errors in one name its
 * T.import_source line; generated_name: the file's name after it) and an include guard. */
void cf_imports(CfEmit *em, StrBuf *all, const char *generated_name);

/* ---- names and output ------------------------------------------------------------------ */
/* The name of v / b: the user's name made valid and unique, fixed at first use. */
const char *cf_var(CfEmit *em, const Var *v);
const char *cf_buf(CfEmit *em, const Buffer *b);
/* Binds the params' and syms' names first, so they stay the user's when possible. */
void cf_reserve_params(CfEmit *em);
const char *cf_tmp(CfEmit *em, const char *base);            /* a fresh tl_<base><n> */
void cf_bind(CfEmit *em, const void *key, const char *name); /* key -> name as it is */
void cf_line(CfEmit *em, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool cf_live_has(const CfEmit *em, const Var *v);
void cf_live_add(CfEmit *em, const Var *v);
/* "file.py:LINE" of loc (arena), and a "// file.py:LINE" line when it changed. */
const char *cf_loc_where(CfEmit *em, Loc loc);
void cf_loc_comment(CfEmit *em, Loc loc);
void cf_string(StrBuf *o, const char *s); /* a C string literal */
/* s made safe inside a // or a block comment (a file name is user text): bytes other
 * than letters, digits, space and ._-+,:=@%#()[]{}<>!~^&|;$/ become \xNN, so no newline,
 * no trailing backslash or ??/ (line splices), no star that could close the comment. */
const char *cf_comment_text(Arena *a, const char *s);
/* A user error at k when a constant grid dimension d of T.Kernel k is above max[d]
 * (`target` names the limit's owner in the message). */
void cf_check_grid(CfEmit *em, const Stmt *k, const int64_t max[3], const char *target);
/* Appends ", item" (or the first item), breaking the line before column 96. */
void cf_list_item(StrBuf *o, bool first, const char *item);

/* ---- dtypes ------------------------------------------------------------------------------ */
bool cf_narrow_float(DType t);
const char *cf_nf(DType t);      /* "f16", "bf16", "e4m3", "e5m2": tl_c.h suffixes */
const char *cf_value(DType t);   /* type of a value in expressions */
const char *cf_storage(DType t); /* type of an element in memory */
const char *cf_short(DType t);   /* "i32", "f16", ... as in tl_f2<S>, tl_atomic_add_<S> */

/* ---- expressions ------------------------------------------------------------------------- */
void cf_ex(CfEmit *em, StrBuf *o, const Expr *e);
/* e converted to dtype `to`. */
void cf_ex_as(CfEmit *em, StrBuf *o, const Expr *e, DType to);
/* The same without parentheses around the whole (statements, conditions, indices). */
void cf_ex_top(CfEmit *em, StrBuf *o, const Expr *e, DType to);
/* Arena string of e as `as` (top: as cf_ex_top). */
const char *cf_ex_str(CfEmit *em, const Expr *e, DType as, bool top);
/* An index term; wide: widened to int64_t. */
void cf_ex_index(CfEmit *em, StrBuf *o, const Expr *e, bool wide);
/* name[offset] of element idx of b (CfHooks.elem first); the offset alone (row-major or
 * by b's strides). */
void cf_ex_elem(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx);
void cf_ex_offset(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx);
/* &name[offset]: the address of element idx of b, a user error (naming what) for a
 * swizzled shared tile, whose elements are not in row-major order, unless the `elems`
 * elements the address is for (NULL: unknown) lie in one 16-byte chunk. */
void cf_ex_addr(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx, const char *what);
void cf_ex_addr_of(CfEmit *em, StrBuf *o, const Buffer *b, Expr *const *idx, const Expr *elems,
                   const char *what);

/* ---- statements -------------------------------------------------------------------------- */
/* Any statement: the target's hook first, then the shared printer. */
void cf_stmt(CfEmit *em, const Stmt *s);
/* body and "}" (the caller wrote the "{"); vars declared inside go out of scope. */
void cf_block_body(CfEmit *em, const Stmt *body);
/* b[idx] = value, converted to b's dtype: a same-dtype load is copied bit for bit; a
 * float32 value cast to a narrow dtype is encoded directly (one rounding). */
void cf_store(CfEmit *em, const Buffer *b, Expr *const *idx, const Expr *value);
void cf_let(CfEmit *em, const Stmt *s);
/* The initial value of a T.alloc_var (STMT_ALLOC s with an init) stored. */
void cf_store_init(CfEmit *em, const Stmt *s);
/* Declares the local for v from arg (int64_t for ints and bools, double for floats). */
void cf_declare_scalar(CfEmit *em, const Var *v, const char *arg);
/* "shared float32[64, 32]": a buffer described for a comment (arena). */
const char *cf_shape_text(CfEmit *em, const Buffer *b);

#endif
