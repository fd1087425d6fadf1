// Matrix Market reader and writer.
//
// Reading: the banner, comments and size line are parsed serially; the body is cut into chunks at
// line boundaries. Pass 1 counts the newlines of every chunk (in parallel): that gives each chunk its
// first line number and an upper bound of the entries it holds, so pass 2 parses every chunk (in
// parallel; io_detail::parse_decimal or std::from_chars for values, SWAR for indices) straight into its slice of
// the output arrays. Slices that held blank or comment lines are closed up afterwards.
// load_matrix / parse_matrix_market_csr on a general coordinate file in random order skip the COO
// arrays: pass 1 also counts each chunk's entries per row bucket, pass 2 puts each entry straight into
// its bucket's range of the CSR output (PlacedBucketSink), and the buckets are then sorted where they
// lie (io_detail::sort_buckets_in_place, src/formats/csr.cpp).
#include "spkit/io/matrix_market.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#if defined(__AVX512BW__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "io/decimal.hpp"
#include "io/io_util.hpp"
#include "spkit/error.hpp"
#include "spkit/io/spkb.hpp"

namespace spkit {

std::string_view to_string(MmField f) {
  switch (f) {
    case MmField::real: return "real";
    case MmField::integer: return "integer";
    case MmField::pattern: return "pattern";
  }
  return "?";
}

std::string_view to_string(MmSymmetry s) {
  switch (s) {
    case MmSymmetry::general: return "general";
    case MmSymmetry::symmetric: return "symmetric";
    case MmSymmetry::skew_symmetric: return "skew-symmetric";
  }
  return "?";
}

namespace {

constexpr std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();

using io_detail::is_blank;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Shows a piece of the input in an error message: at most 24 characters, non-printables escaped,
// so the message stays one line.
std::string quote(std::string_view s) {
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
std::string_view token_at(const char* p, const char* end) {
  const char* q = p;
  while (q < end && !is_blank(*q) && *q != '\n') ++q;
  return {p, static_cast<std::size_t>(q - p)};
}

// Splits one line into blank-separated words.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    std::size_t j = i;
    while (j < line.size() && !is_blank(line[j])) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// Offset of the first control byte (not a text file) in the first 4 KiB, or npos.
std::size_t first_binary_byte(std::string_view text) {
  const std::size_t n = std::min<std::size_t>(text.size(), 4096);
  for (std::size_t i = 0; i < n; ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u == 0 || (u < 0x20 && u != '\n' && u != '\r' && u != '\t' && u != '\f' && u != '\v')) return i;
  }
  return std::string_view::npos;
}

// --- numbers --------------------------------------------------------------------------------------

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


// --- header ---------------------------------------------------------------------------------------

struct ParsedHeader {
  MmHeader header;
  std::size_t body_offset = 0;  // first byte after the size line
  std::int64_t body_first_line = 0;  // 1-based number of the line starting at body_offset
};

// Reads the next line [start, end of line) and advances `pos` past its newline.
std::string_view next_line(std::string_view text, std::size_t& pos) {
  const std::size_t start = pos;
  const std::size_t nl = text.find('\n', pos);
  const std::size_t stop = nl == std::string_view::npos ? text.size() : nl;
  pos = nl == std::string_view::npos ? text.size() : nl + 1;
  return text.substr(start, stop - start);
}

std::int64_t parse_size_word(std::string_view w, const std::string& src, std::int64_t line, const char* what) {
  std::uint64_t v;
  bool overflow;
  const char* e = parse_u64(w.data(), w.data() + w.size(), v, overflow);
  if (!e || e != w.data() + w.size()) {
    if (!w.empty() && w[0] == '-') throw ParseError(src, line, std::string("negative ") + what + " " + quote(w) + " on the size line");
    throw ParseError(src, line, std::string("size line: ") + what + " " + quote(w) + " is not a non-negative integer");
  }
  if (overflow) throw ParseError(src, line, std::string("size line: ") + what + " " + quote(w) + " overflows a 64-bit integer");
  return static_cast<std::int64_t>(v);
}

ParsedHeader parse_header(std::string_view text, const std::string& src) {
  if (text.empty()) throw ParseError(src, 1, "empty file (expected a '%%MatrixMarket' banner)");
  if (io_detail::has_gzip_magic(text.data(), text.size()))
    throw ParseError(src, 1, "gzip-compressed data where Matrix Market text was expected");
  if (text.size() >= 4 && std::memcmp(text.data(), "SPKB", 4) == 0)
    throw ParseError(src, 1, "this is a .spkb binary file, not Matrix Market text");
  if (const std::size_t at = first_binary_byte(text); at != std::string_view::npos)
    throw ParseError(src, 1 + std::count(text.begin(), text.begin() + at, '\n'),
                     "binary data (byte " + quote(text.substr(at, 1)) + "), not a Matrix Market text file");

  ParsedHeader ph;
  std::size_t pos = 0;
  std::int64_t line_no = 1;
  const std::string_view banner = next_line(text, pos);
  const auto w = words(banner);
  if (w.empty() || lower(w[0]) != "%%matrixmarket")
    throw ParseError(src, 1, "missing '%%MatrixMarket' banner (found " + quote(banner) + ")");
  if (w.size() < 5)
    throw ParseError(src, 1, "incomplete banner: expected '%%MatrixMarket matrix <format> <field> <symmetry>'");
  if (w.size() > 5) throw ParseError(src, 1, "unexpected word " + quote(w[5]) + " after the banner's symmetry");
  const std::string object = lower(w[1]), format = lower(w[2]), field = lower(w[3]), sym = lower(w[4]);
  MmHeader& h = ph.header;
  if (object != "matrix")
    throw ParseError(src, 1, "unsupported object " + quote(w[1]) + " in the banner (only 'matrix' is supported)");
  if (format == "coordinate") h.format = MmFormat::coordinate;
  else if (format == "array") h.format = MmFormat::array;
  else throw ParseError(src, 1, "unknown format " + quote(w[2]) + " in the banner (expected 'coordinate' or 'array')");
  if (field == "real" || field == "double") h.field = MmField::real;
  else if (field == "integer") h.field = MmField::integer;
  else if (field == "pattern") h.field = MmField::pattern;
  else if (field == "complex")
    throw ParseError(src, 1, "complex matrices are not supported (field 'complex'); spkit reads real, integer and pattern");
  else throw ParseError(src, 1, "unknown field " + quote(w[3]) + " in the banner (expected real, integer or pattern)");
  if (sym == "general") h.symmetry = MmSymmetry::general;
  else if (sym == "symmetric") h.symmetry = MmSymmetry::symmetric;
  else if (sym == "skew-symmetric") h.symmetry = MmSymmetry::skew_symmetric;
  else if (sym == "hermitian")
    throw ParseError(src, 1, "hermitian matrices are not supported (they are complex); spkit reads general, symmetric and skew-symmetric");
  else throw ParseError(src, 1, "unknown symmetry " + quote(w[4]) + " in the banner (expected general, symmetric or skew-symmetric)");
  if (h.format == MmFormat::array && h.field == MmField::pattern)
    throw ParseError(src, 1, "an 'array' file cannot have the 'pattern' field");

  // Comments and blank lines, then the size line.
  std::string_view size_line;
  bool found = false;
  while (pos < text.size()) {
    ++line_no;
    const std::string_view l = next_line(text, pos);
    std::size_t i = 0;
    while (i < l.size() && is_blank(l[i])) ++i;
    if (i == l.size() || l[i] == '%') continue;
    size_line = l;
    found = true;
    break;
  }
  if (!found) throw ParseError(src, line_no + (text.back() == '\n' ? 1 : 0), "missing size line after the banner");
  const auto s = words(size_line);
  const std::size_t want = h.format == MmFormat::coordinate ? 3 : 2;
  if (s.size() != want)
    throw ParseError(src, line_no,
                     "size line must have " + std::to_string(want) + " numbers (" +
                         (want == 3 ? "rows cols entries" : "rows cols") + "), found " + std::to_string(s.size()));
  h.rows = parse_size_word(s[0], src, line_no, "row count");
  h.cols = parse_size_word(s[1], src, line_no, "column count");
  if (h.rows > kMaxIndex || h.cols > kMaxIndex)
    throw ParseError(src, line_no,
                     "matrix is " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                         "; spkit stores 32-bit indices, so rows and columns must be at most 2147483647");
  if (h.symmetry != MmSymmetry::general && h.rows != h.cols)
    throw ParseError(src, line_no, std::string("a ") + std::string(to_string(h.symmetry)) + " matrix must be square, this one is " +
                                       std::to_string(h.rows) + " x " + std::to_string(h.cols));
  if (h.format == MmFormat::coordinate) {
    h.stored_entries = parse_size_word(s[2], src, line_no, "entry count");
    // Entries take at least 4 bytes each ("1 1\n"), so a count beyond the file's size is refused
    // before anything is allocated for it (the body check would report it anyway).
  } else {
    const std::int64_t n = h.rows;
    // rows, cols < 2^31: these products fit in 64 bits.
    if (h.symmetry == MmSymmetry::general) h.stored_entries = h.rows * h.cols;
    else if (h.symmetry == MmSymmetry::symmetric) h.stored_entries = n * (n + 1) / 2;
    else h.stored_entries = n * (n - 1) / 2;
  }
  ph.body_offset = pos;
  ph.body_first_line = line_no + 1;
  return ph;
}

// --- body -----------------------------------------------------------------------------------------

struct Chunk {
  std::size_t begin = 0, end = 0;  // byte range in the text (whole lines)
  std::int64_t first_line = 0;     // 1-based line number at `begin`
  std::int64_t newlines = 0;
  std::int64_t slot = 0;           // first output slot
  std::int64_t capacity = 0;       // slots reserved
  std::int64_t entries = 0;        // entries parsed
  std::int64_t err_line = -1;      // first error: line and message
  std::string err;
};

std::int64_t count_newlines(const char* p, std::size_t n) {
  // Byte compare accumulated in 8-bit lanes (vectorised by the compiler), flushed every 255 bytes.
  std::int64_t total = 0;
  std::size_t i = 0;
  while (i < n) {
    const std::size_t stop = std::min(n, i + 255 * 32);
    std::array<unsigned char, 32> acc{};
    std::size_t j = i;
    for (; j + 32 <= stop; j += 32)
      for (int k = 0; k < 32; ++k) acc[k] += p[j + k] == '\n';
    for (int k = 0; k < 32; ++k) total += acc[k];
    for (; j < stop; ++j) total += p[j] == '\n';
    i = stop;
  }
  return total;
}

struct BodyContext {
  const MmHeader* h;
  std::string_view text;
};

// Where the entry on the line starting at p begins (after leading blanks), or null for a blank or comment
// line (also one that runs to the chunk's end). The one rule both passes of the bucketed route use: pass 1
// must count exactly the lines pass 2 parses.
inline const char* entry_start(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  if (p == end) return nullptr;
  if (*p == '\n' || *p == '\r' || *p == '%' || *p == '\v' || *p == '\f') {
    if (*p == '%') return nullptr;
    while (p < end && is_blank(*p)) ++p;  // other blanks, then an entry or the end of the line
    if (p == end || *p == '\n') return nullptr;
  }
  return p;
}

// Where parse_chunk puts the chunk's entry n: its COO slot (ArraySink, pointers at the chunk's first
// slot; no row/col arrays for array files) or its row bucket's range of the output (PlacedBucketSink, below).
struct ArraySink {
  std::int32_t* row;
  std::int32_t* col;
  double* val;
  void put(std::int64_t n, std::int32_t r, std::int32_t c, double v) {
    if (row) {
      row[n] = r;
      col[n] = c;
    }
    val[n] = v;
  }
  // Chunk c's slots of the whole body's arrays (row, col null for array files).
  static ArraySink for_chunk(std::int32_t* row, std::int32_t* col, double* val, const Chunk& c) {
    return {row ? row + c.slot : nullptr, col ? col + c.slot : nullptr, val + c.slot};
  }
};

// The general COO->CSR path done while parsing (load_matrix on a general coordinate file in random
// order): pass 1 counts every chunk's entries per row bucket, so each (chunk, bucket) pair owns a known
// range of the output arrays, laid out bucket by bucket and, within a bucket, chunk by chunk (input
// order). Pass 2 puts each entry there, packed as the conversion keeps it (row within the bucket <<
// col_bits | column in the column array, the value in the value array), and the conversion then sorts
// every bucket where it lies. The output is the only large fresh memory the load touches: on the VMs
// measured, a fresh page costs more than the parse writes into it, and sometimes much more
// (docs/perf/io.md).
// put() never writes past its range: an entry beyond it (pass 1 and pass 2 disagreeing about a line)
// sets `overflow`, and the caller then parses the file the plain way.
struct PlacedBucketSink {
  int shift = 0, col_bits = 0;
  std::uint32_t row_mask = 0;
  std::uint32_t* keys = nullptr;  // the output's column array, holding keys until the buckets are sorted
  double* vals = nullptr;
  std::int64_t* cursor = nullptr;      // per bucket: this chunk's next slot
  const std::int64_t* limit = nullptr;  // per bucket: the end of this chunk's range
  bool overflow = false;
  void put(std::int64_t, std::int32_t r, std::int32_t c, double v) {
    const auto b = static_cast<std::size_t>(r >> shift);
    const std::int64_t at = cursor[b];
    if (at == limit[b]) {
      overflow = true;
      return;
    }
    cursor[b] = at + 1;
    keys[static_cast<std::size_t>(at)] = (static_cast<std::uint32_t>(r) & row_mask) << col_bits | static_cast<std::uint32_t>(c);
    vals[static_cast<std::size_t>(at)] = v;
  }
};

// Bit k set when p[k] is a newline, for the n <= 64 bytes at p.
inline std::uint64_t newline_mask(const char* p, std::size_t n) {
  std::uint64_t mask = 0;
#if defined(__AVX512BW__)
  if (n == 64) return _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(p), _mm512_set1_epi8('\n'));
#elif defined(__SSE2__)
  if (n == 64) {
    const __m128i nl = _mm_set1_epi8('\n');
    for (int k = 0; k < 4; ++k) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      mask |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)))) << (16 * k);
    }
    return mask;
  }
