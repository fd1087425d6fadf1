#!/usr/bin/env bash
# A self-contained CPU-only spkit for a machine without MKL (the 16-core GPU host): MKL linked
# statically into libspkit (LP64, GNU OpenMP threading layer: MKL then runs on spkit's own libgomp
# team, and ref.mkl.* use as many threads as the spkit kernels beside them; the sequential layer would
# make them one-threaded), the other shared libraries it needs (libfmt, libz, libdeflate, libgomp,
# libstdc++, libgcc_s) bundled next to it under lib/ and found through RPATH $ORIGIN/../lib, so that
# only glibc comes from the host. Stripped, packed as OUT_DIR/spkit-cpu-static.tar.xz.
#
# Usage: bash scripts/build-cpu-static.sh OUT_DIR
#   MKL_STATIC_DIR  folder of libmkl_*.a (default: downloaded with `pip download mkl-static` into OUT_DIR)
#   ARCH            -march of the build (default x86-64-v3, AVX2: runs on any recent Intel or AMD host;
#                   x86-64-v4 adds AVX-512 where the host has it)
# On the host:  tar xJf spkit-cpu-static.tar.xz && spkit-cpu/bin/spkit spgemm A.mtx --device cpu
set -euo pipefail
OUT=${1:?usage: build-cpu-static.sh OUT_DIR}
ARCH=${ARCH:-x86-64-v3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ -z "${MKL_STATIC_DIR:-}" ]; then
  if [ ! -d "$OUT/mkl-static" ]; then
    pip download --no-deps -d "$OUT/wheel" mkl-static
    unzip -q -o "$OUT"/wheel/mkl_static-*.whl -d "$OUT/mkl-static"
  fi
  MKL_STATIC_DIR=$(dirname "$(find "$OUT/mkl-static" -name libmkl_core.a | head -1)")
fi
BUILD="$OUT/build"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPKIT_ENABLE_CUDA=OFF -DSPKIT_BUILD_TESTS=OFF \
  -DSPKIT_NATIVE=OFF -DCMAKE_CXX_FLAGS="-march=$ARCH" -DSPKIT_WITH_LIBRSB=OFF -DSPKIT_MKL_STATIC="$MKL_STATIC_DIR" \
  -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DCMAKE_INSTALL_RPATH='$ORIGIN/../lib;$ORIGIN' "${launcher[@]}"
cmake --build "$BUILD" -j "${JOBS:-2}" --target spkit_cli

PKG="$OUT/spkit-cpu"
rm -rf "$PKG"
mkdir -p "$PKG/bin" "$PKG/lib"
cp "$BUILD/bin/spkit" "$PKG/bin/"
cp "$(find "$BUILD" -name libspkit.so | head -1)" "$PKG/lib/"
# Every shared library but glibc's own (libc, libm, libdl, libpthread, the loader), from ldd.
for lib in $(ldd "$PKG/bin/spkit" "$PKG/lib/libspkit.so" | awk '/=> \// {print $3}' | sort -u); do
  case $(basename "$lib") in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libspkit.so) ;;
    *) cp -L "$lib" "$PKG/lib/" ;;
  esac
done
strip --strip-unneeded "$PKG/bin/spkit" "$PKG/lib/"*.so*
if ldd "$PKG/bin/spkit" "$PKG/lib/libspkit.so" | grep -q libmkl; then
  echo "error: the package still needs a shared MKL" >&2
  exit 1
fi
tar -C "$OUT" -cJf "$OUT/spkit-cpu-static.tar.xz" spkit-cpu
ls -l "$OUT/spkit-cpu-static.tar.xz"
echo "on the host: tar xJf spkit-cpu-static.tar.xz && spkit-cpu/bin/spkit bench --help"
