/* test_layout.c - linear layouts (src/layout/linear.c), the hardware layout library
 * (hw_layouts.c) and the planners (plan.c).
 * References, independent of the code under test: the PTX ISA fragment formulas
 * (mma.m16n8k16, wgmma m64nNk16, ldmatrix semantics simulated from lane addresses), the
 * TMA/wgmma byte-address swizzle (addr bits [4:4+s) ^= bits [7:7+s)), TileLang's
 * full-bank swizzle and MakeGemmFragmentC formulas (evaluated by a tiny Repeat
 * interpreter), and CPU simulations of shuffles and reductions compared with direct
 * computation. */
#include "layout/hw_layouts.h"
#include "layout/linear.h"
#include "layout/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void check_print(int line, const LL *l, const char *want) {
    StrBuf sb = {0};
    ll_check(l);
    ll_print(&sb, l);
    check_str(__FILE__, line, sb.buf, want);
    sb_free(&sb);
}
#define CHECK_PRINT(l, want) check_print(__LINE__, l, want)

/* ---- helpers ----------------------------------------------------------------------------- */
typedef struct RC {
    uint32_t r, c;
} RC;

/* Reference formula: hardware (reg, lane, warp) -> (row, col). */
typedef RC (*HwFormula)(uint32_t reg, uint32_t lane, uint32_t warp);

static RC at(const LL *l, uint32_t reg, uint32_t lane, uint32_t warp) {
    LLIdx in = {0}, out;
    in[LL_REG] = reg;
    in[LL_LANE] = lane;
    in[LL_WARP] = warp;
    ll_apply_idx(l, in, out);
    return (RC){out[LL_DIM0], out[LL_DIM1]};
}

/* Every hardware point of l against the formula; one check, first mismatch printed. */
static void check_formula(int line, const char *what, const LL *l, HwFormula f) {
    uint32_t nr = 1u << ll_in_log2(l, LL_REG), nl = 1u << ll_in_log2(l, LL_LANE);
    uint32_t nw = 1u << ll_in_log2(l, LL_WARP);
    ll_check(l);
    checks++;
    for (uint32_t w = 0; w < nw; w++)
        for (uint32_t ln = 0; ln < nl; ln++)
            for (uint32_t r = 0; r < nr; r++) {
                RC got = at(l, r, ln, w), want = f(r, ln, w);
                if (got.r == want.r && got.c == want.c) continue;
                failures++;
                fprintf(stderr, "%s:%d: %s: warp %u lane %u reg %u -> (%u,%u), want (%u,%u)\n",
                        __FILE__, line, what, w, ln, r, got.r, got.c, want.r, want.c);
                return;
            }
}
#define CHECK_FORMULA(what, l, f) check_formula(__LINE__, what, l, f)

static uint32_t rng_state = 12345;
static uint32_t rnd(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static uint32_t pdep(uint32_t x, uint32_t mask) {
    uint32_t r = 0;
    for (int b = 0; b < 32 && x; b++)
        if (mask >> b & 1) {
            if (x & 1) r |= 1u << b;
            x >>= 1;
        }
    return r;
}

/* ---- PTX formulas ------------------------------------------------------------------------ */
static RC ptx_mma_c(uint32_t i, uint32_t lane, uint32_t w) {
    (void)w;
    uint32_t g = lane >> 2, t = lane & 3;
    return (RC){g + 8 * (i >= 2), 2 * t + (i & 1)};
}

static RC ptx_mma_a(uint32_t i, uint32_t lane, uint32_t w) {
    (void)w;
    uint32_t g = lane >> 2, t = lane & 3;
    return (RC){g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >= 4)};
}

static RC ptx_mma_b(uint32_t i, uint32_t lane, uint32_t w) {
    (void)w;
    uint32_t g = lane >> 2, t = lane & 3;
    return (RC){2 * t + (i & 1) + 8 * (i >= 2), g};
}

/* 64x64 C tile, 2x2 warps (warp bit 0 along M), register repeats N first then M. */
static RC tile_c_64x64(uint32_t i, uint32_t lane, uint32_t w) {
    RC a = ptx_mma_c(i & 3, lane, 0);
    uint32_t rep = i >> 2, rn = rep & 3, rm = rep >> 2;
    return (RC){a.r + 16 * (w & 1) + 32 * rm, a.c + 8 * (w >> 1) + 16 * rn};
}

/* 64x32 A tile, 2x2 warps: warp bit 1 (N) replicates; K repeats then M repeats. */
static RC tile_a_64x32(uint32_t i, uint32_t lane, uint32_t w) {
    RC a = ptx_mma_a(i & 7, lane, 0);
    uint32_t rep = i >> 3, rk = rep & 1, rm = rep >> 1;
    return (RC){a.r + 16 * (w & 1) + 32 * rm, a.c + 16 * rk};
}

/* 32x64 B tile (k x n), 2x2 warps: warp bit 0 (M) replicates. */
static RC tile_b_32x64(uint32_t i, uint32_t lane, uint32_t w) {
    RC b = ptx_mma_b(i & 3, lane, 0);
    uint32_t rep = i >> 2, rk = rep & 1, rn = rep >> 1;
    return (RC){b.r + 16 * rk, b.c + 8 * (w >> 1) + 16 * rn};
}

/* wgmma D: row 16w + g + 8((i>>1)&1), col 8(i>>2) + 2q + (i&1) (PTX / HOPPER-NOTES 1.4). */
static RC ptx_wgmma_d(uint32_t i, uint32_t lane, uint32_t w) {
    uint32_t g = lane >> 2, q = lane & 3;
    return (RC){16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * q + (i & 1)};
}

/* 128x256 D with 2x2 warpgroups: warpgroup bit 0 along M (64 rows), bit 1 along N. */
static RC wgmma_d_128x256(uint32_t i, uint32_t lane, uint32_t w) {
    RC d = ptx_wgmma_d(i, lane, w & 3);
    uint32_t wg = w >> 2;
    return (RC){d.r + 64 * (wg & 1), d.c + 128 * (wg >> 1)};
}

/* wgmma A from registers (16-bit): a0 = (g, 2q..), a1 = (g+8, ..), a2 = (g, 8+2q..),
 * a3 = (g+8, 8+..), low half = lower k; slot i = 2 * register + half. */
static RC ptx_wgmma_a(uint32_t i, uint32_t lane, uint32_t w) {
    uint32_t g = lane >> 2, q = lane & 3, reg = i >> 1, half = i & 1;
    return (RC){16 * w + g + 8 * (reg & 1), 2 * q + half + 8 * (reg >> 1)};
}

static void test_mma_fragments(void) {
    LL c = hw_mma_c(), a = hw_mma_a(), b = hw_mma_b();
    CHECK_PRINT(&c, "register: (0,1) (8,0)  lane: (0,2) (0,4) (1,0) (2,0) (4,0)  "
                    "-> dim0:16 dim1:8");
    RC p = at(&c, 0, 0, 0);
    CHECK(p.r == 0 && p.c == 0);
    p = at(&c, 1, 0, 0);
    CHECK(p.r == 0 && p.c == 1);
    p = at(&c, 2, 0, 0);
    CHECK(p.r == 8 && p.c == 0);
    p = at(&c, 0, 1, 0);
    CHECK(p.r == 0 && p.c == 2);
    p = at(&c, 0, 4, 0);
    CHECK(p.r == 1 && p.c == 0);
    CHECK_FORMULA("mma C", &c, ptx_mma_c);
    CHECK_FORMULA("mma A", &a, ptx_mma_a);
    CHECK_FORMULA("mma B", &b, ptx_mma_b);
    CHECK(ll_is_bijective(&c) && ll_is_bijective(&a) && ll_is_bijective(&b));
    LL tc = hw_mma_c_tile(64, 64, 2, 2), ta = hw_mma_a_tile(64, 32, 2, 2);
    LL tb = hw_mma_b_tile(32, 64, 2, 2);
    CHECK_FORMULA("mma C 64x64 2x2", &tc, tile_c_64x64);
    CHECK_FORMULA("mma A 64x32 2x2", &ta, tile_a_64x32);
    CHECK_FORMULA("mma B 32x64 2x2", &tb, tile_b_32x64);
    CHECK(ll_is_bijective(&tc));
    CHECK(ll_is_surjective(&ta) && ll_free_mask_dim(&ta, LL_WARP) == 2);
    CHECK(ll_is_surjective(&tb) && ll_free_mask_dim(&tb, LL_WARP) == 1);
}

