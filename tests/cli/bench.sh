#!/usr/bin/env bash
# spkit bench end to end on the hidden tiny suite with a kernel subset: results.json with the
# documented keys, results.csv with as many rows, the report (plots non-empty, HTML self-contained),
# --resume skipping finished cells, Ctrl-C leaving valid results and exit 130, spkit report, and
# spkit compare passing identical files and flagging planted regressions.
# Usage: bash bench.sh <path-to-spkit> <source-dir>
set -euo pipefail
SPKIT=$1
SRC=$2
PY=${SPKIT_PYTHON:-python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export SPKIT_REPORT_SCRIPT="$SRC/scripts/report.py"

# A small real matrix file, so the file path and the parse timing are exercised too.
cat > "$T/small.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real symmetric
5 5 7
1 1 4.0
2 1 -1.0
2 2 4.0
3 3 4.0
4 3 -1.0
4 4 4.0
5 5 2.5
EOF

KERNELS='cpu.csr.serial,cpu.csr.omp.*,cpu.bmsparse.*,ref.eigen*'
RUN=(--size tiny --kernels "$KERNELS" --threads 1,2 --reps 3 --warmup 1 --matrices "$T/small.mtx")

echo "== bench (tiny suite)"
"$SPKIT" bench "${RUN[@]}" --out "$T/a" >"$T/a.out" 2>"$T/a.err" || { cat "$T/a.err"; fail "spkit bench exited non-zero"; }
grep -q "best spkit kernel" "$T/a.out" || fail "no summary table on stdout"
grep -q "\[1/14\]" "$T/a.err" || fail "no progress (matrix i of n) on stderr"
grep -q "remaining" "$T/a.err" || fail "no time estimate in the progress"

echo "== results.json keys, results.csv rows"
"$PY" - "$T/a" <<'EOF'
import csv, json, sys
d = sys.argv[1]
r = json.load(open(f"{d}/results.json"))
for key in ("spkit_version", "git_commit", "machine", "matrices", "results", "options", "created_utc"):
    assert key in r, f"results.json lacks '{key}'"
for key in ("cpu_model", "logical_cpus", "gpu_name", "cpu_read_gbs", "cpu_copy_gbs"):
    assert key in r["machine"], f"machine lacks '{key}'"
assert r["machine"]["cpu_read_gbs"] > 0, "CPU bandwidth not measured"
assert r["complete"] is True
rows = r["results"]
assert rows, "no result rows"
documented = ["matrix", "kernel", "format", "backend", "precision", "threads", "conversion_ms", "median_ms",
              "mean_ms", "gflops", "gbytes_per_s", "own_gbytes_per_s", "speedup", "efficiency", "rel_l2_error",
              "max_abs_error", "valid", "status", "note", "rows", "cols", "nnz", "row_nnz_mean", "row_nnz_std",
              "row_nnz_max", "ell_padding_ratio", "hll_padding_ratio", "bm_nnz_per_block", "parse_mb_s",
              "fmm_parse_mb_s", "optimize_ms", "working_set_bytes", "cache_bytes", "cache_ratio", "in_cache"]
for row in rows:
    missing = [k for k in documented if k not in row]
    assert not missing, f"row lacks {missing}"
matrices = {row["matrix"] for row in rows}
expected = {"lap2d", "lap3d7", "lap3d27", "fem", "random", "powerlaw", "road", "circuit", "banded", "small",
            "rmat", "geometric", "fem_mesh", "road_planar"}
# The cache fit is recorded: the machine's LLC (as read) and, per row, the working set over it.
assert r["machine"].get("llc_source"), "machine lacks llc_source"
for row in rows:
    if r["machine"]["llc_bytes"] > 0 and row["backend"] == "cpu":
        assert row["cache_bytes"] == r["machine"]["llc_bytes"] and row["cache_ratio"] > 0, row["matrix"]
assert matrices == expected, f"matrices {sorted(matrices)} != {sorted(expected)}"
assert any(row["status"] == "ok" and row["valid"] and row["gflops"] > 0 for row in rows), "no valid timed row"
ok = [row for row in rows if row["status"] == "ok"]
assert all(row["valid"] for row in ok), "a row marked ok did not validate"
assert any(row["threads"] == 2 for row in rows), "no thread sweep"
assert {row["precision"] for row in rows} == {"float", "double"}, "not both precisions"
small = [m for m in r["matrices"] if m["name"] == "small"][0]
assert small["nnz"] == 9 and small["parse_mb_s"] > 0, f"file matrix stats/parse: {small}"
with open(f"{d}/results.csv", newline="") as f:
    csv_rows = list(csv.DictReader(f))
assert len(csv_rows) == len(rows), f"CSV has {len(csv_rows)} rows, JSON {len(rows)}"
assert [c["kernel"] for c in csv_rows] == [j["kernel"] for j in rows]
print(f"ok: {len(rows)} rows, {len(matrices)} matrices")
EOF

echo "== report"
[ -s "$T/a/report.html" ] || fail "report.html missing"
[ -s "$T/a/report.md" ] || fail "report.md missing"
if grep -Eq 'https?://' "$T/a/report.html"; then fail "report.html references a URL (must be self-contained)"; fi
grep -q 'src="data:image/png;base64,' "$T/a/report.html" || {
  "$PY" -c "import matplotlib" 2>/dev/null && fail "no embedded plot in report.html"
  echo "note: matplotlib missing, plot checks skipped"
}
if "$PY" -c "import matplotlib" 2>/dev/null; then
  n=$(find "$T/a/plots" -name '*.png' -size +2k | wc -l)
  [ "$n" -ge 4 ] || fail "expected at least 4 non-empty plots, found $n"
  grep -q '](plots/gflops_cpu_double.png)' "$T/a/report.md" || fail "report.md does not link the GFLOPS plot"
  [ -s "$T/a/plots/gflops_cpu_double.png" ] || fail "gflops plot missing"
fi
"$SPKIT" report "$T/a/results.json" --out "$T/regen" 2>/dev/null || fail "spkit report failed"
[ -s "$T/regen/report.html" ] || fail "spkit report wrote no report.html"

# Without matplotlib: tables still written, a warning, exit 0.
mkdir -p "$T/nompl/matplotlib"
echo 'raise ImportError("matplotlib hidden by the test")' >"$T/nompl/matplotlib/__init__.py"
PYTHONPATH="$T/nompl" "$PY" "$SRC/scripts/report.py" "$T/a/results.json" --out "$T/nompl_out" 2>"$T/nompl.err" \
  || fail "report.py failed without matplotlib"
grep -q "plots were skipped" "$T/nompl.err" || fail "no warning about skipped plots"
grep -q "| lap2d |" "$T/nompl_out/report.md" || fail "no tables without matplotlib"

echo "== --resume skips finished cells"
rows_before=$("$PY" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['results']))" "$T/a/results.json")
"$SPKIT" bench "${RUN[@]}" --out "$T/a" --resume --no-report >/dev/null 2>"$T/resume.err" || fail "resume run failed"
grep -q ", 0 to run" "$T/resume.err" || { cat "$T/resume.err"; fail "resume did not find every cell done"; }
[ "$(grep -c 'skipped, all cells already done' "$T/resume.err")" -eq 14 ] || fail "resume re-ran a matrix"
# Drop one matrix's rows: a resumed run redoes exactly those.
"$PY" - "$T/a/results.json" "$T/b.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["results"] = [row for row in r["results"] if row["matrix"] != "road"]
json.dump(r, open(sys.argv[2], "w"))
EOF
mkdir -p "$T/b" && cp "$T/b.json" "$T/b/results.json"
"$SPKIT" bench "${RUN[@]}" --out "$T/b" --resume --no-report >/dev/null 2>"$T/resume2.err" || fail "partial resume failed"
[ "$(grep -c 'skipped, all cells already done' "$T/resume2.err")" -eq 13 ] || fail "partial resume: wrong matrices re-run"
grep -q "road (" "$T/resume2.err" || fail "partial resume did not run road"
rows_after=$("$PY" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['results']))" "$T/b/results.json")
[ "$rows_after" -eq "$rows_before" ] || fail "resumed results have $rows_after rows, expected $rows_before"

