"""tilec kernels as PyTorch operators (torch.library custom ops), so that torch.compile
traces through them and CUDA graphs capture them.

    k = scale_add(M=1024, N=1024)                  # a compiled tilec.Kernel
    op = tilec.torch.register(k, name="scale_add")  # torch.ops.tilec.scale_add
    y = op(a, b)                                   # or torch.ops.tilec.scale_add(a, b)

    @tilec.torch.op(name="rms", args=lambda x: {"M": x.shape[0], "N": x.shape[1]})
    @tilec.jit(out_idx=[-1])
    def rms_norm(M, N, ...): ...                   # one kernel per factory arguments
    y = rms_norm(x)                                # the op: compiles for x's shape

register(kernel) gives the op the kernel's exact signature: one argument per input
parameter (Tensor, or float/int/bool for scalar parameters), returning the outputs
(one Tensor or a tuple). The op's fake (meta) implementation allocates outputs of the
shapes the kernel declares (symbolic sizes bound by the inputs), so tracing never runs
the kernel. The decorator form wraps a @tilec.jit factory: `args(*inputs)` gives the
factory's arguments for a call's inputs (the kernel is compiled once per distinct
arguments, during tracing too); its op takes `Tensor[]` and returns `Tensor[]`, and
the returned Python function unpacks them.

Outputs are allocated with torch (new_empty on the first input's device) and the kernel
runs on torch's current CUDA stream, so a CUDA graph captured around the op replays it.
The op declares no mutated arguments: kernels that write into their inputs (no out_idx)
cannot be registered. Autograd: wrap ops in torch.autograd.Function (docs/python.md).
Needs torch >= 2.4 (torch.library.custom_op)."""
import re
import threading

from ._lib import TilecError
from .jit import JITFunction
from .kernel import Kernel

_lock = threading.Lock()
_registered = {}  # "ns::name" -> (what it wraps, the op)


def _torch():
    try:
        import torch
    except ImportError:
        raise TilecError("tilec.torch needs PyTorch: pip install torch") from None
    if not hasattr(getattr(torch, "library", None), "custom_op"):
        raise TilecError("tilec.torch needs torch >= 2.4 (torch.library.custom_op); this "
                         "is torch %s" % torch.__version__)
    return torch


def _schema_type(p):
    if not p.is_scalar:
        return "Tensor"
    if p.dtype == "bool":
        return "bool"
    return "float" if p.dtype.startswith(("float", "bfloat")) else "int"


def kernel_schema(kernel):
    """The custom op's schema for a Kernel: "(Tensor A, Tensor B) -> Tensor"."""
    if not kernel.out_idx:
        raise TilecError("kernel '%s' has no outputs (no out_idx): it writes into its "
                         "arguments, which a registered op cannot (give the kernel "
                         "out_idx)" % kernel.name)
    args = ", ".join("%s %s" % (_schema_type(p), _arg_name(p.name))
                     for p in kernel.input_params)
    n = len(kernel.out_idx)
    ret = "Tensor" if n == 1 else "(%s)" % ", ".join(["Tensor"] * n)
    return "(%s) -> %s" % (args, ret)


def _arg_name(name):
    # schema argument names: identifiers that are not schema keywords
    return name if name not in ("self", "out", "Tensor", "float", "int", "bool") else name + "_"


def _qualified(name, namespace, default):
    name = name or default
    if "::" in name:
        namespace, name = name.split("::", 1)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name or "") or \
            not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", namespace):
        raise TilecError("op name %r: namespace and name must be Python identifiers "
                         "(\"mylib::my_op\")" % ("%s::%s" % (namespace, name)))
    return "%s::%s" % (namespace, name)


def _new_outputs(kernel, inputs):
    """Empty output tensors of kernel for these inputs (real or fake tensors)."""
    first = next((x for x in inputs if hasattr(x, "new_empty")), None)
    if first is None:
        raise TilecError("kernel '%s': the op needs at least one tensor input to place its "
                         "outputs" % kernel.name)
    shapes = kernel._out_const
    if None in shapes:
        shapes = kernel._torch_output_shapes(inputs)
        if shapes is None:
            raise TilecError("kernel '%s': an output shape is an expression Python cannot "
                             "evaluate, so the op cannot allocate it" % kernel.name)
    dtypes = [p.torch_dtype for p in kernel.output_params]
    return [first.new_empty(s, dtype=d) for s, d in zip(shapes, dtypes)]


