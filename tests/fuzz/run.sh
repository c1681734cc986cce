#!/bin/sh
# run.sh - a short libFuzzer run of the harnesses `make fuzz` built (tests/fuzz/*.c).
#   tests/fuzz/run.sh [BUILD_DIR [SECONDS]]      defaults: build-fuzz 60
# Each harness runs SECONDS seconds from a fresh corpus seeded with examples/,
# tests/errors/, tests/golden/, tests/parse_corpus/ (front end) or tests/fuzz/npy/ (.npy
# reader; not the compile-time bombs, which take seconds each); one input may take at
# most 20 s and 2 GB. A crash, leak, sanitizer report or timeout stops the run with
# status 1 and leaves the input in BUILD_DIR/fuzz-artifacts/ (reproduce:
# BUILD_DIR/fuzz_frontend FILE).
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz}
secs=${2:-60}
art="$build/fuzz-artifacts"
mkdir -p "$art"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/frontend" "$work/npy"
for d in examples tests/errors tests/golden tests/parse_corpus; do
    for f in "$d"/*.py; do
        case "$f" in */bomb_*|*/work_limit.py) continue ;; esac # seconds each: no seeds
        cp "$f" "$work/frontend/$(echo "$d" | tr / _)_$(basename "$f")"
    done
done
cp tests/fuzz/npy/*.npy "$work/npy/"
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp"
export ASAN_OPTIONS="allocator_may_return_null=1"
status=0
for h in frontend npy; do
    echo "fuzz_$h: $secs s"
    if ! "$build/fuzz_$h" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$art/$h-" "$work/$h" \
        >"$work/$h.log" 2>&1; then
        status=1
        tail -n 60 "$work/$h.log"
        echo "fuzz_$h: FAILED (input saved in $art/)"
    else
        grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$work/$h.log" || true
    fi
done
exit $status
