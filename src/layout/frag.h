/* frag.h - register-fragment layouts: which thread of the block holds which element of a
 * fragment (or runs which iteration of a T.Parallel nest), and where in its registers.
 *
 * A layout of an n-D shape is a list of mixed-radix digits. Each digit belongs to one
 * dimension: index[dim] = sum over its digits of value * stride, value in [0, extent).
 * A digit's value is read either from the thread index (thread digit: (tid / step) %
 * extent) or from the thread's local register index (local digit: (l / step) % extent).
 * The digits of a dimension cover it exactly (their strides and extents form a mixed
 * radix whose product is the extent). Threads whose tid differs only in bits no thread
 * digit reads are replicas: they hold the same elements (a row vector reduced from a
 * tile is held by every thread of its row). Layouts are built for constant shapes.
 *
 * Non-power-of-two shapes are handled (the radix is mixed). This is the one layout form
 * of the compiler: pass_infer_layouts attaches these to buffers and loops, the CUDA
 * emitter prints them as index arithmetic, the IR printer as one line (frag_print). */
#ifndef TILEC_LAYOUT_FRAG_H
#define TILEC_LAYOUT_FRAG_H

#include "base/base.h"

enum { FRAG_MAX_DIMS = 4, FRAG_MAX_DIGITS = 16 };

typedef struct FragDigit {
    int dim;
    int64_t stride, extent; /* in elements of dimension dim */
    bool thread;            /* value from tid (else from the local index) */
    int64_t step;           /* divisor of tid or of the local index */
} FragDigit;

typedef struct Frag {
    int ndim;
    int64_t shape[FRAG_MAX_DIMS];
    int ndig;
    FragDigit dig[FRAG_MAX_DIGITS];
    int nthreads;       /* threads of the block */
    int64_t nlocal;     /* registers per thread: product of the local extents */
    const char *origin; /* "mma accumulator", "blocked", ... for printing */
} Frag;

/* The mma.sync m16n8k16 accumulator of an M x N tile over WM x WN warps (warp = warp_m *
 * WN + warp_n), local index (mi * NT + ni) * 4 + c, as runtime/cuda/tl_cuda.h's
 * tl_gemm_ss, in a block of nthreads (a multiple of 32 WM WN: further warps are
 * replicas). NULL if M % (16 WM) or N % (8 WN) is not 0. */
Frag *frag_mma_acc(Arena *a, int64_t M, int64_t N, int wm, int wn, int nthreads);
/* The wgmma m64nNk16 accumulator of an M x N tile over nwg x nwg_n warpgroups that split
 * M and N (tl_wgmma_ss; warpgroup w = wm * nwg_n + wn): wm holds rows wm * M / nwg .. in
 * MT = M / nwg / 64 slices of 64, its warp q rows 16 q .. 16 q + 15 of each; wn columns
 * wn * NI .., NI = N / nwg_n; local index (mi * NI / 8 + ni) * 4 + c. NULL unless
 * M % (64 nwg) == 0, N % (8 nwg_n) == 0, nthreads % (128 nwg nwg_n) == 0. */
Frag *frag_wgmma_acc(Arena *a, int64_t M, int64_t N, int nwg, int nwg_n, int nthreads);
/* The register A operand of tl_wgmma_rs: the M x K accumulator layout over nwg warpgroup
 * rows, replicated over the nwg_n warpgroups of each. */
Frag *frag_wgmma_a(Arena *a, int64_t M, int64_t K, int nwg, int nwg_n, int nthreads);
/* The register A operand of tl_gemm_rs: an M x K tile in the accumulator layout with the
 * warp_n split dropped (replicated over warp_n). */
Frag *frag_mma_a(Arena *a, int64_t M, int64_t K, int wm, int wn, int nthreads);
/* The register A operand of tl_gemm_rs_tf32 (mma.sync m16n8k8 .tf32, the PTX ISA's
 * fragment: with g = lane / 4, t = lane % 4, a0 = (g, t), a1 = (g + 8, t), a2 = (g, t + 4),
 * a3 = (g + 8, t + 4)): an M x K tile of 32-bit elements over WM x WN warps (replicated
 * over warp_n), local index (mi * (K / 8) + ki) * 4 + i for register ai of k-step ki.
 * NULL unless M % (16 WM) == 0, K % 8 == 0, nthreads % (32 WM WN) == 0. */
