#!/usr/bin/env bash
# Sets up, builds (CUDA parts too where nvcc exists) and runs the whole test suite.
# GPU tests skip with a message on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release
cmake --build --preset release -j"$(nproc)"
ctest --preset release -j"$(nproc)"