#endif
  for (std::size_t k = 0; k < n; ++k) mask |= static_cast<std::uint64_t>(p[k] == '\n') << k;
  return mask;
}

// Pass 1 of the bucketed route over one chunk: its newlines (as count_newlines) and its entries per row
// bucket (counts[b] for rows [b << shift, ...)). Line starts come from a newline bit mask of each 64-byte
// block, so lines are counted independently of each other (a scan from line to line waited on the
// previous line's end: ~10 ns per line). Lines are told apart by entry_start, as in parse_chunk; at the first line
// whose row index parse_chunk would refuse, counting entries stops (pass 2 reports that line), the
// newlines are still all counted.
void count_bucket_rows(const BodyContext& ctx, Chunk& c, int shift, std::int64_t* counts) {
  const char* const first = ctx.text.data() + c.begin;
  const char* const end = ctx.text.data() + c.end;
  const std::uint64_t rows = static_cast<std::uint64_t>(ctx.h->rows);
  bool counting = true;
  // The line starting at p (p < end).
  auto line_at = [&](const char* p) {
    if (static_cast<unsigned>(*p - '1') > 8) {  // not the common line, digits at its start
      p = entry_start(p, end);
      if (!p) return;  // blank or comment line
    }
    std::uint64_t i = 0;
    bool ov = false;
    const char* q = parse_index(p, end, i, ov);
    if (!q || !at_token_end(q, end) || ov || i == 0 || i > rows) {
      counting = false;
      return;
    }
    ++counts[(i - 1) >> shift];
  };
  std::int64_t newlines = 0;
  if (first < end) line_at(first);
  for (const char* block = first; block < end; block += 64) {
    std::uint64_t mask = newline_mask(block, static_cast<std::size_t>(std::min<std::ptrdiff_t>(64, end - block)));
    newlines += __builtin_popcountll(mask);
    for (; mask && counting; mask &= mask - 1) {
      const char* p = block + __builtin_ctzll(mask) + 1;
      if (p < end) line_at(p);
    }
  }
  c.newlines = newlines;
}

