/* npy.c - element conversions and numpy .npy files.
 *
 * Format (numpy's NEP 1): magic "\x93NUMPY", major, minor, header length (2 bytes LE
 * in 1.0, 4 bytes LE in 2.0/3.0), then a Python dict literal
 * {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with spaces to a
 * multiple of 64 bytes and ended by '\n', then the raw data in C order.
 * numpy has no bfloat16 or float8: such arrays are written as float32 (exact widening)
 * and float32 files are narrowed (round to nearest even) when read for such a dtype. */
#include "rt/rt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../runtime/c/tl_c.h"

/* ---- elements --------------------------------------------------------------------- */
double rt_elem_get(DType t, const void *data, size_t i) {
    switch (t) {
    case DT_BOOL: return ((const uint8_t *)data)[i] != 0;
    case DT_INT8: return ((const int8_t *)data)[i];
    case DT_INT16: return ((const int16_t *)data)[i];
    case DT_INT32: return ((const int32_t *)data)[i];
    case DT_INT64: return (double)((const int64_t *)data)[i];
    case DT_UINT8: return ((const uint8_t *)data)[i];
    case DT_UINT16: return ((const uint16_t *)data)[i];
    case DT_UINT32: return ((const uint32_t *)data)[i];
    case DT_UINT64: return (double)((const uint64_t *)data)[i];
    case DT_FLOAT16: return tl_f16_to_f32(((const uint16_t *)data)[i]);
    case DT_BFLOAT16: return tl_bf16_to_f32(((const uint16_t *)data)[i]);
    case DT_FLOAT32: return ((const float *)data)[i];
    case DT_FLOAT64: return ((const double *)data)[i];
    case DT_FLOAT8_E4M3: return tl_e4m3_to_f32(((const uint8_t *)data)[i]);
    case DT_FLOAT8_E5M2: return tl_e5m2_to_f32(((const uint8_t *)data)[i]);
    default: TL_ASSERT(!"rt_elem_get: bad dtype"); return 0;
    }
}

int64_t rt_elem_get_int(DType t, const void *data, size_t i) {
    switch (t) {
    case DT_INT64: return ((const int64_t *)data)[i];
    case DT_UINT64: return (int64_t)((const uint64_t *)data)[i];
    default: return (int64_t)rt_elem_get(t, data, i);
    }
}

/* double -> int64 like a C cast, but defined for out-of-range values and NaN. */
static int64_t to_i64(double v) {
    if (v != v) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)v;
}

void rt_elem_set(DType t, void *data, size_t i, double v) {
    switch (t) {
    case DT_BOOL: ((uint8_t *)data)[i] = v != 0; return;
    case DT_INT8: ((int8_t *)data)[i] = (int8_t)to_i64(v); return;
    case DT_INT16: ((int16_t *)data)[i] = (int16_t)to_i64(v); return;
    case DT_INT32: ((int32_t *)data)[i] = (int32_t)to_i64(v); return;
    case DT_INT64: ((int64_t *)data)[i] = to_i64(v); return;
    case DT_UINT8: ((uint8_t *)data)[i] = (uint8_t)to_i64(v); return;
    case DT_UINT16: ((uint16_t *)data)[i] = (uint16_t)to_i64(v); return;
    case DT_UINT32: ((uint32_t *)data)[i] = (uint32_t)to_i64(v); return;
    case DT_UINT64:
        ((uint64_t *)data)[i] = v >= 9223372036854775808.0 ? (uint64_t)v : (uint64_t)to_i64(v);
        return;
    case DT_FLOAT16: ((uint16_t *)data)[i] = tl_f32_to_f16(tl_f64_to_f32_odd(v)); return;
    case DT_BFLOAT16: ((uint16_t *)data)[i] = tl_f32_to_bf16(tl_f64_to_f32_odd(v)); return;
    case DT_FLOAT32: ((float *)data)[i] = (float)v; return;
    case DT_FLOAT64: ((double *)data)[i] = v; return;
    case DT_FLOAT8_E4M3: ((uint8_t *)data)[i] = tl_f32_to_e4m3(tl_f64_to_f32_odd(v)); return;
    case DT_FLOAT8_E5M2: ((uint8_t *)data)[i] = tl_f32_to_e5m2(tl_f64_to_f32_odd(v)); return;
    default: TL_ASSERT(!"rt_elem_set: bad dtype");
    }
}

