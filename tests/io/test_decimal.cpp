// io_detail::parse_decimal and decimal_to_double (src/io/decimal.hpp) against std::from_chars: whatever
// they take must be bit for bit what std::from_chars gives for the same text, ending at the same
// character; they may decline (the reader then asks std::from_chars), and must take the common shapes.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "io/decimal.hpp"

namespace {

using spkit::io_detail::decimal_to_double;
using spkit::io_detail::decimal_to_double_exact;

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// A random token of one of the shapes files hold (and some they should not).
std::string random_token(std::mt19937_64& rng, int shape) {
  char buf[96];
  int len = 0;
  double x;
  switch (shape) {
    case 0: {  // any finite double, shortest round-trip text
      const std::uint64_t u = rng();
      std::memcpy(&x, &u, sizeof x);
      if (!std::isfinite(x)) x = 1.5;
      len = static_cast<int>(std::to_chars(buf, buf + sizeof buf, x).ptr - buf);
      break;
    }
    case 1:  // what writers print: %.17g of values in [-1, 1)
      len = std::snprintf(buf, sizeof buf, "%.17g", std::uniform_real_distribution<double>(-1, 1)(rng));
      break;
    case 2:  // scientific notation, 1 to 19 digits, exponents up to +-60
      len = std::snprintf(buf, sizeof buf, "%.*e", static_cast<int>(rng() % 19),
                          std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), static_cast<int>(rng() % 400) - 200));
      break;
    case 3: {  // random digit strings: a point anywhere, zeros at either end, a sign, an exponent, up to 24 digits
      const int digits = 1 + static_cast<int>(rng() % 24);
      const int point = static_cast<int>(rng() % (digits + 2)) - 1;  // -1: none
      if (rng() % 3 == 0) buf[len++] = (rng() & 1) ? '-' : '+';
      const int zeros_front = static_cast<int>(rng() % 4), zeros_back = static_cast<int>(rng() % 4);
      for (int i = 0; i < digits; ++i) {
        if (i == point) buf[len++] = '.';
        char d = static_cast<char>('0' + rng() % 10);
        if (i < zeros_front || i >= digits - zeros_back) d = '0';
        buf[len++] = d;
      }
      if (point == digits) buf[len++] = '.';
      if (rng() % 3 == 0)
        len += std::snprintf(buf + len, 16, "%c%s%d", (rng() & 1) ? 'e' : 'E', (rng() & 1) ? "+" : "", static_cast<int>(rng() % 140) - 70);
      break;
    }
    case 4: {  // exact halves between doubles: (2m + 1) * 2^(s - 1), m of 53 bits, printed exactly
      const std::uint64_t m = (std::uint64_t{1} << 52) | (rng() & ((std::uint64_t{1} << 52) - 1));
      const int s = static_cast<int>(rng() % 12);
      const long double v = std::ldexp(static_cast<long double>(2 * m + 1), s - 1);
      len = std::snprintf(buf, sizeof buf, s == 0 ? "%.1Lf" : "%.0Lf", v);
      break;
    }
    case 5:  // integers of every size with small exponents (ties near powers of two)
      len = std::snprintf(buf, sizeof buf, "%llue%d", static_cast<unsigned long long>(rng() >> (rng() % 64)),
                          static_cast<int>(rng() % 50) - 25);
      break;
    case 6:  // short values, exact in binary or not: 0.5, -2.25, 1.000, 3
      len = std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(rng() % 5), static_cast<double>(static_cast<std::int64_t>(rng() % 2001) - 1000) / 8);
      break;
    default: {  // neighbours of random doubles, 17 to 19 digits
      const std::uint64_t u = rng() >> 2;
      std::memcpy(&x, &u, sizeof x);
      x = std::nextafter(x, (rng() & 1) ? 1e300 : 0.0);
      len = std::snprintf(buf, sizeof buf, "%.*g", 17 + static_cast<int>(rng() % 3), x);
    }
  }
  return std::string(buf, static_cast<std::size_t>(len));
}

// The token as std::from_chars reads it (after one '+', as the reader strips it): value and end.
bool from_chars_reference(const std::string& token, double& value, std::size_t& end) {
  const char* begin = token.data();
  const char* from = (*begin == '+') ? begin + 1 : begin;
  const auto r = std::from_chars(from, token.data() + token.size(), value);
  end = static_cast<std::size_t>(r.ptr - begin);
  return r.ec == std::errc();
}

}  // namespace

// decimal_to_double (one multiply, the full product when undecided) against std::from_chars on the
// digits and exponent of random tokens.
TEST(Decimal, DecimalToDoubleMatchesFromChars) {
  const std::uint64_t seed = std::random_device{}() * 2654435761ULL + 11;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  long taken = 0, tried = 0;
  for (int k = 0; k < 2000000 && !HasFailure(); ++k) {
    // w: 1 to 19 digits; q within the table.
    const int digits = 1 + static_cast<int>(rng() % 19);
    std::uint64_t w = 0;
    for (int i = 0; i < digits; ++i) w = w * 10 + rng() % 10;
    if (w == 0) continue;
    const int q = static_cast<int>(rng() % 111) - 55;
    char buf[64];
    const int len = std::snprintf(buf, sizeof buf, "%llue%d", static_cast<unsigned long long>(w), q);
    double want = 0;
    const auto r = std::from_chars(buf, buf + len, want);
    const bool negative = rng() & 1;
    double got = 0, got_exact = 0;
    ++tried;
    const bool ok = decimal_to_double(w, q, negative, got);
    const bool ok_exact = decimal_to_double_exact(w, q, negative, got_exact);
    if (r.ec != std::errc() || !std::isnormal(want)) {
      // Beyond the doubles or subnormal: both decline (the reader leaves those to std::from_chars).
      EXPECT_FALSE(ok) << buf;
      EXPECT_FALSE(ok_exact) << buf;
      continue;
    }
    if (negative) want = -want;
    if (ok) {
      ++taken;
      EXPECT_EQ(bits(got), bits(want)) << buf << ": " << got << " against " << want;
    }
    if (ok_exact) EXPECT_EQ(bits(got_exact), bits(want)) << buf << " (full product)";
  }
  EXPECT_GT(taken, tried * 9 / 10);
}

