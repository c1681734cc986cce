/* frag.c - register-fragment layouts (frag.h). */
#include "layout/frag.h"

#include <stdlib.h>
#include <string.h>

static Frag *frag_new(Arena *a, int ndim, const int64_t *shape, int nthreads, const char *origin) {
    Frag *f = NEW(a, Frag);
    f->ndim = ndim;
    for (int d = 0; d < ndim; d++) f->shape[d] = shape[d];
    f->nthreads = nthreads;
    f->nlocal = 1;
    f->origin = origin;
    return f;
}

static bool add_digit(Frag *f, int dim, int64_t stride, int64_t extent, bool thread, int64_t step) {
    if (extent == 1) return true;
    if (f->ndig == FRAG_MAX_DIGITS) return false;
    f->dig[f->ndig++] = (FragDigit){dim, stride, extent, thread, step};
    if (!thread) f->nlocal *= extent;
    return true;
}

/* ---- the mma.sync accumulator and A operand ------------------------------------------- */
/* Rows: g = lane / 4, the half h, the m16 tile mi, the warp row. */
static void mma_rows(Frag *f, int64_t mt, int wm, int wn, int64_t mi_step) {
    add_digit(f, 0, 1, 8, true, 4);
    add_digit(f, 0, 8, 2, false, 2);
    add_digit(f, 0, 16, mt, false, mi_step);
    add_digit(f, 0, 16 * mt, wm, true, 32 * (int64_t)wn);
}

Frag *frag_mma_acc(Arena *a, int64_t M, int64_t N, int wm, int wn, int nthreads) {
    if (wm < 1 || wn < 1 || M % (16 * wm) || N % (8 * wn) || nthreads % (32 * wm * wn)) return NULL;
    int64_t shape[2] = {M, N}, mt = M / wm / 16, nt = N / wn / 8;
    Frag *f = frag_new(a, 2, shape, nthreads, "mma accumulator");
    mma_rows(f, mt, wm, wn, 4 * nt);
    add_digit(f, 1, 1, 2, false, 1);       /* c % 2 */
    add_digit(f, 1, 2, 4, true, 1);        /* lane % 4 */
    add_digit(f, 1, 8, nt, false, 4);      /* n8 tile */
    add_digit(f, 1, 8 * nt, wn, true, 32); /* warp column */
    return f;
}

/* The wgmma accumulator over nwg x nwg_n warpgroups (warpgroup w = wm * nwg_n + wn); with
 * split_n false, the M x N tile of each row wm is replicated over its nwg_n warpgroups. */
static Frag *wgmma_frag(Arena *a, int64_t M, int64_t N, int nwg, int nwg_n, bool split_n,
                        int nthreads) {
    int gn = split_n ? nwg_n : 1;
    if (nwg < 1 || nwg_n < 1 || M % (64 * nwg) || N % (8 * gn) || nthreads % (128 * nwg * nwg_n))
        return NULL;
    int64_t shape[2] = {M, N}, mt = M / nwg / 64, nt = N / gn / 8;
    Frag *f = frag_new(a, 2, shape, nthreads, "wgmma accumulator");
    add_digit(f, 0, 1, 8, true, 4);                   /* lane / 4 */
    add_digit(f, 0, 8, 2, false, 2);                  /* c / 2 */
    add_digit(f, 0, 16, 4, true, 32);                 /* warp in the warpgroup */
    add_digit(f, 0, 64, mt, false, 4 * nt);           /* m64 slice */
    add_digit(f, 0, 64 * mt, nwg, true, 128 * nwg_n); /* warpgroup row wm */
    add_digit(f, 1, 1, 2, false, 1);                  /* c % 2 */
    add_digit(f, 1, 2, 4, true, 1);                   /* lane % 4 */
    add_digit(f, 1, 8, nt, false, 4);                 /* n8 chunk */
    add_digit(f, 1, 8 * nt, gn, true, 128);           /* warpgroup column wn */
    return f;
}

Frag *frag_wgmma_acc(Arena *a, int64_t M, int64_t N, int nwg, int nwg_n, int nthreads) {
    return wgmma_frag(a, M, N, nwg, nwg_n, true, nthreads);
}

