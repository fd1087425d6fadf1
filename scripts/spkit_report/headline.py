"""The headline (spkit's best kernel against the vendor's best, out of cache) and MKL at its best."""
from collections import defaultdict

from .document import fmt_count, fmt_g
from .load import BACKEND_NAME, geomean, label_with_threads, num
from .plots import HAVE_MPL, grouped_bars, legend_outside, plt, ratio_axis

# The vendor baseline each device is held against: "MKL best" (fastest of ref.mkl.csr/sym/bsr per
# matrix and precision) on the CPU, "cuSPARSE best" on the GPU. Other comparison kernels (Eigen,
# librsb) are shown beside, and stand in only when the vendor kernels did not run.
VENDOR_PREFIX = {"cpu": "ref.mkl.", "cuda": "cuda.cusparse."}
VENDOR_NAME = {"cpu": "MKL best", "cuda": "cuSPARSE best"}
CACHE_NAME = {"cpu": "LLC", "cuda": "L2"}
HEADLINE_RATIO = 4.0  # working set / cache at or above which a matrix counts for the headline


def cache_of(res, m, backend, prec):
    """(working set bytes, cache bytes, ratio) of a matrix on a device; ratio 0 when unknown."""
    for r in res.rows:
        if r["matrix"] == m and r["backend"] == backend and r["precision"] == prec and num(r.get("cache_ratio")):
            return num(r.get("working_set_bytes")), num(r.get("cache_bytes")), num(r.get("cache_ratio"))
    return 0, 0, 0


def cache_label(ratio, backend):
    if not ratio:
        return "cache unknown"
    return f"in {CACHE_NAME[backend]}" if ratio <= 1 else f"{ratio:.1f}x {CACHE_NAME[backend]}"


def structure(m):
    """The statistics `spkit info` prints, in one cell: row-length spread, nnz per 8x8 block, diagonals,
    bandwidth, symmetry."""
    if "row_nnz_mean" not in m:
        return "-"
    return (f"{num(m.get('row_nnz_mean')):.1f}±{num(m.get('row_nnz_std')):.1f} (max {m.get('row_nnz_max', '?')})/row, "
            f"{num(m.get('bm_nnz_per_block')):.1f}/8x8 block, {m.get('diagonals', '?')} diagonals, "
            f"bandwidth {m.get('max_diag_distance', '?')}" + (", symmetric" if m.get("symmetric") else ""))


def vendor_best(res, sel, backend):
    """(best vendor row or best other comparison row, label of what it is)."""
    vendor = res.best([r for r in sel if r.get("comparison") and r["kernel"].startswith(VENDOR_PREFIX[backend])])
    if vendor:
        return vendor, VENDOR_NAME[backend]
    other = res.best([r for r in sel if r.get("comparison")])
    return other, "best other comparison"