static void test_wgmma(void) {
    LL d = hw_wgmma_d(64, 64, 1, 1);
    CHECK(ll_in_log2(&d, LL_REG) == 5 && ll_in_log2(&d, LL_WARP) == 2);
    CHECK_FORMULA("wgmma m64n64 D", &d, ptx_wgmma_d);
    CHECK_PRINT(&d, "register: (0,1) (8,0) (0,8) (0,16) (0,32)  "
                    "lane: (0,2) (0,4) (1,0) (2,0) (4,0)  warp: (16,0) (32,0)  "
                    "-> dim0:64 dim1:64");
    LL big = hw_wgmma_d(128, 256, 2, 2);
    CHECK_FORMULA("wgmma 128x256 D, 2x2 warpgroups", &big, wgmma_d_128x256);
    LL n256 = hw_wgmma_d(64, 256, 1, 1);
    CHECK_FORMULA("wgmma m64n256 D", &n256, ptx_wgmma_d);
    CHECK(ll_in_log2(&n256, LL_REG) == 7); /* 128 f32 registers */
    LL a = hw_wgmma_a(64, 16, 1, 1);
    CHECK_FORMULA("wgmma A regs", &a, ptx_wgmma_a);
    /* The accumulator of two adjacent 8-column chunks is the A operand (FA3's P.V). */
    LL d16 = hw_wgmma_d(64, 16, 1, 1), cvt;
    CvtKind k;
    CHECK(ll_equal(&d16, &a));
    CHECK(plan_cvt_classify(&d16, &a, &k, &cvt) == LL_OK && k == CVT_NOOP);
    LL d64 = hw_wgmma_d(64, 64, 1, 1), a64 = hw_wgmma_a(64, 64, 1, 1);
    CHECK(ll_equal(&d64, &a64));
}

/* ---- ldmatrix: simulate the instruction from its address layout -------------------------- */
/* Lane l, register j, half e of ldmatrix.x{num}: row l/4 (col 2(l%4)+e) of matrix j, whose
 * 8 rows start at the addresses given by lanes 8j..8j+7; .trans swaps the roles. */
static RC ldmatrix_sim(const LL *addr, bool trans, uint32_t j, uint32_t e, uint32_t lane) {
    uint32_t row = trans ? 2 * (lane % 4) + e : lane / 4;
    uint32_t col = trans ? lane / 4 : 2 * (lane % 4) + e;
    RC start = at(addr, 0, 8 * j + row, 0);
    return (RC){start.r, start.c + col};
}

static void check_ldmatrix(int num, bool trans, bool rows_first) {
    LL res = hw_ldmatrix(num, trans, rows_first), addr = hw_ldmatrix_addr(num, rows_first);
    checks++;
    for (uint32_t lane = 0; lane < 32; lane++)
        for (uint32_t slot = 0; slot < (uint32_t)(2 * num); slot++) {
            RC got = at(&res, slot, lane, 0);
            RC want = ldmatrix_sim(&addr, trans, slot >> 1, slot & 1, lane);
            if (got.r == want.r && got.c == want.c) continue;
            failures++;
            fprintf(stderr, "ldmatrix x%d trans %d: lane %u slot %u -> (%u,%u) want (%u,%u)\n",
                    num, trans, lane, slot, got.r, got.c, want.r, want.c);
            return;
        }
    CHECK(ll_is_bijective(&res));
}

static void test_ldmatrix(void) {
    for (int num = 1; num <= 4; num *= 2)
        for (int t = 0; t < 2; t++)
            for (int rf = 0; rf < 2; rf++) check_ldmatrix(num, t, rf);
    LL x4 = hw_ldmatrix(4, false, true), a = hw_mma_a(), addr = hw_ldmatrix_addr(4, true);
    CHECK(ll_equal(&x4, &a));
    checks++;
    for (uint32_t l = 0; l < 32; l++) {
        RC p = at(&addr, 0, l, 0);
        if (p.r != l % 8 + 8 * ((l >> 3) & 1) || p.c != 8 * (l >> 4)) {
            failures++;
            fprintf(stderr, "ldmatrix address lane %u -> (%u,%u)\n", l, p.r, p.c);
            break;
        }
    }
    /* B (k x n) from a k x n tile stored n-contiguous: x2.trans; from n x k: x2 then T. */
    LL b = hw_mma_b(), x2t = hw_ldmatrix(2, true, true), x2 = hw_ldmatrix(2, false, false);
    CHECK(ll_equal(&x2t, &b));
    LL x2T = ll_transpose(&x2, 2, (const int[]){1, 0});
    CHECK(ll_equal(&x2T, &b));
}

/* ---- swizzles ---------------------------------------------------------------------------- */
/* TMA/wgmma swizzle on byte addresses: bits [4:4+s) ^= bits [7:7+s); an involution. */
static uint32_t swizzle_bytes(uint32_t a, int mode) {
    uint32_t m = (uint32_t)mode / 16 - 1;
    return a ^ (((a >> 7) & m) << 4);
}

/* Offset p of a rows x cols tile (panels of one atom row each) -> (row, col). */
static RC swizzle_ref(uint32_t p, int rows, int cols, int eb, int mode) {
    uint32_t atom_cols = (uint32_t)(mode * 8 / eb), panel_elems = (uint32_t)rows * atom_cols;
    uint32_t panel = p / panel_elems;
    uint32_t a = swizzle_bytes((p % panel_elems) * (uint32_t)eb / 8, mode);
    (void)cols;
    return (RC){a / (uint32_t)mode, panel * atom_cols + a % (uint32_t)mode * 8 / (uint32_t)eb};
}

static bool check_swizzle(int rows, int cols, int eb, int mode) {
    LL l = hw_smem_swizzle(rows, cols, eb, mode);
    if (!ll_is_bijective(&l)) return false;
    for (uint32_t p = 0; p < (uint32_t)(rows * cols); p++) {
        LLIdx in = {0}, out;
        in[LL_OFFSET] = p;
        ll_apply_idx(&l, in, out);
        RC want = swizzle_ref(p, rows, cols, eb, mode);
        if (out[LL_DIM0] != want.r || out[LL_DIM1] != want.c) {
            fprintf(stderr, "swizzle %dB %d-bit %dx%d: offset %u -> (%u,%u) want (%u,%u)\n", mode,
                    eb, rows, cols, p, out[LL_DIM0], out[LL_DIM1], want.r, want.c);
            return false;
        }
    }
    return true;
}

/* TileLang makeFullBankSwizzleLayout (fp16): (i, j) -> (tc, ts, index); physical offset of
 * a 64-column tile = ts * 512 + index (atoms of 8 rows stacked along rows). */
static uint32_t tilelang_full_bank(uint32_t i, uint32_t j) {
    uint32_t vector_size = 8, ts = i / 8, s = i % 8;
    uint32_t c = (j / vector_size) % 8, vec = j % vector_size;
    uint32_t index = vec + ((c ^ s) + s * 8) * vector_size;
    return ts * 512 + index;
}

