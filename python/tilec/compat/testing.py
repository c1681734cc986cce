"""tilelang.testing for the compatibility layer: the helpers TileLang's tests use."""
import inspect
import random
import sys

from ..profiler import assert_close

__all__ = ["main", "torch_assert_close", "set_random_seed", "requires_cuda",
           "requires_package"]


def main():
    """Runs pytest on the calling file (TileLang's `tilelang.testing.main()`)."""
    import pytest
    caller = inspect.stack()[1].filename
    sys.exit(pytest.main([caller, "-q"]))


def torch_assert_close(a, b, rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.001, **ignored):
    """Compares two tensors or arrays (see tilec.assert_close)."""
    assert_close(a, b, rtol=rtol, atol=atol, max_mismatched_ratio=max_mismatched_ratio)


def set_random_seed(seed=42):
    random.seed(seed)
    import numpy as np
    np.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)


def requires_cuda(func):
    """Skips the test (pytest) unless torch sees a CUDA device."""
    import pytest
    try:
        import torch
        ok = torch.cuda.is_available()
    except ImportError:
        ok = False
    return pytest.mark.skipif(not ok, reason="needs CUDA")(func)


def requires_package(*names):
    """A decorator marking a test to be skipped (under pytest) unless every package in
    `names` imports; a direct call runs the function as it is (as TVM's does)."""
    import importlib.util
    missing = [n for n in names if importlib.util.find_spec(n) is None]

    def mark(func):
        try:
            import pytest
        except ImportError:
            return func
        return pytest.mark.skipif(bool(missing), reason="needs %s" % ", ".join(missing))(func)
    return mark
