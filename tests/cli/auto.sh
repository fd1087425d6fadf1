#!/usr/bin/env bash
# --kernel auto end to end: spkit spmv prints the pick and its reason and runs it (validated like any
# kernel); --expected-products is checked; spkit bench adds "auto" rows with picked/pick_reason and the
# summary section that sets auto against the best kernel.
# Usage: bash auto.sh <path-to-spkit> <source-dir>
set -euo pipefail
SPKIT=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

M="$SRC/tests/data/matrices/bcsstk03.mtx.gz"
out=$("$SPKIT" spmv "$M" --kernel auto --device cpu --threads 1 --reps 3 --precision both --quiet)
grep -q '^auto  *[a-z]* *cpu  *float' <<<"$out" || fail "no float auto row: $out"
grep -q '^auto  *[a-z]* *cpu  *double' <<<"$out" || fail "no double auto row: $out"
grep -q 'picked cpu\.' <<<"$out" || fail "the auto row does not say which kernel it picked: $out"
# By default auto measures its top candidates (1,000,000 expected products); the reason says what it measured
# and what the model predicted.
grep -q '^auto (cpu, double, 1 threads): cpu\.[a-z0-9_.]*: measured .* model: cpu\.[a-z0-9_.]*: predicted' <<<"$out" ||
  fail "no reason line: $out"
model=$("$SPKIT" spmv "$M" --kernel auto --device cpu --threads 1 --reps 3 --tuning model --quiet)
grep -q '^auto (cpu, double, 1 threads): cpu\.[a-z0-9_.]*: predicted' <<<"$model" || fail "no model reason line: $model"
if echo "$out" | grep -q 'FAILED'; then fail "auto row failed validation: $out"; fi

# JSON rows carry picked and pick_reason.
"$SPKIT" spmv "$M" --kernel auto --device cpu --threads 1 --reps 2 --json --quiet > "$TMP/auto.json"
python3 - "$TMP/auto.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert rows and all(r["kernel"] == "auto" for r in rows), rows
for r in rows:
    assert r["picked"].startswith("cpu."), r
    assert r["pick_reason"].startswith(r["picked"] + ":"), r
    assert r["status"] == "ok" and r["valid"], r
PY

# auto with other kernels in one call, and one product: a kernel without conversion.
"$SPKIT" spmv "$M" --kernel 'auto,cpu.csr.serial' --device cpu --threads 1 --reps 2 --expected-products 1 --quiet \
  | grep -q '^cpu.csr.serial' || fail "auto with a glob dropped the glob's kernel"

# Bad input: exit 1 with a message.
if "$SPKIT" spmv "$M" --kernel auto --expected-products 0 > /dev/null 2>&1; then
  fail "--expected-products 0 accepted"
fi

# spkit bench: auto rows and the summary section.
"$SPKIT" bench --size tiny --no-generated --matrices "$M" --kernels 'cpu.csr.*' --device cpu --threads 1 \
  --reps 2 --warmup 1 --no-report --out "$TMP/bench" > "$TMP/bench.out" 2> "$TMP/bench.err" \
  || { cat "$TMP/bench.err"; fail "bench failed"; }
grep -q 'auto-selector (--kernel auto) against the best kernel' "$TMP/bench.out" || fail "no auto summary: $(cat "$TMP/bench.out")"
grep -q 'auto within 10% of the best spkit kernel' "$TMP/bench.out" || fail "no within-10% share"
head -1 "$TMP/bench/results.csv" | grep -q 'picked,pick_reason' || fail "results.csv lacks picked,pick_reason"
grep -q '"kernel": "auto"' "$TMP/bench/results.json" || fail "results.json has no auto row"
echo "auto.sh: all checks passed"
