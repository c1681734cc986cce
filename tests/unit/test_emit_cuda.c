/* test_emit_cuda.c - the CUDA target's lowering and emitter, checked without a GPU:
 *  1. every example and a set of small kernels lowered and emitted for CUDA, compiled by
 *     NVRTC with no include path for sm_80 and sm_90a, warnings counted as failures
 *     (nvcc -cubin when NVRTC cannot be loaded; skipped when neither exists);
 *  2. barrier placement: counts on known programs, and never a barrier inside a
 *     distributed loop or a thread-0-only block (in the IR and in the source text);
 *  3. semantics: the generated CUDA compiled as host C++ with a simulated block, or the
 *     blocks of a cluster at once (one coroutine per thread, each block with its own
 *     shared memory; __syncthreads switches threads; between barriers the threads
 *     run one after the other, first in order and then in reverse, so a missing barrier
 *     shows as stale data), results compared bit for bit with the C target's on the same
 *     random inputs. Skipped without a C++ compiler (c++ or $CXX).
 * Run from the repository root. TEST_EMIT_CUDA_KEEP=1 keeps the temporary directory;
 * TEST_EMIT_CUDA_FAST=1 skips parts 1's NVRTC compiles and 3 (make asan: see fast_mode);
 * TEST_EMIT_CUDA_ONLY_ISSUE26=1 runs only test_issue26's group. */
#include "frontend/frontend.h"
#include "passes/passes.h"
#include "targets/target.h"
#include "targets/c/emit_c.h"
#include "targets/cuda/arch.h"
#include "targets/cuda/cuda.h"

#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../runtime/c/tl_c.h"

#define CHECK_MAX_REPORTS 40
#include "check.h"
#include "kernels.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* Each case's inputs come from its own name (FNV-1a), so adding a case changes no other
 * case's data. */
static void rng_seed(const char *name) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *name; name++) h = (h ^ (unsigned char)*name) * 0x100000001b3ull;
    rng_state = h;
}

static uint64_t rng(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static char tmpdir[256];

/* ==== compiling a program for CUDA ======================================================= */
/* The architecture the lowering targets (Options.arch): sm_80 (mma.sync; the source
 * compiles for sm_80 and sm_90a) or sm_90a (wgmma; compiles for sm_90a only); and the
 * other settings of every compile (lowering switches). */
static const char *lower_arch = "sm_80";
static Options settings;
typedef struct Compiled {
    Ctx ctx;
    Func *f;
    char *src;   /* generated CUDA */
    char *error; /* user error text, or NULL */
} Compiled;

static Source *make_source(Ctx *ctx, const char *name, const char *text) {
    Source *s = NEW(&ctx->arena, Source);
    s->name = arena_strdup(&ctx->arena, name);
    s->text = arena_strdup(&ctx->arena, text);
    s->len = strlen(text);
    return s;
}

static char *read_text(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    rewind(fp);
    char *s = calloc((size_t)n + 1, 1);
    if (fread(s, 1, (size_t)n, fp) != (size_t)n) n = 0;
    fclose(fp);
    return s;
}

/* Elaborates text and lowers it with the CUDA pipeline (emit too when emit is set). */
static Compiled *compile_cuda(const char *name, const char *text, bool emit) {
    Compiled *c = calloc(1, sizeof *c);
    jmp_buf jb;
    if (CTX_TRY(&c->ctx, &jb)) {
        c->error = strdup(c->ctx.err.buf ? c->ctx.err.buf : "(empty)");
        c->f = NULL;
        return c;
    }
    c->ctx.opts = settings;
    snprintf(c->ctx.opts.arch, sizeof c->ctx.opts.arch, "%s", lower_arch);
    Program *p = elaborate(&c->ctx, make_source(&c->ctx, name, text), NULL, NULL, 0, NULL, 0);
    cuda_lower(&c->ctx, p->func);
    c->f = p->func;
    if (emit) c->src = cuda_emit(&c->ctx, p->func);
    c->ctx.on_error = NULL;
    return c;
}

static void compiled_free(Compiled *c) {
    free(c->error);
    sb_free(&c->ctx.err);
    arena_free(&c->ctx.arena);
    free(c);
}

/* ==== 1. NVRTC ============================================================================ */
typedef int (*NvCreate)(void **, const char *, const char *, int, const char *const *,
                        const char *const *);
typedef int (*NvCompile)(void *, int, const char *const *);
typedef int (*NvLogSize)(void *, size_t *);
typedef int (*NvLog)(void *, char *);
typedef int (*NvDestroy)(void **);

static struct {
    void *lib;
    NvCreate create;
    NvCompile compile;
    NvLogSize log_size;
    NvLog log;
    NvDestroy destroy;
} nv;

static bool nvrtc_open(void) {
    static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
                                        "/usr/local/cuda/lib64/libnvrtc.so"};
    if (nv.lib) return true;
    for (size_t i = 0; i < sizeof names / sizeof *names && !nv.lib; i++)
        nv.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!nv.lib) return false;
    nv.create = (NvCreate)dlsym(nv.lib, "nvrtcCreateProgram");
    nv.compile = (NvCompile)dlsym(nv.lib, "nvrtcCompileProgram");
    nv.log_size = (NvLogSize)dlsym(nv.lib, "nvrtcGetProgramLogSize");
    nv.log = (NvLog)dlsym(nv.lib, "nvrtcGetProgramLog");
    nv.destroy = (NvDestroy)dlsym(nv.lib, "nvrtcDestroyProgram");
    return nv.create && nv.compile && nv.log_size && nv.log && nv.destroy;
}

/* Compiles src for arch with no include path; 0 on success, else the log in *log. */
static int nvrtc_build(const char *src, const char *arch, char **log) {
    void *prog = NULL;
    char opt_arch[64];
    snprintf(opt_arch, sizeof opt_arch, "--gpu-architecture=%s", arch);
    const char *opts[] = {opt_arch, "--fmad=false", "--std=c++17"};
    *log = NULL;
    if (nv.create(&prog, src, "kernel.cu", 0, NULL, NULL)) return -1;
    int rc = nv.compile(prog, 3, opts);
    size_t n = 0;
    nv.log_size(prog, &n);
    char *l = calloc(n + 1, 1);
    nv.log(prog, l);
    /* the generated code compiles clean, and ptxas keeps its wgmmas asynchronous (C7515:
     * "Potential Performance Loss: wgmma.mma_async instructions are serialized") */
    if (rc || strstr(l, "warning") || strstr(l, "Performance Loss")) *log = l;
    else free(l);
    nv.destroy(&prog);
    return rc || *log ? 1 : 0;
}

static bool have_nvcc;

/* Without NVRTC: nvcc -cubin (which adds its own headers, so it checks less). */
static int nvcc_build(const char *src, const char *arch, char **log) {
    char cu[512], cmd[1200], lp[512];
    snprintf(cu, sizeof cu, "%s/nvcc_check.cu", tmpdir);
    snprintf(lp, sizeof lp, "%s/nvcc.log", tmpdir);
    FILE *fp = fopen(cu, "w");
    if (!fp) return -1;
    fputs(src, fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "nvcc -arch=%s -cubin --fmad=false -o /dev/null %s >%s 2>&1", arch,
             cu, lp);
    int rc = system(cmd);
    *log = rc ? read_text(lp) : NULL;
    return rc;
}

/* TEST_EMIT_CUDA_FAST=1 (make asan): lower and emit everything, but no NVRTC compiles and
 * no simulation: both run code outside tilec, which the sanitizers do not instrument, and
 * take minutes under ASan. */
static bool fast_mode(void) {
    const char *f = getenv("TEST_EMIT_CUDA_FAST");
    return f && *f && strcmp(f, "0") != 0;
}

static void check_nvrtc(const char *what, const char *src) {
    if ((!nv.lib && !have_nvcc) || fast_mode()) return;
    static const char *const archs[] = {"sm_80", "sm_90a"};
    for (int i = strcmp(lower_arch, "sm_80") ? 1 : 0; i < 2; i++) {
        char *log;
        int rc = nv.lib ? nvrtc_build(src, archs[i], &log) : nvcc_build(src, archs[i], &log);
        CHECK(rc == 0, "%s: NVRTC %s: %s", what, archs[i], log ? log : "(failed)");
        if (rc && getenv("TEST_EMIT_CUDA_DUMP")) fprintf(stderr, "%s\n", src);
        free(log);
    }
}

/* ==== 2. barrier placement ================================================================== */
typedef struct SyncCount {
    int total, in_dist;
} SyncCount;

static void count_syncs(const Stmt *s, int dist, SyncCount *c) {
    if (!s) return;
    switch (s->kind) {
    case STMT_SYNC:
        c->total++;
        c->in_dist += dist > 0;
        break;
    case STMT_SEQ:
        for (int i = 0; i < s->u.seq.len; i++) count_syncs(s->u.seq.data[i], dist, c);
        break;
    case STMT_FOR: count_syncs(s->u.for_.body, dist + (s->u.for_.kind == LOOP_PARALLEL), c); break;
    case STMT_WHILE: count_syncs(s->u.while_.body, dist, c); break;
    case STMT_IF:
        count_syncs(s->u.if_.then, dist, c);
        count_syncs(s->u.if_.orelse, dist, c);
        break;
    case STMT_KERNEL: count_syncs(s->u.kernel.body, dist, c); break;
    default: break;
    }
}

/* In the source: no __syncthreads() inside a block opened by a line that mentions
 * tl_tid (a distributed loop, a thread-0-only block, a T.ws region), except the whole
 * warp groups' copies of a block's code (pass_split_warp_groups: every thread runs
 * one, and each reaches the barrier). Returns the offending count. */
static int text_syncs_in_thread_blocks(const char *src) {
    bool stack[256];
    int depth = 0, bad = 0;
    const char *k = strstr(src, "// ---- kernels");
    for (const char *p = k ? k : src; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[4096];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        bool thread = strstr(line, "tl_tid") && !strstr(line, "const int tl_tid") &&
                      !strstr(line, "{  /* threads ");
        if (strstr(line, "__syncthreads")) {
            for (int i = 0; i < depth; i++) bad += stack[i];
        }
        for (char *q = line; *q; q++) {
            if (*q == '{' && depth < 256) stack[depth++] = thread;
            else if (*q == '}' && depth > 0) depth--;
        }
        p = e ? e + 1 : p + n;
    }
    return bad;
}

static void check_syncs(const char *what, const Compiled *c) {
    SyncCount n = {0};
    count_syncs(c->f->body, 0, &n);
    CHECK(n.in_dist == 0, "%s: %d barriers inside distributed loops", what, n.in_dist);
    if (c->src)
        CHECK(text_syncs_in_thread_blocks(c->src) == 0, "%s: __syncthreads under tl_tid", what);
}

static int syncs_of(const Compiled *c) {
    SyncCount n = {0};
    if (c->f) count_syncs(c->f->body, 0, &n);
    return n.total;
}

/* ==== 3. simulation on the host ============================================================ */
/* The harness: CUDA built-ins for host C++, threads as ucontext coroutines. Every case's
 * generated file is included with its kernels renamed (its prelude, tl_c.h and tl_cuda.h,
 * is skipped by the include guards after the first). TL_CUDA_SIM makes tl_c.h's software
 * f16/bf16 conversions stand in for tl_cuda.h's PTX ones. */
static const char sim_prelude[] =
    "#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
    "#include <string.h>\n#include <ucontext.h>\n"
    "#define TL_CUDA_SIM 1\n#define __global__\n#define __device__\n#define __host__\n"
    "#define __shared__\n#define __forceinline__ inline\n#define __launch_bounds__(...)\n"
    "#define __align__(n) __attribute__((aligned(n)))\n#define __cluster_dims__(...)\n"
    "struct SimDim { unsigned x, y, z; };\n"
    "static SimDim threadIdx, blockIdx, blockDim, gridDim;\n"
    "struct uint4 { unsigned x, y, z, w; };\nstruct uint2 { unsigned x, y; };\n"
    "static inline uint2 make_uint2(unsigned a, unsigned b) { uint2 r = {a, b}; return r; }\n"
    "static inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) {\n"
    "    uint4 r = {a, b, c, d}; return r; }\n"
    "static inline unsigned __float_as_uint(float f) {\n"
    "    unsigned u; memcpy(&u, &f, 4); return u; }\n"
    "static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }\n"
    "static inline float __int_as_float(int u) { float f; memcpy(&f, &u, 4); return f; }\n"
    "static inline double __longlong_as_double(long long u) {\n"
    "    double f; memcpy(&f, &u, 8); return f; }\n"
    "template <class T, class U> static T atomicAdd(T *p, U v) {\n"
    "    T o = *p; *p = (T)(o + (T)v); return o; }\n"
    "template <class T, class U> static T atomicMax(T *p, U v) {\n"
    "    T o = *p; if ((T)v > o) *p = (T)v; return o; }\n"
    "template <class T, class U> static T atomicMin(T *p, U v) {\n"
    "    T o = *p; if ((T)v < o) *p = (T)v; return o; }\n"
    "template <class T, class U> static T atomicOr(T *p, U v) {\n"
    "    T o = *p; *p = (T)(o | (T)v); return o; }\n"
    "template <class T, class U, class V> static T atomicCAS(T *p, U c, V v) {\n"
    "    T o = *p; if (o == (T)c) *p = (T)v; return o; }\n"
    "#define __grid_constant__\n"
    "void __syncthreads(void);\nvoid __trap(void);\nint sim_thread(void);\n"
    "int sim_early_copies(void);\nvoid sim_bar(int id, int n);\nvoid sim_bar_arrive(int id, int "
    "n);\n"
    "void sim_yield(void);\n"
    "void sim_progress(void);\nvoid sim_warp_sync(void);\n"
    "template <class T> static T __shfl_xor_sync(unsigned, T v, int m) {\n"
    "    static T slot[2048]; int t = sim_thread(); slot[t] = v; sim_warp_sync();\n"
    "    T r = slot[t ^ m]; sim_warp_sync(); return r; }\n"
    "typedef void (*SimBody)(void **, const int64_t *, void **);\n";

