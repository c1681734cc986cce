#!/usr/bin/env python3
"""Writes docs/language.md's tables of T names (section 8): every name tilec knows, with
its status as `tilec info --names` prints it, in table order; then every name of
TileLang's namespace (tools/tilelang_names.txt) that tilec lacks, and the coverage.

    tools/gen_lang_table.py [--tilec build/tilec]           rewrite the tables in place
    tools/gen_lang_table.py --check [--tilec build/tilec]   exit 1 if the doc differs
    tools/gen_lang_table.py --coverage [--tilec build/tilec]  print the coverage line

The tables sit between the BEGIN/END marker comments; nothing else is touched.
tests/exec/test_lang.py runs --check, so the doc and the tables cannot drift apart."""
import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "language.md"
NAMES = ROOT / "tools" / "tilelang_names.txt"
BEGIN = "<!-- BEGIN T-NAMES (tools/gen_lang_table.py) -->"
END = "<!-- END T-NAMES -->"

# Left out of the coverage: Blackwell's tensor memory, tcgen05, TMA gather4/scatter4
# (sm_100a) and block-scaled mma.sync (sm_120a), as tilec targets sm_80 and sm_90a; and
# TVM's host-runtime calls, which have no meaning without TVM's runtime (tilec's host side
# is its own C API).
BLACKWELL = re.compile(r"tcgen05|TCGEN05|tmem|_2sm|SM120|blockscaled|block_scale|umma|^clc_|"
                       r"^tma_gather4|^tma_scatter4")
TVM_HOST = {
    "TVMBackendAllocWorkspace", "TVMBackendFreeWorkspace", "anylist_getitem",
    "anylist_resetitem", "anylist_setitem_call_cpacked", "anylist_setitem_call_packed",
    "call_cpacked", "call_cpacked_lowered", "call_packed", "call_packed_lowered",
    "call_llvm_intrin", "call_llvm_pure_intrin", "lookup_param", "tvm_stack_alloca",
    "tvm_stack_make_array", "tvm_stack_make_shape", "tvm_struct_get", "tvm_struct_set",
    "tvm_throw_last_error", "start_profile_intrinsic", "end_profile_intrinsic",
}


def tilec_names(tilec):
    out = subprocess.run([tilec, "info", "--names"], check=True, capture_output=True,
                         text=True).stdout
    return [tuple(line.split("\t")) for line in out.splitlines()]


def tilelang_names():
    if not NAMES.exists():
        return []
    lines = (line.split("#", 1)[0].strip() for line in NAMES.read_text().splitlines())
    return [line for line in lines if line]


def supported(status):
    return not status.startswith("not yet") and "not honoured" not in status


def coverage(ours):
    have = {name[2:]: status for name, status in ours}
    theirs = [n for n in tilelang_names() if not BLACKWELL.search(n) and n not in TVM_HOST]
    ok = sum(1 for n in theirs if n in have and supported(have[n]))
    return ok, len(theirs)


def table(ours):
    rows = ["| name | status |", "|---|---|"]
    rows += ["| `%s` | %s |" % (name, status) for name, status in ours]
    have = {name[2:] for name, _ in ours}
    missing = [n for n in tilelang_names() if n not in have]
    why = lambda n: ("Blackwell only (sm_100), out of scope" if BLACKWELL.search(n) else
                     "TVM host runtime, no meaning in tilec" if n in TVM_HOST else
                     "not yet (compile error)")
    rest = ["| name | status |", "|---|---|"] + ["| `T.%s` | %s |" % (n, why(n))
                                                  for n in missing]
    ok, total = coverage(ours)
    head = ("%d names.\n\nOf TileLang 0.1.15's %d kernel-author names (tools/tilelang_names.txt,"
            " Blackwell-only names and TVM host-runtime calls left out), tilec supports %d "
            "(%.0f%%)." % (len(ours), total, ok, 100.0 * ok / total if total else 0))
    return "%s\n%s\n\n%s\n\nTileLang's names that tilec does not have:\n\n%s\n%s" % (
        BEGIN, head, "\n".join(rows), "\n".join(rest), END)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--coverage", action="store_true")
    ap.add_argument("--tilec", default=str(ROOT / "build" / "tilec"))
    args = ap.parse_args()
    ours = tilec_names(args.tilec)
    if args.coverage:
        ok, total = coverage(ours)
        print("%d of %d TileLang names supported (%.1f%%)" % (ok, total, 100.0 * ok / total))
        return
    doc = DOC.read_text()
    start, end = doc.find(BEGIN), doc.find(END)
    if start < 0 or end < start:
        sys.exit("%s: no %s ... %s markers" % (DOC, BEGIN, END))
    new = doc[:start] + table(ours) + doc[end + len(END):]
    if args.check:
        if new != doc:
            sys.exit("docs/language.md's table of T names is out of date: run "
                     "tools/gen_lang_table.py")
        return
    DOC.write_text(new)


if __name__ == "__main__":
    main()
