// Transposed and block products of a CUDA plan, both ways of apply_transpose (the scatter with atomic adds for
// few expected products, the cached A^T for many), on host and device pointers, against the serial double
// reference; A^T for the reference comes from A's triplets.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/axpby_check.hpp"
#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/formats/coo.hpp"
#include "spkit/plan.hpp"

namespace spkit::test {
namespace {

template <class T>
T* to_device(const std::vector<T>& h) {
  T* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, std::max<std::size_t>(1, h.size()) * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return p;
}
template <class T>
std::vector<T> to_host(const T* p, std::size_t n) {
  std::vector<T> h(n);
  EXPECT_EQ(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

TEST(PlanTransposeCuda, ScatterCachedTransposeAndBlock) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: transposed GPU plan check compiled, not run";
  std::vector<std::int64_t> lengths(301);
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int64_t>((i * 5) % 13);
  lengths[7] = 0;
  lengths[200] = 250;
  const Csr<double> a = random_rows(301, 263, lengths, 17);
  Coo<double> c = csr_to_coo(a);
  std::swap(c.rows, c.cols);
  std::swap(c.row_idx, c.col_idx);
  const Csr<double> at = coo_to_csr(c);
  PlanSettings s;
  s.backend = Backend::cuda;
  s.expected_transpose_products = 1;  // the scatter
  Plan<double> scatter(a, s);
  EXPECT_EQ(scatter.transpose_detail().rfind("scatter", 0), 0u) << scatter.transpose_detail();
  s.expected_transpose_products = 100000;  // past kCudaTransposeCacheMinProducts: cached
  Plan<double> plan(a, s);
  EXPECT_EQ(plan.transpose_detail().rfind("cached A^T", 0), 0u) << plan.transpose_detail();
  for (Plan<double>* p : {&scatter, &plan})
  for (const auto& [alpha, beta] : std::vector<std::pair<double, double>>{{1, 0}, {-0.5, 2}}) {
    SCOPED_TRACE(p->transpose_detail());
    const auto [x, y0] = axpby_operands(at, beta, fresh_seed());
    std::vector<double> y = y0;
    p->apply_transpose(x.data(), y.data(), alpha, beta);
    expect_axpby_product(at, x, y0, alpha, beta, y, "A^T host pointers");
    double* dx = to_device(x);
    double* dy = to_device(y0);
    p->apply_transpose(dx, dy, alpha, beta);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    expect_axpby_product(at, x, y0, alpha, beta, to_host(dy, y0.size()), "A^T device pointers");
    cudaFree(dx);
    cudaFree(dy);
  }
  // A row-major block of k = 3 with ld = 4, on device pointers: each column against the reference.
  const std::int64_t k = 3, ld = 4;
  std::vector<std::vector<double>> xs, y0s;
  std::vector<double> xb(a.cols * ld, 0.0), yb(a.rows * ld, 0.0);
  for (std::int64_t col = 0; col < k; ++col) {
    const auto [x, y0] = axpby_operands(a, 1.0, fresh_seed());
    for (std::int64_t j = 0; j < a.cols; ++j) xb[j * ld + col] = x[j];
    for (std::int64_t i = 0; i < a.rows; ++i) yb[i * ld + col] = y0[i];
    xs.push_back(x);
    y0s.push_back(y0);
  }
  double* dxb = to_device(xb);
  double* dyb = to_device(yb);
  plan.apply(dxb, ld, dyb, ld, k, 2.0, 1.0);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<double> got = to_host(dyb, yb.size());
  for (std::int64_t col = 0; col < k; ++col) {
    std::vector<double> ycol(a.rows);
    for (std::int64_t i = 0; i < a.rows; ++i) ycol[i] = got[i * ld + col];
    expect_axpby_product(a, xs[col], y0s[col], 2.0, 1.0, ycol, "block column " + std::to_string(col));
  }
  cudaFree(dxb);
  cudaFree(dyb);
}

}  // namespace
}  // namespace spkit::test
