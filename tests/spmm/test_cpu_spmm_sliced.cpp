// The CPU SpMM's slices of short rows (src/spmm/cpu/spmm_sliced.hpp), row-major and column-major (over
// its panel of X): several sort windows, rows left out of the slices for their length (and a thread's share of them), empty rows, a row count
// not a multiple of the slice height, 1 to 3 threads, at each tile width a slice holds (16, 32, 64 bytes),
// against the serial double reference with alpha/beta and padded leading dimensions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spmm/spmm_check.hpp"
#include "spkit/spmm.hpp"

namespace spkit::test {
namespace {

template <class T>
void check_sliced(const Csr<double>& ad, std::int64_t k, const std::string& name) {
  const Csr<T> a = csr_cast<T>(ad);
  for (DenseLayout layout : {DenseLayout::row_major, DenseLayout::col_major}) {
    // Row-major slices only at 16-byte rows (spmm_sliced.hpp: use_slices).
    if (layout == DenseLayout::row_major && k * static_cast<std::int64_t>(sizeof(T)) != 16) continue;
    for (int threads : {1, 2, 3}) {
      const char* kernel = layout == DenseLayout::row_major ? "cpu.csr.spmm_rowmajor" : "cpu.csr.spmm_colmajor";
      const SpmmKernelInfo* info = spmm_registry().find(kernel);
      ASSERT_NE(info, nullptr);
      const SpmmShape shape{k, layout};
      SCOPED_TRACE(name + ", " + kernel + ", k " + std::to_string(k) + ", " + std::to_string(threads) + " threads");
      PlanOptions po;
      po.threads = threads;
      auto plan = info->factory<T>()(a, shape, po);
      EXPECT_NE(plan->detail().find("slices"), std::string::npos) << plan->detail();
      check_product<T>(*plan, a, shape, T(1), T(0), 0);
      check_product<T>(*plan, a, shape, T(-0.5), T(0.75), 0);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(CpuSpmmSliced, ShortRowsWithLongOnesAndEmptyOnes) {
  // 9,003 rows: three sort windows, a partial last slice; mostly 0..12 non-zeros, every 997th row 300.
  const std::int64_t rows = 9003;
  std::vector<std::int64_t> lengths(rows);
  for (std::int64_t i = 0; i < rows; ++i) lengths[i] = i % 997 == 3 ? 300 : (i * 5) % 13;
  const Csr<double> a = random_rows(rows, 7001, lengths, 33);
  for (std::int64_t k : {4, 8, 16}) check_sliced<float>(a, k, "random rows, floats");
  for (std::int64_t k : {2, 4, 8}) check_sliced<double>(a, k, "random rows, doubles");
}

TEST(CpuSpmmSliced, ManyWindowsSplitBetweenThreadsByWindow) {
  // 9 sort windows and a few rows: the threads take whole windows (at least 4 per thread).
  const std::int64_t rows = 9 * 4096 + 5;
  std::vector<std::int64_t> lengths(rows);
  for (std::int64_t i = 0; i < rows; ++i) lengths[i] = i % 4099 == 7 ? 200 : (i * 3) % 7;
  const Csr<double> a = random_rows(rows, 5003, lengths, 35);
  check_sliced<float>(a, 4, "9 windows, floats");
  check_sliced<double>(a, 2, "9 windows, doubles");
}

TEST(CpuSpmmSliced, FewerRowsThanOneSlice) {
  const Csr<double> a = random_rows(5, 301, {3, 0, 1, 200, 2}, 7);
  check_sliced<float>(a, 4, "5 rows, floats");
  check_sliced<double>(a, 2, "5 rows, doubles");  // 16-byte rows: slices whatever the mean row
}

}  // namespace
}  // namespace spkit::test
