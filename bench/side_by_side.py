#!/usr/bin/env python3
"""TileLang's own perf-regression suite, side by side under TileLang 0.1.15 and under
tilec's compatibility layer, from the same unmodified example files (issue 27).

    python3 bench/side_by_side.py EXAMPLES_DIR [--tilelang DIR|TARBALL] [--jobs N]
        [--batch N] [--timeout S] [--budget S] [--only SUBSTR]... [--cases ID,...]
        [--shard K/N] [--logs DIR] [--csv FILE] [--dry-run]

EXAMPLES_DIR is tile-ai/tilelang's examples/ folder (the script fetches nothing).

Cases. Every call `tilelang.testing.process_func(MODULE.FUNC, *args, **kwargs)` in
EXAMPLES_DIR/**/regression_*.py, read with `ast` (nothing is imported): the example
module and function it benchmarks and the call's literal arguments. A case's id is
FOLDER/NAME, NAME being the regression function that makes the call less "regression_"
(the example module's name for a call outside any function), e.g. gemm/example_gemm. A
call whose arguments are not literals is reported and left out. --only keeps the cases whose
id contains one of the strings, --cases those with one of the ids, --shard K/N every
N-th case from the K-th (1-based; to split the suite over runs); --dry-run lists them.

Sides. "TileLang 0.1.15": the unpacked wheels of bench/tilelang_wheels.sh first on
PYTHONPATH (--tilelang: the folder, or the .tar.xz, which is unpacked to a temporary
folder; default .tilelang/tilelang-0.1.15.tar.xz), tilec's python/ off it and
TILEC_AS_TILELANG unset. "tilec": python/ first on PYTHONPATH, `tilelang` installed as
tilec.compat (as `python -m tilec.compat` does), TILEC_LIBRARY as set (else
build/libtilec.so). Each case runs per side in a child process whose working folder is
the example's and whose sys.path[0] is that folder: it imports the example module alone
and calls the side's `tilelang.testing.process_func(MODULE.FUNC, *args, **kwargs)` as the
regression function does, the function wrapped to time the call and keep what it
returned: the latency in ms. A child that passes --timeout seconds is killed. A probe
child per side first imports tilelang and names the GPU; a side whose probe fails fails
every case with the probe's error.

Phases, batch by batch (--batch cases at a time; default all in one batch):
1. cold compile: each case and side with a new empty kernel cache of its own
   (TILELANG_CACHE_DIR, TILEC_CACHE_DIR; TileLang's autotuning cache off, tilec's
   dropped after), do_bench patched to run the benchmarked function once (the
   module-level tilelang.profiler.do_bench and .bench.do_bench, and what
   Profiler.do_bench times with: TileLang's calls that module-level do_bench, tilec's
   bench_times), --jobs children at once. The compile time is the wall time of the
   example function's call: building the inputs, compiling, one run; not the
   interpreter's start-up nor the imports.
2. timed: the same caches, now warm, one child at a time, a case's two sides one after
   the other, which side goes first alternating from case to case, so both see the same
   clocks. The latency is what the example's own bench calls return, unchanged.
A side that fails in phase 1 is not run in phase 2 (its error stands for both).
--budget S: no child starts after S seconds from the start, and a child running then is
killed; the cases and sides not reached are "not run".

Output. Rows appended to --csv (default bench/results.csv, "" for none; bench/bench.py's
columns), two per case that ran at all, peer "TileLang 0.1.15": "regression ID (KWARGS)"
in ms (tilec: tilec's latency, peer_value: TileLang's) and "regression compile ID
(KWARGS)" in s (the cold compile times); ratio = TileLang's / tilec's, above 1 tilec is
faster; a side with no number has "fail", "timeout" or "not run" in its column and ratio
"nan"; max_err is "nan" (the suite checks no results). tools/gen_perf_tables.py shows
them in docs/perf.md. Under --logs (default a new temporary folder): one log per child
(probe.SIDE.log, compile/ID.SIDE.log, timed/ID.SIDE.log, "/" in ID as "__", each with
its .json), results.json (every case, side and phase: status, numbers, the error's last
line, the log) and table.md. Printed last: the failures' last lines, a summary line, and
a short table. Exit status 0 when the run completed (whatever the cases did), 2 on bad
arguments or no cases."""
import argparse
import ast
import concurrent.futures
import csv
import datetime
import functools
import importlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEER = "TileLang 0.1.15"
TILELANG_VERSION = "0.1.15"
DEFAULT_TILELANG = ROOT / ".tilelang" / "tilelang-0.1.15.tar.xz"
SIDES = ("tilelang", "tilec")
SIDE_LABEL = {"tilelang": "TileLang", "tilec": "tilec"}
PHASES = ("compile", "timed")
CSV_HEADER = ["date", "device", "work", "peer", "tilec", "peer_value", "unit", "ratio",
              "max_err"]  # bench/bench.py's
