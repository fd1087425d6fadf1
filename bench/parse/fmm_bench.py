"""fast_matrix_market / scipy side of the parse benchmark: same file, same thread count.
usage: python3 fmm_bench.py FILE.mtx THREADS REPS
Where the fast_matrix_market package is missing (e.g. a machine without network), the copy vendored in
scipy >= 1.12 (scipy.io._fast_matrix_market, the reader behind scipy.io.mmread) is timed instead:
mmread() -> COO stands in for read_coo."""
import os, statistics, sys, time

import scipy
import scipy.io
import scipy.io._fast_matrix_market as sfmm

path, threads, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
mb = os.path.getsize(path) / 1e6


def run(name, fn):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    best, med = min(t), statistics.median(t)
    print(f"fmm   {name:<14} threads={threads} best_s={best:.4f} median_s={med:.4f} MB/s={mb / best:.1f} (best) {mb / med:.1f} (median)"
          f" file={path} all_s={','.join(f'{x:.4f}' for x in t)}", flush=True)


sfmm.PARALLELISM = threads
try:
    import fast_matrix_market as fmm
    fmm.PARALLELISM = threads
    run("read_coo", lambda: fmm.read_coo(path, parallelism=threads))
except ImportError:
    run("scipy-mmread", lambda: scipy.io.mmread(path))
run("mmread.tocsr", lambda: scipy.io.mmread(path).tocsr())