Frag *frag_wgmma_a(Arena *a, int64_t M, int64_t K, int nwg, int nwg_n, int nthreads) {
    return wgmma_frag(a, M, K, nwg, nwg_n, false, nthreads);
}

Frag *frag_mma_a(Arena *a, int64_t M, int64_t K, int wm, int wn, int nthreads) {
    if (wm < 1 || wn < 1 || M % (16 * wm) || K % 16 || nthreads % (32 * wm * wn)) return NULL;
    int64_t shape[2] = {M, K}, mt = M / wm / 16, kt = K / 8;
    Frag *f = frag_new(a, 2, shape, nthreads, "mma A operand");
    mma_rows(f, mt, wm, wn, 4 * kt);
    add_digit(f, 1, 1, 2, false, 1);
    add_digit(f, 1, 2, 4, true, 1);
    add_digit(f, 1, 8, kt, false, 4);
    return f;
}

Frag *frag_mma_a_tf32(Arena *a, int64_t M, int64_t K, int wm, int wn, int nthreads) {
    if (wm < 1 || wn < 1 || M % (16 * wm) || K % 8 || nthreads % (32 * wm * wn)) return NULL;
    int64_t shape[2] = {M, K}, mt = M / wm / 16, kt = K / 8;
    Frag *f = frag_new(a, 2, shape, nthreads, "mma tf32 A operand");
    add_digit(f, 0, 1, 8, true, 4);                       /* g = lane / 4 */
    add_digit(f, 0, 8, 2, false, 1);                      /* a1, a3: row g + 8 */
    add_digit(f, 0, 16, mt, false, 4 * kt);               /* m16 tile */
    add_digit(f, 0, 16 * mt, wm, true, 32 * (int64_t)wn); /* warp row */
    add_digit(f, 1, 1, 4, true, 1);                       /* t = lane % 4 */
    add_digit(f, 1, 4, 2, false, 2);                      /* a2, a3: column t + 4 */
    add_digit(f, 1, 8, kt, false, 4);                     /* k8 step */
    return f;
}

/* ---- blocked ----------------------------------------------------------------------------- */
/* Places a digit of `extent` over the row-major flattening of the shape, starting at the
 * current position (dimension *dim, radix so far *used): split at dimension boundaries.
 * The pieces read (value / step) % extent with consecutive steps. False if it does not
 * split evenly. */
static bool place(Frag *f, int *dim, int64_t *used, int64_t extent, bool thread, int64_t step) {
    while (extent > 1) {
        if (*dim < 0) return false;
        int64_t rest = f->shape[*dim] / *used;
        if (rest == 1) {
            (*dim)--, *used = 1;
            continue;
        }
        int64_t g = rest < extent ? rest : extent;
        if (rest % g || extent % g) return false;
        if (!add_digit(f, *dim, *used, g, thread, step)) return false;
        *used *= g, extent /= g, step *= g;
    }
    return true;
}

static Frag *try_blocked(Arena *a, int ndim, const int64_t *shape, int nthreads, int used_threads,
                         int64_t vec, int64_t total) {
    Frag *f = frag_new(a, ndim, shape, nthreads, "blocked");
    int dim = ndim - 1;
    int64_t used = 1;
    int64_t rest = total / vec / used_threads;
    if (!place(f, &dim, &used, vec, false, 1) || !place(f, &dim, &used, used_threads, true, 1) ||
        !place(f, &dim, &used, rest, false, vec))
        return NULL;
    return f;
}

Frag *frag_blocked(Arena *a, int ndim, const int64_t *shape, int nthreads, int vec) {
    int64_t total = 1;
    if (ndim < 1 || ndim > FRAG_MAX_DIMS || nthreads < 1) return NULL;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] <= 0 || __builtin_mul_overflow(total, shape[d], &total)) return NULL;
    }
    for (int t = nthreads; t >= 1; t--) { /* threads first: a narrower vector costs less */
        if (nthreads % t) continue;
        for (int64_t v = vec > 0 ? vec : 1; v >= 1; v /= 2) {
            if (total % v || (total / v) % t) continue;
            Frag *f = try_blocked(a, ndim, shape, nthreads, t, v, total);
            if (f) return f;
        }
    }
    return NULL;
}

