"""The `tilelang` compatibility layer: its modules, the import hook, the install step,
a TileLang script run unchanged, TileLang's perf-regression entry points
(tilelang.testing.process_func and regression, as in TileLang 0.1.15), and the
repository's examples/*.py imported unmodified through it (with numpy references; with
torch also against each example's own ref_program)."""
from pysupport import pytestmark  # noqa: F401 (the ASan skip); first: sets sys.path

import importlib.util
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import tilec

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "kernels" / "tl_style.py"


def run_py(args, env_extra=None, cwd=None, timeout=120):
    env = dict(os.environ, TILEC_TARGET="c")
    env.pop("PYTHONPATH", None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable] + [str(a) for a in args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


# ---- the modules -----------------------------------------------------------------------
def test_shim_modules():
    import tilelang
    import tilelang.language as T
    from tilelang.autotuner import autotune
    assert tilec.compat.is_shim(tilelang) and tilelang.language is T
    assert autotune is tilec.autotune and tilelang.jit is not None
    assert T.float16 == "float16" and T.float == "float32"
    assert T.float16x2 == "float16x2" and T.halfx4 == "float16x4"  # vector dtypes
    assert type(T.float16x2).__name__ == "DType" and type(T.boolx2).__name__ == "Inert"
    assert tilelang.PassConfigKey.TL_ENABLE_FAST_MATH == "TL_ENABLE_FAST_MATH"
    assert tilelang.TensorSupplyType.Randn is tilec.TensorSupplyType.Randn
    # Whatever only kernel bodies use is an inert placeholder.
    shape = (T.dynamic("M") * 2, 64)
    assert shape and T.Tensor(shape, T.float16) is not None and T.any_new_op(1)[0] is not None
    assert tilelang.layout.make_swizzled_layout(None) is not None
    with pytest.raises(AttributeError, match="tilec's TileLang compatibility layer"):
        tilelang.no_such_thing


def test_prim_func_records_factory_arguments():
    import tilelang.language as T
    import tl_style
    func = tl_style.matmul(32, 32, 32, 16, 16, 16)
    assert isinstance(func, tilec.PrimFunc) and func.factory is tl_style.matmul
    assert func.factory_args["M"] == 32 and func.factory_args["dtype"] == "float16"
    with pytest.raises(tilec.TilecError, match="is not called from Python"):
        func()
    assert T.macro(len) is len


# ---- running a TileLang script unchanged ----------------------------------------------
def test_tilelang_script_runs_unmodified():
    proc = run_py(["-m", "tilec.compat", SCRIPT], {"PYTHONPATH": str(ROOT / "python")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "All checks pass." in proc.stdout and "Best config: {'block_M'" in proc.stdout


def test_int4_styles():
    """T.int4 tensors passed packed (int8, two per byte), eager and factory styles."""
    pytest.importorskip("torch")
    proc = run_py(["-m", "tilec.compat", HERE / "kernels" / "int4_styles.py"],
                  {"PYTHONPATH": str(ROOT / "python")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "int4 styles OK" in proc.stdout


def test_import_hook_defers_to_a_real_tilelang(tmp_path):
    """The .pth hook answers `import tilelang` only when no real TileLang is found, unless
    TILEC_AS_TILELANG=1."""
    real = tmp_path / "real" / "tilelang"
    real.mkdir(parents=True)
    (real / "__init__.py").write_text("REAL = True\n")
    code = ("import site, sys; site.addsitedir(%r)\n"
            "import tilelang\n"
            "print('real' if getattr(tilelang, 'REAL', False) else 'shim')\n"
            % str(ROOT / "python"))
    shim = run_py(["-c", code])
    assert shim.stdout.strip() == "shim", shim.stderr
    real_path = {"PYTHONPATH": str(real.parent)}
    assert run_py(["-c", code], real_path).stdout.strip() == "real"
    forced = run_py(["-c", code], dict(real_path, TILEC_AS_TILELANG="1"))
    assert forced.stdout.strip() == "shim", forced.stderr
    off = run_py(["-c", code], {"TILEC_AS_TILELANG": "0"})
    assert "No module named 'tilelang'" in off.stderr


def test_install_step(tmp_path):
    """What `pip install ./python` does: setup.py's build step runs make, puts libtilec.so
    into the package and the .pth hook beside it; the result works from anywhere."""
    pytest.importorskip("setuptools")
    lib_dir = tmp_path / "site"
    env = {k: v for k, v in os.environ.items() if k != "TILEC_LIBRARY"}  # so: make
    egg = tmp_path / "egg"  # egg_info's scratch, kept out of the source tree
    egg.mkdir()
    proc = subprocess.run([sys.executable, "setup.py", "-q", "egg_info", "--egg-base", str(egg),
                           "build_py", "--build-lib", str(lib_dir)], cwd=ROOT / "python",
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (lib_dir / "tilec" / "libtilec.so").is_file()
    assert (lib_dir / "tilec-tilelang.pth").is_file()
    code = ("import site, runpy; site.addsitedir(%r)\n"
            "import tilec; print(tilec.library_path())\n"
            "runpy.run_path(%r, run_name='__main__')\n" % (str(lib_dir), str(SCRIPT)))
    env = {"TILEC_LIBRARY": ""}
    run = run_py(["-c", code], env, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith(str(lib_dir / "tilec" / "libtilec.so"))
    assert "All checks pass." in run.stdout


# ---- TileLang's perf-regression entry points (tilelang.testing, as in 0.1.15) -------------
def test_process_func_records_as_tilelang():
    import tilelang.testing as tt
    from tilec.compat import testing
    seen = []

    def perf(**kwargs):
        seen.append(kwargs)
        return 2.5

    perf.__module__ = "regression_demo"
    del testing.RESULTS[:]
    try:
        tt.process_func(perf, M=64)  # named after its module, less "regression_"
        tt.process_func(perf, "regression_named_case")
        tt.process_func(perf, "plain", window=8)
        assert seen == [{"M": 64}, {}, {"window": 8}]
        assert testing.RESULTS == [("demo", 2.5, None), ("named_case", 2.5, None),
                                   ("plain", 2.5, None)]
        values, calls = iter([0.0, -1.0, 3.0]), []  # not positive: measured again
        tt.process_func(lambda: calls.append(1) or next(values), "flaky")
        assert len(calls) == 3 and testing.RESULTS[-1] == ("flaky", 3.0, None)
        zeros = []
        with pytest.warns(RuntimeWarning, match=r"zero has latency 0.0 <= 0"):
            tt.process_func(lambda: zeros.append(1) or 0, "zero")
        assert len(zeros) == 6 and len(testing.RESULTS) == 4  # 5 more tries, no record
        with pytest.raises(ZeroDivisionError):
            tt.process_func(lambda: 1 / 0)
        got = {}
        tt.process_func(lambda **kw: got.update(kw) or 1.0, name="kw")  # name is positional
        assert got == {"name": "kw"}
        import tilelang.testing.perf_regression as pr
        assert pr.process_func is tt.process_func and pr.regression is tt.regression
    finally:
        del testing.RESULTS[:]


def test_regression_runs_the_callers_functions(capsys, monkeypatch):
    import tilelang.testing as tt
    monkeypatch.delenv("TL_PERF_REGRESSION_ONLY", raising=False)
    monkeypatch.delenv("TL_PERF_REGRESSION_FORMAT", raising=False)
    ns = {"tt": tt, "order": []}
    exec("def regression_b():\n    order.append('b')\n    tt.process_func(lambda: 2.0, 'x')\n"
         "def regression_a():\n    order.append('a')\n"
         "def regression_c():\n    raise ValueError('boom')\n"
         "def other():\n    order.append('other')\n"
         "regression_not_callable = 3\n", ns)
    with pytest.raises(ValueError, match="boom"):  # an exception stops the run
        exec("tt.regression()", ns)
    assert ns["order"] == ["a", "b"]
    assert "[1/3] a (" in capsys.readouterr().out
    monkeypatch.setenv("TL_PERF_REGRESSION_ONLY", "A,regression_B")  # any case, substring
    ns["order"].clear()
    exec("tt.regression()", ns)
    assert ns["order"] == ["a", "b"]
    assert capsys.readouterr().out.splitlines()[-1] == "x: 2.0"  # text format
    monkeypatch.setenv("TL_PERF_REGRESSION_ONLY", '["[b]"]')  # a glob, no substring match
    monkeypatch.setenv("TL_PERF_REGRESSION_FORMAT", "json")
    ns["order"].clear()
    exec("tt.regression(verbose=False)", ns)
    assert ns["order"] == ["b"]
    assert capsys.readouterr().out == (
        '__TILELANG_PERF_RESULTS_JSON__=[{"name":"x","latency":2.0,"case":"b"}]\n')


REGRESSION_FILE = """import tilelang.testing
import example_demo


def helper():
    raise AssertionError("not a regression_ function")


def regression_example_scale():
    tilelang.testing.process_func(example_demo.run_regression_perf, M=128)


def regression_example_window():
    tilelang.testing.process_func(example_demo.run_regression_perf, "regression_win", M=64)


def regression_a_constant():
    tilelang.testing.process_func(example_demo.constant)


if __name__ == "__main__":
    tilelang.testing.regression()
"""

EXAMPLE_FILE = """import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale(M=64, N=64, block_M=16):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i, j in T.Parallel(block_M, N):
                B[bx * block_M + i, j] = A[bx * block_M + i, j] * 2.0

    return main


def run_regression_perf(M=64):
    kernel = scale(M)
    return kernel.get_profiler().do_bench(warmup=1, rep=5)


def constant():
    return 1.5
"""


def test_regression_file_runs_unmodified(tmp_path):
    """A regression file as TileLang's examples have them, run as a script under the
    layer: the example's kernel compiled by tilec, its latency recorded per case."""
    (tmp_path / "regression_demo.py").write_text(REGRESSION_FILE)
    (tmp_path / "example_demo.py").write_text(EXAMPLE_FILE)
    env = {"PYTHONPATH": str(ROOT / "python"), "TL_PERF_REGRESSION_FORMAT": "json",
           "TILEC_LIBRARY": os.path.abspath(os.environ["TILEC_LIBRARY"])}  # cwd moves
    proc = run_py(["-m", "tilec.compat", "regression_demo.py"], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    mark = "__TILELANG_PERF_RESULTS_JSON__="
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith(mark)]
    assert len(line) == 1, proc.stdout
    got = json.loads(line[0][len(mark):])
    assert [(r["name"], r["case"]) for r in got] == [
        ("example_demo", "a_constant"), ("example_demo", "example_scale"),
        ("win", "example_window")]
    assert got[0]["latency"] == 1.5 and all(r["latency"] > 0 for r in got)
    assert "[3/3] example_window (" in proc.stdout


# ---- the repository's examples, imported unmodified --------------------------------------
def load_example(name):
    """examples/<name>.py as a module. torch and einops are stubbed when missing: the
    examples use them only in their references and __main__ blocks."""
    stubs = {}
    for mod in ("torch", "torch.nn", "torch.nn.functional", "einops"):
        try:
            importlib.import_module(mod)
        except ImportError:
            stubs[mod] = types.ModuleType(mod)
    if "torch" in stubs:
        stubs["torch"].nn = stubs["torch.nn"]
        stubs["torch.nn"].functional = stubs["torch.nn.functional"]
    if "einops" in stubs:
        stubs["einops"].rearrange = stubs["einops"].einsum = None
    saved = {k: sys.modules.get(k) for k in stubs}
    sys.modules.update(stubs)
    try:
        spec = importlib.util.spec_from_file_location("example_" + name,
                                                      ROOT / "examples" / (name + ".py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return module


def rand(shape, dtype, seed):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(dtype)


def softmax_ref(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def attention_ref(q, k, v, causal):
    s = np.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(q.shape[-1])
    if causal:
        n = q.shape[1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    return np.einsum("bhqk,bkhd->bqhd", softmax_ref(s), v)


def mla_ref(q, q_pe, kv, k_pe):
    query = np.concatenate([q, q_pe], -1)                  # b h d
    key = np.concatenate([kv[:, :, 0], k_pe[:, :, 0]], -1)  # b s d
    s = np.einsum("bhd,bsd->bhs", query, key) / np.sqrt(query.shape[-1])
    return np.einsum("bhs,bsd->bhd", softmax_ref(s), kv[:, :, 0])


def f64(*xs):
    return [x.astype(np.float64) for x in xs]


# name -> (factory attribute, factory args, inputs (seeded), numpy reference,
#          tolerance: rtol = atol, or (rtol, atol))
EXAMPLES = {
    "gemm": ("matmul", dict(M=64, N=48, K=32, block_M=32, block_N=16, block_K=16),
             lambda: [rand((64, 32), np.float16, 1), rand((32, 48), np.float16, 2)],
             lambda a, b: a @ b, 2e-3),
    "elementwise_add": ("elementwise_add", dict(M=64, N=64, block_M=32, block_N=32),
                        lambda: [rand((64, 64), np.float16, 1), rand((64, 64), np.float16, 2)],
                        lambda a, b: a + b, 1e-3),
    "softmax": ("softmax", dict(M=16, N=128, block_M=8),
                lambda: [rand((16, 128), np.float16, 3)], softmax_ref, (2e-3, 1e-5)),
    "rms_norm": ("rms_norm", dict(M=8, N=64, blk_m=4),
                 lambda: [rand((8, 64), np.float32, 4)],
                 lambda a: a / np.sqrt((a * a).mean(-1, keepdims=True) + 1e-6), 1e-5),
    "reduce": ("reduce", dict(M=64, N=32, op="absmax", dim=0, block=16),
               lambda: [rand((64, 32), np.float32, 5)], lambda a: np.abs(a).max(0), 1e-6),
    "cumsum": ("cumsum", dict(M=32, N=32, block_M=32, block_N=32, dim=1),
               lambda: [rand((32, 32), np.float32, 6)], lambda a: np.cumsum(a, 1), 1e-5),
    "flash_attention": ("flashattn", dict(batch=1, heads=2, seq_len=64, dim=32, is_causal=True,
                                          block_M=32, block_N=32),
                        lambda: [rand((1, 64, 2, 32), np.float16, s) for s in (7, 8, 9)],
                        lambda q, k, v: attention_ref(q, k, v, True), 1e-2),
    "mla_decode": ("flashattn", dict(batch=1, heads=16, kv_head_num=1, seqlen_kv=64, dim=32,
                                     pe_dim=16, block_N=16, block_H=16, num_split=2),
                   lambda: [rand((1, 16, 32), np.float16, 10), rand((1, 16, 16), np.float16, 11),
                            rand((1, 64, 1, 32), np.float16, 12),
                            rand((1, 64, 1, 16), np.float16, 13),
                            np.zeros((1, 16, 2), np.float16),
                            np.zeros((1, 16, 2, 32), np.float16)],
                   lambda q, qp, kv, kp, g, o: mla_ref(q, qp, kv, kp), 1e-2),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_through_compat_numpy(name):
    factory, args, make, ref, tol = EXAMPLES[name]
    module = load_example(name)
    kernel = getattr(module, factory)(**args)
    assert isinstance(kernel, tilec.Kernel)
    inputs = make()
    out = kernel(*inputs)
    want = ref(*f64(*inputs))
    rtol, atol = tol if isinstance(tol, tuple) else (tol, tol)
    assert out.shape == want.shape and np.abs(want).max() > 10 * atol
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=rtol, atol=atol)


TORCH_REFS = {  # example -> how its own ref_program is called on the kernel's inputs
    "gemm": lambda m, ins: m.ref_program(*ins),
    "elementwise_add": lambda m, ins: m.ref_program(*ins),
    "softmax": lambda m, ins: m.ref_program(*ins),
    "rms_norm": lambda m, ins: m.ref_program(*ins),
    "reduce": lambda m, ins: m.ref_program(*ins, op="absmax", dim=0),
    "cumsum": lambda m, ins: m.ref_program(*ins, 32, 32, 1),
    "flash_attention": lambda m, ins: m.ref_program(*ins, True),
}


@pytest.mark.parametrize("name", sorted(TORCH_REFS))
def test_example_through_compat_torch(name):
    torch = pytest.importorskip("torch")
    factory, args, make, _, tol = EXAMPLES[name]
    rtol, atol = tol if isinstance(tol, tuple) else (tol, tol)
    module = load_example(name)
    kernel = getattr(module, factory)(**args)
    inputs = [torch.from_numpy(x) for x in make()]
    out = kernel(*inputs)
    assert isinstance(out, torch.Tensor) and out.device.type == "cpu"
    want = TORCH_REFS[name](module, [x.float() if x.dtype == torch.float16 else x
                                     for x in inputs])
    torch.testing.assert_close(out.float(), want.float(), rtol=rtol, atol=atol)
    prof = kernel.get_profiler()
    assert prof.backend == "torch" and prof.do_bench(warmup=1, rep=5) > 0
