/* ir_walk.h - generic traversal helpers over the tile IR, shared by the printer, the
 * verifier and the passes (internal to the compiler; not part of the stage contracts).
 *
 * The helpers visit *slots* (the pointer fields that hold a child), so a pass can
 * replace a child by assigning through the slot. Passes in this tree build new
 * expression nodes instead of mutating shared ones, so sharing a subtree is harmless. */
#ifndef TILEC_IR_WALK_H
#define TILEC_IR_WALK_H

#include "ir/ir.h"

typedef void (*ExprSlotFn)(Expr **slot, void *ud);
typedef void (*StmtSlotFn)(Stmt **slot, void *ud);
typedef void (*RegionFn)(Region *r, void *ud);

/* Direct children of e (bin operands, call args, cast value, load indices, select). */
void ir_expr_children(Expr *e, ExprSlotFn fn, void *ud);
/* Expressions owned directly by s, not by its child statements, in print order. For
 * STMT_ALLOC these are the buffer's shape, strides, init and safe value. Region starts
 * and extents are included. */
void ir_stmt_exprs(Stmt *s, ExprSlotFn fn, void *ud);
/* Child statements of s (SEQ items, loop/if/kernel bodies); NULL orelse is skipped. */
void ir_stmt_children(Stmt *s, StmtSlotFn fn, void *ud);
/* Regions of a tile statement (copy, fill, gemm, reduce, cumsum, atomic, print). */
void ir_stmt_regions(Stmt *s, RegionFn fn, void *ud);
/* s with sequences of one statement unwrapped (NULL stays NULL). */
Stmt *ir_only_stmt(Stmt *s);

/* Whether e refers to any of vars[0..n). */
bool ir_expr_uses_any(const Expr *e, const Var *const *vars, int n);
/* e as vars[i] or as vars[i] + off (either order) with off free of vars: returns i and
 * sets *off (NULL for vars[i] alone); -1 when e is neither. */
int ir_var_plus_offset(const Expr *e, Var *const *vars, int n, const Expr **off);

/* e as the row-major position of m >= 2 of vars[0..n) (of extents ext) in a dimension of
 * extent `extent`: vars[pos[0]] * (ext[pos[1]] * .. * ext[pos[m-1]]) + .. + vars[pos[m-1]]
 * (the index of a view of a fragment: s[i, j * H + k]), terms in any order; returns m,
 * or 0 when e is not one. */
int ir_fused_vars(const Expr *e, Var *const *vars, int n, const int64_t *ext, int64_t extent,
                  int *pos);
/* Whether extern call s (STMT_EXTERN) has a pointer into b's memory with any of the
 * access bits rw (1 read, 2 write). */
bool ir_extern_points_to(const Stmt *s, const Buffer *b, int rw);
/* Whether any expression of s (and its children) loads from b. */
bool ir_stmt_reads(Stmt *s, const Buffer *b);
/* Whether cond is comparisons of v with constants joined by `&&` (`tx < 32`, `tx >= 128 &&
 * tx < 256`); they narrow [*lo, *hi). */
bool ir_var_range(const Expr *cond, const Var *v, int64_t *lo, int64_t *hi);
/* Whether e reads memory (has an EXPR_LOAD). */
bool ir_expr_loads(const Expr *e);
/* The STMT_GROUP_SYNC ops in s: bit 1 << op for each GroupSyncOp found. */
unsigned ir_group_syncs(Stmt *s);
/* Structural equality of two expressions (same vars by identity). */
bool ir_expr_equal(const Expr *a, const Expr *b);
/* Replaces Var `from` by `to` in every expression of s and its children (in place). */
void ir_stmt_subst(Ctx *ctx, Stmt *s, const Var *from, Expr *to);
/* A deep copy of s with Var `from` replaced by `to` (to may be NULL: a plain copy). The
 * copy shares s's vars and buffers (ALLOC statements declare the same buffer). */
Stmt *ir_stmt_clone(Ctx *ctx, const Stmt *s, const Var *from, Expr *to);

/* Python slice syntax of a region for user messages (`A[0:64, k * 32:k * 32 + 32]`; the
 * bare buffer name when the region is the whole buffer). In ir_print.c. */
void ir_print_region_user(StrBuf *sb, const Region *r);
/* Dims of r whose extent is not the constant 1, in order; returns their count. */
int ir_region_squeeze(const Region *r, int *dims);
/* Whether r is all of its buffer: every start the constant 0, every extent the (constant)
 * dimension. */
bool ir_region_whole(const Region *r);
/* Whether r is a whole 2-D buffer, or one whole tile [i, :, :] of a 3-D one (a stage of
 * a multi-buffered tile). */
bool ir_region_tile(const Region *r);
/* Whether r is such a tile but for its last dimension, which may be a slice whose start
 * (provably) and extent are multiples of unit (a run of whole column panels). */
bool ir_region_col_slice(const Region *r, int64_t unit);

/* The verifier without the abort: returns true when f is valid, else false with the
 * first violation described in msg (used by ir_verify and by the unit tests). */
bool ir_check(const Func *f, StrBuf *msg);

#endif
