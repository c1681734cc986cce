/* tileops_mma.c - TileLang's warp-level tensor-core primitives, on per-thread (local)
 * buffers: T.ptx_mma (mma.sync m16n8k16 f16/bf16, m16n8k32 s8/u8 and fp8 (sm_89+),
 * m16n8k8 tf32), T.ptx_mma_sm70 (Volta's mma.sync.m8n8k4, TileLang's m16n16k4),
 * T.ptx_ldmatrix (ldmatrix .x1/.x2/.x4, .trans), T.mma_store (an accumulator tile to
 * memory by the mma lane layout) and T.mma_fill (zeroed registers).
 *
 * Each becomes a STMT_EXTERN call of a prelude function (runtime/c/tl_c.h for the C
 * target, runtime/cuda/tl_cuda.h for CUDA, where it is the PTX instruction); the first
 * three are warp-collective (extern_.warp): every lane of a warp runs them together and
 * they read the other lanes' operands, so they are thread-level code outside any
 * thread-dependent condition, in blocks whose thread count is a multiple of 32. The
 * fragment element each lane holds is the PTX ISA's ("Matrix fragments for mma.m16n8k*"),
 * written out in tl_c.h.
 *
 * Second part: TileLang's Python-level helpers over these (the TensorCoreIntrinEmitter,
 * get_swizzle_layout, ...), which are TileLang-language modules of the Python package
 * (python/tilec/compat/intrinsics/) embedded in libtilec and run by its meta level: the
 * T.<name> spellings and the tilelang.cuda.intrinsics / tilelang.intrinsics paths. */
#include "frontend/eval.h"

#include <string.h>

#define ARENA (&in->ctx->arena)

/* An operand dtype of T.ptx_mma: its PTX type name and the buffer dtype holding it. */
typedef struct MmaType {
    const char *ptx; /* f16 bf16 tf32 f32 s8 u8 s32 */
    DType dtype;
} MmaType;

static const struct {
    const char *spelling;
    MmaType type;
} mma_types[] = {
    {"fp16", {"f16", DT_FLOAT16}},
    {"float16", {"f16", DT_FLOAT16}},
    {"f16", {"f16", DT_FLOAT16}},
    {"bf16", {"bf16", DT_BFLOAT16}},
    {"bfloat16", {"bf16", DT_BFLOAT16}},
    {"fp32", {"f32", DT_FLOAT32}},
    {"float32", {"f32", DT_FLOAT32}},
    {"f32", {"f32", DT_FLOAT32}},
    {"tf32", {"tf32", DT_FLOAT32}},
    {"int8", {"s8", DT_INT8}},
    {"s8", {"s8", DT_INT8}},
    {"uint8", {"u8", DT_UINT8}},
    {"u8", {"u8", DT_UINT8}},
    {"int32", {"s32", DT_INT32}},
    {"s32", {"s32", DT_INT32}},
    {"e4m3", {"e4m3", DT_FLOAT8_E4M3}},
    {"float8_e4m3", {"e4m3", DT_FLOAT8_E4M3}},
    {"e5m2", {"e5m2", DT_FLOAT8_E5M2}},
    {"float8_e5m2", {"e5m2", DT_FLOAT8_E5M2}},
};

/* The shapes and types mma.sync takes here: shape, A, B, C (D is C's type). */
static const char *const mma_combos[][4] = {
    {"m16n8k16", "f16", "f16", "f32"},   {"m16n8k16", "bf16", "bf16", "f32"},
    {"m16n8k16", "f16", "f16", "f16"},   {"m16n8k32", "s8", "s8", "s32"},
    {"m16n8k32", "s8", "u8", "s32"},     {"m16n8k32", "u8", "s8", "s32"},
    {"m16n8k32", "u8", "u8", "s32"},     {"m16n8k8", "tf32", "tf32", "f32"},
    {"m16n8k32", "e4m3", "e4m3", "f32"}, {"m16n8k32", "e4m3", "e5m2", "f32"}, /* sm_89+ */
    {"m16n8k32", "e5m2", "e4m3", "f32"}, {"m16n8k32", "e5m2", "e5m2", "f32"},
};

