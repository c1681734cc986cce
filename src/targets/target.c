/* target.c - the table of targets, and the names of each target's passes (its pipeline
 * run in listing mode, so the list is the pipeline itself). A new back end adds one line
 * here (and its extern declaration); nothing else outside its folder names it. */
#include <string.h>

#include "passes/passes.h"
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

int pass_names(const Target *t, const char **out, int max) {
    Ctx ctx = {0};
    Func f = {0};
    PassHook h = {.list_only = true, .names = out, .max = max};
    ctx.passes = &h;
    t->lower(&ctx, &f);
    return h.nnames < max ? h.nnames : max;
}

enum { MAX_PASSES = 64 };

bool pass_list_valid(const Target *t, const char *list, StrBuf *why) {
    if (!strcmp(list, "all")) return true;
    const char *names[MAX_PASSES];
    int n = pass_names(t, names, MAX_PASSES);
    for (const char *p = list;;) {
        const char *end = strchr(p, ',');
        int len = end ? (int)(end - p) : (int)strlen(p);
        bool found = false;
        for (int i = 0; i < n && !found; i++)
            found = (int)strlen(names[i]) == len && !strncmp(names[i], p, (size_t)len);
        if (!found) {
            sb_printf(why, "no pass '%.*s' in the %s target's pipeline (its passes: ", len, p,
                      t->name);
            for (int i = 0; i < n; i++) sb_printf(why, "%s%s", i ? ", " : "", names[i]);
            sb_puts(why, "; or all)");
            return false;
        }
        if (!end) return true;
        p = end + 1;
    }
}
