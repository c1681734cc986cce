"""A tilec kernel from Python on any machine (docs/python.md's quick start):

    pip install ./python && TILEC_TARGET=c python3 examples/python/quickstart.py

TILEC_TARGET=c runs it on the CPU (the C target); without it, on the GPU where one is
usable (then pass torch CUDA tensors). From a source tree without installing:
PYTHONPATH=python python3 -m tilec.compat examples/python/quickstart.py."""
import numpy as np

import tilec
import tilelang.language as T  # answered by tilec's compatibility layer without TileLang


@tilec.jit(out_idx=[-1])
def add(M=1024, N=1024, block_M=32, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i, j in T.Parallel(block_M, N):
                C[bx * block_M + i, j] = A[bx * block_M + i, j] + B[bx * block_M + i, j]
    return main


if __name__ == "__main__":
    kernel = add(256, 128)                         # compiled once per argument tuple
    a = np.random.rand(256, 128).astype(np.float32)
    b = np.random.rand(256, 128).astype(np.float32)
    c = kernel(a, b)                               # inputs in, output back (numpy)
    np.testing.assert_allclose(c, a + b)
    profiler = kernel.get_profiler()
    profiler.assert_allclose(lambda a, b: a + b)   # a reference on generated inputs
    print("%s (%s): C = A + B checked, %.4f ms" % (kernel.name, kernel.target,
                                                    profiler.do_bench()))
