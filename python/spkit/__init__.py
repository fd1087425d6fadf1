"""spkit for Python: sparse matrix-vector products in many formats on CPU and GPU.

A thin binding over the C++ library (nanobind): the readers, the kernel registry, the plan-once API,
the matrix statistics and the benchmark are the library's own; this package only moves arrays across.

    import numpy as np, spkit
    A = spkit.read_matrix("tests/data/matrices/cage4.mtx.gz")   # scipy.sparse.csr_array
    plan = spkit.Plan(A, kernel="auto", threads=2)               # converts and partitions once
    y = plan(np.ones(A.shape[1]))                                # y = A @ x
    plan(x, y, alpha=2.0, beta=1.0)                              # y = 2 A x + y, in place

CuPy (or any DLPack) arrays go to a plan made with device="cuda" without a trip through the host.
"""
from __future__ import annotations

import os
import shlex
import sys
from typing import Any, Callable, Iterable, Sequence, Union

import numpy as np
import scipy.sparse as sp

from . import _spkit
from ._spkit import DeviceError, Error, NotApplicable, ParseError, TooLarge

__version__: str = _spkit.__version__

__all__ = [
    "Plan", "spgemm", "read_matrix", "write_matrix", "kernels", "info", "generate", "generator_families", "bench",
    "cuda_compiled", "gpu_count", "Error", "ParseError", "TooLarge", "NotApplicable", "DeviceError",
]

PathLike = Union[str, "os.PathLike[str]"]
DTypeLike = Union[str, np.dtype, type, None]

_INT32_MAX = np.iinfo(np.int32).max


def _csr_arrays(A: Any, dtype: Any) -> tuple:
    """(rows, cols, indptr int64, indices int32, data dtype) of a scipy sparse matrix, canonical CSR."""
    if not sp.issparse(A):
        raise TypeError(f"expected a scipy.sparse matrix or array, got {type(A).__name__}")
    if A.ndim != 2:
        raise ValueError(f"expected a 2-D sparse matrix, got {A.ndim} dimensions")
    if A.format != "csr":
        A = A.tocsr()
    if not A.has_canonical_format:  # spkit's CSR has sorted, distinct columns per row
        A = A.copy()
        A.sum_duplicates()
    if np.iscomplexobj(A.data):
        raise TypeError("complex matrices are not supported by spkit (real values only)")
    rows, cols = A.shape
    if cols - 1 > _INT32_MAX:
        raise TooLarge(f"{cols} columns do not fit spkit's 32-bit column indices")
    indptr = np.ascontiguousarray(A.indptr, dtype=np.int64)
    indices = A.indices
    if indices.dtype != np.int32:
        indices = indices.astype(np.int32)  # safe: every column < cols <= 2^31
    indices = np.ascontiguousarray(indices)
    data = np.ascontiguousarray(A.data, dtype=dtype)
    return rows, cols, indptr, indices, data


def _to_csr_array(arrays: tuple, dtype: Any = np.float64) -> sp.csr_array:
    indptr, indices, data, rows, cols = arrays
    if np.dtype(dtype) != data.dtype:
        data = data.astype(dtype)
    # scipy keeps one index dtype for both arrays. When the non-zeros fit int32, indptr (rows + 1
    # entries) is narrowed so that the int32 indices are adopted without a copy; else both are int64.
    if indptr[-1] <= _INT32_MAX:
        indptr = indptr.astype(np.int32)
    return sp.csr_array((data, indices, indptr), shape=(rows, cols), copy=False)


def _precision(precision: DTypeLike, default: Any) -> Any:
    if precision is None:
        return np.dtype(np.float32) if np.dtype(default) == np.float32 else np.dtype(np.float64)
    if isinstance(precision, str) and precision.lower() in ("single", "f32", "fp32", "float"):
        return np.dtype(np.float32)
    if isinstance(precision, str) and precision.lower() in ("double", "f64", "fp64"):
        return np.dtype(np.float64)
    try:
        dt = np.dtype(precision)
    except TypeError:
        raise ValueError(f"precision must be 'float32' or 'float64', got {precision!r}") from None
    if dt not in (np.float32, np.float64):
        raise ValueError(f"precision must be 'float32' or 'float64', got {dt}")
    return dt


