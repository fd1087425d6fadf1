#!/usr/bin/env bash
# Timings of the merge-path CSR and SELL-C-sigma kernels against every cuSPARSE configuration and the
# best seed kernels, on generated matrices of every family that matters to them (docs/perf/cuda-csr-sell.md).
#   scripts/perf-csr-sell.sh SPKIT_BINARY OUT_DIR [NNZ] [MATRIX_DIR]
# Writes OUT_DIR/spmv_<family>.json (spkit spmv --json rows: median of --reps CUDA-event timings) and
# OUT_DIR/bandwidth.json. Matrices go to MATRIX_DIR (default /tmp/spkit-perf-matrices), not OUT_DIR.
set -uo pipefail
BIN=$1
OUT=$2
NNZ=${3:-16000000}
MDIR=${4:-/tmp/spkit-perf-matrices}
REPS=${PERF_REPS:-40}
KERNELS=${PERF_KERNELS:-'cuda.cusparse.*,cuda.csr.merge,cuda.csr.adaptive,cuda.csr.subwarp,cuda.hyb,cuda.sell.*'}
FAMILIES=${PERF_FAMILIES:-"powerlaw circuit random lap3d fem"}
mkdir -p "$OUT" "$MDIR"
"$BIN" bandwidth --device gpu --json >"$OUT/bandwidth.json" 2>"$OUT/bandwidth.err" || echo "bandwidth failed"
for fam in $FAMILIES; do
  extra=()
  kernels=$KERNELS
  [[ $fam == lap3d ]] && extra=(--points 27)
  # ELL (the best seed kernel on regular rows) only where its width is sane.
  [[ $fam == lap3d || $fam == fem || $fam == random ]] && kernels="$kernels,cuda.ell.col_major"
  m=$MDIR/$fam.spkb
  [[ -f $m ]] || "$BIN" gen "$fam" --nnz "$NNZ" "${extra[@]}" -o "$m" >>"$OUT/gen.log" 2>&1 || { echo "gen $fam failed"; continue; }
  "$BIN" info "$m" >>"$OUT/info.txt" 2>&1
  start=$SECONDS
  "$BIN" spmv "$m" --device gpu --kernel "$kernels" --precision both --reps "$REPS" --warmup 5 --json \
    >"$OUT/spmv_$fam.json" 2>"$OUT/spmv_$fam.err"
  echo "$fam: rc $? ($((SECONDS - start)) s)"
done
