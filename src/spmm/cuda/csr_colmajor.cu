// cuda.csr.spmm_colmajor: CSR SpMM with column-major X and Y. X is transposed first into a row-major copy
// the plan owns (cols x k, rows padded to 16 bytes), then the row-split kernels of csr_rowsplit.cuh run
// on it and write Y column-major. A column-major X gathered in place costs one 32-byte sector per
// (entry, column) for 8 useful bytes (cuda.csr.spmm_colmajor_gather); the copy costs one read and one
// write of X and lets each entry fetch k consecutive values. A plan runs one product at a time: two
// concurrent runs of one plan would share the copy.
#include "spmm/cuda/csr_rowsplit.cuh"

namespace spkit::cuda {
namespace {

// Xt(j, c) = X(c, j): 32 x 32 tiles through shared memory (padded against bank conflicts), reads and
// writes coalesced. X: cols x k column-major with ldx; Xt: row-major with ldt.
template <class T>
__global__ void __launch_bounds__(256) transpose_kernel(std::int64_t cols, std::int64_t k, const T* __restrict__ x,
                                                        std::int64_t ldx, T* __restrict__ xt, std::int64_t ldt) {
  __shared__ T tile[32][33];
  const std::int64_t j0 = static_cast<std::int64_t>(blockIdx.x) * 32, c0 = static_cast<std::int64_t>(blockIdx.y) * 32;
  for (int r = static_cast<int>(threadIdx.y); r < 32; r += 8) {
    const std::int64_t c = c0 + r, j = j0 + threadIdx.x;
    if (c < k && j < cols) tile[r][threadIdx.x] = x[c * ldx + j];
  }
  __syncthreads();
  for (int r = static_cast<int>(threadIdx.y); r < 32; r += 8) {
    const std::int64_t j = j0 + r, c = c0 + threadIdx.x;
    if (c < k && j < cols) xt[j * ldt + c] = tile[threadIdx.x][r];
  }
}

template <class T>
class CsrSpmmColMajorPlan final : public CudaSpmmPlanBase<T> {
 public:
  static constexpr std::int64_t kVec = 16 / static_cast<std::int64_t>(sizeof(T));

  CsrSpmmColMajorPlan(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CudaSpmmPlanBase<T>(a, s, o, "cuda.csr.spmm_colmajor", false, true),
        schedule_(a, s.k, "cuda.csr.spmm_colmajor"),
        ldt_((s.k + kVec - 1) / kVec * kVec) {
    if ((a.cols + 31) / 32 > this->props().max_grid_x || (s.k + 31) / 32 > 65535)
      throw TooLarge("cuda.csr.spmm_colmajor: X of " + std::to_string(a.cols) + " x " + std::to_string(s.k) +
                     " is past the transpose's grid", 0);
    if (a.nnz() > 0) xt_ = DeviceBuffer<T>(static_cast<std::size_t>(a.cols * ldt_), "SpMM row-major copy of X");
    this->upload_csr(a);
  }
  std::uint64_t bytes_moved() const override {  // plus the copy of X: read once, written once
    return CudaSpmmPlanBase<T>::bytes_moved() +
           2 * static_cast<std::uint64_t>(this->cols_) * static_cast<std::uint64_t>(this->shape_.k) * sizeof(T);
  }
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->trivial_run(beta, y, ldx, ldy, s)) return;
    if (this->cols_ > 0) {
      const dim3 grid(static_cast<unsigned>((this->cols_ + 31) / 32), static_cast<unsigned>((this->shape_.k + 31) / 32));
      transpose_kernel<T><<<grid, dim3(32, 8), 0, s>>>(this->cols_, this->shape_.k, x, ldx, xt_.get(), ldt_);
      SPKIT_LAUNCH_CHECK("transpose_kernel");
    }
    schedule_.template launch<true>(this->props(), this->rows_, this->shape_.k, this->row_ptr_.get(),
                                    this->col_idx_.get(), this->values_.get(), alpha, xt_.get(), ldt_, beta, y, ldy, s);
  }
  std::string detail() const override { return "X transposed, then " + schedule_.detail(); }

 private:
  RowSplitSchedule<T> schedule_;
  std::int64_t ldt_;
  DeviceBuffer<T> xt_;
};

}  // namespace

void register_cuda_csr_colmajor_spmm(SpmmRegistry& reg) {
  SpmmKernelInfo k;
  k.name = "cuda.csr.spmm_colmajor";
  k.backend = Backend::cuda;
  k.row_major = false;
  k.description = "CSR SpMM, column-major X/Y: X transposed into a row-major copy, then row splitting after "
                  "Yang, Buluç and Owens (2018), Y written column-major";
  add_spmm_kernel<CsrSpmmColMajorPlan>(reg, std::move(k));
}

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_csr_colmajor_spmm(SpmmRegistry& reg) { cuda::register_cuda_csr_colmajor_spmm(reg); }
}  // namespace spkit
