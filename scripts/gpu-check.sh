#!/usr/bin/env bash
# GPU check: build spkit (release preset) on a machine with an NVIDIA GPU, run the GPU tests, run
# compute-sanitizer memcheck and racecheck over a small subset, optionally time the kernels, and
# print a short results table last.
#
#   scripts/gpu-check.sh prepare [DEPS]   on a machine with the Debian dev packages (the dev box):
#                                         copies what the GPU machine lacks into DEPS (default .deps)
#   scripts/gpu-check.sh [run] [--perf] [--spgemm-perf] [--deps DEPS] [--out DIR]
#                                         on the GPU machine, from the repository root
#   GPU_CHECK_FILTER / GPU_CHECK_MEMCHECK_FILTER narrow the GPU tests / the memcheck subset;
#   GPU_CHECK_RACECHECK_FILTER narrows racecheck, GPU_CHECK_RACECHECK=0 skips it; --spgemm-perf times the GPU SpGEMM kernels (CudaSpgemmPerf).
#   GPU_CHECK_PYTHON=1 also builds the Python package and runs pytest (GPU_CHECK_PYTEST_S: time limit,
#   GPU_CHECK_PYTEST_ARGS: which tests, GPU_CHECK_PYTEST_HANG_S: dump the stacks of a test hung that long).
#
# Why "prepare": the GPU machine has cmake, ninja, g++ and nvcc but no CLI11, fmt, nlohmann-json,
# GoogleTest or zlib headers, and cannot download. `prepare` gathers, from this machine's packages,
#   - the GoogleTest sources (/usr/src/googletest), built on the GPU machine into DEPS/gtest (~20 s),
#     so no binary crosses between distributions;
#   - the header-only CLI11 and nlohmann-json headers, and fmt's headers used header-only
#     (FMT_HEADER_ONLY), each with a minimal CMake package config in DEPS/prefix;
#   - zlib.h/zconf.h; the GPU machine's own runtime libz.so.1 is linked.
# Only what is missing there is used: anything find_package already finds wins.
set -uo pipefail

MODE=run
if [[ $# -gt 0 && ( $1 == prepare || $1 == run ) ]]; then MODE=$1; shift; fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEPS=$ROOT/.deps
OUT=${OUT:-$ROOT/gpu-check-out}
PERF=0
SPGEMM_PERF=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --perf) PERF=1 ;;
    --spgemm-perf) SPGEMM_PERF=1 ;;
    --deps) DEPS=$(realpath -m "$2"); shift ;;
    --out) OUT=$(realpath -m "$2"); shift ;;
    *) if [[ $MODE == prepare ]]; then DEPS=$(realpath -m "$1"); else echo "unknown argument: $1" >&2; exit 2; fi ;;
  esac
  shift
done

# ------------------------------------------------------------------------------------------------
if [[ $MODE == prepare ]]; then
  set -e
  mkdir -p "$DEPS/prefix/include" "$DEPS/prefix/lib/cmake"
  rm -rf "$DEPS/googletest-src" && cp -r /usr/src/googletest "$DEPS/googletest-src"
  cp -r /usr/include/CLI /usr/include/nlohmann /usr/include/fmt "$DEPS/prefix/include/"
  cp /usr/include/zlib.h /usr/include/zconf.h "$DEPS/prefix/include/"
  shim() {  # name target-name version extra-definitions
    local dir=$DEPS/prefix/lib/cmake/$1
    mkdir -p "$dir"
    cat >"$dir/$1Config.cmake" <<EOF
# Minimal package config written by scripts/gpu-check.sh prepare (headers copied from Debian).
if(NOT TARGET $2)
  add_library($2 INTERFACE IMPORTED)
  set_target_properties($2 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "\${CMAKE_CURRENT_LIST_DIR}/../../../include"
                        INTERFACE_COMPILE_DEFINITIONS "$4")
endif()
set($1_FOUND TRUE)
set($1_VERSION $3)
EOF
    cat >"$dir/$1ConfigVersion.cmake" <<EOF
set(PACKAGE_VERSION $3)
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
EOF
  }
  shim CLI11 CLI11::CLI11 2.3.2 ""
  shim nlohmann_json nlohmann_json::nlohmann_json 3.11.2 ""
  shim fmt fmt::fmt 9.1.0 "FMT_HEADER_ONLY=1"
  du -sh "$DEPS"
  echo "prepared $DEPS"
  exit 0
