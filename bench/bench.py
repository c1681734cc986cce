"""tilec against its peers on the GPU, in one process, on the same inputs, with the same
timer (triton.testing.do_bench, median). Prints a table and writes bench/results.csv.

    PYTHONPATH=python TILEC_LIBRARY=build/libtilec.so python3 bench/bench.py [--quick]

Peers (../shared/PERF.md): cuBLAS through torch.matmul, torch's softmax, an RMSNorm
written in torch, and the device-copy bandwidth ceiling."""
import argparse
import csv
import datetime
import importlib.util
import os
import sys

os.environ.setdefault("TILEC_AS_TILELANG", "1")  # examples `import tilelang`: use tilec's
import torch  # noqa: E402
from triton.testing import do_bench  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tilec.compat.tilelang_shim  # noqa: E402,F401


def example(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Rows(list):
    """Results, each printed as it is measured (a cut-off run still reports)."""

    def append(self, r):
        super().append(r)
        print("measured:", r, flush=True)


def bench(fn, rep):
    return do_bench(fn, warmup=max(rep // 4, 1), rep=rep, return_mode="median")


def gemm_rows(rows, quick):
    mod = example("gemm")
    shapes = [(2048, 2048, 2048)] if quick else [(2048, 2048, 2048), (4096, 4096, 4096)]
    for dtype, tdt in (("float16", torch.float16), ("bfloat16", torch.bfloat16)):
        for m, n, k in shapes:
            a = torch.randn(m, k, device="cuda", dtype=tdt)
            b = torch.randn(k, n, device="cuda", dtype=tdt)
            kern = mod.matmul(M=m, N=n, K=k, in_dtype=dtype, out_dtype=dtype)
            c = kern(a, b)
            ref = a.float() @ b.float()
            err = (c.float() - ref).abs().max().item() / ref.abs().max().item()
            rep = 2000 if m * n * k <= 2048 ** 3 else 8000
            t_tl = bench(lambda: kern(a, b), rep)
            t_peer = bench(lambda: a @ b, 200)
            flops = 2.0 * m * n * k
            rows.append(("gemm %s %dx%dx%d" % (dtype, m, n, k), "cuBLAS",
                         flops / t_tl / 1e9, flops / t_peer / 1e9, "TFLOP/s", err))


def rowwise_rows(rows, quick):
    m, n = (8192, 4096) if quick else (16384, 8192)
    x = torch.randn(m, n, device="cuda", dtype=torch.float16)
    sm = example("softmax").softmax(M=m, N=n, block_M=1)
    y = sm(x)
    err = (y.float() - torch.softmax(x.float(), -1)).abs().max().item()
    byts = 2.0 * x.numel() * x.element_size()
    t_tl = bench(lambda: sm(x), 400)
    t_peer = bench(lambda: torch.softmax(x, -1), 400)
    rows.append(("softmax fp16 %dx%d" % (m, n), "torch.softmax", byts / t_tl / 1e6,
                 byts / t_peer / 1e6, "GB/s", err))
    xf = x.float()
    rn = example("rms_norm").rms_norm(M=m, N=n, blk_m=1)
    y = rn(xf)
    ref = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
    err = (y - ref).abs().max().item()
    byts = 2.0 * xf.numel() * xf.element_size()
    t_tl = bench(lambda: rn(xf), 400)
    t_peer = bench(lambda: xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6), 400)
    rows.append(("rmsnorm fp32 %dx%d" % (m, n), "torch (eager)", byts / t_tl / 1e6,
                 byts / t_peer / 1e6, "GB/s", err))


def copy_row(rows):
    x = torch.empty(2 ** 30 // 2, dtype=torch.float16, device="cuda").normal_()
    y = torch.empty_like(x)
    t = bench(lambda: y.copy_(x), 400)
    rows.append(("device copy 1 GiB", "-", 0.0, 2.0 * x.numel() * 2 / t / 1e6, "GB/s", 0.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--csv", default=os.path.join(ROOT, "bench", "results.csv"))
    args = ap.parse_args()
    torch.manual_seed(0)
    rows = Rows()
    copy_row(rows)
    rowwise_rows(rows, args.quick)
    gemm_rows(rows, args.quick)
    date = datetime.date.today().isoformat()
    dev = torch.cuda.get_device_name(0)
    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["date", "device", "work", "peer", "tilec", "peer_value", "unit", "ratio",
                    "max_err"])
        for r in rows:
            ratio = r[2] / r[3] if r[3] and r[2] else 0.0
            w.writerow([date, dev, r[0], r[1], "%.4g" % r[2], "%.4g" % r[3], r[4],
                        "%.4f" % ratio, "%.3g" % r[5]])
    print("%s, %s" % (date, dev))
    print("| work | peer | tilec | peer | unit | ratio | max err |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = r[2] / r[3] if r[3] and r[2] else 0.0
        print("| %s | %s | %.4g | %.4g | %s | %.4f | %.3g |" % (r[0], r[1], r[2], r[3], r[4],
                                                              ratio, r[5]))


if __name__ == "__main__":
    main()
