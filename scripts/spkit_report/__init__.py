"""The spkit bench report (scripts/report.py is its entry point): report.md, report.html and
plots/*.png from a results.json. One module per part: load (results.json and row selection),
document (Markdown and HTML side by side), plots (matplotlib helpers), and the sections: headline,
spmv, spgemm, spmm, parsing, selector, tables."""
import argparse
import html
import os
import sys

from .document import CSS, Doc
from .headline import headline, mkl_section
from .load import Results, load
from .parsing import parse_section
from .plots import HAVE_MPL, plt
from .selector import auto_section
from .spgemm import load_spgemm, spgemm_section
from .spmm import load_spmm, spmm_section
from .spmv import bmsparse, gflops_bars, gpu_section, roofline, thread_sweep
from .tables import failures, matrices_section, run_info


def main(description=None):
    """Runs the report from the command line; `description` is the --help text (the entry point's docstring)."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    sections.append(("spmm", "SpMM"))
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
    spmm_section(doc, load_spmm(args.results))
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
