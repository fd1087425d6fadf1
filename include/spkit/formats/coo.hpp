#pragma once
// COO: one (row, col, value) triple per stored entry, 0-based.
#include <cstdint>
#include <vector>

namespace spkit {

template <class T>
struct Coo {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int32_t> row_idx;  // 32-bit indices: rows and cols are checked < 2^31 on creation
  std::vector<std::int32_t> col_idx;
  std::vector<T> values;

  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
  std::size_t memory_bytes() const {
    return row_idx.size() * sizeof(std::int32_t) + col_idx.size() * sizeof(std::int32_t) + values.size() * sizeof(T);
  }
};

}  // namespace spkit
