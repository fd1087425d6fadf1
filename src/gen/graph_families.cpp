// Families with the structure of real matrices: R-MAT (web/social graphs), random geometric graphs,
// unstructured FEM meshes and planar road networks. Same rules as generate.cpp: every random choice
// is a hash of (seed, index), so the matrix depends on the options only, never on the thread count.
//
// geometric, fem_mesh and road_planar first build their node graph (symmetric, no self loops, in a
// "natural" numbering) in two parallel passes, then renumber the nodes (space-filling curve, BFS or
// random) and expand each node to `dof` rows; R-MAT draws edges and sorts them into rows.
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gen/rng.hpp"
#include "gen/row_generator.hpp"
#include "spkit/error.hpp"
#include "platform/memory.hpp"

namespace spkit::gen_detail {
namespace {

constexpr std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();
// Apart from generate.cpp's salts (1-5).
enum Salt : std::uint64_t {
  kRmatSalt = 11, kRmatLabelSalt = 12, kRmatValueSalt = 13, kPointSalt = 14, kMeshLabelSalt = 15,
  kJitterSalt = 16, kOrderSalt = 17, kRoadStartSalt = 18, kRoadKeepSalt = 19
};

[[noreturn]] void bad_option(const std::string& family, const std::string& what) {
  throw Error("gen " + family + ": " + what);
}

void check_rows(const std::string& family, double rows) {
  if (rows > static_cast<double>(kMaxIndex))
    bad_option(family, "the options give about " + std::to_string(static_cast<long long>(std::min(rows, 9e18))) +
                           " rows, more than 2^31-1 (the limit of 32-bit column indices); choose a smaller --n");
}

void check_memory(const std::string& family, double bytes) {
  const std::uint64_t available = available_memory_bytes();
  if (bytes > static_cast<double>(available))
    throw TooLarge("gen " + family + ": needs about " + std::to_string(static_cast<long long>(std::min(bytes, 9e18)) >> 20) +
                       " MiB, more than the " + std::to_string(available >> 20) + " MiB available",
                   static_cast<std::uint64_t>(std::min(bytes, 1.8e19)));
}

// Exclusive prefix sum in place: v[i] becomes the sum of the old v[0..i). Returns the total.
std::int64_t exclusive_scan(std::vector<std::int64_t>& v) {
  std::int64_t sum = 0;
  for (auto& x : v) {
    const std::int64_t len = x;
    x = sum;
    sum += len;
  }
  return sum;
}

// ---- the node graph of geometric, fem_mesh and road_planar -----------------------------------------
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

// new_of_old from a sort of the nodes by (key, old id): deterministic for any thread count.
std::vector<std::int32_t> order_by_keys(const std::vector<std::uint64_t>& keys) {
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  std::vector<std::int32_t> old_of_new(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) old_of_new[i] = static_cast<std::int32_t>(i);
  std::sort(old_of_new.begin(), old_of_new.end(), [&](std::int32_t a, std::int32_t b) {
    return keys[a] != keys[b] ? keys[a] < keys[b] : a < b;
  });
  std::vector<std::int32_t> new_of_old(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) new_of_old[old_of_new[i]] = static_cast<std::int32_t>(i);
  return new_of_old;
}

std::vector<std::int32_t> random_order(std::int64_t n, std::uint64_t seed) {
  IndexPermutation p(static_cast<std::uint64_t>(n), seed ^ kOrderSalt);
  std::vector<std::int32_t> new_of_old(static_cast<std::size_t>(n));
#pragma omp parallel for
  for (std::int64_t i = 0; i < n; ++i) new_of_old[i] = static_cast<std::int32_t>(p(static_cast<std::uint64_t>(i)));
  return new_of_old;
}

// Breadth-first order from `start`; further components from their smallest unvisited node.
std::vector<std::int32_t> bfs_order(const NodeGraph& g, std::int64_t start) {
  std::vector<std::int32_t> new_of_old(static_cast<std::size_t>(g.nodes), -1);
  std::vector<std::int32_t> queue;
  queue.reserve(static_cast<std::size_t>(g.nodes));
  std::int32_t next = 0;
  std::int64_t scan = 0;
  auto visit_from = [&](std::int64_t root) {
    std::size_t head = queue.size();
    new_of_old[root] = next++;
    queue.push_back(static_cast<std::int32_t>(root));
    while (head < queue.size()) {
      const std::int32_t u = queue[head++];
      for (std::int64_t k = g.ptr[u]; k < g.ptr[u + 1]; ++k)
        if (new_of_old[g.adj[k]] < 0) {
          new_of_old[g.adj[k]] = next++;
          queue.push_back(g.adj[k]);
        }
    }
  };
  if (g.nodes > 0) visit_from(start);
  for (; scan < g.nodes; ++scan)
    if (new_of_old[scan] < 0) visit_from(scan);
  return new_of_old;
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

// Interleaves the low `bits` bits of up to 3 coordinates (x fastest): a Morton (Z-order) key.
std::uint64_t morton(const std::array<std::uint32_t, 3>& c, int dims, int bits) {
  std::uint64_t key = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int d = dims - 1; d >= 0; --d) key = (key << 1) | ((c[d] >> b) & 1u);
  return key;
}

std::string ordering_or(const GenOptions& o, const char* fallback, std::initializer_list<const char*> allowed) {
  const std::string ord = o.ordering.empty() ? fallback : o.ordering;
  std::string list;
  for (const char* a : allowed) {
    if (ord == a) return ord;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  bad_option(o.family, "--ordering must be one of " + list + " (got '" + ord + "')");
}

int dims_or(const GenOptions& o, int fallback) {
  const int d = o.dims == 0 ? fallback : o.dims;
  if (d != 2 && d != 3) bad_option(o.family, "--dims must be 2 or 3 (got " + std::to_string(o.dims) + ")");
  return d;
}

// ---- geometric: random geometric graph -------------------------------------------------------------
std::unique_ptr<RowGenerator> geometric(const GenOptions& o) {
  const std::string f = o.family;
  const int dims = dims_or(o, 2);
  const std::string ordering = ordering_or(o, "sfc", {"sfc", "random"});
  if (o.n < 1) bad_option(f, "--n must be at least 1 (got " + std::to_string(o.n) + ")");
  check_rows(f, static_cast<double>(o.n));
  if (o.per_row < 1 || o.per_row > 1000)
    bad_option(f, "--per-row (mean neighbours) must be between 1 and 1000 (got " + std::to_string(o.per_row) + ")");
  const std::int64_t n = o.n;
  check_memory(f, static_cast<double>(n) * (16.0 + 12.0 * (o.per_row + 1)));
  // Radius for per_row neighbours on average away from the boundary: n * volume(r) = per_row.
  const double pi = 3.14159265358979323846;
  const double r = dims == 2 ? std::sqrt(o.per_row / (pi * static_cast<double>(n)))
                             : std::cbrt(3.0 * o.per_row / (4.0 * pi * static_cast<double>(n)));
  // Cells of side >= r: neighbours lie in the 3^dims cells around a point's own.
  const std::int64_t side = std::max<std::int64_t>(1, std::min<std::int64_t>(static_cast<std::int64_t>(1.0 / r),
                                                                             dims == 2 ? 1 << 15 : 1 << 10));
  const std::int64_t cells = dims == 2 ? side * side : side * side * side;
  auto coordinate = [&](std::int64_t i, int d) {
    return static_cast<float>(unit_from(hash3(o.seed ^ kPointSalt, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(d))));
  };
  auto cell_coords = [&](std::int64_t i) {
    std::array<std::uint32_t, 3> c{0, 0, 0};
    for (int d = 0; d < dims; ++d)
      c[d] = static_cast<std::uint32_t>(std::min<std::int64_t>(side - 1, static_cast<std::int64_t>(coordinate(i, d) * side)));
    return c;
  };
  // Points sorted by the Morton key of their cell (then by index): each cell's points are contiguous.
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(n));
#pragma omp parallel for
  for (std::int64_t i = 0; i < n; ++i) keys[i] = morton(cell_coords(i), dims, 16);
  const std::vector<std::int32_t> position = order_by_keys(keys);  // point -> place on the curve
  std::vector<std::uint64_t>().swap(keys);
  std::vector<float> xyz(static_cast<std::size_t>(n) * dims);
  std::vector<std::int32_t> cell_first(static_cast<std::size_t>(cells), 0), cell_count(static_cast<std::size_t>(cells), 0);
  auto cell_index = [&](const std::array<std::uint32_t, 3>& c) {
    return static_cast<std::int64_t>(c[0]) + side * (static_cast<std::int64_t>(c[1]) + side * c[2]);
  };
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t p = position[i];
    for (int d = 0; d < dims; ++d) xyz[p * dims + d] = coordinate(i, d);
    const std::int64_t c = cell_index(cell_coords(i));
    if (cell_count[c]++ == 0 || p < cell_first[c]) cell_first[c] = static_cast<std::int32_t>(p);
  }
  const double r2 = r * r;
  NodeGraph g = build_node_graph(f, n, [&](std::int64_t p, std::vector<std::int32_t>& out) {
    std::array<std::int64_t, 3> c{0, 0, 0};
    for (int d = 0; d < dims; ++d)
      c[d] = std::min<std::int64_t>(side - 1, static_cast<std::int64_t>(xyz[p * dims + d] * side));
    const int dz_lo = dims == 3 ? -1 : 0, dz_hi = dims == 3 ? 1 : 0;
    for (int dz = dz_lo; dz <= dz_hi; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const std::int64_t x = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
          if (x < 0 || y < 0 || z < 0 || x >= side || y >= side || (dims == 3 ? z >= side : z != 0)) continue;
          const std::int64_t cell = x + side * (y + side * z);
          for (std::int64_t q = cell_first[cell]; q < cell_first[cell] + cell_count[cell]; ++q) {
            if (q == p) continue;
            // The same operations in the same order for (p, q) and (q, p): an exactly symmetric test.
            double d2 = 0;
            for (int d = 0; d < dims; ++d) {
              const double t = static_cast<double>(xyz[p * dims + d]) - static_cast<double>(xyz[q * dims + d]);
              d2 += t * t;
            }
            if (d2 < r2) out.push_back(static_cast<std::int32_t>(q));
          }
        }
  });
  std::vector<std::int32_t> new_of_old;
  if (ordering == "random") {
    new_of_old = random_order(n, o.seed);
  } else {
    new_of_old.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) new_of_old[i] = static_cast<std::int32_t>(i);
  }
  return std::make_unique<NodeGraphRows>(std::move(g), std::move(new_of_old), 1, o.seed);
}

