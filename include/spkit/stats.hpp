#pragma once
// Matrix statistics: what `spkit info` prints and what the auto-selector reads.
#include <array>
#include <cstdint>

#include "spkit/formats/csr.hpp"

namespace spkit {

struct MatrixStats {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::int64_t row_nnz_min = 0, row_nnz_max = 0;
  double row_nnz_mean = 0, row_nnz_std = 0;
  std::int64_t empty_rows = 0;
  std::int64_t max_diag_distance = 0;  // max |col - row| over stored entries (the bandwidth)
  // DIA: distinct diagonals (col - row offsets) holding at least one entry, and whether the pattern and
  // values are exactly symmetric (a_ij == a_ji for every stored entry; square matrices only).
  std::int64_t diagonals = 0;
  bool symmetric = false;
  // Share of the non-zeros in the 1% most used columns (at least one): how much of x a few cache
  // lines could serve if those columns were numbered together (cuda.csr.binned_degree). ~0.01-0.05 for
  // uniform columns, 0.3+ for the hubs of skewed graphs.
  double hub_column_share = 0;
  // ELLPACK
  std::int64_t ell_width = 0;         // MAXNZ
  double ell_padding_ratio = 0;       // padded slots / nnz (0 = no padding)
  // HLL at `hack_size`
  int hack_size = 32;
  double hll_padding_ratio = 0;
  // HYB: ELL width K (the rule of hyb.hpp) and the entries beyond it (the COO part)
  std::int64_t hyb_width = 0;
  std::int64_t hyb_coo_entries = 0;
  // bmSparse 8x8
  std::int64_t bm_blocks = 0;
  double bm_nnz_per_block = 0;
  std::array<std::int64_t, 65> bm_block_histogram{};  // [k] = blocks with k non-zeros (k = 1..64)
  // Dense dof blocks: the b in 2..4 whose aligned b x b blocks move the fewest bytes, their count, and
  // the entries they store per non-zero (1.00: every block full, as in 3-dof FEM). cpu.bsr.omp's model.
  int bsr_block = 0;
  std::int64_t bsr_blocks = 0;
  double bsr_fill = 0;
  // SELL-C-sigma at C = 32, sigma = kSellDefaultSigma (formats/sell.hpp): padded slots / nnz - 1, and the
  // share of the slots in slices whose column deltas fit 16 bits (what cuda.sell.delta16 compresses)
  double sell_padding_ratio = 0;
  double sell_delta16_fraction = 0;
  bool sell_permuted = false;  // the sigma-window sort was kept (4 bytes per row of permutation)
  // bytes each format would take, fp64 values / fp32 values
  struct Bytes { std::uint64_t f64 = 0, f32 = 0; };
  Bytes bytes_coo, bytes_csr, bytes_ell, bytes_hll, bytes_hyb, bytes_bmsparse;
};

// Columns must be sorted within rows (the CSR contract). Parallel (OpenMP); O(nnz).
// Throws spkit::Error for hack_size < 1 or an inconsistent row_ptr.
MatrixStats compute_stats(const Csr<double>& a, int hack_size = 32);

}  // namespace spkit
