#pragma once
// What the CUDA SpMM plans share: the checks of the shape, the device, the byte count, Y = beta Y for a
// matrix without non-zeros (over rows x k with its leading dimension, never reading Y when beta == 0) and
// the binning of rows by length.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_common.cuh"
#include "spkit/spmm.hpp"
#include "tuning.hpp"

namespace spkit::cuda {

// Rows binned by length at plan time, for kernels whose groups of lanes share a warp: a row over
// warp_row_nnz takes a whole warp (from warp_rows), one over tuning::kSpmmCudaLongRowNnz a block (from
// long_rows), so that no row holds a warp, and the other rows in it, far longer than the mean.
struct RowBins {
  std::int64_t warp_row_nnz = 0, warp_count = 0, long_count = 0;
  DeviceBuffer<std::int64_t> warp_rows, long_rows;
};
// narrow: the kernel's groups are narrower than a warp (else only the block bin applies). block_list: upload
// the rows over tuning::kSpmmCudaLongRowNnz (a kernel that cuts them into chunks itself passes false; they
// are still counted and left out of the other bins).
template <class T>
RowBins bin_rows(const Csr<T>& a, bool narrow, bool block_list = true) {
  RowBins b;
  const double mean = a.rows > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(a.rows) : 0.0;
  b.warp_row_nnz = narrow ? std::max<std::int64_t>(32, static_cast<std::int64_t>(tuning::kSpmmCudaWarpRowMeans * mean))
                          : tuning::kSpmmCudaLongRowNnz;
  b.warp_row_nnz = std::min(b.warp_row_nnz, tuning::kSpmmCudaLongRowNnz);
  std::vector<std::int64_t> warp_rows, long_rows;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::int64_t len = a.row_ptr[i + 1] - a.row_ptr[i];
    if (len > tuning::kSpmmCudaLongRowNnz) long_rows.push_back(i);
    else if (len > b.warp_row_nnz) warp_rows.push_back(i);
  }
  b.warp_count = static_cast<std::int64_t>(warp_rows.size());
  b.long_count = static_cast<std::int64_t>(long_rows.size());
  if (!warp_rows.empty()) b.warp_rows = DeviceBuffer<std::int64_t>(warp_rows, "SpMM warp-row list");
  if (block_list && !long_rows.empty()) b.long_rows = DeviceBuffer<std::int64_t>(long_rows, "SpMM long-row list");
  return b;
}
// "N rows of over W non-zeros a warp each, M of over L a block", for detail().
inline std::string describe(const RowBins& b) {
  return std::to_string(b.warp_count) + " rows of over " + std::to_string(b.warp_row_nnz) + " non-zeros a warp each, " +
         std::to_string(b.long_count) + " of over " + std::to_string(tuning::kSpmmCudaLongRowNnz) + " a block";
}

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
