// The generator: shapes and exact non-zero counts of the stencil families, statistical properties of
// the random ones, symmetry and diagonal dominance where promised, sorted distinct columns,
// determinism for a seed and across thread counts, option validation and size_for_nnz.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "gen/rng.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"

namespace spkit::test {
namespace {

GenOptions opts(const std::string& family, std::int64_t n, std::uint64_t seed = 42) {
  GenOptions o;
  o.family = family;
  o.n = n;
  o.seed = seed;
  return o;
}

bool same(const Csr<double>& a, const Csr<double>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.values == b.values;
}

// Value at (i, j) or 0 when not stored (binary search: columns are sorted).
double at(const Csr<double>& a, std::int64_t i, std::int64_t j) {
  auto b = a.col_idx.begin() + a.row_ptr[i], e = a.col_idx.begin() + a.row_ptr[i + 1];
  auto it = std::lower_bound(b, e, static_cast<std::int32_t>(j));
  return (it != e && *it == j) ? a.values[it - a.col_idx.begin()] : 0.0;
}

void expect_no_zero_values(const Csr<double>& a) {
  for (double v : a.values) ASSERT_NE(v, 0.0);
}

// Symmetric in structure and values, positive diagonal larger than the off-diagonal absolute sum.
void expect_symmetric_dominant(const Csr<double>& a) {
  ASSERT_EQ(a.rows, a.cols);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    double diag = 0, off = 0;
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const std::int64_t j = a.col_idx[k];
      if (j == i) {
        diag = a.values[k];
      } else {
        off += std::abs(a.values[k]);
        ASSERT_EQ(at(a, j, i), a.values[k]) << "not symmetric at (" << i << ", " << j << ")";
      }
    }
    ASSERT_GT(diag, off) << "row " << i << " not strictly diagonally dominant";
  }
}

TEST(Generate, IndexPermutationIsABijection) {
  for (std::uint64_t n : {1, 2, 3, 5, 17, 1000, 4097}) {
    gen_detail::IndexPermutation p(n, 99);
    std::vector<int> hit(n, 0);
    std::uint64_t fixed_points = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t j = p(i);
      ASSERT_LT(j, n);
      ++hit[j];
      fixed_points += j == i;
    }
    for (int h : hit) ASSERT_EQ(h, 1) << "n = " << n;
    if (n >= 1000) EXPECT_LT(fixed_points, n / 50) << "should scramble";
  }
}

TEST(Generate, FamiliesListed) {
  auto f = generator_families();
  for (const char* name : {"lap2d", "lap3d", "fem", "random", "powerlaw", "road", "circuit", "banded"})
    EXPECT_NE(std::find(f.begin(), f.end(), name), f.end()) << name;
}

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

TEST(Generate, CircuitDenseRowsAndColumns) {
  const std::int64_t n = 5000;
  auto o = opts("circuit", n);
  o.per_row = 6;
  auto a = generate(o);
  check_csr(a);
  expect_no_zero_values(a);
  std::int64_t max_len = 0, near = 0, off = 0;
  std::vector<std::int64_t> col_count(n, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    max_len = std::max(max_len, a.row_length(i));
    ASSERT_NE(at(a, i, i), 0.0) << "diagonal missing in row " << i;
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      ++col_count[a.col_idx[k]];
      if (a.col_idx[k] != i) {
        ++off;
        near += std::abs(a.col_idx[k] - i) <= 16;
      }
    }
  }
  EXPECT_GE(max_len, n / 2) << "a dense row";
  EXPECT_GE(*std::max_element(col_count.begin(), col_count.end()), n / 20) << "a dense column";
  std::vector<std::int64_t> lengths(n);
  for (std::int64_t i = 0; i < n; ++i) lengths[i] = a.row_length(i);
  std::nth_element(lengths.begin(), lengths.begin() + n / 2, lengths.end());
  EXPECT_LE(lengths[n / 2], 2 * o.per_row) << "most rows stay short";
  EXPECT_GT(static_cast<double>(near) / static_cast<double>(off), 0.4) << "mostly near the diagonal";
  for (std::int64_t tiny : {1, 2, 3, 401}) check_csr(generate(opts("circuit", tiny)));
}

