#!/usr/bin/env bash
# Session 25, call 5 (CPU only), 1 thread, shuffled file: base (HEAD 572389d), final (call 4's reader) and
# final2 (+ each bucket's values read into cache before its sort, AVX-512 newline masks in pass 1), each
# paired with fmm (scipy's copy), three rounds in rotating order; then a trace build of final2. One tarball.
set -uo pipefail
ROOT=$PWD; W=/tmp/s25c5; rm -rf $W; mkdir -p $W; t0=$SECONDS
trap 'tar -C /tmp -czf $OUT/s25c5.tgz s25c5' EXIT
LIBZ=$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ {print $NF; exit}')
rm -rf /tmp/base && mkdir -p /tmp/base && tar --exclude=./build --exclude=./.deps --exclude=./.gpu-exp -cf - . | tar -C /tmp/base -xf -
(cd /tmp/base && patch -R -p1 < $ROOT/.gpu-exp/s25-final2.diff > $W/patch-base.txt 2>&1) || { cat $W/patch-base.txt; exit 1; }
rm -rf /tmp/final && cp -a /tmp/base /tmp/final && (cd /tmp/final && patch -p1 < $ROOT/.gpu-exp/s25-final.diff > $W/patch-final.txt 2>&1) || { cat $W/patch-final.txt; exit 1; }
build() {  # dir name extra-flags
  (cd $1 && touch src/*/*.cpp && cmake --preset cpu -B build/$2 -DSPKIT_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$ROOT/.deps/prefix" \
     -DZLIB_INCLUDE_DIR=$ROOT/.deps/prefix/include -DZLIB_LIBRARY=$LIBZ "${@:3}" && cmake --build build/$2 -j 16 --target spkit) > $W/build-$2.txt 2>&1 \
     || { tail -20 $W/build-$2.txt; exit 1; }
  g++ -O3 -march=native -fopenmp -std=c++17 -shared -fPIC -I$1/include -I$1/build/$2/include $ROOT/bench/parse/paired_shim.cpp \
     -L$1/build/$2/src -lspkit -Wl,-rpath,$1/build/$2/src -o /tmp/shim-$2.so
}
build /tmp/base base & build /tmp/final final & build $ROOT final2 & build $ROOT trace -DCMAKE_CXX_FLAGS=-DSPKIT_CONVERSION_TRACE & wait
ls -la /tmp/shim-*.so; echo "build ($((SECONDS-t0)) s)"
B=$ROOT/build/final2
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
for round in 1 2 3; do
  order="base final final2"; [[ $round == 2 ]] && order="final2 base final"; [[ $round == 3 ]] && order="final final2 base"
  for v in $order; do run $round pb_shuffled 1 $v; done
  echo "round $round ($((SECONDS-t0)) s)"
done
timeout 60 python3 bench/parse/paired.py /tmp/shim-trace.so /tmp/pb_shuffled.mtx 1 4 > $W/trace-t1.log 2>&1
grep -E "pass 1|output allocated|parse into|pass B|^paired" $W/trace-t1.log
echo "done ($((SECONDS-t0)) s)"
