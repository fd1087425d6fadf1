#pragma once
// Short rows for the row-major CPU SpMM (src/spmm/cpu/csr.cpp): slices of kSliceRows rows whose
// non-zeros are interleaved and padded to the slice's longest row, as in Kreutzer et al.'s SELL-C-sigma
// (SIAM J. Sci. Comput. 2014), rows sorted by length within windows of kSliceSortWindow rows so that a
// slice's rows are about as long as each other.
//
// Why: where rows hold a few non-zeros at scattered columns (road graphs, random, power-law: 3-8 per
// row), the row-by-row tiles spend most of a row on its own loop: the exit branch of a 3-5 trip loop is
// mispredicted about once per row, and each misprediction discards the gathers of X issued past it, so
// the product runs at the latency of one row's gathers. A slice runs kSliceRows rows in lockstep: one
// loop exit per slice, kSliceRows independent accumulators (no partial-sum reduction), and its
// gathers all in flight together. Padding entries repeat the row's last column with value 0 (X's row
// is then already in cache). Rows longer than kSliceMaxRow (the hubs of a power-law graph) are left
// out of the slices, so one long row does not pad seven short ones, and run through the row tiles.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/cpu/cpu_common.hpp"
#include "spmm/cpu/spmm_tiles.hpp"
#include "spkit/formats/csr.hpp"

