/* tileops_wgmma.c - TileLang's raw wgmma names (tilelang/language/allocate.py, builtin.py,
 * cuda/language/tir.py), with which a program builds the shared-memory matrix descriptors
 * and issues each wgmma itself:
 *   T.alloc_descriptor(kind="wgmma", dtype="uint64"), T.alloc_wgmma_desc(dtype=): a
 *     descriptor, each thread's 64-bit value (a local buffer of one element).
 *   T.initialize_wgmma_descriptor(desc, start_address, layout_type_=0,
 *     leading_byte_offset=0, stride_byte_offset=0): desc describes the shared memory
 *     from start_address on (the offsets already >> 4; layout 0 none, 1 128B, 2 64B,
 *     3 32B swizzle). T.increase_descriptor_offset(desc, bytes): bytes further on.
 *   T.ptx_wgmma_ss(dtype, prefix, a_is_k_major, b_is_k_major, a_abbrv, b_abbrv, c_abbrv,
 *     A_desc, A_offset, B_desc, B_offset, C_data, C_offset, scale_out, scale_in_a,
 *     scale_in_b): one wgmma.mma_async of the thread's warpgroup, the offsets (16-byte
 *     units) added to the descriptors, the accumulators C_data[C_offset ..] (a local
 *     float32 buffer: each thread's registers).
 *   T.ptx_wgmma_rs(dtype, prefix, b_is_k_major, a_abbrv, b_abbrv, c_abbrv, A_buf, A_offset,
 *     B_desc, B_offset, C_data, C_offset, scale_out, scale_in_a, scale_in_b): A from 16
 *     bytes of each thread's local A_buf (wgmma's A fragment layout).
 *   T.warpgroup_arrive(), T.warpgroup_commit_batch(), T.warpgroup_fence_operand(buf,
 *     offset=0, num_regs=None, dtype=None): wgmma.fence, wgmma.commit_group, and the
 *     compiler's fence on registers. (T.warpgroup_wait is tileops_expert.c's.)
 *   T.wgmma_mma: TileLang's other name of T.wgmma_gemm.
 * Each is a thread-level call of a runtime function (STMT_EXTERN of tl_* names in
 * runtime/c/tl_c.h and runtime/cuda/tl_cuda.h). The C target computes a wgmma when it is
 * issued, each thread its own accumulators, reading shared memory through the
 * descriptors as the hardware does; the CUDA emitter writes the instruction (sm_90a;
 * elsewhere an error at the call). A descriptor remembers the shared buffer it was last
 * made for, which a wgmma through it names as read (barriers and liveness see it). */
#include "frontend/eval.h"

#include <stdio.h>
#include <string.h>

#define ARENA (&in->ctx->arena)

static Expr *i32(Interp *in, int64_t v, Loc loc) { return ir_int(in->ctx, v, DT_INT32, loc); }

/* Element offset oe (an int expression) of buffer b as row-major indices. */
static Expr **flat_index(Interp *in, const Buffer *b, Expr *oe, Loc loc) {
    Expr **idx = NEW_ARRAY(ARENA, Expr *, b->ndim + 1);
    for (int d = b->ndim - 1; d >= 0; d--) {
        idx[d] = d ? ir_bin(in->ctx, OP_FLOORMOD, oe, b->shape[d], loc) : oe;
        if (d) oe = ir_bin(in->ctx, OP_FLOORDIV, oe, b->shape[d], loc);
    }
    return idx;
}

/* A thread-level call of runtime function name with args (its values and pointers). */
static Stmt *runtime_call(Interp *in, const char *name, ExternArg *args, int nargs, Loc loc) {
    Stmt *s = ir_stmt(in->ctx, STMT_EXTERN, loc);
    s->u.extern_.name = name, s->u.extern_.args = args, s->u.extern_.nargs = nargs;
    mem_thread_level(in);
    VEC_PUSH(ARENA, in->func->externs, name);
    emit_stmt(in, s);
    return s;
}

static ExternArg value_arg(Expr *e) { return (ExternArg){.value = e}; }

