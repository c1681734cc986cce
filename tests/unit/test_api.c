/* test_api.c - the public C API: compile, parameter info, argument checks, tl_kernel_call,
 * the disk cache, errors, IR dumps after passes, and two threads compiling at once.
 * Results are checked against sums computed here; messages against the parameter and
 * field they must name. */
#include "tilec.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#define CHECK_CONTEXT() fprintf(stderr, "  last error: %s\n", tl_last_error())
#include "check.h"
#include "kernels.h"

#define CHECK_ERR(expr, status, ...)                                                               \
    do {                                                                                           \
        CHECK((expr) == (status));                                                                 \
        const char *needles_[] = {__VA_ARGS__};                                                    \
        for (size_t n_ = 0; n_ < sizeof needles_ / sizeof needles_[0]; n_++)                       \
            CHECK(strstr(tl_last_error(), needles_[n_]) != NULL);                                  \
    } while (0)

static char cache_dir[64];

static tl_options opts(void) {
    tl_options o = tl_options_default();
    o.target = "c";
    o.cache_dir = cache_dir;
    return o;
}

/* A CPU float32 tensor (rows x cols) filled with v(i) = seed + i * 0.5. */
typedef struct T2 {
    DLTensor t;
    int64_t shape[2], strides[2];
    float *data;
} T2;

static void t2_init(T2 *x, int64_t rows, int64_t cols, float seed) {
    memset(x, 0, sizeof *x);
    x->shape[0] = rows;
    x->shape[1] = cols;
    x->data = calloc((size_t)(rows * cols + 1), sizeof(float));
    for (int64_t i = 0; i < rows * cols; i++) x->data[i] = seed + (float)i * 0.5f;
    x->t.data = x->data;
    x->t.device.device_type = kDLCPU;
    x->t.ndim = 2;
    x->t.dtype.code = kDLFloat;
    x->t.dtype.bits = 32;
    x->t.dtype.lanes = 1;
    x->t.shape = x->shape;
}

static void t2_free(T2 *x) { free(x->data); }

static int count_entries(const char *dir, const char *suffix) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strlen(e->d_name) > 33 && e->d_name[32] == '.' && strstr(e->d_name, suffix)) n++;
    closedir(d);
    return n;
}

/* Path of the one cache entry in dir (static buffer), or NULL. */
static const char *cache_entry(const char *dir) {
    static char path[512];
    DIR *d = opendir(dir);
    const char *found = NULL;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strlen(e->d_name) > 33 && e->d_name[32] == '.') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            found = path;
        }
    if (d) closedir(d);
    return found;
}

static void test_basics(void) {
    CHECK(!strcmp(tl_version(), TILEC_VERSION));
    tl_options o = tl_options_default();
    CHECK(o.use_cache == 1 && o.build == 1 && o.target == NULL && o.defines == NULL);
    const char *info = tl_info();
    CHECK(strstr(info, "tilec " TILEC_VERSION) && strstr(info, "cache dir:"));
    CHECK(strstr(info, "  c "));
    tl_kernel *k = (tl_kernel *)1;
    CHECK_ERR(tl_compile_file("/nonexistent/kernel.py", NULL, &k), TL_ERROR_IO,
              "/nonexistent/kernel.py", "No such file");
    CHECK(k == NULL);
    o = opts();
    o.target = "tpu";
    CHECK_ERR(tl_compile_source(test_kernel("add"), "add.py", &o, &k), TL_ERROR_ARGUMENT,
              "unknown target 'tpu'", "auto, c");
    CHECK_ERR(tl_compile_source("def f(:\n SYNTAX_ERROR\n", "bad.py", NULL, &k), TL_ERROR_PROGRAM,
              "bad.py:", "error");
}

static void test_param_info(tl_kernel *k) {
    CHECK(tl_kernel_num_params(k) == 3);
    CHECK(!strcmp(tl_kernel_target(k), "c"));
    CHECK(tl_kernel_ir(k) && *tl_kernel_ir(k));
    CHECK(tl_kernel_source(k) && *tl_kernel_source(k));
    tl_param_info p;
    CHECK(tl_kernel_param(k, 1, &p) == TL_OK);
    CHECK(!strcmp(p.name, "B") && p.ndim == 2 && p.shape[0] == 256 && p.shape[1] == 128);
    CHECK(p.dtype.code == kDLFloat && p.dtype.bits == 32 && p.dtype.lanes == 1);
    CHECK(!p.is_output && !p.is_scalar && p.shape_names[0] == NULL);
    CHECK(tl_kernel_param(k, 2, &p) == TL_OK && p.is_output && !strcmp(p.name, "C"));
    CHECK_ERR(tl_kernel_param(k, 3, &p), TL_ERROR_ARGUMENT, "index 3");
}

