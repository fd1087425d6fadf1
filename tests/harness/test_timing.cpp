// time_spmv: the harness times run(1, x, 0, y, stream) from outside the plan. A counting CPU plan checks
// the number of products (batches included) and the y left behind; a CUDA kernel of the registry (skipped
// without a GPU) checks the device path: one product a sample, batches, and the L2 flush.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/harness/timing.hpp"
#include "spkit/validate.hpp"
#include "tuning.hpp"

namespace spkit::test {
namespace {

using harness::TimingOptions;
using harness::narrowest_first;
using harness::settle_threads;
using harness::time_spmv;

// y = A x through the contract's run(alpha, x, beta, y, stream), counting the products and remembering
// the coefficients it was called with.
template <class T>
class CountingPlan final : public CpuSpmvPlan<T> {
 public:
  explicit CountingPlan(const Csr<T>& a) : a_(a) {}
  using CpuSpmvPlan<T>::run;
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    ++runs;
    last_alpha = alpha, last_beta = beta;
    for (std::int64_t i = 0; i < a_.rows; ++i) {
      T s = 0;
      for (std::int64_t k = a_.row_ptr[i]; k < a_.row_ptr[i + 1]; ++k) s += a_.values[k] * x[a_.col_idx[k]];
      y[i] = alpha * s;  // beta is 0 here: y is only written
    }
  }
  std::uint64_t bytes_moved() const override { return 1; }
  int runs = 0;
  T last_alpha = 0, last_beta = -1;

 private:
  Csr<T> a_;
};

// Each sample is `batch` products: warm-up + reps x batch runs, reps samples, A x left in y.
TEST(TimeSpmv, CpuRunsWarmupPlusRepsAndLeavesAx) {
  const Csr<double> a = random_rows(50, 40, std::vector<std::int64_t>(50, 5), 3);
  const auto x = random_vector(a.cols, 11);
  for (int batch : {1, 4}) {
    CountingPlan<double> plan(a);
    std::vector<double> y(static_cast<std::size_t>(a.rows), std::numeric_limits<double>::quiet_NaN());
    TimingOptions t;
    t.warmup = 2;
    t.reps = 5;
    t.batch = batch;
    const auto ms = time_spmv(plan, a.rows, a.cols, x.data(), y.data(), t);
    EXPECT_EQ(plan.runs, 2 + 5 * batch) << "batch " << batch;
    EXPECT_EQ(plan.last_alpha, 1.0);
    EXPECT_EQ(plan.last_beta, 0.0);
    ASSERT_EQ(ms.size(), 5u);
    for (double v : ms) EXPECT_TRUE(std::isfinite(v) && v >= 0) << v;
    EXPECT_TRUE(validate_spmv(a, x, y.data()).valid);
  }
}

TEST(TimeSpmv, AlwaysTimesAtLeastOneProduct) {
  const Csr<float> a = csr_cast<float>(random_rows(8, 8, std::vector<std::int64_t>(8, 2), 5));
  CountingPlan<float> plan(a);
  std::vector<float> x(8, 1.0f), y(8, 0.0f);
  TimingOptions t;
  t.warmup = 0;
  t.reps = 0;
  EXPECT_EQ(time_spmv(plan, a.rows, a.cols, x.data(), y.data(), t).size(), 1u);
  EXPECT_EQ(plan.runs, 1);
}

TEST(TimeSpmv, CudaKernelOnTheDevice) {
  if (!cuda_compiled() || gpu_count() == 0) GTEST_SKIP() << "no usable GPU: the CUDA timing path is not exercised";
  const KernelInfo* k = registry().find("cuda.csr.scalar");
  if (!k) {
    const auto cuda = registry().match("cuda.csr.*");
    ASSERT_FALSE(cuda.empty());
    k = cuda.front();
  }
  const Csr<double> a = random_rows(3000, 2500, std::vector<std::int64_t>(3000, 9), 17);
  auto plan = k->factory<double>()(a, PlanOptions{});
  const auto x = random_vector(a.cols, 23);
  for (int variant = 0; variant < 3; ++variant) {  // one product a sample, batches of 8, L2 flushed
    const bool flush = variant == 2;
    std::vector<double> y(static_cast<std::size_t>(a.rows), std::numeric_limits<double>::quiet_NaN());
    TimingOptions t;
    t.warmup = 1;
    t.reps = 4;
    t.batch = variant == 1 ? 8 : 1;
    t.flush_cache = flush;
    const auto ms = time_spmv(*plan, a.rows, a.cols, x.data(), y.data(), t);
    ASSERT_EQ(ms.size(), 4u);
    for (double v : ms) EXPECT_TRUE(std::isfinite(v) && v >= 0) << v;
    EXPECT_TRUE(validate_spmv(a, x, y.data()).valid) << k->name << " (variant " << variant << ")";
  }
}

// CPU cells are timed narrowest team first (a 1-thread product right after a 16-thread one ran slower on
// a many-core host), stable among equal counts; GPU cells (0 here) first.
TEST(Timing, NarrowestTeamFirstAndStable) {
  EXPECT_EQ(narrowest_first({4, 1, 0, 4, 1, 2}), (std::vector<std::size_t>{2, 1, 4, 5, 0, 3}));
  EXPECT_TRUE(narrowest_first({}).empty());
  // Narrowing pauses at least tuning::kThreadSettleMs (sleep_for's lower bound; no upper bound is asserted).
  settle_threads(4);
  const auto t0 = std::chrono::steady_clock::now();
  settle_threads(1);
  const double paused_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(paused_ms, static_cast<double>(tuning::kThreadSettleMs));
}

}  // namespace
}  // namespace spkit::test