echo "== Ctrl-C leaves valid results and exits 130"
"$SPKIT" bench --size tiny --kernels 'cpu.csr.*' --threads 1 --reps 20000 --out "$T/int" --no-report >/dev/null 2>"$T/int.err" &
pid=$!
for _ in $(seq 1 300); do
  if [ -s "$T/int/results.json" ] && "$PY" -c "import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))['results'] else 1)" "$T/int/results.json" 2>/dev/null; then break; fi
  sleep 0.1
done
kill -INT "$pid" 2>/dev/null || true
set +e; wait "$pid"; rc=$?; set -e
[ "$rc" -eq 130 ] || { cat "$T/int.err"; fail "interrupted bench exited $rc, expected 130"; }
grep -q "interrupted" "$T/int.err" || fail "no interruption message"
"$PY" -c "
import json, sys
r = json.load(open(sys.argv[1]))
assert r['complete'] is False and r['results'], 'interrupted results not marked incomplete or empty'
" "$T/int/results.json" || fail "results after Ctrl-C are not valid"
ls "$T/int" | grep -q '\.tmp' && fail "temporary file left behind"

echo "== compare"
"$SPKIT" compare "$T/a/results.json" "$T/a/results.json" >"$T/cmp.out" || fail "compare of identical files exited non-zero"
grep -q "OK" "$T/cmp.out" || fail "compare did not report OK"
"$PY" - "$T/a/results.json" "$T/slow.json" "$T/broken.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
row = next(x for x in r["results"] if x["status"] == "ok" and x["valid"])
row["median_ms"] *= 1.5  # planted: 50% slower
json.dump(r, open(sys.argv[2], "w"))
r = json.load(open(sys.argv[1]))
row = next(x for x in r["results"] if x["status"] == "ok" and x["valid"])
row["valid"] = False
row["status"] = "FAILED"
json.dump(r, open(sys.argv[3], "w"))
EOF
set +e
"$SPKIT" compare "$T/a/results.json" "$T/slow.json" >"$T/cmp_slow.out"; rc_slow=$?
"$SPKIT" compare "$T/a/results.json" "$T/broken.json" >"$T/cmp_broken.out"; rc_broken=$?
"$SPKIT" compare "$T/a/results.json" "$T/slow.json" --threshold 0.6 >/dev/null; rc_loose=$?
"$SPKIT" compare "$T/a/results.json" "$T/slow.json" --json >"$T/cmp.json"; rc_json=$?
set -e
[ "$rc_slow" -ne 0 ] || fail "compare missed a 50% slowdown"
grep -q "SLOWER" "$T/cmp_slow.out" || fail "compare did not name the slower cell"
[ "$rc_broken" -ne 0 ] || fail "compare missed a kernel that stopped validating"
grep -q "STOPPED VALIDATING" "$T/cmp_broken.out" || fail "compare did not name the failing cell"
[ "$rc_loose" -eq 0 ] || fail "compare flagged a 50% slowdown with --threshold 0.6"
[ "$rc_json" -ne 0 ] || fail "compare --json missed the slowdown"
"$PY" -c "import json,sys; c=json.load(open(sys.argv[1])); assert c['regression'] and c['slower']==1, c" "$T/cmp.json" \
  || fail "compare --json output wrong"
