#!/usr/bin/env bash
# Same-run A/B of the GPU SpMV kernels between two source trees, on the device machine:
#   scripts/gpu-ab.sh BASE_TREE [--deps DEPS] [--out DIR] [--nnz N] [--rounds R] [--families "f1 f2 ..."]
# builds BASE_TREE's and this tree's CLI (release, no tests), generates each family once (with this tree's
# generator, .spkb), then runs `spkit spmv --device gpu --kernel 'cuda.*' --precision both --json` with the two
# binaries interleaved (base, new, base, new, ...), and prints new/base median time per kernel, precision and
# matrix (median over rounds of each run's median). Kernel names must be the same in both trees.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASE=$(realpath "$1"); shift
DEPS=$ROOT/.deps; OUT=${OUT:-$ROOT/gpu-ab-out}; NNZ=6000000; ROUNDS=2
FAMILIES=${AB_FAMILIES:-"lap3d27 fem_mesh_random road_planar_random rmat powerlaw circuit"}
while [[ $# -gt 0 ]]; do
  case $1 in
    --deps) DEPS=$(realpath -m "$2"); shift ;;
    --out) OUT=$(realpath -m "$2"); shift ;;
    --nnz) NNZ=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --families) FAMILIES=$2; shift ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$OUT"
command -v nvcc >/dev/null || export PATH=$PATH:/usr/local/cuda/bin
PREFIXES=()
[[ -d $DEPS/prefix ]] && PREFIXES=(-DCMAKE_PREFIX_PATH="$DEPS/prefix")
if [[ -d $DEPS/prefix && ! -e /usr/include/zlib.h ]]; then
  LIBZ=$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ {print $NF; exit}')
  PREFIXES+=(-DZLIB_INCLUDE_DIR="$DEPS/prefix/include" -DZLIB_LIBRARY="$LIBZ")
fi
build() {  # tree build-dir
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPKIT_BUILD_TESTS=OFF "${PREFIXES[@]}" >"$OUT/$(basename "$2")-configure.log" 2>&1 &&
    cmake --build "$2" -j "$(nproc)" --target spkit_cli >"$OUT/$(basename "$2")-build.log" 2>&1 ||
    { echo "build of $1 failed:"; tail -30 "$OUT/$(basename "$2")-build.log"; exit 1; }
}
start=$SECONDS
# AB_NEW_BIN: this tree's CLI already built (e.g. by scripts/gpu-check.sh in the same session).
if [[ -n ${AB_NEW_BIN:-} ]]; then
  build "$BASE" /tmp/ab-base
  NEW=$(realpath "$AB_NEW_BIN")
else
  build "$BASE" /tmp/ab-base & build "$ROOT" /tmp/ab-new & wait
  NEW=/tmp/ab-new/bin/spkit
fi
echo "built in $((SECONDS - start)) s"
OLD=/tmp/ab-base/bin/spkit
mkdir -p /tmp/ab-m
for f in $FAMILIES; do
  case $f in
    lap3d27) args="lap3d --points 27" ;;
    fem_mesh_random) args="fem_mesh --ordering random" ;;
    road_planar_random) args="road_planar --ordering random" ;;
    *) args=$f ;;
  esac
  $NEW gen $args --nnz "$NNZ" -o /tmp/ab-m/$f.spkb >/dev/null || { echo "gen $f failed"; exit 1; }
done
for r in $(seq 1 "$ROUNDS"); do
  for f in $FAMILIES; do
    for side in base new; do
      bin=$OLD; [[ $side == new ]] && bin=$NEW
      $bin spmv /tmp/ab-m/$f.spkb --device gpu --kernel 'cuda.*' --precision both --reps 40 --warmup 5 --json --quiet \
        >"$OUT/ab_${f}_${side}_$r.json" 2>>"$OUT/ab-stderr.log"
      echo "round $r $f $side rc=$? ($((SECONDS - start)) s)"
    done
  done
done
python3 - "$OUT" <<'PY'
import glob, json, os, re, statistics, sys
out = sys.argv[1]
runs = {}
for p in glob.glob(os.path.join(out, "ab_*.json")):
    m = re.match(r"ab_(.+)_(base|new)_(\d+)\.json", os.path.basename(p))
    try:
        rows = json.load(open(p))
    except Exception as e:
        print("unreadable", p, e); continue
    for r in rows:
        if r.get("status") != "ok" or r.get("l2_flushed"):
            continue
        runs.setdefault((m.group(1), r["kernel"], r["precision"], m.group(2)), []).append(r["median_ms"])
lines, ratios = [], []
for (f, k, p, side), v in sorted(runs.items()):
    if side != "new" or (f, k, p, "base") not in runs:
        continue
    b = statistics.median(runs[(f, k, p, "base")]); n = statistics.median(v)
    ratios.append(n / b)
    lines.append(f"{f:20s} {k:28s} {p:6s} base {b*1e3:9.1f} us  new {n*1e3:9.1f} us  new/base {n/b:6.3f}")
with open(os.path.join(out, "ab-summary.txt"), "w") as fh:
    fh.write("\n".join(lines) + "\n")
slow = [l for l in lines if float(l.split()[-1]) > 1.03]
print(f"{len(lines)} kernel x precision x matrix rows; geometric mean new/base "
      f"{statistics.geometric_mean(ratios) if ratios else float('nan'):.4f}; rows over 1.03: {len(slow)}")
for l in slow: print("SLOWER", l)
fast = [l for l in lines if float(l.split()[-1]) < 0.97]
for l in fast: print("FASTER", l)
PY
