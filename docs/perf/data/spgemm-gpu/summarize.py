#!/usr/bin/env python3
"""One line per (matrix, precision) from `spkit spgemm --json` files: auto's time and kernel, the binned
kernel's time and stages, cuSPARSE's best algorithm and time, and the ratios."""
import json, os, sys

print("matrix,precision,products,nnz_c,auto_ms,auto_kernel,binned_ms,cusparse_best_ms,cusparse_best,"
      "binned_vs_cusparse_best,auto_vs_cusparse_best,binned_stages_ms")
for path in sys.argv[1:]:
    name = os.path.basename(path)[:-5]
    try:
        rows = json.load(open(path))
    except Exception as e:  # a run cut off by its timeout leaves no JSON
        print(f"{name},,,,,,,,,,,unreadable: {e}".replace("\n", " "))
        continue
    for prec in ("float", "double"):
        ok = {r["kernel"]: r for r in rows if r["precision"] == prec and r["status"] == "ok"}
        auto = next((r for r in rows if r["precision"] == prec and r.get("kernel", "").startswith("auto")), None)
        if auto is None:
            auto = next((r for r in rows if r["precision"] == prec and "auto" in r.get("note", "")), None)
        cus = {k: r for k, r in ok.items() if k.startswith("cuda.cusparse")}
        best = min(cus.items(), key=lambda kv: kv[1]["total_ms"]) if cus else None
        b = ok.get("cuda.csr.binned")
        stages = " ".join(f"{s['name']}={s['ms']:.3f}" for s in b["stages"] if s["in_total"]) if b else ""
        any_row = b or (best[1] if best else None)
        print(",".join(str(x) for x in [
            name, prec, any_row["products"] if any_row else "", any_row["out_nnz"] if any_row else "",
            f"{auto['total_ms']:.3f}" if auto and auto["status"] == "ok" else (auto["status"] if auto else ""),
            (auto.get("note", "") or auto["kernel"]).replace(",", ";")[:80] if auto else "",
            f"{b['total_ms']:.3f}" if b else "", f"{best[1]['total_ms']:.3f}" if best else "",
            best[0] if best else "",
            f"{best[1]['total_ms'] / b['total_ms']:.2f}" if b and best else "",
            f"{best[1]['total_ms'] / auto['total_ms']:.2f}" if best and auto and auto["status"] == "ok" else "",
            stages]))
