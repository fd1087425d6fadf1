#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
  size_t bytes = size_t(atoi(argv[1])) << 20; int reps = atoi(argv[2]); int sleep_ms = atoi(argv[3]);
  for (int r = 0; r < reps; ++r) for (int mi = 0; mi < 4; ++mi) { int mode = atoi(argv[4]) ? 3 - mi : mi;
    double t0 = now();
    char* p = (char*)mmap(nullptr, bytes + (2<<20), PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
    char* a = (char*)(((uintptr_t)p + (2<<20) - 1) & ~uintptr_t((2<<20)-1));
    if (mode & 1) madvise(a, bytes, MADV_HUGEPAGE);
    if (mode & 2) madvise(a, bytes, MADV_POPULATE_WRITE); else for (size_t k = 0; k < bytes; k += 4096) a[k] = 0;
    double t1 = now();
    memset(a, 1, bytes);
    double t2 = now();
    munmap(p, bytes + (2<<20));
    printf("%s %s: first touch %7.1f ms, then memset %6.1f ms\n", mode&1?"huge":"4k  ", mode&2?"populate":"touch   ", 1e3*(t1-t0), 1e3*(t2-t1));
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  }
}
