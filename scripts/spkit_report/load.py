"""Reading results.json and selecting rows: the Results view the sections share, and the numeric
helpers every section uses."""
import json
import math
import os
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise SystemExit(f"report.py: {path} is not a spkit bench results file (no 'results' list)")
    return data


def load_section(results_path, filename, section):
    """A section's file (spgemm.json, spmm.json) next to results.json: its {"entries": [...]} object, or None
    when it is missing or unreadable (with a warning naming the section left out)."""
    path = os.path.join(os.path.dirname(os.path.abspath(results_path)), filename)
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print(f"report.py: warning: {path} unreadable ({e}); no {section} section", file=sys.stderr)
        return None
    return data if isinstance(data, dict) and isinstance(data.get("entries"), list) else None


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


# How the report names each device.
BACKEND_NAME = {"cpu": "CPU", "cuda": "GPU"}


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
