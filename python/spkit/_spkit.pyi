"""
spkit's C++ library, bound with nanobind (use the `spkit` package, not this module)
"""

from collections.abc import Sequence
import enum
from typing import Annotated

import numpy
from numpy.typing import NDArray

from spkit import (
    DeviceError as DeviceError,
    Error as Error,
    NotApplicable as NotApplicable,
    ParseError as ParseError,
    TooLarge as TooLarge
)


def read_matrix(path: str) -> tuple: ...

def write_matrix(path: str, rows: int, cols: int, indptr: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], indices: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], data: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], spkb: bool, comment: str) -> None: ...

def generator_families() -> list[str]: ...

def generate(family: str, n: int, cols: int, points: int, dof: int, per_row: int, bandwidth: int, zipf_s: float, seed: int) -> tuple: ...

def kernels() -> list: ...

def info(rows: int, cols: int, indptr: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], indices: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], data: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], hack_size: int) -> dict: ...

def cuda_compiled() -> bool: ...

def gpu_count() -> int: ...

def bench_row_keys() -> list[str]: ...

def bench(matrices: Sequence[str], kernels: str, device: str, precision: str, threads: Sequence[int], reps: int, warmup: int, size: str, generated: bool, seed: int, out: str, measure_bandwidth: bool, progress: object | None, command: str) -> str: ...

class Plan:
    def __init__(self, precision: Precision, rows: int, cols: int, indptr: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], indices: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], data: Annotated[NDArray, dict(shape=(None,), order='C', device='cpu', writable=False)], kernel: str, backend: str, threads: int, device: int, expected_products: int, ordering: str, tuning: str, tuning_budget_ms: float, expected_transpose_products: int = 0, vectors_in_plan_numbering: bool = False) -> None: ...

    def __call__(self, x: object, y: object | None = None, alpha: float = 1.0, beta: float = 0.0, transpose: bool = False) -> object:
        """
        y = alpha*A*x + beta*y. Without y, returns a new array (A x times alpha) on x's device; with y,
        updates y in place and returns it. x, y: 1-D contiguous arrays of the plan's dtype.
        transpose=True: A^T instead of A (the plan needs expected_transpose_products > 0).
        """

    def apply(self, x: object, y: object, alpha: float = 1.0, beta: float = 0.0, transpose: bool = False) -> object:
        """
        y = alpha*A*x + beta*y (A^T with transpose=True) in place (y required); returns y.
        """

    def apply_block(self, X: object, Y: object, alpha: float = 1.0, beta: float = 0.0) -> object:
        """
        Y = alpha*A*X + beta*Y in place on row-major (C-order) 2-D blocks of k vectors; returns Y.
        """

    def matvec_in_plan_numbering(self, x: object, y: object | None = None, alpha: float = 1.0, beta: float = 0.0) -> object:
        """
        y' = alpha*(P A P^T)*x' + beta*y' with x', y' in the plan's numbering (see to_plan_numbering): the
        kernel alone, no gather or scatter per product. Without y, returns a new array.
        """

    def to_plan_numbering(self, x: object, out: object | None = None) -> object:
        """
        x in the plan's numbering: out[i] = x[numbering[i]] (a copy when the plan is not renumbered).
        x: rows or cols elements; out (allocated when None) must not overlap x. Returns out.
        """

    def from_plan_numbering(self, x: object, out: object | None = None) -> object:
        """
        The inverse of to_plan_numbering: out[numbering[i]] = x[i]. Returns out.
        """

    @property
    def rows(self) -> int: ...

    @property
    def cols(self) -> int: ...

    @property
    def kernel(self) -> str: ...

    @property
    def backend(self) -> str: ...

    @property
    def device(self) -> int: ...

    @property
    def dtype(self) -> str: ...

    @property
    def plan_ms(self) -> float: ...

    @property
    def bytes_moved(self) -> int: ...

    @property
    def bytes_moved_in_plan_numbering(self) -> int: ...

    @property
    def renumbered(self) -> bool: ...

    @property
    def numbering(self) -> object: ...

    @property
    def transpose_detail(self) -> str: ...

    @property
    def selection(self) -> dict: ...

class Precision(enum.Enum):
    float32 = 0

    float64 = 1

def spgemm_f32(a_rows: int, a_cols: int, a_indptr: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], a_indices: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], a_data: Annotated[NDArray[numpy.float32], dict(shape=(None,), order='C', device='cpu', writable=False)], same: bool, b_rows: int, b_cols: int, b_indptr: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], b_indices: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], b_data: Annotated[NDArray[numpy.float32], dict(shape=(None,), order='C', device='cpu', writable=False)], kernel: str, backend: str, threads: int, device: int, memory_limit: int) -> tuple:
    """
    C = A B (A A when same): ((indptr, indices, data, rows, cols) of C, dict of what ran).
    """

def spgemm_f64(a_rows: int, a_cols: int, a_indptr: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], a_indices: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], a_data: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], same: bool, b_rows: int, b_cols: int, b_indptr: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', device='cpu', writable=False)], b_indices: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], b_data: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], kernel: str, backend: str, threads: int, device: int, memory_limit: int) -> tuple:
    """
    C = A B (A A when same): ((indptr, indices, data, rows, cols) of C, dict of what ran).
    """

def parse_memory_bytes(text: str) -> int:
    """"512M", "2G", ... in bytes (the syntax of SPKIT_DEVICE_MEMORY_LIMIT)."""