// Parses one chunk into slots [0, c.capacity) of `sink`. Stops at the first error.
template <MmFormat F, MmField V, class Sink>
void parse_chunk(const BodyContext& ctx, Chunk& c, Sink& sink) {
  const char* p = ctx.text.data() + c.begin;
  const char* const end = ctx.text.data() + c.end;
  const std::uint64_t rows = static_cast<std::uint64_t>(ctx.h->rows), cols = static_cast<std::uint64_t>(ctx.h->cols);
  const bool skew = ctx.h->symmetry == MmSymmetry::skew_symmetric;
  std::int64_t n = 0;
  const std::int64_t cap = c.capacity;
  const char* line = p;
  FastPathStats fast_path;
  auto fail = [&](std::string what) {
    c.err_line = c.first_line + count_newlines(ctx.text.data() + c.begin, static_cast<std::size_t>(line - (ctx.text.data() + c.begin)));
    c.err = std::move(what);
    c.entries = n;
  };
  while (p < end) {
    line = p;
    p = entry_start(line, end);
    if (!p) {  // blank or comment line
      const void* nl = std::memchr(line, '\n', static_cast<std::size_t>(end - line));
      p = nl ? static_cast<const char*>(nl) + 1 : end;
      continue;
    }
    if (n == cap) return fail("more entries than the size line declares");  // only reachable with extra lines
    std::int32_t entry_row = 0, entry_col = 0;
    double entry_value = 1.0;  // pattern
    if (F == MmFormat::coordinate) {
      std::uint64_t i = 0, j = 0;
      bool ov = false;
      const char* q = parse_index(p, end, i, ov);
      if (!q || !at_token_end(q, end)) return fail("row index " + quote(token_at(p, end)) + " is not a positive integer");
      if (ov || i == 0 || i > rows)
        return fail("row index " + quote(token_at(p, end)) + " is outside 1.." + std::to_string(rows));
      p = q;
      while (p < end && is_blank(*p)) ++p;
      if (p == end || *p == '\n') return fail("entry has a row index but no column index");
      q = parse_index(p, end, j, ov);
      if (!q || !at_token_end(q, end)) return fail("column index " + quote(token_at(p, end)) + " is not a positive integer");
      if (ov || j == 0 || j > cols)
        return fail("column index " + quote(token_at(p, end)) + " is outside 1.." + std::to_string(cols));
      if (skew && i == j) return fail("a skew-symmetric matrix cannot store a diagonal entry (" + std::to_string(i) + ", " + std::to_string(j) + ")");
      p = q;
      entry_row = static_cast<std::int32_t>(i - 1);
      entry_col = static_cast<std::int32_t>(j - 1);
      while (p < end && is_blank(*p)) ++p;
    }
    if (V == MmField::pattern) {
      if (p < end && *p != '\n') return fail("a pattern matrix entry has a value " + quote(token_at(p, end)) + " (pattern entries are 'row col' only)");
    } else {
      if (p == end || *p == '\n') return fail(F == MmFormat::coordinate ? "entry has no value" : "empty value");
      const char* q;
      double v;
      if (V == MmField::real) {
        ValueError ve;
        q = parse_real(p, end, v, ve, fast_path);
        if (ve == ValueError::nan) return fail("value " + quote(token_at(p, end)) + " is NaN; spkit refuses NaN values");
        if (ve == ValueError::inf) return fail("value " + quote(token_at(p, end)) + " is infinite (Inf or beyond the double range); spkit refuses Inf values");
      } else {
        bool ov = false;
        q = parse_integer_value(p, end, v, ov);
        if (ov) return fail("integer value " + quote(token_at(p, end)) + " overflows a 64-bit integer");
      }
      if (!q || !at_token_end(q, end))
        return fail("value " + quote(token_at(p, end)) + " is not " + (V == MmField::real ? "a real number" : "an integer"));
      entry_value = v;
      p = q;
      while (p < end && is_blank(*p)) ++p;
      if (p < end && *p != '\n')
        return fail("unexpected " + quote(token_at(p, end)) + " after the " + (F == MmFormat::coordinate ? "entry" : "value") +
                    " (complex values are not supported)");
    }
    sink.put(n, entry_row, entry_col, entry_value);
    ++n;
    if (p < end) ++p;  // the newline
  }
  c.entries = n;
}

