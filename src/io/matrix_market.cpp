// Matrix Market reader: the entry points (parse, read, load as CSR).
//
// Reading: the banner, comments and size line are parsed serially; the body is cut into chunks at
// line boundaries. Pass 1 counts the newlines of every chunk (in parallel): that gives each chunk its
// first line number and an upper bound of the entries it holds, so pass 2 parses every chunk (in
// parallel; io_detail::parse_decimal or std::from_chars for values, SWAR for indices) straight into its slice of
// the output arrays. Slices that held blank or comment lines are closed up afterwards.
// load_matrix / parse_matrix_market_csr on a general coordinate file in random order skip the COO
// arrays: pass 1 also counts each chunk's entries per row bucket, pass 2 puts each entry straight into
// its bucket's range of the CSR output (PlacedBucketSink), and the buckets are then sorted where they
// lie (formats_detail::sort_buckets_in_place, src/formats/row_buckets.cpp).
// The pieces: the header src/io/mm_header.cpp, the tokens src/io/mm_tokens.hpp, the chunk passes
// src/io/mm_chunk.cpp, the body and its COO route src/io/mm_body.cpp, the bucketed route
// src/io/mm_bucketed_route.cpp; the writer is src/io/mm_writer.cpp.
#include "spkit/io/matrix_market.hpp"

#include <omp.h>

#include <string>

#include "io/io_util.hpp"
#include "io/mm_body.hpp"
#include "io/mm_bucketed_route.hpp"
#include "spkit/io/spkb.hpp"

namespace spkit {

namespace {

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

MmMatrix parse_matrix_market(std::string_view text, std::string_view source, const ReadOptions& opts) {
  const OmpThreadsScope scope(opts.threads);
  const std::string src(source);
  io_detail::BodyPlan plan = io_detail::plan_body(text, src, opts);
  io_detail::count_lines(plan, text);
  return io_detail::parse_body_coo(plan, text, src, opts);
}

MmMatrix read_matrix_market(const std::string& path, const ReadOptions& opts) {
  const io_detail::FileBytes bytes = io_detail::read_file(path);
  return parse_matrix_market(bytes.view(), path, opts);
}

Csr<double> parse_matrix_market_csr(std::string_view text, std::string_view source, const ReadOptions& opts,
                                    MmHeader* header_out) {
  const OmpThreadsScope scope(opts.threads);
  const std::string src(source);
  io_detail::BodyPlan plan = io_detail::plan_body(text, src, opts);
  if (header_out) *header_out = plan.ph.header;
  return io_detail::parse_body_csr(plan, text, src, opts);
}

Csr<double> load_matrix(const std::string& path, MmHeader* header_out, const ReadOptions& opts) {
  const OmpThreadsScope scope(opts.threads);
  if (is_spkb_file(path)) return read_spkb(path, header_out);
  const io_detail::FileBytes bytes = io_detail::read_file(path);
  return parse_matrix_market_csr(bytes.view(), path, opts, header_out);
}

}  // namespace spkit
