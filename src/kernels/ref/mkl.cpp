// Comparison kernels ref.mkl.*: Intel MKL's inspector-executor SpMV, each called the way a user who
// knows MKL calls it, so that "MKL best" (the fastest of them per matrix) is MKL at its best:
//   ref.mkl.csr  general CSR
//   ref.mkl.sym  the upper triangle with SPARSE_MATRIX_TYPE_SYMMETRIC (fill mode upper, non-unit
//                diagonal): half the matrix bytes; only for exactly symmetric matrices
//   ref.mkl.bsr  BSR with the block size 2..8 that moves the fewest bytes, only when its fill (stored
//                block entries / non-zeros) stays at most kMaxBsrFill
// Each sets an mv hint promising many calls, the aggressive memory hint and calls mkl_sparse_optimize
// at plan time (so MKL's preprocessing is in conversion_ms, and on its own in optimize_ms); run() is
// one mkl_sparse_?_mv, which takes alpha and beta itself.
//
// Index width: the LP64 interface (32-bit MKL_INT) is used, so row pointers are copied to int and
// the matrix must have nnz, rows, cols < 2^31; beyond that the plan throws TooLarge. (MKL's _64
// entry points would take it, at the cost of 64-bit column indices: 4 more bytes per non-zero,
// which would make the comparison with our 32-bit-column CSR unfair anyway.)
#include "kernels/ref/mkl_layers.hpp"
#include <mkl.h>
#include <mkl_spblas.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"  // is_exactly_symmetric
#include "spkit/kernel.hpp"

namespace spkit {
namespace {

// BSR pays only while the blocks are nearly full: at most 1.5 stored entries per non-zero.
constexpr double kMaxBsrFill = 1.5;

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
void check_lp64(const Csr<T>& a, const char* name) {
  constexpr std::int64_t limit = std::numeric_limits<MKL_INT>::max();
  if (a.nnz() >= limit || a.rows >= limit || a.cols >= limit)
    throw TooLarge(std::string(name) + " uses MKL's 32-bit (LP64) interface; this matrix needs 64-bit indices",
                   static_cast<std::uint64_t>(a.nnz()) * (sizeof(T) + 8));
  if (a.rows == 0 || a.cols == 0) throw NotApplicable("MKL sparse handles need at least one row and one column");
}

// The handle's life, hints, optimize and mv, shared by the three layouts. The derived constructor
// fills the arrays, creates the handle (create()) and calls optimize().
template <class T>
class MklPlanBase : public CpuSpmvPlan<T> {
 public:
  ~MklPlanBase() override {
    if (created_) mkl_sparse_destroy(handle_);
  }
  MklPlanBase(const MklPlanBase&) = delete;
  MklPlanBase& operator=(const MklPlanBase&) = delete;

  void run(T alpha, const T* x, T beta, T* y, Stream) override { mv(alpha, x, beta, y); }
  double optimize_ms() const override { return optimize_ms_; }