template <class Sink>
using ChunkParser = void (*)(const BodyContext&, Chunk&, Sink&);

template <class Sink>
ChunkParser<Sink> chunk_parser(const MmHeader& h) {
  if (h.format == MmFormat::coordinate) {
    if (h.field == MmField::real) return &parse_chunk<MmFormat::coordinate, MmField::real, Sink>;
    if (h.field == MmField::integer) return &parse_chunk<MmFormat::coordinate, MmField::integer, Sink>;
    return &parse_chunk<MmFormat::coordinate, MmField::pattern, Sink>;
  }
  if constexpr (std::is_same_v<Sink, ArraySink>) {
    if (h.field == MmField::integer) return &parse_chunk<MmFormat::array, MmField::integer, Sink>;
    return &parse_chunk<MmFormat::array, MmField::real, Sink>;
  }
  throw Error("internal: array files are not parsed into row buckets");
}

int resolve_threads(int t) { return t > 0 ? t : omp_get_max_threads(); }

// Makes every OpenMP region of a call (page touching, COO->CSR) use the caller's thread count, then
// restores the previous setting.
class OmpThreadsScope {
 public:
  explicit OmpThreadsScope(int threads) : saved_(omp_get_max_threads()), active_(threads > 0) {
    if (active_) omp_set_num_threads(threads);
  }
  ~OmpThreadsScope() {
    if (active_) omp_set_num_threads(saved_);
  }

 private:
  int saved_;
  bool active_;
};

}  // namespace

