// CUDA DIA kernels (formats/dia.hpp, untiled [diagonal][row] layout): one thread per row, so each
// diagonal is read coalesced and x is read unit-stride (mostly from L1/L2: neighbouring diagonals
// touch the same x lines). No index is read. cuda.dia.sym stores only the diagonals d >= 0 of an
// exactly symmetric matrix and reads the mirror a(i,i-d) = a(i-d,i) at slot i-d of the same diagonal:
// that slot was streamed by the thread block of row i-d shortly before and comes back from L2, so DRAM
// carries about half the values.
#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/format_costs.hpp"
#include "spkit/formats/dia.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

template <class T>
__global__ void dia_kernel(std::int64_t rows, std::int64_t cols, std::int64_t diagonals,
                           const std::int64_t* __restrict__ offsets, const T* __restrict__ values, T alpha,
                           const T* __restrict__ x, T beta, T* __restrict__ y) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x;
  const std::int64_t row = first + threadIdx.x;
  const std::int64_t last = min(first + static_cast<std::int64_t>(blockDim.x), rows) - 1;
  // Uniform per thread block: every diagonal lands inside the matrix for every row of the block.
  const bool interior = first + offsets[0] >= 0 && last + offsets[diagonals - 1] < cols;
  if (row >= rows) return;
  T sum = 0;
  if (interior) {
#pragma unroll 4
    for (std::int64_t k = 0; k < diagonals; ++k) sum += values[k * rows + row] * x[row + offsets[k]];
  } else {
    for (std::int64_t k = 0; k < diagonals; ++k) {
      const std::int64_t col = row + offsets[k];
      if (col >= 0 && col < cols) sum += values[k * rows + row] * x[col];
    }
  }
  store_axpby(y + row, alpha, sum, beta);
}

template <class T>
__global__ void dia_sym_kernel(std::int64_t rows, std::int64_t diagonals, const std::int64_t* __restrict__ offsets,
                               const T* __restrict__ values, T alpha, const T* __restrict__ x, T beta,
                               T* __restrict__ y) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x;
  const std::int64_t row = first + threadIdx.x;
  const std::int64_t last = min(first + static_cast<std::int64_t>(blockDim.x), rows) - 1;
  const std::int64_t reach = offsets[diagonals - 1];
  const bool interior = first - reach >= 0 && last + reach < rows;
  if (row >= rows) return;
  T sum = 0;
  std::int64_t k = 0;
  if (offsets[0] == 0) {  // the main diagonal has no mirror (a symmetric matrix may lack it)
    sum = values[row] * x[row];
    k = 1;
  }
  if (interior) {
#pragma unroll 4
    for (; k < diagonals; ++k) {
      const std::int64_t d = offsets[k];
      const T* v = values + k * rows;
      sum += v[row] * x[row + d] + v[row - d] * x[row - d];
    }
  } else {
    for (; k < diagonals; ++k) {
      const std::int64_t d = offsets[k];
      const T* v = values + k * rows;
      if (row + d < rows) sum += v[row] * x[row + d];
      if (row - d >= 0) sum += v[row - d] * x[row - d];
    }
  }
  store_axpby(y + row, alpha, sum, beta);
}

template <class T, bool SYMMETRIC>
class DiaPlan : public CudaSpmvPlan<T> {
 public:
  DiaPlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o) {
    DiaOptions d;
    d.symmetric = SYMMETRIC;
    d.max_bytes_ratio = kDiaKernelMaxBytesRatio;
    // Before the host conversion: refuse what is not worth it (NotApplicable), then what cannot fit.
    const DiaShape shape = dia_shape(a, d);
    check_dia_worthwhile(shape, d, a.rows);
    check_device_fits(shape.bytes, "DIA of this matrix");
    FormatLimits limits;
    limits.memory_budget_bytes = o.memory_budget_bytes;
    const Dia<T> dia = csr_to_dia(a, d, limits);
    diagonals_ = dia.diagonals();
    slots_ = dia.values.size();
    offsets_ = DeviceBuffer<std::int64_t>(dia.offsets, "DIA offsets");
    values_ = DeviceBuffer<T>(dia.values, "DIA values");
    launch_.block = dim3(default_block_threads(this->props()));
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, launch_.block.x, this->props())));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->handle_trivial(beta, y, s)) return;
    if constexpr (SYMMETRIC) {
      dia_sym_kernel<T><<<launch_.grid, launch_.block, 0, s>>>(this->rows_, diagonals_, offsets_.get(), values_.get(),
                                                               alpha, x, beta, y);
      SPKIT_LAUNCH_CHECK("dia_sym_kernel");
    } else {
      dia_kernel<T><<<launch_.grid, launch_.block, 0, s>>>(this->rows_, this->cols_, diagonals_, offsets_.get(),
                                                           values_.get(), alpha, x, beta, y);
      SPKIT_LAUNCH_CHECK("dia_kernel");
    }
  }
  // The stored slots once (padding included; the symmetric mirror reads are L2 re-reads, not counted).
  std::uint64_t bytes_moved() const override {
    return values_.bytes() + offsets_.bytes() + static_cast<std::uint64_t>(this->rows_ + this->cols_) * sizeof(T);
  }
  std::string detail() const override {
    if (SYMMETRIC) return std::to_string(diagonals_) + " diagonals d >= 0 stored (symmetric)";
    const double pad = slots_ ? 100.0 * (static_cast<double>(slots_) - static_cast<double>(this->nnz_)) / slots_ : 0.0;
    return std::to_string(diagonals_) + " diagonals, padding " + std::to_string(static_cast<int>(pad + 0.5)) + "%";
  }

 private:
  std::int64_t diagonals_ = 0;
  std::size_t slots_ = 0;
  DeviceBuffer<std::int64_t> offsets_;
  DeviceBuffer<T> values_;
  Launch launch_;
};

template <class T> using DiaFullPlan = DiaPlan<T, false>;
template <class T> using DiaSymPlan = DiaPlan<T, true>;

}  // namespace
}  // namespace spkit::cuda

namespace spkit {
void register_cuda_dia_kernels(Registry& reg) {
  // Efficiencies: tuning::kCudaDiaEfficiency and kCudaDiaSymEfficiency (docs/perf/cuda-dia-bm.md).
  KernelInfo full;
  full.name = "cuda.dia";
  full.format = Format::dia;
  full.backend = Backend::cuda;
  full.description = "DIA, thread per row, each diagonal read coalesced, no indices";
  full.cost = [](const MatrixStats& s, Precision p, const PlanOptions&) {
    const tuning::CudaEfficiency eff = tuning::kCudaDiaEfficiency;
    return dia_cost(s, p, false, 0, p == Precision::f64 ? eff.f64 : eff.f32, 5.0);
  };
  add_kernel<cuda::DiaFullPlan>(reg, std::move(full));
  KernelInfo sym;
  sym.name = "cuda.dia.sym";
  sym.format = Format::dia;
  sym.backend = Backend::cuda;
  sym.description = "symmetric DIA: diagonals d >= 0 only, mirror a(i,i-d) read at slot i-d (from L2)";
  sym.cost = [](const MatrixStats& s, Precision p, const PlanOptions&) {
    const tuning::CudaEfficiency eff = tuning::kCudaDiaSymEfficiency;
    return dia_cost(s, p, true, 0, p == Precision::f64 ? eff.f64 : eff.f32, 5.0);
  };
  add_kernel<cuda::DiaSymPlan>(reg, std::move(sym));
}
}  // namespace spkit