 protected:
  MklPlanBase(const PlanOptions& opts, sparse_matrix_type_t type, sparse_fill_mode_t mode) : threads_(opts.threads) {
    descr_.type = type;
    descr_.mode = mode;
    descr_.diag = SPARSE_DIAG_NON_UNIT;
    mkl_set_num_threads_local(threads_);  // optimize may tune for the thread count it will run with
  }
  // y = alpha*A*x + beta*y by MKL (with beta == 0 MKL does not read y).
  void mv(T alpha, const T* x, T beta, T* y) {
    mkl_set_num_threads_local(threads_);
    sparse_status_t s;
    if constexpr (sizeof(T) == 8)
      s = mkl_sparse_d_mv(SPARSE_OPERATION_NON_TRANSPOSE, alpha, handle_, descr_, x, beta, y);
    else
      s = mkl_sparse_s_mv(SPARSE_OPERATION_NON_TRANSPOSE, alpha, handle_, descr_, x, beta, y);
    check_mkl(s, "mkl_sparse_?_mv");
  }
  void created(sparse_status_t s, const char* call) {
    check_mkl(s, call);
    created_ = true;
  }
  void optimize() {
    check_mkl(mkl_sparse_set_mv_hint(handle_, SPARSE_OPERATION_NON_TRANSPOSE, descr_, 1000000),
              "mkl_sparse_set_mv_hint");
    check_mkl(mkl_sparse_set_memory_hint(handle_, SPARSE_MEMORY_AGGRESSIVE), "mkl_sparse_set_memory_hint");
    const auto t0 = std::chrono::steady_clock::now();
    check_mkl(mkl_sparse_optimize(handle_), "mkl_sparse_optimize");
    optimize_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  std::string describe(const std::string& what) const {
    char buf[160];
    std::snprintf(buf, sizeof buf, "MKL %s, %d threads, mkl_sparse_optimize %.1f ms", what.c_str(), threads_,
                  optimize_ms_);
    return buf;
  }

  int threads_;
  matrix_descr descr_{};
  sparse_matrix_t handle_ = nullptr;

 private:
  bool created_ = false;
  double optimize_ms_ = 0;
};

// Creates a CSR handle over (row_ptr, col_idx, values), zero-based.
template <class T>
sparse_status_t create_csr(sparse_matrix_t* h, std::int64_t rows, std::int64_t cols, std::vector<MKL_INT>& row_ptr,
                           std::vector<MKL_INT>& col_idx, std::vector<T>& values) {
  if constexpr (sizeof(T) == 8)
    return mkl_sparse_d_create_csr(h, SPARSE_INDEX_BASE_ZERO, static_cast<MKL_INT>(rows), static_cast<MKL_INT>(cols),
                                   row_ptr.data(), row_ptr.data() + 1, col_idx.data(), values.data());
  else
    return mkl_sparse_s_create_csr(h, SPARSE_INDEX_BASE_ZERO, static_cast<MKL_INT>(rows), static_cast<MKL_INT>(cols),
                                   row_ptr.data(), row_ptr.data() + 1, col_idx.data(), values.data());
}

template <class T>
class MklCsrPlan final : public MklPlanBase<T> {
 public:
  MklCsrPlan(const Csr<T>& a, const PlanOptions& opts)
      : MklPlanBase<T>(opts, SPARSE_MATRIX_TYPE_GENERAL, SPARSE_FILL_MODE_FULL), rows_(a.rows), cols_(a.cols) {
    check_lp64(a, "ref.mkl.csr");
    row_ptr_.assign(a.row_ptr.begin(), a.row_ptr.end());
    col_idx_.assign(a.col_idx.begin(), a.col_idx.end());
    values_ = a.values;
    this->created(create_csr(&this->handle_, rows_, cols_, row_ptr_, col_idx_, values_), "mkl_sparse_?_create_csr");
    this->optimize();
  }
  std::uint64_t bytes_moved() const override {
    return values_.size() * (sizeof(T) + sizeof(MKL_INT)) + row_ptr_.size() * sizeof(MKL_INT) +
           static_cast<std::uint64_t>(rows_ + cols_) * sizeof(T);
  }
  std::string detail() const override { return this->describe("general CSR"); }

 private:
  std::int64_t rows_, cols_;
  std::vector<MKL_INT> row_ptr_, col_idx_;
  std::vector<T> values_;
};

template <class T>
class MklSymPlan final : public MklPlanBase<T> {
 public:
  MklSymPlan(const Csr<T>& a, const PlanOptions& opts)
      : MklPlanBase<T>(opts, SPARSE_MATRIX_TYPE_SYMMETRIC, SPARSE_FILL_MODE_UPPER), n_(a.rows) {
    check_lp64(a, "ref.mkl.sym");
    if (!is_exactly_symmetric(a))
      throw NotApplicable("ref.mkl.sym needs an exactly symmetric matrix (pattern and values)");
    // The upper triangle, diagonal included (columns are sorted: each row's tail from the diagonal on).
    row_ptr_.assign(static_cast<std::size_t>(n_) + 1, 0);
    for (std::int64_t i = 0; i < n_; ++i) {
      const auto first = a.col_idx.begin() + a.row_ptr[i], last = a.col_idx.begin() + a.row_ptr[i + 1];
      row_ptr_[i + 1] = row_ptr_[i] + static_cast<MKL_INT>(last - std::lower_bound(first, last, static_cast<std::int32_t>(i)));
    }
    col_idx_.resize(static_cast<std::size_t>(row_ptr_[n_]));
    values_.resize(col_idx_.size());
#pragma omp parallel for schedule(dynamic, 1024)
    for (std::int64_t i = 0; i < n_; ++i) {
      const std::int64_t len = row_ptr_[i + 1] - row_ptr_[i], src = a.row_ptr[i + 1] - len;
      std::copy(a.col_idx.begin() + src, a.col_idx.begin() + src + len, col_idx_.begin() + row_ptr_[i]);
      std::copy(a.values.begin() + src, a.values.begin() + src + len, values_.begin() + row_ptr_[i]);
    }
    this->created(create_csr(&this->handle_, n_, n_, row_ptr_, col_idx_, values_), "mkl_sparse_?_create_csr");
    this->optimize();
  }
  std::uint64_t bytes_moved() const override {
    return values_.size() * (sizeof(T) + sizeof(MKL_INT)) + row_ptr_.size() * sizeof(MKL_INT) +
           static_cast<std::uint64_t>(2 * n_) * sizeof(T);
  }
  std::string detail() const override {
    return this->describe("symmetric upper triangle (" + std::to_string(values_.size()) + " stored)");
  }