/* A pointer to element 0 of b (b's whole memory when extent is set). */
static ExternArg buffer_arg(Interp *in, Buffer *b, int rw, bool whole, Loc loc) {
    if (is_local_view(b)) b = b->base; /* the same memory (views.c) */
    ExternArg r = {.buf = b, .rw = rw};
    r.idx = NEW_ARRAY(ARENA, Expr *, b->ndim + 1);
    Expr *n = i32(in, 1, loc);
    for (int d = 0; d < b->ndim; d++) {
        r.idx[d] = i32(in, 0, loc);
        if (whole) n = ir_bin(in->ctx, OP_MUL, n, b->shape[d], loc);
    }
    r.extent = n;
    return r;
}

/* ---- descriptors ------------------------------------------------------------------------ */
static Value *desc_alloc(Interp *in, Value *dtype, Loc loc, const char *fname) {
    need_kernel(in, loc, fname);
    if (dtype && val_to_dtype(in, dtype, loc, "dtype") != DT_UINT64)
        ctx_fail(in->ctx, loc, "%s: a wgmma descriptor is a uint64, got dtype %s", fname,
                 val_describe(in, dtype));
    Buffer *b = ir_buffer(in->ctx, arena_printf(ARENA, "desc%d", in->ctx->next_id), DT_UINT64,
                          SCOPE_LOCAL, 1, loc);
    b->shape[0] = i32(in, 1, loc);
    Stmt *s = ir_stmt(in->ctx, STMT_ALLOC, loc);
    s->u.alloc.buf = b;
    emit_stmt(in, s);
    VEC_PUSH(ARENA, in->gmma_descs, b);
    VEC_PUSH(ARENA, in->gmma_smem, NULL);
    Value *v = val_new(in, V_BUFFER);
    v->u.buf = b;
    return v;
}

/* T.alloc_descriptor(kind="wgmma", dtype="uint64") / T.alloc_wgmma_desc(dtype=). */
static Value *t_alloc_descriptor(Interp *in, CallArgs *a, void *d) {
    Value *av[2];
    if (d) {
        args_bind(in, a, "T.alloc_wgmma_desc", "dtype=", av, 1);
        return desc_alloc(in, av[0], a->loc, "T.alloc_wgmma_desc");
    }
    args_bind(in, a, "T.alloc_descriptor", "kind=, dtype=", av, 2);
    if (av[0] && (av[0]->kind != V_STR || strcmp(av[0]->u.s, "wgmma")))
        ctx_fail(in->ctx, a->loc,
                 "T.alloc_descriptor: kind %s is not supported: tilec has wgmma descriptors "
                 "(kind=\"wgmma\"); the tcgen05 ones are Blackwell's (sm_100)",
                 val_describe(in, av[0]));
    return desc_alloc(in, av[1], a->loc, "T.alloc_descriptor");
}

/* The descriptor buffer v names (desc, desc.data or desc[0]), its index in gmma_descs
 * in *slot (-1: a local uint64 buffer made otherwise). */
static Buffer *desc_of(Interp *in, Value *v, Loc loc, const char *fname, int *slot) {
    Buffer *b = NULL;
    if (v->kind == V_BUFFER) b = v->u.buf;
    else if (v->kind == V_EXPR && v->u.expr->kind == EXPR_LOAD) b = v->u.expr->u.load.buf;
    if (!b || b->scope != SCOPE_LOCAL || b->dtype != DT_UINT64 || b->ndim != 1 ||
        !ir_is_const_int(b->shape[0], &(int64_t){0}))
        ctx_fail(in->ctx, loc,
                 "%s: the descriptor must be a buffer of T.alloc_wgmma_desc() (or its element "
                 "0), got %s",
                 fname, val_describe(in, v));
    int64_t n;
    ir_is_const_int(b->shape[0], &n);
    if (n != 1)
        ctx_fail(in->ctx, loc, "%s: the descriptor must be a buffer of one uint64, '%s' has %lld",
                 fname, b->name, (long long)n);
    *slot = -1;
    for (int i = 0; i < in->gmma_descs.len; i++)
        if (in->gmma_descs.data[i] == b) *slot = i;
    return b;
}

