// CUDA BSR kernel (cuda.bsr.group): SpMV over dense b x b blocks (b = 2, 3 or 4) for matrices assembled from
// degree-of-freedom blocks (3-dof finite elements, elasticity) in any node numbering. One column index per
// block and x read as b consecutive values: a full 3x3 block moves 9 values + 4 bytes where CSR moves 9 values +
// 36 bytes (fp64: 8.4 against 12 bytes per non-zero; fp32: 4.4 against 8). A group of G lanes per block row
// (G from the mean blocks per block row, 2 to 32), each lane a block at a time, reduced by shuffles. The block
// size is detected at plan time as cpu.bsr.omp does it (the b whose blocks move the fewest bytes, refused where
// blocks would store more than tuning::kCpuBsrMaxFill entries per non-zero or move more than CSR).
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "formats/bm_blocks.hpp"
#include "kernels/cost_model.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "spkit/error.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

constexpr int kBsrThreads = 256;

// y[b*br + r] = alpha * (sum over the blocks of block row br of v(r, c) x[b*bc + c]) + beta * y; block rows
// of G lanes; x past `cols` (a ragged last block column) is not read (its values are explicit zeros).
template <class T, int B, int G>
__global__ void __launch_bounds__(kBsrThreads)
    bsr_group_kernel(std::int64_t block_rows, std::int64_t rows, std::int64_t cols, const std::int64_t* bptr,
                     const std::int32_t* bcol, const T* values, T alpha, const T* __restrict__ x, T beta, T* y) {
  constexpr int kPerWarp = 32 / G;
  const int lane = threadIdx.x % G, group = (threadIdx.x % 32) / G;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  const bool ragged = cols % B != 0;
  // Warp-uniform loop (the shuffles take every lane): the warp's groups take kPerWarp consecutive block rows.
  for (std::int64_t first = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32 * kPerWarp;
       first < block_rows; first += warps * kPerWarp) {
    const std::int64_t br = first + group;
    T acc[B] = {};
    const std::int64_t end = br < block_rows ? bptr[br + 1] : 0;
    for (std::int64_t k = (br < block_rows ? bptr[br] : 0) + lane; k < end; k += G) {
      const std::int64_t c0 = static_cast<std::int64_t>(bcol[k]) * B;
      const T* v = values + k * (B * B);
      T xb[B];
#pragma unroll
      for (int c = 0; c < B; ++c) xb[c] = !ragged || c0 + c < cols ? __ldg(x + c0 + c) : T(0);
#pragma unroll
      for (int r = 0; r < B; ++r)
#pragma unroll
        for (int c = 0; c < B; ++c) acc[r] = fma(__ldcs(v + r * B + c), xb[c], acc[r]);
    }
#pragma unroll
    for (int r = 0; r < B; ++r)
#pragma unroll
      for (int o = G / 2; o > 0; o /= 2) acc[r] += __shfl_xor_sync(0xffffffffu, acc[r], o, G);
    // Lane r writes row r of the block row (rows past the matrix's last one are not written).
#pragma unroll
    for (int r = 0; r < B; ++r)
      if (lane == r && br < block_rows && br * B + r < rows) store_axpby(y + br * B + r, alpha, acc[r], beta);
  }
}

