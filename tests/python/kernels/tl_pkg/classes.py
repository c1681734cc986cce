"""Classes, enums and absolute package imports, for tilec's own evaluator (tilec run)."""
import tilelang
import tilelang.language as T

import tl_pkg.sub.tiles as tiles
from tl_pkg.sub.tiles import Mode, Tiling


@tilelang.jit(out_idx=[-1])
def transform(n: int = 100, mode: int = 2, block: int = 32):
    tiling = Tiling(block)
    m = tiles.pick(mode)
    assert m is Mode.NEGATE or m == Mode.COPY, f"unknown mode {m}"
    sign = -1.0 if m is Mode.NEGATE else 1.0

    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        with T.Kernel(tiling.blocks(n), threads=tiling.threads) as bx:
            for i in T.Parallel(tiling.block):
                B[bx * tiling.block + i] = A[bx * tiling.block + i] * sign

    return main