namespace {

// The body cut into chunks at line boundaries; pass 1 (count_lines, or the row count of the bucketed
// route) gives each its first line number and its slot range.
struct BodyPlan {
  ParsedHeader ph;
  int threads = 1;
  std::int64_t declared = 0, declared_bound = 0, total_capacity = 0, end_line = 0;
  std::vector<Chunk> chunks;
};

BodyPlan plan_body(std::string_view text, const std::string& src, const ReadOptions& opts) {
  BodyPlan plan;
  plan.ph = parse_header(text, src);
  const MmHeader& h = plan.ph.header;
  const int threads = plan.threads = resolve_threads(opts.threads);
  plan.declared = h.stored_entries;
  // For slot arithmetic only (a declared count near 2^63 must not overflow declared + 1 or 2 x declared;
  // slots are bounded by the file's lines anyway).
  plan.declared_bound = std::min<std::int64_t>(plan.declared, std::int64_t(1) << 60);

  // Cut the body into chunks at line boundaries.
  const std::size_t body_begin = plan.ph.body_offset, body_end = text.size();
  const std::size_t body_bytes = body_end - body_begin;
  std::size_t nchunks;
  if (opts.chunk_bytes > 0) {
    nchunks = std::max<std::size_t>(1, std::min<std::size_t>(body_bytes / opts.chunk_bytes, 1 << 16));
  } else {
    const std::size_t min_chunk = std::size_t(1) << 20;
    nchunks = std::max<std::size_t>(1, std::min<std::size_t>(body_bytes / min_chunk, std::size_t(threads) * 8));
    if (threads == 1) nchunks = std::min<std::size_t>(nchunks, 4);
  }
  std::vector<Chunk>& chunks = plan.chunks;
  chunks.reserve(nchunks);
  std::size_t start = body_begin;
  for (std::size_t k = 1; k <= nchunks && start < body_end; ++k) {
    std::size_t stop = k == nchunks ? body_end : body_begin + body_bytes / nchunks * k;
    if (stop < start) stop = start;
    if (stop < body_end) {
      const void* nl = std::memchr(text.data() + stop, '\n', body_end - stop);
      stop = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1 : body_end;
    }
    Chunk c;
    c.begin = start;
    c.end = stop;
    chunks.push_back(c);
    start = stop;
  }
  return plan;
}

// After pass 1 (every chunk's newlines): each chunk's first line number and its slot range.
void assign_slots(BodyPlan& plan, std::string_view text) {
  std::vector<Chunk>& chunks = plan.chunks;
  const std::size_t body_bytes = text.size() - plan.ph.body_offset;
  std::int64_t line = plan.ph.body_first_line, slot = 0;
  for (auto& c : chunks) {
    c.first_line = line;
    line += c.newlines;
    // A chunk cannot hold more entries than lines; nor more than declared + 1 (one extra proves the error).
    const bool unterminated_last = c.end > c.begin && text[c.end - 1] != '\n';
    c.capacity = std::min<std::int64_t>(c.newlines + (unterminated_last ? 1 : 0), plan.declared_bound + 1);
    c.slot = slot;
    slot += c.capacity;
  }
  plan.total_capacity = slot;
  plan.end_line = line - ((body_bytes > 0 && text.back() != '\n') ? 0 : 1) + 1;
}

// Pass 1 on its own: newlines per chunk, then line numbers and slot ranges.
void count_lines(BodyPlan& plan, std::string_view text) {
  std::vector<Chunk>& chunks = plan.chunks;
  const std::int64_t nc = static_cast<std::int64_t>(chunks.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(plan.threads) if (nc > 1)
  for (std::int64_t k = 0; k < nc; ++k)
    chunks[k].newlines = count_newlines(text.data() + chunks[k].begin, chunks[k].end - chunks[k].begin);
  assign_slots(plan, text);
}

// After pass 2: the first error in file order, else a count that differs from the size line's, throws.
// Returns the entries found.
std::int64_t check_chunks(const BodyPlan& plan, std::string_view text, const std::string& src) {
  const MmHeader& h = plan.ph.header;
  const bool coordinate = h.format == MmFormat::coordinate;
  const std::int64_t declared = plan.declared;
  // Errors in file order; the count check comes after (an error inside wins over a count mismatch).
  std::int64_t found = 0;
  for (const auto& c : plan.chunks) {
    const bool too_many = found + c.entries > declared || c.err.rfind("more entries", 0) == 0;
    if (c.err_line >= 0 && !too_many) throw ParseError(src, c.err_line, c.err);
    if (too_many) {
      // Locate the first entry beyond the declared count: re-parse this chunk with the exact room left.
      Chunk probe = c;
      probe.capacity = declared - found;
      probe.err.clear();
      probe.err_line = -1;
      std::vector<double> v(static_cast<std::size_t>(probe.capacity) + 1);
      std::vector<std::int32_t> r(coordinate ? v.size() : 0), cc(coordinate ? v.size() : 0);
      ArraySink sink{coordinate ? r.data() : nullptr, coordinate ? cc.data() : nullptr, v.data()};
      chunk_parser<ArraySink>(h)(BodyContext{&h, text}, probe, sink);
      throw ParseError(src, probe.err_line >= 0 ? probe.err_line : c.first_line,
                       "more entries than the " + std::to_string(declared) + " the size line declares");
    }
    found += c.entries;
  }
  if (found < declared)
    throw ParseError(src, plan.end_line,
                     "file ends after " + std::to_string(found) + " of the " + std::to_string(declared) +
                         " entries the size line declares");
  return found;
}

// Pass 2 into COO arrays, then the gaps closed, array files given their indices, symmetry expanded.
MmMatrix parse_body_coo(BodyPlan& plan, std::string_view text, const std::string& src, const ReadOptions& opts) {
  const MmHeader& h = plan.ph.header;
  const int threads = plan.threads;
  std::vector<Chunk>& chunks = plan.chunks;
  const std::int64_t nc = static_cast<std::int64_t>(chunks.size());
  const std::int64_t total_capacity = plan.total_capacity, declared_bound = plan.declared_bound;

  MmMatrix out;
  out.header = h;
  const bool coordinate = h.format == MmFormat::coordinate;
  auto& coo = out.coo;
  coo.rows = h.rows;
  coo.cols = h.cols;
  // Pass 2: parse into the slots. Vectors are sized once (the size is bounded by the file's lines).
  const std::int64_t fill = std::max<std::int64_t>(total_capacity, 0);
  // Room for the mirrored entries too, so expansion does not move the arrays.
  const std::size_t room = static_cast<std::size_t>(
      opts.expand_symmetry && h.symmetry != MmSymmetry::general ? std::min<std::int64_t>(2 * fill, 2 * declared_bound) : fill);
  auto size_arrays = [&](auto& v) {
    if (room > static_cast<std::size_t>(fill)) {
      v.reserve(std::max(room, static_cast<std::size_t>(fill)));
      io_detail::advise_huge_pages(v.data(), v.capacity() * sizeof(v[0]));
      io_detail::touch_pages_parallel(v.data(), v.capacity() * sizeof(v[0]));
    }
    io_detail::resize_huge(v, static_cast<std::size_t>(fill));
  };
  size_arrays(coo.values);
  if (coordinate) {
    size_arrays(coo.row_idx);
    size_arrays(coo.col_idx);
  }
  const BodyContext ctx{&h, text};
  std::int32_t* const row = coordinate ? coo.row_idx.data() : nullptr;
  std::int32_t* const col = coordinate ? coo.col_idx.data() : nullptr;
  const ChunkParser<ArraySink> parse = chunk_parser<ArraySink>(h);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (nc > 1)
  for (std::int64_t k = 0; k < nc; ++k) {
    ArraySink sink = ArraySink::for_chunk(row, col, coo.values.data(), chunks[k]);
    parse(ctx, chunks[k], sink);
  }
  const std::int64_t found = check_chunks(plan, text, src);

  // Close the gaps left by blank and comment lines.
  if (found != total_capacity) {
    std::int64_t dst = 0;
    for (const auto& c : chunks) {
      if (c.slot != dst && c.entries > 0) {
        std::memmove(coo.values.data() + dst, coo.values.data() + c.slot, c.entries * sizeof(double));
        if (coordinate) {
          std::memmove(coo.row_idx.data() + dst, coo.row_idx.data() + c.slot, c.entries * sizeof(std::int32_t));
          std::memmove(coo.col_idx.data() + dst, coo.col_idx.data() + c.slot, c.entries * sizeof(std::int32_t));
        }
      }
      dst += c.entries;
    }
    coo.values.resize(static_cast<std::size_t>(found));
    if (coordinate) {
      coo.row_idx.resize(static_cast<std::size_t>(found));
      coo.col_idx.resize(static_cast<std::size_t>(found));
    }
  }

  if (!coordinate) {
    // Column-major values: general holds every (i, j); symmetric the lower triangle with the diagonal;
    // skew-symmetric the strict lower triangle.
    io_detail::resize_huge(coo.row_idx, static_cast<std::size_t>(found));
    io_detail::resize_huge(coo.col_idx, static_cast<std::size_t>(found));
    const std::int64_t m = h.rows, ncols = h.cols;
    const int shift = h.symmetry == MmSymmetry::general ? -1 : (h.symmetry == MmSymmetry::symmetric ? 0 : 1);
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads) if (found > 65536)
    for (std::int64_t j = 0; j < ncols; ++j) {
      std::int64_t first_row, k;
      if (shift < 0) {
        first_row = 0;
        k = j * m;
      } else {
        first_row = j + shift;
        // entries before column j: sum over c < j of (m - c - shift)
        k = j * (m - shift) - j * (j - 1) / 2;
      }
      for (std::int64_t i = first_row; i < m; ++i, ++k) {
        coo.row_idx[k] = static_cast<std::int32_t>(i);
        coo.col_idx[k] = static_cast<std::int32_t>(j);
      }
    }
    if (h.symmetry == MmSymmetry::skew_symmetric) {
      // nothing else: the diagonal is implicitly zero
    }
  }

  if (opts.expand_symmetry && h.symmetry != MmSymmetry::general) {
    const std::int64_t n = found;
    const std::int64_t blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(n / 65536, threads * 8));
    std::vector<std::int64_t> off(static_cast<std::size_t>(blocks) + 1, 0);
#pragma omp parallel for schedule(static) num_threads(threads) if (n > 65536)
    for (std::int64_t b = 0; b < blocks; ++b) {
      std::int64_t cnt = 0;
      for (std::int64_t k = n * b / blocks; k < n * (b + 1) / blocks; ++k) cnt += coo.row_idx[k] != coo.col_idx[k];
      off[b + 1] = cnt;
    }
    std::partial_sum(off.begin(), off.end(), off.begin());
    const std::int64_t total = n + off[blocks];
    coo.row_idx.resize(static_cast<std::size_t>(total));
    coo.col_idx.resize(static_cast<std::size_t>(total));
    coo.values.resize(static_cast<std::size_t>(total));
    const double sign = h.symmetry == MmSymmetry::skew_symmetric ? -1.0 : 1.0;
#pragma omp parallel for schedule(static) num_threads(threads) if (n > 65536)
    for (std::int64_t b = 0; b < blocks; ++b) {
      std::int64_t dst = n + off[b];
      for (std::int64_t k = n * b / blocks; k < n * (b + 1) / blocks; ++k) {
        if (coo.row_idx[k] == coo.col_idx[k]) continue;
        coo.row_idx[dst] = coo.col_idx[k];
        coo.col_idx[dst] = coo.row_idx[k];
        coo.values[dst] = sign * coo.values[k];
        ++dst;
      }
    }
  }
  return out;
}

