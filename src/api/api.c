/* api.c - the public C API (include/tilec.h): compile, introspect, launch, cache.
 *
 * A tl_kernel owns its compilation context (the arena holding the Func, the IR text, the
 * generated source and the parameter descriptions) and the loaded module;
 * tl_kernel_destroy frees both. The only mutable global state is per-thread (the last
 * error and the strings tl_info/tl_cache_dir return), so threads may compile and launch
 * at once. User errors unwind to here through ctx_fail and become a tl_status plus the
 * text tl_last_error() returns. */
#include "frontend/frontend.h"
#include "ir/work.h"
#include "passes/passes.h"
#include "rt/rt.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tl_kernel {
    Ctx ctx;
    const Target *target;
    Func *func;
    Work *work; /* FLOPs model, taken before lowering */
    const char *ir, *source, *warnings;
    tl_param_info *params;
    void *module;         /* NULL when compiled with build = 0 or TL_BUILD_ONLY */
    int build;            /* tl_options.build */
    const char *fallback; /* compiled again with the target's fallback: its note */
    Options opts;         /* the settings options_fill made, before the kernel's pass_configs */
    const tl_capture *capture; /* tl_compile_capture's, during the compile */
    /* A kernel whose lowering assumed symbolic sizes aligned (Func.sym_multiple): its
     * variant without the assumption, for launches whose sizes break it; NULL when the
     * assumption changed nothing. `is_general`: this kernel is such a variant. */
    struct tl_kernel *general;
    bool is_general;
};

/* ---- per-thread strings -------------------------------------------------------------- */
typedef struct ThreadStrings {
    StrBuf err, info, dir;
} ThreadStrings;

static pthread_key_t strings_key;
static pthread_once_t strings_once = PTHREAD_ONCE_INIT;

static void strings_destroy(void *p) {
    ThreadStrings *ts = p;
    sb_free(&ts->err);
    sb_free(&ts->info);
    sb_free(&ts->dir);
    free(ts);
}

static void strings_key_init(void) {
    TL_ASSERT(!pthread_key_create(&strings_key, strings_destroy));
}

static ThreadStrings *thread_strings(void) {
    pthread_once(&strings_once, strings_key_init);
    ThreadStrings *ts = pthread_getspecific(strings_key);
    if (!ts) {
        ts = calloc(1, sizeof *ts);
        TL_ASSERT(ts);
        sb_puts(&ts->err, "");
        pthread_setspecific(strings_key, ts);
    }
    return ts;
}

/* Records text verbatim as the last error (program errors come formatted). */
static tl_status fail_text(tl_status st, const char *text) {
    StrBuf *e = &thread_strings()->err;
    e->len = 0;
    sb_puts(e, text);
    while (e->len && e->buf[e->len - 1] == '\n') e->buf[--e->len] = 0;
    return st;
}

