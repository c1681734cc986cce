#!/usr/bin/env python3
"""Writes docs/language.md's table of every T name (section 8) from the builtin tables,
as `tilec info --names` prints them: one row per name, in table order.

    tools/gen_lang_table.py [--tilec build/tilec]           rewrite the table in place
    tools/gen_lang_table.py --check [--tilec build/tilec]   exit 1 if the doc differs

The table sits between the BEGIN/END marker comments; nothing else is touched.
tests/exec/test_lang.py runs --check, so the doc and the tables cannot drift apart."""
import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "language.md"
BEGIN = "<!-- BEGIN T-NAMES (tools/gen_lang_table.py) -->"
END = "<!-- END T-NAMES -->"


def table(tilec):
    out = subprocess.run([tilec, "info", "--names"], check=True, capture_output=True,
                         text=True).stdout
    rows = ["| name | status |", "|---|---|"]
    for line in out.splitlines():
        name, status = line.split("\t")
        rows.append("| `%s` | %s |" % (name, status))
    return "%s\n%d names.\n\n%s\n%s" % (BEGIN, len(rows) - 2, "\n".join(rows), END)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--tilec", default=str(ROOT / "build" / "tilec"))
    args = ap.parse_args()
    doc = DOC.read_text()
    start, end = doc.find(BEGIN), doc.find(END)
    if start < 0 or end < start:
        sys.exit("%s: no %s ... %s markers" % (DOC, BEGIN, END))
    new = doc[:start] + table(args.tilec) + doc[end + len(END):]
    if args.check:
        if new != doc:
            sys.exit("docs/language.md's table of T names is out of date: run "
                     "tools/gen_lang_table.py")
        return
    DOC.write_text(new)


if __name__ == "__main__":
    main()
