/* test_frag.c - register-fragment layouts (src/layout/frag.c).
 * References, independent of the code under test: the PTX ISA mma.sync m16n8k16
 * accumulator and A-operand formulas (warp = warp_m * WN + warp_n, local index
 * (mi * NT + ni) * 4 + c), the row-major "vec, then threads, then registers" order of
 * frag_blocked's contract, and ownership found by enumerating every (thread, register)
 * pair. Elements are decoded from the digits by frag.h's definition:
 * index[dim] = sum over its digits of ((src / step) % extent) * stride. */
#include "layout/frag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_MAX_REPORTS 30
#include "check.h"

/* ---- helpers ----------------------------------------------------------------------------- */
typedef struct Idx {
    int64_t i[FRAG_MAX_DIMS];
} Idx;

/* The element that thread tid holds in register l (frag.h's digit definition). */
static Idx elem(const Frag *f, int64_t tid, int64_t l) {
    Idx e = {{0}};
    for (int k = 0; k < f->ndig; k++) {
        const FragDigit *d = &f->dig[k];
        e.i[d->dim] += ((d->thread ? tid : l) / d->step) % d->extent * d->stride;
    }
    return e;
}

static int64_t total_of(const Frag *f) {
    int64_t t = 1;
    for (int d = 0; d < f->ndim; d++) t *= f->shape[d];
    return t;
}

/* Row-major flat index of e, or -1 if it lies outside the shape. */
static int64_t flat_of(const Frag *f, Idx e) {
    int64_t flat = 0;
    for (int d = 0; d < f->ndim; d++) {
        if (e.i[d] < 0 || e.i[d] >= f->shape[d]) return -1;
        flat = flat * f->shape[d] + e.i[d];
    }
    return flat;
}

/* Partitions the threads of f into classes by enumeration: a thread whose registers hold
 * exactly the elements (in the same order) of an earlier thread is its replica, any other
 * thread must hold only elements no earlier class holds, each once. Returns the number of
 * classes (threads that are not replicas) if every element is held by exactly one class,
 * else -1 (the reason printed). */
static int owner_classes(const Frag *f, const char *what) {
    int64_t total = total_of(f), nl = f->nlocal;
    int64_t *list = malloc(sizeof(int64_t) * (size_t)(f->nthreads * nl));
    int *owner = malloc(sizeof(int) * (size_t)total);
    int classes = 0;
    for (int64_t x = 0; x < total; x++) owner[x] = -1;
    for (int tid = 0; tid < f->nthreads && classes >= 0; tid++) {
        int64_t *mine = list + tid * nl;
        for (int64_t l = 0; l < nl; l++) mine[l] = flat_of(f, elem(f, tid, l));
        for (int64_t l = 0; l < nl && classes >= 0; l++)
            if (mine[l] < 0) {
                fprintf(stderr, "%s: tid %d register %lld out of the shape\n", what, tid,
                        (long long)l);
                classes = -1;
            }
        if (classes < 0) break;
        int rep = owner[mine[0]];
        if (rep >= 0) { /* a replica of rep, register for register */
            if (memcmp(mine, list + rep * nl, sizeof(int64_t) * (size_t)nl)) {
                fprintf(stderr, "%s: tid %d overlaps tid %d but is not its replica\n", what, tid,
                        rep);
                classes = -1;
            }
            continue;
        }
        for (int64_t l = 0; l < nl && classes >= 0; l++) {
            if (owner[mine[l]] >= 0) {
                fprintf(stderr, "%s: tid %d register %lld: element %lld already held by %d\n", what,
                        tid, (long long)l, (long long)mine[l], owner[mine[l]]);
                classes = -1;
            }
            owner[mine[l]] = tid;
        }
        if (classes >= 0) classes++;
    }
    for (int64_t x = 0; x < total && classes >= 0; x++)
        if (owner[x] < 0) {
            fprintf(stderr, "%s: element %lld held by no thread\n", what, (long long)x);
            classes = -1;
        }
    free(list);
    free(owner);
    return classes;
}

/* ---- the mma.sync accumulator ------------------------------------------------------------- */
/* PTX m16n8k16 accumulator: thread tid, register l -> (row, col) of an M x N tile over
 * wm x wn warps; warps beyond wm * wn repeat the first ones. */
static Idx acc_ref(int64_t M, int64_t N, int wm, int wn, int64_t tid, int64_t l) {
    int64_t NT = N / wn / 8, warp = tid / 32 % (wm * wn), lane = tid % 32;
    int64_t warp_m = warp / wn, warp_n = warp % wn;
    int64_t c = l % 4, ni = l / 4 % NT, mi = l / 4 / NT;
    Idx e = {{0}};
    e.i[0] = warp_m * (M / wm) + mi * 16 + lane / 4 + 8 * (c / 2);
    e.i[1] = warp_n * (N / wn) + ni * 8 + 2 * (lane % 4) + c % 2;
    return e;
}

