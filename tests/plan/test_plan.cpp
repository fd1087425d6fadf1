// The plan-once API on the CPU: auto and named kernels, every alpha/beta case (beta = 0 must not read
// y, which holds NaN), repeated applies with one plan, and the errors a caller can make.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "common/axpby_check.hpp"
#include "plan/plan_check.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/plan.hpp"

namespace spkit::test {
namespace {

// A small matrix with empty rows, a long row and a non-square shape: enough to trip a wrong stride.
Csr<double> test_matrix() {
  std::vector<std::int64_t> lengths(97);
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int64_t>((i * 7) % 11);
  lengths[13] = 0;
  lengths[40] = 70;
  return random_rows(97, 83, lengths, 7);
}

template <class T>
void check_cpu_kernels() {
  const Csr<T> a = csr_cast<T>(test_matrix());
  PlanSettings s;
  s.threads = 2;
  Plan<T> automatic(a, s);
  EXPECT_EQ(automatic.backend(), Backend::cpu);
  ASSERT_NE(registry().find(automatic.kernel()), nullptr);
  EXPECT_EQ(registry().find(automatic.kernel())->backend, Backend::cpu);
  EXPECT_FALSE(automatic.selection().reason.empty());
  EXPECT_EQ(automatic.rows(), a.rows);
  EXPECT_EQ(automatic.cols(), a.cols);
  EXPECT_GT(automatic.bytes_moved(), 0u);
  EXPECT_GE(automatic.plan_ms(), 0.0);
  check_plan(automatic, a, "auto (" + automatic.kernel() + ")");
  // Every CPU kernel of the registry through the plan, by name.
  for (const KernelInfo& k : registry().all()) {
    if (k.backend != Backend::cpu) continue;
    s.kernel = k.name;
    try {
      Plan<T> named(a, s);
      EXPECT_EQ(named.kernel(), k.name);
      check_plan(named, a, k.name);
    } catch (const NotApplicable&) {
      // a kernel may refuse a matrix (the registry test covers that it says so)
    }
  }
}

TEST(Plan, CpuDoubleAutoAndNamed) { check_cpu_kernels<double>(); }
TEST(Plan, CpuFloatAutoAndNamed) { check_cpu_kernels<float>(); }

// alpha and beta reach the kernel itself (no scratch pass): alpha = beta = 0 writes zeros over a NaN y,
// alpha = 0 / beta = 1 leaves y as it was, alpha = -0.5 / beta = 2 scales both terms; every CPU kernel.
TEST(Plan, AlphaBetaReachEveryCpuKernel) {
  const Csr<double> a = test_matrix();
  for (const KernelInfo& k : registry().all()) {
    if (k.backend != Backend::cpu) continue;
    PlanSettings s;
    s.kernel = k.name;
    s.threads = 3;
    std::unique_ptr<Plan<double>> plan;
    try {
      plan = std::make_unique<Plan<double>>(a, s);
    } catch (const NotApplicable&) {
      continue;
    }
    const auto x = random_vector(a.cols, 11);
    const auto y0 = random_vector(a.rows, 12);
    std::vector<double> y(y0.size(), std::numeric_limits<double>::quiet_NaN());
    plan->apply(x.data(), y.data(), 0.0, 0.0);
    for (double v : y) ASSERT_EQ(v, 0.0) << k.name << ": alpha = beta = 0 must write zeros over NaN";
    y = y0;
    plan->apply(x.data(), y.data(), 0.0, 1.0);
    expect_axpby_product(a, x, y0, 0.0, 1.0, y, k.name + " alpha 0 beta 1");
    y = y0;
    plan->apply(x.data(), y.data(), -0.5, 2.0);
    expect_axpby_product(a, x, y0, -0.5, 2.0, y, k.name + " alpha -0.5 beta 2");
  }
}

TEST(Plan, CpuPlanIgnoresTheStream) {
  const Csr<double> a = test_matrix();
  Plan<double> plan(a);
  const auto x = random_vector(a.cols, 21);
  const auto y0 = random_vector(a.rows, 22);
  std::vector<double> plain = y0, streamed = y0;
  plan.apply(x.data(), plain.data(), 1.5, -1.0);
  int marker = 0;  // any handle: a CPU plan never touches it
  plan.apply(x.data(), streamed.data(), 1.5, -1.0, Stream{&marker});
  EXPECT_EQ(plain, streamed);
}

TEST(Plan, GeneratedMatricesAuto) {
  for (const NamedMatrix& m : family_matrices()) {
    SCOPED_TRACE(m.name);
    for (std::int64_t products : {std::int64_t{1}, std::int64_t{1000}}) {
      PlanSettings s;
      s.expected_products = products;
      Plan<double> plan(m.a, s);
      check_plan(plan, m.a, m.name + " auto (" + plan.kernel() + ")");
    }
  }
}

TEST(Plan, EmptyMatrix) {
  Csr<double> a;
  a.rows = 5;
  a.cols = 3;
  a.row_ptr.assign(6, 0);
  Plan<double> plan(a);
  std::vector<double> x(3, 1.0), y(5, std::numeric_limits<double>::quiet_NaN());
  plan.apply(x.data(), y.data(), 2.0, 0.0);
  for (double v : y) EXPECT_EQ(v, 0.0);
  std::vector<double> y2(5, 4.0);
  plan.apply(x.data(), y2.data(), 2.0, 0.5);
  for (double v : y2) EXPECT_EQ(v, 2.0);
}

TEST(Plan, UnknownKernelNameListsTheKernels) {
  const Csr<double> a = test_matrix();
  PlanSettings s;
  s.kernel = "cpu.csr.no_such_kernel";
  try {
    Plan<double> plan(a, s);
    FAIL() << "an unknown kernel name was accepted";
  } catch (const NotApplicable& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cpu.csr.no_such_kernel"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cpu.csr.serial"), std::string::npos) << "the message lists the kernels: " << msg;
  }
}

