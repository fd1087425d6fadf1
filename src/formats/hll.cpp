// CSR <-> HLL (hacked ELLPACK, seed 000): hacks of hack_size rows, each an ELLPACK block with its own
// width; row-major (r*width + k) or column-major (k*hack_rows + r) within a hack.
#include "spkit/formats/hll.hpp"

#include <algorithm>
#include <string>

#include "formats/convert_util.hpp"

namespace spkit {

namespace {
// Widths of every hack (the longest row in it).
template <class T>
std::vector<std::int32_t> hack_widths(const Csr<T>& csr, int hack_size) {
  if (hack_size < 1) throw Error("HLL hack size must be at least 1 (got " + std::to_string(hack_size) + ")");
  const std::int64_t rows = detail::safe_rows(csr);
  const std::int64_t hacks = (rows + hack_size - 1) / hack_size;
  std::vector<std::int32_t> width(static_cast<std::size_t>(hacks));
#pragma omp parallel for schedule(static)
  for (std::int64_t h = 0; h < hacks; ++h) {
    const std::int64_t r0 = h * hack_size, r1 = std::min(rows, r0 + hack_size);
    std::int64_t w = 0;
    for (std::int64_t i = r0; i < r1; ++i) w = std::max(w, csr.row_ptr[i + 1] - csr.row_ptr[i]);
    width[h] = static_cast<std::int32_t>(w);
  }
  return width;
}

template <class T>
std::uint64_t padded_entries(const std::vector<std::int32_t>& width, std::int64_t rows, int hack_size) {
  std::uint64_t total = 0;
  const std::int64_t hacks = static_cast<std::int64_t>(width.size());
  for (std::int64_t h = 0; h < hacks; ++h) {
    const std::int64_t hr = std::min<std::int64_t>(hack_size, rows - h * hack_size);
    total = detail::add_sat(total, detail::mul_sat(static_cast<std::uint64_t>(hr), static_cast<std::uint64_t>(width[h])));
  }
  return total;
}

template <class T>
std::uint64_t arrays_bytes(std::uint64_t entries, std::int64_t hacks) {
  return detail::add_sat(detail::mul_sat(entries, sizeof(std::int32_t) + sizeof(T)),
                         static_cast<std::uint64_t>(hacks + 1) * sizeof(std::int64_t) +
                             static_cast<std::uint64_t>(hacks) * sizeof(std::int32_t));
}
}  // namespace

template <class T>
std::uint64_t hll_bytes(const Csr<T>& csr, int hack_size) {
  const auto width = hack_widths(csr, hack_size);
  const std::int64_t rows = detail::safe_rows(csr);
  return arrays_bytes<T>(padded_entries<T>(width, rows, hack_size), static_cast<std::int64_t>(width.size()));
}

template <class T>
Hll<T> csr_to_hll(const Csr<T>& csr, int hack_size, Layout layout, const FormatLimits& limits) {
  auto width = hack_widths(csr, hack_size);
  const std::int64_t rows = detail::safe_rows(csr);
  const std::int64_t hacks = static_cast<std::int64_t>(width.size());
  const std::uint64_t entries = padded_entries<T>(width, rows, hack_size);
  const std::uint64_t needed = detail::add_sat(arrays_bytes<T>(entries, hacks),
                                               static_cast<std::uint64_t>(rows) * sizeof(std::int32_t));
  detail::check_budget("HLL of " + std::to_string(rows) + " rows (hack size " + std::to_string(hack_size) + ", " +
                           std::to_string(entries) + " padded entries)",
                       needed, limits);
  Hll<T> hll;
  hll.rows = rows;
  hll.cols = csr.cols;
  hll.nnz = csr.nnz();
  hll.hack_size = hack_size;
  hll.layout = layout;
  hll.hack_offset.assign(static_cast<std::size_t>(hacks) + 1, 0);
  for (std::int64_t h = 0; h < hacks; ++h)
    hll.hack_offset[h] = std::min<std::int64_t>(hack_size, rows - h * hack_size) * width[h];
  detail::exclusive_scan_inplace(hll.hack_offset);
  hll.hack_width = std::move(width);
  hll.col_idx.resize(static_cast<std::size_t>(entries));
  hll.values.resize(static_cast<std::size_t>(entries));
  hll.row_length.resize(static_cast<std::size_t>(rows));
  const bool col_major = layout == Layout::col_major;
#pragma omp parallel for schedule(guided)
  for (std::int64_t h = 0; h < hacks; ++h) {
    const std::int64_t r0 = h * hack_size, hr = std::min<std::int64_t>(hack_size, rows - r0);
    const std::int64_t w = hll.hack_width[h], base = hll.hack_offset[h];
    for (std::int64_t r = 0; r < hr; ++r) {
      const std::int64_t b = csr.row_ptr[r0 + r], len = csr.row_ptr[r0 + r + 1] - b;
      hll.row_length[r0 + r] = static_cast<std::int32_t>(len);
      const std::int32_t pad_col = len > 0 ? csr.col_idx[b + len - 1] : 0;
      for (std::int64_t k = 0; k < w; ++k) {
        const std::int64_t at = base + (col_major ? k * hr + r : r * w + k);
        hll.col_idx[at] = k < len ? csr.col_idx[b + k] : pad_col;
        hll.values[at] = k < len ? csr.values[b + k] : T(0);
      }
    }
  }
  return hll;
}

template <class T>
Csr<T> hll_to_csr(const Hll<T>& hll) {
  Csr<T> csr = detail::csr_from_row_lengths<T>(hll.rows, hll.cols, hll.row_length);
  const bool col_major = hll.layout == Layout::col_major;
  const std::int64_t hacks = hll.hacks();
#pragma omp parallel for schedule(guided)
  for (std::int64_t h = 0; h < hacks; ++h) {
    const std::int64_t r0 = h * hll.hack_size, hr = std::min<std::int64_t>(hll.hack_size, hll.rows - r0);
    const std::int64_t w = hll.hack_width[h], base = hll.hack_offset[h];
    for (std::int64_t r = 0; r < hr; ++r) {
      const std::int64_t b = csr.row_ptr[r0 + r], len = csr.row_ptr[r0 + r + 1] - b;
      for (std::int64_t k = 0; k < len; ++k) {
        const std::int64_t at = base + (col_major ? k * hr + r : r * w + k);
        csr.col_idx[b + k] = hll.col_idx[at];
        csr.values[b + k] = hll.values[at];
      }
    }
  }
  return csr;
}

template std::uint64_t hll_bytes(const Csr<float>&, int);
template std::uint64_t hll_bytes(const Csr<double>&, int);
template Hll<float> csr_to_hll(const Csr<float>&, int, Layout, const FormatLimits&);
template Hll<double> csr_to_hll(const Csr<double>&, int, Layout, const FormatLimits&);
template Csr<float> hll_to_csr(const Hll<float>&);
template Csr<double> hll_to_csr(const Hll<double>&);

}  // namespace spkit
