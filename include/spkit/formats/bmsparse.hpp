#pragma once
// bmSparse (seed 003): the matrix cut into 8x8 blocks; for each non-empty block a 64-bit key
// (block row << 32 | block column), a 64-bit bitmap, and its non-zero values packed row-major.
// Bitmap convention (as the seed): element e = 8*r + c of a block is present iff bit (63 - e) is set,
// i.e. bits are read from the most significant end. Blocks are sorted by (block row, block column).
#include <cstdint>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/formats/format_common.hpp"

namespace spkit {

template <class T>
struct BmSparse {
  static constexpr int block_dim = 8;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::uint64_t> keys;           // n_blocks
  std::vector<std::uint64_t> bitmaps;        // n_blocks
  std::vector<std::int64_t> offsets;         // n_blocks + 1: start of each block's values
  std::vector<T> values;                     // nnz, packed
  std::vector<std::int64_t> block_row_ptr;   // block_rows + 1: first block of each block row

  std::int64_t blocks() const { return static_cast<std::int64_t>(keys.size()); }
  std::int64_t block_rows() const { return (rows + 7) / 8; }
  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
  static std::int64_t key_row(std::uint64_t key) { return static_cast<std::int64_t>(key >> 32); }
  static std::int64_t key_col(std::uint64_t key) { return static_cast<std::int64_t>(key & 0xffffffffu); }
  static bool has(std::uint64_t bitmap, int e) { return (bitmap >> (63 - e)) & 1u; }
  std::size_t memory_bytes() const {
    return keys.size() * 8 + bitmaps.size() * 8 + offsets.size() * 8 + values.size() * sizeof(T) +
           block_row_ptr.size() * 8;
  }
};

template <class T>
BmSparse<T> csr_to_bmsparse(const Csr<T>& csr, const FormatLimits& limits = {});
template <class T>
Csr<T> bmsparse_to_csr(const BmSparse<T>& bm);

}  // namespace spkit
