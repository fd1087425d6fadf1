// CPU DIA kernels: the tiled kernel on stencils, bands and clipped diagonals, and the symmetric kernel,
// which only exactly symmetric matrices get.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_kernel_check.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/coo.hpp"
#include "spkit/gen.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

// The diagonal path that cpu.csr.omp.spkit used to hide is now the DIA kernels (kernels/cpu/dia.cpp).
TEST(CpuDiaKernels, TiledKernelOnStencilsBandsAndClippedDiagonals) {
  auto on_dia = [](const Csr<double>& a, const char* what) {
    for (int th : {1, 2, 3}) {
      PlanOptions po;
      po.threads = th;
      std::string detail;
      expect_valid<double>("cpu.dia.omp", a, po, &detail);
      expect_valid<float>("cpu.dia.omp", a, po);
      EXPECT_NE(detail.find("diagonals, padding"), std::string::npos) << what << ": " << detail;
      expect_valid<double>("cpu.csr.omp.spkit", a, po, &detail);  // pure CSR now, on the same matrix
      EXPECT_NE(detail.find("merge-path"), std::string::npos) << what << ": " << detail;
    }
    PlanOptions po;
    expect_valid<double>("cpu.dia.serial", a, po);
  };
  GenOptions g;
  g.family = "lap3d";
  g.n = 21;  // 9261 rows: interior tiles and clipped boundary tiles, last tile partial
  g.points = 27;
  on_dia(generate(g), "lap3d 27-point");
  g.family = "lap2d";
  g.n = 77;
  on_dia(generate(g), "lap2d");
  // Band of half width 3 on 5003 rows: diagonals -3..3 clipped at both corners.
  std::vector<std::vector<std::int32_t>> band(5003);
  for (int i = 0; i < 5003; ++i)
    for (int j = std::max(0, i - 3); j <= std::min(5002, i + 3); ++j) band[i].push_back(j);
  on_dia(random_csr(5003, 5003, 8, band), "band");
  // Wide 3000 x 6000 with diagonals 0..5 and 2995..3005: the far ones leave the matrix on the right.
  std::vector<std::vector<std::int32_t>> wide(3000);
  for (int i = 0; i < 3000; ++i) {
    for (int d = 0; d <= 5; ++d) wide[i].push_back(i + d);
    for (int d = 2995; d <= 3005; ++d)
      if (i + d < 6000) wide[i].push_back(i + d);
  }
  on_dia(random_csr(3000, 6000, 9, wide), "wide");
  // Tall 6000 x 3000 with diagonals -3000..-2990 and 0..5: half the rows hold only some diagonals, so the
  // dense diagonals would move more than CSR: the DIA kernels refuse, the CSR kernel runs.
  std::vector<std::vector<std::int32_t>> tall(6000);
  for (int i = 0; i < 6000; ++i) {
    for (int d = -3000; d <= -2990; ++d)
      if (i + d >= 0 && i + d < 3000) tall[i].push_back(i + d);
    for (int d = 0; d <= 5; ++d)
      if (i + d < 3000) tall[i].push_back(i + d);
  }
  PlanOptions po;
  po.threads = 2;
  const Csr<double> t = random_csr(6000, 3000, 10, tall);
  expect_valid<double>("cpu.csr.omp.spkit", t, po);
  EXPECT_THROW(registry().find("cpu.dia.omp")->make_f64(t, po), NotApplicable);
}

// Diagonals 0, +-1, +-5, +-67, +-130 on n rows with a_ij == a_ji exactly (random values): few enough
// diagonals for DIA, and reaching past one 64-row tile.
Csr<double> symmetric_band(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(0.25, 1.0);
  Coo<double> coo;
  coo.rows = coo.cols = n;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t d : {0, 1, 5, 67, 130}) {
      const std::int64_t j = i + d;
      if (j >= n) continue;
      const double v = val(rng);
      coo.row_idx.push_back(static_cast<std::int32_t>(i));
      coo.col_idx.push_back(static_cast<std::int32_t>(j));
      coo.values.push_back(v);
      if (j != i) {
        coo.row_idx.push_back(static_cast<std::int32_t>(j));
        coo.col_idx.push_back(static_cast<std::int32_t>(i));
        coo.values.push_back(v);
      }
    }
  return coo_to_csr(coo);
}

TEST(CpuDiaKernels, SymmetricKernelOnlyForExactlySymmetricMatrices) {
  auto detail_of = [](const Csr<double>& a, int threads) {
    PlanOptions po;
    po.threads = threads;
    std::string detail;
    expect_valid<double>("cpu.dia.omp_sym", a, po, &detail);
    expect_valid<float>("cpu.dia.omp_sym", a, po);
    return detail;
  };
  auto refused = [](const Csr<double>& a) {
    PlanOptions po;
    po.threads = 2;
    expect_valid<double>("cpu.dia.omp", a, po);  // the full DIA kernel still applies
    try {
      registry().find("cpu.dia.omp_sym")->make_f64(a, po);
      return false;
    } catch (const NotApplicable&) {
      return true;
    }
  };
  // 5003 rows: last tile partial, diagonals clipped at both corners.
  const auto sym = symmetric_band(5003, 31);
  for (int th : {1, 2, 3}) EXPECT_NE(detail_of(sym, th).find("symmetric"), std::string::npos);
  GenOptions g;
  g.family = "lap3d";
  g.n = 21;
  g.points = 27;
  EXPECT_NE(detail_of(generate(g), 2).find("symmetric: 14 of 27"), std::string::npos);
  // One value off by one ulp: not exactly symmetric.
  auto skewed = sym;
  skewed.values[skewed.row_ptr[100] + 1] = std::nextafter(skewed.values[skewed.row_ptr[100] + 1], 2.0);
  EXPECT_TRUE(refused(skewed));
  // One mirror entry zeroed (stored, but a_ij != a_ji).
  auto holed = sym;
  holed.values[holed.row_ptr[200] + 1] = 0.0;
  EXPECT_TRUE(refused(holed));
  // One entry missing from the pattern.
  std::vector<std::vector<std::int32_t>> rc(300);
  for (int i = 0; i < 300; ++i)
    for (int j = std::max(0, i - 2); j <= std::min(299, i + 2); ++j)
      if (!(i == 150 && j == 151)) rc[i].push_back(j);
  EXPECT_TRUE(refused(random_csr(300, 300, 5, rc)));
}

}  // namespace
}  // namespace spkit::test
