// CUDA CSR-adaptive (Greathouse & Daga, SC'14): rows grouped at plan time into row blocks of about the
// same number of non-zeros; a block of short rows is done by CSR-stream (products streamed to shared
// memory with coalesced loads, each row summed from there), a single long row by CSR-vector with the whole
// thread block.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cost_model.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/device_csr.cuh"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

// Block b covers rows [row_blocks[b], row_blocks[b+1]). A block of rows whose non-zeros fit in
// nz_per_block is done by CSR-stream: products streamed to shared memory with coalesced loads, then
// each row summed by one thread. A single row longer than that is done by CSR-vector with the whole
// block and a block-wide reduction.
template <class T>
__global__ void csr_adaptive_kernel(const std::int64_t* row_blocks, int nz_per_block, const std::int64_t* row_ptr,
                                    const std::int32_t* col_idx, const T* values, T alpha, const T* x, T beta, T* y) {
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
      store_axpby(y + r, alpha, sum, beta);
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
      if (lane == 0) store_axpby(y + first_row, alpha, sum, beta);
    }
  }
}

// The row-block builder: a block closes when the next row would overflow nz_per_block, when one row
// alone exceeds it (that row gets its own block), or after nz_per_block rows (which bounds the rows one
// block sums, for runs of empty rows).
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
    nz_per_block_ = threads_ * tuning::kCudaAdaptiveProductsPerThread;
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
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    if (this->handle_trivial(beta, y, cuda_stream(stream))) return;
    csr_adaptive_kernel<T><<<launch_.grid, launch_.block, launch_.shared_bytes, cuda_stream(stream)>>>(
        row_blocks_.get(), nz_per_block_, m_.row_ptr.get(), m_.col_idx.get(), m_.values.get(), alpha, x, beta, y);
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

// Cost model (efficiencies: tuning.hpp, from docs/perf/data/gpu-bench-h100-large.csv).
CostEstimate csr_adaptive_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::csr_bytes(s, p) + static_cast<std::uint64_t>(s.nnz / 1024 + 1) * 8;  // row-block list
  // tuning::kCudaAdaptiveEfficiency on regular rows; a long row is one block at about 8 GB/s (circuit
  // 1.44 ms), overlapped with the other blocks.
  // Mixed row lengths cost it up to 20% more (power-law at 8 +- 248 per row: 0.22 ms measured against
  // 0.185 ms predicted without this term; H100, 16M nnz).
  const tuning::CudaEfficiency regular = tuning::kCudaAdaptiveEfficiency;
  const double eff =
      (p == Precision::f64 ? regular.f64 : regular.f32) / (1 + 0.04 * std::min(cost::row_irregularity(s), 5.0));
  const double long_bytes =
      s.row_nnz_max > 1024 ? static_cast<double>(s.row_nnz_max * cost::row_entry_bytes(p)) : 0.0;
  e.efficiency = cost::with_gathers(cost::with_long_row(eff, e.bytes, long_bytes, 8.0 / 2838, true), e.bytes, s,
                                    Backend::cuda);
  e.launch_us = 5;
  e.note = "row blocks of <= 1024 non-zeros";
  return e;
}

}  // namespace

}  // namespace spkit::cuda

namespace spkit {

void register_cuda_csr_adaptive_kernels(Registry& reg) {
  using namespace cuda;
  KernelInfo k;
  k.name = "cuda.csr.adaptive";
  k.format = Format::csr;
  k.backend = Backend::cuda;
  k.description = "Greathouse & Daga's CSR-adaptive: CSR-stream row blocks + CSR-vector long rows";
  k.cost = csr_adaptive_cost;
  add_kernel<CsrAdaptivePlan>(reg, std::move(k));
}

}  // namespace spkit
