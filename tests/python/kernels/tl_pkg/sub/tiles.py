"""Imported as `import tl_pkg.sub.tiles as tiles` (an absolute import from the package root)."""
from enum import IntEnum


class Mode(IntEnum):
    COPY = 1
    NEGATE = 2


class Tiling:
    """A plain class with __init__ and a method."""

    def __init__(self, block, threads=64):
        self.block = block
        self.threads = threads

    def blocks(self, n):
        return (n + self.block - 1) // self.block


def pick(mode_value):
    return Mode(mode_value)
