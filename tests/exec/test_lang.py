"""The long tail of the T namespace (src/frontend/tileops_lang.c) against NumPy: the kernel
tests/exec/kernels/lang_tail.py on tiles that divide the tensor and tiles that do not."""
import numpy as np
import pytest
from conftest import tf32


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


WS_GEMM = """import tilelang.language as T

@T.prim_func
def gemm(A: T.Tensor((512, 512), "float16"), B: T.Tensor((512, 512), "float16"),
         C: T.Tensor((512, 512), "float16")):
    with T.Kernel(4, 4, threads=256) as (bx, by):
        %s
        As = T.alloc_shared((128, 64), "float16")
        Bs = T.alloc_shared((64, 128), "float16")
        Cl = T.alloc_fragment((128, 128), "float32")
        T.clear(Cl)
        for k in T.Pipelined(8, num_stages=3):
            T.copy(A[by * 128, k * 64], As)
            T.copy(B[k * 64, bx * 128], Bs)
            T.gemm(As, Bs, Cl)
        T.copy(Cl, C[by * 128, bx * 128])
"""


@pytest.mark.parametrize("call", ["T.no_set_max_nreg()", "T.disable_warp_group_reg_alloc()"])
def test_no_set_max_nreg(tilec, tmp_path, monkeypatch, call):
    """A warp-specialized sm_90a GEMM moves registers between its warp groups with
    setmaxnreg, unless the kernel says T.no_set_max_nreg() (emit only: no GPU needed)."""
    monkeypatch.setenv("TILEC_CUDA_ARCH", "sm_90a")
    sources = []
    for line in ("pass", call):
        path = tmp_path / "ws.py"
        path.write_text(WS_GEMM % line)
        proc = tilec.command(["emit", path, "--target", "cuda", "--source"])
        assert proc.returncode == 0, proc.stderr
        sources.append(proc.stdout)
    assert "the producer warp group" in sources[0] and "the producer warp group" in sources[1]
    assert "tl_setmaxnreg_dec<" in sources[0] and "tl_setmaxnreg_inc<" in sources[0]
    assert "tl_setmaxnreg_dec<" not in sources[1] and "tl_setmaxnreg_inc<" not in sources[1]


def test_dtype_aliases(tilec, tmp_path):
    """TileLang's T.int / T.uint / T.long / T.short are int32 / uint32 / int64 / int16
    (T.tfloat32: float32 storage),
    in the kernel file (libtilec; test_toolbox checks the compatibility layer's)."""
    path = tmp_path / "alias.py"
    path.write_text("import tilelang.language as T\n\n@T.prim_func\n"
                    "def k(A: T.Tensor((4,), T.uint), B: T.Tensor((4,), T.long),\n"
                    "      C: T.Tensor((4,), T.short), D: T.Tensor((4,), T.dtype('int')),\n"
                    "      E: T.Tensor((4,), T.tfloat32)):\n"
                    "    with T.Kernel(1) as bx:\n        pass\n")
    proc = tilec.command(["emit", path, "--ir"])
    assert proc.returncode == 0, proc.stderr
    for text in ("uint32[4]", "int64[4]", "int16[4]", "int32[4]", "E: global float32[4]"):
        assert text in proc.stdout, proc.stdout


@pytest.mark.parametrize("n", [1, 64, 333, 1000])
def test_grid_sized_by_scalar(tilec, n):
    """T.Kernel(T.ceildiv(n, 64)) with n a scalar argument: on CUDA the launch evaluates
    the grid from the argument (tests/gpu/run.sh runs this on the cuda target)."""
    a = np.random.default_rng(n).standard_normal((1000, 8)).astype(np.float32)
    out = tilec.run("tests/exec/kernels/scalar_grid.py", inputs={"A": a},
                    extra=["--in", "n=%d" % n])
    want = a.copy()
    want[:n] += 1.0
    np.testing.assert_allclose(out["A"], want, rtol=0, atol=0)


def test_tir_helpers(tilec):
    """tvm.tirx.const / Select / reinterpret(dtype, value) and PrimExpr.astype in a helper
    function, against numpy's bit manipulation."""
    a = np.random.default_rng(7).integers(0, 256, 128, dtype=np.uint8)
    out = tilec.run("tests/exec/kernels/tir_helpers.py", inputs={"A": a})
    nib = np.stack([a & 15, a >> 4], axis=1).reshape(-1).astype(np.uint16)
    want = ((nib << 10) | 1).astype(np.uint16).view(np.float16)
    np.testing.assert_array_equal(out["B"].view(np.uint16), want.view(np.uint16))


