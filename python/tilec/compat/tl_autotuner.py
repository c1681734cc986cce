"""tilelang.autotuner.AutoTuner: TileLang's builder-style tuner over tilec.autotune.

    result = (AutoTuner.from_kernel(kernel=factory, configs=[{...}, ...])
              .set_compile_args(out_idx=[-1], target="auto")
              .set_profile_args(supply_type=..., ref_prog=..., skip_check=False)
              .run(warmup=3, rep=20))
    result.config, result.latency, result.kernel

The factory is compiled by libtilec from its source file, so it must be a module-level
function (as for @tilelang.jit); its parameters the configs do not give take their
defaults."""
from ..autotuner import AutotunedFunction
from .jit import TLJITFunction


class AutoTuner:
    def __init__(self, fn, configs):
        self.fn = fn
        self.configs = configs
        self.compile_args = {"out_idx": None, "target": "auto", "pass_configs": None}
        self.profile_args = {}

    @classmethod
    def from_kernel(cls, kernel, configs):
        return cls(kernel, configs)

    def set_compile_args(self, out_idx=None, target="auto", execution_backend=None,
                         target_host=None, verbose=None, pass_configs=None):
        self.compile_args = {"out_idx": out_idx, "target": target or "auto",
                             "pass_configs": pass_configs}
        return self

    def set_profile_args(self, warmup=25, rep=100, timeout=30, supply_type=None,
                         ref_prog=None, supply_prog=None, rtol=1e-2, atol=1e-2,
                         max_mismatched_ratio=0.01, skip_check=False, manual_check_prog=None,
                         cache_input_tensors=False, backend="event", **ignored):
        """TileLang's profile arguments; supply_prog, manual_check_prog, timeout and
        cache_input_tensors are accepted and not used."""
        self.profile_args = dict(warmup=warmup, rep=rep, supply_type=supply_type,
                                 ref_prog=ref_prog, rtol=rtol, atol=atol,
                                 max_mismatched_ratio=max_mismatched_ratio,
                                 skip_check=skip_check, backend=backend)
        return self

    def run(self, warmup=None, rep=None, timeout=None, use_pipeline=False,
            enable_grouped_compile=False, group_compile_size=2, benchmark_devices=None,
            benchmark_multi_gpu=False, early_stop=False, early_stop_factor=2.0):
        """Tunes and returns the result (config, latency, kernel; ref_latency None).
        early_stop as in tilec.autotune. tilec compiles the configs in parallel always
        (enable_grouped_compile, group_compile_size and use_pipeline change nothing)
        and benchmarks on the current GPU (benchmark_devices/benchmark_multi_gpu)."""
        from ..autotuner import check_early_stop
        check_early_stop(early_stop, early_stop_factor)
        opts = dict(warmup=25, rep=100, supply_type=None, ref_prog=None, rtol=1e-2,
                    atol=1e-2, max_mismatched_ratio=0.01, skip_check=False, cache=True,
                    max_workers=None, verbose=True, backend="event",
                    early_stop_factor=early_stop_factor if early_stop else None)
        opts.update(self.profile_args)
        opts.update({k: v for k, v in (("warmup", warmup), ("rep", rep)) if v is not None})
        fn = self.fn if isinstance(self.fn, TLJITFunction) else TLJITFunction(
            self.fn, **self.compile_args)
        tuned = AutotunedFunction(fn, self.configs, opts)
        tuned()
        res = tuned.last_result
        res.ref_latency, res.func, res.libcode = None, None, res.kernel.source
        return res
