#!/usr/bin/env python3
"""Writes the spkit bench report from a results.json: report.md (plots as files in plots/),
report.html (self-contained: plots embedded as base64 data URIs, no network) and plots/*.png.

    python3 scripts/report.py bench-results/results.json [--out DIR]

`spkit bench` runs this at the end; `spkit report results.json` runs it again. Without matplotlib
the tables are still written and the plots are skipped with a warning.
"""
import argparse
import base64
import html
import json
import math
import os
import sys
from collections import defaultdict

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    HAVE_MPL = True
except Exception:  # ImportError, or a broken backend
    HAVE_MPL = False


# --------------------------------------------------------------------------------------------
# Reading and selecting rows


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise SystemExit(f"report.py: {path} is not a spkit bench results file (no 'results' list)")
    return data


def num(v):
    return v if isinstance(v, (int, float)) and v is not None and math.isfinite(v) else 0.0


def ok(r):
    return r.get("status") == "ok" and r.get("valid") and num(r.get("gflops")) > 0


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 0.0


def label_with_threads(r):
    t = r.get("threads", 1)
    return f'{r["kernel"]} ({t} thr)' if t and t > 1 else r["kernel"]


class Results:
    def __init__(self, data):
        self.data = data
        self.machine = data.get("machine", {})
        self.matrices = data.get("matrices", [])
        self.matrix_order = [m["name"] for m in self.matrices]
        self.matrix = {m["name"]: m for m in self.matrices}
        rows = data["results"]
        for r in rows:  # rows of matrices the matrices list lacks still get shown
            if r["matrix"] not in self.matrix:
                self.matrix[r["matrix"]] = {"name": r["matrix"], "nnz": r.get("nnz", 0)}
                self.matrix_order.append(r["matrix"])
        self.all_rows = rows
        # Plots use the warm-cache GPU rows; the L2-flushed repeats are in the tables.
        self.rows = [r for r in rows if not r.get("l2_flushed")]
        self.good = [r for r in self.rows if ok(r)]
        self.precisions = [p for p in ("double", "float") if any(r["precision"] == p for r in self.rows)]
        self.backends = [b for b in ("cpu", "cuda") if any(r["backend"] == b for r in self.rows)]

    def best(self, rows):
        """Fastest row of `rows` (by GFLOPS), or None."""
        rows = [r for r in rows if ok(r)]
        return max(rows, key=lambda r: r["gflops"]) if rows else None

    def best_per_kernel(self, matrix, backend, precision):
        """kernel -> its best row over thread counts."""
        out = {}
        for r in self.good:
            if r["matrix"] == matrix and r["backend"] == backend and r["precision"] == precision:
                if r["kernel"] not in out or r["gflops"] > out[r["kernel"]]["gflops"]:
                    out[r["kernel"]] = r
        return out

    def kernels(self, backend):
        seen = []
        for r in self.rows:
            if r["backend"] == backend and r["kernel"] not in seen:
                seen.append(r["kernel"])
        # ours first, comparisons last: the legend reads the same way as the bars
        return [k for k in seen if not self.is_comparison(k)] + [k for k in seen if self.is_comparison(k)]

    def is_comparison(self, kernel):
        for r in self.rows:
            if r["kernel"] == kernel:
                return bool(r.get("comparison"))
        return False


# --------------------------------------------------------------------------------------------
# Output helpers: Markdown and HTML side by side


