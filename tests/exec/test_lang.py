"""The long tail of the T namespace (src/frontend/tileops_lang.c) against NumPy: the kernel
tests/exec/kernels/lang_tail.py on tiles that divide the tensor and tiles that do not."""
import numpy as np
import pytest


def lang_tail_ref(a, v, bm, bn):
    a64 = a.astype(np.float64)
    f = (np.minimum(np.maximum(a64, -0.5), 0.5) + np.power(10.0, a64 * 0.25) +
         np.abs(a64) * 2.0 + np.where(a64 > 0.0, a64, -a64 * 3.0))
    j = ((v & 0xff0) ^ ((v << 3) | (v >> 2))) + ~v
    M, N = a.shape
    nb = -(-N // bn)
    c = np.zeros((M, nb), np.int32)
    d = np.zeros((M, nb), np.int32)
    for r in range(M):
        for b in range(nb):
            row = np.zeros(bn)  # a padded tile row reads 0 past the tensor
            part = a[r, b * bn:(b + 1) * bn]
            row[:part.size] = part
            neg = np.nonzero(row < 0.0)[0]
            c[r, b] = neg[0] if neg.size else bn
            rr = r % bm
            n1 = sum(row[k] > 0.0 for k in range(rr % 3, bn, 3))
            n2 = sum(row[k] > 0.0 for k in range(bn - 1, rr % 4 - 1, -2 - rr % 2))
            d[r, b] = (row < 0).any() + 2 * (row[:4] < 0).all() + 4 * n1 + 1024 * n2
    h = a.astype(np.float16).view(np.uint16).astype(np.int32)
    g = a.view(np.int32) + h * 3
    hh = a * np.float32(3.0) + a.astype(np.float16).astype(np.float32)
    return f, j.astype(np.int32), c, d, g, hh


@pytest.mark.parametrize("M,N,bm,bn", [(64, 64, 32, 32), (100, 72, 32, 32), (37, 50, 16, 64)])
def test_lang_tail(tilec, M, N, bm, bn):
    rng = np.random.default_rng(26)
    a = rng.uniform(-1.0, 1.0, (M, N)).astype(np.float32)
    a[:, :5] = np.abs(a[:, :5])  # some rows break late
    a[3, :4] = -np.abs(a[3, :4])  # and one row's first four are all negative
    v = rng.integers(-2**20, 2**20, (M, N), dtype=np.int32)
    out = tilec.run("tests/exec/kernels/lang_tail.py", dict(M=M, N=N, bm=bm, bn=bn),
                    {"A": a, "I": v})
    f, j, c, d, g, hh = lang_tail_ref(a, v, bm, bn)
    np.testing.assert_allclose(out["F"].astype(np.float64), f, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out["J"], j)
    np.testing.assert_array_equal(out["C"], c)
    np.testing.assert_array_equal(out["D"], d)
    np.testing.assert_array_equal(out["G"], g)
    np.testing.assert_array_equal(out["H"], hh)
    assert (d % 4 >= 2).any() and (d % 4 < 2).any()  # all_of true and false
    assert c.max() > 5 and c.min() < bn  # breaks taken and not taken


CONFIG_KERNEL = '''import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1], pass_configs={
    tilelang.PassConfigKey.TL_DISABLE_VECTORIZE_256: True,
    "tl.disable_vectorize_256": True,
    tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True,
    tilelang.PassConfigKey.TIR_DISABLE_VECTORIZE: True,
    "tl.no_such_key": 1})
def k(M=64):

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=64) as bx:
            for i in T.Parallel(M):
                B[i] = A[i] + 1.0

    return main
'''


def test_pass_config_warnings(tilec, tmp_path):
    """Keys tilec does not act on are each reported once (whatever their spelling);
    honoured ones (fast math: CUDA only) are not; an unknown key is named."""
    path = tmp_path / "cfg.py"
    path.write_text(CONFIG_KERNEL)
    proc = tilec.command(["run", path, "--target", "c"])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()

    def count(text):
        return sum(text in line for line in lines)

    assert count("cfg.py:11: warning: pass_configs 'tl.disable_vectorize_256': accepted, "
                 "no effect in tilec") == 1, proc.stderr
    assert count("pass_configs 'tirx.disable_vectorize': accepted, no effect in tilec") == 1
    assert count("pass_configs 'tl.no_such_key': not a TileLang 0.1.15 pass config") == 1
    assert count("enable_fast_math") == 0


def test_doc_table_of_names():
    """docs/language.md's table of T names is the one the builtin tables give."""
    import subprocess
    import sys
    from conftest import ROOT, TILEC
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_lang_table.py"), "--check",
                           "--tilec", TILEC], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("M,N,bm,bn", [(64, 64, 32, 32), (100, 72, 32, 32)])
def test_atomic_vec(tilec, M, N, bm, bn):
    rng = np.random.default_rng(27)
    a = rng.uniform(-1.0, 1.0, (M, N)).astype(np.float32)
    out = tilec.run("tests/exec/kernels/atomic_vec.py", dict(M=M, N=N, bm=bm, bn=bn),
                    {"A": a})["B"]
    np.testing.assert_allclose(out, 2.0 * a.astype(np.float64), rtol=1e-6, atol=1e-6)