// Whether the body starts in CSR order (rows ascending, columns strictly ascending within a row) over
// its first entries: a file in random order shows it there. Such files keep the COO route, whose
// conversion takes the parsed arrays over without copying; a probe that fails to parse says no.
bool starts_sorted(const BodyPlan& plan, std::string_view text) {
  if (plan.chunks.empty()) return true;
  const MmHeader& h = plan.ph.header;
  constexpr std::int64_t kProbeEntries = 4096;
  Chunk probe = plan.chunks.front();
  std::size_t end = probe.begin;
  for (std::int64_t k = 0; k < kProbeEntries && end < probe.end; ++k) {
    const void* nl = std::memchr(text.data() + end, '\n', probe.end - end);
    end = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1 : probe.end;
  }
  probe.end = end;
  probe.capacity = kProbeEntries;
  std::vector<std::int32_t> r(kProbeEntries), c(kProbeEntries);
  std::vector<double> v(kProbeEntries);
  ArraySink sink{r.data(), c.data(), v.data()};
  chunk_parser<ArraySink>(h)(BodyContext{&h, text}, probe, sink);
  if (probe.err_line >= 0) return false;
  for (std::int64_t k = 1; k < probe.entries; ++k)
    if (r[k] < r[k - 1] || (r[k] == r[k - 1] && c[k] <= c[k - 1])) return false;
  return true;
}

std::atomic<std::int64_t> bucket_route_taken{0}, bucket_route_fell_back{0};

