"""TileLang's 4-bit integers (T.int4, T.uint4; src/frontend/subbyte.c): tensors stored two
per int8 / uint8 byte, the even element in the low nibble (what TileLang passes: an int4
(M, K) tensor is an int8 (M, K / 2) one). T.gemm of int4 tiles against NumPy's exact
integer product (on CUDA mma.sync m16n8k64 .s4; tests/unit/kernels/gemm_s4.py runs on the
simulated GPU), element reads of int4 and uint4, fills and copies; bad uses are errors at
the user's line."""
import numpy as np
import pytest

GEMM = "tests/unit/kernels/gemm_s4.py"
ELEMS = "tests/unit/kernels/int4_elems.py"


def pack(x, unsigned=False):
    """Logical 4-bit values (last dim even) -> bytes, low nibble first (independent of
    tilec: the upstream example's pack_int4)."""
    x = np.asarray(x, np.int16)
    b = (x[..., ::2] & 15) | ((x[..., 1::2] & 15) << 4)
    return b.astype(np.uint8 if unsigned else np.uint8).view(np.uint8 if unsigned else np.int8)


@pytest.mark.parametrize("M,N,K,block_K", [(72, 56, 160, 64), (64, 32, 128, 32),
                                           (16, 16, 64, 64)])
def test_gemm_int4(tilec, M, N, K, block_K):
    rng = np.random.default_rng(M + K)
    a = rng.integers(-8, 8, (M, K))
    b = rng.integers(-8, 8, (N, K))
    out = tilec.run(GEMM, dict(M=M, N=N, K=K, block_K=block_K),
                    {"A": pack(a), "B": pack(b)})["C"]
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, a @ b.T)


def test_int4_elements(tilec):
    """Element reads (sign- and zero-extended), T.fill of a 4-bit tile, copies of 4-bit
    tiles, a uint4 x uint4 gemm and arithmetic that wraps to 4 bits."""
    M, K = 8, 32
    rng = np.random.default_rng(3)
    a = rng.integers(-8, 8, (M, K))
    u = rng.integers(0, 16, (M, K))
    out = tilec.run(ELEMS, dict(M=M, K=K), {"A": pack(a), "U": pack(u, True)})
    np.testing.assert_array_equal(out["S"], a.astype(np.int32))
    np.testing.assert_array_equal(out["Z"], u.astype(np.int32))
    filled = np.full((M, K), -3)
    filled[:, K // 2:] = a[:, K // 2:]
    np.testing.assert_array_equal(out["F"], pack(filled))
    np.testing.assert_array_equal(out["G"], (u @ u.T).astype(np.int32))
    wrapped = ((a + 5) & 15) - 2 * ((a + 5) & 8)  # int4 + int4 wraps to 4 bits
    np.testing.assert_array_equal(out["W"], wrapped.astype(np.int32))


HEAD = '''import tilelang.language as T

@T.prim_func
def main(A: T.Tensor((8, 32), T.int4), C: T.Tensor((8, 32), T.int32)):
        with T.Kernel(1, threads=32) as bx:
            s = T.alloc_shared((8, 32), T.int4)
            f = T.alloc_fragment((8, 32), T.int32)
            h = T.alloc_shared((8, 32), T.float16)
'''
ERRORS = [
    ("s[0, 1] = 3", "a store into one element of int4 buffer 's' is not supported"),
    ("T.copy(A, f)", "tilec copies 4-bit tiles only to tiles of the same dtype"),
    ("T.copy(A[0, 1:9], s[0, 0:8])", "must start and end at even positions"),
    ("T.gemm(s, s, f)", "transpose_B=True"),
    ("T.gemm(s, h, f, transpose_B=True)", "are both 4-bit or neither"),
    ("T.reduce_sum(s, f, dim=1)", "not this operation"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_int4_errors(tilec, tmp_path, line, message):
    tilec.emit_error(tmp_path, HEAD, line, message, targets=("c", "cuda"))


def test_int4_odd_last_dimension(tilec, tmp_path):
    """An int4 tensor whose rows are not whole bytes: an error at its declaration."""
    src = tmp_path / "odd.py"
    src.write_text(HEAD.replace("C: T.Tensor((8, 32), T.int32)", "C: T.Tensor((8, 31), T.int4)")
                   + "            T.copy(C, A[:, 0:31])\n")
    proc = tilec.command(["emit", src, "--target", "c"])
    assert proc.returncode != 0
    assert "odd.py:4:" in proc.stderr and "int4 buffer 'C': its last dimension must be a " \
        "constant even number" in proc.stderr, proc.stderr
