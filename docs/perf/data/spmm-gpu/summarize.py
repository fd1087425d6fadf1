#!/usr/bin/env python3
"""Summary of `spkit spmm --json` runs (files MATRIX.*.json in a folder, or one merged JSON):
per matrix, precision, layout and k, spkit's kernel against the fastest cuSPARSE algorithm of the same
run, and against k SpMVs with spkit's SpMV pick. Writes the merged rows (--json) and the summary (--csv)."""
import argparse
import csv
import glob
import json
import os
import sys


def load(path):
    if os.path.isdir(path):
        rows = []
        for f in sorted(glob.glob(os.path.join(path, "*.json"))):
            matrix = os.path.basename(f).split(".")[0]  # MATRIX.PRECISION[.LAYOUTS].json
            try:
                with open(f) as fh:
                    part = json.load(fh)
            except (OSError, ValueError) as e:
                print(f"{f}: unreadable ({e})", file=sys.stderr)
                continue
            for r in part:
                r["matrix"] = matrix
            rows += part
        return rows
    with open(path) as fh:
        return json.load(fh)


def summarize(rows):
    groups = {}
    for r in rows:
        groups.setdefault((r["matrix"], r["precision"], r["layout"], r["k"]), []).append(r)
    out = []
    for (matrix, precision, layout, k), rs in sorted(groups.items(), key=lambda g: (g[0][0], g[0][1], g[0][2], g[0][3])):
        ok = [r for r in rs if r["status"] == "ok" and r["median_ms"] > 0]
        own = [r for r in ok if not r["comparison"]]
        vendor = [r for r in ok if r["comparison"]]
        failed = [r["kernel"] for r in rs if r["status"] == "FAILED"]
        best_own = min(own, key=lambda r: r["median_ms"]) if own else None
        best_vendor = min(vendor, key=lambda r: r["median_ms"]) if vendor else None
        out.append({
            "matrix": matrix, "precision": precision, "layout": layout, "k": k,
            "spkit_kernel": best_own["kernel"] if best_own else "",
            "spkit_ms": round(best_own["median_ms"], 4) if best_own else "",
            "spkit_gflops": round(best_own["gflops"], 1) if best_own else "",
            "spkit_gbs": round(best_own["gbytes_per_s"], 0) if best_own else "",
            "cusparse_best": best_vendor["kernel"].replace("cuda.cusparse.spmm_", "") if best_vendor else "",
            "cusparse_ms": round(best_vendor["median_ms"], 4) if best_vendor else "",
            "speedup_vs_cusparse": round(best_vendor["median_ms"] / best_own["median_ms"], 2) if best_own and best_vendor else "",
            "vs_k_spmv": round(best_own["vs_spmv"], 2) if best_own else "",
            "spmv_kernel": best_own["spmv_kernel"] if best_own else "",
            "failed": " ".join(failed),
        })
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("source", help="folder of MATRIX.PRECISION.json files, or a merged JSON")
    ap.add_argument("--json", help="write the merged rows here")
    ap.add_argument("--csv", help="write the summary here")
    args = ap.parse_args()
    rows = load(args.source)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    summary = summarize(rows)
    if args.csv and summary:
        with open(args.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(summary[0].keys()))
            w.writeheader()
            w.writerows(summary)
    print(f"{'matrix':<20} {'prec':<6} {'lay':<3} {'k':>3} {'spkit ms':>9} {'GFLOPS':>7} {'cuSPARSE':>8} {'ms':>9} "
          f"{'x cuSP':>6} {'x kSpMV':>7} failed")
    for s in summary:
        print(f"{s['matrix']:<20} {s['precision']:<6} {s['layout']:<3} {s['k']:>3} {s['spkit_ms']!s:>9} "
              f"{s['spkit_gflops']!s:>7} {s['cusparse_best']:>8} {s['cusparse_ms']!s:>9} {s['speedup_vs_cusparse']!s:>6} "
              f"{s['vs_k_spmv']!s:>7} {s['failed']}")


if __name__ == "__main__":
    main()