PREFIX = "regression_"
ONCE_MS = 1.0  # what a patched do_bench returns in phase 1 (process_func wants > 0)
MIN_START_S = 5.0  # a child is not started with less budget left than this
OK, FAIL, TIMEOUT, NOT_RUN = "ok", "fail", "timeout", "not run"


# ---- the cases ---------------------------------------------------------------------------
class Case:
    """One process_func call of a regression file."""

    def __init__(self, id, folder, file, function, module, func, args, kwargs, line):
        self.id, self.folder, self.file, self.function = id, folder, file, function
        self.module, self.func, self.args, self.kwargs, self.line = (
            module, func, args, kwargs, line)

    def params(self):
        """The call's keywords as text: "batch=1, seq_len=256" ("" without any)."""
        return ", ".join("%s=%r" % kv for kv in self.kwargs.items())

    def work(self, what=""):
        params = self.params()
        return "regression %s%s%s" % (what + " " if what else "", self.id,
                                      " (%s)" % params if params else "")

    def slug(self):
        return self.id.replace("/", "__").replace("#", "_")

    def __repr__(self):
        return "Case(%s: %s.%s(%s))" % (self.id, self.module, self.func, self.params())


def _dotted(node):
    """"a.b.c" for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _process_func_names(tree):
    """The dotted names by which this file can call tilelang.testing's process_func."""
    names = {"tilelang.testing.process_func", "tilelang.testing.perf_regression.process_func"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname and a.name in ("tilelang.testing", "tilelang.testing.perf_regression"):
                    names.add(a.asname + ".process_func")
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                full = node.module + "." + a.name
                if full in names or full in ("tilelang.testing",
                                             "tilelang.testing.perf_regression"):
                    local = a.asname or a.name
                    names.add(local if full.endswith(".process_func") else
                              local + ".process_func")
    return names


def _strip(name):
    return name[len(PREFIX):] if name.startswith(PREFIX) else name


class _Calls(ast.NodeVisitor):
    def __init__(self, names):
        self.names, self.stack, self.found = names, [], []

    def visit_FunctionDef(self, node):
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node):
        if _dotted(node.func) in self.names:
            self.found.append((self.stack[-1] if self.stack else None, node))
        self.generic_visit(node)


def find_cases(examples):
    """(cases, problems): every process_func call of EXAMPLES/**/regression_*.py, in file
    order and, within a file, in the order of the regression functions' names (as
    tilelang.testing.regression() runs them); problems: "file:line: why" for calls left
    out."""
    base = Path(examples).resolve()
    cases, problems, seen = [], [], {}
    for path in sorted(base.rglob("regression_*.py")):
        rel = path.relative_to(base).as_posix()
        try:
            tree = ast.parse(path.read_text(), str(path))
        except (SyntaxError, UnicodeDecodeError, OSError) as e:
            problems.append("%s: cannot parse: %s" % (rel, e))
            continue
        visitor = _Calls(_process_func_names(tree))
        visitor.visit(tree)
        mine = []
        for function, call in visitor.found:
            where = "%s:%d" % (rel, call.lineno)
            target = _dotted(call.args[0]) if call.args else None
            if not target or target.count(".") != 1:
                problems.append("%s: the first argument is not MODULE.FUNCTION" % where)
                continue
            module, func = target.split(".")
            try:
                args = [ast.literal_eval(a) for a in call.args[1:]]
                if any(k.arg is None for k in call.keywords):
                    raise ValueError("**kwargs")
                kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
            except ValueError as e:
                problems.append("%s: an argument is not a literal (%s)" % (where, e))
                continue
            name = _strip(function) if function else module
            case_id = "%s/%s" % (path.parent.relative_to(base).as_posix(), name)
            seen[case_id] = seen.get(case_id, 0) + 1
            if seen[case_id] > 1:
                case_id += "#%d" % seen[case_id]
            mine.append(Case(case_id, path.parent, rel, function, module, func, args, kwargs,
                             call.lineno))
        mine.sort(key=lambda c: (c.function or "", c.line))
        cases.extend(mine)
    return cases, problems