echo "== SpGEMM section: spgemm.json/csv, report section, --no-spgemm"
"$PY" - "$T/a" <<'EOF'
import csv, json, sys
d = sys.argv[1]
s = json.load(open(f"{d}/spgemm.json"))
entries = {e["matrix"]: e for e in s["entries"]}
for m in ("lap2d", "fem", "banded", "small"):
    assert m in entries and not entries[m]["skipped"], f"no SpGEMM rows for {m}"
    rows = entries[m]["results"]
    assert rows and all(r["status"] in ("ok", "skipped") for r in rows), [(r["kernel"], r["status"], r["note"]) for r in rows]
    assert any(r["status"] == "ok" and r["gflops"] > 0 and r["out_nnz"] > 0 for r in rows), m
lines = list(csv.DictReader(open(f"{d}/spgemm.csv")))
assert len(lines) == sum(len(e["results"]) for e in s["entries"]), "spgemm.csv and spgemm.json disagree"
EOF
grep -q "SpGEMM: C = A A" "$T/a/report.md" || fail "no SpGEMM section in the report"
grep -q "SpGEMM C = A A" "$T/a.out" || fail "no SpGEMM table on stdout"
"$SPKIT" bench --size tiny --kernels 'cpu.csr.serial' --threads 1 --reps 1 --no-spgemm --no-report --out "$T/nosg" \
  >/dev/null 2>&1 || fail "bench --no-spgemm failed"
[ ! -e "$T/nosg/spgemm.json" ] || fail "--no-spgemm still wrote spgemm.json"
echo "bench.sh: all checks passed"
