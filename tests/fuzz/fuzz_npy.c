/* fuzz_npy.c - libFuzzer harness for the .npy reader (src/rt/npy.c), an untrusted input
 * (`tilec run --in P=file.npy`): the input is a file image, parsed as it is and as data
 * for a bfloat16 parameter (the float32 narrowing path). A successful parse must hold
 * exactly numel elements of the header's dtype; any error is fine; a crash or a
 * sanitizer report is a bug. Seeds: tests/fuzz/npy/. */
#include "rt/rt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const DType wants[] = {DT_INVALID, DT_BFLOAT16};
    for (int i = 0; i < 2; i++) {
        NpyArray a;
        StrBuf err = {0};
        if (npy_parse("fuzz.npy", data, size, wants[i], &a, &err) == 0) {
            size_t n = 1;
            for (int d = 0; d < a.ndim; d++) n *= (size_t)a.shape[d];
            if (n != a.numel) abort();
            volatile unsigned char sink = 0; /* touch every byte: ASan checks the size */
            size_t bytes = a.numel * (size_t)dtype_bytes(a.dtype);
            for (size_t k = 0; k < bytes; k++) sink ^= ((unsigned char *)a.data)[k];
            (void)sink;
            npy_free(&a);
        }
        sb_free(&err);
    }
    return 0;
}
