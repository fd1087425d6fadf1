"""spkit.Plan with vectors in the plan's numbering: numbering, to_plan_numbering, from_plan_numbering and
matvec_in_plan_numbering for orderings none, rcm, hubsort and community against scipy on P A P^T;
rectangular plans copy; bad arguments raise; scipy's CG on the renumbered operator matches CG on A."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import spkit
from conftest import assert_close


def _shuffled_laplacian() -> sp.csr_array:
    L = spkit.generate("lap3d", 9)
    perm = np.random.default_rng(5).permutation(L.shape[0])
    return sp.csr_array(L[perm][:, perm])


A = _shuffled_laplacian()


@pytest.mark.parametrize("ordering", ["none", "rcm", "hubsort", "community"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_numbering_passes_and_products(ordering, dtype):
    plan = spkit.Plan(A, precision=dtype, ordering=ordering, threads=2, tuning="model", expected_products=10**6)
    n = A.shape[0]
    assert plan.renumbered == (ordering != "none")
    numbering = plan.numbering
    assert numbering.dtype == np.int64
    if plan.renumbered:
        assert sorted(numbering.tolist()) == list(range(n))
        B = A[numbering][:, numbering]
    else:
        assert numbering.shape == (0,)
        B = A
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, n).astype(dtype)
    xp = plan.to_plan_numbering(x)
    expected = x[numbering] if plan.renumbered else x
    np.testing.assert_array_equal(xp, expected)
    np.testing.assert_array_equal(plan.from_plan_numbering(xp), x)
    out = np.empty_like(x)
    assert plan.from_plan_numbering(xp, out) is out
    # y' = (P A P^T) x', and P (A x) to rounding.
    yp = plan.matvec_in_plan_numbering(xp)
    assert_close(yp, B @ xp.astype(np.float64), dtype)
    assert_close(yp, plan.to_plan_numbering(plan(x)).astype(np.float64), dtype)
    y0 = rng.uniform(-1, 1, n).astype(dtype)
    y1 = y0.copy()
    assert plan.matvec_in_plan_numbering(xp, y1, alpha=2.0, beta=-0.5) is y1
    assert_close(y1, 2 * (B @ xp.astype(np.float64)) - 0.5 * y0.astype(np.float64), dtype)
    if plan.renumbered:
        assert plan.bytes_moved_in_plan_numbering < plan.bytes_moved
    else:
        assert plan.bytes_moved_in_plan_numbering == plan.bytes_moved


def test_rectangular_plan_copies():
    R = sp.csr_array(sp.random(30, 20, density=0.2, format="csr", random_state=3))
    plan = spkit.Plan(R, expected_products=10**6, tuning="model", vectors_in_plan_numbering=True)
    assert not plan.renumbered and plan.numbering.shape == (0,)
    x = np.linspace(-1, 1, 20)
    y = np.linspace(2, 3, 30)
    np.testing.assert_array_equal(plan.to_plan_numbering(x), x)
    np.testing.assert_array_equal(plan.from_plan_numbering(y), y)
    np.testing.assert_array_equal(plan.matvec_in_plan_numbering(x), plan(x))


def test_bad_arguments():
    plan = spkit.Plan(A, ordering="rcm")
    x = np.ones(A.shape[0])
    with pytest.raises(ValueError, match="elements"):
        plan.to_plan_numbering(np.ones(A.shape[0] - 1))
    with pytest.raises(TypeError, match="dtype"):
        plan.to_plan_numbering(x.astype(np.float32))
    with pytest.raises(spkit.Error, match="overlap"):
        plan.to_plan_numbering(x, x)
    with pytest.raises(TypeError, match="array"):
        plan.from_plan_numbering([1.0, 2.0])
    with pytest.raises(ValueError, match="elements"):
        plan.matvec_in_plan_numbering(np.ones(3))


def test_cg_in_plan_numbering_matches_cg_on_a():
    b = A @ np.sin(np.arange(1, A.shape[0] + 1))
    ref, info = sla.cg(A, b, rtol=1e-10, atol=0.0)
    assert info == 0
    plan = spkit.Plan(A, ordering="rcm", expected_products=1000, vectors_in_plan_numbering=True)
    op = sla.LinearOperator(A.shape, matvec=plan.matvec_in_plan_numbering, dtype=np.float64)
    xp, info = sla.cg(op, plan.to_plan_numbering(b), rtol=1e-10, atol=0.0)
    assert info == 0
    np.testing.assert_allclose(plan.from_plan_numbering(xp), ref, rtol=1e-7, atol=1e-9)
