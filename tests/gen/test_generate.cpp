// The generator's family table and dispatch (src/gen/generate.cpp), across every family: the
// families listed, determinism for a seed and across thread counts, progress, option validation with
// messages that name the option, and size_for_nnz. Each family's own properties are tested in
// test_<file>.cpp next to this file, as the families are split in src/gen/.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gen/gen_check.hpp"

namespace spkit::test {
namespace {

TEST(Generate, FamiliesListed) {
  auto f = generator_families();
  for (const char* name : {"lap2d", "lap3d", "fem", "random", "powerlaw", "road", "circuit", "banded"})
    EXPECT_NE(std::find(f.begin(), f.end(), name), f.end()) << name;
}

TEST(Generate, RealStructureFamiliesListed) {
  auto f = generator_families();
  for (const char* name : {"rmat", "geometric", "fem_mesh", "road_planar", "circuit"})
    EXPECT_NE(std::find(f.begin(), f.end(), name), f.end()) << name;
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

TEST(Generate, RealStructureRejectsBadOptions) {
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
