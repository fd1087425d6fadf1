// The CPU side of the permuted plan (src/plan/permuted_spmv.hpp); the CUDA side is permuted_spmv.cu.
#include "plan/permuted_spmv.hpp"

#include <algorithm>
#include <vector>

#include "spkit/config.hpp"
#include "spkit/error.hpp"

namespace spkit::plan_detail {

template <class T>
void gather_host(const std::vector<std::int32_t>& old_of_new, const T* user, T* plan, int threads) {
  const std::int64_t n = static_cast<std::int64_t>(old_of_new.size());
  const std::int32_t* old = old_of_new.data();
#pragma omp parallel for num_threads(threads > 0 ? threads : 1) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) plan[i] = user[old[i]];
}

template <class T>
void scatter_host(const std::vector<std::int32_t>& new_of_old, const T* plan, T beta, T* user, int threads) {
  const std::int64_t n = static_cast<std::int64_t>(new_of_old.size());
  const std::int32_t* to = new_of_old.data();
  const int team = threads > 0 ? threads : 1;
  // Read at random, write in order (permuted_spmv.hpp). beta == 0: user is written, never read (it may hold NaN).
  if (beta == T(0)) {
#pragma omp parallel for num_threads(team) schedule(static)
    for (std::int64_t j = 0; j < n; ++j) user[j] = plan[to[j]];
  } else {
#pragma omp parallel for num_threads(team) schedule(static)
    for (std::int64_t j = 0; j < n; ++j) user[j] = plan[to[j]] + beta * user[j];
  }
}

template <class T>
void gather_rows_host(const std::vector<std::int32_t>& old_of_new, const T* user, std::int64_t ld_user, std::int64_t k,
                      T* plan, int threads) {
  const std::int64_t n = static_cast<std::int64_t>(old_of_new.size());
  const std::int32_t* old = old_of_new.data();
#pragma omp parallel for num_threads(threads > 0 ? threads : 1) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const T* src = user + static_cast<std::int64_t>(old[i]) * ld_user;
    std::copy(src, src + k, plan + i * k);
  }
}

template <class T>
void scatter_rows_host(const std::vector<std::int32_t>& new_of_old, const T* plan, std::int64_t k, T beta, T* user,
                       std::int64_t ld_user, int threads) {
  const std::int64_t n = static_cast<std::int64_t>(new_of_old.size());
  const std::int32_t* to = new_of_old.data();
#pragma omp parallel for num_threads(threads > 0 ? threads : 1) schedule(static)
  for (std::int64_t j = 0; j < n; ++j) {
    T* dst = user + j * ld_user;
    const T* src = plan + static_cast<std::int64_t>(to[j]) * k;
    if (beta == T(0)) std::copy(src, src + k, dst);  // dst not read (it may hold NaN)
    else
      for (std::int64_t c = 0; c < k; ++c) dst[c] = src[c] + beta * dst[c];
  }
}

namespace {

template <class T>
class CpuPermutedPlan final : public CpuSpmvPlan<T>, public RenumberedPlan<T> {
 public:
  CpuPermutedPlan(std::unique_ptr<SpmvPlan<T>> inner, const Permutation& p, Ordering ordering, int threads)
      : inner_(std::move(inner)), old_of_new_(p.old_of_new), new_of_old_(inverse_of(p)), ordering_(ordering),
        threads_(threads > 0 ? threads : 1), xp_(p.old_of_new.size()), yp_(p.old_of_new.size()) {}

  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    gather(x, xp_.data(), stream);
    inner_->run(alpha, xp_.data(), T(0), yp_.data(), stream);
    scatter(yp_.data(), beta, y, stream);
  }
  std::uint64_t bytes_moved() const override {
    return inner_->bytes_moved() + permutation_bytes<T>(static_cast<std::int64_t>(old_of_new_.size()));
  }
  std::string detail() const override { return permuted_detail(inner_->detail(), ordering_); }
  double optimize_ms() const override { return inner_->optimize_ms(); }

  SpmvPlan<T>& inner() override { return *inner_; }
  const std::vector<std::int32_t>& old_of_new() const override { return old_of_new_; }
  const std::vector<std::int32_t>& new_of_old() const override { return new_of_old_; }
  void gather(const T* user, T* plan, Stream) override { gather_host(old_of_new_, user, plan, threads_); }
  void scatter(const T* plan, T beta, T* user, Stream) override { scatter_host(new_of_old_, plan, beta, user, threads_); }
  void gather_rows(const T* user, std::int64_t ld_user, std::int64_t k, T* plan, Stream) override {
    gather_rows_host(old_of_new_, user, ld_user, k, plan, threads_);
  }
  void scatter_rows(const T* plan, std::int64_t k, T beta, T* user, std::int64_t ld_user, Stream) override {
    scatter_rows_host(new_of_old_, plan, k, beta, user, ld_user, threads_);
  }

 private:
  std::unique_ptr<SpmvPlan<T>> inner_;
  std::vector<std::int32_t> old_of_new_, new_of_old_;
  Ordering ordering_;
  int threads_;
  std::vector<T> xp_, yp_;  // x and y in the plan's numbering
};

}  // namespace

std::vector<std::int32_t> inverse_of(const Permutation& p) {
  if (p.new_of_old.size() == p.old_of_new.size()) return p.new_of_old;
  return Permutation::from_old_of_new(p.old_of_new).new_of_old;  // built with old_of_new alone
}

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
template void gather_host(const std::vector<std::int32_t>&, const float*, float*, int);
template void gather_host(const std::vector<std::int32_t>&, const double*, double*, int);
template void scatter_host(const std::vector<std::int32_t>&, const float*, float, float*, int);
template void scatter_host(const std::vector<std::int32_t>&, const double*, double, double*, int);
template void gather_rows_host(const std::vector<std::int32_t>&, const float*, std::int64_t, std::int64_t, float*, int);
template void gather_rows_host(const std::vector<std::int32_t>&, const double*, std::int64_t, std::int64_t, double*, int);
template void scatter_rows_host(const std::vector<std::int32_t>&, const float*, std::int64_t, float, float*, std::int64_t,
                                int);
template void scatter_rows_host(const std::vector<std::int32_t>&, const double*, std::int64_t, double, double*,
                                std::int64_t, int);

}  // namespace spkit::plan_detail
