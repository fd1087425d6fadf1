#!/usr/bin/env bash
# Session 24, call 1: where does power-law lose? binned_stream / binned / cuSPARSE on power-law's row classes
# (rows < 16, 16..1024, > 1024 nz, the others emptied, same shape) and on the whole matrix, 2 rounds; then ncu
# source counters (per SASS instruction: L2 requests / sectors) for binned_stream and cuSPARSE CSR on power-law fp64.
set -uo pipefail
W=/tmp/s24c1; rm -rf $W; mkdir -p $W; t0=$SECONDS
touch src/kernels/cuda/*.cu src/*/*.cpp
trap 'tar -C /tmp -czf $OUT/s24c1.tgz s24c1' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $W/gpu.txt 2>&1
GPU_CHECK_RACECHECK=0 GPU_CHECK_FILTER='Kernels/CsrBinnedCases.*' GPU_CHECK_MEMCHECK_FILTER='Kernels/CsrBinnedCases.*Empty*' \
  OUT=$W/gc timeout 240 bash scripts/gpu-check.sh --deps .deps > $W/gpu-check.log 2>&1
echo "gpu-check rc $? ($((SECONDS-t0)) s)"; grep -E "^(build|gtest|memcheck)" $W/gpu-check.log | head
B=build/release/bin/spkit
mkdir -p /tmp/m; $B gen powerlaw --nnz 16000000 -o /tmp/m/pl.spkb > /dev/null; echo "gen ($((SECONDS-t0)) s)"
g++ -O2 -std=c++17 -Iinclude -Ibuild/release/include .gpu-exp/rowfilter.cpp -Lbuild/release/src -lspkit \
  -Wl,-rpath,$PWD/build/release/src -o /tmp/rowfilter 2>&1 | tail -3
/tmp/rowfilter /tmp/m/pl.spkb /tmp/m/pl_short.spkb 0 15
/tmp/rowfilter /tmp/m/pl.spkb /tmp/m/pl_mid.spkb 16 1024
/tmp/rowfilter /tmp/m/pl.spkb /tmp/m/pl_long.spkb 1025 100000000
echo "filter ($((SECONDS-t0)) s)"
for round in 1 2; do
  mkdir -p $W/ab$round
  timeout 150 $B bench --device gpu --no-generated --matrices /tmp/m --precision both --no-spgemm --no-report \
    --kernels 'cuda.cusparse.csr,cuda.csr.binned,cuda.csr.binned_stream,cuda.csr.merge,cuda.csr.subwarp' --out $W/ab$round > $W/ab$round/bench.log 2>&1
  echo "ab $round rc $? ($((SECONDS-t0)) s)"
  rm -f $W/ab$round/*.html $W/ab$round/*.png
done
for k in cuda.csr.binned_stream cuda.cusparse.csr; do
  timeout 120 ncu --clock-control none --section SourceCounters --section MemoryWorkloadAnalysis_Tables --section SpeedOfLight \
    -k regex:'csr_binned|csrmv_v3' --launch-skip 2 --launch-count 1 -f --export $W/$k \
    $B spmv /tmp/m/pl.spkb --device gpu --kernel $k --precision double --reps 2 --warmup 1 --quiet > $W/ncu-$k.log 2>&1
  echo "ncu $k rc $? ($((SECONDS-t0)) s)"
  ncu --import $W/$k.ncu-rep --page source --csv --print-source sass > $W/source-$k.csv 2>&1
  ncu --import $W/$k.ncu-rep --page details > $W/details-$k.txt 2>&1
  echo "import $k ($((SECONDS-t0)) s)"
done
ls -la $W
