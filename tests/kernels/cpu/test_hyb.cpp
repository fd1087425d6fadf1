// CPU HYB kernel: long rows, whose COO overflow is split between threads at row boundaries.
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_kernel_check.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

TEST(CpuHybKernels, LongRowsAndManyThreadCounts) {
  const auto a = long_rows_matrix();
  for (int th : long_row_thread_counts()) {
    PlanOptions po;
    po.threads = th;
    expect_valid<double>("cpu.hyb.omp", a, po);
  }
}

}  // namespace
}  // namespace spkit::test
