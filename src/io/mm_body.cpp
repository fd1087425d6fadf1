// The chunked parallel parse of a Matrix Market body and its COO route (declared in src/io/mm_body.hpp).
#include "io/mm_body.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "platform/huge_pages.hpp"
#include "spkit/error.hpp"

namespace spkit::io_detail {

namespace {
int resolve_threads(int t) { return t > 0 ? t : omp_get_max_threads(); }
}  // namespace

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
      advise_huge_pages(v.data(), v.capacity() * sizeof(v[0]));
      touch_pages_parallel(v.data(), v.capacity() * sizeof(v[0]));
    }
    resize_huge(v, static_cast<std::size_t>(fill));
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
    resize_huge(coo.row_idx, static_cast<std::size_t>(found));
    resize_huge(coo.col_idx, static_cast<std::size_t>(found));
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

}  // namespace spkit::io_detail
