// Comparison kernel ref.librsb: librsb's recursive sparse blocks (a quad-tree of COO/CSR leaves
// sized for the caches), assembled from CSR at plan time; run() is rsb_spmv, which takes alpha and beta.
// Debian's librsb is built with float, double and the two complex types (rsb_types.h:
// RSB_HAVE_TYPE_FLOAT/DOUBLE), so both of spkit's precisions apply; a build lacking one makes that
// precision NotApplicable.
#include <rsb.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/kernel.hpp"

namespace spkit {
namespace {

std::string rsb_error_text(rsb_err_t e) {
  char buf[256] = {0};
  rsb_strerror_r(e, buf, sizeof buf);
  return buf;
}

void ensure_rsb_initialised() {
  static std::once_flag once;
  static rsb_err_t status = RSB_ERR_NO_ERROR;
  std::call_once(once, [] { status = rsb_lib_init(RSB_NULL_INIT_OPTIONS); });
  if (status != RSB_ERR_NO_ERROR) throw Error("librsb: rsb_lib_init failed: " + rsb_error_text(status));
}

template <class T>
constexpr rsb_type_t rsb_type_of() {
#if defined(RSB_HAVE_TYPE_DOUBLE) && defined(RSB_HAVE_TYPE_FLOAT)
  return sizeof(T) == 8 ? RSB_NUMERICAL_TYPE_DOUBLE : RSB_NUMERICAL_TYPE_FLOAT;
#elif defined(RSB_HAVE_TYPE_DOUBLE)
  return sizeof(T) == 8 ? RSB_NUMERICAL_TYPE_DOUBLE : RSB_NUMERICAL_TYPE_INVALID_TYPE;
#else
  return RSB_NUMERICAL_TYPE_INVALID_TYPE;
#endif
}

template <class T>
class RsbPlan final : public CpuSpmvPlan<T> {
 public:
  RsbPlan(const Csr<T>& a, const PlanOptions& opts) : rows_(a.rows), cols_(a.cols), threads_(opts.threads) {
    if (rsb_type_of<T>() == RSB_NUMERICAL_TYPE_INVALID_TYPE)
      throw NotApplicable("this librsb build lacks the " + std::string(sizeof(T) == 8 ? "double" : "float") +
                          " type");
    constexpr std::int64_t limit = std::numeric_limits<rsb_coo_idx_t>::max();
    if (a.nnz() >= limit || a.rows >= limit || a.cols >= limit)
      throw TooLarge("librsb is built with 32-bit indices; this matrix needs 64-bit ones",
                     static_cast<std::uint64_t>(a.nnz()) * (sizeof(T) + 8));
    if (a.rows == 0 || a.cols == 0 || a.nnz() == 0)
      throw NotApplicable("librsb cannot assemble a matrix without non-zeros (rsb_mtx_alloc_from_csr_const fails)");
    ensure_rsb_initialised();
    set_threads();
    std::vector<rsb_coo_idx_t> row_ptr(a.row_ptr.begin(), a.row_ptr.end());
    rsb_err_t err = RSB_ERR_NO_ERROR;
    mtx_ = rsb_mtx_alloc_from_csr_const(a.values.data(), row_ptr.data(), a.col_idx.data(),
                                        static_cast<rsb_nnz_idx_t>(a.nnz()), rsb_type_of<T>(),
                                        static_cast<rsb_coo_idx_t>(a.rows), static_cast<rsb_coo_idx_t>(a.cols), 1,
                                        1, RSB_FLAG_NOFLAGS, &err);
    if (!mtx_ || err != RSB_ERR_NO_ERROR) {
      if (mtx_) rsb_mtx_free(mtx_);
      mtx_ = nullptr;
      throw Error("librsb: rsb_mtx_alloc_from_csr_const failed: " + rsb_error_text(err));
    }
    size_t total = 0;
    if (rsb_mtx_get_info(mtx_, RSB_MIF_TOTAL_SIZE__TO__SIZE_T, &total) == RSB_ERR_NO_ERROR) matrix_bytes_ = total;
  }
  ~RsbPlan() override {
    if (mtx_) rsb_mtx_free(mtx_);
  }
  RsbPlan(const RsbPlan&) = delete;
  RsbPlan& operator=(const RsbPlan&) = delete;

  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    set_threads();
    // rsb_spmv computes y = alpha A x + beta y and scales y even when beta is 0, so with beta == 0 y is
    // cleared first (a NaN left in y would otherwise survive 0 * NaN).
    if (beta == T(0)) std::fill(y, y + rows_, T(0));
    const rsb_err_t err = rsb_spmv(RSB_TRANSPOSITION_N, &alpha, mtx_, x, 1, &beta, y, 1);
    if (err != RSB_ERR_NO_ERROR) throw Error("librsb: rsb_spmv failed: " + rsb_error_text(err));
  }
  std::uint64_t bytes_moved() const override {
    return matrix_bytes_ + static_cast<std::uint64_t>(rows_ + cols_) * sizeof(T);
  }
  std::string detail() const override {
    return "librsb " + std::to_string(threads_) + " threads, " + std::to_string(matrix_bytes_) + " B";
  }

 private:
  void set_threads() {
    rsb_int_t nt = threads_;
    rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &nt);
  }
  std::int64_t rows_, cols_;
  int threads_;
  rsb_mtx_t* mtx_ = nullptr;
  std::uint64_t matrix_bytes_ = 0;
};

}  // namespace

void register_ref_librsb_kernels(Registry& reg) {
  KernelInfo k;
  k.name = "ref.librsb";
  k.format = Format::rsb;
  k.backend = Backend::cpu;
  k.parallel = true;
  k.comparison = true;
  k.description = "librsb recursive sparse blocks (Martone), rsb_spmv (assembled from CSR at plan time)";
  add_kernel<RsbPlan>(reg, std::move(k));
}

}  // namespace spkit
