"""tilec on the GPU with PyTorch (run by tests/gpu/run.sh on a machine with a GPU, torch
with CUDA and pytest): a module calling two tilec kernels, registered as custom ops,
under torch.compile (the default inductor backend, fullgraph) and inside a captured CUDA
graph, each checked against the same computation in torch; examples/gemm.py captured
in a CUDA graph; the autograd pattern; DLPack inputs; do_bench's three backends; the
profiler's inputs drawn on the GPU;
resource usage of a CUDA kernel. Environment as tests/python (TILEC:
the binary whose directory holds libtilec.so)."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "python"), str(ROOT / "tests" / "python" / "kernels")]
os.environ.setdefault("TILEC_TARGET", "cuda")
from pysupport import pytestmark  # noqa: F401,E402 (sets up the package and the library)

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tilec  # noqa: E402
import tilec.torch as tt  # noqa: E402
import tk_autograd  # noqa: E402
import tk_ops  # noqa: E402

M, N = 256, 128


def cuda_kernel(factory, **args):
    """factory's kernel for these arguments on the cuda target (the public API)."""
    return tilec.compile(factory, target="cuda", **args)


@pytest.fixture(scope="module")
def two_ops():
    first = tt.register(cuda_kernel(tk_ops.scale_add, M=M, N=N, alpha=2.0), name="g_first")
    second = tt.register(cuda_kernel(tk_autograd.mul_fwd, M=M, N=N), name="g_mul")
    return first, second


class Net(torch.nn.Module):
    def __init__(self, first, second):
        super().__init__()
        self.first, self.second = first, second
        self.w = torch.nn.Parameter(torch.randn(M, N, device="cuda"))

    def forward(self, a, b):
        h = self.first(a, b)          # 2a + b (tilec)
        h = torch.relu(h) - 0.25      # torch in between
        return self.second(h, self.w)  # h * w (tilec)


def reference(net, a, b):
    return (torch.relu(2 * a + b) - 0.25) * net.w


def test_torch_compile_two_kernels(two_ops):
    net = Net(*two_ops).cuda()
    a, b = torch.randn(M, N, device="cuda"), torch.randn(M, N, device="cuda")
    compiled = torch.compile(net, fullgraph=True)
    with torch.no_grad():
        torch.testing.assert_close(compiled(a, b), reference(net, a, b))
        a2 = torch.randn(M, N, device="cuda")
        torch.testing.assert_close(compiled(a2, b), reference(net, a2, b))


def test_cuda_graph_capture_two_kernels(two_ops):
    net = Net(*two_ops).cuda()
    a, b = torch.randn(M, N, device="cuda"), torch.randn(M, N, device="cuda")
    with torch.no_grad():
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):  # warm up on the side stream, as torch's docs ask
                net(a, b)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = net(a, b)
        for _ in range(3):  # new data in the static inputs, replayed
            a.copy_(torch.randn(M, N, device="cuda"))
            b.copy_(torch.randn(M, N, device="cuda"))
            g.replay()
            torch.cuda.synchronize()
            torch.testing.assert_close(out, reference(net, a, b))


def test_autograd_pair_on_the_gpu():
    fwd = tt.register(cuda_kernel(tk_autograd.mul_fwd, M=M, N=N), name="g_mul_fwd")
    bwd = tt.register(cuda_kernel(tk_autograd.mul_bwd, M=M, N=N), name="g_mul_bwd")

    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return fwd(a, b)

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return bwd(g.contiguous(), a, b)

    a = torch.randn(M, N, device="cuda", requires_grad=True)
    b = torch.randn(M, N, device="cuda", requires_grad=True)
    Mul.apply(a, b).square().sum().backward()
    ra, rb = a.detach().requires_grad_(), b.detach().requires_grad_()
    (ra * rb).square().sum().backward()
    torch.testing.assert_close(a.grad, ra.grad)
    torch.testing.assert_close(b.grad, rb.grad)


def test_dlpack_input_on_the_gpu():
    k = cuda_kernel(tk_ops.scale_add, M=M, N=N)

    class DLPackOnly:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    a, b = torch.randn(M, N, device="cuda"), torch.randn(M, N, device="cuda")
    c = torch.empty(M, N, device="cuda")
    k(DLPackOnly(a), DLPackOnly(b), DLPackOnly(c))
    torch.cuda.synchronize()
    torch.testing.assert_close(c, a * 2 + b)