// ---- the mesh of fem_mesh and road_planar ------------------------------------------------------------
// A lattice of side^dims vertices (x fastest). Every square (2D) or cube (3D) is triangulated by
// "pulling" from its vertex of smallest random label: each face is split by the diagonal through its
// smallest-label vertex, and a cube is the cone from its smallest vertex over the three faces that do
// not contain it (6 tetrahedra). Faces are split the same way from both sides, so the mesh is conforming.
class PulledLattice {
 public:
  PulledLattice(std::int64_t side, int dims, std::uint64_t seed) : side_(side), dims_(dims), seed_(seed) {
    vertices_ = dims == 2 ? side * side : side * side * side;
    // Labels and jittered positions are read many times per vertex: computed once.
    label_.resize(static_cast<std::size_t>(vertices_));
    position_.resize(static_cast<std::size_t>(vertices_) * dims);
#pragma omp parallel for schedule(static, 4096)
    for (std::int64_t v = 0; v < vertices_; ++v) {
      label_[v] = hash3(seed_ ^ kMeshLabelSalt, static_cast<std::uint64_t>(v), 0);
      const auto c = coords(v);
      for (int d = 0; d < dims; ++d)
        position_[v * dims + d] = static_cast<double>(c[d]) +
                                  0.6 * (unit_from(hash3(seed_ ^ kJitterSalt, static_cast<std::uint64_t>(v),
                                                         static_cast<std::uint64_t>(d))) - 0.5);
    }
  }
  std::int64_t vertices() const { return vertices_; }
  int dims() const { return dims_; }