/* PTX m16n8k16 A operand of an M x K tile: rows as the accumulator, k columns in
 * 8-wide halves; replicated over warp_n. */
static Idx a_ref(int64_t M, int64_t K, int wm, int wn, int64_t tid, int64_t l) {
    int64_t KT = K / 8, warp = tid / 32 % (wm * wn), lane = tid % 32;
    int64_t warp_m = warp / wn;
    int64_t c = l % 4, ki = l / 4 % KT, mi = l / 4 / KT;
    Idx e = {{0}};
    e.i[0] = warp_m * (M / wm) + mi * 16 + lane / 4 + 8 * (c / 2);
    e.i[1] = ki * 8 + 2 * (lane % 4) + c % 2;
    return e;
}

/* PTX m16n8k8 .tf32 A operand (one 32-bit element per register): with g = lane / 4,
 * t = lane % 4, register i of k-step ki is (g + 8 (i % 2), ki * 8 + t + 4 (i / 2));
 * replicated over warp_n. */
static Idx a_tf32_ref(int64_t M, int64_t K, int wm, int wn, int64_t tid, int64_t l) {
    int64_t KT = K / 8, warp = tid / 32 % (wm * wn), lane = tid % 32;
    int64_t warp_m = warp / wn;
    int64_t i = l % 4, ki = l / 4 % KT, mi = l / 4 / KT;
    Idx e = {{0}};
    e.i[0] = warp_m * (M / wm) + mi * 16 + lane / 4 + 8 * (i % 2);
    e.i[1] = ki * 8 + lane % 4 + 4 * (i / 2);
    return e;
}

typedef Idx (*MmaRef)(int64_t R, int64_t C, int wm, int wn, int64_t tid, int64_t l);

/* Every (tid, l) of f against the reference; one check, the first mismatch printed. */
static void check_mma_formula(const char *what, const Frag *f, MmaRef ref, int wm, int wn) {
    int64_t bad = 0, btid = 0, bl = 0;
    Idx got = {{0}}, want = {{0}};
    for (int64_t tid = 0; tid < f->nthreads; tid++)
        for (int64_t l = 0; l < f->nlocal; l++) {
            Idx g = elem(f, tid, l), w = ref(f->shape[0], f->shape[1], wm, wn, tid, l);
            if (g.i[0] == w.i[0] && g.i[1] == w.i[1]) continue;
            if (!bad++) btid = tid, bl = l, got = g, want = w;
        }
    CHECK(bad == 0, "%s: %lld mismatches, first tid %lld l %lld -> (%lld,%lld), want (%lld,%lld)",
          what, (long long)bad, (long long)btid, (long long)bl, (long long)got.i[0],
          (long long)got.i[1], (long long)want.i[0], (long long)want.i[1]);
}

static void check_acc(Arena *a, int64_t M, int64_t N, int wm, int wn, int nthreads) {
    char what[96];
    snprintf(what, sizeof what, "acc %lldx%lld %dx%d warps %d threads", (long long)M, (long long)N,
             wm, wn, nthreads);
    Frag *f = frag_mma_acc(a, M, N, wm, wn, nthreads);
    CHECK(f != NULL, "%s", what);
    if (!f) return;
    CHECK(f->ndim == 2 && f->shape[0] == M && f->shape[1] == N, "%s", what);
    CHECK(f->nthreads == nthreads, "%s", what);
    CHECK(frag_valid(f), "%s", what);
    CHECK(f->nlocal == M * N / (32 * wm * wn), "%s: nlocal %lld", what, (long long)f->nlocal);
    CHECK(frag_replicated(f) == (nthreads > 32 * wm * wn), "%s", what);
    CHECK(owner_classes(f, what) == 32 * wm * wn, "%s", what);
    check_mma_formula(what, f, acc_ref, wm, wn);
}

static void test_mma_acc(void) {
    Arena a = {0};
    check_acc(&a, 64, 64, 2, 2, 128);
    check_acc(&a, 128, 128, 2, 2, 128);
    check_acc(&a, 16, 32, 1, 1, 128); /* three replica warps */
    check_acc(&a, 16, 8, 1, 1, 32);   /* one mma tile */
    check_acc(&a, 64, 64, 4, 1, 128);
    check_acc(&a, 64, 64, 1, 4, 128);
    check_acc(&a, 128, 256, 2, 4, 256);
    check_acc(&a, 64, 64, 2, 2, 256); /* one replica of each warp */
    check_acc(&a, 96, 40, 3, 1, 96);  /* non-power-of-two tile counts */
    /* Tiles that do not split into m16n8 tiles per warp, and blocks not made of whole
     * warp grids. */
    CHECK(frag_mma_acc(&a, 48, 64, 2, 2, 128) == NULL);
    CHECK(frag_mma_acc(&a, 64, 60, 1, 1, 32) == NULL);
    CHECK(frag_mma_acc(&a, 64, 8, 1, 2, 64) == NULL);
    CHECK(frag_mma_acc(&a, 64, 64, 2, 2, 96) == NULL);
    CHECK(frag_mma_acc(&a, 64, 64, 0, 1, 32) == NULL);
    CHECK(frag_mma_acc(&a, 64, 64, 1, 0, 32) == NULL);
    arena_free(&a);
}