class Doc:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.md = []
        self.html = []
        self.plots = []

    def h(self, level, text, anchor=None):
        self.md.append("#" * level + " " + text + "\n")
        a = f' id="{anchor}"' if anchor else ""
        self.html.append(f"<h{level}{a}>{html.escape(text)}</h{level}>")

    def p(self, text, html_text=None):
        self.md.append(text + "\n")
        self.html.append("<p>" + (html_text if html_text is not None else html.escape(text)) + "</p>")

    def table(self, header, rows, align=None, css=""):
        if not rows:
            return
        align = align or ["l"] + ["r"] * (len(header) - 1)
        sep = ["---:" if a == "r" else ":---" for a in align]
        self.md.append("| " + " | ".join(header) + " |")
        self.md.append("| " + " | ".join(sep) + " |")
        for row in rows:
            self.md.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
        self.md.append("")
        cls = f' class="{css}"' if css else ""
        thead = "" if not any(header) else "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead>"
        out = [f"<table{cls}>{thead}<tbody>"]
        for row in rows:
            cells = []
            for c, a in zip(row, align):
                style = ' class="num"' if a == "r" else ""
                cells.append(f"<td{style}>{html.escape(str(c))}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        self.html.append("\n".join(out))

    def figure(self, fig, name, caption):
        """Saves fig as plots/<name>.png and references it from both documents."""
        os.makedirs(os.path.join(self.out_dir, "plots"), exist_ok=True)
        path = os.path.join(self.out_dir, "plots", name + ".png")
        fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Software": None})
        plt.close(fig)
        self.plots.append(path)
        self.md.append(f"![{caption}](plots/{name}.png)\n")
        self.md.append(f"*{caption}*\n")
        with open(path, "rb") as f:
            b64 = base64.b64encode(f.read()).decode("ascii")
        self.html.append(
            f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{b64}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )


def fmt_g(v, digits=2):
    v = num(v)
    return f"{v:.{digits}f}" if v else "-"


def fmt_count(n):
    n = num(n)
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale * 0.99995:  # 999,999 reads 1.0M, not 1000.0k
            return f"{n / scale:.1f}{unit}"
    return f"{n:.0f}"


# --------------------------------------------------------------------------------------------
# Plot helpers


def kernel_colors(kernels, comparison):
    """Our kernels in distinct colours, comparison kernels in greys (hatched in bar charts)."""
    ours = [k for k in kernels if not comparison(k)]
    theirs = [k for k in kernels if comparison(k)]
    cmap = plt.get_cmap("tab20" if len(ours) > 10 else "tab10")
    colors = {k: cmap(i % cmap.N) for i, k in enumerate(ours)}
    greys = ["#333333", "#777777", "#aaaaaa", "#555555", "#999999", "#cccccc"]
    for i, k in enumerate(theirs):
        colors[k] = greys[i % len(greys)]
    return colors


def grouped_bars(ax, groups, series, value, colors, hatched):
    """Bars of value(group, series) for each group (x) and series (bars within a group)."""
    n = max(len(series), 1)
    width = 0.8 / n
    for i, s in enumerate(series):
        xs, ys = [], []
        for g_i, g in enumerate(groups):
            v = value(g, s)
            if v > 0:
                xs.append(g_i - 0.4 + width * (i + 0.5))
                ys.append(v)
        ax.bar(xs, ys, width=width, label=s, color=colors[s], edgecolor="white" if not hatched(s) else "black",
               linewidth=0.4, hatch="//" if hatched(s) else None)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=30, ha="right")
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def plain_log_axis(axis, suffix=""):
    """Log axis labelled 0.5, 1, 2, 5 (plus suffix) instead of matplotlib's 5x10^-1."""
    from matplotlib.ticker import LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}{suffix}"))
    axis.set_minor_formatter(NullFormatter())


def ratio_axis(ax, values):
    """Ratios: linear from 0 when they span less than 10x, else log with plain labels."""
    values = [v for v in values if v > 0]
    if values and max(values) / min(values) > 10:
        ax.set_yscale("log")
        plain_log_axis(ax.yaxis, "x")
    else:
        ax.set_ylim(0, max(values + [1.0]) * 1.12)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))


def legend_outside(ax, ncol=1, title=None):
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, ncol=ncol, frameon=False, title=title)


def legend_below(ax, n, title=None):
    """For many series: a legend under the axes, so the bars keep the full width."""
    ncol = min(5, max(1, n))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), fontsize=9, ncol=ncol, frameon=False, title=title)


# --------------------------------------------------------------------------------------------
# Sections


COMPARISON_NAME = {"cpu": "MKL / Eigen / librsb", "cuda": "cuSPARSE"}
BACKEND_NAME = {"cpu": "CPU", "cuda": "GPU"}
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