static void test_swizzle(void) {
    LL s = hw_smem_swizzle(8, 64, 16, 128);
    CHECK_PRINT(&s, "offset: (0,1) (0,2) (0,4) (0,8) (0,16) (0,32) (1,8) (2,16) (4,32)  "
                    "-> dim0:8 dim1:64");
    LLIdx in = {0}, out;
    in[LL_OFFSET] = 72;
    ll_apply_idx(&s, in, out);
    CHECK(out[LL_DIM0] == 1 && out[LL_DIM1] == 0);
    static const int modes[3] = {32, 64, 128}, ebs[3] = {8, 16, 32};
    for (int m = 0; m < 3; m++)
        for (int e = 0; e < 3; e++) {
            int atom = modes[m] * 8 / ebs[e];
            CHECK(check_swizzle(8, atom, ebs[e], modes[m]));
            CHECK(check_swizzle(64, 2 * atom, ebs[e], modes[m]));
        }
    CHECK(hw_tma_swizzle_for(64, 16) == 128 && hw_tma_swizzle_for(32, 16) == 64);
    CHECK(hw_tma_swizzle_for(16, 16) == 32 && hw_tma_swizzle_for(8, 16) == 0);
    LL t = hw_smem_swizzle(32, 64, 16, 128), inv;
    CHECK(ll_invert(&t, &inv) == LL_OK);
    checks++;
    for (uint32_t i = 0; i < 32; i++)
        for (uint32_t j = 0; j < 64; j++) {
            LLIdx c = {0}, o;
            c[LL_DIM0] = i;
            c[LL_DIM1] = j;
            ll_apply_idx(&inv, c, o);
            if (o[LL_OFFSET] != tilelang_full_bank(i, j)) {
                failures++;
                fprintf(stderr, "TileLang full bank (%u,%u): %u vs %u\n", i, j, o[LL_OFFSET],
                        tilelang_full_bank(i, j));
                i = 32;
                break;
            }
        }
}

/* ---- algebra ----------------------------------------------------------------------------- */
static bool is_identity_map(const LL *l) {
    for (uint32_t x = 0; x < (1u << ll_in_bits(l)); x++) {
        LLIdx in, out;
        ll_unpack_in(l, x, in);
        ll_apply_idx(l, in, out);
        if (memcmp(in, out, sizeof in)) return false;
    }
    return true;
}

/* Same coordinates at every input (out dim sizes may differ). */
static bool same_points(const LL *a, const LL *b) {
    if (ll_in_bits(a) != ll_in_bits(b)) return false;
    for (uint32_t x = 0; x < (1u << ll_in_bits(a)); x++) {
        LLIdx in, oa, ob;
        ll_unpack_in(a, x, in);
        ll_apply_idx(a, in, oa);
        ll_apply_idx(b, in, ob);
        if (memcmp(oa, ob, sizeof oa)) return false;
    }
    return true;
}

static void test_identity_product(void) {
    LL id = ll_identity1d(32, LL_LANE, LL_DIM0);
    bool ok = true;
    for (uint32_t x = 0; x < 32; x++) ok = ok && ll_apply(&id, x) == x;
    CHECK(ok);
    LL a = ll_identity1d(4, LL_LANE, LL_DIM1), b = ll_identity1d(8, LL_LANE, LL_DIM0);
    LL p = ll_product(&a, &b);
    ok = true;
    for (uint32_t x = 0; x < 32; x++) {
        RC c = at(&p, 0, x, 0);
        ok = ok && c.r == x >> 2 && c.c == (x & 3);
    }
    CHECK(ok);
    CHECK(p.nout == 2 && p.out_dim[0] == LL_DIM1 && p.out_dim[1] == LL_DIM0);
    CHECK_PRINT(&p, "lane: (0,1) (0,2) (1,0) (2,0) (4,0)  -> dim0:8 dim1:4 [packed dim1,dim0]");
    /* Same map built with the other packing order is equal. */
    LL q = ll_reorder_outs(&p, 2, (const LLDim[]){LL_DIM0, LL_DIM1});
    CHECK(ll_equal(&p, &q) && q.out_dim[0] == LL_DIM0);
    LL c = hw_mma_c();
    CHECK(!ll_equal(&c, &p));
    /* product of a dim present in both: b shifted above a, in and out. */
    LL r2 = ll_identity1d(2, LL_REG, LL_DIM1), r4 = ll_identity1d(4, LL_REG, LL_DIM1);
    LL r8 = ll_product(&r2, &r4), i8 = ll_identity1d(8, LL_REG, LL_DIM1);
    CHECK(ll_equal(&r8, &i8));
    LL z = ll_zeros1d(4, LL_WARP, LL_DIM0), cz = ll_product(&c, &z);
    CHECK(ll_in_log2(&cz, LL_WARP) == 2 && ll_free_mask_dim(&cz, LL_WARP) == 3);
    LL st = ll_strided1d(4, 2, LL_REG, LL_DIM1, 8);
    CHECK(ll_apply(&st, 3) == 6);
    ll_check(&cz);
}

static void test_invert_compose(void) {
    LL s = hw_smem_swizzle(8, 64, 16, 128), inv, inv2;
    CHECK(ll_invert(&s, &inv) == LL_OK);
    LL sc = ll_compose(&s, &inv), cs = ll_compose(&inv, &s);
    CHECK(is_identity_map(&sc) && is_identity_map(&cs));
    CHECK(ll_invert(&sc, &inv2) == LL_OK && is_identity_map(&inv2));
    CHECK(ll_invert(&inv, &inv2) == LL_OK && ll_equal(&inv2, &s));
    LL c = hw_mma_c(), ic;
    CHECK(ll_invert(&c, &ic) == LL_OK);
    bool ok = true;
    for (uint32_t x = 0; x < 128; x++) ok = ok && ll_apply(&ic, ll_apply(&c, x)) == x;
    CHECK(ok);
    /* Replicated: pseudo-inverse never uses the free warp bit. */
    LL z = ll_zeros1d(2, LL_WARP, LL_DIM0), rep = ll_product(&c, &z), p;
    CHECK(ll_invert(&rep, &p) == LL_ENOTINV);
    CHECK(ll_pseudo_invert(&rep, &p) == LL_OK);
    CHECK(ll_free_mask(&rep) == 1u << 7 && ll_free_mask_dim(&rep, LL_WARP) == 1);
    CHECK(ll_free_mask_dim(&rep, LL_REG) == 0 && ll_free_mask_dim(&rep, LL_LANE) == 0);
    CHECK(ll_rank(&rep) == 7 && ll_is_surjective(&rep) && !ll_is_injective(&rep));
    ok = true;
    for (uint32_t y = 0; y < 128; y++) {
        uint32_t x = ll_apply(&p, y);
        ok = ok && ll_apply(&rep, x) == y && ll_out_coord(&p, x, LL_WARP) == 0;
    }
    CHECK(ok);
    /* Not surjective: rows 8..15 are never held. */
    LL half = c;
    half.basis[1] = 0;
    CHECK(ll_pseudo_invert(&half, &p) == LL_ENOTINV && !ll_is_surjective(&half));
    /* invert_and_compose(mmaC, mmaC) = identity (dst slot -> same src slot). */
    LL ident;
    CHECK(ll_invert_and_compose(&c, &c, &ident) == LL_OK && is_identity_map(&ident));
    /* Address generation: (reg, lane) -> offset of the 128B swizzled tile. */
    LL a = hw_mma_a(), big = hw_smem_swizzle(16, 64, 16, 128), addr;
    CHECK(ll_invert_and_compose(&a, &big, &addr) == LL_OK);
    LL back = ll_compose(&big, &addr);
    CHECK(same_points(&back, &a));
    CHECK(ll_invert_and_compose(&c, &half, &addr) == LL_ENOTINV);
}