/* ---- the mma A operand -------------------------------------------------------------------- */
static void check_a(Arena *a, int64_t M, int64_t K, int wm, int wn, int nthreads) {
    char what[96];
    snprintf(what, sizeof what, "A %lldx%lld %dx%d warps %d threads", (long long)M, (long long)K,
             wm, wn, nthreads);
    Frag *f = frag_mma_a(a, M, K, wm, wn, nthreads);
    CHECK(f != NULL, "%s", what);
    if (!f) return;
    CHECK(f->ndim == 2 && f->shape[0] == M && f->shape[1] == K, "%s", what);
    CHECK(frag_valid(f), "%s", what);
    CHECK(f->nlocal == M * K / (32 * wm), "%s: nlocal %lld", what, (long long)f->nlocal);
    CHECK(frag_replicated(f) == (nthreads > 32 * wm), "%s", what);
    CHECK(owner_classes(f, what) == 32 * wm, "%s", what);
    check_mma_formula(what, f, a_ref, wm, wn);
}

/* PTX wgmma m64nNk16 accumulator (HOPPER-NOTES 1.4), tiled: warpgroup w = tid / 128 (mod
 * nwg * nwg_n) is row g = w / nwg_n, column wn = w % nwg_n: rows g * M / nwg .. in slices
 * of 64, columns wn * NI .. (NI = N / nwg_n); register i of slice mi is (mi * NI / 8 + i /
 * 4) * 4 + i % 4 in the thread's array. */
static Idx wgmma_ref(int64_t M, int64_t N, int nwg, int nwg_n, int64_t tid, int64_t l) {
    int64_t NI = N / nwg_n, NT = NI / 8, wg = tid / 128 % (nwg * nwg_n);
    int64_t g = wg / nwg_n, wn = wg % nwg_n, w = tid / 32 % 4, lane = tid % 32;
    int64_t c = l % 4, ni = l / 4 % NT, mi = l / 4 / NT;
    Idx e = {{0}};
    e.i[0] = g * (M / nwg) + mi * 64 + 16 * w + lane / 4 + 8 * (c / 2);
    e.i[1] = wn * NI + ni * 8 + 2 * (lane % 4) + c % 2;
    return e;
}

static void check_wgmma(Arena *a, int64_t M, int64_t N, int nwg, int nwg_n, int nthreads) {
    char what[96];
    snprintf(what, sizeof what, "wgmma acc %lldx%lld %dx%d warpgroups %d threads", (long long)M,
             (long long)N, nwg, nwg_n, nthreads);
    Frag *f = frag_wgmma_acc(a, M, N, nwg, nwg_n, nthreads);
    CHECK(f != NULL, "%s", what);
    if (!f) return;
    CHECK(frag_valid(f), "%s", what);
    CHECK(f->nlocal == M * N / (128 * nwg * nwg_n), "%s: nlocal %lld", what, (long long)f->nlocal);
    CHECK(frag_replicated(f) == (nthreads > 128 * nwg * nwg_n), "%s", what);
    check_mma_formula(what, f, wgmma_ref, nwg, nwg_n);
}

static void test_wgmma_acc(void) {
    Arena a = {0};
    check_wgmma(&a, 64, 128, 1, 1, 128);
    check_wgmma(&a, 128, 128, 1, 1, 128); /* two m64 slices per warpgroup */
    check_wgmma(&a, 128, 256, 2, 1, 256);
    check_wgmma(&a, 256, 64, 2, 1, 256);
    check_wgmma(&a, 64, 16, 1, 1, 256);  /* a replica warpgroup */
    check_wgmma(&a, 64, 512, 1, 2, 256); /* MLA decode's P V: N over two warpgroups */
    check_wgmma(&a, 128, 64, 2, 2, 512);
    CHECK(!frag_wgmma_acc(&a, 96, 64, 1, 1, 128), "wgmma: M not a multiple of 64");
    CHECK(!frag_wgmma_acc(&a, 64, 60, 1, 1, 128), "wgmma: N not a multiple of 8");
    CHECK(!frag_wgmma_acc(&a, 128, 64, 2, 1, 128), "wgmma: too few threads");
    CHECK(!frag_wgmma_acc(&a, 64, 64, 1, 2, 128), "wgmma: too few threads for the N split");
    CHECK(!frag_wgmma_acc(&a, 64, 24, 1, 2, 256), "wgmma: N / 2 not a multiple of 8");
    /* tl_wgmma_rs's A: each warpgroup row's tile in both of its columns' warpgroups */
    Frag *ra = frag_wgmma_a(&a, 64, 64, 1, 2, 256);
    CHECK(ra && frag_valid(ra) && ra->nlocal == 64 * 64 / 128 && frag_replicated(ra),
          "wgmma A 64x64 over 1x2 warpgroups: replicated");
    if (ra) check_mma_formula("wgmma A 64x64 1x2", ra, wgmma_ref, 1, 1);
    arena_free(&a);
}