static const char *text_arg(Interp *in, Value *v, Loc loc, const char *fname, const char *what) {
    if (v && v->kind == V_STR) return v->u.s;
    if (v && v->kind == V_DTYPE) return dtype_name(v->u.dtype);
    ctx_fail(in->ctx, loc, "%s: %s must be a string, got %s", fname, what,
             v ? val_describe(in, v) : "nothing");
}

static MmaType mma_type(Interp *in, Value *v, Loc loc, const char *what) {
    const char *s = text_arg(in, v, loc, "T.ptx_mma", what);
    for (size_t i = 0; i < sizeof mma_types / sizeof *mma_types; i++)
        if (!strcmp(mma_types[i].spelling, s)) return mma_types[i].type;
    ctx_fail(in->ctx, loc,
             "T.ptx_mma: %s '%s' is not one tilec supports (fp16, bf16, tf32, fp32, int8, "
             "uint8, int32, e4m3, e5m2)",
             what, s);
}

/* buf's element at flat offset off (a 1-D view of the buffer's elements). */
static Expr **flat_index(Interp *in, Buffer *b, Expr *off, Loc loc) {
    Expr **idx = NEW_ARRAY(ARENA, Expr *, b->ndim + 1);
    for (int k = b->ndim - 1; k >= 0; k--) {
        idx[k] = k ? ir_bin(in->ctx, OP_FLOORMOD, off, b->shape[k], loc) : off;
        if (k) off = ir_bin(in->ctx, OP_FLOORDIV, off, b->shape[k], loc);
    }
    return idx;
}

enum { LOCAL = 1u << SCOPE_LOCAL, SHARED = 1u << SCOPE_SHARED, GLOBAL = 1u << SCOPE_GLOBAL };

/* A pointer operand: T.access_ptr(x[i], ...) (off NULL), or a buffer's .data and an
 * element offset; in memory of one of the scopes (a mask), `elems` elements read (rw 1) or written. */
static ExternArg ptr_arg(Interp *in, Value *v, Value *off, unsigned scopes, int64_t elems, int rw,
                         Loc loc, const char *fname, const char *what) {
    ExternArg r = {0};
    r.rw = rw;
    if (v && v->kind == V_PTR && !off) {
        r.buf = v->u.ptr.buf, r.idx = v->u.ptr.idx;
    } else if (v && v->kind == V_BUFFER) {
        r.buf = is_local_view(v->u.buf) ? v->u.buf->base : v->u.buf; /* (the same memory) */
        Expr *o = off ? val_to_expr(in, off, loc, what) : ir_int(in->ctx, 0, DT_INT32, loc);
        r.idx = flat_index(in, r.buf, o, loc);
    } else {
        ctx_fail(in->ctx, loc, "%s: the %s must be %s, got %s", fname, what,
                 off ? "a buffer's .data" : "T.access_ptr(x[i], ...) or a buffer",
                 v ? val_describe(in, v) : "nothing");
    }
    if (!(scopes & 1u << r.buf->scope))
        ctx_fail(in->ctx, loc, "%s: the %s '%s' is a %s buffer; it must be %s", fname, what,
                 r.buf->name, scope_name(r.buf->scope),
                 scopes == LOCAL    ? "a T.alloc_local buffer (each thread's registers)"
                 : scopes == SHARED ? "in shared memory"
                                    : "in shared or global memory");
    r.extent = ir_int(in->ctx, elems, DT_INT32, loc);
    return r;
}

