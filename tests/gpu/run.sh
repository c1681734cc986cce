#!/usr/bin/env bash
# tests/gpu/run.sh - tests the CUDA target on a machine with an NVIDIA GPU, in one go:
#   1. build (make) and run the unit tests (BUILD/tests/test_*), and build (nvcc) and run
#      tests/gpu/gemm_template_test.cu (tl_cuda.h's tensor-core GEMM and cp.async)
#   2. every example with `tilec run --target cuda --check` (the C target is the
#      reference) at sizes that divide the tiles and sizes that do not
#   3. the NumPy-referenced execution tests on the cuda target (TILEC_TARGET=cuda pytest:
#      the examples, the raw wgmma of test_wgmma_raw.py on sm_90a, grid and cluster
#      barriers, the T names' tests, float32 gemms on TF32 tensor cores, T.gemm_sp),
#      when pytest is installed; tests/gpu/test_torch_gpu.py (tilec kernels as torch custom
#      ops under torch.compile and in CUDA graphs, do_bench's backends) and
#      tests/gpu/test_gemm_sp_gpu.py (T.gemm_sp on mma.sp, TileLang's example kernel) when
#      torch has CUDA
#   4. the small cases again under compute-sanitizer --tool memcheck and --tool racecheck,
#      when compute-sanitizer is installed
# Prints one line per case (PASS/FAIL/SKIP name) and ends with "N passed, N failed";
# exits 1 if anything failed. Logs (one file per case, the build, results.txt) go to
# BUILD/gpu-logs, and all of them to gpu-logs.tar.gz beside it. With OUT set (a device
# run, from which few files come back) the logs go to a folder under /tmp and $OUT gets
# only gpu-logs.tar.gz and results.txt, also when the run is cut short (TERM, a timeout).
#
#   make check-gpu              or   tests/gpu/run.sh [--no-sanitizer] [--no-pytest]
#   tests/gpu/run.sh --build-only   only step 1's build (for bench/ on a GPU machine)
# Environment: BUILD (default build), JOBS (make -j, default: all cores), GPU_JOBS (cases
# run at once, default: half the cores, at most 8), TILEC (the binary, default BUILD/tilec),
# COMPUTE_SANITIZER (path of compute-sanitizer), NVCC (path of nvcc), TILEC_CUDA_ARCH
# (passed through; also nvcc's -arch, default sm_90a).
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
LOGS=$BUILD/gpu-logs
[ -n "${OUT:-}" ] && LOGS=/tmp/tilec-run/gpu-logs
TILEC=${TILEC:-$ROOT/$BUILD/tilec}
CASE_TIMEOUT=${CASE_TIMEOUT:-600}
SANITIZE=1
PYTEST=1
BUILD_ONLY=0
for a in "$@"; do
    case "$a" in
    --no-sanitizer) SANITIZE=0 ;;
    --no-pytest) PYTEST=0 ;;
    --build-only) BUILD_ONLY=1 ;;
    *) echo "usage: $0 [--no-sanitizer] [--no-pytest] [--build-only]" >&2; exit 2 ;;
    esac
done
mkdir -p "$LOGS"
LOGS=$(cd "$LOGS" && pwd) || exit 2
rm -f "$LOGS/results.txt"
# One file that holds every log, for tools that bring back a few files only; written on
# any exit (the end, an error, TERM from a timeout).
pack_logs() {
    tar -czf "$LOGS.tar.gz" --exclude=cache --exclude=compat -C "$(dirname "$LOGS")" \
        "$(basename "$LOGS")" 2>/dev/null
    if [ -n "${OUT:-}" ]; then
        cp "$LOGS.tar.gz" "$OUT/gpu-logs.tar.gz" 2>/dev/null
        cp "$LOGS/results.txt" "$OUT/results.txt" 2>/dev/null
    fi
}
trap pack_logs EXIT
trap 'exit 143' TERM
# A fresh kernel cache: every case compiles what it tests, and the sanitizer runs then
# load the same kernels from the cache.
export TILEC_CACHE_DIR=$LOGS/cache
rm -rf "$TILEC_CACHE_DIR"

passed=0
failed=0
fail_names=()

