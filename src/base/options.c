/* options.c - the one place that turns the caller's options and the environment into a
 * compilation's settings (Options, options.h).
 *
 * Order, later over earlier: the defaults; the TILEC_* variables of the table below
 * (read once per compilation, here and nowhere else); tl_options.settings;
 * tl_options.arch; then, applied by the front end, the pass_configs of the kernel's
 * decorator and of tl_options (pass_configs.c), which only ever turn features off.
 * The architecture is resolved here too, once: the one given, else the target's current
 * device (Target.arch, passed in by api.c, so that src/base names no target), whose SM
 * count is sm_count's default. A boolean
 * variable is on when set to anything but "" and "0".
 *
 * Process-level variables stay where they are used, since they choose tools and places,
 * not what is generated (the toolchain id in the cache key names the tools): CC and PATH
 * (target_c.c), CUDA_HOME, CUDA_PATH, TILEC_NVRTC, CUDA_VISIBLE_DEVICES (driver.c,
 * target_cuda.c), TILEC_CACHE_DIR, TILEC_NO_CACHE, XDG_CACHE_HOME, HOME, TMPDIR
 * (cache.c), and the OpenMP ones target_c.c looks at. */
#include "base/base.h"
#include "tilec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { SMS_DEFAULT = 132 }; /* the H100 SXM's and the H200's, the most of the sm_90 parts */

typedef enum { K_BOOL, K_INT, K_TEXT } Kind; /* K_INT: sm_count, the only one */

typedef struct Setting {
    const char *key, *env; /* env NULL: no variable */
    Kind kind;
    size_t offset, size; /* of the field in Options; size for K_TEXT */
    bool in_key;         /* can change the generated code or its build (options_key) */
    const char *doc;
} Setting;

#define FIELD(f) offsetof(Options, f), sizeof(((Options *)0)->f)
static const Setting settings[] = {
    {"arch", "TILEC_CUDA_ARCH", K_TEXT, FIELD(arch), true,
     "CUDA architecture (sm_80, sm_90a, ...); default: the current GPU's"},
    {"sm_count", "TILEC_SM_COUNT", K_INT, FIELD(sm_count), true,
     "SMs of the GPU the kernel runs on (split-K, get_num_sms()); default: the current "
     "GPU's, else 132"},
    {"no_ws", "TILEC_NO_WS", K_BOOL, FIELD(no_ws), true,
     "no TMA producer warp group on sm_90a (cp.async pipelines)"},
    {"no_wgmma", "TILEC_NO_WGMMA", K_BOOL, FIELD(no_wgmma), true,
     "sm_90a compiled like sm_80: mma.sync, cp.async"},
    {"no_stmatrix", "TILEC_NO_STMATRIX", K_BOOL, FIELD(no_stmatrix), true,
     "no stmatrix for fragment -> shared stores"},
    {"no_tma_store", "TILEC_NO_TMA_STORE", K_BOOL, FIELD(no_tma_store), true,
     "no TMA stores of epilogue tiles"},
    {"no_persistent", "TILEC_NO_PERSISTENT", K_BOOL, FIELD(no_persistent), true,
     "one block per tile instead of a persistent grid (so no split-K, no clusters)"},
    {"no_splitk", "TILEC_NO_SPLITK", K_BOOL, FIELD(no_splitk), true,
     "whole tiles: no split-K over idle SMs"},
    {"cluster", "TILEC_CLUSTER", K_BOOL, FIELD(cluster), true,
     "opt-in: 2-block clusters sharing multicast TMA loads"},
    {"pingpong", "TILEC_PINGPONG", K_BOOL, FIELD(pingpong), true,
     "opt-in: two consumer warp groups take turns at the wgmmas"},
    {"no_auto_sync", NULL, K_BOOL, FIELD(no_auto_sync), true,
     "no automatic barriers (pass config tl.disable_thread_storage_sync)"},
    {"fast_math", NULL, K_BOOL, FIELD(fast_math), true,
     "CUDA built with --use_fast_math (pass config tl.enable_fast_math)"},
    {"no_assume_aligned", "TILEC_NO_ASSUME_ALIGNED", K_BOOL, FIELD(no_assume_aligned), true,
     "CUDA: only the general variant of a kernel with symbolic row lengths (no 16-byte "
     "vectors or TMA over them)"},
    {"verify", "TILEC_VERIFY", K_BOOL, FIELD(verify), false,
     "check the IR after every pass (always on in debug builds)"},
    {"cuda_sync", "TILEC_CUDA_SYNC", K_BOOL, FIELD(cuda_sync), false,
     "synchronize after every CUDA launch, so a fault names its kernel"},
    {"fault", "TILEC_FAULT", K_TEXT, FIELD(fault), false,
     "test hook: internal, oom (at compile), launch (docs/testing.md)"},
    {"print_after", "TILEC_PRINT_AFTER", K_TEXT, FIELD(print_after), false,
     "dump the IR after these passes: all, or PASS,PASS (docs/cli.md, --ir-after)"},
};
#undef FIELD
enum { NSETTINGS = sizeof settings / sizeof *settings };

