// CUDA CSR kernels: the six of seed 000 (scalar, vector, vector with shared-memory reduction, with a
// 2-D shared array + shuffle, with __ldg loads, with x through a texture object), a sub-warp vector
// kernel whose lanes per row follow the mean row length (ours), and CSR-adaptive of seed 002
// (CSR-stream for blocks of short rows, CSR-vector for single long rows).
#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <limits>
#include <string>

#include "kernels/cost_model.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"

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
// long_row (more than 16 iterations per lane) are skipped here and done in chunks (LongRowChunks),
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

// Long rows split into fixed chunks (ours). A row longer than a kernel's per-row limit is cut into
// chunks of kChunkNnz non-zeros, one block of kChunkThreads per chunk (kChunkItems independent
// loads in flight per thread), each chunk's block sum written to partial[chunk]; a second tiny
// launch sums each row's partials in chunk order (a warp per row, fixed shuffle tree: deterministic,
// no atomics) and writes y. A row of a million entries is spread over ~500 blocks instead of one.
constexpr int kChunkThreads = 256;
constexpr int kChunkItems = 8;
constexpr std::int64_t kChunkNnz = static_cast<std::int64_t>(kChunkThreads) * kChunkItems;

// Chunk boundaries: a row's chunks are cut at multiples of kChunkNnz from the 32-entry boundary at or below
// its first entry, so every chunk lies inside one 32-entry-aligned window of kChunkNnz entries (the first
// chunk is up to 31 entries shorter). Calls emit(begin, end) for each chunk of the entries [row_begin, row_end).
template <class Emit>
void for_each_chunk(std::int64_t row_begin, std::int64_t row_end, Emit emit) {
  for (std::int64_t k = row_begin; k < row_end;) {
    const std::int64_t next = std::min((k & ~static_cast<std::int64_t>(kWarp - 1)) + kChunkNnz, row_end);
    emit(k, next);
    k = next;
  }
}

// Sum of the non-zeros [begin, end) of one chunk by the whole block; valid in thread 0. The block reads
// the chunk's aligned window, so each warp load covers whole lines (aligned, measured against chunks cut
// at the row's first entry: with the tiled rows below, 1.06x in geometric mean; docs/perf/cuda-csr-binned.md).
// Loads are clamped into the chunk (repeats hit the same line) so all of them issue unguarded, and offsets
// are 32-bit from the chunk's first entry, which keeps the fused binned kernel at 32 registers.
// The matrix is read once in full lines, so it is loaded with ld.global.cs (evict-first in L1 and L2):
// its lines leave L2 before the lines of x, which are read again (measured with the warp streams below).
template <class T>
__device__ __forceinline__ T chunk_sum(std::int64_t begin, std::int64_t end, const std::int32_t* __restrict__ col_idx,
                                       const T* __restrict__ values, const T* __restrict__ x, T* warp_sums) {
  const int tid = threadIdx.x;
  const int n = static_cast<int>(end - begin);
  const int off = static_cast<int>(begin & (kWarp - 1));  // the window starts `off` entries before the chunk
  const std::int32_t* __restrict__ cols = col_idx + begin;
  const T* __restrict__ vals = values + begin;
  std::int32_t col[kChunkItems];
  T val[kChunkItems];
#pragma unroll
  for (int it = 0; it < kChunkItems; ++it) {
    const int k = min(max(tid + it * kChunkThreads - off, 0), n - 1);
    col[it] = __ldcs(cols + k);
    val[it] = __ldcs(vals + k);
  }
  T sum = 0;
#pragma unroll
  for (int it = 0; it < kChunkItems; ++it) {
    const T xv = __ldg(x + col[it]);  // a clamped lane reads a column of the chunk: no new line
    if (static_cast<unsigned>(tid + it * kChunkThreads - off) < static_cast<unsigned>(n)) sum += val[it] * xv;
  }
  sum = group_sum<kWarp>(sum);
  if (tid % kWarp == 0) warp_sums[tid / kWarp] = sum;
  __syncthreads();
  T total = 0;
  if (tid == 0)
#pragma unroll
    for (int w = 0; w < kChunkThreads / kWarp; ++w) total += warp_sums[w];
  return total;
}

template <class T>
__global__ void __launch_bounds__(kChunkThreads) csr_chunk_kernel(const std::int64_t* __restrict__ chunk_begin,
                                                                  const std::int64_t* __restrict__ chunk_end,
                                                                  const std::int32_t* __restrict__ col_idx,
                                                                  const T* __restrict__ values, const T* __restrict__ x,
                                                                  T* __restrict__ partial) {
  __shared__ T warp_sums[kChunkThreads / kWarp];
  const T s = chunk_sum(chunk_begin[blockIdx.x], chunk_end[blockIdx.x], col_idx, values, x, warp_sums);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

// Warp per long row: lane l sums chunks first + l, first + l + 32, ...; then a fixed shuffle tree.
template <class T>
__global__ void __launch_bounds__(256) csr_chunk_fixup_kernel(std::int64_t n_long, const std::int64_t* __restrict__ long_row,
                                                              const std::int64_t* __restrict__ first_chunk,
                                                              const T* __restrict__ partial, T* __restrict__ y) {
  const std::int64_t r = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  T sum = 0;
  if (r < n_long)
    for (std::int64_t c = first_chunk[r] + lane; c < first_chunk[r + 1]; c += kWarp) sum += partial[c];
  sum = group_sum<kWarp>(sum);
  if (r < n_long && lane == 0) y[long_row[r]] = sum;
}

// Host side and device buffers of the chunked long rows of one plan.
template <class T>
class LongRowChunks {
 public:
  LongRowChunks() = default;
  // `rows`: the long rows, increasing; row_ptr: the matrix's offsets.
  LongRowChunks(const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& row_ptr) {
    n_long_ = static_cast<std::int64_t>(rows.size());
    if (n_long_ == 0) return;
    std::vector<std::int64_t> begin, end, first{0};
    for (const std::int64_t r : rows) {
      for_each_chunk(row_ptr[r], row_ptr[r + 1], [&](std::int64_t b, std::int64_t e) {
        begin.push_back(b);
        end.push_back(e);
      });
      first.push_back(static_cast<std::int64_t>(begin.size()));
    }
    chunks_ = static_cast<std::int64_t>(begin.size());
    chunk_begin_ = DeviceBuffer<std::int64_t>(begin, "long-row chunk starts");
    chunk_end_ = DeviceBuffer<std::int64_t>(end, "long-row chunk ends");
    first_chunk_ = DeviceBuffer<std::int64_t>(first, "long-row first chunks");
    long_row_ = DeviceBuffer<std::int64_t>(rows, "long rows");
    partial_ = DeviceBuffer<T>(static_cast<std::size_t>(chunks_), "long-row chunk partial sums");
  }
  std::int64_t rows() const { return n_long_; }
  std::int64_t chunks() const { return chunks_; }
  const std::int64_t* chunk_begin() const { return chunk_begin_.get(); }
  const std::int64_t* chunk_end() const { return chunk_end_.get(); }
  T* partial() const { return partial_.get(); }
  // The chunk launch on its own (the sub-warp plan; the binned plan runs chunks inside its fused launch).
  void launch_chunks(const std::int32_t* col_idx, const T* values, const T* x) const {
    if (chunks_ == 0) return;
    csr_chunk_kernel<T><<<static_cast<unsigned>(chunks_), kChunkThreads>>>(chunk_begin_.get(), chunk_end_.get(),
                                                                           col_idx, values, x, partial_.get());
    SPKIT_LAUNCH_CHECK("csr_chunk_kernel");
  }
  void launch_fixup(T* y, const DeviceProps& p) const {
    if (n_long_ == 0) return;
    const unsigned blocks = static_cast<unsigned>(blocks_for(n_long_, 256 / kWarp, p));
    csr_chunk_fixup_kernel<T><<<blocks, 256>>>(n_long_, long_row_.get(), first_chunk_.get(), partial_.get(), y);
    SPKIT_LAUNCH_CHECK("csr_chunk_fixup_kernel");
  }
  // Bytes of the chunk tables, partials (written and read) and the fix-up's row tables.
  std::uint64_t extra_bytes() const {
    return static_cast<std::uint64_t>(chunks_) * (16 + 2 * sizeof(T)) + static_cast<std::uint64_t>(n_long_) * 24;
  }

 private:
  std::int64_t n_long_ = 0, chunks_ = 0;
  DeviceBuffer<std::int64_t> chunk_begin_, chunk_end_, first_chunk_, long_row_;
  DeviceBuffer<T> partial_;
};

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
    chunks_ = LongRowChunks<T>(long_rows, a.row_ptr);
    const int threads = default_block_threads(this->props());
    launch_.block = dim3(threads);
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, threads / lanes_, this->props())));
    blocks_for(chunks_.chunks(), 1, this->props());  // checks the grid limit
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
    chunks_.launch_chunks(ci, v, x);
    chunks_.launch_fixup(y, this->props());
  }
  std::uint64_t bytes_moved() const override {
    return this->csr_bytes() + chunks_.extra_bytes();
  }
  std::string detail() const override {
    return std::to_string(lanes_) + " lanes per row, " + std::to_string(chunks_.rows()) + " rows > " +
           std::to_string(long_row_) + " nz in " + std::to_string(chunks_.chunks()) + " chunks of <= " +
           std::to_string(kChunkNnz);
  }

 private:
  DeviceCsr<T> m_;
  int lanes_ = 32;
  std::int64_t long_row_ = 0;
  LongRowChunks<T> chunks_;
  Launch launch_;
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
  // below 4 per row (road: 2 lanes half idle). Rows longer than 16 x lanes used to take a block each
  // (about 5 GB/s per row: circuit's 941k-entry row took 2.6 ms); they are now split into 2048-entry
  // chunks over many blocks (two more launches), so no serial term. Not yet measured since that change.
  const int lanes = subwarp_lanes(s.row_nnz_mean);
  double eff = p == Precision::f64 ? 0.95 : 0.89;
  if (s.row_nnz_mean < 4) eff *= p == Precision::f64 ? 0.95 : 0.85;
  // One width for all rows: on mixed lengths a group waits for the longest row of its warp (up to 25%;
  // powerlaw's 0.285 ms was ~0.1 ms of serial long rows plus ~1.12x the random matrix's time).
  eff /= 1 + 0.05 * std::min(cost::row_irregularity(s), 5.0);
  const bool long_rows = s.row_nnz_max > 16 * lanes;
  e.efficiency = cost::with_gathers(eff, e.bytes, s, Backend::cuda);
  e.launch_us = long_rows ? 15 : 5;
  e.note = std::to_string(lanes) + " lanes per row" + (long_rows ? ", long rows in chunks" : "");
  return e;
}

