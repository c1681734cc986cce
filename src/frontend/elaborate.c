/* elaborate.c - from a kernel file to one Func: run the module's top level, pick the
 * kernel (factory or prim_func), bind the caller's defines, and elaborate the prim_func's
 * parameters and body into tile IR. */
#include "frontend/eval.h"
#include "ir/ir_walk.h"

#include <ctype.h>
#include <string.h>

/* ---- running the module's top level ---------------------------------------------------- */
typedef Vec(const char *) NameList;

static void collect_target_names(Interp *in, Ast *t, NameList *out) {
    if (t->kind == AST_NAME) VEC_PUSH(&in->ctx->arena, *out, t->u.name);
    if (t->kind == AST_TUPLE || t->kind == AST_LIST)
        for (int i = 0; i < t->u.elts.len; i++) collect_target_names(in, t->u.elts.data[i], out);
}

/* Names a top-level statement would bind: used to defer its error to whoever needs them. */
static void stmt_binds(Interp *in, Ast *s, NameList *out) {
    switch (s->kind) {
    case AST_ASSIGN:
        for (int i = 0; i < s->u.assign.targets.len; i++)
            collect_target_names(in, s->u.assign.targets.data[i], out);
        break;
    case AST_ANNASSIGN:
    case AST_AUGASSIGN:
        collect_target_names(in,
                             s->kind == AST_ANNASSIGN ? s->u.annassign.target
                                                      : s->u.augassign.target,
                             out);
        break;
    case AST_DEF: VEC_PUSH(&in->ctx->arena, *out, s->u.def.name); break;
    case AST_CLASS: VEC_PUSH(&in->ctx->arena, *out, s->u.class_.name); break;
    case AST_FOR: collect_target_names(in, s->u.for_.target, out); break;
    case AST_IMPORT:
    case AST_IMPORT_FROM:
        for (int i = 0; i < s->u.import.names.len; i++) {
            AstAlias *a = &s->u.import.names.data[i];
            const char *n = a->asname ? a->asname : a->name;
            const char *dot = s->kind == AST_IMPORT ? strchr(n, '.') : NULL;
            VEC_PUSH(&in->ctx->arena, *out,
                     dot ? arena_strndup(&in->ctx->arena, n, (size_t)(dot - n)) : n);
        }
        break;
    case AST_BAD_STMT:
        for (int i = 0; i < s->u.bad.binds.len; i++)
            VEC_PUSH(&in->ctx->arena, *out, s->u.bad.binds.data[i]);
        break;
    default: break;
    }
}

static int find_define(Interp *in, const char *name) {
    for (int i = 0; i < in->ndefs; i++)
        if (!strcmp(in->defs[i].name, name)) return i;
    return -1;
}

static Value *define_value(Interp *in, int i);

/* `NAME = ...` at module level is replaced by -D NAME=VALUE (direct-style kernels). */
static bool override_assignment(Interp *in, Ast *s) {
    if (s->kind != AST_ASSIGN || s->u.assign.targets.len != 1) return false;
    Ast *t = s->u.assign.targets.data[0];
    int d = t->kind == AST_NAME ? find_define(in, t->u.name) : -1;
    if (d < 0) return false;
    env_set(in, in->globals, t->u.name, define_value(in, d));
    in->def_used[d] = true;
    return true;
}

void run_module(Interp *in, Env *globals, AstList *mod, bool main_file) {
    Ctx *ctx = in->ctx;
    jmp_buf *outer = ctx->on_error;
    for (volatile int i = 0; i < mod->len; i++) {
        Ast *s = mod->data[i];
        if (main_file && override_assignment(in, s)) continue;
        jmp_buf jb;
        if (!setjmp(jb)) {
            ctx->on_error = &jb;
            in->flow = FLOW_NORMAL;
            AstList one = {&mod->data[i], 1, 1};
            exec_block(in, globals, &one);
        } else {
            /* this statement failed: its names carry the error to whoever uses them */
            NameList names = {0};
            stmt_binds(in, s, &names);
            for (int k = 0; k < names.len; k++) {
                Value *v = val_new(in, V_ERROR);
                v->u.error.text = arena_strdup(&ctx->arena, ctx->err.buf ? ctx->err.buf : "");
                v->u.error.loc = s->loc;
                env_set(in, globals, names.data[k], v);
            }
            sb_free(&ctx->err);
            in->builder = NULL;
            in->in_kernel = false;
            in->depth = 0;
        }
        ctx->on_error = outer;
        in->flow = FLOW_NORMAL;
    }
}

