"""Paired parse benchmark: spkit .mtx->CSR (load_matrix, through a small C shim) and fast_matrix_market
read_coo (or scipy.io.mmread, the copy of fmm inside scipy, where the package is missing), alternating call
by call in one process, so both see the same machine state. Prints every pair and the median of the
per-pair ratios fmm_time / spkit_time (> 1: spkit faster).
usage: python3 bench/parse/paired.py SHIM.so FILE.mtx THREADS PAIRS
(bench/parse/run.sh MODE=paired builds the shim and calls this.) PAIRED_THP_DISABLE=1 turns transparent huge pages
off for the whole process first (prctl PR_SET_THP_DISABLE: both readers), a diagnostic of fresh-memory costs."""
import ctypes, os, statistics, sys, time

import scipy.io
import scipy.io._fast_matrix_market as sfmm

shim, path, threads, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if os.environ.get("PAIRED_THP_DISABLE"):
    print("prctl(PR_SET_THP_DISABLE):", ctypes.CDLL(None).prctl(41, 1, 0, 0, 0))  # 41 = PR_SET_THP_DISABLE
lib = ctypes.CDLL(shim)
lib.spkit_paired_load_seconds.restype = ctypes.c_double
lib.spkit_paired_load_seconds.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]
sfmm.PARALLELISM = threads
try:
    import fast_matrix_market as fmm
    name, read = "read_coo", lambda: fmm.read_coo(path, parallelism=threads)
except ImportError:
    name, read = "scipy-mmread", lambda: scipy.io.mmread(path)

nnz = ctypes.c_int64(0)
ratios, sp, fm = [], [], []
for k in range(pairs + 1):  # pair 0 warms both up and is not counted
    first_spkit = k % 2 == 0  # alternate which side goes first
    for side in ((0, 1) if first_spkit else (1, 0)):
        if side == 0:
            s = lib.spkit_paired_load_seconds(path.encode(), threads, ctypes.byref(nnz))
            if s < 0:
                sys.exit("spkit failed to read " + path)
        else:
            t0 = time.perf_counter()
            read()
            f = time.perf_counter() - t0
    if k == 0:
        continue
    sp.append(s); fm.append(f); ratios.append(f / s)
    print(f"pair {k:2d} threads={threads} spkit_s={s:.4f} fmm_s={f:.4f} fmm/spkit={f / s:.3f}", flush=True)
print(f"paired threads={threads} file={path} nnz={nnz.value} fmm={name} pairs={pairs} "
      f"spkit_median_s={statistics.median(sp):.4f} fmm_median_s={statistics.median(fm):.4f} "
      f"median_ratio={statistics.median(ratios):.3f} min_ratio={min(ratios):.3f} max_ratio={max(ratios):.3f} "
      f"spkit_faster_in={sum(r > 1 for r in ratios)}/{len(ratios)}", flush=True)
