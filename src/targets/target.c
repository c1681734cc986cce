/* target.c - the table of targets. A new back end adds one line here (and its extern
 * declaration); nothing else outside its folder names it. */
#include <string.h>

#include "targets/target.h"

/* Each target folder defines one (targets/c/target_c.c, targets/cuda/target_cuda.c). */
extern const Target target_c;
extern const Target target_cuda;

static const Target *const all_targets[] = {
    &target_c,
    &target_cuda,
};

enum { NTARGETS = sizeof all_targets / sizeof all_targets[0] };

const Target *target_at(int i) { return i >= 0 && i < NTARGETS ? all_targets[i] : NULL; }

const Target *target_find(const char *name) {
    if (!name) return NULL;
    for (int i = 0; i < NTARGETS; i++)
        if (!strcmp(all_targets[i]->name, name)) return all_targets[i];
    return NULL;
}

const Target *target_auto(void) {
    const Target *ref = NULL;
    for (int i = 0; i < NTARGETS; i++) {
        if (all_targets[i]->reference) {
            ref = ref ? ref : all_targets[i];
            continue;
        }
        StrBuf why = {0};
        int ok = all_targets[i]->available(&why);
        sb_free(&why);
        if (ok) return all_targets[i];
    }
    return ref;
}
