#pragma once
// The node graph of geometric, fem_mesh and road_planar: built in two parallel passes in a "natural"
// numbering, then renumbered (orderings.hpp) and expanded to `dof` rows per node by NodeGraphRows.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gen/option_checks.hpp"
#include "gen/row_generator.hpp"

namespace spkit::gen_detail {

// Symmetric adjacency without self loops, sorted per node.
struct NodeGraph {
  std::int64_t nodes = 0;
  std::vector<std::int64_t> ptr;  // nodes + 1
  std::vector<std::int32_t> adj;
  std::int64_t degree(std::int64_t u) const { return ptr[u + 1] - ptr[u]; }
};

// Two passes over the nodes with `neighbours(u, out)` (appends, any order, duplicates allowed).
template <class F>
NodeGraph build_node_graph(const std::string& family, std::int64_t nodes, F&& neighbours) {
  NodeGraph g;
  g.nodes = nodes;
  g.ptr.assign(static_cast<std::size_t>(nodes) + 1, 0);
  auto sorted_neighbours = [&](std::int64_t u, std::vector<std::int32_t>& out) {
    out.clear();
    neighbours(u, out);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  };
#pragma omp parallel
  {
    std::vector<std::int32_t> scratch;
#pragma omp for schedule(dynamic, 2048)
    for (std::int64_t u = 0; u < nodes; ++u) {
      sorted_neighbours(u, scratch);
      g.ptr[u] = static_cast<std::int64_t>(scratch.size());
    }
  }
  g.ptr[nodes] = 0;
  const std::int64_t total = exclusive_scan(g.ptr);
  check_memory(family, 4.0 * static_cast<double>(total));
  g.adj.resize(static_cast<std::size_t>(total));
#pragma omp parallel
  {
    std::vector<std::int32_t> scratch;
#pragma omp for schedule(dynamic, 2048)
    for (std::int64_t u = 0; u < nodes; ++u) {
      sorted_neighbours(u, scratch);
      std::copy(scratch.begin(), scratch.end(), g.adj.begin() + g.ptr[u]);
    }
  }
  return g;
}

// The matrix of a node graph: node u becomes rows new_of_old[u]*dof .. +dof-1, a dense dof x dof block
// per edge and on the diagonal; symmetric values, strictly diagonally dominant.
class NodeGraphRows final : public RowGenerator {
 public:
  NodeGraphRows(NodeGraph g, std::vector<std::int32_t> new_of_old, int dof, std::uint64_t seed)
      : g_(std::move(g)), new_of_old_(std::move(new_of_old)), dof_(dof), seed_(seed) {
    old_of_new_.resize(new_of_old_.size());
    for (std::size_t i = 0; i < new_of_old_.size(); ++i) old_of_new_[new_of_old_[i]] = static_cast<std::int32_t>(i);
  }
  std::int64_t rows() const override { return g_.nodes * dof_; }
  std::int64_t cols() const override { return rows(); }
  double expected_nnz() const override {
    return (static_cast<double>(g_.adj.size()) + static_cast<double>(g_.nodes)) * dof_ * dof_;
  }
  std::int64_t row_length(std::int64_t row) const override { return (g_.degree(old_of_new_[row / dof_]) + 1) * dof_; }
  void fill_row(std::int64_t row, std::int32_t* cols, double* values) const override {
    const std::int64_t node = row / dof_;
    const std::int32_t old = old_of_new_[node];
    // The new ids of the neighbours and the node itself, sorted, each expanded to dof columns.
    std::int64_t k = 0;
    cols[k++] = static_cast<std::int32_t>(node);
    for (std::int64_t e = g_.ptr[old]; e < g_.ptr[old + 1]; ++e) cols[k++] = new_of_old_[g_.adj[e]];
    std::sort(cols, cols + k);
    // Expanded in place from the back: node q's block starts at q * dof >= q, so no unread id is overwritten.
    for (std::int64_t q = k - 1; q >= 0; --q) {
      const std::int64_t first = static_cast<std::int64_t>(cols[q]) * dof_;
      for (int b = dof_ - 1; b >= 0; --b) cols[q * dof_ + b] = static_cast<std::int32_t>(first + b);
    }
    fill_symmetric_values(seed_, row, cols, values, k * dof_);
  }

 private:
  NodeGraph g_;
  std::vector<std::int32_t> new_of_old_, old_of_new_;
  int dof_;
  std::uint64_t seed_;
};

}  // namespace spkit::gen_detail
