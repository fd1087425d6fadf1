// The fem_mesh family (src/gen/meshes.cpp): exact non-zero counts of the conforming P1 triangulation
// (2D and 3D), P2 node counts, dense dof x dof blocks, and size_for_nnz's fit for every variant.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "gen/gen_check.hpp"

namespace spkit::test {
namespace {

TEST(Generate, FemMeshConformingTriangulation) {
  // 2D P1, dof 1: n^2 vertices; lattice edges 2n(n-1) plus exactly one diagonal per square.
  const std::int64_t n = 40;
  auto o = opts("fem_mesh", n);
  o.dims = 2;
  o.dof = 1;
  auto a = generate(o);
  check_csr(a);
  expect_no_zero_values(a);
  expect_symmetric_dominant(a);
  EXPECT_EQ(a.rows, n * n);
  EXPECT_EQ(a.nnz(), n * n + 2 * (2 * n * (n - 1) + (n - 1) * (n - 1)));
  const auto d = degrees(a);
  EXPECT_GE(*std::min_element(d.begin(), d.end()), 2);
  EXPECT_LE(*std::max_element(d.begin(), d.end()), 8);
  EXPECT_NEAR(static_cast<double>(a.nnz() - a.rows) / a.rows, 6.0, 0.5);
  EXPECT_GT(bandwidth(a), 3 * n) << "numbered along a curve, not row by row";
  // 3D P1: axis edges 3n^2(n-1), one diagonal per face 3n(n-1)^2, one body diagonal per cube (n-1)^3.
  const std::int64_t m = 9;
  o = opts("fem_mesh", m);
  o.dof = 1;
  a = generate(o);
  check_csr(a);
  expect_symmetric_dominant(a);
  EXPECT_EQ(a.rows, m * m * m);
  EXPECT_EQ(a.nnz(), m * m * m + 2 * (3 * m * m * (m - 1) + 3 * m * (m - 1) * (m - 1) + (m - 1) * (m - 1) * (m - 1)));
}

TEST(Generate, FemMeshP2AndDofBlocks) {
  // P2 2D: a node per vertex and per edge; E = 2n(n-1) + (n-1)^2.
  const std::int64_t n = 12;
  auto o = opts("fem_mesh", n);
  o.dims = 2;
  o.dof = 1;
  o.element_order = 2;
  auto a = generate(o);
  check_csr(a);
  expect_symmetric_dominant(a);
  EXPECT_EQ(a.rows, n * n + 2 * n * (n - 1) + (n - 1) * (n - 1));
  // A P2 triangle couples its 6 nodes: rows have at least 6 entries, vertex rows up to 1 + 8*... entries.
  for (std::int64_t i = 0; i < a.rows; ++i) EXPECT_GE(a.row_length(i), 6) << "row " << i;
  // 3D, P2, dof 3: rows in groups of 3 with identical columns, columns in aligned triples.
  o = opts("fem_mesh", 5);
  o.element_order = 2;
  o.dof = 3;
  auto b = generate(o);
  check_csr(b);
  expect_no_zero_values(b);
  expect_symmetric_dominant(b);
  ASSERT_EQ(b.rows % 3, 0);
  for (std::int64_t i = 0; i < b.rows; i += 3) {
    ASSERT_EQ(b.row_length(i), b.row_length(i + 1));
    ASSERT_EQ(b.row_length(i), b.row_length(i + 2));
    for (std::int64_t k = 0; k < b.row_length(i); ++k) {
      ASSERT_EQ(b.col_idx[b.row_ptr[i] + k], b.col_idx[b.row_ptr[i + 2] + k]);
      if (k % 3 == 0) ASSERT_EQ(b.col_idx[b.row_ptr[i] + k] % 3, 0);
    }
  }
  o.ordering = "random";
  EXPECT_EQ(generate(o).nnz(), b.nnz());
}

TEST(Generate, FemMeshSizeForNnzHitsTheTarget) {
  const std::int64_t target = 400000;
  for (int dims : {2, 3})
    for (int order : {1, 2})
      for (int dof : {1, 3}) {
        SCOPED_TRACE("fem_mesh dims " + std::to_string(dims) + " P" + std::to_string(order) + " dof " + std::to_string(dof));
        GenOptions o;
        o.family = "fem_mesh";
        o.dims = dims;
        o.element_order = order;
        o.dof = dof;
        o.n = size_for_nnz("fem_mesh", target, o);
        auto a = generate(o);
        EXPECT_GT(a.nnz(), target * 6 / 10);
        EXPECT_LT(a.nnz(), target * 14 / 10);
      }
}

}  // namespace
}  // namespace spkit::test
