#!/usr/bin/env bash
# spkit convert: round trips .mtx -> .spkb -> .mtx, and bad input -> exit 1, one line, no output file.
# Called as: bash convert.sh <path-to-spkit> <source-dir>
set -u
SPKIT=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$TMP/a.mtx" <<'MTX'
%%MatrixMarket matrix coordinate real symmetric
% a small symmetric matrix
3 3 4
1 1 2.5
2 1 -1
3 2 1e-3
3 3 4
MTX
"$SPKIT" convert "$TMP/a.mtx" "$TMP/a.spkb" || fail "mtx -> spkb"
"$SPKIT" convert "$TMP/a.spkb" "$TMP/b.mtx" || fail "spkb -> mtx"
"$SPKIT" convert "$TMP/b.mtx" "$TMP/c.mtx" || fail "mtx -> mtx"
grep -v '^%' "$TMP/b.mtx" > "$TMP/b.body"
grep -v '^%' "$TMP/c.mtx" > "$TMP/c.body"
cmp -s "$TMP/b.body" "$TMP/c.body" || fail "mtx -> spkb -> mtx -> mtx changed the matrix"
[ "$(head -1 "$TMP/b.body")" = "3 3 6" ] || fail "symmetric expansion: expected '3 3 6', got '$(head -1 "$TMP/b.body")'"
gzip -c "$TMP/a.mtx" > "$TMP/a.mtx.gz"
"$SPKIT" convert "$TMP/a.mtx.gz" "$TMP/d.mtx" || fail "mtx.gz -> mtx"
cmp -s <(grep -v '^%' "$TMP/d.mtx") "$TMP/b.body" || fail "gzip input differs"

# Bad inputs: exit code 1, exactly one line on stderr naming the file, no output left behind.
expect_error() {  # name, input file, fragment
  local name=$1 in=$2 fragment=$3
  for out in "$TMP/out_$name.mtx" "$TMP/out_$name.spkb"; do
    "$SPKIT" convert "$in" "$out" > "$TMP/stdout" 2> "$TMP/stderr"
    local rc=$?
    [ $rc -eq 1 ] || fail "$name: exit code $rc, expected 1"
    [ "$(wc -l < "$TMP/stderr")" -eq 1 ] || fail "$name: stderr is not one line: $(cat "$TMP/stderr")"
    grep -q -- "$fragment" "$TMP/stderr" || fail "$name: stderr lacks '$fragment': $(cat "$TMP/stderr")"
    [ ! -e "$out" ] || fail "$name: output file left behind"
    ls "$TMP" | grep -q '\.tmp-' && fail "$name: temporary file left behind"
  done
  return 0
}
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 1\n' > "$TMP/bad_index.mtx"
expect_error bad_index "$TMP/bad_index.mtx" "bad_index.mtx:4: row index '4' is outside 1..3"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n' > "$TMP/short.mtx"
expect_error short "$TMP/short.mtx" "short.mtx:4: file ends after 1 of the 3 entries"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 nan\n' > "$TMP/nan.mtx"
expect_error nan "$TMP/nan.mtx" "nan.mtx:3: value 'nan' is NaN"
: > "$TMP/empty.mtx"
expect_error empty "$TMP/empty.mtx" "empty.mtx:1: empty file"
head -c 300 /dev/urandom > "$TMP/random.bin"; printf '\0' >> "$TMP/random.bin"
expect_error binary "$TMP/random.bin" "random.bin"
head -c $(( $(stat -c %s "$TMP/a.mtx.gz") - 10 )) "$TMP/a.mtx.gz" > "$TMP/cut.mtx.gz"
expect_error truncated_gz "$TMP/cut.mtx.gz" "gzip"
head -c 150 "$TMP/a.spkb" > "$TMP/cut.spkb"
expect_error truncated_spkb "$TMP/cut.spkb" "truncated"
expect_error missing "$TMP/does_not_exist.mtx" "cannot open"

# A failed conversion does not clobber an existing output.
echo keep > "$TMP/keep.mtx"
"$SPKIT" convert "$TMP/bad_index.mtx" "$TMP/keep.mtx" 2> /dev/null && fail "bad input accepted"
[ "$(cat "$TMP/keep.mtx")" = keep ] || fail "existing output clobbered"
# Unknown output extension: refused before any work.
"$SPKIT" convert "$TMP/a.mtx" "$TMP/a.txt" 2> "$TMP/stderr" && fail "accepted .txt output"
grep -q "must end in .mtx or .spkb" "$TMP/stderr" || fail "extension message: $(cat "$TMP/stderr")"
echo "convert.sh: all passed"
