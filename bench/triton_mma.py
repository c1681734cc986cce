"""Triton's GEMM on the mma.sync instructions: bench.py's second peer for tilec's mma.sync
path (group mma, issue 3). On sm_90 Triton would use wgmma: call compile() with
DISABLE_MMA_V3=1 in the environment (Triton's MMAv2 then); it checks the PTX.
C = A @ B, A (M,K) and B (K,N) row-major, fp16 or bf16 in and out, fp32 accumulation; the
sizes must divide the config's tiles (the benchmark's do).
"""
import torch
import triton
import triton.language as tl

# (block_M, block_N, block_K, warps, stages): Triton's matmul tutorial configs for sm_80 and
# the ones around them; 128x128x32/4/5 was the fastest on the H200 (docs/journal.md).
CONFIGS = [(128, 256, 64, 8, 3), (256, 128, 64, 8, 3), (128, 128, 64, 4, 4),
           (128, 128, 32, 4, 5), (128, 128, 32, 4, 4), (128, 256, 32, 8, 4),
           (64, 256, 32, 4, 4)]
GROUP_M = 8  # tiles of GROUP_M rows of blocks are walked column by column (L2 reuse)


@triton.jit
def _matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
            GROUP: tl.constexpr):
    pid = tl.program_id(0)
    rows, cols = M // BM, N // BN
    group = pid // (GROUP * cols)
    first = group * GROUP
    height = min(rows - first, GROUP)
    im = first + (pid % (GROUP * cols)) % height
    jn = (pid % (GROUP * cols)) // height
    rm = im * BM + tl.arange(0, BM)
    rn = jn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    pa = a + rm[:, None] * K + rk[None, :]
    pb = b + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, K // BK):
        acc = tl.dot(tl.load(pa), tl.load(pb), acc)
        pa += BK
        pb += BK * N
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(c.dtype.element_ty))


def name(cfg):
    return "%dx%dx%d/%d warps/%d stages" % cfg


def compile(cfg, a, b):
    """A function (a, b) -> C running config cfg, compiled now (Triton reads the environment
    then) for a and b's sizes and dtype; ValueError if Triton did not make an mma.sync
    kernel of it."""
    bm, bn, bk, warps, stages = cfg
    (m, k), n = a.shape, b.shape[1]
    if m % bm or n % bn or k % bk:
        raise ValueError("%dx%dx%d does not divide into %s" % (m, n, k, name(cfg)))

    def run(a, b):
        c = torch.empty((m, n), device=a.device, dtype=a.dtype)
        return _matmul[(m // bm * (n // bn),)](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk,
                                               GROUP=GROUP_M, num_warps=warps,
                                               num_stages=stages), c

    kernel, _ = run(a, b)
    ptx = kernel.asm["ptx"]
    if "mma.sync" not in ptx or "wgmma" in ptx:
        raise ValueError("Triton did not compile %s to mma.sync" % name(cfg))
    return lambda a, b: run(a, b)[1]
