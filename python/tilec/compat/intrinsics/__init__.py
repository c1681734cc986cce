"""tilec's own versions of TileLang's warp-level intrinsics helpers (the
`tilelang.cuda.intrinsics` / `tilelang.intrinsics` modules, and the `T` names TileLang
re-exports from them), one module per instruction family: mma.py (mma.sync: the
TensorCoreIntrinEmitter and its layout helpers).

Each module is TileLang-language source that both Python and libtilec's meta level run:
CPython imports it for the compatibility layer (compat/__init__.py maps TileLang's
module paths to its names), and libtilec embeds the file's text (Makefile,
build/gen/embedded_python.h) and runs it as a module for the command line and for the
`T.<name>` spellings. Adding a family: its file here (the Makefile embeds every *.py
but this one), its TileLang module paths in compat/__init__.py (_intrinsics_content),
and its T names in a TName table (src/frontend/tileops_mma.c's intrinsics_fns shows
how: each calls the embedded module's attribute). So the code keeps to what both evaluate: plain classes with
__init__, functions, arithmetic, T.* calls; no decorators, lambdas or imports (T, the
language module, is bound by the runner before the module runs: load()). Emitting methods (ldmatrix_a, mma, stmatrix, ...) run only inside a
kernel, where libtilec evaluates them."""


def load(name, language):
    """The module compat/intrinsics/<name>.py run with T bound to language."""
    import importlib.util
    import os
    import sys
    full = "%s.%s" % (__name__, name)
    if full in sys.modules:
        return sys.modules[full]
    path = os.path.join(os.path.dirname(__file__), name + ".py")
    spec = importlib.util.spec_from_file_location(full, path)
    module = importlib.util.module_from_spec(spec)
    module.T = language
    sys.modules[full] = module
    spec.loader.exec_module(module)
    return module
