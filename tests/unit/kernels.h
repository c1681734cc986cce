/* kernels.h - the unit tests' TileLang kernels: tests/unit/kernels/NAME.py, read at run
 * time, so that the CLI compiles and runs them as they are (`tilec emit
 * tests/unit/kernels/chain.py --target cuda --ir-after all`). The directory is
 * $TILEC_TEST_KERNELS, else the one the Makefile compiled in (TEST_KERNEL_DIR). A kernel
 * that cannot be read ends the test. The texts stay until exit (freed there); threads
 * may ask at once. */
#ifndef TILEC_TEST_KERNELS_H
#define TILEC_TEST_KERNELS_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TEST_KERNEL_DIR
#define TEST_KERNEL_DIR "tests/unit/kernels"
#endif

enum { TEST_MAX_KERNELS = 128 };
static struct {
    const char *name;
    char *text;
} test_kernels[TEST_MAX_KERNELS];
static int test_nkernels;
static pthread_mutex_t test_kernels_lock = PTHREAD_MUTEX_INITIALIZER;

static void test_kernels_free(void) {
    for (int i = 0; i < test_nkernels; i++) free(test_kernels[i].text);
    test_nkernels = 0;
}

static char *test_kernel_read(const char *name) {
    const char *dir = getenv("TILEC_TEST_KERNELS");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.py", dir && *dir ? dir : TEST_KERNEL_DIR, name);
    FILE *fp = fopen(path, "rb");
    char *text = NULL;
    long n = -1;
    if (fp && fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0 &&
        (text = calloc((size_t)n + 1, 1)) && fread(text, 1, (size_t)n, fp) != (size_t)n)
        free(text), text = NULL;
    if (fp) fclose(fp);
    if (!text) {
        fprintf(stderr, "cannot read the test kernel %s (set TILEC_TEST_KERNELS)\n", path);
        exit(1);
    }
    return text;
}

/* The text of kernels/NAME.py (read once). */
static const char *test_kernel(const char *name) {
    pthread_mutex_lock(&test_kernels_lock);
    const char *text = NULL;
    for (int i = 0; i < test_nkernels && !text; i++)
        if (!strcmp(test_kernels[i].name, name)) text = test_kernels[i].text;
    if (!text && test_nkernels == TEST_MAX_KERNELS) {
        fprintf(stderr, "test_kernel: more than %d kernels\n", TEST_MAX_KERNELS);
        exit(1);
    }
    if (!text) {
        if (!test_nkernels) atexit(test_kernels_free);
        test_kernels[test_nkernels].name = name;
        text = test_kernels[test_nkernels++].text = test_kernel_read(name);
    }
    pthread_mutex_unlock(&test_kernels_lock);
    return text;
}

#endif
