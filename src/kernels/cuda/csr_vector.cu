// CUDA CSR-vector (Bell & Garland 2009): one warp per row, lanes stride the row, then a warp reduction.
// Five flavours of the one scheme, kept for comparison: shuffle reduction with plain loads or with __ldg
// read-only loads, a shared-memory tree reduction, partial sums staged in a 2-D shared array then reduced
// with shuffles, and x read through a texture object.
#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/device_csr.cuh"
#include "spkit/kernel.hpp"

namespace spkit::cuda {
namespace {

// Row indices are 64-bit: rows * lanes can exceed 2^31.
// Loads of the vector kernel: plain or through the read-only cache with __ldg.
struct PlainLoad {
  template <class U>
  __device__ __forceinline__ static U load(const U* p) { return *p; }
};
struct LdgLoad {
  template <class U>
  __device__ __forceinline__ static U load(const U* p) { return __ldg(p); }
};

// A warp per row (blockDim = 32 x warps_per_block), shuffle reduction.
template <class T, class Load>
__global__ void csr_vector_kernel(std::int64_t rows, const std::int64_t* row_ptr, const std::int32_t* col_idx,
                                  const T* values, T alpha, const T* x, T beta, T* y) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;  // uniform across the warp
  const int lane = threadIdx.x;
  const std::int64_t end = Load::load(row_ptr + row + 1);
  T sum = 0;
  for (std::int64_t j = Load::load(row_ptr + row) + lane; j < end; j += kWarp)
    sum += Load::load(values + j) * Load::load(x + Load::load(col_idx + j));
  sum = group_sum<kWarp>(sum);
  if (lane == 0) store_axpby(y + row, alpha, sum, beta);
}

// Warp per row, partial sums reduced in shared memory (one slice per warp).
template <class T>
__global__ void csr_vector_shared_kernel(std::int64_t rows, const std::int64_t* row_ptr, const std::int32_t* col_idx,
                                         const T* values, T alpha, const T* x, T beta, T* y) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* shared_sum = reinterpret_cast<T*>(smem_raw);
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;  // uniform across the warp; each warp touches only its own slice
  const int lane = threadIdx.x;
  T sum = 0;
  for (std::int64_t j = row_ptr[row] + lane; j < row_ptr[row + 1]; j += kWarp) sum += values[j] * x[col_idx[j]];
  sum = shared_warp_sum(shared_sum + threadIdx.y * kWarp, lane, sum);
  if (lane == 0) store_axpby(y + row, alpha, sum, beta);
}

// Partial sums staged in a 2-D shared array [warp][lane], read back and reduced
// with shuffles.
template <class T>
__global__ void csr_vector_shared2d_kernel(std::int64_t rows, const std::int64_t* row_ptr, const std::int32_t* col_idx,
                                           const T* values, T alpha, const T* x, T beta, T* y) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T(*shared_sum)[kWarp] = reinterpret_cast<T(*)[kWarp]>(smem_raw);
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  T sum = 0;
  for (std::int64_t j = row_ptr[row] + lane; j < row_ptr[row + 1]; j += kWarp) sum += values[j] * x[col_idx[j]];
  shared_sum[threadIdx.y][lane] = sum;
  __syncwarp();
  sum = shared_sum[threadIdx.y][lane];
  sum = group_sum<kWarp>(sum);
  if (lane == 0) store_axpby(y + row, alpha, sum, beta);
}

// x through the texture cache. double is fetched as int2 and reassembled.
template <class T>
__device__ __forceinline__ T fetch_x(cudaTextureObject_t tex, std::int32_t i);
template <>
__device__ __forceinline__ float fetch_x<float>(cudaTextureObject_t tex, std::int32_t i) {
  return tex1Dfetch<float>(tex, i);
}
template <>
__device__ __forceinline__ double fetch_x<double>(cudaTextureObject_t tex, std::int32_t i) {
  const int2 v = tex1Dfetch<int2>(tex, i);
  return __hiloint2double(v.y, v.x);
}

