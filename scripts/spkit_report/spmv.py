"""The SpMV sections: GFLOPS per matrix and kernel, thread sweeps, the GPU kernels against cuSPARSE,
the bandwidth roofline and bmSparse against block density."""
from collections import defaultdict

from .document import fmt_g
from .load import BACKEND_NAME, geomean, label_with_threads, num, ok
from .plots import HAVE_MPL, grouped_bars, kernel_colors, legend_below, legend_outside, plain_log_axis, plt, ratio_axis


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
