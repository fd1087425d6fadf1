// The bucketed route of the Matrix Market reader (declared in src/io/mm_bucketed_route.hpp): pass 1
// counts each chunk's entries per row bucket, pass 2 puts each entry straight into its bucket's range of
// the CSR output (PlacedBucketSink), and the buckets are then sorted where they lie
// (formats_detail::sort_buckets_in_place).
#include "io/mm_bucketed_route.hpp"

#include <omp.h>

#if defined(__AVX512BW__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <vector>

#include "formats/csr_detail.hpp"
#include "formats/row_buckets.hpp"
#include "io/mm_tokens.hpp"
#include "platform/huge_pages.hpp"

namespace spkit::io_detail {

namespace {

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

}  // namespace

// load_matrix's route for a general coordinate file in random order: pass 1 counts each chunk's entries
// per row bucket (count_bucket_rows), pass 2 parses every entry into its (chunk, bucket) range of the
// output (PlacedBucketSink), then formats_detail::sort_buckets_in_place sorts each bucket where it lies.
// Every other file goes the COO route, with pass 1 counting newlines only.
Csr<double> parse_body_csr(BodyPlan& plan, std::string_view text, const std::string& src, const ReadOptions& opts) {
  const MmHeader& h = plan.ph.header;
  formats_detail::BucketLayout layout;
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
      !formats_detail::packed_bucket_layout(h.rows, h.cols, layout) ||
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
  resize_huge(csr.col_idx, static_cast<std::size_t>(slots));
  resize_huge(csr.values, static_cast<std::size_t>(slots));
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
  formats_detail::sort_buckets_in_place(csr, layout, bucket_start, plan.threads);
  return csr;
}

BucketRouteCounts bucket_route_counts() {
  return {bucket_route_taken.load(std::memory_order_relaxed), bucket_route_fell_back.load(std::memory_order_relaxed)};
}

}  // namespace spkit::io_detail
