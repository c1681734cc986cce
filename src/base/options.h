/* options.h - the settings of one compilation, filled once (options.c) and read by every
 * pass, emitter and target through the compile context (Ctx.opts). In src/base since the
 * Ctx holds them; options.c names no target (the caller passes Target.arch).
 *
 * Contract: an all-zero Options is the default of every setting (a zeroed Ctx compiles
 * as with no option and an empty environment), so each field is named for the value
 * that differs from the default. Nothing below options_fill reads the environment for a
 * setting; a Ctx's Options do not change after the front end has applied the kernel's
 * pass_configs. */
#ifndef TILEC_OPTIONS_H
#define TILEC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct Options {
    /* CUDA: "sm_80", "sm_90a", ...; "" when none was given and no GPU says
       (arch_why then holds why, for the build's message). */
    char arch[16];
    char arch_why[320];
    int sm_count; /* the SMs of the GPU the kernel runs on: given, else the current
                           device's (Target.arch); 0: none says, 132 (an H100 SXM) */
    /* lowering switches (CUDA) */
    bool no_ws;             /* no TMA producer warp group (also pass_configs
                           tl.disable_warp_specialized, tl.disable_tma_lower) */
    bool no_wgmma;          /* sm_90a compiled like sm_80: mma.sync, cp.async */
    bool no_stmatrix;       /* no stmatrix in fragment -> shared stores */
    bool no_tma_store;      /* no TMA stores of epilogue tiles */
    bool no_persistent;     /* one block per tile, not a persistent grid */
    bool no_splitk;         /* whole tiles (also pass_configs tilec.disable_split_k) */
    bool cluster;           /* 2-block clusters sharing multicast copies (opt-in) */
    bool pingpong;          /* consumer warp groups take turns at the wgmmas (opt-in) */
    bool no_auto_sync;      /* pass_configs tl.disable_thread_storage_sync */
    bool fast_math;         /* pass_configs tl.enable_fast_math: CUDA --use_fast_math */
    bool no_assume_aligned; /* symbolic row lengths not assumed multiples of 16 bytes (the
                               general variant of a kernel, pass_assume_aligned) */
    /* checks and debugging: no effect on the generated code */
    bool verify;    /* ir_verify after every pass (always in -DTILEC_DEBUG builds) */
    bool cuda_sync; /* synchronize after every CUDA launch (finds a faulting kernel) */
    char fault[16]; /* test hook: "internal", "oom" (compile), "launch" */
    /* the passes to dump the IR after ("all", "PASS,PASS"; tl_options.print_after),
       "" for none; checked against the target's passes by api.c */
    char print_after[512];
} Options;

/* The compute capability of o->arch (90 for sm_90a), 0 when unknown. */
int options_arch_number(const Options *o);
/* Whether kernels are compiled for sm_90a with wgmma (the arch is sm_90 and no_wgmma is
 * off). */
bool options_wgmma(const Options *o);
/* o->sm_count, or its default. */
int options_sm_count(const Options *o);

struct tl_options;
struct StrBuf;
/* A target's architectures (Target.arch): given (NULL: none) checked and normalized into
 * out, else the current device's. 0; 1 when none was given and no device says (why);
 * -1 when given is not one (why). *sms: the device's multiprocessors, 0 if none says. */
typedef int (*OptionsArchFn)(const char *given, char *out, size_t n, int *sms, struct StrBuf *why);
/* Fills o for a compilation: the defaults, then the TILEC_* environment variables (read
 * here, once), then opt's settings, arch and print_after; the architecture resolved with
 * arch (the target's Target.arch; NULL: the target has none, o->arch stays ""). The
 * kernel's pass_configs are applied later, by the front end (pass_config_apply). 0, else
 * -1 with a message naming the bad setting or variable in err. */
int options_fill(Options *o, const struct tl_options *opt, OptionsArchFn arch, struct StrBuf *err);
/* One setting by name (as tl_options.settings gives it); 0, else -1 and err. */
int options_set(Options *o, const char *key, const char *value, struct StrBuf *err);
/* Canonical text of the settings that can change the generated code or its build, for
 * the kernel cache key ("arch=sm_90a sm_count=132 no_ws=0 ..."); malloc'd. */
char *options_key(const Options *o);
/* "KEY\tENV\tMEANING\n" for every setting (tilec help settings; docs/c-api.md);
 * malloc'd. */
char *options_table(void);

#endif
