// Reverse Cuthill-McKee with George and Liu's pseudo-peripheral start node (spkit/reorder.hpp), and the
// symmetrized adjacency both orderings read.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "reorder/pattern.hpp"
#include "spkit/error.hpp"
#include "spkit/reorder.hpp"

namespace spkit {
namespace reorder_detail {

void require_square(std::int64_t rows, std::int64_t cols, const std::string& what) {
  if (rows != cols)
    throw NotApplicable(what + " needs a square matrix (a symmetric permutation P A P^T); this one is " +
                        std::to_string(rows) + " x " + std::to_string(cols));
  if (rows > INT32_MAX)
    throw Error(what + ": " + std::to_string(rows) + " rows exceed 32-bit vertex numbers");
}

namespace {

// Whether every off-diagonal entry (i, j) has its mirror (j, i): rows are sorted (the CSR contract), so a
// binary search in row j. Read-only, shared by the threads.
bool pattern_is_symmetric(std::int64_t n, const std::vector<std::int64_t>& row_ptr,
                          const std::vector<std::int32_t>& col_idx) {
  bool symmetric = true;
#pragma omp parallel for schedule(static, 1024) reduction(&& : symmetric) if (n >= 4096)
  for (std::int64_t i = 0; i < n; ++i) {
    if (!symmetric) continue;
    for (std::int64_t k = row_ptr[i]; k < row_ptr[i + 1] && symmetric; ++k) {
      const std::int32_t j = col_idx[k];
      if (j == i) continue;
      const auto first = col_idx.begin() + row_ptr[j], last = col_idx.begin() + row_ptr[j + 1];
      symmetric = std::binary_search(first, last, static_cast<std::int32_t>(i));
    }
  }
  return symmetric;
}

}  // namespace

Adjacency symmetrized(std::int64_t n, const std::vector<std::int64_t>& row_ptr, const std::vector<std::int32_t>& col_idx) {
  Adjacency g;
  g.n = n;
  // A symmetric pattern (meshes, stencils) is its own adjacency less the diagonal: no scatter, no sort
  // (16M entries: 0.57 s for the general path below on the dev box).
  if (pattern_is_symmetric(n, row_ptr, col_idx)) {
    g.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
    for (std::int64_t i = 0; i < n; ++i) {
      const bool has_diagonal = std::binary_search(col_idx.begin() + row_ptr[i], col_idx.begin() + row_ptr[i + 1],
                                                   static_cast<std::int32_t>(i));
      g.offsets[i + 1] = g.offsets[i] + (row_ptr[i + 1] - row_ptr[i]) - (has_diagonal ? 1 : 0);
    }
    g.neighbours.resize(static_cast<std::size_t>(g.offsets[n]));
#pragma omp parallel for schedule(static, 1024) if (n >= 4096)
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t out = g.offsets[i];
      for (std::int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
        if (col_idx[k] != i) g.neighbours[out++] = col_idx[k];
    }
    return g;
  }
  // Each off-diagonal entry (i, j) gives j to i and i to j; duplicates (a symmetric pattern gives every
  // pair twice) are removed after sorting each list.
  std::vector<std::int64_t> count(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const std::int64_t j = col_idx[k];
      if (j == i) continue;
      ++count[i + 1];
      ++count[j + 1];
    }
  for (std::int64_t i = 0; i < n; ++i) count[i + 1] += count[i];
  std::vector<std::int32_t> both(static_cast<std::size_t>(count[n]));
  std::vector<std::int64_t> fill(count.begin(), count.end() - 1);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const std::int32_t j = col_idx[k];
      if (j == i) continue;
      both[fill[i]++] = j;
      both[fill[j]++] = static_cast<std::int32_t>(i);
    }
  g.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  g.neighbours.reserve(both.size());
  for (std::int64_t i = 0; i < n; ++i) {
    auto first = both.begin() + count[i], last = both.begin() + count[i + 1];
    std::sort(first, last);
    last = std::unique(first, last);
    g.neighbours.insert(g.neighbours.end(), first, last);
    g.offsets[i + 1] = static_cast<std::int64_t>(g.neighbours.size());
  }
  g.neighbours.shrink_to_fit();
  return g;
}

namespace {

// Breadth-first level structure from `root` over its component. `level` holds -1 for unvisited vertices
// and is restored to -1 for the component on return, so repeated searches cost O(component).
struct Levels {
  std::vector<std::int32_t> order;  // the component in breadth-first order
  std::int64_t depth = 0;           // eccentricity of root
  std::int64_t last_level_begin = 0;
};

Levels level_structure(const Adjacency& g, std::int32_t root, std::vector<std::int32_t>& level) {
  Levels l;
  l.order.push_back(root);
  level[root] = 0;
  for (std::size_t head = 0; head < l.order.size(); ++head) {
    const std::int32_t v = l.order[head];
    for (std::int64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) {
      const std::int32_t w = g.neighbours[k];
      if (level[w] >= 0) continue;
      level[w] = level[v] + 1;
      l.order.push_back(w);
    }
  }
  l.depth = level[l.order.back()];
  l.last_level_begin = static_cast<std::int64_t>(l.order.size()) - 1;
  while (l.last_level_begin > 0 && level[l.order[l.last_level_begin - 1]] == l.depth) --l.last_level_begin;
  for (std::int32_t v : l.order) level[v] = -1;
  return l;
}

// George and Liu (1979): from a start node, repeatedly root a level structure at a minimum-degree node of
// the deepest level while that deepens the structure. A few rounds suffice in practice; the cap bounds
// pathological cases.
std::int32_t pseudo_peripheral(const Adjacency& g, std::int32_t start, std::vector<std::int32_t>& level) {
  constexpr int kMaxRounds = 16;
  std::int32_t root = start;
  Levels l = level_structure(g, root, level);
  for (int round = 0; round < kMaxRounds; ++round) {
    std::int32_t best = l.order[l.last_level_begin];
    for (std::size_t i = static_cast<std::size_t>(l.last_level_begin); i < l.order.size(); ++i) {
      const std::int32_t v = l.order[i];
      if (g.degree(v) < g.degree(best) || (g.degree(v) == g.degree(best) && v < best)) best = v;
    }
    Levels next = level_structure(g, best, level);
    if (next.depth <= l.depth) break;
    root = best;
    l = std::move(next);
  }
  return root;
}

}  // namespace
}  // namespace reorder_detail

