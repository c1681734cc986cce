#!/usr/bin/env python3
"""Runs the whole tilec test suite and prints one line per failure and a final line
`N passed, N failed`. Exit status 1 if anything failed.

    python3 tests/run_tests.py --build build [--update-golden] [--quick] [--only KIND]

In order: every BUILD/tests/test_* unit binary; the error-message tests (tests/errors);
the golden IR tests (tests/golden: the IR before lowering; tests/golden/cuda: the IR
after the CUDA target's last pass, for each arch of CUDA_GOLDEN_ARCHS); pytest over
tests/exec (and tests/python when it exists); the mutation fuzz test (tests/fuzz).
--only runs one kind. docs/testing.md describes each kind."""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UNIT_TIMEOUT = 900  # test_emit_cuda: about 3 minutes alone on 2 cores, 6 or more on a loaded one
CASE_TIMEOUT = 60
CUDA_GOLDEN_ARCHS = ("sm_80", "sm_90a")
KINDS = ("unit", "errors", "golden", "pytest", "fuzz")
LOC_RE = r"^%s:\d+:\d+: error: "


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def ok(self):
        self.passed += 1

    def fail(self, kind, name, why):
        self.failed += 1
        why = why.strip().replace("\n", " | ")
        if len(why) > 400:
            why = why[:400] + "..."
        print("FAIL %s %s: %s" % (kind, name, why), flush=True)


def rel(path):
    """Path relative to the repository root, as tests pass it to tilec."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def run(cmd, timeout, env=None):
    """subprocess.run from the repository root; a timeout becomes returncode None."""
    try:
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout, env=env, errors="replace")
    except subprocess.TimeoutExpired:
        return None


def exit_text(proc):
    if proc is None:
        return "timed out"
    if proc.returncode < 0:
        return "killed by signal %d" % -proc.returncode
    return "exit %d" % proc.returncode


# ---- unit binaries -------------------------------------------------------------------
def run_units(build, res):
    units = sorted(p for p in (build / "tests").glob("test_*")
                   if p.is_file() and os.access(p, os.X_OK) and p.suffix == "")
    for exe in units:
        proc = run([str(exe)], UNIT_TIMEOUT)
        if proc is not None and proc.returncode == 0:
            res.ok()
        else:
            tail = "" if proc is None else (proc.stdout + proc.stderr)[-300:]
            res.fail("unit", exe.name, "%s %s" % (exit_text(proc), tail))


# ---- error-message tests -------------------------------------------------------------
def parse_headers(path):
    """Leading `# key: value` comment lines of an error test."""
    heads = {"expect": [], "args": "", "cmd": None, "line": None, "noloc": False}
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        m = re.match(r"#\s*(expect|args|cmd|line):\s?(.*)$", line)
        if m and m.group(1) == "expect":
            heads["expect"].append(m.group(2).strip())
        elif m:
            heads[m.group(1)] = m.group(2).strip()
        elif line.strip() == "# noloc":
            heads["noloc"] = True
    return heads


def expect_matches(pattern, text):
    try:
        return re.search(pattern, text, re.IGNORECASE | re.MULTILINE) is not None
    except re.error:
        return pattern.lower() in text.lower()


def check_error_case(tilec, path, env, out_dir):
    """Returns None if the case passes, else the reason."""
    h = parse_headers(path)
    if not h["expect"]:
        return "no '# expect:' header"
    name = rel(path)
    cmd_text = h["cmd"] or "run {file} --target c"
    args = cmd_text.replace("{file}", name).split() + h["args"].split()
    if args[0] == "run" and "--out-dir" not in args:
        args += ["--out-dir", str(out_dir)]
    proc = run([str(tilec)] + args, CASE_TIMEOUT, env)
    if proc is None or proc.returncode != 1:
        return "%s, expected exit 1; stderr: %s" % (exit_text(proc),
                                                      "" if proc is None else proc.stderr)
    err = proc.stderr
    for pat in h["expect"]:
        if not expect_matches(pat, err):
            return "stderr does not match %r: %s" % (pat, err)
    if h["noloc"]:
        if "error:" not in err:
            return "no 'error:' in stderr: %s" % err
        return None
    m = re.search(LOC_RE % re.escape(name), err, re.MULTILINE)
    if not m:
        return "stderr lacks '%s:LINE:COL: error:': %s" % (name, err)
    if h["line"]:
        line_m = re.search(r"^%s:(\d+):\d+: error: " % re.escape(name), err, re.MULTILINE)
        if line_m.group(1) != h["line"]:
            return "error at line %s, expected line %s: %s" % (line_m.group(1), h["line"], err)
    return None


def run_errors(tilec, res, env, tmp):
    for path in sorted((ROOT / "tests" / "errors").glob("*.py")):
        why = check_error_case(tilec, path, env, tmp / "errout")
        if why is None:
            res.ok()
        else:
            res.fail("error-test", rel(path), why)


# ---- golden IR tests -----------------------------------------------------------------
def check_golden(res, name, golden, text, update):
    """text against the file golden (rewritten instead when update)."""
    if update:
        golden.write_text(text)
        print("updated %s" % rel(golden))
        res.ok()
    elif not golden.exists():
        res.fail("golden", name, "%s is missing (run with --update-golden)" % rel(golden))
    elif golden.read_text() != text:
        res.fail("golden", name, "IR differs from %s:\n%s" %
                 (rel(golden), first_diff(golden.read_text(), text)))
    else:
        res.ok()


def run_golden(tilec, res, env, update, tmp):
    for path in sorted((ROOT / "tests" / "golden").glob("*.py")):
        proc = run([str(tilec), "emit", rel(path), "--ir"], CASE_TIMEOUT, env)
        if proc is None or proc.returncode != 0:
            res.fail("golden", rel(path), "%s: %s" % (exit_text(proc),
                                                      "" if proc is None else proc.stderr))
            continue
        check_golden(res, rel(path), path.with_suffix(".ir"), proc.stdout, update)
    run_golden_cuda(tilec, res, env, update, tmp)


def last_pass(tilec, target, env):
    """The last pass of target's pipeline (`tilec info --passes`), or None."""
    proc = run([str(tilec), "info", "--passes"], CASE_TIMEOUT, env)
    names = [] if proc is None else [line.split("\t")[1] for line in proc.stdout.splitlines()
                                     if line.startswith(target + "\t")]
    return names[-1] if names else None


