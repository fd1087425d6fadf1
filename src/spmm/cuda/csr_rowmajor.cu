// cuda.csr.spmm_rowmajor: CSR SpMM with row-major X and Y by row splitting (csr_rowsplit.cuh): A's rows
// loaded coalesced and shuffle-broadcast, lanes over the k columns in 16-byte vectors, rows binned by
// length into groups, warps and blocks; a badly numbered matrix's short rows launched in RCM order
// (src/spmm/row_order.hpp), A, X and Y left as given.
#include "spmm/cuda/csr_rowsplit.cuh"
#include "spmm/row_order.hpp"

namespace spkit::cuda {
namespace {

template <class T>
class CsrSpmmRowMajorPlan final : public CudaSpmmPlanBase<T> {
 public:
  CsrSpmmRowMajorPlan(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CudaSpmmPlanBase<T>(a, s, o, "cuda.csr.spmm_rowmajor", true, false),
        order_(spmm_detail::locality_row_order(a, s.k, tuning::kSpmmRowOrderGpuLineBytes,
                                               tuning::kSpmmRowOrderGpuWarpRowBytes)),
        schedule_(a, s.k, "cuda.csr.spmm_rowmajor", order_.rows) {
    this->upload_csr(a);
  }
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->trivial_run(beta, y, ldx, ldy, s)) return;
    schedule_.template launch<false>(this->props(), this->rows_, this->shape_.k, this->row_ptr_.get(),
                                     this->col_idx_.get(), this->values_.get(), alpha, x, ldx, beta, y, ldy, s);
  }
  std::string detail() const override {
    return schedule_.detail() + (order_.rows.empty() ? "" : ", " + order_.reason);
  }

 private:
  spmm_detail::RowOrder order_;  // empty: rows in their natural order
  RowSplitSchedule<T> schedule_;
};

}  // namespace

void register_cuda_csr_rowmajor_spmm(SpmmRegistry& reg) {
  SpmmKernelInfo k;
  k.name = "cuda.csr.spmm_rowmajor";
  k.backend = Backend::cuda;
  k.col_major = false;
  k.description = "CSR SpMM, row-major X/Y: row splitting after Yang, Buluç and Owens (2018): A's row loaded "
                  "coalesced and shuffle-broadcast, lanes over k columns in 16-byte vectors, long rows cut into chunks "
                  "of a block each, a badly numbered matrix's rows visited in reverse Cuthill-McKee order";
  add_spmm_kernel<CsrSpmmRowMajorPlan>(reg, std::move(k));
}

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_csr_rowmajor_spmm(SpmmRegistry& reg) { cuda::register_cuda_csr_rowmajor_spmm(reg); }
}  // namespace spkit