static void need_dtype(Interp *in, const ExternArg *x, DType want, Loc loc, const char *what) {
    if (x->buf->dtype != want)
        ctx_fail(in->ctx, loc, "T.ptx_mma: %s '%s' holds %s, but the instruction's type is %s",
                 what, x->buf->name, dtype_name(x->buf->dtype), dtype_name(want));
}

/* T.ptx_mma(dtype, shape, A_layout, B_layout, A_dtype, B_dtype, C_dtype, a, a_index, b,
 * b_index, c, c_index, saturate, operator=None): D = A * B + C into c, one mma.sync of
 * the warp; a, b, c are local buffers' .data, the indices element offsets of the lane's
 * fragment registers. */
static Value *t_ptx_mma(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.ptx_mma";
    Value *av[15];
    args_bind(in, a, fname,
              "dtype, shape, A_layout, B_layout, A_dtype, B_dtype, C_dtype, multiplicand_a, "
              "a_index, multiplicand_b, b_index, accumulator, c_index, saturate=, operator=",
              av, 15);
    need_warps(in, a->loc, fname);
    const char *shape = text_arg(in, av[1], a->loc, fname, "shape");
    const char *la = text_arg(in, av[2], a->loc, fname, "A_layout");
    const char *lb = text_arg(in, av[3], a->loc, fname, "B_layout");
    if (strcmp(la, "row") || strcmp(lb, "col"))
        ctx_fail(in->ctx, a->loc,
                 "%s: mma.sync.m16n8k* takes A row-major and B column-major (\"row\", \"col\"), "
                 "got \"%s\", \"%s\"",
                 fname, la, lb);
    MmaType ta = mma_type(in, av[4], a->loc, "A_dtype"),
            tb = mma_type(in, av[5], a->loc, "B_dtype");
    MmaType tc = mma_type(in, av[6], a->loc, "C_dtype");
    if (!strcmp(tc.ptx, "tf32")) tc.ptx = "f32";
    if (!strcmp(shape, "m16n8k8") && !strcmp(ta.ptx, "f32")) ta.ptx = tb.ptx = "tf32";
    int combo = -1;
    for (int i = 0; i < (int)(sizeof mma_combos / sizeof *mma_combos); i++)
        if (!strcmp(mma_combos[i][0], shape) && !strcmp(mma_combos[i][1], ta.ptx) &&
            !strcmp(mma_combos[i][2], tb.ptx) && !strcmp(mma_combos[i][3], tc.ptx))
            combo = i;
    if (combo < 0)
        ctx_fail(in->ctx, a->loc,
                 "%s: %s with A %s, B %s, C %s is not supported (tilec has m16n8k16 f16/bf16 -> "
                 "f32, f16 -> f16, m16n8k32 s8/u8 -> s32, e4m3/e5m2 -> f32, m16n8k8 tf32 -> "
                 "f32)",
                 fname, shape, ta.ptx, tb.ptx, tc.ptx);
    if (av[13] && av[13]->kind != V_NONE && val_truthy(in, av[13], a->loc))
        ctx_fail(in->ctx, a->loc, "%s: saturate=True is not supported", fname);
    if (av[14] && av[14]->kind != V_NONE)
        ctx_fail(in->ctx, a->loc, "%s: the 1-bit operators (operator=) are not supported", fname);
    DType dt = val_to_dtype(in, av[0], a->loc, "dtype");
    if (dt != tc.dtype)
        ctx_fail(in->ctx, a->loc, "%s: dtype %s differs from C_dtype's %s", fname, dtype_name(dt),
                 dtype_name(tc.dtype));
    int k = shape[6] == '3' ? 32 : shape[6] == '1' ? 16 : 8;
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 3);
    args[0] = ptr_arg(in, av[7], av[8], LOCAL, 16 * k / 32, 1, a->loc, fname, "A operand");
    args[1] = ptr_arg(in, av[9], av[10], LOCAL, 8 * k / 32, 1, a->loc, fname, "B operand");
    args[2] = ptr_arg(in, av[11], av[12], LOCAL, 4, 3, a->loc, fname, "accumulator");
    need_dtype(in, &args[0], ta.dtype, a->loc, "the A operand");
    need_dtype(in, &args[1], tb.dtype, a->loc, "the B operand");
    need_dtype(in, &args[2], tc.dtype, a->loc, "the accumulator");
    const char *name = arena_printf(ARENA, "tl_ptx_mma_%s_%s_%s_%s", shape, tc.ptx, ta.ptx, tb.ptx);
    emit_runtime_call(in, name, args, 3, true, a->loc);
    return val_none(in);
}

