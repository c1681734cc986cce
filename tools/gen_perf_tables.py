#!/usr/bin/env python3
"""Writes docs/perf.md's tables of the latest numbers from bench/results.csv: for every
benchmark (a `work` of the CSV) and peer, the last row bench/bench.py appended, grouped
by kind in the order of first appearance, with its date and GPU.

    tools/gen_perf_tables.py            rewrite the tables in place
    tools/gen_perf_tables.py --check    exit 1 if the page's tables are not the CSV's

The tables sit between the BEGIN/END marker comments; nothing else is touched.
tests/exec/test_doc_tables.py runs --check, so the page and the CSV cannot drift apart."""
import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "perf.md"
CSV = ROOT / "bench" / "results.csv"
BEGIN = "<!-- BEGIN PERF-TABLES (tools/gen_perf_tables.py) -->"
END = "<!-- END PERF-TABLES -->"

# (heading, test on the work's text), first match wins; the order of the tables.
GROUPS = [
    ("GEMM, wgmma (sm_90a)", lambda w: w.startswith("gemm") and "mma.sync" not in w
     and not w.startswith(("gemm split-k", "gemm fp8"))),
    ("GEMM, split-K on small grids", lambda w: w.startswith("gemm split-k")),
    ("GEMM, fp8", lambda w: w.startswith("gemm fp8")),
    ("GEMM, mma.sync (the code sm_80 gets)", lambda w: "mma.sync" in w),
    ("Flash attention", lambda w: w.startswith("attention")),
    ("Row-wise kernels and copies", lambda w: w.startswith(("softmax", "rmsnorm", "device"))),
    ("Compile time (cold: source to loaded cubin)", lambda w: w.startswith("compile")),
    ("Other", lambda w: True),
]


def latest(rows):
    """{(work, peer): its last row}, in the order the pairs first appear."""
    out = {}
    for r in rows:
        out[(r["work"], r["peer"])] = r  # a key keeps its first place, takes the last row
    return out


def table(rows):
    lines = ["| benchmark | peer | tilec | peer's | unit | tilec / peer | max err | date, GPU |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s, %s |" % (
            r["work"], r["peer"], r["tilec"], r["peer_value"], r["unit"], r["ratio"],
            r["max_err"], r["date"], r["device"]))
    return "\n".join(lines)


def tables(csv_path):
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    last = latest(rows)
    parts = [BEGIN]
    for heading, fits in GROUPS:
        mine = [r for k, r in last.items() if fits(k[0])]
        for k in [k for k in last if fits(k[0])]:
            del last[k]
        if mine:
            parts.append("### %s\n\n%s" % (heading, table(mine)))
    parts.append(END)
    return "\n\n".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--csv", default=str(CSV))
    args = ap.parse_args()
    doc = DOC.read_text()
    start, end = doc.find(BEGIN), doc.find(END)
    if start < 0 or end < start:
        sys.exit("%s: no %s ... %s markers" % (DOC, BEGIN, END))
    new = doc[:start] + tables(args.csv) + doc[end + len(END):]
    if args.check:
        if new != doc:
            sys.exit("docs/perf.md's tables are not bench/results.csv's latest rows: run "
                     "tools/gen_perf_tables.py")
        return
    DOC.write_text(new)


if __name__ == "__main__":
    main()
