/* capture.c - a kernel captured from a running Python program (tl_compile_capture,
 * include/tilec.h). The Python package ran the factory; it gives libtilec the kernel
 * function and the functions it reaches, each as (file text, line, name) plus the values
 * of its free names as text. Here each function's `def` is found in its parsed file and
 * becomes a Function whose closure holds exactly those values, so the body elaborates as
 * if the factory had run in tilec's own evaluator. Nothing at a file's top level runs.
 *
 * Value texts are Python expressions evaluated in an environment with `T` and the forms
 * __module__, __func__, __obj__, __object__ and __opaque__ (see tilec.h). Objects are
 * evaluated once each (so `is` and `==` on an enum member hold) and may refer to each
 * other; functions are made before any value is evaluated, so they may too. */
#include "frontend/eval.h"

#include <string.h>
#include <tilec.h>

#define ARENA (&in->ctx->arena)

typedef struct CapFile {
    const char *name;
    const Source *src;
    AstList mod;
} CapFile;

typedef struct Capture {
    const tl_capture *cap;
    Value **funcs;
    Value **objs;  /* objects[i], once evaluated */
    bool *pending; /* objects[i] is being evaluated (a cycle) */
    Env *env;      /* where value texts are evaluated */
    Vec(CapFile) files;
} Capture;

/* ---- the special forms ------------------------------------------------------------------ */
static int64_t index_arg(Interp *in, CallArgs *a, const char *fname, int n) {
    Value *av[1];
    args_bind(in, a, fname, "i", av, 1);
    int64_t i = val_to_int(in, av[0], a->loc, "index");
    if (i < 0 || i >= n) ctx_fail(in->ctx, a->loc, "%s(%lld): out of range", fname, (long long)i);
    return i;
}

static Value *value_text(Interp *in, Capture *c, const char *text, const char *what);

static Value *cap_func(Interp *in, CallArgs *a, void *d) {
    Capture *c = d;
    return c->funcs[index_arg(in, a, "__func__", c->cap->nfuncs)];
}

static Value *cap_obj(Interp *in, CallArgs *a, void *d) {
    Capture *c = d;
    int64_t i = index_arg(in, a, "__obj__", c->cap->nobjects);
    if (c->objs[i]) return c->objs[i];
    if (c->pending[i])
        ctx_fail(in->ctx, a->loc,
                 "object %lld contains itself: an object that reaches a kernel "
                 "must not refer to itself",
                 (long long)i);
    c->pending[i] = true;
    Value *v = value_text(in, c, c->cap->objects[i],
                          arena_printf(ARENA, "object %lld", (long long)i));
    c->pending[i] = false;
    return c->objs[i] = v;
}

static Value *cap_object(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len != 1 || a->pos.data[0]->kind != V_STR)
        ctx_fail(in->ctx, a->loc, "__object__ takes the type's name, then attributes");
    Value *v = val_new(in, V_OBJECT);
    v->u.obj.type = a->pos.data[0]->u.s;
    v->u.obj.attrs = env_new(in, NULL);
    for (int i = 0; i < a->kw.len; i++) {
        Value *x = a->kw.data[i];
        if (!strcmp(a->names.data[i], "__class__") && x->kind == V_OBJECT)
            v->u.obj.of = x; /* its methods, bound to v when read */
        else env_set(in, v->u.obj.attrs, a->names.data[i], x);
    }
    return v;
}

static Value *cap_module(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len != 1 || a->pos.data[0]->kind != V_STR)
        ctx_fail(in->ctx, a->loc, "__module__ takes the module's name");
    Value *v = val_new(in, V_MODULE);
    v->u.s = a->pos.data[0]->u.s;
    return v;
}

static Value *cap_opaque(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len != 1 || a->pos.data[0]->kind != V_STR)
        ctx_fail(in->ctx, a->loc, "__opaque__ takes a message");
    Value *v = val_new(in, V_ERROR);
    v->u.error.use_msg = a->pos.data[0]->u.s;
    return v;
}