# result NAME STATUS LOG: one line per case, the log's tail on failure.
result() {
    if [ "$2" -eq 0 ]; then
        passed=$((passed + 1))
        echo "PASS $1" | tee -a "$LOGS/results.txt"
    else
        failed=$((failed + 1))
        fail_names+=("$1")
        echo "FAIL $1 (exit $2; log: $3)" | tee -a "$LOGS/results.txt"
        tail -n 15 "$3" | sed 's/^/    | /'
    fi
}

# log file name for a case name
log_of() { echo "$LOGS/$(printf '%s' "$1" | tr -c 'A-Za-z0-9_.-' '_' | tr -s '_').log"; }

# ---- 0. headers the build needs ----------------------------------------------------------
# The library includes <dlpack/dlpack.h> and <xxhash.h> (libdlpack-dev, libxxhash-dev). A
# GPU machine without them and without a network often has copies that Python packages
# ship (DLPack: torch, cupy, cuda-python; xxHash: pyarrow): they are copied to
# LOGS/compat and xxHash is used header-only (XXH_INLINE_ALL), with an empty stand-in for
# -lxxhash that --as-needed leaves out of the binaries.
# shellcheck disable=SC2086  # CFLAGS is a list of words
compiles() { printf '%s\n' "$1" | cc ${CFLAGS:-} -E -x c - >/dev/null 2>&1; }

# find_header NAME MUST_CONTAIN: the first such file under the Python and /opt prefixes.
find_header() {
    local dirs
    dirs=$(python3 -c 'import site, sys; print("\n".join(site.getsitepackages() + [sys.prefix]))' \
        2>/dev/null)
    # shellcheck disable=SC2086  # one directory per word
    find $dirs /opt /usr/local -name "$1" -type f 2>/dev/null | while read -r f; do
        if grep -q "$2" "$f" && ! grep -q '#include "arrow' "$f"; then echo "$f"; break; fi
    done
}

compat_headers() {
    local dir=$LOGS/compat h
    CFLAGS=${CFLAGS:-}
    LDFLAGS=${LDFLAGS:-}
    if ! compiles '#include <dlpack/dlpack.h>'; then
        h=$(find_header dlpack.h kDLCUDA)
        [ -n "$h" ] || return 1
        mkdir -p "$dir/include/dlpack" && cp "$h" "$dir/include/dlpack/dlpack.h"
        CFLAGS="$CFLAGS -I$dir/include"
        echo "note: using $h as <dlpack/dlpack.h>"
    fi
    if ! printf 'int main(void){return 0;}\n' | cc -x c - -lxxhash -o /dev/null 2>/dev/null; then
        mkdir -p "$dir/lib" && cc -shared -o "$dir/lib/libxxhash.so" -x c /dev/null
        CFLAGS="$CFLAGS -DXXH_INLINE_ALL"
        LDFLAGS="$LDFLAGS -L$dir/lib -Wl,--as-needed"
    fi
    if ! compiles '#include <xxhash.h>'; then
        h=$(find_header xxhash.h XXH3_128bits_digest)
        [ -n "$h" ] || return 1
        mkdir -p "$dir/include" && cp "$h" "$dir/include/xxhash.h"
        case "$CFLAGS" in *XXH_INLINE_ALL*) ;; *) CFLAGS="$CFLAGS -DXXH_INLINE_ALL" ;; esac
        CFLAGS="$CFLAGS -I$dir/include"
        echo "note: using $h as <xxhash.h> (header-only)"
    fi
    export CFLAGS LDFLAGS
}

# ---- 1. build and unit tests -------------------------------------------------------------
if ! compat_headers; then
    echo "FAIL build: <dlpack/dlpack.h> or <xxhash.h> not found: install libdlpack-dev and" \
        "libxxhash-dev"
    echo "$passed passed, 1 failed"
    exit 1
fi
echo "== build ($BUILD, -j$JOBS)"
if ! make -j"$JOBS" BUILD="$BUILD" all >"$LOGS/build.log" 2>&1; then
    result "build" 1 "$LOGS/build.log"
    echo "$passed passed, $failed failed"
    exit 1
fi
result "build" 0 "$LOGS/build.log"
if [ "$BUILD_ONLY" -eq 1 ]; then echo "$passed passed, $failed failed"; exit 0; fi
"$TILEC" info | tee "$LOGS/info.txt"
if ! grep -q "^  cuda  available" "$LOGS/info.txt"; then
    echo "FAIL the cuda target is not available on this machine (see above)"
    echo "$passed passed, $((failed + 1)) failed"
    exit 1
