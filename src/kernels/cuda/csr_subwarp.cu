// CUDA sub-warp CSR (ours, after Bell & Garland's CSR-vector): LANES lanes per row, LANES (2..32) the
// largest power of two under a quarter of the mean row length, so short rows do not leave most of a warp
// idle. Rows longer than 16 x LANES are cut into 2048-entry chunks (csr_chunks.cuh) summed by separate
// launches, so one long row cannot hold a warp of short ones.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cost_model.hpp"
#include "kernels/cuda/csr_chunks.cuh"
#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/device_csr.cuh"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

// LANES lanes per row (LANES in 2..32), 1-D blocks; out-of-range groups still take part in
// the shuffles (no early return), so the full-warp mask is always right. Rows longer than
// long_row (more than 16 iterations per lane) are skipped here and done in chunks (LongRowChunks),
// so one long row cannot hold a whole warp of short ones.
template <int LANES, class T>
__global__ void __launch_bounds__(256) csr_subwarp_kernel(std::int64_t rows, std::int64_t long_row,
                                                          const std::int64_t* __restrict__ row_ptr,
                                                          const std::int32_t* __restrict__ col_idx,
                                                          const T* __restrict__ values, T alpha,
                                                          const T* __restrict__ x, T beta, T* __restrict__ y) {
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
  if (mine && lane == 0) store_axpby(y + row, alpha, sum, beta);
}

// The long rows' chunks: each chunk's block sum goes to partial[chunk]; a second tiny launch sums each
// row's partials in chunk order (a warp per row, fixed shuffle tree: deterministic, no atomics) and writes y.
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
                                                              const T* __restrict__ partial, T alpha, T beta,
                                                              T* __restrict__ y) {
  const std::int64_t r = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  T sum = 0;
  if (r < n_long)
    for (std::int64_t c = first_chunk[r] + lane; c < first_chunk[r + 1]; c += kWarp) sum += partial[c];
  sum = group_sum<kWarp>(sum);
  if (r < n_long && lane == 0) store_axpby(y + long_row[r], alpha, sum, beta);
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
  // The chunks' block sums, then each long row's y entry (the sub-warp kernel skips these rows).
  void launch(const std::int32_t* col_idx, const T* values, T alpha, const T* x, T beta, T* y, const DeviceProps& p,
              cudaStream_t stream) const {
    if (n_long_ == 0) return;
    csr_chunk_kernel<T><<<static_cast<unsigned>(chunks_), kChunkThreads, 0, stream>>>(
        chunk_begin_.get(), chunk_end_.get(), col_idx, values, x, partial_.get());
    SPKIT_LAUNCH_CHECK("csr_chunk_kernel");
    const unsigned blocks = static_cast<unsigned>(blocks_for(n_long_, 256 / kWarp, p));
    csr_chunk_fixup_kernel<T><<<blocks, 256, 0, stream>>>(n_long_, long_row_.get(), first_chunk_.get(), partial_.get(),
                                                          alpha, beta, y);
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

template <class T>
class CsrSubwarpPlan : public CudaSpmvPlan<T> {
 public:
  CsrSubwarpPlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o), m_(a) {
    lanes_ = subwarp_lanes(row_stats(a).mean);
    long_row_ = tuning::kCudaSubwarpLongRowPerLane * static_cast<std::int64_t>(lanes_);
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
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->handle_trivial(beta, y, s)) return;
    const auto rp = m_.row_ptr.get();
    const auto ci = m_.col_idx.get();
    const auto v = m_.values.get();
    const std::int64_t rows = this->rows_, lr = long_row_;
    const auto kernel = lanes_ == 2    ? csr_subwarp_kernel<2, T>
                        : lanes_ == 4  ? csr_subwarp_kernel<4, T>
                        : lanes_ == 8  ? csr_subwarp_kernel<8, T>
                        : lanes_ == 16 ? csr_subwarp_kernel<16, T>
                                       : csr_subwarp_kernel<32, T>;
    kernel<<<launch_.grid, launch_.block, 0, s>>>(rows, lr, rp, ci, v, alpha, x, beta, y);
    SPKIT_LAUNCH_CHECK("csr_subwarp_kernel");
    chunks_.launch(ci, v, alpha, x, beta, y, this->props(), s);
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

CostEstimate csr_subwarp_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::csr_bytes(s, p);
  // 95% / 89% on regular rows of >= 5 entries (lap3d7, fem, banded, lap2d; launch apart), 90% / 76%
  // below 4 per row (road: 2 lanes half idle). Rows longer than 16 x lanes used to take a block each
  // (about 5 GB/s per row: circuit's 941k-entry row took 2.6 ms); they are now split into 2048-entry
  // chunks over many blocks (two more launches), so no serial term. Not yet measured since that change.
  const int lanes = subwarp_lanes(s.row_nnz_mean);
  const bool f64 = p == Precision::f64;
  double eff = f64 ? tuning::kCudaSubwarpEfficiency.f64 : tuning::kCudaSubwarpEfficiency.f32;
  if (s.row_nnz_mean < 4) eff *= f64 ? tuning::kCudaSubwarpShortRowFactor.f64 : tuning::kCudaSubwarpShortRowFactor.f32;
  // One width for all rows: on mixed lengths a group waits for the longest row of its warp (up to 25%;
  // powerlaw's 0.285 ms was ~0.1 ms of serial long rows plus ~1.12x the random matrix's time).
  eff /= 1 + 0.05 * std::min(cost::row_irregularity(s), 5.0);
  const bool long_rows = s.row_nnz_max > tuning::kCudaSubwarpLongRowPerLane * lanes;
  e.efficiency = cost::with_gathers(eff, e.bytes, s, Backend::cuda);
  e.launch_us = long_rows ? 15 : 5;
  e.note = std::to_string(lanes) + " lanes per row" + (long_rows ? ", long rows in chunks" : "");
  return e;
}

}  // namespace

}  // namespace spkit::cuda

namespace spkit {

void register_cuda_csr_subwarp_kernels(Registry& reg) {
  using namespace cuda;
  KernelInfo k;
  k.name = "cuda.csr.subwarp";
  k.format = Format::csr;
  k.backend = Backend::cuda;
  k.description = "CSR-vector (Bell & Garland) with 2-32 lanes per row from the mean row length; rows over 16 "
                  "iterations per lane in 2048-entry chunks over many blocks (ours)";
  k.cost = csr_subwarp_cost;
  add_kernel<CsrSubwarpPlan>(reg, std::move(k));
}

}  // namespace spkit
