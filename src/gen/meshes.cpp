// The fem_mesh family: unstructured P1 or P2 triangle (2D) or tetrahedral (3D) meshes of a jittered
// lattice (pulled_lattice.hpp), `dof` unknowns per node, numbered along a Morton curve of the node
// positions or randomly.
#include <algorithm>
#include <array>
#include <cmath>
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
#include "gen/row_generator.hpp"

namespace spkit::gen_detail {
namespace {

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

}  // namespace spkit::gen_detail
