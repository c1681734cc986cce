"""A TileLang user's toolbox under tilec's compatibility layer (C target, numpy): do_bench
(backends, quantiles, TileLang's default statistic), JITKernel, tilelang.tvm/DataType,
language.fp8, contrib, utils.tensor.get_tensor_supply, utils.target, autotuner
(set_autotune_inputs, AutoTuner, AutotunedFunction.compile), cache, env and the
TILELANG_* variables, the kernel's source/export methods, resource usage (a cubin read
against ptxas -v), pass configs from Python values, every module path of TileLang 0.1.9
to 0.1.15, __dlpack__ inputs and the `tilec` command of the package."""
from pysupport import ops, pytestmark  # noqa: F401,F811 (fixture, ASan skip); first

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec import profiler as tprof

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def rand(shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(np.float32)


def run_py(code, **env_extra):
    env = dict(os.environ, TILEC_TARGET="c", PYTHONPATH=os.pathsep.join(
        [str(ROOT / "python"), str(HERE / "kernels")]))
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=180)


PRELUDE = "import tilec.compat; tilec.compat.install()\n"


# ---- do_bench -------------------------------------------------------------------------------
def test_summarize_modes_and_quantiles():
    t = [1.0, 2.0, 9.0, 4.0]
    assert tprof.summarize(t, "mean") == 4.0 and tprof.summarize(t, "median") == 3.0
    assert tprof.summarize(t, "min") == 1.0 and tprof.summarize(t, "max") == 9.0
    # linear interpolation, as torch.quantile: sorted [1, 2, 4, 9]
    assert tprof.summarize(t, quantiles=[0.5]) == 3.0
    assert tprof.summarize(t, quantiles=[0.0, 0.25, 1.0]) == [1.0, 1.75, 9.0]
    with pytest.raises(tilec.TilecError, match="quantiles"):
        tprof.summarize(t, quantiles=[1.5])


def test_default_statistic_tilec_median_tilelang_mean(ops, monkeypatch):
    import tl_toolbox
    monkeypatch.setattr(tprof, "bench_times", lambda *a, **k: [1.0, 2.0, 9.0])
    assert ops.scale_add(M=64, N=32).get_profiler().do_bench() == 2.0  # tilec: median
    k = tl_toolbox.double(M=64, N=32)  # made by @tilelang.jit
    assert k.get_profiler().do_bench() == 4.0  # TileLang: mean
    assert k.get_profiler().do_bench(return_mode="median") == 2.0
    assert k.get_profiler().do_bench(quantiles=[0.5, 1.0]) == [2.0, 9.0]
    import tilelang.profiler
    assert tilelang.profiler.do_bench(lambda: None) == 4.0
    assert tprof.do_bench(lambda: None) == 2.0


@pytest.mark.parametrize("backend", ["event", "cupti", "cudagraph"])
def test_do_bench_backends_on_the_c_target(ops, backend):
    """The backends time CUDA work; on the C target each is accepted and the CPU clock
    times the kernel (the same for a TileLang script's do_bench(fn, backend=...))."""
    k = ops.scale_add(M=64, N=32)
    ms = k.get_profiler().do_bench(backend=backend, warmup=1, rep=5)
    assert 0 < ms < 1000
    import tilelang.profiler
    qs = tilelang.profiler.do_bench(lambda: k(rand((64, 32)), rand((64, 32))), warmup=1,
                                    rep=5, backend=backend, quantiles=[0.2, 0.8])
    assert len(qs) == 2 and 0 < qs[0] <= qs[1]
    with pytest.raises(tilec.TilecError, match="backend must be one of event, cudagraph, "
                                               "cupti, not 'nvprof'"):
        k.get_profiler().do_bench(backend="nvprof")


