#pragma once
// One chunk of a Matrix Market body (whole lines) and its two passes: pass 1 counts its lines (the
// bucketed route also its entries per row bucket: src/io/mm_bucketed_route.cpp), pass 2 parses its
// entries into a sink.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "io/decimal.hpp"
#include "spkit/io/matrix_market.hpp"

namespace spkit::io_detail {

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

struct BodyContext {
  const MmHeader* h;
  std::string_view text;
};

// Internal linkage, as when these lived in the reader's one source file: an inline function with
// external linkage is called through the PLT in a shared library wherever it is not inlined, and the
// inliner weighs these as local functions.
namespace {

// Newlines in [p, p + n). Not declared inline, as in the reader's one source file: GCC then keeps it out
// of parse_chunk's error paths (maybe_unused: the bucketed route's file includes it without calling it).
[[maybe_unused]] std::int64_t count_newlines(const char* p, std::size_t n) {
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
}  // namespace

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

// Parses one chunk into slots [0, c.capacity) of a sink, stopping at the first error (c.err_line, c.err).
template <class Sink>
using ChunkParser = void (*)(const BodyContext&, Chunk&, Sink&);

// The chunk parser for the header's format and field (array files: ArraySink only).
template <class Sink>
ChunkParser<Sink> chunk_parser(const MmHeader& h);
template <>
ChunkParser<ArraySink> chunk_parser<ArraySink>(const MmHeader& h);
template <>
ChunkParser<PlacedBucketSink> chunk_parser<PlacedBucketSink>(const MmHeader& h);

}  // namespace spkit::io_detail
