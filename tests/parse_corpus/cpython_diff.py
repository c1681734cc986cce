"""Differential check of tilec's parser against CPython's own ast module.

    python3 tests/parse_corpus/cpython_diff.py BUILD/test_parse FILE_OR_DIR...

For every .py file, `test_parse --dump --locs FILE` prints tilec's tree, one top-level
statement per line; this script renders CPython's tree of the same file in the same
S-expression form (with tilec's documented desugarings: set displays as set([...]),
dict/set comprehensions as dict(...)/set(...) of generators, try keeps only its body,
f-strings as f"?") and compares them statement by statement, locations included.
Statements that use what tilec rejects (async, await, yield, walrus, match, complex
literals, ints beyond int64, \\N{...} escapes, NUL in strings) must come out as
AST_BAD_STMT. Known, accepted differences: files with a non-UTF-8 coding cookie are
skipped (tilec reads UTF-8), identifiers are compared after NFKC folding (tilec does not
fold), starred class bases are dropped by tilec. Prints a summary and every
difference; exits 1 if any. Needs CPython >= 3.9 (node locations of slices and keywords).
This file is also a parser corpus input (tests/unit/test_parse.c parses every .py here).
"""
import ast
import io
import os
import re
import subprocess
import sys
import tokenize
import unicodedata

BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
          ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|",
          ast.BitXor: "^", ast.BitAnd: "&", ast.MatMult: "@"}
UNOPS = {ast.UAdd: "+", ast.USub: "-", ast.Not: "not", ast.Invert: "~"}
CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
          ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is-not", ast.In: "in",
          ast.NotIn: "not-in"}
UNSUPPORTED = (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.AsyncFunctionDef,
               ast.AsyncFor, ast.AsyncWith, ast.Match)


class Unsupported(Exception):
    pass


def loc(n):
    return "@%d:%d" % (n.lineno, n.col_offset + 1)


def esc(data):
    if b"\0" in data:
        raise Unsupported("NUL in a string")
    out = []
    for b in data:
        if b in (0x22, 0x5C):
            out.append("\\" + chr(b))
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
    return '"' + "".join(out) + '"'


def has_named_escape(text):
    """Does a (non-raw) string literal in text use \\N{...}?"""
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    for t in toks:
        if t.type != tokenize.STRING:
            continue
        prefix = t.string[:t.string.index(t.string[-1])].lower()
        if "r" in prefix or "b" in prefix:
            continue
        i = 0
        while i < len(t.string) - 1:
            if t.string[i] == "\\":
                if t.string[i + 1] == "N":
                    return True
                i += 1
            i += 1
    return False


