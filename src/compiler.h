/* compiler.h - the internal interfaces between the stages of the compiler:
 * front end (elaborate), passes, targets. See DESIGN.md section 1 for the data flow. */
#ifndef TILEC_COMPILER_H
#define TILEC_COMPILER_H

#include "ast.h"
#include "ir.h"

/* A factory argument or module constant given by the caller (-D NAME=VALUE). */
typedef struct Define {
    const char *name;
    const char *value; /* Python literal text; a bare word is a string */
} Define;

/* An eager-style kernel's T.const size left symbolic, and the input tensor dimension (or
 * stride) that gives it. */
typedef struct EagerSize {
    const char *name;
    int param, dim; /* index in func->params */
    bool stride;
} EagerSize;

/* What the front end hands to the back end. */
typedef struct Program {
    Func *func;               /* the elaborated prim_func; params carry is_output */
    Vec(const char *) warnings;
    Vec(EagerSize) sizes;     /* eager style: symbolic T.const sizes */
    bool first_phase;         /* eager style: only the parameters, for the sizes */
} Program;

/* Parse src, run its module level, call the factory (or take the prim_func) named
 * `factory` (NULL: the last function in the file that is decorated with a jit or returns
 * a prim_func, or the last top-level prim_func), bind the defines, and elaborate the
 * kernel into tile IR. out_idx from the decorator (@tilelang.jit(out_idx=...)) or
 * `override_out_idx` (if non-NULL) marks outputs. User errors ctx_fail. */
Program *elaborate(Ctx *ctx, const Source *src, const char *factory, const Define *defs,
                   int ndefs, const int *override_out_idx, int n_override_out_idx);

/* The shape of a tensor an eager-style kernel will be called with: T.const sizes that no
 * define gives are read from it (eager.c). */
typedef struct ArgShape {
    const char *name; /* the parameter; NULL: the next tensor parameter in signature order */
    int ndim;
    const int64_t *shape;
    const int64_t *strides; /* NULL: contiguous */
} ArgShape;

/* Everything a compile asks of the front end (elaborate above is the short form). */
typedef struct ElabRequest {
    const char *factory;
    const Define *defs;
    int ndefs;
    const int *out_idx; /* overrides the program's out_idx when non-NULL */
    int nout_idx;
    const ArgShape *inputs; /* eager style: the call's tensors, or NULL */
    int ninputs;
    const struct tl_capture *capture; /* the Python package's capture (capture.c), or NULL */
    const Define *configs; /* pass configs from the caller: key -> value text */
    int nconfigs;
} ElabRequest;

Program *elaborate_request(Ctx *ctx, const Source *src, const ElabRequest *rq);

/* ---- passes: each rewrites f in place; each file states what it requires/provides ---- */
typedef void (*PassFn)(Ctx *ctx, Func *f);
/* Runs one pass, then (in debug builds, or with the setting verify) ir_verify. */
void pass_run(Ctx *ctx, Func *f, const char *name, PassFn fn);
/* A note on a slower choice, "file:line: note: ..." at loc, for the compilation's warnings
 * (Func.remarks). */
/* pass_configs.c: a pass_configs entry (key as TileLang spells it, value's truth) into
 * ctx->opts (its warnings on f); the key a PassConfigKey member name stands for, or NULL. */
