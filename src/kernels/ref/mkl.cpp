// Comparison kernel ref.mkl.csr: Intel MKL's inspector-executor SpMV, called the way a user who
// knows MKL calls it: mkl_sparse_?_create_csr, an mv hint promising many calls, the aggressive
// memory hint and mkl_sparse_optimize, all at plan time (so MKL's preprocessing shows up in
// conversion_ms); run() is one mkl_sparse_?_mv.
//
// Index width: the LP64 interface (32-bit MKL_INT) is used, so row pointers are copied to int and
// the matrix must have nnz, rows, cols < 2^31; beyond that the plan throws TooLarge. (MKL's _64
// entry points would take it, at the cost of 64-bit column indices: 4 more bytes per non-zero,
// which would make the comparison with our 32-bit-column CSR unfair anyway.)
#include <mkl.h>
#include <mkl_spblas.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/kernel.hpp"

namespace spkit {
namespace {

const char* mkl_status_text(sparse_status_t s) {
  switch (s) {
    case SPARSE_STATUS_SUCCESS: return "success";
    case SPARSE_STATUS_NOT_INITIALIZED: return "not initialized";
    case SPARSE_STATUS_ALLOC_FAILED: return "allocation failed";
    case SPARSE_STATUS_INVALID_VALUE: return "invalid value";
    case SPARSE_STATUS_EXECUTION_FAILED: return "execution failed";
    case SPARSE_STATUS_INTERNAL_ERROR: return "internal error";
    case SPARSE_STATUS_NOT_SUPPORTED: return "not supported";
  }
  return "unknown status";
}

void check_mkl(sparse_status_t s, const char* call) {
  if (s != SPARSE_STATUS_SUCCESS) throw Error(std::string("MKL ") + call + " failed: " + mkl_status_text(s));
}

template <class T>
class MklCsrPlan final : public CpuSpmvPlan<T> {
 public:
  MklCsrPlan(const Csr<T>& a, const PlanOptions& opts) : rows_(a.rows), cols_(a.cols), threads_(opts.threads) {
    constexpr std::int64_t limit = std::numeric_limits<MKL_INT>::max();
    if (a.nnz() >= limit || a.rows >= limit || a.cols >= limit)
      throw TooLarge("ref.mkl.csr uses MKL's 32-bit (LP64) interface; this matrix needs 64-bit indices",
                     static_cast<std::uint64_t>(a.nnz()) * (sizeof(T) + 8));
    if (a.rows == 0 || a.cols == 0) throw NotApplicable("MKL sparse handles need at least one row and one column");
    row_ptr_.assign(a.row_ptr.begin(), a.row_ptr.end());
    col_idx_.assign(a.col_idx.begin(), a.col_idx.end());
    values_ = a.values;
    descr_.type = SPARSE_MATRIX_TYPE_GENERAL;
    descr_.mode = SPARSE_FILL_MODE_FULL;
    descr_.diag = SPARSE_DIAG_NON_UNIT;
    mkl_set_num_threads_local(threads_);  // optimize may tune for the thread count it will run with
    sparse_status_t s;
    if constexpr (sizeof(T) == 8)
      s = mkl_sparse_d_create_csr(&handle_, SPARSE_INDEX_BASE_ZERO, static_cast<MKL_INT>(rows_),
                                  static_cast<MKL_INT>(cols_), row_ptr_.data(), row_ptr_.data() + 1,
                                  col_idx_.data(), values_.data());
    else
      s = mkl_sparse_s_create_csr(&handle_, SPARSE_INDEX_BASE_ZERO, static_cast<MKL_INT>(rows_),
                                  static_cast<MKL_INT>(cols_), row_ptr_.data(), row_ptr_.data() + 1,
                                  col_idx_.data(), values_.data());
    check_mkl(s, "mkl_sparse_?_create_csr");
    created_ = true;
    check_mkl(mkl_sparse_set_mv_hint(handle_, SPARSE_OPERATION_NON_TRANSPOSE, descr_, 1000000),
              "mkl_sparse_set_mv_hint");
    check_mkl(mkl_sparse_set_memory_hint(handle_, SPARSE_MEMORY_AGGRESSIVE), "mkl_sparse_set_memory_hint");
    const auto t0 = std::chrono::steady_clock::now();
    check_mkl(mkl_sparse_optimize(handle_), "mkl_sparse_optimize");
    optimize_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  ~MklCsrPlan() override {
    if (created_) mkl_sparse_destroy(handle_);
  }
  MklCsrPlan(const MklCsrPlan&) = delete;
  MklCsrPlan& operator=(const MklCsrPlan&) = delete;

  void run(const T* x, T* y) override {
    mkl_set_num_threads_local(threads_);
    sparse_status_t s;
    if constexpr (sizeof(T) == 8)
      s = mkl_sparse_d_mv(SPARSE_OPERATION_NON_TRANSPOSE, 1.0, handle_, descr_, x, 0.0, y);
    else
      s = mkl_sparse_s_mv(SPARSE_OPERATION_NON_TRANSPOSE, 1.0f, handle_, descr_, x, 0.0f, y);
    check_mkl(s, "mkl_sparse_?_mv");
  }
  std::uint64_t bytes_moved() const override {
    return values_.size() * (sizeof(T) + sizeof(MKL_INT)) + row_ptr_.size() * sizeof(MKL_INT) +
           static_cast<std::uint64_t>(rows_ + cols_) * sizeof(T);
  }
  std::string detail() const override {
    char buf[96];
    std::snprintf(buf, sizeof buf, "MKL %d threads, mkl_sparse_optimize %.1f ms", threads_, optimize_ms_);
    return buf;
  }

 private:
  std::int64_t rows_, cols_;
  int threads_;
  std::vector<MKL_INT> row_ptr_, col_idx_;
  std::vector<T> values_;
  matrix_descr descr_{};
  sparse_matrix_t handle_ = nullptr;
  bool created_ = false;
  double optimize_ms_ = 0;
};

}  // namespace

void register_ref_mkl_kernels(Registry& reg) {
  // libmkl_rt picks its threading layer at the first call: choose GNU OpenMP, the runtime spkit
  // itself uses, so that MKL's threads and ours never oversubscribe the cores; LP64 indices.
  mkl_set_threading_layer(MKL_THREADING_GNU);
  mkl_set_interface_layer(MKL_INTERFACE_LP64);
  add_kernel<MklCsrPlan>(reg, "ref.mkl.csr", Format::csr, Backend::cpu, /*parallel=*/true,
                         "Intel MKL inspector-executor CSR SpMV (mv hint + mkl_sparse_optimize at plan time)",
                         /*comparison=*/true);
}

}  // namespace spkit
