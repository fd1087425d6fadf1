// The registry-driven SpMM test: every kernel of spmm_registry() x precision x layout it handles x k in
// {1, 3, 4, 16, 33, 64, 136}, on the edge-case matrices (empty, 1x1, empty rows, one huge row, rectangular,
// sizes not multiples of 8/32) and the generator families, with fresh random X and Y0 each run and leading
// dimensions larger than needed and exactly as needed (where vector loads apply): Y = A X over a NaN-poisoned Y (beta = 0 never reads Y), Y = -0.5 A X +
// 0.75 Y0, and the padding between k (or the rows) and ld left bit for bit as it was. CUDA kernels skip
// without a device. Nothing here names a kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

#include "common/kernel_param_name.hpp"
#include "common/test_matrices.hpp"
#include "spmm/spmm_check.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/dia.hpp"
#include "spkit/harness/spmm_runner.hpp"
#include "spkit/stats.hpp"
#include "spkit/spmm.hpp"

namespace spkit::test {
namespace {

const std::vector<NamedMatrix>& matrices() {
  static const auto m = [] {
    auto out = edge_case_matrices();
    for (auto& f : family_matrices()) out.push_back(std::move(f));
    // Short rows, rows far over the mean and rows past a thousand entries in one matrix: the GPU kernels
    // give each kind its own launch (groups, a warp per row, a block per row), all of which must meet.
    // Rows of 1500 (one block), 2600 and 8500 (cut into chunks whose sums meet in a second kernel).
    std::vector<std::int64_t> len(700);
    for (std::size_t i = 0; i < len.size(); ++i) len[i] = i % 50 == 7 ? 90 + static_cast<std::int64_t>(i % 170) : i % 6;
    len[333] = 1500, len[334] = 2600, len[335] = 8500;
    out.push_back({"binned_rows_700x9000", random_rows(700, 9000, len, 77)});
    return out;
  }();
  return m;
}

constexpr std::int64_t kWideK = 136;  // past 128 columns: more than one pass of the widest GPU tiles
constexpr std::int64_t kKs[] = {1, 3, 4, 16, 33, 64, kWideK};

// Whether the DIA kernels' rule (spkit/formats/dia.hpp) accepts `a`.
template <class T>
bool dia_worthwhile(const Csr<T>& a) {
  DiaOptions d;
  d.max_bytes_ratio = kDiaKernelMaxBytesRatio;
  try {
    check_dia_worthwhile(dia_shape(a, d), d, a.rows);
    return true;
  } catch (const NotApplicable&) {
    return false;
  }
}

template <class T>
void check_kernel(const SpmmKernelInfo& k) {
  for (const NamedMatrix& m : matrices()) {
    const Csr<T> a = csr_cast<T>(m.a);
    for (DenseLayout layout : {DenseLayout::row_major, DenseLayout::col_major}) {
      for (std::int64_t kk : kKs) {
        SCOPED_TRACE("matrix " + m.name + ", " + std::string(to_string(precision_of<T>())) + ", " +
                     std::string(to_string(layout)) + "-major, k " + std::to_string(kk));
        const SpmmShape shape{kk, layout};
        PlanOptions po;
        po.threads = k.parallel ? 2 : 1;
        std::unique_ptr<SpmmPlan<T>> plan;
        try {
          plan = k.factory<T>()(a, shape, po);
        } catch (const NotApplicable& e) {
          // Only a layout the kernel says it does not handle, a matrix MKL refuses (no rows/cols), or one whose
          // diagonals would move more than its CSR (a DIA kernel) may refuse.
          const bool unaligned_k = k.ld_multiple_bytes > 0 && (kk * static_cast<std::int64_t>(sizeof(T))) % k.ld_multiple_bytes != 0;
          EXPECT_TRUE(!k.handles(layout) || a.rows == 0 || a.cols == 0 || unaligned_k ||
                      (k.format == Format::dia && !dia_worthwhile(a)))
              << "refused: " << e.what();
          continue;
        }
        ASSERT_TRUE(k.handles(layout)) << "planned a layout its info says it does not handle";
        // The wide k (several column passes on the GPU) once with beta = 0, the others also with beta != 0.
        check_product<T>(*plan, a, shape, T(1), T(0), k.ld_multiple_bytes);
        if (kk != kWideK) check_product<T>(*plan, a, shape, T(-0.5), T(0.75), k.ld_multiple_bytes);
        // Tight leading dimensions: 16-byte rows of X and Y where k allows (the vector paths).
        if (k.ld_multiple_bytes == 0 || (kk * static_cast<std::int64_t>(sizeof(T))) % k.ld_multiple_bytes == 0)
          check_product<T>(*plan, a, shape, T(2), T(-1), k.ld_multiple_bytes, true);
        if (::testing::Test::HasFailure()) return;  // one failing case is enough to read
      }
    }
  }
}

class AllSpmmKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(AllSpmmKernels, MatchesTheDoubleReferenceInBothLayouts) {
  const SpmmKernelInfo* k = spmm_registry().find(GetParam());
  ASSERT_NE(k, nullptr);
  if (k->backend == Backend::cuda && gpu_count() == 0) GTEST_SKIP() << k->name << ": no CUDA device on this machine";
  check_kernel<double>(*k);
  check_kernel<float>(*k);
}

std::vector<std::string> spmm_kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : spmm_registry().all()) names.push_back(k.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registry, AllSpmmKernels, ::testing::ValuesIn(spmm_kernel_names()), kernel_param_name);

TEST(SpmmRegistry, HasACpuKernelForEachLayoutAndAutoPicksRegisteredOnes) {
  for (DenseLayout layout : {DenseLayout::row_major, DenseLayout::col_major}) {
    for (std::int64_t kk : kKs) {
      MatrixStats stats;
      const SpmmSelection s = select_spmm_kernel(stats, {kk, layout}, Backend::cpu, Precision::f64);
      const SpmmKernelInfo* k = spmm_registry().find(s.kernel);
      ASSERT_NE(k, nullptr) << s.kernel;
      EXPECT_TRUE(k->handles(layout)) << s.kernel;
      EXPECT_FALSE(k->comparison) << s.kernel;
      EXPECT_FALSE(s.reason.empty());
    }
  }
}

TEST(SpmmPlan, RejectsLeadingDimensionsBelowTheShape) {
  const Csr<double> a = random_rows(10, 7, std::vector<std::int64_t>(10, 3), 5);
  for (const auto& info : spmm_registry().all()) {
    if (info.backend != Backend::cpu || !info.handles(DenseLayout::row_major) || info.format == Format::dia) continue;
    auto plan = info.factory<double>()(a, {4, DenseLayout::row_major}, PlanOptions{});
    std::vector<double> x(7 * 4, 1.0), y(10 * 4, 0.0);
    EXPECT_THROW(plan->run(1.0, x.data(), 3, 0.0, y.data(), 4, Stream{}), Error) << info.name;
    EXPECT_THROW(plan->run(1.0, x.data(), 4, 0.0, y.data(), 2, Stream{}), Error) << info.name;
  }
  EXPECT_THROW(parse_dense_layout("diagonal"), Error);
}

TEST(SpmmRunner, ValidatesEveryCpuCellAndReportsRates) {
  const Csr<double> a = random_rows(300, 250, std::vector<std::int64_t>(300, 9), 11);
  harness::SpmmRunOptions o;
  o.kernels = "cpu.*,auto";
  o.device = harness::DeviceSelect::cpu;
  o.precisions = {Precision::f32, Precision::f64};
  o.ks = {1, 5};
  o.layouts = {DenseLayout::row_major, DenseLayout::col_major};
  o.threads = {2};
  o.timing.warmup = 1;
  o.timing.reps = 3;
  const auto rows = harness::run_spmm(a, o);
  ASSERT_FALSE(rows.empty());
  int autos = 0;
  for (const auto& r : rows) {
    SCOPED_TRACE(r.kernel + " " + r.layout + " k " + std::to_string(r.k) + " " + r.precision);
    if (r.format == "dia") {  // random rows: the diagonals would move more than the CSR
      EXPECT_EQ(r.status, "skipped") << r.note;
      continue;
    }
    EXPECT_EQ(r.status, "ok") << r.note;
    EXPECT_GT(r.gflops, 0);
    EXPECT_GT(r.bytes_per_column, 0);
    EXPECT_GT(r.vs_spmv, 0);
    if (r.kernel == "auto") {
      ++autos;
      EXPECT_FALSE(r.picked.empty());
    }
  }
  EXPECT_EQ(autos, 2 * 2 * 2);  // precision x k x layout
  EXPECT_NE(harness::spmm_results_to_json(rows).find("\"vs_spmv\""), std::string::npos);
}

}  // namespace
}  // namespace spkit::test