static void test_sublayouts(void) {
    LL c = hw_mma_c_tile(16, 8, 1, 1);
    LL warps = ll_identity1d(4, LL_WARP, LL_WARP), cw = ll_product(&c, &warps), q;
    CHECK(ll_quotient(&cw, LL_WARP, &q) == LL_OK && ll_equal(&q, &c));
    CHECK(ll_quotient(&cw, LL_LANE, &q) == LL_ENOTQUOT);
    LL leak = cw; /* register 1 also moves to warp 1: the warp dim is not isolated */
    leak.basis[0] |= 1u << ll_out_shift(&leak, LL_WARP);
    CHECK(ll_quotient(&leak, LL_WARP, &q) == LL_ENOTQUOT);
    LL sub = ll_sublayout(&c, LL_BIT(LL_LANE), LL_BIT(LL_DIM0));
    CHECK_PRINT(&sub, "lane: (0) (0) (1) (2) (4)  -> dim0:16");
    LL z = ll_zeros1d(2, LL_REG, LL_DIM0), cz = ll_product(&z, &c);
    uint32_t kept;
    LL nz = ll_remove_zero_bases(&cz, LL_REG, &kept);
    CHECK(kept == 6 && ll_equal(&nz, &c));
    uint8_t perm[2] = {1, 0};
    LL pc = ll_permute_in(&c, LL_REG, perm);
    CHECK_PRINT(&pc, "register: (8,0) (0,1)  lane: (0,2) (0,4) (1,0) (2,0) (4,0)  "
                     "-> dim0:16 dim1:8");
    /* reductions and reshapes */
    LL red = ll_reduce_axis(&c, 1, false);
    CHECK_PRINT(&red, "register: (0) (8)  lane: (0) (0) (1) (2) (4)  -> dim0:16");
    LL red0 = ll_reduce_axis(&c, 0, false);
    CHECK(ll_out_log2(&red0, LL_DIM0) == 3 && ll_out_log2(&red0, LL_DIM1) == 0);
    LL kd = ll_reduce_axis(&c, 1, true), ex = ll_expand_dims(&red, 1);
    CHECK(ll_equal(&kd, &ex));
    LL t = ll_transpose(&c, 2, (const int[]){1, 0});
    CHECK_PRINT(&t, "register: (1,0) (0,8)  lane: (2,0) (4,0) (0,1) (0,2) (0,4)  "
                    "-> dim0:8 dim1:16 [packed dim1,dim0]");
    LL bl = hw_blocked(2, (const int[]){64, 64}, (const int[]){1, 8}, (const int[]){4, 8},
                       (const int[]){4, 1}, (const int[]){1, 0});
    LL flat = ll_reshape_tensor(&bl, 1, (const int[]){12});
    bool ok = true;
    for (uint32_t x = 0; x < 4096; x++) {
        LLIdx in, o2, o1;
        ll_unpack_in(&bl, x, in);
        ll_apply_idx(&bl, in, o2);
        ll_apply_idx(&flat, in, o1);
        ok = ok && o1[LL_DIM0] == o2[LL_DIM0] * 64 + o2[LL_DIM1];
    }
    CHECK(ok);
    LL back = ll_reshape_tensor(&flat, 2, (const int[]){6, 6});
    CHECK(ll_equal(&back, &bl));
    /* codegen split: register part may be added to the lane part for mma C */
    CHECK(ll_dims_disjoint(&c, LL_BIT(LL_REG), LL_BIT(LL_LANE)));
    CHECK(!ll_dims_disjoint(&c, LL_BIT(LL_REG), LL_BIT(LL_REG)));
    CHECK((ll_apply_dims(&c, 0x7f, LL_BIT(LL_REG)) ^ ll_apply_dims(&c, 0x7f, LL_BIT(LL_LANE))) ==
          ll_apply(&c, 0x7f));
    LL ren = ll_rename_ins(&c, (const LLIdx){[LL_REG] = LL_REG, [LL_LANE] = LL_WARP});
    CHECK(ll_in_log2(&ren, LL_WARP) == 5 && ll_in_log2(&ren, LL_LANE) == 0);
}

static void test_fitting(void) {
    LL bl = hw_blocked(2, (const int[]){64, 64}, (const int[]){1, 8}, (const int[]){4, 8},
                       (const int[]){4, 1}, (const int[]){1, 0});
    CHECK_PRINT(&bl, "register: (0,1) (0,2) (0,4) (16,0) (32,0)  "
                     "lane: (0,8) (0,16) (0,32) (1,0) (2,0)  warp: (4,0) (8,0)  "
                     "-> dim0:64 dim1:64 [packed dim1,dim0]");
    /* 128 threads on a 16x16 tile: lanes/warps beyond the tile replicate. */
    LL small = hw_blocked(2, (const int[]){16, 16}, (const int[]){1, 8}, (const int[]){4, 8},
                          (const int[]){4, 1}, (const int[]){1, 0});
    CHECK_PRINT(&small, "register: (0,1) (0,2) (0,4)  lane: (0,8) (0,0) (0,0) (1,0) (2,0)  "
                        "warp: (4,0) (8,0)  -> dim0:16 dim1:16 [packed dim1,dim0]");
    CHECK(ll_free_mask_dim(&small, LL_LANE) == 6 && ll_is_surjective(&small));
    LL c = hw_mma_c(), grown = ll_not_smaller(&c, (const LLIdx){[LL_DIM0] = 32, [LL_DIM1] = 16});
    CHECK_PRINT(&grown, "register: (0,1) (8,0) (16,0) (0,8)  "
                        "lane: (0,2) (0,4) (1,0) (2,0) (4,0)  -> dim0:32 dim1:16");
    LL shrunk = ll_not_larger(&grown, (const LLIdx){[LL_DIM0] = 16}, true);
    CHECK_PRINT(&shrunk, "register: (0,1) (8,0) (0,8)  "
                         "lane: (0,2) (0,4) (1,0) (2,0) (4,0)  -> dim0:16 dim1:16");
    LL kept = ll_not_larger(&grown, (const LLIdx){[LL_DIM0] = 16}, false);
    CHECK(ll_in_log2(&kept, LL_REG) == 4 && ll_free_mask_dim(&kept, LL_REG) == 4);
    CHECK(ll_num_consecutive(&bl, LL_REG, LL_DIM1) == 8);
    CHECK(ll_num_consecutive(&c, LL_REG, LL_DIM1) == 2);
    ll_set_extent(&grown, LL_DIM0, 24);
    CHECK(ll_extent(&grown, LL_DIM0) == 24 && ll_extent(&grown, LL_DIM1) == 16);
    StrBuf sb = {0};
    ll_print(&sb, &grown);
    CHECK(strstr(sb.buf, "dim0:32(extent 24)") != NULL);
    sb_free(&sb);
}

/* ---- fit from tables --------------------------------------------------------------------- */
static bool mma_c_point(void *ud, const LLIdx in, LLIdx out) {
    (void)ud;
    RC p = ptx_mma_c(in[LL_REG], in[LL_LANE], 0);
    out[LL_DIM0] = p.r;
    out[LL_DIM1] = p.c;
    return true;
}

/* Padded smem i*72 + j seen from the offset side: offset -> (p / 72, p % 72). */
static bool padded_point(void *ud, const LLIdx in, LLIdx out) {
    (void)ud;
    out[LL_DIM0] = in[LL_OFFSET] / 72;
    out[LL_DIM1] = in[LL_OFFSET] % 72;
    return true;
}

static bool padded_forward(void *ud, const LLIdx c, uint32_t rep, LLIdx hw) {
    (void)ud;
    (void)rep;
    hw[LL_OFFSET] = c[LL_DIM0] * 72 + c[LL_DIM1];
    return true;
}

/* A tiny interpreter of TileLang's Fragment::Repeat chain. A fragment maps (i, j) to
 * (thread, local); Repeat(repeats, on_thread, lower_dim_first) tiles it: the repeat
 * index r = (i / h, j / w) flattened (dim 0 fastest unless lower_dim_first) is added to
 * the thread (times the thread extent) or to the local index (times the local extent). */
typedef struct TlRepeat {
    int rep[2];
    bool on_thread, lower_dim_first;
} TlRepeat;

typedef struct TlFragment {
    int nrep;
    TlRepeat reps[4];
} TlFragment;

