// CudaSpmmPlanBase::scale_y: Y = beta Y over the rows x k operand, padding untouched.
#include "spmm/cuda/spmm_cuda_common.cuh"

namespace spkit::cuda {

namespace {
// One thread per (line, entry): line = row (row-major) or column (column-major), `width` entries used.
template <class T>
__global__ void __launch_bounds__(256) spmm_scale_kernel(std::int64_t lines, std::int64_t width, std::int64_t ld,
                                                         T beta, T* __restrict__ y) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= lines * width) return;
  T* p = y + (t / width) * ld + t % width;
  *p = beta == T(0) ? T(0) : beta * *p;
}
}  // namespace

template <class T>
void CudaSpmmPlanBase<T>::scale_y(T beta, T* y, std::int64_t ldy, cudaStream_t stream) const {
  const bool row = shape_.layout == DenseLayout::row_major;
  const std::int64_t lines = row ? rows_ : shape_.k, width = row ? shape_.k : rows_;
  if (lines * width == 0) return;
  const std::int64_t blocks = blocks_for(lines * width, 256, props());
  spmm_scale_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(lines, width, ldy, beta, y);
  SPKIT_LAUNCH_CHECK("spmm_scale_kernel");
}

template class CudaSpmmPlanBase<float>;
template class CudaSpmmPlanBase<double>;

}  // namespace spkit::cuda
