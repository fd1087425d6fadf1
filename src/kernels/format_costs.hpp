#pragma once
// Cost models of the DIA kernels and of the bmSparse + CSR-remainder kernel (KernelInfo::cost): the
// bytes one product moves in the kernel's own format, from MatrixStats alone, and the efficiency the
// caller measured for that kernel. Host code, shared by the CPU (.cpp) and CUDA (.cu) registrations.
#include <cstdint>

#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"

namespace spkit {

// DIA: `stored` diagonals (all, or the d >= 0 half when `symmetric`) x rows (padded to tile_rows when
// > 0) values + 64-bit offsets, x and y. Not applicable on an empty matrix, a non-symmetric one when
// `symmetric`, or when the diagonals would move more than kDiaKernelMaxBytesRatio x CSR.
CostEstimate dia_cost(const MatrixStats& s, Precision p, bool symmetric, std::int64_t tile_rows, double efficiency,
                      double launch_us);

// bmSparse + CSR remainder: 8x8 blocks holding at least this many non-zeros stay blocks; the others'
// entries go to a CSR remainder. Bytes decide it: a block costs 12 bytes (32-bit block column +
// 64-bit bitmap) in place of 4 bytes of column index per entry, so it pays from 4 entries on.
inline constexpr int kBmDenseBlockMinNnz = 4;

// Bytes of that split from the block histogram of MatrixStats, and whether the dense blocks carry
// at least `min_dense_share` of the non-zeros (below it the kernel is pointless: a CSR kernel wins).
struct BmSplitBytes {
  std::int64_t dense_blocks = 0, dense_nnz = 0, remainder_nnz = 0;
  std::uint64_t bytes = 0;  // one product: blocks, values, block-row pointers, remainder CSR, x, y
};
BmSplitBytes bmsparse_split_bytes(const MatrixStats& s, Precision p);
CostEstimate bmsparse_split_cost(const MatrixStats& s, Precision p, double min_dense_share, double efficiency,
                                 double launch_us);

}  // namespace spkit
