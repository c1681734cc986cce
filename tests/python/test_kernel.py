"""tilec's Python package on the C target with numpy: compiling, calling, launching,
argument errors, introspection. Kernels live in kernels/tk_ops.py; references are numpy."""
from pysupport import ops, pytestmark  # noqa: F401,F811 (fixture, ASan skip); first

import gc
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec.jit import literal

ROOT = Path(__file__).resolve().parents[2]


def rand(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(dtype)


class FakeCudaArray:
    """A CUDA array as CuPy or Numba describe one (__cuda_array_interface__); never read."""

    def __init__(self, shape, typestr="<f4"):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "data": (0x10000, False), "version": 3,
                                         "strides": None}


# ---- import and compile ------------------------------------------------------------------
def test_import_needs_no_library_or_torch():
    """`import tilec` and @tilec.jit work without libtilec; compiling names the problem."""
    code = ("import sys, tilec\n"
            "f = tilec.jit(out_idx=[-1])(lambda M=1: None)\n"
            "assert 'torch' not in sys.modules\n"
            "try:\n"
            "    tilec.info()\n"
            "except tilec.TilecError as e:\n"
            "    print('ERR', e)\n")
    env = dict(os.environ, TILEC_LIBRARY="/nonexistent/libtilec.so",
               PYTHONPATH=str(ROOT / "python"))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "ERR cannot load libtilec" in proc.stdout
    assert "/nonexistent/libtilec.so" in proc.stdout


def test_call_returns_numpy_output(ops):
    k = ops.scale_add(M=64, N=32, alpha=1.5)
    a, b = rand((64, 32), seed=1), rand((64, 32), seed=2)
    c = k(a, b)
    assert isinstance(c, np.ndarray) and c.dtype == np.float32 and c.shape == (64, 32)
    np.testing.assert_allclose(c, a * 1.5 + b, rtol=1e-6, atol=1e-6)
    assert k.target == "c"


