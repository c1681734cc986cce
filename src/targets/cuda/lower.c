/* lower.c - the CUDA target's pass pipeline (Target.lower): tile IR from the front end
 * to the lowered IR the emitter prints, one pass per line. The target-independent passes
 * are src/passes's, the CUDA ones src/targets/cuda/passes's; each file states what it
 * requires and provides. */
#include "targets/cuda/cuda.h"
#include "targets/cuda/passes/cuda_passes.h"
#include "ir/ir_walk.h"

/* A T.wgmma_gemm the emitter cannot keep is an error, not loops. */
static void check_manual_gemms(Ctx *ctx, Stmt *s);
static void check_slot(Stmt **slot, void *ud) { check_manual_gemms(ud, *slot); }
static void check_manual_gemms(Ctx *ctx, Stmt *s) {
    if (s->kind == STMT_GEMM && s->u.gemm.manual && !cuda_keep_tile_op(s))
        cuda_fail_manual_gemm(ctx, s);
    ir_stmt_children(s, check_slot, ctx);
}

/* The tile ops the CUDA emitter prints itself (cuda_keep_tile_op) stay. */
static void cuda_lower_tile_ops(Ctx *ctx, Func *f) {
    if (f->body) check_manual_gemms(ctx, f->body);
    lower_tile_ops_keeping(ctx, f, cuda_keep_tile_op);
}

void cuda_lower(Ctx *ctx, Func *f) {
    pass_run(ctx, f, "assume_aligned", pass_assume_aligned);
    pass_run(ctx, f, "check_tile_ops", pass_check_tile_ops);
    pass_run(ctx, f, "thread_regions", pass_thread_regions);
    pass_run(ctx, f, "mark_varying", pass_mark_varying);
    pass_run(ctx, f, "check_schedules", pass_check_schedules);
    pass_run(ctx, f, "split_shared", pass_split_shared);
    pass_run(ctx, f, "chunk_staging", pass_chunk_staging);
    pass_run(ctx, f, "stage_gemm_operands", pass_stage_gemm_operands);
    pass_run(ctx, f, "lower_tile_ops", cuda_lower_tile_ops);
    pass_run(ctx, f, "safe_memory_access", pass_safe_memory_access);
    pass_run(ctx, f, "simplify", pass_simplify);
    pass_run(ctx, f, "infer_layouts", pass_infer_layouts);
    pass_run(ctx, f, "manual_schedule", pass_manual_schedule);
    pass_run(ctx, f, "pipeline_async", pass_pipeline_async);
    pass_run(ctx, f, "tma_store", pass_tma_store);
    pass_run(ctx, f, "map_threads", pass_map_threads);
    if (!ctx->opts.no_auto_sync) pass_run(ctx, f, "insert_sync_threads", pass_insert_sync_threads);
    pass_run(ctx, f, "check_turns", pass_check_turns);
    pass_run(ctx, f, "split_warp_groups", pass_split_warp_groups);
    pass_run(ctx, f, "mark_nonneg", pass_mark_nonneg);
    pass_run(ctx, f, "plan_launch", pass_plan_launch);
}
