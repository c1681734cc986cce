/* eval.h - the meta-level evaluator and the elaborator of prim_func bodies.
 *
 * One interpreter runs both levels. Outside a kernel body, Python statements execute at
 * compile time over Values. Inside a @T.prim_func body (interp->builder != NULL) values
 * that depend on run-time data are IR expressions (V_EXPR) and statements that depend on
 * them (for over T.Parallel, if on a run-time condition, stores) append IR to the
 * current statement list; everything else still folds. */
#ifndef TILEC_EVAL_H
#define TILEC_EVAL_H

#include "frontend/ast.h"
#include "frontend/frontend.h"

// clang-format off
#define TL_VALUE_KINDS(X)                                                                \
    X(V_NONE, "None") X(V_BOOL, "bool") X(V_INT, "int") X(V_FLOAT, "float")             \
    X(V_STR, "str") X(V_TUPLE, "tuple") X(V_LIST, "list") X(V_DICT, "dict")             \
    X(V_SLICE, "slice") X(V_DTYPE, "dtype") X(V_FUNC, "function")                        \
    X(V_BUILTIN, "builtin function") X(V_MODULE, "module") X(V_OPAQUE, "opaque value")   \
    X(V_EXPR, "expression") X(V_BUFFER, "buffer") X(V_REGION, "buffer region")           \
    X(V_ATOM, "constant") X(V_LOOP, "loop range") X(V_KERNEL, "T.Kernel")                 \
    X(V_TENSOR_TYPE, "tensor type") X(V_ERROR, "unavailable value") X(V_ELLIPSIS, "...")   \
    X(V_WS, "T.ws") X(V_OBJECT, "object") X(V_PTR, "pointer") X(V_REF, "T.Ref")          \
    X(V_VEC, "vector") X(V_VEC_DTYPE, "vector dtype")
// clang-format on

typedef enum ValueKind {
#define X(e, s) e,
    TL_VALUE_KINDS(X)
#undef X
} ValueKind;

typedef struct Value Value;
typedef struct Env Env;
typedef struct Interp Interp;
typedef Vec(Value *) ValueList;

/* Arguments of a call, evaluated. */
typedef struct CallArgs {
    ValueList pos;
    Vec(const char *) names; /* keyword names, parallel to kw */
    ValueList kw;
    Loc loc;          /* the call */
    Vec(Loc) pos_loc; /* location of each positional argument */
} CallArgs;

typedef Value *(*BuiltinFn)(Interp *in, CallArgs *args, void *data);

typedef struct Builtin {
    const char *name; /* "T.copy" */
    BuiltinFn fn;
    void *data;
} Builtin;

/* Keys recognised on @tilelang.jit / decorators. */
typedef struct JitInfo {
    bool is_jit;
    Value *out_idx;      /* int or list of ints, or NULL */
    Value *pass_configs; /* dict {key: value}, or NULL */
} JitInfo;

typedef struct Function {
    Ast *def; /* AST_DEF or AST_LAMBDA */
    Env *closure;
    Env *defaults; /* parameter defaults as values (a captured function), or NULL: the
                      def's default expressions, evaluated in the closure at each call */
    const char *name;
    bool is_prim_func, is_macro;
    JitInfo jit;
} Function;

typedef struct LoopSpec {
    LoopKind kind;
    int n; /* number of nested loops (T.Parallel(M, N) -> 2) */
    Expr *min[8], *extent[8];
    Expr *step; /* n == 1 only: the loop variable is min + i * step, i < extent; or NULL */
    int num_stages;
    const char *annot;
    PipeSchedule *sched; /* T.Pipelined(order=, stage=, group=) */
    /* T.Persistent(domain, wave_size, index, group_size): the tiles of extent[0..n) that
     * block `index` of `wave` takes, in groups of `group` along the last dimension (see
     * exec_for_persistent); wave is NULL for other loops. */
    Expr *wave, *index, *group;
} LoopSpec;

typedef struct KernelSpec {
    int ngrid;
    Expr *grid[3];
    int threads[3], nthreads_dims;
    int cluster_dims[3]; /* cluster_dims=, all 1 when not given */
} KernelSpec;

