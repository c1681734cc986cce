/* tileops_wmma.c - TVM's WMMA intrinsics as TileLang writes them: fragment buffers
 * (T.alloc_buffer / T.alloc_fragment / T.alloc_local with scope "wmma.matrix_a",
 * "wmma.matrix_b" or "wmma.accumulator") and T.tvm_fill_fragment, T.tvm_load_matrix_sync,
 * T.tvm_store_matrix_sync, T.tvm_mma_sync; and T.tvm_tuple (a tuple of values, the value
 * of a T.attr annotation).
 *
 * Shapes: m16n16k16, float16 or bfloat16 inputs, a float16 (float16 inputs) or float32
 * accumulator. A fragment buffer holds whole 16 x 16 fragments; fragment `index` is
 * its index-th 256 elements. A fragment's register layout is opaque to the program (only
 * these intrinsics touch it), so tilec picks one: mma.sync m16n8k16's, each lane holding
 * 8 elements of each fragment (the buffer is a T.alloc_local of shape/32 per thread), an
 * accumulator or B fragment as two n8 tiles side by side (runtime/c/tl_c.h
 * tl_wmma_rc). An mma is then two mma.sync m16n8k16; loads and stores are each lane's
 * own elements. Every call is warp-collective (extern_.warp): all 32 lanes of a warp
 * make it together, outside thread-dependent conditions and T.Parallel loops.
 * T.tvm_bmma_sync (1-bit operands) is an error: tilec has no 1-bit dtype. */
#include "frontend/eval.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

enum WmmaRole { WMMA_A = 1, WMMA_B, WMMA_ACC };
enum { FRAG_ELEMS = 256, LANE_ELEMS = FRAG_ELEMS / 32 }; /* one m16n16k16 fragment */

static const char *const role_scopes[] = {NULL, "wmma.matrix_a", "wmma.matrix_b",
                                          "wmma.accumulator"};

static bool role_dtype_ok(int role, DType dt) {
    if (role == WMMA_ACC) return dt == DT_FLOAT16 || dt == DT_FLOAT32;
    return dt == DT_FLOAT16 || dt == DT_BFLOAT16;
}

/* A WMMA fragment buffer: shape's elements as 16 x 16 fragments, each lane's 8 of each. */
Value *tl_wmma_alloc(Interp *in, Value *shape, Value *dtype, const char *scope, Loc loc,
                     const char *fname) {
    need_kernel(in, loc, fname);
    int role = 0;
    for (int r = WMMA_A; r <= WMMA_ACC; r++)
        if (!strcmp(scope, role_scopes[r])) role = r;
    if (!role)
        ctx_fail(in->ctx, loc,
                 "%s: scope \"%s\" is not a WMMA fragment scope (\"wmma.matrix_a\", "
                 "\"wmma.matrix_b\" or \"wmma.accumulator\")",
                 fname, scope);
    DType dt = dtype && dtype->kind != V_NONE ? val_to_dtype(in, dtype, loc, "dtype") : DT_FLOAT32;
    if (!role_dtype_ok(role, dt))
        ctx_fail(in->ctx, loc, "%s: a \"%s\" fragment holds %s, not %s", fname, scope,
                 role == WMMA_ACC ? "float16 or float32" : "float16 or bfloat16", dtype_name(dt));
    ValueList dims = {0};
    if (shape->kind == V_TUPLE || shape->kind == V_LIST) dims = shape->u.items;
    else VEC_PUSH(ARENA, dims, shape);
    int64_t total = 1;
    for (int i = 0; i < dims.len; i++) {
        int64_t d;
        if (!val_is_const_int(dims.data[i], &d) || d < 1)
            ctx_fail(in->ctx, loc, "%s: a WMMA fragment's shape must be positive constants", fname);
        total *= d;
    }
    if (total % FRAG_ELEMS)
        ctx_fail(in->ctx, loc,
                 "%s: a WMMA fragment buffer holds whole 16 x 16 fragments (tilec's shape is "
                 "m16n16k16); this one has %lld elements",
                 fname, (long long)total);
    Buffer *b = ir_buffer(in->ctx, arena_printf(ARENA, "__tmp%d", in->ctx->next_id), dt,
                          SCOPE_LOCAL, 1, loc);
    b->shape[0] = ir_int(in->ctx, total / 32, DT_INT32, loc);
    b->wmma = role;
    Stmt *s = ir_stmt(in->ctx, STMT_ALLOC, loc);
    s->u.alloc.buf = b;
    emit_stmt(in, s);
    Value *v = val_new(in, V_BUFFER);
    v->u.buf = b;
    return v;
}

