/* compare.c - elementwise comparison of a result against a reference with per-dtype
 * tolerances (tilec run --check: a target against the C target). */
#include "rt/rt.h"

#include <math.h>
#include <string.h>

void rt_tolerance(DType t, double *rtol, double *atol) {
    switch (t) {
    case DT_FLOAT64: *rtol = *atol = 1e-9; return;
    case DT_FLOAT32: *rtol = *atol = 1e-4; return;
    case DT_FLOAT16: *rtol = *atol = 1e-2; return;
    case DT_BFLOAT16: *rtol = *atol = 2e-2; return;
    case DT_FLOAT8_E4M3: *rtol = *atol = 0.125; return;
    case DT_FLOAT8_E5M2: *rtol = *atol = 0.25; return;
    default: *rtol = *atol = 0; return; /* ints and bool: exact */
    }
}

static int same_special(double g, double r) {
    return (isnan(g) && isnan(r)) || (isinf(g) && g == r);
}

size_t rt_compare(DType t, const void *got, const void *ref, size_t n, RtCompare *out) {
    memset(out, 0, sizeof *out);
    double scale = 1;
    rt_tolerance(t, &out->rtol, &out->atol);
    int exact = !dtype_is_float(t);
    for (size_t e = 0; !exact && e < n; e++) {
        double r = fabs(rt_elem_get(t, ref, e));
        if (isfinite(r) && r > scale) scale = r;
    }
    out->atol *= scale;
    for (size_t e = 0; e < n; e++) {
        double g = rt_elem_get(t, got, e), r = rt_elem_get(t, ref, e);
        int ok;
        if (exact) {
            ok = rt_elem_get_int(t, got, e) == rt_elem_get_int(t, ref, e);
        } else if (same_special(g, r)) {
            ok = 1;
            if (isnan(g) && out->nnan++ == 0) out->first_nan = e;
            g = r = 0;
        } else {
            ok = fabs(g - r) <= out->atol + out->rtol * fabs(r); /* false for NaN */
        }
        double d = fabs(g - r);
        if (isnan(d) || isinf(d)) d = INFINITY;
        if (d > out->max_abs_err) out->max_abs_err = d;
        if (!ok && out->nbad++ == 0) out->first_bad = e;
    }
    return out->nbad;
}
