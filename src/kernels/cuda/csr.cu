// CUDA CSR kernels: the six of seed 000 (scalar, vector, vector with shared-memory reduction, with a
// 2-D shared array + shuffle, with __ldg loads, with x through a texture object), a sub-warp vector
// kernel whose lanes per row follow the mean row length (ours), and CSR-adaptive of seed 002
// (CSR-stream for blocks of short rows, CSR-vector for single long rows).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "kernels/cost_model.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "spkit/kernel.hpp"

namespace spkit::cuda {
namespace {

constexpr int kWarp = 32;

// The CSR arrays on the device; row_ptr keeps the host's 64-bit offsets.
template <class T>
struct DeviceCsr {
  DeviceBuffer<std::int64_t> row_ptr;
  DeviceBuffer<std::int32_t> col_idx;
  DeviceBuffer<T> values;
  explicit DeviceCsr(const Csr<T>& a)
      : row_ptr(a.row_ptr, "CSR row_ptr"), col_idx(a.col_idx, "CSR col_idx"), values(a.values, "CSR values") {}
};

// ------------------------------------------------------------------------------------------------
// Kernels. Row indices are 64-bit: rows * lanes can exceed 2^31.

// Seed 000 kernel 0: one thread per row, register accumulator.
template <class T>
__global__ void csr_scalar_kernel(std::int64_t rows, const std::int64_t* row_ptr, const std::int32_t* col_idx,
                                  const T* values, const T* x, T* y) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  T sum = 0;
  for (std::int64_t j = row_ptr[row]; j < row_ptr[row + 1]; ++j) sum += values[j] * x[col_idx[j]];
  y[row] = sum;
}

// Loads of the vector kernels: plain (kernel 1) or through the read-only cache with __ldg (kernel 4).
struct PlainLoad {
  template <class U>
  __device__ __forceinline__ static U load(const U* p) { return *p; }
};
struct LdgLoad {
  template <class U>
  __device__ __forceinline__ static U load(const U* p) { return __ldg(p); }
};

// Seed 000 kernels 1 and 4: a warp per row (blockDim = 32 x warps_per_block), shuffle reduction.
template <class T, class Load>
__global__ void csr_vector_kernel(std::int64_t rows, const std::int64_t* row_ptr, const std::int32_t* col_idx,
                                  const T* values, const T* x, T* y) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;  // uniform across the warp
  const int lane = threadIdx.x;
  const std::int64_t end = Load::load(row_ptr + row + 1);
  T sum = 0;
  for (std::int64_t j = Load::load(row_ptr + row) + lane; j < end; j += kWarp)
    sum += Load::load(values + j) * Load::load(x + Load::load(col_idx + j));
  sum = group_sum<kWarp>(sum);
  if (lane == 0) y[row] = sum;
}

// Seed 000 kernel 2: warp per row, partial sums reduced in shared memory (one slice per warp).
template <class T>
__global__ void csr_vector_shared_kernel(std::int64_t rows, const std::int64_t* row_ptr, const std::int32_t* col_idx,
                                         const T* values, const T* x, T* y) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* shared_sum = reinterpret_cast<T*>(smem_raw);
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;  // uniform across the warp; each warp touches only its own slice
  const int lane = threadIdx.x;
  T sum = 0;
  for (std::int64_t j = row_ptr[row] + lane; j < row_ptr[row + 1]; j += kWarp) sum += values[j] * x[col_idx[j]];
  sum = shared_warp_sum(shared_sum + threadIdx.y * kWarp, lane, sum);
  if (lane == 0) y[row] = sum;
}

// Seed 000 kernel 3: partial sums staged in a 2-D shared array [warp][lane], read back and reduced
// with shuffles.
template <class T>
__global__ void csr_vector_shared2d_kernel(std::int64_t rows, const std::int64_t* row_ptr, const std::int32_t* col_idx,
                                           const T* values, const T* x, T* y) {
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
  if (lane == 0) y[row] = sum;
}

