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
    const std::int64_t n = (family == "lap3d" || family == "fem" || family == "fem_mesh") ? 6 : (family == "lap2d" || family == "road" || family == "road_planar") ? 31 : 777;
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
    const std::int64_t n = (family == "lap3d" || family == "fem" || family == "fem_mesh") ? 23 : (family == "lap2d" || family == "road" || family == "road_planar") ? 130 : 20011;
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


// ---- families with the structure of real matrices -------------------------------------------------

// Off-diagonal degree of each row (dof 1).
std::vector<std::int64_t> degrees(const Csr<double>& a) {
  std::vector<std::int64_t> d(static_cast<std::size_t>(a.rows));
  for (std::int64_t i = 0; i < a.rows; ++i) d[i] = a.row_length(i) - (at(a, i, i) != 0.0);
  return d;
}

std::int64_t bandwidth(const Csr<double>& a) {
  std::int64_t b = 0;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) b = std::max<std::int64_t>(b, std::abs(a.col_idx[k] - i));
  return b;
}

TEST(Generate, RealStructureFamiliesListed) {
  auto f = generator_families();
  for (const char* name : {"rmat", "geometric", "fem_mesh", "road_planar", "circuit"})
    EXPECT_NE(std::find(f.begin(), f.end(), name), f.end()) << name;
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

TEST(Generate, RealStructureVariantsIndependentOfThreadCount) {
  const int saved = omp_get_max_threads();
  std::vector<GenOptions> variants;
  auto add = [&](const char* family, std::int64_t n, int dims, int order, const char* ordering) {
    GenOptions o = opts(family, n, 3);
    o.dims = dims;
    o.element_order = order;
    o.ordering = ordering;
    variants.push_back(o);
  };
  add("rmat", 30001, 0, 1, "");
  add("geometric", 30001, 2, 1, "");
  add("geometric", 20011, 3, 1, "random");
  add("fem_mesh", 60, 2, 2, "");
  add("fem_mesh", 14, 3, 1, "random");
  add("fem_mesh", 9, 3, 2, "");
  add("road_planar", 120, 0, 1, "");
  add("road_planar", 120, 0, 1, "random");
  for (const auto& o : variants) {
    SCOPED_TRACE(o.family + " dims " + std::to_string(o.dims) + " order " + std::to_string(o.element_order) + " " +
                 o.ordering);
    omp_set_num_threads(1);
    auto one = generate(o);
    omp_set_num_threads(3);
    auto three = generate(o);
    EXPECT_TRUE(same(one, three));
    EXPECT_GT(one.nnz(), 0);
  }
  omp_set_num_threads(saved);
}

TEST(Generate, RealStructureSizesAndOptions) {
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
  auto o = opts("fem_mesh", 5);
  o.dims = 4;
  EXPECT_NE(error_of(o).find("--dims"), std::string::npos);
  o = opts("fem_mesh", 5);
  o.element_order = 3;
  EXPECT_NE(error_of(o).find("--element-order"), std::string::npos);
  o = opts("fem_mesh", 5);
  o.dof = 4;
  EXPECT_NE(error_of(o).find("--dof"), std::string::npos);
  o = opts("road_planar", 5);
  o.ordering = "sfc";
  EXPECT_NE(error_of(o).find("--ordering"), std::string::npos);
  o = opts("rmat", 100);
  o.rmat_a = 0.9;
  EXPECT_NE(error_of(o).find("--rmat-a"), std::string::npos);
  o = opts("rmat", 100);
  o.edge_factor = 0;
  EXPECT_NE(error_of(o).find("--edge-factor"), std::string::npos);
  EXPECT_NE(error_of(opts("road_planar", 50000)).find("2^31"), std::string::npos);
  EXPECT_NE(error_of(opts("fem_mesh", 2000)).find("2^31"), std::string::npos);
  o = opts("geometric", 100);
  o.per_row = 0;
  EXPECT_NE(error_of(o).find("--per-row"), std::string::npos);
}

}  // namespace
}  // namespace spkit::test