def test_outputs_are_independent_and_freed(ops):
    """Each call returns its own memory; collected outputs are released (no crash,
    no aliasing of an earlier output with a later one)."""
    k = ops.scale_add(M=32, N=32)
    a = rand((32, 32), seed=3)
    first = k(a, a)
    keep = first.copy()
    for i in range(50):
        out = k(a * 0 + i, a)
        np.testing.assert_allclose(out, 2.0 * i + a, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(first, keep)
    view = first[3:5]
    del first, out
    gc.collect()
    np.testing.assert_array_equal(view, keep[3:5])  # a view keeps the memory alive


def test_jit_caches_per_arguments(ops):
    k1 = ops.scale_add(32, 32)
    assert ops.scale_add(M=32, N=32) is k1
    assert ops.scale_add(32, N=32) is k1
    k2 = ops.scale_add(32, 64)
    assert k2 is not k1 and k2.params[0].shape == (32, 64)


def test_factory_arguments_are_checked(ops):
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        ops.scale_add(bogus=1)
    with pytest.raises(tilec.TilecError, match=r"tk_ops.py:\d+:\d+: error: 'M' is an "
                                               r"object of type object, which cannot reach"):
        ops.scale_add(M=object())


def test_compile_plain_factory_and_out_idx(ops):
    k = tilec.compile(ops.scale_add_plain, out_idx=[-1], M=16, N=16, alpha=3.0)
    a, b = rand((16, 16), seed=4), rand((16, 16), seed=5)
    np.testing.assert_allclose(k(a, b), 3.0 * a + b, rtol=1e-6, atol=1e-6)
    # No out_idx (and none in the file): every parameter is passed, nothing returned.
    k_all = tilec.compile(ops.scale_add_plain, M=16, N=16)
    assert k_all.out_idx == []
    c = np.zeros((16, 16), np.float32)
    assert k_all(a, b, c) is None
    np.testing.assert_allclose(c, 2.0 * a + b, rtol=1e-6, atol=1e-6)
    # out_idx naming the first parameter: the kernel writes A from B and C.
    k_first = tilec.compile(ops.scale_add_plain, out_idx=0, M=16, N=16)
    assert [p.name for p in k_first.input_params] == ["B", "C"]


def test_compile_jit_function_and_prim_func(ops):
    k = tilec.compile(ops.scale_add, M=16, N=8)
    assert k is ops.scale_add(M=16, N=8)
    neg = tilec.compile(ops.negate, out_idx=[-1])
    a = rand(32, seed=6)
    np.testing.assert_array_equal(neg(a), -a)


def test_launch_with_all_parameters(ops):
    k = ops.scale_add(M=32, N=32)
    a, b = rand((32, 32), seed=7), rand((32, 32), seed=8)
    c = np.full((32, 32), 99.0, np.float32)
    assert k(a, b, c) is None
    np.testing.assert_allclose(c, 2 * a + b, rtol=1e-6, atol=1e-6)
    k.launch(b, a, c)
    np.testing.assert_allclose(c, 2 * b + a, rtol=1e-6, atol=1e-6)
    run = k.prepare(a, a, c)
    run()
    np.testing.assert_allclose(c, 3 * a, rtol=1e-6, atol=1e-6)


def test_module_constant_from_file(ops):
    a = rand(64, seed=9)
    np.testing.assert_allclose(ops.add_offset()(a), a + 3.0, rtol=1e-6)


def test_scalar_parameters(ops):
    k = ops.axpy(N=64)
    x = rand(64, seed=10)
    np.testing.assert_allclose(k(x, 0.5, 3), 0.5 * x + 3, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(k(x, np.float32(-2), np.int64(1)), -2 * x + 1, rtol=1e-6)
    with pytest.raises(tilec.TilecError, match=r"argument 'shift' \(param 2\): 1.5 is not an "
                                               r"integer but the kernel expects a int32"):
        k(x, 0.5, 1.5)
    assert [p.is_scalar for p in k.params] == [False, True, True, False]


def test_symbolic_shapes(ops):
    k = ops.row_sum(N=32)
    assert k.params[0].shape == ("M", 32) and k.params[1].shape == ("M",)
    for m in (8, 21, 64):
        a = rand((m, 32), seed=m)
        out = k(a)
        assert out.shape == (m,)
        np.testing.assert_allclose(out, a.astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)


def test_two_outputs(ops):
    k = ops.two_outputs(N=16)
    a = np.arange(16, dtype=np.float32)
    b, c = k(a)
    np.testing.assert_array_equal(b, a + 1)
    assert c.dtype == np.int32
    np.testing.assert_array_equal(c, (a * 2).astype(np.int32))


# ---- introspection ----------------------------------------------------------------------
def test_params_source_ir(ops):
    k = ops.scale_add(M=48, N=16, dtype="float16")
    assert [(p.name, p.dtype, p.shape, p.is_output) for p in k.params] == [
        ("A", "float16", (48, 16), False), ("B", "float16", (48, 16), False),
        ("C", "float16", (48, 16), True)]
    assert k.out_idx == [2]
    assert k.name == "scale_add" and k.target == "c"
    src = k.get_kernel_source()
    assert "Generated by tilec" in src and "tk_ops.py" in src
    assert "kernel grid(3)" in k.ir
    assert k.defines == {"M": "48", "N": "16", "dtype": "'float16'"}
    assert "A: float16[48, 16]" in repr(k)
    assert tilec.library_path().endswith("libtilec.so")
    assert "tilec" in tilec.info() and tilec.version()


def test_program_error_names_the_line(ops):
    with pytest.raises(tilec.TilecError) as e:
        ops.broken()
    assert e.value.kind == "program"
    assert "tk_ops.py:" in str(e.value) and "name 'undefined_name' is not defined" in str(e.value)


def test_internal_error_is_a_status_not_an_abort(ops, monkeypatch):
    """Internal errors and running out of memory come back as TilecError(kind='internal')
    (issue 29); the process goes on (TILEC_FAULT injects them, docs/testing.md)."""
    monkeypatch.setenv("TILEC_FAULT", "internal")
    with pytest.raises(tilec.TilecError, match="internal error at .*TILEC_FAULT=internal") as e:
        ops.scale_add(M=72, N=8, alpha=0.5)
    assert e.value.kind == "internal" and e.value.status == 6
    monkeypatch.setenv("TILEC_FAULT", "oom")
    with pytest.raises(tilec.TilecError, match="out of memory") as e:
        ops.scale_add(M=72, N=8, alpha=0.5)
    assert e.value.kind == "internal"
    monkeypatch.delenv("TILEC_FAULT")
    a, b = rand((72, 8), seed=1), rand((72, 8), seed=2)
    np.testing.assert_allclose(ops.scale_add(M=72, N=8, alpha=0.5)(a, b), a * 0.5 + b,
                               rtol=1e-6, atol=1e-6)


def test_unknown_target(ops):
    with pytest.raises(tilec.TilecError, match="unknown target 'tpu'") as e:
        tilec.compile(ops.scale_add_plain, target="tpu")
    assert e.value.kind == "argument"


def test_kernel_outside_a_file():
    ns = {}
    exec("import tilelang.language as T\n"
         "def f(M=16):\n"
         "    @T.prim_func\n"
         "    def main(A: T.Tensor((M,), 'float32')):\n"
         "        with T.Kernel(1, threads=16):\n"
         "            for i in T.Parallel(M):\n"
         "                A[i] = 1.0\n"
         "    return main\n", ns)
    with pytest.raises(tilec.TilecError, match="has none"):
        tilec.compile(ns["f"])


def test_kernel_defined_anywhere():
    """A factory inside a function, reading that function's locals (TileLang's tests
    define their kernels this way)."""
    import tilelang.language as T
    scale = 3.0

    def nested(M=16):
        @T.prim_func
        def main(A: T.Tensor((M,), T.float32), B: T.Tensor((M,), T.float32)):
            with T.Kernel(1, threads=16):
                for i in T.Parallel(M):
                    B[i] = A[i] * scale
        return main
    k = tilec.compile(nested, out_idx=[-1], M=24)
    a = rand((24,))
    np.testing.assert_allclose(k(a), a * 3.0, rtol=1e-6)


# ---- argument errors: the library's messages name the parameter and the field ----------
def test_bad_dtype(ops):
    k = ops.scale_add(M=32, N=32)
    a = rand((32, 32))
    with pytest.raises(tilec.TilecError, match=r"argument 'B' \(param 1\): dtype is float16 "
                                               r"but the kernel expects float32") as e:
        k(a, a.astype(np.float16))
    assert e.value.kind == "argument" and isinstance(e.value, ValueError)


def test_bad_shape_and_ndim(ops):
    k = ops.scale_add(M=32, N=32)
    a = rand((32, 32))
    with pytest.raises(tilec.TilecError, match=r"argument 'A' \(param 0\): shape\[1\] is 16 "
                                               r"but the kernel expects 32"):
        k(rand((32, 16)), a)
    with pytest.raises(tilec.TilecError, match=r"argument 'B' \(param 1\): ndim is 1 but the "
                                               r"kernel expects 2"):
        k(a, rand(32))
    with pytest.raises(tilec.TilecError, match=r"argument 'C' \(param 2\): shape\[0\] is 31"):
        k(a, a, rand((31, 32)))


def test_bad_strides(ops):
    k = ops.scale_add(M=32, N=32)
    a = rand((32, 32))
    with pytest.raises(tilec.TilecError, match=r"argument 'A' \(param 0\): strides\[0\] is 1 "
                                               r"but the kernel expects a compact row-major"):
        k(a.T, a)
    b = rand((32, 64))[:, ::2]
    with pytest.raises(tilec.TilecError, match=r"argument 'B' \(param 1\): strides"):
        k(a, b)
    ro = a.copy()
    ro.flags.writeable = False  # read-only arrays are fine as inputs
    np.testing.assert_allclose(k(ro, a), 3 * a, rtol=1e-6)


def test_bad_device(ops):
    k = ops.scale_add(M=32, N=32)
    a = rand((32, 32))
    with pytest.raises(tilec.TilecError, match=r"argument 'A' \(param 0\): device is cuda:0 but "
                                               r"the 'c' target"):
        k(FakeCudaArray((32, 32)), a, a)
    with pytest.raises(tilec.TilecError, match="outputs are allocated for device arrays only"):
        k(FakeCudaArray((32, 32)), a)


def test_bad_count_and_types(ops):
    k = ops.scale_add(M=32, N=32)
    a = rand((32, 32))
    with pytest.raises(tilec.TilecError, match=r"kernel 'scale_add' takes 2 inputs \(A, B\), "
                                               r"or all 3 parameters \(A, B, C\), but 1 was"):
        k(a)
    with pytest.raises(tilec.TilecError, match=r"argument 'B' \(param 1\): expected a numpy "
                                               r"array or a torch tensor, got str"):
        k(a, "b")


# ---- literals --------------------------------------------------------------------------------
def test_literals():
    assert literal(3) == "3" and literal(np.int64(3)) == "3"
    assert literal(True) == "True" and literal(np.bool_(False)) == "False"
    assert literal(None) == "None"
    assert literal(0.1) == "0.1" and literal(float("inf")) == "float('inf')"
    assert literal(float("-inf")) == "float('-inf')" and literal(float("nan")) == "float('nan')"
    assert literal("float16") == "'float16'" and literal('a"b') == "'a\"b'"
    assert literal((64,)) == "(64,)" and literal([1, (2, 3)]) == "[1, (2, 3)]"
    assert literal({"a": 1}) == "{'a': 1}"
    assert literal(np.float16) == "'float16'" and literal(np.dtype("int8")) == "'int8'"
    import tilelang.language as T
    assert literal(T.bfloat16) == "'bfloat16'" and literal(T.float) == "'float32'"
    with pytest.raises(tilec.TilecError, match="a set cannot be passed"):
        literal({1})


def test_float_and_dtype_arguments_reach_the_kernel(ops):
    k = ops.scale_add(M=16, N=16, alpha=-0.25, dtype=np.float64)
    a = rand((16, 16), np.float64)
    np.testing.assert_allclose(k(a, a), 0.75 * a, rtol=1e-12)


def test_numpy_lacks_bfloat16(ops):
    k = ops.scale_add(M=16, N=16, dtype="bfloat16")
    assert k.params[2].dtype == "bfloat16"
    try:
        import ml_dtypes
    except ImportError:
        ml_dtypes = None
    if ml_dtypes is None:
        with pytest.raises(tilec.TilecError, match="numpy has no bfloat16"):
            k.get_profiler(backend="numpy").inputs
    else:
        a = rand((16, 16)).astype(ml_dtypes.bfloat16)
        out = k(a, a)
        assert out.dtype == ml_dtypes.bfloat16
        np.testing.assert_allclose(out.astype(np.float32), 3 * a.astype(np.float32), rtol=1e-2)


# ---- torch (CPU) when installed -----------------------------------------------------------
def test_torch_cpu_tensors(ops):
    torch = pytest.importorskip("torch")
    k = ops.scale_add(M=32, N=32)
    a, b = torch.rand(32, 32), torch.rand(32, 32)
    c = k(a, b)
    assert isinstance(c, torch.Tensor) and c.dtype == torch.float32 and c.shape == (32, 32)
    torch.testing.assert_close(c, 2 * a + b)
    c2 = torch.zeros(32, 32)
    assert k(a, b, c2) is None
    torch.testing.assert_close(c2, 2 * a + b)
    with pytest.raises(tilec.TilecError, match=r"argument 'B' \(param 1\): dtype is float16"):
        k(a, b.half())
    with pytest.raises(tilec.TilecError, match=r"argument 'A' \(param 0\): strides\[0\] is 1"):
        k(a.t(), b)
    with pytest.raises(tilec.TilecError, match=r"argument 'A' \(param 0\): shape\[0\] is 16"):
        k(a[:16], b)
    prof = k.get_profiler()
    assert prof.backend == "torch" and isinstance(prof.inputs[0], torch.Tensor)
    prof.assert_allclose(lambda x, y: 2 * x + y, rtol=1e-6, atol=1e-6)
    with pytest.raises(AssertionError):
        prof.assert_allclose(lambda x, y: 2 * x)


def test_torch_symbolic_scalars_and_outputs(ops):
    torch = pytest.importorskip("torch")
    rs = ops.row_sum(N=32)
    x = torch.rand(45, 32)
    torch.testing.assert_close(rs(x), x.sum(1), rtol=1e-5, atol=1e-5)
    ax = ops.axpy(N=64)
    x = torch.rand(64)
    torch.testing.assert_close(ax(x, 0.5, 2), 0.5 * x + 2)
    b, c = ops.two_outputs(N=16)(torch.arange(16, dtype=torch.float32))
    assert c.dtype == torch.int32 and b[3].item() == 4 and c[3].item() == 6


def test_torch_bfloat16(ops):
    torch = pytest.importorskip("torch")
    k = ops.scale_add(M=16, N=16, dtype="bfloat16")
    a = torch.rand(16, 16).bfloat16()
    out = k(a, a)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out.float(), 3 * a.float(), rtol=2e-2, atol=2e-2)
