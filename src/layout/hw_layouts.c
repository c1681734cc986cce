/* hw_layouts.c - tensor-core fragments, ldmatrix, blocked and shared-memory layouts as LL
 * (hw_layouts.h; bases from LAYOUTS.md section 2, checked against the PTX formulas by
 * tests/unit/test_layout.c). */
#include "layout/hw_layouts.h"

static int ilog2(int n) {
    TL_ASSERT(n > 0 && !(n & (n - 1)));
    return __builtin_ctz((unsigned)n);
}

/* Empty rows x cols register/memory layout skeleton (outs dim0, dim1). */
static LL tile2d(int rows, int cols) {
    LL l = ll_empty();
    ll_add_out(&l, LL_DIM0, ilog2(rows));
    ll_add_out(&l, LL_DIM1, ilog2(cols));
    return l;
}

/* Push the bases (r, c) pairs of a table for input dim d. */
static void push_list(LL *l, LLDim d, const uint32_t (*rc)[2], int n) {
    for (int i = 0; i < n; i++) ll_push2(l, d, rc[i][0], rc[i][1]);
}

/* count/step repetitions along rows or cols as further bits of input dim d; replicas
 * (zero bases) when replica is set. */
static void push_steps(LL *l, LLDim d, int count, int step, bool rows, bool replica) {
    ilog2(count);
    for (int s = step; s < step * count; s *= 2) {
        uint32_t v = replica ? 0 : (uint32_t)s;
        ll_push2(l, d, rows ? v : 0, rows ? 0 : v);
    }
}

static const uint32_t mma_lanes_c[5][2] = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
static const uint32_t mma_lanes_b[5][2] = {{2, 0}, {4, 0}, {0, 1}, {0, 2}, {0, 4}};
static const uint32_t mma_regs_c[2][2] = {{0, 1}, {8, 0}};
static const uint32_t mma_regs_a[3][2] = {{0, 1}, {8, 0}, {0, 8}};
static const uint32_t mma_regs_b[2][2] = {{1, 0}, {8, 0}};

static void push_atom_c(LL *l) {
    push_list(l, LL_REG, mma_regs_c, 2);
    push_list(l, LL_LANE, mma_lanes_c, 5);
}

static void push_atom_a(LL *l) {
    push_list(l, LL_REG, mma_regs_a, 3);
    push_list(l, LL_LANE, mma_lanes_c, 5);
}

static void push_atom_b(LL *l) {
    push_list(l, LL_REG, mma_regs_b, 2);
    push_list(l, LL_LANE, mma_lanes_b, 5);
}

LL hw_mma_c(void) { return hw_mma_c_tile(16, 8, 1, 1); }
LL hw_mma_a(void) { return hw_mma_a_tile(16, 16, 1, 1); }
LL hw_mma_b(void) { return hw_mma_b_tile(16, 8, 1, 1); }

LL hw_mma_c_tile(int m, int n, int warps_m, int warps_n) {
    TL_ASSERT(m % (16 * warps_m) == 0 && n % (8 * warps_n) == 0);
    LL l = tile2d(m, n);
    push_atom_c(&l);
    push_steps(&l, LL_WARP, warps_m, 16, true, false);
    push_steps(&l, LL_WARP, warps_n, 8, false, false);
    push_steps(&l, LL_REG, n / (8 * warps_n), 8 * warps_n, false, false);
    push_steps(&l, LL_REG, m / (16 * warps_m), 16 * warps_m, true, false);
    return l;
}

LL hw_mma_a_tile(int m, int k, int warps_m, int warps_n) {
    TL_ASSERT(m % (16 * warps_m) == 0 && k % 16 == 0);
    LL l = tile2d(m, k);
    push_atom_a(&l);
    push_steps(&l, LL_WARP, warps_m, 16, true, false);
    push_steps(&l, LL_WARP, warps_n, 1, true, true);
    push_steps(&l, LL_REG, k / 16, 16, false, false);
    push_steps(&l, LL_REG, m / (16 * warps_m), 16 * warps_m, true, false);
    return l;
}

LL hw_mma_b_tile(int k, int n, int warps_m, int warps_n) {
    TL_ASSERT(k % 16 == 0 && n % (8 * warps_n) == 0);
    LL l = tile2d(k, n);
    push_atom_b(&l);
    push_steps(&l, LL_WARP, warps_m, 1, true, true);
    push_steps(&l, LL_WARP, warps_n, 8, false, false);
    push_steps(&l, LL_REG, k / 16, 16, true, false);
    push_steps(&l, LL_REG, n / (8 * warps_n), 8 * warps_n, false, false);
    return l;
}

LL hw_wgmma_d(int m, int n, int wgs_m, int wgs_n) {
    int nwg = n / wgs_n;
    TL_ASSERT(m % (64 * wgs_m) == 0 && n % wgs_n == 0 && nwg >= 8);
    LL l = tile2d(m, n);
    push_atom_c(&l);
    push_steps(&l, LL_REG, nwg / 8, 8, false, false);
    push_steps(&l, LL_WARP, 4, 16, true, false);
    push_steps(&l, LL_WARP, wgs_m, 64, true, false);
    push_steps(&l, LL_WARP, wgs_n, nwg, false, false);
    push_steps(&l, LL_REG, m / (64 * wgs_m), 64 * wgs_m, true, false);
    return l;
}

