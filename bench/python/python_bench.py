#!/usr/bin/env python3
"""The Python binding's cost and spkit against scipy.sparse, from Python.

1. Overhead: the same plan and arrays, called N times from Python (plan(x, y), plan.apply(x, y), plan(x))
   and N times from a C++ loop inside the extension (Plan<T>::apply, no Python per call). The difference
   per call is what the binding adds. Measured on a tiny matrix (where the product itself is ~0.1 us, so
   the difference is measured precisely) and on a ~1M-non-zero one (where it must vanish in the noise).
2. spkit's CPU kernel (kernel="auto", threads 1 and 2) against scipy.sparse `A @ x` (always one thread) on
   ~1M-non-zero generated matrices, float64, both timed from Python, y allocated per call in both
   (plan(x) / A @ x) and in place for spkit (plan(x, y)).

Overhead: the best of `--batches` batches (timeit's rule; the machine is shared). Products: median and
best of `--reps` single calls after a warm-up. Writes a CSV and prints markdown tables.

    PYTHONPATH=build/release/python python3 bench/python/python_bench.py --out docs/perf/data/python
"""
from __future__ import annotations

import argparse
import csv
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np
import scipy
import scipy.sparse as sp

import spkit

# About 1M non-zeros each (the `small` class of spkit bench).
MATRICES = {
    "lap2d": dict(family="lap2d", n=450),
    "lap3d": dict(family="lap3d", n=53),
    "fem": dict(family="fem", n=24),
    "random": dict(family="random", n=125000, per_row=8),
    "powerlaw": dict(family="powerlaw", n=125000, per_row=8),
    "road": dict(family="road", n=600),
    "circuit": dict(family="circuit", n=200000, per_row=5),
    "banded": dict(family="banded", n=90000, bandwidth=5),
}


def batch_best(fn, calls: int, batches: int, sync=lambda: None) -> float:
    """Min over batches (timeit's rule: the least disturbed batch) of the mean seconds per call of `calls`
    calls of fn() (then sync())."""
    fn()
    sync()
    out = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        out.append((time.perf_counter() - t0) / calls)
    return min(out)


def batch_best_cpp(plan, x, y, calls: int, batches: int, sync=lambda: None) -> float:
    """The same for `calls` calls of Plan<T>::apply in one C++ loop (timed from here like the Python loop)."""
    plan._time_cpp_apply(x, y, 1)
    sync()
    out = []
    for _ in range(batches):
        t0 = time.perf_counter()
        plan._time_cpp_apply(x, y, calls)
        sync()
        out.append((time.perf_counter() - t0) / calls)
    return min(out)


def single_median(fn, reps: int, warmup: int = 3) -> tuple:
    """(median, min) seconds of single calls (the min shows the machine's best when it is shared)."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out), min(out)


def overhead(A, label: str, kernel: str, threads: int, calls: int, batches: int, device: str = "cpu") -> dict:
    plan = spkit.Plan(A, kernel=kernel, threads=threads, device=device)
    x = np.random.default_rng(0).uniform(-1, 1, A.shape[1])
    y = np.zeros(A.shape[0])
    sync = lambda: None  # noqa: E731
    if device != "cpu":
        import cupy as cp

        x, y = cp.asarray(x), cp.asarray(y)
        sync = cp.cuda.Device().synchronize
    cpp = batch_best_cpp(plan, x, y, calls, batches, sync)
    call_inplace = batch_best(lambda: plan(x, y), calls, batches, sync)
    apply = batch_best(lambda: plan.apply(x, y), calls, batches, sync)
    call_new = batch_best(lambda: plan(x), calls, batches, sync)
    return dict(matrix=label, rows=A.shape[0], nnz=A.nnz, device=device, kernel=plan.kernel, threads=threads,
                cpp_us=cpp * 1e6, call_inplace_us=call_inplace * 1e6, apply_us=apply * 1e6, call_new_us=call_new * 1e6)


def print_overhead(ov: list) -> None:
    print("| matrix | nnz | device | kernel | threads | C++ apply loop (us/call) | plan(x, y) (us) | plan.apply(x, y) (us) "
          "| plan(x) (us) | overhead of plan(x, y) (us) |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for r in ov:
        print(f"| {r['matrix']} | {r['nnz']} | {r['device']} | {r['kernel']} | {r['threads']} | {r['cpp_us']:.3f} | "
              f"{r['call_inplace_us']:.3f} | {r['apply_us']:.3f} | {r['call_new_us']:.3f} | "
              f"{r['call_inplace_us'] - r['cpp_us']:.3f} |")
    print()


def versus_scipy(name: str, A, reps: int) -> list:
    x = np.random.default_rng(1).uniform(-1, 1, A.shape[1])
    ref = A @ x
    rows = []
    scipy_s, scipy_min = single_median(lambda: A @ x, reps)
    for threads in (1, 2):
        plan = spkit.Plan(A, threads=threads, expected_products=1000)
        y = np.empty(A.shape[0])
        err = float(np.abs(plan(x) - ref).max() / max(1e-300, np.abs(ref).max()))
        new_s, new_min = single_median(lambda: plan(x), reps)
        inplace_s, _ = single_median(lambda: plan(x, y), reps)
        rows.append(dict(matrix=name, rows=A.shape[0], nnz=A.nnz, threads=threads, kernel=plan.kernel,
                         scipy_ms=scipy_s * 1e3, spkit_ms=new_s * 1e3, spkit_inplace_ms=inplace_s * 1e3,
                         speedup=scipy_s / new_s, scipy_min_ms=scipy_min * 1e3, spkit_min_ms=new_min * 1e3,
                         speedup_min=scipy_min / new_min, rel_err=err))
    return rows


def versus_cupy(name: str, A, reps: int) -> dict:
    """spkit's CUDA plan (auto) against cupyx.scipy.sparse (cuSPARSE) A @ x on CuPy arrays, CUDA events."""
    import cupy as cp
    import cupyx.scipy.sparse as csp

    x = cp.asarray(np.random.default_rng(1).uniform(-1, 1, A.shape[1]))
    Ad = csp.csr_matrix(A)
    plan = spkit.Plan(A, device="cuda", expected_products=1000)
    y = cp.empty(A.shape[0])

    def timed(fn) -> float:
        for _ in range(5):
            fn()
        out = []
        for _ in range(reps):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            out.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        return statistics.median(out)

    ref = Ad @ x
    err = float(cp.abs(plan(x) - ref).max() / cp.abs(ref).max())
    cupy_s = timed(lambda: Ad @ x)
    spkit_s = timed(lambda: plan(x, y))
    return dict(matrix=name, rows=A.shape[0], nnz=A.nnz, kernel=plan.kernel, cupy_ms=cupy_s * 1e3,
                spkit_ms=spkit_s * 1e3, speedup=cupy_s / spkit_s, rel_err=err)


