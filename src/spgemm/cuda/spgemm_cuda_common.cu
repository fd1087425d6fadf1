// Implementation of spgemm_cuda_common.cuh and THE registration of the GPU SpGEMM kernels.
#include "spgemm/cuda/spgemm_cuda_common.cuh"

#include <cmath>
#include <limits>
#include <memory>
#include <mutex>


namespace spkit {

void register_cuda_spgemm_kernels(SpgemmRegistry& reg) {
  cuda::register_bmsparse_spgemm_kernels(reg);
  cuda::register_cusparse_spgemm_kernel(reg);
  cuda::register_csr_hash_spgemm_kernel(reg);
  cuda::register_csr_binned_spgemm_kernel(reg);
  cuda::register_csr_dense_blocks_spgemm_kernel(reg);
}

namespace cuda {

cudaMemPool_t spgemm_pool(int device) {
  static std::mutex mutex;
  static std::vector<cudaMemPool_t> pools;
  std::lock_guard<std::mutex> lock(mutex);
  if (device < 0) throw DeviceError("spgemm_pool", "negative device ordinal");
  if (pools.size() <= static_cast<std::size_t>(device)) pools.resize(device + 1, nullptr);
  if (!pools[device]) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    SPKIT_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    SPKIT_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    pools[device] = pool;
  }
  return pools[device];
}

void trim_spgemm_pool(int device, cudaStream_t stream) {
  SPKIT_CUDA_CHECK(cudaStreamSynchronize(stream));  // frees enqueued on the stream have happened
  SPKIT_CUDA_CHECK(cudaMemPoolTrimTo(spgemm_pool(device), 0));
}

void release_spgemm_pool(const SpgemmOptions& o, cudaStream_t stream) {
  if (!o.keep_device_pool) trim_spgemm_pool(o.device, stream);
}

void* pool_malloc(std::size_t bytes, const char* what, cudaStream_t stream) {
  int device = 0;
  SPKIT_CUDA_CHECK(cudaGetDevice(&device));
  void* p = nullptr;
  const cudaError_t err = cudaMallocFromPoolAsync(&p, bytes, spgemm_pool(device), stream);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    cudaGetLastError();
    throw TooLarge(std::string("device allocation for ") + what + ": out of device memory (" +
                       std::to_string(free_b) + " bytes free of " + std::to_string(total_b) + ")",
                   bytes);
  }
  check_cuda(err, (std::string("cudaMallocFromPoolAsync of ") + std::to_string(bytes) + " bytes for " + what).c_str());
  return p;
}

namespace {
// Device memory free plus what the SpGEMM pool holds unused.
std::uint64_t spgemm_available_bytes() {
  int device = 0;
  SPKIT_CUDA_CHECK(cudaGetDevice(&device));
  std::size_t free_b = 0, total_b = 0;
  SPKIT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  std::uint64_t reserved = 0, used = 0;
  SPKIT_CUDA_CHECK(cudaMemPoolGetAttribute(spgemm_pool(device), cudaMemPoolAttrReservedMemCurrent, &reserved));
  SPKIT_CUDA_CHECK(cudaMemPoolGetAttribute(spgemm_pool(device), cudaMemPoolAttrUsedMemCurrent, &used));
  return free_b + (reserved > used ? reserved - used : 0);
}
}  // namespace

bool fits_spgemm_device(std::uint64_t bytes) { return bytes <= spgemm_available_bytes() / 20 * 19; }

void check_spgemm_fits(std::uint64_t bytes, const std::string& what) {
  const std::uint64_t available = spgemm_available_bytes();
  if (bytes > available / 20 * 19)
    throw TooLarge(what + " does not fit in device memory (" + std::to_string(available) + " bytes available)", bytes);
}

void pool_free(void* p, cudaStream_t stream) noexcept {
  if (p) cudaFreeAsync(p, stream);  // cannot report from a destructor; a sticky error shows at the next checked call
}

template <class T>
void require_fp16_range(const Csr<T>& m, const char* which, const std::string& kernel) {
  double mx = 0;
  for (const T v : m.values) mx = std::max(mx, std::abs(static_cast<double>(v)));
  if (!(mx <= 65504.0))
    throw NotApplicable(kernel + ": " + which + " holds a value of magnitude " + std::to_string(mx) +
                        ", beyond the FP16 range (65504); use a kernel with wider inputs");
}
template void require_fp16_range(const Csr<float>&, const char*, const std::string&);
template void require_fp16_range(const Csr<double>&, const char*, const std::string&);

template <class T>
void drop_zeros_and_sort(Csr<T>& c) {
  std::int64_t out = 0;
  std::vector<std::pair<std::int32_t, T>> row;
  for (std::int64_t i = 0; i < c.rows; ++i) {
    const std::int64_t b = c.row_ptr[i], e = c.row_ptr[i + 1];
    bool sorted = true;
    for (std::int64_t p = b + 1; p < e; ++p) sorted = sorted && c.col_idx[p - 1] < c.col_idx[p];
    if (!sorted) {
      row.clear();
      for (std::int64_t p = b; p < e; ++p) row.emplace_back(c.col_idx[p], c.values[p]);
      std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      for (std::int64_t p = b; p < e; ++p) c.col_idx[p] = row[p - b].first, c.values[p] = row[p - b].second;
    }
    c.row_ptr[i] = out;
    for (std::int64_t p = b; p < e; ++p)
      if (c.values[p] != T(0)) c.col_idx[out] = c.col_idx[p], c.values[out] = c.values[p], ++out;
  }
  if (c.rows >= 0) c.row_ptr[c.rows] = out;
  c.col_idx.resize(static_cast<std::size_t>(out));
  c.values.resize(static_cast<std::size_t>(out));
}
template void drop_zeros_and_sort(Csr<float>&);
template void drop_zeros_and_sort(Csr<double>&);

}  // namespace cuda
}  // namespace spkit