static void check_a_tf32(Arena *a, int64_t M, int64_t K, int wm, int wn, int nthreads) {
    char what[96];
    snprintf(what, sizeof what, "tf32 A %lldx%lld %dx%d warps %d threads", (long long)M,
             (long long)K, wm, wn, nthreads);
    Frag *f = frag_mma_a_tf32(a, M, K, wm, wn, nthreads);
    CHECK(f != NULL, "%s", what);
    if (!f) return;
    CHECK(frag_valid(f), "%s", what);
    CHECK(f->nlocal == M * K / (32 * wm), "%s: nlocal %lld", what, (long long)f->nlocal);
    CHECK(owner_classes(f, what) == 32 * wm, "%s", what);
    check_mma_formula(what, f, a_tf32_ref, wm, wn);
}

static void test_mma_a_tf32(void) {
    Arena a = {0};
    check_a_tf32(&a, 32, 256, 2, 2, 128); /* mhc_pre's x_frag */
    check_a_tf32(&a, 64, 24, 4, 1, 128);
    check_a_tf32(&a, 16, 8, 1, 1, 32);
    CHECK(frag_mma_a_tf32(&a, 64, 12, 2, 2, 128) == NULL); /* K not a multiple of k8 */
    arena_free(&a);
}

static void test_mma_a(void) {
    Arena a = {0};
    check_a(&a, 64, 32, 2, 2, 128); /* replicated over warp_n */
    check_a(&a, 64, 64, 4, 1, 128);
    check_a(&a, 128, 64, 2, 2, 128);
    check_a(&a, 16, 16, 1, 1, 32);
    check_a(&a, 32, 48, 1, 2, 64);
    CHECK(frag_mma_a(&a, 64, 24, 2, 2, 128) == NULL); /* K not a multiple of k16 */
    CHECK(frag_mma_a(&a, 48, 32, 2, 2, 128) == NULL);
    CHECK(frag_mma_a(&a, 64, 32, 2, 2, 64) == NULL);
    arena_free(&a);
}

/* ---- blocked ------------------------------------------------------------------------------ */
/* A blocked layout of shape: valid, each element held once by the threads that are not
 * replicas, nlocal registers each. pow2: the shape splits evenly (total a multiple of
 * nthreads * vec), so every thread is used and thread tid holds, in register l, flat
 * element (l / vec) * nthreads * vec + tid * vec + l % vec (vec consecutive elements of
 * the last dimension, threads next, then more registers). */
static void check_blocked(Arena *a, int ndim, const int64_t *shape, int nthreads, int vec,
                          bool pow2) {
    char what[96];
    int n = snprintf(what, sizeof what, "blocked (");
    for (int d = 0; d < ndim; d++)
        n += snprintf(what + n, sizeof what - (size_t)n, "%s%lld", d ? "," : "",
                      (long long)shape[d]);
    snprintf(what + n, sizeof what - (size_t)n, ") %d threads vec %d", nthreads, vec);
    Frag *f = frag_blocked(a, ndim, shape, nthreads, vec);
    CHECK(f != NULL, "%s", what);
    if (!f) return;
    int64_t total = total_of(f);
    CHECK(f->ndim == ndim && f->nthreads == nthreads, "%s", what);
    CHECK(frag_valid(f), "%s", what);
    int used = owner_classes(f, what);
    CHECK(used >= 1, "%s", what);
    CHECK(f->nlocal * used == total, "%s: %lld registers x %d threads", what, (long long)f->nlocal,
          used);
    CHECK(frag_replicated(f) == (used < nthreads), "%s", what);
    if (!pow2) return;
    CHECK(used == nthreads, "%s: %d threads used", what, used);
    int64_t bad = 0;
    for (int64_t tid = 0; tid < nthreads; tid++)
        for (int64_t l = 0; l < f->nlocal; l++) {
            int64_t want = l / vec * nthreads * vec + tid * vec + l % vec;
            if (flat_of(f, elem(f, tid, l)) != want && !bad++)
                fprintf(stderr, "%s: tid %lld register %lld holds flat %lld, want %lld\n", what,
                        (long long)tid, (long long)l, (long long)flat_of(f, elem(f, tid, l)),
                        (long long)want);
        }
    CHECK(bad == 0, "%s: %lld registers out of order", what, (long long)bad);
}

