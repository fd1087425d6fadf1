#pragma once
// Node numberings of the node-graph families (geometric, fem_mesh, road_planar), each a new_of_old
// map, deterministic for any thread count: along a Morton curve, breadth-first, or random.
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "gen/node_graph.hpp"

namespace spkit::gen_detail {

// Interleaves the low `bits` bits of up to 3 coordinates (x fastest): a Morton (Z-order) key.
std::uint64_t morton(const std::array<std::uint32_t, 3>& c, int dims, int bits);
// new_of_old from a sort of the nodes by (key, old id).
std::vector<std::int32_t> order_by_keys(const std::vector<std::uint64_t>& keys);
// A seeded random numbering of n nodes.
std::vector<std::int32_t> random_order(std::int64_t n, std::uint64_t seed);
// Breadth-first order from `start`; further components from their smallest unvisited node.
std::vector<std::int32_t> bfs_order(const NodeGraph& g, std::int64_t start);
// Along a Morton curve of the nodes' positions (coordinates in [-0.5, extent + 0.5]).
std::vector<std::int32_t> sfc_order_of_positions(std::int64_t nodes, int dims, double extent,
                                                 const std::function<double(std::int64_t, int)>& position);

}  // namespace spkit::gen_detail
