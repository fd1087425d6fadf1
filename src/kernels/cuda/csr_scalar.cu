// CUDA CSR-scalar (Bell & Garland 2009): one thread per row, register accumulator.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/cost_model.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/device_csr.cuh"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"

namespace spkit::cuda {
namespace {

// Row indices are 64-bit: rows * lanes can exceed 2^31 in the other CSR kernels; kept alike here.
template <class T>
__global__ void csr_scalar_kernel(std::int64_t rows, const std::int64_t* row_ptr, const std::int32_t* col_idx,
                                  const T* values, T alpha, const T* x, T beta, T* y) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  T sum = 0;
  for (std::int64_t j = row_ptr[row]; j < row_ptr[row + 1]; ++j) sum += values[j] * x[col_idx[j]];
  store_axpby(y + row, alpha, sum, beta);
}

template <class T>
class CsrScalarPlan : public CudaSpmvPlan<T> {
 public:
  CsrScalarPlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o), m_(a) {
    launch_.block = dim3(default_block_threads(this->props()));
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, launch_.block.x, this->props())));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    // No non-zeros needs no special case: every row sums to 0, so the kernel writes beta*y.
    if (this->rows_ == 0) return;
    csr_scalar_kernel<T><<<launch_.grid, launch_.block, 0, cuda_stream(stream)>>>(
        this->rows_, m_.row_ptr.get(), m_.col_idx.get(), m_.values.get(), alpha, x, beta, y);
    SPKIT_LAUNCH_CHECK("csr_scalar_kernel");
  }
  std::uint64_t bytes_moved() const override { return this->csr_bytes(); }
  std::string detail() const override { return "thread per row, " + std::to_string(launch_.block.x) + " threads/block"; }

 private:
  DeviceCsr<T> m_;
  Launch launch_;
};

// Cost model. Efficiencies: own bytes over median time as a fraction of the H100's copy bandwidth, from
// docs/perf/data/gpu-bench-h100-large.csv (16M non-zeros per matrix), net of the 5 us launch
// (docs/perf/selector.md has the fit). CSR plans count 64-bit row offsets.
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

}  // namespace

}  // namespace spkit::cuda

namespace spkit {

void register_cuda_csr_scalar_kernels(Registry& reg) {
  using namespace cuda;
  KernelInfo k;
  k.name = "cuda.csr.scalar";
  k.format = Format::csr;
  k.backend = Backend::cuda;
  k.description = "CSR, one thread per row (Bell & Garland's CSR-scalar)";
  k.cost = csr_scalar_cost;
  add_kernel<CsrScalarPlan>(reg, std::move(k));
}

}  // namespace spkit