CostEstimate csr_adaptive_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::csr_bytes(s, p) + static_cast<std::uint64_t>(s.nnz / 1024 + 1) * 8;  // row-block list
  // 83% / 68% on regular rows (one thread per row in the reduction phase caps it); a long row is one
  // block at about 8 GB/s (circuit 1.44 ms), overlapped with the other blocks.
  // Mixed row lengths cost it up to 20% more (power-law at 8 +- 248 per row: 0.22 ms measured against
  // 0.185 ms predicted without this term; H100, 16M nnz).
  const double eff = (p == Precision::f64 ? 0.83 : 0.68) / (1 + 0.04 * std::min(cost::row_irregularity(s), 5.0));
  const double long_bytes =
      s.row_nnz_max > 1024 ? static_cast<double>(s.row_nnz_max * cost::row_entry_bytes(p)) : 0.0;
  e.efficiency = cost::with_gathers(cost::with_long_row(eff, e.bytes, long_bytes, 8.0 / 2838, true), e.bytes, s,
                                    Backend::cuda);
  e.launch_us = 5;
  e.note = "row blocks of <= 1024 non-zeros";
  return e;
}

// ------------------------------------------------------------------------------------------------
// Merge-path CSR (ours, after Merrill & Garland, SC'16). The items are the rows (a row "ends") and
// the non-zeros, merged in the order of row_ptr: a row's end comes right after its last non-zero.
// Each block takes a tile of kMergeThreads * ITEMS consecutive items, so every block does the same
// work whatever the row lengths (a row of a million entries spans many tiles, a run of empty rows is
// just items). The tile start coordinates (rows ended, non-zeros consumed) are found once, at plan
// time, by a binary search along each tile's cross diagonal.
//
// Inside a tile: (1) the tile's products values[j] * x[col[j]] go to shared memory with coalesced
// loads (ITEMS independent loads in flight per thread) and the row ends of its rows beside them;
// (2) each thread walks ITEMS items of the merge path from its own diagonal, summing products and
// writing each row it ends into a shared row-sum slot; (3) a block-wide segmented scan (key = the
// row a thread stops in, value = its partial sum; fixed tree order: deterministic) adds to each
// thread's first ended row what the threads before it summed of that row; (4) the tile's ended rows
// are written to y coalesced. A row that continues past the tile leaves the tile's partial sum in
// carry[tile]; a second tiny launch adds those carries, in tile order, to the row's y entry (written by
// the tile that ends the row). No atomics, so results are bitwise reproducible run to run.
constexpr int kMergeThreads = 256;
template <class T>
constexpr int merge_items() { return sizeof(T) == 8 ? 7 : 9; }  // shared: 20 resp. 12 bytes per item
template <class T>
constexpr int merge_tile() { return kMergeThreads * merge_items<T>(); }

// Merge-path coordinate of diagonal d over row ends row_ptr[1..rows] and non-zero indices 0..nnz-1:
// (rows ended, non-zeros consumed), row ends placed before a non-zero at the same offset.
template <class Off>
__host__ __device__ inline std::int64_t merge_path_rows(std::int64_t d, const Off* row_end, std::int64_t rows,
                                                       std::int64_t nnz) {
  std::int64_t lo = d > nnz ? d - nnz : 0, hi = d < rows ? d : rows;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (static_cast<std::int64_t>(row_end[mid]) <= d - mid - 1) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// Key-value pair of the segmented scan: the row (tile-local) a thread's partial sum belongs to.
template <class T>
struct RowPartial {
  int row;
  T sum;
};
// Segmented sum for non-decreasing keys: associative, so any tree order gives the same bits.
struct RowPartialSum {
  template <class T>
  __device__ __forceinline__ RowPartial<T> operator()(const RowPartial<T>& a, const RowPartial<T>& b) const {
    return {b.row, b.row == a.row ? a.sum + b.sum : b.sum};
  }
};

template <class T, class Off>
__global__ void __launch_bounds__(kMergeThreads) csr_merge_kernel(
    const std::int64_t* __restrict__ tile_row, const std::int64_t* __restrict__ tile_nz, const Off* __restrict__ row_ptr,
    const std::int32_t* __restrict__ col_idx, const T* __restrict__ values, const T* __restrict__ x,
    T* __restrict__ y, T* __restrict__ carry) {
  constexpr int ITEMS = merge_items<T>();
  constexpr int TILE = merge_tile<T>();
  using Scan = cub::BlockScan<RowPartial<T>, kMergeThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ int s_row_end[TILE];  // row ends of the tile's ended rows, relative to the tile's first non-zero
  __shared__ T s_prod[TILE];
  __shared__ T s_row_sum[TILE];
  __shared__ RowPartial<T> s_prefix[kMergeThreads];

  const int tid = threadIdx.x;
  const std::int64_t row0 = tile_row[blockIdx.x], nz0 = tile_nz[blockIdx.x];
  const int n_rows = static_cast<int>(tile_row[blockIdx.x + 1] - row0);
  const int n_nz = static_cast<int>(tile_nz[blockIdx.x + 1] - nz0);

  // All loads first, unconditionally (indices clamped into the tile, so the repeats hit the cache), then
  // all x gathers, then the stores: ITEMS independent loads in flight per thread instead of ITEMS
  // dependent round trips (guarded loads stay in separate basic blocks, which serialises them).
  if (n_nz > 0) {
    std::int32_t col[ITEMS];
    T val[ITEMS], xv[ITEMS];
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const std::int64_t j = nz0 + min(tid + it * kMergeThreads, n_nz - 1);
      col[it] = col_idx[j];
      val[it] = values[j];
    }
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) xv[it] = __ldg(x + col[it]);
#pragma unroll
    for (int it = 0; it < ITEMS; ++it)
      if (tid + it * kMergeThreads < n_nz) s_prod[tid + it * kMergeThreads] = val[it] * xv[it];
  }
  if (n_rows > 0) {
    Off end[ITEMS];
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) end[it] = row_ptr[row0 + 1 + min(tid + it * kMergeThreads, n_rows - 1)];
#pragma unroll
    for (int it = 0; it < ITEMS; ++it)
      if (tid + it * kMergeThreads < n_rows)
        s_row_end[tid + it * kMergeThreads] = static_cast<int>(static_cast<std::int64_t>(end[it]) - nz0);
  }
  __syncthreads();

  // This thread's start on the tile's merge path, then its ITEMS steps.
  const int items = n_rows + n_nz;
  const int d = min(tid * ITEMS, items), d_end = min(d + ITEMS, items);
  int lo = max(0, d - n_nz), hi = min(d, n_rows);
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (s_row_end[mid] <= d - mid - 1) lo = mid + 1; else hi = mid;
  }
  int row = lo, k = d - lo;
  const int first_row = row;
  T sum = 0;
  for (int step = d; step < d_end; ++step) {
    if (row < n_rows && s_row_end[row] <= k) {
      s_row_sum[row] = sum;  // this thread's part of the row; earlier threads' part added below
      sum = 0;
      ++row;
    } else {
      sum += s_prod[k];
      ++k;
    }
  }

  RowPartial<T> inclusive, tile_total;
  Scan(scan_storage).InclusiveScan(RowPartial<T>{row, sum}, inclusive, RowPartialSum(), tile_total);
  s_prefix[tid] = inclusive;
  __syncthreads();
  // The threads before this one that stopped in first_row hold the rest of it (first_row is the row the
  // previous thread stopped in, so the inclusive value of thread tid - 1 is exactly their sum).
  if (tid > 0 && row > first_row && s_prefix[tid - 1].row == first_row) s_row_sum[first_row] += s_prefix[tid - 1].sum;
  __syncthreads();
  for (int i = tid; i < n_rows; i += kMergeThreads) y[row0 + i] = s_row_sum[i];
  if (tid == 0) carry[blockIdx.x] = tile_total.sum;  // part of row tile_row[tile + 1] summed here
}

