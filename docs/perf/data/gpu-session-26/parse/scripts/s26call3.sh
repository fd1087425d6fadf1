#!/usr/bin/env bash
# Session 26, call 3 (CPU only): the committed reader ("final": parse_decimal, Eisel-Lemire first) against base
# (HEAD 7e83f6e), paired with scipy's fmm. Shuffled file: 1 thread 4 rounds, 2 and 16 threads 2 rounds; sorted
# file: 1, 2 and 16 threads, 2 rounds. Orders alternate. One tarball.
set -uo pipefail
ROOT=$PWD; W=/tmp/s26c3; rm -rf $W; mkdir -p $W; t0=$SECONDS
trap 'tar -C /tmp -czf $OUT/s26c3.tgz s26c3' EXIT
LIBZ=$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ {print $NF; exit}')
rm -rf /tmp/base && mkdir -p /tmp/base && tar --exclude=./build --exclude=./.deps --exclude=./.gpu-exp -cf - . | tar -C /tmp/base -xf -
(cd /tmp/base && patch -R -p1 < $ROOT/.gpu-exp/s26-final.diff > $W/patch-base.txt 2>&1 && rm -f src/io/decimal.hpp) || { cat $W/patch-base.txt; exit 1; }
build() {  # dir name extra-flags
  (cd $1 && touch src/*/*.cpp && cmake --preset cpu -B build/$2 -DSPKIT_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$ROOT/.deps/prefix" \
     -DZLIB_INCLUDE_DIR=$ROOT/.deps/prefix/include -DZLIB_LIBRARY=$LIBZ "${@:3}" && cmake --build build/$2 -j 16 --target spkit) > $W/build-$2.txt 2>&1 \
     || { tail -20 $W/build-$2.txt; exit 1; }
  g++ -O3 -march=native -fopenmp -std=c++17 -shared -fPIC -I$1/include -I$1/build/$2/include $ROOT/bench/parse/paired_shim.cpp \
     -L$1/build/$2/src -lspkit -Wl,-rpath,$1/build/$2/src -o /tmp/shim-$2.so
}
build /tmp/base base & build $ROOT final & wait
ls -la /tmp/shim-*.so; echo "build ($((SECONDS-t0)) s)"
B=$ROOT/build/final
g++ -O3 -march=native -fopenmp -std=c++17 -Iinclude -I$B/include bench/parse/parse_bench.cpp -L$B/src -lspkit -Wl,-rpath,$B/src -o /tmp/pbench
[[ -f /tmp/pb_shuffled.mtx ]] || /tmp/pbench gen /tmp/pb_shuffled.mtx 1000000 9 42 shuffle > /dev/null
[[ -f /tmp/pb.mtx ]] || /tmp/pbench gen /tmp/pb.mtx 1000000 9 42 > /dev/null
echo "gen ($((SECONDS-t0)) s)"
cat /tmp/pb_shuffled.mtx /tmp/pb.mtx > /dev/null
(lscpu | grep -E "Model name|^CPU\(s\)"; uptime) > $W/machine.txt 2>&1
run() {  # round file threads variant
  timeout 100 python3 bench/parse/paired.py /tmp/shim-$4.so /tmp/$2.mtx $3 8 > $W/r$1-$2-t$3-$4.log 2>&1
  echo "r$1 $2 t$3 $4: $(grep '^paired' $W/r$1-$2-t$3-$4.log | sed 's/.*spkit_median/spkit_median/')"
}
for round in 1 2 3 4; do
  order="base final"; [[ $((round % 2)) == 0 ]] && order="final base"
  for v in $order; do run $round pb_shuffled 1 $v; done
done
echo "1 thread shuffled ($((SECONDS-t0)) s)"
for round in 1 2; do
  order="base final"; [[ $round == 2 ]] && order="final base"
  for t in 2 16; do for v in $order; do run $round pb_shuffled $t $v; done; done
  for t in 1 2 16; do for v in $order; do run $round pb $t $v; done; done
  echo "round $round of the other configurations ($((SECONDS-t0)) s)"
done
uptime >> $W/machine.txt
echo "done ($((SECONDS-t0)) s)"