/* The shared element start_address names: a T.access_ptr, a shared buffer, slice or
 * element. */
static ExternArg smem_start(Interp *in, Value *v, Loc loc, Buffer **buf) {
    ExternArg r = {.rw = 1};
    if (v->kind == V_PTR) {
        r.buf = v->u.ptr.buf, r.idx = v->u.ptr.idx;
    } else if (v->kind == V_EXPR && v->u.expr->kind == EXPR_LOAD && !v->u.expr->u.load.mode) {
        r.buf = v->u.expr->u.load.buf, r.idx = v->u.expr->u.load.idx;
    } else if (v->kind == V_BUFFER || v->kind == V_REGION) {
        Region g = value_to_region(in, v, NULL, loc, "T.initialize_wgmma_descriptor");
        r.buf = g.buf, r.idx = g.start;
    }
    if (!r.buf || r.buf->scope != SCOPE_SHARED)
        ctx_fail(in->ctx, loc,
                 "T.initialize_wgmma_descriptor: start_address must point into a shared "
                 "buffer (T.access_ptr(A_shared, \"r\"), A_shared or A_shared[i, j]), got %s",
                 r.buf
                     ? arena_printf(ARENA, "%s buffer '%s'", scope_name(r.buf->scope), r.buf->name)
                     : val_describe(in, v));
    r.extent = i32(in, 1, loc);
    *buf = r.buf;
    return r;
}

static ExternArg desc_ptr(Interp *in, Buffer *desc, int rw, Loc loc) {
    return buffer_arg(in, desc, rw, false, loc);
}

/* T.initialize_wgmma_descriptor(descriptor, start_address, layout_type_=0,
 * leading_byte_offset=0, stride_byte_offset=0). */
static Value *t_init_desc(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.initialize_wgmma_descriptor";
    Value *av[5];
    args_bind(in, a, fname,
              "descriptor, start_address, layout_type_=, leading_byte_offset=, "
              "stride_byte_offset=",
              av, 5);
    need_kernel(in, a->loc, fname);
    int slot;
    Buffer *desc = desc_of(in, av[0], a->loc, fname, &slot);
    Buffer *smem;
    ExternArg start = smem_start(in, av[1], a->loc, &smem);
    static const char *const what[] = {"layout_type_", "leading_byte_offset", "stride_byte_offset"};
    static const int64_t most[] = {3, 0x3FFF, 0x3FFF};
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 5);
    args[0] = desc_ptr(in, desc, 2, a->loc), args[1] = start;
    for (int i = 0; i < 3; i++) {
        int64_t v = av[2 + i] ? val_to_int(in, av[2 + i], a->loc, what[i]) : 0;
        if (v < 0 || v > most[i])
            ctx_fail(in->ctx, a->loc, "%s: %s must be 0 to %lld%s, got %lld", fname, what[i],
                     (long long)most[i], i ? " (bytes >> 4)" : " (none, 128B, 64B, 32B)",
                     (long long)v);
        args[2 + i] = value_arg(i32(in, v, a->loc));
    }
    smem->align = smem->align > 1024 ? smem->align : 1024; /* swizzles follow the hardware's */
    if (slot >= 0) in->gmma_smem.data[slot] = smem;
    runtime_call(in, "tl_gmma_desc_init", args, 5, a->loc);
    return val_none(in);
}

/* T.increase_descriptor_offset(descriptor, offset): offset bytes further. */
static Value *t_desc_offset(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.increase_descriptor_offset";
    Value *av[2];
    args_bind(in, a, fname, "descriptor, offset", av, 2);
    need_kernel(in, a->loc, fname);
    int slot;
    Buffer *desc = desc_of(in, av[0], a->loc, fname, &slot);
    Expr *off = val_to_expr(in, av[1], a->loc, "offset");
    if (!dtype_is_int(off->dtype))
        ctx_fail(in->ctx, a->loc, "%s: offset must be an integer (bytes), got %s", fname,
                 dtype_name(off->dtype));
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 2);
    args[0] = desc_ptr(in, desc, 3, a->loc);
    args[1] = value_arg(ir_cast(in->ctx, DT_INT64, off, a->loc));
    runtime_call(in, "tl_gmma_desc_add", args, 2, a->loc);
    return val_none(in);
}

