/* pipeline.h - the parts of software pipelining that the cp.async pipeline
 * (pipeline_async.c) and the warp-specialized TMA pipeline (warp_specialize.c) share.
 * Private to src/targets/cuda/passes. */
#ifndef TILEC_CUDA_PIPELINE_H
#define TILEC_CUDA_PIPELINE_H

#include "passes/schedule.h"
#include "targets/cuda/passes/cuda_passes.h"

enum { PIPE_MAX_PRODUCERS = 16 };

/* The number of leading copies global -> shared of loop L's body (in kernel) that can be
 * pipelined: whole-tile vector copies, from tensors the kernel does not write, into
 * distinct buffers that nothing else in the kernel touches (0: none). */
int pipe_producer_count(Stmt *kernel, Stmt *L);
/* (k - L.min) % stages. */
Expr *pipe_stage_of(Ctx *ctx, Expr *k, const Stmt *L, int stages);
/* Producer copy c of loop L for iteration k (an expression), into its stage of the stacked
 * destination. */
Stmt *pipe_produce(Ctx *ctx, const Stmt *c, const Stmt *L, Expr *k, int stages);
/* Rewrites s (a statement of L's body after the producers): the stacked buffers bufs[0..n)
 * are read at stage(L.var). */
void pipe_restage(Ctx *ctx, Stmt **s, Buffer *const *bufs, int n, const Stmt *L, int stages);
/* Gives b a leading dimension of `stages`; every stage is written before it is read. */
void pipe_stack_buffer(Ctx *ctx, Buffer *b, int stages);
/* The body's wgmma gemm on pipelined tiles (bufs) whose accumulator nothing else in the
 * body touches, which can stay in flight into the next iteration; NULL if none. */
Stmt *pipe_inflight_gemm(Stmt *body, int nprod, Buffer *const *bufs);
/* Whether no statement of the body after the producers but g touches bufs[0..nprod). */
bool pipe_only_gemm_reads(Stmt *body, int nprod, Buffer *const *bufs, const Stmt *g);
/* Whether s (or a statement in it) reads or writes b. */
bool pipe_touches(Stmt *s, const Buffer *b);
/* The wait after the loop for an in-flight gemm (and the fence of its accumulator). */
Stmt *pipe_wgmma_drain(Ctx *ctx, const Stmt *gemm, Loc loc);

/* wgmma_waits.c: seq (straight-line code, flattened) with its wgmma gemms issued without waiting
 * (gemm.deferred) and a wait (STMT_ASYNC) before each statement that touches the
 * accumulator of one still running or writes one's operands, retiring it and those
 * issued before it; a statement with a wgmma inside waits for all, and so does the end. */
Stmt *pipe_wgmma_waits(Ctx *ctx, Stmt *seq);

/* FlashAttention-3's warp-group ping-pong: a TURN_WAIT before the first wgmma of seq (a
 * scheduled loop's straight-line part) and a TURN_PASS after its last; false (seq
 * unchanged) when there is none or the statements between touch shared memory (a block
 * barrier there would deadlock the turns; pass_check_turns drops the turns of a kernel
 * where one lands all the same). pipe_turn: a TURN statement. */
bool pipe_turn_window(Ctx *ctx, Stmt *seq);
Stmt *pipe_turn(Ctx *ctx, TurnOp op, Loc loc);

/* warp_specialize.c: the tensor map and boxes of a TMA copy between region g of a
 * global tensor parameter and shared tile t (a whole tile, or a stage of a stacked one;
 * 1-D or 2-D after dropping unit dims) when TMA can move the tile's layout, else NULL;
 * pipe_tma_plan: that of copy c (global -> shared); and the kernel's maps extended by
 * maps[0..n). */
TmaMap *pipe_tma_plan_tile(Ctx *ctx, const Func *f, const Region *g, const Region *t);
TmaMap *pipe_tma_plan(Ctx *ctx, const Func *f, const Stmt *c);
void pipe_add_tmaps(Ctx *ctx, Stmt *k, TmaMap *const *maps, int n);
/* warp_specialize.c: replaces kernel k's T.Pipelined loop by a TMA producer warp group
 * and consumer warp groups synchronised by mbarriers when the kernel allows it (sm_90,
 * TMA-able tiles); returns whether it did. */
bool pipe_warp_specialize(Ctx *ctx, Func *f, Stmt *k);

#endif