template <class T>
__global__ void csr_vector_texture_kernel(std::int64_t rows, const std::int64_t* row_ptr, const std::int32_t* col_idx,
                                          const T* values, T alpha, cudaTextureObject_t x_tex, T beta, T* y) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  T sum = 0;
  for (std::int64_t j = row_ptr[row] + lane; j < row_ptr[row + 1]; j += kWarp)
    sum += values[j] * fetch_x<T>(x_tex, col_idx[j]);
  sum = group_sum<kWarp>(sum);
  if (lane == 0) store_axpby(y + row, alpha, sum, beta);
}

// Ours: LANES lanes per row (LANES in 2..32), 1-D blocks; out-of-range groups still take part in
// the shuffles (no early return), so the full-warp mask is always right. Rows longer than
// long_row (more than 16 iterations per lane) are skipped here and done in chunks (LongRowChunks),

// Base for the warp-per-row kernels: 2-D blocks of 32 x warps_per_block.
template <class T>
class CsrWarpPlanBase : public CudaSpmvPlan<T> {
 public:
  CsrWarpPlanBase(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o), m_(a) {
    const int threads = default_block_threads(this->props());
    warps_per_block_ = threads / kWarp;
    launch_.block = dim3(kWarp, warps_per_block_);
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, warps_per_block_, this->props())));
    launch_.shared_bytes = static_cast<std::size_t>(warps_per_block_) * kWarp * sizeof(T);
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::uint64_t bytes_moved() const override { return this->csr_bytes(); }
  std::string detail() const override { return "warp per row, " + std::to_string(warps_per_block_) + " warps/block"; }

 protected:
  DeviceCsr<T> m_;
  int warps_per_block_ = 8;
  Launch launch_;
};

template <class T>
class CsrVectorPlan : public CsrWarpPlanBase<T> {
 public:
  using CsrWarpPlanBase<T>::CsrWarpPlanBase;
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    if (this->handle_trivial(beta, y, cuda_stream(stream))) return;
    csr_vector_kernel<T, PlainLoad><<<this->launch_.grid, this->launch_.block, 0, cuda_stream(stream)>>>(
        this->rows_, this->m_.row_ptr.get(), this->m_.col_idx.get(), this->m_.values.get(), alpha, x, beta, y);
    SPKIT_LAUNCH_CHECK("csr_vector_kernel");
  }
};

template <class T>
class CsrVectorLdgPlan : public CsrWarpPlanBase<T> {
 public:
  using CsrWarpPlanBase<T>::CsrWarpPlanBase;
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    if (this->handle_trivial(beta, y, cuda_stream(stream))) return;
    csr_vector_kernel<T, LdgLoad><<<this->launch_.grid, this->launch_.block, 0, cuda_stream(stream)>>>(
        this->rows_, this->m_.row_ptr.get(), this->m_.col_idx.get(), this->m_.values.get(), alpha, x, beta, y);
    SPKIT_LAUNCH_CHECK("csr_vector_kernel<ldg>");
  }
};

template <class T>
class CsrVectorSharedPlan : public CsrWarpPlanBase<T> {
 public:
  using CsrWarpPlanBase<T>::CsrWarpPlanBase;
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    if (this->handle_trivial(beta, y, cuda_stream(stream))) return;
    csr_vector_shared_kernel<T><<<this->launch_.grid, this->launch_.block, this->launch_.shared_bytes,
                                                                                     cuda_stream(stream)>>>(
        this->rows_, this->m_.row_ptr.get(), this->m_.col_idx.get(), this->m_.values.get(), alpha, x, beta, y);
    SPKIT_LAUNCH_CHECK("csr_vector_shared_kernel");
  }
};

