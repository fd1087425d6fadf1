// CUDA ELLPACK kernel (Bell & Garland 2009): column-major ELL, one thread per row; consecutive threads read
// consecutive elements of each column, so every load of the matrix is coalesced.
#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda/convert.cuh"
#include "kernels/cost_model.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/ell_kernel.cuh"
#include "spkit/formats/ell.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

template <class T>
class EllColMajorPlan : public CudaSpmvPlan<T> {
 public:
  EllColMajorPlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o) {
    if (o.memory_budget_bytes && ell_bytes(a) > o.memory_budget_bytes)
      throw TooLarge("ELLPACK of this matrix exceeds the memory budget", ell_bytes(a));
    check_device_fits(ell_bytes(a), "ELLPACK of this matrix");  // before uploading anything
    DeviceEll<T> ell = device_csr_to_ell(DeviceCsr<T>(a), Layout::col_major, this->props());  // converted on the GPU
    width_ = ell.width;
    col_idx_ = std::move(ell.col_idx);
    values_ = std::move(ell.values);
    launch_.block = dim3(default_block_threads(this->props()));
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, launch_.block.x, this->props())));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    if (this->handle_trivial(beta, y, cuda_stream(stream))) return;
    ell_col_major_kernel<T><<<launch_.grid, launch_.block, 0, cuda_stream(stream)>>>(this->rows_, width_, col_idx_.get(),
                                                                                     values_.get(), alpha, x, beta, y);
    SPKIT_LAUNCH_CHECK("ell_col_major_kernel");
  }
  std::uint64_t bytes_moved() const override {
    return col_idx_.bytes() + values_.bytes() + static_cast<std::uint64_t>(this->rows_ + this->cols_) * sizeof(T);
  }
  std::string detail() const override { return "ELL width " + std::to_string(width_); }

 private:
  std::int64_t width_ = 0;
  DeviceBuffer<std::int32_t> col_idx_;
  DeviceBuffer<T> values_;
  Launch launch_;
};

}  // namespace
}  // namespace spkit::cuda

namespace spkit {
namespace {
// Cost model: tuning::kCudaEllEfficiency of copy over its own bytes (padding included; net of the 5 us
// launch) on the stencils and FEM of docs/perf/data/gpu-bench-h100-large.csv. More than
// one padded slot per entry: pointless (HLL and HYB cover it), and the width can exhaust device memory.
CostEstimate ell_col_major_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  if (s.ell_padding_ratio > 1.0)
    return cost::not_applicable("ELL padding " + cost::percent(s.ell_padding_ratio) + " of the non-zeros (width " +
                                std::to_string(s.ell_width) + ")");
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::in(s.bytes_ell, p) + cost::vector_bytes(s, p);
  const tuning::CudaEfficiency eff = tuning::kCudaEllEfficiency;
  e.efficiency = cost::with_gathers(p == Precision::f64 ? eff.f64 : eff.f32, e.bytes, s, Backend::cuda);
  e.launch_us = 5;
  e.convert_bytes = cost::in(s.bytes_csr, p) + cost::in(s.bytes_ell, p);
  e.note = "width " + std::to_string(s.ell_width) + ", padding " + cost::percent(s.ell_padding_ratio);
  return e;
}
}  // namespace

void register_cuda_ell_kernels(Registry& reg) {
  KernelInfo k;
  k.name = "cuda.ell.col_major";
  k.format = Format::ell;
  k.backend = Backend::cuda;
  k.description = "ELLPACK column-major, one thread per row, coalesced (Bell & Garland's ELL kernel)";
  k.cost = ell_col_major_cost;
  add_kernel<cuda::EllColMajorPlan>(reg, std::move(k));
}
}  // namespace spkit
