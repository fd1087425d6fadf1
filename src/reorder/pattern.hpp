#pragma once
// The symmetrized adjacency of a square pattern (A + A^T without the diagonal, each neighbour once),
// which the orderings work on.
#include <cstdint>
#include <string>
#include <vector>

namespace spkit::reorder_detail {

struct Adjacency {
  std::int64_t n = 0;
  std::vector<std::int64_t> offsets;      // n + 1
  std::vector<std::int32_t> neighbours;   // sorted, unique within each vertex
  std::int64_t degree(std::int64_t v) const { return offsets[v + 1] - offsets[v]; }
};

Adjacency symmetrized(std::int64_t n, const std::vector<std::int64_t>& row_ptr, const std::vector<std::int32_t>& col_idx);

// Throws NotApplicable unless rows == cols, and spkit::Error beyond 32-bit vertex numbers.
void require_square(std::int64_t rows, std::int64_t cols, const std::string& what);

}  // namespace spkit::reorder_detail
