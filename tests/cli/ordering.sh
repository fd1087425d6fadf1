#!/usr/bin/env bash
# Renumbering and measuring from the command line: spkit spmv --ordering / --tuning for the auto row (the
# reason names the ordering and what was measured, the row validates), --reorder runs every kernel on the
# renumbered matrix (notes say so) with --y-out still in the given numbering, and bad values are refused.
# Usage: bash ordering.sh <path-to-spkit> <source-dir>
set -euo pipefail
SPKIT=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

M="$TMP/mesh.mtx"
"$SPKIT" gen fem_mesh --n 6 --dims 3 --ordering random -o "$M" > /dev/null
common=(--device cpu --threads 1 --reps 3 --quiet)

out=$("$SPKIT" spmv "$M" --kernel auto "${common[@]}" --ordering rcm --tuning model)
grep -q '^auto .* ok .*rcm ordering' <<<"$out" || fail "auto row not renumbered by rcm: $out"
grep -q '^auto (cpu, double, 1 threads): cpu\.[a-z0-9_.]*: predicted.*; ordering rcm: ordering rcm requested' <<<"$out" \
  || fail "reason does not name the ordering: $out"

out=$("$SPKIT" spmv "$M" --kernel auto "${common[@]}" --tuning measure --tuning-budget-ms 2000)
grep -q '^auto (cpu, double, 1 threads): cpu\.[a-z0-9_.]*: measured .* per product, the fastest of' <<<"$out" \
  || fail "measured reason missing: $out"
if echo "$out" | grep -q 'FAILED'; then fail "auto row failed validation: $out"; fi

# --reorder: the same y as the matrix as given (the CLI's y is in the given numbering).
"$SPKIT" spmv "$M" --kernel cpu.csr.serial "${common[@]}" --y-out "$TMP/y.mtx" > /dev/null
out=$("$SPKIT" spmv "$M" --kernel cpu.csr.serial "${common[@]}" --reorder rcm --y-out "$TMP/y_rcm.mtx")
grep -q 'on the rcm-renumbered matrix' <<<"$out" || fail "--reorder note missing: $out"
python3 - "$TMP/y.mtx" "$TMP/y_rcm.mtx" <<'PY'
import sys
def read(p):
    rows = [l for l in open(p) if not l.startswith('%')][1:]
    return [float(v) for v in rows]
a, b = read(sys.argv[1]), read(sys.argv[2])
assert len(a) == len(b) and all(abs(x - y) <= 1e-12 * (1 + abs(x)) for x, y in zip(a, b)), "y differs after --reorder"
PY

if "$SPKIT" spmv "$M" --kernel auto --ordering metis > /dev/null 2>&1; then fail "--ordering metis accepted"; fi
if "$SPKIT" spmv "$M" --kernel auto --tuning fast > /dev/null 2>&1; then fail "--tuning fast accepted"; fi
echo "ordering.sh: all checks passed"