/* ---- defines ------------------------------------------------------------------------ */
static bool is_bare_word(const char *s) {
    if (!isalpha((unsigned char)*s) && *s != '_') return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.') return false;
    return true;
}

static Value *define_value(Interp *in, int i) {
    const char *text = in->defs[i].value;
    if (!in->literal_env && is_bare_word(text) && strcmp(text, "True") && strcmp(text, "False") &&
        strcmp(text, "None"))
        return val_str(in, text);
    Source *src = NEW(&in->ctx->arena, Source);
    src->name = arena_printf(&in->ctx->arena, "-D %s", in->defs[i].name);
    src->text = text;
    src->len = strlen(text);
    Ast *e = parse_expression(in->ctx, src);
    /* a capture's forms, else the file's names (-D cfg="Config(block=64)") */
    return eval_expr(in, in->literal_env ? in->literal_env : in->globals, e);
}

/* ---- choosing the kernel ------------------------------------------------------------- */
static bool body_defines_prim_func(Ast *def) {
    for (int i = 0; i < def->u.def.body.len; i++) {
        Ast *s = def->u.def.body.data[i];
        if (s->kind != AST_DEF) continue;
        for (int k = 0; k < s->u.def.decorators.len; k++) {
            Ast *d = s->u.def.decorators.data[k];
            if (d->kind == AST_CALL) d = d->u.call.func;
            if ((d->kind == AST_ATTR && !strcmp(d->u.attr.attr, "prim_func")) ||
                (d->kind == AST_NAME && !strcmp(d->u.name, "prim_func")))
                return true;
        }
    }
    return false;
}

static Value *pick_kernel(Interp *in, const char *factory) {
    Env *g = in->globals;
    if (factory) {
        Value *v = env_get(g, factory);
        if (!v)
            ctx_fail_noloc(in->ctx, "%s: no function named '%s' in this file", in->src->name,
                           factory);
        if (v->kind == V_ERROR) {
            sb_free(&in->ctx->err);
            sb_puts(&in->ctx->err, v->u.error.text);
            longjmp(*in->ctx->on_error, 1);
        }
        if (v->kind != V_FUNC)
            ctx_fail_noloc(in->ctx, "%s: '%s' is not a function", in->src->name, factory);
        return v;
    }
    Value *best = NULL;
    for (int i = 0; i < g->vars.len; i++) {
        Value *v = g->vars.data[i].value;
        if (v->kind == V_FUNC && v->u.func->def->kind == AST_DEF &&
            (v->u.func->jit.is_jit || v->u.func->is_prim_func))
            best = v;
    }
    if (best) return best;
    for (int i = 0; i < g->vars.len; i++) {
        Value *v = g->vars.data[i].value;
        if (v->kind == V_FUNC && v->u.func->def->kind == AST_DEF &&
            body_defines_prim_func(v->u.func->def))
            best = v;
    }
    if (best) return best;
    /* No usable kernel: a definition that failed (a syntax error in the kernel, say) is
     * the likely cause, so report that. */
    for (int i = 0; i < g->vars.len; i++) {
        Value *v = g->vars.data[i].value;
        if (v->kind == V_ERROR) {
            sb_free(&in->ctx->err);
            sb_puts(&in->ctx->err, v->u.error.text);
            longjmp(*in->ctx->on_error, 1);
        }
    }
    ctx_fail_noloc(in->ctx,
                   "%s: no kernel found: define a @T.prim_func, or a factory "
                   "function that returns one",
                   in->src->name);
}

Value *eval_define_of(Interp *in, const char *name, Loc loc) {
    (void)loc;
    int d = find_define(in, name);
    if (d < 0) return NULL;
    in->def_used[d] = true;
    return define_value(in, d);
}

