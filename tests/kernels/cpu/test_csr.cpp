// CPU-kernel specifics the registry-wide test doesn't reach: the nnz-balanced partition, spkit's
// merge-path kernel on rows spanning several threads and on both column encodings, more thread
// counts, HLL hack sizes through PlanOptions, and honest byte counts / details.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "common/test_matrices.hpp"
#include "kernels/cpu/cpu_common.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/gen.hpp"
#include "spkit/kernel.hpp"
#include "spkit/validate.hpp"

namespace spkit::test {
namespace {

template <class T>
void expect_valid(const char* kernel, const Csr<double>& ad, const PlanOptions& po, std::string* detail = nullptr) {
  const KernelInfo* k = registry().find(kernel);
  ASSERT_NE(k, nullptr) << kernel;
  const Csr<T> a = csr_cast<T>(ad);
  auto plan = k->factory<T>()(a, po);
  const auto seed = fresh_seed();
  const auto xd = random_vector(a.cols, seed);
  std::vector<T> x(xd.begin(), xd.end());
  std::vector<T> y(static_cast<std::size_t>(a.rows), std::numeric_limits<T>::quiet_NaN());
  for (int rep = 0; rep < 2; ++rep) {  // twice: carries and accumulators must not leak between runs
    plan->run(1, x.data(), 0, y.data(), spkit::Stream{});
    const Validation v = validate_spmv(a, x, y.data());
    EXPECT_TRUE(v.valid) << kernel << " threads " << po.threads << " seed " << seed << ": rel L2 " << v.rel_l2_error
                         << ", first bad row " << v.first_bad_row;
  }
  if (detail) *detail = plan->detail();
}

TEST(CpuPartition, NnzBalancedRowsDropsEmptyRangesAndCoversAllRows) {
  // Lengths 10, 0, 0, 10, 10, 10: 40 entries.
  const std::vector<std::int64_t> ptr{0, 10, 10, 10, 20, 30, 40};
  EXPECT_EQ(cpu::nnz_balanced_rows(ptr, 6, 1), (std::vector<std::int64_t>{0, 6}));
  EXPECT_EQ(cpu::nnz_balanced_rows(ptr, 6, 2), (std::vector<std::int64_t>{0, 4, 6}));
  EXPECT_EQ(cpu::nnz_balanced_rows(ptr, 6, 4), (std::vector<std::int64_t>{0, 1, 4, 5, 6}));
  // One row holding everything: a single range, whatever the thread count.
  const std::vector<std::int64_t> one{0, 0, 100, 100};
  EXPECT_EQ(cpu::nnz_balanced_rows(one, 3, 8), (std::vector<std::int64_t>{0, 2, 3}));
  EXPECT_EQ(cpu::nnz_balanced_rows(std::vector<std::int64_t>{0}, 0, 4), (std::vector<std::int64_t>{0}));
}

TEST(CpuSpkitKernel, LongRowsSpanningThreadsAndManyThreadCounts) {
  std::vector<std::int64_t> len(50, 2);
  len[0] = 3000;   // the first row alone spans several shares
  len[25] = 4000;  // and one in the middle
  len[49] = 2500;  // and the last row
  const auto a = random_rows(50, 5000, len, 21);
  for (int th : {1, 2, 3, 4, 7, 16}) {
    PlanOptions po;
    po.threads = th;
    expect_valid<double>("cpu.csr.omp.spkit", a, po);
    expect_valid<float>("cpu.csr.omp.spkit", a, po);
    expect_valid<double>("cpu.csr.omp.nnz_balanced", a, po);
    expect_valid<double>("cpu.hyb.omp", a, po);
    expect_valid<double>("cpu.bmsparse.omp", a, po);
  }
}

TEST(CpuSpkitKernel, ColumnEncodingFollowsTheMatrix) {
  PlanOptions po;
  po.threads = 3;
  std::string detail;
  // Columns scattered within +-1000 of the row (a pattern DIA would refuse), but every
  // |col - row| fits 16 bits.
  std::vector<std::vector<std::int32_t>> near(3000);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 3000; ++i)
    for (int k = 0; k < 6; ++k)
      near[i].push_back(static_cast<std::int32_t>(std::clamp<std::int64_t>(i + static_cast<std::int64_t>(rng() % 2001) - 1000, 0, 2999)));
  expect_valid<double>("cpu.csr.omp.spkit", random_csr(3000, 3000, 3, near), po, &detail);
  EXPECT_NE(detail.find("16-bit relative"), std::string::npos) << detail;
  // Columns 40000 away from the row: 32-bit columns.
  std::vector<std::vector<std::int32_t>> far(40);
  for (int i = 0; i < 40; ++i) far[i] = {i, 40000 + i, 69999};
  expect_valid<double>("cpu.csr.omp.spkit", random_csr(40, 70000, 4, far), po, &detail);
  EXPECT_NE(detail.find("32-bit columns"), std::string::npos) << detail;
  // Offsets at the very edge of the 16-bit range (-32768 and +32767).
  std::vector<std::vector<std::int32_t>> edge(32769);
  edge[32768] = {0};
  edge[0] = {32767};
  expect_valid<float>("cpu.csr.omp.spkit", random_csr(32769, 32769, 5, edge), po, &detail);
  EXPECT_NE(detail.find("16-bit relative"), std::string::npos) << detail;
}

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

TEST(CpuHllKernels, HackSizesFromPlanOptions) {
  for (const auto& m : edge_case_matrices())
    for (int hs : {1, 5, 8, 64}) {
      SCOPED_TRACE(m.name + " hack " + std::to_string(hs));
      PlanOptions po;
      po.hack_size = hs;
      po.threads = 2;
      expect_valid<double>("cpu.hll.serial.row_major", m.a, po);
      expect_valid<float>("cpu.hll.serial.col_major", m.a, po);
      expect_valid<double>("cpu.hll.omp.guided", m.a, po);
    }
}

TEST(CpuKernels, BytesMovedAndDetail) {
  // 3 x 5, rows of 2, 0, 3 entries: ELL width 3, 4 of 9 slots padding.
  Csr<double> a;
  a.rows = 3;
  a.cols = 5;
  a.row_ptr = {0, 2, 2, 5};
  a.col_idx = {0, 2, 1, 3, 4};
  a.values = {1, 2, 3, 4, 5};
  PlanOptions po;
  auto csr = registry().find("cpu.csr.serial")->make_f64(a, po);
  EXPECT_EQ(csr->bytes_moved(), 4u * 8 + 5u * (4 + 8) + (5u + 3u) * 8);
  auto csr32 = registry().find("cpu.csr.omp.guided")->make_f32(csr_cast<float>(a), po);
  EXPECT_EQ(csr32->bytes_moved(), 4u * 8 + 5u * (4 + 4) + (5u + 3u) * 4);
  auto spkit = registry().find("cpu.csr.omp.spkit")->make_f64(a, po);  // 32-bit offsets, 16-bit columns
  EXPECT_EQ(spkit->bytes_moved(), 4u * 4 + 5u * (2 + 8) + (5u + 3u) * 8);
  auto ell = registry().find("cpu.ell.omp")->make_f64(a, po);
  EXPECT_EQ(ell->bytes_moved(), 9u * (4 + 8) + (5u + 3u) * 8);
  EXPECT_EQ(ell->detail().rfind("ELL width 3, padding 44%", 0), 0u) << ell->detail();
  auto bm = registry().find("cpu.bmsparse.serial")->make_f64(a, po);
  // one block: key, bitmap, 2 offsets, 5 values, 2 block-row pointers; x and y once.
  EXPECT_EQ(bm->bytes_moved(), 8u + 8u + 2u * 8 + 5u * 8 + 2u * 8 + (5u + 3u) * 8);
}

}  // namespace
}  // namespace spkit::test
