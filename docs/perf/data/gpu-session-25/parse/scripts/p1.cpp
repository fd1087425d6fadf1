#include <emmintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <algorithm>
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
inline std::uint64_t newline_mask64(const char* p) {
  const __m128i nl = _mm_set1_epi8('\n'); std::uint64_t mask = 0;
  for (int k = 0; k < 4; ++k) mask |= std::uint64_t(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(p + 16 * k)), nl)))) << (16 * k);
  return mask;
}
inline const char* parse_index_swar(const char* p, std::uint64_t& out) {
  std::uint64_t d; std::memcpy(&d, p, 8); d ^= 0x3030303030303030ULL;
  const std::uint64_t non_digit = (((d & 0x7F7F7F7F7F7F7F7FULL) + 0x7676767676767676ULL) | d) & 0x8080808080808080ULL;
  if (non_digit == 0) return nullptr;
  const int digits = __builtin_ctzll(non_digit) >> 3;
  if (digits == 0) return nullptr;
  d <<= 8 * (8 - digits);
  d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFULL;
  d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFULL;
  d = (d * 10000 + (d >> 32)) & 0xFFFFFFFFULL;
  out = d; return p + digits;
}
int main(int argc, char** argv) {
  std::ifstream f(argv[1]); std::stringstream ss; ss << f.rdbuf(); std::string t = ss.str();
  const char* first = t.data() + t.find('\n', t.find('\n', t.find('\n') + 1) + 1) + 1;   // naive: after 3 lines
  const char* end = t.data() + (t.size() & ~size_t(63));
  const int shift = 12;
  std::vector<std::int64_t> counts(256);
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = now(); long s = 0;
    for (const char* b = first; b + 64 <= end; b += 64) s += __builtin_popcountll(newline_mask64(b));
    double t1 = now(); long s2 = 0;
    for (const char* b = first; b + 64 <= end; b += 64) { std::uint64_t m = newline_mask64(b); for (; m; m &= m - 1) s2 += b[__builtin_ctzll(m) + 1]; }
    double t2 = now(); long s3 = 0;
    for (const char* b = first; b + 64 <= end; b += 64) { std::uint64_t m = newline_mask64(b); for (; m; m &= m - 1) { std::uint64_t i; if (parse_index_swar(b + __builtin_ctzll(m) + 1, i)) s3 += i; } }
    double t3 = now();
    std::fill(counts.begin(), counts.end(), 0);
    for (const char* b = first; b + 64 <= end; b += 64) { std::uint64_t m = newline_mask64(b); for (; m; m &= m - 1) { std::uint64_t i; if (parse_index_swar(b + __builtin_ctzll(m) + 1, i)) ++counts[(i - 1) >> shift & 255]; } }
    double t4 = now();
    // 4 sub-histograms to break store->load chains
    std::vector<std::int64_t> c4(1024, 0);
    int lane = 0;
    for (const char* b = first; b + 64 <= end; b += 64) { std::uint64_t m = newline_mask64(b); for (; m; m &= m - 1) { std::uint64_t i; if (parse_index_swar(b + __builtin_ctzll(m) + 1, i)) { ++c4[lane * 256 + ((i - 1) >> shift & 255)]; lane = (lane + 1) & 3; } } }
    double t5 = now();
    printf("mask+popcount %.1f ms | +line starts %.1f | +swar parse %.1f | +histogram %.1f | 4 histograms %.1f  (%ld %ld %ld)\n", 1e3*(t1-t0), 1e3*(t2-t1), 1e3*(t3-t2), 1e3*(t4-t3), 1e3*(t5-t4), s, s2, s3);
  }
}
