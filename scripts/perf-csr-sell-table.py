#!/usr/bin/env python3
"""Markdown tables from scripts/perf-csr-sell.sh output: per matrix, every kernel in fp64 and fp32 with
median ms, GFLOPS, effective and own-format % of copy bandwidth and the ratio to cuSPARSE's best.
   scripts/perf-csr-sell-table.py DIR   (DIR holds bandwidth.json and spmv_<family>.json)"""
import json
import pathlib
import sys

d = pathlib.Path(sys.argv[1])
copy = json.loads((d / "bandwidth.json").read_text())["gpu"]["copy_gbs"]
print(f"copy bandwidth {copy:.0f} GB/s\n")
summary = []
for f in sorted(d.glob("spmv_*.json")):
    fam = f.stem[len("spmv_"):]
    rows = json.loads(f.read_text())
    best = {}
    for r in rows:
        if r["status"] == "ok" and r["kernel"].startswith("cuda.cusparse."):
            p = r["precision"]
            if p not in best or r["median_ms"] < best[p][0]:
                best[p] = (r["median_ms"], r["kernel"])
    print(f"### {fam}\n")
    print("cuSPARSE best: " + ", ".join(f"{p} {k} {ms:.4f} ms" for p, (ms, k) in sorted(best.items())) + "\n")
    print("| kernel | fp64 ms | GFLOPS | eff. % copy | own % copy | × cuSPARSE best | fp32 ms | GFLOPS | eff. % copy | own % copy | × cuSPARSE best | detail (fp64) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    by = {}
    for r in rows:
        by.setdefault(r["kernel"], {})[r["precision"]] = r
    for k, pr in by.items():
        cells = []
        for p in ("double", "float"):
            r = pr.get(p)
            if r is None or r["status"] != "ok":
                cells += [r["status"] if r else "-", "–", "–", "–", "–"]
                continue
            ratio = best[p][0] / r["median_ms"] if p in best else 0
            cells += [f"{r['median_ms']:.4f}", f"{r['gflops']:.1f}", f"{100 * r['gbytes_per_s'] / copy:.1f}",
                      f"{100 * r['own_gbytes_per_s'] / copy:.1f}", f"{ratio:.2f}"]
            if k.startswith("cuda.csr.merge") or k.startswith("cuda.sell."):
                summary.append((fam, p, k, ratio))
        note = (pr.get("double") or pr.get("float"))["note"]
        print(f"| {k} | " + " | ".join(cells) + f" | {note} |")
    print()
print("### new kernels against cuSPARSE's best\n")
print("| matrix | precision | kernel | × cuSPARSE best |")
print("|---|---|---|---:|")
for fam, p, k, ratio in summary:
    print(f"| {fam} | {p} | {k} | {ratio:.2f} |")