def select(cases, only=(), ids=(), shard=None):
    if only:
        cases = [c for c in cases if any(s in c.id for s in only)]
    if ids:
        cases = [c for c in cases if c.id in ids]
    if shard:
        k, n = shard
        cases = cases[k - 1::n]
    return cases


# ---- the child process -----------------------------------------------------------------
def _sync():
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def _device_name():
    try:
        import torch
        if torch.cuda.is_available():
            return torch.cuda.get_device_name(0)
    except Exception:  # noqa: BLE001 (a name is all this wants)
        pass
    return None


def _patch_bench(side):
    """Phase 1: every do_bench runs its function once and returns ONCE_MS."""
    import tilelang.profiler as prof
    bench = importlib.import_module("tilelang.profiler.bench")

    def once(fn, *args, **kwargs):
        fn()
        _sync()
        q = kwargs.get("quantiles")
        return [ONCE_MS] * len(q) if q else ONCE_MS

    prof.do_bench = bench.do_bench = once  # TileLang's Profiler.do_bench calls the former
    if side == "tilec":
        import tilec.profiler

        def once_times(fn, *args, **kwargs):
            fn()
            _sync()
            return [ONCE_MS]
        tilec.profiler.bench_times = once_times  # what tilec's Profiler.do_bench times with


def _identity(tilelang, side):
    shim = bool(getattr(tilelang, "__tilec_shim__", False))
    version = str(getattr(tilelang, "__version__", "?"))
    where = getattr(tilelang, "__file__", "?")
    if side == "tilec" and not shim:
        raise RuntimeError("tilelang here is %s from %s, not tilec's compatibility layer"
                           % (version, where))
    if side == "tilelang" and (shim or not version.startswith(TILELANG_VERSION)):
        raise RuntimeError("tilelang here is %s from %s, not TileLang %s"
                           % (version, where, TILELANG_VERSION))
    return "%s (%s)" % (version, where)


def error_line(e):
    lines = [ln.strip() for ln in traceback.format_exception_only(type(e), e) if ln.strip()]
    return (lines[-1] if lines else type(e).__name__)[:300]


def child_main(spec):
    """Runs one case (or the probe) on one side, in the example's folder; writes the
    result as JSON to spec["out"]."""
    res = {"ok": False}
    try:
        sys.path[0] = os.getcwd()  # the example's folder, as for the regression file
        if spec["side"] == "tilec":
            import tilec.compat
            tilec.compat.install(force=True)
        import tilelang
        import tilelang.testing
        res["tilelang"] = _identity(tilelang, spec["side"])
        if spec["mode"] == "probe":
            res.update(ok=True, device=_device_name())
        else:
            if spec["phase"] == "compile":
                _patch_bench(spec["side"])
            func = getattr(importlib.import_module(spec["module"]), spec["func"])
            calls = []

            @functools.wraps(func)
            def measured(*args, **kwargs):
                t0 = time.perf_counter()
                value = func(*args, **kwargs)
                _sync()
                calls.append((time.perf_counter() - t0, value))
                return value

            tilelang.testing.process_func(measured, *spec["args"], **spec["kwargs"])
            if not calls:
                raise RuntimeError("process_func did not call %s" % spec["func"])
            latency = float(calls[-1][1])
            if not latency > 0:
                raise RuntimeError("latency %r after %d calls: process_func recorded nothing"
                                   % (latency, len(calls)))
            res.update(ok=True, latency_ms=latency, call_s=calls[0][0], calls=len(calls))
    except BaseException as e:  # noqa: BLE001 (SystemExit from an example too)
        traceback.print_exc()
        res.update(ok=False, error=error_line(e))
    with open(spec["out"], "w") as f:
        json.dump(res, f)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0 if res["ok"] else 1)  # no slow teardown of CUDA, profilers, pools


