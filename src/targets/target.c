/* target.c - the table of targets. A new back end adds one line here. */
#include <string.h>

#include "compiler.h"

static const Target *const all_targets[] = {
    &target_c,
    &target_cuda,
};

const Target *target_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof all_targets / sizeof all_targets[0]; i++)
        if (!strcmp(all_targets[i]->name, name)) return all_targets[i];
    return NULL;
}

char *tl_pass_table(void) {
    StrBuf sb = {0};
    sb_puts(&sb, "");
    for (size_t i = 0; i < sizeof all_targets / sizeof all_targets[0]; i++) {
        const char *names[64];
        int n = pass_names(all_targets[i], names, 64);
        for (int k = 0; k < n; k++) sb_printf(&sb, "%s\t%s\n", all_targets[i]->name, names[k]);
    }
    return sb.buf;
}
