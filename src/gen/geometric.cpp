// The geometric family: a random geometric graph, n uniform points in the unit square or cube joined
// when closer than r, numbered along a Morton curve of their cells or randomly.
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
#include "gen/rng.hpp"

namespace spkit::gen_detail {

std::unique_ptr<RowGenerator> make_geometric(const GenOptions& o) {
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

}  // namespace spkit::gen_detail