/* A call of a host helper that ran in Python: its result, for no arguments only. */
static Value *result_call(Interp *in, CallArgs *a, void *d) {
    Value *const *form = d; /* {name, result} */
    if (a->pos.len || a->kw.len)
        ctx_fail(in->ctx, a->loc,
                 "%s() ran once in Python, with no arguments (it uses torch or "
                 "the GPU, which the kernel's meta level cannot): call it without arguments",
                 form[0]->u.s);
    return form[1];
}

static Value *cap_result(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->pos.len != 2 || a->pos.data[0]->kind != V_STR)
        ctx_fail(in->ctx, a->loc, "__result__ takes the function's name and its result");
    Value **form = NEW_ARRAY(ARENA, Value *, 2);
    form[0] = a->pos.data[0], form[1] = a->pos.data[1];
    Builtin *b = NEW(ARENA, Builtin);
    *b = (Builtin){form[0]->u.s, result_call, form};
    Value *v = val_new(in, V_BUILTIN);
    v->u.builtin = b;
    return v;
}

static void bind_form(Interp *in, Capture *c, const char *name, BuiltinFn fn) {
    Builtin *b = NEW(ARENA, Builtin);
    *b = (Builtin){name, fn, c};
    Value *v = val_new(in, V_BUILTIN);
    v->u.builtin = b;
    env_set(in, c->env, name, v);
}

static Value *value_text(Interp *in, Capture *c, const char *text, const char *what) {
    if (!text) ctx_fail_noloc(in->ctx, "capture: %s has no value text", what);
    Source *src = NEW(ARENA, Source);
    src->name = arena_printf(ARENA, "<captured %s>", what);
    src->text = arena_strdup(ARENA, text);
    src->len = strlen(text);
    return eval_expr(in, c->env, parse_expression(in->ctx, src));
}

/* ---- finding a def -------------------------------------------------------------------- */
static bool def_at(const Ast *s, int line, const char *name) {
    if (s->kind != AST_DEF || strcmp(s->u.def.name, name)) return false;
    if (s->loc.line == line) return true;
    return s->u.def.decorators.len && s->u.def.decorators.data[0]->loc.line == line;
}

static Ast *find_def(const AstList *body, int line, const char *name) {
    for (int i = 0; i < body->len; i++) {
        Ast *s = body->data[i], *r = NULL;
        if (def_at(s, line, name)) return s;
        switch (s->kind) {
        case AST_DEF: r = find_def(&s->u.def.body, line, name); break;
        case AST_CLASS: r = find_def(&s->u.class_.body, line, name); break;
        case AST_IF:
        case AST_WHILE:
            r = find_def(&s->u.if_.body, line, name);
            if (!r) r = find_def(&s->u.if_.orelse, line, name);
            break;
        case AST_FOR:
            r = find_def(&s->u.for_.body, line, name);
            if (!r) r = find_def(&s->u.for_.orelse, line, name);
            break;
        case AST_WITH: r = find_def(&s->u.with.body, line, name); break;
        case AST_TRY: r = find_def(&s->u.body, line, name); break;
        default: break;
        }
        if (r) return r;
    }
    return NULL;
}

static CapFile *file_of(Interp *in, Capture *c, const tl_capture_func *f) {
    for (int i = 0; i < c->files.len; i++)
        if (!strcmp(c->files.data[i].name, f->filename)) return &c->files.data[i];
    Source *src = NEW(ARENA, Source);
    src->name = arena_strdup(ARENA, f->filename);
    src->text = arena_strdup(ARENA, f->source);
    src->len = strlen(src->text);
    CapFile cf = {src->name, src, parse_module(in->ctx, src)};
    VEC_PUSH(ARENA, c->files, cf);
    return &c->files.data[c->files.len - 1];
}

/* A def that Python ran but tilec cannot parse stands in its file as a statement that
 * failed: report that statement's error. */