def run_golden_cuda(tilec, res, env, update, tmp):
    """tests/golden/cuda/NAME.py: the IR after the CUDA pipeline's last pass, lowered for
    each arch (--arch; no GPU needed), against NAME.ARCH.ir."""
    last = last_pass(tilec, "cuda", env)
    if last is None:
        res.fail("golden", "tests/golden/cuda", "`tilec info --passes` lists no cuda pass")
        return
    dump = tmp / "ir-after.txt"
    for path in sorted((ROOT / "tests" / "golden" / "cuda").glob("*.py")):
        for arch in CUDA_GOLDEN_ARCHS:
            name = "%s (%s)" % (rel(path), arch)
            proc = run([str(tilec), "emit", rel(path), "--target", "cuda", "--arch", arch,
                        "--ir-after", last, "--ir-file", str(dump)], CASE_TIMEOUT, env)
            if proc is None or proc.returncode != 0:
                res.fail("golden", name, "%s: %s" % (exit_text(proc),
                                                     "" if proc is None else proc.stderr))
                continue
            check_golden(res, name, path.with_suffix(".%s.ir" % arch), dump.read_text(), update)


def first_diff(want, got):
    w, g = want.splitlines(), got.splitlines()
    for i in range(max(len(w), len(g))):
        a = w[i] if i < len(w) else "<end>"
        b = g[i] if i < len(g) else "<end>"
        if a != b:
            return "line %d: expected %r, got %r" % (i + 1, a, b)
    return "(whitespace only)"


