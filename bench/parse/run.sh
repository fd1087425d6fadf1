#!/usr/bin/env bash
# Parse benchmark: spkit vs fast_matrix_market (and scipy.io.mmread().tocsr()) on the same files, the
# same thread counts, alternating in one run, warm page cache.
#   bench/parse/run.sh [FILE.mtx ...]    (env: BUILD=build/cpu THREADS="1 2" REPS=5 ROUNDS=1 ROWS=1000000
#                                          PER_ROW=9, PARSE_BENCH=path: use this driver binary instead of
#                                          building one, MODE=time|read|paired)
# Needs: a build of libspkit (the cpu preset by default: cmake --preset cpu && cmake --build --preset cpu;
# BUILD=build/release for the release preset), and pip install fast_matrix_market scipy (without the
# fast_matrix_market package, the copy inside scipy is timed: fmm_bench.py).
# Each FILE is generated when missing (never committed): a random matrix, rows sorted -- or entries in
# random order when its name ends in "_shuffled.mtx" or SHUFFLE=1 is set.
# ROUNDS > 1 repeats the whole alternation (round, thread count, file: spkit then fmm), so that on a
# busy machine both sides see the same load; bench/parse/summary.py LOG prints the medians over every
# repetition of every round. MODE=read times only .mtx->COO, COO->CSR and .mtx->CSR (no .spkb, no write).
# MODE=paired alternates spkit's .mtx->CSR and fmm's read_coo call by call in one Python process (REPS pairs;
# bench/parse/paired.py, through the C shim bench/parse/paired_shim.cpp) and prints the median of the per-pair
# ratios: on a machine whose speed drifts between runs (a VM), pairs taken seconds apart compare like with like.
# Example, both orders at 1, 2 and 16 threads:
#   THREADS="1 2 16" ROUNDS=3 bench/parse/run.sh /tmp/pb.mtx /tmp/pb_shuffled.mtx | tee log; bench/parse/summary.py log
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build/cpu}
THREADS=${THREADS:-"1 2"}
REPS=${REPS:-5}
ROUNDS=${ROUNDS:-1}
ROWS=${ROWS:-1000000}
PER_ROW=${PER_ROW:-9}
MODE=${MODE:-time}
FILES=("$@")
[ ${#FILES[@]} -gt 0 ] || FILES=(/tmp/spkit_parse_bench.mtx)

DRIVER=${PARSE_BENCH:-$BUILD/parse_bench}
if [ -z "${PARSE_BENCH:-}" ]; then
  g++ -O3 -march=native -fopenmp -std=c++17 -I"$ROOT/include" -I"$BUILD/include" "$ROOT/bench/parse/parse_bench.cpp" \
      -L"$BUILD/src" -lspkit -Wl,-rpath,"$BUILD/src" -o "$DRIVER"
fi
if [ "$MODE" = paired ]; then
  SHIM=$BUILD/paired_shim.so
  g++ -O3 -march=native -fopenmp -std=c++17 -shared -fPIC -I"$ROOT/include" -I"$BUILD/include" \
      "$ROOT/bench/parse/paired_shim.cpp" -L"$BUILD/src" -lspkit -Wl,-rpath,"$BUILD/src" -o "$SHIM"
fi
for f in "${FILES[@]}"; do
  if [ ! -f "$f" ]; then
    shuffle=${SHUFFLE:+shuffle}
    case "$f" in *_shuffled.mtx) shuffle=shuffle ;; esac
    "$DRIVER" gen "$f" "$ROWS" "$PER_ROW" 42 $shuffle
  fi
done
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(lscpu | grep 'Model name' | sed 's/  */ /g'), $(nproc) cores"
python3 -c "import scipy; print('# scipy', scipy.__version__)"; python3 -c "import fast_matrix_market as f; print('# fast_matrix_market', f.__version__)" 2>/dev/null || echo "# fast_matrix_market package missing: timing the copy inside scipy"
for f in "${FILES[@]}"; do cat "$f" > /dev/null; done  # warm the page cache
for round in $(seq 1 "$ROUNDS"); do
  for t in $THREADS; do
    for f in "${FILES[@]}"; do
      echo "# round=$round threads=$t file=$f load before: $(uptime | sed 's/.*load average/load average/')"
      if [ "$MODE" = paired ]; then
        python3 "$ROOT/bench/parse/paired.py" "$SHIM" "$f" "$t" "$REPS"
      else
        "$DRIVER" "$MODE" "$f" "$t" "$REPS"
        python3 "$ROOT/bench/parse/fmm_bench.py" "$f" "$t" "$REPS"
      fi
      echo "# round=$round threads=$t file=$f load after: $(uptime | sed 's/.*load average/load average/')"
    done
  done
done
