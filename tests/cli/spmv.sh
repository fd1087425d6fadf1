#!/usr/bin/env bash
# spkit spmv end to end: JSON rows carry every documented key, --x/--y-out round-trip against a
# product computed here independently, bad input gives exit 1, the table prints the x seed, --precision
# takes every spelling of spkit::parse_precisions.
# Usage: bash spmv.sh <path-to-spkit> <source-dir>
set -euo pipefail
SPKIT=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 7 x 5 general matrix: an empty row (row 4), a dense-ish row, a duplicate-free pattern.
cat > "$TMP/a.mtx" <<'MTX'
%%MatrixMarket matrix coordinate real general
% small test matrix
7 5 13
1 1 2.5
1 3 -1.0
2 2 4.0
3 1 1.5
3 2 -2.0
3 3 0.5
3 4 3.0
3 5 -0.25
5 5 1.0
6 1 -3.5
6 4 2.0
7 2 0.75
7 5 -1.25
MTX
cat > "$TMP/x.mtx" <<'MTX'
%%MatrixMarket matrix array real general
5 1
1.0
-2.0
0.5
3.0
-1.5
MTX

# 1. JSON: every key on every row, no FAILED row, exit 0.
"$SPKIT" spmv "$TMP/a.mtx" --json --threads 1,2 --reps 3 --warmup 1 --precision both --quiet > "$TMP/rows.json" \
  || fail "spmv --json exited $?"
python3 - "$TMP/rows.json" <<'PY' || fail "JSON rows"
import json, sys
rows = json.load(open(sys.argv[1]))
assert isinstance(rows, list) and rows, "no rows"
keys = ["kernel", "format", "backend", "precision", "threads", "conversion_ms", "median_ms", "mean_ms", "gflops",
        "gbytes_per_s", "speedup", "efficiency", "rel_l2_error", "max_abs_error", "valid",
        "status", "note", "own_gbytes_per_s", "conversion_spmvs"]
for r in rows:
    missing = [k for k in keys if k not in r]
    assert not missing, f"{r.get('kernel')}: missing {missing}"
    assert r["status"] in ("ok", "skipped"), f"{r['kernel']}: {r['status']} {r['note']}"
    if r["status"] == "ok":
        assert r["valid"] and r["median_ms"] > 0 and r["gflops"] > 0, r
    assert r["precision"] in ("float", "double")
print(f"{len(rows)} rows ok")
PY

# 2. --x / --y-out round trip on one CPU kernel (the first serial one the registry lists).
KERNEL=$("$SPKIT" kernels --json | python3 -c '
import json, sys
ks = [k for k in json.load(sys.stdin) if k["backend"] == "cpu"]
ks.sort(key=lambda k: (k["parallel"], k["comparison"]))
print(ks[0]["name"] if ks else "")')
[ -n "$KERNEL" ] || fail "no CPU kernel registered"
# With both precisions, y-out holds the double result (checked to 1e-12 below); with --kernel auto, the y of
# the kernel the selector picked and ran.
for RUN in "$KERNEL double" "$KERNEL both" "auto double" "auto both"; do
read -r K PREC <<<"$RUN"
rm -f "$TMP/y.mtx"
"$SPKIT" spmv "$TMP/a.mtx" --kernel "$K" --precision $PREC --x "$TMP/x.mtx" --y-out "$TMP/y.mtx" --reps 2 --quiet \
  > "$TMP/table.txt" || fail "spmv --kernel $K --y-out exited $?"
grep -q "from $TMP/x.mtx" "$TMP/table.txt" || fail "table does not say where x came from"
[ "$K" != auto ] || grep -q "^auto (" "$TMP/table.txt" || fail "--kernel auto printed no pick"
python3 - "$TMP/a.mtx" "$TMP/x.mtx" "$TMP/y.mtx" <<'PY' || fail "y-out differs from A x ($PREC)"
import sys
def data_lines(path):
    return [l.split() for l in open(path) if l.strip() and not l.startswith("%")]
a = data_lines(sys.argv[1]); m, n, _ = map(int, a[0])
x = [float(v[0]) for v in data_lines(sys.argv[2])[1:]]
yl = data_lines(sys.argv[3]); assert list(map(int, yl[0])) == [m, 1], yl[0]
y = [float(v[0]) for v in yl[1:]]
want = [0.0] * m
for i, j, v in a[1:]:
    want[int(i) - 1] += float(v) * x[int(j) - 1]
assert len(y) == m, (len(y), m)
for i in range(m):
    assert abs(y[i] - want[i]) <= 1e-12 * (1 + abs(want[i])), (i, y[i], want[i])
print("y round trip ok")
PY
done

# 3. The table prints the seed of a random x.
"$SPKIT" spmv "$TMP/a.mtx" --kernel "$KERNEL" --seed 12345 --reps 2 --quiet | grep -q "seed 12345" \
  || fail "random x seed not printed"

# 4. Errors: missing file, malformed file, x of the wrong length, --y-out with a glob -> exit 1.
expect_exit() {
  local want=$1; shift
  set +e; "$@" > "$TMP/out.txt" 2> "$TMP/err.txt"; local got=$?; set -e
  [ "$got" -eq "$want" ] || fail "exit $got (want $want): $* -- $(cat "$TMP/err.txt")"
  grep -q "error" "$TMP/err.txt" || fail "no error message: $*"
}
expect_exit 1 "$SPKIT" spmv "$TMP/does-not-exist.mtx" --quiet
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n9 9 oops\n' > "$TMP/bad.mtx"
expect_exit 1 "$SPKIT" spmv "$TMP/bad.mtx" --quiet
printf '%%%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n' > "$TMP/x3.mtx"
expect_exit 1 "$SPKIT" spmv "$TMP/a.mtx" --x "$TMP/x3.mtx" --quiet
expect_exit 1 "$SPKIT" spmv "$TMP/a.mtx" --kernel 'cpu.*' --y-out "$TMP/y2.mtx" --quiet
expect_exit 1 "$SPKIT" spmv "$TMP/a.mtx" --kernel 'no.such.kernel' --quiet
# An unknown precision is refused, naming the accepted spellings.
set +e; "$SPKIT" spmv "$TMP/a.mtx" --precision half --quiet > "$TMP/out.txt" 2> "$TMP/err.txt"; got=$?; set -e
[ "$got" -ne 0 ] || fail "--precision half was accepted"
grep -q "fp32" "$TMP/err.txt" || fail "the refusal does not list the spellings: $(cat "$TMP/err.txt")"

# 5. --precision takes every spelling of spkit::parse_precisions, e.g. fp32 and f64,fp32 (float rows first).
"$SPKIT" spmv "$TMP/a.mtx" --kernel cpu.csr.serial --precision fp32 --reps 1 --json --quiet > "$TMP/p1.json" \
  || fail "--precision fp32 exited $?"
"$SPKIT" spmv "$TMP/a.mtx" --kernel cpu.csr.serial --precision f64,fp32 --reps 1 --json --quiet > "$TMP/p2.json" \
  || fail "--precision f64,fp32 exited $?"
python3 - "$TMP/p1.json" "$TMP/p2.json" <<'PY' || fail "precision spellings"
import json, sys
one = [r["precision"] for r in json.load(open(sys.argv[1])) if r["kernel"] == "cpu.csr.serial"]
two = [r["precision"] for r in json.load(open(sys.argv[2])) if r["kernel"] == "cpu.csr.serial"]
assert one == ["float"], one
assert two == ["float", "double"], two
PY
echo "cli spmv: all checks passed"