int options_arch_number(const Options *o) {
    int n = 0;
    return sscanf(o->arch, "sm_%d", &n) == 1 ? n : 0;
}

bool options_wgmma(const Options *o) { return options_arch_number(o) == 90 && !o->no_wgmma; }

int options_sm_count(const Options *o) { return o->sm_count > 0 ? o->sm_count : SMS_DEFAULT; }

static const Setting *setting_find(const char *key) {
    for (int i = 0; i < NSETTINGS; i++)
        if (!strcmp(settings[i].key, key)) return &settings[i];
    return NULL;
}

static int parse_bool(const char *v, bool *out) {
    static const char *const on[] = {"1", "true", "on", "yes"}, *const off[] = {"0", "false", "off",
                                                                                "no"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(v, on[i])) return *out = true, 0;
        if (!strcasecmp(v, off[i])) return *out = false, 0;
    }
    return -1;
}

/* Stores value into s's field; `from` names where it came from, for the message. */
static int setting_store(Options *o, const Setting *s, const char *value, const char *from,
                         StrBuf *err) {
    char *field = (char *)o + s->offset;
    if (s->kind == K_BOOL && !parse_bool(value, (bool *)field)) return 0;
    if (s->kind == K_INT) {
        char *end;
        errno = 0;
        long n = strtol(value, &end, 10);
        if (*value && !*end && !errno && n >= 0 && n <= 1 << 20) return *(int *)field = (int)n, 0;
    }
    if (s->kind == K_TEXT && strlen(value) < s->size) {
        memcpy(field, value, strlen(value) + 1);
        return 0;
    }
    sb_printf(err, "%s='%s': expected %s", from, value,
              s->kind == K_BOOL  ? "0 or 1 (or true/false)"
              : s->kind == K_INT ? "a non-negative integer"
                                 : "a shorter value");
    return -1;
}

int options_set(Options *o, const char *key, const char *value, StrBuf *err) {
    const Setting *s = key ? setting_find(key) : NULL;
    if (!s) {
        sb_printf(err, "unknown setting '%s' (settings:", key ? key : "(null)");
        for (int i = 0; i < NSETTINGS; i++) sb_printf(err, " %s", settings[i].key);
        sb_puts(err, ")");
        return -1;
    }
    if (!value) value = "";
    char from[80];
    snprintf(from, sizeof from, "setting %s", key);
    return setting_store(o, s, value, from, err);
}

/* The TILEC_* variables: a boolean is on unless empty or "0"; the others as given. */
static int from_environment(Options *o, StrBuf *err) {
    for (int i = 0; i < NSETTINGS; i++) {
        const Setting *s = &settings[i];
        const char *v = s->env ? getenv(s->env) : NULL;
        if (!v || !*v) continue;
        if (s->kind == K_BOOL) *(bool *)((char *)o + s->offset) = strcmp(v, "0") != 0;
        else if (setting_store(o, s, v, s->env, err)) return -1;
    }
    return 0;
}

