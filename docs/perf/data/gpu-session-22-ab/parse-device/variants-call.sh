#!/usr/bin/env bash
# Session 22, call 6 (CPU only): pass A variants of COO->CSR on the device machine, trace builds side by side.
set -uo pipefail
O=$OUT; t0=$SECONDS
LIBZ=$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ {print $NF; exit}')
for v in base staged8 staged16 b64; do
  cp .gpu-exp/csr_$v.cpp src/formats/csr.cpp
  cmake --preset cpu -B build/t-$v -DSPKIT_BUILD_TESTS=OFF -DCMAKE_CXX_FLAGS="-march=native -DSPKIT_CONVERSION_TRACE" \
    -DCMAKE_PREFIX_PATH="$PWD/.deps/prefix" -DZLIB_INCLUDE_DIR=$PWD/.deps/prefix/include -DZLIB_LIBRARY=$LIBZ > $O/build-$v.txt 2>&1 &&
    cmake --build build/t-$v -j 16 --target spkit >> $O/build-$v.txt 2>&1 || { tail -20 $O/build-$v.txt; exit 1; }
done
echo "builds ($((SECONDS-t0)) s)"
for round in 1 2; do for v in base staged8 staged16 b64; do
  BUILD=$PWD/build/t-$v MODE=read THREADS="1 2" REPS=3 ROUNDS=1 timeout 150 bench/parse/run.sh /tmp/pb_shuffled.mtx > $O/trace-$v-$round.log 2>&1
  echo "== $v round $round rc $? ($((SECONDS-t0)) s)"
  grep -E "^spkit (mtx->CSR|COO->CSR)|^fmm   scipy" $O/trace-$v-$round.log | sed 's/all_s=.*//; s/file=[^ ]*//; s/MB.s=.*//'
  grep -E "pass A|sort buckets\)" $O/trace-$v-$round.log | awk '{print $NF=="ms" ? $(NF-1) : $NF}' | paste -sd' '
done; done
