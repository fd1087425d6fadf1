#!/usr/bin/env python3
"""Scratch: per-launch kernel durations from `ncu --csv --metrics gpu__time_duration.sum`, one short line each."""
import csv
import sys

rows = list(csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')))
if not rows:
    print("no ncu rows")
    sys.exit(0)
h = rows[0]
ki, gi, vi, ui = h.index("Kernel Name"), h.index("Grid Size"), h.index("Metric Value"), h.index("Metric Unit")
for r in rows[1:]:
    name = r[ki].split("(")[0].replace("spkit::cuda::", "").replace("binned::", "")
    if "<" in name:
        name = name[: name.index("<")] + "<" + r[ki].split("<", 1)[1][:40]
    print(f"{r[vi]:>12} {r[ui]:<6} grid {r[gi]:<14} {name[:110]}")
