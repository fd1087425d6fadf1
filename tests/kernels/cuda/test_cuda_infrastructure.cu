// GPU-specific checks beyond the registry-driven kernel test: CUDA errors become spkit errors, plans
// are reusable, the L2-flush timing path works, larger grids and long rows are right, the bandwidth
// probe runs. Tests that need a device skip with a message where there is none.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/harness/timing.hpp"
#include "spkit/kernel.hpp"
#include "spkit/validate.hpp"

namespace spkit::test {
namespace {

#define SKIP_WITHOUT_GPU()                                                        \
  do {                                                                            \
    if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: GPU check compiled but not run"; \
  } while (0)

std::vector<const KernelInfo*> cuda_kernels() {
  std::vector<const KernelInfo*> out;
  for (const auto& k : registry().all())
    if (k.backend == Backend::cuda) out.push_back(&k);
  return out;
}

template <class T>
void expect_valid(const KernelInfo& k, const Csr<T>& a, const PlanOptions& po, const harness::TimingOptions& t,
                  SpmvPlan<T>& plan) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(k.name + ", x seed " + std::to_string(seed));
  const auto xd = random_vector(a.cols, seed);
  std::vector<T> x(xd.begin(), xd.end());
  std::vector<T> y(static_cast<std::size_t>(a.rows), std::numeric_limits<T>::quiet_NaN());
  const auto ms = harness::time_spmv(plan, a.rows, a.cols, x.data(), y.data(), t);
  EXPECT_EQ(ms.size(), static_cast<std::size_t>(t.reps));
  for (double v : ms) EXPECT_TRUE(std::isfinite(v) && v >= 0) << v;
  const Validation v = validate_spmv(a, x, y.data());
  EXPECT_TRUE(v.valid) << k.name << ": " << v.bad_rows << " bad rows, first " << v.first_bad_row << ", rel L2 "
                       << v.rel_l2_error;
  (void)po;
}

TEST(CudaErrors, CheckNamesTheCallAndTheError) {
  // Needs no device: the check itself turns an error code into spkit::DeviceError.
  try {
    cuda::check_cuda(cudaErrorInvalidValue, "cudaMemcpy(dst, src, n)");
    FAIL() << "no exception";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.call(), "cudaMemcpy(dst, src, n)");
    EXPECT_NE(std::string(e.what()).find("invalid argument"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(cuda::check_cuda(cudaSuccess, "anything"));
}

TEST(CudaErrors, CusparseCheckNamesTheCallAndTheStatus) {
  try {
    cuda::check_cusparse(CUSPARSE_STATUS_INVALID_VALUE, "cusparseSpMV(handle, ...)");
    FAIL() << "no exception";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.call(), "cusparseSpMV(handle, ...)");
    EXPECT_NE(std::string(e.what()).find("CUSPARSE_STATUS_INVALID_VALUE"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(cuda::check_cusparse(CUSPARSE_STATUS_SUCCESS, "anything"));
}

TEST(CudaErrors, SubwarpLanesFollowMeanRowLength) {
  EXPECT_EQ(cuda::subwarp_lanes(0.0), 2);
  EXPECT_EQ(cuda::subwarp_lanes(5.6), 2);
  EXPECT_EQ(cuda::subwarp_lanes(27.0), 4);
  EXPECT_EQ(cuda::subwarp_lanes(64.0), 16);
  EXPECT_EQ(cuda::subwarp_lanes(1000.0), 32);
  for (double m : {1.0, 3.0, 9.0, 17.0, 40.0, 100.0, 300.0}) {
    const int l = cuda::subwarp_lanes(m);
    EXPECT_TRUE(l == 2 || l == 4 || l == 8 || l == 16 || l == 32) << l;
  }
}

TEST(CudaErrors, MissingDeviceBecomesDeviceError) {
  SKIP_WITHOUT_GPU();
  const Csr<double> a = random_rows(10, 10, std::vector<std::int64_t>(10, 3), 7);
  PlanOptions po;
  po.device = gpu_count() + 5;
  for (const KernelInfo* k : cuda_kernels()) EXPECT_THROW(k->factory<double>()(a, po), DeviceError) << k->name;
}

TEST(CudaErrors, OutOfMemoryIsTooLargeWithTheBytes) {
  SKIP_WITHOUT_GPU();
  const std::size_t n = std::size_t(1) << 50;  // 8 PiB of doubles
  try {
    cuda::DeviceBuffer<double> b(n, "test buffer");
    FAIL() << "allocation of 8 PiB succeeded";
  } catch (const TooLarge& e) {
    EXPECT_EQ(e.bytes_needed(), n * sizeof(double));
    EXPECT_NE(std::string(e.what()).find("test buffer"), std::string::npos) << e.what();
  }
  // The device is still usable afterwards.
  cuda::DeviceBuffer<double> ok(std::vector<double>{1, 2, 3}, "small");
  EXPECT_EQ(ok.to_host()[2], 3.0);
}

__global__ void touch_kernel(int* p) { p[threadIdx.x] = 1; }

TEST(CudaErrors, BadLaunchIsReported) {
  SKIP_WITHOUT_GPU();
  cuda::DeviceBuffer<int> buf(4096, "launch test");
  // A configuration error (more threads per block than any device allows) must surface through the
  // launch check as DeviceError naming the kernel.
  touch_kernel<<<1, 4096>>>(buf.get());
  try {
    SPKIT_LAUNCH_CHECK("touch_kernel");
    FAIL() << "an invalid launch configuration was not reported";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("touch_kernel"), std::string::npos) << e.what();
  }
  touch_kernel<<<1, 32>>>(buf.get());  // and a good launch afterwards is fine
  EXPECT_NO_THROW(SPKIT_LAUNCH_CHECK("touch_kernel"));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// Every CUDA kernel on matrices big enough for many blocks, one with a row far longer than
// CSR-adaptive's row block and a 1e5-row power-law-like one; plan reused for run() on device
// buffers and for time() with and without the L2 flush.
TEST(CudaKernels, LargerMatricesPlanReuseAndL2Flush) {
  SKIP_WITHOUT_GPU();
  std::vector<NamedMatrix> ms;
  {
    std::vector<std::int64_t> len(5003, 0);
    for (std::size_t i = 0; i < len.size(); ++i) len[i] = (i * 7) % 13;
    len[17] = 4999;   // one long row
    len[4000] = 2500;
    ms.push_back({"long_rows_5003", random_rows(5003, 5001, len, 99)});
  }
  {
    std::vector<std::int64_t> len(100003);
    std::mt19937_64 rng(5);
    for (auto& l : len) {
      const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
      l = static_cast<std::int64_t>(std::min(2000.0, 1.0 / std::pow(1.0 - u * 0.999, 1.0 / 1.3)));
    }
    ms.push_back({"powerlaw_100003", random_rows(100003, 100003, len, 11)});
  }
  for (const auto& m : ms) {
    SCOPED_TRACE(m.name);
    const Csr<float> af = csr_cast<float>(m.a);
    for (const KernelInfo* k : cuda_kernels()) {
      PlanOptions po;
      std::unique_ptr<SpmvPlan<double>> pd;
      std::unique_ptr<SpmvPlan<float>> pf;
      try {
        pd = k->factory<double>()(m.a, po);
        pf = k->factory<float>()(af, po);
      } catch (const NotApplicable&) {
        continue;
      }
      harness::TimingOptions warm;
      warm.warmup = 1;
      warm.reps = 3;
      harness::TimingOptions cold = warm;
      cold.flush_cache = true;
      expect_valid(*k, m.a, po, warm, *pd);
      expect_valid(*k, m.a, po, cold, *pd);  // same plan again, new x, L2 flushed between reps
      expect_valid(*k, af, po, cold, *pf);
      EXPECT_GT(pd->bytes_moved(), 0u) << k->name;
    }
  }
}

// run() directly on device buffers, several times on one plan with different x.
TEST(CudaKernels, RunOnDevicePointersRepeatedly) {
  SKIP_WITHOUT_GPU();
  std::vector<std::int64_t> len(1000);
  for (std::size_t i = 0; i < len.size(); ++i) len[i] = 1 + (i * 5) % 40;
  const Csr<double> a = random_rows(1000, 777, len, 3);
  for (const KernelInfo* k : cuda_kernels()) {
    std::unique_ptr<SpmvPlan<double>> plan;
    try {
      plan = k->factory<double>()(a, PlanOptions{});
    } catch (const NotApplicable&) {
      continue;
    }
    for (int trial = 0; trial < 3; ++trial) {
      const std::uint64_t seed = fresh_seed();
      const auto x = random_vector(a.cols, seed);
      cuda::DeviceBuffer<double> dx(x, "x"), dy(static_cast<std::size_t>(a.rows), "y");
      plan->run(1, dx.get(), 0, dy.get(), spkit::Stream{});
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const auto y = dy.to_host();
      const Validation v = validate_spmv(a, x, y.data());
      EXPECT_TRUE(v.valid) << k->name << " trial " << trial << " seed " << seed << ": rel L2 " << v.rel_l2_error;
    }
  }
}

TEST(CudaBandwidth, MeasuresPositiveFiniteFigures) {
  SKIP_WITHOUT_GPU();
  const GpuBandwidth bw = measure_gpu_bandwidth(0);
  for (double v : {bw.copy_gbs, bw.triad_gbs, bw.read_gbs}) EXPECT_TRUE(std::isfinite(v) && v > 0) << v;
}

TEST(CudaBandwidth, ThrowsWithoutDevice) {
  if (gpu_count() > 0) GTEST_SKIP() << "a CUDA device is present: the no-device path is not reachable here";
  EXPECT_THROW(measure_gpu_bandwidth(0), Error);
}

}  // namespace
}  // namespace spkit::test
