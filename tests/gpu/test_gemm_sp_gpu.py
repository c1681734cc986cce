"""T.gemm_sp on the GPU (run by tests/gpu/run.sh with torch with CUDA and pytest): upstream
TileLang's examples/gemm_sp kernel (A_sparse, E and B staged in a pipelined loop) under
the compatibility layer, its operands made by tilelang.utils.sparse on the GPU, checked
against torch's dense A @ B, for float16 and bfloat16, int8 / int16 / int32 metadata,
B transposed or not, three tile configurations; each kernel's source must
call tl_gemm_sp_ss (mma.sp), not the loops. With TILEC_TARGET=c (and no GPU) the same
tests run on the CPU with the C target (a check of the test itself). Environment as
tests/python."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "python")]
os.environ.setdefault("TILEC_TARGET", "cuda")
from pysupport import pytestmark  # noqa: F401,E402 (sets up the package and the library)

torch = pytest.importorskip("torch")
ON_GPU = os.environ["TILEC_TARGET"] == "cuda"
if ON_GPU and not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)
DEVICE = "cuda" if ON_GPU else "cpu"

import tilec.compat  # noqa: E402

tilec.compat.install()
import tilelang  # noqa: E402
import tilelang.language as T  # noqa: E402
from tilelang.cuda.intrinsics.sparse_layout import get_e_factor  # noqa: E402
from tilelang.utils.sparse import compress, randn_semi_sparse  # noqa: E402


@tilelang.jit(out_idx=[-1])
def matmul_sp(M, N, K, dtype, e_dtype, block_M, block_N, block_K, num_stages, threads,
              trans_B=False):
    e_factor = get_e_factor(dtype, e_dtype)

    @T.prim_func
    def main(A_sparse: T.Tensor((M, K // 2), dtype), E: T.Tensor((M, K // e_factor), e_dtype),
             B: T.Tensor((N, K) if trans_B else (K, N), dtype), C: T.Tensor((M, N), T.float)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K // 2), dtype)
            E_shared = T.alloc_shared((block_M, block_K // e_factor), e_dtype)
            B_shared = T.alloc_shared((block_N, block_K) if trans_B else (block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), T.float)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A_sparse[by * block_M, k * block_K // 2], A_shared)
                T.copy(E[by * block_M, k * block_K // e_factor], E_shared)
                if trans_B:
                    T.copy(B[bx * block_N, k * block_K], B_shared)
                else:
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm_sp(A_shared, E_shared, B_shared, C_local, transpose_B=trans_B)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


CONFIGS = [  # block_M, block_N, block_K, num_stages, threads: the example's main(), and
    (128, 128, 64, 2, 128),  # its __main__'s 256 threads and N tile (block_K 64: A100's
    (128, 256, 64, 2, 256),  # shared memory), 8 warps
    (64, 64, 128, 3, 128),
]
DTYPES = [("float16", "int16"), ("float16", "int8"), ("float16", "int32"),
          ("bfloat16", "int16")]


def run_case(dtype, e_dtype, config, trans_B, M=512, N=512, K=512):
    kernel = matmul_sp(M, N, K, T.dtype(dtype), T.dtype(e_dtype), *config, trans_B=trans_B)
    if ON_GPU:
        assert "tl_gemm_sp_ss<" in kernel.get_kernel_source(), "not on mma.sp"
    tdt = getattr(torch, dtype)
    torch.manual_seed(0)
    a = randn_semi_sparse(M, K, dtype=tdt, device=DEVICE)
    b = torch.randn(K, N, device=DEVICE).to(tdt)
    a_sparse, e = compress(a, meta_dtype=getattr(torch, e_dtype))
    c = kernel(a_sparse, e, b.t().contiguous() if trans_B else b)
    ref = a.float() @ b.float()
    torch.testing.assert_close(c, ref, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dtype,e_dtype", DTYPES)
@pytest.mark.parametrize("config", CONFIGS)
def test_gemm_sp(dtype, e_dtype, config):
    run_case(dtype, e_dtype, config, False)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_gemm_sp_trans_b(dtype):
    run_case(dtype, "int16", CONFIGS[0], True)


def test_gemm_sp_k_edge():
    """K = 480 in 64-wide tiles: the last tile's zeros past K (values and metadata)."""
    run_case("float16", "int16", CONFIGS[0], False, M=256, N=256, K=480)


def test_compress_layout():
    """compress on the device: E's fields name the kept positions of each group in order."""
    a = randn_semi_sparse(32, 64, dtype=torch.float16, device=DEVICE)
    vals, e = compress(a, meta_dtype=torch.int16)
    assert vals.device == a.device and e.device == a.device and e.shape == (32, 4)
    bits = e.cpu().to(torch.int32) & 0xFFFF
    dense = torch.zeros(32, 64, dtype=torch.float16)
    for r in range(32):
        for g in range(16):
            field = int(bits[r, g // 4]) >> (4 * (g % 4)) & 0xF
            i0, i1 = field & 3, field >> 2
            assert i0 < i1
            dense[r, 4 * g + i0] = vals[r, 2 * g].cpu()
            dense[r, 4 * g + i1] = vals[r, 2 * g + 1].cpu()
    assert torch.equal(dense, a.cpu())
