#!/usr/bin/env bash
# Issue 17, open question: why .mtx->CSR on a shuffled file is slower on the 16-core device machine at 1-2
# threads than on the 2-core dev box (docs/perf/io.md, "The 16-core device machine"). Prints the THP mode,
# then times the shuffled file at 1 and 2 threads with and without glibc's THP-backed malloc (page-fault cost).
# Usage, from the repository root on that machine with .deps carried: bench/parse/diagnose.sh OUT_DIR (~3 min).
O=$1; mkdir -p $O
{ echo "THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"; echo "THP defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)";
  grep -E "AnonHugePages|Hugepagesize" /proc/meminfo; uptime; lscpu | grep -E "Model name|NUMA|L3|Thread"; } > $O/sys.txt 2>&1
LIBZ=$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ {print $NF; exit}')
cmake --preset cpu -DSPKIT_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$PWD/.deps/prefix" -DZLIB_INCLUDE_DIR=$PWD/.deps/prefix/include \
  -DZLIB_LIBRARY=$LIBZ > $O/build.txt 2>&1 && cmake --build --preset cpu -j 16 --target spkit >> $O/build.txt 2>&1 || { tail -20 $O/build.txt; exit 1; }
for v in plain hugetlb; do
  env=(); [[ $v == hugetlb ]] && env=(GLIBC_TUNABLES=glibc.malloc.hugetlb=1)
  env "${env[@]}" BUILD=$PWD/build/cpu MODE=read THREADS="1 2" REPS=5 ROUNDS=1 timeout 100 \
    bench/parse/run.sh /tmp/pb_shuffled.mtx > $O/parse-$v.log 2>&1
  echo "== $v"; grep -E "^spkit" $O/parse-$v.log | sed 's/MB\/s.*all_s=/ all=/; s/file=[^ ]*//'
done
cat $O/sys.txt