// Rows that span tiles: run r covers tiles [run_first[r], run_first[r + 1]) whose carries all belong to
// run_row[r]; they are added in tile order to what the tile that ends the row wrote.
template <class T>
__global__ void csr_merge_fixup_kernel(std::int64_t runs, const std::int64_t* __restrict__ run_first,
                                       const std::int64_t* __restrict__ run_last, const std::int64_t* __restrict__ run_row,
                                       const T* __restrict__ carry, T* __restrict__ y) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= runs) return;
  T sum = 0;
  for (std::int64_t t = run_first[r]; t < run_last[r]; ++t) sum += carry[t];
  y[run_row[r]] += sum;
}

template <class T>
class CsrMergePlan : public CudaSpmvPlan<T> {
 public:
  CsrMergePlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o) {
    if (this->rows_ == 0 || this->nnz_ == 0) return;
    // 32-bit row offsets when every offset fits (nnz < 2^31): 4 bytes per row less to read.
    narrow_ = this->nnz_ <= std::numeric_limits<std::int32_t>::max();
    if (narrow_) row_ptr32_ = DeviceBuffer<std::int32_t>(std::vector<std::int32_t>(a.row_ptr.begin(), a.row_ptr.end()),
                                                         "merge CSR row_ptr (32-bit)");
    else row_ptr64_ = DeviceBuffer<std::int64_t>(a.row_ptr, "merge CSR row_ptr");
    col_idx_ = DeviceBuffer<std::int32_t>(a.col_idx, "merge CSR col_idx");
    values_ = DeviceBuffer<T>(a.values, "merge CSR values");

    // Tile start coordinates by binary search on the host (n_tiles searches of log(rows) steps).
    const std::int64_t items = this->rows_ + this->nnz_, tile = merge_tile<T>();
    tiles_ = blocks_for(items, tile, this->props());
    std::vector<std::int64_t> tile_row(static_cast<std::size_t>(tiles_) + 1), tile_nz(tile_row.size());
    const std::int64_t* row_end = a.row_ptr.data() + 1;
#pragma omp parallel for schedule(static)
    for (std::int64_t t = 0; t <= tiles_; ++t) {
      const std::int64_t d = std::min(t * tile, items);
      tile_row[t] = merge_path_rows(d, row_end, this->rows_, this->nnz_);
      tile_nz[t] = d - tile_row[t];
    }
    // Tiles whose last row continues in the next tile with some of its non-zeros summed here:
    // group consecutive tiles carrying the same row into runs for the fix-up launch.
    std::vector<std::int64_t> run_first, run_last, run_row;
    for (std::int64_t t = 0; t < tiles_; ++t) {
      const std::int64_t r = tile_row[t + 1];
      if (r >= this->rows_ || tile_nz[t + 1] <= a.row_ptr[r]) continue;  // no partial row leaves this tile
      if (!run_row.empty() && run_row.back() == r && run_last.back() == t) ++run_last.back();
      else run_first.push_back(t), run_last.push_back(t + 1), run_row.push_back(r);
    }
    runs_ = static_cast<std::int64_t>(run_row.size());
    tile_row_ = DeviceBuffer<std::int64_t>(tile_row, "merge tile rows");
    tile_nz_ = DeviceBuffer<std::int64_t>(tile_nz, "merge tile non-zeros");
    carry_ = DeviceBuffer<T>(static_cast<std::size_t>(tiles_), "merge tile carries");
    if (runs_ > 0) {
      run_first_ = DeviceBuffer<std::int64_t>(run_first, "merge fix-up runs");
      run_last_ = DeviceBuffer<std::int64_t>(run_last, "merge fix-up runs");
      run_row_ = DeviceBuffer<std::int64_t>(run_row, "merge fix-up rows");
    }
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(const T* x, T* y) override {
    if (this->handle_trivial(y)) return;
    const unsigned grid = static_cast<unsigned>(tiles_);
    if (narrow_)
      csr_merge_kernel<T, std::int32_t><<<grid, kMergeThreads>>>(tile_row_.get(), tile_nz_.get(),
                                                                 row_ptr32_.get(), col_idx_.get(), values_.get(), x, y,
                                                                 carry_.get());
    else
      csr_merge_kernel<T, std::int64_t><<<grid, kMergeThreads>>>(tile_row_.get(), tile_nz_.get(),
                                                                 row_ptr64_.get(), col_idx_.get(), values_.get(), x, y,
                                                                 carry_.get());
    SPKIT_LAUNCH_CHECK("csr_merge_kernel");
    if (runs_ > 0) {
      const unsigned blocks = static_cast<unsigned>(blocks_for(runs_, kMergeThreads, this->props()));
      csr_merge_fixup_kernel<T><<<blocks, kMergeThreads>>>(runs_, run_first_.get(), run_last_.get(), run_row_.get(),
                                                           carry_.get(), y);
      SPKIT_LAUNCH_CHECK("csr_merge_fixup_kernel");
    }
  }
  std::uint64_t bytes_moved() const override {
    return this->csr_bytes(narrow_ ? 4 : 8) + static_cast<std::uint64_t>(tiles_ + 1) * 16 +
           static_cast<std::uint64_t>(tiles_) * sizeof(T) + static_cast<std::uint64_t>(runs_) * 24;
  }
  std::string detail() const override {
    return std::to_string(tiles_) + " tiles of " + std::to_string(merge_tile<T>()) + " items, " +
           std::to_string(runs_) + " rows across tiles, " + (narrow_ ? "32" : "64") + "-bit row_ptr";
  }

 private:
  bool narrow_ = true;
  std::int64_t tiles_ = 0, runs_ = 0;
  DeviceBuffer<std::int32_t> row_ptr32_;
  DeviceBuffer<std::int64_t> row_ptr64_;
  DeviceBuffer<std::int32_t> col_idx_;
  DeviceBuffer<T> values_;
  DeviceBuffer<std::int64_t> tile_row_, tile_nz_, run_first_, run_last_, run_row_;
  DeviceBuffer<T> carry_;
};

