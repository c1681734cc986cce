/* test_npy.c - .npy reading/writing and element conversions (src/rt/npy.c).
 * References: byte images exactly as numpy 2.x np.save writes them, and hand-computed
 * round-to-nearest-even results. */
#include "rt/rt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static char tmpdir[64];

static const char *tmp_path(const char *name) {
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

static void write_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    fwrite(p, 1, n, f);
    fclose(f);
}

static unsigned char *read_bytes(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *p = malloc(1 << 20);
    *n = fread(p, 1, 1 << 20, f);
    fclose(f);
    return p;
}

/* numpy: np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)) -> 128-byte header. */
static size_t numpy_f32_2x3(unsigned char *out) {
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    memcpy(out, "\x93NUMPY\x01\x00\x76\x00", 10);
    size_t n = 10 + strlen(dict);
    memcpy(out + 10, dict, strlen(dict));
    while (n < 127) out[n++] = ' ';
    out[n++] = '\n';
    for (int i = 0; i < 6; i++) {
        float v = (float)i;
        memcpy(out + n, &v, 4);
        n += 4;
    }
    return n;
}

static void test_numpy_bytes(void) {
    unsigned char ref[256];
    size_t n = numpy_f32_2x3(ref), got_n = 0;
    float data[6] = {0, 1, 2, 3, 4, 5};
    int64_t shape[2] = {2, 3};
    StrBuf err = {0};
    CHECK(npy_write(tmp_path("a.npy"), DT_FLOAT32, 2, shape, data, &err) == 0);
    unsigned char *got = read_bytes(tmp_path("a.npy"), &got_n);
    CHECK(got && got_n == n && memcmp(got, ref, n) == 0); /* byte-identical to numpy */
    free(got);
    NpyArray a;
    CHECK(npy_parse("ref.npy", ref, n, DT_INVALID, &a, &err) == 0);
    CHECK(a.dtype == DT_FLOAT32 && a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 3);
    CHECK(a.numel == 6 && ((float *)a.data)[5] == 5.0f);
    npy_free(&a);
    sb_free(&err);
}

/* Every dtype: write, read back, same bytes (bf16/fp8 via float32). */
static void test_round_trip(void) {
    static const DType all[] = {DT_BOOL,    DT_INT8,        DT_INT16,      DT_INT32,
                                DT_INT64,   DT_UINT8,       DT_UINT16,     DT_UINT32,
                                DT_UINT64,  DT_FLOAT16,     DT_BFLOAT16,   DT_FLOAT32,
                                DT_FLOAT64, DT_FLOAT8_E4M3, DT_FLOAT8_E5M2};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        DType t = all[k];
        int64_t shape[3] = {2, 3, 5};
        unsigned char data[30 * 8];
        for (int i = 0; i < 30; i++) rt_elem_set(t, data, (size_t)i, (i - 12) * 0.25);
        StrBuf err = {0};
        CHECK(npy_write(tmp_path("rt.npy"), t, 3, shape, data, &err) == 0);
        NpyArray a;
        CHECK(npy_read(tmp_path("rt.npy"), t, &a, &err) == 0);
        CHECK(a.dtype == t && a.ndim == 3 && a.numel == 30 && a.shape[2] == 5);
        CHECK(a.data && memcmp(a.data, data, 30 * (size_t)dtype_bytes(t)) == 0);
        npy_free(&a);
        /* without a wanted dtype, bf16/fp8 come back as the float32 they were saved as */
        CHECK(npy_read(tmp_path("rt.npy"), DT_INVALID, &a, &err) == 0);
        DType stored = (t == DT_BFLOAT16 || t == DT_FLOAT8_E4M3 || t == DT_FLOAT8_E5M2) ? DT_FLOAT32
                                                                                        : t;
        CHECK(a.dtype == stored);
        CHECK(rt_elem_get(a.dtype, a.data, 7) == rt_elem_get(t, data, 7));
        npy_free(&a);
        if (err.len) fprintf(stderr, "%s\n", err.buf);
        sb_free(&err);
    }
    /* 0-d and empty arrays */
    double x = 2.5;
    int64_t zero[2] = {0, 4};
    StrBuf err = {0};
    NpyArray a;
    CHECK(npy_write(tmp_path("s.npy"), DT_FLOAT64, 0, NULL, &x, &err) == 0);
    CHECK(npy_read(tmp_path("s.npy"), DT_INVALID, &a, &err) == 0);
    CHECK(a.ndim == 0 && a.numel == 1 && ((double *)a.data)[0] == 2.5);
    npy_free(&a);
    CHECK(npy_write(tmp_path("e.npy"), DT_INT32, 2, zero, NULL, &err) == 0);
    CHECK(npy_read(tmp_path("e.npy"), DT_INVALID, &a, &err) == 0);
    CHECK(a.ndim == 2 && a.numel == 0 && a.shape[1] == 4);
    npy_free(&a);
    sb_free(&err);
}

