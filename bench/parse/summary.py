#!/usr/bin/env python3
"""Medians over every repetition of every round of bench/parse/run.sh logs.
usage: bench/parse/summary.py LOG [LOG ...]
Prints, per file and thread count, a Markdown table row: MB/s of the .mtx file from the median time
(best in brackets), spkit's COO->CSR in ms, and spkit .mtx->CSR's speed over fast_matrix_market's
read_coo (or over scipy.io.mmread, fmm's copy inside scipy, where the package is missing)."""
import re
import statistics
import sys
from collections import defaultdict

LINE = re.compile(r"^(spkit|fmm)\s+(\S+)\s+threads=(\d+)\s+best_s=(\S+).*?(MB/s|GB/s)=(\S+) \(best\).* file=(\S+) all_s=(\S+)")
times = defaultdict(list)  # (file, threads, name) -> seconds
megabytes = {}             # (file, name) -> MB read
for path in sys.argv[1:]:
    for line in open(path):
        m = LINE.match(line.strip())
        if not m:
            continue
        tool, what, threads, best, unit, rate, file, all_s = m.groups()
        name = f"{tool} {what}"
        times[(file, int(threads), name)] += [float(x) for x in all_s.split(",")]
        megabytes[(file, name)] = float(rate) * float(best) * (1e3 if unit == "GB/s" else 1.0)


def cell(file, threads, name, ms=False):
    t = times.get((file, threads, name))
    if not t:
        return "–", None
    med, best = statistics.median(t), min(t)
    if ms:
        return f"{med * 1e3:.0f} ms ({best * 1e3:.0f})", med
    mb = megabytes[(file, name)]
    return f"{mb / med:.0f} ({mb / best:.0f})", med


for file in sorted({k[0] for k in times if not k[0].endswith(".spkb")}):
    print(f"\n{file}: MB/s of the file from the median time (best), n = repetitions x rounds\n")
    fmm_name = "fmm read_coo" if any(k[2] == "fmm read_coo" for k in times) else "fmm scipy-mmread"
    print(f"| threads | n | spkit .mtx→COO | **spkit .mtx→CSR** | {fmm_name} | scipy mmread→CSR | spkit COO→CSR | "
          f".mtx→CSR speed ÷ {fmm_name} (medians) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for threads in sorted({k[1] for k in times if k[0] == file}):
        coo, _ = cell(file, threads, "spkit mtx->COO")
        csr, t_csr = cell(file, threads, "spkit mtx->CSR")
        fmm, t_fmm = cell(file, threads, fmm_name)
        tocsr, _ = cell(file, threads, "fmm mmread.tocsr")
        conv, _ = cell(file, threads, "spkit COO->CSR", ms=True)
        n = len(times.get((file, threads, "spkit mtx->CSR"), []))
        ratio = f"{t_fmm / t_csr:.2f}×" if t_csr and t_fmm else "–"
        print(f"| {threads} | {n} | {coo} | **{csr}** | {fmm} | {tocsr} | {conv} | {ratio} |")