# ---- running children --------------------------------------------------------------------
class Runner:
    """Starts the children: environment per side, caches per case and side, logs, the
    timeout and the budget."""

    def __init__(self, logs, tilelang_dir, timeout, deadline=None, cache_root=None):
        self.logs, self.tilelang_dir = Path(logs), tilelang_dir
        self.timeout, self.deadline = timeout, deadline
        self.cache_root = Path(cache_root or tempfile.mkdtemp(prefix="sbs-cache-"))
        self.probe_error = {}
        self.device = None  # the GPU's name, as a probe found it

    def env(self, side, phase, cache):
        env = dict(os.environ)
        env.pop("TILEC_AS_TILELANG", None)
        ours = str((ROOT / "python").resolve())
        rest = [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep)
                if p and os.path.abspath(p) != ours]  # absolute: the children move
        env["PYTHONUNBUFFERED"] = "1"
        if side == "tilelang":
            env["PYTHONPATH"] = os.pathsep.join([str(self.tilelang_dir)] + rest)
            env["TILELANG_CACHE_DIR"] = str(cache)
            if phase == "compile":
                env["TILELANG_AUTO_TUNING_DISABLE_CACHE"] = "1"
        else:
            env["PYTHONPATH"] = os.pathsep.join([ours] + rest)
            env["TILEC_CACHE_DIR"] = env["TILELANG_CACHE_DIR"] = str(cache)
            lib = env.get("TILEC_LIBRARY") or str(ROOT / "build" / "libtilec.so")
            env["TILEC_LIBRARY"] = os.path.abspath(lib)
        return env

    def cache(self, case, side):
        return self.cache_root / (case.slug() if case else "probe") / side

    def left(self):
        return math.inf if self.deadline is None else self.deadline - time.monotonic()

    def __call__(self, case, side, phase):
        """Runs the child; returns {"status", "log", and latency_ms, call_s or error}."""
        if case is not None and side in self.probe_error:
            return {"status": FAIL, "error": "probe: " + self.probe_error[side]}
        left = self.left()
        if left < MIN_START_S:
            return {"status": NOT_RUN, "error": "budget spent"}
        limit = min(self.timeout, left)
        folder = self.logs / (phase if case else "")
        folder.mkdir(parents=True, exist_ok=True)
        stem = "%s.%s" % (case.slug() if case else "probe", side)
        log, out = folder / (stem + ".log"), folder / (stem + ".json")
        cache = self.cache(case, side)
        cache.mkdir(parents=True, exist_ok=True)
        spec = {"mode": "case" if case else "probe", "side": side, "phase": phase, "out": str(out)}
        if case:
            spec.update(module=case.module, func=case.func, args=case.args, kwargs=case.kwargs)
        cwd = case.folder if case else self.logs
        if out.exists():
            out.unlink()
        t0 = time.monotonic()
        with open(log, "w") as f:
            p = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child",
                                  repr(spec)], cwd=str(cwd), env=self.env(side, phase, cache),
                                 stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
            try:
                rc = p.wait(limit)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)  # the child's group: its compilers too
                p.wait()
                rc = None
        res = {"log": str(log.relative_to(self.logs)), "wall_s": time.monotonic() - t0}
        if rc is None:
            cut = limit < self.timeout
            res.update(status=NOT_RUN if cut else TIMEOUT,
                       error="stopped at the end of the budget" if cut else
                       "timeout after %.0f s" % limit)
            return res
        try:
            data = json.loads(out.read_text())
        except (OSError, ValueError):
            data = {"ok": False, "error": "exit status %s: %s" % (rc, last_line(log))}
        if data.get("ok"):
            res.update(status=OK, **{k: v for k, v in data.items() if k != "ok"})
        else:
            res.update(status=FAIL, **{k: v for k, v in data.items() if k != "ok"})
        if phase == "compile" and case is not None:
            drop_autotune_results(cache)
        return res

    def probe(self, side):
        res = self(None, side, "probe")
        if res["status"] in (FAIL, TIMEOUT):  # "not run": the budget stops the cases too
            self.probe_error[side] = res.get("error", res["status"])
        self.device = self.device or res.get("device")
        return res


