#pragma once
// ELLPACK: every row padded to `width` (= MAXNZ, the longest row) entries. Padding has value 0 and
// a valid column index (the row's last column, or 0 for an empty row) so kernels need no branch.
#include <cstdint>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/formats/format_common.hpp"

namespace spkit {

template <class T>
struct Ell {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t width = 0;  // MAXNZ
  std::int64_t nnz = 0;    // true non-zeros (padding excluded)
  Layout layout = Layout::col_major;
  std::vector<std::int32_t> col_idx;     // rows * width
  std::vector<T> values;                 // rows * width
  std::vector<std::int32_t> row_length;  // host-side metadata for the way back to CSR; kernels don't read it

  std::int64_t index(std::int64_t row, std::int64_t k) const {
    return layout == Layout::col_major ? k * rows + row : row * width + k;
  }
  // Bytes a kernel reads of the matrix (indices + values, padding included).
  std::size_t memory_bytes() const { return col_idx.size() * sizeof(std::int32_t) + values.size() * sizeof(T); }
};

template <class T>
Ell<T> csr_to_ell(const Csr<T>& csr, Layout layout, const FormatLimits& limits = {});
template <class T>
Csr<T> ell_to_csr(const Ell<T>& ell);
// Bytes an ELL of this matrix would take (without building it), for `info` and the budget check.
template <class T>
std::uint64_t ell_bytes(const Csr<T>& csr);

}  // namespace spkit
