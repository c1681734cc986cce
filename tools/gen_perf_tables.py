#!/usr/bin/env python3
"""Writes docs/perf.md's tables of the latest numbers from bench/results.csv: for every
benchmark (a `work` of the CSV) and peer, the last row bench/bench.py appended, grouped
by kind in the order of first appearance, with its date and GPU.

    tools/gen_perf_tables.py            rewrite the tables in place
    tools/gen_perf_tables.py --check    exit 1 if the page's tables are not the CSV's

The rows of bench/side_by_side.py (peer "TileLang ...", works "regression ID" in ms and
"regression compile ID" in s) make a section of their own, after the others: one line
per case with both latencies, both cold compile times and their ratios, the run's date
and GPU in its heading and a summary line below (geometric means over the cases both
sides ran, failures per side).

The tables sit between the BEGIN/END marker comments; nothing else is touched.
tests/exec/test_doc_tables.py runs --check, so the page and the CSV cannot drift apart."""
import argparse
import csv
import math
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
SBS_PEER = "TileLang "  # bench/side_by_side.py's peer: "TileLang 0.1.15"
SBS_WORK, SBS_COMPILE = "regression ", "regression compile "
SBS_DEFAULT_PEER = "TileLang 0.1.15"


def is_side_by_side(key):
    work, peer = key
    return peer.startswith(SBS_PEER) and work.startswith(SBS_WORK)


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


def _number(text):
    try:
        x = float(text)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) and x > 0 else None


def _shown(ratio):
    return ratio if _number(ratio) is not None else "-"  # "nan": a side gave no number


def _geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def side_by_side(peer, rows):
    """The section of one peer's side-by-side rows (the latest of each work)."""
    cases = {}  # "ID (KWARGS)" -> {"ms": row, "s": row}, in the order of first appearance
    for r in rows:
        w = r["work"]
        compile_row = w.startswith(SBS_COMPILE)
        key = w[len(SBS_COMPILE if compile_row else SBS_WORK):]
        cases.setdefault(key, {})["s" if compile_row else "ms"] = r
    dates = sorted({r["date"] for r in rows})
    devices = sorted({r["device"] for r in rows})
    when = ("run of %s" % dates[0] if len(dates) == 1 else
            "runs of %s to %s" % (dates[0], dates[-1]))
    short = peer.split()[0]
    lines = ["### Side by side with %s on its regression suite (%s, %s)"
             % (peer, when, ", ".join(devices)), "",
             "| case | %s ms | tilec ms | %s / tilec | %s cold compile s | tilec cold "
             "compile s | %s / tilec | date, GPU |" % (peer, short, short, short),
             "|---|---|---|---|---|---|---|---|"]
    both, fails = {"ms": [], "s": []}, {"tilec": 0, short: 0}
    for key, kinds in cases.items():
        ms, s = kinds.get("ms", {}), kinds.get("s", {})
        any_row = ms or s
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s, %s |" % (
            key, ms.get("peer_value", "-"), ms.get("tilec", "-"), _shown(ms.get("ratio")),
            s.get("peer_value", "-"), s.get("tilec", "-"), _shown(s.get("ratio")),
            any_row["date"], any_row["device"]))
        for kind, row in (("ms", ms), ("s", s)):
            ratio = _number(row.get("ratio"))
            if ratio is not None:
                both[kind].append(ratio)
        fails["tilec"] += ms.get("tilec") in ("fail", "timeout")
        fails[short] += ms.get("peer_value") in ("fail", "timeout")
    text = "%d cases, both sides timed in %d" % (len(cases), len(both["ms"]))
    means = ["%.3f for the latency" % _geomean(both["ms"])] if both["ms"] else []
    if both["s"]:
        means.append("%.3f for the cold compile" % _geomean(both["s"]))
    if means:
        text += "; geometric mean of %s / tilec (above 1 tilec is faster): %s" % (
            short, " and ".join(means))
    text += "; failed or timed out: tilec %d, %s %d." % (fails["tilec"], short, fails[short])
    return "\n".join(lines) + "\n\n" + text


def tables(csv_path):
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    last = latest(rows)
    sbs = {}
    for k in [k for k in last if is_side_by_side(k)]:
        sbs.setdefault(k[1], []).append(last.pop(k))
    parts = [BEGIN]
    for heading, fits in GROUPS:
        mine = [r for k, r in last.items() if fits(k[0])]
        for k in [k for k in last if fits(k[0])]:
            del last[k]
        if mine:
            parts.append("### %s\n\n%s" % (heading, table(mine)))
    for peer, mine in sbs.items():
        parts.append(side_by_side(peer, mine))
    if not sbs:
        parts.append("### Side by side with %s on its regression suite\n\nNo run recorded "
                     "yet (bench/side_by_side.py)." % SBS_DEFAULT_PEER)
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
