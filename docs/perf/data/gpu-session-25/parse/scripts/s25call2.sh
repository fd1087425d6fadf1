#!/usr/bin/env bash
# Session 25, call 2 (CPU only, diagnostics): where single-thread time goes on this VM. Micro-benchmarks:
# value parsing (std::from_chars vs a SWAR lower bound vs an exact 128-bit division parser), pass 1's pieces,
# first touch of a mapped file (plain / MAP_POPULATE / pread), fresh memory (4 KiB / huge, touch / populate).
set -uo pipefail
W=/tmp/s25c2; rm -rf $W; mkdir -p $W; t0=$SECONDS
trap 'tar -C /tmp -czf $OUT/s25c2.tgz s25c2' EXIT
M=.gpu-exp/mb
for x in maptest fresh p1; do g++ -O3 -march=native -std=c++17 -o /tmp/$x $M/$x.cpp || exit 1; done
for x in fp2 fp3; do g++ -O3 -march=native -std=c++17 -I$M -o /tmp/$x $M/$x.cpp || exit 1; done
if [[ ! -f /tmp/pb_shuffled.mtx ]]; then
  LIBZ=$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ {print $NF; exit}')
  (cmake --preset cpu -B build/new -DSPKIT_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$PWD/.deps/prefix" -DZLIB_INCLUDE_DIR=$PWD/.deps/prefix/include \
     -DZLIB_LIBRARY=$LIBZ && cmake --build build/new -j 16 --target spkit) > $W/build.txt 2>&1 || { tail $W/build.txt; exit 1; }
  g++ -O3 -march=native -fopenmp -std=c++17 -Iinclude -Ibuild/new/include bench/parse/parse_bench.cpp -Lbuild/new/src -lspkit -Wl,-rpath,$PWD/build/new/src -o /tmp/pbench
  /tmp/pbench gen /tmp/pb_shuffled.mtx 1000000 9 42 shuffle > /dev/null
fi
echo "ready ($((SECONDS-t0)) s)"; (lscpu; uptime; cat /proc/meminfo | head -5) > $W/machine.txt
cat /tmp/pb_shuffled.mtx > /dev/null
for r in 1 2; do
  /tmp/fp3 /tmp/pb_shuffled.mtx 2>&1 | tee -a $W/fp3.txt
  /tmp/p1 /tmp/pb_shuffled.mtx 2>&1 | tee -a $W/p1.txt
  /tmp/maptest /tmp/pb_shuffled.mtx 2 2>&1 | tee -a $W/maptest.txt
  /tmp/fresh 120 2 500 0 2>&1 | tee -a $W/fresh.txt
done
timeout 120 /tmp/fp2 /tmp/pb_shuffled.mtx 2>&1 | tee $W/fp2.txt
echo "done ($((SECONDS-t0)) s)"