fi

echo "== unit tests"
make -k -j"$JOBS" BUILD="$BUILD" unit >"$LOGS/build-unit.log" 2>&1
for src in tests/unit/test_*.c; do
    t=$BUILD/tests/$(basename "$src" .c)
    name="unit $(basename "$t")"
    log=$(log_of "$name")
    if [ ! -x "$t" ]; then
        grep -A5 "$(basename "$src")" "$LOGS/build-unit.log" >"$log"
        result "$name (does not build)" 1 "$log"
        continue
    fi
    timeout "$CASE_TIMEOUT" "$t" >"$log" 2>&1
    result "$name" $? "$log"
done

# ---- 1b. tl_cuda.h's tensor-core templates (tl_gemm_ss/rs, cp.async), built by nvcc ------
NVCC=${NVCC:-}
if [ -z "$NVCC" ]; then
    for c in nvcc "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" /usr/local/cuda/bin/nvcc; do
        if command -v "$c" >/dev/null 2>&1; then NVCC=$(command -v "$c"); break; fi
    done
fi
if [ -n "$NVCC" ]; then
    echo "== tensor-core GEMM templates (tests/gpu/gemm_template_test.cu)"
    name="gemm_template_test"
    log=$(log_of "$name")
    bin=$LOGS/gemm_template_test
    { "$NVCC" -arch="${TILEC_CUDA_ARCH:-sm_90a}" -O2 -o "$bin" tests/gpu/gemm_template_test.cu &&
        timeout "$CASE_TIMEOUT" "$bin"; } >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && ! grep -q "^[0-9]* passed, 0 failed$" "$log"; then rc=99; fi
    result "$name" $rc "$log"
else
    echo "SKIP tests/gpu/gemm_template_test.cu: nvcc not found (set NVCC)"
fi

