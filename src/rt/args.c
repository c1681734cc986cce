/* args.c - checks DLPack arguments against a kernel's parameters before a launch.
 *
 * Every field a kernel relies on is checked (device, dtype, ndim, shape, strides, data,
 * alignment) and a failure names the argument and the field, so a wrong call is a
 * message, never a fault in generated code. Symbolic sizes and strides (T.dynamic,
 * T.StridedTensor) bind on first sight, in parameter order, and must agree after. */
#include "rt/rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rt_device_name(DLDevice d, StrBuf *out) {
    switch ((int)d.device_type) {
    case kDLCPU: sb_puts(out, "cpu"); return;
    case kDLCUDA: sb_printf(out, "cuda:%d", d.device_id); return;
    case kDLCUDAHost: sb_puts(out, "cuda_host (pinned CPU memory)"); return;
    case kDLCUDAManaged: sb_printf(out, "cuda_managed:%d", d.device_id); return;
    case kDLROCM: sb_printf(out, "rocm:%d", d.device_id); return;
    case kDLROCMHost: sb_puts(out, "rocm_host"); return;
    case kDLOpenCL: sb_printf(out, "opencl:%d", d.device_id); return;
    case kDLVulkan: sb_printf(out, "vulkan:%d", d.device_id); return;
    case kDLMetal: sb_printf(out, "metal:%d", d.device_id); return;
    default: sb_printf(out, "device type %d:%d", (int)d.device_type, d.device_id); return;
    }
}

void rt_dldtype_name(DLDataType t, StrBuf *out) {
    DType dt = dtype_from_dlpack(t.code, t.bits);
    if (dt != DT_INVALID && t.lanes == 1) sb_puts(out, dtype_name(dt));
    else if (dt != DT_INVALID) sb_printf(out, "%sx%d", dtype_name(dt), t.lanes);
    else sb_printf(out, "code=%d bits=%d lanes=%d", t.code, t.bits, t.lanes);
}

/* ---- symbol environment ------------------------------------------------------------ */
void sym_env_init(SymEnv *env, const Func *f) {
    env->f = f;
    env->nsyms = f->syms.len;
    size_t n = (size_t)(env->nsyms ? env->nsyms : 1);
    env->val = calloc(n, sizeof *env->val);
    env->bound_by = malloc(n * sizeof *env->bound_by);
    TL_ASSERT(env->val && env->bound_by);
    for (int k = 0; k < env->nsyms; k++) env->bound_by[k] = -1;
}

void sym_env_free(SymEnv *env) {
    free(env->val);
    free(env->bound_by);
    env->val = NULL;
    env->bound_by = NULL;
}

int sym_index(const Func *f, const Var *v) {
    for (int k = 0; k < f->syms.len; k++)
        if (f->syms.data[k] == v || f->syms.data[k]->id == v->id) return k;
    return -1;
}

int sym_env_define(SymEnv *env, const char *name, int64_t v) {
    for (int k = 0; k < env->nsyms; k++) {
        if (strcmp(env->f->syms.data[k]->name, name) != 0) continue;
        env->val[k] = v;
        env->bound_by[k] = -2;
        return 1;
    }
    return 0;
}

/* Bare symbol in a shape/stride slot: its index in f->syms, else -1. */
static int bare_sym(const Func *f, const Expr *e) {
    return e->kind == EXPR_VAR ? sym_index(f, e->u.var) : -1;
}

typedef struct SymLookup {
    const SymEnv *env;
    int unbound; /* the first sym found unbound, or -1 */
} SymLookup;

static int lookup_sym(void *p, const Var *v, int64_t *out) {
    SymLookup *L = p;
    int k = sym_index(L->env->f, v);
    if (k < 0 || L->env->bound_by[k] == -1) {
        if (L->unbound < 0) L->unbound = k;
        return -1;
    }
    *out = L->env->val[k];
    return 0;
}

int args_eval(const Expr *e, const SymEnv *env, int64_t *out, int *unbound) {
    SymLookup L = {env, -1};
    int rc = ir_eval_int(e, lookup_sym, &L, out);
    *unbound = L.unbound;
    return rc;
}

void args_shape_text(const Buffer *b, StrBuf *out) {
    sb_putc(out, '(');
    for (int d = 0; d < b->ndim; d++) {
        int64_t v;
        if (d) sb_puts(out, ", ");
        if (ir_is_const_int(b->shape[d], &v)) sb_printf(out, "%lld", (long long)v);
        else ir_print_expr(out, b->shape[d]);
    }
    sb_puts(out, b->ndim == 1 ? ",)" : ")");
}

