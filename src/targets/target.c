/* target.c - the table of targets. A new back end adds one line here. */
#include <string.h>

#include "targets/target.h"

/* Each target folder defines one (targets/c/target_c.c, targets/cuda/target_cuda.c). */
extern const Target target_c;
extern const Target target_cuda;

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
