/* ir.h - the tile IR.
 *
 * A Func is one @T.prim_func: parameters (global buffers and scalars), the symbolic
 * variables bound from argument shapes/strides at launch, and a body holding one or more
 * STMT_KERNEL launches. Expressions are typed trees; statements are a tree with
 * STMT_SEQ lists. Every node carries the kernel.py location it came from.
 *
 * Tile operations (copy, fill, gemm, reduce, cumsum, atomic) work on Regions. Passes
 * rewrite the tree in place (lower_tile_ops turns tile ops into loops of scalar stores
 * for targets without their own lowering). All nodes live in the compilation arena. */
#ifndef TILEC_IR_H
#define TILEC_IR_H

#include "base/base.h"
#include "ir/dtype.h"

/* ---- enumerations (X-macros: enum, printed spelling) -------------------------------- */
/* clang-format off */
#define TL_SCOPES(X) \
    X(SCOPE_GLOBAL, "global") X(SCOPE_SHARED, "shared") X(SCOPE_FRAGMENT, "fragment") \
    X(SCOPE_LOCAL, "local") X(SCOPE_VAR, "var") X(SCOPE_BARRIER, "barrier")
/* clang-format on */

/* clang-format off */
#define TL_BINOPS(X)                                                                      \
    X(OP_ADD, "+") X(OP_SUB, "-") X(OP_MUL, "*")                                          \
    X(OP_DIV, "/")        /* float: true division; int: truncating (C) division */        \
    X(OP_FLOORDIV, "//") X(OP_FLOORMOD, "%") /* Python semantics, result sign of divisor */ \
    X(OP_MIN, "min") X(OP_MAX, "max") X(OP_POW, "**")                                      \
    X(OP_LT, "<") X(OP_LE, "<=") X(OP_GT, ">") X(OP_GE, ">=") X(OP_EQ, "==") X(OP_NE, "!=") \
    X(OP_AND, "&&") X(OP_OR, "||")                                                         \
    X(OP_BITAND, "&") X(OP_BITOR, "|") X(OP_BITXOR, "^") X(OP_SHL, "<<") X(OP_SHR, ">>")
/* clang-format on */

#define TL_UNOPS(X) X(OP_NEG, "-") X(OP_NOT, "!") X(OP_BITNOT, "~")

/* Math intrinsics: X(enum, name, nargs). Float in, float out (same dtype) unless noted. */
/* clang-format off */
#define TL_INTRINSICS(X)                                                            \
    X(FN_EXP, "exp", 1) X(FN_EXP2, "exp2", 1) X(FN_LOG, "log", 1) X(FN_LOG2, "log2", 1) \
    X(FN_LOG10, "log10", 1) X(FN_SQRT, "sqrt", 1) X(FN_RSQRT, "rsqrt", 1)             \
    X(FN_ABS, "abs", 1) /* ints too */ X(FN_FLOOR, "floor", 1) X(FN_CEIL, "ceil", 1)  \
    X(FN_ROUND, "round", 1) X(FN_TRUNC, "trunc", 1) X(FN_TANH, "tanh", 1)              \
    X(FN_SIGMOID, "sigmoid", 1) X(FN_SIN, "sin", 1) X(FN_COS, "cos", 1)                \
    X(FN_TAN, "tan", 1) X(FN_ERF, "erf", 1) X(FN_LOG1P, "log1p", 1) X(FN_EXPM1, "expm1", 1) \
    X(FN_POW, "pow", 2) X(FN_FMOD, "fmod", 2) X(FN_ATAN2, "atan2", 2)                 \
    X(FN_ISINF, "isinf", 1) /* -> bool */ X(FN_ISNAN, "isnan", 1) /* -> bool */      \
    X(FN_BITCAST, "reinterpret", 1) /* the same bits as e->dtype, of the same width:    \
                                       ir_bitcast (T.reinterpret) */                    \
    /* warp shuffles (value, lane argument) -> the value of another lane of the warp:  \
       lane ^ arg, lane + arg, lane - arg (own value past the warp's lanes), lane arg  \
       (of arg, its low 5 bits, as PTX's shfl.sync); of value's dtype; never folded  \
       (intrinsic_is_shfl) */                                                         \
    X(FN_SHFL_XOR, "shfl_xor", 2) X(FN_SHFL_DOWN, "shfl_down", 2)                      \
    X(FN_SHFL_UP, "shfl_up", 2) X(FN_SHFL_IDX, "shfl_sync", 2)                         \
    /* warp votes over the lanes of the warp that exist (a partial last warp has fewer), \
       of a bool predicate or, to match, a uint32 / uint64 value: ballot -> uint64 (bit \
       i: lane i's predicate), any_sync / all_sync -> int32 0 or 1, match_any_sync ->   \
       uint32 (the lanes holding this lane's value), match_all_sync -> uint32           \
       (0xFFFFFFFF when every lane holds the same value, else 0), elect_one -> bool     \
       (whether this is the lowest lane whose predicate is set) */                      \
    X(FN_BALLOT, "ballot", 1) X(FN_ANY_SYNC, "any_sync", 1) X(FN_ALL_SYNC, "all_sync", 1) \
    X(FN_MATCH_ANY, "match_any_sync", 1) X(FN_MATCH_ALL, "match_all_sync", 1)          \
    X(FN_ELECT_ONE, "elect_one", 1)                                                    \
    /* block votes: a barrier of the block, then the bool predicate over all its        \
       threads -> int32 (and / or: 0 or 1; count) */                                    \
    X(FN_SYNCTHREADS_AND, "syncthreads_and", 1) X(FN_SYNCTHREADS_OR, "syncthreads_or", 1) \
    X(FN_SYNCTHREADS_COUNT, "syncthreads_count", 1) \
    /* libm (TVM's tirx names) */                                                      \
    X(FN_ACOS, "acos", 1) X(FN_ACOSH, "acosh", 1) X(FN_ASIN, "asin", 1)                \
    X(FN_ASINH, "asinh", 1) X(FN_ATAN, "atan", 1) X(FN_ATANH, "atanh", 1)              \
    X(FN_COSH, "cosh", 1) X(FN_SINH, "sinh", 1) X(FN_NEARBYINT, "nearbyint", 1)        \
    X(FN_COPYSIGN, "copysign", 2) X(FN_HYPOT, "hypot", 2) X(FN_NEXTAFTER, "nextafter", 2) \
    X(FN_LDEXP, "ldexp", 2) /* (float, int32 exponent) */                              \
    X(FN_ISFINITE, "isfinite", 1) /* -> bool */                                        \
    /* integer bits: popcount -> the operand's dtype; clz, __ffs (1-based lowest set   \
       bit, 0 for 0) -> int32, of 32- and 64-bit operands; clz(0) is the width */     \
    X(FN_POPCOUNT, "popcount", 1) X(FN_CLZ, "clz", 1) X(FN_FFS, "__ffs", 1)             \
    /* CUDA's fast approximations (float32 values; the C target computes them with    \
       the accurate functions) */                                                      \
    X(FN_FAST_COS, "__cos", 1) X(FN_FAST_EXP, "__exp", 1) X(FN_FAST_EXP10, "__exp10", 1) \
    X(FN_FAST_LOG, "__log", 1) X(FN_FAST_LOG2, "__log2", 1) X(FN_FAST_LOG10, "__log10", 1) \
    X(FN_FAST_SIN, "__sin", 1) X(FN_FAST_TAN, "__tan", 1) X(FN_FAST_RCP, "fast_rcp", 1) \
    /* IEEE operations rounded as Expr.u.call.round says (float32 and float64; narrower \
       floats only fma, to nearest) */                                                 \
    X(FN_IEEE_ADD, "ieee_add", 2) X(FN_IEEE_SUB, "ieee_sub", 2)                         \
    X(FN_IEEE_MUL, "ieee_mul", 2) X(FN_IEEE_DIV, "ieee_fdiv", 2)                        \
    X(FN_IEEE_FMA, "ieee_fmaf", 3) X(FN_IEEE_RCP, "ieee_frcp", 1)                       \
    X(FN_IEEE_SQRT, "ieee_fsqrt", 1) X(FN_IEEE_RSQRT, "ieee_frsqrt", 1) /* float32, rn */ \
    /* CUDA's __fns(mask, base, offset) of uint32, uint32, int32: the position of the     \
       offset-th set bit of mask from bit base up (offset > 0) or down (< 0), base itself \
       if set (0), else 0xFFFFFFFF -> uint32 (PTX fns) */                                \
    X(FN_FNS, "__fns", 3)                                                              \
    /* float32 rounded to TF32 (10 mantissa bits; to nearest, ties away from zero, as     \
       PTX's cvt.rna.tf32.f32; NaN and infinities kept): what a float32 T.gemm multiplies \
       (lower_tile_ops.c); internal, no T. name (intrinsic_is_plain) */                   \
    X(FN_TF32_RNA, "tf32_rna", 1)