# ---- 2. examples on the GPU against the C target -----------------------------------------
# FILE|DEFINES|SMALL (1: also run under the sanitizers). Sizes from tests/exec: the first
# of each kernel divides its tiles, the others do not (or use other tile shapes).
CASES=$(cat <<'EOF'
gemm.py||0
gemm.py|-D M=128 -D N=128 -D K=64|1
gemm.py|-D M=100 -D N=72 -D K=50|1
gemm.py|-D M=100 -D N=72 -D K=50 -D trans_B=True|0
gemm.py|-D M=128 -D N=64 -D K=96 -D trans_A=True|0
gemm.py|-D M=70 -D N=100 -D K=40 -D trans_A=True -D trans_B=True|1
gemm.py|-DM=96 -DN=80 -DK=64 -Dblock_M=32 -Dblock_N=16 -Dblock_K=16 -Dnum_stages=3|0
gemm.py|-DM=96 -DN=80 -DK=64 -Dblock_M=32 -Dblock_N=16 -Dout_dtype=float32|0
gemm.py|-D M=1024 -D N=1024 -D K=1024|0
gemm.py|-D M=512 -D N=384 -D K=320 -D block_M=128 -D block_N=128 -D block_K=64 -D num_stages=3|1
gemm.py|-D M=200 -D N=256 -D K=192 -D block_M=128 -D block_N=256 -D block_K=64 -D threads=256|0
gemm.py|-D M=256 -D N=128 -D K=160 -D block_M=128 -D block_N=64 -D block_K=32 -D trans_B=True -D in_dtype="bfloat16" -D out_dtype="bfloat16"|1
gemm.py|-D M=192 -D N=128 -D K=128 -D block_M=64 -D block_N=128 -D block_K=64 -D trans_B=True -D threads=256|0
gemm.py|-D M=200 -D N=136 -D K=200 -D block_M=128 -D block_N=128 -D block_K=64 -D num_stages=4|1
gemm.py|-D M=264 -D N=200 -D K=328 -D block_M=128 -D block_N=64 -D block_K=32 -D trans_B=True -D in_dtype="bfloat16" -D out_dtype="bfloat16" -D num_stages=3|0
gemm.py|-D M=200 -D N=136 -D K=200 -D block_M=128 -D block_N=128 -D block_K=64 -D num_stages=3 -D shared_epilogue=True|1
gemm.py|-D M=1024 -D N=1024 -D K=1024 -D block_M=256 -D block_N=128 -D block_K=64 -D num_stages=3 -D threads=256 -D shared_epilogue=True|0
gemm.py|-D M=1000 -D N=900 -D K=1024 -D block_M=256 -D block_N=128 -D block_K=64 -D num_stages=4 -D threads=256 -D shared_epilogue=True|0
gemm.py|-D M=200 -D N=136 -D K=328 -D block_M=128 -D block_N=128 -D block_K=128 -D num_stages=2 -D threads=256|1
gemm.py|-D M=264 -D N=200 -D K=328 -D block_M=128 -D block_N=64 -D block_K=128 -D trans_B=True -D in_dtype="bfloat16" -D out_dtype="bfloat16" -D num_stages=3|1
gemm.py|-D M=1024 -D N=1024 -D K=1024 -D block_M=128 -D block_N=256 -D block_K=128 -D num_stages=2 -D threads=256 -D trans_B=True|0
gemm.py|-D M=1000 -D N=1000 -D K=2048 -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 -D shared_epilogue=True|0
gemm.py|-D M=1000 -D N=1000 -D K=2000 -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 -D trans_B=True -D in_dtype="bfloat16" -D out_dtype="bfloat16"|0
gemm.py|-D M=200 -D N=300 -D K=1000 -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 -D shared_epilogue=True|1
gemm_fp8.py||0
gemm_fp8.py|-D M=200 -D N=136 -D K=592 -D block_K=256 -D num_stages=2|1
gemm_fp8.py|-D M=200 -D N=136 -D K=328 -D b_dtype="float8_e5m2"|1
gemm_fp8.py|-D M=264 -D N=200 -D K=328 -D block_N=64 -D shared_epilogue=True|1
gemm_fp8.py|-D M=512 -D N=384 -D K=512 -D block_M=256 -D threads=256 -D num_stages=4|0
gemm_fp8.py|-D M=1000 -D N=900 -D K=1024 -D block_M=256 -D block_N=128 -D threads=256 -D num_stages=4 -D shared_epilogue=True|0
gemm_fp8.py|-D M=1000 -D N=1000 -D K=4096 -D block_N=256 -D threads=256 -D num_stages=3 -D shared_epilogue=True|0
gemm_fp8.py|-D M=192 -D N=256 -D K=192 -D block_N=256 -D block_K=64 -D in_dtype="float8_e5m2" -D out_dtype="float16"|1
gemm.py|-D M=256 -D N=256 -D K=256 -D in_dtype="int8" -D out_dtype="int32" -D accum_dtype="int32"|0
gemm.py|-D M=100 -D N=72 -D K=80 -D trans_A=True -D trans_B=True -D in_dtype="int8" -D out_dtype="int32" -D accum_dtype="int32"|1
gemm.py|-D M=264 -D N=200 -D K=320 -D block_M=128 -D block_N=128 -D block_K=64 -D num_stages=3 -D trans_B=True -D in_dtype="int8" -D out_dtype="int32" -D accum_dtype="int32"|0
gemm_operands.py||0
gemm_operands.py|-D M=100 -D N=72 -D K=50 -D trans_A=True -D trans_B=True -D a_frag=True|1
gemm_operands.py|-D M=70 -D N=100 -D K=40 -D trans_B=True -D a_frag=True -D b_frag=True|1
gemm_operands.py|-D M=264 -D N=200 -D K=328 -D block_M=128 -D block_N=128 -D block_K=64 -D num_stages=3|0
gemm_operands.py|-D M=264 -D N=200 -D K=328 -D block_M=128 -D block_N=128 -D block_K=64 -D num_stages=3 -D a_frag=True -D b_frag=False|1
gemm_operands.py|-D M=200 -D N=136 -D K=328 -D block_M=128 -D block_N=128 -D block_K=128 -D trans_B=True -D a_frag=True -D b_frag=False -D threads=256|1
gemm_operands.py|-D M=200 -D N=136 -D K=200 -D block_M=128 -D block_N=128 -D block_K=64 -D trans_B=True -D a_frag=True -D b_frag=False -D in_dtype="bfloat16" -D out_dtype="bfloat16"|1
gemm_warp_specialized.py||0
gemm_warp_specialized.py|-D M=200 -D N=136 -D K=200|1
gemm_warp_specialized.py|-D M=128 -D N=128 -D K=64 -D num_stages=2|1
gemm_warp_specialized.py|-D M=130 -D N=250 -D K=100 -D num_stages=4 -D dtype="bfloat16"|1
gemm_warp_specialized.py|-D M=1024 -D N=1024 -D K=1024 -D block_N=256 -D num_stages=4|0
gemm_warp_specialized.py|-D M=200 -D N=136 -D K=200 -D async_wgmma=True|1
gemm_warp_specialized.py|-D M=128 -D N=128 -D K=64 -D num_stages=2 -D async_wgmma=True|1
gemm_warp_specialized.py|-D M=1000 -D N=900 -D K=1024 -D block_N=256 -D num_stages=4 -D async_wgmma=True|0
elementwise_add.py||0
elementwise_add.py|-D M=128 -D N=256|1
elementwise_add.py|-D M=100 -D N=130|1
softmax.py||0
softmax.py|-D M=100 -D N=256 -D block_M=8|1
softmax.py|-D M=37 -D N=1024 -D block_M=4|0
softmax.py|-D M=20 -D N=1000 -D block_M=8|1
rms_norm.py||0
rms_norm.py|-D M=102 -D N=256 -D blk_m=4|1
rms_norm.py|-D M=33 -D N=384 -D blk_m=8|0
reduce.py||0
reduce.py|-D M=256 -D N=128 -D op="max" -D dim=0|0
reduce.py|-D M=100 -D N=72 -D op="sum" -D dim=0|1
reduce.py|-D M=100 -D N=72 -D op="max" -D dim=1|1
reduce.py|-D M=100 -D N=72 -D op="min" -D dim=1|0
reduce.py|-D M=64 -D N=96 -D op="abssum" -D dim=0|0
reduce.py|-D M=64 -D N=96 -D op="absmax" -D dim=1|0
cumsum.py||0
cumsum.py|-D M=128 -D N=128 -D dim=0 -D reverse=True|0
cumsum.py|-D M=100 -D N=72 -D dim=0|1
cumsum.py|-D M=100 -D N=72 -D dim=1 -D reverse=True|1
cumsum.py|-D M=13 -D N=64 -D block_M=8 -D block_N=64 -D scope="shared"|1
cumsum.py|-D M=37 -D N=40 -D block_M=16 -D block_N=32 -D dim=0 -D reverse=True -D scope="shared"|1
../tests/exec/kernels/lang_tail.py||1
../tests/exec/kernels/lang_tail.py|-D M=37 -D N=50 -D bm=16 -D bn=64|1
flash_attention.py||0
flash_attention.py|-D is_causal=True|1
flash_attention.py|-D seq_len=256 -D dim=128 -D is_causal=True|1
flash_attention.py|-D batch=2 -D heads=1 -D seq_len=100 -D dim=32|1
flash_attention.py|-D batch=2 -D heads=1 -D seq_len=100 -D dim=32 -D is_causal=True|0
flash_attention.py|-D seq_len=96 -D is_causal=True -D block_M=32 -D block_N=64 -D num_stages=2|0
flash_attention.py|-D num_stages=2 -D is_causal=True|1
flash_attention.py|-D batch=2 -D heads=1 -D seq_len=100 -D dim=32 -D num_stages=2|1
flash_attention.py|-D seq_len=256 -D dim=128 -D num_stages=3|0
flash_attention.py|-D seq_len=200 -D dim=128 -D num_stages=2 -D is_causal=True|1
flash_attention.py|-D seq_len=256 -D dim=128 -D num_stages=2 -D block_M=128 -D block_N=128 -D threads=256|0
flash_attention.py|-D seq_len=256 -D dim=128 -D num_stages=2 -D block_M=128 -D block_N=64 -D threads=256 -D is_causal=True|1
flash_attention.py|-D seq_len=256 -D dim=128 -D num_stages=2 -D block_M=128 -D block_N=128 -D threads=256 -D overlap=True|1
flash_attention.py|-D seq_len=200 -D dim=64 -D num_stages=2 -D block_M=128 -D block_N=64 -D threads=256 -D is_causal=True -D overlap=True|1
flash_attention.py|-D batch=2 -D heads=1 -D seq_len=100 -D dim=32 -D num_stages=2 -D overlap=True|0
mla_decode.py||1
mla_decode.py|-D num_split=1|0
mla_decode.py|-D batch=1 -D heads=32 -D seqlen_kv=512 -D block_N=64 -D num_split=4|0
gemm.py|-D M=100 -D N=72 -D K=56 -D in_dtype="float32" -D out_dtype="float32"|1
gemm.py|-D M=256 -D N=256 -D K=512 -D block_M=128 -D block_N=128 -D block_K=32 -D trans_A=True -D in_dtype="float32" -D out_dtype="float32"|0
gemm_operands.py|-D M=100 -D N=72 -D K=56 -D trans_B=True -D a_frag=True -D b_frag=True -D in_dtype="float32" -D out_dtype="float32"|1
../tests/exec/kernels/gemm_tf32.py||1
../tests/exec/kernels/gemm_tf32.py|-D ta=True -D tb=True|1
../tests/exec/kernels/gemm_tf32.py|-D rs=True -D tb=True -D M=256 -D N=128 -D K=512 -D bm=64 -D bn=64 -D bk=32|0
../tests/unit/kernels/gemm_tf32.py||1
../tests/unit/kernels/mhc_pre.py|-D num_tokens=200|1
../tests/unit/kernels/mhc_pre.py|-D num_tokens=4096 -D hc_hidden_size=16384|0
../tests/unit/kernels/grid_sync.py||1
../tests/unit/kernels/grid_sync.py|-D G=132 -D N=256|0
../tests/unit/kernels/grid_sync.py|-D G=264 -D N=32|0
../tests/unit/kernels/cluster.py||1
../tests/unit/kernels/cluster.py|-D GX=16 -D GY=8 -D N=128|0
../tests/unit/kernels/mla_decode.py|-D dim=512 -D pe_dim=64 -D seqlen_kv=256|1
../tests/unit/kernels/mla_persistent.py||1
../tests/unit/kernels/mla_persistent.py|-D sm_num=132 -D batch=8 -D heads=128 -D seqlen_kv=512 -D num_split=4|0
../tests/unit/kernels/wmma_gemm.py||1
../tests/unit/kernels/wmma_gemm.py|-D A_COL=True -D B_COL=False -D C_COL=True -D BIAS=True -D WARPS=4 -D M=256 -D N=128 -D K=256|0
../tests/unit/kernels/frag_prefix.py||1
../tests/unit/kernels/wgmma_shared.py||1
../tests/unit/kernels/mixed_gemms.py||1
../tests/unit/kernels/mixed_gemms.py|-D DQK=128|1
../tests/unit/kernels/local_views.py||1
../tests/unit/kernels/big_grid.py||0
../tests/unit/kernels/gemm_s4.py||1
../tests/unit/kernels/gemm_s4.py|-D M=256 -D N=256 -D K=512|0
../tests/unit/kernels/int4_elems.py||1
../tests/unit/kernels/mma_sm70.py||1
../tests/unit/kernels/mma_sm70.py|-D A_COL=True -D B_COL=True -D CT="float16"|1
../tests/unit/kernels/cluster_mbar.py||1
../tests/unit/kernels/ping_pong.py||1
EOF
)

