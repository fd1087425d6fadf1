// cpu.dia.spmm (src/spmm/cpu/dia.cpp) at its edges, against the serial double reference with alpha/beta
// and padded and tight leading dimensions: every tile width of Y's row and the tails below 16 bytes,
// interior and edge tiles (diagonals reaching outside X), rectangular matrices with diagonals that start
// or end outside the matrix, empty rows, 1x1, row counts not a multiple of the 64-row tile or the register
// block, 1 and 2 threads. Then SpMM auto's two rules that follow the SpMV side (src/spmm/select.cpp): a
// stencil the SpMV selector runs in DIA gets the DIA SpMM (row-major up to a k), and k = 1 runs the SpMV
// selector's pick. Column-major Y past the streaming bound is checked at every lane shift of its columns.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spmm/spmm_check.hpp"
#include "spkit/gen.hpp"
#include "spkit/select.hpp"
#include "spkit/spmm.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit::test {
namespace {

// Around every register tile width (16..512 bytes: 2..64 doubles, 4..128 floats), the tails below 16
// bytes, and k past one 512-byte tile; with tight leading dimensions k = 1, 2, 4 (and 8 in fp32) run several
// rows a 64-byte vector in interior tiles.
constexpr std::int64_t kDiaKs[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 63, 65, 127, 128, 129, 200};

const SpmmKernelInfo& dia_kernel() {
  const SpmmKernelInfo* k = spmm_registry().find("cpu.dia.spmm");
  EXPECT_NE(k, nullptr);
  return *k;
}

template <class T>
void check_dia(const Csr<double>& ad, const std::vector<std::int64_t>& ks, const std::string& name) {
  const Csr<T> a = csr_cast<T>(ad);
  for (DenseLayout layout : {DenseLayout::row_major, DenseLayout::col_major})
    for (int threads : {1, 2})
      for (std::int64_t kk : ks) {
        SCOPED_TRACE(name + ", " + std::string(to_string(precision_of<T>())) + ", " + std::string(to_string(layout)) +
                     "-major, k " + std::to_string(kk) + ", " + std::to_string(threads) + " threads");
        const SpmmShape shape{kk, layout};
        PlanOptions po;
        po.threads = threads;
        auto plan = dia_kernel().factory<T>()(a, shape, po);
        EXPECT_NE(plan->detail().find("diagonals"), std::string::npos) << plan->detail();
        check_product<T>(*plan, a, shape, T(1), T(0), 0);
        check_product<T>(*plan, a, shape, T(-0.5), T(0.75), 0);
        check_product<T>(*plan, a, shape, T(2), T(-1), 0, true);
        check_product<T>(*plan, a, shape, T(1), T(0), 0, true);  // tight: the packed rows of narrow k (NaN Y)
        if (::testing::Test::HasFailure()) return;
      }
}

void check_dia_both(const Csr<double>& a, const std::vector<std::int64_t>& ks, const std::string& name) {
  check_dia<double>(a, ks, name);
  check_dia<float>(a, ks, name);
}

TEST(CpuSpmmDia, EveryTileWidthInteriorAndEdgeTiles) {
  // 601 rows: interior 64-row tiles in the middle, edge tiles at both ends, a last tile of 25 rows.
  const Csr<double> a = banded_csr(601, 601, {-70, -3, 0, 1, 5, 90}, false);
  check_dia_both(a, {std::begin(kDiaKs), std::end(kDiaKs)}, "band 601 x 601");
}

TEST(CpuSpmmDia, NarrowRowsPackedIntoVectors) {
  // Interior tiles from row 192 to 767 (diagonals +-130 and +-64 inside X), edge tiles around them.
  const Csr<double> a = banded_csr(1000, 1000, {-130, -64, -1, 0, 1, 64, 130}, false);
  for (std::int64_t k : {1, 2, 4, 8, 16}) {
    const SpmmShape shape{k, DenseLayout::row_major};
    const bool f64 = k < 8, f32 = k < 16;  // rows narrower than a 64-byte vector
    const auto detail_of = [&](auto tag) {
      using T = decltype(tag);
      return dia_kernel().factory<T>()(csr_cast<T>(a), shape, PlanOptions{})->detail();
    };
    EXPECT_EQ(detail_of(double{}).find("rows a 64-byte vector") != std::string::npos, f64) << detail_of(double{});
    EXPECT_EQ(detail_of(float{}).find("rows a 64-byte vector") != std::string::npos, f32) << detail_of(float{});
  }
  check_dia_both(a, {1, 2, 4, 8, 16}, "band 1000, diagonals +-130");
}

TEST(CpuSpmmDia, SymmetricPackedRowsReadHalfTheDiagonals) {
  // Exactly symmetric bands, with and without a main diagonal, 1,000 and 1,001 rows: the packed interior
  // tiles then read the diagonals d >= 0 and their mirrors (k = 1, 2, 4 and, one row a vector, 8 doubles or 16
  // floats); a band that is not symmetric keeps all diagonals.
  const Csr<double> sym = banded_csr(1000, 1000, {-130, -64, -1, 0, 1, 64, 130}, true);
  const Csr<double> no_main = banded_csr(1001, 1001, {-200, -3, 3, 200}, true);
  const Csr<double> skew = banded_csr(1000, 1000, {-130, -64, -1, 0, 1, 64, 130}, false);
  for (std::int64_t k : {1, 2, 4}) {
    const SpmmShape shape{k, DenseLayout::row_major};
    const auto detail = [&](const Csr<double>& m) { return dia_kernel().factory<double>()(m, shape, PlanOptions{})->detail(); };
    EXPECT_NE(detail(sym).find("symmetric: 4 of the diagonals read"), std::string::npos) << detail(sym);
    EXPECT_NE(detail(no_main).find("symmetric: 2 of the diagonals read"), std::string::npos) << detail(no_main);
    EXPECT_EQ(detail(skew).find("symmetric"), std::string::npos) << detail(skew);
  }
  // k = 8 doubles (16 floats): one row a vector, the half read only where the matrix is symmetric.
  const auto wide = [&](const Csr<double>& m) {
    return dia_kernel().factory<double>()(m, {8, DenseLayout::row_major}, PlanOptions{})->detail();
  };
  EXPECT_NE(wide(sym).find("one row a 64-byte vector when X's and Y's rows are adjacent, symmetric: 4 of"),
            std::string::npos) << wide(sym);
  EXPECT_EQ(wide(skew).find("a 64-byte vector"), std::string::npos) << wide(skew);
  check_dia_both(sym, {1, 2, 3, 4, 8, 16}, "symmetric band 1000");
  check_dia_both(no_main, {1, 2, 4, 8}, "symmetric band 1001 without a main diagonal");
}

TEST(CpuSpmmDia, RectangularWithDiagonalsReachingOutside) {
  // Wide: diagonal 650 holds rows 0..49 only; tall: diagonal -600 starts at row 600, -35 at row 35. Fewer
  // rows than one tile, and many.
  check_dia_both(banded_csr(150, 700, {0, 3, 200, 650}, false), {1, 4, 16, 33}, "wide 150 x 700");
  check_dia_both(banded_csr(700, 650, {-600, -10, 0, 100}, false), {1, 4, 16, 33}, "tall 700 x 650");
  check_dia_both(banded_csr(40, 30, {-35, -10, -1, 0, 1}, false), {1, 3, 64}, "tall 40 x 30");
  // The last diagonal of a square matrix: one entry, at row 0.
  check_dia_both(banded_csr(300, 300, {-1, 0, 1, 299}, false), {4, 64}, "band 300 with a corner");
}

TEST(CpuSpmmDia, EmptyRowsOneByOneAndNoEntries) {
  // A tridiagonal matrix whose every 7th row is empty, 333 rows.
  std::vector<std::vector<std::int32_t>> rc(333);
  for (std::int32_t i = 0; i < 333; ++i)
    if (i % 7 != 3)
      for (std::int32_t j = i - 1; j <= i + 1; ++j)
        if (j >= 0 && j < 333) rc[i].push_back(j);
  check_dia_both(random_csr(333, 333, 5, rc), {1, 4, 9, 64}, "tridiagonal, empty rows");
  check_dia_both(random_csr(1, 1, 6, {{0}}), {1, 2, 5, 64}, "1 x 1");
  check_dia_both(random_csr(1, 1, 6, {{}}), {1, 4}, "1 x 1 without its entry");
  check_dia_both(random_csr(70, 40, 6, std::vector<std::vector<std::int32_t>>(70)), {3, 8}, "70 x 40, no entries");
}

// Past tuning::kSpmmCpuColStreamingMinBytes of Y, column-major products with beta = 0 stream Y, each column
// shifted onto whole lines wherever it starts: every shift of a column (ldy not a multiple of a line, the buffer
// shifted), edge tiles at both ends, a last partial tile, panels split between two threads, the column groups
// and a last column alone; beta != 0 (Y read: ordinary stores) beside.
TEST(CpuSpmmDia, ColumnMajorStreamedOnEveryLaneShift) {
  const std::int64_t rows = tuning::kSpmmCpuColStreamingMinBytes / 64 + 37;  // 17 floats / 9 doubles: past it
  const Csr<double> ad = banded_csr(rows, rows, {-70, -3, 0, 1, 5, 90}, false);
  const Csr<float> af = csr_cast<float>(ad);
  PlanOptions po;
  po.threads = 2;
  {
    const std::int64_t k = 17;  // four groups of four columns, then one alone: every lane shift of a column
    auto pf = dia_kernel().factory<float>()(af, SpmmShape{k, DenseLayout::col_major}, po);
    check_col_major_at<float>(*pf, af, k, rows, 0, -2.0f, 0.0f);
    check_col_major_at<float>(*pf, af, k, rows + 5, 3, 1.0f, 0.0f);
    check_col_major_at<float>(*pf, af, k, rows + 16 - rows % 16, 0, 1.0f, 0.0f);  // every column on a line
    check_col_major_at<float>(*pf, af, k, rows, 1, 0.5f, 0.25f);
  }
  if (::testing::Test::HasFailure()) return;
  const std::int64_t k = 9;  // four groups of two, then one alone
  auto pd = dia_kernel().factory<double>()(ad, SpmmShape{k, DenseLayout::col_major}, po);
  check_col_major_at<double>(*pd, ad, k, rows, 0, -2.0, 0.0);
  check_col_major_at<double>(*pd, ad, k, rows + 2, 5, 1.0, 0.0);
  check_col_major_at<double>(*pd, ad, k, rows, 1, 0.5, 0.25);
}

TEST(CpuSpmmDia, RefusesMatricesWhoseDiagonalsOutweighTheirCsr) {
  const Csr<double> scattered = random_rows(500, 500, std::vector<std::int64_t>(500, 4), 9);
  EXPECT_THROW(dia_kernel().factory<double>()(scattered, {4, DenseLayout::row_major}, PlanOptions{}), NotApplicable);
}

Csr<double> generated(const char* family, std::int64_t n) {
  GenOptions o;
  o.family = family;
  o.n = n;
  o.seed = 3;
  return generate(o);
}

// The SpMV selector's CPU pick for the fastest product (as SpMM auto asks it).
std::string spmv_pick(const MatrixStats& stats, Precision p, int threads) {
  PlanSettings s;
  s.backend = Backend::cpu;
  s.threads = threads;
  s.expected_products = 1000000;
  return select_kernel(stats, s, p).kernel;
}

TEST(SpmmAuto, FollowsTheSpmvSelectorIntoDia) {
  struct Case { const char* family; std::int64_t n; };
  int dia_picks = 0;
  for (const Case& c : {Case{"lap2d", 300}, Case{"banded", 20000}, Case{"random", 20000}, Case{"road", 150}}) {
    const MatrixStats stats = compute_stats(generated(c.family, c.n));
    const bool spmv_dia = registry().find(spmv_pick(stats, Precision::f64, 0))->format == Format::dia;
    for (DenseLayout layout : {DenseLayout::row_major, DenseLayout::col_major})
      for (std::int64_t k : {2, 4, 64}) {
        const SpmmSelection s = select_spmm_kernel(stats, {k, layout}, Backend::cpu, Precision::f64);
        SCOPED_TRACE(std::string(c.family) + ", k " + std::to_string(k) + ": " + s.reason);
        const bool dia_for_k = layout == DenseLayout::col_major || k <= tuning::kSpmmCpuDiaRowMajorMaxK;
        EXPECT_EQ(s.kernel == "cpu.dia.spmm", spmv_dia && dia_for_k);
        if (!spmv_dia || !dia_for_k) EXPECT_EQ(s.kernel.rfind("cpu.csr.", 0), 0u);
      }
    dia_picks += spmv_dia;
    if (std::string(c.family) == "lap2d") EXPECT_TRUE(spmv_dia) << "a 5-point stencil: the SpMV side runs it in DIA";
    if (std::string(c.family) == "random") EXPECT_FALSE(spmv_dia);
  }
  EXPECT_GE(dia_picks, 1);
}

TEST(SpmmAuto, KOneRunsTheSpmvSelectorsPick) {
  for (const char* family : {"lap2d", "random"}) {
    const Csr<double> a = generated(family, std::string(family) == "lap2d" ? 120 : 5000);
    const MatrixStats stats = compute_stats(a);
    for (DenseLayout layout : {DenseLayout::row_major, DenseLayout::col_major}) {
      const SpmmSelection s = select_spmm_kernel(stats, {1, layout}, Backend::cpu, Precision::f64);
      EXPECT_EQ(s.kernel, "cpu.spmv.per_column") << s.reason;
      const SpmmKernelInfo* info = spmm_registry().find(s.kernel);
      ASSERT_NE(info, nullptr);
      PlanOptions po;
      po.threads = 2;
      auto plan = info->factory<double>()(a, {1, layout}, po);
      const std::string pick = spmv_pick(stats, Precision::f64, 2);
      EXPECT_NE(plan->detail().find("SpMV " + pick), std::string::npos) << plan->detail() << " vs " << pick;
      check_product<double>(*plan, a, {1, layout}, -0.5, 0.75, 0);
    }
  }
}

}  // namespace
}  // namespace spkit::test