namespace spkit::cpu::spmm {

inline constexpr int kSliceRows = 8;
// Rows sorted within windows of 4096 (1% padding on power-law at 2M non-zeros, 30% with 256): Y's rows
// of one window still span at most 4096 * 64 bytes, in L2.
inline constexpr std::int64_t kSliceSortWindow = 4096;
inline constexpr std::int64_t kSliceMaxRow = 128;
// Column-major slices at 32- and 64-byte tiles only where rows are this short on average: on FEM and
// stencil rows (26-42 non-zeros) the row tiles, with their 16-bit diagonal offsets, were as fast there.
inline constexpr double kSliceMaxMeanRow = 16;
// Row-major slices at 32- and 64-byte tiles only where rows are this short on average (use_slices).
inline constexpr double kSliceRowMajorMaxMeanRow = 4;

template <class T>
struct SlicedRows {
  std::vector<std::int64_t> slice_ptr{0};  // slice s: entries [slice_ptr[s], slice_ptr[s + 1]), kSliceRows per step
  std::vector<std::int32_t> row;           // Y's row of each slot (kSliceRows per slice), -1: none
  std::vector<std::int32_t> col;
  std::vector<T> val;
  std::vector<std::int64_t> long_rows;     // rows over kSliceMaxRow, run row by row
  std::vector<std::int64_t> slice_cut{0};  // the slices of each thread, balanced by stored entries
  std::vector<std::int64_t> long_cut{0};   // the long rows of each thread, balanced by non-zeros
  // Padding entries per non-zero of the slices, in percent.
  int padding_percent(const Csr<T>& a) const {
    std::int64_t in_long = 0;
    for (std::int64_t i : long_rows) in_long += a.row_ptr[i + 1] - a.row_ptr[i];
    const std::int64_t real = a.nnz() - in_long;
    return real > 0 ? static_cast<int>(100 * (slice_ptr.back() - real) / real) : 0;
  }
  std::uint64_t bytes() const {
    return slice_ptr.size() * 8 + row.size() * 4 + col.size() * (4 + sizeof(T)) + long_rows.size() * 8;
  }
};

// Contiguous parts of [0, n) with about equal weight(i) sums (weight summed in `prefix`, n + 1 entries).
inline std::vector<std::int64_t> balanced_cut(const std::vector<std::int64_t>& prefix, int parts) {
  std::vector<std::int64_t> cut{0};
  const std::int64_t n = static_cast<std::int64_t>(prefix.size()) - 1;
  for (int p = 1; p < parts; ++p) {
    const std::int64_t target = prefix[n] * p / parts;
    const std::int64_t i = std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin();
    cut.push_back(std::clamp(i, cut.back(), n));
  }
  cut.push_back(n);
  return cut;
}

template <class T>
SlicedRows<T> make_sliced_rows(const Csr<T>& a, int threads) {
  SlicedRows<T> s;
  const auto len = [&](std::int64_t i) { return a.row_ptr[i + 1] - a.row_ptr[i]; };
  // Slots in slice order: each window's short rows, longest first, then empty slots (-1) up to a whole
  // slice, so that no slice holds rows of two windows.
  std::vector<std::int32_t> order;
  std::vector<std::int64_t> long_prefix{0}, window_first_slice{0};
  for (std::int64_t w0 = 0; w0 < a.rows; w0 += kSliceSortWindow) {
    const std::int64_t w1 = std::min(a.rows, w0 + kSliceSortWindow);
    const std::size_t first = order.size();
    for (std::int64_t i = w0; i < w1; ++i) {
      if (len(i) > kSliceMaxRow) {
        s.long_rows.push_back(i);
        long_prefix.push_back(long_prefix.back() + len(i));
      } else {
        order.push_back(static_cast<std::int32_t>(i));
      }
    }
    std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(first), order.end(),
                     [&](std::int32_t x, std::int32_t y) { return len(x) > len(y); });
    while (order.size() % kSliceRows != 0) order.push_back(-1);
    window_first_slice.push_back(static_cast<std::int64_t>(order.size()) / kSliceRows);
  }
  const std::int64_t slices = static_cast<std::int64_t>(order.size()) / kSliceRows;
  for (std::int64_t sl = 0; sl < slices; ++sl) {
    std::int64_t width = 0;
    for (std::int64_t r = sl * kSliceRows; r < (sl + 1) * kSliceRows; ++r)
      if (order[r] >= 0) width = std::max(width, len(order[r]));
    s.slice_ptr.push_back(s.slice_ptr.back() + width * kSliceRows);
  }
  s.row.assign(static_cast<std::size_t>(slices * kSliceRows), -1);
  s.col.assign(static_cast<std::size_t>(s.slice_ptr.back()), 0);
  s.val.assign(static_cast<std::size_t>(s.slice_ptr.back()), T(0));
  for (std::int64_t sl = 0; sl < slices; ++sl) {
    const std::int64_t width = (s.slice_ptr[sl + 1] - s.slice_ptr[sl]) / kSliceRows;
    for (int r = 0; r < kSliceRows; ++r) {
      const std::int64_t slot = sl * kSliceRows + r;
      if (order[slot] < 0) break;  // a window's last slice: empty slots at its end
      const std::int64_t i = order[slot], b = a.row_ptr[i], n = len(i);
      s.row[slot] = static_cast<std::int32_t>(i);
      for (std::int64_t q = 0; q < width; ++q) {
        const std::int64_t at = s.slice_ptr[sl] + q * kSliceRows + r;
        // Padding: the row's last column again (in cache), value 0; an empty row reads X's row 0.
        s.col[at] = n == 0 ? 0 : a.col_idx[b + std::min(q, n - 1)];
        s.val[at] = q < n ? a.values[b + q] : T(0);
      }
    }
  }
  // Threads take whole windows where there are enough of them, so that no line of Y has rows of two
  // threads; else whole slices.
  const std::int64_t windows = static_cast<std::int64_t>(window_first_slice.size()) - 1;
  if (windows >= 4 * static_cast<std::int64_t>(threads)) {
    std::vector<std::int64_t> window_prefix;
    for (std::int64_t w : window_first_slice) window_prefix.push_back(s.slice_ptr[w]);
    for (std::int64_t w : balanced_cut(window_prefix, threads)) s.slice_cut.push_back(window_first_slice[w]);
    s.slice_cut.erase(s.slice_cut.begin());  // the {0} it starts with
  } else {
    s.slice_cut = balanced_cut(s.slice_ptr, threads);
  }
  s.long_cut = balanced_cut(long_prefix, threads);
  return s;
}