def gflops_bars(doc, res):
    doc.h(2, "GFLOPS per matrix and kernel", "gflops")
    doc.p(
        "GFLOPS = 2 nnz / median time (true non-zeros, never padding); for the OpenMP kernels the best thread count. "
        "Hatched grey bars are the comparison kernels. A missing bar is a kernel that was skipped or failed on that "
        "matrix (see the failures table)."
    )
    for backend in res.backends:
        kernels = res.kernels(backend)
        for prec in res.precisions:
            best = {m: res.best_per_kernel(m, backend, prec) for m in res.matrix_order}
            groups = [m for m in res.matrix_order if best[m]]
            if not groups:
                continue
            present = [k for k in kernels if any(k in best[m] for m in groups)]
            doc.h(3, f"{BACKEND_NAME[backend]}, {prec}")
            if HAVE_MPL:
                colors = kernel_colors(present, res.is_comparison)
                width = max(10, 0.09 * len(groups) * len(present) + 2)
                fig, ax = plt.subplots(figsize=(min(width, 16), 5))
                grouped_bars(ax, groups, present, lambda g, k: best[g][k]["gflops"] if k in best[g] else 0, colors,
                             res.is_comparison)
                ax.set_ylabel("GFLOPS (2 nnz / median time)")
                ax.set_title(f"SpMV GFLOPS per matrix, {BACKEND_NAME[backend]}, {prec} precision")
                legend_below(ax, len(present), title="kernel (hatched: comparison)")
                doc.figure(fig, f"gflops_{backend}_{prec}", f"GFLOPS per matrix and kernel ({BACKEND_NAME[backend]}, {prec})")
            header = ["kernel"] + groups
            rows = []
            for k in present:
                rows.append([k] + [fmt_g(best[m][k]["gflops"]) + (f" ({best[m][k]['threads']}t)" if best[m][k].get("threads", 1) > 1 else "")
                                   if k in best[m] else "-" for m in groups])
            doc.table(header, rows, css="wide")


def thread_sweep(doc, res):
    doc.h(2, "Speedup and efficiency against threads (OpenMP kernels)", "threads")
    cores = res.machine.get("physical_cores") or res.machine.get("logical_cpus") or 0
    doc.p(
        "Speedup = the serial kernel of the same format and precision / this kernel (the serial kernel is named in "
        "each plot); efficiency = speedup / threads. "
        + (f"This machine has {res.machine.get('logical_cpus')} logical CPUs; points past the dotted line oversubscribe them." if cores else "")
    )
    prec = "double" if "double" in res.precisions else (res.precisions[0] if res.precisions else None)
    if prec is None:
        return
    sweeps = defaultdict(lambda: defaultdict(dict))  # kernel -> matrix -> threads -> row
    for r in res.good:
        if r["backend"] == "cpu" and r["precision"] == prec:
            sweeps[r["kernel"]][r["matrix"]][r.get("threads", 1)] = r
    kernels = [k for k in sweeps if len({t for m in sweeps[k].values() for t in m}) > 1]
    if not kernels:
        doc.p("No kernel ran at more than one thread count.")
        return
    table = []
    for k in kernels:
        baseline = next((r.get("speedup_over") for m in sweeps[k].values() for r in m.values() if r.get("speedup_over")), "")
        threads = sorted({t for m in sweeps[k].values() for t in m})
        for t in threads:
            sp = [num(sweeps[k][m][t].get("speedup")) for m in sweeps[k] if t in sweeps[k][m]]
            table.append([k, t, f"{geomean(sp):.2f}" if geomean(sp) else "-",
                          f"{geomean(sp) / t:.2f}" if geomean(sp) else "-", baseline or "-"])
        if not HAVE_MPL:
            continue
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4))
        cmap = plt.get_cmap("tab10" if len(sweeps[k]) <= 10 else "tab20")
        for i, m in enumerate(mm for mm in res.matrix_order if mm in sweeps[k]):
            ts = sorted(sweeps[k][m])
            sp = [num(sweeps[k][m][t].get("speedup")) for t in ts]
            if not any(sp):  # no serial baseline: relative to this kernel's own smallest thread count
                base = sweeps[k][m][ts[0]]["median_ms"]
                sp = [base / sweeps[k][m][t]["median_ms"] for t in ts]
            a1.plot(ts, sp, marker="o", color=cmap(i % cmap.N), label=m)
            a2.plot(ts, [s / t for s, t in zip(sp, ts)], marker="o", color=cmap(i % cmap.N), label=m)
        tmax = max(threads)
        a1.plot([1, tmax], [1, tmax], color="black", linestyle="--", linewidth=0.8, label="ideal")
        a2.axhline(1.0, color="black", linestyle="--", linewidth=0.8, label="ideal")
        for a in (a1, a2):
            a.set_xscale("log", base=2)
            a.set_xticks(threads)
            a.set_xticklabels([str(t) for t in threads])
            a.set_xlabel("OpenMP threads")
            a.grid(alpha=0.3)
            if cores:
                a.axvline(res.machine.get("logical_cpus") or cores, color="grey", linestyle=":", linewidth=1)
        a1.set_ylabel(f"speedup over {baseline or 'the 1-thread run'} (x)")
        a2.set_ylabel("parallel efficiency (speedup / threads)")
        a2.set_ylim(bottom=0)
        a1.set_title(f"{k}: speedup ({prec})")
        a2.set_title(f"{k}: efficiency ({prec})")
        legend_outside(a2, title="matrix")
        doc.figure(fig, "threads_" + k.replace(".", "_"), f"Speedup and efficiency of {k} against threads ({prec})")
    doc.p("Geometric means over the matrices:")
    doc.table(["kernel", "threads", "speedup", "efficiency", "speedup over"], table, align=["l", "r", "r", "r", "l"])