  std::array<std::int64_t, 3> coords(std::int64_t v) const {
    return {v % side_, (v / side_) % side_, dims_ == 3 ? v / (side_ * side_) : 0};
  }
  std::int64_t id(std::int64_t x, std::int64_t y, std::int64_t z) const { return x + side_ * (y + side_ * z); }
  // Position jittered by up to 0.3 of the spacing in each coordinate (what the numbering sorts by).
  double position(std::int64_t v, int d) const { return position_[v * dims_ + d]; }

  // Calls f(element) for every triangle/tetrahedron (vertex ids, dims+1 of them) with vertex v.
  template <class F>
  void for_each_element_at(std::int64_t v, F&& f) const {
    const auto c = coords(v);
    const int dz_lo = dims_ == 3 ? -1 : 0;
    for (int dz = dz_lo; dz <= 0; ++dz)
      for (int dy = -1; dy <= 0; ++dy)
        for (int dx = -1; dx <= 0; ++dx) {
          const std::int64_t x = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
          if (x < 0 || y < 0 || z < 0 || x + 1 >= side_ || y + 1 >= side_ || (dims_ == 3 && z + 1 >= side_)) continue;
          for_each_element_of_cell(x, y, z, [&](const std::array<std::int64_t, 4>& e) {
            for (int k = 0; k <= dims_; ++k)
              if (e[k] == v) {
                f(e);
                break;
              }
          });
        }
  }

