// CSR <-> HYB (seed 001; Bell & Garland): the first K entries of every row in a column-major ELL of
// width K, the rest (rows longer than K) in COO, row-major.
#include "spkit/formats/hyb.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "formats/convert_util.hpp"

namespace spkit {

template <class T>
std::int64_t hyb_choose_width(const Csr<T>& csr) {
  const std::int64_t rows = detail::safe_rows(csr);
  if (rows == 0) return 0;
  // Histogram of row lengths (capped: a K above the longest row is never chosen), then the largest
  // K with #rows(len >= K) >= rows / 3.
  std::int64_t longest = 0;
  for (std::int64_t i = 0; i < rows; ++i) longest = std::max(longest, csr.row_ptr[i + 1] - csr.row_ptr[i]);
  std::vector<std::int64_t> count(static_cast<std::size_t>(longest) + 2, 0);
  for (std::int64_t i = 0; i < rows; ++i) ++count[csr.row_ptr[i + 1] - csr.row_ptr[i]];
  std::int64_t at_least = 0;  // rows with length >= k
  for (std::int64_t k = longest; k >= 0; --k) {
    at_least += count[k];
    if (3 * at_least >= rows) return k;
  }
  return 0;
}

template <class T>
Hyb<T> csr_to_hyb(const Csr<T>& csr, std::int64_t ell_width, const FormatLimits& limits) {
  const std::int64_t rows = detail::safe_rows(csr);
  const std::int64_t k_width = ell_width >= 0 ? ell_width : hyb_choose_width(csr);
  if (rows > std::numeric_limits<std::int32_t>::max())
    throw TooLarge("HYB: " + std::to_string(rows) + " rows do not fit the COO part's 32-bit row indices",
                   detail::kSaturated);
  // Overflow per row, prefix-summed into each row's first COO slot.
  std::vector<std::int64_t> coo_start(static_cast<std::size_t>(rows) + 1, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i)
    coo_start[i] = std::max<std::int64_t>(0, csr.row_ptr[i + 1] - csr.row_ptr[i] - k_width);
  const std::int64_t coo_nnz = detail::exclusive_scan_inplace(coo_start);
  const std::uint64_t ell_entries = detail::mul_sat(static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(k_width));
  const std::uint64_t needed = detail::add_sat(
      detail::add_sat(detail::mul_sat(ell_entries, sizeof(std::int32_t) + sizeof(T)),
                      static_cast<std::uint64_t>(rows) * sizeof(std::int32_t)),
      static_cast<std::uint64_t>(coo_nnz) * (2 * sizeof(std::int32_t) + sizeof(T)));
  detail::check_budget("HYB of " + std::to_string(rows) + " rows (ELL width " + std::to_string(k_width) + ", " +
                           std::to_string(coo_nnz) + " COO entries)",
                       needed, limits);
  Hyb<T> hyb;
  Ell<T>& ell = hyb.ell;
  ell.rows = rows;
  ell.cols = csr.cols;
  ell.width = k_width;
  ell.layout = Layout::col_major;
  ell.col_idx.resize(static_cast<std::size_t>(ell_entries));
  ell.values.resize(static_cast<std::size_t>(ell_entries));
  ell.row_length.resize(static_cast<std::size_t>(rows));
  hyb.coo.rows = rows;
  hyb.coo.cols = csr.cols;
  hyb.coo.row_idx.resize(static_cast<std::size_t>(coo_nnz));
  hyb.coo.col_idx.resize(static_cast<std::size_t>(coo_nnz));
  hyb.coo.values.resize(static_cast<std::size_t>(coo_nnz));
  std::int64_t ell_nnz = 0;
#pragma omp parallel for schedule(static) reduction(+ : ell_nnz)
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t b = csr.row_ptr[i], len = csr.row_ptr[i + 1] - b;
    const std::int64_t in_ell = std::min(len, k_width);
    ell.row_length[i] = static_cast<std::int32_t>(in_ell);
    ell_nnz += in_ell;
    const std::int32_t pad_col = in_ell > 0 ? csr.col_idx[b + in_ell - 1] : 0;
    for (std::int64_t k = 0; k < k_width; ++k) {
      const std::int64_t at = k * rows + i;
      ell.col_idx[at] = k < in_ell ? csr.col_idx[b + k] : pad_col;
      ell.values[at] = k < in_ell ? csr.values[b + k] : T(0);
    }
    for (std::int64_t k = in_ell, out = coo_start[i]; k < len; ++k, ++out) {
      hyb.coo.row_idx[out] = static_cast<std::int32_t>(i);
      hyb.coo.col_idx[out] = csr.col_idx[b + k];
      hyb.coo.values[out] = csr.values[b + k];
    }
  }
  ell.nnz = ell_nnz;
  return hyb;
}

template <class T>
Csr<T> hyb_to_csr(const Hyb<T>& hyb) {
  const Ell<T>& ell = hyb.ell;
  const std::int64_t rows = ell.rows;
  Csr<T> csr;
  csr.rows = rows;
  csr.cols = ell.cols;
  // Row lengths: the ELL part plus this row's COO entries (COO is row-major, so they are contiguous).
  std::vector<std::int64_t> coo_start(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int64_t k = 0; k < hyb.coo.nnz(); ++k) ++coo_start[hyb.coo.row_idx[k]];
  detail::exclusive_scan_inplace(coo_start);
  csr.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int64_t i = 0; i < rows; ++i) csr.row_ptr[i] = ell.row_length[i] + (coo_start[i + 1] - coo_start[i]);
  const std::int64_t nnz = detail::exclusive_scan_inplace(csr.row_ptr);
  csr.col_idx.resize(static_cast<std::size_t>(nnz));
  csr.values.resize(static_cast<std::size_t>(nnz));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    std::int64_t out = csr.row_ptr[i];
    for (std::int64_t k = 0; k < ell.row_length[i]; ++k, ++out) {
      csr.col_idx[out] = ell.col_idx[k * rows + i];
      csr.values[out] = ell.values[k * rows + i];
    }
    for (std::int64_t k = coo_start[i]; k < coo_start[i + 1]; ++k, ++out) {
      csr.col_idx[out] = hyb.coo.col_idx[k];
      csr.values[out] = hyb.coo.values[k];
    }
  }
  return csr;
}

template std::int64_t hyb_choose_width(const Csr<float>&);
template std::int64_t hyb_choose_width(const Csr<double>&);
template Hyb<float> csr_to_hyb(const Csr<float>&, std::int64_t, const FormatLimits&);
template Hyb<double> csr_to_hyb(const Csr<double>&, std::int64_t, const FormatLimits&);
template Csr<float> hyb_to_csr(const Hyb<float>&);
template Csr<double> hyb_to_csr(const Hyb<double>&);

}  // namespace spkit