/* clang-format on */

/* The rounding of an IEEE intrinsic (TileLang's rounding_mode strings): to nearest even,
 * toward zero, up (toward +inf), down (toward -inf). */
#define TL_ROUNDINGS(X) X(ROUND_RN, "rn") X(ROUND_RZ, "rz") X(ROUND_RU, "ru") X(ROUND_RD, "rd")

/* clang-format off */
#define TL_LOOP_KINDS(X)                                                              \
    X(LOOP_SERIAL, "serial") X(LOOP_UNROLL, "unroll") X(LOOP_PARALLEL, "parallel")     \
    X(LOOP_PIPELINED, "pipelined") X(LOOP_VECTORIZED, "vectorized")
/* clang-format on */

/* clang-format off */
#define TL_REDUCE_OPS(X) \
    X(RED_SUM, "sum") X(RED_MAX, "max") X(RED_MIN, "min") X(RED_ABSSUM, "abssum") \
    X(RED_ABSMAX, "absmax") X(RED_BITAND, "bitand") X(RED_BITOR, "bitor")         \
    X(RED_BITXOR, "bitxor") /* integer and bool buffers */
/* clang-format on */

/* clang-format off */
#define TL_ATOMIC_OPS(X) X(ATOMIC_ADD, "add") X(ATOMIC_MAX, "max") X(ATOMIC_MIN, "min") \
    X(ATOMIC_OR, "or") /* ints */ X(ATOMIC_STORE, "store") /* dst = value */
/* clang-format on */

/* C11's memory orders, TileLang's memory_order= names (atomic.py's ids, in order) */
/* clang-format off */
#define TL_MEM_ORDERS(X) \
    X(ORDER_RELAXED, "relaxed") X(ORDER_CONSUME, "consume") X(ORDER_ACQUIRE, "acquire") \
    X(ORDER_RELEASE, "release") X(ORDER_ACQ_REL, "acq_rel") X(ORDER_SEQ_CST, "seq_cst")
/* clang-format on */

/* How an EXPR_LOAD reads its element: plainly; through the read-only data cache (T.__ldg;
 * the same value); atomically with Expr.u.load.order (T.atomic_load); or as the raw 32
 * bits (the load's dtype, uint32) that start at the element's address, for a buffer of
 * 8- or 16-bit elements (T.ldg32 .. T.lds128; the front end builds the words of wider
 * elements from whole elements). */
/* clang-format off */
#define TL_LOAD_MODES(X) \
    X(LOAD_PLAIN, "") X(LOAD_NC, "ldg") X(LOAD_ATOMIC, "atomic") X(LOAD_BITS, "bits")
