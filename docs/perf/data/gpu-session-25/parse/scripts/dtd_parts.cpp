#include "io/decimal_to_double.hpp"
#include "simd_digits.hpp"
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
using namespace spkit::io_detail;
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
  std::ifstream f(argv[1]); std::stringstream ss; ss << f.rdbuf(); std::string t = ss.str();
  std::vector<const char*> starts; const char* p = t.data(); const char* end = p + t.size(); int line = 0;
  while (p < end) { const char* nl = (const char*)memchr(p, '\n', end - p); if (!nl) nl = end;
    if (line >= 3) { const char* q = p; for (int k = 0; k < 2; ++k) { while (*q != ' ') ++q; ++q; } starts.push_back(q); }
    ++line; p = nl + 1; if ((long)starts.size() >= 3000000) break; }
  size_t n = starts.size();
  std::vector<double> a(n), b(n); std::vector<std::uint64_t> W(n); std::vector<int> Q(n);
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = now(); for (size_t k = 0; k < n; ++k) std::from_chars(starts[k], end, a[k]);
    double t1 = now();
    for (size_t k = 0; k < n; ++k) { const char* q = starts[k]; bool neg = *q == '-'; q += neg; std::uint64_t w = 0; std::int64_t run = 0, sig = 0;
      while (*q == '0') ++q; q = read_digit_run(q, end, w, run, sig); std::int64_t fr = 0; if (*q == '.') { ++q; q = read_digit_run(q, end, w, run, sig); fr = run; }
      W[k] = w; Q[k] = neg ? -int(fr) : int(fr); }
    double t2 = now();
    for (size_t k = 0; k < n; ++k) decimal_to_double(W[k], -(Q[k] < 0 ? -Q[k] : Q[k]), Q[k] < 0, b[k]);
    double t3 = now();
    for (size_t k = 0; k < n; ++k) parse_decimal(starts[k], end, b[k]);
    double t4 = now();
    long diff2 = 0; for (size_t k = 0; k < n; ++k) { double x; if (!parse_decimal2(starts[k], end, t.data(), x)) std::from_chars(starts[k], end, x); b[k] = x; }
    double t5 = now(); for (size_t k = 0; k < n; ++k) diff2 += a[k] != b[k];
    printf("parse_decimal2 (simd digits) %.2f ns (diff %ld)\n", 1e9*(t5-t4)/n, diff2);
    long diff = 0; for (size_t k = 0; k < n; ++k) diff += a[k] != b[k];
    printf("from_chars %.2f | digits only %.2f | decimal_to_double only %.2f | parse_decimal %.2f ns  (diff %ld)\n", 1e9*(t1-t0)/n, 1e9*(t2-t1)/n, 1e9*(t3-t2)/n, 1e9*(t4-t3)/n, diff);
  }
}