/* ---- the wgmma ------------------------------------------------------------------------- */
/* TileLang's operand abbreviation as tl_c.h's TL_GMMA_* (and its bytes), or -1. */
static int gmma_type(const char *s, int *bytes) {
    static const char *const names[][2] = {{"fp16", "float16"},
                                           {"bf16", "bfloat16"},
                                           {"e4m3", "float8_e4m3"},
                                           {"e5m2", "float8_e5m2"}};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i][0]) || !strcmp(s, names[i][1])) {
            *bytes = i < 2 ? 2 : 1;
            return i;
        }
    return -1;
}

static const char *str_arg(Interp *in, Value *v, Loc loc, const char *fname, const char *what) {
    if (v->kind == V_STR) return v->u.s;
    if (v->kind == V_DTYPE) return dtype_name(v->u.dtype);
    ctx_fail(in->ctx, loc, "%s: %s must be a string, got %s", fname, what, val_describe(in, v));
}

/* The block's thread number (tx + X * (ty + Y * tz)). */
static Expr *thread_number(Interp *in, Loc loc) {
    static const char *const names[] = {"tx", "ty", "tz"};
    Stmt *k = in->kernel;
    Expr *e = NULL;
    for (int d = 2; d >= 0; d--) {
        if (k->u.kernel.threads[d] <= 1 && (d || e)) continue;
        if (!k->u.kernel.thread[d]) k->u.kernel.thread[d] = ir_var(in->ctx, names[d], DT_INT32);
        Expr *t = ir_varref(in->ctx, k->u.kernel.thread[d], loc);
        e = e ? ir_bin(in->ctx, OP_ADD, t,
                       ir_bin(in->ctx, OP_MUL, i32(in, k->u.kernel.threads[d], loc), e, loc), loc)
              : t;
    }
    return e;
}

/* The accumulators C_data[C_offset ..]: n float32 of a local buffer. */
static ExternArg acc_arg(Interp *in, Value *v, Value *off, int n, Loc loc, const char *fname) {
    Buffer *b = v->kind == V_BUFFER ? v->u.buf : NULL;
    if (!b || b->scope != SCOPE_LOCAL || b->dtype != DT_FLOAT32)
        ctx_fail(in->ctx, loc,
                 "%s: C_data must be a float32 T.alloc_local buffer (each thread's "
                 "accumulator registers), got %s",
                 fname,
                 b ? arena_printf(ARENA, "%s %s buffer '%s'", dtype_name(b->dtype),
                                  scope_name(b->scope), b->name)
                   : val_describe(in, v));
    int64_t size = 1, c, o = -1;
    for (int d = 0; d < b->ndim; d++) size *= ir_is_const_int(b->shape[d], &c) ? c : 0;
    Expr *oe = val_to_expr(in, off, loc, "C_offset");
    if (ir_is_const_int(oe, &o) && (o < 0 || o + n > size))
        ctx_fail(in->ctx, loc,
                 "%s: the %d accumulators from C_offset %lld pass the end of '%s' (%lld)", fname, n,
                 (long long)o, b->name, (long long)size);
    ExternArg r = {.buf = b, .rw = 3, .extent = i32(in, n, loc)};
    r.idx = flat_index(in, b, oe, loc);
    return r;
}

/* Descriptor desc (its element 0) plus off 16-byte units, as a uint64 value. */
static Expr *desc_value(Interp *in, Buffer *desc, Value *off, Loc loc) {
    Expr **idx = NEW_ARRAY(ARENA, Expr *, 1);
    idx[0] = i32(in, 0, loc);
    Expr *o = val_to_expr(in, off, loc, "descriptor offset");
    if (!dtype_is_int(o->dtype))
        ctx_fail(in->ctx, loc, "T.ptx_wgmma: a descriptor offset must be an integer, got %s",
                 dtype_name(o->dtype));
    return ir_bin(in->ctx, OP_ADD, ir_load(in->ctx, desc, idx, loc),
                  ir_cast(in->ctx, DT_UINT64, o, loc), loc);
}

