/* tileops_sparse.c - 2:4 structured sparsity: T.gemm_sp(A_sparse, E, B, C, ...).
 *
 * C (M x N) += A * B where A (M x K) keeps 2 of every 4 consecutive elements along K (1
 * of 2 for float32): A_sparse (M x K/2) holds the kept values in order, and E (M x
 * K / e_factor, an 8-, 16- or 32-bit integer type) says where they were. E is the
 * natural row-major metadata of TileLang 0.1.15's compressor (examples/gemm_sp,
 * tilelang.utils.sparse in the compatibility layer): group g = k / 4 of a row has the
 * 4-bit field g % (bits / 4) of element E[m, g / (bits / 4)] (lowest bits first), whose
 * bits 1:0 are the index in the group of the first kept value and bits 3:2 that of the
 * second (float32: groups of 2, field 0b0100 for element 0, 0b1110 for element 1).
 * The op is a STMT_GEMM with Stmt.u.gemm.e set: the C target multiplies by its
 * definition (lower_tile_ops.c), the CUDA target on mma.sp (docs/cuda.md). */
#include "frontend/eval.h"

/* T.gemm_sp(A_sparse, E, B, C, transpose_A=False, transpose_E=False, transpose_B=False,
 * policy=Square, clear_accum=False, annotations=None) (TileLang 0.1.15). */
static Value *t_gemm_sp(Interp *in, CallArgs *a, void *d) {
    (void)d;
    Value *av[10];
    args_bind(in, a, "T.gemm_sp",
              "A_sparse, E, B, C, transpose_A=, transpose_E=, transpose_B=, policy=, "
              "clear_accum=, annotations=",
              av, 10);
    need_kernel(in, a->loc, "T.gemm_sp");
    Stmt *s = ir_stmt(in->ctx, STMT_GEMM, a->loc);
    s->u.gemm.a = value_to_region(in, av[0], NULL, a->loc, "T.gemm_sp A_sparse");
    s->u.gemm.e = value_to_region(in, av[1], NULL, a->loc, "T.gemm_sp E");
    s->u.gemm.b = value_to_region(in, av[2], NULL, a->loc, "T.gemm_sp B");
    s->u.gemm.c = value_to_region(in, av[3], NULL, a->loc, "T.gemm_sp C");
    s->u.gemm.trans_a = av[4] && val_truthy(in, av[4], a->loc);
    s->u.gemm.trans_e = av[5] && val_truthy(in, av[5], a->loc);
    s->u.gemm.trans_b = av[6] && val_truthy(in, av[6], a->loc);
    s->u.gemm.policy = gemm_policy_arg(in, av[7], a->loc);
    s->u.gemm.k_pack = 1;
    gemm_clear_arg(in, s, av[8], a->loc);
    emit_stmt(in, s);
    return val_none(in);
}

static const TName sparse[] = {
    {"gemm_sp", t_gemm_sp, NULL, NULL},
};

const TNames tl_sparse_names = {sparse, (int)(sizeof sparse / sizeof *sparse)};
