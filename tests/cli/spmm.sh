#!/usr/bin/env bash
# spkit spmm end to end: the table with a row per kernel x layout x k, JSON rows with the documented keys
# and no FAILED row (every kernel validated against the double reference), auto's pick and reason, and
# exit 1 with a one-line error on bad input (k of 0, an unknown layout, a kernel glob matching nothing).
# Usage: bash spmm.sh <path-to-spkit> <source-dir>
set -euo pipefail
SPKIT=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# `spkit kernels` lists the SpMM registry in its own section.
listing=$("$SPKIT" kernels)
section=$(sed -n '/^SpMM kernels/,$p' <<<"$listing")
grep -q '^cpu.csr.spmm_rowmajor ' <<<"$section" || fail "spkit kernels has no SpMM section with cpu.csr.spmm_rowmajor"
grep -q '^cpu.csr.spmm_colmajor ' <<<"$section" || fail "the SpMM section lacks cpu.csr.spmm_colmajor"

# 7 x 5 (rectangular, not a multiple of anything) with an empty row (row 3).
cat > "$TMP/a.mtx" <<'MTX'
%%MatrixMarket matrix coordinate real general
7 5 10
1 1 2.5
1 5 -1.0
2 2 4.0
4 3 -2.0
4 4 1.5
5 1 -3.5
5 2 2.0
6 5 0.75
7 1 1.25
7 3 -0.5
MTX

out=$("$SPKIT" spmm "$TMP/a.mtx" --k 1,3,33 --layout row,col --kernel all,auto --device cpu --threads 1,2 \
        --reps 3 --warmup 1 --quiet)
grep -q "cpu.csr.spmm_rowmajor" <<<"$out" || fail "no row-major kernel row: $out"
grep -q "cpu.csr.spmm_colmajor" <<<"$out" || fail "no column-major kernel row: $out"
grep -q "^auto (cpu, double, col-major, k 33" <<<"$out" || fail "no auto reason line: $out"
if echo "$out" | grep -q FAILED; then fail "a kernel FAILED: $out"; fi

json=$("$SPKIT" spmm "$TMP/a.mtx" --k 4 --layout col --kernel 'cpu.*' --device cpu --precision both --reps 2 \
         --warmup 0 --json --quiet)
python3 - "$json" <<'PY' || fail "JSON rows"
import json, sys
rows = json.loads(sys.argv[1])
assert rows, "no rows"
keys = {"kernel", "backend", "precision", "layout", "k", "threads", "median_ms", "gflops", "gbytes_per_s",
        "bytes_per_column", "vs_spmv", "speedup", "rel_l2_error", "valid", "status", "note"}
for r in rows:
    assert keys <= set(r), sorted(keys - set(r))
    if r["kernel"] == "cpu.dia.spmm" and r["status"] == "skipped":
        continue  # this matrix's diagonals would move more bytes than its CSR
    assert r["status"] == "ok" and r["valid"], r
    assert r["layout"] == "col" and r["k"] == 4, r
    assert r["gflops"] > 0 and r["vs_spmv"] > 0, r
assert {r["precision"] for r in rows} == {"float", "double"}, rows
PY

for bad in "--k 0" "--layout diagonal" "--kernel nothing.matches"; do
  # shellcheck disable=SC2086
  if err=$("$SPKIT" spmm "$TMP/a.mtx" $bad --device cpu --quiet 2>&1 >/dev/null); then fail "accepted $bad"; fi
  [ "$(echo "$err" | wc -l)" -eq 1 ] || fail "$bad: more than one line: $err"
  grep -q "^spkit: error:" <<<"$err" || fail "$bad: not an error line: $err"
done
echo "spmm.sh: ok"
