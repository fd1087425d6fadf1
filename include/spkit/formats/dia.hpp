#pragma once
// DIA (diagonal storage) for stencils and bands: the distinct diagonals d = col - row that hold an
// entry, each stored densely over all rows (zeros where the diagonal has no entry or leaves the
// matrix), so a product reads values and x unit-stride and no index at all.
//
// Symmetric variant: a square matrix with a_ij == a_ji exactly for every stored entry keeps only its
// diagonals d >= 0; the mirror is read back as a_{i,i-d} = a_{i-d,i}, i.e. slot i - d of diagonal d.
//
// Layout: untiled (tile_rows == 0): value of diagonal k at row i sits at k * rows + i (a GPU thread
// per row reads each diagonal coalesced). Tiled (tile_rows = t > 0): rows padded to a multiple of t,
// tile by tile, each tile's diagonals one after the other: ((i / t) * diagonals + k) * t + i % t, so a
// CPU thread streams one tile as a single sequential block.
#include <cstdint>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/formats/format_common.hpp"

namespace spkit {

template <class T>
struct Dia {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;        // entries of the CSR it was built from (zeros in slots excluded)
  bool symmetric = false;      // only diagonals d >= 0 stored; square matrix, mirror implied
  std::int64_t tile_rows = 0;  // 0: untiled [diagonal][row]; t: [tile][diagonal][row in tile]
  std::vector<std::int64_t> offsets;  // ascending; symmetric: all >= 0
  std::vector<T> values;              // diagonals() * padded_rows() slots

  std::int64_t diagonals() const { return static_cast<std::int64_t>(offsets.size()); }
  std::int64_t padded_rows() const { return tile_rows > 0 ? (rows + tile_rows - 1) / tile_rows * tile_rows : rows; }
  // Slot of row i on the k-th stored diagonal (column i + offsets[k]).
  std::size_t index(std::int64_t k, std::int64_t i) const {
    if (tile_rows == 0) return static_cast<std::size_t>(k * rows + i);
    return static_cast<std::size_t>(((i / tile_rows) * diagonals() + k) * tile_rows + i % tile_rows);
  }
  // Bytes a product reads of the matrix: every slot (padding and zeros included) and the offsets.
  std::size_t memory_bytes() const { return values.size() * sizeof(T) + offsets.size() * sizeof(std::int64_t); }
};

struct DiaOptions {
  bool symmetric = false;        // store half: requires an exactly symmetric square matrix (else NotApplicable)
  std::int64_t tile_rows = 0;    // see Dia::tile_rows
  // Refuse (NotApplicable) when DIA's bytes (Dia::memory_bytes) exceed this multiple of the CSR arrays'
  // bytes (64-bit row_ptr, 32-bit col_idx, values): dense diagonals that are mostly padding.
  double max_bytes_ratio = 2.0;
};

// The DIA kernels refuse a matrix whose diagonals would move more bytes than its CSR: no DIA kernel
// can then beat a CSR kernel, so running one is pointless.
inline constexpr double kDiaKernelMaxBytesRatio = 1.0;

// What a DIA of this matrix would hold, computed without building it (O(nnz), one flag per diagonal).
struct DiaShape {
  std::int64_t diagonals = 0;       // distinct col - row offsets (all of them, both signs)
  std::int64_t stored_diagonals = 0;  // those DIA would store (d >= 0 only when symmetric)
  std::uint64_t bytes = 0;          // Dia::memory_bytes() of the result
  std::uint64_t csr_bytes = 0;      // CSR arrays of the same matrix, for the ratio
};
template <class T>
DiaShape dia_shape(const Csr<T>& csr, const DiaOptions& options);
// Throws NotApplicable (naming the bytes) when `shape` exceeds options.max_bytes_ratio x CSR.
void check_dia_worthwhile(const DiaShape& shape, const DiaOptions& options, std::int64_t rows);

// CSR -> DIA. Throws NotApplicable when options.symmetric and the matrix is not exactly symmetric, or
// when the diagonals would exceed max_bytes_ratio x CSR; TooLarge over the memory budget. Duplicate
// entries are summed.
template <class T>
Dia<T> csr_to_dia(const Csr<T>& csr, const DiaOptions& options = {}, const FormatLimits& limits = {});
// DIA -> CSR: every non-zero slot inside the matrix (a CSR entry stored as an explicit 0.0 does not come back).
template <class T>
Csr<T> dia_to_csr(const Dia<T>& dia);

}  // namespace spkit
