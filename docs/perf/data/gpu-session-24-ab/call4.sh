#!/usr/bin/env bash
# Session 24, call 4: tiles with plain warp streams (6 and 8 blocks per SM), binned with tiles: aligned loads (_al variants: 32-entry-aligned long-row chunks and warp streams, LANES-aligned
# sub-warp rows, no fully clamped loads, stream row offsets loaded once) against the plain binned kernels.
set -uo pipefail
W=/tmp/s24c4; rm -rf $W; mkdir -p $W; t0=$SECONDS
touch src/kernels/cuda/*.cu src/*/*.cpp tests/*/*.cpp
trap 'tar -C /tmp -czf $OUT/s24c4.tgz s24c4' EXIT
GPU_CHECK_RACECHECK=0 GPU_CHECK_FILTER='Registry/AllKernels.*cuda_csr_binned*:Kernels/CsrBinnedCases.*' \
  GPU_CHECK_MEMCHECK_FILTER='Kernels/CsrBinnedCases.*_al*:Registry/AllKernels.*_al*:Kernels/CsrBinnedCases.*_tile*:Registry/AllKernels.*_tile*' \
  OUT=$W/gc timeout 250 bash scripts/gpu-check.sh --deps .deps > $W/gpu-check.log 2>&1
echo "gpu-check rc $? ($((SECONDS-t0)) s)"; grep -E "^(build|gtest|memcheck)" $W/gpu-check.log | head
grep -E "FAILED|Failure" $W/gc/*.txt | head -20
B=build/release/bin/spkit
mkdir -p /tmp/m; [[ -f /tmp/m/pl.spkb ]] || $B gen powerlaw --nnz 16000000 -o /tmp/m/pl.spkb > /dev/null
g++ -O2 -std=c++17 -Iinclude -Ibuild/release/include .gpu-exp/rowfilter.cpp -Lbuild/release/src -lspkit \
  -Wl,-rpath,$PWD/build/release/src -o /tmp/rowfilter 2>&1 | tail -3
[[ -f /tmp/m/pl_mid.spkb ]] || /tmp/rowfilter /tmp/m/pl.spkb /tmp/m/pl_mid.spkb 16 1024
echo "gen ($((SECONDS-t0)) s)"
K='cuda.cusparse.csr,cuda.cusparse.csr_alg2,cuda.cusparse.sell,cuda.csr.binned,cuda.csr.binned_tile,cuda.csr.binned_stream,cuda.csr.binned_stream_tile,cuda.csr.binned_stream_tile8'
for round in 1 2 3; do
  left=$((540 - (SECONDS - t0)))
  [[ $left -lt 100 ]] && break
  mkdir -p $W/ab$round
  timeout $left $B bench --device gpu --size large --matrices /tmp/m --precision both --no-spgemm --no-report --no-auto \
    --kernels "$K" --out $W/ab$round > $W/ab$round/bench.log 2>&1
  echo "ab $round rc $? ($((SECONDS-t0)) s)"
  rm -f $W/ab$round/*.html $W/ab$round/*.png
done
if false; then
  k=cuda.csr.binned_stream_tile
  timeout 20 ncu --clock-control none --section SourceCounters --section SpeedOfLight \
    -k regex:'csr_binned' --launch-skip 2 --launch-count 1 -f --export $W/$k \
    $B spmv /tmp/m/pl.spkb --device gpu --kernel $k --precision double --reps 2 --warmup 1 --quiet > $W/ncu-$k.log 2>&1
  ncu --import $W/$k.ncu-rep --page source --csv --print-source sass > $W/source-$k.csv 2>&1
  ncu --import $W/$k.ncu-rep --page details > $W/details-$k.txt 2>&1
  rm -f $W/$k.ncu-rep
  echo "ncu ($((SECONDS-t0)) s)"
fi
