// The road families: a planar grid with edges removed at random (road), and a planar road network
// cut from the pulled lattice's triangulation by mutual nearest neighbours (road_planar), numbered
// breadth-first from a random node or randomly.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gen/families.hpp"
#include "gen/node_graph.hpp"
#include "gen/option_checks.hpp"
#include "gen/orderings.hpp"
#include "gen/pulled_lattice.hpp"
#include "gen/rng.hpp"
#include "gen/row_generator.hpp"

namespace spkit::gen_detail {
namespace {

// ---- road: a planar grid with edges removed --------------------------------------------------------
class RoadGenerator : public RowGenerator {
 public:
  RoadGenerator(std::int64_t n, std::uint64_t seed) : n_(n), seed_(seed) {
    // Each node owns its right and down edge; keeping each with probability p gives
    // nnz = n^2 + 4 p n (n-1), i.e. 2.8 per row for p = 0.45 n / (n-1).
    keep_probability_ = n > 1 ? std::min(1.0, 0.45 * static_cast<double>(n) / static_cast<double>(n - 1)) : 0.0;
  }
  std::int64_t rows() const override { return n_ * n_; }
  std::int64_t cols() const override { return rows(); }
  double expected_nnz() const override { return 2.8 * static_cast<double>(rows()); }
  std::int64_t row_length(std::int64_t row) const override {
    std::int64_t count = 1;
    for_each_neighbour(row, [&](std::int64_t) { ++count; });
    return count;
  }
  void fill_row(std::int64_t row, std::int32_t* cols, double* values) const override {
    std::int64_t k = 0;
    bool diag_done = false;
    for_each_neighbour(row, [&](std::int64_t q) {
      if (!diag_done && q > row) {
        cols[k++] = static_cast<std::int32_t>(row);
        diag_done = true;
      }
      cols[k++] = static_cast<std::int32_t>(q);
    });
    if (!diag_done) cols[k++] = static_cast<std::int32_t>(row);
    fill_symmetric_values(seed_, row, cols, values, k);
  }

 private:
  bool kept(std::int64_t owner, int direction) const {
    return unit_from(hash3(seed_ ^ kRoadSalt, static_cast<std::uint64_t>(owner), static_cast<std::uint64_t>(direction))) <
           keep_probability_;
  }
  // Neighbours in increasing order: up, left, right, down.
  template <class F>
  void for_each_neighbour(std::int64_t u, F&& f) const {
    std::int64_t x = u % n_, y = u / n_;
    if (y > 0 && kept(u - n_, 1)) f(u - n_);
    if (x > 0 && kept(u - 1, 0)) f(u - 1);
    if (x < n_ - 1 && kept(u, 0)) f(u + 1);
    if (y < n_ - 1 && kept(u, 1)) f(u + n_);
  }
  std::int64_t n_;
  std::uint64_t seed_;
  double keep_probability_;
};

}  // namespace

std::unique_ptr<RowGenerator> make_road(const GenOptions& o) {
  checked_dim(o.family, o.n, 2);
  return std::make_unique<RoadGenerator>(o.n, o.seed);
}

std::unique_ptr<RowGenerator> make_road_planar(const GenOptions& o) {
  const std::string f = o.family;
  const std::string ordering = ordering_or(o, "bfs", {"bfs", "random"});
  if (o.n < 2) bad_option(f, "--n (grid side) must be at least 2 (got " + std::to_string(o.n) + ")");
  check_rows(f, static_cast<double>(o.n) * static_cast<double>(o.n));
  check_memory(f, static_cast<double>(o.n) * static_cast<double>(o.n) * 120.0);
  PulledLattice mesh(o.n, 2, o.seed);
  const NodeGraph tri = mesh_vertex_graph(f, mesh);  // planar: a triangulation
  // Length of an edge between jittered positions, computed from (min, max) so both ends agree exactly.
  auto length2 = [&](std::int64_t a, std::int64_t b) {
    if (a > b) std::swap(a, b);
    const double dx = mesh.position(a, 0) - mesh.position(b, 0), dy = mesh.position(a, 1) - mesh.position(b, 1);
    return dx * dx + dy * dy;
  };
  // Each crossing takes 2, 3 or 4 of its shortest links (30/45/25%; ties by id); a link stays when
  // both ends take it. Degree <= 4, mean ~2.4 like real road graphs, a few dead ends.
  std::vector<std::uint8_t> taken(tri.adj.size(), 0);  // per (v, neighbour) entry of the triangulation
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t v = 0; v < tri.nodes; ++v) {
    const double u = unit_from(hash3(o.seed ^ kRoadKeepSalt, static_cast<std::uint64_t>(v), 0));
    const int keep = u < 0.30 ? 2 : u < 0.75 ? 3 : 4;
    for (std::int64_t e = tri.ptr[v]; e < tri.ptr[v + 1]; ++e) {
      const std::int64_t b = tri.adj[e];
      const double lb = length2(v, b);
      int rank = 0;
      for (std::int64_t q = tri.ptr[v]; q < tri.ptr[v + 1]; ++q) {
        const std::int64_t c = tri.adj[q];
        const double lc = length2(v, c);
        rank += c != b && (lc < lb || (lc == lb && c < b));
      }
      taken[e] = rank < keep;
    }
  }
  auto taken_by = [&](std::int64_t w, std::int64_t v) {
    const auto first = tri.adj.begin() + tri.ptr[w], last = tri.adj.begin() + tri.ptr[w + 1];
    return taken[std::lower_bound(first, last, static_cast<std::int32_t>(v)) - tri.adj.begin()] != 0;
  };
  NodeGraph roads = build_node_graph(f, tri.nodes, [&](std::int64_t v, std::vector<std::int32_t>& out) {
    for (std::int64_t e = tri.ptr[v]; e < tri.ptr[v + 1]; ++e)
      if (taken[e] && taken_by(tri.adj[e], v)) out.push_back(tri.adj[e]);
  });
  std::vector<std::int32_t> new_of_old =
      ordering == "random"
          ? random_order(roads.nodes, o.seed)
          : bfs_order(roads, static_cast<std::int64_t>(hash3(o.seed ^ kRoadStartSalt, 0, 0) % static_cast<std::uint64_t>(roads.nodes)));
  return std::make_unique<NodeGraphRows>(std::move(roads), std::move(new_of_old), 1, o.seed);
}

}  // namespace spkit::gen_detail