fi

# ------------------------------------------------------------------------------------------------
cd "$ROOT"
mkdir -p "$OUT"
LOG=$OUT/gpu-check.log
: >"$LOG"
declare -a RESULTS
record() { RESULTS+=("$(printf '%-34s %-6s %s' "$1" "$2" "$3")"); }
step() { echo; echo "=== $*" | tee -a "$LOG"; }
command -v nvcc >/dev/null || export PATH=$PATH:/usr/local/cuda/bin
JOBS=$(nproc)

step "device"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee -a "$LOG"
nvcc --version | tail -2 | tee -a "$LOG"

PREFIXES=""
if [[ -d $DEPS/prefix ]]; then
  if [[ ! -f $DEPS/gtest/lib/cmake/GTest/GTestConfig.cmake && ! -f $DEPS/gtest/lib64/cmake/GTest/GTestConfig.cmake ]]; then
    step "build GoogleTest from $DEPS/googletest-src"
    cmake -S "$DEPS/googletest-src" -B "$DEPS/gtest-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_INSTALL_PREFIX="$DEPS/gtest" -DBUILD_GMOCK=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON >>"$LOG" 2>&1 &&
      cmake --build "$DEPS/gtest-build" -j "$JOBS" >>"$LOG" 2>&1 && cmake --install "$DEPS/gtest-build" >>"$LOG" 2>&1
    [[ $? -eq 0 ]] && record "googletest from source" ok "" || record "googletest from source" FAIL "see log"
  fi
  PREFIXES="-DCMAKE_PREFIX_PATH=$DEPS/gtest;$DEPS/prefix"
  # zlib: the headers come from DEPS, the library is this machine's runtime libz.so.1 (if it has no dev link)
  if [[ ! -e /usr/include/zlib.h ]]; then
    LIBZ=$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ {print $NF; exit}')
    PREFIXES="$PREFIXES -DZLIB_INCLUDE_DIR=$DEPS/prefix/include -DZLIB_LIBRARY=$LIBZ"
  fi
fi

step "configure + build (release preset)"
start=$SECONDS
# shellcheck disable=SC2086
cmake --preset release $PREFIXES >>"$LOG" 2>&1 && cmake --build --preset release -j "$JOBS" >>"$LOG" 2>&1
if [[ $? -eq 0 ]]; then
  record "build (release preset)" ok "$((SECONDS - start)) s"
else
  record "build (release preset)" FAIL "see $LOG"
  tail -40 "$LOG"
  printf '\n%s\n' "${RESULTS[@]}"
  exit 1
fi
grep -E "spkit: CUDA" "$LOG" | tail -1
TESTS=$ROOT/build/release/tests/spkit_tests

