#pragma once
// The column-major ELLPACK SpMV kernel, shared by cuda.ell.col_major and the ELL part of cuda.hyb:
// one thread per row; consecutive threads read consecutive elements of each column (coalesced).
// Writes y = alpha*A_ell*x + beta*y (HYB adds its COO part afterwards).
#include <cstdint>

#include "kernels/cuda/cuda_common.cuh"

namespace spkit::cuda {

template <class T>
__global__ void ell_col_major_kernel(std::int64_t rows, std::int64_t width, const std::int32_t* __restrict__ col_idx,
                                     const T* __restrict__ values, T alpha, const T* __restrict__ x, T beta,
                                     T* __restrict__ y) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  T sum = 0;
  for (std::int64_t k = 0; k < width; ++k) {
    const std::int64_t at = k * rows + row;
    sum += values[at] * x[col_idx[at]];  // padding: value 0 at a valid column
  }
  store_axpby(y + row, alpha, sum, beta);
}

}  // namespace spkit::cuda