/* ---- one argument -------------------------------------------------------------------- */
static int arg_fail(StrBuf *err, const Func *f, int i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int arg_fail(StrBuf *err, const Func *f, int i, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_printf(err, "argument '%s' (param %d): ", f->params.data[i].name, i);
    sb_vprintf(err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Bind sym k to v for argument i (field e.g. "shape[1]"), or check it agrees. */
static int bind_sym(const Func *f, SymEnv *env, int k, int64_t v, int i, const char *field,
                    StrBuf *err) {
    const char *sym = f->syms.data[k]->name;
    DType t = f->syms.data[k]->dtype;
    if (dtype_bytes(t) < 8 && (v > (((int64_t)1 << (8 * dtype_bytes(t) - 1)) - 1)))
        return arg_fail(err, f, i,
                        "%s is %lld, more than the kernel's %s symbol %s holds; "
                        "declare it T.dynamic(\"%s\", \"int64\")",
                        field, (long long)v, dtype_name(t), sym, sym);
    if (env->bound_by[k] == -1) {
        env->val[k] = v;
        env->bound_by[k] = i;
        return 0;
    }
    if (env->val[k] == v) return 0;
    if (env->bound_by[k] == -2)
        return arg_fail(err, f, i, "%s is %lld but %s was set to %lld", field, (long long)v, sym,
                        (long long)env->val[k]);
    return arg_fail(err, f, i, "%s is %lld but %s was bound to %lld by argument '%s'", field,
                    (long long)v, sym, (long long)env->val[k],
                    f->params.data[env->bound_by[k]].name);
}

/* Host memory: the CPU's, or host memory a target device knows (pinned, kDLCUDAHost). */
static int host_readable(DLDevice d) {
    const Target *t;
    for (int i = 0; d.device_type != kDLCPU && (t = target_at(i)); i++)
        if (t->device && t->device->ordinal(d) == -1) return 1;
    return d.device_type == kDLCPU;
}

static int check_device(const Func *f, const Target *target, int i, const DLTensor *t,
                        StrBuf *err) {
    const TargetDevice *dev = target->device;
    int ok = dev ? dev->takes(t->device) : host_readable(t->device);
    if (ok) return 0;
    StrBuf d = {0};
    rt_device_name(t->device, &d);
    arg_fail(err, f, i, "device is %s but the '%s' target %s%s", d.buf, target->name,
             dev ? "needs " : "runs on the CPU", dev ? dev->memory : "");
    sb_free(&d);
    return -1;
}

/* A T.ptr parameter's argument is the address itself when it is a number: a 0-d 64-bit
 * integer tensor on the host. */
static bool pointer_is_number(const DLTensor *t) {
    return t->ndim == 0 && host_readable(t->device) && t->dtype.bits == 64 && t->dtype.lanes == 1 &&
           (t->dtype.code == kDLInt || t->dtype.code == kDLUInt);
}

int args_check_device_id(const Func *f, const Target *target, int i, const DLTensor *t,
                         int device_id, StrBuf *err) {
    const Param *p = &f->params.data[i];
    bool tensor = p->buf || (p->pointer && !pointer_is_number(t)); /* memory of the device */
    if (!tensor || t->device.device_id == device_id) return 0;
    StrBuf d = {0};
    rt_device_name(t->device, &d);
    arg_fail(err, f, i,
             "device is %s but the kernel was loaded on %s:%d (the GPU that "
             "was current when it was compiled)",
             d.buf, target->device->name, device_id);
    sb_free(&d);
    return -1;
}

static int check_dtype(const Func *f, int i, const DLTensor *t, DType want, StrBuf *err) {
    if (t->dtype.lanes == 1 && dtype_from_dlpack(t->dtype.code, t->dtype.bits) == want) return 0;
    StrBuf d = {0};
    rt_dldtype_name(t->dtype, &d);
    arg_fail(err, f, i, "dtype is %s but the kernel expects %s", d.buf, dtype_name(want));
    sb_free(&d);
    return -1;
}

static int check_scalar(const Func *f, int i, const DLTensor *t, StrBuf *err) {
    if (!host_readable(t->device)) {
        StrBuf d = {0};
        rt_device_name(t->device, &d);
        arg_fail(err, f, i, "device is %s but scalar arguments are read on the CPU", d.buf);
        sb_free(&d);
        return -1;
    }
    if (check_dtype(f, i, t, f->params.data[i].scalar->dtype, err)) return -1;
    if (t->ndim != 0)
        return arg_fail(err, f, i,
                        "ndim is %d but the kernel expects a scalar "
                        "(a 0-d tensor)",
                        t->ndim);
    if (!t->data) return arg_fail(err, f, i, "data is NULL");
    return 0;
}

/* A T.ptr parameter: that number, or any tensor on the target's device (its data). */
static int check_pointer(const Func *f, const Target *target, int i, const DLTensor *t,
                         StrBuf *err) {
    if (!pointer_is_number(t) && check_device(f, target, i, t, err)) return -1;
    if (!t->data && pointer_is_number(t)) return arg_fail(err, f, i, "data is NULL");
    return 0;
}

static int check_shape(const Func *f, int i, const DLTensor *t, SymEnv *env, StrBuf *err) {
    const Buffer *b = f->params.data[i].buf;
    char field[32];
    for (int d = 0; d < b->ndim; d++) {
        int64_t v = t->shape[d], want;
        snprintf(field, sizeof field, "shape[%d]", d);
        if (v < 0) return arg_fail(err, f, i, "%s is %lld (negative)", field, (long long)v);
        if (ir_is_const_int(b->shape[d], &want)) {
            if (v == want) continue;
            StrBuf s = {0};
            args_shape_text(b, &s);
            arg_fail(err, f, i, "%s is %lld but the kernel expects %lld (shape %s)", field,
                     (long long)v, (long long)want, s.buf);
            sb_free(&s);
            return -1;
        }
        int k = bare_sym(f, b->shape[d]);
        if (k >= 0 && bind_sym(f, env, k, v, i, field, err)) return -1;
    }
    return 0;
}

static void compact_strides(const DLTensor *t, int64_t *c) {
    int64_t acc = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        c[d] = acc;
        acc *= t->shape[d] > 0 ? t->shape[d] : 1;
    }
}

static void ints_text(StrBuf *sb, const int64_t *v, int n) {
    sb_putc(sb, '(');
    for (int d = 0; d < n; d++) sb_printf(sb, "%s%lld", d ? ", " : "", (long long)v[d]);
    sb_puts(sb, n == 1 ? ",)" : ")");
}

static int check_compact(const Func *f, int i, const DLTensor *t, const int64_t *c, StrBuf *err) {
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 1 || t->strides[d] == c[d]) continue;
        StrBuf a = {0}, w = {0};
        ints_text(&a, t->strides, t->ndim);
        ints_text(&w, c, t->ndim);
        arg_fail(err, f, i,
                 "strides[%d] is %lld but the kernel expects a compact row-major "
                 "tensor (strides %s, got %s); make it contiguous or declare the parameter "
                 "with T.StridedTensor",
                 d, (long long)t->strides[d], w.buf, a.buf);
        sb_free(&a);
        sb_free(&w);
        return -1;
    }
    return 0;
}

