"""Shared fixtures: the repository's real matrices and a few generated ones, as scipy CSR arrays."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import spkit

MATRIX_DIR = Path(os.environ.get("SPKIT_TEST_MATRICES", Path(__file__).resolve().parents[1] / "data" / "matrices"))
REAL_FILES = sorted(MATRIX_DIR.glob("*.mtx.gz"))


def _generated() -> dict:
    rng = np.random.default_rng(7)
    scipy_random = sp.random(300, 200, density=0.03, format="csr", random_state=rng).astype(np.float64)
    # Empty rows and one dense row: the cases that break partitioned kernels.
    skew = sp.lil_array((257, 257))
    skew[3, :] = 1.5
    skew[100, 7] = -2.0
    skew[256, 256] = 4.0
    return {
        "lap2d": spkit.generate("lap2d", 30),
        "powerlaw": spkit.generate("powerlaw", 2000, per_row=6),
        "circuit": spkit.generate("circuit", 1500),
        "banded": spkit.generate("banded", 700, bandwidth=4),
        "scipy_random": sp.csr_array(scipy_random),
        "skewed": sp.csr_array(skew.tocsr()),
    }


@pytest.fixture(scope="session")
def real_matrices() -> dict:
    assert REAL_FILES, f"no *.mtx.gz under {MATRIX_DIR}"
    return {p.name.split(".")[0]: spkit.read_matrix(p) for p in REAL_FILES}


@pytest.fixture(scope="session")
def all_matrices(real_matrices) -> dict:
    return {**real_matrices, **_generated()}


def assert_close(y, ref, dtype) -> None:
    """Against the float64 product, with a tolerance for the precision (sums are reordered by kernels)."""
    tol = 2e-5 if np.dtype(dtype) == np.float32 else 1e-12
    ref = np.asarray(ref, dtype=np.float64)
    np.testing.assert_allclose(np.asarray(y, dtype=np.float64), ref, rtol=tol, atol=tol * (1 + np.abs(ref).max()))
