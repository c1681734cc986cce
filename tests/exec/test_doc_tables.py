"""Tables in the docs that restate the code are checked against it, so they cannot drift:
docs/internals.md's pass table against the passes the pipelines run (every
`pass_run(ctx, f, "name", ...)` under src/, wherever a target keeps its pipeline),
docs/c-api.md's settings table against `tilec help settings` (src/base/options.c), and
docs/perf.md's generated tables against bench/results.csv (tools/gen_perf_tables.py)."""
import re
import subprocess
import sys

from conftest import ROOT, TILEC

PASS_RUN = re.compile(r'\bpass_run\s*\(\s*\w+\s*,\s*\w+\s*,\s*"([a-z_0-9]+)"')


def pipeline_passes():
    names = set()
    for path in (ROOT / "src").rglob("*.c"):
        names.update(PASS_RUN.findall(path.read_text(errors="replace")))
    return names


def internals_pass_rows():
    """The first word of each row of the table under '## Passes' (its heading row aside)."""
    text = (ROOT / "docs" / "internals.md").read_text()
    section = text[text.index("\n## Passes"):]
    section = section[:section.index("\n## ", 1)]
    rows = [ln for ln in section.splitlines() if ln.startswith("| ")]
    return {ln[2:].split()[0] for ln in rows[1:] if not ln.startswith("|---")}


def test_internals_pass_table_names_every_pass():
    passes, rows = pipeline_passes(), internals_pass_rows()
    assert len(passes) >= 10, "found only %s: has pass_run changed its form?" % sorted(passes)
    assert not passes - rows, "passes missing from docs/internals.md's table: %s" % sorted(
        passes - rows)
    assert not rows - passes, "rows of docs/internals.md's pass table that no pipeline " \
        "runs: %s" % sorted(rows - passes)


def test_c_api_settings_table_is_the_librarys():
    out = subprocess.run([TILEC, "help", "settings"], capture_output=True, text=True,
                         check=True).stdout
    lib = [tuple(ln.split()[:2]) for ln in out.splitlines() if ln.startswith("  ")]
    doc = (ROOT / "docs" / "c-api.md").read_text()
    doc = doc[doc.index("<!-- settings:"):]
    rows = re.findall(r"^\| `(\w+)` \| `?([\w-]+)`? \|", doc, re.M)
    assert rows == lib, "docs/c-api.md's settings table differs from `tilec help settings`"


def test_perf_tables_are_current():
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_perf_tables.py"),
                           "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
