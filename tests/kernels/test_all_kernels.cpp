// The registry-driven kernel test: every registered kernel x precision x thread count, on every test
// matrix, against the serial double reference, with fresh random x each run: y = A x, and the contract's
// y = alpha*A*x + beta*y for alpha = 1 / beta = 0 over a NaN-poisoned y, alpha = -0.5 / beta = 2 over a
// random y, and alpha = 0 / beta = 1 (y unchanged up to rounding). A kernel is tested the moment it is
// registered; nothing here names a kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

#include "common/axpby_check.hpp"
#include "common/kernel_param_name.hpp"
#include "common/run_on_host.hpp"
#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/harness/timing.hpp"
#include "spkit/kernel.hpp"
#include "spkit/validate.hpp"

namespace spkit::test {
namespace {

const std::vector<NamedMatrix>& matrices() {
  static const auto m = all_test_matrices();
  return m;
}

// k's plan for `a`, or null when k refuses the matrix at plan time (e.g. BSR on a matrix without blocks:
// the kernel says so, the bench reports it skipped).
template <class T>
std::unique_ptr<SpmvPlan<T>> plan_or_null(const KernelInfo& k, const Csr<T>& a, int threads) {
  PlanOptions po;
  po.threads = threads;
  try {
    return k.factory<T>()(a, po);
  } catch (const NotApplicable&) {
    return nullptr;
  }
}

std::string trace_of(const NamedMatrix& m, Precision p, int threads) {
  return "matrix " + m.name + ", " + std::string(to_string(p)) + ", threads " + std::to_string(threads);
}

template <class T>
void check_kernel_on(const KernelInfo& k, const NamedMatrix& m, int threads) {
  SCOPED_TRACE(trace_of(m, precision_of<T>(), threads));
  const Csr<T> a = csr_cast<T>(m.a);
  const std::unique_ptr<SpmvPlan<T>> plan = plan_or_null(k, a, threads);
  if (!plan) return;
  for (int trial = 0; trial < 2; ++trial) {  // the same plan, run again on a new x
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE("x seed " + std::to_string(seed));
    const auto xd = random_vector(a.cols, seed);
    std::vector<T> x(xd.begin(), xd.end());
    std::vector<T> y(static_cast<std::size_t>(a.rows), std::numeric_limits<T>::quiet_NaN());  // poison
    harness::TimingOptions t;
    t.warmup = 1;
    t.reps = 2;
    harness::time_spmv(*plan, a.rows, a.cols, x.data(), y.data(), t);
    const Validation v = validate_spmv(a, x, y.data());
    EXPECT_TRUE(v.valid) << k.name << ": " << v.bad_rows << " bad rows, first " << v.first_bad_row
                         << ", rel L2 error " << v.rel_l2_error;
    if (!v.valid) return;
  }
}

// The alpha/beta cases of the kernel contract, each run twice on one plan (nothing may leak between runs).
// beta = 0 runs over a NaN-poisoned y (axpby_operands).
template <class T>
void check_alpha_beta_on(const KernelInfo& k, const NamedMatrix& m, int threads) {
  SCOPED_TRACE(trace_of(m, precision_of<T>(), threads));
  const Csr<T> a = csr_cast<T>(m.a);
  const std::unique_ptr<SpmvPlan<T>> plan = plan_or_null(k, a, threads);
  if (!plan) return;
  struct Case {
    double alpha, beta;
  };
  for (const Case& c : {Case{1, 0}, Case{-0.5, 2}, Case{0, 1}})
    for (int trial = 0; trial < 2; ++trial) {
      const std::uint64_t seed = fresh_seed();
      const auto [x, y0] = axpby_operands(a, T(c.beta), seed);
      std::vector<T> y = y0;
      run_on_host(*plan, T(c.alpha), x, T(c.beta), y);
      const std::string what = k.name + " alpha " + std::to_string(c.alpha) + " beta " + std::to_string(c.beta) +
                               ", x seed " + std::to_string(seed);
      if (count_bad_axpby_rows(a, x, y0, T(c.alpha), T(c.beta), y, what) > 0) return;
    }
}

class AllKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(AllKernels, MatchesSerialDoubleReference) {
  const KernelInfo* k = registry().find(GetParam());
  ASSERT_NE(k, nullptr);
  if (k->backend == Backend::cuda && gpu_count() == 0)
    GTEST_SKIP() << "no CUDA device on this machine: " << k->name << " compiled but not run";
  const std::vector<int> thread_counts = k->parallel ? std::vector<int>{1, 2, 3} : std::vector<int>{1};
  for (const auto& m : matrices())
    for (int th : thread_counts) {
      check_kernel_on<float>(*k, m, th);
      check_kernel_on<double>(*k, m, th);
    }
}

TEST_P(AllKernels, AlphaBetaMatchSerialDoubleReference) {
  const KernelInfo* k = registry().find(GetParam());
  ASSERT_NE(k, nullptr);
  if (k->backend == Backend::cuda && gpu_count() == 0)
    GTEST_SKIP() << "no CUDA device on this machine: " << k->name << " compiled but not run";
  // One thread, and three so that a partition leaves rows split between threads.
  const std::vector<int> thread_counts = k->parallel ? std::vector<int>{1, 3} : std::vector<int>{1};
  for (const auto& m : matrices())
    for (int th : thread_counts) {
      check_alpha_beta_on<float>(*k, m, th);
      check_alpha_beta_on<double>(*k, m, th);
    }
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : registry().all()) names.push_back(k.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registry, AllKernels, ::testing::ValuesIn(kernel_names()), kernel_param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(AllKernels);

TEST(Registry, NamesAreUniqueAndDotted) {
  for (const auto& k : registry().all()) {
    EXPECT_NE(k.name.find('.'), std::string::npos) << k.name;
    EXPECT_EQ(registry().find(k.name), &k);
    EXPECT_TRUE(k.make_f32 && k.make_f64) << k.name;
  }
}

TEST(Registry, GlobMatching) {
  EXPECT_TRUE(glob_match("cpu.csr.*", "cpu.csr.serial"));
  EXPECT_TRUE(glob_match("*.serial", "cpu.csr.serial"));
  EXPECT_TRUE(glob_match("cpu.?sr.serial", "cpu.csr.serial"));
  EXPECT_FALSE(glob_match("cuda.*", "cpu.csr.serial"));
  EXPECT_TRUE(glob_match("*", ""));
}

}  // namespace
}  // namespace spkit::test
