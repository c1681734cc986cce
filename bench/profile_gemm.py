"""One tilec GEMM and one cuBLAS GEMM (torch.matmul) on the same inputs, each run twice,
for a profiler (ncu) to read; not a benchmark.

    PYTHONPATH=python TILEC_LIBRARY=build/libtilec.so ncu --clock-control none \
        -k regex:'tilec|gemm|nvjet' python3 bench/profile_gemm.py [M N K [CONFIG [DTYPE]]]

CONFIG as bench.py's --gemm-config (default bench.GEMM_DEFAULT_SM90), DTYPE float16 or bfloat16.
bench/ncu_table.py gives a metric list (--metrics) and turns ncu's output into a table.
"""
import os
import sys

os.environ.setdefault("TILEC_AS_TILELANG", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench  # noqa: E402

m, n, k = (int(a) for a in sys.argv[1:4]) if len(sys.argv) > 3 else (4096, 4096, 4096)
cfg = bench.gemm_config(sys.argv[4]) if len(sys.argv) > 4 else bench.GEMM_DEFAULT_SM90
dtype = sys.argv[5] if len(sys.argv) > 5 else "float16"
bench.load_gpu_modules()
torch = bench.torch
kern = bench.compile_gemms(bench.example("gemm"), [((m, n, k), dtype, cfg)])
kern = next(iter(kern.values())).result()
a, b = bench.gemm_inputs((m, n, k), dtype)
for _ in range(2):
    c = kern(a, b)
    ref = torch.matmul(a, b)
torch.cuda.synchronize()
print("rel err %.2e" % bench.rel_err(c, a, b))
