/* fuzz_frontend.c - libFuzzer harness for the front end and the code generators: the
 * input is kernel source text; it is compiled with tl_compile_source for the c target
 * and for the cuda target without building (lexer, parser, elaborator, every pass with
 * the IR verifier on, both emitters; no compiler or GPU runs). Any status is fine; a
 * crash, a sanitizer report, a leak or a hang is a bug. `make fuzz` builds it,
 * tests/fuzz/run.sh runs it (seeds: examples/ and tests/). */
#include "tilec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    setenv("TILEC_VERIFY", "1", 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0; /* the API takes a C string: an embedded NUL ends the text */
    static const char *const targets[] = {"c", "cuda"};
    for (int i = 0; i < 2; i++) {
        tl_options o = tl_options_default();
        o.target = targets[i];
        o.build = TL_BUILD_NONE;
        o.use_cache = 0;
        tl_kernel *k = NULL;
        if (tl_compile_source(text, "fuzz.py", &o, &k) == TL_OK) tl_kernel_destroy(k);
    }
    free(text);
    return 0;
}
