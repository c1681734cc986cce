"""The same program shapes through `tilec run`, where libtilec's own evaluator runs the
Python around the kernel: sibling and package imports, dataclass and enum configs given
with -D, plain classes with methods. References are numpy."""
from pysupport import pytestmark  # noqa: F401 (ASan skip); first

import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = Path(__file__).resolve().parent / "kernels" / "tl_pkg"
TILEC = os.environ.get("TILEC") or str(ROOT / "build" / "tilec")


def run(args, tmp_path):
    p = subprocess.run([TILEC, "run", "--target", "c", "--out-dir", str(tmp_path)] + args,
                       capture_output=True, text=True)
    return p


def test_dataclass_enum_config_from_define(tmp_path):
    a = np.random.default_rng(0).uniform(-1, 1, (12, 16)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    p = run(["%s:row_kernel" % (PKG / "kernels.py"), "-D", "rows=12", "-D", "cols=16", "-D",
             "cfg=RowConfig(block=2, act=Activation.RELU)", "-D", "factor=0.5",
             "--in", "A=%s" % (tmp_path / "a.npy")], tmp_path)
    assert p.returncode == 0, p.stderr
    np.testing.assert_allclose(np.load(tmp_path / "B.npy"), np.maximum(a * 0.5, 0), rtol=1e-6)


@pytest.mark.parametrize("mode,sign", [(1, 1.0), (2, -1.0)])
def test_classes_and_package_imports(tmp_path, mode, sign):
    a = np.random.default_rng(mode).uniform(-1, 1, (100,)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    p = run([str(PKG / "classes.py"), "-D", "mode=%d" % mode, "--in",
             "A=%s" % (tmp_path / "a.npy")], tmp_path)
    assert p.returncode == 0, p.stderr
    np.testing.assert_allclose(np.load(tmp_path / "B.npy"), a * sign, rtol=1e-6)


def test_eager_with_config_from_define(tmp_path):
    p = run(["%s:eager_scaled" % (PKG / "kernels.py"), "-D", "M=9", "-D", "N=20", "-D",
             "cfg=RowConfig(act=Activation.SCALE)"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert np.load(tmp_path / "Y.npy").shape == (9, 20)


def test_errors_name_the_class_and_value(tmp_path):
    p = run([str(PKG / "classes.py"), "-D", "mode=3"], tmp_path)
    assert p.returncode != 0
    assert "3 is not a valid Mode" in p.stderr or "int 3 is not a valid Mode" in p.stderr, p.stderr
    p = run(["%s:row_kernel" % (PKG / "kernels.py"), "-D", "rows=8", "-D", "cols=8", "-D",
             "cfg=RowConfig(blk=2)"], tmp_path)
    assert "RowConfig() got an unexpected keyword argument 'blk'" in p.stderr, p.stderr
