// CPU HLL kernels: hack sizes from PlanOptions on every edge-case matrix.
#include <gtest/gtest.h>

#include <string>

#include "kernels/cpu/cpu_kernel_check.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

TEST(CpuHllKernels, HackSizesFromPlanOptions) {
  for (const auto& m : edge_case_matrices())
    for (int hs : {1, 5, 8, 64}) {
      SCOPED_TRACE(m.name + " hack " + std::to_string(hs));
      PlanOptions po;
      po.hack_size = hs;
      po.threads = 2;
      expect_valid<double>("cpu.hll.serial.row_major", m.a, po);
      expect_valid<float>("cpu.hll.serial.col_major", m.a, po);
      expect_valid<double>("cpu.hll.omp.guided", m.a, po);
    }
}

}  // namespace
}  // namespace spkit::test