def gpu_section(doc, res):
    doc.h(2, "GPU kernels side by side with cuSPARSE", "gpu")
    if "cuda" not in res.backends:
        doc.p("No GPU kernel ran (no GPU on this machine, or a build without CUDA).")
        return
    flushed = [r for r in res.all_rows if r.get("l2_flushed")]
    if flushed:
        doc.p("Matrices whose CSR fits in the GPU's L2 cache were also timed with L2 flushed between runs; the plots "
              "show the warm runs, the table below both.")
    doc.p("Speedup over the fastest cuSPARSE algorithm (CSR ALG1/ALG2, SELL, BSR) on each matrix; above 1 the spkit "
          "kernel is faster.")
    for prec in res.precisions:
        best = {m: res.best_per_kernel(m, "cuda", prec) for m in res.matrix_order}
        groups = [m for m in res.matrix_order if best[m]]
        if not groups:
            continue
        kernels = [k for k in res.kernels("cuda") if any(k in best[m] for m in groups)]
        cus = {m: res.best([best[m][k] for k in best[m] if k.startswith("cuda.cusparse.")]) for m in groups}
        ours = [k for k in kernels if not res.is_comparison(k)]
        if HAVE_MPL and ours and any(cus.values()):
            colors = kernel_colors(ours, res.is_comparison)
            fig, ax = plt.subplots(figsize=(min(max(10, 0.12 * len(groups) * len(ours) + 3), 26), 4.8))
            grouped_bars(ax, groups, ours,
                         lambda g, k: best[g][k]["gflops"] / cus[g]["gflops"] if k in best[g] and cus[g] else 0,
                         colors, lambda k: False)
            ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="cuSPARSE best")
            ratio_axis(ax, [best[g][k]["gflops"] / cus[g]["gflops"] for g in groups for k in ours if k in best[g] and cus[g]])
            ax.set_ylabel("GFLOPS / cuSPARSE best GFLOPS")
            ax.set_title(f"GPU kernels against the best cuSPARSE algorithm per matrix ({prec})")
            legend_outside(ax, title="kernel")
            doc.figure(fig, f"gpu_vs_cusparse_{prec}", f"GPU kernels relative to cuSPARSE best ({prec})")
        rows = []
        for m in groups:
            c = cus[m]
            for k in kernels:
                for r in res.all_rows:
                    if r["matrix"] == m and r["kernel"] == k and r["precision"] == prec and r["backend"] == "cuda" and ok(r):
                        rows.append([m, k + (" [L2-flushed]" if r.get("l2_flushed") else ""), fmt_g(r["gflops"]),
                                     fmt_g(r["gbytes_per_s"], 1),
                                     f"{r['gflops'] / c['gflops']:.2f}x" if c else "-", fmt_g(r.get("conversion_ms"), 2)])
        doc.table(["matrix", "kernel", "GFLOPS", "GB/s", "vs cuSPARSE best", "plan ms"], rows,
                  align=["l", "l", "r", "r", "r", "r"])


