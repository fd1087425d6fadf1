#pragma once
// CSR on the device as the host holds it (64-bit row offsets): the input of the CSR kernels and of the
// on-device conversions to ELL / HLL (convert.cuh).
#include <cstdint>

#include "kernels/cuda/cuda_common.cuh"
#include "spkit/formats/csr.hpp"

namespace spkit::cuda {

template <class T>
struct DeviceCsr {
  std::int64_t rows = 0, cols = 0;
  DeviceBuffer<std::int64_t> row_ptr;
  DeviceBuffer<std::int32_t> col_idx;
  DeviceBuffer<T> values;
  explicit DeviceCsr(const Csr<T>& a)
      : rows(a.rows), cols(a.cols), row_ptr(a.row_ptr, "CSR row_ptr"), col_idx(a.col_idx, "CSR col_idx"),
        values(a.values, "CSR values") {}
};

}  // namespace spkit::cuda
