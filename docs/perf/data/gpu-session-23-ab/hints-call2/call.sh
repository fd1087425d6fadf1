#!/usr/bin/env bash
# Session 23, call 2: streaming loads only in coalesced sweeps (cs), L2 evict-first policy in sub-warp groups (l2ef).
# kernels beside the plain ones; registry tests + memcheck on them, then the large bench, as many rounds as fit.
set -uo pipefail
O=$OUT; mkdir -p $O/gc; t0=$SECONDS
GPU_CHECK_RACECHECK=0 GPU_CHECK_FILTER='Registry/AllKernels.*cuda_csr_binned*:Registry/AllKernels.*cuda_csr_subwarp*' \
  GPU_CHECK_MEMCHECK_FILTER='Registry/AllKernels.*_cs:Registry/AllKernels.*_l2ef' \
  OUT=$O/gc timeout 260 bash scripts/gpu-check.sh --deps .deps > $O/gc/gpu-check.log 2>&1
echo "gpu-check rc $? ($((SECONDS-t0)) s)"
grep -E "^(build|gtest|memcheck)" $O/gc/gpu-check.log | head
B=build/release/bin/spkit
K='cuda.cusparse.*,cuda.csr.binned,cuda.csr.binned_cs,cuda.csr.binned_l2ef,cuda.csr.binned_stream*,cuda.csr.subwarp*'
for round in 1 2; do
  left=$((585 - (SECONDS - t0)))
  [[ $left -lt 120 ]] && break
  mkdir -p $O/bench$round
  timeout $left $B bench --device gpu --size large --precision both --no-spgemm --no-report --kernels "$K" \
    --out $O/bench$round > $O/bench$round/bench.log 2>&1
  echo "bench $round rc $? ($((SECONDS-t0)) s)"
done
