/* tilec.c - the command-line driver.
 *
 *   tilec run FILE[:FACTORY] [-D NAME=VALUE]... [--target T] [--arch A] [--set KEY=VALUE]...
 *             [--in PARAM=X.npy]... [--out-dir DIR] [--check] [--bench] [--seed N] [--no-cache]
 *   tilec emit FILE[:FACTORY] [-D NAME=VALUE]... [--target T] [--arch A] [--set KEY=VALUE]...
 *             [--ir | --source]
 *   (run and emit: [--ir-after PASS[,PASS...] | --ir-after all] [--ir-file PATH])
 *   tilec info [--json | --names | --passes] | tilec cache clear | tilec cache dir
 *   tilec help [CMD|settings] | tilec --version
 *
 * Exit status: 0 success, 1 a user error (message on stderr) or a --check mismatch,
 * 2 bad usage. docs/cli.md is the reference. */
#include "frontend/frontend.h"
#include "rt/rt.h"
#include "tilec.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- help ------------------------------------------------------------------------------ */
static const char help_main[] =
    "usage: tilec COMMAND [ARGS]\n"
    "\n"
    "Compiles and runs TileLang kernels (Python syntax; no Python needed).\n"
    "\n"
    "commands:\n"
    "  run FILE[:FACTORY]    compile, run on generated or given inputs, report the time\n"
    "  emit FILE[:FACTORY]   print the generated source (or --ir: the tile IR)\n"
    "  info [--json]         version, targets, compilers, cache directory (--passes:\n"
    "                        each target's passes)\n"
    "  cache clear|dir       empty the kernel cache / print its directory\n"
    "  help [COMMAND]        this text, or a command's options (help settings: the\n"
    "                        settings --set takes)\n"
    "\n"
    "  --version             print the version\n";

static const char help_run[] =
    "usage: tilec run FILE[:FACTORY] [options]\n"
    "\n"
    "Compiles the kernel (FACTORY: the factory function or prim_func to take; default: the\n"
    "last one), fills every input not given with --in with random data from --seed,\n"
    "allocates the outputs, runs once and prints 'NAME (TARGET): TIME ms'. On the cuda\n"
    "target the inputs are copied to the GPU and the results back (--out-dir, --check).\n"
    "\n"
    "options:\n"
    "  -D NAME=VALUE       factory argument (Python literal: 64, 1.5, True, \"float16\",\n"
    "                      (64, 64); a bare word is a string); for a symbolic size\n"
    "                      (T.dynamic) it also gives the size of generated inputs\n"
    "  --target T          auto (default: cuda if usable, else c), c, cuda\n"
    "  --arch A            CUDA architecture: sm_80, sm_90a, ... (default: $TILEC_CUDA_ARCH,\n"
    "                      else the GPU's)\n"
    "  --set KEY=VALUE     a setting, over its TILEC_* variable (tilec help settings)\n"
    "  --pass-config KEY=VALUE\n"
    "                      a pass config, as @tilelang.jit(pass_configs={KEY: VALUE})\n"
    "  --in PARAM=X.npy    input data for PARAM from a numpy .npy file; for a scalar\n"
    "                      parameter also --in PARAM=NUMBER\n"
    "  --out-dir DIR       write every output as DIR/PARAM.npy (a kernel without outputs:\n"
    "                      every tensor argument, as the kernel left it)\n"
    "  --check             also run on the C target and compare the outputs; exit 1 on a\n"
    "                      mismatch\n"
    "  --bench             repeat for about 1 s; print median and min time\n"
    "  --seed N            seed of the generated inputs (default 0)\n"
    "  --no-cache          do not use the kernel cache\n"
    "  --ir-after PASS     print the tile IR after PASS (PASS,PASS...: after each; all:\n"
    "                      after every pass) to stderr; `tilec info --passes` lists them\n"
    "  --ir-file PATH      write those dumps to PATH instead (emptied first)\n"
    "\n"
    "Generated inputs: floats uniform in [-1, 1), ints in [-8, 8) ([0, 8) unsigned),\n"
    "bools 0/1; the same seed gives the same data on every machine.\n";

static const char help_emit[] =
    "usage: tilec emit FILE[:FACTORY] [-D NAME=VALUE]... [--pass-config KEY=VALUE]...\n"
    "                  [--target T] [--arch A] [--set KEY=VALUE]... [--ir | --source]\n"
    "                  [--ir-after PASS] [--ir-file PATH]\n"
    "\n"
    "Prints the generated source (--source, the default) or the tile IR before lowering\n"
    "(--ir). Nothing is built, so no compiler is needed (nor a GPU, with --arch).\n"
    "-D, --pass-config, --target, --arch and --set as for run. --ir-after PASS\n"
    "(PASS,PASS..., or all) prints the IR after those passes of the target's pipeline to\n"
    "stderr, or to --ir-file PATH (emptied first); `tilec info --passes` lists the passes.\n";

static const char help_settings[] =
    "usage: tilec run|emit ... --set KEY=VALUE\n"
    "\n"
    "Settings of a compilation (booleans take 0/1, true/false). Each overrides its\n"
    "environment variable; a kernel's pass_configs may turn features off after them.\n"
    "\n";

