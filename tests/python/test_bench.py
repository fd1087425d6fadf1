"""spkit.bench: the benchmark from Python, its rows, its files, Ctrl-C and the GIL."""
from __future__ import annotations

import _thread
import json
import threading
import time

import pytest

import spkit
from conftest import REAL_FILES

QUICK = dict(size="tiny", kernels="cpu.csr.*", device="cpu", precision="float64", threads=[1, 2], reps=2,
             warmup=1, measure_bandwidth=False, as_frame=False)


def test_bench_rows(tmp_path):
    events = []
    rows = spkit.bench(**QUICK, out=tmp_path / "out", progress=events.append)
    keys = spkit._spkit.bench_row_keys()
    assert rows and all(list(r) == keys for r in rows)
    assert {r["kernel"] for r in rows} == {k["name"] for k in spkit.kernels("cpu") if k["name"].startswith("cpu.csr.")}
    assert all(r["status"] == "ok" and r["valid"] and r["median_ms"] > 0 for r in rows)
    assert {r["threads"] for r in rows if r["kernel"] == "cpu.csr.omp.spkit"} == {1, 2}
    assert len(events) == len(rows) and {"matrix", "kernel", "precision", "threads"} <= set(events[0])
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert saved["complete"] is True and len(saved["results"]) == len(rows)
    assert (tmp_path / "out" / "results.csv").read_text().count("\n") == len(rows) + 1


def test_bench_files_only_both_precisions():
    rows = spkit.bench(REAL_FILES, generated=False, kernels="cpu.csr.serial", precision="both", reps=1, warmup=0,
                       measure_bandwidth=False, as_frame=False)
    assert len(rows) == 2 * len(REAL_FILES)
    assert {r["precision"] for r in rows} == {"float", "double"}
    assert all(r["valid"] for r in rows)


def test_bench_dataframe():
    pd = pytest.importorskip("pandas", reason="pandas not installed: bench returns a list of dicts")
    df = spkit.bench(**{**QUICK, "as_frame": None, "kernels": "cpu.csr.serial"})
    assert isinstance(df, pd.DataFrame) and list(df.columns) == spkit._spkit.bench_row_keys()


def test_bench_dataframe_path_without_pandas(monkeypatch):
    """The DataFrame branch, with a stand-in pandas module (so it runs where pandas is not installed)."""
    import sys
    import types

    made = []

    class DataFrame:
        def __init__(self, rows, columns):
            made.append((rows, columns))

    monkeypatch.setitem(sys.modules, "pandas", types.SimpleNamespace(DataFrame=DataFrame))
    df = spkit.bench(**{**QUICK, "as_frame": None, "kernels": "cpu.csr.serial"})
    assert isinstance(df, DataFrame) and made[0][1] == spkit._spkit.bench_row_keys() and made[0][0]
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    assert isinstance(spkit.bench(**{**QUICK, "as_frame": None, "kernels": "cpu.csr.serial"}), list)
    with pytest.raises(ImportError):
        spkit.bench(**{**QUICK, "as_frame": True, "kernels": "cpu.csr.serial"})


def test_bench_bad_options():
    with pytest.raises(spkit.NotApplicable, match="no kernel matches"):
        spkit.bench(**{**QUICK, "kernels": "nothing.*"})
    with pytest.raises(spkit.Error, match="size"):
        spkit.bench(**{**QUICK, "size": "huge"})
    with pytest.raises(ValueError, match="nothing to run"):
        spkit.bench(**{**QUICK, "generated": False})
    with pytest.raises(ValueError, match="threads"):
        spkit.bench(**{**QUICK, "threads": [0]})
    with pytest.raises(spkit.Error):
        spkit.bench("/nonexistent/folder", **QUICK)


def test_progress_exception_stops_the_run():
    def stop(event):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        spkit.bench(**QUICK, progress=stop)


def test_ctrl_c_raises_keyboard_interrupt(tmp_path):
    """interrupt_main() is what the SIGINT handler does: the next cell sees it and the run stops cleanly."""
    out = tmp_path / "out"
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            spkit.bench(**{**QUICK, "kernels": "cpu.*", "reps": 400, "precision": "both"}, out=out)
    finally:
        timer.cancel()
    assert time.perf_counter() - start < 30, "the run went on long after Ctrl-C"
    saved = json.loads((out / "results.json").read_text())
    assert saved["complete"] is False  # valid JSON, marked unfinished


def test_gil_released_during_bench():
    """Another Python thread keeps running while the benchmark runs in C++."""
    done = threading.Event()
    counter = 0

    cells = []

    errors = []

    def work():
        # Few, long cells: holding the GIL through them would leave the loop below a handful of turns.
        try:
            spkit.bench(**{**QUICK, "kernels": "cpu.csr.serial", "threads": [1], "reps": 300}, progress=cells.append)
        except BaseException as e:  # reported below; the loop must end either way
            errors.append(e)
        finally:
            done.set()

    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        counter += 1
        time.sleep(0)
    t.join()
    assert not errors, errors
    assert len(cells) <= 20 and counter > 100, (len(cells), counter)
