"""The SpGEMM section (C = A A), from spgemm.json next to results.json."""
from .document import fmt_count, fmt_g
from .load import load_section, num
from .plots import HAVE_MPL, grouped_bars, kernel_colors, legend_outside, plt


def load_spgemm(results_path):
    """spgemm.json next to results.json (written by spkit bench's SpGEMM section), or None."""
    return load_section(results_path, "spgemm.json", "SpGEMM")


def spgemm_section(doc, spgemm):
    doc.h(2, "SpGEMM: C = A A", "spgemm")
    if not spgemm:
        doc.p("No SpGEMM results (spgemm.json is missing: the run had --no-spgemm, or predates the SpGEMM section).")
        return
    entries = spgemm["entries"]
    budget = spgemm.get("max_products", 0)
    doc.p(f"Every square matrix whose product A A has at most {fmt_count(budget)} intermediate products. Total = the "
          "median time of the whole product (stages marked * such as conversion to bmSparse and back to CSR are "
          "reported, not counted); GFLOPS = 2 x intermediate products / total; vs MKL / vs cuSPARSE = the "
          "baseline's total / this kernel's (> 1: faster). Every row is validated against the fp64 reference.")
    rows_ok = [(e["matrix"], r) for e in entries for r in e.get("results", []) if r.get("status") == "ok"]
    precisions = [p for p in ("double", "float") if any(r["precision"] == p for _, r in rows_ok)]
    order = [e["matrix"] for e in entries if e.get("results")]
    kernels = []
    for _, r in rows_ok:
        if r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    kernels = [k for k in kernels if not k.startswith(("ref.", "cuda.cusparse."))] + \
              [k for k in kernels if k.startswith(("ref.", "cuda.cusparse."))]
    if HAVE_MPL and rows_ok:
        for prec in precisions:
            value = {(m, r["kernel"]): num(r["gflops"]) for m, r in rows_ok if r["precision"] == prec}
            groups = [m for m in order if any((m, k) in value for k in kernels)]
            if not groups:
                continue
            fig, ax = plt.subplots(figsize=(min(max(10, 0.12 * len(groups) * len(kernels) + 3), 26), 4.8))
            grouped_bars(ax, groups, kernels, lambda g, k: value.get((g, k), 0),
                         kernel_colors(kernels, lambda k: k.startswith(("ref.", "cuda.cusparse."))),
                         lambda k: k.startswith(("ref.", "cuda.cusparse.")))
            ax.set_ylabel("GFLOPS (2 x products / total)")
            ax.set_title(f"SpGEMM C = A A, {prec}")
            legend_outside(ax, title="kernel")
            doc.figure(fig, f"spgemm_{prec}", f"SpGEMM GFLOPS per matrix and kernel ({prec})")
    table = []
    for e in entries:
        if e.get("skipped") or not e.get("results"):
            table.append([e["matrix"], "-", "-", "-", "-", "-", "-", "-", "-", "skipped: " + (e.get("skipped") or "no rows")])
            continue
        for r in e["results"]:
            if r.get("status") != "ok":
                table.append([e["matrix"], r["kernel"], r["precision"], "-", "-", "-", "-", "-", "-",
                              f'{r.get("status")}: {r.get("note", "")}'])
                continue
            stages = ", ".join(f'{s["name"]} {fmt_g(s["ms"], 2)}' + ("" if s.get("in_total", True) else "*")
                               for s in r.get("stages", []))
            ratio = lambda v: f"{v:.2f}x" if num(v) > 0 else "-"
            table.append([e["matrix"], r["kernel"], r["precision"], fmt_g(r["total_ms"], 2), fmt_g(r["gflops"]),
                          fmt_count(r.get("out_nnz", 0)), ratio(r.get("vs_mkl")), ratio(r.get("vs_cusparse")),
                          f'{num(r.get("rel_error")):.1e}', stages])
    doc.table(["matrix", "kernel", "precision", "total ms", "GFLOPS", "C nnz", "vs MKL", "vs cuSPARSE", "rel error",
               "stages (ms)"], table, align=["l", "l", "l", "r", "r", "r", "r", "r", "r", "l"])
