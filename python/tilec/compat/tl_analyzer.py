"""tilelang.tools.Analyzer without TVM: a kernel's FLOPs, global memory traffic and
TileLang's roofline estimate, from libtilec's count of the tile program (tl_kernel_work).

TileLang's Analyzer walks a TVM PrimFunc: 2*M*N*K for each T.gemm and the global side of
each T.copy, times the loops around them and the blocks. tilec counts the same thing in
its own tile IR (Kernel.work): T.gemm FLOPs, and the bytes of every global access (tile
copies, and also element loads and stores of global tensors, which TileLang leaves out:
T.im2col, T.Parallel loops), loops times their trip counts, summed over the whole grid.
The time estimate is TileLang's: the larger of bytes / the device model's bandwidth and
FLOPs / TileLang's peak for the compute capability (its ARCH_CONFIGS table: 8.0, 8.6 and
8.9; other GPUs get no peak, and the estimate is the memory time, as in TileLang).

`kernel.get_tir(...)` (TLJITFunction in compat/jit.py) gives the compiled tilec Kernel
for those arguments, which is what Analyzer.analysis reads here in place of a PrimFunc."""
from dataclasses import dataclass

from .._lib import TilecError

# TileLang's table: (cores per SM, clock (GHz), FLOPs per cycle, SMs) per compute capability.
ARCH_CONFIGS = {"80": (128, 1.41, 2, 108), "86": (128, 1.70, 2, 84), "89": (128, 2.52, 2, 128)}


@dataclass(frozen=True)
class AnalysisResult:
    """total_flops, total_global_bytes, estimated_time (seconds), expected_tflops (None
    without a peak for the device), expected_bandwidth_GBps: TileLang's fields."""
    total_flops: int
    total_global_bytes: int
    estimated_time: float
    expected_tflops: float
    expected_bandwidth_GBps: float


def _kernel(fn):
    from ..kernel import Kernel
    if isinstance(fn, Kernel):
        return fn
    if hasattr(fn, "get_tir"):
        raise TilecError("Analyzer.analysis takes a kernel: call %s.get_tir(...) with its "
                         "arguments first" % getattr(fn, "__name__", "the function"))
    from .jit import compile
    return compile(fn)


def _peak_tflops(device):
    config = ARCH_CONFIGS.get(str(getattr(device, "compute_capability", ""))[:2])
    if config is None:
        return None
    cores, clock, per_cycle, sms = config
    return round(sms * cores * clock * per_cycle / 1e3, 1)


class Analyzer:
    """Analyzer(kernel, device).ir_pass().calculate(), or Analyzer.analysis(kernel, device)."""

    def __init__(self, fn, device):
        self.kernel = _kernel(fn)
        self.device = device
        self.total_flops = 0
        self.total_global_bytes = 0

    def ir_pass(self):
        try:
            flops, nbytes = self.kernel.work()
        except TilecError as e:
            raise TilecError("%s (Analyzer counts a kernel compiled for fixed sizes: give "
                             "them to get_tir)" % e) from None
        self.total_flops, self.total_global_bytes = int(flops), int(nbytes)
        return self

    def calculate(self):
        bandwidth_GBps = self.device.bandwidth[1] / 1000
        peak = _peak_tflops(self.device)
        mem_time = self.total_global_bytes / (bandwidth_GBps * 1e9)
        compute_time = self.total_flops / (peak * 1e12) if peak else None
        return AnalysisResult(
            total_flops=self.total_flops, total_global_bytes=self.total_global_bytes,
            estimated_time=max(mem_time, compute_time) if peak else mem_time,
            expected_tflops=peak, expected_bandwidth_GBps=bandwidth_GBps)

    @classmethod
    def analysis(cls, fn, device):
        return cls(fn, device).ir_pass().calculate()
