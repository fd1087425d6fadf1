// Community ordering in the spirit of Arai et al.'s Rabbit Order (IPDPS 2016), sequential: vertices, in
// increasing degree, join the neighbouring community with the largest modularity gain (incremental
// aggregation), and a depth-first walk over the resulting dendrogram numbers each community's members
// consecutively, sub-communities nested inside. Works on the symmetrized pattern (reorder/pattern.hpp),
// every edge of weight 1, so the result depends on the pattern alone.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "reorder/pattern.hpp"
#include "spkit/error.hpp"
#include "spkit/reorder.hpp"

namespace spkit {
namespace {

using reorder_detail::Adjacency;

struct Edge {
  std::int32_t to;
  std::int64_t weight;
};

// The dendrogram: merged_into[v] is the vertex whose community v joined (v itself for a top-level
// vertex); members[v] lists, in merge order, the vertices that joined v.
struct Dendrogram {
  std::vector<std::int32_t> merged_into;
  std::vector<std::vector<std::int32_t>> members;
};

// The community v belongs to now (the root of its merge chain), compressing the path walked.
std::int32_t community_of(std::vector<std::int32_t>& merged_into, std::int32_t v) {
  std::int32_t root = v;
  while (merged_into[root] != root) root = merged_into[root];
  while (merged_into[v] != root) {
    const std::int32_t next = merged_into[v];
    merged_into[v] = root;
    v = next;
  }
  return root;
}

Dendrogram aggregate(const Adjacency& g) {
  const std::int64_t n = g.n;
  Dendrogram d;
  d.merged_into.resize(static_cast<std::size_t>(n));
  d.members.resize(static_cast<std::size_t>(n));
  // Path compression rewrites the chains, so the dendrogram keeps its own parent array.
  std::vector<std::int32_t> root_of(static_cast<std::size_t>(n));
  std::vector<std::int64_t> strength(static_cast<std::size_t>(n));  // sum of the community's degrees
  std::vector<std::vector<Edge>> edges(static_cast<std::size_t>(n));  // a processed vertex's community's edges
  std::vector<std::int32_t> order(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) {
    d.merged_into[v] = root_of[v] = static_cast<std::int32_t>(v);
    strength[v] = g.degree(v);
    order[v] = static_cast<std::int32_t>(v);
  }
  const double two_m = static_cast<double>(g.edge_ends);
  if (two_m == 0) return d;
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return g.degree(a) < g.degree(b); });

  // Sparse accumulator of the edge weights from the community being processed to each other one.
  std::vector<std::int64_t> weight_to(static_cast<std::size_t>(n), 0);
  std::vector<std::int32_t> touched;
  std::vector<char> processed(static_cast<std::size_t>(n), 0);
  for (const std::int32_t u : order) {
    // Aggregate u's community: u's own edges and the aggregated edges of each vertex that joined u (each
    // was processed before it joined, its own members folded in then), re-pointed at the communities
    // their ends belong to now; edges inside the community drop out.
    touched.clear();
    auto add = [&](std::int32_t to, std::int64_t w) {
      const std::int32_t c = community_of(root_of, to);
      if (c == u) return;
      if (weight_to[c] == 0) touched.push_back(c);
      weight_to[c] += w;
    };
    g.for_each_neighbour(u, [&](std::int32_t w) { add(w, 1); });
    for (const std::int32_t m : d.members[u]) {
      for (const Edge& e : edges[m]) add(e.to, e.weight);
      std::vector<Edge>().swap(edges[m]);
    }
    processed[u] = 1;
    // The neighbouring community with the largest modularity gain, which is proportional to
    // w_uc - s_u s_c / 2m (s: sum of degrees, m: edges); ties to the first touched (deterministic).
    std::int32_t best = -1;
    double best_gain = 0;
    for (const std::int32_t c : touched) {
      const double gain = static_cast<double>(weight_to[c]) -
                          static_cast<double>(strength[u]) * static_cast<double>(strength[c]) / two_m;
      if (gain > best_gain) best_gain = gain, best = c;
    }
    // u's edges are needed again only when the community it joins is processed later.
    const bool keep = best >= 0 && !processed[best];
    for (const std::int32_t c : touched) {
      if (keep) edges[u].push_back({c, weight_to[c]});
      weight_to[c] = 0;
    }
    if (best < 0) continue;  // u stays a top-level community
    root_of[u] = best;
    d.merged_into[u] = best;
    d.members[best].push_back(u);
    strength[best] += strength[u];
  }
  return d;
}

}  // namespace

template <class T>
Permutation community_order(const Csr<T>& a) {
  reorder_detail::require_square(a.rows, a.cols, "the community ordering");
  const Adjacency g = reorder_detail::symmetrized(a.rows, a.row_ptr, a.col_idx);
  const Dendrogram d = aggregate(g);
  // Depth-first over the dendrogram from each top-level vertex, in index order: a vertex, then the
  // members that joined it, each with its own members, so every community is one consecutive range.
  std::vector<std::int32_t> old_of_new;
  old_of_new.reserve(static_cast<std::size_t>(g.n));
  std::vector<std::int32_t> stack;
  for (std::int64_t r = 0; r < g.n; ++r) {
    if (d.merged_into[r] != r) continue;
    stack.assign(1, static_cast<std::int32_t>(r));
    while (!stack.empty()) {
      const std::int32_t v = stack.back();
      stack.pop_back();
      old_of_new.push_back(v);
      const std::vector<std::int32_t>& m = d.members[v];
      stack.insert(stack.end(), m.rbegin(), m.rend());  // visited in merge order
    }
  }
  return Permutation::from_old_of_new(std::move(old_of_new));
}

template Permutation community_order(const Csr<float>&);
template Permutation community_order(const Csr<double>&);

}  // namespace spkit