def _run(kernel, inputs):
    outs = _new_outputs(kernel, inputs)
    full = list(inputs)
    for i, o in zip(kernel.out_idx, outs):  # ascending: each insert lands in place
        full.insert(i, o)
    kernel.launch(*full)
    return outs


def register(kernel=None, name=None, *, namespace="tilec", args=None):
    """Registers kernel (a compiled tilec.Kernel, or a @tilec.jit factory with args=) as
    the custom op NAMESPACE::NAME (name may be "ns::name"; default: the kernel's or the
    factory's name) and returns it (a torch op callable, also torch.ops.NS.NAME).
    Without kernel: a decorator (see op). Registering the same kernel under the same name
    again returns the existing op; another kernel under a taken name is an error."""
    if kernel is None:
        return lambda k: register(k, name, namespace=namespace, args=args)
    torch = _torch()
    if isinstance(kernel, Kernel):
        if args is not None:
            raise TilecError("register: args= is for @tilec.jit factories; kernel '%s' is "
                             "already compiled" % kernel.name)
        qual = _qualified(name, namespace, kernel.name)
        return _once(qual, kernel, lambda: _register_kernel(torch, qual, kernel))
    jit = getattr(kernel, "jit", kernel)  # an @autotune function wraps a JITFunction
    if not isinstance(jit, JITFunction) and not isinstance(kernel, JITFunction):
        raise TilecError("register takes a tilec.Kernel or a @tilec.jit factory, not %s"
                         % type(kernel).__name__)
    if args is None:
        raise TilecError("register(%s): a factory needs args=, a function from the op's "
                         "input tensors to the factory's arguments" % jit.__name__)
    qual = _qualified(name, namespace, jit.__name__)
    return _once(qual, kernel, lambda: _register_factory(torch, qual, kernel, args))


def op(name=None, *, namespace="tilec", args=None):
    """Decorator form of register: @tilec.torch.op(name=..., args=...) over a @tilec.jit
    factory (or an @autotune one) makes it a custom op called with tensors."""
    return lambda k: register(k, name, namespace=namespace, args=args)


def _once(qual, what, make):
    with _lock:
        old = _registered.get(qual)
        if old is not None:
            if old[0] is what:
                return old[1]
            raise TilecError("op %s is already registered for another kernel: pick another "
                             "name" % qual)
        fn = make()
        _registered[qual] = (what, fn)
        return fn


def _register_kernel(torch, qual, kernel):
    single = len(kernel.out_idx) == 1

    def impl(*inputs):
        outs = _run(kernel, inputs)
        return outs[0] if single else tuple(outs)

    def fake(*inputs):
        outs = _new_outputs(kernel, inputs)
        return outs[0] if single else tuple(outs)

    op = torch.library.custom_op(qual, impl, mutates_args=(), schema=kernel_schema(kernel))
    op.register_fake(fake)
    return op


def _register_factory(torch, qual, factory, args):
    def kernel_for(inputs):
        given = {n: int(v) if type(v).__name__ == "SymInt" else v  # traced sizes
                 for n, v in args(*inputs).items()}
        k = factory(**given)
        if not isinstance(k, Kernel):
            raise TilecError("op %s: the factory returned %s, not a compiled kernel"
                             % (qual, type(k).__name__))
        if any(p.is_scalar for p in k.input_params):
            raise TilecError("op %s: kernel '%s' takes scalar parameters, which the factory "
                             "form (Tensor[] inputs) cannot pass: register a compiled kernel "
                             "instead" % (qual, k.name))
        return k

    def impl(inputs):
        return _run(kernel_for(inputs), inputs)

    def fake(inputs):
        return _new_outputs(kernel_for(inputs), inputs)

    op = torch.library.custom_op(qual, impl, mutates_args=(),
                                 schema="(Tensor[] inputs) -> Tensor[]")
    op.register_fake(fake)

    def call(*inputs):
        outs = op(list(inputs))
        return outs[0] if len(outs) == 1 else tuple(outs)

    call.op = op
    call.__name__ = qual.split("::")[1]
    call.__doc__ = getattr(factory, "__doc__", None)
    return call
