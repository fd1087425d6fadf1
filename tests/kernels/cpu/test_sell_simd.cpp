// cpu.sell.omp.simd: long rows cut into chunks shared by the threads, slices whose columns span more than
// 16 bits (32-bit indices) beside 16-bit ones, and masked padding that must not read x.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_kernel_check.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

constexpr const char* kKernel = "cpu.sell.omp.simd";

TEST(CpuSellSimd, LongRowsAndManyThreadCounts) {
  expect_valid_on_long_rows<double>(kKernel);
  expect_valid_on_long_rows<float>(kKernel);
}

// One row of 20000 entries (several chunks) among 3000 rows of 0..9 entries, rows not a multiple of 16.
TEST(CpuSellSimd, HugeRowSplitBetweenThreads) {
  std::vector<std::int64_t> len(3001);
  for (std::size_t i = 0; i < len.size(); ++i) len[i] = static_cast<std::int64_t>(i % 10);
  len[1234] = 20000;
  const Csr<double> a = random_rows(3001, 30000, len, 7);
  std::string detail;
  for (int th : {1, 2, 3, 5}) {
    PlanOptions po;
    po.threads = th;
    expect_valid<double>(kKernel, a, po, &detail);
    expect_valid<float>(kKernel, a, po);
  }
  EXPECT_NE(detail.find("1 long rows in 5 chunks"), std::string::npos) << detail;
}

// 200000 columns: random rows span more than 2^16 columns (32-bit slices), banded ones do not.
TEST(CpuSellSimd, WideAndNarrowSlices) {
  const Csr<double> a = random_rows(1000, 200000, std::vector<std::int64_t>(1000, 12), 5);
  std::string detail;
  PlanOptions po;
  po.threads = 2;
  expect_valid<double>(kKernel, a, po, &detail);
  EXPECT_NE(detail.find("0/"), std::string::npos) << detail;
  const Csr<double> b = banded_csr(5000, 200000, {-3, 0, 7}, false);
  expect_valid<float>(kKernel, b, po, &detail);
  EXPECT_NE(detail.find("313/313 slices 16-bit"), std::string::npos) << detail;
}

// Rows of different lengths share a slice, so lanes past a row's end are padding: they must not read x,
// or an infinite x[0] would turn every padded row into NaN (0 * inf).
TEST(CpuSellSimd, PaddingNeverReadsX) {
  Csr<double> a;
  a.rows = 40;
  a.cols = 40;
  a.row_ptr.push_back(0);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t k = 1; k <= i % 5; ++k) {  // columns 1.., never 0
      a.col_idx.push_back(static_cast<std::int32_t>(k + i % 7));
      a.values.push_back(1.0 + static_cast<double>(k));
    }
    a.row_ptr.push_back(static_cast<std::int64_t>(a.col_idx.size()));
  }
  const KernelInfo* k = registry().find(kKernel);
  ASSERT_NE(k, nullptr);
  auto plan = k->factory<double>()(a, PlanOptions{});
  std::vector<double> x(40, 1.0);
  x[0] = std::numeric_limits<double>::infinity();
  std::vector<double> y(40, -1.0);
  plan->run(1, x.data(), 0, y.data(), Stream{});
  for (std::int64_t i = 0; i < a.rows; ++i) {
    double want = 0;
    for (std::int64_t q = a.row_ptr[i]; q < a.row_ptr[i + 1]; ++q) want += a.values[q];
    EXPECT_EQ(y[i], want) << "row " << i;
  }
}

}  // namespace
}  // namespace spkit::test