static const char sim_runner[] =
    "static ucontext_t sim_sched, *sim_ctx;\n"
    "static char **sim_stack;\n"
    "/* 0 ready, 1 at a barrier, 2 done, 3 trapped, 4 spinning (an mbarrier wait) */\n"
    "static unsigned char *sim_state;\n"
    "static int *sim_waits; /* the barrier a thread waits at */\n"
    "/* per block of the cluster: named barriers 0..15, then one per warp; then the\n"
    " * cluster's barrier */\n"
    "enum { SIM_CLUSTER = 8, SIM_BLOCK_BARS = 16 + 32, SIM_BARS = SIM_CLUSTER * SIM_BLOCK_BARS + 1 "
    "};\n"
    "static int sim_arrived[SIM_BARS];\n"
    "alignas(1024) static unsigned char sim_smem_of[SIM_CLUSTER][1 << 18];\n"
    "static int sim_cap, sim_cur, sim_n, sim_nc; /* threads of a block, blocks of the cluster */\n"
    "static unsigned sim_bx0; /* blockIdx.x of the cluster's first block */\n"
    "static long sim_moves; /* barrier and mbarrier events: progress */\n"
    "static SimBody sim_body;\n"
    "static void **sim_a, **sim_g;\n"
    "static const int64_t *sim_s;\n"
    "static void sim_entry(void) { sim_body(sim_a, sim_s, sim_g); sim_state[sim_cur] = 2; }\n"
    "void sim_progress(void) { sim_moves++; }\n"
    "unsigned sim_rank(void) { return (unsigned)(sim_cur / sim_n); }\n"
    "unsigned char *sim_smem(unsigned rank) { return sim_smem_of[rank]; }\n"
    "/* An arrival at barrier id of n threads; whether it was the last (which releases\n"
    " * the others). */\n"
    "static int sim_arrive_at(int id, int n) {\n"
    "    sim_moves++;\n"
    "    if (++sim_arrived[id] < n) return 0;\n"
    "    sim_arrived[id] = 0;\n"
    "    for (int t = 0; t < sim_n * sim_nc; t++)\n"
    "        if (sim_state[t] == 1 && sim_waits[t] == id) sim_state[t] = 0;\n"
    "    return 1;\n"
    "}\n"
    "static void sim_wait_at(int id, int n) {\n"
    "    if (sim_arrive_at(id, n)) return;\n"
    "    sim_state[sim_cur] = 1, sim_waits[sim_cur] = id;\n"
    "    swapcontext(&sim_ctx[sim_cur], &sim_sched);\n"
    "}\n"
    "void sim_bar(int id, int n) { sim_wait_at((int)sim_rank() * SIM_BLOCK_BARS + id, n); }\n"
    "/* bar.arrive: an arrival that does not wait */\n"
    "void sim_bar_arrive(int id, int n) { sim_arrive_at((int)sim_rank() * SIM_BLOCK_BARS + id, n); "
    "}\n"
    "void sim_cluster_bar(void) { sim_wait_at(SIM_BARS - 1, sim_n * sim_nc); }\n"
    "/* T.cluster_arrive / wait: the phase each thread arrived in, and the cluster's */\n"
    "static unsigned sim_cl_phase, sim_cl_mine[TL_SIM_THREADS];\n"
    "static int sim_cl_arrived;\n"
    "void sim_cluster_arrive(void) {\n"
    "    sim_moves++, sim_cl_mine[sim_cur] = sim_cl_phase;\n"
    "    if (++sim_cl_arrived == sim_n * sim_nc) sim_cl_arrived = 0, sim_cl_phase++;\n"
    "}\n"
    "void sim_cluster_wait(void) {\n"
    "    while (sim_cl_phase == sim_cl_mine[sim_cur]) sim_yield();\n"
    "}\n"
    "/* T.sync_grid: the launch runs the whole grid as one cluster */\n"
    "void sim_grid_bar(void) {\n"
    "    if ((unsigned)sim_nc != gridDim.x * gridDim.y * gridDim.z) __trap();\n"
    "    sim_cluster_bar();\n"
    "}\n"
    "void __syncthreads(void) { sim_bar(0, sim_n); }\n"
    "void sim_warp_sync(void) {\n"
    "    int w = sim_cur % sim_n / 32, n = sim_n - 32 * w;\n"
    "    sim_bar(16 + w, n < 32 ? n : 32);\n"
    "}\n"
    "void sim_yield(void) {\n"
    "    sim_state[sim_cur] = 4; swapcontext(&sim_ctx[sim_cur], &sim_sched); }\n"
    "int sim_thread(void) { return sim_cur; }\n"
    "static int sim_reverse;\n"
    "int sim_early_copies(void) { return sim_reverse; }\n"
    "void __trap(void) {\n"
    "    sim_state[sim_cur] = 3; swapcontext(&sim_ctx[sim_cur], &sim_sched); abort(); }\n"
    "enum { SIM_STACK = 1 << 17 };\n"
    "/* Runs the threads of a cluster of nc blocks of n round after round until all end; a\n"
    " * round in which no thread moves (every one waits at a barrier or spins on an\n"
    " * mbarrier) is a deadlock. */\n"
    "static int sim_block(int n, int nc, int reverse, char *msg, int len) {\n"
    "    int all = n * nc;\n"
    "    sim_reverse = reverse, sim_n = n, sim_nc = nc, tl_sim_nbox = 0;\n"
    "    sim_cl_phase = 0, sim_cl_arrived = 0;\n"
    "    memset(sim_arrived, 0, sizeof sim_arrived);\n"
    "    memset(tl_sim_proxy_fenced, 0, sizeof tl_sim_proxy_fenced);\n"
    "    for (int t = 0; t < all; t++) {\n"
    "        tl_sim_queues[t].ngemm = tl_sim_queues[t].issued = 0;\n"
    "        getcontext(&sim_ctx[t]);\n"
    "        sim_ctx[t].uc_stack.ss_sp = sim_stack[t];\n"
    "        sim_ctx[t].uc_stack.ss_size = SIM_STACK;\n"
    "        sim_ctx[t].uc_link = &sim_sched;\n"
    "        makecontext(&sim_ctx[t], sim_entry, 0);\n"
    "        sim_state[t] = 0;\n"
    "    }\n"
    "    for (;;) {\n"
    "        long before = sim_moves;\n"
    "        int ran = 0;\n"
    "        for (int o = 0; o < all; o++) {\n"
    "            int t = reverse ? all - 1 - o : o, l = t % n;\n"
    "            if (sim_state[t] == 1 || sim_state[t] >= 2 && sim_state[t] != 4) continue;\n"
    "            ran += sim_state[t] == 0;\n"
    "            sim_state[t] = 0, sim_cur = t;\n"
    "            threadIdx.x = l % blockDim.x;\n"
    "            threadIdx.y = l / blockDim.x % blockDim.y;\n"
    "            threadIdx.z = l / (blockDim.x * blockDim.y);\n"
    "            blockIdx.x = sim_bx0 + (unsigned)(t / n);\n"
    "            swapcontext(&sim_sched, &sim_ctx[t]);\n"
    "            if (sim_state[t] == 3) {\n"
    "                snprintf(msg, len, \"__trap in thread %d of block %d\", l, t / n);\n"
    "                return 1;\n"
    "            }\n"
    "        }\n"
    "        int done = 0;\n"
    "        for (int t = 0; t < all; t++) done += sim_state[t] == 2;\n"
    "        if (done == all) return 0;\n"
    "        if (!ran && sim_moves == before) {\n"
    "            if (done)\n"
    "                snprintf(msg, len, \"%d threads ended while %d wait at a barrier\", done,\n"
    "                         all - done);\n"
    "            else snprintf(msg, len, \"deadlock: %d threads wait at barriers or mbarriers\", "
    "all);\n"
    "            return 1;\n"
    "        }\n"
    "    }\n"
    "}\n"
    "/* The grid, cluster after cluster (cluster blocks along x run at once), from the\n"
    " * last along x when down (split-K: a block waits only for later ones). */\n"
    "extern \"C\" int sim_launch(int c, int k, void **a, const int64_t *s, void **g,\n"
    "                           const int64_t *grid, const int *block, int cluster,\n"
    "                           int down, int reverse, char *msg, int len) {\n"
    "    int n = block[0] * block[1] * block[2], all = n * cluster;\n"
    "    if (cluster < 1 || cluster > SIM_CLUSTER || grid[0] % cluster) {\n"
    "        snprintf(msg, len, \"clusters of %d blocks along x of %lld\", cluster,\n"
    "                 (long long)grid[0]);\n"
    "        return 1;\n"
    "    }\n"
    "    if (all > sim_cap) {\n"
    "        sim_ctx = (ucontext_t *)realloc(sim_ctx, sizeof(ucontext_t) * all);\n"
    "        sim_stack = (char **)realloc(sim_stack, sizeof(char *) * all);\n"
    "        sim_state = (unsigned char *)realloc(sim_state, all);\n"
    "        sim_waits = (int *)realloc(sim_waits, sizeof(int) * all);\n"
    "        for (int t = sim_cap; t < all; t++) sim_stack[t] = (char *)malloc(SIM_STACK);\n"
    "        sim_cap = all;\n"
    "    }\n"
    "    sim_body = sim_cases[c][k], sim_a = a, sim_s = s, sim_g = g;\n"
    "    gridDim.x = (unsigned)grid[0], gridDim.y = (unsigned)grid[1];\n"
    "    gridDim.z = (unsigned)grid[2];\n"
    "    blockDim.x = block[0], blockDim.y = block[1], blockDim.z = block[2];\n"
    "    for (unsigned z = 0; z < gridDim.z; z++)\n"
    "        for (unsigned y = 0; y < gridDim.y; y++)\n"
    "            for (unsigned i = 0; i < gridDim.x; i += (unsigned)cluster) {\n"
    "                unsigned x = down ? gridDim.x - (unsigned)cluster - i : i;\n"
    "                sim_bx0 = x, blockIdx.y = y, blockIdx.z = z;\n"
    "                if (sim_block(n, cluster, reverse, msg, len)) return 1;\n"
    "            }\n"
    "    return 0;\n"
    "}\n"
    "extern \"C\" void sim_release(void) {\n"
    "    for (int t = 0; t < sim_cap; t++) free(sim_stack[t]);\n"
    "    free(sim_stack), free(sim_ctx), free(sim_state), free(sim_waits);\n"
    "    sim_cap = 0;\n"
    "}\n";

typedef struct SimCase {
    const char *name;
    char *text;
    const int64_t *syms; /* values of f->syms (dynamic shapes), or NULL */
    Compiled *cu;
} SimCase;

/* Wrong programs whose simulation must fail, with that message (wrong_count_cases). */
static const char *const sim_fails[][2] = {{"wrong_count0", "deadlock"},
                                           {"wrong_count1", "deadlock"},
                                           {"wrong_count2", "deadlock"}};

static const char *sim_must_fail(const char *name) {
    for (size_t i = 0; i < sizeof sim_fails / sizeof *sim_fails; i++)
        if (!strcmp(name, sim_fails[i][0])) return sim_fails[i][1];
    return NULL;
}

static const char *storage_type(DType t) {
    switch (t) {
    case DT_INT8: return "int8_t";
    case DT_INT16: return "int16_t";
    case DT_INT32: return "int32_t";
    case DT_INT64: return "int64_t";
    case DT_UINT16:
    case DT_FLOAT16:
    case DT_BFLOAT16: return "uint16_t";
    case DT_UINT32: return "uint32_t";
    case DT_UINT64: return "uint64_t";
    case DT_FLOAT32: return "float";
    case DT_FLOAT64: return "double";
    default: return "uint8_t";
    }
}

/* Writes one shim per kernel of case c: unpacks (args, syms, globals) into the call. */
static void sim_shims(FILE *fp, int c, const Func *f, const CudaPlan *plan) {
    for (int k = 0; k < plan->nkernels; k++) {
        fprintf(fp, "static void sim_%d_call%d(void **a, const int64_t *s, void **g) {\n", c, k);
        fprintf(fp, "    (void)a; (void)s; (void)g;\n    sim_%d_k%d(", c, k);
        int n = 0;
        for (int i = 0; i < f->params.len; i++, n++) {
            const Param *p = &f->params.data[i];
            if (p->buf) fprintf(fp, "%s(%s *)a[%d]", n ? ", " : "", storage_type(p->buf->dtype), i);
            else
                fprintf(fp, "%s*(const %s *)a[%d]", n ? ", " : "",
                        dtype_is_float(p->scalar->dtype) ? "double" : "int64_t", i);
        }
        for (int i = 0; i < f->syms.len; i++, n++) fprintf(fp, "%ss[%d]", n ? ", " : "", i);
        for (int i = 0; i < plan->nglobals; i++, n++)
            fprintf(fp, "%s(%s *)g[%d]", n ? ", " : "", storage_type(plan->globals[i]->dtype), i);
        for (int t = 0; t < plan->kernels[k].ntmaps; t++, n++) /* after the globals (run_sim) */
            fprintf(fp, "%s*(const TlTensorMap *)g[%d]", n ? ", " : "", plan->nglobals + t);
        if (plan->kernels[k].sk_bytes) /* the split-K workspace, after the maps */
            fprintf(fp, "%s(unsigned char *)g[%d]", n++ ? ", " : "",
                    plan->nglobals + plan->kernels[k].ntmaps);
        fprintf(fp, ");\n}\n");
    }
    fprintf(fp, "static SimBody sim_case%d[] = {", c);
    for (int k = 0; k < plan->nkernels; k++) fprintf(fp, "%ssim_%d_call%d", k ? ", " : "", c, k);
    fprintf(fp, "%s};\n", plan->nkernels ? "" : "0");
}

static const char *cxx_compiler(void) {
    const char *cxx = getenv("CXX");
    return cxx && *cxx ? cxx : "c++";
}

/* Builds every case into one shared object; NULL when no C++ compiler works. */
static void *sim_build(SimCase *cases, int n) {
    char path[512];
    snprintf(path, sizeof path, "%s/sim.cpp", tmpdir);
    FILE *fp = fopen(path, "w");
    if (!fp) return NULL;
    fputs(sim_prelude, fp);
    for (int c = 0; c < n; c++) {
        const Func *f = cases[c].cu->f;
        CudaPlan plan = cuda_plan(&cases[c].cu->ctx.arena, f);
        for (int k = 0; k < plan.nkernels; k++)
            fprintf(fp, "#define tilec_kernel_%d sim_%d_k%d\n", k, c, k);
        fprintf(fp, "#include \"case%d.cu\"\n", c);
        for (int k = 0; k < plan.nkernels; k++) fprintf(fp, "#undef tilec_kernel_%d\n", k);
        sim_shims(fp, c, f, &plan);
        char cu[512];
        snprintf(cu, sizeof cu, "%s/case%d.cu", tmpdir, c);
        FILE *cf = fopen(cu, "w");
        if (cf) fputs(cases[c].cu->src, cf), fclose(cf);
    }
    fprintf(fp, "static SimBody *sim_cases[] = {");
    for (int c = 0; c < n; c++) fprintf(fp, "%ssim_case%d", c ? ", " : "", c);
    fprintf(fp, "};\n%s", sim_runner);
    fclose(fp);
    char cmd[2048], so[512];
    static int builds; /* a name per build: dlopen returns a loaded library of the same path */
    snprintf(so, sizeof so, "%s/sim%d.so", tmpdir, builds++);
    snprintf(cmd, sizeof cmd,
             "%s -std=c++17 -O1 -w -fPIC -shared -ffp-contract=off "
             "-fno-strict-aliasing -o %s %s 2>%s/sim.log",
             cxx_compiler(), so, path, tmpdir);
    if (system(cmd) != 0) {
        snprintf(cmd, sizeof cmd, "%s --version >/dev/null 2>&1", cxx_compiler());
        if (system(cmd) != 0) return NULL;
        snprintf(path, sizeof path, "%s/sim.log", tmpdir);
        char *log = read_text(path);
        CHECK(0, "the simulation harness does not compile:\n%.4000s", log ? log : "");
        free(log);
        return NULL;
    }
    void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    CHECK(dl != NULL, "dlopen sim.so: %s", dlerror());
    return dl;
}

typedef int (*SimLaunch)(int, int, void **, const int64_t *, void **, const int64_t *, const int *,
                         int, int, int, char *, int);

/* ---- buffers of one case ------------------------------------------------------------------ */
typedef struct Bufs {
    int n;
    void *data[32];
    size_t bytes[32], elems[32];
    DType dt[32];
    union {
        int64_t i;
        double f;
    } scalar[32];
} Bufs;

/* Elements a buffer spans: the shape's product, or 1 + sum((shape - 1) * stride). */
static int64_t buf_elems(const Func *f, const Buffer *b, const int64_t *syms) {
    int64_t n = 1, v, st, span = 1;
    for (int d = 0; d < b->ndim; d++) {
        if (cuda_eval_int(f, b->shape[d], syms, &v)) return -1;
        n *= v > 0 ? v : 0;
        if (b->strides && cuda_eval_int(f, b->strides[d], syms, &st)) return -1;
        if (b->strides) span += (v - 1) * st;
    }
    return b->strides && n ? span : n;
}

static void fill_random(void *p, DType t, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double r = (double)(rng() % 4096) / 1024.0 - 2.0; /* [-2, 2) in steps of 1/1024 */
        int64_t k = (int64_t)(rng() % 16) - 8;
        switch (t) {
        case DT_FLOAT32: ((float *)p)[i] = (float)r; break;
        case DT_FLOAT64: ((double *)p)[i] = r; break;
        case DT_FLOAT16: ((uint16_t *)p)[i] = tl_f32_to_f16((float)r); break;
        case DT_BFLOAT16: ((uint16_t *)p)[i] = tl_f32_to_bf16((float)r); break;
        case DT_FLOAT8_E4M3: ((uint8_t *)p)[i] = tl_f32_to_e4m3((float)r); break;
        case DT_FLOAT8_E5M2: ((uint8_t *)p)[i] = tl_f32_to_e5m2((float)r); break;
        case DT_BOOL: ((uint8_t *)p)[i] = (uint8_t)(k & 1); break;
        default: memcpy((char *)p + i * (size_t)dtype_bytes(t), &k, (size_t)dtype_bytes(t));
        }
    }
}

static bool bufs_make(Bufs *b, const Func *f, const int64_t *syms) {
    memset(b, 0, sizeof *b);
    b->n = f->params.len;
    for (int i = 0; i < b->n && i < 32; i++) {
        const Param *p = &f->params.data[i];
        if (!p->buf) { /* scalars: 1.5 or 3 */
            b->data[i] = &b->scalar[i];
            if (dtype_is_float(p->scalar->dtype)) b->scalar[i].f = 1.5;
            else b->scalar[i].i = 3;
            continue;
        }
        int64_t n = buf_elems(f, p->buf, syms);
        if (n < 0) return false;
        b->dt[i] = p->buf->dtype;
        b->elems[i] = (size_t)n;
        b->bytes[i] = (size_t)n * (size_t)dtype_bytes(p->buf->dtype);
        b->data[i] = calloc(b->bytes[i] + 16, 1);
        fill_random(b->data[i], p->buf->dtype, (size_t)n);
    }
    return true;
}

static void bufs_copy(Bufs *dst, const Bufs *src) {
    *dst = *src;
    for (int i = 0; i < src->n; i++) {
        if (!src->bytes[i] && src->data[i] == &src->scalar[i]) {
            dst->data[i] = &dst->scalar[i];
            continue;
        }
        dst->data[i] = malloc(src->bytes[i] + 16);
        memcpy(dst->data[i], src->data[i], src->bytes[i] + 16);
    }
}

/* The addresses of raw-pointer kernels (tests/exec/kernels/ptr_*.py), into b's own
 * buffers: a T.ptr parameter named X_ptr gets the address of parameter X; an int64
 * table named X_ptrs of G entries gets those of G equal chunks of X. */
static bool is_ptr_table(const Param *p) {
    size_t len = strlen(p->name);
    return p->buf && p->buf->dtype == DT_INT64 && len > 5 && !strcmp(p->name + len - 5, "_ptrs");
}

static void bufs_point(Bufs *b, const Func *f) {
    for (int i = 0; i < b->n; i++) {
        const Param *p = &f->params.data[i];
        size_t len = strlen(p->name);
        bool table = is_ptr_table(p);
        if (!table && !(p->pointer && len > 4 && !strcmp(p->name + len - 4, "_ptr"))) continue;
        for (int j = 0; j < b->n; j++) {
            const char *x = f->params.data[j].name;
            if (strlen(x) != len - (table ? 5 : 4) || strncmp(x, p->name, strlen(x))) continue;
            if (!table) b->scalar[i].i = (int64_t)(intptr_t)b->data[j];
            for (size_t g = 0; table && g < b->elems[i]; g++)
                ((int64_t *)b->data[i])[g] = (int64_t)(intptr_t)((char *)b->data[j] +
                                                                 g * (b->bytes[j] / b->elems[i]));
        }
    }
}

static void bufs_free(Bufs *b) {
    for (int i = 0; i < b->n; i++)
        if (b->data[i] != &b->scalar[i]) free(b->data[i]);
}

static double elem_value(const void *p, DType t, size_t i) {
    switch (t) {
    case DT_FLOAT32: return ((const float *)p)[i];
    case DT_FLOAT64: return ((const double *)p)[i];
    case DT_FLOAT16: return tl_f16_to_f32(((const uint16_t *)p)[i]);
    case DT_BFLOAT16: return tl_bf16_to_f32(((const uint16_t *)p)[i]);
    case DT_FLOAT8_E4M3: return tl_e4m3_to_f32(((const uint8_t *)p)[i]);
    case DT_FLOAT8_E5M2: return tl_e5m2_to_f32(((const uint8_t *)p)[i]);
    default: {
        int64_t v = 0;
        memcpy(&v, (const char *)p + i * (size_t)dtype_bytes(t), (size_t)dtype_bytes(t));
        return (double)v;
    }
    }
}

/* Relative tolerance of a float dtype: reductions over register fragments combine in a
 * tree (per thread, then across threads), the C target in order, so float results may
 * differ by rounding; a missing barrier gives stale values, far outside these. */
static double float_tolerance(DType t) {
    switch (t) {
    case DT_FLOAT64: return 1e-12;
    case DT_FLOAT32: return 1e-5;
    case DT_FLOAT16: return 1.0 / 512;
    case DT_BFLOAT16: return 1.0 / 64;
    default: return 0.25; /* fp8 */
    }
}

/* Every buffer equal (floats by value up to float_tolerance of the larger of the two
 * values and a thousandth of the buffer's largest one: a sum that cancels to near zero
 * keeps the rounding of its terms, which split-K adds in another order; NaN equal to
 * NaN; others bit for bit). */