/* clang-format on */

/* clang-format off */
#define TL_MBAR_OPS(X) \
    X(MBAR_INIT, "init") X(MBAR_ARRIVE, "arrive") X(MBAR_EXPECT_TX, "arrive_expect_tx") \
    X(MBAR_EXPECT, "expect_tx") X(MBAR_WAIT, "wait") \
    X(MBAR_CP_ASYNC, "cp_async_arrive") X(MBAR_CP_ASYNC_NOINC, "cp_async_arrive_noinc")
/* clang-format on */

/* the two consumer warp groups' turns (STMT_TURN; tl_pingpong_<name> in tl_cuda.h) */
/* clang-format off */
#define TL_TURN_OPS(X) \
    X(TURN_START, "start") X(TURN_WAIT, "wait") X(TURN_PASS, "pass") X(TURN_END, "end")
/* clang-format on */

/* a split-K unit's partial accumulators (STMT_SPLITK): ZERO them before its loop when
   it does not start the tile; COMBINE after it (store them for the block that finishes
   the tile, or add the stored ones of the tile's other units) */
#define TL_SK_OPS(X) X(SK_ZERO, "zero") X(SK_COMBINE, "combine")

/* barriers across the blocks of the grid or of a cluster (STMT_GROUP_SYNC) */
/* clang-format off */
#define TL_GROUP_SYNC_OPS(X) \
    X(GSYNC_GRID, "sync_grid") X(GSYNC_CLUSTER_ARRIVE, "cluster_arrive") \
    X(GSYNC_CLUSTER_ARRIVE_RELAXED, "cluster_arrive_relaxed") \
    X(GSYNC_CLUSTER_WAIT, "cluster_wait") X(GSYNC_CLUSTER_SYNC, "cluster_sync")
/* clang-format on */

/* clang-format off */
#define TL_GEMM_POLICIES(X) \
    X(POLICY_SQUARE, "Square") X(POLICY_FULL_ROW, "FullRow") X(POLICY_FULL_COL, "FullCol")
/* clang-format on */

/* clang-format off */
#define TL_EXPR_KINDS(X) \
    X(EXPR_INT) X(EXPR_FLOAT) X(EXPR_VAR) X(EXPR_BIN) X(EXPR_UN) X(EXPR_CALL) X(EXPR_CAST) \
    X(EXPR_LOAD) X(EXPR_SELECT)
/* clang-format on */

/* clang-format off */
#define TL_STMT_KINDS(X)                                                                 \
    X(STMT_SEQ) X(STMT_FOR) X(STMT_WHILE) X(STMT_IF) X(STMT_BREAK) X(STMT_CONTINUE)       \
    X(STMT_STORE) X(STMT_LET) X(STMT_ALLOC) X(STMT_KERNEL) X(STMT_COPY) X(STMT_FILL)      \
    X(STMT_GEMM) X(STMT_REDUCE) X(STMT_CUMSUM) X(STMT_ATOMIC) X(STMT_PRINT)               \
    X(STMT_ASSERT) X(STMT_SYNC) X(STMT_ANNOTATE_LAYOUT) X(STMT_SWIZZLE)                  \
    X(STMT_ASYNC) /* CUDA: cp.async commit / wait (pass_pipeline_async) */             \
    X(STMT_WS)    /* CUDA sm_90: producer / consumer warp groups (pass_pipeline_async) */ \
    X(STMT_MBAR)  /* CUDA sm_90: an mbarrier operation */                              \
    X(STMT_THREADS) /* T.ws: a part of the block's threads runs the body */            \
    X(STMT_FENCE)   /* T.fence_proxy_async */                                          \
    X(STMT_SETMAXNREG) /* T.set_max_nreg */                                          \
    X(STMT_TURN) /* CUDA sm_90: the two consumer warp groups' gemm turns (ping-pong) */ \
    X(STMT_SPLITK) /* CUDA sm_90: a split-K unit's accumulators (pass_pipeline_async) */ \
    X(STMT_PDL)    /* T.pdl_trigger / T.pdl_sync: programmatic dependent launch */     \
    X(STMT_EXTERN) /* T.call_extern / T.call_pure_extern: a named C / CUDA function */ \
    X(STMT_NAMED_BAR) /* T.sync_threads(id, n) / T.named_barrier_arrive: bar.sync/arrive */ \
    X(STMT_GROUP_SYNC) /* T.sync_grid / T.cluster_*: barriers across blocks */
/* clang-format on */

#define X2_ENUM(e, ...) e,
typedef enum Scope { TL_SCOPES(X2_ENUM) SCOPE_COUNT } Scope;
typedef enum BinOp { TL_BINOPS(X2_ENUM) BINOP_COUNT } BinOp;
typedef enum UnOp { TL_UNOPS(X2_ENUM) UNOP_COUNT } UnOp;
typedef enum Intrinsic { TL_INTRINSICS(X2_ENUM) FN_COUNT } Intrinsic;
typedef enum Rounding { TL_ROUNDINGS(X2_ENUM) ROUNDING_COUNT } Rounding;
typedef enum LoopKind { TL_LOOP_KINDS(X2_ENUM) LOOP_KIND_COUNT } LoopKind;
typedef enum ReduceOp { TL_REDUCE_OPS(X2_ENUM) REDUCE_OP_COUNT } ReduceOp;
typedef enum AtomicOp { TL_ATOMIC_OPS(X2_ENUM) ATOMIC_OP_COUNT } AtomicOp;
typedef enum MemOrder { TL_MEM_ORDERS(X2_ENUM) MEM_ORDER_COUNT } MemOrder;
typedef enum LoadMode { TL_LOAD_MODES(X2_ENUM) LOAD_MODE_COUNT } LoadMode;
typedef enum GemmPolicy { TL_GEMM_POLICIES(X2_ENUM) GEMM_POLICY_COUNT } GemmPolicy;
typedef enum MbarOp { TL_MBAR_OPS(X2_ENUM) MBAR_OP_COUNT } MbarOp;
typedef enum TurnOp { TL_TURN_OPS(X2_ENUM) TURN_OP_COUNT } TurnOp;
typedef enum SkOp { TL_SK_OPS(X2_ENUM) SK_OP_COUNT } SkOp;
typedef enum GroupSyncOp { TL_GROUP_SYNC_OPS(X2_ENUM) GSYNC_OP_COUNT } GroupSyncOp;
typedef enum ExprKind { TL_EXPR_KINDS(X2_ENUM) EXPR_KIND_COUNT } ExprKind;
typedef enum StmtKind { TL_STMT_KINDS(X2_ENUM) STMT_KIND_COUNT } StmtKind;
#undef X2_ENUM