static const char help_info[] =
    "usage: tilec info [--json | --names | --passes]\n"
    "\n"
    "Prints the version, the targets and whether they can run here (and why not), the C\n"
    "compiler, the GPUs (name, compute capability), the CUDA driver and NVRTC versions,\n"
    "and the kernel cache directory. --json: the same as one JSON object (docs/cli.md).\n"
    "--names: every name of the T namespace and its status (T.<name>, a tab, the\n"
    "status), as docs/language.md tabulates them.\n"
    "--passes: every target's passes in pipeline order (the target, a tab, the pass), the\n"
    "names --ir-after takes.\n";

static const char help_cache[] =
    "usage: tilec cache clear | tilec cache dir\n"
    "\n"
    "clear: removes the cached kernels (only files the cache made) from the cache\n"
    "directory; dir: prints it. The directory is $TILEC_CACHE_DIR, else\n"
    "$XDG_CACHE_HOME/tilec, else ~/.cache/tilec. TILEC_NO_CACHE=1 turns the cache off.\n";

static int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("tilec: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'tilec help%s%s'.\n", cmd ? " " : "", cmd ? cmd : "");
    return 2;
}

static int user_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int user_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

static int api_error(void) {
    fprintf(stderr, "%s\n", tl_last_error());
    return 1;
}

/* ---- command line ------------------------------------------------------------------------ */
typedef struct InArg {
    const char *param, *path;
} InArg;

typedef struct Cli {
    const char *cmd;
    char *file, *factory;
    const char *target, *out_dir;
    const char *ir_after, *ir_file; /* --ir-after, --ir-file */
    tl_define *defines;
    int ndefines;
    tl_define *configs; /* --pass-config KEY=VALUE */
    int nconfigs;
    const char *arch;    /* --arch */
    tl_define *settings; /* --set KEY=VALUE */
    int nsettings;
    InArg *ins;
    int nins;
    int check, bench, no_cache, emit_ir;
    uint64_t seed;
} Cli;

static void cli_free(Cli *c) {
    free(c->file);
    free(c->factory);
    for (int i = 0; i < c->ndefines; i++) free((char *)c->defines[i].name);
    free(c->defines);
    for (int i = 0; i < c->nconfigs; i++) free((char *)c->configs[i].name);
    free(c->configs);
    for (int i = 0; i < c->nsettings; i++) free((char *)c->settings[i].name);
    free(c->settings);
    for (int i = 0; i < c->nins; i++) free((char *)c->ins[i].param);
    free(c->ins);
}

static int is_ident(const char *s) {
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}

/* "--name VALUE" or "--name=VALUE": 1 and *val if argv[*i] is this option, -1 if the
 * value is missing, 0 if it is another option. */
static int opt_value(int argc, char **argv, int *i, const char *name, const char **val) {
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return 0;
    if (argv[*i][n] == '=') return *val = argv[*i] + n + 1, 1;
    if (argv[*i][n] != 0) return 0;
    if (*i + 1 >= argc) return -1;
    *val = argv[++*i];
    return 1;
}

/* NAME=VALUE; returns 0 and a malloc'ed name on success. */
static int split_assign(const char *s, char **name, const char **value) {
    const char *eq = strchr(s, '=');
    if (!eq || eq == s) return -1;
    *name = strndup(s, (size_t)(eq - s));
    *value = eq + 1;
    return 0;
}

static int add_define(Cli *c, const char *s) {
    char *name;
    const char *value;
    if (split_assign(s, &name, &value) != 0)
        return usage_error(c->cmd, "bad -D '%s': expected NAME=VALUE", s);
    if (!is_ident(name)) {
        usage_error(c->cmd, "bad -D '%s': '%s' is not a name", s, name);
        free(name);
        return 2;
    }
    c->defines = realloc(c->defines, sizeof *c->defines * (size_t)(c->ndefines + 1));
    c->defines[c->ndefines].name = name;
    c->defines[c->ndefines++].value = value;
    return 0;
}

/* --pass-config KEY=VALUE: as @tilelang.jit(pass_configs={KEY: VALUE}) (VALUE a Python
 * literal; a bare word is a string). */
static int add_config(Cli *c, const char *s) {
    char *name = NULL;
    const char *value = NULL;
    if (split_assign(s, &name, &value) != 0 || !*value) {
        free(name);
        return usage_error(c->cmd, "bad --pass-config '%s': expected KEY=VALUE", s);
    }
    c->configs = realloc(c->configs, sizeof *c->configs * (size_t)(c->nconfigs + 1));
    c->configs[c->nconfigs].name = name;
    c->configs[c->nconfigs++].value = value;
    return 0;
}

/* --set KEY=VALUE: a setting (options.c checks the key and the value). */
static int add_setting(Cli *c, const char *s) {
    char *name = NULL;
    const char *value = NULL;
    if (split_assign(s, &name, &value) != 0) {
        free(name);
        return usage_error(c->cmd, "bad --set '%s': expected KEY=VALUE", s);
    }
    c->settings = realloc(c->settings, sizeof *c->settings * (size_t)(c->nsettings + 1));
    c->settings[c->nsettings].name = name;
    c->settings[c->nsettings++].value = value;
    return 0;
}

static int add_in(Cli *c, const char *s) {
    char *name;
    const char *path;
    if (split_assign(s, &name, &path) != 0 || !*path)
        return usage_error(c->cmd, "bad --in '%s': expected PARAM=FILE.npy", s);
    c->ins = realloc(c->ins, sizeof *c->ins * (size_t)(c->nins + 1));
    c->ins[c->nins].param = name;
    c->ins[c->nins++].path = path;
    return 0;
}

