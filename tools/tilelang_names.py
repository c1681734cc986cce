#!/usr/bin/env python3
"""Lists TileLang's kernel-author names: `tilelang.language.__all__` of an unpacked
TileLang release, resolved from its source text (no import: TileLang needs TVM's
libraries and a matching Python), without dtype spellings (T.float16, T.int8x4, ...,
which tilec answers from its dtype parser) and without the names TileLang takes from
TVM's script parser (tilelang/language/tir/common.py re-exports them unfiltered).

    tools/tilelang_names.py TILELANG_DIR > tools/tilelang_names.txt

TILELANG_DIR holds the `tilelang` package (bench/tilelang_wheels.sh unpacks one).
tools/gen_lang_table.py reads the list to show every TileLang name's status."""
import ast
import os
import re
import sys

DTYPE = re.compile(r"^(bool|short|int|uint|long|half|float|double|bfloat16|tfloat32|"
                   r"u?int\d+|float\d+(_\w+)?|\w+x\d+)$")
SKIP_MODULES = {"tilelang.language.tir.common"}  # TVM's script parser, re-exported


class Resolver:
    """Evaluates the module-level assignments that build __all__ (tuples, lists, sets,
    concatenation, dict.fromkeys, sorted, generator-free) and `from M import X as Y`."""

    def __init__(self, root):
        self.root, self.envs = root, {}

    def path(self, mod):
        p = os.path.join(self.root, *mod.split("."))
        return os.path.join(p, "__init__.py") if os.path.isdir(p) else p + ".py"

    def absolute(self, mod, level, name):
        if level == 0:
            return name
        parts = mod.split(".")
        if not self.path(mod).endswith("__init__.py"):
            parts = parts[:-1]
        parts = parts[:len(parts) - (level - 1)]
        return ".".join(parts + ([name] if name else []))

    def env(self, mod):
        if mod in SKIP_MODULES:
            return {"__all__": []}
        if mod in self.envs:
            return self.envs[mod]
        env = self.envs[mod] = {}
        if not os.path.exists(self.path(mod)):
            return env
        for node in ast.parse(open(self.path(mod)).read()).body:
            self.statement(mod, env, node)
        return env

    def statement(self, mod, env, node):
        if isinstance(node, ast.ImportFrom):
            src = self.env(self.absolute(mod, node.level, node.module))
            for a in node.names:
                if a.name in src:
                    env[a.asname or a.name] = src[a.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            try:
                value = self.value(node.value, env)
            except (KeyError, ValueError, TypeError):
                return
            for t in targets:
                if isinstance(t, ast.Name):
                    env[t.id] = value

    def value(self, n, env):
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, (ast.Tuple, ast.List, ast.Set)):
            out = []
            for e in n.elts:
                out += self.value(e.value, env) if isinstance(e, ast.Starred) else [self.value(e, env)]
            return out
        if isinstance(n, ast.Name):
            return env[n.id]
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.BitOr)):
            return list(dict.fromkeys(self.value(n.left, env) + self.value(n.right, env)))
        if isinstance(n, ast.Call):
            fn, args = ast.unparse(n.func), [self.value(a, env) for a in n.args]
            if fn in ("tuple", "list", "set", "frozenset", "dict.fromkeys"):
                return list(dict.fromkeys(args[0])) if args else []
            if fn == "sorted":
                return sorted(args[0])
        raise ValueError(ast.unparse(n))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    names = Resolver(sys.argv[1]).env("tilelang.language").get("__all__")
    if not names:
        sys.exit("%s: could not resolve tilelang.language.__all__" % sys.argv[1])
    dist = sorted(d for d in os.listdir(sys.argv[1]) if d.startswith("tilelang-"))
    print("# tilelang.language.__all__ of %s, less dtypes and TVM's parser names "
          "(tools/tilelang_names.py)" % (dist[0].replace(".dist-info", "") if dist else "TileLang"))
    for name in names:
        if not DTYPE.match(name):
            print(name)


if __name__ == "__main__":
    main()
