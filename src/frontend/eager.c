/* eager.c - eager-style kernels: TileLang's @tilelang.jit on a function whose body is the
 * kernel. Its parameters are compile-time values (factory arguments) except those the body
 * types with a bare annotation (`A: T.Tensor((M, K), dtype)`, `n: T.int32`) or the
 * signature types, which are the kernel's run-time parameters, in signature order; sizes
 * come from `T.const("M, N, K")`; `T.empty(shape, dtype)` makes an output, returned by
 * the call.
 *
 * As in TileLang, an eager kernel is elaborated in two phases (elaborate.c): the first
 * with each T.const size that no define gives as a symbol; the tensor parameters then tell
 * which dimension (or stride) of which tensor gives each size (eager_sizes); when the
 * caller knows the shapes of the call's tensors (ElabRequest.inputs), the second phase
 * runs with those sizes as defines, so the kernel is specialized to them. Without shapes
 * the sizes stay symbolic and are bound at launch, like T.dynamic ones. */
#include "frontend/eval.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

/* ---- which functions are eager ------------------------------------------------------ */
static bool is_t_call(const Ast *e, const char *attr) {
    if (!e || e->kind != AST_CALL) return false;
    const Ast *f = e->u.call.func;
    return f->kind == AST_ATTR && !strcmp(f->u.attr.attr, attr);
}

static bool block_is_eager(const AstList *body);

static bool stmt_is_eager(const Ast *s) {
    switch (s->kind) {
    case AST_WITH:
        for (int i = 0; i < s->u.with.items.len; i++)
            if (is_t_call(s->u.with.items.data[i], "Kernel")) return true;
        return block_is_eager(&s->u.with.body);
    case AST_ASSIGN:
        return is_t_call(s->u.assign.value, "const") || is_t_call(s->u.assign.value, "empty");
    case AST_IF:
    case AST_WHILE: return block_is_eager(&s->u.if_.body) || block_is_eager(&s->u.if_.orelse);
    case AST_FOR: return block_is_eager(&s->u.for_.body);
    default: return false;
    }
}

static bool block_is_eager(const AstList *body) {
    for (int i = 0; i < body->len; i++)
        if (stmt_is_eager(body->data[i])) return true;
    return false;
}

bool eager_is_eager(const Function *f) {
    return f->jit.is_jit && f->def->kind == AST_DEF && block_is_eager(&f->def->u.def.body);
}

/* Names the body gives a bare annotation (`A: T.Tensor(...)`), outside nested defs. */
static bool block_annotates(const AstList *body, const char *name) {
    for (int i = 0; i < body->len; i++) {
        const Ast *s = body->data[i];
        if (s->kind == AST_ANNASSIGN && !s->u.annassign.value &&
            s->u.annassign.target->kind == AST_NAME && !strcmp(s->u.annassign.target->u.name, name))
            return true;
        if ((s->kind == AST_IF || s->kind == AST_WHILE) &&
            (block_annotates(&s->u.if_.body, name) || block_annotates(&s->u.if_.orelse, name)))
            return true;
        if (s->kind == AST_WITH && block_annotates(&s->u.with.body, name)) return true;
    }
    return false;
}

/* A signature annotation makes a run-time parameter when it is TileLang's (T.Tensor(...),
 * T.int32), not a Python type hint (int, float, T.dtype, a config class). */
static bool tilelang_annotation(const Ast *a) {
    if (!a || a->kind == AST_NAME) return false;
    if (a->kind == AST_ATTR) return strcmp(a->u.attr.attr, "dtype") != 0;
    return true;
}

bool eager_signature_types(const Function *f, const AstArg *p) {
    return tilelang_annotation(p->annotation) && !block_annotates(&f->def->u.def.body, p->name);
}

bool eager_is_runtime_param(const Function *f, const AstArg *p) {
    return tilelang_annotation(p->annotation) || block_annotates(&f->def->u.def.body, p->name);
}

/* ---- T.const and T.empty ------------------------------------------------------------ */
static EagerArg *find_arg(Eager *E, const char *name) {
    for (int i = 0; i < E->args.len; i++)
        if (!strcmp(E->args.data[i].name, name)) return &E->args.data[i];
    return NULL;
}

