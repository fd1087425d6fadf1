#!/usr/bin/env python3
"""Markdown table of the JSON rows bench/spgemm/cpu.sh wrote (one file per matrix x threads).

    python3 bench/spgemm/table.py OUT
"""
import glob
import json
import os
import sys

out = sys.argv[1]
rows = []
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    name = os.path.basename(path)[:-5].split(".")
    matrix, threads = name[0], int(name[1][1:])
    only_bmsparse = len(name) > 2 and name[2] == "bmsparse"  # the one-rep bmSparse runs: their MKL row is a repeat
    try:
        data = json.load(open(path))
    except ValueError:
        print(f"table.py: skipping {path} (not complete JSON)", file=sys.stderr)
        continue
    for r in data:
        if only_bmsparse and r["kernel"] != "cpu.bmsparse.blocks":
            continue
        rows.append((matrix, threads, r))
order = ["fem", "lap3d27", "banded", "powerlaw", "road"]
rows.sort(key=lambda x: (order.index(x[0]) if x[0] in order else 99, x[0], x[2]["precision"] != "float", x[1],
                         x[2]["comparison"], x[2]["kernel"]))
# MKL's total for ratios computed across files (the bmSparse-only runs of block-poor matrices).
mkl = {(m, t, r["precision"]): r["total_ms"] for m, t, r in rows if r["kernel"] == "ref.mkl.sp2m" and r["status"] == "ok"}
print("| matrix | prec | thr | kernel | total ms (median) | min ms | GFLOPS | vs MKL | C nnz | C blocks | stages ms (medians; * not in total) |")
print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|")
for m, t, r in rows:
    if r["status"] != "ok":
        print(f'| {m} | {r["precision"]} | {t} | {r["kernel"]} | - | - | - | - | - | - | {r["status"]}: {r["note"]} |')
        continue
    base = mkl.get((m, t, r["precision"]))
    ratio = f'{base / r["total_ms"]:.2f}x' if base else "-"
    stages = ", ".join(f'{s["name"]} {s["ms"]:.3g}' + ("" if s["in_total"] else "*") for s in r["stages"])
    blocks = str(r["out_blocks"]) if r["out_blocks"] >= 0 else "-"
    print(f'| {m} | {r["precision"]} | {t} | {r["kernel"]} | {r["total_ms"]:.1f} | {r.get("min_total_ms", 0):.1f} | '
          f'{r["gflops"]:.3f} | {ratio} | {r["out_nnz"]} | {blocks} | {stages} |')
