// CPU CSR kernels beyond the registry-wide test: the nnz-balanced partition, spkit's merge-path kernel on
// rows spanning several threads, more thread counts and both column encodings, honest byte counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/axpby_check.hpp"
#include "kernels/cpu/cpu_common.hpp"
#include "kernels/cpu/cpu_kernel_check.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

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
  expect_valid_on_long_rows<double>("cpu.csr.omp.spkit");
  expect_valid_on_long_rows<float>("cpu.csr.omp.spkit");
  expect_valid_on_long_rows<double>("cpu.csr.omp.nnz_balanced");
}

// Rows split between merge-path shares get alpha and beta once: the carries and the finishing share's head
// are summed before the epilogue (beta = 0 over a NaN y, and beta = 2 over a random y).
TEST(CpuSpkitKernel, AlphaBetaOnRowsSpanningShares) {
  const Csr<double> a = long_rows_matrix();
  for (int th : long_row_thread_counts()) {
    PlanOptions po;
    po.threads = th;
    auto plan = registry().find("cpu.csr.omp.spkit")->make_f64(a, po);
    for (const double beta : {0.0, 2.0}) {
      const std::uint64_t seed = fresh_seed();
      const auto [x, y0] = axpby_operands(a, beta, seed);
      std::vector<double> y = y0;
      plan->run(-0.5, x.data(), beta, y.data(), Stream{});
      expect_axpby_product(a, x, y0, -0.5, beta, y,
                           "threads " + std::to_string(th) + " beta " + std::to_string(beta) + " seed " +
                               std::to_string(seed));
    }
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

TEST(CpuCsrKernels, BytesMoved) {
  const Csr<double> a = small_bytes_matrix();
  PlanOptions po;
  auto csr = registry().find("cpu.csr.serial")->make_f64(a, po);
  EXPECT_EQ(csr->bytes_moved(), 4u * 8 + 5u * (4 + 8) + (5u + 3u) * 8);
  auto csr32 = registry().find("cpu.csr.omp.guided")->make_f32(csr_cast<float>(a), po);
  EXPECT_EQ(csr32->bytes_moved(), 4u * 8 + 5u * (4 + 4) + (5u + 3u) * 4);
  auto spkit = registry().find("cpu.csr.omp.spkit")->make_f64(a, po);  // 32-bit offsets, 16-bit columns
  EXPECT_EQ(spkit->bytes_moved(), 4u * 4 + 5u * (2 + 8) + (5u + 3u) * 8);
}

}  // namespace
}  // namespace spkit::test
