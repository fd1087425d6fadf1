// cuda.csr.spmm_rowmajor: CSR SpMM with row-major X and Y, lanes over the k columns. G lanes share a row
// (G = k rounded up to a power of two, at most 32), so at k < 32 a warp serves 32/G rows and at k >= 32 a
// warp serves one row, each lane CPL columns (1, 2, 4 or 8: k up to 256 in one pass; beyond, more tiles of
// 32*CPL columns over gridDim.y). Every lane of a group reads the same entry of A (one broadcast load) and
// its own coalesced slice of row col of X; A is read once per column tile, X gathered through L1/L2, each
// entry of Y written once with alpha and beta.
#include <algorithm>

#include "spmm/cuda/spmm_cuda_common.cuh"

namespace spkit::cuda {
namespace {

template <int G, int CPL, bool BETA_ZERO, class T>
__global__ void __launch_bounds__(256)
    csr_spmm_rowmajor_kernel(std::int64_t rows, std::int64_t k, const std::int64_t* __restrict__ ptr,
                             const std::int32_t* __restrict__ col, const T* __restrict__ val, const T* __restrict__ x,
                             std::int64_t ldx, T alpha, T beta, T* __restrict__ y, std::int64_t ldy) {
  const std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
  if (row >= rows) return;  // no warp-wide operation below: a finished group may leave
  const int lane = static_cast<int>(threadIdx.x % G);
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.y) * (G * CPL) + lane;
  T acc[CPL];
#pragma unroll
  for (int t = 0; t < CPL; ++t) acc[t] = T(0);
  const std::int64_t end = ptr[row + 1];
  for (std::int64_t p = ptr[row]; p < end; ++p) {
    const T v = val[p];
    const T* xr = x + static_cast<std::int64_t>(col[p]) * ldx + c0;
#pragma unroll
    for (int t = 0; t < CPL; ++t)
      if (c0 + t * G < k) acc[t] += v * __ldg(xr + t * G);
  }
#pragma unroll
  for (int t = 0; t < CPL; ++t)
    if (c0 + t * G < k) store_axpby_fixed<BETA_ZERO>(y + row * ldy + c0 + t * G, alpha, acc[t], beta);
}

template <class T>
class CsrSpmmRowMajorPlan final : public CudaSpmmPlanBase<T> {
 public:
  CsrSpmmRowMajorPlan(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CudaSpmmPlanBase<T>(a, s, o, "cuda.csr.spmm_rowmajor", true, false) {
    group_ = 1;
    while (group_ < 32 && group_ < s.k) group_ *= 2;
    cpl_ = 1;
    while (group_ == 32 && cpl_ < 8 && 32 * cpl_ < s.k) cpl_ *= 2;
    tiles_ = (s.k + group_ * cpl_ - 1) / (group_ * cpl_);
    if (tiles_ > 65535) throw TooLarge("cuda.csr.spmm_rowmajor: k needs more than 65535 column tiles", 0);
    this->upload_csr(a);
  }
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->trivial_run(beta, y, ldx, ldy, s)) return;
    if (beta == T(0)) launch<true>(alpha, x, ldx, beta, y, ldy, s);
    else launch<false>(alpha, x, ldx, beta, y, ldy, s);
  }
  std::string detail() const override {
    return std::to_string(group_) + " lanes per row, " + std::to_string(cpl_) + " columns per lane, " +
           std::to_string(tiles_) + " column tile(s)";
  }

 private:
  template <bool BZ>
  void launch(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, cudaStream_t s) {
    const dim3 grid(static_cast<unsigned>(blocks_for(this->rows_ * group_, 256, this->props())),
                    static_cast<unsigned>(tiles_));
    auto go = [&](auto kernel) {
      kernel<<<grid, 256, 0, s>>>(this->rows_, this->shape_.k, this->row_ptr_.get(), this->col_idx_.get(),
                                  this->values_.get(), x, ldx, alpha, beta, y, ldy);
      SPKIT_LAUNCH_CHECK("csr_spmm_rowmajor_kernel");
    };
    switch (group_ * 16 + cpl_) {
      case 1 * 16 + 1: return go(csr_spmm_rowmajor_kernel<1, 1, BZ, T>);
      case 2 * 16 + 1: return go(csr_spmm_rowmajor_kernel<2, 1, BZ, T>);
      case 4 * 16 + 1: return go(csr_spmm_rowmajor_kernel<4, 1, BZ, T>);
      case 8 * 16 + 1: return go(csr_spmm_rowmajor_kernel<8, 1, BZ, T>);
      case 16 * 16 + 1: return go(csr_spmm_rowmajor_kernel<16, 1, BZ, T>);
      case 32 * 16 + 1: return go(csr_spmm_rowmajor_kernel<32, 1, BZ, T>);
      case 32 * 16 + 2: return go(csr_spmm_rowmajor_kernel<32, 2, BZ, T>);
      case 32 * 16 + 4: return go(csr_spmm_rowmajor_kernel<32, 4, BZ, T>);
      default: return go(csr_spmm_rowmajor_kernel<32, 8, BZ, T>);
    }
  }

  int group_ = 1, cpl_ = 1;
  std::int64_t tiles_ = 1;
};

}  // namespace

void register_cuda_csr_rowmajor_spmm(SpmmRegistry& reg) {
  SpmmKernelInfo k;
  k.name = "cuda.csr.spmm_rowmajor";
  k.backend = Backend::cuda;
  k.col_major = false;
  k.description = "CSR SpMM, row-major X/Y: lanes over the k columns (a warp per row at k >= 32, 32/k rows per "
                  "warp below), coalesced rows of X, A read once per column tile";
  add_spmm_kernel<CsrSpmmRowMajorPlan>(reg, std::move(k));
}

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_csr_rowmajor_spmm(SpmmRegistry& reg) { cuda::register_cuda_csr_rowmajor_spmm(reg); }
}  // namespace spkit