/* T.ptx_ldmatrix(trans, num, src_ptr, dst_ptr) (TileLang: T.access_ptr pointers) or
 * T.ptx_ldmatrix(dtype, trans, num, ".b16", local, local_offset, smem, smem_offset)
 * (TVM): num 8x8 matrices of 16-bit cells from shared memory, lane l giving the address
 * of row l % 8 of matrix l / 8; lane l receives 4 bytes of each (ldmatrix's layout). */
static Value *t_ptx_ldmatrix(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.ptx_ldmatrix";
    bool tvm = a->pos.len + a->kw.len == 8;
    Value *av[8];
    if (tvm)
        args_bind(in, a, fname,
                  "dtype, trans, num, type, local_ptr, local_offset, smem_ptr, smem_offset", av, 8);
    else args_bind(in, a, fname, "trans, num, src_access_ptr, dst_access_ptr", av, 4);
    Value **v = tvm ? av + 1 : av;
    need_warps(in, a->loc, fname);
    bool trans = val_truthy(in, v[0], a->loc);
    int64_t num = val_to_int(in, v[1], a->loc, "num");
    if (num != 1 && num != 2 && num != 4)
        ctx_fail(in->ctx, a->loc, "%s: num is the number of 8x8 matrices, 1, 2 or 4; got %lld",
                 fname, (long long)num);
    if (tvm && strcmp(text_arg(in, av[3], a->loc, fname, "type"), ".b16"))
        ctx_fail(in->ctx, a->loc, "%s: the matrices' type must be \".b16\"", fname);
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 2);
    Value *dst = tvm ? av[4] : av[3], *src = tvm ? av[6] : av[2];
    args[0] = ptr_arg(in, dst, tvm ? av[5] : NULL, LOCAL, 1, 2, a->loc, fname, "destination");
    args[1] = ptr_arg(in, src, tvm ? av[7] : NULL, SHARED, 1, 1, a->loc, fname, "source");
    int bytes = dtype_bytes(args[1].buf->dtype);
    if (dtype_bytes(args[0].buf->dtype) != bytes || (bytes != 1 && bytes != 2 && bytes != 4))
        ctx_fail(in->ctx, a->loc,
                 "%s moves raw 16-bit cells: the source (%s) and destination (%s) must have "
                 "elements of one size, 1, 2 or 4 bytes",
                 fname, dtype_name(args[1].buf->dtype), dtype_name(args[0].buf->dtype));
    if (trans && bytes != 2)
        ctx_fail(in->ctx, a->loc, "%s: .trans transposes 16-bit elements; '%s' holds %s", fname,
                 args[1].buf->name, dtype_name(args[1].buf->dtype));
    args[0].extent = ir_int(in->ctx, num * 4 / bytes, DT_INT32, a->loc);
    args[1].extent = ir_int(in->ctx, 16 / bytes, DT_INT32, a->loc);
    const char *name = arena_printf(ARENA, "tl_ptx_ldmatrix_x%lld%s", (long long)num,
                                    trans ? "_trans" : "");
    emit_runtime_call(in, name, args, 2, true, a->loc);
    return val_none(in);
}

/* T.mma_store(dtype, m, n, dst_ptr, src_ptr, src_offset, dst_stride): the warp's m x n
 * accumulator tile (16 x 8 or 16 x 16, the mma.sync C layout, n / 8 tiles side by side)
 * from each lane's registers at src_offset to dst, rows dst_stride elements apart. */