TEST(Plan, KernelOfAnotherBackendIsRefused) {
  const Csr<double> a = test_matrix();
  PlanSettings s;
  s.kernel = "cpu.csr.serial";
  s.backend = Backend::cuda;
  try {
    Plan<double> plan(a, s);
    FAIL() << "a CPU kernel was accepted for a CUDA plan";
  } catch (const NotApplicable& e) {
    EXPECT_NE(std::string(e.what()).find("runs on cpu"), std::string::npos) << e.what();
  }
}

TEST(Plan, BadSettingsAreRefused) {
  const Csr<double> a = test_matrix();
  PlanSettings s;
  s.threads = -1;
  EXPECT_THROW(Plan<double>(a, s), Error);
  s.threads = 0;
  s.expected_products = 0;
  EXPECT_THROW(Plan<double>(a, s), Error);
}

TEST(Plan, NullPointersAreRefused) {
  const Csr<double> a = test_matrix();
  Plan<double> plan(a);
  std::vector<double> y(static_cast<std::size_t>(a.rows));
  EXPECT_THROW(plan.apply(nullptr, y.data()), Error);
}

TEST(Plan, MovedPlanStillWorks) {
  const Csr<double> a = test_matrix();
  Plan<double> first(a);
  Plan<double> second(std::move(first));
  check_plan(second, a, "moved plan");
}

TEST(Plan, CudaPlanWithoutDeviceSaysSo) {
  if (gpu_count() > 0) GTEST_SKIP() << "a CUDA device is present: the no-device path is not reachable here";
  const Csr<double> a = test_matrix();
  PlanSettings s;
  s.backend = Backend::cuda;
  // auto on CUDA without a device: either no CUDA kernel is registered (CPU build) or planning fails
  // on the device; both are spkit::Error with a message, never a crash.
  EXPECT_THROW(Plan<double>(a, s), Error);
}

}  // namespace
}  // namespace spkit::test

namespace spkit::test {
namespace {

// The README's example (host part), word for word except for the matrix source.
TEST(Plan, ReadmeExample) {
  spkit::GenOptions gen;
  gen.family = "lap2d";
  gen.n = 30;
  spkit::Csr<double> a = spkit::generate(gen);
  spkit::PlanSettings settings;
  settings.expected_products = 500;
  spkit::Plan<double> plan(a, settings);
  EXPECT_FALSE(plan.selection().reason.empty()) << plan.kernel();
  std::vector<double> x(a.cols, 1.0), y(a.rows);
  plan.apply(x.data(), y.data());
  std::vector<double> y1 = y;
  plan.apply(x.data(), y.data(), 2.0, 1.0);
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], 3.0 * y1[i], 1e-12 * (1 + std::fabs(y1[i])));
}

}  // namespace
}  // namespace spkit::test