def _parse_device(device: Union[str, int]) -> tuple:
    """("cpu" | "cuda", ordinal) from "cpu", "cuda", "gpu", "cuda:1" or an ordinal."""
    if isinstance(device, (int, np.integer)) and not isinstance(device, bool):
        return "cuda", int(device)
    if isinstance(device, str):
        name, _, ordinal = device.lower().partition(":")
        if name == "cpu" and not ordinal:
            return "cpu", 0
        if name in ("cuda", "gpu"):
            try:
                return "cuda", int(ordinal or 0)
            except ValueError:
                pass
    raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")


def read_matrix(path: PathLike, dtype: DTypeLike = np.float64) -> sp.csr_array:
    """Read a Matrix Market (.mtx, .mtx.gz) or .spkb file into a scipy.sparse.csr_array.

    Symmetric files are expanded, duplicates summed, columns sorted (the library's load_matrix, parsed
    in parallel, GIL released). Raises FileNotFoundError/PermissionError/IsADirectoryError for a file
    that cannot be opened and spkit.ParseError (a ValueError, message file:line) for a malformed one.
    """
    path = os.fspath(path)
    with open(path, "rb"):  # the OS's own error for a missing or unreadable file
        pass
    arrays, _header = _spkit.read_matrix(path)
    return _to_csr_array(arrays, _precision(dtype, np.float64))


def write_matrix(path: PathLike, A: Any, comment: str = "") -> None:
    """Write A as Matrix Market (real general coordinate) or, when path ends in .spkb, spkit's binary CSR."""
    path = os.fspath(path)
    rows, cols, indptr, indices, data = _csr_arrays(A, np.float64)
    _spkit.write_matrix(path, rows, cols, indptr, indices, data, path.endswith(".spkb"), comment)


def kernels(backend: str | None = None) -> list[dict]:
    """The kernel registry: name, format, backend, parallel, comparison, auto, description per kernel.

    `auto` says whether kernel="auto" may pick it (it has a cost model); `comparison` marks vendor or
    third-party baselines. backend="cpu" or "cuda" filters.
    """
    out = _spkit.kernels()
    return [k for k in out if backend is None or k["backend"] == backend]


def info(A: Any, hack_size: int = 32) -> dict:
    """The statistics of `spkit info` for a scipy sparse matrix or a matrix file, as a dict."""
    if isinstance(A, (str, os.PathLike)):
        A = read_matrix(A)
    rows, cols, indptr, indices, data = _csr_arrays(A, np.float64)
    return _spkit.info(rows, cols, indptr, indices, data, hack_size)


def generator_families() -> list[str]:
    """The families spkit.generate knows (lap2d, lap3d, fem, random, powerlaw, road, circuit, banded)."""
    return _spkit.generator_families()


def generate(family: str, n: int, *, cols: int = 0, points: int = 7, dof: int = 3, per_row: int = 8,
             bandwidth: int = 5, zipf_s: float = 1.0, seed: int = 42,
             dtype: DTypeLike = np.float64) -> sp.csr_array:
    """A synthetic matrix of spkit's generator (the same as `spkit gen`), deterministic for a seed."""
    arrays = _spkit.generate(family, n, cols, points, dof, per_row, bandwidth, zipf_s, seed)
    return _to_csr_array(arrays, _precision(dtype, np.float64))


def cuda_compiled() -> bool:
    """True when this build contains the CUDA kernels."""
    return _spkit.cuda_compiled()


def gpu_count() -> int:
    """Usable CUDA devices (0 without CUDA support, a driver or a device)."""
    return _spkit.gpu_count()