/* makeGemmFragment8x8: thread = j / 2 + 4 i, local = j % 2 (8x8, 32 threads, 2 locals). */
static void tl_eval(const TlFragment *f, int depth, uint32_t i, uint32_t j, uint32_t *thread,
                    uint32_t *local, uint32_t shape[2], uint32_t *threads, uint32_t *locals) {
    if (depth == 0) {
        *thread = j / 2 + 4 * i;
        *local = j % 2;
        shape[0] = shape[1] = 8;
        *threads = 32;
        *locals = 2;
        return;
    }
    const TlRepeat *r = &f->reps[depth - 1];
    uint32_t s[2], th, lo;
    tl_eval(f, depth - 1, 0, 0, &th, &lo, s, threads, locals); /* shapes only */
    tl_eval(f, depth - 1, i % s[0], j % s[1], thread, local, s, &th, &lo);
    uint32_t r0 = i / s[0], r1 = j / s[1];
    uint32_t idx = r->lower_dim_first ? r1 + (uint32_t)r->rep[1] * r0
                                      : r0 + (uint32_t)r->rep[0] * r1;
    if (r->on_thread) *thread += *threads * idx;
    else *local += *locals * idx;
    shape[0] = s[0] * (uint32_t)r->rep[0];
    shape[1] = s[1] * (uint32_t)r->rep[1];
    if (r->on_thread) *threads *= (uint32_t)(r->rep[0] * r->rep[1]);
    else *locals *= (uint32_t)(r->rep[0] * r->rep[1]);
}

static bool tl_forward(void *ud, const LLIdx c, uint32_t rep, LLIdx hw) {
    const TlFragment *f = ud;
    uint32_t thread, local, shape[2], threads, locals;
    (void)rep;
    tl_eval(f, f->nrep, c[LL_DIM0], c[LL_DIM1], &thread, &local, shape, &threads, &locals);
    hw[LL_REG] = local;
    hw[LL_LANE] = thread % 32;
    hw[LL_WARP] = thread / 32;
    return true;
}

/* Register permutation mapping a's register bases onto b's (other dims equal). */
static bool equal_up_to_reg_perm(const LL *a, const LL *b) {
    uint8_t perm[LL_MAX_BITS];
    if (!ll_reg_perm_for_divide(a, b, perm)) return false;
    LL pa = ll_permute_in(a, LL_REG, perm);
    return ll_equal(&pa, b);
}

/* offset -> 3 * offset mod 64: a bijection, but not XOR-linear (3 != 1 ^ 2). */
static bool times3_point(void *ud, const LLIdx in, LLIdx out) {
    (void)ud;
    out[LL_DIM0] = in[LL_OFFSET] * 3 % 64;
    return true;
}

static void test_fit(void) {
    LL shape = hw_mma_c(), fit;
    CHECK(ll_fit_from_table(&fit, &shape, mma_c_point, NULL) == LL_OK);
    CHECK(ll_equal(&fit, &shape));
    /* MakeGemmFragmentC(64, 64, 32, 32): base 8x8 -> Repeat({2,1}, regs) ->
     * Repeat({64/32, 64/32}, threads) -> Repeat({32/16, 32/8}, regs). */
    TlFragment f = {3, {{{2, 1}, false, false}, {{2, 2}, true, false}, {{2, 4}, false, false}}};
    LL tile = hw_mma_c_tile(64, 64, 2, 2);
    CHECK(ll_fit_from_forward(&fit, &tile, 1, tl_forward, &f) == LL_OK);
    CHECK(equal_up_to_reg_perm(&fit, &tile));
    LL warps_fit = ll_sublayout(&fit, LL_BIT(LL_WARP), ~0u);
    LL warps_hw = ll_sublayout(&tile, LL_BIT(LL_WARP), ~0u);
    CHECK(ll_equal(&warps_fit, &warps_hw));
    /* padded i*72+j is not linear, from either side */
    LL pad = ll_empty();
    ll_add_out(&pad, LL_DIM0, 3);
    ll_add_out(&pad, LL_DIM1, 6);
    ll_add_in(&pad, LL_OFFSET, 9);
    CHECK(ll_fit_from_table(&fit, &pad, padded_point, NULL) == LL_ENONLINEAR);
    CHECK(ll_fit_from_forward(&fit, &pad, 1, padded_forward, NULL) == LL_ENONLINEAR);
    pad.in_log2[0] = 10;
    CHECK(ll_fit_from_forward(&fit, &pad, 1, padded_forward, NULL) == LL_ENONLINEAR);
    LL x3 = ll_identity1d(64, LL_OFFSET, LL_DIM0);
    CHECK(ll_fit_from_table(&fit, &x3, times3_point, NULL) == LL_ENONLINEAR);
}

/* ---- conversions ------------------------------------------------------------------------- */
/* Run a shuffle plan on a CPU model of one warp per warp index; dst must hold exactly
 * what the dst layout says, every slot written once. */
static bool simulate_shuffle(const LL *src, const LL *dst, const ShufflePlan *p) {
    uint32_t nsr = 1u << ll_in_log2(src, LL_REG), ndr = 1u << ll_in_log2(dst, LL_REG);
    uint32_t nw = 1u << ll_in_log2(dst, LL_WARP);
    uint32_t *sreg = calloc(32 * nsr, 4), *dreg = calloc(32 * ndr, 4), *cnt = calloc(32 * ndr, 4);
    bool ok = (uint32_t)p->rounds == ndr;
    for (uint32_t w = 0; w < nw && ok; w++) {
        memset(cnt, 0, 32 * ndr * 4);
        for (uint32_t l = 0; l < 32; l++)
            for (uint32_t r = 0; r < nsr; r++) {
                RC e = at(src, r, l, w);
                sreg[l * nsr + r] = e.r * 1000 + e.c;
            }
        for (uint32_t t = 0; t < ndr; t++) {
            uint32_t sent[32];
            for (uint32_t s = 0; s < 32; s++)
                sent[s] = sreg[s * nsr + plan_shfl_send_reg(p, t, s)];
            for (uint32_t l = 0; l < 32; l++) {
                uint32_t d = plan_shfl_dst_reg(p, t, l);
                dreg[l * ndr + d] = sent[plan_shfl_src_lane(p, t, l)];
                cnt[l * ndr + d]++;
            }
        }
        for (uint32_t l = 0; l < 32; l++)
            for (uint32_t r = 0; r < ndr; r++) {
                RC e = at(dst, r, l, w);
                if (ok && (cnt[l * ndr + r] != 1 || dreg[l * ndr + r] != e.r * 1000 + e.c))
                    fprintf(stderr, "shuffle: warp %u lane %u reg %u: got %u (x%u), want %u\n",
                            w, l, r, dreg[l * ndr + r], cnt[l * ndr + r], e.r * 1000 + e.c);
                ok = ok && cnt[l * ndr + r] == 1 && dreg[l * ndr + r] == e.r * 1000 + e.c;
            }
    }
    free(sreg);
    free(dreg);
    free(cnt);
    return ok;
}

static void check_shuffle(int line, const LL *src, const LL *dst, int want_local) {
    CvtKind k = CVT_NOOP;
    LL cvt;
    ShufflePlan p;
    checks++;
    if (plan_cvt_classify(src, dst, &k, &cvt) != LL_OK || k != CVT_WARP_SHUFFLE ||
        plan_warp_shuffle(&cvt, &p) != LL_OK || !simulate_shuffle(src, dst, &p) ||
        (want_local >= 0 && p.local_rounds != want_local)) {
        failures++;
        fprintf(stderr, "%s:%d: shuffle conversion failed (kind %s, %d local rounds)\n",
                __FILE__, line, plan_cvt_kind_name(k), p.local_rounds);
    }
}
#define CHECK_SHUFFLE(src, dst, want_local) check_shuffle(__LINE__, src, dst, want_local)

static CvtKind classify(const LL *src, const LL *dst) {
    CvtKind k = CVT_NOOP;
    LL cvt;
    if (plan_cvt_classify(src, dst, &k, &cvt) != LL_OK) return (CvtKind)-1;
    return k;
}

