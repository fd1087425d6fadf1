#!/usr/bin/env bash
# Session 24, call 6: the final code (tiled sub-warp rows, aligned chunks, 32 registers; binned cost 1.25x/1.11x for mean >= 16); every GPU test, memcheck + racecheck on the binned cases, then the headline large bench. One tarball.
set -uo pipefail
O=/tmp/s24c6; rm -rf $O; mkdir -p $O/gc $O/bench; t0=$SECONDS
touch src/kernels/cuda/*.cu src/*/*.cpp
trap 'tar -C /tmp -czf $OUT/s24c6.tgz s24c6' EXIT
GPU_CHECK_RACECHECK_FILTER='Registry/AllKernels.*cuda_csr_binned*:Registry/AllKernels.*cuda_csr_subwarp*' GPU_CHECK_RACECHECK_S=90 GPU_CHECK_MEMCHECK_FILTER='Kernels/CsrBinnedCases.*' \
  OUT=$O/gc timeout 280 bash scripts/gpu-check.sh --deps .deps > $O/gc/gpu-check.log 2>&1
echo "gpu-check rc $? ($((SECONDS-t0)) s)"
grep -E "^(build|gtest|memcheck|racecheck)" $O/gc/gpu-check.log | head
B=build/release/bin/spkit
timeout 320 $B bench --device gpu --size large --precision both --no-spgemm --no-report \
  --kernels 'cuda.cusparse.*,cuda.csr.subwarp,cuda.csr.adaptive,cuda.csr.merge,cuda.csr.binned*,cuda.csr.scalar,cuda.ell.col_major,cuda.hll.col_major,cuda.hyb,cuda.dia*,cuda.sell.delta16,cuda.bmsparse.warp' \
  --out $O/bench > $O/bench/bench.log 2>&1
echo "bench rc $? ($((SECONDS-t0)) s)"
python3 - $O/bench/results.csv <<'PY'
import csv,sys,collections,math
g=collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    try: g[(r['matrix'],r['precision'])][r['kernel']]=float(r['gflops'])
    except: pass
lr={'double':[], 'float':[]}
for (m,p),d in sorted(g.items()):
    best=max(v for k,v in d.items() if 'cusparse' in k)
    a=d.get('auto',0)/best; lr[p].append(math.log(a))
    print(m,p[:1],"cuS %.0f auto %.3f"%(best,a), " ".join("%s=%.2f"%(k.replace('cuda.csr.',''),v/best) for k,v in sorted(d.items()) if 'binned' in k))
for p,l in lr.items(): print(p, "auto geomean %.3f over %d"%(math.exp(sum(l)/len(l)), len(l)))
PY