/* Builds a .npy image with the given version and dict (padded like numpy). */
static size_t make_npy(unsigned char *out, int major, const char *dict, const void *data,
                       size_t nbytes) {
    size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = (pre + dl + 1 + 63) / 64 * 64, hl = total - pre;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    for (size_t k = 0; k < pre - 8; k++) out[8 + k] = (unsigned char)(hl >> (8 * k));
    memcpy(out + pre, dict, dl);
    memset(out + pre + dl, ' ', hl - dl - 1);
    out[total - 1] = '\n';
    memcpy(out + total, data, nbytes);
    return total + nbytes;
}

static void test_versions(void) {
    int16_t v[4] = {1, -2, 3, -4};
    unsigned char buf[512];
    for (int major = 1; major <= 3; major++) {
        size_t n = make_npy(buf, major, "{'descr':'<i2','fortran_order':False,'shape':(4,)}", v, 8);
        NpyArray a;
        StrBuf err = {0};
        CHECK(npy_parse("v.npy", buf, n, DT_INVALID, &a, &err) == 0);
        CHECK(a.dtype == DT_INT16 && a.ndim == 1 && a.shape[0] == 4);
        CHECK(a.data && ((int16_t *)a.data)[3] == -4);
        npy_free(&a);
        write_bytes(tmp_path("v.npy"), buf, n); /* the same through a file */
        CHECK(npy_read(tmp_path("v.npy"), DT_INT16, &a, &err) == 0);
        CHECK(a.dtype == DT_INT16 && a.numel == 4 && ((int16_t *)a.data)[1] == -2);
        npy_free(&a);
        sb_free(&err);
    }
    /* Python 2 style longs and double quotes */
    size_t n = make_npy(buf, 1,
                        "{\"descr\": \"|u1\", \"fortran_order\": False, "
                        "\"shape\": (2L, 2L), }",
                        "\1\2\3\4", 4);
    NpyArray a;
    StrBuf err = {0};
    CHECK(npy_parse("p2.npy", buf, n, DT_INVALID, &a, &err) == 0);
    CHECK(a.dtype == DT_UINT8 && a.numel == 4 && ((uint8_t *)a.data)[3] == 4);
    npy_free(&a);
    sb_free(&err);
}

static void expect_error(const char *what, const unsigned char *buf, size_t n, const char *needle) {
    NpyArray a;
    StrBuf err = {0};
    int rc = npy_parse("x.npy", buf, n, DT_INVALID, &a, &err);
    CHECK(rc != 0);
    CHECK(err.buf && strstr(err.buf, "x.npy: ") == err.buf);
    CHECK(err.buf && strstr(err.buf, needle));
    if (rc == 0 || !err.buf || !strstr(err.buf, needle))
        fprintf(stderr, "  case %s: got '%s'\n", what, err.buf ? err.buf : "(none)");
    if (rc == 0) npy_free(&a);
    sb_free(&err);
}

static void test_errors(void) {
    unsigned char buf[512];
    float v[4] = {0};
    expect_error("magic", (const unsigned char *)"PK\3\4 hello world", 16, "bad magic");
    expect_error("empty", buf, 0, "bad magic");
    size_t n = make_npy(buf, 1, "{'descr':'<f4','fortran_order':False,'shape':(4,)}", v, 16);
    expect_error("trunc data", buf, n - 1, "truncated data");
    expect_error("trunc header", buf, 40, "truncated header");
    n = make_npy(buf, 1, "{'descr':'<f4','fortran_order':True,'shape':(2,2)}", v, 16);
    expect_error("fortran", buf, n, "Fortran-order");
    n = make_npy(buf, 1, "{'descr':'>f4','fortran_order':False,'shape':(4,)}", v, 16);
    expect_error("big-endian", buf, n, "big-endian");
    n = make_npy(buf, 1, "{'descr':'<c8','fortran_order':False,'shape':(2,)}", v, 16);
    expect_error("complex", buf, n, "'<c8' is not supported");
    n = make_npy(buf, 1, "{'descr':'<f4','fortran_order':False}", v, 16);
    expect_error("no shape", buf, n, "malformed .npy header");
    n = make_npy(buf, 1, "{'descr':'<f4','fortran_order':False,'shape':(4,}", v, 16);
    expect_error("bad tuple", buf, n, "malformed .npy header");
    n = make_npy(buf, 1, "{'descr':[('a','<f4')],'fortran_order':False,'shape':(4,)}", v, 16);
    expect_error("structured", buf, n, "malformed .npy header");
    n = make_npy(buf, 1, "{'descr':'<f4','fortran_order':False,'shape':(4,)}", v, 16);
    buf[6] = 4;
    expect_error("version", buf, n, "unsupported .npy format version 4.0");
    /* file-level errors name the path */
    NpyArray a;
    StrBuf err = {0};
    CHECK(npy_read(tmp_path("missing.npy"), DT_INVALID, &a, &err) != 0);
    CHECK(err.buf && strstr(err.buf, "missing.npy: cannot open: No such file"));
    sb_free(&err);
    CHECK(npy_write("/nonexistent-dir/x.npy", DT_FLOAT32, 1, (int64_t[]){1}, v, &err) != 0);
    CHECK(err.buf && strstr(err.buf, "/nonexistent-dir/x.npy: cannot write"));
    sb_free(&err);
}

