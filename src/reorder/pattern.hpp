#pragma once
// The symmetrized adjacency of a square pattern (A + A^T without the diagonal, each neighbour once),
// which the orderings work on.
#include <cstdint>
#include <string>
#include <vector>

namespace spkit::reorder_detail {

// Vertex v's neighbours are neighbours[offsets[v] .. offsets[v + 1]), sorted and unique, without v itself
// except where `in_place`: a symmetric pattern is read where it lies, its own rows, whose diagonal
// entries for_each_neighbour skips (a breadth-first search skips them too, v being visited already). In
// place, the CSR arrays it was built from must outlive it. Move-only: the pointers may name its own
// storage.
struct Adjacency {
  std::int64_t n = 0;
  const std::int64_t* offsets = nullptr;     // n + 1
  const std::int32_t* neighbours = nullptr;
  bool in_place = false;
  std::vector<std::int32_t> degrees;  // neighbours other than v itself
  std::int64_t edge_ends = 0;         // the sum of the degrees (twice the edges)

  std::int64_t degree(std::int64_t v) const { return degrees[v]; }
  template <class F>
  void for_each_neighbour(std::int64_t v, F&& f) const {
    for (std::int64_t k = offsets[v]; k < offsets[v + 1]; ++k)
      if (neighbours[k] != v) f(neighbours[k]);
  }

  Adjacency() = default;
  Adjacency(Adjacency&&) = default;
  Adjacency& operator=(Adjacency&&) = default;
  Adjacency(const Adjacency&) = delete;
  Adjacency& operator=(const Adjacency&) = delete;

  // Storage of an adjacency that is not in place.
  std::vector<std::int64_t> own_offsets;
  std::vector<std::int32_t> own_neighbours;
};

Adjacency symmetrized(std::int64_t n, const std::vector<std::int64_t>& row_ptr, const std::vector<std::int32_t>& col_idx);

// Throws NotApplicable unless rows == cols, and spkit::Error beyond 32-bit vertex numbers.
void require_square(std::int64_t rows, std::int64_t cols, const std::string& what);

}  // namespace spkit::reorder_detail
