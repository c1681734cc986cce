/* pass_configs.c - what @tilelang.jit(pass_configs={...}) means in tilec, key by key.
 *
 * Every key TileLang 0.1.15 defines (tilelang.transform.PassConfigKey; the table below,
 * with the member names that spell them) is either honoured or reported, once per key
 * and compilation, as the warning "accepted, no effect in tilec" with the reason; a key
 * TileLang does not define is a warning too. Honoured:
 *   tl.disable_warp_specialized, tl.disable_tma_lower  no TMA producer warp group (sm_90a)
 *   tilec.disable_split_k                              whole tiles (docs/cuda.md)
 *   tl.enable_fast_math                                CUDA: NVRTC --use_fast_math instead
 *                                                      of --fmad=false (TileLang: nvcc's
 *                                                      --use_fast_math); the C target, the
 *                                                      reference, stays IEEE
 *   tl.disable_thread_storage_sync                     CUDA: no automatic barriers (the
 *                                                      program's T.sync_threads stay)
 *   tl.disable_wgmma                                   sm_90a compiled like sm_80 (mma.sync)
 * An honoured key sets its switch in the compilation's settings (ctx->opts, options.h:
 * no_ws, no_splitk, fast_math, no_auto_sync, no_wgmma); a false value leaves the setting as
 * the caller's options and the environment made it. T.annotate_pass_configs({...}) in a
 * kernel's body means the same as the decorator's dict; T.annotate_compile_flags honours
 * --use_fast_math (compile_flag_apply). */
#include "frontend/frontend.h"

#include <string.h>

enum { NONE, WS, SPLIT_K, FAST_MATH, NO_SYNC, NO_WGMMA };

typedef struct ConfigKey {
    const char *member, *key; /* PassConfigKey.<member> == "<key>" */
    int what;                 /* NONE: accepted, no effect (why says so) */
    const char *why;
} ConfigKey;

