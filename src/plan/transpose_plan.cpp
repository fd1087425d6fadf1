// Transposed products for Plan<T> (see transpose_plan.hpp): the CSR transpose, the CPU scatter kernel
// with per-thread partial vectors, and the choice between them.
#include "plan/transpose_plan.hpp"

#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/plan.hpp"

namespace spkit::plan_detail {

const char* to_string(TransposeMode mode) {
  switch (mode) {
    case TransposeMode::cached: return "cached A^T";
    case TransposeMode::scatter: return "scatter";
    default: return "none";
  }
}

template <class T>
Csr<T> transpose_csr(const Csr<T>& a) {
  // A's row numbers become A^T's 32-bit column indices.
  if (a.rows - 1 > std::int64_t{INT32_MAX})
    throw TooLarge("transposed products: A has " + std::to_string(a.rows) +
                       " rows, more than A^T's 32-bit column indices can number",
                   a.memory_bytes());
  Csr<T> t;
  t.rows = a.cols;
  t.cols = a.rows;
  const std::int64_t nnz = a.nnz();
  t.row_ptr.assign(static_cast<std::size_t>(t.rows) + 1, 0);
  for (std::int64_t k = 0; k < nnz; ++k) ++t.row_ptr[static_cast<std::size_t>(a.col_idx[k]) + 1];
  for (std::int64_t j = 0; j < t.rows; ++j) t.row_ptr[j + 1] += t.row_ptr[j];
  t.col_idx.resize(static_cast<std::size_t>(nnz));
  t.values.resize(static_cast<std::size_t>(nnz));
  std::vector<std::int64_t> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  // Rows of A in increasing order: each row of A^T receives its columns sorted.
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const std::int64_t dst = next[a.col_idx[k]]++;
      t.col_idx[dst] = static_cast<std::int32_t>(i);
      t.values[dst] = a.values[k];
    }
  return t;
}

namespace {

// y = alpha*A^T*x + beta*y by scattering A's rows (see the header for why per-thread partials).
template <class T>
class ScatterTransposePlan final : public SpmvPlan<T> {
 public:
  ScatterTransposePlan(const Csr<T>& a, int threads) : a_(a) {
    // Each partial vector costs 2*cols of traffic per product: use no more than nnz/(2*cols) of them, so
    // the partials never move more than the matrix does.
    const std::int64_t cols = std::max<std::int64_t>(a.cols, 1);
    buffers_ = static_cast<int>(std::clamp<std::int64_t>(a.nnz() / (2 * cols), 1, std::max(threads, 1)));
    if (buffers_ > 1) partial_.resize(static_cast<std::size_t>(buffers_) * static_cast<std::size_t>(a.cols));
    // Rows split into equal shares of nonzeros, one per buffer.
    first_row_.resize(static_cast<std::size_t>(buffers_) + 1);
    for (int b = 0; b <= buffers_; ++b) {
      const std::int64_t target = a.nnz() * b / buffers_;
      first_row_[b] = std::lower_bound(a.row_ptr.begin(), a.row_ptr.end(), target) - a.row_ptr.begin();
      first_row_[b] = std::min(first_row_[b], a.rows);
    }
    first_row_[0] = 0;
    first_row_[buffers_] = a.rows;
  }

  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    const std::int64_t n = a_.cols;
    if (buffers_ == 1) {  // straight into y
      for (std::int64_t j = 0; j < n; ++j) y[j] = beta == T(0) ? T(0) : beta * y[j];
      scatter(0, a_.rows, alpha, x, y);
      return;
    }
#pragma omp parallel num_threads(buffers_)
    {
      const int b = omp_get_thread_num();
      T* part = partial_.data() + static_cast<std::size_t>(b) * static_cast<std::size_t>(n);
      std::fill(part, part + n, T(0));
      scatter(first_row_[b], first_row_[b + 1], T(1), x, part);
#pragma omp barrier
#pragma omp for schedule(static)
      for (std::int64_t j = 0; j < n; ++j) {
        T sum = T(0);
        for (int q = 0; q < buffers_; ++q) sum += partial_[static_cast<std::size_t>(q) * n + j];
        y[j] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[j];
      }
    }
  }

  Backend backend() const override { return Backend::cpu; }
  std::uint64_t bytes_moved() const override {
    const std::uint64_t nnz = static_cast<std::uint64_t>(a_.nnz());
    const std::uint64_t partials = buffers_ > 1 ? 2ull * buffers_ * a_.cols * sizeof(T) : 0;
    return nnz * (sizeof(T) + sizeof(std::int32_t)) + (a_.rows + 1) * sizeof(std::int64_t) + a_.rows * sizeof(T) +
           a_.cols * sizeof(T) + partials;
  }
  std::string detail() const override {
    return "scatter of A's rows into " + std::to_string(buffers_) + " partial vector(s)";
  }

 private:
  void scatter(std::int64_t begin, std::int64_t end, T alpha, const T* x, T* out) const {
    for (std::int64_t i = begin; i < end; ++i) {
      const T xi = alpha * x[i];
      for (std::int64_t k = a_.row_ptr[i]; k < a_.row_ptr[i + 1]; ++k) out[a_.col_idx[k]] += a_.values[k] * xi;
    }
  }

  Csr<T> a_;  // the plan's own copy: the caller's matrix may go away after planning
  int buffers_ = 1;
  std::vector<T> partial_;
  std::vector<std::int64_t> first_row_;
};

}  // namespace

template <class T>
std::unique_ptr<SpmvPlan<T>> make_transpose_plan(const Csr<T>& a, const PlanSettings& settings,
                                                 const Selection& forward, TransposeMode& mode) {
  mode = TransposeMode::none;
  if (settings.expected_transpose_products < 0) throw Error("Plan: expected_transpose_products must be >= 0");
  if (settings.expected_transpose_products == 0) return nullptr;
  if (settings.backend == Backend::cpu && settings.expected_transpose_products < kTransposeCacheMinProducts) {
    mode = TransposeMode::scatter;
    return std::make_unique<ScatterTransposePlan<T>>(
        a, forward.options.threads > 0 ? forward.options.threads : omp_get_max_threads());
  }
#ifdef SPKIT_HAVE_CUDA
  if (settings.backend == Backend::cuda && settings.expected_transpose_products < kCudaTransposeCacheMinProducts) {
    mode = TransposeMode::scatter;
    return make_cuda_scatter_transpose_plan(a, settings.device);
  }
#endif
  mode = TransposeMode::cached;
  const Csr<T> at = transpose_csr(a);
  if (const KernelInfo* k = registry().find(forward.kernel)) {
    try {
      return k->template factory<T>()(at, forward.options);
    } catch (const NotApplicable&) {
      // the forward kernel refuses A^T (e.g. its diagonals or width): let auto pick for A^T below
    }
  }
  PlanSettings for_transpose = settings;
  for_transpose.kernel = "auto";
  for_transpose.ordering = "none";
  for_transpose.tuning = "model";
  for_transpose.threads = forward.options.threads;
  for_transpose.expected_products = settings.expected_transpose_products;
  Selection ignored;
  return plan_auto(at, for_transpose, ignored);
}

template Csr<float> transpose_csr(const Csr<float>&);
template Csr<double> transpose_csr(const Csr<double>&);
template std::unique_ptr<SpmvPlan<float>> make_transpose_plan(const Csr<float>&, const PlanSettings&,
                                                              const Selection&, TransposeMode&);
template std::unique_ptr<SpmvPlan<double>> make_transpose_plan(const Csr<double>&, const PlanSettings&,
                                                               const Selection&, TransposeMode&);

}  // namespace spkit::plan_detail
