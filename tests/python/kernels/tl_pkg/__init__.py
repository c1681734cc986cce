"""A small TileLang-based library, written the way production code builds kernels:
dataclass and enum configs, helpers and macros imported from sibling modules, closures,
math, asserts with f-strings (tests/python/test_capture.py)."""
