// The node numberings (src/gen/orderings.cpp): Morton keys interleave bits with x fastest, sorting
// by key breaks ties by id, the random numbering is a seeded permutation, BFS numbers front by front
// and then the other components, and the curve order follows positions.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "gen/node_graph.hpp"
#include "gen/orderings.hpp"

namespace spkit::test {
namespace {

using gen_detail::NodeGraph;

TEST(Generate, MortonKeyInterleavesBitsXFastest) {
  using gen_detail::morton;
  EXPECT_EQ(morton({1, 0, 0}, 2, 2), 0b0001u);
  EXPECT_EQ(morton({0, 1, 0}, 2, 2), 0b0010u);
  EXPECT_EQ(morton({2, 0, 0}, 2, 2), 0b0100u);
  EXPECT_EQ(morton({3, 3, 0}, 2, 2), 0b1111u);
  EXPECT_EQ(morton({0, 0, 1}, 3, 1), 0b100u);
  EXPECT_EQ(morton({1, 1, 0}, 3, 2), 0b000011u);
  EXPECT_EQ(morton({2, 0, 3}, 3, 2), 0b101100u);
  EXPECT_EQ(morton({5, 0, 0}, 2, 2), 0b0001u) << "bits above `bits` are ignored";
}

TEST(Generate, OrderByKeysBreaksTiesById) {
  // Sorted by (key, id): node 3 (key 0), 1 (key 1), 0 (key 5), 2 (key 5).
  const std::vector<std::int32_t> new_of_old = gen_detail::order_by_keys({5, 1, 5, 0});
  EXPECT_EQ(new_of_old, (std::vector<std::int32_t>{2, 1, 3, 0}));
}

TEST(Generate, RandomOrderIsASeededPermutation) {
  const std::int64_t n = 1000;
  const auto a = gen_detail::random_order(n, 7);
  std::vector<std::int32_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);
  EXPECT_EQ(gen_detail::random_order(n, 7), a);
  EXPECT_NE(gen_detail::random_order(n, 8), a);
  std::int64_t fixed = 0;
  for (std::int64_t i = 0; i < n; ++i) fixed += a[i] == i;
  EXPECT_LT(fixed, n / 50) << "should scramble";
}

// Symmetric adjacency of the undirected edges, sorted per node.
NodeGraph graph_of(std::int64_t nodes, const std::vector<std::array<std::int32_t, 2>>& edges) {
  NodeGraph g;
  g.nodes = nodes;
  std::vector<std::vector<std::int32_t>> adj(static_cast<std::size_t>(nodes));
  for (const auto& e : edges) {
    adj[e[0]].push_back(e[1]);
    adj[e[1]].push_back(e[0]);
  }
  g.ptr.push_back(0);
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    g.adj.insert(g.adj.end(), a.begin(), a.end());
    g.ptr.push_back(static_cast<std::int64_t>(g.adj.size()));
  }
  return g;
}

TEST(Generate, BfsOrderNumbersFrontByFrontThenOtherComponents) {
  // The path 0-1-2-3, the edge 4-5 apart, and the isolated node 6; BFS from 2.
  const NodeGraph g = graph_of(7, {{0, 1}, {1, 2}, {2, 3}, {4, 5}});
  EXPECT_EQ(gen_detail::bfs_order(g, 2), (std::vector<std::int32_t>{3, 1, 0, 2, 4, 5, 6}));
  // From an end of the path: numbered along it.
  EXPECT_EQ(gen_detail::bfs_order(g, 3), (std::vector<std::int32_t>{3, 2, 1, 0, 4, 5, 6}));
}

TEST(Generate, SfcOrderFollowsTheMortonCurveOfPositions) {
  // The corners of the unit square, given out of order: numbered (0,0), (1,0), (0,1), (1,1).
  const std::vector<std::array<double, 2>> position = {{1, 1}, {0, 1}, {1, 0}, {0, 0}};
  const auto new_of_old = gen_detail::sfc_order_of_positions(
      4, 2, 1.0, [&](std::int64_t i, int d) { return position[static_cast<std::size_t>(i)][d]; });
  EXPECT_EQ(new_of_old, (std::vector<std::int32_t>{3, 2, 1, 0}));
}

}  // namespace
}  // namespace spkit::test