/* Hostile headers (issue 29): shapes whose byte size lies near the largest allocation
 * (once wrapped the 64-byte rounding: 64 bytes allocated, the data written past them),
 * huge shapes with a short file or pipe, a device that never ends. */
static void test_hostile(void) {
    unsigned char buf[512];
    float v[4] = {1, 2, 3, 4};
    static const char *const huge[] = {
        "{'descr':'<f4','fortran_order':False,'shape':(3, 1537228672809129301)}",
        "{'descr':'|i1','fortran_order':False,'shape':(3, 1537228672809129301)}",
        "{'descr':'|b1','fortran_order':False,'shape':(3, 1537228672809129301)}",
        "{'descr':'|b1','fortran_order':False,'shape':(9223372036854775807,)}",
        "{'descr':'|u1','fortran_order':False,'shape':(4611686018427387903,)}",
        "{'descr':'<f8','fortran_order':False,'shape':(1073741824, 1073741824)}",
    };
    for (size_t k = 0; k < sizeof huge / sizeof huge[0]; k++) {
        size_t n = make_npy(buf, 1, huge[k], v, 16);
        NpyArray a;
        StrBuf err = {0};
        int rc = npy_parse("x.npy", buf, n, DT_INVALID, &a, &err);
        CHECK(rc != 0 && err.buf &&
                  (strstr(err.buf, "array too large") || strstr(err.buf, "truncated data")),
              " case %zu: %s", k, err.buf ? err.buf : "(accepted)");
        if (rc == 0) npy_free(&a);
        /* the same through a file: "truncated data" (or too large), nothing allocated */
        write_bytes(tmp_path("h.npy"), buf, n);
        err.len = 0;
        rc = npy_read(tmp_path("h.npy"), DT_INVALID, &a, &err);
        CHECK(rc != 0 && err.buf &&
                  (strstr(err.buf, "array too large") ||
                   strstr(err.buf, "truncated data: the header says")),
              " file case %zu: %s", k, err.buf ? err.buf : "(accepted)");
        if (rc == 0) npy_free(&a);
        sb_free(&err);
    }
    /* a pipe with a header declaring 2^40 bytes and 16 bytes of data: truncated, and the
     * reader allocates for the bytes that came, not for the header's claim */
    size_t n = make_npy(buf, 1, "{'descr':'<f4','fortran_order':False,'shape':(274877906944,)}", v,
                        16);
    int fds[2];
    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], buf, n) == (ssize_t)n);
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    NpyArray a;
    StrBuf err = {0};
    CHECK(npy_read(path, DT_INVALID, &a, &err) != 0);
    CHECK(err.buf && strstr(err.buf, "truncated data: the header says 1099511627776 bytes, "
                                     "the file has 16"),
          " %s", err.buf);
    close(fds[0]);
    sb_free(&err);
    /* a device: not a .npy file (the magic is read, nothing more) */
    CHECK(npy_read("/dev/zero", DT_INVALID, &a, &err) != 0);
    CHECK(err.buf && strstr(err.buf, "bad magic"));
    sb_free(&err);
    unlink(tmp_path("h.npy"));
}

/* float32 files read into bf16 / fp8 parameters round to nearest even. */
static void test_narrowing(void) {
    float v[6] = {1.00390625f, 1.01171875f, -3.0f, 1000.0f, 0.0f, -0.0f};
    int64_t shape[1] = {6};
    StrBuf err = {0};
    CHECK(npy_write(tmp_path("f.npy"), DT_FLOAT32, 1, shape, v, &err) == 0);
    NpyArray a;
    CHECK(npy_read(tmp_path("f.npy"), DT_BFLOAT16, &a, &err) == 0);
    CHECK(a.dtype == DT_BFLOAT16);
    const uint16_t *b = a.data;
    CHECK(b[0] == 0x3f80); /* tie 1 + 2^-8 -> 1.0 (even) */
    CHECK(b[1] == 0x3f82); /* tie 1 + 3*2^-8 -> 1 + 2^-6 (even) */
    CHECK(b[2] == 0xc040 && b[4] == 0 && b[5] == 0x8000);
    npy_free(&a);
    CHECK(npy_read(tmp_path("f.npy"), DT_FLOAT8_E4M3, &a, &err) == 0);
    const uint8_t *e = a.data;
    CHECK(a.dtype == DT_FLOAT8_E4M3 && e[0] == 0x38 && e[2] == 0xc4); /* 1.0, -3.0 */
    CHECK(e[3] == 0x7e);                                              /* 1000 saturates to 448 */
    npy_free(&a);
    /* a float64 file is not silently narrowed: the caller sees float64 */
    double d[1] = {1.0};
    CHECK(npy_write(tmp_path("d.npy"), DT_FLOAT64, 1, (int64_t[]){1}, d, &err) == 0);
    CHECK(npy_read(tmp_path("d.npy"), DT_BFLOAT16, &a, &err) == 0 && a.dtype == DT_FLOAT64);
    npy_free(&a);
    sb_free(&err);
}

