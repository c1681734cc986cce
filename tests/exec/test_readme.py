"""The README's C quick start compiles against build/libtilec.a and prints what it says."""
import os
import re
import subprocess

import pytest

from conftest import ROOT, TILEC


def test_readme_c_quick_start(tmp_path):
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```c\n(.*?)```", readme, re.S)
    assert len(blocks) == 1, "expected one C block in README.md"
    src = tmp_path / "rms.c"
    src.write_text(blocks[0])
    lib = os.path.join(os.path.dirname(TILEC), "libtilec.a")
    if not os.path.exists(lib):
        pytest.fail("%s is missing: build it with `make` first" % lib)
    exe = tmp_path / "rms"
    cc = os.environ.get("CC", "cc")
    build = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", str(src),
                            "-I" + str(ROOT / "include"), lib, "-ldl", "-lxxhash", "-lm",
                            "-lpthread", "-o", str(exe)] + os.environ.get("LDFLAGS", "").split(),
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    env = dict(os.environ, TILEC_CACHE_DIR=str(tmp_path / "cache"))
    run = subprocess.run([str(exe)], cwd=ROOT, capture_output=True, text=True, env=env,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert "B[3][0] = -1.0000, B[3][1] = 1.0000" in run.stdout, run.stdout