/* ---- projection and comparison ------------------------------------------------------------ */
Frag *frag_project(Arena *a, const Frag *f, int n, const int *dims) {
    int64_t shape[FRAG_MAX_DIMS];
    for (int k = 0; k < n; k++) shape[k] = dims[k] < 0 ? 1 : f->shape[dims[k]];
    Frag *p = frag_new(a, n, shape, f->nthreads, f->origin);
    int64_t step = 1, last = 0;
    for (;;) { /* f's kept local digits in the order of their steps, renumbered densely */
        int next = -1;
        for (int i = 0; i < f->ndig; i++) {
            const FragDigit *d = &f->dig[i];
            bool kept = false;
            for (int k = 0; k < n; k++) kept |= dims[k] == d->dim;
            if (kept && !d->thread && d->step > last && (next < 0 || d->step < f->dig[next].step))
                next = i;
        }
        if (next < 0) break;
        const FragDigit *d = &f->dig[next];
        int k = 0;
        while (dims[k] != d->dim) k++;
        add_digit(p, k, d->stride, d->extent, false, step);
        step *= d->extent, last = d->step;
    }
    for (int i = 0; i < f->ndig; i++) {
        const FragDigit *d = &f->dig[i];
        for (int k = 0; k < n; k++)
            if (d->thread && dims[k] == d->dim)
                add_digit(p, k, d->stride, d->extent, true, d->step);
    }
    return p;
}

/* Digit d (of the split dimension) into p's dimensions dim + t: cut where it straddles a
 * boundary inner[t] (the product of the extents inside dimension t). */
static bool split_digit(Frag *p, FragDigit d, int dim, int m, const int64_t *inner) {
    for (int t = 0; t < m; t++) {
        int64_t b = inner[t], top = t ? inner[t - 1] : INT64_MAX;
        if (d.stride >= b && d.stride < top) { /* starts in dimension t */
            if (d.stride % b) return false;
            if (d.stride * d.extent <= (t ? top : d.stride * d.extent))
                return add_digit(p, dim + t, d.stride / b, d.extent, d.thread, d.step);
            int64_t lo = top / d.stride; /* values below the next boundary */
            if (top % d.stride || d.extent % lo) return false;
            FragDigit hi = {d.dim, top, d.extent / lo, d.thread, d.step * lo};
            return add_digit(p, dim + t, d.stride / b, lo, d.thread, d.step) &&
                   split_digit(p, hi, dim, m, inner);
        }
    }
    return false;
}

Frag *frag_split(Arena *a, const Frag *f, int dim, int m, const int64_t *ext) {
    int64_t shape[FRAG_MAX_DIMS], inner[FRAG_MAX_DIMS], prod = 1;
    int n = f->ndim + m - 1;
    if (n > FRAG_MAX_DIMS || m < 1) return NULL;
    for (int t = m - 1; t >= 0; t--) inner[t] = prod, prod *= ext[t];
    if (prod != f->shape[dim]) return NULL;
    for (int k = 0; k < n; k++)
        shape[k] = k < dim ? f->shape[k] : k < dim + m ? ext[k - dim] : f->shape[k - m + 1];
    Frag *p = frag_new(a, n, shape, f->nthreads, f->origin);
    for (int i = 0; i < f->ndig; i++) {
        FragDigit d = f->dig[i];
        bool ok = d.dim == dim ? split_digit(p, d, dim, m, inner)
                               : add_digit(p, d.dim < dim ? d.dim : d.dim + m - 1, d.stride,
                                           d.extent, d.thread, d.step);
        if (!ok) return NULL;
    }
    return p;
}

Frag *frag_merge(Arena *a, const Frag *f, int dim, int m) {
    int64_t shape[FRAG_MAX_DIMS], inner[FRAG_MAX_DIMS], prod = 1;
    int n = f->ndim - m + 1;
    for (int t = m - 1; t >= 0; t--) inner[t] = prod, prod *= f->shape[dim + t];
    for (int k = 0; k < n; k++)
        shape[k] = k < dim ? f->shape[k] : k == dim ? prod : f->shape[k + m - 1];
    Frag *p = frag_new(a, n, shape, f->nthreads, f->origin);
    for (int i = 0; i < f->ndig; i++) {
        FragDigit d = f->dig[i];
        if (d.dim >= dim && d.dim < dim + m) d.stride *= inner[d.dim - dim], d.dim = dim;
        else if (d.dim >= dim + m) d.dim -= m - 1;
        if (!add_digit(p, d.dim, d.stride, d.extent, d.thread, d.step)) return NULL;
    }
    return p;
}

