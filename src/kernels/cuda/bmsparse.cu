// CUDA bmSparse SpMV of seed 003: BASE (one CUDA block of 64 threads per block row; thread t holds
// element t of every 8x8 block of the row; groups of 8 threads reduce with shuffles) and BATCH
// (blocks of 32 x 8 threads; warp r handles matrix row r of the block row over 4 blocks at a time).
// Bitmap convention: element e = 8*r + c is present iff bit (63 - e) is set; its value sits at
// offsets[block] + popcount of the bits above it.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/cost_model.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "spkit/formats/bmsparse.hpp"
#include "spkit/kernel.hpp"

namespace spkit::cuda {
namespace {

// Position of element e among the block's stored values: number of set bits before it.
__device__ __forceinline__ int bitmap_position(std::uint64_t bitmap, int e) {
  return e == 0 ? 0 : __popcll(bitmap >> (64 - e));
}

template <class T>
__global__ void bmsparse_base_kernel(std::int64_t rows, const std::int64_t* __restrict__ block_row_ptr,
                                     const std::uint64_t* __restrict__ keys, const std::uint64_t* __restrict__ bitmaps,
                                     const std::int64_t* __restrict__ offsets, const T* __restrict__ values,
                                     const T* __restrict__ x, T* __restrict__ y) {
  const int e = threadIdx.x;  // 0..63: element (e / 8, e % 8) of each block
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * 8 + e / 8;
  T sum = 0;
  for (std::int64_t b = block_row_ptr[blockIdx.x]; b < block_row_ptr[blockIdx.x + 1]; ++b) {
    const std::uint64_t bitmap = bitmaps[b];
    if ((bitmap >> (63 - e)) & 1u) {
      const std::int64_t col = static_cast<std::int64_t>(keys[b] & 0xffffffffu) * 8 + e % 8;
      sum += values[offsets[b] + bitmap_position(bitmap, e)] * x[col];
    }
  }
  sum = group_sum<8>(sum);  // groups of 8 lanes = one matrix row
  if (e % 8 == 0 && row < rows) y[row] = sum;
}

template <class T>
__global__ void bmsparse_batch_kernel(std::int64_t rows, const std::int64_t* __restrict__ block_row_ptr,
                                      const std::uint64_t* __restrict__ keys,
                                      const std::uint64_t* __restrict__ bitmaps,
                                      const std::int64_t* __restrict__ offsets, const T* __restrict__ values,
                                      const T* __restrict__ x, T* __restrict__ y) {
  const int slot = threadIdx.x / 8;  // which of the 4 blocks of this batch
  const int c = threadIdx.x % 8;
  const int r = threadIdx.y;
  const int e = r * 8 + c;
  const std::int64_t first = block_row_ptr[blockIdx.x], last = block_row_ptr[blockIdx.x + 1];
  T sum = 0;
  for (std::int64_t b = first + slot; b < last; b += 4) {
    const std::uint64_t bitmap = bitmaps[b];
    if ((bitmap >> (63 - e)) & 1u) {
      const std::int64_t col = static_cast<std::int64_t>(keys[b] & 0xffffffffu) * 8 + c;
      sum += values[offsets[b] + bitmap_position(bitmap, e)] * x[col];
    }
  }
  sum = group_sum<32>(sum);
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * 8 + r;
  if (threadIdx.x == 0 && row < rows) y[row] = sum;
}

template <class T>
struct DeviceBmSparse {
  std::int64_t block_rows = 0, blocks = 0;
  double nnz_per_block = 0;
  std::uint64_t bytes = 0;
  DeviceBuffer<std::int64_t> block_row_ptr, offsets;
  DeviceBuffer<std::uint64_t> keys, bitmaps;
  DeviceBuffer<T> values;
  DeviceBmSparse(const Csr<T>& a, const PlanOptions& o) {
    FormatLimits limits;
    limits.memory_budget_bytes = o.memory_budget_bytes;
    const BmSparse<T> bm = csr_to_bmsparse(a, limits);
    block_rows = bm.block_rows();
    blocks = bm.blocks();
    nnz_per_block = blocks > 0 ? double(bm.nnz()) / double(blocks) : 0.0;
    bytes = bm.memory_bytes();
    std::vector<std::int64_t> brp = bm.block_row_ptr;
    if (static_cast<std::int64_t>(brp.size()) != block_rows + 1) {  // derive it from the sorted keys
      brp.assign(static_cast<std::size_t>(block_rows) + 1, 0);
      for (std::uint64_t key : bm.keys) ++brp[static_cast<std::size_t>(BmSparse<T>::key_row(key)) + 1];
      for (std::int64_t i = 0; i < block_rows; ++i) brp[i + 1] += brp[i];
    }
    block_row_ptr = DeviceBuffer<std::int64_t>(brp, "bmSparse block_row_ptr");
    offsets = DeviceBuffer<std::int64_t>(bm.offsets, "bmSparse offsets");
    keys = DeviceBuffer<std::uint64_t>(bm.keys, "bmSparse keys");
    bitmaps = DeviceBuffer<std::uint64_t>(bm.bitmaps, "bmSparse bitmaps");
    values = DeviceBuffer<T>(bm.values, "bmSparse values");
  }
};

template <class T, bool BATCH>
class BmSparsePlan : public CudaSpmvPlan<T> {
 public:
  BmSparsePlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o), m_(a, o) {
    launch_.block = BATCH ? dim3(32, 8) : dim3(64);
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(m_.block_rows, 1, this->props())));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(const T* x, T* y) override {
    if (this->handle_trivial(y)) return;
    if (BATCH) {
      bmsparse_batch_kernel<T><<<launch_.grid, launch_.block>>>(this->rows_, m_.block_row_ptr.get(), m_.keys.get(),
                                                                m_.bitmaps.get(), m_.offsets.get(), m_.values.get(), x, y);
      SPKIT_LAUNCH_CHECK("bmsparse_batch_kernel");
    } else {
      bmsparse_base_kernel<T><<<launch_.grid, launch_.block>>>(this->rows_, m_.block_row_ptr.get(), m_.keys.get(),
                                                               m_.bitmaps.get(), m_.offsets.get(), m_.values.get(), x, y);
      SPKIT_LAUNCH_CHECK("bmsparse_base_kernel");
    }
  }
  std::uint64_t bytes_moved() const override {
    return m_.bytes + static_cast<std::uint64_t>(this->rows_ + this->cols_) * sizeof(T);
  }
  std::string detail() const override {
    return std::to_string(m_.blocks) + " blocks, " + std::to_string(m_.nnz_per_block).substr(0, 4) + " nz/block";
  }

