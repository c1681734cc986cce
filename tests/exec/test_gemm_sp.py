"""T.gemm_sp (2:4 structured sparsity, docs/language.md) against NumPy: a random sparse A
is compressed here, by a loop written from the metadata's definition (independent of
tilec's compressor), into its kept values and metadata, and C is compared with the
dense A times B. On the CUDA target (tests/gpu/run.sh) the float16 cases with A and E
not transposed run on mma.sp, the others on the loops."""
import numpy as np
import pytest

KERNEL = "tests/exec/kernels/gemm_sp.py:gemm_sp"
E_BITS = {"int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "int32": 32, "uint32": 32}


def sparse_a(rng, M, K, dtype):
    """A random M x K A with 2 nonzeros in each group of 4 along K (1 of 2 for float32),
    some groups with fewer."""
    group, kept = (2, 1) if dtype == "float32" else (4, 2)
    if dtype in ("int8", "uint8"):
        a = rng.integers(1, 6, (M, K)) * (1 if dtype == "uint8" else rng.choice([-1, 1], (M, K)))
    else:
        a = rng.standard_normal((M, K))
    keep = np.zeros((M, K // group, group), bool)
    for r in range(M):
        for g in range(K // group):
            n = kept if rng.random() > 0.1 else kept - 1  # a few groups with fewer nonzeros
            keep[r, g, rng.choice(group, n, replace=False)] = True
    return (a * keep.reshape(M, K)).astype(dtype)


def compress(a, e_dtype):
    """(kept values, metadata) by the definition: per group the in-group indices of the
    kept values, in order, padded with other indices (in order) when fewer are nonzero;
    4 bits per group (bits 1:0 first index, 3:2 second; float32: 0b0100 / 0b1110), groups
    packed lowest bits first into E's elements."""
    M, K = a.shape
    f32 = a.dtype == np.float32
    group, kept = (2, 1) if f32 else (4, 2)
    per = E_BITS[e_dtype] // 4
    vals = np.zeros((M, K // 2), a.dtype)
    meta = np.zeros((M, K // group // per), np.uint64)
    for r in range(M):
        for g in range(K // group):
            nz = [i for i in range(group) if a[r, g * group + i] != 0]
            idx = sorted((nz + [i for i in range(group) if i not in nz])[:kept])
            for j, i in enumerate(idx):
                vals[r, g * kept + j] = a[r, g * group + i]
            field = (0b0100 if idx[0] == 0 else 0b1110) if f32 else idx[0] | idx[1] << 2
            meta[r, g // per] |= np.uint64(field) << np.uint64(4 * (g % per))
    bits = E_BITS[e_dtype]
    return vals, meta.astype("uint%d" % bits).view(e_dtype)


def reference(a, b, dtype):
    if dtype in ("int8", "uint8"):
        return a.astype(np.int64) @ b.astype(np.int64)
    return a.astype(np.float64) @ b.astype(np.float64)


CASES = [  # dtype, e_dtype, accum, ta, tb, te
    ("float16", "int16", "float32", False, False, False),
    ("float16", "int16", "float32", False, True, False),
    ("float16", "int8", "float32", False, False, False),
    ("float16", "int32", "float32", False, False, False),
    ("float16", "uint16", "float32", True, False, True),
    ("float16", "int16", "float32", True, True, False),
    ("float16", "int16", "float32", False, False, True),
    ("float16", "int16", "float16", False, False, False),
    ("float32", "int16", "float32", False, False, False),
    ("float32", "int8", "float32", False, True, True),
    ("int8", "int32", "int32", False, False, False),
    ("uint8", "int16", "int32", False, True, False),
]


@pytest.mark.parametrize("dtype,e_dtype,accum,ta,tb,te", CASES)
def test_gemm_sp(tilec, dtype, e_dtype, accum, ta, tb, te):
    M, N, K = 96, 80, 256
    rng = np.random.default_rng(11)
    a = sparse_a(rng, M, K, dtype)
    ints = dtype in ("int8", "uint8")
    b = (rng.integers(0 if dtype == "uint8" else -4, 5, (K, N)) if ints
         else rng.standard_normal((K, N))).astype(dtype)
    vals, meta = compress(a, e_dtype)
    bk = 128 if dtype == "float32" and e_dtype == "int16" else 64
    out = tilec.run(KERNEL, dict(M=M, N=N, K=K, dtype=dtype, e_dtype=e_dtype, accum=accum,
                                 ta=ta, tb=tb, te=te, bk=bk),
                    {"A_sparse": vals.T if ta else vals, "E": meta.T if te else meta,
                     "B": b.T if tb else b})["C"]
    want = reference(a, b, dtype)
    if dtype in ("int8", "uint8"):
        np.testing.assert_array_equal(out, want)
    else:
        # float16 sums of up to 128 products of size ~20 (a few float16 ulps of 0.016);
        # float32 operands rounded to TF32 as T.gemm's
        atol = 0.15 if accum == "float16" else 2e-2 if dtype == "float32" else 1e-3
        np.testing.assert_allclose(out, want, rtol=2e-2, atol=atol)


def test_gemm_sp_k_edge(tilec):
    """K = 224 in 64-wide tiles: the last tile reads zero values and zero metadata past K."""
    M, N, K = 64, 64, 224
    rng = np.random.default_rng(8)
    a = sparse_a(rng, M, K, "float16")
    b = rng.standard_normal((K, N)).astype(np.float16)
    vals, meta = compress(a, "int16")
    out = tilec.run(KERNEL, dict(M=M, N=N, K=K), {"A_sparse": vals, "E": meta, "B": b})["C"]
    np.testing.assert_allclose(out, reference(a, b, "float16"), rtol=1e-3, atol=1e-3)


def test_gemm_sp_clear_accum(tilec):
    """clear_accum on the first K step (a run-time condition): C holds only A * B."""
    M, N, K = 64, 64, 128
    rng = np.random.default_rng(3)
    a = sparse_a(rng, M, K, "float16")
    b = rng.standard_normal((K, N)).astype(np.float16)
    vals, meta = compress(a, "int16")
    out = tilec.run(KERNEL, dict(M=M, N=N, K=K, clear=True),
                    {"A_sparse": vals, "E": meta, "B": b})["C"]
    np.testing.assert_allclose(out, reference(a, b, "float16"), rtol=1e-3, atol=1e-3)


HEAD = '''import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 32), "float16"), E: T.Tensor((64, 4), "int16"),
         B: T.Tensor((64, 64), "float16"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((64, 32), "float16")
            E_s = T.alloc_shared((64, 4), "int16")
            E8 = T.alloc_shared((64, 4), "int8")
            Ef = T.alloc_shared((64, 4), "float32")
            B_s = T.alloc_shared((64, 64), "float16")
            B8 = T.alloc_shared((64, 64), "int8")
            acc = T.alloc_fragment((64, 64), "float32")
            acc16 = T.alloc_fragment((64, 64), "int16")
'''
ERRORS = [
    ("T.gemm_sp(A_s, E8, B_s, acc)", "T.gemm_sp: E (int8) must be 64 x 64/8"),
    ("T.gemm_sp(A_s, E_s, B8, acc)", "T.gemm_sp: A_sparse and B must have one dtype"),
    ("T.gemm_sp(A_s, Ef, B_s, acc)", "T.gemm_sp: E must be an 8-, 16- or 32-bit integer"),
    ("T.gemm_sp(A_s, E_s, B_s[0:32, :], acc)", "T.gemm_sp: A_sparse holds half of K"),
    ("T.gemm_sp(A_s, E_s, B_s, acc16)", "T.gemm_sp: C must be float32 or float16"),
    ("T.gemm_sp(A_s, E, B_s, acc)", "T.gemm_sp: E must be in shared memory or a fragment"),
    ("T.gemm_sp(A_s, E_s, B_s)", "T.gemm_sp"),
    ("T.gemm_sp(A_s, E_s, B_s, acc, policy=3)", "policy must be T.GemmWarpPolicy"),
]


@pytest.mark.parametrize("line,message", ERRORS)
def test_gemm_sp_errors(tilec, tmp_path, line, message):
    tilec.emit_error(tmp_path, HEAD, line, message, targets=("c", "cuda"))


def test_thread_level_compressor(tilec):
    """TileLang's example compressor pattern (kernels/sparse_compress.py): per-thread copies
    in and out of local buffers at thread-dependent regions and a tuple swap of two
    elements give the metadata of the definition, groups with one or no nonzero too."""
    rng = np.random.default_rng(9)
    a = sparse_a(rng, 32, 256, "float16")
    a[0, :4] = [0, 0, 0, 1]
    a[1, 4:8] = [0, 2, 0, 0]
    a[2, 8:12] = 0
    outs = tilec.run("tests/exec/kernels/sparse_compress.py:compress", {}, {"dense": a})
    vals, meta = compress(a, "int16")
    np.testing.assert_array_equal(outs["nonzero"], vals)
    np.testing.assert_array_equal(outs["meta"], meta)