static void test_blocked(void) {
    Arena a = {0};
    check_blocked(&a, 2, (const int64_t[]){1, 8192}, 128, 8, true);
    check_blocked(&a, 2, (const int64_t[]){4, 1024}, 128, 4, true);
    check_blocked(&a, 2, (const int64_t[]){32, 64}, 128, 8, true);
    check_blocked(&a, 2, (const int64_t[]){64, 64}, 256, 4, true);
    check_blocked(&a, 3, (const int64_t[]){2, 4, 128}, 64, 2, true);
    check_blocked(&a, 1, (const int64_t[]){1024}, 128, 8, true);
    check_blocked(&a, 2, (const int64_t[]){6, 10}, 128, 4, false); /* uneven: fewer threads */
    check_blocked(&a, 3, (const int64_t[]){3, 5, 7}, 128, 4, false);
    check_blocked(&a, 2, (const int64_t[]){1, 1}, 128, 8, false);
    check_blocked(&a, 2, (const int64_t[]){4, 8}, 128, 4, false); /* fewer elements than lanes */
    check_blocked(&a, 2, (const int64_t[]){24, 40}, 96, 4, false);
    check_blocked(&a, 4, (const int64_t[]){3, 1, 6, 9}, 128, 2, false);
    /* NULL only for a non-positive or too large shape. */
    CHECK(frag_blocked(&a, 0, (const int64_t[]){1}, 128, 4) == NULL);
    CHECK(frag_blocked(&a, 2, (const int64_t[]){0, 4}, 128, 4) == NULL);
    CHECK(frag_blocked(&a, 2, (const int64_t[]){4, -8}, 128, 4) == NULL);
    CHECK(frag_blocked(&a, 5, (const int64_t[]){1, 1, 1, 1, 1}, 128, 4) == NULL);
    CHECK(frag_blocked(&a, 2, (const int64_t[]){INT64_MAX / 2, 4}, 128, 4) == NULL);
    arena_free(&a);
}

/* ---- projection ----------------------------------------------------------------------------- */
/* p = frag_project(loop, dims) is valid and consistent with loop, and for every thread
 * and loop register l, p's register at the local index built from frag_local_map (each
 * local digit of p reads the value of its loop digit from l) holds the projection of
 * loop's element: the register the loop body reads is the right one. Returns p. */
static Frag *check_project(Arena *a, const char *what, const Frag *loop, int n, const int *dims) {
    Frag *p = frag_project(a, loop, n, dims);
    CHECK(p != NULL, "%s", what);
    if (!p) return NULL;
    CHECK(p->ndim == n && p->nthreads == loop->nthreads, "%s", what);
    for (int k = 0; k < n; k++)
        CHECK(p->shape[k] == (dims[k] < 0 ? 1 : loop->shape[dims[k]]), "%s: dim %d", what, k);
    CHECK(frag_valid(p), "%s", what);
    CHECK(owner_classes(p, what) > 0, "%s", what);
    CHECK(frag_consistent(loop, p, n, dims), "%s", what);
    int map[FRAG_MAX_DIGITS];
    frag_local_map(loop, p, n, dims, map);
    bool map_ok = true;
    for (int i = 0; i < p->ndig; i++)
        map_ok &= p->dig[i].thread
                      ? map[i] == -1
                      : map[i] >= 0 && map[i] < loop->ndig && !loop->dig[map[i]].thread;
    CHECK(map_ok, "%s: local map", what);
    if (!map_ok) return p;
    int64_t bad = 0;
    for (int64_t tid = 0; tid < loop->nthreads; tid++)
        for (int64_t l = 0; l < loop->nlocal; l++) {
            int64_t pl = 0;
            for (int i = 0; i < p->ndig; i++) {
                if (p->dig[i].thread) continue;
                const FragDigit *e = &loop->dig[map[i]];
                pl += l / e->step % e->extent * p->dig[i].step;
            }
            Idx le = elem(loop, tid, l), pe = elem(p, tid, pl);
            bool ok = pl < p->nlocal;
            for (int k = 0; k < n; k++) ok &= pe.i[k] == (dims[k] < 0 ? 0 : le.i[dims[k]]);
            if (!ok && !bad++)
                fprintf(stderr,
                        "%s: tid %lld loop register %lld -> projected register %lld "
                        "holds the wrong element\n",
                        what, (long long)tid, (long long)l, (long long)pl);
        }
    CHECK(bad == 0, "%s: %lld wrong registers", what, (long long)bad);
    return p;
}