static void test_conversions(void) {
    LL c = hw_mma_c(), tc = hw_mma_c_tile(64, 64, 4, 1);
    CHECK(classify(&c, &c) == CVT_NOOP);
    /* replicated warps stay in their warp: still a no-op */
    LL ta = hw_mma_a_tile(64, 32, 2, 2);
    CHECK(classify(&ta, &ta) == CVT_NOOP);
    LL bl = hw_blocked(2, (const int[]){64, 64}, (const int[]){1, 8}, (const int[]){4, 8},
                       (const int[]){4, 1}, (const int[]){1, 0});
    CHECK(classify(&tc, &bl) == CVT_SHARED);
    CHECK(classify(&bl, &tc) == CVT_SHARED);
    /* Register order only. */
    uint8_t perm[LL_MAX_BITS] = {2, 0, 4, 1, 3};
    LL tp = ll_permute_in(&tc, LL_REG, perm), cvt;
    CvtKind k;
    CHECK(plan_cvt_classify(&tc, &tp, &k, &cvt) == LL_OK && k == CVT_REG_PERMUTE);
    uint32_t rp[32];
    plan_reg_permutation(&cvt, rp, 32);
    bool ok = true;
    for (uint32_t w = 0; w < 4; w++)
        for (uint32_t l = 0; l < 32; l++)
            for (uint32_t i = 0; i < 32; i++) {
                RC d = at(&tp, i, l, w), s = at(&tc, rp[i], l, w);
                ok = ok && d.r == s.r && d.c == s.c;
            }
    CHECK(ok);
    /* Lane <-> register transpose inside a warp: register bit 0 and lane bit 0 swapped. */
    LL sw = c;
    uint32_t tmp = sw.basis[0];
    sw.basis[0] = sw.basis[2];
    sw.basis[2] = tmp;
    CHECK_SHUFFLE(&c, &sw, 2); /* 4 rounds: registers of bit 1 = 0/1 stay local */
    CHECK_SHUFFLE(&sw, &c, 2);
    /* Lanes permuted only (one shfl per register, no selects). */
    LL lp = c;
    tmp = lp.basis[2];
    lp.basis[2] = lp.basis[6];
    lp.basis[6] = tmp;
    CHECK_SHUFFLE(&c, &lp, 0);
    /* mma C (4 warps along M) -> a blocked layout with the same rows per warp. */
    LL bw = hw_blocked(2, (const int[]){64, 64}, (const int[]){1, 8}, (const int[]){16, 2},
                       (const int[]){4, 1}, (const int[]){1, 0});
    CHECK_SHUFFLE(&tc, &bw, -1);
    CHECK_SHUFFLE(&bw, &tc, -1);
    /* A accumulator -> replicated A operand across the N warps: src has 4 warps along M;
     * dst replicates, so warp w must read warp (w & 1) ... which crosses warps. */
    LL c2 = hw_mma_c_tile(32, 32, 2, 2), a2 = hw_mma_a_tile(32, 32, 2, 2);
    CHECK(classify(&c2, &a2) == CVT_SHARED);
    /* Across CTAs */
    LL blk = ll_identity1d(2, LL_BLOCK, LL_DIM0), cb = ll_product(&c, &blk), cb2 = cb;
    tmp = cb2.basis[7];
    cb2.basis[7] = cb2.basis[6];
    cb2.basis[6] = tmp;
    CHECK(classify(&cb, &cb2) == CVT_DIST_SHARED);
    CHECK(classify(&cb, &cb) == CVT_NOOP);
    /* src misses rows 8..15: not convertible */
    LL half = c;
    half.basis[1] = 0;
    CHECK(plan_cvt_classify(&half, &c, &k, &cvt) == LL_ENOTINV);
}

/* ---- divide / vectors / bank conflicts --------------------------------------------------- */
static void test_divide(void) {
    LL bl = hw_blocked(2, (const int[]){64, 64}, (const int[]){1, 8}, (const int[]){4, 8},
                       (const int[]){4, 1}, (const int[]){1, 0});
    LL rm = hw_row_major(2, (const int[]){64, 64}), cvt, q;
    CHECK(ll_invert_and_compose(&bl, &rm, &cvt) == LL_OK);
    LL v8 = ll_identity1d(8, LL_REG, LL_OFFSET), v16 = ll_identity1d(16, LL_REG, LL_OFFSET);
    CHECK(ll_divide_left(&cvt, &v8, &q) == LL_OK);
    LL prod = ll_product(&v8, &q);
    CHECK(ll_equal(&prod, &cvt));
    CHECK(ll_divide_left(&cvt, &v16, &q) == LL_ENODIV);
    /* registers at offsets 1, 2, 4 but lane 1 starts at offset 4: runs of 4 only */
    LL ov = ll_identity1d(8, LL_REG, LL_OFFSET);
    ll_push_basis(&ov, LL_LANE, (const LLIdx){[LL_OFFSET] = 4}); /* overlapping runs */
    CHECK(ll_divide_left(&ov, &v8, &q) == LL_ENODIV);
    CHECK(plan_vector_width_cvt(&ov, 8, NULL) == 4);
    CHECK(ll_num_consecutive(&ov, LL_REG, LL_OFFSET) == 4);
    CHECK(plan_vector_width(&bl, &rm, 16, 128) == 8);
    CHECK(plan_vector_width(&bl, &rm, 32, 128) == 4);
    /* register order does not matter: the permutation search finds the run */
    uint8_t perm[LL_MAX_BITS] = {3, 1, 4, 0, 2};
    LL pbl = ll_permute_in(&bl, LL_REG, perm);
    CHECK(plan_vector_width(&pbl, &rm, 16, 128) == 8);
    LL c = hw_mma_c(), rm16 = hw_row_major(2, (const int[]){16, 8});
    CHECK(plan_vector_width(&c, &rm16, 32, 128) == 2);
    /* ldmatrix criterion: mma A vs 128B-swizzled smem divides by the ldmatrix tile
     * [register: 2 offsets] * [lane0, lane1: next offsets] (16-byte rows). */
    LL a = hw_mma_a(), sw = hw_smem_swizzle(16, 64, 16, 128), acvt;
    CHECK(ll_invert_and_compose(&a, &sw, &acvt) == LL_OK);
    LL tr = ll_identity1d(2, LL_REG, LL_OFFSET), tl = ll_identity1d(4, LL_LANE, LL_OFFSET);
    LL tile = ll_product(&tr, &tl);
    CHECK(ll_reg_perm_for_divide(&acvt, &tile, perm));
    LL pa = ll_permute_in(&acvt, LL_REG, perm);
    CHECK(ll_divide_left(&pa, &tile, &q) == LL_OK);
    CHECK(ll_in_log2(&q, LL_REG) == 2 && ll_in_log2(&q, LL_LANE) == 3);
    /* the blocked layout has 8 contiguous registers but lanes 0,1 jump by 8: no ldmatrix */
    LL bcvt;
    LL b16 = hw_blocked(2, (const int[]){16, 64}, (const int[]){1, 8}, (const int[]){4, 8},
                        (const int[]){1, 1}, (const int[]){1, 0});
    CHECK(ll_invert_and_compose(&b16, &sw, &bcvt) == LL_OK);
    CHECK(ll_reg_perm_for_divide(&bcvt, &tile, perm));
    pa = ll_permute_in(&bcvt, LL_REG, perm);
    CHECK(ll_divide_left(&pa, &tile, &q) == LL_ENODIV);
}