/* FILE[:FACTORY]: split at the last ':' when what follows is a name and the whole
 * argument is not itself an existing file. */
static void set_file(Cli *c, const char *arg) {
    const char *colon = strrchr(arg, ':');
    struct stat st;
    if (colon && colon != arg && is_ident(colon + 1) && stat(arg, &st) != 0) {
        c->file = strndup(arg, (size_t)(colon - arg));
        c->factory = strdup(colon + 1);
    } else {
        c->file = strdup(arg);
    }
}

static int parse_flag(Cli *c, const char *a) {
    if (!strcmp(a, "--check") && !strcmp(c->cmd, "run")) return c->check = 1;
    if (!strcmp(a, "--bench") && !strcmp(c->cmd, "run")) return c->bench = 1;
    if (!strcmp(a, "--no-cache") && !strcmp(c->cmd, "run")) return c->no_cache = 1;
    if (!strcmp(a, "--ir") && !strcmp(c->cmd, "emit")) return c->emit_ir = 1;
    if (!strcmp(a, "--source") && !strcmp(c->cmd, "emit")) return c->emit_ir = 0, 1;
    return 0;
}

static int parse_seed(Cli *c, const char *v) {
    char *end;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 0);
    if (!*v || *end || errno || *v == '-')
        return usage_error(c->cmd, "bad --seed '%s': expected a non-negative integer", v);
    c->seed = s;
    return 0;
}

/* One option at argv[*i]: 0 if handled, 2 on a usage error. */
static int parse_option(Cli *c, int argc, char **argv, int *i) {
    const char *a = argv[*i], *v = NULL;
    int r;
    if (!strcmp(a, "-D")) {
        if (*i + 1 >= argc) return usage_error(c->cmd, "-D needs NAME=VALUE");
        return add_define(c, argv[++*i]);
    }
    if (!strncmp(a, "-D", 2)) return add_define(c, a + 2);
    if (parse_flag(c, a)) return 0;
    static const char *const valued[] = {"--target", "--in",          "--out-dir",
                                         "--seed",   "--pass-config", "--arch",
                                         "--set",    "--ir-after",    "--ir-file"};
    for (int k = 0; k < 9; k++) {
        if ((k == 1 || (k >= 2 && k < 4)) && strcmp(c->cmd, "run") != 0) continue;
        if ((r = opt_value(argc, argv, i, valued[k], &v)) == 0) continue;
        if (r < 0) return usage_error(c->cmd, "%s needs a value", valued[k]);
        if (k == 0) return c->target = v, 0;
        if (k == 1) return add_in(c, v);
        if (k == 2 && !*v) /* "" would write the results into / */
            return usage_error(c->cmd, "--out-dir needs a directory, not an empty string");
        if (k == 2) return c->out_dir = v, 0;
        if (k == 4) return add_config(c, v);
        if (k == 5) return c->arch = v, 0;
        if (k == 6) return add_setting(c, v);
        if (k == 7) return c->ir_after = v, 0;
        if (k == 8) return c->ir_file = v, 0;
        return parse_seed(c, v);
    }
    return usage_error(c->cmd, "unknown option '%s' for '%s'", a, c->cmd);
}

static int parse_cli(Cli *c, int argc, char **argv) {
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1]) {
            int r = parse_option(c, argc, argv, &i);
            if (r) return r;
        } else if (!c->file) {
            set_file(c, a);
        } else {
            return usage_error(c->cmd, "unexpected argument '%s' (one FILE only)", a);
        }
    }
    if (!c->file) return usage_error(c->cmd, "'%s' needs a FILE[:FACTORY]", c->cmd);
    if (c->ir_file && !c->ir_after) return usage_error(c->cmd, "--ir-file needs --ir-after");
    if (c->ir_file) { /* the library appends: start the file afresh */
        FILE *fp = fopen(c->ir_file, "w");
        if (!fp) return user_error("--ir-file: cannot write %s: %s", c->ir_file, strerror(errno));
        fclose(fp);
    }
    return 0;
}

static tl_status compile(const Cli *c, const char *target, int build, tl_kernel **k) {
    tl_options o = tl_options_default();
    o.target = target;
    o.factory = c->factory;
    o.defines = c->defines;
    o.ndefines = c->ndefines;
    o.pass_configs = c->configs;
    o.npass_configs = c->nconfigs;
    o.arch = c->arch;
    o.settings = c->settings;
    o.nsettings = c->nsettings;
    o.use_cache = !c->no_cache;
    o.build = build;
    o.print_after = c->ir_after;
    o.print_after_path = c->ir_file;
    tl_status st = tl_compile_file(c->file, &o, k);
    if (st == TL_OK && *tl_kernel_warnings(*k)) fputs(tl_kernel_warnings(*k), stderr);
    return st;
}

/* ---- emit --------------------------------------------------------------------------------- */
static int cmd_emit(Cli *c) {
    tl_kernel *k;
    if (compile(c, c->target, 0, &k) != TL_OK) return api_error();
    const char *text = c->emit_ir ? tl_kernel_ir(k) : tl_kernel_source(k);
    fputs(text, stdout);
    if (*text && text[strlen(text) - 1] != '\n') fputc('\n', stdout);
    tl_kernel_destroy(k);
    return 0;
}