TEST(Generate, DeterministicForASeed) {
  for (const auto& family : generator_families()) {
    SCOPED_TRACE(family);
    const std::int64_t n = (family == "lap3d" || family == "fem") ? 6 : (family == "lap2d" || family == "road") ? 31 : 777;
    auto a = generate(opts(family, n, 5));
    auto b = generate(opts(family, n, 5));
    EXPECT_TRUE(same(a, b));
    auto c = generate(opts(family, n, 6));
    EXPECT_EQ(c.rows, a.rows);
    EXPECT_FALSE(same(a, c)) << "a different seed should change the values";
  }
}

TEST(Generate, IndependentOfThreadCount) {
  const int saved = omp_get_max_threads();
  for (const auto& family : generator_families()) {
    SCOPED_TRACE(family);
    // Sizes with several work chunks, so threads really share the rows.
    const std::int64_t n = (family == "lap3d" || family == "fem") ? 23 : (family == "lap2d" || family == "road") ? 130 : 20011;
    omp_set_num_threads(1);
    auto one = generate(opts(family, n, 9));
    omp_set_num_threads(3);
    auto three = generate(opts(family, n, 9));
    EXPECT_TRUE(same(one, three));
  }
  omp_set_num_threads(saved);
}

TEST(Generate, ProgressReachesOne) {
  std::vector<double> seen;
  generate(opts("random", 100000), [&](double f) { seen.push_back(f); });
  ASSERT_FALSE(seen.empty());
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  for (double f : seen) {
    EXPECT_GT(f, 0.0);
    EXPECT_LE(f, 1.0);
  }
}

std::string error_of(const GenOptions& o) {
  try {
    generate(o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Generate, RejectsBadOptionsWithClearMessages) {
  EXPECT_NE(error_of(opts("lapl2d", 4)).find("unknown generator family 'lapl2d'"), std::string::npos);
  EXPECT_NE(error_of(opts("lap2d", 0)).find("--n"), std::string::npos);
  EXPECT_NE(error_of(opts("random", -3)).find("--n"), std::string::npos);
  auto o = opts("lap3d", 4);
  o.points = 9;
  EXPECT_NE(error_of(o).find("--points"), std::string::npos);
  o = opts("fem", 4);
  o.dof = 0;
  EXPECT_NE(error_of(o).find("--dof"), std::string::npos);
  o = opts("random", 10);
  o.per_row = 11;
  EXPECT_NE(error_of(o).find("--per-row"), std::string::npos);
  o = opts("banded", 10);
  o.bandwidth = -1;
  EXPECT_NE(error_of(o).find("--bandwidth"), std::string::npos);
  o = opts("powerlaw", 100);
  o.zipf_s = 0;
  EXPECT_NE(error_of(o).find("Zipf"), std::string::npos);
  EXPECT_NE(error_of(opts("lap3d", 2000)).find("2^31"), std::string::npos);
  EXPECT_NE(error_of(opts("road", 50000)).find("2^31"), std::string::npos);
  EXPECT_THROW(size_for_nnz("nope", 100), Error);
  // Refused before anything large is allocated: 2e12 non-zeros.
  o = opts("random", 2'000'000'000);
  o.per_row = 1000;
  EXPECT_THROW(generate(o), TooLarge);
}

TEST(Generate, SizeForNnzHitsTheTarget) {
  const std::int64_t target = 300000;
  for (const auto& family : generator_families()) {
    SCOPED_TRACE(family);
    GenOptions base;
    base.family = family;
    base.n = size_for_nnz(family, target, base);
    auto a = generate(base);
    EXPECT_GT(a.nnz(), target * 7 / 10);
    EXPECT_LT(a.nnz(), target * 13 / 10);
  }
  GenOptions base;
  base.points = 27;
  base.family = "lap3d";
  base.n = size_for_nnz("lap3d", target, base);
  auto a = generate(base);
  EXPECT_NEAR(static_cast<double>(a.nnz()), target, 0.3 * target);
  EXPECT_EQ(size_for_nnz("random", 0), 1);
}

}  // namespace
}  // namespace spkit::test
