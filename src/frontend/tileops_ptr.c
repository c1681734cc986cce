/* tileops_ptr.c - raw pointers in kernels (TileLang's proxy.py): addresses as int64 values
 * and global tensors made at them.
 *
 *   T.ptr, T.ptr(dtype=None, storage_scope="global")
 *                               a pointer type: as a kernel parameter's annotation an int64
 *                               address (Param.pointer: the caller passes a number, or a
 *                               tensor whose data address is taken); as the dtype of a
 *                               T.Tensor (a table of pointers) int64, as TileLang stores it
 *   T.make_tensor(ptr, shape, dtype="float32", strides=None)
 *   T.make_tensor_from_addr(addr, shape, dtype="float32", strides=None,
 *                           storage_scope="global")
 *                               the global tensor of that shape at the address (an int64
 *                               value: a pointer parameter, an element of a pointer table),
 *                               which is taken once where the call stands (a let), so the
 *                               tensor stays where it was made (Buffer.addr)
 *   T.isnullptr(x)              whether the address x (or a T.make_tensor tensor's) is 0
 *
 * The caller vouches for the address: it must point at memory of the kernel's device
 * holding the whole tensor, aligned to its element. Errors name the T function and point
 * at the call. */
#include "frontend/eval.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

static Value *t_ptr(Interp *in, CallArgs *a, void *d);

/* T.ptr, or what a call T.ptr(...) returned: the builtin itself. */
bool val_is_ptr_type(const Value *v) {
    return v && v->kind == V_BUILTIN && v->u.builtin->fn == t_ptr;
}

/* T.ptr(dtype=None, storage_scope="global", *, is_size_var=False): a pointer type, the same
 * whatever it points to (tilec's pointers are addresses; T.make_tensor gives the dtype). */
static Value *t_ptr(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[3];
    args_bind(in, a, "T.ptr", "dtype=, storage_scope=, is_size_var=", av, 3);
    if (av[0] && av[0]->kind != V_NONE) (void)val_to_dtype(in, av[0], a->loc, "T.ptr: dtype");
    if (av[1] && (av[1]->kind != V_STR || strcmp(av[1]->u.s, "global")))
        ctx_fail(in->ctx, a->loc,
                 "T.ptr: storage_scope must be \"global\" (tilec's pointers are "
                 "global memory addresses)");
    return tl_lang_attr(in, "ptr", a->loc);
}

/* An address operand: a 64-bit integer value. */
static Expr *address_of(Interp *in, Value *v, Loc loc, const char *fname) {
    if (v->kind == V_BUFFER)
        ctx_fail(in->ctx, loc,
                 "%s: '%s' is a tensor, not an address (for another shape of a tensor's memory "
                 "use T.view or T.Tensor(shape, dtype, data=%s.data))",
                 fname, v->u.buf->name, v->u.buf->name);
    Expr *e = val_to_expr(in, v, loc, fname);
    if (e->dtype != DT_INT64 && e->dtype != DT_UINT64)
        ctx_fail(in->ctx, loc,
                 "%s: the address must be a 64-bit integer (a T.ptr parameter or an element of "
                 "a T.Tensor(..., T.ptr) table), got %s",
                 fname, dtype_name(e->dtype));
    return e->dtype == DT_INT64 ? e : ir_cast(in->ctx, DT_INT64, e, loc);
}

/* The tensor of type t (a T.Tensor / T.StridedTensor value) at address addr, which a let
 * takes here. */
static Value *tensor_at(Interp *in, Expr *addr, Value *t, Loc loc) {
    TensorType *tt = t->u.tensor;
    Var *var = ir_var(in->ctx, "addr", DT_INT64);
    Stmt *s = ir_stmt(in->ctx, STMT_LET, loc);
    s->u.let.var = var, s->u.let.value = addr;
    emit_stmt(in, s);
    Buffer *b = ir_buffer(in->ctx, arena_printf(ARENA, "__tmp%d", in->ctx->next_id), tt->dtype,
                          SCOPE_GLOBAL, tt->ndim, loc);
    for (int k = 0; k < tt->ndim; k++) b->shape[k] = tt->shape[k];
    b->strides = tt->strides;
    b->addr = var;
    Value *v = val_new(in, V_BUFFER);
    v->u.buf = b;
    return v;
}

/* The tensor type of shape, dtype and strides (T.Tensor, or T.StridedTensor with strides). */
static Value *tensor_type(Interp *in, Value *shape, Value *dtype, Value *strides, Loc loc) {
    bool strided = strides && strides->kind != V_NONE;
    CallArgs b = {0};
    b.loc = loc;
    VEC_PUSH(ARENA, b.pos, shape);
    if (strided) VEC_PUSH(ARENA, b.pos, strides);
    VEC_PUSH(ARENA, b.pos, dtype ? dtype : val_str(in, "float32"));
    Value *t = call_value(in, tl_lang_attr(in, strided ? "StridedTensor" : "Tensor", loc), &b);
    TL_ASSERT(t->kind == V_TENSOR_TYPE);
    return t;
}

/* T.make_tensor(ptr, shape, dtype="float32", strides=None) and
 * T.make_tensor_from_addr(addr, shape, dtype="float32", strides=None, storage_scope=). */
static Value *t_make_tensor(Interp *in, CallArgs *a, void *d) {
    const char *fname = d ? "T.make_tensor_from_addr" : "T.make_tensor";
    Value *av[5] = {0};
    if (d) args_bind(in, a, fname, "addr, shape, dtype=, strides=, storage_scope=", av, 5);
    else args_bind(in, a, fname, "ptr, shape, dtype=, strides=", av, 4);
    need_kernel(in, a->loc, fname);
    if (av[4] && (av[4]->kind != V_STR || strcmp(av[4]->u.s, "global")))
        ctx_fail(in->ctx, a->loc, "%s: storage_scope must be \"global\"", fname);
    Expr *addr = address_of(in, av[0], a->loc, fname);
    return tensor_at(in, addr, tensor_type(in, av[1], av[2], av[3], a->loc), a->loc);
}

/* T.isnullptr(x): x == 0 for an address, or a T.make_tensor tensor's address. */
static Value *t_isnullptr(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[1];
    args_bind(in, a, "T.isnullptr", "x", av, 1);
    Expr *x;
    if (av[0]->kind == V_BUFFER) {
        const Buffer *b = av[0]->u.buf;
        if (!b->addr)
            ctx_fail(in->ctx, a->loc,
                     "T.isnullptr: '%s' is not a tensor made by T.make_tensor (a kernel's own "
                     "tensors are never null)",
                     b->name);
        x = ir_varref(in->ctx, b->addr, a->loc);
    } else {
        x = address_of(in, av[0], a->loc, "T.isnullptr");
    }
    return val_expr(in, ir_bin(in->ctx, OP_EQ, x, ir_int(in->ctx, 0, DT_INT64, a->loc), a->loc));
}

static const TName ptr_names[] = {
    {"ptr", t_ptr, NULL, "C, CUDA (parameters: an address, a number or a tensor's data)"},
    {"make_tensor", t_make_tensor, NULL, NULL},
    {"make_tensor_from_addr", t_make_tensor, "addr", NULL},
    {"isnullptr", t_isnullptr, NULL, NULL},
};

const TNames tl_ptr_names = {ptr_names, (int)(sizeof ptr_names / sizeof *ptr_names)};