# ---- pytest --------------------------------------------------------------------------
def run_pytest(tilec, res, env, tmp, quick):
    dirs = [d for d in ("tests/exec", "tests/python") if (ROOT / d).is_dir()]
    if not dirs:
        return
    xml = tmp / "pytest.xml"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           "--junitxml", str(xml)] + dirs
    if quick:
        cmd += ["-x"]
    penv = dict(env, TILEC=str(tilec), PYTHONDONTWRITEBYTECODE="1")
    proc = run(cmd, 540, penv)
    if proc is None or not xml.exists():
        res.fail("pytest", " ".join(dirs), "%s: %s" % (
            exit_text(proc), "" if proc is None else (proc.stdout + proc.stderr)[-1500:]))
        return
    count_junit(xml, res)
    if proc.returncode not in (0, 1):  # 1 = some tests failed (counted above)
        res.fail("pytest", " ".join(dirs), "%s: %s" % (exit_text(proc),
                                                      (proc.stdout + proc.stderr)[-1500:]))


def count_junit(xml, res):
    for case in ET.parse(xml).getroot().iter("testcase"):
        name = "%s::%s" % (case.get("classname", ""), case.get("name", ""))
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        skip = case.find("skipped")
        if bad is not None:
            msg = bad.get("message") or ""
            res.fail("pytest", name, msg or (bad.text or "")[-400:])
        elif skip is not None:
            res.skipped += 1
            print("SKIP pytest %s: %s" % (name, skip.get("message", "")), flush=True)
        else:
            res.ok()


# ---- fuzz ----------------------------------------------------------------------------
def run_fuzz(tilec, build, res, env, quick):
    count = 300 if quick else 5000
    out = build / "fuzz-failures"
    cmd = [sys.executable, "tests/fuzz/fuzz.py", "--tilec", str(tilec), "--count",
           str(count), "--seed", "1", "--jobs", "2", "--save", str(out)]
    proc = run(cmd, 400, env)
    text = "" if proc is None else (proc.stdout + proc.stderr)
    if proc is not None and proc.returncode == 0:
        res.ok()
        print(text.strip().splitlines()[-1] if text.strip() else "fuzz: ok", flush=True)
    else:
        res.fail("fuzz", "tests/fuzz/fuzz.py", "%s: %s" % (exit_text(proc), text[-1500:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", help="build directory (default: build)")
    ap.add_argument("--update-golden", action="store_true",
                    help="rewrite tests/golden/*.ir from the current compiler")
    ap.add_argument("--quick", action="store_true",
                    help="fewer fuzz mutants; stop pytest at the first failure")
    ap.add_argument("--only", choices=KINDS, help="run only this kind of test")
    args = ap.parse_args()
    kinds = (args.only,) if args.only else KINDS
    build = Path(args.build).resolve()
    tilec = build / "tilec"
    res = Results()
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="tilec-tests-") as tmpdir:
        tmp = Path(tmpdir)
        # A private kernel cache: the suite compiles what it tests. The IR verifier runs
        # after every pass (TILEC_VERIFY), so a pass that breaks an invariant fails here.
        env = dict(os.environ, TILEC_CACHE_DIR=str(tmp / "cache"), TILEC_VERIFY="1")
        if "unit" in kinds:
            run_units(build, res)
        if not os.access(tilec, os.X_OK):
            res.fail("setup", rel(tilec), "missing: build it with `make` first")
        else:
            if "errors" in kinds:
                run_errors(tilec, res, env, tmp)
            if "golden" in kinds:
                run_golden(tilec, res, env, args.update_golden, tmp)
            if "pytest" in kinds:
                run_pytest(tilec, res, env, tmp, args.quick)
            if "fuzz" in kinds:
                run_fuzz(tilec, build, res, env, args.quick)
    if res.skipped:
        print("(%d pytest cases skipped; see SKIP lines)" % res.skipped)
    print("(%.0f s)" % (time.time() - start))
    print("%d passed, %d failed" % (res.passed, res.failed))
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