static void test_project(void) {
    Arena a = {0};
    Frag *acc = frag_mma_acc(&a, 64, 64, 2, 2, 128);
    Frag *rows = check_project(&a, "acc 64x64 2x2 rows", acc, 1, (const int[]){0});
    Frag *row_vec = check_project(&a, "acc 64x64 2x2 {-1,0}", acc, 2, (const int[]){-1, 0});
    Frag *cols = check_project(&a, "acc 64x64 2x2 columns", acc, 1, (const int[]){1});
    check_project(&a, "acc 64x64 2x2 {1,-1}", acc, 2, (const int[]){1, -1});
    Frag *same = check_project(&a, "acc 64x64 2x2 {0,1}", acc, 2, (const int[]){0, 1});
    check_project(&a, "acc 64x64 2x2 transposed", acc, 2, (const int[]){1, 0});
    /* A row vector is held by the four lanes of its quad and by both warp columns. */
    CHECK(rows && frag_replicated(rows) && rows->nlocal == 4);
    CHECK(cols && frag_replicated(cols) && cols->nlocal == 8);
    /* Projecting onto every dimension in order changes nothing (the accumulator's local
     * digits are already dense); projecting twice is projecting once. */
    CHECK(same && frag_equal(same, acc));
    if (row_vec && rows) {
        Frag *again = check_project(&a, "({-1,0}) {1}", row_vec, 1, (const int[]){1});
        CHECK(again && frag_equal(again, rows));
    }

    Frag *acc128 = frag_mma_acc(&a, 128, 128, 2, 2, 128);
    check_project(&a, "acc 128x128 2x2 rows", acc128, 1, (const int[]){0});
    check_project(&a, "acc 128x128 2x2 {-1,0}", acc128, 2, (const int[]){-1, 0});
    Frag *acc_rep = frag_mma_acc(&a, 16, 32, 1, 1, 128);
    check_project(&a, "acc 16x32 replicas rows", acc_rep, 1, (const int[]){0});
    check_project(&a, "acc 16x32 replicas {-1,0}", acc_rep, 2, (const int[]){-1, 0});
    Frag *acc41 = frag_mma_acc(&a, 64, 64, 4, 1, 128);
    check_project(&a, "acc 64x64 4x1 rows", acc41, 1, (const int[]){0});
    check_project(&a, "acc 64x64 4x1 {1,-1}", acc41, 2, (const int[]){1, -1});

    Frag *blk = frag_blocked(&a, 2, (const int64_t[]){32, 64}, 128, 8);
    check_project(&a, "blocked 32x64 rows", blk, 1, (const int[]){0});
    check_project(&a, "blocked 32x64 columns", blk, 1, (const int[]){1});
    Frag *odd = frag_blocked(&a, 3, (const int64_t[]){3, 5, 7}, 128, 4);
    check_project(&a, "blocked 3x5x7 {2,-1,0}", odd, 3, (const int[]){2, -1, 0});
    arena_free(&a);
}

/* ---- negative cases ------------------------------------------------------------------------- */
static void test_mismatch(void) {
    Arena a = {0};
    const int d0[] = {0}, d1[] = {1}, d01[] = {0, 1};
    Frag *acc = frag_mma_acc(&a, 64, 64, 2, 2, 128);
    Frag *acc2 = frag_mma_acc(&a, 64, 64, 2, 2, 128);
    Frag *acc41 = frag_mma_acc(&a, 64, 64, 4, 1, 128);
    Frag *acc_wide = frag_mma_acc(&a, 64, 128, 2, 2, 128);
    Frag *acc256 = frag_mma_acc(&a, 64, 64, 2, 2, 256);
    Frag *blk = frag_blocked(&a, 2, (const int64_t[]){64, 64}, 128, 8);

    /* Equal: the same construction, and the same digits listed in another order. */
    CHECK(frag_equal(acc, acc2));
    Frag rev = *acc;
    for (int i = 0; i < acc->ndig; i++) rev.dig[i] = acc->dig[acc->ndig - 1 - i];
    CHECK(frag_equal(acc, &rev) && frag_equal(&rev, acc));

    /* Different warps, shape, thread count, kind of layout. */
    CHECK(!frag_equal(acc, acc41) && !frag_equal(acc41, acc));
    CHECK(!frag_equal(acc, acc_wide));
    CHECK(!frag_equal(acc, acc256));
    CHECK(!frag_equal(acc, blk) && !frag_equal(blk, acc));
    Frag *rows_of = frag_project(&a, acc, 1, d0);
    CHECK(!frag_equal(acc, rows_of));

    /* Consistency: a row vector of another warp grid, shape or layout kind does not fit. */
    CHECK(frag_consistent(acc, rows_of, 1, d0));
    CHECK(!frag_consistent(acc41, rows_of, 1, d0));
    CHECK(!frag_consistent(acc, frag_project(&a, acc41, 1, d0), 1, d0));
    CHECK(!frag_consistent(acc_wide, frag_project(&a, acc_wide, 1, d0), 1, d1));
    CHECK(!frag_consistent(acc_wide, rows_of, 1, d1)); /* 64 rows vs 128 columns */
    CHECK(!frag_consistent(acc, rows_of, 1, d1));      /* same extent, column digits */
    CHECK(!frag_consistent(acc256, rows_of, 1, d0));   /* another thread count */
    CHECK(!frag_consistent(blk, rows_of, 1, d0));
    CHECK(!frag_consistent(acc, frag_project(&a, blk, 1, d0), 1, d0));
    CHECK(!frag_consistent(acc, blk, 2, d01) && !frag_consistent(blk, acc, 2, d01));
    CHECK(!frag_consistent(acc, acc41, 2, d01));
    CHECK(!frag_consistent(acc, rows_of, 2, d01)); /* wrong rank */
    /* The same digits read at other steps. Warps numbered warp_n * 2 + warp_m (the warp
     * steps swapped): another thread owns each row, so neither equal nor consistent. The
     * n8 and m16 tiles in the other register order: not equal, but a row vector still fits
     * (a sub-layout's registers may be ordered differently). */
    Frag swapped = *acc, reordered = *acc;
    int warp_m = -1, warp_n = -1, ni = -1, mi = -1;
    for (int i = 0; i < acc->ndig; i++) {
        const FragDigit *d = &acc->dig[i];
        if (d->thread && d->step >= 32) *(d->dim == 0 ? &warp_m : &warp_n) = i;
        if (!d->thread && d->step >= 4) *(d->dim == 0 ? &mi : &ni) = i;
    }
    CHECK(warp_m >= 0 && warp_n >= 0 && mi >= 0 && ni >= 0);
    if (warp_m >= 0 && warp_n >= 0 && mi >= 0 && ni >= 0) {
        swapped.dig[warp_m].step = 32, swapped.dig[warp_n].step = 64;
        reordered.dig[mi].step = 4, reordered.dig[ni].step = 8; /* 2 m16 x 4 n8 tiles */
        CHECK(frag_valid(&swapped) && frag_valid(&reordered));
        CHECK(!frag_equal(acc, &swapped) && !frag_equal(acc, &reordered));
        CHECK(!frag_consistent(acc, frag_project(&a, &swapped, 1, d0), 1, d0));
        CHECK(!frag_consistent(&swapped, rows_of, 1, d0));
        CHECK(!frag_consistent(acc, &swapped, 2, d01));
        check_project(&a, "reordered rows", &reordered, 1, d0);
        CHECK(frag_consistent(&reordered, rows_of, 1, d0));
        CHECK(frag_consistent(acc, &reordered, 2, d01));
    }
    /* A sub-layout missing one of the loop's digits on its dimension. */
    Frag part = *rows_of;
    part.ndig--;
    CHECK(!frag_consistent(acc, &part, 1, d0));
    arena_free(&a);
}

