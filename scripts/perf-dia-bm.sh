#!/usr/bin/env bash
# Issue 15, DIA and bmSparse + CSR remainder on the GPU: the correctness tests of these kernels, then
# one `spkit spmv` per matrix (every kernel matching KERNELS, both precisions, every cuSPARSE
# configuration in the same run) on 27-point and 7-point lap3d, fem (3 dof) and banded matrices of
# about NNZ non-zeros (>= 10M: well beyond the 50 MB L2), plus the GPU copy bandwidth.
#   scripts/perf-dia-bm.sh [BUILD_DIR] [OUT_DIR] [KERNELS]       (after scripts/gpu-check.sh built BUILD_DIR)
# Matrices go to ${SPKIT_PERF_MATRICES:-/tmp/spkit-dia-bm} (not OUT: they are large). Writes
# OUT/bandwidth.json, OUT/<matrix>.json (spmv rows) and OUT/perf-dia-bm.log. SPKIT_PERF_TESTS=0 skips the tests,
# SPKIT_PERF_NNZ / SPKIT_PERF_REPS / SPKIT_PERF_ONLY (matrix names) change the run.
set -uo pipefail
BUILD=${1:-build/release}
OUT=${2:-perf-dia-bm-out}
KERNELS=${3:-cuda.*}
NNZ=${SPKIT_PERF_NNZ:-16000000}
REPS=${SPKIT_PERF_REPS:-30}
MATS=${SPKIT_PERF_MATRICES:-/tmp/spkit-dia-bm}
BIN=$BUILD/bin/spkit
mkdir -p "$OUT" "$MATS"
LOG=$OUT/perf-dia-bm.log
echo "=== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null)" | tee -a "$LOG"

if [[ ${SPKIT_PERF_TESTS:-1} -eq 1 ]]; then
echo "=== tests: DIA / bmSparse warp kernels on the GPU" | tee -a "$LOG"
timeout "${SPKIT_PERF_TEST_S:-120}" "$BUILD/tests/spkit_tests" \
  --gtest_filter='DiaFormat.*:DiaKernels.*:BmSparseWarp.*:Registry/AllKernels.*dia*:Registry/AllKernels.*bmsparse_warp*' \
  >"$OUT/tests-dia-bm.txt" 2>&1
echo "tests rc $? : $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/tests-dia-bm.txt" | tr '\n' ' ')" | tee -a "$LOG"
fi

"$BIN" bandwidth --device gpu --json >"$OUT/bandwidth.json" 2>>"$LOG"
echo "bandwidth: $(tr -d '\n ' <"$OUT/bandwidth.json" | head -c 600)" | tee -a "$LOG"

gen() {  # name, gen arguments...
  local name=$1; shift
  [[ -s $MATS/$name.spkb ]] || "$BIN" gen "$@" --nnz "$NNZ" -o "$MATS/$name.spkb" >>"$LOG" 2>&1
}
gen lap3d27 lap3d --points 27
gen lap3d7 lap3d --points 7
gen fem3 fem --dof 3
gen banded5 banded --bandwidth 5
for m in ${SPKIT_PERF_ONLY:-lap3d27 fem3 lap3d7 banded5}; do
  start=$SECONDS
  timeout "${SPKIT_PERF_MATRIX_S:-150}" "$BIN" spmv "$MATS/$m.spkb" --device gpu --kernel "$KERNELS" \
    --precision both --reps "$REPS" --json --quiet >"$OUT/$m.json" 2>>"$LOG"
  echo "=== $m: rc $? in $((SECONDS - start)) s" | tee -a "$LOG"
  # kernel precision median_ms eff GB/s own GB/s note, best first per precision
  python3 - "$OUT/$m.json" <<'PY' | tee -a "$LOG"
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["status"] == "ok"]
for p in ("float", "double"):
    best = min((r["median_ms"] for r in rows if r["precision"] == p and r["kernel"].startswith("cuda.cusparse")), default=0)
    for r in sorted((r for r in rows if r["precision"] == p), key=lambda r: r["median_ms"]):
        print(f'{p} {r["kernel"]:28s} {r["median_ms"]:8.4f} ms {r["gflops"]:7.1f} GF eff {r["gbytes_per_s"]:7.1f} own {r["own_gbytes_per_s"]:7.1f} GB/s x{best / r["median_ms"]:.2f} {r["note"][:70]}')
PY
done
# The device tool brings back only a few files per call: SPKIT_PERF_PACK=1 leaves one OUT.tar.gz instead.
if [[ ${SPKIT_PERF_PACK:-0} -eq 1 ]]; then
  tar -czf "$OUT.tar.gz" -C "$(dirname "$OUT")" "$(basename "$OUT")" && rm -rf "$OUT"
fi
