"""spkit.Plan on the CPU: every CPU kernel of the registry through the binding, against scipy's A @ x."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import spkit
from conftest import assert_close

CPU_KERNELS = [k["name"] for k in spkit.kernels("cpu")]
PARALLEL = {k["name"] for k in spkit.kernels() if k["parallel"]}


def test_registry_lists_cpu_kernels():
    names = [k["name"] for k in spkit.kernels()]
    assert len(names) == len(set(names))
    assert "cpu.csr.serial" in CPU_KERNELS and len(CPU_KERNELS) >= 10
    for k in spkit.kernels():
        assert set(k) == {"name", "format", "backend", "parallel", "comparison", "auto", "description"}
        assert k["backend"] in ("cpu", "cuda") and k["description"]


@pytest.mark.parametrize("kernel", CPU_KERNELS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_cpu_kernel_matches_scipy(kernel, dtype, all_matrices):
    rng = np.random.default_rng(1)
    ran = 0
    for name, A in all_matrices.items():
        threads = 2 if kernel in PARALLEL else 1
        try:
            plan = spkit.Plan(A, kernel=kernel, precision=dtype, threads=threads)
        except (spkit.NotApplicable, spkit.TooLarge) as e:  # a kernel may refuse a matrix, with a reason
            assert str(e), (kernel, name)
            continue
        assert plan.kernel == kernel and plan.shape == A.shape and plan.dtype == np.dtype(dtype).name
        x = rng.uniform(-1, 1, A.shape[1]).astype(dtype)
        ref = A @ x.astype(np.float64)
        y = plan(x)
        assert isinstance(y, np.ndarray) and y.dtype == dtype and y.shape == (A.shape[0],)
        assert_close(y, ref, dtype)
        # In place: y = 2 A x - 0.5 y.
        y0 = rng.uniform(-1, 1, A.shape[0]).astype(dtype)
        y1 = y0.copy()
        assert plan(x, y1, alpha=2.0, beta=-0.5) is y1
        assert_close(y1, 2 * ref - 0.5 * y0.astype(np.float64), dtype)
        ran += 1
    # Structural formats (DIA, MKL BSR) refuse most matrices, with a reason; each kernel must still run on one.
    assert ran >= 1, f"{kernel} ran on no matrix"


@pytest.mark.parametrize("threads", [1, 2])
def test_auto_on_real_and_generated(all_matrices, threads):
    for name, A in all_matrices.items():
        plan = spkit.Plan(A, threads=threads, expected_products=1000)
        assert plan.kernel in CPU_KERNELS, name
        sel = plan.selection
        assert sel["kernel"] == plan.kernel and sel["reason"]
        x = np.linspace(-1, 1, A.shape[1])
        assert_close(plan(x), A @ x, np.float64)
        assert plan.plan_ms >= 0 and plan.bytes_moved > 0


def test_precision_follows_the_matrix():
    A32 = spkit.generate("lap2d", 10, dtype=np.float32)
    assert spkit.Plan(A32).dtype == "float32"
    assert spkit.Plan(A32.astype(np.float64)).dtype == "float64"
    assert spkit.Plan(A32, precision="double").dtype == "float64"
    assert spkit.Plan(A32.astype(np.int64)).dtype == "float64"
    with pytest.raises(ValueError, match="precision"):
        spkit.Plan(A32, precision="float16")


def test_beta_zero_ignores_nan_in_y():
    A = spkit.generate("lap2d", 8)
    x = np.ones(A.shape[1])
    y = np.full(A.shape[0], np.nan)
    spkit.Plan(A)(x, y, alpha=3.0)
    assert_close(y, 3 * (A @ x), np.float64)


def test_non_canonical_and_other_formats():
    # Unsorted columns and duplicates: the plan sees the canonical matrix (duplicates summed).
    indptr = np.array([0, 3, 4])
    indices = np.array([2, 0, 2, 1])
    data = np.array([1.0, 2.0, 3.0, 4.0])
    A = sp.csr_matrix((data, indices, indptr), shape=(2, 3))
    x = np.array([1.0, 10.0, 100.0])
    np.testing.assert_allclose(spkit.Plan(A)(x), [2 + 400, 40])
    np.testing.assert_allclose(spkit.Plan(A.tocoo())(x), A @ x)
    np.testing.assert_allclose(spkit.Plan(sp.csc_array(A))(x), A @ x)


def test_empty_and_one_by_one():
    E = sp.csr_array((4, 3))
    y = spkit.Plan(E, kernel="cpu.csr.serial")(np.ones(3))
    np.testing.assert_array_equal(y, np.zeros(4))
    one = sp.csr_array(np.array([[2.5]]))
    np.testing.assert_array_equal(spkit.Plan(one)(np.array([2.0])), [5.0])


@pytest.fixture(scope="module")
def small():
    A = spkit.generate("lap2d", 6)
    return A, spkit.Plan(A, kernel="cpu.csr.serial")


def test_wrong_dtype(small):
    A, plan = small
    for bad in (np.ones(A.shape[1], np.float32), np.ones(A.shape[1], np.int64), np.ones(A.shape[1], np.complex128)):
        with pytest.raises(TypeError, match="dtype"):
            plan(bad)
    with pytest.raises(TypeError, match="dtype"):
        plan(np.ones(A.shape[1]), np.ones(A.shape[0], np.float32))


def test_wrong_shape(small):
    A, plan = small
    with pytest.raises(ValueError, match="x has 35 elements, the matrix needs 36"):
        plan(np.ones(A.shape[1] - 1))
    with pytest.raises(ValueError, match="y has"):
        plan(np.ones(A.shape[1]), np.ones(A.shape[0] + 1))
    with pytest.raises(ValueError, match="1-dimensional"):
        plan(np.ones((A.shape[1], 1)))
    with pytest.raises(ValueError, match="1-dimensional"):
        plan(np.float64(1.0))


def test_non_contiguous(small):
    A, plan = small
    with pytest.raises(ValueError, match="not contiguous"):
        plan(np.ones(2 * A.shape[1])[::2])
    with pytest.raises(ValueError, match="not contiguous"):
        plan(np.ones(A.shape[1]), np.ones(2 * A.shape[0])[::2])
    with pytest.raises(ValueError, match="not contiguous"):
        plan(np.ones(A.shape[1])[::-1])


def test_not_an_array_and_read_only_y(small):
    A, plan = small
    with pytest.raises(TypeError, match="x must be"):
        plan([1.0] * A.shape[1])
    with pytest.raises(TypeError, match="x must be"):
        plan("x")
    y = np.ones(A.shape[0])
    y.flags.writeable = False
    with pytest.raises(TypeError, match="writable"):
        plan(np.ones(A.shape[1]), y)
    x = np.ones(A.shape[1])
    x.flags.writeable = False  # x is only read: fine
    assert_close(plan(x), A @ x, np.float64)


def test_dlpack_capsules(small):
    A, plan = small
    x = np.linspace(0, 1, A.shape[1])
    y = np.zeros(A.shape[0])
    assert_close(plan(x.__dlpack__()), A @ x, np.float64)
    plan(x.__dlpack__(), y)
    assert_close(y, A @ x, np.float64)


def test_x_and_y_overlapping(small):
    A, plan = small
    buf = np.ones(A.shape[0] + 1)
    with pytest.raises(ValueError, match="overlap"):
        plan(buf[: A.shape[1]], buf[1:])
    with pytest.raises(ValueError, match="overlap"):
        plan(buf[: A.shape[1]], buf[: A.shape[0]])


def test_bad_matrices_and_options():
    A = spkit.generate("lap2d", 4)
    with pytest.raises(TypeError, match="scipy.sparse"):
        spkit.Plan(A.toarray())
    with pytest.raises(spkit.NotApplicable, match="no kernel named"):
        spkit.Plan(A, kernel="cpu.nope")
    with pytest.raises(ValueError):  # NotApplicable is a ValueError
        spkit.Plan(A, kernel="cpu.nope")
    cuda = [k["name"] for k in spkit.kernels("cuda")]
    if cuda:
        with pytest.raises(spkit.NotApplicable, match="runs on cuda"):
            spkit.Plan(A, kernel=cuda[0])
    with pytest.raises(ValueError, match="device"):
        spkit.Plan(A, device="tpu")
    with pytest.raises(spkit.Error, match="threads"):
        spkit.Plan(A, threads=-1)
    with pytest.raises(TypeError, match="complex"):
        spkit.Plan(sp.random(4, 4, density=0.5, format="csr").astype(np.complex128) * 1j)


@pytest.mark.skipif(spkit.gpu_count() > 0, reason="checks the message without a GPU")
def test_cuda_plan_without_gpu():
    A = spkit.generate("lap2d", 4)
    with pytest.raises(spkit.Error):
        spkit.Plan(A, device="cuda")


def test_info_matches_scipy(all_matrices):
    for name, A in all_matrices.items():
        s = spkit.info(A)
        lengths = np.diff(A.indptr)
        assert (s["rows"], s["cols"], s["nnz"]) == (A.shape[0], A.shape[1], A.nnz), name
        assert s["row_nnz_max"] == lengths.max() and s["row_nnz_min"] == lengths.min(), name
        assert s["empty_rows"] == int((lengths == 0).sum()), name
        assert s["row_nnz_mean"] == pytest.approx(lengths.mean()), name
        assert s["ell_width"] == lengths.max(), name
        coo = A.tocoo()
        assert s["max_diag_distance"] == int(np.abs(coo.col - coo.row).max()), name
        assert s["diagonals"] == len(np.unique(coo.col - coo.row)), name
        counts = np.sort(np.bincount(A.indices, minlength=A.shape[1]))[::-1]
        top = max(1, A.shape[1] // 100)
        assert s["hub_column_share"] == pytest.approx(counts[:top].sum() / A.nnz), name
        if A.shape[0] == A.shape[1]:
            assert s["symmetric"] == (abs(A - A.T).max() == 0), name
        assert sum(k * n for k, n in enumerate(s["bm_block_histogram"], start=1)) == A.nnz, name
        assert s["bytes"]["csr"]["float64"] > s["bytes"]["csr"]["float32"] > 0, name


def test_info_of_a_file():
    from conftest import REAL_FILES

    assert spkit.info(REAL_FILES[0])["nnz"] == spkit.read_matrix(REAL_FILES[0]).nnz


def test_generate_families():
    assert {"lap2d", "lap3d", "powerlaw", "random"} <= set(spkit.generator_families())
    A = spkit.generate("lap2d", 5)
    assert A.shape == (25, 25) and A.nnz == 5 * 25 - 4 * 5
    with pytest.raises(spkit.Error):
        spkit.generate("nope", 5)


def test_one_plan_from_several_threads():
    """Products release the GIL; calls on one plan from several threads queue and stay correct."""
    from concurrent.futures import ThreadPoolExecutor

    A = spkit.generate("random", 40000, per_row=8)
    plan = spkit.Plan(A, kernel="cpu.csr.omp.spkit", threads=1)
    xs = [np.random.default_rng(i).uniform(-1, 1, A.shape[1]) for i in range(8)]
    with ThreadPoolExecutor(4) as pool:
        ys = list(pool.map(lambda x: plan(x, np.ones(A.shape[0]), 1.0, 2.0), xs * 4))
    for x, y in zip(xs * 4, ys):
        assert_close(y, A @ x + 2.0, np.float64)


def test_plan_after_the_gpu_helper_module_is_imported():
    """Out-of-place products on GPU arrays import spkit._device; that import must not shadow a name of the
    package (it once replaced the device-argument parser, and every later Plan() failed on the H100)."""
    import importlib

    importlib.import_module("spkit._device")
    A = sp.random_array((50, 40), density=0.1, format="csr", random_state=3, dtype=np.float64)
    x = np.random.default_rng(3).standard_normal(40)
    np.testing.assert_allclose(spkit.Plan(A, kernel="cpu.csr.serial")(x), A @ x, rtol=1e-12, atol=1e-12)


def test_ordering_and_tuning_settings():
    # A randomly numbered mesh: the plan keeps it renumbered (rcm) yet takes x and returns y as given.
    L = spkit.generate("lap3d", 9)
    perm = np.random.default_rng(5).permutation(L.shape[0])
    A = sp.csr_array(L[perm][:, perm])
    x = np.linspace(-1, 1, A.shape[1])
    for ordering in ("rcm", "hubsort", "none"):
        plan = spkit.Plan(A, ordering=ordering, tuning="model", expected_products=10**6)
        sel = plan.selection
        assert sel["ordering"] == ordering, sel
        assert (sel["reorder_ms"] > 0) == (ordering != "none")
        assert_close(plan(x), A @ x, np.float64)
        y0 = np.linspace(2, 3, A.shape[0])
        assert_close(plan(x, y0.copy(), 0.5, -2.0), 0.5 * (A @ x) - 2.0 * y0, np.float64)
    plan = spkit.Plan(A, tuning="measure", tuning_budget_ms=5000, expected_products=10**6)
    sel = plan.selection
    assert sel["tuning"] == "measure" and sel["tuning_ms"] > 0 and len(sel["measured"]) >= 2
    timed = [m for m in sel["measured"] if m["measured_ms"] > 0]
    assert min(timed, key=lambda m: m["measured_ms"])["kernel"] == plan.kernel
    assert set(sel["measured"][0]) == {"kernel", "ordering", "predicted_ms", "measured_ms", "note"}
    assert_close(plan(x), A @ x, np.float64)
    # Rectangular: no ordering, and why.
    R = sp.random(30, 20, density=0.2, format="csr", random_state=3)
    sel = spkit.Plan(R, expected_products=10**6, tuning="model").selection
    assert sel["ordering"] == "none" and "rectangular" in sel["ordering_reason"]
    with pytest.raises(spkit.NotApplicable):
        spkit.Plan(R, ordering="rcm")
    with pytest.raises(spkit.Error, match="ordering"):
        spkit.Plan(A, ordering="metis")
