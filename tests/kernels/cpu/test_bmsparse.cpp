// CPU bmSparse kernels: long rows split between threads by block counts, and the bytes one product moves.
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_kernel_check.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

TEST(CpuBmSparseKernels, LongRowsAndManyThreadCounts) { expect_valid_on_long_rows<double>("cpu.bmsparse.omp"); }

TEST(CpuBmSparseKernels, BytesMoved) {
  const Csr<double> a = small_bytes_matrix();
  PlanOptions po;
  auto bm = registry().find("cpu.bmsparse.serial")->make_f64(a, po);
  // one block: key, bitmap, 2 offsets, 5 values, 2 block-row pointers; x and y once.
  EXPECT_EQ(bm->bytes_moved(), 8u + 8u + 2u * 8 + 5u * 8 + 2u * 8 + (5u + 3u) * 8);
}

}  // namespace
}  // namespace spkit::test
