#pragma once
// Matrix Market tokens: indices (SWAR for 1 to 7 digits, else a digit loop), real values
// (io_detail::parse_decimal with AVX-512 VBMI2, Clinger's fast path, std::from_chars) and integer
// values. Inline: the chunk parser's loop (src/io/mm_chunk.cpp) spends most of its time here.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "io/decimal.hpp"

namespace spkit::io_detail {

// Internal linkage, as when these lived in the reader's one source file: the chunk parser calls them
// directly (an inline function with external linkage is called through the PLT in a shared library
// wherever it is not inlined) and the inliner weighs them as local functions.
namespace {

// Shows a piece of the input in an error message: at most 24 characters, non-printables escaped,
// so the message stays one line.
inline std::string quote(std::string_view s) {
  std::string out = "'";
  std::size_t shown = 0;
  for (char c : s) {
    if (shown++ == 24) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out + "'";
}

// The token starting at p (up to the next blank or line end).
inline std::string_view token_at(const char* p, const char* end) {
  const char* q = p;
  while (q < end && !is_blank(*q) && *q != '\n') ++q;
  return {p, static_cast<std::size_t>(q - p)};
}

// Unsigned decimal integer (optional '+'); null when there are no digits; `overflow` past 2^63-1.
inline const char* parse_u64(const char* p, const char* end, std::uint64_t& out, bool& overflow) {
  overflow = false;
  if (p < end && *p == '+') ++p;
  const char* start = p;
  while (p < end && *p == '0') ++p;  // leading zeros never overflow
  const char* digits = p;
  std::uint64_t v = 0;
  while (p < end) {
    const unsigned d = static_cast<unsigned char>(*p) - '0';
    if (d > 9) break;
    v = v * 10 + d;
    ++p;
  }
  if (p == start) return nullptr;
  if (p - digits >= 19)  // 19 digits fit in uint64 without wrapping; 20+ may wrap
    overflow = p - digits > 19 || v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  out = v;
  return p;
}

// An index of 1 to 7 digits followed by a non-digit, read from 8 bytes at once (p + 8 <= end): no
// loop over digits, so no branch on the length. Null for anything else (a sign, 8 or more digits,
// no digit), which parse_u64 then reads. Index parsing was the chunk parser's largest part.
inline const char* parse_index_swar(const char* p, std::uint64_t& out) {
  std::uint64_t d;
  std::memcpy(&d, p, 8);  // little-endian: p[0] in the low byte
  d ^= 0x3030303030303030ULL;  // digit bytes become 0..9
  // High bit of each byte set when the byte is not a digit; no carries between bytes.
  const std::uint64_t non_digit = (((d & 0x7F7F7F7F7F7F7F7FULL) + 0x7676767676767676ULL) | d) & 0x8080808080808080ULL;
  if (non_digit == 0) return nullptr;
  const int digits = __builtin_ctzll(non_digit) >> 3;
  if (digits == 0) return nullptr;
  d <<= 8 * (8 - digits);  // the digits into the top bytes, zeros (leading zeros) below
  d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFULL;
  d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFULL;
  d = (d * 10000 + (d >> 32)) & 0xFFFFFFFFULL;
  out = d;
  return p + digits;
}

// An index: 8 bytes at once where 8 bytes remain and it is 1 to 7 digits, else parse_u64.
inline const char* parse_index(const char* p, const char* end, std::uint64_t& out, bool& overflow) {
  overflow = false;
  const char* q = end - p >= 8 ? parse_index_swar(p, out) : nullptr;
  return q ? q : parse_u64(p, end, out, overflow);
}

enum class ValueError { none, bad, nan, inf };

inline bool at_token_end(const char* p, const char* end) { return p == end || is_blank(*p) || *p == '\n'; }

// A decimal whose digits form an integer m <= 2^53 and whose power of ten is within 10^±22, by
// io_detail::clinger. Returns null when the text is outside that case; the caller then uses std::from_chars.
inline const char* parse_real_fast(const char* p, const char* end, double& out) {
  const char* q = p;
  bool neg = false;
  if (q < end && (*q == '-' || *q == '+')) neg = *q++ == '-';
  std::uint64_t m = 0;
  int digits = 0, frac = 0;
  while (q < end && static_cast<unsigned>(*q - '0') <= 9) {
    m = m * 10 + static_cast<unsigned>(*q++ - '0');
    ++digits;
  }
  if (q < end && *q == '.') {
    ++q;
    while (q < end && static_cast<unsigned>(*q - '0') <= 9) {
      m = m * 10 + static_cast<unsigned>(*q++ - '0');
      ++digits;
      ++frac;
    }
  }
  if (digits == 0 || digits > 19) return nullptr;
  int e = -frac;
  if (q < end && (*q == 'e' || *q == 'E')) {
    ++q;
    bool eneg = false;
    if (q < end && (*q == '-' || *q == '+')) eneg = *q++ == '-';
    int x = 0, xd = 0;
    while (q < end && static_cast<unsigned>(*q - '0') <= 9 && xd < 4) {
      x = x * 10 + (*q++ - '0');
      ++xd;
    }
    if (xd == 0 || xd == 4) return nullptr;
    e += eneg ? -x : x;
  }
  if (!at_token_end(q, end) || !io_detail::clinger(m, e, neg, out)) return nullptr;
  return q;
}

// A real value: optional '+', then std::from_chars (general format). Values too small for double
// round to zero (as strtod and the reference readers do); NaN and Inf are refused.
// With AVX-512 VBMI2, io_detail::parse_decimal takes the common tokens first (any value a normal double
// with at most 19 significant digits, bit for bit std::from_chars' result), 33 bytes or more before the
// chunk's end. Without it, Clinger's fast path (parse_real_fast) takes short values; files whose values
// mostly have 17 significant digits miss it, and after a sample of misses the chunk goes straight to
// std::from_chars.
struct FastPathStats {
  std::int64_t tries = 0, misses = 0;
  bool enabled = true;
};

inline const char* parse_real(const char* p, const char* end, double& out, ValueError& err, FastPathStats& fp) {
  err = ValueError::none;
#if SPKIT_HAVE_SIMD_DECIMAL
  if (end - p >= 33) {
    if (const char* q = io_detail::parse_decimal(p, end, out)) return q;
  }
#endif
  if (fp.enabled) {
    const char* q = parse_real_fast(p, end, out);  // never takes "+-1" or "++1"
    ++fp.tries;
    fp.misses += q == nullptr;
    if (fp.tries == 512) fp.enabled = fp.misses < 128;
    if (q) return q;
  }
  const char* start = p;
  if (p < end && *p == '+') {
    ++p;
    if (p < end && (*p == '-' || *p == '+')) {
      err = ValueError::bad;
      return nullptr;
    }
  }
  auto r = std::from_chars(p, end, out, std::chars_format::general);
  if (r.ec == std::errc::result_out_of_range) {
    // Underflow (tiny exponent or 0.000...) becomes a signed zero; overflow is an infinity.
    std::string_view tok(p, static_cast<std::size_t>(r.ptr - p));
    const auto e = tok.find_first_of("eE");
    const bool negative_exponent = e != std::string_view::npos && e + 1 < tok.size() && tok[e + 1] == '-';
    const std::string_view mant = tok.substr(0, e);
    const bool zero_int_part = mant.find_first_not_of("+-0") == std::string_view::npos ||
                               mant.find_first_not_of("+-0") == mant.find('.');
    if (negative_exponent || (e == std::string_view::npos && zero_int_part)) {
      out = (tok[0] == '-') ? -0.0 : 0.0;
    } else {
      err = ValueError::inf;
      return nullptr;
    }
  } else if (r.ec != std::errc()) {
    err = ValueError::bad;
    return nullptr;
  }
  if (std::isnan(out)) {
    err = ValueError::nan;
    return nullptr;
  }
  if (std::isinf(out)) {
    err = ValueError::inf;
    return nullptr;
  }
  (void)start;
  return r.ptr;
}

// An integer-field value (optional sign), stored as double.
inline const char* parse_integer_value(const char* p, const char* end, double& out, bool& overflow) {
  bool neg = false;
  if (p < end && *p == '-') {
    neg = true;
    ++p;
    if (p < end && *p == '+') return nullptr;
  }
  std::uint64_t v;
  const char* q = parse_u64(p, end, v, overflow);
  if (!q || overflow) return nullptr;
  out = neg ? -static_cast<double>(v) : static_cast<double>(v);
  return q;
}

}  // namespace

}  // namespace spkit::io_detail
