// CUDA SELL-C-sigma kernels (Kreutzer et al. 2014; layout in spkit/formats/sell.hpp): one thread per slice row,
// slices column-major so a warp's loads of one column of a slice are contiguous (C = 32: one warp per
// slice, the 16/32-bit branch uniform per warp). cuda.sell.c32 keeps 32-bit column indices;
// cuda.sell.delta16 reads 16-bit deltas where a slice allows them (4 -> 2 bytes per slot).
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/sell_cost.hpp"
#include "spkit/formats/sell.hpp"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

template <class T>
struct DeviceSell {
  DeviceBuffer<std::int32_t> perm;
  DeviceBuffer<std::int64_t> slice_offset;
  DeviceBuffer<std::int32_t> slice_width;
  DeviceBuffer<std::int32_t> slice_col_base;
  DeviceBuffer<std::int64_t> slice_col_offset;
  DeviceBuffer<std::uint16_t> col_delta16;
  DeviceBuffer<std::int32_t> col_idx32;
  DeviceBuffer<T> values;
  DeviceSell() = default;
  explicit DeviceSell(const Sell<T>& s)
      : perm(s.perm, "SELL permutation"),
        slice_offset(s.slice_offset, "SELL slice offsets"),
        slice_width(s.slice_width, "SELL slice widths"),
        slice_col_base(s.slice_col_base, "SELL slice column bases"),
        slice_col_offset(s.slice_col_offset, "SELL slice column offsets"),
        col_delta16(s.col_delta16, "SELL 16-bit column deltas"),
        col_idx32(s.col_idx32, "SELL 32-bit column indices"),
        values(s.values, "SELL values") {}
};

// Thread per slice row i (slice i / c, row i % c within it); y written through perm (null: identity).
// Four columns per step so each thread has several independent loads in flight.
template <class T>
__global__ void __launch_bounds__(256) sell_kernel(std::int64_t rows, int c, const std::int64_t* __restrict__ slice_offset,
                                                   const std::int32_t* __restrict__ slice_width,
                                                   const std::int32_t* __restrict__ slice_col_base,
                                                   const std::int64_t* __restrict__ slice_col_offset,
                                                   const std::uint16_t* __restrict__ col_delta16,
                                                   const std::int32_t* __restrict__ col_idx32,
                                                   const T* __restrict__ values, const std::int32_t* __restrict__ perm,
                                                   T alpha, const T* __restrict__ x, T beta, T* __restrict__ y) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const std::int64_t s = i / c;
  const int r = static_cast<int>(i - s * c);
  const int w = slice_width[s];
  const std::int32_t base = slice_col_base[s];
  const T* v = values + slice_offset[s] + r;
  T sum = 0;
  if (base >= 0) {
    const std::uint16_t* d = col_delta16 + slice_col_offset[s] + r;
    std::int32_t col = base;
#pragma unroll 4
    for (int k = 0; k < w; ++k) {
      col += d[static_cast<std::int64_t>(k) * c];
      sum += v[static_cast<std::int64_t>(k) * c] * __ldg(x + col);
    }
  } else {
    const std::int32_t* ci = col_idx32 + slice_col_offset[s] + r;
#pragma unroll 4
    for (int k = 0; k < w; ++k) sum += v[static_cast<std::int64_t>(k) * c] * __ldg(x + ci[static_cast<std::int64_t>(k) * c]);
  }
  store_axpby(y + (perm ? perm[i] : i), alpha, sum, beta);
}