// load_matrix's route for a general coordinate file in random order: pass 1 counts each chunk's entries
// per row bucket (count_bucket_rows), pass 2 parses every entry into its (chunk, bucket) range of the
// output (PlacedBucketSink), then io_detail::sort_buckets_in_place sorts each bucket where it lies.
// Every other file goes the COO route, with pass 1 counting newlines only.
Csr<double> parse_body_csr(BodyPlan& plan, std::string_view text, const std::string& src, const ReadOptions& opts) {
  const MmHeader& h = plan.ph.header;
  io_detail::BucketLayout layout;
  std::vector<Chunk>& chunks = plan.chunks;
  const std::int64_t nc = static_cast<std::int64_t>(chunks.size());
  const std::size_t body_bytes = text.size() - plan.ph.body_offset;
  auto coo_route = [&] {
    count_lines(plan, text);
    return coo_to_csr_consume(std::move(parse_body_coo(plan, text, src, opts).coo));
  };
  // Each (chunk, bucket) pair keeps a slot and a limit (16 bytes): parses where that bookkeeping would
  // outgrow the text itself (tiny chunks, as tests and the fuzzer ask for) keep the COO route.
  if (h.format != MmFormat::coordinate || h.symmetry != MmSymmetry::general ||
      !io_detail::packed_bucket_layout(h.rows, h.cols, layout) ||
      static_cast<std::uint64_t>(nc) * static_cast<std::uint64_t>(layout.buckets) * 16 > body_bytes ||
      starts_sorted(plan, text))
    return coo_route();

  const std::int64_t nb = layout.buckets;
  const BodyContext ctx{&h, text};
  // Pass 1: newlines and entries per bucket, chunk by chunk (range[k * nb + b]: chunk k's count in
  // bucket b, then its first slot).
  std::vector<std::int64_t> range(static_cast<std::size_t>(nc * nb), 0);
#ifdef SPKIT_CONVERSION_TRACE
  double phase_start = omp_get_wtime();
#endif
#pragma omp parallel for schedule(dynamic, 1) num_threads(plan.threads) if (nc > 1)
  for (std::int64_t k = 0; k < nc; ++k) count_bucket_rows(ctx, chunks[static_cast<std::size_t>(k)], layout.shift, range.data() + k * nb);
  assign_slots(plan, text);
  std::vector<std::int64_t> bucket_start(static_cast<std::size_t>(nb) + 1, 0);
  std::int64_t slots = 0;
  for (std::int64_t b = 0; b < nb; ++b) {
    bucket_start[static_cast<std::size_t>(b)] = slots;
    for (std::int64_t k = 0; k < nc; ++k) {
      std::int64_t& r = range[static_cast<std::size_t>(k * nb + b)];
      const std::int64_t count = r;
      r = slots;
      slots += count;
    }
  }
  bucket_start[static_cast<std::size_t>(nb)] = slots;
  // More entries than the size line declares: an error, which the COO route reports at its line while
  // sizing its arrays by the declared count, not by the file.
  if (slots > plan.declared) return coo_route();
#ifdef SPKIT_CONVERSION_TRACE
  std::fprintf(stderr, "pass 1 (newlines + entries per row bucket)      %8.2f ms\n", 1e3 * (omp_get_wtime() - phase_start));
  phase_start = omp_get_wtime();
#endif

  // The output, sized for every counted entry; its column array holds the packed keys until pass B.
  Csr<double> csr;
  csr.rows = h.rows;
  csr.cols = h.cols;
  io_detail::resize_huge(csr.col_idx, static_cast<std::size_t>(slots));
  io_detail::resize_huge(csr.values, static_cast<std::size_t>(slots));
#ifdef SPKIT_CONVERSION_TRACE
  std::fprintf(stderr, "output allocated                                %8.2f ms\n", 1e3 * (omp_get_wtime() - phase_start));
  phase_start = omp_get_wtime();
#endif

  // Pass 2: chunk k's entries of bucket b go to [range[k * nb + b], its next chunk's start).
  std::vector<std::int64_t> limit(range.size());
  for (std::int64_t b = 0; b < nb; ++b)
    for (std::int64_t k = 0; k < nc; ++k)
      limit[static_cast<std::size_t>(k * nb + b)] =
          k + 1 < nc ? range[static_cast<std::size_t>((k + 1) * nb + b)] : bucket_start[static_cast<std::size_t>(b) + 1];
  std::vector<std::uint8_t> overflow(static_cast<std::size_t>(nc), 0);
  const ChunkParser<PlacedBucketSink> parse = chunk_parser<PlacedBucketSink>(h);
#pragma omp parallel for schedule(dynamic, 1) num_threads(plan.threads) if (nc > 1)
  for (std::int64_t k = 0; k < nc; ++k) {
    PlacedBucketSink sink;
    sink.shift = layout.shift;
    sink.col_bits = layout.col_bits;
    sink.row_mask = static_cast<std::uint32_t>((std::int64_t{1} << layout.shift) - 1);
    sink.keys = reinterpret_cast<std::uint32_t*>(csr.col_idx.data());
    sink.vals = csr.values.data();
    sink.cursor = range.data() + k * nb;
    sink.limit = limit.data() + k * nb;
    parse(ctx, chunks[static_cast<std::size_t>(k)], sink);
    overflow[static_cast<std::size_t>(k)] = sink.overflow;
  }
#ifdef SPKIT_CONVERSION_TRACE
  std::fprintf(stderr, "parse into row buckets                          %8.2f ms\n", 1e3 * (omp_get_wtime() - phase_start));
#endif
  const bool disagreed = std::any_of(overflow.begin(), overflow.end(), [](std::uint8_t o) { return o != 0; });
  if (!disagreed) check_chunks(plan, text, src);
  // Every range must be full: a pass 2 that placed other entries than pass 1 counted (impossible unless
  // the two passes read a line differently) gets the plain route's result instead.
  if (disagreed || range != limit) {
    bucket_route_fell_back.fetch_add(1, std::memory_order_relaxed);
    csr = Csr<double>();
    return coo_route();
  }
  bucket_route_taken.fetch_add(1, std::memory_order_relaxed);
  io_detail::sort_buckets_in_place(csr, layout, bucket_start, plan.threads);
  return csr;
}

}  // namespace

io_detail::BucketRouteCounts io_detail::bucket_route_counts() {
  return {bucket_route_taken.load(std::memory_order_relaxed), bucket_route_fell_back.load(std::memory_order_relaxed)};
}