def conv_ref(x, w, K, S, D, P):
    """NHWC x (N, H, W, C) with w (K, K, C, F): the direct sum, in float64."""
    N, H, W, C = x.shape
    F = w.shape[-1]
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1
    xp = np.zeros((N, H + 2 * P, W + 2 * P, C))
    xp[:, P:P + H, P:P + W] = x
    out = np.zeros((N, OH, OW, F))
    for kh in range(K):
        for kw in range(K):
            patch = xp[:, kh * D:kh * D + S * (OH - 1) + 1:S, kw * D:kw * D + S * (OW - 1) + 1:S]
            out += patch @ w[kh, kw].astype(np.float64)
    return out.reshape(N * OH * OW, F)


@pytest.mark.parametrize("N,C,H,W,F,K,S,D,P", [(2, 8, 9, 7, 40, 3, 1, 1, 1),
                                               (1, 16, 12, 12, 32, 3, 2, 1, 0),
                                               (2, 4, 10, 11, 8, 3, 1, 2, 2)])
def test_im2col_conv(tilec, N, C, H, W, F, K, S, D, P):
    """T.im2col tiles (padding, stride, dilation; rows and columns past the GEMM's edge)
    times the filter, against a direct convolution."""
    rng = np.random.default_rng(N * 100 + C)
    x = rng.standard_normal((N, H, W, C)).astype(np.float32)
    w = rng.standard_normal((K, K, C, F)).astype(np.float32)
    defines = dict(N=N, C=C, H=H, W=W, F=F, K=K, S=S, D=D, P=P)
    out = tilec.run("tests/exec/kernels/im2col_conv.py:conv", defines,
                    {"data": x, "kernel": w.reshape(K * K * C, F)})
    # the GEMM multiplies TF32 operands (float32 T.gemm)
    np.testing.assert_allclose(out["out"], conv_ref(tf32(x), tf32(w), K, S, D, P), rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("sms", [7, 132])
def test_get_num_sms(tilec, sms):
    """get_num_sms() in a factory is the sm_count setting (the GPU's when one is there)."""
    out = tilec.run("tests/exec/kernels/num_sms.py:k", {"M": 1000},
                    extra=["--set", "sm_count=%d" % sms])
    np.testing.assert_array_equal(out["A"], np.arange(1000) % sms)


def test_views(tilec):
    """T.Tensor(shape, dtype, buf.data), T.reshape and T.view address the same memory."""
    a = np.random.default_rng(5).standard_normal((4, 8, 16)).astype(np.float32)
    out = tilec.run("tests/exec/kernels/views.py", inputs={"A": a})
    np.testing.assert_array_equal(out["B"], 2 * a.reshape(32, 16))


def persistent_owners(MT, NT, S, G):
    """Which block takes each tile under TileLang's PersistentFor (src/ir.cc)."""
    g = max(1, min(G, NT))
    gd = [-(-NT // g), MT, g]
    padded = gd[0] * gd[1] * gd[2]
    owner = np.full((MT, NT), -1, np.int32)
    for b in range(S):
        for w in range(-(-padded // S)):
            r = w * S + b
            i2, r = r % gd[2], r // gd[2]
            i1, i0 = r % gd[1], r // gd[1]
            if i0 * g + i2 < NT:
                owner[i1, i0 * g + i2] = b
    return owner


@pytest.mark.parametrize("MT,NT,S,G", [(5, 7, 4, 8), (6, 9, 5, 2), (3, 3, 16, 1), (8, 12, 7, 3)])
def test_persistent(tilec, MT, NT, S, G):
    """Every tile is visited exactly once, by the block TileLang's formula gives."""
    out = tilec.run("tests/exec/kernels/persistent.py:owners", dict(MT=MT, NT=NT, S=S, G=G),
                    {"Owner": np.full((MT, NT), -1, np.int32),
                     "Count": np.zeros((MT, NT), np.int32)})
    np.testing.assert_array_equal(out["Count"], np.ones((MT, NT), np.int32))
    np.testing.assert_array_equal(out["Owner"], persistent_owners(MT, NT, S, G))
