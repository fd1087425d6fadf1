// The CPU side of the permuted plan (src/plan/permuted_spmv.hpp); the CUDA side is permuted_spmv.cu.
#include "plan/permuted_spmv.hpp"

#include <vector>

#include "spkit/config.hpp"
#include "spkit/error.hpp"

namespace spkit::plan_detail {
namespace {

template <class T>
class CpuPermutedPlan final : public CpuSpmvPlan<T> {
 public:
  CpuPermutedPlan(std::unique_ptr<SpmvPlan<T>> inner, const Permutation& p, Ordering ordering, int threads)
      : inner_(std::move(inner)), old_of_new_(p.old_of_new), ordering_(ordering), threads_(threads > 0 ? threads : 1),
        xp_(p.old_of_new.size()), yp_(p.old_of_new.size()) {}

  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    const std::int64_t n = static_cast<std::int64_t>(old_of_new_.size());
    const std::int32_t* old = old_of_new_.data();
    T* xp = xp_.data();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) xp[i] = x[old[i]];
    inner_->run(alpha, xp, T(0), yp_.data(), stream);
    const T* yp = yp_.data();
    // beta == 0: y is written, never read (it may hold NaN).
    if (beta == T(0)) {
#pragma omp parallel for num_threads(threads_) schedule(static)
      for (std::int64_t i = 0; i < n; ++i) y[old[i]] = yp[i];
    } else {
#pragma omp parallel for num_threads(threads_) schedule(static)
      for (std::int64_t i = 0; i < n; ++i) y[old[i]] = yp[i] + beta * y[old[i]];
    }
  }
  std::uint64_t bytes_moved() const override {
    return inner_->bytes_moved() + permutation_bytes<T>(static_cast<std::int64_t>(old_of_new_.size()));
  }
  std::string detail() const override { return permuted_detail(inner_->detail(), ordering_); }
  double optimize_ms() const override { return inner_->optimize_ms(); }

 private:
  std::unique_ptr<SpmvPlan<T>> inner_;
  std::vector<std::int32_t> old_of_new_;
  Ordering ordering_;
  int threads_;
  std::vector<T> xp_, yp_;  // x and y in the plan's numbering
};

}  // namespace

std::string permuted_detail(const std::string& inner_detail, Ordering ordering) {
  std::string d = std::string(to_string(ordering)) + " ordering (x gathered, y scattered)";
  return inner_detail.empty() ? d : inner_detail + "; " + d;
}

template <class T>
std::unique_ptr<SpmvPlan<T>> make_permuted_plan(std::unique_ptr<SpmvPlan<T>> inner, const Permutation& p,
                                                Ordering ordering, int threads, int device) {
  if (!inner) throw Error("make_permuted_plan: no inner plan");
  if (inner->backend() == Backend::cpu)
    return std::make_unique<CpuPermutedPlan<T>>(std::move(inner), p, ordering, threads);
#ifdef SPKIT_HAVE_CUDA
  return make_cuda_permuted_plan<T>(std::move(inner), p, ordering, device);
#else
  (void)device;
  throw DeviceError("make_permuted_plan", "this build of spkit has no CUDA support");
#endif
}

template std::unique_ptr<SpmvPlan<float>> make_permuted_plan(std::unique_ptr<SpmvPlan<float>>, const Permutation&,
                                                             Ordering, int, int);
template std::unique_ptr<SpmvPlan<double>> make_permuted_plan(std::unique_ptr<SpmvPlan<double>>, const Permutation&,
                                                              Ordering, int, int);

}  // namespace spkit::plan_detail