/* ---- tensors ------------------------------------------------------------------------------ */
static size_t tensor_numel(const DLTensor *t) {
    size_t n = 1;
    for (int d = 0; d < t->ndim; d++) n *= (size_t)t->shape[d];
    return n;
}

static DType tensor_dtype(const DLTensor *t) {
    return dtype_from_dlpack(t->dtype.code, t->dtype.bits);
}

/* A compact CPU tensor, zero-filled; released with tl_tensor_free. */
static DLTensor *tensor_new(DType dt, int ndim, const int64_t *shape) {
    DLTensor *t = calloc(1, sizeof *t);
    t->device.device_type = kDLCPU;
    t->ndim = ndim;
    dtype_to_dlpack(dt, &t->dtype.code, &t->dtype.bits);
    t->dtype.lanes = 1;
    t->shape = calloc((size_t)ndim + 1, sizeof(int64_t));
    if (ndim) memcpy(t->shape, shape, sizeof(int64_t) * (size_t)ndim);
    size_t bytes = (tensor_numel(t) * (size_t)dtype_bytes(dt) + 63) / 64 * 64;
    t->data = aligned_alloc(64, bytes ? bytes : 64);
    if (!t->data) { /* the driver may exit; the library never does */
        fprintf(stderr, "error: cannot allocate %zu bytes for a %s tensor\n", bytes,
                dtype_name(dt));
        exit(1);
    }
    memset(t->data, 0, bytes);
    return t;
}

static DLTensor *tensor_clone(const DLTensor *s) {
    DLTensor *t = tensor_new(tensor_dtype(s), s->ndim, s->shape);
    memcpy(t->data, s->data, tensor_numel(s) * (size_t)dtype_bytes(tensor_dtype(s)));
    return t;
}

static void tensors_free(DLTensor **ts, int n) {
    if (!ts) return;
    for (int i = 0; i < n; i++) tl_tensor_free(ts[i]);
    free(ts);
}

/* splitmix64: a tiny PRNG whose output is the same on every machine. */
static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Parameter i gets its own stream, so adding --in for one input leaves the others as
 * they were. */
static void tensor_fill_random(DLTensor *t, uint64_t seed, int i) {
    uint64_t s = seed ^ (0xd1b54a32d192ed03ull * (uint64_t)(i + 1));
    DType dt = tensor_dtype(t);
    size_t n = tensor_numel(t);
    for (size_t e = 0; e < n; e++) {
        uint64_t x = splitmix64(&s);
        double v;
        if (dt == DT_BOOL) v = (double)(x >> 63);
        else if (dtype_is_float(dt)) v = (double)(x >> 11) * 0x1.0p-52 - 1.0;
        else if (dtype_is_signed(dt)) v = (double)(x >> 60) - 8.0;
        else v = (double)(x >> 61);
        rt_elem_set(dt, t->data, e, v);
    }
}

/* ---- symbols known to the driver (from -D and --in shapes) ---------------------------- */
typedef struct Sym {
    const char *name;
    char origin[200]; /* "-D M=128" or "--in A=a.npy": where the value came from */
    int64_t value;
} Sym;

typedef struct Run {
    Cli *cli;
    tl_kernel *k;
    int n; /* parameters */
    tl_param_info *info;
    DLTensor **given; /* per parameter: pristine input tensor, NULL for outputs */
    Sym *syms;
    int nsyms;
    int has_outputs;
} Run;

static Sym *sym_find(Run *r, const char *name) {
    for (int i = 0; i < r->nsyms; i++)
        if (!strcmp(r->syms[i].name, name)) return &r->syms[i];
    return NULL;
}

static void sym_add(Run *r, const char *name, int64_t v, const char *o1, const char *o2) {
    r->syms = realloc(r->syms, sizeof *r->syms * (size_t)(r->nsyms + 1));
    Sym *s = &r->syms[r->nsyms++];
    s->name = name;
    s->value = v;
    snprintf(s->origin, sizeof s->origin, "%s=%s", o1, o2);
}

static void syms_from_defines(Run *r) {
    for (int i = 0; i < r->cli->ndefines; i++) {
        const tl_define *d = &r->cli->defines[i];
        char *end;
        long long v = strtoll(d->value, &end, 0);
        if (!*d->value || *end) continue;
        StrBuf o = {0};
        sb_printf(&o, "-D %s", d->name);
        sym_add(r, d->name, v, o.buf, d->value);
        sb_free(&o);
    }
}

static int param_find(Run *r, const char *name) {
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->info[i].name, name)) return i;
    return -1;
}

static void shape_text(const tl_param_info *p, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "(");
    for (int d = 0; d < p->ndim && n < cap; d++) {
        if (p->shape[d] >= 0)
            n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? ", " : "",
                                  (long long)p->shape[d]);
        else n += (size_t)snprintf(buf + n, cap - n, "%s%s", d ? ", " : "", p->shape_names[d]);
    }
    if (n < cap) snprintf(buf + n, cap - n, p->ndim == 1 ? ",)" : ")");
}

/* Is parameter i an input in tl_kernel_call's sense? */
static int is_input(const Run *r, int i) { return !r->info[i].is_output; }

