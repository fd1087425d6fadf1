#!/usr/bin/env bash
# The CPU SpGEMM measurement of docs/perf/spgemm.md: C = A A on generated matrices of ~1.5-3M non-zeros
# (FEM with 3x3 dof blocks, 27-point stencil, banded, power-law, road), 1 and 2 threads, fp32 and fp64,
# every CPU SpGEMM kernel and MKL's sp2m in the same run. Writes one JSON per matrix x threads to OUT
# plus the machine's state (load average) before each run.
# Usage: bash bench/spgemm/cpu.sh [path-to-spkit] [OUT]   (OUT default: spgemm-cpu-results)
set -euo pipefail
SPKIT=${1:-build/release/bin/spkit}
OUT=${2:-spgemm-cpu-results}
REPS=${REPS:-5}
mkdir -p "$OUT"
gen() { [ -e "$OUT/$1.spkb" ] || "$SPKIT" gen "${@:2}" -o "$OUT/$1.spkb" >/dev/null; }
gen fem fem --dof 3 --nnz 3000000
gen lap3d27 lap3d --points 27 --nnz 3000000
gen banded banded --nnz 3000000
gen powerlaw powerlaw --nnz 2000000
gen road road --nnz 1500000
for m in fem lap3d27 banded powerlaw road; do
  # bmSparse on block-poor matrices (power-law, road) is measured with one rep: its task list is
  # ~100x the scalar products there, so a rep takes tens of seconds on 2 cores.
  variants=all
  case $m in powerlaw|road) variants='cpu.csr.*,ref.*' ;; esac
  for t in 1 2; do
    echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg): $m threads $t" | tee -a "$OUT/log.txt"
    "$SPKIT" spgemm "$OUT/$m.spkb" --device cpu --variant "$variants" --precision both --threads $t \
      --reps "$REPS" --warmup 1 --json --quiet > "$OUT/$m.t$t.json"
    if [ "$variants" != all ]; then
      "$SPKIT" spgemm "$OUT/$m.spkb" --device cpu --variant cpu.bmsparse.blocks --precision both --threads $t \
        --reps 1 --warmup 0 --json --quiet > "$OUT/$m.t$t.bmsparse.json"
    fi
  done
done
echo "done: $OUT"
