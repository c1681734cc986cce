"""Runs TileLang's own example scripts, unchanged, under tilec's compatibility layer and
reports which pass their own checks (issue: TileLang programs as people write them).

    python3 tests/gpu/upstream_examples.py EXAMPLES_DIR [--only SUBSTR]... [--timeout S]
                                           [--jobs N] [--out FILE.md] [--cpu]

EXAMPLES_DIR is a checkout of tile-ai/tilelang's examples/ folder (the script fetches
nothing: the examples are the user's). Each `example_*.py` that targets sm_90 or older
runs as `python -m tilec.compat FILE` in its own folder, with a timeout; it passes when
it exits 0 (the examples assert their results against torch). Blackwell-only and AMD
files are left out, as the issue says. Prints one line per file and a summary; --out
writes a Markdown table (file, result, the error's last line). --cpu runs each file
through cpu_probe.py instead (no GPU: CUDA tensors on the CPU, tilec's C target)."""
import argparse
import concurrent.futures as cf
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP_PARTS = ("amd", "cdna", "sm100", "sm120", "tcgen05", "blockscaled_gemm_sm100", "blackwell")


def wanted(path, only):
    text = str(path).lower()
    if any(p in text for p in SKIP_PARTS):
        return False
    return not only or any(s in str(path) for s in only)


def last_error(text):
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    for ln in reversed(lines):
        if "Error" in ln or "error:" in ln:
            return ln[:240]
    return lines[-1][:240] if lines else ""


def run_one(path, timeout, cpu):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), env.get("PYTHONPATH", "")])
    t0 = time.time()
    try:
        runner = [str(ROOT / "tests/gpu/cpu_probe.py")] if cpu else ["-m", "tilec.compat"]
        p = subprocess.run([sys.executable, *runner, path.name], cwd=path.parent,
                           env=env, capture_output=True, text=True, timeout=timeout)
        ok, err = p.returncode == 0, "" if p.returncode == 0 else last_error(p.stderr or p.stdout)
    except subprocess.TimeoutExpired:
        ok, err = False, "timeout after %d s" % timeout
    return path, ok, err, time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("examples")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--out")
    ap.add_argument("--cpu", action="store_true")
    a = ap.parse_args()
    base = Path(a.examples).resolve()
    files = sorted(p for p in base.rglob("example_*.py") if wanted(p.relative_to(base), a.only))
    if not files:
        print("no example_*.py under %s" % base)
        return 2
    rows = []
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for path, ok, err, sec in pool.map(lambda p: run_one(p, a.timeout, a.cpu), files):
            rel = path.relative_to(base)
            rows.append((str(rel), ok, err))
            print("%s %s (%.0f s)%s" % ("PASS" if ok else "FAIL", rel, sec,
                                         "" if ok else ": " + err), flush=True)
    npass = sum(ok for _, ok, _ in rows)
    print("%d passed, %d failed" % (npass, len(rows) - npass))
    if a.out:
        with open(a.out, "w") as f:
            f.write("| example | result | error |\n|---|---|---|\n")
            for rel, ok, err in rows:
                f.write("| %s | %s | %s |\n" % (rel, "pass" if ok else "FAIL",
                                                 err.replace("|", "\\|")))
    return 0 if npass == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
