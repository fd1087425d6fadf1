// Matrix Market header: the banner's object, format, field and symmetry, then comments and the size
// line, with an error message for every way they go wrong; read_matrix_market_header reads only a prefix.
#include "io/mm_header.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <vector>

#include "io/io_util.hpp"
#include "io/mm_tokens.hpp"
#include "spkit/error.hpp"

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

namespace io_detail {

namespace {

constexpr std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
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

}  // namespace

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

}  // namespace io_detail

MmHeader read_matrix_market_header(const std::string& path) {
  // Usually the header sits in the first KiB: parse a prefix, and trust it only when the size line
  // ended inside it; otherwise read everything.
  for (std::size_t prefix = 1 << 16;; prefix *= 16) {
    const io_detail::FileBytes bytes = io_detail::read_file(path, true, prefix);
    const std::string_view text = bytes.view();
    if (!bytes.truncated) return io_detail::parse_header(text, path).header;
    try {
      const io_detail::ParsedHeader ph = io_detail::parse_header(text, path);
      if (ph.body_offset > 0 && text[ph.body_offset - 1] == '\n') return ph.header;
    } catch (const ParseError& e) {
      if (e.line() == 1 && text.find('\n') != std::string_view::npos) throw;  // the banner is wrong
    }
  }
}

}  // namespace spkit
