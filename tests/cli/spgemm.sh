#!/usr/bin/env bash
# spkit spgemm end to end: the table, JSON rows with every documented key and no FAILED row, --c-out
# round trip against a product computed here independently (A A and a non-square A B), exit 1 with a
# one-line error on bad input (shapes that do not multiply, unreadable files, unknown variants).
# Usage: bash spgemm.sh <path-to-spkit> <source-dir>
set -euo pipefail
SPKIT=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 11 x 11 (not a multiple of 8) with an empty row (row 4) and a row that cancels in C = A A:
# row 9 of A picks rows 1 and 2 of A with weights 1 and 1, and row 2 = -row 1.
cat > "$TMP/a.mtx" <<'MTX'
%%MatrixMarket matrix coordinate real general
11 11 20
1 1 2.5
1 3 -1.0
1 11 0.5
2 2 4.0
2 5 -2.0
3 2 -4.0
3 5 2.0
5 5 1.0
6 1 -3.5
6 4 2.0
7 2 0.75
7 9 -1.25
8 8 3.0
8 10 1.5
9 2 1.0
9 3 1.0
10 6 -0.5
10 7 0.25
11 1 1.0
11 11 -2.0
MTX
# 11 x 3 partner for a non-square product.
cat > "$TMP/b.mtx" <<'MTX'
%%MatrixMarket matrix coordinate real general
11 3 8
1 1 1.0
2 2 -2.0
3 3 0.5
5 1 4.0
7 2 1.5
9 3 -1.0
10 1 2.0
11 2 3.0
MTX

# 1. The table: a row per kernel, validation column, no FAILED.
"$SPKIT" spgemm "$TMP/a.mtx" --device cpu --precision both --reps 2 --quiet > "$TMP/table.txt" || fail "table run exited $?"
grep -q "intermediate products" "$TMP/table.txt" || fail "no header line"
grep -q "cpu.csr.gustavson_dense" "$TMP/table.txt" || fail "dense Gustavson missing from the table"
grep -q "cpu.bmsparse.blocks" "$TMP/table.txt" || fail "bmSparse kernel missing from the table"
if grep -q "FAILED" "$TMP/table.txt"; then fail "a kernel FAILED: $(cat "$TMP/table.txt")"; fi

# 2. JSON: every key on every row; ok rows have times, GFLOPS and C's non-zeros.
"$SPKIT" spgemm "$TMP/a.mtx" --json --precision both --threads 2 --reps 2 --warmup 0 --quiet > "$TMP/rows.json" \
  || fail "spgemm --json exited $?"
python3 - "$TMP/rows.json" <<'PY' || fail "JSON rows"
import json, sys
rows = json.load(open(sys.argv[1]))
assert isinstance(rows, list) and rows, "no rows"
keys = ["kernel", "format", "backend", "precision", "arithmetic", "threads", "comparison", "stages", "total_ms", "min_total_ms",
        "out_nnz", "out_blocks", "tasks", "products", "gflops", "vs_cusparse", "vs_mkl", "rel_error",
        "max_abs_error", "status", "note"]
ok = 0
for r in rows:
    missing = [k for k in keys if k not in r]
    assert not missing, f"{r.get('kernel')}: missing {missing}"
    assert r["status"] in ("ok", "skipped"), f"{r['kernel']}: {r['status']} {r['note']}"
    assert r["precision"] in ("float", "double")
    if r["status"] == "ok":
        ok += 1
        assert r["total_ms"] > 0 and r["gflops"] > 0 and r["out_nnz"] == 27, r
        assert r["stages"] and all({"name", "ms", "in_total"} <= set(s) for s in r["stages"]), r["stages"]
    if r["kernel"] == "cpu.bmsparse.blocks" and r["status"] == "ok":
        assert r["out_blocks"] == 4 and r["tasks"] > 0, r
assert ok >= 6, f"only {ok} ok rows"
print(f"{len(rows)} rows ok")
PY

