#pragma once
// SELL-C-sigma (Kreutzer et al.): rows sorted by length (descending, stable) within windows of sigma
// rows, then cut into slices of C rows; each slice is an ELLPACK block as wide as its longest row,
// stored column-major, with optionally compressed column indices.
//
// Exact layout (n_slices = ceil(rows / C); every slice has C slots per column, the last one included):
//   perm[i]              CSR row held by slice row i (i = slice * C + r); empty = identity. The sort is
//                        kept only when it removes at least one padded slot per two rows (else sigma = 1):
//                        a permutation costs 4 bytes per row and writes y out of order.
//   slice_offset[s]      start of slice s in `values` (n_slices + 1 entries, 64-bit); = sum of C * width
//   slice_width[s]       the longest row of slice s (32-bit)
//   values[slice_offset[s] + k * C + r]   element k of slice row r; padding: value 0
//   Column indices, per slice either
//     32-bit:  slice_col_base[s] == -1; column of (k, r) = col_idx32[slice_col_offset[s] + k * C + r]
//     16-bit:  slice_col_base[s] >= 0;  d(k, r) = col_delta16[slice_col_offset[s] + k * C + r] (unsigned) and
//              column(0, r) = slice_col_base[s] + d(0, r), column(k, r) = column(k-1, r) + d(k, r):
//              a per-row chain of deltas starting from a 32-bit base per slice (the smallest first column
//              of its rows). A slice is 16-bit when every such delta is <= 65535, else it falls back to 32-bit.
//     Padding repeats the row's last column (delta 0; column 0 for an empty row), so a padded slot
//     gathers an x element that is already cached.
//   With SellIndex::c32 every slice is 32-bit; with SellIndex::delta16 each slice is 16-bit where it fits.
// Rows of slice row i >= rows (the last slice's tail) are padding too: width slots, never written to y.
#include <cstdint>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/formats/format_common.hpp"

namespace spkit {

enum class SellIndex { c32, delta16 };

constexpr int kSellDefaultSliceHeight = 32;
// Sorting window: 32 slices. Wide enough to group a power-law matrix's long rows (padding falls from
// ~5x unsorted to ~1.3x), narrow enough that y writes and x gathers keep their locality (a window of
// 1024 rows of y is 8 KB) and that 16-bit deltas still fit on stencils (first columns of a slice's
// rows stay within sigma + the stencil's reach of each other).
constexpr int kSellDefaultSigma = 1024;

template <class T>
struct Sell {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;  // true non-zeros
  int slice_height = kSellDefaultSliceHeight;  // C
  int sigma = 1;                               // sorting window used (1: no sorting)
  SellIndex index = SellIndex::c32;
  std::vector<std::int32_t> perm;               // rows, or empty for the identity
  std::vector<std::int64_t> slice_offset;       // slices + 1
  std::vector<std::int32_t> slice_width;        // slices
  std::vector<std::int32_t> slice_col_base;     // slices: -1 (32-bit slice) or the 16-bit slice's base column
  std::vector<std::int64_t> slice_col_offset;   // slices: start of the slice in col_delta16 or col_idx32
  std::vector<std::uint16_t> col_delta16;
  std::vector<std::int32_t> col_idx32;
  std::vector<T> values;
  std::vector<std::int32_t> row_length;  // CSR row lengths, for the way back only (never read by a kernel)

  std::int64_t slices() const { return static_cast<std::int64_t>(slice_width.size()); }
  std::int64_t slots() const { return static_cast<std::int64_t>(values.size()); }  // padded entries
  std::int64_t slices_16bit() const;
  // Bytes a product reads from the format: every array except row_length (padding included).
  std::uint64_t spmv_bytes() const;
  // Bytes of every array, row_length included.
  std::uint64_t bytes() const { return spmv_bytes() + row_length.size() * sizeof(std::int32_t); }
};

// Throws spkit::Error for slice_height < 1 or sigma < 1, and spkit::TooLarge when the padded arrays
// exceed the budget (checked before anything large is allocated) or rows exceed 2^31 - 1 (32-bit perm).
template <class T>
Sell<T> csr_to_sell(const Csr<T>& csr, SellIndex index, int slice_height = kSellDefaultSliceHeight,
                    int sigma = kSellDefaultSigma, const FormatLimits& limits = {});
template <class T>
Csr<T> sell_to_csr(const Sell<T>& sell);

// Shape of SELL-C-sigma for a matrix without building it: padded slots (rows of the last slice's
// tail included) and the slots of slices whose column deltas fit 16 bits. What MatrixStats reports
// and the cost models read.
struct SellShape {
  std::int64_t slots = 0;
  std::int64_t slots_16bit = 0;
  bool permuted = false;  // the window sort was kept (a 32-bit permutation is stored)
};
template <class T>
SellShape sell_shape(const Csr<T>& csr, int slice_height = kSellDefaultSliceHeight, int sigma = kSellDefaultSigma);

}  // namespace spkit
