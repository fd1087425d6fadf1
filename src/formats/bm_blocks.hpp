#pragma once
// The walk over the 8x8 blocks of one block row of a CSR matrix (sorted columns), shared by the bmSparse
// conversion, the GPU bmSparse + CSR-remainder split and the block statistics: an 8-way merge of the
// block row's rows by block column, O(entries + 8 * blocks). The same walk at 2..4 builds cpu.bsr.omp's blocks.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "spkit/formats/csr.hpp"

namespace spkit::detail {

constexpr int kBmBlockDim = 8;

// Calls on_block(block_col, rows_in_block_row, run_begin, run_end) for each non-empty dim x dim block
// (dim <= 8) of block row `block_row`, in increasing block column: row r's entries of that block are
// [run_begin[r], run_end[r]). 8x8 for bmSparse; 2..4 for the dense dof blocks of BSR.
template <class T, class OnBlock>
void for_each_block(const Csr<T>& csr, int dim, std::int64_t block_row, OnBlock&& on_block) {
  const std::int64_t r0 = block_row * dim, r1 = std::min<std::int64_t>(csr.rows, r0 + dim);
  std::int64_t pos[kBmBlockDim], end[kBmBlockDim];
  const int nr = static_cast<int>(r1 - r0);
  for (int r = 0; r < nr; ++r) pos[r] = csr.row_ptr[r0 + r], end[r] = csr.row_ptr[r0 + r + 1];
  for (;;) {
    std::int64_t bc = std::numeric_limits<std::int64_t>::max();
    for (int r = 0; r < nr; ++r)
      if (pos[r] < end[r]) bc = std::min<std::int64_t>(bc, csr.col_idx[pos[r]] / dim);
    if (bc == std::numeric_limits<std::int64_t>::max()) return;
    std::int64_t run_begin[kBmBlockDim], run_end[kBmBlockDim];
    for (int r = 0; r < nr; ++r) {
      run_begin[r] = pos[r];
      while (pos[r] < end[r] && csr.col_idx[pos[r]] / dim == bc) ++pos[r];
      run_end[r] = pos[r];
    }
    on_block(bc, nr, run_begin, run_end);
  }
}

// Non-empty dim x dim blocks per block row (OpenMP over block rows): the BSR kernels' block counts.
template <class T>
std::vector<std::int64_t> blocks_per_block_row(const Csr<T>& a, int dim, int threads) {
  const std::int64_t block_rows = (a.rows + dim - 1) / dim;
  std::vector<std::int64_t> count(static_cast<std::size_t>(block_rows), 0);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256)
  for (std::int64_t br = 0; br < block_rows; ++br)
    for_each_block(a, dim, br, [&](std::int64_t, int, const std::int64_t*, const std::int64_t*) { ++count[br]; });
  return count;
}

template <class T, class OnBlock>
void for_each_bm_block(const Csr<T>& csr, std::int64_t block_row, OnBlock&& on_block) {
  for_each_block(csr, kBmBlockDim, block_row, std::forward<OnBlock>(on_block));
}

}  // namespace spkit::detail
