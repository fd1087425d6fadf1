#!/usr/bin/env bash
# Session 24, call 5 (CPU only): paired parse benchmark (spkit .mtx->CSR against fmm, alternating call by call
# in one process) at 1, 2 and 16 threads, on a sorted and a shuffled file. One tarball.
set -uo pipefail
W=/tmp/s24c5; rm -rf $W; mkdir -p $W; t0=$SECONDS
trap 'tar -C /tmp -czf $OUT/s24c5.tgz s24c5' EXIT
{ echo "THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"; uptime; lscpu | grep -E "Model name|L3"; } > $W/sys.txt 2>&1
LIBZ=$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ {print $NF; exit}')
touch src/*/*.cpp
cmake --preset cpu -DSPKIT_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$PWD/.deps/prefix" -DZLIB_INCLUDE_DIR=$PWD/.deps/prefix/include \
  -DZLIB_LIBRARY=$LIBZ > $W/build.txt 2>&1 && cmake --build --preset cpu -j 16 --target spkit >> $W/build.txt 2>&1 || { tail -20 $W/build.txt; exit 1; }
echo "build ($((SECONDS-t0)) s)"
BUILD=$PWD/build/cpu MODE=paired THREADS="1 2 16" REPS=10 ROUNDS=1 timeout 420 \
  bench/parse/run.sh /tmp/pb.mtx /tmp/pb_shuffled.mtx > $W/paired.log 2>&1
echo "paired rc $? ($((SECONDS-t0)) s)"
grep -E "^paired|^wrote|^#" $W/paired.log
cat $W/sys.txt
