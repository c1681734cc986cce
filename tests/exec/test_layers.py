"""The architecture of src/, checked from its #include lines (docs/internals.md, "Where
things are"):

* the folders of src/ (base, frontend, ir, passes, layout, targets, each target's folder
  targets/<name>, rt, api) include each other without a cycle;
* no file outside a target's folder includes that target's headers (src/, tools/ and
  tests/fuzz; the unit tests of a target's internals are listed in UNIT_TESTS_OF);
* a target's lowering passes (targets/<name>/passes) include none of the headers of its
  emitter and launch ABI, so the dependency runs emitter -> passes, never back;
* src/api and src/rt name no target: no "c" or "cuda" string, no call of a CUDA
  function; they reach a back end through the Target table (targets/target.h)."""
import re
from pathlib import Path

from conftest import ROOT

SRC = ROOT / "src"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Unit tests that test a target's internals and so include its private headers.
UNIT_TESTS_OF = {
    "c": ["tests/unit/test_emit_cuda.c", "tests/unit/test_target_c.c"],
    "cuda": ["tests/unit/test_cuda_driver.c", "tests/unit/test_emit_cuda.c",
             "tests/unit/test_passes.c"],
}
# Headers of a target that its passes must not include (the emitter's state, the launch
# ABI between the emitter and the runtime).
EMITTER_HEADERS = {"cuda": ["targets/cuda/cuda_emit.h", "targets/cuda/cuda.h"]}


def sources(*dirs):
    for d in dirs:
        for p in sorted((ROOT / d).rglob("*")):
            if p.suffix in (".c", ".h"):
                yield p


def includes(path):
    """The files of src/ that path includes (quoted includes, resolved as the compiler
    does with -Isrc: next to the file first)."""
    out = []
    for name in INCLUDE_RE.findall(path.read_text(errors="replace")):
        for base in (path.parent, SRC):
            target = (base / name).resolve()
            if target.is_file():
                if SRC in target.parents:
                    out.append(target)
                break
    return out


def module(path):
    """The folder of a file of src/: 'ir', 'targets', 'targets/cuda', ..."""
    parts = path.relative_to(SRC).parts
    if parts[0] == "targets" and len(parts) > 2:
        return "targets/" + parts[1]
    return parts[0] if len(parts) > 1 else "src"


def rel(path):
    return str(path.relative_to(ROOT))


def test_folders_include_each_other_without_a_cycle():
    edges, why = {}, {}
    for f in sources("src"):
        for inc in includes(f):
            a, b = module(f), module(inc)
            if a != b:
                edges.setdefault(a, set()).add(b)
                why.setdefault((a, b), "%s includes %s" % (rel(f), rel(inc)))
    state, stack = {}, []

    def visit(m):  # depth-first search; a back edge is a cycle
        state[m] = "open"
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == "open":
                cycle = stack[stack.index(n):] + [n]
                steps = [why[(cycle[i], cycle[i + 1])] for i in range(len(cycle) - 1)]
                raise AssertionError("the folders of src/ include each other in a cycle "
                                     "%s: %s" % (" -> ".join(cycle), "; ".join(steps)))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = "done"

    for m in sorted(edges):
        if m not in state:
            visit(m)
    assert "src" not in edges, "files directly in src/: %s" % edges["src"]


def test_target_headers_stay_in_their_folder():
    targets = [p.name for p in (SRC / "targets").iterdir() if p.is_dir()]
    assert "cuda" in targets and "c" in targets
    bad = []
    for f in sources("src", "tools", "tests/fuzz", "tests/unit"):
        for inc in includes(f):
            m = module(inc)
            if not m.startswith("targets/"):
                continue
            name = m.split("/")[1]
            inside = SRC / "targets" / name in f.parents
            if not inside and rel(f) not in UNIT_TESTS_OF.get(name, []):
                bad.append("%s includes %s" % (rel(f), rel(inc)))
    assert not bad, "a target's headers are included outside its folder: " + "; ".join(bad)
    for name, tests in UNIT_TESTS_OF.items():
        for t in tests:
            assert (ROOT / t).is_file(), "UNIT_TESTS_OF lists %s, which is gone" % t


def test_target_passes_do_not_include_the_emitter():
    bad = []
    for name, headers in EMITTER_HEADERS.items():
        for f in sources("src/targets/%s/passes" % name):
            for inc in includes(f):
                if str(inc.relative_to(SRC)) in headers:
                    bad.append("%s includes %s" % (rel(f), rel(inc)))
    assert not bad, "a target's passes include its emitter's headers: " + "; ".join(bad)


def test_api_and_rt_name_no_target():
    literal = re.compile(r'"(c|cuda)"|"targets/(c|cuda)/')
    call = re.compile(r"\b(cuda|nvrtc)_[a-z_]+\s*\(")
    bad = []
    for f in sources("src/api", "src/rt"):
        for n, line in enumerate(f.read_text().splitlines(), 1):
            code = re.sub(r"/\*.*?\*/|//.*", "", line)
            if literal.search(code) or call.search(re.sub(r'"(\\.|[^"\\])*"', '""', code)):
                bad.append("%s:%d: %s" % (rel(f), n, line.strip()))
    assert not bad, "src/api or src/rt names a target (use targets/target.h): " + \
        "; ".join(bad)
