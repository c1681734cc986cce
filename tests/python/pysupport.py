"""Setup for the Python package's tests, imported first by each test module (not a
conftest.py: tests/exec has one that its tests import by the name `conftest`, and two in
one pytest run would clash). It arranges: the package from python/ (not an installed
copy), libtilec from the build the suite runs ($TILEC's directory, else build/), a
private kernel cache, the C target, and `tilelang` answered by tilec.compat. Test
modules take `pytestmark` (skips everything under an ASan build) and the fixtures.

Environment: TILEC (path of the tilec binary; its directory holds libtilec.so),
TILEC_LIBRARY (overrides), TILEC_TARGET (default "c")."""
import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = Path(__file__).resolve().parent / "kernels"
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(KERNELS))

if not os.environ.get("TILEC_LIBRARY"):
    _build = Path(os.environ["TILEC"]).parent if os.environ.get("TILEC") else ROOT / "build"
    os.environ["TILEC_LIBRARY"] = str(_build / "libtilec.so")
os.environ.setdefault("TILEC_TARGET", "c")
if not os.environ.get("TILEC_CACHE_DIR"):  # run_tests.py gives one; else a private one
    os.environ["TILEC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tilec-pytest-cache-")
    atexit.register(shutil.rmtree, os.environ["TILEC_CACHE_DIR"], True)


def _asan_library(path):
    """True if the library needs the ASan runtime, which a plain python cannot load
    (it aborts the process): the `make asan` build."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return False
    if b"libasan.so" not in data:
        return False
    with open("/proc/self/maps") as f:
        return "libasan" not in f.read()


LIB = os.environ["TILEC_LIBRARY"]
SKIP_REASON = None  # a missing library is a failure (TilecError in every test), not a skip
if _asan_library(LIB):
    SKIP_REASON = "%s is an ASan build; python needs LD_PRELOAD of libasan for it" % LIB


pytestmark = pytest.mark.skipif(SKIP_REASON is not None, reason=SKIP_REASON or "")


if SKIP_REASON is None:
    import tilec.compat
    tilec.compat.install(force=True)


@pytest.fixture
def ops():
    import tk_ops
    return tk_ops