# ---- names a TileLang script uses -----------------------------------------------------------
def test_jitkernel_tvm_datatype_fp8_contrib():
    import tilelang
    import tilelang.language as T
    from tilelang import tvm as tvm  # noqa: F401 (what TileLang's examples do)
    from tilelang.language.fp8 import determine_fp8_type
    import tl_toolbox

    def returns_kernel() -> tilelang.JITKernel:  # an annotation evaluated at import
        return tl_toolbox.double(M=32, N=32)
    assert isinstance(returns_kernel(), tilelang.JITKernel)
    d = tilelang.DataType("bfloat16")
    assert d == "bfloat16" and (d.bits, d.lanes, d.type_code) == (16, 1, 4)
    assert tilelang.tvm.DataType("half") == "float16"
    with pytest.raises(tilec.TilecError, match="not a dtype tilec knows"):
        tilelang.DataType("float7")
    assert determine_fp8_type() == T.float8_e4m3fn and determine_fp8_type("e5m2") == "float8_e5m2"
    import importlib.util  # fla looks for tilelang this way: the modules have specs
    assert importlib.util.find_spec("tilelang").name == "tilelang"
    assert importlib.util.find_spec("tilelang.language") is not None
    assert (T.int, T.uint, T.long, T.short) == ("int32", "uint32", "int64", "int16")
    assert T.dtype(T.uint32) in [T.int, T.uint] and T.ceildiv(7, 2) == 4
    with pytest.raises(ImportError, match=r"tilelang\.tvm\.tir\.Schedule: tilec reads TileLang "
                                          r"kernels without TVM.*dtypes are names here"):
        tilelang.tvm.tir.Schedule
    prim = tilelang.tvm.tirx.PrimExpr  # annotations (`val: tirx.PrimExpr`) only
    assert prim is tilelang.tvm.tirx.PrimExpr and not isinstance(3, prim)
    with pytest.raises(ImportError, match=r"tirx\.PrimExpr: .*no TVM objects"):
        prim()
    from tilelang.contrib import nvcc  # imports, as a script's top does; its names explain
    with pytest.raises(ImportError, match=r"contrib\.nvcc\.compile_cuda: .*NVRTC in-process"):
        nvcc.compile_cuda
    assert nvcc.parse_compute_version("9.0") == (9, 0)
    with pytest.raises(ImportError, match=r"tilelang\.carver\.analysis\.Analyzer: .*autotune"):
        from tilelang.carver.analysis import Analyzer  # noqa: F401
    from tilelang.engine.callback import register_cuda_postproc_callback as postproc
    with pytest.raises(ImportError, match=r"register_cuda_postproc_callback: .*no hand-edited"):
        postproc(lambda code, target: code)
    @tilelang.tvm.testing.requires_package("no_such_package_here")
    def marked():
        return 7
    assert marked() == 7  # a mark for pytest; a direct call runs


