#!/usr/bin/env bash
# Session 24, call 9 (CPU only): does huge-page advice cost spkit at 1-2 threads on this VM? Paired parse
# benchmark (shuffled and sorted file), three ways: default; spkit's advise_huge_pages off (SPKIT_NO_HUGE=1,
# a patch in this copy only); THP disabled for the whole process (both sides). One tarball.
set -uo pipefail
W=/tmp/s24c9; rm -rf $W; mkdir -p $W; t0=$SECONDS
trap 'tar -C /tmp -czf $OUT/s24c9.tgz s24c9' EXIT
sed -i 's/^void advise_huge_pages(void\* data, std::size_t bytes) {/void advise_huge_pages(void* data, std::size_t bytes) {\n  if (std::getenv("SPKIT_NO_HUGE")) return;/' src/io/io_util.cpp
grep -q '#include <cstdlib>' src/io/io_util.cpp || sed -i '0,/#include/s//#include <cstdlib>\n#include/' src/io/io_util.cpp
grep -n -A2 "^void advise_huge_pages" src/io/io_util.cpp > $W/patch.txt
LIBZ=$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ {print $NF; exit}')
touch src/*/*.cpp
cmake --preset cpu -DSPKIT_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$PWD/.deps/prefix" -DZLIB_INCLUDE_DIR=$PWD/.deps/prefix/include \
  -DZLIB_LIBRARY=$LIBZ > $W/build.txt 2>&1 && cmake --build --preset cpu -j 16 --target spkit >> $W/build.txt 2>&1 || { tail -20 $W/build.txt; exit 1; }
B=$PWD/build/cpu
g++ -O3 -march=native -fopenmp -std=c++17 -shared -fPIC -Iinclude -I$B/include bench/parse/paired_shim.cpp -L$B/src -lspkit -Wl,-rpath,$B/src -o /tmp/shim.so
echo "build ($((SECONDS-t0)) s)"
g++ -O3 -march=native -fopenmp -std=c++17 -Iinclude -I$B/include bench/parse/parse_bench.cpp -L$B/src -lspkit -Wl,-rpath,$B/src -o /tmp/pbench
[[ -f /tmp/pb_shuffled.mtx ]] || /tmp/pbench gen /tmp/pb_shuffled.mtx 1000000 9 42 shuffle
echo "gen ($((SECONDS-t0)) s)"
cat /tmp/pb_shuffled.mtx > /dev/null
for round in 1 2; do
  for t in 1 2; do
    for mode in default nohuge thpoff; do
      env=(); [[ $mode == nohuge ]] && env=(SPKIT_NO_HUGE=1); [[ $mode == thpoff ]] && env=(PAIRED_THP_DISABLE=1)
      env "${env[@]}" timeout 90 python3 bench/parse/paired.py /tmp/shim.so /tmp/pb_shuffled.mtx $t 8 > $W/r$round-t$t-$mode.log 2>&1
      echo "r$round t$t $mode: $(grep '^paired' $W/r$round-t$t-$mode.log | sed 's/.*spkit_median/spkit_median/')"
    done
  done
done
echo "done ($((SECONDS-t0)) s)"
