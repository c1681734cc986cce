#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""A real-world style module: a TileLang kernel surrounded by ordinary Python that tilec
does not need (classes, async code, match, walrus, generators, complex numbers). The
statements tilec cannot parse become AST_BAD_STMT; everything else must survive."""
from __future__ import annotations

import os, sys  # noqa: E401
import logging as log
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import tilelang
import tilelang.language as T

__all__ = ["flash_attention", "main"]
_CACHE: Dict[str, Any] = {}
VERBOSE = os.environ.get("VERBOSE", "0") not in ("", "0")
LOG2E = 1.44269504
MASK = 0xFFFF_FFFF
HALF = .5
TINY = 1e-30
PATH = r"C:\temp\new" + '\N{BULLET}' + b"\x00bytes".decode()
FORMATS = {ext: i for i, ext in enumerate(["csv", "png"])}
SQUARES = {x * x for x in range(10) if x % 2}
NESTED = [[i * j for j in range(3)] for i in range(3)]
PAIRS = [(a, b) for a in range(3) for b in range(a) if a != b]
EMPTY_SET, EMPTY_DICT = set(), {}
first, *rest = [1, 2, 3]


async def fetch(url: str, *, timeout: float = 1.0) -> bytes:
    async with open_session() as session:
        return await session.get(url, timeout=timeout)


@dataclass(frozen=True)
class Config:
    """Kernel configuration."""
    block_M: int = 128
    block_N: int = 128
    stages: int = 2
    tags: List[str] = field(default_factory=list)

    @property
    def tile(self) -> Tuple[int, int]:
        return self.block_M, self.block_N

    @staticmethod
    def parse(text: str) -> "Config":
        parts = [int(p) for p in text.split("x")]
        return Config(*parts[:2], stages=parts[2] if len(parts) > 2 else 2)

    def __repr__(self):
        return f"Config({self.block_M!r}x{self.block_N:>4}, stages={self.stages})"


class Shape:
    def __init__(self, *dims):
        self.dims = dims

    def __iter__(self):
        yield from self.dims


class Registry(dict):
    instances = 0

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        Registry.instances += 1

    def register(self, name):
        def deco(fn):
            self[name] = fn
            return fn
        return deco


def walrus_user(data):
    if (n := len(data)) > 10:
        print(f"too long ({n} elements)")
    return n


def gen(n):
    for i in range(n):
        yield i * i


def dispatch(cmd):
    match cmd.split():
        case ["go", direction]:
            return direction
        case _:
            return None


cplx = 1 + 2j


def helper(x, y=None, *args, scale: float = 1.0, **kwargs) -> Optional[float]:
    global _CACHE
    key = f"{x}-{y}"
    if key in _CACHE:
        return _CACHE[key]
    try:
        value = float(x) * scale
    except (TypeError, ValueError) as err:
        log.warning("bad value %s: %s", x, err)
        value = None
    finally:
        pass
    while value is not None and value > 1e6:
        value /= 2
    else:
        _CACHE[key] = value
    with open(os.devnull, "w") as fh, open(os.devnull) as fh2:
        print(value, file=fh, end="\n", sep="")
    del key
    lam = lambda *a, **k: (a, k)  # noqa: E731
    assert callable(lam), "lambda must be callable"
    return value if value is None or value >= 0 else -value


@tilelang.jit(out_idx=[-1])
def flash_attention(batch, heads, seq_len, dim, block_M=64, block_N=64):
    scale = (1.0 / dim) ** 0.5 * LOG2E
    shape = [batch, seq_len, heads, dim]

    @T.prim_func
    def main(Q: T.Tensor(shape, "float16"), K: T.Tensor(shape, "float16"),
             V: T.Tensor(shape, "float16"), Out: T.Tensor(shape, "float16")):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=128) as (bx, by, bz):
            Q_s = T.alloc_shared([block_M, dim], "float16")
            acc = T.alloc_fragment([block_M, dim], "float")
            T.copy(Q[bz, bx * block_M:(bx + 1) * block_M, by, :], Q_s)
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(seq_len, block_N), num_stages=2):
                T.gemm(Q_s, Q_s, acc, transpose_B=True)
            for i, j in T.Parallel(block_M, dim):
                acc[i, j] = acc[i, j] * scale
            T.copy(acc, Out[bz, bx * block_M:(bx + 1) * block_M, by, :])

    return main


def main(argv: Optional[List[str]] = None) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="attn")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--config", type=Config.parse, default=Config())
    args = p.parse_args(argv)
    kernel = flash_attention(args.batch, 8, 256, 64, *args.config.tile)
    print(kernel.get_kernel_source()[:200], end="")
    return 0 if kernel is not None else 1


if __name__ == "__main__":
    sys.exit(main())