def keep_sources(cache_root, dest):
    """Copies the .cu files of every case's and side's kernel cache to dest/<case>/<side>/
    (TileLang's generated CUDA beside tilec's, to compare what each compiler made)."""
    for src in Path(cache_root).rglob("*.cu"):
        rel = src.relative_to(cache_root)
        if len(rel.parts) < 3:
            continue
        out = dest / rel.parts[0] / rel.parts[1] / "_".join(rel.parts[2:])
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, out)


def drop_autotune_results(cache):
    """Phase 1 timed every config as ONCE_MS: its autotuning results must not be reused."""
    for d in list(Path(cache).rglob("autotune*")):
        if d.is_dir():
            shutil.rmtree(d, ignore_errors=True)


def last_line(path):
    try:
        lines = [ln.strip() for ln in Path(path).read_text(errors="replace").splitlines()
                 if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:300] if lines else "(no output)"


def run_cases(cases, runner, jobs=4, batch=0, say=print):
    """{case id: {side: {phase: result}}}: phase 1 of a batch with `jobs` children at once,
    then its phase 2 one child at a time, sides alternating."""
    results = {c.id: {s: {} for s in SIDES} for c in cases}
    size = batch or len(cases) or 1
    for start in range(0, len(cases), size):
        part = cases[start:start + size]
        work = [(c, s) for c in part for s in SIDES]
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {pool.submit(runner, c, s, "compile"): (c, s) for c, s in work}
            for fut in concurrent.futures.as_completed(futures):
                c, s = futures[fut]
                results[c.id][s]["compile"] = r = fut.result()
                say("compile %-7s %-8s %s" % (r["status"], s, c.id))
        for i, c in enumerate(part, start):
            for s in (SIDES if i % 2 == 0 else SIDES[::-1]):
                first = results[c.id][s]["compile"]
                if first["status"] in (FAIL, TIMEOUT):
                    r = {"status": first["status"], "error": "phase 1: %s" % first.get("error")}
                elif first["status"] == NOT_RUN:
                    r = {"status": NOT_RUN, "error": first.get("error")}
                else:
                    r = runner(c, s, "timed")
                results[c.id][s]["timed"] = r
                note = (" %.4g ms" % r["latency_ms"] if r["status"] == OK
                        else " (%s)" % r.get("error"))
                say("timed   %-7s %-8s %s%s" % (r["status"], s, c.id, note))
    return results


# ---- results -----------------------------------------------------------------------------
def _value(r, key):
    return "%.4g" % r[key] if r.get("status") == OK else r.get("status", NOT_RUN)


def _ratio(peer, mine, key):
    if peer.get("status") == OK and mine.get("status") == OK and mine[key] > 0:
        return "%.4f" % (peer[key] / mine[key])
    return "nan"


def case_rows(cases, results):
    """(work, peer, tilec, peer value, unit, ratio, max err) per case and measure, as text;
    none for a case that neither side ran."""
    rows = []
    for c in cases:
        tl, tc = results[c.id]["tilelang"], results[c.id]["tilec"]
        ran = [r for side in (tl, tc) for r in side.values() if r.get("status") != NOT_RUN]
        if not ran:
            continue
        for what, phase, key, unit in (("", "timed", "latency_ms", "ms"),
                                       ("compile", "compile", "call_s", "s")):
            a, b = tl.get(phase, {}), tc.get(phase, {})
            rows.append((c.work(what), PEER, _value(b, key), _value(a, key), unit,
                         _ratio(a, b, key), "nan"))
    return rows


def append_rows(path, date, device, rows):
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        if new:
            w.writerow(CSV_HEADER)
        for r in rows:
            w.writerow([date, device] + list(r))


