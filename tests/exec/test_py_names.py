"""TileLang's Python-level names (src/frontend/tileops_py.c) against independent references:
NumPy for the reductions and the reducer, exact Python integers for TVM's fixed-point
multiply (T.q_multiply_shift: round half up of x * y * 2^-(q - s), in int64, as int32),
meta-level checks (types, isinstance, dtype helpers) in the kernel's factory. The kernel is
tests/unit/kernels/py_names.py (test_emit_cuda runs it on the simulated GPU for sm_80 and
sm_90a). Bad uses are errors at the user's line."""
import numpy as np
import pytest

KERNEL = "tests/unit/kernels/py_names.py"


def wrap32(v):
    return ((v + 2**31) % 2**32) - 2**31


def q_mul(x, y, ls, rs, q):
    """TVM's lowering of q_multiply_shift(_per_axis), in exact integers."""
    total = q + rs
    return wrap32((x * y * 2**ls + (1 << (total - 1))) >> total)


def test_py_names(tilec):
    M, N, bm = 40, 32, 16
    rng = np.random.default_rng(3)
    a = rng.standard_normal((M, N)).astype(np.float32)
    x = rng.integers(-2**26, 2**26, (M, N)).astype(np.int32)
    y = rng.integers(-2**31, 2**31, (M, N), dtype=np.int64).astype(np.int32)
    x[0, :4], y[0, :4] = [-2**26, 2**26 - 1, 0, -1], [-2**31, 2**31 - 1, 5, -2**31]
    x[1, :6], y[1, :6] = [1, -1, 3, -3, 2**25, 7], [2**30, 2**30, 2**30, 2**30, -2**31, 0]
    out = tilec.run(KERNEL, dict(M=M, N=N), {"A": a, "X": x, "Y": y})
    np.testing.assert_allclose(out["R"], a.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out["TT"], a.T)
    blocks = [a[b * bm:(b + 1) * bm].sum(axis=0) + 0.5 for b in range(-(-M // bm))]
    np.testing.assert_allclose(out["S"], np.array(blocks), rtol=1e-5, atol=1e-5)
    j = np.arange(N)
    p = a * np.float32(3.0) + (-(-j // 7) * 7).astype(np.float32) + a * np.float32(0.5)
    np.testing.assert_array_equal(out["P"], p * np.float32(2) + np.float32(1))  # bump (T.Ref)
    want = np.zeros((4, M, N), np.int64)
    for g in range(M):
        for k in range(N):
            xi, yi, s = int(x[g, k]), int(y[g, k]), k % 9 - 4
            want[0, g, k] = q_mul(xi, yi, max(s, 0), max(-s, 0), 31)
            want[1, g, k] = q_mul(xi, yi, 0, 0, 15)
            want[2, g, k] = q_mul(xi, yi, k % 3, k % 5, 31)
            want[3, g, k] = q_mul(xi, yi, 0, k % 5, 20)
    np.testing.assert_array_equal(out["Q"], want)


def test_annotate_configs(tilec, tmp_path):
    """T.annotate_pass_configs means what the decorator's pass_configs do;
    T.annotate_compile_flags honours --use_fast_math and warns about the rest."""
    def emit(body):
        src = tmp_path / "k.py"
        src.write_text(
            "import tilelang.language as T\n\n"
            "@T.prim_func\n"
            "def main(A: T.Tensor((64,), \"float32\"), B: T.Tensor((64,), \"float32\")):\n"
            "    " + body + "\n"
            "    with T.Kernel(1, threads=64) as bx:\n"
            "        for i in T.Parallel(64):\n"
            "            B[i] = T.exp(A[i])\n")
        proc = tilec.command(["emit", src, "--target", "cuda"])
        assert proc.returncode == 0, proc.stderr
        return proc.stdout + proc.stderr
    assert "--fmad=false" in emit("pass")
    assert "NVRTC options: --use_fast_math" in emit(
        "T.annotate_pass_configs({\"tl.enable_fast_math\": True})")
    out = emit("T.annotate_compile_flags([\"-O3\", \"--use_fast_math\"])")
    assert "NVRTC options: --use_fast_math" in out
    assert "k.py:5: warning: compile flag '-O3': accepted, no effect in tilec" in out
    out = emit("T.annotate_pass_configs({\"tl.disable_vectorize_256\": True})")
    assert "k.py:5: warning: pass_configs 'tl.disable_vectorize_256': accepted" in out


ERRORS = [
    ("T.reduce(S, F, \"prod\", 1, True)", "T.reduce: reduce_type must be one of"),
    ("T.reducer_init(S)", "T.reducer_init takes a T.alloc_reducer buffer, got buffer S"),
    ("T.reducer_update(S[0, 0], 1.0)", "T.reducer_update expects `acc[indices]` of a "
     "T.alloc_reducer buffer"),
    ("v = T.IntImm(\"float32\", 1)", "T.IntImm: dtype must be an integer or bool type"),
    ("v = T.IntImm(\"bool\", 2)", "T.IntImm: a bool is 0 or 1, got 2"),
    ("v = T.PrimExpr(1)", "T.PrimExpr is a type: use it in annotations and isinstance"),
    ("v = T.StringImm(3)", "T.StringImm takes a string, got int 3"),
    ("v = T.is_float4(3)", "T.is_float4 takes a dtype or its name, got int 3"),
    ("T.validate_gemm_ab_dtypes(\"float16\", \"float32\")",
     "mixed-dtype GEMM only supports f8f6f4 family operands, got A=float16, B=float32"),
    ("T.annotate_restrict_buffers(A, 3)", "T.annotate_restrict_buffers takes buffers, got int 3"),
    ("v = T.q_multiply_shift(A[0, 0], 1, 31, 0)", "T.q_multiply_shift: x must be an int32"),
    ("v = T.q_multiply_shift(1, 2, 31)", "T.q_multiply_shift"),
    ("v = T.isnullptr(A)", "T.isnullptr: 'A' is not a tensor made by T.make_tensor"),
    ("v = T.undef()", "T.undef has no meaning in tilec: give the variable a value"),
    ("T.ret(1)", "T.ret has no meaning in tilec"),
    ("T.transpose(S, F)", "T.transpose: src (..., M, N) and dst (..., N, M)"),
    ("T.transpose(S, S[0:2, 0:4])", "T.transpose: src (..., M, N) and dst (..., N, M)"),
    ("@T.macro\n            def m(x: T.Ref):\n                x = 1\n            m(3)",
     "to pass as reference (T.Ref), argument 'x' must be a T.alloc_var or a buffer element"),
    ("v = T.allocate((4,), \"float32\", \"texture\")",
     "T.alloc_buffer: scope \"texture\" is not supported by tilec"),
    ("T.annotate_pass_configs([1])", "pass_configs must be a dict, got list"),
    ("T.annotate_compile_flags(3)", "T.annotate_compile_flags takes a flag or a list of flags"),
    ("T.annotate_compile_flags([3])", "T.annotate_compile_flags: a flag is a string, got int 3"),
    ("v = isinstance(1, T.reduce)", "isinstance() with T.reduce is not supported"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_errors_at_the_users_line(tilec, tmp_path, line, message):
    head = ("import tilelang.language as T\n\n"
            "@T.prim_func\n"
            "def main(A: T.Tensor((4, 4), \"float32\")):\n"
            "        with T.Kernel(1, threads=32) as bx:\n"
            "            S = T.alloc_shared((4, 4), \"float32\")\n"
            "            F = T.alloc_fragment((4,), \"float32\")\n")
    tilec.emit_error(tmp_path, head, line, message)


def test_buffer_types_are_for_macros(tilec, tmp_path):
    src = tmp_path / "bad.py"
    src.write_text(
        "import tilelang.language as T\n\n"
        "@T.prim_func\n"
        "def main(A: T.SharedBuffer((4, 4), \"float32\")):\n"
        "        with T.Kernel(1, threads=32) as bx:\n"
        "            A[0, 0] = 1.0\n")
    proc = tilec.command(["emit", src, "--target", "c"])
    assert proc.returncode != 0
    assert "parameter 'A': a shared.dyn buffer type is for T.macro parameters" in proc.stderr
    assert "bad.py:4:" in proc.stderr, proc.stderr