typedef struct TensorType {
    int ndim;
    Expr **shape;
    Expr **strides; /* NULL: contiguous */
    DType dtype;
    const char *scope; /* NULL: global; T.SharedBuffer & co.: a T.macro parameter's type */
} TensorType;

struct Value {
    ValueKind kind;
    union {
        bool b;
        int64_t i;
        double f;
        const char *s;   /* STR; MODULE/OPAQUE: dotted path; ATOM: "GemmWarpPolicy.Square" */
        ValueList items; /* TUPLE, LIST */
        struct {
            ValueList keys, values;
        } dict;
        struct {
            Value *lower, *upper, *step;
        } slice;
        DType dtype;
        Function *func;
        const Builtin *builtin;
        Expr *expr;
        Buffer *buf;
        Region region;
        LoopSpec *loop;
        KernelSpec *kernel;
        TensorType *tensor;
        struct {
            int lo, count; /* WS: the threads of the region */
        } ws;
        struct {
            Buffer *buf; /* PTR (T.access_ptr): the address of buf[idx], through which a
                            callee may access (rw: 1 read, 2 write) extent elements; REF
                            (a T.macro parameter annotated T.Ref): the element buf[idx],
                            which the parameter's name reads and assigning it stores */
            Expr **idx;
            Expr *extent;
            int rw;
        } ptr;
        struct {
            const char *type; /* OBJECT: a Python object by its attributes: captured, a
                                 class, an instance, a user module (pyobjects.c) */
            Env *attrs;
            struct ClassInfo *cls; /* this object is a class */
            Value *of;             /* the class of an instance */
        } obj;
        /* VEC: a value of `lanes` lanes of dtype elem (float16x2: float16, 2), each lane a
         * scalar expression (lane[k]); VEC_DTYPE: the vector dtype itself (lane NULL). */
        struct {
            DType elem;
            int lanes;
            Expr **lane;
        } vec;
        /* ERROR: a deferred error: formatted `text` (a module statement that failed), or
         * `use_msg` reported where the value is used, with a note at `loc`. */
        struct {
            const char *text;
            Loc loc;
            const char *use_msg, *note;
        } error;
    } u;
};

/* Name -> value scope. Python's LEGB is approximated by a parent chain (closures see the
 * enclosing function's scope by reference, as cells do). */
typedef struct Binding {
    const char *name;
    Value *value;
} Binding;

struct Env {
    Env *parent;
    Vec(Binding) vars;
};

/* eager.c: the eager-style kernel being elaborated. */
typedef struct EagerArg {
    const char *name; /* a run-time parameter, in signature order */
    Loc loc;
    bool declared; /* its annotation ran */
    Param param;
} EagerArg;

typedef struct Eager {
    Vec(EagerArg) args;
    Vec(Buffer *) outputs; /* T.empty, in order */
    Vec(Var *) consts;     /* T.const sizes that no define gave */
    bool stop_when_typed;  /* the first phase: stop once every run-time parameter is typed */
    bool stopped;
} Eager;

typedef struct UserModule {
    const char *path;
    Value *module;
} UserModule;

