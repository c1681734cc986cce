"""The C target's OpenMP wait policy: loading a kernel sets OMP_WAIT_POLICY=passive when
the process chose nothing (spinning workers cost milliseconds per call on a busy CPU),
and leaves a policy the caller set alone. Each case runs in a fresh interpreter, since
the OpenMP runtime reads its settings once, when it is loaded."""
from pysupport import pytestmark  # noqa: F401 (the ASan skip); first: sets sys.path

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
CODE = """
import ctypes, sys
sys.path[:0] = [%r, %r]
import tilec.compat; tilec.compat.install()
import numpy as np, tk_ops
k = tk_ops.scale_add(M=64, N=32)
a = np.ones((64, 32), np.float32)
assert float(k(a, a)[0, 0]) == 3.0
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
print("policy", (libc.getenv(b"OMP_WAIT_POLICY") or b"unset").decode())
""" % (str(HERE.parents[1] / "python"), str(HERE / "kernels"))


def policy_after_a_kernel(**env_extra):
    env = dict(os.environ, TILEC_TARGET="c")
    for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME"):
        env.pop(k, None)
    env.update(env_extra)
    proc = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split("policy ")[1].strip()


def test_passive_when_unset():
    assert policy_after_a_kernel() == "passive"


@pytest.mark.parametrize("var,value", [("OMP_WAIT_POLICY", "active"),
                                       ("GOMP_SPINCOUNT", "1000")])
def test_callers_choice_is_kept(var, value):
    assert policy_after_a_kernel(**{var: value}) == ("active" if var == "OMP_WAIT_POLICY"
                                                     else "unset")
