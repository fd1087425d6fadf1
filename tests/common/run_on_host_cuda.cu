// The CUDA half of run_on_host (tests/common/run_on_host.hpp): x and y go to the device, the kernel runs
// on a non-blocking stream created here, y comes back on that stream. Work a kernel put on another
// stream is not waited for, so it shows as a wrong (or unwritten) y.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "common/run_on_host.hpp"

namespace spkit::test {

template <class T>
void run_cuda_on_host(SpmvPlan<T>& plan, T alpha, const std::vector<T>& x, T beta, std::vector<T>& y) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  T *dx = nullptr, *dy = nullptr;
  const std::size_t xb = x.size() * sizeof(T), yb = y.size() * sizeof(T);
  ASSERT_EQ(cudaMalloc(&dx, std::max<std::size_t>(xb, sizeof(T))), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dy, std::max<std::size_t>(yb, sizeof(T))), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(dx, x.data(), xb, cudaMemcpyHostToDevice, stream), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(dy, y.data(), yb, cudaMemcpyHostToDevice, stream), cudaSuccess);  // NaN stays NaN
  plan.run(alpha, dx, beta, dy, Stream{stream});
  EXPECT_EQ(cudaMemcpyAsync(y.data(), dy, yb, cudaMemcpyDeviceToHost, stream), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaFree(dx);
  cudaFree(dy);
  cudaStreamDestroy(stream);
}

template void run_cuda_on_host(SpmvPlan<float>&, float, const std::vector<float>&, float, std::vector<float>&);
template void run_cuda_on_host(SpmvPlan<double>&, double, const std::vector<double>&, double, std::vector<double>&);

}  // namespace spkit::test
