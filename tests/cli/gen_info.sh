#!/usr/bin/env bash
# spkit gen and spkit info end to end: gen writes .mtx and .spkb, info --json has the documented keys
# and the right figures, gen is deterministic across thread counts, bad input exits 1 with one line.
# Usage: bash gen_info.sh <path-to-spkit> <source-dir>
set -u
SPKIT=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Expects exit code 1, exactly one line on stderr containing $1, and no output file $2.
expect_error() {
  local want=$1 out=$2; shift 2
  "$@" >"$TMP/out.txt" 2>"$TMP/err.txt"
  local rc=$?
  [ "$rc" -eq 1 ] || fail "'$*' exited $rc, expected 1"
  [ "$(wc -l <"$TMP/err.txt")" -eq 1 ] || fail "'$*' printed more than one error line: $(cat "$TMP/err.txt")"
  grep -q -- "$want" "$TMP/err.txt" || fail "'$*' error lacks '$want': $(cat "$TMP/err.txt")"
  [ -z "$out" ] || [ ! -e "$out" ] || fail "'$*' left $out behind"
}

"$SPKIT" gen lap2d --n 10 -o "$TMP/lap.mtx" >/dev/null || fail "gen lap2d .mtx"
"$SPKIT" info "$TMP/lap.mtx" --json >"$TMP/lap.json" || fail "info --json on .mtx"
python3 - "$TMP/lap.json" <<'EOF' || fail "info --json figures (lap2d)"
import json, sys
j = json.load(open(sys.argv[1]))
for k in ["rows", "cols", "nnz", "stored_entries", "field", "symmetry", "row_nnz", "empty_rows", "ell", "hll",
          "bmsparse", "max_diag_distance", "bytes"]:
    assert k in j, k
for k in ["min", "max", "mean", "std"]:
    assert k in j["row_nnz"], k
for k in ["width", "padding_ratio", "bytes"]:
    assert k in j["ell"], k
for k in ["hack_size", "padding_ratio", "bytes"]:
    assert k in j["hll"], k
for k in ["blocks", "nnz_per_block", "histogram", "bytes"]:
    assert k in j["bmsparse"], k
for k in ["coo", "csr", "ell", "hll", "hyb", "bmsparse"]:
    assert "f64" in j["bytes"][k] and "f32" in j["bytes"][k], k
# lap2d n=10: 100 rows, 5*100 - 4*10 = 460 non-zeros, rows of 3..5 entries, distance 10.
assert j["rows"] == 100 and j["cols"] == 100, j
assert j["nnz"] == 460 and j["stored_entries"] == 460, j
assert j["row_nnz"]["min"] == 3 and j["row_nnz"]["max"] == 5, j["row_nnz"]
assert j["empty_rows"] == 0 and j["max_diag_distance"] == 10
assert j["ell"]["width"] == 5 and j["hll"]["hack_size"] == 32
assert len(j["bmsparse"]["histogram"]) == 64
assert sum((i + 1) * c for i, c in enumerate(j["bmsparse"]["histogram"])) == 460
assert sum(j["bmsparse"]["histogram"]) == j["bmsparse"]["blocks"]
assert j["bytes"]["csr"]["f64"] == 8 * 101 + 12 * 460
EOF

# .spkb output, hack size option, and the plain-text report.
"$SPKIT" gen random --n 50 --per-row 4 --seed 3 -o "$TMP/r.spkb" >/dev/null || fail "gen random .spkb"
"$SPKIT" info "$TMP/r.spkb" --json --hack-size 8 >"$TMP/r.json" || fail "info --json on .spkb"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["rows"]==50 and j["nnz"]==200 and j["hll"]["hack_size"]==8, j' \
  "$TMP/r.json" || fail "info figures (random .spkb)"
"$SPKIT" info "$TMP/r.spkb" >"$TMP/r.txt" || fail "info text"
grep -q "bmSparse" "$TMP/r.txt" || fail "info text lacks bmSparse"

# --nnz picks the size; every family works from the command line.
for fam in lap2d lap3d fem random powerlaw road circuit banded rmat geometric fem_mesh road_planar; do
  "$SPKIT" gen $fam --nnz 5000 -o "$TMP/$fam.mtx" >/dev/null || fail "gen $fam --nnz"
  "$SPKIT" info "$TMP/$fam.mtx" --json >"$TMP/$fam.json" || fail "info $fam"
  python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["nnz"]; assert 3000 <= n <= 7000, n' "$TMP/$fam.json" \
    || fail "gen $fam --nnz 5000 gave a size far off"
done

# info reports the diagonals and exact symmetry: the mesh-like families are symmetric, R-MAT is not.
for fam in lap2d geometric fem_mesh road_planar rmat; do
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["symmetric"] == (sys.argv[2] != "rmat"), j["symmetric"]; assert 1 <= j["diagonals"] <= 2 * j["rows"] - 1' \
    "$TMP/$fam.json" "$fam" || fail "info symmetric/diagonals ($fam)"
done
"$SPKIT" info "$TMP/road_planar.mtx" | grep -q "symmetric       yes" || fail "info text lacks symmetric"
"$SPKIT" gen fem_mesh --n 6 --dims 3 --element-order 2 --dof 2 --ordering random -o "$TMP/p2.mtx" >/dev/null || fail "gen fem_mesh P2"
expect_error "--element-order" "$TMP/bad.mtx" "$SPKIT" gen fem_mesh --n 5 --element-order 3 -o "$TMP/bad.mtx"
expect_error "--ordering" "$TMP/bad.mtx" "$SPKIT" gen road_planar --n 5 --ordering sfc -o "$TMP/bad.mtx"

# Same seed, different thread counts: identical files.
"$SPKIT" gen powerlaw --n 30000 --seed 11 --threads 1 -o "$TMP/p1.spkb" >/dev/null || fail "gen threads 1"
"$SPKIT" gen powerlaw --n 30000 --seed 11 --threads 2 -o "$TMP/p2.spkb" >/dev/null || fail "gen threads 2"
cmp -s "$TMP/p1.spkb" "$TMP/p2.spkb" || fail "gen depends on the thread count"
"$SPKIT" gen powerlaw --n 30000 --seed 12 -o "$TMP/p3.spkb" >/dev/null || fail "gen seed 12"
! cmp -s "$TMP/p1.spkb" "$TMP/p3.spkb" || fail "gen ignores the seed"

# Bad input: exit 1, one line, no output file.
expect_error "unknown generator family 'nosuch'" "$TMP/bad.mtx" "$SPKIT" gen nosuch --n 5 -o "$TMP/bad.mtx"
expect_error "--points" "$TMP/bad.mtx" "$SPKIT" gen lap3d --n 5 --points 9 -o "$TMP/bad.mtx"
expect_error ".mtx or .spkb" "$TMP/bad.txt" "$SPKIT" gen lap2d --n 5 -o "$TMP/bad.txt"
expect_error "--n N or --nnz" "$TMP/bad.mtx" "$SPKIT" gen lap2d -o "$TMP/bad.mtx"
expect_error "--hack-size" "" "$SPKIT" info "$TMP/lap.mtx" --hack-size 0
expect_error "nonexistent" "" "$SPKIT" info "$TMP/nonexistent.mtx"
echo "gen_info: all passed"
