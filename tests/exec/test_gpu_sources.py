"""The GPU suite's own CUDA sources build where nvcc is (CI has the toolkit, not a GPU):
tests/gpu/gemm_template_test.cu compiles tl_c.h and tl_cuda.h with nvcc, host pass
included, which NVRTC (device code only) never does; tests/gpu/run.sh runs it on a GPU."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def find_nvcc():
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for c in (os.environ.get("NVCC"), shutil.which("nvcc"), home + "/bin/nvcc"):
        if c and os.access(c, os.X_OK):
            return c
    return None


def test_gemm_template_test_compiles(tmp_path):
    nvcc = find_nvcc()
    if not nvcc:
        pytest.skip("nvcc not found (set NVCC or CUDA_HOME)")
    proc = subprocess.run([nvcc, "-arch=sm_90a", "-c", "-o", str(tmp_path / "t.o"),
                           str(ROOT / "tests/gpu/gemm_template_test.cu")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