// x through the texture cache (seed 000 kernel 5). double is fetched as int2 and reassembled.
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
                                          const T* values, cudaTextureObject_t x_tex, T* y) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  T sum = 0;
  for (std::int64_t j = row_ptr[row] + lane; j < row_ptr[row + 1]; j += kWarp)
    sum += values[j] * fetch_x<T>(x_tex, col_idx[j]);
  sum = group_sum<kWarp>(sum);
  if (lane == 0) y[row] = sum;
}

// Ours: LANES lanes per row (LANES in 2..32), 1-D blocks; out-of-range groups still take part in
// the shuffles (no early return), so the full-warp mask is always right. Rows longer than
// long_row (more than 16 iterations per lane) are skipped here and done by csr_long_rows_kernel,
// so one long row cannot hold a whole warp of short ones.
template <int LANES, class T>
__global__ void __launch_bounds__(256) csr_subwarp_kernel(std::int64_t rows, std::int64_t long_row,
                                                          const std::int64_t* __restrict__ row_ptr,
                                                          const std::int32_t* __restrict__ col_idx,
                                                          const T* __restrict__ values, const T* __restrict__ x,
                                                          T* __restrict__ y) {
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t row = thread / LANES;
  const int lane = static_cast<int>(thread % LANES);
  T sum = 0;
  bool mine = false;
  if (row < rows) {
    const std::int64_t begin = row_ptr[row], end = row_ptr[row + 1];
    mine = end - begin <= long_row;
    if (mine)
      for (std::int64_t j = begin + lane; j < end; j += LANES) sum += values[j] * __ldg(x + col_idx[j]);
  }
  sum = group_sum<LANES>(sum);
  if (mine && lane == 0) y[row] = sum;
}

// The long rows of the sub-warp kernel: one block of 256 threads per listed row, block reduction.
template <class T>
__global__ void __launch_bounds__(256) csr_long_rows_kernel(const std::int64_t* __restrict__ long_rows,
                                                            const std::int64_t* __restrict__ row_ptr,
                                                            const std::int32_t* __restrict__ col_idx,
                                                            const T* __restrict__ values, const T* __restrict__ x,
                                                            T* __restrict__ y) {
  __shared__ T warp_sums[32];
  const std::int64_t row = long_rows[blockIdx.x];
  const std::int64_t end = row_ptr[row + 1];
  T sum = 0;
  for (std::int64_t j = row_ptr[row] + threadIdx.x; j < end; j += blockDim.x) sum += values[j] * __ldg(x + col_idx[j]);
  sum = group_sum<kWarp>(sum);
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < static_cast<int>(blockDim.x / kWarp) ? warp_sums[lane] : T(0);
    sum = group_sum<kWarp>(sum);
    if (lane == 0) y[row] = sum;
  }
}

