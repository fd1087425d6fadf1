"""Conjugate gradients from scipy with spkit.Plan as the operator, against scipy's CG on `A @ x`.

    PYTHONPATH=build/cpu/python python examples/cg.py [--n 40] [--threads 0] [--tol 1e-8] [--rounds 3]
                                                      [--ordering auto|none|rcm|hubsort] [--shuffle]

Solves A x = b, b = A x* with x*_i = sin(i + 1), on lap3d (7-point, n^3 unknowns), fem_mesh (P1, one
dof per node) and tests/data/matrices/bcsstk03, with scipy.sparse.linalg.cg at the same tolerance: with
the scipy CSR matrix ("scipy"), with the spkit plan ("spkit", planned once, outside the timing), and
with the plan's vectors kept in its numbering ("spkit-pn": CG solves (P A P^T) x' = P b through
plan.matvec_in_plan_numbering, b permuted once and x' back once per solve, so a renumbered plan --ordering,
--shuffle to number the generated systems randomly first -- pays no gather and scatter per product). Prints
iterations, time per iteration and total time for each, best of --rounds interleaved runs, and checks
that all took the same number of iterations (within 2% on the ill-conditioned bcsstk03).
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


def solve_in_plan_numbering(plan, b, tol):
    """CG on P A P^T with every vector in the plan's numbering; b in, x out in the caller's."""
    t0 = time.perf_counter()
    op = sla.LinearOperator(plan.shape, matvec=plan.matvec_in_plan_numbering, dtype=np.float64)
    xp, info, iterations, _ = solve(op, plan.to_plan_numbering(b), tol)
    return plan.from_plan_numbering(xp), info, iterations, time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="grid side of lap3d and fem_mesh")
    parser.add_argument("--threads", type=int, default=0, help="spkit CPU threads (0: all)")
    parser.add_argument("--tol", type=float, default=1e-8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ordering", default="auto", help="the plans' renumbering (spkit.Plan ordering=)")
    parser.add_argument("--shuffle", action="store_true", help="number the generated systems randomly first")
    args = parser.parse_args()
    systems = {
        f"lap3d n={args.n}": spkit.generate("lap3d", args.n, points=7),
        f"fem_mesh n={args.n}": spkit.generate("fem_mesh", args.n, dof=1),
        "bcsstk03": spkit.read_matrix(ROOT / "tests/data/matrices/bcsstk03.mtx.gz"),
    }
    print(f"{'matrix':<16} {'rows':>8} {'nnz':>9} {'solver':<8} {'iters':>6} {'ms/iter':>9} {'total ms':>9}  kernel")
    ok = True
    for name, A in systems.items():
        A = sp.csr_array(A)
        if args.shuffle and name != "bcsstk03":  # a real matrix keeps its own numbering
            perm = np.random.default_rng(1).permutation(A.shape[0])
            A = sp.csr_array(A[perm][:, perm])
        b = A @ np.sin(np.arange(1, A.shape[0] + 1, dtype=np.float64))
        plan = spkit.Plan(A, threads=args.threads, expected_products=1000, ordering=args.ordering)
        plan_pn = spkit.Plan(A, threads=args.threads, expected_products=1000, ordering=args.ordering,
                             vectors_in_plan_numbering=True)
        solvers = {
            "scipy": lambda: solve(A, b, args.tol),
            "spkit": lambda: solve(plan, b, args.tol),
            "spkit-pn": lambda: solve_in_plan_numbering(plan_pn, b, args.tol),
        }
        kernels = {"scipy": "scipy CSR", "spkit": plan.kernel, "spkit-pn": plan_pn.kernel}
        for label, p in (("spkit", plan), ("spkit-pn", plan_pn)):
            kernels[label] += f" ({p.selection['ordering']} ordering)"
        best = dict.fromkeys(solvers)
        for _ in range(args.rounds):  # interleaved, best of the rounds
            for label, run in solvers.items():
                x, info, it, seconds = run()
                if info != 0:
                    print(f"{name}: {label} CG did not converge (info {info})")
                    ok = False
                if best[label] is None or seconds < best[label][1]:
                    best[label] = (it, seconds)
        for label in solvers:
            it, seconds = best[label]
            print(f"{name:<16} {A.shape[0]:>8} {A.nnz:>9} {label:<8} {it:>6} {1e3 * seconds / max(it, 1):>9.4f} "
                  f"{1e3 * seconds:>9.2f}  {kernels[label]}")
        it_scipy = best["scipy"][0]
        for label in ("spkit", "spkit-pn"):
            if abs(it_scipy - best[label][0]) > max(2, it_scipy // 50 if name == "bcsstk03" else 0):
                print(f"{name}: iteration counts differ (scipy {it_scipy}, {label} {best[label][0]})")
                ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
