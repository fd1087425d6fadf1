// Node numberings of the node-graph families (see orderings.hpp).
#include "gen/orderings.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "gen/rng.hpp"

namespace spkit::gen_detail {

// Interleaves the low `bits` bits of up to 3 coordinates (x fastest): a Morton (Z-order) key.
std::uint64_t morton(const std::array<std::uint32_t, 3>& c, int dims, int bits) {
  std::uint64_t key = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int d = dims - 1; d >= 0; --d) key = (key << 1) | ((c[d] >> b) & 1u);
  return key;
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

}  // namespace spkit::gen_detail