// Seed 002 CSR-adaptive. Block b covers rows [row_blocks[b], row_blocks[b+1]). A block of rows whose
// non-zeros fit in NZ_PER_BLOCK is done by CSR-stream: products streamed to shared memory with
// coalesced loads, then each row summed by one thread. A single row longer than that is done by
// CSR-vector with the whole block and a block-wide reduction.
template <class T>
__global__ void csr_adaptive_kernel(const std::int64_t* row_blocks, int nz_per_block, const std::int64_t* row_ptr,
                                    const std::int32_t* col_idx, const T* values, const T* x, T* y) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* shared = reinterpret_cast<T*>(smem_raw);  // nz_per_block products, reused for warp sums
  const std::int64_t first_row = row_blocks[blockIdx.x];
  const std::int64_t last_row = row_blocks[blockIdx.x + 1];
  const std::int64_t begin = row_ptr[first_row];
  const std::int64_t end = row_ptr[last_row];
  if (end - begin <= nz_per_block) {
    // CSR-stream
    for (std::int64_t k = threadIdx.x; k < end - begin; k += blockDim.x)
      shared[k] = values[begin + k] * x[col_idx[begin + k]];
    __syncthreads();
    for (std::int64_t r = first_row + threadIdx.x; r < last_row; r += blockDim.x) {
      T sum = 0;
      for (std::int64_t k = row_ptr[r] - begin; k < row_ptr[r + 1] - begin; ++k) sum += shared[k];
      y[r] = sum;
    }
  } else {
    // CSR-vector over one long row (the row-block builder puts such a row alone in its block)
    T sum = 0;
    for (std::int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) sum += values[j] * x[col_idx[j]];
    sum = group_sum<kWarp>(sum);
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    if (lane == 0) shared[warp] = sum;
    __syncthreads();
    if (warp == 0) {
      const int warps = blockDim.x / kWarp;
      sum = lane < warps ? shared[lane] : T(0);
      sum = group_sum<kWarp>(sum);
      if (lane == 0) y[first_row] = sum;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Plans.

// Base for the warp-per-row seed kernels: 2-D blocks of 32 x warps_per_block.
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
  bool nothing_to_do(T* y) { return this->handle_trivial(y); }
  DeviceCsr<T> m_;
  int warps_per_block_ = 8;
  Launch launch_;
};

template <class T>
class CsrScalarPlan : public CudaSpmvPlan<T> {
 public:
  CsrScalarPlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o), m_(a) {
    launch_.block = dim3(default_block_threads(this->props()));
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, launch_.block.x, this->props())));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(const T* x, T* y) override {
    if (this->rows_ == 0) return;
    csr_scalar_kernel<T><<<launch_.grid, launch_.block>>>(this->rows_, m_.row_ptr.get(), m_.col_idx.get(),
                                                          m_.values.get(), x, y);
    SPKIT_LAUNCH_CHECK("csr_scalar_kernel");
  }
  std::uint64_t bytes_moved() const override { return this->csr_bytes(); }
  std::string detail() const override { return "thread per row, " + std::to_string(launch_.block.x) + " threads/block"; }

 private:
  DeviceCsr<T> m_;
  Launch launch_;
};

template <class T>
class CsrVectorPlan : public CsrWarpPlanBase<T> {
 public:
  using CsrWarpPlanBase<T>::CsrWarpPlanBase;
  void run(const T* x, T* y) override {
    if (this->nothing_to_do(y)) return;
    csr_vector_kernel<T, PlainLoad><<<this->launch_.grid, this->launch_.block>>>(
        this->rows_, this->m_.row_ptr.get(), this->m_.col_idx.get(), this->m_.values.get(), x, y);
    SPKIT_LAUNCH_CHECK("csr_vector_kernel");
  }
};

template <class T>
class CsrVectorLdgPlan : public CsrWarpPlanBase<T> {
 public:
  using CsrWarpPlanBase<T>::CsrWarpPlanBase;
  void run(const T* x, T* y) override {
    if (this->nothing_to_do(y)) return;
    csr_vector_kernel<T, LdgLoad><<<this->launch_.grid, this->launch_.block>>>(
        this->rows_, this->m_.row_ptr.get(), this->m_.col_idx.get(), this->m_.values.get(), x, y);
    SPKIT_LAUNCH_CHECK("csr_vector_kernel<ldg>");
  }
};

template <class T>
class CsrVectorSharedPlan : public CsrWarpPlanBase<T> {
 public:
  using CsrWarpPlanBase<T>::CsrWarpPlanBase;
  void run(const T* x, T* y) override {
    if (this->nothing_to_do(y)) return;
    csr_vector_shared_kernel<T><<<this->launch_.grid, this->launch_.block, this->launch_.shared_bytes>>>(
        this->rows_, this->m_.row_ptr.get(), this->m_.col_idx.get(), this->m_.values.get(), x, y);
    SPKIT_LAUNCH_CHECK("csr_vector_shared_kernel");
  }
};

