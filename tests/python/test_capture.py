"""From Python, Python runs the Python: factories built with ordinary Python (dataclass
and enum configs, helpers and macros imported from sibling modules, closures, math,
T.dynamic arithmetic, strided symbolic tensors) compile, on the C target, with numpy
references. Kernels live in kernels/tl_pkg/."""
from pysupport import pytestmark  # noqa: F401 (ASan skip); first

import math

import numpy as np
import pytest

import tilec
from pysupport import SKIP_REASON

if SKIP_REASON is None:  # tl_pkg imports tilelang, which the compat layer answers
    from tl_pkg import kernels
    from tl_pkg.common import Activation, RowConfig
else:
    kernels = None
    Activation, RowConfig = (), None

LOG2E = 1.0 / math.log(2.0)


def rand(shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(np.float32)


@pytest.mark.parametrize("act", list(Activation))
def test_dataclass_enum_config_and_imported_helpers(act):
    cfg = RowConfig(block=4, threads=64, act=act)
    a = rand((12, 16), 1)
    b = kernels.row_kernel(12, 16, cfg, factor=1.5)(a)
    x = a * 1.5
    ref = {Activation.NONE: x, Activation.RELU: np.maximum(x, 0),
           Activation.SCALE: x * LOG2E}[act]
    np.testing.assert_allclose(b, ref, rtol=1e-6, atol=1e-6)


def test_kernels_differ_by_config_value():
    """Two configs that differ only in a field give two kernels; the same config one."""
    k1 = kernels.row_kernel(8, 16, RowConfig(act=Activation.NONE))
    k2 = kernels.row_kernel(8, 16, RowConfig(act=Activation.RELU))
    assert k1 is not k2
    assert k1 is kernels.row_kernel(8, 16, RowConfig(act=Activation.NONE))


def test_plain_factory_through_tilelang_compile():
    import tilelang
    pf = kernels.make_row_kernel(8, 16, RowConfig(block=2, act=Activation.SCALE), 1.0)
    k = tilelang.compile(pf, out_idx=[-1])
    a = rand((8, 16), 2)
    np.testing.assert_allclose(k(a), a * LOG2E, rtol=1e-6)


def test_dynamic_sizes_made_in_python():
    k = kernels.symbolic_rows(cols=32, block=8)
    for n in (8, 13):
        a = rand((n, 32), n)
        np.testing.assert_allclose(k(a), (a * LOG2E).reshape(-1), rtol=1e-6)


def test_dynamic_name_list_made_in_python():
    k = kernels.symbolic_pair(block=4)
    for shape in ((5, 3), (9, 16)):
        a = rand(shape, shape[0])
        np.testing.assert_allclose(k(a), a + shape[0] * 100 + shape[1], rtol=1e-6)
    import tilelang.language as T
    assert len(T.dynamic("B S H")) == 3
    with pytest.raises(ValueError, match="an empty name"):
        T.dynamic("B, , H")


def test_strided_symbolic_tensor():
    k = kernels.strided_gather(h=8)
    base = rand((10, 24), 3)
    x = base[:, 4:12]  # rows 24 elements apart
    np.testing.assert_allclose(k(x), x + 1.0, rtol=1e-6)


def test_eager_with_dataclass_argument():
    x = rand((9, 20), 4)
    y = kernels.eager_scaled(x, RowConfig(block=4, act=Activation.RELU))
    np.testing.assert_allclose(y, np.maximum(x, 0), rtol=1e-6)


def test_value_that_cannot_reach_a_kernel():
    with pytest.raises(tilec.TilecError, match=r"kernels.py:\d+:\d+: error: 'table' is a "
                                               r"ndarray \(tensors reach a kernel as its arguments"):
        tilec.compile(kernels.reads_a_tensor(np.zeros(8)))


def test_tensor_compared_with_none(monkeypatch):
    a = rand((8,), 5)
    monkeypatch.setattr(kernels, "COUNTS", np.zeros(3))
    np.testing.assert_allclose(kernels.eager_flag(a), a + 1.0, rtol=1e-6)
    with pytest.raises(tilec.TilecError, match=r"'COUNTS' is a ndarray \(tensors reach"):
        kernels.eager_compares(a)
    monkeypatch.setattr(kernels, "COUNTS", None)
    np.testing.assert_allclose(kernels.eager_flag(a), a + 10.0, rtol=1e-6)


def test_classes_methods_and_package_imports_from_python():
    """tl_pkg/classes.py (plain class with a method called in the kernel, IntEnum,
    `import tl_pkg.sub.tiles as tiles`) through the capture."""
    from tl_pkg import classes
    a = rand((100,), 9)
    np.testing.assert_allclose(classes.transform(100, mode=2)(a), -a, rtol=1e-6)
    np.testing.assert_allclose(classes.transform(100, mode=1, block=16)(a), a, rtol=1e-6)


def test_host_helpers_run_once_in_python(monkeypatch):
    """A helper of no arguments that reads a host module (sys, os; torch in TileLang's
    examples) runs in Python and the kernel sees its result; its value is part of the
    kernel's key. One with arguments is evaluated by libtilec, where os cannot be."""
    import tl_host
    a = rand((20, 8), 3)
    monkeypatch.setenv("TL_HOST_SCALE", "3.0")
    np.testing.assert_allclose(tl_host.host_scaled(a), a * 3.0, rtol=1e-6)
    monkeypatch.setenv("TL_HOST_SCALE", "0.5")
    np.testing.assert_allclose(tl_host.host_scaled(a), a * 0.5, rtol=1e-6)
    with pytest.raises(tilec.TilecError, match="os.environ"):
        tl_host.host_with_args(rand((8,), 4))
