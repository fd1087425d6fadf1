// Comparison kernel ref.mkl.spmm: Intel MKL's inspector-executor SpMM (mkl_sparse_?_mm) on general CSR,
// called as a user who knows MKL calls it: at plan time an mm hint naming the layout and k and promising
// many calls, the aggressive memory hint and mkl_sparse_optimize (in the plan time, and on its own in
// optimize_ms); run() is one mkl_sparse_?_mm, which takes alpha, beta and both leading dimensions itself.
// Zero-based CSR takes row- and column-major dense matrices for the non-transposed general product.
// LP64 interface (32-bit MKL_INT), as ref.mkl.csr: larger matrices and leading dimensions are refused.
#include "kernels/ref/mkl_layers.hpp"
#include <mkl.h>
#include <mkl_spblas.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/spmm.hpp"

namespace spkit {
namespace {

void check_mkl_mm(sparse_status_t s, const char* call) {
  if (s != SPARSE_STATUS_SUCCESS)
    throw Error(std::string("MKL ") + call + " failed with sparse_status_t " + std::to_string(static_cast<int>(s)));
}

constexpr std::int64_t kMklIntMax = std::numeric_limits<MKL_INT>::max();

template <class T>
class MklSpmmPlan final : public SpmmPlan<T> {
 public:
  MklSpmmPlan(const Csr<T>& a, const SpmmShape& shape, const PlanOptions& opts)
      : shape_(shape), threads_(opts.threads), rows_(a.rows), cols_(a.cols) {
    if (shape.k < 1) throw Error("ref.mkl.spmm: k must be at least 1");
    if (a.nnz() >= kMklIntMax || a.rows >= kMklIntMax || a.cols >= kMklIntMax || shape.k >= kMklIntMax)
      throw TooLarge("ref.mkl.spmm uses MKL's 32-bit (LP64) interface; this product needs 64-bit indices",
                     static_cast<std::uint64_t>(a.nnz()) * (sizeof(T) + 8));
    if (a.rows == 0 || a.cols == 0) throw NotApplicable("MKL sparse handles need at least one row and one column");
    row_ptr_.assign(a.row_ptr.begin(), a.row_ptr.end());
    col_idx_.assign(a.col_idx.begin(), a.col_idx.end());
    values_ = a.values;
    descr_.type = SPARSE_MATRIX_TYPE_GENERAL;
    descr_.mode = SPARSE_FILL_MODE_FULL;
    descr_.diag = SPARSE_DIAG_NON_UNIT;
    mkl_set_num_threads_local(threads_);
    sparse_status_t s;
    if constexpr (sizeof(T) == 8)
      s = mkl_sparse_d_create_csr(&handle_, SPARSE_INDEX_BASE_ZERO, static_cast<MKL_INT>(rows_),
                                  static_cast<MKL_INT>(cols_), row_ptr_.data(), row_ptr_.data() + 1, col_idx_.data(),
                                  values_.data());
    else
      s = mkl_sparse_s_create_csr(&handle_, SPARSE_INDEX_BASE_ZERO, static_cast<MKL_INT>(rows_),
                                  static_cast<MKL_INT>(cols_), row_ptr_.data(), row_ptr_.data() + 1, col_idx_.data(),
                                  values_.data());
    check_mkl_mm(s, "mkl_sparse_?_create_csr");
    created_ = true;
    check_mkl_mm(mkl_sparse_set_mm_hint(handle_, SPARSE_OPERATION_NON_TRANSPOSE, descr_, layout(),
                                        static_cast<MKL_INT>(shape.k), 1000000),
                 "mkl_sparse_set_mm_hint");
    check_mkl_mm(mkl_sparse_set_memory_hint(handle_, SPARSE_MEMORY_AGGRESSIVE), "mkl_sparse_set_memory_hint");
    const auto t0 = std::chrono::steady_clock::now();
    check_mkl_mm(mkl_sparse_optimize(handle_), "mkl_sparse_optimize");
    optimize_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  ~MklSpmmPlan() override {
    if (created_) mkl_sparse_destroy(handle_);
  }
  MklSpmmPlan(const MklSpmmPlan&) = delete;
  MklSpmmPlan& operator=(const MklSpmmPlan&) = delete;

  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream) override {
    check_spmm_leading_dims(rows_, cols_, shape_, ldx, ldy);
    if (ldx >= kMklIntMax || ldy >= kMklIntMax) throw TooLarge("ref.mkl.spmm: leading dimension over 2^31-1", 0);
    mkl_set_num_threads_local(threads_);
    const auto k = static_cast<MKL_INT>(shape_.k), lx = static_cast<MKL_INT>(ldx), ly = static_cast<MKL_INT>(ldy);
    sparse_status_t s;
    if constexpr (sizeof(T) == 8)
      s = mkl_sparse_d_mm(SPARSE_OPERATION_NON_TRANSPOSE, alpha, handle_, descr_, layout(), x, k, lx, beta, y, ly);
    else
      s = mkl_sparse_s_mm(SPARSE_OPERATION_NON_TRANSPOSE, alpha, handle_, descr_, layout(), x, k, lx, beta, y, ly);
    check_mkl_mm(s, "mkl_sparse_?_mm");
  }
  Backend backend() const override { return Backend::cpu; }
  std::uint64_t bytes_moved() const override {
    return values_.size() * (sizeof(T) + sizeof(MKL_INT)) + row_ptr_.size() * sizeof(MKL_INT) +
           static_cast<std::uint64_t>(rows_ + cols_) * static_cast<std::uint64_t>(shape_.k) * sizeof(T);
  }
  std::string detail() const override {
    char buf[160];
    std::snprintf(buf, sizeof buf, "MKL general CSR, %s-major, %d threads, mkl_sparse_optimize %.1f ms",
                  shape_.layout == DenseLayout::row_major ? "row" : "column", threads_, optimize_ms_);
    return buf;
  }
  double optimize_ms() const override { return optimize_ms_; }

 private:
  sparse_layout_t layout() const {
    return shape_.layout == DenseLayout::row_major ? SPARSE_LAYOUT_ROW_MAJOR : SPARSE_LAYOUT_COLUMN_MAJOR;
  }

  SpmmShape shape_;
  int threads_;
  std::int64_t rows_, cols_;
  std::vector<MKL_INT> row_ptr_, col_idx_;
  std::vector<T> values_;
  matrix_descr descr_{};
  sparse_matrix_t handle_ = nullptr;
  bool created_ = false;
  double optimize_ms_ = 0;
};

}  // namespace

void register_ref_mkl_spmm(SpmmRegistry& reg) {
  ref::select_mkl_layers();  // before MKL's first call
  SpmmKernelInfo k;
  k.name = "ref.mkl.spmm";
  k.parallel = true;
  k.comparison = true;
  k.description = "Intel MKL inspector-executor CSR SpMM mkl_sparse_?_mm (mm hint + mkl_sparse_optimize at plan "
                  "time), row- and column-major";
  add_spmm_kernel<MklSpmmPlan>(reg, std::move(k));
}

}  // namespace spkit
