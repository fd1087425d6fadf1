// libFuzzer target: the Matrix Market parser on arbitrary bytes. Any input must either parse into a
// consistent matrix or throw spkit::Error (ParseError for malformed text); a crash, a sanitizer report,
// a hang or any other exception is a bug.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/io/matrix_market.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // One chunk with expansion; many tiny chunks (3 threads) without: both must accept and refuse the
  // same inputs.
  int accepted = 0;
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
        // load_matrix's route (row buckets filled by the parser for general files in random order)
        // must give the same matrix, bit for bit, on 3 threads. Default chunks: with tiny ones (more
        // chunks x buckets than entries) the reader keeps the COO route.
        if (expand) {
          spkit::ReadOptions csr_opts;
          csr_opts.threads = 3;
          const spkit::Csr<double> b = spkit::parse_matrix_market_csr(text, "<fuzz>", csr_opts);
          if (b.row_ptr != a.row_ptr || b.col_idx != a.col_idx || b.values.size() != a.values.size()) __builtin_trap();
          for (std::size_t k = 0; k < a.values.size(); ++k)
            if (std::memcmp(&a.values[k], &b.values[k], sizeof(double)) != 0) __builtin_trap();
        }
      }
      ++accepted;
    } catch (const spkit::ParseError&) {
    }
  }
  if (accepted == 1) __builtin_trap();  // chunking changed the verdict
  return 0;
}
