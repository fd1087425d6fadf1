// The geometric family (src/gen/geometric.cpp): mean neighbours near --per-row, Poisson-like degrees,
// symmetry, and locality along the Morton curve against a random numbering.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "gen/gen_check.hpp"

namespace spkit::test {
namespace {

TEST(Generate, GeometricNeighboursAndSymmetry) {
  for (int dims : {2, 3}) {
    SCOPED_TRACE(dims);
    auto o = opts("geometric", 20000);
    o.dims = dims;
    o.per_row = 10;
    auto a = generate(o);
    check_csr(a);
    expect_no_zero_values(a);
    expect_symmetric_dominant(a);
    const double mean_neighbours = static_cast<double>(a.nnz() - a.rows) / a.rows;
    // Fewer near the boundary of the unit square/cube.
    EXPECT_GT(mean_neighbours, 0.8 * o.per_row);
    EXPECT_LT(mean_neighbours, 1.05 * o.per_row);
    // Poisson-like degrees: a spread, no hubs.
    const auto d = degrees(a);
    EXPECT_LT(*std::max_element(d.begin(), d.end()), 5 * o.per_row);
    EXPECT_GT(*std::max_element(d.begin(), d.end()), o.per_row + 3);
  }
  auto o = opts("geometric", 20000);
  auto sfc = generate(o);
  o.ordering = "random";
  auto random = generate(o);
  EXPECT_EQ(random.nnz(), sfc.nnz()) << "same graph, numbered differently";
  // Along the curve most neighbours are near in the numbering; randomly numbered they are not.
  auto near_fraction = [](const Csr<double>& a) {
    std::int64_t near = 0;
    for (std::int64_t i = 0; i < a.rows; ++i)
      for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) near += std::abs(a.col_idx[k] - i) <= 1000;
    return static_cast<double>(near) / static_cast<double>(a.nnz());
  };
  EXPECT_GT(near_fraction(sfc), 0.7);
  EXPECT_LT(near_fraction(random), 0.3);
}

}  // namespace
}  // namespace spkit::test
