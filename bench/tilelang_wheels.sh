#!/usr/bin/env bash
# bench/tilelang_wheels.sh - packs TileLang 0.1.15 for bench/side_by_side.py: downloads the
# wheels of tilelang==0.1.15 and of the dependencies a GPU machine with torch lacks
# (apache-tvm-ffi, z3-solver, torch-c-dlpack-ext; torch, numpy, ml-dtypes, cloudpickle,
# psutil and tqdm are expected there), unpacks them into one folder, drops what TileLang
# does not load at run time (C++ sources, z3's .data folder with its command-line binary,
# tests, __pycache__) and writes .tilelang/tilelang-0.1.15.tar.xz, whose one top folder,
# tilelang-0.1.15/, goes first on PYTHONPATH (.tilelang/ is git-ignored).
#
#   bench/tilelang_wheels.sh                    for this machine's Python (python3)
#   PYTHON_VERSION=3.12 bench/tilelang_wheels.sh    for another Python (the GPU machine runs
#                                                 3.12: seen on the H100, 2026-12-07)
#
# Needs pip with access to PyPI, unzip-capable python3 and xz. Nothing is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON_VERSION:-$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')}
NAME=tilelang-0.1.15
OUT=.tilelang/$NAME.tar.xz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$PY" \
    -d "$work/wheels" "tilelang==0.1.15" "apache-tvm-ffi<0.1.13" "z3-solver<4.15.5" \
    torch-c-dlpack-ext
site=$work/$NAME
mkdir -p "$site"
for w in "$work"/wheels/*.whl; do
    echo "unpacking $(basename "$w")"
    python3 -m zipfile -e "$w" "$site"
done
# What no import loads: C++ sources (the shared libraries are built from them), the data
# folder of z3's wheel (its z3 executable; the Python binding loads z3/lib/libz3.so),
# test folders (not tvm/testing: tilelang.testing imports it), byte-code caches.
find "$site/tilelang" -name '*.cc' -type f -delete
rm -rf "$site"/*.data
find "$site" -depth -type d \( -name tests -o -name __pycache__ \) -exec rm -rf {} +
mkdir -p .tilelang
tar -C "$work" --owner=0 --group=0 --sort=name -cf - "$NAME" | xz -T0 -9 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "wrote $OUT ($(du -h "$OUT" | cut -f1); unpacked $(du -sh "$site" | cut -f1)) for Python $PY"