/* What a wgmma through descriptor desc reads: the shared buffer it was made for, else
 * (not known here) the descriptor itself. */
static ExternArg read_arg(Interp *in, int slot, Buffer *desc, Loc loc) {
    Buffer *b = slot >= 0 ? in->gmma_smem.data[slot] : NULL;
    return buffer_arg(in, b ? b : desc, 1, true, loc);
}

/* The shape "m64nNkK" for operands of `bytes` bytes: N. */
static int wgmma_n(Interp *in, const char *prefix, int bytes, Loc loc, const char *fname) {
    int m = 0, n = 0, k = 0, used = 0;
    if (sscanf(prefix, "m%dn%dk%d%n", &m, &n, &k, &used) != 3 || prefix[used] || m != 64 || n < 8 ||
        n > 256 || n % 8 || k != 32 / bytes)
        ctx_fail(in->ctx, loc,
                 "%s: wgmma_prefix \"%s\" is not a wgmma shape of these operands: m64nNk%d "
                 "with N a multiple of 8 from 8 to 256",
                 fname, prefix, 32 / bytes);
    return n;
}

static int scale_imm(Interp *in, Value *v, Loc loc, const char *what) {
    int64_t s = val_to_int(in, v, loc, what);
    if (s != 1 && s != -1)
        ctx_fail(in->ctx, loc, "T.ptx_wgmma: %s must be 1 or -1, got %lld", what, (long long)s);
    return (int)s;
}

/* The checks both wgmma forms make: float32 accumulators, operand types (TL_GMMA_* in
 * *ta, *tb, their bytes in *es), K-major fp8, the shape (N in *n), a warpgroup. */
static void wgmma_common(Interp *in, Loc loc, const char *fname, Value *dtype, Value *accv,
                         Value *av, Value *bv, bool ak, bool bk, Value *prefix, int *ta, int *tb,
                         int *es, int *n) {
    const char *acc = str_arg(in, accv, loc, fname, "accum_dtype_abbrv");
    if (val_to_dtype(in, dtype, loc, "dtype") != DT_FLOAT32 ||
        (strcmp(acc, "fp32") && strcmp(acc, "float32")))
        ctx_fail(in->ctx, loc,
                 "%s: tilec's wgmma accumulates in float32 (dtype \"float32\", accum \"fp32\"), "
                 "got %s / \"%s\"",
                 fname, val_describe(in, dtype), acc);
    const char *as = str_arg(in, av, loc, fname, "a_dtype_abbrv"),
               *bs = str_arg(in, bv, loc, fname, "b_dtype_abbrv");
    int ba, bb;
    *ta = gmma_type(as, &ba), *tb = gmma_type(bs, &bb);
    if (*ta < 0 || *tb < 0 || ba != bb)
        ctx_fail(in->ctx, loc,
                 "%s: operands \"%s\" and \"%s\": tilec's wgmma takes fp16 or bf16 (both the "
                 "same), or e4m3 / e5m2",
                 fname, as, bs);
    if (ba == 2 && *ta != *tb)
        ctx_fail(in->ctx, loc, "%s: fp16 and bf16 operands must be of one type", fname);
    if (ba == 1 && (!ak || !bk))
        ctx_fail(in->ctx, loc, "%s: fp8 wgmma reads both operands K-major", fname);
    *es = ba;
    *n = wgmma_n(in, str_arg(in, prefix, loc, fname, "wgmma_prefix"), ba, loc, fname);
    if (in->kernel_threads % 128)
        ctx_fail(in->ctx, loc,
                 "%s: a wgmma is issued by a warpgroup of 128 threads; the block has %d", fname,
                 in->kernel_threads);
}

