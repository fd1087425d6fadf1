#!/usr/bin/env bash
# Issue 28, GPU SpGEMM on block-poor matrices: generate the matrices, then time cuda.csr.binned,
# cuSPARSE's three algorithms (DEFAULT, ALG2, ALG3) and auto on C = A A in both precisions (spkit
# spgemm: 1 warm-up, 10 timed products, medians; every C checked against the fp64 reference), most
# important first, each under a time limit. Run from the repository root after a release build:
#   docs/perf/data/spgemm-gpu/binned-run.sh OUT_DIR [MATRIX_DIR]
# Writes OUT_DIR/summary.csv (summarize.py), rewritten after each matrix so that a run cut short keeps
# what it measured, and OUT_DIR/json.tgz (every row of every run).
set -uo pipefail
OUT=${1:?output folder}
M=${2:-/tmp/spgemm-matrices}
S=build/release/bin/spkit
HERE=$(dirname "$0")
mkdir -p "$M" "$OUT/json"
gen() { local name=$1; shift; [[ -f $M/$name.spkb ]] || $S gen "$@" -o "$M/$name.spkb" >/dev/null; }
gen powerlaw powerlaw --nnz 2000000
gen circuit circuit --nnz 2000000
gen fem_mesh_p2_random fem_mesh --nnz 5000000 --element-order 2 --ordering random
gen fem_mesh_p1_random fem_mesh --nnz 5000000 --element-order 1 --ordering random
gen random random --nnz 2000000
gen road_planar_random road_planar --nnz 2000000 --ordering random
gen geometric_random geometric --nnz 2000000 --ordering random
gen geometric geometric --nnz 2000000
V='cuda.csr.binned,cuda.cusparse.*,auto'
time_one() {  # matrix, variants, seconds
  timeout "$3" $S spgemm "$M/$1.spkb" --device gpu --precision both --variant "$2" --reps 10 --json --quiet \
    >"$OUT/json/$1.json" 2>"$OUT/json/$1.err" || echo "$1: rc $? $(tail -c 300 "$OUT/json/$1.err")"
  python3 "$HERE/summarize.py" "$OUT"/json/*.json >"$OUT/summary.csv"
  tar czf "$OUT/json.tgz" -C "$OUT" json
}
time_one powerlaw "$V" 25
time_one circuit "$V" 25
time_one fem_mesh_p2_random "$V" 35
time_one fem_mesh_p1_random "$V" 35
for m in random road_planar_random geometric_random; do time_one $m "$V" 20; done
time_one geometric "$V,cuda.bmsparse.cc,cuda.bmsparse.tc_fp64" 25
rm -rf "$OUT/json"
column -s, -t "$OUT/summary.csv"
