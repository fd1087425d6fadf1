#pragma once
// The mesh that fem_mesh and road_planar are cut from: a jittered lattice triangulated by "pulling"
// from random labels, and its P1 node graph.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gen/node_graph.hpp"

namespace spkit::gen_detail {

// A lattice of side^dims vertices (x fastest). Every square (2D) or cube (3D) is triangulated by
// "pulling" from its vertex of smallest random label: each face is split by the diagonal through its
// smallest-label vertex, and a cube is the cone from its smallest vertex over the three faces that do
// not contain it (6 tetrahedra). Faces are split the same way from both sides, so the mesh is conforming.
class PulledLattice {
 public:
  // Labels and jittered positions are read many times per vertex: computed once, in parallel.
  PulledLattice(std::int64_t side, int dims, std::uint64_t seed);
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
NodeGraph mesh_vertex_graph(const std::string& family, const PulledLattice& mesh);

}  // namespace spkit::gen_detail