static void bufs_compare(const char *what, const Func *f, const Bufs *got, const Bufs *ref) {
    for (int i = 0; i < got->n; i++) {
        if (!got->bytes[i] || is_ptr_table(&f->params.data[i])) continue; /* own addresses */
        DType t = got->dt[i];
        size_t bad = 0, first = 0;
        double peak = 1.0;
        for (size_t e = 0; dtype_is_float(t) && e < got->elems[i]; e++) {
            double r = fabs(elem_value(ref->data[i], t, e));
            if (r > peak && isfinite(r)) peak = r;
        }
        for (size_t e = 0; e < got->elems[i]; e++) {
            double g = elem_value(got->data[i], t, e), r = elem_value(ref->data[i], t, e);
            bool ok = dtype_is_float(t)
                          ? (g == r || (isnan(g) && isnan(r)) ||
                             fabs(g - r) <=
                                 float_tolerance(t) * fmax(fmax(fabs(g), fabs(r)), 1e-3 * peak))
                          : !memcmp((const char *)got->data[i] + e * (size_t)dtype_bytes(t),
                                    (const char *)ref->data[i] + e * (size_t)dtype_bytes(t),
                                    (size_t)dtype_bytes(t));
            if (!ok && !bad++) first = e;
        }
        CHECK(bad == 0,
              "%s: %s differs from the C target in %zu of %zu elements (first [%zu]: "
              "%g, C %g)",
              what, f->params.data[i].name, bad, got->elems[i], first,
              elem_value(got->data[i], t, first), elem_value(ref->data[i], t, first));
    }
}

/* The C target on the same program: lowered, built, loaded and run on bufs. */
static bool run_c_target(const SimCase *sc, Bufs *b) {
    Ctx ctx = {0};
    jmp_buf jb;
    volatile bool ok = false;
    void *volatile m = NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/ref_%s.so", tmpdir, sc->name);
    if (CTX_TRY(&ctx, &jb)) {
        CHECK(0, "%s: C target: %s", sc->name, ctx.err.buf);
    } else {
        Source *file = make_source(&ctx, sc->name, sc->text);
        Program *p = elaborate(&ctx, file, NULL, NULL, 0, NULL, 0);
        target_c.lower(&ctx, p->func);
        char *src = target_c.emit(&ctx, p->func);
        ctx.on_error = NULL;
        StrBuf log = {0};
        if (target_c.build(src, &ctx.opts, path, &log) == 0)
            m = target_c.load(path, &ctx.opts, &log);
        CHECK(m != NULL, "%s: C target build: %s", sc->name, log.buf);
        if (m) ok = target_c.launch(m, b->data, sc->syms, NULL, &log) == 0;
        CHECK(!m || ok, "%s: C target run: %s", sc->name, log.buf);
        if (m) target_c.unload(m);
        sb_free(&log);
    }
    ctx.on_error = NULL;
    sb_free(&ctx.err);
    arena_free(&ctx.arena);
    unlink(path);
    return ok;
}

/* TlTensorMap of tl_cuda.h under TL_CUDA_SIM: the geometry the simulated TMA reads. */
typedef struct SimTmap {
    const unsigned char *base;
    int rank, elem_bytes, swizzle;
    long long dims[5], strides[5];
    int box[5];
} SimTmap;

/* SIM_RESIDENT: the blocks (or clusters) of a persistent grid in the simulation (3: uneven
 * tile counts). */
enum { SIM_MAX_GLOBALS = 16, SIM_MAX_TMAPS = 16, SIM_RESIDENT = 3 };

/* Kernel k's tensor maps over the case's buffers, after the globals in g. */
static int sim_tmaps(const SimCase *sc, const CudaKernelPlan *k, Bufs *b, SimTmap *maps, void **g,
                     int nglobals) {
    for (int t = 0; t < k->ntmaps && t < SIM_MAX_TMAPS; t++) {
        CudaTmapGeom geo;
        StrBuf err = {0};
        int rc = cuda_tmap_geometry(sc->cu->f, k->tmaps[t], sc->syms, &geo, &err);
        CHECK(rc == 0, "%s: tensor map %d: %s", sc->name, t, err.buf);
        sb_free(&err);
        if (rc) return -1;
        maps[t] =
            (SimTmap){b->data[geo.param], geo.rank, geo.elem_bytes, geo.swizzle, {0}, {0}, {0}};
        for (int i = 0; i < geo.rank; i++) {
            maps[t].dims[i] = (long long)geo.dims[i];
            maps[t].strides[i] = (long long)geo.strides[i];
            maps[t].box[i] = (int)geo.box[i];
        }
        g[nglobals + t] = &maps[t];
    }
    return 0;
}

/* The simulated CUDA launch of every kernel, in order; 0 on success. */
static int run_sim(SimLaunch launch, int c, const SimCase *sc, Bufs *b, int reverse) {
    const Func *f = sc->cu->f;
    CudaPlan plan = cuda_plan(&sc->cu->ctx.arena, f);
    void *globals[SIM_MAX_GLOBALS + SIM_MAX_TMAPS + 1] = {0};
    SimTmap maps[SIM_MAX_TMAPS];
    int rc = 0;
    for (int j = 0; j < plan.nglobals && j < 16; j++) {
        int64_t n = buf_elems(f, plan.globals[j], sc->syms);
        globals[j] = calloc((size_t)(n > 0 ? n : 1), (size_t)dtype_bytes(plan.globals[j]->dtype));
    }
    for (int k = 0; k < plan.nkernels && !rc; k++) {
        int64_t grid[3] = {1, 1, 1};
        for (int d = 0; d < plan.kernels[k].ngrid; d++)
            if (cuda_eval_int(f, plan.kernels[k].grid[d], sc->syms, &grid[d])) rc = -1;
        CHECK(rc == 0, "%s: grid of kernel %d cannot be evaluated", sc->name, k);
        if (plan.kernels[k].folded) /* launched 1-D, as target_cuda.c does */
            grid[0] *= grid[1] * grid[2], grid[1] = grid[2] = 1;
        int cl = plan.kernels[k].cluster;
        if (plan.kernels[k].cluster_dims[0] > 1) cl = plan.kernels[k].cluster_dims[0];
        if (plan.kernels[k].cooperative) /* T.sync_grid: the whole grid at once */
            cl = grid[1] * grid[2] == 1 ? (int)grid[0] : -1;
        if (plan.kernels[k].persistent) { /* SIM_RESIDENT clusters walk the tiles */
            int64_t tiles = grid[0] * grid[1] * grid[2] / cl;
            bool all = tiles >= SIM_RESIDENT || plan.kernels[k].sk_bytes; /* (split-K) */
            grid[0] = cl * (all ? SIM_RESIDENT : tiles), grid[1] = grid[2] = 1;
        }
        if (!rc) rc = sim_tmaps(sc, &plan.kernels[k], b, maps, globals, plan.nglobals);
        void *ws = NULL; /* the split-K workspace (cuda.h), its flags zero */
        if (plan.kernels[k].sk_bytes) {
            ws = calloc(1, (size_t)(4 * CUDA_SK_MAX_BLOCKS + plan.kernels[k].sk_bytes * grid[0]));
            globals[plan.nglobals + plan.kernels[k].ntmaps] = ws;
        }
        char msg[256] = "";
        if (!rc)
            rc = launch(c, k, b->data, sc->syms, globals, grid, plan.kernels[k].block, cl,
                        ws != NULL, reverse, msg, sizeof msg);
        free(ws);
        const char *fails = sim_must_fail(sc->name);
        if (fails)
            CHECK(rc != 0 && strstr(msg, fails),
                  "%s: simulated kernel %d (%s order) must "
                  "fail with '%s', got '%s'",
                  sc->name, k, reverse ? "reverse" : "forward", fails, msg);
        else
            CHECK(rc == 0, "%s: simulated kernel %d (%s order): %s", sc->name, k,
                  reverse ? "reverse" : "forward", msg);
    }
    for (int j = 0; j < plan.nglobals && j < 16; j++) free(globals[j]);
    return rc;
}

static void sim_check(SimCase *cases, int n) {
    void *dl = sim_build(cases, n);
    if (!dl) {
        fprintf(stderr, "test_emit_cuda: no C++ compiler (%s): simulation skipped\n",
                cxx_compiler());
        return;
    }
    SimLaunch launch = (SimLaunch)dlsym(dl, "sim_launch");
    for (int c = 0; c < n && launch; c++) {
        Bufs init, ref, got;
        rng_seed(cases[c].name);
        if (!bufs_make(&init, cases[c].cu->f, cases[c].syms)) {
            CHECK(0, "%s: buffer sizes", cases[c].name);
            continue;
        }
        bufs_copy(&ref, &init);
        bufs_point(&ref, cases[c].cu->f);
        if (run_c_target(&cases[c], &ref)) {
            for (int reverse = 0; reverse < 2; reverse++) {
                bufs_copy(&got, &init);
                bufs_point(&got, cases[c].cu->f);
                char what[128];
                snprintf(what, sizeof what, "%s (%s order)", cases[c].name,
                         reverse ? "reverse" : "forward");
                if (run_sim(launch, c, &cases[c], &got, reverse) == 0)
                    bufs_compare(what, cases[c].cu->f, &got, &ref);
                bufs_free(&got);
            }
        }
        bufs_free(&ref);
        bufs_free(&init);
    }
    void (*release)(void) = (void (*)(void))dlsym(dl, "sim_release");
    if (release) release();
    /* Not dlclose'd: the simulator is not built with the sanitizers, and LeakSanitizer
     * can only match what it allocated (tests/lsan.supp) while the module is mapped. */
}

/* ==== small programs ========================================================================= */
#define HEAD "import tilelang\nimport tilelang.language as T\n\n"

static const int64_t ws_syms[] = {100};
static const int64_t dyn_syms[] = {270, 5};    /* N, S */
static const int64_t mhc_syms[] = {40};        /* num_tokens: a ragged second block */
static const int64_t smla_syms[] = {1, 3, 16}; /* batch, seq_len, seq_len_kv */

static Compiled *check_program(const char *name, const char *text) {
    Compiled *c = compile_cuda(name, text, true);
    CHECK(c->f && !c->error, "%s: %s", name, c->error ? c->error : "");
    if (!c->f) return c;
    check_syncs(name, c);
    check_nvrtc(name, c->src);
    return c;
}

/* A grid sized by an int scalar argument (varlen attention's max_seqlen_q): emitted, and
 * evaluated at launch from the argument (cuda_eval_launch_int), not from the symbols. */
static void test_scalar_grid(void) {
    static const char text[] = "import tilelang.language as T\n\n@T.prim_func\n"
                               "def k(A: T.Tensor((4096,), \"float32\"), max_len: T.int32):\n"
                               "    with T.Kernel(T.ceildiv(max_len, 64), threads=64) as bx:\n"
                               "        for i in T.Parallel(64):\n"
                               "            if bx * 64 + i < max_len:\n"
                               "                A[bx * 64 + i] = A[bx * 64 + i] + 1.0\n";
    Compiled *c = check_program("scalar_grid", text); /* NVRTC compiles it too */
    if (c->f) {
        CudaPlan plan = cuda_plan(&c->ctx.arena, c->f);
        int64_t len = 1000, grid = 0;
        void *args[2] = {NULL, &len};
        CHECK(plan.nkernels == 1 &&
                  cuda_eval_launch_int(c->f, plan.kernels[0].grid[0], NULL, args, &grid) == 0 &&
                  grid == 16,
              "scalar_grid: grid %lld from max_len=1000, expected 16", (long long)grid);
        CHECK(cuda_eval_int(c->f, plan.kernels[0].grid[0], NULL, &grid) == -1,
              "scalar_grid: a grid over a scalar needs the launch's arguments");
    }
    compiled_free(c);
    /* A symbol only a tile copy's bounds use (the K cache length of sparse GQA decode):
     * declared in the kernel, so NVRTC compiles it. */
    static const char copy_only[] =
        "import tilelang.language as T\n\nS = T.dynamic(\"S\")\n\n@T.prim_func\n"
        "def k(K: T.Tensor((4, S, 128), \"float16\"), idx: T.Tensor((4, 8), \"int32\"),\n"
        "      O: T.Tensor((4, 8, 32, 128), \"float16\")):\n"
        "    with T.Kernel(4, threads=128) as bx:\n"
        "        Ks = T.alloc_shared((32, 128), \"float16\")\n"
        "        for k in T.Pipelined(8, num_stages=2):\n"
        "            i_s = idx[bx, k]\n"
        "            if i_s >= 0:\n"
        "                T.copy(K[bx, i_s * 32:(i_s + 1) * 32, :], Ks)\n"
        "                T.copy(Ks, O[bx, k, :, :])\n";
    compiled_free(check_program("copy_only_sym", copy_only));
}

static void expect_error(const char *name, const char *text, const char *msg) {
    Compiled *c = compile_cuda(name, text, true);
    CHECK(c->error && strstr(c->error, msg), "%s: expected an error with '%s', got %s", name, msg,
          c->error ? c->error : "success");
    compiled_free(c);
}

/* One block's (M, K) x (K, N) GEMM on a T.Pipelined K loop; deco: the decorator line. */
#define ONE_TILE_GEMM(deco, name, dims, threads)                                                   \
    HEAD deco "def " name "(" dims "):\n"                                                          \
              "    @T.prim_func\n"                                                                 \
              "    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),\n"             \
              "             C: T.Tensor((M, N), dtype)):\n"                                        \
              "        with T.Kernel(1, 1, threads=" threads ") as (bx, by):\n"                    \
              "            A_s = T.alloc_shared((M, 64), dtype)\n"                                 \
              "            B_s = T.alloc_shared((64, N), dtype)\n"                                 \
              "            acc = T.alloc_fragment((M, N), \"float32\")\n"                          \
              "            T.clear(acc)\n"                                                         \
              "            for k in T.Pipelined(K // 64, num_stages=3):\n"                         \
              "                T.copy(A[0, k * 64], A_s)\n"                                        \
              "                T.copy(B[k * 64, 0], B_s)\n"                                        \
              "                T.gemm(A_s, B_s, acc)\n"                                            \
              "            T.copy(acc, C)\n"                                                       \
              "    return main\n"

/* The kernel of kernels/ws_single.py with warp specialization turned off by TileLang's
 * pass configs (the string and the PassConfigKey spelling). */
#define WS_OFF(cfg)                                                                                \
    ONE_TILE_GEMM("@tilelang.jit(out_idx=[-1], pass_configs={" cfg                                 \
                  ": True, \"tl.enable_fast_math\": 1})\n",                                        \
                  "ws_off", "M=128, N=64, K=64, dtype=\"bfloat16\"", "128")

/* A kernel body around Tier 3 errors: `BODY` inside T.Kernel(1, threads=256). */
#define TIER3(body)                                                                                \
    HEAD "def t3():\n"                                                                             \
         "    @T.prim_func\n"                                                                      \
         "    def main(A: T.Tensor((64, 64), \"float16\"), S: T.Tensor((64, 64), \"float32\")):\n" \
         "        with T.Kernel(1, threads=256) as bx:\n"                                          \
         "            A_s = T.alloc_shared((64, 64), \"float16\")\n"                               \
         "            acc = T.alloc_fragment((64, 64), \"float32\")\n"                             \
         "            bars = T.alloc_barrier([128, 128])\n" body "    return main\n"

