// Decimal text to double for the values of Matrix Market files, correctly rounded, without
// std::from_chars for the common tokens: [-]digits[.digits][e|E[sign]1-3 digits], at most 19 significant
// digits, the value a normal double. Anything else returns null and the reader asks std::from_chars,
// which also words the error for bad text.
//
// Why: a 1-thread load of a file of 17-digit values spends about 40% of its time reading values
// (docs/perf/io.md). libstdc++'s from_chars is fast_float already, but reads the token a character at a
// time with a branch per class of character. Here one 32-byte load classifies the whole token (digits,
// point, end) in a few mask operations, one vpcompressb/vpexpandb pair right-aligns the significant
// digits, multiply-adds in vector registers turn them into an integer, and the rounding is one 64 x
// 128-bit multiply (Eisel and Lemire's method) in all but rare cases. On the 16-core Sapphire Rapids
// machine this took the 1-thread load of the shuffled benchmark file from 0.93x to 1.18x fast_matrix_market
// (median of paired runs); on the dev box's Zen 4 it changed nothing measurable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__AVX512VBMI2__) && defined(__AVX512VL__) && defined(__AVX512BW__)
#include <immintrin.h>
#define SPKIT_HAVE_SIMD_DECIMAL 1
#else
#define SPKIT_HAVE_SIMD_DECIMAL 0
#endif

