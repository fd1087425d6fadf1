#pragma once
// Shared machinery of the CUDA kernels: error checks that become spkit::DeviceError, RAII device
// buffers, device properties read once, launch-configuration helpers, the y = alpha*A*x + beta*y
// store every kernel ends in, and the CudaSpmvPlan base.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/kernel.hpp"

namespace spkit::cuda {

constexpr int kWarp = 32;  // lanes per warp (device_props checks the device agrees)

// ---------------------------------------------------------------------------------------------
// Error checks. Every CUDA runtime call goes through SPKIT_CUDA_CHECK; every launch is followed by
// SPKIT_LAUNCH_CHECK(name), which reads cudaGetLastError (bad configuration, missing image, ...).
// Asynchronous faults inside a kernel surface at the next synchronizing call, which is checked too.
inline void check_cuda(cudaError_t err, const char* call) {
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error so the next call does not report it again
    throw DeviceError(call, std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err));
  }
}
#define SPKIT_CUDA_CHECK(expr) ::spkit::cuda::check_cuda((expr), #expr)
#define SPKIT_LAUNCH_CHECK(kernel_name) ::spkit::cuda::check_cuda(cudaGetLastError(), "launch of " kernel_name)
// cuSPARSE calls: a status other than success becomes DeviceError naming the call and the status.
void check_cusparse(cusparseStatus_t status, const char* call);  // defined in cusparse.cu
#define SPKIT_CUSPARSE_CHECK(expr) ::spkit::cuda::check_cusparse((expr), #expr)

// ---------------------------------------------------------------------------------------------
// Device properties, read once per device and cached (cudaGetDeviceProperties is slow).
struct DeviceProps {
  int device = 0;
  int sm_count = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int warp_size = 32;
  std::int64_t l2_bytes = 0;
  std::int64_t max_shared_per_block = 0;  // without opt-in
  std::int64_t max_texture_1d_linear = 0;
  std::int64_t max_grid_x = 0;
};
const DeviceProps& device_props(int device);  // throws DeviceError
void set_device(int device);                  // cudaSetDevice, checked