/* scale_out as int32 0 / 1. */
static Expr *scale_out(Interp *in, Value *v, Loc loc, const char *fname) {
    Expr *scale = val_to_expr(in, v, loc, "scale_out");
    if (!dtype_is_int(scale->dtype) && scale->dtype != DT_BOOL)
        ctx_fail(in->ctx, loc, "%s: scale_out must be 0 or 1, got %s", fname,
                 dtype_name(scale->dtype));
    return ir_cast(in->ctx, DT_INT32, scale, loc);
}

/* T.ptx_wgmma_ss(dtype, wgmma_prefix, a_is_k_major, b_is_k_major, a_dtype_abbrv,
 * b_dtype_abbrv, accum_dtype_abbrv, A_desc, A_offset, B_desc, B_offset, C_data, C_offset,
 * scale_out, scale_in_a, scale_in_b). */
static Value *t_wgmma_ss(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.ptx_wgmma_ss";
    Value *av[16];
    args_bind(in, a, fname,
              "dtype, wgmma_prefix, a_is_k_major, b_is_k_major, a_dtype_abbrv, b_dtype_abbrv, "
              "accum_dtype_abbrv, A_desc, A_offset, B_desc, B_offset, C_data, C_offset, "
              "scale_out, scale_in_a, scale_in_b",
              av, 16);
    need_kernel(in, a->loc, fname);
    bool ak = val_truthy(in, av[2], a->loc), bk = val_truthy(in, av[3], a->loc);
    int es, n, ta, tb;
    wgmma_common(in, a->loc, fname, av[0], av[6], av[4], av[5], ak, bk, av[1], &ta, &tb, &es, &n);
    int sa, sb;
    Buffer *da = desc_of(in, av[7], a->loc, fname, &sa),
           *db = desc_of(in, av[9], a->loc, fname, &sb);
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 14);
    args[0] = acc_arg(in, av[11], av[12], n / 2, a->loc, fname);
    args[1] = value_arg(desc_value(in, da, av[8], a->loc));
    args[2] = value_arg(desc_value(in, db, av[10], a->loc));
    args[3] = value_arg(scale_out(in, av[13], a->loc, fname));
    args[4] = value_arg(thread_number(in, a->loc));
    int consts[7] = {n,
                     ta,
                     tb,
                     ak,
                     bk,
                     scale_imm(in, av[14], a->loc, "scale_in_a"),
                     scale_imm(in, av[15], a->loc, "scale_in_b")};
    for (int i = 0; i < 7; i++) args[5 + i] = value_arg(i32(in, consts[i], a->loc));
    args[12] = read_arg(in, sa, da, a->loc), args[13] = read_arg(in, sb, db, a->loc);
    runtime_call(in, "tl_wgmma_raw_ss", args, 14, a->loc);
    return val_none(in);
}

/* The A registers of T.ptx_wgmma_rs: 16 bytes of local buffer v from element off on. */
static ExternArg a_regs_arg(Interp *in, Value *v, Value *off, int es, Loc loc, const char *fname) {
    Buffer *b = v->kind == V_BUFFER ? v->u.buf : NULL;
    if (!b || b->scope != SCOPE_LOCAL || dtype_bytes(b->dtype) > 4)
        ctx_fail(in->ctx, loc,
                 "%s: A_buf must be a T.alloc_local buffer (each thread's A registers), got %s",
                 fname,
                 b ? arena_printf(ARENA, "%s buffer '%s'", scope_name(b->scope), b->name)
                   : val_describe(in, v));
    int64_t bytes = dtype_bytes(b->dtype), size = bytes, c, o = 0;
    for (int d = 0; d < b->ndim; d++) size *= ir_is_const_int(b->shape[d], &c) ? c : 0;
    Expr *oe = val_to_expr(in, off, loc, "A_offset");
    if (!dtype_is_int(oe->dtype) ||
        (ir_is_const_int(oe, &o) && (o < 0 || o * bytes % 4 || o * bytes + 16 > size)))
        ctx_fail(in->ctx, loc,
                 "%s: A_offset must be an element offset from which '%s' holds the 4 32-bit "
                 "registers of A (16 bytes, %d elements of %d bits)",
                 fname, b->name, 16 / es, 8 * es);
    ExternArg r = {.buf = b, .rw = 1, .extent = i32(in, 16 / bytes, loc)};
    r.idx = flat_index(in, b, oe, loc);
    return r;
}