static void test_call(tl_kernel *k) {
    T2 a, b;
    t2_init(&a, 256, 128, 1.0f);
    t2_init(&b, 256, 128, -3.0f);
    DLTensor *in[2] = {&a.t, &b.t}, *out[1] = {NULL};
    CHECK(tl_kernel_call(k, in, 2, out, 1, NULL) == TL_OK);
    CHECK(out[0] && out[0]->ndim == 2 && out[0]->shape[0] == 256 && out[0]->shape[1] == 128);
    CHECK(out[0] && out[0]->device.device_type == kDLCPU && out[0]->dtype.bits == 32);
    int bad = 0;
    for (int i = 0; out[0] && i < 256 * 128; i++)
        bad += ((float *)out[0]->data)[i] != a.data[i] + b.data[i];
    CHECK(out[0] && bad == 0);
    tl_tensor_free(out[0]);
    CHECK_ERR(tl_kernel_call(k, in, 1, out, 1, NULL), TL_ERROR_ARGUMENT, "2 inputs (A, B)");
    CHECK_ERR(tl_kernel_call(k, in, 2, out, 0, NULL), TL_ERROR_ARGUMENT, "1 outputs (C)");
    b.t.dtype.bits = 64;
    CHECK_ERR(tl_kernel_call(k, in, 2, out, 1, NULL), TL_ERROR_ARGUMENT, "argument 'B'",
              "dtype is float64 but the kernel expects float32");
    CHECK(out[0] == NULL);
    t2_free(&a);
    t2_free(&b);
}

/* Each kind of wrong argument: the status, and a message naming the parameter and field. */
static void test_launch_checks(tl_kernel *k) {
    T2 a, b, c;
    t2_init(&a, 256, 128, 0.0f);
    t2_init(&b, 256, 128, 1.0f);
    t2_init(&c, 256, 128, 0.0f);
    DLTensor *args[3] = {&a.t, &b.t, &c.t};
    CHECK(tl_kernel_launch(k, args, 3, NULL) == TL_OK);
    CHECK(c.data[5] == a.data[5] + b.data[5]);
    CHECK_ERR(tl_kernel_launch(k, args, 2, NULL), TL_ERROR_ARGUMENT,
              "takes 3 arguments (A, B, C) but 2 were given");
    b.t.dtype.bits = 16;
    CHECK_ERR(tl_kernel_launch(k, args, 3, NULL), TL_ERROR_ARGUMENT, "argument 'B' (param 1)",
              "dtype is float16 but the kernel expects float32");
    b.t.dtype.bits = 32;
    b.t.ndim = 1;
    CHECK_ERR(tl_kernel_launch(k, args, 3, NULL), TL_ERROR_ARGUMENT, "argument 'B' (param 1)",
              "ndim is 1 but the kernel expects 2");
    b.t.ndim = 2;
    b.shape[1] = 100;
    CHECK_ERR(tl_kernel_launch(k, args, 3, NULL), TL_ERROR_ARGUMENT, "argument 'B'",
              "shape[1] is 100 but the kernel expects 128");
    b.shape[1] = 128;
    a.strides[0] = 1;
    a.strides[1] = 256;
    a.t.strides = a.strides;
    CHECK_ERR(tl_kernel_launch(k, args, 3, NULL), TL_ERROR_ARGUMENT, "argument 'A' (param 0)",
              "strides[0] is 1", "T.StridedTensor");
    a.strides[0] = 128; /* explicit compact strides are fine */
    a.strides[1] = 1;
    CHECK(tl_kernel_launch(k, args, 3, NULL) == TL_OK);
    c.t.device.device_type = kDLCUDA;
    CHECK_ERR(tl_kernel_launch(k, args, 3, NULL), TL_ERROR_ARGUMENT, "argument 'C' (param 2)",
              "device is cuda:0 but the 'c' target runs on the CPU");
    c.t.device.device_type = kDLCUDAHost; /* pinned host memory is fine */
    CHECK(tl_kernel_launch(k, args, 3, NULL) == TL_OK);
    a.t.data = NULL;
    CHECK_ERR(tl_kernel_launch(k, args, 3, NULL), TL_ERROR_ARGUMENT, "argument 'A'",
              "data is NULL");
    a.t.data = a.data;
    a.t.byte_offset = 2;
    CHECK_ERR(tl_kernel_launch(k, args, 3, NULL), TL_ERROR_ARGUMENT, "argument 'A'", "not aligned");
    a.t.byte_offset = 4 * 128; /* one row in: still aligned, reads rows 1.. */
    a.shape[0] = 256;
    args[0] = NULL;
    CHECK_ERR(tl_kernel_launch(k, args, 3, NULL), TL_ERROR_ARGUMENT, "argument 'A'", "NULL");
    t2_free(&a);
    t2_free(&b);
    t2_free(&c);
}