template <class T>
class CsrVectorShared2dPlan : public CsrWarpPlanBase<T> {
 public:
  using CsrWarpPlanBase<T>::CsrWarpPlanBase;
  void run(const T* x, T* y) override {
    if (this->nothing_to_do(y)) return;
    csr_vector_shared2d_kernel<T><<<this->launch_.grid, this->launch_.block, this->launch_.shared_bytes>>>(
        this->rows_, this->m_.row_ptr.get(), this->m_.col_idx.get(), this->m_.values.get(), x, y);
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
  void run(const T* x, T* y) override {
    if (this->nothing_to_do(y)) return;
    bind(x);
    csr_vector_texture_kernel<T><<<this->launch_.grid, this->launch_.block>>>(
        this->rows_, this->m_.row_ptr.get(), this->m_.col_idx.get(), this->m_.values.get(), tex_, y);
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

template <class T>
class CsrSubwarpPlan : public CudaSpmvPlan<T> {
 public:
  CsrSubwarpPlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o), m_(a) {
    lanes_ = subwarp_lanes(row_stats(a).mean);
    long_row_ = 16 * static_cast<std::int64_t>(lanes_);
    std::vector<std::int64_t> long_rows;
    for (std::int64_t i = 0; i < a.rows; ++i)
      if (a.row_length(i) > long_row_) long_rows.push_back(i);
    n_long_ = static_cast<std::int64_t>(long_rows.size());
    if (n_long_ > 0) long_rows_ = DeviceBuffer<std::int64_t>(long_rows, "sub-warp CSR long rows");
    const int threads = default_block_threads(this->props());
    launch_.block = dim3(threads);
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, threads / lanes_, this->props())));
    long_launch_.block = dim3(threads);
    long_launch_.grid = dim3(static_cast<unsigned>(blocks_for(n_long_, 1, this->props())));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(const T* x, T* y) override {
    if (this->handle_trivial(y)) return;
    const auto rp = m_.row_ptr.get();
    const auto ci = m_.col_idx.get();
    const auto v = m_.values.get();
    const std::int64_t rows = this->rows_, lr = long_row_;
    switch (lanes_) {
      case 2: csr_subwarp_kernel<2, T><<<launch_.grid, launch_.block>>>(rows, lr, rp, ci, v, x, y); break;
      case 4: csr_subwarp_kernel<4, T><<<launch_.grid, launch_.block>>>(rows, lr, rp, ci, v, x, y); break;
      case 8: csr_subwarp_kernel<8, T><<<launch_.grid, launch_.block>>>(rows, lr, rp, ci, v, x, y); break;
      case 16: csr_subwarp_kernel<16, T><<<launch_.grid, launch_.block>>>(rows, lr, rp, ci, v, x, y); break;
      default: csr_subwarp_kernel<32, T><<<launch_.grid, launch_.block>>>(rows, lr, rp, ci, v, x, y); break;
    }
    SPKIT_LAUNCH_CHECK("csr_subwarp_kernel");
    if (n_long_ > 0) {
      csr_long_rows_kernel<T><<<long_launch_.grid, long_launch_.block>>>(long_rows_.get(), rp, ci, v, x, y);
      SPKIT_LAUNCH_CHECK("csr_long_rows_kernel");
    }
  }
  std::uint64_t bytes_moved() const override {
    return this->csr_bytes() + static_cast<std::uint64_t>(n_long_) * sizeof(std::int64_t);
  }
  std::string detail() const override {
    return std::to_string(lanes_) + " lanes per row, " + std::to_string(n_long_) + " rows > " +
           std::to_string(long_row_) + " nz by a block each";
  }

 private:
  DeviceCsr<T> m_;
  int lanes_ = 32;
  std::int64_t long_row_ = 0, n_long_ = 0;
  DeviceBuffer<std::int64_t> long_rows_;
  Launch launch_, long_launch_;
};

// Seed 002's row-block builder: a block closes when the next row would overflow nz_per_block, when
// one row alone exceeds it (that row gets its own block), or after nz_per_block rows (the seed's
// extra rule for runs of empty rows).
std::vector<std::int64_t> build_row_blocks(const std::vector<std::int64_t>& row_ptr, std::int64_t rows,
                                           std::int64_t nz_per_block) {
  std::vector<std::int64_t> blocks{0};
  std::int64_t first = 0;
  while (first < rows) {
    std::int64_t last = first;
    while (last < rows && row_ptr[last + 1] - row_ptr[first] <= nz_per_block && last - first < nz_per_block) ++last;
    if (last == first) last = first + 1;  // one row longer than nz_per_block: alone, done by CSR-vector
    blocks.push_back(last);
    first = last;
  }
  return blocks;
}