namespace spkit::io_detail {

// The blanks that separate a Matrix Market line's words (the newline ends the line, so it is not one).
inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Clinger's fast path: w <= 2^53 and 10^|q| with |q| <= 22 are exact doubles, so w * 10^q (or w / 10^-q) is
// one IEEE operation and rounds correctly. False outside that case.
inline bool clinger(std::uint64_t w, int q, bool negative, double& out) {
  static constexpr double kExactPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (w > (std::uint64_t{1} << 53) || q < -22 || q > 22) return false;
  const double m = static_cast<double>(w);
  const double r = q < 0 ? m / kExactPow10[-q] : m * kExactPow10[q];
  out = negative ? -r : r;
  return true;
}

// 5^q scaled into [2^127, 2^128): exact for q >= 0 (5^55 < 2^128), rounded down for q < 0.
struct PowerOfFive {
  std::uint64_t hi = 0, lo = 0;
  int log2floor = 0;  // floor(log2(5^q))
};

constexpr int kMinDecimalExponent = -55, kMaxDecimalExponent = 55;
constexpr int kPowersOfFive = kMaxDecimalExponent - kMinDecimalExponent + 1;

struct PowerOfFiveTable {
  PowerOfFive at[kPowersOfFive];
};

// Built at compile time: q >= 0 by shifting the exact power, q < 0 by bit-serial long division of
// 2^(127 + b) by 5^-q (remainders stay below 5^-q < 2^128).
constexpr PowerOfFiveTable make_powers_of_five() {
  using u128 = unsigned __int128;
  PowerOfFiveTable t{};
  u128 p = 1;  // 5^k
  for (int k = 0; k <= kMaxDecimalExponent; ++k) {
    int b = 0;
    for (u128 x = p; x; x >>= 1) ++b;
    const u128 scaled = p << (128 - b);
    PowerOfFive& up = t.at[k - kMinDecimalExponent];
    up.hi = static_cast<std::uint64_t>(scaled >> 64);
    up.lo = static_cast<std::uint64_t>(scaled);
    up.log2floor = b - 1;
    if (k > 0) {
      u128 quotient = 0, rest = 0;
      for (int bit = 127 + b; bit >= 0; --bit) {
        const bool carry = (rest >> 127) != 0;
        rest = (rest << 1) | (bit == 127 + b ? 1 : 0);
        quotient <<= 1;
        if (carry || rest >= p) {
          rest -= p;  // mod 2^128: the true difference is below p
          quotient |= 1;
        }
      }
      PowerOfFive& down = t.at[-k - kMinDecimalExponent];
      down.hi = static_cast<std::uint64_t>(quotient >> 64);
      down.lo = static_cast<std::uint64_t>(quotient);
      down.log2floor = -b;
    }
    p *= 5;
  }
  return t;
}

inline constexpr PowerOfFiveTable kPowersOfFiveTable = make_powers_of_five();

// The double of sign, 53-bit mantissa (leading bit set, or 2^53 after rounding up) and binary exponent
// of its last bit; false when that is not a normal double.
inline bool compose_double(bool negative, std::uint64_t mantissa, int exponent, double& out) {
  const std::uint64_t over = mantissa >> 53;  // rounded up to 2^53
  mantissa >>= over;
  const int biased = exponent + static_cast<int>(over) + 52 + 1023;
  if (biased <= 0 || biased >= 2047) return false;
  const std::uint64_t bits = (static_cast<std::uint64_t>(negative) << 63) | (static_cast<std::uint64_t>(biased) << 52) |
                             (mantissa & ((std::uint64_t{1} << 52) - 1));
  std::memcpy(&out, &bits, sizeof out);
  return true;
}

// w * 10^q (0 < w, q within the table) rounded to the nearest double, ties to even, from the full
// 192-bit product; false when undecided (q < 0 and the truncated power could hide a carry into the
// round bit) or not a normal double.
inline bool decimal_to_double_exact(std::uint64_t w, int q, bool negative, double& out) {
  const PowerOfFive& t = kPowersOfFiveTable.at[q - kMinDecimalExponent];
  const int lz = __builtin_clzll(w);
  const std::uint64_t wn = w << lz;  // in [2^63, 2^64)
  using u128 = unsigned __int128;
  const u128 high = static_cast<u128>(wn) * t.hi, low = static_cast<u128>(wn) * t.lo;
  // The product as upper : lower : lowest, upper in [2^62, 2^64).
  const u128 middle = (high & ~std::uint64_t{0}) + (low >> 64);
  const std::uint64_t upper = static_cast<std::uint64_t>(high >> 64) + static_cast<std::uint64_t>(middle >> 64);
  const std::uint64_t lower = static_cast<std::uint64_t>(middle), lowest = static_cast<std::uint64_t>(low);
  const int below = 10 + static_cast<int>(upper >> 63);  // bits of `upper` under the 53-bit mantissa
  std::uint64_t mantissa = upper >> below;
  const std::uint64_t round_bit = (upper >> (below - 1)) & 1;
  const std::uint64_t rest_mask = (std::uint64_t{1} << (below - 1)) - 1, rest = upper & rest_mask;
  const bool exact = q >= 0;
  // q < 0: the true product exceeds the computed one by less than one unit of `lower`, which could carry
  // through all-ones bits into a zero round bit.
  if (!exact && !round_bit && rest == rest_mask && lower == ~std::uint64_t{0}) return false;
  const std::uint64_t sticky = static_cast<std::uint64_t>(!exact) | (rest != 0) | (lower != 0) | (lowest != 0);
  mantissa += round_bit & (sticky | (mantissa & 1));
  return compose_double(negative, mantissa, below + 1 + t.log2floor + q - lz, out);
}

// As decimal_to_double_exact, from the upper 64 bits of w * T.hi alone when q < 0 and the bits under
// the round bit are not all ones: the terms left out add less than 2 units of the next word, so at most
// 1 to `upper`, which then cannot reach the round bit; and the value is not exactly a double or a half
// (those compute as ...0111 below the true ...1000), so everything under the round bit is non-zero.
inline bool decimal_to_double(std::uint64_t w, int q, bool negative, double& out) {
  const PowerOfFive& t = kPowersOfFiveTable.at[q - kMinDecimalExponent];
  const int lz = __builtin_clzll(w);
  using u128 = unsigned __int128;
  const std::uint64_t upper = static_cast<std::uint64_t>((static_cast<u128>(w << lz) * t.hi) >> 64);
  const int below = 10 + static_cast<int>(upper >> 63);
  const std::uint64_t rest_mask = (std::uint64_t{1} << (below - 1)) - 1;
  if (q >= 0 || (upper & rest_mask) == rest_mask) return decimal_to_double_exact(w, q, negative, out);
  const std::uint64_t mantissa = (upper >> below) + ((upper >> (below - 1)) & 1);
  return compose_double(negative, mantissa, below + 1 + t.log2floor + q - lz, out);
}

#if SPKIT_HAVE_SIMD_DECIMAL
// The decimal token at p ([-]digits[.digits][e|E[sign]digits]), ending at a blank, a newline or `end`;
// null when it is anything else or the fast path cannot take it. Reads 32 bytes after the sign, so the
// caller leaves at least 33 before `end`.
__attribute__((always_inline)) inline const char* parse_decimal(const char* p, const char* end, double& out) {
  const bool negative = *p == '-';  // no branch: signs of random values are a coin toss
  const char* q = p + negative;
  const __m256i text = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
  const __m256i value = _mm256_sub_epi8(text, _mm256_set1_epi8('0'));
  const std::uint32_t digit = _mm256_cmple_epu8_mask(value, _mm256_set1_epi8(9));
  const std::uint32_t point = _mm256_cmpeq_epi8_mask(text, _mm256_set1_epi8('.'));
  const std::uint32_t outside = ~(digit | point);
  if (outside == 0) return nullptr;  // 32 or more characters
  const int length = __builtin_ctz(outside);
  const std::uint32_t inside = (std::uint32_t{1} << length) - 1;  // length < 32
  const std::uint32_t digits = digit & inside, points = point & inside;
  if ((points & (points - 1)) != 0 || digits == 0) return nullptr;  // two points, or no digit
  const int point_at = points ? __builtin_ctz(points) : length;
  const char* token_end = q + length;
  int exponent = 0;
  if ((*token_end | 0x20) == 'e') {
    if (end - token_end < 6) return nullptr;  // e, a sign, up to 4 digits
    const char* e = token_end + 1;
    const bool exponent_negative = *e == '-';
    e += (*e == '-') | (*e == '+');
    int x = 0, n = 0;
    for (; n < 4 && static_cast<unsigned>(*e - '0') <= 9; ++n) x = x * 10 + (*e++ - '0');
    if (n == 0 || n == 4) return nullptr;
    exponent = exponent_negative ? -x : x;
    token_end = e;
  }
  if (token_end < end && !is_blank(*token_end) && *token_end != '\n') return nullptr;
  const std::uint32_t nonzero = digits & _mm256_cmpneq_epi8_mask(text, _mm256_set1_epi8('0'));
  if (nonzero == 0) {
    out = negative ? -0.0 : 0.0;
    return token_end;
  }
  // Significant digits: first to last non-zero one (trailing zeros go into the exponent, so that 1.000
  // is 1 * 10^0, exact, rather than 1000 * 10^-3).
  const int first = __builtin_ctz(nonzero), last = 31 - __builtin_clz(nonzero);
  const std::uint32_t significant = digits & (~std::uint32_t{0} >> (31 - last)) & (~std::uint32_t{0} << first);
  const int count = __builtin_popcount(significant);
  if (count > 19) return nullptr;
  exponent += last < point_at ? point_at - 1 - last : point_at - last;
  // The digits right-aligned in the vector, zeros before them; 8-digit groups by multiply-adds.
  const __m256i packed = _mm256_maskz_compress_epi8(significant, value);
  const __m256i aligned = _mm256_maskz_expand_epi8(~std::uint32_t{0} << (32 - count), packed);
  __m256i groups = _mm256_maddubs_epi16(aligned, _mm256_set1_epi16(0x010A));  // 10 * d0 + d1
  groups = _mm256_madd_epi16(groups, _mm256_set1_epi32(0x00010064));         // 100 * pair + pair
  groups = _mm256_packus_epi32(groups, groups);
  groups = _mm256_madd_epi16(groups, _mm256_set1_epi32(0x00012710));  // 10000 * quad + quad
  const auto g01 = static_cast<std::uint64_t>(_mm256_extract_epi64(groups, 0));  // bytes 0-7 | 8-15
  const auto g23 = static_cast<std::uint64_t>(_mm256_extract_epi64(groups, 2));  // bytes 16-23 | 24-31
  const std::uint64_t w = (g01 >> 32) * 10000000000000000ULL + (g23 & 0xFFFFFFFFULL) * 100000000ULL + (g23 >> 32);
  // Eisel-Lemire first: it decides all but exact doubles and halves with q < 0 (0.5, 2.25), which Clinger
  // then takes; ordered so, a file of 16- and 17-digit values takes one branch.
  if (exponent >= kMinDecimalExponent && exponent <= kMaxDecimalExponent && decimal_to_double(w, exponent, negative, out))
    return token_end;
  if (clinger(w, exponent, negative, out)) return token_end;
  return nullptr;
}
#endif

}  // namespace spkit::io_detail
