// Device side of the Plan API: pointer classification, buffers and the fused y = alpha*t + beta*y.
#include "kernels/cuda/cuda_common.cuh"
#include "plan/plan_device.hpp"

namespace spkit::plan_device {

PointerKind pointer_kind(const void* p) {
  cudaPointerAttributes attr{};
  cuda::check_cuda(cudaPointerGetAttributes(&attr, p), "cudaPointerGetAttributes");
  // Managed memory is readable by kernels as it is; unregistered (pageable) and pinned host memory
  // are copied through the plan's device buffers.
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ? PointerKind::device
                                                                                  : PointerKind::host;
}

void* allocate(std::size_t bytes, const char* what) { return cuda::device_malloc(bytes, what); }
void release(void* p) noexcept { cuda::device_free(p); }
void upload(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0) SPKIT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
void download(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0) SPKIT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
void select_device(int device) { cuda::set_device(device); }

double peak_memory_gbs(int device) {
  int clock_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
}

namespace {
template <class T, bool kReadY>
__global__ void axpby_kernel(std::int64_t n, T alpha, const T* t, T beta, T* y) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if constexpr (kReadY) y[i] = alpha * t[i] + beta * y[i];
    else y[i] = alpha * t[i];
  }
}
}  // namespace

template <class T>
void axpby(std::int64_t n, T alpha, const T* t, T beta, T* y) {
  if (n <= 0) return;
  int device = 0;
  SPKIT_CUDA_CHECK(cudaGetDevice(&device));
  const cuda::DeviceProps& props = cuda::device_props(device);
  const int threads = cuda::default_block_threads(props);
  // A grid-stride loop over a few waves of blocks: enough to saturate bandwidth without a huge grid.
  const std::int64_t wanted = (n + threads - 1) / threads;
  const std::int64_t cap = static_cast<std::int64_t>(props.sm_count) * (props.max_threads_per_sm / threads) * 4;
  const unsigned blocks = static_cast<unsigned>(std::max<std::int64_t>(1, std::min(wanted, cap)));
  if (beta == T(0)) {
    axpby_kernel<T, false><<<blocks, threads>>>(n, alpha, t, beta, y);
  } else {
    axpby_kernel<T, true><<<blocks, threads>>>(n, alpha, t, beta, y);
  }
  SPKIT_LAUNCH_CHECK("axpby_kernel");
}

template void axpby(std::int64_t, float, const float*, float, float*);
template void axpby(std::int64_t, double, const double*, double, double*);

}  // namespace spkit::plan_device
