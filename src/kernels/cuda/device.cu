// Device queries for host code. A missing driver or device means 0 GPUs, not an error.
#include <cuda_runtime.h>

#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "kernels/cuda/cuda_common.cuh"

#include <algorithm>
#include <vector>

namespace spkit {

bool cuda_compiled() { return true; }

int gpu_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

GpuInfo gpu_info(int device) {
  if (device < 0 || device >= gpu_count()) throw Error("no CUDA device " + std::to_string(device));
  cudaDeviceProp p{};
  cudaError_t err = cudaGetDeviceProperties(&p, device);
  if (err != cudaSuccess) throw DeviceError("cudaGetDeviceProperties", cudaGetErrorString(err));
  GpuInfo g;
  g.name = p.name;
  g.sm_count = p.multiProcessorCount;
  g.compute_major = p.major;
  g.compute_minor = p.minor;
  g.global_memory_bytes = p.totalGlobalMem;
  g.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  g.max_shared_per_block = static_cast<int>(p.sharedMemPerBlockOptin);
  return g;
}

}  // namespace spkit

// Device memory bandwidth: STREAM-like copy, triad and read-only passes over three buffers of
// max(512 MiB, 16 x L2) each, 16-byte accesses, a grid sized from the SM count. Bytes counted are
// bytes read plus bytes written; each figure is the median of the timed repetitions.
namespace spkit {
namespace {

using cuda::DeviceBuffer;

__global__ void bw_copy_kernel(const double2* __restrict__ a, double2* __restrict__ b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    b[i] = a[i];
}

__global__ void bw_triad_kernel(double2* __restrict__ a, const double2* __restrict__ b,
                                const double2* __restrict__ c, double s, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double2 bv = b[i], cv = c[i];
    a[i] = make_double2(bv.x + s * cv.x, bv.y + s * cv.y);
  }
}

// Read-only: each thread sums its elements; one write per thread keeps the compiler from dropping
// the loads and adds a negligible number of bytes (counted anyway).
__global__ void bw_read_kernel(const double2* __restrict__ a, double* __restrict__ partial, std::int64_t n) {
  double sum = 0;
  const std::int64_t tid = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  for (std::int64_t i = tid; i < n; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double2 v = a[i];
    sum += v.x + v.y;
  }
  partial[tid] = sum;
}

__global__ void bw_fill_kernel(double2* a, std::int64_t n, double v) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    a[i] = make_double2(v + 1e-9 * static_cast<double>(i % 1000), v - 1e-9 * static_cast<double>(i % 777));
}

template <class Launch>
double median_ms(Launch&& launch, int reps) {
  cudaEvent_t start, stop;
  SPKIT_CUDA_CHECK(cudaEventCreate(&start));
  SPKIT_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  try {
    launch();  // warm-up
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
      SPKIT_CUDA_CHECK(cudaEventRecord(start));
      launch();
      SPKIT_CUDA_CHECK(cudaEventRecord(stop));
      SPKIT_CUDA_CHECK(cudaEventSynchronize(stop));
      float t = 0;
      SPKIT_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
      ms.push_back(t);
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

GpuBandwidth measure_gpu_bandwidth(int device) {
  if (gpu_count() == 0) throw Error("measure_gpu_bandwidth: no CUDA device on this machine");
  const cuda::DeviceProps& p = cuda::device_props(device);
  cuda::set_device(device);
  const std::int64_t bytes = std::max<std::int64_t>(std::int64_t(512) << 20, 16 * p.l2_bytes);
  const std::int64_t n = bytes / static_cast<std::int64_t>(sizeof(double2));
  DeviceBuffer<double2> a(n, "bandwidth buffer a"), b(n, "bandwidth buffer b"), c(n, "bandwidth buffer c");
  const int threads = 256;
  const int blocks = p.sm_count * (p.max_threads_per_sm / threads) * 4;
  DeviceBuffer<double> partial(static_cast<std::size_t>(blocks) * threads, "bandwidth partial sums");
  const auto fill = [&](DeviceBuffer<double2>& buf, double v) {
    bw_fill_kernel<<<blocks, threads>>>(buf.get(), n, v);
    SPKIT_LAUNCH_CHECK("bw_fill_kernel");
  };
  fill(a, 1.0), fill(b, 2.0), fill(c, 3.0);
  SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  const int reps = 20;
  const double buf_bytes = static_cast<double>(n) * sizeof(double2);
  GpuBandwidth bw;
  const double copy_ms = median_ms([&] {
    bw_copy_kernel<<<blocks, threads>>>(a.get(), b.get(), n);
    SPKIT_LAUNCH_CHECK("bw_copy_kernel");
  }, reps);
  bw.copy_gbs = 2 * buf_bytes / (copy_ms * 1e6);
  const double triad_ms = median_ms([&] {
    bw_triad_kernel<<<blocks, threads>>>(a.get(), b.get(), c.get(), 0.5, n);
    SPKIT_LAUNCH_CHECK("bw_triad_kernel");
  }, reps);
  bw.triad_gbs = 3 * buf_bytes / (triad_ms * 1e6);
  const double read_ms = median_ms([&] {
    bw_read_kernel<<<blocks, threads>>>(a.get(), partial.get(), n);
    SPKIT_LAUNCH_CHECK("bw_read_kernel");
  }, reps);
  bw.read_gbs = (buf_bytes + static_cast<double>(partial.bytes())) / (read_ms * 1e6);
  return bw;
}

}  // namespace spkit