struct Interp {
    Ctx *ctx;
    const Source *src;
    Env *globals;
    Env *builtins;       /* min, max, range, len, ... */
    Stmt *builder;       /* current STMT_SEQ inside a prim_func body, else NULL */
    Func *func;          /* the Func being elaborated */
    bool in_kernel;      /* inside a `with T.Kernel` block */
    Stmt *kernel;        /* its STMT_KERNEL (block variables), while in_kernel */
    int kernel_threads;  /* its threads (all dimensions) */
    bool in_ws;          /* inside a `with T.ws(...)` block */
    Buffer *mbar_list;   /* its T.create_list_of_mbarrier barriers, or NULL */
    Value *comm_reducer; /* T.comm_reducer(fn, [identity]) as (fn, identity), for
                            T.tvm_thread_allreduce; NULL before one */
    Vec(Var *) dyn_syms; /* every T.dynamic symbol created */
    const Define *defs;
    int ndefs;
    bool *def_used;
    Eager *eager;            /* an eager-style kernel's body is being elaborated */
    Env *literal_env;        /* where define values are evaluated (a capture's), or NULL */
    Vec(UserModule) modules; /* imported so far (pyobjects.c) */
    int depth;               /* call depth, to stop runaway recursion */
    int embedded;            /* calls into libtilec's embedded Python (call_value) */
    int64_t steps;           /* compile-time work done (eval_work) */
    /* control flow signals of the statement executor */
    enum { FLOW_NORMAL, FLOW_RETURN, FLOW_BREAK, FLOW_CONTINUE } flow;
    Value *retval;
    /* T.create_barriers: its list's entries are initialized by the program
       (T.ptx_init_barrier_thread_count); which ones so far (a constant index's bit, or
       any after one with a run-time index) */
    bool mbar_need_init, mbar_any_init;
    uint64_t mbar_inited[16];
    Buffer *rng_state; /* the kernel's T.rng_init state (each thread's), or NULL; its
                          alloc opens the kernel body (builtins.c) */
    bool kernel_ws;    /* the kernel has T.ws regions (their named barriers are tilec's) */
    bool named_bars;   /* the kernel has the program's named barriers */
    /* tileops_wgmma.c: the wgmma descriptors and the shared buffer each was last made
       for (what a wgmma through it reads) */
    Vec(Buffer *) gmma_descs;
    Vec(Buffer *) gmma_smem;
    int parallel_depth; /* T.Parallel loops around the statement being elaborated */
};

/* Compile-time work limits (docs/language.md, "Limits"): past one, elaboration stops
 * with a clear error, within seconds and a few hundred MB. */
enum {
    EVAL_MAX_DEPTH = 200,        /* nested calls of Python functions and macros */
    EVAL_MAX_ELEMENTS = 1000000, /* elements of one compile-time list, tuple or range */
    EVAL_MAX_STEPS = 4000000,    /* statements, expressions, sequence elements and string
                                     bytes made, in one compilation */
};
/* Counts n steps of compile-time work; past EVAL_MAX_STEPS a user error at loc. */
void eval_work(Interp *in, int64_t n, Loc loc);
/* A sequence of n elements is about to be made: an error at loc past EVAL_MAX_ELEMENTS,
 * else counted as n steps. */
void eval_elements(Interp *in, int64_t n, Loc loc);

/* values */
Value *val_new(Interp *in, ValueKind k);
Value *val_none(Interp *in);
Value *val_int(Interp *in, int64_t i);
Value *val_float(Interp *in, double f);
Value *val_bool(Interp *in, bool b);
Value *val_str(Interp *in, const char *s);
Value *val_expr(Interp *in, Expr *e);
Value *val_dtype(Interp *in, DType t);
const char *val_kind_name(ValueKind k);
/* Short user-facing description: "int 3", "buffer A_shared", "torch.randn". */
const char *val_describe(Interp *in, const Value *v);

/* conversions with user errors at loc */
int64_t val_to_int(Interp *in, Value *v, Loc loc, const char *what);
bool val_is_const_int(const Value *v, int64_t *out);
/* A float's integer part (Python's int()); NaN, infinities and values outside int64 are
 * errors at loc. */
int64_t val_float_to_int(Interp *in, double f, Loc loc);
/* Compile-time or run-time scalar to an IR expression (ints int32, floats float32,
 * bools bool). */
Expr *val_to_expr(Interp *in, Value *v, Loc loc, const char *what);
DType val_to_dtype(Interp *in, Value *v, Loc loc, const char *what);
bool val_truthy(Interp *in, Value *v, Loc loc);

/* environment */
Env *env_new(Interp *in, Env *parent);
void env_set(Interp *in, Env *e, const char *name, Value *v);
Value *env_get(Env *e, const char *name); /* NULL if unbound */

