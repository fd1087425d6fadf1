// The random families (src/gen/random_graphs.cpp): k uniform columns per row (random), heavy-tailed
// row lengths and skewed columns (powerlaw), and R-MAT's skewed degrees without locality (rmat).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gen/gen_check.hpp"

namespace spkit::test {
namespace {

TEST(Generate, RandomKPerRowUniform) {
  auto o = opts("random", 2000);
  o.per_row = 10;
  auto a = generate(o);
  check_csr(a);
  EXPECT_EQ(a.nnz(), 20000);
  for (std::int64_t i = 0; i < a.rows; ++i) ASSERT_EQ(a.row_length(i), 10);
  expect_no_zero_values(a);
  // Uniform columns: each decile of the columns holds about a tenth of the entries.
  std::vector<std::int64_t> decile(10, 0);
  for (auto c : a.col_idx) ++decile[c * 10 / a.cols];
  for (auto d : decile) EXPECT_NEAR(d, 2000, 300);
  // Non-square, and k close to the column count (the dense path).
  o.cols = 13;
  o.per_row = 12;
  o.n = 50;
  auto b = generate(o);
  check_csr(b);
  EXPECT_EQ(b.cols, 13);
  EXPECT_EQ(b.nnz(), 600);
  o.per_row = 13;
  auto full = generate(o);
  check_csr(full);
  EXPECT_EQ(full.nnz(), 650);
}

TEST(Generate, PowerlawHeavyTailAndSkewedColumns) {
  auto o = opts("powerlaw", 40000);
  o.per_row = 8;
  auto a = generate(o);
  check_csr(a);
  expect_no_zero_values(a);
  const double mean = static_cast<double>(a.nnz()) / static_cast<double>(a.rows);
  EXPECT_NEAR(mean, 8.0, 0.4);
  std::int64_t max_len = 0, empty = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    max_len = std::max(max_len, a.row_length(i));
    empty += a.row_length(i) == 0;
  }
  EXPECT_GT(max_len, 50 * 8) << "row lengths should be heavy-tailed";
  EXPECT_NEAR(static_cast<double>(empty) / static_cast<double>(a.rows), 0.03, 0.002) << "3% dangling rows";
  // Columns skewed towards low indices (density ~ c^-1/2: the first 10% hold ~32%).
  std::int64_t low = 0;
  for (auto c : a.col_idx) low += c < a.cols / 10;
  EXPECT_GT(static_cast<double>(low) / static_cast<double>(a.nnz()), 0.2);
  // A steeper exponent gives a heavier tail at the same mean.
  o.zipf_s = 0.5;
  auto light = generate(o);
  std::int64_t light_max = 0;
  for (std::int64_t i = 0; i < light.rows; ++i) light_max = std::max(light_max, light.row_length(i));
  EXPECT_LT(light_max, max_len);
  // Tiny sizes where the longest rows are dense.
  for (std::int64_t n : {1, 2, 9, 517}) {
    auto t = opts("powerlaw", n);
    t.per_row = static_cast<int>(std::min<std::int64_t>(n, 8));
    auto m = generate(t);
    check_csr(m);
    EXPECT_EQ(m.rows, n);
  }
}

TEST(Generate, RmatSkewedDegreesNoLocality) {
  auto o = opts("rmat", 1 << 14);
  auto a = generate(o);
  check_csr(a);  // sorted, distinct columns: duplicate edges merged
  expect_no_zero_values(a);
  EXPECT_EQ(a.rows, 1 << 14);
  // Duplicates merged: fewer than drawn, most survive.
  EXPECT_LE(a.nnz(), (1 << 14) * 16);
  EXPECT_GT(a.nnz(), (1 << 14) * 16 * 8 / 10);
  const double mean = static_cast<double>(a.nnz()) / a.rows;
  std::int64_t longest = 0, empty = 0, near = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    longest = std::max(longest, a.row_length(i));
    empty += a.row_length(i) == 0;
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) near += std::abs(a.col_idx[k] - i) < a.rows / 100;
  }
  EXPECT_GT(static_cast<double>(longest), 20 * mean) << "hubs: a few very long rows";
  EXPECT_GT(empty, a.rows / 10) << "R-MAT leaves many vertices without out-edges";
  EXPECT_LT(static_cast<double>(near) / static_cast<double>(a.nnz()), 0.05) << "scrambled labels: no locality";
  EXPECT_GT(bandwidth(a), a.rows * 9 / 10);
  // Not symmetric (directed edges, independent values).
  bool symmetric = true;
  for (std::int64_t i = 0; i < a.rows && symmetric; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      if (at(a, a.col_idx[k], i) != a.values[k]) {
        symmetric = false;
        break;
      }
  EXPECT_FALSE(symmetric);
  // n not a power of two, uniform quadrants: still n x n and valid.
  o = opts("rmat", 1000);
  o.rmat_a = o.rmat_b = o.rmat_c = 0.25;
  auto u = generate(o);
  check_csr(u);
  EXPECT_EQ(u.rows, 1000);
}

}  // namespace
}  // namespace spkit::test