def test_carver_facts_and_gemm_hints(monkeypatch):
    """tilelang.carver answers from the GPU libtilec sees (here: an H100's facts put in
    its place) and ranks GEMM tiles: every hint fits shared memory, the list is sorted by
    the cost model, whole waves beat a ragged last wave."""
    import tilelang
    from tilec.compat import tl_carver
    from tilelang.carver.arch import CUDA, driver
    from tilelang.carver.template import MatmulTemplate
    from tilelang.carver.roller.rasterization import NoRasterization
    from tilelang.contrib import nvcc
    monkeypatch.setattr(tl_carver, "_gpus", lambda: [dict(
        name="H100", sms=132, compute_capability="9.0", memory_bytes=80 << 30)])
    assert driver.get_num_sms() == 132 and nvcc.get_target_compute_version() == "9.0"
    arch = CUDA("cuda")
    assert (arch.sm_version, arch.compute_max_core, arch.smem_cap) == (90, 132, 227 * 1024)
    t = MatmulTemplate(M=4096, N=4096, K=4096, in_dtype="float16", out_dtype="float16",
                       accum_dtype="float32").with_arch(arch)
    assert t.equivalent_function() is not None
    hints = t.recommend_hints(topk=5)
    assert len(hints) == 5
    for h in hints:
        bm, bn = h.block
        wm, wn = h.warp
        assert bm % wm == 0 and bn % wn == 0 and (bm // wm) * (bn // wn) in (4, 8)
        assert h.pipeline_stage * (bm + bn) * h.rstep[0] * 2 <= arch.smem_cap
        assert isinstance(h.rasterization_plan, NoRasterization)
    costs = [tl_carver._cost(t, arch, *h.block, h.rstep[0], h.pipeline_stage) for h in hints]
    assert costs == sorted(costs)
    # 2 full waves of 128x128 tiles (264 tiles = 2 x 132) cost less per FLOP than 265
    small = MatmulTemplate(M=128 * 12, N=128 * 22, K=1024)
    ragged = MatmulTemplate(M=128 * 12 + 1, N=128 * 22, K=1024)
    assert tl_carver._cost(small, arch, 128, 128, 64, 3) < tl_carver._cost(
        ragged, arch, 128, 128, 64, 3)
    with pytest.raises(tilec.TilecError, match="no ROCm"):
        tilelang.carver.arch.CDNA("hip")
    monkeypatch.setattr(tl_carver, "_gpus", lambda: [])
    with pytest.raises(tilec.TilecError, match="no CUDA GPU 0 visible"):
        driver.get_num_sms()


def test_get_tir_and_analyzer(monkeypatch):
    """upstream's examples/analyze: kernel.get_tir(sizes) and tilelang.tools.Analyzer give
    T.gemm FLOPs (whole tiles, as TileLang counts them) and global bytes from libtilec's
    count of the tile program, and TileLang's roofline estimate for the device model."""
    import tilelang
    import tl_eager
    from tilec.compat import tl_carver
    from tilelang.carver.arch import CUDA
    from tilelang.tools import Analyzer
    monkeypatch.setattr(tl_carver, "_gpus", lambda: [dict(
        name="A100", sms=108, compute_capability="8.0", memory_bytes=80 << 30)])
    k = tilelang.jit(tl_eager.matmul.func).get_tir(M=256, N=100, K=64, block_M=64,
                                                   block_N=64, block_K=32)
    r = Analyzer.analysis(k, CUDA("cuda"))
    blocks = 4 * 2  # ceil(256 / 64) x ceil(100 / 64)
    assert r.total_flops == 2 * 64 * 64 * 64 * blocks
    # per block: A and B tiles (64x32 and 32x64 fp16) twice, the 64x64 fp16 C tile once
    assert r.total_global_bytes == (2 * (64 * 32 + 32 * 64) * 2 + 64 * 64 * 2) * blocks
    assert r.expected_tflops == 39.0 and r.expected_bandwidth_GBps == 12.08
    assert r.estimated_time == max(r.total_global_bytes / 12.08e9, r.total_flops / 39e12)
    sym = tl_eager.matmul.compile(block_M=32, block_N=32, block_K=16)  # sizes unbound
    with pytest.raises(tilec.TilecError, match="symbolic sizes.*give them to get_tir"):
        Analyzer.analysis(sym, CUDA("cuda"))


def test_get_tensor_supply_and_utils_target():
    from tilelang.utils.tensor import TensorSupplyType, get_tensor_supply
    from tilelang.utils.target import check_cuda_availability, determine_target
    import tl_toolbox
    from tilec._tensor import to_numpy
    k = tl_toolbox.double(M=64, N=32)
    t = get_tensor_supply(TensorSupplyType.Integer)(k.params[0])  # torch where installed
    a = to_numpy(t)
    assert a.shape == (64, 32) and a.dtype == np.float32
    assert set(np.unique(a)) <= {-2.0, -1.0, 0.0, 1.0, 2.0} and len(np.unique(a)) > 1
    assert (to_numpy(get_tensor_supply(TensorSupplyType.One)(k.params[0])) == 1).all()
    np.testing.assert_array_equal(to_numpy(k(t)), 2 * a)
    assert determine_target() == ("cuda" if check_cuda_availability() else "c")
    facts = tilec.info_json()
    assert determine_target() == facts["auto_target"] and facts["version"] == tilec.version()
    assert facts["targets"]["c"]["available"] and "cache dir: %s" % facts["cache_dir"] in \
        tilec.info()
    assert determine_target("cuda -arch=sm_90") == "cuda" and determine_target("llvm") == "c"


def test_every_module_path_of_tilelang_releases_imports():
    """Each path of tilelang_modules.txt (0.1.9 to 0.1.15) imports; a few checked by
    name: tilelang.utils.target (to 0.1.11), the per-backend tree of 0.1.13."""
    names = [line.strip() for line in
             (ROOT / "python/tilec/compat/tilelang_modules.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    for want in ("tilelang.utils.target", "tilelang.cuda.intrinsics.layout.mma_layout",
                 "tilelang.intrinsics.mma_macro_generator", "tilelang.carver.arch",
                 "tilelang.autotuner.capture", "tilelang.language.fp8", "tilelang.env"):
        assert want in names
    code = PRELUDE + ("import importlib\n"
                      "names = %r\n"
                      "for n in names:\n"
                      "    importlib.import_module(n)\n"
                      "print('imported', len(names))\n" % names)
    proc = run_py(code)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "imported %d" % len(names)


# ---- autotuner --------------------------------------------------------------------------------
def test_set_autotune_inputs_and_autotuned_compile():
    import tilelang
    from tilelang.autotuner import set_autotune_inputs
    import tk_tune
    seen = []

    def ref(a):
        seen.append(a)
        return a * 3
    tuned = tilelang.autotune(configs=tk_tune.configs, ref_prog=ref, cache=False,
                              verbose=False, warmup=1, rep=2)(tk_tune.scale)
    mine = rand((64, 64), seed=3)
    with set_autotune_inputs(mine):
        k = tuned.compile(M=64, N=64)
    assert len(seen) == 3 and all(x is mine for x in seen)  # every config, on my tensor
    assert k.config in tk_tune.configs(64, 64)
    np.testing.assert_allclose(k(mine), 3 * mine, rtol=1e-6)
    from tilelang.autotuner import get_autotune_inputs
    assert get_autotune_inputs() is None


def test_autotuner_builder():
    import tilelang
    from tilelang.autotuner import AutoTuner
    import tl_toolbox
    configs = [{"block_M": 16, "block_N": 32}, {"block_M": 32, "block_N": 64}]
    res = (AutoTuner.from_kernel(kernel=tl_toolbox.tiled_add_one, configs=configs)
           .set_compile_args(out_idx=[-1], target="auto")
           .set_profile_args(supply_type=tilelang.TensorSupplyType.Auto,
                             ref_prog=lambda a: a + 1, skip_check=False)
           .run(warmup=1, rep=2))
    assert res.config in configs and res.latency > 0 and res.ref_latency is None
    a = rand((64, 64))
    np.testing.assert_allclose(res.kernel(a), a + 1, rtol=1e-6)
    # TileLang 0.1.15's run() keywords: early stop, grouped compile
    tuner = AutoTuner.from_kernel(kernel=tl_toolbox.tiled_add_one, configs=configs)
    res = tuner.run(warmup=1, rep=2, early_stop=True, early_stop_factor=1.0,
                    enable_grouped_compile=True, group_compile_size=2)
    assert res.config in configs
    with pytest.raises(tilec.TilecError, match="early_stop_factor must be >= 1.0"):
        tuner.run(early_stop=True, early_stop_factor=0.5)


def test_autotuner_nested_factory_and_per_config_pass_configs():
    """AutoTuner over a factory defined inside a function (closing over M, N), configs
    that carry their own pass_configs (TileLang's reserved key): every config compiles and
    times, the best one computes B = A + 1."""
    import tilelang
    import tilelang.language as T
    from tilelang.autotuner import AutoTuner
    M, N = 64, 96

    def kernel(block_M=None, block_N=None):
        @T.prim_func
        def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
            with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (
                    bx, by):
                tile = T.alloc_fragment((block_M, block_N), "float32")
                T.copy(A[by * block_M, bx * block_N], tile)
                for i, j in T.Parallel(block_M, block_N):
                    tile[i, j] = tile[i, j] + 1
                T.copy(tile, B[by * block_M, bx * block_N])
        return main

    key = tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED
    configs = [{"block_M": bm, "block_N": 32, "pass_configs": {key: ws}}
               for bm in (16, 32) for ws in (True, False)]
    res = (AutoTuner.from_kernel(kernel=kernel, configs=configs)
           .set_compile_args(out_idx=[-1], target="auto")
           .set_profile_args(ref_prog=lambda a: a + 1).run(warmup=1, rep=2))
    assert res.config in configs and len(res.results) == 4
    assert all(latency is not None for _, latency, _ in res.results), res.results
    a = rand((M, N))
    np.testing.assert_allclose(res.kernel(a), a + 1, rtol=1e-6)
    from tilec.jit import JITFunction
    jit = JITFunction(kernel, out_idx=[-1])
    plain = jit.compile_defines({"block_M": "16", "block_N": "32"})
    assert jit.compile_defines({"block_M": "16", "block_N": "32"}) is plain
    assert jit.compile_defines({"block_M": "16", "block_N": "32"},
                               pass_configs={key: True}) is not plain
    with pytest.raises(tilec.TilecError, match="pass_configs must be a dict"):
        AutoTuner.from_kernel(kernel=kernel, configs=[{"block_M": 16, "block_N": 32,
                                                       "pass_configs": 1}]).run()


def test_early_stop_skips_the_full_timing():
    """A run slower than the baseline returns its first estimate alone; the profiler's
    func is the kernel (TileLang's Profiler.func)."""
    import time
    from tilec.profiler import bench_times
    slow = lambda: time.sleep(0.002)  # noqa: E731
    assert len(bench_times(slow, 1, 10, 0, 0, "event", False, None, 0.5)) == 1
    assert len(bench_times(slow, 1, 10, 0, 0, "event", False, None, None)) > 1
    import tl_toolbox
    k = tl_toolbox.double(M=48, N=32)
    assert k.get_profiler().func is k


# ---- cache, env, TILELANG_* -------------------------------------------------------------------
ENV_SCRIPT = PRELUDE + """
import os, tl_toolbox, tilelang, numpy as np
k = tl_toolbox.double(M=48, N=32)
assert (k(np.ones((48, 32), np.float32)) == 2).all()
d = os.environ.get("CHECK_DIR")
print("entries", len([f for f in os.listdir(d) if not f.startswith(".")]) if d and
      os.path.isdir(d) else 0)
"""


def test_tilelang_cache_dir_and_disable_cache(tmp_path):
    own = tmp_path / "tl-cache"
    env = {"TILEC_CACHE_DIR": "", "TILELANG_CACHE_DIR": str(own), "CHECK_DIR": str(own),
           "TILELANG_PRINT_ON_COMPILATION": "0"}
    proc = run_py(ENV_SCRIPT, **env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("entries ")[1].strip() == "1"  # the kernel landed there
    fresh = tmp_path / "off"
    proc = run_py(ENV_SCRIPT, **dict(env, TILELANG_CACHE_DIR=str(fresh), CHECK_DIR=str(fresh),
                                     TILELANG_DISABLE_CACHE="1"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("entries ")[1].strip() == "0"  # compiled, not cached
    # tilelang.disable_cache() after the kernel file was imported still applies
    proc = run_py(ENV_SCRIPT.replace("k = tl_toolbox", "tilelang.disable_cache()\n"
                                     "assert not tilelang.is_cache_enabled()\n"
                                     "k = tl_toolbox"),
                  **dict(env, TILELANG_CACHE_DIR=str(fresh), CHECK_DIR=str(fresh)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("entries ")[1].strip() == "0"


def test_print_on_compilation():
    on = run_py(ENV_SCRIPT)  # TileLang's default: on
    assert on.returncode == 0, on.stderr
    assert "TileLang begins to compile kernel `double` with `out_idx=[-1]`" in on.stderr
    assert "TileLang completes to compile kernel `double`" in on.stderr
    off = run_py(ENV_SCRIPT, TILELANG_PRINT_ON_COMPILATION="0")
    assert off.returncode == 0 and "TileLang begins" not in off.stderr


def test_env_module_and_cache_module(tmp_path, monkeypatch):
    import tilelang
    from tilelang.env import env
    from tilelang.cache import cached, clear_cache
    monkeypatch.setenv("TILELANG_DISABLE_CACHE", "yes")
    assert env.is_cache_globally_disabled() and not tilelang.is_cache_enabled()
    monkeypatch.delenv("TILELANG_DISABLE_CACHE")
    assert tilelang.is_cache_enabled() and env.TILELANG_PRINT_ON_COMPILATION == "1"
    import tk_ops
    k = cached(tk_ops.scale_add_plain(M=32, N=32), [-1], target="c")
    a = rand((32, 32))
    np.testing.assert_allclose(k(a, a), 3 * a, rtol=1e-6)
    cache = Path(tilec.cache_dir())
    assert any(cache.iterdir())
    clear_cache()
    assert not [f for f in cache.iterdir() if f.is_file() and not f.name.startswith(".")]


# ---- the kernel's toolbox ------------------------------------------------------------------------
def test_sources_and_exported_library(ops, tmp_path, capsys):
    k = ops.scale_add(M=32, N=16, alpha=1.5)
    assert k.get_host_source() == k.get_kernel_source()  # the C target: all host code
    k.show_source("both")
    out = capsys.readouterr().out
    assert "===== Kernel Source =====" in out and "tilec_entry" in out
    k.export_sources(kernel_path=str(tmp_path / "k" / "kernel.c"),
                     host_path=str(tmp_path / "h" / "host.c"))
    assert (tmp_path / "k" / "kernel.c").read_text() == k.source
    with pytest.raises(ValueError, match="kernel_path or host_path"):
        k.export_sources()
    lib = k.export_library(str(tmp_path / "lib" / "scale_add.so"))
    # the exported library runs by itself: tilec_entry(args, syms) (docs/internals.md)
    so = ctypes.CDLL(lib)
    a, b, c = rand((32, 16), 1), rand((32, 16), 2), np.zeros((32, 16), np.float32)
    args = (ctypes.c_void_p * 3)(*[x.ctypes.data for x in (a, b, c)])
    assert so.tilec_entry(args, None) == 0
    np.testing.assert_allclose(c, a * 1.5 + b, rtol=1e-6)
    with pytest.raises(tilec.TilecError, match="runs on the c target: registers and shared "
                                               "memory are CUDA resources"):
        k.n_regs


def _ptxas():
    for p in (shutil.which("ptxas"), os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                                                  "bin", "ptxas")):
        if p and os.access(p, os.X_OK):
            return p
    return None


PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry with_smem(.param .u64 p)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b8 buf[1536];
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    mov.u64 %rd4, buf;
    add.s64 %rd5, %rd4, %rd3;
    st.shared.u32 [%rd5], %r1;
    bar.sync 0;
    ld.shared.u32 %r2, [%rd5];
    add.s64 %rd6, %rd2, %rd3;
    st.global.u32 [%rd6], %r2;
    ret;
}
.visible .entry tiny(.param .u64 p)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], 7;
    ret;
}
"""


@pytest.mark.skipif(_ptxas() is None, reason="ptxas (CUDA toolkit) not found")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])  # (sm_90a keeps registers elsewhere)
def test_cubin_resource_usage_matches_ptxas(tmp_path, arch):
    import re
    from tilec.cubin import resource_usage
    (tmp_path / "k.ptx").write_text(re.sub(r"\.target \w+", ".target " + arch, PTX))
    proc = subprocess.run([_ptxas(), "-arch=" + arch, "-v", str(tmp_path / "k.ptx"), "-o",
                           str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    want = {}
    for name, body in re.findall(r"Compiling entry function '(\w+)'.*?\n(.*?Used.*?)\n",
                                 proc.stdout + proc.stderr, re.S):
        regs = int(re.search(r"Used (\d+) registers", body).group(1))
        smem = re.search(r"(\d+) bytes smem", body)
        want[name] = {"registers": regs, "static_shared_bytes": int(smem.group(1)) if smem else 0}
    assert set(want) == {"with_smem", "tiny"} and want["with_smem"]["static_shared_bytes"] == 1536
    assert resource_usage((tmp_path / "k.cubin").read_bytes()) == want
    with pytest.raises(tilec.TilecError, match="not a 64-bit"):
        resource_usage(b"not an elf file")


# ---- pass configs from Python values --------------------------------------------------------------
def test_pass_configs_from_python_values():
    """pass_configs given as Python values (keys as strings or PassConfigKey members) reach
    libtilec (tl_options.pass_configs) and are checked there."""
    import tilelang
    from tilec.compat.jit import TLJITFunction
    import tl_toolbox
    key = tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED
    cfg = {key: True, "tilec.disable_split_k": 0, "tl.some_string_knob": "x"}
    jf = TLJITFunction(tl_toolbox.double.func, out_idx=[-1], pass_configs=cfg)
    a = rand((32, 32))
    np.testing.assert_array_equal(jf(M=32)(a), 2 * a)
    # a member whose key is not tl.<name> (TIR_SIMPLIFY is "tirx.Simplify") maps to its key
    jf = TLJITFunction(tl_toolbox.double.func, out_idx=[-1],
                       pass_configs={tilelang.PassConfigKey.TIR_SIMPLIFY: True})
    with pytest.warns(tilec.TilecWarning, match="'tirx.Simplify': accepted, no effect"):
        jf(M=16)
    with pytest.raises(tilec.TilecError, match="pass_configs must be a dict"):
        tilec.compile(tl_toolbox.double.func, out_idx=[-1], pass_configs=["nonsense"])


def test_pass_configs_switch_the_cuda_code(tmp_path):
    """--pass-config reaches the CUDA lowering: with tl.disable_warp_specialized=1 the GEMM
    is generated as with --set no_ws=1 (emit only: no GPU needed); TILEC_NO_WS=1 is that
    setting's default, under --set."""
    tilec_bin = os.environ.get("TILEC", str(ROOT / "build" / "tilec"))
    args = [tilec_bin, "emit", "examples/gemm.py", "--target", "cuda", "--arch", "sm_90a",
            "-D", "M=1024", "-D", "N=1024", "-D", "K=1024", "-D", "block_M=128", "-D",
            "block_N=256", "-D", "block_K=64", "-D", "num_stages=3", "-D", "threads=256"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILEC_NO_")}

    def emit(extra=(), **e):
        p = subprocess.run(args + list(extra), cwd=ROOT, env=dict(env, **e),
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return p.stdout
    plain, no_ws = emit(), emit(["--set", "no_ws=1"])
    assert plain != no_ws
    assert emit(["--pass-config", "tl.disable_warp_specialized=1"]) == no_ws
    assert emit(["--pass-config", "TL_DISABLE_TMA_LOWER=True"]) == no_ws
    assert emit(["--pass-config", "tl.disable_warp_specialized=0"]) == plain
    assert emit(TILEC_NO_WS="1") == no_ws
    assert emit(["--set", "no_ws=0"], TILEC_NO_WS="1") == plain


def test_options_switch_the_cuda_code():
    """options= (and tilec.settings()) reach the CUDA lowering, emit only: the arch and a
    switch; a bad setting is an error that names it."""
    from tilec.jit import compile_file
    path = str(ROOT / "examples" / "gemm.py")

    def source(**kw):
        k = compile_file(path, target="cuda", build=0, **kw)
        return k.source[k.source.index("---- kernels ----"):]
    wgmma = source(options={"arch": "sm_90a"})
    mma = source(options={"arch": "sm_90a", "no_wgmma": True})
    assert "tl_wgmma" in wgmma and "tl_wgmma" not in mma
    assert source(options={"arch": "sm_80"}) == mma
    with tilec.settings(arch="sm_90a", no_wgmma=True):
        assert source() == mma
        assert source(options={"no_wgmma": False}) == wgmma  # a compile's own options win
    assert source(options={"arch": "sm_90a"}) == wgmma  # the block's settings are gone
    with pytest.raises(tilec.TilecError, match="unknown setting 'no_such'"):
        source(options={"no_such": 1})
    with pytest.raises(tilec.TilecError, match="'sm80': not a CUDA architecture"):
        source(options={"arch": "sm80"})


# ---- __dlpack__ inputs ----------------------------------------------------------------------------
class DLPackOnly:
    """An array that offers only the DLPack protocol (as JAX's and TensorFlow's do)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_dlpack_inputs_zero_copy(ops):
    k = ops.scale_add(M=64, N=32, alpha=2.0)
    a, b = rand((64, 32), 1), rand((64, 32), 2)
    np.testing.assert_array_equal(k(DLPackOnly(a), DLPackOnly(b)), a * 2 + b)
    c = np.zeros((64, 32), np.float32)
    k(DLPackOnly(a), DLPackOnly(b), DLPackOnly(c))  # in place: the kernel wrote c itself
    np.testing.assert_array_equal(c, a * 2 + b)
    view = np.zeros((64, 64), np.float32)[:, 16:48]  # an offset, strided view
    with pytest.raises(tilec.TilecError, match="compact row-major"):
        k(DLPackOnly(a), DLPackOnly(b), DLPackOnly(view))
    with pytest.raises(tilec.TilecError, match="dtype is float64 but the kernel expects float32"):
        k(DLPackOnly(a.astype(np.float64)), DLPackOnly(b))


# ---- the `tilec` command of the package -----------------------------------------------------------
def test_package_installs_the_tilec_command(tmp_path):
    pytest.importorskip("setuptools")
    site = tmp_path / "site"
    egg = tmp_path / "egg"
    egg.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TILEC_LIBRARY"}
    proc = subprocess.run([sys.executable, "setup.py", "-q", "egg_info", "--egg-base", str(egg),
                           "build_py", "--build-lib", str(site)], cwd=ROOT / "python",
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    eps = next(egg.glob("*.egg-info")) / "entry_points.txt"
    assert "tilec = tilec.cli:main" in eps.read_text()  # pip makes bin/tilec from this
    assert os.access(site / "tilec" / "bin" / "tilec", os.X_OK)
    assert (site / "tilec" / "compat" / "tilelang_modules.txt").is_file()
    run = subprocess.run([sys.executable, "-c", "import sys; from tilec.cli import main; "
                          "sys.exit(main())", "info", "--json"], cwd=tmp_path,
                         env=dict(env, PYTHONPATH=str(site)), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    import json
    assert json.loads(run.stdout)["version"] == tilec.version()


# ---- TileLang's smaller kernel and profiler methods -----------------------------------------------
def test_profiler_checks_and_symbolic_bench(ops, capsys):
    k = ops.scale_add(M=32, N=16, alpha=2.0)
    prof = k.get_profiler()
    seen = []
    prof.manual_assert_close(lambda a, b: a * 2 + b,
                             manual_check_prog=lambda got, ref: seen.append((got, ref)))
    (got,), (ref,) = seen[0]
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    prof.assert_consistent(repeat=3)
    flaky = iter(range(100))
    with pytest.raises(AssertionError, match="output 'C' differs between runs 1 and 2"):
        prof.run_once = lambda: [np.full((32, 16), next(flaky), np.float32)]
        prof.assert_consistent(repeat=2)
    rows = ops.row_sum(N=32).get_profiler()
    with pytest.raises(tilec.TilecError, match="symbolic size M"):
        rows.do_bench(warmup=1, rep=2)
    assert rows.do_bench(warmup=1, rep=2, dynamic_symbolic_constraints={"M": 40}) > 0
    assert k.get_kernel_source(kernel_only=False) == k.kernel_source == k.source
    k.print_source_code()
    assert "tilec_entry" in capsys.readouterr().out
    with pytest.raises(ValueError, match="was not tuned"):
        k.get_tuner_result()


def test_import_tvm_and_module_named_functions():
    """Without TVM, `from tvm import DataType` (TileLang scripts import the TVM TileLang
    bundles) works, other tvm names explain themselves; a TileLang function exported
    under its module's name (tilelang.tools.plot_layout) raises the layer's error when
    called; dtypes convert to torch; tilelang.__file__ exists."""
    code = PRELUDE + """
import importlib.util, tilelang
assert importlib.util.find_spec("tvm") is not None
from tvm import DataType
assert DataType("float16").bits == 16
try:
    from tvm import tirx
    tirx.IndexMap
except ImportError as e:
    print("tvm:", e)
from tilelang.tools import plot_layout
try:
    plot_layout(None)
except ImportError as e:
    print("call:", e)
print("file", tilelang.__file__.endswith("compat/__init__.py"))
"""
    proc = run_py(code)
    assert proc.returncode == 0, proc.stderr
    assert "tvm: tvm.tirx.IndexMap: tilec reads TileLang kernels without TVM" in proc.stdout
    assert "call: tilelang.tools.plot_layout: " in proc.stdout and "tilec emit" in proc.stdout
    assert "file True" in proc.stdout
    import tilelang.language as T
    torch = pytest.importorskip("torch")
    assert T.float8_e4m3fn.as_torch() is torch.float8_e4m3fn
    assert T.bfloat16.as_torch() is torch.bfloat16


def test_tir_helpers_through_the_capture():
    """A prim_func whose helper uses tvm.tirx (const, Select, reinterpret, astype) compiled
    from Python (the capture: tvm is the compat layer's), and DataType(x).bits in a
    factory, against numpy."""
    import importlib.util
    import tilelang  # noqa: F401 (the compat layer: tvm, tilelang.tvm)
    import tilelang.language as T
    from tvm import DataType
    spec = importlib.util.spec_from_file_location(
        "tir_helpers", ROOT / "tests" / "exec" / "kernels" / "tir_helpers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    k = tilelang.compile(mod.unpack, out_idx=[-1])
    a = np.random.default_rng(3).integers(0, 256, 128, dtype=np.uint8)
    nib = np.stack([a & 15, a >> 4], axis=1).reshape(-1).astype(np.uint16)
    np.testing.assert_array_equal(k(a).view(np.uint16), (nib << 10) | 1)

    @tilelang.jit(out_idx=[-1])
    def widths(dtype=T.float16):
        lanes = 128 // DataType(dtype).bits  # 8 for float16

        @T.prim_func
        def main(A: T.Tensor((lanes,), "int32")):
            with T.Kernel(1) as bx:
                for i in T.Parallel(lanes):
                    A[i] = i * DataType("float32").bits
        return main
    np.testing.assert_array_equal(widths()(), np.arange(8) * 32)
