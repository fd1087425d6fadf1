// cuda.csr.spmm_nnzsplit at its span boundaries: rows ending exactly on a boundary, empty rows on one (and
// first and last), a row through several whole spans, rows starting on a boundary and going on into the
// next, one-entry rows, at every k class (lanes over columns 1-32, several vectors a lane, column tiles) in
// both precisions with alpha/beta; and the same product twice, bit for bit (cut rows are summed in span
// order). The span is kSpmmCudaSpanMin here: the matrix keeps its mean row at most kSpmmCudaSpanMin /
// kSpmmCudaSpanMeanRows. Skips without a GPU. Last, auto's rule for it (no GPU needed).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/spmm.hpp"
#include "spkit/stats.hpp"
#include "spmm/spmm_check.hpp"
#include "tuning.hpp"

namespace spkit::test {
namespace {

constexpr std::int64_t kSpan = tuning::kSpmmCudaSpanMin;

Csr<double> span_edges() {
  std::vector<std::int64_t> len = {0, 0, kSpan - 3, 3};  // empty first rows; a row ending on the first boundary
  len.insert(len.end(), {0, 0});                          // empty rows on that boundary
  len.push_back(3 * kSpan + 5);                           // from a boundary through three whole spans
  len.push_back(kSpan - 5);                               // ends on a boundary
  len.push_back(kSpan + 1);                               // starts on it, goes one past the next
  len.push_back(kSpan - 2);                               // cut row then ends one short of the next boundary
  for (int i = 0; i < 40; ++i) len.push_back(i % 3 == 0 ? 0 : 1);  // one-entry rows over a boundary
  for (int i = 0; i < 3000; ++i) len.push_back(i % 7);              // short rows of 0-6, many boundaries
  len.push_back(5 * kSpan);                                         // a row through several spans, ...
  len.insert(len.end(), {0, 0, 0});                                 // ... and empty last rows
  const std::int64_t cols = 2 * kSpan + 11;
  return random_rows(static_cast<std::int64_t>(len.size()), cols, len, 4242);
}

TEST(CudaSpmmNnzSplit, SpanBoundariesMatchTheReferenceAtEveryK) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: " << no_gpu_reason();
  const Csr<double> a64 = span_edges();
  ASSERT_LE(static_cast<double>(a64.nnz()) / static_cast<double>(a64.rows), kSpan / tuning::kSpmmCudaSpanMeanRows);
  const Csr<float> a32 = csr_cast<float>(a64);
  const SpmmKernelInfo* info = spmm_registry().find("cuda.csr.spmm_nnzsplit");
  ASSERT_NE(info, nullptr);
  for (std::int64_t k : {1, 2, 3, 4, 8, 16, 33, 64, 128, 136, 300}) {
    SCOPED_TRACE("k " + std::to_string(k));
    const SpmmShape shape{k, DenseLayout::row_major};
    auto p64 = info->factory<double>()(a64, shape, PlanOptions{});
    EXPECT_NE(p64->detail().find(std::to_string(kSpan) + " non-zeros"), std::string::npos) << p64->detail();
    check_product<double>(*p64, a64, shape, 1.0, 0.0, info->ld_multiple_bytes, true);
    check_product<double>(*p64, a64, shape, -0.5, 0.75, info->ld_multiple_bytes);
    auto p32 = info->factory<float>()(a32, shape, PlanOptions{});
    check_product<float>(*p32, a32, shape, 2.0f, -1.0f, info->ld_multiple_bytes, true);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(CudaSpmmNnzSplit, SameBitsOnEveryRun) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: " << no_gpu_reason();
  const Csr<double> a = span_edges();
  const std::int64_t k = 16;
  auto plan = spmm_registry().find("cuda.csr.spmm_nnzsplit")->factory<double>()(a, SpmmShape{k, DenseLayout::row_major},
                                                                                 PlanOptions{});
  const auto xd = random_vector(a.cols * k, fresh_seed());
  const std::vector<double> x(xd.begin(), xd.end());
  std::vector<double> y1(static_cast<std::size_t>(a.rows * k)), y2(y1.size(), 1.0);
  harness::TimingOptions once;
  once.warmup = 0;
  once.reps = 1;
  const SpmmShape shape{k, DenseLayout::row_major};
  harness::time_spmm(*plan, a.rows, a.cols, shape, x.data(), k, y1.data(), k, once, 1.0, 0.0);
  harness::time_spmm(*plan, a.rows, a.cols, shape, x.data(), k, y2.data(), k, once, 1.0, 0.0);
  EXPECT_EQ(0, std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(double)));
}


// auto's rule (no device needed): row-major, rows of X of kSpmmCudaSpanMinRowBytes (32) or more, rows of very
// unequal length without one hub row take the non-zero split; even rows, one hub among even rows, narrower rows of
// X and column-major do not.
TEST(SpmmAuto, GpuTakesTheNonZeroSplitOnUnevenRowsOnly) {
  if (!spmm_registry().find("cuda.csr.spmm_nnzsplit")) GTEST_SKIP() << "built without CUDA: no GPU SpMM kernels";
  const auto stats = [](double mean, double std, std::int64_t max) {
    MatrixStats s;
    s.rows = 2'000'000;
    s.cols = s.rows;
    s.nnz = static_cast<std::int64_t>(mean * static_cast<double>(s.rows));
    s.row_nnz_mean = mean, s.row_nnz_std = std, s.row_nnz_max = max;
    return s;
  };
  const MatrixStats powerlaw = stats(8.0, 182.0, 45'000), even = stats(8.0, 0.5, 12),
                    one_hub = stats(10.0, 686.0, 1'000'000);  // 5 % of the non-zeros in one row
  const auto pick = [](const MatrixStats& s, std::int64_t k, DenseLayout l, Precision p) {
    return select_spmm_kernel(s, {k, l}, Backend::cuda, p).kernel;
  };
  const std::string split = "cuda.csr.spmm_nnzsplit", rows = "cuda.csr.spmm_rowmajor";
  constexpr DenseLayout row = DenseLayout::row_major;
  const std::int64_t k64 = tuning::kSpmmCudaSpanMinRowBytes / 8, k32 = tuning::kSpmmCudaSpanMinRowBytes / 4;
  EXPECT_EQ(pick(powerlaw, k64, row, Precision::f64), split);  // k = 4 doubles
  EXPECT_EQ(pick(powerlaw, k64 - 1, row, Precision::f64), rows);
  EXPECT_EQ(pick(powerlaw, k32, row, Precision::f32), split);  // k = 8 floats
  EXPECT_EQ(pick(powerlaw, k32 - 1, row, Precision::f32), rows);
  EXPECT_EQ(pick(powerlaw, 64, row, Precision::f32), split);
  EXPECT_EQ(pick(powerlaw, 64, DenseLayout::col_major, Precision::f64), "cuda.csr.spmm_colmajor");
  EXPECT_EQ(pick(even, 64, row, Precision::f64), rows);
  EXPECT_EQ(pick(one_hub, 64, row, Precision::f64), rows);
}

}  // namespace
}  // namespace spkit::test
