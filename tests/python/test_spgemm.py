"""spkit.spgemm against scipy's A @ B: random, rectangular, empty rows, float32/float64, every CPU kernel,
auto with its fallback and row batches under a memory limit, and clear errors for bad input."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import spkit

def _random(rows, cols, density, seed):
    rng = np.random.default_rng(seed)
    m = sp.random(rows, cols, density=density, format="csr", random_state=rng, dtype=np.float64)
    return sp.csr_array(m)


def _assert_product(C, A, B, dtype):
    ref = (sp.csr_array(A, dtype=np.float64) @ sp.csr_array(B, dtype=np.float64)).toarray()
    assert isinstance(C, sp.csr_array)
    assert C.shape == ref.shape
    assert C.dtype == dtype
    assert C.has_canonical_format  # sorted, distinct columns
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(C.toarray(), ref, rtol=tol, atol=tol * (1 + np.abs(ref).max()))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_square_product_matches_scipy(dtype):
    A = _random(211, 211, 0.03, 1).astype(dtype)
    C = spkit.spgemm(A)
    _assert_product(C, A, A, dtype)


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_rectangular_product_with_empty_rows(precision):
    A = _random(97, 130, 0.05, 2).tolil()
    A[5, :] = 0
    A[40, :] = 1.0  # one dense row
    A = sp.csr_array(A.tocsr())
    B = _random(130, 61, 0.08, 3)
    C = spkit.spgemm(A, B, precision=precision, threads=2)
    _assert_product(C, A, B, np.dtype(precision))


def test_generated_families(all_matrices):
    for name, A in all_matrices.items():
        if A.shape[0] != A.shape[1] or A.nnz > 200_000:
            continue
        C = spkit.spgemm(A)
        _assert_product(C, A, A, np.float64)


@pytest.mark.parametrize("kernel", ["cpu.csr.gustavson_dense", "cpu.csr.gustavson_hash", "cpu.bmsparse.blocks"])
def test_named_kernels(kernel):
    A = _random(150, 150, 0.04, 4)
    C, what = spkit.spgemm(A, kernel=kernel, info=True)
    assert what["kernel"] == kernel and what["reason"] == "requested"
    _assert_product(C, A, A, np.float64)


def test_auto_says_what_it_ran():
    A = _random(120, 120, 0.05, 5)
    C, what = spkit.spgemm(A, info=True)
    assert what["kernel"] in ("cpu.csr.gustavson_dense", "cpu.csr.gustavson_hash", "cpu.bmsparse.blocks")
    assert what["reason"] and what["batches"] == 1 and what["refused"] == []
    assert what["kernel"] in what["summary"]
    _assert_product(C, A, A, np.float64)


@pytest.mark.parametrize("limit", [40_000, "48K"])
def test_row_batches_under_a_memory_limit(limit):
    A = _random(300, 300, 0.04, 6)
    C, what = spkit.spgemm(A, memory_limit=limit, info=True)
    assert what["batches"] > 1, what
    assert "row batches" in what["summary"]
    _assert_product(C, A, A, np.float64)


def test_integer_input_is_computed_in_double():
    A = sp.csr_array(np.array([[1, 0, 2], [0, 3, 0], [4, 0, 0]], dtype=np.int64))
    C = spkit.spgemm(A)
    _assert_product(C, A, A, np.float64)


def test_empty_and_one_by_one():
    E = sp.csr_array((0, 0), dtype=np.float64)
    assert spkit.spgemm(E).shape == (0, 0)
    Z = sp.csr_array((5, 4), dtype=np.float64)
    C = spkit.spgemm(Z, sp.csr_array((4, 3), dtype=np.float64))
    assert C.shape == (5, 3) and C.nnz == 0
    one = sp.csr_array(np.array([[2.5]]))
    assert spkit.spgemm(one).toarray()[0, 0] == 6.25


def test_bad_shapes_raise_a_clear_error():
    with pytest.raises(ValueError, match="columns must equal B's rows"):
        spkit.spgemm(_random(10, 7, 0.3, 7), _random(10, 7, 0.3, 8))


def test_bad_arguments():
    A = _random(10, 10, 0.3, 9)
    with pytest.raises(ValueError, match="device"):
        spkit.spgemm(A, device="tpu")
    with pytest.raises(ValueError, match="precision"):
        spkit.spgemm(A, precision="float16")
    with pytest.raises(spkit.NotApplicable, match="no.such"):
        spkit.spgemm(A, kernel="no.such.kernel")
    with pytest.raises(spkit.Error, match="memory_limit"):
        spkit.spgemm(A, memory_limit="lots")
    with pytest.raises(TypeError):
        spkit.spgemm(np.ones((3, 3)))


@pytest.mark.skipif(spkit.gpu_count() == 0, reason="no CUDA device")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cuda_auto(dtype):
    A = _random(500, 500, 0.02, 10).astype(dtype)
    C, what = spkit.spgemm(A, device="cuda", info=True)
    assert what["kernel"].startswith("cuda.")
    _assert_product(C, A, A, dtype)
    C, what = spkit.spgemm(A, device="cuda", memory_limit="200K", info=True)
    assert what["batches"] > 1
    _assert_product(C, A, A, dtype)


def test_output_argument_checked():
    with pytest.raises(ValueError, match="output"):
        spkit.spgemm(_random(5, 5, 0.5, 3), output="torch")


@pytest.mark.skipif(spkit.gpu_count() == 0, reason="no CUDA device")
def test_cupy_sparse_in_and_out():
    pytest.importorskip("cupy", reason="CuPy not installed")
    csp = pytest.importorskip("cupyx.scipy.sparse")
    A = _random(300, 200, 0.03, 11)
    B = _random(200, 250, 0.03, 12)
    C = spkit.spgemm(csp.csr_matrix(A), csp.csr_matrix(B), device="cuda")
    assert csp.isspmatrix_csr(C) and C.shape == (300, 250)
    _assert_product(sp.csr_array(C.get()), A, B, np.float64)
    C = spkit.spgemm(A, B, device="cuda", output="cupy")
    assert csp.isspmatrix_csr(C)
    C = spkit.spgemm(csp.csr_matrix(A), csp.csr_matrix(B), output="scipy")
    _assert_product(C, A, B, np.float64)
