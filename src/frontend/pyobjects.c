/* pyobjects.c - the meta level's classes, objects and user modules, for the command line
 * and the C API (from Python, the package's capture brings these as plain objects).
 *
 * A class is a V_OBJECT whose attrs are its body's names and whose cls says how calling
 * it makes an instance: a dataclass (or any class with annotated fields and no __init__)
 * binds the call's arguments to its fields; a class with __init__ runs it on the new
 * instance (`self.x = ...` sets attributes); an Enum's members are objects with `name`
 * and `value`, made once, so `is` and `==` hold and `Color(1)` finds a member. Methods
 * read through an instance are bound to it.
 *
 * A user module (`from .common import *`, `import pkg.helpers as h`) is a .py file found
 * beside the importing file or under its package root; its top level runs once (failing
 * statements defer their error to whoever uses their names, as in the kernel file) and it
 * becomes a V_OBJECT whose attrs are its globals. */
#include "frontend/eval.h"

#include <string.h>
#include <sys/stat.h>

#define ARENA (&in->ctx->arena)

struct ClassInfo {
    const char *name;
    bool is_enum;
    Vec(const char *) fields; /* annotated names, in order (dataclass fields) */
    Env *attrs;
};

static Value *object_new(Interp *in, const char *type, Env *parent) {
    Value *v = val_new(in, V_OBJECT);
    v->u.obj.type = type;
    v->u.obj.attrs = env_new(in, parent);
    return v;
}

static Value *own_attr(Env *e, const char *attr) {
    for (int i = e->vars.len - 1; i >= 0; i--)
        if (!strcmp(e->vars.data[i].name, attr)) return e->vars.data[i].value;
    return NULL;
}

/* ---- class statements ------------------------------------------------------------------ */
static bool base_is_enum(Env *env, Ast *b) {
    const char *name = b->kind == AST_NAME ? b->u.name : b->kind == AST_ATTR ? b->u.attr.attr : "";
    if (strstr(name, "Enum") || !strcmp(name, "Flag") || !strcmp(name, "IntFlag")) return true;
    Value *v = b->kind == AST_NAME ? env_get(env, b->u.name) : NULL;
    return v && v->kind == V_OBJECT && v->u.obj.cls && v->u.obj.cls->is_enum;
}

static void collect_fields(Interp *in, struct ClassInfo *ci, const Ast *s) {
    if (s->kind == AST_ANNASSIGN && s->u.annassign.target->kind == AST_NAME)
        VEC_PUSH(ARENA, ci->fields, s->u.annassign.target->u.name);
}

/* An Enum's names become members (objects with name and value), in place. */
static void make_members(Interp *in, Value *cls) {
    Env *attrs = cls->u.obj.attrs;
    for (int i = 0; i < attrs->vars.len; i++) {
        Binding *b = &attrs->vars.data[i];
        if (b->name[0] == '_' || b->value->kind == V_FUNC) continue;
        Value *m = object_new(in, cls->u.obj.cls->name, NULL);
        env_set(in, m->u.obj.attrs, "name", val_str(in, b->name));
        env_set(in, m->u.obj.attrs, "value", b->value);
        b->value = m;
    }
}

void exec_class(Interp *in, Env *env, Ast *s) {
    struct ClassInfo *ci = NEW(ARENA, struct ClassInfo);
    ci->name = s->u.class_.name;
    for (int i = 0; i < s->u.class_.bases.len; i++) {
        Ast *b = s->u.class_.bases.data[i];
        ci->is_enum |= base_is_enum(env, b);
        Value *bv = b->kind == AST_NAME ? env_get(env, b->u.name) : NULL;
        if (bv && bv->kind == V_OBJECT && bv->u.obj.cls) /* fields and attrs of a base */
            for (int k = 0; k < bv->u.obj.cls->fields.len; k++)
                VEC_PUSH(ARENA, ci->fields, bv->u.obj.cls->fields.data[k]);
    }
    Value *cls = object_new(in, arena_printf(ARENA, "class %s", ci->name), env);
    cls->u.obj.cls = ci;
    ci->attrs = cls->u.obj.attrs;
    for (int i = 0; i < s->u.class_.body.len; i++) collect_fields(in, ci, s->u.class_.body.data[i]);
    exec_block(in, cls->u.obj.attrs, &s->u.class_.body);
    in->flow = FLOW_NORMAL;
    if (ci->is_enum) make_members(in, cls);
    env_set(in, env, ci->name, cls);
}