/* A function's parameters that get no value (no define, no default), all in one error. */
static void check_missing(Interp *in, Function *f, bool (*skip)(const Function *, const AstArg *)) {
    StrBuf names = {0}, how = {0};
    int n = 0;
    AstArgList *params = &f->def->u.def.params;
    for (int i = 0; i < params->len; i++) {
        AstArg *p = &params->data[i];
        if (p->star || p->value || find_define(in, p->name) >= 0 || (skip && skip(f, p))) continue;
        sb_printf(&names, "%s%s", n ? ", " : "", p->name);
        sb_printf(&how, "%s-D %s=...", n ? " " : "", p->name);
        n++;
    }
    if (!n) return;
    char *msg = arena_printf(&in->ctx->arena,
                             "'%s' needs a value for %s %s, which %s no default: pass %s with %s",
                             f->name, n > 1 ? "its parameters" : "its parameter", names.buf,
                             n > 1 ? "have" : "has", n > 1 ? "them" : "it", how.buf);
    sb_free(&names);
    sb_free(&how);
    ctx_fail(in->ctx, f->def->loc, "%s", msg);
}

/* Calls the factory with the defines that name its parameters. */
static Value *call_factory(Interp *in, Value *fv) {
    Function *f = fv->u.func;
    check_missing(in, f, NULL);
    CallArgs args = {.loc = f->def->loc};
    AstArgList *params = &f->def->u.def.params;
    for (int i = 0; i < params->len; i++) {
        int d = find_define(in, params->data[i].name ? params->data[i].name : "");
        if (d < 0 || params->data[i].star) continue;
        VEC_PUSH(&in->ctx->arena, args.names, in->defs[d].name);
        VEC_PUSH(&in->ctx->arena, args.kw, define_value(in, d));
        in->def_used[d] = true;
    }
    Value *r = call_value(in, fv, &args);
    if (r->kind != V_FUNC || !r->u.func->is_prim_func)
        ctx_fail(in->ctx, f->def->loc, "the factory '%s' returned %s, not a @T.prim_func", f->name,
                 val_describe(in, r));
    return r;
}

/* ---- the prim_func ---------------------------------------------------------------------- */
typedef struct SymCollect {
    Interp *in;
    Func *f;
    const char *pname;
    Loc loc;
} SymCollect;

static void collect_syms(Expr **slot, void *ud) {
    SymCollect *c = ud;
    Expr *e = *slot;
    if (e->kind == EXPR_LOAD)
        ctx_fail(c->in->ctx, c->loc,
                 "a dimension of parameter '%s' reads memory; sizes are "
                 "integers, symbols and arithmetic on them",
                 c->pname);
    if (e->kind != EXPR_VAR) {
        ir_expr_children(e, collect_syms, ud);
        return;
    }
    for (int i = 0; i < c->f->syms.len; i++)
        if (c->f->syms.data[i] == e->u.var) return;
    VEC_PUSH(&c->in->ctx->arena, c->f->syms, e->u.var);
}

/* The symbols of a shape or stride: bare (`n`, bound from the tensor at launch) or inside
 * arithmetic (`n * cols`, checked at launch once another tensor binds them). */
void param_add_sym(Interp *in, Func *f, Expr *e, const char *pname, Loc loc) {
    int64_t c;
    if (ir_is_const_int(e, &c)) return;
    if (!dtype_is_int(e->dtype))
        ctx_fail(in->ctx, loc, "a dimension of parameter '%s' is not an integer", pname);
    SymCollect sc = {in, f, pname, loc};
    collect_syms(&e, &sc);
}

Param param_declare(Interp *in, Func *f, const char *name, Value *t, Loc loc, Env *body_env) {
    Param prm = {.name = name};
    if (t->kind == V_TENSOR_TYPE) {
        TensorType *tt = t->u.tensor;
        if (tt->scope)
            ctx_fail(in->ctx, loc,
                     "parameter '%s': a %s buffer type is for T.macro parameters; a kernel's "
                     "parameters are global tensors (T.Tensor)",
                     name, tt->scope);
        Buffer *b = ir_buffer(in->ctx, name, tt->dtype, SCOPE_GLOBAL, tt->ndim, loc);
        for (int d = 0; d < tt->ndim; d++) {
            b->shape[d] = tt->shape[d];
            param_add_sym(in, f, tt->shape[d], name, loc);
        }
        if (tt->strides) {
            b->strides = tt->strides;
            for (int d = 0; d < tt->ndim; d++) param_add_sym(in, f, tt->strides[d], name, loc);
        }
        prm.buf = b;
        Value *bv = val_new(in, V_BUFFER);
        bv->u.buf = b;
        env_set(in, body_env, name, bv);
    } else if (val_is_ptr_type(t)) {
        prm.scalar = ir_var(in->ctx, name, DT_INT64);
        prm.pointer = true;
        env_set(in, body_env, name, val_expr(in, ir_varref(in->ctx, prm.scalar, loc)));
    } else if (t->kind == V_DTYPE || t->kind == V_STR) {
        DType dt = val_to_dtype(in, t, loc, "parameter type");
        prm.scalar = ir_var(in->ctx, name, dt);
        env_set(in, body_env, name, val_expr(in, ir_varref(in->ctx, prm.scalar, loc)));
    } else {
        ctx_fail(in->ctx, loc, "parameter '%s': %s is not a tensor type or dtype", name,
                 val_describe(in, t));
    }
    return prm;
}

