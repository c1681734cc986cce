/* frontend.h - what the front end (src/frontend: lex, parse, evaluate, elaborate) offers
 * the rest of the compiler: a kernel source elaborated into tile IR (a Program), the
 * pass_configs keys, and the T namespace table. See DESIGN.md section 1 for the data
 * flow. */
#ifndef TILEC_FRONTEND_H
#define TILEC_FRONTEND_H

#include "ir/ir.h"

/* A factory argument or module constant given by the caller (-D NAME=VALUE). */
typedef struct Define {
    const char *name;
    const char *value; /* Python literal text; a bare word is a string */
} Define;

/* An eager-style kernel's T.const size left symbolic, and the input tensor dimension (or
 * stride) that gives it. */
typedef struct EagerSize {
    const char *name;
    int param, dim; /* index in func->params */
    bool stride;
} EagerSize;

/* What the front end hands to the back end. */
typedef struct Program {
    Func *func; /* the elaborated prim_func; params carry is_output */
    Vec(const char *) warnings;
    Vec(EagerSize) sizes; /* eager style: symbolic T.const sizes */
    bool first_phase;     /* eager style: only the parameters, for the sizes */
} Program;

/* Parse src, run its module level, call the factory (or take the prim_func) named
 * `factory` (NULL: the last function in the file that is decorated with a jit or returns
 * a prim_func, or the last top-level prim_func), bind the defines, and elaborate the
 * kernel into tile IR. out_idx from the decorator (@tilelang.jit(out_idx=...)) or
 * `override_out_idx` (if non-NULL) marks outputs. User errors ctx_fail. */
Program *elaborate(Ctx *ctx, const Source *src, const char *factory, const Define *defs, int ndefs,
                   const int *override_out_idx, int n_override_out_idx);

/* The shape of a tensor an eager-style kernel will be called with: T.const sizes that no
 * define gives are read from it (eager.c). */
typedef struct ArgShape {
    const char *name; /* the parameter; NULL: the next tensor parameter in signature order */
    int ndim;
    const int64_t *shape;
    const int64_t *strides; /* NULL: contiguous */
} ArgShape;

/* Everything a compile asks of the front end (elaborate above is the short form). */
typedef struct ElabRequest {
    const char *factory;
    const Define *defs;
    int ndefs;
    const int *out_idx; /* overrides the program's out_idx when non-NULL */
    int nout_idx;
    const ArgShape *inputs; /* eager style: the call's tensors, or NULL */
    int ninputs;
    const struct tl_capture *capture; /* the Python package's capture (capture.c), or NULL */
    const Define *configs;            /* pass configs from the caller: key -> value text */
    int nconfigs;
} ElabRequest;

Program *elaborate_request(Ctx *ctx, const Source *src, const ElabRequest *rq);

/* pass_configs.c: a pass_configs entry (key as TileLang spells it, value's truth) into
 * ctx->opts (its warnings on f); the key a PassConfigKey member name stands for, or NULL. */
void pass_config_apply(Ctx *ctx, Func *f, const char *key, bool on, Loc loc);
const char *pass_config_member_key(const char *member);
/* pass_configs.c: an nvcc flag of T.annotate_compile_flags (--use_fast_math honoured, the
 * rest a warning on f). */
void compile_flag_apply(Ctx *ctx, Func *f, const char *flag, Loc loc);
/* tileops.c: "T.<name>\t<status>\n" for every T name (malloc'd; tilec info --names). */
char *tl_lang_table(void);

#endif
