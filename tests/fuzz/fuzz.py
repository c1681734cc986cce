#!/usr/bin/env python3
"""Mutation fuzzing of the tilec front end.

Takes the kernels in examples/*.py, makes N mutants (byte deletions, duplications and
swaps; token-ish changes of punctuation, digits and names; line deletions, duplications
and swaps; indentation changes), and runs `tilec emit MUTANT --ir` on each with a
timeout, then (if that succeeded) `tilec emit MUTANT --source --target c`, which also
runs the passes and the C emitter (still no C compile). A run passes iff it exits 0, or
exits 1 and prints "error:". A signal (crash, abort, sanitizer), another exit status or
a timeout is a failure; the mutant is saved in --save DIR with a .txt note holding the
command, the status and the output.

    python3 tests/fuzz/fuzz.py --tilec build/tilec --count 2000 --seed 1 --jobs 2

Mutant i is a pure function of (seed, i): `--only i` reproduces one."""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PUNCT = list(":()[],.=+-*/%<>@")
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
EXTRA_NAMES = ["T", "tilelang", "None", "True", "lambda", "def", "with", "for", "if",
               "return", "not", "is", "in", "class", "yield", "import", "x", "_"]


# ---- mutations: each takes (rng, text) and returns new text --------------------------
def m_delete(rng, s):
    i = rng.randrange(len(s))
    return s[:i] + s[i + rng.randint(1, 3):]


def m_duplicate(rng, s):
    i = rng.randrange(len(s))
    j = min(len(s), i + rng.randint(1, 8))
    return s[:j] + s[i:j] + s[j:]


def m_swap(rng, s):
    i = rng.randrange(len(s) - 1)
    return s[:i] + s[i + 1] + s[i] + s[i + 2:]


def m_punct(rng, s):
    spots = [i for i, c in enumerate(s) if c in PUNCT]
    if not spots:
        return s
    i = rng.choice(spots)
    return s[:i] + rng.choice(PUNCT + ["", "**", "//", ":=", "(("]) + s[i + 1:]


def m_digit(rng, s):
    spots = [i for i, c in enumerate(s) if c.isdigit()]
    if not spots:
        return s
    i = rng.choice(spots)
    new = rng.choice(["0", "1", "3", "7", "-1", "0.5", "1e9", "65536", "", "x"])
    return s[:i] + new + s[i + 1:]


def m_name(rng, s):
    names = [m for m in NAME_RE.finditer(s)]
    if not names:
        return s
    m = rng.choice(names)
    pool = [n.group(0) for n in names] + EXTRA_NAMES
    return s[:m.start()] + rng.choice(pool) + s[m.end():]


def m_line_delete(rng, s):
    lines = s.split("\n")
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def m_line_duplicate(rng, s):
    lines = s.split("\n")
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return "\n".join(lines)


def m_line_swap(rng, s):
    lines = s.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def m_indent(rng, s):
    lines = s.split("\n")
    i = rng.randrange(len(lines))
    line = lines[i]
    op = rng.randrange(4)
    if op == 0:
        line = " " * rng.randint(1, 4) + line
    elif op == 1:
        line = line[min(len(line) - len(line.lstrip(" ")), rng.randint(1, 4)):]
    elif op == 2:
        line = "\t" + line
    else:
        line = line.lstrip(" ")
    lines[i] = line
    return "\n".join(lines)


MUTATIONS = [m_delete, m_duplicate, m_swap, m_punct, m_punct, m_digit, m_name, m_name,
             m_line_delete, m_line_duplicate, m_line_swap, m_indent, m_indent]


def kernel_span(text):
    """(start, end) of the kernel factory: from the first `@tilelang.jit` (or `def`) to
    the next top-level `def`/`if` after it. Most mutants land there, where tilec reads
    every token, rather than in the torch code it skips."""
    start = text.find("@tilelang.jit")
    if start < 0:
        start = max(text.find("\ndef "), 0)
    body = text.find("\ndef ", start) + 1
    m = re.compile(r"^(def |if |class |@)", re.M).search(text, body + 1)
    return start, (m.start() if m else len(text))


