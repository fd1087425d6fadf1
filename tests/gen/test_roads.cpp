// The road families (src/gen/roads.cpp): the grid with edges removed (road) keeps only grid
// neighbours at ~2.8 per row; the planar road network (road_planar) has degrees <= 4, mostly 2-3,
// and a BFS numbering that keeps neighbours close.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>

#include "gen/gen_check.hpp"

namespace spkit::test {
namespace {

TEST(Generate, RoadPlanarSparse) {
  auto a = generate(opts("road", 300));
  check_csr(a);
  EXPECT_EQ(a.rows, 90000);
  const double mean = static_cast<double>(a.nnz()) / static_cast<double>(a.rows);
  EXPECT_NEAR(mean, 2.8, 0.05);
  expect_symmetric_dominant(a);
  // Only grid neighbours: |i - j| in {0, 1, n}.
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const std::int64_t d = std::abs(a.col_idx[k] - i);
      ASSERT_TRUE(d == 0 || d == 1 || d == 300) << i << " " << a.col_idx[k];
    }
  for (std::int64_t n : {1, 2, 21}) check_csr(generate(opts("road", n)));
}

TEST(Generate, RoadPlanarDegreesAndNumbering) {
  const std::int64_t n = 150;
  auto a = generate(opts("road_planar", n));
  check_csr(a);
  expect_no_zero_values(a);
  expect_symmetric_dominant(a);
  EXPECT_EQ(a.rows, n * n);
  const auto d = degrees(a);
  std::map<std::int64_t, std::int64_t> hist;
  for (auto x : d) ++hist[x];
  EXPECT_LE(hist.rbegin()->first, 4) << "crossings join at most 4 roads";
  const double mean = static_cast<double>(a.nnz() - a.rows) / a.rows;
  EXPECT_GT(mean, 2.0);
  EXPECT_LT(mean, 3.0);
  EXPECT_LT(hist[0], a.rows / 100) << "almost no isolated crossing";
  EXPECT_GT(hist[2] + hist[3], a.rows / 2) << "mostly degree 2 and 3";
  EXPECT_GT(hist[4], 0);
  // A planar graph has at most 3V - 6 edges (the mesh it is cut from is a planar triangulation).
  EXPECT_LE((a.nnz() - a.rows) / 2, 3 * a.rows - 6);
  // BFS numbering keeps neighbours within a few fronts; random numbering spreads them.
  EXPECT_LT(bandwidth(a), 6 * n);
  auto o = opts("road_planar", n);
  o.ordering = "random";
  auto r = generate(o);
  EXPECT_EQ(r.nnz(), a.nnz());
  EXPECT_GT(bandwidth(r), a.rows / 2);
}

}  // namespace
}  // namespace spkit::test