static Value *t_mma_store(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.mma_store";
    Value *av[7];
    args_bind(in, a, fname, "dtype, m, n, dst_ptr, src_ptr, src_offset, dst_stride", av, 7);
    need_warps(in, a->loc, fname);
    int64_t m = val_to_int(in, av[1], a->loc, "m"), n = val_to_int(in, av[2], a->loc, "n");
    if (m != 16 || (n != 8 && n != 16))
        ctx_fail(in->ctx, a->loc, "%s stores a 16 x 8 or 16 x 16 tile, got %lld x %lld", fname,
                 (long long)m, (long long)n);
    DType dt = val_to_dtype(in, av[0], a->loc, "dtype");
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 3);
    args[0] = ptr_arg(in, av[3], NULL, SHARED | GLOBAL, 1, 2, a->loc, fname, "destination");
    args[1] = ptr_arg(in, av[4], av[5], LOCAL, m * n / 32, 1, a->loc, fname, "source");
    args[2].value = ir_cast(in->ctx, DT_INT32, val_to_expr(in, av[6], a->loc, "dst_stride"),
                            a->loc);
    for (int i = 0; i < 2; i++)
        if (args[i].buf->dtype != dt)
            ctx_fail(in->ctx, a->loc, "%s: '%s' holds %s, not the dtype %s", fname,
                     args[i].buf->name, dtype_name(args[i].buf->dtype), dtype_name(dt));
    args[0].extent = ir_bin(in->ctx, OP_ADD, /* rows 0 .. 15 */
                            ir_bin(in->ctx, OP_MUL, args[2].value,
                                   ir_int(in->ctx, 15, DT_INT32, a->loc), a->loc),
                            ir_int(in->ctx, n, DT_INT32, a->loc), a->loc);
    const char *name = arena_printf(ARENA, "tl_mma_store_16x%lld_b%d", (long long)n,
                                    dtype_bytes(dt));
    emit_runtime_call(in, name, args, 3, true, a->loc);
    return val_none(in);
}

/* T.mma_fill(dtype, local_size, local_ptr, offset): local_size elements of the thread's
 * registers from offset on set to zero. */
static Value *t_mma_fill(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.mma_fill";
    Value *av[4];
    args_bind(in, a, fname, "dtype, local_size, local_ptr, offset", av, 4);
    need_kernel(in, a->loc, fname);
    DType dt = val_to_dtype(in, av[0], a->loc, "dtype");
    int64_t n = val_to_int(in, av[1], a->loc, "local_size");
    if (n < 1) ctx_fail(in->ctx, a->loc, "%s: local_size must be positive", fname);
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 2);
    args[0] = ptr_arg(in, av[2], av[3], LOCAL, n, 2, a->loc, fname, "destination");
    if (args[0].buf->dtype != dt)
        ctx_fail(in->ctx, a->loc, "%s: '%s' holds %s, not the dtype %s", fname, args[0].buf->name,
                 dtype_name(args[0].buf->dtype), dtype_name(dt));
    args[1].value = ir_int(in->ctx, n * dtype_bytes(dt), DT_INT32, a->loc);
    mem_thread_level(in);
    emit_runtime_call(in, "tl_mma_fill", args, 2, false, a->loc);
    return val_none(in);
}

/* A layout argument of T.ptx_mma_sm70: "row" or "col". */
static bool sm70_layout(Interp *in, Value *v, Loc loc, const char *what) {
    const char *s = text_arg(in, v, loc, "T.ptx_mma_sm70", what);
    if (strcmp(s, "row") && strcmp(s, "col"))
        ctx_fail(in->ctx, loc, "T.ptx_mma_sm70: %s must be \"row\" or \"col\", got \"%s\"", what,
                 s);
    return !strcmp(s, "col");
}