static _Noreturn void def_missing(Interp *in, CapFile *cf, const tl_capture_func *f) {
    for (int i = 0; i < cf->mod.len; i++) {
        Ast *s = cf->mod.data[i];
        if (s->kind == AST_BAD_STMT && s->loc.line <= f->line) {
            bool last = true;
            for (int k = i + 1; k < cf->mod.len; k++) last &= cf->mod.data[k]->loc.line > f->line;
            if (!last) continue;
            sb_free(&in->ctx->err);
            sb_puts(&in->ctx->err, s->u.bad.error);
            longjmp(*in->ctx->on_error, 1);
        }
    }
    ctx_fail_noloc(in->ctx,
                   "%s:%d: no function '%s' there (was the file changed after Python "
                   "imported it?)",
                   f->filename, f->line, f->name);
}

static Value *make_func(Interp *in, Capture *c, const tl_capture_func *f) {
    if (!f->filename || !f->source || !f->name || f->nenv < 0 || f->ndefaults < 0 ||
        (f->nenv && !f->env) || (f->ndefaults && !f->defaults))
        ctx_fail_noloc(in->ctx, "capture: a function is missing its file, text or name");
    CapFile *cf = file_of(in, c, f);
    Ast *def = find_def(&cf->mod, f->line, f->name);
    if (!def) def_missing(in, cf, f);
    Function *fn = NEW(ARENA, Function);
    fn->def = def;
    fn->name = def->u.def.name;
    fn->closure = env_new(in, NULL);
    fn->is_prim_func = f->kind == TL_FUNC_PRIM;
    fn->is_macro = f->kind == TL_FUNC_MACRO;
    fn->jit.is_jit = f->kind == TL_FUNC_JIT;
    Value *v = val_new(in, V_FUNC);
    v->u.func = fn;
    return v;
}

static void fill_func(Interp *in, Capture *c, const tl_capture_func *f, Function *fn) {
    for (int i = 0; i < f->nenv; i++)
        env_set(in, fn->closure, f->env[i].name,
                value_text(in, c, f->env[i].value,
                           arena_printf(ARENA, "value of '%s' in %s", f->env[i].name, f->name)));
    if (!f->ndefaults) return;
    fn->defaults = env_new(in, NULL);
    for (int i = 0; i < f->ndefaults; i++)
        env_set(in, fn->defaults, f->defaults[i].name,
                value_text(in, c, f->defaults[i].value,
                           arena_printf(ARENA, "default of '%s' in %s", f->defaults[i].name,
                                        f->name)));
}

Value *capture_kernel(Interp *in, const tl_capture *cap) {
    if (cap->version < 1 || cap->version > TL_CAPTURE_VERSION)
        ctx_fail_noloc(in->ctx, "capture version %d; this libtilec reads versions 1 to %d",
                       cap->version, TL_CAPTURE_VERSION);
    if (cap->nfuncs < 1 || !cap->funcs || cap->nobjects < 0 || (cap->nobjects && !cap->objects))
        ctx_fail_noloc(in->ctx, "capture: no kernel function, or objects missing");
    Capture *c = NEW(ARENA, Capture);
    c->cap = cap;
    c->funcs = NEW_ARRAY(ARENA, Value *, cap->nfuncs);
    c->objs = NEW_ARRAY(ARENA, Value *, cap->nobjects + 1);
    c->pending = NEW_ARRAY(ARENA, bool, cap->nobjects + 1);
    c->env = env_new(in, NULL);
    Value *t = val_new(in, V_MODULE);
    t->u.s = "tilelang.language";
    env_set(in, c->env, "T", t);
    bind_form(in, c, "__func__", cap_func);
    bind_form(in, c, "__obj__", cap_obj);
    bind_form(in, c, "__object__", cap_object);
    bind_form(in, c, "__module__", cap_module);
    bind_form(in, c, "__opaque__", cap_opaque);
    bind_form(in, c, "__result__", cap_result);
    for (int i = 0; i < cap->nfuncs; i++) c->funcs[i] = make_func(in, c, &cap->funcs[i]);
    in->src = c->files.data[0].src;
    for (int i = 0; i < cap->nfuncs; i++) fill_func(in, c, &cap->funcs[i], c->funcs[i]->u.func);
    in->literal_env = c->env;
    return c->funcs[0];
}
