"""Reading and writing Matrix Market and .spkb through the binding, against scipy's reader."""
from __future__ import annotations

import gzip
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import spkit
from conftest import REAL_FILES


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name)
def test_read_matches_scipy(path):
    A = spkit.read_matrix(path)
    with gzip.open(path, "rb") as f:
        ref = sp.csr_array(scipy.io.mmread(f))
    assert isinstance(A, sp.csr_array)
    assert A.shape == ref.shape and A.dtype == np.float64
    assert A.has_sorted_indices
    assert abs(A - ref).max() == 0
    # The arrays handed over by the library: int32 indices adopted as they are (no copy to int64).
    assert A.indices.dtype == np.int32 and A.indptr.dtype == np.int32


def test_read_float32(real_matrices):
    A32 = spkit.read_matrix(REAL_FILES[0], dtype="float32")
    A64 = real_matrices[REAL_FILES[0].name.split(".")[0]]
    assert A32.dtype == np.float32
    np.testing.assert_array_equal(A32.toarray(), A64.toarray().astype(np.float32))


@pytest.mark.parametrize("suffix", [".mtx", ".spkb"])
def test_write_read_round_trip(tmp_path, all_matrices, suffix):
    for name, A in all_matrices.items():
        path = tmp_path / f"{name}{suffix}"
        spkit.write_matrix(path, A, comment="round trip")
        B = spkit.read_matrix(path)
        assert B.shape == A.shape, name
        assert abs(B - A).max() == 0, name  # 17 significant digits in text, exact in .spkb


def test_write_accepts_any_sparse_format(tmp_path):
    A = sp.coo_array(([1.0, 2.0, 3.0], ([0, 2, 2], [1, 0, 1])), shape=(3, 4))
    spkit.write_matrix(tmp_path / "a.mtx", A)
    np.testing.assert_array_equal(spkit.read_matrix(tmp_path / "a.mtx").toarray(), A.toarray())


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        spkit.read_matrix("/nonexistent/matrix.mtx")


def test_directory(tmp_path):
    with pytest.raises(IsADirectoryError):
        spkit.read_matrix(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file(tmp_path):
    path = tmp_path / "secret.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1.0\n")
    path.chmod(0)
    with pytest.raises(PermissionError):
        spkit.read_matrix(path)


def test_malformed_file_names_file_and_line(tmp_path):
    path = tmp_path / "bad.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 4.0\n")
    with pytest.raises(spkit.ParseError) as err:
        spkit.read_matrix(path)
    assert isinstance(err.value, ValueError)
    assert f"{path}:4" in str(err.value)


def test_truncated_spkb(tmp_path, real_matrices):
    path = tmp_path / "cut.spkb"
    spkit.write_matrix(path, next(iter(real_matrices.values())))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(spkit.Error):
        spkit.read_matrix(path)


def test_not_a_matrix_file(tmp_path):
    path = tmp_path / "text.mtx"
    path.write_text("hello\n")
    with pytest.raises(ValueError):
        spkit.read_matrix(path)


def test_write_rejects_dense():
    with pytest.raises(TypeError, match="scipy.sparse"):
        spkit.write_matrix("/tmp/never.mtx", np.eye(3))


def test_write_to_missing_folder(tmp_path):
    with pytest.raises(spkit.Error):
        spkit.write_matrix(tmp_path / "no" / "such" / "dir.mtx", sp.eye_array(3, format="csr"))


def test_stub_is_current(tmp_path):
    """python/spkit/_spkit.pyi matches the extension (regenerate: cmake --build ... --target spkit_python_stub)."""
    pytest.importorskip("nanobind.stubgen")
    committed = os.path.join(os.path.dirname(spkit.__file__), "_spkit.pyi")
    source_stub = os.path.join(os.path.dirname(__file__), "..", "..", "python", "spkit", "_spkit.pyi")
    out = tmp_path / "_spkit.pyi"
    subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "spkit._spkit", "-o", str(out)], check=True)
    with open(source_stub if os.path.exists(source_stub) else committed) as f:
        assert f.read() == out.read_text(), "python/spkit/_spkit.pyi is stale: cmake --build <build> --target spkit_python_stub"