def headline(doc, res):
    llc = num(res.machine.get("llc_bytes"))
    l2 = num(res.machine.get("gpu_l2_bytes"))
    doc.h(2, "Headline: spkit's best kernel against MKL best (CPU) and cuSPARSE best (GPU), out of cache", "headline")
    doc.p(
        f"Only matrices whose working set (CSR in the row's precision + x + y) is at least {HEADLINE_RATIO:.0f}x the "
        f"device's cache count here: the CPU's last-level cache ({llc / 2**20:.1f} MiB used; "
        f"{res.machine.get('llc_source') or 'source not recorded'})"
        + (f", the GPU's L2 ({l2 / 2**20:.0f} MiB)" if l2 else "")
        + ". Per matrix and precision: the fastest valid spkit kernel (any format, any thread count; the winning "
        "configuration is named) against the fastest vendor kernel: MKL best = the fastest of ref.mkl.csr (general "
        "CSR), ref.mkl.sym (upper triangle, symmetric matrices) and ref.mkl.bsr (BSR, when blocks fill well), each "
        "with its mv hint and mkl_sparse_optimize; cuSPARSE best = the fastest cuSPARSE algorithm. Ratio = spkit "
        "GFLOPS / vendor GFLOPS: above 1 spkit is faster, below 1 it is slower. Matrices that fit in cache (or lie "
        "between 1x and 4x) are in the second table, marked, and never in the headline mean."
    )
    ratios = defaultdict(dict)  # (backend, precision) -> matrix -> ratio (headline matrices only)
    for backend in res.backends:
        head_rows, other_rows, wins, losses = [], [], [], []
        for m in res.matrix_order:
            for prec in res.precisions:
                sel = [r for r in res.rows if r["matrix"] == m and r["backend"] == backend and r["precision"] == prec]
                if not sel:
                    continue
                ours = res.best([r for r in sel if not r.get("comparison")])
                theirs, what = vendor_best(res, sel, backend)
                others = res.best([r for r in sel if r.get("comparison") and not r["kernel"].startswith(VENDOR_PREFIX[backend])])
                if not (ours or theirs):
                    continue
                ratio = ours["gflops"] / theirs["gflops"] if ours and theirs else 0
                _, _, cr = cache_of(res, m, backend, prec)
                config = f'{ours["kernel"]} ({ours.get("threads", 1)} thr)' if ours else "-"
                if ours and ours.get("note"):
                    config += f" [{ours['note'][:60]}]"
                row = [m, prec, fmt_count(res.matrix[m].get("nnz", 0)), structure(res.matrix[m]), cache_label(cr, backend), config,
                       fmt_g(ours and ours["gflops"]),
                       (label_with_threads(theirs) + ("" if what != "best other comparison" else " (no vendor kernel)")) if theirs else "-",
                       fmt_g(theirs and theirs["gflops"]),
                       (label_with_threads(others) + f" {others['gflops']:.2f}") if others else "-",
                       (f"{ratio:.2f}x " + ("spkit faster" if ratio > 1 else "spkit SLOWER")) if ratio else "-"]
                if cr >= HEADLINE_RATIO:
                    head_rows.append(row)
                    if ratio:
                        ratios[(backend, prec)][m] = ratio
                        (wins if ratio > 1 else losses).append(f"{m} ({prec}, {ratio:.2f}x)")
                else:
                    other_rows.append(row)
        header = ["matrix", "precision", "nnz", "structure", "cache", "spkit best (configuration)", "GFLOPS",
                  f"{VENDOR_NAME[backend]}", "GFLOPS", "other comparisons, best", "ratio"]
        align = ["l", "l", "r", "l", "l", "l", "r", "l", "r", "l", "r"]
        doc.h(3, f"{BACKEND_NAME[backend]}: matrices at >= {HEADLINE_RATIO:.0f}x the {CACHE_NAME[backend]}")
        if head_rows:
            summary = []
            for prec in res.precisions:
                g = geomean(list(ratios[(backend, prec)].values()))
                if g:
                    summary.append(f"{prec}: geometric mean {g:.2f}x over {len(ratios[(backend, prec)])} matrices")
            doc.p(("; ".join(summary) + ". " if summary else "")
                  + "spkit faster on: " + (", ".join(wins) or "none") + ". spkit slower on: " + (", ".join(losses) or "none") + ".")
            doc.table(header, head_rows, align=align)
        else:
            doc.p(f"No matrix of this run reaches {HEADLINE_RATIO:.0f}x the {CACHE_NAME[backend]}"
                  + (" (cache size unknown)" if not (llc if backend == "cpu" else l2) else "")
                  + ": there is no out-of-cache headline; every result below is in cache or close to it.")
        if other_rows:
            doc.h(3, f"{BACKEND_NAME[backend]}: matrices in cache or below {HEADLINE_RATIO:.0f}x the {CACHE_NAME[backend]} "
                     "(not the headline)")
            doc.p("These measure cache bandwidth as much as the kernels: a fast result here does not carry over to large "
                  "matrices.")
            doc.table(header, other_rows, align=align)
    if HAVE_MPL and any(ratios.values()):
        keys = [k for k in ratios if ratios[k]]
        groups = [m for m in res.matrix_order if any(m in ratios[k] for k in keys)]
        fig, ax = plt.subplots(figsize=(max(8, 0.7 * len(groups) + 3), 4.2))
        series = [f"{BACKEND_NAME[b]} {p}" for b, p in keys]
        cmap = plt.get_cmap("tab10")
        colors = {s: cmap(i) for i, s in enumerate(series)}
        grouped_bars(ax, groups, series, lambda g, s: ratios[keys[series.index(s)]].get(g, 0), colors, lambda s: False)
        ax.axhline(1.0, color="black", linewidth=1, linestyle="--")
        ratio_axis(ax, [v for k in keys for v in ratios[k].values()])
        ax.set_ylabel("spkit best / vendor best (GFLOPS ratio)")
        ax.set_title(f"Out of cache (>= {HEADLINE_RATIO:.0f}x): spkit's best vs MKL / cuSPARSE best (above 1: spkit faster)")
        legend_outside(ax)
        doc.figure(fig, "headline_ratio", "Ratio of spkit's best GFLOPS to the vendor's best, matrices at >= 4x the cache")


def mkl_section(doc, res):
    rows = [r for r in res.all_rows if r["kernel"].startswith("ref.mkl.")]
    if not rows:
        return
    doc.h(2, "MKL at its best: general CSR, symmetric, BSR", "mkl")
    doc.p("Each MKL layout per matrix and precision at its best thread count: GFLOPS, plan time (conversion + hints + "
          "mkl_sparse_optimize) and, of that, mkl_sparse_optimize alone. A layout that does not apply says why "
          "(sym: the matrix is not exactly symmetric; bsr: every block size 2..8 stores too many zeros).")
    out = []
    for m in res.matrix_order:
        for prec in res.precisions:
            cells = []
            for k in ("ref.mkl.csr", "ref.mkl.sym", "ref.mkl.bsr"):
                sel = [r for r in rows if r["matrix"] == m and r["precision"] == prec and r["kernel"] == k]
                b = res.best(sel)
                if b:
                    cells += [f"{b['gflops']:.2f} ({b.get('threads', 1)}t)", fmt_g(b.get("conversion_ms"), 1),
                              fmt_g(b.get("optimize_ms"), 1)]
                elif sel:
                    cells += [sel[0].get("status", "?") + ": " + (sel[0].get("note") or "")[:50], "-", "-"]
                else:
                    cells += ["-", "-", "-"]
            if any(c != "-" for c in cells):
                out.append([m, prec] + cells)
    hdr = ["matrix", "precision"]
    for k in ("csr", "sym", "bsr"):
        hdr += [f"{k} GFLOPS", f"{k} plan ms", f"{k} optimize ms"]
    doc.table(hdr, out, align=["l", "l"] + ["r"] * 9)
