#pragma once
// What the CUDA SpMM plans share: the checks of the shape, the device, the byte count and Y = beta Y for a
// matrix without non-zeros (over rows x k with its leading dimension, never reading Y when beta == 0).
#include <cstdint>
#include <string>

#include "kernels/cuda/cuda_common.cuh"
#include "spkit/spmm.hpp"

namespace spkit::cuda {

template <class T>
class CudaSpmmPlanBase : public SpmmPlan<T> {
 public:
  CudaSpmmPlanBase(const Csr<T>& a, const SpmmShape& shape, const PlanOptions& o, const char* name, bool row_major,
                   bool col_major)
      : shape_(shape), device_(o.device), rows_(a.rows), cols_(a.cols), nnz_(a.nnz()) {
    if (shape.k < 1) throw Error(std::string(name) + ": k must be at least 1");
    if ((shape.layout == DenseLayout::row_major && !row_major) || (shape.layout == DenseLayout::col_major && !col_major))
      throw NotApplicable(std::string(name) + " does not handle " + std::string(to_string(shape.layout)) +
                          "-major X and Y");
    props_ = &device_props(device_);
    set_device(device_);
  }
  Backend backend() const final { return Backend::cuda; }
  std::uint64_t bytes_moved() const override {
    return static_cast<std::uint64_t>(rows_ + 1) * 8 + static_cast<std::uint64_t>(nnz_) * (4 + sizeof(T)) +
           static_cast<std::uint64_t>(rows_ + cols_) * static_cast<std::uint64_t>(shape_.k) * sizeof(T);
  }

 protected:
  // Uploads A as CSR (64-bit row offsets) for the spkit kernels; nothing when it has no non-zeros.
  void upload_csr(const Csr<T>& a) {
    if (nnz_ == 0) return;
    row_ptr_ = DeviceBuffer<std::int64_t>(a.row_ptr, "SpMM CSR row_ptr");
    col_idx_ = DeviceBuffer<std::int32_t>(a.col_idx, "SpMM CSR col_idx");
    values_ = DeviceBuffer<T>(a.values, "SpMM CSR values");
  }
  // The checks and the cases with nothing to launch every run() begins with: true when the product is
  // done (no rows, or Y = beta Y enqueued for a matrix without non-zeros).
  bool trivial_run(T beta, T* y, std::int64_t ldx, std::int64_t ldy, cudaStream_t stream) const {
    check_spmm_leading_dims(rows_, cols_, shape_, ldx, ldy);
    if (rows_ == 0) return true;
    if (nnz_ == 0) { scale_y(beta, y, ldy, stream); return true; }
    return false;
  }
  // Y = beta Y on `stream` (Y = 0 when beta == 0): the product of a matrix without non-zeros.
  void scale_y(T beta, T* y, std::int64_t ldy, cudaStream_t stream) const;
  const DeviceProps& props() const { return *props_; }

  SpmmShape shape_;
  int device_;
  std::int64_t rows_, cols_, nnz_;
  DeviceBuffer<std::int64_t> row_ptr_;
  DeviceBuffer<std::int32_t> col_idx_;
  DeviceBuffer<T> values_;

 private:
  const DeviceProps* props_ = nullptr;
};

}  // namespace spkit::cuda