namespace spkit::test {
namespace {

// validate_spmm must see a wrong entry, a NaN left behind and a written padding entry.
TEST(SpmmValidation, CatchesAWrongEntryANanAndTouchedPadding) {
  const Csr<double> a = random_rows(20, 15, std::vector<std::int64_t>(20, 4), 3);
  const SpmmShape shape{3, DenseLayout::row_major};
  const std::int64_t ldx = 4, ldy = 5;
  const auto xd = random_vector(15 * ldx, 9);
  std::vector<double> y0(20 * ldy, 0.25), y = y0;
  auto plan = spmm_registry().find("cpu.csr.spmm_serial")->factory<double>()(a, shape, PlanOptions{});
  plan->run(1.0, xd.data(), ldx, 0.0, y.data(), ldy, Stream{});
  EXPECT_TRUE(harness::validate_spmm(a, shape, xd, ldx, 1.0, 0.0, y0, y, ldy).valid);
  auto broken = y;
  broken[7 * ldy + 2] += 1e-6;
  EXPECT_FALSE(harness::validate_spmm(a, shape, xd, ldx, 1.0, 0.0, y0, broken, ldy).valid);
  broken = y;
  broken[4 * ldy + 1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(harness::validate_spmm(a, shape, xd, ldx, 1.0, 0.0, y0, broken, ldy).valid);
  broken = y;
  broken[3 * ldy + 4] = 0.0;  // padding column
  const Validation v = harness::validate_spmm(a, shape, xd, ldx, 1.0, 0.0, y0, broken, ldy);
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.first_bad_row, 3);
}

}  // namespace
}  // namespace spkit::test
