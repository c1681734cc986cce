"""The docs are tested, not trusted: every shell command of README.md, docs/*.md and
examples/README.md (the lines of ```sh blocks, and `$ ` lines of plain blocks) either
runs here and must succeed, or is listed in NOT_RUN with the reason (a GPU, the suite
itself, a system change). A new command in the docs that is in neither fails this test.

Commands run with /bin/sh in a scratch directory that links the repository's examples,
tests and python directories and the suite's build directory as build/ (so `--out-dir
out` and `a.npy` land there), with `tilec` on the PATH and, after `pip install
./python` (emulated: the package of the source tree, with its import hook), the
package importable; the README's virtual environment is made for real (`pip install`
into it builds the package with make and needs PyPI for setuptools). The README's set-up line runs against stand-ins for apt-get and
sudo, as root and as a user with sudo."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, TILEC

BUILD = Path(TILEC).resolve().parent
DOCS = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")) \
    + ["examples/README.md"]

# Commands not run here, by their text (after `$ ` and without the comment).
NOT_RUN = {
    ".ci/run": "installs packages and runs the whole suite: CI runs it",
    "make test": "runs the suite this test is part of",
    "python3 tests/run_tests.py --build build": "runs the suite this test is part of",
    "python3 tests/run_tests.py --build build --quick": "runs the suite this test is part of",
    "python3 tests/run_tests.py --build build --update-golden": "rewrites the golden files",
    "make asan": "runs the suite again under the sanitizers: CI runs it (.ci/run)",
    "make fuzz-run FUZZ_SECONDS=60": "a libFuzzer run of minutes: CI runs it (.ci/run)",
    "cd examples && ../.venv/bin/python3 -m tilec.compat gemm.py":
        "needs torch with CUDA (tests/gpu)",
    "cd examples && python3 -m tilec.compat softmax.py": "needs torch with CUDA (tests/gpu)",
    "cc app.c $(pkg-config --cflags --libs tilec) -o app":
        "app.c is the reader's program; test_install.py builds README's C example this way",
}
SETUP = "apt-get install"  # the README's set-up line: test_setup_line_as_root_and_with_sudo


def strip_comment(line):
    return re.sub(r"\s+#\s.*$", "", line).strip()


def doc_commands():
    """[(file, line number, command, expected output lines or None)]."""
    out = []
    for name in DOCS:
        text = (ROOT / name).read_text()
        for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S):
            first = text.count("\n", 0, m.start(2)) + 1
            lines = m.group(2).splitlines()
            for i, line in enumerate(lines):
                if m.group(1) in ("sh", "bash") and line.strip() and \
                        not line.lstrip().startswith("#"):
                    out.append((name, first + i, strip_comment(line), None))
                elif m.group(1) == "" and line.startswith("$ "):
                    follow = []
                    for nxt in lines[i + 1:]:
                        if nxt.startswith("$ "):
                            break
                        follow.append(nxt)
                    out.append((name, first + i, strip_comment(line[2:]), follow))
    return out


COMMANDS = doc_commands()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    d = tmp_path_factory.mktemp("docs")
    for sub in ("examples", "tests", "python", "include"):
        (d / sub).symlink_to(ROOT / sub)
    (d / "build").symlink_to(BUILD)
    bindir = d / "bin"
    bindir.mkdir()
    (bindir / "tilec").symlink_to(BUILD / "tilec")
    site = d / "site"  # `pip install ./python`, emulated: the package and its hook
    site.mkdir()
    (site / "sitecustomize.py").write_text("import site\nsite.addsitedir(%r)\n"
                                           % str(ROOT / "python"))
    env = dict(os.environ, PATH="%s:%s" % (bindir, os.environ["PATH"]),
               PYTHONPATH=str(site), TILEC_LIBRARY=str(BUILD / "libtilec.so"),
               TILEC_CACHE_DIR=str(d / "cache"), TILEC_TARGET="c")
    return d, env


def run_sh(cmd, cwd, env, timeout=600):
    return subprocess.run(["/bin/sh", "-c", cmd], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_every_command_is_run_or_listed():
    unknown = [(f, n, c) for f, n, c, _ in COMMANDS if c not in NOT_RUN and SETUP not in c]
    assert unknown  # the runnable ones below
    for cmd in NOT_RUN:
        assert any(c == cmd for _, _, c, _ in COMMANDS), "NOT_RUN lists %r, no doc has it" % cmd
    assert any(SETUP in c for _, _, c, _ in COMMANDS)


def rewrite(cmd, scratch):
    """The command as run here: make in the repository with the suite's build (and
    DESTDIR in the scratch directory for make install)."""
    if cmd == "pip install ./python":
        return None  # emulated by the scratch environment (test_toolbox builds the package)
    make = "make -s -C %s BUILD=%s" % (ROOT, BUILD)
    if cmd.startswith("make install"):
        return cmd.replace("make", make, 1) + " DESTDIR=%s" % (scratch / "stage")
    return re.sub(r"^make(?= |$)", make, cmd)


RUNNABLE = [c for c in COMMANDS if c[2] not in NOT_RUN and SETUP not in c[2]]


def asan_library():
    """True for `make asan`'s library, which a plain python cannot load (as pysupport)."""
    try:
        return b"libasan.so" in (BUILD / "libtilec.so").read_bytes()
    except OSError:
        return False