# run_case PREFIX FILE DEFINES [WRAPPER...]: [WRAPPER] tilec run --target cuda --check,
# in the background, at most GPU_JOBS cases at once (the C reference of each runs on the
# CPU; the kernel cache is safe to share); flush_cases waits for them and reports them in
# the order they were started. DEFINES is split on blanks; quotes stay (tilec reads
# -D op="max" as a Python literal).
GPU_JOBS=${GPU_JOBS:-$(($(nproc 2>/dev/null || echo 2) / 2))}
[ "$GPU_JOBS" -ge 1 ] || GPU_JOBS=1
[ "$GPU_JOBS" -le 8 ] || GPU_JOBS=8
STARTED=()
run_case() {
    local prefix=$1 file=$2 defs=$3
    shift 3
    local -a words=()
    read -ra words <<<"$defs"
    local name="$prefix $file${defs:+ $defs}" log
    log=$(log_of "$name")
    local -a cmd=("$@" "$TILEC" run "examples/$file" --target cuda --check
        ${words[@]+"${words[@]}"})
    while [ "$(jobs -rp | wc -l)" -ge "$GPU_JOBS" ]; do wait -n 2>/dev/null || sleep 0.2; done
    rm -f "$log.rc"
    (
        echo "\$ ${cmd[*]}" >"$log"
        timeout "$CASE_TIMEOUT" "${cmd[@]}" >>"$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && ! grep -q "^check: OK" "$log"; then rc=99; fi
        echo "$rc" >"$log.rc"
    ) &
    STARTED+=("$name")
}