Frag *frag_mma_a_tf32(Arena *a, int64_t M, int64_t K, int wm, int wn, int nthreads);
/* A layout for element-wise work: vec consecutive elements of the last dimension per
 * thread, threads next, then more registers. Uses fewer threads (the rest replicas) when
 * the shape does not split evenly; NULL only for a non-positive or too large shape. */
Frag *frag_blocked(Arena *a, int ndim, const int64_t *shape, int nthreads, int vec);
/* The layout of a sub-shape: dimension k of the result is dimension dims[k] of f, or of
 * extent 1 when dims[k] is -1 (so in frag_consistent and frag_local_map). Local
 * digits are renumbered densely (innermost first); thread digits keep their steps, so
 * the result is consistent with f for every thread. */
Frag *frag_project(Arena *a, const Frag *f, int n, const int *dims);
/* The layout of a window of f: elements off[d] .. off[d] + ext[d] - 1 of each dimension
 * d, for offsets that are multiples of ext[d]. It keeps f's digit values below ext[d]
 * (cutting a digit that straddles ext[d]), local steps included, so that it indexes f's
 * registers: an element's local index in f is the window's (frag_local_map) plus, for
 * each local digit of f with stride * extent > ext[dim], ((off[dim] / stride) % extent) *
 * step. NULL unless the values the offsets fix are all local ones (each
 * thread then holds its iterations' elements for every offset). */
Frag *frag_window(Arena *a, const Frag *f, const int64_t *ext);
/* f with dimension dim split into m dimensions of extents ext[0..m) (outermost first,
 * their product f's extent there): the layout of a row-major view of the fragment
 * (T.reshape). A digit that straddles a split is cut in two (its value's low and high
 * parts, steps and local index unchanged), so the result indexes f's registers as f
 * does. NULL when a digit cannot be cut there or the result has too many dimensions or
 * digits. frag_merge is the inverse: dimensions dim .. dim + m - 1 of f as one. */
Frag *frag_split(Arena *a, const Frag *f, int dim, int m, const int64_t *ext);
Frag *frag_merge(Arena *a, const Frag *f, int dim, int m);
/* f and g lay out the same shape identically (digits, steps, threads). */
bool frag_equal(const Frag *f, const Frag *g);
/* Of thread digit d, the lanes inside one warp that a butterfly of warp shuffles
 * combines (d's first lanes, a power of two; 1 when d is not a power-of-two digit). A
 * cross-thread reduction shuffles over them and combines the rest of d through shared
 * memory. */
int64_t frag_digit_warp_lanes(const FragDigit *d);
/* The round of a reduction over dimension dim of f that combines thread digit i through
 * shared memory: the threads that hold one value by then differ only in the digits it
 * fills into u, highest step first (the dimension's thread digits before i, whole, and
 * i's shuffled lanes), so its workspace keeps one slot per thread with them collapsed
 * (frag_collapse). Returns how many (0 when they overlap: no collapse). */
int frag_reduce_uniform(const Frag *f, int dim, int i, FragDigit *u);
/* tid with the n digits u (highest step first) removed: a dense slot number. */
int64_t frag_collapse(int64_t tid, const FragDigit *u, int n);
/* Whether sub, a layout of dimensions dims[] of loop, is consistent with it: the same
 * digits on those dimensions, thread digits with the same steps. Then an element of sub
 * is held by the thread that runs its iteration of loop, at a local index that depends
 * on loop's local index only (frag_local_map). */
bool frag_consistent(const Frag *loop, const Frag *sub, int n, const int *dims);
/* For consistent (loop, sub, dims): for each local digit k of sub, the index of loop's
 * digit it matches (out[k], -1 for a thread digit). */
void frag_local_map(const Frag *loop, const Frag *sub, int n, const int *dims, int *out);
/* Whether some threads are replicas (tid bits that no thread digit reads). */
bool frag_replicated(const Frag *f);
/* Checks the invariants by enumeration (each thread class holds each element exactly
 * once); false if broken. For tests and assertions. */
bool frag_valid(const Frag *f);
/* One line: "ORIGIN, T threads x R regs: i0 = ..., i1 = ..." where index d of the element
 * that register r of thread tid holds is the sum of its digits, stride*(src/step%extent)
 * with src tid or r (tid/4%8 + 8*(r/2%2)). */
void frag_print(StrBuf *sb, const Frag *f);

#endif