def write_csv(path: Path, rows: list) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def cpu_tables(args) -> None:
    tiny = spkit.generate("lap2d", 4)  # 16 rows, 64 non-zeros
    big = spkit.generate("random", 125000, per_row=8)  # 1M non-zeros
    # 40k rows: past the size where the product releases the GIL (that cost is in the difference too).
    diag = sp.csr_array(sp.eye_array(40000, format="csr"))
    ov = [overhead(tiny, "lap2d n=4", "cpu.csr.serial", 1, 20000, args.batches),
          overhead(diag, "diagonal 40k (GIL released)", "cpu.csr.serial", 1, 1000, args.batches),
          overhead(big, "random 1M", "cpu.csr.omp.spkit", 1, 20, args.batches),
          overhead(big, "random 1M", "cpu.csr.omp.spkit", 2, 20, args.batches)]
    write_csv(args.out / "overhead.csv", ov)
    print_overhead(ov)

    names = [n for n in args.only.split(",") if n] or list(MATRICES)
    vs = []
    for name in names:
        m = dict(MATRICES[name])
        A = spkit.generate(m.pop("family"), m.pop("n"), **m)
        vs += versus_scipy(name, A, args.reps)
    write_csv(args.out / "vs_scipy.csv", vs)
    print("| matrix | rows | nnz | threads | spkit kernel (auto) | scipy A @ x (ms) | spkit plan(x) (ms) "
          "| spkit plan(x, y) (ms) | speedup over scipy | best-of: scipy / spkit plan(x) (ms), speedup |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---|")
    for r in vs:
        print(f"| {r['matrix']} | {r['rows']} | {r['nnz']} | {r['threads']} | {r['kernel']} | {r['scipy_ms']:.3f} | "
              f"{r['spkit_ms']:.3f} | {r['spkit_inplace_ms']:.3f} | {r['speedup']:.2f}x | "
              f"{r['scipy_min_ms']:.3f} / {r['spkit_min_ms']:.3f}, {r['speedup_min']:.2f}x |")
        assert r["rel_err"] < 1e-12, r


def gpu_tables(args) -> None:
    tiny = spkit.generate("lap2d", 4)
    big = spkit.generate("lap3d", 140)  # 2.7M rows, 19M non-zeros: far beyond the 50 MB L2
    ov = [overhead(tiny, "lap2d n=4", "auto", 0, 2000, args.batches, "cuda"),
          overhead(big, "lap3d 19M", "auto", 0, 20, args.batches, "cuda")]
    write_csv(args.out / "overhead_gpu.csv", ov)
    print_overhead(ov)
    sizes = {"lap3d": dict(family="lap3d", n=140), "random": dict(family="random", n=2000000, per_row=8),
             "powerlaw": dict(family="powerlaw", n=2000000, per_row=8)}
    vs = [versus_cupy(name, spkit.generate(**m), args.reps) for name, m in sizes.items()]
    write_csv(args.out / "vs_cupy.csv", vs)
    print("| matrix | rows | nnz | spkit kernel (auto) | cupyx A @ x (ms) | spkit plan(x, y) (ms) | speedup |")
    print("|---|---:|---:|---|---:|---:|---:|")
    for r in vs:
        print(f"| {r['matrix']} | {r['rows']} | {r['nnz']} | {r['kernel']} | {r['cupy_ms']:.3f} | {r['spkit_ms']:.3f} | "
              f"{r['speedup']:.2f}x |")
        assert r["rel_err"] < 1e-12, r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("python-bench"))
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--batches", type=int, default=15)
    ap.add_argument("--only", default="", help="comma-separated matrix names of the scipy table")
    ap.add_argument("--gpu", action="store_true", help="CUDA plans on CuPy arrays: overhead, and against cupyx.scipy.sparse")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}, Python {platform.python_version()}, NumPy {np.__version__}, "
          f"SciPy {scipy.__version__}, spkit {spkit.__version__}\n")
    if args.gpu:
        gpu_tables(args)
    else:
        cpu_tables(args)
    print(f"\n# load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