class Dumper:
    def __init__(self, source):
        self.lines = source.split(b"\n")

    def segment(self, n):
        if n.lineno == n.end_lineno:
            line = self.lines[n.lineno - 1]
            return line[n.col_offset:n.end_col_offset].decode("utf-8", "replace")
        return "\n".join(x.decode("utf-8", "replace")
                         for x in self.lines[n.lineno - 1:n.end_lineno])

    def opt(self, n):
        return "_" if n is None else self.expr(n)

    def exprs(self, ns):
        return "".join(" " + self.expr(n) for n in ns)

    def const(self, n):
        v = n.value
        if v is True or v is False or v is None:
            return repr(v) + loc(n)
        if v is Ellipsis:
            return "..." + loc(n)
        if isinstance(v, int):
            if v >= 2**63:
                raise Unsupported("int")
            return str(v) + loc(n)
        if isinstance(v, float):
            return ("%.17g" % v) + loc(n)
        if isinstance(v, complex):
            raise Unsupported("complex")
        if isinstance(v, str):
            if has_named_escape(self.segment(n)):
                raise Unsupported("named escape")
            return esc(v.encode("utf-8", "surrogatepass")) + loc(n)
        return esc(v) + loc(n)

    def param(self, star, arg, default):
        s = star + arg.arg + loc(arg)
        if arg.annotation is not None:
            s += ":" + self.expr(arg.annotation)
        if default is not None:
            s += "=" + self.expr(default)
        return s

    def params(self, a):
        pos = a.posonlyargs + a.args
        defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
        out = [self.param("", arg, d) for arg, d in zip(pos, defaults)]
        if a.vararg:
            out.append(self.param("*", a.vararg, None))
        elif a.kwonlyargs:
            out.append("*")
        out += [self.param("", arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults)]
        if a.kwarg:
            out.append(self.param("**", a.kwarg, None))
        return "(params" + "".join(" " + s for s in out) + ")"

    def comp(self, head, elt, gens, n):
        s = "(%s%s %s" % (head, loc(n), self.expr(elt))
        for g in gens:
            if g.is_async:
                raise Unsupported("async comprehension")
            s += " (for %s %s%s)" % (self.expr(g.target), self.expr(g.iter), self.exprs(g.ifs))
        return s + ")"

    def call_args(self, n):
        items = []
        for a in n.args:
            items.append((a.lineno, a.col_offset, self.expr(a)))
        for k in n.keywords:
            if k.arg is None:
                items.append((k.lineno, k.col_offset, "(**%s %s)" % (loc(k), self.expr(k.value))))
            else:
                items.append((k.lineno, k.col_offset,
                              "(= %s%s %s)" % (k.arg, loc(k), self.expr(k.value))))
        items.sort(key=lambda t: (t[0], t[1]))
        return "".join(" " + t[2] for t in items)

    def genexp_arg(self, n, call):
        """A generator that is a call's only argument: tilec puts it at its element."""
        if (n.lineno, n.col_offset) == (call.func.end_lineno, call.func.end_col_offset):
            n2 = ast.GeneratorExp(elt=n.elt, generators=n.generators)
            n2.lineno, n2.col_offset = n.elt.lineno, n.elt.col_offset
            return n2
        return n

    def expr(self, n):
        t = type(n)
        if isinstance(n, UNSUPPORTED):
            raise Unsupported(t.__name__)
        if t is ast.Name:
            return n.id + loc(n)
        if t is ast.Constant:
            return self.const(n)
        if t is ast.JoinedStr:
            return 'f"?"' + loc(n)
        if t in (ast.Tuple, ast.List):
            return "(%s%s%s)" % ("tuple" if t is ast.Tuple else "list", loc(n), self.exprs(n.elts))
        if t is ast.Set:
            return "(call%s set%s (list%s%s))" % (loc(n), loc(n), loc(n), self.exprs(n.elts))
        if t is ast.Dict:
            s = "(dict" + loc(n)
            for k, v in zip(n.keys, n.values):
                s += " (** %s)" % self.expr(v) if k is None else \
                    " (: %s %s)" % (self.expr(k), self.expr(v))
            return s + ")"
        if t is ast.Attribute:
            return "(.%s %s %s)" % (loc(n), self.expr(n.value), n.attr)
        if t is ast.Call:
            if len(n.args) == 1 and not n.keywords and type(n.args[0]) is ast.GeneratorExp:
                n.args[0] = self.genexp_arg(n.args[0], n)
            return "(call%s %s%s)" % (loc(n), self.expr(n.func), self.call_args(n))
        if t is ast.Subscript:
            return "(sub%s %s %s)" % (loc(n), self.expr(n.value), self.expr(n.slice))
        if t is ast.Slice:
            return "(slice%s %s %s %s)" % (loc(n), self.opt(n.lower), self.opt(n.upper),
                                           self.opt(n.step))
        if t is ast.Starred:
            return "(*%s %s)" % (loc(n), self.expr(n.value))
        if t is ast.UnaryOp:
            return "(%s%s %s)" % (UNOPS[type(n.op)], loc(n), self.expr(n.operand))
        if t is ast.BinOp:
            return "(%s%s %s %s)" % (BINOPS[type(n.op)], loc(n), self.expr(n.left),
                                     self.expr(n.right))
        if t is ast.Compare:
            s = "(cmp%s %s" % (loc(n), self.expr(n.left))
            for op, c in zip(n.ops, n.comparators):
                s += " %s %s" % (CMPOPS[type(op)], self.expr(c))
            return s + ")"
        if t is ast.BoolOp:
            return "(%s%s%s)" % ("and" if type(n.op) is ast.And else "or", loc(n),
                                 self.exprs(n.values))
        if t is ast.IfExp:
            return "(ifexp%s %s %s %s)" % (loc(n), self.expr(n.test), self.expr(n.body),
                                           self.expr(n.orelse))
        if t is ast.Lambda:
            return "(lambda%s %s %s)" % (loc(n), self.params(n.args), self.expr(n.body))
        if t is ast.ListComp:
            return self.comp("listcomp", n.elt, n.generators, n)
        if t is ast.GeneratorExp:
            return self.comp("genexp", n.elt, n.generators, n)
        if t is ast.SetComp:
            return "(call%s set%s %s)" % (loc(n), loc(n), self.comp("genexp", n.elt,
                                                                   n.generators, n))
        if t is ast.DictComp:
            pair = "(tuple%s %s %s)" % (loc(n.key), self.expr(n.key), self.expr(n.value))
            gens = "".join(" (for %s %s%s)" % (self.expr(g.target), self.expr(g.iter),
                                               self.exprs(g.ifs)) for g in n.generators)
            return "(call%s dict%s (genexp%s %s%s))" % (loc(n), loc(n), loc(n), pair, gens)
        raise Unsupported(t.__name__)

    def body(self, stmts):
        return " [" + " ".join(self.stmt(s) for s in stmts) + "]"

    def stmt(self, n):
        t = type(n)
        if isinstance(n, UNSUPPORTED):
            raise Unsupported(t.__name__)
        L = loc(n)
        if t is ast.Expr:
            return "(expr%s %s)" % (L, self.expr(n.value))
        if t is ast.Assign:
            return "(=%s%s %s)" % (L, self.exprs(n.targets), self.expr(n.value))
        if t is ast.AugAssign:
            return "(%s=%s %s %s)" % (BINOPS[type(n.op)], L, self.expr(n.target),
                                      self.expr(n.value))
        if t is ast.AnnAssign:
            return "(ann%s %s %s %s)" % (L, self.expr(n.target), self.expr(n.annotation),
                                         self.opt(n.value))
        if t is ast.FunctionDef:
            if getattr(n, "type_params", None):
                raise Unsupported("type params")
            return "(def%s %s %s %s (decorators%s)%s)" % (
                L, n.name, self.params(n.args), self.opt(n.returns),
                self.exprs(n.decorator_list), self.body(n.body))
        if t is ast.Return:
            return "(return%s %s)" % (L, self.opt(n.value))
        if t in (ast.If, ast.While):
            return "(%s%s %s%s%s)" % ("if" if t is ast.If else "while", L, self.expr(n.test),
                                      self.body(n.body), self.body(n.orelse))
        if t is ast.For:
            return "(for%s %s %s%s%s)" % (L, self.expr(n.target), self.expr(n.iter),
                                          self.body(n.body), self.body(n.orelse))
        if t is ast.With:
            items = "".join(" (item %s %s)" % (self.expr(i.context_expr),
                                               self.opt(i.optional_vars)) for i in n.items)
            return "(with%s%s%s)" % (L, items, self.body(n.body))
        if t in (ast.Break, ast.Continue, ast.Pass):
            return t.__name__.lower() + L
        if t is ast.Assert:
            return "(assert%s %s %s)" % (L, self.expr(n.test), self.opt(n.msg))
        if t is ast.Import:
            return "(import%s%s)" % (L, "".join(
                " (as %s %s)" % (a.name, a.asname) if a.asname else " " + a.name
                for a in n.names))
        if t is ast.ImportFrom:
            return "(from%s %d %s%s)" % (L, n.level, n.module or "_", "".join(
                " (as %s %s)" % (a.name, a.asname) if a.asname else " " + a.name
                for a in n.names))
        if t in (ast.Global, ast.Nonlocal):
            return "(%s%s%s)" % (t.__name__.lower(), L, "".join(" " + x for x in n.names))
        if t is ast.Delete:
            return "(del%s%s)" % (L, self.exprs(n.targets))
        if t is ast.Raise:
            return "(raise%s %s)" % (L, self.opt(n.exc))
        if t.__name__ in ("Try", "TryStar"):
            for h in n.handlers:  # handlers are parsed (and must be parseable) but dropped
                self.body(h.body)
            self.body(n.orelse)
            self.body(n.finalbody)
            return "(try%s%s)" % (L, self.body(n.body))
        if t is ast.ClassDef:
            if getattr(n, "type_params", None):
                raise Unsupported("type params")
            return "(class%s %s (bases%s) (decorators%s)%s)" % (
                L, n.name, self.exprs(b for b in n.bases if type(b) is not ast.Starred),
                self.exprs(n.decorator_list),
                self.body(n.body))
        raise Unsupported(t.__name__)

    def key(self, n):
        """Where tilec puts a top-level statement: a decorated one that fails starts at '@'."""
        return n.lineno, n.col_offset + 1

    def at_key(self, n):
        decos = getattr(n, "decorator_list", None)
        if not decos:
            return self.key(n)
        d = decos[0]
        line = self.lines[d.lineno - 1]
        col = line.rfind(b"@", 0, d.col_offset)
        return d.lineno, col + 1


COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*(?!utf-?8\b)[-\w.]+", re.M | re.I)


def tilec_dump(binary, path):
    r = subprocess.run([binary, "--dump", "--locs", path], capture_output=True)
    out = r.stdout.decode("utf-8", "replace")
    if out.startswith("FATAL"):
        return None, out
    stmts, bad = {}, {}
    last = None
    for line in out.split("\n"):
        m = re.match(r"^(\d+):(\d+) (.*)$", line)
        if m:
            last = (int(m.group(1)), int(m.group(2)))
            # CPython folds identifiers to NFKC; non-ASCII outside identifiers is escaped
            stmts[last] = unicodedata.normalize("NFKC", m.group(3))
        elif last is not None and last not in bad and line:
            bad[last] = line
    return stmts, bad


def check_file(binary, path, stats, problems):
    source = open(path, "rb").read()
    try:
        source.decode("utf-8")
        if COOKIE.search(b"\n".join(source.split(b"\n")[:2])):
            raise ValueError("tilec reads UTF-8 only")
        tree = ast.parse(source, path)
    except (SyntaxError, ValueError, UnicodeDecodeError):
        stats["skipped"] += 1
        return
    stats["files"] += 1
    mine, bad = tilec_dump(binary, path)
    if mine is None:
        problems.append("%s: fatal: %s" % (path, bad.strip()))
        return
    d = Dumper(source)
    for n in tree.body:
        stats["stmts"] += 1
        try:
            want, why = d.stmt(n), None
        except Unsupported as e:
            want, why = None, str(e)
        key = d.key(n) if want is not None else d.at_key(n)
        got = mine.get(key) or mine.get(d.at_key(n))
        if got is None:
            stats["swallowed"] += 1
            continue
        if got.startswith("(bad"):
            if want is None:
                stats["bad_expected"] += 1
            else:
                problems.append("%s:%d:%d: tilec rejects what CPython accepts: %s" %
                                (path, key[0], key[1], bad.get(d.at_key(n), "")))
            continue
        if want is None:
            problems.append("%s:%d:%d: tilec accepts a %s" % (path, key[0], key[1], why))
        elif got != want:
            i = next(i for i in range(min(len(got), len(want)) + 1)
                     if got[i:i + 1] != want[i:i + 1])
            lo = max(0, i - 60)
            problems.append("%s:%d:%d: differs\n  tilec:   ...%s\n  cpython: ...%s" %
                            (path, key[0], key[1], got[lo:i + 60], want[lo:i + 60]))
        else:
            stats["equal"] += 1


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary = sys.argv[1]
    paths = []
    for p in sys.argv[2:]:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                paths += [os.path.join(root, f) for f in sorted(files) if f.endswith(".py")]
        else:
            paths.append(p)
    stats = dict(files=0, skipped=0, stmts=0, equal=0, bad_expected=0, swallowed=0)
    problems = []
    for p in paths:
        check_file(binary, p, stats, problems)
    for pr in problems:
        print(pr)
    print("%(files)d files (%(skipped)d skipped), %(stmts)d top-level statements: %(equal)d "
          "identical, %(bad_expected)d rejected as expected, %(swallowed)d inside an "
          "earlier bad statement" % stats, "- %d problems" % len(problems))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