/* T.ptx_mma_sm70(shape, A_layout, B_layout, A_dtype, B_dtype, C_dtype, a, a_index, b,
 * b_index, c, c_index): TileLang's m16n16k4 of one warp, the Volta mma.sync.m8n8k4 (f16
 * in, f16 or f32 accumulators): each quad pair of lanes (4q .. 4q + 3 and 16 + 4q ..)
 * multiplies its own 8 x 4 A by its own 4 x 8 B; 4 A, 4 B and 8 C elements per lane. */
static Value *t_ptx_mma_sm70(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.ptx_mma_sm70";
    Value *av[12];
    args_bind(in, a, fname,
              "shape, A_layout, B_layout, A_dtype, B_dtype, C_dtype, multiplicand_a, a_index, "
              "multiplicand_b, b_index, accumulator, c_index",
              av, 12);
    need_warps(in, a->loc, fname);
    const char *shape = text_arg(in, av[0], a->loc, fname, "shape");
    if (strcmp(shape, "m16n16k4"))
        ctx_fail(in->ctx, a->loc, "%s: the shape is \"m16n16k4\" (mma.sync.m8n8k4), got \"%s\"",
                 fname, shape);
    bool acol = sm70_layout(in, av[1], a->loc, "A_layout");
    bool bcol = sm70_layout(in, av[2], a->loc, "B_layout");
    MmaType ta = mma_type(in, av[3], a->loc, "A_dtype"),
            tb = mma_type(in, av[4], a->loc, "B_dtype");
    MmaType tc = mma_type(in, av[5], a->loc, "C_dtype");
    if (strcmp(ta.ptx, "f16") || strcmp(tb.ptx, "f16") ||
        (strcmp(tc.ptx, "f16") && strcmp(tc.ptx, "f32")))
        ctx_fail(in->ctx, a->loc,
                 "%s: mma.sync.m8n8k4 takes f16 A and B and f16 or f32 C, got A %s, B %s, C %s",
                 fname, ta.ptx, tb.ptx, tc.ptx);
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 3);
    args[0] = ptr_arg(in, av[6], av[7], LOCAL, 4, 1, a->loc, fname, "A operand");
    args[1] = ptr_arg(in, av[8], av[9], LOCAL, 4, 1, a->loc, fname, "B operand");
    args[2] = ptr_arg(in, av[10], av[11], LOCAL, 8, 3, a->loc, fname, "accumulator");
    need_dtype(in, &args[0], ta.dtype, a->loc, "the A operand");
    need_dtype(in, &args[1], tb.dtype, a->loc, "the B operand");
    need_dtype(in, &args[2], tc.dtype, a->loc, "the accumulator");
    const char *name = arena_printf(ARENA, "tl_ptx_mma_sm70_%s_%s_%s", acol ? "col" : "row",
                                    bcol ? "col" : "row", tc.ptx);
    emit_runtime_call(in, name, args, 3, true, a->loc);
    return val_none(in);
}

/* T.ptx_mma_sp(dtype, shape, A_layout, B_layout, A_dtype, B_dtype, C_dtype, a, a_index, b,
 * b_index, c, c_index, metadata, meta_index, sparse_selector, saturate): D = A * B + C
 * with A 2:4 sparse, one mma.sp of the warp (m16n8k32 f16/bf16 -> f32 only): a holds the
 * lane's 8 kept values (the layout of a dense m16n8k16 A), b its 8 B values, metadata the
 * 32 bits at meta_index of a local buffer (lane 4g + h: rows g (bits 0..15) and g + 8
 * (16..31) of k half h, 4 bits per group of 4 as T.gemm_sp's E; selector 0: lanes 4g and
 * 4g + 1 give it, the other lanes' are not read). */
