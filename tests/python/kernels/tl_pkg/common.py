"""Helpers the kernels import with `from .common import *`."""
import math
from dataclasses import dataclass
from enum import Enum

import tilelang.language as T

__all__ = ["Activation", "RowConfig", "apply_act", "scale_tile", "block_rows", "LOG2E"]

LOG2E = 1.0 / math.log(2.0)


class Activation(Enum):
    NONE = 0
    RELU = 1
    SCALE = 2


@dataclass(frozen=True)
class RowConfig:
    block: int = 4
    threads: int = 64
    act: Activation = Activation.RELU
    dtype: str = "float32"

    @property
    def elems(self):
        return self.block * 2


def block_rows(cfg, rows):
    assert rows % 1 == 0, f"rows must be an int, got {rows}"
    return (rows + cfg.block - 1) // cfg.block


def apply_act(x, act):
    """Used inside kernels: an if on a compile-time enum folds away."""
    if act == Activation.RELU:
        return T.max(x, 0.0)
    if act is Activation.SCALE:
        return x * LOG2E
    return x


@T.macro
def scale_tile(tile, rows, cols, factor):
    for i, j in T.Parallel(rows, cols):
        tile[i, j] = tile[i, j] * factor
