"""bench/side_by_side.py without a GPU (issue 27): the parser of TileLang's regression
files, case selection, the rows and tables from a fake runner, the budget, a whole run
on the C target against a stand-in TileLang, and the section tools/gen_perf_tables.py
makes of the rows. The real suite (57 cases in TileLang's examples) runs on a GPU
machine (docs/testing.md)."""
from pysupport import ROOT, pytestmark  # noqa: F401 (the ASan skip); first: sets sys.path

import csv
import json
import os
import sys
import tarfile
import textwrap
import time

import pytest

sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tools"))
import gen_perf_tables  # noqa: E402
import side_by_side as sbs  # noqa: E402

REGRESSION = """\
import tilelang.testing
import tilelang.testing as tt
from tilelang.testing import process_func as pf
import example_a
import example_b


def helper():
    return 3


def regression_example_b():
    tilelang.testing.process_func(
        example_b.run_regression_perf, M=1024, dims=[1, 2], causal=False, dtype="float16"
    )


def regression_example_a():
    tilelang.testing.process_func(example_a.run_regression_perf)


def regression_named():
    tt.process_func(example_a.run_regression_perf, "regression_custom", window_size=128)


def regression_alias():
    pf(example_b.bench, shape=(1, 2))


def regression_not_literal():
    tilelang.testing.process_func(example_a.run_regression_perf, n=helper())


def regression_twice():
    tilelang.testing.process_func(example_a.run_regression_perf, n=1)
    tilelang.testing.process_func(example_a.run_regression_perf, n=2)


def not_tilelangs():
    other.process_func(example_a.run_regression_perf)


if __name__ == "__main__":
    tilelang.testing.regression()
"""


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def examples(tmp_path):
    base = tmp_path / "examples"
    write(base / "demo" / "regression_demo.py", REGRESSION)
    write(base / "other" / "deep" / "regression_other.py",
          "import tilelang.testing\nimport example_c\n"
          "tilelang.testing.process_func(example_c.run_regression_perf, 'n', k=-1)\n")
    write(base / "demo" / "example_a.py",  # not a regression file: not read
          "import tilelang.testing\ntilelang.testing.process_func(x.y)\n")
    return base


def test_parser_reads_every_process_func_call(tmp_path):
    cases, problems = sbs.find_cases(examples(tmp_path))
    assert [c.id for c in cases] == ["demo/alias", "demo/example_a", "demo/example_b",
                                     "demo/named", "demo/twice", "demo/twice#2",
                                     "other/deep/example_c"]
    by = {c.id: c for c in cases}
    b = by["demo/example_b"]
    assert (b.module, b.func, b.args, b.function) == ("example_b", "run_regression_perf", [],
                                                      "regression_example_b")
    assert b.kwargs == {"M": 1024, "dims": [1, 2], "causal": False, "dtype": "float16"}
    assert b.folder == tmp_path / "examples" / "demo" and b.file == "demo/regression_demo.py"
    assert b.work() == "regression demo/example_b (M=1024, dims=[1, 2], causal=False, " \
        "dtype='float16')"
    assert b.work("compile").startswith("regression compile demo/example_b (M=1024")
    assert by["demo/named"].args == ["regression_custom"]
    assert by["demo/named"].kwargs == {"window_size": 128}
    assert (by["demo/alias"].func, by["demo/alias"].kwargs) == ("bench", {"shape": (1, 2)})
    assert [by[i].kwargs for i in ("demo/twice", "demo/twice#2")] == [{"n": 1}, {"n": 2}]
    other = by["other/deep/example_c"]
    assert (other.function, other.args, other.kwargs) == (None, ["n"], {"k": -1})
    assert by["demo/example_a"].work() == "regression demo/example_a"
    assert len(problems) == 1 and problems[0].startswith("demo/regression_demo.py:")
    assert "not a literal" in problems[0]