static Value *t_ptx_mma_sp(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.ptx_mma_sp";
    Value *av[17];
    args_bind(in, a, fname,
              "dtype, shape, A_layout, B_layout, A_dtype, B_dtype, C_dtype, multiplicand_a, "
              "a_index, multiplicand_b, b_index, accumulator, c_index, metadata, meta_index, "
              "sparse_selector, saturate=",
              av, 17);
    need_warps(in, a->loc, fname);
    const char *shape = text_arg(in, av[1], a->loc, fname, "shape");
    const char *la = text_arg(in, av[2], a->loc, fname, "A_layout");
    const char *lb = text_arg(in, av[3], a->loc, fname, "B_layout");
    MmaType ta = mma_type(in, av[4], a->loc, "A_dtype"),
            tb = mma_type(in, av[5], a->loc, "B_dtype");
    MmaType tc = mma_type(in, av[6], a->loc, "C_dtype");
    bool f16 = !strcmp(ta.ptx, "f16") || !strcmp(ta.ptx, "bf16");
    if (strcmp(shape, "m16n8k32") || !f16 || strcmp(ta.ptx, tb.ptx) || strcmp(tc.ptx, "f32") ||
        strcmp(la, "row") || strcmp(lb, "col"))
        ctx_fail(in->ctx, a->loc,
                 "%s: %s %s.%s with A %s, B %s, C %s is not supported (tilec has m16n8k32 "
                 "row.col f16/bf16 -> f32)",
                 fname, shape, la, lb, ta.ptx, tb.ptx, tc.ptx);
    if (val_to_int(in, av[15], a->loc, "sparse_selector") != 0)
        ctx_fail(in->ctx, a->loc,
                 "%s: sparse_selector must be 0 (lanes 4g and 4g + 1 give the "
                 "metadata)",
                 fname);
    if (av[16] && av[16]->kind != V_NONE && val_truthy(in, av[16], a->loc))
        ctx_fail(in->ctx, a->loc, "%s: saturate=True is not supported", fname);
    if (val_to_dtype(in, av[0], a->loc, "dtype") != DT_FLOAT32)
        ctx_fail(in->ctx, a->loc, "%s: dtype must be float32 (C_dtype's)", fname);
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 4);
    args[0] = ptr_arg(in, av[7], av[8], LOCAL, 8, 1, a->loc, fname, "A operand");
    args[1] = ptr_arg(in, av[9], av[10], LOCAL, 8, 1, a->loc, fname, "B operand");
    args[2] = ptr_arg(in, av[11], av[12], LOCAL, 4, 3, a->loc, fname, "accumulator");
    args[3] = ptr_arg(in, av[13], av[14], LOCAL, 1, 1, a->loc, fname, "metadata");
    need_dtype(in, &args[0], ta.dtype, a->loc, "the A operand");
    need_dtype(in, &args[1], tb.dtype, a->loc, "the B operand");
    need_dtype(in, &args[2], DT_FLOAT32, a->loc, "the accumulator");
    DType et = args[3].buf->dtype;
    if (!dtype_is_int(et) || et == DT_BOOL || dtype_bits(et) > 32)
        ctx_fail(in->ctx, a->loc, "%s: the metadata '%s' must be an integer buffer, not %s", fname,
                 args[3].buf->name, dtype_name(et));
    args[3].extent = ir_int(in->ctx, 32 / dtype_bits(et), DT_INT32, a->loc); /* 32 bits */
    const char *name = arena_printf(ARENA, "tl_ptx_mma_sp_m16n8k32_f32_%s_%s", ta.ptx, tb.ptx);
    emit_runtime_call(in, name, args, 4, true, a->loc);
    return val_none(in);
}

static const TName mma_fns[] = {
    {"ptx_mma", t_ptx_mma, NULL, NULL},           {"ptx_ldmatrix", t_ptx_ldmatrix, NULL, NULL},
    {"mma_store", t_mma_store, NULL, NULL},       {"mma_fill", t_mma_fill, NULL, NULL},
    {"ptx_mma_sm70", t_ptx_mma_sm70, NULL, NULL}, {"ptx_mma_sp", t_ptx_mma_sp, NULL, NULL},
};
const TNames tl_mma_names = {mma_fns, (int)(sizeof mma_fns / sizeof *mma_fns)};

