"""The `tilec` command of the Python package (pip install ./python installs it): runs the
tilec binary built with the package (tilec/bin/tilec), with the same arguments, exit
status and output as build/tilec (docs/cli.md)."""
import os
import sys
from pathlib import Path

BINARY = Path(__file__).resolve().parent / "bin" / "tilec"


def main():
    if not os.access(BINARY, os.X_OK):
        sys.stderr.write("error: this tilec package has no tilec binary (%s): it was built "
                         "from a prebuilt library (TILEC_LIBRARY) without TILEC_BINARY; "
                         "build the repository with `make` and use build/tilec\n" % BINARY)
        return 1
    os.execv(str(BINARY), [str(BINARY)] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