static void test_symbolic(void) {
    tl_options o = opts();
    tl_kernel *k = NULL;
    CHECK(tl_compile_source(test_kernel("add_dyn"), "add_dyn.py", &o, &k) == TL_OK);
    if (!k) return;
    tl_param_info p;
    CHECK(tl_kernel_param(k, 0, &p) == TL_OK && p.shape[0] == -1 && p.shape[1] == 128);
    CHECK(p.shape_names[0] && !strcmp(p.shape_names[0], "M") && p.shape_names[1] == NULL);
    T2 a, b, c;
    t2_init(&a, 100, 128, 0.0f);
    t2_init(&b, 100, 128, 2.0f);
    t2_init(&c, 100, 128, 0.0f);
    DLTensor *args[3] = {&a.t, &b.t, &c.t};
    CHECK(tl_kernel_launch(k, args, 3, NULL) == TL_OK);
    int bad = 0;
    for (int i = 0; i < 100 * 128; i++) bad += c.data[i] != a.data[i] + b.data[i];
    CHECK(bad == 0);
    b.shape[0] = 99;
    CHECK_ERR(tl_kernel_launch(k, args, 3, NULL), TL_ERROR_ARGUMENT, "argument 'B' (param 1)",
              "shape[0] is 99 but M was bound to 100 by argument 'A'");
    /* size-1 dims may have any stride */
    T2 x, y, z;
    t2_init(&x, 1, 128, 0.0f);
    t2_init(&y, 1, 128, 1.0f);
    t2_init(&z, 1, 128, 0.0f);
    x.strides[0] = 999;
    x.strides[1] = 1;
    x.t.strides = x.strides;
    DLTensor *args1[3] = {&x.t, &y.t, &z.t};
    CHECK(tl_kernel_launch(k, args1, 3, NULL) == TL_OK);
    CHECK(z.data[127] == x.data[127] + y.data[127]);
    /* no out_idx: every parameter is an input, nothing to allocate */
    DLTensor *none[1];
    CHECK(tl_kernel_call(k, args, 3, none, 0, NULL) == TL_ERROR_ARGUMENT); /* B is 99 rows */
    b.shape[0] = 100;
    CHECK(tl_kernel_call(k, args, 3, none, 0, NULL) == TL_OK);
    /* the work: no gemm; each of the 2 x 2 blocks reads A and B and writes C, 64 x 64
       floats each (every element access counted) */
    double flops = -1, bytes = -1;
    CHECK(tl_kernel_work(k, args, 3, &flops, &bytes) == TL_OK && flops == 0 &&
          bytes == 4.0 * 3 * 64 * 64 * 4);
    CHECK_ERR(tl_kernel_work(k, NULL, 0, &flops, &bytes), TL_ERROR_ARGUMENT,
              "the kernel has symbolic sizes (M...)", "pass its arguments");
    t2_free(&a), t2_free(&b), t2_free(&c), t2_free(&x), t2_free(&y), t2_free(&z);
    tl_kernel_destroy(k);
}