/* ---- dtype <-> descr --------------------------------------------------------------- */
static const struct {
    DType t;
    const char *code;
} npy_codes[] = {
    {DT_BOOL, "b1"},   {DT_INT8, "i1"},    {DT_INT16, "i2"},   {DT_INT32, "i4"},
    {DT_INT64, "i8"},  {DT_UINT8, "u1"},   {DT_UINT16, "u2"},  {DT_UINT32, "u4"},
    {DT_UINT64, "u8"}, {DT_FLOAT16, "f2"}, {DT_FLOAT32, "f4"}, {DT_FLOAT64, "f8"},
};

static const char *npy_code(DType t) {
    for (size_t k = 0; k < sizeof npy_codes / sizeof npy_codes[0]; k++)
        if (npy_codes[k].t == t) return npy_codes[k].code;
    return NULL;
}

static int fail(StrBuf *err, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(StrBuf *err, const char *name, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_printf(err, "%s: ", name);
    sb_vprintf(err, fmt, ap);
    va_end(ap);
    return -1;
}

static int descr_parse(const char *name, const char *descr, DType *out, StrBuf *err) {
    char order = descr[0];
    const char *code = descr + 1;
    if (!strchr("<>|=", order) || !order) return fail(err, name, "unknown dtype '%s'", descr);
    for (size_t k = 0; k < sizeof npy_codes / sizeof npy_codes[0]; k++) {
        if (strcmp(code, npy_codes[k].code) != 0) continue;
        if (order == '>' && dtype_bytes(npy_codes[k].t) > 1)
            return fail(err, name,
                        "big-endian data ('%s') is not supported; save it with "
                        "arr.astype('<%s')",
                        descr, code);
        *out = npy_codes[k].t;
        return 0;
    }
    return fail(err, name,
                "dtype '%s' is not supported (supported: bool, int8-64, "
                "uint8-64, float16, float32, float64)",
                descr);
}

/* ---- header dict parser ------------------------------------------------------------ */
typedef struct Hdr {
    const char *p, *end;
    char descr[32];
    int fortran, have_descr, have_order, have_shape;
    int ndim;
    int64_t shape[64];
} Hdr;

static void hdr_ws(Hdr *h) {
    while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n')) h->p++;
}

static int hdr_eat(Hdr *h, char c) {
    hdr_ws(h);
    if (h->p < h->end && *h->p == c) return h->p++, 1;
    return 0;
}

static int hdr_string(Hdr *h, char *out, size_t cap) {
    hdr_ws(h);
    if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) return -1;
    char q = *h->p++;
    size_t n = 0;
    while (h->p < h->end && *h->p != q) {
        if (n + 1 >= cap) return -1;
        out[n++] = *h->p++;
    }
    if (h->p >= h->end) return -1;
    h->p++;
    out[n] = 0;
    return 0;
}

static int hdr_word(Hdr *h, const char *w) {
    size_t n = strlen(w);
    hdr_ws(h);
    if ((size_t)(h->end - h->p) < n || memcmp(h->p, w, n) != 0) return 0;
    h->p += n;
    return 1;
}