def roofline(doc, res):
    doc.h(2, "GFLOPS against the memory-bandwidth roofline", "roofline")
    bw = {"cpu": num(res.machine.get("cpu_read_gbs")), "cuda": num(res.machine.get("gpu_copy_gbs"))}
    doc.p(
        "SpMV is memory-bound: with the bytes CSR must move, B = (value + 4) nnz + 4 m + value (m + n), "
        "the ceiling is GFLOPS = bandwidth x 2 nnz / B. Each point is one matrix and the best kernel of one format "
        "(comparison kernels: each on its own, as crosses), best thread count; "
        "x is its arithmetic intensity 2 nnz / B (flop per byte), the line the measured bandwidth "
        f"(CPU read {fmt_g(bw['cpu'], 1)} GB/s" + (f", GPU copy {fmt_g(bw['cuda'], 1)} GB/s" if bw["cuda"] else "") +
        "). Points above the line beat DRAM thanks to caches (small matrices, or x reuse)."
    )
    for backend in res.backends:
        pts = []  # the best kernel of each format (and each comparison kernel) per matrix and precision
        for prec in res.precisions:
            for m in res.matrix_order:
                per_format = {}
                for k, r in res.best_per_kernel(m, backend, prec).items():
                    key = k if r.get("comparison") else r["format"]
                    if num(r.get("gbytes_per_s")) > 0 and (key not in per_format or r["gflops"] > per_format[key]["gflops"]):
                        per_format[key] = r
                for r in per_format.values():
                    pts.append((r["gflops"] / r["gbytes_per_s"], r["gflops"], r["kernel"], prec, m, r))
        if not pts:
            continue
        rows = []
        for m in res.matrix_order:
            for prec in res.precisions:
                b = res.best([p[5] for p in pts if p[4] == m and p[3] == prec])
                if b:
                    ceiling = bw[backend] * b["gflops"] / b["gbytes_per_s"] if bw[backend] else 0
                    rows.append([m, prec, label_with_threads(b), fmt_g(b["gflops"]), fmt_g(ceiling),
                                 f"{100 * b['gflops'] / ceiling:.0f}%" if ceiling else "-",
                                 fmt_g(b["gbytes_per_s"], 1)])
        if HAVE_MPL:
            fig, ax = plt.subplots(figsize=(10, 5.5))
            formats = sorted({p[5]["format"] for p in pts})
            cmap = plt.get_cmap("tab10")
            fcolor = {f: cmap(i % 10) for i, f in enumerate(formats)}
            for f in formats:
                for prec, marker in (("double", "o"), ("float", "^")):
                    sel = [p for p in pts if p[5]["format"] == f and p[3] == prec and not p[5].get("comparison")]
                    if sel:
                        ax.scatter([p[0] for p in sel], [p[1] for p in sel], color=fcolor[f], marker=marker, s=28,
                                   alpha=0.8, label=f"{f} ({prec})")
            comp = [p for p in pts if p[5].get("comparison")]
            if comp:
                ax.scatter([p[0] for p in comp], [p[1] for p in comp], color="black", marker="x", s=30,
                           label="comparison kernels")
            xs = [p[0] for p in pts]
            lo, hi = min(xs) * 0.8, max(xs) * 1.25
            if bw[backend]:
                ax.plot([lo, hi], [bw[backend] * lo, bw[backend] * hi], color="red", linewidth=1.5,
                        label=f"roofline: {bw[backend]:.1f} GB/s x intensity")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(lo, hi)
            plain_log_axis(ax.yaxis)
            plain_log_axis(ax.xaxis)
            ax.set_xlabel("arithmetic intensity, 2 nnz / CSR bytes (flop/byte)")
            ax.set_ylabel("GFLOPS")
            ax.set_title(f"{BACKEND_NAME[backend]}: achieved GFLOPS and the bandwidth roofline")
            ax.grid(which="both", alpha=0.3)
            legend_outside(ax, title="format (precision)")
            doc.figure(fig, f"roofline_{backend}", f"GFLOPS against the bandwidth roofline ({BACKEND_NAME[backend]})")
        doc.table(["matrix", "precision", "best kernel", "GFLOPS", "roofline GFLOPS", "of roofline", "effective GB/s"],
                  rows, align=["l", "l", "l", "r", "r", "r", "r"])