/* Checks an --in array against parameter i and learns the symbols its shape binds. */
static int in_check(Run *r, int i, const InArg *in, const NpyArray *a) {
    const tl_param_info *p = &r->info[i];
    DType want = dtype_from_dlpack(p->dtype.code, p->dtype.bits);
    char sh[256];
    shape_text(p, sh, sizeof sh);
    if (a->dtype != want)
        return user_error("--in %s=%s: dtype is %s but parameter '%s' is %s", in->param, in->path,
                          dtype_name(a->dtype), p->name, dtype_name(want));
    if (a->ndim != p->ndim)
        return user_error("--in %s=%s: ndim is %d but parameter '%s' has shape %s", in->param,
                          in->path, a->ndim, p->name, sh);
    for (int d = 0; d < p->ndim; d++) {
        int64_t v = a->shape[d];
        if (p->shape[d] >= 0 && v != p->shape[d])
            return user_error("--in %s=%s: shape[%d] is %lld but parameter '%s' has shape %s",
                              in->param, in->path, d, (long long)v, p->name, sh);
        if (p->shape[d] >= 0 || !is_ident(p->shape_names[d])) continue;
        Sym *s = sym_find(r, p->shape_names[d]);
        if (!s) {
            StrBuf o = {0};
            sb_printf(&o, "--in %s", in->param);
            sym_add(r, p->shape_names[d], v, o.buf, in->path);
            sb_free(&o);
        } else if (s->value != v) {
            return user_error("--in %s=%s: shape[%d] is %lld but %s is %lld (from %s)", in->param,
                              in->path, d, (long long)v, s->name, (long long)s->value, s->origin);
        }
    }
    return 0;
}

/* --in NAME=NUMBER for a scalar parameter (True/False for bools). 1 if text is one. */
static int scalar_literal(Run *r, int i, const char *text) {
    const tl_param_info *p = &r->info[i];
    char *end;
    double v = strtod(text, &end);
    if (!strcmp(text, "True") || !strcmp(text, "False")) v = text[0] == 'T', end = "";
    if (!p->is_scalar || !*text || *end) return 0;
    r->given[i] = tensor_new(dtype_from_dlpack(p->dtype.code, p->dtype.bits), 0, NULL);
    rt_elem_set(dtype_from_dlpack(p->dtype.code, p->dtype.bits), r->given[i]->data, 0, v);
    return 1;
}

static int load_in(Run *r, const InArg *in) {
    int i = param_find(r, in->param);
    if (i < 0) {
        StrBuf names = {0};
        for (int j = 0; j < r->n; j++) sb_printf(&names, "%s%s", j ? ", " : "", r->info[j].name);
        user_error("--in %s=%s: the kernel has no parameter '%s' (parameters: %s)", in->param,
                   in->path, in->param, names.buf ? names.buf : "none");
        sb_free(&names);
        return 1;
    }
    if (!is_input(r, i))
        return user_error("--in %s=%s: '%s' is an output of the kernel; --in gives inputs",
                          in->param, in->path, in->param);
    if (r->given[i]) return user_error("--in %s: given twice", in->param);
    if (scalar_literal(r, i, in->path)) return 0;
    NpyArray a;
    StrBuf err = {0};
    const tl_param_info *p = &r->info[i];
    if (npy_read(in->path, dtype_from_dlpack(p->dtype.code, p->dtype.bits), &a, &err) != 0) {
        user_error("--in %s: %s", in->param, err.buf);
        sb_free(&err);
        return 1;
    }
    int rc = in_check(r, i, in, &a);
    if (rc == 0) {
        r->given[i] = tensor_new(a.dtype, a.ndim, a.shape);
        if (a.numel) memcpy(r->given[i]->data, a.data, a.numel * (size_t)dtype_bytes(a.dtype));
    }
    npy_free(&a);
    return rc;
}

/* A scalar input not given with --in: random, like a tensor's elements. */
static void scalar_input(Run *r, int i) {
    const tl_param_info *p = &r->info[i];
    r->given[i] = tensor_new(dtype_from_dlpack(p->dtype.code, p->dtype.bits), 0, NULL);
    tensor_fill_random(r->given[i], r->cli->seed, i);
}

static int generate_input(Run *r, int i) {
    const tl_param_info *p = &r->info[i];
    if (p->is_pointer) /* no address means anything to a run of random inputs */
        return user_error("parameter '%s' is a pointer (T.ptr): give it with --in %s=0 (a null "
                          "address), or call the kernel from Python or the C API",
                          p->name, p->name);
    if (p->is_scalar) return scalar_input(r, i), 0;
    int64_t shape[64];
    char sh[256];
    for (int d = 0; d < p->ndim; d++) {
        Sym *s = p->shape[d] >= 0 ? NULL : sym_find(r, p->shape_names[d]);
        shape[d] = s ? s->value : p->shape[d];
        if (shape[d] >= 0) continue;
        shape_text(p, sh, sizeof sh);
        if (!is_ident(p->shape_names[d]))
            return user_error("parameter '%s' has shape %s: give its data with --in %s=FILE.npy",
                              p->name, sh, p->name);
        return user_error("parameter '%s' has shape %s: give its data with --in %s=FILE.npy "
                          "or its size with -D %s=VALUE",
                          p->name, sh, p->name, p->shape_names[d]);
    }
    r->given[i] = tensor_new(dtype_from_dlpack(p->dtype.code, p->dtype.bits), p->ndim, shape);
    tensor_fill_random(r->given[i], r->cli->seed, i);
    return 0;
}