static int check_strides(const Func *f, int i, const DLTensor *t, SymEnv *env, StrBuf *err) {
    const Buffer *b = f->params.data[i].buf;
    int64_t c[t->ndim > 0 ? t->ndim : 1];
    compact_strides(t, c);
    if (!b->strides) return t->strides ? check_compact(f, i, t, c, err) : 0;
    char field[32];
    for (int d = 0; d < b->ndim; d++) {
        int64_t s = t->strides ? t->strides[d] : c[d], want;
        snprintf(field, sizeof field, "strides[%d]", d);
        if (ir_is_const_int(b->strides[d], &want)) {
            if (s != want && t->shape[d] != 1)
                return arg_fail(err, f, i, "%s is %lld but the kernel expects %lld", field,
                                (long long)s, (long long)want);
            continue;
        }
        int k = bare_sym(f, b->strides[d]);
        if (k < 0) continue;
        if (t->shape[d] == 1 && env->bound_by[k] != -1) continue; /* any stride is fine */
        if (bind_sym(f, env, k, s, i, field, err)) return -1;
    }
    return 0;
}

int args_check(const Func *f, const Target *target, int i, const DLTensor *t, SymEnv *env,
               StrBuf *err) {
    const Param *p = &f->params.data[i];
    if (!t) return arg_fail(err, f, i, "the DLTensor pointer is NULL");
    if (p->pointer) return check_pointer(f, target, i, t, err);
    if (p->scalar) return check_scalar(f, i, t, err);
    const Buffer *b = p->buf;
    if (check_device(f, target, i, t, err) || check_dtype(f, i, t, b->dtype, err)) return -1;
    if (t->ndim != b->ndim) {
        StrBuf s = {0};
        args_shape_text(b, &s);
        arg_fail(err, f, i, "ndim is %d but the kernel expects %d (shape %s)", t->ndim, b->ndim,
                 s.buf);
        sb_free(&s);
        return -1;
    }
    if (t->ndim > 0 && !t->shape) return arg_fail(err, f, i, "shape is NULL");
    if (check_shape(f, i, t, env, err) || check_strides(f, i, t, env, err)) return -1;
    int64_t numel = 1;
    for (int d = 0; d < t->ndim; d++) numel *= t->shape[d];
    if (numel > 0 && !t->data) return arg_fail(err, f, i, "data is NULL");
    size_t align = (size_t)dtype_bytes(b->dtype);
    uintptr_t addr = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
    if (numel > 0 && addr % align)
        return arg_fail(err, f, i,
                        "data + byte_offset is not aligned to %zu bytes "
                        "(the size of %s)",
                        align, dtype_name(b->dtype));
    return 0;
}

