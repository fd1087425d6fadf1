// The per-chunk passes over a Matrix Market body (declared in src/io/mm_chunk.hpp): newline counting
// and the entry parser, one instance per format, field and sink.
#include "io/mm_chunk.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>

#include "io/mm_tokens.hpp"
#include "spkit/error.hpp"

namespace spkit::io_detail {

namespace {

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
ChunkParser<Sink> chunk_parser_for(const MmHeader& h) {
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

}  // namespace

// Specializations rather than explicit instantiations: an explicit instantiation would emit the
// parse_chunk instances it names in COMDAT sections, where GCC does not move their cold paths (error
// messages, unwinding) out of the hot code.
template <>
ChunkParser<ArraySink> chunk_parser<ArraySink>(const MmHeader& h) {
  return chunk_parser_for<ArraySink>(h);
}
template <>
ChunkParser<PlacedBucketSink> chunk_parser<PlacedBucketSink>(const MmHeader& h) {
  return chunk_parser_for<PlacedBucketSink>(h);
}

}  // namespace spkit::io_detail