flush_cases() {
    wait
    local name log
    for name in ${STARTED[@]+"${STARTED[@]}"}; do
        log=$(log_of "$name")
        result "$name" "$(cat "$log.rc" 2>/dev/null || echo 98)" "$log"
        rm -f "$log.rc"
    done
    STARTED=()
}

echo "== examples: --target cuda --check ($GPU_JOBS at once)"
while IFS='|' read -r file defs small; do
    [ -n "$file" ] || continue
    run_case "check" "$file" "$defs"
done <<<"$CASES"
flush_cases

# run_variant PREFIX "FILE..." KEY=1: the small cases of those files again with the
# setting KEY=1 (tilec --set; `tilec help settings`).
run_variant() {
    local prefix=$1 files=" $2 " setting=$3 file defs small
    while IFS='|' read -r file defs small; do
        case "$files" in *" $file "*) ;; *) continue ;; esac
        [ "$small" = 1 ] || continue
        case "$setting$defs" in no_wgmma=1*async_wgmma=True*) continue ;; esac # wgmma only
        run_case "$prefix" "$file" "$defs${defs:+ }--set $setting"
    done <<<"$CASES"
}

echo "== examples: --target cuda --check, mma.sync instead of wgmma"
run_variant check-mma \
    "gemm.py gemm_fp8.py gemm_operands.py flash_attention.py gemm_warp_specialized.py" no_wgmma=1
