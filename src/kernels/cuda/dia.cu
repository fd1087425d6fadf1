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

namespace spkit::cuda {
namespace {

// ROWS rows per thread, blockDim.x apart (so each load instruction stays coalesced): each diagonal's
// offset is read once for ROWS rows and each thread keeps ROWS independent loads in flight.
template <class T, int ROWS>
__global__ void dia_kernel(std::int64_t rows, std::int64_t cols, std::int64_t diagonals,
                           const std::int64_t* __restrict__ offsets, const T* __restrict__ values,
                           const T* __restrict__ x, T* __restrict__ y) {
  const std::int64_t span = static_cast<std::int64_t>(blockDim.x) * ROWS;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * span;
  const std::int64_t row = first + threadIdx.x;
  const std::int64_t last = min(first + span, rows) - 1;
  // Uniform per thread block: every diagonal lands inside the matrix for every row of the block.
  const bool interior = last == first + span - 1 && first + offsets[0] >= 0 && last + offsets[diagonals - 1] < cols;
  if (row >= rows) return;
  T sum[ROWS] = {};
  if (interior) {
#pragma unroll 4
    for (std::int64_t k = 0; k < diagonals; ++k) {
      const T* v = values + k * rows + row;
      const T* xs = x + row + offsets[k];
#pragma unroll
      for (int j = 0; j < ROWS; ++j) sum[j] += v[j * blockDim.x] * xs[j * blockDim.x];
    }
  } else {
    for (std::int64_t k = 0; k < diagonals; ++k)
#pragma unroll
      for (int j = 0; j < ROWS; ++j) {
        const std::int64_t r = row + j * static_cast<std::int64_t>(blockDim.x), col = r + offsets[k];
        if (r < rows && col >= 0 && col < cols) sum[j] += values[k * rows + r] * x[col];
      }
  }
#pragma unroll
  for (int j = 0; j < ROWS; ++j)
    if (row + j * static_cast<std::int64_t>(blockDim.x) < rows) y[row + j * blockDim.x] = sum[j];
}

template <class T, int ROWS>
__global__ void dia_sym_kernel(std::int64_t rows, std::int64_t diagonals, const std::int64_t* __restrict__ offsets,
                               const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y) {
  const std::int64_t span = static_cast<std::int64_t>(blockDim.x) * ROWS;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * span;
  const std::int64_t row = first + threadIdx.x;
  const std::int64_t last = min(first + span, rows) - 1;
  const std::int64_t reach = offsets[diagonals - 1];
  const bool interior = last == first + span - 1 && first - reach >= 0 && last + reach < rows;
  if (row >= rows) return;
  T sum[ROWS] = {};
  std::int64_t k = 0;
  if (offsets[0] == 0) {  // the main diagonal has no mirror (a symmetric matrix may lack it)
#pragma unroll
    for (int j = 0; j < ROWS; ++j) {
      const std::int64_t r = row + j * static_cast<std::int64_t>(blockDim.x);
      if (r < rows) sum[j] = values[r] * x[r];
    }
    k = 1;
  }
  if (interior) {
#pragma unroll 4
    for (; k < diagonals; ++k) {
      const std::int64_t d = offsets[k];
      const T* v = values + k * rows + row;
      const T* xs = x + row;
#pragma unroll
      for (int j = 0; j < ROWS; ++j) {
        const int at = j * blockDim.x;
        sum[j] += v[at] * xs[at + d] + v[at - d] * xs[at - d];
      }
    }
  } else {
    for (; k < diagonals; ++k) {
      const std::int64_t d = offsets[k];
      const T* v = values + k * rows;
#pragma unroll
      for (int j = 0; j < ROWS; ++j) {
        const std::int64_t r = row + j * static_cast<std::int64_t>(blockDim.x);
        if (r < rows && r + d < rows) sum[j] += v[r] * x[r + d];
        if (r < rows && r - d >= 0) sum[j] += v[r - d] * x[r - d];
      }
    }
  }
#pragma unroll
  for (int j = 0; j < ROWS; ++j)
    if (row + j * static_cast<std::int64_t>(blockDim.x) < rows) y[row + j * blockDim.x] = sum[j];
}

template <class T, bool SYMMETRIC, int ROWS>
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
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, launch_.block.x * ROWS, this->props())));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(const T* x, T* y) override {
    if (this->handle_trivial(y)) return;
    if constexpr (SYMMETRIC) {
      dia_sym_kernel<T, ROWS><<<launch_.grid, launch_.block>>>(this->rows_, diagonals_, offsets_.get(), values_.get(), x, y);
      SPKIT_LAUNCH_CHECK("dia_sym_kernel");
    } else {
      dia_kernel<T, ROWS><<<launch_.grid, launch_.block>>>(this->rows_, this->cols_, diagonals_, offsets_.get(),
                                                     values_.get(), x, y);
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

template <class T> using DiaFullPlan = DiaPlan<T, false, 1>;
template <class T> using DiaSymPlan = DiaPlan<T, true, 1>;
template <class T> using DiaFullPlan2 = DiaPlan<T, false, 2>;
template <class T> using DiaSymPlan2 = DiaPlan<T, true, 2>;

}  // namespace
}  // namespace spkit::cuda

namespace spkit {
void register_cuda_dia_kernels(Registry& reg) {
  // Efficiencies: fraction of the H100's copy bandwidth over the kernel's own bytes (docs/perf/cuda-dia-bm.md).
  add_kernel<cuda::DiaFullPlan>(reg, "cuda.dia", Format::dia, Backend::cuda, false,
                                "DIA, thread per row, each diagonal read coalesced, no indices", false,
                                [](const MatrixStats& s, Precision p, const PlanOptions&) {
                                  return dia_cost(s, p, false, 0, 0.95, 5.0);
                                });
  add_kernel<cuda::DiaSymPlan>(reg, "cuda.dia.sym", Format::dia, Backend::cuda, false,
                               "symmetric DIA: diagonals d >= 0 only, mirror a(i,i-d) read at slot i-d (from L2)",
                               false, [](const MatrixStats& s, Precision p, const PlanOptions&) {
                                 return dia_cost(s, p, true, 0, 0.90, 5.0);
                               });
  // Variants with two rows per thread (blockDim apart), measured against the above.
  add_kernel<cuda::DiaFullPlan2>(reg, "cuda.dia.rows2", Format::dia, Backend::cuda, false,
                                 "DIA as cuda.dia, two rows per thread (offsets read once per two rows)");
  add_kernel<cuda::DiaSymPlan2>(reg, "cuda.dia.sym.rows2", Format::dia, Backend::cuda, false,
                                "symmetric DIA as cuda.dia.sym, two rows per thread");
}
}  // namespace spkit