template <class T>
Permutation reverse_cuthill_mckee(const Csr<T>& a) {
  using namespace reorder_detail;
  require_square(a.rows, a.cols, "reverse Cuthill-McKee");
  const std::int64_t n = a.rows;
  const Adjacency g = symmetrized(n, a.row_ptr, a.col_idx);
  std::vector<std::int32_t> level(static_cast<std::size_t>(n), -1);
  std::vector<char> numbered(static_cast<std::size_t>(n), 0);
  std::vector<std::int32_t> order;  // Cuthill-McKee order (old indices), reversed at the end
  order.reserve(static_cast<std::size_t>(n));
  std::vector<std::int32_t> fresh;  // a vertex's unnumbered neighbours, sorted by degree
  auto by_degree = [&](std::int32_t u, std::int32_t v) {
    return g.degree(u) != g.degree(v) ? g.degree(u) < g.degree(v) : u < v;
  };
  for (std::int64_t s = 0; s < n; ++s) {
    if (numbered[s]) continue;
    const std::int32_t root = pseudo_peripheral(g, static_cast<std::int32_t>(s), level);
    std::size_t head = order.size();
    order.push_back(root);
    numbered[root] = 1;
    for (; head < order.size(); ++head) {
      const std::int32_t v = order[head];
      fresh.clear();
      for (std::int64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k)
        if (!numbered[g.neighbours[k]]) {
          fresh.push_back(g.neighbours[k]);
          numbered[g.neighbours[k]] = 1;
        }
      std::sort(fresh.begin(), fresh.end(), by_degree);
      order.insert(order.end(), fresh.begin(), fresh.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return Permutation::from_old_of_new(std::move(order));
}

template Permutation reverse_cuthill_mckee(const Csr<float>&);
template Permutation reverse_cuthill_mckee(const Csr<double>&);

}  // namespace spkit