static void elaborate_params(Interp *in, Function *pf, Func *f, Env *body_env) {
    AstArgList *params = &pf->def->u.def.params;
    for (int i = 0; i < params->len; i++) {
        AstArg *p = &params->data[i];
        if (p->star) ctx_fail(in->ctx, p->loc, "*args and **kwargs are not allowed in a prim_func");
        if (!p->annotation)
            ctx_fail(in->ctx, p->loc,
                     "parameter '%s' needs a type: T.Tensor((M, N), dtype) or a "
                     "scalar dtype such as T.int32",
                     p->name);
        Value *t = eval_expr(in, pf->closure, p->annotation);
        VEC_PUSH(&in->ctx->arena, f->params, param_declare(in, f, p->name, t, p->loc, body_env));
    }
}

/* ---- eager style (eager.c) ---------------------------------------------------------------- */
/* Binds an eager function's compile-time parameters (defines, else defaults) and notes its
 * run-time ones, which its body declares. */
static Env *eager_begin(Interp *in, Function *fn, Func *f, bool first_phase) {
    check_missing(in, fn, eager_is_runtime_param);
    Env *scope = env_new(in, fn->closure);
    Eager *E = NEW(&in->ctx->arena, Eager);
    E->stop_when_typed = first_phase;
    AstArgList *params = &fn->def->u.def.params;
    for (int i = 0; i < params->len; i++) {
        AstArg *p = &params->data[i];
        if (p->star) ctx_fail(in->ctx, p->loc, "*args and **kwargs are not allowed in a kernel");
        if (!eager_is_runtime_param(fn, p)) {
            Value *v = eval_define_of(in, p->name, p->loc);
            env_set(in, scope, p->name, v ? v : eval_expr(in, fn->closure, p->value));
            continue;
        }
        if (find_define(in, p->name) >= 0)
            ctx_fail_noloc(in->ctx,
                           "-D %s: '%s' is a tensor parameter of '%s'; its sizes come "
                           "from T.const names",
                           p->name, p->name, fn->name);
        EagerArg a = {.name = p->name, .loc = p->loc};
        VEC_PUSH(&in->ctx->arena, E->args, a);
        Value *err = val_new(in, V_ERROR);
        err->u.error.use_msg = arena_printf(&in->ctx->arena,
                                            "'%s' is used before its annotation gives its type",
                                            p->name);
        err->u.error.note = arena_printf(&in->ctx->arena, "the parameter '%s'", p->name);
        err->u.error.loc = p->loc;
        env_set(in, scope, p->name, err);
    }
    in->eager = E;
    for (int i = 0; i < E->args.len; i++) { /* types in the signature come first */
        AstArg *p = NULL;
        for (int k = 0; k < params->len; k++)
            if (!strcmp(params->data[k].name, E->args.data[i].name)) p = &params->data[k];
        if (!eager_signature_types(fn, p)) continue;
        Value *t = eval_expr(in, fn->closure, p->annotation);
        E->args.data[i].param = param_declare(in, f, p->name, t, p->loc, scope);
        E->args.data[i].declared = true;
    }
    return scope;
}

/* first_phase: the call's shapes are known and will be elaborated again with the sizes
 * they give; stop once the parameters are typed (p->first_phase). */
static void elaborate_eager(Interp *in, Function *fn, Func *f, Program *p, bool first_phase) {
    f->body = ir_seq(in->ctx, fn->def->loc);
    in->builder = f->body;
    in->func = f;
    Env *scope = eager_begin(in, fn, f, first_phase);
    stop_if_typed(in); /* the signature typed them all */
    if (in->flow == FLOW_NORMAL) exec_block(in, scope, &fn->def->u.def.body);
    p->first_phase = in->eager->stopped;
    Value *ret = in->flow == FLOW_RETURN ? in->retval : NULL;
    in->builder = NULL;
    in->flow = FLOW_NORMAL;
    eager_finish(in, f, ret, fn->def->loc);
    eager_sizes(in, f, p);
    in->eager = NULL;
}