/* ---- printing --------------------------------------------------------------------------------- */
static void test_print(void) {
    Arena a = {0};
    const char *origins[2];
    const Frag *fs[2] = {frag_mma_acc(&a, 64, 64, 2, 2, 128),
                         frag_blocked(&a, 2, (const int64_t[]){32, 64}, 128, 8)};
    for (int i = 0; i < 2; i++) {
        StrBuf sb = {0};
        origins[i] = fs[i]->origin;
        frag_print(&sb, fs[i]);
        CHECK(sb.buf && sb.buf[0], "print %d empty", i);
        CHECK(sb.buf && origins[i] && strstr(sb.buf, origins[i]), "%s", sb.buf ? sb.buf : "");
        sb_free(&sb);
    }
    CHECK(origins[0] && !strcmp(origins[0], "mma accumulator"));
    CHECK(origins[1] && !strcmp(origins[1], "blocked"));
    arena_free(&a);
}

/* ---- windows ------------------------------------------------------------------------------ */
/* For window w = frag_window(f, ext) at offsets off: every thread holds exactly w->nlocal
 * elements of the window, and each one's register in f is what frag.h's contract says
 * (w's local digits on the element's position inside the window, plus f's digits that
 * straddle or lie above ext, read from off). */
static void check_window(const Frag *f, const Frag *w, const int64_t *ext, const int64_t *off,
                         const char *what) {
    int bad = 0;
    for (int64_t tid = 0; tid < f->nthreads; tid++) {
        int64_t inside = 0;
        for (int64_t l = 0; l < f->nlocal; l++) {
            Idx e = elem(f, tid, l);
            bool in = true;
            for (int d = 0; d < f->ndim; d++) in &= e.i[d] >= off[d] && e.i[d] < off[d] + ext[d];
            if (!in) continue;
            inside++;
            int64_t want = 0;
            for (int k = 0; k < w->ndig; k++) {
                const FragDigit *g = &w->dig[k];
                if (!g->thread)
                    want += (e.i[g->dim] - off[g->dim]) / g->stride % g->extent * g->step;
            }
            for (int k = 0; k < f->ndig; k++) {
                const FragDigit *g = &f->dig[k];
                if (!g->thread && g->stride * g->extent > ext[g->dim])
                    want += off[g->dim] / g->stride % g->extent * g->step;
            }
            bad += want != l;
        }
        bad += inside != w->nlocal;
    }
    CHECK(bad == 0, "%s: %d mismatches", what, bad);
}

