#!/usr/bin/env bash
# Session 25, call 6: the committed code (4b31a6a): every GPU test and the Python package's tests on the GPU
# (GPU_CHECK_PYTHON=1), memcheck on the binned cases. One tarball.
set -uo pipefail
O=/tmp/s25c6; rm -rf $O; mkdir -p $O/gc; t0=$SECONDS
touch src/kernels/cuda/*.cu src/*/*.cpp
trap 'tar -C /tmp -czf $OUT/s25c6.tgz s25c6' EXIT
GPU_CHECK_PYTHON=1 GPU_CHECK_RACECHECK=0 GPU_CHECK_MEMCHECK_FILTER='Kernels/CsrBinnedCases.*' \
  OUT=$O/gc timeout 560 bash scripts/gpu-check.sh --deps .deps > $O/gc/gpu-check.log 2>&1
echo "gpu-check rc $? ($((SECONDS-t0)) s)"
grep -E "^(build|gtest|memcheck|racecheck|python|pytest|pip)" $O/gc/gpu-check.log | head -20
tail -25 $O/gc/gpu-check.log