 private:
  std::int64_t n_;
  std::vector<MKL_INT> row_ptr_, col_idx_;
  std::vector<T> values_;
};

// Non-empty b x b blocks of `a` (block rows of b rows; a marker per block column, one array per thread).
template <class T>
std::int64_t count_blocks(const Csr<T>& a, int b) {
  const std::int64_t block_rows = (a.rows + b - 1) / b, block_cols = (a.cols + b - 1) / b;
  std::int64_t blocks = 0;
#pragma omp parallel reduction(+ : blocks)
  {
    std::vector<std::int64_t> seen(static_cast<std::size_t>(block_cols), -1);
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t br = 0; br < block_rows; ++br)
      for (std::int64_t i = br * b; i < std::min(a.rows, (br + 1) * b); ++i)
        for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
          const std::int64_t bc = a.col_idx[k] / b;
          if (seen[bc] != br) seen[bc] = br, ++blocks;
        }
  }
  return blocks;
}

template <class T>
class MklBsrPlan final : public MklPlanBase<T> {
 public:
  MklBsrPlan(const Csr<T>& a, const PlanOptions& opts)
      : MklPlanBase<T>(opts, SPARSE_MATRIX_TYPE_GENERAL, SPARSE_FILL_MODE_FULL), rows_(a.rows), cols_(a.cols) {
    check_lp64(a, "ref.mkl.bsr");
    if (a.nnz() == 0) throw NotApplicable("ref.mkl.bsr: no non-zeros");
    // The block size whose BSR moves the fewest bytes among those with a low fill.
    double best_bytes = 0, best_fill = 0, lowest_fill = 0;
    for (int b = 2; b <= 8; ++b) {
      const std::int64_t blocks = count_blocks(a, b);
      const double fill = static_cast<double>(blocks) * b * b / static_cast<double>(a.nnz());
      if (b == 2 || fill < lowest_fill) lowest_fill = fill;
      if (fill > kMaxBsrFill) continue;
      const double bytes = static_cast<double>(blocks) * (b * b * sizeof(T) + sizeof(MKL_INT)) +
                           static_cast<double>((a.rows + b - 1) / b + 1) * sizeof(MKL_INT);
      if (block_ == 0 || bytes < best_bytes) block_ = b, best_bytes = bytes, best_fill = fill, blocks_ = blocks;
    }
    if (block_ == 0) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "ref.mkl.bsr: every block size 2..8 stores at least %.2f entries per non-zero "
                    "(limit %.1f)", lowest_fill, kMaxBsrFill);
      throw NotApplicable(buf);
    }
    fill_ = best_fill;
    const int b = block_;
    block_rows_ = (rows_ + b - 1) / b;
    block_cols_ = (cols_ + b - 1) / b;
    padded_ = block_rows_ * b != rows_ || block_cols_ * b != cols_;
    // Block row pointers, then the blocks of each block row in column order, row-major inside.
    row_ptr_.assign(static_cast<std::size_t>(block_rows_) + 1, 0);
    std::vector<std::int64_t> count(static_cast<std::size_t>(block_rows_), 0);
#pragma omp parallel
    {
      std::vector<std::int64_t> seen(static_cast<std::size_t>(block_cols_), -1);
#pragma omp for schedule(dynamic, 256)
      for (std::int64_t br = 0; br < block_rows_; ++br)
        for (std::int64_t i = br * b; i < std::min(rows_, (br + 1) * b); ++i)
          for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const std::int64_t bc = a.col_idx[k] / b;
            if (seen[bc] != br) seen[bc] = br, ++count[br];
          }
    }
    for (std::int64_t br = 0; br < block_rows_; ++br) row_ptr_[br + 1] = row_ptr_[br] + static_cast<MKL_INT>(count[br]);
    col_idx_.resize(static_cast<std::size_t>(row_ptr_[block_rows_]));
    values_.assign(col_idx_.size() * b * b, T(0));