static void need_shape(Interp *in, Value **mnk, Loc loc, const char *fname) {
    int64_t v[3];
    for (int i = 0; i < 3; i++) v[i] = val_to_int(in, mnk[i], loc, "m, n, k");
    if (v[0] != 16 || v[1] != 16 || v[2] != 16)
        ctx_fail(in->ctx, loc, "%s: m%lldn%lldk%lld is not supported (tilec has m16n16k16)", fname,
                 (long long)v[0], (long long)v[1], (long long)v[2]);
}

/* The fragment `index` of a fragment buffer (a WMMA buffer's .data) of one of the roles
 * (a mask of 1 << role): the lane's 8 elements of it. */
static ExternArg frag_arg(Interp *in, Value *v, Value *index, unsigned roles, int rw, Loc loc,
                          const char *fname, const char *what) {
    if (!v || v->kind != V_BUFFER || !v->u.buf->wmma)
        ctx_fail(in->ctx, loc,
                 "%s: the %s must be a WMMA fragment (a buffer of scope \"wmma.*\"), got %s", fname,
                 what, v ? val_describe(in, v) : "nothing");
    Buffer *b = v->u.buf;
    if (!(roles & 1u << b->wmma))
        ctx_fail(in->ctx, loc, "%s: the %s '%s' is a \"%s\" fragment; it must be %s%s", fname, what,
                 b->name, role_scopes[b->wmma],
                 roles & 1u << WMMA_ACC ? "\"wmma.accumulator\"" : "",
                 roles == 1u << WMMA_A   ? "\"wmma.matrix_a\""
                 : roles == 1u << WMMA_B ? "\"wmma.matrix_b\""
                                         : "");
    int64_t nfrag, i;
    ir_is_const_int(b->shape[0], &nfrag);
    nfrag /= LANE_ELEMS;
    Expr *ix = val_to_expr(in, index, loc, "index");
    if (ir_is_const_int(ix, &i) && (i < 0 || i >= nfrag))
        ctx_fail(in->ctx, loc, "%s: fragment index %lld is out of range: '%s' holds %lld", fname,
                 (long long)i, b->name, (long long)nfrag);
    ExternArg r = {0};
    r.buf = b, r.rw = rw;
    r.idx = NEW_ARRAY(ARENA, Expr *, 2);
    r.idx[0] = ir_bin(in->ctx, OP_MUL, ir_cast(in->ctx, DT_INT32, ix, loc),
                      ir_int(in->ctx, LANE_ELEMS, DT_INT32, loc), loc);
    r.extent = ir_int(in->ctx, LANE_ELEMS, DT_INT32, loc);
    return r;
}

/* T.tvm_fill_fragment(fragment, m, n, k, index, value): every element of the fragment. */
static Value *t_fill_fragment(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.tvm_fill_fragment";
    Value *av[6];
    args_bind(in, a, fname, "fragment, m, n, k, index, value", av, 6);
    need_warps(in, a->loc, fname);
    need_shape(in, av + 1, a->loc, fname);
    ExternArg f = frag_arg(in, av[0], av[4], 1u << WMMA_A | 1u << WMMA_B | 1u << WMMA_ACC, 2,
                           a->loc, fname, "fragment");
    Expr *value = av[5]->kind == V_FLOAT && dtype_is_float(f.buf->dtype)
                      ? ir_float(in->ctx, av[5]->u.f, f.buf->dtype, a->loc)
                      : ir_cast(in->ctx, f.buf->dtype, val_to_expr(in, av[5], a->loc, "value"),
                                a->loc);
    /* each lane's own registers: plain stores (the value is uniform, so no layout shows) */
    for (int i = 0; i < LANE_ELEMS; i++) {
        Stmt *s = ir_stmt(in->ctx, STMT_STORE, a->loc);
        s->u.store.buf = f.buf;
        s->u.store.idx = NEW_ARRAY(ARENA, Expr *, 2);
        s->u.store.idx[0] = ir_bin(in->ctx, OP_ADD, f.idx[0], ir_int(in->ctx, i, DT_INT32, a->loc),
                                   a->loc);
        s->u.store.value = value;
        emit_stmt(in, s);
    }
    return val_none(in);
}