const char *scope_name(Scope s);
const char *binop_name(BinOp op);
const char *unop_name(UnOp op);
const char *intrinsic_name(Intrinsic fn);
int intrinsic_nargs(Intrinsic fn);
bool intrinsic_is_shfl(Intrinsic fn); /* FN_SHFL_*: a value from another thread */
/* Whether fn's value in a thread is computed from its argument in other threads (the
 * shuffles, the warp and block votes): every thread of the warp (block: the block votes)
 * must reach it, and it is never folded. */
bool intrinsic_reads_threads(Intrinsic fn);
bool intrinsic_is_block_vote(Intrinsic fn); /* FN_SYNCTHREADS_* */
const char *rounding_name(Rounding r);
Rounding rounding_parse(const char *name); /* ROUNDING_COUNT when not one */
const char *loop_kind_name(LoopKind k);
const char *reduce_op_name(ReduceOp op);
const char *atomic_op_name(AtomicOp op);
const char *gemm_policy_name(GemmPolicy p);
const char *mbar_op_name(MbarOp op);
const char *group_sync_op_name(GroupSyncOp op);
const char *turn_op_name(TurnOp op);
const char *sk_op_name(SkOp op);
const char *mem_order_name(MemOrder o);
const char *load_mode_name(LoadMode m);

/* ---- nodes ------------------------------------------------------------------------ */
typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Buffer Buffer;

/* A scalar variable: loop variable, block index, let-bound value, symbolic size. */
typedef struct Var {
    const char *name;        /* user's name; printers make it unique with id when needed */
    DType dtype;             /* int32 for indices unless stated */
    int id;                  /* unique in the compilation */
    const Expr *let_value;   /* a kernel LET's value when it loads nothing, else NULL: slice
                              extents between lets simplify through it (tileops.c) */
    bool nonneg;             /* never negative (pass_mark_nonneg: loop variables that start at
                              >= 0, block indices, lets of such values): the C family
                              divides it as unsigned */
    bool varying;            /* may differ between the threads of a block (pass_mark_varying:
                              thread indices, lets and loop bounds that depend on them) */
    const Expr *bound_value; /* a kernel LET's value, loads or not (T.get_let_value) */
    int64_t multiple;        /* > 1: a symbolic size assumed a multiple of this (CUDA's
                              pass_assume_aligned; the runtime checks it at launch), or
                              a let's value proven one (pass_simplify) */
} Var;

struct Buffer {
    const char *name;
    DType dtype;
    Scope scope;
    int ndim;
    Expr **shape;   /* ndim extents (constants or expressions over symbolic vars) */
    Expr **strides; /* NULL: contiguous row-major; else ndim stride expressions (elements) */
    /* A view (T.Tensor(shape, dtype, buf.data), T.view, T.reshape): another contiguous
     * shape of this global buffer's memory (a parameter or T.alloc_global), never itself
     * a view; NULL for a buffer of its own. Emitters address a view by its own shape
     * through base's pointer (ir_buffer_root). (The front end's views of shared,
     * fragment and local buffers have a base too, but never reach the IR: views.c.) */
    struct Buffer *base;
    int id;
    Loc loc;          /* where it was declared */
    Expr *init;       /* SCOPE_VAR: initial value or NULL */
    Expr *safe_value; /* T.annotate_safe_value for out-of-bounds loads, or NULL (= 0) */
    /* CUDA (pass_infer_layouts): a fragment held in registers with this layout (else
     * NULL: block-wide memory); a shared buffer swizzled for rows of this many bytes
     * (tl_swizzle of runtime/cuda/tl_cuda.h; 0: row-major). */
    const struct Frag *layout;
    int swizzle;
    int panel;        /* CUDA: stored as column panels of 128 bytes, this many elements
                  ([C/panel][R][panel], each 128B-swizzled: tl_panel_swizzle; wgmma
                  operands wider than 128 bytes), or 0 */
    bool overwritten; /* CUDA: every element is written before it is read (pipelined
                         stages): the block does not zero it at entry */
    bool varying;     /* a local or var buffer whose values may differ between threads
                         (pass_mark_varying) */
    bool reducer;     /* T.alloc_reducer (a shared buffer): `+=` on an element of it is an
                         atomic add, so that a T.Parallel loop may reduce into it */
    int align;        /* CUDA: bytes the generated code's vector accesses (and TMA) need
                         the data of this global buffer aligned to (checked at launch);
                         for a shared buffer, the alignment of its offset (a TMA
                         destination: 128); 0: none */
    /* The front end's vector buffers (T.alloc_local(shape, "float16x2")): the last
     * dimension holds the `lanes` lanes of one element (0: scalar elements); vec_var:
     * a vector T.alloc_var (shape (lanes,)), whose name reads as the vector. */
    int lanes;
    bool vec_var;
    Var *addr;            /* T.make_tensor: a global buffer at a run-time address, this int64
                         let of the kernel (no parameter, no allocation; element-wise
                         accesses on CUDA, whose alignment no launch checks); else NULL */
    int wmma;             /* a WMMA fragment buffer (scope "wmma.*"): its role, 1 matrix_a,
                  2 matrix_b, 3 accumulator (frontend/tileops_wmma.c); else 0 */
    bool cluster_barrier; /* SCOPE_BARRIER of T.alloc_cluster_barrier: the blocks of the
                             cluster arrive on it (STMT_MBAR cta) */
};

