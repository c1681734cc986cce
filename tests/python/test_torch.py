"""tilec kernels as PyTorch custom ops (tilec.torch) on the C target with CPU tensors:
the op and its schema, the fake (meta) implementation, torch.library.opcheck, a module
calling two kernels under torch.compile (fullgraph: no graph break), the decorator form
for @tilec.jit factories, and the autograd pattern of docs/python.md with a
forward/backward kernel pair, against torch's own autograd. Skipped without torch (CI
does not install it); tests/gpu/test_torch_gpu.py runs the CUDA side (CUDA graphs)."""
from pysupport import ops, pytestmark  # noqa: F401,F811 (fixture, ASan skip); first

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch.library, "custom_op"):
    pytest.skip("torch %s has no torch.library.custom_op (needs 2.4)" % torch.__version__,
                allow_module_level=True)

import tilec  # noqa: E402
import tilec.torch as tt  # noqa: E402


def test_register_kernel_as_op(ops):
    k = ops.scale_add(M=64, N=32, alpha=1.5)
    op = tt.register(k, name="t_scale_add")
    assert tt.register(k, name="t_scale_add") is op  # again: the same op
    assert torch.ops.tilec.t_scale_add is not None
    assert tt.kernel_schema(k) == "(Tensor A, Tensor B) -> Tensor"
    a, b = torch.rand(64, 32), torch.rand(64, 32)
    torch.testing.assert_close(op(a, b), a * 1.5 + b)
    torch.testing.assert_close(torch.ops.tilec.t_scale_add(a, b), a * 1.5 + b)
    with pytest.raises(tilec.TilecError, match="already registered for another kernel"):
        tt.register(ops.scale_add(M=32, N=32), name="t_scale_add")


def test_fake_implementation_and_opcheck(ops):
    from torch._subclasses.fake_tensor import FakeTensorMode
    k = ops.two_outputs(N=16)
    op = tt.register(k, name="t_two_outputs")
    with FakeTensorMode():
        b, c = op(torch.empty(16))
        assert b.shape == (16,) and b.dtype == torch.float32 and c.dtype == torch.int32
    torch.library.opcheck(op, (torch.rand(16),))
    a = torch.rand(16)
    b, c = op(a)
    torch.testing.assert_close(b, a + 1)
    torch.testing.assert_close(c, (a * 2).to(torch.int32))


def test_kernel_without_outputs_is_refused(ops):
    k = ops.scale_add(M=16, N=16)
    k2 = tilec.compile(ops.scale_add, out_idx=[], M=16, N=16)
    assert k.out_idx and not k2.out_idx
    with pytest.raises(tilec.TilecError, match="no outputs"):
        tt.register(k2, name="t_no_out")


class TwoKernels(torch.nn.Module):
    def __init__(self, first, second):
        super().__init__()
        self.first, self.second = first, second

    def forward(self, a, b):
        return self.second(self.first(a, b), b) + 1


def test_torch_compile_of_a_module_with_two_kernels(ops):
    first = tt.register(ops.scale_add(M=64, N=32, alpha=2.0), name="t_first")
    second = tt.register(ops.scale_add(M=64, N=32, alpha=0.5), name="t_second")
    m = TwoKernels(first, second)
    compiled = torch.compile(m, fullgraph=True, backend="aot_eager")
    a, b = torch.rand(64, 32), torch.rand(64, 32)
    torch.testing.assert_close(compiled(a, b), (a * 2 + b) * 0.5 + b + 1)


def test_decorator_form_for_factories():
    import tk_ops
    # @tt.op(name=..., args=...) over a module-level @tilec.jit factory, applied here
    op = tt.op(name="t_row_sum", args=lambda a: {"N": a.shape[1]})(tk_ops.row_sum)
    a = torch.rand(40, 32)
    torch.testing.assert_close(op(a), a.sum(1), rtol=1e-5, atol=1e-5)
    compiled = torch.compile(lambda x: op(x) * 2, fullgraph=True, backend="aot_eager")
    torch.testing.assert_close(compiled(a), a.sum(1) * 2, rtol=1e-5, atol=1e-5)
    with pytest.raises(tilec.TilecError, match="needs args="):
        tt.register(tk_ops.row_sum, name="t_row_sum2")


def test_autograd_function_with_a_kernel_pair():
    """docs/python.md's pattern: forward and backward kernels in an autograd.Function."""
    import tk_autograd
    fwd = tt.register(tk_autograd.mul_fwd(M=64, N=64), name="t_mul_fwd")
    bwd = tt.register(tk_autograd.mul_bwd(M=64, N=64), name="t_mul_bwd")

    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return fwd(a, b)

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return bwd(g.contiguous(), a, b)

    a = torch.rand(64, 64, requires_grad=True)
    b = torch.rand(64, 64, requires_grad=True)
    (Mul.apply(a, b) * torch.arange(64.0)).sum().backward()
    ra, rb = a.detach().requires_grad_(), b.detach().requires_grad_()
    (ra * rb * torch.arange(64.0)).sum().backward()
    torch.testing.assert_close(a.grad, ra.grad)
    torch.testing.assert_close(b.grad, rb.grad)