static bool col_major(Interp *in, Value *v, Loc loc, const char *fname) {
    const char *s = v && v->kind == V_STR ? v->u.s : NULL;
    if (s && !strcmp(s, "row_major")) return false;
    if (s && (!strcmp(s, "col_major") || !strcmp(s, "column_major"))) return true;
    ctx_fail(in->ctx, loc, "%s: layout must be \"row_major\" or \"col_major\", got %s", fname,
             v ? val_describe(in, v) : "nothing");
}

/* T.tvm_load_matrix_sync / T.tvm_store_matrix_sync(fragment, m, n, k, index, buffer_ptr,
 * stride, layout): the 16 x 16 matrix at buffer_ptr (element (r, c) at r * stride + c,
 * col_major: c * stride + r) into / out of the fragment; stores from accumulators only. */
static Value *t_matrix_sync(Interp *in, CallArgs *a, void *d) {
    bool store = d != NULL;
    const char *fname = store ? "T.tvm_store_matrix_sync" : "T.tvm_load_matrix_sync";
    Value *av[8];
    args_bind(in, a, fname, "fragment, m, n, k, index, buffer_ptr, stride, layout", av, 8);
    need_warps(in, a->loc, fname);
    need_shape(in, av + 1, a->loc, fname);
    unsigned roles = store ? 1u << WMMA_ACC : 1u << WMMA_A | 1u << WMMA_B | 1u << WMMA_ACC;
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 3);
    args[0] = frag_arg(in, av[0], av[4], roles, store ? 1 : 2, a->loc, fname, "fragment");
    Value *p = av[5];
    if (!p || p->kind != V_PTR)
        ctx_fail(in->ctx, a->loc,
                 "%s: buffer_ptr must be T.access_ptr(x[i], ...) or T.tvm_access_ptr(...), got "
                 "%s",
                 fname, p ? val_describe(in, p) : "nothing");
    args[1].buf = p->u.ptr.buf, args[1].idx = p->u.ptr.idx, args[1].rw = store ? 2 : 1;
    Buffer *m = args[1].buf;
    if (m->scope != SCOPE_SHARED && m->scope != SCOPE_GLOBAL)
        ctx_fail(in->ctx, a->loc,
                 "%s: '%s' is a %s buffer; the matrix must be in shared or "
                 "global memory",
                 fname, m->name, scope_name(m->scope));
    if (m->dtype != args[0].buf->dtype)
        ctx_fail(in->ctx, a->loc, "%s: '%s' holds %s and the fragment '%s' %s", fname, m->name,
                 dtype_name(m->dtype), args[0].buf->name, dtype_name(args[0].buf->dtype));
    bool col = col_major(in, av[7], a->loc, fname);
    args[2].value = ir_cast(in->ctx, DT_INT32, val_to_expr(in, av[6], a->loc, "stride"), a->loc);
    args[1].extent = ir_bin(in->ctx, OP_ADD, /* rows (columns) 0 .. 15 */
                            ir_bin(in->ctx, OP_MUL, args[2].value,
                                   ir_int(in->ctx, 15, DT_INT32, a->loc), a->loc),
                            ir_int(in->ctx, 16, DT_INT32, a->loc), a->loc);
    static const char *const roles_c[] = {NULL, "a", "b", "c"};
    const char *name = arena_printf(ARENA, "tl_wmma_%s_%s_b%d%s", store ? "store" : "load",
                                    roles_c[args[0].buf->wmma], dtype_bytes(m->dtype),
                                    col ? "_col" : "");
    emit_runtime_call(in, name, args, 3, true, a->loc);
    return val_none(in);
}