/* ---- calling a class -------------------------------------------------------------------- */
static Value *enum_lookup(Interp *in, Value *cls, CallArgs *a) {
    if (a->pos.len != 1 || a->kw.len)
        ctx_fail(in->ctx, a->loc, "%s() takes one value", cls->u.obj.cls->name);
    Env *attrs = cls->u.obj.attrs;
    for (int i = 0; i < attrs->vars.len; i++) {
        Value *m = attrs->vars.data[i].value;
        Value *mv = m->kind == V_OBJECT ? env_get(m->u.obj.attrs, "value") : NULL;
        if (mv && values_equal(in, mv, a->pos.data[0])) return m;
    }
    ctx_fail(in->ctx, a->loc, "%s is not a valid %s", val_describe(in, a->pos.data[0]),
             cls->u.obj.cls->name);
}

static void bind_fields(Interp *in, Value *cls, Value *obj, CallArgs *a) {
    struct ClassInfo *ci = cls->u.obj.cls;
    if (a->pos.len > ci->fields.len)
        ctx_fail(in->ctx, a->loc, "%s() takes %d positional arguments but %d were given", ci->name,
                 ci->fields.len, a->pos.len);
    for (int k = 0; k < a->kw.len; k++) {
        bool known = false;
        for (int f = 0; f < ci->fields.len; f++)
            known |= !strcmp(ci->fields.data[f], a->names.data[k]);
        if (!known)
            ctx_fail(in->ctx, a->loc, "%s() got an unexpected keyword argument '%s'", ci->name,
                     a->names.data[k]);
    }
    for (int f = 0; f < ci->fields.len; f++) {
        const char *name = ci->fields.data[f];
        Value *v = f < a->pos.len ? a->pos.data[f] : NULL;
        for (int k = 0; k < a->kw.len; k++)
            if (!strcmp(a->names.data[k], name)) v = a->kw.data[k];
        if (!v) v = own_attr(ci->attrs, name);
        if (!v) ctx_fail(in->ctx, a->loc, "%s() missing required argument '%s'", ci->name, name);
        env_set(in, obj->u.obj.attrs, name, v);
    }
}

/* Calling a class value: an Enum lookup, or a new instance. */
Value *call_class(Interp *in, Value *cls, CallArgs *a) {
    struct ClassInfo *ci = cls->u.obj.cls;
    if (ci->is_enum) return enum_lookup(in, cls, a);
    Value *obj = object_new(in, ci->name, NULL);
    obj->u.obj.of = cls;
    Value *init = own_attr(ci->attrs, "__init__");
    if (init && init->kind == V_FUNC) {
        CallArgs with_self = *a;
        with_self.pos = (ValueList){0};
        VEC_PUSH(ARENA, with_self.pos, obj);
        for (int i = 0; i < a->pos.len; i++) VEC_PUSH(ARENA, with_self.pos, a->pos.data[i]);
        call_value(in, init, &with_self);
        return obj;
    }
    bind_fields(in, cls, obj, a);
    return obj;
}

/* ---- attributes -------------------------------------------------------------------------- */
typedef struct Bound {
    Value *func, *self;
} Bound;

static Value *call_bound(Interp *in, CallArgs *a, void *d) {
    Bound *b = d;
    CallArgs with_self = *a;
    with_self.pos = (ValueList){0};
    VEC_PUSH(ARENA, with_self.pos, b->self);
    for (int i = 0; i < a->pos.len; i++) VEC_PUSH(ARENA, with_self.pos, a->pos.data[i]);
    return call_value(in, b->func, &with_self);
}

/* obj.attr: its own attributes, then (an instance) its class's; a function found in the
 * class is bound to the instance. */
Value *object_attr(Interp *in, Value *obj, const char *attr, Loc loc) {
    Value *v = own_attr(obj->u.obj.attrs, attr);
    if (v) return v;
    v = obj->u.obj.of ? own_attr(obj->u.obj.of->u.obj.attrs, attr) : NULL;
    if (v && v->kind == V_FUNC) {
        Bound *b = NEW(ARENA, Bound);
        *b = (Bound){v, obj};
        Builtin *bi = NEW(ARENA, Builtin);
        *bi = (Builtin){arena_printf(ARENA, "%s.%s", obj->u.obj.type, attr), call_bound, b};
        Value *m = val_new(in, V_BUILTIN);
        m->u.builtin = bi;
        return m;
    }
    if (v) return v;
    ctx_fail(in->ctx, loc, "%s has no attribute '%s'", val_describe(in, obj), attr);
}

