// CSR <-> bmSparse (seed 003): 8x8 blocks, one 64-bit key and one MSB-first bitmap per non-empty block,
// the block's values packed row-major. Each block row is built by an 8-way merge of its (sorted) CSR
// rows, in parallel over block rows: O(nnz + 8 * blocks).
#include "spkit/formats/bmsparse.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "formats/bm_blocks.hpp"
#include "formats/convert_util.hpp"

namespace spkit {

namespace {
constexpr int kDim = 8;

using detail::for_each_bm_block;
}  // namespace

template <class T>
BmSparse<T> csr_to_bmsparse(const Csr<T>& csr, const FormatLimits& limits) {
  BmSparse<T> bm;
  const std::int64_t rows = detail::safe_rows(csr);
  bm.rows = rows;
  bm.cols = csr.cols;
  const std::int64_t brows = bm.block_rows();
  // Pass 1: blocks per block row.
  std::vector<std::int64_t> block_row_ptr(static_cast<std::size_t>(brows) + 1, 0);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t br = 0; br < brows; ++br) {
    std::int64_t n = 0;
    for_each_bm_block(csr, br, [&](std::int64_t, int, const std::int64_t*, const std::int64_t*) { ++n; });
    block_row_ptr[br] = n;
  }
  const std::int64_t blocks = detail::exclusive_scan_inplace(block_row_ptr);
  const std::int64_t nnz = csr.nnz();
  const std::uint64_t needed = detail::add_sat(
      detail::mul_sat(static_cast<std::uint64_t>(blocks), 3 * sizeof(std::uint64_t)) + sizeof(std::int64_t),
      detail::mul_sat(static_cast<std::uint64_t>(nnz), sizeof(T)) +
          static_cast<std::uint64_t>(brows + 1) * sizeof(std::int64_t));
  detail::check_budget("bmSparse with " + std::to_string(blocks) + " 8x8 blocks", needed, limits);
  bm.keys.resize(static_cast<std::size_t>(blocks));
  bm.bitmaps.resize(static_cast<std::size_t>(blocks));
  bm.offsets.resize(static_cast<std::size_t>(blocks) + 1);
  bm.values.resize(static_cast<std::size_t>(nnz));
  bm.block_row_ptr = std::move(block_row_ptr);
  // Pass 2: fill. A block row's values start at the CSR offset of its first row, since the block row
  // holds exactly the entries of its 8 rows.
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t br = 0; br < brows; ++br) {
    std::int64_t blk = bm.block_row_ptr[br];
    std::int64_t out = csr.row_ptr[br * kDim];
    for_each_bm_block(csr, br, [&](std::int64_t bc, int nr, const std::int64_t* rb, const std::int64_t* re) {
      std::uint64_t bitmap = 0;
      bm.offsets[blk] = out;
      for (int r = 0; r < nr; ++r)
        for (std::int64_t k = rb[r]; k < re[r]; ++k) {
          const int c = csr.col_idx[k] % kDim;
          bitmap |= std::uint64_t{1} << (63 - (kDim * r + c));
          bm.values[out++] = csr.values[k];
        }
      bm.keys[blk] = (static_cast<std::uint64_t>(br) << 32) | static_cast<std::uint64_t>(bc);
      bm.bitmaps[blk] = bitmap;
      ++blk;
    });
  }
  bm.offsets[blocks] = nnz;
  return bm;
}

template <class T>
Csr<T> bmsparse_to_csr(const BmSparse<T>& bm) {
  Csr<T> csr;
  csr.rows = bm.rows;
  csr.cols = bm.cols;
  const std::int64_t brows = bm.block_rows();
  csr.row_ptr.assign(static_cast<std::size_t>(bm.rows) + 1, 0);
  // Row lengths: popcount of each block's byte for that row.
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t br = 0; br < brows; ++br)
    for (std::int64_t b = bm.block_row_ptr[br]; b < bm.block_row_ptr[br + 1]; ++b)
      for (int r = 0; r < kDim && br * kDim + r < bm.rows; ++r)
        csr.row_ptr[br * kDim + r] += __builtin_popcountll((bm.bitmaps[b] >> (56 - kDim * r)) & 0xffu);
  const std::int64_t nnz = detail::exclusive_scan_inplace(csr.row_ptr);
  csr.col_idx.resize(static_cast<std::size_t>(nnz));
  csr.values.resize(static_cast<std::size_t>(nnz));
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t br = 0; br < brows; ++br)
    for (int r = 0; r < kDim && br * kDim + r < bm.rows; ++r) {
      std::int64_t out = csr.row_ptr[br * kDim + r];
      for (std::int64_t b = bm.block_row_ptr[br]; b < bm.block_row_ptr[br + 1]; ++b) {
        const std::uint64_t bitmap = bm.bitmaps[b];
        const unsigned row_bits = static_cast<unsigned>((bitmap >> (56 - kDim * r)) & 0xffu);
        // Values of rows above r in this block come first.
        std::int64_t v = bm.offsets[b] + (r == 0 ? 0 : __builtin_popcountll(bitmap >> (64 - kDim * r)));
        const std::int64_t c0 = BmSparse<T>::key_col(bm.keys[b]) * kDim;
        for (int c = 0; c < kDim; ++c)
          if (row_bits & (0x80u >> c)) {
            csr.col_idx[out] = static_cast<std::int32_t>(c0 + c);
            csr.values[out] = bm.values[v++];
            ++out;
          }
      }
    }
  return csr;
}

template BmSparse<float> csr_to_bmsparse(const Csr<float>&, const FormatLimits&);
template BmSparse<double> csr_to_bmsparse(const Csr<double>&, const FormatLimits&);
template Csr<float> bmsparse_to_csr(const BmSparse<float>&);
template Csr<double> bmsparse_to_csr(const BmSparse<double>&);

}  // namespace spkit
