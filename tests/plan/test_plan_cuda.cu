// The plan-once API on the GPU: device pointers (no copies), host pointers (through the plan's device
// buffers), every alpha/beta case with NaN in y for beta = 0, auto and every CUDA kernel by name.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "common/axpby_check.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/plan.hpp"

namespace spkit::test {
namespace {

#define REQUIRE_GPU() \
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: GPU plan check compiled but not run"

template <class T>
struct DeviceVector {
  T* p = nullptr;
  explicit DeviceVector(const std::vector<T>& h) {
    EXPECT_EQ(cudaMalloc(&p, std::max<std::size_t>(1, h.size()) * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<T> to_host(std::size_t n) const {
    std::vector<T> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
  ~DeviceVector() { cudaFree(p); }
};

const double kCoeffs[][2] = {{1, 0}, {2.5, 0}, {-1, 1}, {0.5, -2}, {0, 3}};

template <class T>
void check_cuda_plan(Plan<T>& plan, const Csr<T>& a, const std::string& what) {
  for (const auto& c : kCoeffs) {
    const T alpha = T(c[0]), beta = T(c[1]);
    const auto [x, y0] = axpby_operands(a, beta, fresh_seed());
    const std::string tag = what + " alpha " + std::to_string(c[0]) + " beta " + std::to_string(c[1]);
    // Host pointers.
    std::vector<T> y = y0;
    plan.apply(x.data(), y.data(), alpha, beta);
    expect_axpby_product(a, x, y0, alpha, beta, y, tag + " (host pointers)");
    // Device pointers.
    DeviceVector<T> dx(x), dy(y0);
    plan.apply(dx.p, dy.p, alpha, beta);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    expect_axpby_product(a, x, y0, alpha, beta, dy.to_host(y0.size()), tag + " (device pointers)");
  }
}

template <class T>
void check_all_cuda() {
  std::vector<std::int64_t> lengths(301);
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int64_t>((i * 5) % 13);
  lengths[100] = 250;
  const Csr<T> a = csr_cast<T>(random_rows(301, 280, lengths, 3));
  PlanSettings s;
  s.backend = Backend::cuda;
  Plan<T> automatic(a, s);
  EXPECT_EQ(registry().find(automatic.kernel())->backend, Backend::cuda);
  check_cuda_plan(automatic, a, "auto (" + automatic.kernel() + ")");
  for (const KernelInfo& k : registry().all()) {
    if (k.backend != Backend::cuda) continue;
    s.kernel = k.name;
    try {
      Plan<T> named(a, s);
      check_cuda_plan(named, a, k.name);
    } catch (const NotApplicable&) {
    }
  }
}

TEST(PlanCuda, DoubleHostAndDevicePointers) { REQUIRE_GPU(); check_all_cuda<double>(); }
TEST(PlanCuda, FloatHostAndDevicePointers) { REQUIRE_GPU(); check_all_cuda<float>(); }

// The stream overload: on device pointers the product is enqueued on the caller's stream (waited for
// here with that stream alone); on host pointers apply returns with y written.
template <class T>
void check_stream_overload() {
  std::vector<std::int64_t> lengths(257);
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int64_t>((i * 3) % 17);
  const Csr<T> a = csr_cast<T>(random_rows(257, 190, lengths, 9));
  PlanSettings s;
  s.backend = Backend::cuda;
  Plan<T> plan(a, s);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const auto& c : kCoeffs) {
    const T alpha = T(c[0]), beta = T(c[1]);
    const auto [x, y0] = axpby_operands(a, beta, fresh_seed());
    const std::string tag = plan.kernel() + " on a stream, alpha " + std::to_string(c[0]) + " beta " +
                            std::to_string(c[1]);
    DeviceVector<T> dx(x), dy(y0);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the uploads (legacy stream) are done before `stream` reads
    plan.apply(dx.p, dy.p, alpha, beta, Stream{stream});
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    expect_axpby_product(a, x, y0, alpha, beta, dy.to_host(y0.size()), tag + " (device pointers)");
    std::vector<T> y = y0;
    plan.apply(x.data(), y.data(), alpha, beta, Stream{stream});
    expect_axpby_product(a, x, y0, alpha, beta, y, tag + " (host pointers)");
  }
  cudaStreamDestroy(stream);
}

TEST(PlanCuda, DoubleStreamOverload) { REQUIRE_GPU(); check_stream_overload<double>(); }
TEST(PlanCuda, FloatStreamOverload) { REQUIRE_GPU(); check_stream_overload<float>(); }

// The renumbered plan on the GPU (gather, inner kernel, scatter, all on the caller's stream): every CUDA
// kernel on P A P^T of a randomly numbered mesh and of a square matrix with empty rows and one long row,
// host and device pointers, every alpha/beta case; then the stream overload and a measured "auto".
template <class T>
void check_renumbered_cuda() {
  GenOptions g;
  g.family = "fem_mesh";
  g.n = 6;
  g.dims = 3;
  g.ordering = "random";
  std::vector<std::int64_t> lengths(333);
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int64_t>((i * 5) % 13);
  lengths[100] = 300;
  for (const Csr<T>& a : {csr_cast<T>(generate(g)), csr_cast<T>(random_rows(333, 333, lengths, 4))}) {
    for (const KernelInfo& k : registry().all()) {
      if (k.backend != Backend::cuda) continue;
      for (const char* ordering : {"rcm", "hubsort"}) {
        PlanSettings s;
        s.backend = Backend::cuda;
        s.kernel = k.name;
        s.ordering = ordering;
        try {
          Plan<T> plan(a, s);
          EXPECT_EQ(plan.selection().ordering, ordering);
          check_cuda_plan(plan, a, k.name + " " + ordering);
        } catch (const NotApplicable&) {
        }
      }
    }
    PlanSettings s;
    s.backend = Backend::cuda;
    s.ordering = "rcm";
    s.tuning = "measure";
    s.expected_products = 1000000;
    Plan<T> measured(a, s);
    EXPECT_EQ(measured.selection().tuning, "measure");
    EXPECT_FALSE(measured.selection().measured.empty());
    EXPECT_EQ(measured.selection().ordering, "rcm");
    check_cuda_plan(measured, a, "measured auto " + measured.kernel() + " rcm");
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    for (const auto& c : kCoeffs) {
      const T alpha = T(c[0]), beta = T(c[1]);
      const auto [x, y0] = axpby_operands(a, beta, fresh_seed());
      DeviceVector<T> dx(x), dy(y0);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      measured.apply(dx.p, dy.p, alpha, beta, Stream{stream});
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      expect_axpby_product(a, x, y0, alpha, beta, dy.to_host(y0.size()), "renumbered on a stream");
    }
    cudaStreamDestroy(stream);
  }
}

TEST(PlanCuda, DoubleRenumbered) { REQUIRE_GPU(); check_renumbered_cuda<double>(); }
TEST(PlanCuda, FloatRenumbered) { REQUIRE_GPU(); check_renumbered_cuda<float>(); }

TEST(PlanCuda, MixedPointersAreRefused) {
  REQUIRE_GPU();
  const Csr<double> a = random_rows(40, 40, std::vector<std::int64_t>(40, 3), 5);
  PlanSettings s;
  s.backend = Backend::cuda;
  Plan<double> plan(a, s);
  std::vector<double> x(40, 1.0), y(40, 0.0);
  DeviceVector<double> dy(y);
  EXPECT_THROW(plan.apply(x.data(), dy.p), Error);
}

}  // namespace
}  // namespace spkit::test