void object_set_attr(Interp *in, Value *obj, const char *attr, Value *v) {
    env_set(in, obj->u.obj.attrs, attr, v);
}

/* ---- user modules ---------------------------------------------------------------------- */
static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir of path ("" for none) */
static char *dir_of(Interp *in, const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? arena_strndup(ARENA, path, (size_t)(slash - path)) : arena_strdup(ARENA, ".");
}

/* root/a/b.py or root/a/b/__init__.py for dotted "a.b", or NULL. */
static const char *module_file(Interp *in, const char *root, const char *dotted) {
    char *rel = arena_strdup(ARENA, dotted);
    for (char *c = rel; *c; c++)
        if (*c == '.') *c = '/';
    const char *p = arena_printf(ARENA, "%s/%s.py", root, rel);
    if (is_file(p)) return p;
    p = arena_printf(ARENA, "%s/%s/__init__.py", root, rel);
    return is_file(p) ? p : NULL;
}

/* The file of `import dotted` (level 0) or `from .{level} import dotted`, or NULL. */
static const char *find_module(Interp *in, const char *from_file, const char *dotted, int level) {
    if (!from_file || from_file[0] == '<' || from_file[0] == '-') return NULL;
    char *dir = dir_of(in, from_file);
    if (level > 0) {
        for (int i = 1; i < level; i++) dir = dir_of(in, dir);
        if (!*dotted) {
            const char *p = arena_printf(ARENA, "%s/__init__.py", dir);
            return is_file(p) ? p : NULL;
        }
        return module_file(in, dir, dotted);
    }
    for (int up = 0; up < 16; up++) { /* the file's folder, then each package above it */
        const char *p = module_file(in, dir, dotted);
        if (p) return p;
        if (!is_file(arena_printf(ARENA, "%s/__init__.py", dir))) return NULL;
        dir = dir_of(in, dir);
    }
    return NULL;
}

static Value *known_module_at(Interp *in, const char *path) {
    for (int i = 0; i < in->modules.len; i++)
        if (!strcmp(in->modules.data[i].path, path)) return in->modules.data[i].module;
    if (in->modules.len >= 256) ctx_fail_noloc(in->ctx, "%s: more than 256 modules imported", path);
    return NULL;
}

static Value *run_module_source(Interp *in, Source *src, const char *dotted, Value *language);
static Value *tilelang_language(Interp *in);

Value *import_user_module(Interp *in, const char *from_file, const char *dotted, int level) {
    const char *path = find_module(in, from_file, dotted, level);
    if (!path) return NULL;
    Value *known = known_module_at(in, path);
    if (known) return known;
    Source *src = NEW(ARENA, Source);
    src->name = path;
    src->text = read_file_arena(ARENA, path, TL_MAX_SOURCE_BYTES, &src->len);
    if (!src->text) return NULL;
    return run_module_source(in, src, dotted, NULL);
}

/* A module of libtilec's own Python (python/tilec/compat/intrinsics/NAME.py, embedded at
 * build time), run once per compilation; name is its file name. */
Value *import_embedded_module(Interp *in, const char *name, const char *text) {
    const char *path = arena_printf(ARENA, "<tilec %s>", name);
    Value *known = known_module_at(in, path);
    if (known) return known;
    Source *src = NEW(ARENA, Source);
    src->name = path;
    src->text = text;
    src->len = strlen(text);
    return run_module_source(in, src, "", tilelang_language(in));
}

static Value *tilelang_language(Interp *in) {
    Value *t = val_new(in, V_MODULE);
    t->u.s = "tilelang.language";
    return t;
}

/* Runs src's top level as module `dotted` (its path when ""), registered first so that
 * an import cycle sees it; language (not NULL): bound to T first. */
static Value *run_module_source(Interp *in, Source *src, const char *dotted, Value *language) {
    const char *path = src->name;
    Value *m = object_new(in, arena_printf(ARENA, "module %s", *dotted ? dotted : path), NULL);
    if (language) env_set(in, m->u.obj.attrs, "T", language);
    UserModule um = {path, m};
    VEC_PUSH(ARENA, in->modules, um); /* before running it: an import cycle sees it */
    AstList mod = parse_module(in->ctx, src);
    Stmt *builder = in->builder;
    bool in_kernel = in->in_kernel;
    int depth = in->depth;
    in->builder = NULL;
    in->in_kernel = false;
    run_module(in, m->u.obj.attrs, &mod, false);
    in->builder = builder;
    in->in_kernel = in_kernel;
    in->depth = depth;
    return m;
}
