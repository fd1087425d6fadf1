// CSR <-> ELLPACK. Every row padded to the longest row's length; padding is value 0 with a valid
// column (the row's last column, 0 for an empty row) so kernels run branch-free.
#include "spkit/formats/ell.hpp"

#include <algorithm>
#include <string>

#include "formats/convert_util.hpp"

namespace spkit {

namespace {
template <class T>
std::int64_t max_row_length(const Csr<T>& csr) {
  const std::int64_t rows = detail::safe_rows(csr);
  std::int64_t width = 0;
#pragma omp parallel for schedule(static) reduction(max : width)
  for (std::int64_t i = 0; i < rows; ++i) width = std::max(width, csr.row_ptr[i + 1] - csr.row_ptr[i]);
  return width;
}

template <class T>
std::uint64_t ell_arrays_bytes(std::int64_t rows, std::int64_t width) {
  return detail::mul_sat(detail::mul_sat(static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(width)),
                         sizeof(std::int32_t) + sizeof(T));
}
}  // namespace

template <class T>
std::uint64_t ell_bytes(const Csr<T>& csr) {
  return ell_arrays_bytes<T>(detail::safe_rows(csr), max_row_length(csr));
}

template <class T>
Ell<T> csr_to_ell(const Csr<T>& csr, Layout layout, const FormatLimits& limits) {
  const std::int64_t rows = detail::safe_rows(csr);
  const std::int64_t width = max_row_length(csr);
  // Everything the conversion allocates: the padded arrays plus the per-row lengths.
  const std::uint64_t needed =
      detail::add_sat(ell_arrays_bytes<T>(rows, width), static_cast<std::uint64_t>(rows) * sizeof(std::int32_t));
  detail::check_budget("ELLPACK of " + std::to_string(rows) + " rows x width " + std::to_string(width), needed,
                       limits);
  Ell<T> ell;
  ell.rows = rows;
  ell.cols = csr.cols;
  ell.width = width;
  ell.nnz = csr.nnz();
  ell.layout = layout;
  const std::size_t total = static_cast<std::size_t>(rows) * static_cast<std::size_t>(width);
  // Uninitialised-then-filled would be faster, but std::vector value-initialises; the fill below
  // writes every slot anyway, in parallel.
  ell.col_idx.resize(total);
  ell.values.resize(total);
  ell.row_length.resize(static_cast<std::size_t>(rows));
  const bool col_major = layout == Layout::col_major;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t b = csr.row_ptr[i], len = csr.row_ptr[i + 1] - b;
    ell.row_length[i] = static_cast<std::int32_t>(len);
    const std::int32_t pad_col = len > 0 ? csr.col_idx[b + len - 1] : 0;
    for (std::int64_t k = 0; k < width; ++k) {
      const std::int64_t at = col_major ? k * rows + i : i * width + k;
      if (k < len) {
        ell.col_idx[at] = csr.col_idx[b + k];
        ell.values[at] = csr.values[b + k];
      } else {
        ell.col_idx[at] = pad_col;
        ell.values[at] = T(0);
      }
    }
  }
  return ell;
}

template <class T>
Csr<T> ell_to_csr(const Ell<T>& ell) {
  Csr<T> csr = detail::csr_from_row_lengths<T>(ell.rows, ell.cols, ell.row_length);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < ell.rows; ++i) {
    const std::int64_t b = csr.row_ptr[i], len = csr.row_ptr[i + 1] - b;
    for (std::int64_t k = 0; k < len; ++k) {
      const std::int64_t at = ell.index(i, k);
      csr.col_idx[b + k] = ell.col_idx[at];
      csr.values[b + k] = ell.values[at];
    }
  }
  return csr;
}

template std::uint64_t ell_bytes(const Csr<float>&);
template std::uint64_t ell_bytes(const Csr<double>&);
template Ell<float> csr_to_ell(const Csr<float>&, Layout, const FormatLimits&);
template Ell<double> csr_to_ell(const Csr<double>&, Layout, const FormatLimits&);
template Csr<float> ell_to_csr(const Ell<float>&);
template Csr<double> ell_to_csr(const Ell<double>&);

}  // namespace spkit