// Y's rows of slices [s0, s1): one vector of TB bytes per row (k * sizeof(T) == TB), kSliceRows rows at
// a time. X row-major (or a row-major panel of column-major X); Y row-major, or column-major (ColOut:
// Y(i, c) = y[c * ldy + i], k entries of a row written one by one; the rows of a slice are neighbours,
// so the lines they write are reused).
template <int TB, bool ColOut, class T, class Out>
void run_slices(const SlicedRows<T>& s, std::int64_t s0, std::int64_t s1, const T* __restrict x, std::int64_t ldx,
                T* y, std::int64_t ldy, Out out) {
  using V = typename VecOf<T, TB>::type;
  const std::int32_t* __restrict col = s.col.data();
  const T* __restrict val = s.val.data();
  for (std::int64_t sl = s0; sl < s1; ++sl) {
    V acc[kSliceRows];
    for (int r = 0; r < kSliceRows; ++r) acc[r] = V{};
    for (std::int64_t p = s.slice_ptr[sl]; p < s.slice_ptr[sl + 1]; p += kSliceRows)
      for (int r = 0; r < kSliceRows; ++r) {
        V xv;
        std::memcpy(&xv, x + static_cast<std::int64_t>(col[p + r]) * ldx, sizeof xv);
        acc[r] += val[p + r] * xv;
      }
    const std::int32_t* rows = s.row.data() + sl * kSliceRows;
    for (int r = 0; r < kSliceRows; ++r) {
      if (rows[r] < 0) break;  // empty slots only at the end of a window's last slice
      if constexpr (ColOut) {
        constexpr int L = TB / static_cast<int>(sizeof(T));
        for (int c = 0; c < L; ++c) out.write(y[c * ldy + rows[r]], acc[r][c]);
      } else {
        out.write_vec(y + static_cast<std::int64_t>(rows[r]) * ldy, acc[r]);
      }
    }
  }
}

// Whether the plan for k columns runs slices. A slice holds one vector per row (k * sizeof(T) of 16, 32 or
// 64 bytes). At 16 bytes (k = 4 floats, 2 doubles: one 128-bit FMA per non-zero, so a row's own loop
// costs as much as its products) slices beat the row tiles on every family in both layouts. At 32 and 64
// bytes column-major takes them on short rows (its row tiles go through a block buffer); row-major only
// on rows of at most kSliceRowMajorMaxMeanRow entries on average (road networks), where a row's loop exit
// still costs more than its few products: dev box, 1-2 threads, k = 4 doubles, road 2M 0.72 -> 1.3x MKL,
// road_planar numbered at random 8M 0.70 -> 0.9x, interleaved; on rows of 8-15 (random, geometric, rmat,
// power-law) they were 0-30% slower than the row tiles (docs/perf/spmm-cpu.md).
template <class T>
bool use_slices(const Csr<T>& a, std::int64_t k, bool column_major) {
  const std::int64_t row_bytes = k * static_cast<std::int64_t>(sizeof(T));
  if (a.rows == 0 || a.rows >= std::numeric_limits<std::int32_t>::max()) return false;
  if (row_bytes == 16) return true;
  if (row_bytes != 32 && row_bytes != 64) return false;
  const double mean_row = static_cast<double>(a.nnz()) / static_cast<double>(a.rows);
  return mean_row <= (column_major ? kSliceMaxMeanRow : kSliceRowMajorMaxMeanRow);
}

template <bool ColOut, class T, class Out>
void slices_dispatch(std::int64_t row_bytes, const SlicedRows<T>& s, std::int64_t s0, std::int64_t s1, const T* x,
                     std::int64_t ldx, T* y, std::int64_t ldy, Out out) {
  switch (row_bytes) {
    case 16: return run_slices<16, ColOut>(s, s0, s1, x, ldx, y, ldy, out);
    case 32: return run_slices<32, ColOut>(s, s0, s1, x, ldx, y, ldy, out);
    default: return run_slices<64, ColOut>(s, s0, s1, x, ldx, y, ldy, out);
  }
}

}  // namespace spkit::cpu::spmm
