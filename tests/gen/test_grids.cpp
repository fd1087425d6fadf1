// The grid families (src/gen/grids.cpp): shapes and exact non-zero counts of the stencils (lap2d,
// lap3d 7/27 points, fem with dense dof x dof blocks) and of the full band (banded), symmetry and
// strict diagonal dominance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "gen/gen_check.hpp"

namespace spkit::test {
namespace {

TEST(Generate, Lap2dShapeAndCount) {
  for (std::int64_t n : {1, 2, 3, 23}) {
    auto a = generate(opts("lap2d", n));
    check_csr(a);
    EXPECT_EQ(a.rows, n * n);
    EXPECT_EQ(a.cols, n * n);
    EXPECT_EQ(a.nnz(), 5 * n * n - 4 * n);  // each of the 4n boundary-missing neighbours
    expect_symmetric_dominant(a);
    expect_no_zero_values(a);
  }
  // The 5-point pattern: (i, i±1) within a grid row, (i, i±n).
  auto a = generate(opts("lap2d", 4));
  EXPECT_NE(at(a, 5, 4), 0.0);
  EXPECT_NE(at(a, 5, 1), 0.0);
  EXPECT_NE(at(a, 5, 9), 0.0);
  EXPECT_EQ(at(a, 4, 3), 0.0);  // 4 starts a new grid row
  EXPECT_EQ(at(a, 5, 0), 0.0);  // no diagonal neighbours
}

TEST(Generate, Lap3dSevenAndTwentySevenPoints) {
  for (std::int64_t n : {1, 2, 7}) {
    auto o = opts("lap3d", n);
    o.points = 7;
    auto a = generate(o);
    check_csr(a);
    EXPECT_EQ(a.rows, n * n * n);
    EXPECT_EQ(a.nnz(), 7 * n * n * n - 6 * n * n);
    expect_symmetric_dominant(a);
    o.points = 27;
    auto b = generate(o);
    check_csr(b);
    EXPECT_EQ(b.rows, n * n * n);
    EXPECT_EQ(b.nnz(), (3 * n - 2) * (3 * n - 2) * (3 * n - 2));
    expect_symmetric_dominant(b);
    expect_no_zero_values(b);
  }
  auto o = opts("lap3d", 5);
  o.points = 27;
  auto a = generate(o);
  EXPECT_EQ(a.row_length(62), 27);  // the centre node (2,2,2)
  EXPECT_EQ(a.row_length(0), 8);    // a corner
}

TEST(Generate, FemDenseDofBlocks) {
  for (int dof : {1, 2, 3}) {
    for (std::int64_t n : {1, 4}) {
      auto o = opts("fem", n);
      o.dof = dof;
      auto a = generate(o);
      check_csr(a);
      EXPECT_EQ(a.rows, dof * n * n * n);
      EXPECT_EQ(a.nnz(), static_cast<std::int64_t>(dof) * dof * (7 * n * n * n - 6 * n * n));
      expect_symmetric_dominant(a);
      // Rows of one node have the same columns, in runs of dof consecutive columns.
      for (std::int64_t node = 0; node < n * n * n; ++node)
        for (int c = 1; c < dof; ++c) {
          const std::int64_t r0 = node * dof, r = r0 + c;
          ASSERT_EQ(a.row_length(r), a.row_length(r0));
          for (std::int64_t k = 0; k < a.row_length(r); ++k)
            ASSERT_EQ(a.col_idx[a.row_ptr[r] + k], a.col_idx[a.row_ptr[r0] + k]);
        }
    }
  }
}

TEST(Generate, BandedFullBand) {
  for (int b : {0, 1, 5, 400}) {
    const std::int64_t n = 299;
    auto o = opts("banded", n);
    o.bandwidth = b;
    auto a = generate(o);
    check_csr(a);
    const std::int64_t bb = std::min<std::int64_t>(b, n - 1);
    EXPECT_EQ(a.nnz(), n * (2 * bb + 1) - bb * (bb + 1));
    expect_symmetric_dominant(a);
  }
}

}  // namespace
}  // namespace spkit::test