/* Symbolic strides bind from the DLTensor; scalars are 0-d tensors of their dtype. */
static void test_strided_scalar(void) {
    tl_options o = opts();
    tl_kernel *k = NULL;
    CHECK(tl_compile_source(test_kernel("strided"), "strided.py", &o, &k) == TL_OK);
    if (!k) return;
    tl_param_info p;
    CHECK(tl_kernel_param(k, 1, &p) == TL_OK && p.is_scalar && p.ndim == 0);
    CHECK(!strcmp(p.name, "alpha") && p.dtype.code == kDLFloat && p.dtype.bits == 32);
    T2 a; /* a 40 x 64 view into 40 x 100 storage */
    t2_init(&a, 40, 100, 1.0f);
    a.shape[1] = 64;
    a.strides[0] = 100;
    a.strides[1] = 1;
    a.t.strides = a.strides;
    float alpha = 2.5f;
    DLTensor s = {.data = &alpha, .device = {kDLCPU, 0}, .ndim = 0, .dtype = {kDLFloat, 32, 1}};
    DLTensor *in[2] = {&a.t, &s}, *out[1] = {NULL};
    CHECK(tl_kernel_call(k, in, 2, out, 1, NULL) == TL_OK);
    int bad = 0;
    for (int i = 0; out[0] && i < 40; i++)
        for (int j = 0; j < 64; j++)
            bad += ((float *)out[0]->data)[i * 64 + j] != a.data[i * 100 + j] * 2.5f;
    CHECK(out[0] && out[0]->shape[0] == 40 && out[0]->shape[1] == 64 && bad == 0);
    tl_tensor_free(out[0]);
    a.strides[1] = 2;
    CHECK_ERR(tl_kernel_call(k, in, 2, out, 1, NULL), TL_ERROR_ARGUMENT, "argument 'A'",
              "strides[1] is 2 but the kernel expects 1");
    a.strides[1] = 1;
    s.dtype.bits = 64;
    CHECK_ERR(tl_kernel_call(k, in, 2, out, 1, NULL), TL_ERROR_ARGUMENT,
              "argument 'alpha' (param 1)", "dtype is float64 but the kernel expects float32");
    s.dtype.bits = 32;
    s.ndim = 1;
    s.shape = a.shape;
    CHECK_ERR(tl_kernel_call(k, in, 2, out, 1, NULL), TL_ERROR_ARGUMENT, "argument 'alpha'",
              "ndim is 1 but the kernel expects a scalar");
    t2_free(&a);
    tl_kernel_destroy(k);
}

static void test_cache(void) {
    tl_options o = opts();
    o.use_cache = 0;
    tl_kernel *k = NULL;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/nocache", cache_dir);
    o.cache_dir = dir;
    CHECK(tl_compile_source(test_kernel("add"), "add.py", &o, &k) == TL_OK);
    tl_kernel_destroy(k);
    CHECK(count_entries(dir, ".c") == 0); /* use_cache = 0 writes nothing there */

    o = opts();
    snprintf(dir, sizeof dir, "%s/c1/deeper", cache_dir); /* created with mkdir -p */
    o.cache_dir = dir;
    CHECK(!strcmp(tl_cache_dir(&o), dir));
    CHECK(tl_compile_source(test_kernel("add"), "add.py", &o, &k) == TL_OK);
    tl_kernel_destroy(k);
    const char *entry = cache_entry(dir);
    CHECK(entry && strstr(entry, ".c.so"));
    if (!entry) return;
    char path[512];
    snprintf(path, sizeof path, "%s", entry);
    struct utimbuf old = {1000000000, 1000000000};
    CHECK(utime(path, &old) == 0);
    CHECK(tl_compile_source(test_kernel("add"), "add.py", &o, &k) == TL_OK);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_mtime == 1000000000); /* a hit: not rebuilt */
    CHECK(count_entries(dir, ".c") == 1);
    T2 a, b;
    t2_init(&a, 256, 128, 1.0f);
    t2_init(&b, 256, 128, 1.0f);
    DLTensor *in[2] = {&a.t, &b.t}, *out[1];
    CHECK(tl_kernel_call(k, in, 2, out, 1, NULL) == TL_OK);
    CHECK(((float *)out[0]->data)[7] == a.data[7] * 2);
    tl_tensor_free(out[0]);
    tl_kernel_destroy(k);

    /* a corrupt entry is replaced */
    FILE *f = fopen(path, "wb");
    fputs("garbage", f);
    fclose(f);
    CHECK(tl_compile_source(test_kernel("add"), "add.py", &o, &k) == TL_OK);
    CHECK(stat(path, &st) == 0 && st.st_size > 100);
    CHECK(tl_kernel_call(k, in, 2, out, 1, NULL) == TL_OK);
    tl_tensor_free(out[0]);
    tl_kernel_destroy(k);
    t2_free(&a);
    t2_free(&b);

    /* clear removes our entries only */
    char other[512];
    snprintf(other, sizeof other, "%s/notes.txt", dir);
    f = fopen(other, "w");
    fputs("keep me", f);
    fclose(f);
    CHECK(tl_cache_clear(&o) == TL_OK);
    CHECK(access(path, F_OK) != 0 && access(other, F_OK) == 0);
    unlink(other);
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/c1", cache_dir);
    rmdir(dir);

    /* a cache dir that cannot be created: a clear error naming it */
    snprintf(dir, sizeof dir, "%s/afile", cache_dir);
    f = fopen(dir, "w");
    fclose(f);
    snprintf(other, sizeof other, "%s/afile/sub", cache_dir);
    o.cache_dir = other;
    CHECK_ERR(tl_compile_source(test_kernel("add"), "add.py", &o, &k), TL_ERROR_IO, other);
    unlink(dir);
}

