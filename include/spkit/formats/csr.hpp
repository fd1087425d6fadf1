#pragma once
// CSR: row_ptr (rows+1, 64-bit offsets), col_idx (32-bit, sorted within each row), values.
// This is spkit's hub format: every other format converts from and back to it.
#include <cstdint>
#include <vector>

#include "spkit/formats/coo.hpp"

namespace spkit {

template <class T>
struct Csr {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> row_ptr;  // size rows + 1, row_ptr[0] == 0
  std::vector<std::int32_t> col_idx;  // size nnz
  std::vector<T> values;              // size nnz

  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
  std::int64_t row_length(std::int64_t row) const { return row_ptr[row + 1] - row_ptr[row]; }
  std::size_t memory_bytes() const {
    return row_ptr.size() * sizeof(std::int64_t) + col_idx.size() * sizeof(std::int32_t) + values.size() * sizeof(T);
  }
};

// COO -> CSR in O(nnz) by counting sort over rows, then columns sorted within each row;
// duplicate (row, col) entries are summed. Parallel (OpenMP). Throws spkit::Error when the matrix
// is too large for 32-bit column indices.
template <class T>
Csr<T> coo_to_csr(const Coo<T>& coo, bool sum_duplicates = true);

// CSR -> COO (row-major order).
template <class T>
Coo<T> csr_to_coo(const Csr<T>& csr);

// Value-type conversion (e.g. the float copy of a double matrix), same structure.
template <class To, class From>
Csr<To> csr_cast(const Csr<From>& csr);

// Throws spkit::Error if the structure is inconsistent (pointer sizes, monotone row_ptr, columns in
// range and strictly increasing within rows). Used by loaders and tests.
template <class T>
void check_csr(const Csr<T>& csr);

// a_ij == a_ji bit-for-bit for every stored entry (and the pattern symmetric); false when not square.
template <class T>
bool is_exactly_symmetric(const Csr<T>& csr);

}  // namespace spkit