def test_dry_run_lists_and_selects(tmp_path, capsys):
    base = examples(tmp_path)
    assert sbs.main([str(base), "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "7 of 7 cases, in 2 regression files"
    assert "left out: demo/regression_demo.py" in out[0]
    assert any(ln.startswith("demo/named  example_a.run_regression_perf("
                             "'regression_custom', window_size=128)") for ln in out)
    assert sbs.main([str(base), "--dry-run", "--only", "twice", "--only", "alias"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "3 of 7 cases, in 2 regression files"
    assert sbs.main([str(base), "--dry-run", "--cases", "demo/named,demo/alias",
                     "--cases", "demo/none"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in out[1:-1]] == ["demo/alias", "demo/named"]
    cases, _ = sbs.find_cases(base)
    assert [c.id for c in sbs.select(cases, shard=(2, 3))] == ["demo/example_a", "demo/twice"]
    assert sbs.main([str(base), "--only", "nothing"]) == 2
    with pytest.raises(SystemExit):
        sbs.parse_args([str(base), "--shard", "4/3"])


class FakeRunner:
    """Canned results per (case, side, phase); records the calls."""

    device = "Fake GPU"

    def __init__(self, table):
        self.table, self.calls = table, []

    def __call__(self, case, side, phase):
        self.calls.append((case.id, side, phase))
        return dict(self.table[case.id][side][phase])


def ok(**kw):
    return dict(status=sbs.OK, **kw)


def test_rows_and_table_with_a_fake_runner(tmp_path, capsys):
    base = examples(tmp_path)
    not_run = {"status": sbs.NOT_RUN, "error": "budget spent"}
    table = {
        "demo/example_a": {"tilelang": {"compile": ok(call_s=10.0, latency_ms=1.0),
                                        "timed": ok(latency_ms=2.0, call_s=0.5)},
                           "tilec": {"compile": ok(call_s=0.5, latency_ms=1.0),
                                     "timed": ok(latency_ms=1.0, call_s=0.1)}},
        "demo/example_b": {"tilelang": {"compile": ok(call_s=4.0), "timed": ok(latency_ms=3.0)},
                           "tilec": {"compile": {"status": sbs.FAIL, "error":
                                                 "TilecError: no T.foo here"}}},
        "demo/named": {"tilelang": {"compile": {"status": sbs.TIMEOUT,
                                                "error": "timeout after 300 s"}},
                       "tilec": {"compile": ok(call_s=1.0), "timed": ok(latency_ms=0.5)}},
        "demo/twice": {s: {"compile": not_run} for s in sbs.SIDES},
    }
    out_csv = tmp_path / "results.csv"
    runner = FakeRunner(table)
    argv = [str(base), "--only", "example_", "--only", "named", "--only", "twice",
            "--cases", "demo/example_a,demo/example_b,demo/named,demo/twice",
            "--csv", str(out_csv), "--logs", str(tmp_path / "logs"), "--jobs", "2"]
    assert sbs.main(argv, runner=runner) == 0
    timed = [(c, s) for c, s, p in runner.calls if p == "timed"]
    # sides alternate from case to case; a side that failed phase 1 is not run again
    assert timed == [("demo/example_a", "tilelang"), ("demo/example_a", "tilec"),
                     ("demo/example_b", "tilelang"), ("demo/named", "tilec")]
    assert sorted(c for c, s, p in runner.calls if p == "compile") == sorted(
        [c for c in table for _ in sbs.SIDES])
    rows = list(csv.reader(out_csv.open()))
    assert rows[0] == sbs.CSV_HEADER
    date = rows[1][0]
    assert all(r[:2] == [date, "Fake GPU"] and r[3] == "TileLang 0.1.15" and r[8] == "nan"
               for r in rows[1:])
    assert [r[2:8] for r in rows[1:]] == [  # demo/twice: neither side ran, no rows
        ["regression demo/example_a", "TileLang 0.1.15", "1", "2", "ms", "2.0000"],
        ["regression compile demo/example_a", "TileLang 0.1.15", "0.5", "10", "s", "20.0000"],
        ["regression demo/example_b (M=1024, dims=[1, 2], causal=False, dtype='float16')",
         "TileLang 0.1.15", "fail", "3", "ms", "nan"],
        ["regression compile demo/example_b (M=1024, dims=[1, 2], causal=False, "
         "dtype='float16')", "TileLang 0.1.15", "fail", "4", "s", "nan"],
        ["regression demo/named (window_size=128)", "TileLang 0.1.15", "0.5", "timeout", "ms",
         "nan"],
        ["regression compile demo/named (window_size=128)", "TileLang 0.1.15", "1", "timeout",
         "s", "nan"]]
    out = capsys.readouterr().out.splitlines()
    assert "FAIL tilec demo/example_b (compile): TilecError: no T.foo here" in out
    assert "TIMEOUT TileLang demo/named (compile): timeout after 300 s" in out
    assert "4 cases: TileLang ran 2, tilec ran 2, both 1; geometric mean of TileLang / " \
        "tilec latency 2.000" in out
    table_lines = out[-5:]  # the short table comes last
    assert table_lines[0].split()[:3] == ["case", "TileLang", "ms"]
    assert table_lines[1].split() == ["demo/example_a", "2", "1", "2.0000", "10", "0.5",
                                      "20.0000"]
    assert table_lines[4].split() == ["demo/twice", "not", "run", "not", "run", "nan", "not",
                                      "run", "not", "run", "nan"]
    saved = json.loads((tmp_path / "logs" / "results.json").read_text())
    assert saved["device"] == "Fake GPU" and len(saved["cases"]) == 4
    assert saved["cases"][1]["results"]["tilec"]["timed"]["error"] == \
        "phase 1: TilecError: no T.foo here"
    md = (tmp_path / "logs" / "table.md").read_text()
    assert "tilec (compile): TilecError: no T.foo here" in md


def test_a_spent_budget_starts_nothing(tmp_path):
    case = sbs.find_cases(examples(tmp_path))[0][0]
    runner = sbs.Runner(tmp_path / "logs", tmp_path, 300, deadline=time.monotonic() - 1,
                        cache_root=tmp_path / "cache")
    assert runner(case, "tilec", "compile") == {"status": sbs.NOT_RUN,
                                                "error": "budget spent"}
    assert runner.probe("tilelang")["status"] == sbs.NOT_RUN and not runner.probe_error
    assert not (tmp_path / "logs").exists()


STUB = {  # a stand-in for TileLang: what the examples below use, no kernels
    "tilelang/__init__.py": "__version__ = '0.1.15'\n",
    "tilelang/testing/__init__.py": "def process_func(func, name=None, /, **kwargs):\n"
                                    "    assert float(func(**kwargs)) > 0\n",
    "tilelang/profiler/__init__.py": "from .bench import do_bench\n",
    "tilelang/profiler/bench.py": "def do_bench(fn, **kwargs):\n    fn()\n    return 0.25\n",
}
EXAMPLES = {
    "demo/example_py.py": """\
        from tilelang.profiler import do_bench


        def run_regression_perf(n=10):
            return do_bench(lambda: sum(range(n)))
        """,
    "demo/example_kernel.py": """\
        import tilelang
        import tilelang.language as T


        @tilelang.jit(out_idx=[-1])
        def scale(M=64, N=64, block_M=16):
            @T.prim_func
            def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
                with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
                    for i, j in T.Parallel(block_M, N):
                        B[bx * block_M + i, j] = A[bx * block_M + i, j] * 2.0

            return main


        def run_regression_perf(M=64):
            return scale(M).get_profiler().do_bench(warmup=1, rep=5)
        """,
    "demo/example_crash.py": "import os\n\n\ndef run_regression_perf():\n    os._exit(3)\n",
    "demo/regression_demo.py": """\
        import tilelang.testing
        import example_py
        import example_kernel
        import example_crash


        def regression_example_py():
            tilelang.testing.process_func(example_py.run_regression_perf, n=100)


        def regression_example_kernel():
            tilelang.testing.process_func(example_kernel.run_regression_perf, M=128)


        def regression_example_crash():
            tilelang.testing.process_func(example_crash.run_regression_perf)
        """,
}


def test_whole_run_on_the_cpu(tmp_path, monkeypatch, capsys):
    """Both phases for real, the "TileLang" side a stand-in: a pure-Python case both sides
    run, a tilec kernel (C target) the stand-in cannot compile, a child that dies."""
    for name, text in STUB.items():
        write(tmp_path / "stub" / "stub" / name, text)
    for name, text in EXAMPLES.items():
        write(tmp_path / "examples" / name, text)
    monkeypatch.setenv("TILEC_LIBRARY", os.path.abspath(os.environ["TILEC_LIBRARY"]))
    logs, out_csv = tmp_path / "logs", tmp_path / "results.csv"
    assert sbs.main([str(tmp_path / "examples"), "--tilelang", str(tmp_path / "stub"),
                     "--logs", str(logs), "--csv", str(out_csv), "--jobs", "2",
                     "--timeout", "120"]) == 0
    out = capsys.readouterr().out
    assert "probe tilelang: ok 0.1.15 (%s" % (tmp_path / "stub" / "stub") in out
    res = {c["id"]: c["results"] for c in json.loads((logs / "results.json").read_text())
           ["cases"]}
    py, kernel, crash = (res["demo/example_" + n] for n in ("py", "kernel", "crash"))
    for side in sbs.SIDES:  # phase 1: do_bench ran the function once and returned 1.0
        assert py[side]["compile"]["status"] == "ok"
        assert py[side]["compile"]["latency_ms"] == sbs.ONCE_MS
        assert crash[side]["compile"]["status"] == "fail"
        assert crash[side]["compile"]["error"] == "exit status 3: (no output)"
    assert py["tilelang"]["timed"]["latency_ms"] == 0.25  # the stand-in's own do_bench
    assert 0 < py["tilec"]["timed"]["latency_ms"] != sbs.ONCE_MS
    assert kernel["tilec"]["compile"]["latency_ms"] == sbs.ONCE_MS
    assert kernel["tilec"]["compile"]["call_s"] > 0 and kernel["tilec"]["timed"]["status"] == "ok"
    assert kernel["tilelang"]["compile"]["error"] == \
        "ModuleNotFoundError: No module named 'tilelang.language'"
    assert (logs / "timed" / "demo__example_kernel.tilec.log").is_file()
    rows = {r["work"]: r for r in csv.DictReader(out_csv.open())}
    assert rows["regression demo/example_py (n=100)"]["peer_value"] == "0.25"
    assert rows["regression compile demo/example_kernel (M=128)"]["peer_value"] == "fail"
    assert out.splitlines()[-1].split()[:3] == ["demo/example_py", "0.25",
                                                 rows["regression demo/example_py (n=100)"]
                                                 ["tilec"]]
    # A "TileLang" that is not 0.1.15, packed as bench/tilelang_wheels.sh packs: its probe
    # fails, and so does each of its cases.
    stub_old = dict(STUB, **{"tilelang/__init__.py": "__version__ = '0.1.14'\n"})
    for name, text in stub_old.items():
        write(tmp_path / "old" / "tilelang-0.1.14" / name, text)
    with tarfile.open(tmp_path / "old.tar.xz", "w:xz") as tar:
        tar.add(tmp_path / "old" / "tilelang-0.1.14", "tilelang-0.1.14")
    assert sbs.main([str(tmp_path / "examples"), "--tilelang", str(tmp_path / "old.tar.xz"),
                     "--logs", str(tmp_path / "logs2"), "--csv", "", "--only", "example_py"]) == 0
    out = capsys.readouterr().out
    assert "probe tilelang: fail RuntimeError: tilelang here is 0.1.14 from /" in out
    assert "/tilelang-0.1.14/tilelang/__init__.py, not TileLang 0.1.15" in out
    assert "FAIL TileLang demo/example_py (compile): probe: RuntimeError: tilelang here is " \
        "0.1.14" in out


def test_perf_tables_section(tmp_path):
    path = tmp_path / "results.csv"
    rows = [sbs.CSV_HEADER,
            ["2026-12-01", "GPU", "gemm float16 4096x4096x4096", "cuBLAS", "700", "700",
             "TFLOP/s", "1.0000", "0.0003"],
            ["2026-12-01", "H100", "regression gemm/example_gemm", "TileLang 0.1.15", "0.9",
             "1.0", "ms", "1.1111", "nan"],
            ["2026-12-01", "H100", "regression compile gemm/example_gemm", "TileLang 0.1.15",
             "0.5", "20", "s", "40.0000", "nan"],
            ["2026-12-02", "H100", "regression cast/x (M=1)", "TileLang 0.1.15", "fail", "0.4",
             "ms", "nan", "nan"],
            ["2026-12-02", "H100", "regression compile cast/x (M=1)", "TileLang 0.1.15", "fail",
             "9", "s", "nan", "nan"],
            ["2026-12-02", "H100", "regression gemm/example_gemm", "TileLang 0.1.15", "0.8",
             "1.0", "ms", "1.2500", "nan"]]  # a later run of the same case wins
    with path.open("w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    text = gen_perf_tables.tables(path)
    assert "### GEMM, wgmma" in text and "regression" not in text.split("### Side")[0]
    section = text[text.index("### Side by side"):]
    lines = section.splitlines()
    assert lines[0] == "### Side by side with TileLang 0.1.15 on its regression suite " \
        "(runs of 2026-12-01 to 2026-12-02, H100)"
    assert lines[4] == "| gemm/example_gemm | 1.0 | 0.8 | 1.2500 | 20 | 0.5 | 40.0000 | " \
        "2026-12-02, H100 |"
    assert lines[5] == "| cast/x (M=1) | 0.4 | fail | - | 9 | fail | - | 2026-12-02, H100 |"
    assert lines[7] == "2 cases, both sides timed in 1; geometric mean of TileLang / tilec " \
        "(above 1 tilec is faster): 1.250 for the latency and 40.000 for the cold compile; " \
        "failed or timed out: tilec 1, TileLang 0."
    with path.open("w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows[:2])
    assert "No run recorded yet (bench/side_by_side.py)." in gen_perf_tables.tables(path)


def test_csv_header_is_benchs():
    saved = os.environ.get("TILEC_AS_TILELANG")
    import bench  # sets TILEC_AS_TILELANG for the examples it runs
    if saved is None:
        os.environ.pop("TILEC_AS_TILELANG", None)
    assert sbs.CSV_HEADER == bench.CSV_HEADER