#pragma omp parallel
    {
      std::vector<std::int64_t> slot(static_cast<std::size_t>(block_cols_), -1);  // block column -> block index
      std::vector<MKL_INT> cols_here;
#pragma omp for schedule(dynamic, 256)
      for (std::int64_t br = 0; br < block_rows_; ++br) {
        cols_here.clear();
        for (std::int64_t i = br * b; i < std::min(rows_, (br + 1) * b); ++i)
          for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const std::int64_t bc = a.col_idx[k] / b;
            if (slot[bc] < 0) slot[bc] = 0, cols_here.push_back(static_cast<MKL_INT>(bc));
          }
        std::sort(cols_here.begin(), cols_here.end());
        for (std::size_t q = 0; q < cols_here.size(); ++q) {
          slot[cols_here[q]] = row_ptr_[br] + static_cast<std::int64_t>(q);
          col_idx_[row_ptr_[br] + q] = cols_here[q];
        }
        for (std::int64_t i = br * b; i < std::min(rows_, (br + 1) * b); ++i)
          for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const std::int64_t c = a.col_idx[k];
            values_[(slot[c / b] * b + (i - br * b)) * b + c % b] = a.values[k];
          }
        for (MKL_INT bc : cols_here) slot[bc] = -1;
      }
    }
    if (padded_) {
      x_pad_.assign(static_cast<std::size_t>(block_cols_ * b), T(0));
      y_pad_.assign(static_cast<std::size_t>(block_rows_ * b), T(0));
    }
    sparse_status_t s;
    if constexpr (sizeof(T) == 8)
      s = mkl_sparse_d_create_bsr(&this->handle_, SPARSE_INDEX_BASE_ZERO, SPARSE_LAYOUT_ROW_MAJOR,
                                  static_cast<MKL_INT>(block_rows_), static_cast<MKL_INT>(block_cols_), b,
                                  row_ptr_.data(), row_ptr_.data() + 1, col_idx_.data(), values_.data());
    else
      s = mkl_sparse_s_create_bsr(&this->handle_, SPARSE_INDEX_BASE_ZERO, SPARSE_LAYOUT_ROW_MAJOR,
                                  static_cast<MKL_INT>(block_rows_), static_cast<MKL_INT>(block_cols_), b,
                                  row_ptr_.data(), row_ptr_.data() + 1, col_idx_.data(), values_.data());
    this->created(s, "mkl_sparse_?_create_bsr");
    this->optimize();
  }
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    if (!padded_) return this->mv(alpha, x, beta, y);
    // Rows or columns not a multiple of the block: MKL sees the padded square-block matrix (y goes in
    // only when beta reads it).
    std::copy(x, x + cols_, x_pad_.begin());
    if (beta != T(0)) std::copy(y, y + rows_, y_pad_.begin());
    this->mv(alpha, x_pad_.data(), beta, y_pad_.data());
    std::copy(y_pad_.begin(), y_pad_.begin() + rows_, y);
  }
  std::uint64_t bytes_moved() const override {
    return values_.size() * sizeof(T) + col_idx_.size() * sizeof(MKL_INT) + row_ptr_.size() * sizeof(MKL_INT) +
           static_cast<std::uint64_t>(rows_ + cols_) * sizeof(T);
  }
  std::string detail() const override {
    char buf[96];
    std::snprintf(buf, sizeof buf, "BSR %dx%d, %.2f stored per non-zero%s", block_, block_, fill_,
                  padded_ ? ", padded x/y copies" : "");
    return this->describe(buf);
  }

 private:
  std::int64_t rows_, cols_, block_rows_ = 0, block_cols_ = 0, blocks_ = 0;
  int block_ = 0;
  double fill_ = 0;
  bool padded_ = false;
  std::vector<MKL_INT> row_ptr_, col_idx_;
  std::vector<T> values_, x_pad_, y_pad_;
};

}  // namespace

void register_ref_mkl_kernels(Registry& reg) {
  ref::select_mkl_layers();  // before MKL's first call
  {
    KernelInfo k;
    k.name = "ref.mkl.csr";
    k.format = Format::csr;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.comparison = true;
    k.description = "Intel MKL inspector-executor CSR SpMV (mv hint + mkl_sparse_optimize at plan time)";
    add_kernel<MklCsrPlan>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "ref.mkl.sym";
    k.format = Format::csr;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.comparison = true;
    k.description = "Intel MKL symmetric SpMV on the upper triangle (exactly symmetric matrices only)";
    add_kernel<MklSymPlan>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "ref.mkl.bsr";
    k.format = Format::bsr;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.comparison = true;
    k.description = "Intel MKL BSR SpMV, block size 2..8 with the fewest bytes at fill <= 1.5";
    add_kernel<MklBsrPlan>(reg, std::move(k));
  }
}

}  // namespace spkit
