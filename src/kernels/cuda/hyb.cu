// CUDA HYB (Bell & Garland 2009): the column-major ELL part by one thread per row, then the COO
// overflow on the GPU: each warp reduces its 32 entries by row segments (entries are sorted by row)
// and only the first lane of each segment adds into y with one atomicAdd. For y = alpha*A*x + beta*y the
// ELL pass writes alpha*ell + beta*y (every row, so beta is applied once) and the COO pass adds alpha*coo.
#include <cuda_runtime.h>

#include <string>

#include "kernels/cost_model.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/ell_kernel.cuh"
#include "spkit/formats/hyb.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

// Segmented suffix sums inside the warp: after the loop, the first lane of each run of equal rows
// holds the run's sum (runs are contiguous because the COO part is sorted by row).
template <class T>
__global__ void hyb_coo_kernel(std::int64_t n, const std::int32_t* __restrict__ row_idx,
                               const std::int32_t* __restrict__ col_idx, const T* __restrict__ values,
                               T alpha, const T* __restrict__ x, T* __restrict__ y) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const bool valid = i < n;
  const std::int32_t row = valid ? row_idx[i] : -1;
  T v = valid ? values[i] * x[col_idx[i]] : T(0);
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const T other = __shfl_down_sync(0xffffffffu, v, offset);
    const std::int32_t other_row = __shfl_down_sync(0xffffffffu, row, offset);
    if (lane + offset < 32 && other_row == row) v += other;
  }
  const std::int32_t prev_row = __shfl_up_sync(0xffffffffu, row, 1);
  if (valid && (lane == 0 || prev_row != row)) atomicAdd(y + row, alpha * v);
}

template <class T>
class HybPlan : public CudaSpmvPlan<T> {
 public:
  HybPlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o) {
    FormatLimits limits;
    limits.memory_budget_bytes = o.memory_budget_bytes;
    const Hyb<T> h = csr_to_hyb(a, -1, limits);
    width_ = h.ell.width;
    coo_nnz_ = h.coo.nnz();
    ell_col_ = DeviceBuffer<std::int32_t>(h.ell.col_idx, "HYB ELL col_idx");
    ell_val_ = DeviceBuffer<T>(h.ell.values, "HYB ELL values");
    coo_row_ = DeviceBuffer<std::int32_t>(h.coo.row_idx, "HYB COO row_idx");
    coo_col_ = DeviceBuffer<std::int32_t>(h.coo.col_idx, "HYB COO col_idx");
    coo_val_ = DeviceBuffer<T>(h.coo.values, "HYB COO values");
    bytes_ = h.memory_bytes();
    const int threads = default_block_threads(this->props());
    ell_launch_.block = coo_launch_.block = dim3(threads);
    ell_launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, threads, this->props())));
    coo_launch_.grid = dim3(static_cast<unsigned>(blocks_for(coo_nnz_, threads, this->props())));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->handle_trivial(beta, y, s)) return;
    if (width_ > 0) {
      ell_col_major_kernel<T><<<ell_launch_.grid, ell_launch_.block, 0, s>>>(this->rows_, width_, ell_col_.get(),
                                                                             ell_val_.get(), alpha, x, beta, y);
      SPKIT_LAUNCH_CHECK("ell_col_major_kernel");
    } else {
      this->scale_output(beta, y, s);
    }
    if (coo_nnz_ > 0) {
      hyb_coo_kernel<T><<<coo_launch_.grid, coo_launch_.block, 0, s>>>(coo_nnz_, coo_row_.get(), coo_col_.get(),
                                                                       coo_val_.get(), alpha, x, y);
      SPKIT_LAUNCH_CHECK("hyb_coo_kernel");
    }
  }
  std::uint64_t bytes_moved() const override {
    // y is written by the ELL part and read-modified by the COO atomics (counted once).
    return bytes_ + static_cast<std::uint64_t>(this->rows_ + this->cols_) * sizeof(T);
  }
  std::string detail() const override {
    return "ELL width " + std::to_string(width_) + ", COO " + std::to_string(coo_nnz_) + " nz";
  }

 private:
  std::int64_t width_ = 0, coo_nnz_ = 0;
  std::uint64_t bytes_ = 0;
  DeviceBuffer<std::int32_t> ell_col_, coo_row_, coo_col_;
  DeviceBuffer<T> ell_val_, coo_val_;
  Launch ell_launch_, coo_launch_;
};

}  // namespace
}  // namespace spkit::cuda

namespace spkit {
namespace {
// Cost model: the ELL part as cuda.ell.col_major, the COO part (row, column, value per entry,
// warp-segmented sums and one atomic per segment) and its atomics as measured (tuning.hpp:
// kCudaHybCooEfficiency, kCudaHybAtomicBytes, kCudaHybAtomicUsPer32).
using tuning::kCudaHybAtomicBytes, tuning::kCudaHybAtomicUsPer32, tuning::kCudaHybCooEfficiency;
CostEstimate hyb_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::in(s.bytes_hyb, p) + cost::vector_bytes(s, p);
  const double coo_bytes = static_cast<double>(s.hyb_coo_entries) * static_cast<double>(8 + cost::value_bytes(p));
  const double ell_bytes = static_cast<double>(e.bytes) - coo_bytes;
  const double ell_eff = p == Precision::f64 ? tuning::kCudaEllEfficiency.f64 : tuning::kCudaEllEfficiency.f32;
  // Rows with an overflow: at most one per COO entry, and fewer than a third of the rows (K is the
  // length that a third of the rows reach).
  const double overflow_rows = std::min(static_cast<double>(s.hyb_coo_entries), static_cast<double>(s.rows) / 3);
  e.efficiency = cost::with_gathers(static_cast<double>(e.bytes) / (ell_bytes / ell_eff + coo_bytes / kCudaHybCooEfficiency +
                                                                   overflow_rows * kCudaHybAtomicBytes),
                                    e.bytes, s, Backend::cuda);
  e.launch_us = s.hyb_coo_entries > 0 ? 10 + kCudaHybAtomicUsPer32 * static_cast<double>(s.row_nnz_max - s.hyb_width) / 32 : 5;
  e.convert_bytes = cost::in(s.bytes_csr, p) + cost::in(s.bytes_hyb, p);
  e.note = "ELL width " + std::to_string(s.hyb_width) + ", COO " + std::to_string(s.hyb_coo_entries) + " entries";
  return e;
}
}  // namespace

void register_cuda_hyb_kernels(Registry& reg) {
  KernelInfo k;
  k.name = "cuda.hyb";
  k.format = Format::hyb;
  k.backend = Backend::cuda;
  k.description = "Bell & Garland's HYB: column-major ELL part + COO overflow with warp-segmented atomics";
  k.cost = hyb_cost;
  add_kernel<cuda::HybPlan>(reg, std::move(k));
}
}  // namespace spkit
