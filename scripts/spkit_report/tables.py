"""The tables around the results: run information, skipped and failed cells, the matrices."""
from .document import fmt_count, fmt_g
from .load import num, ok


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