def short_table(cases, results):
    head = ("case", "TileLang ms", "tilec ms", "TL/tilec", "compile TL s", "tilec s", "TL/tilec")
    lines = [head]
    for c in cases:
        tl, tc = results[c.id]["tilelang"], results[c.id]["tilec"]
        t1, t2 = tl.get("timed", {}), tc.get("timed", {})
        c1, c2 = tl.get("compile", {}), tc.get("compile", {})
        lines.append((c.id, _value(t1, "latency_ms"), _value(t2, "latency_ms"),
                      _ratio(t1, t2, "latency_ms"), _value(c1, "call_s"), _value(c2, "call_s"),
                      _ratio(c1, c2, "call_s")))
    widths = [max(len(str(r[i])) for r in lines) for i in range(len(head))]
    return "\n".join("  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip()
                     for r in lines)


def markdown_table(cases, results):
    out = ["| case | args | TileLang ms | tilec ms | TileLang / tilec | compile TileLang s "
           "| compile tilec s | TileLang / tilec | errors |", "|---" * 9 + "|"]
    for c in cases:
        tl, tc = results[c.id]["tilelang"], results[c.id]["tilec"]
        t1, t2 = tl.get("timed", {}), tc.get("timed", {})
        c1, c2 = tl.get("compile", {}), tc.get("compile", {})
        errs = []
        for s in SIDES:
            for phase in PHASES:
                r = results[c.id][s].get(phase, {})
                if r.get("status") in (FAIL, TIMEOUT):
                    errs.append("%s (%s): %s" % (SIDE_LABEL[s], phase, r.get("error")))
                    break  # phase 2 repeats phase 1's error
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c.id, c.params(), _value(t1, "latency_ms"), _value(t2, "latency_ms"),
            _ratio(t1, t2, "latency_ms"), _value(c1, "call_s"), _value(c2, "call_s"),
            _ratio(c1, c2, "call_s"), "; ".join(errs).replace("|", "\\|")))
    return "\n".join(out) + "\n"


def failures(cases, results):
    out = []
    for c in cases:
        for s in SIDES:
            for phase in PHASES:
                r = results[c.id][s].get(phase, {})
                if r.get("status") in (FAIL, TIMEOUT) and not str(r.get("error", "")).startswith(
                        "phase 1: "):
                    out.append("%s %s %s (%s): %s" % (r["status"].upper(), SIDE_LABEL[s], c.id,
                                                      phase, r.get("error")))
    return out


def summary(cases, results):
    both = [(results[c.id]["tilelang"]["timed"], results[c.id]["tilec"]["timed"])
            for c in cases if all(results[c.id][s].get("timed", {}).get("status") == OK
                                  for s in SIDES)]
    ok = {s: sum(results[c.id][s].get("timed", {}).get("status") == OK for c in cases)
          for s in SIDES}
    text = "%d cases: TileLang ran %d, tilec ran %d, both %d" % (
        len(cases), ok["tilelang"], ok["tilec"], len(both))
    if both:
        g = math.exp(sum(math.log(a["latency_ms"] / b["latency_ms"]) for a, b in both)
                     / len(both))
        text += "; geometric mean of TileLang / tilec latency %.3f" % g
    return text


# ---- main ------------------------------------------------------------------------------------
def unpack_tilelang(path, temporary=None):
    """The folder to put first on PYTHONPATH: `path` itself, its one subfolder holding
    tilelang/, or for a tarball the folder it unpacks to (a new temporary one, added to
    the list `temporary`)."""
    path = Path(path).resolve()
    if path.is_file():
        dest = Path(tempfile.mkdtemp(prefix="tilelang-"))
        if temporary is not None:
            temporary.append(dest)
        with tarfile.open(path) as tar:
            kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(dest, **kw)
        path = dest
    if (path / "tilelang" / "__init__.py").is_file():
        return path
    subs = [p for p in path.iterdir() if (p / "tilelang" / "__init__.py").is_file()]
    if len(subs) != 1:
        raise SystemExit("%s holds no tilelang/ package (bench/tilelang_wheels.sh makes one)"
                         % path)
    return subs[0]