class Plan(_spkit.Plan):
    """y = alpha*A*x + beta*y for one matrix, planned once (spkit::Plan<T>).

    Plan(A, kernel="auto", precision=None, threads=0, device="cpu", expected_products=100,
         ordering="auto", tuning="auto", tuning_budget_ms=0.0, expected_transpose_products=0,
         vectors_in_plan_numbering=False)

    A: scipy sparse matrix (converted to canonical CSR; the plan keeps its own copy).
    kernel: "auto" (the selector picks from the matrix's statistics; see .selection) or a registry name
        (spkit.kernels()) for the device's backend.
    precision: "float32" / "float64" or a dtype; default: A's dtype when float32, else float64.
    threads: CPU threads (0: all the process may use). device: "cpu", "cuda" or "cuda:N".
    expected_products: how many products you will run (the selector weighs conversion cost by it).
    ordering: "none", "rcm" (reverse Cuthill-McKee), "hubsort" (hub sorting), "community" (modularity
        communities, after Rabbit Order) or "auto" (rcm or hubsort): a symmetric renumbering kept inside
        the plan; x and y stay in your numbering (.selection["ordering"]).
    tuning: "model", "measure" (time the model's top candidates on A, keep the fastest) or "auto"
        (measure from 1000 expected products); tuning_budget_ms bounds it (0: the default bound).

    expected_transpose_products: how many products with A^T you will run (rmatvec, plan.T, lsqr): 0
        (none; they raise spkit.Error), fewer than 8 on the CPU or 2000 on the GPU (a scatter over A's
        rows; on the GPU with atomic adds, not bit-reproducible) or more (the plan builds A^T once and runs its kernel on it;
        .transpose_detail says which).

    Solvers that own their vectors can keep them in the plan's numbering and skip the gather and scatter
    a renumbered plan pays per product: xp = plan.to_plan_numbering(x) once, then
    plan.matvec_in_plan_numbering(xp) (P A P^T xp) per iteration, and plan.from_plan_numbering(yp) once;
    plan.numbering[i] is the row of A that plan row i holds (empty when .renumbered is False: the calls
    then copy). vectors_in_plan_numbering=True tells "auto" to rank orderings without those passes.

    plan(x) returns a new y = A x; plan(x, y, alpha, beta) updates y in place and returns it.
    plan(x, transpose=True) is A^T x. plan.apply_block(X, Y, alpha, beta): Y = alpha A X + beta Y on
    C-order 2-D blocks.

    In solvers: a Plan duck-types what scipy.sparse.linalg.aslinearoperator accepts (shape, dtype,
    matvec, rmatvec, matmat), so it goes unchanged into scipy.sparse.linalg.cg/gmres/lsqr/eigsh;
    plan @ x, plan.T and plan.as_linear_operator() (a scipy LinearOperator, or for a CUDA plan one of
    cupyx.scipy.sparse.linalg taking CuPy arrays) give the operator explicitly.
    x and y: 1-D contiguous arrays of the plan's dtype; NumPy for a CPU plan; CuPy/DLPack device
    arrays (or NumPy, copied through the plan's buffers) for a CUDA plan. Wrong dtype: TypeError;
    wrong length, dimensions, strides or device: ValueError.
    """

    def __init__(self, A: Any, kernel: str = "auto", precision: DTypeLike = None, threads: int = 0,
                 device: Union[str, int] = "cpu", expected_products: int = 100, ordering: str = "auto",
                 tuning: str = "auto", tuning_budget_ms: float = 0.0, expected_transpose_products: int = 0,
                 vectors_in_plan_numbering: bool = False) -> None:
        if not sp.issparse(A):
            raise TypeError(f"expected a scipy.sparse matrix or array, got {type(A).__name__}")
        dtype = _precision(precision, A.dtype)
        backend, ordinal = _parse_device(device)
        rows, cols, indptr, indices, data = _csr_arrays(A, dtype)
        prec = _spkit.Precision.float32 if dtype == np.float32 else _spkit.Precision.float64
        super().__init__(prec, rows, cols, indptr, indices, data, kernel, backend, int(threads), ordinal,
                         int(expected_products), str(ordering), str(tuning), float(tuning_budget_ms),
                         int(expected_transpose_products), bool(vectors_in_plan_numbering))

    @property
    def shape(self) -> tuple:
        return (self.rows, self.cols)

    # The operator protocol of scipy.sparse.linalg (aslinearoperator reads shape, dtype and these).
    def matvec(self, x: Any) -> Any:
        """A x for a vector x of cols elements (shape (n,) or (n, 1), as LinearOperator.matvec)."""
        return _reshape_like(self(_as_vector(x, self.dtype)), x)

    def rmatvec(self, x: Any) -> Any:
        """A^T x (A is real: the adjoint) for x of rows elements; needs expected_transpose_products > 0."""
        return _reshape_like(self(_as_vector(x, self.dtype), transpose=True), x)

    def matmat(self, X: Any) -> Any:
        """A X for a 2-D X of cols rows: one apply_block on a C-order copy when X is not one already."""
        X = _as_block(X, self.dtype)
        Y = _empty_like_block(X, (self.rows, X.shape[1]), self.dtype)
        return self.apply_block(X, Y)

    def rmatmat(self, X: Any) -> Any:
        """A^T X, column by column."""
        cols = [self.rmatvec(X[:, j]) for j in range(X.shape[1])]
        return _stack_columns(cols, X, self.cols, self.dtype)

    def __matmul__(self, x: Any) -> Any:
        return self.matmat(x) if getattr(x, "ndim", 1) == 2 else self.matvec(x)

    @property
    def T(self) -> Any:
        """A^T as a LinearOperator (the plan's transposed products)."""
        return self.as_linear_operator().T

    def as_linear_operator(self, arrays: str = "auto") -> Any:
        """This plan as a LinearOperator: arrays="numpy" gives scipy.sparse.linalg's, "cupy" the one of
        cupyx.scipy.sparse.linalg (CuPy arrays in and out; CUDA plans), "auto" the latter for a CUDA plan
        when CuPy is installed."""
        return _linear_operator(self, arrays)

    def __repr__(self) -> str:
        where = "cpu" if self.backend == "cpu" else f"cuda:{self.device}"
        return f"spkit.Plan({self.rows}x{self.cols}, kernel={self.kernel!r}, dtype={self.dtype}, device={where!r})"


