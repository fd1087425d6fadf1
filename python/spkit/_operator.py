"""spkit.Plan as a LinearOperator of scipy.sparse.linalg (NumPy) or cupyx.scipy.sparse.linalg (CuPy)."""
from __future__ import annotations

from typing import Any


def linear_operator(plan: Any, arrays: str = "auto") -> Any:
    """The LinearOperator running `plan`: matvec is plan(x), rmatvec plan(x, transpose=True), matmat
    plan.apply_block. arrays: "numpy", "cupy" or "auto" (cupy for a CUDA plan when CuPy imports)."""
    if arrays not in ("auto", "numpy", "cupy"):
        raise ValueError(f'arrays must be "auto", "numpy" or "cupy", got {arrays!r}')
    if arrays == "auto":
        arrays = "numpy"
        if plan.backend == "cuda":
            try:
                import cupy  # noqa: F401

                arrays = "cupy"
            except ImportError:
                pass
    if arrays == "cupy":
        if plan.backend != "cuda":
            raise ValueError('arrays="cupy" needs a CUDA plan (spkit.Plan(A, device="cuda"))')
        from cupyx.scipy.sparse.linalg import LinearOperator
    else:
        from scipy.sparse.linalg import LinearOperator

    class PlanOperator(LinearOperator):
        def __init__(self) -> None:
            super().__init__(dtype=plan.dtype, shape=(plan.rows, plan.cols))
            self.plan = plan

        def _matvec(self, x: Any) -> Any:
            return plan.matvec(x)

        def _rmatvec(self, x: Any) -> Any:
            return plan.rmatvec(x)

        def _matmat(self, X: Any) -> Any:
            return plan.matmat(X)

        def _rmatmat(self, X: Any) -> Any:
            return plan.rmatmat(X)

        def __repr__(self) -> str:
            return f"<{plan.rows}x{plan.cols} LinearOperator over {plan!r}>"

    return PlanOperator()
