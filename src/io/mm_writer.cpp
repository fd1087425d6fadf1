// Matrix Market writer: CSR as a general coordinate file, formatted in parallel and written in order
// through a temporary file.
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "io/io_util.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"

namespace spkit {

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
