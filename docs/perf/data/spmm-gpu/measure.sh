#!/usr/bin/env bash
# Times the CUDA SpMM kernels against cuSPARSE on generated matrices of about 16M non-zeros (docs/perf/
# spmm-gpu.md): `spkit spmm --kernel 'cuda.*'` per matrix and precision at k = 4, 16, 64, row- and column-
# major, every cell validated against the double reference. Run from the repository root after
# scripts/gpu-check.sh built build/release:   docs/perf/data/spmm-gpu/measure.sh OUT [NNZ] [KS]
# Writes OUT/spmm-gpu.json (all rows), OUT/spmm-gpu.csv (the summary) and OUT/spmm-gpu.log, and prints
# the summary table last.
set -uo pipefail
OUT=${1:?output folder}
NNZ=${2:-16000000}
KS=${3:-4,16,64}
BIN=build/release/bin/spkit
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
M=${SPMM_MATRICES:-/tmp/spmm-gpu-matrices}
PARTS=$(mktemp -d)  # one JSON per matrix and precision; merged into OUT after each, so a cut-off run keeps its rows
mkdir -p "$M" "$OUT"
gen() {  # name family options...
  local name=$1; shift
  [[ -f $M/$name.spkb ]] || "$BIN" gen "$@" --nnz "$NNZ" -o "$M/$name.spkb" >/dev/null 2>>"$OUT/spmm-gpu.log" ||
    echo "gen $name failed" | tee -a "$OUT/spmm-gpu.log"
}
needs() { [[ -z ${SPMM_JOBS:-} || " $SPMM_JOBS" == *" $1:"* ]]; }
needs lap3d_27pt && gen lap3d_27pt lap3d --points 27
needs fem_mesh_random && gen fem_mesh_random fem_mesh --ordering random
needs road_planar_random && gen road_planar_random road_planar --ordering random
needs powerlaw && gen powerlaw powerlaw
needs random && gen random random
# SPMM_JOBS: "matrix:precision:layouts:ks ..." to run a subset (default: every matrix, both precisions).
JOBS=${SPMM_JOBS:-}
if [[ -z $JOBS ]]; then
  for m in lap3d_27pt fem_mesh_random road_planar_random powerlaw random; do
    JOBS="$JOBS $m:double:row,col:$KS $m:float:row,col:$KS"
  done
fi
for job in $JOBS; do
  IFS=: read -r m p layouts ks <<<"$job"
  start=$SECONDS
  timeout "${SPMM_CELL_S:-120}" "$BIN" spmm "$M/$m.spkb" --kernel 'cuda.*' --device gpu --k "$ks" --layout "$layouts" \
    --precision "$p" --reps 30 --warmup 3 --json --quiet >"$PARTS/$m.$p.$layouts.json" 2>>"$OUT/spmm-gpu.log"
  echo "$job: rc $? in $((SECONDS - start)) s" | tee -a "$OUT/spmm-gpu.log"
  python3 "$DIR/summarize.py" "$PARTS" --json "$OUT/spmm-gpu.json" --csv "$OUT/spmm-gpu.csv" >/dev/null 2>>"$OUT/spmm-gpu.log"
done
python3 "$DIR/summarize.py" "$PARTS" --json "$OUT/spmm-gpu.json" --csv "$OUT/spmm-gpu.csv"
rm -rf "$PARTS"
