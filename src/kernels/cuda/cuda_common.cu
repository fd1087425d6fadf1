// Implementation of cuda_common.cuh: device properties, allocation, y = beta*y for empty matrices, the
// CudaSpmvPlan base.
#include "kernels/cuda/cuda_common.cuh"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "tuning.hpp"

namespace spkit::cuda {

void set_device(int device) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    cudaGetLastError();
    throw DeviceError("cudaGetDeviceCount", "no CUDA device available");
  }
  if (device < 0 || device >= n)
    throw DeviceError("cudaSetDevice", "device " + std::to_string(device) + " does not exist (" +
                                           std::to_string(n) + " present)");
  SPKIT_CUDA_CHECK(cudaSetDevice(device));
}

const DeviceProps& device_props(int device) {
  static std::mutex mutex;
  static std::vector<std::unique_ptr<DeviceProps>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (device >= 0 && static_cast<std::size_t>(device) < cache.size() && cache[device]) return *cache[device];
  set_device(device);
  cudaDeviceProp p{};
  SPKIT_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  auto d = std::make_unique<DeviceProps>();
  d->device = device;
  d->sm_count = p.multiProcessorCount;
  d->max_threads_per_block = p.maxThreadsPerBlock;
  d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d->warp_size = p.warpSize;
  d->l2_bytes = p.l2CacheSize;
  d->max_shared_per_block = static_cast<std::int64_t>(p.sharedMemPerBlock);
  int tex_linear = 0;
  SPKIT_CUDA_CHECK(cudaDeviceGetAttribute(&tex_linear, cudaDevAttrMaxTexture1DLinearWidth, device));
  d->max_texture_1d_linear = tex_linear;
  d->max_grid_x = p.maxGridSize[0];
  if (d->warp_size != 32) throw DeviceError("cudaGetDeviceProperties", "spkit's kernels assume a warp of 32 threads");
  if (cache.size() <= static_cast<std::size_t>(device)) cache.resize(device + 1);
  cache[device] = std::move(d);
  return *cache[device];
}

void* device_malloc(std::size_t bytes, const char* what) {
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    cudaGetLastError();
    throw TooLarge(std::string("cudaMalloc for ") + what + ": out of device memory (" + std::to_string(free_b) +
                       " bytes free of " + std::to_string(total_b) + ")",
                   bytes);
  }
  check_cuda(err, (std::string("cudaMalloc of ") + std::to_string(bytes) + " bytes for " + what).c_str());
  return p;
}

void check_device_fits(std::uint64_t bytes, const std::string& what) {
  std::size_t free_b = 0, total_b = 0;
  SPKIT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (bytes > free_b / 20 * 19)
    throw TooLarge(what + " does not fit in device memory (" + std::to_string(free_b) + " bytes free)", bytes);
}

void device_free(void* p) noexcept {
  if (p) cudaFree(p);  // a failure here (sticky error after a fault) cannot be reported from a destructor
}

std::int64_t blocks_for(std::int64_t items, std::int64_t per_block, const DeviceProps& p) {
  const std::int64_t blocks = (items + per_block - 1) / per_block;
  if (blocks > p.max_grid_x)
    throw TooLarge("grid of " + std::to_string(blocks) + " blocks exceeds the device limit", 0);
  return std::max<std::int64_t>(blocks, 1);
}

int subwarp_lanes(double mean_row_length) {
  const double target = mean_row_length / tuning::kCudaSubwarpEntriesPerLane;
  int lanes = 2;
  while (lanes < 32 && lanes * 2 <= target) lanes *= 2;  // largest power of two <= mean/4
  return lanes;
}

template <class T>
RowStats row_stats(const Csr<T>& a) {
  RowStats s;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::int64_t len = a.row_length(i);
    s.max = std::max(s.max, len);
    s.empty += len == 0;
  }
  s.mean = a.rows > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(a.rows) : 0.0;
  return s;
}
template RowStats row_stats(const Csr<float>&);
template RowStats row_stats(const Csr<double>&);

template <class T>
CudaSpmvPlan<T>::CudaSpmvPlan(const Csr<T>& a, const PlanOptions& opts)
    : device_(opts.device), rows_(a.rows), cols_(a.cols), nnz_(a.nnz()) {
  props_ = &device_props(device_);
  set_device(device_);
}

template <class T>
CudaSpmvPlan<T>::~CudaSpmvPlan() = default;

namespace {
template <class T>
__global__ void __launch_bounds__(256) scale_kernel(std::int64_t n, T beta, T* __restrict__ y) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= beta;
}
}  // namespace

template <class T>
void scale_vector(T beta, T* y, std::int64_t n, const DeviceProps& props, cudaStream_t stream) {
  if (n == 0) return;
  if (beta == T(0)) {
    SPKIT_CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(n) * sizeof(T), stream));
    return;
  }
  if (beta == T(1)) return;
  const unsigned blocks = static_cast<unsigned>(blocks_for(n, 256, props));
  scale_kernel<T><<<blocks, 256, 0, stream>>>(n, beta, y);
  SPKIT_LAUNCH_CHECK("scale_kernel");
}
template void scale_vector(float, float*, std::int64_t, const DeviceProps&, cudaStream_t);
template void scale_vector(double, double*, std::int64_t, const DeviceProps&, cudaStream_t);

template <class T>
void CudaSpmvPlan<T>::scale_output(T beta, T* y, cudaStream_t stream) const {
  scale_vector(beta, y, rows_, *props_, stream);
}

template <class T>
std::uint64_t CudaSpmvPlan<T>::csr_bytes(int row_ptr_bytes) const {
  return static_cast<std::uint64_t>(rows_ + 1) * row_ptr_bytes + static_cast<std::uint64_t>(nnz_) * (4 + sizeof(T)) +
         static_cast<std::uint64_t>(rows_ + cols_) * sizeof(T);
}

template class CudaSpmvPlan<float>;
template class CudaSpmvPlan<double>;

}  // namespace spkit::cuda