struct Expr {
    ExprKind kind;
    DType dtype;
    Loc loc;
    union {
        int64_t i; /* INT (bool too: 0/1) */
        double f;  /* FLOAT */
        Var *var;  /* VAR */
        struct {
            BinOp op;
            Expr *a, *b;
        } bin; /* BIN (comparisons and &&,|| give bool) */
        struct {
            UnOp op;
            Expr *a;
        } un; /* UN */
        struct {
            Intrinsic fn;
            Expr *args[3];  /* intrinsic_nargs(fn) of them, the rest NULL */
            Rounding round; /* FN_IEEE_*: how the result is rounded */
        } call;             /* CALL */
        struct {
            Expr *value;
        } cast; /* CAST to e->dtype */
        struct {
            Buffer *buf;
            Expr **idx;
            uint8_t mode;  /* LoadMode (LOAD_BITS: e->dtype is uint32) */
            uint8_t order; /* LOAD_ATOMIC: its MemOrder */
        } load;            /* LOAD buf[idx[0..ndim-1]] */
        struct {
            Expr *cond, *then, *orelse;
        } select; /* SELECT (T.if_then_else) */
    } u;
};

/* A rectangular part of a buffer: start[d] .. start[d]+extent[d]. */
typedef struct Region {
    Buffer *buf;
    int ndim;
    Expr **start;
    Expr **extent; /* usually constants */
} Region;

typedef Vec(Stmt *) StmtList;

/* An argument of a STMT_EXTERN: a value, or (value NULL) a pointer to element idx of buf
 * (T.access_ptr) through which the callee reads (rw & 1) and writes (rw & 2) up to
 * extent elements from there on. */
typedef struct ExternArg {
    Expr *value;
    Buffer *buf;
    Expr **idx;
    Expr *extent;
    int rw;
} ExternArg;

/* A T.import_source text, compiled into the kernel's translation unit. */
typedef struct ImportedSource {
    const char *text;
    Loc loc;
} ImportedSource;
enum { ASYNC_MAX_FENCED = 8, SK_MAX_ACC = 4 };

/* Split-K work units of a warp-specialized loop (STMT_WS.sk): on a persistent grid a
 * block may run only the iterations min + lo .. min + hi - 1 of a tile's loop (of iters
 * per tile); k + base counts iteration k over the block's units (what the stages and
 * phases run on). The accumulators acc[0 .. nacc) (float32 register fragments that the
 * loop only adds gemm products to) are then combined across the tile's units
 * (STMT_SPLITK). lo, hi and base are defined in both sides of the WS, per unit. */
typedef struct SplitK {
    Var *lo, *hi, *base;
    Expr *iters;
    Buffer *acc[SK_MAX_ACC];
    int nacc;
} SplitK;

/* T.Pipelined(order=, stage=, group=): TileLang's schedule of the loop body. Group g
 * (statements first[g] .. first[g + 1] - 1 of the flattened body, consecutive) runs
 * stage[g] iterations late and order[g]-th among the groups of an iteration; stage and
 * order -1: copies global -> shared that the TMA producer loads. pass_check_schedules
 * checks that the schedule computes what program order does and then makes the loop
 * body a SEQ of one SEQ per group (grouped); pipelines that cannot apply it flatten the
 * body again (pipe_flatten_groups), which computes the same. */
typedef struct PipeSchedule {
    int ngroups;
    int *first, *stage, *order;
    Loc loc; /* the T.Pipelined call */
    bool grouped;
} PipeSchedule;

/* CUDA sm_90 (pass_pipeline_async): a TMA tensor map over a global buffer (the whole
 * tensor, its dims innermost first), encoded by the runtime at each launch from the
 * argument's shape and passed as a kernel parameter (cuda.h). */
enum { TMA_MAX_RANK = 5 };
typedef struct TmaMap {
    Buffer *buf;           /* a global parameter, contiguous */
    int rank;              /* buf->ndim */
    int box[TMA_MAX_RANK]; /* box extents, innermost first */
    int swizzle;           /* 0 (none), 32, 64 or 128: the hardware's byte swizzle */
    /* One copy is npanel x nchunk boxes: box (p, c) starts p * box[0] further in dim 0
     * and c * box[outer] further in dim `outer` (innermost-first numbering), and lands
     * p * panel_step + c * chunk_step elements into the tile. */
    int npanel, nchunk, outer;
    int64_t panel_step, chunk_step;
    int64_t bytes; /* of one copy (the whole tile, zeros outside the tensor included) */
} TmaMap;

