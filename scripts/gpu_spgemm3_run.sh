#!/usr/bin/env bash
# Scratch (not part of the handed-over branch): the one device run of issue 28's block-poor SpGEMM work.
# Builds and checks (scripts/gpu-check.sh: GPU tests, memcheck), then times C = A A on generated
# matrices, most important first, writing $OUT/summary.csv after each matrix (a cut-off run keeps them).
set -u
T0=$SECONDS
LIMIT=${RUN_LIMIT_S:-322}
OUTD=${OUT:-/tmp/out}
mkdir -p "$OUTD"
cd .gpu/gpu-spgemm3 || exit 1
DEPS=$(cd ../.. && pwd)/.deps

[[ ${GS3_SKIP_CHECK:-0} == 1 ]] || \
GPU_CHECK_FILTER='CsrBinned.*:Registry/AllSpgemmKernels.*cuda_csr_*:Registry/EverySpgemmKernel.*cuda_csr_*:Registry/CudaSpgemm.*cuda_csr_*:SpgemmTiming.*:SpgemmRun.*' \
GPU_CHECK_MEMCHECK_FILTER='CsrBinned.WindowListSegmentsUpToAWholeWindow:CsrBinned.DiscardedProductsStayOnTheDevice:CsrBinned.TinyAndEmptyShapes' \
GPU_CHECK_RACECHECK=0 GPU_CHECK_TEST_S=90 GPU_CHECK_MEMCHECK_S=60 \
  timeout 200 scripts/gpu-check.sh --deps "$DEPS" --out /tmp/gc >/tmp/gc.out 2>&1
echo "gpu-check rc $? after $((SECONDS - T0)) s" >"$OUTD/check.txt"
sed -n '/=== gpu-check results ===/,$p' /tmp/gc.out >>"$OUTD/check.txt"
grep -hE '^\[  FAILED  \]|Failure|ERROR SUMMARY' /tmp/gc/*.txt 2>/dev/null | head -30 >>"$OUTD/check.txt"
grep -hE '^\[==========\]|^\[  PASSED  \]' /tmp/gc/*.txt 2>/dev/null >>"$OUTD/check.txt"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader >>"$OUTD/check.txt" 2>&1
echo "commit ${GS3_COMMIT:-unknown}" >>"$OUTD/check.txt"
SPKIT=build/release/bin/spkit
[[ -x $SPKIT ]] || { echo "no spkit binary" >>"$OUTD/check.txt"; tail -30 /tmp/gc.out >>"$OUTD/check.txt"; exit 1; }

M=/tmp/m
mkdir -p $M
: >"$OUTD/rows.jsonl"
left() { echo $((LIMIT - (SECONDS - T0))); }
# name, cap seconds, variants, precision, gen arguments...
one() {
  local name=$1 cap=$2 variants=$3 prec=$4; shift 4
  local t=$(left)
  (( t > cap )) && t=$cap
  (( t < 8 )) && { echo "$name: skipped, $(left) s left" >>"$OUTD/log.txt"; return; }
  [[ -f $M/$name.spkb ]] || timeout 20 $SPKIT gen "$@" -o $M/$name.spkb >>"$OUTD/log.txt" 2>&1
  local s=$SECONDS
  timeout $((t - 2)) $SPKIT spgemm $M/$name.spkb --device gpu --variant "$variants" --precision $prec --reps 10 --json \
    >/tmp/$name.$prec.json 2>/tmp/$name.$prec.err
  local rc=$?
  echo "$name $prec: rc $rc, $((SECONDS - s)) s; $(tail -3 /tmp/$name.$prec.err | tr "\n" "|")" >>"$OUTD/log.txt"
  python3 scripts/gpu_spgemm3_summary.py "$name" /tmp/$name.$prec.json "$OUTD/summary.csv" "$OUTD/rows.jsonl" \
    >>"$OUTD/log.txt" 2>&1
}
# Per-launch kernel times of cuda.csr.binned's first products (ncu, no clock or cache control).
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
profile() {
  local name=$1 prec=$2 t=$(left)
  (( t < 30 )) && return
  [[ -n $NCU && -f $M/$name.spkb ]] || return
  timeout 25 "$NCU" --csv --metrics gpu__time_duration.sum --clock-control none --cache-control none \
    --kernel-name-base demangled -k regex:binned \
    --launch-count 60 $SPKIT spgemm $M/$name.spkb --device gpu --variant cuda.csr.binned --precision $prec \
    --reps 1 --warmup 0 --quiet >/tmp/ncu.$name.csv 2>/tmp/ncu.$name.err
  echo "== ncu $name $prec: rc $?" >>"$OUTD/ncu.txt"
  python3 scripts/gpu_spgemm3_ncu.py /tmp/ncu.$name.csv >>"$OUTD/ncu.txt" 2>&1 || tail -5 /tmp/ncu.$name.err >>"$OUTD/ncu.txt"
}
CSR='cuda.csr.binned,cuda.csr.hash,auto'
one powerlaw 40 "$CSR" both powerlaw --nnz 2000000
one circuit 40 "$CSR" both circuit --nnz 2000000
one rmat 70 'cuda.csr.binned,auto' double rmat --n 138889 --edge-factor 16
profile powerlaw double
profile circuit double
one random 25 "$CSR" both random --nnz 2000000
one road_planar_random 25 "$CSR" both road_planar --nnz 2000000 --ordering random
one geometric_random 25 "$CSR" both geometric --nnz 2000000 --ordering random
one fem_mesh_p2_random 40 "$CSR" both fem_mesh --nnz 5000000 --element-order 2 --ordering random
profile fem_mesh_p2_random double
one rmat 60 'cuda.csr.binned,auto' single rmat --n 138889 --edge-factor 16
echo "done after $((SECONDS - T0)) s" >>"$OUTD/log.txt"
cat "$OUTD/summary.csv" 2>/dev/null