TEST(Decimal, ParseDecimalMatchesFromCharsOnEveryShape) {
#if !SPKIT_HAVE_SIMD_DECIMAL
  GTEST_SKIP() << "built without AVX-512 VBMI2: the reader uses std::from_chars only";
#else
  using spkit::io_detail::parse_decimal;
  const std::uint64_t seed = std::random_device{}() * 2654435761ULL + 7;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  long taken = 0, tried = 0, common = 0, common_taken = 0;
  const char* const ends[] = {"\n", " ", "\t", "\r\n", "", "x", ",", "e", "%"};
  for (int k = 0; k < 2000000 && !HasFailure(); ++k) {
    const int shape = k % 8;
    const std::string token = random_token(rng, shape);
    const int after_kind = static_cast<int>(rng() % 9);
    const char* after = ends[after_kind];
    // The token, what follows it, and enough text behind for the 32-byte loads (33 bytes before `end`).
    std::string text = token + after;
    const std::size_t token_and_after = text.size();
    const bool at_end = rng() % 8 == 0;  // `end` right after: the parser must then decline or stop there
    if (!at_end) text += "7 8 0.25\n1 2 3.5\n4 5 6.75\n9 10 11.125\n";
    text += std::string(40, '9');  // readable bytes past `end`, never part of the token
    const char* begin = text.data();
    const char* end = begin + (at_end ? token_and_after : text.size() - 40);
    if (end - begin < 33) continue;  // the caller guarantees 33 bytes
    ++tried;
    double got = 0;
    const char* q = parse_decimal(begin, end, got);
    double want = 0;
    std::size_t want_end = 0;
    const bool valid = from_chars_reference(text.substr(0, static_cast<std::size_t>(end - begin)), want, want_end);
    const bool ends_token = want_end == static_cast<std::size_t>(end - begin) ||
                            std::strchr(" \t\r\n\v\f", text[want_end]) != nullptr;
    const bool is_common = (shape == 1 || shape == 6) && after_kind < 5;  // a token ended by a blank, a newline or `end`
    common += is_common;
    if (!q) continue;
    ++taken;
    common_taken += is_common;
    ASSERT_TRUE(valid && ends_token) << "'" << token << "' + '" << after << "' taken, refused by std::from_chars";
    EXPECT_EQ(static_cast<std::size_t>(q - begin), want_end) << "'" << token << "'";
    EXPECT_EQ(bits(got), bits(want)) << "'" << token << "': " << got << " against " << want;
  }
  EXPECT_GT(taken, tried / 3);
  EXPECT_GT(common_taken, common * 7 / 10) << "the shapes writers print must take the fast path";
#endif
}

TEST(Decimal, ParseDecimalEdgesAndTokenEnds) {
#if !SPKIT_HAVE_SIMD_DECIMAL
  GTEST_SKIP() << "built without AVX-512 VBMI2: the reader uses std::from_chars only";
#else
  using spkit::io_detail::parse_decimal;
  auto parse = [](const std::string& token, double& out) -> const char* {
    static std::string text;
    text = token + "\n" + std::string(64, ' ');
    const char* q = parse_decimal(text.data(), text.data() + text.size(), out);
    return q ? text.data() + (q - text.data()) : nullptr;
  };
  // Taken, equal to std::from_chars.
  for (const char* t : {"0", "-0", "0.0", "-0.000", "1", "-1", "1.", ".5", "-.5", "1e0", "1E+2", "1e-2", "0e999",
                        "9007199254740993", "9007199254740995", "4503599627370497.5", "0.1", "0.30000000000000004",
                        "1.7976931348623157e308", "2.2250738585072014e-308", "9999999999999999999",
                        "0.90673497454219332", "-0.66034557142347339", "123456789.123456789", "1e55", "1e-55",
                        "1.000000000000000e+00", "-2.500000000000000e-01", "00000000000000000000000000001.5",
                        "0.00000000000000000000000000001", "100000000000000000000"}) {
    SCOPED_TRACE(t);
    double got = 0, want = 0;
    std::size_t want_end = 0;
    const std::string token(t);
    const char* q = parse(token, got);
    ASSERT_TRUE(from_chars_reference(token, want, want_end));
    if (q) {
      EXPECT_EQ(bits(got), bits(want));
    } else {
      // Only these may be declined: exponents past the table, an exact half the one multiply cannot decide.
      EXPECT_TRUE(token == "1.7976931348623157e308" || token == "2.2250738585072014e-308" || token == "4503599627370497.5" ||
                  token == "00000000000000000000000000001.5" || token == "0.00000000000000000000000000001")
          << "declined";
    }
  }
  // Declined (std::from_chars then reports the error or reads what it can).
  for (const char* t : {"", "-", "+", ".", "e5", "1e", "1e+", "+1", "+-1", "--1", "-+1", "1.2.3", "0x10", "inf", "nan",
                        "-inf", "1e99999", "1e0001", "12345678901234567891", "1,5", "1..2", "1.5x", "1.5e3x", "7%",
                        "1.5,", "1.5e+3e2"}) {
    double got = 0;
    EXPECT_EQ(parse(t, got), nullptr) << "'" << t << "'";
  }
#endif
}