struct Stmt {
    StmtKind kind;
    Loc loc;
    union {
        StmtList seq; /* SEQ */
        struct {
            Var *var;
            Expr *min, *extent;
            LoopKind kind;
            Stmt *body;
            int num_stages;            /* PIPELINED: stages (0 if not given) */
            const char *annot;         /* other annotations as printed text, or NULL */
            const struct Frag *layout; /* CUDA: the T.Parallel nest rooted here runs
                                               by this layout (pass_infer_layouts) */
            PipeSchedule *sched;       /* PIPELINED: order=/stage=/group=, or NULL */
        } for_;
        struct {
            Expr *cond;
            Stmt *body;
        } while_;
        struct {
            Expr *cond;
            Stmt *then, *orelse;
        } if_; /* orelse may be NULL */
        struct {
            Buffer *buf;
            Expr **idx;
            Expr *value;
            bool bits; /* the raw bits of value (uint32) from the element's address on, for
                          a buffer of 8- or 16-bit elements (T.stg32 .. T.sts128), not a
                          conversion to buf's dtype */
        } store;
        struct {
            Var *var;
            Expr *value;
        } let; /* var = value until end of the enclosing SEQ */
        struct {
            Buffer *buf;
        } alloc; /* declares a non-global buffer */
        struct {
            int ngrid;
            Expr *grid[3];
            Var *block[3];
            Var *thread[3]; /* T.get_thread_binding(d): the thread index along d (threads
                               x fastest), or NULL when the program never asks */
            int threads[3];
            int nthreads_dims;
            Stmt *body;
            int producer_threads; /* CUDA: a producer warp group launched after the
                                          threads (STMT_WS), or 0 */
            TmaMap **tmaps;
            int ntmaps; /* CUDA: its TMA tensor maps */
            /* CUDA: its launch shape (pass_plan_launch): a persistent grid (each
                    block walks tiles), blocks per cluster (0 or 1: none), and the bytes
                    of a block's split-K partial result (0: no split-K) */
            bool persistent;
            int cluster;
            int64_t sk_bytes;
            int min_blocks; /* T.annotate_min_blocks_per_sm: CUDA's second
                               __launch_bounds__ argument, or 0 */
            /* T.Kernel(cluster_dims=): blocks per cluster along x, y, z (0 or 1: one;
               ir_cluster_size) */
            int cluster_dims[3];
            /* CUDA: a kernel with T.sync_grid: its barrier words (uint32 count, phase), a
               zeroed T.alloc_global of each launch (pass_plan_launch), else NULL */
            Buffer *grid_bar;
        } kernel;
        struct {
            Region src, dst; /* with dtype conversion */
            bool async;      /* CUDA: issued with cp.async (pass_pipeline_async) */
            int tma;         /* CUDA: > 0: by one thread through tensor map tma - 1 of
                                the kernel, completing on mbarrier bar[bar_idx]; or,
                                into a global tensor (bar NULL), TMA stores that the
                                block's barriers wait for (tma_store.c) */
            bool multicast;  /* TMA: the same tile for every block of a cluster
                                    (STMT_WS.cluster): each issues its share of the
                                    boxes into all of them */
            bool manual;     /* T.tma_copy(barrier=bar[bar_idx]): one thread issues it
                                    and expects its bytes on the barrier; the program
                                    arrives and waits (pass_manual_tma plans tma) */
            Buffer *bar;
            Expr *bar_idx;
            Expr *when;      /* CUDA: a producer copy that pipeline_async moved out of an
                                `if` (its tile is read only under it): the condition, a
                                function of the loop's variable; a prefetch for an
                                iteration where it is false is skipped. NULL: always */
            unsigned proven; /* bit d: dim d of the global region lies inside the
                                     tensor for every value of the variables in scope
                                     (pass_safe_memory_access): no check is emitted.
                                     Passes that move the copy to other values of a
                                     loop's variable (pipelining) keep them in the
                                     loop's range. */
        } copy;
        struct {
            Region dst;
            Expr *value;
        } fill;
        struct {
            Region a, b, c;
            bool trans_a, trans_b, clear_accum;
            GemmPolicy policy;
            int k_pack, wg_wait;
            int warp_m, warp_n; /* CUDA: kept for tensor cores over these warps */
            int wgmma;          /* CUDA sm_90a: > 0: wgmma over this many warpgroups
                                   along M */
            int wgmma_n;        /* and along N (>= 1 when wgmma > 0) */
            bool inflight;      /* wgmma: return with its group still running
                                        (pass_pipeline_async waits for it) */
            bool deferred;      /* wgmma: return without waiting for any group
                                        (a scheduled pipeline's STMT_ASYNC waits) */
            bool manual;        /* T.wgmma_gemm: wgmma or an error, left in flight;
                                        the program waits (T.wait_wgmma) */
            int pipe_wait;      /* CUDA mma.sync ending a cp.async pipeline's body:
                                        > 0: before its last k-step's mmas it waits until
                                        at most pipe_wait - 1 groups run, then barriers
                                        the block (pass_pipeline_async) */
            bool int4;          /* A and B hold int4 (int8 buffers) or uint4 (uint8) two
                                        per byte along K, the low nibble first (the front
                                        end's subbyte.c): K extents count bytes */
            Region e;           /* T.gemm_sp: A holds the kept half of a 2:4 (fp32: 1:2)
                                   sparse A, e its metadata (docs/language.md); e.buf
                                   NULL: a dense gemm */
            bool trans_e;       /* T.gemm_sp: e stored [K / e_factor][M] */
        } gemm;
        struct {
            ReduceOp op;
            Region src, dst;
            int dim;
            bool clear;
            Buffer *workspace; /* CUDA: shared scratch for a cross-warp combine */
        } reduce;
        struct {
            Region src, dst;
            int dim;
            bool reverse;
            bool max; /* T.cummax: the running maximum instead of the sum */
        } cumsum;
        /* ATOMIC: dst op= src elementwise (src region) or dst op= value (scalar, dst extent 1),
           with memory order `order`; a scalar one may store the element's previous value
           in prev[0] (a var buffer: return_prev=True), which thread-level code only asks */
        struct {
            AtomicOp op;
            Region dst;
            Region src;
            Expr *value;
            MemOrder order;
            Buffer *prev;
        } atomic;
        struct {
            const char *msg;
            Expr *value;
            Region region;
        } print; /* value or region.buf */
        struct {
            Expr *cond;
            const char *msg;
        } assert_;
        struct {
            Buffer *buf;
            const char *layout;
        } annotate; /* layout: source text, kept */
        struct {
            Expr *panel;
            bool enable, column;
        } swizzle; /* column: order="column" */
        struct {
            bool commit;
            int wait;
            bool wgmma;
            Buffer *acc[ASYNC_MAX_FENCED];
        } async_;
        /* commit the cp.async group, or wait until at most `wait`
                                 groups (wgmma groups when wgmma; then the register
                                 fragments acc[] (the first ones, the rest NULL) are
                                 fenced for the compiler: the operands of the groups it
                                 retires, what is computed from them next) are in flight */
        /* WS: the producer runs in one thread of an extra warp group, the consumer (the
           rest of the kernel) in the block's threads; they meet only at mbarriers. tile
           (int32, may be NULL) is defined in both: how many tiles (blocks of the
           T.Kernel) this CUDA block has done before, 0 unless the grid is persistent,
           when each side runs for every tile of the block (pass_plan_launch's choice,
           STMT_KERNEL.persistent). cluster > 1: on a persistent grid, clusters of that
           many blocks take consecutive tiles along grid dimension cluster_dim (whose
           extent it divides) and share the multicast copies. sk (may be NULL): the
           tiles are split into split-K units (SplitK) */
        struct {
            Stmt *producer, *consumer;
            Var *tile;
            int cluster, cluster_dim;
            SplitK *sk;
        } ws;
        /* MBAR on bar[idx]: INIT (every entry, count arg, by one thread), ARRIVE (each
           executing thread; with per_group only the first thread of each warp group of
           128), EXPECT_TX (one thread: arrive, expect arg bytes), EXPECT (one thread:
           expect arg more bytes, no arrival), WAIT (until the phase of parity arg has
           completed), CP_ASYNC (each executing thread: once its earlier cp.asyncs have
           landed, an arrival that the barrier's count does not include: the pending
           count is raised first), CP_ASYNC_NOINC (the same, an arrival the count
           includes). INIT with idx: that entry only. once (the program's EXPECT and
           EXPECT_TX): by the first of the threads that run it. cluster: the arrivals
           come from every block of the cluster (INIT counts them all; ARRIVE arrives on
           each block's bar[idx]) */
        struct {
            MbarOp op;
            Buffer *bar;
            Expr *idx, *arg;
            bool per_group, cluster, once;
            Expr *cta; /* ARRIVE on the twin of bar[idx] in block cta of the cluster (its
                          rank: T.ptx_arrive_cluster_barrier); NULL: this block's */
        } mbar;
        /* THREADS (T.ws): threads lo .. lo + count - 1 of the block run the body, which
           sees them as a block of count threads (thread ids from 0); the others skip
           it. Regions order their shared accesses among each other by mbarriers (the
           program's); pass_insert_sync_threads plans barriers inside one among its
           threads, and around it against code that every thread runs. With split
           (pass_split_warp_groups), the body is instead these threads' own copy of the
           block's code (thread ids unchanged), and orelse (may be NULL) the other
           threads' code. */
        struct {
            int lo, count;
            Stmt *body, *orelse;
            bool split;
            bool at_once; /* the C target's program_order: body is a SEQ of regions that
                             hand work back and forth through mbarriers; they run at
                             once, one CPU thread each (emit_c.c) */
        } threads;
        /* SETMAXNREG: this warp group's register budget from here on */
        struct {
            int regs;
            bool inc;
        } setmaxnreg;
        /* TURN (FlashAttention-3's ping-pong of two consumer warp groups, named barriers
           2 and 3): START (group 1 gives group 0 the first turn), WAIT (for this group's
           turn), PASS (the turn to the other group), END (group 0 takes group 1's last
           pass); per tile, START and END once, WAIT and PASS in pairs */
        struct {
            TurnOp op;
        } turn;
        /* SPLITK: op on the accumulators of the enclosing STMT_WS's sk */
        struct {
            SkOp op;
        } splitk;
        /* PDL: in each thread that runs it, on CUDA sm_90 (griddepcontrol): sync, wait
           until the grids this launch depends on have completed and their writes are
           visible; else let the dependent grid launch. Both only order a launch that uses
           programmatic dependent launch; otherwise (and on the C target) nothing */
        struct {
            bool sync;
        } pdl;
        /* EXTERN: name(args...), a function of a T.import_source source (or of the C math
           library), its result stored in result[0] (a var buffer of dtype; NULL: none or
           unused). A pure one is a function of its values; another is thread-level code:
           every thread of the block makes the call (pass_mark_varying). warp: a
           warp-collective primitive of the preludes (T.ptx_mma, T.ptx_ldmatrix,
           T.mma_store): every lane of each warp makes it together, reading the other
           lanes' operands (the C target gathers the lanes' arguments: tl_c.h) */
        struct {
            const char *name;
            ExternArg *args;
            int nargs;
            Buffer *result;
            bool pure;
            bool warp;
        } extern_;
        /* NAMED_BAR: the program's named barrier id (1..15) of count threads (a multiple
           of 32): the threads that run it arrive, and (not arrive) wait until count have
           arrived. CUDA: bar.sync / bar.arrive; C: nothing (program order) */
        struct {
            int id, count;
            bool arrive;
        } named_bar;
        /* GROUP_SYNC: every thread of every block of the grid (GRID) or of the block's
           cluster arrives and/or waits; a wait returns once every block of the group
           has arrived in this phase, and what each wrote before arriving (not after a
           relaxed arrive) is visible after. GRID and CLUSTER_SYNC order the block's own
           threads as T.sync_threads does */
        struct {
            GroupSyncOp op;
        } gsync;
    } u;
};

