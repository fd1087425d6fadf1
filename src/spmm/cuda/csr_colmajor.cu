// cuda.csr.spmm_colmajor: CSR SpMM with column-major X and Y. G lanes share a row (4..32, from the mean
// row length, tuning::kSpmmCudaEntriesPerLane) and stride over its non-zeros: each lane reads its entries
// of A once per tile of CT columns (CT = min(G, k rounded up to a power of two); more tiles over
// gridDim.y) and gathers X(col, c) for the CT columns into CT register partial sums. The group then sums
// the CT columns at once with a reduce-scatter butterfly: at each offset a lane keeps half of its columns
// and trades the other half with its partner (CT - 1 shuffles in all rather than CT log G), so that lane c
// holds column c's sum, and writes Y(row, c) with alpha and beta.
#include <algorithm>
#include <cmath>

#include "spmm/cuda/spmm_cuda_common.cuh"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

template <int G, int CT, bool BETA_ZERO, class T>
__global__ void __launch_bounds__(256)
    csr_spmm_colmajor_kernel(std::int64_t rows, std::int64_t k, const std::int64_t* __restrict__ ptr,
                             const std::int32_t* __restrict__ col, const T* __restrict__ val, const T* __restrict__ x,
                             std::int64_t ldx, T alpha, T beta, T* __restrict__ y, std::int64_t ldy) {
  static_assert(CT <= G && G <= 32, "a group reduces at most G columns");
  const std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  const int lane = static_cast<int>(threadIdx.x % G);
  const bool active = row < rows;  // inactive groups still take part in the warp's shuffles
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.y) * CT;
  T acc[CT];
#pragma unroll
  for (int t = 0; t < CT; ++t) acc[t] = T(0);
  const std::int64_t begin = active ? ptr[row] : 0, end = active ? ptr[row + 1] : 0;
  for (std::int64_t p = begin + lane; p < end; p += G) {
    const T v = val[p];
    const T* xc = x + c0 * ldx + col[p];
#pragma unroll
    for (int t = 0; t < CT; ++t)
      if (c0 + t < k) acc[t] += v * __ldg(xc + t * ldx);
  }
  // Reduce-scatter over the low log2(CT) lane bits: afterwards acc[0] holds column (lane & (CT - 1)) summed
  // over the lanes that differ in those bits.
#pragma unroll
  for (int o = CT / 2; o >= 1; o /= 2) {
    const bool upper = (lane & o) != 0;
#pragma unroll
    for (int i = 0; i < o; ++i) {
      const T send = upper ? acc[i] : acc[i + o];
      const T keep = upper ? acc[i + o] : acc[i];
      acc[i] = keep + __shfl_xor_sync(0xffffffffu, send, o);
    }
  }
  T sum = acc[0];
#pragma unroll
  for (int o = CT; o < G; o *= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (active && lane < CT && c0 + lane < k) store_axpby_fixed<BETA_ZERO>(y + (c0 + lane) * ldy + row, alpha, sum, beta);
}

template <class T>
class CsrSpmmColMajorPlan final : public CudaSpmmPlanBase<T> {
 public:
  CsrSpmmColMajorPlan(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CudaSpmmPlanBase<T>(a, s, o, "cuda.csr.spmm_colmajor", false, true) {
    const double mean = a.rows > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(a.rows) : 0.0;
    group_ = 4;
    while (group_ < 32 && 2 * group_ <= mean / tuning::kSpmmCudaEntriesPerLane) group_ *= 2;
    tile_ = 1;
    while (tile_ < group_ && tile_ < s.k) tile_ *= 2;
    tiles_ = (s.k + tile_ - 1) / tile_;
    if (tiles_ > 65535) throw TooLarge("cuda.csr.spmm_colmajor: k needs more than 65535 column tiles", 0);
    this->upload_csr(a);
  }
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->trivial_run(beta, y, ldx, ldy, s)) return;
    if (beta == T(0)) launch<true>(alpha, x, ldx, beta, y, ldy, s);
    else launch<false>(alpha, x, ldx, beta, y, ldy, s);
  }
  std::string detail() const override {
    return std::to_string(group_) + " lanes per row, " + std::to_string(tile_) + "-column tiles (" +
           std::to_string(tiles_) + ")";
  }

 private:
  template <bool BZ>
  void launch(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, cudaStream_t s) {
    const dim3 grid(static_cast<unsigned>(blocks_for(this->rows_ * group_, 256, this->props())),
                    static_cast<unsigned>(tiles_));
    auto go = [&](auto kernel) {
      kernel<<<grid, 256, 0, s>>>(this->rows_, this->shape_.k, this->row_ptr_.get(), this->col_idx_.get(),
                                  this->values_.get(), x, ldx, alpha, beta, y, ldy);
      SPKIT_LAUNCH_CHECK("csr_spmm_colmajor_kernel");
    };
    switch (group_) {
      case 4: return with_tile<4, BZ>(go);
      case 8: return with_tile<8, BZ>(go);
      case 16: return with_tile<16, BZ>(go);
      default: return with_tile<32, BZ>(go);
    }
  }
  template <int G, bool BZ, class Go>
  void with_tile(Go&& go) {
    switch (tile_) {
      case 1: return go(csr_spmm_colmajor_kernel<G, 1, BZ, T>);
      case 2: return go(csr_spmm_colmajor_kernel<G, 2, BZ, T>);
      case 4: return go(csr_spmm_colmajor_kernel<G, 4, BZ, T>);
    }
    if constexpr (G >= 8) {
      if (tile_ == 8) return go(csr_spmm_colmajor_kernel<G, 8, BZ, T>);
    }
    if constexpr (G >= 16) {
      if (tile_ == 16) return go(csr_spmm_colmajor_kernel<G, 16, BZ, T>);
    }
    if constexpr (G >= 32) {
      if (tile_ == 32) return go(csr_spmm_colmajor_kernel<G, 32, BZ, T>);
    }
    throw Error("cuda.csr.spmm_colmajor: no kernel for " + std::to_string(tile_) + "-column tiles");
  }

  int group_ = 4, tile_ = 1;
  std::int64_t tiles_ = 1;
};

}  // namespace

void register_cuda_csr_colmajor_spmm(SpmmRegistry& reg) {
  SpmmKernelInfo k;
  k.name = "cuda.csr.spmm_colmajor";
  k.backend = Backend::cuda;
  k.row_major = false;
  k.description = "CSR SpMM, column-major X/Y: 4-32 lanes per row over its non-zeros, each entry of A read once "
                  "per tile of up to 32 columns, columns summed by a reduce-scatter shuffle butterfly";
  add_spmm_kernel<CsrSpmmColMajorPlan>(reg, std::move(k));
}

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_csr_colmajor_spmm(SpmmRegistry& reg) { cuda::register_cuda_csr_colmajor_spmm(reg); }
}  // namespace spkit
