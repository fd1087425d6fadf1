// cuda.spmv.per_column: Y = alpha*A*X + beta*Y as k products with the CUDA SpMV kernel spkit's selector picks
// for A, one per column of X, all enqueued on the caller's stream. SpMM `auto` takes it at k = 1 and on
// column-major blocks of few columns whose SpMV runs in DIA (a stencil's symmetric diagonals read half of A:
// lap3d 27-pt fp32 column-major k = 4 ran the SpMM at 0.63x four SpMVs on an H100). Column-major columns are
// contiguous; a row-major column (k > 1 or ld > 1) is gathered into a device vector by a strided 2-D copy
// and its result copied back.
#include "kernels/cuda/cuda_common.cuh"
#include "spmm/spmv_pick.hpp"
#include "spkit/spmm.hpp"

namespace spkit::cuda {
namespace {

template <class T>
class CudaSpmvColumns final : public SpmmPlan<T> {
 public:
  CudaSpmvColumns(const Csr<T>& a, const SpmmShape& shape, const PlanOptions& o)
      : rows_(a.rows), cols_(a.cols), shape_(shape) {
    if (shape.k < 1) throw Error("cuda.spmv.per_column: k must be at least 1 (got " + std::to_string(shape.k) + ")");
    set_device(o.device);
    spmv_ = spmm_detail::plan_spmv_pick(a, Backend::cuda, o, 1, "cuda.spmv.per_column", &kernel_);
    if (shape.layout == DenseLayout::row_major) {  // even k = 1: a leading dimension over 1 strides the column
      x_ = DeviceBuffer<T>(static_cast<std::size_t>(std::max<std::int64_t>(cols_, 1)), "per-column SpMM x");
      y_ = DeviceBuffer<T>(static_cast<std::size_t>(std::max<std::int64_t>(rows_, 1)), "per-column SpMM y");
    }
  }

  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) override {
    check_spmm_leading_dims(rows_, cols_, shape_, ldx, ldy);
    if (shape_.layout == DenseLayout::col_major || (ldx == 1 && ldy == 1)) {
      const bool col = shape_.layout == DenseLayout::col_major;
      for (std::int64_t c = 0; c < shape_.k; ++c)
        spmv_->run(alpha, x + (col ? c * ldx : c), beta, y + (col ? c * ldy : c), stream);
      return;
    }
    const cudaStream_t s = cuda_stream(stream);
    const auto strided = [&](T* to, std::int64_t to_step, const T* from, std::int64_t from_step, std::int64_t n) {
      if (n == 0) return;
      SPKIT_CUDA_CHECK(cudaMemcpy2DAsync(to, to_step * sizeof(T), from, from_step * sizeof(T), sizeof(T),
                                         static_cast<std::size_t>(n), cudaMemcpyDeviceToDevice, s));
    };
    for (std::int64_t c = 0; c < shape_.k; ++c) {
      strided(x_.get(), 1, x + c, ldx, cols_);
      if (beta != T(0)) strided(y_.get(), 1, y + c, ldy, rows_);  // beta == 0: Y is not read
      spmv_->run(alpha, x_.get(), beta, y_.get(), stream);
      strided(y + c, ldy, y_.get(), 1, rows_);
    }
  }
  Backend backend() const override { return Backend::cuda; }
  // k products, each moving what the SpMV kernel moves (A read k times).
  std::uint64_t bytes_moved() const override { return spmv_->bytes_moved() * static_cast<std::uint64_t>(shape_.k); }
  std::string detail() const override {
    const std::string d = spmv_->detail();
    return std::to_string(shape_.k) + " x SpMV " + kernel_ + (d.empty() ? "" : " (" + d + ")");
  }

 private:
  std::int64_t rows_, cols_;
  SpmmShape shape_;
  std::string kernel_;
  std::unique_ptr<SpmvPlan<T>> spmv_;
  DeviceBuffer<T> x_, y_;  // one gathered column of X and of Y (row-major)
};

}  // namespace

void register_cuda_spmv_columns_spmm(SpmmRegistry& reg) {
  SpmmKernelInfo k;
  k.name = "cuda.spmv.per_column";
  k.backend = Backend::cuda;
  k.description = "one product per column with the CUDA SpMV kernel spkit's selector picks for A (row-major "
                  "columns gathered by strided copies): SpMM auto's choice at k = 1 and for few column-major "
                  "columns of a DIA matrix";
  add_spmm_kernel<CudaSpmvColumns>(reg, std::move(k));
}

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_spmv_columns_spmm(SpmmRegistry& reg) { cuda::register_cuda_spmv_columns_spmm(reg); }
}  // namespace spkit