template <class T>
class CsrAdaptivePlan : public CudaSpmvPlan<T> {
 public:
  CsrAdaptivePlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o), m_(a) {
    threads_ = default_block_threads(this->props());
    // Four products per thread in the stream phase: enough bytes in flight per block, shared
    // memory (threads * 4 * sizeof(T)) well under the per-block limit.
    nz_per_block_ = threads_ * 4;
    const std::size_t shared = static_cast<std::size_t>(nz_per_block_) * sizeof(T);
    if (static_cast<std::int64_t>(shared) > this->props().max_shared_per_block)
      throw DeviceError("CsrAdaptivePlan", "shared memory per block too small for the stream buffer");
    const auto row_blocks = build_row_blocks(a.row_ptr, a.rows, nz_per_block_);
    n_blocks_ = static_cast<std::int64_t>(row_blocks.size()) - 1;
    blocks_for(n_blocks_, 1, this->props());  // checks the grid limit
    row_blocks_ = DeviceBuffer<std::int64_t>(row_blocks, "CSR-adaptive row blocks");
    launch_.block = dim3(threads_);
    launch_.grid = dim3(static_cast<unsigned>(std::max<std::int64_t>(n_blocks_, 1)));
    launch_.shared_bytes = shared;
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(const T* x, T* y) override {
    if (this->rows_ == 0) return;
    if (this->nnz_ == 0) return this->zero_output(y);
    csr_adaptive_kernel<T><<<launch_.grid, launch_.block, launch_.shared_bytes>>>(
        row_blocks_.get(), nz_per_block_, m_.row_ptr.get(), m_.col_idx.get(), m_.values.get(), x, y);
    SPKIT_LAUNCH_CHECK("csr_adaptive_kernel");
  }
  std::uint64_t bytes_moved() const override {
    return this->csr_bytes() + static_cast<std::uint64_t>(n_blocks_ + 1) * sizeof(std::int64_t);
  }
  std::string detail() const override {
    return std::to_string(n_blocks_) + " row blocks of <= " + std::to_string(nz_per_block_) + " nz";
  }

 private:
  DeviceCsr<T> m_;
  DeviceBuffer<std::int64_t> row_blocks_;
  int threads_ = 256;
  int nz_per_block_ = 1024;
  std::int64_t n_blocks_ = 0;
  Launch launch_;
};

// Cost models (KernelInfo::cost). Efficiencies: own bytes over median time as a fraction of the H100's
// copy bandwidth, fp64 / fp32, from docs/perf/data/gpu-bench-h100-large.csv (16M non-zeros per matrix),
// net of the 5 us launch (docs/perf/selector.md has the fit). CSR plans count 64-bit row offsets.
CostEstimate csr_scalar_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::csr_bytes(s, p);
  // Thread per row: ~100% of copy on lap2d/lap3d7/road (<= 7 per row, launch apart); longer rows put the
  // 32 lanes of a warp on 32 separate cache lines (fp64: 62% on banded, 27% on lap3d27; fp32 suffers
  // less); a warp waits for its longest row, and one thread reads the longest row alone at ~0.1 GB/s
  // (circuit: 104 ms for a 941k-entry row).
  const double shortness = p == Precision::f64 ? (s.row_nnz_mean > 8 ? std::pow(8.0 / s.row_nnz_mean, 1.3) : 1.0)
                                               : (s.row_nnz_mean > 12 ? 12.0 / s.row_nnz_mean : 1.0);
  const double eff = shortness / (1 + 0.5 * std::min(cost::row_irregularity(s), 20.0));
  e.efficiency = cost::with_gathers(
      cost::with_long_row(eff, e.bytes, static_cast<double>(s.row_nnz_max * cost::row_entry_bytes(p)), 0.1 / 2838, false),
      e.bytes, s, Backend::cuda);
  e.launch_us = 5;
  e.note = "thread per row";
  return e;
}

