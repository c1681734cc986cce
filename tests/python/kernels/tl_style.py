"""A TileLang script, written for TileLang and run unchanged on tilec's compatibility layer
(tests/python/test_compat.py runs it): @tilelang.jit, tilelang.compile of a prim_func made
by calling a factory, tilelang.autotuner.autotune, the profiler. numpy only."""
import numpy as np
import tilelang
import tilelang.language as T
from tilelang.autotuner import autotune


@tilelang.jit(out_idx=[-1], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def scale_add(M=64, N=64, block_M=16, dtype=T.float32):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i, j in T.Parallel(block_M, N):
                C[bx * block_M + i, j] = A[bx * block_M + i, j] * 2.0 + B[bx * block_M + i, j]

    return main


def matmul(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):
    """TileLang's test style: a plain function called in Python returns the prim_func."""

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), accum_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def get_configs():
    return [{"block_M": 16}, {"block_M": 32}]


@autotune(configs=get_configs(), warmup=1, rep=5)
@tilelang.jit(out_idx=[-1])
def tuned_scale_add(M=64, N=64, block_M=None):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i, j in T.Parallel(block_M, N):
                C[bx * block_M + i, j] = A[bx * block_M + i, j] * 2.0 + B[bx * block_M + i, j]

    return main


def ref_program(a, b):
    return a * 2 + b


def main():
    kernel = scale_add(128, 64)
    a = np.random.rand(128, 64).astype(np.float32)
    b = np.random.rand(128, 64).astype(np.float32)
    np.testing.assert_allclose(kernel(a, b), ref_program(a, b), rtol=1e-6)
    profiler = kernel.get_profiler(tensor_supply_type=tilelang.TensorSupplyType.Randn)
    profiler.assert_allclose(ref_program, rtol=1e-5, atol=1e-5)
    print(f"Latency: {profiler.do_bench(warmup=5, rep=20)} ms")

    func = matmul(64, 64, 64, 32, 32, 32)
    mm = tilelang.compile(func, out_idx=[2], target="c")
    x = np.random.rand(64, 64).astype(np.float16)
    y = np.random.rand(64, 64).astype(np.float16)
    np.testing.assert_allclose(mm(x, y), x.astype(np.float32) @ y.astype(np.float32),
                               rtol=1e-3, atol=1e-3)

    best = tuned_scale_add(64, 64)
    np.testing.assert_allclose(best(a[:64], b[:64]), ref_program(a[:64], b[:64]), rtol=1e-6)
    print(f"Best config: {best.config}")
    print("All checks pass.")


if __name__ == "__main__":
    main()
