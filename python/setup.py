"""Build step of the tilec Python package: `pip install ./python` (from the repository
root) runs `make` in the repository to build build/libtilec.so and build/tilec, copies
them into the package (tilec/libtilec.so, next to tilec/_lib.py, and tilec/bin/tilec,
which the `tilec` command the wheel installs runs: tilec/cli.py), and installs
tilec-tilelang.pth (the import hook that lets `import tilelang` find tilec's
compatibility layer when TileLang is not installed).

TILEC_LIBRARY=/path/libtilec.so uses that library instead of running make (for an
sdist outside the repository, or a library built elsewhere); TILEC_BINARY=/path/tilec
gives the command then (without it the package has no `tilec` command binary, and the
command says so)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def version():
    header = ROOT / "include" / "tilec.h"
    if header.is_file():
        m = re.search(r'#define TILEC_VERSION "([^"]+)"', header.read_text())
        if m:
            return m.group(1)
    m = re.search(r'__version__ = "([^"]+)"', (HERE / "tilec" / "__init__.py").read_text())
    return m.group(1)


def built_library():
    """(path of libtilec.so, path of the tilec binary or None): $TILEC_LIBRARY and
    $TILEC_BINARY, else `make` in the repository root."""
    env = os.environ.get("TILEC_LIBRARY")
    if env:
        binary = os.environ.get("TILEC_BINARY")
        return Path(env), Path(binary) if binary else None
    if not (ROOT / "Makefile").is_file() or not (ROOT / "include" / "tilec.h").is_file():
        raise SystemExit("tilec: no tilec repository around %s to build libtilec in; set "
                         "TILEC_LIBRARY to a built libtilec.so" % HERE)
    jobs = os.environ.get("TILEC_MAKE_JOBS", "2")
    subprocess.check_call(["make", "-C", str(ROOT), "-j", jobs, "build/libtilec.so",
                           "build/tilec"])
    return ROOT / "build" / "libtilec.so", ROOT / "build" / "tilec"


class BuildPy(build_py):
    def run(self):
        super().run()
        lib, binary = built_library()
        dest = Path(self.build_lib) / "tilec" / "libtilec.so"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(lib, dest)
        if binary is not None:
            bin_dest = dest.parent / "bin" / "tilec"
            bin_dest.parent.mkdir(exist_ok=True)
            shutil.copyfile(binary, bin_dest)
            bin_dest.chmod(0o755)
        shutil.copyfile(HERE / "tilec-tilelang.pth", Path(self.build_lib) / "tilec-tilelang.pth")


class BinaryDistribution(Distribution):
    """The wheel holds libtilec.so, so it is platform-specific."""

    def has_ext_modules(self):
        return True


setup(version=version(), cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution)