@pytest.mark.parametrize("backend", ["event", "cudagraph", "cupti"])
def test_do_bench_backends(backend):
    import tilelang.profiler
    k = cuda_kernel(tk_ops.scale_add, M=4096, N=1024)
    prof = k.get_profiler()
    ms = prof.do_bench(backend=backend, warmup=5, rep=20)
    assert 0 < ms < 100, ms
    a, b = prof.inputs
    qs = tilelang.profiler.do_bench(lambda: k(a, b), backend=backend, warmup=5, rep=20,
                                    quantiles=[0.5, 0.9])
    assert (len(qs) == 2 and 0 < qs[0] <= qs[1]) if backend != "cupti" else qs[0] > 0


@pytest.mark.parametrize("kind", ["Integer", "Uniform", "Normal", "Randn", "Zero", "Auto"])
def test_profiler_inputs_drawn_on_the_gpu(kind):
    """A CUDA kernel's generated inputs come from torch on the GPU, in the distribution
    TileLang's TensorSupplyType names, seeded (the same seed gives the same inputs)."""
    k = cuda_kernel(tk_ops.scale_add, M=512, N=256)
    kinds = tilec.profiler.TensorSupplyType
    prof = k.get_profiler(tensor_supply_type=kinds[kind])
    a, b = prof.supply_inputs(seed=3)
    again, _ = prof.supply_inputs(seed=3)
    assert a.is_cuda and a.dtype == torch.float32 and tuple(a.shape) == (512, 256)
    assert torch.equal(a, again)
    lo, hi, mean = float(a.min()), float(a.max()), float(a.mean())
    if kind == "Integer":
        assert (lo, hi) == (-2.0, 2.0) and torch.equal(a, a.round())
    elif kind in ("Uniform", "Auto"):
        assert -1.0 <= lo and hi < 1.0 and abs(mean) < 0.05
    elif kind == "Normal":
        assert abs(mean + 1.0) < 0.05
    elif kind == "Randn":
        assert abs(mean) < 0.05
    else:
        assert lo == hi == 0.0
    out = prof.run_once(input_tensors=[a, b])[0]
    torch.testing.assert_close(out, a * 2 + b)


def test_resource_usage_of_a_cuda_kernel():
    k = cuda_kernel(tk_ops.scale_add, M=M, N=N)
    usage = k.resource_usage
    assert usage and all(u["registers"] > 0 for u in usage.values()), usage
    assert k.n_regs == max(u["registers"] for u in usage.values())


@pytest.mark.parametrize("sizes", [dict(M=1024, N=1024, K=1024),
                                   dict(M=1000, N=1000, K=2048, block_M=128, block_N=256,
                                        block_K=64, num_stages=4, threads=256)])
def test_cuda_graph_capture_gemm(sizes):
    """examples/gemm.py (TMA, warp specialization, split-K where the plan uses it) as an
    op, captured in a CUDA graph and replayed on new data."""
    sys.path.insert(0, str(ROOT / "examples"))
    import gemm
    k = cuda_kernel(gemm.matmul, **sizes)
    op = tt.register(k, name="g_gemm_%d_%d" % (sizes["M"], sizes["K"]))
    M_, N_, K_ = sizes["M"], sizes["N"], sizes["K"]
    a = torch.randn(M_, K_, device="cuda", dtype=torch.float16)
    b = torch.randn(K_, N_, device="cuda", dtype=torch.float16)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        op(a, b)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        c = op(a, b)
    for _ in range(2):
        a.copy_(torch.randn_like(a))
        b.copy_(torch.randn_like(b))
        g.replay()
        torch.cuda.synchronize()
        ref = (a.float() @ b.float()).to(c.dtype)
        torch.testing.assert_close(c, ref, rtol=2e-2, atol=2e-1)


@pytest.fixture(scope="module")
def dyn_rows_kernel():
    sys.path.insert(0, str(ROOT / "tests" / "unit" / "kernels"))
    import dyn_rows
    return cuda_kernel(dyn_rows.dyn_rows)


@pytest.mark.parametrize("m, k, n", [(100, 72, 88), (100, 37, 70), (1000, 1000, 1000),
                                     (1000, 1002, 998)])
def test_dynamic_row_lengths(dyn_rows_kernel, m, k, n):
    """One kernel over T.dynamic sizes: row lengths of whole 16-byte vectors run its TMA
    variant, the others its general one (pass_assume_aligned, chosen at each launch)."""
    assert "tl_tma_load(" in dyn_rows_kernel.get_kernel_source()
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    dyn_rows_kernel(a, b, c)
    torch.cuda.synchronize()
    torch.testing.assert_close(c.float(), a.float() @ b.float(), rtol=2e-2, atol=5e-2)
