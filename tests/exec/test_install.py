"""`make install`: the files land under DESTDIR/PREFIX, the shared library has its SONAME
and versioned links and exports only the API, pkg-config finds the library, and the
README's C example builds from the installed files alone (pkg-config flags, no source
tree) and runs against the installed libtilec.so. Also `tilec info --json`."""
import json
import os
import re
import subprocess

import pytest

from conftest import ROOT, TILEC

BUILD = os.path.dirname(os.path.abspath(TILEC))
VERSION = re.search(r'#define TILEC_VERSION "([^"]+)"',
                    (ROOT / "include" / "tilec.h").read_text()).group(1)


def make_install(prefix, destdir=""):
    proc = subprocess.run(["make", "-s", "BUILD=" + BUILD, "PREFIX=" + str(prefix),
                           "DESTDIR=" + str(destdir), "install"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_install_destdir_layout(tmp_path):
    make_install("/opt/tilec", tmp_path / "stage")
    root = tmp_path / "stage" / "opt" / "tilec"
    major = VERSION.split(".")[0]
    for f in ["bin/tilec", "include/tilec.h", "lib/libtilec.a", "lib/pkgconfig/tilec.pc",
              "lib/libtilec.so.%s" % VERSION]:
        assert (root / f).is_file(), f
    assert os.readlink(root / "lib" / ("libtilec.so.%s" % major)) == "libtilec.so.%s" % VERSION
    assert os.readlink(root / "lib" / "libtilec.so") == "libtilec.so.%s" % major
    # the .pc file names the final prefix, not the staging directory
    pc = (root / "lib" / "pkgconfig" / "tilec.pc").read_text()
    assert "prefix=/opt/tilec\n" in pc and "stage" not in pc and "Version: %s" % VERSION in pc
    so = root / "lib" / ("libtilec.so.%s" % VERSION)
    dyn = subprocess.run(["readelf", "-d", str(so)], capture_output=True, text=True).stdout
    assert "Library soname: [libtilec.so.%s]" % major in dyn
    syms = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True,
                          text=True).stdout.split("\n")
    names = [line.split()[-1] for line in syms if line.strip()]
    header = (ROOT / "include" / "tilec.h").read_text()
    api = set(re.findall(r"\b(tl_[a-z0-9_]+)\(", header))
    assert set(names) == api, (set(names) ^ api)  # the header's functions, no internals
    out = subprocess.run([str(root / "bin" / "tilec"), "--version"], capture_output=True,
                         text=True)
    assert out.stdout.strip() == "tilec %s" % VERSION


def test_installed_library_builds_readme_example(tmp_path):
    prefix = tmp_path / "usr"
    make_install(prefix)
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "tilec"], env=env,
                           capture_output=True, text=True)
    assert flags.returncode == 0, flags.stderr
    assert "-I%s" % (prefix / "include") in flags.stdout
    src = tmp_path / "rms.c"
    src.write_text(re.findall(r"```c\n(.*?)```", (ROOT / "README.md").read_text(), re.S)[0])
    exe = tmp_path / "rms"
    cc = os.environ.get("CC", "cc")
    build = subprocess.run([cc, "-std=c11", str(src), "-o", str(exe)] + flags.stdout.split()
                           + os.environ.get("LDFLAGS", "").split(),  # make asan's runtime
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    env = dict(os.environ, LD_LIBRARY_PATH=str(prefix / "lib"),
               TILEC_CACHE_DIR=str(tmp_path / "cache"))
    ldd = subprocess.run(["ldd", str(exe)], env=env, capture_output=True, text=True).stdout
    assert str(prefix / "lib" / "libtilec.so.") in ldd, ldd  # the installed one, by SONAME
    run = subprocess.run([str(exe)], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert "B[3][0] = -1.0000, B[3][1] = 1.0000" in run.stdout, run.stdout


def test_info_json(tilec):
    proc = tilec.command(["info", "--json"])
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["version"] == VERSION
    assert info["targets"]["c"]["available"] is True and info["targets"]["c"]["toolchain"]
    cuda = info["targets"]["cuda"]
    assert cuda["available"] in (True, False)
    assert (cuda["reason"] is None) == cuda["available"]
    assert info["auto_target"] == ("cuda" if cuda["available"] else "c")
    assert info["cache_dir"] == str(tilec.cache_dir)
    text = tilec.command(["info"]).stdout
    assert "cache dir: %s" % info["cache_dir"] in text
    bad = tilec.command(["info", "--xml"])
    assert bad.returncode == 2 and "--json" in bad.stderr


def test_check_without_gpu_says_it_compared_nothing(tilec):
    proc = tilec.command(["run", "examples/elementwise_add.py", "--target", "c", "--check"])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    note = [i for i, s in enumerate(lines) if s.startswith("check: note: the kernel ran on "
                                                          "the c target, the reference itself")]
    ok = [i for i, s in enumerate(lines) if s.startswith("check: OK")]
    assert note and ok and note[0] < ok[0], proc.stdout  # said before the verdict
    assert "compares two runs of the c target, no GPU" in lines[note[0]]
