/* elaborate.c - from a kernel file to one Func: run the module's top level, pick the
 * kernel (factory or prim_func), bind the caller's defines, and elaborate the prim_func's
 * parameters and body into tile IR. */
#include "eval.h"

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
        collect_target_names(
            in, s->kind == AST_ANNASSIGN ? s->u.annassign.target : s->u.augassign.target, out);
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

static void run_module(Interp *in, AstList *mod) {
    Ctx *ctx = in->ctx;
    jmp_buf *outer = ctx->on_error;
    for (volatile int i = 0; i < mod->len; i++) {
        Ast *s = mod->data[i];
        if (override_assignment(in, s)) continue;
        jmp_buf jb;
        if (!setjmp(jb)) {
            ctx->on_error = &jb;
            in->flow = FLOW_NORMAL;
            AstList one = {&mod->data[i], 1, 1};
            exec_block(in, in->globals, &one);
        } else {
            /* this statement failed: its names carry the error to whoever uses them */
            NameList names = {0};
            stmt_binds(in, s, &names);
            for (int k = 0; k < names.len; k++) {
                Value *v = val_new(in, V_ERROR);
                v->u.error.text = arena_strdup(&ctx->arena, ctx->err.buf ? ctx->err.buf : "");
                v->u.error.loc = s->loc;
                env_set(in, in->globals, names.data[k], v);
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
    if (is_bare_word(text) && strcmp(text, "True") && strcmp(text, "False") && strcmp(text, "None"))
        return val_str(in, text);
    Source *src = NEW(&in->ctx->arena, Source);
    src->name = arena_printf(&in->ctx->arena, "-D %s", in->defs[i].name);
    src->text = text;
    src->len = strlen(text);
    Ast *e = parse_expression(in->ctx, src);
    return eval_expr(in, env_new(in, NULL), e);
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

/* Calls the factory with the defines that name its parameters. */
static Value *call_factory(Interp *in, Value *fv) {
    Function *f = fv->u.func;
    for (int i = 0; i < f->def->u.def.params.len; i++)
        if (f->def->u.def.params.data[i].annotation)
            ctx_fail(in->ctx, f->def->u.def.params.data[i].loc,
                     "'%s' looks like an eager-style kernel (typed parameters, T.const sizes), "
                     "which tilec does not support yet: write a factory that returns a "
                     "@T.prim_func",
                     f->name);
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
static void add_sym(Interp *in, Func *f, Expr *e, const char *pname, Loc loc) {
    int64_t c;
    if (ir_is_const_int(e, &c)) return;
    if (e->kind != EXPR_VAR)
        ctx_fail(in->ctx, loc,
                 "each dimension of parameter '%s' must be an integer or a "
                 "T.dynamic symbol",
                 pname);
    for (int i = 0; i < f->syms.len; i++)
        if (f->syms.data[i] == e->u.var) return;
    VEC_PUSH(&in->ctx->arena, f->syms, e->u.var);
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
        Param prm = {.name = p->name};
        if (t->kind == V_TENSOR_TYPE) {
            TensorType *tt = t->u.tensor;
            Buffer *b = ir_buffer(in->ctx, p->name, tt->dtype, SCOPE_GLOBAL, tt->ndim, p->loc);
            for (int d = 0; d < tt->ndim; d++) {
                b->shape[d] = tt->shape[d];
                add_sym(in, f, tt->shape[d], p->name, p->loc);
            }
            if (tt->strides) {
                b->strides = tt->strides;
                for (int d = 0; d < tt->ndim; d++) add_sym(in, f, tt->strides[d], p->name, p->loc);
            }
            prm.buf = b;
            Value *bv = val_new(in, V_BUFFER);
            bv->u.buf = b;
            env_set(in, body_env, p->name, bv);
        } else if (t->kind == V_DTYPE || t->kind == V_STR) {
            DType dt = val_to_dtype(in, t, p->loc, "parameter type");
            prm.scalar = ir_var(in->ctx, p->name, dt);
            env_set(in, body_env, p->name, val_expr(in, ir_varref(in->ctx, prm.scalar, p->loc)));
        } else {
            ctx_fail(in->ctx, p->annotation->loc,
                     "parameter '%s': %s is not a tensor type or dtype", p->name,
                     val_describe(in, t));
        }
        VEC_PUSH(&in->ctx->arena, f->params, prm);
    }
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
    if (k->kind == V_STR) return k->u.s;
    if (k->kind != V_MODULE && k->kind != V_OPAQUE) return NULL;
    const char *dot = strrchr(k->u.s, '.'), *name = dot ? dot + 1 : k->u.s;
    if (pass_config_member_key(name)) return pass_config_member_key(name);
    if (strncmp(name, "TL_", 3)) return NULL;
    char *key = arena_printf(&in->ctx->arena, "tl.%s", name + 3);
    for (char *c = key; *c; c++) *c = (char)tolower((unsigned char)*c);
    return key;
}

/* @tilelang.jit(pass_configs={...}): each entry's meaning is pass_configs.c's. */
static void read_pass_configs(Interp *in, Func *f, Value *cfg, Loc loc) {
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
        if (s->kind == STMT_KERNEL)
            kernels++;
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

Program *elaborate(Ctx *ctx, const Source *src, const char *factory, const Define *defs, int ndefs,
                   const int *ovr, int novr) {
    for (int i = 0; i < ndefs; i++)
        if (!defs[i].name || !*defs[i].name || !defs[i].value)
            ctx_fail_noloc(ctx, "-D needs NAME=VALUE");
    AstList mod = parse_module(ctx, src);
    Interp *in = NEW(&ctx->arena, Interp);
    in->ctx = ctx;
    in->src = src;
    in->globals = env_new(in, NULL);
    in->builtins = env_new(in, NULL);
    in->defs = defs;
    in->ndefs = ndefs;
    in->def_used = NEW_ARRAY(&ctx->arena, bool, ndefs + 1);
    builtins_install(in);
    run_module(in, &mod);

    Value *k = pick_kernel(in, factory);
    Value *pfv = k->u.func->is_prim_func ? k : call_factory(in, k);
    Function *pf = pfv->u.func;
    Func *f = NEW(&ctx->arena, Func);
    f->name = k->u.func->name;
    f->loc = pf->def->loc;
    Env *body_env = env_new(in, pf->closure);
    elaborate_params(in, pf, f, body_env);
    f->body = ir_seq(ctx, pf->def->loc);
    in->builder = f->body;
    in->func = f;
    exec_block(in, body_env, &pf->def->u.def.body);
    in->builder = NULL;
    in->flow = FLOW_NORMAL;
    check_top_level(in, f, pf->def->loc);
    JitInfo *jit = k->u.func->jit.is_jit ? &k->u.func->jit : &pf->jit;
    mark_outputs(in, f, jit->out_idx, ovr, novr, k->u.func->def->loc);
    read_pass_configs(in, f, jit->pass_configs, k->u.func->def->loc);
    check_defines_used(in, f, k == pfv ? NULL : k->u.func->name);
    Program *p = NEW(&ctx->arena, Program);
    p->func = f;
    return p;
}
