"""Import hook that answers `import tilelang` with tilec's compatibility layer.

Installed next to the tilec package with a .pth file, so Python runs it at startup. It
costs one small object: tilec is imported only when `tilelang` is. The finder sits at
the END of sys.meta_path, after the ordinary path finders, so a real TileLang, where
installed, always wins; TILEC_AS_TILELANG=1 puts it first instead, and
TILEC_AS_TILELANG=0 leaves it out."""
import os
import sys


class _Finder:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "tilelang" and not name.startswith("tilelang."):
            return None
        import importlib.machinery
        from tilec.compat import modules
        if name not in modules():
            return None
        return importlib.machinery.ModuleSpec(name, _Loader(), is_package=True)


class _Loader:
    def create_module(self, spec):
        from tilec.compat import modules
        return modules()[spec.name]

    def exec_module(self, module):
        pass


def register():
    mode = os.environ.get("TILEC_AS_TILELANG", "")
    if mode == "0" or any(f is _Finder for f in sys.meta_path):
        return
    if mode == "1":
        sys.meta_path.insert(0, _Finder)
    else:
        sys.meta_path.append(_Finder)


register()
