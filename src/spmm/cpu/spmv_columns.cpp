// cpu.spmv.per_column: Y = alpha*A*X + beta*Y as k products with the SpMV kernel spkit's selector picks
// for A (select_kernel, spkit/select.hpp, ranked for many products), one per column of X. SpMM `auto`
// takes it at k = 1, where an SpMM kernel has no columns to share A's reads over and the SpMV pick may read
// a smaller format (half a symmetric DIA, SELL slices); at k > 1 it is the "k SpMVs" every SpMM kernel must
// beat, as a kernel of its own. Column-major columns are contiguous and passed as they are; a row-major
// column with k > 1 (or ld > 1) is gathered into a contiguous vector and its result scattered back.
#include <omp.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_common.hpp"
#include "spmm/spmv_pick.hpp"
#include "spkit/error.hpp"
#include "spkit/select.hpp"
#include "spkit/spmm.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

template <class T>
class SpmvColumns final : public SpmmPlan<T> {
 public:
  SpmvColumns(const Csr<T>& a, const SpmmShape& shape, const PlanOptions& o)
      : rows_(a.rows), cols_(a.cols), shape_(shape), threads_(cpu::plan_threads(o.threads)) {
    if (shape.k < 1) throw Error("cpu.spmv.per_column: k must be at least 1 (got " + std::to_string(shape.k) + ")");
    spmv_ = spmm_detail::plan_spmv_pick(a, Backend::cpu, o, threads_, "cpu.spmv.per_column", &kernel_);
  }

  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) override {
    check_spmm_leading_dims(rows_, cols_, shape_, ldx, ldy);
    if (shape_.layout == DenseLayout::col_major) {
      for (std::int64_t c = 0; c < shape_.k; ++c) spmv_->run(alpha, x + c * ldx, beta, y + c * ldy, stream);
      return;
    }
    // Row-major: column c of X is x[j * ldx + c], contiguous only when ldx == 1 (then k == 1).
    const bool gather_x = ldx != 1, gather_y = ldy != 1;
    if (gather_x) x_.resize(static_cast<std::size_t>(cols_));
    if (gather_y) y_.resize(static_cast<std::size_t>(rows_));
    for (std::int64_t c = 0; c < shape_.k; ++c) {
      if (gather_x) strided_copy(x + c, ldx, x_.data(), 1, cols_);
      if (gather_y && beta != T(0)) strided_copy(y + c, ldy, y_.data(), 1, rows_);  // beta == 0: never read
      spmv_->run(alpha, gather_x ? x_.data() : x + c, beta, gather_y ? y_.data() : y + c, stream);
      if (gather_y) strided_copy(y_.data(), 1, y + c, ldy, rows_);
    }
  }
  Backend backend() const override { return Backend::cpu; }
  // k products, each moving what the SpMV kernel moves (A is read k times).
  std::uint64_t bytes_moved() const override { return spmv_->bytes_moved() * static_cast<std::uint64_t>(shape_.k); }
  std::string detail() const override {
    const std::string d = spmv_->detail();
    return std::to_string(shape_.k) + " x SpMV " + kernel_ + (d.empty() ? "" : " (" + d + ")");
  }

 private:
  void strided_copy(const T* from, std::int64_t from_step, T* to, std::int64_t to_step, std::int64_t n) const {
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1 && n > (std::int64_t(1) << 14))
    for (std::int64_t i = 0; i < n; ++i) to[i * to_step] = from[i * from_step];
  }

  std::int64_t rows_, cols_;
  SpmmShape shape_;
  int threads_;
  std::string kernel_;
  std::unique_ptr<SpmvPlan<T>> spmv_;
  std::vector<T> x_, y_;  // one gathered column of X and of Y (row-major with k > 1 or ld > 1)
};

}  // namespace

void register_cpu_spmv_columns_spmm(SpmmRegistry& reg) {
  SpmmKernelInfo k;
  k.name = "cpu.spmv.per_column";
  k.parallel = true;
  k.description = "one product per column with the SpMV kernel spkit's selector picks for A (row-major columns "
                  "gathered): SpMM auto's choice at k = 1, and the k SpMVs the SpMM kernels are measured against";
  add_spmm_kernel<SpmvColumns>(reg, std::move(k));
}

}  // namespace spkit
