# Auto vs best over the spkit spmv JSON rows of this folder: python3 analyze.py DIR [min_ms|median_ms]
import json, sys, os
d=sys.argv[1]; key=sys.argv[2] if len(sys.argv)>2 else "median_ms"
n=w=wo=0
print("| matrix | prec | auto picked | auto ms | best kernel | best ms | ratio | own-row ratio | runner-up kernels (ms) |")
print("|---|---|---|---:|---|---:|---:|---:|---|")
for m in ["lap2d","lap3d7","lap3d27","fem","random","powerlaw","road","circuit","banded"]:
    p=f"{d}/spmv-{m}.json"
    if not os.path.exists(p) or os.path.getsize(p)==0: continue
    rows=json.load(open(p))
    for a in rows:
        if a["kernel"]!="auto" or a["status"]!="ok": continue
        others=[r for r in rows if r["kernel"]!="auto" and r["status"]=="ok" and r["valid"] and r["precision"]==a["precision"] and r["threads"]<=a["threads"] and not r["comparison"]]
        best=min(others,key=lambda r:r[key])
        own=next((r for r in others if r["kernel"]==a["picked"] and r["threads"]==a["threads"]),None)
        ratio=a[key]/best[key]; oratio=own[key]/best[key] if own else float('nan')
        n+=1; w+=ratio<=1.1; wo+=oratio<=1.1
        top=sorted(others,key=lambda r:r[key])[:4]
        print(f"| {m} | {a['precision']} | {a['picked']} | {a[key]:.3f} | {best['kernel']} | {best[key]:.3f} | {ratio:.2f} | {oratio:.2f} | " + ", ".join(f"{r['kernel'].replace('cpu.','')} {r[key]:.3f}" for r in top) + " |")
print(f"\nwithin 10% ({key}): auto row {w}/{n}, picked kernel's own row {wo}/{n}")
