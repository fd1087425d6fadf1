#!/usr/bin/env bash
# The interleaved runs of docs/perf/spgemm.md (2026-11-27 11:29 UTC): per round, matrix (generated as in
# bench/spgemm/cpu.sh into /tmp/sgt) and thread count, the build before the change (BASE) then after (NEW);
# each `spkit spgemm` also times both MKL sp2m modes. Run with R=2; summarised into threads-2026-11-27.csv.
NEW=/work/wt/spgemm-threads/build/cpu/bin/spkit
BASE=/tmp/sgt/basesrc/build/cpu/bin/spkit
OUT=${OUT:-/tmp/sgt/res}; mkdir -p $OUT
R=${R:-3}; MATS=${MATS:-fem lap3d27 banded powerlaw road}; TH=${TH:-1 2}
for r in $(seq 1 $R); do for m in $MATS; do for t in $TH; do
  echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) round $r $m t$t" >> $OUT/log.txt
  $BASE spgemm /tmp/sgt/$m.spkb --device cpu --variant cpu.csr.gustavson_dense --precision both --threads $t --reps 3 --warmup 1 --json --quiet > $OUT/$m.t$t.r$r.base.json 2>/dev/null
  $NEW spgemm /tmp/sgt/$m.spkb --device cpu --variant cpu.csr.gustavson_dense --precision both --threads $t --reps 3 --warmup 1 --json --quiet > $OUT/$m.t$t.r$r.new.json 2>/dev/null
done; done; done
echo done >> $OUT/log.txt