static void test_tier3_errors(void) {
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {TIER3("            with T.ws(2):\n                T.clear(acc)\n"),
         "T.ws: warp group 2 is outside the block (256 threads: warp groups 0 to 1)"},
        {TIER3("            with T.ws(0):\n                with T.ws(0):\n"
               "                    T.clear(acc)\n"),
         "T.ws blocks cannot be nested"},
        {TIER3("            with T.ws(0, 2):\n                T.clear(acc)\n"),
         "T.ws: warp groups must be consecutive"},
        {TIER3("            T.barrier_wait(bars, 0)\n"), "'bars' holds 2 barriers"},
        {TIER3("            S[0, 0] = bars[0]\n"), "barrier 'bars' is not a value"},
        {TIER3("            T.tma_copy(A_s, A, barrier=bars[0])\n"),
         "T.tma_copy copies a global tensor into a shared buffer"},
        {TIER3("            T.tma_copy(A, A_s)\n"), "T.tma_copy needs barrier="},
        {TIER3("            T.mbarrier_arrive(3)\n"), "needs T.create_list_of_mbarrier first"},
        {TIER3("            T.set_max_nreg(250, 1)\n"), "multiple of 8 from 24 to 256"},
        {TIER3("            T.copy(A, A_s)\n            T.wgmma_gemm(A_s, A_s, acc)\n"),
         "T.wgmma_gemm: this gemm cannot run on wgmma on this target"},
        {TIER3("            S_s = T.alloc_shared((64, 64), \"float32\")\n"
               "            T.copy(S, S_s)\n            T.wgmma_gemm(S_s, S_s, acc)\n"),
         "(float32 operands run on mma.sync: no TF32 wgmma yet; use T.gemm)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_error("t3.py", cases[i].text, cases[i].msg);
    /* on sm_90a: a T.wgmma_gemm into part of a fragment is not a tensor-core gemm at all
     * (lower_tile_ops would make it loops): the same error, not loops */
    const char *arch = lower_arch;
    lower_arch = "sm_90a";
    expect_error("t3.py",
                 TIER3("            B_s = T.alloc_shared((64, 64), \"float16\")\n"
                       "            T.copy(A, A_s)\n            T.copy(A, B_s)\n"
                       "            T.wgmma_gemm(A_s[0:32, :], B_s, acc[0:32, :])\n"),
                 "T.wgmma_gemm: this gemm cannot run on wgmma (it needs");
    lower_arch = arch;
}

static bool kernels_call(const Compiled *c, const char *text) {
    const char *k = c->src ? strstr(c->src, "// ---- kernels ----") : NULL;
    return k && strstr(k, text);
}

/* Whether the lowered IR of c, as printed, has text (the launch shape of its kernels:
 * pass_plan_launch). */
static bool ir_says(const Compiled *c, const char *text) {
    StrBuf sb = {0};
    if (c->f) ir_print_func(&sb, c->f);
    bool yes = sb.buf && strstr(sb.buf, text);
    sb_free(&sb);
    return yes;
}

/* A copy of text (malloc'd) with the first "from" of each pair (a factory default)
 * replaced by its "to"; NULL if one is missing. */
static char *set_defaults(const char *text, const char *const *from_to, int n) {
    char *out = strdup(text);
    for (int i = 0; out && i < n; i += 2) {
        char *p = strstr(out, from_to[i]), *next = NULL;
        size_t lf = strlen(from_to[i]), lt = strlen(from_to[i + 1]);
        if (p && (next = malloc(strlen(out) - lf + lt + 1)))
            sprintf(next, "%.*s%s%s", (int)(p - out), out, from_to[i + 1], p + lf);
        free(out);
        out = next;
    }
    return out;
}

/* examples/flash_attention.py with num_stages=2 (malloc'd), or NULL. */
static char *fa_stages2(void) {
    char *fa = read_text("examples/flash_attention.py");
    char *stages = fa ? strstr(fa, "num_stages=1,") : NULL;
    CHECK(stages != NULL, "flash_attention.py's factory has num_stages=1");
    if (stages) stages[strlen("num_stages=")] = '2';
    else free(fa);
    return stages ? fa : NULL;
}

static bool has_remark(const Compiled *c, const char *text) {
    for (int r = 0; c && c->f && r < c->f->remarks.len; r++)
        if (strstr(c->f->remarks.data[r], text)) return true;
    return false;
}

static void test_pipelined_remark(void) {
    Compiled *c = check_program("kept", test_kernel("pipe_kept"));
    CHECK(has_remark(c, "kept:16: note: T.Pipelined(num_stages=2) runs without software "
                        "pipelining: 'B_s' (filled at line 17) is also used outside the loop") &&
              c->src && !kernels_call(c, "tl_cp_async16("),
          "kept: B_s is read after the loop: no pipeline, a remark that says so");
    compiled_free(c);
    c = check_program("pipe_read_first", test_kernel("pipe_read_first"));
    CHECK(has_remark(c, ":12: note: T.Pipelined(num_stages=2) runs without software "
                        "pipelining: a statement before its T.copy into 'S' (line 14) uses "
                        "that tile"),
          "pipe_read_first: a remark naming the copy and the statement before it");
    compiled_free(c);
    c = check_program("sw", test_kernel("pipe_src_written"));
    CHECK(has_remark(c, "sw:9: note: T.Pipelined(num_stages=2) runs without software "
                        "pipelining: the kernel writes 'A', which its T.copy into 'S' (line "
                        "10) reads"),
          "sw: a remark naming the written source");
    compiled_free(c);
    char *gemm = read_text("examples/gemm.py"); /* a plain GEMM loop: pipelined, no remark */
    c = gemm ? check_program("examples/gemm.py", gemm) : NULL;
    CHECK(c && c->src && !has_remark(c, "software pipelining"), "examples/gemm.py: no remark");
    if (c) compiled_free(c);
    free(gemm);
}

/* setmaxnreg budgets of a warp-specialized kernel (src: its source) fit the registers its
 * block holds at launch, or setmaxnreg.inc would wait forever (it did with a 48-register
 * producer beside 232-register consumers: 128 x 48 + 256 x 232 > 384 x 168). Returns
 * whether the kernel has such budgets. */
static bool budgets_fit(const char *name, const char *src) {
    const char *k = src ? strstr(src, "// ---- kernels ----") : NULL;
    const char *lb = k ? strstr(k, "__launch_bounds__(") : NULL;
    const char *dec = k ? strstr(k, "tl_setmaxnreg_dec<") : NULL;
    const char *inc = k ? strstr(k, "tl_setmaxnreg_inc<") : NULL;
    if (!lb || !dec || !inc) return false;
    int threads = atoi(lb + strlen("__launch_bounds__("));
    int d = atoi(dec + strlen("tl_setmaxnreg_dec<")), c = atoi(inc + strlen("tl_setmaxnreg_inc<"));
    int64_t need = 128LL * d + (int64_t)(threads - 128) * c;
    const char *other = strstr(inc + 1, "tl_setmaxnreg_inc<");
    int c2 = other ? atoi(other + strlen("tl_setmaxnreg_inc<")) : c;
    if (c2 != c) /* hand-scheduled: a budget per consumer warp group (sparse MLA: 240, 168) */
        need = 128LL * d + 128LL * c + (int64_t)(threads - 256) * c2;
    int64_t have = (int64_t)cuda_launch_regs(threads) * threads;
    CHECK(need <= have,
          "%s: setmaxnreg budgets 128 x %d + %d x %d = %lld registers, more "
          "than the %lld a block of %d threads holds",
          name, d, threads - 128, c, (long long)need, (long long)have, threads);
    return true;
}

static void test_pass_configs(void) {
    static const char *const srcs[] = {WS_OFF("\"tl.disable_warp_specialized\""),
                                       WS_OFF("tilelang.PassConfigKey.TL_DISABLE_TMA_LOWER")};
    for (int i = 0; i < 2; i++) {
        Compiled *c = check_program("ws_off", srcs[i]);
        CHECK(c->src && !strstr(c->src, "tl_tma_load(&") && kernels_call(c, "tl_cp_async16(") &&
                  strstr(c->src, "tl_wgmma_ss<"),
              "pass_configs %d: no warp specialization, the cp.async pipeline on wgmma", i);
        compiled_free(c);
    }
    expect_error("cfg",
                 HEAD "@tilelang.jit(pass_configs=[1])\ndef f():\n"
                      "    @T.prim_func\n    def main(A: T.Tensor((4,), \"float32\")):\n"
                      "        with T.Kernel(1, threads=32) as bx:\n            A[0] = 1.0\n"
                      "    return main\n",
                 "pass_configs must be a dict");
}

static const int64_t wsd_syms[] = {100}; /* K: 7 iterations, the last one ragged */
/* dyn_rows's m, k, n: rows of whole 16-byte vectors, ragged tiles at every edge; then
 * rows that break the assumption, for its general variant */
static const int64_t rows_syms[] = {100, 72, 88}, odd_rows_syms[] = {100, 37, 70};

/* ws_dynamic's tensor map: X (K, 64) float32, dims innermost first, a 64 x 16 box; with
 * K = 0 there is none, and the launch error names the tensor and the way out. */
static void test_tmap_geometry(Compiled *c) {
    CudaPlan plan = cuda_plan(&c->ctx.arena, c->f);
    bool one = plan.nkernels == 1 && plan.kernels[0].ntmaps == 1;
    CHECK(one, "ws_dynamic: one kernel with one tensor map");
    if (!one) return;
    CudaTmapGeom g;
    StrBuf err = {0};
    int64_t k = 100;
    int rc = cuda_tmap_geometry(c->f, plan.kernels[0].tmaps[0], &k, &g, &err);
    CHECK(rc == 0 && g.param == 0 && g.rank == 2 && g.dims[0] == 64 && g.dims[1] == 100 &&
              g.strides[0] == 256 && g.box[0] == 64 && g.box[1] == 16 && g.swizzle == 0,
          "ws_dynamic: tensor map geometry (%s)", err.buf ? err.buf : "");
    sb_free(&err);
    k = 0;
    rc = cuda_tmap_geometry(c->f, plan.kernels[0].tmaps[0], &k, &g, &err);
    CHECK(rc == -1 && err.buf && strstr(err.buf, "tensor 'X' (dim 0 = 0)") &&
              strstr(err.buf, "TILEC_NO_WS=1"),
          "ws_dynamic with K = 0: %s", err.buf ? err.buf : "no error");
    sb_free(&err);
}

/* num_stages far beyond any shared memory: the loop runs unpipelined (the fuzzer once
 * made the compiler build a billion-copy prologue). */
static void test_huge_stages(void) {
    char *text = strdup(test_kernel("pipe_read"));
    char *at = strstr(text, "stages=2");
    memcpy(at, "stages=9", 8);
    Compiled *c = compile_cuda("huge.py", text, true);
    const char *kernels = c->src ? strstr(c->src, "// ---- kernels ----") : NULL;
    CHECK(kernels && !strstr(kernels, "tl_cp_async"), "num_stages=9: %s",
          c->error ? c->error : "pipelined anyway");
    compiled_free(c);
    free(text);
}

static void test_conflict_remark(void) {
    Compiled *c = compile_cuda("conflict.py", test_kernel("conflict"), false);
    CHECK(c->f && c->f->remarks.len == 1, "conflict: %d remarks", c->f ? c->f->remarks.len : -1);
    if (c->f && c->f->remarks.len == 1) {
        const char *r = c->f->remarks.data[0];
        CHECK(strstr(r, "conflict.py:20: note: fragment 'acc'") && strstr(r, "conflict.py:19"),
              "conflict remark: %s", r);
    }
    compiled_free(c);
}

static int list_examples(char names[][128], int max) {
    DIR *d = opendir("examples");
    int n = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d)) && n < max;) {
        size_t len = strlen(e->d_name);
        if (len > 3 && !strcmp(e->d_name + len - 3, ".py"))
            snprintf(names[n++], 128, "examples/%s", e->d_name);
    }
    closedir(d);
    return n;
}

/* Barrier counts on known programs: never fewer than needed (the simulation checks
 * that), and not more than these. T.copy between global and shared runs in vectors
 * (a thread per vector), element-wise nests a thread per element (or by a register
 * layout): data handed between them needs a barrier (chain: two); elementwise_add has a
 * third because C_shared reuses the bytes of A_shared and B_shared once they are dead;
 * continue's loop has one before its read and one at the top of the body, before the
 * write that conflicts with the back edges (as late as possible, which also serves the
 * continue);
 * gemm.py's pipelined loop has one before its prologue and one after it (the loop's own
 * are inside its gemm: Stmt.gemm.pipe_wait); two_reduce needs none beyond its reductions'
 * own; thread_rows (naive gemv) one before its fill loop and one after it, none inside
 * (each thread writes its own row), and no bounds checks (the thread index is < 128). */
static void test_sync_counts(Compiled **c, const char *const *names, int n) {
    static const struct {
        const char *name;
        int syncs;
    } want[] = {
        {"chain", 2},
        {"transpose", 1},
        {"serial", 2},
        {"var", 0},
        {"flag", 2},
        {"continue", 2},
        {"examples/gemm.py", 2},
        {"examples/elementwise_add.py", 3},
        {"two_reduce", 0},
        {"thread_rows", 2},
    };
    for (size_t w = 0; w < sizeof want / sizeof *want; w++)
        for (int i = 0; i < n; i++)
            if (!strcmp(names[i], want[w].name) && c[i]->f)
                CHECK(syncs_of(c[i]) == want[w].syncs, "%s: %d barriers, expected %d", names[i],
                      syncs_of(c[i]), want[w].syncs);
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], "thread_rows"))
            CHECK(c[i]->src && kernels_call(c[i], "B_shared[tx * 32 + tk] = B[") &&
                      !kernels_call(c[i], " >= 0)"),
                  "thread_rows: bounds checks on the thread index");
    static const struct {
        const char *name, *call;
    } pipes[] = {
        {"examples/gemm.py",
         "tl_gemm_ss<64, 64, 32, 2, 2, false, false, false, TL_SMEM_SWIZZLED, TL_SMEM_SWIZZLED, "
         "0>(A_shared"},
        {"pipe_k16", "tl_gemm_ss<64, 32, 16, 2, 2, false, false, false, TL_SMEM_SWIZZLED, "
                     "TL_SMEM_SWIZZLED, 1>(A_s"},
        {"pipe_k48", "tl_gemm_ss<64, 32, 48, 2, 2, false, false, false, TL_SMEM_ROWS, "
                     "TL_SMEM_SWIZZLED, 2>(A_s"},
    };
    for (size_t p = 0; p < sizeof pipes / sizeof *pipes; p++)
        for (int i = 0; i < n; i++)
            if (!strcmp(names[i], pipes[p].name))
                CHECK(kernels_call(c[i], pipes[p].call),
                      "%s: the pipeline's wait and barrier inside the mma.sync gemm", names[i]);
}

/* Issue 26. Scans (T.cumsum) over shared and fragment tiles, where its wrong sums showed:
 * ragged edges (the last block's rows or columns past the tensor), both dims, both
 * directions, in place and into another tile, block sizes below, at and above the tile's
 * rows, one and two grid dimensions, sm_80 and sm_90a. Each is simulated and compared
 * with the C target. The bug was of a wider class: on sm_90a a shared tile written by the
 * threads and copied out by TMA stores, in a kernel without gemms, had no async-proxy
 * fence (the simulation's TMA stores now read 0xff without one): tile_store_progs below
 * cover the other writers of such tiles. And tests/exec/kernels/lang_tail.py, the long tail
 * of the T namespace (tileops_lang.c). */
static char *scan_program(int M, int N, int bm, int bn, int threads, int dim, bool reverse,
                          const char *scope, bool to_dst) {
    char *text = malloc(2048);
    snprintf(text, 2048,
             HEAD
             "def scan(M=%d, N=%d, bm=%d, bn=%d):\n"
             "    @T.prim_func\n"
             "    def main(A: T.Tensor((M, N), \"float32\"), B: T.Tensor((M, N), \"float32\")):\n"
             "        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=%d) as (bx, by):\n"
             "            s = T.alloc_shared((bm, bn), \"float32\")\n"
             "            t = T.alloc_%s((bm, bn), \"float32\")\n"
             "            d = T.alloc_%s((bm, bn), \"float32\")\n"
             "            T.copy(A[by * bm, bx * bn], s)\n"
             "            T.copy(s, t)\n"
             "            T.cumsum(%s, dim=%d, reverse=%s)\n"
             "            T.copy(%s, B[by * bm, bx * bn])\n"
             "    return main\n",
             M, N, bm, bn, threads, scope, scope, to_dst ? "t, d" : "t", dim,
             reverse ? "True" : "False", to_dst ? "d" : "t");
    return text;
}

static const char *const tile_store_progs[] = {
    /* a flattened 4-deep T.Parallel nest of constant extents (its indices were
       t / 8 * 4 instead of t / 32 before: found by atomic_vec.py) */
    HEAD "def nest(M=6):\n"
         "    @T.prim_func\n"
         "    def main(A: T.Tensor((M, 3, 5, 8), \"float32\"), B: T.Tensor((M, 3, 5, 8), "
         "\"float32\")):\n"
         "        with T.Kernel(2, threads=64) as bx:\n"
         "            for i, j, k, l in T.Parallel(3, 3, 5, 8):\n"
         "                B[bx * 3 + i, j, k, l] = A[bx * 3 + i, j, k, l] * 2.0 + i * 1000 + j * "
         "100 + k * 10 + l\n"
         "    return main\n",
    HEAD "def ew(M=100, N=72):\n"
         "    @T.prim_func\n"
         "    def main(A: T.Tensor((M, N), \"float16\"), B: T.Tensor((M, N), \"float16\")):\n"
         "        with T.Kernel(T.ceildiv(N, 32), T.ceildiv(M, 64), threads=128) as (bx, by):\n"
         "            s = T.alloc_shared((64, 32), \"float16\")\n"
         "            for i, j in T.Parallel(64, 32):\n"
         "                s[i, j] = A[by * 64 + i, bx * 32 + j] * 2.0\n"
         "            T.copy(s, B[by * 64, bx * 32])\n"
         "    return main\n",
    HEAD "def red(M=100, N=72):\n"
         "    @T.prim_func\n"
         "    def main(A: T.Tensor((M, N), \"float32\"), B: T.Tensor((M, 4), \"float32\")):\n"
         "        with T.Kernel(T.ceildiv(M, 16), threads=128) as bx:\n"
         "            s = T.alloc_shared((16, N), \"float32\")\n"
         "            r = T.alloc_shared((16, 4), \"float32\")\n"
         "            T.copy(A[bx * 16, 0], s)\n"
         "            for i, j in T.Parallel(16, 4):\n"
         "                r[i, j] = 0.0\n"
         "            for i, j in T.Parallel(16, 4):\n"
         "                for k in T.serial(N // 4):\n"
         "                    r[i, j] += s[i, j * (N // 4) + k]\n"
         "            T.copy(r, B[bx * 16, 0])\n"
         "    return main\n",
};

static Compiled *pass_config_cases(SimCase *cases, char names[][64], int *n) {
    Compiled *c = check_program("no_sync", test_kernel("no_sync"));
    CHECK(syncs_of(c) == 1 && strstr(c->src, "NVRTC options: " CUDA_IEEE_OPTS),
          "TL_DISABLE_THREAD_STORAGE_SYNC: the program's one barrier (%d), IEEE options",
          syncs_of(c));
    snprintf(names[*n], 64, "no_sync");
    cases[*n] = (SimCase){names[*n], strdup(test_kernel("no_sync")), NULL, c}, ++*n;
    static const char *const fast[] = {"FAST=False", "FAST=True "};
    char *text = set_defaults(test_kernel("no_sync"), fast, 2);
    Compiled *f = text ? check_program("fast_math", text) : NULL;
    CHECK(f && f->src && strstr(f->src, "NVRTC options: " CUDA_FAST_MATH_OPTS),
          "TL_ENABLE_FAST_MATH: the source asks for --use_fast_math");
    free(text);
    static const char *const no_barrier[] = {"T.sync_threads()", "pass"}, /* then the pass's */
        *const auto_sync[] = {"T.sync_threads()", "pass", "SYNC: True", "SYNC: False"};
    for (int on = 0; on < 2; on++) {
        char *t = set_defaults(test_kernel("no_sync"), on ? no_barrier : auto_sync, on ? 2 : 4);
        Compiled *b = t ? check_program("auto_sync", t) : NULL;
        CHECK(b && b->src && syncs_of(b) == !on, "TL_DISABLE_THREAD_STORAGE_SYNC %s: %d barriers",
              on ? "True" : "False", b && b->src ? syncs_of(b) : -1);
        if (b) compiled_free(b);
        free(t);
    }
    return f;
}

/* tileops_math.c's names (tests/unit/kernels/math_*.py) over their dtypes (a factory
 * default replaced): lowered for sm_80 (NVRTC compiles the source for sm_80 and sm_90a),
 * a few for sm_90a too. */