/* One size: its define if there is one (-D M=1024, kernel.compile(M=1024)), else a symbol. */
static Value *const_size(Interp *in, const char *name, DType dt, Loc loc) {
    Value *v = eval_define_of(in, name, loc);
    if (v) {
        int64_t c;
        if (!val_is_const_int(v, &c))
            ctx_fail(in->ctx, loc, "T.const size '%s' was given %s; it must be an integer", name,
                     val_describe(in, v));
        return val_int(in, c);
    }
    for (int i = 0; i < in->eager->consts.len; i++)
        if (!strcmp(in->eager->consts.data[i]->name, name))
            ctx_fail(in->ctx, loc, "T.const size '%s' is declared twice", name);
    Var *var = ir_var(in->ctx, name, dt);
    VEC_PUSH(ARENA, in->eager->consts, var);
    return val_expr(in, ir_varref(in->ctx, var, loc));
}

/* T.const("M, N, K") / T.const("M N") / T.const("M"): one size or a tuple of them. */
Value *t_const(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.const", "name, dtype=", av, 2);
    if (!in->eager)
        ctx_fail(in->ctx, a->loc,
                 "T.const declares the sizes of an eager-style kernel (a @tilelang.jit "
                 "function whose body is the kernel); in a @T.prim_func use T.dynamic");
    if (av[0]->kind != V_STR) ctx_fail(in->ctx, a->loc, "T.const: the names must be a string");
    DType dt = av[1] ? val_to_dtype(in, av[1], a->loc, "dtype") : DT_INT32;
    if (!dtype_is_int(dt)) ctx_fail(in->ctx, a->loc, "T.const: the dtype must be an integer type");
    Value *tup = val_new(in, V_TUPLE);
    const char *p = av[0]->u.s;
    bool several = strchr(p, ',') || strchr(p, ' ');
    while (*p) {
        size_t n = strcspn(p, ", \t");
        if (n) {
            const char *name = arena_strndup(ARENA, p, n);
            if (!ident_ok(name)) ctx_fail(in->ctx, a->loc, "T.const: '%s' is not a name", name);
            VEC_PUSH(ARENA, tup->u.items, const_size(in, name, dt, a->loc));
        }
        p += n;
        p += strspn(p, ", \t");
    }
    if (!tup->u.items.len) ctx_fail(in->ctx, a->loc, "T.const: no names given");
    return several ? tup : tup->u.items.data[0];
}

/* T.empty(shape, dtype=float32): an output tensor, allocated by the runtime. */
Value *t_empty(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[2];
    args_bind(in, a, "T.empty", "shape, dtype=", av, 2);
    if (!in->eager)
        ctx_fail(in->ctx, a->loc,
                 "T.empty makes the output of an eager-style kernel (a @tilelang.jit function "
                 "whose body is the kernel); a @T.prim_func names its outputs with out_idx");
    if (in->in_kernel) ctx_fail(in->ctx, a->loc, "T.empty must be called outside 'with T.Kernel'");
    Value *tt = tensor_type_of(in, av[0], av[1], a->loc);
    Buffer *b = ir_buffer(in->ctx, arena_printf(ARENA, "__tmp%d", in->ctx->next_id),
                          tt->u.tensor->dtype, SCOPE_GLOBAL, tt->u.tensor->ndim, a->loc);
    for (int i = 0; i < b->ndim; i++) b->shape[i] = tt->u.tensor->shape[i];
    VEC_PUSH(ARENA, in->eager->outputs, b);
    Value *v = val_new(in, V_BUFFER);
    v->u.buf = b;
    return v;
}

/* The first phase with the call's shapes known needs only the parameters' types: once
 * all are typed, the body stops as a `return` would (so that what follows, e.g. a fragment
 * shaped by a T.const size, runs only in the second phase, with constants). */
void stop_if_typed(Interp *in) {
    Eager *E = in->eager;
    if (!E->stop_when_typed) return;
    for (int i = 0; i < E->args.len; i++)
        if (!E->args.data[i].declared) return;
    E->stopped = true;
    in->flow = FLOW_RETURN;
    in->retval = NULL;
}

/* `A: T.Tensor((M, K), dtype)` in an eager body: declares the run-time parameter A. */
bool eager_declare(Interp *in, Env *env, Ast *s) {
    Ast *t = s->u.annassign.target;
    if (!in->eager || s->u.annassign.value || t->kind != AST_NAME) return false;
    EagerArg *arg = find_arg(in->eager, t->u.name);
    if (!arg) return false;
    if (arg->declared) ctx_fail(in->ctx, s->loc, "parameter '%s' is annotated twice", arg->name);
    if (in->in_kernel)
        ctx_fail(in->ctx, s->loc, "annotate parameter '%s' outside 'with T.Kernel'", arg->name);
    Value *type = eval_expr(in, env, s->u.annassign.annotation);
    arg->param = param_declare(in, in->func, arg->name, type, s->loc, env);
    arg->declared = true;
    stop_if_typed(in);
    return true;
}