// ---------------------------------------------------------------------------------------------
// RAII device array of n elements of T. Allocation failure throws TooLarge naming the bytes asked
// for (out of memory) or DeviceError (anything else).
void* device_malloc(std::size_t bytes, const char* what);
void device_free(void* p) noexcept;
// Throws TooLarge before a costly host conversion when its device arrays cannot fit in the
// device's free memory (leaving 5% headroom).
void check_device_fits(std::uint64_t bytes, const std::string& what);

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n, const char* what = "device buffer") : n_(n) {
    if (n_ > 0) p_ = static_cast<T*>(device_malloc(n_ * sizeof(T), what));
  }
  // Allocates and uploads `host` (synchronously).
  explicit DeviceBuffer(const std::vector<T>& host, const char* what = "device buffer")
      : DeviceBuffer(host.size(), what) {
    upload(host.data(), host.size());
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      device_free(p_);
      p_ = o.p_, n_ = o.n_;
      o.p_ = nullptr, o.n_ = 0;
    }
    return *this;
  }
  ~DeviceBuffer() { device_free(p_); }

  void upload(const T* host, std::size_t n) {
    if (n > n_) throw Error("DeviceBuffer::upload: " + std::to_string(n) + " elements into " + std::to_string(n_));
    if (n > 0) SPKIT_CUDA_CHECK(cudaMemcpy(p_, host, n * sizeof(T), cudaMemcpyHostToDevice));
  }
  void download(T* host, std::size_t n) const {
    if (n > n_) throw Error("DeviceBuffer::download: " + std::to_string(n) + " elements from " + std::to_string(n_));
    if (n > 0) SPKIT_CUDA_CHECK(cudaMemcpy(host, p_, n * sizeof(T), cudaMemcpyDeviceToHost));
  }
  std::vector<T> to_host() const {
    std::vector<T> h(n_);
    download(h.data(), n_);
    return h;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Launch configuration helpers: one place where block sizes are derived.
struct Launch {
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  std::size_t shared_bytes = 0;
};

// Threads per block for the memory-bound kernels: 256 (8 warps), the size at which one SM holds
// max_threads_per_sm / 256 blocks with registers to spare; clipped to the device's limit.
inline int default_block_threads(const DeviceProps& p) { return std::min(256, p.max_threads_per_block); }

// Blocks to cover `items` with `per_block` items each; throws when the grid would exceed the limit.
std::int64_t blocks_for(std::int64_t items, std::int64_t per_block, const DeviceProps& p);

// Lanes per row for the sub-warp CSR kernel: the largest power of two (2..32) <= mean/4, so that
// each lane handles at least about four non-zeros of a row (few idle lanes, short reductions;
// tuning::kCudaSubwarpEntriesPerLane).
int subwarp_lanes(double mean_row_length);

struct RowStats {
  double mean = 0;
  std::int64_t max = 0;
  std::int64_t empty = 0;
};
template <class T>
RowStats row_stats(const Csr<T>& a);

// y = beta*y over n elements on `stream` (a memset when beta == 0: y not read; nothing when beta == 1).
template <class T>
void scale_vector(T beta, T* y, std::int64_t n, const DeviceProps& props, cudaStream_t stream);

// ---------------------------------------------------------------------------------------------
// Base of every CUDA plan. The constructor of a derived plan uploads/converts and synchronizes, so
// plan time is honest. run(alpha, x, beta, y, stream) takes device pointers and only enqueues on `stream`.
template <class T>
class CudaSpmvPlan : public SpmvPlan<T> {
 public:
  CudaSpmvPlan(const Csr<T>& a, const PlanOptions& opts);
  ~CudaSpmvPlan() override;
  Backend backend() const final { return Backend::cuda; }

  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t nnz() const { return nnz_; }

 protected:
  const DeviceProps& props() const { return *props_; }
  // y = beta*y (0 when beta == 0, y not read) on `stream`: the product of a matrix with no non-zeros.
  void scale_output(T beta, T* y, cudaStream_t stream) const;
  // True when run() has nothing to launch: no rows, or no non-zeros (then y = beta*y is enqueued).
  bool handle_trivial(T beta, T* y, cudaStream_t stream) const {
    if (rows_ == 0) return true;
    if (nnz_ == 0) { scale_output(beta, y, stream); return true; }
    return false;
  }
  // CSR bytes per product in precision T: row_ptr (the plan's index width), col_idx, values, x, y.
  std::uint64_t csr_bytes(int row_ptr_bytes = 8) const;

  int device_ = 0;
  std::int64_t rows_ = 0, cols_ = 0, nnz_ = 0;

 private:
  const DeviceProps* props_ = nullptr;
};

// The cudaStream_t behind spkit's opaque Stream handle.
inline cudaStream_t cuda_stream(Stream s) { return static_cast<cudaStream_t>(s.handle); }

// Checked upload helpers.
template <class T>
DeviceBuffer<T> upload(const std::vector<T>& host, const char* what) {
  return DeviceBuffer<T>(host, what);
}

// The one place y is written: y = alpha*sum + beta*y. beta is the same for every thread of a launch, so
// the test does not diverge; with beta == 0, y is not read (it may hold NaN: 0*NaN must not leak in).
template <class T>
__device__ __forceinline__ T axpby(T alpha, T sum, T beta, const T* y) {
  return beta == T(0) ? alpha * sum : alpha * sum + beta * *y;
}
template <class T>
__device__ __forceinline__ void store_axpby(T* y, T alpha, T sum, T beta) {
  *y = axpby(alpha, sum, beta, y);
}
// The same with beta == 0 known at compile time, for kernels whose registers grow with the run-time test
// (templated on it, the instantiation chosen at launch).
template <bool BETA_ZERO, class T>
__device__ __forceinline__ void store_axpby_fixed(T* y, T alpha, T sum, T beta) {
  if constexpr (BETA_ZERO) *y = alpha * sum;
  else *y = alpha * sum + beta * *y;
}
// The same with an evict-first store (st.global.cs), for kernels whose y lines are not read again.
template <class T>
__device__ __forceinline__ void store_axpby_cs(T* y, T alpha, T sum, T beta) {
  __stcs(y, axpby(alpha, sum, beta, y));
}

// Warp-level sum over groups of LANES consecutive lanes (LANES a power of two <= 32); the result
// is valid in the first lane of each group. All 32 lanes of the warp must call it.
template <int LANES, class T>
__device__ __forceinline__ T group_sum(T v) {
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset, LANES);
  return v;
}

// Warp sum through the warp's own 32-element slice of shared memory (the shared-memory tree reduction of
// the CSR-vector and HLL warp-per-row flavours, kept for comparison with the shuffle); valid in lane 0.
template <class T>
__device__ __forceinline__ T shared_warp_sum(T* slice, int lane, T v) {
  slice[lane] = v;
  __syncwarp();
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    if (lane < offset) slice[lane] += slice[lane + offset];
    __syncwarp();
  }
  return slice[0];
}

}  // namespace spkit::cuda