/* A parameter of the prim_func: a global buffer or a scalar. */
typedef struct Param {
    const char *name;
    Buffer *buf;    /* SCOPE_GLOBAL buffer, or NULL for a scalar */
    Var *scalar;    /* scalar parameter, or NULL */
    bool is_output; /* in out_idx (or returned by T.empty in eager style) */
    bool pointer;   /* a scalar annotated T.ptr: an int64 address, given as a number or as
                       a tensor (its data) */
} Param;

typedef struct Func {
    const char *name;
    Loc loc;
    Vec(Param) params;
    Vec(Var *) syms; /* symbolic sizes/strides, bound from tensors at launch */
    /* NULL, or per sym the multiple its lowering assumed it is (Var.multiple; 1: none):
     * a launch whose sizes break it runs the kernel's general variant (api.c) */
    int64_t *sym_multiple;
    Stmt *body;
    const char *flops;     /* optional work declarations, as IR text for reporting (may be NULL) */
    bool no_set_max_nreg;  /* T.no_set_max_nreg(): a TMA producer warp group keeps
                                      the launch's registers (no setmaxnreg) */
    bool warp_specialized; /* a kernel got a TMA producer warp group (CUDA) */
    Vec(const char *) remarks;   /* lowering's notes on slower choices ("file:line: note: ..."),
                                  added to the compilation's warnings */
    Vec(ImportedSource) imports; /* T.import_source texts, each once, in order */
    Vec(const char *) externs;   /* the functions STMT_EXTERNs call (no name of the
                                    generated code may be one) */
} Func;

