/* hw_layouts.h - the hardware layouts of LAYOUTS.md section 2 as linear layouts.
 *
 * Register layouts map (register, lane, warp) -> (dim0 = row, dim1 = col); memory layouts
 * map offset (elements) -> (row, col). Tensor-core fragments follow the PTX element
 * numbering: register bit i = bit i of the PTX fragment element index (a 16-bit pair
 * packed in one 32-bit register is two consecutive register slots).
 *
 * Multi-warp tiles (same convention for every builder, consistent across A, B and C so
 * that warp w holds matching pieces): warp bits split the M dim first (16-row steps for
 * mma, 64 rows per warpgroup for wgmma), then the N dim (8-col steps); warps that split
 * the other operand's dim hold replicas (zero warp bases). Register repetitions come after
 * the atom's registers: the inner (K for A and B, N for C) repetitions first, then the
 * outer ones. All sizes are powers of two; TL_ASSERT on a shape that does not tile. */
#ifndef TILEC_LAYOUT_HW_LAYOUTS_H
#define TILEC_LAYOUT_HW_LAYOUTS_H

#include "layout/linear.h"

/* mma.sync m16n8k16, 16-bit inputs, one warp (LAYOUTS.md section 2 table). */
LL hw_mma_c(void); /* 16x8 accumulator c0..c3 */
LL hw_mma_a(void); /* 16x16 m x k, a0..a7 */
LL hw_mma_b(void); /* 16x8 k x n, b0..b3 */
/* Block tiles for warps_m x warps_n warps (m, n, k multiples of the atoms). */
LL hw_mma_c_tile(int m, int n, int warps_m, int warps_n);
LL hw_mma_a_tile(int m, int k, int warps_m, int warps_n);
LL hw_mma_b_tile(int k, int n, int warps_m, int warps_n);

/* wgmma m64nNk16 accumulator D for wgs_m x wgs_n warpgroups (4 warps each): a
 * warpgroup covers 64 rows and n / wgs_n columns; more rows repeat in registers. */
LL hw_wgmma_d(int m, int n, int wgs_m, int wgs_n);
/* wgmma A from registers (16-bit): the mma A atom per warp, warps at 16-row steps. */
LL hw_wgmma_a(int m, int k, int wgs_m, int wgs_n);

/* ldmatrix.sync.m8n8.x{1,2,4}[.trans].b16 result over (register, lane), in the
 * coordinates of the stored tile. Matrix j sits at rows 8*j0, cols 8*j1 when rows_first
 * (the A-fragment order: 0 = rows 0-7/cols 0-7, 1 = rows 8-15, 2 = cols 8-15, 3 = both),
 * else cols first. Register bits: the 16-bit half e, then j0, j1. */
LL hw_ldmatrix(int num, bool trans, bool rows_first);
/* The matching address layout: lane -> (row, col) of the 16-byte row it supplies. */
LL hw_ldmatrix_addr(int num, bool rows_first);

/* Triton blocked layout: sizePerThread/threadsPerWarp/warpsPerCTA, order[0] fastest,
 * fitted to shape (larger: replication; smaller: register repetitions). */
LL hw_blocked(int rank, const int *shape, const int *spt, const int *tpw, const int *wpc,
              const int *order);

/* Memory layouts: offset -> coords. Row-major (last dim contiguous). */
LL hw_row_major(int rank, const int *shape);
/* Triton swizzle: row bit k -> (2^k, vec * ((2^k / per_phase) % max_phase) % cols). */
LL hw_swizzled(int rows, int cols, int vec, int per_phase, int max_phase);
/* wgmma/TMA swizzle modes (0 = none, 32, 64, 128 bytes) for a rows x cols tile of
 * elem_bits elements, the row (cols) contiguous. Wider than one swizzle atom row, the
 * tile is stored as panels of rows x (bytes / elem size) one after the other. */
LL hw_smem_swizzle(int rows, int cols, int elem_bits, int swizzle_bytes);
/* Largest mode whose atom row fits a row of cols elements (0 when none does). */
int hw_tma_swizzle_for(int cols, int elem_bits);

#endif