/* The architecture: the one given (checked by the target), else the target's device's. */
static int resolve_arch(Options *o, OptionsArchFn arch, const char *from, StrBuf *err) {
    char given[sizeof o->arch];
    snprintf(given, sizeof given, "%s", o->arch);
    o->arch[0] = 0;
    if (!arch) return 0; /* the target has no architectures: nothing to choose */
    StrBuf why = {0};
    int sms = 0;
    int rc = arch(given[0] ? given : NULL, o->arch, sizeof o->arch, &sms, &why);
    if (!o->sm_count && sms > 0) o->sm_count = sms; /* the device's, unless set */
    if (rc < 0) sb_printf(err, "%s='%s': %s", from, given, why.buf ? why.buf : "invalid");
    if (rc > 0) snprintf(o->arch_why, sizeof o->arch_why, "%s", why.buf ? why.buf : "");
    sb_free(&why);
    return rc < 0 ? -1 : 0;
}

/* opt's fields that stand for a setting: arch, print_after; from names where the
 * architecture came from, for resolve_arch's message. */
static int from_fields(Options *o, const tl_options *opt, const char **from, StrBuf *err) {
    if (opt->arch && *opt->arch) {
        if (strlen(opt->arch) >= sizeof o->arch) {
            sb_printf(err, "options.arch='%.40s': not an architecture", opt->arch);
            return -1;
        }
        snprintf(o->arch, sizeof o->arch, "%s", opt->arch);
        *from = "options.arch";
    }
    if (opt->print_after) {
        if (strlen(opt->print_after) >= sizeof o->print_after) {
            sb_printf(err, "print_after='%.40s...': more than %zu characters", opt->print_after,
                      sizeof o->print_after - 1);
            return -1;
        }
        snprintf(o->print_after, sizeof o->print_after, "%s", opt->print_after);
    }
    return 0;
}

int options_fill(Options *o, const tl_options *opt, OptionsArchFn arch, StrBuf *err) {
    memset(o, 0, sizeof *o);
    if (from_environment(o, err)) return -1;
    const char *from = o->arch[0] ? "TILEC_CUDA_ARCH" : "arch";
    if (opt && (opt->nsettings < 0 || (opt->nsettings && !opt->settings))) {
        sb_printf(err, "nsettings is %d but settings is %s", opt->nsettings,
                  opt->settings ? "set" : "NULL");
        return -1;
    }
    for (int i = 0; opt && i < opt->nsettings; i++) {
        if (options_set(o, opt->settings[i].name, opt->settings[i].value, err)) return -1;
        if (!strcmp(opt->settings[i].name, "arch")) from = "setting arch";
    }
    if (opt && from_fields(o, opt, &from, err)) return -1;
    return resolve_arch(o, arch, from, err);
}

char *options_key(const Options *o) {
    StrBuf sb = {0};
    sb_puts(&sb, "");
    for (int i = 0; i < NSETTINGS; i++) {
        const Setting *s = &settings[i];
        const char *field = (const char *)o + s->offset;
        if (!s->in_key) continue;
        if (s->kind == K_BOOL) sb_printf(&sb, "%s=%d ", s->key, *(const bool *)field);
        else if (s->kind == K_INT) sb_printf(&sb, "%s=%d ", s->key, options_sm_count(o));
        else sb_printf(&sb, "%s=%s ", s->key, field);
    }
    if (sb.len) sb.buf[--sb.len] = 0;
    return sb.buf;
}

char *options_table(void) {
    StrBuf sb = {0};
    sb_puts(&sb, "");
    for (int i = 0; i < NSETTINGS; i++)
        sb_printf(&sb, "%s\t%s\t%s\n", settings[i].key, settings[i].env ? settings[i].env : "-",
                  settings[i].doc);
    return sb.buf;
}