static const ConfigKey keys[] = {
    {"TL_DISABLE_WARP_SPECIALIZED", "tl.disable_warp_specialized", WS, NULL},
    {"TL_DISABLE_TMA_LOWER", "tl.disable_tma_lower", WS, NULL},
    {"TL_ENABLE_FAST_MATH", "tl.enable_fast_math", FAST_MATH, NULL},
    {"TL_DISABLE_THREAD_STORAGE_SYNC", "tl.disable_thread_storage_sync", NO_SYNC, NULL},
    {NULL, "tilec.disable_split_k", SPLIT_K, NULL},
    {"TIR_DISABLE_VECTORIZE", "tirx.disable_vectorize", NONE,
     "vector widths do not change results"},
    {NULL, "tir.disable_vectorize", NONE, "vector widths do not change results"},
    {"TL_DISABLE_VECTORIZE_256", "tl.disable_vectorize_256", NONE,
     "tilec's vectors are at most 16 bytes"},
    {"TL_ENABLE_AGGRESSIVE_SHARED_MEMORY_MERGE", "tl.enable_aggressive_shared_memory_merge", NONE,
     "tilec always lets shared buffers whose lifetimes do not meet share bytes"},
    {"TL_DISABLE_SHARED_MEMORY_REUSE", "tl.disable_shared_memory_reuse", NONE,
     "tilec's own planner"},
    {"TL_DEBUG_MERGE_SHARED_MEMORY_ALLOCATIONS", "tl.debug_merge_shared_memory_allocations", NONE,
     "debug output"},
    {"TIR_MERGE_STATIC_SMEM", "tirx.merge_static_smem", NONE, "tilec's own planner"},
    {"TL_DISABLE_WGMMA", "tl.disable_wgmma", NO_WGMMA, NULL},
    {"TL_DISABLE_SAFE_MEMORY_ACCESS", "tl.disable_safe_memory_legalize", NONE,
     "out-of-bounds accesses stay guarded"},
    {"TL_ENABLE_ASYNC_COPY", "tl.enable_async_copy", NONE, "tilec chooses cp.async itself"},
    {"TIR_USE_ASYNC_COPY", "tirx.use_async_copy", NONE, "tilec chooses cp.async itself"},
    {"TL_ENABLE_LOWER_LDGSTG", "tl.enable_lower_ldgstg", NONE, "tilec's own loads and stores"},
    {"TL_ENABLE_LOWER_LDGSTG_PREDICATED", "tl.enable_lower_ldgstg_predicated", NONE,
     "tilec's own loads and stores"},
    {"TL_DISABLE_SHUFFLE_ELECT", "tl.disable_shuffle_elect", NONE, "tilec elects thread 0"},
    {"TL_DISABLE_LOOP_UNSWITCHING", "tl.disable_loop_unswitching", NONE, "no such pass in tilec"},
    {"TL_LOOP_UNSWITCHING_ALLOW_NON_TRIVIAL_ELSE", "tl.loop_unswitching_allow_non_trivial_else",
     NONE, "no such pass in tilec"},
    {"TL_IF_STMT_BINDING_INLINE_REPLAYABLE_BINDS", "tl.if_stmt_binding_inline_replayable_binds",
     NONE, "no such pass in tilec"},
    {"TL_PTXAS_REGISTER_USAGE_LEVEL", "tl.ptxas_register_usage_level", NONE, "NVRTC's defaults"},
    {"TL_DEVICE_COMPILE_FLAGS", "tl.device_compile_flags", NONE, "tilec's fixed NVRTC options"},
    {"TL_CONFIG_INDEX_BITWIDTH", "tl.config_index_bitwidth", NONE, "tilec picks index widths"},
    {"TL_DISABLE_BUFFER_INIT_CHECK", "tl.disable_buffer_init_check", NONE, "a TileLang check"},
    {"TL_DISABLE_DATA_RACE_CHECK", "tl.disable_data_race_check", NONE, "a TileLang check"},
    {"TL_DISABLE_PRELOWER_SEMANTIC_CHECK", "tl.disable_prelower_semantic_check", NONE,
     "a TileLang check"},
    {"TL_DISABLE_OUT_OF_BOUND_WARNING", "tl.disable_out_of_bound_warning", NONE,
     "a TileLang check"},
    {"TL_SIMPLIFY", "tl.Simplify", NONE, "tilec's own simplifier"},
    {"TL_SIMPLIFY_TRANSITIVELY_PROVE_INEQUALITIES", "transitively_prove_inequalities", NONE,
     "tilec's own simplifier"},
    {"TL_SIMPLIFY_CONVERT_BOOLEAN_TO_AND_OF_ORS", "convert_boolean_to_and_of_ors", NONE,
     "tilec's own simplifier"},
    {"TL_SIMPLIFY_APPLY_CONSTRAINTS_TO_BOOLEAN_BRANCHES", "apply_constraints_to_boolean_branches",
     NONE, "tilec's own simplifier"},
    {"TL_SIMPLIFY_PROPAGATE_KNOWNS_TO_PROVE_CONDITIONAL", "propagate_knowns_to_prove_conditional",
     NONE, "tilec's own simplifier"},
    {"TL_SIMPLIFY_PROPAGATE_KNOWNS_TO_SIMPLIFY_EXPRESSIONS",
     "propagate_knowns_to_simplify_expressions", NONE, "tilec's own simplifier"},
    {"TL_SIMPLIFY_ENABLE_LET_INLINE", "enable_simplify_let_inline", NONE, "tilec's own simplifier"},
    {"TL_FORCE_LET_INLINE", "tl.force_let_inline", NONE, "tilec's own simplifier"},
    {"TIR_SIMPLIFY", "tirx.Simplify", NONE, "tilec's own simplifier"},
    {"TIR_DISABLE_CSE", "tirx.disable_cse_tir", NONE, "NVRTC eliminates common subexpressions"},
    {"TIR_ENABLE_EQUIV_TERMS_IN_CSE", "tir.enable_equiv_terms_in_cse_tir", NONE,
     "NVRTC eliminates common subexpressions"},
    {"TIR_DISABLE_STORAGE_REWRITE", "tirx.disable_storage_rewrite", NONE, "no such pass in tilec"},
    {"TL_STORAGE_REWRITE_DETECT_INPLACE", "tl.storage_rewrite_detect_inplace", NONE,
     "no such pass in tilec"},
    {"TIR_NOALIAS", "tirx.noalias", NONE, "tilec's parameters are not marked"},
    {"TIR_ADD_LOWER_PASS", "tirx.add_lower_pass", NONE, "TVM passes do not run in tilec"},
    {"TIR_ENABLE_DEBUG", "tirx.enable_debug", NONE, "debug output"},
    {"TL_AST_PRINT_ENABLE", "tl.ast_print_enable", NONE, "debug output (tilec emit --ir)"},
    {"TL_ENABLE_DUMP_IR", "tl.enable_dump_ir", NONE, "debug output (tilec emit --ir)"},
    {"TL_DUMP_IR_DIR", "tl.dump_ir_path", NONE, "debug output (tilec emit --ir)"},
    {"TL_EMIT_LINE_DIRECTIVES", "tl.emit_line_directives", NONE,
     "tilec's sources carry kernel.py line comments"},
    {"TL_LAYOUT_VISUALIZATION_ENABLE", "tl.layout_visualization_enable", NONE, "debug output"},
    {"TL_LAYOUT_VISUALIZATION_FORMATS", "tl.layout_visualization_formats", NONE, "debug output"},
    {"TL_ENABLE_VECTORIZE_PLANNER_VERBOSE", "tl.enable_vectorize_planner_verbose", NONE,
     "debug output"},
    {"TL_ENABLE_REDUCER_PLAN_VERBOSE", "tl.enable_reducer_plan_verbose", NONE, "debug output"},
    {"TL_REDUCER_FORCE_BASELINE", "tl.reducer_force_baseline", NONE, "tilec's own reductions"},
    {"TL_LAYOUT_COST_MODEL", "tl.layout_cost_model", NONE, "tilec's own layout inference"},
    {"TL_PASS_PROFILE", "tl.pass_profile", NONE, "debug output"},
    {"TL_PASS_PROFILE_THRESHOLD_MS", "tl.pass_profile_threshold_ms", NONE, "debug output"},
    {"CUDA_KERNELS_OUTPUT_DIR", "cuda.kernels_output_dir", NONE, "tilec emit --source"},
};

