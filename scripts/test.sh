#!/usr/bin/env bash
# Sets up, builds (CUDA parts too where nvcc exists) and runs the whole test suite.
# GPU tests skip with a message on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# SPKIT_BUILD_PYTHON: the Python extension is built in this same tree and ctest runs pytest on it
# (tests/python, PYTHONPATH=build/release/python), so the library is compiled once for both.
cmake --preset release -DSPKIT_BUILD_PYTHON=ON
cmake --build --preset release -j"$(nproc)"
ctest --preset release -j"$(nproc)"
# `pip install .` as a user runs it, once: scikit-build-core drives CMake on the same build tree (so it
# reuses the objects above instead of compiling the library a second time), the wheel goes to a scratch
# folder, and pytest runs again against the installed package, from outside the source tree.
# --no-build-isolation: use the nanobind and scikit-build-core that setup.sh installed (works offline).
PY=${PYTHON:-python3}
rm -rf build/release/pip-check
"$PY" -m pip install -q --no-build-isolation --no-deps --target build/release/pip-check \
  -C build-dir=build/release -C cmake.define.SPKIT_BUILD_TESTS=ON .
repo=$PWD
(cd build/release/pip-check && PYTHONPATH=$PWD "$PY" -c 'import spkit, sys; assert spkit.__file__.startswith(sys.argv[1]), spkit.__file__' "$PWD" &&
  PYTHONPATH=$PWD "$PY" -m pytest -q -p no:cacheprovider "$repo/tests/python")