static int hdr_shape(Hdr *h) {
    if (!hdr_eat(h, '(')) return -1;
    h->ndim = 0;
    while (!hdr_eat(h, ')')) {
        hdr_ws(h);
        if (h->ndim == 64 || h->p >= h->end || *h->p < '0' || *h->p > '9') return -1;
        int64_t v = 0;
        while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
            int digit = *h->p++ - '0';
            if (v > (INT64_MAX - digit) / 10) return -1;
            v = v * 10 + digit;
        }
        if (h->p < h->end && *h->p == 'L') h->p++; /* Python 2 long */
        h->shape[h->ndim++] = v;
        if (!hdr_eat(h, ',')) {
            if (!hdr_eat(h, ')')) return -1;
            break;
        }
    }
    return 0;
}

static int hdr_entry(Hdr *h) {
    char key[32];
    if (hdr_string(h, key, sizeof key) || !hdr_eat(h, ':')) return -1;
    if (!strcmp(key, "descr")) {
        h->have_descr = 1;
        return hdr_string(h, h->descr, sizeof h->descr);
    }
    if (!strcmp(key, "fortran_order")) {
        h->have_order = 1;
        if (hdr_word(h, "True")) return h->fortran = 1, 0;
        return hdr_word(h, "False") ? 0 : -1;
    }
    if (!strcmp(key, "shape")) return h->have_shape = 1, hdr_shape(h);
    return -1;
}

static int hdr_parse(const char *name, const char *text, size_t len, Hdr *h, StrBuf *err) {
    memset(h, 0, sizeof *h);
    h->p = text;
    h->end = text + len;
    int bad = !hdr_eat(h, '{');
    while (!bad && !hdr_eat(h, '}')) {
        bad = hdr_entry(h) != 0;
        if (!bad && !hdr_eat(h, ',')) {
            bad = !hdr_eat(h, '}');
            break;
        }
    }
    if (bad || !h->have_descr || !h->have_order || !h->have_shape)
        return fail(err, name, "malformed .npy header: %.*s", (int)(len < 200 ? len : 200), text);
    if (h->fortran)
        return fail(err, name,
                    "Fortran-order arrays are not supported; save a C-order "
                    "array (np.ascontiguousarray)");
    return 0;
}

/* ---- reading ------------------------------------------------------------------------ */
/* A byte source: a FILE or a memory image. */
typedef struct Src {
    FILE *f;
    const unsigned char *buf;
    size_t len, pos;
} Src;

static size_t src_read(Src *s, void *dst, size_t n) {
    if (s->f) return fread(dst, 1, n, s->f);
    size_t k = s->len - s->pos < n ? s->len - s->pos : n;
    memcpy(dst, s->buf + s->pos, k);
    s->pos += k;
    return k;
}

/* Bytes left in s, or SIZE_MAX when unknown (a pipe, a device such as /dev/zero). */
static size_t src_left(Src *s) {
    if (!s->f) return s->len - s->pos;
    struct stat st;
    long pos = ftell(s->f);
    if (fstat(fileno(s->f), &st) != 0 || !S_ISREG(st.st_mode) || pos < 0) return SIZE_MAX;
    return (size_t)st.st_size > (size_t)pos ? (size_t)st.st_size - (size_t)pos : 0;
}

/* 64-byte aligned, with room for a 64-byte rounding: the caller keeps nbytes below
 * NPY_MAX_BYTES, so the size cannot wrap. NULL when out of memory. */
