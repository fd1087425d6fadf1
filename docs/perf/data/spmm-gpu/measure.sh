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
gen lap3d_27pt lap3d --points 27
gen fem_mesh_random fem_mesh --ordering random
gen road_planar_random road_planar --ordering random
gen powerlaw powerlaw
gen random random
for m in lap3d_27pt fem_mesh_random road_planar_random powerlaw random; do
  for p in double float; do
    start=$SECONDS
    timeout "${SPMM_CELL_S:-120}" "$BIN" spmm "$M/$m.spkb" --kernel 'cuda.*' --device gpu --k "$KS" --layout row,col \
      --precision $p --reps 30 --warmup 3 --json --quiet >"$PARTS/$m.$p.json" 2>>"$OUT/spmm-gpu.log"
    echo "$m $p: rc $? in $((SECONDS - start)) s" | tee -a "$OUT/spmm-gpu.log"
    python3 "$DIR/summarize.py" "$PARTS" --json "$OUT/spmm-gpu.json" --csv "$OUT/spmm-gpu.csv" >/dev/null 2>>"$OUT/spmm-gpu.log"
  done
done
python3 "$DIR/summarize.py" "$PARTS" --json "$OUT/spmm-gpu.json" --csv "$OUT/spmm-gpu.csv"
rm -rf "$PARTS"