flush_cases
echo "== examples: --target cuda --check, cp.async instead of TMA and warp specialization"
run_variant check-nows "gemm.py gemm_fp8.py" no_ws=1
flush_cases
echo "== examples: --target cuda --check, one tile per block instead of a persistent grid"
run_variant check-nopersist "gemm.py gemm_fp8.py" no_persistent=1
flush_cases
echo "== examples: --target cuda --check, 2-block clusters with TMA multicast"
run_variant check-cluster "gemm.py gemm_fp8.py" cluster=1
flush_cases
echo "== examples: --target cuda --check, warp-group ping-pong (--set pingpong=1)"
run_variant check-pingpong "flash_attention.py" pingpong=1
flush_cases

# A view that does not start on a 16-byte boundary, passed to a kernel that reads its
# tensors in 16-byte vectors: an argument error naming the parameter, not a fault.
if python3 -c "import torch" 2>/dev/null; then
    echo "== misaligned tensor view"
    name="misaligned view"
    log=$(log_of "$name")
    PYTHONPATH=python TILEC_LIBRARY=$ROOT/$BUILD/libtilec.so TILEC_AS_TILELANG=1 \
        timeout "$CASE_TIMEOUT" python3 - >"$log" 2>&1 <<'PY'
import importlib.util, torch
import tilec.compat.tilelang_shim  # noqa: F401  (examples import tilelang)
spec = importlib.util.spec_from_file_location("ea", "examples/elementwise_add.py")
ea = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ea)
k = ea.elementwise_add(M=64, N=64)
a = torch.randn(64 * 64 + 1, device="cuda", dtype=torch.float16)
b = torch.randn(64, 64, device="cuda", dtype=torch.float16)
k(a[:4096].view(64, 64), b)  # aligned: runs
try:
    k(a[1:].view(64, 64), b)
except Exception as e:
    assert "not 16-byte aligned" in str(e) and "'A'" in str(e), e
    print("ok:", e)
else:
    raise SystemExit("a misaligned view was accepted")
PY
    result "$name" $? "$log"
fi

echo "== --bench (timing runs, same kernels)"
for file in gemm.py softmax.py flash_attention.py; do
    name="bench $file"
    log=$(log_of "$name")
    timeout "$CASE_TIMEOUT" "$TILEC" run "examples/$file" --target cuda --bench >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && ! grep -q "median .* ms" "$log"; then rc=99; fi
    result "$name" $rc "$log"
    grep "median" "$log" | sed 's/^/    /'