static void test_bank_conflicts(void) {
    /* 32x32 f32 row-major; a warp reads one column (lane l -> row l): 32-way conflict */
    LL col = ll_empty();
    ll_add_out(&col, LL_DIM0, 5);
    ll_add_out(&col, LL_DIM1, 0);
    for (uint32_t r = 1; r < 32; r *= 2) ll_push2(&col, LL_LANE, r, 0);
    LL rm = hw_row_major(2, (const int[]){32, 32}), xs = hw_swizzled(32, 32, 1, 1, 32);
    int v = 0;
    CHECK(plan_access_conflicts(&col, &rm, 32, &v) == 31 && v == 1);
    CHECK(plan_access_conflicts(&col, &xs, 32, &v) == 0);
    /* each lane reads a float4 of its own row: 8-way in each of the 4 phases */
    LL rows = hw_blocked(2, (const int[]){32, 32}, (const int[]){1, 4}, (const int[]){32, 1},
                         (const int[]){1, 1}, (const int[]){1, 0});
    LL xs4 = hw_swizzled(32, 32, 4, 1, 8);
    CHECK(plan_access_conflicts(&rows, &rm, 32, &v) == 28 && v == 4);
    CHECK(plan_access_conflicts(&rows, &xs4, 32, &v) == 0 && v == 4);
    /* fp16 rows of 16 bytes per lane, 8 lanes per 128-byte row: conflict free */
    LL bl = hw_blocked(2, (const int[]){64, 64}, (const int[]){1, 8}, (const int[]){4, 8},
                       (const int[]){4, 1}, (const int[]){1, 0});
    LL rm64 = hw_row_major(2, (const int[]){64, 64});
    CHECK(plan_access_conflicts(&bl, &rm64, 16, &v) == 0 && v == 8);
    /* ldmatrix x4 rows (16 B each) on a 16x64 fp16 tile: 128B swizzle 0, plain 28 */
    LL addr = hw_ldmatrix_addr(4, true), sw = hw_smem_swizzle(16, 64, 16, 128);
    LL plain = hw_smem_swizzle(16, 64, 16, 0), acvt;
    CHECK(ll_invert_and_compose(&addr, &sw, &acvt) == LL_OK);
    CHECK(plan_bank_conflicts(&acvt, 16, 8) == 0);
    CHECK(ll_invert_and_compose(&addr, &plain, &acvt) == LL_OK);
    CHECK(plan_bank_conflicts(&acvt, 16, 8) == 28);
    /* two lanes on the two halves of one word: a broadcast, not a conflict */
    LL pair = ll_identity1d(32, LL_LANE, LL_OFFSET);
    CHECK(plan_bank_conflicts(&pair, 16, 1) == 0);
}

typedef uint32_t (*ReduceOp)(uint32_t, uint32_t);
static uint32_t op_sum(uint32_t a, uint32_t b) { return a + b; }
static bool simulate_reduce(const LL *l, int axis, ReduceOp op, const char *name);

/* The generated swizzle makes both sides of a conversion conflict free. */
static void check_generated_swizzle(int line, const LL *src, const LL *dst, int eb,
                                    int want_vec) {
    LL smem;
    int vs = 0, vd = 0;
    plan_smem_swizzle(src, dst, eb, &smem);
    int cs = plan_access_conflicts(src, &smem, eb, &vs);
    int cd = plan_access_conflicts(dst, &smem, eb, &vd);
    checks++;
    if (cs || cd || vs != want_vec || vd != want_vec || !ll_is_bijective(&smem)) {
        failures++;
        fprintf(stderr, "%s:%d: generated swizzle: conflicts %d/%d, vectors %d/%d\n", __FILE__,
                line, cs, cd, vs, vd);
    }
}
#define CHECK_GEN_SWIZZLE(src, dst, eb, v) check_generated_swizzle(__LINE__, src, dst, eb, v)

static void test_generated_swizzle(void) {
    const int sq32[2] = {32, 32}, one[2] = {1, 1};
    LL by_row = hw_blocked(2, sq32, one, (const int[]){1, 32}, one, (const int[]){1, 0});
    LL by_col = hw_blocked(2, sq32, one, (const int[]){32, 1}, one, (const int[]){0, 1});
    LL rm = hw_row_major(2, sq32);
    CHECK(plan_access_conflicts(&by_row, &rm, 32, NULL) == 0);
    CHECK(plan_access_conflicts(&by_col, &rm, 32, NULL) == 28); /* float4 per lane, 4 phases */
    CHECK_GEN_SWIZZLE(&by_row, &by_col, 32, 1);
    LL smem;
    plan_smem_swizzle(&by_row, &by_col, 32, &smem);
    CHECK_PRINT(&smem, "offset: (0,1) (0,2) (0,4) (0,8) (0,16) (1,1) (2,2) (4,4) (8,8) (16,16)  "
                       "-> dim0:32 dim1:32 [packed dim1,dim0]");
    LL bl = hw_blocked(2, (const int[]){64, 64}, (const int[]){1, 8}, (const int[]){4, 8},
                       (const int[]){4, 1}, (const int[]){1, 0});
    LL tc = hw_mma_c_tile(64, 64, 4, 1);
    CHECK_GEN_SWIZZLE(&bl, &tc, 16, 2);
    CHECK_GEN_SWIZZLE(&tc, &bl, 16, 2);
    CHECK_GEN_SWIZZLE(&bl, &bl, 16, 8);
    /* 16-bit C and A fragments share registers (0,1) (8,0) (0,8): 8-element vectors */
    LL ta = hw_mma_a_tile(64, 64, 4, 1), tb = hw_mma_b_tile(64, 64, 1, 4);
    CHECK_GEN_SWIZZLE(&tc, &ta, 16, 8);
    CHECK_GEN_SWIZZLE(&tc, &tb, 16, 4); /* common: (8,0) (0,32) */
}

/* ---- reductions -------------------------------------------------------------------------- */
static void test_reduce_masks(void) {
    ReducePlan p;
    LL c = hw_mma_c();
    CHECK(plan_reduce(&c, 1, false, &p) == LL_OK);
    CHECK(p.lane_mask == 0x3 && p.reg_mask == 0x1 && p.warp_mask == 0);
    CHECK_PRINT(&p.result, "register: (8)  lane: (0) (0) (1) (2) (4)  -> dim0:16");
    CHECK(p.kept_regs == 2);
    CHECK(plan_reduce(&c, 0, false, &p) == LL_OK);
    CHECK(p.lane_mask == 0x1c && p.reg_mask == 0x2 && p.warp_mask == 0);
    LL d = hw_wgmma_d(64, 64, 1, 1);
    CHECK(plan_reduce(&d, 1, false, &p) == LL_OK);
    CHECK(p.lane_mask == 0x3 && p.reg_mask == 0x1d && p.warp_mask == 0 && p.n_warp == 0);
    CHECK(plan_reduce(&d, 0, false, &p) == LL_OK);
    CHECK(p.lane_mask == 0x1c && p.reg_mask == 0x2 && p.warp_mask == 0x3);
    LL bl = hw_blocked(2, (const int[]){64, 64}, (const int[]){1, 8}, (const int[]){4, 8},
                       (const int[]){4, 1}, (const int[]){1, 0});
    CHECK(plan_reduce(&bl, 1, false, &p) == LL_OK);
    CHECK(p.reg_mask == 0x7 && p.lane_mask == 0x7 && p.warp_mask == 0);
    CHECK(plan_reduce(&bl, 0, false, &p) == LL_OK);
    CHECK(p.reg_mask == 0x18 && p.lane_mask == 0x18 && p.warp_mask == 0x3);
    CHECK(ll_basis_coord(&bl, LL_WARP, 0, LL_DIM0) == 4 &&
          ll_basis_coord(&bl, LL_WARP, 1, LL_DIM0) == 8);
    /* replicated warps (A operand over N warps) need no extra cross-warp step */
    LL ta = hw_mma_a_tile(64, 32, 2, 2);
    CHECK(plan_reduce(&ta, 1, false, &p) == LL_OK && p.warp_mask == 0);
    CHECK(plan_reduce(&ta, 0, false, &p) == LL_OK && p.warp_mask == 1);
    /* A register basis with a row and a col bit is fine while the rows of each column
     * still come from pure bits... */
    LL mix = c;
    mix.basis[0] = mix.basis[0] | mix.basis[4]; /* register 1 -> (1,1) */
    CHECK(plan_reduce(&mix, 0, false, &p) == LL_OK && p.n_reg + p.n_lane == 4);
    CHECK(simulate_reduce(&mix, 0, op_sum, "row+col register"));
    /* ...but not when a row step needs register 1 and lane 1 together. */
    LL mixed = ll_empty();
    ll_add_out(&mixed, LL_DIM0, 3);
    ll_add_out(&mixed, LL_DIM1, 3);
    ll_push2(&mixed, LL_REG, 1, 1);
    static const uint32_t lanes[5][2] = {{0, 1}, {0, 2}, {0, 4}, {2, 0}, {4, 0}};
    for (int i = 0; i < 5; i++) ll_push2(&mixed, LL_LANE, lanes[i][0], lanes[i][1]);
    CHECK(ll_is_bijective(&mixed));
    CHECK(plan_reduce(&mixed, 0, false, &p) == LL_EUNSUPPORTED);
    CHECK(simulate_reduce(&mixed, 1, op_sum, "mixed, along cols")); /* cols: pure lanes */
}