def bmsparse(doc, res):
    doc.h(2, "bmSparse speedup against non-zeros per 8x8 block", "bmsparse")
    doc.p("bmSparse stores 8x8 blocks with a 64-bit bitmap; it pays when blocks are dense. Speedup = best bmSparse "
          "kernel / best spkit CSR kernel on the same device and precision; x is the mean non-zeros per non-empty "
          "block (1 to 64).")
    pts = []
    for backend in res.backends:
        for prec in res.precisions:
            for m in res.matrix_order:
                rows = [r for r in res.good if r["matrix"] == m and r["backend"] == backend and r["precision"] == prec]
                bm = res.best([r for r in rows if r["format"] == "bmsparse" and not r.get("comparison")])
                csr = res.best([r for r in rows if r["format"] == "csr" and not r.get("comparison")])
                nb = num(res.matrix[m].get("bm_nnz_per_block"))
                if bm and csr and nb:
                    pts.append((nb, bm["gflops"] / csr["gflops"], backend, prec, m, bm, csr))
    if not pts:
        doc.p("No bmSparse result to show (no bmSparse kernel, or no CSR kernel to compare with, ran successfully).")
        return
    if HAVE_MPL:
        fig, ax = plt.subplots(figsize=(10, 5))
        styles = {("cpu", "double"): ("tab:blue", "o"), ("cpu", "float"): ("tab:blue", "^"),
                  ("cuda", "double"): ("tab:green", "o"), ("cuda", "float"): ("tab:green", "^")}
        for key, (color, marker) in styles.items():
            sel = [p for p in pts if (p[2], p[3]) == key]
            if sel:
                ax.scatter([p[0] for p in sel], [p[1] for p in sel], color=color, marker=marker, s=40,
                           label=f"{BACKEND_NAME[key[0]]} {key[1]}")
        for p in pts:
            if p[3] == (res.precisions[0] if res.precisions else "double"):
                ax.annotate(p[4], (p[0], p[1]), fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="as fast as CSR")
        ax.set_xscale("log", base=2)
        ax.set_xlim(0.8, 80)
        ax.set_xticks([1, 2, 4, 8, 16, 32, 64])
        ax.set_xticklabels(["1", "2", "4", "8", "16", "32", "64"])
        ax.set_yscale("log")
        plain_log_axis(ax.yaxis, "x")
        ax.set_xlabel("mean non-zeros per non-empty 8x8 block")
        ax.set_ylabel("bmSparse best / CSR best (GFLOPS ratio, log)")
        ax.set_title("bmSparse speedup over CSR against block density")
        ax.grid(which="both", alpha=0.3)
        legend_outside(ax)
        doc.figure(fig, "bmsparse_vs_block_density", "bmSparse speedup over the best CSR kernel against non-zeros per block")
    doc.table(["matrix", "device", "precision", "nnz/block", "bmSparse best", "CSR best", "speedup"],
              [[p[4], BACKEND_NAME[p[2]], p[3], f"{p[0]:.1f}", label_with_threads(p[5]), label_with_threads(p[6]),
                f"{p[1]:.2f}x"] for p in sorted(pts, key=lambda p: (p[2], p[3], p[0]))],
              align=["l", "l", "l", "r", "l", "l", "r"])


def load_spgemm(results_path):
    """spgemm.json next to results.json (written by spkit bench's SpGEMM section), or None."""
    path = os.path.join(os.path.dirname(os.path.abspath(results_path)), "spgemm.json")
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print(f"report.py: warning: {path} unreadable ({e}); no SpGEMM section", file=sys.stderr)
        return None
    return data if isinstance(data, dict) and isinstance(data.get("entries"), list) else None


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


def parse_section(doc, res):
    doc.h(2, "Matrix Market parse throughput against fast_matrix_market", "parse")
    files = [m for m in res.matrices if num(m.get("parse_mb_s")) > 0]
    if not files:
        doc.p("No Matrix Market file in this run (add some with --matrices DIR).")
        return
    have_fmm = any(num(m.get("fmm_parse_mb_s")) > 0 for m in files)
    doc.p("MB of Matrix Market text (uncompressed) per second of parsing, best of up to three runs: spkit's reader "
          "(read_matrix_market, all threads) and fast_matrix_market's read_coo (Python package, all threads). "
          "Small files are dominated by fixed costs (thread start-up, Python call)."
          + ("" if have_fmm else " fast_matrix_market was not importable: only spkit's numbers."))
    if HAVE_MPL:
        names = [m["name"] for m in files]
        fig, ax = plt.subplots(figsize=(max(7, 0.9 * len(names) + 3), 4.2))
        series = ["spkit"] + (["fast_matrix_market"] if have_fmm else [])
        colors = {"spkit": "tab:blue", "fast_matrix_market": "#777777"}
        by = {m["name"]: m for m in files}
        grouped_bars(ax, names, series,
                     lambda g, s: num(by[g].get("parse_mb_s" if s == "spkit" else "fmm_parse_mb_s")), colors,
                     lambda s: s != "spkit")
        vals = [num(by[g].get(k)) for g in names for k in ("parse_mb_s", "fmm_parse_mb_s") if num(by[g].get(k)) > 0]
        if vals and max(vals) / min(vals) > 20:
            ax.set_yscale("log")
            plain_log_axis(ax.yaxis)
            ax.set_ylabel("parse throughput (MB/s of text, log)")
        else:
            ax.set_ylabel("parse throughput (MB/s of text)")
        ax.set_title("Matrix Market reading speed")
        legend_outside(ax)
        doc.figure(fig, "parse_throughput", "Matrix Market parse throughput: spkit against fast_matrix_market")
    doc.table(["matrix", "text MB", "nnz", "spkit MB/s", "fast_matrix_market MB/s", "ratio"],
              [[m["name"], f"{num(m.get('file_mb')):.2f}", fmt_count(m.get("nnz")), fmt_g(m.get("parse_mb_s"), 1),
                fmt_g(m.get("fmm_parse_mb_s"), 1),
                f"{num(m.get('parse_mb_s')) / num(m.get('fmm_parse_mb_s')):.2f}x" if num(m.get("fmm_parse_mb_s")) else "-"]
               for m in files])


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


