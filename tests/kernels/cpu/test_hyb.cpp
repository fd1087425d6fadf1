// CPU HYB kernel: long rows, whose COO overflow is split between threads at row boundaries.
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_kernel_check.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

TEST(CpuHybKernels, LongRowsAndManyThreadCounts) { expect_valid_on_long_rows<double>("cpu.hyb.omp"); }

}  // namespace
}  // namespace spkit::test