Frag *frag_window(Arena *a, const Frag *f, const int64_t *ext) {
    Frag *w = frag_new(a, f->ndim, ext, f->nthreads, f->origin);
    int64_t covered[FRAG_MAX_DIMS];
    for (int d = 0; d < f->ndim; d++) {
        if (ext[d] < 1 || ext[d] > f->shape[d]) return NULL;
        covered[d] = 1;
    }
    for (int i = 0; i < f->ndig; i++) {
        FragDigit d = f->dig[i];
        int64_t e = ext[d.dim];
        if (d.stride * d.extent > e) { /* its values from e on are fixed by the offset */
            if (d.thread) return NULL;
            if (d.stride >= e) continue;
            if (e % d.stride || d.extent % (e / d.stride)) return NULL;
            d.extent = e / d.stride; /* the low part of a digit that straddles e */
        }
        if (!add_digit(w, d.dim, d.stride, d.extent, d.thread, d.step)) return NULL;
        covered[d.dim] *= d.extent;
    }
    for (int d = 0; d < f->ndim; d++)
        if (covered[d] != ext[d]) return NULL;
    return w;
}

static bool digit_same(const FragDigit *x, const FragDigit *y, bool steps) {
    return x->dim == y->dim && x->stride == y->stride && x->extent == y->extent &&
           x->thread == y->thread && (!steps || x->step == y->step);
}

int64_t frag_digit_warp_lanes(const FragDigit *d) {
    bool pow2 = !(d->extent & (d->extent - 1)) && !(d->step & (d->step - 1));
    int64_t lanes = 1;
    while (pow2 && lanes < d->extent && d->step * lanes < 32) lanes *= 2;
    return lanes;
}

int frag_reduce_uniform(const Frag *f, int dim, int i, FragDigit *u) {
    int n = 0;
    for (int k = 0; k <= i; k++) {
        const FragDigit *d = &f->dig[k];
        if (!d->thread || d->dim != dim) continue;
        u[n] = *d;
        if (k == i) u[n].extent = frag_digit_warp_lanes(d);
        if (u[n].extent > 1) n++;
    }
    for (int a = 1; a < n; a++) /* highest step first */
        for (int b = a; b > 0 && u[b].step > u[b - 1].step; b--) {
            FragDigit t = u[b];
            u[b] = u[b - 1], u[b - 1] = t;
        }
    for (int a = 1; a < n; a++)
        if (u[a].step * u[a].extent > u[a - 1].step) return 0; /* overlapping digits */
    return n;
}

int64_t frag_collapse(int64_t tid, const FragDigit *u, int n) {
    for (int k = 0; k < n; k++) tid = tid % u[k].step + tid / (u[k].step * u[k].extent) * u[k].step;
    return tid;
}

bool frag_equal(const Frag *f, const Frag *g) {
    if (f->ndim != g->ndim || f->ndig != g->ndig || f->nthreads != g->nthreads) return false;
    for (int d = 0; d < f->ndim; d++)
        if (f->shape[d] != g->shape[d]) return false;
    for (int i = 0; i < f->ndig; i++) {
        bool found = false;
        for (int j = 0; j < g->ndig && !found; j++)
            found = digit_same(&f->dig[i], &g->dig[j], true);
        if (!found) return false;
    }
    return true;
}

/* The digit of loop that sub's digit d (on sub's dimension d->dim) corresponds to, or -1. */
static int loop_digit(const Frag *loop, const FragDigit *d, const int *dims) {
    for (int j = 0; j < loop->ndig; j++) {
        const FragDigit *e = &loop->dig[j];
        if (e->dim == dims[d->dim] && e->stride == d->stride && e->extent == d->extent &&
            e->thread == d->thread && (!d->thread || e->step == d->step))
            return j;
    }
    return -1;
}

