#!/usr/bin/env bash
# Installs what spkit needs on a fresh Debian machine (idempotent: skips what is present).
# Debian packages via apt-get; Python packages for the report, the reader comparison and MKL via pip.
set -euo pipefail
DEB_PACKAGES=(cmake ninja-build g++ pkg-config zlib1g-dev libdeflate-dev libcli11-dev libfmt-dev
              nlohmann-json3-dev libgtest-dev libbenchmark-dev libeigen3-dev librsb-dev python3-pip
              python3-dev)
PY_PACKAGES=(numpy matplotlib fast_matrix_market scipy mkl-devel nanobind scikit-build-core pytest)

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
pymissing=()
for p in "${PY_PACKAGES[@]}"; do
  mod=${p//-/_}
  case "$p" in mkl-devel) "$PY" -m pip show -q mkl-devel >/dev/null 2>&1 || pymissing+=("$p"); continue;; esac
  "$PY" -c "import $mod" >/dev/null 2>&1 || pymissing+=("$p")
done
if ((${#pymissing[@]})); then
  echo "setup: installing Python packages: ${pymissing[*]}"
  "$PY" -m pip install -q --disable-pip-version-check "${pymissing[@]}" ||
    "$PY" -m pip install -q --disable-pip-version-check --break-system-packages "${pymissing[@]}"
fi
echo "setup: done"