# 3. --c-out round trip: C = A A (the first kernel that succeeds, then a named one) and C = A B.
check_product() {  # a.mtx b.mtx c.mtx
  python3 - "$1" "$2" "$3" <<'PY'
import sys
def read(path):
    lines = [l.split() for l in open(path) if l.strip() and not l.startswith("%")]
    m, n, _ = map(int, lines[0])
    return m, n, {(int(i) - 1, int(j) - 1): float(v) for i, j, v in lines[1:]}
ma, ka, a = read(sys.argv[1]); kb, nb, b = read(sys.argv[2]); mc, nc, c = read(sys.argv[3])
assert (mc, nc) == (ma, nb), ((mc, nc), (ma, nb))
want = {}
for (i, j), x in a.items():
    for (jj, k), y in b.items():
        if jj == j:
            want[(i, k)] = want.get((i, k), 0.0) + x * y
want = {key: v for key, v in want.items() if v != 0.0}  # exact zeros dropped
assert set(c) == set(want), (sorted(set(c) ^ set(want)))
for key, v in want.items():
    assert abs(c[key] - v) <= 1e-12 * (1 + abs(v)), (key, c[key], v)
print(f"C {mc}x{nc} with {len(c)} entries matches")
PY
}
"$SPKIT" spgemm "$TMP/a.mtx" --c-out "$TMP/c.mtx" --reps 1 --quiet > /dev/null || fail "--c-out exited $?"
check_product "$TMP/a.mtx" "$TMP/a.mtx" "$TMP/c.mtx" || fail "C = A A written by --c-out is wrong"
rm -f "$TMP/c.mtx"
"$SPKIT" spgemm "$TMP/a.mtx" --variant cpu.bmsparse.blocks --precision both --c-out "$TMP/c.mtx" --reps 1 --quiet \
  > /dev/null 2> "$TMP/err.txt" || fail "--c-out with a named variant exited $?"
grep -q "C of cpu.bmsparse.blocks (double)" "$TMP/err.txt" || fail "--c-out did not say which C it wrote: $(cat "$TMP/err.txt")"
check_product "$TMP/a.mtx" "$TMP/a.mtx" "$TMP/c.mtx" || fail "C = A A of the bmSparse kernel is wrong"
"$SPKIT" spgemm "$TMP/a.mtx" "$TMP/b.mtx" --variant 'cpu.*' --c-out "$TMP/cb.mtx" --reps 1 --quiet > /dev/null \
  || fail "A B --c-out exited $?"
check_product "$TMP/a.mtx" "$TMP/b.mtx" "$TMP/cb.mtx" || fail "C = A B written by --c-out is wrong"

# --no-baselines: only the kernels --variant names (auto here), no ref.mkl* / cuda.cusparse* rows beside them.
"$SPKIT" spgemm "$TMP/a.mtx" --variant auto --device cpu --no-baselines --json --reps 1 --quiet > "$TMP/nb.json" \
  || fail "--no-baselines exited $?"
python3 - "$TMP/nb.json" <<'PY' || fail "--no-baselines ran more than auto"
import json, sys
rows = json.load(open(sys.argv[1]))
assert rows and all(r["kernel"] == "auto" for r in rows), [r["kernel"] for r in rows]
PY

# 4. Bad input: exit 1 and a one-line error.
expect_exit() {
  local want=$1; shift
  set +e; "$@" > "$TMP/out.txt" 2> "$TMP/err.txt"; local got=$?; set -e
  [ "$got" -eq "$want" ] || fail "exit $got (want $want): $* -- $(cat "$TMP/err.txt")"
  grep -q "error" "$TMP/err.txt" || fail "no error message: $*"
  [ "$(grep -c error "$TMP/err.txt")" -eq 1 ] || fail "error is not one line: $(cat "$TMP/err.txt")"
}
expect_exit 1 "$SPKIT" spgemm "$TMP/b.mtx" "$TMP/b.mtx" --quiet      # 11x3 times 11x3
grep -q "columns must equal B's rows" "$TMP/err.txt" || fail "shape error does not say why: $(cat "$TMP/err.txt")"
expect_exit 1 "$SPKIT" spgemm "$TMP/does-not-exist.mtx" --quiet
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n9 9 oops\n' > "$TMP/bad.mtx"
expect_exit 1 "$SPKIT" spgemm "$TMP/bad.mtx" --quiet
expect_exit 1 "$SPKIT" spgemm "$TMP/a.mtx" --variant 'no.such.kernel' --quiet
# Out of memory is an error naming the bytes: C = A B with B 1 x (2^31 - 1); validating it needs 24 bytes
# per column of B (~51.5 GB), refused up front when that is over half the memory available.
avail_kb=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
if [ -n "$avail_kb" ] && [ "$avail_kb" -lt 100000000 ]; then
  printf '%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.0\n' > "$TMP/one.mtx"
  printf '%%%%MatrixMarket matrix coordinate real general\n1 2147483647 2\n1 6 0.5\n1 2147483647 -1.0\n' > "$TMP/wide.mtx"
  expect_exit 1 "$SPKIT" spgemm "$TMP/one.mtx" "$TMP/wide.mtx" --quiet
  grep -q "would need [0-9]* bytes" "$TMP/err.txt" || fail "out-of-memory error does not name the bytes: $(cat "$TMP/err.txt")"
else
  echo "skipped the out-of-memory check: more than 100 GB available here"
fi
echo "cli spgemm: all checks passed"