/* T.tvm_mma_sync(d, index_d, a, index_a, b, index_b, c, index_c): D = A * B + C. */
static Value *t_mma_sync(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.tvm_mma_sync";
    Value *av[8];
    args_bind(in, a, fname,
              "fragment_d, index_d, fragment_a, index_a, fragment_b, index_b, fragment_c, "
              "index_c",
              av, 8);
    need_warps(in, a->loc, fname);
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 4);
    args[0] = frag_arg(in, av[0], av[1], 1u << WMMA_ACC, 3, a->loc, fname, "fragment_d");
    args[1] = frag_arg(in, av[2], av[3], 1u << WMMA_A, 1, a->loc, fname, "fragment_a");
    args[2] = frag_arg(in, av[4], av[5], 1u << WMMA_B, 1, a->loc, fname, "fragment_b");
    args[3] = frag_arg(in, av[6], av[7], 1u << WMMA_ACC, 1, a->loc, fname, "fragment_c");
    DType ta = args[1].buf->dtype, tb = args[2].buf->dtype, tc = args[3].buf->dtype;
    if (ta != tb || args[0].buf->dtype != tc || (ta == DT_BFLOAT16 && tc != DT_FLOAT32))
        ctx_fail(in->ctx, a->loc,
                 "%s: A %s, B %s, C %s, D %s is not supported (tilec has float16 -> float16 "
                 "or float32, bfloat16 -> float32; C and D of one dtype)",
                 fname, dtype_name(ta), dtype_name(tb), dtype_name(tc),
                 dtype_name(args[0].buf->dtype));
    const char *name = arena_printf(ARENA, "tl_wmma_mma_%s_%s", tc == DT_FLOAT32 ? "f32" : "f16",
                                    ta == DT_FLOAT16 ? "f16" : "bf16");
    emit_runtime_call(in, name, args, 4, true, a->loc);
    return val_none(in);
}

/* T.tvm_tuple(*values): the tuple, as the value of a T.attr annotation (which tilec
 * keeps no further). */
static Value *t_tvm_tuple(Interp *in, CallArgs *a, void *d) {
    (void)d;
    if (a->kw.len) ctx_fail(in->ctx, a->loc, "T.tvm_tuple takes no keyword arguments");
    Value *t = val_new(in, V_TUPLE);
    for (int i = 0; i < a->pos.len; i++) VEC_PUSH(ARENA, t->u.items, a->pos.data[i]);
    return t;
}

/* T.tvm_bmma_sync: an error that says why. */
static Value *t_bmma_sync(Interp *in, CallArgs *a, void *d) {
    (void)d;
    ctx_fail(in->ctx, a->loc,
             "T.tvm_bmma_sync is not supported by tilec (1-bit operands: tilec has no 1-bit "
             "dtype)");
}

#define WMMA_STATUS "C, CUDA (m16n16k16; float16/bfloat16 inputs)"
static const TName wmma_fns[] = {
    {"tvm_fill_fragment", t_fill_fragment, NULL, WMMA_STATUS},
    {"tvm_load_matrix_sync", t_matrix_sync, NULL, WMMA_STATUS},
    {"tvm_store_matrix_sync", t_matrix_sync, "store", WMMA_STATUS},
    {"tvm_mma_sync", t_mma_sync, NULL, WMMA_STATUS},
    {"tvm_tuple", t_tvm_tuple, NULL, "C, CUDA (the value of a `T.attr`, which has no effect)"},
    {"tvm_bmma_sync", t_bmma_sync, NULL, "not yet (compile error)"},
};
#undef WMMA_STATUS
const TNames tl_wmma_names = {wmma_fns, (int)(sizeof wmma_fns / sizeof *wmma_fns)};
