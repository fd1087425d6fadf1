#!/usr/bin/env bash
# Sets up, builds and runs the main job: spkit bench on its built-in default suite.
# Extra arguments go to spkit bench (e.g. --matrices ../shared/matrices --out results).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release
cmake --build --preset release -j"$(nproc)"
exec build/release/bin/spkit bench "$@"
