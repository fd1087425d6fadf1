// CUDA HLL kernels (Monakov et al.'s sliced ELLPACK, "hacked" ELLPACK: ELL per hack of rows): thread per
// row and warp per row (shuffle or shared-memory reduction) on the row-major layout, and thread per row on
// the column-major layout (idx = k * hack_rows + r, coalesced).
#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda/convert.cuh"
#include "kernels/cost_model.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "spkit/formats/hll.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

template <class T>
struct DeviceHll {
  int hack_size = 32;
  DeviceBuffer<std::int64_t> hack_offset;
  DeviceBuffer<std::int32_t> hack_width;
  DeviceBuffer<std::int32_t> col_idx;
  DeviceBuffer<T> values;
  std::uint64_t bytes = 0;
  DeviceHll(const Csr<T>& a, const PlanOptions& o, Layout layout, const DeviceProps& props) {
    if (o.hack_size < 1) throw Error("HLL hack size must be at least 1, got " + std::to_string(o.hack_size));
    const std::uint64_t need = hll_bytes(a, o.hack_size);
    if (o.memory_budget_bytes && need > o.memory_budget_bytes)
      throw TooLarge("HLL of this matrix exceeds the memory budget", need);
    DeviceHllArrays<T> h = device_csr_to_hll(DeviceCsr<T>(a), o.hack_size, layout, props);  // on the GPU
    hack_size = o.hack_size;
    hack_offset = std::move(h.hack_offset);
    hack_width = std::move(h.hack_width);
    col_idx = std::move(h.col_idx);
    values = std::move(h.values);
    bytes = h.bytes;
  }
};

// Thread per row, row-major inside the hack (r * width + k).
template <class T>
__global__ void hll_thread_row_kernel(std::int64_t rows, int hack_size, const std::int64_t* hack_offset,
                                      const std::int32_t* hack_width, const std::int32_t* col_idx, const T* values,
                                      T alpha, const T* x, T beta, T* y) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const std::int64_t hack = row / hack_size, local = row % hack_size;
  const std::int64_t width = hack_width[hack];
  const std::int64_t base = hack_offset[hack] + local * width;
  T sum = 0;
  for (std::int64_t k = 0; k < width; ++k) sum += values[base + k] * x[col_idx[base + k]];
  store_axpby(y + row, alpha, sum, beta);
}

// Thread per row, column-major inside the hack (k * hack_rows + r).
template <class T>
__global__ void hll_col_major_kernel(std::int64_t rows, int hack_size, const std::int64_t* __restrict__ hack_offset,
                                     const std::int32_t* __restrict__ hack_width,
                                     const std::int32_t* __restrict__ col_idx, const T* __restrict__ values,
                                     T alpha, const T* __restrict__ x, T beta, T* __restrict__ y) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const std::int64_t hack = row / hack_size, local = row % hack_size;
  const std::int64_t hack_rows = min(static_cast<std::int64_t>(hack_size), rows - hack * hack_size);
  const std::int64_t width = hack_width[hack];
  const std::int64_t base = hack_offset[hack] + local;
  T sum = 0;
  for (std::int64_t k = 0; k < width; ++k) sum += values[base + k * hack_rows] * x[col_idx[base + k * hack_rows]];
  store_axpby(y + row, alpha, sum, beta);
}

// Warp per row over the row-major hack, reduced with shuffles
// (SHARED = false) or in a shared-memory slice per warp (SHARED = true).
template <class T, bool SHARED>
__global__ void hll_warp_row_kernel(std::int64_t rows, int hack_size, const std::int64_t* hack_offset,
                                    const std::int32_t* hack_width, const std::int32_t* col_idx, const T* values,
                                    T alpha, const T* x, T beta, T* y) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;  // uniform across the warp
  const int lane = threadIdx.x;
  const std::int64_t hack = row / hack_size, local = row % hack_size;
  const std::int64_t width = hack_width[hack];
  const std::int64_t base = hack_offset[hack] + local * width;
  T sum = 0;
  for (std::int64_t k = lane; k < width; k += kWarp) sum += values[base + k] * x[col_idx[base + k]];
  if (!SHARED) {
    sum = group_sum<kWarp>(sum);
    if (lane == 0) store_axpby(y + row, alpha, sum, beta);
  } else {
    sum = shared_warp_sum(reinterpret_cast<T*>(smem_raw) + threadIdx.y * kWarp, lane, sum);
    if (lane == 0) store_axpby(y + row, alpha, sum, beta);
  }
}

enum class HllKernel { thread_row, warp_row, warp_row_shared, col_major };