 private:
  // Total order on vertices: random label, ties by id.
  bool before(std::int64_t a, std::int64_t b) const {
    return label_[a] != label_[b] ? label_[a] < label_[b] : a < b;
  }
  // Splits the quad p[0..3] (cyclic order) by the diagonal through its smallest vertex.
  template <class F>
  void split_quad(const std::array<std::int64_t, 4>& p, F&& f) const {
    int m = 0;
    for (int k = 1; k < 4; ++k)
      if (before(p[k], p[m])) m = k;
    f(p[m], p[(m + 1) % 4], p[(m + 2) % 4]);
    f(p[m], p[(m + 2) % 4], p[(m + 3) % 4]);
  }
  template <class F>
  void for_each_element_of_cell(std::int64_t x, std::int64_t y, std::int64_t z, F&& f) const {
    if (dims_ == 2) {
      const std::array<std::int64_t, 4> quad{id(x, y, 0), id(x + 1, y, 0), id(x + 1, y + 1, 0), id(x, y + 1, 0)};
      split_quad(quad, [&](std::int64_t a, std::int64_t b, std::int64_t c) { f(std::array<std::int64_t, 4>{a, b, c, -1}); });
      return;
    }
    // Corner k = (bit0: +x, bit1: +y, bit2: +z).
    std::array<std::int64_t, 8> corner;
    for (int k = 0; k < 8; ++k) corner[k] = id(x + (k & 1), y + ((k >> 1) & 1), z + ((k >> 2) & 1));
    int apex = 0;
    for (int k = 1; k < 8; ++k)
      if (before(corner[k], corner[apex])) apex = k;
    for (int axis = 0; axis < 3; ++axis) {
      const int side = 1 - ((apex >> axis) & 1);  // the face on this axis without the apex
      const int b = (axis + 1) % 3, c = (axis + 2) % 3;
      std::array<std::int64_t, 4> quad;
      const int cyc[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
      for (int q = 0; q < 4; ++q) quad[q] = corner[(side << axis) | (cyc[q][0] << b) | (cyc[q][1] << c)];
      split_quad(quad, [&](std::int64_t p0, std::int64_t p1, std::int64_t p2) {
        f(std::array<std::int64_t, 4>{corner[apex], p0, p1, p2});
      });
    }
  }

  std::int64_t side_, vertices_ = 0;
  int dims_;
  std::uint64_t seed_;
  std::vector<std::uint64_t> label_;
  std::vector<double> position_;
};

// The P1 node graph of a pulled lattice: vertices joined when they share an element.
NodeGraph mesh_vertex_graph(const std::string& family, const PulledLattice& mesh) {
  return build_node_graph(family, mesh.vertices(), [&](std::int64_t v, std::vector<std::int32_t>& out) {
    mesh.for_each_element_at(v, [&](const std::array<std::int64_t, 4>& e) {
      for (int k = 0; k <= mesh.dims(); ++k)
        if (e[k] != v) out.push_back(static_cast<std::int32_t>(e[k]));
    });
  });
}

struct MeshNodes {
  NodeGraph graph;
  // P2: edge nodes vertex v owns (its edges to higher ids) are nv + edge_first[v] + rank among them.
  std::vector<std::int64_t> edge_first;
};

// P2: a node per vertex and per edge; two nodes are joined when they lie in a common element.
MeshNodes mesh_p2_graph(const std::string& family, const PulledLattice& mesh, const NodeGraph& p1) {
  const std::int64_t nv = mesh.vertices();
  // Vertex v owns its edges to higher ids; they are numbered nv + (edges of lower vertices) + rank.
  std::vector<std::int64_t> edge_first(static_cast<std::size_t>(nv) + 1, 0);
  for (std::int64_t v = 0; v < nv; ++v) {
    const auto first = p1.adj.begin() + p1.ptr[v], last = p1.adj.begin() + p1.ptr[v + 1];
    edge_first[v] = last - std::upper_bound(first, last, static_cast<std::int32_t>(v));
  }
  const std::int64_t edges = exclusive_scan(edge_first);
  check_rows(family, static_cast<double>(nv + edges));
  // The node of edge {a, b}: a < b owns it; its rank among a's higher neighbours (sorted) locates it.
  auto edge_node = [&](std::int64_t a, std::int64_t b) -> std::int32_t {
    if (a > b) std::swap(a, b);
    const auto first = p1.adj.begin() + p1.ptr[a], last = p1.adj.begin() + p1.ptr[a + 1];
    const auto higher = std::upper_bound(first, last, static_cast<std::int32_t>(a));
    const auto it = std::lower_bound(higher, last, static_cast<std::int32_t>(b));
    return static_cast<std::int32_t>(nv + edge_first[a] + (it - higher));
  };
  // Owner and other end of every edge node (for the neighbour queries of edge nodes).
  std::vector<std::int32_t> edge_end(static_cast<std::size_t>(edges) * 2);
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t v = 0; v < nv; ++v) {
    std::int64_t k = edge_first[v];
    for (std::int64_t e = p1.ptr[v]; e < p1.ptr[v + 1]; ++e)
      if (p1.adj[e] > v) {
        edge_end[2 * k] = static_cast<std::int32_t>(v);
        edge_end[2 * k + 1] = p1.adj[e];
        ++k;
      }
  }
  auto add_element_nodes = [&](const std::array<std::int64_t, 4>& e, std::vector<std::int32_t>& out) {
    const int corners = mesh.dims() + 1;
    for (int a = 0; a < corners; ++a) {
      out.push_back(static_cast<std::int32_t>(e[a]));
      for (int b = a + 1; b < corners; ++b) out.push_back(edge_node(e[a], e[b]));
    }
  };
  MeshNodes m;
  m.graph = build_node_graph(family, nv + edges, [&](std::int64_t node, std::vector<std::int32_t>& out) {
    if (node < nv) {
      mesh.for_each_element_at(node, [&](const std::array<std::int64_t, 4>& e) { add_element_nodes(e, out); });
    } else {
      const std::int64_t a = edge_end[2 * (node - nv)], b = edge_end[2 * (node - nv) + 1];
      mesh.for_each_element_at(a, [&](const std::array<std::int64_t, 4>& e) {
        for (int k = 0; k <= mesh.dims(); ++k)
          if (e[k] == b) {
            add_element_nodes(e, out);
            break;
          }
      });
    }
    out.erase(std::remove(out.begin(), out.end(), static_cast<std::int32_t>(node)), out.end());
  });
  m.edge_first = std::move(edge_first);
  return m;
}