// Merge-path cost: CSR bytes with 32-bit row offsets plus the tile coordinates; efficiency (fraction
// of copy bandwidth on these bytes) from docs/perf/cuda-csr-sell.md. Row lengths do not matter to the
// balance; short rows with scattered columns lower it (x gathers pull 32-byte sectors for one value).
CostEstimate csr_merge_cost(const MatrixStats& st, Precision p, const PlanOptions&) {
  CostEstimate e;
  e.applicable = st.nnz > 0;
  const std::uint64_t vb = p == Precision::f64 ? 8 : 4, m = static_cast<std::uint64_t>(st.rows);
  const std::uint64_t nnz = static_cast<std::uint64_t>(st.nnz);
  const std::uint64_t tile = p == Precision::f64 ? merge_tile<double>() : merge_tile<float>();
  const std::uint64_t row_ptr_bytes = nnz <= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()) ? 4 : 8;
  e.bytes = nnz * (vb + 4) + (m + 1) * row_ptr_bytes + (m + static_cast<std::uint64_t>(st.cols)) * vb +
            ((m + nnz) / tile + 2) * (16 + vb);
  // Measured (H100, 16 M nnz, before the batched loads): 52 % / 64 % (fp64 / fp32) on stencil and
  // FEM rows, 29-42 % / 24-49 % on random, power-law and circuit rows.
  const bool f64 = p == Precision::f64;
  e.efficiency = st.row_nnz_mean >= 16 ? (f64 ? 0.52 : 0.64) : (f64 ? 0.30 : 0.25);
  e.launch_us = st.row_nnz_max > static_cast<std::int64_t>(tile) / 2 ? 8 : 5;  // + fix-up launch for long rows
  e.note = "merge-path tiles of " + std::to_string(tile) + " items";
  return e;
}

// ------------------------------------------------------------------------------------------------
// Binned CSR (ours). At plan time rows are binned by length: long rows (> kBinnedLongRow non-zeros),
// split into chunks of kChunkNnz; five sub-warp classes (32, 16, 8, 4, 2 lanes per row, chosen per row
// as csr_subwarp_kernel chooses them from the mean); empty rows. The rows are then stored again in bin
// order (increasing within a bin): the short rows of bins 1..5, then the long rows. A group of lanes
// reads its row's offsets at its own index (coalesced across the bin) instead of a row id first and
// that row's offsets next; the original row id is needed only for the store of y and loads in parallel
// with the row (measured: 2-7% over reading a row list, docs/perf/cuda-csr-binned.md).
// One fused launch: each block finds its bin from blockIdx in a 7-entry table of block ranges. Chunks
// come first in the grid (heaviest blocks start first), the empty rows last. The block that finishes a
// long row's last chunk (a per-row ticket) sums the row's partials in chunk order and writes y, so the
// result does not depend on which block finishes last. Every row is written exactly once. The tickets
// make a plan single-stream: one product at a time.
constexpr int kBinnedThreads = 256;
constexpr int kBins = 7;  // 0 long-row chunks, 1..5 = 32, 16, 8, 4, 2 lanes per row (64 >> bin), 6 empty rows
constexpr int kLongBin = 0, kEmptyBin = kBins - 1;
constexpr std::int64_t kBinnedLongRow = 1024;  // 32 non-zeros per lane of a warp

struct BinTable {
  std::int64_t first_block[kBins + 1];  // blocks [first_block[b], first_block[b + 1]) run bin b
  std::int64_t first_row[kBins];        // bins 1..6: the bin's rows start at row_ptr/out_row index first_row[b]
  std::int64_t count[kBins];            // rows in bin b (long bin: long rows; bin 5 in stream mode: warps)
};

template <class T, class Off>
struct BinnedArgs {
  BinTable bins;
  const Off* row_ptr;                    // short rows in bin order: offsets into col_idx/values (+1 entry)
  const std::int32_t* out_row;           // original row id of every short row, then of every empty row
  const std::int32_t* col_idx;           // bin order: short rows, then long rows
  const T* values;
  const std::int64_t* chunk_begin;       // per chunk: [begin, end) in col_idx/values
  const std::int64_t* chunk_end;
  const std::int32_t* chunk_long_row;    // per chunk: index of its long row
  const std::int32_t* long_first_chunk;  // per long row (+1 entry): its chunks
  const std::int32_t* long_out_row;      // per long row: original row id
  unsigned* long_ticket;                 // per long row: chunks finished in this product (reset to 0)
  T* partial;                            // per chunk: its block sum
  const std::int32_t* stream_warp_row;   // stream mode, bin 5: warp w runs the bin's rows [w, w + 1) of this
  const std::int32_t* block_run;         // per block of bins 1..5: out_row[k] = k + block_run for all its rows,
                                         // or kNoRun (then out_row is read)
};

// A block whose rows kept their original order (consecutive row ids: most blocks where one bin holds most
// rows) finds its row ids by adding its run offset instead of reading out_row: 4 bytes per row less.
constexpr std::int32_t kNoRun = std::numeric_limits<std::int32_t>::min();

// Stream mode (cuda.csr.binned_stream) for the shortest rows (bin 5, < 16 non-zeros): a warp takes
// consecutive rows of the bin holding at most kStreamEntries non-zeros and kWarp rows (planned on the host),
// loads those entries with all 32 lanes (kStreamEntries / 32 coalesced loads in flight per lane), keeps the
// products in shared memory, and lane i sums row i of its group in order.
// The entries are read once in full lines: loaded with ld.global.cs and y stored with st.global.cs
// (evict-first), so L2 keeps the lines of x instead. Measured (H100, 13 families x 2 precisions, two
// rounds, same run): 1.034x binned_stream's speed in geometric mean, 0.95-1.24x; circuit fp64 +15-18%,
// geometric fp32 +14-19%, banded +13-24%, power-law fp64 +3%. Evict-first on the sub-warp rows as well
// lost (0.87x binned: a group's lanes come back to the same line, which L1 had dropped), and an L2-only
// evict-first policy there did not help (0.96x); docs/perf/cuda-csr-binned.md.
constexpr int kStreamEntries = 128;

template <class T, class Off>
__device__ __forceinline__ void binned_stream_rows(std::int64_t first, std::int64_t n_warps, std::int64_t local_block,
                                                   const BinnedArgs<T, Off>& a, const T* __restrict__ x,
                                                   T* __restrict__ y, T* products) {
  const std::int64_t w = local_block * (kBinnedThreads / kWarp) + threadIdx.x / kWarp;
  if (w >= n_warps) return;  // whole warps only: no block-wide barrier follows
  const std::int32_t run = a.block_run[blockIdx.x];
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  T* mine = products + (threadIdx.x / kWarp) * kStreamEntries;
  const std::int64_t r0 = first + a.stream_warp_row[w], r1 = first + a.stream_warp_row[w + 1];
  const std::int64_t e0 = a.row_ptr[r0], n = static_cast<std::int64_t>(a.row_ptr[r1]) - e0;
  std::int32_t c[kStreamEntries / kWarp];
  T v[kStreamEntries / kWarp];
#pragma unroll
  for (int k = 0; k < kStreamEntries / kWarp; ++k) {
    const std::int64_t j = e0 + (lane + k * kWarp < n ? lane + k * kWarp : n - 1);  // clamped: repeats hit L1
    c[k] = __ldcs(a.col_idx + j);
    v[k] = __ldcs(a.values + j);
  }
#pragma unroll
  for (int k = 0; k < kStreamEntries / kWarp; ++k)
    if (lane + k * kWarp < n) mine[lane + k * kWarp] = v[k] * __ldg(x + c[k]);
  __syncwarp();
  if (lane < r1 - r0) {
    const std::int64_t b = a.row_ptr[r0 + lane] - e0, e = a.row_ptr[r0 + lane + 1] - e0;
    T sum = 0;
    for (std::int64_t k = b; k < e; ++k) sum += mine[k];
    __stcs(y + (run != kNoRun ? static_cast<std::int32_t>(r0 + lane + run) : a.out_row[r0 + lane]), sum);
  }
}

