"""Races tilec GEMM variants against cuBLAS, shape by shape: cuBLAS and every variant of a
shape are timed in the same interleaved rounds (bench.interleaved_ms), so that they see the
same clocks; prints each variant's ratio to cuBLAS, the geometric mean over the shapes, and
the cuBLAS kernel (torch profiler). A diagnostic for choosing between kernel changes, not a
benchmark: nothing is written to results.csv.

    PYTHONPATH=python TILEC_LIBRARY=build/libtilec.so python3 bench/variants.py \\
        [--dtype float16|bfloat16] [--shapes full|quick|MxNxK,...] \\
        --variant default --variant 'clusters:cluster=1' \\
        --variant 'wide:block_M=256,block_N=128,panel_size=16'

A variant is NAME[:KEY=VALUE,...]: keys that name a setting of the compiler (`tilec help
settings`: no_ws, cluster, ...; or its variable, TILEC_CLUSTER) are settings of the
variant's compiles (tilec.settings), the others are arguments of examples/gemm.py's matmul
over bench.GEMM_DEFAULT_SM90 (ints, True/False, or strings). Two variants with the same
settings measure the noise.
"""
import argparse
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def value(text):
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text)
    except ValueError:
        return text


# The compiler's settings (src/base/options.c) and the variables that give their defaults.
SETTINGS = {"arch": "TILEC_CUDA_ARCH", "sm_count": "TILEC_SM_COUNT", "no_ws": "TILEC_NO_WS",
            "no_wgmma": "TILEC_NO_WGMMA", "no_stmatrix": "TILEC_NO_STMATRIX",
            "no_tma_store": "TILEC_NO_TMA_STORE", "no_persistent": "TILEC_NO_PERSISTENT",
            "no_splitk": "TILEC_NO_SPLITK", "cluster": "TILEC_CLUSTER",
            "pingpong": "TILEC_PINGPONG"}
SETTING_OF_VARIABLE = {v: k for k, v in SETTINGS.items()}


def variant(text):
    """(name, settings, matmul keyword arguments) of a --variant."""
    name, _, rest = text.partition(":")
    settings, kw = {}, {}
    for item in filter(None, rest.split(",")):
        key, eq, val = item.partition("=")
        if not eq or not key:
            raise argparse.ArgumentTypeError("expected KEY=VALUE in %r, got %r" % (text, item))
        key = SETTING_OF_VARIABLE.get(key, key)
        if key in SETTINGS:
            settings[key] = val
        elif key.startswith("TILEC_"):
            raise argparse.ArgumentTypeError("%r is not a setting's variable (%s)"
                                             % (key, ", ".join(SETTING_OF_VARIABLE)))
        else:
            kw[key] = value(val)
    if not name:
        raise argparse.ArgumentTypeError("a variant needs a name: %r" % text)
    return name, settings, kw


def shapes(text):
    if text in ("full", "quick"):
        return bench.GEMM_FULL if text == "full" else bench.GEMM_QUICK
    try:
        return [tuple(int(v) for v in s.split("x")) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("expected full, quick or MxNxK,..., got %r" % text)


def compile_variant(var, shape_list, dtype):
    """{shape: compiled kernel} of one variant, compiled with its settings (a module of its
    own, so that the kernel cache in memory does not mix variants)."""
    import tilec
    name, settings, kw = var
    with tilec.settings(**settings):
        mod = bench.example("gemm")
        args = dict(bench.cfg_args(bench.GEMM_DEFAULT_SM90))
        args.update(kw)

        def build(shape):
            m, n, k = shape
            return mod.matmul(M=m, N=n, K=k, in_dtype=dtype, out_dtype=dtype, **args)

        futs = bench.compile_all(build, [(s,) for s in shape_list])
    out = {}
    for s in shape_list:
        try:
            out[s] = futs[(s,)].result()
        except Exception as e:  # noqa: BLE001 (a variant that fails is left out)
            print("FAILED %s %s: %s" % (name, "x".join(map(str, s)), str(e)[:400]), flush=True)
    return out


def cublas_kernel(fn):
    torch = bench.torch
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return next((n for n in names if "emset" not in n), "?")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtype", choices=bench.GEMM_DTYPES, default="float16")
    ap.add_argument("--shapes", type=shapes, default=bench.GEMM_FULL)
    ap.add_argument("--variant", type=variant, action="append", required=True)
    args = ap.parse_args()
    bench.load_gpu_modules()
    torch = bench.torch
    torch.backends.cuda.matmul.allow_tf32 = False
    kernels = {v[0]: compile_variant(v, args.shapes, args.dtype) for v in args.variant}
    bench.warm_up_gpu()
    ratios = {name: [] for name in kernels}
    for s in args.shapes:
        a, b = bench.gemm_inputs(s, args.dtype)
        fns, names = [lambda: a @ b], []
        for name, ks in kernels.items():
            k = ks.get(s)
            if k is None:
                continue
            err = bench.rel_err(k(a, b), a, b)
            if err > bench.SWEEP_MAX_ERR:
                print("%s %s: error %.3g, left out" % (name, "x".join(map(str, s)), err))
                continue
            fns.append(lambda k=k: k(a, b))
            names.append(name)
        ms = bench.interleaved_ms(fns, budget_ms=2500)
        line = "%-18s cuBLAS %6.1f TFLOP/s |" % ("x".join(map(str, s)),
                                                  2.0 * math.prod(s) / ms[0] / 1e9)
        for name, t in zip(names, ms[1:]):
            ratios[name].append(ms[0] / t)
            line += " %s %.4f" % (name, ms[0] / t)
        print(line, "|", cublas_kernel(lambda: a @ b), flush=True)
        del a, b
    print("geomean:", " ".join("%s %.4f" % (n, math.exp(statistics.fmean(map(math.log, r))))
                               for n, r in ratios.items() if len(r) == len(args.shapes)))


if __name__ == "__main__":
    main()