MmMatrix parse_matrix_market(std::string_view text, std::string_view source, const ReadOptions& opts) {
  const OmpThreadsScope scope(opts.threads);
  const std::string src(source);
  BodyPlan plan = plan_body(text, src, opts);
  count_lines(plan, text);
  return parse_body_coo(plan, text, src, opts);
}

MmMatrix read_matrix_market(const std::string& path, const ReadOptions& opts) {
  const io_detail::FileBytes bytes = io_detail::read_file(path);
  return parse_matrix_market(bytes.view(), path, opts);
}

MmHeader read_matrix_market_header(const std::string& path) {
  // Usually the header sits in the first KiB: parse a prefix, and trust it only when the size line
  // ended inside it; otherwise read everything.
  for (std::size_t prefix = 1 << 16;; prefix *= 16) {
    const io_detail::FileBytes bytes = io_detail::read_file(path, true, prefix);
    const std::string_view text = bytes.view();
    if (!bytes.truncated) return parse_header(text, path).header;
    try {
      const ParsedHeader ph = parse_header(text, path);
      if (ph.body_offset > 0 && text[ph.body_offset - 1] == '\n') return ph.header;
    } catch (const ParseError& e) {
      if (e.line() == 1 && text.find('\n') != std::string_view::npos) throw;  // the banner is wrong
    }
  }
}

Csr<double> parse_matrix_market_csr(std::string_view text, std::string_view source, const ReadOptions& opts,
                                    MmHeader* header_out) {
  const OmpThreadsScope scope(opts.threads);
  const std::string src(source);
  BodyPlan plan = plan_body(text, src, opts);
  if (header_out) *header_out = plan.ph.header;
  return parse_body_csr(plan, text, src, opts);
}

Csr<double> load_matrix(const std::string& path, MmHeader* header_out, const ReadOptions& opts) {
  const OmpThreadsScope scope(opts.threads);
  if (is_spkb_file(path)) return read_spkb(path, header_out);
  const io_detail::FileBytes bytes = io_detail::read_file(path);
  return parse_matrix_market_csr(bytes.view(), path, opts, header_out);
}

// --- writer ---------------------------------------------------------------------------------------

void write_matrix_market(const std::string& path, const Csr<double>& a, MmField field, const std::string& comment) {
  if (field == MmField::integer) {
    for (double v : a.values)
      if (v != std::nearbyint(v) || std::fabs(v) > 9.2e18)
        throw Error("cannot write '" + path + "' with the integer field: value " + std::to_string(v) + " is not an integer");
  }
  io_detail::AtomicFile file(path);
  std::string head = "%%MatrixMarket matrix coordinate ";
  head += to_string(field);
  head += " general\n";
  std::size_t i = 0;
  while (i < comment.size()) {  // every comment line starts with '%'
    const std::size_t nl = comment.find('\n', i);
    const std::string_view l = std::string_view(comment).substr(i, nl == std::string::npos ? std::string::npos : nl - i);
    head += "% ";
    head += l;
    head += '\n';
    i = nl == std::string::npos ? comment.size() : nl + 1;
  }
  head += std::to_string(a.rows) + " " + std::to_string(a.cols) + " " + std::to_string(a.nnz()) + "\n";
  file.write(head.data(), head.size());

  // Rows in batches; each batch is formatted in parallel into per-piece buffers, then written in order.
  const int threads = omp_get_max_threads();
  const std::int64_t rows = a.rows;
  const std::int64_t target_entries_per_piece = 1 << 18;
  std::vector<std::int64_t> cuts{0};
  {
    std::int64_t r = 0;
    while (r < rows) {
      // advance until the piece holds ~target entries (or 1<<16 rows for empty-ish matrices)
      const std::int64_t want = a.row_ptr[r] + target_entries_per_piece;
      std::int64_t next = std::upper_bound(a.row_ptr.begin() + r + 1, a.row_ptr.end(), want) - a.row_ptr.begin() - 1;
      next = std::min<std::int64_t>(std::max<std::int64_t>(next, r + 1), std::min<std::int64_t>(rows, r + (1 << 16)));
      cuts.push_back(next);
      r = next;
    }
  }
  const std::int64_t pieces = static_cast<std::int64_t>(cuts.size()) - 1;
  const std::int64_t batch = std::max<std::int64_t>(1, threads * 2);
  std::vector<std::string> buf(static_cast<std::size_t>(batch));
  for (std::int64_t b0 = 0; b0 < pieces; b0 += batch) {
    const std::int64_t b1 = std::min(pieces, b0 + batch);
#pragma omp parallel for schedule(dynamic, 1) if (b1 - b0 > 1)
    for (std::int64_t pc = b0; pc < b1; ++pc) {
      std::string& s = buf[pc - b0];
      const std::int64_t r0 = cuts[pc], r1 = cuts[pc + 1];
      const std::int64_t entries = a.row_ptr[r1] - a.row_ptr[r0];
      s.resize(static_cast<std::size_t>(entries) * 48 + 64);
      char* o = s.data();
      for (std::int64_t r = r0; r < r1; ++r) {
        for (std::int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
          o = std::to_chars(o, o + 12, r + 1).ptr;
          *o++ = ' ';
          o = std::to_chars(o, o + 12, static_cast<std::int64_t>(a.col_idx[k]) + 1).ptr;
          if (field == MmField::real) {
            *o++ = ' ';
            o = std::to_chars(o, o + 32, a.values[k]).ptr;  // shortest text that reads back exactly
          } else if (field == MmField::integer) {
            *o++ = ' ';
            o = std::to_chars(o, o + 24, static_cast<std::int64_t>(a.values[k])).ptr;
          }
          *o++ = '\n';
        }
      }
      s.resize(static_cast<std::size_t>(o - s.data()));
    }
    for (std::int64_t pc = b0; pc < b1; ++pc) file.write(buf[pc - b0].data(), buf[pc - b0].size());
  }
  file.commit();
}

}  // namespace spkit