std::vector<std::int32_t> sfc_order_of_positions(std::int64_t nodes, int dims, double extent,
                                                 const std::function<double(std::int64_t, int)>& position) {
  const int bits = dims == 2 ? 24 : 20;
  const double scale = static_cast<double>((std::uint64_t{1} << bits) - 1) / (extent + 1.0);
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(nodes));
#pragma omp parallel for
  for (std::int64_t i = 0; i < nodes; ++i) {
    std::array<std::uint32_t, 3> c{0, 0, 0};
    for (int d = 0; d < dims; ++d)
      c[d] = static_cast<std::uint32_t>(std::clamp((position(i, d) + 0.5) * scale, 0.0, scale * (extent + 1.0)));
    keys[i] = morton(c, dims, bits);
  }
  return order_by_keys(keys);
}

}  // namespace

int family_dims(const GenOptions& o) { return dims_or(o, o.family == "fem_mesh" ? 3 : 2); }

std::string family_ordering(const GenOptions& o) {
  if (o.family == "road_planar") return ordering_or(o, "bfs", {"bfs", "random"});
  return ordering_or(o, "sfc", {"sfc", "random"});
}

std::unique_ptr<RowGenerator> make_geometric(const GenOptions& o) { return geometric(o); }

namespace {
// Non-zeros per lattice vertex of fem_mesh, away from the boundary (measured; tests/gen checks the fit).
double fem_mesh_nnz_per_vertex(const GenOptions& o) {
  const int dims = o.dims == 2 ? 2 : 3;
  const double dof = std::clamp(o.dof, 1, 64);
  double per_dof2;
  if (dims == 2)
    per_dof2 = o.element_order == 2 ? 46.0 : 7.0;
  else
    per_dof2 = o.element_order == 2 ? 230.0 : 15.0;
  return per_dof2 * dof * dof;
}
}  // namespace