// A group of LANES lanes per row, two independent loads in flight per lane (four measured no better).
// Every thread reaches the shuffles (no early return), so the full-warp mask is right.
template <int LANES, class T, class Off>
__device__ __forceinline__ void binned_short_rows(std::int64_t first, std::int64_t n_rows, std::int64_t local_block,
                                                  const BinnedArgs<T, Off>& a, const T* __restrict__ x,
                                                  T* __restrict__ y) {
  const std::int64_t i = local_block * (kBinnedThreads / LANES) + threadIdx.x / LANES;
  const int lane = static_cast<int>(threadIdx.x % LANES);
  T s0 = 0, s1 = 0;
  std::int32_t row = 0;
  if (i < n_rows) {
    const std::int32_t run = a.block_run[blockIdx.x];
    row = run != kNoRun ? static_cast<std::int32_t>(first + i + run) : a.out_row[first + i];
    const std::int64_t end = a.row_ptr[first + i + 1];
    std::int64_t j = static_cast<std::int64_t>(a.row_ptr[first + i]) + lane;
    for (; j + LANES < end; j += 2 * LANES) {
      const std::int32_t c0 = a.col_idx[j], c1 = a.col_idx[j + LANES];
      const T v0 = a.values[j], v1 = a.values[j + LANES];
      s0 += v0 * __ldg(x + c0);
      s1 += v1 * __ldg(x + c1);
    }
    if (j < end) s0 += a.values[j] * __ldg(x + a.col_idx[j]);
  }
  const T sum = group_sum<LANES>(s0 + s1);
  if (i < n_rows && lane == 0) y[row] = sum;
}

// Sub-warp bins (rows of 16-1024 non-zeros), staged in tiles. A block's rows of one bin are consecutive in
// bin order, so their entries are one contiguous range. The block reads it tile by tile (2048 entries from
// the 32-entry boundary below the range, 8 coalesced loads per thread in two halves of four, evict-first),
// puts the products into shared memory, and each group of LANES lanes sums its row's part of the tile from
// there (fixed order: lane l adds entries l, l + LANES, ...; then a shuffle tree). Reading each group's row
// directly (the kernel before) touched up to 8 rows' lines per warp load, misaligned; the tiles load whole
// lines only, as cuSPARSE's CSR kernel does. Measured (H100, 13 families x 2 precisions x 3 rounds, same
// run, with the aligned chunks): 1.06x binned_stream in geometric mean (0.90-1.30x): fem and lap3d 27-pt
// +25-30% in fp64, fem_mesh +25%, power-law +9% / +3%, rmat +12% / +6%; docs/perf/cuda-csr-binned.md.
constexpr int kTileEntries = static_cast<int>(kChunkNnz);

template <int LANES, class T, class Off>
__device__ __forceinline__ void binned_tiled_rows(std::int64_t first, std::int64_t n_rows, std::int64_t local_block,
                                                  const BinnedArgs<T, Off>& a, const T* __restrict__ x,
                                                  T* __restrict__ y, T* tile) {
  constexpr int kRows = kBinnedThreads / LANES;
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t lo = local_block * kRows, hi = min(n_rows, lo + kRows);
  const std::int64_t i = lo + tid / LANES;
  const int lane = tid % LANES;
  const std::int64_t e_begin = a.row_ptr[first + lo];
  const int n = static_cast<int>(a.row_ptr[first + hi] - e_begin);  // <= 8 rows x 1024 entries
  const std::int32_t* __restrict__ cols = a.col_idx + e_begin;
  const T* __restrict__ vals = a.values + e_begin;
  int rb = 0, re = 0;  // the group's row, relative to e_begin
  std::int32_t row = 0;
  if (i < hi) {
    const std::int32_t run = a.block_run[blockIdx.x];
    row = run != kNoRun ? static_cast<std::int32_t>(first + i + run) : a.out_row[first + i];
    rb = static_cast<int>(a.row_ptr[first + i] - e_begin);
    re = static_cast<int>(a.row_ptr[first + i + 1] - e_begin);
  }
  T sum = 0;
  for (int t0 = -static_cast<int>(e_begin & (kWarp - 1)); t0 < n; t0 += kTileEntries) {
    // Two halves of four loads per thread: the kernel stays at 32 registers without spilling.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      constexpr int kHalf = kChunkItems / 2;
      std::int32_t c[kHalf];
      T v[kHalf];
#pragma unroll
      for (int q = 0; q < kHalf; ++q) {
        const int it = h * kHalf + q;
        c[q] = 0;
        v[q] = 0;
        if (t0 + (tid & ~(kWarp - 1)) + it * kChunkThreads >= n) continue;  // warp-uniform
        const int j = t0 + tid + it * kChunkThreads;
        const int jc = j < 0 ? 0 : (j < n ? j : n - 1);
        c[q] = __ldcs(cols + jc);
        v[q] = __ldcs(vals + jc);
      }
#pragma unroll
      for (int q = 0; q < kHalf; ++q) {
        const int it = h * kHalf + q;
        const int j = t0 + tid + it * kChunkThreads;
        if (j >= 0 && j < n) tile[tid + it * kChunkThreads] = v[q] * __ldg(x + c[q]);
      }
    }
    __syncthreads();
    const int kb = rb > t0 ? rb : t0, ke = re < t0 + kTileEntries ? re : t0 + kTileEntries;
    for (int k = kb + lane; k < ke; k += LANES) sum += tile[k - t0];
    __syncthreads();
  }
  sum = group_sum<LANES>(sum);
  if (i < hi && lane == 0) y[row] = sum;
}

// One chunk of a long row; the row's last block to finish writes y (see above).
template <class T, class Off>
__device__ __forceinline__ void binned_long_chunk(std::int64_t c, const BinnedArgs<T, Off>& a, const T* __restrict__ x,
                                                  T* __restrict__ y, T* warp_sums, bool* last_block) {
  const T s = chunk_sum(a.chunk_begin[c], a.chunk_end[c], a.col_idx, a.values, x, warp_sums);
  const std::int32_t r = a.chunk_long_row[c];
  const std::int32_t first = a.long_first_chunk[r], chunks = a.long_first_chunk[r + 1] - first;
  if (threadIdx.x == 0) {
    a.partial[c] = s;
    __threadfence();  // the partial is visible device-wide before the ticket says so
    *last_block = atomicAdd(a.long_ticket + r, 1u) == static_cast<unsigned>(chunks - 1);
  }
  __syncthreads();
  if (!*last_block || threadIdx.x >= kWarp) return;
  __threadfence();
  // Warp 0 of the last block: lane l sums chunks l, l + 32, ... in order (L2 loads: other blocks wrote
  // them), then a fixed shuffle tree.
  T sum = 0;
  for (std::int32_t k = threadIdx.x; k < chunks; k += kWarp) sum += __ldcg(a.partial + first + k);
  sum = group_sum<kWarp>(sum);
  if (threadIdx.x == 0) {
    y[a.long_out_row[r]] = sum;
    a.long_ticket[r] = 0;  // ready for the next product (the kernel boundary orders this store)
  }
}

// 32 registers (8 blocks of 256 threads per SM): measured above 40 registers (6 blocks) on 10 of the 13
// families, and the tiles and chunks are written to fit in 32 without spilling.
template <class T, class Off, bool STREAM_SHORT>
__global__ void __launch_bounds__(kBinnedThreads, 8) csr_binned_kernel(const BinnedArgs<T, Off> a, const T* __restrict__ x,
                                                                       T* __restrict__ y) {
  __shared__ T warp_sums[kChunkThreads / kWarp];
  __shared__ T products[kTileEntries];  // a tile of sub-warp rows, or the warp streams' products
  static_assert(kBinnedThreads / kWarp * kStreamEntries <= kTileEntries, "the streams share the tile buffer");
  __shared__ bool last_block;
  const std::int64_t block = blockIdx.x;
  int bin = 0;
#pragma unroll
  for (int b = 1; b < kBins; ++b)
    if (block >= a.bins.first_block[b]) bin = b;  // bins without blocks share their start with the next bin
  const std::int64_t local = block - a.bins.first_block[bin];
  switch (bin) {
    case kLongBin: binned_long_chunk(local, a, x, y, warp_sums, &last_block); return;
#define SPKIT_BINNED_CASE(B, LANES) \
  case B: binned_tiled_rows<LANES>(a.bins.first_row[B], a.bins.count[B], local, a, x, y, products); return;
      SPKIT_BINNED_CASE(1, 32)
      SPKIT_BINNED_CASE(2, 16)
      SPKIT_BINNED_CASE(3, 8)
      SPKIT_BINNED_CASE(4, 4)
#undef SPKIT_BINNED_CASE
    case 5:
      if constexpr (STREAM_SHORT) binned_stream_rows(a.bins.first_row[5], a.bins.count[5], local, a, x, y, products);
      else binned_short_rows<2>(a.bins.first_row[5], a.bins.count[5], local, a, x, y);
      return;
    default: {  // kEmptyBin
      const std::int64_t i = local * kBinnedThreads + threadIdx.x;
      if (i < a.bins.count[kEmptyBin]) y[a.out_row[a.bins.first_row[kEmptyBin] + i]] = T(0);
      return;
    }
  }
}