@pytest.mark.parametrize("doc,line,cmd,expect", RUNNABLE,
                         ids=["%s:%d" % (c[0], c[1]) for c in RUNNABLE])
def test_doc_command(scratch, doc, line, cmd, expect):
    d, env = scratch
    sh = rewrite(cmd, d)
    if sh is None:
        return
    if ("quickstart.py" in sh or ".venv" in sh) and asan_library():
        pytest.skip("python cannot load the ASan build of libtilec")
    if ".venv" in sh:  # the README's own environment: the installed package, built by make
        env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "TILEC_LIBRARY")}
    if "a.npy" in sh and "np.save" not in sh:  # the README makes it one line before
        assert (d / "a.npy").is_file(), "a.npy should exist: the line before makes it"
    litter = [ROOT / "python" / n for n in ("build", "tilec.egg-info")]
    litter = [p for p in litter if not p.exists()]  # pip's in-tree build leaves these
    proc = run_sh(sh, d, env)
    for p in litter:
        shutil.rmtree(p, ignore_errors=True)
    text = proc.stdout + proc.stderr
    if expect and any(": error: " in e for e in expect):  # a documented error
        assert proc.returncode == 1, text
        want = [e for e in expect if e.strip()]
        assert proc.stderr.splitlines()[:len(want)] == want, proc.stderr
        return
    assert proc.returncode == 0, "%s:%d: %s\n%s" % (doc, line, cmd, text[-3000:])
    if "--check" in sh:
        assert "check: OK" in proc.stdout
        assert "compares two runs of the c target" in proc.stdout or "cuda" in proc.stdout
    if cmd.startswith("make install"):
        assert (d / "stage" / "usr" / "local" / "lib" / "pkgconfig" / "tilec.pc").is_file()


def test_readme_makes_a_npy_before_reading_it():
    cmds = [c for f, _, c, _ in COMMANDS if f == "README.md"]
    reads = next(i for i, c in enumerate(cmds) if "--in A=a.npy" in c)
    assert any("a.npy" in c and "np.save" in c for c in cmds[:reads])


@pytest.mark.parametrize("with_sudo", [False, True])
def test_setup_line_as_root_and_with_sudo(tmp_path, with_sudo):
    """The README's apt-get line with stand-ins: as root on a fresh Debian (no sudo
    installed) apt-get runs itself; where sudo exists, through sudo. Either way `apt-get
    update` comes first and the packages the build needs are installed."""
    line = next(c for _, _, c, _ in COMMANDS if SETUP in c)
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    log = tmp_path / "log"
    (stubs / "apt-get").write_text("#!/bin/sh\necho \"apt-get $*\" >> %s\n" % log)
    if with_sudo:
        (stubs / "sudo").write_text("#!/bin/sh\necho sudo >> %s\nexec \"$@\"\n" % log)
    for f in stubs.iterdir():
        f.chmod(0o755)
    proc = subprocess.run(["/bin/sh", "-c", line], env={"PATH": str(stubs)},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    got = log.read_text().splitlines()
    calls = [g for g in got if g != "sudo"]
    assert calls[0] == "apt-get update" and calls[1].startswith("apt-get install -y ")
    assert got.count("sudo") == (2 if with_sudo else 0)
    needs = {"gcc", "make", "libdlpack-dev", "libxxhash-dev"}
    assert needs <= set(calls[1].split()[3:])


def test_python_quick_start_is_the_file_the_readme_runs():
    code = (ROOT / "examples" / "python" / "quickstart.py").read_text()
    body = code[code.index("import numpy as np"):]
    assert "```python\n" + body + "```" in (ROOT / "docs" / "python.md").read_text()
