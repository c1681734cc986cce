"""Kernels built from configs and helpers in other modules."""
import tilelang
import tilelang.language as T

from .common import *  # noqa: F401,F403
from . import common as cm


def make_row_kernel(rows: int, cols: int, cfg: RowConfig = RowConfig(), factor=2.0):
    nblocks = block_rows(cfg, rows)
    dtype = T.dtype(cfg.dtype)

    @T.prim_func
    def row_act(A: T.Tensor((rows, cols), dtype), B: T.Tensor((rows, cols), dtype)):
        with T.Kernel(nblocks, threads=cfg.threads) as bx:
            tile = T.alloc_fragment((cfg.block, cols), dtype)
            T.copy(A[bx * cfg.block, 0], tile)
            scale_tile(tile, cfg.block, cols, factor)
            for i, j in T.Parallel(cfg.block, cols):
                tile[i, j] = apply_act(tile[i, j], cfg.act)
            T.copy(tile, B[bx * cfg.block, 0])

    return row_act


@tilelang.jit(out_idx=[-1])
def row_kernel(rows, cols, cfg=RowConfig(), factor=2.0):
    return make_row_kernel(rows, cols, cfg, factor)


@tilelang.jit(out_idx=[-1])
def symbolic_rows(cols: int = 32, block: int = 8):
    """T.dynamic made in Python, arithmetic on it in the factory."""
    n = T.dynamic("n")
    total = n * cols

    @T.prim_func
    def flat_double(A: T.Tensor((n, cols), "float32"), B: T.Tensor((total,), "float32")):
        with T.Kernel(T.ceildiv(n, block), threads=64) as bx:
            for i, j in T.Parallel(block, cols):
                B[(bx * block + i) * cols + j] = A[bx * block + i, j] * cm.LOG2E

    return flat_double


@tilelang.jit(out_idx=[-1])
def symbolic_pair(block: int = 4):
    """A tuple of T.dynamic sizes made in Python (TileLang: a comma-separated list)."""
    rows, cols = T.dynamic("rows, cols")

    @T.prim_func
    def add_sizes(A: T.Tensor((rows, cols), "float32"), B: T.Tensor((rows, cols), "float32")):
        with T.Kernel(T.ceildiv(rows, block), threads=32) as bx:
            for i, j in T.Parallel(block, cols):
                if bx * block + i < rows:
                    B[bx * block + i, j] = A[bx * block + i, j] + rows * 100 + cols

    return add_sizes


@tilelang.jit(out_idx=[-1])
def strided_gather(h: int = 8, dtype=T.float32):
    """T.StridedTensor with a stride that is a T.dynamic symbol."""
    n = T.dynamic("n")
    token_stride = T.dynamic("token_stride")

    @T.prim_func
    def gather(X: T.StridedTensor((n, h), (token_stride, 1), dtype),
               Y: T.Tensor((n, h), dtype)):
        with T.Kernel(n, threads=32) as bx:
            for j in T.Parallel(h):
                Y[bx, j] = X[bx, j] + 1.0

    return gather


@tilelang.jit
def eager_scaled(X, cfg: RowConfig):
    """Eager style with a dataclass config argument."""
    M, N = T.const("M N")
    X: T.Tensor((M, N), T.float32)
    Y = T.empty((M, N), T.float32)
    with T.Kernel(T.ceildiv(M, cfg.block), threads=cfg.threads) as bx:
        for i, j in T.Parallel(cfg.block, N):
            Y[bx * cfg.block + i, j] = apply_act(X[bx * cfg.block + i, j], cfg.act)
    return Y


def reads_a_tensor(table):
    """A factory whose kernel reads a numpy array: an error at the line that reads it."""
    @T.prim_func
    def bad(A: T.Tensor((8,), "float32")):
        with T.Kernel(1, threads=8):
            for i in T.Parallel(8):
                A[i] = table[i]

    return bad



COUNTS = None  # a global the tests set to an array or None


@tilelang.jit
def eager_flag(X):
    """Eager style that only asks whether a global tensor is set (`is not None`, as
    TileLang's NSA backward does): allowed, the tensor never reaches the kernel."""
    M = T.const("M")
    use_counts = COUNTS is not None
    skip = None is COUNTS
    X: T.Tensor((M,), T.float32)
    Y = T.empty((M,), T.float32)
    with T.Kernel(1, threads=32):
        for i in T.Parallel(M):
            Y[i] = X[i] + (1.0 if use_counts else 0.0) + (10.0 if skip else 0.0)
    return Y


@tilelang.jit
def eager_compares(X):
    """Any other comparison of such a tensor is the tensor's error."""
    M = T.const("M")
    big = COUNTS == 3
    X: T.Tensor((M,), T.float32)
    Y = T.empty((M,), T.float32)
    with T.Kernel(1, threads=32):
        for i in T.Parallel(M):
            Y[i] = X[i] + (1.0 if big else 0.0)
    return Y
