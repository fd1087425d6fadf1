"""The auto-selector's pick against the best kernel found by running all."""
from .load import BACKEND_NAME, label_with_threads, num, ok


def auto_section(doc, res):
    """The auto-selector's rows (kernel "auto", the pick in "picked") against the best kernel found by running
    all, per matrix, device, precision and thread count of the auto row (the same rules as `spkit bench`'s
    summary: best = fastest valid spkit kernel with at most that many threads; break-even against the
    fastest spkit CSR kernel)."""
    autos = [r for r in res.rows if (r["kernel"] == "auto" or r["kernel"].endswith(".auto")) and ok(r)
             and num(r.get("median_ms")) > 0]
    if not autos:
        return
    doc.h(2, "The auto-selector's pick against the best kernel", "auto")
    rows, ratios, own_ratios = [], [], []
    for a in autos:
        others = [r for r in res.good if r["matrix"] == a["matrix"] and r["backend"] == a["backend"]
                  and r["precision"] == a["precision"] and r.get("threads", 1) <= a.get("threads", 1)
                  and r["kernel"] != a["kernel"] and num(r.get("median_ms")) > 0]
        own = [r for r in others if not r.get("comparison")]
        if not own:
            continue
        best = min(own, key=lambda r: r["median_ms"])
        best_all = min(others, key=lambda r: r["median_ms"])
        csr = [r for r in own if r.get("format") == "csr"]
        csr = min(csr, key=lambda r: r["median_ms"]) if csr else None
        ratio = a["median_ms"] / best["median_ms"]
        ratios.append(ratio)
        own_row = next((r for r in own if r["kernel"] == a.get("picked") and r.get("threads", 1) == a.get("threads", 1)),
                       None)
        own_ratio = own_row["median_ms"] / best["median_ms"] if own_row else None
        if own_ratio is not None:
            own_ratios.append(own_ratio)
        picked = a.get("picked") or a.get("note", "")
        if not csr:
            break_even = "-"
        elif a.get("format") == "csr":
            break_even = "0 (CSR)"
        else:
            saved = csr["median_ms"] - a["median_ms"]
            extra = num(a.get("conversion_ms")) - num(csr.get("conversion_ms"))
            break_even = "0" if extra <= 0 else (f"{extra / saved:.0f}" if saved > 0 else "never")
        rows.append([a["matrix"], BACKEND_NAME.get(a["backend"], a["backend"]), a["precision"], a.get("threads", 1),
                     picked, f"{a['median_ms']:.4g}", label_with_threads(best), f"{best['median_ms']:.4g}",
                     f"{ratio:.2f}", f"{own_ratio:.2f}" if own_ratio is not None else "-", label_with_threads(best_all), f"{a['median_ms'] / best_all['median_ms']:.2f}",
                     break_even])
    within = sum(1 for x in ratios if x <= 1.10)
    within_own = sum(1 for x in own_ratios if x <= 1.10)
    doc.p(f"auto is within 10% of the best spkit kernel on {within} of {len(ratios)} rows "
          f"({100.0 * within / max(1, len(ratios)):.0f}%; the target is at least 90%)"
          + (f"; judged by the picked kernel's own row in the sweep, on {within_own} of {len(own_ratios)}" if own_ratios else "")
          + ". ratio = auto's median time / the best's (1.00: it picked the best); own = the same for the picked "
          "kernel's own row, free of the noise between two timings of one kernel. Break-even: products after which the "
          "pick's conversion has paid for itself against the fastest spkit CSR kernel ('never': the pick is not faster "
          "than that kernel). The selector was told "
          f"{res.data.get('options', {}).get('expected_products', '?')} expected products.")
    doc.table(["matrix", "device", "precision", "threads", "auto picked", "ms", "best spkit kernel", "ms", "ratio",
               "own", "best incl. baselines", "ratio", "break-even (products)"], rows,
              align=["l", "l", "l", "r", "l", "r", "l", "r", "r", "r", "l", "r", "r"], css="wide")
    reasons = sorted({(a["matrix"], a["backend"], a["precision"], a.get("pick_reason", "")) for a in autos
                      if a.get("pick_reason")})
    if reasons:
        doc.p("Why (the selector's one-line reason per matrix, device and precision):")
        doc.table(["matrix", "device", "precision", "reason"],
                  [[m, BACKEND_NAME.get(b, b), p, why] for m, b, p, why in reasons], align=["l", "l", "l", "l"],
                  css="wide")