template <class T>
class CsrVectorShared2dPlan : public CsrWarpPlanBase<T> {
 public:
  using CsrWarpPlanBase<T>::CsrWarpPlanBase;
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    if (this->handle_trivial(beta, y, cuda_stream(stream))) return;
    csr_vector_shared2d_kernel<T><<<this->launch_.grid, this->launch_.block, this->launch_.shared_bytes,
                                                                                     cuda_stream(stream)>>>(
        this->rows_, this->m_.row_ptr.get(), this->m_.col_idx.get(), this->m_.values.get(), alpha, x, beta, y);
    SPKIT_LAUNCH_CHECK("csr_vector_shared2d_kernel");
  }
};

// The texture object is bound to the x that run() receives; it is rebuilt only when x moves, so the
// timed loop (same x every rep) creates it once, during warm-up.
template <class T>
class CsrVectorTexturePlan : public CsrWarpPlanBase<T> {
 public:
  CsrVectorTexturePlan(const Csr<T>& a, const PlanOptions& o) : CsrWarpPlanBase<T>(a, o) {
    if (this->cols_ > this->props().max_texture_1d_linear)
      throw NotApplicable("x of " + std::to_string(this->cols_) + " elements exceeds the device's 1-D texture limit of " +
                          std::to_string(this->props().max_texture_1d_linear));
  }
  ~CsrVectorTexturePlan() override { release(); }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    if (this->handle_trivial(beta, y, cuda_stream(stream))) return;
    bind(x);
    csr_vector_texture_kernel<T><<<this->launch_.grid, this->launch_.block, 0, cuda_stream(stream)>>>(
        this->rows_, this->m_.row_ptr.get(), this->m_.col_idx.get(), this->m_.values.get(), alpha, tex_, beta, y);
    SPKIT_LAUNCH_CHECK("csr_vector_texture_kernel");
  }
  std::string detail() const override { return CsrWarpPlanBase<T>::detail() + ", x via texture"; }

 private:
  void bind(const T* x) {
    if (tex_ != 0 && bound_ == x) return;
    release();
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = const_cast<T*>(x);
    res.res.linear.desc = sizeof(T) == 4 ? cudaCreateChannelDesc<float>() : cudaCreateChannelDesc<int2>();
    res.res.linear.sizeInBytes = static_cast<std::size_t>(this->cols_) * sizeof(T);
    cudaTextureDesc td{};
    td.readMode = cudaReadModeElementType;
    SPKIT_CUDA_CHECK(cudaCreateTextureObject(&tex_, &res, &td, nullptr));
    bound_ = x;
  }
  void release() {
    if (tex_ != 0) cudaDestroyTextureObject(tex_);
    tex_ = 0;
    bound_ = nullptr;
  }
  cudaTextureObject_t tex_ = 0;
  const T* bound_ = nullptr;
};

}  // namespace

}  // namespace spkit::cuda

namespace spkit {

void register_cuda_csr_vector_kernels(Registry& reg) {
  using namespace cuda;
  const auto info = [](const char* name, const char* description) {
    KernelInfo k;
    k.name = name;
    k.format = Format::csr;
    k.backend = Backend::cuda;
    k.description = description;
    return k;
  };
  add_kernel<CsrVectorPlan>(
      reg, info("cuda.csr.vector", "CSR, one warp per row, shuffle reduction (Bell & Garland's CSR-vector)"));
  add_kernel<CsrVectorSharedPlan>(
      reg, info("cuda.csr.vector_shared", "CSR-vector (Bell & Garland) with a shared-memory tree reduction"));
  add_kernel<CsrVectorShared2dPlan>(
      reg, info("cuda.csr.vector_shared2d", "CSR-vector (Bell & Garland), partial sums in a 2-D shared array then shuffles"));
  add_kernel<CsrVectorLdgPlan>(reg, info("cuda.csr.vector_ldg", "CSR-vector (Bell & Garland) with __ldg read-only loads"));
  add_kernel<CsrVectorTexturePlan>(
      reg, info("cuda.csr.vector_texture", "CSR-vector (Bell & Garland) with x read through a texture object"));
}

}  // namespace spkit