def make_mutant(sources, seed, i):
    """Mutant i of the run: (name of the source example, text)."""
    rng = random.Random(seed * 1000003 + i)
    name, text = sources[i % len(sources)]
    start, end = kernel_span(text) if rng.random() < 0.85 else (0, len(text))
    head, part, tail = text[:start], text[start:end], text[end:]
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if len(part) > 2:
            part = rng.choice(MUTATIONS)(rng, part)
    return name, head + part + tail


def check_one(tilec, path, timeout, modes):
    """"ok0" or "ok1" if every run of tilec on path is acceptable (exit 0, or exit 1 with
    an error message), else (status text, output). modes: "ir" (`emit --ir`: front end),
    "source" (`emit --source --target c`: the passes and the C emitter too) and/or "cuda"
    (`emit --source --target cuda`: the CUDA passes and emitter; no GPU needed)."""
    result = "ok0"
    for mode in modes:
        cmd = [tilec, "emit", str(path), "--ir" if mode == "ir" else "--source"]
        if mode != "ir":
            cmd += ["--target", "cuda" if mode == "cuda" else "c"]
        r = check_cmd(cmd, timeout)
        if r != "ok0":
            result = r
        if r != "ok0":  # an error (or failure) in --ir mode repeats in --source mode
            break
    return result


def check_cmd(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout after %d s: %s" % (timeout, " ".join(cmd)), ""
    except OSError as e:
        return "cannot run tilec: %s" % e, ""
    out = p.stdout[-2000:] + p.stderr[-4000:]
    if "Sanitizer" in p.stderr or "runtime error:" in p.stderr:  # ASan/UBSan builds
        return "sanitizer report (exit %d): %s" % (p.returncode, " ".join(cmd)), out
    if p.returncode == 0:
        return "ok0"
    if p.returncode == 1:
        return "ok1" if "error:" in p.stderr else ("exit 1 without 'error:': " + " ".join(cmd),
                                                   out)
    if p.returncode < 0:
        return "killed by signal %d: %s" % (-p.returncode, " ".join(cmd)), out
    return "exit %d: %s" % (p.returncode, " ".join(cmd)), out


def main():
    ap = argparse.ArgumentParser(description="mutation fuzzing of tilec's front end")
    ap.add_argument("--tilec", default=str(ROOT / "build" / "tilec"))
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=5)
    ap.add_argument("--modes", default="ir,source,cuda",
                    help="comma-separated emit modes to run per mutant (ir, source, cuda)")
    ap.add_argument("--save", default=str(ROOT / "build" / "fuzz-failures"),
                    help="directory for failing mutants")
    ap.add_argument("--only", type=int, help="run only mutant number ONLY")
    args = ap.parse_args()
    if not os.access(args.tilec, os.X_OK):
        print("fuzz: %s is missing" % args.tilec)
        return 1
    sources = [(p.stem, p.read_text()) for p in sorted((ROOT / "examples").glob("*.py"))]
    todo = [args.only] if args.only is not None else list(range(args.count))
    save = Path(args.save)
    if args.only is None and save.is_dir():  # failures of an earlier run are stale
        for old in list(save.glob("*_m*.py")) + list(save.glob("*_m*.txt")):
            old.unlink()
    failures = []
    accepted = rejected = 0
    with tempfile.TemporaryDirectory(prefix="tilec-fuzz-") as tmp:
        def work(i):
            name, text = make_mutant(sources, args.seed, i)
            path = Path(tmp) / ("%s_m%d.py" % (name, i))
            path.write_text(text)
            bad = check_one(args.tilec, path, args.timeout, args.modes.split(","))
            path.unlink()
            if isinstance(bad, str):
                return bad
            save.mkdir(parents=True, exist_ok=True)
            kept = save / ("%s_m%d.py" % (name, i))
            kept.write_text(text)
            kept.with_suffix(".txt").write_text(
                "mutant of examples/%s.py, tilec emit %s\n%s\n(seed %d, --only %d)\n\n%s\n" %
                (name, kept, bad[0], args.seed, i, bad[1]))
            return i, kept, bad[0]

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for r in pool.map(work, todo):
                if r == "ok0":
                    accepted += 1
                elif r == "ok1":
                    rejected += 1
                else:
                    failures.append(r)
                    print("fuzz: mutant %d: %s (saved as %s)" % (r[0], r[2], r[1]), flush=True)
    print("fuzz: %d mutants (%d compiled, %d rejected with an error), %d failures (seed %d)" %
          (len(todo), accepted, rejected, len(failures), args.seed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