static void math_cases(SimCase *cases, char names[][64], int *n) {
    static const struct {
        const char *kernel, *from, *to;
        bool sm90;
    } math[] = {
        {"math_libm", "\"float32\"", "\"float32\"", false},
        {"math_libm", "\"float32\"", "\"float64\"", false},
        {"math_libm", "\"float32\"", "\"float16\"", false},
        {"math_fast", "\"float32\"", "\"float32\"", false},
        {"math_fast", "\"float32\"", "\"bfloat16\"", false},
        {"math_ieee", "\"float32\"", "\"float32\"", true},
        {"math_ieee", "\"float32\"", "\"float64\"", false},
        {"math_ieee", "\"float32\"", "\"float16\"", false},
        {"math_int", "\"int32\"", "\"int32\"", false},
        {"math_int", "\"int32\"", "\"int64\"", false},
        {"math_int", "\"int32\"", "\"int8\"", false},
        {"math_int", "\"int32\"", "\"uint32\"", false},
        {"math_reduce", "\"int32\"", "\"int32\"", true},
        {"math_reduce", "\"int32\"", "\"uint64\"", false},
        {"math_reduce", "\"int32\"", "\"int8\"", false},
        {"math_reduce", "bm=16, bn=32", "bm=2, bn=128", false}, /* across warps */
        {"py_names", "M=40", "M=40", true},                     /* tileops_py.c's names */
        {"math_vec", "\"float16\"", "\"float16\"", true},       /* tileops_vec.c's */
        {"math_vec", "\"float16\"", "\"bfloat16\"", false},
        {"math_vec", "\"float16\"", "\"float32\"", true},
    };
    for (size_t i = 0; i < sizeof math / sizeof *math; i++) {
        const char *const ft[] = {math[i].from, math[i].to};
        char *text = set_defaults(test_kernel(math[i].kernel), ft, 2);
        CHECK(text != NULL, "%s: no default %s", math[i].kernel, math[i].from);
        for (int arch = 0; text && arch < 1 + math[i].sm90; arch++) {
            lower_arch = arch ? "sm_90a" : "sm_80";
            snprintf(names[*n], 64, "%s_%zu_%s", math[i].kernel, i, lower_arch);
            Compiled *c = check_program(names[*n], text);
            if (i == 8) /* x = A[j]; T.cdiv(x, 4): x + 3 wraps (NVRTC has no -fwrapv) */
                CHECK(c->src && kernels_call(c, "tl_floordiv_i32(((int32_t)((uint32_t)((int32_t)("
                                                "(uint32_t)x + (uint32_t)4)) - (uint32_t)1)), 4)"),
                      "%s: data arithmetic through a let wraps", names[*n]);
            if (c->f && c->src) cases[*n] = (SimCase){names[*n], strdup(text), NULL, c}, ++*n;
            else compiled_free(c);
        }
        free(text);
    }
}

/* TVM's WMMA intrinsics (tileops_wmma.c): the GEMM of tests/unit/kernels/wmma_gemm.py in
 * each layout and dtype, for sm_80 and sm_90a. */
static void wmma_cases(SimCase *cases, char names[][64], int *n) {
    static const char *const variants[][8] = {
        {"WARPS=2", "WARPS=2"}, /* float16 -> float32, B col-major, filled */
        {"A_COL=False", "A_COL=True", "B_COL=True", "B_COL=False", "C_COL=False", "C_COL=True"},
        {"ACC=\"float32\"", "ACC=\"float16\"", "BIAS=False", "BIAS=True"},
        {"DT=\"float16\"", "DT=\"bfloat16\"", "BIAS=False", "BIAS=True", "WARPS=2", "WARPS=1"},
    };
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        int len = 0;
        while (len < 8 && variants[i][len]) len++;
        char *text = set_defaults(test_kernel("wmma_gemm"), variants[i], len);
        CHECK(text != NULL, "wmma_gemm: no default %s", variants[i][0]);
        for (int arch = 0; text && arch < 2; arch++) {
            lower_arch = arch ? "sm_90a" : "sm_80";
            snprintf(names[*n], 64, "wmma_gemm_%zu_%s", i, lower_arch);
            Compiled *c = check_program(names[*n], text);
            if (c->f && c->src) cases[*n] = (SimCase){names[*n], strdup(text), NULL, c}, ++*n;
            else compiled_free(c);
        }
        free(text);
    }
}

/* The names of helper "names" (issues 25 and 26), each kernel lowered for sm_80 and
 * sm_90a and simulated, with its factory's defaults replaced as `from_to` says (pairs):
 * T.int4 (packed bytes; gemms on mma.sync m16n8k64 .s4), T.ptx_mma_sm70, cluster
 * mbarriers (T.alloc_cluster_barrier, T.ptx_arrive_cluster_barrier), and T.ws regions
 * that hand work back and forth (ping_pong: the C target runs them at once). */
static void names_cases(SimCase *cases, char names[][64], int *n) {
    static const struct {
        const char *kernel, *calls; /* a call the source must make, or NULL */
        const char *from_to[4];
        int first_arch; /* 0: sm_80 and sm_90a, 1: sm_90a alone (clusters) */
    } progs[] = {
        {"gemm_s4", "tl_gemm_ss_s4<64, 32, 32, 2, 2, ", {0}, 0},
        {"gemm_s4", NULL, {"block_K=64", "block_K=32", "K=160", "K=96"}, 0}, /* unpacked */
        {"int4_elems", NULL, {0}, 0},
        {"mma_sm70", "tl_ptx_mma_sm70_row_row_f32(", {0}, 0},
        {"mma_sm70",
         "tl_ptx_mma_sm70_col_col_f32(",
         {"A_COL=False", "A_COL=True", "B_COL=False", "B_COL=True"},
         0},
        {"mma_sm70",
         "tl_ptx_mma_sm70_row_col_f16(",
         {"B_COL=False", "B_COL=True", "\"float32\")", "\"float16\")"},
         0},
        {"mma_sm70",
         "tl_ptx_mma_sm70_col_row_f16(",
         {"A_COL=False", "A_COL=True", "\"float32\")", "\"float16\")"},
         0},
        {"cluster_mbar", "tl_mbar_arrive_peer(&full[r], peer);", {0}, 1},
        {"cluster_mbar", "tl_mbar_arrive(&one[0]);", {"CLUSTER=2", "CLUSTER=1"}, 0},
        {"ping_pong", "tl_mbar_wait(&full[0], ", {0}, 0},
    };
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
        int len = 0;
        while (len < 4 && progs[i].from_to[len]) len++;
        char *text = set_defaults(test_kernel(progs[i].kernel), progs[i].from_to, len);
        for (int arch = progs[i].first_arch; text && arch < 2; arch++) {
            lower_arch = arch ? "sm_90a" : "sm_80";
            snprintf(names[*n], 64, "%s%zu_%s", progs[i].kernel, i, lower_arch);
            Compiled *c = check_program(names[*n], text);
            CHECK(!progs[i].calls || (c->src && kernels_call(c, progs[i].calls)), "%s: calls %s",
                  names[*n], progs[i].calls);
            if (c->f && c->src) cases[*n] = (SimCase){names[*n], strdup(text), NULL, c}, ++*n;
            else compiled_free(c);
        }
        free(text);
    }
}

/* Kernels with a barrier count one too large (ptx_names: the cp.async arrivals'
 * mbarrier, the plain arrivals' one) or an arrival missing (named_bar: the consumers'
 * last hand-back): a phase that never completes, which the simulation must report as a
 * deadlock (sim_fails). (One too small
 * is not an error of the hardware's either: the extra arrival counts towards the next
 * phase.) */
static void wrong_count_cases(SimCase *cases, char (*names)[64], int *n) {
    static const struct {
        const char *file, *from, *to;
    } wrong[] = {
        {"ptx_names", "full = T.alloc_barrier([128] * stages)",
         "full = T.alloc_barrier([129] * stages)"},
        {"ptx_names", "T.ptx_init_barrier_thread_count(1, 256)",
         "T.ptx_init_barrier_thread_count(1, 257)"},
        {"named_bar", "if k < steps - 1:", "if k < steps - 2:"},
    };
    for (int i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof path, "tests/exec/kernels/%s.py", wrong[i].file);
        char *text = read_text(path), *at = text ? strstr(text, wrong[i].from) : NULL;
        CHECK(at != NULL, "%s: '%s'", path, wrong[i].from);
        if (!at) {
            free(text);
            continue;
        }
        size_t len = strlen(text) + 8;
        char *t = malloc(len);
        snprintf(t, len, "%.*s%s%s", (int)(at - text), text, wrong[i].to,
                 at + strlen(wrong[i].from));
        free(text);
        lower_arch = i % 2 ? "sm_90a" : "sm_80";
        snprintf(names[*n], 64, "wrong_count%d", i);
        Compiled *c = check_program(names[*n], t);
        if (c->f && c->src) {
            cases[*n] = (SimCase){names[*n], t, NULL, c};
            ++*n;
        } else free(t), compiled_free(c);
    }
}

/* Text with every `from` replaced by `to` (malloc'd), or NULL when from is not there. */
static char *replace_all(const char *text, const char *from, const char *to) {
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char *p = strstr(text, from); p; p = strstr(p + lf, from)) n++;
    if (!n) return NULL;
    char *out = malloc(strlen(text) + n * lt + 1), *o = out;
    for (const char *p = text, *q; (q = strstr(p, from)); p = q + lf) {
        memcpy(o, p, (size_t)(q - p)), o += q - p;
        memcpy(o, to, lt), o += lt;
        if (!strstr(q + lf, from)) strcpy(o, q + lf);
    }
    return out;
}

/* TileLang's register hints T.annotate_producer_reg_dealloc / consumer_reg_alloc are
 * setmaxnreg.dec / .inc (by default 24 and 240: the 168 registers a thread of 384 holds,
 * moved from the producer warp group to the two consumers) in the hand-scheduled GEMM. */
static void annotate_reg_case(void) {
    char *text = read_text("examples/gemm_warp_specialized.py");
    char *a = text ? replace_all(text, "T.dec_max_nreg(40)", "T.annotate_producer_reg_dealloc()")
                   : NULL;
    char *b = a ? replace_all(a, "T.inc_max_nreg(232)", "T.annotate_consumer_reg_alloc()") : NULL;
    CHECK(b != NULL, "gemm_warp_specialized.py has T.dec_max_nreg(40) and T.inc_max_nreg(232)");
    const char *arch = lower_arch;
    lower_arch = "sm_90a";
    if (b) {
        Compiled *c = check_program("annotate_reg", b);
        CHECK(c->src && kernels_call(c, "tl_setmaxnreg_dec<24>();") &&
                  kernels_call(c, "tl_setmaxnreg_inc<240>();"),
              "annotate_reg: setmaxnreg.dec 24 in the producer, .inc 240 in the consumers");
        compiled_free(c);
    }
    lower_arch = arch;
    free(text), free(a), free(b);
}

static void test_issue26(void) {
    static const struct {
        int M, N, bm, bn, threads;
    } shapes[] = {{13, 64, 8, 64, 128},  {13, 64, 8, 64, 32},  {64, 13, 64, 8, 128},
                  {37, 40, 16, 32, 256}, {9, 130, 4, 128, 64}, {100, 72, 64, 32, 128},
                  {5, 7, 8, 8, 128}};
    enum { NS = sizeof shapes / sizeof *shapes, MAXS = NS * 8 + 7 + 20 + 17 + 5 + 6 + 8 + 32 + 2 };
    SimCase cases[MAXS];
    static char names[MAXS][64];
    int n = 0;
    for (int i = 0; i < NS; i++)
        for (int v = 0; v < 8; v++) {
            if (!(((v >> 2) ^ (v >> 1) ^ v ^ i) & 1)) continue; /* half: each dim, scope, order */
            int dim = v & 1;
            bool reverse = v & 2, frag = v & 4, to_dst = (i + v) % 3 == 0;
            snprintf(names[n], sizeof names[n], "scan_%dx%d_%dx%d_t%d_d%d%s_%s%s", shapes[i].M,
                     shapes[i].N, shapes[i].bm, shapes[i].bn, shapes[i].threads, dim,
                     reverse ? "r" : "", frag ? "frag" : "shared", to_dst ? "_dst" : "");
            char *text = scan_program(shapes[i].M, shapes[i].N, shapes[i].bm, shapes[i].bn,
                                      shapes[i].threads, dim, reverse, frag ? "fragment" : "shared",
                                      to_dst);
            lower_arch = (i + v) % 2 ? "sm_90a" : "sm_80"; /* (TMA stores on sm_90a) */
            Compiled *c = check_program(names[n], text);
            if (c->f && c->src) cases[n] = (SimCase){names[n], text, NULL, c}, n++;
            else free(text), compiled_free(c);
        }
    lower_arch = "sm_90a";
    for (size_t i = 0; i < sizeof tile_store_progs / sizeof *tile_store_progs; i++) {
        snprintf(names[n], sizeof names[n], "tile_store%zu", i);
        Compiled *c = check_program(names[n], tile_store_progs[i]);
        CHECK(i == 0 || (c->src && kernels_call(c, "tl_tma_store(") &&
                         kernels_call(c, "tl_fence_proxy_async();\n    __syncthreads();")),
              "%s: TMA stores after an async-proxy fence", names[n]);
        cases[n] = (SimCase){names[n], strdup(tile_store_progs[i]), NULL, c}, n++;
    }
    static const char *const files[] = {"lang_tail",  "atomic_vec", /* tileops_lang.c's */
                                        "ptx_names", /* tileops_expert.c's PTX spellings */
                                        "rng_names", /* tileops_mem.c's random numbers */
                                        "named_bar", /* the program's named barriers */
                                        "ptr_tables", "ptr_param", /* tileops_ptr.c's */
                                        "misc_names",              /* T.__fns, T.call_intrin */
                                        "tile_sched",              /* T.PersistentTileScheduler */
                                        "mma_frag",   "mma_ldst",  /* tileops_mma.c's */
                                        "mma_gemm",                /* compat/intrinsics/mma.py */
                                        "mma_sp"};                 /* T.ptx_mma_sp */
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[128];
        snprintf(path, sizeof path, "tests/exec/kernels/%s.py", files[i]);
        char *text = read_text(path);
        CHECK(text != NULL, "%s", path);
        for (int arch = 0; arch < 2 && text; arch++) {
            lower_arch = arch ? "sm_90a" : "sm_80";
            snprintf(names[n], sizeof names[n], "%s_%s", files[i], lower_arch);
            Compiled *c = check_program(names[n], text);
            if (c->f && c->src) cases[n] = (SimCase){names[n], strdup(text), NULL, c}, n++;
            else compiled_free(c);
        }
        free(text);
    }
    for (int i = 0; i < 5; i++) { /* barriers across blocks; clusters need sm_90 */
        const char *kernel = i == 2 ? "cluster" : i < 2 ? "grid_sync" : "mla_persistent";
        lower_arch = i % 2 ? "sm_80" : "sm_90a";
        snprintf(names[n], sizeof names[n], "%s_%s", kernel, lower_arch);
        Compiled *c = check_program(names[n], test_kernel(kernel));
        CHECK(c->src &&
                  kernels_call(c, i == 2 ? "tl_cluster_wait();" : "tl_grid_sync((unsigned *)") &&
                  (i != 2 || strstr(c->src, "__cluster_dims__(2, 1, 1) tilec_kernel_0")),
              "%s: the barriers across blocks in the source", names[n]);
        if (c->f && c->src)
            cases[n] = (SimCase){names[n], strdup(test_kernel(kernel)), NULL, c}, n++;
        else compiled_free(c);
    }
    math_cases(cases, names, &n);
    wrong_count_cases(cases, names, &n);
    wmma_cases(cases, names, &n);
    names_cases(cases, names, &n);
    lower_arch = "sm_80";
    Compiled *fast = pass_config_cases(cases, names, &n);
    if (fast) compiled_free(fast);
    sim_check(cases, n);
    for (int i = 0; i < n; i++) free(cases[i].text), compiled_free(cases[i].cu);
}