static int prepare_inputs(Run *r) {
    r->given = calloc((size_t)r->n + 1, sizeof *r->given);
    r->info = calloc((size_t)r->n + 1, sizeof *r->info);
    for (int i = 0; i < r->n; i++) {
        tl_kernel_param(r->k, i, &r->info[i]);
        r->has_outputs |= r->info[i].is_output;
        if (r->info[i].ndim > 64)
            return user_error("parameter '%s' has too many dims", r->info[i].name);
    }
    syms_from_defines(r);
    for (int j = 0; j < r->cli->nins; j++)
        if (load_in(r, &r->cli->ins[j])) return 1;
    for (int i = 0; i < r->n; i++)
        if (is_input(r, i) && !r->given[i] && generate_input(r, i)) return 1;
    return 0;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* A copy of host tensor h on dev (h itself copied for the host and for scalars, which
 * are read on the host); NULL on failure (tl_last_error says why). */
static DLTensor *tensor_to(const DLTensor *h, DLDevice dev, int scalar) {
    if (dev.device_type == kDLCPU || scalar) return tensor_clone(h);
    DLTensor *t = NULL;
    if (tl_tensor_alloc(h->dtype, h->ndim, h->shape, dev, &t) != TL_OK) return NULL;
    if (tl_tensor_copy(t, h) == TL_OK) return t;
    tl_tensor_free(t);
    return NULL;
}

/* Host copies of the tensors of a run on a device. */
static tl_status copy_back(Run *r, DLTensor **dev, DLTensor **host) {
    for (int i = 0; i < r->n; i++) {
        if (dev[i]->device.device_type == kDLCPU) {
            host[i] = tensor_clone(dev[i]);
            continue;
        }
        host[i] = tensor_new(tensor_dtype(dev[i]), dev[i]->ndim, dev[i]->shape);
        tl_status st = tl_tensor_copy(host[i], dev[i]);
        if (st != TL_OK) return st;
    }
    return TL_OK;
}

/* Runs k on fresh copies of the inputs, on k's device (inputs copied there, outputs
 * allocated there), and waits for it. *all: one host tensor per parameter after the run
 * (the inputs and the outputs), owned by the caller. *on_dev (if not NULL): the same
 * tensors on the device when k runs on a GPU, else NULL. */
static tl_status run_once(Run *r, tl_kernel *k, DLTensor ***all, DLTensor ***on_dev, double *ms) {
    DLDevice dev = tl_kernel_device(k);
    int nin = 0, nout = 0;
    for (int i = 0; i < r->n; i++) {
        if (is_input(r, i)) nin++;
        else nout++;
    }
    DLTensor **ins = calloc((size_t)nin + 1, sizeof *ins);
    DLTensor **outs = calloc((size_t)nout + 1, sizeof *outs);
    DLTensor **d = calloc((size_t)r->n + 1, sizeof *d);
    tl_status st = TL_OK;
    for (int i = 0, j = 0; i < r->n && st == TL_OK; i++)
        if (is_input(r, i) && !(ins[j++] = tensor_to(r->given[i], dev, r->info[i].is_scalar)))
            st = TL_ERROR_RUNTIME;
    double t0 = now_ms();
    if (st == TL_OK) st = tl_kernel_call(k, ins, nin, outs, nout, NULL);
    if (st == TL_OK) st = tl_device_synchronize(dev, NULL);
    *ms = now_ms() - t0;
    for (int i = 0, a = 0, b = 0; i < r->n; i++) d[i] = is_input(r, i) ? ins[a++] : outs[b++];
    free(ins);
    free(outs);
    if (on_dev) *on_dev = NULL;
    if (dev.device_type == kDLCPU) {
        *all = d;
        return st;
    }
    *all = calloc((size_t)r->n + 1, sizeof **all);
    if (st == TL_OK) st = copy_back(r, d, *all);
    if (on_dev && st == TL_OK) *on_dev = d;
    else tensors_free(d, r->n);
    return st;
}

/* Parameters whose values are the kernel's results: its outputs, or every tensor
 * argument of a kernel without outputs (it writes into its arguments). */
static int is_result(const Run *r, int i) {
    return r->has_outputs ? r->info[i].is_output : !r->info[i].is_scalar;
}

static int write_results(Run *r, DLTensor **all) {
    StrBuf err = {0}, path = {0};
    if (rt_mkdir_p(r->cli->out_dir, 0755, &err) != 0) {
        user_error("--out-dir: %s", err.buf);
        sb_free(&err);
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < r->n && !rc; i++) {
        if (!is_result(r, i)) continue;
        path.len = 0;
        sb_printf(&path, "%s/%s.npy", r->cli->out_dir, r->info[i].name);
        const DLTensor *t = all[i];
        if (npy_write(path.buf, tensor_dtype(t), t->ndim, t->shape, t->data, &err) != 0)
            rc = user_error("%s", err.buf);
    }
    sb_free(&err);
    sb_free(&path);
    return rc;
}

/* ---- --check -------------------------------------------------------------------------------- */
static void index_text(const DLTensor *t, size_t flat, char *buf, size_t cap) {
    int64_t idx[64];
    for (int d = t->ndim - 1; d >= 0; d--) {
        idx[d] = t->shape[d] ? (int64_t)(flat % (size_t)t->shape[d]) : 0;
        flat /= t->shape[d] ? (size_t)t->shape[d] : 1;
    }
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < t->ndim && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? ", " : "", (long long)idx[d]);
    if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* Compares one result; prints the first mismatch. 0 if all within tolerance. */
static int compare_one(const char *name, const DLTensor *got, const DLTensor *ref,
                       double *max_err) {
    DType dt = tensor_dtype(ref);
    size_t n = tensor_numel(ref);
    RtCompare c;
    rt_compare(dt, got->data, ref->data, n, &c);
    *max_err = fmax(*max_err, c.max_abs_err);
    char idx[256];
    if (c.nnan) { /* agreement, but rarely what the author meant */
        index_text(ref, c.first_nan, idx, sizeof idx);
        printf("check: note: output '%s' has %zu NaN elements (the first at %s), as the c "
               "target computes them\n",
               name, c.nnan, idx);
    }
    if (!c.nbad) return 0;
    index_text(ref, c.first_bad, idx, sizeof idx);
    printf("check: FAILED: output '%s' at %s: got %.9g, the c target gives %.9g "
           "(%zu of %zu elements differ; tolerance %g + %g*|ref| for %s)\n",
           name, idx, rt_elem_get(dt, got->data, c.first_bad),
           rt_elem_get(dt, ref->data, c.first_bad), c.nbad, n, c.atol, c.rtol, dtype_name(dt));
    return 1;
}

static int run_check(Run *r, DLTensor **all) {
    if (!strcmp(tl_kernel_target(r->k), "c")) /* say what the comparison is worth */
        printf("check: note: the kernel ran on the c target, the reference itself (--target "
               "c, or no usable GPU: see `tilec info`): this compares two runs of the c "
               "target, no GPU\n");
    tl_kernel *ref;
    if (compile(r->cli, "c", 1, &ref) != TL_OK) return api_error();
    DLTensor **rall = NULL;
    double ms, max_err = 0;
    int rc = 0;
    if (run_once(r, ref, &rall, NULL, &ms) != TL_OK) {
        fprintf(stderr, "check: the c target failed:\n");
        rc = api_error();
    }
    for (int i = 0; i < r->n && !rc; i++)
        if (is_result(r, i)) rc |= compare_one(r->info[i].name, all[i], rall[i], &max_err);
    if (!rc) printf("check: OK (max abs err %.3g)\n", max_err);
    tensors_free(rall, r->n);
    tl_kernel_destroy(ref);
    return rc;
}

/* ---- --bench -------------------------------------------------------------------------------- */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* n launches, then a wait for the device: 0, or 1 with tl_last_error set. */
static int bench_batch(Run *r, DLTensor **args, DLDevice dev, int n) {
    for (int i = 0; i < n; i++)
        if (tl_kernel_launch(r->k, args, r->n, NULL) != TL_OK) return 1;
    return tl_device_synchronize(dev, NULL) != TL_OK;
}

/* Times batches of launches for about 1 s. A batch (launches queued back to back, then
 * one wait) lasts about 1 ms, so that GPU kernels of a few microseconds are timed
 * without the wait's latency; per-run time = batch time / batch size. */
static int run_bench(Run *r, DLTensor **all) {
    enum { MAX_RUNS = 100000 };
    DLDevice dev = tl_kernel_device(r->k);
    double *t = malloc(sizeof *t * MAX_RUNS), start = now_ms();
    int n = 0, runs = 0;
    int bad = bench_batch(r, all, dev, 1); /* warm-up */
    double one = now_ms() - start;
    int batch = one >= 1.0 ? 1 : one * 1000 < 1.0 ? 1000 : (int)(1.0 / one);
    start = now_ms();
    while (!bad && n < MAX_RUNS && (n < 3 || now_ms() - start < 1000.0)) {
        double t0 = now_ms();
        bad = bench_batch(r, all, dev, batch);
        t[n++] = (now_ms() - t0) / batch;
        runs += batch;
    }
    if (bad) {
        free(t);
        return api_error();
    }
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    double med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    printf("%s (%s): median %.3f ms, min %.3f ms over %d runs", tl_kernel_name(r->k),
           tl_kernel_target(r->k), med, t[0], runs);
    double flops = tl_kernel_flops(r->k, all, r->n);
    if (flops > 0) {
        printf(", %.4g TFLOP/s", flops / (med * 1e-3) / 1e12);
    } else { /* memory-bound kernels: every argument read or written once */
        double bytes = 0;
        for (int i = 0; i < r->n; i++) {
            double e = all[i]->dtype.bits / 8.0;
            for (int d = 0; d < all[i]->ndim; d++) e *= (double)all[i]->shape[d];
            bytes += e;
        }
        printf(", %.4g GB/s", bytes / (med * 1e-3) / 1e9);
    }
    printf("\n");
    free(t);
    return 0;
}

/* A kernel with symbolic sizes given --in data is compiled again for the inputs' shapes:
 * an eager-style kernel's T.const sizes are then constants (T.dynamic ones stay
 * symbolic). */
static tl_status specialize(Run *r) {
    if (!r->cli->nins) return TL_OK; /* sizes from -D are constants already */
    int symbolic = 0;
    for (int i = 0; i < r->n; i++)
        for (int d = 0; d < r->info[i].ndim; d++) symbolic |= r->info[i].shape[d] < 0;
    if (!symbolic) return TL_OK;
    DLTensor **ins = calloc((size_t)r->n + 1, sizeof *ins);
    const char **names = calloc((size_t)r->n + 1, sizeof *names);
    int n = 0;
    for (int i = 0; i < r->n; i++)
        if (r->given[i] && !r->info[i].is_scalar)
            ins[n] = r->given[i], names[n++] = r->info[i].name;
    tl_options o = tl_options_default();
    o.target = tl_kernel_target(r->k);
    o.factory = r->cli->factory;
    o.defines = r->cli->defines;
    o.ndefines = r->cli->ndefines;
    o.pass_configs = r->cli->configs;
    o.npass_configs = r->cli->nconfigs;
    o.arch = r->cli->arch;
    o.settings = r->cli->settings;
    o.nsettings = r->cli->nsettings;
    o.use_cache = !r->cli->no_cache;
    o.inputs = ins;
    o.input_names = names;
    o.ninputs = n;
    tl_kernel *k;
    tl_status st = tl_compile_file(r->cli->file, &o, &k);
    free(ins);
    free(names);
    if (st != TL_OK) return st;
    tl_kernel_destroy(r->k);
    r->k = k;
    for (int i = 0; i < r->n; i++) tl_kernel_param(k, i, &r->info[i]);
    return TL_OK;
}

static int cmd_run(Cli *c) {
    Run r = {.cli = c};
    if (compile(c, c->target, 1, &r.k) != TL_OK) return api_error();
    r.n = tl_kernel_num_params(r.k);
    DLTensor **all = NULL, **on_dev = NULL; /* host tensors; on the GPU for cuda */
    double ms;
    int rc = prepare_inputs(&r);
    if (!rc && specialize(&r) != TL_OK) rc = api_error();
    if (!rc && run_once(&r, r.k, &all, &on_dev, &ms) != TL_OK) rc = api_error();
    if (!rc) printf("%s (%s): %.3f ms\n", tl_kernel_name(r.k), tl_kernel_target(r.k), ms);
    if (!rc && c->out_dir) rc = write_results(&r, all);
    if (!rc && c->check) rc = run_check(&r, all);
    if (!rc && c->bench) rc = run_bench(&r, on_dev ? on_dev : all);
    tensors_free(all, r.n);
    tensors_free(on_dev, r.n);
    tensors_free(r.given, r.n);
    free(r.info);
    free(r.syms);
    tl_kernel_destroy(r.k);
    return rc;
}

/* ---- info, cache, help -------------------------------------------------------------- */
static int cmd_cache(int argc, char **argv) {
    if (argc != 3) return usage_error("cache", "'cache' needs one of: clear, dir");
    if (!strcmp(argv[2], "dir")) return puts(tl_cache_dir(NULL)), 0;
    if (strcmp(argv[2], "clear") != 0)
        return usage_error("cache", "unknown cache command '%s' (clear, dir)", argv[2]);
    if (tl_cache_clear(NULL) != TL_OK) return api_error();
    printf("cleared the kernel cache in %s\n", tl_cache_dir(NULL));
    return 0;
}

/* The settings, one per line: KEY, its variable, what it does (options.c's table). */
static int help_on_settings(void) {
    fputs(help_settings, stdout);
    char *t = options_table();
    for (char *line = t, *end; line && *line; line = end + 1) {
        end = strchr(line, '\n');
        char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
        if (!end || !tab2) break;
        printf("  %-14.*s %-20.*s %.*s\n", (int)(tab1 - line), line, (int)(tab2 - tab1 - 1),
               tab1 + 1, (int)(end - tab2 - 1), tab2 + 1);
    }
    free(t);
    return 0;
}

static int cmd_help(int argc, char **argv) {
    const char *topic = argc > 2 ? argv[2] : NULL;
    if (!topic) return fputs(help_main, stdout), 0;
    if (!strcmp(topic, "settings")) return help_on_settings();
    static const struct {
        const char *name, *text;
    } topics[] = {{"run", help_run},
                  {"emit", help_emit},
                  {"info", help_info},
                  {"cache", help_cache},
                  {"help", help_main}};
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
        if (!strcmp(topic, topics[i].name)) return fputs(topics[i].text, stdout), 0;
    return usage_error(NULL, "no help for '%s' (commands: run, emit, info, cache; settings)",
                       topic);
}

int main(int argc, char **argv) {
    if (argc < 2) return fputs(help_main, stderr), 2;
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version"))
        return printf("tilec %s\n", tl_version()), 0;
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help"))
        return cmd_help(argc, argv);
    if (!strcmp(cmd, "info")) {
        bool names = argc == 3 && !strcmp(argv[2], "--names"); /* docs/language.md's table */
        if (names || (argc == 3 && !strcmp(argv[2], "--passes"))) {
            char *t = names ? tl_lang_table() : tl_pass_table();
            fputs(t ? t : "", stdout);
            free(t);
            return 0;
        }
        int json = argc == 3 && !strcmp(argv[2], "--json");
        if (argc != 2 && !json)
            return usage_error("info", "'info' takes only --json, --names or --passes");
        return fputs(json ? tl_info_json() : tl_info(), stdout), 0;
    }
    if (!strcmp(cmd, "cache")) return cmd_cache(argc, argv);
    if (strcmp(cmd, "run") != 0 && strcmp(cmd, "emit") != 0)
        return usage_error(NULL, "unknown command '%s'", cmd);
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(!strcmp(cmd, "run") ? help_run : help_emit, stdout);
            return 0;
        }
    Cli c = {.cmd = cmd};
    int rc = parse_cli(&c, argc, argv);
    if (!rc) rc = !strcmp(cmd, "run") ? cmd_run(&c) : cmd_emit(&c);
    cli_free(&c);
    return rc;
}