bool frag_consistent(const Frag *loop, const Frag *sub, int n, const int *dims) {
    if (sub->ndim != n || sub->nthreads != loop->nthreads) return false;
    for (int k = 0; k < n; k++)
        if (sub->shape[k] != (dims[k] < 0 ? 1 : loop->shape[dims[k]])) return false;
    int count = 0; /* loop's digits on the projected dimensions, all matched once */
    for (int j = 0; j < loop->ndig; j++)
        for (int k = 0; k < n; k++) count += dims[k] >= 0 && loop->dig[j].dim == dims[k];
    if (count != sub->ndig) return false;
    for (int i = 0; i < sub->ndig; i++)
        if (loop_digit(loop, &sub->dig[i], dims) < 0) return false;
    return true;
}

void frag_local_map(const Frag *loop, const Frag *sub, int n, const int *dims, int *out) {
    (void)n;
    for (int i = 0; i < sub->ndig; i++)
        out[i] = sub->dig[i].thread ? -1 : loop_digit(loop, &sub->dig[i], dims);
}

bool frag_replicated(const Frag *f) {
    int64_t covered = 1;
    for (int i = 0; i < f->ndig; i++)
        if (f->dig[i].thread) covered *= f->dig[i].extent;
    return covered < f->nthreads;
}

/* ---- checking and printing ----------------------------------------------------------------- */
static int64_t digit_value(const FragDigit *d, int64_t tid, int64_t l) {
    return ((d->thread ? tid : l) / d->step) % d->extent;
}

bool frag_valid(const Frag *f) {
    int64_t total = 1;
    for (int d = 0; d < f->ndim; d++) total *= f->shape[d];
    if (total > (1 << 22)) return false;
    unsigned char *seen = calloc((size_t)total, 1);
    bool ok = seen != NULL;
    int64_t count = 0;
    for (int64_t tid = 0; ok && tid < f->nthreads; tid++) {
        int64_t back = 0; /* tid rebuilt from its digits: equal for the primary replica */
        for (int i = 0; i < f->ndig; i++)
            if (f->dig[i].thread) back += digit_value(&f->dig[i], tid, 0) * f->dig[i].step;
        if (back != tid) continue;
        for (int64_t l = 0; ok && l < f->nlocal; l++) {
            int64_t idx[FRAG_MAX_DIMS] = {0}, flat = 0;
            for (int i = 0; i < f->ndig; i++)
                idx[f->dig[i].dim] += digit_value(&f->dig[i], tid, l) * f->dig[i].stride;
            for (int d = 0; d < f->ndim && ok; d++) {
                ok = idx[d] < f->shape[d];
                flat = flat * f->shape[d] + idx[d];
            }
            ok = ok && !seen[flat]++;
            count++;
        }
    }
    ok = ok && count == total;
    free(seen);
    return ok;
}

/* One digit of the index: stride*(src/step%extent), src the thread index (tid) or the
 * register index (r); "/1" and "1*" left out. */
static void print_digit(StrBuf *sb, const FragDigit *d) {
    bool scaled = d->stride != 1;
    if (scaled) sb_printf(sb, "%lld*(", (long long)d->stride);
    sb_puts(sb, d->thread ? "tid" : "r");
    if (d->step != 1) sb_printf(sb, "/%lld", (long long)d->step);
    sb_printf(sb, "%%%lld", (long long)d->extent);
    if (scaled) sb_putc(sb, ')');
}

void frag_print(StrBuf *sb, const Frag *f) {
    sb_printf(sb, "%s, %d threads x %lld regs:", f->origin ? f->origin : "layout", f->nthreads,
              (long long)f->nlocal);
    for (int dim = 0; dim < f->ndim; dim++) {
        sb_printf(sb, "%s i%d =", dim ? "," : "", dim);
        int n = 0;
        for (int64_t last = 0;;) { /* the dimension's digits by increasing stride */
            const FragDigit *next = NULL;
            for (int k = 0; k < f->ndig; k++) {
                const FragDigit *d = &f->dig[k];
                if (d->dim == dim && d->extent > 1 && d->stride > last &&
                    (!next || d->stride < next->stride))
                    next = d;
            }
            if (!next) break;
            sb_puts(sb, n++ ? " + " : " ");
            print_digit(sb, next);
            last = next->stride;
        }
        if (!n) sb_puts(sb, " 0");
    }
}