/* evaluation */
Value *eval_expr(Interp *in, Env *env, Ast *e);
void exec_block(Interp *in, Env *env, AstList *body);
Value *call_value(Interp *in, Value *fn, CallArgs *args);
/* Binary arithmetic on two values (meta fold or IR), Python semantics at meta level. */
Value *eval_binop(Interp *in, const char *op, Value *a, Value *b, Loc loc);

/* Bind call arguments to a parameter spec "src, dst, dim=, clear=" (names after '='
 * are optional; a name starting with '*' accepts the rest). out[i] NULL when absent.
 * Errors name the function (e.g. "T.copy() takes 2 positional arguments but 3 were given"). */
void args_bind(Interp *in, CallArgs *args, const char *fname, const char *spec, Value **out,
               int nout);

/* statement building inside a prim_func */
typedef struct ScopeMark {
    int len;
    Value **vals;
} ScopeMark;
ScopeMark scope_begin(Interp *in, Env *env);
/* Names bound since `m` to run-time values become errors when used (see eval.c). */
void scope_end(Interp *in, Env *env, ScopeMark m, Loc loc, const char *what);

void emit_stmt(Interp *in, Stmt *s);

/* builtins.c */
void builtins_install(Interp *in); /* Python builtins into in->builtins */
Value *module_attr(Interp *in, Value *module, const char *attr, Loc loc);

/* A name of the T namespace: its builtin and the builtin's data, and its status in
 * docs/language.md's table (NULL: tl_lang_status's, "C, CUDA" unless noted there). */
typedef struct TName {
    const char *name;
    BuiltinFn fn;
    const void *data;
    const char *status;
} TName;

typedef struct TNames {
    const TName *names;
    int count;
} TNames;

/* The T names of the tileops_*.c files besides tileops.c's own, which tl_lang_attr looks
 * up and tl_lang_table lists in this order: tileops_expert.c (Tier 3), tileops_thread.c
 * (the thread level), tileops_lang.c (the long tail and the names not supported yet),
 * tileops_launch.c (the launch shape), tileops_math.c, tileops_mem.c (memory, extern
 * code), tileops_py.c (Python-level names), tileops_vec.c (vector values, declared
 * below), tileops_wgmma.c (raw wgmma), tileops_ptr.c (raw pointers), tileops_sched.c (the
 * persistent tile scheduler). */
extern const TNames tl_expert_names, tl_thread_names, tl_lang_names, tl_launch_names, tl_math_names,
    tl_mem_names, tl_py_names, tl_wgmma_names, tl_ptr_names, tl_sched_names;
/* tileops_ptr.c: whether v is the pointer type T.ptr (or what T.ptr(...) returned). */
bool val_is_ptr_type(const Value *v);
/* tileops_mma.c: the warp-level tensor-core primitives (T.ptx_mma, T.ptx_ldmatrix, ...). */
extern const TNames tl_mma_names, tl_intrinsics_names;
/* tileops_wmma.c: TVM's WMMA intrinsics (T.tvm_mma_sync, ...) and T.tvm_tuple; a WMMA
 * fragment buffer of scope "wmma.*" (T.alloc_buffer and friends, scope=). */
extern const TNames tl_wmma_names;
/* tileops_sparse.c: 2:4 sparse tensor cores (T.gemm_sp); T.gemm's policy= and
 * clear_accum= for it (tileops.c; the clear emitted before s when it is a run-time value). */
extern const TNames tl_sparse_names;
GemmPolicy gemm_policy_arg(Interp *in, Value *v, Loc loc);
void gemm_clear_arg(Interp *in, Stmt *s, Value *v, Loc loc);
Value *tl_wmma_alloc(Interp *in, Value *shape, Value *dtype, const char *scope, Loc loc,
                     const char *fname);
/* tileops_mem.c: a fresh var buffer of dtype declared here (the slot an atomic's previous
 * value or an extern call's result goes to), and the load of its element. */
Buffer *mem_result_slot(Interp *in, DType dtype, Loc loc);
Expr *mem_slot_load(Interp *in, Buffer *slot, Loc loc);
/* tileops_mem.c: the kernel's thread index x made (thread-level code: each thread makes
 * the call or atomic being built). */
