/* passes.h - the target-independent passes over tile IR (src/passes) and how a target's
 * pipeline runs them. Each pass rewrites f in place; each file states what it requires
 * and provides. A target's own passes live in its folder (src/targets/cuda/passes). */
#ifndef TILEC_PASSES_H
#define TILEC_PASSES_H

#include "ir/ir.h"

typedef void (*PassFn)(Ctx *ctx, Func *f);
/* Runs one pass, then, as ctx->passes asks, writes the IR it produced (PassHook), then
 * (in debug builds, or with the setting verify) ir_verify. Every pass of every target runs
 * through it, under the name that --ir-after and TILEC_PRINT_AFTER take. */
void pass_run(Ctx *ctx, Func *f, const char *name, PassFn fn);
/* What pass_run does besides running the pass (Ctx.passes). */
typedef struct PassHook {
    /* Dump the IR after these passes: "all", or pass names separated by commas; NULL:
     * none. To print_path (appended to: several compiles may share it), or stderr when
     * it is NULL; each dump opens with "# IR after PASS (LABEL)". */
    const char *print_after, *print_path, *label;
    /* Listing: record the names of the passes in names[0..max) (nnames counts them
     * all) and run none. */
    bool list_only;
    const char **names;
    int nnames, max;
} PassHook;
/* A note on a slower choice, "file:line: note: ..." at loc, for the compilation's warnings
 * (Func.remarks). */
void pass_remark(Ctx *ctx, Func *f, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

void pass_check_tile_ops(Ctx *ctx, Func *f); /* user errors for shape/dtype mismatches */
/* T.Pipelined(order=, stage=, group=): user errors for schedules that do not fit the body
 * or would change its results; groups the body (PipeSchedule). */
void pass_check_schedules(Ctx *ctx, Func *f);
void pass_lower_tile_ops(Ctx *ctx, Func *f); /* copy/fill/gemm/reduce/cumsum/atomic -> loops */
/* The same, leaving the tile ops for which keep returns true (block-wide ones: none
 * inside a T.Parallel loop); and one op lowered alone (the op itself when it is not a
 * tile op). */
void lower_tile_ops_keeping(Ctx *ctx, Func *f, bool (*keep)(const Stmt *s));
Stmt *lower_tile_op(Ctx *ctx, Stmt *s);
/* A reduction's start value in dtype t, and acc combined with x (|x| for the abs ops). */
Expr *reduce_init_value(Ctx *ctx, ReduceOp op, DType t, Loc loc);
Expr *reduce_combine_value(Ctx *ctx, ReduceOp op, Expr *acc, Expr *x, Loc loc);
/* Whether gemm s multiplies float32 A and B into a float32 C: TF32 operands, each rounded
 * with FN_TF32_RNA (TileLang's tf32 mma for float32 operands and accumulator). */
bool gemm_is_tf32(const Stmt *s);
void pass_safe_memory_access(Ctx *ctx, Func *f); /* guard global loads (-> 0) and stores */
/* The C target: T.ws regions in program order, mbarriers and hardware hints dropped
 * (program_order.c). */
void pass_program_order(Ctx *ctx, Func *f);
void pass_simplify(Ctx *ctx, Func *f);    /* constant folding, trivial loops */
void pass_mark_nonneg(Ctx *ctx, Func *f); /* Var.nonneg of the int vars never < 0 */
/* Var.varying / Buffer.varying in kernels that read a thread index; errors for tile ops
 * under thread-dependent conditions (mark_varying.c). */
void pass_mark_varying(Ctx *ctx, Func *f);
/* Tile operations under `if tx < c` (a range of the thread index) -> T.ws regions of the
 * range's threads (thread_regions.c); before pass_mark_varying. */
void pass_thread_regions(Ctx *ctx, Func *f);
/* Whether e may differ between the threads of a block (after pass_mark_varying), and
 * whether s is an if, while or loop whose condition or bounds may. */
bool ir_expr_varies(const Expr *e);
bool ir_stmt_varies(const Stmt *s);
/* whether e has a call that reads other threads (a warp shuffle or vote, a block vote:
 * intrinsic_reads_threads) */
bool ir_expr_reads_threads(const Expr *e);
/* Whether a store or atomic at idx (n indices) of value is each thread's own: the CUDA
 * target runs it in every thread, not in thread 0 alone (emitters and insert_sync_threads
 * agree through this). */
bool ir_effect_varies(Expr *const *idx, int n, const Expr *value);

#endif
