// The CUDA scatter of Plan::apply_transpose for few transposed products (src/plan/transpose_plan.hpp):
// y = beta y, then a warp per row i of A adds alpha a_ij x_i into y_j with atomicAdd (a native instruction for
// float and double since sm_60: hub columns serialize on their address, nothing else does). The order of the
// adds into one y_j changes from run to run, so results may differ in the last bits between runs; the cached
// A^T does not.
#include "kernels/cuda/cuda_common.cuh"
#include "plan/transpose_plan.hpp"

namespace spkit::plan_detail {
namespace {

template <class T>
__global__ void transpose_scatter_kernel(std::int64_t rows, const std::int64_t* __restrict__ ptr,
                                    const std::int32_t* __restrict__ col, const T* __restrict__ val, T alpha,
                                    const T* __restrict__ x, T* y) {
  const std::int64_t i = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (i >= rows) return;
  const T xi = alpha * x[i];
  for (std::int64_t p = ptr[i] + threadIdx.x % 32; p < ptr[i + 1]; p += 32) atomicAdd(y + col[p], val[p] * xi);
}

template <class T>
class CudaScatterTransposePlan final : public SpmvPlan<T> {
 public:
  CudaScatterTransposePlan(const Csr<T>& a, int device) : device_(device), rows_(a.rows), cols_(a.cols), nnz_(a.nnz()) {
    cuda::set_device(device_);
    if (nnz_ > 0) {
      ptr_ = cuda::DeviceBuffer<std::int64_t>(a.row_ptr, "A^T scatter row_ptr");
      col_ = cuda::DeviceBuffer<std::int32_t>(a.col_idx, "A^T scatter col_idx");
      val_ = cuda::DeviceBuffer<T>(a.values, "A^T scatter values");
    }
  }
  // y (cols elements) = alpha A^T x (x: rows elements) + beta y.
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    const cudaStream_t s = cuda::cuda_stream(stream);
    const cuda::DeviceProps& props = cuda::device_props(device_);
    cuda::scale_vector(beta, y, cols_, props, s);
    if (nnz_ == 0) return;
    transpose_scatter_kernel<T><<<static_cast<unsigned>(cuda::blocks_for(rows_ * 32, 256, props)), 256, 0, s>>>(
        rows_, ptr_.get(), col_.get(), val_.get(), alpha, x, y);
    SPKIT_LAUNCH_CHECK("A^T scatter");
  }
  Backend backend() const override { return Backend::cuda; }
  std::uint64_t bytes_moved() const override {  // A once, x once, y read and written (beta pass) and updated
    return static_cast<std::uint64_t>(nnz_) * (sizeof(T) + sizeof(std::int32_t)) +
           static_cast<std::uint64_t>(rows_ + 1) * sizeof(std::int64_t) + static_cast<std::uint64_t>(rows_) * sizeof(T) +
           3 * static_cast<std::uint64_t>(cols_) * sizeof(T);
  }
  std::string detail() const override { return "scatter of A's rows into y with atomic adds (a warp per row)"; }

 private:
  int device_;
  std::int64_t rows_, cols_, nnz_;
  cuda::DeviceBuffer<std::int64_t> ptr_;
  cuda::DeviceBuffer<std::int32_t> col_;
  cuda::DeviceBuffer<T> val_;
};

}  // namespace

template <class T>
std::unique_ptr<SpmvPlan<T>> make_cuda_scatter_transpose_plan(const Csr<T>& a, int device) {
  return std::make_unique<CudaScatterTransposePlan<T>>(a, device);
}

template std::unique_ptr<SpmvPlan<float>> make_cuda_scatter_transpose_plan(const Csr<float>&, int);
template std::unique_ptr<SpmvPlan<double>> make_cuda_scatter_transpose_plan(const Csr<double>&, int);

}  // namespace spkit::plan_detail
