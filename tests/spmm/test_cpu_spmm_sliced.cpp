// The CPU SpMM's slices of short rows (src/spmm/cpu/spmm_sliced.hpp), row-major and column-major (over
// its panel of X): several sort windows, rows left out of the slices for their length (and a thread's share of them), empty rows, a row count
// not a multiple of the slice height, 1 to 3 threads, at each tile width a slice holds (16, 32, 64 bytes; row-major
// 32 and 64 only on short rows),
// against the serial double reference with alpha/beta and padded leading dimensions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spmm/cpu/spmm_sliced.hpp"
#include "spmm/spmm_check.hpp"
#include "spkit/spmm.hpp"

namespace spkit::test {
namespace {

template <class T>
void check_sliced(const Csr<double>& ad, std::int64_t k, const std::string& name) {
  const Csr<T> a = csr_cast<T>(ad);
  for (DenseLayout layout : {DenseLayout::row_major, DenseLayout::col_major}) {
    // Row-major slices at 16-byte rows, and at 32/64 on rows of at most 4 entries on average (use_slices).
    const bool short_rows = static_cast<double>(a.nnz()) <= cpu::spmm::kSliceRowMajorMaxMeanRow * static_cast<double>(a.rows);
    if (layout == DenseLayout::row_major && k * static_cast<std::int64_t>(sizeof(T)) != 16 && !short_rows) continue;
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
  // Rows of 3 on average: row-major takes slices at 32 and 64 bytes too.
  check_sliced<float>(a, 8, "9 windows, 8 floats");
  check_sliced<float>(a, 16, "9 windows, 16 floats");
  check_sliced<double>(a, 4, "9 windows, 4 doubles");
  check_sliced<double>(a, 8, "9 windows, 8 doubles");
}

// Which row-major plans take slices: 16-byte rows always; 32- and 64-byte rows only on short rows (road
// networks); 128-byte rows never.
TEST(CpuSpmmSliced, RowMajorTakesWiderSlicesOnlyOnShortRows) {
  const SpmmKernelInfo* info = spmm_registry().find("cpu.csr.spmm_rowmajor");
  ASSERT_NE(info, nullptr);
  const auto sliced = [&](const Csr<double>& a, std::int64_t k) {
    return info->factory<double>()(a, SpmmShape{k, DenseLayout::row_major}, PlanOptions{})->detail().find("slices") !=
           std::string::npos;
  };
  const Csr<double> short_rows = random_rows(5000, 5000, std::vector<std::int64_t>(5000, 3), 36);
  const Csr<double> eight = random_rows(5000, 5000, std::vector<std::int64_t>(5000, 8), 37);
  EXPECT_TRUE(sliced(short_rows, 2) && sliced(short_rows, 4) && sliced(short_rows, 8));
  EXPECT_FALSE(sliced(short_rows, 16)) << "128-byte rows";
  EXPECT_TRUE(sliced(eight, 2)) << "16-byte rows";
  EXPECT_FALSE(sliced(eight, 4) || sliced(eight, 8)) << "rows of 8: the row tiles";
}

TEST(CpuSpmmSliced, FewerRowsThanOneSlice) {
  const Csr<double> a = random_rows(5, 301, {3, 0, 1, 200, 2}, 7);
  check_sliced<float>(a, 4, "5 rows, floats");
  check_sliced<double>(a, 2, "5 rows, doubles");  // 16-byte rows: slices whatever the mean row
}

}  // namespace
}  // namespace spkit::test