/* ---- TileLang's intrinsics helpers (python/tilec/compat/intrinsics/NAME.py) ----------------
 * The emitter classes and layout helpers are TileLang-language source that libtilec
 * embeds and runs as modules (once per compilation): `from tilelang.cuda.intrinsics...
 * import X` and T.X find X there. */
#include "embedded_python.h"

static bool intrinsics_path(const char *path) {
    static const char *const roots[] = {"tilelang.intrinsics", "tilelang.cuda.intrinsics",
                                        "tilelang.cuda.language.intrinsics"};
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        size_t n = strlen(roots[i]);
        if (!strncmp(path, roots[i], n) && (!path[n] || path[n] == '.')) return true;
    }
    return false;
}

static Value *embedded_attr(Interp *in, const char *attr) {
    if (attr[0] == '_') return NULL;
    for (size_t i = 0; i < sizeof embedded_python / sizeof *embedded_python; i++) {
        Value *m = import_embedded_module(in, embedded_python[i].name, embedded_python[i].text);
        Value *v = env_get(m->u.obj.attrs, attr);
        if (v && v->kind != V_MODULE) return v;
    }
    return NULL;
}

/* A submodule's name in those trees (layout, macro, utils, *_layout, *_generator). */
static bool submodule_name(const char *attr) {
    size_t n = strlen(attr);
    return !strcmp(attr, "layout") || !strcmp(attr, "macro") || !strcmp(attr, "utils") ||
           (n > 7 && !strcmp(attr + n - 7, "_layout")) ||
           (n > 10 && !strcmp(attr + n - 10, "_generator"));
}

Value *tl_intrinsics_attr(Interp *in, const char *path, const char *attr) {
    if (!intrinsics_path(path) || attr[0] == '_' || submodule_name(attr)) return NULL;
    Value *v = embedded_attr(in, attr);
    if (v) return v;
    v = val_new(in, V_ERROR); /* an error where it is used (an import of it is fine) */
    v->u.error.use_msg = arena_printf(
        ARENA,
        "%s.%s is not in tilec: of TileLang's intrinsics helpers tilec has the mma.sync "
        "emitter TensorCoreIntrinEmitter, get_ldmatrix_offset, get_mma_micro_size, "
        "get_swizzle_layout, make_mma_swizzle_layout and mma_store_index_map",
        path, attr);
    return v;
}

/* T.<name> of TileLang's re-exports of those helpers: the module's, called. */
static Value *t_intrinsics_name(Interp *in, CallArgs *a, void *d) {
    Value *v = embedded_attr(in, d);
    if (!v) tl_internal_error(__FILE__, __LINE__, "an embedded intrinsics name is missing");
    return call_value(in, v, a);
}

#define I(x) ((const void *)(x))
static const TName intrinsics_fns[] = {
    {"TensorCoreIntrinEmitter", t_intrinsics_name, I("TensorCoreIntrinEmitter"), NULL},
    {"get_ldmatrix_offset", t_intrinsics_name, I("get_ldmatrix_offset"), NULL},
    {"get_mma_micro_size", t_intrinsics_name, I("get_mma_micro_size"), NULL},
    {"get_swizzle_layout", t_intrinsics_name, I("get_swizzle_layout"), NULL},
    {"make_mma_swizzle_layout", t_intrinsics_name, I("make_mma_swizzle_layout"), NULL},
    {"mma_store_index_map", t_intrinsics_name, I("mma_store_index_map"), NULL},
};
#undef I
const TNames tl_intrinsics_names = {intrinsics_fns,
                                    (int)(sizeof intrinsics_fns / sizeof *intrinsics_fns)};