/* ---- after the body: parameters, outputs, sizes -------------------------------------- */
static bool is_output(Eager *E, const Buffer *b) {
    for (int i = 0; i < E->outputs.len; i++)
        if (E->outputs.data[i] == b) return true;
    return false;
}

/* The outputs in the order the function returns them (then any it does not return). */
static void order_outputs(Interp *in, Eager *E, Value *ret, Loc loc) {
    if (!ret || ret->kind == V_NONE) return;
    ValueList items = {0};
    if (ret->kind == V_TUPLE || ret->kind == V_LIST) items = ret->u.items;
    else VEC_PUSH(ARENA, items, ret);
    Vec(Buffer *) order = {0};
    for (int i = 0; i < items.len; i++) {
        Value *v = items.data[i];
        if (v->kind != V_BUFFER || !is_output(E, v->u.buf))
            ctx_fail(in->ctx, loc,
                     "an eager-style kernel returns the tensors it made with T.empty; this "
                     "one returns %s",
                     val_describe(in, v));
        VEC_PUSH(ARENA, order, v->u.buf);
    }
    for (int i = 0; i < E->outputs.len; i++) {
        bool listed = false;
        for (int k = 0; k < order.len; k++) listed |= order.data[k] == E->outputs.data[i];
        if (!listed) VEC_PUSH(ARENA, order, E->outputs.data[i]);
    }
    for (int i = 0; i < order.len; i++) E->outputs.data[i] = order.data[i];
}

void eager_finish(Interp *in, Func *f, Value *ret, Loc loc) {
    Eager *E = in->eager;
    if (E->stopped) ret = NULL; /* the first phase: the outputs do not matter yet */
    for (int i = 0; i < E->args.len; i++)
        if (!E->args.data[i].declared)
            ctx_fail(in->ctx, E->args.data[i].loc,
                     "parameter '%s' is never given a type: annotate it in the body "
                     "('%s: T.Tensor((M, N), dtype)')",
                     E->args.data[i].name, E->args.data[i].name);
    order_outputs(in, E, ret, loc);
    f->params.len = 0;
    for (int i = 0; i < E->args.len; i++) VEC_PUSH(ARENA, f->params, E->args.data[i].param);
    for (int i = 0; i < E->outputs.len; i++) {
        Buffer *b = E->outputs.data[i];
        Param p = {.name = b->name, .buf = b, .is_output = true};
        for (int d = 0; d < b->ndim; d++) param_add_sym(in, f, b->shape[d], b->name, b->loc);
        VEC_PUSH(ARENA, f->params, p);
    }
}

/* Where each symbolic T.const size is read: the first tensor dimension (or stride) that
 * is exactly it. TileLang's rule: a size must appear bare in some shape or stride. */
void eager_sizes(Interp *in, Func *f, Program *p) {
    Eager *E = in->eager;
    for (int c = 0; c < E->consts.len; c++) {
        Var *v = E->consts.data[c];
        EagerSize sz = {.name = v->name, .param = -1};
        for (int i = 0; i < f->params.len && sz.param < 0; i++) {
            Buffer *b = f->params.data[i].buf;
            if (!b || f->params.data[i].is_output) continue;
            for (int d = 0; d < b->ndim && sz.param < 0; d++) {
                if (b->shape[d]->kind == EXPR_VAR && b->shape[d]->u.var == v)
                    sz = (EagerSize){v->name, i, d, false};
                else if (b->strides && b->strides[d]->kind == EXPR_VAR && b->strides[d]->u.var == v)
                    sz = (EagerSize){v->name, i, d, true};
            }
        }
        if (sz.param < 0)
            ctx_fail(in->ctx, f->loc,
                     "T.const size '%s' is not the whole of any input tensor's dimension or "
                     "stride, so no call can give it: use it bare in a shape (not only in "
                     "'%s * 2'), or give it a value",
                     v->name, v->name);
        VEC_PUSH(ARENA, p->sizes, sz);
    }
}