/* T.ptx_wgmma_rs(dtype, wgmma_prefix, b_is_k_major, a_dtype_abbrv, b_dtype_abbrv,
 * accum_dtype_abbrv, A_buf, A_offset, B_desc, B_offset, C_data, C_offset, scale_out,
 * scale_in_a, scale_in_b): A from each thread's registers (wgmma's A fragment layout). */
static Value *t_wgmma_rs(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.ptx_wgmma_rs";
    Value *av[15];
    args_bind(in, a, fname,
              "dtype, wgmma_prefix, b_is_k_major, a_dtype_abbrv, b_dtype_abbrv, "
              "accum_dtype_abbrv, A_buf, A_offset, B_desc, B_offset, C_data, C_offset, "
              "scale_out, scale_in_a, scale_in_b",
              av, 15);
    need_kernel(in, a->loc, fname);
    bool bk = val_truthy(in, av[2], a->loc);
    int es, n, ta, tb;
    wgmma_common(in, a->loc, fname, av[0], av[5], av[3], av[4], true, bk, av[1], &ta, &tb, &es, &n);
    int sb;
    Buffer *db = desc_of(in, av[8], a->loc, fname, &sb);
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 13);
    args[0] = acc_arg(in, av[10], av[11], n / 2, a->loc, fname);
    args[1] = a_regs_arg(in, av[6], av[7], es, a->loc, fname);
    args[2] = value_arg(desc_value(in, db, av[9], a->loc));
    args[3] = value_arg(scale_out(in, av[12], a->loc, fname));
    args[4] = value_arg(thread_number(in, a->loc));
    int consts[6] = {n,
                     ta,
                     tb,
                     bk,
                     scale_imm(in, av[13], a->loc, "scale_in_a"),
                     scale_imm(in, av[14], a->loc, "scale_in_b")};
    for (int i = 0; i < 6; i++) args[5 + i] = value_arg(i32(in, consts[i], a->loc));
    int64_t per = 1, c;
    for (int k = 0; k < args[1].buf->ndim; k++)
        per *= ir_is_const_int(args[1].buf->shape[k], &c) ? c : 0;
    args[11] = value_arg(ir_int(in->ctx, per * dtype_bytes(args[1].buf->dtype), DT_INT64, a->loc));
    args[12] = read_arg(in, sb, db, a->loc);
    runtime_call(in, "tl_wgmma_raw_rs", args, 13, a->loc);
    return val_none(in);
}

/* T.warpgroup_arrive() / T.warpgroup_commit_batch(). */
static Value *t_warpgroup_op(Interp *in, CallArgs *a, void *d) {
    const char *fname = d ? "T.warpgroup_commit_batch" : "T.warpgroup_arrive";
    Value *none[1];
    args_bind(in, a, fname, "", none, 0);
    need_kernel(in, a->loc, fname);
    runtime_call(in, d ? "tl_warpgroup_commit" : "tl_warpgroup_arrive", NULL, 0, a->loc);
    return val_none(in);
}

/* T.warpgroup_fence_operand(buffer_or_ptr, offset=0, num_regs=None, dtype=None): the
 * registers of a local buffer from offset on (num_regs 32-bit registers; all of them by
 * default). */
