// CSR <-> SELL-C-sigma (layout in spkit/formats/sell.hpp): window sort, slice widths, per-slice
// choice of 16-bit delta or 32-bit column indices.
#include "spkit/formats/sell.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "formats/convert_util.hpp"
#include "spkit/error.hpp"

namespace spkit {

namespace {

constexpr std::int64_t kMaxDelta16 = std::numeric_limits<std::uint16_t>::max();

void check_parameters(int slice_height, int sigma) {
  if (slice_height < 1) throw Error("SELL slice height must be at least 1 (got " + std::to_string(slice_height) + ")");
  if (sigma < 1) throw Error("SELL sorting window sigma must be at least 1 (got " + std::to_string(sigma) + ")");
}

// Slice row -> CSR row: rows sorted by decreasing length (stable, so equal rows keep their order)
// within each window of sigma rows. Returns an empty vector when no row moves.
std::vector<std::int32_t> window_sort(const std::vector<std::int64_t>& row_ptr, std::int64_t rows, int sigma) {
  if (sigma <= 1 || rows == 0) return {};
  std::vector<std::int32_t> perm(static_cast<std::size_t>(rows));
  std::iota(perm.begin(), perm.end(), 0);
  const std::int64_t windows = (rows + sigma - 1) / sigma;
  bool moved = false;
#pragma omp parallel for schedule(static) reduction(|| : moved)
  for (std::int64_t w = 0; w < windows; ++w) {
    const auto first = perm.begin() + w * sigma, last = perm.begin() + std::min(rows, (w + 1) * sigma);
    std::stable_sort(first, last, [&](std::int32_t a, std::int32_t b) {
      return row_ptr[a + 1] - row_ptr[a] > row_ptr[b + 1] - row_ptr[b];
    });
    for (auto it = first; it != last; ++it)
      if (*it != it - perm.begin()) { moved = true; break; }
  }
  if (!moved) perm.clear();
  return perm;
}

// Longest row of each slice (slice rows in perm order; rows past the end count as empty).
std::vector<std::int32_t> slice_widths(const std::vector<std::int64_t>& row_ptr, std::int64_t rows,
                                       const std::vector<std::int32_t>& perm, int c) {
  const std::int64_t slices = (rows + c - 1) / c;
  std::vector<std::int32_t> width(static_cast<std::size_t>(slices));
#pragma omp parallel for schedule(static)
  for (std::int64_t s = 0; s < slices; ++s) {
    std::int64_t w = 0;
    for (std::int64_t i = s * c; i < std::min(rows, (s + 1) * c); ++i) {
      const std::int64_t row = perm.empty() ? i : perm[i];
      w = std::max(w, row_ptr[row + 1] - row_ptr[row]);
    }
    width[s] = static_cast<std::int32_t>(w);
  }
  return width;
}

std::int64_t total_slots(const std::vector<std::int32_t>& width, int c) {
  std::int64_t slots = 0;
  for (const std::int32_t w : width) slots += static_cast<std::int64_t>(w) * c;
  return slots;
}

// Slice-row order and widths. The window sort is kept only when it pays for its permutation: it must
// remove at least one padded slot per two rows (a slot costs 6-12 bytes, the permutation 4 bytes per
// row read plus y written out of order). Stencil-like matrices, whose rows barely differ, stay unsorted.
struct SliceOrder {
  std::vector<std::int32_t> perm;  // empty: identity
  std::vector<std::int32_t> width;
  int sigma = 1;                   // the window actually used
};
SliceOrder slice_order(const std::vector<std::int64_t>& row_ptr, std::int64_t rows, int c, int sigma) {
  SliceOrder order;
  order.width = slice_widths(row_ptr, rows, {}, c);
  auto perm = window_sort(row_ptr, rows, sigma);
  if (perm.empty()) return order;
  auto sorted_width = slice_widths(row_ptr, rows, perm, c);
  if (2 * (total_slots(order.width, c) - total_slots(sorted_width, c)) < rows) return order;
  order.perm = std::move(perm);
  order.width = std::move(sorted_width);
  order.sigma = sigma;
  return order;
}

// Base column of a slice for 16-bit deltas, or -1 when a delta would exceed 16 bits.
template <class T>
std::int32_t delta16_base(const Csr<T>& csr, const std::vector<std::int32_t>& perm, std::int64_t s, int c) {
  const std::int64_t rows = csr.rows;
  std::int64_t base = std::numeric_limits<std::int64_t>::max(), max_first = 0;
  for (std::int64_t i = s * c; i < std::min(rows, (s + 1) * c); ++i) {
    const std::int64_t row = perm.empty() ? i : perm[i];
    const std::int64_t b = csr.row_ptr[row], e = csr.row_ptr[row + 1];
    if (b == e) continue;
    base = std::min<std::int64_t>(base, csr.col_idx[b]);
    max_first = std::max<std::int64_t>(max_first, csr.col_idx[b]);
    for (std::int64_t k = b + 1; k < e; ++k)
      if (csr.col_idx[k] - csr.col_idx[k - 1] > kMaxDelta16) return -1;
  }
  if (base == std::numeric_limits<std::int64_t>::max()) return 0;  // only empty rows
  return max_first - base > kMaxDelta16 ? -1 : static_cast<std::int32_t>(base);
}

}  // namespace

template <class T>
std::int64_t Sell<T>::slices_16bit() const {
  return std::count_if(slice_col_base.begin(), slice_col_base.end(), [](std::int32_t b) { return b >= 0; });
}

template <class T>
std::uint64_t Sell<T>::spmv_bytes() const {
  return perm.size() * sizeof(std::int32_t) + slice_offset.size() * sizeof(std::int64_t) +
         slice_width.size() * sizeof(std::int32_t) + slice_col_base.size() * sizeof(std::int32_t) +
         slice_col_offset.size() * sizeof(std::int64_t) + col_delta16.size() * sizeof(std::uint16_t) +
         col_idx32.size() * sizeof(std::int32_t) + values.size() * sizeof(T);
}

template <class T>
SellShape sell_shape(const Csr<T>& csr, int slice_height, int sigma) {
  check_parameters(slice_height, sigma);
  const std::int64_t rows = detail::safe_rows(csr);
  if (rows == 0) return {};
  const SliceOrder order = slice_order(csr.row_ptr, rows, slice_height, sigma);
  const auto& perm = order.perm;
  const auto& width = order.width;
  const std::int64_t slices = static_cast<std::int64_t>(width.size());
  SellShape shape;
  std::int64_t slots = 0, slots16 = 0;
#pragma omp parallel for schedule(guided) reduction(+ : slots, slots16)
  for (std::int64_t s = 0; s < slices; ++s) {
    const std::int64_t n = static_cast<std::int64_t>(width[s]) * slice_height;
    slots += n;
    if (delta16_base(csr, perm, s, slice_height) >= 0) slots16 += n;
  }
  shape.slots = slots;
  shape.slots_16bit = slots16;
  shape.permuted = !perm.empty();
  return shape;
}

template <class T>
Sell<T> csr_to_sell(const Csr<T>& csr, SellIndex index, int slice_height, int sigma, const FormatLimits& limits) {
  check_parameters(slice_height, sigma);
  const std::int64_t rows = detail::safe_rows(csr);
  if (rows > std::numeric_limits<std::int32_t>::max())
    throw TooLarge("SELL keeps its row permutation in 32 bits: " + std::to_string(rows) + " rows are too many",
                   static_cast<std::uint64_t>(rows) * sizeof(std::int64_t));
  const int c = slice_height;
  Sell<T> sell;
  sell.rows = rows;
  sell.cols = csr.cols;
  sell.nnz = csr.nnz();
  sell.slice_height = c;
  sell.index = index;
  SliceOrder order = slice_order(csr.row_ptr, rows, c, sigma);
  sell.sigma = order.sigma;
  sell.perm = std::move(order.perm);
  sell.slice_width = std::move(order.width);
  const std::int64_t slices = sell.slices();
  const std::int64_t slots = total_slots(sell.slice_width, c);
  // Worst case (every slice 32-bit) before allocating anything large.
  const std::uint64_t needed = detail::add_sat(
      detail::mul_sat(static_cast<std::uint64_t>(slots), sizeof(T) + sizeof(std::int32_t)),
      static_cast<std::uint64_t>(slices) * 28 + static_cast<std::uint64_t>(rows) * 8);
  detail::check_budget("SELL-" + std::to_string(c) + "-" + std::to_string(sigma) + " of " + std::to_string(rows) +
                           " rows (" + std::to_string(slots) + " padded entries)",
                       needed, limits);

  sell.slice_offset.assign(static_cast<std::size_t>(slices) + 1, 0);
  for (std::int64_t s = 0; s < slices; ++s) sell.slice_offset[s] = static_cast<std::int64_t>(sell.slice_width[s]) * c;
  detail::exclusive_scan_inplace(sell.slice_offset);

  // Per slice: 16-bit or 32-bit, then each kind's offsets by two prefix sums.
  sell.slice_col_base.assign(static_cast<std::size_t>(slices), -1);
  if (index == SellIndex::delta16) {
#pragma omp parallel for schedule(guided)
    for (std::int64_t s = 0; s < slices; ++s) sell.slice_col_base[s] = delta16_base(csr, sell.perm, s, c);
  }
  sell.slice_col_offset.assign(static_cast<std::size_t>(slices), 0);
  std::int64_t n16 = 0, n32 = 0;
  for (std::int64_t s = 0; s < slices; ++s) {
    const std::int64_t n = static_cast<std::int64_t>(sell.slice_width[s]) * c;
    std::int64_t& run = sell.slice_col_base[s] >= 0 ? n16 : n32;
    sell.slice_col_offset[s] = run;
    run += n;
  }
  sell.col_delta16.resize(static_cast<std::size_t>(n16));
  sell.col_idx32.resize(static_cast<std::size_t>(n32));
  sell.values.resize(static_cast<std::size_t>(slots));
  sell.row_length.resize(static_cast<std::size_t>(rows));

#pragma omp parallel for schedule(guided)
  for (std::int64_t s = 0; s < slices; ++s) {
    const std::int64_t w = sell.slice_width[s], voff = sell.slice_offset[s], coff = sell.slice_col_offset[s];
    const std::int32_t base = sell.slice_col_base[s];
    for (std::int64_t r = 0; r < c; ++r) {
      const std::int64_t i = s * c + r;
      std::int64_t b = 0, len = 0;
      if (i < rows) {
        const std::int64_t row = sell.perm.empty() ? i : sell.perm[i];
        b = csr.row_ptr[row];
        len = csr.row_ptr[row + 1] - b;
        sell.row_length[row] = static_cast<std::int32_t>(len);
      }
      std::int64_t previous = base;  // 16-bit chain: column(k-1, r), starting at the base
      const std::int32_t pad_col = len > 0 ? csr.col_idx[b + len - 1] : 0;
      for (std::int64_t k = 0; k < w; ++k) {
        const std::int64_t at = k * c + r;
        const std::int32_t col = k < len ? csr.col_idx[b + k] : (len > 0 || base < 0 ? pad_col : base);
        sell.values[voff + at] = k < len ? csr.values[b + k] : T(0);
        if (base >= 0) {
          sell.col_delta16[coff + at] = static_cast<std::uint16_t>(col - previous);
          previous = col;
        } else {
          sell.col_idx32[coff + at] = col;
        }
      }
    }
  }
  return sell;
}

template <class T>
Csr<T> sell_to_csr(const Sell<T>& sell) {
  Csr<T> csr = detail::csr_from_row_lengths<T>(sell.rows, sell.cols, sell.row_length);
  const int c = sell.slice_height;
  const std::int64_t slices = sell.slices();
#pragma omp parallel for schedule(guided)
  for (std::int64_t s = 0; s < slices; ++s) {
    const std::int64_t voff = sell.slice_offset[s], coff = sell.slice_col_offset[s];
    const std::int32_t base = sell.slice_col_base[s];
    for (std::int64_t r = 0; r < c && s * c + r < sell.rows; ++r) {
      const std::int64_t i = s * c + r;
      const std::int64_t row = sell.perm.empty() ? i : sell.perm[i];
      const std::int64_t b = csr.row_ptr[row], len = csr.row_ptr[row + 1] - b;
      std::int64_t col = base;
      for (std::int64_t k = 0; k < len; ++k) {
        const std::int64_t at = k * c + r;
        col = base >= 0 ? col + sell.col_delta16[coff + at] : sell.col_idx32[coff + at];
        csr.col_idx[b + k] = static_cast<std::int32_t>(col);
        csr.values[b + k] = sell.values[voff + at];
      }
    }
  }
  return csr;
}

template struct Sell<float>;
template struct Sell<double>;
template Sell<float> csr_to_sell(const Csr<float>&, SellIndex, int, int, const FormatLimits&);
template Sell<double> csr_to_sell(const Csr<double>&, SellIndex, int, int, const FormatLimits&);
template SellShape sell_shape(const Csr<float>&, int, int);
template SellShape sell_shape(const Csr<double>&, int, int);
template Csr<float> sell_to_csr(const Sell<float>&);
template Csr<double> sell_to_csr(const Sell<double>&);

}  // namespace spkit