int main(void) {
    alarm(900); /* a simulated kernel that spins on a value no barrier publishes never ends */
    settings.verify = true; /* every lowering's IR checked after each pass */
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tilec_emit_cuda_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    if (!nvrtc_open()) {
        have_nvcc = system("nvcc --version >/dev/null 2>&1") == 0;
        fprintf(stderr, "test_emit_cuda: NVRTC not found: %s\n",
                have_nvcc ? "compiling with nvcc instead" : "compile checks skipped");
    }
    test_scalar_grid();
    test_issue26();
    if (getenv("TEST_EMIT_CUDA_ONLY_ISSUE26")) { /* (while working on them) */
        printf("test_emit_cuda: %d checks, %d failures\n", checks, failures);
        return failures != 0;
    }

    const struct {
        const char *name, *text;
        const int64_t *syms;
    } progs[] = {
        {"chain", test_kernel("chain"), NULL},
        {"transpose", test_kernel("transpose"), NULL},
        {"serial", test_kernel("serial"), NULL},
        {"var", test_kernel("var"), NULL},
        {"flag", test_kernel("flag"), NULL},
        {"continue", test_kernel("continue"), NULL},
        {"while", test_kernel("while"), NULL},
        {"conflict", test_kernel("conflict"), NULL},
        {"proj_write", test_kernel("proj_write"), NULL},
        {"vec_raw", test_kernel("vec_raw"), NULL},
        {"par_vectors", test_kernel("par_vectors"), NULL},
        {"frag_prefix", test_kernel("frag_prefix"), NULL},
        {"wgmma_shared", test_kernel("wgmma_shared"), NULL},
        {"vec_loop", test_kernel("vec_loop"), NULL},
        {"pipe_masked", test_kernel("pipe_masked"), NULL},
        {"ws_alias", test_kernel("ws_alias"), NULL},
        {"pipe_outer2", test_kernel("pipe_outer2"), NULL},
        {"pipe_alias", test_kernel("pipe_alias"), NULL},
        {"pipe_read", test_kernel("pipe_read"), NULL},
        {"gemm_rr", test_kernel("gemm_rr"), NULL},
        {"gemm_ta", test_kernel("gemm_ta"), NULL},
        {"gemm_s8", test_kernel("gemm_s8"), NULL},
        {"gemm_s8_t", test_kernel("gemm_s8_t"), NULL},
        {"two_reduce", test_kernel("two_reduce"), NULL},
        {"atomic", test_kernel("atomic"), NULL},
        {"convert", test_kernel("convert"), NULL},
        {"workspace", test_kernel("workspace"), ws_syms},
        {"dynamic", test_kernel("dynamic"), dyn_syms},
        {"dynamic_column", test_kernel("dynamic_column"), dyn_syms},
        {"manual_pipe", test_kernel("manual_pipe"), NULL},
        {"pipe_k16", test_kernel("pipe_k16"), NULL},
        {"pipe_read_first", test_kernel("pipe_read_first"), NULL},
        {"pipe_src_next", test_kernel("pipe_src_next"), NULL},
        {"pipe_k48", test_kernel("pipe_k48"), NULL},
        {"im2col", test_kernel("im2col"), NULL},
        {"views", test_kernel("views"), NULL},
        {"persistent_loop", test_kernel("persistent_loop"), NULL},
        {"mamba_chunk_scan", test_kernel("mamba_chunk_scan"), NULL},
        {"thread_gemv", test_kernel("thread_gemv"), NULL},
        {"thread_splitk", test_kernel("thread_splitk"), NULL},
        {"thread_lanes", test_kernel("thread_lanes"), NULL},
        {"thread_shfl", test_kernel("thread_shfl"), NULL},
        {"thread_allreduce", test_kernel("thread_allreduce"), NULL},
        {"reducer", test_kernel("reducer"), NULL},
        {"pipe_alloc_in_body", test_kernel("pipe_alloc_in_body"), NULL},
        {"mla_decode", test_kernel("mla_decode"), NULL},
        {"thread_rows", test_kernel("thread_rows"), NULL},
        {"sparse_mla", test_kernel("sparse_mla"), NULL},
        {"warp_votes", test_kernel("warp_votes"), NULL},
        {"launch_shape", test_kernel("launch_shape"), NULL},
        {"ws_votes", test_kernel("ws_votes"), NULL},
        {"mem_atomic", test_kernel("mem_atomic"), NULL},
        {"mem_wide", test_kernel("mem_wide"), NULL},
        {"mem_extern", test_kernel("mem_extern"), NULL},
        {"ws_thread_index", test_kernel("ws_thread_index"), NULL},
        {"thread_if_tiles", test_kernel("thread_if_tiles"), NULL},
        {"gemm_clear_when", test_kernel("gemm_clear_when"), NULL},
        {"gemm_tf32", test_kernel("gemm_tf32"), NULL},
        {"mhc_pre", test_kernel("mhc_pre"), mhc_syms},
        {"local_views", test_kernel("local_views"), NULL},
        {"fill_element", test_kernel("fill_element"), NULL},
        {"big_grid", test_kernel("big_grid"), NULL},
        {"import_names", test_kernel("import_names"), NULL},
        {"branch_barriers", test_kernel("branch_barriers"), NULL},
        {"split_pieces", test_kernel("split_pieces"), NULL},
        {"gemm_sp", test_kernel("gemm_sp"), NULL},
    };
    enum { NPROG = sizeof progs / sizeof *progs, MAXC = 256 };
    char ex[32][128];
    int nex = list_examples(ex, 32);
    CHECK(nex >= 8, "found %d examples (run from the repository root)", nex);
    SimCase cases[MAXC];
    Compiled *all[MAXC];
    const char *names[MAXC];
    int n = 0;
    for (int i = 0; i < NPROG; i++) {
        names[n] = progs[i].name;
        all[n] = check_program(progs[i].name, progs[i].text);
        cases[n] = (SimCase){progs[i].name, (char *)progs[i].text, progs[i].syms, all[n]};
        n++;
    }
    for (int i = 0; i < nex && n < MAXC; i++) {
        names[n] = ex[i];
        char *text = read_text(ex[i]);
        all[n] = check_program(ex[i], text ? text : "");
        const char *base = strrchr(ex[i], '/') + 1;
        cases[n] = (SimCase){base, text, NULL, all[n]};
        n++;
    }
    for (int i = 0; i < n; i++) /* slices between lets (kv_start:kv_end) keep a constant
                                   extent, and the loop's copies are pipelined */
        if (!strcmp(names[i], "examples/mla_decode.py"))
            CHECK(all[i]->src && strstr(all[i]->src, "/* shared float16[2, 32, 64] */") &&
                      strstr(all[i]->src, "/* shared float16[2, 32, 32] */") &&
                      kernels_call(all[i], "tl_cp_async16(") &&
                      !has_remark(all[i], "software pipelining"),
                  "mla_decode.py: KV and K_pe pipelined with cp.async");
    for (int i = 0; i < NPROG; i++) { /* fragment operands on tensor cores */
        const char *src = all[i]->src;
        if (!strcmp(names[i], "gemm_rr"))
            CHECK(src && strstr(src, "tl_gemm_rs<64, 32, 32, 2, 2, true,") &&
                      strstr(src, "B_f_staged") && !strstr(src, "A_f_staged") &&
                      strstr(src, "tl_ldmatrix<4>((unsigned *)"),
                  "gemm_rr: A loaded by ldmatrix, read from registers, B staged through shared "
                  "memory");
        if (!strcmp(names[i], "gemm_ta"))
            CHECK(src && strstr(src, "tl_gemm_ss<64, 32, 32, 2, 2, true, false,") &&
                      strstr(src, "A_f_staged") && strstr(src, "B_f_staged"),
                  "gemm_ta: the transposed A and B staged through shared memory");
        if (!strcmp(names[i], "launch_shape")) /* T.annotate_min_blocks_per_sm, T.pdl_* */
            CHECK(src && strstr(src, "__launch_bounds__(32, 2)") &&
                      kernels_call(all[i], "tl_pdl_sync();") &&
                      kernels_call(all[i], "tl_pdl_trigger();"),
                  "launch_shape: min blocks per SM and PDL in the source");
        if (!strcmp(names[i], "par_vectors")) /* T.Parallel nests without fragments */
            CHECK(kernels_call(all[i], "] : uint4{}};") && kernels_call(all[i], ")] = tl_vld") &&
                      kernels_call(all[i], "*(uint4 *)&C[") &&
                      kernels_call(all[i], " < 50) ? tl_f16_to_f32(A[(int64_t)i_"),
                  "par_vectors: a guarded gather stored as loaded, float32 results from vector "
                  "loads in 16-byte pieces, a condition that splits runs loads per element");
        if (!strcmp(names[i], "frag_prefix")) /* nests over leading rows, widened */
            CHECK(src && strstr(src, "float acc[") && !strstr(src, "*acc = (float *)(tl_smem") &&
                      strstr(src, " < 4) {"),
                  "frag_prefix: the accumulator stays in registers, other rows skipped");
        if (!strcmp(names[i], "pipe_masked")) /* sm_90a: TMA, loaded whatever the mask */
            CHECK(kernels_call(all[i], "tl_tma_load(") ||
                      kernels_call(all[i], "&& (BlockMask[((int64_t)by * 2 + bx) * 8 + (k + 1)] "
                                           "!= 0)) {"),
                  "pipe_masked: copies under the mask pipelined, a masked prefetch skipped");
        if (!strcmp(names[i], "vec_loop"))
            CHECK(kernels_call(all[i], "const uint4 tl_vec0 = *(const uint4 *)&A[") &&
                      kernels_call(all[i], "const uint4 tl_vec1 = *(const uint4 *)&B["),
                  "vec_loop: each T.vectorized copy one 16-byte load");
        if (!strcmp(names[i], "gemm_tf32")) /* float32: TF32 mma.sync, A in shared or regs */
            CHECK(kernels_call(all[i], "tl_gemm_ss_tf32<64, 32, 40, 2, 2, false, true, "
                                       "TL_SMEM_ROWS, TL_SMEM_ROWS>(A_s, B_s, acc, tl_tid)") &&
                      kernels_call(all[i], "tl_gemm_ss_tf32<64, 32, 40, 2, 2, true, false, "
                                           "TL_SMEM_SWIZZLED, TL_SMEM_SWIZZLED>(At_s, Bt_s, "
                                           "acc, tl_tid)") &&
                      kernels_call(all[i], "tl_gemm_rs_tf32<64, 32, 40, 2, 2, false, "
                                           "TL_SMEM_SWIZZLED>(A_f, "
                                           "Bt_s, acc, tl_tid)"),
                  "gemm_tf32: float32 gemms on TF32 tensor cores (SS, transposed A, RS)");
        if (!strcmp(names[i], "mhc_pre")) /* upstream deepseek_mhc: x_frag in registers */
            CHECK(kernels_call(all[i], "tl_gemm_rs_tf32<32, 32, 256, 2, 2, true, "
                                       "TL_SMEM_SWIZZLED>(x_frag, "
                                       "fn_smem + ") &&
                      strstr(all[i]->src, "float x_frag[128] = {};"),
                  "mhc_pre: the float32 gemm on TF32 tensor cores, A in registers");
        if (!strcmp(names[i], "local_views")) /* a view keeps the accumulator's registers */
            CHECK(kernels_call(all[i], "float s[16] = {}; /* fragment float32[64, 32] */") &&
                      kernels_call(all[i], "float s3_tile[16] = {};"),
                  "local_views: the gemm accumulator and its 3-D view in registers");
        if (!strcmp(names[i], "split_pieces")) /* split_shared.c at gemm boundaries only */
            CHECK(src && strstr(src, "/* shared float16[64, 64] */") &&
                      strstr(src, "(A_s_1, B_s, acc, tl_tid)") &&
                      strstr(src, "/* shared float16[2, 32, 192] */"),
                  "split_pieces: A_s split where the gemm's slice starts and ends, S_s whole");
        if (!strcmp(names[i], "gemm_s8") || !strcmp(names[i], "gemm_s8_t"))
            CHECK(src && strstr(src, "tl_gemm_ss_s8<64, 32, 64, 2, 2, "), "%s: int8 mma.sync",
                  names[i]);
        if (!strcmp(names[i], "gemm_sp")) /* T.gemm_sp: mma.sp, A_sparse and E pipelined */
            CHECK(kernels_call(all[i], "tl_gemm_sp_ss<64, 64, 64, 2, 2, false, false, "
                                       "TL_SMEM_SWIZZLED, TL_SMEM_SWIZZLED>(A_shared + ") &&
                      kernels_call(all[i], "tl_gemm_sp_ss<64, 64, 64, 2, 2, true,") &&
                      kernels_call(all[i], "tl_cp_async8(&E_shared["),
                  "gemm_sp: sparse tensor cores, A_sparse and E staged by cp.async");
    }
    for (int i = 0; i < NPROG; i++) { /* memory names: the runtime's explicit accesses */
        if (!strcmp(names[i], "mem_atomic"))
            CHECK(kernels_call(all[i], "tl_atomic_or_u64(&") &&
                      kernels_call(all[i], "tl_atomic_load_i32(&") &&
                      kernels_call(all[i], "ret[0] = tl_atomic_add_i32(&") &&
                      kernels_call(all[i], "tl_fence();"),
                  "mem_atomic: atomic or / load, a previous value, fences");
        if (!strcmp(names[i], "mem_wide"))
            CHECK(kernels_call(all[i], "tl_ld_bits32(&") &&
                      kernels_call(all[i], "tl_st_bits32(&") && kernels_call(all[i], "tl_ldg(&"),
                  "mem_wide: raw words and __ldg");
        if (!strcmp(names[i], "mem_extern"))
            CHECK(all[i]->src && strstr(all[i]->src, "#line 1 \"mem_extern:") &&
                      kernels_call(all[i], "decode_i4_to_f32(&") &&
                      !kernels_call(all[i], "= decode_i4_to_f32"),
                  "mem_extern: the imported source, its void function called for no result");
    }
    Compiled *pr = check_program("print", test_kernel("print"));
    CHECK(pr->src && strstr(pr->src, "if (tl_tid == 0) {") && strstr(pr->src, "printf("),
          "T.print of a buffer in serial code: thread 0 prints");
    compiled_free(pr);
    test_sync_counts(all, names, n);
    test_conflict_remark();
    compiled_free(check_program("nested", test_kernel("nested")));
    test_huge_stages();
    expect_error("both", test_kernel("local_both"), "read both inside it and here");
    expect_error("fp8", test_kernel("mma_fp8"), "T.ptx_mma with float8 operands needs sm_89");
    expect_error("sync", test_kernel("sync_in_parallel"),
                 "T.sync_threads inside a T.Parallel loop");
    expect_error("grid", test_kernel("grid_scalar"), "the T.Kernel grid uses 'n'");
    test_tier3_errors();
    for (int i = 0; i < n; i++) /* Tier 3 without TMA or setmaxnreg */
        if (!strcmp(names[i], "manual_pipe") ||
            !strcmp(names[i], "examples/gemm_warp_specialized.py"))
            CHECK(all[i]->src && !kernels_call(all[i], "tl_tma_load(&") &&
                      !kernels_call(all[i], "tl_setmaxnreg") &&
                      kernels_call(all[i], "tl_mbar_wait(&") &&
                      (names[i][0] == 'm' || kernels_call(all[i], "tl_bar_sync<")),
                  "%s on sm_80: mbarriers, no TMA (T.tma_copy: a copy, then the region's named "
                  "barrier), no setmaxnreg",
                  names[i]);

    /* the same examples lowered for sm_90a (wgmma where it applies), and a wgmma tile */
    lower_arch = "sm_90a";
    static char names90[32][144]; /* "sm90_gemm.py": also a file name */
    for (int i = 0; i < nex && n < MAXC; i++) {
        snprintf(names90[i], sizeof names90[i], "sm90_%.120s", strrchr(ex[i], '/') + 1);
        char *text = read_text(ex[i]);
        all[n] = check_program(names90[i], text ? text : "");
        cases[n] = (SimCase){names90[i], text, NULL, all[n]};
        names[n++] = names90[i];
    }
    /* a producer warp group whose TMA loads run beside the consumer's work before the
     * pipelined loop: the stage buffers must not share bytes with that work's buffers */
    names[n] = "sm90_mamba_chunk_scan";
    all[n] = check_program(names[n], test_kernel("mamba_chunk_scan"));
    cases[n] = (SimCase){names[n], (char *)test_kernel("mamba_chunk_scan"), NULL, all[n]};
    CHECK(all[n]->src && kernels_call(all[n], "tl_tma_load(&"), "mamba_chunk_scan on sm_90a: TMA");
    n++;
    static const char *const
        thread_level[] = {"thread_gemv",      "thread_splitk", "thread_lanes",       "thread_shfl",
                          "thread_allreduce", "reducer",       "pipe_alloc_in_body", "mem_atomic",
                          "mem_wide",         "mem_extern",    "warp_votes",         "launch_shape",
                          "mma_fp8",          "ws_votes"}; /* (last: the CHECK below) */
    enum { NTL = sizeof thread_level / sizeof *thread_level };
    static char names_tl[NTL][32];
    for (int i = 0; i < NTL; i++) { /* thread-level code, reducers, stage allocs on sm_90a */
        snprintf(names_tl[i], sizeof names_tl[i], "sm90_%s", thread_level[i]);
        names[n] = names_tl[i];
        all[n] = check_program(names[n], test_kernel(thread_level[i]));
        cases[n] = (SimCase){names[n], (char *)test_kernel(thread_level[i]), NULL, all[n]};
        n++;
    }
    CHECK(all[n - 1]->src && kernels_call(all[n - 1], "tl_bar_vote<2, 1, 128>(") &&
              !kernels_call(all[n - 1], "tl_syncthreads_count("),
          "sm90_ws_votes: block votes at the consumers' named barrier");
    /* MLA decode: KV_shared is both gemms' B (share mode), M = 64 leaves the second
     * warpgroup to split N (all three gemms on wgmma, scores in registers), and the row
     * max and sum share one workspace of a slot per warpgroup column (64 x 2 floats) */
    names[n] = "sm90_mla_decode";
    all[n] = check_program(names[n], test_kernel("mla_decode"));
    cases[n] = (SimCase){names[n], (char *)test_kernel("mla_decode"), NULL, all[n]};
    CHECK(all[n]->src && strstr(all[n]->src, "float *red_buf = ") &&
              strstr(all[n]->src, "/* shared float32[128] */") &&
              !strstr(all[n]->src, "float *red_buf_") && !strstr(all[n]->src, "float *acc_s = ") &&
              kernels_call(all[n], "tl_wgmma_ss<64, 64, 128, 1, true, TL_MMA_F16, TL_MMA_F16, 0, "
                                   "false, 2>(Q_shared,") &&
              kernels_call(all[n], "tl_wgmma_ss<64, 128, 64, 1, false, TL_MMA_F16, TL_MMA_F16, 0, "
                                   "false, 2>(S_shared,"),
          "mla_decode on sm_90a: wgmma over N, scores in registers, one reduction workspace");
    n++;
    /* share mode: a transposed A (MN-major) and a tile read by two gemms, all wgmma */
    names[n] = "sm90_wgmma_shared";
    all[n] = check_program(names[n], test_kernel("wgmma_shared"));
    cases[n] = (SimCase){names[n], (char *)test_kernel("wgmma_shared"), NULL, all[n]};
    CHECK(all[n]->src &&
              strstr(all[n]->src, "tl_wgmma_ss<128, 64, 64, 2, true, TL_MMA_F16, TL_MMA_F16, 0, "
                                  "true>(A_s, B_s + (1) * 4096,") &&
              strstr(all[n]->src, "tl_wgmma_ss<128, 64, 64, 2, false, TL_MMA_F16, TL_MMA_F16, "
                                  "0>(Q_s, B_s + (1) * 4096,"),
          "wgmma_shared on sm_90a: a transposed A and a tile read by two gemms on wgmma");
    n++;
    /* attention backward's gemms: wgmma where M allows (N = 192 too), dQ's (M = 32) on
     * mma.sync, reading K_s in the 64-column panels of the wgmma that reads it too */
    names[n] = "sm90_mixed_gemms";
    all[n] = check_program(names[n], test_kernel("mixed_gemms"));
    cases[n] = (SimCase){names[n], (char *)test_kernel("mixed_gemms"), NULL, all[n]};
    CHECK(all[n]->src &&
              strstr(all[n]->src, "tl_wgmma_rs<128, 192, 32, 2, false, TL_MMA_F16, 0>(dsT_cast,") &&
              strstr(all[n]->src, "tl_gemm_ss<32, 192, 128, 1, 8, true, false, false, "
                                  "TL_SMEM_SWIZZLED, TL_SMEM_PANELS>(dsT_shared, K_s,"),
          "mixed_gemms on sm_90a: wgmma and mma.sync gemms read one tile");
    n++;
    /* sparse MLA: the two column slices of Q_shared are tiles of their own (tensor-core
     * gemms), and FullRow splits both accumulators 4 x 2 (row statistics in registers) */
    names[n] = "sm90_sparse_mla";
    all[n] = check_program(names[n], test_kernel("sparse_mla"));
    cases[n] = (SimCase){names[n], (char *)test_kernel("sparse_mla"), NULL, all[n]};
    CHECK(all[n]->src && kernels_call(all[n], "tl_gemm_ss<64, 32, 64, 4, 2,") &&
              kernels_call(all[n], "(Q_shared_1, K_tail_shared, acc_s, tl_tid)") &&
              !strstr(all[n]->src, "float *alpha = "),
          "sparse_mla on sm_90a: split Q tile, tensor cores, registers");
    n++;
    /* sparse MLA with Q (T.tma_copy) and the K/V stages (T.ptx_cp_async over 64-column
     * panels) read in column slices by T.wgmma_gemm and T.gemm: split into one tile per
     * slice, every gemm a wgmma. As upstream writes it (a producer and two consumer warp
     * groups, which the C target cannot run: it is checked against the one-warp-group
     * form's C target result), and in one warp group. */
    static const char *const smla[][2] = {{"sm90_sparse_mla_slices", "sparse_mla_slices"},
                                          {"sm90_sparse_mla_pipelined", "sparse_mla_pipelined"}};
    for (int i = 0; i < 2; i++) {
        names[n] = smla[i][0];
        all[n] = check_program(names[n], test_kernel(smla[i][1]));
        cases[n] = (SimCase){names[n], (char *)test_kernel("sparse_mla_slices"), smla_syms, all[n]};
        CHECK(all[n]->src && kernels_call(all[n], "(Q_shared_2, KV_shared_2 + ") &&
                  kernels_call(all[n], "(S_shared, KV_shared_1 + ") &&
                  !kernels_call(all[n], "tl_gemm_ss<") &&
                  kernels_call(all[n], "tl_cp_async16(&KV_shared_2[") &&
                  strstr(all[n]->src, i ? "384 threads, 133200 bytes of shared memory"
                                        : "128 threads, 132128 bytes of shared memory"),
              "%s: Q and KV split into the slices the gemms read, every gemm a wgmma", names[n]);
        n++;
    }
    static const char *const smla_mma[] = {"wgmma=True):", "wgmma=False):"};
    char *smla80 = set_defaults(test_kernel("sparse_mla_slices"), smla_mma, 2);
    if (smla80) { /* sm_80: the copy of Q split, mma.sync on the slices */
        lower_arch = "sm_80";
        names[n] = "sparse_mla_slices_sm80";
        all[n] = check_program(names[n], smla80);
        cases[n] = (SimCase){names[n], smla80, smla_syms, all[n]};
        CHECK(kernels_call(all[n], "(Q_shared_2, KV_shared_2 + ") &&
                  kernels_call(all[n], "tl_cp_async16(&KV_shared_1["),
              "sparse_mla_slices on sm_80: slices split, mma.sync");
        n++;
        lower_arch = "sm_90a";
    }
    /* the warp-specialized FlashMLA example's gemms: K slices at a T.unroll variable of a
     * tile that another gemm reads whole, every gemm a wgmma on 64-column panels (sm_80,
     * T.gemm: mma.sync on the panels) */
    names[n] = "sm90_wgmma_kslices";
    all[n] = check_program(names[n], test_kernel("wgmma_kslices"));
    cases[n] = (SimCase){names[n], (char *)test_kernel("wgmma_kslices"), NULL, all[n]};
    CHECK(all[n]->src &&
              kernels_call(all[n], "tl_wgmma_ss<64, 64, 64, 1, true, TL_MMA_F16, TL_MMA_F16, "
                                   "-1>(Q_s + (j_14 * 64) * 64, KV_s + (j_14 * 64) * 64,") &&
              kernels_call(all[n], "tl_wgmma_rs<64, 256, 64, 1, false, TL_MMA_F16, -1>(S_cast, "
                                   "KV_s, acc_o,") &&
              !kernels_call(all[n], "tl_gemm_ss<"),
          "wgmma_kslices on sm_90a: K slices of panelled tiles, every gemm a wgmma");
    n++;
    static const char *const ks_mma[] = {"wgmma=True):", "wgmma=False):"};
    char *ks80 = set_defaults(test_kernel("wgmma_kslices"), ks_mma, 2);
    if (ks80) {
        lower_arch = "sm_80";
        names[n] = "wgmma_kslices_sm80";
        all[n] = check_program(names[n], ks80);
        cases[n] = (SimCase){names[n], ks80, NULL, all[n]};
        CHECK(kernels_call(all[n], "TL_SMEM_PANELS, TL_SMEM_PANELS>(Q_s + (j_14 * 64) * 64, "
                                   "KV_s + (j_14 * 64) * 64,"),
              "wgmma_kslices on sm_80: mma.sync on K slices of panelled tiles");
        n++;
        lower_arch = "sm_90a";
    }
    /* float32 gemms on sm_90a: mma.sync TF32 (M = 32 or a tile the wgmma path does not
     * take) */
    static const char *const tf32_90[] = {"gemm_tf32", "mhc_pre", "gemm_sp"};
    static char names_tf32[3][32];
    for (int i = 0; i < 3; i++) {
        snprintf(names_tf32[i], sizeof names_tf32[i], "sm90_%s", tf32_90[i]);
        names[n] = names_tf32[i];
        all[n] = check_program(names[n], test_kernel(tf32_90[i]));
        cases[n] = (SimCase){names[n], (char *)test_kernel(tf32_90[i]), i == 1 ? mhc_syms : NULL,
                             all[n]};
        CHECK(kernels_call(all[n], i == 2 ? "tl_gemm_sp_ss<"
                                   : i    ? "tl_gemm_rs_tf32<"
                                          : "tl_gemm_ss_tf32<"),
              "%s: %s tensor cores", names[n], i == 2 ? "sparse (mma.sp)" : "TF32");
        n++;
    }
    /* flash attention with 2 stages, for sm_80 and for sm_90a */
    char *fa2 = fa_stages2(), *fa2_90 = fa2 ? strdup(fa2) : NULL;
    if (fa2) {
        lower_arch = "sm_80";
        names[n] = "fa_stages2";
        all[n] = check_program(names[n], fa2);
        cases[n] = (SimCase){names[n], fa2, NULL, all[n]};
        const Compiled *c = all[n++];
        CHECK(
            c->src && !has_remark(c, "software pipelining") &&
                strstr(
                    c->src,
                    "K_shared = (uint16_t *)(tl_smem + 8192); /* shared float16[2, 64, 64] */") &&
                strstr(
                    c->src,
                    "V_shared = (uint16_t *)(tl_smem + 24576); /* shared float16[2, 64, 64] */") &&
                kernels_call(c, "tl_cp_async16("),
            "fa_stages2: K and V pipelined with cp.async");
        lower_arch = "sm_90a";
    }
    static const char *const fa_2wg_defaults[] = {/* two consumer warp groups, causal */
                                                  "block_M=64,",      "block_M=128,",
                                                  "threads=128,",     "threads=256,",
                                                  "is_causal=False,", "is_causal=True,",
                                                  "overlap=False)",   "overlap=True)"};
    char *fa_2wg = fa2 ? set_defaults(fa2, fa_2wg_defaults, 8) : NULL;
    CHECK(!fa2 || fa_2wg, "flash_attention.py's factory defaults block_M=64, threads=128, "
                          "is_causal=False");
    if (fa_2wg) {
        names[n] = "sm90_fa_2wg_causal";
        all[n] = check_program(names[n], fa_2wg);
        cases[n] = (SimCase){names[n], fa_2wg, NULL, all[n]};
        CHECK(kernels_call(all[n++], "tl_wgmma_ss<128, 64, 64, 2, true, TL_MMA_F16"),
              "sm90_fa_2wg_causal: Q K^T on two warp groups");
    }
    static const char *const fa_128_defaults[] = {/* TileLang's Hopper tiles, dim 128 */
                                                  "block_M=64,",    "block_M=128,",
                                                  "block_N=64,",    "block_N=128,",
                                                  "threads=128,",   "threads=256,",
                                                  "dim=64,",        "dim=128,",
                                                  "seq_len=128,",   "seq_len=256,",
                                                  "overlap=False)", "overlap=True)"};
    char *fa_128 = fa2 ? set_defaults(fa2, fa_128_defaults, 12) : NULL;
    CHECK(!fa2 || fa_128, "flash_attention.py's factory defaults for sm90_fa_128");
    if (fa_128) {
        names[n] = "sm90_fa_128";
        all[n] = check_program(names[n], fa_128);
        cases[n] = (SimCase){names[n], fa_128, NULL, all[n]};
        CHECK(kernels_call(all[n], "tl_wgmma_ss<128, 128, 128, 2, true, TL_MMA_F16") &&
                  kernels_call(all[n], "tl_tma_load(&"),
              "sm90_fa_128: 128 x 128 tiles, Q K^T on wgmma, K and V by TMA");
        /* the example's schedule: Q K^T and P V in flight together, softmax waits for the
           first only, P's cast for both */
        CHECK(kernels_call(all[n], "TL_MMA_F16, TL_MMA_F16, -1>(Q_shared, ") &&
                  kernels_call(all[n], "TL_MMA_F16, -1>(acc_s_cast, ") &&
                  kernels_call(all[n], "tl_wgmma_wait<1>();") &&
                  kernels_call(all[n], "tl_wgmma_fence_operand(((uint32_t *)acc_s_cast)[tl_c]);") &&
                  !has_remark(all[n++], "order="),
              "sm90_fa_128: T.Pipelined(order=, stage=, group=) applied");
        settings.pingpong = true; /* the two warp groups take turns at the wgmmas */
        names[n] = "sm90_fa_pingpong";
        all[n] = check_program(names[n], fa_128);
        settings.pingpong = false;
        cases[n] = (SimCase){names[n], fa_128, NULL, all[n]};
        const char *w = kernels_call(all[n], "tl_pingpong_wait(tl_tid);")
                            ? strstr(all[n]->src, "tl_pingpong_wait(tl_tid);")
                            : NULL;
        const char *pass = w ? strstr(w, "tl_pingpong_pass(tl_tid);") : NULL;
        bool barrier_inside = false; /* a block barrier between would deadlock the turns */
        for (const char *b = w; b && (b = strstr(b, "tl_bar_sync<")) && b < pass; b++)
            barrier_inside = true;
        CHECK(pass && !barrier_inside && kernels_call(all[n], "tl_pingpong_start(tl_tid);") &&
                  kernels_call(all[n++], "tl_pingpong_end(tl_tid);"),
              "sm90_fa_pingpong: the steady loop's wgmmas between a turn and its pass, no "
              "barrier between");
    }
    if (fa2_90) {
        names[n] = "sm90_fa_stages2";
        all[n] = check_program(names[n], fa2_90);
        cases[n] = (SimCase){names[n], fa2_90, NULL, all[n]};
        const Compiled *c = all[n++];
        CHECK(
            c->src &&
                kernels_call(c, "tl_tma_load(&tl_tmap0, K_shared + ((int32_t)((uint32_t)vtl_it % "
                                "2u)) * 4096") &&
                kernels_call(
                    c,
                    "tl_tma_load(&tl_tmap1, V_shared + ((int32_t)((uint32_t)vtl_it % 2u)) * 4096"),
            "sm90_fa_stages2: K and V loaded by TMA in a producer warp group");
    }
    settings.cluster = true;              /* the warp-specialized cases in 2-block clusters */
    for (int i = 0; i < NPROG + nex; i++) /* stmatrix is sm_90's */
        CHECK(!all[i]->src || !strstr(all[i]->src, "tl_stmatrix<"), "%s: no stmatrix on sm_80",
              names[i]);
    for (int i = 0; i < n; i++) /* P*V on wgmma from registers; O leaves by TMA stores, whose
                                   one wait is at exit (no barrier of the loop follows them) */
        if (!strcmp(names[i], "sm90_flash_attention.py")) {
            const char *k = all[i]->src ? strstr(all[i]->src, "// ---- kernels ----") : NULL;
            int waits = 0;
            for (const char *p = k; p && (p = strstr(p, "tl_tma_store_wait_read();")); p++) waits++;
            CHECK(k && strstr(k, "tl_wgmma_rs<64, 64, 64, 1, false, TL_MMA_F16, 0>(acc_s_cast, ") &&
                      strstr(k, "tl_tma_store(&") && waits == 1,
                  "sm90_flash_attention.py: wgmma with P in registers, TMA stores of O, %d waits "
                  "for them (1 expected)",
                  waits);
        }
    for (int i = 0; i < n; i++) /* an unused shared tile takes no bytes */
        if (!strcmp(names[i], "sm90_gemm.py"))
            CHECK(all[i]->src && !strstr(all[i]->src, "C_shared") &&
                      strstr(all[i]->src, "a persistent grid"),
                  "sm90_gemm.py: the unused C_shared is not declared or zeroed");
    all[n] = check_program("wgmma", test_kernel("wgmma"));
    CHECK(all[n]->src &&
              strstr(all[n]->src,
                     "tl_wgmma_ss<128, 128, 64, 2, false, TL_MMA_BF16, TL_MMA_BF16, 1>") &&
              strstr(all[n]->src, "tl_tma_load(&tl_tmap1, B_s + ((int32_t)((uint32_t)vtl_it % 3u)) "
                                  "* 8192 + 4096, &full_barrier[(int32_t)((uint32_t)vtl_it % 3u)], "
                                  "tl_c2 + 64") &&
              strstr(all[n]->src, "a persistent grid"),
          "wgmma: a 2-warpgroup wgmma on paneled B tiles (a TMA box per panel), left in flight, "
          "on a persistent grid");
    cases[n] = (SimCase){"wgmma", (char *)test_kernel("wgmma"), NULL, all[n]};
    names[n++] = "wgmma";
    all[n] = check_program("sched_gemm", test_kernel("sched_gemm"));
    CHECK(kernels_call(all[n], "TL_MMA_F16, TL_MMA_F16, -1>(A_s") && !has_remark(all[n], "order="),
          "sched_gemm: the schedule applied, the wgmma deferred");
    cases[n] = (SimCase){"sched_gemm", (char *)test_kernel("sched_gemm"), NULL, all[n]};
    names[n++] = "sched_gemm";
    const struct {
        const char *name, *text;
        const int64_t *syms;
    } ws[] = {
        {"ws_ragged", test_kernel("ws_ragged"), NULL},
        {"ws_single", test_kernel("ws_single"), NULL},
        {"ws_fp8", test_kernel("ws_fp8"), NULL},
        {"ws_fp8_mixed", test_kernel("ws_fp8_mixed"), NULL},
        {"ws_fp8_wide", test_kernel("ws_fp8_wide"), NULL},
        {"ws_wide", test_kernel("ws_wide"), NULL},
        {"ws_tiles", test_kernel("ws_tiles"), NULL},
        {"ws_tiles_column", test_kernel("ws_tiles_column"), NULL},
        {"ws_epilogue", test_kernel("ws_epilogue"), NULL},
        {"ws_chunked", test_kernel("ws_chunked"), NULL},
        {"ws_window", test_kernel("ws_window"), NULL},
        {"ws_dynamic", test_kernel("ws_dynamic"), wsd_syms},
        {"dyn_rows", test_kernel("dyn_rows"), rows_syms},
    };
    for (size_t i = 0; i < sizeof ws / sizeof *ws; i++) {
        all[n] = check_program(ws[i].name, ws[i].text);
        CHECK(all[n]->src && strstr(all[n]->src, "tl_tma_load(") &&
                  strstr(all[n]->src, "tl_setmaxnreg_inc"),
              "%s: warp-specialized with TMA", ws[i].name);
        cases[n] = (SimCase){ws[i].name, (char *)ws[i].text, ws[i].syms, all[n]};
        names[n++] = ws[i].name;
    }
    settings.cluster = false;
    const char *epi = all[n - 5]->src, *chunked = all[n - 4]->src, *win = all[n - 3]->src;
    for (int i = 0; i < n; i++) /* T.use_swizzle(order="column"): TileLang's column walk */
        if (!strcmp(names[i], "ws_tiles_column") || !strcmp(names[i], "dynamic_column"))
            CHECK(kernels_call(all[i], names[i][0] == 'w'
                                           ? "tl_tile_index(tl_tile, tl_gx, tl_gy, 2, tl_b, true);"
                                           : "tl_swizzle_2d(3, &bx, &by, true);"),
                  "%s: blocks in column panels", names[i]);
    all[n] = check_program("ws_splitk", test_kernel("ws_splitk")); /* (clusters would exclude it) */
    cases[n] = (SimCase){"ws_splitk", (char *)test_kernel("ws_splitk"), NULL, all[n]};
    names[n] = "ws_splitk";
    const char *sk = all[n++]->src;
    char flags[64];
    snprintf(flags, sizeof flags, "TL_SK_MAX_BLOCKS = %d };", CUDA_SK_MAX_BLOCKS);
    CHECK(sk && strstr(sk, flags), "tl_cuda.h's %s (cuda.h's CUDA_SK_MAX_BLOCKS)", flags);
    CHECK(sk &&
              strstr(sk, "tl_sk_put<32, 128>(tl_sk_part(tl_sk_ws, (int)blockIdx.x, 16384) "
                         "+ 0, acc, tl_tid);") &&
              strstr(sk, "if (vtl_sk_lo == 0) {") && !strstr(sk, "tl_smem_zero(tl_smem"),
          "ws_splitk: split-K units storing and adding partial sums, the epilogue in the "
          "unit that finishes the tile, C_s not zeroed");
    const struct {
        const char *name, *text;
    } nosplit[] = {{"ws_nosplit_store", test_kernel("ws_nosplit_store")},
                   {"ws_nosplit_clear", test_kernel("ws_nosplit_clear")},
                   {"ws_nosplit_config", test_kernel("ws_nosplit_config")}};
    for (int i = 0; i < 3; i++) {
        Compiled *c = check_program(nosplit[i].name, nosplit[i].text);
        CHECK(c->src && strstr(c->src, "a persistent grid") && !strstr(c->src, "tl_sk_ws"),
              "%s: a persistent grid without split-K", nosplit[i].name);
        compiled_free(c);
    }
    /* 256 tiles, more than half the blocks an sm_90 GPU holds of this kernel (3 an SM by
       its shared memory, on 132 SMs): no launch splits them, and the kernel has no split-K
       code (which doubled its compile time) */
    static const char *const many_tiles[] = {"M=60, N=56", "M=1024, N=1024"};
    char *big = set_defaults(test_kernel("ws_splitk"), many_tiles, 2);
    Compiled *whole = big ? check_program("ws_splitk_many_tiles", big) : NULL;
    CHECK(whole && whole->src && strstr(whole->src, "a persistent grid") &&
              !strstr(whole->src, "tl_sk_ws") && !kernels_call(whole, "tl_sk_parts(") &&
              kernels_call(all[n - 1], "tl_sk_parts("),
          "ws_splitk_many_tiles: a persistent grid whose tiles no launch splits, no split-K code");
    /* the launch shape is pass_plan_launch's, on each kernel, printed with the lowered IR */
    CHECK(ir_says(all[n - 1], ") persistent split_k(16384 bytes per block):") && whole &&
              ir_says(whole, ") persistent:") && !ir_says(all[0], "persistent"),
          "the lowered IR says which kernels run on a persistent grid and split K");
    CHECK(ir_says(all[n - 6], ") persistent cluster(2):"),
          "ws_epilogue: the lowered IR says it runs in clusters of 2");
    if (whole) compiled_free(whole);
    free(big);
    CHECK(epi && strstr(epi, "__cluster_dims__(2, 1, 1)") &&
              strstr(epi, "tl_b[1] = tl_b[1] * 2 + (int)tl_cluster_rank();") &&
              strstr(epi, "tl_tma_load_multicast(&tl_tmap1") &&
              strstr(epi, "tl_stmatrix<4>(&C_s[tl_swizzle<128, 2>(") &&
              !strstr(epi, "tl_smem_zero(tl_smem"),
          "ws_epilogue: clusters along y multicasting B, a swizzled C_s written by stmatrix, "
          "not zeroed at entry");
    CHECK(chunked &&
              strstr(chunked,
                     "C_s = (uint16_t *)(tl_smem + 196608); /* shared float16[256, 64] */") &&
              strstr(chunked, "for (int32_t h = 0; h < 2; ++h) {  /* unroll */") &&
              strstr(chunked, "((h * 64) / 8 % 16) * 4]") && strstr(chunked, "a persistent grid"),
          "ws_chunked: C_s staged in two 64-column chunks of the register accumulator");
    CHECK(win && strstr(win, "float acc[32] = {};") && strstr(win, "((h * 32) / 8 % 8) * 4]") &&
              !strstr(win, "tl_smem_zero(tl_smem"),
          "ws_window: acc's windows read and written in registers");
    if (all[n - 3]->f) test_tmap_geometry(all[n - 3]); /* ws_dynamic */
    CHECK(all[n - 2]->f && all[n - 2]->f->sym_multiple && all[n - 2]->f->sym_multiple[1] == 8 &&
              all[n - 2]->f->sym_multiple[2] == 8 && all[n - 2]->f->sym_multiple[0] == 1,
          "dyn_rows: k and n (row lengths) assumed multiples of 8 halves, m not");
    settings.no_assume_aligned = true; /* the general variant: scalar copies */
    all[n] = check_program("dyn_rows_general", test_kernel("dyn_rows"));
    settings.no_assume_aligned = false;
    CHECK(all[n]->src && !kernels_call(all[n], "tl_tma_load(") &&
              !kernels_call(all[n], "tl_cp_async") && !all[n]->f->sym_multiple,
          "dyn_rows_general: no TMA, no vector copies, nothing assumed");
    cases[n] = (SimCase){"dyn_rows_general", (char *)test_kernel("dyn_rows"), odd_rows_syms,
                         all[n]};
    names[n++] = "dyn_rows_general";
    all[n] = check_program("pipe_masked_ws", test_kernel("pipe_masked")); /* sm_90a */
    CHECK(kernels_call(all[n], "} else {\n                        "
                               "tl_mbar_arrive(&full_barrier["),
          "pipe_masked_ws: the producer loads a k-step's tiles only where the mask holds, "
          "else arrives on the stage's full barrier");
    cases[n] = (SimCase){"pipe_masked_ws", (char *)test_kernel("pipe_masked"), NULL, all[n]};
    names[n++] = "pipe_masked_ws";
    CHECK(chunked && strstr(chunked, "tl_tma_store(&tl_tmap2, C_s + (0) * 64 + 0, tl_c") &&
              strstr(chunked, "for (int32_t h = 0; h < 2; ++h) {  /* unroll */\n"
                              "                tl_fence_proxy_async();\n"
                              "                if (tl_tid == 0) tl_tma_store_wait_read();\n"
                              "                tl_bar_sync<1, 256>();") &&
              strstr(chunked, "tl_tma_store_commit();\n                }\n            }\n"
                              "        }\n        if (tl_tid == 0) tl_tma_store_wait_read();"),
          "ws_chunked: each chunk leaves by a TMA store; the barrier before a chunk's writes "
          "waits for the reads of the one before, and a tile's last store runs on into the "
          "next tile (no barrier between tiles)");
    for (int i = 0; i < n; i++) /* K-major rows over 128 bytes: 128-byte panels */
        if (!strcmp(names[i], "ws_wide") || !strcmp(names[i], "ws_fp8_wide")) {
            bool f8 = names[i][3] == 'f';
            CHECK(kernels_call(all[i], f8 ? "tl_wgmma_ss<128, 64, 256, 2, true, TL_MMA_E4M3, "
                                            "TL_MMA_E4M3, 1>(A_s + ((int32_t)((uint32_t)vtl_it_"
                                          : "tl_wgmma_ss<128, 64, 128, 2, true, TL_MMA_F16, "
                                            "TL_MMA_F16, 1>(A_s + ((int32_t)((uint32_t)vtl_it_") &&
                      kernels_call(all[i], f8 ? " tl_c0 + 128, tl_c1);" : " tl_c0 + 64, tl_c1);") &&
                      kernels_call(all[i], f8 ? " tl_c2 + 128, tl_c3);" : " tl_c2 + 64, tl_c3);"),
                  "%s: wgmma on K-major A and B tiles of two 128-byte panels, a TMA box each "
                  "(multicast or not)",
                  names[i]);
        }
    settings.no_ws = true; /* the same tiles filled by cp.async */
    all[n] = check_program("wide_cp_async", test_kernel("ws_wide"));
    settings.no_ws = false;
    CHECK(kernels_call(all[n], "tl_cp_async16(&A_s[tl_panel_swizzle<128, 128, 2>(") &&
              kernels_call(all[n],
                           "tl_wgmma_ss<128, 64, 128, 2, true, TL_MMA_F16, TL_MMA_F16, 0>("),
          "wide_cp_async: cp.async into paneled K-major tiles, wgmma");
    cases[n] = (SimCase){"wide_cp_async", (char *)test_kernel("ws_wide"), NULL, all[n]};
    names[n++] = "wide_cp_async";
    for (int tb = 0; tb < 2; tb++) { /* A from registers */
        const char *name = tb ? "rs_gemm_tb" : "rs_gemm";
        static char rs_tb[8192];
        snprintf(rs_tb, sizeof rs_tb, "%s", test_kernel("rs_gemm"));
        char *text = tb ? rs_tb : (char *)test_kernel("rs_gemm");
        if (tb) memcpy(strstr(text, "tb=False"), "tb=True ", 8);
        all[n] = check_program(name, text);
        CHECK(kernels_call(all[n],
                           tb ? "tl_wgmma_rs<128, 128, 64, 2, true, TL_MMA_BF16, 0>(A_f, "
                              : "tl_wgmma_rs<128, 128, 64, 2, false, TL_MMA_BF16, 0>(A_f, "),
              "%s: wgmma with A from registers, B %s", name, tb ? "K-major" : "in panels");
        cases[n] = (SimCase){name, text, NULL, all[n]};
        names[n++] = name;
    }
    /* TMA stores from paneled tiles; without them (TILEC_NO_TMA_STORE), 16-byte copies */
    for (int no = 0; no < 2; no++) {
        const char *name = no ? "ws_panels_no_tma_store" : "ws_panels";
        settings.no_tma_store = no;
        all[n] = check_program(name, test_kernel("ws_panels"));
        settings.no_tma_store = false;
        const char *p = all[n]->src;
        const Compiled *c = all[n];
        CHECK(p && (no ? !kernels_call(c, "tl_tma_store") &&
                             kernels_call(c, "C_s[tl_swizzle<256, 2>(")
                       : kernels_call(c, "tl_stmatrix<4>(&C_s[tl_panel_swizzle<128, 128, 2>(") &&
                             kernels_call(c,
                                          "tl_tma_store(&tl_tmap2, C_s + (0) * 128 + 8192, tl_c") &&
                             kernels_call(c, "tl_tma_store_commit();") &&
                             kernels_call(c, "        }\n        if (tl_tid == 0) "
                                             "tl_tma_store_wait_read();\n    }\n}")),
              "%s: %s", name,
              no ? "16-byte copies from a row-swizzled C_s"
                 : "C_s in 64-column panels, a TMA store each, the consumers' wait at exit");
        cases[n] = (SimCase){name, (char *)test_kernel("ws_panels"), NULL, all[n]};
        names[n++] = name;
    }
    const struct {
        const char *name, *text;
    } manual[] = {{"sm90_manual_pipe", test_kernel("manual_pipe")},
                  {"manual_wgmma", test_kernel("manual_wgmma")}};
    if (n + 3 > MAXC) { /* these three and the async variant below append unguarded */
        CHECK(0, "%d simulated cases: raise MAXC", n + 3);
        return failures != 0;
    }
    for (size_t i = 0; i < sizeof manual / sizeof *manual; i++) {
        all[n] = check_program(manual[i].name, manual[i].text);
        cases[n] = (SimCase){manual[i].name, (char *)manual[i].text, NULL, all[n]};
        names[n++] = manual[i].name;
    }
    const char *mp = all[n - 2]->src, *mw = all[n - 1]->src;
    char *async = read_text("examples/gemm_warp_specialized.py"); /* its T.wgmma_gemm form */
    char *flag = async ? strstr(async, "async_wgmma=False") : NULL;
    CHECK(flag != NULL, "gemm_warp_specialized.py has an async_wgmma=False parameter");
    if (flag) {
        memcpy(flag + strlen("async_wgmma="), "True ", 5);
        all[n] = check_program("sm90_gemm_ws_async", async);
        CHECK(all[n]->src && kernels_call(all[n], "TL_MMA_F16, -1>(") &&
                  kernels_call(all[n], "tl_wgmma_wait<1>();"),
              "gemm_warp_specialized.py with async_wgmma: wgmma left in flight, one kept");
        cases[n] = (SimCase){"sm90_gemm_ws_async", async, NULL, all[n]};
        names[n++] = "sm90_gemm_ws_async";
    }
    char *greedy = read_text("examples/gemm_warp_specialized.py"); /* budgets over the pool */
    char *inc = greedy ? strstr(greedy, "T.inc_max_nreg(232)") : NULL;
    CHECK(inc != NULL, "gemm_warp_specialized.py asks for 232 registers");
    if (inc) {
        memcpy(inc + strlen("T.inc_max_nreg("), "240", 3);
        expect_error("greedy.py", greedy,
                     "add up to 66560 registers, more than the 64512 that a "
                     "block of 384 threads holds (168 a thread): "
                     "setmaxnreg.inc would wait forever");
    }
    free(greedy);
    annotate_reg_case();
    CHECK(mp && strstr(mp, "tl_fence_proxy_async();  /* this thread's shared stores") &&
              strstr(mp, "} else {  /* threads 128..255 */") && !strstr(mp, "tl_tma_load(&") &&
              strstr(mp, "tl_wgmma_ss<64, 64, 32, 1,"),
          "sm90_manual_pipe: one program per warp group, plain copies fenced for wgmma before "
          "the producer arrives");
    CHECK(mw && strstr(mw, "tl_wgmma_ss<64, 64, 64, 1, true, TL_MMA_BF16, TL_MMA_BF16, -1>") &&
              strstr(mw, "tl_wgmma_wait<0>();") &&
              strstr(mw, "tl_wgmma_fence_operand(acc[tl_c])") &&
              strstr(mw, "tl_mbar_expect_tx(&ready[0], 8192);") &&
              !strstr(mw, "tl_fence_proxy_async();  /* this thread's"),
          "manual_wgmma: T.wgmma_gemm in flight until T.wait_wgmma, TMA copies expecting their "
          "bytes");
    if (n + 4 <= MAXC) { /* the program's own wgmma (tileops_wgmma.c): descriptors, K steps */
        /* tests/exec's kernels: raw with B MN-major, rs with e4m3 operands */
        static const char *const raw_mn[] = {"B_LBO=1,",         "B_LBO=256,",        "B_STEP=2,",
                                             "B_STEP=128,",      "B_K=True,",         "B_K=False,",
                                             "STORE=\"uint16\"", "STORE=\"bfloat16\""};
        static const char *const rs_e4m3[] = {"N=64,", "N=32,", "AB=\"bf16\", STORE=\"uint16\"",
                                              "AB=\"e4m3\", STORE=\"float8_e4m3\""};
        static char *raw, *rs; /* (kept: the simulation reads them at the end) */
        if (!raw) raw = set_defaults(test_kernel("../../exec/kernels/wgmma_raw"), raw_mn, 8);
        if (!rs) rs = set_defaults(test_kernel("../../exec/kernels/wgmma_rs"), rs_e4m3, 4);
        const char *bulk = test_kernel("../../exec/kernels/bulk_copy"); /* cp.async.bulk */
        all[n] = check_program("sm90_bulk_copy", bulk);
        CHECK(all[n]->src && kernels_call(all[n], "tl_bulk_copy<true>(&S[32], &A[bx * 256], 1024, "
                                                  "&mbarrier[0]);"),
              "sm90_bulk_copy: cp.async.bulk completing on the barrier");
        cases[n] = (SimCase){"sm90_bulk_copy", (char *)bulk, NULL, all[n]};
        names[n++] = "sm90_bulk_copy";
        lower_arch = "sm_80";
        all[n] = check_program("bulk_copy", bulk);
        CHECK(all[n]->src && kernels_call(all[n], "tl_bulk_copy<false>(") &&
                  !kernels_call(all[n], "tl_mbar_expect_tx("),
              "bulk_copy: below sm_90a the thread's own copy, no transaction bytes");
        cases[n] = (SimCase){"bulk_copy", (char *)bulk, NULL, all[n]};
        names[n++] = "bulk_copy";
        lower_arch = "sm_90a";
        all[n] = check_program("sm90_wgmma_raw", raw);
        CHECK(all[n]->src &&
                  kernels_call(all[n], "\"wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                                       "{%0, %1, ") &&
                  kernels_call(all[n], "}, %32, %33, p, 1, 1, 0, 1;") &&
                  kernels_call(all[n], "tl_wgmma_raw_ss<64, TL_MMA_BF16, TL_MMA_BF16, true, "
                                       "false, 1, 1>(tl_d, tl_da, tl_db, tl_sd, tx);") &&
                  kernels_call(all[n], "tl_gmma_desc_init(&") &&
                  kernels_call(all[n], "tl_warpgroup_commit();\n    tl_wgmma_wait<0>();"),
              "sm90_wgmma_raw: the wgmma written with 32 accumulator registers, committed and "
              "waited for");
        cases[n] = (SimCase){"sm90_wgmma_raw", (char *)raw, NULL, all[n]};
        names[n++] = "sm90_wgmma_raw";
        all[n] = check_program("sm90_wgmma_rs", rs);
        CHECK(all[n]->src &&
                  kernels_call(all[n], "\"wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 "
                                       "{%0, %1, ") &&
                  kernels_call(all[n], "}, {%16, %17, %18, %19}, %20, p, 1, 1;") &&
                  kernels_call(all[n], ": \"r\"(tl_a[0]), \"r\"(tl_a[1]), \"r\"(tl_a[2]), "
                                       "\"r\"(tl_a[3]), \"l\"(tl_db), \"r\"(tl_sd));"),
              "sm90_wgmma_rs: an fp8 wgmma with A in 4 registers");
        cases[n] = (SimCase){"sm90_wgmma_rs", (char *)rs, NULL, all[n]};
        names[n++] = "sm90_wgmma_rs";
        lower_arch = "sm_80";
        expect_error("wgmma_raw_sm80.py", raw,
                     "T.warpgroup_arrive: wgmma is an sm_90a instruction; this kernel is "
                     "compiled for sm_80");
        lower_arch = "sm_90a";
    }
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], "sm90_gemm_warp_specialized.py"))
            CHECK(all[i]->src && strstr(all[i]->src, "__launch_bounds__(384, 1)") &&
                      strstr(all[i]->src, "tl_setmaxnreg_dec<40>();") &&
                      strstr(all[i]->src, "} else {  /* threads 256..383 */") &&
                      strstr(all[i]->src, "tl_tma_load(&tl_tmap1, B_shared + "
                                          "((int32_t)((uint32_t)ko % 3u)) * 8192 + 4096"),
                  "sm90_gemm_warp_specialized.py: TMA into the stages, setmaxnreg, one program "
                  "per warp-group set");
    int budgeted = 0; /* every warp-specialized kernel above: 128 to 896 threads */
    for (int i = 0; i < n; i++) budgeted += budgets_fit(names[i], all[i]->src);
    CHECK(budgeted >= 10, "%d warp-specialized kernels with setmaxnreg budgets checked", budgeted);
    test_pass_configs();
    test_pipelined_remark();
    lower_arch = "sm_80";

    SimCase ok[MAXC];
    int nok = 0;
    for (int i = 0; i < n; i++)
        if (all[i]->f && all[i]->src) ok[nok++] = cases[i];
    if (fast_mode())
        fprintf(stderr, "test_emit_cuda: TEST_EMIT_CUDA_FAST: NVRTC and the "
                        "simulation skipped\n");
    else sim_check(ok, nok);

    for (int i = 0; i < n; i++) compiled_free(all[i]);
    for (int i = NPROG; i < NPROG + 2 * nex; i++) free(cases[i].text); /* the examples' */
    free(async);
    free(fa2);
    free(fa2_90);
    free(fa_2wg);
    free(fa_128);
    free(smla80);
    free(ks80);
    if (!getenv("TEST_EMIT_CUDA_KEEP")) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
        if (system(cmd)) fprintf(stderr, "could not remove %s\n", tmpdir);
    } else {
        fprintf(stderr, "kept %s\n", tmpdir);
    }
    printf("test_emit_cuda: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
