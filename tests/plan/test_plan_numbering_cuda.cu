// Vectors in the plan's numbering on the GPU: for orderings none, rcm and hubsort, the passes on device
// pointers (run on the GPU) and on host pointers match numbering(), and a product in the plan's numbering is
// y' = alpha (P A P^T) x' + beta y' (serial double reference on P A P^T) on device and host pointers.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "common/axpby_check.hpp"
#include "common/test_matrices.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/plan.hpp"
#include "spkit/reorder.hpp"

namespace spkit::test {
namespace {

template <class T>
void check_cuda_numbering(const Csr<T>& a, const char* ordering) {
  PlanSettings s;
  s.backend = Backend::cuda;
  s.ordering = ordering;
  Plan<T> plan(a, s);
  const std::string what = std::string("cuda auto (") + plan.kernel() + ") " + ordering;
  ASSERT_EQ(plan.renumbered(), std::string(ordering) != "none") << what;
  Csr<T> b = a;
  if (plan.renumbered()) {
    const std::vector<std::int32_t> old_of_new(plan.numbering().begin(), plan.numbering().end());
    b = permute_symmetric(a, Permutation::from_old_of_new(old_of_new));
  }
  const double coeffs[][2] = {{1, 0}, {2.5, 0}, {-1, 1}, {0.5, -2}};
  for (const auto& c : coeffs) {
    const T alpha = T(c[0]), beta = T(c[1]);
    const auto [x, y0] = axpby_operands(a, beta, fresh_seed());
    const std::string tag = what + " alpha " + std::to_string(c[0]) + " beta " + std::to_string(c[1]);
    // Host pointers: the passes on the host, the product through the plan's device buffers.
    std::vector<T> xp(x.size()), yp0(y0.size(), std::numeric_limits<T>::quiet_NaN());
    plan.to_plan_numbering(x.data(), xp.data(), a.cols);
    if (beta != T(0)) plan.to_plan_numbering(y0.data(), yp0.data(), a.rows);
    std::vector<T> yp = yp0;
    plan.apply_in_plan_numbering(xp.data(), yp.data(), alpha, beta);
    expect_axpby_product(b, xp, yp0, alpha, beta, yp, tag + " (host pointers)");
    // Device pointers: the passes and the product on the GPU.
    cuda::DeviceBuffer<T> dx(x), dxp(x.size()), dy0(y0), dyp(yp0), dback(x.size());
    plan.to_plan_numbering(dx.get(), dxp.get(), a.cols);
    if (beta != T(0)) plan.to_plan_numbering(dy0.get(), dyp.get(), a.rows);
    plan.apply_in_plan_numbering(dxp.get(), dyp.get(), alpha, beta);
    plan.from_plan_numbering(dxp.get(), dback.get(), a.cols);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(dxp.to_host(), xp) << tag << ": device to_plan_numbering differs from the host's";
    EXPECT_EQ(dback.to_host(), x) << tag << ": device to then from is not the identity";
    expect_axpby_product(b, xp, yp0, alpha, beta, dyp.to_host(), tag + " (device pointers)");
  }
}

TEST(PlanNumberingCuda, PassesAndProductsOnHostAndDevicePointers) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: GPU numbering check compiled but not run";
  GenOptions g;
  g.family = "fem_mesh";
  g.n = 9;
  g.dims = 3;
  g.ordering = "random";
  const Csr<double> a = generate(g);
  for (const char* ordering : {"none", "rcm", "hubsort"}) {
    check_cuda_numbering(a, ordering);
    check_cuda_numbering(csr_cast<float>(a), ordering);
  }
}

}  // namespace
}  // namespace spkit::test