done

# ---- 3. NumPy references on the GPU ------------------------------------------------------
if [ "$PYTEST" -eq 1 ] && python3 -c "import numpy, pytest" 2>/dev/null; then
    echo "== tests/exec on the cuda target (NumPy references)"
    xml=$LOGS/pytest-cuda.xml
    log=$LOGS/pytest-cuda.log
    TILEC_TARGET=cuda TILEC=$TILEC timeout 3600 python3 -m pytest -q -p no:cacheprovider \
        --junitxml="$xml" tests/exec/test_examples.py tests/exec/test_wgmma_raw.py \
        tests/exec/test_clusters.py tests/exec/test_math_names.py tests/exec/test_warp_votes.py \
        tests/exec/test_memory_names.py tests/exec/test_launch_shape.py \
        tests/exec/test_split_shared.py tests/exec/test_thread_level.py \
        tests/exec/test_vec_names.py tests/exec/test_misc_names.py tests/exec/test_wmma.py \
        tests/exec/test_gemm_tf32.py tests/exec/test_mma_intrinsics.py tests/exec/test_int4.py \
        tests/exec/test_mma_sm70.py tests/exec/test_cluster_mbar.py \
        tests/exec/test_regions_at_once.py tests/exec/test_gemm_sp.py \
        tests/exec/test_mma_sp.py >"$log" 2>&1
    # one line per test case, from the JUnit XML
    while IFS='|' read -r status name; do
        [ -n "$status" ] || continue
        result "pytest $name" "$status" "$log"
    done < <(python3 - "$xml" <<'PY'
import sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception as e:  # pytest did not get to write it
    print("1|tests/exec (no report: %s)" % e)
    sys.exit(0)
for case in root.iter("testcase"):
    bad = case.find("failure") is not None or case.find("error") is not None
    if case.find("skipped") is not None:
        continue
    print("%d|%s" % (1 if bad else 0, case.get("name")))
PY
)
else
    echo "SKIP tests/exec on the cuda target: python3 with numpy and pytest not found" \
        "(or --no-pytest)"
fi

# ---- 3b. PyTorch: custom ops under torch.compile and CUDA graphs ----------------------------
if [ "$PYTEST" -eq 1 ] && python3 -c "import torch, pytest; assert torch.cuda.is_available()" \
    2>/dev/null; then
    echo "== tests/gpu/test_torch_gpu.py (torch.compile, CUDA graphs, do_bench backends)"
    name="pytest tests/gpu/test_torch_gpu.py"
    log=$(log_of "$name")
    TILEC=$TILEC timeout 1800 python3 -m pytest -q -p no:cacheprovider \
        tests/gpu/test_torch_gpu.py tests/gpu/test_gemm_sp_gpu.py >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "skipped" "$log" && ! grep -q "passed" "$log"; then rc=99; fi
    result "$name" $rc "$log"
else
    echo "SKIP tests/gpu/test_torch_gpu.py: torch with CUDA or pytest not found (or --no-pytest)"
fi

# ---- 4. compute-sanitizer -------------------------------------------------------------------
SAN=${COMPUTE_SANITIZER:-}
if [ -z "$SAN" ]; then
    for c in compute-sanitizer "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
        /usr/local/cuda/bin/compute-sanitizer; do
        if command -v "$c" >/dev/null 2>&1; then SAN=$(command -v "$c"); break; fi
    done
fi
if [ "$SANITIZE" -eq 1 ] && [ -n "$SAN" ]; then
    for tool in memcheck racecheck; do
        echo "== compute-sanitizer --tool $tool (small sizes)"
        while IFS='|' read -r file defs small; do
            [ "$small" = 1 ] || continue
            run_case "$tool" "$file" "$defs" "$SAN" --tool "$tool" --error-exitcode 99 \
                --print-limit 20
        done <<<"$CASES"
        flush_cases
    done
else
    echo "SKIP compute-sanitizer: not found (set COMPUTE_SANITIZER) or --no-sanitizer"
fi

if [ "$failed" -gt 0 ]; then
    echo "failed:"
    printf '  %s\n' "${fail_names[@]}"
fi
echo "$passed passed, $failed failed" | tee -a "$LOGS/results.txt"
[ "$failed" -eq 0 ]