static void mark_outputs(Interp *in, Func *f, Value *out_idx, const int *ovr, int novr, Loc loc) {
    int n = f->params.len;
    int idx[64], k = 0;
    if (ovr) {
        for (int i = 0; i < novr && k < 64; i++) idx[k++] = ovr[i];
    } else if (out_idx) {
        if (out_idx->kind == V_LIST || out_idx->kind == V_TUPLE) {
            for (int i = 0; i < out_idx->u.items.len && k < 64; i++)
                idx[k++] = (int)val_to_int(in, out_idx->u.items.data[i], loc, "out_idx");
        } else if (out_idx->kind != V_NONE) {
            idx[k++] = (int)val_to_int(in, out_idx, loc, "out_idx");
        }
    }
    for (int i = 0; i < k; i++) {
        int j = idx[i] < 0 ? idx[i] + n : idx[i];
        if (j < 0 || j >= n)
            ctx_fail(in->ctx, loc, "out_idx %d is out of range: the kernel has %d parameters",
                     idx[i], n);
        if (!f->params.data[j].buf)
            ctx_fail(in->ctx, loc,
                     "out_idx %d names the scalar parameter '%s'; outputs must be "
                     "tensors",
                     idx[i], f->params.data[j].name);
        f->params.data[j].is_output = true;
    }
}

/* The key of a pass_configs entry: a string, or TileLang's PassConfigKey member (an
 * opaque path "tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED"), as "tl.<name>". */
static const char *config_key(Interp *in, Value *k) {
    if (k->kind != V_STR && k->kind != V_MODULE && k->kind != V_OPAQUE) return NULL;
    /* a string is a key ("tl.disable_tma_lower") or a member's name ("TIR_SIMPLIFY", as
     * the Python layer passes PassConfigKey members); a path ends in the member */
    const char *dot = k->kind == V_STR ? NULL : strrchr(k->u.s, '.');
    const char *name = dot ? dot + 1 : k->u.s;
    if (pass_config_member_key(name)) return pass_config_member_key(name);
    if (k->kind == V_STR && strncmp(name, "TL_", 3)) return name;
    if (strncmp(name, "TL_", 3)) return NULL;
    char *key = arena_printf(&in->ctx->arena, "tl.%s", name + 3);
    for (char *c = key; *c; c++) *c = (char)tolower((unsigned char)*c);
    return key;
}

/* @tilelang.jit(pass_configs={...}) or T.annotate_pass_configs({...}): each entry's
 * meaning is pass_configs.c's. */
void read_pass_configs(Interp *in, Func *f, Value *cfg, Loc loc) {
    if (!cfg || cfg->kind == V_NONE) return;
    if (cfg->kind != V_DICT)
        ctx_fail(in->ctx, loc, "pass_configs must be a dict, got %s", val_describe(in, cfg));
    for (int i = 0; i < cfg->u.dict.keys.len; i++) {
        const char *key = config_key(in, cfg->u.dict.keys.data[i]);
        if (!key)
            ctx_fail(in->ctx, loc, "pass_configs: key %s is not a string",
                     val_describe(in, cfg->u.dict.keys.data[i]));
        pass_config_apply(in->ctx, f, key, val_truthy(in, cfg->u.dict.values.data[i], loc), loc);
    }
}

/* Only launches and what they share may stand outside `with T.Kernel`. */
static void check_top_level(Interp *in, Func *f, Loc loc) {
    int kernels = 0;
    StmtList *seq = &f->body->u.seq;
    for (int i = 0; i < seq->len; i++) {
        Stmt *s = seq->data[i];
        if (s->kind == STMT_KERNEL) kernels++;
        else if (s->kind != STMT_LET &&
                 !(s->kind == STMT_ALLOC && s->u.alloc.buf->scope == SCOPE_GLOBAL))
            ctx_fail(in->ctx, s->loc, "this statement must be inside a 'with T.Kernel(...)' block");
    }
    if (!kernels)
        ctx_fail(in->ctx, loc,
                 "the prim_func '%s' launches no kernel: add a 'with T.Kernel(...)' "
                 "block",
                 f->name);
}

