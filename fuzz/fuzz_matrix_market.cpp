// libFuzzer target: the Matrix Market parser on arbitrary bytes. Any input must either parse into a
// consistent matrix or throw spkit::Error (ParseError for malformed text); a crash, a sanitizer report,
// a hang or any other exception is a bug.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "io/mm_bucketed_route.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/io/matrix_market.hpp"

namespace {

bool same_bits(const spkit::Csr<double>& a, const spkit::Csr<double>& b) {
  if (a.row_ptr != b.row_ptr || a.col_idx != b.col_idx || a.values.size() != b.values.size()) return false;
  return a.values.empty() || std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // One chunk with expansion; many tiny chunks (3 threads) without: both must accept and refuse the
  // same inputs, and give the same general matrix.
  int accepted = 0;
  std::string refusal;       // the one-chunk parse's error message
  spkit::Csr<double> want;   // its matrix, converted, when it fits the fuzzer's memory
  bool have_want = false;
  for (bool expand : {true, false}) {
    spkit::ReadOptions opts;
    opts.threads = expand ? 1 : 3;
    opts.chunk_bytes = expand ? 0 : 5;
    opts.expand_symmetry = expand;
    try {
      const spkit::MmMatrix m = spkit::parse_matrix_market(text, "<fuzz>", opts);
      const auto& h = m.header;
      // Invariants of an accepted file.
      if (h.rows < 0 || h.cols < 0 || m.coo.rows != h.rows || m.coo.cols != h.cols) __builtin_trap();
      if (m.coo.row_idx.size() != m.coo.values.size() || m.coo.col_idx.size() != m.coo.values.size()) __builtin_trap();
      if (!expand && m.coo.nnz() != h.stored_entries) __builtin_trap();
      for (std::int64_t k = 0; k < m.coo.nnz(); ++k)
        if (m.coo.row_idx[k] < 0 || m.coo.row_idx[k] >= h.rows || m.coo.col_idx[k] < 0 || m.coo.col_idx[k] >= h.cols ||
            !(m.coo.values[k] == m.coo.values[k]))
          __builtin_trap();
      // CSR needs rows + 1 row pointers: a tiny file may declare 2^31 rows legitimately, so only
      // convert what fits the fuzzer's memory limit.
      if (h.rows <= (1 << 20)) {
        const spkit::Csr<double> a = spkit::coo_to_csr(m.coo);
        spkit::check_csr(a);
        if (expand) {
          want = a;
          have_want = true;
        } else if (have_want && h.symmetry == spkit::MmSymmetry::general && !same_bits(want, a)) {
          // 5-byte chunks end a line or two after they start, so std::from_chars reads most values (fewer
          // than 33 bytes before the chunk's end); one chunk reads most through io_detail::parse_decimal.
          __builtin_trap();
        }
      }
      ++accepted;
    } catch (const spkit::ParseError& e) {
      if (expand) refusal = e.what();
    }
  }
  if (accepted == 1) __builtin_trap();  // chunking changed the verdict
  // load_matrix's route (general files in random order: entries counted per row bucket, then placed in
  // the output and sorted there) must accept the same files with the same matrix, bit for bit, and
  // refuse the same ones with the same message; on one chunk and on chunks of 256 bytes, 3 threads.
  if (accepted == 2 && !have_want) return 0;
  for (std::size_t chunk : {std::size_t{0}, std::size_t{256}}) {
    spkit::ReadOptions csr_opts;
    csr_opts.threads = 3;
    csr_opts.chunk_bytes = chunk;
    try {
      const spkit::Csr<double> b = spkit::parse_matrix_market_csr(text, "<fuzz>", csr_opts);
      if (accepted == 0 || !same_bits(want, b)) __builtin_trap();
    } catch (const spkit::ParseError& e) {
      if (accepted != 0 || refusal != e.what()) __builtin_trap();
    }
  }
  if (spkit::io_detail::bucket_route_counts().fell_back != 0) __builtin_trap();  // the two passes disagreed
  return 0;
}