void pass_config_apply(Ctx *ctx, Func *f, const char *key, bool on, Loc loc);
const char *pass_config_member_key(const char *member);
/* tileops.c: "T.<name>\t<status>\n" for every T name (malloc'd; tilec info --names). */
char *tl_lang_table(void);
void pass_remark(Ctx *ctx, Func *f, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

void pass_check_tile_ops(Ctx *ctx, Func *f);     /* user errors for shape/dtype mismatches */
/* T.Pipelined(order=, stage=, group=): user errors for schedules that do not fit the body
 * or would change its results; groups the body (PipeSchedule). */
void pass_check_schedules(Ctx *ctx, Func *f);
void pass_lower_tile_ops(Ctx *ctx, Func *f);     /* copy/fill/gemm/reduce/cumsum/atomic -> loops */
/* The same, leaving the tile ops for which keep returns true (block-wide ones: none
 * inside a T.Parallel loop); and one op lowered alone (the op itself when it is not a
 * tile op). */
void lower_tile_ops_keeping(Ctx *ctx, Func *f, bool (*keep)(const Stmt *s));
Stmt *lower_tile_op(Ctx *ctx, Stmt *s);
/* A reduction's start value in dtype t, and acc combined with x (|x| for the abs ops). */
Expr *reduce_init_value(Ctx *ctx, ReduceOp op, DType t, Loc loc);
Expr *reduce_combine_value(Ctx *ctx, ReduceOp op, Expr *acc, Expr *x, Loc loc);
void pass_safe_memory_access(Ctx *ctx, Func *f); /* guard global loads (-> 0) and stores */
/* The C target: T.ws regions in program order, mbarriers and hardware hints dropped
 * (program_order.c). */
void pass_program_order(Ctx *ctx, Func *f);
void pass_simplify(Ctx *ctx, Func *f);           /* constant folding, trivial loops */
void pass_mark_nonneg(Ctx *ctx, Func *f);        /* Var.nonneg of the int vars never < 0 */
/* CUDA (SIMT model, see src/passes/map_threads.c): thread-distributed loops, barriers. */
void pass_map_threads(Ctx *ctx, Func *f);         /* which loops the block's threads share */
void pass_insert_sync_threads(Ctx *ctx, Func *f); /* __syncthreads from memory hazards */
/* CUDA: drops the warp-group turns (STMT_TURN) of kernels where a block barrier falls
 * inside a turn (pipeline_schedule.c). */
void pass_check_turns(Ctx *ctx, Func *f);
/* CUDA: tensor-core gemms and fragment reductions kept as tile ops (cuda_keep_tile_op);
 * register fragments, their layouts and the loops' thread mappings (infer_layouts.c). */
bool cuda_keep_tile_op(const Stmt *s);
/* Registers a thread holds in a block of `threads` launched one per SM
 * (__launch_bounds__(threads, 1)): the SM's 64K over the threads in multiples of 8, at
 * most 255. setmaxnreg budgets must fit that block's total. */
int cuda_launch_regs(int threads);
void pass_infer_layouts(Ctx *ctx, Func *f);
/* CUDA sm_90a: a fragment -> shared -> global epilogue that does not fit beside the
 * pipeline's stages, in column chunks (chunk_staging.c; before pass_lower_tile_ops). */
void pass_chunk_staging(Ctx *ctx, Func *f);
/* CUDA: a T.gemm whose B (or transposed A) is a fragment reads a shared copy of it, so
 * that it runs on tensor cores (stage_operands.c; before pass_lower_tile_ops). */
void pass_stage_gemm_operands(Ctx *ctx, Func *f);
/* CUDA (cuda_plan.c): the shared-memory bytes [lo, hi) of each block-wide buffer of a
 * kernel; buffers whose lifetimes do not meet may share bytes. Returns the count. */
typedef struct SmemRange {
    const Buffer *buf;
    int64_t lo, hi;
} SmemRange;
int cuda_smem_ranges(Arena *a, const Stmt *kernel, SmemRange **out);
/* CUDA: elements per vector of a T.copy between global and shared that runs as a vector
 * copy, else 0; software pipelining of T.Pipelined loops (pipeline_async.c: cp.async, or
 * on sm_90a a TMA producer warp group and mbarriers, warp_specialize.c). */
int cuda_copy_vector(const Stmt *s);
void pass_pipeline_async(Ctx *ctx, Func *f);
/* CUDA: kernels scheduled by hand with the Tier 3 primitives (manual_schedule.c): whether
 * a kernel is one (before pass_pipeline_async, which then leaves it alone), and their
 * TMA copies and checks (after pass_infer_layouts). */
bool cuda_hand_scheduled(const Stmt *kernel);
void pass_manual_schedule(Ctx *ctx, Func *f);
/* CUDA sm_90a: whether copy c of kernel could become TMA stores, its tile's layout aside
 * (pass_infer_layouts gives the tile one TMA reads), and those stores (tma_store.c;
 * after pass_pipeline_async). */
bool cuda_tma_store_candidate(const Options *o, const Func *f, Stmt *kernel, const Stmt *c);
void pass_tma_store(Ctx *ctx, Func *f);
/* Last: one copy of such a kernel's control flow per warp-group set (manual_schedule.c). */
void pass_split_warp_groups(Ctx *ctx, Func *f);
/* After pass_map_threads: the loops of the distributed nest rooted at LOOP_PARALLEL loop
 * `root` (root, then each LOOP_PARALLEL loop that is the only statement of the previous
 * one's body), at most max; returns their number. */
int simt_parallel_nest(Stmt *root, Stmt **loops, int max);
/* Whether b is block-wide in the SIMT model (global, shared, or a fragment without a
 * register layout), not per-thread. */
bool simt_block_wide(const Buffer *b);

/* ---- targets ------------------------------------------------------------------------ */
typedef struct Target {
    const char *name;        /* "c", "cuda" */
    const char *source_ext;  /* ".c" */
    const char *binary_ext;  /* ".so" */
    /* 1 if the target can build and run here; else 0 with the reason in why. */
    int (*available)(StrBuf *why);
    /* Text identifying the toolchain (compiler path + version): part of the cache key,
     * with the source and options_key. */
    const char *(*toolchain_id)(Arena *a);
    /* Optional (NULL: the target has no architectures): the architecture to compile for,
     * for options_fill. given (NULL: none) is checked and normalized into out; without
     * one, the current device's. 0 on success; 1 when none was given and no device says
     * (why says so; building then fails with it); -1 when given is not one (why). */
    int (*arch)(const char *given, char *out, size_t n, StrBuf *why);
    /* The whole pass pipeline of this target, one pass per line. */
    void (*lower)(Ctx *ctx, Func *f);
    /* Generated source for a lowered function (arena string). */
    char *(*emit)(Ctx *ctx, const Func *f);
    /* Build source, generated with the settings opt, into binary_path (atomically:
     * write a temp file, rename). 0 on success; else toolchain output in log. */
    int (*build)(const char *source, const Options *opt, const char *binary_path, StrBuf *log);
    /* Load a built binary; NULL with a reason in err. */
    void *(*load)(const char *binary_path, const Options *opt, StrBuf *err);
    /* Run: args[i] = data pointer of buffer parameter i (byte_offset applied) or pointer
     * to the scalar value (int64_t for ints and bool, double for floats); syms = values
     * of f->syms in order. 0 on success; else reason in err. */
    int (*launch)(void *module, void *const *args, const int64_t *syms, void *stream,
                  StrBuf *err);
    void (*unload)(void *module);
    /* Optional (NULL for targets that need nothing): called once after load with the
     * lowered Func the module was built from and its settings; both outlive the module.
     * The CUDA target takes its launch plan (grids, block sizes, shared memory) from
     * them. */
    void (*bind)(void *module, const Func *f, const Options *opt);
} Target;

const Target *target_find(const char *name); /* NULL if unknown */
extern const Target target_c;
extern const Target target_cuda;

#endif