def _linear_operator(plan: Any, arrays: str = "auto") -> Any:
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


def _as_vector(x: Any, dtype: str) -> Any:
    """x as a 1-D contiguous array of the plan's dtype, in x's own library (NumPy or CuPy)."""
    xp = _array_module(x)
    return xp.ascontiguousarray(x.reshape(-1), dtype=dtype)


def _reshape_like(y: Any, x: Any) -> Any:
    return y.reshape(-1, 1) if getattr(x, "ndim", 1) == 2 else y


def _as_block(X: Any, dtype: str) -> Any:
    xp = _array_module(X)
    return xp.ascontiguousarray(X, dtype=dtype)


def _empty_like_block(X: Any, shape: tuple, dtype: str) -> Any:
    """An empty C-order block; a NumPy one starts on a 64-byte boundary, where the CPU kernels write
    rows of whole cache lines with streaming stores."""
    xp = _array_module(X)
    if xp.__name__ != "numpy":
        return xp.empty(shape, dtype=dtype)
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.empty(size + 64, dtype=np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start : start + size].view(dtype).reshape(shape)


def _stack_columns(cols: list, X: Any, rows: int, dtype: str) -> Any:
    xp = _array_module(X)
    if not cols:
        return xp.empty((rows, 0), dtype=dtype)
    return xp.stack([c.reshape(-1) for c in cols], axis=1)


def _array_module(x: Any) -> Any:
    """cupy for CuPy arrays, numpy otherwise."""
    if type(x).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return np


def _is_cupy_sparse(M: Any) -> bool:
    return type(M).__module__.startswith("cupyx.scipy.sparse")


def spgemm(A: Any, B: Any = None, *, kernel: str = "auto", precision: DTypeLike = None,
           device: Union[str, int] = "cpu", threads: int = 0, memory_limit: Union[int, str] = 0,
           info: bool = False, output: str = "auto") -> Any:
    """C = A @ B (A @ A when B is None) as a scipy.sparse.csr_array, computed by spkit's SpGEMM kernels.

    kernel: "auto" (the selector's pick for A; when a kernel refuses the product, e.g. out of memory, the
    next candidate runs) or a name from spkit.kernels(). precision: "float32"/"float64" (default: A's
    dtype, float64 for integers). device: "cpu", "cuda" or "cuda:N" (inputs and C stay on the host; the
    kernel uploads them). threads: CPU threads (0: all). memory_limit: bytes the product may take on its
    device (an int, or "512M", "2G"); C is computed in row batches of A that fit. With info=True returns
    (C, dict) where the dict says which kernel ran, why, what refused first and how many row batches.
    Raises ValueError for shapes that do not multiply and spkit.TooLarge when C cannot fit in host memory.

    CuPy: A and B may be cupyx.scipy.sparse matrices; output="auto" then returns C as a
    cupyx.scipy.sparse.csr_matrix on the current CuPy device (output="cupy" asks for that with scipy
    inputs, output="scipy" for a scipy csr_array whatever the inputs). The product runs on `device`
    either way, and A, B and C pass through host memory: the kernels take host CSR arrays.
    """
    if output not in ("auto", "scipy", "cupy"):
        raise ValueError(f'output must be "auto", "scipy" or "cupy", got {output!r}')
    cupy_in = _is_cupy_sparse(A) or _is_cupy_sparse(B)
    if _is_cupy_sparse(A):
        A = sp.csr_array(A.get())
    if _is_cupy_sparse(B):
        B = sp.csr_array(B.get())
    if B is not None and sp.issparse(A) and sp.issparse(B) and A.shape[1] != B.shape[0]:
        raise ValueError(f"cannot multiply: A is {A.shape[0]}x{A.shape[1]} but B is {B.shape[0]}x{B.shape[1]} "
                         "(A's columns must equal B's rows)")
    dtype = _precision(precision, A.dtype if sp.issparse(A) and A.dtype == np.float32 else np.float64)
    backend, ordinal = _parse_device(device)
    if isinstance(memory_limit, str):
        memory_limit = _spkit.parse_memory_bytes(memory_limit)
    if memory_limit < 0:
        raise ValueError(f"memory_limit must be >= 0 bytes, got {memory_limit}")
    a = _csr_arrays(A, dtype)
    same = B is None
    b = a if same else _csr_arrays(B, dtype)
    run = _spkit.spgemm_f32 if dtype == np.float32 else _spkit.spgemm_f64
    arrays, what = run(a[0], a[1], a[2], a[3], a[4], same, b[0], b[1], b[2], b[3], b[4], kernel, backend,
                       int(threads), ordinal, int(memory_limit))
    C = _to_csr_array(arrays, dtype)
    if output == "cupy" or (output == "auto" and cupy_in):
        import cupyx.scipy.sparse as csp

        C = csp.csr_matrix(C)
    return (C, what) if info else C


