#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <array>
#include <algorithm>
#include <vector>
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
static std::int64_t count_newlines(const char* p, std::size_t n) {
  std::int64_t total = 0; std::size_t i = 0;
  while (i < n) { const std::size_t stop = std::min(n, i + 255 * 32); std::array<unsigned char, 32> acc{}; std::size_t j = i;
    for (; j + 32 <= stop; j += 32) for (int k = 0; k < 32; ++k) acc[k] += p[j + k] == '\n';
    for (int k = 0; k < 32; ++k) total += acc[k]; for (; j < stop; ++j) total += p[j] == '\n'; i = stop; }
  return total;
}
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
  const char* path = argv[1]; int reps = argc > 2 ? atoi(argv[2]) : 5;
  int fd = open(path, O_RDONLY); struct stat st; fstat(fd, &st); size_t size = st.st_size;
  for (int r = 0; r < reps; ++r) {
    for (int mode = 0; mode < 5; ++mode) {
      double t0 = now(); std::int64_t nl = 0; double t1 = 0;
      if (mode <= 2) {
        int flags = MAP_PRIVATE | (mode == 1 ? MAP_POPULATE : 0);
        char* m = (char*)mmap(nullptr, size, PROT_READ, flags, fd, 0);
        if (mode == 2) madvise(m, size, MADV_POPULATE_READ);
        t1 = now();
        nl = count_newlines(m, size);
        double t2 = now();
        nl += count_newlines(m, size);  // second pass, mapped
        double t3 = now();
        munmap(m, size);
        printf("mode %d %-22s map %6.1f ms  pass1 %6.1f ms  pass2 %6.1f ms  nl %ld\n", mode, mode==0?"mmap":mode==1?"mmap+MAP_POPULATE":"mmap+POPULATE_READ", 1e3*(t1-t0), 1e3*(t2-t1), 1e3*(t3-t2), (long)nl);
      } else if (mode == 3) {
        std::vector<char> buf(8 << 20); size_t off = 0;
        while (off < size) { ssize_t n = pread(fd, buf.data(), buf.size(), off); nl += count_newlines(buf.data(), n); off += n; }
        double t2 = now();
        printf("mode %d %-22s total %6.1f ms nl %ld\n", mode, "pread 8MB reused", 1e3*(t2-t0), (long)nl);
      } else {
        std::vector<char> buf(1 << 20); size_t off = 0;
        while (off < size) { ssize_t n = pread(fd, buf.data(), buf.size(), off); nl += count_newlines(buf.data(), n); off += n; }
        double t2 = now();
        printf("mode %d %-22s total %6.1f ms nl %ld\n", mode, "pread 1MB reused", 1e3*(t2-t0), (long)nl);
      }
    }
  }
}
