// The pulled lattice's labels and jittered positions, and its P1 node graph (see pulled_lattice.hpp).
#include "gen/pulled_lattice.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gen/rng.hpp"

namespace spkit::gen_detail {

PulledLattice::PulledLattice(std::int64_t side, int dims, std::uint64_t seed)
    : side_(side), dims_(dims), seed_(seed) {
  vertices_ = dims == 2 ? side * side : side * side * side;
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

// The P1 node graph of a pulled lattice: vertices joined when they share an element.
NodeGraph mesh_vertex_graph(const std::string& family, const PulledLattice& mesh) {
  return build_node_graph(family, mesh.vertices(), [&](std::int64_t v, std::vector<std::int32_t>& out) {
    mesh.for_each_element_at(v, [&](const std::array<std::int64_t, 4>& e) {
      for (int k = 0; k <= mesh.dims(); ++k)
        if (e[k] != v) out.push_back(static_cast<std::int32_t>(e[k]));
    });
  });
}

}  // namespace spkit::gen_detail