def failures(doc, res):
    bad = [r for r in res.all_rows if r.get("status") != "ok" or not r.get("valid")]
    doc.h(2, "Skipped and failed cells", "failures")
    if not bad:
        doc.p("None: every cell ran and validated against the serial double reference.")
        return
    doc.p("A FAILED cell gave a wrong y (or crashed) and is never counted as a result; a skipped cell does not apply "
          "to that matrix (e.g. ELL padding over the memory budget).")
    doc.table(["matrix", "kernel", "precision", "threads", "status", "note"],
              [[r["matrix"], r["kernel"], r["precision"], r.get("threads", 1), r.get("status"), r.get("note", "")[:160]]
               for r in bad], align=["l", "l", "l", "r", "l", "l"])


def matrices_section(doc, res):
    doc.h(2, "Matrices", "matrices")
    llc = num(res.machine.get("llc_bytes"))

    def ws(m, value):
        return (value + 4) * num(m.get("nnz")) + 4 * num(m.get("rows")) + value * (num(m.get("rows")) + num(m.get("cols")))

    def fit(m):
        if not llc:
            return "-"
        d, f = ws(m, 8) / llc, ws(m, 4) / llc
        mark = " IN CACHE" if f <= 1 else ""
        return f"{d:.1f}x / {f:.1f}x{mark}" + (" (headline)" if m.get("headline") else "")

    doc.table(["matrix", "source", "rows", "nnz", "row nnz mean", "std", "max", "nnz / 8x8 block", "diagonals",
               "bandwidth", "symmetric", "working set f64 / f32 vs LLC", "reps", "ELL padding", "HLL padding"],
              [[m["name"], m.get("source", ""), fmt_count(m.get("rows")), fmt_count(m.get("nnz")),
                fmt_g(m.get("row_nnz_mean"), 1), fmt_g(m.get("row_nnz_std"), 1), m.get("row_nnz_max", "-"),
                fmt_g(m.get("bm_nnz_per_block"), 1), m.get("diagonals", "-"), m.get("max_diag_distance", "-"),
                "yes" if m.get("symmetric") else "no", fit(m), m.get("reps") or "-",
                f"{num(m.get('ell_padding_ratio')):.2f}", f"{num(m.get('hll_padding_ratio')):.2f}"] for m in res.matrices],
              align=["l", "l"] + ["r"] * 8 + ["l", "l", "r", "r", "r"], css="wide")
    doc.p("Row-length spread (std, max), non-zeros per non-empty 8x8 block, distinct diagonals, bandwidth "
          "(max |col - row|) and exact symmetry are the statistics `spkit info` prints. Working set = CSR + x + y in "
          "the precision, as a multiple of the last-level cache; IN CACHE: it fits even in float. reps: timed runs "
          "per cell. Padding = padded slots / non-zeros (0: none). ELL pads every row to the longest; HLL pads within "
          "hacks of 32 rows.")


def run_info(doc, res):
    d, m = res.data, res.machine
    cells = len(res.all_rows)
    okc = sum(1 for r in res.all_rows if ok(r))
    bw = []
    if num(m.get("cpu_read_gbs")):
        bw.append(f"CPU read {m['cpu_read_gbs']:.1f} GB/s, copy {num(m.get('cpu_copy_gbs')):.1f} GB/s")
    if num(m.get("gpu_copy_gbs")):
        bw.append(f"GPU copy {m['gpu_copy_gbs']:.0f} GB/s")
    items = [
        ("machine", f"{m.get('cpu_model', '?')}, {m.get('logical_cpus', '?')} logical CPUs"
                    + (f", {m.get('memory_bytes', 0) / 2**30:.0f} GiB" if m.get("memory_bytes") else "")),
        ("GPU", m.get("gpu_name") or "none"),
        ("measured bandwidth", "; ".join(bw) or "not measured"),
        ("last-level cache", (m.get("llc_source") or "not recorded")
                             + (f"; GPU L2 {num(m.get('gpu_l2_bytes')) / 2**20:.0f} MiB" if num(m.get("gpu_l2_bytes")) else "")),
        ("spkit", f"{d.get('spkit_version', '?')} (commit {d.get('git_commit', '?')})"),
        ("run", f"{d.get('created_utc', '?')}, {d.get('wall_s', 0) / 60:.1f} min, {cells} cells, {okc} valid"
                + ("" if d.get("complete", True) else " - INCOMPLETE (interrupted; rerun with --resume)")),
        ("command", d.get("command", "")),
        ("options", ", ".join(f"{k}={v}" for k, v in d.get("options", {}).items())),
    ]
    doc.table(["", ""], [[k, v] for k, v in items], align=["l", "l"])