// x in the renumbered column order: x_renumbered[k] = x[column_of[k]] (coalesced stores, gathered loads).
template <class T>
__global__ void __launch_bounds__(256) gather_columns_kernel(std::int64_t cols, const std::int32_t* __restrict__ column_of,
                                                             const T* __restrict__ x, T* __restrict__ x_renumbered) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < cols) x_renumbered[k] = __ldg(x + column_of[k]);
}

// How the binned plan numbers the columns it gathers x through.
enum class ColumnOrder {
  as_given,   // x as the caller passes it
  by_degree,  // columns renumbered by falling non-zero count; x gathered into that order once per product,
              // so the most used entries of x share cache lines (skewed graphs: hubs)
};

template <class T>
class CsrBinnedPlan : public CudaSpmvPlan<T> {
 public:
  CsrBinnedPlan(const Csr<T>& a, const PlanOptions& o, ColumnOrder order = ColumnOrder::as_given,
                bool stream_short = false)
      : CudaSpmvPlan<T>(a, o), order_(order), stream_short_(stream_short) {
    static_assert(kBinnedThreads == kChunkThreads, "the fused launch runs chunk blocks with its own block size");
    if (this->rows_ == 0 || this->nnz_ == 0) return;
    if (this->rows_ > std::numeric_limits<std::int32_t>::max())
      throw NotApplicable("binned CSR keeps 32-bit row ids; " + std::to_string(this->rows_) + " rows");

    // Each row into its bin, in increasing row order; long rows on their own.
    std::vector<std::int32_t> lists[kBins];
    for (std::int64_t i = 0; i < a.rows; ++i) {
      const std::int64_t len = a.row_length(i);
      const int bin = len > kBinnedLongRow ? kLongBin : len == 0 ? kEmptyBin : binned_class(len);
      lists[bin].push_back(static_cast<std::int32_t>(i));
    }
    std::vector<std::int32_t> renumber;  // by_degree: new number of each column
    std::vector<std::int32_t> stream_warp_row_host;  // stream mode: each warp's first row in bin 5 (+1 entry)
    if (order_ == ColumnOrder::by_degree) renumber = renumber_by_degree(a);

    // The data in bin order: short rows (bins 1..5), then long rows.
    std::vector<std::int64_t> row_ptr{0};
    std::vector<std::int32_t> out_row, col_idx;
    std::vector<T> values;
    col_idx.reserve(static_cast<std::size_t>(a.nnz()));
    values.reserve(static_cast<std::size_t>(a.nnz()));
    auto append_row = [&](std::int32_t r) {
      for (std::int64_t j = a.row_ptr[r]; j < a.row_ptr[r + 1]; ++j)
        col_idx.push_back(renumber.empty() ? a.col_idx[j] : renumber[static_cast<std::size_t>(a.col_idx[j])]);
      values.insert(values.end(), a.values.begin() + a.row_ptr[r], a.values.begin() + a.row_ptr[r + 1]);
    };
    std::int64_t block = 0;
    for (int b = 0; b < kBins; ++b) {
      bins_.first_block[b] = block;
      bins_.first_row[b] = static_cast<std::int64_t>(out_row.size());
      bins_.count[b] = static_cast<std::int64_t>(lists[b].size());
      if (b == kLongBin) continue;  // stored after the short rows, below
      for (const std::int32_t r : lists[b]) {
        out_row.push_back(r);
        if (b == kEmptyBin) continue;
        append_row(r);
        row_ptr.push_back(static_cast<std::int64_t>(col_idx.size()));
      }
      if (b == 5 && stream_short_) {
        // Warp groups: consecutive rows while they hold <= kStreamEntries non-zeros and <= kWarp rows.
        const std::int64_t base = bins_.first_row[5];
        std::vector<std::int32_t> warp_row{0};
        for (std::int64_t i = 0; i < bins_.count[5]; ++i) {
          const std::int64_t start = warp_row.back();
          const std::int64_t entries = row_ptr[static_cast<std::size_t>(base + i + 1)] - row_ptr[static_cast<std::size_t>(base + start)];
          if (entries > kStreamEntries || i - start >= kWarp) warp_row.push_back(static_cast<std::int32_t>(i));
        }
        if (bins_.count[5] > 0) warp_row.push_back(static_cast<std::int32_t>(bins_.count[5]));
        else warp_row.clear();
        stream_warps_ = warp_row.empty() ? 0 : static_cast<std::int64_t>(warp_row.size()) - 1;
        bins_.count[5] = stream_warps_;  // the kernel's count for this bin: warps
        if (!warp_row.empty()) stream_warp_row_ = DeviceBuffer<std::int32_t>(warp_row, "binned CSR stream warps");
        stream_warp_row_host = warp_row;
        block += (stream_warps_ + kBinnedThreads / kWarp - 1) / (kBinnedThreads / kWarp);
        continue;
      }
      // Rows per block: a row per thread in the empty bin, kBinnedThreads / (64 >> b) in sub-warp bin b.
      const std::int64_t per_block = b == kEmptyBin ? kBinnedThreads : kBinnedThreads / (64 >> b);
      block += (bins_.count[b] + per_block - 1) / per_block;
    }
    // Long rows: chunks, placed first in the grid.
    std::vector<std::int64_t> chunk_begin, chunk_end;
    std::vector<std::int32_t> chunk_long_row, long_first_chunk{0};
    const std::vector<std::int32_t>& long_rows = lists[kLongBin];
    for (std::size_t r = 0; r < long_rows.size(); ++r) {
      const auto begin = static_cast<std::int64_t>(col_idx.size());
      append_row(long_rows[r]);
      const auto end = static_cast<std::int64_t>(col_idx.size());
      for_each_chunk(begin, end, [&](std::int64_t b, std::int64_t e) {
        chunk_begin.push_back(b);
        chunk_end.push_back(e);
        chunk_long_row.push_back(static_cast<std::int32_t>(r));
      });
      if (chunk_begin.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw NotApplicable("binned CSR: more than 2^31 long-row chunks");
      long_first_chunk.push_back(static_cast<std::int32_t>(chunk_begin.size()));
    }
    chunks_ = static_cast<std::int64_t>(chunk_begin.size());
    for (int b = 1; b <= kBins; ++b) bins_.first_block[b] = (b < kBins ? bins_.first_block[b] : block) + chunks_;
    blocks_ = block + chunks_;
    blocks_for(blocks_, 1, this->props());  // checks the grid limit
    // Runs (measured, H100, 13 families x 2 precisions: binned 1.013x in geometric mean, 0.99-1.04x;
    // binned_stream 1.028x, 0.98-1.08x, the most on roads and stencils): per block of bins 1..5, whether
    // its rows' ids are consecutive.
    std::vector<std::int32_t> block_run(static_cast<std::size_t>(blocks_), kNoRun);
    for (int b = 1; b <= 5; ++b) {
      for (std::int64_t blk = bins_.first_block[b]; blk < bins_.first_block[b + 1]; ++blk) {
        const std::int64_t local = blk - bins_.first_block[b];
        std::int64_t lo, hi;  // the block's rows: out_row indices [lo, hi)
        if (b == 5 && stream_short_) {
          const std::int64_t w0 = local * (kBinnedThreads / kWarp), w1 = std::min(bins_.count[5], w0 + kBinnedThreads / kWarp);
          lo = bins_.first_row[5] + stream_warp_row_host[static_cast<std::size_t>(w0)];
          hi = bins_.first_row[5] + stream_warp_row_host[static_cast<std::size_t>(w1)];
        } else {
          const std::int64_t per_block = kBinnedThreads / (64 >> b);
          lo = bins_.first_row[b] + local * per_block;
          hi = bins_.first_row[b] + std::min(bins_.count[b], (local + 1) * per_block);
        }
        bool consecutive = hi > lo;
        for (std::int64_t k = lo + 1; k < hi && consecutive; ++k)
          consecutive = out_row[static_cast<std::size_t>(k)] == out_row[static_cast<std::size_t>(k - 1)] + 1;
        if (consecutive) {
          block_run[static_cast<std::size_t>(blk)] = static_cast<std::int32_t>(out_row[static_cast<std::size_t>(lo)] - lo);
          run_rows_ += hi - lo;
        }
      }
    }
    block_run_ = DeviceBuffer<std::int32_t>(block_run, "binned CSR block runs");

    narrow_ = this->nnz_ <= std::numeric_limits<std::int32_t>::max();
    if (narrow_) row_ptr32_ = DeviceBuffer<std::int32_t>(std::vector<std::int32_t>(row_ptr.begin(), row_ptr.end()),
                                                         "binned CSR row_ptr (32-bit)");
    else row_ptr64_ = DeviceBuffer<std::int64_t>(row_ptr, "binned CSR row_ptr");
    col_idx_ = DeviceBuffer<std::int32_t>(col_idx, "binned CSR col_idx");
    values_ = DeviceBuffer<T>(values, "binned CSR values");
    if (!out_row.empty()) out_row_ = DeviceBuffer<std::int32_t>(out_row, "binned CSR row ids");
    if (chunks_ > 0) {
      chunk_begin_ = DeviceBuffer<std::int64_t>(chunk_begin, "long-row chunk starts");
      chunk_end_ = DeviceBuffer<std::int64_t>(chunk_end, "long-row chunk ends");
      chunk_long_row_ = DeviceBuffer<std::int32_t>(chunk_long_row, "long-row chunk rows");
      long_first_chunk_ = DeviceBuffer<std::int32_t>(long_first_chunk, "long-row first chunks");
      long_out_row_ = DeviceBuffer<std::int32_t>(long_rows, "long rows");
      long_ticket_ = DeviceBuffer<unsigned>(std::vector<unsigned>(long_rows.size(), 0u), "long-row tickets");
      partial_ = DeviceBuffer<T>(static_cast<std::size_t>(chunks_), "long-row chunk partial sums");
    }
    if (!renumber.empty()) {
      std::vector<std::int32_t> column_of(renumber.size());
      for (std::size_t c = 0; c < renumber.size(); ++c) column_of[static_cast<std::size_t>(renumber[c])] = static_cast<std::int32_t>(c);
      column_of_ = DeviceBuffer<std::int32_t>(column_of, "binned CSR column order");
      x_renumbered_ = DeviceBuffer<T>(column_of.size(), "binned CSR x in column order");
    }
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(const T* x, T* y) override {
    if (this->handle_trivial(y)) return;
    if (column_of_.get()) {
      const unsigned blocks = static_cast<unsigned>(blocks_for(this->cols_, 256, this->props()));
      gather_columns_kernel<T><<<blocks, 256>>>(this->cols_, column_of_.get(), x, x_renumbered_.get());
      SPKIT_LAUNCH_CHECK("gather_columns_kernel");
      x = x_renumbered_.get();
    }
    if (narrow_) launch<std::int32_t>(row_ptr32_.get(), x, y);
    else launch<std::int64_t>(row_ptr64_.get(), x, y);
  }
  std::uint64_t bytes_moved() const override {
    const auto long_rows = static_cast<std::uint64_t>(bins_.count[kLongBin]);
    // CSR bytes with the short rows' offsets, + the 4-byte row ids of the rows outside runs and a run entry
    // per block, + the chunk tables and partials,
    // + (by_degree) the gather of x: the column order read, x read and written in the new order,
    // + (stream mode) the warps' row table.
    std::uint64_t bytes = this->csr_bytes(narrow_ ? 4 : 8) + static_cast<std::uint64_t>(this->rows_ - run_rows_) * 4 +
                          static_cast<std::uint64_t>(blocks_) * 4 +
                          static_cast<std::uint64_t>(chunks_) * (20 + 2 * sizeof(T)) + long_rows * 12;
    if (column_of_.get()) bytes += static_cast<std::uint64_t>(this->cols_) * (4 + 2 * sizeof(T));
    bytes += static_cast<std::uint64_t>(stream_warps_) * 4;  // stream mode: each warp's first row
    return bytes;
  }
  std::string detail() const override {
    std::string s = stream_short_ ? "rows per bin (32/16/8/4 lanes; warp streams; empty):"
                                  : "rows per bin (32/16/8/4/2 lanes, empty):";
    for (int b = 1; b < kBins; ++b) s += " " + std::to_string(bins_.count[b]) + (b == 5 && stream_short_ ? " warps" : "");
    return s + "; " + std::to_string(bins_.count[kLongBin]) + " rows > " + std::to_string(kBinnedLongRow) + " nz in " +
           std::to_string(chunks_) + " chunks of " + std::to_string(kChunkNnz) + "; " + (narrow_ ? "32" : "64") +
           "-bit row_ptr; rows stored in bin order (" + std::to_string(run_rows_) + " in runs of consecutive ids)" +
           (order_ == ColumnOrder::by_degree ? "; columns renumbered by non-zero count" : "");
  }

 private:
  template <class Off>
  void launch(const Off* row_ptr, const T* x, T* y) const {
    const BinnedArgs<T, Off> args{bins_,
                                  row_ptr,
                                  out_row_.get(),
                                  col_idx_.get(),
                                  values_.get(),
                                  chunk_begin_.get(),
                                  chunk_end_.get(),
                                  chunk_long_row_.get(),
                                  long_first_chunk_.get(),
                                  long_out_row_.get(),
                                  long_ticket_.get(),
                                  partial_.get(),
                                  stream_warp_row_.get(),
                                  block_run_.get()};
    const unsigned grid = static_cast<unsigned>(blocks_);
    if (stream_short_) csr_binned_kernel<T, Off, true><<<grid, kBinnedThreads>>>(args, x, y);
    else csr_binned_kernel<T, Off, false><<<grid, kBinnedThreads>>>(args, x, y);
    SPKIT_LAUNCH_CHECK("csr_binned_kernel");
  }
  // Bin 1..5 of a non-empty row: 64 >> bin = the lanes csr_subwarp_kernel would give a matrix of this mean.
  static int binned_class(std::int64_t len) {
    const int lanes = subwarp_lanes(static_cast<double>(len));
    int bin = 1;
    while ((64 >> bin) > lanes) ++bin;
    return bin;
  }
  // New number of each column: by falling non-zero count, ties by column (a counting sort, O(nnz + cols)).
  static std::vector<std::int32_t> renumber_by_degree(const Csr<T>& a) {
    std::vector<std::int64_t> count(static_cast<std::size_t>(a.cols), 0);
    for (const std::int32_t c : a.col_idx) ++count[static_cast<std::size_t>(c)];
    const std::int64_t max_count = count.empty() ? 0 : *std::max_element(count.begin(), count.end());
    std::vector<std::int64_t> start(static_cast<std::size_t>(max_count) + 2, 0);  // by falling count
    for (const std::int64_t n : count) ++start[static_cast<std::size_t>(max_count - n) + 1];
    for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    std::vector<std::int32_t> renumber(count.size());
    for (std::size_t c = 0; c < count.size(); ++c)
      renumber[c] = static_cast<std::int32_t>(start[static_cast<std::size_t>(max_count - count[c])]++);
    return renumber;
  }
  ColumnOrder order_ = ColumnOrder::as_given;
  bool stream_short_ = false;
  std::int64_t run_rows_ = 0;  // rows whose ids come from their block's run (no out_row read)
  DeviceBuffer<std::int32_t> block_run_;
  std::int64_t stream_warps_ = 0;
  DeviceBuffer<std::int32_t> stream_warp_row_;
  bool narrow_ = true;
  std::int64_t blocks_ = 0, chunks_ = 0;
  BinTable bins_{};
  DeviceBuffer<std::int32_t> row_ptr32_;
  DeviceBuffer<std::int64_t> row_ptr64_, chunk_begin_, chunk_end_;
  DeviceBuffer<std::int32_t> col_idx_, out_row_, chunk_long_row_, long_first_chunk_, long_out_row_, column_of_;
  DeviceBuffer<unsigned> long_ticket_;
  DeviceBuffer<T> values_, partial_, x_renumbered_;
};

template <class T>
class CsrBinnedByDegreePlan : public CsrBinnedPlan<T> {
 public:
  CsrBinnedByDegreePlan(const Csr<T>& a, const PlanOptions& o) : CsrBinnedPlan<T>(a, o, ColumnOrder::by_degree) {}
};

template <class T>
class CsrBinnedStreamPlan : public CsrBinnedPlan<T> {
 public:
  CsrBinnedStreamPlan(const Csr<T>& a, const PlanOptions& o) : CsrBinnedPlan<T>(a, o, ColumnOrder::as_given, true) {}
};

// Binned cost: CSR bytes with 32-bit row offsets + the 4-byte row list. Long rows are split, so no serial
// term. docs/perf/cuda-csr-binned.md has the expectation these numbers come from.
CostEstimate csr_binned_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  CostEstimate e;
  e.applicable = s.nnz > 0 && s.rows <= std::numeric_limits<std::int32_t>::max();
  const bool narrow = s.nnz <= std::numeric_limits<std::int32_t>::max();
  e.bytes = cost::csr_bytes(s, p, narrow ? 4 : 8) + static_cast<std::uint64_t>(s.rows) * 4;
  // Measured (H100, 16M nnz, rows stored in bin order): predicted within ~5% of the time on circuit,
  // power-law, rmat, geometric and fem_mesh with these figures: a little under cuda.csr.subwarp's
  // 95% / 89% on regular rows, the same drop below 4 per row, up to 9% less on mixed row lengths;
  // x gathers folded in as for every kernel.
  const bool f64 = p == Precision::f64;
  double eff = f64 ? 0.90 : 0.82;
  if (s.row_nnz_mean < 4) eff *= f64 ? 0.95 : 0.85;
  // Rows of 16-1024 non-zeros run in tiles with whole-line loads: measured 1.25-1.29x (fp64) and 1.10-1.19x
  // (fp32) the kernel before on fem, fem_mesh and lap3d 27-pt (mean row 21-44), so 1.25 / 1.11 from a mean of 16.
  if (s.row_nnz_mean >= 16) eff *= f64 ? 1.25 : 1.11;
  eff /= 1 + 0.02 * std::min(cost::row_irregularity(s), 5.0);
  e.efficiency = cost::with_gathers(eff, e.bytes, s, Backend::cuda);
  e.launch_us = 5;  // one launch; long rows are finished by their last chunk's block
  e.note = "rows binned by length, long rows in chunks of " + std::to_string(kChunkNnz);
  return e;
}

// Warp streams for the rows under 16 non-zeros: a warp's lanes stay busy whatever the mix of short lengths
// (binned's 2-lane groups wait for the longest row of their warp), and since the streams load with
// evict-first hints (above), x stays in L2. Measured against binned in the same runs (H100, 16M nnz, two
// rounds): mean row under 16 and few empty rows: 1.02-1.21x in fp64 (geometric 1.04, random 1.16, road
// 1.21, circuit 1.33), 1.01-1.4x in fp32; mean row of 16 or more (fem_mesh, lap3d 27-pt): 0.95-1.0x; many
// empty rows (rmat, 47%: its short rows are 1-3 long): 0.98x. So 1.14 (the median) over binned where the
// mean row is short (binned's irregularity term lifted on top, circuit), 0.97 elsewhere. (A first fit of
// 1.10 left auto on cuda.csr.scalar for geometric fp32 and road_planar fp64, 4-7% slower there.) Fitted on
// the 13 generated families only.
CostEstimate csr_binned_stream_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  CostEstimate e = csr_binned_cost(s, p, o);
  const bool few_empty = s.rows > 0 && static_cast<double>(s.empty_rows) < 0.1 * static_cast<double>(s.rows);
  const bool short_rows = s.row_nnz_mean < 16;
  e.efficiency *= !few_empty ? 0.98 : (short_rows ? 1.14 : 0.97) * (1 + 0.02 * std::min(cost::row_irregularity(s), 5.0));
  e.note = "rows binned by length, rows under 16 non-zeros as warp streams";
  return e;
}