/* ---- construction helpers (ir.c) --------------------------------------------------- */
Var *ir_var(Ctx *ctx, const char *name, DType dtype);
Buffer *ir_buffer(Ctx *ctx, const char *name, DType dtype, Scope scope, int ndim, Loc loc);
/* The buffer whose memory b is: b's base for a view, else b. */
const Buffer *ir_buffer_root(const Buffer *b);
Expr *ir_int(Ctx *ctx, int64_t v, DType dtype, Loc loc);
Expr *ir_float(Ctx *ctx, double v, DType dtype, Loc loc);
Expr *ir_varref(Ctx *ctx, Var *v, Loc loc);
/* Builds a binary node with the promoted dtype (bool for comparisons/logic); folds when
 * both sides are constants and simplifies x+0, x*1, x*0 for ints. */
Expr *ir_bin(Ctx *ctx, BinOp op, Expr *a, Expr *b, Loc loc);
Expr *ir_un(Ctx *ctx, UnOp op, Expr *a, Loc loc);
Expr *ir_call(Ctx *ctx, Intrinsic fn, Expr *a, Expr *b, Loc loc);
/* Any intrinsic but FN_BITCAST: args holds intrinsic_nargs(fn) operands; round is how an
 * FN_IEEE_* result is rounded (ROUND_RN for the others). Folds constants. */
Expr *ir_call_n(Ctx *ctx, Intrinsic fn, Expr *const *args, Rounding round, Loc loc);
Expr *ir_bitcast(Ctx *ctx, DType to, Expr *a, Loc loc); /* FN_BITCAST; same bit width */
Expr *ir_cast(Ctx *ctx, DType to, Expr *a, Loc loc);    /* no-op if same dtype; folds constants */
Expr *ir_load(Ctx *ctx, Buffer *buf, Expr **idx, Loc loc);
/* A load like `like` (its buffer, dtype, mode and order) at other indices. */
Expr *ir_load_like(Ctx *ctx, const Expr *like, Expr **idx, Loc loc);
Expr *ir_select(Ctx *ctx, Expr *cond, Expr *t, Expr *f, Loc loc);
bool ir_is_const_int(const Expr *e, int64_t *out);
/* Whether integer e is provably never negative (Var.nonneg vars, constants, + * min max,
 * floor division and modulo by positive constants). */
bool ir_nonneg(const Expr *e);
/* Whether integer e is provably a multiple of m (m > 0): constants, sums, products. */
bool ir_multiple_of(const Expr *e, int64_t m);
/* The 4-bit integer at position `index` of packed storage whose byte is `byte` (an int8
 * or uint8 value; even positions in the low nibble): int8 for signed, else uint8. */
Expr *ir_nibble(Ctx *ctx, Expr *byte, Expr *index, bool is_signed, Loc loc);
/* x (an integer) wrapped to 4 bits, as int8 (signed) or uint8. */
Expr *ir_wrap4(Ctx *ctx, Expr *x, bool is_signed, Loc loc);
Stmt *ir_stmt(Ctx *ctx, StmtKind kind, Loc loc);
Stmt *ir_seq(Ctx *ctx, Loc loc);
int ir_cluster_size(const Stmt *kernel); /* blocks per cluster of a STMT_KERNEL, >= 1 */
void ir_seq_push(Ctx *ctx, Stmt *seq, Stmt *s);
/* Deep copy of an expression, replacing Var `from` by `to` (to may be NULL: plain copy). */
Expr *ir_subst(Ctx *ctx, const Expr *e, const Var *from, Expr *to);

/* ---- evaluating (ir_eval.c) ------------------------------------------------------------ */
/* The value of a variable: 0 and *out, or -1 when it is unknown. */
typedef int (*IrLookup)(void *env, const Var *v, int64_t *out);
/* Evaluates an integer expression with the generated code's semantics (runtime/c/tl_c.h).
 * 0 and *out, or -1 when it needs anything unknown (a load, a float, an unbound var). */
int ir_eval_int(const Expr *e, IrLookup lookup, void *env, int64_t *out);

/* ---- printing, verifying ----------------------------------------------------------- */
void ir_print_func(StrBuf *sb, const Func *f);
void ir_print_expr(StrBuf *sb, const Expr *e);
void ir_print_stmt(StrBuf *sb, const Stmt *s, int indent);
/* Checks invariants (types, indices count, regions inside declared rank, vars defined
 * before use); a violation is an internal error naming the pass that broke it. */
void ir_verify(Ctx *ctx, const Func *f, const char *after_pass);

#endif