CSS = """
body { font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; max-width: 1400px;
       margin: 2em auto; padding: 0 1.5em; color: #222; line-height: 1.45; }
h1 { border-bottom: 2px solid #444; padding-bottom: .2em; }
h2 { margin-top: 2.2em; border-bottom: 1px solid #ccc; padding-bottom: .15em; }
table { border-collapse: collapse; margin: .8em 0 1.4em; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; }
th { background: #f1f3f5; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
table.wide { display: block; overflow-x: auto; max-width: 100%; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 13px; color: #555; font-style: italic; }
nav { background: #f7f7f9; padding: .6em 1em; border: 1px solid #e3e3e3; font-size: 14px; }
nav a { margin-right: 1.2em; }
.warn { background: #fff4e5; border: 1px solid #f0b37e; padding: .5em 1em; }
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="results.json written by spkit bench")
    ap.add_argument("--out", help="output folder (default: the folder of results.json)")
    args = ap.parse_args()
    out = args.out or os.path.dirname(os.path.abspath(args.results))
    os.makedirs(out, exist_ok=True)
    res = Results(load(args.results))
    if HAVE_MPL:
        plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "figure.dpi": 110})
        # Old plots would otherwise linger next to a report that no longer shows them.
        plot_dir = os.path.join(out, "plots")
        if os.path.isdir(plot_dir):
            for f in os.listdir(plot_dir):
                if f.endswith(".png"):
                    os.remove(os.path.join(plot_dir, f))

    doc = Doc(out)
    doc.h(1, "spkit benchmark report")
    if not HAVE_MPL:
        msg = "matplotlib is not installed: plots were skipped (install it with scripts/setup.sh or pip install matplotlib, then run spkit report)."
        doc.md.append("> " + msg + "\n")
        doc.html.append(f'<p class="warn">{html.escape(msg)}</p>')
        print("report.py: warning: " + msg, file=sys.stderr)
    if not res.data.get("complete", True):
        msg = "This run was interrupted: the results below are partial. Rerun the same spkit bench command with --resume to finish it."
        doc.md.append("> " + msg + "\n")
        doc.html.append(f'<p class="warn">{html.escape(msg)}</p>')
    sections = [("headline", "Headline"), ("mkl", "MKL"), ("gflops", "GFLOPS"), ("threads", "Threads"), ("gpu", "GPU vs cuSPARSE"),
                ("roofline", "Roofline"), ("bmsparse", "bmSparse"), ("parse", "Parsing"), ("auto", "Auto-selector"), ("failures", "Failures"),
                ("matrices", "Matrices")]
    sections.append(("spgemm", "SpGEMM"))
    doc.html.append("<nav>" + "".join(f'<a href="#{a}">{t}</a>' for a, t in sections) + "</nav>")
    run_info(doc, res)
    headline(doc, res)
    mkl_section(doc, res)
    gflops_bars(doc, res)
    thread_sweep(doc, res)
    gpu_section(doc, res)
    roofline(doc, res)
    bmsparse(doc, res)
    spgemm_section(doc, load_spgemm(args.results))
    parse_section(doc, res)
    auto_section(doc, res)
    failures(doc, res)
    matrices_section(doc, res)
    doc.p("All rows, with every key, are in results.csv and results.json next to this report; "
          "`spkit compare OLD.json NEW.json` compares two runs cell by cell.")

    md_path = os.path.join(out, "report.md")
    with open(md_path + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(doc.md) + "\n")
    os.replace(md_path + ".tmp", md_path)
    html_path = os.path.join(out, "report.html")
    with open(html_path + ".tmp", "w", encoding="utf-8") as f:
        f.write('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                '<meta name="viewport" content="width=device-width, initial-scale=1">'
                f"<title>spkit benchmark report</title><style>{CSS}</style></head><body>\n")
        f.write("\n".join(doc.html))
        f.write("\n</body></html>\n")
    os.replace(html_path + ".tmp", html_path)
    print(f"report: {html_path}, {md_path}" + (f", {len(doc.plots)} plots in {os.path.join(out, 'plots')}" if doc.plots else
                                               " (no plots)"), file=sys.stderr)


if __name__ == "__main__":
    main()