template <class T, HllKernel K>
class HllPlan : public CudaSpmvPlan<T> {
 public:
  HllPlan(const Csr<T>& a, const PlanOptions& o)
      : CudaSpmvPlan<T>(a, o), m_(a, o, K == HllKernel::col_major ? Layout::col_major : Layout::row_major, this->props()) {
    const int threads = default_block_threads(this->props());
    if (K == HllKernel::thread_row || K == HllKernel::col_major) {
      launch_.block = dim3(threads);
      launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, threads, this->props())));
    } else {
      const int warps = threads / kWarp;
      launch_.block = dim3(kWarp, warps);
      launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, warps, this->props())));
      launch_.shared_bytes = K == HllKernel::warp_row_shared ? static_cast<std::size_t>(threads) * sizeof(T) : 0;
    }
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->handle_trivial(beta, y, s)) return;
    const auto off = m_.hack_offset.get();
    const auto w = m_.hack_width.get();
    const auto ci = m_.col_idx.get();
    const auto v = m_.values.get();
    switch (K) {
      case HllKernel::thread_row:
        hll_thread_row_kernel<T><<<launch_.grid, launch_.block, 0, s>>>(this->rows_, m_.hack_size, off, w, ci, v, alpha,
                                                                        x, beta, y);
        SPKIT_LAUNCH_CHECK("hll_thread_row_kernel");
        break;
      case HllKernel::col_major:
        hll_col_major_kernel<T><<<launch_.grid, launch_.block, 0, s>>>(this->rows_, m_.hack_size, off, w, ci, v, alpha,
                                                                       x, beta, y);
        SPKIT_LAUNCH_CHECK("hll_col_major_kernel");
        break;
      case HllKernel::warp_row:
        hll_warp_row_kernel<T, false><<<launch_.grid, launch_.block, 0, s>>>(this->rows_, m_.hack_size, off, w, ci, v,
                                                                             alpha, x, beta, y);
        SPKIT_LAUNCH_CHECK("hll_warp_row_kernel");
        break;
      case HllKernel::warp_row_shared:
        hll_warp_row_kernel<T, true><<<launch_.grid, launch_.block, launch_.shared_bytes, s>>>(
            this->rows_, m_.hack_size, off, w, ci, v, alpha, x, beta, y);
        SPKIT_LAUNCH_CHECK("hll_warp_row_kernel<shared>");
        break;
    }
  }
  std::uint64_t bytes_moved() const override {
    return m_.bytes + static_cast<std::uint64_t>(this->rows_ + this->cols_) * sizeof(T);
  }
  std::string detail() const override {
    return "hack size " + std::to_string(m_.hack_size) + (K == HllKernel::col_major ? ", column-major" : ", row-major");
  }

 private:
  DeviceHll<T> m_;
  Launch launch_;
};

template <class T> using HllThreadRowPlan = HllPlan<T, HllKernel::thread_row>;
template <class T> using HllWarpRowPlan = HllPlan<T, HllKernel::warp_row>;
template <class T> using HllWarpRowSharedPlan = HllPlan<T, HllKernel::warp_row_shared>;
template <class T> using HllColMajorPlan = HllPlan<T, HllKernel::col_major>;

}  // namespace
}  // namespace spkit::cuda

namespace spkit {
namespace {
// Cost model: tuning::kCudaHllEfficiency of copy over its own bytes (net of the 5 us launch) on the
// regular matrices of docs/perf/data/gpu-bench-h100-large.csv. Padding above one slot per entry:
// pointless (HYB moves fewer bytes).
CostEstimate hll_col_major_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  if (o.hack_size != s.hack_size) return cost::not_applicable("statistics are for another hack size");
  if (s.hll_padding_ratio > 1.0)
    return cost::not_applicable("HLL padding " + cost::percent(s.hll_padding_ratio) + " of the non-zeros");
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::in(s.bytes_hll, p) + cost::vector_bytes(s, p);
  const tuning::CudaEfficiency eff = tuning::kCudaHllEfficiency;
  e.efficiency = cost::with_gathers(p == Precision::f64 ? eff.f64 : eff.f32, e.bytes, s, Backend::cuda);
  e.launch_us = 5;
  e.convert_bytes = cost::in(s.bytes_csr, p) + cost::in(s.bytes_hll, p);
  e.note = "hack " + std::to_string(s.hack_size) + ", padding " + cost::percent(s.hll_padding_ratio);
  return e;
}
}  // namespace

void register_cuda_hll_kernels(Registry& reg) {
  const auto info = [](const char* name, const char* description) {
    KernelInfo k;
    k.name = name;
    k.format = Format::hll;
    k.backend = Backend::cuda;
    k.description = description;
    return k;
  };
  add_kernel<cuda::HllThreadRowPlan>(reg, info("cuda.hll.thread_row", "HLL (Monakov et al.) row-major, one thread per row"));
  add_kernel<cuda::HllWarpRowPlan>(
      reg, info("cuda.hll.warp_row", "HLL (Monakov et al.) row-major, warp per row, shuffle reduction"));
  add_kernel<cuda::HllWarpRowSharedPlan>(
      reg, info("cuda.hll.warp_row_shared", "HLL (Monakov et al.) row-major, warp per row, shared-memory reduction"));
  KernelInfo col_major = info("cuda.hll.col_major", "HLL (Monakov et al.) column-major, one thread per row, coalesced");
  col_major.cost = hll_col_major_cost;
  add_kernel<cuda::HllColMajorPlan>(reg, std::move(col_major));
}
}  // namespace spkit