static void check_defines_used(Interp *in, Func *f, const char *factory_name) {
    for (int i = 0; i < in->ndefs; i++) {
        if (in->def_used[i]) continue;
        bool is_sym = false;
        for (int k = 0; k < f->syms.len; k++)
            is_sym |= !strcmp(f->syms.data[k]->name, in->defs[i].name);
        if (is_sym) continue;
        if (factory_name)
            ctx_fail_noloc(in->ctx, "-D %s: the factory '%s' has no parameter '%s'",
                           in->defs[i].name, factory_name, in->defs[i].name);
        ctx_fail_noloc(in->ctx,
                       "-D %s: the file has no module-level constant or T.dynamic size "
                       "named '%s'",
                       in->defs[i].name, in->defs[i].name);
    }
}

/* The caller's pass configs (tl_options.pass_configs) as a dict, or NULL. */
static Value *request_configs(Interp *in, const ElabRequest *rq) {
    if (!rq->nconfigs) return NULL;
    Value *d = val_new(in, V_DICT);
    Env *env = in->literal_env ? in->literal_env : env_new(in, NULL);
    for (int i = 0; i < rq->nconfigs; i++) {
        Source *src = NEW(&in->ctx->arena, Source);
        src->name = arena_printf(&in->ctx->arena, "pass_configs[%s]", rq->configs[i].name);
        src->text = rq->configs[i].value;
        src->len = strlen(src->text);
        VEC_PUSH(&in->ctx->arena, d->u.dict.keys, val_str(in, rq->configs[i].name));
        VEC_PUSH(&in->ctx->arena, d->u.dict.values,
                 eval_expr(in, env, parse_expression(in->ctx, src)));
    }
    return d;
}

/* One elaboration; an eager kernel's symbolic T.const sizes are left in p->sizes. */
static Program *elaborate_once(Ctx *ctx, const Source *src, const ElabRequest *rq) {
    for (int i = 0; i < rq->ndefs; i++)
        if (!rq->defs[i].name || !*rq->defs[i].name || !rq->defs[i].value)
            ctx_fail_noloc(ctx, "-D needs NAME=VALUE");
    Interp *in = NEW(&ctx->arena, Interp);
    in->ctx = ctx;
    in->src = src;
    in->globals = env_new(in, NULL);
    in->builtins = env_new(in, NULL);
    in->defs = rq->defs;
    in->ndefs = rq->ndefs;
    in->def_used = NEW_ARRAY(&ctx->arena, bool, rq->ndefs + 1);
    builtins_install(in);
    Value *k;
    if (rq->capture) {
        k = capture_kernel(in, rq->capture);
    } else {
        AstList mod = parse_module(ctx, src);
        run_module(in, in->globals, &mod, true);
        k = pick_kernel(in, rq->factory);
    }
    Program *p = NEW(&ctx->arena, Program);
    Func *f = NEW(&ctx->arena, Func);
    f->name = rq->capture && rq->factory ? rq->factory : k->u.func->name;
    JitInfo *jit = &k->u.func->jit;
    if (eager_is_eager(k->u.func)) {
        f->loc = k->u.func->def->loc;
        elaborate_eager(in, k->u.func, f, p, rq->ninputs > 0);
        if (p->first_phase) {
            p->func = f;
            return p;
        }
    } else {
        Value *pfv = k->u.func->is_prim_func ? k : call_factory(in, k);
        Function *pf = pfv->u.func;
        f->loc = pf->def->loc;
        Env *body_env = env_new(in, pf->closure);
        elaborate_params(in, pf, f, body_env);
        f->body = ir_seq(ctx, pf->def->loc);
        in->builder = f->body;
        in->func = f;
        exec_block(in, body_env, &pf->def->u.def.body);
        in->builder = NULL;
        in->flow = FLOW_NORMAL;
        if (!jit->is_jit) jit = &pf->jit;
        mark_outputs(in, f, jit->out_idx, rq->out_idx, rq->nout_idx, k->u.func->def->loc);
    }
    check_top_level(in, f, f->loc);
    local_views_check(f);
    mem_finish(in, f);
    subbyte_pack(ctx, f);
    read_pass_configs(in, f, jit->pass_configs, k->u.func->def->loc);
    read_pass_configs(in, f, request_configs(in, rq), k->u.func->def->loc);
    check_defines_used(in, f, k->u.func->is_prim_func ? NULL : k->u.func->name);
    p->func = f;
    return p;
}

