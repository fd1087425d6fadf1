#!/usr/bin/env bash
# Parse benchmark: spkit vs fast_matrix_market (and scipy.io.mmread().tocsr()) on the same file, the
# same thread counts, alternating in one run, warm page cache.
#   bench/parse/run.sh [FILE.mtx]        (env: BUILD=build/cpu THREADS="1 2" REPS=5 ROWS=1000000 PER_ROW=9,
#                                          PARSE_BENCH=path: use this driver binary instead of building one)
# Needs: the cpu preset built (cmake --preset cpu && cmake --build --preset cpu), and
# pip install fast_matrix_market scipy. FILE is generated (random, rows sorted) when missing; it is
# never committed. Add SHUFFLE=1 for a file whose entries are in random order.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build/cpu}
FILE=${1:-/tmp/spkit_parse_bench.mtx}
THREADS=${THREADS:-"1 2"}
REPS=${REPS:-5}
ROWS=${ROWS:-1000000}
PER_ROW=${PER_ROW:-9}

DRIVER=${PARSE_BENCH:-$BUILD/parse_bench}
if [ -z "${PARSE_BENCH:-}" ]; then
  g++ -O3 -march=native -fopenmp -std=c++17 -I"$ROOT/include" -I"$BUILD/include" "$ROOT/bench/parse/parse_bench.cpp" \
      -L"$BUILD/src" -lspkit -Wl,-rpath,"$BUILD/src" -o "$DRIVER"
fi
if [ ! -f "$FILE" ]; then
  "$DRIVER" gen "$FILE" "$ROWS" "$PER_ROW" 42 ${SHUFFLE:+shuffle}
fi
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(lscpu | grep 'Model name' | sed 's/  */ /g'), $(nproc) cores"
python3 -c "import scipy; print('# scipy', scipy.__version__)"; python3 -c "import fast_matrix_market as f; print('# fast_matrix_market', f.__version__)" 2>/dev/null || echo "# fast_matrix_market package missing: timing the copy inside scipy"
cat "$FILE" > /dev/null  # warm the page cache
for t in $THREADS; do
  echo "# threads=$t load before: $(uptime | sed 's/.*load average/load average/')"
  "$DRIVER" time "$FILE" "$t" "$REPS"
  python3 "$ROOT/bench/parse/fmm_bench.py" "$FILE" "$t" "$REPS"
  echo "# threads=$t load after: $(uptime | sed 's/.*load average/load average/')"
done