LL hw_wgmma_a(int m, int k, int wgs_m, int wgs_n) {
    TL_ASSERT(m % (64 * wgs_m) == 0 && k % 16 == 0);
    LL l = tile2d(m, k);
    push_atom_a(&l);
    push_steps(&l, LL_WARP, 4, 16, true, false);
    push_steps(&l, LL_WARP, wgs_m, 64, true, false);
    push_steps(&l, LL_WARP, wgs_n, 1, true, true);
    push_steps(&l, LL_REG, k / 16, 16, false, false);
    push_steps(&l, LL_REG, m / (64 * wgs_m), 64 * wgs_m, true, false);
    return l;
}

/* Origin of matrix bit j (0: second matrix, 1: third) of an ldmatrix group. */
static void matrix_origin(int j, bool rows_first, uint32_t *r, uint32_t *c) {
    bool row = (j == 0) == rows_first;
    *r = row ? 8 : 0;
    *c = row ? 0 : 8;
}

static LL ldmatrix_tile(int num, bool rows_first) {
    TL_ASSERT(num == 1 || num == 2 || num == 4);
    int first = num >= 2 ? 16 : 8, second = num == 4 ? 16 : 8;
    return rows_first ? tile2d(first, second) : tile2d(second, first);
}

LL hw_ldmatrix(int num, bool trans, bool rows_first) {
    LL l = ldmatrix_tile(num, rows_first);
    ll_push2(&l, LL_REG, trans ? 1 : 0, trans ? 0 : 1);
    for (int j = 0; (1 << j) < num; j++) {
        uint32_t r, c;
        matrix_origin(j, rows_first, &r, &c);
        ll_push2(&l, LL_REG, r, c);
    }
    push_list(&l, LL_LANE, trans ? mma_lanes_b : mma_lanes_c, 5);
    return l;
}

LL hw_ldmatrix_addr(int num, bool rows_first) {
    LL l = ldmatrix_tile(num, rows_first);
    for (uint32_t r = 1; r < 8; r *= 2) ll_push2(&l, LL_LANE, r, 0);
    for (int j = 0; j < 2; j++) {
        uint32_t r = 0, c = 0;
        if ((1 << j) < num) matrix_origin(j, rows_first, &r, &c);
        ll_push2(&l, LL_LANE, r, c);
    }
    return l;
}

/* identity over the dims of shape in order (order[0] fastest) for input dim in. */
static LL identity_nd(LLDim in, int rank, const int *sizes, const int *order) {
    LL l = ll_empty();
    for (int i = 0; i < rank; i++) {
        LL f = ll_identity1d(sizes[order[i]], in, (LLDim)(LL_DIM0 + order[i]));
        l = ll_product(&l, &f);
    }
    return l;
}

LL hw_blocked(int rank, const int *shape, const int *spt, const int *tpw, const int *wpc,
              const int *order) {
    LL regs = identity_nd(LL_REG, rank, spt, order);
    LL lanes = identity_nd(LL_LANE, rank, tpw, order);
    LL warps = identity_nd(LL_WARP, rank, wpc, order);
    LL l = ll_product(&regs, &lanes);
    l = ll_product(&l, &warps);
    LLIdx want = {0};
    for (int d = 0; d < rank; d++) want[LL_DIM0 + d] = (uint32_t)shape[d];
    l = ll_not_larger(&l, want, true);
    return ll_not_smaller(&l, want);
}

LL hw_row_major(int rank, const int *shape) {
    LL l = ll_empty();
    for (int d = rank - 1; d >= 0; d--) {
        LL f = ll_identity1d(shape[d], LL_OFFSET, (LLDim)(LL_DIM0 + d));
        l = ll_product(&l, &f);
    }
    return l;
}

LL hw_swizzled(int rows, int cols, int vec, int per_phase, int max_phase) {
    LL l = tile2d(rows, cols);
    for (int c = 1; c < cols; c *= 2) ll_push2(&l, LL_OFFSET, 0, (uint32_t)c);
    for (int r = 1; r < rows; r *= 2) {
        int col = (vec * ((r / per_phase) % max_phase)) % cols;
        ll_push2(&l, LL_OFFSET, (uint32_t)r, (uint32_t)col);
    }
    return l;
}

LL hw_smem_swizzle(int rows, int cols, int elem_bits, int swizzle_bytes) {
    TL_ASSERT(elem_bits == 8 || elem_bits == 16 || elem_bits == 32);
    if (swizzle_bytes == 0) return hw_row_major(2, (const int[]){rows, cols});
    TL_ASSERT(swizzle_bytes == 32 || swizzle_bytes == 64 || swizzle_bytes == 128);
    int atom_cols = swizzle_bytes * 8 / elem_bits;
    TL_ASSERT(cols % atom_cols == 0);
    LL l = hw_swizzled(rows, atom_cols, 128 / elem_bits, 128 / swizzle_bytes,
                       swizzle_bytes / 16);
    if (cols == atom_cols) return l;
    LL panels = ll_identity1d(cols / atom_cols, LL_OFFSET, LL_DIM1);
    return ll_product(&l, &panels);
}

int hw_tma_swizzle_for(int cols, int elem_bits) {
    int bytes = cols * elem_bits / 8;
    for (int s = 128; s >= 32; s /= 2)
        if (bytes % s == 0) return s;
    return 0;
}