/* The input that gives parameter i (by name, else the n-th tensor input in order). */
static const ArgShape *input_for(const ElabRequest *rq, const Func *f, int i) {
    int nth = 0;
    for (int k = 0; k < i; k++) nth += f->params.data[k].buf && !f->params.data[k].is_output;
    for (int k = 0; k < rq->ninputs; k++)
        if (rq->inputs[k].name && !strcmp(rq->inputs[k].name, f->params.data[i].name))
            return &rq->inputs[k];
    return nth < rq->ninputs && !rq->inputs[nth].name ? &rq->inputs[nth] : NULL;
}

/* The defines that give each symbolic T.const size its value from the call's tensors;
 * every dimension a size names must agree. */
static Define *sizes_from_inputs(Ctx *ctx, const ElabRequest *rq, Program *p, int *ndefs) {
    Func *f = p->func;
    Define *defs = NEW_ARRAY(&ctx->arena, Define, rq->ndefs + p->sizes.len + 1);
    if (rq->ndefs) memcpy(defs, rq->defs, sizeof *defs * (size_t)rq->ndefs);
    *ndefs = rq->ndefs;
    for (int s = 0; s < p->sizes.len; s++) {
        EagerSize *sz = &p->sizes.data[s];
        const Param *prm = &f->params.data[sz->param];
        const ArgShape *a = input_for(rq, f, sz->param);
        if (!a)
            ctx_fail(ctx, f->loc,
                     "T.const size '%s' needs the tensor '%s' or a value "
                     "(-D %s=...)",
                     sz->name, prm->name, sz->name);
        if (a->ndim != prm->buf->ndim)
            ctx_fail(ctx, prm->buf->loc,
                     "'%s' has %d dimensions, but the tensor given for it "
                     "has %d",
                     prm->name, prm->buf->ndim, a->ndim);
        int64_t v = sz->stride ? (a->strides ? a->strides[sz->dim] : 1) : a->shape[sz->dim];
        if (sz->stride && !a->strides)
            for (int d = sz->dim + 1; d < a->ndim; d++) v *= a->shape[d];
        bool nibbles = prm->buf->dtype == DT_INT4 || prm->buf->dtype == DT_UINT4;
        if (nibbles && (sz->stride ? sz->dim < a->ndim - 1 : sz->dim == a->ndim - 1))
            v *= 2; /* a 4-bit tensor comes as bytes of two elements (subbyte.c) */
        defs[(*ndefs)++] = (Define){sz->name, arena_printf(&ctx->arena, "%lld", (long long)v)};
    }
    return defs;
}

/* The call's tensors against the specialized parameters: a size that two tensors give
 * differently is an error here rather than at launch. */
static void check_inputs(Ctx *ctx, const ElabRequest *rq, const Func *f) {
    for (int i = 0; i < f->params.len; i++) {
        const Param *prm = &f->params.data[i];
        const ArgShape *a = prm->buf && !prm->is_output ? input_for(rq, f, i) : NULL;
        if (!a) continue;
        if (a->ndim != prm->buf->ndim)
            ctx_fail(ctx, prm->buf->loc,
                     "'%s' has %d dimensions, but the tensor given for it "
                     "has %d",
                     prm->name, prm->buf->ndim, a->ndim);
        for (int d = 0; d < a->ndim; d++) {
            int64_t c;
            if (ir_is_const_int(prm->buf->shape[d], &c) && c != a->shape[d])
                ctx_fail(ctx, prm->buf->loc,
                         "'%s' has size %lld in dimension %d, but the "
                         "tensor given for it has %lld",
                         prm->name, (long long)c, d, (long long)a->shape[d]);
        }
    }
}

Program *elaborate_request(Ctx *ctx, const Source *src, const ElabRequest *rq) {
    Program *p = elaborate_once(ctx, src, rq);
    if (!p->first_phase && (!p->sizes.len || !rq->ninputs)) return p;
    ElabRequest second = *rq;
    second.defs = sizes_from_inputs(ctx, rq, p, &second.ndefs);
    second.inputs = NULL;
    second.ninputs = 0;
    p = elaborate_once(ctx, src, &second);
    check_inputs(ctx, rq, p->func);
    return p;
}

Program *elaborate(Ctx *ctx, const Source *src, const char *factory, const Define *defs, int ndefs,
                   const int *ovr, int novr) {
    ElabRequest rq = {.factory = factory,
                      .defs = defs,
                      .ndefs = ndefs,
                      .out_idx = ovr,
                      .nout_idx = novr};
    return elaborate_request(ctx, src, &rq);
}
