"""python -m tilec.compat SCRIPT [ARGS...]: runs a TileLang script with `import tilelang`
answered by tilec (as `python SCRIPT ARGS...` would run it otherwise)."""
import os
import runpy
import sys

from . import install


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) >= 2 else 2
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    install(force=True)
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
