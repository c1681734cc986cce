"""Host overhead of a kernel call from Python: `python -m tilec.overhead [--target T]`.

Compiles a tiny kernel (one block copying 32 float32 numbers) and reports microseconds
per call, each the median over batches of calls:

  launch (prepared)   Kernel.prepare(...)(): one ctypes call with prebuilt DLTensors;
                      the floor: libtilec's argument checks + the launch itself
  launch (all args)   kernel(A, B): DLTensors refilled from the arrays each call
  call (alloc out)    kernel(A): inputs only; the output is allocated and returned

With CUDA (target cuda, torch tensors) launches are asynchronous, so the time per call
is the host's cost as long as the GPU keeps up (a 32-element kernel takes ~2 us); the
stream is synchronized after each batch. On the C target the kernel runs in the call,
so the numbers include running it."""
import argparse
import os
import statistics
import sys
import tempfile
import time

TINY = '''import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def copy(N=32, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(N):
                B[i] = A[i]
    return main
'''


def tiny_kernel(target):
    from .jit import compile_file
    fd, path = tempfile.mkstemp(prefix="tilec_tiny_", suffix=".py")
    with os.fdopen(fd, "w") as f:
        f.write(TINY)
    try:
        return compile_file(path, "copy", target=target)
    finally:
        os.unlink(path)


def per_call_us(fn, sync=None, batch=1000, batches=15):
    """Median over batches of the mean time of one call, in microseconds."""
    for _ in range(batch // 10 + 1):
        fn()
    if sync:
        sync()
    res = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        if sync:
            sync()
        res.append((time.perf_counter() - t0) / batch * 1e6)
    return statistics.median(res)


def measure(kernel, a, b, sync=None, batch=1000):
    """{what: microseconds per call} for a kernel of one input and one output."""
    run = kernel.prepare(a, b)
    return {
        "launch (prepared)": per_call_us(run, sync, batch),
        "launch (all args)": per_call_us(lambda: kernel(a, b), sync, batch),
        "call (alloc out)": per_call_us(lambda: kernel(a), sync, batch),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default=None, help="auto (default), c or cuda")
    ap.add_argument("--backend", default="auto", choices=["auto", "numpy", "torch"])
    ap.add_argument("--batch", type=int, default=1000)
    args = ap.parse_args(argv)
    k = tiny_kernel(args.target)
    backend = args.backend
    if backend == "auto":
        backend = "torch" if k.target == "cuda" else "numpy"
    sync = None
    if backend == "torch":
        import torch
        dev = "cuda" if k.target == "cuda" else "cpu"
        a = torch.randn(32, device=dev)
        b = torch.empty(32, device=dev)
        if dev == "cuda":
            sync = torch.cuda.synchronize
    else:
        import numpy as np
        a = np.random.rand(32).astype(np.float32)
        b = np.empty(32, np.float32)
    print("tilec %s, target %s, %s arrays, Python %s" % (
        k.name, k.target, backend, sys.version.split()[0]))
    for what, us in measure(k, a, b, sync, args.batch).items():
        print("  %-18s %7.2f us per call" % (what, us))
    return 0


if __name__ == "__main__":
    sys.exit(main())