// The same with columns renumbered by use: it pays only where a few columns carry much of the matrix
// (hub_column_share, the 1% most used columns); elsewhere the renumbering scatters columns that were
// near each other (measured 0.7-0.9x binned on power-law rows with uniform columns, circuit, stencils).
// Gain fitted on rmat (hub share 0.43), taken as rising linearly from a share of 0.25 and capped there. With the
// tiled sub-warp rows in both plans (H100, 16M nnz, 2026-11-24 night): 0.82x binned in fp64 (it was 1.06x
// before the tiles), 1.06x in fp32 (was 1.23x). So in fp64 the model never prefers it to binned.
CostEstimate csr_binned_degree_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  CostEstimate e = csr_binned_cost(s, p, o);
  constexpr double kMinShare = 0.25, kFullShare = 0.4;
  if (s.hub_column_share < kMinShare) {
    e.applicable = false;
    e.note = "columns not skewed: the 1% most used hold " + cost::percent(s.hub_column_share) + " of the non-zeros";
    return e;
  }
  // The measured gain is in time and already pays for the gather of x, so the efficiency (bytes / time /
  // bandwidth) grows by the gain and by the gather's share of the bytes.
  const double vb = p == Precision::f64 ? 8 : 4;
  const auto gather = static_cast<std::uint64_t>(static_cast<double>(s.cols) * (4 + 2 * vb));
  if (gather * 4 > e.bytes) {  // the fit (rmat: 10% of the bytes) says nothing about a gather this large
    e.applicable = false;
    e.note = "gathering x would add more than a quarter of the matrix's bytes";
    return e;
  }
  const double full_gain = p == Precision::f64 ? 0.82 : 1.06;
  const double t = std::min(1.0, (s.hub_column_share - kMinShare) / (kFullShare - kMinShare));
  e.efficiency *= (1 + t * (full_gain - 1)) * static_cast<double>(e.bytes + gather) / static_cast<double>(e.bytes);
  e.bytes += gather;
  e.launch_us += 3;  // the gather launch
  e.note = "columns renumbered by use (1% hold " + cost::percent(s.hub_column_share) + " of the non-zeros)";
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
                             "CSR, 2-32 lanes per row from the mean row length; rows > 16x lanes in 2048-entry chunks (ours)",
                             false, csr_subwarp_cost);
  add_kernel<CsrAdaptivePlan>(reg, "cuda.csr.adaptive", Format::csr, Backend::cuda, false,
                              "CSR-adaptive: CSR-stream row blocks + CSR-vector long rows (seed 002)", false,
                              csr_adaptive_cost);
  add_kernel<CsrMergePlan>(reg, "cuda.csr.merge", Format::csr, Backend::cuda, false,
                           "CSR merge-path: equal tiles of rows + non-zeros per block, segmented scan, "
                           "deterministic carry fix-up (ours)",
                           false, csr_merge_cost);
  add_kernel<CsrBinnedPlan>(reg, "cuda.csr.binned", Format::csr, Backend::cuda, false,
                            "CSR binned by row length, rows stored in bin order: one fused launch, sub-warp bins of "
                            "2-32 lanes, long rows in 2048-entry chunks summed in order by the last block (ours)",
                            false, csr_binned_cost);
  add_kernel<CsrBinnedByDegreePlan>(reg, "cuda.csr.binned_degree", Format::csr, Backend::cuda, false,
                                    "cuda.csr.binned with the columns renumbered by non-zero count, x gathered into "
                                    "that order per product: the hubs of skewed graphs share cache lines (ours)",
                                    false, csr_binned_degree_cost);
  add_kernel<CsrBinnedStreamPlan>(reg, "cuda.csr.binned_stream", Format::csr, Backend::cuda, false,
                                  "cuda.csr.binned with the rows under 16 non-zeros run as warp streams (128 entries "
                                  "loaded by 32 lanes, products summed per row from shared memory): insensitive to "
                                  "mixed short rows (ours)",
                                  false, csr_binned_stream_cost);
}

}  // namespace spkit::cuda

namespace spkit {
// The registry (src/kernels/registry.cpp) calls these by their spkit:: names.
void register_cuda_csr_kernels(Registry& reg) { cuda::register_cuda_csr_kernels(reg); }
}  // namespace spkit