 private:
  DeviceBmSparse<T> m_;
  Launch launch_;
};

template <class T> using BmSparseBasePlan = BmSparsePlan<T, false>;
template <class T> using BmSparseBatchPlan = BmSparsePlan<T, true>;

}  // namespace
}  // namespace spkit::cuda

namespace spkit {
namespace {
// Cost model: 64 threads per 8x8 block row leave most lanes idle unless blocks are dense: 38% of copy on
// banded (29 nz/block), 37% on fem (15), 31% on lap3d27 (10), 23% on lap2d (5.7) in fp64, about 0.7x
// that in fp32 (docs/perf/data/gpu-bench-h100-large.csv). Under 2 non-zeros per block its metadata
// outweighs the values: not applicable. A block row is one thread block walking its blocks in turn, so a
// very long row serializes: ~1 us per 8x8 block of it (circuit's 941k-entry row: 112 ms).
CostEstimate bmsparse_base_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  if (s.nnz > 0 && s.bm_nnz_per_block < 2)
    return cost::not_applicable(std::to_string(s.bm_nnz_per_block).substr(0, 4) + " non-zeros per 8x8 block");
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::in(s.bytes_bmsparse, p) + cost::vector_bytes(s, p);
  const double eff = std::min(0.42, 0.18 + 0.011 * s.bm_nnz_per_block);
  e.efficiency = cost::with_gathers(p == Precision::f64 ? eff : 0.7 * eff, e.bytes, s, Backend::cuda);
  e.launch_us = 5 + 0.95 * static_cast<double>(std::max<std::int64_t>(0, s.row_nnz_max - 64)) / 8;
  e.convert_bytes = cost::in(s.bytes_csr, p) + cost::in(s.bytes_bmsparse, p);
  e.note = std::to_string(s.bm_nnz_per_block).substr(0, 4) + " non-zeros per block";
  return e;
}
}  // namespace

void register_cuda_bmsparse_kernels(Registry& reg) {
  add_kernel<cuda::BmSparseBasePlan>(reg, "cuda.bmsparse.base", Format::bmsparse, Backend::cuda, false,
                                     "bmSparse BASE: 64 threads per block row, 8-lane shuffle reductions (seed 003)", false,
                                     bmsparse_base_cost);
  add_kernel<cuda::BmSparseBatchPlan>(reg, "cuda.bmsparse.batch", Format::bmsparse, Backend::cuda, false,
                                      "bmSparse BATCH: 32x8 threads, warp per row over 4 blocks at a time (seed 003)");
}
}  // namespace spkit
