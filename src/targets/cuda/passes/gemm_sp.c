/* gemm_sp.c - which T.gemm_sp the CUDA target runs on sparse tensor cores.
 *
 * A kept T.gemm_sp (cuda_keep_tile_op) is a STMT_GEMM with its metadata region set that
 * infer_layouts treats as an mma.sync gemm (never wgmma): C gets the mma.sync accumulator
 * layout over warp_m x warp_n warps, A_sparse and B their swizzles, and emit_tiles.c
 * prints tl_gemm_sp_ss (runtime/cuda/tl_cuda.h: ldmatrix, mma.sp m16n8k32). It needs
 * float16 or bfloat16 A_sparse and B with a float32 C; A_sparse [M][K/2] (not
 * transposed) and E [M][K/e_factor] (not transposed, any 8-, 16- or 32-bit type: its
 * rows are read as bytes, 4 bits per group of 4 along K) whole tiles in shared memory;
 * M a multiple of 16 and K of 32. Any other T.gemm_sp is lowered to loops, the C target's
 * definition, on the GPU as well. */
#include "targets/cuda/passes/cuda_passes.h"
#include "ir/ir_walk.h"

static bool const_2d(const Buffer *b, const Region *r, int64_t *rows, int64_t *cols) {
    return ir_region_tile(r) && ir_is_const_int(b->shape[b->ndim - 2], rows) &&
           ir_is_const_int(b->shape[b->ndim - 1], cols);
}

bool cuda_gemm_sp_kept(const Stmt *s) {
    const Buffer *A = s->u.gemm.a.buf, *B = s->u.gemm.b.buf, *C = s->u.gemm.c.buf;
    const Buffer *E = s->u.gemm.e.buf;
    int64_t m, half, er, ec;
    bool f16 = A->dtype == DT_FLOAT16 || A->dtype == DT_BFLOAT16;
    return f16 && B->dtype == A->dtype && C->dtype == DT_FLOAT32 && A->scope == SCOPE_SHARED &&
           E->scope == SCOPE_SHARED && !s->u.gemm.trans_a && !s->u.gemm.trans_e &&
           const_2d(A, &s->u.gemm.a, &m, &half) && const_2d(E, &s->u.gemm.e, &er, &ec) &&
           m % 16 == 0 && (2 * half) % 32 == 0 && er == m;
}
