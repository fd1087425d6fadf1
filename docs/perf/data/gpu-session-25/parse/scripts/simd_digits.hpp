#include <immintrin.h>
namespace spkit::io_detail {
constexpr std::uint64_t kPow10Table[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
  100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
  100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
  10000000000000000000ull};
// Digit run at s (needs s + 32 <= end and s - 16 >= begin): its length n (0..32) and, when n <= 19, its value.
inline int simd_digit_run(const char* s, std::uint64_t& value) {
  const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9);
  const __m128i a = _mm_sub_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)), zero);
  const __m128i b = _mm_sub_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16)), zero);
  const unsigned da = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(a, nine), a)));
  const unsigned db = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(b, nine), b)));
  const std::uint32_t digits = da | (db << 16);
  const int n = __builtin_ctz(~digits | 0);  // ~digits has a zero bit... n in 0..32
  if (n > 19) return n;
  // The last min(n, 16) digits: the 16 bytes ending at s + n, lanes before the run zeroed.
  const int low = n < 16 ? n : 16;
  const __m128i lane = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m128i v = _mm_sub_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + n - 16)), zero);
  v = _mm_andnot_si128(_mm_cmplt_epi8(lane, _mm_set1_epi8(static_cast<char>(16 - low))), v);
  const __m128i t1 = _mm_maddubs_epi16(v, _mm_setr_epi8(10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1));
  const __m128i t2 = _mm_madd_epi16(t1, _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1));
  const __m128i t3 = _mm_packus_epi32(t2, t2);
  const __m128i t4 = _mm_madd_epi16(t3, _mm_setr_epi16(10000, 1, 10000, 1, 10000, 1, 10000, 1));
  const std::uint64_t low_value = static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_cvtsi128_si32(t4))) * 100000000ull +
                                  static_cast<std::uint32_t>(_mm_extract_epi32(t4, 1));
  // The first n - 16 digits (0..3), branch-free.
  const int k = n - low;
  const std::uint64_t d0 = static_cast<unsigned char>(s[0] - '0'), d1 = static_cast<unsigned char>(s[1] - '0'), d2 = static_cast<unsigned char>(s[2] - '0');
  const std::uint64_t m0 = k > 0, m1 = k > 1, m2 = k > 2;
  std::uint64_t high = d0 * m0;
  high = high * (1 + 9 * m1) + d1 * m1;
  high = high * (1 + 9 * m2) + d2 * m2;
  value = high * kPow10Table[low] + low_value;
  return n;
}
inline const char* parse_decimal2(const char* p, const char* end, const char* begin, double& out) {
  const char* q = p;
  if (end - q < 40 || q - begin < 16) return parse_decimal(p, end, out);
  bool negative = false;
  if (*q == '-' || *q == '+') negative = *q++ == '-';
  std::uint64_t w = 0, v;
  std::int64_t significant = 0, fraction = 0;
  const char* z = q;
  while (*q == '0') ++q;
  bool any = q != z;
  int n = simd_digit_run(q, v);
  if (n > 19) return nullptr;
  w = v; significant = n; q += n; any = any || n > 0;
  if (*q == '.') {
    ++q;
    if (significant == 0) { const char* z2 = q; while (q < end && *q == '0') ++q; fraction = q - z2; any = any || fraction > 0; }
    if (end - q < 32) return parse_decimal(p, end, out);
    n = simd_digit_run(q, v);
    if (n > 19 || significant + n > 19) return nullptr;
    w = w * kPow10Table[n] + v; significant += n; fraction += n; q += n; any = any || n > 0;
  }
  if (!any) return nullptr;
  std::int64_t exponent = -fraction;
  if (*q == 'e' || *q == 'E') {
    ++q; bool en = false;
    if (*q == '-' || *q == '+') en = *q++ == '-';
    int x = 0, digits = 0;
    while (q < end && is_decimal_digit(*q) && digits < 4) { x = x * 10 + (*q++ - '0'); ++digits; }
    if (digits == 0 || digits == 4) return nullptr;
    exponent += en ? -x : x;
  }
  if (q < end && !(*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r' || *q == '\v' || *q == '\f')) return nullptr;
  if (exponent < kMinDecimalExponent || exponent > kMaxDecimalExponent) return nullptr;
  return decimal_to_double(w, static_cast<int>(exponent), negative, out) ? q : nullptr;
}
}