static void test_elements(void) {
    unsigned char buf[16];
    rt_elem_set(DT_INT8, buf, 0, 300.0); /* wraps like a C cast of 300 */
    CHECK(((int8_t *)buf)[0] == 44);
    rt_elem_set(DT_INT32, buf, 0, -7.9);
    CHECK(((int32_t *)buf)[0] == -7);
    rt_elem_set(DT_UINT64, buf, 0, 1e19);
    CHECK(((uint64_t *)buf)[0] == 10000000000000000000ull);
    rt_elem_set(DT_FLOAT16, buf, 0, 0.1);
    CHECK(((uint16_t *)buf)[0] == 0x2e66);
    CHECK(fabs(rt_elem_get(DT_FLOAT16, buf, 0) - 0.0999755859375) < 1e-12);
    rt_elem_set(DT_BOOL, buf, 0, -2.0);
    CHECK(buf[0] == 1);
    int64_t big = INT64_MAX - 1;
    memcpy(buf, &big, 8);
    CHECK(rt_elem_get_int(DT_INT64, buf, 0) == INT64_MAX - 1);
}

/* rt_compare: the tolerances of tilec run --check. */
static void test_compare(void) {
    float ref[4] = {1.0f, -2.0f, 100.0f, 0.0f}, got[4];
    RtCompare c;
    memcpy(got, ref, sizeof got);
    CHECK(rt_compare(DT_FLOAT32, got, ref, 4, &c) == 0 && c.max_abs_err == 0);
    got[1] = -2.0f + 1e-3f; /* atol scales with max|ref| = 100: 1e-4 * 100 + 2e-4 */
    CHECK(rt_compare(DT_FLOAT32, got, ref, 4, &c) == 0);
    got[3] = 0.05f; /* far outside */
    CHECK(rt_compare(DT_FLOAT32, got, ref, 4, &c) == 1 && c.first_bad == 3);
    CHECK(fabs(c.max_abs_err - 0.05) < 1e-7 && fabs(c.atol - 1e-2) < 1e-12);
    got[3] = NAN;
    CHECK(rt_compare(DT_FLOAT32, got, ref, 4, &c) == 1 && isinf(c.max_abs_err));
    ref[3] = NAN; /* NaN matches NaN */
    CHECK(rt_compare(DT_FLOAT32, got, ref, 4, &c) == 0);
    int32_t ia[3] = {1, 2, 3}, ib[3] = {1, 2, 4};
    CHECK(rt_compare(DT_INT32, ia, ib, 3, &c) == 1 && c.first_bad == 2);
    int64_t la[1] = {INT64_MAX}, lb[1] = {INT64_MAX - 1}; /* exact beyond double */
    CHECK(rt_compare(DT_INT64, la, lb, 1, &c) == 1);
    uint16_t h[2], hr[2];
    rt_elem_set(DT_FLOAT16, hr, 0, 1.0);
    rt_elem_set(DT_FLOAT16, hr, 1, 1.0);
    rt_elem_set(DT_FLOAT16, h, 0, 1.0 + 1.0 / 1024); /* one ulp: within 1e-2 */
    rt_elem_set(DT_FLOAT16, h, 1, 1.03125);          /* 3%: outside */
    CHECK(rt_compare(DT_FLOAT16, h, hr, 2, &c) == 1 && c.first_bad == 1);
}

int main(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_npy-XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    test_numpy_bytes();
    test_round_trip();
    test_versions();
    test_errors();
    test_hostile();
    test_narrowing();
    test_elements();
    test_compare();
    const char *names[] = {"a.npy", "rt.npy", "s.npy", "e.npy", "f.npy", "d.npy", "v.npy"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(tmp_path(names[i]));
    rmdir(tmpdir);
    if (failures) {
        printf("test_npy: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("test_npy: %d checks passed\n", checks);
    return 0;
}
