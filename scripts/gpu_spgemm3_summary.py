#!/usr/bin/env python3
"""Scratch (not part of the handed-over branch): one CSV line per precision from `spkit spgemm --json`."""
import json
import os
import sys

name, src, csv_path, jsonl_path = sys.argv[1:5]
try:
    rows = json.load(open(src))
except Exception as e:  # cut off or failed: say so in the summary
    rows = []
    print(f"{name}: no JSON ({e})")
with open(jsonl_path, "a") as f:
    f.write(json.dumps({"matrix": name, "rows": rows}, separators=(",", ":")) + "\n")
head = ("matrix,precision,auto_ms,auto_kernel,binned_ms,binned_stages,hash_ms,cusparse_best,cusparse_best_ms,"
        "cusparse_default_ms,alg2_ms,alg3_ms,binned_vs_best,auto_vs_best,binned_rel_error,out_nnz,products,failures\n")
new = not os.path.exists(csv_path)
with open(csv_path, "a") as out:
    if new:
        out.write(head)
    for prec in ("double", "float"):
        rs = [r for r in rows if r.get("precision") == prec]
        if not rs:
            continue
        by = {r["kernel"]: r for r in rs}

        def ms(k):
            r = by.get(k)
            return r["total_ms"] if r and r.get("status") == "ok" else ""

        cus = {k: ms(k) for k in ("cuda.cusparse.spgemm", "cuda.cusparse.spgemm_alg2", "cuda.cusparse.spgemm_alg3")}
        ok = [(v, k) for k, v in cus.items() if v != ""]
        best_ms, best = min(ok) if ok else ("", "")
        auto = by.get("auto", {})
        note = auto.get("note", "")
        picked = note[len("picked "):].split(":")[0][:90] if note.startswith("picked ") else note[:90]
        binned = by.get("cuda.csr.binned", {})
        stages = ";".join(f"{s['name']}={s['ms']:.3f}" for s in binned.get("stages", []) if s.get("in_total"))
        ratio = lambda v: f"{best_ms / v:.2f}" if best_ms != "" and v not in ("", 0) else ""
        fails = ";".join(f"{r['kernel']}:{r['status']}" for r in rs if r.get("status") != "ok")
        out.write(",".join(str(x) for x in (
            name, prec, ms("auto"), f'"{picked}"', ms("cuda.csr.binned"), f'"{stages}"', ms("cuda.csr.hash"), best,
            best_ms, cus["cuda.cusparse.spgemm"], cus["cuda.cusparse.spgemm_alg2"], cus["cuda.cusparse.spgemm_alg3"],
            ratio(ms("cuda.csr.binned")), ratio(ms("auto")), binned.get("rel_error", ""), binned.get("out_nnz", ""),
            binned.get("products", ""), f'"{fails}"')) + "\n")
print(f"{name}: {len(rows)} rows")