static void test_window(void) {
    Arena a = {0};
    const Frag *f = frag_wgmma_acc(&a, 256, 128, 2, 1, 256); /* both warpgroups hold every column */
    int64_t half[2] = {256, 64}, quarter[2] = {256, 32}, rows[2] = {128, 128};
    const Frag *w = frag_window(&a, f, half);
    CHECK(w && w->nlocal == 64 && w->shape[1] == 64, "wgmma accumulator: a column half");
    for (int64_t h = 0; w && h < 2; h++)
        check_window(f, w, half, (int64_t[]){0, 64 * h}, "wgmma accumulator: column half");
    w = frag_window(&a, f, quarter);
    CHECK(w && w->nlocal == 32, "wgmma accumulator: a column quarter");
    for (int64_t h = 0; w && h < 4; h++)
        check_window(f, w, quarter, (int64_t[]){0, 32 * h}, "wgmma accumulator: column quarter");
    CHECK(!frag_window(&a, f, rows), "a row half of two warpgroups is one warpgroup's");
    CHECK(!frag_window(&a, f, (int64_t[]){256, 4}), "4 columns are split over lanes");
    const Frag *m = frag_mma_acc(&a, 64, 64, 4, 1, 128);
    w = frag_window(&a, m, (int64_t[]){64, 16});
    CHECK(w != NULL, "mma accumulator, warps along M: 16-column windows");
    for (int64_t h = 0; w && h < 4; h++)
        check_window(m, w, (int64_t[]){64, 16}, (int64_t[]){0, 16 * h}, "mma accumulator window");
    CHECK(!frag_window(&a, frag_mma_acc(&a, 64, 64, 2, 2, 128), half),
          "mma accumulator with warps along N: a column half is some warps'");
    CHECK(!frag_window(&a, f, (int64_t[]){256, 256}), "a window larger than the fragment");
    arena_free(&a);
}

/* s split (a row-major view of it): every thread's register l holds the element of the
 * same flat position in both; merging back gives s's digits. */
static void check_split(Arena *a, const Frag *s, int dim, int m, const int64_t *ext,
                        const char *what) {
    const Frag *v = frag_split(a, s, dim, m, ext);
    CHECK(v != NULL, "%s: split", what);
    if (!v) return;
    CHECK(v->ndim == s->ndim + m - 1 && v->nlocal == s->nlocal && owner_classes(v, what) > 0,
          "%s: a layout of the view", what);
    for (int64_t tid = 0; tid < s->nthreads; tid++)
        for (int64_t l = 0; l < s->nlocal; l++)
            if (flat_of(s, elem(s, tid, l)) != flat_of(v, elem(v, tid, l))) {
                CHECK(false, "%s: tid %lld register %lld differs", what, (long long)tid,
                      (long long)l);
                return;
            }
    const Frag *back = frag_merge(a, v, dim, m);
    CHECK(back && back->ndim == s->ndim && owner_classes(back, what) > 0, "%s: merged", what);
    for (int64_t tid = 0; back && tid < s->nthreads; tid++)
        for (int64_t l = 0; l < s->nlocal; l++)
            if (flat_of(s, elem(s, tid, l)) != flat_of(back, elem(back, tid, l))) {
                CHECK(false, "%s: merged: tid %lld register %lld differs", what, (long long)tid,
                      (long long)l);
                return;
            }
}

static void test_split(void) {
    Arena a = {0};
    const Frag *w = frag_wgmma_acc(&a, 256, 128, 4, 1, 512); /* fp8_lighting_indexer's s */
    check_split(&a, w, 1, 2, (const int64_t[]){4, 32}, "wgmma 256x128 columns as 4x32");
    check_split(&a, w, 1, 2, (const int64_t[]){32, 4}, "wgmma columns as 32x4 (cut digits)");
    check_split(&a, w, 0, 3, (const int64_t[]){2, 8, 16}, "wgmma rows as 2x8x16");
    const Frag *m = frag_mma_acc(&a, 64, 64, 2, 2, 128);
    check_split(&a, m, 1, 2, (const int64_t[]){2, 32}, "mma accumulator columns as 2x32");
    check_split(&a, m, 0, 2, (const int64_t[]){4, 16}, "mma accumulator rows as 4x16");
    const Frag *b = frag_blocked(&a, 2, (const int64_t[]){6, 96}, 128, 4);
    check_split(&a, b, 1, 2, (const int64_t[]){3, 32}, "blocked 6x96 columns as 3x32");
    CHECK(!frag_split(&a, w, 1, 2, (const int64_t[]){64, 3}), "extents that do not multiply");
    CHECK(!frag_split(&a, w, 1, 4, (const int64_t[]){2, 2, 2, 16}), "more than 4 dimensions");
    const Frag *odd = frag_blocked(&a, 1, (const int64_t[]){96}, 32, 1); /* tid%32 + 32*r */
    CHECK(!frag_split(&a, odd, 0, 2, (const int64_t[]){2, 48}), "a digit that cannot be cut");
    arena_free(&a);
}

int main(void) {
    test_split();
    test_mma_acc();
    test_wgmma_acc();
    test_mma_a();
    test_mma_a_tf32();
    test_blocked();
    test_project();
    test_window();
    test_mismatch();
    test_print();
    if (failures) {
        printf("test_frag: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("test_frag: %d checks passed\n", checks);
    return 0;
}
