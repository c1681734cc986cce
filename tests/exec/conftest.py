"""Shared helpers for the execution tests: run `tilec run` on a kernel file with inputs
written by the test, and read the outputs back as NumPy arrays.

Environment: TILEC (path of the tilec binary, default build/tilec), TILEC_TARGET (default
"c": these are CPU reference tests). The kernel cache goes to a fresh directory per
session so that every run compiles what it tests."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TILEC = os.environ.get("TILEC", str(ROOT / "build" / "tilec"))
TARGET = os.environ.get("TILEC_TARGET", "c")


def define_text(value):
    """A -D value as the Python literal tilec reads."""
    if isinstance(value, str):
        return '"%s"' % value
    return repr(value)


def tf32(a):
    """a (float32) rounded to TF32, as a float32 T.gemm multiplies its operands
    (docs/language.md): 11 significant bits, to nearest with ties away from zero. By
    arithmetic on the significand (np.frexp), independent of tilec's bit operations;
    normal numbers only (what the tests use)."""
    a = np.asarray(a, np.float32).astype(np.float64)
    m, e = np.frexp(a)  # a = m * 2**e, 0.5 <= |m| < 1
    q = np.sign(m) * np.floor(np.abs(m) * 2.0**11 + 0.5)
    return np.ldexp(q / 2.0**11, e).astype(np.float32)


class Tilec:
    def __init__(self, cache_dir, tmp_factory):
        self.cache_dir = cache_dir
        self.tmp_factory = tmp_factory

    def command(self, args, timeout=120):
        """Runs tilec with args; returns the CompletedProcess."""
        env = dict(os.environ, TILEC_CACHE_DIR=str(self.cache_dir))
        return subprocess.run([TILEC] + [str(a) for a in args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=timeout)

    def emit_error(self, tmp_path, head, line, message, targets=("c",), last_only=False):
        """Writes head and then line (a kernel body statement, maybe of several lines,
        indented 12) to bad.py and checks that `tilec emit` fails on each target with
        message at one of the statement's lines (its last one with last_only)."""
        src = tmp_path / "bad.py"
        src.write_text(head + "            " + line + "\n")
        first = head.count("\n") + 1
        last = first + line.count("\n")
        at = ["bad.py:%d:" % n for n in range(last if last_only else first, last + 1)]
        for target in targets:
            proc = self.command(["emit", src, "--target", target])
            assert proc.returncode != 0, proc.stdout
            assert message in proc.stderr, proc.stderr
            assert any(a in proc.stderr for a in at), proc.stderr

    def run(self, kernel, defines=None, inputs=None, seed=0, extra=()):
        """Runs examples/<kernel> with -D defines and the given input arrays; returns
        {param name: output array} for every .npy file tilec wrote."""
        work = self.tmp_factory.mktemp("run")
        out_dir = work / "out"
        args = ["run", kernel, "--target", TARGET, "--seed", seed, "--out-dir", out_dir]
        for name, value in (defines or {}).items():
            args += ["-D", "%s=%s" % (name, define_text(value))]
        for name, array in (inputs or {}).items():
            path = work / ("%s.npy" % name)
            np.save(path, np.ascontiguousarray(array))
            args += ["--in", "%s=%s" % (name, path)]
        args += list(extra)
        proc = self.command(args)
        if proc.returncode != 0:
            pytest.fail("tilec %s failed (exit %d)\nstdout:\n%s\nstderr:\n%s" %
                        (" ".join(str(a) for a in args), proc.returncode, proc.stdout,
                         proc.stderr))
        outs = {p.stem: np.load(p) for p in sorted(out_dir.glob("*.npy"))}
        if not outs:
            pytest.fail("tilec wrote no outputs to %s\nstdout:\n%s" % (out_dir, proc.stdout))
        return outs


@pytest.fixture(scope="session")
def tilec(tmp_path_factory):
    if not os.access(TILEC, os.X_OK):
        pytest.fail("%s is missing: build it with `make` first" % TILEC)
    return Tilec(tmp_path_factory.mktemp("cache"), tmp_path_factory)
