"""The SpMM section (Y = A X, k columns of row-major X), from spmm.json next to results.json."""
from .document import fmt_g
from .load import load_section, num


def load_spmm(results_path):
    """spmm.json next to results.json (written by spkit bench's SpMM section), or None."""
    return load_section(results_path, "spmm.json", "SpMM")


def _vendor_best(results, r):
    """The fastest vendor row (cuSPARSE algorithm, MKL mode) of r's backend, precision and k, or None."""
    same = [v for v in results if v.get("comparison") and v.get("status") == "ok" and num(v.get("median_ms")) > 0
            and v["backend"] == r["backend"] and v["precision"] == r["precision"] and v["k"] == r["k"]]
    return min(same, key=lambda v: num(v["median_ms"])) if same else None


def spmm_section(doc, spmm):
    doc.h(2, "SpMM: Y = A X", "spmm")
    if not spmm:
        doc.p("No SpMM results (spmm.json is missing: the run had --no-spmm, or predates the SpMM section).")
        return
    doc.p("Y = A X with row-major X of k columns, for each suite matrix (the headline matrices are left to spkit spmm). "
          "auto = the SpMM selector's pick on each backend; GFLOPS = 2 nnz k / median time; vs k SpMVs = k times "
          "the median of one SpMV with spkit's SpMV pick over the SpMM's (> 1: one SpMM beats k SpMVs); vs vendor "
          "best = the fastest cuSPARSE algorithm's (GPU) or MKL mode's (CPU) time over auto's, in the same run. "
          "Every row is validated against the fp64 reference.")
    table = []
    for e in spmm["entries"]:
        if e.get("skipped") or not e.get("results"):
            table.append([e["matrix"], "-", "-", "-", "-", "-", "-", "-", "skipped: " + (e.get("skipped") or "no rows")])
            continue
        for r in e["results"]:
            if r.get("kernel") != "auto":
                continue
            if r.get("status") != "ok":
                table.append([e["matrix"], r["backend"], r["precision"], str(r["k"]), r.get("picked", "-"), "-", "-",
                              "-", f'{r.get("status")}: {r.get("note", "")}'])
                continue
            best = _vendor_best(e["results"], r)
            vs = f'{num(best["median_ms"]) / num(r["median_ms"]):.2f}x ({best["kernel"]})' if best else "-"
            vs_spmv = f'{num(r.get("vs_spmv")):.2f}x' if num(r.get("vs_spmv")) > 0 else "-"
            table.append([e["matrix"], r["backend"], r["precision"], str(r["k"]), r.get("picked", ""),
                          fmt_g(r["gflops"]), vs_spmv, vs, ""])
    doc.table(["matrix", "backend", "precision", "k", "auto picked", "GFLOPS", "vs k SpMVs", "vs vendor best", "note"],
              table, align=["l", "l", "l", "r", "l", "r", "r", "l", "l"])
