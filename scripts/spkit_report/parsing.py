"""Matrix Market parse throughput against fast_matrix_market."""
from .document import fmt_count, fmt_g
from .load import num
from .plots import HAVE_MPL, grouped_bars, legend_outside, plain_log_axis, plt


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
