"""python3 tests/gpu/cpu_probe.py SCRIPT [ARGS...]: runs a TileLang example written for
CUDA on a machine without a GPU, to find front-end gaps before a GPU is at hand.

torch's CUDA tensors are made CPU tensors (`.cuda()`, `device="cuda"` and the torch.cuda
calls the examples make), tilec compiles for its C target (TILEC_TARGET=c), timing
runs each function once (its numbers mean nothing) and tilelang.carver describes an H100. A script that passes here has been
read, compiled and checked against its own torch reference on the C target; whether the
CUDA target also compiles it is the GPU run's question (upstream_examples.py)."""
import functools
import os
import runpy
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _cpu_device(dev):
    text = str(dev) if dev is not None else ""
    return "cpu" if text.startswith("cuda") or (isinstance(dev, int) and dev >= 0) else dev


def _redirect(fn):
    @functools.wraps(fn)
    def call(*args, **kw):
        if "device" in kw:
            kw["device"] = _cpu_device(kw["device"])
        return fn(*args, **kw)
    return call


FACTORIES = ("tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn",
             "randint", "arange", "linspace", "eye", "randperm", "zeros_like", "ones_like",
             "empty_like", "full_like", "rand_like", "randn_like", "randint_like",
             "empty_strided", "normal", "tril_indices", "triu_indices", "logspace")


class _Event:
    def __init__(self, *a, **k):
        pass

    def record(self, *a):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return 1.0


def patch_torch():
    import torch
    for name in FACTORIES:
        if hasattr(torch, name):
            setattr(torch, name, _redirect(getattr(torch, name)))
    to = torch.Tensor.to

    def tensor_to(self, *args, **kw):
        args = tuple(_cpu_device(a) if isinstance(a, (str, torch.device)) else a for a in args)
        if "device" in kw:
            kw["device"] = _cpu_device(kw["device"])
        return to(self, *args, **kw)
    torch.Tensor.to = tensor_to
    torch.Tensor.cuda = lambda self, *a, **k: self
    torch.set_default_device = lambda dev: None
    props = types.SimpleNamespace(name="cpu-probe", multi_processor_count=132, major=9,
                                  minor=0, total_memory=80 << 30)
    fake = dict(is_available=lambda: True, synchronize=lambda *a, **k: None,
                current_device=lambda: 0, device_count=lambda: 1, Event=_Event,
                manual_seed=lambda s: None, manual_seed_all=lambda s: None,
                empty_cache=lambda: None, get_device_capability=lambda *a: (9, 0),
                get_device_properties=lambda *a: props, get_device_name=lambda *a: props.name,
                set_device=lambda *a: None, max_memory_allocated=lambda *a: 0,
                reset_peak_memory_stats=lambda *a: None)
    for name, value in fake.items():
        setattr(torch.cuda, name, value)


def patch_tilec():
    """Timing runs once; the carver's GPU facts are an H100's."""
    import tilec.profiler as prof
    from tilec.compat import tl_carver

    def once(fn, *a, **k):
        fn()
        return [1.0]
    prof.bench_times = once
    tl_carver._gpus = lambda: [dict(name="cpu-probe (H100 facts)", sms=132,
                                    compute_capability="9.0", memory_bytes=80 << 30)]


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip())
        return 2
    os.environ["TILEC_TARGET"] = "c"
    sys.path.insert(0, os.path.join(ROOT, "python"))
    patch_torch()
    patch_tilec()
    from tilec.compat import install
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    install(force=True)
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