enum { NPY_ALIGN = 64 };
#define NPY_MAX_BYTES ((size_t)PTRDIFF_MAX / 2)
static void *alloc_data(size_t nbytes) {
    return aligned_alloc(NPY_ALIGN, (nbytes + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN + NPY_ALIGN);
}

/* Reads nbytes of array data into a new aligned buffer. Memory grows with the bytes that
 * actually arrive (a short pipe with a huge header allocates little); a file known to be
 * too short fails before allocating. */
static int read_data(const char *name, Src *s, size_t nbytes, void **out, StrBuf *err) {
    size_t left = src_left(s), cap = nbytes, got = 0;
    if (left != SIZE_MAX && left < nbytes)
        return fail(err, name, "truncated data: the header says %zu bytes, the file has %zu",
                    nbytes, left);
    if (left == SIZE_MAX && cap > ((size_t)1 << 20)) cap = (size_t)1 << 20;
    unsigned char *data = alloc_data(cap);
    while (data) {
        got += src_read(s, data + got, cap - got);
        if (got < cap || cap == nbytes) break;
        size_t ncap = cap > nbytes / 2 ? nbytes : 2 * cap;
        unsigned char *bigger = alloc_data(ncap);
        if (bigger) memcpy(bigger, data, got);
        free(data);
        data = bigger, cap = ncap;
    }
    if (!data) return fail(err, name, "out of memory reading %zu bytes of data", nbytes);
    if (got < nbytes) {
        free(data);
        return fail(err, name, "truncated data: the header says %zu bytes, the file has %zu",
                    nbytes, got);
    }
    *out = data;
    return 0;
}

static int read_header(const char *name, Src *s, Hdr *h, StrBuf *err) {
    unsigned char pre[12];
    size_t n = src_read(s, pre, 10);
    if (n < 8 || memcmp(pre, "\x93NUMPY", 6) != 0)
        return fail(err, name, "not a .npy file (bad magic)");
    if (n < 10) return fail(err, name, "truncated header");
    size_t hlen;
    if (pre[6] == 1) {
        hlen = pre[8] | (size_t)pre[9] << 8;
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (src_read(s, pre + 10, 2) != 2) return fail(err, name, "truncated header");
        hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    } else {
        return fail(err, name, "unsupported .npy format version %d.%d", pre[6], pre[7]);
    }
    if (hlen > (64u << 20)) return fail(err, name, "malformed .npy header (length %zu)", hlen);
    char *text = malloc(hlen + 1);
    if (!text) return fail(err, name, "out of memory reading the header");
    int rc = src_read(s, text, hlen) == hlen ? hdr_parse(name, text, hlen, h, err)
                                             : fail(err, name, "truncated header");
    free(text);
    return rc;
}

/* Narrows float32 data to bf16/fp8 in place (the buffer is big enough). */
static void narrow_f32(void *data, size_t n, DType to) {
    for (size_t i = 0; i < n; i++) rt_elem_set(to, data, i, ((const float *)data)[i]);
}

static int read_array(const char *name, Src *s, DType want, NpyArray *out, StrBuf *err) {
    memset(out, 0, sizeof *out);
    Hdr h;
    DType t = DT_INVALID;
    if (read_header(name, s, &h, err) || descr_parse(name, h.descr, &t, err)) return -1;
    size_t numel = 1, isz = (size_t)dtype_bytes(t);
    for (int d = 0; d < h.ndim; d++) {
        if (h.shape[d] && numel > NPY_MAX_BYTES / isz / (size_t)h.shape[d])
            return fail(err, name, "array too large (shape dimension %d is %lld)", d,
                        (long long)h.shape[d]);
        numel *= (size_t)h.shape[d];
    }
    void *data = NULL;
    if (read_data(name, s, numel * isz, &data, err)) return -1;
    if (t == DT_FLOAT32 && want != DT_INVALID && want != t && dtype_is_float(want) &&
        !npy_code(want)) {
        narrow_f32(data, numel, want);
        t = want;
    }
    out->dtype = t;
    out->ndim = h.ndim;
    out->numel = numel;
    out->data = data;
    if (h.ndim) {
        out->shape = malloc(sizeof(int64_t) * (size_t)h.ndim);
        if (!out->shape) {
            free(data);
            return fail(err, name, "out of memory");
        }
        memcpy(out->shape, h.shape, sizeof(int64_t) * (size_t)h.ndim);
    }
    return 0;
}

int npy_parse(const char *name, const unsigned char *buf, size_t len, DType want, NpyArray *out,
              StrBuf *err) {
    Src s = {.buf = buf, .len = len};
    return read_array(name, &s, want, out, err);
}

int npy_read(const char *path, DType want, NpyArray *out, StrBuf *err) {
    memset(out, 0, sizeof *out);
    Src s = {.f = fopen(path, "rb")};
    if (!s.f) return fail(err, path, "cannot open: %s", strerror(errno));
    int rc = read_array(path, &s, want, out, err);
    if (rc == 0 && ferror(s.f)) {
        npy_free(out);
        rc = fail(err, path, "read error: %s", strerror(errno));
    }
    fclose(s.f);
    return rc;
}

void npy_free(NpyArray *a) {
    free(a->shape);
    free(a->data);
    memset(a, 0, sizeof *a);
}

/* ---- writing ------------------------------------------------------------------------ */
static void make_header(StrBuf *sb, const char *descr, int ndim, const int64_t *shape) {
    StrBuf dict = {0};
    sb_printf(&dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int d = 0; d < ndim; d++) sb_printf(&dict, "%s%lld", d ? ", " : "", (long long)shape[d]);
    sb_puts(&dict, ndim == 1 ? ",), }" : "), }");
    size_t pre = dict.len + 1 + 10 > 65535 ? 12 : 10; /* version 2.0 for huge headers */
    size_t total = (pre + dict.len + 1 + 63) / 64 * 64;
    while (pre + dict.len + 1 < total) sb_putc(&dict, ' ');
    sb_putc(&dict, '\n');
    size_t h = dict.len;
    sb_puts(sb, "\x93NUMPY");
    sb_putc(sb, pre == 10 ? 1 : 2);
    sb_putc(sb, 0);
    for (size_t k = 0; k < pre - 8; k++) sb_putc(sb, (char)((h >> (8 * k)) & 0xff));
    /* sb_putc of NUL bytes keeps len right; append the dict with its exact length */
    for (size_t k = 0; k < h; k++) sb_putc(sb, dict.buf[k]);
    sb_free(&dict);
}

static int write_all(FILE *f, const StrBuf *hdr, DType t, const void *data, size_t numel) {
    if (fwrite(hdr->buf, 1, hdr->len, f) != hdr->len) return -1;
    if (npy_code(t)) {
        size_t n = numel * (size_t)dtype_bytes(t);
        return n == 0 || fwrite(data, 1, n, f) == n ? 0 : -1;
    }
    float buf[4096]; /* bf16/fp8: widen to float32 in chunks */
    for (size_t i = 0; i < numel;) {
        size_t k = 0;
        for (; k < 4096 && i < numel; k++, i++) buf[k] = (float)rt_elem_get(t, data, i);
        if (fwrite(buf, sizeof(float), k, f) != k) return -1;
    }
    return 0;
}

int npy_write(const char *path, DType dtype, int ndim, const int64_t *shape, const void *data,
              StrBuf *err) {
    const char *code = npy_code(dtype) ? npy_code(dtype) : "f4";
    char descr[8];
    snprintf(descr, sizeof descr, "%c%s", dtype_bytes(dtype) == 1 && npy_code(dtype) ? '|' : '<',
             code);
    size_t numel = 1;
    for (int d = 0; d < ndim; d++) numel *= (size_t)shape[d];
    StrBuf hdr = {0}, tmp = {0};
    make_header(&hdr, descr, ndim, shape);
    sb_printf(&tmp, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp.buf), rc = -1;
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        fail(err, path, "cannot write: %s", strerror(errno));
        if (fd >= 0) close(fd), unlink(tmp.buf);
    } else {
        fchmod(fd, 0644);
        int bad = write_all(f, &hdr, dtype, data, numel);
        int e = errno;
        bad |= fclose(f) != 0;
        if (bad) e = e ? e : errno;
        if (!bad && rename(tmp.buf, path) == 0) rc = 0;
        else fail(err, path, "cannot write: %s", strerror(bad ? e : errno)), unlink(tmp.buf);
    }
    sb_free(&hdr);
    sb_free(&tmp);
    return rc;
}