CostEstimate csr_subwarp_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::csr_bytes(s, p);
  // 95% / 89% on regular rows of >= 5 entries (lap3d7, fem, banded, lap2d; launch apart), 90% / 76%
  // below 4 per row (road: 2 lanes half idle). Rows longer than 16 x lanes take a block each in a second launch, at about
  // 5 GB/s per row (circuit's 941k-entry row: 2.6 ms), added to the rest.
  const int lanes = subwarp_lanes(s.row_nnz_mean);
  double eff = p == Precision::f64 ? 0.95 : 0.89;
  if (s.row_nnz_mean < 4) eff *= p == Precision::f64 ? 0.95 : 0.85;
  const bool long_rows = s.row_nnz_max > 16 * lanes;
  const double long_bytes = long_rows ? static_cast<double>(s.row_nnz_max * cost::row_entry_bytes(p)) : 0.0;
  e.efficiency = cost::with_gathers(cost::with_long_row(eff, e.bytes, long_bytes, 5.0 / 2838, false), e.bytes, s,
                                    Backend::cuda);
  e.launch_us = long_rows ? 10 : 5;
  e.note = std::to_string(lanes) + " lanes per row" + (long_rows ? ", longest row by one block" : "");
  return e;
}

CostEstimate csr_adaptive_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::csr_bytes(s, p) + static_cast<std::uint64_t>(s.nnz / 1024 + 1) * 8;  // row-block list
  // 83% / 68% on regular rows (one thread per row in the reduction phase caps it); a long row is one
  // block at about 8 GB/s (circuit 1.44 ms), overlapped with the other blocks.
  const double eff = p == Precision::f64 ? 0.83 : 0.68;
  const double long_bytes =
      s.row_nnz_max > 1024 ? static_cast<double>(s.row_nnz_max * cost::row_entry_bytes(p)) : 0.0;
  e.efficiency = cost::with_gathers(cost::with_long_row(eff, e.bytes, long_bytes, 8.0 / 2838, true), e.bytes, s,
                                    Backend::cuda);
  e.launch_us = 5;
  e.note = "row blocks of <= 1024 non-zeros";
  return e;
}

}  // namespace

void register_cuda_csr_kernels(Registry& reg) {
  add_kernel<CsrScalarPlan>(reg, "cuda.csr.scalar", Format::csr, Backend::cuda, false,
                            "CSR, one thread per row (seed 000 kernel 0, seed 002 CSR-scalar)", false, csr_scalar_cost);
  add_kernel<CsrVectorPlan>(reg, "cuda.csr.vector", Format::csr, Backend::cuda, false,
                            "CSR, one warp per row, shuffle reduction (seed 000 kernel 1)");
  add_kernel<CsrVectorSharedPlan>(reg, "cuda.csr.vector_shared", Format::csr, Backend::cuda, false,
                                  "CSR, warp per row, shared-memory tree reduction (seed 000 kernel 2)");
  add_kernel<CsrVectorShared2dPlan>(reg, "cuda.csr.vector_shared2d", Format::csr, Backend::cuda, false,
                                    "CSR, warp per row, 2-D shared array then shuffles (seed 000 kernel 3)");
  add_kernel<CsrVectorLdgPlan>(reg, "cuda.csr.vector_ldg", Format::csr, Backend::cuda, false,
                               "CSR, warp per row, __ldg read-only loads (seed 000 kernel 4)");
  add_kernel<CsrVectorTexturePlan>(reg, "cuda.csr.vector_texture", Format::csr, Backend::cuda, false,
                                   "CSR, warp per row, x through a texture object (seed 000 kernel 5)");
  add_kernel<CsrSubwarpPlan>(reg, "cuda.csr.subwarp", Format::csr, Backend::cuda, false,
                             "CSR, 2-32 lanes per row from the mean row length; rows > 16x lanes by a block each (ours)",
                             false, csr_subwarp_cost);
  add_kernel<CsrAdaptivePlan>(reg, "cuda.csr.adaptive", Format::csr, Backend::cuda, false,
                              "CSR-adaptive: CSR-stream row blocks + CSR-vector long rows (seed 002)", false,
                              csr_adaptive_cost);
}

}  // namespace spkit::cuda

namespace spkit {
// The registry (src/kernels/registry.cpp) calls these by their spkit:: names.
void register_cuda_csr_kernels(Registry& reg) { cuda::register_cuda_csr_kernels(reg); }
}  // namespace spkit