def _bench_precisions(precision: Union[str, Sequence[Any]]) -> str:
    """The precision list in the names spkit's own parser reads (spkit::parse_precisions)."""
    if isinstance(precision, str) and precision.lower() in ("both", "all"):
        return "both"
    items = precision.split(",") if isinstance(precision, str) else list(precision)
    return ",".join("float" if _precision(p, np.float64) == np.float32 else "double" for p in items)


def bench(matrices: Union[PathLike, Iterable[PathLike]] = (), *, kernels: str = "all", device: str = "all",
          precision: Union[str, Sequence[Any]] = "both", threads: Union[int, Sequence[int], None] = None,
          reps: int = 20, warmup: int = 2, size: str = "small", generated: bool = True, seed: int = 42,
          out: PathLike | None = None, measure_bandwidth: bool = True,
          progress: Callable[[dict], None] | None = None, as_frame: bool | None = None) -> Any:
    """Run the benchmark suite like `spkit bench` and return one row per matrix x kernel x precision x threads.

    matrices: files or folders (.mtx, .mtx.gz, .spkb) added to the generated suite (size: tiny, small,
    medium, large; generated=False for the files only). kernels: comma-separated globs over registry
    names. device: cpu, gpu or all. precision: "float32", "float64", "both" or a list. threads: thread
    counts for the parallel CPU kernels (default 1, 2, 4, ... as the CLI). out: also write
    out/results.json and out/results.csv (readable by `spkit report` and `spkit compare`).
    progress(event) is called before every cell with a dict (matrix, kernel, precision, threads, cell,
    cells). Ctrl-C stops the run after the current cell and raises KeyboardInterrupt (out/ then holds
    the finished matrices, marked incomplete).

    Returns a pandas DataFrame when pandas is importable (as_frame=None) or as_frame=True, else a list
    of dicts; the columns are those of results.csv (docs/BENCH.md).
    """
    import json

    if isinstance(matrices, (str, os.PathLike)):
        matrices = [matrices]
    paths = [os.fspath(m) for m in matrices]
    if threads is None:
        thread_list: list[int] = []
    elif isinstance(threads, (int, np.integer)):
        thread_list = [int(threads)]
    else:
        thread_list = [int(t) for t in threads]
    command = "spkit.bench() from: " + shlex.join(sys.argv)
    text = _spkit.bench(paths, kernels, device, _bench_precisions(precision), thread_list, int(reps), int(warmup),
                        size, bool(generated), int(seed), os.fspath(out) if out is not None else "",
                        bool(measure_bandwidth), progress, command)
    keys = _spkit.bench_row_keys()
    rows = [{k: r.get(k) for k in keys} for r in json.loads(text)["results"]]
    if as_frame is None or as_frame:
        try:
            import pandas as pd
        except ImportError:
            if as_frame:
                raise
            return rows
        return pd.DataFrame(rows, columns=keys)
    return rows
