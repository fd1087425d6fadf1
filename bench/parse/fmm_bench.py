"""fast_matrix_market / scipy side of the parse benchmark: same file, same thread count.
usage: python3 fmm_bench.py FILE.mtx THREADS REPS"""
import os, statistics, sys, time

import fast_matrix_market as fmm
import scipy
import scipy.io

path, threads, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
mb = os.path.getsize(path) / 1e6


def run(name, fn):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    best, med = min(t), statistics.median(t)
    print(f"fmm   {name:<10} threads={threads} best_s={best:.4f} median_s={med:.4f} MB/s={mb / best:.1f} (best) {mb / med:.1f} (median)",
          flush=True)


fmm.PARALLELISM = threads
run("read_coo", lambda: fmm.read_coo(path, parallelism=threads))
# scipy.io.mmread is fast_matrix_market underneath (scipy >= 1.12) with its own thread setting.
import scipy.io._fast_matrix_market as sfmm
sfmm.PARALLELISM = threads
run("mmread.tocsr", lambda: scipy.io.mmread(path).tocsr())
