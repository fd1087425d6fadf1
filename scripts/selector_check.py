#!/usr/bin/env python3
"""Compares the selector's predictions (bench/select/selector_calibrate.cpp CSV) with measured bench CSVs.

    python3 scripts/selector_check.py predicted.csv docs/perf/data/gpu-bench-h100-large.csv [backend]

Per matrix and precision: the pick, its measured time, the best measured kernel among those with a cost
model and among all (baselines included), and, per kernel, predicted / measured time."""
import csv
import math
import sys

args = [a for a in sys.argv[1:] if a != "--md"]
markdown = "--md" in sys.argv
pred_path, meas_path = args[0], args[1]
backend = args[2] if len(args) > 2 else "cuda"
prec_name = {"double": "double", "float": "float"}
pred = [r for r in csv.DictReader(open(pred_path)) if r["backend"] == backend]
meas = {}
for r in csv.DictReader(open(meas_path)):
    if r["status"] != "ok" or r.get("l2_flushed", "false") == "true":
        continue
    key = (r["matrix"], r["precision"], r["kernel"])
    t = float(r["median_ms"])
    meas[key] = min(t, meas.get(key, t))

within = total = 0
ratios = []
for m in sorted({r["matrix"] for r in pred}):
    for p in ("double", "float"):
        rows = [r for r in pred if r["matrix"] == m and r["precision"] == p]
        if not rows:
            continue
        P = prec_name[p]
        have = {k: v for (mm, pp, k), v in meas.items() if mm == m and pp == P}
        if not have:
            continue
        pick = next(r["kernel"] for r in rows if r["picked"] == "1")
        modelled = {r["kernel"]: float(r["spmv_ms"]) for r in rows if r["applicable"] == "1"}
        best_all = min(have.items(), key=lambda kv: kv[1])
        best_mod = min(((k, v) for k, v in have.items() if k in modelled), key=lambda kv: kv[1], default=(None, None))
        t_pick = have.get(pick)
        total += 1
        ratio = t_pick / best_mod[1] if t_pick and best_mod[1] else float("nan")
        if t_pick and ratio <= 1.10:
            within += 1
        ratios.append(ratio)
        if markdown:
            by_err = [abs(math.log(pm / have[k])) for k, pm in modelled.items() if k in have]
            print(f"| {m} | {p} | {pick} | {t_pick:.4f} | {best_mod[0]} | {best_mod[1]:.4f} | {ratio:.2f} | "
                  f"{best_all[0]} | {best_all[1]:.4f} | {t_pick / best_all[1]:.2f} | "
                  f"{math.exp(sum(by_err) / len(by_err)):.2f} |")
            continue
        print(f"{m:10s} {p}: pick {pick:22s} {t_pick if t_pick else float('nan'):.4f} ms | best modelled "
              f"{best_mod[0]} {best_mod[1]:.4f} (pick/best {ratio:.2f}) | best of all {best_all[0]} {best_all[1]:.4f} "
              f"(pick/best {t_pick / best_all[1] if t_pick else float('nan'):.2f})")
        for k, pm in sorted(modelled.items(), key=lambda kv: kv[1]):
            if k in have:
                print(f"      {k:24s} predicted {pm:.4f} measured {have[k]:.4f}  pred/meas {pm / have[k]:.2f}")
print(f"pick within 10% of the best modelled kernel: {within}/{total}")
