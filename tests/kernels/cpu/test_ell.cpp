// CPU ELLPACK kernels: bytes moved (padding included) and the detail line.
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_kernel_check.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

TEST(CpuEllKernels, BytesMovedAndDetail) {
  const Csr<double> a = small_bytes_matrix();
  PlanOptions po;
  auto ell = registry().find("cpu.ell.omp")->make_f64(a, po);
  EXPECT_EQ(ell->bytes_moved(), 9u * (4 + 8) + (5u + 3u) * 8);
  EXPECT_EQ(ell->detail().rfind("ELL width 3, padding 44%", 0), 0u) << ell->detail();
}

}  // namespace
}  // namespace spkit::test