run_gtest() {  # label filter [timeout] [prefix command...]
  local label=$1 filter=$2 limit=$3; shift 3
  local xml=$OUT/${label//[^A-Za-z0-9]/_}.txt
  start=$SECONDS
  timeout "$limit" "$@" "$TESTS" --gtest_filter="$filter" >"$xml" 2>&1
  local rc=$?
  local passed failed skipped
  passed=$(grep -c '^\[       OK \]' "$xml")
  failed=$(grep -c '^\[  FAILED  \] .*(' "$xml")
  skipped=$(grep -c '^\[  SKIPPED \] .*(' "$xml")
  local extra=""
  if grep -q "ERROR SUMMARY" "$xml"; then extra=", $(grep -m1 -o 'ERROR SUMMARY: [0-9]* errors*' "$xml")"; fi
  if grep -q "RACECHECK SUMMARY" "$xml"; then extra=", $(grep -m1 -o 'RACECHECK SUMMARY: [0-9]* hazards* displayed' "$xml")"; fi
  local status=ok
  [[ $rc -ne 0 ]] && status=FAIL
  [[ $rc -eq 124 ]] && extra="$extra, timed out after ${limit}s"
  record "$label" "$status" "$passed passed, $failed failed, $skipped skipped$extra ($((SECONDS - start)) s)"
  cat "$xml" >>"$LOG"
  grep -E '^\[  FAILED  \]|Failure|error:|Error|ERROR|hazard' "$xml" | head -20
}

step "GPU tests"
# GPU_CHECK_FILTER (or GPU_CHECK_GTEST_FILTER) narrows the run, e.g. 'PlanCuda.*'.
run_gtest "gtest: CUDA kernels + checks" "${GPU_CHECK_FILTER:-${GPU_CHECK_GTEST_FILTER:-*cuda*:*Cuda*}}" ${GPU_CHECK_TEST_S:-300}
if [[ ${GPU_CHECK_CPU_TESTS:-0} -eq 1 ]]; then
  step "CPU tests (sanity of the same binary)"
  run_gtest "gtest: everything else" '-*cuda*:*Cuda*' 600
fi

if [[ $PERF -eq 1 ]]; then
  step "timings (DISABLED perf test)"
  start=$SECONDS
  SPKIT_PERF_CSV=$OUT/cuda_perf.csv timeout ${GPU_CHECK_PERF_S:-300} "$TESTS" --gtest_also_run_disabled_tests \
    --gtest_filter='CudaPerf.*' >"$OUT/perf.txt" 2>&1
  rc=$?
  cat "$OUT/perf.txt" >>"$LOG"
  [[ $rc -eq 0 ]] && record "timings" ok "$((SECONDS - start)) s, $OUT/cuda_perf.csv" ||
    record "timings" FAIL "rc $rc ($((SECONDS - start)) s)"
  grep -E "^(device|bandwidth|stencil27_[0-9]+:|powerlaw:)" "$OUT/perf.txt"
  echo
  echo "best per matrix/precision (ok rows, by median time):"
  grep -E " ok " "$OUT/perf.txt" | sort -k1,1 -k2,2 -k3,3 -k5,5g | awk '{k=$1" "$2" "$3; if (!(k in s)) {s[k]=1; print}}'
fi

if [[ ${GPU_CHECK_PYTHON:-0} -eq 1 ]]; then
  # The Python package on the GPU: the extension built in the same tree, pytest over tests/python (the
  # CuPy/DLPack tests run here), then `pip install .` from this tree into a scratch folder, imported.
  step "python: build the extension, pytest tests/python, pip install ."
  start=$SECONDS
  # shellcheck disable=SC2086
  cmake --preset release -DSPKIT_BUILD_PYTHON=ON $PREFIXES >>"$LOG" 2>&1 &&
    cmake --build --preset release -j "$JOBS" --target _spkit spkit_python_sources >>"$LOG" 2>&1
  if [[ $? -ne 0 ]]; then
    record "python: build" FAIL "see $LOG"
  else
    PYTHONPATH=$ROOT/build/release/python timeout ${GPU_CHECK_PYTEST_S:-240} python3 -m pytest -v -rfEs --tb=short -p no:cacheprovider \
      -o faulthandler_timeout=${GPU_CHECK_PYTEST_HANG_S:-60} --durations=15 \
      --junitxml="$OUT/pytest.xml" ${GPU_CHECK_PYTEST_ARGS:-tests/python} >"$OUT/pytest.txt" 2>&1
    rc=$?
    cat "$OUT/pytest.txt" >>"$LOG"
    [[ $rc -eq 0 ]] && record "python: pytest" ok "$(tail -1 "$OUT/pytest.txt") ($((SECONDS - start)) s)" ||
      record "python: pytest" FAIL "rc $rc: $(tail -1 "$OUT/pytest.txt")"
    grep -E "FAILED|ERROR|Error|passed|failed" "$OUT/pytest.txt" | tail -40
    start=$SECONDS
    rm -rf build/release/pip-check
    python3 -m pip install -q --no-build-isolation --no-deps --target build/release/pip-check \
      -C build-dir=build/release -C cmake.define.SPKIT_BUILD_TESTS=ON . >>"$LOG" 2>&1 &&
      (cd build/release/pip-check && PYTHONPATH=$PWD python3 -c 'import spkit; print("pip install:", spkit.__file__, "cuda", spkit.cuda_compiled(), "gpus", spkit.gpu_count())') >"$OUT/pip.txt" 2>&1
    rc=$?
    cat "$OUT/pip.txt" | tee -a "$LOG"
    [[ $rc -eq 0 ]] && record "python: pip install ." ok "$((SECONDS - start)) s" || record "python: pip install ." FAIL "see $LOG"
  fi
fi

if [[ $SPGEMM_PERF -eq 1 ]]; then
  step "SpGEMM timings (DISABLED CudaSpgemmPerf tests)"
  start=$SECONDS
  SPKIT_SPGEMM_CSV=$OUT/spgemm_perf.csv SPKIT_SORT_CSV=$OUT/spgemm_sort.csv timeout ${GPU_CHECK_SPGEMM_PERF_S:-300} \
    "$TESTS" --gtest_also_run_disabled_tests --gtest_filter="${GPU_CHECK_SPGEMM_PERF_FILTER:-CudaSpgemmPerf.*}" \
    >"$OUT/spgemm_perf.txt" 2>&1
  rc=$?
  cat "$OUT/spgemm_perf.txt" >>"$LOG"
  [[ $rc -eq 0 ]] && record "SpGEMM timings" ok "$((SECONDS - start)) s, $OUT/spgemm_perf.csv" ||
    record "SpGEMM timings" FAIL "rc $rc ($((SECONDS - start)) s)"
  grep -E "^(device|sort |[a-z0-9_]+: )| ok " "$OUT/spgemm_perf.txt" | cut -c1-150
fi

SUBSET='Registry/AllKernels.*cuda_csr_vector_shared*:Registry/AllKernels.*cuda_csr_adaptive:Registry/AllKernels.*cuda_csr_subwarp:Registry/AllKernels.*cuda_hll_warp_row_shared:Registry/AllKernels.*cuda_hyb:Registry/AllKernels.*cuda_bmsparse*:Registry/AllKernels.*cuda_ell*:Registry/AllKernels.*cuda_hll_col_major:Registry/AllKernels.*cuda_dia*:BmSparseWarp.*:DiaKernels.*'
if [[ ${GPU_CHECK_SANITIZE:-1} -eq 0 ]]; then
  record "compute-sanitizer" SKIP "GPU_CHECK_SANITIZE=0"
elif command -v compute-sanitizer >/dev/null; then
  step "compute-sanitizer memcheck"
  run_gtest "memcheck (subset)" "${GPU_CHECK_MEMCHECK_FILTER:-$SUBSET:Registry/AllKernels.*cuda_cusparse_sell:Registry/AllKernels.*cuda_csr_merge:Registry/AllKernels.*cuda_sell_*:CudaSpgemmSanitize.*:Registry/AllKernels.*cuda_csr_binned}" ${GPU_CHECK_MEMCHECK_S:-240} \
    compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20
  step "compute-sanitizer racecheck"
  [[ ${GPU_CHECK_RACECHECK:-1} -eq 0 ]] && record "racecheck" SKIP "GPU_CHECK_RACECHECK=0" ||
  run_gtest "racecheck (shared-memory kernels)" "${GPU_CHECK_RACECHECK_FILTER:-Registry/AllKernels.*cuda_csr_vector_shared*:Registry/AllKernels.*cuda_csr_adaptive:Registry/AllKernels.*cuda_hll_warp_row_shared:Registry/AllKernels.*cuda_csr_merge:CudaSpgemmSanitize.*:Registry/AllKernels.*cuda_csr_binned}" ${GPU_CHECK_RACECHECK_S:-150} \
    compute-sanitizer --tool racecheck --error-exitcode 99 --print-limit 20
else
  record "compute-sanitizer" SKIP "not installed here"
fi

echo
echo "================ gpu-check results ================"
printf '%s\n' "${RESULTS[@]}"
if printf '%s\n' "${RESULTS[@]}" | grep -q ' FAIL '; then exit 1; fi
