#include "exact.hpp"
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
// lower bound: digits via SWAR, then one multiply (inexact)
inline const char* parse_fake(const char* p, const char* end, double& out) {
  const char* q = p; bool neg = false;
  if (*q == '-' || *q == '+') neg = *q++ == '-';
  std::uint64_t m = 0; int frac = 0;
  while (is_digit(*q)) m = m * 10 + unsigned(*q++ - '0');
  if (*q == '.') { ++q;
    while (end - q >= 8 && all_digits8(q)) { m = m * 100000000 + eight_digits(q); q += 8; frac += 8; }
    while (is_digit(*q)) { m = m * 10 + unsigned(*q++ - '0'); ++frac; } }
  static const double inv[32] = {1,1e-1,1e-2,1e-3,1e-4,1e-5,1e-6,1e-7,1e-8,1e-9,1e-10,1e-11,1e-12,1e-13,1e-14,1e-15,1e-16,1e-17,1e-18,1e-19,1e-20};
  out = double(m) * inv[frac]; if (neg) out = -out; return q;
}
int main(int argc, char** argv) {
  std::ifstream f(argv[1]); std::stringstream ss; ss << f.rdbuf(); std::string t = ss.str();
  std::vector<const char*> starts; const char* p = t.data(); const char* end = p + t.size();
  int line = 0;
  while (p < end) { const char* nl = (const char*)memchr(p, '\n', end - p); if (!nl) nl = end;
    if (line >= 3) { const char* q = p; for (int k = 0; k < 2; ++k) { while (*q != ' ') ++q; ++q; } starts.push_back(q); }
    ++line; p = nl + 1; if ((long)starts.size() >= 3000000) break; }
  std::vector<double> a(starts.size()), b(starts.size());
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = now();
    for (size_t k = 0; k < starts.size(); ++k) std::from_chars(starts[k], end, a[k]);
    double t1 = now();
    for (size_t k = 0; k < starts.size(); ++k) parse_fake(starts[k], end, b[k]);
    double t2 = now();
    long diff = 0; for (size_t k = 0; k < a.size(); ++k) diff += a[k] != b[k];
    printf("from_chars %.2f ns   swar+1 multiply (inexact) %.2f ns  (%ld of %zu differ)\n", 1e9*(t1-t0)/starts.size(), 1e9*(t2-t1)/starts.size(), diff, a.size());
  }
}
