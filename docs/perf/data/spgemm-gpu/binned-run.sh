#!/usr/bin/env bash
# Issue 28, GPU SpGEMM on block-poor matrices: generate the matrices, then time every GPU SpGEMM kernel
# (csr, cuSPARSE's three algorithms; bmSparse where blocks are filled) and auto on C = A A, both precisions (spkit spgemm: 1 warm-up, 10 timed products, medians; C checked
# against the fp64 reference). Run from the repository root after a release build:
#   docs/perf/data/spgemm-gpu/binned-run.sh OUT_DIR
# Writes OUT_DIR/<matrix>.json per matrix and OUT_DIR/summary.csv (summarize.py).
set -uo pipefail
OUT=${1:?output folder}
S=build/release/bin/spkit
M=$OUT/matrices
mkdir -p "$M"
gen() { local name=$1; shift; [[ -f $M/$name.spkb ]] || $S gen "$@" -o "$M/$name.spkb" >/dev/null; }
gen powerlaw powerlaw --nnz 2000000
gen circuit circuit --nnz 2000000
gen random random --nnz 2000000
gen road_planar_random road_planar --nnz 2000000 --ordering random
gen geometric_random geometric --nnz 2000000 --ordering random
gen geometric geometric --nnz 2000000
gen fem_mesh_p1_random fem_mesh --nnz 5000000 --element-order 1 --ordering random
gen fem_mesh_p2_random fem_mesh --nnz 5000000 --element-order 2 --ordering random
gen rmat rmat --n 138889
time_one() {  # matrix, variants, seconds
  timeout "$3" $S spgemm "$M/$1.spkb" --device gpu --precision both --variant "$2" --reps 10 --json --quiet \
    >"$OUT/$1.json" 2>"$OUT/$1.err" || echo "$1: rc $? $(tail -c 300 "$OUT/$1.err")"
}
V='cuda.csr.*,cuda.cusparse.*,auto'
for m in powerlaw circuit random road_planar_random geometric_random; do time_one $m "$V" 30; done
time_one geometric "$V,cuda.bmsparse.cc,cuda.bmsparse.tc_fp64" 30
for m in fem_mesh_p1_random fem_mesh_p2_random; do time_one $m "$V" 45; done
# rmat: C has 489M entries (5.9 GB per download and check): our kernel and cuSPARSE's first choices only.
time_one rmat 'cuda.csr.binned,cuda.cusparse.spgemm,cuda.cusparse.spgemm_alg3' 90
python3 "$(dirname "$0")/summarize.py" "$OUT"/*.json >"$OUT/summary.csv"
column -s, -t "$OUT/summary.csv"