def shard(text):
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError("K/N, e.g. 1/3") from None
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError("K/N with 1 <= K <= N")
    return k, n


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the module's docstring for the contract.")
    ap.add_argument("examples", help="TileLang's examples/ folder")
    ap.add_argument("--tilelang", default=str(DEFAULT_TILELANG),
                    help="TileLang 0.1.15's unpacked wheels: a folder or the .tar.xz of "
                    "bench/tilelang_wheels.sh (default %(default)s)")
    ap.add_argument("--jobs", type=int, default=4, help="phase 1 children at once (default 4)")
    ap.add_argument("--batch", type=int, default=0,
                    help="cases per round of the two phases (default 0: all in one)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per child (300)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds for the whole run; cases not reached are 'not run'")
    ap.add_argument("--only", action="append", default=[], metavar="SUBSTR",
                    help="cases whose id contains SUBSTR (repeatable)")
    ap.add_argument("--cases", action="append", default=[], metavar="ID,...",
                    help="these case ids (repeatable, comma-separated)")
    ap.add_argument("--shard", type=shard, default=None, metavar="K/N",
                    help="every N-th selected case from the K-th")
    ap.add_argument("--logs", default=None, help="folder for the logs (default: a new "
                    "temporary folder)")
    ap.add_argument("--csv", default=str(ROOT / "bench" / "results.csv"),
                    help="CSV the rows are appended to (default %(default)s)")
    ap.add_argument("--sources", default=None, metavar="DIR",
                    help="keep each case's generated CUDA sources (the .cu files of both "
                         "sides' kernel caches) under DIR/<case>/<side>/")
    ap.add_argument("--dry-run", action="store_true", help="list the cases and stop")
    return ap.parse_args(argv)


def main(argv=None, runner=None):
    start = time.monotonic()
    args = parse_args(argv)
    all_cases, problems = find_cases(args.examples)
    ids = {i.strip() for text in args.cases for i in text.split(",") if i.strip()}
    cases = select(all_cases, args.only, ids, args.shard)
    for p in problems:
        print("left out: %s" % p)
    if args.dry_run:
        for c in cases:
            print("%s  %s.%s(%s)  [%s:%d]" % (c.id, c.module, c.func, ", ".join(
                [repr(a) for a in c.args] + ["%s=%r" % kv for kv in c.kwargs.items()]),
                c.file, c.line))
        print("%d of %d cases, in %d regression files" % (
            len(cases), len(all_cases), len({c.file for c in all_cases})))
        return 0
    if not cases:
        print("no cases (of %d) selected" % len(all_cases))
        return 2
    logs = Path(args.logs or tempfile.mkdtemp(prefix="sbs-logs-")).resolve()
    logs.mkdir(parents=True, exist_ok=True)
    deadline = None if args.budget is None else start + args.budget
    temporary = []  # what this run made and removes: the caches, an unpacked tarball
    try:
        if runner is None:
            tl_dir = unpack_tilelang(args.tilelang, temporary)
            runner = Runner(logs, tl_dir, args.timeout, deadline)
            temporary.append(runner.cache_root)
            for side in SIDES:
                r = runner.probe(side)
                print("probe %s: %s %s" % (side, r["status"], r.get("tilelang") or
                                           r.get("error")), flush=True)
        results = run_cases(cases, runner, args.jobs, args.batch,
                            say=lambda text: print(text, flush=True))
    finally:
        if args.sources and runner is not None:
            keep_sources(runner.cache_root, Path(args.sources))
        for path in temporary:
            shutil.rmtree(path, ignore_errors=True)
    date = datetime.date.today().isoformat()
    device = getattr(runner, "device", None) or "unknown GPU"
    rows = case_rows(cases, results)
    if args.csv:
        append_rows(args.csv, date, device, rows)
    (logs / "results.json").write_text(json.dumps({
        "date": date, "device": device, "peer": PEER, "cases": [
            dict(id=c.id, file=c.file, function=c.function, module=c.module, func=c.func,
                 args=c.args, kwargs=c.kwargs, results=results[c.id]) for c in cases]},
        indent=1, default=str))
    (logs / "table.md").write_text(markdown_table(cases, results))
    print("%s, %s: %s, logs in %s (%.0f s)" % (
        date, device, "%d rows to %s" % (len(rows), args.csv) if args.csv else "no CSV",
        logs, time.monotonic() - start))
    for line in failures(cases, results):
        print(line)
    print(summary(cases, results))
    print(short_table(cases, results))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child_main(ast.literal_eval(sys.argv[2]))  # repr: tuples stay tuples
    sys.exit(main())