static uint32_t op_max(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* One xor-combining step over the index bits `vec` of dimension `dim` of the state. */
static void sim_step(uint32_t *v, uint32_t *tmp, uint32_t n, uint32_t nr, uint32_t nl,
                     int dim, uint32_t vec, ReduceOp op) {
    for (uint32_t x = 0; x < n; x++) {
        uint32_t r = x % nr, l = (x / nr) % nl, w = x / (nr * nl);
        if (dim == 0) r ^= vec;
        else if (dim == 1) l ^= vec;
        else w ^= vec;
        tmp[x] = op(v[x], v[(w * nl + l) * nr + r]);
    }
    memcpy(v, tmp, n * sizeof *v);
}

/* Run plan p on random data, compare with sequential reduction of the logical tile. */
static bool simulate_reduce(const LL *l, int axis, ReduceOp op, const char *name) {
    ReducePlan p;
    if (plan_reduce(l, axis, false, &p) != LL_OK) {
        fprintf(stderr, "reduce %s axis %d: planner failed\n", name, axis);
        return false;
    }
    uint32_t rows = 1u << ll_out_log2(l, LL_DIM0), cols = 1u << ll_out_log2(l, LL_DIM1);
    uint32_t nr = 1u << ll_in_log2(l, LL_REG), nl = 1u << ll_in_log2(l, LL_LANE);
    uint32_t n = nr * nl * (1u << ll_in_log2(l, LL_WARP));
    uint32_t *data = malloc(rows * cols * 4), *v = malloc(n * 4), *tmp = malloc(n * 4);
    for (uint32_t i = 0; i < rows * cols; i++) data[i] = rnd() % 1000;
    for (uint32_t x = 0; x < n; x++) {
        RC e = at(l, x % nr, (x / nr) % nl, x / (nr * nl));
        v[x] = data[e.r * cols + e.c];
    }
    for (int i = 0; i < p.n_reg; i++) sim_step(v, tmp, n, nr, nl, 0, p.reg_vecs[i], op);
    for (int i = 0; i < p.n_lane; i++) sim_step(v, tmp, n, nr, nl, 1, p.lane_vecs[i], op);
    for (int i = 0; i < p.n_warp; i++) sim_step(v, tmp, n, nr, nl, 2, p.warp_vecs[i], op);
    bool ok = true;
    uint32_t nres = 1u << ll_in_log2(&p.result, LL_REG);
    for (uint32_t x = 0; x < n && ok; x++) {
        uint32_t r = x % nr, ln = (x / nr) % nl, w = x / (nr * nl);
        RC e = at(l, r, ln, w);
        uint32_t want = axis == 1 ? data[e.r * cols] : data[e.c];
        for (uint32_t a = 1; a < (axis ? cols : rows); a++)
            want = op(want, data[axis ? e.r * cols + a : a * cols + e.c]);
        ok = v[x] == want;
        /* the result layout names the output element of each kept register */
        for (uint32_t j = 0; j < nres && ok && r == 0; j++) {
            uint32_t src = pdep(j, p.kept_regs);
            LLIdx in = {0}, out;
            in[LL_REG] = j;
            in[LL_LANE] = ln;
            in[LL_WARP] = w;
            ll_apply_idx(&p.result, in, out);
            RC s = at(l, src, ln, w);
            ok = out[LL_DIM0] == (axis ? s.r : s.c);
        }
    }
    if (!ok) fprintf(stderr, "reduce %s axis %d: mismatch\n", name, axis);
    free(data);
    free(v);
    free(tmp);
    return ok;
}

static void test_reduce_sim(void) {
    const int sq64[2] = {64, 64}, s16[2] = {16, 16};
    LL layouts[16];
    const char *names[16];
    int n = 0;
    layouts[n] = hw_mma_c(), names[n++] = "mma C";
    layouts[n] = hw_mma_a(), names[n++] = "mma A";
    layouts[n] = hw_mma_b(), names[n++] = "mma B";
    layouts[n] = hw_mma_c_tile(64, 64, 2, 2), names[n++] = "mma C 64x64";
    layouts[n] = hw_mma_a_tile(64, 32, 2, 2), names[n++] = "mma A 64x32 (replicated)";
    layouts[n] = hw_mma_b_tile(32, 64, 2, 2), names[n++] = "mma B 32x64 (replicated)";
    layouts[n] = hw_wgmma_d(64, 64, 1, 1), names[n++] = "wgmma D 64x64";
    layouts[n] = hw_wgmma_d(128, 128, 2, 1), names[n++] = "wgmma D 128x128";
    layouts[n] = hw_wgmma_a(64, 32, 1, 1), names[n++] = "wgmma A";
    layouts[n] = hw_ldmatrix(4, false, true), names[n++] = "ldmatrix x4";
    layouts[n] = hw_ldmatrix(2, true, true), names[n++] = "ldmatrix x2.trans";
    layouts[n] = hw_blocked(2, sq64, (const int[]){1, 8}, (const int[]){4, 8},
                            (const int[]){4, 1}, (const int[]){1, 0}),
    names[n++] = "blocked 64x64";
    layouts[n] = hw_blocked(2, s16, (const int[]){1, 8}, (const int[]){4, 8},
                            (const int[]){4, 1}, (const int[]){1, 0}),
    names[n++] = "blocked 16x16 (replicated)";
    layouts[n] = hw_blocked(2, sq64, (const int[]){4, 1}, (const int[]){2, 16},
                            (const int[]){2, 2}, (const int[]){0, 1}),
    names[n++] = "blocked col-major";
    for (int i = 0; i < n; i++)
        for (int axis = 0; axis < 2; axis++) {
            CHECK(simulate_reduce(&layouts[i], axis, op_sum, names[i]));
            CHECK(simulate_reduce(&layouts[i], axis, op_max, names[i]));
        }
}

static void test_dump(void) {
    LL c = hw_mma_c();
    StrBuf sb = {0};
    ll_dump_table(&sb, &c);
    const char *want_start = "# rows: dim0, cols: dim1, cell: lane:register (first owner)\n"
                             " 0:0  0:1  1:0  1:1  2:0  2:1  3:0  3:1\n"
                             " 4:0  4:1  5:0  5:1  6:0  6:1  7:0  7:1\n";
    CHECK(strncmp(sb.buf, want_start, strlen(want_start)) == 0);
    CHECK(strstr(sb.buf, "\n 0:2  0:3  1:2  1:3  2:2  2:3  3:2  3:3\n") != NULL);
    if (strncmp(sb.buf, want_start, strlen(want_start))) fprintf(stderr, "%s", sb.buf);
    sb_free(&sb);
}

int main(void) {
    test_identity_product();
    test_mma_fragments();
    test_wgmma();
    test_ldmatrix();
    test_swizzle();
    test_invert_compose();
    test_sublayouts();
    test_fitting();
    test_fit();
    test_conversions();
    test_divide();
    test_bank_conflicts();
    test_generated_swizzle();
    test_reduce_masks();
    test_reduce_sim();
    test_dump();
    if (failures) {
        printf("test_layout: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("test_layout: %d checks passed\n", checks);
    return 0;
}