void mem_thread_level(Interp *in);
Stmt *mem_rng_scope(Interp *in, Stmt *body);
Value *tl_named_barrier(Interp *in, CallArgs *a, void *arrive);
/* tileops_mem.c, after elaboration: the result slots of extern calls that nothing reads
 * are dropped (TileLang's examples give void functions a dtype). */
void mem_finish(Interp *in, Func *f);
/* tileops_mem.c: the memory_order= of an atomic (NULL: dflt), checked against the orders
 * `allowed` (a bit per MemOrder) with fname in the error. */
MemOrder mem_order_arg(Interp *in, Value *v, MemOrder dflt, unsigned allowed, Loc loc,
                       const char *fname);
/* The status of T.<name> in docs/language.md's table (tileops_lang.c), given the
 * default: "C, CUDA" or the "not yet" of a name that is a compile error. */
const char *tl_lang_status(const char *name, const char *dflt);
/* tileops_py.c: isinstance with its types (T.SharedBuffer, T.PrimExpr, ...). */
bool tl_py_isinstance(Interp *in, Value *v, const char *type, bool *known);
/* elaborate.c: a pass_configs dict (NULL or None: nothing) applied to f. */
void read_pass_configs(Interp *in, Func *f, Value *cfg, Loc loc);
Value *tl_lang_attr(Interp *in, const char *attr, Loc loc); /* tileops.c: T.<attr> */
/* builtins.c: a method of a kernel expression (astype), NULL if it has none by that name. */
Value *expr_method(Interp *in, Value *self, const char *attr);

/* Subscript a buffer: all scalar indices -> LOAD; any slice -> region. */
Value *buffer_subscript(Interp *in, Buffer *buf, Value *index, Loc loc);

/* views.c: T.reshape / T.view of shared, fragment and local buffers, resolved here. */
bool is_local_view(const Buffer *b);
Buffer *local_view(Interp *in, Buffer *base, int nd, Expr **dims, Loc loc, const char *fname);
Expr **local_view_index(Interp *in, const Buffer *v, Expr *const *idx, Loc loc);
Stmt *local_view_tile_ops(Interp *in, Stmt *s); /* emit_stmt: s, its tile ops staged */
void local_views_check(Func *f);                /* internal error: a view left in f */
/* subbyte.c, after elaboration: int4 / uint4 buffers become packed int8 / uint8 ones. */
void subbyte_pack(Ctx *ctx, Func *f);
/* A buffer, region or head-address load as a region; `like` (may be NULL) gives the
 * extents of a head address (trailing dims aligned). */
Region value_to_region(Interp *in, Value *v, const Region *like, Loc loc, const char *what);

/* elaborate.c: the parameter `name` of type `type` (a tensor type or a dtype), bound in
 * body_env; its symbolic sizes join f->syms. The value of define `name`, marked used, or
 * NULL when there is none. */
Param param_declare(Interp *in, Func *f, const char *name, Value *type, Loc loc, Env *body_env);
void param_add_sym(Interp *in, Func *f, Expr *e, const char *pname, Loc loc);
Value *eval_define_of(Interp *in, const char *name, Loc loc);

/* tileops.c: T.Tensor(shape, dtype) as a tensor type value; whether s is an identifier. */
Value *tensor_type_of(Interp *in, Value *shape, Value *dtype, Loc loc);
bool ident_ok(const char *s);

/* elaborate.c: runs a module's top level into globals; a failing statement defers its
 * error to the names it binds. main_file: -D NAME=VALUE replaces `NAME = ...`. */
void run_module(Interp *in, Env *globals, AstList *mod, bool main_file);
bool values_equal(Interp *in, Value *a, Value *b); /* eval.c: Python's == on meta values */

/* pyobjects.c (see there) */
void exec_class(Interp *in, Env *env, Ast *s);
Value *call_class(Interp *in, Value *cls, CallArgs *a);
Value *object_attr(Interp *in, Value *obj, const char *attr, Loc loc);
void object_set_attr(Interp *in, Value *obj, const char *attr, Value *v);
/* The module `dotted` (`from .{level} import`) as the file from_file would import it, or
 * NULL when no such file exists. */
