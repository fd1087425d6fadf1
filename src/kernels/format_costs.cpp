// Cost models of the DIA and bmSparse + CSR-remainder kernels (see format_costs.hpp).
#include "kernels/format_costs.hpp"

#include <string>

#include "spkit/formats/dia.hpp"

namespace spkit {

// Cost models (read by the auto-selector). Bytes: DIA's own arrays from MatrixStats (diagonals x
// padded rows), x and y. Efficiency: the fraction of the dev box's copy bandwidth these kernels reached
// (docs/perf/cpu.md, docs/perf/cuda-dia-bm.md); symmetric: the mirror read comes back from cache.
CostEstimate dia_cost(const MatrixStats& s, Precision p, bool symmetric, std::int64_t tile_rows, double efficiency,
                      double launch_us) {
  CostEstimate c;
  const std::uint64_t vb = p == Precision::f64 ? 8 : 4;
  if (s.rows == 0 || s.nnz == 0) {
    c.note = "empty matrix";
    return c;
  }
  if (symmetric && !s.symmetric) {
    c.note = "not exactly symmetric";
    return c;
  }
  // A symmetric matrix's offsets come in pairs +-d; the main diagonal is counted in `diagonals` once.
  const std::int64_t stored = symmetric ? (s.diagonals + 1) / 2 : s.diagonals;
  const std::int64_t rows = tile_rows > 0 ? (s.rows + tile_rows - 1) / tile_rows * tile_rows : s.rows;
  const std::uint64_t dia_bytes = static_cast<std::uint64_t>(stored) * static_cast<std::uint64_t>(rows) * vb +
                                  static_cast<std::uint64_t>(stored) * 8;
  const std::uint64_t csr = p == Precision::f64 ? s.bytes_csr.f64 : s.bytes_csr.f32;
  if (static_cast<double>(dia_bytes) > kDiaKernelMaxBytesRatio * static_cast<double>(csr)) {
    c.note = "diagonals would move more bytes than CSR";
    return c;
  }
  c.applicable = true;
  c.bytes = dia_bytes + static_cast<std::uint64_t>(s.rows + s.cols) * vb;
  c.efficiency = efficiency;
  c.launch_us = launch_us;
  c.convert_bytes = csr + dia_bytes;
  c.note = std::to_string(stored) + " diagonals stored";
  return c;
}

BmSplitBytes bmsparse_split_bytes(const MatrixStats& s, Precision p) {
  const std::uint64_t vb = p == Precision::f64 ? 8 : 4;
  BmSplitBytes b;
  for (int k = kBmDenseBlockMinNnz; k <= 64; ++k) {
    b.dense_blocks += s.bm_block_histogram[k];
    b.dense_nnz += static_cast<std::int64_t>(k) * s.bm_block_histogram[k];
  }
  b.remainder_nnz = s.nnz - b.dense_nnz;
  const std::uint64_t block_rows = static_cast<std::uint64_t>((s.rows + 7) / 8);
  b.bytes = static_cast<std::uint64_t>(b.dense_nnz) * vb + static_cast<std::uint64_t>(b.dense_blocks) * 12 +
            (block_rows + 1) * 16 + static_cast<std::uint64_t>(b.remainder_nnz) * (4 + vb) +
            (b.remainder_nnz > 0 ? static_cast<std::uint64_t>(s.rows + 1) * 8 : 0) +
            static_cast<std::uint64_t>(s.rows + s.cols) * vb;
  return b;
}

CostEstimate bmsparse_split_cost(const MatrixStats& s, Precision p, double min_dense_share, double efficiency,
                                 double launch_us) {
  CostEstimate c;
  if (s.rows == 0 || s.nnz == 0) {
    c.note = "empty matrix";
    return c;
  }
  const BmSplitBytes b = bmsparse_split_bytes(s, p);
  const double share = static_cast<double>(b.dense_nnz) / static_cast<double>(s.nnz);
  if (share < min_dense_share) {
    c.note = "dense blocks hold " + std::to_string(static_cast<int>(100 * share)) + "% of the non-zeros";
    return c;
  }
  c.applicable = true;
  c.bytes = b.bytes;
  c.efficiency = efficiency;
  c.launch_us = launch_us;
  c.convert_bytes = (p == Precision::f64 ? s.bytes_csr.f64 : s.bytes_csr.f32) + b.bytes;
  c.note = std::to_string(static_cast<int>(100 * share)) + "% of non-zeros in blocks of >= " +
           std::to_string(kBmDenseBlockMinNnz);
  return c;
}

}  // namespace spkit