static tl_status fail(tl_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static tl_status fail(tl_status st, const char *fmt, ...) {
    StrBuf msg = {0};
    va_list ap;
    va_start(ap, fmt);
    sb_puts(&msg, "error: ");
    sb_vprintf(&msg, fmt, ap);
    va_end(ap);
    fail_text(st, msg.buf);
    sb_free(&msg);
    return st;
}

const char *tl_last_error(void) { return thread_strings()->err.buf; }
const char *tl_version(void) { return TILEC_VERSION; }

tl_options tl_options_default(void) {
    tl_options o = {0};
    o.use_cache = 1;
    o.build = 1;
    return o;
}

/* ---- choosing a target ---------------------------------------------------------------- */
/* The targets come from the table (targets/target.h); none is named here. */
static tl_status target_pick(const char *name, int build, const Target **out) {
    StrBuf why = {0};
    bool automatic = !name || !*name || !strcmp(name, "auto");
    *out = automatic ? target_auto() : target_find(name);
    if (!*out) {
        StrBuf valid = {0};
        sb_puts(&valid, "auto");
        for (int i = 0; target_at(i); i++) sb_printf(&valid, ", %s", target_at(i)->name);
        tl_status st = fail(TL_ERROR_ARGUMENT, "unknown target '%s' (valid targets: %s)", name,
                            valid.buf);
        sb_free(&valid);
        return st;
    }
    name = (*out)->name;
    if (build == TL_BUILD_LOAD && !(*out)->available(&why)) {
        tl_status st = fail(TL_ERROR_TOOLCHAIN, "the '%s' target cannot build kernels here: %s",
                            name, why.buf ? why.buf : "unknown reason");
        sb_free(&why);
        return st;
    }
    sb_free(&why);
    return TL_OK;
}

/* ---- compiling ------------------------------------------------------------------------ */
static void params_describe(tl_kernel *k) {
    Arena *a = &k->ctx.arena;
    const Func *f = k->func;
    k->params = NEW_ARRAY(a, tl_param_info, f->params.len ? f->params.len : 1);
    for (int i = 0; i < f->params.len; i++) {
        const Param *p = &f->params.data[i];
        tl_param_info *pi = &k->params[i];
        DType dt = p->buf ? p->buf->dtype : p->scalar->dtype;
        pi->name = p->name;
        dtype_to_dlpack(dt, &pi->dtype.code, &pi->dtype.bits);
        pi->dtype.lanes = 1;
        pi->is_output = p->is_output;
        pi->is_scalar = p->scalar != NULL;
        pi->is_pointer = p->pointer;
        pi->ndim = p->buf ? p->buf->ndim : 0;
        int64_t *shape = NEW_ARRAY(a, int64_t, pi->ndim + 1);
        const char **names = NEW_ARRAY(a, const char *, pi->ndim + 1);
        for (int d = 0; d < pi->ndim; d++) {
            if (ir_is_const_int(p->buf->shape[d], &shape[d])) continue;
            StrBuf s = {0};
            ir_print_expr(&s, p->buf->shape[d]);
            shape[d] = -1;
            names[d] = arena_strdup(a, s.buf);
            sb_free(&s);
        }
        pi->shape = shape;
        pi->shape_names = names;
    }
}

/* The passes to dump the IR after (the setting print_after: tl_options.print_after, else
 * the setting or $TILEC_PRINT_AFTER); NULL: none. */
static const char *print_after_passes(const Options *o) {
    return o->print_after[0] ? o->print_after : NULL;
}

/* Front end, lowering and code generation; user errors ctx_fail out of here. */
static void compile_to_source(tl_kernel *k, const Source *src, const tl_options *o) {
    Ctx *ctx = &k->ctx;
    Define *defs = NEW_ARRAY(&ctx->arena, Define, o->ndefines + 1);
    for (int i = 0; i < o->ndefines; i++)
        defs[i] = (Define){o->defines[i].name, o->defines[i].value};
    Define *configs = NEW_ARRAY(&ctx->arena, Define, o->npass_configs + 1);
    for (int i = 0; i < o->npass_configs; i++)
        configs[i] = (Define){o->pass_configs[i].name, o->pass_configs[i].value};
    ArgShape *inputs = NEW_ARRAY(&ctx->arena, ArgShape, o->ninputs + 1);
    for (int i = 0; i < o->ninputs; i++) {
        const DLTensor *t = o->inputs[i];
        inputs[i] = (ArgShape){o->input_names ? o->input_names[i] : NULL, t->ndim, t->shape,
                               t->strides};
    }
    ElabRequest rq = {.factory = o->factory,
                      .defs = defs,
                      .ndefs = o->ndefines,
                      .out_idx = o->out_idx,
                      .nout_idx = o->nout_idx,
                      .inputs = inputs,
                      .ninputs = o->ninputs,
                      .capture = k->capture,
                      .configs = configs,
                      .nconfigs = o->npass_configs};
    ctx->opts = k->opts; /* the front end adds the pass_configs */
    if (k->fallback) k->target->fallback(&ctx->opts);
    if (k->is_general) ctx->opts.no_assume_aligned = true;
    Program *p = elaborate_request(ctx, src, &rq);
    k->func = p->func;
    StrBuf sb = {0};
    if (k->fallback) sb_printf(&sb, "note: %s\n", k->fallback);
    for (int i = 0; i < p->warnings.len; i++) sb_printf(&sb, "%s\n", p->warnings.data[i]);
    k->warnings = arena_strdup(&ctx->arena, sb.buf ? sb.buf : "");
    sb.len = 0;
    ir_print_func(&sb, k->func);
    k->ir = arena_strdup(&ctx->arena, sb.buf ? sb.buf : "");
    sb_free(&sb);
    params_describe(k);
    k->work = work_model(ctx, k->func);
    PassHook *hook = NEW(&ctx->arena, PassHook);
    *hook = (PassHook){.print_after = print_after_passes(&ctx->opts),
                       .print_path = o->print_after_path,
                       .label = k->target->name};
    ctx->passes = hook;
    k->target->lower(ctx, k->func);
    ctx->passes = NULL;
    if (k->func->remarks.len) {
        StrBuf w = {0};
        sb_puts(&w, k->warnings);
        for (int i = 0; i < k->func->remarks.len; i++)
            sb_printf(&w, "%s\n", k->func->remarks.data[i]);
        k->warnings = arena_strdup(&ctx->arena, w.buf);
        sb_free(&w);
    }
    k->source = k->target->emit(ctx, k->func);
}

/* Builds (through the cache) and, unless o->build is TL_BUILD_ONLY, loads and binds. */
static tl_status kernel_build(tl_kernel *k, const tl_options *o) {
    StrBuf dir = {0}, err = {0};
    int cached = !cache_disabled(o->use_cache);
    if (cached) cache_dir_resolve(o->cache_dir, &dir);
    const char *d = cached ? dir.buf : NULL;
    StrBuf warn = {0};
    tl_status st = o->build == TL_BUILD_ONLY
                       ? cache_build(k->target, &k->ctx.opts, k->source, d, &warn, &err)
                       : cache_load_or_build(k->target, &k->ctx.opts, k->source, d, &k->module,
                                             &warn, &err);
    if (warn.len) { /* a bad cache entry was rebuilt */
        k->warnings = arena_printf(&k->ctx.arena, "%s%s", k->warnings, warn.buf);
        sb_free(&warn);
    }
    if (st != TL_OK) fail(st, "%s", err.buf ? err.buf : "build failed");
    else if (k->module && k->target->bind) k->target->bind(k->module, k->func);
    sb_free(&dir);
    sb_free(&err);
    return st;
}

/* The setting fault (TILEC_FAULT) internal|oom: an internal error / out of memory at the
 * start of a compilation, to test that they come back as TL_ERROR_INTERNAL
 * (docs/testing.md). */
static void injected_fault(const Options *o) {
    if (!strcmp(o->fault, "internal")) TL_ASSERT(!"TILEC_FAULT=internal");
    if (!strcmp(o->fault, "oom")) tl_internal_error(__FILE__, __LINE__, "out of memory");
}

/* compile_to_source, its user errors turned into a status; an internal error (or out of
 * memory) anywhere below unwinds here too (ctx_guard) and gives TL_ERROR_INTERNAL. */
static tl_status lower_source(tl_kernel *k, const Source *src, const tl_options *o) {
    jmp_buf jb;
    Ctx *outer = ctx_guard(&k->ctx);
    if (CTX_TRY(&k->ctx, &jb)) {
        k->ctx.on_error = NULL;
        ctx_guard(outer);
        return fail_text(k->ctx.internal ? TL_ERROR_INTERNAL : TL_ERROR_PROGRAM,
                         k->ctx.err.buf ? k->ctx.err.buf : "error");
    }
    injected_fault(&k->opts);
    compile_to_source(k, src, o);
    k->ctx.on_error = NULL;
    ctx_guard(outer);
    return TL_OK;
}

/* kernel_build under the same guard: its internal errors give TL_ERROR_INTERNAL. */
static tl_status guarded_build(tl_kernel *k, const tl_options *o) {
    jmp_buf jb;
    Ctx *outer = ctx_guard(&k->ctx);
    volatile tl_status st = TL_ERROR_INTERNAL;
    if (CTX_TRY(&k->ctx, &jb)) {
        fail_text(TL_ERROR_INTERNAL, k->ctx.err.buf ? k->ctx.err.buf : "internal error");
    } else {
        st = kernel_build(k, o);
    }
    k->ctx.on_error = NULL;
    ctx_guard(outer);
    return st;
}

/* print_after names passes of the target and print_after_path can be written. */
static tl_status check_print_after(const tl_kernel *k, const tl_options *o) {
    const Target *t = k->target;
    const char *list = print_after_passes(&k->opts);
    if (!list) return TL_OK;
    StrBuf why = {0};
    tl_status st = TL_OK;
    if (!pass_list_valid(t, list, &why)) {
        st = fail(TL_ERROR_ARGUMENT, "print_after%s: %s",
                  o->print_after ? "" : " (setting print_after or TILEC_PRINT_AFTER)", why.buf);
    } else if (o->print_after_path) {
        int fd = open(o->print_after_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            st = fail(TL_ERROR_IO, "print_after_path: cannot write %s: %s", o->print_after_path,
                      strerror(errno));
        else close(fd);
    }
    sb_free(&why);
    return st;
}

static tl_status compile_into(tl_kernel *k, const Source *src, const tl_options *o);
static tl_status compile_general(tl_kernel *k, const Source *src, const tl_options *o);

/* Builds lowered k, first its general variant when it needs one (compile_general), then
 * k; once more with the target's fallback when its retry policy says so. */
static tl_status build_retrying(tl_kernel *k, const Source *src, const tl_options *o) {
    tl_status st = TL_OK;
    if (k->func->sym_multiple && !k->general && !k->is_general && o->build == TL_BUILD_LOAD)
        st = compile_general(k, src, o);
    if (st != TL_OK) return st;
    st = guarded_build(k, o);
    const char *note = st != TL_OK && !k->fallback && k->target->retry
                           ? k->target->retry(k->func, tl_last_error())
                           : NULL;
    if (!note) return st;
    k->fallback = note; /* the target's retry policy */
    st = lower_source(k, src, o);
    return st == TL_OK ? build_retrying(k, src, o) : st;
}

/* k->general: k compiled again without the alignment assumption (the setting
 * no_assume_aligned), kept only when its source differs from k's. */
static tl_status compile_general(tl_kernel *k, const Source *src, const tl_options *o) {
    tl_kernel *g = calloc(1, sizeof *g);
    if (!g) return fail(TL_ERROR_INTERNAL, "out of memory");
    g->is_general = true;
    g->capture = k->capture;
    tl_options lower_only = *o;
    lower_only.build = TL_BUILD_NONE;
    tl_status st = compile_into(g, src, &lower_only);
    if (st == TL_OK && strcmp(g->source, k->source) != 0) {
        g->build = o->build;
        st = build_retrying(g, src, o);
    } else if (st == TL_OK) { /* the same code: no variant, nothing to check at launch */
        k->func->sym_multiple = NULL;
        tl_kernel_destroy(g), g = NULL;
    }
    if (st != TL_OK) tl_kernel_destroy(g), g = NULL;
    if (g) g->capture = NULL; /* the caller's, valid during the compile only */
    k->general = g;
    return st;
}

static tl_status compile_into(tl_kernel *k, const Source *src, const tl_options *o) {
    if (o->build != TL_BUILD_NONE && o->build != TL_BUILD_LOAD && o->build != TL_BUILD_ONLY)
        return fail(TL_ERROR_ARGUMENT,
                    "options.build is %d; expected 0 (no build), 1 (build "
                    "and load) or 2 (TL_BUILD_ONLY)",
                    o->build);
    k->build = o->build;
    tl_status st = target_pick(o->target, o->build, &k->target);
    if (st != TL_OK) return st;
    StrBuf why = {0};
    if (options_fill(&k->opts, o, k->target->arch, &why)) {
        st = fail(TL_ERROR_ARGUMENT, "%s", why.buf);
        sb_free(&why);
        return st;
    }
    if (o->ndefines && !o->defines)
        return fail(TL_ERROR_ARGUMENT, "ndefines > 0 but defines "
                                       "is NULL");
    if (o->npass_configs < 0 || (o->npass_configs && !o->pass_configs))
        return fail(TL_ERROR_ARGUMENT, "npass_configs is %d but pass_configs is %s",
                    o->npass_configs, o->pass_configs ? "set" : "NULL");
    for (int i = 0; i < o->npass_configs; i++)
        if (!o->pass_configs[i].name || !o->pass_configs[i].value)
            return fail(TL_ERROR_ARGUMENT, "pass_configs[%d] needs a name and a value", i);
    if (o->ninputs < 0 || (o->ninputs && !o->inputs))
        return fail(TL_ERROR_ARGUMENT, "ninputs is %d but inputs is %s", o->ninputs,
                    o->inputs ? "set" : "NULL");
    for (int i = 0; i < o->ninputs; i++)
        if (!o->inputs[i] || o->inputs[i]->ndim < 0 || (o->inputs[i]->ndim && !o->inputs[i]->shape))
            return fail(TL_ERROR_ARGUMENT, "inputs[%d] is not a tensor with a shape", i);
    if ((st = check_print_after(k, o)) != TL_OK) return st;
    st = lower_source(k, src, o);
    if (st != TL_OK || o->build == TL_BUILD_NONE) return st;
    return build_retrying(k, src, o);
}

static tl_status compile_common(tl_kernel *k, const Source *src, const tl_options *opt,
                                tl_kernel **out) {
    tl_options o = opt ? *opt : tl_options_default();
    tl_status st = compile_into(k, src, &o);
    if (st != TL_OK) {
        tl_kernel_destroy(k);
        return st;
    }
    *out = k;
    return TL_OK;
}

tl_status tl_compile_source(const char *source, const char *filename, const tl_options *opt,
                            tl_kernel **out) {
    if (!out) return fail(TL_ERROR_ARGUMENT, "tl_compile_source: out is NULL");
    *out = NULL;
    if (!source) return fail(TL_ERROR_ARGUMENT, "tl_compile_source: source is NULL");
    tl_kernel *k = calloc(1, sizeof *k);
    if (!k) return fail(TL_ERROR_INTERNAL, "out of memory");
    Source *src = NEW(&k->ctx.arena, Source);
    src->name = arena_strdup(&k->ctx.arena, filename ? filename : "<source>");
    src->len = strlen(source);
    src->text = arena_strndup(&k->ctx.arena, source, src->len);
    return compile_common(k, src, opt, out);
}

tl_status tl_compile_file(const char *path, const tl_options *opt, tl_kernel **out) {
    if (!out) return fail(TL_ERROR_ARGUMENT, "tl_compile_file: out is NULL");
    *out = NULL;
    if (!path) return fail(TL_ERROR_ARGUMENT, "tl_compile_file: path is NULL");
    tl_kernel *k = calloc(1, sizeof *k);
    if (!k) return fail(TL_ERROR_INTERNAL, "out of memory");
    Source *src = NEW(&k->ctx.arena, Source);
    src->name = arena_strdup(&k->ctx.arena, path);
    src->text = read_file_arena(&k->ctx.arena, path, TL_MAX_SOURCE_BYTES, &src->len);
    if (!src->text) {
        tl_status st = errno == EFBIG
                           ? fail(TL_ERROR_IO,
                                  "cannot read '%s': larger than %d "
                                  "MiB (a kernel source is text)",
                                  path, TL_MAX_SOURCE_BYTES >> 20)
                           : fail(TL_ERROR_IO, "cannot read '%s': %s", path, strerror(errno));
        tl_kernel_destroy(k);
        return st;
    }
    return compile_common(k, src, opt, out);
}

tl_status tl_compile_capture(const tl_capture *cap, const tl_options *opt, tl_kernel **out) {
    if (!out) return fail(TL_ERROR_ARGUMENT, "tl_compile_capture: out is NULL");
    *out = NULL;
    if (!cap) return fail(TL_ERROR_ARGUMENT, "tl_compile_capture: cap is NULL");
    tl_kernel *k = calloc(1, sizeof *k);
    TL_ASSERT(k);
    k->capture = cap;
    tl_status st = compile_common(k, NULL, opt, out);
    if (st == TL_OK) k->capture = NULL;
    return st;
}

void tl_kernel_destroy(tl_kernel *k) {
    if (!k) return;
    tl_kernel_destroy(k->general);
    if (k->module) k->target->unload(k->module);
    arena_free(&k->ctx.arena);
    sb_free(&k->ctx.err);
    free(k);
}

/* ---- introspection ---------------------------------------------------------------------- */
const char *tl_kernel_name(const tl_kernel *k) { return k ? k->func->name : NULL; }
const char *tl_kernel_target(const tl_kernel *k) { return k ? k->target->name : NULL; }
const char *tl_kernel_ir(const tl_kernel *k) { return k ? k->ir : NULL; }
const char *tl_kernel_source(const tl_kernel *k) { return k ? k->source : NULL; }
const char *tl_kernel_warnings(const tl_kernel *k) { return k ? k->warnings : NULL; }
int tl_kernel_num_params(const tl_kernel *k) { return k ? k->func->params.len : 0; }

tl_status tl_kernel_param(const tl_kernel *k, int i, tl_param_info *info) {
    if (!k || !info) return fail(TL_ERROR_ARGUMENT, "tl_kernel_param: NULL argument");
    if (i < 0 || i >= k->func->params.len)
        return fail(TL_ERROR_ARGUMENT,
                    "kernel '%s' has %d parameters; index %d is out of "
                    "range",
                    k->func->name, k->func->params.len, i);
    *info = k->params[i];
    return TL_OK;
}

double tl_kernel_flops(const tl_kernel *k, DLTensor *const *args, int nargs) {
    if (!k || !k->work || nargs != k->func->params.len || (nargs && !args)) return 0;
    const Func *f = k->func;
    SymEnv env;
    sym_env_init(&env, f);
    StrBuf err = {0};
    int bad = 0;
    for (int i = 0; i < nargs && !bad; i++) bad = args_check(f, k->target, i, args[i], &env, &err);
    double flops = bad ? 0 : work_flops(k->work, f, env.val);
    sb_free(&err);
    sym_env_free(&env);
    return flops;
}

tl_status tl_kernel_work(const tl_kernel *k, DLTensor *const *args, int nargs, double *flops,
                         double *global_bytes) {
    if (!k || !flops || !global_bytes)
        return fail(TL_ERROR_ARGUMENT, "tl_kernel_work: NULL argument");
    const Func *f = k->func;
    if (nargs && nargs != f->params.len)
        return fail(TL_ERROR_ARGUMENT, "tl_kernel_work: %d arguments, the kernel has %d", nargs,
                    f->params.len);
    if (!nargs && f->syms.len)
        return fail(TL_ERROR_ARGUMENT,
                    "tl_kernel_work: the kernel has symbolic sizes (%s...): pass its arguments",
                    f->syms.data[0]->name);
    SymEnv env;
    sym_env_init(&env, f);
    StrBuf err = {0};
    int bad = 0;
    for (int i = 0; i < nargs && !bad; i++) bad = args_check(f, k->target, i, args[i], &env, &err);
    double fl = bad ? -1 : work_flops(k->work, f, env.val);
    double by = bad ? -1 : work_global_bytes(k->work, f, env.val);
    tl_status st = TL_OK;
    if (bad) st = fail_text(TL_ERROR_ARGUMENT, err.buf ? err.buf : "bad argument");
    else if (by < 0 || (k->work && k->work->flops_unknown))
        st = fail(TL_ERROR_ARGUMENT,
                  "tl_kernel_work: kernel '%s' does work that depends on run-time data (a while "
                  "loop, or a loop whose bound another loop's variable sets)",
                  f->name);
    *flops = st == TL_OK ? fl : 0, *global_bytes = st == TL_OK ? by : 0;
    sb_free(&err);
    sym_env_free(&env);
    return st;
}

/* ---- running ---------------------------------------------------------------------------- */
/* Where the kernel's tensors must be: the host, or the GPU its module was loaded on. */
static DLDevice kernel_device(const tl_kernel *k) {
    DLDevice d = {kDLCPU, 0};
    const TargetDevice *dev = k->target->device;
    if (dev) {
        d.device_type = (DLDeviceType)dev->dl_type;
        d.device_id = k->module ? dev->module_device(k->module) : 0;
    }
    return d;
}

DLDevice tl_kernel_device(const tl_kernel *k) {
    DLDevice d = {kDLCPU, 0};
    return k ? kernel_device(k) : d;
}

static void param_names(const Func *f, int outputs, StrBuf *sb) {
    int first = 1;
    for (int i = 0; i < f->params.len; i++) {
        if (outputs >= 0 && f->params.data[i].is_output != outputs) continue;
        sb_printf(sb, "%s%s", first ? "" : ", ", f->params.data[i].name);
        first = 0;
    }
}

static tl_status count_fail(const Func *f, const char *what, int outputs, int want, int got) {
    StrBuf names = {0};
    param_names(f, outputs, &names);
    tl_status st = fail(TL_ERROR_ARGUMENT, "kernel '%s' takes %d %s (%s) but %d %s given", f->name,
                        want, what, names.buf ? names.buf : "", got, got == 1 ? "was" : "were");
    sb_free(&names);
    return st;
}

/* Whether the sizes of a launch (syms, in f->syms order) keep the alignment f's lowering
 * assumed (Func.sym_multiple). */
static bool syms_keep_assumption(const Func *f, const int64_t *syms) {
    for (int i = 0; f->sym_multiple && i < f->syms.len; i++)
        if (syms[i] % f->sym_multiple[i]) return false;
    return true;
}

static tl_status launch_checked(tl_kernel *k, DLTensor *const *args, SymEnv *env, void *stream);

/* Launches k's general variant (its own symbol environment: the same syms). */
static tl_status launch_general(tl_kernel *k, DLTensor *const *args, void *stream) {
    SymEnv env;
    sym_env_init(&env, k->general->func);
    tl_status st = launch_checked(k->general, args, &env, stream);
    sym_env_free(&env);
    return st;
}

static tl_status launch_checked(tl_kernel *k, DLTensor *const *args, SymEnv *env, void *stream) {
    const Func *f = k->func;
    StrBuf err = {0};
    tl_status st = TL_OK;
    int n = f->params.len;
    void **ptrs = calloc((size_t)n + 1, sizeof *ptrs);
    int64_t *slots = calloc((size_t)n + 1, sizeof *slots);
    if (!ptrs || !slots) st = fail(TL_ERROR_INTERNAL, "out of memory");
    int dev_id = kernel_device(k).device_id;
    for (int i = 0; i < n && st == TL_OK; i++)
        if (args_check(f, k->target, i, args[i], env, &err) ||
            (k->target->device && args_check_device_id(f, k->target, i, args[i], dev_id, &err)))
            st = TL_ERROR_ARGUMENT;
    if (st == TL_OK && args_finish(f, args, env, &err)) st = TL_ERROR_ARGUMENT;
    if (st == TL_OK && k->general && !syms_keep_assumption(f, env->val)) {
        free(ptrs);
        free(slots);
        return launch_general(k, args, stream);
    }
    if (st != TL_OK) {
        if (st != TL_ERROR_INTERNAL) fail(st, "%s", err.buf ? err.buf : "");
    } else {
        for (int i = 0; i < n; i++) ptrs[i] = args_pointer(f, i, args[i], &slots[i]);
        if (k->target->launch(k->module, (void *const *)ptrs, env->val, stream, &err) != 0)
            st = fail(TL_ERROR_RUNTIME, "kernel '%s' failed: %s", f->name,
                      err.buf ? err.buf : "unknown reason");
    }
    free(ptrs);
    free(slots);
    sb_free(&err);
    return st;
}

static tl_status kernel_runnable(const tl_kernel *k) {
    if (!k) return fail(TL_ERROR_ARGUMENT, "the kernel is NULL");
    if (!k->module)
        return fail(TL_ERROR_ARGUMENT,
                    "kernel '%s' was compiled with build = %s and cannot "
                    "run",
                    k->func->name, k->build == TL_BUILD_ONLY ? "TL_BUILD_ONLY" : "0");
    return TL_OK;
}

/* A launch or call: its arguments, for run_guarded. */
typedef struct Run {
    tl_kernel *k;
    DLTensor *const *args;
    DLTensor **outputs;
    void *stream;
} Run;

/* fn(r) with internal errors (and out of memory) unwinding here as TL_ERROR_INTERNAL: a
 * Ctx on this stack, since threads may launch one kernel at once. What fn allocated
 * before such an error is lost. The setting fault=launch (TILEC_FAULT=launch) injects one
 * (docs/testing.md). */
static tl_status run_guarded(tl_status (*fn)(const Run *r), const Run *r) {
    Ctx g = {0};
    jmp_buf jb;
    Ctx *outer = ctx_guard(&g);
    volatile tl_status st = TL_ERROR_INTERNAL;
    if (CTX_TRY(&g, &jb)) {
        fail_text(TL_ERROR_INTERNAL, g.err.buf ? g.err.buf : "internal error");
    } else {
        if (!strcmp(r->k->ctx.opts.fault, "launch")) TL_ASSERT(!"TILEC_FAULT=launch");
        st = fn(r);
    }
    ctx_guard(outer);
    sb_free(&g.err);
    arena_free(&g.arena);
    return st;
}

static tl_status launch_run(const Run *r) {
    SymEnv env;
    sym_env_init(&env, r->k->func);
    tl_status st = launch_checked(r->k, r->args, &env, r->stream);
    sym_env_free(&env);
    return st;
}

tl_status tl_kernel_launch(tl_kernel *k, DLTensor *const *args, int nargs, void *stream) {
    tl_status st = kernel_runnable(k);
    if (st != TL_OK) return st;
    const Func *f = k->func;
    if (nargs != f->params.len) return count_fail(f, "arguments", -1, f->params.len, nargs);
    if (nargs && !args) return fail(TL_ERROR_ARGUMENT, "args is NULL");
    return run_guarded(launch_run, &(Run){.k = k, .args = args, .stream = stream});
}

/* ---- tl_kernel_call: allocate the outputs, then launch ------------------------------------ */
/* A compact, zero-filled tensor on dev (on CUDA the zeroing is queued on stream); NULL
 * with the reason in err. */
static DLTensor *tensor_alloc(DType dt, int ndim, const int64_t *shape, DLDevice dev, void *stream,
                              StrBuf *err) {
    size_t bytes = (size_t)dtype_bytes(dt);
    for (int d = 0; d < ndim; d++) {
        if (shape[d] && bytes > (SIZE_MAX - 64) / (size_t)shape[d]) {
            sb_puts(err, "the tensor is too large");
            return NULL;
        }
        bytes *= (size_t)shape[d];
    }
    DLTensor *t = calloc(1, sizeof *t);
    if (t) t->shape = calloc((size_t)ndim + 1, sizeof(int64_t));
    if (!t || !t->shape) {
        free(t);
        sb_puts(err, "out of host memory");
        return NULL;
    }
    t->device = dev;
    t->ndim = ndim;
    dtype_to_dlpack(dt, &t->dtype.code, &t->dtype.bits);
    t->dtype.lanes = 1;
    for (int d = 0; d < ndim; d++) t->shape[d] = shape[d];
    if (rt_dev_alloc(dev, bytes, stream, &t->data, err) != 0) {
        tl_tensor_free(t);
        return NULL;
    }
    return t;
}

void tl_tensor_free(DLTensor *t) {
    if (!t) return;
    rt_dev_free(t->device, t->data);
    free(t->shape);
    free(t->strides);
    free(t);
}

/* Shape of output parameter i from the syms the inputs bound. */
static tl_status output_shape(const Func *f, int i, const SymEnv *env, int64_t *shape) {
    const Buffer *b = f->params.data[i].buf;
    if (!b)
        return fail(TL_ERROR_ARGUMENT,
                    "output '%s' (param %d) is a scalar; outputs must "
                    "be tensors",
                    f->params.data[i].name, i);
    for (int d = 0; d < b->ndim; d++) {
        int unbound;
        if (args_eval(b->shape[d], env, &shape[d], &unbound) == 0 && shape[d] >= 0) continue;
        StrBuf s = {0};
        args_shape_text(b, &s);
        tl_status st = fail(TL_ERROR_ARGUMENT,
                            "output '%s' (param %d): shape %s: %s%s%s; "
                            "allocate it yourself and use tl_kernel_launch",
                            f->params.data[i].name, i, s.buf,
                            unbound >= 0 ? "no input binds " : "cannot compute shape[",
                            unbound >= 0 ? f->syms.data[unbound]->name : "",
                            unbound >= 0 ? "" : "]");
        sb_free(&s);
        return st;
    }
    return TL_OK;
}

/* Checks the inputs (binding syms). The outputs go where the kernel runs: the host, or
 * the GPU it was loaded on (where tl_kernel_launch requires the inputs to be). */
static tl_status call_inputs(tl_kernel *k, DLTensor *const *inputs, SymEnv *env, DLDevice *dev) {
    const Func *f = k->func;
    StrBuf err = {0};
    *dev = kernel_device(k);
    for (int i = 0, j = 0; i < f->params.len; i++) {
        if (f->params.data[i].is_output) continue;
        const DLTensor *t = inputs[j++];
        if (args_check(f, k->target, i, t, env, &err)) {
            tl_status st = fail(TL_ERROR_ARGUMENT, "%s", err.buf);
            sb_free(&err);
            return st;
        }
    }
    return TL_OK;
}

static tl_status call_run(tl_kernel *k, DLTensor *const *inputs, DLTensor **outputs, void *stream) {
    const Func *f = k->func;
    SymEnv env;
    sym_env_init(&env, f);
    DLDevice dev;
    tl_status st = call_inputs(k, inputs, &env, &dev);
    DLTensor **all = calloc((size_t)f->params.len + 1, sizeof *all);
    if (!all && st == TL_OK) st = fail(TL_ERROR_INTERNAL, "out of memory");
    int nout = 0;
    for (int i = 0, j = 0; i < f->params.len && st == TL_OK; i++) {
        if (!f->params.data[i].is_output) {
            all[i] = inputs[j++];
            continue;
        }
        int64_t shape[64];
        const Buffer *b = f->params.data[i].buf;
        TL_ASSERT(!b || b->ndim <= 64);
        st = output_shape(f, i, &env, shape);
        if (st != TL_OK) break;
        StrBuf err = {0};
        all[i] = outputs[nout++] = tensor_alloc(b->dtype, b->ndim, shape, dev, stream, &err);
        if (!all[i]) {
            StrBuf s = {0};
            for (int d = 0; d < b->ndim; d++)
                sb_printf(&s, "%s%lld", d ? ", " : "", (long long)shape[d]);
            st = fail(TL_ERROR_RUNTIME,
                      "cannot allocate output '%s' (param %d) of shape "
                      "(%s): %s",
                      f->params.data[i].name, i, s.buf ? s.buf : "", err.buf);
            sb_free(&s);
        }
        sb_free(&err);
    }
    sym_env_free(&env);
    if (st == TL_OK) st = tl_kernel_launch(k, all, f->params.len, stream);
    if (st != TL_OK)
        for (int j = 0; j < nout; j++) tl_tensor_free(outputs[j]), outputs[j] = NULL;
    free(all);
    return st;
}

static tl_status call_guarded(const Run *r) {
    return call_run(r->k, r->args, r->outputs, r->stream);
}

tl_status tl_kernel_call(tl_kernel *k, DLTensor *const *inputs, int ninputs, DLTensor **outputs,
                         int noutputs, void *stream) {
    tl_status st = kernel_runnable(k);
    if (st != TL_OK) return st;
    const Func *f = k->func;
    int nin = 0, nout = 0;
    for (int i = 0; i < f->params.len; i++) {
        if (f->params.data[i].is_output) nout++;
        else nin++;
    }
    if (ninputs != nin) return count_fail(f, "inputs", 0, nin, ninputs);
    if (noutputs != nout) return count_fail(f, "outputs", 1, nout, noutputs);
    if ((nin && !inputs) || (nout && !outputs))
        return fail(TL_ERROR_ARGUMENT, "tl_kernel_call: inputs or outputs is NULL");
    for (int j = 0; j < nout; j++) outputs[j] = NULL;
    return run_guarded(call_guarded,
                       &(Run){.k = k, .args = inputs, .outputs = outputs, .stream = stream});
}

/* ---- tensors on a device ----------------------------------------------------------------- */
tl_status tl_tensor_alloc(DLDataType dtype, int ndim, const int64_t *shape, DLDevice dev,
                          DLTensor **out) {
    if (!out) return fail(TL_ERROR_ARGUMENT, "tl_tensor_alloc: out is NULL");
    *out = NULL;
    DType dt = dtype_from_dlpack(dtype.code, dtype.bits);
    StrBuf err = {0};
    if (dt == DT_INVALID || dtype.lanes != 1) {
        rt_dldtype_name(dtype, &err);
        tl_status st = fail(TL_ERROR_ARGUMENT,
                            "tl_tensor_alloc: dtype %s is not one tilec "
                            "knows",
                            err.buf);
        sb_free(&err);
        return st;
    }
    if (ndim < 0 || ndim > 64 || (ndim && !shape))
        return fail(TL_ERROR_ARGUMENT, "tl_tensor_alloc: ndim is %d (0..64, with a shape)", ndim);
    for (int d = 0; d < ndim; d++)
        if (shape[d] < 0)
            return fail(TL_ERROR_ARGUMENT, "tl_tensor_alloc: shape[%d] is %lld", d,
                        (long long)shape[d]);
    if (!rt_dev_allocatable((int)dev.device_type)) {
        StrBuf kinds = {0};
        rt_device_name(dev, &err);
        rt_dev_kinds(&kinds);
        tl_status st = fail(TL_ERROR_ARGUMENT,
                            "tl_tensor_alloc: cannot allocate on %s (%s "
                            "only)",
                            err.buf, kinds.buf);
        sb_free(&kinds);
        sb_free(&err);
        return st;
    }
    tl_status st = TL_OK;
    *out = tensor_alloc(dt, ndim, shape, dev, NULL, &err);
    if (*out && rt_dev_sync(dev, NULL, &err) != 0) tl_tensor_free(*out), *out = NULL;
    if (!*out) st = fail(TL_ERROR_RUNTIME, "tl_tensor_alloc: %s", err.buf);
    sb_free(&err);
    return st;
}

/* Strides absent or those of a compact row-major tensor (size-1 dims: any). */
static int tensor_compact(const DLTensor *t) {
    int64_t want = 1;
    for (int d = t->ndim - 1; d >= 0 && t->strides; d--) {
        if (t->shape[d] != 1 && t->strides[d] != want) return 0;
        want *= t->shape[d];
    }
    return 1;
}

static tl_status copy_mismatch(const DLTensor *dst, const DLTensor *src) {
    StrBuf a = {0}, b = {0};
    rt_dldtype_name(dst->dtype, &a);
    rt_dldtype_name(src->dtype, &b);
    sb_puts(&a, " (");
    sb_puts(&b, " (");
    for (int d = 0; d < dst->ndim; d++)
        sb_printf(&a, "%s%lld", d ? ", " : "", (long long)dst->shape[d]);
    for (int d = 0; d < src->ndim; d++)
        sb_printf(&b, "%s%lld", d ? ", " : "", (long long)src->shape[d]);
    tl_status st = fail(TL_ERROR_ARGUMENT, "tl_tensor_copy: dst is %s) but src is %s)", a.buf,
                        b.buf);
    sb_free(&a);
    sb_free(&b);
    return st;
}

tl_status tl_tensor_copy(DLTensor *dst, const DLTensor *src) {
    if (!dst || !src) return fail(TL_ERROR_ARGUMENT, "tl_tensor_copy: NULL tensor");
    int same = dst->ndim == src->ndim && dst->dtype.code == src->dtype.code &&
               dst->dtype.bits == src->dtype.bits && dst->dtype.lanes == src->dtype.lanes;
    size_t n = (size_t)src->dtype.bits * src->dtype.lanes / 8;
    for (int d = 0; same && d < src->ndim; d++) {
        same = dst->shape[d] == src->shape[d] && src->shape[d] >= 0;
        n *= (size_t)src->shape[d];
    }
    if (!same) return copy_mismatch(dst, src);
    if (!tensor_compact(dst) || !tensor_compact(src))
        return fail(TL_ERROR_ARGUMENT,
                    "tl_tensor_copy: %s is not compact (row-major "
                    "strides); only compact tensors are copied",
                    tensor_compact(dst) ? "src" : "dst");
    if (n && (!dst->data || !src->data))
        return fail(TL_ERROR_ARGUMENT, "tl_tensor_copy: data is NULL");
    StrBuf err = {0};
    tl_status st = TL_OK;
    if (rt_dev_copy((char *)dst->data + dst->byte_offset, dst->device,
                    (const char *)src->data + src->byte_offset, src->device, n, &err) != 0)
        st = fail(TL_ERROR_RUNTIME, "tl_tensor_copy: %s", err.buf);
    sb_free(&err);
    return st;
}

tl_status tl_device_synchronize(DLDevice dev, void *stream) {
    StrBuf err = {0};
    tl_status st = TL_OK;
    if (rt_dev_sync(dev, stream, &err) != 0) st = fail(TL_ERROR_RUNTIME, "%s", err.buf);
    sb_free(&err);
    return st;
}

/* ---- cache and environment -------------------------------------------------------------- */
const char *tl_cache_dir(const tl_options *opt) {
    StrBuf *d = &thread_strings()->dir;
    cache_dir_resolve(opt ? opt->cache_dir : NULL, d);
    return d->buf;
}

tl_status tl_cache_clear(const tl_options *opt) {
    StrBuf dir = {0}, err = {0};
    cache_dir_resolve(opt ? opt->cache_dir : NULL, &dir);
    tl_status st = cache_clear_dir(dir.buf, NULL, &err);
    if (st != TL_OK) fail(st, "%s", err.buf);
    sb_free(&dir);
    sb_free(&err);
    return st;
}

static void info_target(StrBuf *sb, const Target *t) {
    sb_printf(sb, "  %-5s ", t->name);
    StrBuf why = {0};
    if (t->available(&why)) {
        Arena a = {0};
        sb_printf(sb, "available (%s)\n", t->toolchain_id(&a));
        arena_free(&a);
    } else {
        sb_printf(sb, "not available: %s\n", why.buf ? why.buf : "unknown reason");
    }
    sb_free(&why);
}

const char *tl_info(void) {
    StrBuf *sb = &thread_strings()->info, dir = {0};
    sb->len = 0;
    sb_printf(sb, "tilec %s\ntargets:\n", TILEC_VERSION);
    for (int i = 0; target_at(i); i++) info_target(sb, target_at(i));
    for (int i = 0; target_at(i); i++) {
        const TargetDevice *dev = target_at(i)->device;
        if (!dev || !dev->describe) continue;
        sb_printf(sb, "%s:\n", target_at(i)->name);
        dev->describe(sb);
    }
    sb_printf(sb, "auto target: %s\n", target_auto()->name);
    cache_dir_resolve(NULL, &dir);
    sb_printf(sb, "cache dir: %s%s\n", dir.buf,
              cache_disabled(1) ? " (disabled by TILEC_NO_CACHE)" : "");
    sb_free(&dir);
    return sb->buf;
}

/* One target as JSON: {"available": bool, "toolchain": text or null, "reason": ...}. */
static void info_target_json(StrBuf *sb, const Target *t) {
    StrBuf why = {0};
    int ok = t->available(&why);
    sb_json_str(sb, t->name);
    sb_printf(sb, ": {\"available\": %s, \"toolchain\": ", ok ? "true" : "false");
    if (ok) {
        Arena a = {0};
        sb_json_str(sb, t->toolchain_id(&a));
        arena_free(&a);
    } else {
        sb_puts(sb, "null");
    }
    sb_puts(sb, ", \"reason\": ");
    sb_json_str(sb, ok ? NULL : why.buf ? why.buf : "unknown reason");
    sb_puts(sb, "}");
    sb_free(&why);
}

const char *tl_info_json(void) {
    StrBuf *sb = &thread_strings()->info, dir = {0};
    sb->len = 0;
    sb_printf(sb, "{\"version\": \"%s\", \"targets\": {", TILEC_VERSION);
    for (int i = 0; target_at(i); i++) {
        if (i) sb_puts(sb, ", ");
        info_target_json(sb, target_at(i));
    }
    sb_puts(sb, "}");
    for (int i = 0; target_at(i); i++) { /* each device target's own object */
        const TargetDevice *dev = target_at(i)->device;
        if (!dev || !dev->describe_json) continue;
        sb_printf(sb, ", \"%s\": ", target_at(i)->name);
        dev->describe_json(sb);
    }
    sb_printf(sb, ", \"auto_target\": \"%s\", \"cache_dir\": ", target_auto()->name);
    cache_dir_resolve(NULL, &dir);
    sb_json_str(sb, dir.buf);
    sb_printf(sb, ", \"cache_enabled\": %s}\n", cache_disabled(1) ? "false" : "true");
    sb_free(&dir);
    return sb->buf;
}
