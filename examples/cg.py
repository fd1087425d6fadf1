"""Conjugate gradients from scipy with spkit.Plan as the operator, against scipy's CG on `A @ x`.

    PYTHONPATH=build/cpu/python python examples/cg.py [--n 40] [--threads 0] [--tol 1e-8] [--rounds 3]

Solves A x = b, b = A x* with x*_i = sin(i + 1), on lap3d (7-point, n^3 unknowns), fem_mesh (P1, one
dof per node) and tests/data/matrices/bcsstk03, with scipy.sparse.linalg.cg at the same tolerance, once
with the scipy CSR matrix and once with the spkit plan (planned once, outside the timing). Prints
iterations, time per iteration and total time for both, best of --rounds interleaved runs, and checks
that both took the same number of iterations (within 2% on the ill-conditioned bcsstk03).
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

# numpy's threaded BLAS (OpenBLAS) leaves its threads spinning after each dot product of the CG loop; on a
# machine with few cores they starve spkit's OpenMP team, and every product then waits milliseconds for a
# core (measured on 2 cores: 7 ms instead of 0.15 ms per product). One BLAS thread removes the contention;
# set it before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import spkit

ROOT = Path(__file__).resolve().parents[1]


def solve(A, b, tol):
    iterations = [0]

    def count(_xk):
        iterations[0] += 1

    t0 = time.perf_counter()
    x, info = sla.cg(A, b, rtol=tol, atol=0.0, maxiter=100000, callback=count)
    return x, info, iterations[0], time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="grid side of lap3d and fem_mesh")
    parser.add_argument("--threads", type=int, default=0, help="spkit CPU threads (0: all)")
    parser.add_argument("--tol", type=float, default=1e-8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    systems = {
        f"lap3d n={args.n}": spkit.generate("lap3d", args.n, points=7),
        f"fem_mesh n={args.n}": spkit.generate("fem_mesh", args.n, dof=1),
        "bcsstk03": spkit.read_matrix(ROOT / "tests/data/matrices/bcsstk03.mtx.gz"),
    }
    print(f"{'matrix':<16} {'rows':>8} {'nnz':>9} {'solver':<7} {'iters':>6} {'ms/iter':>9} {'total ms':>9}  kernel")
    ok = True
    for name, A in systems.items():
        A = sp.csr_array(A)
        b = A @ np.sin(np.arange(1, A.shape[0] + 1, dtype=np.float64))
        plan = spkit.Plan(A, threads=args.threads, expected_products=1000)
        best = {"scipy": None, "spkit": None}
        for _ in range(args.rounds):  # interleaved, best of the rounds
            for label, op in (("scipy", A), ("spkit", plan)):
                x, info, it, seconds = solve(op, b, args.tol)
                if info != 0:
                    print(f"{name}: {label} CG did not converge (info {info})")
                    ok = False
                if best[label] is None or seconds < best[label][1]:
                    best[label] = (it, seconds)
        for label in ("scipy", "spkit"):
            it, seconds = best[label]
            kernel = plan.kernel if label == "spkit" else "scipy CSR"
            print(f"{name:<16} {A.shape[0]:>8} {A.nnz:>9} {label:<7} {it:>6} {1e3 * seconds / max(it, 1):>9.4f} "
                  f"{1e3 * seconds:>9.2f}  {kernel}")
        it_scipy, it_spkit = best["scipy"][0], best["spkit"][0]
        if abs(it_scipy - it_spkit) > max(2, it_scipy // 50 if name == "bcsstk03" else 0):
            print(f"{name}: iteration counts differ (scipy {it_scipy}, spkit {it_spkit})")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