/* ---- after all arguments ------------------------------------------------------------- */
/* Checks a compound shape/stride expression e against the argument's value v. */
static int check_compound(const Func *f, int i, const Expr *e, int64_t v, const char *field,
                          const SymEnv *env, StrBuf *err) {
    int64_t want;
    int unbound;
    if (args_eval(e, env, &want, &unbound) != 0) {
        if (unbound < 0) return 0; /* not plain integer math: nothing to check here */
        sb_printf(err, "symbol %s (in %s of argument '%s') is bound by no argument",
                  f->syms.data[unbound]->name, field, f->params.data[i].name);
        return -1;
    }
    if (want == v) return 0;
    StrBuf s = {0};
    ir_print_expr(&s, e);
    arg_fail(err, f, i, "%s is %lld but the kernel expects %s = %lld", field, (long long)v, s.buf,
             (long long)want);
    sb_free(&s);
    return -1;
}

static int finish_param(const Func *f, int i, const DLTensor *t, SymEnv *env, StrBuf *err) {
    const Buffer *b = f->params.data[i].buf;
    int64_t c[t->ndim > 0 ? t->ndim : 1];
    compact_strides(t, c);
    char field[32];
    for (int d = 0; d < b->ndim; d++) {
        const Expr *e = b->shape[d];
        snprintf(field, sizeof field, "shape[%d]", d);
        if (e->kind != EXPR_INT && bare_sym(f, e) < 0 &&
            check_compound(f, i, e, t->shape[d], field, env, err))
            return -1;
        if (!b->strides || t->shape[d] == 1) continue;
        e = b->strides[d];
        snprintf(field, sizeof field, "strides[%d]", d);
        int64_t s = t->strides ? t->strides[d] : c[d];
        if (e->kind != EXPR_INT && bare_sym(f, e) < 0 &&
            check_compound(f, i, e, s, field, env, err))
            return -1;
    }
    return 0;
}

int args_finish(const Func *f, DLTensor *const *args, SymEnv *env, StrBuf *err) {
    for (int i = 0; i < f->params.len; i++)
        if (f->params.data[i].buf && finish_param(f, i, args[i], env, err)) return -1;
    for (int k = 0; k < env->nsyms; k++) {
        if (env->bound_by[k] != -1) continue;
        sb_printf(err,
                  "symbolic size %s is bound by no argument (it appears in no "
                  "parameter's shape or strides)",
                  f->syms.data[k]->name);
        return -1;
    }
    return 0;
}

void *args_pointer(const Func *f, int i, const DLTensor *t, void *slot) {
    const Param *p = &f->params.data[i];
    if (p->buf) return (char *)t->data + t->byte_offset;
    const char *v = (const char *)t->data + t->byte_offset;
    if (p->pointer && !pointer_is_number(t)) { /* a tensor: the address of its data */
        *(int64_t *)slot = (int64_t)(intptr_t)v;
        return slot;
    }
    if (dtype_is_float(p->scalar->dtype)) *(double *)slot = rt_elem_get(p->scalar->dtype, v, 0);
    else *(int64_t *)slot = rt_elem_get_int(p->scalar->dtype, v, 0);
    return slot;
}