template <class T, SellIndex I>
class SellPlan : public CudaSpmvPlan<T> {
 public:
  SellPlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o) {
    // The host copy lives only while it is uploaded; the plan keeps what bytes_moved()/detail() need.
    const Sell<T> s = csr_to_sell(a, I, o.hack_size, kSellDefaultSigma, FormatLimits{o.memory_budget_bytes});
    check_device_fits(s.spmv_bytes(), "SELL-C-sigma arrays");
    m_ = DeviceSell<T>(s);
    slice_height_ = s.slice_height;
    sigma_ = s.sigma;
    format_bytes_ = s.spmv_bytes();
    slots_ = s.slots();
    slices_ = s.slices();
    slices_16bit_ = s.slices_16bit();
    launch_.block = dim3(default_block_threads(this->props()));
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(this->rows_, launch_.block.x, this->props())));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    if (this->handle_trivial(beta, y, cuda_stream(stream))) return;
    sell_kernel<T><<<launch_.grid, launch_.block, 0, cuda_stream(stream)>>>(
        this->rows_, slice_height_, m_.slice_offset.get(), m_.slice_width.get(), m_.slice_col_base.get(),
        m_.slice_col_offset.get(), m_.col_delta16.get(), m_.col_idx32.get(), m_.values.get(), m_.perm.get(), alpha, x,
        beta, y);
    SPKIT_LAUNCH_CHECK("sell_kernel");
  }
  std::uint64_t bytes_moved() const override {
    return format_bytes_ + static_cast<std::uint64_t>(this->rows_ + this->cols_) * sizeof(T);
  }
  std::string detail() const override {
    char pad[32];
    std::snprintf(pad, sizeof pad, "%.3f", this->nnz_ > 0 ? static_cast<double>(slots_) / static_cast<double>(this->nnz_) : 0.0);
    return "C " + std::to_string(slice_height_) + ", sigma " + std::to_string(sigma_) + ", padding " + pad + "x, " +
           std::to_string(slices_16bit_) + "/" + std::to_string(slices_) + " slices 16-bit" +
           (m_.perm.size() == 0 ? ", no permutation" : "");
  }

 private:
  DeviceSell<T> m_;
  int slice_height_ = kSellDefaultSliceHeight, sigma_ = 1;
  std::uint64_t format_bytes_ = 0;
  std::int64_t slots_ = 0, slices_ = 0, slices_16bit_ = 0;
  Launch launch_;
};

template <class T> using SellC32Plan = SellPlan<T, SellIndex::c32>;
template <class T> using SellDelta16Plan = SellPlan<T, SellIndex::delta16>;

// Efficiency (fraction of copy bandwidth on the format's own bytes) from docs/perf/cuda-csr-sell.md.
// Beyond 2x padding SELL is not applicable: one warp walks a whole wide slice (31 ms on power-law).
CostModel sell_cost(SellIndex index) {
  return [index](const MatrixStats& st, Precision p, const PlanOptions& o) {
    CostEstimate e;
    if (o.hack_size != kSellDefaultSliceHeight) {
      e.note = "cost model made for C = 32";
      return e;
    }
    const std::size_t vb = p == Precision::f64 ? 8 : 4;
    e.bytes = sell_spmv_bytes(st, vb, index);
    e.applicable = st.sell_padding_ratio < 1.0;  // beyond 2x the slots, CSR kernels move fewer bytes
    // Measured on the own-format bytes (H100, 16 M nnz, with the window sort's permutation on the
    // stencil and FEM matrices): 27-point stencil and FEM 76-84 % (c32) / 70-78 % (delta16) fp64,
    // 74-83 % / 59-68 % fp32; random 8 per row (x gathers) 50 % fp64, 36 % fp32.
    const bool f64 = p == Precision::f64;
    if (st.row_nnz_mean >= 16)
      e.efficiency = index == SellIndex::c32 ? (f64 ? tuning::kCudaSellC32Efficiency.f64 : tuning::kCudaSellC32Efficiency.f32)
                                             : (f64 ? tuning::kCudaSellDelta16Efficiency.f64
                                                    : tuning::kCudaSellDelta16Efficiency.f32);
    else
      e.efficiency = f64 ? tuning::kCudaSellShortRowEfficiency.f64 : tuning::kCudaSellShortRowEfficiency.f32;
    e.launch_us = 4;
    e.convert_bytes = static_cast<std::uint64_t>(st.nnz) * (vb + 4) * 3;
    e.note = "SELL padding " + std::to_string(st.sell_padding_ratio) +
             (index == SellIndex::delta16 ? ", 16-bit share " + std::to_string(st.sell_delta16_fraction) : "");
    return e;
  };
}

}  // namespace
}  // namespace spkit::cuda

namespace spkit {
void register_cuda_sell_kernels(Registry& reg) {
  const auto info = [](const char* name, const char* description, SellIndex index) {
    KernelInfo k;
    k.name = name;
    k.format = Format::sell;
    k.backend = Backend::cuda;
    k.description = description;
    k.cost = cuda::sell_cost(index);
    return k;
  };
  add_kernel<cuda::SellC32Plan>(reg, info("cuda.sell.c32",
                                          "Kreutzer et al.'s SELL-C-sigma (C = hack size, sigma 1024), thread per row, "
                                          "32-bit column indices",
                                          SellIndex::c32));
  add_kernel<cuda::SellDelta16Plan>(reg, info("cuda.sell.delta16",
                                              "Kreutzer et al.'s SELL-C-sigma with 16-bit column deltas per slice where "
                                              "they fit, else 32-bit (ours)",
                                              SellIndex::delta16));
}
}  // namespace spkit