static void test_build0(void) {
    tl_options o = opts();
    o.build = 0;
    tl_kernel *k = NULL;
    CHECK(tl_compile_source(test_kernel("add"), "add.py", &o, &k) == TL_OK);
    if (!k) return;
    CHECK(tl_kernel_source(k) && *tl_kernel_source(k));
    DLTensor *args[3] = {0};
    CHECK_ERR(tl_kernel_launch(k, args, 3, NULL), TL_ERROR_ARGUMENT, "build = 0");
    tl_kernel_destroy(k);
}

/* Two threads compile (different sizes, so different cache entries) and run at once. */
static void *thread_main(void *arg) {
    int rows = *(int *)arg;
    char value[16];
    snprintf(value, sizeof value, "%d", rows);
    tl_define def = {"M", value};
    tl_options o = opts();
    o.defines = &def;
    o.ndefines = 1;
    long ok = 1;
    for (int rep = 0; rep < 3 && ok; rep++) {
        tl_kernel *k = NULL;
        ok = tl_compile_source(test_kernel("add"), "add.py", &o, &k) == TL_OK;
        if (!ok) break;
        T2 a, b;
        t2_init(&a, rows, 128, (float)rows);
        t2_init(&b, rows, 128, 1.0f);
        DLTensor *in[2] = {&a.t, &b.t}, *out[1] = {NULL};
        ok = tl_kernel_call(k, in, 2, out, 1, NULL) == TL_OK;
        for (int i = 0; ok && i < rows * 128; i++)
            ok = ((float *)out[0]->data)[i] == a.data[i] + b.data[i];
        tl_tensor_free(out[0]);
        t2_free(&a);
        t2_free(&b);
        tl_kernel_destroy(k);
    }
    if (!ok) fprintf(stderr, "thread %d: %s\n", rows, tl_last_error());
    return (void *)ok;
}

static void test_threads(void) {
    int rows[2] = {64, 192};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, thread_main, &rows[i]);
    for (int i = 0; i < 2; i++) {
        void *ok;
        pthread_join(th[i], &ok);
        CHECK(ok == (void *)1);
    }
}

/* options.print_after / print_after_path: the dumps appended to the file, one per pass
 * named; a bad pass name or an unwritable path fails before compiling. */
static void test_print_after(void) {
    char file[512];
    snprintf(file, sizeof file, "%s/dump.ir", cache_dir);
    tl_options o = opts();
    o.build = TL_BUILD_NONE;
    o.target = "c";
    o.print_after = "simplify,mark_nonneg";
    o.print_after_path = file;
    tl_kernel *k = NULL;
    for (int i = 0; i < 2; i++) { /* appended: two compiles, four dumps */
        CHECK(tl_compile_source(test_kernel("add"), "add.py", &o, &k) == TL_OK);
        tl_kernel_destroy(k);
    }
    FILE *f = fopen(file, "r");
    char text[1 << 15] = "";
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f) fclose(f);
    int dumps = 0;
    for (const char *p = text; (p = strstr(p, "# IR after ")); p++) dumps++;
    const char *head = "# IR after simplify (c)\nfunc add(";
    CHECK(dumps == 4 && !strncmp(text, head, strlen(head)), "%d: %.80s", dumps, text);
    remove(file);
    o.print_after = "simplify,bogus";
    CHECK_ERR(tl_compile_source(test_kernel("add"), "add.py", &o, &k), TL_ERROR_ARGUMENT,
              "print_after: no pass 'bogus' in the c target's pipeline", "mark_nonneg");
    o.print_after = "all";
    o.print_after_path = "/nonexistent/dir/dump.ir";
    CHECK_ERR(tl_compile_source(test_kernel("add"), "add.py", &o, &k), TL_ERROR_IO,
              "cannot write /nonexistent/dir/dump.ir");
}

int main(void) {
    snprintf(cache_dir, sizeof cache_dir, "/tmp/test_api-XXXXXX");
    if (!mkdtemp(cache_dir)) return 1;
    test_basics();
    tl_options o = opts();
    tl_kernel *k = NULL;
    CHECK(tl_compile_source(test_kernel("add"), "add.py", &o, &k) == TL_OK);
    if (k) {
        test_param_info(k);
        test_call(k);
        test_launch_checks(k);
        tl_kernel_destroy(k);
    }
    test_symbolic();
    test_strided_scalar();
    test_cache();
    test_build0();
    test_print_after();
    test_threads();
    tl_cache_clear(&o);
    rmdir(cache_dir);
    if (failures) {
        printf("test_api: %d of %d checks FAILED\n", failures, checks);
        return 1;
    }
    printf("test_api: %d checks passed\n", checks);
    return 0;
}