template <class T>
class BsrGroupPlan : public CudaSpmvPlan<T> {
 public:
  BsrGroupPlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o) {
    if (this->nnz_ == 0) throw NotApplicable("cuda.bsr.group: no non-zeros");
    if (a.cols / 2 >= std::numeric_limits<std::int32_t>::max())
      throw NotApplicable("cuda.bsr.group: more than 2^31 block columns");
    choose_block(a);
    const std::uint64_t bytes = bytes_moved();
    if (o.memory_budget_bytes && bytes > o.memory_budget_bytes)
      throw TooLarge("BSR of this matrix exceeds the memory budget", bytes);
    check_device_fits(bytes, "BSR of this matrix");
    fill(a);
    const double mean = static_cast<double>(blocks_) / static_cast<double>(std::max<std::int64_t>(block_rows_, 1));
    group_ = 2;
    while (group_ < 32 && group_ < mean * 0.75) group_ *= 2;
    if (group_ < b_) group_ = b_ == 2 ? 2 : 4;  // lane r writes row r
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    if (this->handle_trivial(beta, y, cuda_stream(stream))) return;
    switch (b_ * 100 + group_) {
#define SPKIT_BSR_CASE(B, G) \
  case B * 100 + G: return launch<B, G>(alpha, x, beta, y, cuda_stream(stream));
      SPKIT_BSR_CASE(2, 2) SPKIT_BSR_CASE(2, 4) SPKIT_BSR_CASE(2, 8) SPKIT_BSR_CASE(2, 16) SPKIT_BSR_CASE(2, 32)
      SPKIT_BSR_CASE(3, 4) SPKIT_BSR_CASE(3, 8) SPKIT_BSR_CASE(3, 16) SPKIT_BSR_CASE(3, 32)
      SPKIT_BSR_CASE(4, 4) SPKIT_BSR_CASE(4, 8) SPKIT_BSR_CASE(4, 16) SPKIT_BSR_CASE(4, 32)
#undef SPKIT_BSR_CASE
      default: throw Error("cuda.bsr.group: no kernel for blocks of " + std::to_string(b_) + " and groups of " +
                           std::to_string(group_));
    }
  }

  std::uint64_t bytes_moved() const override {
    return static_cast<std::uint64_t>(blocks_) * (static_cast<std::uint64_t>(b_ * b_) * sizeof(T) + 4) +
           static_cast<std::uint64_t>(block_rows_ + 1) * 8 + static_cast<std::uint64_t>(this->rows_ + this->cols_) * sizeof(T);
  }
  std::string detail() const override {
    char fill[32];
    std::snprintf(fill, sizeof fill, "%.2f", static_cast<double>(blocks_) * b_ * b_ / static_cast<double>(this->nnz_));
    return std::to_string(b_) + "x" + std::to_string(b_) + " blocks, fill " + fill + ", " + std::to_string(group_) +
           " lanes per block row";
  }

 private:
  template <int B, int G>
  void launch(T alpha, const T* x, T beta, T* y, cudaStream_t stream) {
    const auto grid = static_cast<unsigned>(blocks_for(block_rows_ * G, kBsrThreads, this->props()));
    bsr_group_kernel<T, B, G><<<grid, kBsrThreads, 0, stream>>>(block_rows_, this->rows_, this->cols_, bptr_.get(),
                                                               bcol_.get(), values_.get(), alpha, x, beta, y);
    SPKIT_LAUNCH_CHECK("bsr_group_kernel");
  }

  // The b whose blocks move the fewest bytes, refused past kCpuBsrMaxFill entries per non-zero or above CSR.
  void choose_block(const Csr<T>& a) {
    double best = 0;
    for (int b = 2; b <= 4; ++b) {
      std::vector<std::int64_t> count = detail::blocks_per_block_row(a, b, omp_get_max_threads());
      std::int64_t blocks = 0;
      for (std::int64_t c : count) blocks += c;
      const double fill = static_cast<double>(blocks) * b * b / static_cast<double>(this->nnz_);
      const double bytes = static_cast<double>(blocks) * (b * b * sizeof(T) + 4);
      if (fill <= tuning::kCpuBsrMaxFill && (best == 0 || bytes < best))
        best = bytes, b_ = b, blocks_ = blocks, count_ = std::move(count);
    }
    if (b_ == 0) throw NotApplicable("cuda.bsr.group: 2x2-4x4 blocks would store too many explicit zeros");
    if (best >= static_cast<double>(this->nnz_) * (4 + sizeof(T)))
      throw NotApplicable("cuda.bsr.group: its blocks would move more bytes than CSR");
    block_rows_ = (this->rows_ + b_ - 1) / b_;
  }

  // Blocks in block-row order, each row-major with explicit zeros, a 32-bit block column each.
  void fill(const Csr<T>& a) {
    const int b = b_;
    std::vector<std::int64_t> bptr(static_cast<std::size_t>(block_rows_) + 1, 0);
    for (std::int64_t br = 0; br < block_rows_; ++br) bptr[br + 1] = bptr[br] + count_[static_cast<std::size_t>(br)];
    std::vector<std::int32_t> bcol(static_cast<std::size_t>(blocks_));
    std::vector<T> values(static_cast<std::size_t>(blocks_) * b * b, T(0));
#pragma omp parallel for schedule(dynamic, 256)
    for (std::int64_t br = 0; br < block_rows_; ++br) {
      std::int64_t k = bptr[br];
      detail::for_each_block(a, b, br, [&](std::int64_t bc, int rows, const std::int64_t* begin, const std::int64_t* end) {
        bcol[k] = static_cast<std::int32_t>(bc);
        for (int r = 0; r < rows; ++r)
          for (std::int64_t p = begin[r]; p < end[r]; ++p)
            values[static_cast<std::size_t>(k) * b * b + r * b + a.col_idx[p] % b] = a.values[p];
        ++k;
      });
    }
    bptr_ = upload(bptr, "BSR block-row offsets");
    bcol_ = upload(bcol, "BSR block columns");
    values_ = upload(values, "BSR values");
    count_ = {};
  }

  int b_ = 0, group_ = 2;
  std::int64_t blocks_ = 0, block_rows_ = 0;
  std::vector<std::int64_t> count_;  // blocks per block row, until fill()
  DeviceBuffer<std::int64_t> bptr_;
  DeviceBuffer<std::int32_t> bcol_;
  DeviceBuffer<T> values_;
};

}  // namespace
}  // namespace spkit::cuda

namespace spkit {
namespace {
// Cost model: the bytes of MatrixStats' block size (b x b values and a 32-bit column per block, block-row
// offsets, x and y) at the binned CSR kernel's efficiency (the same streaming loads and gathers of x; not
// fitted apart: the tuner times it where the model ranks it near the top).
CostEstimate bsr_group_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  if (const std::string why = cost::bsr_refusal(s); !why.empty()) return cost::not_applicable(why);
  const int b = s.bsr_block;
  const std::uint64_t block_bytes = cost::bsr_block_bytes(s, p, 4);
  CostEstimate e;
  e.applicable = true;
  e.bytes = block_bytes + cost::vector_bytes(s, p);
  const tuning::CudaEfficiency eff = tuning::kCudaBinnedEfficiency;
  e.efficiency = cost::with_gathers(p == Precision::f64 ? eff.f64 : eff.f32, e.bytes, s, Backend::cuda);
  e.launch_us = 5;
  e.convert_bytes = cost::csr_bytes(s, p) + block_bytes;
  e.note = std::to_string(b) + "x" + std::to_string(b) + " blocks, fill " + cost::percent(s.bsr_fill);
  return e;
}
}  // namespace

void register_cuda_bsr_kernels(Registry& reg) {
  KernelInfo k;
  k.name = "cuda.bsr.group";
  k.format = Format::bsr;
  k.backend = Backend::cuda;
  k.description = "BSR of dense 2x2/3x3/4x4 blocks (size detected at plan time), a lane group per block row, one "
                  "column index per block and x read b values at a time";
  k.cost = bsr_group_cost;
  add_kernel<cuda::BsrGroupPlan>(reg, std::move(k));
}
}  // namespace spkit