static Value *t_fence_operand(Interp *in, CallArgs *a, void *d) {
    (void)d;
    const char *fname = "T.warpgroup_fence_operand";
    Value *av[4];
    args_bind(in, a, fname, "buffer_or_ptr, offset=, num_regs=, dtype=", av, 4);
    need_kernel(in, a->loc, fname);
    Buffer *b = NULL;
    int64_t off = av[1] ? val_to_int(in, av[1], a->loc, "offset") : 0, c;
    if (av[0]->kind == V_BUFFER) b = av[0]->u.buf;
    else if (av[0]->kind == V_EXPR && av[0]->u.expr->kind == EXPR_LOAD) {
        b = av[0]->u.expr->u.load.buf;
        int64_t flat = 0;
        for (int k = 0; k < b->ndim; k++) {
            int64_t i, e;
            if (!ir_is_const_int(av[0]->u.expr->u.load.idx[k], &i) ||
                !ir_is_const_int(b->shape[k], &e))
                ctx_fail(in->ctx, a->loc, "%s: the element must have constant indices", fname);
            flat = flat * e + i;
        }
        off += flat;
    }
    if (!b || b->scope != SCOPE_LOCAL || dtype_bytes(b->dtype) > 4)
        ctx_fail(in->ctx, a->loc,
                 "%s: the operand must be a T.alloc_local buffer of 32-bit or narrower "
                 "elements (or one of its elements), got %s",
                 fname, b ? b->name : val_describe(in, av[0]));
    if (av[3] && av[3]->kind != V_NONE && val_to_dtype(in, av[3], a->loc, "dtype") != b->dtype)
        ctx_fail(in->ctx, a->loc, "%s: dtype %s is not the buffer's (%s)", fname,
                 val_describe(in, av[3]), dtype_name(b->dtype));
    int64_t bytes = dtype_bytes(b->dtype), size = bytes;
    for (int k = 0; k < b->ndim; k++) size *= ir_is_const_int(b->shape[k], &c) ? c : 0;
    int64_t regs = av[2] && av[2]->kind != V_NONE ? val_to_int(in, av[2], a->loc, "num_regs")
                                                  : (size - off * bytes) / 4;
    if (off < 0 || regs < 0 || off * bytes % 4 || off * bytes + regs * 4 > size)
        ctx_fail(in->ctx, a->loc,
                 "%s: %lld registers from element %lld do not fit '%s' (%lld bytes, whole "
                 "32-bit words)",
                 fname, (long long)regs, (long long)off, b->name, (long long)size);
    ExternArg *args = NEW_ARRAY(ARENA, ExternArg, 2);
    args[0] = (ExternArg){.buf = b, .rw = 3, .extent = i32(in, regs * 4 / bytes, a->loc)};
    args[0].idx = NEW_ARRAY(ARENA, Expr *, b->ndim + 1);
    for (int k = b->ndim - 1, o = (int)off; k >= 0; k--) {
        int64_t e = 1;
        ir_is_const_int(b->shape[k], &e);
        args[0].idx[k] = i32(in, k ? o % e : o, a->loc);
        o /= (int)e;
    }
    args[1] = value_arg(i32(in, regs, a->loc));
    runtime_call(in, "tl_fence_regs", args, 2, a->loc);
    return val_none(in);
}

/* T.wgmma_mma: T.wgmma_gemm by TileLang's other name. */
static Value *t_wgmma_mma(Interp *in, CallArgs *a, void *d) {
    (void)d;
    return call_value(in, tl_lang_attr(in, "wgmma_gemm", a->loc), a);
}

#define I(x) ((void *)(intptr_t)(x))
static const TName wgmma_fns[] = {
    {"alloc_descriptor", t_alloc_descriptor, NULL, NULL},
    {"alloc_wgmma_desc", t_alloc_descriptor, I(1), NULL},
    {"initialize_wgmma_descriptor", t_init_desc, NULL, NULL},
    {"increase_descriptor_offset", t_desc_offset, NULL, NULL},
    {"ptx_wgmma_ss", t_wgmma_ss, NULL, NULL},
    {"ptx_wgmma_rs", t_wgmma_rs, NULL, NULL},
    {"warpgroup_arrive", t_warpgroup_op, NULL, NULL},
    {"warpgroup_commit_batch", t_warpgroup_op, I(1), NULL},
    {"warpgroup_fence_operand", t_fence_operand, NULL, NULL},
    {"wgmma_mma", t_wgmma_mma, NULL, NULL},
};
#undef I

const TNames tl_wgmma_names = {wgmma_fns, (int)(sizeof wgmma_fns / sizeof *wgmma_fns)};