Value *import_user_module(Interp *in, const char *from_file, const char *dotted, int level);
/* The module run from Python source text embedded in libtilec (pyobjects.c). */
Value *import_embedded_module(Interp *in, const char *name, const char *text);
/* tileops_mma.c: `attr` of TileLang's intrinsics module `path` (tilelang.cuda.intrinsics,
 * tilelang.intrinsics and their submodules) when tilec has it, else NULL. */
Value *tl_intrinsics_attr(Interp *in, const char *path, const char *attr);

/* capture.c: the kernel function of a tl_capture (funcs[0]); sets in->src and
 * in->literal_env. */
Value *capture_kernel(Interp *in, const struct tl_capture *cap);

/* eager.c (see there) */
bool eager_is_eager(const Function *f);
bool eager_is_runtime_param(const Function *f, const AstArg *p);
bool eager_signature_types(const Function *f, const AstArg *p); /* its annotation types it */
Value *t_const(Interp *in, CallArgs *a, void *d);
Value *t_empty(Interp *in, CallArgs *a, void *d);
bool eager_declare(Interp *in, Env *env, Ast *s);
void stop_if_typed(Interp *in);
void eager_finish(Interp *in, Func *f, Value *ret, Loc loc);
/* tileops.c: an error at loc unless inside a `with T.Kernel` block (what: the name). */
void need_kernel(Interp *in, Loc loc, const char *what);
/* tileops.c: need_kernel, for warp-collective code (T.ptx_mma, the WMMA intrinsics): the
 * block is whole warps and no T.Parallel loop is around it. */
void need_warps(Interp *in, Loc loc, const char *fname);
/* tileops.c: emits `name(args)` (STMT_EXTERN), once per warp when warp is set. */
void emit_runtime_call(Interp *in, const char *name, ExternArg *args, int n, bool warp, Loc loc);
void eager_sizes(Interp *in, Func *f, Program *p);

/* tileops_vec.c: vector dtypes (float16x2, ...) and values (V_VEC). The hooks the rest
 * of the front end calls: */
extern const TNames tl_vec_names;
/* "float16x2" -> float16, 2; false when name is no vector dtype. */
bool vec_dtype_parse(const char *name, DType *elem, int *lanes);
Value *vec_dtype_attr(Interp *in, const char *attr); /* T.float16x2, or NULL */
/* A dtype argument that may be a vector dtype: its element dtype, *lanes (0: scalar). */
DType vec_dtype_arg(Interp *in, Value *v, int *lanes, Loc loc, const char *what);
Value *vec_dtype_call(Interp *in, Value *dt, CallArgs *a); /* T.float16x2(a, b) */
/* T.cast(x, "float32x2"): vector x converted lane by lane, or a scalar in every lane. */
Value *vec_cast(Interp *in, Value *x, DType elem, int lanes, Loc loc);
/* v as a vector (a V_VEC, or a vector T.alloc_var's value), or NULL. */
Value *vec_value(Interp *in, Value *v, Loc loc);
Value *vec_binop(Interp *in, const char *op, Value *a, Value *b, Loc loc); /* NULL: no vector */
Value *vec_unary(Interp *in, const char *op, Value *v, Loc loc);           /* NULL: no vector */
Value *vec_subscript(Interp *in, Buffer *buf, Value *index, Loc loc);
void vec_store(Interp *in, Buffer *buf, Value *index, Value *v, Loc loc);
/* Binds a V_VEC to a name (each lane let-bound once); a vector alloc_var's name stores. */
bool vec_assign_name(Interp *in, Value *old, Value **v, const char *name, Loc loc);
/* T.reinterpret with a vector on either side, or NULL when neither is one. */
Value *vec_reinterpret(Interp *in, Value *value, Value *dtype, Loc loc);
Value *vec_alloc_var(Interp *in, DType elem, int lanes, Value *init, Loc loc);

/* arith.c: linear simplification (cancels (b+1)*k - b*k), used for slice extents. */
Expr *arith_simplify(Ctx *ctx, Expr *e);

#endif