double fem_mesh_side_for_nnz(const GenOptions& o, double target_nnz) {
  // Boundary vertices have fewer neighbours: P1 in 3D gives exactly 15n^3 - 24n^2 + 12n - 2 (dof 1),
  // about 15 (n - 1/2)^3; the half-vertex shift fits the other cases as well.
  return std::pow(target_nnz / fem_mesh_nnz_per_vertex(o), 1.0 / (o.dims == 2 ? 2 : 3)) + 0.5;
}

std::unique_ptr<RowGenerator> make_fem_mesh(const GenOptions& o) {
  const std::string f = o.family;
  const int dims = dims_or(o, 3);
  const std::string ordering = ordering_or(o, "sfc", {"sfc", "random"});
  if (o.element_order != 1 && o.element_order != 2)
    bad_option(f, "--element-order must be 1 (P1) or 2 (P2) (got " + std::to_string(o.element_order) + ")");
  if (o.dof < 1 || o.dof > 3) bad_option(f, "--dof must be 1, 2 or 3 (got " + std::to_string(o.dof) + ")");
  if (o.n < 2) bad_option(f, "--n (lattice side) must be at least 2 (got " + std::to_string(o.n) + ")");
  const double vertices = std::pow(static_cast<double>(o.n), dims);
  // P2 has about 3 (2D) or 7 (3D) edge nodes per vertex.
  const double nodes = vertices * (o.element_order == 1 ? 1.0 : dims == 2 ? 4.0 : 8.0);
  check_rows(f, nodes * o.dof);
  check_memory(f, 12.0 * vertices * fem_mesh_nnz_per_vertex(o) + 40.0 * nodes);
  PulledLattice mesh(o.n, dims, o.seed);
  NodeGraph p1 = mesh_vertex_graph(f, mesh);
  NodeGraph graph;
  std::vector<std::int32_t> new_of_old;
  if (o.element_order == 1) {
    graph = std::move(p1);
  } else {
    MeshNodes m = mesh_p2_graph(f, mesh, p1);
    graph = std::move(m.graph);
    if (ordering == "sfc") {
      const std::int64_t nv = mesh.vertices();
      // Edge node k: the midpoint of its two ends (found through edge_first by binary search).
      const auto& ef = m.edge_first;
      new_of_old = sfc_order_of_positions(graph.nodes, dims, static_cast<double>(o.n), [&](std::int64_t i, int d) {
        if (i < nv) return mesh.position(i, d);
        const std::int64_t k = i - nv;
        const std::int64_t a = std::upper_bound(ef.begin(), ef.end(), k) - ef.begin() - 1;
        const auto first = p1.adj.begin() + p1.ptr[a], last = p1.adj.begin() + p1.ptr[a + 1];
        const auto higher = std::upper_bound(first, last, static_cast<std::int32_t>(a));
        const std::int64_t b = *(higher + (k - ef[a]));
        return 0.5 * (mesh.position(a, d) + mesh.position(b, d));
      });
    }
  }
  if (new_of_old.empty()) {
    if (ordering == "random")
      new_of_old = random_order(graph.nodes, o.seed);
    else
      new_of_old = sfc_order_of_positions(graph.nodes, dims, static_cast<double>(o.n),
                                          [&](std::int64_t i, int d) { return mesh.position(i, d); });
  }
  return std::make_unique<NodeGraphRows>(std::move(graph), std::move(new_of_old), o.dof, o.seed);
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

// ---- rmat: Graph500 Kronecker / R-MAT --------------------------------------------------------------
void check_rmat_options(const GenOptions& o) {
  const std::string f = o.family;
  if (o.n < 1) bad_option(f, "--n must be at least 1 (got " + std::to_string(o.n) + ")");
  check_rows(f, static_cast<double>(o.n));
  if (o.edge_factor < 1 || o.edge_factor > 1024)
    bad_option(f, "--edge-factor must be between 1 and 1024 (got " + std::to_string(o.edge_factor) + ")");
  const double d = 1.0 - o.rmat_a - o.rmat_b - o.rmat_c;
  if (!(o.rmat_a > 0 && o.rmat_b >= 0 && o.rmat_c >= 0 && d >= -1e-12))
    bad_option(f, "--rmat-a, --rmat-b, --rmat-c must be probabilities with a > 0 and a + b + c <= 1");
  check_memory(f, static_cast<double>(o.n) * o.edge_factor * 24.0);
}

Csr<double> generate_rmat(const GenOptions& o, const GenProgress& progress) {
  check_rmat_options(o);
  const std::int64_t n = o.n, edges = n * o.edge_factor;
  int scale = 0;
  while ((std::int64_t{1} << scale) < n) ++scale;
  // Quadrant thresholds on 32-bit uniforms: two levels per 64-bit draw, compared without branches.
  auto threshold = [](double p) {
    return static_cast<std::uint64_t>(std::min(1.0, std::max(0.0, p)) * 4294967296.0);
  };
  const std::uint64_t a = threshold(o.rmat_a), ab = threshold(o.rmat_a + o.rmat_b),
                      abc = threshold(o.rmat_a + o.rmat_b + o.rmat_c);
  // Graph500 scrambles the vertex labels, so that high degree does not mean low id.
  const IndexPermutation label(static_cast<std::uint64_t>(n), o.seed ^ kRmatLabelSalt);
  auto draw = [&](std::int64_t e, std::int32_t& from, std::int32_t& to) {
    StreamRng rng(o.seed, static_cast<std::uint64_t>(e), kRmatSalt);
    std::uint64_t u, v;
    do {  // an edge off the n x n corner of the 2^scale square is drawn again from the same stream
      u = v = 0;
      std::uint64_t bits = 0;
      for (int level = 0; level < scale; ++level) {
        if ((level & 1) == 0) bits = rng.next();
        const std::uint64_t r = (level & 1) ? bits >> 32 : bits & 0xFFFFFFFFu;
        const std::uint64_t bu = r >= ab, bv = (static_cast<std::uint64_t>(r >= a) & static_cast<std::uint64_t>(r < ab)) |
                                               static_cast<std::uint64_t>(r >= abc);
        u = (u << 1) | bu;
        v = (v << 1) | bv;
      }
    } while (u >= static_cast<std::uint64_t>(n) || v >= static_cast<std::uint64_t>(n));
    from = static_cast<std::int32_t>(label(u));
    to = static_cast<std::int32_t>(label(v));
  };
  // Pass 1: draw every edge, count per row. Pass 2: counting sort into rows, then sort and merge
  // duplicates per row. Both independent of the schedule (a row's final content is a sorted set).
  std::vector<std::int32_t> from(static_cast<std::size_t>(edges)), to(static_cast<std::size_t>(edges));
  std::vector<std::int64_t> start(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static, 65536)
  for (std::int64_t e = 0; e < edges; ++e) {
    draw(e, from[e], to[e]);
#pragma omp atomic
    ++start[from[e]];
  }
  if (progress) progress(0.4);
  exclusive_scan(start);
  start[n] = edges;
  std::vector<std::int32_t> bucket(static_cast<std::size_t>(edges));
  {
    std::vector<std::int64_t> cursor(start.begin(), start.end() - 1);
#pragma omp parallel for schedule(static, 65536)
    for (std::int64_t e = 0; e < edges; ++e) {
      std::int64_t slot;
#pragma omp atomic capture
      slot = cursor[from[e]]++;
      bucket[slot] = to[e];
    }
  }
  std::vector<std::int32_t>().swap(from);
  std::vector<std::int32_t>().swap(to);
  Csr<double> out;
  out.rows = out.cols = n;
  out.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t u = 0; u < n; ++u) {
    auto first = bucket.begin() + start[u], last = bucket.begin() + start[u + 1];
    std::sort(first, last);
    out.row_ptr[u] = std::unique(first, last) - first;
  }
  if (progress) progress(0.8);
  out.row_ptr[n] = 0;
  const std::int64_t nnz = exclusive_scan(out.row_ptr);
  out.row_ptr[n] = nnz;
  out.col_idx.resize(static_cast<std::size_t>(nnz));
  out.values.resize(static_cast<std::size_t>(nnz));
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t u = 0; u < n; ++u) {
    std::int64_t k = out.row_ptr[u];
    for (std::int64_t e = start[u]; k < out.row_ptr[u + 1]; ++e, ++k) {
      const std::int32_t v = bucket[e];
      out.col_idx[k] = v;
      // A value of magnitude in [0.25, 1) and random sign, a function of the edge only.
      const std::uint64_t h = hash3(o.seed ^ kRmatValueSalt, static_cast<std::uint64_t>(u), static_cast<std::uint64_t>(v));
      const double magnitude = 0.25 + 0.75 * unit_from(h);
      out.values[k] = (h & 1u) ? -magnitude : magnitude;
    }
  }
  if (progress) progress(1.0);
  return out;
}

}  // namespace spkit::gen_detail