const char *pass_config_member_key(const char *member) {
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (keys[i].member && !strcmp(member, keys[i].member)) return keys[i].key;
    return NULL;
}

/* "file:line: warning: " + msg, once per key (a repeated key in one dict is one entry). */
static void warn(Ctx *ctx, Func *f, Loc loc, const char *key, const char *msg) {
    const char *text = arena_printf(&ctx->arena, "%s:%d: warning: pass_configs '%s': %s",
                                    loc.src && loc.src->name ? loc.src->name : "<source>", loc.line,
                                    key, msg);
    for (int i = 0; i < f->remarks.len; i++)
        if (!strcmp(f->remarks.data[i], text)) return;
    VEC_PUSH(&ctx->arena, f->remarks, text);
}

void pass_config_apply(Ctx *ctx, Func *f, const char *key, bool on, Loc loc) {
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        if (strcmp(key, keys[i].key)) continue;
        switch (keys[i].what) {
        case WS: ctx->opts.no_ws |= on; return;
        case SPLIT_K: ctx->opts.no_splitk |= on; return;
        case FAST_MATH: ctx->opts.fast_math |= on; return;
        case NO_SYNC: ctx->opts.no_auto_sync |= on; return;
        case NO_WGMMA: ctx->opts.no_wgmma |= on; return;
        default:
            warn(ctx, f, loc, key,
                 arena_printf(&ctx->arena, "accepted, no effect in tilec (%s)", keys[i].why));
            return;
        }
    }
    warn(ctx, f, loc, key, "not a TileLang 0.1.15 pass config; ignored");
}

/* T.annotate_compile_flags: an nvcc flag of the kernel. --use_fast_math is
 * tl.enable_fast_math's switch; the rest are reported once as having no effect (tilec
 * compiles with NVRTC and its own options). */
void compile_flag_apply(Ctx *ctx, Func *f, const char *flag, Loc loc) {
    const char *bare = flag + strspn(flag, "-");
    if (!strcmp(bare, "use_fast_math")) {
        ctx->opts.fast_math = true;
        return;
    }
    const char *text =
        arena_printf(&ctx->arena,
                     "%s:%d: warning: compile flag '%s': accepted, no effect in "
                     "tilec (NVRTC with tilec's options; --use_fast_math is honoured)",
                     loc.src && loc.src->name ? loc.src->name : "<source>", loc.line, flag);
    for (int i = 0; i < f->remarks.len; i++)
        if (!strcmp(f->remarks.data[i], text)) return;
    VEC_PUSH(&ctx->arena, f->remarks, text);
}
